"""`rulespec ARGS` run in the test's own process, with its exit code and output, where a test
needs no separate process (no resource limits, no fresh imports): a child process costs about
half a second of CPU in imports and pack loading, which the README's suite paid per call.

The result looks like subprocess.run's (returncode, stdout, stderr). An exception main does not
turn into a diagnostic propagates and fails the test, as a traceback in a child's output did.
"""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from types import SimpleNamespace

from rulespec.cli import main


def run_cli(*args, cwd: Path | str | None = None) -> SimpleNamespace:
    """(returncode, stdout, stderr) of `rulespec ARGS` run in this process, from `cwd`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:          # argparse: usage errors, --help, --version
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue(), args=list(args))
