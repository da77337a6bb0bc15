"""Plant each bug of mutations.yaml in a copy of the tree and run the tests there.

    python3 tests/mutations/run.py                      # every mutation
    python3 tests/mutations/run.py trade_rate salaries  # some
    python3 tests/mutations/run.py --tests "tests/test_scenarios.py"   # another test selection

A mutation is *caught* when the selected tests fail with it planted. The table printed at the
end (markdown) lists, for each, the failing tests (the first few). The default selection is the
README's suite without the mass run (`-m "not slow"`); it takes about a minute per mutation on
two CPUs. The tree itself is never changed: each mutation runs in its own temporary copy.
"""
from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
MUTATIONS = Path(__file__).resolve().parent / "mutations.yaml"
DEFAULT_TESTS = '-m "not slow"'
IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")


def load() -> list:
    return yaml.safe_load(MUTATIONS.read_text(encoding="utf-8"))


def plant(tree: Path, mutation: dict):
    """Apply the mutation's edits under `tree`; raise ValueError when an `old` text is not
    found exactly once (or at all, with `all: true`)."""
    for edit in mutation["edits"]:
        path = tree / edit["file"]
        text = path.read_text(encoding="utf-8")
        n = text.count(edit["old"])
        if n == 0 or (n > 1 and not edit.get("all")):
            raise ValueError(f"{mutation['id']}: {edit['file']}: the old text occurs {n} times")
        path.write_text(text.replace(edit["old"], edit["new"]), encoding="utf-8")


def run_one(mutation: dict, tests: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutation['id']}-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(ROOT, tree, ignore=IGNORE)
        plant(tree, mutation)
        start = time.monotonic()
        # the copy's packages come first on sys.path (cwd), ahead of any installed checkout
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider",
                              *shlex.split(tests)], cwd=tree, capture_output=True, text=True,
                             env={**__import__("os").environ, "PYTHONPATH": str(tree), "RULESPEC_BUDGET": ""})
        failed = re.findall(r"^FAILED (.+?)(?: - .*)?$", run.stdout, re.M)
        errors = re.findall(r"^ERROR (.+?)(?: - .*)?$", run.stdout, re.M)
        return {"id": mutation["id"], "where": mutation["where"], "bug": mutation["bug"],
                "caught": run.returncode != 0, "failed": failed + errors,
                "seconds": round(time.monotonic() - start), "tail": run.stdout.strip().splitlines()[-1:]}


def table(results: list) -> str:
    rows = ["| # | mutation | where | planted bug | caught | by (failing tests, first 3) |",
            "|---|---|---|---|---|---|"]
    for i, r in enumerate(results, 1):
        by = ", ".join(f"`{t.split('::', 1)[-1]}`" if "::" in t else f"`{t}`" for t in r["failed"][:3])
        more = f" (+{len(r['failed']) - 3})" if len(r["failed"]) > 3 else ""
        rows.append(f"| {i} | {r['id']} | {r['where']} | {r['bug']} | {'yes' if r['caught'] else '**NO**'} "
                    f"| {by}{more} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", help="mutation ids (default: all)")
    ap.add_argument("--tests", default=DEFAULT_TESTS, help=f"pytest arguments (default: {DEFAULT_TESTS})")
    args = ap.parse_args(argv)
    mutations = load()
    unknown = set(args.ids) - {m["id"] for m in mutations}
    if unknown:
        print(f"no mutation {', '.join(sorted(unknown))}; see {MUTATIONS}", file=sys.stderr)
        return 2
    results = []
    for m in mutations:
        if args.ids and m["id"] not in args.ids:
            continue
        r = run_one(m, args.tests)
        results.append(r)
        print(f"{'caught' if r['caught'] else 'SURVIVED':8} {r['id']:26} {r['seconds']:4}s  "
              f"{len(r['failed'])} failing  {' '.join(r['tail'])}", flush=True)
    print()
    print(table(results))
    survived = [r["id"] for r in results if not r["caught"]]
    print(f"\n{len(results) - len(survived)} of {len(results)} caught" +
          (f"; survived: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
