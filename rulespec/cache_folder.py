"""The user's rulespec cache folder, and the compiled Python modules kept there.

The folder holds the compiled packs (rulespec/packcache.py), the compiled rules' Python code
(interpreter/codecache.py) and, for a process told to write no bytecode, the compiled modules
of the engine itself. This module imports nothing of the project: `rulespec`'s command line
calls `keep_compiled_modules` before it imports the rest, whose compiled forms are then kept.
"""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path


def cache_dir() -> Path | None:
    """The cache folder (created 0700 if missing), or None when the cache is off or the
    folder cannot be trusted (another owner, writable by group or others)."""
    if os.environ.get("RULESPEC_NO_CACHE", "") not in ("", "0"):
        return None
    base = os.environ.get("RULESPEC_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg, "rulespec") if xdg else os.path.join(os.path.expanduser("~"), ".cache", "rulespec")
    path = Path(base)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022:
        return None
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return None
    return path


def keep_compiled_modules(temporary: bool = False) -> str | None:
    """Where PYTHONDONTWRITEBYTECODE is set (container images often set it), every process
    compiles every module it imports from source: 0.1 to 0.2 s of CPU at each start of
    `rulespec`, a quarter of a fresh `rulespec validate`, and for the test suite about 0.2 s
    per child process and 2 s per pytest-xdist worker (pytest rewrites the asserts of every
    test module). This process, and the processes it starts (the environment says so), keep
    them instead under `pycache/` of the cache folder (PYTHONPYCACHEPREFIX) from one run to
    the next: nothing is written beside the sources, and Python uses a file only while its
    source has the size and time it was compiled from. With the cache off (RULESPEC_NO_CACHE=1,
    or a folder others can write) nothing changes, unless `temporary` (the test suite): then a
    folder of this run's own, removed at its end. Returns the folder, or None when nothing
    changed (bytecode is written as usual, or a prefix is set already)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return None
    cache = cache_dir()
    if cache is not None:
        folder = str(cache / "pycache")
    elif temporary:
        import atexit
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="rulespec-test-pycache-")
        atexit.register(shutil.rmtree, folder, True)
    else:
        return None
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    sys.pycache_prefix, sys.dont_write_bytecode = folder, False      # this process's imports from now on
    return folder
