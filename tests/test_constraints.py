"""The constraint checker re-evaluates only the constraints whose inputs differ from the last
state that passed (interpreter/constraints.py). Its verdict must be the one a full evaluation
gives, for any state: tested after every move of two games played in turns on one engine (so
each check also jumps between unrelated states), with an overlay whose tight constraints break
often, some of them reading other players' things or reading different parts of the state
depending on a branch."""
from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ci_mode import local_or_ci

from interpreter import vm
from interpreter.api import Engine, IllegalMove
from interpreter.constraints import ConstraintChecker
from rulespec.pack import load_pack

TIGHT = '''
constraint few_florins "At most 5 florins" {
  scope: player
  check: player.florins <= 5
  message: "Too many florins."
}
constraint few_cards "At most 5 cards" {
  scope: player
  check: count(player.cards) <= 5
  message: "Too many cards."
}
constraint branchy "From Year 2, at most 2 Cities and at most 2 Troops" {
  scope: player
  check: year < 2 or (count(player.cities) <= 2 and player.troops <= 2)
  message: "Too many Cities and Troops."
}
constraint not_richer_than_all "Not the richest by more than 4 florins" {
  scope: player
  check: all(player.florins <= p.florins + 4 for p in opponents)
  message: "Too rich."
}
constraint not_outnumbered "No opponent with 3 Troops more than you (reads other Houses' counts, City by City)" {
  scope: player
  check: all(q.troops <= player.troops + 2 for q in opponents)
  message: "Outnumbered."
}
constraint few_agents_placed "At most 4 Agents on the board" {
  scope: game
  check: count([s for s in agent_spots where agent_count(s) > 0]) <= 4
  message: "Too many Agents."
}
'''


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("tight")
    (root / "pack.yaml").write_text("id: tight\nname: Tight\nversion: 0.1.0\nextends: base_3to5\n")
    (root / "tight.rules").write_text(TIGHT)
    return Engine(load_pack(root))


def _verdict(checker, engine, state):
    try:
        checker.check(engine.runtime(state))
        return None
    except vm.Abort as e:
        return e.reason


@settings(max_examples=local_or_ci(2, 12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), players=st.sampled_from([3, 4, 5]), other=st.sampled_from([3, 4, 5]))
def test_incremental_verdict_is_the_full_verdict(engine, seed, players, other):
    rng = random.Random(seed)
    games = [engine.new_game(players, seed), engine.new_game(other, seed + 1)]
    for turn in range(400):
        state = games[turn % 2]
        if engine.is_over(state):
            break
        mv = rng.choice(engine.legal_moves(state))
        try:
            after = engine.apply(state, mv, check=False)
        except IllegalMove:
            continue
        incremental = _verdict(engine.constraint_checker, engine, after)
        full = _verdict(ConstraintChecker(engine.rs.constraints), engine, after)
        assert (incremental is None) == (full is None), (mv, incremental, full)
        if full is None:
            games[turn % 2] = after
        else:       # apply refuses the same move, in place too
            with pytest.raises(IllegalMove):
                engine.apply(state, mv)
            with pytest.raises(IllegalMove):
                engine.apply(copy.deepcopy(state), mv, transactional=False)


def test_tight_constraints_do_refuse_moves(engine):
    """The overlay's constraints break in random play (else the test above proves nothing):
    ones that read a player's things, another player's things, and only the state's own keys."""
    wanted = {"Too many florins.", "Too rich.", "Too many Cities and Troops.", "Outnumbered."}
    refused = set()
    for seed in (5, 6, 7, 8, 9, 10, 11, 12):
        rng = random.Random(seed)
        state = engine.new_game(4, seed)
        for _ in range(400):
            if wanted <= refused:       # seen them all: the rest of the games would add nothing
                break
            after = engine.apply(state, rng.choice(engine.legal_moves(state)), check=False)
            reason = _verdict(ConstraintChecker(engine.rs.constraints), engine, after)
            if reason is None:
                state = after
            else:
                refused.add(reason.split(" (")[0])
    assert wanted <= refused, refused


def test_reads_are_learnt_per_constraint(engine):
    """What each constraint has read: its own player's florins, other players' florins."""
    checker = ConstraintChecker(engine.rs.constraints)
    checker.check(engine.runtime(engine.new_game(4, 2)))
    reads = checker.reads
    assert "florins" in reads["few_florins"].own and not reads["few_florins"].other
    assert "florins" in reads["not_richer_than_all"].other
    assert "year" in reads["branchy"].top


def test_record_fields_are_read_one_by_one(engine):
    """A formula that read one field of the records under a key (the card in each Cortigiano
    space) is not evaluated again when another field changes (a card flips); one that went
    through whole records is; and so is any reader when the list itself changes."""
    from interpreter.constraints import ReadLog, _Reads, _Snapshot, _watched_state
    st = engine.new_game(4, 2)
    players, q = st["players"], st["players"][0]
    log = ReadLog()
    view = _watched_state(st, log)
    everything, cards, whole = _Reads(), _Reads(), _Reads()
    [s["card"] for s in view["p"][q]["court"]]
    cards.learn(log.cur, q, everything)
    log.cur = set()
    [list(s.items()) for s in view["p"][q]["court"]]
    whole.learn(log.cur, q, everything)
    assert "court.card" in cards.own and "court.exhausted" not in cards.own
    snapshot = _Snapshot()
    snapshot.update(st, everything, None)
    st["p"][q]["court"][0]["exhausted"] = not st["p"][q]["court"][0]["exhausted"]
    flipped = snapshot.changes(st, everything)
    assert not cards.targets(players, flipped)
    assert whole.targets(players, flipped) == [q]
    st["p"][q]["court"].append(dict(st["p"][q]["court"][0]))
    grown = snapshot.changes(st, everything)
    assert cards.targets(players, grown) == [q]


def _play_with_full_verdicts(engine, seeds, moves: int, each_move) -> int:
    """Random legal moves applied in place, each move's verdict compared with a full
    evaluation's on a copy (refusals included: the same reason); each_move(state, after) is
    called before each in-place apply. How many moves were refused."""
    refused = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = engine.new_game(4, seed)
        for _ in range(moves):
            if engine.is_over(state):
                break
            mv = rng.choice(engine.legal_moves(state))
            before = copy.deepcopy(state)
            try:
                after = engine.apply(copy.deepcopy(state), mv, check=False)
            except IllegalMove:
                continue
            full = _verdict(ConstraintChecker(engine.rs.constraints), engine, after)
            each_move(state, after)
            try:
                engine.apply(state, mv, transactional=False)
                assert full is None, (mv, full)
            except IllegalMove as e:
                assert full is not None and e.reason == full, (mv, e.reason, full)
                refused += 1
                state = before          # refused in place: the state is half-changed
    return refused


def test_in_place_play_is_checked_by_its_writes_with_the_full_verdict(engine, monkeypatch):
    """A move applied in place to the last state that passed is checked by what it wrote
    (constraints.Writes): the verdict of every move is a full evaluation's, refusals included,
    without the test suite's cross-check (VERIFY_WRITES) doing the work."""
    from interpreter import constraints
    monkeypatch.setattr(constraints, "VERIFY_WRITES", False)
    by_writes = 0

    def each_move(state, after):
        nonlocal by_writes
        passed = engine.constraint_checker.passed
        by_writes += passed is not None and passed[0] is state
    refused = _play_with_full_verdicts(engine, (11, 12), 300, each_move)
    assert by_writes > 200 and refused > 0, (by_writes, refused)


def test_a_write_not_noted_fails_the_cross_check(monkeypatch):
    """The safety net of the tests: a primitive that changes the state without noting it in
    the move's writes makes the in-place check differ from the full one, which the suite's
    cross-check (VERIFY_WRITES, on in tests/conftest.py) reports as an engine error."""
    from interpreter import constraints, world_store
    from rulespec.errors import RulespecError
    from interpreter.bots import play_game
    monkeypatch.setattr(constraints, "VERIFY_WRITES", True)
    monkeypatch.setattr(world_store, "_note", lambda rt, s, x: None)
    with pytest.raises(RulespecError, match="did not note"):
        play_game(Engine(load_pack("base_3to5")), 4, 1, "random")


def test_a_count_by_side_is_read_one_side_at_a_time(engine):
    """A formula that read one side's count in a dict field of the state's records (a City's
    Troops of one House) is evaluated again only for the side whose count changed; one that
    read the whole field (its values) is evaluated again for every player."""
    from interpreter.constraints import ReadLog, _Reads, _Snapshot, _watched_state
    st = engine.new_game(4, 2)
    players = st["players"]
    city, r = next(iter(st["cities"])), players[1]
    log = ReadLog()
    view = _watched_state(st, log)
    everything, one_side, whole = _Reads(), _Reads(), _Reads()
    for p in players:
        log.cur = set()
        [c["troops"].get(p, 0) for c in view["cities"].values()]
        one_side.learn(log.cur, p, everything)
    log.cur = set()
    [sum(c["troops"].values()) for c in view["cities"].values()]
    whole.learn(log.cur, None, everything)
    assert ("cities", "troops") in one_side.own and "cities.troops" not in one_side.top
    snapshot = _Snapshot()
    snapshot.update(st, everything, None)
    st["cities"][city]["troops"][r] = st["cities"][city]["troops"].get(r, 0) + 1
    changed = snapshot.changes(st, everything)
    assert one_side.targets(players, changed) == [r]
    assert whole.targets(players, changed) == players
    snapshot.update(st, everything, changed)
    assert not snapshot.changes(st, everything)


def test_owned_looks_only_where_a_thing_of_the_kind_can_be():
    """owned(side, kind) finds what a search of all the side's things finds, for every kind of
    the catalogue, at every 50th state of a game of the base pack; and a constraint on a tile
    type alone (`one_guild`) has read none of the side's card places."""
    from interpreter.bots import play_game
    from interpreter.state import type_of
    engine = Engine(load_pack("base_3to5"))
    rs = engine.rs
    kinds = sorted(rs.card_kinds | rs.tile_kinds) + ["no_such_kind"]
    seen = []

    def every_50th(turn, move, events, state):
        if len(seen) % 50 == 0:
            rt = engine.runtime(state)
            for p in state["players"]:
                things = rt._owned_things(p)
                for k in kinds:
                    full = []
                    for o in things:
                        if (rt.item(o).get("type") == k or type_of(o) == k) and o not in full:
                            full.append(o)
                    assert rt.f_owned(p, k) == full, (p, k)
        seen.append(move)
    play_game(engine, 4, 5, "random", on_move=every_50th)
    assert len(seen) > 500
    own = engine.constraint_checker.reads["one_guild"].own
    assert "tiles" in own and not {"court", "rooms", "unplaced"} & {k.split(".")[0] for k in own}


def test_the_constraints_hit_by_a_change_are_those_it_concerns(engine, monkeypatch):
    """ConstraintChecker._hit (its index of who read which key) gives exactly the constraints
    whose `targets` are not empty, at every check of a game: none is skipped that a change
    concerns (the verdict would go stale), and the others cost no `targets` at all."""
    checker = ConstraintChecker(engine.rs.constraints)
    hit = checker._hit
    compared = []

    def exact(changes):
        got = hit(changes)
        ids = [c["id"] for c in got]
        for c in checker.constraints:
            players = sides if c["scope"] != "game" else (None,)
            concerned = bool(checker.reads[c["id"]].targets(players, changes))
            assert (c["id"] in ids) == concerned, (c["id"], changes.top, changes.by_player)
        compared.append(len(got))
        return got

    monkeypatch.setattr(checker, "_hit", exact)
    rng = random.Random(3)
    state = engine.new_game(4, 3)
    sides = list(state["p"])
    for _ in range(300):
        after = engine.apply(state, rng.choice(engine.legal_moves(state)), check=False)
        if _verdict(checker, engine, after) is None:
            state = after
    assert len(compared) > 50 and min(compared) < len(checker.constraints)


LATE = '''
constraint few_exhausted_late "From Year 3, at most 5 exhausted cards and tiles" {
  scope: player
  check: year < 3 or count([s for s in player.court where s.exhausted]) + count([t for t in player.tiles where t.exhausted]) <= 5
  message: "Too many exhausted."
}
'''


def test_fields_no_constraint_read_are_not_compared(tmp_path, monkeypatch):
    """A move applied in place that wrote only fields of records no constraint has read (a
    card or tile exhausted by a payment: Writes.at_field) costs no comparison, and the
    snapshot keeps the older values of those fields. A constraint that reads such a field
    later (here from Year 3 on) makes the check copy every key anew: each move's verdict is
    still a full evaluation's, refusals included."""
    from interpreter import constraints
    (tmp_path / "pack.yaml").write_text("id: late\nname: Late\nversion: 0.1.0\nextends: base_3to5\n")
    (tmp_path / "late.rules").write_text(LATE)
    engine = Engine(load_pack(tmp_path))
    monkeypatch.setattr(constraints, "VERIFY_WRITES", False)
    skipped, compared = [0], constraints._Snapshot.written

    def written(self, st, watched, wrote, read_fields):
        got = compared(self, st, watched, wrote, read_fields)
        skipped[0] += bool(wrote.fields) and got is constraints._UNCHANGED
        return got
    monkeypatch.setattr(constraints._Snapshot, "written", written)
    checked = 0

    def each_move(state, after):
        nonlocal checked
        checked += after["year"] >= 3
    refused = _play_with_full_verdicts(engine, (3, 4), 600, each_move)
    assert skipped[0] > 20 and checked > 50, (skipped[0], checked, refused)


def test_a_field_read_for_the_first_time_is_copied_anew(tmp_path):
    """The snapshot keeps older values of fields no constraint read (Snapshot.written): when a
    constraint reads such a field for the first time, the check copies every key anew, else
    a later state equal to the stale copy would be taken for one that passed. Here Cortigiano
    cards exhausted in Year 1 are refreshed (a write of a field nobody read: not copied), a
    constraint starts reading `exhausted` in Year 3, and exhausting them again must be
    compared with the refreshed cards, not with the stale copy."""
    from interpreter.constraints import Writes
    (tmp_path / "pack.yaml").write_text("id: late\nname: Late\nversion: 0.1.0\nextends: base_3to5\n")
    (tmp_path / "late.rules").write_text('''
constraint one_exhausted_late "From Year 3, at most one exhausted Cortigiano card" {
  scope: player
  check: year < 3 or count([s for s in player.court where s.exhausted]) <= 1
  message: "Too many exhausted."
}
''')
    engine = Engine(load_pack(tmp_path))
    checker = ConstraintChecker(engine.rs.constraints)
    st = engine.new_game(4, 2)
    q = st["players"][0]
    court = st["p"][q]["court"]

    def exhaust(flag):
        wrote = Writes()
        for s in court[:2]:
            s["exhausted"] = flag
            wrote.at_field("p", "court", q, "exhausted")
        return wrote
    exhaust(True)
    checker.check(engine.runtime(st))       # Year 1: the constraint reads only the Year
    checker.check(engine.runtime(st), exhaust(False))
    st["year"] = 3
    wrote = Writes()
    wrote.add_top(["year"])
    checker.check(engine.runtime(st), wrote)        # reads `exhausted` from now on
    with pytest.raises(vm.Abort, match="Too many exhausted"):
        checker.check(engine.runtime(st), exhaust(True))


def test_a_field_kept_only_once_set_is_a_change_of_its_list():
    """Setting one field of a side's record is noted as that field alone (Writes.at_field),
    but not for a field kept only once set (a sparse one: a Cortigiano space's `shaded`),
    which adds or removes a key of the record: the snapshot counts that as a change of the
    list, so it is noted as a write of the whole list."""
    from interpreter import world_store
    from interpreter.constraints import Writes
    engine = Engine(load_pack("base_3to5"))
    st = engine.new_game(4, 2)
    q = st["players"][0]
    rt = engine.runtime(st)
    rt.wrote = Writes()
    world_store.put(rt, engine.rs.slot("court_space", "exhausted"), f"{q}.court_space0", True)
    assert rt.wrote.fields == {(q, "court", "exhausted")} and not rt.wrote.side
    rt.wrote = Writes()
    world_store.put(rt, engine.rs.slot("court_space", "shaded"), f"{q}.court_space0", True)
    assert rt.wrote.side == {"court": {q}} and not rt.wrote.fields


def test_reads_worked_out_from_the_code():
    """Every constraint of the base pack has its reads worked out from its code (through the
    formulas and methods it calls, each with the sides it is given), and is evaluated on the
    plain state; a constraint that calls a built-in whose reads are not declared
    (runtime.BUILTIN_READS) has them learnt, watched, as before."""
    engine = Engine(load_pack("base_3to5"))
    reads = engine.constraint_checker.reads
    assert all(r.static for r in reads.values()), [c for c, r in reads.items() if not r.static]
    assert "agents_total" in reads["max_agents"].own and not reads["max_agents"].other
    assert "tiles" in reads["one_guild"].own and "court" not in reads["one_guild"].own
    assert "war_tokens" in reads["war_token_supply"].other        # a game constraint: every side's
    # the player's own key of each City's Troops (troops(p) as player.troops: c.troops[p])
    assert "cities" in reads["max_troops"].top and ("cities", "troops") in reads["max_troops"].own
    assert not reads["max_troops"].other
    from interpreter.constraints import ConstraintChecker as Checker
    assert not any(r.static for r in Checker(engine.rs.constraints).reads.values())   # without the ruleset


def test_a_builtin_leaving_out_a_read_fails_the_cross_check(tmp_path, monkeypatch):
    """The safety net of reads worked out from the code: in the test suite (VERIFY_WRITES) each
    such evaluation is made again on a view that notes its reads, which must all be among
    them. A built-in that declares fewer reads than it makes (owned() without the Cortigiano
    cards) is reported as an engine error; one not declared at all makes its constraint's
    reads learnt instead."""
    from interpreter import constraints, runtime
    from interpreter.bots import play_game
    from rulespec.errors import RulespecError
    monkeypatch.setattr(constraints, "VERIFY_WRITES", True)
    owned = runtime.BUILTIN_READS["owned"]
    short = dict(runtime.BUILTIN_READS, owned=lambda rs, roles, values: [
        r for r in owned(rs, roles, values) if not r[1].startswith("court")])
    monkeypatch.setattr(runtime, "BUILTIN_READS", short)
    with pytest.raises(RulespecError, match="leave out"):
        play_game(Engine(load_pack("base_3to5")), 4, 1, "random")
    monkeypatch.setattr(runtime, "BUILTIN_READS", dict(short, owned=owned))
    (tmp_path / "pack.yaml").write_text("id: loc\nname: Loc\nversion: 0.1.0\nextends: base_3to5\n")
    (tmp_path / "loc.rules").write_text('''
constraint placed_somewhere "Every card of a House is somewhere" {
  scope: player
  check: all(count(location(c)) >= 0 for c in player.cards)
  message: "Nowhere."
}
''')
    engine = Engine(load_pack(tmp_path))
    assert not engine.constraint_checker.reads["placed_somewhere"].static
    assert engine.constraint_checker.reads["one_guild"].static
    play_game(engine, 4, 1, "random")
    assert engine.constraint_checker.reads["placed_somewhere"].own      # learnt while evaluated
