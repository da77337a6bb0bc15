"""Events: what a move did, as data (`{"event": NAME, KEY: value, ...}`).

A pack declares its events (`event card_gained "A card is gained" { keys: [side, card] }`) and
records them with the verb `event(card_gained, side: player, card: c)`; the runtime collects
them, in order, for each applied move (Runtime.events). The account's text lines are events
too, `{"event": "log", "text": ...}`, kept in the same list so that a reader sees text and
structured events in the order they happened; `text_of` gives the text of an account line
(None for a structured event), so the account printed by `play` and checked by scenarios is
what it was before events existed.

Events are not part of the state: they are never stored in it, so the state hashes of the
golden corpus do not depend on them. Their values are JSON-safe (ids, numbers, booleans,
lists, maps of symbols to counts), so a game log can store them as they are.
"""
from __future__ import annotations

from rulespec.errors import RuleFault

# the event of the account's text lines (the `log` verb, the engine's own lines)
LOG = "log"


def log_line(text: str) -> dict:
    return {"event": LOG, "text": text}


def text_of(event) -> str | None:
    """The text of an account line; None for a structured event."""
    if isinstance(event, dict):
        return event.get("text") if event.get("event") == LOG else None
    return str(event)


def account(events) -> list:
    """The account's text lines among `events`, in order."""
    return [t for t in map(text_of, events) if t is not None]


def structured(events) -> list:
    """The pack's events among `events` (the account's text lines left out): what a game log
    stores per move and a replay checks."""
    return [e for e in events if isinstance(e, dict) and e.get("event") != LOG]


def json_safe(value, span=None, key: str = "?"):
    """A value as the log stores it: ids and numbers as they are, sets as sorted lists, maps of
    ids to values (a payment's symbols). Anything else is a fault of the rule (RS301)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, (list, tuple)):
        return [json_safe(v, span, key) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((json_safe(v, span, key) for v in value), key=lambda v: (str(type(v)), str(v)))
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: json_safe(v, span, key) for k, v in value.items()}
    raise RuleFault("RS301", f"the event key '{key}' is given a value a log cannot store ({type(value).__name__})",
                    span, "give an event ids, numbers, true/false, or lists of them")
