"""A plan over several turns for the bots that search (`mcts:plan=NAME`): a goal the bot commits
to, and the pack's measure of how far it has come, added to its evaluation while it holds it.

A one-turn look-ahead cannot link moves that pay off only Years later (a Troop recruited in
Winter, moved in a later Spring, a Siege at the end of it: docs/bots.md). A pack declares the
plan as data, never a rule:

    plan war "Go to war on a City" {
      goals: [c for c in cities where c.controller != player]
      pick: ...            # how good `goal` is to commit to (the best is taken)
      progress: ...        # how far `player` has come towards `goal`, in Prestige Points
    }

The bot takes the best goal by `pick` when it holds none, keeps it across turns and Years while
the goal is still among `goals` (so a plan survives the Winter that prepares it), and values
positions with its evaluation plus `progress(goal)` for itself (the rivals keep the plain
evaluation). The bot knows neither the goals nor the measure: both come from the pack.
"""
from __future__ import annotations

import weakref

from rulespec.errors import Diagnostic, RulespecError, Span

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class Plan:
    """One of the pack's `plan`s, compiled once per engine."""

    def __init__(self, engine, name: str):
        decls = {d.id: d for d in engine.pack.of_kind("plan")}
        if name not in decls:
            raise RulespecError(Diagnostic(
                "RS301", f"pack '{engine.pack.id}' declares no plan '{name}'", Span("<bot>"),
                ("its plans: " + ", ".join(sorted(decls))) if decls else
                "declare one (`plan NAME { goals: ... progress: ... }`, docs/bots.md), or leave the knob out"))
        self.engine = engine
        self.decl = decls[name]
        scope = {"goal": "any"}
        self._goals = engine.rs.fn(self.decl, "goals", {})
        self._progress = engine.rs.fn(self.decl, "progress", scope)
        self._pick = engine.rs.fn(self.decl, "pick", scope) or self._progress

    @classmethod
    def for_engine(cls, engine, name: str) -> "Plan":
        per = _CACHE.get(engine)
        if per is None:
            per = _CACHE[engine] = {}
        if name not in per:
            per[name] = cls(engine, name)
        return per[name]

    def _run(self, field: str, fn, state, player, goal=None):
        rt = self.engine.runtime(state)
        opened = rt.reading()
        env = {"player": player, "goal": goal}
        rt.env = env
        try:
            return fn(rt, env)
        except Exception as e:      # a pack's formula failed: say which, never a traceback
            fv = self.decl.fields.get(field)
            raise RulespecError(Diagnostic(
                "RS301", f"plan '{self.decl.id}' {field} failed for {player}: {type(e).__name__}: {e}",
                fv.span if fv is not None else self.decl.span,
                "guard the formula (if ... then ... else) so that it gives a value in every position")) from None
        finally:
            rt.done_reading(opened)

    def goals(self, state, player) -> list:
        return list(self._run("goals", self._goals, state, player) or [])

    def progress(self, state, player, goal) -> float:
        return float(self._run("progress", self._progress, state, player, goal) or 0)

    def choose_goal(self, state, player, held=None):
        """`held` while it is still a goal; else the best goal by `pick` (the first of equals),
        or None when there is none."""
        goals = self.goals(state, player)
        if held is not None and held in goals:
            return held
        best, best_val = None, None
        for g in goals:
            v = float(self._run("pick", self._pick, state, player, g) or 0)
            if best_val is None or v > best_val + 1e-9:
                best, best_val = g, v
        return best


class PlannedEvaluation:
    """An evaluation whose value for `player` adds the plan's progress towards `goal` (the
    others' values are the evaluation's): what the searching bot maximises while it holds a
    goal. Offers `values(state)` like Evaluation, so the search uses it unchanged."""

    def __init__(self, evaluation, plan: Plan, player, goal):
        self.evaluation, self.plan, self.player, self.goal = evaluation, plan, player, goal

    def values(self, state) -> dict:
        vals = self.evaluation.values(state)
        if self.goal is not None and self.player in vals:
            vals[self.player] += self.plan.progress(state, self.player, self.goal)
        return vals
