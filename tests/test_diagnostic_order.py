"""Diagnostics ordered by cause (docs/validator.md, "Findings ordered by cause"): a file that
fails to load is reported first, and the findings that follow from it are counted under it
(text), left out (github) or linked to it by `caused_by` (json). Also: two values side by side
in a field are said at the second one (RS010), and what an overlay's `remove` left unused is
said (RS202)."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from content import PACKS_DIR
from rulespec.cli import main
from validator.static import validate_pack

BASE = PACKS_DIR / "base_3to5"


def _run(capsys, *args):
    code = main(["validate", *map(str, args)])
    out = capsys.readouterr().out
    assert "Traceback" not in out
    return code, out


def _json(capsys, *args):
    code, out = _run(capsys, *args, "--format", "json")
    return code, json.loads(out)


def _first_finding(text: str) -> str:
    return text.splitlines()[0]


def _break_once(path, old: str, new: str):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def setup_one_space(tmp_path_factory):
    """A copy of the base pack whose setup.yaml has one line of the `colours:` list indented by
    one space too many: the file no longer parses, so no colour is declared."""
    folder = tmp_path_factory.mktemp("yaml") / "base_copy"
    shutil.copytree(BASE, folder)
    _break_once(folder / "setup.yaml", "  - id: blue\n    name: Blue\n", "  - id: blue\n     name: Blue\n")
    return folder


@pytest.fixture(scope="module")
def rules_syntax_error(tmp_path_factory):
    """A copy of the base pack with a syntax error in notables.rules (two fields on one line)."""
    folder = tmp_path_factory.mktemp("rules") / "base_copy"
    shutil.copytree(BASE, folder)
    _break_once(folder / "rules" / "notables.rules", "  copies: 5\n", "  copies: 5 cost: 4 florin\n")
    return folder


# ------------------------------------------------------------------ a YAML file that does not parse
def test_yaml_error_is_printed_first_with_the_cascade_counted(capsys, setup_one_space):
    code, data = _json(capsys, setup_one_space)
    assert code == 1
    diags = data["diagnostics"]
    root = diags[0]
    assert root["code"] == "RS001" and root["file"].endswith("setup.yaml") and root["caused_by"] is None
    caused = [d for d in diags if d["caused_by"] is not None]
    # every colour reference of the rules is dangling: the cascade, all linked to the RS001
    assert len(caused) == len(diags) - 1 and len(caused) > 10
    assert all(d["caused_by"] == {k: root[k] for k in ("code", "file", "line", "column")} for d in caused)
    assert {d["code"] for d in caused} == {"RS105"}
    assert all(re.fullmatch(r"no colour named '\w+'", d["message"]) for d in caused)

    code, text = _run(capsys, setup_one_space)
    assert code == 1
    assert re.match(rf"{re.escape(root['file'])}:{root['line']}:{root['column']}: error RS001: YAML syntax error",
                    _first_finding(text))
    assert f"    ... and {len(caused)} more errors caused by this (run with --all to see them)" in text
    assert "RS105" not in text                                   # the cascade is counted, not printed
    assert f": {len(diags)} error(s), 0 warning(s) — FAILED" in text    # the summary counts them all


def test_all_prints_the_cascade_after_its_cause(capsys, setup_one_space):
    _, data = _json(capsys, setup_one_space)
    root = data["diagnostics"][0]
    code, text = _run(capsys, setup_one_space, "--all")
    assert code == 1
    assert "error RS001" in _first_finding(text)
    n = len(data["diagnostics"]) - 1
    assert text.count("error RS105: no colour named") == n
    assert text.count(f"    caused by: the RS001 at {root['file']}:{root['line']}:{root['column']}") == n
    assert "more errors caused by this" not in text
    assert text.index("error RS001") < text.index("error RS105")


def test_github_prints_only_the_root_cause(capsys, setup_one_space):
    code, out = _run(capsys, setup_one_space, "--format", "github")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("::error file=") and "RS001" in lines[0]
    assert re.search(r"\(and \d+ more errors caused by this: see them with --all\)$", lines[0])
    _, every = _run(capsys, setup_one_space, "--format", "github", "--all")
    assert len(every.splitlines()) > 10 and "RS105" in every


def test_an_unrelated_error_is_not_hidden_by_the_failed_file(capsys, tmp_path):
    """Only findings about names the failed file mentions are its consequences: a typo elsewhere
    stays a root cause of its own, printed in full."""
    folder = tmp_path / "base_copy"
    shutil.copytree(BASE, folder)
    _break_once(folder / "setup.yaml", "  - id: blue\n    name: Blue\n", "  - id: blue\n     name: Blue\n")
    _break_once(folder / "rules" / "notables.rules", "  action: scheme @", "  action: shceme @")
    code, data = _json(capsys, folder)
    assert code == 1
    roots = [d for d in data["diagnostics"] if d["caused_by"] is None]
    assert [d["code"] for d in roots] == ["RS001", "RS105"]          # load error first, then the typo
    assert "shceme" in roots[1]["message"] and roots[1]["file"].endswith("notables.rules")
    _, text = _run(capsys, folder)
    assert "error RS105: no action named 'shceme'" in text
    assert "no colour named" not in text
    assert text.index("error RS001") < text.index("error RS105")


# ------------------------------------------------------------------ a .rules file that does not parse
def test_rules_syntax_error_is_printed_before_the_count_it_breaks(capsys, rules_syntax_error):
    code, data = _json(capsys, rules_syntax_error)
    assert code == 1
    root, *rest = data["diagnostics"]
    assert root["code"] == "RS011" and root["file"].endswith("notables.rules") and root["caused_by"] is None
    counts = [d for d in rest if d["code"] == "RS130"]
    assert counts, "the notable cards are not declared: the box count is off"
    assert all(d["caused_by"] == {k: root[k] for k in ("code", "file", "line", "column")} for d in counts)

    code, text = _run(capsys, rules_syntax_error)
    assert "error RS011" in _first_finding(text)
    assert "RS130" not in text
    assert f"... and {len(rest)} more error{'s' if len(rest) > 1 else ''} caused by this" in text


def test_validate_pack_orders_load_errors_first(rules_syntax_error):
    """The API report is in the printed order too, load errors first (before an RS130 of a file
    sorted earlier by name)."""
    report = validate_pack(rules_syntax_error)
    assert report.diagnostics[0].code == "RS011"
    assert all(d.caused_by is report.diagnostics[0] for d in report.diagnostics[1:])


def test_a_warning_can_follow_from_a_failed_file(capsys, make_pack):
    """An RS200 (nothing uses the procedure) whose only use is in a file that does not parse is
    counted under that file's error, as a warning."""
    folder = make_pack("pearls_broken", {
        "pack.yaml": 'id: pearls_broken\nname: P\nversion: "1"\nextends: base_3to5\n',
        "rules/a.rules": "procedure surface {\n  effect: { gain(florin, 1) }\n}\n",
        "rules/b.rules": "action dive {\n  effect: { run(surface) \n}\n",       # a } is missing
    })
    code, data = _json(capsys, folder)
    root, *rest = data["diagnostics"]
    assert root["code"] == "RS010" and root["file"].endswith("b.rules")
    assert [(d["code"], d["severity"]) for d in rest] == [("RS200", "warning")]
    assert rest[0]["caused_by"]["file"] == root["file"]
    _, text = _run(capsys, folder)
    assert "... and 1 more warning caused by this" in text and "RS200" not in text


# ------------------------------------------------------------------ two values side by side
@pytest.mark.parametrize("after", ["  pp: 1\n}\n", "}\n", "\n  # a comment\n  pp: 1\n}\n"])
def test_two_symbols_side_by_side_are_said_at_the_second(make_pack, after):
    folder = make_pack("bottoms", {
        "pack.yaml": 'id: bottoms\nname: B\nversion: "1"\nextends: base_3to5\n',
        "rules/x.rules": "card pearl_diver {\n  type: notable\n  copies: 0\n  cost: 2 florin\n"
                         "  bottom: florin florin\n" + after,
    })
    report = validate_pack(folder)
    [d] = report.errors
    assert d.code == "RS010"
    assert (d.span.line, d.span.column, d.span.end_column) == (5, 18, 24)     # the second 'florin'
    assert d.source_line == "  bottom: florin florin"
    assert "`bottom: florin + florin`" in d.hint and "`bottom: florin | florin`" in d.hint
    assert "`2 florin`" in d.hint


def test_a_missing_plus_between_quantities_keeps_its_own_message(make_pack):
    """The parser already stops at the second quantity: that message is unchanged."""
    folder = make_pack("costs", {
        "pack.yaml": 'id: costs\nname: C\nversion: "1"\nextends: base_3to5\n',
        "rules/x.rules": "card c {\n  type: notable\n  copies: 0\n  cost: 5 florin 1 crown\n}\n",
    })
    [d] = validate_pack(folder).errors
    assert d.code == "RS010" and d.message == "unexpected '1 crown'" and (d.span.line, d.span.column) == (4, 18)


# ------------------------------------------------------------------ what a `remove` leaves unused
PEARLS = {
    "pearls/pack.yaml": 'id: pearls\nname: Pearls\nversion: "1"\nextends: base_3to5\n',
    "pearls/rules/dive.rules": """\
        symbol pearl "Pearl" {
          usable_in: []
        }

        procedure surface {
          effect: { gain(florin, 1) }
        }

        action dive "Dive" {
          effect: {
            pay 1 pearl
            run(surface)
          }
        }

        modify card merchant { action: dive }
        """,
}


def test_remove_action_warns_about_what_it_left_unused(make_pack):
    root = make_pack("packs", {**PEARLS,
                               "no_dive/pack.yaml": 'id: no_dive\nname: N\nversion: "1"\nextends: pearls\n',
                               "no_dive/rules/x.rules": "modify card merchant { action: trade }\nremove action dive\n"})
    assert validate_pack(root / "pearls", [root]).diagnostics == []      # used by dive: nothing to say
    report = validate_pack(root / "no_dive", [root])
    assert report.errors == []
    found = {(d.code, d.message.split("'")[1]): d for d in report.warnings}
    assert set(found) == {("RS202", "pearl"), ("RS202", "surface")}     # no RS200 for surface as well
    pearl = found[("RS202", "pearl")]
    assert pearl.message.startswith("symbol 'pearl' is no longer used: its last use was in action 'dive'")
    assert f"`remove action dive` at {root / 'no_dive' / 'rules' / 'x.rules'}:2:15" in pearl.message
    assert pearl.span.file == str(root / "pearls" / "rules" / "dive.rules") and pearl.span.line == 1
    assert found[("RS202", "surface")].span.line == 5
    assert "`remove symbol pearl`" in pearl.hint


def test_a_reference_to_a_removed_declaration_names_the_remove(make_pack):
    root = make_pack("packs", {**PEARLS,
                               "no_dive/pack.yaml": 'id: no_dive\nname: N\nversion: "1"\nextends: pearls\n',
                               "no_dive/rules/x.rules": "remove action dive\n"})
    [d] = validate_pack(root / "no_dive", [root]).errors
    assert d.code == "RS105" and d.message == "no action named 'dive'"
    assert d.hint.startswith(f"action 'dive' was removed by `remove action dive` at "
                             f"{root / 'no_dive' / 'rules' / 'x.rules'}:1:15")
