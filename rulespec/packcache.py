"""The compiled-pack cache: a loaded pack kept on disk, so that a fresh process skips parsing.

Loading a pack (parsing its `.rules` files with Lark, its YAML with positions, resolving the
overlays) costs about a second of CPU for base_3to5; unpickling the result costs a few
hundredths. Each level of a pack's chain (a pack and what it extends) is stored once loaded
cleanly, as whatever `pack._Loader.load` returns (the cache does not know what a pack holds,
so new declaration kinds or world data need no change here), with the warnings it gave.

Where: `$RULESPEC_CACHE_DIR`, else `$XDG_CACHE_HOME/rulespec`, else `~/.cache/rulespec`;
`RULESPEC_NO_CACHE=1` turns it off. The folder must belong to the user and not be writable by
others (an entry is a pickle: whoever can write it could run code), else the cache is off.

Never trusted blindly. An entry is found by a key over the engine's own source files (every
file of rulespec/, so any code change invalidates), the engine and Python versions, the pack
folder, its sandbox root and the search path. It is used only when its header names that key,
its payload has the recorded sha256, every folder of its chain still holds exactly the files
it held (names and bytes, read through the sandbox), the packs `extends:` can name are the
same, and it unpickles to the expected types; anything else (corrupt, foreign, stale) is a
miss and the pack is loaded afresh. A level that gave errors is not stored, so diagnostics
come from a fresh load, identical with and without the cache. Writes go to a temporary file
renamed into place; the oldest entries are removed past MAX_ENTRIES.

Lark's parser tables are cached in the same folder (lark_cache_file).
"""
from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path

from . import compactpickle
from .cache_folder import cache_dir     # (also read as packcache.cache_dir by pack.py and codecache.py)

FORMAT = 2                  # 2: dataclass instances written as maker calls (rulespec/compactpickle.py)
MAGIC = b"RULESPEC-PACK-CACHE %d\n" % FORMAT
MAX_ENTRIES = 256           # the README's test command uses about 75 (about 100 MB)
ENGINE_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """sha256 over the engine's source (rulespec/: .py, grammar, schemas), its version, the
    Python version and the versions of the libraries whose objects a pack holds."""
    from . import __version__
    h = hashlib.sha256(f"{FORMAT}|{__version__}|{sys.version}|lark {library_version('lark')}|"
                       f"yaml {library_version('yaml')}".encode())
    for p in sorted(ENGINE_DIR.rglob("*")):
        if p.suffix in (".py", ".lark", ".json") and p.is_file() and "__pycache__" not in p.parts:
            rel = p.relative_to(ENGINE_DIR).as_posix().encode()
            data = p.read_bytes()
            h.update(b"%d:%s%d:" % (len(rel), rel, len(data)))
            h.update(data)
    return h.hexdigest()


def library_version(name: str) -> str:
    """`name.__version__`, read from the package's `__init__.py` when it says it plainly, so
    that a warm load need not import the library (Lark costs a fresh process ~0.03 s of CPU);
    else imported. The origin path is part of it: another installation is another key."""
    import importlib.util
    import re
    try:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin:
            with open(origin, encoding="utf-8") as f:
                m = re.search(r"""^__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']""", f.read(), re.M)
            if m:
                return f"{m.group(1)} {origin}"
    except (OSError, ImportError, ValueError, UnicodeDecodeError):
        pass
    module = importlib.import_module(name)
    return f"{module.__version__} {getattr(module, '__file__', '')}"


def folder_fingerprint(folder: Path) -> str | None:
    """sha256 over what loading reads of one pack folder: the names of its files (those read
    and those only warned about), their bytes, and the problems walking it found. None when a
    file cannot be read through the sandbox (such a level is not cached)."""
    from .errors import RulespecError
    from .pack import pack_layout
    from .sandbox import read_bytes
    folder = Path(folder)
    top, rules, elsewhere, problems = pack_layout(folder)
    h = hashlib.sha256()
    try:
        for path in sorted({folder / "pack.yaml", *top, *rules}):
            rel = path.relative_to(folder).as_posix().encode()
            data = read_bytes(path, root=folder)
            h.update(b"F%d:%s%d:" % (len(rel), rel, len(data)))
            h.update(data)
    except (RulespecError, ValueError):
        return None
    for path in elsewhere:
        h.update(b"N" + path.relative_to(folder).as_posix().encode() + b"\0")
    for d in problems:
        h.update(f"P{d.code}|{d.message}|{d.span}\0".encode())
    return h.hexdigest()


def visible_packs(search: list) -> str:
    """sha256 over the packs an `extends:` may name (the search path's and the bundled ones):
    a new pack shadowing an id changes it."""
    from .pack import bundled_packs
    seen = []
    for f in search:
        try:
            if (f / "pack.yaml").is_file():
                seen.append(f"{f.name}={f}")
            if f.is_dir():
                seen += [f"{c.name}={c}" for c in sorted(f.iterdir()) if (c / "pack.yaml").is_file()]
        except OSError:
            seen.append(f"?{f}")
    seen += [f"{k}={v}" for k, v in bundled_packs().items()]
    return hashlib.sha256("\n".join(seen).encode()).hexdigest()


_TEMP = Path(tempfile.gettempdir()).resolve()


def temporary(path) -> bool:
    """Whether `path` lies in the system's temporary folder."""
    try:
        return Path(path).resolve().is_relative_to(_TEMP)
    except (OSError, ValueError, RuntimeError):
        return False


def worth_caching(directory: Path, folder) -> bool:
    """Whether a level loaded from `folder` is looked up and stored in `directory`: not when the
    pack lies in the system's temporary folder (tests, generated packs, a scenario's overlay)
    while the cache folder does not. Such a folder is new each time, and an entry is keyed by
    its folder, so it would never be used again, only cost the writing (pickling, hashing the
    files) and push the packs loaded again and again out of the MAX_ENTRIES kept (the README's
    test command loads about 75 others, more than the 64 once kept: its bundled packs were
    parsed afresh after each eviction). A cache folder that is itself temporary (this module's
    tests) keeps them."""
    return not temporary(folder) or temporary(directory)


def entry_key(folder: Path, root: Path, search: list | None) -> str:
    """The key of a level: its folder, its sandbox root and the search path its `extends:` was
    resolved in; `search` None for a pack that extends none, which no search path changes (one
    entry for base_3to5 whatever --pack-path or scenario folder a load names)."""
    parts = [FORMAT, engine_fingerprint(), str(folder), str(root), None if search is None else [str(s) for s in search]]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def lookup(directory: Path, key: str, search: list):
    """The cached value stored under `key`, or None (missing, corrupt, foreign or stale)."""
    path = directory / f"{key[:40]}.pack"
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    try:
        if not blob.startswith(MAGIC):
            return None
        end = blob.index(b"\n", len(MAGIC))
        header = json.loads(blob[len(MAGIC):end])
        payload = blob[end + 1:]
        if header.get("key") != key or header.get("digest") != hashlib.sha256(payload).hexdigest():
            return None
        for folder, fp in header["deps"]:
            if folder_fingerprint(Path(folder)) != fp:
                return None
        if header.get("visible") is not None and header["visible"] != visible_packs(search):
            return None
        with collector_paused():
            value = pickle.loads(payload)
    except Exception:               # a corrupt entry of any kind is a miss, never an error
        return None
    try:
        os.utime(path)              # recently used: kept by prune
    except OSError:
        pass
    return value


def store(directory: Path, key: str, value, deps: list, search: list, with_bases: bool) -> bool:
    """Write `value` under `key`, valid while each folder of `deps` keeps its files. False
    when it cannot be stored (unpicklable, a file not readable, the folder not writable)."""
    try:
        prints = []
        for folder in deps:
            fp = folder_fingerprint(Path(folder))
            if fp is None:
                return False
            prints.append([str(folder), fp])
        payload = compactpickle.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError, OSError):
        return False
    header = {"key": key, "digest": hashlib.sha256(payload).hexdigest(), "deps": prints,
              "visible": visible_packs(search) if with_bases else None}
    blob = MAGIC + json.dumps(header).encode() + b"\n" + payload
    if not write_atomic(directory / f"{key[:40]}.pack", blob):
        return False
    prune(directory)
    return True


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while a pack is unpickled: the 50,000 objects of
    base_3to5 set off a collection every 700 of them, each walking everything alive, and
    none of them is garbage (measured: 0.09 s -> 0.05 s of CPU for a load from the cache)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def write_atomic(path: Path, blob: bytes) -> bool:
    """Write `blob` to a temporary file renamed into place (readers never see half a file)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pack")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False


def prune(directory: Path, keep: int = MAX_ENTRIES) -> None:
    """Remove the least recently used entries past `keep`."""
    try:
        entries = [(p.stat().st_mtime, p) for p in directory.glob("*.pack")]
    except OSError:
        return
    if len(entries) <= keep:
        return
    for _, p in sorted(entries)[: len(entries) - keep]:
        try:
            p.unlink()
        except OSError:
            pass


def lark_cache_file(grammar: str) -> Path | None:
    """Where Lark keeps the parser tables of this grammar (None: no cache). Lark checks the
    grammar, options and its version recorded inside before using the file."""
    directory = cache_dir()
    if directory is None:
        return None
    import lark
    digest = hashlib.sha256(f"{lark.__version__}|{sys.version}|cache_grammar|{grammar}".encode()).hexdigest()
    return directory / f"lark-{digest[:32]}.tables"
