"""Every check code on a real pack folder: tests/packs/broken/<case>/ holds one broken pack
(one problem each) and an expect.yaml naming the code and where it must be reported:

    code: RS105
    file: rules/more.rules      # relative to the case folder
    line: 3                     # 1-based; an unreadable file is reported at 1:1
    column: 11                  # optional
    severity: warning           # optional (default: error)
    also: [RS121]               # optional: other codes the problem legitimately causes
    bug: "..."                  # optional: a known rulespec bug; the case is a strict xfail

Most cases are overlays (`extends: ../../minimal`) that add one file with the problem, marked
with a `# <- RSxxx` comment on the offending line. The valid packs tests/packs/minimal,
minimal_map, minimal_overlay and fuzz_base must validate with no errors and no warnings.
"""
from __future__ import annotations

import json
import re
import traceback
from pathlib import Path

import pytest
import yaml

from rulespec.errors import RulespecError
from rulespec.parser import _lark
from validator.static import validate_pack
from cli_run import run_cli

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
PACKS = TESTS / "packs"
BROKEN = PACKS / "broken"
VALID_PACKS = ["minimal", "minimal_map", "minimal_overlay", "fuzz_base"]

# every code of docs/validator.md that a pack folder can trigger
ALL_CODES = ["RS001", "RS002", "RS003", "RS007", "RS010", "RS011", "RS020", "RS021", "RS100", "RS101", "RS102",
             "RS103", "RS104", "RS105", "RS106", "RS107", "RS108", "RS109", "RS120", "RS121", "RS122",
             "RS123", "RS124", "RS130", "RS200"]


def _load_cases():
    out = []
    for d in sorted(BROKEN.iterdir()):
        if not (d / "expect.yaml").is_file():
            continue
        exp = yaml.safe_load((d / "expect.yaml").read_text(encoding="utf-8"))
        out.append((d, exp))
    return out


CASES = _load_cases()


def _params(with_bug_marks: bool):
    params = []
    for d, exp in CASES:
        marks = []
        if with_bug_marks and exp.get("bug"):
            marks.append(pytest.mark.xfail(reason="rulespec bug: " + exp["bug"], strict=True))
        params.append(pytest.param(d, exp, id=d.name, marks=marks))
    return params


def _validate(folder, known_bug: str = ""):
    """validate_pack, turning any escaping Python exception into a test failure with its traceback
    (or into an xfail for a case whose expect.yaml documents the bug)."""
    try:
        return validate_pack(folder)
    except Exception:  # noqa: BLE001 - the point of the test
        if known_bug:
            pytest.xfail("rulespec bug: " + known_bug)
        pytest.fail(f"a Python exception escaped validate_pack({folder}):\n{traceback.format_exc()}")


def _show(diags, folder=None) -> str:
    text = "\n".join(f"  {d.code} {d.severity} {d.span} {d.message} | {d.hint}" for d in diags) or "  (none)"
    return text.replace(str(folder) + "/", "") if folder else text


@pytest.fixture(scope="module")
def terminal_names():
    """Lark terminal names (LPAR, __ANON_0, $END, NAME ...) must never reach a message or hint."""
    names = {t.name for t in _lark().terminals} | {"$END"}
    return [n for n in names if n.isupper() or n.startswith("_") or n.startswith("$")]


def _raw_terminals(d, names) -> list:
    text = f"{d.message}\n{d.hint}"
    found = [n for n in names if re.search(r"(?<![A-Za-z0-9_'])" + re.escape(n) + r"(?![A-Za-z0-9_'])", text)]
    return found + (["__ANON"] if "__ANON" in text else [])


# ------------------------------------------------------------------ the case folders
def test_enough_cases_and_every_code_covered():
    assert len(CASES) >= 30
    codes = {exp["code"] for _, exp in CASES}
    missing = [c for c in ALL_CODES if c not in codes]
    assert not missing, f"no broken case for {missing}"


@pytest.mark.parametrize("folder,exp", _params(with_bug_marks=False))
def test_expect_file_is_well_formed(folder, exp):
    assert set(exp) <= {"code", "file", "line", "column", "severity", "also", "note", "bug"}, exp
    assert re.fullmatch(r"RS\d{3}", exp["code"])
    assert isinstance(exp["line"], int) and exp["line"] >= 0
    assert (folder / exp["file"]).exists(), f"{exp['file']} does not exist in {folder.name}"
    assert (folder / "pack.yaml").is_file() or exp["code"] == "RS020"


@pytest.mark.parametrize("folder,exp", _params(with_bug_marks=True))
def test_broken_pack_reports_code_at_position(folder, exp, terminal_names):
    report = _validate(folder)
    want_sev = exp.get("severity", "error")
    hits = [d for d in report.diagnostics
            if d.code == exp["code"]
            and Path(d.span.file).as_posix().endswith(exp["file"])
            and d.span.line == exp["line"]
            and ("column" not in exp or d.span.column == exp["column"])]
    where = f"{exp['file']}:{exp['line']}" + (f":{exp['column']}" if "column" in exp else "")
    assert hits, f"expected {exp['code']} at {where}; got:\n{_show(report.diagnostics, folder)}"
    assert any(d.severity == want_sev for d in hits), f"expected severity {want_sev}:\n{_show(hits, folder)}"
    if want_sev == "error":
        assert report.errors
    for d in report.diagnostics:
        assert not _raw_terminals(d, terminal_names), f"raw grammar terminal name in:\n{d.render()}"
        assert d.message and d.span.file


@pytest.mark.parametrize("folder,exp", _params(with_bug_marks=False))
def test_broken_pack_has_one_problem(folder, exp):
    """One problem per case: no diagnostic with another code (unless listed in `also`)."""
    report = _validate(folder, exp.get("bug", ""))
    allowed = {exp["code"], *exp.get("also", [])}
    others = [d for d in report.diagnostics if d.code not in allowed]
    assert not others, f"unexpected extra diagnostics:\n{_show(others, folder)}"


@pytest.mark.parametrize("folder,exp", _params(with_bug_marks=False))
def test_every_diagnostic_renders(folder, exp):
    """render() and to_json() work for every diagnostic (no exception, JSON-able)."""
    for d in _validate(folder, exp.get("bug", "")).diagnostics:
        assert d.code in d.render()
        json.dumps(d.to_json())


# ------------------------------------------------------------------ the valid packs
@pytest.mark.parametrize("name", VALID_PACKS)
def test_valid_pack_is_clean(name):
    report = _validate(PACKS / name)
    assert report.pack is not None
    assert report.errors == [], _show(report.errors)
    assert report.warnings == [], _show(report.warnings)


def test_minimal_pack_contents():
    """The minimal pack stays representative: the kinds the broken cases rely on."""
    pack = _validate(PACKS / "minimal").pack
    assert pack.id == "minimal"
    kinds = {k for (k, _) in pack.decls}
    assert {"symbol", "action", "card", "component", "game", "scoring", "end_condition", "track"} <= kinds
    assert len(pack.of_kind("action")) == 2
    assert "map" not in pack.data


def test_overlay_pack_applies():
    pack = _validate(PACKS / "minimal_overlay").pack
    assert pack.chain == ["minimal", "minimal_overlay"]
    assert pack.get("end_condition", "last_year") is None
    assert pack.get("symbol", "ship") is not None
    assert pack.data["tracks"].data["tracks"]["patronage"]["max_steps_per_year"] == 2


def test_missing_pack_is_rs020_not_an_exception(tmp_path):
    report = _validate(tmp_path / "no_such_pack")
    assert [d.code for d in report.errors] == ["RS020"]
    assert report.pack is None


def test_folder_without_manifest_is_rs020(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "a.rules").write_text("symbol crown {}\n", encoding="utf-8")
    report = _validate(tmp_path)
    assert [d.code for d in report.errors] == ["RS020"]


# ------------------------------------------------------------------ the command line
def _cli(*args):
    return run_cli(*args, cwd=REPO)          # in process (tests/cli_run.py)


def _no_traceback(proc):
    assert "Traceback (most recent call last)" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_cli_minimal_exit_0():
    proc = _cli("validate", PACKS / "minimal", "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 error(s), 0 warning(s)" in proc.stdout
    _no_traceback(proc)


def test_cli_broken_exit_1_with_position():
    folder = BROKEN / "rs105_unknown_symbol_in_cost"
    proc = _cli("validate", folder)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "more.rules:3:11: error RS105" in proc.stdout
    assert "^^^^^" in proc.stdout            # the caret under 'florn'
    _no_traceback(proc)


def test_cli_several_packs_one_broken_exit_1():
    proc = _cli("validate", PACKS / "minimal", BROKEN / "rs108_remove_missing")
    assert proc.returncode == 1
    _no_traceback(proc)


def test_cli_missing_pack_exit_1():
    proc = _cli("validate", PACKS / "no_such_pack_here")
    assert proc.returncode == 1
    assert "RS020" in proc.stdout
    _no_traceback(proc)


@pytest.mark.parametrize("args", [["validate", "--bogus"], ["validate", "--format", "xml"], ["frobnicate"], []])
def test_cli_usage_error_exit_2(args):
    proc = _cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "usage:" in proc.stderr
    _no_traceback(proc)


def test_cli_json_format():
    folder = BROKEN / "rs105_unknown_symbol_in_cost"
    proc = _cli("validate", folder, "--format", "json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["errors"] == 1 and data["warnings"] == 0
    [d] = data["diagnostics"]
    assert d["code"] == "RS105" and d["severity"] == "error"
    assert d["file"].endswith("rules/more.rules") and (d["line"], d["column"]) == (3, 11)
    assert "florn" in d["message"] and "crown" not in d["message"]


def test_cli_json_format_clean_pack():
    proc = _cli("validate", PACKS / "minimal", "--format", "json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["diagnostics"] == []


def test_cli_json_format_several_packs_is_a_list():
    proc = _cli("validate", PACKS / "minimal", BROKEN / "rs200_unused_action", "--format", "json")
    data = json.loads(proc.stdout)
    assert isinstance(data, list) and len(data) == 2
    assert data[1]["warnings"] == 1 and data[1]["diagnostics"][0]["code"] == "RS200"


def test_cli_github_format():
    folder = BROKEN / "rs105_unknown_symbol_in_cost"
    proc = _cli("validate", folder, "--format", "github")
    assert proc.returncode == 1
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("::")]
    assert len(lines) == 1, proc.stdout
    m = re.fullmatch(r"::error file=(.+),line=(\d+),col=(\d+)::(RS\d{3}) .*", lines[0])
    assert m, lines[0]
    assert m.group(1).endswith("rules/more.rules")
    assert (m.group(2), m.group(3), m.group(4)) == ("3", "11", "RS105")


def test_cli_github_format_warning_and_strict():
    folder = BROKEN / "rs200_unused_procedure"
    proc = _cli("validate", folder, "--format", "github")
    assert proc.returncode == 0
    assert re.search(r"^::warning file=.+more\.rules,line=1,col=11::RS200 ", proc.stdout, re.M), proc.stdout
    proc = _cli("validate", folder, "--format", "github", "--strict")
    assert proc.returncode == 1
    assert re.search(r"^::error file=.+more\.rules,line=1,col=11::RS200 ", proc.stdout, re.M), proc.stdout


def test_cli_strict_turns_warning_into_failure():
    folder = BROKEN / "rs200_unused_procedure"
    report = _validate(folder)
    assert report.errors == [] and [d.code for d in report.warnings] == ["RS200"]
    plain = _cli("validate", folder)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "0 error(s), 1 warning(s) — ok" in plain.stdout
    strict = _cli("validate", folder, "--strict")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "FAILED" in strict.stdout


def test_cli_syntax_error_text_has_hint_without_terminal_names(terminal_names):
    proc = _cli("validate", BROKEN / "rs010_unexpected_token")
    assert proc.returncode == 1
    assert "RS010" in proc.stdout and "hint: expected" in proc.stdout
    for n in terminal_names:
        assert not re.search(r"(?<![A-Za-z0-9_'])" + re.escape(n) + r"(?![A-Za-z0-9_'])", proc.stdout), n


def test_rulespec_error_is_the_only_parser_error():
    """Sanity check for the fuzz tests: a parse error is a RulespecError with a position."""
    from rulespec.parser import parse_rules
    with pytest.raises(RulespecError) as ei:
        parse_rules("card x {\n  pp: (1 +\n}\n", "x.rules")
    d = ei.value.first
    assert d.code == "RS010" and d.span.file == "x.rules" and d.span.line == 3 and d.span.column >= 1


def test_cli_github_format_without_position():
    """A diagnostic with no position (a pack that was not found) gives file only, no line=0."""
    proc = _cli("validate", PACKS / "no_such_pack_here", "--format", "github")
    assert proc.returncode == 1
    [line] = [ln for ln in proc.stdout.splitlines() if ln.startswith("::")]
    assert re.fullmatch(r"::error file=[^,:]+::RS020 .*", line), line
    _no_traceback(proc)


def test_cli_github_format_unreadable_file_is_at_1_1():
    proc = _cli("validate", BROKEN / "rs003_yaml_path_is_a_folder", "--format", "github")
    assert re.search(r"^::error file=.+extra\.yaml,line=1,col=1::RS003 ", proc.stdout, re.M), proc.stdout


# ------------------------------------------------------------------ positions in YAML data
def test_patch_spans_follow_the_merged_paths():
    """Values from a NAME.patch.yaml point into the patch at their merged index (a removal
    before them shifts the index); untouched values keep the base file's positions."""
    from rulespec.yamldata import load_yaml_text
    from rulespec.pack import merge_yaml_docs
    base = load_yaml_text("cities:\n  - id: a\n    value: 1\n  - id: b\n    value: 2\n  - id: c\n    value: 3\n",
                          "base.yaml")
    patch = load_yaml_text("cities:\n  $remove: [a]\n  $merge:\n    - id: c\n      value: 4\n  $append:\n"
                           "    - id: d\n      value: 5\n", "p.yaml")
    m = merge_yaml_docs(base, patch)
    assert [c["id"] for c in m.data["cities"]] == ["b", "c", "d"]
    assert [c["value"] for c in m.data["cities"]] == [2, 4, 5]
    where = {i: (m.span(("cities", i, "value")).file, m.span(("cities", i, "value")).line) for i in range(3)}
    assert where == {0: ("base.yaml", 5), 1: ("p.yaml", 5), 2: ("p.yaml", 8)}
    assert m.source_line(m.span(("cities", 1, "value"))) == "      value: 4"
    assert m.source_line(m.span(("cities", 0, "value"))) == "    value: 2"


@pytest.mark.parametrize("cost", [
    pytest.param("cost: 2 florin + 1 crwn", id="plain"),
    pytest.param("cost: '2 florin + 1 crwn'", id="single-quoted"),
    pytest.param('cost: "2 \\x66lorin + 1 crwn"', id="double-quoted-escape"),
    pytest.param("cost: |\n  2 florin +\n    1 crwn", id="literal"),
    pytest.param("cost: >-\n  2 florin +\n  1 crwn", id="folded"),
    pytest.param("cost: 2 florin +\n  1 crwn", id="plain-two-lines"),
    pytest.param("cost: \"2 florin +\\\n  \\ 1 crwn\"", id="double-quoted-continued"),
])
def test_dsl_in_yaml_is_positioned_where_written(make_pack, cost):
    """A DSL formula in YAML is reported where its words are written, whatever the scalar style."""
    more = ("tracks:\n  t:\n    name: T\n    spaces:\n      - points: 1\n        "
            + cost.replace("\n", "\n        ") + "\n")
    folder = make_pack("p", {
        "pack.yaml": "id: p\nname: P\nversion: 1.0.0\nextends: %s\n" % (PACKS / "minimal").as_posix(),
        "more.yaml": more,
    })
    [(line, text)] = [(i, t) for i, t in enumerate(more.split("\n"), 1) if "crwn" in t]
    report = _validate(folder)
    hits = [d for d in report.diagnostics if d.code == "RS105" and "crwn" in d.message]
    assert hits, _show(report.diagnostics, folder)
    assert (hits[0].span.line, hits[0].span.column) == (line, text.index("crwn") + 1), hits[0].render()
    assert hits[0].source_line == text
    assert report.diagnostics == hits, _show(report.diagnostics, folder)
