"""Why a move is refused: the rule (file:line), the condition of it that failed, and the
values that made it fail.

A refusal has one of a few causes, each read from what the engine itself decided with:
- a choice the rule's filter excluded (`choose x in S where A and B`): the first conjunct that
  is false for that element, evaluated again on the position; or an element not in S at all,
  or one already chosen;
- an `either` option whose `where` is false;
- a payment move that is not offered (a source that cannot give that symbol now, or a tap
  after which the cost could no longer be paid);
- a rule that stopped the move while it ran: a `require`, an action's or procedure's
  `requires`, a cost that cannot be paid (`pay`), or a constraint that the move breaks.
The conditions are evaluated with the compiled pack's own compiler (the syntax node and scope
of each decision and `require` are kept in Program.sources), in a read-only window: explaining
never changes a state. Used by Engine.explain and the human seat (`rulespec play --human`).
"""
from __future__ import annotations

import marshal
import os
from dataclasses import dataclass, field

from rulespec import ast as A
from rulespec import unparse
from rulespec.errors import RulespecError, Span

from . import costs, payment
from .vm import Abort


@dataclass
class Refusal:
    """Why `move` is illegal: `reason` (as IllegalMove says it), the rule that refused it
    (`span`), the rule's condition that failed (`condition`, as written, and where), and the
    values of its parts (`values`: [(text, value)])."""
    move: str
    reason: str
    span: Span | None = None
    condition: str = ""
    condition_span: Span | None = None
    values: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def where(self) -> str:
        return where(self.span)

    def lines(self) -> list:
        """The explanation as short lines of text (the first: the reason)."""
        out = [f"'{self.move}' is refused: {self.reason}"]
        if self.span is not None and self.span.line:
            out.append(f"rule: {where(self.span)}")
        if self.condition:
            at = f"  ({where(self.condition_span)})" if self.condition_span and self.condition_span.line else ""
            out.append(f"failed: {self.condition}{at}")
        out += [f"  {text} = {show(v)}" for text, v in self.values]
        out += self.notes
        return out

    def render(self) -> str:
        return "\n".join(self.lines())


def where(span: Span | None) -> str:
    """file:line of a rule, the file relative to the working folder when it is below it."""
    if span is None or not span.line:
        return ""
    path = span.file
    try:
        rel = os.path.relpath(path)
        if not rel.startswith(".."):
            path = rel
    except ValueError:
        pass
    return f"{path}:{span.line}"


def show(v) -> str:
    """A value as the rules write it: none, true/false, costs as symbols, short lists."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return costs.describe(v)
    if isinstance(v, (list, tuple)):
        items = [show(x) for x in v[:8]]
        return "[" + ", ".join(items) + (", ..." if len(v) > 8 else "") + "]"
    return str(v)


def explain(engine, state, move) -> Refusal | None:
    """None when `move` is legal in `state`, else why it is not (the state is not changed)."""
    from .api import IllegalMove
    try:
        engine.apply(state, move)
        return None
    except IllegalMove as e:
        return refusal(engine, state, move, e)


def refusal(engine, state, move, e) -> Refusal:
    """The Refusal of an IllegalMove raised by Engine.apply(state, move)."""
    r = Refusal(str(move), e.reason.split("; legal moves: ")[0], e.rule_span)
    try:
        ctx = getattr(e, "context", None)
        if ctx is not None:
            _while_running(engine, r, *ctx)
        elif isinstance(state, dict) and isinstance(move, str) and state["vm"].get("pending") and not state.get("over"):
            _not_offered(engine, r, state, " ".join(move.split()))
    except (RulespecError, Abort, *_EVAL_ERRORS):      # explaining is best effort: the reason stands
        pass
    return r


_EVAL_ERRORS = (ArithmeticError, LookupError, TypeError, ValueError, AttributeError, RecursionError)


# ------------------------------------------------------------------ conditions
def _compiled(engine, node, scope):
    cache = engine.__dict__.setdefault("_why_compiled", {})
    f = cache.get(id(node))
    if f is None:
        f = cache[id(node)] = (node, engine.rs.comp.fn(node, scope))
    return f[1]


def _value(engine, rt, env, node, scope):
    """The value of `node` with these variables (functions that read the running context,
    such as can_pay, see them too), in a read-only window."""
    opened, saved = rt.reading(), rt.env
    rt.env = env
    try:
        return _compiled(engine, node, scope)(rt, env)
    finally:
        rt.env = saved
        rt.done_reading(opened)


_LITERALS = (A.Num, A.Str, A.Bool, A.NoneLit, A.Qty)


def _culprit(engine, rt, env, node, scope):
    """The part of a false condition that makes it false: the first false conjunct of an
    `and`, recursively (an `or`, a `not` or a comparison is its own culprit)."""
    while isinstance(node, A.BinOp) and node.op == "and":
        node = node.left if not _value(engine, rt, env, node.left, scope) else node.right
    return node


def _parts(node) -> list:
    """The sub-expressions whose values explain a condition."""
    if isinstance(node, A.Not):
        return _parts(node.operand) or [node.operand]
    if isinstance(node, A.Compare):
        return [x for x in (node.left, node.right) if not isinstance(x, _LITERALS)]
    if isinstance(node, A.Call):
        return [a for a in node.args if not isinstance(a, _LITERALS)]
    if isinstance(node, A.BinOp) and node.op == "or":
        return [node.left, node.right]
    return [node] if isinstance(node, (A.Attr, A.Name, A.Index)) else []


def _explain_condition(engine, r, rt, env, node, scope):
    """Fill r.condition and r.values for the false condition `node`."""
    bad = _culprit(engine, rt, env, node, scope)
    r.condition = unparse.expr(bad)
    r.condition_span = bad.span
    parts = _parts(bad)
    if isinstance(bad, A.BinOp) and bad.op == "or":     # every side is false: the culprit of each
        parts = [_culprit(engine, rt, env, side, scope) for side in parts]
    for part in parts:
        try:
            r.values.append((unparse.expr(part), _value(engine, rt, env, part, scope)))
        except (RulespecError, Abort, *_EVAL_ERRORS):
            continue


# ------------------------------------------------------------------ refused while the rules ran
def _while_running(engine, r, rt, env):
    """The move ran into a rule that stopped it: which, and what in it failed."""
    sp = r.span
    src = engine.rs.program.sources.get(sp) if sp is not None else None
    if src is not None and isinstance(src[0], A.Require):
        _explain_condition(engine, r, rt, env, src[0].cond, src[1])
        return
    if src is not None and isinstance(src[0], A.Pay):
        _unaffordable(engine, r, rt)
        return
    for c in engine.rs.constraints:
        d = c["decl"]
        if d.span == sp and c.get("check") is not None:
            fv = d.fields.get("check")
            players = rt.state["players"] if c["scope"] == "player" else (None,)
            for p in players:
                cenv = {"player": p}
                if not _value(engine, rt, cenv, fv.value, {}):
                    _explain_condition(engine, r, rt, cenv, fv.value, {})
                    if p is not None:
                        r.notes.append(f"  (for player {p})")
                    return
            return
    for d in engine.rs.decls.values():
        fv = d.fields.get("requires")
        if d.span == sp and fv is not None and isinstance(fv.value, A.Expr):
            cenv = dict(env)        # the caller's variables: the declaration's own context
            scope = {p.name: (p.type or "any") for p in d.params}
            _explain_condition(engine, r, rt, cenv, fv.value, scope)
            return


def _unaffordable(engine, r, rt):
    """A `pay` that cannot be completed: the cost, and what the player could pay with."""
    frames = rt.state["vm"]["frames"]
    k = frames[-1].get("k") if frames else None
    if not isinstance(k, dict) or "need" not in k:
        return
    player = k["player"]
    r.condition = f"pay {costs.describe(k['need'])}"
    symbols = sorted({s for alt in k["need"] for s in alt})
    treasury = payment._available(rt, player, k["ctx"])[1]
    have = {s: payment.symbols_available(rt, player, s, k["ctx"]) + (treasury if s == engine.rs.money else 0)
            for s in symbols}
    r.values = [(f"{s} {player} can pay now", n) for s, n in have.items()]


# ------------------------------------------------------------------ not among the moves offered
def _not_offered(engine, r, state, move):
    state = marshal.loads(marshal.dumps(state))
    rt = engine.runtime(state)
    fr = state["vm"]["frames"][-1]
    ins = rt.program.blocks[fr["b"]][fr["pc"]]
    r.span = ins[1]
    src = rt.program.sources.get(ins[1])
    pending = state["vm"]["pending"]
    kind = pending["kind"]
    if kind == "choose" and src is not None and move.startswith("choose "):
        _choice(engine, r, rt, fr, src, move[7:])
    elif kind == "either" and src is not None and move.startswith("option "):
        _option(engine, r, rt, fr, src, move[7:])
    elif kind == "pay":
        _payment_move(engine, r, rt, fr, move)


def _choice(engine, r, rt, fr, src, text):
    from .api import _fmt
    node, scope = src
    env = fr["env"]
    opened = rt.reading()
    try:
        elements = list(_compiled(engine, node.iter, scope)(rt, env) or ())
    finally:
        rt.done_reading(opened)
    match = [x for x in elements if _fmt(x) == text]
    if not match:
        r.condition = f"{node.var} in {unparse.expr(node.iter)}"
        r.condition_span = node.iter.span
        r.notes.append(f"  '{text}' is not one of them ({len(elements)}: "
                       f"{', '.join(_fmt(x) for x in elements[:8])}{', ...' if len(elements) > 8 else ''})")
        return
    x = match[0]
    if x in ((fr.get("k") or {}).get("chosen") or ()):
        r.condition = f"each {node.var} once"
        r.notes.append(f"  '{text}' was already chosen")
        return
    if node.where is not None:
        local = dict(env)
        local[node.var] = x
        _explain_condition(engine, r, rt, local, node.where, scope)
        r.values.insert(0, (node.var, x))


def _option(engine, r, rt, fr, src, label):
    from .vm import _text
    node, scope = src
    for opt in node.options:
        if _text(rt, fr, engine.rs.comp.text(opt.label)) == label and opt.where is not None:
            _explain_condition(engine, r, rt, fr["env"], opt.where, scope)
            return
    r.notes.append("  options now: " + ", ".join(rt.state["vm"]["pending"]["options"]))


def _payment_move(engine, r, rt, fr, move):
    k = fr.get("k")
    if not isinstance(k, dict) or "need" not in k:
        return
    parts = move.split()
    r.condition = f"pay {costs.describe(k['need'])}"
    if len(parts) == 2 and parts[0] == "run" and parts[1] in engine.rs.procedures:
        c = engine.rs.procedures[parts[1]]
        d = c.decl
        for name in ("requires", "during_payment"):
            fv = d.fields.get(name)
            if fv is not None and isinstance(fv.value, A.Expr) and not _value(engine, rt, {"player": k["player"]}, fv.value, {}):
                r.span = d.span
                _explain_condition(engine, r, rt, {"player": k["player"]}, fv.value, {})
                return
        return
    if len(parts) != 3 or parts[0] != "tap":
        r.notes.append("  a payment move is 'tap SOURCE SYMBOL' or 'run PROCEDURE'")
        return
    _, sid, sym = parts
    sources = dict(rt.payment_sources(k["player"], k["ctx"]))
    if sid in k["tapped"]:
        r.notes.append(f"  {sid} was already used for this payment")
    elif sid not in sources:
        r.notes.append(f"  {sid} cannot pay now (sources now: {', '.join(sources) or 'none'})")
    elif sym not in sources[sid]:
        r.notes.append(f"  {sid} gives {costs.describe([sources[sid]])}, not {sym}")
    elif not any(alt.get(sym, 0) for alt in k["need"]):
        r.notes.append(f"  the cost needs no {sym}")
    else:
        r.notes.append(f"  after it the cost could no longer be paid in full, or another source must be "
                       f"used first (offered: {', '.join(payment.options(rt, k)) or 'none'})")
