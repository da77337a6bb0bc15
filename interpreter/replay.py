"""Game logs (JSON lines) and replay.

Line 1 is a header: {"rulespec_log": 1, "pack": id, "version": pack version, "engine": engine
version, "content_hash": the pack's content hash, "players": [...], "seed": s, "options": {...}}.
Each further line is one move: {"n": i, "player": p, "move": "...", "events": [...]}, where
`events` (left out when there are none, and in logs written before events existed) are the
pack's structured events of the move (interpreter/events.py; the account's text lines are not
stored: a replay rebuilds them, and they change with the wording of the rules). The last line is
{"final": sha256 of the canonical final state}; a log without it was cut short (a game that
stopped early) and replays only with allow_truncated. Every line is checked against
rulespec/schemas/log.schema.json. Replaying applies the moves to a new game and checks every
move is legal, that it records the logged events (when the line has them), and that the final
state matches. A log is written as the game goes (LogWriter).

`engine` (rulespec.__version__) and `content_hash` (Pack.content_hash(): every source file of
the pack and the packs it extends) are the log's provenance: when a replay fails, the error
says whether the engine or the pack's content changed since the game was logged. Logs written
before they were recorded have neither, and still replay.
"""
from __future__ import annotations

import hashlib
import json

from rulespec import __version__ as ENGINE_VERSION
from rulespec import limits
from rulespec.errors import Diagnostic, RulespecError, Span, source_line_at, undecodable_position
from rulespec.pack import _ID, find_in_search_path, load_pack
from rulespec.sandbox import check_path, read_bytes

from .events import structured
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


class LogWriter:
    """A game log written as the game goes, so that nothing is lost when the game stops early
    (an error, Ctrl-C): the file is opened (and so checked) before any work, the header is
    written when the game starts, each move as it is played, the final line at the end. A log
    without its final line is a game cut short: `replay` refuses it unless allow_truncated."""

    def __init__(self, path, span: Span | None = None):
        self.path = str(path)
        self.f = open_output(path, "game log", span)
        self.n = 0

    def header(self, engine, players, seed, options=None):
        self._line({"rulespec_log": 1, "pack": engine.pack.id, "version": engine.pack.version,
                    **provenance(engine), "players": list(players), "seed": seed, "options": options or {}})

    def move(self, player, move, events=None):
        """One move; `events`: what Engine.apply reported for it (only the structured ones
        are written)."""
        self.n += 1
        rec = {"n": self.n, "player": player, "move": move}
        done = structured(events or ())
        if done:
            rec["events"] = done
        self._line(rec)

    def finish(self, final_state):
        self._line({"final": state_hash(final_state)})
        self.close()

    def close(self):
        if not self.f.closed:
            self.f.close()

    def _line(self, rec):
        try:
            self.f.write(json.dumps(rec) + "\n")
            self.f.flush()
        except OSError as e:
            raise RulespecError(Diagnostic("RS006", f"cannot write the game log: {e.strerror or e}",
                                           Span(self.path), "check the disk and the folder's permissions")) from None


def open_output(path, what: str = "file", span: Span | None = None):
    """Open a file for writing, before any work is done (RS006 when it cannot be: a missing
    folder, a folder given as the file, no permission; RS005 for a path too long)."""
    where = span or Span(str(path))
    check_path(str(path), where, what)
    try:
        return open(path, "w", encoding="utf-8")
    except (OSError, ValueError) as e:
        raise RulespecError(Diagnostic("RS006", f"cannot write the {what} {str(path)[:200]!r}: "
                                                f"{getattr(e, 'strerror', None) or e}", where,
                                       "give a path in an existing folder where you may write")) from None


def write_log(path, engine, players, seed, options, moves_with_players, final_state=None):
    """A whole log at once (a game already played): header, moves, and the final line when
    the final state is given."""
    log = LogWriter(path)
    try:
        log.header(engine, players, seed, options)
        for p, mv in moves_with_players:
            log.move(p, mv)
        if final_state is not None:
            log.finish(final_state)
    finally:
        log.close()


_FAST_MOVE_KEYS = {"n", "player", "move", "events"}


def _is_move(rec) -> bool:
    """The usual move line, checked without jsonschema (most lines of a log; any JSON value is a
    valid event value, so an event needs only its name checked)."""
    return (type(rec) is dict and type(rec.get("move")) is str and 0 < len(rec["move"]) <= 1000
            and rec.keys() <= _FAST_MOVE_KEYS and (type(rec.get("n", 1)) is int and rec.get("n", 1) >= 1)
            and (rec.get("player") is None or type(rec.get("player")) is str)
            and ("events" not in rec or (type(rec["events"]) is list and len(rec["events"]) <= 10000 and all(
                type(e) is dict and type(e.get("event")) is str and _ID.fullmatch(e["event"])
                and len(e["event"]) <= 100 for e in rec["events"]))))


def _events_differ(logged: list, replayed: list) -> str:
    """'' or where the replayed events of a move depart from the logged ones."""
    for i, (a, b) in enumerate(zip(logged, replayed), 1):
        if a != b:
            return f"event {i} was logged as {json.dumps(a)[:200]}, replayed as {json.dumps(b)[:200]}"
    if len(logged) != len(replayed):
        return f"{len(logged)} events were logged, {len(replayed)} replayed"
    return ""


def _schema_problem(rec, definition: str) -> str:
    """What is wrong with one line, by the log schema's definition ('' if nothing)."""
    from rulespec.schema import load_schema
    import jsonschema
    schema = load_schema("log")
    v = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"})
    errors = sorted(v.iter_errors(rec), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return ""
    e = errors[0]
    where = "/".join(str(p) for p in e.absolute_path)
    if e.validator == "additionalProperties":
        return f"unexpected field: {e.message}"
    if e.validator == "required":
        return e.message
    return f"{where or 'the line'}: {e.message[:200]}"


def read_log(path, allow_truncated: bool = False):
    """(header, [(line number, move record)], final hash or None) of a game log, every line
    checked against rulespec/schemas/log.schema.json (RS401 at its line). The log must end
    with its final line, unless allow_truncated (a game that stopped early: a playout that
    failed, a game interrupted); its `pack` is an id, never a path (RS022)."""
    path_s = str(path)
    data = read_bytes(path, limit=limits.MAX_LOG_BYTES, what="game log")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = undecodable_position(data, e)
        raise RulespecError(Diagnostic("RS401", f"the game log is not UTF-8 text ({e.reason})",
                                       Span(path_s, line, col), "a game log is JSON lines, as written by "
                                                                "`rulespec play --log`")) from None
    header, moves, final, last = None, [], None, 0

    def bad(lineno, msg, hint='a move line is {"n": 1, "player": "red", "move": "..."}', col=1):
        return RulespecError(Diagnostic("RS401", msg, Span(path_s, lineno, col), hint,
                                        source_line=source_line_at(path_s, lineno, text)))

    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line:
            continue
        last = lineno
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise bad(lineno, f"log line is not JSON: {e.msg}", "each line of a game log is one JSON object",
                      e.colno) from None
        except (ValueError, RecursionError) as e:
            raise bad(lineno, f"log line is not JSON: {type(e).__name__}",
                      "each line of a game log is one JSON object") from None
        if not isinstance(rec, dict):
            raise bad(lineno, "a log line must be a JSON object")
        if final is not None:
            raise bad(lineno, "a line after the final line", "the final line ({\"final\": ...}) ends a log")
        if header is None:
            missing = [k for k in ("rulespec_log", "pack", "players", "seed") if k not in rec]
            if "rulespec_log" in missing:
                raise bad(lineno, "the first line of a game log must be its header", 'expected {"rulespec_log": 1, ...}')
            if missing:
                raise bad(lineno, f"the log header lacks {', '.join(missing)}",
                          'expected {"rulespec_log": 1, "pack": ..., "players": [...], "seed": ...}')
            pack = rec.get("pack")
            if isinstance(pack, str) and not _ID.fullmatch(pack):
                raise RulespecError(Diagnostic(
                    "RS022", f"the log names its pack by a path ('{pack[:100]}'): a log names a pack by its id",
                    Span(path_s, lineno, 1), "replay a game of your own pack with `rulespec replay LOG --pack FOLDER`",
                    source_line=source_line_at(path_s, lineno, text)))
            why = _schema_problem(rec, "header")
            if why:
                raise bad(lineno, f"the log header is malformed: {why}",
                          'expected {"rulespec_log": 1, "pack": ID, "players": [...], "seed": N, "options": {...}}')
            header = rec
        elif "final" in rec:
            why = _schema_problem(rec, "final")
            if why:
                raise bad(lineno, f"the final line is malformed: {why}", 'the final line is {"final": SHA256}')
            final = rec["final"]
        elif _is_move(rec):
            moves.append((lineno, rec))
        else:
            why = _schema_problem(rec, "move") or "not a move"
            raise bad(lineno, f"a malformed move line: {why}")
    if header is None:
        raise RulespecError(Diagnostic("RS401", "empty game log", Span(path_s, 1, 1),
                                       "a game log is written by `rulespec play --log`"))
    if final is None and not allow_truncated:
        raise RulespecError(Diagnostic(
            "RS401", "the game log ends without its final line: it was cut short",
            Span(path_s, last + 1, 1), "a log written by `rulespec play --log` ends with {\"final\": ...}; to replay "
                                       "a game that stopped early, add --allow-truncated"))
    return header, moves, final


def replay(path, engine=None, check: bool = True, allow_truncated: bool = False, search_path=None):
    """Rebuild the final state of a logged game; raises RulespecError on any mismatch.
    check=False skips the pack's constraints (for a game already checked move by move while
    it was played: the replay then only proves it rebuilds the same state, at about twice
    the speed). A failure says whether the engine or the pack's content changed since the
    game was logged (the header's provenance). The log's pack is found by its id (bundled,
    or in search_path / RULESPEC_PACK_PATH) unless `engine` is given; allow_truncated: a log
    without its final line replays as far as it goes."""
    from .api import Engine, IllegalMove, engine_for
    header, moves, final = read_log(path, allow_truncated)
    if engine is None:
        folder = find_in_search_path(header["pack"], search_path)
        if folder is None:
            raise RulespecError(Diagnostic("RS020", f"the log's pack '{header['pack']}' is neither bundled nor in the "
                                                    "search path", Span(str(path), 1, 1),
                                           "name its folder: `rulespec replay LOG --pack FOLDER` (or --pack-path DIR)"))
        engine = engine_for(str(folder)) if search_path is None else Engine(load_pack(folder, search_path))
    elif engine.pack.id != header["pack"]:
        raise RulespecError(Diagnostic("RS402", f"the log is a game of pack '{header['pack']}', not of "
                                                f"'{engine.pack.id}'", Span(str(path), 1, 1),
                                       "replay it with the pack it names"))
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
        done = [] if "events" in rec else None
        try:
            # without constraints nothing needs the old state: apply in place
            state = engine.apply(state, rec["move"], check=check, transactional=check, events=done)
        except IllegalMove as e:
            raise mismatch(f"move {rec.get('n')} '{rec['move']}' does not replay: {e.reason}",
                           Span(str(path), lineno, 1), "the log and the pack disagree") from None
        why = _events_differ(rec["events"], structured(done)) if done is not None else ""
        if why:
            raise mismatch(f"move {rec.get('n')} '{rec['move']}' replays with other events: {why}",
                           Span(str(path), lineno, 1), "the log and the pack disagree")
    if final is not None and state_hash(state) != final:
        raise mismatch("the replayed final state differs from the recorded one", Span(str(path), 1, 1),
                       "the engine or pack changed since the game was logged")
    return state
