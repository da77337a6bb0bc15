"""One measurement of `rulespec bench`: load a pack, compile it, play games, in CPU time.

Self-contained on purpose: `rulespec bench --against REV` runs this very file's text
(`python -c`) inside another checkout of the project, whose own `rulespec` and `interpreter`
are imported (the first on sys.path), so both checkouts are measured by the same code. It
uses only what every revision has: `load_pack`, `Engine`, `play_game`. Nothing here may import
the project at module level.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time


def moves_sha256(moves: list) -> str:
    return hashlib.sha256("".join(m + "\n" for m in moves).encode("utf-8")).hexdigest()


def load_any(load_pack, ref: str, search_path):
    """`load_pack` of whichever revision is measured. Revisions before the pack search path
    (f4f46f1 and older) take the reference alone; they find bundled packs and folders, which is
    what a bench of a bundled pack needs, so they get the reference alone (a search path asked
    for cannot reach them: a pack extending a pack found only there fails to load, saying so)."""
    import inspect
    try:
        takes = len(inspect.signature(load_pack).parameters)
    except (TypeError, ValueError):          # not introspectable: today's two-argument form
        takes = 2
    return load_pack(ref, search_path) if takes >= 2 else load_pack(ref)


def measure(spec: dict) -> dict:
    """spec: pack, players, seeds, bot, search_path. CPU seconds (time.process_time) of the
    load, of compiling the rules, and of each game; per game its decisions, Year, whether the
    rules ended it, and the sha256 of its moves."""
    from interpreter.api import Engine
    from interpreter.bots import play_game
    from rulespec.pack import load_pack
    import rulespec

    t0 = time.process_time()
    pack = load_any(load_pack, spec["pack"], spec.get("search_path") or None)
    t1 = time.process_time()
    engine = Engine(pack)
    t2 = time.process_time()
    players = spec["players"] or (4 if 4 in pack.players or not pack.players else min(pack.players))
    games = []
    for seed in spec["seeds"]:
        w, c = time.perf_counter(), time.process_time()
        state, moves = play_game(engine, players, seed, spec["bot"])
        cpu, wall = time.process_time() - c, time.perf_counter() - w
        games.append({"seed": seed, "cpu_s": cpu, "wall_s": wall, "decisions": len(moves),
                      "year": state["year"], "ended_by_rules": not state.get("unfinished"),
                      "moves_sha256": moves_sha256(moves)})
    return {"pack": pack.id, "players": players, "load_cpu_s": t1 - t0, "compile_cpu_s": t2 - t1,
            "engine_version": getattr(rulespec, "__version__", "?"), "engine_file": rulespec.__file__,
            "games": games}


if __name__ == "__main__":          # run by `python -c` in a checkout: spec JSON in, result JSON out
    spec = json.loads(sys.argv[1])
    sys.path.insert(0, spec["checkout"])
    print(json.dumps(measure(spec)))
