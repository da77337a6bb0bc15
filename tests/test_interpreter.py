"""The decision API on the base pack: atomic moves, refusals that leave the state unchanged,
JSON round trips, replays bit-for-bit, and random legal play that never breaks."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from interpreter.api import Engine, IllegalMove
from interpreter.bots import play_game
from interpreter.replay import replay, state_hash, write_log
from interpreter.state import dumps, loads
from rulespec.errors import RulespecError
from rulespec.pack import load_pack


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def test_new_game_follows_setup(engine):
    s = engine.new_game(3, seed=1)
    assert s["players"] == ["red", "yellow", "green"]
    assert s["p"]["yellow"]["agents_available"] == 3 and s["p"]["red"]["agents_available"] == 2
    assert s["cities"]["florence"]["controller"] == "red" and s["cities"]["pisa"]["troops"] == {"red": 1}
    assert "milan" not in s["cities"]            # forbidden at 3 players
    assert all(s["p"][c]["florins"] == 1 for c in s["players"])
    assert s["vm"]["pending"]["kind"] == "choose"


def test_state_json_round_trip_is_exact(engine):
    s = engine.new_game(4, seed=3)
    for mv in ["choose " + str(s["vm"]["pending"]["options"][0])]:
        s = engine.apply(s, mv)
    text = dumps(s)
    assert dumps(loads(text)) == text
    assert engine.legal_moves(loads(text)) == engine.legal_moves(s)


@pytest.mark.parametrize("bad", ["choose nowhere", "yes", "tap x y", "", "option nothing", 42, None])
def test_illegal_or_malformed_moves_are_refused_and_change_nothing(engine, bad):
    s = engine.new_game(4, seed=2)
    before = dumps(s)
    with pytest.raises(IllegalMove) as e:
        engine.apply(s, bad)
    assert isinstance(e.value, RulespecError) and e.value.reason
    assert dumps(s) == before


def test_explain_names_the_reason(engine):
    s = engine.new_game(4, seed=2)
    assert "not one of the choices" in engine.explain(s, "choose rome")
    assert engine.explain(s, engine.legal_moves(s)[0]) == "legal"


def test_replay_rebuilds_the_same_state(engine, tmp_path):
    rng = random.Random(5)
    s = engine.new_game(4, seed=5)
    record = []
    for _ in range(300):
        moves = engine.legal_moves(s)
        mv = rng.choice(moves)
        record.append((s["vm"]["pending"]["player"], mv))
        s = engine.apply(s, mv)
    log = tmp_path / "game.jsonl"
    write_log(log, engine, s["players"], 5, {}, record, s)
    assert state_hash(replay(log, engine)) == state_hash(s)
    lines = log.read_text().splitlines()
    lines[3] = lines[3].replace('"move": "', '"move": "x')
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(RulespecError):
        replay(log, engine)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.sampled_from([3, 4, 5]), picks=st.lists(st.integers(0, 999), min_size=60, max_size=200))
def test_random_legal_play_keeps_invariants(engine, seed, players, picks):
    s = engine.new_game(players, seed=seed)
    for k in picks:
        if engine.is_over(s):
            break
        moves = engine.legal_moves(s)
        assert moves, f"no legal move at {s['vm']['pending']}"
        s = engine.apply(s, moves[k % len(moves)])      # never raises for a legal move
        assert dumps(loads(dumps(s))) == dumps(s)
        for c, city in s["cities"].items():
            assert all(n > 0 for n in city["troops"].values())
        for p in s["players"]:
            assert s["p"][p]["florins"] >= 0 and s["p"][p]["troops_reserve"] >= 0


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
def test_whole_random_games_run_without_errors(engine, players):
    for seed in range(2):
        state, moves = play_game(engine, players, seed, "random")
        assert engine.is_over(state)
        assert len(moves) > 100
        scores = engine.scores(state)
        assert set(scores) == set(state["players"])
