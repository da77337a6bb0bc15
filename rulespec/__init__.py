"""rulespec: the language (grammar, parser, AST, checker), packs and overlays.

`__version__` is the ENGINE version recorded in game logs and in the golden corpus. Its one
source of truth is `version` in pyproject.toml, read here from the installed package's
metadata (an editable install re-reads it on `pip install -e .`; tests/test_golden.py fails
when the two disagree)."""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("rulespec")
except PackageNotFoundError:        # a source tree that was never installed
    __version__ = "0+unknown"
