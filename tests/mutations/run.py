"""Plant each bug of mutations.yaml in a copy of the tree and run the tests there.

    python3 tests/mutations/run.py                      # every mutation
    python3 tests/mutations/run.py trade_rate salaries  # some
    python3 tests/mutations/run.py --tests "tests/test_scenarios.py"   # another test selection

A mutation is *caught* when its tests (the `tests` of its entry: the files expected to catch it)
fail with it planted; the golden corpus (tests/test_golden.py) is run apart, so the table shows
both what names the wrong rule and whether the stored games change. The table printed at the end
(markdown) lists, for each, the failing tests (the first few). About a minute per mutation on two
CPUs. The tree itself is never changed: each mutation runs in its own temporary copy.
"""
from __future__ import annotations

import argparse
import os
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


def _pytest(tree: Path, args: str) -> tuple:
    """(failed?, [failing test ids], last line) of pytest run in the copy."""
    env = {**os.environ, "PYTHONPATH": str(tree), "RULESPEC_BUDGET": ""}
    # the copy's packages come first on sys.path (cwd, PYTHONPATH), ahead of any installed checkout
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", *shlex.split(args)],
                         cwd=tree, capture_output=True, text=True, env=env)
    failed = re.findall(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", run.stdout, re.M)
    return run.returncode != 0, failed, run.stdout.strip().splitlines()[-1:]


def run_one(mutation: dict, tests: str | None, all_failures: bool = False) -> dict:
    """Plant the mutation in a copy, run its tests (or `tests`), then the golden corpus apart."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutation['id']}-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(ROOT, tree, ignore=IGNORE)
        plant(tree, mutation)
        start = time.monotonic()
        caught, failed, tail = _pytest(tree, ("" if all_failures else "-x ") + (tests or mutation.get("tests") or DEFAULT_TESTS))
        golden, _, _ = _pytest(tree, "-n 0 -x tests/test_golden.py -k \"played_the_same or stored_log_replays\"")
        return {"id": mutation["id"], "where": mutation["where"], "bug": mutation["bug"],
                "caught": caught, "failed": failed, "golden": golden,
                "seconds": round(time.monotonic() - start), "tail": tail}


def table(results: list) -> str:
    rows = ["| # | mutation | where | planted bug | caught by (failing tests) | golden corpus |",
            "|---|---|---|---|---|---|"]
    for i, r in enumerate(results, 1):
        by = ", ".join(f"`{t.split('::', 1)[-1]}`" if "::" in t else f"`{t}`" for t in r["failed"][:3])
        more = f" (+{len(r['failed']) - 3})" if len(r["failed"]) > 3 else ""
        rows.append(f"| {i} | {r['id']} | {r['where']} | {r['bug']} | {by + more if r['caught'] else '**not caught**'} "
                    f"| {'fails' if r['golden'] else 'passes'} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", help="mutation ids (default: all)")
    ap.add_argument("--tests", help="pytest arguments (default: each mutation's own `tests`)")
    ap.add_argument("--all-failures", action="store_true",
                    help="list every failing test (default: stop at the first, -x, which is faster)")
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
        r = run_one(m, args.tests, args.all_failures)
        results.append(r)
        print(f"{'caught' if r['caught'] else 'SURVIVED':8} {r['id']:26} {r['seconds']:4}s  "
              f"{len(r['failed'])} failing, golden {'fails' if r['golden'] else 'passes'}  {' '.join(r['tail'])}",
              flush=True)
    print()
    print(table(results))
    survived = [r["id"] for r in results if not r["caught"]]
    print(f"\n{len(results) - len(survived)} of {len(results)} caught" +
          (f"; survived: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
