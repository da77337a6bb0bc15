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
copy from the bot's own seeded generator (one draw of the world per look-ahead, as in open-loop
MCTS). Both bots compare their moves with common random numbers: the k-th look-ahead of every
move plays in the same drawn world, with the same cheap continuation, so that a difference in
value comes from the move more than from luck. Everything a bot does follows from its seed:
the same seed plays the same moves.
"""
from __future__ import annotations

import math
import random
import time

from rulespec.errors import RulespecError

from .api import _copy
from .evaluation import Evaluation, in_reading_window
from .plan import Plan, PlannedEvaluation
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


def _play_while(engine, st, rng, going, limit: int, choose=None) -> None:
    """Play on `st` in place while `going(st)` holds (at most `limit` moves, none once the game
    is over or nothing is legal): each move by `choose(moves)`, by default the cheap policy."""
    for _ in range(limit):
        if engine.is_over(st) or not going(st):
            return
        moves = engine.legal_moves(st)
        if not moves:
            return
        mv = choose(moves) if choose is not None else policy_move(engine, st, moves, rng)
        engine.apply(st, mv, check=False, transactional=False)


def quiesce(engine, evaluation, st, rng, limit: int = 400) -> None:
    """Play on `st` in place by the cheap policy, whoever decides, until the evaluation may
    value it (its `quiet`): a look-ahead that stops in the middle of a fight (a defender's
    War Bonus announced, the attacker's answer not yet) values the Bonus spent and not the
    Siege it may save, so passing looked better to a defender."""
    _play_while(engine, st, rng, lambda x: not evaluation.is_quiet(x), limit)


def ending_in_sight(engine, state) -> bool:
    """Whether the game is ending: an end condition was met (a final Winter is being played),
    or one of the pack's end conditions holds now and will end the game when it is checked at
    its moment (the end of Spring, of the round). Read from the pack's `end_condition`s, never
    from a rule known by name: so a search values finishing a game it leads, and avoids
    finishing one it trails, even when the end itself lies beyond its horizon."""
    if state.get("ending"):
        return True
    checks = [ec["check"] for ec in engine.rs.end_conditions if ec["check"] is not None]
    if not checks:
        return False
    def holds(rt) -> bool:
        env = rt.env = {"player": None}
        try:
            return any(check(rt, env) for check in checks)
        except Exception:       # a condition that cannot be read mid-turn: no end in sight
            return False
    return in_reading_window(engine, state, holds)


def values(engine, evaluation, state, finish: float) -> dict:
    """Each player's value by the pack's evaluation, plus `finish` to whoever would win (the
    score pad and the tie-break) when the end is in sight (ending_in_sight)."""
    vals = evaluation.values(state)
    if finish and ending_in_sight(engine, state):
        for p in engine.winners(state):
            vals[p] += finish
    return vals


def gaps(engine, evaluation, state, finish: float = 0.0) -> dict:
    """Each player's value (values()) minus the best of the others'."""
    vals = values(engine, evaluation, state, finish)
    return {p: v - max((w for q, w in vals.items() if q != p), default=0.0) for p, v in vals.items()}


def rewards(engine, evaluation, state, scale: float, finish: float = 0.0, base: dict | None = None) -> dict:
    """Each player's reward in [0, 1]: at the end of the game 1 for a winner (shared ties count
    as wins) and 0 otherwise; before, how far the player's value stands above the best of the
    others' (gaps()), less its gap in `base` (the searched position's: so that a player far
    ahead or far behind still tells its moves apart), squashed by a logistic curve whose width
    is `scale` (in the evaluation's points)."""
    if engine.is_over(state):
        won = set(engine.winners(state))
        return {p: (1.0 if p in won else 0.0) for p in state["players"]}
    base = base or {}
    return {p: squash(g - base.get(p, 0.0), scale) for p, g in gaps(engine, evaluation, state, finish).items()}


def squash(change: float, scale: float) -> float:
    """A change of the gap to the best rival, in the evaluation's points, as a reward in
    (0, 1): 0.5 for no change, by a logistic curve of width `scale`."""
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, change / scale))))


def _gap(engine, evaluation, state, me, finish: float = 0.0) -> float:
    """The deciding player's value minus the best rival's (a finished game: +-1000, a win
    or not)."""
    if engine.is_over(state):
        return 1000.0 if me in engine.winners(state) else -1000.0
    return gaps(engine, evaluation, state, finish)[me]


def _decider(st):
    """Who takes the pending decision (None when none is pending)."""
    return (st["vm"]["pending"] or {}).get("player")


class _Planning:
    """The `plan` knob of a searching bot: each player's goal (a bot may play several seats),
    kept across its decisions, turns and Years while the pack's plan still offers it
    (interpreter/plan.py)."""

    def __init__(self, name: str | None):
        self.name = name
        self.goals: dict = {}

    def evaluation(self, engine, ev, state, me):
        """`ev`, plus the plan's progress towards `me`'s goal (chosen now when it holds none)."""
        if not self.name:
            return ev
        plan = Plan.for_engine(engine, self.name)
        goal = self.goals[me] = plan.choose_goal(state, me, self.goals.get(me))
        return PlannedEvaluation(ev, plan, me, goal)


def _not_turn_of(me):
    """A stop for _forward: the decision is no longer `me`'s (its turn is over)."""
    return lambda st: _decider(st) != me


def _rest_of_turn(engine, st, rng, me, limit: int = 60, choose=None):
    """The deciding player's remaining decisions of this turn (a run of decisions by `me`), on
    `st` in place: each by `choose(moves)`, by default the cheap policy."""
    _play_while(engine, st, rng, lambda x: _decider(x) == me, limit, choose)


def _tried(engine, st, mv, world, me):
    """A copy of `st` with `mv` applied in the drawn `world` and the payment and forced steps it
    leads to played by the cheap policy (up to the end of `me`'s turn); None if refused."""
    cp = _copy(st)
    cp["rng"] = world
    try:
        engine.apply(cp, mv, check=False, transactional=False)
        _forward(engine, cp, random.Random(world), _not_turn_of(me))
    except RulespecError:
        return None
    return cp


# The widest choice looked through. A Wage War's questions (move? how? and, from up to three
# Cities, from where?) have 2-3 moves each, and the last one (to where?) is valued, not looked
# through; the Winter's placements of cards in the Palace have more, and looking through
# choices of 4 moves made a game about three times dearer (4 x mcts:plan=war, 16 / 4: Year 2
# after 60 s of CPU, against Year 3 without looking through). At 2, a player with three
# Cities to move from answered the Wage War's first questions at random (pilot, seed 1001).
LOOK_THROUGH_WIDTH = 3
# How many choices deep a move is looked through: a Wage War's move? how? from where?
LOOK_THROUGH_DEPTH = 3


def looked_through(engine, evaluation, cp, me, before: float, world, finish: float = 0.0,
                   through: int = LOOK_THROUGH_DEPTH, val: float | None = None) -> float:
    """The gap (_gap) of `me` in `cp`, a position a move led to from one whose gap was
    `before`; when the move changed nothing and `me` has another real choice to make (of at
    most LOOK_THROUGH_WIDTH moves), the best of that choice's moves instead, up to `through`
    choices deep (greedy continuation). `val`: that gap, when the caller has it already."""
    if val is None:
        val = _gap(engine, evaluation, cp, me, finish)
    if through <= 0 or abs(val - before) > 1e-9 or engine.is_over(cp) or _decider(cp) != me:
        return val
    moves = engine.legal_moves(cp)
    if is_macro_step(cp, moves) or len(moves) > LOOK_THROUGH_WIDTH:
        return val
    nexts = (_tried(engine, cp, m, world, me) for m in moves)
    return max((looked_through(engine, evaluation, n, me, before, world, finish, through - 1)
                for n in nexts if n is not None), default=val)


def _greedy_rest_of_turn(engine, evaluation, st, rng, me, finish: float = 0.0, limit: int = 60,
                         through: int = LOOK_THROUGH_DEPTH):
    """The deciding player's remaining decisions of this turn on `st` in place, each by a
    one-move look-ahead: every legal move tried on a copy with the payment it leads to, valued
    with the evaluation (the gap to the best rival), the best played (ties by the cheap policy);
    payments and forced steps by the cheap policy. A better continuation than the cheap
    policy's: the value of a turn's first choice no longer hangs on random follow-ups (an
    Annex that picks no City, a Wage War that moves no Troop).

    When no move tells itself apart (a yes that only asks where to, and a no; the ways of
    moving before the destination), each is looked through (looked_through): its value is the
    best of the player's next choice's moves, up to `through` choices deep. Without it such
    moves tied, the cheap policy broke the tie, and a Wage War's run of questions (move? from
    where? how? to where?) was answered at random. Only then: looking through every choice
    made a game several times dearer (the Winter's choices)."""

    def best_move(moves):
        if is_macro_step(st, moves):
            return policy_move(engine, st, moves, rng)
        world = rng.getrandbits(_RNG_BITS)      # the same draws for every move
        tried = [(mv, cp) for mv, cp in ((m, _tried(engine, st, m, world, me)) for m in moves) if cp is not None]
        vals = [_gap(engine, evaluation, cp, me, finish) for _, cp in tried]
        if through and vals and max(vals) - min(vals) <= 1e-9:
            # no move tells itself apart: look through them (they changed nothing, or all alike)
            before = _gap(engine, evaluation, st, me, finish)
            vals = [looked_through(engine, evaluation, cp, me, before, world, finish, through, v)
                    for (_, cp), v in zip(tried, vals)]
        top = max(vals, default=None)
        best = [mv for (mv, _), v in zip(tried, vals) if v >= top - 1e-9] if tried else []
        return policy_move(engine, st, best or moves, rng)
    _rest_of_turn(engine, st, rng, me, limit, best_move)


class GreedyEvalBot:
    """One decision ahead, with the pack's evaluation: for each legal move it plays the move on
    a copy (with the payment it leads to, and the rest of its own turn by the cheap policy when
    `horizon` is "turn"), values the position with the pack's `evaluation` as the gap between
    its own value and the best rival's, and plays the best move (ties by the cheap policy: the pack's playout hints). Payments are
    macro-moves (module doc). Knobs: evaluation, horizon (move|turn), samples (look-aheads per
    move, averaged), epsilon (how often a random move instead)."""

    name = "greedy_eval"

    def __init__(self, seed: int = 0, evaluation: str | None = None, horizon: str = "turn",
                 samples: int = 1, epsilon: float = 0.05, finish: float = 10.0, plan: str | None = None):
        self.rng = random.Random(seed)
        self.planning = _Planning(plan)
        self.finish = float(finish)
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
        ev = self.planning.evaluation(engine, Evaluation.for_engine(engine, self.evaluation), state, me)
        seeds = [self.rng.getrandbits(_RNG_BITS) for _ in range(self.samples)]   # the same draws for every move
        mine = _not_turn_of(me)
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
                        _rest_of_turn(engine, st, play, me)
                    else:
                        _forward(engine, st, play, mine)
                except RulespecError:
                    total = None
                    break
                total += _gap(engine, ev, st, me, self.finish)
            if total is None:
                continue
            if best_val is None or total > best_val + 1e-9:
                best, best_val = [mv], total
            elif abs(total - best_val) <= 1e-9:
                best.append(mv)
        # equal values: the pack's playout hints choose (a Room worth landing on, keeping cards)
        return policy_move(engine, state, best or moves, self.rng)

class _Node:
    __slots__ = ("n", "w", "children", "prior")

    def __init__(self, prior: float = 1.0):
        self.n = 0          # visits
        self.w = 0.0        # summed reward of the player who chose the move leading here
        self.children: dict = {}
        self.prior = prior  # the cheap policy's probability of the move leading here


def _priors(engine, state, moves: list) -> list:
    """The cheap policy's probability of each move (the pack's playout hints; uniform without)."""
    weights = PlayoutPolicy.for_engine(engine).weights(state["vm"]["pending"], moves, state)
    if weights is None:
        return [1.0 / len(moves)] * len(moves)
    total = sum(weights)
    return [w / total for w in weights]


def _one_of(knob: str, value, allowed: tuple):
    """A knob's value among those it allows, else ValueError (refused by make_bot as RS404)."""
    if value not in allowed:
        raise ValueError(f"mcts {knob} must be {' or '.join(repr(a) for a in allowed)}, not {value!r}")
    return value


class MctsBot:
    """Monte Carlo tree search over the decision API (open loop, max^n: each decision's player
    maximises its own reward), with the pack's evaluation at the leaves.

    With `horizon` "turn" (the default) the tree holds the deciding player's own turn (its run
    of decisions): an iteration walks down the tree, adds one move, finishes the payment it
    leads to (macro-move), plays the rest of the turn (`continuation`: the cheap policy, or
    "greedy": a one-move look-ahead at each choice), then lets the rivals answer (`reply`
    turns of theirs by the cheap policy, none by default, up to the deciding player's next real
    choice: so a Siege, an exposed City, a race to the end is seen), `rollout` more decisions
    (0 by default) and scores the position reached: each player's value (the pack's
    evaluation, plus `finish` to whoever would win when an end condition holds:
    ending_in_sight) against the best rival's, less that gap in the searched position, squashed
    to [0, 1] with width `scale` (0.3 of the evaluation's points: a turn moves the evaluation by
    tenths of a point, and at 3 the rewards sat so close to 0.5 that PUCT replayed its prior);
    a finished game: 1 for a winner. With "move" the tree goes on
    into the other players' decisions and the leaf is valued after the payment.

    Root (`root`): "even" gives every legal move the same number of look-ahead
    worlds (`per_move` each, within `iterations`, whole rounds) and plays the best mean, ties by
    the pack's playout hints: with one world per move it is greedy_eval's comparison, and more
    worlds only refine it. "puct" (the default): every move once (the highest prior first, so a budget of 1
    plays the pack's favourite), then PUCT (the mean reward plus `c` x the move's prior, from
    the pack's playout hints, x sqrt(parent visits) / (1 + visits)), budget `per_move` per legal
    move at most `iterations`, and the most visited move is played (ties: the best mean); its
    subtree is kept for the same player's next decision in the same Year and phase (statistics
    halved). Below the root PUCT alone, an untried move counting as no change. Common random
    numbers: the k-th visit of each root move plays in the k-th world drawn for this decision
    (module doc). `q` "minmax" reads the means in PUCT between the lowest and the highest among
    siblings; `prior` "uniform" replaces the playout hints in PUCT. Knobs: iterations,
    per_move, horizon, rollout, reply, continuation, root, c, scale, q, prior, finish,
    evaluation, seconds (an optional CPU-time cap per decision for people at
    the table; never for measurements: it makes play depend on the machine)."""

    name = "mcts"

    def __init__(self, seed: int = 0, iterations: int = 32, per_move: int = 8, horizon: str = "turn",
                 rollout: int = 0, c: float = 1.0, scale: float = 0.3, finish: float = 10.0,
                 evaluation: str | None = None, seconds: float | None = None, root: str = "puct",
                 reply: int = 0, continuation: str = "policy", q: str = "mean", prior: str = "hints",
                 plan: str | None = None):
        self.rng = random.Random(seed)
        self.planning = _Planning(plan)
        self.iterations = max(1, int(iterations))
        self.per_move = max(1, int(per_move))
        self.horizon = horizon
        self.rollout = max(0, int(rollout))
        self.c = float(c)
        self.scale = float(scale)
        if not self.scale > 0:
            raise ValueError(f"mcts scale must be a positive number of the evaluation's points, not {scale!r}")
        self.finish = float(finish)
        self.evaluation = evaluation
        self.seconds = float(seconds) if seconds else None
        self.root = _one_of("root", root, ("puct", "even"))
        self.continuation = _one_of("continuation", continuation, ("policy", "greedy"))
        self.reply = max(0, int(reply))
        self.q = _one_of("q", q, ("mean", "minmax"))
        self.prior = _one_of("prior", prior, ("hints", "uniform"))
        self._kept = None       # (player, year, phase, node): the subtree under the last move played
        self.last_root = None

    def choose(self, engine, state, moves: list) -> str:
        if is_macro_step(state, moves):
            return policy_move(engine, state, moves, self.rng)
        me = state["vm"]["pending"].get("player")
        ev = self.planning.evaluation(engine, Evaluation.for_engine(engine, self.evaluation), state, me)
        where = (me, state["year"], state["phase"])
        # an even root starts afresh: kept statistics would break its equal rounds of worlds
        root = (self._reused(where, moves) if self.root == "puct" else None) or _Node()
        start = time.process_time()
        base = gaps(engine, ev, state, self.finish)
        budget = min(self.iterations, self.per_move * len(moves))
        if self.root == "even":     # whole rounds: every move seen in the same worlds
            budget = len(moves) * max(1, min(self.per_move, self.iterations // len(moves)))
        # common random numbers: the k-th look-ahead of every move plays in the same world (the
        # same future draws, the same cheap continuation), as greedy_eval compares its moves
        worlds = [self.rng.getrandbits(_RNG_BITS) for _ in range(budget)]
        for _ in range(budget):
            self._iterate(engine, ev, state, moves, root, me, base, worlds)
            if self.seconds is not None and time.process_time() - start > self.seconds:
                break
        self.last_root = root       # the searched tree, for tests and explanations
        visited = [(ch.n, ch.w / ch.n, mv) for mv, ch in root.children.items() if mv in moves and ch.n]
        if not visited:
            return policy_move(engine, state, moves, self.rng)
        if self.root == "even":     # the best mean (every move has had the same worlds)
            top = max(q for n, q, mv in visited)
            best = [mv for n, q, mv in visited if q >= top - 1e-12]
            if len(best) > 1:       # equal values: the pack's playout hints choose, as greedy_eval's
                return self._played(where, root, policy_move(engine, state, best, self.rng))
            return self._played(where, root, best[0])
        top = max(visited)[:2]
        best = [mv for n, q, mv in visited if (n, q) == top]
        mv = best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]
        return self._played(where, root, mv)

    def _played(self, where, root, mv):
        self._kept = where + (root.children[mv],)
        return mv

    def _reused(self, where, moves):
        """The kept subtree, when this decision is the same player's next one in the same Year
        and phase and its moves are the ones the subtree knows; its statistics halved."""
        kept, self._kept = self._kept, None
        if kept is None or kept[:3] != where or not kept[3].children:
            return None
        node = kept[3]
        if not set(node.children) <= set(moves):
            return None
        for ch in node.children.values():
            ch.n //= 2
            ch.w /= 2
        node.children = {m: ch for m, ch in node.children.items() if ch.n}
        node.n = sum(ch.n for ch in node.children.values())
        return node

    def _select(self, node, legal, priors, at_root: bool):
        """The child to walk to. At the root, every move is tried once first (the highest prior
        first: a small budget goes to the moves the pack's advice favours), then PUCT. Below
        the root PUCT alone, a move never tried counting as no change (0.5): trying every
        move of a deep decision once would spend the few visits there on moves the cheap
        policy rarely plays (an Indulgence, a discard) and spoil the values above."""
        if at_root and self.root == "even":      # round robin: the least visited, the favoured first
            mv = min(legal, key=lambda m: (node.children[m].n if m in node.children else -1,
                                           -priors[legal.index(m)], legal.index(m)))
            child = node.children.get(mv)
            if child is None:
                child = node.children[mv] = _Node(priors[legal.index(mv)])
            return mv, child, child.n == 0
        if at_root:
            untried = [(p, -i, m) for i, (m, p) in enumerate(zip(legal, priors)) if m not in node.children]
            if untried:
                p, _, mv = max(untried)
                node.children[mv] = _Node(p)
                return mv, node.children[mv], True
        sqrt_n = math.sqrt(max(1, node.n))
        c = self.c
        norm = self._normaliser(node)
        best, best_score, best_prior = None, None, 0.0
        for m, p in zip(legal, priors):
            ch = node.children.get(m)
            n = ch.n if ch is not None else 0
            score = norm(ch.w / n if n else 0.5) + c * p * sqrt_n / (1 + n)
            if best_score is None or score > best_score:
                best, best_score, best_prior = m, score, p
        child = node.children.get(best)
        if child is None:
            child = node.children[best] = _Node(best_prior)
        return best, child, child.n == 0

    def _normaliser(self, node):
        """How PUCT reads a child's mean reward. "mean": as it is. "minmax" (MuZero's
        normalisation, here among the children of `node`): the lowest mean seen there is 0,
        the highest 1 (a move not tried yet, 0.5, clipped to that range), so the means are
        compared with each other rather than with the prior term: a turn moves the evaluation
        little, the rewards sit within a few hundredths of 0.5, and with raw means PUCT only
        replays the prior (docs/bots.md)."""
        if self.q != "minmax":
            return lambda v: v
        seen = [ch.w / ch.n for ch in node.children.values() if ch.n]
        lo, hi = min(seen, default=0.5), max(seen, default=0.5)
        if hi - lo < 1e-9:
            return lambda v: v
        return lambda v: min(1.0, max(0.0, (v - lo) / (hi - lo)))

    def _priors(self, engine, st, legal):
        """The prior of each legal move: the pack's playout hints, or uniform (`prior`)."""
        if self.prior == "uniform":
            return [1.0 / len(legal)] * len(legal)
        return _priors(engine, st, legal)

    def _iterate(self, engine, ev, state, root_moves, root, me, base, worlds):
        st = _copy(state)
        node, path, legal = root, [], root_moves
        turn = self.horizon == "turn"
        rng = None
        try:
            while True:
                player = st["vm"]["pending"].get("player")
                mv, child, new = self._select(node, legal, self._priors(engine, st, legal), node is root)
                if rng is None:     # the world of this look-ahead: the root move's k-th visit
                    world = worlds[child.n % len(worlds)]
                    st["rng"] = world
                    rng = random.Random(world)
                engine.apply(st, mv, check=False, transactional=False)
                path.append((child, player))
                if not _forward(engine, st, rng, lambda x: False) or new:
                    break
                if turn and st["vm"]["pending"].get("player") != me:
                    break       # the turn passed: the tree holds only the deciding player's turn
                node = child
                legal = engine.legal_moves(st)
            if turn and self.continuation == "greedy":
                _greedy_rest_of_turn(engine, ev, st, rng, me, self.finish)
            elif turn:
                _rest_of_turn(engine, st, rng, me)
            self._replies(engine, st, rng, me)
            self._rollout(engine, st, rng)
            quiesce(engine, ev, st, rng)
        except RulespecError:
            return          # a refused move (an engine bug): this iteration counts for nothing
        reward = rewards(engine, ev, st, self.scale, self.finish, base)
        root.n += 1
        for nd, player in path:
            nd.n += 1
            nd.w += reward.get(player, 0.0)

    def _replies(self, engine, st, rng, me, limit: int = 400):
        """The rivals answer: after the deciding player's turn, `reply` turns of the others
        (runs of decisions by one player) by the cheap policy, stopping at the deciding
        player's next real choice (its forced steps and payments, such as resolving its own
        Siege, are played on); so a leaf is valued after the Sieges, Battles and
        purchases its move invites, not before."""
        turns, last = 0, me
        for _ in range(limit):
            if engine.is_over(st):
                return
            who = _decider(st)
            moves = engine.legal_moves(st)
            if not moves:
                return
            if who == me:
                if not is_macro_step(st, moves):
                    return      # my next real choice: the leaf (my payments and forced steps are played)
            elif who != last:
                turns += 1
                if turns > self.reply:
                    return
                last = who
            engine.apply(st, policy_move(engine, st, moves, rng), check=False, transactional=False)

    def _rollout(self, engine, st, rng):
        steps = 0
        while steps < self.rollout and not engine.is_over(st):
            moves = engine.legal_moves(st)
            if not moves:
                return
            if not is_macro_step(st, moves):
                steps += 1
            engine.apply(st, policy_move(engine, st, moves, rng), check=False, transactional=False)
