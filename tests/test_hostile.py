"""Hostile and broken input (issue 14): whatever a pack, log, scenario, state or command-line
argument holds, rulespec ends in a positioned project error (exit 1 or 2) within 5 seconds
of CPU and 500 MB, never a Python traceback, and reads nothing outside the pack.

* tests/packs/hostile/<case>/ holds one case per folder and an expect.yaml:

      why: what the case is (the issue's words)
      run: [validate, "{case}"]      # the command line (default: validate the folder); {case}: the
                                     # folder, {hostile}: tests/packs/hostile, {tmp}: a scratch folder,
                                     # {long}: 5,000 characters
      exit: 1                        # default 1 (2: a usage error)
      code: RS005                    # the code reported (none when exit is 0)
      file: bomb.yaml                # where (relative to the case, or <command line>) ...
      line: 1                        # ... and on which line
      message: "..."                 # optional: a text the message contains (not_message: must not)
      max_cpu: 3                     # optional: CPU seconds (default 5)

  Each case runs the real command line in a child process with those limits.
* Links and named pipes are made here, in tmp_path (they cannot be committed).
* Corrupted states, logs cut short, the log written as the game goes: below.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from cli_zygote import Zygote
from rulespec.errors import RulespecError

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
HOSTILE = TESTS / "packs" / "hostile"
CPU_SECONDS = 5
MEMORY_BYTES = 500 << 20
TRACEBACK = "Traceback (most recent call last)"
DIAG = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:error|warning) (?P<code>RS\d{3}): (?P<msg>.*)$", re.M)
SECRET = "TOP-SECRET-LINE-7f3a"


class Run:
    def __init__(self, proc, cpu: float):
        self.code = proc.returncode
        self.out = proc.stdout + proc.stderr
        self.cpu = cpu

    def diagnostics(self) -> list:
        return [m.groupdict() for m in DIAG.finditer(self.out)]

    def __repr__(self):
        return f"exit {self.code}, {self.cpu:.1f} s CPU:\n{self.out[-3000:]}"


def census(kind: str, outcome: str, what: str):
    """With HOSTILE_CENSUS=FILE, every attempt is noted there (one JSON line): how the issue's
    counts (attempts, clean errors, tracebacks, hangs) are made."""
    path = os.environ.get("HOSTILE_CENSUS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"kind": kind, "outcome": outcome, "what": what[:200]}) + "\n")


_ZYGOTE = Zygote()
atexit.register(_ZYGOTE.close)


def cli(*args, cpu: int = CPU_SECONDS, cwd=REPO) -> Run:
    """The command line in a child process, within CPU_SECONDS of CPU and MEMORY_BYTES: forked
    from a process that imported the CLI once (tests/cli_zygote.py), run as `python -m
    rulespec.cli ARGS`."""
    try:
        proc = _ZYGOTE.run(args, cwd, cpu, MEMORY_BYTES, timeout=120)
    except subprocess.TimeoutExpired:
        census("cli", "hang", " ".join(map(str, args)))
        raise
    run = Run(proc, proc.cpu)
    outcome = ("traceback" if TRACEBACK in run.out else "hang" if run.code in (-24, -9) or run.cpu >= cpu
               else "memory" if "MemoryError" in run.out else
               "clean error" if run.code in (1, 2) and re.search(r"(?:error|warning) RS\d{3}: |usage:", run.out)
               else "success" if run.code == 0 else "other")
    census("cli", outcome, " ".join(map(str, args))[:200])
    return run


def api_attempt(call, what: str):
    """One call of the API with a hostile argument: its outcome, noted for the census."""
    from interpreter.api import IllegalMove
    try:
        call()
    except IllegalMove as e:
        census("api", "clean error", what)
        return e
    except RulespecError as e:
        census("api", "clean error", what)
        return e
    except Exception:
        census("api", "traceback", what)
        raise
    census("api", "success", what)
    return None


def assert_clean(run: Run, code: str | None = None, exit_code: int = 1, file: str | None = None, line: int | None = None,
                 max_cpu: float = CPU_SECONDS):
    """A positioned project error: the exit code, no traceback, within the limits, the code at
    file:line (file: the end of the path, or <command line>)."""
    assert TRACEBACK not in run.out, run
    assert run.code != -24 and run.cpu < max_cpu, f"over {max_cpu} s of CPU (a hang): {run!r}"
    assert "MemoryError" not in run.out, run
    assert run.code == exit_code, run
    if code is None:
        return
    hits = [d for d in run.diagnostics() if d["code"] == code]
    assert hits, f"expected {code}: {run!r}"
    if file is not None:
        hits = [d for d in hits if d["file"] == file or Path(d["file"]).as_posix().endswith("/" + file.lstrip("/"))
                or d["file"] == file]
        assert hits, f"expected {code} in {file}: {run!r}"
    if line is not None:
        assert any(int(d["line"]) == line for d in hits), f"expected {code} at line {line}: {run!r}"
    for d in hits:
        assert int(d["line"]) >= 1 and int(d["col"]) >= 1, run
    return hits


# ------------------------------------------------------------------ the corpus
def _cases():
    out = []
    for d in sorted(HOSTILE.iterdir()):
        if (d / "expect.yaml").is_file():
            out.append(pytest.param(d, yaml.safe_load((d / "expect.yaml").read_text(encoding="utf-8")), id=d.name))
    return out


CASES = _cases()


def test_the_corpus_covers_the_issue():
    names = {c.id for c in CASES}
    assert len(names) >= 55
    for must in ("yaml_alias_bomb", "constraint_exponential_recursion", "cost_alternatives", "range_huge",
                 "sum_of_70_terms", "not_300", "minus_300", "builtin_keyword", "setup_formula_recursion",
                 "setup_modulo_zero", "division_by_zero", "yaml_big_int", "extends_long_path", "play_without_setup",
                 "log_truncated", "scenario_empty", "same_id_chain", "empty_patch", "cli_map_players_0",
                 "cli_bench_games_negative", "cli_play_log_bad_path", "cli_map_out_bad_path", "cli_replay_missing",
                 "extends_absolute_path", "extends_dotdot_path", "scenario_pack_absolute", "scenario_pack_dotdot",
                 "log_pack_absolute", "log_pack_dotdot"):
        assert must in names, must
    assert sum(n.startswith("log_") and "pack" not in n for n in names) >= 12        # the issue's 12 kinds
    assert sum(n.startswith("scenario_") and "pack" not in n for n in names) >= 8    # 7 types, and empty


@pytest.mark.parametrize("folder,exp", CASES)
def test_hostile_case(folder, exp, tmp_path):
    assert set(exp) <= {"why", "run", "exit", "code", "file", "line", "message", "not_message", "max_cpu"}, exp
    args = [str(a).replace("{case}", str(folder)).replace("{tmp}", str(tmp_path)).replace("{long}", "a" * 5000)
            .replace("{hostile}", str(HOSTILE)) for a in exp.get("run", ["validate", "{case}"])]
    run = cli(*args)
    file = exp.get("file")
    if file and file != "<command line>" and "{tmp}" not in " ".join(map(str, exp.get("run", []))):
        assert (folder / file).exists() or (HOSTILE / file).exists(), f"{file} is not in {folder.name}"
    hits = assert_clean(run, exp.get("code"), exp.get("exit", 1), file, exp.get("line"), exp.get("max_cpu", CPU_SECONDS))
    if exp.get("message"):
        assert any(exp["message"] in d["msg"] for d in hits), run
    if exp.get("not_message"):
        assert not any(exp["not_message"] in d["msg"] for d in hits), run


# ------------------------------------------------------------------ reads outside the pack
def _pack(root: Path, files: dict, extends: str = "minimal") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pack.yaml").write_text(f"id: {root.name}\nname: P\nversion: 1.0.0\nextends: {extends}\n", encoding="utf-8")
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file outside the pack that a link may try to read."""
    f = tmp_path / "outside" / "secret.rules"
    f.parent.mkdir()
    f.write_text(f"card leaked {{ doc: \"{SECRET}\" }}\n{SECRET}\n", encoding="utf-8")
    (tmp_path / "outside" / "secret.yaml").write_text(f"tracks:\n  leaked:\n    name: {SECRET}\n", encoding="utf-8")
    return f


def test_a_linked_rules_file_is_not_read(tmp_path, secret):
    pack = _pack(tmp_path / "p", {})
    (pack / "rules").mkdir()
    (pack / "rules" / "linked.rules").symlink_to(secret)
    run = cli("validate", pack)
    assert_clean(run, "RS004", file="rules/linked.rules", line=1)
    assert SECRET not in run.out, run


def test_a_linked_yaml_file_is_not_shown(tmp_path, secret):
    pack = _pack(tmp_path / "p", {})
    (pack / "extra.yaml").symlink_to(secret.with_suffix(".yaml"))
    run = cli("show", pack, "--json")
    assert_clean(run, "RS004", file="extra.yaml", line=1)
    assert SECRET not in run.out, run


def test_a_linked_manifest_is_not_read(tmp_path, secret):
    pack = tmp_path / "p"
    pack.mkdir()
    outside = tmp_path / "outside" / "pack.yaml"
    outside.write_text(f"id: p\nname: {SECRET}\nversion: 1.0.0\n", encoding="utf-8")
    (pack / "pack.yaml").symlink_to(outside)
    run = cli("show", pack, "--json")
    assert_clean(run, "RS004", file="pack.yaml", line=1)
    assert SECRET not in run.out, run


def test_a_linked_folder_is_not_followed(tmp_path, secret):
    pack = _pack(tmp_path / "p", {})
    (pack / "rules").symlink_to(secret.parent, target_is_directory=True)
    run = cli("show", pack, "--json")
    assert_clean(run, "RS004", file="rules", line=1)
    assert SECRET not in run.out, run


def test_a_link_inside_the_pack_is_read(tmp_path):
    pack = _pack(tmp_path / "p", {"src/extra.rules": "symbol gem \"Gem\" {}\n"})
    (pack / "rules").mkdir()
    (pack / "rules" / "alias.rules").symlink_to(pack / "src" / "extra.rules")
    from rulespec.pack import load_pack_collecting
    _, errors = load_pack_collecting(pack)
    assert [d.code for d in errors] == ["RS101"]        # read twice: the same symbol twice, not refused


def test_a_link_to_dev_zero_is_refused(tmp_path):
    pack = _pack(tmp_path / "p", {})
    (pack / "zero.rules").symlink_to("/dev/zero")
    assert_clean(cli("validate", pack), "RS004", file="zero.rules", line=1)


def test_a_named_pipe_is_not_opened(tmp_path):
    pack = _pack(tmp_path / "p", {})
    os.mkfifo(pack / "x.rules")
    os.mkfifo(pack / "data.yaml")
    run = cli("validate", pack)
    hits = assert_clean(run, "RS004", line=1)
    assert {Path(d["file"]).name for d in hits} == {"x.rules", "data.yaml"}, run


def test_extends_to_a_pack_outside_is_refused_and_not_read(tmp_path):
    _pack(tmp_path / "private", {"rules/r.rules": f'card secret {{ doc: "{SECRET}" }}\n'})
    for ref in ("../private", str(tmp_path / "private")):
        pack = _pack(tmp_path / "p", {}, extends=ref)
        run = cli("show", pack, "--json")
        assert_clean(run, "RS022", file="pack.yaml", line=4)
        assert SECRET not in run.out, run


def test_extends_reaches_a_pack_the_user_names(tmp_path):
    """A folder given on the command line (--pack-path) or by trusted code (search_path) is
    where `extends:` may reach: by id, or by a path leading exactly to it."""
    from rulespec.pack import load_pack
    base = _pack(tmp_path / "shelf" / "base", {"rules/r.rules": 'symbol gem "Gem" {}\n'})
    by_id = _pack(tmp_path / "v1", {}, extends="base")
    by_path = _pack(tmp_path / "v2", {}, extends=str(base))       # the scenario runner's overlays do this
    assert_clean(cli("validate", by_id), "RS021", file="pack.yaml", line=4)
    assert_clean(cli("validate", by_id, "--pack-path", tmp_path / "shelf"), None, exit_code=0)
    assert load_pack(by_path, search_path=[base]).chain == ["minimal", "base", "v2"]
    assert load_pack(by_id, search_path=[tmp_path / "shelf"]).get("symbol", "gem") is not None
    with pytest.raises(RulespecError) as e:
        load_pack(by_path)
    assert e.value.code == "RS022"


# ------------------------------------------------------------------ unbounded work
def test_a_file_over_the_size_limit_is_not_read(tmp_path):
    from rulespec import limits
    pack = _pack(tmp_path / "p", {"rules/big.rules": "# " + "x" * limits.MAX_FILE_BYTES + "\n"})
    assert_clean(cli("validate", pack), "RS005", file="rules/big.rules", line=1)


def test_a_pack_over_the_size_limit_is_not_read(tmp_path):
    from rulespec import limits
    files = {f"rules/f{i}.rules": "# " + "x" * (limits.MAX_FILE_BYTES - 100) + "\n"
             for i in range(limits.MAX_PACK_BYTES // limits.MAX_FILE_BYTES + 1)}
    assert_clean(cli("validate", _pack(tmp_path / "p", files)), "RS005", line=1)


def test_yaml_with_too_many_values_is_refused(tmp_path):
    from rulespec import limits
    text = "values:\n" + "".join(f"  - {i}\n" for i in range(limits.MAX_YAML_NODES + 10))
    assert_clean(cli("validate", _pack(tmp_path / "p", {"many.yaml": text})), "RS005", file="many.yaml")


def test_formula_work_is_bounded_in_every_entry_point():
    """A formula that recurses without end is RS305 wherever it runs: a scoring row, a
    constraint checked after a move, an effect; the error is at the formula."""
    from interpreter.api import Engine
    from rulespec.pack import load_pack
    engine = Engine(load_pack(HOSTILE / "constraint_exponential_recursion"))
    with pytest.raises(RulespecError) as e:
        engine.new_game(3)
    assert e.value.code == "RS305" and e.value.span.file.endswith("more.rules") and e.value.span.line == 3


# ------------------------------------------------------------------ crashes: states given to the API
@pytest.fixture(scope="module")
def engine():
    from interpreter.api import Engine
    from rulespec.pack import load_pack
    return Engine(load_pack(TESTS / "packs" / "fuzz_base"))


def _corruptions():
    def drop(k):
        return lambda s: s.pop(k)

    def put(path, value):
        def f(s):
            cur = s
            for part in path[:-1]:
                cur = cur[part]
            cur[path[-1]] = value
        return f
    return {
        "not a dict": lambda s: "a state",
        "empty dict": lambda s: {},
        "a list": lambda s: [s],
        "no vm": drop("vm"),
        "no players": drop("players"),
        "players a text": put(("players",), "red"),
        "no player records": put(("p",), {}),
        "frames not a list": put(("vm", "frames"), 5),
        "frame block out of range": lambda s: s["vm"]["frames"][0].update(b=10 ** 6),
        "frame pc negative": lambda s: s["vm"]["frames"][0].update(pc=-3),
        "frame env a list": lambda s: s["vm"]["frames"][0].update(env=[]),
        "pending kind unknown": put(("vm", "pending", "kind"), "dance"),
        "pending options a text": put(("vm", "pending", "options"), "all"),
        "year a text": put(("year",), "one"),
        "another pack": put(("pack",), {"id": "base_3to5", "version": "0.1.0"}),
        "florins a text": lambda s: s["p"][s["players"][0]].update(florins="lots"),
        "city record a number": lambda s: s["cities"].update({next(iter(s["cities"])): 7}),
        "pending without frames": put(("vm", "frames"), []),
    }


@pytest.mark.parametrize("name", list(_corruptions()))
def test_a_corrupted_state_is_refused(engine, name):
    from interpreter.api import IllegalMove
    state = engine.new_game(3, 1)
    bad = json.loads(json.dumps(state))
    out = _corruptions()[name](bad)
    if out is not None:
        bad = out
    calls = {"legal_moves": lambda: engine.legal_moves(bad), "apply": lambda: engine.apply(bad, "option Gain"),
             "scores": lambda: engine.scores(bad), "winners": lambda: engine.winners(bad),
             "explain": lambda: engine.explain(bad, "option Gain"), "is_over": lambda: engine.is_over(bad)}
    for fn, call in calls.items():
        e = api_attempt(call, f"{fn}: state with {name}")
        if e is not None and not isinstance(e, IllegalMove):
            assert e.code in ("RS404", "RS301", "RS400"), e.render()
            assert e.code != "RS301" or e.span.line, e.render()
    # the good state is untouched and still plays
    assert engine.legal_moves(state)


@pytest.mark.parametrize("args", [("3", 1), (3, "seed"), (True, 1), ([], 1), ([1, 2], 1), (3, 1, [1]), (99, 1)])
def test_new_game_arguments_are_checked(engine, args):
    e = api_attempt(lambda: engine.new_game(*args), f"new_game{args!r}")
    assert isinstance(e, RulespecError) and e.code in ("RS404", "RS123"), e


def test_a_json_copy_of_a_state_is_a_state(engine):
    state = engine.new_game(3, 1)
    copy = json.loads(json.dumps(state))
    assert engine.legal_moves(copy) == engine.legal_moves(state)


# ------------------------------------------------------------------ lost work, wrong results: logs
def _overlay(root: Path, rules: str) -> Path:
    return _pack(root, {"rules/more.rules": rules}, extends="fuzz_base")


def test_the_log_is_written_as_the_game_goes(tmp_path):
    """A game that fails in Year 2 keeps the moves of Year 1 in its log; the log has no final
    line, so replay refuses it unless --allow-truncated, which replays what was logged."""
    pack = _overlay(tmp_path / "failing", "modify procedure fuzz_step {\n  effect: {\n    let x = 10 / (year - 2)\n  }\n}\n"
                                          "modify formula fuzz_formula {\n  value: 1\n}\n")
    log = tmp_path / "game.jsonl"
    found = None
    for seed in range(12):
        run = cli("play", "--pack", pack, "--players", "3", "--seed", seed, "--log", log, "--quiet", "--bots", "uniform")
        if run.code == 1:
            found = run
            break
    assert found is not None, "no seed reached the failure"
    assert_clean(found, "RS301", file="rules/more.rules", line=3)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["rulespec_log"] == 1 and len(lines) > 2
    assert all("final" not in json.loads(x) for x in lines)
    assert_clean(cli("replay", log, "--pack", pack), "RS401", line=len(lines) + 1)
    assert_clean(cli("replay", log, "--pack", pack, "--allow-truncated"), None, exit_code=0)


def test_a_log_cut_at_a_line_boundary_fails(tmp_path):
    log = tmp_path / "game.jsonl"
    assert_clean(cli("play", "--pack", "fuzz_base", "--players", "3", "--seed", "2", "--log", log, "--quiet"), None, 0)
    assert_clean(cli("replay", log), None, exit_code=0)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert "final" in json.loads(lines[-1])
    for cut in (len(lines) - 1, len(lines) // 2):
        short = tmp_path / f"cut{cut}.jsonl"
        short.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
        assert_clean(cli("replay", short), "RS401", line=cut + 1)
        assert_clean(cli("replay", short, "--allow-truncated"), None, exit_code=0)


def test_a_bad_log_path_fails_before_any_work(tmp_path):
    start = time.process_time()
    run = cli("play", "--players", "5", "--log", tmp_path / "nowhere" / "g.jsonl")
    assert_clean(run, "RS006", file="<command line>", line=1, max_cpu=3)
    assert "Year" not in run.out and "winner" not in run.out, run
    assert time.process_time() - start < 3


def test_a_failed_map_leaves_no_empty_file(tmp_path):
    out = tmp_path / "m.svg"
    assert_clean(cli("map", "minimal", "--out", out), "RS003")
    assert not out.exists()


def test_an_empty_patch_keeps_the_base_file():
    from rulespec.pack import load_pack_collecting
    pack, errors = load_pack_collecting(HOSTILE / "empty_patch")
    assert [d.code for d in errors] == ["RS100"] and errors[0].span.file.endswith("tracks.patch.yaml")
    assert pack.data["tracks"].data["tracks"]["patronage"]["max_steps_per_year"] == 1


# ------------------------------------------------------------------ the command line, hostile arguments
@pytest.mark.parametrize("args,exit_code", [
    (["map", "--players", "-3"], 2), (["play", "--players", "0"], 2), (["bench", "--games", "0"], 2),
    (["bench", "--players", "10000000000"], 2), (["validate", "--playouts", "-1"], 2), (["play", "--seed", "1e9"], 2),
    (["play", "--bots", "evil"], 2), (["play", "--players", "7"], 1), (["replay"], 2),
    (["validate", "\x01\x02"], 1), (["show", "no/such/pack"], 1), (["scenario", "/dev/null"], 1),
    (["replay", "/dev/zero"], 1), (["replay", "/"], 1), (["scenario", "/"], 1), (["validate", "/dev/null"], 1),
    (["golden", "--dir", "/nonexistent"], 1), (["show", "base_3to5", "--diff", "a" * 3000], 1),
])
def test_hostile_arguments(args, exit_code):
    """Every one ends in a project error: an RS code, positioned on the command line, or naming
    the argument itself (a pack or file that is not there: RS020, RS003...)."""
    run = cli(*args)
    assert_clean(run, None, exit_code)
    assert re.search(r"(?:error|warning) RS\d{3}: ", run.out), run
