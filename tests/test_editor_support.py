"""Editor support (docs/editors.md): the TextMate grammar generated from grammar.lark, the VS Code
extension around it, and the JSON Schemas editors get.

The grammar is checked by running it: a small TextMate matcher below (the earliest match wins,
the first pattern on a tie; begin/end rules; captures) tokenizes every bundled `.rules` file,
and each token Lark's own lexer finds there must get the scope of what it is.
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from lark import Lark, Token

from rulespec import textmate
from rulespec.editor_schemas import editor_schemas, patch_schema, write_schemas
from rulespec.parser import GRAMMAR_PATH
from rulespec.schema import SCHEMA_DIR, data_schema_names, schema_names

ROOT = Path(__file__).resolve().parents[1]
VSCODE = ROOT / "editors" / "vscode"
STORED = VSCODE / "syntaxes" / "rulespec.tmLanguage.json"
RULES_FILES = sorted((ROOT / "content").rglob("*.rules")) + sorted((ROOT / "tests" / "packs" / "variants").rglob("*.rules"))


@pytest.fixture(scope="module")
def grammar() -> dict:
    return json.loads(STORED.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def keyword_classes() -> dict:
    return textmate.classify_keywords(textmate.load_grammar())


# ------------------------------------------------------------------ a tiny TextMate matcher
class Matcher:
    """Tokenizes lines with a TextMate grammar: at each column the pattern (or the open rule's
    end) matching earliest wins, the first listed on a tie; returns one scope list per char."""

    def __init__(self, grammar: dict):
        self.repo = grammar["repository"]
        self.top = self._expand(grammar["patterns"])

    def _expand(self, patterns) -> list:
        out = []
        for p in patterns:
            if "include" in p:
                out.extend(self._expand([self.repo[p["include"].lstrip("#")]]))
            elif "match" not in p and "begin" not in p:
                out.extend(self._expand(p["patterns"]))
            else:
                out.append(p)
        return out

    def tokenize(self, lines: list) -> list:
        stack, result = [], []
        for line in lines:
            scopes = [[] for _ in line]
            pos = 0
            while pos <= len(line):
                rule = stack[-1] if stack else None
                candidates = []
                if rule is not None:
                    candidates.append(("end", rule, re.compile(rule["end"])))
                for p in self._expand(rule.get("patterns", [])) if rule else self.top:
                    candidates.append(("match" if "match" in p else "begin", p,
                                       re.compile(p.get("match") or p["begin"])))
                best = None
                for kind, p, rx in candidates:
                    m = rx.search(line, pos)
                    if m and (best is None or m.start() < best[2].start()):
                        best = (kind, p, m)
                outer = [r["name"] for r in stack if "name" in r]
                if best is None:
                    for s in scopes[pos:]:          # the rest of the line: the open rules' scopes
                        s.extend(outer)
                    break
                kind, p, m = best
                for s in scopes[pos:m.start()]:     # what no pattern matched: likewise
                    s.extend(outer)
                if kind == "end":
                    self._paint(scopes, m, outer, rule.get("endCaptures", {}))
                    stack.pop()
                elif kind == "begin":
                    self._paint(scopes, m, outer + [p["name"]], p.get("beginCaptures", {}))
                    stack.append(p)
                else:
                    self._paint(scopes, m, outer + ([p["name"]] if "name" in p else []), p.get("captures", {}))
                # an empty match moves on one column, unless it closed a rule (a state change)
                pos = m.end() if m.end() > pos else pos + (0 if kind == "end" else 1)
            result.append(scopes)
        return result

    @staticmethod
    def _paint(scopes, m, base, captures):
        for i in range(m.start(), m.end()):
            scopes[i] = list(base)
        for group, cap in captures.items():
            g = int(group)
            if m.start(g) >= 0:
                for i in range(m.start(g), m.end(g)):
                    scopes[i] = list(base) + [cap["name"]]


_COMMENTS: list = []


@functools.lru_cache(maxsize=1)
def _lark_keeping_tokens() -> Lark:
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                keep_all_tokens=True, lexer_callbacks={"COMMENT": _COMMENTS.append})


def _lark_tokens(text: str) -> list:
    """Every token Lark's lexer gives for a file (keywords included), and its comments."""
    _COMMENTS.clear()
    tree = _lark_keeping_tokens().parse(text)
    return list(tree.scan_values(lambda v: isinstance(v, Token))) + list(_COMMENTS)


def _scope_at(painted, token: Token, offset: int = 0) -> list:
    return painted[token.line - 1][token.column - 1 + offset]


# ------------------------------------------------------------------ the grammar
def test_stored_grammar_is_a_fresh_generation():
    assert STORED.read_text(encoding="utf-8") == textmate.render(textmate.build()), \
        "run: python3 -m rulespec.textmate"


def test_every_keyword_literal_of_grammar_lark_has_a_keyword_pattern(grammar):
    # the literals read from the grammar's text, independently of the generator's Lark walk
    text = re.sub(r"//[^\n]*", "", GRAMMAR_PATH.read_text(encoding="utf-8"))
    words = set(re.findall(r'"([a-z_][a-z0-9_]*)"', text))
    assert words == set(textmate.keywords(textmate.load_grammar()))
    assert {"let", "choose", "replace", "true", "per", "not"} <= words
    keyword_patterns = Matcher(grammar)._expand([{"include": "#keyword"}])
    for word in sorted(words):
        hits = [p["name"] for p in keyword_patterns if re.fullmatch(p["match"], word)]
        assert len(hits) == 1, f"keyword {word!r} matched by {hits}"
        # a keyword is a whole word: not inside a longer name
        assert not any(re.search(p["match"], f"x{word}_y") for p in keyword_patterns)


def test_keyword_classes_follow_the_grammar():
    classes = textmate.classify_keywords(textmate.load_grammar())
    assert {w for w, c in classes.items() if c == textmate.CONSTANT} == {"true", "false", "none"}
    assert {w for w, c in classes.items() if c == textmate.OVERLAY} == {"replace", "modify", "remove"}
    assert {"and", "or", "not", "per"} <= {w for w, c in classes.items() if c == textmate.OPERATOR_WORD}
    assert {"if", "choose", "pay", "let", "where"} <= {w for w, c in classes.items() if c == textmate.CONTROL}


def test_the_regexes_compile_and_avoid_python_only_syntax(grammar):
    found = textmate.regexes(grammar)
    assert len(found) > 15
    for regex in found:
        re.compile(regex)
        assert "(?P" not in regex and "\\Z" not in regex, regex


def test_a_punctuation_literal_without_a_scope_stops_the_generation(tmp_path):
    g = tmp_path / "grammar.lark"
    g.write_text(GRAMMAR_PATH.read_text(encoding="utf-8").replace('"+=" expr', '"=>" expr'), encoding="utf-8")
    with pytest.raises(textmate.GrammarError, match="=>"):
        textmate.build(textmate.load_grammar(g))


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_bundled_rules_files_are_highlighted_token_by_token(path, grammar, keyword_classes):
    text = path.read_text(encoding="utf-8")
    painted = Matcher(grammar).tokenize(text.split("\n"))
    classes = keyword_classes
    keyword_scopes = set(textmate.KEYWORD_CLASSES)
    problems = []
    for tok in _lark_tokens(text):
        scopes = _scope_at(painted, tok)
        where = f"{path.name}:{tok.line}:{tok.column} {tok.type} {tok.value!r}: {scopes}"
        if tok.value in classes and tok.type not in ("NAME", "KEY"):
            ok = classes[tok.value] in scopes
        elif tok.type == "NAME":
            ok = not keyword_scopes & set(scopes)
        elif tok.type == "KEY":
            ok = "variable.other.property.rulespec" in scopes
        elif tok.type == "STRING":
            ok = "string.quoted.double.rulespec" in scopes and "string.quoted.double.rulespec" in \
                _scope_at(painted, tok, len(tok.value) - 1)
        elif tok.type == "COMMENT":
            ok = "comment.line.number-sign.rulespec" in _scope_at(painted, tok, len(tok.value) - 1)
        elif tok.type == "NUMBER":
            ok = "constant.numeric.rulespec" in scopes
        elif tok.type == "QTY":
            ok = "constant.numeric.rulespec" in scopes and \
                "keyword.other.unit.rulespec" in _scope_at(painted, tok, len(tok.value) - 1)
        else:
            ok = bool(scopes)               # punctuation and operators: some scope
        if not ok:
            problems.append(where)
    assert not problems, "\n".join(problems[:20])


def test_the_matcher_itself_tells_keywords_from_names(grammar):
    m = Matcher(grammar)
    line = 'modify card x "T" @inferred("a") { cost: 2 florin per y  # c'
    (painted,) = m.tokenize([line])
    at = lambda s: painted[line.index(s)]
    assert textmate.OVERLAY in at("modify")
    assert "storage.type.kind.rulespec" in at("card")
    assert "entity.name.type.declaration.rulespec" in at("x ")
    assert "storage.type.annotation.rulespec" in at("inferred")
    assert "variable.other.property.rulespec" in at("cost")
    assert "keyword.other.unit.rulespec" in at("florin")
    assert textmate.OPERATOR_WORD in at("per")
    assert "comment.line.number-sign.rulespec" in at("# c")
    line = "  choose t in tiles where t.owner == none { pay 1 crown  option(x) }"
    (painted,) = m.tokenize([line])
    at = lambda s: painted[line.index(s)]
    assert textmate.CONTROL in at("choose") and textmate.CONTROL in at("in ") and textmate.CONTROL in at("where")
    assert textmate.CONSTANT in at("none")
    assert "keyword.operator.comparison.rulespec" in at("==")
    assert not set(textmate.KEYWORD_CLASSES) & set(at("tiles"))
    assert "entity.name.function.rulespec" in at("option")             # a call, not the keyword
    value, header, either = m.tokenize(["  first_player: choose", "option x {", '  either { option "a" { } }'])
    assert "variable.other.rulespec" in value[len("  first_player: ")]
    assert "storage.type.kind.rulespec" in header[0]
    assert textmate.CONTROL in either[len("  either { ")]


def test_the_check_mode_reports_a_stale_grammar_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "g.json"
    out.write_text("{}", encoding="utf-8")
    schemas = tmp_path / "schemas"
    assert textmate.main(["--check", "--out", str(out), "--schemas", str(schemas)]) == 1
    assert out.read_text(encoding="utf-8") == "{}" and not schemas.exists()
    assert "out of date" in capsys.readouterr().err
    assert textmate.main(["--out", str(out), "--schemas", str(schemas)]) == 0
    assert textmate.main(["--check", "--out", str(out), "--schemas", str(schemas)]) == 0
    assert out.read_text(encoding="utf-8") == STORED.read_text(encoding="utf-8")


# ------------------------------------------------------------------ the schemas
@pytest.mark.parametrize("name", schema_names())
def test_each_schema_says_what_it_is(name):
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://rulespec.invalid/schemas/{name}.schema.json"
    assert schema["title"].strip() and len(schema["description"]) > 30
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_editor_schema_copies_are_identical_and_complete():
    stored = {p.name: p.read_text(encoding="utf-8") for p in (VSCODE / "schemas").glob("*.json")}
    assert stored == editor_schemas(), "run: python3 -m rulespec.textmate"
    for p in SCHEMA_DIR.glob("*.schema.json"):
        assert (VSCODE / "schemas" / p.name).read_bytes() == p.read_bytes()


def test_write_schemas_removes_a_copy_no_longer_generated(tmp_path):
    (tmp_path / "old.schema.json").write_text("{}", encoding="utf-8")
    stale = write_schemas(tmp_path)
    assert str(tmp_path / "old.schema.json") in stale and not (tmp_path / "old.schema.json").exists()
    assert write_schemas(tmp_path, check_only=True) == []


PATCH_FILES = sorted((ROOT / "content").rglob("*.patch.yaml")) + [ROOT / "tests/packs/minimal_overlay/tracks.patch.yaml"]


@pytest.mark.parametrize("path", PATCH_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_patch_files_fit_their_patch_schema(path):
    stem = path.name.removesuffix(".patch.yaml")
    schema = json.loads((VSCODE / "schemas" / f"{stem}.patch.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)] == []


def test_a_patch_schema_still_flags_unknown_keys_and_wrong_types():
    full = json.loads((SCHEMA_DIR / "tracks.schema.json").read_text(encoding="utf-8"))
    patch = jsonschema.Draft202012Validator(patch_schema(full))
    track = next(iter(yaml.safe_load((ROOT / "content/base_3to5/tracks.yaml").read_text(encoding="utf-8"))["tracks"]))
    assert list(patch.iter_errors({"tracks": {track: {"$remove": True}}})) == []
    # the full schema refuses what a patch may say
    assert list(jsonschema.Draft202012Validator(full).iter_errors({"tracks": {track: {"$remove": True}}}))
    assert list(patch.iter_errors({"tracks": {track: {"spacez": []}}}))            # misspelt key
    assert list(patch.iter_errors({"tracks": {track: {"spaces": "three"}}}))       # wrong type
    assert list(patch.iter_errors({"trackz": {}}))
    # nothing is required in a patch: an empty mapping fits, where the full schema wants fields
    assert list(patch.iter_errors({})) == [] and list(jsonschema.Draft202012Validator(full).iter_errors({}))
    assert patch_schema(full)["$id"] == "https://rulespec.invalid/schemas/tracks.patch.schema.json"


SCHEMA_COMMENT = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)", re.M)


def _yaml_files_with_a_schema_comment():
    out = []
    for folder in ("content", "tests", "editors"):
        for p in sorted(p for p in (ROOT / folder).rglob("*.yaml") if p.is_file()):
            m = SCHEMA_COMMENT.search(p.read_text(encoding="utf-8", errors="replace")[:2000])
            if m:
                out.append((p, m.group(1)))
    return out


def test_schema_comments_point_at_existing_schemas_of_the_right_name():
    found = _yaml_files_with_a_schema_comment()
    assert len(found) >= 10
    for path, ref in found:
        target = (path.parent / ref).resolve()
        assert target.is_file(), f"{path.relative_to(ROOT)}: $schema={ref} is not a file"
        stem = path.name.removesuffix(".yaml").removesuffix(".patch")
        assert target.name in (f"{stem}.schema.json", f"{stem}.patch.schema.json"), (path, ref)


# ------------------------------------------------------------------ the VS Code extension
def test_package_json_refers_to_files_that_exist(grammar):
    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    contributes = pkg["contributes"]
    (lang,) = contributes["languages"]
    assert lang["id"] == "rulespec" and lang["extensions"] == [".rules"]
    assert (VSCODE / lang["configuration"]).is_file()
    (gram,) = contributes["grammars"]
    assert (VSCODE / gram["path"]).resolve() == STORED.resolve()
    assert gram["scopeName"] == grammar["scopeName"] and gram["language"] == lang["id"]
    for pattern in pkg["files"]:                    # what a packaged .vsix takes
        assert list(VSCODE.glob(pattern)), pattern
    urls = [v["url"] for v in contributes["yamlValidation"]]
    for url in urls:
        assert (VSCODE / url).is_file(), url
    # every YAML schema of a pack, and the patch schema of every data file, is mapped
    wanted = {f"./schemas/{n}.schema.json" for n in data_schema_names() | {"pack", "scenario"}}
    wanted |= {f"./schemas/{n}.patch.schema.json" for n in data_schema_names()}
    assert set(urls) == wanted


def _matches(glob: str, rel: str) -> bool:
    """VS Code's `**/` glob, enough for the patterns package.json uses."""
    rx = re.escape(glob).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*")
    return re.fullmatch(rx, rel) is not None


def test_the_yaml_validation_globs_pick_the_files_their_schema_fits():
    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    checked = 0
    for folder in ("content", "tests/scenarios"):
        for p in sorted(p for p in (ROOT / folder).rglob("*.yaml") if p.is_file()):
            rel = p.relative_to(ROOT).as_posix()
            hits = [v["url"] for v in pkg["contributes"]["yamlValidation"]
                    if any(_matches(g, rel) for g in ([v["fileMatch"]] if isinstance(v["fileMatch"], str) else v["fileMatch"]))]
            assert len(hits) <= 1, (rel, hits)
            if hits:
                schema = json.loads((VSCODE / hits[0]).read_text(encoding="utf-8"))
                data = yaml.safe_load(p.read_text(encoding="utf-8"))
                errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]
                assert errors == [], (rel, hits[0], errors[:3])
                checked += 1
    assert checked > 100


def test_language_configuration_matches_the_grammar():
    conf = json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))
    lark = textmate.load_grammar()
    lits = set(textmate.literals(lark).values())
    assert conf["comments"]["lineComment"] == "#"
    assert lark.get_terminal("COMMENT").pattern.value.startswith("#")
    for open_, close in conf["brackets"]:
        assert {open_, close} <= lits
