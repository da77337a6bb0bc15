"""Language versions (pack.yaml `language:`) and `rulespec migrate` (rulespec/migrate.py).

The language has two versions: 1, the language before versions existed, and 2, where the
built-ins that were Virtù's rules became declarations of the base pack (issue 16). The tests of
the registry register fake rewrites and pretend that a version 3 exists (`later_languages`); the
tests of the real 1 -> 2 step migrate language-1 packs written here.
"""
from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from rulespec import migrate, schema
from rulespec import pack as packmod
from rulespec.cli import main

from conftest import write_pack
from rulespec.errors import Diagnostic, Span
from rulespec.pack import bundled_packs, load_pack_collecting

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"




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
    ("0", "no language 0"), ("-1", "no language -1"), ("3", "newer than this rulespec reads"),
    ("3.0", "language 3, newer"),
])
def test_a_bad_language_is_rs020_at_its_line(tmp_path, value, words):
    write_pack(tmp_path, {"pack.yaml": manifest("p", value)})
    pack, errors = load_pack_collecting(tmp_path)
    assert pack is None
    assert [(d.code, d.span.line, d.span.column) for d in errors] == [("RS020", 4, 11)]
    assert words in errors[0].message and "language" in errors[0].message
    assert errors[0].hint and errors[0].source_line == f"language: {value}"


@pytest.mark.parametrize("value, language", [(None, 1), ("1", 1), ("1.0", 1), ("2", 2)])
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


# ------------------------------------------------------------------ the packs we ship
SHIPPED = sorted(bundled_packs()) + sorted(str(p.parent) for p in (PACKS / "variants").glob("*/pack.yaml")) + \
    sorted(str(p.parent) for p in (ROOT / "content" / "examples").glob("*/pack.yaml")) + \
    [str(PACKS / n) for n in ("minimal", "minimal_overlay", "minimal_map", "race", "oracle_duel", "sides_min")]


@pytest.mark.parametrize("ref", SHIPPED, ids=lambda r: Path(r).name)
def test_every_pack_we_ship_is_written_for_language_2(capsys, ref):
    """Migrated by `rulespec migrate --write` (the commit after the tool's): each says
    `language: 2` itself, and migrating it again has nothing to do."""
    folder = bundled_packs().get(ref) or Path(ref)
    manifest_data = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    assert manifest_data["language"] == max(packmod.LANGUAGES) == 2
    # a pack at the newest language has no step to run (test_the_registry_reaches_the_newest_language);
    # the command itself on the bundled packs and one overlay (each load costs a few seconds)
    if ref in bundled_packs() or Path(ref).name == "five_years":
        for flags in [("--check",), ()]:
            code, out, err = run_cli(capsys, "migrate", ref, "--pack-path", str(PACKS), *flags)
            assert (code, out, err) == (0, f"{manifest_data['id']} is written for language 2: nothing to migrate\n", "")


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


# ------------------------------------------------------------------ language 1 -> 2
LANGUAGE_1_RULES = """\
# Rules written for language 1: built-ins that language 2 writes with its own words.
table bonus_by_roads "Bonus by roads" {
  rows: [[0, 1], [1, 2], [2, 4], [3, 6]]
}
formula near(a: city, b: city) "Near" { value: road_distance(a, b) <= 2 and not adjacent_by_road(a, b) }
formula bonus(c: city) "Bonus" {
  value: lookup(bonus_by_roads, count(road_neighbours(c)))   # a call inside a call
}
formula coast(c: city) "Coast" { value: count(seas_of(c)) + (if is_port(c) then 1 else 0) }
"""

MIGRATED_RULES = """\
# Rules written for language 1: built-ins that language 2 writes with its own words.
table bonus_by_roads "Bonus by roads" {
  rows: [[0, 1], [1, 2], [2, 4], [3, 6]]
}
formula near(a: city, b: city) "Near" { value: distance(a, b, via: road) <= 2 and not (b in neighbours(a, via: road)) }
formula bonus(c: city) "Bonus" {
  value: bonus_by_roads(count(neighbours(c, via: road)))   # a call inside a call
}
formula coast(c: city) "Coast" { value: count(neighbours(c, via: coast)) + (if is_port(c) then 1 else 0) }
"""


def language_1_pack(folder: Path, rules: str = LANGUAGE_1_RULES, extends: str = "minimal_map") -> Path:
    return write_pack(folder, {"pack.yaml": manifest(folder.name, extends=extends), "rules/old.rules": rules})


def errors_of(ref, search=(PACKS,)):
    from validator.static import validate_pack
    return [(d.code, d.span.line, d.span.column, d.message) for d in validate_pack(ref, list(search)).errors]


def test_a_language_1_pack_migrates_and_then_validates_clean(tmp_path, capsys):
    folder = language_1_pack(tmp_path / "old")
    before = errors_of(folder)
    assert {(code, line) for code, line, _, _ in before} == {("RS107", 5), ("RS107", 7), ("RS107", 9)}
    assert {msg.split("'")[1] for *_, msg in before} == {"road_distance", "adjacent_by_road", "lookup",
                                                         "road_neighbours", "seas_of"}
    code, out, err = run_cli(capsys, "migrate", str(folder), "--write", "--pack-path", str(PACKS))
    assert (code, err) == (0, "") and "wrote 2 file(s)" in out and "1 -> 2:" in out
    # the minimal pack declares its own is_port: a name the chain declares is the pack's, left alone
    assert (folder / "rules/old.rules").read_text() == MIGRATED_RULES
    assert "language: 2\n" in (folder / "pack.yaml").read_text()
    assert errors_of(folder) == []


def test_migrate_is_idempotent_and_check_says_when_something_would_change(tmp_path, capsys):
    folder = language_1_pack(tmp_path / "old")
    files = lambda: {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    first = files()
    code, out, err = run_cli(capsys, "migrate", str(folder), "--check", "--pack-path", str(PACKS))
    assert (code, err) == (1, "") and "2 file(s) would change: pack.yaml, rules/old.rules" in out
    assert "+  value: bonus_by_roads(count(neighbours(c, via: road)))" in out and files() == first
    assert run_cli(capsys, "migrate", str(folder), "--write", "--pack-path", str(PACKS))[0] == 0
    migrated = files()
    assert run_cli(capsys, "migrate", str(folder), "--check", "--pack-path", str(PACKS)) == \
        (0, "old is written for language 2: nothing to migrate\n", "")
    # the rewrites themselves are idempotent: the migrated rules read as language 1 again
    # migrate to themselves (only the `language:` line comes back)
    (folder / "pack.yaml").write_text(manifest("old", extends="minimal_map"))
    m, _ = migrate.migrate(folder, [PACKS])
    assert m.changed() == ["pack.yaml"] and m.problems == [] and files() != migrated


def test_what_cannot_be_migrated_is_reported_at_its_place_with_what_to_write(tmp_path, capsys):
    rules = """\
formula ranked(p: side) "Ranked" { value: rank(p, [1 for q in players]) }
procedure old_steps "Old steps" {
  effect: {
    begin_phase(spring)
    log("x", lookup(ranked, 1))
  }
}
"""
    folder = language_1_pack(tmp_path / "old", rules)
    code, out, err = run_cli(capsys, "migrate", str(folder), "--pack-path", str(PACKS))
    assert code == 1 and "3 problem(s) left to change by hand" in err
    file = folder / "rules/old.rules"
    rank = next(d for (k, i), d in packmod.load_pack("base_3to5").decls.items() if (k, i) == ("formula", "rank"))
    assert (f"{file}:1:43: error RS107: cannot migrate: 'rank' (a function of language 1) is not a word of "
            f"language 2, and this pack's chain does not declare it") in err
    assert f"`formula rank` (content/base_3to5/rules/scoring.rules:{rank.span.line}): add `extends: base_3to5`" in err
    assert f"{file}:4:5: error RS107: cannot migrate: 'begin_phase'" in err and "play_phase(PHASE)" in err
    # lookup of something that is not a table has no language-2 form to write
    assert f"{file}:5:14: error RS107: cannot migrate: 'lookup'" in err
    assert "+language: 2" in out and "rules/old.rules" not in out       # nothing in the rules could change


def test_an_overlay_of_the_base_pack_keeps_the_names_the_base_declares(tmp_path, capsys):
    """base_3to5 declares road_distance (map.rules) but no lookup: only lookup is rewritten."""
    rules = """\
formula salary_of_two "Salary" { value: lookup(salaries, 2) + road_distance(florence, milan) }
"""
    folder = language_1_pack(tmp_path / "over", rules, extends="base_3to5")
    m, todo = migrate.migrate(folder)
    assert [t.target for t in todo] == [2] and m.problems == []
    assert m.texts["rules/old.rules"] == \
        'formula salary_of_two "Salary" { value: salaries(2) + road_distance(florence, milan) }\n'


def test_every_call_rewrite_is_documented():
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    for r in migrate.CALL_REWRITES:
        assert f"`{r.matches}`" in text and f"`{r.writes}`" in text, r.name


# a Hypothesis property: any nesting of the rewritable calls migrates to a pack that validates,
# and migrating the result again changes nothing
from hypothesis import HealthCheck, given, settings, strategies as st

_CITY = st.sampled_from(["alpha", "beta", "c"])
_INNER = st.recursive(
    _CITY.map(lambda c: ("city", c)),
    lambda sub: st.one_of(
        sub.map(lambda x: ("city", f"first(road_neighbours({x[1]}) + [{x[1]}])") if x[0] == "city" else x),
    ), max_leaves=3)


def _number_expr():
    city = _INNER.map(lambda x: x[1])
    calls = st.one_of(
        st.tuples(city, city).map(lambda ab: f"road_distance({ab[0]}, {ab[1]})"),
        st.tuples(city, city).map(lambda ab: f"(if adjacent_by_road({ab[0]}, {ab[1]}) then 1 else 0)"),
        city.map(lambda c: f"count(seas_of({c}))"),
        city.map(lambda c: f"lookup(bonus_by_roads, count(road_neighbours({c})))"),
    )
    return st.lists(calls, min_size=1, max_size=4).map(" + ".join)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(expr=_number_expr())
def test_property_any_nesting_of_rewritable_calls_migrates_once_and_for_all(tmp_path_factory, expr):
    folder = tmp_path_factory.mktemp("prop") / "p"
    rules = ('table bonus_by_roads "B" { rows: [[0, 1], [1, 2], [2, 4], [3, 6]] }\n'
             'formula first(cs) "The first" { value: cs[0] }\n'
             f'formula f(c: city) "F" {{ value: {expr} }}\n')
    language_1_pack(folder, rules)
    m, _ = migrate.migrate(folder, [PACKS])
    assert m.problems == [] and m.changed() == ["pack.yaml", "rules/old.rules"]
    migrate.write(m)
    assert not any(f"{name}(" in (folder / "rules/old.rules").read_text()
                   for name in ("lookup", "road_distance", "adjacent_by_road", "seas_of", "road_neighbours"))
    assert errors_of(folder) == []
    (folder / "pack.yaml").write_text(manifest("p", extends="minimal_map"))
    again, _ = migrate.migrate(folder, [PACKS])
    assert again.changed() == ["pack.yaml"] and again.problems == []


def test_the_example_of_the_docs_migrates_as_they_say(tmp_path, capsys):
    """docs/language.md, "`language:` and `rulespec migrate`": the language-1 rules, the diff
    and the message for what cannot be migrated are what the command prints."""
    import re
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    doc = doc[doc.index("For example, a language-1 pack"):]
    rules, diff, message = [m.group(1) for m in re.finditer(r"```(?:diff)?\n(.*?)```", doc, re.S)][:3]
    folder = write_pack(tmp_path / "old", {"pack.yaml": manifest("old", extends="minimal_map"), "rules/old.rules": rules})
    code, out, err = run_cli(capsys, "migrate", str(folder), "--pack-path", str(PACKS))
    assert code == 1 and diff in out
    assert f"{tmp_path}/{message.splitlines()[0]}" in err and "\n".join(message.splitlines()[1:]) in err
