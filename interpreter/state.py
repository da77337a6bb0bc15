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


def card_ids(type_id: str, copies: int) -> list:
    return [f"{type_id}#{i}" for i in range(1, copies + 1)] if copies > 1 else [type_id]


_TYPES: dict = {}


def type_of(instance: str) -> str:
    """'merchant#2' -> 'merchant' (memoised: called in every formula about cards)."""
    t = _TYPES.get(instance)
    if t is None:
        t = _TYPES[instance] = instance.split("#", 1)[0]
    return t


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
        "p": {}, "cities": {}, "alliances": {}, "tracks": {}, "supply": {},
        "vm": {"frames": [], "pending": None}, "vars": {},
    }
    for c in board.cities:
        st["cities"][c] = {"controller": None, "troops": {}, "besiegers": {}, "agent": None, "cathedral": False}
    for a in rs.alliances:
        st["alliances"][a] = {"holder": None, "agent": None, "used": False}
    for tr in rs.tracks:
        if rs.tracks[tr]["shared"]:
            st["tracks"][tr] = tracks.initial(rs, tr)
            continue
        st["tracks"][tr] = {"pos": {c: 0 for c in colours}, "seq": {c: i for i, c in enumerate(reversed(colours))},
                            "year_steps": {}}       # player -> [year, spaces advanced that Year]
    # the players' records, then the factions' (sides that do not play: interpreter/sides.py),
    # built alike from their `colours:` entries; a faction has no Palace
    for c in list(colours) + factions:
        seated = c not in factions
        cd = col_defs.get(c, {})
        pal = (rs.palaces.get(c) or next(iter(rs.palaces.values()), {"rooms": [], "left": 1, "right": 2, "max": 6})) \
            if seated else None
        # 6 Cortigiano spaces: the printed ones are open, the shaded ones open with Titles,
        # bonuses or the 5-City space (and close again when that is lost)
        court = ([{"side": "left", "open": i < pal["left"], "shaded": i >= pal["left"], "card": None, "exhausted": False}
                  for i in range(3)] +
                 [{"side": "right", "open": i < pal["right"], "shaded": i >= pal["right"], "card": None, "exhausted": False}
                  for i in range(3)]) if seated else []
        st["p"][c] = {
            "florins": int(cd.get("florins_start", 1)),
            "troops_reserve": int(cd.get("troops_total", 6)),
            "agents_available": int(cd.get("agents_start", 2)),
            "agents_total": int(cd.get("agents_start", 2)),
            "agents_max": int(cd.get("agents_max", 5)),
            "war_tokens": 0, "trophies": [], "marker": None, "last_room": None,
            "rooms": [{"card": None, "impr": None, "indulgence": None, "agent": None, "used": {}}
                      for _ in (pal["rooms"] if seated else ())],
            "court": court, "vars": {},
            "starting_cities": [sc["city"] if isinstance(sc, dict) else sc for sc in cd.get("starting_cities", [])],
        }
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
    _starting_troops(st, col_defs)
    _declared_fields(rs, st, col_defs)
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


def _starting_troops(st: dict, setup_of: dict):
    """The Troops setup.yaml puts in each starting City (`troops:`, 1 if not given), taken from
    the side's reserve. A count is stored even when 0 (as the stored layout has it), which no
    rule statement can write yet: world-model plan stage 7 (index targets in `set`) takes it."""
    for c, rec in st["p"].items():
        for sc in (setup_of.get(c) or {}).get("starting_cities", []):
            city = sc["city"] if isinstance(sc, dict) else sc
            if city not in st["cities"]:
                continue
            troops = int(sc.get("troops", 1)) if isinstance(sc, dict) else 1
            st["cities"][city]["troops"][c] = troops
            rec["troops_reserve"] -= troops




def _declared_fields(rs, st: dict, setup_of: dict):
    """A field the pack declares (an overlay's new field) that the records above lack: its
    default, or its `@setup` value for a side, added at the end of each record (the fields the
    records already have keep their place and value)."""
    world = rs.world
    if world is None:
        return
    for kind in world.kinds.values():
        records = st.get(kind.store) if kind.store else None
        fields = [f for f in kind.fields.values() if not f.sparse and not f.home and not f.printed]
        if kind.name == GAME:
            missing = [f for f in fields if f.key not in st]
            for f in missing:
                st[f.key] = copy.deepcopy(world_store.default_value(f))
            continue
        if not isinstance(records, dict) or not fields:
            continue
        for id_, rec in records.items():
            for f in fields:
                if f.key not in rec:
                    v = world_store.default_value(f)
                    if kind.name == SIDE and f.setup and f.setup in (setup_of.get(id_) or {}):
                        v = setup_of[id_][f.setup]
                    rec[f.key] = copy.deepcopy(v)


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
    for key in ("cities", "tracks", "alliances", "supply"):
        if not isinstance(state.get(key), dict):
            return f"'{key}' must be a mapping"
    blocks = rs.program.blocks if rs is not None else None
    for fr in vm["frames"]:
        if not isinstance(fr, dict) or not _is_int(fr.get("b")) or not _is_int(fr.get("pc")) \
                or not isinstance(fr.get("env"), dict):
            return "a frame of 'vm' is damaged"
        if blocks is not None and not (0 <= fr["b"] < len(blocks) and 0 <= fr["pc"] <= len(blocks[fr["b"]])):
            return "a frame of 'vm' points outside the pack's rules"
    numbers = ("florins", "troops_reserve", "agents_available", "agents_total", "war_tokens")
    for c, rec in p.items():            # every side: the players, then the factions
        who = "player" if c in players else "side"
        if type(rec) is not dict:
            return f"the record of {who} {c} is damaged"
        if any(k in rec and not _is_int(rec[k]) for k in numbers):
            return f"a number of {who} {c} is not a whole number"
        for k in ("rooms", "court", "tiles", "outside", "trophies"):
            if k in rec and not isinstance(rec[k], list):
                return f"'{k}' of {who} {c} must be a list"
    for cid, rec in state["cities"].items():
        if not isinstance(rec, dict) or not isinstance(rec.get("troops", {}), dict) \
                or not isinstance(rec.get("besiegers", {}), dict):
            return f"the record of city {cid} is damaged"
    return ""


def dumps(state: dict) -> str:
    """The state as compact JSON, keys in the state's own order: identical text for identical
    states. The order of a mapping's keys is part of the state (the board's order of the Cities,
    the catalogue's order of the display...): the rules offer their choices in it, so sorting the
    keys would give back a state that offers the same moves in another order."""
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> dict:
    return json.loads(text)
