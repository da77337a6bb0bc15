"""Catalogue kinds a pack declares: what a declaration of each may say (issue 16, stage 18b).

A catalogue kind is a kind whose instances are the pack's own declarations of it
(`kind omen { instances: catalogue }`, then `omen ember { power: 2 }`). Its `field` lines
(`field power: number "How strong" @required`) say which fields those declarations take, of
what type, and which they must give: the same `KindSpec` the language's own kinds have in
rulespec/kinds.py, so the checker treats `omen ember { ... }` exactly as it treats an `action`.
Nothing here names a thing of a particular game: the base game's cards, tiles, alliances,
War Bonuses and colours are declared by its pack (content/base_3to5/rules/catalogue.rules).

A field type is written as a world field's (rulespec/world.py) and read as a kinds.py type:
int, number, bool, str, any as themselves; cost, symbols, effect (the language's own values);
an `enum` id as `enum:a|b|c`; a kind (action, city, a declared kind) as `ref:K`; `list of T`.
A number or bool field may be an expression (`pp: count(player.cities)`), as in kinds.py.
"""
from __future__ import annotations

from . import ast as A
from .errors import Diagnostic, did_you_mean, source_line_at
from .kinds import KINDS, KindSpec, _common, FieldSpec

VALUE_TYPES = ("cost", "symbols", "effect")     # the language's own value types for declaration fields
SCALARS = ("int", "number", "bool", "str", "any")


def is_catalogue(decl) -> bool:
    """A `kind` declaration whose instances are the pack's declarations of it."""
    fv = decl.fields.get("instances")
    v = fv.value if fv is not None else None
    return (v.id if isinstance(v, A.Name) else v) == "catalogue"


def _required(sub) -> bool:
    fv = sub.fields.get("required")
    if fv is not None:
        return getattr(fv.value, "value", fv.value) is True
    return any(a.name == "required" for a in getattr(sub, "annotations", ()))


class _Specs:
    def __init__(self, pack, world):
        self.pack, self.world = pack, world
        self.out: list = []
        self.kinds = {str(d.id): d for d in pack.of_kind("kind")}

    def diag(self, code, msg, span, hint=""):
        self.out.append(Diagnostic(code, msg, span, hint, "error", source_line_at(span.file, span.line)))

    def known_types(self) -> list:
        return list(SCALARS) + list(VALUE_TYPES) + list(self.world.enums) + sorted(set(KINDS) | set(self.kinds))

    def spec_type(self, text: str, span, fname: str, kind: str):
        """A world type text -> a kinds.py type string, or None (reported)."""
        from .world import parse_type      # world imports kinds; this module is imported after both
        ft = parse_type(text)
        if ft is None or ft.shape not in ("scalar", "ref", "list"):
            self.diag("RS106", f"'{text}' is not a type for field '{fname}' of kind {kind}", span,
                      "write int, number, bool, str, any, cost, symbols, effect, an enum, a kind (action, city...) "
                      "or `list of T`")
            return None
        if ft.shape == "list":
            inner = self.spec_type(str(ft.of), span, fname, kind)
            return None if inner is None else "list:" + inner
        name = ft.name
        if ft.shape == "scalar" or name in VALUE_TYPES:
            return name
        if name in self.world.enums:
            return "enum:" + "|".join(self.world.enums[name])
        if name in KINDS or name in self.kinds or name in self.world.kinds:
            return "ref:" + name
        self.diag("RS105", f"unknown type '{name}' for field '{fname}' of kind {kind}", span,
                  did_you_mean(name, self.known_types()) or "types: " + ", ".join(self.known_types()))
        return None

    def spec(self, d) -> KindSpec:
        name = str(d.id)
        fields = {}
        for (bkind, key), sub in d.blocks.items():
            if bkind != "field":
                continue
            tv = sub.fields.get("type")
            if tv is None:
                continue        # RS104 from the checker
            text = tv.value.id if isinstance(tv.value, A.Name) else getattr(tv.value, "value", tv.value)
            t = self.spec_type(str(text), getattr(tv.value, "span", tv.span), str(key), name)
            fields[str(key)] = FieldSpec(t or "any", _required(sub), sub.title)
        return KindSpec(name, d.title, {**_common, **fields})

    def build(self) -> dict:
        specs = {}
        for name, d in self.kinds.items():
            has_fields = any(k == "field" for k, _ in d.blocks)
            if name in KINDS:
                if has_fields:
                    self.diag("RS101", f"'{name}' is a kind of the language: its declarations' fields are the language's",
                              d.id_span or d.span, "leave the `field` lines out, or declare a kind of another name")
                continue
            if not is_catalogue(d):
                if has_fields:
                    self.diag("RS103", f"kind '{name}' has `field` lines, but its instances are not declarations",
                              d.id_span or d.span, "write `instances: catalogue` (its things are declared "
                              f"`{name} ID {{ ... }}`), or declare each field with `field F: T on {name}`")
                continue
            specs[name] = self.spec(d)
        return specs


def catalogue_specs(pack, world) -> tuple[dict, list]:
    """({kind name: KindSpec} of the pack's catalogue kinds, findings). The language's kinds
    (rulespec/kinds.py) are not among them."""
    s = _Specs(pack, world)
    return s.build(), s.out


def declaration_fields(decl) -> tuple:
    """The field names a catalogue kind's declarations take (with the common ones), for a
    world field that would shadow one (rulespec/world.py)."""
    if not is_catalogue(decl):
        return ()
    return tuple(_common) + tuple(str(k) for (b, k) in decl.blocks if b == "field")
