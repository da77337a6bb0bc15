"""Prompt templates: `"Ships to spend ({florins_per_ship} florins each)"`.

A prompt, option label, constraint message or playout hint that repeats a number of the rules names the formula instead, so a
house rule that changes the formula needs no prompt edit. `{name}` is the value of the formula
`name`; its parameters are taken from the variables of the same name where the prompt is
written (the formula's defaults otherwise). `{{` and `}}` write a brace.

The text is split once, when the pack is checked and compiled; a formula whose value is a plain
number is filled in then, so only the other formulas run in play.
"""
from __future__ import annotations

import re

_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")


class TemplateError(ValueError):
    """A malformed template: `offset` is where, in the text, the problem starts."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def has_fields(text: str) -> bool:
    return "{" in text or "}" in text


def split(text: str) -> list:
    """The parts of a template, in order: ("text", s) or ("name", formula_id, offset)."""
    parts: list = []
    buf: list = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "{}" and text.startswith(ch * 2, i):
            buf.append(ch)
            i += 2
            continue
        if ch == "}":
            raise TemplateError("a '}' without its '{'", i)
        if ch == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise TemplateError("a '{' without its '}'", i)
            name = text[i + 1:end].strip()
            if not _NAME.match(name):
                raise TemplateError(f"'{{{text[i + 1:end]}}}' is not a formula name", i)
            if buf:
                parts.append(("text", "".join(buf)))
                buf = []
            parts.append(("name", name, i))
            i = end + 1
            continue
        buf.append(ch)
        i += 1
    if buf:
        parts.append(("text", "".join(buf)))
    return parts


def show_value(v) -> str:
    """A formula's value as a prompt writes it: 2, not 2.0; true/false; a cost as its symbols."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if v is None:
        return "none"
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return " | ".join(" + ".join(f"{k} {s}" for s, k in sorted(d.items())) or "nothing" for d in v)
    return str(v)


def literal_values(pack) -> dict:
    """The formulas of a pack whose value is a plain number or text, without parameters, as
    prompts show them: a template naming only these is filled in once, when the pack is compiled."""
    from . import ast as A
    out = {}
    for d in pack.of_kind("formula"):
        fv = d.fields.get("value")
        v = fv.value if fv is not None else None
        if d.params:
            continue
        if isinstance(v, A.Neg) and isinstance(v.operand, A.Num):
            out[str(d.id)] = show_value(-v.operand.value)
        elif isinstance(v, (A.Num, A.Str)):
            out[str(d.id)] = show_value(v.value)
    return out


def render_static(text: str, value_of) -> str:
    """The template with the formulas whose value needs no game state filled in (value_of(name)
    gives the text or None); it stops before the first other field. For static checks that
    compare the start of prompts (playout hints)."""
    try:
        parts = split(text)
    except TemplateError:
        return text
    out = []
    for p in parts:
        if p[0] == "text":
            out.append(p[1])
            continue
        v = value_of(p[1])
        if v is None:
            break
        out.append(v)
    return "".join(out)
