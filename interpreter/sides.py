"""Sides that do not play (issue 16, stage 14).

A pack may declare `side ID { plays: false }`: a faction. It has a record in `state["p"]`
like a player's (built from its `colours:` entry in setup.yaml: starting cities and pieces),
so everything that counts or owns "by side" (a city's controller, pieces in a city, cards and
tiles, `owner_of`) takes it as it takes a player. It is never seated: it is not in `players`
nor `turn_order`, and constraints with `scope: player` do not check it (`scope: side` does).
`sides` lists the players, in seat order, then the factions, in declaration order.
"""
from __future__ import annotations

from rulespec.errors import RulespecError


def factions(rs, colours) -> list:
    """The factions of the pack for a game seated with `colours` (RS123 when a seat is given
    to one of them)."""
    out = rs.factions
    seated = [c for c in colours if c in out]
    if seated:
        d = rs.sides[seated[0]]["decl"]
        raise RulespecError(f"'{seated[0]}' is a side that does not play (side {seated[0]} at {d.span}): "
                            f"it cannot take a seat", code="RS123")
    return out


def problem(state, rs) -> str:
    """What is wrong with the sides of `state` for ruleset `rs` ('' when nothing is)."""
    p, players = state["p"], state["players"]
    for f in rs.factions:
        if f in players:
            return f"side {f} does not play, but 'players' seats it"
        if type(p.get(f)) is not dict:
            return f"'p' must hold a record for side {f} (a side that does not play)"
    return ""
