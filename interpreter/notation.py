"""Which names a move text mentions, and whether the pack has them.

A test that says "this move is refused" proves nothing when the move names something the pack
does not have: a misspelt id is refused too. The scenario runner therefore checks every name in
an `illegal:` or `not_legal:` move against what the pack declares. The pack's vocabulary is
everything it writes down: declaration ids, every string of its YAML data (cities, colours...),
every string and name of its rules (option labels, `left`/`right`...). Names built from these
(`ambassador#2`, `red.room3`, `alliance.hre`, `room.card`, costs `1 crown + 2 ship`) are
recognised by their shape (docs/scenarios.md, move notation), each of their parts a name of the
pack: a record of a list (`OWNER.RECORDn`, interpreter/world_store.py) or a payment source's
label (`SCOPE.NAME`).
"""
from __future__ import annotations

import dataclasses
import re

from rulespec.ast import Option

_INSTANCE = re.compile(r"^(?P<base>[A-Za-z_][\w]*)#\d+$")
_RECORD = re.compile(r"^(?P<base>[A-Za-z_]\w*)\.(?P<rec>[A-Za-z_]+?)\d+$")
_DOTTED = re.compile(r"^(?P<scope>[A-Za-z_]\w*)\.(?P<name>[A-Za-z_]\w*)$")
_NUMBER = re.compile(r"^-?\d+$")
_COST_PART = re.compile(r"^(?P<n>\d+) (?P<sym>[A-Za-z_]\w*)$")


def _walk(value, visit):
    """Call visit(x) on every value inside plain data (keys and values) or a syntax tree
    (dataclass nodes, their source positions left out)."""
    visit(value)
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(k, visit)
            _walk(v, visit)
    elif isinstance(value, (list, tuple, set)):
        for v in value:
            _walk(v, visit)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name != "span":
                _walk(getattr(value, f.name), visit)


def _collect(names: set):
    """A visitor adding every string, and every `either` option's label as ("option", label)."""
    def visit(x):
        if isinstance(x, str):
            names.add(x)
        elif isinstance(x, Option):
            names.add(("option", x.label))
    return visit


def pack_names(pack) -> set:
    """Every name the pack writes down (see the module docstring); option labels are kept
    apart, as ("option", label), since any text of the rules could pass for a label."""
    names: set = set()
    for (kind, id_), decl in pack.decls.items():
        names.add(str(id_))
        for (_, key) in decl.blocks:
            names.add(str(key))
    for doc in pack.data.values():
        _walk(doc.data, _collect(names))
    for module in pack.modules:
        _walk(module, _collect(names))
    return names


def unknown_names(move: str, names: set) -> list:
    """The names in `move` that the pack does not have (empty: every name is known)."""
    words = " ".join(str(move).split())
    verb, _, rest = words.partition(" ")
    if verb in ("done", "yes", "no") and not rest:
        return []
    if verb == "option":
        return [] if ("option", rest) in names else [rest]
    if verb in ("run", "tap"):
        return [w for w in rest.split(" ") if not _known(w, names)]
    if verb == "choose":
        if rest in names or _known(rest, names):
            return []
        parts = [_COST_PART.match(p.strip()) for p in rest.split("+")]
        if all(parts):                  # a cost, as prompts write it: 1 crown + 2 ship
            return [m["sym"] for m in parts if m["sym"] not in names]
        return [rest]
    return [verb]


def _known(word: str, names: set) -> bool:
    if word in names or _NUMBER.match(word):
        return True
    m = _INSTANCE.match(word)
    if m:
        return m["base"] in names
    m = _RECORD.match(word)
    if m and m["base"] in names and m["rec"] in names:
        return True
    m = _DOTTED.match(word)
    if m:                               # room.card, alliance.hre: both parts are the pack's
        return m["scope"] in names and m["name"] in names
    return False
