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

from .evaluation import declared, formula_failed, in_reading_window, per_engine


class Plan:
    """One of the pack's `plan`s, compiled once per engine."""

    def __init__(self, engine, name: str):
        self.engine = engine
        self.decl = declared(engine, "plan", name, "plan NAME { goals: ... progress: ... }")[name]
        scope = {"goal": "any"}
        self._goals = engine.rs.fn(self.decl, "goals", {})
        self._progress = engine.rs.fn(self.decl, "progress", scope)
        self._pick = engine.rs.fn(self.decl, "pick", scope) or self._progress

    @classmethod
    def for_engine(cls, engine, name: str) -> "Plan":
        return per_engine(cls, engine, name)

    def _run(self, field: str, fn, rt, player, goal=None):
        env = rt.env = {"player": player, "goal": goal}
        try:
            return fn(rt, env)
        except Exception as e:      # a pack's formula failed: say which, never a traceback
            raise formula_failed(self.decl, field, f"plan '{self.decl.id}' {field}", player, e) from None

    def _goals_in(self, rt, player) -> list:
        return list(self._run("goals", self._goals, rt, player) or [])

    def progress_in(self, rt, player, goal) -> float:
        return float(self._run("progress", self._progress, rt, player, goal) or 0)

    def goals(self, state, player) -> list:
        return in_reading_window(self.engine, state, lambda rt: self._goals_in(rt, player))

    def progress(self, state, player, goal) -> float:
        return in_reading_window(self.engine, state, lambda rt: self.progress_in(rt, player, goal))

    def choose_goal(self, state, player, held=None):
        """`held` while it is still a goal; else the best goal by `pick` (the first of equals),
        or None when there is none."""
        return in_reading_window(self.engine, state, lambda rt: self._choose_in(rt, player, held))

    def _choose_in(self, rt, player, held):
        goals = self._goals_in(rt, player)
        if held is not None and held in goals:
            return held
        best, best_val = None, None
        for g in goals:
            v = float(self._run("pick", self._pick, rt, player, g) or 0)
            if best_val is None or v > best_val + 1e-9:
                best, best_val = g, v
        return best


class PlannedEvaluation:
    """An evaluation whose value for `player` adds the plan's progress towards `goal` (the
    others' values are the evaluation's): what the searching bot maximises while it holds a
    goal. Offers `values(state)` like Evaluation, so the search uses it unchanged; the progress
    is read in the evaluation's own read-only window."""

    def __init__(self, evaluation, plan: Plan, player, goal):
        self.evaluation, self.plan, self.player, self.goal = evaluation, plan, player, goal

    def values(self, state) -> dict:
        return self.evaluation.values(state, self._add_progress)

    def is_quiet(self, state) -> bool:
        return self.evaluation.is_quiet(state)

    def _add_progress(self, rt, vals: dict):
        if self.goal is not None and self.player in vals:
            vals[self.player] += self.plan.progress_in(rt, self.player, self.goal)
