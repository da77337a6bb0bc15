"""`rulespec bench`: the engine's speed, in CPU time, and against another revision.

CPU time (time.process_time), not wall-clock time: on a machine shared with other work the
wall clock measures the others too. A calibration figure (a fixed pure-Python loop, timed the
same way) says how fast this Python on this machine is right now, so runs on different
machines or under different load can be compared: `decisions_per_calibration` divides it out.

`--against REV` extracts REV of this git checkout (`git archive`) into a temporary folder,
and runs the same measurement (rulespec/bench_worker.py, the same code for both) in fresh
processes, this checkout and REV in turn (A B A B ...), on the same seeds. It prints the ratio
of their decisions per CPU second and whether each game was the same move for move (the same
sha256 of the moves): where they differ, the two revisions do not play the same games, and the
ratio compares different work.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from . import bench_worker
from .errors import Diagnostic, RulespecError, Span

PROJECT = Path(__file__).resolve().parents[1]
CALIBRATION_LOOPS = 200_000


class BadRevision(Exception):
    """--against names no revision of this checkout (a usage error: the CLI places it)."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.message, self.hint = message, hint


def _calibration_work(n: int) -> int:
    """A fixed mix of what the engine does most: arithmetic, dict and list operations, calls."""
    table, acc, items = {}, 0, []
    for i in range(n):
        acc = (acc * 31 + i) % 1_000_003
        table[i & 1023] = acc
        if i & 7 == 0:
            items.append(table.get((i >> 3) & 1023, 0))
    return acc + len(items)


def calibrate(repeat: int = 3) -> float:
    """CPU seconds of the fixed loop, best of `repeat` (lower: a faster machine, or less load)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        _calibration_work(CALIBRATION_LOOPS)
        best = min(best, time.process_time() - t)
    return best


def summarise(run: dict, calibration: float, bots: str) -> dict:
    """The rates of one measurement (bench_worker.measure, or several merged)."""
    games = run["games"]
    cpu = sum(g["cpu_s"] for g in games) or 1e-9
    decisions = sum(g["decisions"] for g in games)
    n = max(len(games), 1)
    return {
        "pack": run["pack"], "players": run["players"], "bots": bots, "games": len(games),
        "cpu_s": round(cpu, 4), "wall_s": round(sum(g["wall_s"] for g in games), 4),
        "decisions": decisions,
        "decisions_per_s": round(decisions / cpu, 1),
        "games_per_s": round(len(games) / cpu, 4),
        "decisions_per_game": round(decisions / n, 1),
        "years_per_game": round(sum(g["year"] for g in games) / n, 2),
        "ended_by_rules": sum(1 for g in games if g["ended_by_rules"]),
        "load_cpu_s": round(run["load_cpu_s"], 4), "compile_cpu_s": round(run["compile_cpu_s"], 4),
        "calibration_cpu_s": round(calibration, 4),
        "decisions_per_calibration": round(decisions / cpu * calibration, 1),
        "engine_version": run.get("engine_version", "?"),
        "python": platform.python_version(),
        "move_hashes": {str(g["seed"]): g["moves_sha256"] for g in games},
    }


def spec_of(pack, players, games: int, seed: int, bot: str, search_path) -> dict:
    return {"pack": str(pack), "players": players, "seeds": list(range(seed, seed + games)), "bot": bot,
            "search_path": [str(p) for p in search_path or []]}


def run(spec: dict) -> dict:
    """Measure in this process (this checkout)."""
    calibration = calibrate()
    return summarise(bench_worker.measure(spec), calibration, spec["bot"])


def text(result: dict) -> str:
    r = result
    return (f"{r['games']} {r['bots']} games, {r['players']} players, pack {r['pack']}: "
            f"{r['cpu_s']:.2f} s CPU ({r['wall_s']:.2f} s wall), {r['decisions_per_s']:,.0f} decisions/s, "
            f"{r['games_per_s']:.2f} games/s (CPU), {r['decisions_per_game']:,.0f} decisions and "
            f"{r['years_per_game']:.1f} years per game, {r['ended_by_rules']}/{r['games']} ended by the rules\n"
            f"load {r['load_cpu_s']:.3f} s CPU, compile {r['compile_cpu_s']:.3f} s CPU; calibration "
            f"{r['calibration_cpu_s'] * 1000:.1f} ms CPU for a fixed Python loop ("
            f"{r['decisions_per_calibration']:,.0f} decisions per calibration unit: comparable across machines)")


# ------------------------------------------------------------------ --against REV
def _checkout(rev: str, into: Path) -> str:
    """REV of this project's git repository, extracted into `into`; its full commit id."""
    def git(*a, **kw):
        return subprocess.run(["git", "-C", str(PROJECT), *a], capture_output=True, check=False, **kw)
    found = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", text=True)
    if found.returncode != 0:
        raise BadRevision(f"--against '{rev[:80]}': no such revision in {PROJECT}",
                          "give a commit, branch or tag of this git checkout (e.g. main, HEAD~3)")
    commit = found.stdout.strip()
    archive = git("archive", "--format=tar", commit)
    if archive.returncode != 0:
        raise RulespecError(Diagnostic("RS030", f"--against '{rev[:80]}': git archive failed: "
                                                f"{archive.stderr.decode(errors='replace').strip()[:200]}",
                                       Span("<command line>"), "is git installed and is this a git checkout?"))
    tar_path = into.parent / "rev.tar"
    tar_path.write_bytes(archive.stdout)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    tar_path.unlink()
    return commit


def _measure_in(checkout: Path, spec: dict, env: dict) -> dict:
    """bench_worker.measure in a fresh Python process importing the project from `checkout`."""
    return _run_worker(checkout, spec, env, "the measurement",
                       "does that revision have the pack, the bot and the player count asked for?")[0]


def _run_worker(checkout: Path, spec: dict, env: dict, what: str, hint: str, prefix: list = ()) -> tuple:
    """(bench_worker.measure's result, the process's stderr) from a fresh Python process that
    imports the project from `checkout`, started under `prefix` (a profiler: valgrind)."""
    code = Path(bench_worker.__file__).read_text(encoding="utf-8")
    proc = subprocess.run([*prefix, sys.executable, "-c", code, json.dumps(dict(spec, checkout=str(checkout)))],
                          cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RulespecError(Diagnostic("RS030", f"{what} in {checkout} failed: {last[:300]}",
                                       Span("<command line>"), hint))
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    where = Path(out["engine_file"]).resolve()
    if not where.is_relative_to(checkout.resolve()):
        raise RulespecError(Diagnostic("RS030", f"{what} meant for {checkout} imported rulespec from "
                                                f"{where}", Span("<command line>"),
                                       "an installed rulespec shadows the checkout: report this"))
    return out, proc.stderr


def _merge(runs: list) -> dict:
    """Several rounds of the same games: CPU times added, the best load and compile time."""
    first = dict(runs[0])
    first["games"] = [g for r in runs for g in r["games"]]
    first["load_cpu_s"] = min(r["load_cpu_s"] for r in runs)
    first["compile_cpu_s"] = min(r["compile_cpu_s"] for r in runs)
    return first


def against(spec: dict, rev: str, rounds: int = 2, instructions: bool = False) -> dict:
    """This checkout (A) and REV (B) in turn, `rounds` times each, on the same seeds; with
    `instructions`, also the instructions each side executes (_instructions_in)."""
    tmp = Path(tempfile.mkdtemp(prefix="rulespec-bench-"))
    counted = None
    try:
        other = tmp / "checkout"
        other.mkdir()
        commit = _checkout(rev, other)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"        # nothing written into either checkout
        calibration = calibrate()
        runs = {"a": [], "b": []}
        for _ in range(rounds):
            runs["a"].append(_measure_in(PROJECT, spec, env))
            runs["b"].append(_measure_in(other, spec, env))
        calibration = min(calibration, calibrate())
        if instructions:
            counted = {"this": _instructions_in(PROJECT, spec, env), "against": _instructions_in(other, spec, env)}
            counted["ratio"] = round(counted["against"]["per_decision"] / max(counted["this"]["per_decision"], 1e-9), 3)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    a, b = (summarise(_merge(runs[k]), calibration, spec["bot"]) for k in ("a", "b"))
    same = [s for s, h in a["move_hashes"].items() if b["move_hashes"].get(s) == h]
    differ = [s for s in a["move_hashes"] if s not in same]
    per_round = sorted(_rate(ra["games"]) / max(_rate(rb["games"]), 1e-9) for ra, rb in zip(runs["a"], runs["b"]))
    return {"this": a, "against": b, "rev": rev, "commit": commit, "rounds": rounds,
            "ratio": round(a["decisions_per_s"] / max(b["decisions_per_s"], 1e-9), 3),
            "round_ratios": [round(x, 3) for x in per_round],
            "median_ratio": round(statistics.median(per_round), 3),
            "best_ratio": round(_rate(_least(runs["a"])) / max(_rate(_least(runs["b"])), 1e-9), 3),
            "same_games": same, "different_games": differ, "instructions": counted}


def _instructions_in(checkout: Path, spec: dict, env: dict) -> dict:
    """The machine instructions the games take in `checkout`, counted by valgrind (cachegrind,
    no cache simulation): the worker run with the games, less the same run without them (its
    imports, load and compile), both without the compiled-pack cache so that both load alike.
    Unlike CPU time, other programs on the machine do not change the count: on a shared
    machine the steadiest comparison of two revisions (about fifty times slower to measure)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RulespecError(Diagnostic("RS030", "--instructions needs valgrind, which is not installed",
                                       Span("<command line>"), "install valgrind (apt install valgrind), or leave "
                                                               "--instructions out: the CPU-time ratio stays"))
    # one seed for str hashing: with a random one, sets and dicts of strings are laid out and
    # walked differently each run, and the count of the same games varied by up to 2% (0.25%
    # with the seed fixed); the games themselves do not depend on it
    quiet = dict(env, RULESPEC_NO_CACHE="1", PYTHONHASHSEED="0")
    hint = "does valgrind run this Python (valgrind --version)?"

    def count(seeds: list) -> tuple:
        out, stderr = _run_worker(checkout, dict(spec, seeds=seeds), quiet, "counting instructions", hint,
                                  [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"])
        found = re.search(r"I\s+refs:\s+([\d,]+)", stderr)
        if found is None:
            raise RulespecError(Diagnostic("RS030", f"counting instructions in {checkout}: valgrind printed no "
                                                    "count", Span("<command line>"), hint))
        return int(found[1].replace(",", "")), sum(g["decisions"] for g in out["games"])
    setup, _ = count([])
    total, decisions = count(spec["seeds"])
    n = max(total - setup, 0)
    return {"instructions": n, "decisions": decisions, "per_decision": round(n / max(decisions, 1), 1)}


def _rate(games: list) -> float:
    return sum(g["decisions"] for g in games) / (sum(g["cpu_s"] for g in games) or 1e-9)


def _least(runs: list) -> list:
    """Each game at the least CPU time any round took for it: other programs on the machine only
    ever add time, so the least of several rounds is the steadiest estimate of a game's cost."""
    best = {}
    for r in runs:
        for g in r["games"]:
            if g["seed"] not in best or g["cpu_s"] < best[g["seed"]]["cpu_s"]:
                best[g["seed"]] = g
    return list(best.values())


def against_text(r: dict) -> str:
    a, b = r["this"], r["against"]
    lines = [f"this checkout: {text(a)}",
             f"{r['rev']} ({r['commit'][:12]}): {text(b)}",
             f"{r['rounds']} rounds each, interleaved (this, {r['rev']}, this, ...)",
             f"ratio: this checkout plays {r['ratio']:.3f}x the decisions per CPU second of {r['rev']}"]
    if r.get("round_ratios") and len(r["round_ratios"]) > 1:
        lines.append(f"round by round: median {r['median_ratio']:.3f}x (from {r['round_ratios'][0]:.3f}x to "
                     f"{r['round_ratios'][-1]:.3f}x); each game at its least CPU time of the {r['rounds']} rounds: "
                     f"{r['best_ratio']:.3f}x (the steadiest on a loaded machine)")
    c = r.get("instructions")
    if c:
        lines.append(f"instructions (valgrind; load and compile subtracted): this checkout "
                     f"{c['this']['per_decision']:,.0f} per decision, {r['rev']} {c['against']['per_decision']:,.0f}: "
                     f"{c['ratio']:.3f}x (the steadiest figure: other programs do not change it)")
    n = len(a["move_hashes"])
    if not r["different_games"]:
        lines.append(f"the games are the same move for move ({n}/{n} seeds: same sha256 of the moves)")
    else:
        lines.append(f"the games differ on seeds {', '.join(r['different_games'])} ({len(r['same_games'])}/{n} the "
                     f"same move for move): the two revisions do not play the same games, so the ratio compares "
                     f"different work")
    return "\n".join(lines)
