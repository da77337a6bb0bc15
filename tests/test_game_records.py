"""The game's own fields and values of a `record` type (docs/design/world-model-plan.md §2.7):
`field F: R? on game @sparse` is stored at the top of the state only while set, `R(f: v)` makes
a record with every declared field in order, `set game.F.g = v` and `set x.F[k] = v` change it,
`@reports_caller` ends a procedure's account lines with the place of its call, and the game's
`on_phase_end:` block runs at the end of every phase. The base pack's fight (war.rules) is
written with them; these tests use a small overlay so that they do not depend on a Siege."""
from __future__ import annotations

import random

import pytest

from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.scenario import run_scenario
from rulespec.checker import Checker
from rulespec.pack import load_pack

TALLY = {
    "pack.yaml": "id: tally\nname: Tally\nversion: 0.1.0\nextends: base_3to5\n",
    "rules/tally.rules": """
        record tally "A tally of who did what" {
          field who: side? "Who opened it"
          field marks: count by side "Marks by side"
          field notes: list of str "Notes, in order"
        }
        field tally: tally? on game "The open tally" @sparse
        field phases_ended: int = 0 on game "Phases ended so far"

        procedure mark_once "Add a mark" @reports_caller {
          effect: {
            if game.tally == none {
              set game.tally = tally(who: player)
            }
            set game.tally.marks[player] = game.tally.marks[player] + 1
            set game.tally.notes = game.tally.notes + ["mark"]
            log(player, " marks (", game.tally.marks[player], ")", sep: "")
          }
        }

        procedure tally_twice "Mark twice, then close the tally" {
          effect: {
            mark_once()
            mark_once()
          }
        }

        modify game virtu {
          on_phase_end: {
            run(close_fight)
            set game.phases_ended = game.phases_ended + 1
          }
        }
    """,
}


@pytest.fixture(scope="module")
def tally(tmp_path_factory):
    from conftest import write_pack
    root = tmp_path_factory.mktemp("t")
    write_pack(root / "tally", TALLY)
    return root


def test_a_record_value_is_made_changed_and_kept_as_a_sparse_game_field(tally):
    scenario = tally / "tally_twice.yaml"
    scenario.write_text("""
name: a tally opened and marked twice
pack: tally
players: [red, yellow, green]
seed: 1
start: {run: tally_twice, player: red}
steps:
  - log: ["red marks (1)   [tally.rules:22]", "red marks (2)   [tally.rules:23]"]
    expect:
      tally: {who: red, marks: {red: 2}, notes: [mark, mark]}
""", encoding="utf-8")
    out = run_scenario(scenario, [tally])
    assert out.ok, out.failures


def test_a_sparse_game_field_is_absent_until_set_and_a_plain_one_starts_at_its_default(tally):
    engine = Engine(load_pack(tally / "tally"))
    s = engine.new_game(3, seed=1)
    assert "tally" not in s and s["phases_ended"] == 0
    assert list(s)[-1] == "phases_ended"            # a new game field goes after the others


def test_on_phase_end_runs_at_the_end_of_every_phase(tally):
    engine = Engine(load_pack(tally / "tally"))
    s = engine.new_game(3, seed=2)
    rng = random.Random(2)
    while s["year"] < 3 and not engine.is_over(s):
        s = engine.apply(s, rng.choice(engine.legal_moves(s)))
    assert s["phases_ended"] == 4                   # Spring and Winter of Years 1 and 2


def test_the_fight_of_a_phase_is_the_last_fight_after_it():
    """The base pack's on_phase_end (close_fight, war.rules): once a phase is over no fight is
    open, and the last Siege or Battle of a Spring with war stays readable as last_fight."""
    engine = Engine(load_pack("base_3to5"))
    seen = {"phase ends": 0, "after a fight": 0}
    last = {"phase": None}

    def on_move(turn, move, events, after):
        if last["phase"] is not None and after["phase"] != last["phase"]:
            seen["phase ends"] += 1
            assert "fight" not in after
            if "last_fight" in after:
                seen["after a fight"] += 1
                assert list(after["last_fight"]) == ["city", "bonus", "used", "terms", "by"]
        last["phase"] = after["phase"]

    play_game(engine, 3, 0, "sticky", on_move=on_move, options={"max_years": 6})
    assert seen["phase ends"] >= 4 and seen["after a fight"] >= 1, seen


@pytest.mark.parametrize("call, code, words", [
    ("tally(whom: player)", "RS107", "whom"),
    ("tally(player)", "RS107", "by name"),
    ("tally(who: 3)", "RS106", "who"),
])
def test_a_record_value_names_declared_fields(tmp_path, call, code, words):
    from conftest import write_pack
    files = dict(TALLY)
    files["rules/tally.rules"] = files["rules/tally.rules"].replace("tally(who: player)", call)
    diags = Checker(load_pack(write_pack(tmp_path / "tally", files))).run()
    bad = [d for d in diags if d.code == code]
    assert bad and words in bad[0].message + bad[0].hint, [str(d) for d in diags]
    assert bad[0].span.line == 12


def test_the_language_docs_example_validates_as_an_overlay(make_pack):
    """docs/language.md, "The game's own fields and record values": its example is a valid
    overlay of the base pack."""
    from doc_examples import rules_example
    from validator.static import validate_pack
    example = rules_example("**The game's own fields and record values.**")
    assert "record skirmish" in example and "@reports_caller" in example
    report = validate_pack(make_pack("skirmish", {
        "pack.yaml": "id: skirmish\nname: Skirmish\nversion: 0.1.0\nextends: base_3to5\n",
        "rules/skirmish.rules": example}))
    assert not report.errors, [str(d) for d in report.errors]
