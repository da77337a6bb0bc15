"""What the pack now declares instead of the engine (issue 16, stage 18a): fields printed on the
map (`@map`), fields of catalogue kinds read straight from the catalogue, `x.id`, the plural of
a kind, `flatten`, `set PILE = n` on a counted zone, and the base pack's formulas and
procedures that replaced built-in names (take_war_token, use_bottom, modified_value, cards).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import costs, vm
from interpreter.api import Engine
from rulespec.checker import Checker
from rulespec.pack import load_pack
from rulespec.parser import parse_expr

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


@pytest.fixture
def state(engine):
    return engine.new_game(4, seed=3)


def _expr(engine, state, text, player="red"):
    """Evaluate a rules expression against `state`, as the rules would."""
    fn, _ = engine.rs.comp.expr(parse_expr(text), {})
    return fn(engine.runtime(state), {"player": player})


def _run(engine, state, proc, args, player="red"):
    """Run one of the pack's procedures to its end (it asks nothing)."""
    rt = engine.runtime(state)
    vm.run_now(rt, *rt.call(engine.rs.procedures[proc], {"player": player}, args, {}))
    return rt


# ------------------------------------------------------------------ printed on the map
def test_a_map_field_reads_the_board_and_is_not_stored(engine, state):
    board = engine.runtime(state).board
    assert _expr(engine, state, "[c.value for c in cities]") == [board.value(c) for c in state["cities"]]
    assert "value" not in state["cities"]["milan"]          # printed, never stored
    assert _expr(engine, state, "tunis.pirate") is True
    assert _expr(engine, state, "milan.pirate") is False    # the declared default: not in map.yaml
    # annexable: the map's `annexable: false`, else not a pirate port
    assert _expr(engine, state, "tunis.annexable") is False and _expr(engine, state, "milan.annexable") is True


def test_a_map_field_cannot_be_set(engine, state):
    rt = engine.runtime(state)
    with pytest.raises(vm.Abort, match="printed on the map"):
        rt.set_attr("city", "milan", "value", 5, None)
    assert _expr(engine, state, "milan.value") == rt.board.value("milan")


# ------------------------------------------------------------------ catalogue fields, x.id
def test_catalogue_fields_and_id_of_a_copy(engine, state):
    assert _expr(engine, state, "ambassador.type") == "notable"
    copies = _expr(engine, state, "[c for c in instances(card) where c.id == \"ambassador\"]")
    assert len(copies) == 5 and copies[1] == "ambassador#2"
    assert _expr(engine, state, "[c.id for c in instances(card) where c.id == \"ambassador\"]") == ["ambassador"] * 5
    # a cost is a cost: it adds to another one (the compiled read keeps the type)
    cost = _expr(engine, state, "ambassador.cost")
    assert cost and _expr(engine, state, "ambassador.cost + 1 florin") == \
        costs.combine(costs.as_cost(cost), costs.qty("florin", 1))


def test_a_value_a_rule_set_on_a_card_wins_over_the_catalogue(engine, state):
    rt = engine.runtime(state)
    rt.set_attr("card", "ambassador#1", "pp", 7, None)
    assert _expr(engine, state, "[c.pp for c in instances(card) where c.id == \"ambassador\"]")[:2] == [7, 0]


# ------------------------------------------------------------------ names of the language
def test_the_plural_of_a_kind_and_flatten(engine, state):
    assert _expr(engine, state, "alliances") == list(state["alliances"])
    assert _expr(engine, state, "flatten([[1, 2], [], [3]])") == [1, 2, 3]
    rooms = _expr(engine, state, "flatten([p.rooms for p in players])")
    assert len(rooms) == sum(len(state["p"][p]["rooms"]) for p in state["players"])


def test_set_a_counted_pile(engine, state):
    left = state["supply"]["war_tokens"]
    _run(engine, state, "take_war_token", [2])
    assert (state["supply"]["war_tokens"], state["p"]["red"]["war_tokens"]) == (left - 2, 2)
    _run(engine, state, "take_war_token", [left + 5])       # no more than the supply holds
    assert (state["supply"]["war_tokens"], state["p"]["red"]["war_tokens"]) == (0, left)
    _run(engine, state, "take_war_token", [-3])              # back to the supply
    assert (state["supply"]["war_tokens"], state["p"]["red"]["war_tokens"]) == (3, left - 3)


def test_setting_a_zone_of_things_is_refused_by_the_checker(make_pack):
    folder = make_pack("setpile", {
        "pack.yaml": "id: setpile\nname: P\nversion: 1.0.0\nextends: base_3to5\n",
        "rules/more.rules": "procedure spill { effect: { set display = 3 } }\n",
    })
    diags = Checker(load_pack(folder)).run()
    assert [(d.code, d.span.line) for d in diags if d.severity == "error"] == [("RS106", 1)]


# ------------------------------------------------------------------ the base pack's own
def test_use_bottom_marks_the_rooms_card(engine, state):
    card = state["supply"]["notables"][next(iter(state["supply"]["notables"]))][0]
    room = state["p"]["red"]["rooms"][1]
    room["card"] = card
    _run(engine, state, "use_bottom", [card])
    assert room["used"] == {"card": "war"}
    assert all(r["used"] == {} for i, r in enumerate(state["p"]["red"]["rooms"]) if i != 1)


def test_cards_and_indulgences_follow_the_palace(engine, state):
    pl = state["p"]["red"]
    notables = state["supply"]["notables"]
    a, b = (notables[k][0] for k in list(notables)[:2])
    pl["rooms"][0]["impr"], pl["rooms"][2]["card"] = a, b
    pl["rooms"][3]["indulgence"] = state["supply"]["indulgences"][0]
    assert _expr(engine, state, "player.cards") == [a, b] + pl["unplaced"] == engine.runtime(state).cards_of("red")
    assert _expr(engine, state, "player.indulgences") == 1


def test_modified_value_follows_the_agent(engine, state):
    base = engine.runtime(state).board.value("milan")
    state["cities"]["milan"]["controller"] = None
    assert _expr(engine, state, "modified_value(milan, red)") == base
    state["cities"]["milan"]["agent"] = "red"
    assert _expr(engine, state, "modified_value(milan, red)") == base - 1
    assert _expr(engine, state, "modified_value(milan, blue)") == base + 1     # another's Agent, neutral City
    state["cities"]["milan"]["controller"] = "yellow"
    assert _expr(engine, state, "modified_value(milan, blue)") == base


def test_a_rules_text_parsed_again_is_a_fresh_copy_naming_its_own_file():
    """parse_rules remembers a text's parse (rulespec.parser._PARSED): the same text in another
    folder reads back equal, with its spans naming the new file, and changing one copy leaves
    the other as it was."""
    from rulespec import parser
    text = (ROOT / "content" / "base_3to5" / "rules" / "palace.rules").read_text()
    first = parser.parse_rules(text, "/a/rules/palace.rules")
    second = parser.parse_rules(text, "/b/rules/palace.rules")
    assert {str(first.items[0].span.file), str(second.items[0].span.file)} == {"/a/rules/palace.rules",
                                                                              "/b/rules/palace.rules"}
    parser._PARSED.clear()
    fresh = parser.parse_rules(text, "/b/rules/palace.rules")
    assert second == fresh
    second.items.pop()
    assert parser.parse_rules(text, "/b/rules/palace.rules") == fresh
