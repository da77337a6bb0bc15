"""The examples of docs/language.md for declarations, randomness, sides that do not play and
shared markers with track zones (issue 16's acceptance: the language document shows each with
an example) validate as a pack extending the base pack, written as the document writes them.
("Declaring the world", with its zones, is checked in tests/test_world.py.)"""
from __future__ import annotations

import re

import pytest

from conftest import write_pack
from doc_examples import LANGUAGE_DOC, rules_example
from rulespec.pack import load_pack
from validator.static import validate_pack

MANIFEST = "id: doc_example\nname: Doc example\nversion: 1.0.0\nlanguage: 2\nextends: base_3to5\n"
# a plain track for the markers example's `modify track favour` to change
PLAIN_FAVOUR = "tracks:\n  favour:\n    spaces: [" + ", ".join(["{points: 0}"] * 7) + "]\n"


def errors(folder):
    return [d.render() for d in validate_pack(folder).errors]


@pytest.mark.parametrize("heading", ["## 3. Declarations", "### Randomness"])
def test_the_example_validates_over_the_base_pack(tmp_path, heading):
    folder = write_pack(tmp_path / "ex", {"pack.yaml": MANIFEST, "rules/example.rules": rules_example(heading)})
    assert errors(folder) == []


def test_the_sides_and_markers_examples_validate_together_in_both_forms(tmp_path):
    """The faction `league` (Sides that do not play) reads the marker `mood` and the zones of
    the track `favour` (Shared markers); the track's zones are the same whether the rules
    `modify` a plain track or tracks YAML declares them as the document shows."""
    sides, markers = rules_example("### Sides that do not play"), rules_example("### Shared markers")
    doc = LANGUAGE_DOC.read_text(encoding="utf-8")
    yaml_form = re.search(r"```yaml\n(.*?)```", doc[doc.index("### Shared markers"):], re.S).group(1)
    in_rules = write_pack(tmp_path / "in_rules", {"pack.yaml": MANIFEST, "favour.yaml": PLAIN_FAVOUR,
                                                  "rules/sides.rules": sides, "rules/markers.rules": markers})
    in_yaml = write_pack(tmp_path / "in_yaml", {"pack.yaml": MANIFEST, "favour.yaml": yaml_form,
                                                "rules/sides.rules": sides,
                                                "rules/markers.rules": markers[markers.index("marker mood"):]})
    assert errors(in_rules) == [] and errors(in_yaml) == []

    def zones(folder):
        track = load_pack(folder).decls[("track", "favour")]
        plain = lambda v: getattr(v, "value", v)          # a Num of the rules, a number of the YAML
        return {key: (plain(b.fields["from"].value), plain(b.fields["to"].value))
                for (kind, key), b in track.blocks.items() if kind == "zone"}
    assert zones(in_rules) == zones(in_yaml) == {"leans_red": (0, 1), "calm": (2, 4), "leans_yellow": (5, 6)}
