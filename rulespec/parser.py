"""Parse `.rules` text into the AST (rulespec.ast), with friendly, positioned errors.

The Lark LALR parser is built once per process. Lark's own exceptions never escape: they are
turned into RulespecError with code RS010 (unexpected token / end of file) or RS011
(unexpected character), naming what was expected in plain words, never raw terminal names.
"""
from __future__ import annotations

import ast as pyast
import hashlib
import io
import pickle
import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast as A
from . import limits
from .errors import Diagnostic, RulespecError, Span, read_source, source_line_at, split_lines

GRAMMAR_PATH = Path(__file__).resolve().parent / "grammar.lark"

# plain-words names for terminals, used in "expected ..." hints
_TERMINAL_WORDS = {
    "KEY": "a field name followed by ':'",
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": 'a quoted "text"',
    "QTY": "a quantity such as '3 crown'",
    "COMP_OP": "a comparison (==, !=, <, <=, >, >=)",
    "FIELD_KW": "'field'",
    "ON_KW": "'on' and the kind(s) that keep the field (field hoard: int = 0 on side)",
    "FIELD_TYPE": "a field type (int, number, bool, str, any, a kind, side?, list of city, count by side, "
                  "map str to any, index of rooms)",
    "$END": "end of file",
}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The parser; its tables come from Lark's own cache in the compiled-pack cache folder
    (rulespec/packcache.py) when there is one: building them costs a few tenths of a second."""
    import os
    from .packcache import lark_cache_file
    grammar = GRAMMAR_PATH.read_text(encoding="utf-8")
    options = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
                   start=["start", "expr", "block"])
    cached = lark_cache_file(grammar)
    if cached is None:
        return Lark(grammar, **options)
    options["cache_grammar"] = True     # the grammar too (tests generate rules from it)
    if cached.is_file():            # Lark checks the grammar and options recorded in it
        return Lark(grammar, cache=str(cached), **options)
    tmp = cached.with_name(f".tmp-{os.getpid()}-{cached.name}")
    try:
        parser = Lark(grammar, cache=str(tmp), **options)
        os.replace(tmp, cached)     # written whole, then renamed: a reader never sees half a file
    except OSError:                 # the folder is not writable after all: no cache
        options.pop("cache_grammar")
        parser = Lark(grammar, **options)
    return parser


def _word(terminal: str) -> str:
    if terminal in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[terminal]
    try:
        pattern = _lark().get_terminal(terminal).pattern
    except KeyError:
        return terminal.lower()
    if pattern.type == "str":
        return f"'{pattern.value}'"
    return terminal.lower()


def _expected_words(expected) -> str:
    words = sorted({_word(t) for t in expected if not t.startswith("__IGNORE")})
    if len(words) > 12:
        words = words[:12] + ["..."]
    return ", ".join(words)


def _token_words(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type in ("NAME", "KEY", "NUMBER", "QTY"):
        return f"'{token.value}'"
    return f"'{token.value}'"


def _syntax_error(err: UnexpectedInput, file: str, text: str) -> RulespecError:
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        lines = split_lines(text)       # '\n' only, like Lark's own line numbers
        line, col = len(lines), len(lines[-1]) + 1
        msg = "the file ends in the middle of a declaration"
        expected = getattr(err, "expected", None) or getattr(err, "accepts", None) or []
        hint = ("expected " + _expected_words(expected) + "; a '}' may be missing"
                if expected else "a closing '}' may be missing")
        code = "RS010"
    elif isinstance(err, UnexpectedToken):
        msg = f"unexpected {_token_words(err.token)}"
        hint = "expected " + _expected_words(err.accepts or err.expected)
        if err.token.type == "QTY":
            hint += ("; a number followed by a name on one line reads as a quantity "
                     "(e.g. '3 crown'): put the next field on its own line or separate it with ';'")
        code = "RS010"
    else:  # UnexpectedCharacters
        ch = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        if ch == '"':
            msg = "unterminated string"
            hint = 'close the text with a " on the same line'
        else:
            msg = f"unexpected character {ch!r}"
            allowed = getattr(err, "allowed", None) or []
            hint = ("expected " + _expected_words(allowed)) if allowed else "remove this character"
            if ch.isupper():
                hint = "names are lower_case (letters, digits and '_'); " + hint
            before = text[:err.pos_in_stream]
            if ch == ":" and re.search(r"\d+[ \t]+[a-z_][a-z0-9_]*[ \t]*$", before):
                msg = "unexpected ':' after a quantity"
                hint = ("a number followed by a name on one line reads as a quantity (e.g. '3 crown'): "
                        "put the next field on its own line or separate it with ';'")
        code = "RS011"
    span = Span(file, line or 1, col or 1)
    side_by_side = _operands_side_by_side(text, span.line, span.column)
    if side_by_side is not None:
        span, msg, hint = side_by_side
        span = Span(file, *span)
        code = "RS010"
    return RulespecError(Diagnostic(code, msg, span, hint, source_line=source_line_at(file, span.line, text)))


_OPERAND = r"(?:\d+[ \t]+)?[a-z_][a-z0-9_]*"
_SIDE_BY_SIDE = re.compile(rf"^[ \t]*([a-z_][a-z0-9_]*)[ \t]*:[ \t]*({_OPERAND})[ \t]+({_OPERAND})(?:[ \t]+{_OPERAND})*"
                           r"[ \t]*(?:[;@#].*)?$")
_KEYWORDS = {"and", "or", "not", "in", "then", "else", "where", "for", "if", "by", "per", "up_to", "as", "remove",
             "more", "than", "true", "false", "none"}


def _operands_side_by_side(text: str, line: int, column: int):
    """(span, message, hint) when a field a little above the error gives two values with no
    operator between them (`bottom: florin florin`): the parser reads the second one as the
    start of a sub-block and fails only on a later token, often on the next line. The span is
    the second value. None otherwise, or when the error is at that value already."""
    lines = split_lines(text)
    n, looked = line, 0
    while 0 < n <= len(lines) and looked < 2:
        src = lines[n - 1]
        if src.strip() and not src.lstrip().startswith("#"):
            looked += 1
            m = _SIDE_BY_SIDE.match(src)
            if m and not _KEYWORDS & set(re.findall(r"[a-z_][a-z0-9_]*", m.group(2) + " " + m.group(3))):
                start = m.start(3) + 1
                if (n, start) < (line, column):
                    first, second = m.group(2), m.group(3)
                    return ((n, start, n, m.end(3) + 1),
                            f"'{second}' follows '{first}' with no operator between them",
                            f"join two values with `+` (both) or `|` (one or the other): "
                            f"`{m.group(1)}: {first} + {second}` or `{m.group(1)}: {first} | {second}`; "
                            f"a number before a symbol counts it (`2 {second.split()[-1]}`)")
        n -= 1
    return None


# ------------------------------------------------------------------ tree -> AST
def _span_of(file, meta_or_token) -> Span:
    m = meta_or_token
    if getattr(m, "empty", False) or getattr(m, "line", None) is None:
        return Span(file)
    return Span(file, m.line, m.column, getattr(m, "end_line", m.line) or m.line,
                getattr(m, "end_column", m.column) or m.column)


# annotations of a one-line `field` that are its settings (key, setup, min, sparse): they
# become fields of the declaration, as the block form writes them
FIELD_ANNOTATIONS = ("key", "setup", "min", "sparse")


def _number(text: str):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return 0


def _unquote(s: str) -> str:
    import warnings
    try:
        with warnings.catch_warnings():      # "invalid escape sequence" is not the user's problem here
            warnings.simplefilter("ignore")
            return pyast.literal_eval(s)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return s[1:-1]


def _qty(tok: Token) -> tuple[int, str, int]:
    parts = tok.value.split()
    offset = tok.value.index(parts[1], len(parts[0]))
    return int(parts[0]), parts[1], offset


@v_args(meta=True)
class _ToAst(Transformer):
    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _s(self, meta) -> Span:
        return _span_of(self.file, meta)

    # -- top level
    def start(self, meta, items):
        return A.Module(self.file, [i for i in items if i is not None], span=self._s(meta))

    def declaration(self, meta, c):
        op, kind_tok, id_tok, params, title, *rest = c
        return A.Declaration(str(kind_tok), str(id_tok), op, params or [], title or "", rest[:-1], rest[-1],
                             span=self._s(meta), id_span=_span_of(self.file, id_tok),
                             kind_span=_span_of(self.file, kind_tok))

    def field_line(self, meta, c):
        """`field F: TYPE [= default] on K, K2 ["title"] @key("k") @min(0)`: the same declaration
        as the block form `field F "title" { on: K; type: TYPE; default: ...; key: "k"; min: 0 }`."""
        _, key, ftype, default, *rest = c
        names = [t for t in rest if isinstance(t, Token) and t.type == "NAME"]
        title = next((t for t in rest if isinstance(t, str) and not isinstance(t, Token)), "")
        anns = [a for a in rest if isinstance(a, A.Annotation)]
        at = _span_of(self.file, key)
        name = key.value.rstrip(": \t")
        key_span = Span(self.file, at.line, at.column, at.line, at.column + len(name))
        on = A.Field("on", A.Name(str(names[0]), span=_span_of(self.file, names[0])) if len(names) == 1 else
                     A.ListExpr([A.Name(str(n), span=_span_of(self.file, n)) for n in names],
                                span=_span_of(self.file, names[0])), span=_span_of(self.file, names[0]))
        members, kept = self._field_members(key, ftype, default, anns)
        return A.Declaration("field", name, None, [], title or "", kept, [on] + members, span=self._s(meta),
                             id_span=key_span, kind_span=_span_of(self.file, c[0]))

    def field_member(self, meta, c):
        """`field F: TYPE [= default] ["title"] @key("k")` inside a record or a zone's entry: the
        sub-block `field F "title" { type: TYPE; default: ... }`."""
        _, key, ftype, default, *rest = c
        title = next((t for t in rest if isinstance(t, str) and not isinstance(t, Token)), "")
        at = _span_of(self.file, c[0])
        members, kept = self._field_members(key, ftype, default, [a for a in rest if isinstance(a, A.Annotation)])
        return A.SubBlock("field", key.value.rstrip(": \t"), title or "", kept, members, span=at)

    def _field_members(self, key, ftype, default, anns):
        at = _span_of(self.file, ftype)
        text = " ".join(ftype.value.split())
        simple = " " not in text and not text.endswith("?")
        members = [A.Field("type", A.Name(text, span=at) if simple else A.Str(text, span=at), span=at)]
        if default is not None:
            members.append(A.Field("default", default, span=getattr(default, "span", at)))
        kept = []
        for a in anns:          # the field's settings written as annotations become its fields
            if a.name in FIELD_ANNOTATIONS:
                v = (A.Bool(True, span=a.span) if a.name == "sparse" else
                     A.Num(_number(a.text), span=a.span) if a.name == "min" else A.Str(a.text, span=a.span))
                members.append(A.Field(a.name, v, span=a.span))
            else:
                kept.append(a)
        return members, kept

    def op_replace(self, meta, c):
        return "replace"

    def op_modify(self, meta, c):
        return "modify"

    def removal(self, meta, c):
        return A.Removal(str(c[0]), str(c[1]), span=_span_of(self.file, c[1]))

    def title(self, meta, c):
        return _unquote(c[0])

    def body(self, meta, c):
        return list(c)

    def field(self, meta, c):
        key, value, *anns = c
        name = key.value.rstrip(": \t")
        return A.Field(name, value, anns, span=_span_of(self.file, key))

    def append_field(self, meta, c):
        name, value, *anns = c
        return A.Field(str(name), value, anns, append=True, span=_span_of(self.file, name))

    def sub_block(self, meta, c):
        kind, key, title, *rest = c
        return A.SubBlock(str(kind), key, title or "", rest[:-1], rest[-1], span=_span_of(self.file, kind))

    def remove_member(self, meta, c):
        return A.RemoveMember(str(c[0]), c[1], span=_span_of(self.file, c[0]))

    def key(self, meta, c):
        t = c[0]
        return int(t) if t.type == "NUMBER" and t.value.isdigit() else str(t)

    def annotation(self, meta, c):
        arg = c[1]
        text = "" if not arg else arg.value if arg.type == "NUMBER" else _unquote(arg)
        return A.Annotation(str(c[0]), text, span=self._s(meta))

    def params(self, meta, c):
        return [p for p in c if p is not None]

    def param(self, meta, c):
        return A.Param(str(c[0]), None, c[1], span=self._s(meta))

    def typed_param(self, meta, c):
        return A.Param(c[0].value.rstrip(": \t"), str(c[1]), c[2], span=self._s(meta))

    # -- statements
    def block(self, meta, c):
        return A.Block([s for s in c if isinstance(s, A.Stmt)], span=self._s(meta))

    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], span=self._s(meta))

    def set_stmt(self, meta, c):
        return A.SetStmt(c[0], c[1], span=self._s(meta))

    def if_stmt(self, meta, c):
        cond, blk, *rest = c
        branches = [(cond, blk)]
        else_ = None
        for r in rest:
            if isinstance(r, tuple):
                branches.append(r)
            elif r is not None:
                else_ = r
        return A.If(branches, else_, span=self._s(meta))

    def elif_clause(self, meta, c):
        return (c[0], c[1])

    def else_clause(self, meta, c):
        return c[0]

    def choose_stmt(self, meta, c):
        var, it, up_to, where, by, title, body = c
        return A.Choose(str(var), it, up_to, where, by, title or "", body, span=self._s(meta))

    def up_to(self, meta, c):
        return c[0]

    def by(self, meta, c):
        return c[0]

    def where(self, meta, c):
        return c[0]

    def for_stmt(self, meta, c):
        return A.For(str(c[0]), c[1], c[2], c[3], span=self._s(meta))

    def repeat_stmt(self, meta, c):
        return A.Repeat(c[0], c[1], span=self._s(meta))

    def optional_stmt(self, meta, c):
        return A.OptionalStmt(c[0] or "", c[1], c[2], span=self._s(meta))

    def either_stmt(self, meta, c):
        title, by, *options = c
        return A.Either(title or "", by, options, span=self._s(meta))

    def option(self, meta, c):
        return A.Option(c[0] or "", c[1], c[2], span=self._s(meta))

    def pay_stmt(self, meta, c):
        return A.Pay(c[0], str(c[1]) if c[1] else None, span=self._s(meta))

    def require_stmt(self, meta, c):
        return A.Require(c[0], _unquote(c[1]) if c[1] else "", span=self._s(meta))

    def break_stmt(self, meta, c):
        return A.Break(span=self._s(meta))

    def roll_stmt(self, meta, c):
        return A.Roll(str(c[0]), str(c[1]), _span_of(self.file, c[0]), span=self._s(meta))

    def random_stmt(self, meta, c):
        return A.RandomPick(str(c[0]), c[1], c[2], c[3], span=self._s(meta))

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], span=self._s(meta))

    def call_stmt(self, meta, c):
        args, kwargs = c[1] if c[1] else ([], {})
        return A.CallStmt(str(c[0]), args, kwargs, span=self._s(meta))

    # -- expressions
    def cond_expr(self, meta, c):
        return A.CondExpr(c[0], c[1], c[2], span=self._s(meta))

    def _bin(op):
        def f(self, meta, c):
            return A.BinOp(op, c[0], c[1], span=self._s(meta))
        return f

    or_ = _bin("or")
    and_ = _bin("and")
    alternative = _bin("|")
    add = _bin("+")
    sub = _bin("-")
    mul = _bin("*")
    div = _bin("/")
    mod = _bin("%")

    def not_(self, meta, c):
        return A.Not(c[0], span=self._s(meta))

    def neg(self, meta, c):
        return A.Neg(c[0], span=self._s(meta))

    def compare(self, meta, c):
        return A.Compare(str(c[1]), c[0], c[2], span=self._s(meta))

    def member(self, meta, c):
        return A.Compare("in", c[0], c[1], span=self._s(meta))

    def not_member(self, meta, c):
        return A.Compare("not in", c[0], c[1], span=self._s(meta))

    def attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), span=self._s(meta))

    def call(self, meta, c):
        args, kwargs = c[1] if c[1] else ([], {})
        return A.Call(c[0], args, kwargs, span=self._s(meta))

    def index(self, meta, c):
        return A.Index(c[0], c[1], span=self._s(meta))

    def number(self, meta, c):
        v = c[0].value
        return A.Num(float(v) if "." in v else int(v), span=self._s(meta))

    def string(self, meta, c):
        return A.Str(_unquote(c[0].value), span=self._s(meta))

    def true(self, meta, c):
        return A.Bool(True, span=self._s(meta))

    def false(self, meta, c):
        return A.Bool(False, span=self._s(meta))

    def none(self, meta, c):
        return A.NoneLit(span=self._s(meta))

    def name(self, meta, c):
        return A.Name(str(c[0]), span=self._s(meta))

    def _qty_span(self, tok, offset):
        return Span(self.file, tok.line, tok.column + offset, tok.line, tok.column + len(tok.value))

    def quantity(self, meta, c):
        n, sym, off = _qty(c[0])
        return A.Qty(n, sym, self._qty_span(c[0], off), span=self._s(meta))

    def per_cost(self, meta, c):
        n, sym, off = _qty(c[0])
        return A.PerCost(n, sym, c[1], self._qty_span(c[0], off), span=self._s(meta))

    def more_than(self, meta, c):
        return A.MoreThan(str(c[0]), c[1], _span_of(self.file, c[0]), span=self._s(meta))

    def list(self, meta, c):
        return A.ListExpr([x for x in c if x is not None], span=self._s(meta))

    def comprehension(self, meta, c):
        return A.Comprehension(c[0], str(c[1]), c[2], c[3], span=self._s(meta))

    def generator(self, meta, c):
        return A.Comprehension(c[0], str(c[1]), c[2], c[3], span=self._s(meta))

    def args(self, meta, c):
        args, kwargs = [], {}
        for a in c:
            if isinstance(a, tuple) and len(a) == 2 and a[0] == "__kw__":
                continue
            if isinstance(a, _Kw):
                kwargs[a.name] = a.value
            else:
                args.append(a)
        return (args, kwargs)

    def kwarg(self, meta, c):
        return _Kw(c[0].value.rstrip(": \t"), c[1])


class _Kw:
    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name, self.value = name, value


def _limit_error(file, text, meta, message, hint) -> RulespecError:
    line = getattr(meta, "line", None) or 1
    col = getattr(meta, "column", None) or 1
    end_line = getattr(meta, "end_line", None) or 0
    end_col = getattr(meta, "end_column", None) or 0
    span = Span(file, line, col, end_line if end_line == line else 0, end_col if end_line == line else 0)
    return RulespecError(Diagnostic("RS005", message, span, hint, source_line=source_line_at(file, line, text)))


def _digits_ok(number: str) -> bool:
    whole, _, frac = number.partition(".")
    return len(whole) <= limits.MAX_NUMBER_DIGITS and len(frac) <= limits.MAX_NUMBER_DIGITS


def _check_tree(tree: Tree, file: str, text: str):
    """The size limits of the DSL (rulespec.limits), on the parse tree, without recursion:
    nesting (expressions and blocks inside each other), the length of names and of numbers.
    Beyond them a rule is refused with RS005 where it passes the limit."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limits.MAX_NESTING:
            raise _limit_error(file, text, node.meta, f"the rules are nested more than {limits.MAX_NESTING} levels deep "
                               "here", "split the expression or block into smaller ones (`let` steps, formulas, procedures)")
        for c in node.children:
            if isinstance(c, Tree):
                stack.append((c, depth + 1))
            elif isinstance(c, Token):
                if c.type in ("NAME", "KEY") and len(c.value) > limits.MAX_NAME_CHARS:
                    raise _limit_error(file, text, c, f"a name of {len(c.value):,} characters (at most "
                                       f"{limits.MAX_NAME_CHARS})", "use a shorter name")
                if c.type in ("NUMBER", "QTY") and not _digits_ok(c.value.split()[0]):
                    raise _limit_error(file, text, c, f"a number of {len(c.value.split()[0]):,} digits (at most "
                                       f"{limits.MAX_NUMBER_DIGITS})", "write a smaller number")


def _run(text: str, file: str, start: str):
    try:
        tree = _lark().parse(text, start=start)
        _check_tree(tree, file, text)
        with limits.deep_recursion():
            return _ToAst(file).transform(tree)
    except UnexpectedInput as e:
        raise _syntax_error(e, file, text) from None
    except VisitError as e:
        raise RulespecError(Diagnostic("RS010", f"could not read this rule: {e.orig_exc}", Span(file, 1, 1),
                                       "check the syntax around this point")) from None
    except RecursionError:
        raise RulespecError(Diagnostic("RS010", "the rules are nested too deeply", Span(file, 1, 1),
                                       "split the expression into smaller 'let' steps")) from None


def parse_rules(text: str, file: str = "<string>") -> A.Module:
    """Parse a whole `.rules` file. The same text parsed again in this process (a copy of a
    pack in another folder: an overlay's tests, a scenario's pack) is read back from the first
    parse instead, a tenth of the cost, with its spans naming the new file."""
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    got = _PARSED.get(key)
    if got is not None:
        return _thaw(got, file)
    module = _run(text, file, "start")
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[key] = _freeze(module, file)
    return module


_PARSED: dict = {}          # sha256 of a file's text -> its module, pickled (_freeze)
_PARSED_MAX = 512


class _FilePickler(pickle.Pickler):
    """Pickles a module with its file name left out (the spans name it): any file may reuse it."""

    def __init__(self, buf, file: str):
        super().__init__(buf, protocol=pickle.HIGHEST_PROTOCOL)
        self._file = file

    def persistent_id(self, obj):
        return "file" if obj.__class__ is str and obj == self._file else None


class _FileUnpickler(pickle.Unpickler):
    def __init__(self, buf, file: str):
        super().__init__(buf)
        self._file = file

    def persistent_load(self, pid):
        if pid != "file":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self._file


def _freeze(module: A.Module, file: str) -> bytes:
    buf = io.BytesIO()
    _FilePickler(buf, file).dump(module)
    return buf.getvalue()


def _thaw(blob: bytes, file: str) -> A.Module:
    from .packcache import collector_paused
    with collector_paused():
        return _FileUnpickler(io.BytesIO(blob), file).load()


def parse_expr(text: str, file: str = "<string>", line: int = 1, column: int = 1) -> A.Expr:
    """Parse one expression (used for DSL formulas embedded in YAML data)."""
    expr = _run(text, file, "expr")
    if line != 1 or column != 1:
        _shift_spans(expr, line - 1, column - 1)
    return expr


def parse_rules_file(path: str | Path, root: Path | None = None) -> A.Module:
    """A `.rules` file read as untrusted input (rulespec.sandbox): a regular file within the
    size limit, inside `root` when given."""
    path = Path(path)
    return parse_rules(read_source(path, "RS011", root), str(path))


def _shift_spans(node, dline: int, dcol: int) -> None:
    """Move spans of an expression parsed from a one-line YAML string to its place in the file
    (the column shift applies to the first line only)."""
    def shift(line, col, _end):
        return line + dline, col + (dcol if line == 1 else 0)
    map_spans(node, shift)


def map_spans(node, where) -> None:
    """Rewrite every Span in an AST in place: `where(line, column, is_end)` gives the real
    (line, column) of a position of the parsed text (e.g. DSL text taken from a YAML block
    scalar, see yamldata.YamlDoc.text_positions)."""
    import dataclasses

    def move(v: Span) -> Span:
        if not v.line:
            return v
        line, col = where(v.line, v.column, False)
        if v.end_line:
            end_line, end_col = where(v.end_line, v.end_column, True)
        else:
            end_line, end_col = v.end_line, v.end_column
        return Span(v.file, line, col, end_line, end_col)

    for n in A.walk(node):
        for f in dataclasses.fields(n):
            v = getattr(n, f.name)
            if isinstance(v, Span):
                setattr(n, f.name, move(v))
