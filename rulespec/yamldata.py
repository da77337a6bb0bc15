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

from .errors import Diagnostic, RulespecError, Span, source_line_at

Path_ = tuple


@dataclass
class YamlDoc:
    file: str
    data: object
    spans: dict = field(default_factory=dict)   # path tuple -> Span
    text: str = ""

    def span(self, path) -> Span:
        """Span of the value at `path`, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path not in self.spans and path:
            path = path[:-1]
        return self.spans.get(path, Span(self.file, 1, 1))

    def source_line(self, span: Span) -> str:
        return source_line_at(self.file, span.line, self.text)


class _Loader(yaml.SafeLoader):
    pass


def _line(loader, i: int) -> str:
    lines = str(loader.buffer if hasattr(loader, "buffer") else "").splitlines()
    return lines[i] if 0 <= i < len(lines) else ""


def _construct(loader: yaml.SafeLoader, node, path, spans, file):
    mark = node.start_mark
    spans[path] = Span(file, mark.line + 1, mark.column + 1, node.end_mark.line + 1, node.end_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, list):
                key = tuple(key)
            if key in out:
                km = key_node.start_mark
                raise RulespecError(Diagnostic(
                    "RS002", f"duplicate key '{key}' in YAML mapping",
                    Span(file, km.line + 1, km.column + 1, km.line + 1, km.column + 1 + len(str(key))),
                    "each key may appear once in a mapping; merge or rename the duplicates",
                    source_line=_line(loader, km.line)))
            out[key] = _construct(loader, value_node, path + (key,), spans, file)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(loader, item, path + (i,), spans, file) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def load_yaml_text(text: str, file: str) -> YamlDoc:
    """Parse YAML text into a YamlDoc; syntax errors become RulespecError (code RS001)."""
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            spans: dict = {}
            data = None if node is None else _construct(loader, node, (), spans, file)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        span = Span(file, line, col)
        raise RulespecError(Diagnostic(
            "RS001", f"YAML syntax error: {e.problem or e.context}", span,
            "check indentation, colons and quotes around this point",
            source_line=source_line_at(file, line, text))) from None
    except yaml.YAMLError as e:
        raise RulespecError(Diagnostic("RS001", f"YAML error: {e}", Span(file, 1, 1),
                                       "check the file is valid YAML")) from None
    return YamlDoc(file, data, spans, text)


def load_yaml_file(path: str | Path) -> YamlDoc:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise RulespecError(Diagnostic("RS001", f"file is not valid UTF-8 text ({e.reason})",
                                       Span(str(path), 1, 1), "save the file as UTF-8")) from None
    except OSError as e:
        raise RulespecError(Diagnostic("RS003", f"cannot read file: {e.strerror}", Span(str(path)),
                                       "check the path exists and is readable")) from None
    return load_yaml_text(text, str(path))
