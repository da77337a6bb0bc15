"""Bots: they only use the public API (legal_moves / apply), like any front end."""
from __future__ import annotations

import random


class RandomBot:
    """Picks uniformly among the legal moves, from its own seeded generator (the game's RNG
    stays untouched, so the game log alone replays the game)."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, engine, state, moves: list) -> str:
        return moves[self.rng.randrange(len(moves))]


class EagerBot(RandomBot):
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
    player as 10 × its total Prestige Points (the pack's own scoring rules) + a small material
    term (cities, track positions, florins: Engine.material), picking the best and breaking
    ties at random. Knows no card or rule by name, so it works for any pack."""

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
        best, best_val = [], None
        for mv in moves:
            try:
                after = engine.apply(state, mv, check=False)
            except Exception:
                continue
            val = engine.total_score(after, me) * 10 + engine.material(after, me)
            if best_val is None or val > best_val:
                best, best_val = [mv], val
            elif val == best_val:
                best.append(mv)
        pool = best or moves
        return pool[self.rng.randrange(len(pool))]


BOTS = {"random": RandomBot, "eager": EagerBot, "sticky": StickyBot, "first": FirstBot, "greedy": GreedyBot}


def play_game(engine, players, seed: int, bot: str = "random", max_moves: int = 200_000,
              on_move=None, options=None):
    """Play one game with bots; returns (final state, list of moves). `on_move(state, move,
    events)` is called after each move (for accounts and logs)."""
    state = engine.new_game(players, seed, options)
    bots = BOTS[bot](seed)
    moves = []
    while not engine.is_over(state) and len(moves) < max_moves:
        legal = engine.legal_moves(state)
        if not legal:
            break
        mv = bots.choose(engine, state, legal)
        events = []
        new = engine.apply(state, mv, events=events)
        if on_move:
            on_move(state, mv, events, new)
        state = new
        moves.append(mv)
    return state, moves
