"""Costs as plain data: a list of alternatives, each a {symbol: count} mapping.

`2 florin + (crown | cross)` -> [{"florin": 2, "crown": 1}, {"florin": 2, "cross": 1}].
Plain lists and dicts, so a cost can sit in a suspended frame's locals and round-trip JSON.
"""
from __future__ import annotations

from rulespec import limits
from rulespec.errors import RuleFault

NOTHING = [{}]


def qty(symbol: str, n: int) -> list:
    return [{symbol: n}] if n > 0 else [{}]


def as_cost(v) -> list:
    """Coerce a value to a cost: a symbol id means 1 of it; 0/None means nothing."""
    if v.__class__ is list and (not v or v[0].__class__ is dict):      # a cost already: the common case
        return v
    if isinstance(v, list) and (not v or isinstance(v[0], dict)):
        return v
    if isinstance(v, str):
        return [{v: 1}]
    if v in (None, 0):
        return [{}]
    raise TypeError(f"not a cost: {v!r}")


def merged(v) -> dict:
    """Symbols printed on a bottom, as one dict: {'crown': 1, 'cross': 1} for `crown | cross`
    (a bottom that shows both; one type is used at a time)."""
    out = {}
    for alt in as_cost(v):
        for s, n in alt.items():
            out[s] = max(out.get(s, 0), n)
    return out


def _too_many(n: int) -> RuleFault:
    return RuleFault("RS305", f"a cost with more than {limits.MAX_COST_ALTERNATIVES:,} alternatives ({n:,} at least)",
                     hint="a cost such as `(crown | cross) * 3000` lists every way to pay it: use fewer "
                          "alternatives or a smaller multiple")


def _key(d: dict):
    try:
        return frozenset(d.items())
    except TypeError:            # a value that cannot be hashed: compared as it is
        return repr(sorted(d.items(), key=repr))


def combine(a: list, b: list) -> list:
    """Every alternative of a plus every alternative of b, without repeats, in order."""
    out = []
    if len(a) * len(b) <= 16:            # the common case: a few alternatives
        for x in a:
            for y in b:
                d = dict(x)
                for k, n in y.items():
                    d[k] = d.get(k, 0) + n
                if d not in out:
                    out.append(d)
        return out
    seen = set()
    for x in a:
        for y in b:
            d = dict(x)
            for k, n in y.items():
                d[k] = d.get(k, 0) + n
            key = _key(d)
            if key not in seen:
                seen.add(key)
                out.append(d)
                if len(out) > limits.MAX_COST_ALTERNATIVES:
                    raise _too_many(len(out))
    return out


def alternative(a: list, b: list) -> list:
    out = list(a)
    for y in b:
        if y not in out:
            out.append(y)
    if len(out) > limits.MAX_COST_ALTERNATIVES:
        raise _too_many(len(out))
    return out


def times(a: list, n: int) -> list:
    """a + a + ... (n times). One alternative: its counts times n, at once. More: the number of
    alternatives grows with every addition, so MAX_COST_ALTERNATIVES bounds the loop."""
    n = max(0, n)
    if len(a) == 1:
        return [{k: v * n for k, v in a[0].items()}] if n else [{}]
    out = [{}]
    for _ in range(n):
        out = combine(out, a)
    return out


def total(alt: dict) -> int:
    return sum(alt.values())


def describe(cost: list) -> str:
    def one(d):
        return " + ".join(f"{n} {s}" for s, n in sorted(d.items())) or "nothing"
    return " | ".join(one(d) for d in cost)
