"""`rulespec test PACK`: what a content repository's CI runs on a pack, as one list of checks.

A pack's author wants one command, one exit code and one report their CI can show: the static
validation (as `rulespec validate`), the pack's own scenarios (PACK/scenarios/*.yaml,
docs/scenarios.md) and a few seeded random games per player count (as `validate --playouts`).
Each becomes a Check that passed, failed or was skipped (scenarios and games cannot run on a
pack that does not load), with its findings placed at a file, line and column. The reports
are plain text, GitHub Actions annotations, or JUnit XML (the format CI systems read as test
results: one testcase per check).
"""
from __future__ import annotations

import os
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostic_order import github_command, relative_path
from .errors import Diagnostic, RulespecError

DEFAULT_PLAYOUTS = 3


@dataclass
class Finding:
    """One problem, where it is: a validator diagnostic, or a failed scenario expectation."""
    file: str
    line: int
    column: int
    message: str             # one line: code, what is wrong, the hint
    text: str                # as printed in the text report (a diagnostic with its caret)
    severity: str = "error"  # "error" | "warning"

    @classmethod
    def of(cls, d: Diagnostic) -> "Finding":
        msg = f"{d.code} {d.message}" + (f" (hint: {d.hint})" if d.hint else "")
        return cls(str(d.span.file), d.span.line or 0, d.span.column or 0, msg, d.render(), d.severity)


@dataclass
class Check:
    kind: str                # "validate" | "scenario" | "playout"
    name: str
    status: str = "passed"   # "passed" | "failed" | "skipped"
    detail: str = ""         # one line for the report (what ran, or why it was skipped)
    findings: list = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class PackTest:
    pack: str                # the pack's id (or the reference given, when it did not load)
    checks: list = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.checks)

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0


def pack_scenarios(folder: Path) -> list:
    """The pack's own scenarios: the *.yaml files directly in PACK/scenarios/, sorted."""
    sc = Path(folder) / "scenarios"
    return sorted(p for p in sc.glob("*.yaml") if p.is_file()) if sc.is_dir() else []


def run(folder: Path, playouts: int = DEFAULT_PLAYOUTS, seed: int = 0, search_path=None, strict: bool = False,
        progress=None) -> PackTest:
    """Validate the pack in `folder`, run its scenarios, play `playouts` random games per
    player count (seeds seed, seed+1, ...). `progress(check)` is called as each check ends."""
    from validator.static import validate_pack
    search_path = list(search_path or [])
    result = PackTest(Path(folder).name)

    def done(check, t0):
        check.seconds = time.perf_counter() - t0
        result.checks.append(check)
        if progress:
            progress(check)

    t0 = time.perf_counter()
    report = validate_pack(folder, search_path)
    if report.pack is not None:
        result.pack = report.pack.id
    check = Check("validate", result.pack, findings=_root_causes(report.diagnostics))
    failed = bool(report.errors or (strict and report.warnings))
    check.status = "failed" if failed else "passed"
    check.detail = f"{len(report.errors)} error(s), {len(report.warnings)} warning(s)"
    if strict:
        for f in check.findings:
            f.severity = "error"
    done(check, t0)
    loads = report.pack is not None and not report.errors

    for path in pack_scenarios(folder):
        t0 = time.perf_counter()
        check = Check("scenario", relative_path(str(path)))
        if not loads:
            check.status, check.detail = "skipped", "the pack has errors"
        else:
            check.status, check.detail, check.findings = _scenario(path, [*search_path, Path(folder)])
        done(check, t0)

    players = report.pack.players if report.pack is not None else []
    engine = broken = None
    if loads and players and playouts:
        from interpreter.api import Engine
        try:
            engine = Engine(report.pack)
        except RulespecError as e:      # rules that validate but do not compile: every game fails
            broken = [Finding.of(d) for d in e.diagnostics]
    for n in players:
        for i in range(playouts):
            t0 = time.perf_counter()
            check = Check("playout", f"{n} players, seed {seed + i}")
            if not loads:
                check.status, check.detail = "skipped", "the pack has errors"
            elif broken:
                check.status, check.detail, check.findings = "failed", "the rules do not compile", broken
            else:
                check.status, check.detail, check.findings = _playout(engine, n, seed + i)
            done(check, t0)
    return result


def _root_causes(diagnostics: list) -> list:
    """The validator's findings as `validate` prints them: root causes only, each saying how
    many findings follow from it (rulespec.diagnostic_order; `validate --all` lists them)."""
    from .diagnostic_order import consequences_of, render_text
    below = consequences_of(diagnostics)
    roots = [d for d in diagnostics if d.caused_by is None]
    out = []
    for d, text in zip(roots, render_text(diagnostics)):
        f = Finding.of(d)
        f.text = text
        if below.get(id(d)):
            f.message += f" (and {len(below[id(d)])} more finding(s) caused by this: see `rulespec validate --all`)"
        out.append(f)
    return out


def _scenario(path: Path, search_path: list) -> tuple:
    from interpreter.scenario import run_scenario
    try:
        out = run_scenario(path, search_path)
    except RulespecError as e:          # a broken scenario file fails alone
        return "failed", "cannot run", [Finding.of(d) for d in e.diagnostics]
    if out.ok:
        return "passed", f"{out.name} ({out.moves} moves)", []
    name = relative_path(str(path))
    found = [Finding(name, line or 0, 0, text, f"{name}:{line}: {text}") for line, text in out.failures]
    return "failed", out.name, found


def _playout(engine, players: int, seed: int) -> tuple:
    from validator.playouts import playout
    d, moves, state = playout(engine, players, seed)
    if d is not None:
        return "failed", f"after {len(moves)} moves", [Finding.of(d)]
    return "passed", f"ended by the rules in {engine.rs.game['round_name']} {state.get('year', 0)} ({len(moves)} moves)", []


# ------------------------------------------------------------------ reports
_MARK = {"passed": "ok  ", "failed": "FAIL", "skipped": "skip"}


def summary_line(result: PackTest) -> str:
    return (f"{result.pack}: {result.count('passed')} passed, {result.count('failed')} failed, "
            f"{result.count('skipped')} skipped — {'ok' if result.ok else 'FAILED'}")


def check_line(c: Check) -> str:
    return f"{_MARK[c.status]}  {c.kind:8} {c.name}" + (f": {c.detail}" if c.detail else "")


def check_text(c: Check) -> str:
    """A check's line, then its findings (indented)."""
    return "\n".join([check_line(c)] + ["    " + line for f in c.findings for line in f.text.splitlines()])


def text_report(result: PackTest) -> str:
    return "\n".join([check_text(c) for c in result.checks] + [summary_line(result)])


def github_report(result: PackTest) -> str:
    """One annotation per finding (warnings of a passing check as ::warning), then the summary."""
    out = []
    for c in result.checks:
        for f in c.findings:
            level = "error" if f.severity == "error" else "warning"
            prefix = "scenario: " if c.kind == "scenario" else ""     # a playout's message names its game
            out.append(github_command(f.file, f.line, f.column, prefix + f.message, level))
    out.append(summary_line(result))
    return "\n".join(out)


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _x(text) -> str:
    """Text as XML 1.0 may hold it (a pack's text may contain control characters)."""
    return _NOT_XML.sub("\ufffd", str(text))


def junit_report(result: PackTest) -> str:
    """JUnit XML: one testsuite for the pack, one testcase per check (classname: the pack and
    the kind of check), failures with every finding, skipped checks marked skipped."""
    suite = ET.Element("testsuite", name=_x(f"rulespec test {result.pack}"), tests=str(len(result.checks)),
                       failures=str(result.count("failed")), errors="0", skipped=str(result.count("skipped")),
                       time=f"{sum(c.seconds for c in result.checks):.3f}")
    for c in result.checks:
        case = ET.SubElement(suite, "testcase", classname=_x(f"{result.pack}.{c.kind}"), name=_x(c.name),
                             time=f"{c.seconds:.3f}")
        first = next((f for f in c.findings if f.severity == "error"), None)
        if c.kind == "scenario":
            case.set("file", _x(c.name))
        elif first is not None:
            case.set("file", _x(relative_path(first.file)))
        if first is not None and first.line:
            case.set("line", str(first.line))
        if c.status == "failed":
            fail = ET.SubElement(case, "failure", message=_x((first.message if first else c.detail)[:500]),
                                 type=c.kind)
            fail.text = _x("\n\n".join(f.text for f in c.findings))
        elif c.status == "skipped":
            ET.SubElement(case, "skipped", message=_x(c.detail))
        elif c.findings:        # warnings of a passing validation
            ET.SubElement(case, "system-out").text = _x("\n\n".join(f.text for f in c.findings))
    root = ET.Element("testsuites", name="rulespec test", tests=suite.get("tests"), failures=suite.get("failures"),
                      errors="0", skipped=suite.get("skipped"), time=suite.get("time"))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


REPORTS = {"text": text_report, "github": github_report, "junit": junit_report}
