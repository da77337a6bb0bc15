"""Shared test helpers: build small packs in temporary folders."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def write_pack(root: Path, files: dict) -> Path:
    """Write {relative path: text} under root (dedented) and return root."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def make_pack(tmp_path):
    def make(name: str, files: dict) -> Path:
        return write_pack(tmp_path / name, files)
    return make


def pytest_terminal_summary(terminalreporter):
    """How many whole random games (tests/test_full_games.py) reached an end condition of the
    rules, per player count: the others stopped at the pack's bound. Works under pytest-xdist
    (recorded properties travel with the test reports)."""
    totals = {}
    for rep in terminalreporter.stats.get("passed", []):
        for name, value in getattr(rep, "user_properties", ()):
            if name == "whole_games":
                t = totals.setdefault(value["players"], [0, 0, value["bound"], []])
                t[0] += value["ended"]
                t[1] += value["games"]
                t[3] += value.get("at_bound", [])
    if totals:
        terminalreporter.write_sep("-", "whole random games")
        for players in sorted(totals):
            ended, games, bound, seeds = totals[players]
            which = f" (seeds {', '.join(map(str, sorted(seeds)))})" if seeds else ""
            terminalreporter.write_line(f"{players} players: {ended} of {games} games ended by the rules, "
                                        f"{games - ended} stopped at the {bound}-Year bound{which}")
