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

from . import sides, tracks, world_store


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
    # supply
    notables = {}
    for cid, card in rs.cards.items():
        if card["type"] == "notable" and (card["players"] is None or n in card["players"]):
            notables[cid] = card_ids(cid, card["copies"])
    returned = set(pc.get("returned_tiles") or []) | set(pc.get("forbidden_cities") or [])
    tiles = []
    for tid, t in rs.tiles.items():
        if (t["players"] is not None and n not in t["players"]) or t["type"] == "patronage":
            continue           # Patronage tiles are bonuses (supply.bonuses), not for sale
        if t["type"] == "city":
            if t["city"] not in board.cities or t["city"] in returned:
                continue
            if t["colour"] is not None:
                continue       # coat-of-arms tiles go to their owner below (or stay in the box)
        tiles.extend(card_ids(tid, t["copies"]))
    st["supply"] = {
        "notables": notables, "tiles": tiles,
        "indulgences": [c for cid, card in rs.cards.items() if card["type"] == "indulgence"
                        for c in card_ids(cid, card["copies"])],
        "bonuses": [c for cid, card in rs.cards.items() if card["type"] == "patronage"
                    for c in card_ids(cid, card["copies"])] +
                   [t for tid, tile in rs.tiles.items() if tile["type"] == "patronage"
                    for t in card_ids(tid, tile["copies"])],
        "war_tokens": _supply_count(rs, "war_tokens"),
    }
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
            "court": court, "tiles": [], "outside": [], "vars": {},
            "starting_cities": [sc["city"] if isinstance(sc, dict) else sc for sc in cd.get("starting_cities", [])],
        }
        for sc in cd.get("starting_cities", []):
            city = sc["city"] if isinstance(sc, dict) else sc
            if city not in st["cities"]:
                continue
            st["cities"][city]["controller"] = c
            troops = int(sc.get("troops", 1)) if isinstance(sc, dict) else 1
            st["cities"][city]["troops"][c] = troops
            st["p"][c]["troops_reserve"] -= troops
            tile = _city_tile(rs, city, c)
            if tile:
                st["p"][c]["tiles"].append({"id": tile, "exhausted": False})
        # Family cards wait beside the Palace until the rules place them (game setup)
        st["p"][c]["unplaced"] = [cid for cid, card in rs.cards.items()
                                  if card["type"] == "family" and card["colour"] == c
                                  and (card["players"] is None or n in card["players"])]
    # coat-of-arms tiles of colours not in play stay in the box
    _declared_fields(rs, st, col_defs)
    return st


def _declared_fields(rs, st: dict, setup_of: dict):
    """A field the pack declares (an overlay's new field) that the records above lack: its
    default, or its `@setup` value for a side, added at the end of each record (the fields the
    records already have keep their place and value)."""
    world = rs.world
    if world is None:
        return
    for kind in world.kinds.values():
        records = st.get(kind.store) if kind.store else None
        fields = [f for f in kind.fields.values() if not f.sparse and not f.home]
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


def _supply_count(rs, pile: str) -> int:
    """How many of a supply pile the box holds (components declared with `supply: PILE`)."""
    return sum(int(rs.static(d, "count", 0) or 0) for d in rs.pack.of_kind("component")
               if rs.static(d, "supply") == pile)


def _city_tile(rs, city: str, colour: str):
    best = None
    for tid, t in rs.tiles.items():
        if t["type"] == "city" and t["city"] == city:
            if t["colour"] == colour:
                return tid
            if t["colour"] is None:
                best = best or tid
    return best


def dumps(state: dict) -> str:
    """The state as compact JSON, keys in the state's own order: identical text for identical
    states. The order of a mapping's keys is part of the state (the board's order of the Cities,
    the catalogue's order of the display...): the rules offer their choices in it, so sorting the
    keys would give back a state that offers the same moves in another order."""
    return json.dumps(state, separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> dict:
    return json.loads(text)
