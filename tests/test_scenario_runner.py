"""The scenario runner is strict: a scenario that cannot check what it says fails.

A misspelt key (`expected:`), a move that names something the pack does not have (refused for
the wrong reason), or an empty scenario list would otherwise pass silently.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from interpreter.scenario import run_scenario
from rulespec.errors import RulespecError

ROOT = Path(__file__).resolve().parents[1]

# Red annexes from Florence with three Ambassadors: Ravenna and Spoleto are the Cities in reach
ANNEX = """\
name: runner test
players: [red, yellow, green]
seed: 1
given:
  p.red.unplaced: []
  p.red.tiles: []
give:
  red: [ambassador, ambassador, ambassador]
start: {perform: annex, player: red}
steps:
"""


def scenario(tmp_path, steps: str, head: str = ANNEX) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(head + textwrap.indent(textwrap.dedent(steps), "  "), encoding="utf-8")
    return path


def failures(path) -> list:
    return [text for _, text in run_scenario(path).failures]


def schema_error(path):
    with pytest.raises(RulespecError) as e:
        run_scenario(path)
    return e.value.diagnostics


def test_a_correct_scenario_passes(tmp_path):
    out = run_scenario(scenario(tmp_path, """\
        - legal_exactly: [choose ravenna, choose spoleto, done]
          not_legal: [choose rome, choose siena]
        - illegal: choose rome
          because: not one of the choices
        """))
    assert out.ok, out.failures


def test_an_unknown_step_key_is_an_error_at_its_line(tmp_path):
    path = scenario(tmp_path, """\
        - expected: {cities.ravenna.controller: red}
        """)
    (d,) = schema_error(path)
    assert d.code == "RS100" and "expected" in d.message
    assert d.span.line == 11                     # the line of the misspelt key
    assert "expect" in d.hint                    # the allowed keys are listed


def test_an_unknown_top_level_key_is_an_error(tmp_path):
    path = scenario(tmp_path, "- move: choose ravenna\n", head=ANNEX.replace("seed: 1", "sead: 1"))
    (d,) = schema_error(path)
    assert "sead" in d.message and d.span.line == 3


def test_an_unknown_start_key_is_an_error(tmp_path):
    path = scenario(tmp_path, "- move: choose ravenna\n",
                    head=ANNEX.replace("{perform: annex, player: red}", "{perform: annex, playr: red}"))
    assert any("playr" in d.message for d in schema_error(path))


def test_an_empty_scenario_file_is_an_error(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("", encoding="utf-8")
    assert schema_error(path)


def test_a_scenario_without_steps_is_an_error(tmp_path):
    path = tmp_path / "nosteps.yaml"
    path.write_text("name: nothing to check\nsteps: []\n", encoding="utf-8")
    assert schema_error(path)


def test_an_unquoted_yes_is_a_type_error_not_the_move_True(tmp_path):
    path = scenario(tmp_path, "- move: yes\n")
    (d,) = schema_error(path)
    assert "wrong type" in d.message


def test_because_without_illegal_is_an_error(tmp_path):
    assert schema_error(scenario(tmp_path, "- because: not one of the choices\n"))


def test_a_misspelt_illegal_move_fails(tmp_path):
    # 'ravena' is refused by the engine too, so without the name check this step would pass
    (text,) = failures(scenario(tmp_path, """\
        - illegal: choose ravena
          because: not one of the choices
        """))
    assert "'ravena'" in text and "does not have" in text and "ravenna" in text   # did you mean


@pytest.mark.parametrize("move", ["tap ambasador#1 crown", "tap ambassador#1 crwn", "option by see",
                                  "choose purple.room2", "tap alliance.hrx crown", "run request_indulgense",
                                  "choose 1 crown + 2 shp", "chose ravenna"])
def test_every_kind_of_misspelt_name_is_caught(tmp_path, move):
    out = failures(scenario(tmp_path, f"- illegal: {move}\n"))
    assert any("does not have" in t for t in out), out


def test_a_misspelt_not_legal_move_fails(tmp_path):
    out = failures(scenario(tmp_path, "- not_legal: choose atlantis\n"))
    assert any("'atlantis'" in t for t in out), out


def test_unknown_ids_allows_a_made_up_name_on_purpose(tmp_path):
    assert not failures(scenario(tmp_path, """\
        - illegal: choose atlantis
          unknown_ids: [atlantis]
        """))


def test_unknown_ids_must_really_be_unknown(tmp_path):
    (text,) = failures(scenario(tmp_path, """\
        - illegal: choose rome
          unknown_ids: [rome]
        """))
    assert "rome" in text and "not an unknown name" in text


def test_legal_exactly_reports_missing_and_extra_moves(tmp_path):
    (text,) = failures(scenario(tmp_path, "- legal_exactly: [choose ravenna, choose rome]\n"))
    assert "not offered: choose rome" in text and "offered too: choose spoleto, done" in text


def test_not_legal_fails_on_an_offered_move(tmp_path):
    (text,) = failures(scenario(tmp_path, "- not_legal: [choose rome, choose spoleto]\n"))
    assert "choose spoleto" in text and "offered" in text


def test_an_accepted_illegal_move_fails(tmp_path):
    (text,) = failures(scenario(tmp_path, "- illegal: choose ravenna\n"))
    assert "was accepted" in text


def test_winners_path(tmp_path):
    # Red was given three Ambassadors (Prestige Points): Red leads
    assert not failures(scenario(tmp_path, "- expect: {winners: [red]}\n"))
    (text,) = failures(scenario(tmp_path, "- expect: {winners: [red, yellow]}\n"))
    assert text.startswith("winners: expected ['red', 'yellow'], got ['red']")


def test_an_empty_parameter_list_fails_the_suite(tmp_path):
    """`empty_parameter_set_mark = fail_at_collect` (pyproject.toml): a test parametrised by an
    empty list (no scenario found) fails instead of being skipped."""
    test = tmp_path / "test_empty.py"
    test.write_text("import pytest\n\n@pytest.mark.parametrize('x', [])\ndef test_x(x):\n    pass\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                          "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(test)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0, run.stdout
    assert "Empty parameter set" in run.stdout + run.stderr
