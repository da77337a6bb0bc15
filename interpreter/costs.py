"""Costs as plain data: a list of alternatives, each a {symbol: count} mapping.

`2 florin + (crown | cross)` -> [{"florin": 2, "crown": 1}, {"florin": 2, "cross": 1}].
Plain lists and dicts, so a cost can sit in a suspended frame's locals and round-trip JSON.
"""
from __future__ import annotations

NOTHING = [{}]


def qty(symbol: str, n: int) -> list:
    return [{symbol: n}] if n > 0 else [{}]


def as_cost(v) -> list:
    """Coerce a value to a cost: a symbol id means 1 of it; 0/None means nothing."""
    if isinstance(v, list) and (not v or isinstance(v[0], dict)):
        return v
    if isinstance(v, str):
        return [{v: 1}]
    if v in (None, 0):
        return [{}]
    raise TypeError(f"not a cost: {v!r}")


def combine(a: list, b: list) -> list:
    out = []
    for x in a:
        for y in b:
            d = dict(x)
            for k, n in y.items():
                d[k] = d.get(k, 0) + n
            if d not in out:
                out.append(d)
    return out


def alternative(a: list, b: list) -> list:
    out = list(a)
    for y in b:
        if y not in out:
            out.append(y)
    return out


def times(a: list, n: int) -> list:
    out = [{}]
    for _ in range(max(0, n)):
        out = combine(out, a)
    return out


def total(alt: dict) -> int:
    return sum(alt.values())


def describe(cost: list) -> str:
    def one(d):
        return " + ".join(f"{n} {s}" for s, n in sorted(d.items())) or "nothing"
    return " | ".join(one(d) for d in cost)
