"""Bots: they only use the public API (legal_moves / apply), like any front end.

The bot interface: a class with a `name`, built as `Bot(seed, **knobs)` (every knob has a
default; `make_bot("mcts:iterations=32", seed)` parses them from text), whose
`choose(engine, state, moves)` returns one of the legal `moves` for the player deciding in
`state`. A bot draws only from its own generator, seeded by `seed`: the same seed plays the same
moves. The searching bots (`greedy_eval`, `mcts`) are in interpreter/search_bots.py.
"""
from __future__ import annotations

import inspect
import random

from rulespec.errors import Diagnostic, RulespecError, Span

from .playout_policy import PlayoutPolicy
from .search_bots import GreedyEvalBot, MctsBot


class UniformBot:
    """Picks uniformly among the legal moves, from its own seeded generator (the game's RNG
    stays untouched, so the game log alone replays the game). Ignores the pack's playout
    hints: the bot for fuzzing (every legal move is as likely as any other)."""

    name = "uniform"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, engine, state, moves: list) -> str:
        return moves[self.rng.randrange(len(moves))]


class RandomBot(UniformBot):
    """Random play as the pack intends it: each legal move is drawn with the weight the pack's
    `playout_hint`s give it (1 when none applies), so simulated players do not, say, take an
    Indulgence at every payment. The bot of playouts, benchmarks and `rulespec play`."""

    name = "random"
    _policy = None          # the playout policy of the engine last played: for_engine costs a weak lookup

    def choose(self, engine, state, moves: list) -> str:
        if len(moves) == 1:
            return moves[0]
        policy = self._policy
        if policy is None or policy.engine is not engine:
            policy = self._policy = PlayoutPolicy.for_engine(engine)
        return policy.pick(self.rng, state["vm"]["pending"], moves, state)


class PlannerBot(RandomBot):
    """Plans one turn at a time by sampling. At the first decision of a turn (a run of
    decisions by the same player) it plays `samples` random continuations of that turn on
    copies (with the pack's playout hints), values the position each one reaches with the
    pack's scoring plus its `heuristic`s, and follows the best. Knows no rule by name: a pack
    steers it with its heuristics. The bot for games that must reach an end condition."""

    name = "planner"

    def __init__(self, seed: int = 0, samples: int = 4, depth: int = 80):
        super().__init__(seed)
        self.samples = samples
        self.depth = depth
        self.plan: list = []
        self.plan_owner = None

    def choose(self, engine, state, moves: list) -> str:
        if len(moves) == 1:
            return moves[0]
        me = state["vm"]["pending"].get("player")
        if self.plan and self.plan_owner == me and self.plan[0] in moves:
            return self.plan.pop(0)
        best = None
        for _ in range(self.samples):
            line = self._sample_turn(engine, state, moves, me)
            if line is None:
                continue
            value, seq = line
            if best is None or value > best[0]:
                best = (value, seq)
        if best is None or not best[1]:
            return RandomBot.choose(self, engine, state, moves)
        self.plan, self.plan_owner = best[1][1:], me
        return best[1][0]

    def _sample_turn(self, engine, state, moves, me):
        """One random continuation while `me` decides; (value for me, moves played)."""
        seq, st, legal = [], state, moves
        while len(seq) < self.depth:
            mv = RandomBot.choose(self, engine, st, legal)
            try:
                st = engine.apply(st, mv, check=False)
            except RulespecError:
                break
            seq.append(mv)
            pending = st["vm"]["pending"]
            if engine.is_over(st) or pending is None or pending.get("player") != me:
                break
            legal = engine.legal_moves(st)
            if not legal:
                break
        if not seq:
            return None
        return PlayoutPolicy.for_engine(engine).value(st, me), seq


class EagerBot(UniformBot):
    """Random, but keen: says yes to 'optional' steps 80% of the time, prefers larger numbers
    when choosing how many, and rarely stops an up-to choice early. Only looks at the shape of
    decisions (never at what they mean), so it works for any pack; it makes things happen
    (wars, purchases) more often than uniform play does."""

    name = "eager"

    def choose(self, engine, state, moves):
        pending = state["vm"]["pending"] or {}
        rng = self.rng
        if pending.get("kind") == "optional" and "yes" in moves:
            return "yes" if rng.random() < 0.8 else "no"
        opts = pending.get("options") or []
        if pending.get("kind") == "choose" and opts and all(isinstance(o, int) for o in opts):
            upper = [m for m in moves if m != "done"][len(moves) // 2:]
            return rng.choice(upper or moves)
        if "done" in moves and len(moves) > 1 and rng.random() < 0.8:
            moves = [m for m in moves if m != "done"]
        return moves[rng.randrange(len(moves))]


class StickyBot(EagerBot):
    """Eager, with a memory: each player tends to repeat choices it made before (the same
    destination, the same target, the same kind of card), so plans add up over several
    decisions — troops gather on one City, purchases follow a line. Still blind to what the
    moves mean, so it works for any pack."""

    name = "sticky"

    def __init__(self, seed: int = 0, stickiness: float = 0.7):
        super().__init__(seed)
        self.stickiness = stickiness
        self.memory: dict = {}

    def choose(self, engine, state, moves):
        me = (state["vm"]["pending"] or {}).get("player")
        mem = self.memory.setdefault(me, {})
        if len(moves) > 1 and self.rng.random() < self.stickiness:
            seen = [m for m in moves if mem.get(m)]
            if seen:
                best = max(mem[m] for m in seen)
                mv = self.rng.choice([m for m in seen if mem[m] == best])
                mem[mv] += 1
                return mv
        mv = super().choose(engine, state, moves)
        mem[mv] = mem.get(mv, 0) + 1
        return mv


class FirstBot:
    """Always the first legal move: deterministic, handy for tests."""

    name = "first"

    def __init__(self, seed: int = 0):
        pass

    def choose(self, engine, state, moves):
        return moves[0]


class GreedyBot:
    """One-ply greedy: applies each legal move and values the position for the deciding
    player like the planner does (the pack's scoring rows plus its `heuristic`s), picking the
    best and breaking ties at random. Knows no card or rule by name, so it works for any pack."""

    name = "greedy"

    def __init__(self, seed: int = 0, epsilon: float = 0.1):
        self.rng = random.Random(seed)
        self.epsilon = epsilon

    def choose(self, engine, state, moves):
        if len(moves) == 1 or self.rng.random() < self.epsilon:
            return moves[self.rng.randrange(len(moves))]
        me = (state["vm"]["pending"] or {}).get("player")
        if me is None:
            return moves[self.rng.randrange(len(moves))]
        policy = PlayoutPolicy.for_engine(engine)
        best, best_val = [], None
        for mv in moves:
            try:
                after = engine.apply(state, mv, check=False)
            except Exception:
                continue
            val = policy.value(after, me)
            if best_val is None or val > best_val:
                best, best_val = [mv], val
            elif val == best_val:
                best.append(mv)
        pool = best or moves
        return pool[self.rng.randrange(len(pool))]


BOTS = {"random": RandomBot, "uniform": UniformBot, "planner": PlannerBot, "eager": EagerBot, "sticky": StickyBot,
        "first": FirstBot, "greedy": GreedyBot, "greedy_eval": GreedyEvalBot, "mcts": MctsBot}


def parse_bot(spec: str) -> tuple[str, dict]:
    """'mcts:iterations=32,rollout=6' -> ('mcts', {'iterations': 32, 'rollout': 6}): a bot's
    name and its knobs (numbers as numbers), checked against the bot's constructor (RS404
    for an unknown bot or knob, naming the known ones)."""
    name, _, rest = str(spec).partition(":")
    name = name.strip()
    if name not in BOTS:
        raise RulespecError(Diagnostic("RS404", f"no bot '{name}'", Span("<bots>"), "bots: " + ", ".join(BOTS)))
    params = inspect.signature(BOTS[name].__init__).parameters
    knobs_ok = [k for k in params if k not in ("self", "seed")]
    knobs = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in knobs_ok:
            raise RulespecError(Diagnostic("RS404", f"bot '{name}' has no knob '{part}'", Span("<bots>"),
                                           f"knobs of {name}: " + (", ".join(f"{k}=..." for k in knobs_ok) or "none")))
        knobs[key] = _knob_value(value.strip())
    return name, knobs


def _knob_value(text: str):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def make_bot(spec: str, seed: int = 0):
    """A bot from its name and knobs ('greedy_eval', 'mcts:iterations=32'), seeded."""
    name, knobs = parse_bot(spec)
    try:
        return BOTS[name](seed, **knobs)
    except ValueError as e:     # a knob's value out of its range (mcts:root=deep)
        raise RulespecError(Diagnostic("RS404", f"bot '{spec}': {e}", Span("<bots>"),
                                       "docs/bots.md lists each bot's knobs and their values")) from None


def seat_seed(seed: int, seat: int) -> int:
    """The seed of the bot in seat `seat` (0-based) when each seat has its own bot."""
    return seed * 1_000_003 + seat + 1


class SeatedBots:
    """One bot per seat (a list of specs, in the order of the game's players), each seeded by
    seat_seed: what the ladder (scripts/ladder.py) plays, stronger bots against weaker."""

    def __init__(self, specs, seed: int, players: list):
        self.bots = {p: make_bot(spec, seat_seed(seed, i)) for i, (p, spec) in enumerate(zip(players, specs))}

    def choose(self, engine, state, moves):
        return self.bots[state["vm"]["pending"].get("player")].choose(engine, state, moves)


def play_game(engine, players, seed: int, bot: str = "random", max_moves: int = 200_000,
              on_move=None, options=None, on_start=None):
    """Play one game with bots; returns (final state, list of moves). `bot`: one bot for every
    seat ('mcts', with knobs 'mcts:iterations=32'), or a list of them, one per seat.

    The moves are applied in place (`apply(..., transactional=False)`): a bot never goes back
    to an earlier state, and not copying the state makes a move a third faster. A refused move
    (an engine bug: bots only play legal moves) raises, and the state is then half-changed.
    `on_move(turn, move, events, state)` is called after each move (for accounts and logs;
    `events` as Engine.apply gives them: interpreter/events.py):
    `turn` holds the `year` and the `pending` decision the move answered; `state` is the live
    state, which the next move changes. `on_start(state)` is called with the new game, before
    the first move (a log's header is written then)."""
    state = engine.new_game(players, seed, options)
    if on_start:
        on_start(state)
    if isinstance(bot, (list, tuple)):      # one bot per seat, in the order of state["players"]
        bots = SeatedBots(bot, seed, state["players"])
    else:
        bots = make_bot(bot, seed)
    moves = []
    while not engine.is_over(state) and len(moves) < max_moves:
        legal = engine.legal_moves(state)
        if not legal:
            break
        mv = bots.choose(engine, state, legal)
        if on_move:
            events = []
            turn = {"year": state["year"], "pending": state["vm"]["pending"]}
            state = engine.apply(state, mv, events=events, transactional=False)
            on_move(turn, mv, events, state)
        else:
            state = engine.apply(state, mv, transactional=False)
        moves.append(mv)
    return state, moves
