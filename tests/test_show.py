"""`rulespec show`: the diff of an overlay shows exactly its change (declarations line by line,
sub-blocks field by field, YAML data item by item, never cut, paths from the pack folder),
`show PACK KIND ID` prints one declaration or item with where it was defined and changed, and
`--unverified` lists the values to check and, apart, the readings we chose (@decision)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rulespec import ast as A
from rulespec import packdiff, show, unparse
from rulespec.cli import main as cli_main
from rulespec.pack import load_pack
from rulespec.parser import parse_rules
from rulespec.yamldata import load_yaml_text

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"
VARIANTS = PACKS / "variants"
NAMES = sorted(p.name for p in VARIANTS.iterdir() if (p / "pack.yaml").is_file())

# the lines each variant's diff must hold: the changed token on the old and the new side
CHANGED_LINES = {
    "govern_three_tiles": ["~ formula tiles_per_govern_symbol", "-value: 2", "+value: 3"],
    "annex_two_roads": ["~ formula annex_by_road", "-value: adjacent_by_road(origin, target)",
                        "+value: road_distance(origin, target) <= 2"],
    "cathedral_defence": ["+ ability cathedral_walls", "~ tile cathedral", "+abilities: [cathedral_walls]"],
    "tax_action": ["+ action tax", "+ card tax_collector", "-count: 56", "+count: 58",
                   "+usable_in: [govern, sponsor, annex, purchase, rid_indulgences, alliance_step, tax]"],
    "five_years": ["+ end_condition five_years", "check: year >= 5"],
    "fourth_power": ["+ alliance venice_league", "cost: 2 crown + 2 cavalry"],
    "trade_then_scheme": ["+ action trade_then_scheme", "+ card smuggler", "-count: 56", "+count: 57"],
    "fortification": ["+ field fortification", "~ formula city_defence_bonus", "-value: 0", "+value: c.fortification",
                      "+ procedure fortify", "~ phase winter"],
    "trophies_uncapped": ["- constraint one_trophy_per_opponent", "~ formula takes_trophy",
                          "-value: defender not in attacker.trophies_from", "+value: true"],
}


def _cli(capsys, *args):
    code = cli_main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def base():
    return load_pack("base_3to5")


def _differing(pack, base) -> set:
    """(sign, kind, id) of every declaration whose DSL text differs, computed apart from the diff."""
    a = {(d.kind, str(d.id)): unparse.declaration(d) for d in base.decls.values()}
    b = {(d.kind, str(d.id)): unparse.declaration(d) for d in pack.decls.values()}
    out = {("+",) + k for k in b.keys() - a.keys()} | {("-",) + k for k in a.keys() - b.keys()}
    return out | {("~",) + k for k in a.keys() & b.keys() if a[k] != b[k]}


def _headers(out: str) -> set:
    return {(m[1], m[2], m[3]) for m in re.finditer(r"^([~+-]) (\w+) (\S+)    #", out, re.M) if m[2] != "data"}


@pytest.mark.parametrize("name", NAMES)
def test_variant_diff_shows_its_change_and_nothing_else(name, base, capsys):
    code, out, _ = _cli(capsys, "show", name, "--diff", "base_3to5", "--pack-path", str(VARIANTS))
    assert code == 0
    lines = [x.strip() for x in out.splitlines()]
    for expected in CHANGED_LINES[name]:
        assert any(x == expected or x.startswith(expected + " ") for x in lines), (expected, out)
    # exactly the declarations that differ, and no data file (these overlays have none)
    assert _headers(out) == _differing(load_pack(VARIANTS / name), base), out
    assert "data " not in out
    # every removed/added line pair says something different; nothing is cut
    assert "..." not in out and "…" not in out
    assert str(ROOT) not in out                       # paths from the pack folder, never absolute


def test_one_token_is_marked_under_the_token(capsys):
    _, out, _ = _cli(capsys, "show", "govern_three_tiles", "--diff", "base_3to5", "--pack-path", str(VARIANTS))
    lines = out.splitlines()
    plus = next(i for i, x in enumerate(lines) if x.strip().startswith("+value: 3"))
    mark = lines[plus + 1]
    assert mark.strip().startswith("?")
    assert mark.index("^") == lines[plus].index("3") and mark.count("^") == 1
    assert lines[plus].endswith("# govern_three_tiles/variant.rules:3")


def test_a_changed_effect_is_shown_whole_with_the_changed_line(capsys):
    """wars_of_italy replaces `annex` (Annex / Influence): the diff holds the whole old `choose`
    line and the whole new first line (the old diff cut both to 60 characters, which made long
    lines look the same)."""
    _, out, _ = _cli(capsys, "show", "wars_of_italy", "--diff", "base_3to5")
    section = out.split("~ action annex", 1)[1].split("\n+ ", 1)[0].split("\n- ", 1)[0]
    old = next(x for x in section.splitlines() if x.strip().startswith("-  choose target in neutral_cities"))
    new = next(x for x in section.splitlines() if x.strip().startswith("+  let open_alliances"))
    assert "up_to cities_per_annex()" in old and old.rstrip().endswith('"City to annex" {')
    assert new.rstrip().endswith("where may_conclude_alliance(m, player)]")
    assert "@@ effect @@    # wars_of_italy/rules/actions.rules:" in section
    # the summary rows agree and carry the whole texts
    rows = show.pack_diff(load_pack("wars_of_italy"), load_pack("base_3to5"))
    detail = next(d for c, w, d in rows if w == "action annex.effect")
    assert "may_conclude_alliance(m, player)" in detail and "up_to cities_per_annex()" in detail


def test_fixture_diff_field_lines_and_yaml_items(capsys):
    code, out, _ = _cli(capsys, "show", "show_fixture", "--diff", "base_3to5", "--pack-path", str(PACKS))
    assert code == 0
    lines = [x.strip() for x in out.splitlines()]
    # a sub-block field: one line, old -> new, where it is written
    assert "space 7.ends_game: (absent) -> true    # show_fixture/rules/fixture.rules:7" in lines
    # YAML data: the changed items only, by id, from the effective data
    assert "~ data map    # patched by show_fixture/map.patch.yaml" in lines
    data_lines = [x for x in lines if x.startswith(("~ city", "+ city", "- city", "~ colour", "~ road", "+ road"))]
    assert data_lines == ["~ city florence.value: 3 -> 4    # show_fixture/map.patch.yaml:4",
                          '~ city pisa.name_fr: "Pise" -> "Pise la Belle"    # show_fixture/map.patch.yaml:6',
                          "~ colour red.florins_start: 1 -> 3    # show_fixture/setup.patch.yaml:4"]
    pack = load_pack(PACKS / "show_fixture")
    assert _headers(out) == _differing(pack, load_pack("base_3to5"))
    assert out.splitlines()[-1].startswith("4 difference(s) between show_fixture and base_3to5")


def _doc(text):
    return load_yaml_text(text, "/somewhere/map.yaml")


def test_yaml_items_are_labelled_by_id_or_natural_key():
    old = _doc("roads:\n  - {between: [florence, pisa], sides: [a]}\n  - {between: [pisa, siena], sides: [a]}\n"
               "colours:\n  - id: red\n    florins: 1\n  - id: purple\n    florins: 2\n"
               "value_range: [1, 4]\n")
    new = _doc("roads:\n  - {between: [florence, pisa], sides: [a, b]}\n  - {between: [florence, ancona], sides: [b]}\n"
               "colours:\n  - id: red\n    florins: 1\n"
               "value_range: [1, 5]\n")
    got = [(d.sign, d.path, d.old, d.new, d.where) for d in packdiff.data_details(old, new, "map")]
    assert got == [
        ("~", "road florence-pisa.sides", "[a]", "[a, b]", "map.yaml:2"),
        ("-", "road pisa-siena", "{between: [pisa, siena], sides: [a]}", None, "map.yaml:3"),
        ("+", "road florence-ancona", None, "{between: [florence, ancona], sides: [b]}", "map.yaml:3"),
        ("-", "colour purple", "{id: purple, florins: 2}", None, "map.yaml:7"),
        ("~", "map value_range", "[1, 4]", "[1, 5]", "map.yaml:7"),
    ]


def test_show_one_yaml_item_with_its_patch(capsys):
    code, out, _ = _cli(capsys, "show", "show_fixture", "city", "florence", "--pack-path", str(PACKS))
    assert code == 0
    head, _, body = out.partition("\n- ")
    line = int(re.search(r"defined at base_3to5/map\.yaml:(\d+)", head)[1])
    assert (ROOT / "content/base_3to5/map.yaml").read_text(encoding="utf-8").splitlines()[line - 1].strip() \
        == "- id: florence"
    assert "patched at show_fixture/map.patch.yaml: value (line 4)" in head
    assert body.startswith("id: florence\n") and {"  value: 4", "  name: Florence"} <= set(body.splitlines())
    # a road is named by its two cities, from either end
    code, out, _ = _cli(capsys, "show", "base_3to5", "road", "pisa-florence")
    assert code == 0 and "- between: [florence, pisa]" in out


@pytest.mark.parametrize("kind, id_, field", [("action", "trade", "effect"), ("formula", "cities_per_annex", "value")])
def test_show_one_declaration(kind, id_, field, base, capsys):
    code, out, _ = _cli(capsys, "show", "base_3to5", kind, id_)
    assert code == 0
    m = re.search(r"#   defined at base_3to5/(\S+):(\d+)", out)
    assert f"{kind} {id_}" in (ROOT / "content/base_3to5" / m[1]).read_text(encoding="utf-8").splitlines()[int(m[2]) - 1]
    text = "\n".join(x for x in out.splitlines() if not x.startswith("#"))
    assert text == unparse.declaration(base.get(kind, id_))
    assert f"  {field}: " in text


def test_show_one_declaration_names_the_overlay_and_its_fields(capsys):
    code, out, _ = _cli(capsys, "show", "tax_action", "symbol", "crown", "--pack-path", str(VARIANTS))
    assert code == 0
    assert "#   modified at tax_action/variant.rules:19: usable_in +=" in out.splitlines()
    assert "usable_in: [govern, sponsor, annex, purchase, rid_indulgences, alliance_step, tax]" in out
    code, out, _ = _cli(capsys, "show", "show_fixture", "track", "cities_track", "--pack-path", str(PACKS))
    assert "#   modified at show_fixture/rules/fixture.rules:6: space 7.ends_game" in out.splitlines()


def test_every_printed_declaration_reads_back_as_the_same_fields():
    """The text `show` prints is DSL: it parses, and its fields unparse to the same text."""
    for name in ("base_3to5", "wars_of_italy"):
        for d in load_pack(name).decls.values():
            text = unparse.declaration(d)
            (decl,) = parse_rules(text).items
            fields = {m.name: unparse.value(m.value) + unparse.annotations(m.annotations)
                      for m in decl.members if isinstance(m, A.Field)}
            want = {n: unparse.value(fv.value) + unparse.annotations(fv.annotations) for n, fv in d.fields.items()
                    if not (n == "evidence" and isinstance(fv.value, dict))}
            assert fields == want, (name, d.kind, d.id)


@pytest.mark.parametrize("args, token, message, hint", [
    (["action", "trde"], "trde", "pack 'base_3to5' has no action 'trde'", "did you mean 'trade'?"),
    (["acton", "trade"], "acton", "pack 'base_3to5' has nothing of kind 'acton'", "did you mean 'action'?"),
    (["city", "florense"], "florense", "pack 'base_3to5' has no city 'florense'", "did you mean 'florence'?"),
    (["city"], "city", "`show PACK city` needs the id of one city", "rulespec show base_3to5 city nice"),
])
def test_unknown_kind_or_id_is_a_positioned_usage_error(args, token, message, hint, capsys):
    argv = ["show", "base_3to5", *args]
    code, out, err = _cli(capsys, *argv)
    assert code == 2 and out == ""
    col = " ".join(argv).index(" " + token) + 2
    assert f"<command line>:1:{col}: error RS030: {message}" in err
    assert hint in err


def test_unverified_lists_decisions_apart(base, capsys):
    code, out, _ = _cli(capsys, "show", "base_3to5", "--unverified", "--json")
    assert code == 0
    doc = json.loads(out)
    assert {i["evidence"] for i in doc["items"]} == {"inferred", "placeholder"}
    assert all(i["status"] == "to check" for i in doc["items"])
    assert all(i["evidence"] == "decision" and i["status"] == "decision" for i in doc["decisions"])
    marks = sum(f.read_text(encoding="utf-8").count("@decision")
                for f in (ROOT / "content/base_3to5").rglob("*.rules"))
    assert len(doc["decisions"]) == marks > 0
    assert {"end_condition no_neutral_city", "phase winter.each_player"} <= {i["what"] for i in doc["decisions"]}
    code, out, _ = _cli(capsys, "show", "base_3to5", "--unverified")
    assert "Decisions: readings chosen in base_3to5" in out
    assert re.search(rf"^decisions: {marks} \(readings we chose, not values to check\)$", out, re.M)


def test_diff_json_carries_whole_texts(capsys):
    code, out, _ = _cli(capsys, "show", "annex_two_roads", "--diff", "base_3to5", "--json",
                        "--pack-path", str(VARIANTS))
    assert code == 0
    (entry,) = json.loads(out)
    assert entry["change"] == "changed" and entry["what"] == "formula annex_by_road"
    (d,) = entry["details"]
    assert (d["old"], d["new"]) == ("adjacent_by_road(origin, target)", "road_distance(origin, target) <= 2")
    assert d["where"] == "annex_two_roads/variant.rules:3"


def test_diff_of_one_declaration_or_item(capsys):
    code, out, _ = _cli(capsys, "show", "show_fixture", "city", "florence", "--diff", "base_3to5",
                        "--pack-path", str(PACKS))
    assert code == 0
    changes = [x.strip() for x in out.splitlines()[2:-1]]
    assert changes == ["~ data map    # patched by show_fixture/map.patch.yaml",
                       "~ city florence.value: 3 -> 4    # show_fixture/map.patch.yaml:4"]
    code, out, _ = _cli(capsys, "show", "show_fixture", "formula", "tiles_per_govern_symbol", "--diff", "base_3to5",
                        "--pack-path", str(PACKS))
    assert _headers(out) == {("~", "formula", "tiles_per_govern_symbol")} and "city" not in out
