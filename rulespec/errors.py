"""One error type for every content problem, so no Python traceback ever reaches a user.

A `Diagnostic` is one finding (error or warning) with a stable code, a position and a hint;
`RulespecError` carries one or more of them. Positions are 1-based lines and columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple


class Span(NamedTuple):
    """Where something was written: file, 1-based line/column, optional end.

    A tuple, not a dataclass: a loaded pack holds one per declaration, expression and YAML
    value (13,500 in base_3to5), and the compiled-pack cache (rulespec/packcache.py) unpickles
    all of them at each load. A dataclass instance is two objects (itself and its `__dict__`),
    rebuilt from a state dict; a Span is one, made by `tuple.__new__` (`__reduce__`): base_3to5
    from the cache in 0.042 -> 0.032 s of CPU, with half the objects for the collector to walk.
    Immutable and hashed by its fields, as the frozen dataclass it replaces."""
    file: str
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file

    def __reduce__(self):
        return tuple.__new__, (Span, tuple(self))


UNKNOWN_SPAN = Span("<unknown>")


@dataclass
class Diagnostic:
    code: str          # stable code, documented in docs/validator.md (e.g. RS101)
    message: str       # what is wrong, in game terms
    span: Span = UNKNOWN_SPAN
    hint: str = ""     # what was expected / how to fix it
    severity: str = "error"   # "error" | "warning"
    source_line: str = ""     # the offending source line, for the caret display
    # names whose absence this finding reports (a dangling reference, a declaration nothing
    # uses, a count of declarations of a kind): when a file that failed to load mentions one,
    # the finding may only follow from that failure (rulespec.diagnostic_order)
    missing: tuple = ()
    # the root cause: the load or syntax error this finding follows from, or None
    caused_by: "Diagnostic | None" = None

    def render(self) -> str:
        """Human text: position, message, the source line with a caret, the hint."""
        out = [f"{self.span}: {self.severity} {self.code}: {self.message}"]
        if self.source_line:
            out.append("    " + self.source_line.rstrip("\n"))
            col = max(self.span.column, 1)
            width = 1
            if self.span.end_line == self.span.line and self.span.end_column > col:
                width = self.span.end_column - col
            prefix = "".join(ch if ch == "\t" else " " for ch in self.source_line[: col - 1])
            out.append("    " + prefix + "^" * max(1, min(width, 60)))
        if self.hint:
            out.append(f"    hint: {self.hint}")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.column,
            "hint": self.hint,
            "caused_by": None if self.caused_by is None else self.caused_by.where(),
        }

    def where(self) -> dict:
        """The code and position of this finding: how another one names it as its cause."""
        return {"code": self.code, "file": self.span.file, "line": self.span.line, "column": self.span.column}


class RulespecError(Exception):
    """The project's error type: one or more diagnostics about content or a move."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic | str, *, code: str = "RS000",
                 span: Span = UNKNOWN_SPAN, hint: str = ""):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(code, diagnostics, span, hint)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__(self.render())

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    @property
    def code(self) -> str:
        return self.first.code

    @property
    def span(self) -> Span:
        return self.first.span

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


# Python exceptions that generated rule code may raise on values it did not expect
RULE_ERRORS = (ArithmeticError, LookupError, TypeError, ValueError, AttributeError)


class RuleFault(RulespecError):
    """A fault of a pack's rules found while they run: a division by zero (RS301), a limit of
    rulespec.limits passed (RS305: too much work, recursion too deep...). Raised where the
    position may not be known; `at(span)` gives it the position of the rule being run, once
    (the innermost rule that knows its position wins)."""

    def __init__(self, code: str, message: str, span: Span | None = None, hint: str = "",
                 python_error: BaseException | None = None):
        span = span or UNKNOWN_SPAN
        src = source_line_at(span.file, span.line) if span.line else ""
        super().__init__(Diagnostic(code, message, span, hint, source_line=src))
        self.python_error = python_error       # the Python exception a rule met, if any

    @classmethod
    def from_python(cls, e: BaseException, span: Span | None = None, what: str = "a rule") -> "RuleFault":
        """RS301 for a Python exception met while running a rule's generated code: a value of
        the wrong type (`player.cities + 1`), a missing key... (the checker's types are
        gradual: `any` values are checked when the rules run)."""
        text = str(e)
        return cls("RS301", f"{what} failed while running: {type(e).__name__}: {text[:200]}", span,
                   "run `rulespec validate` on the pack; guard the rule so that its values have the types it "
                   "uses", python_error=e)

    @property
    def positioned(self) -> bool:
        return bool(self.first.span.line)

    def at(self, span: Span | None) -> "RuleFault":
        if span is not None and span.line and not self.positioned:
            d = self.first
            d.span = span
            d.source_line = source_line_at(span.file, span.line)
            self.args = (self.render(),)
        return self


def split_lines(text: str) -> list[str]:
    """The lines of `text`, split on '\n' only (the way Lark and our spans count lines: a form
    feed, a lone '\r' or '\u2028' does not start a new line). A trailing '\r' (CRLF files) is
    dropped; a final '\n' does not start an extra empty line."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def source_line_at(path: str | Path, line: int, text: str | None = None) -> str:
    """The text of 1-based `line` of a file (or of `text`), '' if unavailable. Lines are
    counted by '\n' only, like every position in a Span."""
    try:
        if text is None:
            from .sandbox import regular_file_text     # never a link, a pipe or a huge file
            text = regular_file_text(path)
            if text is None:
                return ""
        lines = split_lines(text)
        return lines[line - 1] if 0 < line <= len(lines) else ""
    except (OSError, ValueError):
        return ""


class LineIndex:
    """Character offset <-> 1-based (line, column) in a text, lines counted by '\n' only."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def position(self, offset: int) -> tuple[int, int]:
        import bisect
        offset = max(0, min(offset, len(self.text)))
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def offset(self, line: int, column: int) -> int:
        line = max(1, min(line, len(self.starts)))
        return self.starts[line - 1] + max(column, 1) - 1


def undecodable_position(data: bytes, err: UnicodeDecodeError) -> tuple[int, int]:
    """1-based (line, column) of the first byte that is not UTF-8 (column in characters)."""
    start = max(0, min(getattr(err, "start", 0) or 0, len(data)))
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", errors="replace")) + 1
    return line, column


def did_you_mean(name: str, candidates) -> str:
    """A 'did you mean …?' hint for an unknown name, or '' when nothing is close."""
    import difflib
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    if not close:
        return ""
    return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def read_source(path: str | Path, bad_utf8_code: str, root: Path | None = None) -> str:
    """Read a content file as UTF-8 text. An unreadable path is RS003 (at 1:1 of that file), a
    link leading out of `root` or a file that is not a regular one RS004, a file over the size
    limit RS005 (rulespec.sandbox); a file that is not UTF-8 is `bad_utf8_code` at the line and
    column of the first bad byte."""
    from .sandbox import read_bytes
    path = Path(path)
    data = read_bytes(path, root=root)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = undecodable_position(data, e)
        bad = data[e.start:e.end]
        shown = data.decode("utf-8", errors="replace")
        raise RulespecError(Diagnostic(
            bad_utf8_code, f"file is not valid UTF-8 text ({e.reason}: byte {bad.hex(' ') or '?'})",
            Span(str(path), line, column, line, column + 1), "save the file as UTF-8",
            source_line=source_line_at(path, line, shown))) from None
