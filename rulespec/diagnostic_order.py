"""Diagnostics ordered by cause: load and syntax errors first, what follows from them grouped
under them.

A file of a pack that fails to load (a YAML syntax error, a `.rules` parse error, a data file
refused by its schema, a file that cannot be read) is missing from every later check, which
then reports what it would have declared as absent: one stray space in `setup.yaml` gives an
RS105 "no colour named 'blue'" for every card of that colour. Such findings are consequences,
not causes: a finding that reports a name as absent (`Diagnostic.missing`) while a file that
failed to load mentions that name is linked to that file's first error (`caused_by`). A file
whose text cannot be read at all could have declared anything: every finding reporting an
absence follows from it.

The text and github formats print root causes only, each with a count of the findings it
caused (`--all` prints them too); json keeps every finding, with its `caused_by`.
"""
from __future__ import annotations

import os

import re

from .errors import Diagnostic

# codes of a file that could not be loaded at all: read, decoded, parsed, or its schema checked
LOAD_CODES = frozenset({"RS001", "RS002", "RS003", "RS004", "RS005", "RS010", "RS011",
                        "RS020", "RS021", "RS022", "RS100"})

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _position(d: Diagnostic):
    return (d.span.file, d.span.line, d.span.column)


def _rank(d: Diagnostic) -> tuple:
    """Load errors, then other errors, then warnings; each by file and position."""
    tier = 0 if d.severity == "error" and d.code in LOAD_CODES else 1 if d.severity == "error" else 2
    return (tier,) + _position(d)


def loaded_files(pack) -> set:
    """The files the loaded pack holds: its data files (a patched one spans several), its parsed
    `.rules` modules and its manifest."""
    if pack is None:
        return set()
    files = {str(pack.manifest.file)}
    for doc in pack.data.values():
        files.add(str(doc.file))
        files.update(str(f) for f in doc.sources)
    files.update(str(m.file) for m in pack.modules)
    return files


class _FailedFile:
    """A file that did not load: its first error, and the words its text holds (None: the text
    could not be read, so it could have declared anything)."""

    def __init__(self, root: Diagnostic):
        from .sandbox import regular_file_text          # never a link, a pipe or a huge file
        self.root = root
        text = regular_file_text(root.span.file) if root.code not in ("RS003", "RS004") else None
        self.text = text
        self.words = set(_WORD.findall(text)) if text is not None else None

    def mentions(self, name: str) -> bool:
        if self.words is None:
            return True
        name = str(name)
        return name in self.words if _WORD.fullmatch(name) else name in self.text


def link_causes(diagnostics: list, pack) -> None:
    """Set `caused_by` on each finding that follows from a file that failed to load: it reports
    as absent a name that file mentions (see the module docstring). Load errors are causes,
    never consequences."""
    loaded = loaded_files(pack)
    failed: dict = {}
    for d in sorted((d for d in diagnostics if d.code in LOAD_CODES and d.severity == "error"), key=_position):
        f = d.span.file
        if f and f not in loaded and f not in failed and f != "<command line>":
            failed[f] = _FailedFile(d)
    if not failed:
        return
    for d in diagnostics:
        if d.code in LOAD_CODES or not d.missing or d.caused_by is not None:
            continue
        for ff in failed.values():
            if any(ff.mentions(n) for n in d.missing):
                d.caused_by = ff.root
                break


def order(diagnostics: list, pack=None) -> list:
    """The findings in the order they are printed: root causes first (load errors, other errors,
    warnings; each by file and position), each followed by the findings it caused."""
    link_causes(diagnostics, pack)
    caused = consequences_of(diagnostics)
    out = []
    for root in sorted((d for d in diagnostics if d.caused_by is None), key=_rank):
        out.append(root)
        out.extend(sorted(caused.get(id(root), []), key=_rank))
    return out


def consequences_of(diagnostics: list) -> dict:
    """id(root) -> the findings it caused."""
    out: dict = {}
    for d in diagnostics:
        if d.caused_by is not None:
            out.setdefault(id(d.caused_by), []).append(d)
    return out


def _count_words(found: list) -> str:
    errors = sum(d.severity == "error" for d in found)
    warnings = len(found) - errors
    parts = []
    if errors:
        parts.append(f"{errors} more error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} {'more ' if not errors else ''}warning{'s' if warnings != 1 else ''}")
    return " and ".join(parts)


def render_text(diagnostics: list, show_all: bool = False) -> list:
    """The text blocks of the findings (each one printed followed by a blank line): a root cause
    with a line counting what it caused; with show_all, those findings too, each naming its cause."""
    below = consequences_of(diagnostics)
    out = []
    for d in diagnostics:
        if d.caused_by is not None:
            if show_all:
                out.append(d.render() + f"\n    caused by: the {d.caused_by.code} at {d.caused_by.span}")
            continue
        text = d.render()
        found = below.get(id(d))
        if found and not show_all:
            text += f"\n    ... and {_count_words(found)} caused by this (run with --all to see them)"
        out.append(text)
    return out


def github_lines(diagnostics: list, strict: bool, show_all: bool = False) -> list:
    """GitHub annotations of the root causes (with show_all, of every finding); a root cause
    says how many findings it caused."""
    below = consequences_of(diagnostics)
    out = []
    for d in diagnostics:
        if d.caused_by is not None and not show_all:
            continue
        found = below.get(id(d))
        note = f" (and {_count_words(found)} caused by this: see them with --all)" if found and not show_all else ""
        out.append(github_annotation(d, strict, note))
    return out


def github_annotation(d: Diagnostic, strict: bool, note: str = "") -> str:
    """A finding as a GitHub Actions workflow command: it shows on the file's line in the PR."""
    level = "error" if d.severity == "error" or strict else "warning"
    msg = f"{d.code} {d.message}" + (f" (hint: {d.hint})" if d.hint else "") + note
    return github_command(d.span.file, d.span.line, d.span.column, msg, level)


def github_command(file: str, line: int, column: int, message: str, level: str = "error") -> str:
    """A GitHub Actions workflow command (`::error file=..,line=..,col=..::message`). The file is
    named relative to the working folder (the checkout) when it is inside it, as GitHub matches
    annotations to the repository's paths; a finding without a position names the file only."""
    msg = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    where = "file=" + relative_path(file).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A") \
        .replace(":", "%3A").replace(",", "%2C")
    if line:
        where += f",line={line}" + (f",col={column}" if column else "")
    return f"::{level} {where}::{msg}"


def relative_path(file: str) -> str:
    """`file` relative to the working folder when it is inside it (shorter, and what CI matches)."""
    try:
        if os.path.isabs(file):
            rel = os.path.relpath(file)
            if not rel.startswith(".."):
                return rel
    except (ValueError, OSError):
        pass
    return file
