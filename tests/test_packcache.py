"""The compiled-pack cache (rulespec/packcache.py): a hit plays the same games as a fresh load,
a changed file or a corrupt entry is never used, and diagnostics do not depend on it."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.api import Engine
from interpreter.golden import DEFAULT_DIR, key_of, play_one, read_golden
from rulespec import packcache
from rulespec import pack as packmod
from rulespec.pack import load_pack, load_pack_collecting

PACKS = Path(__file__).resolve().parent / "packs"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache folder, and a count of the levels loaded afresh (not from the cache)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(folder))
    monkeypatch.delenv("RULESPEC_NO_CACHE", raising=False)
    fresh = []
    real = packmod._Loader._load_level

    def counting(self, folder_, seen, root):
        fresh.append(Path(folder_).name)
        return real(self, folder_, seen, root)
    monkeypatch.setattr(packmod._Loader, "_load_level", counting)
    return folder, fresh


def entries(folder: Path) -> list:
    return sorted(folder.glob("*.pack"))


def test_a_cache_hit_plays_the_stored_golden_game(cache):
    folder, fresh = cache
    stored = min((g for g in read_golden(DEFAULT_DIR)["games"] if g["pack"] == "wars_of_italy" and g["bot"] == "random"),
                 key=lambda g: g["moves"])
    load_pack("wars_of_italy")
    assert fresh == ["wars_of_italy", "base_3to5"] and len(entries(folder)) == 2   # each level of the chain
    fresh.clear()
    pack = load_pack("wars_of_italy")
    assert fresh == [], "the second load came from the cache"
    entry, _ = play_one(Engine(pack), key_of(stored))
    for field in ("moves", "moves_sha256", "final_state_sha256", "scores", "winners"):
        assert entry[field] == stored[field], field


def same_objects(a, b, seen=None) -> None:
    """Assert that `b` is `a` rebuilt: the same types, attributes (names, order, values) and
    items all the way down, and the same sharing (an object reached twice in `a` is one
    object in `b`)."""
    seen = {} if seen is None else seen
    assert type(a) is type(b), (type(a), type(b))
    if id(a) in seen:
        assert seen[id(a)] is b, "shared in one, copied in the other"
        return
    if isinstance(a, (str, int, float, bool, type(None), Path)):
        assert a == b
        return
    seen[id(a)] = b
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same_objects(a[k], b[k], seen)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_objects(x, y, seen)
    else:
        assert hasattr(a, "__dict__"), type(a)
        same_objects(vars(a), vars(b), seen)


def test_a_cache_hit_is_the_fresh_load_rebuilt_object_for_object(cache):
    """The cache writes positions (Span) and the dataclass instances of a pack in a compact
    form (rulespec/compactpickle.py): what it gives back is still the fresh load, every type,
    attribute and shared object, for both levels of an overlay."""
    folder, fresh = cache
    afresh = load_pack("wars_of_italy")
    assert fresh == ["wars_of_italy", "base_3to5"]
    fresh.clear()
    cached = load_pack("wars_of_italy")
    assert fresh == [] and cached is not afresh
    same_objects(afresh, cached)
    fresh.clear()
    same_objects(load_pack("base_3to5"), load_pack("base_3to5"))
    assert fresh == []


def test_a_compact_pickle_keeps_added_and_reordered_attributes():
    """An instance whose attributes differ from its class's fields (one added, one removed and
    set again, so later in order) comes back with exactly those, in that order."""
    from rulespec import compactpickle
    from rulespec.pack import FieldValue
    from rulespec.errors import Span
    a = FieldValue("n", 1, Span("f", 2, 3))
    b = FieldValue("m", [a], Span("f", 4, 5))
    b.extra = "added"
    del b.value
    b.value = [a]
    back = pickle.loads(compactpickle.dumps([a, b, a]))
    same_objects([a, b, a], back)
    assert list(vars(back[1])) == ["name", "span", "annotations", "history", "extra", "value"]


def test_an_overlay_reuses_its_cached_base(cache, make_pack):
    folder, fresh = cache
    load_pack(PACKS / "minimal")
    fresh.clear()
    overlay = make_pack("over", {"pack.yaml": "id: over\nname: Over\nversion: 1.0.0\nextends: minimal\n",
                                 "extra.rules": "symbol extra_symbol \"Extra\" { storable: true }\n"})
    pack = load_pack(overlay)
    assert fresh == ["over"]
    assert pack.get("symbol", "extra_symbol") is not None and pack.chain == ["minimal", "over"]


def test_a_changed_file_invalidates_the_entry(cache, tmp_path):
    folder, fresh = cache
    pack_dir = tmp_path / "minimal"
    shutil.copytree(PACKS / "minimal", pack_dir)
    before = load_pack(pack_dir)
    assert load_pack(pack_dir).decls.keys() == before.decls.keys()
    assert fresh == ["minimal"]
    rules = pack_dir / "rules" / "symbols.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + '\nsymbol added_later "Added" { storable: true }\n', encoding="utf-8")
    after = load_pack(pack_dir)
    assert fresh == ["minimal", "minimal"]
    assert after.get("symbol", "added_later") is not None
    (pack_dir / "rules" / "more.rules").write_text('symbol new_file "New" { storable: true }\n', encoding="utf-8")
    assert load_pack(pack_dir).get("symbol", "new_file") is not None     # a new file too
    assert len(fresh) == 3


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign key", "bad pickle", "empty"])
def test_a_corrupt_entry_falls_back_to_a_fresh_load(cache, damage):
    folder, fresh = cache
    good = load_pack(PACKS / "minimal")
    [entry] = entries(folder)
    blob = entry.read_bytes()
    head, _, payload = blob.partition(b"\n")
    header, _, payload = payload.partition(b"\n")
    if damage == "garbage":
        blob = os.urandom(len(blob))
    elif damage == "truncated":
        blob = blob[: len(blob) // 2]
    elif damage == "foreign key":
        h = json.loads(header)
        h["key"] = "0" * 64
        blob = head + b"\n" + json.dumps(h).encode() + b"\n" + payload
    elif damage == "bad pickle":        # a payload whose digest matches but is no pack
        import hashlib
        import pickle
        payload = pickle.dumps(("not", "a", "pack"))
        h = json.loads(header)
        h["digest"] = hashlib.sha256(payload).hexdigest()
        blob = head + b"\n" + json.dumps(h).encode() + b"\n" + payload
    else:
        blob = b""
    entry.write_bytes(blob)
    fresh.clear()
    again = load_pack(PACKS / "minimal")
    assert fresh == ["minimal"]
    assert again.decls.keys() == good.decls.keys() and again.content_hash() == good.content_hash()


def _diagnostics(ds):
    return [(d.code, d.message, str(d.span), d.hint, d.severity) for d in ds]


def test_diagnostics_are_the_same_with_and_without_the_cache(cache, make_pack, monkeypatch):
    folder, fresh = cache
    warned = make_pack("warned", {"pack.yaml": "id: warned\nname: W\nversion: 1.0.0\nextends: minimal\n",
                                  "notes/map.yaml": "cities: {}\n"})          # RS007: not read
    broken = make_pack("broken", {"pack.yaml": "id: broken\nname: B\nversion: 1.0.0\nextends: minimal\n",
                                  "bad.rules": "action oops {\n  cost: 1 florin florin\n"})

    def both(ref):
        pack, errors = load_pack_collecting(ref)
        return _diagnostics(errors), _diagnostics(pack.warnings if pack else [])
    monkeypatch.setenv("RULESPEC_NO_CACHE", "1")
    uncached = {p: both(p) for p in (warned, broken)}
    monkeypatch.delenv("RULESPEC_NO_CACHE")
    first = {p: both(p) for p in (warned, broken)}
    fresh.clear()
    second = {p: both(p) for p in (warned, broken)}
    assert uncached == first == second
    assert uncached[warned][1] and uncached[broken][0]      # a warning, an error
    assert fresh == ["broken"], "the pack with errors is loaded afresh each time (never stored)"


def test_the_cache_is_off_when_asked_or_when_the_folder_is_not_private(cache, tmp_path, monkeypatch):
    folder, fresh = cache
    monkeypatch.setenv("RULESPEC_NO_CACHE", "1")
    load_pack(PACKS / "minimal")
    assert not folder.exists() or not entries(folder)
    monkeypatch.delenv("RULESPEC_NO_CACHE")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(shared))
    assert packcache.cache_dir() is None
    load_pack(PACKS / "minimal")
    assert not entries(shared)


def test_a_pack_in_the_temporary_folder_is_not_kept_in_a_cache_outside_it(cache, tmp_path, monkeypatch):
    """A pack in the system's temporary folder (a test's, a generated one) is a new folder each
    time: its entry would never be used again, only push out the packs loaded again and again.
    Its base is still read from the cache; the same pack elsewhere is kept; and a cache folder
    that is itself temporary (this module's) keeps it."""
    from conftest import write_pack
    folder, fresh = cache
    monkeypatch.setattr(packcache, "_TEMP", (tmp_path / "temp").resolve())
    files = {"pack.yaml": "id: over\nname: Over\nversion: 1.0.0\nextends: minimal\n",
             "extra.rules": 'symbol extra_symbol "Extra" { storable: true }\n'}
    temporary = write_pack(tmp_path / "temp" / "over", files)
    kept = write_pack(tmp_path / "kept" / "over", files)
    assert load_pack(temporary).get("symbol", "extra_symbol") is not None
    load_pack(temporary)
    assert fresh == ["over", "minimal", "over"] and len(entries(folder)) == 1     # minimal's only
    fresh.clear()
    load_pack(kept)
    load_pack(kept)
    assert fresh == ["over"] and len(entries(folder)) == 2
    monkeypatch.setattr(packcache, "_TEMP", tmp_path.resolve())      # the cache folder is temporary too
    fresh.clear()
    load_pack(temporary)
    load_pack(temporary)
    assert fresh == ["over"] and len(entries(folder)) == 3


def test_a_pack_that_extends_none_is_one_entry_whatever_the_search_path(cache, tmp_path):
    """Only `extends:` reads the search path: a pack without it (base_3to5) is found in the cache
    whatever --pack-path or scenario folder a load names."""
    folder, fresh = cache
    load_pack(PACKS / "minimal")
    assert fresh == ["minimal"]
    (tmp_path / "elsewhere").mkdir()
    load_pack(PACKS / "minimal", search_path=[tmp_path / "elsewhere"])
    assert fresh == ["minimal"] and len(entries(folder)) == 1


def test_old_entries_are_pruned(cache, tmp_path):
    folder, _ = cache
    folder.mkdir(parents=True)
    for i in range(5):
        (folder / f"{i:040d}.pack").write_bytes(b"x")
        os.utime(folder / f"{i:040d}.pack", (1000 + i, 1000 + i))
    packcache.prune(folder, keep=2)
    assert [p.name[-6:] for p in entries(folder)] == ["3.pack", "4.pack"]


def test_the_parser_tables_come_from_lark_s_cache_with_the_same_errors(tmp_path):
    """Two fresh processes: the first writes Lark's tables, the second reads them; a syntax
    error names the same expected words both times."""
    code = ("from rulespec.parser import parse_rules\n"
            "from rulespec.errors import RulespecError\n"
            "try:\n    parse_rules('action a {\\n  cost: 1 florin\\n  effect: [gain(\\n}\\n', 'x.rules')\n"
            "except RulespecError as e:\n    print(e.render())\n")
    env = dict(os.environ, RULESPEC_CACHE_DIR=str(tmp_path / "c"), PYTHONPATH=str(ROOT))
    env.pop("RULESPEC_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout and "RS01" in runs[0].stdout
    assert list((tmp_path / "c").glob("lark-*.tables"))


# What a warm `rulespec validate` must not import: the parser (Lark) and jsonschema check the
# files only when they are loaded afresh, networkx only draws, rich only prints tables.
NOT_IMPORTED_WARM = ("rulespec.parser", "lark", "jsonschema", "networkx", "rich", "matplotlib",
                     "hypothesis", "interpreter.bots")


def test_a_warm_validate_imports_neither_the_parser_nor_the_heavy_libraries(cache):
    """Issue 18: a fresh process validating from a warm cache (the CPU it costs is measured by
    hand, never here). The cache is warmed in this process by the same command, then a fresh
    process runs it and lists its modules: a cache miss would import the parser."""
    from rulespec.cli import main
    folder, fresh = cache
    packcache.engine_fingerprint.cache_clear()      # this process's copy may predate an edit of rulespec/
    assert main(["validate", "base_3to5"]) == 0 and fresh == ["base_3to5"]
    script = ("import json, sys\nfrom rulespec.cli import main\nrc = main(['validate', 'base_3to5'])\n"
              "print(json.dumps([rc, sorted(sys.modules)]))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    *printed, last = out.stdout.splitlines()
    rc, modules = json.loads(last)
    assert rc == 0 and any("0 error(s)" in line for line in printed)
    loaded = {m.split(".")[0] for m in modules} | set(modules)
    assert "rulespec.pack" in loaded and "validator.static" in loaded      # it did validate
    assert [m for m in NOT_IMPORTED_WARM if m in loaded] == []


# ------------------------------------------------------------------ compiled modules
def test_a_command_told_to_write_no_bytecode_keeps_its_compiled_modules_in_the_cache_folder(tmp_path):
    """PYTHONDONTWRITEBYTECODE set (container images set it): `rulespec` keeps the engine's
    compiled modules under pycache/ of the cache folder (rulespec/cache_folder.py), and none
    with the cache off."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "RULESPEC_NO_CACHE")}
    env.update(PYTHONDONTWRITEBYTECODE="1", RULESPEC_CACHE_DIR=str(tmp_path / "cache"))
    run = [sys.executable, "-m", "rulespec.cli", "validate", str(PACKS / "minimal")]
    assert subprocess.run(run, env=env, cwd=ROOT, capture_output=True).returncode == 0
    kept = {p.name for p in (tmp_path / "cache" / "pycache").rglob("*.pyc")}
    assert {f"errors.{sys.implementation.cache_tag}.pyc", f"checker.{sys.implementation.cache_tag}.pyc",
            f"static.{sys.implementation.cache_tag}.pyc"} <= kept        # rulespec's and the validator's
    env.update(RULESPEC_NO_CACHE="1", RULESPEC_CACHE_DIR=str(tmp_path / "off"))
    assert subprocess.run(run, env=env, cwd=ROOT, capture_output=True).returncode == 0
    assert not (tmp_path / "off" / "pycache").exists()


def test_keep_compiled_modules_changes_nothing_where_bytecode_is_written(monkeypatch, tmp_path):
    from rulespec.cache_folder import keep_compiled_modules
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RULESPEC_NO_CACHE", raising=False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    assert keep_compiled_modules() is None and sys.pycache_prefix is None
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert keep_compiled_modules() == str(tmp_path / "pycache") == sys.pycache_prefix == os.environ["PYTHONPYCACHEPREFIX"]
    assert not sys.dont_write_bytecode and "PYTHONDONTWRITEBYTECODE" not in os.environ
    assert keep_compiled_modules() is None          # a prefix is set: left as it is
