"""Turn AST nodes back into DSL text, for `rulespec show`, diffs and explanations."""
from __future__ import annotations

import re

from . import ast as A

_PREC = {"or": 1, "and": 2, "|": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


def expr(e, parent: int = 0) -> str:
    if e is None:
        return "none"
    if not isinstance(e, A.Node):
        return _plain(e)
    t = type(e)
    if t is A.Num:
        return str(e.value)
    if t is A.Str:
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if t is A.Bool:
        return "true" if e.value else "false"
    if t is A.NoneLit:
        return "none"
    if t is A.Name:
        return e.id
    if t is A.Qty:
        return f"{e.count} {e.symbol}"
    if t is A.PerCost:
        return f"{e.count} {e.symbol} per {expr(e.per, 9)}"
    if t is A.MoreThan:
        return f"more {e.symbol} than {expr(e.than, 9)}"
    if t is A.Attr:
        return f"{expr(e.obj, 9)}.{e.name}"
    if t is A.Call:
        return f"{expr(e.func, 9)}({_args(e.args, e.kwargs)})"
    if t is A.Index:
        return f"{expr(e.obj, 9)}[{expr(e.index)}]"
    if t is A.BinOp:
        p = _PREC[e.op]
        s = f"{expr(e.left, p)} {e.op} {expr(e.right, p + 1)}"
        return f"({s})" if p < parent else s
    if t is A.Compare:
        s = f"{expr(e.left, 4)} {e.op} {expr(e.right, 4)}"
        return f"({s})" if parent > 3 else s
    if t is A.Not:
        s = f"not {expr(e.operand, 3)}"
        return f"({s})" if parent > 3 else s
    if t is A.Neg:
        return f"-{expr(e.operand, 9)}"
    if t is A.CondExpr:
        s = f"if {expr(e.cond)} then {expr(e.then)} else {expr(e.else_)}"
        return f"({s})" if parent else s
    if t is A.ListExpr:
        return "[" + ", ".join(expr(i) for i in e.items) + "]"
    if t is A.Comprehension:
        w = f" where {expr(e.cond)}" if e.cond is not None else ""
        return f"[{expr(e.elem)} for {e.var} in {expr(e.iter)}{w}]"
    if t is A.Block:
        return block(e)
    return f"<{t.__name__}>"


_BARE = re.compile(r"[a-z_][a-z0-9_]*|-?[0-9][0-9._]*")


def _plain(v) -> str:
    """Plain YAML data in flow form: a string that is not a name or a number is quoted (so a
    note with a colon or a comma reads as one value)."""
    if isinstance(v, A.Node):
        return expr(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, list):
        return "[" + ", ".join(_plain(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_plain(k)}: {_plain(x)}" for k, x in v.items()) + "}"
    if isinstance(v, str):
        return v if _BARE.fullmatch(v) and v not in ("true", "false", "none") else expr(A.Str(v))
    return str(v)


def _args(args, kwargs) -> str:
    parts = [expr(a) for a in args] + [f"{k}: {expr(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def block(b: A.Block, indent: int = 0) -> str:
    if not b.stmts:
        return "{ }"
    pad = "  " * (indent + 1)
    lines = ["{"] + [pad + stmt(s, indent + 1) for s in b.stmts] + ["  " * indent + "}"]
    return "\n".join(lines)


def stmt(s, indent: int = 0) -> str:
    t = type(s)
    if t is A.Let:
        return f"let {s.name} = {expr(s.value)}"
    if t is A.SetStmt:
        return f"set {expr(s.target)} = {expr(s.value)}"
    if t is A.If:
        out = []
        for i, (c, b) in enumerate(s.branches):
            out.append(f"{'if' if i == 0 else 'elif'} {expr(c)} {block(b, indent)}")
        if s.else_:
            out.append(f"else {block(s.else_, indent)}")
        return " ".join(out)
    if t is A.Choose:
        parts = [f"choose {s.var} in {expr(s.iter)}"]
        if s.up_to is not None:
            parts.append(f"up_to {expr(s.up_to)}")
        if s.where is not None:
            parts.append(f"where {expr(s.where)}")
        if s.by is not None:
            parts.append(f"by {expr(s.by)}")
        if s.prompt:
            parts.append(expr(A.Str(s.prompt)))
        return " ".join(parts) + " " + block(s.body, indent)
    if t is A.For:
        w = f" where {expr(s.where)}" if s.where is not None else ""
        return f"for {s.var} in {expr(s.iter)}{w} {block(s.body, indent)}"
    if t is A.Repeat:
        return f"repeat {expr(s.count)} {block(s.body, indent)}"
    if t is A.OptionalStmt:
        p = f" {expr(A.Str(s.prompt))}" if s.prompt else ""
        by = f" by {expr(s.by)}" if s.by is not None else ""
        return f"optional{p}{by} {block(s.body, indent)}"
    if t is A.Either:
        p = f" {expr(A.Str(s.prompt))}" if s.prompt else ""
        pad = "  " * (indent + 1)
        opts = []
        for o in s.options:
            w = f" where {expr(o.where)}" if o.where is not None else ""
            opts.append(f"{pad}option {expr(A.Str(o.label))}{w} {block(o.body, indent + 1)}")
        return f"either{p} {{\n" + "\n".join(opts) + "\n" + "  " * indent + "}"
    if t is A.Pay:
        return f"pay {expr(s.cost)}" + (f" as {s.as_name}" if s.as_name else "")
    if t is A.Require:
        return f"require {expr(s.cond)}" + (f" else {expr(A.Str(s.message))}" if s.message else "")
    if t is A.CallStmt:
        return f"{s.verb}({_args(s.args, s.kwargs)})"
    if t is A.Break:
        return "break"
    if t is A.Roll:
        return f"roll {s.die} as {s.as_name}"
    if t is A.RandomPick:
        w = f" where {expr(s.where)}" if s.where is not None else ""
        return f"random {s.var} in {expr(s.iter)}{w} {block(s.body, indent)}"
    if t is A.Shuffle:
        return f"shuffle({expr(s.zone)})"
    return f"<{t.__name__}>"


def value(v, indent: int = 0) -> str:
    """Any field value: an expression, a block or plain YAML data."""
    if isinstance(v, A.Block):
        return block(v, indent)
    return expr(v)


def annotations(anns) -> str:
    """` @tag("note")` for each annotation, as written after a title or a field value."""
    return "".join(f" @{a.name}" + (f"({expr(A.Str(a.text))})" if a.text else "") for a in anns)


def field(fv, indent: int = 0) -> str:
    """One field of a resolved declaration: `name: value @tags` (a block spans several lines)."""
    return f"{fv.name}: {value(fv.value, indent)}{annotations(fv.annotations)}"


# the fields of a `field` declaration its one-line form can write (the settings as annotations)
_LINE_FIELDS = ("on", "type", "default", "key", "setup", "min", "sparse")


def field_line(d, member: bool = False) -> str | None:
    """A `field` declaration in its one-line form, `field F: TYPE = default on K "title" @key("k")`
    (member: a field of a record or zone entry, without `on`), or None when it needs the block
    form (a field the line cannot write, or a sub-block)."""
    from .world import names_of, parse_type, type_text
    if d.kind != "field" or d.blocks or d.params or not set(d.fields) <= set(_LINE_FIELDS) \
            or ("on" in d.fields) == member or "type" not in d.fields:
        return None
    text = type_text(d.get("type"))
    on = [n for n, _ in names_of(d.get("on"))]
    if text is None or parse_type(text) is None or any(parse_type(n) is None for n in on) or not (on or member):
        return None
    out = f"field {d.id}: {text}"
    if "default" in d.fields:
        out += f" = {value(d.get('default'))}"
    if on:
        out += " on " + ", ".join(on)
    if d.title:
        out += " " + expr(A.Str(d.title))
    for name in ("key", "setup", "min", "sparse"):
        v = d.get(name)
        if name not in d.fields:
            continue
        v = getattr(v, "value", getattr(v, "id", v))
        if name == "sparse":
            if v is not True:
                return None
            out += " @sparse"
        elif name == "min":
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                return None
            out += f" @min({v})"
        elif isinstance(v, str):
            out += f" @{name}({expr(A.Str(v))})"
        else:
            return None
    return out + annotations(d.annotations)


def declaration(d, indent: int = 0) -> str:
    """A resolved declaration or sub-block (rulespec.pack.Decl) as DSL text: what `show KIND ID`
    prints and what a diff compares line by line. A `field` that fits on one line is printed in
    its one-line form (field_line)."""
    pad = "  " * indent
    line = field_line(d, member=indent > 0)
    if line is not None:
        return pad + line
    head = d.kind if d.id is None else f"{d.kind} {d.id}"
    if d.params:
        head += "(" + ", ".join(p.name + (f": {p.type}" if p.type else "") +
                                (f" = {expr(p.default)}" if p.default is not None else "") for p in d.params) + ")"
    if d.title:
        head += " " + expr(A.Str(d.title))
    head += annotations(d.annotations)
    lines = [f"{pad}{head} {{"]
    for fv in d.fields.values():
        if fv.name == "evidence" and isinstance(fv.value, dict):
            continue        # a YAML item's evidence mapping: its tags are on the fields it names
        lines.append(f"{pad}  {field(fv, indent + 1)}")
    for b in d.blocks.values():
        lines.append(declaration(b, indent + 1))
    lines.append(f"{pad}}}")
    return "\n".join(lines)
