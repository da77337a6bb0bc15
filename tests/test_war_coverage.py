"""War happens in play, not just in scenarios: over 200 seeded games of bots (the `sticky` random
bot, which repeats its own earlier choices so that troops gather), there are sieges won and
lost, Battles on the Plains and retreats. Counted from the structured events the pack's war
rules record (war.rules: siege_resolved, battle_fought, troop_retreated). Deterministic: fixed
seeds."""
from __future__ import annotations

import collections

import pytest

from ci_mode import ci_only

from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.events import structured
from rulespec.pack import load_pack

GAMES = 200
YEARS = 10


@pytest.mark.slow
@ci_only
def test_two_hundred_games_show_every_kind_of_war_outcome():
    engine = Engine(load_pack("base_3to5"))
    seen = collections.Counter()

    def on_move(turn, move, events, after):
        for e in structured(events):
            if e["event"] == "siege_resolved":
                seen["siege won" if e["attack"] > e["defence"] else "siege lost"] += 1
            elif e["event"] == "battle_fought":
                seen["battle"] += 1
            elif e["event"] == "troop_retreated":
                seen["retreat"] += 1

    for seed in range(GAMES):
        play_game(engine, (3, 4, 5)[seed % 3], seed, "sticky", on_move=on_move,
                  options={"max_years": YEARS})
    assert seen["siege won"] > 0 and seen["siege lost"] > 0, seen
    assert seen["battle"] > 0, seen
    assert seen["retreat"] > 0, seen
