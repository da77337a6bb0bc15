"""YAML data files with positions: every value remembers its file:line:column.

Structured pack data (map, tracks, setup) is YAML. We compose the YAML node tree ourselves
so that schema errors, map checks and overlay provenance can point at the exact line.
`YamlDoc.data` is plain Python (dict/list/str/int/...); `YamlDoc.span(path)` gives the Span of
the value at a JSON-style path such as ("cities", 3, "value").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import limits
from .errors import Diagnostic, LineIndex, RulespecError, Span, read_source, source_line_at

Path_ = tuple


@dataclass
class YamlDoc:
    file: str
    data: object
    spans: dict = field(default_factory=dict)   # path tuple -> Span of the value
    text: str = ""
    key_spans: dict = field(default_factory=dict)   # path tuple -> Span of the mapping key naming it
    scalars: dict = field(default_factory=dict)     # path tuple -> (file, start, end, style) of a string
    sources: dict = field(default_factory=dict)     # file -> text (a patched doc spans several files)

    def __post_init__(self):
        if self.text and self.file not in self.sources:
            self.sources = {**self.sources, self.file: self.text}

    def span(self, path) -> Span:
        """Span of the value at `path`, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path not in self.spans and path:
            path = path[:-1]
        return self.spans.get(path, Span(self.file, 1, 1))

    def key_span(self, path) -> Span:
        """Span of the mapping key naming the value at `path` (e.g. a track's id under
        `tracks:`); the value's span when it has no key (a list item, the document)."""
        path = tuple(path)
        return self.key_spans.get(path) or self.span(path)

    def source_line(self, span: Span) -> str:
        text = self.sources.get(span.file)
        if text is None and span.file == self.file:
            text = self.text
        return source_line_at(span.file, span.line, text)

    def text_positions(self, path, value: str):
        """For the string value at `path`: a function (line, column, is_end) -> (line, column)
        mapping a position in the string (1-based, lines counted by '\\n') to where that
        character is written in the YAML file. Handles plain, quoted, literal (`|`) and folded
        (`>`) scalars; None when the value is not a string scalar of this document."""
        info = self.scalars.get(tuple(path))
        text = self.sources.get(info[0]) if info else None
        if info is None or text is None or not isinstance(value, str):
            return None
        _file, start, end, style = info
        offsets = _align(value, text, start, end, style)
        src = LineIndex(text)
        val = LineIndex(value)

        def where(line, column, is_end=False):
            off = val.offset(line, column)
            if not offsets:
                return src.position(start)
            if is_end and off > 0:
                # an end position is exclusive: one past the character before it
                i = min(off - 1, len(offsets) - 1)
                return src.position(offsets[i] + 1)
            return src.position(offsets[min(off, len(offsets) - 1)] + (1 if off >= len(offsets) else 0))
        return where


_ESCAPE_LENGTH = {"x": 4, "u": 6, "U": 10}


def _align(value: str, text: str, start: int, end: int, style) -> list:
    """Source offset of every character of a scalar's value (same length as `value`).

    The scalar is written between text[start:end]. Literal characters are matched in order;
    the YAML syntax around them (quotes, escapes, indentation, line folding) is skipped. A run
    of whitespace in the value (a folded line break, a kept indentation) is matched with the
    run of whitespace in the source, aligned to its end so the next word lands right."""
    j, stop = start, min(end, len(text))
    if style in ("|", ">"):
        nl = text.find("\n", start, stop)       # the content starts after the indicator line
        j = stop if nl < 0 else nl + 1
    elif style in ('"', "'"):
        j = start + 1
    out = []
    i, n = 0, len(value)
    while i < n:
        if j >= stop:
            last = out[-1] + 1 if out else start
            out.extend([min(last, max(stop - 1, start))] * (n - i))
            break
        v, c = value[i], text[j]
        if style == '"' and c == "\\" and j + 1 < stop:
            nxt = text[j + 1]
            if nxt in "\r\n":             # an escaped line break: joins the lines, no character
                j += 2
                while j < stop and text[j] in " \t\r\n":
                    j += 1
                continue
            out.append(j)                    # one escape (\n, \x41, \u00e9 ...) is one character
            i, j = i + 1, j + _ESCAPE_LENGTH.get(nxt, 2)
            continue
        if style == "'" and c == "'" and j + 1 < stop and text[j + 1] == "'" and v == "'":
            out.append(j)                    # '' is one quote
            i, j = i + 1, j + 2
            continue
        if v == c and not v.isspace():
            out.append(j)
            i, j = i + 1, j + 1
        elif v.isspace() and c.isspace():
            i2 = i
            while i2 < n and value[i2].isspace():
                i2 += 1
            j2 = j
            while j2 < stop and text[j2].isspace():
                j2 += 1
            out.extend(_align_space(value[i:i2], text[j:j2], j))
            i, j = i2, j2
        elif c.isspace() or c in "\\":
            j += 1                       # indentation, an escape's backslash
        elif v.isspace():
            out.append(j)                # a line break or tab from an escape or folding
            i += 1
        else:
            j += 1                       # anything else the value does not have
    return out


def _align_space(vrun: str, srun: str, base: int) -> list:
    """Offsets for a run of whitespace of the value written as the whitespace `srun` at `base`:
    line by line when both have the same line breaks (a literal block: indentation stripped),
    else aligned to the end of the source run (a folded line break)."""
    if vrun == srun:
        return list(range(base, base + len(srun)))
    if vrun.count("\n") == srun.count("\n"):
        out, s0 = [], 0
        vparts, sparts = vrun.split("\n"), srun.split("\n")
        for n, (vp, sp) in enumerate(zip(vparts, sparts)):
            if n:
                out.append(base + s0 - 1)            # the line break itself
            k = len(vp)
            out.extend(max(base + s0, base + s0 + len(sp) - (k - t)) for t in range(k))
            s0 += len(sp) + 1
        return out
    k = len(vrun)
    return [max(base, base + len(srun) - (k - t)) for t in range(k)]


class _TooMuch(Exception):
    """A YAML limit was passed at `mark` (rulespec.limits): too many values, or too deep."""

    def __init__(self, message: str, hint: str, mark=None):
        super().__init__(message)
        self.message, self.hint, self.mark = message, hint, mark


_NODES_HINT = ("a YAML file holds at most {:,} values, aliases (`*name`) counted each time they "
               "are used: write the data out, or split the file")


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, with the limits of rulespec.limits while composing: at most
    MAX_YAML_NODES nodes, nested at most MAX_YAML_DEPTH deep, and merge keys (`<<: *a`) that
    cannot multiply a mapping beyond MAX_YAML_NODES entries."""

    def __init__(self, stream):
        super().__init__(stream)
        self.composed = 0
        self.depth = 0

    def compose_node(self, parent, index):
        self.composed += 1
        if self.composed > limits.MAX_YAML_NODES:
            raise _TooMuch(f"this YAML file holds more than {limits.MAX_YAML_NODES:,} values",
                           _NODES_HINT.format(limits.MAX_YAML_NODES), self.peek_event().start_mark)
        self.depth += 1
        try:
            if self.depth > limits.MAX_YAML_DEPTH:
                raise _TooMuch(f"YAML nested more than {limits.MAX_YAML_DEPTH} levels deep",
                               "flatten the data", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def flatten_mapping(self, node):
        """SafeConstructor.flatten_mapping (merge keys), bounded: each merge checks the size of
        the mapping it would build before building it."""
        merge = []
        index = 0
        while index < len(node.value):
            key_node, value_node = node.value[index]
            if key_node.tag == "tag:yaml.org,2002:merge":
                del node.value[index]
                if isinstance(value_node, yaml.MappingNode):
                    self.flatten_mapping(value_node)
                    parts = [value_node.value]
                elif isinstance(value_node, yaml.SequenceNode):
                    parts = []
                    for subnode in value_node.value:
                        if not isinstance(subnode, yaml.MappingNode):
                            raise yaml.constructor.ConstructorError(
                                "while constructing a mapping", node.start_mark,
                                f"expected a mapping for merging, but found {subnode.id}", subnode.start_mark)
                        self.flatten_mapping(subnode)
                        parts.append(subnode.value)
                    parts.reverse()
                else:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"expected a mapping or list of mappings for merging, but found {value_node.id}",
                        value_node.start_mark)
                for part in parts:
                    if len(merge) + len(part) + len(node.value) > limits.MAX_YAML_NODES:
                        raise _TooMuch(f"merge keys (`<<:`) make this mapping larger than {limits.MAX_YAML_NODES:,} "
                                       "entries", _NODES_HINT.format(limits.MAX_YAML_NODES), node.start_mark)
                    merge.extend(part)
            elif key_node.tag == "tag:yaml.org,2002:value":
                key_node.tag = "tag:yaml.org,2002:str"
                index += 1
            else:
                index += 1
        if merge:
            node.value = merge + node.value


class _Positions:
    """Mark -> Span with lines counted by '\\n' only (PyYAML also breaks lines on '\\r',
    '\\x85' and '\\u2028'; Lark and our source lines do not)."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.index = LineIndex(text)

    def at(self, mark) -> tuple[int, int]:
        if mark is None:
            return 1, 1
        idx = getattr(mark, "index", None)
        if isinstance(idx, int):
            return self.index.position(idx)
        return mark.line + 1, mark.column + 1

    def span(self, start_mark, end_mark=None) -> Span:
        line, col = self.at(start_mark)
        if end_mark is None:
            return Span(self.file, line, col)
        end_line, end_col = self.at(end_mark)
        return Span(self.file, line, col, end_line, end_col)


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _scalar(loader, node, pos: _Positions, file: str, text: str):
    """construct_object for a scalar (or a key), within the limits: an integer of more than
    MAX_YAML_INT_CHARS characters is RS005 (Python refuses to even read one of 4,300 digits),
    a value PyYAML cannot build (`2001-02-30` read as a date) is RS001 at its position."""
    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" \
            and len(node.value) > limits.MAX_YAML_INT_CHARS:
        span = pos.span(node.start_mark, node.end_mark)
        raise RulespecError(Diagnostic(
            "RS005", f"a number of {len(node.value):,} characters (at most {limits.MAX_YAML_INT_CHARS})", span,
            "write a smaller number (or quote it to make it a text)",
            source_line=source_line_at(file, span.line, text)))
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, TypeError, OverflowError) as e:
        span = pos.span(node.start_mark, node.end_mark)
        raise RulespecError(Diagnostic("RS001", f"cannot read this YAML value: {e}", span,
                                       "quote it to make it a text", source_line=source_line_at(file, span.line, text))) from None


def _construct(loader: yaml.SafeLoader, node, path, doc: YamlDoc, pos: _Positions, text: str, depth=0, count=None):
    file = doc.file
    span = pos.span(node.start_mark, node.end_mark)
    doc.spans[path] = span
    if count is None:
        count = [0]
    count[0] += 1
    if count[0] > limits.MAX_YAML_NODES:
        raise RulespecError(Diagnostic("RS005", f"this YAML file expands to more than {limits.MAX_YAML_NODES:,} values "
                                                "(aliases counted each time they are used)", span,
                                       _NODES_HINT.format(limits.MAX_YAML_NODES),
                                       source_line=source_line_at(file, span.line, text)))
    if depth > limits.MAX_YAML_DEPTH:
        raise RulespecError(Diagnostic("RS001", "YAML nested too deeply", span,
                                       "flatten the data; a recursive alias (`&a [*a]`) is not allowed",
                                       source_line=source_line_at(file, span.line, text)))
    if isinstance(node, yaml.MappingNode):
        out = {}
        loader.flatten_mapping(node)            # `<<: *defaults` merge keys
        for key_node, value_node in node.value:
            count[0] += 1
            key = _scalar(loader, key_node, pos, file, text)
            if isinstance(key, list):
                key = tuple(key)
            kspan = pos.span(key_node.start_mark, key_node.end_mark)
            if not _hashable(key):
                raise RulespecError(Diagnostic(
                    "RS001", "a YAML mapping key must be a plain value, not a mapping", kspan,
                    "use a name or a number as the key", source_line=source_line_at(file, kspan.line, text)))
            if key in out:
                raise RulespecError(Diagnostic(
                    "RS002", f"duplicate key '{key}' in YAML mapping",
                    Span(file, kspan.line, kspan.column, kspan.line, kspan.column + len(str(key))),
                    "each key may appear once in a mapping; merge or rename the duplicates",
                    source_line=source_line_at(file, kspan.line, text)))
            doc.key_spans[path + (key,)] = kspan
            out[key] = _construct(loader, value_node, path + (key,), doc, pos, text, depth + 1, count)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(loader, item, path + (i,), doc, pos, text, depth + 1, count)
                for i, item in enumerate(node.value)]
    value = _scalar(loader, node, pos, file, text)
    if isinstance(value, str) and isinstance(node, yaml.ScalarNode):
        doc.scalars[path] = (file, node.start_mark.index, node.end_mark.index, node.style)
    return value


def load_yaml_text(text: str, file: str) -> YamlDoc:
    """Parse YAML text into a YamlDoc; syntax errors become RulespecError (code RS001)."""
    pos = _Positions(file, text)
    doc = YamlDoc(file, None, {}, text)
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            doc.data = None if node is None else _construct(loader, node, (), doc, pos, text)
        finally:
            loader.dispose()
    except _TooMuch as e:
        span = pos.span(e.mark)
        raise RulespecError(Diagnostic("RS005", e.message, span, e.hint,
                                       source_line=source_line_at(file, span.line, text))) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        span = pos.span(mark)
        raise RulespecError(Diagnostic(
            "RS001", f"YAML syntax error: {e.problem or e.context}", span,
            "check indentation, colons and quotes around this point",
            source_line=source_line_at(file, span.line, text))) from None
    except yaml.reader.ReaderError as e:
        line, col = pos.index.position(e.position) if isinstance(e.position, int) else (1, 1)
        span = Span(file, line, col)
        what = f"character {e.character!r}" if isinstance(e.character, str) else "byte"
        raise RulespecError(Diagnostic(
            "RS001", f"YAML cannot contain the {what} ({e.reason})", span,
            "remove the control character, or write it as an escape inside a double-quoted string",
            source_line=source_line_at(file, line, text))) from None
    except yaml.YAMLError as e:
        raise RulespecError(Diagnostic("RS001", f"YAML error: {e}", Span(file, 1, 1),
                                       "check the file is valid YAML")) from None
    except RecursionError:
        raise RulespecError(Diagnostic("RS001", "YAML nested too deeply", Span(file, 1, 1),
                                       "flatten the data")) from None
    return doc


def load_yaml_file(path: str | Path, root: Path | None = None) -> YamlDoc:
    """A YAML file read as untrusted input (rulespec.sandbox): a regular file within the size
    limit, inside `root` when given."""
    path = Path(path)
    return load_yaml_text(read_source(path, "RS001", root), str(path))
