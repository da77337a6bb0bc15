"""The pack's evaluation of a position: how well placed each player is, as one number, for the
bots that search (`greedy_eval`, `mcts`: interpreter/search_bots.py).

A pack declares it as data, so a designer tunes the bots without Python:

    evaluation default "How well placed `player` is" {
      value: score + 2 * count(player.cities) + position(player, patronage_track)
    }

`score` is the player's total on the score pad (the pack's `scoring` rows); the rest is any
expression over the state for `player`, checked like every formula (positioned errors). A pack
may declare several, and a bot picks one by name (`mcts:evaluation=NAME`); without any, bots
fall back on the score plus the pack's `heuristic`s (what the `planner` bot uses). Not a rule:
only bots read it.
"""
from __future__ import annotations

import weakref

from rulespec.errors import Diagnostic, RulespecError, Span

from .playout_policy import PlayoutPolicy

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def per_engine(cls, engine, name):
    """The `cls` (a declaration bots read: an Evaluation, a Plan) of that name for this engine,
    compiled once (held no longer than the engine)."""
    per = _CACHE.get(engine)
    if per is None:
        per = _CACHE[engine] = {}
    got = per.get((cls, name))
    if got is None:
        got = per[(cls, name)] = cls(engine, name)
    return got


def declared(engine, kind: str, name, example: str) -> dict:
    """{id: declaration} of the pack's declarations of `kind`; RS301 naming them when `name`
    (a bot's knob) is not one of them."""
    decls = {d.id: d for d in engine.pack.of_kind(kind)}
    if name is not None and name not in decls:
        raise RulespecError(Diagnostic(
            "RS301", f"pack '{engine.pack.id}' declares no {kind} '{name}'", Span("<bot>"),
            (f"its {kind}s: " + ", ".join(sorted(decls))) if decls else
            f"declare one (`{example}`, docs/bots.md), or leave the knob out"))
    return decls


def in_reading_window(engine, state, read):
    """read(rt) in one read-only window of a runtime of `state`: what players own, what they
    can pay, is worked out once for every formula read there (Runtime.reading)."""
    rt = engine.runtime(state)
    opened = rt.reading()
    try:
        return read(rt)
    finally:
        rt.done_reading(opened)


def formula_failed(decl, field: str, what: str, player, e: Exception) -> RulespecError:
    """RS301 at the formula of a bots' declaration that failed (never a traceback)."""
    fv = decl.fields.get(field)
    return RulespecError(Diagnostic(
        "RS301", f"{what} failed for {player}: {type(e).__name__}: {e}", fv.span if fv is not None else decl.span,
        "guard the formula (if ... then ... else) so that it gives a value in every position"))


class Evaluation:
    """One of the pack's `evaluation`s, compiled once per engine; `values(state)` gives every
    player's value."""

    def __init__(self, engine, name: str | None = None):
        self.engine = engine
        decls = declared(engine, "evaluation", name, "evaluation NAME { value: ... }")
        if name is None:
            name = "default" if "default" in decls else (next(iter(decls)) if decls else None)
        self.name = name
        self.decl = decls.get(name) if name else None
        self.fn = engine.rs.fn(self.decl, "value", {"score": "number"}) if self.decl is not None else None
        self.quiet_fn = engine.rs.fn(self.decl, "quiet", {}) if self.decl is not None else None     # None: absent

    @classmethod
    def for_engine(cls, engine, name: str | None = None) -> "Evaluation":
        return per_engine(cls, engine, name)

    def value(self, state, player, rt=None) -> float:
        if self.fn is None:
            return PlayoutPolicy.for_engine(self.engine).value(state, player)
        eng = self.engine
        rt = rt or eng.runtime(state)
        env = {"player": player, "score": eng.total_score(state, player, rt)}
        rt.env = env        # what reads the deciding player (can_pay, ...) reads the valued one
        try:
            return float(self.fn(rt, env) or 0)
        except Exception as e:      # a pack's formula failed: say which, never a traceback
            raise formula_failed(self.decl, "value", f"evaluation '{self.decl.id}'", player, e) from None

    def is_quiet(self, state) -> bool:
        """Whether the position may be valued now: the pack's `quiet` (a chess engine's
        quiescence: a capture half made is not valued). Without one, always."""
        if self.quiet_fn is None:
            return True
        return in_reading_window(self.engine, state, self._quiet_in)

    def _quiet_in(self, rt) -> bool:
        env = rt.env = {"player": None}
        try:
            return bool(self.quiet_fn(rt, env))
        except Exception as e:      # a pack's formula failed: say which, never a traceback
            raise formula_failed(self.decl, "quiet", f"evaluation '{self.decl.id}'", None, e) from None

    def values(self, state, extra=None) -> dict:
        """{player: value} for every player of the game; `extra(rt, values)` adds to them in
        the same read-only window (a plan's progress: interpreter/plan.py)."""
        rt = self.engine.runtime(state)
        opened = rt.reading()       # only expressions run: what players own is worked out once
        try:
            out = {p: self.value(state, p, rt if self.fn is not None else None) for p in state["players"]}
            if extra is not None:
                extra(rt, out)
            return out
        finally:
            rt.done_reading(opened)
