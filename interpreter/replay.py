"""Game logs (JSON lines) and replay.

Line 1 is a header: {"rulespec_log": 1, "pack": id, "version": pack version, "engine": engine
version, "content_hash": the pack's content hash, "players": [...], "seed": s, "options": {...}}.
Each further line is one move: {"n": i, "player": p, "move": "..."}. The last line may be
{"final": sha256 of the canonical final state}. Replaying applies the moves to a new game and
checks every move is legal and the final state matches.

`engine` (rulespec.__version__) and `content_hash` (Pack.content_hash(): every source file of
the pack and the packs it extends) are the log's provenance: when a replay fails, the error
says whether the engine or the pack's content changed since the game was logged. Logs written
before they were recorded have neither, and still replay.
"""
from __future__ import annotations

import hashlib
import json

from rulespec import __version__ as ENGINE_VERSION
from rulespec.errors import Diagnostic, RulespecError, Span

from .state import dumps


def state_hash(state) -> str:
    return hashlib.sha256(dumps(state).encode()).hexdigest()


def moves_hash(moves) -> str:
    """sha256 of a move sequence: the moves as written in a log, each followed by a newline."""
    return hashlib.sha256("".join(f"{m}\n" for m in moves).encode()).hexdigest()


def provenance(engine) -> dict:
    """What a log or a golden file records about the code and content that produced it."""
    return {"engine": ENGINE_VERSION, "content_hash": engine.pack.content_hash()}


def provenance_note(recorded: dict, engine, subject: str = "the log", since: str = "it was logged") -> tuple[bool, str]:
    """(changed, sentence) comparing the recorded provenance (a log header, a golden file) with
    this engine and pack. changed is True when the engine version or the pack content differ
    (or were not recorded): the rules may have changed since the recording, so a mismatch is
    explained by that rather than by a fault of the recording."""
    now = provenance(engine)
    eng, content = recorded.get("engine"), recorded.get("content_hash")
    this = f"this is engine {now['engine']} / content {short(now['content_hash'])}"
    if not eng or not content:
        return True, (f"{subject} records no engine version or pack content (written before rulespec "
                      f"recorded them), {this}: the rules may have changed since {since}")
    what = [w for w, diff in (("the engine", eng != now["engine"]),
                              (f"the rules of {engine.pack.id}", content != now["content_hash"])) if diff]
    if what:
        return True, (f"{subject} was recorded with engine {eng} and pack content {short(content)}, "
                      f"{this}: {' and '.join(what)} changed since {since}")
    return False, (f"{subject} was recorded with this engine ({eng}) and this pack content "
                   f"({short(content)}): {subject} was altered, or the engine's code changed "
                   f"without a new version number")


def short(h) -> str:
    return f"{str(h)[:12]}…" if h else "?"


def write_log(path, engine, players, seed, options, moves_with_players, final_state=None):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"rulespec_log": 1, "pack": engine.pack.id, "version": engine.pack.version,
                            **provenance(engine),
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
            if not isinstance(rec, dict):
                raise RulespecError(Diagnostic("RS401", "a log line must be a JSON object", Span(str(path), lineno, 1),
                                               'a move line is {"n": 1, "player": "red", "move": "..."}'))
            if header is None:
                missing = [k for k in ("rulespec_log", "pack", "players", "seed") if k not in rec]
                if "rulespec_log" in missing:
                    raise RulespecError(Diagnostic("RS401", "the first line of a game log must be its header",
                                                   Span(str(path), lineno, 1), 'expected {"rulespec_log": 1, ...}'))
                if missing:
                    raise RulespecError(Diagnostic("RS401", f"the log header lacks {', '.join(missing)}",
                                                   Span(str(path), lineno, 1),
                                                   'expected {"rulespec_log": 1, "pack": ..., "players": [...], "seed": ...}'))
                header = rec
            elif "final" in rec:
                final = rec["final"]
            elif not isinstance(rec.get("move"), str):
                raise RulespecError(Diagnostic("RS401", "a move line needs a \"move\" string", Span(str(path), lineno, 1),
                                               'a move line is {"n": 1, "player": "red", "move": "..."}'))
            else:
                moves.append((lineno, rec))
    if header is None:
        raise RulespecError(Diagnostic("RS401", "empty game log", Span(str(path), 1, 1), ""))
    return header, moves, final


def replay(path, engine=None, check: bool = True):
    """Rebuild the final state of a logged game; raises RulespecError on any mismatch.
    check=False skips the pack's constraints (for a game already checked move by move while
    it was played: the replay then only proves it rebuilds the same state, at about twice
    the speed). A failure says whether the engine or the pack's content changed since the
    game was logged (the header's provenance)."""
    from .api import IllegalMove, engine_for
    header, moves, final = read_log(path)
    engine = engine or engine_for(header["pack"])
    if engine.pack.version != header.get("version"):
        raise RulespecError(Diagnostic("RS402", f"log was recorded with {header['pack']} {header.get('version')}, "
                                       f"this pack is {engine.pack.version}", Span(str(path), 1, 1),
                                       "replay with the pack version that recorded it"))

    def mismatch(message, span, hint):
        changed, note = provenance_note(header, engine)
        if changed:     # the likely cause: said in the message itself
            return RulespecError(Diagnostic("RS402", f"{message}; {note}", span, hint))
        return RulespecError(Diagnostic("RS402", message, span, f"{hint}; {note}"))

    try:
        state = engine.new_game(header["players"], header["seed"], header.get("options"))
    except (RulespecError, KeyError, TypeError, ValueError) as e:
        why = e.first.message if isinstance(e, RulespecError) else f"{type(e).__name__}: {e}"
        raise mismatch(f"the logged game cannot start: {why}", Span(str(path), 1, 1),
                       "the header's players, seed or options do not fit the pack") from None
    for lineno, rec in moves:
        try:
            # without constraints nothing needs the old state: apply in place
            state = engine.apply(state, rec["move"], check=check, transactional=check)
        except IllegalMove as e:
            raise mismatch(f"move {rec.get('n')} '{rec['move']}' does not replay: {e.reason}",
                           Span(str(path), lineno, 1), "the log and the pack disagree") from None
    if final is not None and state_hash(state) != final:
        raise mismatch("the replayed final state differs from the recorded one", Span(str(path), 1, 1),
                       "the engine or pack changed since the game was logged")
    return state
