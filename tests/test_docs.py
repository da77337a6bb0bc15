"""The designer docs stay in step with the language: every kind, field, function, attribute
and verb is documented, and every validator code has an entry (regenerate the tables with
`python docs/regen_tables.py .`)."""
from __future__ import annotations

import re
from pathlib import Path

from rulespec import vocabulary as V
from rulespec.kinds import KINDS

DOCS = Path(__file__).resolve().parents[1] / "docs"
LANGUAGE = (DOCS / "language.md").read_text(encoding="utf-8")
VALIDATOR = (DOCS / "validator.md").read_text(encoding="utf-8")


def test_every_kind_and_field_is_documented():
    for kind, spec in KINDS.items():
        assert f"**{kind}**" in LANGUAGE, kind
        for f in spec.fields:
            assert f"`{f}`" in LANGUAGE, (kind, f)


def test_every_function_verb_and_global_is_documented():
    for name in list(V.FUNCTIONS) + list(V.VERBS):
        assert f"`{name}(" in LANGUAGE, name
    for name in V.GLOBALS:
        assert f"`{name}`" in LANGUAGE, name


def test_every_code_the_validator_can_emit_is_documented():
    root = Path(__file__).resolve().parents[1]
    codes = set()
    for folder in ("rulespec", "validator", "interpreter"):
        for py in (root / folder).glob("*.py"):
            codes |= set(re.findall(r'"(RS\d{3})"', py.read_text(encoding="utf-8")))
    missing = sorted(c for c in codes if c not in VALIDATOR and c not in ("RS000",))
    assert not missing, f"codes without an entry in docs/validator.md: {missing}"
