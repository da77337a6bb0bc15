"""YAML overlays: the list forms of a NAME.patch.yaml (`$append`, `$remove`, `$merge`), the
errors a patch gets for a wrong id or an unknown `$key`, what in a pack folder is pack data
(docs/language.md, "Packs" and "Overlays"), and `evidence: decision` in YAML."""
from __future__ import annotations

import json
from contextlib import nullcontext as _nothing
from functools import lru_cache
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from rulespec.board import Board
from rulespec.errors import RulespecError
from rulespec.pack import load_pack, load_pack_collecting, pack_source_files
from rulespec.show import pack_diff
from rulespec.yamldata import load_yaml_text
from rulespec.yamlpatch import merge_yaml_docs

PACKS = Path(__file__).resolve().parent / "packs"


@lru_cache(maxsize=None)
def loaded(name: str):
    """A pack loaded once (the tests only read it): base_3to5, or the small minimal_map."""
    return load_pack(name if name == "base_3to5" else PACKS / name)


def variant(make_pack, files: dict, name: str = "variant", base: str = "minimal_map"):
    manifest = f"id: {name}\nname: Variant\nversion: 0.1.0\nextends: {base}\n"
    return make_pack(name, {"pack.yaml": manifest, **files})


def board(pack, side):
    return Board(pack.data["map"].data, side)


def errors_of(folder):
    return load_pack_collecting(folder)


# ------------------------------------------------------------------ list forms
def test_append_a_road_with_a_four_line_patch(make_pack):
    base = loaded("base_3to5")
    assert not board(base, "side_34").adjacent_by_road("florence", "ancona")
    patch = ("roads:\n"
             "  $append:\n"
             "    - {between: [florence, ancona], sides: [side_34, side_25]}\n")
    pack = load_pack(variant(make_pack, {"map.patch.yaml": patch}, base="base_3to5"))
    roads = pack.data["map"].data["roads"]
    assert len(roads) == len(base.data["map"].data["roads"]) + 1
    assert board(pack, "side_34").adjacent_by_road("florence", "ancona")
    assert board(pack, "side_25").adjacent_by_road("florence", "ancona")
    # the new road points at the patch, the old ones at the base's map.yaml
    doc = pack.data["map"]
    new = doc.span(("roads", len(roads) - 1))
    assert new.file.endswith("map.patch.yaml") and new.line == 3
    assert doc.span(("roads", 0)).file.endswith("base_3to5/map.yaml")


def test_remove_a_road_by_its_keys_in_any_order(make_pack):
    base = loaded("minimal_map")
    assert board(base, "side_a").adjacent_by_road("alpha", "beta")
    pack = load_pack(variant(make_pack, {"map.patch.yaml": "roads:\n  $remove:\n    - {between: [beta, alpha]}\n"}))
    assert not board(pack, "side_a").adjacent_by_road("alpha", "beta")
    assert pack.data["map"].data["roads"] == base.data["map"].data["roads"][1:]


def test_remove_then_append_replaces_one_road(make_pack):
    patch = ("roads:\n"
             "  $remove: [{between: [alpha, beta]}]\n"
             "  $append: [{between: [alpha, beta], sides: [side_a]}]\n")
    pack = load_pack(variant(make_pack, {"map.patch.yaml": patch}))
    assert board(pack, "side_a").adjacent_by_road("alpha", "beta")
    assert not board(pack, "side_b").adjacent_by_road("alpha", "beta")


def test_remove_matching_nothing_is_an_error_with_did_you_mean(make_pack):
    patch = "roads:\n  $remove:\n    - {between: [alpha, betta]}\n"
    _, errors = errors_of(variant(make_pack, {"map.patch.yaml": patch}))
    assert [e.code for e in errors] == ["RS108"]
    e = errors[0]
    assert e.span.file.endswith("map.patch.yaml") and (e.span.line, e.span.column) == (3, 7)
    assert "{between: [alpha, betta]}" in e.message and "map.yaml of minimal_map" in e.message
    assert "did you mean {between: [alpha, beta]}?" in e.hint


def test_remove_matching_several_items_is_an_error(make_pack):
    _, errors = errors_of(variant(make_pack, {"map.patch.yaml": "roads:\n  $remove: [{sides: [side_b]}]\n"}))
    assert [e.code for e in errors] == []           # only beta-gamma is on side_b alone
    _, errors = errors_of(variant(make_pack, {"map.patch.yaml": "cities:\n  $remove: [{landmass: mainland}]\n"},
                                  "v2"))
    assert [e.code for e in errors] == ["RS108"] and "matches 3 cities" in errors[0].message


def test_id_lists_take_append_merge_and_remove_by_id(make_pack):
    base = {c["id"]: c for c in loaded("minimal_map").data["setup"].data["colours"]}
    purple = {**base["blue"], "id": "purple", "florins_start": 2}
    patch = ("colours:\n"
             "  $remove: [green]\n"
             "  $merge:\n"
             "    - {id: red, florins_start: 9}\n"
             "  $append:\n"
             f"    - {json.dumps(purple)}\n")
    pack = load_pack(variant(make_pack, {"setup.patch.yaml": patch}))
    colours = {c["id"]: c for c in pack.data["setup"].data["colours"]}
    assert list(colours) == ["red", "yellow", "blue", "purple"]
    assert colours["red"]["florins_start"] == 9
    assert colours["red"]["agents_start"] == base["red"]["agents_start"]        # merged, not replaced
    assert colours["purple"] == purple


def test_appending_an_id_already_there_is_an_error(make_pack):
    _, errors = errors_of(variant(make_pack, {"setup.patch.yaml": "colours:\n  $append:\n    - {id: red}\n"}))
    assert [e.code for e in errors] == ["RS101"]
    assert "colour 'red' is already in setup.yaml of minimal_map" in errors[0].message
    assert "$merge" in errors[0].hint and errors[0].span.line == 3


def test_merge_on_a_list_without_ids_is_an_error(make_pack):
    _, errors = errors_of(variant(make_pack, {"map.patch.yaml": "roads:\n  $merge: [{between: [alpha, beta]}]\n"}))
    assert [e.code for e in errors] == ["RS100"]
    assert "$append" in errors[0].hint and errors[0].span.line == 2


def test_append_to_a_mapping_is_an_error(make_pack):
    _, errors = errors_of(variant(make_pack, {"tracks.patch.yaml": "tracks:\n  $append: [{name: Fame}]\n"}))
    assert [e.code for e in errors] == ["RS100"]
    assert "tracks in tracks.yaml of minimal_map is a mapping" in errors[0].message


def test_append_to_a_nested_list_of_a_yaml_collection(make_pack):
    """`$append` works at any depth: one more space on a track, which becomes a declaration."""
    base = loaded("minimal_map").get("track", "patronage")
    patch = "tracks:\n  patronage:\n    spaces:\n      $append:\n        - {points: 9}\n"
    track = load_pack(variant(make_pack, {"tracks.patch.yaml": patch})).get("track", "patronage")
    spaces = track.sub("space")
    assert len(spaces) == len(base.sub("space")) + 1
    assert spaces[-1].get("points") == 9 and spaces[-1].span.file.endswith("tracks.patch.yaml")


# ------------------------------------------------------------------ wrong ids, unknown keys
def test_a_wrong_id_in_an_id_list_is_an_error_not_a_new_item(make_pack):
    patch = "colours:\n  - id: yelow\n    florins_start: 3\n"
    pack, errors = errors_of(variant(make_pack, {"setup.patch.yaml": patch}, base="base_3to5"))
    assert [e.code for e in errors] == ["RS108"]
    e = errors[0]
    assert e.message == "no colour 'yelow' in setup.yaml of base_3to5"
    assert e.span.file.endswith("setup.patch.yaml") and (e.span.line, e.span.column) == (2, 9)
    assert "did you mean 'yellow'?" in e.hint and "$append" in e.hint
    assert e.source_line == "  - id: yelow"
    assert "yelow" not in [c["id"] for c in pack.data["setup"].data["colours"]]


def test_a_wrong_id_without_a_close_one_lists_the_ids(make_pack):
    _, errors = errors_of(variant(make_pack, {"setup.patch.yaml": "colours:\n  - {id: purple, florins_start: 3}\n"}))
    assert [e.code for e in errors] == ["RS108"]
    assert "no colour 'purple' in setup.yaml of minimal_map" == errors[0].message
    assert "red, yellow, green, blue" in errors[0].hint and "colours: {$append: [{id: purple" in errors[0].hint


def test_the_rest_of_a_patch_applies_beside_a_wrong_id(make_pack):
    patch = "colours:\n  - {id: red, florins_start: 8}\n  - {id: purpel, florins_start: 3}\n"
    pack, errors = errors_of(variant(make_pack, {"setup.patch.yaml": patch}))
    assert [e.code for e in errors] == ["RS108"] and errors[0].span.line == 3
    red = next(c for c in pack.data["setup"].data["colours"] if c["id"] == "red")
    assert red["florins_start"] == 8


@pytest.mark.parametrize("text,line,bad", [
    ("roads:\n  $apend:\n    - {between: [alpha, delta], sides: [side_a]}\n", 2, "$apend"),
    ("roads:\n  $append: [{between: [alpha, delta], sides: [side_a]}]\n  $replace: []\n", 3, "$replace"),
    ("cities:\n  - id: alpha\n    $delete: true\n", 3, "$delete"),
], ids=["misspelt", "beside-append", "in-an-item"])
def test_unknown_dollar_keys_are_positioned_errors(make_pack, text, line, bad):
    _, errors = errors_of(variant(make_pack, {"map.patch.yaml": text}))
    mine = [e for e in errors if bad in e.message]
    assert mine and mine[0].code == "RS100", [e.render() for e in errors]
    assert mine[0].span.file.endswith("map.patch.yaml") and mine[0].span.line == line
    assert "$append" in mine[0].hint and "$remove" in mine[0].hint
    if bad == "$apend":
        assert "did you mean '$append'?" in mine[0].hint


def test_removing_a_key_the_base_lacks_is_an_error(make_pack):
    _, errors = errors_of(variant(make_pack, {"tracks.patch.yaml": "tracks:\n  patronag: {$remove: true}\n"}))
    assert [e.code for e in errors] == ["RS108"]
    assert "tracks in tracks.yaml of minimal_map has no 'patronag'" in errors[0].message
    assert "did you mean 'patronage'?" in errors[0].hint and errors[0].span.line == 2


def test_merge_yaml_docs_alone_raises_the_patch_errors():
    base = load_yaml_text("cities:\n  - id: a\n    value: 1\n", "base.yaml")
    patch = load_yaml_text("cities:\n  - id: b\n    value: 2\n", "p.yaml")
    with pytest.raises(RulespecError) as e:
        merge_yaml_docs(base, patch)
    assert e.value.first.message == "no city 'b' in base.yaml"


# ------------------------------------------------------------------ what is pack data
SCENARIO = "name: a test\nplayers: [red, yellow, green]\nseed: 1\nsteps: []\n"


def test_scenarios_folder_is_not_pack_data(make_pack):
    folder = variant(make_pack, {
        "scenarios/first.yaml": SCENARIO,
        "scenarios/map.yaml": "cities: not a map\n",             # would replace the map if it were read
        "scenarios/broken.rules": "this is not rules {\n",
    })
    pack, errors = errors_of(folder)
    assert errors == [] and pack.warnings == []
    base = loaded("minimal_map")
    assert sorted(pack.data) == sorted(base.data)
    assert pack.data["map"].data == base.data["map"].data
    assert pack_diff(pack, base) == []
    assert not any("scenarios" in p.parts for p in pack_source_files(folder))


def test_yaml_in_another_sub_folder_is_not_read_and_warned(make_pack):
    folder = variant(make_pack, {"data/map.yaml": "cities: not a map\n", ".github/ci.yaml": "on: push\n",
                                 "rules/extra.rules": "symbol gem \"Gem\" { storable: true }\n"})
    pack, errors = errors_of(folder)
    assert errors == []
    assert pack.data["map"].data == loaded("minimal_map").data["map"].data
    assert [(w.code, w.severity) for w in pack.warnings] == [("RS007", "warning")]
    w = pack.warnings[0]
    assert w.span.file.endswith("data/map.yaml") and "next to pack.yaml" in w.hint
    assert pack.get("symbol", "gem") is not None                          # .rules files of sub-folders are read


def test_root_yaml_that_is_no_data_file_is_not_pack_data(make_pack):
    """A scenario or a note at the pack's root is not data (no `added data` in a diff); a file
    that looks like a misnamed data file is warned about, with the name it should have."""
    _, errors = errors_of(variant(make_pack, {"my_scenario.yaml": SCENARIO, "setpu.patch.yaml": "first_player: random\n"}))
    assert [e.code for e in errors] == ["RS108"]           # a patch of a file the base lacks: as before
    assert "did you mean 'setup'?" in errors[0].hint
    folder = variant(make_pack, {"my_scenario.yaml": SCENARIO, "notes.yaml": "todo: check the roads\n",
                                 "roads.yaml": "roads:\n  - {between: [alpha, delta], sides: [side_a]}\n",
                                 "setpu.yaml": "first_player: random\n",
                                 "more_tracks.yaml": "tracks:\n  fame:\n    name: Fame\n    spaces: [{points: 0}]\n"},
                     "v2")
    pack, errors = errors_of(folder)
    assert errors == []
    base = loaded("minimal_map")
    assert sorted(pack.data) == sorted([*base.data, "more_tracks"])        # the collection file is data
    assert pack.get("track", "fame") is not None
    assert pack.data["map"].data == base.data["map"].data
    assert [w.code for w in pack.warnings] == ["RS007", "RS007"]
    hints = {w.span.file.rsplit("/", 1)[-1]: w.hint for w in pack.warnings}
    assert "`roads:` belongs in map.yaml" in hints["roads.yaml"]
    assert "did you mean 'setup.yaml'?; `first_player:` belongs in setup.yaml" in hints["setpu.yaml"]


# ------------------------------------------------------------------ evidence
def test_evidence_decision_is_accepted_in_yaml(make_pack):
    patch = ("colours:\n  - id: red\n    florins_start: 3\n    evidence: {florins_start: decision}\n"
             "    note: \"house rule\"\n")
    pack = load_pack(variant(make_pack, {"setup.patch.yaml": patch}))
    red = next(c for c in pack.data["setup"].data["colours"] if c["id"] == "red")
    assert red["evidence"]["florins_start"] == "decision"
    tracks = "tracks:\n  fame:\n    name: Fame\n    evidence: decision\n    note: ours\n    spaces: [{points: 0}]\n"
    pack = load_pack(variant(make_pack, {"more_tracks.yaml": tracks}, "v2"))
    assert [a.name for a in pack.get("track", "fame").annotations] == ["decision"]
    _, errors = errors_of(variant(make_pack, {"setup.patch.yaml": patch.replace("decision", "decided")}, "v3"))
    assert [e.code for e in errors] == ["RS100"] and "decision" in errors[0].hint


# ------------------------------------------------------------------ any patch: errors, never exceptions
BASE_MAP = ("cities:\n  - {id: alpha, value: 1}\n  - {id: beta, value: 2}\n"
            "roads:\n  - {between: [alpha, beta], sides: [s]}\nvalue_range: [1, 4]\n")
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["alpha", "beta", "gamma", "s"]))
KEYS = st.sampled_from(["cities", "roads", "id", "value", "between", "sides", "value_range",
                        "$append", "$remove", "$merge", "$apend"])
PATCH_VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                            st.dictionaries(KEYS, inner, max_size=3)), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(patch=st.dictionaries(KEYS, PATCH_VALUES, min_size=1, max_size=3))
def test_any_patch_merges_or_reports_positioned_errors(patch):
    """Whatever a patch holds, merging gives data or positioned RulespecErrors in the patch file."""
    base = load_yaml_text(BASE_MAP, "map.yaml")
    text = yaml.safe_dump(patch, sort_keys=False)
    errors: list = []
    merged = merge_yaml_docs(base, load_yaml_text(text, "map.patch.yaml"), errors)
    assert isinstance(merged.data, dict)
    for e in errors:
        assert e.code in ("RS100", "RS101", "RS108") and e.span.file == "map.patch.yaml" and e.span.line >= 1
        assert e.message and e.source_line is not None
    with pytest.raises(RulespecError) if errors else _nothing():
        merge_yaml_docs(base, load_yaml_text(text, "map.patch.yaml"))


def test_the_plain_list_form_of_an_id_list_still_changes_and_removes_by_id():
    base = load_yaml_text(BASE_MAP, "map.yaml")
    patch = load_yaml_text("cities:\n  - {id: alpha, $remove: true}\n  - {id: beta, value: 4}\n", "map.patch.yaml")
    assert merge_yaml_docs(base, patch).data["cities"] == [{"id": "beta", "value": 4}]
    errors: list = []
    patch = load_yaml_text("cities:\n  - {id: beta, value: 4}\n  - {value: 3}\n", "map.patch.yaml")
    merged = merge_yaml_docs(base, patch, errors)
    assert [(e.code, e.span.line) for e in errors] == [("RS100", 3)] and "has no `id`" in errors[0].message
    assert merged.data["cities"] == [{"id": "alpha", "value": 1}, {"id": "beta", "value": 4}]
    patch = load_yaml_text("cities:\n  - {id: gama, $remove: true}\n", "map.patch.yaml")
    with pytest.raises(RulespecError) as e:
        merge_yaml_docs(base, patch)
    assert e.value.first.message == "cannot remove city 'gama': there is no city 'gama' in map.yaml"
