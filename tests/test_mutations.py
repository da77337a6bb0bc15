"""The planted-bug list (tests/mutations/mutations.yaml) stays plantable, and planting works.

Running the mutations takes about a minute each (tests/mutations/run.py, outside the README's
suite); this only checks that every mutation still applies to today's tree, so the list does not
rot silently when code or content moves.
"""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutation_run", ROOT / "tests" / "mutations" / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

MUTATIONS = run.load()


def test_there_are_enough_mutations_of_every_kind():
    assert len(MUTATIONS) >= 15
    assert len({m["id"] for m in MUTATIONS}) == len(MUTATIONS)
    kinds = {m["where"] for m in MUTATIONS}
    assert {"rules", "data", "interpreter"} <= kinds


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m["id"] for m in MUTATIONS])
def test_the_mutation_applies_to_todays_tree(mutation, tmp_path):
    for edit in mutation["edits"]:
        dest = tmp_path / edit["file"]
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists():
            shutil.copy(ROOT / edit["file"], dest)
    run.plant(tmp_path, mutation)
    for edit in mutation["edits"]:
        changed = (tmp_path / edit["file"]).read_text(encoding="utf-8")
        assert edit["new"] in changed or not edit["new"]
        assert changed != (ROOT / edit["file"]).read_text(encoding="utf-8")


def test_planting_refuses_a_text_that_is_not_there(tmp_path):
    (tmp_path / "f.txt").write_text("a a b", encoding="utf-8")
    with pytest.raises(ValueError):
        run.plant(tmp_path, {"id": "x", "edits": [{"file": "f.txt", "old": "zzz", "new": "y"}]})
    with pytest.raises(ValueError):            # twice, without all: true
        run.plant(tmp_path, {"id": "x", "edits": [{"file": "f.txt", "old": "a", "new": "y"}]})
