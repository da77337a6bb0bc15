"""Shared test helpers: build small packs in temporary folders."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def write_pack(root: Path, files: dict) -> Path:
    """Write {relative path: text} under root (dedented) and return root."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def make_pack(tmp_path):
    def make(name: str, files: dict) -> Path:
        return write_pack(tmp_path / name, files)
    return make
