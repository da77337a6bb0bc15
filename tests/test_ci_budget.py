"""The CI budget (docs/testing.md) is complete, adds up, and is enforced."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

from ci_budget import Budget, part_of, read_budget

ROOT = Path(__file__).resolve().parents[1]
TOTAL_MINUTES = 45          # the project's own limit (CI's hard limit is 90)
INSTALL_MINUTES = 3         # generous: about 1 minute measured
CPUS = 2                    # CI's machine


def test_every_test_file_belongs_to_a_part():
    rows = read_budget()
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("test_*.py"))
    assert len(files) >= 15
    assert all(part_of(f, rows) != "?" for f in files)
    # the catch-all comes last, so that every named part gets its own files
    assert rows[-1][1] == ["tests/*"]
    assert part_of("tests/test_full_games.py", rows) == "mass run"


def test_the_budgets_fit_in_the_total():
    rows = read_budget()
    assert len(rows) >= 5
    assert INSTALL_MINUTES + sum(b for _, _, b in rows) / CPUS <= TOTAL_MINUTES


def test_a_part_over_its_budget_is_reported():
    budget = Budget()
    part, patterns, minutes = budget.rows[0]
    assert not budget.over()
    budget.add(SimpleNamespace(nodeid=patterns[0] + "::test_x", duration=minutes * 60 + 1))
    assert [p for p, _, _ in budget.over()] == [part]


def test_ci_stops_itself_past_the_budget():
    start = time.monotonic()
    run = subprocess.run([str(ROOT / ".ci" / "budgeted"), "1", "sleep", "30"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1
    assert "CI budget exceeded" in run.stderr and "docs/testing.md" in run.stderr
    assert time.monotonic() - start < 25


def test_ci_passes_the_command_status_through():
    assert subprocess.run([str(ROOT / ".ci" / "budgeted"), "10", "true"]).returncode == 0
    assert subprocess.run([str(ROOT / ".ci" / "budgeted"), "10", "false"]).returncode == 1
