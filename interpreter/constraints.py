"""Checking the pack's constraints after a move, re-evaluating only those whose inputs changed.

A constraint is an invariant the rules must keep (`constraint` declarations): after every move
each one must hold, for each player when its scope is `player`. Evaluating all of them after
every move is a third of the time of a move; most moves change a few numbers of one player.

So the checker remembers, for each constraint, which parts of the state it has ever read: keys
of the state itself (`cities`, `tracks`, `year`...), and keys of a player's things (`rooms`,
`court`, `florins`...), as the evaluated player's own or as another player's; under a key that
holds records (rooms, Cortigiano spaces, tiles, cities, alliances), the fields read from them
(`court.card`), so that a card flipping to its exhausted side does not concern a constraint
that only asks which cards a player has; and under a dict field of the state's own records (a
City's `troops` {side: n}), the keys read, each counted as its side's own (`player.troops` of
one House reads that House's key in every City), so that one House's Troop concerns only the
constraints of that House (and of those that read others' counts). It learns them by evaluating on a view of the state
that notes every key read. It also keeps a copy of what was under each of those keys in the
last state that passed the check (the snapshot). A check compares the state with the snapshot,
key by key (field by field in records), and re-evaluates a constraint only where something it
has ever read differs. A record's fields are reached only through its key, so a change in
the shape of a list or dict of records (a length, a set of keys) counts as a change of the key.

Most constraints need not be watched at all: what they can ever read is worked out from their
code (static_reads): the compiler notes each read of the code it generates (Compiler.noting),
through the formulas and method formulas it calls, with the side each argument is (the
evaluated player, a parameter, any side), the built-in functions declare theirs
(runtime.BUILTIN_READS), and `Runtime.attr` of a value typed only at play time counts the reads
of every route it may take. Such a constraint starts with those reads and is evaluated on the
plain state (watching was two thirds of an evaluation); one whose reads cannot be worked out
(a built-in that declares none, an entry field, a formula that recurses) is watched as above.
The test suite evaluates each of the first kind again, watched, and fails when it read
anything outside them (VERIFY_WRITES, _cover).

A move's writes name fields too (Writes.at_field: a card exhausted, a Room's symbol used): a
key whose records had only fields written that no constraint read is not compared, and the
snapshot keeps its older values of those fields (they stand for nothing read); when a
constraint reads something new, every key is copied anew.

Why this is sound: a formula only reads the state. Every (constraint, player) holds in the
snapshot's state: each was evaluated there or is unchanged since it last was. A formula whose
reads (all in its remembered set, which only grows) find the same values as in the snapshot
gives the same result as there. So this holds for any state, not only the successor of the last
one checked: a move applied in place, a replay, another game on the same engine, a branch
explored by a bot. A key without a copy (read for the first time by a check that failed)
counts as changed. The first check of an engine evaluates everything. Formulas that compare or
copy a whole record, or iterate it, read all its fields ("court.*").
"""
from __future__ import annotations

import marshal
import operator

from rulespec.errors import RULE_ERRORS, RuleFault

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

    def __eq__(self, other):
        self._all()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        self._all()
        return dict.__ne__(self, other)

    __hash__ = None

    def copy(self):
        self._all()
        return dict(dict.items(self))


class _LazyWatched(_Watched):
    """A watched dict of the state or of a player whose values are watched too
    (_watched_records) from their first read on: a check reads a few of them, and wrapping
    every record of the state for each check cost a third of the check. Reading them all
    (iterating, comparing, copying) wraps the rest first, so every read is noted as before."""

    __slots__ = ("done",)      # the keys whose values are watched already (or need not be)

    def _wrap(self, k):
        self.done.add(k)
        if dict.__contains__(self, k):
            dict.__setitem__(self, k, _watched_records(dict.__getitem__(self, k), self.log, (self.role, k)))

    def __getitem__(self, k):       # _Watched's, after the wrapping: one call per read
        if k not in self.done:
            self._wrap(k)
        self.log.cur.add((self.role, k))
        return dict.__getitem__(self, k)

    def get(self, k, default=None):
        if k not in self.done:
            self._wrap(k)
        self.log.cur.add((self.role, k))
        return dict.get(self, k, default)

    def _all(self):
        for k in dict.keys(self) - self.done:
            self._wrap(k)
        _Watched._all(self)


def _lazy(d: dict, log: ReadLog, role) -> _LazyWatched:
    """A copy of `d` noting its reads in `log` as `role`, its values watched from their first
    read on."""
    w = _LazyWatched(d)
    w.log, w.role, w.done = log, role, set()
    return w


class _WatchedRecord(_Watched):
    """A record of the state's own (a City among `cities`) whose dict fields (`count by`:
    `troops` {side: n}) are watched key by key (_Keyed): a formula that reads one side's count
    depends on that key alone, so a Troop recruited by one House concerns a constraint about
    another House's Troops no more."""

    __slots__ = ()

    def __getitem__(self, k):
        v = dict.__getitem__(self, k)
        if type(v) is dict:
            return _keyed(v, self, k)
        self.log.cur.add((self.role, k))
        return v

    def get(self, k, default=None):
        v = dict.get(self, k, _MISSING)
        if type(v) is dict:
            return _keyed(v, self, k)
        self.log.cur.add((self.role, k))
        return default if v is _MISSING else v


class _Keyed(_Watched):
    """A dict field of a state record: reading one key notes (record role + field, key);
    reading it whole (iterating, comparing, copying) notes the field, as for any field."""

    __slots__ = ("whole",)

    def _all(self):
        self.log.cur.add(self.whole)


def _keyed(d: dict, rec: _WatchedRecord, field) -> _Keyed:
    """The dict field `field` of the watched record `rec`, watched key by key."""
    w = _Keyed(d)
    w.log, w.role, w.whole = rec.log, rec.role + (field,), (rec.role, field)
    return w


def _watched_records(v, log: ReadLog, role):
    """A list or dict of records (a player's rooms, Cortigiano spaces and tiles; the state's
    cities and alliances) with each record watched, so that reading `court[i]["card"]` notes
    the field (role, "court") + "card": a card flipping to its exhausted side then concerns
    only formulas that read "exhausted". The container itself is not watched: taking it from
    its parent notes its key, which then stands for its shape (its length, its keys).
    Anything else is returned as it is."""
    kind = _WatchedRecord if role[0] is None else _Watched     # the state's own records: counts by key
    if type(v) is list:
        if not v or type(v[0]) is not dict:
            return v
        out = list(map(kind, v))
        records = out
    elif type(v) is dict and v:
        for x in v.values():
            if type(x) is not dict:
                return v
        out = dict(zip(v, map(kind, v.values())))
        records = out.values()
    else:
        return v
    for w in records:           # each copy notes its reads in `log`, as `role`
        w.log, w.role = log, role
    return out


def _watched_state(st: dict, log: ReadLog) -> _Watched:
    """The state as constraints read it: its keys, each player's keys, and the fields of the
    records under them are noted."""
    view = _lazy(st, log, None)
    view.done.add("p")
    players = {q: _lazy(d, log, q) for q, d in st["p"].items()}
    dict.__setitem__(view, "p", players)
    return view


def _field(key, field) -> str:
    return f"{key}.{field}"


class _Reads:
    """What one constraint has ever read: state keys, and keys of the evaluated player's and
    of other players' things ("*" = all of them; "court.card" = the field of the records in
    a list, "court.*" = all their fields)."""

    __slots__ = ("top", "own", "other", "_learnt", "static")

    def __init__(self):
        self.top, self.own, self.other = set(), set(), set()
        self._learnt = {}       # player -> the reads (role, key) already learnt evaluating for it
        # worked out from the constraint's code (static_reads): evaluated on the plain state,
        # nothing to learn
        self.static = False

    def learn(self, log, player, everything: "_Reads") -> bool:
        """Add what one evaluation read (also to `everything`: what any constraint read);
        whether this constraint read a key it had not read before. A read already learnt for
        the same player adds nothing (its names depend on the read and the player alone): most
        evaluations read what they read before, and only the new reads are gone through."""
        learnt = self._learnt.get(player)
        if learnt is None:
            learnt = self._learnt[player] = set()
        elif log <= learnt:
            return False
        log = log - learnt
        learnt |= log
        known = len(self.top) + len(self.own) + len(self.other)
        for role, key in log:
            if role is None:
                self.top.add(key)
                everything.top.add(key)
                continue
            if type(role) is tuple and len(role) == 3:      # one key of a state record's dict field
                name = role[1:]             # (container key, field): compared per side, as a side's keys
                (self.own if key == player else self.other).add(name)
                everything.top.add(role[1])
                continue
            if type(role) is tuple:         # a field of a record: (owner, container key)
                role, key = role[0], _field(role[1], key)
                if role is None:
                    self.top.add(key)
                    everything.top.add(key)
                    continue
            (self.own if role == player else self.other).add(key)
            everything.own.add(key)
        return len(self.top) + len(self.own) + len(self.other) != known

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
        if len(others_hit) > 1:
            return players          # each of them has another player's change to read
        own_hit = [q for q, keys in by_player.items() if _ANY in own or not own.isdisjoint(keys)]
        return [p for p in players if p in own_hit or (others_hit and others_hit[0] != p)]


class _Changes:
    """What differs between the state and the snapshot, among the keys any constraint read:
    keys of the state, and keys of each player's things (with their fields, as _Reads names
    them); `keys`: the keys themselves whose values differ, under None for the state's and
    under a side for its own (what the snapshot's update copies)."""

    __slots__ = ("top", "by_player", "any_player", "keys")

    def __init__(self, top: set, by_player: dict, keys: dict):
        self.top, self.by_player, self.keys = top, by_player, keys
        self.any_player = set().union(*by_player.values()) if by_player else set()

    def __bool__(self):
        return bool(self.top or self.by_player)


# What changes() returns whenever nothing differs (most checks): one for all, told by identity.
_UNCHANGED = _Changes(frozenset(), {}, {})


class Writes:
    """What a move may have changed in the state (Runtime.wrote): keys of the state (`top`) and
    keys of the sides' records (`side`, any side). The VM and the primitives note every write
    they make as they make it; a primitive that cannot say what it writes makes the whole log
    unknown (Runtime.wrote = None). Then a check compares only the keys written (the rest of
    the state is the last checked one's) instead of every key a constraint ever read: a move
    that writes nothing a constraint reads (a payment tap, a choice that only opens a block)
    costs no comparison at all."""

    __slots__ = ("top", "side", "fields", "top_fields")
    # a try on a shallow copy (NoWrites), where even a verb that writes nothing of the state
    # stops the try: a verb with no keys to note need not call add_top otherwise (Runtime.verb)
    shallow = False

    def __init__(self):
        self.top: set = set()
        self.side: dict = {}        # key -> the sides written (None among them: any side)
        # writes of one field of the records under a key (`at_field`): (side, key, field) for a
        # side's records (side None: any side), (key, field) for the state's own (`top_fields`);
        # a key written only this way is compared only when a constraint read that field
        self.fields: set = set()
        self.top_fields: set = set()

    def at(self, store: str, key: str, who=None):
        """A write under state[store] ('' the game's own fields); in the sides' store, under
        `key` of side `who` (None: a side not named)."""
        if store == "p":
            got = self.side.get(key)
            if got is None:
                self.side[key] = {who}
            else:
                got.add(who)
        else:
            self.top.add(store or key)

    def at_field(self, store: str, key: str, who, field: str):
        """A write of field `field` of one record: of those under `key` of side `who` (store
        'p'), else of the state's own records under state[store] (a City among `cities`):
        its list or dict of records keeps its shape, and a constraint that read neither that
        field nor all fields of those records is not concerned."""
        if store == "p":
            self.fields.add((who, key, field))
        else:
            self.top_fields.add((store, field))

    def add_top(self, keys):
        """Writes under these keys of the state (a verb's, an action's: runtime._VERB_WRITES)."""
        self.top.update(keys)

    def unknown(self):
        """A primitive is about to write what it cannot name (Runtime.writes_unknown)."""


class Shared(Exception):
    """A try on a shallow copy of the state was about to write a value the copy shares with the
    state (NoWrites): the try is made again on a full copy (api.Engine._try)."""


class NoWrites(Writes):
    """The writes of a try made on a shallow copy of the state (api.Engine._try): the copy
    shares every value with the state but the running rules (`vm`) and the game's own keys it
    is given anew, so the first write of anything raises Shared, before the write is made (the
    VM and the primitives note each write before they make it). A try that only opens a block,
    takes a step or asks the next question costs no copy of the state."""

    __slots__ = ()
    shallow = True

    def at(self, store: str, key: str, who=None):
        raise Shared(store or key)

    def at_field(self, store: str, key: str, who, field: str):
        raise Shared(store or key)

    def add_top(self, keys):
        raise Shared(keys)

    def unknown(self):
        raise Shared("unknown")


# The test suite sets this: every check by a move's writes is compared with the full one
# (tests/conftest.py), so a primitive that writes without noting it fails the tests.
VERIFY_WRITES = False


def _verify(by_writes: "_Changes", full: "_Changes", wrote: Writes, names: tuple):
    """The changes found by the writes are those found in full, among what some constraint
    read (names: of the state, of the sides): the snapshot may keep older values of fields
    no constraint read (Snapshot.written)."""
    top, side = names

    def read(ch):
        by_player = {q: got for q, keys in ch.by_player.items() if (got := keys & side)}
        return ch.top & top, by_player
    if read(by_writes) != read(full):
        raise AssertionError(f"a move changed what it did not note: by its writes {by_writes.top} "
                             f"{by_writes.by_player}, in full {full.top} {full.by_player} "
                             f"(noted: {sorted(wrote.top)}, sides {sorted(wrote.side)})")


_MISSING = object()
_P = frozenset(("p",))     # the players' things: compared key by key, per player
_ATOMS = (int, str, bool, float, type(None))


def _frozen(v):
    """A copy that later moves cannot change (the state is plain data: marshal copies it)."""
    return v if type(v) in _ATOMS else marshal.loads(marshal.dumps(v))


class _Snapshot:
    """The values, in the last state that passed, of every key any constraint has read."""

    __slots__ = ("top", "p", "_keys", "_seen", "_filled")

    def __init__(self):
        self.top: dict = {}
        self.p: dict = {}       # player -> {key: value}
        self._keys = (-1, -1, None, None)
        self._seen = {}         # None (the state) or a player -> the snapshot's values, in key order
        self._filled = None     # the watched keys (self.keys) as of the last update, which copied them all

    def keys(self, watched: _Reads):
        """The state keys (but "p") and player keys to compare, each a `_Keys`: the watched
        names without their fields, worked out again only when the watched sets have grown."""
        n_top, n_own, top, own = self._keys
        if n_top != len(watched.top) or n_own != len(watched.own):
            top, own = _Keys(_bases(watched.top) - _P), _Keys(_bases(watched.own))
            self._keys = (len(watched.top), len(watched.own), top, own)
            self._seen = {}
        return top, own

    def _same(self, who, d: dict, snap: dict, keys: "_Keys") -> bool:
        """Whether `d` holds the snapshot's values under all `keys`: one comparison, in C."""
        seen = self._seen.get(who)
        if seen is None:
            seen = self._seen[who] = tuple(snap.get(k, _MISSING) for k in keys.names)
        return keys.values(d) == seen

    def changes(self, st: dict, watched: _Reads) -> _Changes:
        """What differs from the snapshot under the watched keys."""
        top_bases, own_bases = self.keys(watched)
        snap = self.top
        top, keys = set(), {}
        every_top = _ANY in watched.top
        if every_top or not self._same(None, st, snap, top_bases):
            for k in ((k for k in st if k != "p") if every_top else top_bases.names):
                hit = _key_changes(k, st, snap, True)
                if hit:
                    top |= hit
                    keys.setdefault(None, set()).add(k)
        by_player = {}
        every_key = _ANY in watched.own
        for q, mine in st["p"].items():
            old = self.p.get(q)
            if old is None:
                by_player[q] = {_ANY}
                continue
            if not every_key and self._same(q, mine, old, own_bases):
                continue
            hit = set()
            for k in (mine.keys() | old.keys() if every_key else own_bases.names):
                got = _key_changes(k, mine, old)
                if got:
                    hit |= got
                    keys.setdefault(q, set()).add(k)
            if hit:
                by_player[q] = hit
        if not top and not by_player:
            return _UNCHANGED
        _by_key(top, by_player)
        return _Changes(top, by_player, keys)

    def written(self, st: dict, watched: _Reads, wrote: Writes, read_fields: tuple) -> _Changes:
        """changes(), when the move from the snapshot's very state wrote only the keys `wrote`
        names: the others are compared by not being written. A key whose records had only
        fields written that no constraint read (read_fields: (key, field) pairs read of the
        state's records, of the sides' records; field "*": all of them) is not compared either:
        what any constraint read there is unchanged. The snapshot then keeps its older values
        of those fields (not read: they stand for nothing; ConstraintChecker.check copies
        every key again when a constraint reads something new)."""
        if not (wrote.top or wrote.side or wrote.fields or wrote.top_fields):
            return _UNCHANGED           # a move that wrote nothing (a choice that opens a block): a third of them
        top_bases, own_bases = self.keys(watched)
        top, by_player, keys = set(), {}, {}
        snap = self.top
        written_top, written_side = wrote.top, wrote.side.items()
        if wrote.top_fields or wrote.fields:
            # a field no constraint read, written in records that keep their shape: no concern
            top_read, side_read = read_fields
            got = {k for k, f in wrote.top_fields if (k, f) in top_read or (k, _ANY) in top_read}
            if got:
                written_top = written_top | got
            got = {}
            for who, k, f in wrote.fields:
                if (k, f) in side_read or (k, _ANY) in side_read:
                    got.setdefault(k, set()).add(who)
            if got:
                for k, whos in wrote.side.items():
                    got[k] = got[k] | whos if k in got else whos
                written_side = got.items()
        for k in written_top & top_bases.set:
            hit = _key_changes(k, st, snap, True)
            if hit:
                top |= hit
                keys.setdefault(None, set()).add(k)
        sides, watched_keys = st["p"], own_bases.set
        for k, whos in written_side:
            if k not in watched_keys:
                continue
            for q in (sides if None in whos else whos):
                mine, old = sides.get(q), self.p.get(q)
                if mine is None:
                    continue        # not a side of this state (the sides are the snapshot's: check)
                if old is None:
                    by_player[q] = {_ANY}
                    continue
                hit = _key_changes(k, mine, old)
                if hit:
                    by_player[q] = by_player.get(q, set()) | hit
                    keys.setdefault(q, set()).add(k)
        if not top and not by_player:
            return _UNCHANGED
        _by_key(top, by_player)
        return _Changes(top, by_player, keys)

    def update(self, st: dict, watched: _Reads, changes: _Changes | None):
        """Make the snapshot hold `st`'s value under every watched key: those that differed
        (`changes`; None: all of them) and those watched since (learnt by this check)."""
        every_top, every_key = _ANY in watched.top, _ANY in watched.own
        top_bases, own_bases = self.keys(watched)
        # Keys watched since the last update may have no copy yet: they are looked for only when
        # the watched keys grew (a key without a copy because the state had none stays so until
        # a change names it), and a side without changes is not visited otherwise.
        grown = self._filled != (top_bases, own_bases)
        self._filled = (top_bases, own_bases)
        self._seen = {}
        snap = self.top
        if changes is None or every_top:
            keys = {k for k in st if k != "p"} if every_top else top_bases.set
        else:
            keys = changes.keys.get(None, _NONE)
            if grown:
                keys = keys | (top_bases.set - snap.keys())
        for k in keys:
            _put(snap, k, st.get(k, _MISSING))
        sides = st["p"]
        for q in (sides if changes is None or every_key or grown else changes.by_player):
            mine = sides.get(q)
            if mine is None:
                continue            # a side's key in a state record's dict field, not a side here
            old = self.p.setdefault(q, {})
            hit = None if changes is None else changes.by_player.get(q, _NONE)
            if hit is None or every_key or _ANY in hit:
                keys = mine.keys() | old.keys() if every_key else own_bases.set
            else:
                keys = changes.keys.get(q, _NONE)
                if grown:
                    keys = keys | (own_bases.set - old.keys())
            for k in keys:
                _put(old, k, mine.get(k, _MISSING))


class _Keys:
    """Keys to compare: as a set, in a fixed order, and a getter of their values in that order
    (a tuple; KeyError when one is missing, which the comparison then counts as a change)."""

    __slots__ = ("set", "names", "_get")

    def __init__(self, keys: set):
        self.set, self.names = keys, tuple(sorted(keys))
        self._get = operator.itemgetter(*self.names) if len(self.names) > 1 else None

    def values(self, d: dict):
        try:
            if self._get is not None:
                return self._get(d)
            return tuple(d[k] for k in self.names)
        except KeyError:
            return None


def _bases(keys) -> set:
    """The keys themselves, without the fields of their records ("court.card" -> "court");
    a key of a record's dict field ((container, field), a side's change) is not one."""
    return {k.split(".", 1)[0] for k in keys if type(k) is str}


_NONE = frozenset()


def _key_changes(k, d: dict, snap: dict, keyed: bool = False):
    """What differs under key k between `d` and the snapshot's `snap` (_what_differs), nothing
    when the two hold equal values."""
    now, was = d.get(k, _MISSING), snap.get(k, _MISSING)
    return _NONE if now == was else _what_differs(k, now, was, keyed)


def _what_differs(k, now, was, keyed: bool = False) -> set:
    """Names of what differs under key k: the key itself when a list or dict of records changed
    shape (or anything else changed), else the fields that changed in its records ("court.*"
    stands for any of them: a formula that iterated a record read them all). keyed (the
    state's own records, _WatchedRecord): a dict field also names each of its keys whose value
    changed, as (k, field, key)."""
    if type(now) is list and type(was) is list and len(now) == len(was):
        pairs = [(a, b) for a, b in zip(now, was) if a != b]
    elif type(now) is dict and type(was) is dict and now.keys() == was.keys():
        pairs = [(a, was[x]) for x, a in now.items() if a != was[x]]
    else:
        return {k}
    fields = {_field(k, _ANY)}
    for a, b in pairs:
        if type(a) is not dict or type(b) is not dict or a.keys() != b.keys():
            return {k}
        for f, v in a.items():
            w = b[f]
            if v != w:
                fields.add(_field(k, f))
                if keyed and type(v) is dict and type(w) is dict:
                    fields.update((k, f, x) for x in v.keys() | w.keys()
                                  if v.get(x, _MISSING) != w.get(x, _MISSING))
    return fields


def _by_key(top: set, by_player: dict):
    """Move the changed keys of dict fields (k, field, key) from `top` to `by_player[key]`
    as (k, field): a formula that read one side's key concerns that side (_Reads.learn)."""
    keyed = [x for x in top if type(x) is tuple]
    for k, f, x in keyed:
        top.discard((k, f, x))
        got = by_player.get(x)
        if got is None:
            by_player[x] = {(k, f)}
        else:
            got.add((k, f))


def _put(snap: dict, k, v):
    """Make snap[k] a copy of v. A list or dict of records of the same shape keeps its copies
    of the records that did not change (a move changes one City of thirty)."""
    if v is _MISSING:
        snap.pop(k, None)
        return
    was = snap.get(k, _MISSING)
    if type(v) is list and type(was) is list and len(v) == len(was):
        for i, x in enumerate(v):
            if was[i] != x:
                was[i] = _frozen(x)
    elif type(v) is dict and type(was) is dict and v.keys() == was.keys():
        for i, x in v.items():
            if was[i] != x:
                was[i] = _frozen(x)
    elif was != v:
        snap[k] = _frozen(v)


class _Unknown(Exception):
    """What a constraint's code reads cannot be worked out from it (static_reads)."""


def static_reads(rs, c) -> "_Reads | None":
    """What constraint `c` can ever read, worked out from its code (the read items the compiler
    noted, Compiler.noting), through the formulas and methods it calls, each call with the
    sides its arguments are (so `player.troops` reads the player's own troops), and the
    built-in functions' declared reads (runtime.BUILTIN_READS); None when anything it calls
    cannot say (a value of a type known only at play time, a built-in not declared): then its
    reads are learnt while it is evaluated, watched. Never fewer than it can read: the test
    suite evaluates each constraint watched too and fails when it read anything else
    (VERIFY_WRITES, _cover)."""
    from .runtime import BUILTIN_READS, GLOBAL_READS
    top, side = {"p"}, set()           # side: (role: "player" | "any", name)
    done = set()

    def role_of(r, binding):
        if type(r) is tuple:
            if r[0] == "param":
                return binding.get(r[1], "any")
            return "any"            # ("rec", ...): a record, not a side
        return r if r == "player" else "any"

    def add_side(role, name):
        side.add((role, name))

    def walk(items, binding, stack):
        for it in items:
            kind = it[0]
            if kind == "top":
                top.add(it[1])
            elif kind == "side":
                add_side(role_of(it[1], binding), it[2])
            elif kind == "keyed":       # one side's key of a dict field of the state's records
                top.add(it[2])
                add_side(role_of(it[1], binding), (it[2], it[3]))
            elif kind == "global":
                if it[1] not in GLOBAL_READS:
                    raise _Unknown(it[1])
                top.add(GLOBAL_READS[it[1]])
            elif kind == "instances":
                kd = rs.world.kinds.get(it[1])
                if kd is not None and kd.store and it[1] not in ("card", "tile"):
                    top.add(kd.store)
            elif kind == "builtin":
                how = BUILTIN_READS.get(it[1])
                if how is None:
                    raise _Unknown(it[1])
                for who, name in how(rs, [role_of(r, binding) for r in it[2]], it[3]):
                    if who is None:
                        top.add(name)
                    else:
                        add_side(who, name)
            elif kind == "catalogue":
                _catalogue_reads(rs, it[1])
                top.update(("vars", f"vars.{it[1]}"))      # a variable a rule set on the thing
                add_side("any", "vars")
            elif kind == "space":
                _space_reads(rs, it[1])
            elif kind == "attr":
                for call in _attr_reads(rs, it[1], top, add_side):
                    walk([("call", call, ("any",), ())], {}, stack)
            elif kind == "call":
                f = rs.formulas.get(it[1])
                if f is None or it[1] not in rs.formula_reads:
                    raise _Unknown(it[1])
                names = f["names"]
                bound = {n: role_of(r, binding) for n, r in zip(names, it[2])}
                for k, r in it[3]:
                    bound[k] = role_of(r, binding)
                key = (it[1], tuple(sorted(bound.items())))
                if key in stack:
                    raise _Unknown(f"{it[1]} calls itself")
                if key not in done:
                    done.add(key)
                    walk(rs.formula_reads[it[1]], bound, stack | {key})
            else:
                raise _Unknown(str(it[1:]))

    try:
        walk(c["reads"], {}, frozenset())
    except _Unknown:
        return None
    r = _Reads()
    r.top = top
    for role, name in side:
        if role == "player" and c["scope"] != "game":
            r.own.add(name)
        elif c["scope"] == "game":
            r.other.add(name)
        else:
            r.own.add(name)
            r.other.add(name)
    r.static = True
    return r


def _catalogue_reads(rs, name):
    """Runtime.catalogue_field's reads of `x.name` beyond the things' variables: _Unknown when
    some thing's value of it is a formula, or when it may be an entry field, a track space's
    field, a War Bonus's or a declared object's formula (Runtime.field_of)."""
    from rulespec.kinds import SPACE
    for it in list(rs.cards.values()) + list(rs.tiles.values()):
        v = it.get(name)
        if callable(v) and not hasattr(v, "constant"):
            raise _Unknown(f"catalogue field {name}")
    for wb in rs.war_bonuses.values():
        if callable(wb.get(name)):
            raise _Unknown(f"war bonus field {name}")
    if name in SPACE.fields:
        _space_reads(rs, name)
    if name == "commanded_by":          # a side's declared formula
        raise _Unknown(name)
    for kind in rs.field_kinds:
        for d in rs.pack.of_kind(kind):
            if rs.decl_fn(d, name) is not None:
                raise _Unknown(f"{kind} field {name}")
    if name in _entry_names(rs):
        raise _Unknown(f"entry field {name}")


def _attr_reads(rs, name, top: set, add_side) -> list:
    """Runtime.attr(x, name) of a value whose type is known only at play time: the reads of
    every route it may take, for any type (Runtime.type_name, _attr_route, field_of); returns
    the method formulas it may call. _Unknown when a route's reads are not known."""
    from .runtime import Runtime
    if any(a.startswith("a_") and a.endswith("_" + name) for a in dir(Runtime)):
        raise _Unknown(f"a_..._{name}")
    top.update(("p", "vars", f"vars.{name}"))       # type_name, the things' variables
    types = {"player", "space", "card", "tile", "track"}
    for kind, store in rs.stored_kinds:             # type_name asks every store
        top.add(store)
        types.add(kind)
    for rtype, (store, key) in rs.record_lists.items():     # a record's ref (parse_ref)
        if store != "p":
            raise _Unknown(f"a record of {rtype}")
        add_side("any", key)
        add_side("any", f"{key}.{name}")
        types.add(rtype)
    top.update(("tracks", "tracks.spots"))          # a track space's stored spot
    calls = []
    for t in types:
        slot = rs.slot(t, name)
        if slot is not None and not (slot.on_map or slot.on_board):
            field = slot.home or slot.key
            if slot.of_record:
                lst = rs.record_lists.get(slot.kind)
                if lst is None or lst[0] != "p":
                    raise _Unknown(f"a field of {slot.kind}")
                add_side("any", lst[1])
                add_side("any", f"{lst[1]}.{field}")
            elif slot.store == "p":
                add_side("any", field)
            elif slot.store:
                top.update((slot.store, f"{slot.store}.{field}"))
            else:
                top.add(field)
        if (t, name) in rs.method_types:
            calls.append(name)
        zr = rs.zone_slot(t, name)
        if zr is not None:
            if zr.store == "p":
                add_side("any", zr.key)
                add_side("any", f"{zr.key}.id")
            else:
                top.update((zr.store, f"{zr.store}.*"))
    _catalogue_reads(rs, name)          # Runtime.catalogue_field and field_of
    add_side("any", "vars")             # a side's variables (field_of)
    top.add("players")                  # a side's `plays` (field_of)
    return calls


def _space_reads(rs, name):
    """Runtime.space_field reads nothing of the game unless a track space's `name` is a
    formula (_Unknown)."""
    for t in rs.tracks.values():
        for sp in t.get("spaces") or ():
            v = sp.get(name) if isinstance(sp, dict) else None
            if callable(v) and not hasattr(v, "constant"):
                raise _Unknown(f"space field {name}")


def _entry_names(rs):
    w = rs.world
    return {n for z in w.zones.values() for n in z.entry} | \
        {f.name for kind in w.records.values() for f in kind.fields.values() if getattr(f, "entry", False)}


class ConstraintChecker:
    """The constraints of one ruleset, with what each has read so far (per engine: the reads
    of every game played with it add up)."""

    def __init__(self, constraints: list, rs=None):
        self.constraints = [c for c in constraints if c["check"] is not None]
        self.reads = {c["id"]: _Reads() for c in self.constraints}
        self.read_by_any = _Reads()     # `own` holds every player key any constraint read
        if rs is not None and STATIC_READS:
            for c in self.constraints:
                r = static_reads(rs, c) if "reads" in c else None
                if r is not None:
                    self.reads[c["id"]] = r
                    _add_everything(r, self.read_by_any)
        self.snapshot = _Snapshot()
        self.learnt = not self.constraints      # every constraint evaluated at least once
        self._by_key = None         # _index(): which constraints read which keys (None: to build)
        self._fields = None         # _read_fields(): the fields of records any constraint read (None: to build)
        # (state, its pending decision): the last state that passed, when its caller changes it
        # only by moves applied in place (api.apply): the snapshot's very state
        self.passed = None

    def check(self, rt, wrote: Writes | None = None, keep: bool = False):
        """Raise vm.Abort with the constraint's message when one does not hold in rt.state.
        wrote: what the move wrote, when it was applied to the last state that passed (and
        nothing else changed it since): only those keys are compared. keep: remember this
        state as `passed` when it passes (its next move may be checked by its writes)."""
        st = rt.state
        self.passed = None
        changes = None
        w = self.read_by_any
        # the keys a move wrote cannot stand for what it changed when a constraint read every key
        # of the state or of a side (compared in full), or the running rules (`vm`, which every
        # move changes and no move notes), or when the sides are not the snapshot's
        if wrote is not None and (_ANY in w.top or _ANY in w.own or "vm" in w.top
                                  or st["p"].keys() != self.snapshot.p.keys()):
            wrote = None
        if self.learnt:
            changes = (self.snapshot.changes(st, w) if wrote is None
                       else self.snapshot.written(st, w, wrote, self._read_fields()))
            if VERIFY_WRITES and wrote is not None:
                _verify(changes, self.snapshot.changes(st, self.read_by_any), wrote, self._read_names())
            if changes is _UNCHANGED:
                self.passed = (st, st["vm"]["pending"]) if keep else None
                return          # nothing any constraint ever read differs (most moves)
        todo = []
        # after a change, only the constraints that read something it changed (_hit): targets
        # would say () to the others
        for c in (self.constraints if changes is None else self._hit(changes)):
            scope = c["scope"]      # player: the seated sides; side: every side (factions too)
            players = st["players"] if scope == "player" else list(st["p"]) if scope == "side" else (None,)
            targets = players if changes is None else self.reads[c["id"]].targets(players, changes)
            if targets:
                todo.append((c, targets))
        # a constraint that read something new may have read a field the snapshot kept an
        # older value of (written: fields no constraint read are not copied): every key anew
        if todo and self._evaluate(rt, todo):
            changes = None
        self.snapshot.update(st, self.read_by_any, changes)
        self.learnt = True
        self.passed = (st, st["vm"]["pending"]) if keep else None

    def _hit(self, changes: "_Changes") -> list:
        """The constraints that read a key among `changes` (or every key of something), in
        their order: the others need no `targets` at all, and most moves concern a few."""
        if self._by_key is None:
            self._by_key = self._index()
        always, top, side = self._by_key
        hit = set(always)
        for k in changes.top:
            if k in top:
                hit |= top[k]
        for k in changes.any_player:
            if k in side:
                hit |= side[k]
        constraints = self.constraints
        return [constraints[i] for i in sorted(hit)]

    def _read_names(self) -> tuple:
        """(the state names, the side names) any constraint read, as _Reads names them."""
        top, side = set(), set()
        for r in self.reads.values():
            top |= r.top
            side |= r.own | r.other
        return top, side

    def _read_fields(self) -> tuple:
        """({(key, field)} read of the state's own records, {(key, field)} of the sides'
        records; field "*": every field of them), for Snapshot.written."""
        if self._fields is None:
            top, side = self._read_names()
            top_fields, side_fields = set(), set()
            for name in top:
                if type(name) is str and "." in name:
                    top_fields.add(tuple(name.split(".", 1)))
            for name in side:
                if type(name) is tuple:         # a key of a state record's dict field (keyed)
                    top_fields.add(name)
                elif "." in name:
                    side_fields.add(tuple(name.split(".", 1)))
            self._fields = (top_fields, side_fields)
        return self._fields

    def _index(self) -> tuple:
        """(the constraints that read every key of something, {state key: the constraints that
        read it}, {side key: the constraints that read it}), each constraint by its position,
        from what each has read so far."""
        always, top, side = set(), {}, {}
        for i, c in enumerate(self.constraints):
            r = self.reads[c["id"]]
            if _ANY in r.top or _ANY in r.own or _ANY in r.other:
                always.add(i)
            for k in r.top:
                top.setdefault(k, set()).add(i)
            for k in r.own | r.other:
                side.setdefault(k, set()).add(i)
        return always, top, side

    def _evaluate(self, rt, todo) -> bool:
        """Evaluate the constraints of `todo` for their targets (vm.Abort when one does not
        hold); whether any of them read something it had not read before. Those whose reads
        are known from their code (static_reads) are evaluated on the plain state, the others
        on a view of it that notes what they read (each kind with a memo of its own)."""
        st = rt.state
        grew = False
        log = view = watched_memo = None
        plain_memo = {}
        saved = rt.memo, rt.read_log, rt.env
        try:
            for c, targets in todo:
                reads = self.reads[c["id"]]
                static = reads.static
                if static:
                    rt.state, rt.memo, rt.read_log = st, plain_memo, None
                else:
                    if log is None:
                        log = ReadLog()
                        view, watched_memo = _watched_state(st, log), {}
                    rt.state, rt.memo, rt.read_log = view, watched_memo, log
                for p in targets:
                    env = rt.env = {"player": p}     # functions reading the context see this one
                    if not static:
                        log.cur = set()
                    try:
                        ok = c["check"](rt, env)
                        if static and VERIFY_WRITES:
                            _cover(rt, c, p, reads, st)
                    except RuleFault as e:           # a fault of the formula: at the constraint
                        fv = c["decl"].fields.get("check")
                        raise e.at(fv.span if fv is not None else c["decl"].span)
                    except RULE_ERRORS as e:
                        fv = c["decl"].fields.get("check")
                        raise RuleFault.from_python(e, fv.span if fv is not None else c["decl"].span,
                                                    f"constraint '{c['id']}'") from e
                    if not static and reads.learn(log.cur, p, self.read_by_any):
                        self._by_key = self._fields = None     # a key it had not read: _hit's index anew
                        grew = True
                    if not ok:
                        msg = c["message"] if isinstance(c["message"], str) else c["message"](rt, env)
                        raise vm.Abort(msg + (f" ({p})" if p is not None else ""), c["decl"].span)
        finally:
            rt.state, (rt.memo, rt.read_log, rt.env) = st, saved
        return grew


# Constraints whose reads are worked out from their code are evaluated on the plain state
# (static_reads); off: every constraint's reads are learnt, watched (tests/test_speedups.py)
STATIC_READS = True


def _add_everything(r: "_Reads", everything: "_Reads"):
    """What _Reads.learn adds to `everything` (the names any constraint read), for reads known
    from a constraint's code."""
    for name in r.top:
        everything.top.add(name)
    for name in r.own | r.other:
        if type(name) is tuple:
            everything.top.add(name[0])
        else:
            everything.own.add(name)


def _cover(rt, c, p, static: "_Reads", st):
    """The suite's cross-check (VERIFY_WRITES) of a constraint evaluated with the reads worked
    out from its code: evaluated again on a view that notes what it reads, everything it read
    must be among them (else the analysis left something out: static_reads, or a built-in's
    declared reads, runtime.BUILTIN_READS)."""
    log = ReadLog()
    saved = rt.state, rt.memo, rt.read_log
    rt.state, rt.memo, rt.read_log = _watched_state(st, log), {}, log
    try:
        c["check"](rt, {"player": p})
    finally:
        rt.state, rt.memo, rt.read_log = saved
    got = _Reads()
    got.learn(log.cur, p, _Reads())
    missing = [("state", n) for n in got.top if not _covered(n, static.top)]
    for name, mine, theirs in (("own", got.own, static.own), ("other", got.other, static.other)):
        for n in mine:
            if type(n) is tuple:
                if n not in theirs and not _covered(f"{n[0]}.{n[1]}", static.top):
                    missing.append((name, n))
            elif not _covered(n, theirs):
                missing.append((name, n))
    if missing:
        raise AssertionError(f"constraint '{c['id']}' read {sorted(map(str, missing))}, which its "
                             f"reads worked out from its code leave out (constraints.static_reads)")


def _covered(name, names: set) -> bool:
    if name in names or _ANY in names:
        return True
    return type(name) is str and "." in name and _field(name.split(".", 1)[0], _ANY) in names
