"""A small seeded PRNG whose whole state is one integer, so it lives in the JSON game state
and a game replays bit-for-bit (splitmix64)."""
from __future__ import annotations

from rulespec.errors import RuleFault

MASK = (1 << 64) - 1


def next_u64(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def randbelow(st: dict, n: int) -> int:
    """A uniform integer in [0, n) drawn from st['rng'] (updated in place)."""
    if n <= 1:
        return 0
    st["rng"], r = next_u64(st["rng"])
    return r % n


def shuffle(st: dict, items: list) -> list:
    """A new list: `items` in a random order (Fisher-Yates), drawn from st['rng']."""
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(st, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


# ------------------------------------------------------------------ draws of the rules
# A scenario may fix the outcomes it needs (docs/scenarios.md: `rolls:`, `picks:`): they wait
# in st["vm"]["forced"] = {"rolls": [...], "picks": [...]}, and each draw of that kind takes
# the next one instead of asking the RNG. The key exists only in scenario states.

FORCED_KINDS = {"rolls": "roll", "picks": "pick"}


class ForcedOutcomeError(RuleFault):
    """A scenario forced an outcome the draw cannot have (a face the die does not show, an
    element not in the collection): RS403, placed by the scenario runner at its `rolls:` or
    `picks:` entry."""

    def __init__(self, kind: str, value, what: str, span=None):
        super().__init__("RS403", f"the scenario forces the {FORCED_KINDS[kind]} {value!r}, which is not {what}",
                         span, f"force only outcomes the draw can have (`{kind}:` in the scenario)")
        self.kind = kind
        self.value = value


def draw(st: dict, items: list, kind: str = "picks", what: str = "", span=None):
    """One element of `items` (a non-empty list), each as likely: the next forced outcome of
    this kind (`rolls` or `picks`) when a scenario fixed one, which must be among the items;
    otherwise a draw from st['rng']."""
    forced = st["vm"].get("forced")
    queue = forced.get(kind) if forced else None
    if queue:
        want = queue.pop(0)
        if not queue:
            del forced[kind]
        if not forced:
            del st["vm"]["forced"]
        for x in items:
            if x == want or str(x) == str(want):
                return x
        raise ForcedOutcomeError(kind, want, what or "one of " + ", ".join(map(str, items[:12])), span)
    return items[randbelow(st, len(items))]


def unused_forced(st: dict) -> dict:
    """The forced outcomes no draw has taken yet: {kind: [values]} (empty when all were used)."""
    return {k: list(v) for k, v in (st["vm"].get("forced") or {}).items() if v}
