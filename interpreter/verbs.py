"""`move(thing, place)`: the one verb that moves things between the places a pack declares.

A thing (a card or tile instance) is in at most one place (docs/design/world-model-plan.md
§2.3): an entry of a **zone** (`zone Z { ... }` in the pack: a list in the game's store
`state["supply"]`, or in each owner's record), or a **holder field** of a record kept in a list
of its owner's record (`field card: card? @holds` of a `record`, addressed `OWNER.RECORDn`, the
n-th record of its type: `red.room2`). `move` takes the thing out of its place and puts it in
the destination:

- a plain zone keeps bare ids; an `ordered` one at the position given (`zone[0]`: on top), else
  at the end; a `sorted` one re-sorts; a `grouped: by_id` one keeps `{catalogue id: [copies]}`;
- a zone with `entry` fields keeps `{"id": thing, field: value ...}`: the values given to `move`
  by name, else the declared defaults (they belong to the entry: they reset when it moves);
- a holder field takes the thing when it is empty; the record's `@entry` fields are the held
  thing's, and reset when it leaves;
- `none`: out of the game.

A catalogue id (`merchant`) names the first copy of its pile in a grouped zone. Nothing here
names a thing of a particular game: zones, records and fields come from the pack's World
(rulespec/world.py). Every read goes through `rt.state` (the constraint checker sees it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .state import type_of
from .vm import Abort

GAME_STORE = "supply"           # where the game's own zones are kept (rulespec.checker.ZONE_STORE)
_REF = re.compile(r"^(?P<owner>.+)\.(?P<rec>[a-z_]*[a-z_])(?P<n>\d+)$")


@dataclass
class Place:
    """Where a thing is: a zone's list (or pile), or a holder field of a record."""
    items: list | None = None       # the list holding the entry (a zone, or a pile of a grouped zone)
    zone: object = None             # its ZoneDef
    record: dict | None = None      # a holder's record
    field: str = ""                 # the holder field
    entries: tuple = ()             # the holder record's @entry fields (FieldDefs)
    owner: object = None
    thing: object = None            # what is there, when the place was named (`zone[0]`, `room.card`)
    where: tuple = ()               # (store, key, owner) it is kept under in the state (constraints.Writes)


def world(rt):
    return rt.rs.world


# ------------------------------------------------------------------ zones
def zone_def(rt, name: str):
    z = world(rt).zones.get(name)
    if z is None:
        raise Abort(f"no zone '{name}'")
    return z


def zone_list(rt, z, owner=None):
    """The stored list (or {id: pile} of a grouped zone) of zone `z` of `owner` (none: the game's)."""
    if z.counted:
        raise Abort(f"zone '{z.name}' is counted: it holds a number, not things")
    if z.owner:
        kind = world(rt).kinds[z.owner]
        try:
            return rt.state[kind.store][owner][z.key]
        except (KeyError, TypeError):
            raise Abort(f"'{owner}' has no zone '{z.name}'") from None
    try:
        return rt.state[GAME_STORE][z.key]
    except KeyError:
        raise Abort(f"zone '{z.name}' is not in this game") from None


def _ids(items) -> list:
    return [e["id"] if isinstance(e, dict) else e for e in items]


def entry_at(rt, zone: str, owner, n):
    """`zone[n]` as the thing to move: position n of an ordered zone (0: the top); Abort when
    there is none."""
    z = zone_def(rt, zone)
    items = zone_list(rt, z, owner)
    if isinstance(items, dict):
        raise Abort(f"zone '{z.name}' is kept in piles by catalogue id: it has no positions")
    ids = _ids(items)
    if not isinstance(n, int) or not -len(ids) <= n < len(ids):
        raise Abort(f"zone '{z.name}' has no thing at position {n} (it holds {len(ids)})")
    return Place(items=items, zone=z, owner=owner, thing=ids[n], where=(z.store, z.key, owner))


# ------------------------------------------------------------------ records held in lists
def record_ref(rt, ref):
    """`OWNER.RECn` -> (record dict, record type, (store, list key, owner)): the n-th record of type
    REC in the list field of OWNER's record declared `list of REC` (`red.room2`)."""
    m = _REF.match(ref) if isinstance(ref, str) else None
    if m is not None:
        w = world(rt)
        rtype = m["rec"]
        for kind in w.kinds.values():
            owner = rt.state.get(kind.store, {}).get(m["owner"]) if kind.store else None
            if owner is None:
                continue
            for f in kind.fields.values():
                if f.type.shape == "list" and f.type.of is not None and f.type.of.name == rtype \
                        and rtype in w.records:
                    lst = owner.get(f.key)
                    n = int(m["n"])
                    if isinstance(lst, list) and n < len(lst):
                        return lst[n], rtype, (kind.store, f.key, m["owner"])
    raise Abort(f"'{ref}' is not a record that holds things")


def _holders(rt):
    """{record type: ([holder fields], [entry fields])} of the World (memoised on the World)."""
    w = world(rt)
    got = w.__dict__.get("_holders")
    if got is None:
        got = {name: ([f for f in r.fields.values() if f.holds], tuple(f for f in r.fields.values() if f.entry))
               for name, r in w.records.items()}
        got = {k: v for k, v in got.items() if v[0]}
        w.__dict__["_holders"] = got
    return got


def holder_field(rt, rtype: str, name: str):
    for f in _holders(rt).get(rtype, ((), ()))[0]:
        if f.name == name:
            return f
    raise Abort(f"'{name}' is not a field of a {rtype} that holds a thing")


# ------------------------------------------------------------------ where a thing is
def _layout(rt, keeping: str = ""):
    """The places a thing can be, as a plan computed once per World (and per entry field
    `keeping`: only the places whose entries keep it): (the game's zones, [(store, owned zones,
    [(list field key, holder fields, entry fields)])]), in the fixed order locate searches."""
    w = world(rt)
    cache = w.__dict__.setdefault("_layouts", {})
    got = cache.get(keeping)
    if got is None:
        holders = _holders(rt)

        def kept(z):
            return not z.counted and (not keeping or keeping in z.entry)
        game = [z for z in w.zones.values() if not z.owner and kept(z)]
        owned = []
        for kind in w.kinds.values():
            zones = [z for z in w.zones.values() if z.owner == kind.name and kept(z)]
            lists = [(f.key,) + holders[f.type.of.name] for f in kind.fields.values()
                     if f.type.shape == "list" and f.type.of is not None and f.type.of.name in holders
                     and (not keeping or any(e.name == keeping for e in holders[f.type.of.name][1]))]
            if kind.store and (zones or lists):
                owned.append((kind.store, zones, lists))
        got = cache[keeping] = (game, owned)
    return got


def _in_zone(z, items, x):
    """The list holding `x` in a zone's stored items (a pile of a grouped zone), or None."""
    if z.grouped:
        pile = items.get(type_of(x)) if isinstance(x, str) else None
        return pile if pile and x in pile else None
    if z.entry:
        for e in items:
            if e["id"] == x:
                return items
        return None
    return items if x in items else None


def locate(rt, x, keeping: str = "") -> Place | None:
    """The place of thing `x`, or None: the game's zones, then for each owner (in store order) its
    zones and the holder fields of its records. With `keeping`, only among the places whose
    entries keep that field (a thing put in a place by hand, in a scenario, may be in two)."""
    game, owned = _layout(rt, keeping)
    state = rt.state
    supply = state.get(GAME_STORE, {})
    for z in game:
        items = supply.get(z.key)
        if items is not None and (lst := _in_zone(z, items, x)) is not None:
            return Place(items=lst, zone=z, where=(z.store, z.key, None))
    for store, zones, lists in owned:
        for oid, rec in state.get(store, {}).items():
            for z in zones:
                items = rec.get(z.key)
                if items is not None and (lst := _in_zone(z, items, x)) is not None:
                    return Place(items=lst, zone=z, owner=oid, where=(store, z.key, oid))
            for key, fields, entries in lists:
                for r in rec.get(key) or ():
                    for f in fields:
                        if r.get(f.key) == x:
                            return Place(record=r, field=f.key, entries=entries, owner=oid, where=(store, key, oid))
    return None


def _first_copy(rt, x):
    """A catalogue id names the first copy of its pile in a grouped zone."""
    if not isinstance(x, str) or "#" in x:
        return None
    for z in world(rt).zones.values():
        if z.grouped and not z.owner:
            pile = rt.state.get(GAME_STORE, {}).get(z.key, {}).get(x)
            if pile:
                return pile[0], Place(items=pile, zone=z, where=(z.store, z.key, None))
    return None


def _wrote(rt, where: tuple):
    """Note a write at a place (Place.where) in the move's writes; a place that does not say
    where it is kept makes them unknown."""
    if where:
        rt.wrote_at(*where)
    else:
        rt.writes_unknown()


def take_out(rt, place: Place, x):
    _wrote(rt, place.where)
    if place.record is not None:
        place.record[place.field] = None
        for f in place.entries:
            place.record[f.key] = _default(f)
        return
    for i, e in enumerate(place.items):
        if e == x or isinstance(e, dict) and e.get("id") == x:
            del place.items[i]
            return


def _default(f):
    from .world_store import default_value
    return default_value(f)


# ------------------------------------------------------------------ move
def move(rt, x, dest, at=None, values=None, span=None):
    """Move thing `x` to `dest`: ("zone", zone, owner), ("holder", record ref, field) or None
    (out of the game); `at` a position in an ordered zone; `values` the entry fields' values."""
    values = dict(values or {})
    if isinstance(x, Place):            # a named place: `zone[n]`, `room.card`
        place, x = x, x.thing
    else:
        place = locate(rt, x)
    if place is None:
        first = _first_copy(rt, x)
        if first is None:
            raise Abort(f"{x} is not in any place it can be taken from", span)
        x, place = first
    target = _target(rt, dest, at, values, span)       # checked before anything changes
    take_out(rt, place, x)
    if target is not None:
        target(x, at)
    return x


def _target(rt, dest, at, values, span):
    """A function putting a thing at `dest` (checked now: an illegal move changes nothing)."""
    if dest is None:
        if values:
            raise Abort("a thing moved out of the game keeps no entry fields", span)
        return None
    if not isinstance(dest, tuple) or len(dest) != 3:
        raise Abort(f"'{dest}' is not a zone or a field that holds a thing", span)
    what, a, b = dest
    if what == "holder":
        rec, rtype, where = record_ref(rt, a)
        f = holder_field(rt, rtype, b)
        entries = _holders(rt)[rtype][1]
        unknown = [k for k in values if k not in {e.name for e in entries}]
        if unknown:
            raise Abort(f"a {rtype} keeps no '{unknown[0]}' with its {b}", span)
        if rec.get(f.key) is not None:
            raise Abort(f"{a} already holds {rec[f.key]} as its {b}", span)

        def put_held(x, at):
            rt.wrote_at(*where)
            rec[f.key] = x
            for e in entries:
                rec[e.key] = values.get(e.name, _default(e))
        return put_held
    z = zone_def(rt, a)
    items = zone_list(rt, z, b)
    unknown = [k for k in values if k not in z.entry]
    if unknown:
        raise Abort(f"zone '{z.name}' keeps no '{unknown[0]}' with its entries", span)
    if at is not None and (z.grouped or z.sorted or not isinstance(at, int)):
        raise Abort(f"zone '{z.name}' has no positions to put a thing at", span)

    def put_in(x, at):
        rt.wrote_at(z.store, z.key, b)
        lst = items
        if z.grouped:
            lst = items.setdefault(type_of(x), [])
        e = {"id": x, **{f.key: values.get(n, _default(f)) for n, f in z.entry.items()}} if z.entry else x
        if at is None:
            lst.append(e)
        else:
            lst.insert(at if at >= 0 else len(lst) + 1 + at, e)
        if z.sorted:
            lst.sort(key=lambda v: v["id"] if isinstance(v, dict) else v)
    return put_in


# ------------------------------------------------------------------ entry fields
def entry_place(rt, x, name):
    """(container dict, key, (store, key) of the state holding it, whether the container is
    one of the records of the list kept there) of entry field `name` of thing `x` where it
    is, or None."""
    place = locate(rt, x, name)
    if place is None:
        return None
    if place.record is not None:
        f = next((e for e in place.entries if e.name == name), None)
        return (place.record, f.key, place.where, True) if f is not None else None
    f = place.zone.entry.get(name)
    if f is None:
        return None
    e = next(e for e in place.items if isinstance(e, dict) and e["id"] == x)
    return e, f.key, place.where, not place.zone.grouped


def entry_value(rt, x, name):
    """`x.NAME` for an entry field: its value where `x` is, else the field's declared default.
    In a read-only window (Runtime.reading) every thing's value comes from one memoised pass."""
    if rt.memo is not None and isinstance(x, str):
        got = rt.memoised(("entry", name), _entry_index, rt, name).get(x, _NOWHERE)
        if got is not _NOWHERE:
            return got
    else:
        got = entry_place(rt, x, name)
        if got is not None:
            return got[0][got[1]]
    w = world(rt)
    f = next((z.entry[name] for z in w.zones.values() if name in z.entry), None) or \
        next((f for _, es in _holders(rt).values() for f in es if f.name == name), None)
    return _default(f) if f is not None else None


_NOWHERE = object()


def _entry_keys(rt, name) -> tuple:
    """_layout of entry field `name` as the stored keys _entry_index reads: (the game's zones,
    [(store, [(zone key, entry key)], [(list key, [holder keys], entry key)])]), once per World."""
    w = world(rt)
    cache = w.__dict__.setdefault("_entry_keys", {})
    got = cache.get(name)
    if got is None:
        game, owned = _layout(rt, name)
        got = cache[name] = (game, [
            (store, [(z.key, z.entry[name].key) for z in zones],
             [(key, [f.key for f in fields], next(e.key for e in entries if e.name == name))
              for key, fields, entries in lists])
            for store, zones, lists in owned])
    return got


def _entry_index(rt, name) -> dict:
    """{thing: its value of entry field `name`} for every thing kept where that field is, in
    locate's order (the first place found wins)."""
    game, owned = _entry_keys(rt, name)
    out = {}
    state = rt.state
    for z in game:
        items = state.get(GAME_STORE, {}).get(z.key) or ()
        for e in (e for pile in items.values() for e in pile) if z.grouped else items:
            out.setdefault(e["id"], e[z.entry[name].key])
    for store, zkeys, lkeys in owned:
        for rec in state.get(store, {}).values():
            for zkey, ekey in zkeys:
                for e in rec.get(zkey) or ():
                    out.setdefault(e["id"], e[ekey])
            for key, fkeys, ekey in lkeys:
                for r in rec.get(key) or ():
                    for fkey in fkeys:
                        thing = r.get(fkey)
                        if thing is not None:
                            out.setdefault(thing, r[ekey])
    return out


def set_entry(rt, x, name, value, span=None):
    """`set x.NAME = v` for an entry field: kept by the entry where `x` is now."""
    got = entry_place(rt, x, name)
    if got is None:
        raise Abort(f"{x} is not in a place that keeps '{name}'", span)
    where = got[2]
    if got[3] and where and where[0] == "p":        # one field of a side's records
        rt.wrote_field("p", where[1], where[2], got[1], kept=got[1] in got[0])
    else:
        _wrote(rt, where)
    got[0][got[1]] = bool(value) if isinstance(got[0].get(got[1]), bool) else value


def entry_names(rt) -> frozenset:
    """The names of all entry fields of the World (zones' `entry` and records' `@entry`)."""
    w = world(rt)
    got = w.__dict__.get("_entry_names")
    if got is None:
        got = frozenset([n for z in w.zones.values() for n in z.entry] +
                        [f.name for _, es in _holders(rt).values() for f in es])
        w.__dict__["_entry_names"] = got
    return got


def held(rt, ref, name):
    """`RECORD.HOLDER` as the thing to move: that holder field (Abort when it holds nothing)."""
    rec, rtype, where = record_ref(rt, ref)
    f = holder_field(rt, rtype, name)
    x = rec.get(f.key)
    if x is None:
        raise Abort(f"{ref} holds nothing as its {name}")
    return Place(record=rec, field=f.key, entries=_holders(rt)[rtype][1], thing=x, where=where)
