"""The command line's shape (issue 15): the pack as the first positional argument (with --pack
kept), `--version`, help text on every option, the bots documented, `rulespec scenario PACK`
and `rulespec test PACK` with its text, GitHub and JUnit reports."""
from __future__ import annotations

import argparse
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from interpreter.bots import BOTS
from rulespec import __version__
from rulespec.cli import BOTS_HELP, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"
PASSING = PACKS / "packtest_fixture"
FAILING = PACKS / "packtest_fixture_failing"
FAILING_SCENARIO = "annex_ravenna_wrongly_free.yaml"


def run(capsys, *args):
    """(exit code, stdout, stderr) of `rulespec ARGS`, in process."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as e:          # argparse: --help, --version, usage errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ the pack, positional
def test_play_takes_the_pack_as_first_argument_and_pack_still_works(capsys):
    code, positional, _ = run(capsys, "play", "wars_of_italy", "--seed", "3", "--quiet")
    assert code == 0, positional
    code, option, _ = run(capsys, "play", "--pack", "wars_of_italy", "--seed", "3", "--quiet")
    assert code == 0 and option == positional
    # the 2-player game is played with its own player count (not the default 4) ...
    header = next(line for line in positional.splitlines() if "category" in line)
    assert len(re.findall(r"\b(red|yellow|green|blue|purple)\b", header)) == 2, header
    # ... and it is not the base game
    code, base, _ = run(capsys, "play", "--seed", "3", "--quiet", "--players", "3")
    assert code == 0 and base != positional


def test_bench_takes_the_pack_as_first_argument(capsys):
    code, out, _ = run(capsys, "bench", "wars_of_italy", "--games", "1")
    assert code == 0 and "pack wars_of_italy" in out and "2 players" in out, out
    code, alias, _ = run(capsys, "bench", "--pack", "wars_of_italy", "--games", "1")
    assert code == 0 and "pack wars_of_italy" in alias
    code, default, _ = run(capsys, "bench", "--games", "1")
    assert code == 0 and "pack base_3to5" in default and "4 players" in default


def test_two_different_packs_is_a_usage_error(capsys):
    code, _, err = run(capsys, "play", "wars_of_italy", "--pack", "base_3to5")
    assert code == 2 and "RS030" in err and "two packs given" in err
    code, _, _ = run(capsys, "bench", "wars_of_italy", "--pack", "wars_of_italy", "--games", "1")
    assert code == 0                  # the same pack twice is no contradiction


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"rulespec {__version__}"


# ------------------------------------------------------------------ help
def _subparsers(parser):
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_every_option_of_every_command_has_help_text():
    parser = build_parser()
    commands = _subparsers(parser)
    assert {"validate", "map", "play", "replay", "scenario", "test", "bench", "golden"} <= set(commands)
    missing = [f"rulespec {' '.join(a.option_strings) or a.dest}" for a in parser._actions if not a.help]
    for name, sub in commands.items():
        missing += [f"rulespec {name} {' '.join(a.option_strings) or a.dest}" for a in sub._actions
                    if not a.help or a.help == argparse.SUPPRESS]
    assert not missing, f"options without help text: {missing}"
    for name, sub in commands.items():
        sub.format_help()                # every help renders (no stray % in a help text)


def test_the_bots_are_all_explained_in_the_help_and_the_docs():
    assert set(BOTS_HELP) == set(BOTS), "cli.BOTS_HELP and interpreter.bots.BOTS must name the same bots"
    commands = _subparsers(build_parser())
    for name in ("play", "bench"):
        text = commands[name].format_help()
        for bot in BOTS:
            assert re.search(rf"- {bot}: \w", text), (name, bot)
    docs = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for bot in BOTS:
        assert re.search(rf"^## `{bot}`", docs, re.M), f"docs/bots.md has no section for {bot}"
        assert f"`{bot}`" in readme, f"README.md does not name the bot {bot}"


# ------------------------------------------------------------------ scenario PACK
def test_scenario_runs_a_packs_own_scenarios(capsys):
    code, out, _ = run(capsys, "scenario", PASSING)
    assert code == 0, out
    assert "annex_ravenna_costs_three_crowns.yaml" in out and "1 passed, 0 failed" in out
    code, out, _ = run(capsys, "scenario", "packtest_fixture_failing", "--pack-path", PACKS)   # by id
    assert code == 1
    assert re.search(rf"{FAILING_SCENARIO}:10: cities\.ravenna\.controller: expected 'red', got None", out), out


def test_scenario_runs_the_yaml_of_a_folder_and_files(capsys, tmp_path):
    shutil.copy(ROOT / "tests" / "scenarios" / "annex_ravenna.yaml", tmp_path / "a.yaml")
    shutil.copy(ROOT / "tests" / "scenarios" / "annex_own_agent.yaml", tmp_path / "b.yaml")
    (tmp_path / "notes.txt").write_text("not a scenario")
    code, out, _ = run(capsys, "scenario", tmp_path)
    assert code == 0 and "2 passed, 0 failed" in out, out
    code, out, _ = run(capsys, "scenario", tmp_path / "a.yaml", PASSING)
    assert code == 0 and "2 passed, 0 failed" in out, out


def test_scenario_without_scenarios_fails(capsys, tmp_path):
    code, out, _ = run(capsys, "scenario", tmp_path)
    assert code == 1 and "RS003" in out and "no scenario files" in out
    code, out, _ = run(capsys, "scenario", "wars_of_italy")
    assert code == 1 and "RS003" in out and "has no scenarios" in out


def test_a_scenario_in_a_packs_scenarios_folder_runs_on_that_pack(tmp_path):
    from interpreter.scenario import load_scenario, scenario_pack
    own = PASSING / "scenarios" / "annex_ravenna_costs_three_crowns.yaml"
    assert scenario_pack(own, load_scenario(own)) == PASSING.resolve()
    # a `scenarios/` folder that is not in a pack, or a file elsewhere: base_3to5, as before
    (tmp_path / "scenarios").mkdir()
    loose = tmp_path / "scenarios" / "x.yaml"
    shutil.copy(own, loose)
    assert scenario_pack(loose, load_scenario(loose)).name == "base_3to5"
    # `pack:` given wins over the folder
    named = PASSING / "scenarios" / "annex_ravenna_costs_three_crowns.yaml"
    text = named.read_text(encoding="utf-8").replace("players:", "pack: wars_of_italy\nplayers:", 1)
    other = tmp_path / "pack_named"
    shutil.copytree(PASSING, other)
    (other / "scenarios" / named.name).write_text(text, encoding="utf-8")
    path = other / "scenarios" / named.name
    assert scenario_pack(path, load_scenario(path)).name == "wars_of_italy"


# ------------------------------------------------------------------ rulespec test
def test_rulespec_test_passes_on_the_base_game(capsys):
    code, out, _ = run(capsys, "test", "base_3to5", "--playouts", "1", "--seed", "5")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("ok    validate base_3to5: 0 error(s)")
    games = [line for line in lines if " playout " in line]
    assert [re.search(r"(\d) players, seed 5", g).group(1) for g in games] == ["3", "4", "5"], games
    assert all(g.startswith("ok ") and "ended by the rules" in g for g in games)
    assert lines[-1] == "base_3to5: 4 passed, 0 failed, 0 skipped — ok"


def test_rulespec_test_runs_the_packs_scenarios(capsys, tmp_path):
    out_file = tmp_path / "report.xml"
    code, out, _ = run(capsys, "test", PASSING, "--playouts", "0", "--format", "junit", "--out", out_file)
    assert code == 0, out
    assert out.strip().endswith(f"(report written to {out_file})")
    suite = ET.parse(out_file).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("classname") for c in cases] == ["packtest_fixture.validate", "packtest_fixture.scenario"]
    assert cases[1].get("name").endswith("annex_ravenna_costs_three_crowns.yaml")
    assert suite.get("failures") == "0" and list(suite.iter("failure")) == []


def test_rulespec_test_fails_on_a_failing_scenario_text(capsys):
    code, out, _ = run(capsys, "test", FAILING, "--playouts", "0")
    assert code == 1
    assert re.search(rf"^FAIL  scenario \S*{FAILING_SCENARIO}: Annexing Ravenna is free", out, re.M), out
    assert out.splitlines()[-1] == "packtest_fixture_failing: 1 passed, 1 failed, 0 skipped — FAILED"


def test_rulespec_test_github_names_the_failing_scenario(capsys):
    code, out, _ = run(capsys, "test", FAILING, "--playouts", "0", "--format", "github")
    assert code == 1
    [ann] = [line for line in out.splitlines() if line.startswith("::")]
    m = re.fullmatch(r"::error file=(\S+),line=(\d+)::scenario: (.*)", ann)
    assert m, ann
    assert m.group(1).endswith(f"scenarios/{FAILING_SCENARIO}") and not Path(m.group(1)).is_absolute()
    assert m.group(2) == "10" and "expected 'red', got None" in m.group(3)


def test_rulespec_test_junit_names_the_failing_scenario(capsys):
    code, out, _ = run(capsys, "test", FAILING, "--playouts", "1", "--format", "junit")
    assert code == 1
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "1", "0")
    failed = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert len(failed) == 1
    case = failed[0]
    assert case.get("classname") == "packtest_fixture_failing.scenario"
    assert case.get("name").endswith(FAILING_SCENARIO) and case.get("line") == "10"
    assert "expected 'red', got None" in case.find("failure").get("message")
    playouts = [c for c in suite.findall("testcase") if c.get("classname").endswith(".playout")]
    assert [c.get("name") for c in playouts] == ["3 players, seed 0", "4 players, seed 0", "5 players, seed 0"]


def test_rulespec_test_on_a_broken_pack(capsys):
    code, out, _ = run(capsys, "test", PACKS / "broken" / "rs105_unknown_symbol_in_cost", "--format", "github")
    assert code == 1
    assert re.search(r"^::error file=\S*rules/more\.rules,line=3,col=11::RS105 ", out, re.M), out


def test_rulespec_test_skips_what_a_broken_pack_cannot_run(tmp_path, capsys):
    pack = tmp_path / "broken_with_scenarios"
    shutil.copytree(PASSING, pack)
    (pack / "pack.yaml").write_text((pack / "pack.yaml").read_text().replace("id: packtest_fixture",
                                                                            "id: broken_with_scenarios"))
    (pack / "more.rules").write_text('card bishop_two "Bishop" {\n  type: family\n  cost: 3 florn\n}\n')   # RS105
    code, out, _ = run(capsys, "test", pack, "--format", "junit", "--playouts", "1")
    assert code == 1
    suite = ET.fromstring(out).find("testsuite")
    kinds = {c.get("classname").split(".")[-1]: c for c in suite.findall("testcase")}
    assert kinds["validate"].find("failure") is not None
    assert kinds["scenario"].find("skipped") is not None


def test_rulespec_test_usage_errors(capsys, tmp_path):
    code, _, err = run(capsys, "test", "no_such_pack")
    assert code == 2 and "RS030" in err and "no pack 'no_such_pack' found" in err
    code, _, _ = run(capsys, "test", "--format", "xml")
    assert code == 2
    code, _, err = run(capsys, "test", "--out", tmp_path / "no" / "such" / "r.xml")
    assert code == 2 and "RS006" in err


def test_junit_holds_any_text_a_pack_gives():
    from rulespec.packtest import Check, Finding, PackTest, junit_report
    bad = "control \x01\x1b[31m <tag> & \"quotes\""
    result = PackTest("p", [Check("scenario", "s.yaml", "failed", "x", [Finding("s.yaml", 2, 0, bad, bad)])])
    case = ET.fromstring(junit_report(result)).find("testsuite/testcase")
    assert "<tag> & \"quotes\"" in case.find("failure").get("message")


def test_rulespec_test_reports_root_causes_like_validate(capsys, tmp_path):
    """A file that fails to load is one finding (counting what follows from it), as in
    `rulespec validate` (rulespec.diagnostic_order), not one per dangling name."""
    from content import PACKS_DIR
    pack = tmp_path / "base_copy"
    shutil.copytree(PACKS_DIR / "base_3to5", pack)
    setup = pack / "setup.yaml"
    text = setup.read_text(encoding="utf-8")
    assert "  - id: blue\n    name: Blue\n" in text
    setup.write_text(text.replace("  - id: blue\n    name: Blue\n", "  - id: blue\n     name: Blue\n", 1),
                     encoding="utf-8")
    code, out, _ = run(capsys, "test", pack, "--format", "github", "--playouts", "1")
    assert code == 1
    [ann] = [line for line in out.splitlines() if line.startswith("::")]
    assert re.match(r"::error file=\S*setup\.yaml,line=\d+,col=\d+::RS001 ", ann), ann
    assert re.search(r"\(and \d+ more finding\(s\) caused by this", ann), ann
    code, out, _ = run(capsys, "test", pack, "--playouts", "1")
    assert code == 1 and "RS105" not in out and "caused by this" in out
