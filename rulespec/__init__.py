"""rulespec: the language (grammar, parser, AST, checker), packs and overlays.

`__version__` is the ENGINE version recorded in game logs and in the golden corpus. Its one
source of truth is `version` in pyproject.toml, read here from the installed package's
metadata (an editable install re-reads it on `pip install -e .`; tests/test_golden.py fails
when the two disagree)."""
import os as _os
import sys as _sys


def _installed_version() -> str | None:
    """The `Version:` of the installed distribution's metadata, found as importlib.metadata
    finds it (the first entry of sys.path holding a `rulespec-*.dist-info` or `rulespec*.egg-info`),
    read directly: importlib.metadata costs every command about 55 ms of CPU at its start (it
    imports the e-mail parser and lists every installed distribution), a tenth of a `rulespec
    validate`. None when no such folder says (then importlib.metadata is asked)."""
    for entry in _sys.path:
        try:
            names = sorted(_os.listdir(entry or "."))
        except OSError:             # a zip file, a folder gone
            continue
        for name in names:
            low = name.lower()
            if low.startswith("rulespec-") and low.endswith(".dist-info"):
                meta = "METADATA"
            elif low.startswith(("rulespec-", "rulespec.")) and low.endswith(".egg-info"):
                meta = "PKG-INFO"
            else:
                continue
            try:
                with open(_os.path.join(entry or ".", name, meta), encoding="utf-8") as f:
                    for line in f:
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
                        if not line.strip():        # the headers end at the first blank line
                            break
            except OSError:
                continue
    return None


__version__ = _installed_version()
if __version__ is None:
    from importlib.metadata import PackageNotFoundError, version as _version

    try:
        __version__ = _version("rulespec")
    except PackageNotFoundError:        # a source tree that was never installed
        __version__ = "0+unknown"
