"""The CI time budget (docs/testing.md): what each part of the test suite may take.

The table in docs/testing.md is the one place the budget is written: this module reads it, adds
up the time the tests of each part took (setup, call and teardown, summed over every CPU
pytest-xdist used), prints the table at the end of every run, and, where RULESPEC_BUDGET=enforce
(as `.ci/run` sets), fails the run when a part went over its budget. A later issue that needs
more time changes the table on purpose, in the same commit. `.ci/run` itself stops the whole
run at the total (45 minutes).
"""
from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
_ROW = re.compile(r"^\|\s*(?P<part>[^|]+?)\s*\|\s*(?P<files>[^|]+?)\s*\|\s*(?P<budget>[\d.]+)\s*\|")


def read_budget(doc: Path = DOC) -> list:
    """[(part, [file patterns], budget in minutes)] from the table between the budget markers."""
    text = doc.read_text(encoding="utf-8")
    start, end = text.index("<!-- budget table -->"), text.index("<!-- end of budget table -->")
    rows = []
    for line in text[start:end].splitlines():
        m = _ROW.match(line)
        if m:
            files = [f.strip().strip("`") for f in m["files"].split(",")]
            rows.append((m["part"].strip(), files, float(m["budget"])))
    return rows


def part_of(path: str, rows: list) -> str:
    """The first part whose patterns match a test file (`tests/test_x.py`); the table ends with
    a catch-all row (`tests/*`)."""
    for part, patterns, _ in rows:
        if any(fnmatch.fnmatch(path, p) for p in patterns):
            return part
    return "?"


class Budget:
    """Collects test durations per part (works under pytest-xdist: reports reach the controller)."""

    def __init__(self):
        self.rows = read_budget()
        self.used = {part: 0.0 for part, _, _ in self.rows}

    def add(self, report):
        path = report.nodeid.split("::", 1)[0]
        part = part_of(path, self.rows)
        self.used[part] = self.used.get(part, 0.0) + report.duration

    def over(self) -> list:
        return [(p, self.used.get(p, 0.0) / 60, b) for p, _, b in self.rows if self.used.get(p, 0.0) / 60 > b]

    def report(self, terminalreporter):
        tr = terminalreporter
        tr.write_sep("-", "CI budget (docs/testing.md): test minutes summed over CPUs")
        for part, _, budget in self.rows:
            used = self.used.get(part, 0.0) / 60
            flag = "  OVER BUDGET" if used > budget else ""
            tr.write_line(f"{part:<28} {used:7.2f} of {budget:6.1f}{flag}")


def enforced() -> bool:
    return os.environ.get("RULESPEC_BUDGET") == "enforce"
