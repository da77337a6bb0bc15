"""Dataclass instances pickled as one call with their values, for the compiled-pack cache.

A loaded pack is mostly dataclass instances (base_3to5: about 14,000 syntax nodes,
declarations and field values), and the compiled-pack cache (rulespec/packcache.py) unpickles
all of them at each load. Pickle's own way for such an object makes it empty, builds a dict of
its state, then copies that dict into the object's own; here an object is written as a call of
a maker made for its class and its attribute names, `maker(v1, v2, ...)`, which fills the
object's dict directly: the same object (the same class, the same attributes in the same
order; `__init__` is not called, as by pickle itself), in about a third of the time.

Only the cache's pickler uses it (`dumps`), so copying and other pickles are unchanged. A maker
is found again on loading by its name in this module (`make|rulespec/ast|Num|value|span`:
module, class, attribute names), made on first use by `__getattr__`. An object whose values
lead back to itself cannot be written as a call of them: pickling it raises RecursionError,
and the cache does not store that pack (packcache.store).
"""
from __future__ import annotations

import dataclasses
import importlib
import io
import pickle

_PREFIX = "make"
_makers: dict = {}
_compact: dict = {}         # class -> whether its instances are written as a maker call
_OWN = ("rulespec.", "interpreter.")


def dumps(value) -> bytes:
    """`pickle.dumps(value)`, the dataclass instances of rulespec and interpreter written as
    maker calls."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        cls = type(obj)
        ok = _compact.get(cls)
        if ok is None:
            ok = _compact[cls] = _compactable(cls)
        if not ok:
            return NotImplemented
        d = obj.__dict__
        names = tuple(d)
        maker = _makers.get((cls, names)) or _maker(cls, names)
        return maker, tuple(d.values())


def _compactable(cls) -> bool:
    """A dataclass of this project whose instances keep their attributes in a dict, restored
    by pickle without `__setstate__` (what a maker does instead)."""
    return (dataclasses.is_dataclass(cls) and isinstance(cls, type) and cls.__module__.startswith(_OWN)
            and "__slots__" not in cls.__dict__ and not hasattr(cls, "__setstate__")
            and cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__)


def _maker(cls, names: tuple):
    """The function making an instance of `cls` with these attributes, registered in this
    module under a name that says which (so that a fresh process finds it by that name)."""
    if not all(n.isidentifier() for n in names):
        raise pickle.PicklingError(f"{cls.__qualname__}: an attribute name pickle cannot call")
    name = "|".join([_PREFIX, cls.__module__.replace(".", "/"), cls.__qualname__.replace(".", "/"), *names])
    params = ", ".join(names)
    body = "".join(f"    d[{n!r}] = {n}\n" for n in names)
    namespace = {"new": cls.__new__, "cls": cls}
    exec(f"def maker({params}):\n    o = new(cls)\n    d = o.__dict__\n{body}    return o\n", namespace)
    maker = namespace["maker"]
    maker.__module__, maker.__name__, maker.__qualname__ = __name__, name, name
    _makers[(cls, names)] = maker
    globals()[name] = maker
    return maker


def __getattr__(name: str):
    """A maker named in a pickle, made in this process (only for a dataclass of this project)."""
    parts = name.split("|")
    if len(parts) < 3 or parts[0] != _PREFIX:
        raise AttributeError(name)
    module, qualname, names = parts[1].replace("/", "."), parts[2].split("/"), tuple(parts[3:])
    if not module.startswith(_OWN):
        raise AttributeError(name)
    cls = importlib.import_module(module)
    for part in qualname:
        cls = getattr(cls, part)
    if not (isinstance(cls, type) and _compactable(cls)):
        raise AttributeError(name)
    return _makers.get((cls, names)) or _maker(cls, names)
