"""A small seeded PRNG whose whole state is one integer, so it lives in the JSON game state
and a game replays bit-for-bit (splitmix64)."""
from __future__ import annotations

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
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(st, i + 1)
        items[i], items[j] = items[j], items[i]
    return items
