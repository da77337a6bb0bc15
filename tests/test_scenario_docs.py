"""docs/scenarios.md says what a scenario can do, and it can: every state path it documents can
be set in `given` and read in `expect`, and every example marked ```yaml scenario``` runs and
passes as it is written there."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from interpreter.api import engine_for
from interpreter.scenario import _set, lookup, open_maps, run_scenario

DOC = (Path(__file__).resolve().parents[1] / "docs" / "scenarios.md").read_text(encoding="utf-8")


def documented_paths() -> list:
    """The first word of each line of the state-path list (the block after '## State paths')."""
    section = DOC[DOC.index("## State paths"):]
    block = section[section.index("```") + 3:]
    block = block[:block.index("```")]
    return [line.split()[0] for line in block.splitlines() if line and not line.startswith(" ")]


# one concrete instance for each placeholder of the documented paths
PLACEHOLDERS = {"COLOUR": "red", "TRACK": "patronage_track", "TYPE": "ambassador",
                "INSTANCE": "cathedral#1", "NAME": "city", "N": "0"}


def concrete(path: str) -> str:
    path = path.replace("cities.ID", "cities.siena").replace("alliances.ID", "alliances.hre")
    return ".".join(PLACEHOLDERS.get(part, part) for part in path.split("."))


PATHS = documented_paths()


def test_the_path_list_is_all_there():
    assert len(PATHS) >= 40
    assert "tracks.TRACK.year_steps.COLOUR" in PATHS


@pytest.mark.parametrize("path", PATHS)
def test_every_documented_path_can_be_set_and_read(path):
    engine = engine_for("base_3to5")
    state = engine.new_game(["red", "yellow", "green"], 0)
    where = concrete(path)
    try:
        value = lookup(engine, state, where)
    except (KeyError, IndexError):
        value = [1, 1]                   # an open mapping (year_steps, vars): a new key
    _set(state, where, value, open_maps(engine.rs))      # raises on a path `given` refuses
    assert lookup(engine, state, where) == value


def examples() -> list:
    return re.findall(r"```yaml scenario\n(.*?)```", DOC, re.S)


def test_there_are_runnable_examples():
    assert len(examples()) >= 5


@pytest.mark.parametrize("text", examples(), ids=lambda t: t.split("name: ", 1)[1].split("\n", 1)[0][:40])
def test_every_runnable_example_passes(text, tmp_path):
    path = tmp_path / "example.yaml"
    path.write_text(text, encoding="utf-8")
    out = run_scenario(path)
    assert out.ok, out.failures
