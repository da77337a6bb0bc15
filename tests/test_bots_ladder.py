"""The ladder script's arithmetic (scripts/ladder.py): Wilson intervals and merging rungs played
in parallel. The games themselves are measured outside CI (docs/bots.md)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("ladder", Path(__file__).resolve().parents[1] / "scripts" / "ladder.py")
ladder = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ladder)


def test_wilson_interval_brackets_the_rate_and_narrows_with_more_games():
    lo, hi = ladder.wilson(8, 12)
    assert lo == pytest.approx(0.391, abs=1e-3) and hi == pytest.approx(0.862, abs=1e-3)
    lo2, hi2 = ladder.wilson(80, 120)
    assert lo < lo2 < 8 / 12 < hi2 < hi
    assert ladder.wilson(0, 10)[0] == 0.0 and ladder.wilson(10, 10)[1] == 1.0


def _game(seed, share, years=20):
    return {"seed": seed, "seat": seed % 4, "strong_share": share, "years": years, "decisions": 1000,
            "events": {"sieges_won": 1}, "cpu_seconds": 2.0, "ended_by_rules": years < 100}


def test_merging_ladder_files_keeps_each_seed_once_and_recounts(tmp_path):
    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "out.json"
    rung = "base_3to5 4p: x vs y"
    a.write_text(json.dumps({"rungs": {rung: {"games": [_game(0, 1.0), _game(1, 0.0)]}}}))
    b.write_text(json.dumps({"rungs": {rung: {"games": [_game(1, 1.0), _game(2, 0.5, years=100)]}}}))
    data = ladder.merge([a, b], out)
    s = data["rungs"][rung]["summary"]
    assert [g["seed"] for g in data["rungs"][rung]["games"]] == [0, 1, 2]
    assert s["games"] == 3 and s["strong_win_rate"] == pytest.approx(0.5)     # seed 1 from a.json
    assert s["ended_by_rules"] == 2 and s["per_game"] == {"sieges_won": 1.0}
    assert json.loads(out.read_text()) == data


def test_a_tagged_merge_files_new_bots_beside_the_old_rung_of_the_same_name(tmp_path):
    """Bots of a later commit play the same rung name and seeds: untagged, the old games would
    hide theirs (each seed once); tagged, they are a rung of their own."""
    old, new, out = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "out.json"
    rung = "base_3to5 4p: x vs y"
    old.write_text(json.dumps({"rungs": {rung: {"games": [_game(0, 0.0), _game(1, 0.0)]}}}))
    new.write_text(json.dumps({"rungs": {rung: {"games": [_game(0, 1.0), _game(1, 1.0)]}}}))
    ladder.merge([old], out)
    data = ladder.merge([new], out, tag="abc123")
    assert data["rungs"][rung]["summary"]["strong_win_rate"] == 0.0
    assert data["rungs"][f"{rung} [abc123]"]["summary"]["strong_win_rate"] == 1.0
    assert ladder.merge([new], out)["rungs"][rung]["summary"]["strong_win_rate"] == 0.0   # untagged: hidden


def test_a_ladder_game_lists_each_siege_it_counts():
    """Each game keeps its Sieges and Battles (Year, City, sides, strengths, result) beside the
    counts, so that a rung's lost Sieges can be read without replaying it."""
    from interpreter.api import engine_for
    for seed in range(20):
        g = ladder.play_one(engine_for("base_3to5"), "random", "random", 3, seed, 0, {"max_years": 12})
        sieges = [f for f in g["fights"] if f["event"] == "siege_resolved"]
        if sieges:
            break
    assert sieges, "no Siege in 20 short random games"
    assert len(sieges) == g["events"].get("sieges_won", 0) + g["events"].get("sieges_lost", 0)
    assert all(f["city"] and f["attacker"] and f["result"] in ("won", "lost") and 1 <= f["year"] <= g["years"]
               for f in sieges)
