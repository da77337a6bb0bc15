"""Language versions (pack.yaml `language:`) and `rulespec migrate` (rulespec/migrate.py).

Today the language has one version, so the rewrite registry is empty and every pack is up to
date. The tests of the registry register fake rewrites and pretend that versions 2 and 3
exist (`later_languages`), which is exactly what a stage of issue 16 will do for real.
"""
from __future__ import annotations

import copy
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from rulespec import migrate, schema
from rulespec import pack as packmod
from rulespec.cli import main
from rulespec.errors import Diagnostic, Span
from rulespec.pack import bundled_packs, load_pack_collecting

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"


def write_pack(folder: Path, files: dict) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return folder


def manifest(pid: str, language=None, extends=None) -> str:
    lines = [f"id: {pid}", f"name: {pid.title()}", "version: 1.0.0"]
    lines += [f"language: {language}"] if language is not None else []
    lines += [f"extends: {extends}"] if extends else []
    return "\n".join(lines) + "\n"


@pytest.fixture
def later_languages(monkeypatch):
    """As if the language had versions 1, 2 and 3 (the schema and the loader agree)."""
    original = schema.load_schema

    def load(name):
        s = original(name)
        if name == "pack":
            s = copy.deepcopy(s)
            s["properties"]["language"]["enum"] = [1, 2, 3]
        return s
    monkeypatch.setattr(schema, "load_schema", load)
    monkeypatch.setattr(packmod, "LANGUAGES", (1, 2, 3))
    monkeypatch.setattr(migrate, "REWRITES", [])


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ language:
@pytest.mark.parametrize("value, words", [
    ("two", "wrong type"), ("1.5", "wrong type"), ("true", "wrong type"), ("[1]", "wrong type"),
    ("0", "no language 0"), ("-1", "no language -1"), ("2", "newer than this rulespec reads"),
    ("2.0", "language 2, newer"),
])
def test_a_bad_language_is_rs020_at_its_line(tmp_path, value, words):
    write_pack(tmp_path, {"pack.yaml": manifest("p", value)})
    pack, errors = load_pack_collecting(tmp_path)
    assert pack is None
    assert [(d.code, d.span.line, d.span.column) for d in errors] == [("RS020", 4, 11)]
    assert words in errors[0].message and "language" in errors[0].message
    assert errors[0].hint and errors[0].source_line == f"language: {value}"


@pytest.mark.parametrize("value, language", [(None, 1), ("1", 1), ("1.0", 1)])
def test_the_language_of_a_pack(tmp_path, value, language):
    write_pack(tmp_path, {"pack.yaml": manifest("p", value)})
    pack, errors = load_pack_collecting(tmp_path)
    assert errors == [] and pack.language == language and type(pack.language) is int


def test_other_manifest_errors_are_not_about_the_language(tmp_path):
    write_pack(tmp_path, {"pack.yaml": "name: P\nversion: 1.0.0\n"})
    _, errors = load_pack_collecting(tmp_path)
    assert [d.code for d in errors] == ["RS020"] and "missing required field 'id'" in errors[0].message


def test_the_schema_lists_the_languages_the_loader_reads():
    assert schema.load_schema("pack")["properties"]["language"]["enum"] == list(packmod.LANGUAGES)
    assert packmod.DEFAULT_LANGUAGE == min(packmod.LANGUAGES)


def test_an_overlay_below_its_base_is_an_error(tmp_path, later_languages):
    write_pack(tmp_path, {"base/pack.yaml": manifest("base", 2), "over/pack.yaml": manifest("over", 1, extends="base")})
    pack, errors = load_pack_collecting(tmp_path / "over", [tmp_path / "base"])
    assert [(d.code, Path(d.span.file).parent.name, d.span.line) for d in errors] == [("RS020", "over", 4)]
    assert "language 1" in errors[0].message and "'base'" in errors[0].message and "language 2" in errors[0].message
    assert "rulespec migrate over" in errors[0].hint


@pytest.mark.parametrize("over, base, expected", [(None, 2, 2), (3, 2, 3), (None, None, 1), (2, None, 2)])
def test_an_overlay_takes_its_base_language_or_a_newer_one(tmp_path, later_languages, over, base, expected):
    write_pack(tmp_path, {"base/pack.yaml": manifest("base", base), "over/pack.yaml": manifest("over", over, extends="base")})
    pack, errors = load_pack_collecting(tmp_path / "over", [tmp_path / "base"])
    assert errors == [] and pack.language == expected


# ------------------------------------------------------------------ migrate, today
UP_TO_DATE = sorted(bundled_packs()) + [str(PACKS / n) for n in ("minimal", "minimal_overlay", "minimal_map")] + \
    sorted(str(p.parent) for p in (PACKS / "variants").glob("*/pack.yaml"))


@pytest.mark.parametrize("ref", UP_TO_DATE, ids=lambda r: Path(r).name)
def test_every_pack_we_ship_has_nothing_to_migrate(capsys, ref):
    folder = bundled_packs().get(ref) or Path(ref)
    pid = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))["id"]
    # each load costs a second or two: --check on every pack, the plain command on the bundled ones
    for flags in [("--check",)] + ([()] if ref in bundled_packs() else []):
        code, out, err = run_cli(capsys, "migrate", ref, *flags)
        assert (code, out, err) == (0, f"{pid} is written for language 1: nothing to migrate\n", "")


def test_migrate_on_a_bad_pack_is_a_positioned_error(tmp_path, capsys):
    write_pack(tmp_path, {"pack.yaml": manifest("p", "two")})
    code, out, err = run_cli(capsys, "migrate", str(tmp_path))
    assert code == 1 and out == ""
    assert f"{tmp_path / 'pack.yaml'}:4:11: error RS020" in err and "whole number" in err
    code, out, err = run_cli(capsys, "migrate", "no_such_pack")
    assert code == 1 and "<command line>:1:9: error RS020: no pack 'no_such_pack' found" in err


@pytest.mark.parametrize("argv, words", [((), "required: PACK"),
                                         (("base_3to5", "--check", "--write"), "not allowed with argument")])
def test_migrate_needs_a_pack_and_one_mode(capsys, argv, words):
    with pytest.raises(SystemExit) as e:
        main(["migrate", *argv])
    assert e.value.code == 2 and words in capsys.readouterr().err


# ------------------------------------------------------------------ the rewrite registry
def _add_line(line):
    def apply(m):
        m.write("rules/a.rules", m.read("rules/a.rules") + line + "\n")
    return apply


def test_the_registry_applies_its_rewrites_in_order(tmp_path, capsys, later_languages, monkeypatch):
    folder = write_pack(tmp_path / "p", {
        "pack.yaml": "# my pack\nid: p\nname: P\nversion: 1.0.0   # kept\nplayers: [3]\n",
        "rules/a.rules": "# a comment that must survive\n",
    })
    seen = []

    def two_to_three(m):        # runs second: sees the first step's edit and its language
        seen.append((m.read("rules/a.rules").splitlines()[-1], m.read("pack.yaml").count("language: 2")))
        _add_line("# step 2 -> 3")(m)
    # registered out of order: the steps follow the versions, not the list
    monkeypatch.setattr(migrate, "REWRITES", [migrate.Rewrite(2, 3, two_to_three, "the second step"),
                                              migrate.Rewrite(1, 2, _add_line("# step 1 -> 2"), "the first step")])
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    code, out, err = run_cli(capsys, "migrate", str(folder))        # prints the diff, writes nothing
    assert (code, err) == (0, "") and seen == [("# step 1 -> 2", 1)]
    assert out.index("1 -> 2: the first step") < out.index("2 -> 3: the second step")
    assert "+language: 3" in out and "+# step 2 -> 3" in out and "2 file(s) would change" in out
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before

    assert run_cli(capsys, "migrate", str(folder), "--check")[0] == 1
    code, out, err = run_cli(capsys, "migrate", str(folder), "--write")
    assert (code, err) == (0, "") and "wrote 2 file(s)" in out
    assert (folder / "pack.yaml").read_text() == "# my pack\nid: p\nname: P\nversion: 1.0.0   # kept\nlanguage: 3\nplayers: [3]\n"
    assert (folder / "rules/a.rules").read_text() == "# a comment that must survive\n# step 1 -> 2\n# step 2 -> 3\n"
    # a second run has nothing to do
    assert run_cli(capsys, "migrate", str(folder), "--check") == (0, "p is written for language 3: nothing to migrate\n", "")


def test_a_pack_starts_at_its_own_language(tmp_path, capsys, later_languages, monkeypatch):
    folder = write_pack(tmp_path / "p", {"pack.yaml": manifest("p", 2), "rules/a.rules": ""})
    monkeypatch.setattr(migrate, "REWRITES", [migrate.Rewrite(1, 2, _add_line("# 1"), "one"),
                                              migrate.Rewrite(2, 3, _add_line("# 2"), "two")])
    code, out, _ = run_cli(capsys, "migrate", str(folder), "--write")
    assert code == 0 and "one" not in out and (folder / "rules/a.rules").read_text() == "# 2\n"
    assert "language: 3\n" in (folder / "pack.yaml").read_text() and "language: 2" not in (folder / "pack.yaml").read_text()


def test_what_a_rewrite_cannot_do_is_reported_at_its_place(tmp_path, capsys, later_languages, monkeypatch):
    folder = write_pack(tmp_path / "p", {"pack.yaml": manifest("p")})

    def refuse(m):
        m.cannot(Diagnostic("RS105", "begin_phase is no longer a verb", Span(str(folder / "pack.yaml"), 2, 1),
                            "write the phase as a `phase` block"))
    monkeypatch.setattr(migrate, "REWRITES", [migrate.Rewrite(1, 2, refuse, "refuses"),
                                              migrate.Rewrite(2, 3, lambda m: None, "does nothing")])
    code, out, err = run_cli(capsys, "migrate", str(folder))
    assert code == 1 and f"{folder / 'pack.yaml'}:2:1: error RS105: begin_phase" in err and "by hand" in err


def test_a_gap_in_the_registry_is_a_bug_of_rulespec(later_languages, monkeypatch):
    monkeypatch.setattr(migrate, "REWRITES", [migrate.Rewrite(2, 3, lambda m: None, "")])
    assert [s.target for s in migrate.steps(2)] == [3] and migrate.steps(3) == []
    with pytest.raises(AssertionError, match="no step from language 1"):
        migrate.steps(1)


def test_the_registry_reaches_the_newest_language():
    """The real registry: a step from every version but the newest (none today)."""
    for v in packmod.LANGUAGES:
        assert [s.target for s in migrate.steps(v)][-1:] in ([max(packmod.LANGUAGES)], [])


@pytest.mark.parametrize("text, expected", [
    ("id: p\nversion: 1.0.0\n", "id: p\nversion: 1.0.0\nlanguage: 2\n"),
    ("id: p\nversion: 1.0.0", "id: p\nversion: 1.0.0\nlanguage: 2\n"),
    ("id: p\r\nversion: 1.0.0\r\nname: P\r\n", "id: p\r\nversion: 1.0.0\r\nlanguage: 2\r\nname: P\r\n"),
    ("id: p\nlanguage: 1   # old\nversion: 1\n", "id: p\nlanguage: 2   # old\nversion: 1\n"),
    ("id: p\nname: P\n", "id: p\nname: P\nlanguage: 2\n"),
])
def test_set_language_edits_the_text(text, expected):
    assert migrate.set_language(text, 2) == expected


def test_migrate_rewrites_only_the_pack_s_own_files(tmp_path, later_languages, monkeypatch):
    """An overlay's migration sees its own files (scenarios included), not its base's."""
    folder = tmp_path / "over"
    shutil.copytree(PACKS / "minimal", tmp_path / "minimal")
    write_pack(folder, {"pack.yaml": manifest("over", extends="minimal"), "rules/x.rules": "",
                        "scenarios/s.yaml": "name: s\n", "notes/n.txt": "not read"})
    listed = []
    monkeypatch.setattr(migrate, "REWRITES", [migrate.Rewrite(1, 3, lambda m: listed.extend(m.files()), "lists")])
    m, todo = migrate.migrate(folder, [tmp_path / "minimal"])
    assert listed == ["pack.yaml", "rules/x.rules", "scenarios/s.yaml"] and m.changed() == ["pack.yaml"]
