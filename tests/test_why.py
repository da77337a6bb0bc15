"""Why a move is refused (interpreter/why.py, Engine.explain): the rule's file:line, the
condition of it that failed and the values that made it fail, for every kind of refusal."""
from __future__ import annotations

import re

import pytest

from interpreter.api import Engine, IllegalMove
from rulespec.pack import load_pack

from conftest import at, write_pack


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


@pytest.fixture(scope="module")
def variant(tmp_path_factory):
    """The base game with a procedure that requires Pisa and a constraint of at most 3 florins."""
    root = write_pack(tmp_path_factory.mktemp("why") / "why_variant", {
        "pack.yaml": """
            id: why_variant
            name: Why variant
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/why.rules": """
            procedure pick_pisa "Pick Pisa" {
              effect: {
                choose c in player.cities "City" {
                  require c == pisa else "only Pisa"
                }
              }
            }

            procedure pay_three "Pay three Crowns" {
              effect: {
                choose c in player.cities "City" {
                  pay 3 crown
                }
              }
            }

            constraint few_florins "At most 3 florins" {
              scope: player
              check: player.florins <= 3
              message: "At most 3 florins."
            }
        """})
    return Engine(load_pack(str(root)))


def refused(engine, state, move):
    """The Refusal, after checking the move is refused by apply and the state is unchanged."""
    before = repr(state)
    with pytest.raises(IllegalMove) as e:
        engine.apply(state, move)
    assert e.value.rule_span is not None and e.value.rule_span.line > 0, "IllegalMove names the rule"
    r = engine.why(state, move)
    assert repr(state) == before
    assert r is not None and r.span is not None and r.span.line > 0
    return r


RULE = re.compile(r"rule: \S+\.rules:\d+")


def test_a_filter_names_the_failed_conjunct_and_its_values(engine):
    s = at(engine, {"p.red.tiles": [], "p.red.florins": 12}, {"red": ["kingdom", "ambassador", "ambassador"]},
           {"run": "purchase", "player": "red"}, ["done"])
    r = refused(engine, s, "choose kingdom#2")
    assert r.span.file.endswith("phases.rules")
    assert "count(owned(player, tile.id)) < tile.limit" in r.condition
    assert r.condition_span.line > r.span.line          # the `where` line below the choose
    assert ("tile", "kingdom#2") in r.values
    r = refused(engine, s, "choose republic#1")
    assert r.condition == "not any([owns(player, x) for x in tile.excludes])"
    assert RULE.search(engine.explain(s, "choose republic#1"))


def test_an_or_filter_shows_the_culprit_of_each_side(engine):
    s = at(engine, {"p.red.unplaced": [], "p.red.tiles": []}, {"red": ["ambassador"] * 3},
           {"perform": "annex", "player": "red"})
    r = refused(engine, s, "choose rome")
    texts = [t for t, _ in r.values]
    assert ("target", "rome") in r.values
    assert "is_port(target)" in texts and any(t.startswith("any([annex_by_road") for t in texts)


def test_an_element_not_in_the_set(engine):
    s = at(engine, {"p.red.unplaced": [], "p.red.tiles": []}, {"red": ["ambassador"] * 3},
           {"perform": "annex", "player": "red"})
    r = refused(engine, s, "choose atlantis")
    assert r.condition.startswith("target in ")
    assert any("'atlantis' is not one of them" in n for n in r.notes)


def test_payment_moves_say_why_not(engine):
    s = at(engine, {"p.red.unplaced": [], "p.red.tiles": []}, {"red": ["ambassador"] * 3},
           {"perform": "annex", "player": "red"}, ["choose ravenna"])
    r = refused(engine, s, "tap ambassador#1 ship")
    assert r.condition == "pay 3 crown" and "gives 1 crown, not ship" in r.render()
    r = refused(engine, s, "run request_indulgence")      # its `requires`: the Action marker is on no Room
    assert r.span.file.endswith("indulgences.rules")
    assert r.condition == "player.marker != none" and ("player.marker", None) in r.values
    s2 = engine.apply(s, "tap ambassador#1 crown")
    assert "already used" in refused(engine, s2, "tap ambassador#1 crown").render()


def test_a_require_names_its_condition_and_values(variant):
    s = at(variant, start={"run": "pick_pisa", "player": "red"})
    r = refused(variant, s, "choose florence")
    assert r.reason == "only Pisa" and r.span.file.endswith("why.rules") and r.span.line == 4
    assert r.condition == "c == pisa" and ("c", "florence") in r.values
    assert variant.explain(s, "choose pisa") == "legal"


def test_a_broken_constraint_names_its_check(variant):
    s = at(variant, {"p.red.florins": 3}, start={"perform": "govern", "player": "red"})
    move = next(m for m in variant.legal_moves(s) if m.startswith("choose "))
    r = refused(variant, s, move)
    assert r.reason.startswith("At most 3 florins.") and r.span.file.endswith("why.rules")
    assert r.condition == "player.florins <= 3"
    assert any(t == "player.florins" and v > 3 for t, v in r.values)


def test_an_unaffordable_cost_says_what_can_be_paid(variant):
    s = at(variant, {"p.red.unplaced": [], "p.red.tiles": [], "p.red.florins": 0},
           {"red": ["ambassador"]}, {"run": "pay_three", "player": "red"})
    r = refused(variant, s, "choose florence")
    assert r.reason.startswith("cannot pay 3 crown") and r.span.file.endswith("why.rules")
    assert r.condition == "pay 3 crown" and ("crown red can pay now", 1) in r.values
