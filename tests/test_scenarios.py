"""Every YAML scenario under tests/scenarios/ must pass (rulebook worked examples and rules)."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.scenario import run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").rglob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(p.parents[1])) for p in SCENARIOS])
def test_scenario(path):
    out = run_scenario(path)
    assert out.ok, "\n".join(f"{path}:{line}: {text}" for line, text in out.failures)
