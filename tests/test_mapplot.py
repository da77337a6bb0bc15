"""`rulespec map` drawn with matplotlib (rulespec/mapplot.py): PNG or SVG by the file's
extension, optionally with the position of a saved game. Skipped (saying why) without the
`[sim]` extra, except in CI, which installs it."""
from __future__ import annotations

import importlib
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rulespec import plots
from rulespec.cli import main



@pytest.fixture(autouse=True)
def _matplotlib():
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("matplotlib is not installed: pip install -e '.[sim]' (CI installs it)")


@pytest.fixture(scope="module")
def game_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("game") / "base.jsonl"
    assert main(["play", "base_3to5", "--players", "3", "--seed", "3", "--quiet", "--log", str(log)]) == 0
    return log


def test_a_png_map(tmp_path):
    out = tmp_path / "map.png"
    assert main(["map", "base_3to5", "--players", "4", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_game_on_the_map_names_the_states_fields(tmp_path, game_log):
    from interpreter.api import Engine
    from interpreter.replay import replay
    from rulespec.mapplot import per_city_records
    from rulespec.pack import load_pack
    out = tmp_path / "game.svg"
    assert main(["map", "base_3to5", "--game", str(game_log), "--out", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    ET.fromstring(svg)                                      # well-formed
    state = replay(str(game_log), Engine(load_pack("base_3to5")), check=False)
    records = per_city_records(state, set(state["cities"]))
    held = {c for c, r in records.items() if r.get("controller")}
    assert held, "a whole game leaves some City controlled"
    # the legend names the state's own fields and the game's colours; only the 3-player board
    assert "controller" in svg and all(p in svg for p in state["players"])
    assert "Year " + str(state["year"]) in svg and "Perugia" not in svg


def test_a_game_log_and_a_png_need_matplotlib(monkeypatch, tmp_path, game_log, capsys):
    monkeypatch.setattr(plots, "available", lambda: False)
    assert main(["map", "base_3to5", "--game", str(game_log), "--out", str(tmp_path / "g.svg")]) == 2
    assert "pip install 'rulespec[sim]'" in capsys.readouterr().err
    assert main(["map", "base_3to5", "--out", str(tmp_path / "m.png")]) == 2
    assert main(["map", "base_3to5", "--out", str(tmp_path / "m.svg")]) == 0      # the hand-made SVG
    assert 'id="city-florence"' in (tmp_path / "m.svg").read_text(encoding="utf-8")
