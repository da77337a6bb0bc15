"""Undo for any game: a game kept as its start (the `new_game` parameters) and its moves.

Why undo replays instead of reversing moves: a move may run any amount of pack rules, and
writing the inverse of each primitive would be a second engine to keep right. It is not
needed: the state is plain data and the game's only randomness is a seeded generator kept in
the state (interpreter/rng.py), so the same moves applied to the same start always rebuild
the same state, byte for byte. Undoing a move is rebuilding the position one move shorter.

To keep that cheap, a copy of the state is kept every `checkpoint_every` moves and a rebuild
replays only the moves since the last checkpoint, without the pack's constraints (each move was
checked when it was first played). Measured on whole random games of the base pack (1,200 to
3,200 moves, states of 8 to 12 KB): a checkpoint every 8 moves makes an undo take about 0.4 ms
(median) and costs about 1 MB of checkpoints per 1,000 moves; every 16 moves, 0.8 ms and half
the memory; every 32, 2 ms. Undoing a whole game back to its start: about 1 s per 2,500 moves.

A human seat (undo at a terminal), a replay viewer stepping back, or a test walking back to
the start all use the same object: `apply(move)`, `undo()`, `state`, `moves`, and `events`:
what each move did (interpreter/events.py), kept beside the moves since it is not in the state.
"""
from __future__ import annotations

import marshal

from rulespec.errors import RulespecError

from .api import IllegalMove

# Moves between two kept copies of the state (see the module docstring for the measurements).
CHECKPOINT_EVERY = 8


class GameRecord:
    """One game: how it started (players, seed, options) and the moves played since.

    `state` is the current position; treat it as read-only (apply and undo replace it).
    A refused move raises IllegalMove and leaves the record as it was; so does `undo()` when
    no move has been played."""

    def __init__(self, engine, players, seed: int = 0, options: dict | None = None,
                 moves=(), checkpoint_every: int = CHECKPOINT_EVERY):
        self.engine = engine
        self.players = players
        self.seed = seed
        self.options = dict(options or {})
        self.checkpoint_every = max(1, int(checkpoint_every))
        self._state = engine.new_game(players, seed, self.options)
        self._moves: list = []
        self._events: list = []        # [i]: the events of move i (Engine.apply's `events`)
        self._checkpoints: list = [_freeze(self._state)]   # [i]: the state after i * checkpoint_every moves
        for mv in moves:
            self.apply(mv)

    @property
    def state(self) -> dict:
        return self._state

    @property
    def moves(self) -> tuple:
        return tuple(self._moves)

    @property
    def events(self) -> tuple:
        """The events of each move, in move order: one list per move (account lines and the
        pack's events, as Engine.apply reports them)."""
        return tuple(self._events)

    def __len__(self) -> int:
        return len(self._moves)

    def legal_moves(self) -> list:
        return self.engine.legal_moves(self._state)

    def apply(self, move: str) -> dict:
        """Play a move (checked like Engine.apply); returns the new state."""
        done: list = []
        new = self.engine.apply(self._state, move, events=done)
        self._moves.append(move)
        self._events.append(done)
        self._state = new
        if len(self._moves) % self.checkpoint_every == 0:
            self._checkpoints.append(_freeze(new))
        return new

    def undo(self) -> str:
        """Take back the last move; returns it. Refused (IllegalMove) at the start of the game."""
        if not self._moves:
            raise IllegalMove("undo", "there is no move to undo: the game is at its start")
        move = self._moves.pop()
        self._events.pop()
        n = len(self._moves)
        del self._checkpoints[n // self.checkpoint_every + 1:]
        self._state = self.state_at(n)
        return move

    def state_at(self, n: int) -> dict:
        """A new copy of the state after the first n moves (0: the start)."""
        if not 0 <= n <= len(self._moves):
            raise RulespecError(f"no position after {n} moves: the game has {len(self._moves)}", code="RS400")
        i = n // self.checkpoint_every
        st = _thaw(self._checkpoints[i])
        for mv in self._moves[i * self.checkpoint_every:n]:
            st = self.engine.apply(st, mv, check=False, transactional=False)
        return st


def _freeze(state: dict) -> bytes:
    return marshal.dumps(state)


def _thaw(frozen: bytes) -> dict:
    return marshal.loads(frozen)
