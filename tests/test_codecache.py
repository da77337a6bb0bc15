"""The code generated for a pack's rules is kept on disk (interpreter/codecache.py): a fresh
process builds an engine without compiling it again, and a damaged file only misses."""
import builtins

import pytest

from interpreter.api import Engine
from interpreter import codecache, compiler
from interpreter.bots import play_game
from rulespec import packcache
from rulespec.pack import load_pack


@pytest.fixture
def fresh_process(tmp_path, monkeypatch):
    """A cache folder of its own, and a process that has compiled nothing yet; counts compile()."""
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RULESPEC_NO_CACHE", raising=False)
    monkeypatch.setattr(compiler, "_CODE", {})
    monkeypatch.setattr(codecache, "_WARMED", set())
    monkeypatch.setattr(packcache, "_TEMP", tmp_path / "temporary")     # the checkout may lie in /tmp (CI)
    calls = []

    def counting(*args, **kw):
        calls.append(args[1])
        return builtins.compile(*args, **kw)
    monkeypatch.setattr(compiler, "compile", counting, raising=False)

    def restart():
        compiler._CODE.clear()
        codecache._WARMED.clear()
        calls.clear()
    return tmp_path, calls, restart


def test_a_second_process_compiles_nothing_and_plays_the_same_game(fresh_process):
    folder, calls, restart = fresh_process
    pack = load_pack("base_3to5")
    first = Engine(pack)
    assert calls, "the first build compiles the generated code"
    assert list(folder.glob("code-*.pack")), "and keeps it"
    restart()
    second = Engine(pack)
    assert calls == []
    assert play_game(first, 3, 5, "random", max_moves=300)[1] == play_game(second, 3, 5, "random", max_moves=300)[1]


def test_a_damaged_file_is_a_miss(fresh_process):
    folder, calls, restart = fresh_process
    pack = load_pack("base_3to5")
    Engine(pack)
    (path,) = folder.glob("code-*.pack")
    blob = path.read_bytes()
    path.write_bytes(blob[:-40] + bytes(40))        # the payload no longer matches its sha256
    restart()
    assert codecache.load(pack) == {}
    Engine(pack)
    assert calls, "compiled anew"
    restart()
    assert codecache.load(pack), "and written again, whole"


def test_no_cache_writes_nothing(fresh_process, monkeypatch):
    folder, calls, _ = fresh_process
    monkeypatch.setenv("RULESPEC_NO_CACHE", "1")
    Engine(load_pack("base_3to5"))
    assert not list(folder.glob("code-*"))


def test_a_pack_in_the_temporary_folder_is_not_kept(fresh_process, monkeypatch):
    """Packs that come and go (tests, generated packs) would crowd the cache: none is written."""
    folder, calls, _ = fresh_process
    pack = load_pack("base_3to5")
    monkeypatch.setattr(packcache, "_TEMP", pack.root.parent)
    Engine(pack)
    assert calls and not list(folder.glob("code-*"))
