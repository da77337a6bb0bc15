"""Fuzzing the DSL front end: mutate valid `.rules` text and check that nothing but
RulespecError ever escapes the parser, that every diagnostic has a usable position, and that
validate_pack never raises at all.

Seeds are the valid .rules files of tests/packs/minimal and tests/packs/minimal_overlay.
Mutations: delete / duplicate / swap tokens, insert printable characters, insert random bytes
decoded with errors='replace', truncate.
"""
from __future__ import annotations

import re
import shutil
import string
import tempfile
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulespec.errors import RulespecError
from rulespec.parser import _lark, parse_rules
from validator.static import validate_pack

from ci_mode import local_or_ci

PACKS = Path(__file__).resolve().parent / "packs"
SEED_PACKS = ["minimal", "minimal_overlay"]   # minimal_overlay extends ../minimal

SEEDS = [(name, p.relative_to(PACKS / name).as_posix(), p.read_text(encoding="utf-8"))
         for name in SEED_PACKS for p in sorted((PACKS / name).rglob("*.rules"))]

TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|\d+|[a-z_][a-z0-9_]*|==|!=|<=|>=|\+=|\s+|.', re.S)
TERMINALS = sorted({t.name for t in _lark().terminals} | {"$END"})
RAW_TERMINAL_RE = re.compile(r"__ANON|\$END|(?<![A-Za-z0-9_'])(?:" +
                             "|".join(re.escape(t) for t in TERMINALS if t.isupper()) + r")(?![A-Za-z0-9_'])")

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def tokens(text: str) -> list[str]:
    toks = TOKEN_RE.findall(text)
    assert "".join(toks) == text
    return toks


# ------------------------------------------------------------------ mutations
def _mutate_once(draw, text: str) -> str:
    toks = tokens(text)
    words = [i for i, t in enumerate(toks) if not t.isspace()]
    op = draw(st.sampled_from(["delete", "duplicate", "swap", "printable", "bytes", "truncate"]))
    if op in ("delete", "duplicate", "swap") and words:
        i = draw(st.sampled_from(words))
        if op == "delete":
            toks[i] = ""
        elif op == "duplicate":
            toks[i] = toks[i] + draw(st.sampled_from(["", " "])) + toks[i]
        else:
            j = draw(st.sampled_from(words))
            toks[i], toks[j] = toks[j], toks[i]
        return "".join(toks)
    pos = draw(st.integers(0, len(text)))
    if op == "printable":
        return text[:pos] + draw(st.text(alphabet=string.printable, min_size=1, max_size=6)) + text[pos:]
    if op == "bytes":
        junk = draw(st.binary(min_size=1, max_size=8)).decode("utf-8", errors="replace")
        return text[:pos] + junk + text[pos:]
    return text[:pos]    # truncate


@st.composite
def mutated_seed(draw):
    pack, rel, text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        text = _mutate_once(draw, text)
    return pack, rel, text


# ------------------------------------------------------------------ a scratch copy of the packs
@pytest.fixture(scope="module")
def scratch():
    root = Path(tempfile.mkdtemp(prefix="rulespec_fuzz_"))
    for name in SEED_PACKS:
        shutil.copytree(PACKS / name, root / name)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _restore(root: Path):
    for pack, rel, text in SEEDS:
        (root / pack / rel).write_text(text, encoding="utf-8")


def _check_diagnostic(d, *, syntax=False):
    assert d.span.file, d.render()
    assert d.span.line >= 1 and d.span.column >= 1, f"no position: {d.render()}"
    assert d.code.startswith("RS") and d.message
    if syntax:
        assert not RAW_TERMINAL_RE.search(d.message + "\n" + d.hint), f"raw terminal name: {d.render()}"
    d.render()


def _validate_never_raises(folder: Path):
    try:
        return validate_pack(folder)
    except Exception:  # noqa: BLE001
        pytest.fail(f"validate_pack raised:\n{traceback.format_exc()}")


# ------------------------------------------------------------------ tests
def test_seeds_are_valid():
    assert len(SEEDS) >= 5
    for pack, rel, text in SEEDS:
        parse_rules(text, rel)


@SETTINGS
@given(mutated_seed())
def test_parse_rules_raises_only_rulespec_error(case):
    _pack, rel, text = case
    try:
        parse_rules(text, rel)
    except RulespecError as e:
        assert e.diagnostics
        for d in e.diagnostics:
            # a syntax error, or a size limit of the language passed (RS005: a mutation that
            # repeats a name can make it longer than limits.MAX_NAME_CHARS)
            assert d.code in ("RS010", "RS011", "RS005"), d.render()
            assert d.span.file == rel
            _check_diagnostic(d, syntax=True)
            # lines are counted by '\n' only (see test_line_numbers_count_only_newlines)
            assert d.span.line <= text.count("\n") + 1, d.render()
    except Exception:  # noqa: BLE001
        pytest.fail(f"parse_rules raised a non-RulespecError on:\n{text!r}\n{traceback.format_exc()}")


# a whole pack validated per example: 30 on a developer's machine, 200 in CI (docs/testing.md)
@settings(SETTINGS, max_examples=local_or_ci(30, 200))
@given(case=mutated_seed())
def test_validate_pack_never_raises(scratch, case):
    pack, rel, text = case
    _restore(scratch)
    (scratch / pack / rel).write_text(text, encoding="utf-8")
    report = _validate_never_raises(scratch / pack)
    for d in report.diagnostics:
        _check_diagnostic(d, syntax=d.code in ("RS010", "RS011"))


# a whole pack validated per example: 15 on a developer's machine, 50 in CI (docs/testing.md)
@settings(max_examples=local_or_ci(15, 50), deadline=None)
@given(prefix_lines=st.integers(0, 6),
       junk=st.binary(min_size=1, max_size=16).filter(lambda b: _is_bad_utf8(b)))
def test_invalid_utf8_in_rules_file_is_rs011(scratch, prefix_lines, junk):
    _restore(scratch)
    target = scratch / "minimal" / "rules" / "junk.rules"
    try:
        target.write_bytes(b"# filler\n" * prefix_lines + junk + b"\n")
        report = _validate_never_raises(scratch / "minimal")
    finally:
        target.unlink(missing_ok=True)
    hits = [d for d in report.diagnostics if d.code == "RS011" and d.span.file.endswith("junk.rules")]
    assert hits, [d.render() for d in report.diagnostics]
    for d in hits:
        _check_diagnostic(d)
    # reported at the first bad byte, not at 1:1
    try:
        junk.decode("utf-8")
    except UnicodeDecodeError as e:
        before = junk[:e.start]
        line = prefix_lines + 1 + before.count(b"\n")
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8")) + 1
    assert any((d.span.line, d.span.column) == (line, column) for d in hits), [d.render() for d in hits]


def _is_bad_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def test_invalid_utf8_direct():
    """The same through the file loader, without Hypothesis."""
    from rulespec.parser import parse_rules_file
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "bad.rules"
        p.write_bytes(b'symbol crown "Crown \xff" {}\n')
        with pytest.raises(RulespecError) as ei:
            parse_rules_file(p)
        d = ei.value.first
        assert d.code == "RS011" and d.span.file == str(p) and d.span.line >= 1 and d.span.column >= 1
        p.write_bytes(b'symbol crown "Crown" {}\n# caf\xc3\xa9 ok\ncard x { doc: "caf\xe9" }\n')
        with pytest.raises(RulespecError) as ei:
            parse_rules_file(p)
        d = ei.value.first
        assert (d.code, d.span.line, d.span.column) == ("RS011", 3, 19), d.render()
        assert d.source_line.startswith('card x { doc: "caf')


def test_invalid_utf8_in_yaml_is_rs001_at_the_bad_byte():
    from rulespec.yamldata import load_yaml_file
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "bad.yaml"
        p.write_bytes(b"a: 1\nb: \xc3\xa9t\xe9\n")
        with pytest.raises(RulespecError) as ei:
            load_yaml_file(p)
        d = ei.value.first
        assert (d.code, d.span.line, d.span.column) == ("RS001", 2, 6), d.render()


PARSES = "parses"

# Each text with what must happen: it parses (into that many declarations), or one diagnostic
# with that code at that line and column (the column of the offending character; for a text
# that stops too early, the end of the text).
EDGE_CASES = [
    pytest.param("", (PARSES, 0), id="empty"),
    pytest.param("\n", (PARSES, 0), id="newline"),
    pytest.param("#", (PARSES, 0), id="comment-only"),
    pytest.param("{", ("RS010", 1, 1), id="lone-open-brace"),
    pytest.param("}", ("RS010", 1, 1), id="lone-close-brace"),
    pytest.param('"', ("RS011", 1, 1), id="unterminated-string"),
    pytest.param("card", ("RS010", 1, 5), id="kind-only"),
    pytest.param("card x", ("RS010", 1, 7), id="no-body"),
    pytest.param("card x {", ("RS010", 1, 9), id="unclosed-body"),
    pytest.param("card x { pp: }", ("RS010", 1, 14), id="field-without-value"),
    pytest.param("remove", ("RS010", 1, 7), id="remove-alone"),
    pytest.param("modify card", ("RS010", 1, 12), id="modify-without-id"),
    pytest.param("card x { effect: { choose } }", ("RS010", 1, 27), id="choose-without-variable"),
    pytest.param("card x { pp: 1 +++ 2 }", ("RS010", 1, 17), id="triple-plus"),
    pytest.param("\x00", ("RS011", 1, 1), id="nul-character"),
    # A byte-order mark is not skipped: parse_rules_file does not strip it either, so a .rules
    # file saved "UTF-8 with BOM" is refused at 1:1 (see the report of issue 12).
    pytest.param("\ufeffcard x {}", ("RS011", 1, 1), id="byte-order-mark"),
    pytest.param("card x {}\r\n", (PARSES, 1), id="crlf"),
    pytest.param("card x { pp: " + "(" * 2000 + "1" + ")" * 2000 + " }", (PARSES, 1), id="2000-parentheses"),
    pytest.param("card x { pp: " + "-" * 3000 + "1 }", ("RS005", "nested more than 500 levels"), id="3000-unary-minus"),
    pytest.param("card x { pp: " + " + ".join(["1"] * 3000) + " }", ("RS005", "nested more than 500 levels"), id="3000-term-sum"),
]


@pytest.mark.parametrize("text,expected", EDGE_CASES)
def test_parse_rules_edge_cases(text, expected):
    if expected[0] == PARSES:
        try:
            module = parse_rules(text, "edge.rules")
        except RulespecError as e:
            pytest.fail("expected to parse, got: " + "\n".join(d.render() for d in e.diagnostics))
        assert len(module.items) == expected[1]
        return
    with pytest.raises(RulespecError) as ei:
        parse_rules(text, "edge.rules")
    diags = ei.value.diagnostics
    assert len(diags) == 1, [d.render() for d in diags]
    d = diags[0]
    _check_diagnostic(d, syntax=True)
    assert d.code == expected[0], d.render()
    if isinstance(expected[1], str):
        assert expected[1] in d.message, d.render()
    else:
        assert (d.span.line, d.span.column) == expected[1:], d.render()


def test_parenthesised_value_is_the_value():
    """2000 parentheses around 1 are just 1."""
    module = parse_rules("card x { pp: " + "(" * 2000 + "1" + ")" * 2000 + " }", "edge.rules")
    (decl,) = module.items
    assert (decl.kind, decl.id) == ("card", "x")
    (field,) = decl.members
    assert field.name == "pp" and field.value.value == 1


LINE_BREAK_CASES = [
    # a form feed in a comment; the file ends inside `card x {` on line 2
    pytest.param("# a comment with a \x0c form feed\ncard x {\n", 2, "card x {", id="form-feed-eof"),
    # a lone carriage return in a comment; '$' is on line 2
    pytest.param("# old mac\rline\ncard x { pp: $ }\n", 2, "card x { pp: $ }", id="lone-cr-source-line"),
]


def test_crlf_source_lines_have_no_carriage_return():
    with pytest.raises(RulespecError) as ei:
        parse_rules("symbol crown {}\r\ncard x { pp: $ }\r\n", "crlf.rules")
    d = ei.value.first
    assert (d.span.line, d.span.column, d.source_line) == (2, 14, "card x { pp: $ }")


def test_yaml_line_numbers_count_only_newlines():
    """PyYAML itself also breaks lines on \\u2028, \\x85 and a lone \\r; our spans do not."""
    from rulespec.yamldata import load_yaml_text
    doc = load_yaml_text('a: "x\u2028y"\nb: 2\n', "d.yaml")
    assert (doc.span(("b",)).line, doc.span(("b",)).column) == (2, 4)
    assert doc.key_span(("b",)).line == 2 and doc.key_span(("b",)).column == 1
    with pytest.raises(RulespecError) as ei:
        load_yaml_text('a: "x\u2028y"\nb: [1\n', "d.yaml")
    d = ei.value.first
    assert d.code == "RS001" and d.span.line <= 3, d.render()


@pytest.mark.parametrize("text,line,source", LINE_BREAK_CASES)
def test_line_numbers_count_only_newlines(text, line, source):
    r"""Lark counts lines by '\n' only; the end-of-file position and the source line shown under
    a diagnostic must count the same way (not str.splitlines(), which also breaks on \r, \x0c,
    \x85, \u2028 ...)."""
    with pytest.raises(RulespecError) as ei:
        parse_rules(text, "lines.rules")
    d = ei.value.first
    assert (d.span.line, d.source_line) == (line, source)
