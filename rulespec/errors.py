"""One error type for every content problem, so no Python traceback ever reaches a user.

A `Diagnostic` is one finding (error or warning) with a stable code, a position and a hint;
`RulespecError` carries one or more of them. Positions are 1-based lines and columns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Span:
    """Where something was written: file, 1-based line/column, optional end."""
    file: str
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file


UNKNOWN_SPAN = Span("<unknown>")


@dataclass
class Diagnostic:
    code: str          # stable code, documented in docs/validator.md (e.g. RS101)
    message: str       # what is wrong, in game terms
    span: Span = UNKNOWN_SPAN
    hint: str = ""     # what was expected / how to fix it
    severity: str = "error"   # "error" | "warning"
    source_line: str = ""     # the offending source line, for the caret display

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
        }


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


def source_line_at(path: str | Path, line: int, text: str | None = None) -> str:
    """The text of 1-based `line` of a file (or of `text`), '' if unavailable."""
    try:
        if text is None:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""
    except OSError:
        return ""


def did_you_mean(name: str, candidates) -> str:
    """A 'did you mean …?' hint for an unknown name, or '' when nothing is close."""
    import difflib
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    if not close:
        return ""
    return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
