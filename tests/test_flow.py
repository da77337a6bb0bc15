"""Flow words and a map that is optional (issue 16, stage 11; docs/language.md "Rounds, phases
and the end of the game", "A map is optional").

The engine plays a pack's `round` block until an end condition declared `at: end_of_PHASE` or
`at: end_of_round` ends the game; such a condition may name the winners (`winners:`), which
`Engine.winners` then returns instead of the scores' verdict. The base game's words (`year`,
`max_years`, `end_of_year`, `final_winter`) keep their meaning. The pack tests/packs/race has
no map.yaml: two runners on a track, Turns of one phase `dash`.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.replay import replay, state_hash, write_log
from rulespec import flow
from rulespec.board import NoMap
from rulespec.errors import RuleFault
from rulespec.pack import load_pack
from validator.static import validate_pack

PACKS = Path(__file__).resolve().parent / "packs"
SEEDS = range(25)


@lru_cache(maxsize=None)
def race() -> Engine:
    return Engine(load_pack(PACKS / "race", [PACKS]))


def overlay(make_pack, name: str, rules: str) -> Engine:
    folder = make_pack(name, {"pack.yaml": f"id: {name}\nname: Race test\nversion: 0.1.0\nextends: race\n",
                              "rules/test.rules": rules})
    return Engine(load_pack(folder, [PACKS]))


def finished(engine, state) -> list:
    """The runners on the lane's last space, read from the pack's track (not from the engine's
    end conditions)."""
    last = len(engine.rs.tracks["lane"]["spaces"]) - 1
    return [p for p in state["players"] if state["tracks"]["lane"]["pos"][p] == last]


# ------------------------------------------------------------------ a pack without a map
def test_the_map_less_pack_validates_clean():
    report = validate_pack(PACKS / "race", [PACKS])
    assert "map" not in report.pack.data
    assert report.diagnostics == [], [d.render() for d in report.diagnostics]


def test_a_game_without_a_map_has_no_board_and_no_cities():
    engine = race()
    state = engine.new_game(2, seed=0)
    assert isinstance(engine.runtime(state).board, NoMap)
    assert state["cities"] == {} and engine.runtime(state).f_instances("city") == []


@pytest.mark.parametrize("seed", SEEDS)
def test_random_bots_play_the_race_to_its_end(seed):
    engine = race()
    state, moves = play_game(engine, 2, seed, "random")
    assert engine.is_over(state) and not state.get("unfinished"), f"seed {seed}: no end within the bound"
    done = finished(engine, state)
    if done:            # someone crossed the line: the end condition names them, whatever the scores say
        assert state["phase"] == "dash"
        assert engine.winners(state) == done == state["winners"]
    else:               # the 20th Turn ended it: no one named, the scores decide
        assert state["year"] == engine.rs.game["max_rounds"] == 20
        assert "winners" not in state
        best = max(r["total"] for r in engine.scores(state).values())
        assert engine.winners(state) == [p for p, r in engine.scores(state).items() if r["total"] == best]


def test_a_map_less_game_replays_bit_for_bit(tmp_path):
    engine = race()
    who = []
    state, moves = play_game(engine, 2, 3, "random", on_move=lambda turn, mv, ev, st: who.append(turn["pending"]["player"]))
    log = tmp_path / "race.jsonl"
    write_log(log, engine, state["players"], 3, {}, list(zip(who, moves)), state)
    assert state_hash(replay(log, engine)) == state_hash(state)


def test_a_graph_query_without_a_map_is_a_positioned_fault_not_a_crash():
    """The validator reports it (tests/packs/broken/rs105_graph_query_without_map); a pack played
    without validation meets the same RS105 at the rule, never a Python error."""
    with pytest.raises(RuleFault) as e:
        NoMap().road_distance("a", "b")
    assert e.value.code == "RS105" and "no map" in e.value.first.message
    report = validate_pack(PACKS / "broken" / "rs105_graph_query_without_map", [PACKS])
    assert [(d.code, d.span.line, d.span.column) for d in report.diagnostics] == [("RS105", 6, 14)]
    assert "this pack has no map: 'distance'" in report.diagnostics[0].message


def test_a_local_name_that_shadows_a_map_global_is_not_a_graph_query(make_pack):
    folder = make_pack("shadow", {"pack.yaml": "id: shadow\nname: Shadow\nversion: 0.1.0\nextends: race\n",
                                  "rules/test.rules": """
        modify phase dash {
          after: { for seas in players { log("no map needed") } }
        }
    """})
    assert validate_pack(folder, [PACKS]).diagnostics == []


def test_a_pack_with_a_map_still_needs_a_board_side(make_pack):
    """board_side left the schema's required fields (a map-less pack has no sides): with a map it
    is still required, RS100 at the player count."""
    base = PACKS / "minimal_map"
    setup = (base / "setup.yaml").read_text(encoding="utf-8").replace("    board_side: side_a\n", "")
    folder = make_pack("no_side", {"pack.yaml": "id: no_side\nname: No side\nversion: 0.1.0\nextends: minimal_map\n",
                                   "setup.yaml": setup})
    report = validate_pack(folder, [PACKS])
    assert [(d.code, "no board side" in d.message) for d in report.errors] == [("RS100", True)]


# ------------------------------------------------------------------ end_of_PHASE, end_of_round
def test_an_end_condition_at_the_end_of_a_phase_ends_the_game_there():
    engine = race()
    ec = next(e for e in engine.rs.end_conditions if e["id"] == "finish_line")
    assert ec["at"] == "end_of_dash" and ec["then"] == "immediately"
    for seed in SEEDS:
        state, _ = play_game(engine, 2, seed, "random")
        if finished(engine, state):
            # ended when the dash ended: every runner had their move in the last Turn
            assert state["over"] and state["vm"]["frames"] == []
            return
    pytest.fail("no seed crossed the line")


def test_an_end_condition_at_the_end_of_the_round_names_its_winners(make_pack):
    engine = overlay(make_pack, "tortoise_wins", """
        remove end_condition finish_line
        end_condition second_turn "The tortoise wins after two Turns" {
          check: round >= 2
          at: end_of_round
          then: immediately
          winners: [tortoise]
        }
    """)
    for seed in range(5):
        state, _ = play_game(engine, 2, seed, "random")
        assert state["year"] == 2 and engine.is_over(state)
        assert engine.winners(state) == ["tortoise"]
        # the scores are still counted, for the score sheet
        assert set(engine.scores(state)) == {"hare", "tortoise"}


def test_end_of_round_with_then_end_of_round_plays_the_round_out(make_pack):
    engine = overlay(make_pack, "play_out", """
        remove end_condition finish_line
        end_condition early "Checked in the dash, the Turn is played out" {
          check: round >= 3
          at: end_of_dash
          then: end_of_round
          winners: [p for p in players where position(p, lane) == max([position(q, lane) for q in players])]
        }
    """)
    state, _ = play_game(engine, 2, 1, "random")
    assert state["year"] == 3 and engine.is_over(state) and state["ending"]
    assert engine.winners(state) == state["winners"] and state["winners"]


def test_winners_that_are_not_players_stop_the_game_at_the_field(make_pack):
    engine = overlay(make_pack, "bad_winners", """
        modify end_condition last_turn {
          check: round >= 1
          winners: ["nobody"]
        }
    """)
    with pytest.raises(RuleFault) as e:
        play_game(engine, 2, 0, "random")
    assert e.value.code == "RS301" and "nobody" in e.value.first.message
    assert e.value.span.file.endswith("test.rules") and e.value.span.line == 3


# ------------------------------------------------------------------ the base game's words
def test_the_base_game_spellings_mean_the_engine_words():
    assert flow.moment("end_of_year") == "end_of_round" and flow.then_word("final_winter") == "end_of_round"
    minimal = Engine(load_pack(PACKS / "minimal_map", [PACKS]))      # written with year, max_years, end_of_year
    assert minimal.rs.game["round"] is not None and minimal.rs.game["max_rounds"] == 6
    ec = minimal.rs.end_conditions[0]
    assert (ec["at"], ec["then"]) == ("end_of_round", "end_of_round")


def test_year_and_round_read_the_same_counter(make_pack):
    engine = overlay(make_pack, "both_names", """
        formula both "Round and Year" { value: [round, year] }
        modify end_condition last_turn { check: both()[0] >= 20 and both()[1] >= 20 }
    """)
    state = engine.new_game(2, seed=0)
    state["year"] = 7
    assert engine.runtime(state).formula("both", [], {}, {}) == [7, 7]


def test_an_overlay_may_write_the_other_spelling_over_its_base(make_pack):
    """race writes max_rounds; an overlay's max_years replaces it (no RS101: another pack wrote it)."""
    folder = make_pack("longer", {"pack.yaml": "id: longer\nname: Longer\nversion: 0.1.0\nextends: race\n",
                                  "rules/test.rules": "modify game race {\n  max_years: 40\n}\n"})
    assert validate_pack(folder, [PACKS]).diagnostics == []
    assert Engine(load_pack(folder, [PACKS])).rs.game["max_rounds"] == 40


def test_the_round_name_is_the_packs():
    assert race().rs.game["round_name"] == "Turn"
    assert Engine(load_pack("base_3to5")).rs.game["round_name"] == "Year"
