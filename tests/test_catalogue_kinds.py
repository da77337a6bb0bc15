"""Catalogue kinds come from the pack (docs/design/world-model-plan.md, stage 18b): the fields a
`card`, `tile`, `alliance`, `war_bonus` or `colour` declaration may give are the `field` lines
of the pack's `kind` declarations (content/base_3to5/rules/catalogue.rules), not Python; a pack
declares a catalogue kind of its own the same way (tests/test_oracle_duel.py plays one)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rulespec.checker import Checker
from rulespec.kinds import KINDS
from rulespec.pack import load_pack
from validator.static import validate_pack

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "tests" / "packs"
BASE = ROOT / "content" / "base_3to5"


def overlay(make_pack, rules: str) -> Path:
    return make_pack("more", {"pack.yaml": "id: more\nname: More\nversion: 0.1.0\nextends: base_3to5\n",
                              "rules/more.rules": rules})


def findings(folder) -> list:
    return [(d.code, d.span.line, d.span.column, d.message, d.hint)
            for d in validate_pack(folder, [PACKS]).diagnostics if d.severity == "error"]


@pytest.mark.parametrize("kind", ["card", "tile", "alliance", "war_bonus", "colour"])
def test_the_base_game_s_catalogue_kinds_are_declared_by_its_pack(kind):
    assert kind not in KINDS
    spec = Checker(load_pack(BASE)).kinds[kind]
    assert "name" in spec.fields and "evidence" in spec.fields      # the fields every declaration has


def test_a_field_line_gives_the_type_whether_it_is_required_and_its_doc():
    kinds = Checker(load_pack(BASE)).kinds
    t = kinds["card"].fields["type"]
    assert (t.type, t.required, t.doc) == ("enum:notable|family|indulgence|patronage", True, "which deck it belongs to")
    assert kinds["tile"].fields["excludes"].type == "list:ref:tile"
    assert kinds["tile"].fields["on_gain"].type == "effect"
    assert kinds["alliance"].fields["cost"].required and kinds["alliance"].fields["war_bonus"].type == "ref:war_bonus"
    assert kinds["war_bonus"].fields["strength"].type == "number"


def test_an_overlay_may_add_a_field_to_a_catalogue_kind_by_modifying_it(make_pack):
    folder = overlay(make_pack, """
modify kind card { field rarity: int "how rare" }
modify card pope { rarity: 3 }
""")
    assert findings(folder) == []
    assert Checker(load_pack(folder, [PACKS])).kinds["card"].fields["rarity"].type == "int"


def test_field_lines_on_a_kind_whose_things_are_not_declarations(make_pack):
    found = findings(overlay(make_pack, 'kind castle { instances: list\n  field height: int }\n'))
    assert [(c, l, col) for c, l, col, *_ in found] == [("RS103", 1, 6)]
    assert "instances: catalogue" in found[0][4]


def test_field_lines_on_a_kind_of_the_language(make_pack):
    found = findings(overlay(make_pack, 'kind action { instances: catalogue\n  field weight: int }\n'))
    assert [(c, l, col, m) for c, l, col, m, _ in found] == [
        ("RS101", 1, 6, "'action' is a kind of the language: its declarations' fields are the language's")]


def test_an_unknown_type_in_a_field_line_is_positioned_with_a_suggestion(make_pack):
    found = findings(overlay(make_pack, 'kind omen { instances: catalogue\n  field suit: card_typ }\n'))
    assert [(c, l, col) for c, l, col, *_ in found] == [("RS105", 2, 15)]
    assert found[0][3] == "unknown type 'card_typ' for field 'suit' of kind omen"
    assert "card_type" in found[0][4]


def test_a_world_field_may_not_shadow_a_field_of_the_declarations(make_pack):
    found = findings(overlay(make_pack, "field crosses: int = 0 on card\n"))
    assert [(c, l, m) for c, l, _, m, _ in found] == [("RS101", 1, "'crosses' is a field of every card declaration already")]


def test_the_example_of_the_language_reference_validates(make_pack):
    """docs/language.md "Catalogue kinds": its example, as an overlay of the base pack."""
    from doc_examples import rules_example
    example = rules_example("### Catalogue kinds")
    folder = overlay(make_pack, example + "scoring omens { points: sum(o.power + o.charge for o in [ember, gale]) }\n")
    assert findings(folder) == []
    kinds = Checker(load_pack(folder, [PACKS])).kinds
    assert kinds["omen"].fields["power"].required and not kinds["omen"].fields["text"].required
