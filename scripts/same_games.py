#!/usr/bin/env python3
"""Do two checkouts play the same games? Issue 16's move-for-move check, outside CI.

Plays the same seeded bot games with this checkout and with another revision of the project
(checked out into a temporary git worktree), then compares, game by game, the hash of the moves
and the hash of the final state (the same hashes the golden corpus stores). A refactoring that
must not change the rules (the world model, the speed-ups) keeps every game equal.

    python3 scripts/same_games.py --rev 524384b --seeds 0-99 --players 3,4,5
    python3 scripts/same_games.py --rev 524384b --baseline /tmp/base.json   # reuse REV's results

Exit 0 when every game is the same, 1 when some differ (listed), 2 on usage errors. It costs
about half a CPU-second per 4-player random game per checkout.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside a checkout (its own interpreter package first on sys.path): one JSON line per game.
PLAYER = r"""
import json, sys
from interpreter.api import engine_for
from interpreter.golden import GameKey, play_one
pack, bot, counts, seeds = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
engine = engine_for(pack)
for n in counts:
    for seed in seeds:
        try:
            entry, _ = play_one(engine, GameKey(pack, n, seed, bot))
            out = {k: entry[k] for k in ("players", "seed", "moves", "moves_sha256", "final_state_sha256", "winners")}
        except Exception as e:  # one failing game is a difference, not the end of the check
            out = {"players": n, "seed": seed, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)
"""


def seeds_of(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def play(checkout: Path, pack: str, bot: str, counts: list[int], seeds: list[int]) -> dict:
    """The games as played by the checkout at `checkout`, keyed by (players, seed)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.run([sys.executable, "-c", PLAYER, pack, bot, json.dumps(counts), json.dumps(seeds)],
                          cwd=checkout, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the games could not be played in {checkout}:\n{proc.stderr[-2000:]}")
    games = {}
    for line in proc.stdout.splitlines():
        g = json.loads(line)
        games[f"{g['players']}:{g['seed']}"] = g
    return games


def play_rev(rev: str, *args) -> dict:
    with tempfile.TemporaryDirectory(prefix="same-games-") as tmp:
        where = Path(tmp) / "checkout"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(where), rev], check=True)
        try:
            return play(where, *args)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)], check=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", required=True, help="the revision to compare with (e.g. the commit the work started from)")
    ap.add_argument("--pack", default="base_3to5")
    ap.add_argument("--bot", default="random")
    ap.add_argument("--players", default="3,4,5", help="player counts, e.g. 3,4,5")
    ap.add_argument("--seeds", default="0-99", help="seeds, e.g. 0-99 or 1,5,9")
    ap.add_argument("--baseline", help="a JSON file of REV's games: read if it exists, else written")
    a = ap.parse_args(argv)
    counts, seeds = [int(n) for n in a.players.split(",")], seeds_of(a.seeds)
    base_file = Path(a.baseline) if a.baseline else None
    if base_file and base_file.exists():
        stored = json.loads(base_file.read_text())
        if stored.get("query") != [a.rev, a.pack, a.bot, counts, seeds]:
            print(f"{base_file} was written for other games; delete it or choose another file", file=sys.stderr)
            return 2
        before = stored["games"]
    else:
        before = play_rev(a.rev, a.pack, a.bot, counts, seeds)
        if base_file:
            base_file.write_text(json.dumps({"query": [a.rev, a.pack, a.bot, counts, seeds], "games": before}))
    after = play(ROOT, a.pack, a.bot, counts, seeds)
    differ = [k for k in before if before[k] != after.get(k)]
    for k in differ:
        print(f"differs: {a.pack} {k.replace(':', ' players, seed ')}: {before[k]} -> {after.get(k)}")
    print(f"{len(before) - len(differ)} of {len(before)} games the same as {a.rev} "
          f"({a.pack}, bot {a.bot}, players {a.players}, seeds {a.seeds})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
