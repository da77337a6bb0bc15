"""The sha256 of `state.dumps(initial_state(...))` and of `new_game(...)` for the bundled packs' setups, as JSON.

Stage 5 of the world-model plan (docs/design/world-model-plan.md) moves the setup from
interpreter/state.py into the pack (zone `initial:` expressions, the game's `prepare` block);
the stored layout must not change by one byte. tests/test_initial_state.py keeps the hashes
this script printed at the commit the stage started from (0a7c736):

    git worktree add --detach /tmp/base 0a7c736
    python3 scripts/initial_state_hashes.py --root /tmp/base

Without --root it measures the working copy it is run from.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

# (pack, colours in seat order, seed): 3, 4 and 5 players of the base game, and The Wars of Italy
CASES = [
    ("base_3to5", ["red", "yellow", "green"], 0),
    ("base_3to5", ["red", "yellow", "green", "blue"], 0),
    ("base_3to5", ["red", "yellow", "green", "blue", "white"], 0),
    ("base_3to5", ["white", "blue", "green", "yellow", "red"], 7),
    ("wars_of_italy", None, 0),
]


def case_id(pack: str, colours, seed: int) -> str:
    return f"{pack}:{','.join(colours) if colours else 'setup'}:{seed}"


def hashes() -> dict:
    from interpreter.api import engine_for
    from interpreter.state import dumps, initial_state, setup_for
    out = {}
    for pack, colours, seed in CASES:
        eng = engine_for(pack)
        if colours is None:
            n = eng.pack.players[0]
            colours = list(setup_for(eng.pack.data["setup"].data, n)["colours"])
            key = case_id(pack, None, seed)
        else:
            key = case_id(pack, colours, seed)
        st = initial_state(eng.rs, colours, seed)
        out[key] = hashlib.sha256(dumps(st).encode()).hexdigest()
        # and the state new_game gives (setup run, waiting for the first decision), without the
        # VM's frames: they hold program positions (block numbers, file:line), which any edit of
        # the pack's rules moves while the game stays the same
        ng = {k: v for k, v in eng.new_game(colours, seed).items() if k != "vm"}
        out["new_game " + key] = hashlib.sha256(dumps(ng).encode()).hexdigest()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", help="the checkout to measure (default: this one)")
    a = ap.parse_args(argv)
    root = Path(a.root or Path(__file__).resolve().parent.parent).resolve()
    sys.path.insert(0, str(root))
    got = hashes()
    import interpreter
    assert Path(interpreter.__file__).resolve().is_relative_to(root), interpreter.__file__
    print(json.dumps(got, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
