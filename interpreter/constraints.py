"""Checking the pack's constraints after a move, re-evaluating only those whose inputs changed.

A constraint is an invariant the rules must keep (`constraint` declarations): after every move
each one must hold, for each player when its scope is `player`. Evaluating all of them after
every move is a third of the time of a move; most moves change a few numbers of one player.

So the checker remembers, for each constraint, which parts of the state it has ever read: keys
of the state itself (`cities`, `tracks`, `year`...), and keys of a player's things (`rooms`,
`court`, `florins`...), as the evaluated player's own or as another player's.
It learns them by evaluating on a view of the state that notes every key read. It also keeps a
copy of what was under each of those keys in the last state that passed the check (the
snapshot). A check compares the state with the snapshot, key by key, and re-evaluates a
constraint only where something it has ever read differs.

Why this is sound: a formula only reads the state. Every (constraint, player) holds in the
snapshot's state: each was evaluated there or is unchanged since it last was. A formula whose
reads (all in its remembered set, which only grows) find the same values as in the snapshot
gives the same result as there. So this holds for any state, not only the successor of the last
one checked: a move applied in place, a replay, another game on the same engine, a branch
explored by a bot. A key without a copy (read for the first time by a check that failed)
counts as changed. The first check of an engine evaluates everything.
"""
from __future__ import annotations

import marshal

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
    """What differs between the state and the snapshot, among the keys any constraint read:
    keys of the state, and keys of each player's things."""

    __slots__ = ("top", "by_player", "any_player")

    def __init__(self, top: set, by_player: dict):
        self.top, self.by_player = top, by_player
        self.any_player = set().union(*by_player.values()) if by_player else set()

    def __bool__(self):
        return bool(self.top or self.by_player)


_MISSING = object()
_P = frozenset(("p",))     # the players' things: compared key by key, per player
_ATOMS = (int, str, bool, float, type(None))


def _frozen(v):
    """A copy that later moves cannot change (the state is plain data: marshal copies it)."""
    return v if type(v) in _ATOMS else marshal.loads(marshal.dumps(v))


class _Snapshot:
    """The values, in the last state that passed, of every key any constraint has read."""

    __slots__ = ("top", "p")

    def __init__(self):
        self.top: dict = {}
        self.p: dict = {}       # player -> {key: value}

    def changes(self, st: dict, watched: _Reads) -> _Changes:
        top_keys = (k for k in st if k != "p") if _ANY in watched.top else watched.top - _P
        snap = self.top
        top = {k for k in top_keys if st.get(k, _MISSING) != snap.get(k, _MISSING)}
        by_player = {}
        every_key = _ANY in watched.own
        for q, mine in st["p"].items():
            old = self.p.get(q)
            if old is None:
                by_player[q] = {_ANY}
                continue
            keys = mine.keys() | old.keys() if every_key else watched.own
            hit = {k for k in keys if mine.get(k, _MISSING) != old.get(k, _MISSING)}
            if hit:
                by_player[q] = hit
        return _Changes(top, by_player)

    def update(self, st: dict, watched: _Reads, changes: _Changes | None):
        """Make the snapshot hold `st`'s value under every watched key: those that differed
        (`changes`; None: all of them) and those watched since (learnt by this check)."""
        every_top, every_key = _ANY in watched.top, _ANY in watched.own
        snap = self.top
        if changes is None or every_top:
            keys = {k for k in st if k != "p"} if every_top else watched.top - _P
        else:
            keys = changes.top | (watched.top - _P - snap.keys())
        for k in keys:
            _put(snap, k, st.get(k, _MISSING))
        for q, mine in st["p"].items():
            old = self.p.setdefault(q, {})
            hit = None if changes is None else changes.by_player.get(q, set())
            if hit is None or every_key or _ANY in hit:
                keys = mine.keys() | old.keys() if every_key else watched.own
            else:
                keys = hit | (watched.own - old.keys())
            for k in keys:
                _put(old, k, mine.get(k, _MISSING))


def _put(snap: dict, k, v):
    if v is _MISSING:
        snap.pop(k, None)
    elif snap.get(k, _MISSING) != v:
        snap[k] = _frozen(v)


class ConstraintChecker:
    """The constraints of one ruleset, with what each has read so far (per engine: the reads
    of every game played with it add up)."""

    def __init__(self, constraints: list):
        self.constraints = [c for c in constraints if c["check"] is not None]
        self.reads = {c["id"]: _Reads() for c in self.constraints}
        self.read_by_any = _Reads()     # `own` holds every player key any constraint read
        self.snapshot = _Snapshot()
        self.learnt = not self.constraints      # every constraint evaluated at least once

    def check(self, rt):
        """Raise vm.Abort with the constraint's message when one does not hold in rt.state."""
        st = rt.state
        changes = None
        if self.learnt:
            changes = self.snapshot.changes(st, self.read_by_any)
            if not changes:
                return          # nothing any constraint ever read differs (most moves)
        todo = []
        for c in self.constraints:
            players = st["players"] if c["scope"] == "player" else (None,)
            targets = players if changes is None else self.reads[c["id"]].targets(players, changes)
            if targets:
                todo.append((c, targets))
        if todo:
            self._evaluate(rt, todo)
        self.snapshot.update(st, self.read_by_any, changes)
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
