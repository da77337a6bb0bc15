"""The bot ladder: seeded games of one stronger bot against weaker ones, seats rotated, with
win rates and 95% intervals, game lengths and what happened (structured events, never text).

    python3 scripts/ladder.py --strong greedy_eval --weak random --games 100 --players 4 \
        --out ladder.json [--pack base_3to5] [--first-seed 0] [--max-years N]

Resumable: games already in --out (same rung, same seed) are skipped, and each game is written
as soon as it ends. Rungs played in parallel (several processes, each its own --out and
--first-seed) are put together with `--merge A.json B.json --out ladder.json` (`--tag COMMIT`
files them as new rungs beside earlier measurements of bots with the same names). Outside CI: a rung of 100 games with `mcts` takes CPU-hours (docs/bots.md).
A shared win (a tie on the total and the tie-break) counts 1/k to each of the k winners.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interpreter.api import engine_for          # noqa: E402
from interpreter.bots import play_game          # noqa: E402
from interpreter.events import structured       # noqa: E402

COUNTED = ("siege_resolved", "battle_fought", "troop_retreated", "alliance_formed")


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def play_one(engine, strong, weak, players, seed, seat, options):
    specs = [weak] * players
    specs[seat] = strong
    counts = collections.Counter()
    per_side = collections.defaultdict(collections.Counter)
    fights = []         # each Siege and Battle with its Year: what a count alone does not say

    def on_move(turn, move, events, state):
        side = (turn["pending"] or {}).get("player")
        per_side[side]["decisions"] += 1
        for e in structured(events):
            k = e["event"]
            if k in ("siege_resolved", "battle_fought"):
                fights.append({"year": turn["year"], **e})
            if k == "siege_resolved":
                counts["sieges_won" if e.get("result") == "won" else "sieges_lost"] += 1
            elif k in COUNTED:
                counts[k] += 1
    t = time.process_time()
    state, moves = play_game(engine, players, seed, specs, on_move=on_move, options=options)
    colours = state["players"]
    winners = engine.winners(state)
    return {"seed": seed, "seat": seat, "strong_colour": colours[seat], "specs": specs,
            "winners": winners, "strong_share": (1 / len(winners)) if colours[seat] in winners else 0.0,
            "years": state["year"], "decisions": len(moves), "ended_by_rules": not state.get("unfinished"),
            "decisions_by_bot": {specs[i]: per_side[c]["decisions"] for i, c in enumerate(colours) if i == seat}
            | {"weak_mean": sum(per_side[c]["decisions"] for i, c in enumerate(colours) if i != seat) / (players - 1)},
            "events": dict(counts), "fights": fights, "cpu_seconds": round(time.process_time() - t, 2)}


def _strong_decisions(g) -> float:
    """The decisions made by the strong seat (the entry of decisions_by_bot that is not the
    weak seats' mean)."""
    return sum(v for k, v in g.get("decisions_by_bot", {}).items() if k != "weak_mean")


def summary(games: list) -> dict:
    n = len(games)
    if not n:
        return {"games": 0}
    wins = sum(g["strong_share"] for g in games)
    lo, hi = wilson(wins, n)
    ev = collections.Counter()
    for g in games:
        ev.update(g["events"])
    return {"games": n, "strong_win_rate": round(wins / n, 3), "ci95": [round(lo, 3), round(hi, 3)],
            "mean_years": round(sum(g["years"] for g in games) / n, 1),
            "mean_decisions": round(sum(g["decisions"] for g in games) / n, 1),
            "ended_by_rules": sum(1 for g in games if g.get("ended_by_rules", True)),
            "per_game": {k: round(v / n, 2) for k, v in sorted(ev.items())},
            "games_with": {k: sum(1 for g in games if g["events"].get(k)) for k in sorted(ev)},
            "mean_decisions_strong_seat": round(sum(_strong_decisions(g) for g in games) / n, 1),
            "mean_decisions_weak_seat": round(sum(g["decisions_by_bot"]["weak_mean"] for g in games
                                                  if "decisions_by_bot" in g) / n, 1),
            "cpu_seconds": round(sum(g["cpu_seconds"] for g in games), 1),
            "cpu_seconds_per_game": round(sum(g["cpu_seconds"] for g in games) / n, 1)}


def merge(paths: list, out: Path, tag: str | None = None) -> dict:
    """The rungs of several ladder files in one (games of the same rung and seed once). With
    `tag` (a commit, say) the merged rungs are filed as `RUNG [tag]`, beside those of other
    bots of the same names already in `out`, whose seeds would otherwise hide theirs."""
    data = json.loads(out.read_text()) if out.exists() else {"rungs": {}}
    for path in paths:
        for rung_id, rung in json.loads(Path(path).read_text())["rungs"].items():
            if tag:
                rung_id = f"{rung_id} [{tag}]"
            into = data["rungs"].setdefault(rung_id, {"games": []})
            seeds = {g["seed"] for g in into["games"]}
            into["games"] += [g for g in rung["games"] if g["seed"] not in seeds]
    for rung in data["rungs"].values():
        rung["games"].sort(key=lambda g: g["seed"])
        rung["summary"] = summary(rung["games"])
    out.write_text(json.dumps(data, indent=1))
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strong", help="the bot in one seat, with knobs: mcts:iterations=32")
    ap.add_argument("--weak", help="the bot in the other seats")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--pack", default="base_3to5")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--max-years", type=int, default=None, help="a lower Year bound (option max_years)")
    ap.add_argument("--out", default="ladder.json")
    ap.add_argument("--merge", nargs="+", metavar="FILE", help="put these ladder files together into --out")
    ap.add_argument("--tag", help="with --merge: file the merged rungs as 'RUNG [TAG]' (e.g. the bots' commit)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    if a.merge:
        data = merge(a.merge, out, a.tag)
        print(json.dumps({k: r["summary"] for k, r in data["rungs"].items()}, indent=1))
        return 0
    data = json.loads(out.read_text()) if out.exists() else {"rungs": {}}
    if not (a.strong and a.weak):
        ap.error("--strong and --weak are required (unless --merge)")
    rung_id = f"{a.pack} {a.players}p: {a.strong} vs {a.weak}"
    rung = data["rungs"].setdefault(rung_id, {"games": []})
    done = {g["seed"] for g in rung["games"]}
    engine = engine_for(a.pack)
    options = {"max_years": a.max_years} if a.max_years else None
    for i in range(a.games):
        seed = a.first_seed + i
        if seed in done:
            continue
        # the strong seat rotates with the seed, so rungs split over processes stay balanced
        g = play_one(engine, a.strong, a.weak, a.players, seed, seed % a.players, options)
        rung["games"].append(g)
        rung["summary"] = summary(rung["games"])
        out.write_text(json.dumps(data, indent=1))
        print(f"seed {seed} seat {g['seat']}: winners {g['winners']} share {g['strong_share']:.2f} "
              f"{g['years']} Years {g['decisions']} decisions {g['cpu_seconds']} s", flush=True)
    rung["summary"] = summary(rung["games"])
    out.write_text(json.dumps(data, indent=1))
    print(json.dumps({rung_id: rung["summary"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
