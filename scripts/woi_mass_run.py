#!/usr/bin/env python3
"""The Wars of Italy's mass run (issue 17's acceptance): seeded random 2-player games of
`wars_of_italy`, each played to its end with every pack constraint checked after every move
(Engine.apply), then a summary of how they ended.

    nice python3 scripts/woi_mass_run.py --games 500            # seeds 0..499
    nice python3 scripts/woi_mass_run.py --games 100 --seed 1000

A game "ends by the rules" when an end condition fired: France holding Naples at the end of a
Round (its automatic victory), or the end of Round 21 (then the higher total wins, Naples on a
tie). Anything else — a state with no legal move, the pack's bound reached, an exception, a
refused move — is a failure, listed with its seed; exit 1 then. It also counts what the
Major Cities became (allied to whom, eliminated), to show the variant's rules in play.
About 2 CPU-seconds per game.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter.api import Engine            # noqa: E402
from interpreter.bots import play_game        # noqa: E402
from rulespec.pack import load_pack           # noqa: E402

FRANCE, NAPLES = "blue", "yellow"
MAJOR_CITIES = {"red": "Florence", "green": "Venice", "white": "Rome"}
# the variant's events (content/wars_of_italy) and the base war events, counted over all games
WATCHED = ("alliance_concluded", "influence_gained", "influence_lost", "major_city_eliminated",
           "battle_fought", "troop_retreated", "trophy_taken")


def how_it_ended(engine, state) -> str:
    """France's instant win, or who won on points after Round 21."""
    if state["cities"]["naples"]["controller"] == FRANCE:
        return "France wins at once (holds Naples at the end of a Round)"
    winners = engine.winners(state)
    if winners == [NAPLES]:
        return "Naples on points (ties included)"
    if winners == [FRANCE]:
        return "France on points"
    return f"other: winners {winners}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bot", default="random")
    args = ap.parse_args(argv)
    engine = Engine(load_pack("wars_of_italy"))
    endings, fates, rounds, failures, seen = Counter(), Counter(), Counter(), [], Counter()

    def count_events(turn, move, events, state):
        for e in events or ():
            name = e.get("event")
            if name in WATCHED:
                seen[name] += 1
            elif name == "siege_resolved" and e.get("defender") in MAJOR_CITIES:
                seen[f"siege of a Major City's City ({e.get('result')})"] += 1

    ties = 0
    cpu = time.process_time()
    for seed in range(args.seed, args.seed + args.games):
        try:
            state, moves = play_game(engine, 2, seed, args.bot, on_move=count_events)
        except Exception as e:        # a refused move or a broken constraint: the engine says why
            failures.append((seed, f"{type(e).__name__}: {e}"))
            continue
        if not engine.is_over(state) or state.get("unfinished"):
            failures.append((seed, f"no end condition (Round {state['year']}, {len(moves)} moves)"))
            continue
        endings[how_it_ended(engine, state)] += 1
        rounds[state["year"]] += 1
        scores = engine.scores(state)
        ties += scores[FRANCE]["total"] == scores[NAPLES]["total"]
        for m, name in MAJOR_CITIES.items():
            side = state["p"][m]
            fate = ("eliminated" if side.get("eliminated") else
                    f"allied to {'France' if side.get('allied_to') == FRANCE else 'Naples'}" if side.get("allied_to")
                    else "independent")
            fates[(name, fate)] += 1
    cpu = time.process_time() - cpu
    played = args.games - len(failures)
    print(f"wars_of_italy: {args.games} seeded {args.bot} 2-player games (seeds {args.seed}..{args.seed + args.games - 1}), "
          f"{cpu:.0f} CPU-seconds")
    print(f"ended by the rules, every constraint holding after every move: {played}")
    for what, n in endings.most_common():
        print(f"  {what:58} {n:4}  ({100 * n / max(played, 1):.1f}%)")
    print(f"  (equal totals, won by Naples: {ties})")
    print("last Round: " + ", ".join(f"{r}: {n}" for r, n in sorted(rounds.items())))
    print("the Major Cities at the end:")
    for name in MAJOR_CITIES.values():
        row = {f: n for (m, f), n in fates.items() if m == name}
        print(f"  {name:9} " + ", ".join(f"{f} {n}" for f, n in sorted(row.items())))
    print("events over all games: " + ", ".join(f"{k} {n}" for k, n in sorted(seen.items())))
    if failures:
        print(f"FAILED: {len(failures)} game(s)")
        for seed, why in failures[:20]:
            print(f"  seed {seed}: {why}  (rulespec play wars_of_italy --seed {seed} --bots {args.bot})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
