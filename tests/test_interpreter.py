"""The decision API on the base pack: atomic moves, refusals that leave the state unchanged,
JSON round trips, replays bit-for-bit, and random legal play that never breaks."""
from __future__ import annotations

import random

import pytest

from interpreter import vm
from interpreter.api import Engine, IllegalMove
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


# Random legal play, every piece conserved after every move, games to their end, undo and
# JSON round trips at every step: tests/test_properties.py.
# Whole random games (to their end, constraints, replays): tests/test_full_games.py.


def _three_years(make_pack):
    return make_pack("three_years", {
        "pack.yaml": """
            id: three_years
            name: three years
            version: 0.1.0
            extends: base_3to5
            players: [3]
        """,
        "rules/bound.rules": """
            modify game virtu {
              max_years: 3
            }
        """,
    })


def test_playout_validation_reports_games_without_end(make_pack):
    """A bound no game of Virtù can meet (3 Years) makes every playout an RS304 finding."""
    from validator.playouts import run_playouts
    summary = {}
    diags = run_playouts(load_pack(_three_years(make_pack)), 1, seed=0, summary=summary)
    assert [d.code for d in diags] == ["RS304"]
    assert "seed 0" in diags[0].message and "within 3 years" in diags[0].message
    assert "rulespec replay" in diags[0].hint
    # it points at the bound, where the pack author can raise it
    assert diags[0].span.file.endswith("bound.rules") and diags[0].span.line == 2
    assert "max_years" in diags[0].hint
    assert summary == {3: {"games": 1, "ended": 0, "years": [3]}}


def _validate_cli(*args):
    from cli_run import run_cli             # in process (tests/cli_run.py)
    return run_cli("validate", *args)


def test_playout_findings_follow_the_output_format(make_pack):
    """CI reads playout findings like static ones: one JSON document (with the games' summary)
    or GitHub annotations on the line of the bound."""
    import json
    import re
    root = _three_years(make_pack)
    proc = _validate_cli(root, "--playouts", "1", "--format", "json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["errors"] == 1 and [d["code"] for d in data["diagnostics"]] == ["RS304"]
    assert data["playouts"] == {"3": {"games": 1, "ended_by_rules": 0, "years": [3]}}
    proc = _validate_cli(root, "--playouts", "1", "--format", "github")
    assert proc.returncode == 1
    assert re.fullmatch(r"::error file=.+bound\.rules,line=2,col=\d+::RS304 3 players, seed 0: .*",
                        proc.stdout.strip()), proc.stdout
    proc = _validate_cli(root, "--playouts", "1")
    assert "three_years: 1 error(s), 0 warning(s) — FAILED" in proc.stdout    # playouts count
    assert "three_years playouts, 3 players: 0/1 ended by the rules, 3.0 Years on average" in proc.stdout


def test_playout_validation_passes_when_games_end():
    from pathlib import Path
    from validator.playouts import run_playouts
    pack = load_pack(Path(__file__).parent / "packs" / "variants" / "five_years")
    pack.players = [3, 4]
    assert run_playouts(pack, 2, seed=0) == []


def test_unverified_candidates_are_all_legal_in_the_base_pack(engine):
    """legal_moves skips trying each candidate outside payments: the pack's own filters must
    then never offer a move a rule would refuse. Checked against the verifying engine."""
    checking = Engine(engine.pack, verify_moves=True)
    rng = random.Random(11)
    s = engine.new_game(4, seed=11)
    for _ in range(1500):
        if engine.is_over(s):
            break
        fast = engine.legal_moves(s)
        assert fast == checking.legal_moves(s), s["vm"]["pending"]
        s = engine.apply(s, rng.choice(fast))


def test_a_track_refuses_more_steps_than_its_yearly_limit(engine):
    """max_steps_per_year (tracks.yaml) is kept by the engine, whatever the rules call."""
    from interpreter import vm
    s = engine.new_game(3, seed=1)
    rt = engine.runtime(s)

    def steps_left(track):          # the pack's formula (actions.rules), as the rules read it
        return rt.formula("steps_left", ("red", track), {}, {"player": "red"})
    assert steps_left("patronage_track") == 1
    rt.v_advance({"player": "red"}, ["patronage_track", 1], {}, None)
    assert steps_left("patronage_track") == 0
    with pytest.raises(vm.Abort, match="at most 1 step"):
        rt.v_advance({"player": "red"}, ["patronage_track", 1], {}, None)
    assert s["tracks"]["patronage_track"]["pos"]["red"] == 1
    assert steps_left("cities_track") == 99          # no limit on that track
    s["year"] += 1
    assert steps_left("patronage_track") == 1


def test_money_is_the_packs_storable_symbol(make_pack):
    """Payments and gain/lose use the symbol the pack marks `storable` as the treasury."""
    assert Engine(load_pack("base_3to5")).rs.money == "florin"
    root = make_pack("ducats", {
        "pack.yaml": """
            id: ducats
            name: ducats
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/money.rules": """
            modify symbol florin {
              storable: false
            }
            symbol ducat "Ducat" {
              storable: true
              treasury: florins
            }
            # gain is the pack's (rules/pieces.rules): it says which symbol goes to the treasury
            modify procedure gain {
              effect: {
                if what == ducat {
                  set player.florins = player.florins + n
                } else {
                  add_to_payment(what, n)
                }
              }
            }
        """,
    })
    eng = Engine(load_pack(root))
    assert eng.rs.money == "ducat"
    s = eng.new_game(3, seed=1)
    rt = eng.runtime(s)
    before = s["p"]["red"]["florins"]
    s["vm"], s["over"] = {"frames": [], "pending": None}, True     # run the procedure alone
    for args in (["ducat", 2], ["florin", 5]):          # florin: not money any more, no treasury
        block, env = rt.verb("gain", {"player": "red"}, args, {}, None)
        vm.push(rt, block, env, scope=True)
        vm.run(rt)
    assert s["p"]["red"]["florins"] == before + 2
    assert rt.treasury("red") == before + 2               # what payments take from


def test_new_game_takes_the_colours_of_that_player_count(engine):
    """setup.yaml says which colours play at each count; the order given is the seat order,
    first player first (first_player: choose: the players decide who starts)."""
    with pytest.raises(RulespecError, match="3-player games are played with red, yellow, green"):
        engine.new_game(["blue", "red", "yellow"], 1)
    with pytest.raises(RulespecError):
        engine.new_game(["red", "red", "yellow"], 1)
    s = engine.new_game(["green", "red", "yellow"], 1)
    assert s["turn_order"] == ["green", "red", "yellow"]
