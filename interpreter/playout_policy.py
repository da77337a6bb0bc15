"""The pack's advice to simulated players, compiled once per engine: `playout_hint`s (how
likely the `random` bot makes each legal move) and `heuristic`s (how the `planner` bot values
a position).

Uniformly random players never finish a game of Virtù: at every payment they may take an
Indulgence, every Winter they may discard their cards, and after a few Years they have
nothing left to act with (measured: 0 of 1,500 uniform games reached an end condition in 60
Years). Engines keep such advice beside the rules, as data (Ludii's AI metadata with its
heuristics and playout features, Forge's AI hints on cards). Neither hints nor heuristics are
rules: only bots read them, and every legal move stays legal.
"""
from __future__ import annotations

import weakref
from bisect import bisect
from itertools import accumulate
from math import isfinite

from rulespec.errors import Diagnostic, RulespecError

from rulespec.kinds import KINDS
from rulespec.prompts import render_static

from .api import _fmt, _parse

_WHEN_NAMES = KINDS["playout_hint"].fields["when"].names     # `choice`

_POLICIES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class PlayoutPolicy:
    def __init__(self, engine):
        rs = engine.rs
        self.engine = engine
        self.hints = []
        for d in engine.pack.of_kind("playout_hint"):
            weight = rs.static(d, "weight", 1)
            # a hint may name formulas as prompts do ({name}, rulespec.prompts): their plain values
            self.hints.append((render_static(rs.static(d, "decision", "") or "", rs.comp.literals.get),
                               render_static(rs.static(d, "move", "") or "", rs.comp.literals.get),
                               float(weight) if isinstance(weight, (int, float)) else 1.0,
                               rs.fn(d, "when", {n: "any" for n in _WHEN_NAMES}), d))
        self.heuristics = [(rs.fn(d, "value"), float(rs.static(d, "weight", 1) or 0), d)
                           for d in engine.pack.of_kind("heuristic")]
        self._by_prompt: dict = {}          # prompt -> _file's (hints, static, move prefixes)
        # (prompt, moves) -> (their weights or None, _cumulative's draw of them), for prompts whose
        # hints have no `when`: the same for these moves whatever the state (_static)
        self._static_moves: dict = {}

    @classmethod
    def for_engine(cls, engine) -> "PlayoutPolicy":
        pol = _POLICIES.get(engine)
        if pol is None:
            pol = _POLICIES[engine] = cls(engine)
        return pol

    def weights(self, pending: dict, moves: list, state: dict | None = None) -> list | None:
        """The weight of each move, or None when all moves are alike (no hint applies, or every
        weight is 0: then the bot picks uniformly). A hint with a `when` condition applies only
        given the state, where the condition holds for the deciding player and the move."""
        prompt = (pending or {}).get("prompt") or ""
        filed = self._by_prompt.get(prompt) or self._file(prompt)
        if not filed[0]:
            return None
        if filed[1]:    # no condition on the state: the weights of these moves are always the same
            weights = self._static(filed, prompt, pending, moves)[0]
            return None if weights is None else list(weights)      # a copy: the caller's own
        return self._weights(filed, pending, moves, state)[0]

    def _static(self, filed, prompt, pending, moves) -> tuple:
        """(the weights of `moves` or None, their draw: _cumulative) for a prompt whose hints have
        no `when`, worked out once per prompt and moves."""
        key = (prompt, tuple(moves))
        got = self._static_moves.get(key)
        if got is None:
            if len(self._static_moves) > 20_000:
                self._static_moves.clear()
            weights = self._weights(filed, pending, moves, None)[0]
            got = self._static_moves[key] = (weights, _cumulative(weights))
        return got

    def _file(self, prompt: str) -> tuple:
        """(the hints of the decisions with this prompt, whether none has a `when`, the move
        prefixes they weigh: a move that starts with none of them weighs 1), filed."""
        hints = [(m, w, when, d) for (p, m, w, when, d) in self.hints if prompt.startswith(p)]
        got = self._by_prompt[prompt] = (hints, all(when is None for _, _, when, _ in hints),
                                         tuple(m for m, _, _, _ in hints))
        return got

    def pick(self, rng, pending: dict, moves: list, state: dict | None = None) -> str:
        """One of `moves`, drawn from `rng` with the weights `weights` gives them: the very
        draws of `rng.choices(moves, weights)[0]` (uniform: `rng.randrange(len(moves))`), the
        cumulative weights worked out once for the decisions whose hints have no `when`."""
        prompt = (pending or {}).get("prompt") or ""
        filed = self._by_prompt.get(prompt) or self._file(prompt)
        if not filed[0]:
            return moves[rng.randrange(len(moves))]
        if filed[1]:
            weights, draw = self._static(filed, prompt, pending, moves)
            if weights is not None and draw is None:       # random.choices refuses them: it says why
                return rng.choices(moves, weights)[0]
            if draw is None:
                return moves[rng.randrange(len(moves))]
            cum, total, hi = draw
            return moves[bisect(cum, rng.random() * total, 0, hi)]     # random.choices, k=1
        weights = self._weights(filed, pending, moves, state)[0]
        if weights is None:
            return moves[rng.randrange(len(moves))]
        return rng.choices(moves, weights)[0]

    def _weights(self, filed, pending, moves, state) -> tuple:
        """(the weights, or None when all moves are alike,): the tuple keeps None cacheable.
        filed: the prompt's hints as _file gives them."""
        hints, _, prefixes = filed
        rt = None
        values = None           # move -> (kind, value): what _parse would say, worked out once
        out = []
        for mv in moves:
            if not mv.startswith(prefixes):     # no hint weighs it
                out.append(1.0)
                continue
            w = 1.0
            for prefix, hw, when, decl in hints:
                if not mv.startswith(prefix):
                    continue
                if when is not None:
                    if state is None:
                        continue
                    if rt is None:
                        rt = self.engine.runtime(state)
                        opened = rt.reading()
                        values = _parsed(pending)
                    if not self._holds(when, decl, rt, pending, mv, values):
                        continue
                w *= hw
            out.append(w)
        if rt is not None:
            rt.done_reading(opened)
        return (out if sum(out) > 0 and out.count(1.0) != len(out) else None,)

    def _holds(self, when, decl, rt, pending, move, values=None) -> bool:
        got = values.get(move) if values is not None else None
        kind, value = got if got is not None else _parse(move, pending)
        env = {"player": pending.get("player"), "choice": value if kind is not None else move}
        rt.env = env
        try:
            return bool(when(rt, env))
        except Exception as e:      # a pack's condition failed: say which, never a traceback
            span = decl.fields["when"].span
            raise RulespecError(Diagnostic(
                "RS301", f"playout_hint '{decl.id}' failed on '{move}': {type(e).__name__}: {e}", span,
                "guard the condition (if ... then ... else) so that it holds or not in every position")) from None

    def value(self, state, player) -> float:
        """The player's score (the pack's scoring rows) plus the pack's heuristic terms."""
        eng = self.engine
        rt = eng.runtime(state)
        total = float(eng.total_score(state, player, rt))
        env = {"player": player}
        for fn, weight, decl in self.heuristics:
            try:
                total += weight * float(fn(rt, env) or 0)
            except Exception as e:      # a pack's formula failed: say which, never a traceback
                span = decl.fields["value"].span if "value" in decl.fields else decl.span
                raise RulespecError(Diagnostic(
                    "RS301", f"heuristic '{decl.id}' failed for {player}: {type(e).__name__}: {e}", span,
                    "guard the formula (if ... then ... else) so that it gives a number in every position")) from None
        return total


def _cumulative(weights):
    """(cumulative weights, their total, the last index), as random.choices works them out from
    `weights`; None for None, and for weights whose total is not finite (random.choices refuses
    them: `pick` then lets it say so)."""
    if weights is None:
        return None
    cum = list(accumulate(weights))
    total = cum[-1] + 0.0
    return (cum, total, len(cum) - 1) if isfinite(total) else None


def _parsed(pending) -> dict:
    """{move: (kind, value)} for the moves of a `choose` decision, as api._parse reads them
    (the first choice written that way wins): parsing each move alone reads every choice, and
    a hint's condition asked for each move of a long choice made that quadratic. Other
    decisions: {} (they are parsed one by one, cheaply)."""
    out: dict = {}
    if pending.get("kind") == "choose":
        for v in pending["options"]:
            move = f"choose {_fmt(v)}"
            if " ".join(move.split()) == move:      # _parse reads a move's words, spaces collapsed
                out.setdefault(move, ("choose", v))
        if pending.get("can_stop"):
            out.setdefault("done", ("choose", None))
    return out
