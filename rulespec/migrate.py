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
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

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


# The steps, oldest first. Stage N of issue 16 appends its entry here, e.g.
#   Rewrite(1, 2, _declare_world, "adds rules/world.rules: the fields the pack used as built-ins")
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


def migrate(ref, search_path=None) -> tuple[Migration, list[Rewrite]]:
    """Load the pack and run the rewrites it needs on its files, in memory. RulespecError
    (positioned) when the pack does not load: a rewrite reads the pack as it is."""
    pack, errors = packmod.load_pack_collecting(ref, search_path)
    if errors or pack is None:
        raise RulespecError(errors)
    m = Migration(pack=pack, folder=pack.root)
    todo = steps(pack.language)
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
    pid, lang = m.pack.id, m.pack.language
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
