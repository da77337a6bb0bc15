"""Compile checked AST into fast Python callables and a flat table of statement blocks.

Expressions become closures `f(rt, env) -> value` (rt: the Runtime, env: the local variables of
the running frame). Statement blocks become lists of small instruction tuples that the VM
(interpreter.vm) steps through; a block is referred to by its index in `Program.blocks`, so a
suspended game (waiting for a decision) is plain data: block index, program counter, locals.

Nothing here walks parse trees at play time.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field

from rulespec import ast as A
from rulespec.errors import Diagnostic, RulespecError, Span
from rulespec.vocabulary import ATTRIBUTES, CONSTANTS, FUNCTIONS, GLOBALS

from . import costs


# Instruction opcodes (first element of each instruction tuple)
LET, SET, IF, CHOOSE, FOR, REPEAT, OPTIONAL, EITHER, PAY, REQUIRE, CALL, BREAK = range(12)
OPNAMES = ["let", "set", "if", "choose", "for", "repeat", "optional", "either", "pay", "require", "call", "break"]
LOOPS = (FOR, REPEAT, CHOOSE)


@dataclass
class Program:
    """All compiled blocks of a pack. Instructions are tuples: (opcode, span, ...operands)."""
    blocks: list = field(default_factory=list)
    spans: list = field(default_factory=list)      # block index -> Span of the block

    def add(self, instrs: list, span: Span) -> int:
        self.blocks.append(instrs)
        self.spans.append(span)
        return len(self.blocks) - 1


_BIN = {"+": operator.add, "-": operator.sub, "*": operator.mul, "%": operator.mod}
_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


def _div(a, b):
    return a // b if b else 0


class Compiler:
    """Compiles expressions/blocks of one resolved pack. `names` maps global ids to types
    (declarations, cities, seas, colours), as the checker does."""

    def __init__(self, names: dict, program: Program | None = None):
        self.names = names
        self.program = program or Program()

    def fail(self, msg, span):
        raise RulespecError(Diagnostic("RS106", msg, span, "run `rulespec validate` for details"))

    # ------------------------------------------------------------ expressions
    def expr(self, e, scope: dict):
        """-> (closure, static type)"""
        m = getattr(self, "c_" + type(e).__name__, None)
        if m is None:
            self.fail(f"cannot compile {type(e).__name__}", e.span)
        return m(e, scope)

    def fn(self, e, scope):
        return self.expr(e, scope)[0]

    def c_Num(self, e, scope):
        v = e.value
        return (lambda rt, env: v), "number"

    def c_Str(self, e, scope):
        v = e.value
        return (lambda rt, env: v), "str"

    def c_Bool(self, e, scope):
        v = e.value
        return (lambda rt, env: v), "bool"

    def c_NoneLit(self, e, scope):
        return (lambda rt, env: None), "none"

    def c_Name(self, e, scope):
        n = e.id
        if n in scope:
            return (lambda rt, env: env[n]), scope[n] or "any"
        if n in GLOBALS:
            getter = f"g_{n}"
            if n == "player":
                return (lambda rt, env: env.get("player")), "player"
            if n == "self":
                return (lambda rt, env: env.get("self")), "any"
            return (lambda rt, env: getattr(rt, getter)(env)), GLOBALS[n][0]
        if n in self.names:
            return (lambda rt, env: n), self.names[n]
        if n in CONSTANTS:
            return (lambda rt, env: n), "str"
        self.fail(f"unknown name '{n}'", e.span)

    def c_Qty(self, e, scope):
        c = costs.qty(e.symbol, e.count)
        return (lambda rt, env: c), "cost"

    def c_PerCost(self, e, scope):
        per = self.fn(e.per, scope)
        sym, n = e.symbol, e.count
        return (lambda rt, env: costs.qty(sym, n * int(per(rt, env)))), "cost"

    def c_MoreThan(self, e, scope):
        than = self.fn(e.than, scope)
        sym = e.symbol
        return (lambda rt, env: costs.qty(sym, int(than(rt, env)) + 1)), "cost"

    def c_Attr(self, e, scope):
        obj, t = self.expr(e.obj, scope)
        base = t.rstrip("?")
        name = e.name
        if base in ATTRIBUTES and name in ATTRIBUTES[base]:
            rtype = ATTRIBUTES[base][name][0]
            method = f"a_{base}_{name}"
            return (lambda rt, env: None if (o := obj(rt, env)) is None else getattr(rt, method)(o)), rtype
        # a value whose type is only known at run time, or a field of a declared object
        return (lambda rt, env: rt.attr(obj(rt, env), name, env)), "any"

    def c_Call(self, e, scope):
        if not isinstance(e.func, A.Name):
            self.fail("only named functions can be called", e.span)
        name = e.func.id
        args = [self.expr(a, scope) for a in e.args]
        fns = [a[0] for a in args]
        kw = {k: self.fn(v, scope) for k, v in e.kwargs.items()}
        if name in FUNCTIONS:
            impl = f"f_{name}"
            rtype = FUNCTIONS[name].returns
            if name in ("max", "min"):
                rtype = "number"
            if len(fns) == 1:
                f0 = fns[0]
                return (lambda rt, env: getattr(rt, impl)(f0(rt, env))), rtype
            # the usual small calls without keywords, spelled out: no comprehension per call
            if not kw and len(fns) == 0:
                return (lambda rt, env: getattr(rt, impl)()), rtype
            if not kw and len(fns) == 2:
                f0, f1 = fns
                return (lambda rt, env: getattr(rt, impl)(f0(rt, env), f1(rt, env))), rtype
            if not kw and len(fns) == 3:
                f0, f1, f2 = fns
                return (lambda rt, env: getattr(rt, impl)(f0(rt, env), f1(rt, env), f2(rt, env))), rtype
            return (lambda rt, env: getattr(rt, impl)(*[f(rt, env) for f in fns],
                                                      **{k: f(rt, env) for k, f in kw.items()})), rtype
        kind = self.names.get(name)
        if kind == "formula":
            if not kw and len(fns) == 0:
                return (lambda rt, env: rt.formula(name, [], {}, env)), "any"
            if not kw and len(fns) == 1:
                f0 = fns[0]
                return (lambda rt, env: rt.formula(name, [f0(rt, env)], {}, env)), "any"
            return (lambda rt, env: rt.formula(name, [f(rt, env) for f in fns],
                                               {k: f(rt, env) for k, f in kw.items()}, env)), "any"
        if kind == "table":
            return (lambda rt, env: rt.table_lookup(name, *[f(rt, env) for f in fns])), "any"
        self.fail(f"unknown function '{name}'", e.span)

    def c_Index(self, e, scope):
        obj, t = self.expr(e.obj, scope)
        idx = self.fn(e.index, scope)

        def f(rt, env):
            o, i = obj(rt, env), idx(rt, env)
            try:
                return o[i]
            except (KeyError, IndexError, TypeError):
                return None
        return f, (t[4:] if t.startswith("set:") else "any")

    def c_BinOp(self, e, scope):
        (l, lt), (r, rt_) = self.expr(e.left, scope), self.expr(e.right, scope)
        op = e.op
        if op == "and":
            return (lambda rt, env: bool(l(rt, env)) and bool(r(rt, env))), "bool"
        if op == "or":
            return (lambda rt, env: bool(l(rt, env)) or bool(r(rt, env))), "bool"
        if op == "|":
            return (lambda rt, env: costs.alternative(costs.as_cost(l(rt, env)), costs.as_cost(r(rt, env)))), "cost"
        if "cost" in (lt, rt_) or "symbol" in (lt, rt_):
            if op == "+":
                return (lambda rt, env: costs.combine(costs.as_cost(l(rt, env)), costs.as_cost(r(rt, env)))), "cost"
            if op == "*":
                if lt in ("cost", "symbol"):
                    return (lambda rt, env: costs.times(costs.as_cost(l(rt, env)), int(r(rt, env)))), "cost"
                return (lambda rt, env: costs.times(costs.as_cost(r(rt, env)), int(l(rt, env)))), "cost"
        if op == "+" and lt.startswith("set:"):
            return (lambda rt, env: list(l(rt, env) or ()) + list(r(rt, env) or ())), lt   # lists concatenate
        if op == "/":
            return (lambda rt, env: _div(l(rt, env), r(rt, env))), "number"
        f = _BIN[op]
        return (lambda rt, env: f(l(rt, env) or 0, r(rt, env) or 0)), "number"

    def c_Compare(self, e, scope):
        l, r = self.fn(e.left, scope), self.fn(e.right, scope)
        if e.op == "in":
            return (lambda rt, env: l(rt, env) in (r(rt, env) or ())), "bool"
        if e.op == "not in":
            return (lambda rt, env: l(rt, env) not in (r(rt, env) or ())), "bool"
        f = _CMP[e.op]
        if e.op in ("==", "!="):
            # `x == none` / `x != none` (very common in `where` filters): values are plain
            # data, for which `== None` is `is None`; skips calling the literal's closure
            if isinstance(e.right, A.NoneLit) or isinstance(e.left, A.NoneLit):
                x = l if isinstance(e.right, A.NoneLit) else r
                if e.op == "==":
                    return (lambda rt, env: x(rt, env) is None), "bool"
                return (lambda rt, env: x(rt, env) is not None), "bool"
            if e.op == "==":
                return (lambda rt, env: l(rt, env) == r(rt, env)), "bool"
            return (lambda rt, env: l(rt, env) != r(rt, env)), "bool"

        def cmp(rt, env):
            a, b = l(rt, env), r(rt, env)
            return f(a if a is not None else 0, b if b is not None else 0)
        return cmp, "bool"

    def c_Not(self, e, scope):
        f = self.fn(e.operand, scope)
        return (lambda rt, env: not f(rt, env)), "bool"

    def c_Neg(self, e, scope):
        f = self.fn(e.operand, scope)
        return (lambda rt, env: -(f(rt, env) or 0)), "number"

    def c_CondExpr(self, e, scope):
        c = self.fn(e.cond, scope)
        (a, at), (b, bt) = self.expr(e.then, scope), self.expr(e.else_, scope)
        return (lambda rt, env: a(rt, env) if c(rt, env) else b(rt, env)), (at if at == bt else "any")

    def c_ListExpr(self, e, scope):
        items = [self.expr(i, scope) for i in e.items]
        fns = [i[0] for i in items]
        types = {i[1] for i in items}
        return (lambda rt, env: [f(rt, env) for f in fns]), "set:" + (types.pop() if len(types) == 1 else "any")

    def c_Comprehension(self, e, scope):
        it, itype = self.expr(e.iter, scope)
        inner = dict(scope)
        inner[e.var] = itype[4:] if itype.startswith("set:") else "any"
        elem, etype = self.expr(e.elem, inner)
        cond = self.fn(e.cond, inner) if e.cond is not None else None
        var = e.var

        def f(rt, env):
            out = []
            local = dict(env)
            for x in it(rt, env) or ():
                local[var] = x
                if cond is None or cond(rt, local):
                    out.append(elem(rt, local))
            return out
        return f, "set:" + etype

    # ------------------------------------------------------------ statements
    def block(self, b: A.Block, scope: dict) -> int:
        scope = dict(scope)
        instrs = [self.stmt(s, scope) for s in b.stmts]
        return self.program.add(instrs, b.span)

    def stmt(self, s, scope: dict):
        t = type(s)
        sp = s.span
        if t is A.Let:
            f, ty = self.expr(s.value, scope)
            scope[s.name] = ty
            return (LET, sp, s.name, f)
        if t is A.SetStmt:
            if isinstance(s.target, A.Name):
                return (SET, sp, None, "var", s.target.id, self.fn(s.value, scope))
            if not isinstance(s.target, A.Attr):
                self.fail("`set` needs a variable or an attribute such as player.florins", sp)
            obj, ot = self.expr(s.target.obj, scope)
            return (SET, sp, obj, ot.rstrip("?"), s.target.name, self.fn(s.value, scope))
        if t is A.If:
            branches = [(self.fn(c, scope), self.block(b, scope)) for c, b in s.branches]
            else_ = self.block(s.else_, scope) if s.else_ else None
            return (IF, sp, branches, else_)
        if t in (A.Choose, A.For):
            it, itype = self.expr(s.iter, scope)
            inner = dict(scope)
            inner[s.var] = itype[4:] if itype.startswith("set:") else "any"
            where = self.fn(s.where, inner) if s.where is not None else None
            body = self.block(s.body, inner)
            if t is A.For:
                return (FOR, sp, s.var, it, where, body)
            up_to = self.fn(s.up_to, scope) if s.up_to is not None else None
            by = self.fn(s.by, scope) if s.by is not None else None
            return (CHOOSE, sp, s.var, it, where, body, up_to, by, s.prompt)
        if t is A.Repeat:
            return (REPEAT, sp, self.fn(s.count, scope), self.block(s.body, scope))
        if t is A.OptionalStmt:
            by = self.fn(s.by, scope) if s.by is not None else None
            return (OPTIONAL, sp, s.prompt, by, self.block(s.body, scope))
        if t is A.Either:
            by = self.fn(s.by, scope) if s.by is not None else None
            opts = [(o.label, self.fn(o.where, scope) if o.where is not None else None, self.block(o.body, scope))
                    for o in s.options]
            return (EITHER, sp, s.prompt, by, opts)
        if t is A.Pay:
            f = self.fn(s.cost, scope)
            if s.as_name:
                scope[s.as_name] = "number"
            return (PAY, sp, f, s.as_name)
        if t is A.Require:
            return (REQUIRE, sp, self.fn(s.cond, scope), s.message)
        if t is A.Break:
            return (BREAK, sp)
        if t is A.CallStmt:
            args = [self.fn(a, scope) for a in s.args]
            # the first argument of perform/run names a declaration: keep it as a plain id
            if s.verb in ("perform", "run") and s.args and isinstance(s.args[0], A.Name):
                target = s.args[0].id
                args[0] = (lambda rt, env, _t=target: env.get(_t, _t) if _t in env else _t)
            kw = {k: self.fn(v, scope) for k, v in s.kwargs.items()}
            return (CALL, sp, s.verb, args, kw)
        self.fail(f"cannot compile statement {t.__name__}", sp)
