"""Dynamic validation: play seeded random games through the interpreter and report, as
validation errors with the seed and a replay log, any exception, broken constraint, state
with no legal move before the end, or game that does not end within the pack's bound.

Codes: RS301 exception / illegal state, RS302 constraint broken, RS303 no legal move,
RS304 no end within game.max_rounds.
"""
from __future__ import annotations

import os
import tempfile
import traceback

from rulespec import flow
from rulespec.errors import Diagnostic, RuleFault, RulespecError, Span, source_line_at


def _log_dir() -> str:
    d = os.path.join(tempfile.gettempdir(), "rulespec-playouts")
    os.makedirs(d, exist_ok=True)
    return d


def playout(engine, players: int, seed: int, max_moves: int = 100_000):
    """One random game. Returns (diagnostic or None, moves, final state)."""
    from interpreter.api import IllegalMove
    from interpreter.bots import RandomBot
    from interpreter.replay import write_log
    bot = RandomBot(seed)
    record = []
    state = None
    pack_span = Span(str(engine.pack.root / "pack.yaml"), 1, 1)

    def fail(code, msg, span=None, hint=""):
        path = os.path.join(_log_dir(), f"{engine.pack.id}-{players}p-seed{seed}.jsonl")
        try:
            write_log(path, engine, state["players"] if state else [], seed, {}, record)
        except Exception:
            path = "(no log)"
        # the log stops where the game failed: it has no final line
        return Diagnostic(code, f"{players} players, seed {seed}: {msg}", span or pack_span,
                          f"replay with `rulespec replay {path} --allow-truncated --pack {engine.pack.root}`" + hint,
                          source_line=source_line_at(span.file, span.line) if span is not None and span.line else "")

    try:
        state = engine.new_game(players, seed)
        while not engine.is_over(state):
            legal = engine.legal_moves(state)
            if not legal:
                pend = state["vm"]["pending"] or {}
                return fail("RS303", f"no legal move at year {state['year']} "
                                     f"({pend.get('prompt') or pend.get('kind')}, rule at {pend.get('at')})"), record, state
            mv = bot.choose(engine, state, legal)
            who = (state["vm"]["pending"] or {}).get("player")
            try:       # in place, as bots' games are (interpreter.bots.play_game)
                state = engine.apply(state, mv, transactional=False)
            except IllegalMove as e:
                code = "RS302" if "constraint" in e.reason.lower() else "RS301"
                return fail(code, f"legal move '{mv}' was refused: {e.reason}"), record, state
            record.append((who, mv))
            if len(record) > max_moves:
                return fail("RS304", f"no end after {max_moves} moves"), record, state
        if state.get("unfinished"):
            f = _bound_field(engine)
            return fail("RS304", f"the game did not end within {engine.rs.game['max_rounds']} "
                                f"{engine.rs.game['round_name'].lower()}s",
                        _bound_span(engine), f"; if long games are intended, raise `{f.name if f else 'max_rounds'}` "
                                             "here"), record, state
    except RuleFault as e:          # a fault of the rules (division by zero, a limit): where it is
        return fail(e.code, e.first.message, e.span if e.span.line else None, "; " + e.first.hint), record, state
    except RulespecError as e:
        return fail("RS301", e.first.message, e.span if e.span.line else None), record, state
    except Exception as e:      # an engine bug: report it as a finding, never crash the validator
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return fail("RS301", f"the engine raised {tb}"), record, state
    return None, record, state


def _bound_field(engine):
    """The field of the pack's `game` that bounds the rounds (`max_rounds`, or `max_years`), or None."""
    d = engine.rs.game.get("decl")
    return flow.game_field(d, "max_rounds") if d is not None else None


def _bound_span(engine):
    """Where the pack declares the bound (the `max_rounds` field of its `game`), for RS304."""
    d, f = engine.rs.game.get("decl"), _bound_field(engine)
    return f.span if f is not None else (d.span if d is not None else None)


def run_playouts(pack, n: int, seed: int = 0, summary: dict | None = None) -> list:
    """N seeded games per player count of the pack; returns the findings. With `summary`, also
    fills {players: {"games", "ended", "years"}}: how many games reached an end condition of the
    rules, and the Years each game lasted (for designers: how long bots' games are)."""
    from interpreter.api import Engine
    engine = Engine(pack)
    out = []
    for players in pack.players:
        row = {"games": 0, "ended": 0, "years": []}
        for i in range(n):
            d, _, state = playout(engine, players, seed + i)
            if d is not None:
                out.append(d)
            row["games"] += 1
            if state is not None:
                row["ended"] += d is None
                row["years"].append(state.get("year", 0))
        if summary is not None:
            summary[players] = row
    return out
