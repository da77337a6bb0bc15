"""Index targets in `set` and `count by` fields (world-model plan stage 7).

`set c.troops[p] = n` changes one key of a `count by` field in place: a new key goes after the
others, a changed key keeps its place, and a count of 0 removes its key. The order of a record's
keys is part of the stored state (the golden corpus hashes `state.dumps`), so this order is the
contract the pack's Troop procedures (content/base_3to5/rules/pieces.rules) rely on.
"""
from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter import vm
from interpreter.api import Engine
from rulespec.errors import Span
from rulespec.pack import load_pack
from validator.static import validate_pack


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def _overlay(make_pack, rules: str):
    return make_pack("pieces_test", {"pack.yaml": "id: pieces_test\nname: Pieces test\nversion: 0.1.0\n"
                                                  "extends: base_3to5\n",
                                     "rules/test.rules": rules})


def _run(eng, state, name: str, player: str = "red", **args):
    """Run procedure `name` of the pack on `state` (in place), alone, as `player`."""
    rt = eng.runtime(state)
    state["vm"], state["over"] = {"frames": [], "pending": None}, True
    block, env = rt.verb("run", {"player": player}, [name], args, Span("<test>"))
    vm.push(rt, block, env, scope=True)
    vm.run(rt)


def test_a_new_key_goes_last_and_a_zero_count_removes_its_key(engine):
    s = engine.new_game(3, seed=1)
    rt = engine.runtime(s)
    s["cities"]["siena"]["troops"] = {"red": 1}
    rt.set_item("city", "siena", "troops", "yellow", 2, None)
    assert list(s["cities"]["siena"]["troops"].items()) == [("red", 1), ("yellow", 2)]
    rt.set_item("city", "siena", "troops", "red", 3, None)          # a changed key keeps its place
    assert list(s["cities"]["siena"]["troops"].items()) == [("red", 3), ("yellow", 2)]
    rt.set_item("city", "siena", "troops", "red", 0, None)
    assert s["cities"]["siena"]["troops"] == {"yellow": 2} and "red" not in s["cities"]["siena"]["troops"]


def test_set_with_an_index_in_the_rules_keeps_the_key_order(make_pack):
    eng = Engine(load_pack(_overlay(make_pack, """
        procedure reinforce(c: city) "Two yellow Troops join, red's leave" {
          effect: {
            set c.troops[yellow] = c.troops[yellow] + 2
            set c.troops[red] = c.troops[red] - c.troops[red]
            set c.besiegers[green] = c.besiegers[green] + 1
          }
        }
        action reinforce_now "Use it" { effect: { run(reinforce, c: siena) } }
    """)))
    s = eng.new_game(3, seed=1)
    s["cities"]["siena"]["troops"] = {"red": 1, "green": 4}
    _run(eng, s, "reinforce", c="siena")
    assert list(s["cities"]["siena"]["troops"].items()) == [("green", 4), ("yellow", 2)]
    assert s["cities"]["siena"]["besiegers"] == {"green": 1}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["red", "yellow", "green"]), st.integers(-2, 4)), max_size=12))
def test_count_by_keys_follow_python_dict_order(engine, sets):
    """Any sequence of `set c.troops[k] = n` leaves the keys of a dict assigned in the same
    order, without the zero (or below) counts."""
    s = engine.new_game(3, seed=1)
    rt = engine.runtime(s)
    s["cities"]["siena"]["troops"] = {}
    want: dict = {}
    for k, n in sets:
        rt.set_item("city", "siena", "troops", k, n, None)
        if n > 0:
            want[k] = n
        else:
            want.pop(k, None)
    assert list(s["cities"]["siena"]["troops"].items()) == list(want.items())


def test_a_troop_moving_to_a_foreign_city_stops_in_front_of_it(engine):
    s = engine.new_game(3, seed=1)
    red_city = next(c for c, rec in s["cities"].items() if rec["controller"] == "red" and rec["troops"].get("red"))
    foreign = next(c for c, rec in s["cities"].items() if rec["controller"] not in ("red",))
    before = s["cities"][red_city]["troops"]["red"]
    _run(engine, s, "move_troop", origin=red_city, dest=foreign)
    assert s["cities"][foreign]["besiegers"] == {"red": 1}
    assert s["cities"][foreign]["troops"].get("red", 0) == 0
    assert s["cities"][red_city]["troops"].get("red", 0) == before - 1
    _run(engine, s, "place_disc", c=foreign)          # the besieger now holds the City
    assert s["cities"][foreign]["controller"] == "red"
    assert s["cities"][foreign]["troops"].get("red") == 1 and "red" not in s["cities"][foreign]["besiegers"]


def test_placing_a_troop_without_reserve_is_refused_and_changes_nothing(engine):
    s = engine.new_game(3, seed=1)
    s["p"]["red"]["troops_reserve"] = 0
    work = copy.deepcopy(s)
    with pytest.raises(vm.Abort, match="no Troop in reserve"):
        _run(engine, work, "place_troop", c="siena")
    assert s["cities"]["siena"] == work["cities"]["siena"]


def test_gain_agent_stops_at_agents_max_and_lose_florins_stops_at_zero(engine):
    s = engine.new_game(3, seed=1)
    red = s["p"]["red"]
    red["agents_total"] = red["agents_max"] - 1
    avail = red["agents_available"]
    _run(engine, s, "gain", what="agent", n=3)
    assert red["agents_total"] == red["agents_max"] and red["agents_available"] == avail + 1
    red["florins"] = 2
    _run(engine, s, "lose", what="florin", n=5)
    assert red["florins"] == 0


@pytest.mark.parametrize("stmt, where", [
    ("let m = 3\n    set m[red] = 1", "set m[red]"),
    ("set siena.controller[red] = 1", "set siena.controller[red]"),
])
def test_set_on_an_index_needs_a_count_by_field(make_pack, stmt, where):
    root = _overlay(make_pack, f"procedure p {{\n  effect: {{\n    {stmt}\n  }}\n}}\n"
                               "action use_p \"Use it\" { effect: { run(p) } }\n")
    errors = [d for d in validate_pack(root).errors if d.code == "RS106"]
    assert errors and "count by" in errors[0].message, [d.message for d in validate_pack(root).errors]
