"""What the README's test command runs on a developer's machine, and what only CI runs.

CI (`.ci/run`, which sets CI=true) runs everything at full size: the mass run's 500 games per
player count, every player count of the whole-game property tests, the 200 war games, the full
example counts of the Hypothesis tests. The README's command keeps every test but plays less:
small counts (`local_or_ci`), and tests marked `ci_only` skipped with a reason. Set
RULESPEC_FULL=1 to run CI's sizes on a developer's machine (docs/testing.md, "What runs where").
"""
from __future__ import annotations

import os

import pytest

CI = bool(os.environ.get("CI")) or os.environ.get("RULESPEC_FULL", "") not in ("", "0")

ci_only = pytest.mark.ci_only


def local_or_ci(local, ci):
    """`ci` in CI (or with RULESPEC_FULL=1), `local` otherwise."""
    return ci if CI else local
