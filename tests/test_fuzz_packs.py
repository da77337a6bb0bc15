"""Fuzzing that reaches the compiler and the interpreter (issue 14).

* Rules from the grammar: Hypothesis builds expressions and blocks from rulespec/grammar.lark
  (`hypothesis.extra.lark.from_lark`, with the pack's names as the words), puts them into a
  FULL pack (tests/packs/fuzz_base: the minimal pack, its board and setup, Years that ask
  decisions) as the formula `fuzz_formula` and the procedure `fuzz_step`, which the option
  "Fuzz" of every decision runs; then validates the pack, compiles it (Engine) and plays a few
  decisions, taking "Fuzz" whenever it is offered. Only RulespecError (IllegalMove included)
  may come out, never another exception; every diagnostic has a position.
* YAML: every kind of data file (map, setup, tracks, palaces, components, the manifest) of
  that pack, mutated (values replaced by values of other types, huge numbers, keys removed,
  lists emptied); scenario files and game logs (JSON lines), mutated the same way.
* The command line, in process, with arguments drawn from a pool of hostile ones.

2,000 examples of the first in CI (CI=true), 40 on a developer's machine.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
import traceback
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from interpreter.api import Engine
from interpreter.bots import UniformBot
from rulespec.errors import RulespecError
from rulespec.parser import _lark
from rulespec.vocabulary import ATTRIBUTES, FUNCTIONS, GLOBALS, VERBS
from validator.static import validate_pack

PACKS = Path(__file__).resolve().parent / "packs"
from ci_mode import CI  # noqa: E402  (CI=true or RULESPEC_FULL=1)
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.function_scoped_fixture]

# ------------------------------------------------------------------ words for the grammar
PACK_NAMES = ["crown", "cross", "florin", "govern", "buy", "cardinal", "pope", "patronage", "alpha", "beta",
              "delta", "gamma", "red", "yellow", "green", "blue", "fuzz_formula", "fuzz_step", "prestige",
              "notable_cards", "north", "south", "virtu", "last_year"]
LOCALS = ["x", "c", "p", "n", "v", "self"]
# names the rules may use as values come six times (a name also follows `.` and precedes `(`)
VALUES = sorted(set(PACK_NAMES + list(GLOBALS)))
NAMES = VALUES * 6 + LOCALS + sorted(set(FUNCTIONS) | set(VERBS) | {a for attrs in ATTRIBUTES.values() for a in attrs}
                                     | {"nope", "times"})
KEYS = ["times", "player", "slot", "side", "target", "class", "x", "from"]


def _explicit() -> dict:
    """A strategy for every terminal: keywords and punctuation as written, with spaces around
    them (so that `not` `x` is not read as one name), names from the pack and the vocabulary."""
    out = {}
    for t in _lark().terminals:
        if t.pattern.type == "str":
            out[t.name] = st.just(f" {t.pattern.value} ")
    out["NAME"] = st.sampled_from(NAMES).map(lambda n: f" {n} ")
    out["KEY"] = st.sampled_from(KEYS).map(lambda k: f" {k}: ")
    out["NUMBER"] = st.one_of(st.integers(0, 12).map(str), st.sampled_from(["0", "1", "2.5", "99999", "1000000"]))\
        .map(lambda n: f" {n} ")
    out["STRING"] = st.sampled_from(['"a"', '"Choose"', '""', '"x y"']).map(lambda s: f" {s} ")
    out["QTY"] = st.builds(lambda n, s: f" {n} {s} ", st.integers(0, 4), st.sampled_from(["crown", "cross", "florin", "gem"]))
    out["COMP_OP"] = st.sampled_from(["==", "!=", "<", "<=", ">", ">="]).map(lambda o: f" {o} ")
    out["COMMENT"] = st.just(" ")
    out["WS"] = st.just(" ")
    return out


def layered_grammar(starts, depth: int):
    """rulespec/grammar.lark, unrolled to `depth` levels of nesting, for from_lark.

    from_lark on the grammar itself draws trees of unbounded depth (an expression may always
    go on: `a + b` has two expressions in it): measured, 77% of its examples were given up by
    Hypothesis ("max depth exceeded"). Here every rule X of the grammar (as Lark compiles it,
    for these start rules) becomes X_0 .. X_depth, where X_L keeps the alternatives that can end
    within depth - L more levels, their rules taken at level L + 1; an alternative that is one
    rule alone (`?sum_expr: product`) stays at the same level, so the precedence chain costs
    nothing. The result has no recursion: every example is a sentence of the grammar, nested at
    most `depth` deep. Terminals keep their meaning (their strategies are _explicit's)."""
    terminals, rules, _ = _lark().grammar.compile(list(starts), ())
    terms = {t.name for t in terminals}
    by = {}
    for r in rules:
        by.setdefault(r.origin.name, []).append([s.name for s in r.expansion])

    def unit(e):
        return len(e) == 1 and e[0] not in terms
    height = {n: 10 ** 9 for n in by}          # the fewest levels a rule needs to end
    changed = True
    while changed:
        changed = False
        for n, exps in by.items():
            for e in exps:
                h = height[e[0]] if unit(e) else 1 + max([0] + [0 if x in terms else height[x] for x in e])
                if h < height[n]:
                    height[n], changed = h, True
    tname = {t: f"T{i}" for i, t in enumerate(sorted(terms))}
    rname = {n: f"r{i}" for i, n in enumerate(sorted(by))}
    lines = [f'{new}: "<{new.lower()}>"' for new in tname.values()]
    for n, exps in by.items():
        for level in range(depth + 1):
            left = depth - level
            alts = []
            for e in exps:
                if unit(e):
                    if height[e[0]] <= left:
                        alts.append(f"{rname[e[0]]}_{level}")
                elif all(x in terms or height[x] <= left - 1 for x in e):
                    alts.append(" ".join(tname[x] if x in terms else f"{rname[x]}_{level + 1}" for x in e) or '""')
            if alts:
                lines.append(f"{rname[n]}_{level}: " + "\n    | ".join(alts))
    return "\n".join(lines) + "\n", {v: k for k, v in tname.items()}, {s: f"{rname[s]}_0" for s in starts}


def _strategy(start: str, depth: int):
    """from_lark over the grammar unrolled to `depth` levels, from one start rule."""
    text, terms, starts = layered_grammar([start], depth)
    grammar = Lark(text, parser="earley", lexer="dynamic", start=starts[start])
    used = {s.name for r in grammar.rules for s in r.expansion if s.is_term}
    explicit = _explicit()
    return from_lark(grammar, start=starts[start], explicit={t: explicit[terms[t]] for t in used if t in terms})


# built when first drawn from (about 0.6 s of CPU for the two Earley grammars), not when the
# module is imported: every pytest-xdist worker imports it, one runs it
EXPRS = st.deferred(lambda: _strategy("expr", 5))
BLOCKS = st.deferred(lambda: _strategy("block", 6))


def _overlay(expr: str, block: str) -> dict:
    return {
        "pack.yaml": "id: fuzzed\nname: Fuzzed\nversion: 1.0.0\nextends: fuzz_base\n",
        "rules/fuzzed.rules": (f"replace formula fuzz_formula {{\n  value: {expr}\n}}\n\n"
                               f"replace procedure fuzz_step(player: player) {{\n  effect: {block}\n}}\n"),
    }


@pytest.fixture(scope="module")
def scratch():
    root = Path(tempfile.mkdtemp(prefix="rulespec_fuzz_packs_"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _write(root: Path, files: dict) -> Path:
    if root.exists():
        shutil.rmtree(root)
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def _positioned(d, where):
    assert d.code.startswith("RS") and d.message, where
    assert d.span.file, f"{where}: no file: {d.render()}"
    d.render()


def _run_pack(folder: Path, players: int, seed: int, decisions: int = 6, search_path=None):
    """Validate, compile and play a few decisions; only RulespecError may come out."""
    where = "".join((folder / f).read_text(encoding="utf-8") for f in ("rules/fuzzed.rules",)
                    if (folder / f).exists())
    try:
        report = validate_pack(folder, search_path)
    except Exception:  # noqa: BLE001 - the point of the test
        pytest.fail(f"validate_pack raised on:\n{where}\n{traceback.format_exc()}")
    for d in report.diagnostics:
        _positioned(d, where)
    if report.pack is None:
        return "not loaded"
    try:
        engine = Engine(report.pack)
        state = engine.new_game(players, seed)
        bot = UniformBot(seed)
        for _ in range(decisions):
            if engine.is_over(state):
                break
            legal = engine.legal_moves(state)
            if not legal:
                break
            move = "option Fuzz" if "option Fuzz" in legal else bot.choose(engine, state, legal)
            state = engine.apply(state, move)
        engine.scores(state)
        return "played"
    except RulespecError as e:           # IllegalMove is one too
        for d in e.diagnostics:
            _positioned(d, where)
        assert e.code != "RS404", f"the engine damaged its own state:\n{where}\n{e.render()}"
        return e.code
    except Exception:  # noqa: BLE001 - the point of the test
        pytest.fail(f"a Python exception escaped the engine on:\n{where}\n{traceback.format_exc()}")


# ------------------------------------------------------------------ rules from the grammar
OUTCOMES: dict = {}


@settings(max_examples=2000 if CI else 20, deadline=None, suppress_health_check=HEALTH)
@given(expr=EXPRS, block=BLOCKS, players=st.sampled_from([3, 4]), seed=st.integers(0, 5))
def test_grammar_generated_rules_in_a_full_pack(scratch, expr, block, players, seed):
    folder = _write(scratch / "fuzzed", _overlay(expr, block))
    outcome = _run_pack(folder, players, seed)
    OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1
    if os.environ.get("HOSTILE_CENSUS"):       # how far each example went (tests/test_hostile.py)
        with open(os.environ["HOSTILE_CENSUS"], "a", encoding="utf-8") as f:
            f.write(f'{{"kind": "grammar fuzz", "outcome": "{outcome}"}}\n')


def test_the_grammar_fuzzer_reaches_play(scratch):
    """Enough generated rules pass the checker and run in a game: the fuzzer is not only
    exercising the parser (measured with a fixed sample of hand-written rules of each shape)."""
    cases = [("count(players) + 1", "{ gain(florin, 2) }"), ("[c.value for c in cities]", "{ log(year) }"),
             ("if year > 1 then 1 / 0 else 2", "{ let x = 5 % (year - 1) }"),
             ("(crown | cross) * 2", "{ for c in cities { log(c) } }"),
             ("player.florins", "{ either { option \"a\" { } option \"b\" { gain(florin, 1) } } }")]
    seen = [_run_pack(_write(scratch / "sample", _overlay(e, b)), 3, 1) for e, b in cases]
    assert seen.count("played") >= 3, seen
    assert "RS301" in seen, seen        # the division by zero, at its position


# ------------------------------------------------------------------ YAML of every kind
CONTENT = PACKS.parents[1] / "content" / "base_3to5"
YAML_FILES = {"map.yaml": PACKS / "minimal_map" / "map.yaml", "setup.yaml": PACKS / "minimal_map" / "setup.yaml",
              "tracks.yaml": PACKS / "minimal" / "tracks.yaml", "palaces.yaml": CONTENT / "palaces.yaml",
              "components.yaml": CONTENT / "components.yaml"}
ODD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6), st.just(10 ** 17), st.text(max_size=5),
                       st.builds(list), st.builds(dict), st.lists(st.integers(0, 3), max_size=3), st.just("2001-02-30"),
                       st.builds(lambda: {"$remove": True}), st.just("1 crown + 2 florn"))


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated_yaml(draw):
    name = draw(st.sampled_from(sorted(YAML_FILES)))
    data = yaml.safe_load(YAML_FILES[name].read_text(encoding="utf-8"))
    _mutate(draw, data, ODD_VALUES)
    return name, yaml.safe_dump(data, sort_keys=False)


def _mutate(draw, data, values):
    """One to three changes at random paths of plain data: a key dropped or a value replaced."""
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = draw(values)


@settings(max_examples=300 if CI else 20, deadline=None, suppress_health_check=HEALTH)
@given(case=mutated_yaml(), players=st.sampled_from([3, 4]))
def test_mutated_yaml_of_every_kind(scratch, case, players):
    name, text = case
    files = {"pack.yaml": "id: fuzzed\nname: Fuzzed\nversion: 1.0.0\nextends: fuzz_base\n", name: text}
    _run_pack(_write(scratch / "yaml", files), players, 0)


@settings(max_examples=60 if CI else 15, deadline=None, suppress_health_check=HEALTH)
@given(manifest=st.fixed_dictionaries({}, optional={
    "id": st.one_of(st.just("fuzzed"), st.just("fuzz_base"), st.just("minimal"), st.text(max_size=4), st.integers()),
    "name": st.one_of(st.just("F"), st.none(), st.lists(st.text(max_size=2), max_size=2)),
    "version": st.one_of(st.just("1.0.0"), st.just("x"), st.integers()),
    "extends": st.one_of(st.just("fuzz_base"), st.just("../fuzz_base"), st.just("/"), st.just("."), st.just(""),
                         st.just("a" * 2000), st.just("fuzzed"), st.integers()),
    "players": st.one_of(st.just([3]), st.just([0]), st.just([]), st.just("3"), st.just([99])),
}))
def test_mutated_manifest(scratch, manifest):
    _run_pack(_write(scratch / "fuzzed", {"pack.yaml": yaml.safe_dump(manifest)}), 3, 0)


SCENARIO = {
    "name": "a fuzzed scenario", "pack": "fuzz_base", "players": 3, "seed": 1,
    "given": {"p.red.florins": 3, "cities.alpha.controller": "red"},
    "steps": [{"move": "option Gain"}, {"expect": {"p.red.florins": 4, "year": 1}},
              {"illegal": "option Nowhere", "because": "not an available option", "unknown_ids": ["Nowhere"]},
              {"legal_exactly": ["option Gain", "option Pick a city", "option Fuzz", "option Pass"]}],
}


@st.composite
def mutated_scenario(draw):
    data = yaml.safe_load(yaml.safe_dump(SCENARIO))
    _mutate(draw, data, st.one_of(ODD_VALUES, st.sampled_from(["option Gain", "red", "p.red.florins",
                                                               "../x", "/etc", "fuzz_base"])))
    return yaml.safe_dump(data, sort_keys=False)


@settings(max_examples=200 if CI else 25, deadline=None, suppress_health_check=HEALTH)
@given(text=mutated_scenario())
def test_mutated_scenarios(scratch, text):
    from interpreter.scenario import run_scenario
    path = scratch / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        out = run_scenario(path)
    except RulespecError as e:
        for d in e.diagnostics:
            _positioned(d, text)
        return
    except Exception:  # noqa: BLE001 - the point of the test
        pytest.fail(f"run_scenario raised on:\n{text}\n{traceback.format_exc()}")
    assert isinstance(out.failures, list)


@pytest.fixture(scope="module")
def a_log(scratch):
    """A whole game of fuzz_base, logged."""
    from rulespec.cli import main
    path = scratch / "game.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["play", "--pack", "fuzz_base", "--players", "3", "--seed", "4", "--log", str(path), "--quiet"]) == 0
    return path.read_text(encoding="utf-8").splitlines()


@settings(max_examples=150 if CI else 25, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_mutated_logs(scratch, a_log, data):
    import json
    from interpreter.replay import replay
    lines = list(a_log)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        kind = data.draw(st.sampled_from(["value", "drop", "dup", "cut", "bytes"]))
        if kind == "drop":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "cut":
            lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])))]
        elif kind == "bytes":
            lines[i] = lines[i] + data.draw(st.text(max_size=4))
        else:
            try:
                rec = json.loads(lines[i])
            except ValueError:
                continue
            if isinstance(rec, dict) and rec:
                key = data.draw(st.sampled_from(sorted(rec)))
                rec[key] = data.draw(st.one_of(ODD_VALUES, st.just("../../etc"), st.just([["red"]])))
                lines[i] = json.dumps(rec)
        if not lines:
            break
    path = scratch / "mutated.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for truncated in (False, True):
        try:
            replay(path, allow_truncated=truncated)
        except RulespecError as e:
            for d in e.diagnostics:
                _positioned(d, "\n".join(lines[:3]))
        except Exception:  # noqa: BLE001 - the point of the test
            pytest.fail(f"replay raised on:\n{chr(10).join(lines)[:3000]}\n{traceback.format_exc()}")


# ------------------------------------------------------------------ the command line
ARGS = ["validate", "show", "map", "replay", "scenario", "--json", "--diff", "--players", "--out", "--format", "json",
        "github", "--strict", "--playouts", "--seed", "--pack-path", "--allow-truncated", "--pack", "--unverified",
        "0", "-1", "1", "3", "99999999999999999999", "abc", "", "/", "/dev/null", "/dev/zero", "..", "a" * 3000,
        "minimal", "minimal_map", "fuzz_base", "no_such_pack", str(PACKS / "hostile" / "yaml_alias_bomb"),
        str(PACKS / "hostile" / "log_truncated" / "game.jsonl"), str(PACKS / "hostile" / "scenario_empty" / "scenario.yaml"),
        "\x00", "--", "-h"]


@settings(max_examples=150 if CI else 30, deadline=None, suppress_health_check=HEALTH)
@given(argv=st.lists(st.sampled_from(ARGS), min_size=0, max_size=6), tmp=st.just(None))
def test_hostile_command_lines_in_process(scratch, argv, tmp):
    from rulespec.cli import main
    argv = [a.replace("--out", "--out") for a in argv]
    if "--out" in argv:          # never write into the checkout
        i = argv.index("--out")
        argv[i + 1:i + 2] = [str(scratch / "out.svg")]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as e:       # argparse: usage errors (2), --help (0)
        code = e.code
    except Exception:  # noqa: BLE001 - the point of the test
        pytest.fail(f"rulespec {argv!r:.300} raised:\n{traceback.format_exc()}")
    assert code in (0, 1, 2), (argv, code)
    if code == 1:
        assert "RS" in out.getvalue() + err.getvalue(), (argv, out.getvalue(), err.getvalue())
