"""Who wins a base game: `Engine.winners(state)` (interpreter/api.py).

Rulebook, Prestige & Victory (shared/seeds/004_8bf6c857e4fa2905.txt):
  "The player with the most Prestige Points is proclaimed the Master of Italy.
   If there is a tie, the tied player with more total Crowns in their Palace and Domain (on
   cards and tiles, whether Resources Available or Resources Exhausted).
   If there is still a tie, the tied players simply must share the power."

Each test builds a position through the Engine API (new_game, then state fields set by hand)
in which the points are equal or not *by construction* (the same scoring items on both sides,
or one more Alliance), and the Crowns differ by construction (one side holds the other's Crown
cards plus one more). No total or Crown count is copied from the engine: the expected Crowns
are read from the cards' printed bottoms in the pack's catalogue.
"""
from __future__ import annotations

import random

import pytest

from interpreter.api import Engine
from interpreter.bots import play_game
from rulespec.pack import load_pack

PLAYERS = ["red", "yellow", "green"]


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def crowns(engine, item_id: str) -> int:
    """Crowns printed on the bottom of a card or tile type (pack catalogue, not the engine's
    scoring)."""
    entry = engine.rs.cards.get(item_id) or engine.rs.tiles.get(item_id)
    return entry["bottom"].get("crown", 0)


def fresh(engine):
    """A 3-player game with no Family card (they carry Crowns and Crosses): every player has
    the same position (2 starting Cities, start of both tracks, no card)."""
    s = engine.new_game(PLAYERS, seed=1)
    for p in PLAYERS:
        s["p"][p]["unplaced"] = []
    return s


def put_cards(s, player, cards):
    """Cards on the open Cortigiano spaces (0 on the left, 3 and 4 on the right):
    [(instance id, exhausted)]."""
    for space, (card, exhausted) in zip((0, 3, 4), cards):
        s["p"][player]["court"][space].update(card=card, exhausted=exhausted)


def add_tile(s, player, tile, exhausted):
    s["p"][player]["tiles"].append({"id": tile, "exhausted": exhausted})


def ally(s, player, alliance):
    """An Alliance: 1 PP (no Cross: France or the Ottoman Empire, not the HRE)."""
    s["alliances"][alliance]["holder"] = player


def test_a_tie_on_points_goes_to_more_crowns_exhausted_ones_included(engine):
    assert crowns(engine, "podesta") > 0 and crowns(engine, "ambassador") > 0 and crowns(engine, "duchy_red") > 0
    s = fresh(engine)
    # Yellow: a Podestà and its Duchy, Available. Red: the same, plus an Ambassador, all
    # Exhausted: more Crowns, but only if Exhausted Crowns count.
    put_cards(s, "yellow", [("podesta#2", False)])
    add_tile(s, "yellow", "duchy_yellow", exhausted=False)
    put_cards(s, "red", [("podesta#1", True), ("ambassador#1", True)])
    add_tile(s, "red", "duchy_red", exhausted=True)
    ally(s, "red", "france")
    ally(s, "yellow", "ottoman")
    # Green has the most Crowns but one Alliance fewer: Crowns only break ties on points.
    put_cards(s, "green", [("podesta#3", False), ("podesta#4", False), ("ambassador#2", False)])
    add_tile(s, "green", "duchy_green", exhausted=False)

    sc = engine.scores(s)
    assert sc["red"]["total"] == sc["yellow"]["total"] == sc["green"]["total"] + 1
    red_crowns = crowns(engine, "podesta") + crowns(engine, "ambassador") + crowns(engine, "duchy_red")
    yellow_crowns = crowns(engine, "podesta") + crowns(engine, "duchy_yellow")
    assert (sc["red"]["tie_break"], sc["yellow"]["tie_break"]) == (red_crowns, yellow_crowns)
    assert sc["green"]["tie_break"] > sc["red"]["tie_break"]
    assert engine.winners(s) == ["red"]


def test_crowns_on_room_cards_count_too(engine):
    """"in their Palace": an Action card in a Room (which never flips) counts like a
    Cortigiano card."""
    s = fresh(engine)
    put_cards(s, "yellow", [("podesta#2", False)])
    s["p"]["red"]["rooms"][1]["card"] = "podesta#1"
    s["p"]["red"]["rooms"][1]["impr"] = "ambassador#1"
    sc = engine.scores(s)
    assert sc["red"]["total"] == sc["yellow"]["total"] == sc["green"]["total"]
    assert sc["red"]["tie_break"] == crowns(engine, "podesta") + crowns(engine, "ambassador")
    assert engine.winners(s) == ["red"]


def test_a_tie_on_points_and_crowns_is_shared(engine):
    s = fresh(engine)
    # the same Crown cards, one side Exhausted: still the same number of Crowns
    put_cards(s, "red", [("podesta#1", True), ("ambassador#1", False)])
    put_cards(s, "yellow", [("podesta#2", False), ("ambassador#2", True)])
    ally(s, "red", "france")
    ally(s, "yellow", "ottoman")
    # Green: most Crowns, fewer points
    put_cards(s, "green", [("podesta#3", False), ("podesta#4", False), ("ambassador#3", False)])
    sc = engine.scores(s)
    assert sc["red"]["total"] == sc["yellow"]["total"] > sc["green"]["total"]
    assert sc["red"]["tie_break"] == sc["yellow"]["tie_break"] < sc["green"]["tie_break"]
    assert sorted(engine.winners(s)) == ["red", "yellow"]


def test_three_tied_on_points_crowns_keep_the_two_best(engine):
    s = fresh(engine)
    put_cards(s, "red", [("podesta#1", True)])
    put_cards(s, "yellow", [("podesta#2", False)])
    assert crowns(engine, "podesta") > crowns(engine, "ambassador")
    put_cards(s, "green", [("ambassador#1", False)])
    sc = engine.scores(s)
    assert sc["red"]["total"] == sc["yellow"]["total"] == sc["green"]["total"]
    assert sorted(engine.winners(s)) == ["red", "yellow"]


def test_more_points_win_whatever_the_crowns(engine):
    s = fresh(engine)
    ally(s, "yellow", "france")
    put_cards(s, "red", [("podesta#1", False), ("podesta#2", False), ("ambassador#1", False)])
    sc = engine.scores(s)
    assert sc["yellow"]["total"] == sc["red"]["total"] + 1 == sc["green"]["total"] + 1
    assert sc["red"]["tie_break"] > sc["yellow"]["tie_break"]
    assert engine.winners(s) == ["yellow"]


def test_nobody_has_crowns_everybody_shares(engine):
    s = fresh(engine)
    assert engine.winners(s) == PLAYERS


@pytest.mark.parametrize("seed", [7])
def test_winners_of_a_whole_game(engine, seed):
    """A base game played to its end by bots: the winners are the players with the most points
    and, among them, the most Crowns."""
    s, _moves = play_game(engine, 4, seed)
    assert engine.is_over(s) and not s.get("unfinished")
    sc = engine.scores(s)
    for row in sc.values():
        assert row["total"] == sum(v for k, v in row.items() if k not in ("total", "tie_break"))
    top = max(r["total"] for r in sc.values())
    tied = [p for p, r in sc.items() if r["total"] == top]
    most = max(sc[p]["tie_break"] for p in tied)
    assert engine.winners(s) == [p for p in tied if sc[p]["tie_break"] == most]
    # no end condition of the base game names winners: the state records none
    assert "winners" not in s and all("winners" not in ec["decl"].fields for ec in engine.rs.end_conditions)


def test_winners_named_by_an_end_condition_beat_the_scores(engine):
    """An end condition's `winners:` decides, not the points (docs/language.md "Rounds, phases and
    the end of the game"): the Wars of Italy's France holding Naples. A named winner with fewer
    points still wins; the scores are still there for the score sheet."""
    woi = Engine(load_pack("wars_of_italy"))
    s = woi.new_game(2, seed=4)
    s["cities"]["naples"].update(controller="blue", troops={"blue": 2})
    s["p"]["yellow"]["trophies"] = ["blue"] * 6
    rng = random.Random(4)
    while not woi.is_over(s):
        s = woi.apply(s, rng.choice(woi.legal_moves(s)))
    sc = woi.scores(s)
    assert sc["yellow"]["total"] > sc["blue"]["total"]
    assert woi.winners(s) == s["winners"] == ["blue"]
    # a state of a game not ended by a naming condition: the scores decide
    del s["winners"]
    assert woi.winners(s) == ["yellow"]
