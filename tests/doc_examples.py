"""The examples of docs/language.md, for the tests that check that each one validates."""
from __future__ import annotations

import re
from pathlib import Path

LANGUAGE_DOC = Path(__file__).resolve().parents[1] / "docs" / "language.md"


def rules_example(after: str) -> str:
    """The first ```rules block after the text `after` (a heading) of docs/language.md."""
    text = LANGUAGE_DOC.read_text(encoding="utf-8")
    return re.search(r"```rules\n(.*?)```", text[text.index(after):], re.S).group(1)
