"""Checking the pack's constraints after a move, re-evaluating only those whose inputs changed.

A constraint is an invariant the rules must keep (`constraint` declarations): after every move
each one must hold, for each player when its scope is `player`. Evaluating all of them after
every move is a third of the time of a move; most moves change a few numbers of one player.

So the checker remembers, for each constraint, which parts of the state it has ever read: keys
of the state itself (`cities`, `tracks`, `year`...), and keys of a player's things (`rooms`,
`court`, `florins`...), as the evaluated player's own or as another player's.
It learns them by evaluating on a view of the state that notes every key read. After a move it
re-evaluates a constraint only where something it has ever read changed.

Why this is sound: a formula only reads the state. A (constraint, player) that is not
re-evaluated keeps the value of its last evaluation, whose reads are all in the remembered set
(which only grows); nothing in that set changed since, so the formula would read the same
values and give the same result. A new game (no state before), and the first check of an
engine, evaluate everything. Like any incremental check, this takes the state a move starts
from to satisfy the constraints, as every state the engine makes does (a state patched by hand
is only checked where later moves change what the constraints read).
"""
from __future__ import annotations

from . import vm

_ANY = "*"


class ReadLog:
    """Where watched dicts note their reads: `cur` is the set of the computation under way.
    The Runtime's memo (runtime.memoised) gives each memoised value a set of its own, and
    adds it to the current set again whenever it serves the value from the memo."""

    __slots__ = ("cur",)

    def __init__(self):
        self.cur: set = set()


class _Watched(dict):
    """A copy of one dict of the state that notes the keys read from it as (role, key);
    iterating it notes (role, "*"). Only used while formulas read the state."""

    __slots__ = ("log", "role")

    def __getitem__(self, k):
        self.log.cur.add((self.role, k))
        return dict.__getitem__(self, k)

    def get(self, k, default=None):
        self.log.cur.add((self.role, k))
        return dict.get(self, k, default)

    def __contains__(self, k):
        self.log.cur.add((self.role, k))
        return dict.__contains__(self, k)

    def _all(self):
        self.log.cur.add((self.role, _ANY))

    def __iter__(self):
        self._all()
        return dict.__iter__(self)

    def keys(self):
        self._all()
        return dict.keys(self)

    def values(self):
        self._all()
        return dict.values(self)

    def items(self):
        self._all()
        return dict.items(self)

    def __len__(self):
        self._all()
        return dict.__len__(self)


def _watched(d: dict, log: ReadLog, role) -> _Watched:
    w = _Watched(d)
    w.log, w.role = log, role
    return w


class _Reads:
    """What one constraint has ever read: state keys, and keys of the evaluated player's and
    of other players' things ("*" = all of them)."""

    __slots__ = ("top", "own", "other")

    def __init__(self):
        self.top, self.own, self.other = set(), set(), set()

    def learn(self, log, player, everything: "_Reads"):
        """Add what one evaluation read (also to `everything`: what any constraint read)."""
        for role, key in log:
            if role is None:
                self.top.add(key)
                everything.top.add(key)
            else:
                (self.own if role == player else self.other).add(key)
                everything.own.add(key)

    def targets(self, players, changes: "_Changes"):
        """The players (None for a game-wide constraint) to evaluate again."""
        top, own, other = self.top, self.own, self.other
        if _ANY in top or not top.isdisjoint(changes.top):
            return players
        if _ANY not in own and _ANY not in other and own.isdisjoint(changes.any_player) \
                and other.isdisjoint(changes.any_player):
            return ()
        by_player = changes.by_player
        others_hit = [q for q, keys in by_player.items() if _ANY in other or not other.isdisjoint(keys)]
        return [p for p in players
                if any(q != p for q in others_hit)
                or (p in by_player and (_ANY in own or not own.isdisjoint(by_player[p])))]


class _Changes:
    """What a move changed: keys of the state, and keys of each player's things."""

    __slots__ = ("top", "by_player", "any_player")

    def __init__(self, before: dict, after: dict):
        self.top = {k for k in after if k != "p" and after[k] != before.get(k)}
        self.by_player = {}
        for q, mine in after["p"].items():
            old = before["p"].get(q)
            if old is None:
                self.by_player[q] = {_ANY}
            elif old != mine:
                self.by_player[q] = {k for k in mine if mine[k] != old.get(k)} | (old.keys() - mine.keys())
        self.any_player = set().union(*self.by_player.values())

    def __bool__(self):
        return bool(self.top or self.by_player)


class ConstraintChecker:
    """The constraints of one ruleset, with what each has read so far (per engine: the reads
    of every game played with it add up)."""

    def __init__(self, constraints: list):
        self.constraints = [c for c in constraints if c["check"] is not None]
        self.reads = {c["id"]: _Reads() for c in self.constraints}
        self.read_by_any = _Reads()     # `own` holds every player key any constraint read
        self.learnt = not self.constraints      # every constraint evaluated at least once

    def check(self, rt, before: dict | None = None):
        """Raise vm.Abort with the constraint's message when one does not hold after the move
        that turned `before` into rt.state (None: evaluate every constraint)."""
        st = rt.state
        changes = None
        if before is not None and self.learnt:
            changes = _Changes(before, st)
            anything = self.read_by_any
            if (_ANY not in anything.top and anything.top.isdisjoint(changes.top)
                    and _ANY not in anything.own and anything.own.isdisjoint(changes.any_player)):
                return          # nothing any constraint ever read has changed (most moves)
        todo = []
        for c in self.constraints:
            players = st["players"] if c["scope"] == "player" else (None,)
            targets = players if changes is None else self.reads[c["id"]].targets(players, changes)
            if targets:
                todo.append((c, targets))
        if todo:
            self._evaluate(rt, todo)
        if changes is None:
            self.learnt = True

    def _evaluate(self, rt, todo):
        st = rt.state
        log = ReadLog()
        view = _watched(st, log, None)
        view["p"] = {q: _watched(d, log, q) for q, d in st["p"].items()}
        saved = rt.memo, rt.read_log, rt.env
        rt.state, rt.memo, rt.read_log = view, {}, log
        try:
            for c, targets in todo:
                reads = self.reads[c["id"]]
                for p in targets:
                    log.cur = set()
                    env = rt.env = {"player": p}     # functions reading the context see this one
                    ok = c["check"](rt, env)
                    reads.learn(log.cur, p, self.read_by_any)
                    if not ok:
                        raise vm.Abort(c["message"] + (f" ({p})" if p is not None else ""), c["decl"].span)
        finally:
            rt.state, (rt.memo, rt.read_log, rt.env) = st, saved
