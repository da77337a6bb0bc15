"""Overlays: a pack that `extends:` another adds, replaces, modifies and removes declarations
and YAML data, and every resolved item remembers where it was defined and changed."""
from __future__ import annotations

import pytest

from rulespec import unparse
from rulespec.errors import RulespecError
from rulespec.pack import load_pack
from rulespec.show import pack_diff, pack_json

BASE = {
    "pack.yaml": """
        id: base
        name: Base
        version: 1.0.0
        players: [3, 4]
    """,
    "rules/symbols.rules": """
        symbol crown "Crown" { usable_in: [govern] }
        symbol florin "Florin" { storable: true }
    """,
    "rules/actions.rules": """
        action govern "Govern" {
          cost: 1 crown
          effect: {
            repeat 2 { log("flip") }
          }
        }
    """,
    "rules/cards.rules": """
        card cardinal "Cardinal" {
          type: notable
          copies: 5
          cost: 3 florin
          action: govern
          bottom: crown
          war_bonus: [a, b]
        }
        card pope "Pope" {
          type: notable
          copies: 1
          cost: 6 florin
        }
    """,
    "tracks.yaml": """
        tracks:
          patronage:
            name: Patronage
            max_steps_per_year: 1
            spaces:
              - points: 0
              - points: 1
                cost: "2 florin + crown"
    """,
}


def overlay(extra: dict) -> dict:
    files = {"pack.yaml": """
        id: variant
        name: Variant
        version: 0.1.0
        extends: ../base
    """}
    files.update(extra)
    return files


@pytest.fixture(autouse=True)
def search_path(tmp_path, monkeypatch):
    """The packs of a test extend each other (`extends: ../base`): their folder is in the
    search path, as a user configures it (RULESPEC_PACK_PATH), so `extends:` may reach them."""
    monkeypatch.setenv("RULESPEC_PACK_PATH", str(tmp_path))


@pytest.fixture
def base(make_pack):
    return make_pack("base", BASE)


def test_modify_a_single_field_keeps_the_others_and_records_provenance(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        modify card cardinal {
          cost: 4 florin
        }
    """}))
    pack = load_pack(v)
    card = pack.get("card", "cardinal")
    assert unparse.expr(card.get("cost")) == "4 florin"
    assert unparse.expr(card.get("bottom")) == "crown"          # untouched field kept
    ops = [(op, pid) for op, _, pid in card.fields["cost"].history]
    assert ops == [("define", "base"), ("modify", "variant")]
    assert card.fields["cost"].history[-1][1].file.endswith("v.rules")
    assert card.fields["cost"].history[-1][1].line == 2
    assert pack.chain == ["base", "variant"]
    assert pack.players == [3, 4]                               # inherited


def test_replace_swaps_the_whole_declaration(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        replace card cardinal "Cardinal (house rule)" {
          type: notable
          copies: 2
        }
    """}))
    card = load_pack(v).get("card", "cardinal")
    assert card.title == "Cardinal (house rule)"
    assert "bottom" not in card.fields
    assert [op for op, _, _ in card.history] == ["define", "replace"]


def test_remove_declaration_field_and_append_to_list(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        remove card pope
        modify card cardinal {
          remove bottom
          war_bonus += [c]
        }
    """}))
    pack = load_pack(v)
    assert pack.get("card", "pope") is None
    card = pack.get("card", "cardinal")
    assert "bottom" not in card.fields
    assert unparse.expr(card.get("war_bonus")) == "[a, b, c]"


def test_new_declarations_are_added(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        action tax "Tax" {
          cost: 1 crown
          effect: { gain(florin, count(c for c in player.cities)) }
        }
    """}))
    pack = load_pack(v)
    assert pack.get("action", "tax").title == "Tax"
    assert pack.get("action", "tax").pack == "variant"


def test_overlay_targets_that_do_not_exist_are_reported_with_position(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        modify card cardinnal { cost: 1 florin }
        remove card bishop
    """}))
    with pytest.raises(RulespecError) as e:
        load_pack(v)
    diags = e.value.diagnostics
    assert [d.code for d in diags] == ["RS108", "RS108"]
    assert diags[0].span.line == 1 and diags[0].span.column == 13
    assert "cardinal" in diags[0].hint                      # did you mean
    assert diags[1].span.line == 2


def test_redeclaring_a_base_id_without_modify_is_a_duplicate(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        card pope "Pope" { type: notable }
    """}))
    with pytest.raises(RulespecError) as e:
        load_pack(v)
    d = e.value.first
    assert d.code == "RS101" and "modify card pope" in d.hint


def test_yaml_patch_merges_and_same_name_replaces(base, make_pack):
    v = make_pack("variant", overlay({
        "tracks.patch.yaml": """
            tracks:
              patronage:
                max_steps_per_year: 2
        """}))
    pack = load_pack(v)
    track = pack.get("track", "patronage")
    assert track.get("max_steps_per_year") == 2
    assert len(track.sub("space")) == 2                      # spaces kept from the base
    assert [op for op, _, _ in pack.data_history["tracks"]] == ["define", "patch"]

    w = make_pack("variant2", {**overlay({}), "pack.yaml": """
        id: variant2
        name: V2
        version: 0.1.0
        extends: ../base
    """, "tracks.yaml": """
        tracks:
          fame:
            name: Fame
            spaces:
              - points: 0
              - points: 1
    """})
    pack2 = load_pack(w)
    assert pack2.get("track", "patronage") is None
    assert pack2.get("track", "fame") is not None


def test_dsl_inside_yaml_is_parsed_with_yaml_positions(base):
    pack = load_pack(base)
    space = pack.get("track", "patronage").sub("space")[1]
    cost = space.get("cost")
    assert unparse.expr(cost) == "2 florin + 1 crown" or unparse.expr(cost) == "2 florin + crown"
    assert cost.span.file.endswith("tracks.yaml") and cost.span.line == 8 and cost.span.column == 16
    assert cost.left.symbol_span.line == 8 and cost.left.symbol_span.column == 18


def test_patching_a_missing_data_file_is_an_overlay_error(base, make_pack):
    v = make_pack("variant", overlay({"palaces.patch.yaml": "palaces: {}\n"}))
    with pytest.raises(RulespecError) as e:
        load_pack(v)
    assert e.value.first.code == "RS108"


def test_extends_cycle_and_unknown_base(make_pack):
    a = make_pack("a", {"pack.yaml": "id: a\nname: A\nversion: '1'\nextends: ../b\n"})
    make_pack("b", {"pack.yaml": "id: b\nname: B\nversion: '1'\nextends: ../a\n"})
    with pytest.raises(RulespecError) as e:
        load_pack(a)
    assert e.value.first.code == "RS021"
    c = make_pack("c", {"pack.yaml": "id: c\nname: C\nversion: '1'\nextends: nowhere\n"})
    with pytest.raises(RulespecError) as e:
        load_pack(c)
    assert e.value.first.code == "RS021" and e.value.first.span.line == 4


def test_diff_lists_only_what_the_overlay_changed(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": """
        modify card cardinal {
          cost: 4 florin
        }
        remove card pope
    """}))
    rows = pack_diff(load_pack(v), load_pack(base))
    assert ("changed", "card cardinal.cost", "3 florin -> 4 florin") in rows
    assert ("removed", "card pope", "") in rows
    assert len(rows) == 2


def test_json_form_carries_history(base, make_pack):
    v = make_pack("variant", overlay({"rules/v.rules": "modify card cardinal {\n  cost: 4 florin\n}\n"}))
    j = pack_json(load_pack(v))
    card = next(d for d in j["declarations"] if d["id"] == "cardinal")
    hist = card["fields"]["cost"]["history"]
    assert hist[0]["pack"] == "base" and hist[1]["pack"] == "variant"
    assert hist[1]["at"].startswith("variant/rules/v.rules:")
