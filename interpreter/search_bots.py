"""Bots that search: `greedy_eval` (one decision ahead) and `mcts` (UCT), both valuing positions
with the pack's `evaluation` (interpreter/evaluation.py) and both only through the public
decision API (legal_moves, apply on copies): they know no card, City or rule by name.

Macro-moves. A payment is a run of decisions (which card to tap for which symbol, an
Indulgence while paying): searching each tap would spend the budget on choices that rarely
matter and multiply the tree's depth. These bots treat a whole payment as part of the decision
that incurred it: a `pay` decision is answered by the cheap policy (the pack's playout hints,
interpreter/playout_policy.py), never searched, and a decision with one legal move is simply
made. The game's rules and the API are unchanged; only the bots group decisions.

Chance. Draws inside a move (shuffles, dice) come from the state's seeded RNG. A search that
applied moves to plain copies would see the real future draws; so each look-ahead reseeds its
copy from the bot's own seeded generator (one draw of the world per rollout, as in open-loop
MCTS). Everything a bot does follows from its seed: the same seed plays the same moves.
"""
from __future__ import annotations

import math
import random
import time

from rulespec.errors import RulespecError

from .api import _copy
from .evaluation import Evaluation
from .playout_policy import PlayoutPolicy

_RNG_BITS = 64


def policy_move(engine, state, moves: list, rng: random.Random) -> str:
    """The cheap policy: a legal move drawn with the weights of the pack's playout hints (the
    `random` bot's choice, from the caller's generator)."""
    if len(moves) == 1:
        return moves[0]
    weights = PlayoutPolicy.for_engine(engine).weights(state["vm"]["pending"], moves, state)
    if weights is None:
        return moves[rng.randrange(len(moves))]
    return rng.choices(moves, weights)[0]


def is_macro_step(state, moves: list) -> bool:
    """A decision the searching bots do not search: one legal move, or a step of a payment."""
    return len(moves) <= 1 or (state["vm"]["pending"] or {}).get("kind") == "pay"


def _forward(engine, st, rng, stop) -> bool:
    """Play the cheap policy on `st` in place while the decision is a macro step (and
    `stop(st)` does not hold); False if the game ended or a move was refused."""
    while not engine.is_over(st):
        moves = engine.legal_moves(st)
        if not moves:
            return False
        if not is_macro_step(st, moves) or stop(st):
            return True
        try:
            engine.apply(st, policy_move(engine, st, moves, rng), check=False, transactional=False)
        except RulespecError:
            return False
    return False


def _lookahead_copy(state, rng) -> dict:
    """A copy of the state whose future draws come from the bot's generator."""
    st = _copy(state)
    st["rng"] = rng.getrandbits(_RNG_BITS)
    return st


def rewards(engine, evaluation, state, scale: float) -> dict:
    """Each player's reward in [0, 1]: at the end of the game 1 for a winner (shared ties count
    as wins) and 0 otherwise; before, how far the player's value stands above the best of the
    others', squashed by a logistic curve whose width is `scale` (in the evaluation's points)."""
    if engine.is_over(state):
        won = set(engine.winners(state))
        return {p: (1.0 if p in won else 0.0) for p in state["players"]}
    vals = evaluation.values(state)
    out = {}
    for p, v in vals.items():
        best_other = max((w for q, w in vals.items() if q != p), default=0.0)
        out[p] = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, (v - best_other) / scale))))
    return out


def _gap(engine, evaluation, state, me) -> float:
    """The deciding player's value minus the best rival's (a finished game: +-1000, a win
    or not)."""
    if engine.is_over(state):
        return 1000.0 if me in engine.winners(state) else -1000.0
    vals = evaluation.values(state)
    return vals[me] - max((v for p, v in vals.items() if p != me), default=0.0)


class GreedyEvalBot:
    """One decision ahead, with the pack's evaluation: for each legal move it plays the move on
    a copy (with the payment it leads to, and the rest of its own turn by the cheap policy when
    `horizon` is "turn"), values the position with the pack's `evaluation` as the gap between
    its own value and the best rival's, and plays the best move (ties by the cheap policy: the pack's playout hints). Payments are
    macro-moves (module doc). Knobs: evaluation, horizon (move|turn), samples (look-aheads per
    move, averaged), epsilon (how often a random move instead)."""

    name = "greedy_eval"

    def __init__(self, seed: int = 0, evaluation: str | None = None, horizon: str = "move",
                 samples: int = 1, epsilon: float = 0.0):
        self.rng = random.Random(seed)
        self.evaluation = evaluation
        self.horizon = horizon
        self.samples = max(1, int(samples))
        self.epsilon = float(epsilon)

    def choose(self, engine, state, moves: list) -> str:
        if is_macro_step(state, moves):
            return policy_move(engine, state, moves, self.rng)
        if self.epsilon and self.rng.random() < self.epsilon:
            return moves[self.rng.randrange(len(moves))]
        me = state["vm"]["pending"].get("player")
        ev = Evaluation.for_engine(engine, self.evaluation)
        seeds = [self.rng.getrandbits(_RNG_BITS) for _ in range(self.samples)]   # the same draws for every move
        mine = lambda st: (st["vm"]["pending"] or {}).get("player") != me      # noqa: E731 (stop: not my turn)
        best, best_val = [], None
        for mv in moves:
            total = 0.0
            for s in seeds:
                st = _copy(state)
                st["rng"] = s
                play = random.Random(s)
                try:
                    engine.apply(st, mv, check=False, transactional=False)
                    if self.horizon == "turn":
                        self._rest_of_turn(engine, st, play, me)
                    else:
                        _forward(engine, st, play, mine)
                except RulespecError:
                    total = None
                    break
                total += _gap(engine, ev, st, me)
            if total is None:
                continue
            if best_val is None or total > best_val + 1e-9:
                best, best_val = [mv], total
            elif abs(total - best_val) <= 1e-9:
                best.append(mv)
        # equal values: the pack's playout hints choose (a Room worth landing on, keeping cards)
        return policy_move(engine, state, best or moves, self.rng)

    def _rest_of_turn(self, engine, st, rng, me, limit: int = 60):
        """The deciding player's remaining decisions of this turn, by the cheap policy."""
        for _ in range(limit):
            if engine.is_over(st) or (st["vm"]["pending"] or {}).get("player") != me:
                return
            moves = engine.legal_moves(st)
            if not moves:
                return
            engine.apply(st, policy_move(engine, st, moves, rng), check=False, transactional=False)


class _Node:
    __slots__ = ("n", "w", "children")

    def __init__(self):
        self.n = 0          # visits
        self.w = 0.0        # summed reward of the player who chose the move leading here
        self.children: dict = {}


class MctsBot:
    """UCT over the decision API (open-loop, max^n: each decision's player maximises its own
    reward). Each iteration copies the position (its future draws reseeded from the bot's
    generator: chance), walks down the tree choosing by UCB1 among the moves legal there,
    adds one new move, plays `rollout` more decisions by the cheap policy, and scores the
    position reached with the pack's evaluation (rewards: the gap to the best rival, squashed
    to [0, 1] with width `scale`; a finished game: 1 for a winner). Payments and single-move
    decisions are macro steps, played by the cheap policy and not searched. The move played is
    the most visited. Knobs: iterations (the budget per decision: fixed, so results depend on
    the seed only), rollout, c (exploration), scale, evaluation, seconds (an optional CPU-time
    cap per decision for people at the table; never for measurements: it makes play depend on
    the machine)."""

    name = "mcts"

    def __init__(self, seed: int = 0, iterations: int = 48, rollout: int = 8, c: float = 0.7,
                 scale: float = 3.0, evaluation: str | None = None, seconds: float | None = None):
        self.rng = random.Random(seed)
        self.iterations = max(1, int(iterations))
        self.rollout = max(0, int(rollout))
        self.c = float(c)
        self.scale = float(scale)
        self.evaluation = evaluation
        self.seconds = float(seconds) if seconds else None

    def choose(self, engine, state, moves: list) -> str:
        if is_macro_step(state, moves):
            return policy_move(engine, state, moves, self.rng)
        ev = Evaluation.for_engine(engine, self.evaluation)
        root = _Node()
        start = time.process_time()
        for _ in range(self.iterations):
            self._iterate(engine, ev, state, moves, root)
            if self.seconds is not None and time.process_time() - start > self.seconds:
                break
        visited = [(ch.n, ch.w / ch.n if ch.n else 0.0, mv) for mv, ch in root.children.items() if mv in moves]
        if not visited:
            return policy_move(engine, state, moves, self.rng)
        top = max(visited)[:2]
        best = [mv for n, q, mv in visited if (n, q) == top]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]

    def _iterate(self, engine, ev, state, root_moves, root):
        rng = self.rng
        st = _lookahead_copy(state, rng)
        node, path, legal = root, [], root_moves
        try:
            while True:
                player = st["vm"]["pending"].get("player")
                untried = [m for m in legal if m not in node.children]
                if untried:
                    mv = untried[rng.randrange(len(untried))]
                    child = node.children[mv] = _Node()
                    engine.apply(st, mv, check=False, transactional=False)
                    path.append((child, player))
                    break
                log_n = math.log(max(1, node.n))
                mv, child = max(((m, node.children[m]) for m in legal),
                                key=lambda mc: mc[1].w / mc[1].n + self.c * math.sqrt(log_n / mc[1].n))
                engine.apply(st, mv, check=False, transactional=False)
                path.append((child, player))
                node = child
                if not _forward(engine, st, rng, lambda x: False):
                    break
                legal = engine.legal_moves(st)
            self._rollout(engine, st)
        except RulespecError:
            return          # a refused move (an engine bug): this iteration counts for nothing
        reward = rewards(engine, ev, st, self.scale)
        root.n += 1
        for nd, player in path:
            nd.n += 1
            nd.w += reward.get(player, 0.0)

    def _rollout(self, engine, st):
        rng = self.rng
        steps = 0
        while steps < self.rollout and not engine.is_over(st):
            moves = engine.legal_moves(st)
            if not moves:
                return
            if not is_macro_step(st, moves):
                steps += 1
            engine.apply(st, policy_move(engine, st, moves, rng), check=False, transactional=False)
