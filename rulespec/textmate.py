"""A TextMate grammar for `.rules` files, generated from rulespec/grammar.lark.

Editors (VS Code, Sublime Text, JetBrains IDEs through TextMate bundles, GitHub's linguist)
colour a language with a TextMate grammar: regexes tried on each line, each giving a *scope*
(`keyword.control`, `string.quoted.double`, ...) that themes colour. Writing one by hand would
drift from the real grammar, so this module derives it from grammar.lark with Lark's own API:

* the keywords are the grammar's word literals (`"let"`, `"per"`, ...), sorted by where they
  occur: alone as an expression (`true`) is a constant; reachable from `start` without entering
  an expression or an effect block (`replace`, `modify`, `remove`) is an overlay modifier;
  infix or a prefix of its own rule inside an expression (`and`, `not`, `per`) is an operator
  word; anything else (`if`, `choose`, `pay`, `where`) is a control keyword;
* the punctuation literals get the scope of PUNCTUATION below; a new literal in the grammar
  stops the generation until it is given one;
* the token regexes (QTY, KEY, NAME, NUMBER, STRING, COMMENT, COMP_OP) are the terminals'
  own patterns, split into captures where a token has parts (`3 florin`, `cost:`);
* a declaration header `[replace|modify|remove] kind id` and a sub-block header
  `room govern`, `step 2` are a line's first two names followed by what may follow them in
  the grammar (`(`, a title, an annotation, `{`, `;`), a comment or the end of the line;
* Lark's contextual lexer reads a keyword as a NAME where the grammar cannot have the keyword:
  the FIRST/FOLLOW sets of the grammar say where, and the patterns follow them in the three
  places the bundled packs need (`option florin_surplus {`, `option("x")`, `first_player:
  choose`), so such a word is not coloured as a keyword.

The regexes are in the subset that Oniguruma (TextMate, VS Code) and Python's `re` read alike,
so the tests can run them. Regenerate the stored grammar and the editors' schema copies with
`python3 -m rulespec.textmate` (see docs/editors.md).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from lark import Lark
from lark.grammar import NonTerminal, Terminal

from .parser import GRAMMAR_PATH

SCOPE_NAME = "source.rulespec"
# relative to the working directory: run it from the root of a checkout
DEFAULT_OUT = Path("editors/vscode/syntaxes/rulespec.tmLanguage.json")

# the keyword classes, in the order a keyword found in several is given its scope
CONSTANT = "constant.language.rulespec"
OVERLAY = "storage.modifier.overlay.rulespec"
CONTROL = "keyword.control.rulespec"
OPERATOR_WORD = "keyword.operator.word.rulespec"
KEYWORD_CLASSES = (CONSTANT, OVERLAY, CONTROL, OPERATOR_WORD)

# rules whose insides are expressions or effect blocks: keywords met below them are not
# overlay modifiers
EXPRESSION_ROOTS = ("expr", "block")

# the scope of each punctuation literal of the grammar (a literal that is not a word)
PUNCTUATION = {
    "{": "punctuation.section.braces.rulespec", "}": "punctuation.section.braces.rulespec",
    "(": "punctuation.section.parens.rulespec", ")": "punctuation.section.parens.rulespec",
    "[": "punctuation.section.brackets.rulespec", "]": "punctuation.section.brackets.rulespec",
    ",": "punctuation.separator.comma.rulespec", ";": "punctuation.terminator.rulespec",
    ".": "punctuation.accessor.rulespec", "@": "punctuation.definition.annotation.rulespec",
    "=": "keyword.operator.assignment.rulespec", "+=": "keyword.operator.assignment.rulespec",
    "+": "keyword.operator.arithmetic.rulespec", "-": "keyword.operator.arithmetic.rulespec",
    "*": "keyword.operator.arithmetic.rulespec", "/": "keyword.operator.arithmetic.rulespec",
    "%": "keyword.operator.arithmetic.rulespec",
    "|": "keyword.operator.alternative.rulespec",
}

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Python-only regex syntax that Oniguruma reads differently or not at all
_PYTHON_ONLY = ("(?P", r"\Z")


class GrammarError(Exception):
    """grammar.lark has something this generator cannot turn into TextMate patterns."""


def load_grammar(path: Path = GRAMMAR_PATH) -> Lark:
    return Lark(path.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                maybe_placeholders=True, start=["start", "expr", "block"])


def literals(lark: Lark) -> dict:
    """{terminal name: text} for the grammar's string literals (`"let"`, `"{"`, ...)."""
    return {t.name: t.pattern.value for t in lark.terminals
            if t.pattern.type == "str" and not t.name.startswith("__IGNORE")}


def keywords(lark: Lark) -> list:
    """The grammar's word literals, sorted."""
    return sorted(v for v in literals(lark).values() if _WORD.match(v))


def _reachable(rules_by_origin: dict, roots, stop=()) -> set:
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name in stop or name not in rules_by_origin:
            continue
        seen.add(name)
        for rule in rules_by_origin[name]:
            todo.extend(s.name for s in rule.expansion if isinstance(s, NonTerminal))
    return seen


def classify_keywords(lark: Lark) -> dict:
    """{keyword: scope}: see the module docstring for how a keyword is classed."""
    words = {name: v for name, v in literals(lark).items() if _WORD.match(v)}
    by_origin = {}
    for rule in lark.rules:
        by_origin.setdefault(rule.origin.name, []).append(rule)
    in_expressions = _reachable(by_origin, ["expr"])
    structural = _reachable(by_origin, ["start"], stop=EXPRESSION_ROOTS)
    classes = {}                                    # keyword -> set of classes
    for rule in lark.rules:
        syms = rule.expansion
        kw_at = [i for i, s in enumerate(syms) if isinstance(s, Terminal) and s.name in words]
        for i in kw_at:
            word = words[syms[i].name]
            origin = rule.origin.name
            if origin in structural:
                cls = OVERLAY
            elif len(syms) == 1 and origin in in_expressions:
                cls = CONSTANT                      # true, false, none
            elif origin in in_expressions and _is_operator(syms, kw_at, origin):
                cls = OPERATOR_WORD                 # a or b, not x, x not in y, 2 florin per x
            else:
                cls = CONTROL
            classes.setdefault(word, set()).add(cls)
    missing = set(words.values()) - set(classes)
    if missing:
        raise GrammarError(f"keywords in no rule: {', '.join(sorted(missing))}")
    return {w: next(c for c in KEYWORD_CLASSES if c in cs) for w, cs in sorted(classes.items())}


def _is_operator(syms, kw_at, origin) -> bool:
    """Infix (`x KW y`, `x KW KW y`: the keywords form one run between two other symbols) or a
    prefix of its own rule (`"not" not_expr`)."""
    if len(kw_at) == len(syms) - 2 and kw_at == list(range(1, len(syms) - 1)):
        return True
    return (kw_at == [0] and len(syms) == 2 and isinstance(syms[1], NonTerminal)
            and syms[1].name == origin)


def _first_and_follow(lark: Lark):
    """The textbook NULLABLE, FIRST and FOLLOW sets of the grammar's rules (terminal names)."""
    rules = lark.rules
    nullable, first, follow = set(), {}, {}
    for r in rules:
        first.setdefault(r.origin.name, set())
        follow.setdefault(r.origin.name, set())

    def first_of(seq):
        out = set()
        for s in seq:
            if isinstance(s, Terminal):
                out.add(s.name)
                return out, False
            out |= first.get(s.name, set())
            if s.name not in nullable:
                return out, False
        return out, True

    changed = True
    while changed:
        changed = False
        for r in rules:
            f, null = first_of(r.expansion)
            o = r.origin.name
            if not f <= first[o]:
                first[o] |= f
                changed = True
            if null and o not in nullable:
                nullable.add(o)
                changed = True
            for i, s in enumerate(r.expansion):
                if isinstance(s, NonTerminal):
                    f, null = first_of(r.expansion[i + 1:])
                    add = f | (follow[o] if null else set())
                    if not add <= follow[s.name]:
                        follow[s.name] |= add
                        changed = True
    return nullable, first_of, follow


def follow_pairs(lark: Lark) -> set:
    """{(a, b)}: the terminals b that the grammar lets come right after terminal a."""
    _, first_of, follow = _first_and_follow(lark)
    pairs = set()
    for r in lark.rules:
        for i, s in enumerate(r.expansion):
            if isinstance(s, Terminal):
                f, null = first_of(r.expansion[i + 1:])
                pairs |= {(s.name, b) for b in f | (follow[r.origin.name] if null else set())}
    return pairs


def keywords_never(lark: Lark, before: str | None = None, after: str | None = None) -> set:
    """The keywords the grammar never puts right before (or right after) the given terminal.
    Lark's contextual lexer reads such a keyword there as a NAME: `option("x")` calls a
    function named option, `first_player: choose` names a value, `option florin_surplus {`
    declares an option. (`not (a or b)` is the keyword: `not` may come before `(`.)"""
    words = {name: v for name, v in literals(lark).items() if _WORD.match(v)}
    pairs = follow_pairs(lark)
    return {w for name, w in words.items()
            if (before is None or (name, before) not in pairs) and (after is None or (after, name) not in pairs)}


def _terminal(lark: Lark, name: str) -> str:
    try:
        pattern = lark.get_terminal(name).pattern
    except KeyError:
        raise GrammarError(f"grammar.lark has no terminal {name}") from None
    if pattern.flags:
        raise GrammarError(f"terminal {name} has regex flags {sorted(pattern.flags)}")
    return pattern.to_regexp()


def _uncapture(regex: str) -> str:
    """The regex with its capturing groups made non-capturing (captures are ours to number)."""
    return re.sub(r"(?<!\\)\((?!\?)", "(?:", regex)


def _split_prefix(whole: str, prefix: str, terminal: str) -> str:
    if not whole.startswith(prefix):
        raise GrammarError(f"terminal {terminal} ({whole}) no longer starts with {prefix}")
    return whole[len(prefix):]


def _alternation(words) -> str:
    # longest first, so that a word is never cut short by a shorter one it starts with
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def build(lark: Lark | None = None) -> dict:
    """The TextMate grammar, as a JSON-ready dict."""
    lark = lark or load_grammar()
    kw_scopes = classify_keywords(lark)
    overlay_kw = _alternation(w for w, s in kw_scopes.items() if s == OVERLAY)
    name = _uncapture(_terminal(lark, "NAME"))
    number = _uncapture(_terminal(lark, "NUMBER"))
    lpar = next(n for n, v in literals(lark).items() if v == "(")
    words = set(kw_scopes)

    def not_kw_except(names_there: set) -> str:
        """a lookahead refusing the keywords, but for those that are names at that place"""
        return rf"(?!(?:{_alternation(words - names_there)})\b)"
    # a header's kind is a keyword only if the keyword may precede a NAME (or a NUMBER key)
    kind_ok = not_kw_except(keywords_never(lark, before="NAME") & keywords_never(lark, before="NUMBER"))
    id_ok = not_kw_except(keywords_never(lark, after="NAME"))
    call_ok = not_kw_except(keywords_never(lark, before=lpar))
    names_after_key = _alternation(keywords_never(lark, after="KEY"))

    # QTY: `\d+[ \t]+` then the symbol (the terminal's own lookahead keeps `2 and` out)
    qty = _terminal(lark, "QTY")
    qty_number = r"\d+"
    qty_rest = _split_prefix(qty, qty_number, "QTY")
    qty_space = r"[ \t]+"
    qty_symbol = _uncapture(_split_prefix(qty_rest, "[ \t]+", "QTY"))   # the grammar's \t is a tab
    # KEY: a NAME, blanks, ':' not followed by '='
    key = _terminal(lark, "KEY")
    key_rest = _split_prefix(key, _terminal(lark, "NAME"), "KEY")
    if key_rest != "[ \t]*:(?!=)":      # a real tab, as in the grammar
        raise GrammarError(f"terminal KEY ends in {key_rest}, not in [ \\t]*:(?!=)")
    comment = _terminal(lark, "COMMENT")
    if not comment.startswith("#"):
        raise GrammarError(f"terminal COMMENT ({comment}) does not start with '#'")
    string = _terminal(lark, "STRING")
    if not (string.startswith('"') and string.endswith('"')):
        raise GrammarError(f"terminal STRING ({string}) is not a double-quoted string")
    comp_op = _uncapture(_terminal(lark, "COMP_OP"))

    puncts = sorted((v for v in literals(lark).values() if not _WORD.match(v)), key=lambda v: (-len(v), v))
    unknown = [p for p in puncts if p not in PUNCTUATION]
    if unknown:
        raise GrammarError(f"punctuation with no scope in PUNCTUATION: {' '.join(unknown)}")
    # operators first (longest first: `+=` before `+`, `==` before `=`), then the rest
    operator_patterns = [{"name": "keyword.operator.comparison.rulespec", "match": comp_op}]
    by_scope = {}
    for p in puncts:
        by_scope.setdefault(PUNCTUATION[p], []).append(p)
    for scope, items in by_scope.items():
        operator_patterns.append({"name": scope, "match": _alternation(items)})

    # a header (`kind id`, `remove kind id`, `room govern`, `step 2`): the first two names of a
    # line, then what may follow them in a declaration
    follows = r"(?=\s*(?:[(\"@{;#]|$))"
    repo = {
        "comment": {"match": r"(#).*$", "name": "comment.line.number-sign.rulespec",
                    "captures": {"1": {"name": "punctuation.definition.comment.rulespec"}}},
        "string": {"begin": '"', "end": '"|$', "name": "string.quoted.double.rulespec",
                   "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.rulespec"}},
                   "endCaptures": {"0": {"name": "punctuation.definition.string.end.rulespec"}},
                   "patterns": [{"match": r"\\.", "name": "constant.character.escape.rulespec"}]},
        "annotation": {"match": rf"(@)\s*({name})", "name": "meta.annotation.rulespec",
                       "captures": {"1": {"name": "punctuation.definition.annotation.rulespec"},
                                    "2": {"name": "storage.type.annotation.rulespec"}}},
        "header": {"match": rf"^\s*(?:({overlay_kw})\s+)?{kind_ok}({name})\s+{id_ok}({name}|{number}){follows}",
                   "name": "meta.declaration.header.rulespec",
                   "captures": {"1": {"name": OVERLAY},
                                "2": {"name": "storage.type.kind.rulespec"},
                                "3": {"name": "entity.name.type.declaration.rulespec"}}},
        # `key:`, and the value after it when it is a keyword that is a name there (`choose`)
        "field": {"match": rf"\b({name})[ \t]*(:)(?!=)(?:[ \t]*((?:{names_after_key})\b))?",
                  "captures": {"1": {"name": "variable.other.property.rulespec"},
                               "2": {"name": "punctuation.separator.key-value.rulespec"},
                               "3": {"name": "variable.other.rulespec"}}},
        "quantity": {"match": rf"\b({qty_number}){qty_space}({qty_symbol})\b",
                     "name": "meta.quantity.rulespec",
                     "captures": {"1": {"name": "constant.numeric.rulespec"},
                                  "2": {"name": "keyword.other.unit.rulespec"}}},
        "number": {"match": rf"\b{number}\b", "name": "constant.numeric.rulespec"},
        # a call; before the keywords, as `option("x")` calls a function named like a keyword
        "call": {"match": rf"\b{call_ok}({name})(?=\s*\()",
                 "captures": {"1": {"name": "entity.name.function.rulespec"}}},
        "keyword": {"patterns": [
            {"match": rf"\b(?:{_alternation(w for w, s in kw_scopes.items() if s == cls)})\b", "name": cls}
            for cls in KEYWORD_CLASSES if cls in kw_scopes.values()]},
        "attribute": {"match": rf"(\.)\s*({name})",
                      "captures": {"1": {"name": "punctuation.accessor.rulespec"},
                                   "2": {"name": "variable.other.property.rulespec"}}},
        "operator": {"patterns": operator_patterns},
        "name": {"match": rf"\b{name}\b", "name": "variable.other.rulespec"},
    }
    order = list(repo)              # earlier patterns win when two match at the same column
    grammar = {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "rulespec",
        "scopeName": SCOPE_NAME,
        "fileTypes": ["rules"],
        "comment": "Generated from rulespec/grammar.lark by `python3 -m rulespec.textmate`; do not edit.",
        "patterns": [{"include": f"#{k}"} for k in order],
        "repository": repo,
    }
    for regex in regexes(grammar):
        bad = [s for s in _PYTHON_ONLY if s in regex]
        if bad:
            raise GrammarError(f"regex {regex!r} uses Python-only syntax {bad}")
        re.compile(regex)
    return grammar


def regexes(grammar: dict) -> list:
    """Every regex of a TextMate grammar (match, begin, end)."""
    out = []

    def walk(node):
        if isinstance(node, dict):
            out.extend(node[k] for k in ("match", "begin", "end") if isinstance(node.get(k), str))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(grammar)
    return out


def render(grammar: dict) -> str:
    return json.dumps(grammar, indent=2, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    from .editor_schemas import DEFAULT_SCHEMA_OUT, write_schemas
    ap = argparse.ArgumentParser(prog="python3 -m rulespec.textmate",
                                 description="Generate the TextMate grammar of .rules files and the "
                                             "editors' copies of the JSON Schemas.")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the grammar file (default: {DEFAULT_OUT})")
    ap.add_argument("--schemas", type=Path, default=DEFAULT_SCHEMA_OUT,
                    help=f"the folder for the schema copies (default: {DEFAULT_SCHEMA_OUT})")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if the stored files differ from a fresh generation")
    args = ap.parse_args(argv)
    try:
        text = render(build())
    except GrammarError as e:
        print(f"rulespec.textmate: {e}", file=sys.stderr)
        return 2
    stale = []
    if not args.out.is_file() or args.out.read_text(encoding="utf-8") != text:
        stale.append(str(args.out))
        if not args.check:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(text, encoding="utf-8")
    stale += write_schemas(args.schemas, check_only=args.check)
    if args.check:
        for path in stale:
            print(f"out of date: {path} (run python3 -m rulespec.textmate)", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
