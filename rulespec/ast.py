"""AST of the rulespec DSL. Every node carries a Span (file, line, column) so that every later
stage (type checking, overlays, the interpreter's explanations) can point at the source.

Nodes are plain frozen-ish dataclasses; expressions and statements are compiled to Python
callables by `rulespec.compiler`, never walked in the game's hot loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Optional

from .errors import Span, UNKNOWN_SPAN


@dataclass
class Node:
    span: Span = field(default=UNKNOWN_SPAN, repr=False, compare=False, kw_only=True)


# ------------------------------------------------------------------ expressions
class Expr(Node):
    pass


@dataclass
class Num(Expr):
    value: int | float


@dataclass
class Str(Expr):
    value: str


@dataclass
class Bool(Expr):
    value: bool


@dataclass
class NoneLit(Expr):
    pass


@dataclass
class Name(Expr):
    id: str


@dataclass
class Qty(Expr):
    """`3 crown`: a number of a symbol (a cost or a gain)."""
    count: int
    symbol: str
    symbol_span: Span = field(default=UNKNOWN_SPAN, compare=False)


@dataclass
class PerCost(Expr):
    """`1 ship per seas_between(a, b)`: count symbols times a computed number."""
    count: int
    symbol: str
    per: Expr
    symbol_span: Span = field(default=UNKNOWN_SPAN, compare=False)


@dataclass
class MoreThan(Expr):
    """`more crown than x`: strictly more of a symbol than a computed number (x + 1)."""
    symbol: str
    than: Expr
    symbol_span: Span = field(default=UNKNOWN_SPAN, compare=False)


@dataclass
class Attr(Expr):
    obj: Expr
    name: str


@dataclass
class Call(Expr):
    func: Expr
    args: list
    kwargs: dict


@dataclass
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass
class BinOp(Expr):
    """Arithmetic (+ - * / %), logic (and, or), cost alternative (|)."""
    op: str
    left: Expr
    right: Expr


@dataclass
class Compare(Expr):
    """Comparison (== != < <= > >=) and membership (in, not in)."""
    op: str
    left: Expr
    right: Expr


@dataclass
class Not(Expr):
    operand: Expr


@dataclass
class Neg(Expr):
    operand: Expr


@dataclass
class CondExpr(Expr):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass
class ListExpr(Expr):
    items: list


@dataclass
class Comprehension(Expr):
    """`[e for x in S where c]` (also the bare argument form `count(x for x in S where c)`)."""
    elem: Expr
    var: str
    iter: Expr
    cond: Optional[Expr]


# ------------------------------------------------------------------ statements
class Stmt(Node):
    pass


@dataclass
class Block(Node):
    stmts: list


@dataclass
class Let(Stmt):
    name: str
    value: Expr


@dataclass
class SetStmt(Stmt):
    target: Expr
    value: Expr


@dataclass
class If(Stmt):
    branches: list          # [(cond Expr, Block)]
    else_: Optional[Block]


@dataclass
class Choose(Stmt):
    """One decision: the deciding player picks an element of a set (or up to N, one at a time)."""
    var: str
    iter: Expr
    up_to: Optional[Expr]
    where: Optional[Expr]
    by: Optional[Expr]
    prompt: str
    body: Block


@dataclass
class For(Stmt):
    var: str
    iter: Expr
    where: Optional[Expr]
    body: Block


@dataclass
class Repeat(Stmt):
    count: Expr
    body: Block


@dataclass
class OptionalStmt(Stmt):
    """A yes/no decision: do the block or skip it."""
    prompt: str
    by: Optional[Expr]
    body: Block


@dataclass
class Option(Node):
    label: str
    where: Optional[Expr]
    body: Block


@dataclass
class Either(Stmt):
    """A decision between labelled options (each may have a condition)."""
    prompt: str
    by: Optional[Expr]
    options: list


@dataclass
class Pay(Stmt):
    cost: Expr
    as_name: Optional[str]


@dataclass
class Require(Stmt):
    cond: Expr
    message: str


@dataclass
class Break(Stmt):
    """Leave the innermost loop (for, repeat, choose ... up_to)."""


@dataclass
class Roll(Stmt):
    """`roll d6 as r`: draw one face of a declared die from the state's seeded RNG and name it
    for the rest of the block."""
    die: str
    as_name: str
    die_span: Span = field(default=UNKNOWN_SPAN, compare=False)


@dataclass
class RandomPick(Stmt):
    """`random c in S where cond { ... }`: like `choose`, but the seeded RNG picks (nothing when
    nothing is left to pick)."""
    var: str
    iter: Expr
    where: Optional[Expr]
    body: Block


@dataclass
class Shuffle(Stmt):
    """`shuffle(supply.tiles)`: put a list of the game state in a random order (seeded RNG)."""
    zone: Expr


@dataclass
class CallStmt(Stmt):
    """A primitive verb (flip, place_disc, gain, ...) or a procedure/action call."""
    verb: str
    args: list
    kwargs: dict


# ------------------------------------------------------------------ declarations
@dataclass
class Annotation(Node):
    name: str          # e.g. inferred, placeholder, derived, board, source
    text: str = ""


@dataclass
class Param(Node):
    name: str
    type: Optional[str] = None
    default: Optional[Expr] = None


@dataclass
class Field(Node):
    name: str
    value: object                  # Expr or Block
    annotations: list = field(default_factory=list)
    append: bool = False           # `name += [...]` in an overlay


@dataclass
class SubBlock(Node):
    kind: str
    key: object = None             # str | int | None
    title: str = ""
    annotations: list = field(default_factory=list)
    members: list = field(default_factory=list)


@dataclass
class RemoveMember(Node):
    name: str
    key: object = None


@dataclass
class Declaration(Node):
    kind: str
    id: str
    op: Optional[str] = None       # None | "replace" | "modify"
    params: list = field(default_factory=list)
    title: str = ""
    annotations: list = field(default_factory=list)
    members: list = field(default_factory=list)
    id_span: Span = field(default=UNKNOWN_SPAN, compare=False)
    kind_span: Span = field(default=UNKNOWN_SPAN, compare=False)


@dataclass
class Removal(Node):
    kind: str
    id: str


@dataclass
class Module(Node):
    file: str
    items: list                     # Declaration | Removal


_FIELD_NAMES: dict = {}     # node class -> its fields' names (dataclasses.fields builds a tuple at each call)


def _field_names(cls) -> tuple:
    got = _FIELD_NAMES.get(cls)
    if got is None:
        got = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return got


def walk(value):
    """Every AST node inside `value` (a node, or lists / tuples / dicts of them), each once,
    without recursion (deeply nested expressions must not hit the recursion limit). A node is
    yielded before its children are read, so a caller may rewrite its Span fields."""
    seen = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Node):
            if id(v) in seen:
                continue
            seen.add(id(v))
            yield v
            stack.extend([getattr(v, name) for name in _field_names(type(v))])
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
