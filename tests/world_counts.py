"""The two counts issue 16 (an open world model) is judged by, in one place.

1. The built-in names the checker accepts (`rulespec/vocabulary.py`: globals, functions,
   attributes and verbs; constants are listed apart, they are not counted), and the `Runtime`
   methods that implement them (`g_`, `f_`, `a_`, `v_`), per file.
2. The base-game nouns in `interpreter/`: identifiers and string literals (comments and
   docstrings left out, so explaining a rule in prose costs nothing) that name a base-game
   component.

`tests/test_world_budget.py` holds these counts to ratchets, and the issue note quotes the
output of `python3 tests/world_counts.py`: both run this code, so they cannot disagree
(docs/design/world-model-plan.md, §1.1 and §1.4).
"""
from __future__ import annotations

import ast
import inspect
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INTERPRETER = ROOT / "interpreter"

# the list of base-game components ("tier 1"): the acceptance criterion is 0 of these
TIER1 = r"florin|troop|agent|indulgence|alliance|troph|cortigiano|palace|room|cathedral|patronage|siege|besieg|notable"
# tier 1 and the wider vocabulary of the base game (reported, not a criterion)
TIER2 = (TIER1 + r"|war_token|war_bonus|fight|court|marker|disc|family|improvement|annex|pirate|crown|cross"
                 r"|prestige|city|cities|tile|card|year|spring|winter")
PREFIXES = {"g_": "globals", "f_": "functions", "a_": "attributes", "v_": "verbs"}


# ------------------------------------------------------------------ 1. built-in names
def builtin_names() -> dict[str, list[str]]:
    """Every name the checker accepts, by category (attributes as `kind.name`), and the
    constants (words of value, reported apart)."""
    from rulespec.vocabulary import ATTRIBUTES, CONSTANTS, FUNCTIONS, GLOBALS, VERBS
    return {
        "globals": sorted(GLOBALS),
        "functions": sorted(FUNCTIONS),
        "attributes": sorted(f"{kind}.{name}" for kind, names in ATTRIBUTES.items() for name in names),
        "verbs": sorted(VERBS),
        "constants": sorted(CONSTANTS),
    }


def builtin_total(names: dict | None = None) -> int:
    """The count the issue bounds (at most 60 at the end): globals + functions + attributes + verbs."""
    names = names or builtin_names()
    return sum(len(names[c]) for c in ("globals", "functions", "attributes", "verbs"))


def runtime_methods() -> dict[str, dict[str, list[str]]]:
    """The `Runtime` methods implementing the vocabulary: {file name: {prefix: [names]}}, each
    method counted once, in the file of the class that defines it (Runtime and its mixins)."""
    from interpreter.runtime import Runtime
    out: dict[str, dict[str, list[str]]] = {}
    seen = set()
    for cls in Runtime.__mro__:
        if cls is object:
            continue
        fname = Path(inspect.getsourcefile(cls)).name
        for name in cls.__dict__:
            if name[:2] in PREFIXES and name not in seen:
                seen.add(name)
                out.setdefault(fname, {}).setdefault(name[:2], []).append(name)
    return out


# ------------------------------------------------------------------ 2. nouns in interpreter/
def _words(tree: ast.AST) -> list[str]:
    """The identifiers and string literals of a module: names, attributes, parameters, function
    and class names, string constants that are not docstrings. Comments are not in the AST."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    words = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            words.append(n.id)
        elif isinstance(n, ast.Attribute):
            words.append(n.attr)
        elif isinstance(n, ast.arg):
            words.append(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            words.append(n.name)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            words.append(n.value)
    return words


def noun_hits(pattern: str = TIER1, folder: Path = INTERPRETER) -> dict[str, int]:
    """{file name: matches of `pattern` (case-insensitive) in its identifiers and string
    literals}, every .py file of `folder`, files with no match included (as 0)."""
    rx = re.compile(pattern, re.I)
    return {p.name: sum(len(rx.findall(w)) for w in _words(ast.parse(p.read_text(encoding="utf-8"))))
            for p in sorted(folder.glob("*.py"))}


def noun_words(pattern: str = TIER1, folder: Path = INTERPRETER, files=None) -> Counter:
    """The matching words themselves, with how often each occurs (in the named `files` of
    `folder`, default all): what a stage has left to do."""
    rx = re.compile(pattern, re.I)
    c: Counter = Counter()
    for p in sorted(folder.glob("*.py")):
        if files is not None and p.name not in files:
            continue
        for w in _words(ast.parse(p.read_text(encoding="utf-8"))):
            if rx.search(w):
                c[w] += 1
    return c


# ------------------------------------------------------------------ report
def _per_file(counts: dict[str, int]) -> str:
    return ", ".join(f"{f} {n}" for f, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n)


def report(verbose: bool = False) -> str:
    names = builtin_names()
    methods = runtime_methods()
    lines = ["built-in names the checker accepts (rulespec/vocabulary.py):",
             "  " + ", ".join(f"{c} {len(names[c])}" for c in ("globals", "functions", "attributes", "verbs"))
             + f" = {builtin_total(names)} (issue target: at most 60); constants {len(names['constants'])} (not counted)"]
    by_prefix = Counter({p: sum(len(m.get(p, [])) for m in methods.values()) for p in PREFIXES})
    lines.append("Runtime methods implementing them:")
    lines.append("  " + ", ".join(f"{p} {by_prefix[p]}" for p in sorted(PREFIXES)) + f" = {sum(by_prefix.values())}; "
                 + ", ".join(f"{f} {sum(len(v) for v in m.values())}" for f, m in methods.items()))
    for label, rx in (("tier 1, the issue's list (target 0)", TIER1), ("tier 1+2", TIER2)):
        hits = noun_hits(rx)
        lines.append(f"base-game nouns in interpreter/ identifiers and strings, {label}: {sum(hits.values())}")
        lines.append("  " + _per_file(hits))
    if verbose:
        for c in ("globals", "functions", "attributes", "verbs", "constants"):
            lines.append(f"{c}: {' '.join(names[c])}")
        lines.append("tier-1 words: " + ", ".join(f"{w} {n}" for w, n in noun_words().most_common()))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(report(verbose="-v" in sys.argv[1:] or "--verbose" in sys.argv[1:]))
