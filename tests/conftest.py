"""Shared test helpers: build small packs in temporary folders."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from ci_budget import Budget, enforced
from ci_mode import CI

# The test packs extend each other (`extends: minimal`, `extends: ../../minimal`): a pack reads
# only its own folder, and `extends:` reaches the trusted packs of the search path (docs/
# validator.md, RS022). tests/packs is in it for every test, and for the CLI they run.
PACKS = Path(__file__).resolve().parent / "packs"
_old = os.environ.get("RULESPEC_PACK_PATH")
os.environ["RULESPEC_PACK_PATH"] = str(PACKS) + (os.pathsep + _old if _old else "")


def _share_compiled_modules():
    """Every process of the run (the pytest-xdist workers, the hostile-input CLI runs, the
    scenario runner's pytest, bench) keeps the compiled modules in the cache folder where
    PYTHONDONTWRITEBYTECODE is set (rulespec/cache_folder.py), or in a folder of the run's own;
    pytest keeps its rewritten test modules there too (about 2 s of CPU per worker, half of
    collecting the suite). Set by the first process (the controller, or the one process of
    `-n 0`), inherited by the others."""
    from rulespec.cache_folder import keep_compiled_modules
    keep_compiled_modules(temporary=True)


_share_compiled_modules()


def _fewer_garbage_collections():
    """Python's cyclic garbage collector runs a young collection every 700 new container
    objects, and a full one, which walks every object alive, once those that survived the young
    ones since the last reach a quarter of the rest. A test process keeps a large heap alive
    (compiled packs and engines in module fixtures, the tests collected), and loading a pack
    creates about 50,000 such objects (base_3to5 from the compiled-pack cache), so loading and
    compiling packs spent about as long in the collector as in the work itself. Measured with
    `-n 0` on test_examples, test_variants and test_show (2026-11-27, load ~7): 66 s of CPU with
    Python's thresholds, 44 s with these, 41 s with the collection's heap frozen as well (below);
    with the collector off, 48 s and twice the memory. Then 200,000 and a middle collection
    every 50 young ones instead of 50,000 and 20 (a pack loaded from the cache, unpickled with
    the collector paused, set off a young collection as soon as it was on again; a test often
    drops the pack before the next one now): test_examples, test_variants, test_show,
    test_properties and test_cli (`-n 0`, 2026-11-27, load ~4, run in turns) 52.5 and 44.3 s of
    CPU with 50,000 and 20, 44.2 and 40.0 with these (6.1 to 7.0 s in the collector, against
    3.4 to 4.0), the largest process 490 MB either way. Only when collections run changes, not
    what they free."""
    import gc
    gc.set_threshold(200_000, 50, 100)


_fewer_garbage_collections()


def _verify_constraint_writes():
    """A move applied in place to the last state that passed is checked by what it wrote
    (interpreter/constraints.py, Writes): the tests also make every such check in full and fail
    on any difference, so a primitive that changes the state without noting it is caught by
    every game the tests play, of every pack."""
    from interpreter import constraints
    constraints.VERIFY_WRITES = True


_verify_constraint_writes()


def pytest_collection_finish(session):
    """What the collection built (modules, test items, parametrised values) lives to the end of
    the run: frozen (gc.freeze), the collector no longer walks it at every full collection."""
    import gc
    gc.collect()
    gc.freeze()


_budget = None


def pytest_configure(config):
    global _budget
    if not hasattr(config, "workerinput"):          # the controller (or a run without xdist)
        _budget = Budget()
        _one_worker_per_file(config)


def _one_worker_per_file(config):
    """The README's command sends each test file to one pytest-xdist worker (`--dist loadfile`)
    instead of spreading its tests over all of them: a file's module fixtures (a compiled
    pack, an engine, the games a file plays once for all its tests) are then built once, not
    once per worker. CI keeps `--dist load`: its mass run is one file of 37 test minutes, which
    must be spread. A `--dist` given on the command line is kept."""
    if CI or getattr(config.option, "dist", None) != "load" or \
            any(a == "--dist" or a.startswith("--dist=") for a in config.invocation_params.args):
        return
    config.option.dist = "loadfile"


def pytest_collection_modifyitems(config, items):
    """Tests marked `ci_only` (tests/ci_mode.py) run in CI, or with RULESPEC_FULL=1."""
    if CI:
        return
    skip = pytest.mark.skip(reason="CI only (CI=true or RULESPEC_FULL=1 runs it; docs/testing.md)")
    for item in items:
        if "ci_only" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_logreport(report):
    if _budget is not None:
        _budget.add(report)


def pytest_sessionfinish(session, exitstatus):
    """Where the budget is enforced (.ci/run), a part over its budget fails the run."""
    if _budget is not None and enforced() and _budget.over() and exitstatus == 0:
        session.exitstatus = 1


def write_pack(root: Path, files: dict) -> Path:
    """Write {relative path: text} under root (dedented) and return root."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def at(engine, given=None, give=None, start=None, moves=()):
    """A position set up as a scenario does (interpreter/scenario.py): a 3-player game of seed
    1, the `given` paths set, cards given, an Action or procedure started, moves played."""
    from interpreter import scenario as S
    s = engine.new_game(["red", "yellow", "green"], 1)
    for k, v in (given or {}).items():
        S._set(s, k, v)
    S.refresh(engine, s)
    if give:
        S.give(engine, s, give)
    if start:
        S.start(engine, s, start)
    for m in moves:
        s = engine.apply(s, m)
    return s


@pytest.fixture
def make_pack(tmp_path):
    def make(name: str, files: dict) -> Path:
        return write_pack(tmp_path / name, files)
    return make


def pytest_terminal_summary(terminalreporter):
    _whole_games_summary(terminalreporter)
    if _budget is not None:
        _budget.report(terminalreporter)
        for part, used, budget in (_budget.over() if enforced() else ()):
            terminalreporter.write_line(f"CI budget: '{part}' took {used:.1f} test minutes, over its {budget:g} "
                                        f"(docs/testing.md): make it faster, or change the table on purpose")


def _whole_games_summary(terminalreporter):
    """How many whole random games (tests/test_full_games.py) reached an end condition of the
    rules, per player count: the others stopped at the pack's bound. Works under pytest-xdist
    (recorded properties travel with the test reports)."""
    totals = {}
    for rep in terminalreporter.stats.get("passed", []):
        for name, value in getattr(rep, "user_properties", ()):
            if name == "whole_games":
                t = totals.setdefault(value["players"], [0, 0, value["bound"], []])
                t[0] += value["ended"]
                t[1] += value["games"]
                t[3] += value.get("at_bound", [])
    if totals:
        terminalreporter.write_sep("-", "whole random games")
        for players in sorted(totals):
            ended, games, bound, seeds = totals[players]
            which = f" (seeds {', '.join(map(str, sorted(seeds)))})" if seeds else ""
            terminalreporter.write_line(f"{players} players: {ended} of {games} games ended by the rules, "
                                        f"{games - ended} stopped at the {bound}-Year bound{which}")


def pytest_unconfigure(config):
    """pytest ends each process with five full garbage collections in a row (to report the
    exceptions of finalisers: its unraisableexception plugin), each walking the whole heap a
    test process keeps: about 0.6 s of CPU each after three test files, several seconds per
    worker after a whole run. The heap is frozen here, so pytest's collections only walk what
    changed since. In CI one collection comes first: it runs the finalisers of the garbage left
    at the end (cycles already promoted to the oldest generation), with pytest's hook still in
    place to report an exception of one, a warning printed after the summary that never fails
    the run; the README's command skips it (2 to 4 s of CPU per worker after a whole run;
    docs/testing.md, "What runs where")."""
    import gc
    if CI:
        gc.collect()
    gc.freeze()
