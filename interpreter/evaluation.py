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


class Evaluation:
    """One of the pack's `evaluation`s, compiled once per engine; `values(state)` gives every
    player's value."""

    def __init__(self, engine, name: str | None = None):
        self.engine = engine
        decls = {d.id: d for d in engine.pack.of_kind("evaluation")}
        if name is not None and name not in decls:
            raise RulespecError(Diagnostic(
                "RS301", f"pack '{engine.pack.id}' declares no evaluation '{name}'", Span("<bot>"),
                ("its evaluations: " + ", ".join(sorted(decls))) if decls else
                "declare one (`evaluation NAME { value: ... }`, docs/bots.md), or leave the knob out"))
        if name is None:
            name = "default" if "default" in decls else (next(iter(decls)) if decls else None)
        self.name = name
        self.decl = decls.get(name) if name else None
        self.fn = engine.rs.fn(self.decl, "value", {"score": "number"}) if self.decl is not None else None

    @classmethod
    def for_engine(cls, engine, name: str | None = None) -> "Evaluation":
        per = _CACHE.get(engine)
        if per is None:
            per = _CACHE[engine] = {}
        ev = per.get(name)
        if ev is None:
            ev = per[name] = cls(engine, name)
        return ev

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
            fv = self.decl.fields.get("value")
            raise RulespecError(Diagnostic(
                "RS301", f"evaluation '{self.decl.id}' failed for {player}: {type(e).__name__}: {e}",
                fv.span if fv is not None else self.decl.span,
                "guard the formula (if ... then ... else) so that it gives a number in every position")) from None

    def values(self, state) -> dict:
        """{player: value} for every player of the game."""
        if self.fn is None:
            return {p: self.value(state, p) for p in state["players"]}
        rt = self.engine.runtime(state)
        opened = rt.reading()       # only expressions run: what players own is worked out once
        try:
            return {p: self.value(state, p, rt) for p in state["players"]}
        finally:
            rt.done_reading(opened)
