"""`rulespec bench` (rulespec/bench.py): its figures are consistent with each other and with
the games it played, and --against compares two checkouts on the same games. Speed itself is
never asserted (docs/testing.md: speed is measured by bench, not by a timed test)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from interpreter.golden import DEFAULT_DIR, read_golden
from rulespec import bench
from rulespec.cli import main
from rulespec.errors import RulespecError

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def stored(pack: str, players: int, seed: int) -> dict:
    return next(g for g in read_golden(DEFAULT_DIR)["games"]
                if (g["pack"], g["players"], g["seed"], g["bot"]) == (pack, players, seed, "random"))


def test_bench_json_fields_agree_with_each_other_and_with_the_golden_games(capsys):
    code, out, _ = run(capsys, "bench", "wars_of_italy", "--games", "2", "--seed", "1", "--json")
    assert code == 0
    r = json.loads(out)
    assert (r["pack"], r["players"], r["bots"], r["games"]) == ("wars_of_italy", 2, "random", 2)
    games = [stored("wars_of_italy", 2, s) for s in (1, 2)]
    assert r["move_hashes"] == {str(s): g["moves_sha256"] for s, g in zip((1, 2), games)}
    assert r["decisions"] == sum(g["moves"] for g in games)
    assert r["decisions_per_game"] == pytest.approx(r["decisions"] / 2, abs=0.1)
    assert r["ended_by_rules"] == sum(g["ended_by_rules"] for g in games)
    assert r["years_per_game"] == pytest.approx(sum(g["year"] for g in games) / 2, abs=0.01)
    assert r["cpu_s"] > 0 and r["wall_s"] > 0
    assert r["decisions_per_s"] == pytest.approx(r["decisions"] / r["cpu_s"], rel=0.01)
    assert r["games_per_s"] == pytest.approx(2 / r["cpu_s"], rel=0.01)
    assert r["decisions_per_calibration"] == pytest.approx(r["decisions_per_s"] * r["calibration_cpu_s"], rel=0.01)
    for k in ("load_cpu_s", "compile_cpu_s", "calibration_cpu_s"):
        assert 0 < r[k] < 60, k


def test_bench_text_names_cpu_time_and_the_calibration(capsys):
    code, out, _ = run(capsys, "bench", "wars_of_italy", "--games", "1")
    assert code == 0
    assert "s CPU" in out and "decisions/s" in out and "calibration" in out and "load" in out and "compile" in out


def test_against_an_unknown_revision_is_a_usage_error(capsys):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    code, _, err = run(capsys, "bench", "--games", "1", "--against", "no_such_revision_here")
    assert code == 2 and "RS030" in err and "no_such_revision_here" in err and "Traceback" not in err


def test_against_head_plays_the_same_games_in_both_checkouts(capsys):
    if shutil.which("git") is None or subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                                     capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    code, out, _ = run(capsys, "bench", "wars_of_italy", "--games", "1", "--against", "HEAD", "--rounds", "1", "--json")
    assert code == 0
    r = json.loads(out)
    assert r["same_games"] == ["0"] and r["different_games"] == []
    assert r["this"]["move_hashes"] == r["against"]["move_hashes"] == {"0": stored("wars_of_italy", 2, 0)["moves_sha256"]}
    assert r["ratio"] == pytest.approx(r["this"]["decisions_per_s"] / r["against"]["decisions_per_s"], rel=0.01)


def test_against_says_which_games_differ(monkeypatch):
    """Two checkouts that play seed 1 differently: the report names it, and runs alternate."""
    calls = []

    def fake_measure(checkout, spec, env):
        side = "a" if checkout == bench.PROJECT else "b"
        calls.append(side)
        games = [{"seed": s, "cpu_s": 0.5, "wall_s": 1.0, "decisions": 100, "year": 10, "ended_by_rules": True,
                  "moves_sha256": f"{s}{'x' if side == 'b' and s == 1 else ''}"} for s in spec["seeds"]]
        return {"pack": "p", "players": 3, "load_cpu_s": 0.1, "compile_cpu_s": 0.01, "games": games}
    monkeypatch.setattr(bench, "_measure_in", fake_measure)
    monkeypatch.setattr(bench, "_checkout", lambda rev, into: "f" * 40)
    r = bench.against(bench.spec_of("p", 3, 3, 0, "random", []), "old", rounds=3)
    assert calls == ["a", "b"] * 3
    assert r["same_games"] == ["0", "2"] and r["different_games"] == ["1"]
    assert "differ on seeds 1" in bench.against_text(r)


def test_against_reports_round_ratios_and_the_least_time_of_each_game(monkeypatch):
    """Round by round ratios, their median, and the ratio of each game's least CPU time over the
    rounds: a round slowed down by other programs does not move the best ratio."""
    cpu = {"a": iter([1.0, 4.0, 1.2]), "b": iter([2.0, 2.0, 2.2])}       # A's 2nd round was disturbed

    def fake_measure(checkout, spec, env):
        side = "a" if checkout == bench.PROJECT else "b"
        t = next(cpu[side])
        games = [{"seed": s, "cpu_s": t, "wall_s": t, "decisions": 100, "year": 10, "ended_by_rules": True,
                  "moves_sha256": str(s)} for s in spec["seeds"]]
        return {"pack": "p", "players": 3, "load_cpu_s": 0.1, "compile_cpu_s": 0.01, "games": games}
    monkeypatch.setattr(bench, "_measure_in", fake_measure)
    monkeypatch.setattr(bench, "_checkout", lambda rev, into: "f" * 40)
    r = bench.against(bench.spec_of("p", 3, 2, 0, "random", []), "old", rounds=3)
    assert r["round_ratios"] == [0.5, pytest.approx(1.833, abs=1e-3), 2.0]
    assert r["median_ratio"] == pytest.approx(1.833, abs=1e-3)
    assert r["best_ratio"] == 2.0               # 1.0 s against 2.0 s for every game
    assert r["ratio"] == pytest.approx(1.0, rel=1e-3)       # the totals: 12.4 s CPU on each side
    assert "median 1.833x" in bench.against_text(r) and "2.000x" in bench.against_text(r)


def test_the_worker_loads_with_an_old_one_argument_load_pack():
    """Revisions before the pack search path (f4f46f1) have `load_pack(ref)`: the worker calls
    it with the reference alone, and today's `load_pack(ref, search_path)` with both."""
    from rulespec import bench_worker
    seen = []

    def old_load_pack(ref):
        seen.append(("old", ref))
        return "old pack"

    def new_load_pack(ref, search_path=None):
        seen.append(("new", ref, search_path))
        return "new pack"
    assert bench_worker.load_any(old_load_pack, "base_3to5", ["/x"]) == "old pack"
    assert bench_worker.load_any(new_load_pack, "base_3to5", ["/x"]) == "new pack"
    assert bench_worker.load_any(new_load_pack, "base_3to5", None) == "new pack"
    assert seen == [("old", "base_3to5"), ("new", "base_3to5", ["/x"]), ("new", "base_3to5", None)]


def test_instructions_subtract_the_setup_and_compare_per_decision(monkeypatch):
    """--instructions: valgrind's count of the run with the games, less the run without them,
    per decision; the ratio is REV's per decision over this checkout's."""
    counts = {("a", 0): 1_000, ("a", 2): 21_000, ("b", 0): 1_500, ("b", 2): 31_500}
    seen = []

    def fake_run(cmd, cwd, env, **kw):
        assert cmd[0] == "/usr/bin/valgrind" and "--tool=cachegrind" in cmd and env["RULESPEC_NO_CACHE"] == "1"
        assert env["PYTHONHASHSEED"] == "0"         # the same layout of str sets and dicts each run
        spec = json.loads(cmd[-1])
        side = "a" if Path(cwd) == bench.PROJECT else "b"
        seen.append((side, len(spec["seeds"])))
        games = [{"decisions": 100} for _ in spec["seeds"]]
        out = {"games": games, "engine_file": str(Path(cwd) / "rulespec" / "__init__.py")}
        return subprocess.CompletedProcess(cmd, 0, json.dumps(out) + "\n",
                                           f"==1== I   refs:      {counts[side, len(spec['seeds'])]:,}\n")
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    spec = bench.spec_of("p", 3, 2, 0, "random", [])
    this = bench._instructions_in(bench.PROJECT, spec, {})
    other = bench._instructions_in(Path("/elsewhere"), spec, {})
    assert seen == [("a", 0), ("a", 2), ("b", 0), ("b", 2)]
    assert this == {"instructions": 20_000, "decisions": 200, "per_decision": 100.0}
    assert other["per_decision"] == 150.0


def test_instructions_without_valgrind_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)
    with pytest.raises(RulespecError) as e:
        bench._instructions_in(bench.PROJECT, bench.spec_of("p", 3, 1, 0, "random", []), {})
    assert "valgrind" in e.value.diagnostics[0].message and e.value.diagnostics[0].hint


def test_instructions_without_against_is_a_usage_error(capsys):
    code, _, err = run(capsys, "bench", "--games", "1", "--instructions")
    assert code == 2 and "RS030" in err and "--against" in err and "Traceback" not in err
