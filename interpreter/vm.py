"""The effect VM: runs compiled blocks until a player must decide something.

The whole execution state lives in the game state as plain data (`state["vm"]`):
  frames:  a stack of {"b": block, "pc": index, "env": locals, "k": continuation or None}
  pending: the decision being waited for, or None
  ask_forced: optional; true asks even decisions with a single possible answer (a scenario
           that checks the refused alternatives of a forced choice), which are otherwise taken
           at once
A frame whose instruction pushed a child keeps its pc on that instruction with `k` telling
the instruction, when the child returns, where it was (loop index, chosen items...).
A branch of an `if` may hold its parent's very locals dict (x_if), where a copy would do the
same. So a suspended game serialises to JSON and resumes bit-for-bit.

Decisions (choose / optional / either / pay) are exposed as `pending`; `resume(rt, move)`
feeds the player's answer back. `Abort` is raised by `require` or a failing primitive: the
caller (interpreter.api.apply) discards the working copy, so the state is unchanged.
"""
from __future__ import annotations

from rulespec import limits
from rulespec.errors import RULE_ERRORS, RuleFault, Span

from . import compiler as C
from . import payment
from . import rng

SUSPEND = object()


class Abort(Exception):
    """A move cannot go on: `require` failed or a primitive refused. Carries the reason and
    the rule's source position."""

    def __init__(self, reason: str, span: Span | None = None):
        super().__init__(reason)
        self.reason = reason
        self.span = span


def push(rt, block: int, env: dict, scope: bool = False):
    """Push a frame; scope=True starts a new variable scope (a procedure or action call)."""
    frames = rt.state["vm"]["frames"]
    if len(frames) >= limits.MAX_FRAMES:
        raise RuleFault("RS305", f"the rules run more than {limits.MAX_FRAMES:,} procedures or blocks inside each "
                                 "other (a procedure that runs itself without end?)",
                        hint="make the recursion stop: a procedure that runs itself needs a case that does not")
    frames.append({"b": block, "pc": 0, "env": env, "k": None, "scope": True} if scope
                  else {"b": block, "pc": 0, "env": env, "k": None})


def run(rt, floor: int = 0):
    """Execute until a decision is pending or nothing is left to run (above the first `floor`
    frames: see run_now). A fault of the rules (division by zero, a limit passed: RuleFault)
    is given the position of the instruction that met it when it has none of its own."""
    vm = rt.state["vm"]
    frames = vm["frames"]
    rt.memo = None
    if vm["pending"] is not None or len(frames) <= floor:
        return
    blocks = rt.program.blocks
    left = max_steps = limits.MAX_VM_STEPS      # steps left before the rules are taken to loop without end
    ins = None
    # the frame on top is a loop instruction whose child has just returned to it (only an
    # instruction that suspends sets `pending`, and a call may end the game, which empties the
    # frames: those are looked at after the instructions that do so, not at every step)
    returned = False
    # the player and action of the instructions sharing rt.memo, and the locals they were read
    # from: while the locals are the same dict, they hold the same player and action (only
    # `let` writes them without closing the window, and x_let closes it for those two names)
    memo_player = memo_action = memo_env = None
    execs, changes, in_window = _EXEC, _CHANGES, _IN_WINDOW
    try:
        while True:
            fr = frames[-1]
            instrs = blocks[fr["b"]]
            pc = fr["pc"]
            if pc >= len(instrs):
                if "scope" in frames.pop():     # a procedure ends: what is running changes
                    rt.memo = None
                if len(frames) == floor:
                    if floor:
                        return
                    rt.memo = None
                    rt.on_flow_end()
                    if not frames:
                        return
                elif frames[-1]["k"] is not None:     # a child returns to its instruction
                    returned = True
                continue
            if not left:
                raise Abort(f"the rules loop without end (more than {max_steps:,} steps without a decision)",
                            instrs[pc][1])
            left -= 1
            ins = instrs[pc]
            env = rt.env = fr["env"]
            op = ins[0]
            if in_window[op]:
                # an instruction that only reads the game (its expressions, a decision's
                # options), or a `set` or a call, which read all their expressions before they
                # change anything (x_set and x_call close the window before the change), shares
                # the read-only window of the reading instructions before it: derived values
                # (what a player owns, a method formula) are worked out once between two changes
                # of the state, not once per instruction (Runtime.reading)
                if rt.memo is None or env is not memo_env:
                    player, action = env.get("player"), env.get("action")
                    if rt.memo is None or player != memo_player or action != memo_action:
                        rt.memo, memo_player, memo_action = {}, player, action
                    memo_env = env
            else:
                rt.memo = None
                if op not in _NOTED:
                    rt.writes_unknown()     # a roll, a random pick, a shuffle: writes not noted
            if changes[op]:
                r = execs[op](rt, fr, ins, returned)
                rt.memo = None
                if r is SUSPEND or len(frames) <= floor:
                    return
            elif execs[op](rt, fr, ins, returned) is SUSPEND:
                return
            returned = False
    except Abort as e:       # a primitive that refused without saying where: at its statement
        if e.span is None and ins is not None:
            e.span = ins[1]
        raise
    except RuleFault as e:
        raise e.at(ins[1] if ins is not None else None)
    except RULE_ERRORS as e:
        raise RuleFault.from_python(e, ins[1] if ins is not None else None) from e
    except RecursionError:
        raise RuleFault("RS305", "the rules recurse too deeply", ins[1] if ins is not None else None,
                        "a formula or procedure that calls itself needs a case that stops") from None
    finally:
        rt.memo = None          # the caller (a verb running a procedure) may change the state next


def run_now(rt, block: int, env: dict):
    """Run a procedure's block to its end at once, above whatever the VM is doing (a
    primitive that runs a pack procedure, as taking a card with an Agent runs `gain`). It
    may not ask for a decision. A block of `set`s of fields alone (a payment source's `tap`)
    runs them in order, without a frame on the stack."""
    code = rt.program.blocks[block]
    if all(ins[0] == C.SET and ins[3] != "var" for ins in code):
        fr = {"env": env, "pc": 0}
        rt.env = env            # (as run: the built-ins read the locals of the instruction run)
        ins = None
        try:
            for ins in code:
                x_set(rt, fr, ins, None)
        except Abort as e:
            if e.span is None:
                e.span = ins[1]
            raise
        except RuleFault as e:
            raise e.at(ins[1])
        except RULE_ERRORS as e:
            raise RuleFault.from_python(e, ins[1]) from e
        finally:
            rt.memo = None
        return
    vm = rt.state["vm"]
    pending, vm["pending"] = vm["pending"], None
    floor = len(vm["frames"])
    push(rt, block, env, scope=True)
    run(rt, floor)
    if vm["pending"] is not None:
        raise Abort("a procedure run by a primitive asked for a decision")
    vm["pending"] = pending


def _next(fr):
    fr["pc"] += 1
    fr["k"] = None


def _enter(rt, fr, block: int, env: dict, scope: bool = False):
    """Run a block in place of the instruction (a branch of an `if`, a procedure called): the
    frame moves on to its next instruction first, so the block's end returns there without
    coming back to the instruction (a loop, which does come back, keeps `k` instead)."""
    _next(fr)
    push(rt, block, env, scope)


def _child_env(fr, var: str, value) -> dict:
    """The locals of a block run for one element: the frame's, with `var` bound to `value`."""
    env = dict(fr["env"])
    env[var] = value
    return env


def x_let(rt, fr, ins, returned):
    fr["env"][ins[2]] = ins[3](rt, fr["env"])
    if ins[2] in _CONTEXT:      # the read-only window is the player's and action's (run)
        rt.memo = None
    fr["pc"] += 1


def x_set(rt, fr, ins, returned):
    _, sp, obj, otype, name, val = ins
    value = val(rt, fr["env"])
    if otype == "var":
        rt.memo = None
        # locals are copied into child frames: update every copy down to the procedure's frame
        for f in reversed(rt.state["vm"]["frames"]):
            if name in f["env"]:
                f["env"][name] = value
            if f.get("scope"):
                break
    elif otype == "index":            # `set x.F[key] = v`: name is (type of x, F, key)
        t, field, key = name
        env = fr["env"]
        target, k = obj(rt, env), key(rt, env)
        rt.memo = None          # (run: the window closes before the change)
        rt.set_item(t, target, field, k, value, sp)
    else:
        target = obj(rt, fr["env"])
        rt.memo = None
        rt.set_attr(otype, target, name, value, sp)
    fr["pc"] += 1


def x_if(rt, fr, ins, returned):
    """The first branch whose condition holds, or the `else`. A branch runs in a copy of the
    locals when it binds a name of its own (`let`, `roll ... as`, a `pay`, which keeps what
    was paid as `_paid`: the compiler says so), else in the `if`'s own dict: it adds no name
    to them, and a `set` of a local updates every frame's copy down to the procedure's
    (x_set), so sharing the dict changes nothing but the copy (a saved game's frames, read
    back from JSON, hold one each)."""
    if returned or fr["k"] is not None:
        _next(fr)
        return
    env = fr["env"]
    for cond, blk in ins[2]:
        if cond(rt, env):
            _enter(rt, fr, blk, dict(env) if ins[4] else env)
            return
    if ins[3] is not None:
        _enter(rt, fr, ins[3], dict(env) if ins[4] else env)
        return
    _next(fr)


def x_branch(rt, fr, ins, returned):
    """An `if` laid out in its block (compiler.Compiler._if): on to the first branch whose
    condition holds, else to the `else` (or past the `if`), in the same frame and locals."""
    env = fr["env"]
    for cond, skip in ins[2]:
        if cond(rt, env):
            fr["pc"] += skip
            return
    fr["pc"] += ins[3]


def x_jump(rt, fr, ins, returned):
    """The end of a branch of an `if` laid out in its block: past the other branches."""
    fr["pc"] += ins[2]


def _passing(rt, env, var, it, where, distinct_from=None) -> list:
    """The elements of `it` that pass `where` (with `var` bound to each), read in the read-only
    window of the instruction (run opens it for the reading instructions; x_random opens its
    own) so the constraint checker sees what they depended on. With `distinct_from` (the
    elements already chosen), each element once and none of those."""
    if where is None:       # (compiler.FILTERED_LOOPS: `it` gives only the elements that pass)
        if distinct_from is None:
            return list(it(rt, env) or ())
        items = []
        for x in it(rt, env) or ():
            if not (x in distinct_from or x in items):
                items.append(x)
        return items
    items = []
    local = dict(env)
    for x in it(rt, env) or ():
        if distinct_from is not None and (x in distinct_from or x in items):
            continue
        local[var] = x
        if where(rt, local):
            items.append(x)
    return items


def x_for(rt, fr, ins, returned):
    k = fr["k"]
    if k is None:
        items = _passing(rt, fr["env"], ins[2], ins[3], ins[4])
        if not items:       # nothing to run: on to the next instruction at once
            fr["pc"] += 1
            return
        k = fr["k"] = {"items": items, "i": -1}
    i = k["i"] = k["i"] + 1
    items = k["items"]
    if i < len(items):
        push(rt, ins[5], _child_env(fr, ins[2], items[i]))
    else:
        _next(fr)


def x_repeat(rt, fr, ins, returned):
    _, sp, count, body = ins
    k = fr["k"]
    if k is None:
        k = fr["k"] = {"n": int(count(rt, fr["env"]) or 0), "i": -1}
    k["i"] += 1
    if k["i"] < k["n"]:
        push(rt, body, dict(fr["env"]))
    else:
        _next(fr)


def _text(rt, fr, text):
    """A prompt or option label: plain text, or a template that fills in formulas (compiler.text)."""
    return text if text.__class__ is str or text is None else text(rt, fr["env"])


def _decider(rt, fr, by):
    return by(rt, fr["env"]) if by is not None else fr["env"].get("player")


def x_choose(rt, fr, ins, returned):
    k = fr["k"]
    if k is None:
        up_to = ins[6]
        limit = int(up_to(rt, fr["env"])) if up_to is not None else 1
        k = fr["k"] = {"left": limit, "chosen": [], "optional": up_to is not None}
    elif returned:
        k["left"] -= 1
    if k["left"] <= 0:
        _next(fr)
        return
    options = _passing(rt, fr["env"], ins[2], ins[3], ins[4], distinct_from=k["chosen"])
    if not options:
        _next(fr)
        return
    if len(options) == 1 and not k["optional"] and not rt.state["vm"].get("ask_forced"):
        return resume_choose(rt, fr, ins, options[0])
    rt.state["vm"]["pending"] = {"kind": "choose", "player": _decider(rt, fr, ins[7]), "prompt": _text(rt, fr, ins[8]),
                                 "options": options, "can_stop": k["optional"], "at": _where(ins[1])}
    return SUSPEND


def resume_choose(rt, fr, ins, value):
    if value is None:          # stop choosing (up_to)
        _next(fr)
        return
    fr["k"]["chosen"].append(value)
    push(rt, ins[5], _child_env(fr, ins[2], value))


def x_optional(rt, fr, ins, returned):
    _, sp, prompt, by, body = ins
    if returned or fr["k"] is not None:
        _next(fr)
        return
    rt.state["vm"]["pending"] = {"kind": "optional", "player": _decider(rt, fr, by), "prompt": _text(rt, fr, prompt),
                                 "options": ["yes", "no"], "at": _where(sp)}
    return SUSPEND


def either_options(rt, fr, ins) -> list:
    """The labels of the options whose conditions hold (in the read-only window run opened)."""
    env = fr["env"]
    return [_text(rt, fr, label) for label, where, blk in ins[4] if where is None or where(rt, env)]


def x_either(rt, fr, ins, returned):
    _, sp, prompt, by, opts = ins
    if returned or fr["k"] is not None:
        _next(fr)
        return
    labels = either_options(rt, fr, ins)
    if not labels:
        _next(fr)
        return
    if len(labels) == 1 and not rt.state["vm"].get("ask_forced"):
        return resume_either(rt, fr, ins, labels[0])
    rt.state["vm"]["pending"] = {"kind": "either", "player": _decider(rt, fr, by), "prompt": _text(rt, fr, prompt),
                                 "options": labels, "at": _where(sp)}
    return SUSPEND


def resume_either(rt, fr, ins, label):
    for lab, where, blk in ins[4]:
        if _text(rt, fr, lab) == label:
            _enter(rt, fr, blk, dict(fr["env"]))
            return
    raise Abort(f"no option '{label}'")


def x_pay(rt, fr, ins, returned):
    _, sp, cost_f, as_name = ins
    if fr["k"] is None:
        cost = cost_f(rt, fr["env"])
        fr["k"] = payment.start(rt, fr["env"].get("player"), cost, fr["env"], sp)
    moves = payment.step(rt, fr["k"])
    if moves is None:
        if as_name:
            fr["env"][as_name] = fr["k"]["paid_total"]
        fr["env"]["_paid"] = fr["k"]["paid"]
        _next(fr)
        return
    rt.state["vm"]["pending"] = {"kind": "pay", "player": fr["k"]["player"],
                                 "prompt": "pay " + payment.describe_need(fr["k"]),
                                 "options": moves, "at": _where(sp)}
    return SUSPEND


def x_require(rt, fr, ins, returned):
    _, sp, cond, msg = ins
    if not cond(rt, fr["env"]):
        raise Abort(msg or "a requirement of the rules is not met", sp)
    fr["pc"] += 1


def x_call(rt, fr, ins, returned):
    if returned or fr["k"] is not None:
        _next(fr)
        return
    env = fr["env"]
    values, kwargs = ins[3](rt, env)        # (compiler.Compiler.call)
    rt.memo = None          # (run: the window closes before the change)
    result = rt.verb(ins[2], env, values, kwargs, ins[1])
    if result is not None:        # the verb runs rules of its own: (block, env)
        _enter(rt, fr, result[0], result[1], scope=True)
        return
    fr["pc"] += 1


def x_proc(rt, fr, ins, returned):
    """A procedure of the pack called by its name, which the compiler resolved (`name(...)`,
    `run(name, ...)`: compiler.PROC): its block runs in place of the instruction, with the
    locals Runtime.call binds, as x_call runs it through Runtime.verb. (Nothing returns to a
    call: the frame moves on before the block is pushed, so `k` is None here.)"""
    env = fr["env"]
    values, kwargs = ins[3](rt, env)
    rt.memo = None          # (run: the window closes before the change)
    block, local = rt.call(rt.rs.procedures[ins[4]], env, values, kwargs, ins[1])
    _enter(rt, fr, block, local, scope=True)


def x_break(rt, fr, ins, returned):
    """Pop frames down to the innermost loop instruction of this procedure and leave it."""
    frames = rt.state["vm"]["frames"]
    while frames:
        top = frames[-1]
        code = rt.program.blocks[top["b"]]
        op = code[top["pc"]][0] if top["pc"] < len(code) else None
        is_loop = op in (C.FOR, C.REPEAT) or (op == C.CHOOSE and (top["k"] or {}).get("optional"))
        if top is not fr and is_loop and top["k"] is not None:
            _next(top)
            return
        if top.get("scope"):
            break
        frames.pop()
    raise Abort("`break` outside a loop", ins[1])


def x_roll(rt, fr, ins, returned):
    """`roll DIE as NAME`: one face, from the seeded RNG (or the scenario's next forced roll)."""
    _, sp, die, name = ins
    faces = rt.rs.dice.get(die)
    if not faces:
        raise Abort(f"no die '{die}' with faces", sp)
    value = rng.draw(rt.state, faces, "rolls", f"a face of die {die} ({', '.join(map(str, faces))})", sp)
    fr["env"][name] = value
    who = fr["env"].get("player")
    rt.log(f"{who + ' rolls' if isinstance(who, str) else 'roll of'} {die}: {value}")
    fr["pc"] += 1


def x_random(rt, fr, ins, returned):
    """`random x in S where c { ... }`: the body once, for an element the RNG picks among those
    that pass `where` (duplicates weigh more, as in a bag); nothing when there is none."""
    _, sp, var, it, where, body = ins
    if returned or fr["k"] is not None:
        _next(fr)
        return
    env = fr["env"]
    opened = rt.reading()       # (a changing instruction: run opened no window for it)
    try:
        items = _passing(rt, env, var, it, where)
    finally:
        rt.done_reading(opened)
    if not items:
        _next(fr)
        return
    value = rng.draw(rt.state, items, "picks", f"one of the {len(items)} element(s) to pick from", sp)
    rt.log(f"picked at random: {value}")
    _enter(rt, fr, body, _child_env(fr, var, value))


def x_shuffle(rt, fr, ins, returned):
    """`shuffle(ZONE)`: the list kept at ZONE, in place, in an order drawn from the seeded RNG."""
    _, sp, root, keys = ins
    st = rt.state
    if isinstance(root, str):
        cur, path = st[root], root
    else:
        owner = root(rt, fr["env"])
        cur = None
        if isinstance(owner, str):      # a side, or a thing of a kind with a store of its own (a City)
            cur = st["p"].get(owner)
            for _, store in rt.rs.stored_kinds if cur is None else ():
                cur = st.get(store, {}).get(owner)
                if cur is not None:
                    break
        if cur is None:
            raise Abort(f"`shuffle` needs a side or a stored thing (a record of its own) at the start of its "
                        f"path, not {owner!r}", sp)
        path = str(owner)
    for key in keys:
        if isinstance(cur, dict) and key not in cur and isinstance(cur.get("vars"), dict) and key in cur["vars"]:
            cur = cur["vars"]           # a player_var holding a list
        if not isinstance(cur, dict) or key not in cur:
            raise Abort(f"`shuffle`: {path} has no '{key}'", sp)
        cur, path = cur[key], f"{path}.{key}"
    if not isinstance(cur, list):
        raise Abort(f"`shuffle` needs a list, and {path} is {type(cur).__name__}", sp)
    cur[:] = rng.shuffle(st, cur)
    fr["pc"] += 1


_EXEC = {C.LET: x_let, C.SET: x_set, C.IF: x_if, C.FOR: x_for, C.REPEAT: x_repeat,
         C.CHOOSE: x_choose, C.OPTIONAL: x_optional, C.EITHER: x_either, C.PAY: x_pay,
         C.REQUIRE: x_require, C.CALL: x_call, C.BREAK: x_break,
         C.ROLL: x_roll, C.RANDOM: x_random, C.SHUFFLE: x_shuffle, C.PROC: x_proc,
         C.BRANCH: x_branch, C.JUMP: x_jump}
_EXEC = [_EXEC[op] for op in range(len(_EXEC))]     # opcodes are 0..17: a list is the faster table
# the instructions that may change the game (not only the running frames): the read-only window
# shared by the others (see run) is closed before and after each of them
_CHANGES = [op in (C.SET, C.PAY, C.CALL, C.PROC, C.BREAK, C.ROLL, C.RANDOM, C.SHUFFLE) for op in range(len(_EXEC))]
_READS_FIRST = (C.SET, C.CALL, C.PROC)      # changing instructions that evaluate all their expressions first
# the instructions run in the shared read-only window: the reading ones and those that read first
_IN_WINDOW = [not changes or op in _READS_FIRST for op, changes in enumerate(_CHANGES)]
# changing instructions whose writes are noted as they are made (Runtime.wrote): a `set` by
# world_store, a call by Runtime.verb, a payment's by the Runtime's tap, withdraw and deposit;
# `break` changes only the running frames
_NOTED = (C.SET, C.CALL, C.PROC, C.BREAK, C.PAY)
# the locals that say whose and which action's read-only window an instruction is in
_CONTEXT = ("player", "action")


def _where(sp: Span) -> str:
    """'file.rules:line' of a decision's statement (its pending `at`), worked out once per span."""
    got = _WHERE.get(sp)
    if got is None:
        if len(_WHERE) > 10_000:
            _WHERE.clear()
        got = _WHERE[sp] = f"{sp.file.rsplit('/', 1)[-1]}:{sp.line}" if sp and sp.line else ""
    return got


_WHERE: dict = {}       # Span -> _where's text (a pack's decision statements: a few hundred)


def resume(rt, kind: str, value):
    """Feed the answer to the pending decision, then run on."""
    vm = rt.state["vm"]
    fr = vm["frames"][-1]
    ins = rt.program.blocks[fr["b"]][fr["pc"]]
    vm["pending"] = None
    if kind == "choose":
        resume_choose(rt, fr, ins, value)
    elif kind == "optional":
        if value == "yes":
            _enter(rt, fr, ins[4], dict(fr["env"]))
        else:
            _next(fr)
    elif kind == "either":
        resume_either(rt, fr, ins, value)
    elif kind == "pay":
        pushed = payment.apply_option(rt, fr["k"], value)
        if pushed is not None:
            push(rt, pushed[0], pushed[1], scope=True)
    run(rt)
