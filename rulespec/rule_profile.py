"""Where a playout's time goes, by the pack's own rules: `rulespec profile`.

A designer whose variant plays slowly needs the rule to blame (a formula, a statement, a
constraint, each at its file:line), not a Python function: cProfile names the engine's
functions, whose costs are spread over every rule. This plays bot games with the engine's
entry points timed for the span of the run (and put back after, even on an error):
  - the phases of a decision: working out the legal moves, the bot's choice, the rules' run
    (apply), the constraint check after each move;
  - each formula (`Runtime.formula`: a formula computed, not one served from the read-only
    window's memo), each statement the VM runs, each constraint's check, by their own time:
    what they took but for the formulas and statements they ran inside them; each constraint's
    check and each playout hint's `when` (the random bot's weights) with the formulas they ran. A small formula,
    or a method formula that only reads, the compiler writes into its callers
    (interpreter/compiler.py `_inline`) is no call of its own: its time is its callers'.
The games are the ones `rulespec bench` plays with the same seeds and bots (the timing changes
no decision), but slower: the shares are of the timed run (the clock itself costs about a
tenth), so they rank the rules and split the phases; `rulespec bench` gives the rates.
"""
from __future__ import annotations

import time
from collections import defaultdict
from contextlib import contextmanager

_clock = time.perf_counter_ns
LEGAL, APPLY, CHECK = "legal moves", "rules' run (apply)", "constraint check"


class _Stack:
    """Own time: each timed call's time less that of the timed calls inside it."""

    def __init__(self):
        self.inner = [0]

    def enter(self) -> int:
        self.inner.append(0)
        return _clock()

    def leave(self, t0: int) -> tuple:
        """(the call's time, its own time)."""
        took = _clock() - t0
        inner = self.inner.pop()
        self.inner[-1] += took
        return took, took - inner


class RuleProfile:
    """The figures of one profiled run: nanoseconds and counts, keyed by what the pack names."""

    def __init__(self):
        self.phases = defaultdict(int)          # phase -> ns (the outermost phase only)
        self.formulas = defaultdict(lambda: [0, 0])     # name -> [computed, own ns]
        self.statements = defaultdict(lambda: [0, 0])   # (span, what) -> [runs, own ns]
        self.constraints = defaultdict(lambda: [0, 0])  # id -> [evaluations, ns]
        self.hints = defaultdict(lambda: [0, 0])        # playout_hint id -> [`when` asked, ns]
        # (kind, rule, prompt) of a decision -> [asked, ns from its asking to the next one's:
        # its legal moves, the bot's pick, the rules' run and the check after the answer]
        self.decisions_by = defaultdict(lambda: [0, 0])
        self.asked = None       # (that key, when) of the decision being answered
        self.players = 0
        self.decisions = 0
        self.games = 0
        self.total_ns = 0
        self.cpu_s = 0.0
        self.spans = {}         # formula name or constraint id -> its declaration's span
        self.moves_sha256 = []  # per game, as `rulespec bench` reports them: the same games


@contextmanager
def timed(engine, prof: RuleProfile):
    """The engine's entry points timed into `prof` while inside; put back on the way out."""
    from interpreter import compiler as C
    from interpreter import runtime as R
    from interpreter import vm
    stack = _Stack()
    phase = [None]
    saved_exec = list(vm._EXEC)
    saved_formula = R.Runtime.formula
    checker = engine.constraint_checker
    saved_checks = [(c, c["check"]) for c in checker.constraints]
    from interpreter.playout_policy import PlayoutPolicy
    policy = PlayoutPolicy.for_engine(engine)
    saved_hints = policy.hints

    def timed_phase(name, f, within=None):
        """f timed into the phase `name` when it runs inside the phase `within`: None, the
        outermost phase (legal_moves trying a move is legal moves' time), or the rules' run
        for the constraint check after a move (the report takes it out of that phase; a check
        inside legal_moves' tries stays in legal moves)."""
        def run_phase(*a, **kw):
            outer = phase[0]
            if outer != within:
                return f(*a, **kw)
            phase[0], t0 = name, _clock()
            try:
                return f(*a, **kw)
            finally:
                prof.phases[name] += _clock() - t0
                phase[0] = outer
        return run_phase

    timed_legal = timed_phase(LEGAL, engine.legal_moves)

    def legal_moves(state):
        """legal_moves timed, and at the outermost call a decision asked: the one answered
        before it ends here."""
        if phase[0] is None:
            now = _clock()
            end_decision(prof, now)
            prof.asked = _decision(engine, state, now)
        return timed_legal(state)

    def formula(rt, name, args, kwargs, env):
        t0 = stack.enter()
        try:
            return saved_formula(rt, name, args, kwargs, env)
        finally:
            rec = prof.formulas[name]
            rec[0] += 1
            rec[1] += stack.leave(t0)[1]

    def timed_statement(op, run):
        what = C.OPNAMES[op]

        def statement(rt, fr, ins, returned):
            t0 = stack.enter()
            try:
                return run(rt, fr, ins, returned)
            finally:
                rec = prof.statements[(ins[1], f"call {ins[2]}" if op in C.CALLS else what)]
                rec[0] += 1
                rec[1] += stack.leave(t0)[1]
        return statement

    def timed_check(into, key, check):
        """A constraint's check or a hint's `when`, with the formulas it computed."""
        def evaluate(rt, env):
            t0 = stack.enter()
            try:
                return check(rt, env)
            finally:
                rec = into[key]
                rec[0] += 1
                rec[1] += stack.leave(t0)[0]
        return evaluate

    engine.legal_moves = legal_moves
    engine.apply = timed_phase(APPLY, engine.apply)
    checker.check = timed_phase(CHECK, checker.check, within=APPLY)
    R.Runtime.formula = formula
    vm._EXEC[:] = [timed_statement(op, run) for op, run in enumerate(saved_exec)]
    for c, check in saved_checks:
        c["check"] = timed_check(prof.constraints, c["id"], check)
    # the policy files its hints by prompt (_by_prompt): filed anew with the timed ones, and
    # again with the saved ones after
    policy.hints = [(p, m, w, when if when is None else timed_check(prof.hints, d.id, when), d)
                    for p, m, w, when, d in saved_hints]
    policy._by_prompt.clear()
    try:
        yield prof
    finally:
        for name in ("legal_moves", "apply"):
            engine.__dict__.pop(name, None)
        checker.__dict__.pop("check", None)
        R.Runtime.formula = saved_formula
        vm._EXEC[:] = saved_exec
        for c, check in saved_checks:
            c["check"] = check
        policy.hints = saved_hints
        policy._by_prompt.clear()


def _decision(engine, state, now: int):
    """((kind, where its statement is, prompt), now) of the decision `state` asks; None for
    anything else (a game over, a damaged state: legal_moves then says what is wrong)."""
    try:
        vm = state["vm"]
        pending, fr = vm["pending"], vm["frames"][-1]
        span = engine.rs.program.blocks[fr["b"]][fr["pc"]][1]      # the decision's statement
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(pending, dict):
        return None
    prompt = "pay" if pending.get("kind") == "pay" else str(pending.get("prompt") or "")
    return (pending.get("kind"), str(span) if span is not None else "", prompt[:48]), now


def end_decision(prof: RuleProfile, now: int):
    """The decision being answered ends (the next one is asked, or the game is over)."""
    if prof.asked is not None:
        key, t0 = prof.asked
        rec = prof.decisions_by[key]
        rec[0] += 1
        rec[1] += now - t0
        prof.asked = None


def profile(pack, players: int, seeds, bot: str = "random") -> RuleProfile:
    """Play the games of `seeds` with the engine timed; the figures."""
    from interpreter.api import Engine
    from interpreter.bots import play_game
    from .bench_worker import moves_sha256
    engine = Engine(pack)
    prof = RuleProfile()
    prof.spans = {name: f.get("span") for name, f in engine.rs.formulas.items()}
    prof.spans.update((c["id"], c["decl"].span) for c in engine.constraint_checker.constraints)
    prof.spans.update((d.id, d.span) for d in pack.of_kind("playout_hint"))
    prof.players = players
    c0 = time.process_time()
    with timed(engine, prof):
        for seed in seeds:
            t0 = _clock()
            _, moves = play_game(engine, players, seed, bot)
            end_decision(prof, _clock())
            prof.total_ns += _clock() - t0
            prof.decisions += len(moves)
            prof.moves_sha256.append(moves_sha256(moves))
            prof.games += 1
    prof.cpu_s = time.process_time() - c0
    return prof


def summary(prof: RuleProfile, top: int = 15) -> dict:
    """The figures as plain data (`--json`): shares of the timed run, per decision counts."""
    total = prof.total_ns or 1
    per = prof.decisions or 1
    check = prof.phases.get(CHECK, 0)
    phases = {LEGAL: prof.phases.get(LEGAL, 0), APPLY: prof.phases.get(APPLY, 0) - check, CHECK: check}
    phases["bot and game loop"] = max(0, total - sum(phases.values()))

    def rows(items, where):
        out = []
        for key, (n, ns) in sorted(items, key=lambda kv: -kv[1][1])[:top]:
            out.append({**where(key), "share": ns / total, "per_decision": n / per, "us_each": ns / n / 1000 if n else 0})
        return out

    def at(span):
        return str(span) if span is not None else ""
    return {
        "games": prof.games, "players": prof.players, "decisions": prof.decisions,
        "cpu_s": prof.cpu_s, "moves_sha256": prof.moves_sha256,
        "phases": {k: v / total for k, v in phases.items()},
        "formulas": rows(prof.formulas.items(), lambda k: {"formula": k, "at": at(prof.spans.get(k))}),
        "statements": rows(prof.statements.items(), lambda k: {"statement": k[1], "at": at(k[0])}),
        "constraints": rows(prof.constraints.items(), lambda k: {"constraint": k, "at": at(prof.spans.get(k))}),
        "hints": rows(prof.hints.items(), lambda k: {"hint": k, "at": at(prof.spans.get(k))}),
        "by_decision": rows(prof.decisions_by.items(), lambda k: {"decision": k[0], "prompt": k[2], "at": k[1]}),
        "formulas_share": sum(ns for _, ns in prof.formulas.values()) / total,
        "statements_share": sum(ns for _, ns in prof.statements.values()) / total,
        "constraints_share": sum(ns for _, ns in prof.constraints.values()) / total,
        "hints_share": sum(ns for _, ns in prof.hints.values()) / total,
        "by_decision_share": sum(ns for _, ns in prof.decisions_by.values()) / total,
    }


def text(s: dict, root: str = "") -> str:
    """The summary as the terminal report; `root`: the pack's folder, whose files are named
    relative to it (a base pack's, relative to the working folder when they are under it)."""
    import os
    cwd = os.getcwd()

    def where(at):
        for folder in (root, cwd):
            if folder and at.startswith(folder.rstrip("/") + "/"):
                return at[len(folder.rstrip("/")) + 1:]
        return at
    lines = [f"{s['games']} games, {s['players']} players, {s['decisions']:,} decisions, {s['cpu_s']:.2f} s CPU "
             f"(timed: slower than `rulespec bench`; the shares are of this run)", "", "phases of a decision:"]
    for name, share in s["phases"].items():
        lines.append(f"  {share:6.1%}  {name}")
    for title, key, name, share in (("formulas (own time, computed: memo hits are free)", "formulas", "formula",
                                     "formulas_share"),
                                    ("statements (own time, their formulas apart)", "statements", "statement",
                                     "statements_share"),
                                    ("constraints (their check, with the formulas it computed)", "constraints", "constraint",
                                     "constraints_share"),
                                    ("playout hints (their `when`, with the formulas it computed: the bot's)", "hints",
                                     "hint", "hints_share")):
        lines += ["", f"{title}: {s[share]:.1%} in all"]
        for r in s[key]:
            lines.append(f"  {r['share']:6.1%}  {r['per_decision']:7.3f}/decision  {r['us_each']:7.1f} us  "
                         f"{r[name]}" + (f"  {where(r['at'])}" if r.get("at") else ""))
    lines += ["", f"decisions (from the asking to the next one's: legal moves, the bot, the rules' run and the check "
                  f"after the answer): {s['by_decision_share']:.1%} in all"]
    for r in s["by_decision"]:
        lines.append(f"  {r['share']:6.1%}  {r['per_decision']:7.3f} of them  {r['us_each']:7.1f} us  "
                     f"{r['decision']} \"{r['prompt']}\"" + (f"  {where(r['at'])}" if r["at"] else ""))
    return "\n".join(lines)
