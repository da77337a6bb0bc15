"""Payment sources as declarations (`source`, content/base_3to5/rules/sources.rules): where the
symbols of a payment come from is the pack's, in its order; the engine's payment search
(interpreter/payment.py) asks Runtime.payment_sources and Runtime.tap, which run the pack's
declarations. A variant adds a source without Python; a malformed source is a positioned error."""
from __future__ import annotations

import copy
from functools import lru_cache

import pytest

from interpreter import payment, vm
from interpreter.api import Engine
from rulespec.errors import RuleFault
from rulespec.pack import load_pack
from validator.static import validate_pack

COLOURS = ["red", "yellow", "green"]
GOVERN = {"action": "govern", "within": ["govern"]}

# A house rule: a City with a Cathedral blesses its controller's payments with 1 Cross, once
# per game (a field of the overlay's own marks it used).
BLESSED = """\
field blessing_used: bool = false on city "The City's Cross was used"
source blessed_city(c: city) "A City with a Cathedral" {
  each: [c for c in find(city, controller, player) where c.cathedral and not c.blessing_used]
  symbols: 1 cross
  tap: { set c.blessing_used = true }
}
"""


def _overlay(make_pack, rules: str, name: str = "sources_test"):
    return make_pack(name, {"pack.yaml": f"id: {name}\nname: Sources test\nversion: 0.1.0\nextends: base_3to5\n",
                            "rules/test.rules": rules})


@lru_cache(maxsize=None)
def _base() -> Engine:
    return Engine(load_pack("base_3to5"))


@lru_cache(maxsize=None)
def _start() -> dict:
    return _base().new_game(COLOURS, seed=1)


@pytest.fixture
def st():
    return copy.deepcopy(_start())


def test_the_base_pack_declares_the_rulebooks_sources_in_its_order():
    """"First use the resources provided from the Action card ... and the Improvement card",
    "then supplement them" from Cortigiano cards, Domain tiles and an Alliance Bonus."""
    rs = _base().rs
    assert [s.id for s in rs.sources] == ["room_card", "room_improvement", "room_printed", "cortigiano_cards",
                                          "domain_tiles", "alliance_bonus"]
    assert rs.first_labels == {"room.card", "room.impr", "room.printed"}
    assert [s.first for s in rs.sources] == [True, True, True, False, False, False]


def test_the_room_pays_first_and_only_for_its_action(st):
    rt = _base().runtime(st)
    red = st["p"]["red"]
    red["marker"] = 0
    red["rooms"][0]["card"] = "bishop"              # bottom: 2 cross
    red["court"][0]["card"] = "ambassador"          # bottom: crown
    got = rt.payment_sources("red", GOVERN)
    assert got[:2] == [("room.card", {"cross": 2}), ("ambassador", {"crown": 1})]
    assert rt.first_source("room.card") and not rt.first_source("ambassador")
    # outside an Action (a purchase) the Room does not pay
    assert [label for label, _ in rt.payment_sources("red", {"within": ["purchase"]})][0] == "ambassador"
    # a Room without an Action card pays with the symbols printed in it (palaces.yaml: Red's
    # second Room shows a Crown, its first nothing)
    red["rooms"][0]["card"] = None
    assert rt.payment_sources("red", GOVERN)[0][0] == "ambassador"
    red["marker"] = 1
    assert rt.payment_sources("red", GOVERN)[0] == ("room.printed", {"crown": 1})
    assert rt.tap("red", "room.printed", "crown", GOVERN) == 1
    assert red["rooms"][1]["used"] == {"printed": "crown"}
    assert rt.payment_sources("red", GOVERN)[0][0] == "ambassador"


def test_a_tap_runs_the_sources_tap_block(st):
    rt = _base().runtime(st)
    red = st["p"]["red"]
    red["court"][0]["card"] = "bishop"
    florins = red["florins"]
    tile, sym = next((label, s) for label, s in rt.payment_sources("red", GOVERN) if "florin" in s)
    assert rt.tap("red", "bishop", "cross", GOVERN) == 2
    assert red["court"][0]["exhausted"] is True
    assert "bishop" not in dict(rt.payment_sources("red", GOVERN))
    # money from a source that is not first goes to the treasury
    assert rt.tap("red", tile, "florin", GOVERN) == sym["florin"]
    assert red["florins"] == florins + sym["florin"]
    assert st["spent"] == ["bishop", tile]
    # a source that cannot pay now is refused, and names itself
    with pytest.raises(vm.Abort, match="bishop cannot pay now"):
        rt.tap("red", "bishop", "cross", GOVERN)
    with pytest.raises(vm.Abort, match="has no crown"):
        rt.tap("red", next(label for label, _ in rt.payment_sources("red", GOVERN)), "crown", GOVERN)


def test_an_alliance_bonus_pays_only_within_its_list(st):
    rt = _base().runtime(st)
    st["alliances"]["ottoman"]["holder"] = "red"           # 2 Ships: annex, wage war, trade, retreat
    assert ("alliance.ottoman", {"ship": 2}) in rt.payment_sources("red", {"action": "trade", "within": ["trade"]})
    assert "alliance.ottoman" not in dict(rt.payment_sources("red", GOVERN))
    st["alliances"]["ottoman"]["agent"] = "yellow"          # another House's Agent on it
    assert "alliance.ottoman" not in dict(rt.payment_sources("red", {"action": "trade", "within": ["trade"]}))


def test_a_variant_adds_a_source_without_python(make_pack):
    engine = Engine(load_pack(_overlay(make_pack, BLESSED)))
    assert [s.id for s in engine.rs.sources][-1] == "blessed_city"
    st = engine.new_game(COLOURS, seed=1)
    rt = engine.runtime(st)
    city = next(c for c, rec in st["cities"].items() if rec["controller"] == "red")
    assert not payment.can_pay(rt, "red", [{"cross": 1}], {"within": ["purchase"]})
    st["cities"][city]["cathedral"] = True
    assert (city, {"cross": 1}) in rt.payment_sources("red", {"within": ["purchase"]})
    assert payment.can_pay(rt, "red", [{"cross": 1}], {"within": ["purchase"]})
    assert rt.tap("red", city, "cross", {"within": ["purchase"]}) == 1
    assert st["cities"][city]["blessing_used"] is True
    assert city not in dict(rt.payment_sources("red", {"within": ["purchase"]}))


def _errors(make_pack, rules):
    report = validate_pack(_overlay(make_pack, rules))
    return [(d.code, d.message, d.hint, d.span.line, d.span.column) for d in report.errors]


def test_a_source_without_its_parameter_is_a_positioned_error(make_pack):
    got = _errors(make_pack, 'source gift "A gift" {\n  each: []\n  symbols: 1 cross\n  tap: { }\n}\n')
    assert [(c, line, col) for c, _, _, line, col in got] == [("RS106", 1, 8)]
    assert "takes one parameter" in got[0][1] and "source NAME(c: card)" in got[0][2]


def test_a_first_source_needs_a_fixed_label(make_pack):
    rules = ('source gift(c: card) "A gift" {\n  each: []\n  label: c\n  symbols: c.bottom\n'
             '  first: true\n  tap: { }\n}\n')
    got = _errors(make_pack, rules)
    assert [(c, line, col) for c, _, _, line, col in got] == [("RS106", 3, 10)]
    assert "`label` must be a text" in got[0][1]


def test_texts_join_with_plus_and_numbers_do_not(make_pack):
    ok = 'formula t_name(c: card) "A label" { value: "card." + c }\n'
    assert _errors(make_pack, ok) == []
    engine = Engine(load_pack(_overlay(make_pack, ok, "join_ok")))
    assert engine.runtime(engine.new_game(COLOURS, seed=1)).formula("t_name", ["bishop"], {}, {}) == "card.bishop"
    got = _errors(make_pack, 'formula t_bad "A label" { value: "card." + 1 }\n')
    assert [(c, col) for c, _, _, _, col in got] == [("RS106", 44)]
    assert "joins a text" in got[0][1]


def test_a_tap_that_fails_is_a_positioned_rule_fault(make_pack):
    """A source's `tap` block runs at once (vm.run_now, without a frame for a block of `set`s):
    a fault of the rules there is still a RuleFault at its position, never a traceback."""
    rules = BLESSED.replace("tap: { set c.blessing_used = true }",
                            "tap: { set c.blessing_used = count(players) / (count(players) - count(players)) > 0 }")
    engine = Engine(load_pack(_overlay(make_pack, rules)))
    st = engine.new_game(COLOURS, seed=1)
    city = next(c for c, rec in st["cities"].items() if rec["controller"] == "red")
    st["cities"][city]["cathedral"] = True
    with pytest.raises(RuleFault) as e:
        engine.runtime(st).tap("red", city, "cross", {"within": ["purchase"]})
    assert e.value.first.code == "RS301" and e.value.first.span.line == 5, e.value.first


def test_a_source_giving_no_symbols_is_a_positioned_fault(make_pack):
    rules = BLESSED.replace("symbols: 1 cross", "symbols: count(players)")
    engine = Engine(load_pack(_overlay(make_pack, rules)))
    st = engine.new_game(COLOURS, seed=1)
    city = next(c for c, rec in st["cities"].items() if rec["controller"] == "red")
    st["cities"][city]["cathedral"] = True
    with pytest.raises(RuleFault) as e:
        engine.runtime(st).payment_sources("red", {"within": ["purchase"]})
    assert e.value.first.span.line == 4 and "gives 3 as its symbols" in e.value.first.message


def test_a_source_whose_each_is_no_list_is_refused(make_pack):
    got = _errors(make_pack, 'source gift(c: card) "A gift" {\n  each: 3\n  symbols: c.bottom\n  tap: { }\n}\n')
    assert [(c, line, col) for c, _, _, line, col in got] == [("RS106", 2, 9)]
