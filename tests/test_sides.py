"""Sides that do not play, shared track markers and track zones (issue 16, stages 14-15).

Played on tests/packs/sides_min: the minimal pack with a map, a faction `league` (Epsilon with
2 Troops, from its `colours:` entry) and a shared marker `mood` on the track `favour` (spaces
0-6; zones leans_red 0-1, calm 2-4, leans_yellow 5-6).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter import sides
from interpreter.api import Engine, IllegalMove
from interpreter.state import state_problem
from interpreter.vm import Abort
from rulespec.errors import RulespecError
from rulespec.pack import load_pack

PACKS = Path(__file__).resolve().parent / "packs"
SEATS = ["red", "yellow", "green"]
LAST = 6                                 # the last space of `favour`


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack(PACKS / "sides_min", [PACKS]))


def _rt(engine, state):
    return engine.runtime(state)


def _expr(engine, state, text, player="red"):
    """Evaluate a rules expression against `state`, as the rules would."""
    from rulespec.parser import parse_expr
    fn, _ = engine.rs.comp.expr(parse_expr(text), {})
    return fn(_rt(engine, state), {"player": player})


# ------------------------------------------------------------------ sides
def test_a_faction_has_a_record_but_no_seat(engine):
    s = engine.new_game(SEATS, seed=1)
    assert list(s["p"]) == SEATS + ["league"]
    assert s["players"] == SEATS and s["turn_order"] == SEATS
    # a faction's record keeps the fields the pack declares on sides, as a player's does
    # (this pack declares no Palace: neither gets Rooms)
    assert list(s["p"]["league"]) == list(s["p"][SEATS[0]]) and "rooms" not in s["p"]["league"]
    assert _expr(engine, s, "sides") == SEATS + ["league"]
    assert _expr(engine, s, "players") == SEATS
    assert _expr(engine, s, "num_players") == 3


def test_a_factions_troops_and_cities_are_counted_by_side(engine):
    s = engine.new_game(SEATS, seed=1)
    # setup.patch.yaml: Epsilon with 2 Troops, 6 in all
    assert s["cities"]["epsilon"] == {"controller": "league", "troops": {"league": 2}, "besiegers": {},
                                      "agent": None, "cathedral": False}
    assert _expr(engine, s, "troops_at(epsilon, league)") == 2
    assert _expr(engine, s, "troops_at(epsilon)") == 2
    assert _expr(engine, s, "troops_at(epsilon, red)") == 0
    assert _expr(engine, s, "league.troops") == 2
    assert _expr(engine, s, "league.troops_available") == 4
    assert _expr(engine, s, "league.cities") == ["epsilon"]
    assert _expr(engine, s, "league.city_count") == 1
    assert _expr(engine, s, "owner_of(epsilon)") == "league"
    assert _expr(engine, s, "epsilon.controller == league") is True
    # a troop more, placed by a rule for the League: counted at once
    s["cities"]["epsilon"]["troops"]["league"] = 3
    assert _expr(engine, s, "league.troops") == 3
    assert _expr(engine, s, "sum([troops_at(epsilon, x) for x in sides])") == 3


def test_a_faction_owns_what_its_record_holds(engine):
    s = engine.new_game(SEATS, seed=1)
    card = next(iter(engine.rs.cards))
    assert engine.runtime(s).f_owner_of(card) is None
    s["p"]["league"]["outside"].append(card)
    assert engine.runtime(s).f_owner_of(card) == "league"


def test_seating_a_faction_is_refused(engine):
    with pytest.raises(RulespecError) as e:      # setup.yaml's seats for 3 players say so first
        engine.new_game(["red", "yellow", "league"], seed=1)
    assert e.value.code == "RS123"
    with pytest.raises(RulespecError) as e:      # and a setup without seats per player count
        sides.factions(engine.rs, ["red", "league"])
    assert e.value.code == "RS123" and "'league' is a side that does not play" in str(e.value)


def test_state_problem_checks_the_factions(engine):
    s = engine.new_game(SEATS, seed=1)
    assert state_problem(s, engine.rs) == ""
    broken = dict(s, p={k: v for k, v in s["p"].items() if k != "league"})
    assert "league" in state_problem(broken, engine.rs)
    seated = dict(s, players=SEATS + ["league"])
    assert "does not play" in state_problem(seated, engine.rs)
    damaged = dict(s, p=dict(s["p"], league=[]))
    assert "league" in state_problem(damaged, engine.rs, deep=True)


def test_commanded_by_follows_the_marker(engine):
    s = engine.new_game(SEATS, seed=1)
    assert _expr(engine, s, "league.commanded_by") is None       # space 3: calm
    s["tracks"]["favour"]["pos"]["mood"] = 1
    assert _expr(engine, s, "league.commanded_by") == "red"
    s["tracks"]["favour"]["pos"]["mood"] = 5
    assert _expr(engine, s, "league.commanded_by") == "yellow"
    assert _expr(engine, s, "league.plays") is False and _expr(engine, s, "red.plays") is True


def test_a_side_scoped_constraint_checks_the_faction(engine):
    """garrison (scope: side): at most 3 Troops on the board, the League's too."""
    s = engine.new_game(SEATS, seed=1)
    s["tracks"]["favour"]["pos"]["mood"] = 0            # the League obeys red
    s["cities"]["epsilon"]["troops"]["league"] = 3
    s["p"]["league"]["troops_reserve"] = 3
    assert engine.legal_moves(s)[:1] == ["option Sway it"]
    with pytest.raises(IllegalMove) as e:
        engine.apply(s, "option Muster it")
    assert "at most 3 Troops" in str(e.value) and "(league)" in str(e.value)


# ------------------------------------------------------------------ zones and markers
@pytest.mark.parametrize("space,zone", [(0, "leans_red"), (1, "leans_red"), (2, "calm"), (4, "calm"),
                                        (5, "leans_yellow"), (6, "leans_yellow")])
def test_zone_of_at_the_zone_edges(engine, space, zone):
    s = engine.new_game(SEATS, seed=1)
    s["tracks"]["favour"]["pos"]["mood"] = space
    assert _expr(engine, s, "zone_of(mood)") == zone
    assert _expr(engine, s, f"zone_of(space(favour, {space}))") == zone
    assert _expr(engine, s, "position(mood)") == space == _expr(engine, s, "position(mood, favour)")


def test_zone_of_outside_every_zone_is_none(engine):
    from interpreter import tracks
    tr = dict(engine.rs.tracks["favour"], zones=[("low", 0, 1), ("high", 4, 6)])
    assert [tracks.zone_at(tr, n) for n in range(7)] == ["low", "low", None, None, "high", "high", "high"]


def test_a_shared_track_stores_only_its_markers(engine):
    s = engine.new_game(SEATS, seed=1)
    assert s["tracks"]["favour"] == {"pos": {"mood": 3}}       # marker mood: start 3
    assert set(s["tracks"]["patronage"]) == {"pos", "seq", "year_steps"}   # per side, as before


def _move(engine, s, n, marker="mood", track="favour"):
    rt = _rt(engine, s)
    rt.v_move_along({"player": "red"}, [track, n], {"marker": marker}, None)
    return s["tracks"][track]["pos"][marker]


@pytest.mark.parametrize("start,n,end", [(5, 3, LAST), (6, 1, LAST), (1, -4, 0), (0, -1, 0), (3, -2, 1), (3, 2, 5),
                                         (3, 0, 3)])
def test_move_along_clamps_at_both_ends(engine, start, n, end):
    s = engine.new_game(SEATS, seed=1)
    s["tracks"]["favour"]["pos"]["mood"] = start
    assert _move(engine, s, n) == end


@settings(max_examples=60, deadline=None)
@given(start=st.integers(0, LAST), steps=st.lists(st.integers(-9, 9), max_size=8))
def test_move_along_is_a_clamped_walk(engine, start, steps):
    s = engine.new_game(SEATS, seed=1)
    s["tracks"]["favour"]["pos"]["mood"] = start
    want = start
    for n in steps:
        want = max(0, min(LAST, want + n))
        assert _move(engine, s, n) == want


def test_move_along_refuses_what_it_cannot_move(engine):
    s = engine.new_game(SEATS, seed=1)
    rt = _rt(engine, s)
    before = repr(s)
    for track, kw, why in [("patronage", {"marker": "mood"}, "disc per player"),
                           ("favour", {}, "needs the marker"),
                           ("favour", {"marker": "nothing"}, "not a marker")]:
        with pytest.raises(Abort) as e:
            rt.v_move_along({"player": "red"}, [track, 1], kw, None)
        assert why in str(e.value)
    with pytest.raises(Abort):
        rt.v_advance({"player": "red"}, ["favour", 1], {}, None)
    assert repr(s) == before


def test_a_move_sways_the_marker_in_play(engine):
    s = engine.new_game(SEATS, seed=1)
    assert s["turn_order"][0] == "red"
    s = engine.apply(s, "option Sway it")                   # red pulls it back
    assert s["tracks"]["favour"]["pos"] == {"mood": 2}
    s = engine.apply(s, "option Sway it")                   # yellow pushes it on
    assert s["tracks"]["favour"]["pos"] == {"mood": 3}


def test_the_pack_validates_clean():
    from validator.static import validate_pack
    report = validate_pack(PACKS / "sides_min")
    assert [(d.code, d.message) for d in report.diagnostics] == []


# ------------------------------------------------------------------ a track space as an Agent spot
def test_an_agent_can_stand_on_a_spot_space(engine):
    s = engine.new_game(SEATS, seed=1)
    assert "space:favour:3" in _expr(engine, s, "agent_spots")
    assert _expr(engine, s, "agent_at(space(favour, 3))") is None
    assert "spots" not in s["tracks"]["favour"]            # a read stores nothing
    agents = s["p"]["red"]["agents_available"]
    s = engine.apply(s, "option Send an envoy")
    assert s["tracks"]["favour"]["spots"] == {"3": {"agent": "red"}}
    assert s["p"]["red"]["agents_available"] == agents - 1
    assert _expr(engine, s, "agent_at(space(favour, 3))") == "red"
    assert _expr(engine, s, "space(favour, 3).agent") == "red"


def _run(engine, state, verb, args):
    """Run the verb or procedure `verb(args)` for red on `state`, as a rule would."""
    from interpreter import vm
    rt = engine.runtime(state)
    state["vm"], state["over"] = {"frames": [], "pending": None}, True     # the procedure alone
    got = rt.verb(verb, {"player": "red"}, args, {}, None)
    if got is not None:
        vm.push(rt, got[0], got[1], scope=True)
        vm.run(rt)


def test_a_space_that_is_not_a_spot_holds_no_agent(engine):
    import copy
    s = engine.new_game(SEATS, seed=1)
    before = repr(s)
    for ref in ("space:favour:2", "space:favour:9", "space:nowhere:1"):
        with pytest.raises(Abort) as e:
            _run(engine, copy.deepcopy(s), "place_agent", [ref])      # the pack's place_agent
        assert "not a spot" in str(e.value)
        assert _expr(engine, s, f"agent_at(\"{ref}\")") is None
    assert repr(s) == before


def test_zone_of_a_bad_space_is_refused_with_a_reason(engine):
    s = engine.new_game(SEATS, seed=1)
    rt = engine.runtime(s)
    for ref in ("space:", "space:nowhere:1", "space:favour:x"):
        with pytest.raises(Abort) as e:
            rt.f_zone_of(ref)
        assert "is not a space of a track" in str(e.value)
    with pytest.raises(Abort) as e:
        rt.f_zone_of("red")
    assert "not a marker" in str(e.value)


def test_an_overlay_shares_a_track_and_names_its_zones_in_rules(make_pack):
    """The .rules spelling: `modify track T { markers: shared  zone Z { from; to } }`."""
    folder = make_pack("shared_overlay", {
        "pack.yaml": "id: shared_overlay\nname: Shared overlay\nversion: 0.1.0\nextends: sides_min\n",
        "rules/more.rules": """
            modify track patronage {
              markers: shared
              zone low { from: 0; to: 1 }
            }

            marker seal "The seal" {
              track: patronage
              owner: league
              start: 2
            }
            """})
    from validator.static import validate_pack
    assert [d.code for d in validate_pack(folder).diagnostics if d.severity == "error"] == []
    eng = Engine(load_pack(folder, [PACKS]))
    s = eng.new_game(SEATS, seed=1)
    assert s["tracks"]["patronage"] == {"pos": {"seal": 2}}
    assert _expr(eng, s, "zone_of(seal)") is None             # space 2: in no zone
    eng.runtime(s).v_move_along({"player": "red"}, ["patronage", -1], {"marker": "seal"}, None)
    assert _expr(eng, s, "zone_of(seal)") == "low" and _expr(eng, s, "position(seal)") == 1
