"""The game state: plain JSON data (dicts, lists, strings, ints, bools, None).

Built by `initial_state(ruleset, colours, seed, options)` from the pack's setup.yaml and
palaces; everything the game does afterwards goes through Runtime primitives. Layout:

  players          seat order (colour ids); turn_order: current order
  p[side]          (the players, then the factions: sides that do not play, interpreter/sides.py)
                   florins, troops_reserve, agents_available, agents_total, war_tokens,
                   trophies, marker (room index or None), rooms[{card, impr, indulgence, agent, used}],
                   court[{side, open, card, exhausted}] (Cortigiano spaces), tiles[{id, exhausted}],
                   outside[card ids] (Patronage bonuses kept outside the Palace), vars{}
  cities[id]       controller, troops{colour: n}, besiegers{colour: n}, agent, cathedral
  alliances[id]    holder, agent, used
  tracks[id]       pos{colour: space}, seq{colour: arrival number} (stack order inside a space);
                   a `markers: shared` track: pos{marker: space} (interpreter/tracks.py); a track
                   with `spot: true` spaces: spots{n: {agent}} once a piece stood there
  supply           notables{type: [card ids]}, tiles[ids], indulgences, war_tokens, bonuses[ids], cathedrals
  vm               frames, pending (see interpreter.vm)
  rng, year, phase, ending, over, seq, log_tail
"""
from __future__ import annotations

import copy
import json

from rulespec.board import board_for
from rulespec.errors import RulespecError
from rulespec.world import GAME, SIDE

from . import sides, tracks, vm, world_store


FORMAT = 1
# the stores every state has (the Runtime reads them whatever the pack declares): the sides',
# the map's things', then those of the kinds whose instances are the catalogue's declarations
# (`stores`), the tracks', the game's zones'; a kind the pack declares with another store of its
# own gets it after these
_STORES = ("p", "cities", "tracks", "supply")


def stores(rs) -> tuple:
    """The stores every state of the pack has, in their stored order: the sides' and the map's
    things' first, then those of the kinds whose instances are the catalogue's declarations
    (the base game's Alliances), in the World's order, then the tracks' and the game's zones'."""
    listed = [k.store for k in rs.world.kinds.values() if k.store and k.instances == "catalogue"
              and k.store not in _STORES]
    return _STORES[:2] + tuple(dict.fromkeys(listed)) + _STORES[2:]


def card_ids(type_id: str, copies: int) -> list:
    return [f"{type_id}#{i}" for i in range(1, copies + 1)] if copies > 1 else [type_id]


class _Types(dict):
    """instance -> catalogue id ('merchant#2' -> 'merchant'), each worked out at its first read."""

    def __missing__(self, instance):
        t = self[instance] = instance.split("#", 1)[0]
        return t


_TYPES = _Types()
# 'merchant#2' -> 'merchant': the memo's own lookup, called in every formula about cards (a
# builtin call, where a function reading the memo was a Python call of its own)
type_of = _TYPES.__getitem__


_FIRSTS: dict = {}      # tuple of things -> first_of_each of them


def first_of_each(things) -> list:
    """The first thing of each catalogue id, in order (the top of each pile). Remembered per
    sequence of things: the display is read at every purchase, and changes only when a card
    leaves it (a tuple of its ids is hashed in C, where the walk read each id's type)."""
    key = tuple(things)
    got = _FIRSTS.get(key)
    if got is None:
        if len(_FIRSTS) > 10_000:
            _FIRSTS.clear()
        seen, out = set(), []
        for t in key:
            k = type_of(t)
            if k not in seen:
                seen.add(k)
                out.append(t)
        got = _FIRSTS[key] = tuple(out)
    return list(got)


def setup_for(setup: dict, players: int) -> dict:
    for pc in setup.get("player_counts") or []:
        if pc.get("players") == players:
            return pc
    raise RulespecError(f"the pack has no setup for {players} players", code="RS123")


def initial_state(rs, colours: list, seed: int, options: dict | None = None, count: int | None = None) -> dict:
    """The setup position for these colours (count: the player count whose setup applies,
    by default the number of colours)."""
    pack = rs.pack
    setup = pack.data["setup"].data
    n = count or len(colours)
    pc = setup_for(setup, n)
    allowed = pc.get("colours")
    if allowed and (len(set(colours)) != len(colours) or not set(colours) <= set(allowed)):
        raise RulespecError(f"{n}-player games are played with {', '.join(allowed)} (setup.yaml), "
                            f"not {', '.join(map(str, colours))}", code="RS123")
    factions = sides.factions(rs, colours)
    board = board_for(pack, setup, n)
    col_defs = {c["id"]: c for c in setup.get("colours", [])}
    st = {
        "format": FORMAT,
        "pack": {"id": pack.id, "version": pack.version},
        "seed": seed, "options": dict(options or {}),
        "rng": seed & ((1 << 64) - 1),
        "players": list(colours), "turn_order": list(colours),
        "year": 1, "phase": "setup", "ending": False, "over": False,
        # stacking order on tracks: a disc that moves gets the next number (on top of the
        # discs already there); the starting stacks use 1..n, so the counter starts at n
        "seq": len(colours),
        **{store: {} for store in stores(rs)},
        "vm": {"frames": [], "pending": None}, "vars": {},
    }
    for tr in rs.tracks:
        if rs.tracks[tr]["shared"]:
            st["tracks"][tr] = tracks.initial(rs, tr)
            continue
        st["tracks"][tr] = {"pos": {c: 0 for c in colours}, "seq": {c: i for i, c in enumerate(reversed(colours))},
                            "year_steps": {}}       # player -> [year, spaces advanced that Year]
    # one record per instance of each kind the pack declares, with the fields it declares: the
    # players' records, then the factions' (sides that do not play: interpreter/sides.py)
    _records(rs, st, board, list(colours) + factions, factions, col_defs)
    _setup_counts(rs, st, col_defs)
    # what the zones hold (their `initial:`), then the pack's `prepare` block (starting Cities)
    from .runtime import Runtime        # (runtime.py imports this module)
    rt = Runtime(rs, st, board)
    _fill_zones(rt, st)
    if rs.game.get("prepare") is not None:
        rt.on_flow_end = lambda: None       # its end is not the end of a round
        vm.push(rt, rs.game["prepare"], {"player": None})
        vm.run(rt)
        if st["vm"]["frames"] or st["vm"]["pending"] is not None:
            raise RulespecError("the game's `prepare` block asks for a decision: nobody decides anything "
                                "before play starts (put choices in `setup`)", code="RS301")
    _game_fields(rs, st)
    return st


def _fill_zones(rt, st: dict):
    """Each zone the pack declares gets its `initial:` contents (empty without one), in declaration
    order: the game's under state["supply"], a kind's in each of its records, where the zone stands
    among the kind's declared fields (decision 1 of docs/design/world-model-plan.md: the stored
    layout is the declaration order)."""
    for z, zr, initial in rt.rs.zones:
        if not z.owner:
            v = initial(rt, {"player": None}) if initial is not None else None
            st[zr.store][zr.key] = world_store.zone_value(zr, v, type_of)
            continue
        kind = rt.rs.world.kinds[z.owner]
        after = _following_fields(kind, z.name)
        for x, rec in st.get(zr.store, {}).items():
            v = initial(rt, {"player": None, "self": x}) if initial is not None else None
            _insert(rec, zr.key, world_store.zone_value(zr, v, type_of), after)


def _following_fields(kind, zone: str) -> list:
    """The stored keys of the kind's fields declared after the zone, in order."""
    names = [n for n, _ in kind.members]
    later = names[names.index(zone) + 1:] if zone in names else []
    return [kind.fields[n].key for n in later if n in kind.fields]


def _insert(rec: dict, key: str, value, before: list):
    """rec[key] = value, placed before the first of the keys `before` that the record has
    (else at its end); a key the record has keeps its place."""
    if key in rec:
        rec[key] = value
        return
    at = next((k for k in before if k in rec), None)
    if at is None:
        rec[key] = value
        return
    items = list(rec.items())
    rec.clear()
    for k, v in items:
        if k == at:
            rec[key] = value
        rec[k] = v


def _setup_counts(rs, st: dict, setup_of: dict):
    """A `count by side` field with `@setup(KEY)` (`field troops: count by side on city
    @setup("troops")`): the items of a side's setup.yaml list that name a record of the field's
    kind (`starting_cities: [{city: milan, troops: 1}]`, the side's `@setup` list field of that
    kind) give the side's count there under KEY, 1 when not given (setup.schema.json). A count
    is stored even when 0, as the stored layout has it; the pack's `prepare` block takes what
    it placed from wherever the pieces came from."""
    world = rs.world
    for f in world.kinds[SIDE].fields.values():
        kind = world.kinds.get(f.type.of.name) if f.setup and f.type.shape == "list" and f.type.of else None
        if kind is None or not kind.store:
            continue
        counts = [g for g in kind.fields.values() if g.setup and g.type.shape == "count" and g.type.name == SIDE]
        for side in st["p"]:
            for item in (setup_of.get(side) or {}).get(f.setup) or ():
                rec = st[kind.store].get(item.get(kind.name) if isinstance(item, dict) else item)
                if rec is None:
                    continue
                for g in counts:
                    rec[g.key][side] = int(item.get(g.setup, 1)) if isinstance(item, dict) else 1


def _records(rs, st: dict, board, sides_: list, factions: list, setup_of: dict):
    """One record per instance of every kind the pack declares with a store (`kind city { store:
    cities; instances: map.cities }`), its fields in declaration order with their starting values:
    a side gets exactly the fields its pack declares (decision 1 of
    docs/design/world-model-plan.md: the stored layout is the declaration order). A record built
    before (a track's) keeps its keys, and gets the declared fields it lacks at its end."""
    world = rs.world
    for kind in world.kinds.values():
        if kind.name == GAME or not kind.store:
            continue
        records = st.setdefault(kind.store, {})
        fields = [f for f in kind.fields.values() if not f.sparse and not f.home and not f.on_map and not f.on_board]
        for x in _instances(rs, kind, board, sides_):
            rec = records.setdefault(x, {})
            for f in fields:
                if f.key not in rec:
                    rec[f.key] = _start_value(rs, kind, f, x, x not in factions, setup_of)
        homes = [h for h in dict.fromkeys(f.home for f in kind.fields.values()) if h]
        for rec in records.values():        # (and records of no listed instance: a track's)
            for f in fields:
                if f.key not in rec:
                    rec[f.key] = copy.deepcopy(world_store.default_value(f))
            for h in homes:                 # the map keeping the sparse fields (`player_var`)
                rec.setdefault(h, {})


def _instances(rs, kind, board, sides_: list) -> list:
    """The ids of a kind's records at setup, from where its declaration says they come."""
    if kind.name == SIDE:
        return sides_
    if kind.instances == "map.cities":
        return list(board.cities)
    if kind.instances == "catalogue":
        return [d.id for d in rs.pack.of_kind(kind.name)]
    return []


def _start_value(rs, kind, f, x, plays: bool, setup_of: dict):
    """A field's value at setup: a list of records laid out by the pack's declarations, a side's
    `@setup` value from its setup.yaml entry, else the field's default."""
    t = f.type
    if t.shape == "list" and t.of is not None and t.of.name in rs.world.records:
        return _record_list(rs, t.of.name, x) if plays else []
    if kind.name == SIDE and f.setup:
        given = (setup_of.get(x) or {}).get(f.setup)
        if given is not None:
            return _setup_value(t, given)
    return copy.deepcopy(world_store.default_value(f))


def _setup_value(t, v):
    """A setup.yaml value as the field stores it: a whole number for an int field; for a list of
    things, each item's id (an item given as a mapping names it under the kind's name:
    `{city: milan, troops: 1}`)."""
    if t.shape == "scalar" and t.name == "int":
        return int(v)
    if t.shape == "list" and isinstance(v, list) and t.of is not None:
        return [i.get(t.of.name) if isinstance(i, dict) else i for i in v]
    return copy.deepcopy(v)


def _record_list(rs, rtype: str, side) -> list:
    """The records a list field of a playing side starts with. The declarations with sub-blocks
    named after the record type lay them out: the side's own (same id), else the first, one
    record with the record type's defaults per sub-block (its `@printed` fields are read from
    the sub-block, never stored). A record type no declaration lays out starts empty: the
    pack's `prepare` block fills it (the base game's Cortigiano spaces, phases.rules)."""
    rec = rs.world.records[rtype]
    layouts = [d for d in rs.pack.decls.values() if d.sub(rtype)]
    if not layouts:
        return []
    d = next((d for d in layouts if d.id == side), layouts[0])
    fields = [f for f in rec.fields.values() if not f.sparse and not f.on_board]
    return [{f.key: copy.deepcopy(world_store.default_value(f)) for f in fields} for _ in d.sub(rtype)]


def _game_fields(rs, st: dict):
    """A non-sparse field the pack declares on the game itself: its default, at the end of the
    state, unless the rules have set it already."""
    for f in rs.world.kinds[GAME].fields.values():
        if not f.sparse and not f.home and f.key not in st:
            st[f.key] = copy.deepcopy(world_store.default_value(f))


_PENDING_KINDS = ("choose", "optional", "either", "pay")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def state_problem(state, rs=None, deep: bool = False) -> str:
    """What makes `state` unusable as a game state ('' when nothing does). Without `deep`, its
    top-level shape and the pending decision: cheap enough for every call of the API. With
    deep=True (after an unexpected error, or for a state built by hand), also the VM's frames
    (block indexes of `rs`'s program) and every player's and city's record."""
    if type(state) is not dict:
        return f"a game state is a mapping, not {type(state).__name__}"
    players = state.get("players")
    p = state.get("p")
    if type(players) is not list or not players:
        return "'players' must be a non-empty list of colours"
    if type(p) is not dict:
        return "'p' must hold a record for every player"
    for c in players:           # (a loop, not any(): this runs on every call of the API)
        if type(c) is not str:
            return "'players' must be a non-empty list of colours"
        if type(p.get(c)) is not dict:
            return "'p' must hold a record for every player"
    if type(state.get("turn_order")) is not list:
        return "'turn_order' must be a list"
    if type(state.get("year")) is not int or type(state.get("rng")) is not int:
        return "'year' and 'rng' must be whole numbers"
    pack = state.get("pack")
    if rs is not None and type(pack) is dict and pack.get("id") not in (None, rs.pack.id):
        return f"it is a state of pack '{pack.get('id')}'"
    if rs is not None and rs.factions:
        problem = sides.problem(state, rs)
        if problem:
            return problem
    vm = state.get("vm")
    if type(vm) is not dict or type(vm.get("frames")) is not list:
        return "'vm' must hold the running rules ('frames')"
    pending = vm.get("pending")
    if pending is not None:
        if type(pending) is not dict or pending.get("kind") not in _PENDING_KINDS \
                or type(pending.get("options")) is not list:
            return "the pending decision of 'vm' is damaged"
        if not vm["frames"]:
            return "a decision is pending but no rule is running"
    if not deep:
        return ""
    listed = stores(rs)
    for key in listed[1:] + tuple(k.store for k in rs.world.kinds.values() if k.store and k.store not in listed):
        if not isinstance(state.get(key), dict):
            return f"'{key}' must be a mapping"
    blocks = rs.program.blocks if rs is not None else None
    for fr in vm["frames"]:
        if not isinstance(fr, dict) or not _is_int(fr.get("b")) or not _is_int(fr.get("pc")) \
                or not isinstance(fr.get("env"), dict):
            return "a frame of 'vm' is damaged"
        if blocks is not None and not (0 <= fr["b"] < len(blocks) and 0 <= fr["pc"] <= len(blocks[fr["b"]])):
            return "a frame of 'vm' points outside the pack's rules"
    for c, rec in p.items():            # every side: the players, then the factions
        who = "player" if c in players else "side"
        if type(rec) is not dict:
            return f"the record of {who} {c} is damaged"
        problem = _record_problem(rs.world, SIDE, rec)
        if problem:
            return f"{problem[0]} of {who} {c} {problem[1]}"
    for kind in rs.world.kinds.values():
        if kind.name in (SIDE, GAME) or not kind.store:
            continue
        for x, rec in (state.get(kind.store) or {}).items():
            if not isinstance(rec, dict) or _record_problem(rs.world, kind.name, rec):
                return f"the record of {kind.name} {x} is damaged"
    return ""


def _record_problem(world, kind: str, rec: dict) -> tuple:
    """What is wrong with the stored fields of a record, as (what, how), () when nothing: a whole-number field
    that holds something else, a list field or zone that is not a list, a `count by` or `map`
    field that is not a mapping (a field the record lacks is not checked)."""
    k = world.kinds[kind]
    for f in k.fields.values():
        if f.sparse or f.home or f.key not in rec:
            continue
        v, t = rec[f.key], f.type
        if t.shape == "scalar" and t.name == "int" and not _is_int(v):
            return "a number", "is not a whole number"
        if t.shape == "list" and not isinstance(v, list):
            return f"'{f.key}'", "must be a list"
        if t.shape in ("count", "map") and not isinstance(v, dict):
            return f"'{f.key}'", "must be a mapping"
    for z in world.zones.values():
        if z.owner == kind and z.shape != "counted" and z.key in rec and not isinstance(rec[z.key], list):
            return f"'{z.key}'", "must be a list"
    return ()


def dumps(state: dict) -> str:
    """The state as compact JSON, keys in the state's own order: identical text for identical
    states. The order of a mapping's keys is part of the state (the board's order of the Cities,
    the catalogue's order of the display...): the rules offer their choices in it, so sorting the
    keys would give back a state that offers the same moves in another order."""
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> dict:
    return json.loads(text)
