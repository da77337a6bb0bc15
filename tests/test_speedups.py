"""The playout speed-ups (issue 18) are shortcuts that must not change a game: each one, turned
off, plays the same moves to the same state as with it on (the golden corpus checks the
combination; this test checks each shortcut alone, so a fault is named):

- formulas inlined at their calls (interpreter/compiler.py `_inline`);
- one read-only window (memo) shared by the instructions between two changes of the game
  (interpreter/vm.py `run`);
- apply adopting the state a move led to when legal_moves had just tried it (interpreter/api.py
  `_adopt`);
- plain catalogue fields answered from a cache (interpreter/runtime.py `catalogue_field`, which
  compiled code, `attr` and `field_of` all read through);
- record refs ("red.room2") spelt once (interpreter/world_store.py `_REFS`);
- playout hints parsing a choice's moves once (interpreter/playout_policy.py `_parsed`);
- compiled field reads taking the record straight from the store (interpreter/compiler.py
  `DIRECT_RECORDS`);
- legal_moves copying the state during a payment only when a move needs a try
  (interpreter/api.py `COPY_ONLY_TO_TRY`);
- a try made on a shallow copy of the state, again on a full one at its first write
  (interpreter/api.py `SHALLOW_TRIES`, constraints.NoWrites);
- a comprehension over a list of records reading its variable's fields from the record it
  holds rather than by its ref (interpreter/compiler.py `RECORDS_IN_LOOPS`);
- constraints evaluated on the plain state with their reads worked out from their code
  (interpreter/constraints.py `STATIC_READS`), rather than watched to learn them;
- `symbols_owned` and `owned` remembered in a read-only window (interpreter/runtime.py): the
  score pads of every player ask each House's count once, with the totals read outside one;
- a move whose last try wrote tried on a full copy at once (interpreter/api.py `_deep_tries`);
- a procedure offered mid-payment that opens with a question of two or more options taken as
  legal without a try (interpreter/api.py `QUESTION_STOPS`);
- a procedure called by its name run without looking the verb up (interpreter/compiler.py
  `RESOLVED_PROCEDURES`, vm.x_proc);
- an `if` whose branches bind no name laid out in its block, without a frame for its branch
  (interpreter/compiler.py `FLAT_IFS`, vm.x_branch).
"""
from __future__ import annotations

import hashlib
import json

import pytest

from interpreter.api import Engine
from interpreter import api, compiler, constraints, playout_policy, vm, world_store
from interpreter.bots import RandomBot, play_game
from interpreter.runtime import Runtime
from rulespec.pack import load_pack
from rulespec.parser import parse_expr

SEEDS = (0, 3)
MOVES = 500         # into the first Winter (payments, reorganising, purchases: the tried moves)


def _played(engine, seed):
    state, moves = play_game(engine, 4, seed, "random", max_moves=MOVES)
    return moves, hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


@pytest.fixture(scope="module")
def pack():
    return load_pack("base_3to5")


@pytest.fixture(scope="module")
def reference(pack):
    eng = Engine(pack)
    return {seed: _played(eng, seed) for seed in SEEDS}


def _set(module, name, value):
    """A shortcut turned off by one switch of its module."""
    def without(monkeypatch, pack):
        monkeypatch.setattr(module, name, value)
        return Engine(pack)
    return without


def _no_adopting(monkeypatch, pack):
    eng = Engine(pack)
    monkeypatch.setattr(eng, "_adopt", lambda state, move: None)
    return eng


def _no_field_cache(monkeypatch, pack):
    eng = Engine(pack)
    eng.rs.static_attrs = _Forgetful()
    return eng


def _no_ref_cache(monkeypatch, pack):
    monkeypatch.setattr(world_store, "_REFS", _Forgetful())
    return Engine(pack)


_no_inlining = _set(compiler, "INLINE_NODES", 0)
_no_shared_window = _set(vm, "_IN_WINDOW", [False] * len(vm._IN_WINDOW))
_no_parsed_choices = _set(playout_policy, "_parsed", lambda pending: {})
_no_direct_records = _set(compiler, "DIRECT_RECORDS", False)
_copy_for_every_payment = _set(api, "COPY_ONLY_TO_TRY", False)
_full_copy_tries = _set(api, "SHALLOW_TRIES", False)
_no_records_in_loops = _set(compiler, "RECORDS_IN_LOOPS", False)
_no_filtered_loops = _set(compiler, "FILTERED_LOOPS", False)
_no_static_reads = _set(constraints, "STATIC_READS", False)
_try_every_question = _set(api, "QUESTION_STOPS", False)
_procedures_by_verb = _set(compiler, "RESOLVED_PROCEDURES", False)
_no_hoisted_guards = _set(compiler, "HOISTED_GUARDS", False)


def _no_deep_tries(monkeypatch, pack):
    eng = Engine(pack)
    eng._deep_tries = _Unkept()
    return eng


class _Unkept(set):
    """A set that never keeps anything."""

    def add(self, x):
        pass


class _Forgetful(dict):
    """A cache that never keeps anything."""

    def __setitem__(self, key, value):
        pass


@pytest.mark.parametrize("without", [_no_inlining, _no_shared_window, _no_adopting, _no_field_cache,
                                     _no_ref_cache, _no_parsed_choices, _no_direct_records,
                                     _copy_for_every_payment, _full_copy_tries, _no_records_in_loops,
                                     _no_filtered_loops, _no_deep_tries, _no_static_reads, _try_every_question,
                                     _procedures_by_verb, _no_hoisted_guards],
                         ids=["inlining", "shared-window", "adopting", "field-cache", "ref-cache",
                              "parsed-choices", "direct-records", "copy-only-to-try", "shallow-tries",
                              "records-in-loops", "filtered-loops", "deep-tries", "static-reads",
                              "question-stops", "resolved-procedures", "hoisted-guards"])
def test_the_same_games_without_each_shortcut(monkeypatch, pack, reference, without):
    eng = without(monkeypatch, pack)
    for seed in SEEDS:
        assert _played(eng, seed) == reference[seed], f"seed {seed}"


def test_inlining_happens(monkeypatch, pack):
    """The shortcut is taken: the base pack's calls of small formulas (troops_at...) are
    compiled in place, so fewer formula calls run than without it."""
    calls = []
    formula = Runtime.formula

    def counting(self, name, args, kwargs, env):
        calls.append(name)
        return formula(self, name, args, kwargs, env)

    monkeypatch.setattr(Runtime, "formula", counting)
    play_game(Engine(pack), 4, 0, "random", max_moves=200)
    inlined = list(calls)
    calls.clear()
    monkeypatch.setattr(compiler, "INLINE_NODES", 0)
    play_game(Engine(pack), 4, 0, "random", max_moves=200)
    assert len(inlined) < len(calls)
    assert "troops_at" in calls and "troops_at" not in inlined


def test_adopted_state_is_the_state_of_a_fresh_apply(pack):
    """During a payment legal_moves tries the moves; applying one of them in place adopts the
    tried state: it equals the state a transactional apply of the same move gives."""
    eng = Engine(pack)
    state = eng.new_game(4, 1)
    adopted = 0
    for _ in range(MOVES):
        if eng.is_over(state):
            break
        legal = eng.legal_moves(state)
        if not legal:
            break
        move = legal[len(legal) // 2]
        fresh = eng.apply(state, move)                  # a copy, run from scratch
        tried = eng._tried is not None and move in eng._tried.after
        state = eng.apply(state, move, transactional=False)
        assert state == fresh
        adopted += tried
    assert adopted > 0


def test_the_new_shortcuts_are_taken(monkeypatch, pack):
    """Each new shortcut is used in a game: the ref cache fills, a playout hint's condition
    gets the parsed moves of a choice, a payment offering only taps leaves no copy behind,
    and compiled code calls rt.rec less often than without reading the store itself."""
    world_store._REFS.clear()
    given = []
    holds = playout_policy.PlayoutPolicy._holds

    def noting(self, when, decl, rt, pending, move, values=None):
        given.append(bool(values))
        return holds(self, when, decl, rt, pending, move, values)

    monkeypatch.setattr(playout_policy.PlayoutPolicy, "_holds", noting)
    recs = []
    rec = Runtime.rec
    monkeypatch.setattr(Runtime, "rec", lambda self, store, x: recs.append(1) or rec(self, store, x))

    def play(eng):
        state, taps_only = eng.new_game(4, 0), 0
        bot = RandomBot(0)
        for _ in range(MOVES):
            legal = eng.legal_moves(state)
            if not legal:
                break
            if len(legal) > 1 and state["vm"]["pending"]["kind"] == "pay" \
                    and all(m.startswith("tap ") for m in legal):
                taps_only += 1
                assert eng._tried is None
            state = eng.apply(state, bot.choose(eng, state, legal), transactional=False)
        return taps_only

    assert play(Engine(pack)) > 0
    assert world_store._REFS and any(given)
    direct = len(recs)
    recs.clear()
    monkeypatch.setattr(compiler, "DIRECT_RECORDS", False)
    play(Engine(pack))
    assert direct < len(recs)


def test_shallow_tries_are_taken_and_a_write_not_noted_first_is_caught(monkeypatch, pack):
    """Most tries of a payment's game run on a shallow copy (a procedure offered mid-payment
    opens with a question), some need the full copy (a choice that gains a Crown); and the
    tests' cross-check (constraints.VERIFY_WRITES, on in every test process) fails a try that
    wrote the state it shares before noting the write (sabotaged here)."""
    from interpreter import constraints
    kinds = []
    try_on = Engine._try_on
    monkeypatch.setattr(Engine, "_try_on", lambda self, tried, st, move, writes:
                        kinds.append(writes.__name__) or try_on(self, tried, st, move, writes))
    play_game(Engine(pack), 4, 0, "random", max_moves=MOVES)
    assert kinds.count("NoWrites") > kinds.count("Writes") > 0, kinds
    monkeypatch.setattr(constraints, "VERIFY_WRITES", True)
    monkeypatch.setattr(constraints.NoWrites, "at", constraints.Writes.at)
    monkeypatch.setattr(constraints.NoWrites, "add_top", constraints.Writes.add_top)
    with pytest.raises(AssertionError, match="changed the state it was tried on"):
        play_game(Engine(pack), 4, 0, "random", max_moves=MOVES)


def test_loops_over_records_read_the_records_they_hold(monkeypatch, pack):
    """The shortcut is taken: a game looks records up by their refs (world_store._ref_record)
    far less often than without it (the Cortigiano spaces and Rooms of `cards`...)."""
    calls = []
    lookup = world_store._ref_record

    def counting(rt, x, kind):
        calls.append(kind)
        return lookup(rt, x, kind)

    monkeypatch.setattr(world_store, "_ref_record", counting)
    play_game(Engine(pack), 4, 0, "random", max_moves=MOVES)
    held = len(calls)
    calls.clear()
    monkeypatch.setattr(compiler, "RECORDS_IN_LOOPS", False)
    play_game(Engine(pack), 4, 0, "random", max_moves=MOVES)
    assert held * 3 < len(calls), (held, len(calls))



class _CountingStore(dict):
    """A store of the state that counts the records looked up by id."""

    looked_up = 0

    def get(self, k, default=None):
        _CountingStore.looked_up += 1
        return dict.get(self, k, default)


def test_loops_over_a_store_read_its_records_in_place(monkeypatch, pack):
    """A comprehension over the instances of a stored kind (`for c in cities`) reads each
    element's record as it iterates: no lookup of the record by its id per field read.
    Without the shortcut the same value comes, with a lookup per City and field."""
    expr = parse_expr("sum([c.troops[p] + c.besiegers[p] for c in cities])")

    def lookups():
        eng = Engine(pack)
        fn, _ = eng.rs.comp.expr(expr, {"p": "player"})
        rt = eng.runtime(eng.new_game(4, 0))
        rt.state["cities"] = _CountingStore(rt.state["cities"])
        side = next(iter(rt.state["p"]))
        first = next(iter(rt.state["cities"].values()))
        first["troops"][side] = first["troops"].get(side, 0) + 2
        _CountingStore.looked_up = 0
        return fn(rt, {"p": side}), _CountingStore.looked_up, len(rt.state["cities"])

    value, held, _ = lookups()
    monkeypatch.setattr(compiler, "RECORDS_IN_LOOPS", False)
    same, looked_up, cities = lookups()
    assert value == same and value >= 2
    assert held == 0 and looked_up >= 2 * cities


def _loop_conditions(pack) -> int:
    """How many `for`, `choose` and `random` instructions of the compiled rules test a `where`
    element by element (vm._passing)."""
    blocks = Engine(pack).rs.program.blocks
    return sum(1 for b in blocks for ins in b
               if ins[0] in (compiler.FOR, compiler.CHOOSE, compiler.RANDOM) and ins[4] is not None)


def test_loop_conditions_are_worked_out_by_one_comprehension(monkeypatch, pack):
    """With FILTERED_LOOPS no loop instruction tests its `where` itself (one generated
    comprehension gives the elements that pass); without it, the base pack's do."""
    assert _loop_conditions(pack) == 0
    monkeypatch.setattr(compiler, "FILTERED_LOOPS", False)
    assert _loop_conditions(pack) > 10


@pytest.mark.parametrize("kind, source", [("room", "p.rooms"), ("court_space", "p.court"), ("city", "cities")])
def test_every_field_of_a_loop_over_records_reads_the_same(monkeypatch, pack, kind, source):
    """Each declared field of the elements of a loop over records (the Rooms of a Palace, the
    Cortigiano spaces, the Cities) reads the same with the loop's records at hand as by the
    elements' ids: printed fields (`@printed`, `@map`) and fields kept only once set too."""
    state, _ = play_game(Engine(pack), 4, 1, "random", max_moves=MOVES)

    def values():
        eng = Engine(pack)
        rt = eng.runtime(state)
        out = {}
        for name in eng.rs.comp.world.names_on(kind):
            fn, _ = eng.rs.comp.expr(parse_expr(f"[x.{name} for x in {source}]"), {"p": "player"})
            out[name] = [fn(rt, {"p": p, "player": p}) for p in state["players"]]
        return out

    held = values()
    monkeypatch.setattr(compiler, "RECORDS_IN_LOOPS", False)
    assert held == values()


def test_a_score_pad_works_each_houses_counts_out_once(monkeypatch, pack):
    """In a read-only window (a bot valuing a position) `symbols_owned` and `owned` are
    remembered: the score pads of every player ask each House's Crosses (religious influence,
    a rank among all Houses) once, where each pad used to ask them all again. The totals are
    those worked out without a window."""
    engine = Engine(pack)
    state, _ = play_game(engine, 4, 5, "random", max_moves=1500)
    asked = []
    real = Runtime._symbols_owned
    monkeypatch.setattr(Runtime, "_symbols_owned", lambda self, p, s: asked.append((p, s)) or real(self, p, s))
    rt = engine.runtime(state)
    opened = rt.reading()
    try:
        totals = {p: engine.total_score(state, p, rt) for p in state["players"]}
    finally:
        rt.done_reading(opened)
    assert asked and len(asked) == len(set(asked))
    in_window = len(asked)
    asked.clear()
    assert {p: engine.total_score(state, p) for p in state["players"]} == totals
    assert len(asked) > 2 * in_window        # outside a window: each pad asks again


def test_a_move_whose_try_wrote_is_tried_on_a_full_copy_at_once(monkeypatch, pack):
    """After a try on a shallow copy met a write, the same move at the same decision is tried
    on a full copy without the shallow run first."""
    eng = Engine(pack)
    shallow, full = [], []
    try_on = Engine._try_on

    def noting(self, tried, st, move, writes):
        fr = tried.state["vm"]["frames"][-1]
        (shallow if writes is api.NoWrites else full).append((fr["b"], fr["pc"], move))
        return try_on(self, tried, st, move, writes)

    monkeypatch.setattr(Engine, "_try_on", noting)
    state, bot = eng.new_game(4, 1), RandomBot(1)
    for _ in range(3000):
        if eng.is_over(state):
            break
        legal = eng.legal_moves(state)
        if not legal:
            break
        state = eng.apply(state, bot.choose(eng, state, legal), transactional=False)
    assert eng._deep_tries
    # without the shortcut each full try follows a shallow one of the same move
    assert any(full.count(site) > shallow.count(site) for site in set(full))


def test_a_procedure_that_opens_with_a_question_is_taken_without_a_try(monkeypatch, pack, reference):
    """The shortcut is taken in these games (an Indulgence offered mid-payment opens with a
    question of two options), and they are the reference games; the suite's cross-check
    (constraints.VERIFY_WRITES) tries each such move too and fails on a refusal."""
    taken, stops = [], api.Engine._stops_at_its_question

    def counted(self, state, move):
        got = stops(self, state, move)
        if got:
            taken.append(move)
        return got
    monkeypatch.setattr(api.Engine, "_stops_at_its_question", counted)
    assert _played(Engine(pack), SEEDS[0]) == reference[SEEDS[0]]
    assert taken and all(m.startswith("run ") for m in taken), taken


def test_procedures_called_by_name_are_resolved(pack):
    """`run(purchase)` and `gain_card(...)` compile to PROC (vm.x_proc), with the procedure's name;
    a verb, an engine's verb and `run` of a variable stay CALLs (Runtime.verb decides when it
    runs); the engine's verbs the compiler knows are Runtime's."""
    from rulespec.parser import parse_rules
    from rulespec.vocabulary import VERBS
    program = Engine(pack).rs.program
    procs = {ins[4] for code in program.blocks for ins in code if ins[0] == compiler.PROC}
    assert {"purchase", "offer_indulgence", "gain_card"} <= procs
    verbs = {name[2:] for name in dir(Runtime) if name[:2] in ("v_", "i_") and callable(getattr(Runtime, name))}
    assert verbs == set(VERBS) | set(compiler.ENGINE_VERBS)
    mod = parse_rules('procedure p(q: str) "p" { effect: { run(q) run(p) run(q: 1) log(1) end_phase() p(q: "x") } }')
    comp = compiler.Compiler({"p": "procedure", "q": "procedure", "log": "procedure", "end_phase": "procedure"})
    block = comp.block(mod.items[0].members[0].value, {"q": "str"})
    assert [(ins[0], ins[2], ins[4] if ins[0] == compiler.PROC else None) for ins in comp.program.blocks[block]] == [
        (compiler.CALL, "run", None), (compiler.PROC, "run", "p"), (compiler.CALL, "run", None),
        (compiler.CALL, "log", None), (compiler.CALL, "end_phase", None), (compiler.PROC, "p", "p")]


def test_the_same_games_with_ifs_as_blocks(monkeypatch, pack, reference):
    """FLAT_IFS off: the same moves to the same state but the running rules' frames (an `if`'s
    branch is a block of its own there, so the blocks are numbered otherwise)."""
    flat = Engine(pack)
    monkeypatch.setattr(compiler, "FLAT_IFS", False)
    blocks = Engine(pack)
    assert len(blocks.rs.program.blocks) > len(flat.rs.program.blocks)
    for seed in SEEDS:
        got, want = (play_game(e, 4, seed, "random", max_moves=MOVES) for e in (blocks, flat))
        assert got[1] == want[1] == reference[seed][0], f"seed {seed}"
        assert {k: v for k, v in got[0].items() if k != "vm"} == {k: v for k, v in want[0].items() if k != "vm"}


def test_ifs_are_laid_out_in_their_block():
    """An `if` whose branches bind nothing is BRANCH, its branches' statements and the JUMPs past
    the others, counted from each instruction (nested ones too); one whose branch has a `let`
    stays an IF with blocks of its own."""
    from rulespec.parser import parse_rules
    mod = parse_rules('procedure p "p" { effect: { if a { log(1) log(2) } elif b { if c { log(3) } } '
                      'else { log(4) } log(5) if d { let x = 1 } } }')
    comp = compiler.Compiler({"p": "procedure"})
    code = comp.program.blocks[comp.block(mod.items[0].members[0].value, {"a": "bool", "b": "bool", "c": "bool", "d": "bool"})]
    ops = [(compiler.OPNAMES[ins[0]] if ins[0] != compiler.BRANCH else "branch") for ins in code]
    assert ops == ["branch", "call", "call", "jump", "branch", "call", "jump", "call", "call", "if"]
    assert [skip for _, skip in code[0][2]] == [1, 4] and code[0][3] == 7     # a, b at 4; else at 7
    assert code[3][2] == 5 and code[6][2] == 2          # both to `log(5)`, at 8
    assert [skip for _, skip in code[4][2]] == [1] and code[4][3] == 2        # c; none: past it, at 6
    assert code[9][4] is True           # the `let`: a copy of the locals, in a block of its own


def test_a_where_term_that_names_no_element_is_asked_once(pack):
    """HOISTED_GUARDS: the payment sources of the Room under the Action marker (sources.rules)
    ask `paying_for() != none` once, before reading the marker, and a term that names the
    loop's element stays in the loop."""
    eng = Engine(pack)
    code = [k[0] for k in eng.rs.comp.codes if "'room.card'" in k[0] and k[0].startswith("def ")]
    assert code and code[0].index("rt.f_paying_for()") < code[0].index("items =")
    assert code[0].count("rt.f_paying_for()") == 1
    assert "_it is not None" in code[0].split("items =")[1]
