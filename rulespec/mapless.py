"""A map is optional: what a pack without map.yaml cannot ask.

A playable pack (a setup.yaml and a `game`) with no map plays with no cities and no seas (rulespec.board.NoMap). Its rules may still
name `cities` (an empty set), but a graph query (roads, seas, ports, a City's printed value)
has no board to ask: the validator reports each one where it is written, RS105, before any game
is played, instead of a fault in the middle of a game.
"""
from __future__ import annotations

from rulespec import ast as A
from rulespec.errors import Diagnostic, source_line_at

# the functions and globals of the language that read the map's graph (rulespec.vocabulary)
MAP_FUNCTIONS = frozenset({"neighbours", "distance", "reachable", "modified_value"})
MAP_GLOBALS = frozenset()


def _values(decl):
    """Every field value and parameter default of a declaration and of its sub-blocks."""
    for p in decl.params:
        if p.default is not None:
            yield p.default
    for fv in decl.fields.values():
        yield fv.value
    for sub in decl.blocks.values():
        yield from _values(sub)


def _bound(node) -> set:
    """The names a node binds for what it contains (`for c in ...`, `choose s in ...`, `let`),
    which may shadow a global such as `seas`."""
    out = set()
    for n in A.walk(node):
        if isinstance(n, (A.Choose, A.For, A.RandomPick, A.Comprehension)):
            out.add(n.var)
        elif isinstance(n, A.Let):
            out.add(n.name)
        elif isinstance(n, A.Roll):
            out.add(n.as_name)
    return out


def _calls(decl) -> set:
    """The names a declaration calls as functions."""
    return {n.func.id for value in _values(decl) for n in A.walk(value)
            if isinstance(n, A.Call) and isinstance(n.func, A.Name)}


def map_formulas(pack) -> set:
    """The formulas that ask the map's graph, themselves or through another such formula (a
    pack's `road_neighbours(c)` is `neighbours(c, via: road)`): a call of one is a graph query
    where it is written, and their own bodies are not reported (a library may declare them)."""
    formulas = {d.id: _calls(d) for d in pack.decls.values() if d.kind == "formula"}
    out: set = set()
    grew = True
    while grew:
        grew = False
        for name, calls in formulas.items():
            if name not in out and calls & (MAP_FUNCTIONS | out):
                out.add(name)
                grew = True
    return out


def check_map_use(pack) -> list:
    """RS105 at every graph query of a playable pack (a setup and a game) that has no map.yaml.
    A library (no setup or no game) may leave its map to the packs that extend it."""
    if "map" in pack.data or "setup" not in pack.data or not pack.of_kind("game"):
        return []
    out = []
    asks = MAP_FUNCTIONS | map_formulas(pack)
    for decl in pack.decls.values():
        if decl.kind == "formula" and decl.id in asks:
            continue
        params = {p.name for p in decl.params}
        for value in _values(decl):
            local = params | _bound(value)
            for n in A.walk(value):
                if isinstance(n, A.Call) and isinstance(n.func, A.Name) and n.func.id in asks \
                        and n.func.id not in local:
                    name, span = n.func.id, n.func.span
                elif isinstance(n, A.Name) and n.id in MAP_GLOBALS and n.id not in local:
                    name, span = n.id, n.span
                else:
                    continue
                out.append(Diagnostic("RS105", f"this pack has no map: '{name}' asks the map's graph (roads, seas, "
                                               f"ports), and there is none", span,
                                      "add a map.yaml to the pack (docs/language.md, 'A map is optional'), or write "
                                      "this rule without map queries", source_line=source_line_at(span.file, span.line),
                                      missing=(name,)))
    return sorted(out, key=lambda d: (d.span.file, d.span.line, d.span.column))
