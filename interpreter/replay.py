"""Game logs (JSON lines) and replay.

Line 1 is a header: {"rulespec_log": 1, "pack": id, "version": v, "players": [...], "seed": s,
"options": {...}}. Each further line is one move: {"n": i, "player": p, "move": "..."}. The last
line may be {"final": sha256 of the canonical final state}. Replaying applies the moves to a new
game and checks every move is legal and the final state matches.
"""
from __future__ import annotations

import hashlib
import json

from rulespec.errors import Diagnostic, RulespecError, Span

from .state import dumps


def state_hash(state) -> str:
    return hashlib.sha256(dumps(state).encode()).hexdigest()


def write_log(path, engine, players, seed, options, moves_with_players, final_state=None):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"rulespec_log": 1, "pack": engine.pack.id, "version": engine.pack.version,
                            "players": list(players), "seed": seed, "options": options or {}}) + "\n")
        for i, (p, mv) in enumerate(moves_with_players):
            f.write(json.dumps({"n": i + 1, "player": p, "move": mv}) + "\n")
        if final_state is not None:
            f.write(json.dumps({"final": state_hash(final_state)}) + "\n")


def read_log(path):
    header, moves, final = None, [], None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise RulespecError(Diagnostic("RS401", f"log line is not JSON: {e.msg}", Span(str(path), lineno, e.colno),
                                               "each line of a game log is one JSON object")) from None
            if header is None:
                if "rulespec_log" not in rec:
                    raise RulespecError(Diagnostic("RS401", "the first line of a game log must be its header",
                                                   Span(str(path), lineno, 1), 'expected {"rulespec_log": 1, ...}'))
                header = rec
            elif "final" in rec:
                final = rec["final"]
            else:
                moves.append((lineno, rec))
    if header is None:
        raise RulespecError(Diagnostic("RS401", "empty game log", Span(str(path), 1, 1), ""))
    return header, moves, final


def replay(path, engine=None, check: bool = True):
    """Rebuild the final state of a logged game; raises RulespecError on any mismatch.
    check=False skips the pack's constraints (for a game already checked move by move while
    it was played: the replay then only proves it rebuilds the same state, at about twice
    the speed)."""
    from .api import IllegalMove, engine_for
    header, moves, final = read_log(path)
    engine = engine or engine_for(header["pack"])
    if engine.pack.version != header.get("version"):
        raise RulespecError(Diagnostic("RS402", f"log was recorded with {header['pack']} {header.get('version')}, "
                                       f"this pack is {engine.pack.version}", Span(str(path), 1, 1),
                                       "replay with the pack version that recorded it"))
    state = engine.new_game(header["players"], header["seed"], header.get("options"))
    for lineno, rec in moves:
        try:
            # without constraints nothing needs the old state: apply in place
            state = engine.apply(state, rec["move"], check=check, transactional=check)
        except IllegalMove as e:
            raise RulespecError(Diagnostic("RS402", f"move {rec.get('n')} '{rec['move']}' does not replay: {e.reason}",
                                           Span(str(path), lineno, 1), "the log and the pack disagree")) from None
    if final is not None and state_hash(state) != final:
        raise RulespecError(Diagnostic("RS402", "the replayed final state differs from the recorded one",
                                       Span(str(path), 1, 1), "the engine or pack changed since the game was logged"))
    return state
