"""`rulespec migrate PACK`: rewrite a pack written for an older version of the rules language
for the newest this rulespec reads (pack.yaml `language:`, docs/language.md).

The language changes in steps (issue 16, docs/design/world-model-plan.md §2.10 and §4). Each
step that changes what a pack must say adds ONE entry to `REWRITES`: the version it reads, the
version it writes, a function that edits the pack's files, and a sentence saying what it does.
A pack written for version N goes through every entry from N up to the newest, in order, and
after each step its pack.yaml says the step's version. Rewrites edit the text of the files (at
positions they find by parsing), never re-print them, so that comments and layout survive.

Only the files of the pack's own folder are rewritten (its pack.yaml, YAML data, `.rules` files
and scenarios): a base pack it extends is migrated on its own. What a rewrite cannot do it
reports at its file and line, with what to write instead (`Migration.cannot`).
"""
from __future__ import annotations

import difflib
import functools
import re
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable

from . import ast as A
from . import pack as packmod
from .errors import Diagnostic, RulespecError
from .sandbox import pack_files, read_bytes

SCENARIOS = "scenarios"


@dataclass(frozen=True)
class Rewrite:
    """One step of the language: rewrites a pack written for `source` into one for `target`."""
    source: int
    target: int
    apply: Callable[["Migration"], None]
    description: str


# The steps, oldest first (filled in below, after the functions they name).
REWRITES: list[Rewrite] = []


def steps(language: int, newest: int | None = None) -> list[Rewrite]:
    """The rewrites that take a pack from `language` to `newest` (default: the newest this
    rulespec reads), in the order they apply."""
    newest = max(packmod.LANGUAGES) if newest is None else newest
    out, v = [], language
    while v < newest:
        step = next((r for r in REWRITES if r.source == v), None)
        if step is None or step.target <= v:
            raise AssertionError(f"rulespec.migrate.REWRITES has no step from language {v} "
                                 f"(languages: {packmod.LANGUAGES})")
        out.append(step)
        v = step.target
    return out


@dataclass
class Migration:
    """The pack being migrated: its loaded chain (read only) and the text of its own files,
    as the rewrites so far have left them."""
    pack: packmod.Pack
    folder: Path
    original: dict = field(default_factory=dict)        # relative path -> text on disk
    texts: dict = field(default_factory=dict)           # relative path -> text now
    problems: list = field(default_factory=list)        # what the rewrites could not do

    def files(self, suffix: str = "") -> list[str]:
        """The relative paths of the pack's own files (pack.yaml, YAML data, `.rules`, and the
        YAML files of scenarios/), sorted, those ending with `suffix`."""
        paths = set(packmod.pack_source_files(self.folder))
        if (self.folder / SCENARIOS).is_dir():
            found, _ = pack_files(self.folder / SCENARIOS)
            paths.update(p for p in found if p.name.endswith(".yaml"))
        rels = {p.relative_to(self.folder).as_posix() for p in paths} | set(self.texts)
        return sorted(r for r in rels if r.endswith(suffix))

    def read(self, rel: str) -> str:
        if rel not in self.texts:
            path = self.folder / rel
            text = read_bytes(path, root=self.folder).decode("utf-8") if path.exists() else ""
            self.original.setdefault(rel, text)
            self.texts[rel] = text
        return self.texts[rel]

    def write(self, rel: str, text: str) -> None:
        """Replace a file's text (a new file: `rel` not yet in the pack)."""
        self.read(rel)
        self.texts[rel] = text

    def cannot(self, diagnostic: Diagnostic) -> None:
        """Report something the rewrite cannot do, at its place, with what to write instead."""
        self.problems.append(diagnostic)

    def changed(self) -> list[str]:
        return [rel for rel in sorted(self.texts) if self.texts[rel] != self.original.get(rel, "")]

    def diff(self) -> str:
        out = []
        for rel in self.changed():
            old = self.original.get(rel, "")
            out.extend(difflib.unified_diff(old.splitlines(keepends=True), self.texts[rel].splitlines(keepends=True),
                                            f"a/{rel}" if old else "/dev/null", f"b/{rel}"))
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)


_LANGUAGE_LINE = re.compile(r"^language:[ \t]*(?P<value>[^#\r\n]*?)(?P<rest>[ \t]*(#[^\r\n]*)?)$", re.M)
_VERSION_LINE = re.compile(r"^version:[^\r\n]*(\r?\n|$)", re.M)


def set_language(text: str, version: int) -> str:
    """pack.yaml's text saying `language: version`: its `language:` line changed (its comment
    kept), or a line added after `version:` (or at the end)."""
    m = _LANGUAGE_LINE.search(text)
    if m:
        return text[:m.start("value")] + str(version) + text[m.end("value"):]
    eol = "\r\n" if "\r\n" in text else "\n"
    m = _VERSION_LINE.search(text)
    at = m.end() if m else len(text)
    before = text[:at] if not text[:at] or text[:at].endswith("\n") else text[:at] + eol
    return before + f"language: {version}{eol}" + text[at:]


def declared_language(pack: packmod.Pack) -> int:
    """The language the pack's own pack.yaml says it is written for; 1 without `language:`.
    (The loader reads an overlay without it in its base's language, so that a base moving on
    does not break its overlays; migrating it writes the version down.)"""
    data = pack.manifest.data if isinstance(pack.manifest.data, dict) else {}
    return int(data["language"]) if "language" in data else packmod.DEFAULT_LANGUAGE


def migrate(ref, search_path=None) -> tuple[Migration, list[Rewrite]]:
    """Load the pack and run the rewrites it needs on its files, in memory. RulespecError
    (positioned) when the pack does not load: a rewrite reads the pack as it is."""
    pack, errors = packmod.load_pack_collecting(ref, search_path)
    if errors or pack is None:
        raise RulespecError(errors)
    m = Migration(pack=pack, folder=pack.root)
    todo = steps(declared_language(pack))
    for step in todo:
        step.apply(m)
        m.write("pack.yaml", set_language(m.read("pack.yaml"), step.target))
    return m, todo


def write(m: Migration) -> list[str]:
    """Write the changed files; returns their relative paths."""
    changed = m.changed()
    for rel in changed:
        path = m.folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(m.texts[rel].encode("utf-8"))
    return changed


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def run(ref: str, search_path=None, check: bool = False, write_files: bool = False, out=print, err=_err) -> int:
    """The command: print what migrating would change (a diff), or with `write_files` write
    it. Exit status: 0 nothing to do, or done; 1 with `check` when something would change, or
    when something is left to do by hand (diagnostics, on `err`): what a rewrite cannot do, or
    what the written pack's loading finds."""
    m, todo = migrate(ref, search_path)
    pid, lang = m.pack.id, declared_language(m.pack)
    if not todo:
        out(f"{pid} is written for language {lang}: nothing to migrate")
        return 0
    newest = todo[-1].target
    out(f"{pid} is written for language {lang}; migrating it to language {newest}:")
    for step in todo:
        out(f"  {step.source} -> {step.target}: {step.description}")
    changed = m.changed()
    if write_files:
        write(m)
        out(f"wrote {len(changed)} file(s) in {m.folder}: {', '.join(changed)}")
        _, errors = packmod.load_pack_collecting(m.folder, search_path)
        m.problems.extend(errors)
        out(f"now check it: rulespec validate {ref}")
    else:
        out(m.diff().rstrip("\n"))
        out(f"{len(changed)} file(s) would change: {', '.join(changed)}"
            + ("" if check else f"; write them with `rulespec migrate {ref} --write`"))
    for d in m.problems:
        err(d.render())
    if m.problems:
        err(f"{len(m.problems)} problem(s) left to change by hand (above)")
    return 1 if m.problems or (check and changed) else 0


# ------------------------------------------------------------------ language 1 -> 2
# Language 2 (issue 16, the world model) took out of the engine's vocabulary the names that were
# Virtù's rules rather than a language's words: most are now declarations of the base pack
# (content/base_3to5: fields, zones, formulas and procedures of the same names, so a pack that
# extends it reads them as before), a few have a generic language-2 form. Each name of language
# 1 that left the vocabulary, by what it was (rulespec/vocabulary.py at 40cd351, the stage that
# introduced `language:`):
LANGUAGE_1_NAMES = {
    "name": ("agent_spots alliances cities indulgence_cards neutral_cities notables num_players opponents "
             "patronage_bonuses seas supply_tiles end_of_spring end_of_winter end_of_year final_winter").split(),
    "function": ("adjacent_by_road agent_at agent_count bottom fight_bonus fight_total free_spaces holder is_port "
                 "lookup modified_value owns ports_reachable rank road_distance road_neighbours room_ahead "
                 "seas_between seas_of standings steps_left troops_at").split(),
    "verb": ("begin_phase discard end_phase fight_term flip form_alliance gain lose move_card move_marker "
             "move_troop place_agent place_disc place_marker place_troop reactivate remove_agent remove_disc "
             "remove_troop rid_indulgence run_block settle_gains start_fight take_card take_indulgence take_tile "
             "take_trophy take_war_token use_bonus use_bottom use_war_bonus").split(),
    "attribute": ("agents_available agents_total alliances cards cities city_count colour florins indulgences "
                  "marker rooms starting_cities tiles troops troops_available trophies trophies_from war_tokens "
                  "action_card agent improvement indulgence owner cortigiano cost ends_game points annexable "
                  "cathedral controller is_port neutral pirate starting_colour tile value copies exhausted id "
                  "on_extra_space pp room space type city spent bonus_available bonus_used holder leader_bonus "
                  "name house").split(),
}


@dataclass(frozen=True)
class CallRewrite:
    """A call of a language-1 built-in that language 2 writes with its own words: where the
    checker finds `name(...)` unknown, the call's text becomes `build(*args)` (when it has `arity` arguments). `matches` and
    `writes` say it for people (docs/language.md, "Language versions"), `why` says why."""
    source: int
    target: int
    name: str
    matches: str
    writes: str
    why: str
    build: Callable[..., str]       # the arguments' texts -> the new text
    arity: int                      # how many arguments the call must have to be rewritten
    table_first: bool = False       # only when the first argument names a table the chain declares


def _atom(text: str) -> str:
    """An argument's text, bracketed unless it is one word or call (so that an operator of the
    new form cannot bind inside it)."""
    return text if re.fullmatch(r"[\w.]+(\(.*\)|\[.*\])?", text, re.S) else f"({text})"


_GRAPH = "the map's graph is asked with `neighbours`, `distance` and `reachable` `via:` kinds of edge"
CALL_REWRITES = [
    CallRewrite(1, 2, "lookup", "lookup(TABLE, KEY)", "TABLE(KEY)",
                "a table is read by calling it with the row's key", lambda t, k: f"{t}({k})", 2, table_first=True),
    CallRewrite(1, 2, "road_neighbours", "road_neighbours(C)", "neighbours(C, via: road)", _GRAPH,
                lambda c: f"neighbours({c}, via: road)", 1),
    CallRewrite(1, 2, "road_distance", "road_distance(A, B)", "distance(A, B, via: road)", _GRAPH,
                lambda a, b: f"distance({a}, {b}, via: road)", 2),
    CallRewrite(1, 2, "adjacent_by_road", "adjacent_by_road(A, B)", "(B in neighbours(A, via: road))", _GRAPH,
                lambda a, b: f"({_atom(b)} in neighbours({a}, via: road))", 2),
    CallRewrite(1, 2, "seas_of", "seas_of(C)", "neighbours(C, via: coast)", _GRAPH,
                lambda c: f"neighbours({c}, via: coast)", 1),
    CallRewrite(1, 2, "is_port", "is_port(C)", "(count(neighbours(C, via: coast)) > 0)", _GRAPH,
                lambda c: f"(count(neighbours({c}, via: coast)) > 0)", 1),
]

# What to write instead of a language-1 name that neither a rewrite nor the base pack covers.
_BY_HAND = {
    "begin_phase": "a phase is played with `play_phase(PHASE)`, which runs its `effect` (docs/language.md, \"Rounds, phases and the end of the game\")",
    "end_phase": "a phase ends when its `effect` ends: call `play_phase(PHASE)` for the next one",
    "run_block": "put the steps in a `procedure` and run it with `run(NAME)`",
    "use_bonus": "declare the bonus as a `procedure` and offer it during the payment (`bonus_usable_in`)",
    "seas": "the seas are nodes of the map's graph: `neighbours(c, via: coast)` are the seas of port c "
            "(docs/language.md, \"The map's graph\")",
    "end_of_spring": "`at: end_of_PHASE` names a phase the pack declares, or `end_of_round` (docs/language.md, "
                     "\"Rounds, phases and the end of the game\")",
}
_BY_HAND.update({k: _BY_HAND["end_of_spring"] for k in ("end_of_winter", "end_of_year", "final_winter")})
_DEFINING_KINDS = ("formula", "procedure", "field", "zone", "record", "table", "kind", "enum")
_UNKNOWN = re.compile(r"unknown (function|verb|name) '(\w+)'|has no attribute '(\w+)'")


def _offsets(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


class _Source:
    """One `.rules` file: its text and AST, and the text of a node with the edits inside it."""
    def __init__(self, text: str, module):
        self.text, self.module, self.lines = text, module, _offsets(text)
        self.edits: dict[int, tuple] = {}          # id(node) -> (node, function of this source)

    def at(self, line: int, column: int) -> int:
        return self.lines[line - 1] + column - 1

    def bounds(self, node) -> tuple[int, int]:
        s = node.span
        return self.at(s.line, s.column), self.at(s.end_line, s.end_column)

    def emit(self, node, start: int | None = None, end: int | None = None) -> str:
        """The node's new text: its edit, or its own text (from `start` to `end` when given)
        with the outermost edits inside it spliced in."""
        if id(node) in self.edits:
            return self.edits[id(node)][1](self)
        if start is None:
            start, end = self.bounds(node)
        inner = sorted((self.bounds(n), n) for n in self._frontier(node))
        out, at = [], start
        for (s, e), n in inner:
            out += [self.text[at:s], self.emit(n)]
            at = e
        return "".join(out) + self.text[at:end]

    def _frontier(self, node) -> list:
        out, stack = [], [getattr(node, f.name) for f in fields(node) if f.name != "span"]
        while stack:
            v = stack.pop()
            if isinstance(v, A.Node):
                if id(v) in self.edits:
                    out.append(v)
                else:
                    stack.extend(getattr(v, f.name) for f in fields(v) if f.name != "span")
            elif isinstance(v, (list, tuple)):
                stack.extend(v)
            elif isinstance(v, dict):
                stack.extend(v.values())
        return out

    def rewritten(self) -> str:
        return self.emit(self.module, 0, len(self.text)) if self.edits else self.text


@functools.lru_cache(maxsize=1)
def _base_pack():
    """The bundled base pack, read for the hints (None if it is missing or does not load)."""
    folder = packmod.bundled_packs().get("base_3to5")
    try:
        return packmod.load_pack(folder) if folder else None
    except RulespecError:
        return None


def _base_declaration(name: str):
    """Where the base pack declares `name` (a formula, procedure, field...), or None."""
    pack = _base_pack()
    return None if pack is None else next((d for (k, i), d in pack.decls.items()
                                           if i == name and k in _DEFINING_KINDS), None)


def _cannot_hint(name: str, what: str) -> str:
    if name in _BY_HAND:
        return _BY_HAND[name]
    d = _base_declaration(name)
    if d is not None:
        from content import PACKS_DIR
        rel = Path(d.span.file).resolve().relative_to(Path(PACKS_DIR).resolve().parent).as_posix()
        return (f"language 2 has it from the base pack, which declares `{d.kind} {name}` ({rel}:{d.span.line}): "
                f"add `extends: base_3to5` to pack.yaml, or declare `{name}` in this pack (copy that "
                f"declaration, with what it reads)")
    return (f"declare `{name}` in this pack (a `field`, or a `formula` or `procedure` of that name; "
            f"docs/language.md, \"Declaring the world\")")


def _rewrite_1_to_2(m: Migration) -> None:
    """Language 1 -> 2: a call of a built-in that left the language, where the pack's chain does
    not declare the name itself (the checker finds it unknown), becomes its language-2 form
    (CALL_REWRITES); any other such name is reported where it is written, with what to write."""
    from .checker import check_pack
    from .parser import parse_rules
    diags, _ = check_pack(m.pack)
    root = m.folder.resolve()
    removed = {n for names in LANGUAGE_1_NAMES.values() for n in names}
    by_name = {r.name: r for r in CALL_REWRITES if r.source == 1}
    sources: dict[str, _Source] = {}
    seen = set()
    for d in diags:
        hit = _UNKNOWN.search(d.message) if d.severity == "error" else None
        if not hit:
            continue
        what = hit.group(1) or "attribute"
        name = hit.group(2) or hit.group(3)
        if name not in removed or (d.span.file, d.span.line, d.span.column, name) in seen:
            continue
        seen.add((d.span.file, d.span.line, d.span.column, name))
        try:
            rel = Path(d.span.file).resolve().relative_to(root).as_posix()
        except ValueError:
            continue                                   # in a base pack: migrated on its own
        rewrite = by_name.get(name) if what == "function" else None
        node = None
        if rewrite is not None and rel.endswith(".rules"):
            if rel not in sources:
                text = m.read(rel)
                sources[rel] = _Source(text, parse_rules(text, d.span.file))
            src = sources[rel]
            node = next((n for n in A.walk(src.module) if isinstance(n, A.Call) and isinstance(n.func, A.Name)
                         and n.func.id == name and (n.func.span.line, n.func.span.column) == (d.span.line, d.span.column)),
                        None)
        if node is not None and not node.kwargs and len(node.args) == rewrite.arity \
                and (not rewrite.table_first or _names_a_table(m, node.args[0])):
            src.edits[id(node)] = (node, lambda s, n=node, r=rewrite: r.build(*[s.emit(a) for a in n.args]))
            continue
        m.cannot(Diagnostic("RS107" if what in ("function", "verb") else "RS105",
                            f"cannot migrate: '{name}' ({'an attribute' if what == 'attribute' else 'a ' + what} "
                            f"of language 1) is not a word of language 2, and this pack's chain does not declare it",
                            d.span, _cannot_hint(name, what), source_line=d.source_line))
    for rel, src in sources.items():
        m.write(rel, src.rewritten())


def _names_a_table(m: Migration, arg) -> bool:
    """`lookup(T, k)` becomes `T(k)` only when T is a table the chain declares."""
    return isinstance(arg, A.Name) and ("table", arg.id) in m.pack.decls


REWRITES.append(Rewrite(1, 2, _rewrite_1_to_2,
                        "calls of built-ins that left the language get their language-2 form "
                        "(lookup(T, k) -> T(k); the map's graph -> neighbours/distance(..., via: ...)); "
                        "other names that left it are reported where they are written"))
