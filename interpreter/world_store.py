"""Reading and writing the fields a pack declares (rulespec.world) in the state's records.

A declared field of a kind with stored records lives at `state[store][id][key]`; a sparse one is
stored only once set, in the record itself or in a map of it (`home`: a `player_var` lives in
the side's `vars`). The compiler reads plain fields directly (`rt.rec(store, x)[key]`, see
interpreter/compiler.py); everything else comes here. Every read goes through `rt.state`, so
the constraint checker sees it (interpreter/constraints.py). The names all come from the pack.
"""
from __future__ import annotations

import copy
import re
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
    item: str = ""          # the record type of a list of records ('records') or of an index ('index')
    of_record: bool = False  # a field of a record of a list: `x` is a ref ("red.room2")
    on_map: str = ""        # the map.yaml key it is read from (`@map`): printed, never stored
    on_board: str = ""      # the key of the side's board it is read from (`@printed`), never stored

    @property
    def direct(self) -> bool:
        """Compiled as `rt.rec(store, x)[key]`: a plain field of a stored record."""
        return bool(self.store) and not self.sparse and not self.home and not self.on_map \
            and not self.on_board and self.shape not in ("records", "index")


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


def slot_of(kind, f, records=()) -> Slot:
    """Where field `f` of `kind` is kept; `records`: the record types (a list of them is kept
    as records and read as refs)."""
    t = f.type
    shape, item = t.shape, ""
    if shape == "list" and t.of is not None and t.of.shape == "ref" and t.of.name in records:
        shape, item = "records", t.of.name
    elif shape == "index":
        item = t.of.name if t.of is not None else ""
    return Slot(kind.name, kind.store, f.key, f.home, f.sparse, default_value(f), shape,
                t.name if t.shape == "scalar" else "", f.minimum, t.checker(), item,
                of_record=kind.name in records, on_map=f.on_map, on_board=f.on_board)


# ------------------------------------------------------------------ records of a list
# A record kept in a list field of a stored record (`field rooms: list of room on side`) is a
# value of its own: "OWNER.RECORDn", the record at index n of OWNER's list (`red.room2`). Rules
# store and compare it like any id; `x.index` is n; `index of rooms` fields keep n.
_REF = re.compile(r"(?P<owner>.+)\.(?P<rec>[a-z_][a-z0-9_]*?)(?P<i>[0-9]+)")


def ref(record_type: str, owner, i) -> str:
    return f"{owner}.{record_type}{i}"


_REFS: dict = {}        # (record type, owner, n) -> the refs of n records: the same texts every time


def refs_of(record_type: str, owner, n: int) -> tuple:
    """The refs of the first n records of owner's list (a field read of a list of records, the
    location index: spelling them out anew was a sixtieth of a playout). Remembered: a ref's
    text depends on nothing else."""
    got = _REFS.get((record_type, owner, n))
    return got if got is not None else _spelt(record_type, owner, n)


def _spelt(record_type: str, owner, n: int) -> tuple:
    """refs_of the first time: spelt out and remembered."""
    if len(_REFS) > 100_000:
        _REFS.clear()
    got = _REFS[record_type, owner, n] = tuple(ref(record_type, owner, i) for i in range(n))
    return got


def parse_ref(rt, x):
    """(record type, owner, index, the record) of a ref, or None when `x` is not one. What a
    text says is remembered per ruleset; the record itself is read from `rt.state` every
    time (so the constraint checker sees the read)."""
    cache = rt.rs.ref_cache
    try:
        where = cache[x]
    except KeyError:
        where = cache[x] = _spelling(rt.rs, x)
    except TypeError:           # not hashable: not a ref
        return None
    if where is None:
        return None
    rec_type, owner, i, store, key = where
    rec = rt.state[store].get(owner)
    if rec is None or i >= len(rec[key]):
        return None
    return rec_type, owner, i, rec[key][i]


def spelling(rs, x):
    """(record type, owner, index, store, list key) a ref's text names, None when `x` is not
    one (the record need not exist)."""
    try:
        return rs.ref_cache[x]
    except KeyError:
        where = rs.ref_cache[x] = _spelling(rs, x)
        return where
    except TypeError:
        return None


def _spelling(rs, x):
    m = _REF.fullmatch(x) if isinstance(x, str) else None
    where = rs.record_lists.get(m["rec"]) if m is not None else None
    if where is None:
        return None
    return m["rec"], m["owner"], int(m["i"]), where[0], where[1]


def the_ref(rt, x, kind: str = "") -> tuple:
    """parse_ref, or Abort (a bad ref is an illegal move, not a crash)."""
    got = parse_ref(rt, x)
    if got is None or (kind and got[0] != kind):
        raise vm.Abort(f"'{x}' is not a {kind or 'record'}")
    return got


def _ref_record(rt, x, kind: str):
    """the_ref(rt, x, kind)[3] without building the tuple: a field read of a record of a list
    (`s.open` for a Cortigiano space) is among the commonest reads. The same state reads as
    parse_ref, so the constraint checker notes the same keys."""
    try:
        where = rt.rs.ref_cache[x]
    except (KeyError, TypeError):
        return the_ref(rt, x, kind)[3]
    if where is None or (kind and where[0] != kind):
        return the_ref(rt, x, kind)[3]      # Abort: not a ref of that kind
    _, owner, i, store, key = where
    rec = rt.state[store].get(owner)
    if rec is not None:
        items = rec[key]
        if i < len(items):
            return items[i]
    return the_ref(rt, x, kind)[3]


def index_of(rt, x):
    """`x.index`: the position of a record in its list (none for none)."""
    return None if x is None else the_ref(rt, x)[2]


def refs(rt, record_type: str, owner) -> list:
    """The refs of every record of `owner`'s list of that record type, in order."""
    store, key = rt.rs.record_lists[record_type]
    return [ref(record_type, owner, i) for i in range(len(record(rt, store, owner)[key]))]


def record(rt, store: str, x, kind: str = "") -> dict:
    """The stored record of `x`, or Abort (a bad id is an illegal move, not a crash). The
    game's own fields (`field F on game`, no store) are the top level of the state; a value of
    a `record` type (a dict) is its own record."""
    if isinstance(x, dict):
        return x                # a value of a `record` type keeps its fields itself
    if not store:
        return rt.state
    try:
        return rt.state[store][x]
    except (KeyError, TypeError):
        raise vm.Abort(f"no {kind or store} '{x}'") from None


def get(rt, s: Slot, x):
    if x is None:
        return None
    if s.on_map:            # printed on the map: the instance's map.yaml entry (rulespec/board.py)
        return rt.board.field(x, s.on_map, s.default)
    if s.on_board:          # printed on the side's board (Ruleset.printed)
        return rt.rs.printed(rt, s, x)
    if s.of_record:
        rec = _ref_record(rt, x, s.kind)
    elif s.store and type(x) is str:    # the common read: a stored record by its id
        rec = rt.state[s.store].get(x)
        if rec is None:
            rec = record(rt, s.store, x, s.kind)
    else:
        rec = record(rt, s.store, x, s.kind)
    if s.home:
        return rec[s.home].get(s.key, s.default)
    v = rec.get(s.key, s.default) if s.sparse else rec[s.key]
    if v is None:
        return v
    if s.shape == "list":
        return list(v)
    if s.shape == "records":
        return refs_list(s.item, x, v)
    if s.shape == "index":
        return index_ref(s.item, x, v)
    return v


def refs_list(item: str, x, v):
    """The stored list `v` of x's records of type `item`, read as their refs (get's reading).
    Reads refs_of's memo itself: compiled code reads a list of records with this call alone."""
    if v is None:
        return None
    got = _REFS.get((item, x, len(v)))
    return list(got if got is not None else _spelt(item, x, len(v)))


def index_ref(item: str, x, v):
    """The stored index `v` of one of x's records of type `item`, read as its ref (refs_of's
    memo read here, as refs_list does)."""
    if v is None:
        return v
    if type(v) is int and v >= 0:
        got = _REFS.get((item, x, v + 1))
        return (got if got is not None else _spelt(item, x, v + 1))[v]
    return ref(item, x, v)


def listed(v):
    """A copy of a stored list (none stays none): the state's own list is never handed out."""
    return None if v is None else list(v)


def _refuse_printed(s: Slot):
    """A field printed on the map (`@map`) or on the side's board (`@printed`) is never stored:
    setting it is an illegal move, with the reason."""
    if s.on_map or s.on_board:
        raise vm.Abort(f"the {s.kind}'s {s.key} is printed on the {'map' if s.on_map else 'board'}: no rule can change it")


def put(rt, s: Slot, x, value):
    """`set x.F = value`: kept as the field's type keeps it (an int, a copy of a list...),
    clamped to its minimum; a sparse field of the record set to none is removed (a value in a
    home map, a `player_var`, keeps none as its value)."""
    _refuse_printed(s)
    rec = _ref_record(rt, x, s.kind) if s.of_record else record(rt, s.store, x, s.kind)
    _note(rt, s, x)
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
    elif s.shape == "index" and value is not None and not isinstance(value, int):
        item, owner, i, _ = the_ref(rt, value, s.item)
        if owner != x:
            raise vm.Abort(f"'{value}' is not one of the {s.item}s of {x}")
        value = i
    elif s.shape in ("count", "map") and value is None:
        value = {}                  # none empties a count or a map (it has no none of its own)
    elif s.shape in ("count", "map"):
        value = {k: n for k, n in dict(value).items() if n} if s.shape == "count" else dict(value)
    rec[s.key] = value


def put_item(rt, s: Slot, x, key, value):
    """`set x.F[key] = value` on a `count by` or `map` field, changed in place so the other keys
    keep their order (the order of a record's keys is part of the stored state): a new key goes
    at the end; a count of 0 (or less) removes its key, as a count by is never kept at zero."""
    _refuse_printed(s)
    rec = the_ref(rt, x, s.kind)[3] if s.of_record else record(rt, s.store, x, s.kind)
    _note(rt, s, x)
    if s.home:
        rec = rec[s.home]
    m = rec.get(s.key) if s.sparse else rec[s.key]
    if m is None:
        m = rec[s.key] = {}
    if s.shape == "count":
        value = int(value or 0)
        if value <= 0:
            m.pop(key, None)
            return
    m[key] = value


def _note(rt, s: Slot, x):
    """Note the write of field `s` of `x` in the move's writes (constraints.Writes): the key of
    the state, or of a side's record, it changes. A record value (a dict) may sit anywhere in
    the state: the writes become unknown."""
    w = rt.wrote
    if w is None:
        return
    if type(x) is dict:
        rt.writes_unknown()
    elif s.of_record:
        where = spelling(rt.rs, x)          # (type, owner, index, store, list key)
        if where[3] == "p" and (s.home or not s.sparse):
            # one field of a side's records, there before and after: its list keeps its shape
            w.at_field("p", where[4], where[1], s.home or s.key)
        else:
            w.at(where[3], where[4], where[1])
    else:
        w.at(s.store, s.home or s.key, x)


def new_record(rt, rtype: str, given: dict) -> dict:
    """A value of a `record` type, `R(f: v, ...)`: every declared field in declaration order (the
    stored key order), the given values, else each field's default."""
    fields = [f for f in rt.rs.world.records[rtype].fields.values() if not f.on_board]
    return {f.key: given[f.name] if f.name in given else copy.deepcopy(default_value(f)) for f in fields}


def record_slot(rt, rtype: str, name: str) -> Slot | None:
    """Where field `name` of a value of the record type `rtype` is kept (in the value itself),
    or None when the record declares no such field."""
    kind = rt.rs.world.records.get(rtype)
    f = kind.fields.get(name) if kind is not None else None
    return slot_of(kind, f) if f is not None else None


# ------------------------------------------------------------------ where a thing is
def location(rt, x) -> list:
    """`location(x)`: [holder, place] of a thing kept in a holder field of a record of a list
    (["red.room2", "room.impr"]: the record and "RECORD.FIELD") or in a zone a kind owns
    (["red", "outside"]: the owner and the zone); [none, none] when it is in neither. The
    search follows `rt.rs.holders` (the World's order); the first place found wins. Memoised
    as one index while a read-only window is open."""
    if not isinstance(x, str):
        return _NOWHERE             # the things held are ids
    if rt.memo is not None:
        return rt.memoised("location", _location_index, rt).get(x, _NOWHERE)
    return _location_index(rt).get(x, _NOWHERE)     # (outside a window: rarely, outside play)


_NOWHERE = [None, None]


def _location_index(rt) -> dict:
    """{thing: [holder, place]} for every thing held, the first place found in the order of
    rt.rs.holders winning."""
    index = {}
    state = rt.state
    for store, plan in rt.rs.holders:
        for owner, rec in state[store].items():
            for p in plan:
                if p[0] == "records":
                    _, rec_type, key, fields = p
                    items = rec[key]
                    names = None
                    for i, r in enumerate(items):
                        for place, fkey in fields:
                            thing = r[fkey]
                            if thing is not None and thing not in index:
                                if names is None:
                                    names = refs_of(rec_type, owner, len(items))
                                index[thing] = [names[i], place]
                else:
                    zone = p[1]
                    for e in rec.get(p[2], ()):
                        thing = e["id"] if isinstance(e, dict) else e
                        if thing not in index:
                            index[thing] = [owner, zone]
    return index


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


def zone_held(rt, zr: ZoneRead, x):
    """A zone as it is stored (its entries, for a zone with entry fields). x: its owner, None
    for a zone of the game."""
    if x is None:
        return rt.state[zr.store][zr.key]           # a zone of the game
    rec = rt.state[zr.store].get(x) if zr.store and x.__class__ is str else None     # (record's common case)
    return (rec if rec is not None else record(rt, zr.store, x))[zr.key]


def entry_ids(held: list) -> list:
    """The ids of a zone's entries, in order."""
    return [e["id"] for e in held]


def zone_things(rt, zr: ZoneRead, x):
    """What a zone holds, in order (ids; a counted zone: its number). x: its owner, None for a
    zone of the game."""
    held = zone_held(rt, zr, x)
    if zr.shape == "list":
        return list(held)
    if zr.shape == "entries":
        return entry_ids(held)
    if zr.shape == "grouped":
        return [i for pile in held.values() for i in pile]
    return held


def set_count(rt, zr: ZoneRead, n):
    """`set PILE = n` on a counted zone of the game: how many it holds now (never below 0)."""
    rt.wrote_at(zr.store, zr.key)
    rt.state[zr.store][zr.key] = max(0, int(n or 0))


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
