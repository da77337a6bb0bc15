"""Reading and writing the fields a pack declares (rulespec.world) in the state's records.

A declared field of a kind with stored records lives at `state[store][id][key]`; a sparse one is
stored only once set, in the record itself or in a map of it (`home`: a `player_var` lives in
the side's `vars`). The compiler reads plain fields directly (`rt.rec(store, x)[key]`, see
interpreter/compiler.py); everything else comes here. Every read goes through `rt.state`, so
the constraint checker sees it (interpreter/constraints.py). The names all come from the pack.
"""
from __future__ import annotations

from dataclasses import dataclass

from rulespec import ast as A

from . import vm

_MISSING = object()


@dataclass(frozen=True)
class Slot:
    """Where one declared field of one kind is stored, and how a value is kept there."""
    kind: str               # the kind's name (for messages)
    store: str              # state key of the kind's records
    key: str                # the field's key in a record
    home: str               # '' or the map of the record holding sparse fields ('vars')
    sparse: bool
    default: object         # its value while unset (a sparse field), or a new record's
    shape: str              # 'scalar' | 'ref' | 'list' | 'count' | 'map' | 'index'
    scalar: str             # for a scalar: int, number, bool, str, any
    minimum: object         # `set` clamps to it (None: no bound)
    checker_type: str       # the checker's type of its values

    @property
    def direct(self) -> bool:
        """Compiled as `rt.rec(store, x)[key]`: a plain field of a stored record."""
        return bool(self.store) and not self.sparse and not self.home


def default_value(f):
    """The static value of a field's default (a literal), else the empty value of its type."""
    v = f.default
    if v is None:
        return f.type.empty()
    if isinstance(v, A.Expr):
        lit = _literal(v)
        return f.type.empty() if lit is _MISSING else lit
    return v


def _literal(v):
    if isinstance(v, (A.Num, A.Str, A.Bool)):
        return v.value
    if isinstance(v, A.NoneLit):
        return None
    if isinstance(v, A.Name):
        return v.id                 # an enum value or an id
    if isinstance(v, A.Neg) and isinstance(v.operand, A.Num):
        return -v.operand.value
    if isinstance(v, A.ListExpr):
        items = [_literal(i) for i in v.items]
        return _MISSING if _MISSING in items else items
    return _MISSING


def slot_of(kind, f) -> Slot:
    t = f.type
    return Slot(kind.name, kind.store, f.key, f.home, f.sparse, default_value(f), t.shape,
                t.name if t.shape == "scalar" else "", f.minimum, t.checker())


def record(rt, store: str, x, kind: str = "") -> dict:
    """The stored record of `x`, or Abort (a bad id is an illegal move, not a crash)."""
    try:
        return rt.state[store][x]
    except (KeyError, TypeError):
        raise vm.Abort(f"no {kind or store} '{x}'") from None


def get(rt, s: Slot, x):
    if x is None:
        return None
    rec = record(rt, s.store, x, s.kind)
    if s.home:
        return rec[s.home].get(s.key, s.default)
    v = rec.get(s.key, s.default) if s.sparse else rec[s.key]
    return list(v) if s.shape == "list" and v is not None else v


def put(rt, s: Slot, x, value):
    """`set x.F = value`: kept as the field's type keeps it (an int, a copy of a list...),
    clamped to its minimum; a sparse field of the record set to none is removed (a value in a
    home map, a `player_var`, keeps none as its value)."""
    rec = record(rt, s.store, x, s.kind)
    if s.home:
        rec = rec[s.home]
    elif value is None and s.sparse:
        rec.pop(s.key, None)
        return
    if s.shape == "scalar" and value is not None:
        if s.scalar == "int":
            value = int(value)
        elif s.scalar == "bool":
            value = bool(value)
        if s.minimum is not None and value < s.minimum:
            value = s.minimum
    elif s.shape == "list" and value is not None:
        value = list(value)
    elif s.shape in ("count", "map") and value is not None:
        value = {k: n for k, n in dict(value).items() if n} if s.shape == "count" else dict(value)
    rec[s.key] = value


# ------------------------------------------------------------------------------ zones
@dataclass(frozen=True)
class ZoneRead:
    """Where a zone is kept and how its things are stored (rulespec.world.ZoneDef.shape)."""
    store: str              # the game's zones: GAME_ZONES (rulespec.world); else the owners' records
    key: str
    shape: str              # 'list' | 'entries' | 'grouped' | 'counted'
    entry: tuple = ()       # (key, default) of each entry field, in order ('entries')


def zone_read(z) -> ZoneRead:
    return ZoneRead(z.store, z.key, z.shape, tuple((f.key, default_value(f)) for f in z.entry.values()))


def zone_things(rt, zr: ZoneRead, x):
    """What a zone holds, in order (ids; a counted zone: its number). x: its owner, None for a
    zone of the game."""
    if x is None:
        held = rt.state[zr.store][zr.key]           # a zone of the game
    else:
        held = record(rt, zr.store, x)[zr.key]
    if zr.shape == "list":
        return list(held)
    if zr.shape == "entries":
        return [e["id"] for e in held]
    if zr.shape == "grouped":
        return [i for pile in held.values() for i in pile]
    return held


def zone_value(zr: ZoneRead, things, type_of):
    """The stored form of a zone holding `things` (a list of ids, or a number for a counted
    zone): entries get their fields' defaults, a grouped zone is {catalogue id: [copies]}."""
    if zr.shape == "counted":
        return int(things or 0)
    things = list(things or ())
    if zr.shape == "entries":
        return [{"id": t, **{k: v for k, v in zr.entry}} for t in things]
    if zr.shape == "grouped":
        piles: dict = {}
        for t in things:
            piles.setdefault(type_of(t), []).append(t)
        return piles
    return things
