"""The limits that keep the work of an untrusted pack (or log, or scenario) bounded.

A pack is shared between people and run without being read first: whatever it holds, loading,
checking and playing it must end, quickly, in a result or in a positioned error (never a hang,
a MemoryError or a Python traceback). Every limit is far above what the bundled packs need;
docs/validator.md ("Limits") lists them with the code reported when one is passed.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager

# ---------------------------------------------------------------- files (RS004, RS005)
MAX_FILE_BYTES = 256 << 10        # one pack file, scenario or data file (the largest bundled: 21 KB)
MAX_PACK_BYTES = 1 << 20          # all the files of one pack folder (base_3to5: 154 KB)
MAX_PACK_FILES = 1_000            # files read from one pack folder (base_3to5: 22)
MAX_LOG_BYTES = 16 << 20          # a game log (a 5-player game is about 200 KB)
MAX_PATH_CHARS = 1024             # a path given on the command line or written in a file
MAX_PATH_PART_CHARS = 255         # one folder or file name of such a path

# ---------------------------------------------------------------- YAML (RS005)
MAX_YAML_NODES = 20_000           # values in one YAML file, aliases expanded (the bundled map: ~2,500)
MAX_YAML_DEPTH = 200              # nested mappings / lists
MAX_YAML_INT_CHARS = 18           # digits of an integer written in YAML

# ---------------------------------------------------------------- the DSL (RS005)
MAX_NESTING = 500                 # nested expressions and blocks in one declaration
MAX_NAME_CHARS = 100              # a name (identifier)
MAX_NUMBER_DIGITS = 15            # digits of a number written in a rule
MAX_COPIES = 1_000                # copies of one card or tile (each is a thing of the game state)

# ---------------------------------------------------------------- evaluation (RS305)
WORK_BUDGET = 1_000_000           # formula calls, elements iterated by comprehensions, ranges and
                                  # cost combinations, per call of the API (one move, one score...)
MAX_FORMULA_DEPTH = 100           # formulas calling formulas
MAX_RANGE = 100_000               # elements of range(lo, hi)
MAX_COST_ALTERNATIVES = 1_000     # alternatives of one cost (`crown | cross` has 2)
MAX_FRAMES = 5_000                # procedures and blocks running inside each other (the VM's stack)
MAX_VM_STEPS = 1_000_000          # instructions run without a decision (an endless effect loop)

# Python's own recursion limit while parsing, checking and compiling: nested expressions up to
# MAX_NESTING take a few Python frames per level (pure-Python recursion, which Python 3.11 runs
# without using the C stack).
RECURSION_LIMIT = 8_000


@contextmanager
def deep_recursion():
    """Raise Python's recursion limit for the duration (never lowers it)."""
    old = sys.getrecursionlimit()
    if old < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        yield
    finally:
        if old < RECURSION_LIMIT:
            sys.setrecursionlimit(old)
