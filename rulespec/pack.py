"""Load a content pack and resolve its overlays into one effective pack.

A pack is a folder with `pack.yaml` (manifest), YAML data files next to it and `.rules` DSL
files (anywhere below the folder); its `scenarios/` folder is not part of it (pack_layout). A
pack may `extends:` another; loading applies each pack of the chain in order, base first:

* DSL declarations: a plain declaration adds a new object (RS101 if the id is taken);
  `replace kind id {...}` swaps the whole declaration, `modify kind id {...}` sets, appends to
  (`+=`) or removes (`remove f`) single fields and sub-blocks, `remove kind id` deletes it.
  Targets that do not exist are RS108.
* YAML data: an overlay file with the same name replaces the base file whole;
  `NAME.patch.yaml` is merged into it (rulespec.yamlpatch: mappings key by key, lists with ids
  by id, other lists replaced whole or changed by `$append` / `$remove` / `$merge`).
* YAML collections named after a kind (`tracks:`, `palaces:`, `components:`) become
  declarations too, so DSL overlays can modify them like any other object.

Every resolved declaration and field keeps its provenance: where it was defined and where
each overlay changed it.
"""
from __future__ import annotations

import copy
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from . import limits
from .errors import Diagnostic, RulespecError, Span, did_you_mean, source_line_at
from .kinds import KINDS
from .sandbox import check_path, inside, pack_files, path_problem, read_bytes, relative_inside
from .schema import check_schema, data_schema_names, load_schema
from .yamldata import YamlDoc, load_yaml_file
from .yamlpatch import merge_yaml_docs

EVIDENCE_TAGS = ("rulebook", "board", "derived", "inferred", "placeholder", "decision")
UNVERIFIED_TAGS = ("inferred", "placeholder")

# The versions of the rules language this rulespec reads (pack.yaml `language:`; the schema's
# enum lists the same). A pack without `language:` is written for version 1, the language before
# versions existed; an overlay without it is read in its base's. `rulespec migrate` (migrate.py)
# rewrites a pack for the newest. A stage of issue 16 that changes the language adds a version
# here, in pack.schema.json, and its rewrite in migrate.REWRITES.
LANGUAGES = (1, 2)
DEFAULT_LANGUAGE = 1

# YAML collections that become declarations: top-level key -> (kind, {sub-list key: sub-block kind})
YAML_COLLECTIONS = {
    "tracks": ("track", {"spaces": "space", "zones": "zone"}),
    "palaces": ("palace", {"rooms": "room"}),
    "components": ("component", {}),
}


@dataclass
class FieldValue:
    name: str
    value: object                  # an ast.Expr / ast.Block, or a plain value from YAML
    span: Span
    annotations: list = field(default_factory=list)
    history: list = field(default_factory=list)     # [(op, Span, pack_id)]

    @property
    def evidence(self) -> list:
        return [a for a in self.annotations if a.name in EVIDENCE_TAGS]


@dataclass
class Decl:
    """A resolved declaration (or sub-block): fields and nested blocks, with provenance."""
    kind: str
    id: object
    span: Span
    pack: str
    title: str = ""
    params: list = field(default_factory=list)
    annotations: list = field(default_factory=list)
    fields: dict = field(default_factory=dict)       # name -> FieldValue
    blocks: dict = field(default_factory=dict)       # (kind, key) -> Decl
    history: list = field(default_factory=list)      # [(op, Span, pack_id)]
    id_span: Span | None = None
    yaml_stem: str | None = None        # the YAML data file it was declared in, if any

    def get(self, name, default=None):
        fv = self.fields.get(name)
        return default if fv is None else fv.value

    def sub(self, kind: str) -> list:
        return [b for (k, _), b in self.blocks.items() if k == kind]

    @property
    def key(self):
        return (self.kind, self.id)


@dataclass
class Pack:
    id: str
    name: str
    version: str
    description: str
    players: list
    root: Path
    chain: list                                       # pack ids, base first
    manifest: YamlDoc
    data: dict = field(default_factory=dict)          # file stem -> YamlDoc (effective)
    data_history: dict = field(default_factory=dict)  # file stem -> [(op, file, pack_id)]
    decls: dict = field(default_factory=dict)         # (kind, id) -> Decl, in definition order
    warnings: list = field(default_factory=list)
    modules: list = field(default_factory=list)       # parsed .rules modules (for checks)
    sources: list = field(default_factory=list)       # [(pack id, folder)] of the chain, base first
    removed: dict = field(default_factory=dict)       # (kind, id) -> (Decl, Span of the `remove`), by overlays
    language: int = DEFAULT_LANGUAGE                  # pack.yaml `language:` (an overlay's default: its base's)
    _content_hash: str | None = field(default=None, repr=False, compare=False)

    def content_hash(self) -> str:
        """sha256 over the source files of the effective pack: the manifest, YAML and `.rules`
        files of every pack of the chain (an overlay's base packs included), each named
        `PACK_ID/relative/path` and taken in sorted order, with its length and bytes (CRLF read
        as LF, so a Windows checkout hashes the same). Independent of where the folders are;
        changes with any byte of any file the loader reads. Computed once per loaded pack."""
        if self._content_hash is None:
            entries = []
            for pid, folder in self.sources:
                for path in pack_source_files(folder):
                    rel = path.relative_to(folder).as_posix()
                    entries.append((f"{pid}/{rel}", read_bytes(path, root=folder).replace(b"\r\n", b"\n")))
            h = hashlib.sha256()
            for name, data in sorted(entries):
                name_b = name.encode("utf-8")
                h.update(b"%d:%s\0%d:" % (len(name_b), name_b, len(data)))
                h.update(data)
            self._content_hash = h.hexdigest()
        return self._content_hash

    def of_kind(self, kind: str) -> list:
        return [d for (k, _), d in self.decls.items() if k == kind]

    def get(self, kind: str, id_: str) -> Decl | None:
        return self.decls.get((kind, id_))


# ------------------------------------------------------------------ locating packs
PACK_PATH_ENV = "RULESPEC_PACK_PATH"
_ID = re.compile(r"[a-z][a-z0-9_]*")


def bundled_packs() -> dict:
    from content import PACKS_DIR
    return {p.name: p for p in sorted(PACKS_DIR.iterdir()) if (p / "pack.yaml").is_file()}


def search_folders(search_path=None) -> list:
    """The trusted places where packs are looked up by id, in order: the folders given by the
    caller (`search_path`: the command line's --pack-path, trusted code naming a base pack),
    then those of the RULESPEC_PACK_PATH environment variable (separated by os.pathsep). Each
    is a pack folder itself, or a folder holding pack folders."""
    out = [Path(p) for p in (search_path or []) if str(p)]
    out += [Path(p) for p in os.environ.get(PACK_PATH_ENV, "").split(os.pathsep) if p]
    return [p for p in out if not path_problem(str(p))]


def _search(name: str, folders: list) -> Path | None:
    """The pack `name` (its folder's name) in the trusted folders, else the bundled one."""
    if not _ID.fullmatch(name):
        return None
    for f in folders:
        if f.name == name and (f / "pack.yaml").is_file():
            return f.resolve()
        if (f / name / "pack.yaml").is_file():
            return (f / name).resolve()
    return bundled_packs().get(name)


def find_in_search_path(pack_id: str, search_path=None) -> Path | None:
    """The folder of the pack with this id (its folder's name) in the search path
    (search_folders), else the bundled one, else None. Never a path: an id only."""
    return _search(str(pack_id), search_folders(search_path))


def _trusted_folder(real: Path, folders: list) -> bool:
    """`real` (resolved) is a pack folder the user trusts: one named in the search path, a
    pack directly inside a folder of the search path, or a bundled pack."""
    if not (real / "pack.yaml").is_file():
        return False
    from content import PACKS_DIR
    places = [f.resolve() for f in folders]
    return real in places or real.parent in places or real.parent == PACKS_DIR


def find_pack(ref: str | Path, search_path=None) -> Path:
    """A pack named by the user (command line, API): a folder holding a pack.yaml (or that
    pack.yaml itself), or the id of a pack in the search path (search_folders) or bundled.
    RS020 when none exists; RS005 for a path too long to be one."""
    ref_s = str(ref)
    check_path(ref_s, Span(ref_s[:80]), "pack")
    c = Path(ref_s)
    try:
        if (c / "pack.yaml").is_file():
            return c.resolve()
        if c.is_file() and c.name == "pack.yaml":
            return c.parent.resolve()
    except OSError:
        pass
    found = _search(ref_s, search_folders(search_path))
    if found is not None:
        return found
    bundled = bundled_packs()
    hint = did_you_mean(ref_s, bundled) or f"bundled packs: {', '.join(bundled)}; or give a folder holding a pack.yaml"
    raise RulespecError(Diagnostic("RS020", f"no pack '{ref_s}' found", Span(ref_s), hint))


SCENARIOS_FOLDER = "scenarios"      # a pack's scenarios/: tests of the pack, not part of it


def pack_layout(folder: Path) -> tuple[list, list, list, list]:
    """What loading reads of one pack folder (docs/language.md, "Packs"), each list sorted:
    `yaml`: the `.yaml` files at its root other than pack.yaml (data files, or files loading
    finds hold no pack data); `rules`: the `.rules` files anywhere below it; `not_read`: the
    `.yaml` files of its sub-folders, which are not pack data; `problems`: what walking it
    found (pack_files). Its `scenarios/` folder is not entered (links to folders neither)."""
    files, problems = pack_files(Path(folder), skip=(SCENARIOS_FOLDER,))
    yaml_files = [f for f in files if f.name.endswith(".yaml")]
    top = [f for f in yaml_files if f.parent == folder and f.name != "pack.yaml"]
    elsewhere = [f for f in yaml_files if f.parent != folder]
    return top, [f for f in files if f.name.endswith(".rules")], elsewhere, problems


def pack_source_files(folder: Path) -> list:
    """The files of one pack folder that loading reads: pack.yaml, the YAML files at its root
    and the `.rules` files anywhere below it (not in scenarios/), sorted."""
    yaml_files, rules, _, _ = pack_layout(folder)
    return sorted({folder / "pack.yaml", *yaml_files, *rules})


# ------------------------------------------------------------------ loading
def load_pack(ref: str | Path, search_path=None) -> Pack:
    """Load and resolve a pack and everything it extends. Raises RulespecError with all the
    problems found (never a Python exception for a content problem).

    A pack reads only the files of its own folder; its `extends:` reaches outside it only to
    trusted packs: bundled ones, and those of the search path (`search_path`, before the
    folders of RULESPEC_PACK_PATH). Trusted code that names a base pack explicitly (e.g. a
    scenario building a temporary overlay whose pack.yaml says `extends: /abs/path/of/base`)
    passes that folder: `load_pack(overlay, search_path=[base_folder])`."""
    pack, errors = load_pack_collecting(ref, search_path)
    if errors:
        raise RulespecError(errors)
    return pack


def load_pack_collecting(ref: str | Path, search_path=None) -> tuple[Pack | None, list]:
    """Like load_pack, but returns (pack, errors) so a validator can go on checking the parts
    that did load. pack is None when nothing usable could be loaded (bad manifest, cycle)."""
    try:
        with limits.deep_recursion():       # deeply nested rules: parsing and copying them
            folder = find_pack(ref, search_path)
            loader = _Loader(search_folders(search_path))
            pack = loader.load(folder, [], folder)
    except RulespecError as e:
        return None, e.diagnostics
    pack.warnings.extend(loader.warnings)
    return pack, loader.errors


class _Loader:
    def __init__(self, search: list | None = None):
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.search = search or []
        self.bytes: dict = {}           # pack folder -> bytes read from it (limits.MAX_PACK_BYTES)

    def err(self, code, msg, span, hint="", src=None, missing=()):
        self.errors.append(Diagnostic(code, msg, span, hint, missing=missing,
                                      source_line=src if src is not None else source_line_at(span.file, span.line)))

    def _read(self, reader, path: Path, folder: Path, root: Path):
        """reader(path, root) for one file of the pack in `folder`, within the pack's byte budget."""
        try:
            size = os.stat(path).st_size if path.is_file() else 0
        except (OSError, ValueError):
            size = 0
        spent = self.bytes.get(folder, 0) + size
        if spent > limits.MAX_PACK_BYTES:
            raise RulespecError(Diagnostic("RS005", f"the pack's files add up to more than {limits.MAX_PACK_BYTES:,} "
                                                    f"bytes: {path.name} is not read", Span(str(path), 1, 1),
                                           "a pack of this size cannot be a set of rules: make it smaller"))
        self.bytes[folder] = spent
        return reader(path, root)

    def _base(self, m: dict, manifest: YamlDoc, folder: Path, root: Path, pid: str):
        """(folder, sandbox root) of the pack that `extends:` names: a pack inside this pack's
        own folder (a relative path, or a sub-folder named by its name), a pack of the search
        path or bundled (an id), or a path leading exactly to one of those. RS022 for any
        other path (absolute, or leading out of the pack); RS021 for an unknown id."""
        ref_s = str(m["extends"])
        span = manifest.span(("extends",))
        src = manifest.source_line(span)
        check_path(ref_s, span, "extends:")
        absolute = os.path.isabs(ref_s)
        try:
            real = Path(ref_s).resolve() if absolute else (folder / ref_s).resolve()
        except (OSError, RuntimeError, ValueError):
            real = None
        if real is not None and (real / "pack.yaml").is_file():
            if not absolute and inside(real, root.resolve()):
                return real, root                # a pack inside this one: the same sandbox
            if _trusted_folder(real, self.search):
                return real, real                # exactly a trusted pack: its own sandbox
        if _ID.fullmatch(ref_s):
            found = _search(ref_s, self.search)
            if found is not None:
                return found, found
        else:
            relative_inside(ref_s, folder, root, span, "extends:", src)     # RS022 unless inside
        bundled = bundled_packs()
        hint = did_you_mean(ref_s, bundled) or (
            f"bundled packs: {', '.join(bundled)}; for a pack of your own, add the folder holding it to the search "
            f"path (--pack-path DIR, or the {PACK_PATH_ENV} environment variable) and write its folder name")
        raise RulespecError(Diagnostic("RS021", f"pack '{pid}' extends unknown pack '{ref_s}'", span, hint,
                                       source_line=src))

    # -- one pack of the chain
    def load(self, folder: Path, seen: list, root: Path) -> Pack:
        """Load the pack in `folder` and what it extends. `seen`: [(folder, id)] of the packs
        that extend it; `root`: the folder it may read (its own, or the pack it lies inside).
        A level loaded cleanly before comes from the compiled-pack cache (rulespec/packcache.py)."""
        from . import packcache
        directory = packcache.cache_dir()
        if directory is None or not packcache.worth_caching(directory, folder):
            return self._load_level(folder, seen, root)
        key = packcache.entry_key(folder, root, self.search)
        alone = packcache.entry_key(folder, root, None)     # a pack that extends none: any search path
        hit = packcache.lookup(directory, alone, self.search)
        if not (self._usable(hit, seen) and len(hit[0].sources) == 1):
            hit = packcache.lookup(directory, key, self.search)
        if self._usable(hit, seen):
            pack, warnings, spent = hit
            self.warnings.extend(warnings)
            for f, n in spent.items():
                self.bytes[f] = self.bytes.get(f, 0) + n
            return pack
        errors, warnings, before = len(self.errors), len(self.warnings), dict(self.bytes)
        pack = self._load_level(folder, seen, root)
        if len(self.errors) == errors:       # only clean levels: diagnostics always come from a fresh load
            spent = {f: n - before.get(f, 0) for f, n in self.bytes.items() if n != before.get(f, 0)}
            packcache.store(directory, key if len(pack.sources) > 1 else alone, (pack, self.warnings[warnings:], spent),
                            [f for _, f in pack.sources], self.search, len(pack.sources) > 1)
        return pack

    @staticmethod
    def _usable(hit, seen: list) -> bool:
        """A cached level fits here: the expected types, and none of its packs among those
        extending it (a cycle or a repeated id is reported by a fresh load)."""
        if not (isinstance(hit, tuple) and len(hit) == 3 and isinstance(hit[0], Pack)
                and isinstance(hit[1], list) and isinstance(hit[2], dict)):
            return False
        folders = {f for _, f in hit[0].sources}
        ids = set(hit[0].chain)
        return not any(f in folders or i in ids for f, i in seen)

    def _load_level(self, folder: Path, seen: list, root: Path) -> Pack:
        manifest = self._manifest(folder, root)
        m = manifest.data if isinstance(manifest.data, dict) else {}
        pid = str(m.get("id", folder.name))
        span = manifest.span(("extends",))
        if any(f == folder for f, _ in seen):
            ids = [i for _, i in seen] + [pid]
            raise RulespecError(Diagnostic("RS021", f"packs extend each other in a cycle: {' -> '.join(ids)}",
                                           span, "remove one of the `extends:`", source_line=manifest.source_line(span)))
        same = [f for f, i in seen if i == pid]
        if same:        # said at the `extends:` that reached the second pack of that id
            raise RulespecError(Diagnostic("RS021", f"two packs of the chain have the same id '{pid}' ({same[0]} "
                                                    f"and {folder}): each pack of a chain needs its own id", self.extends_span,
                                           "give the variant an id of its own in its pack.yaml",
                                           source_line=self.extends_src))
        base = None
        if m.get("extends"):
            base_folder, base_root = self._base(m, manifest, folder, root, pid)
            self.extends_span, self.extends_src = span, manifest.source_line(span)
            base = self.load(base_folder, seen + [(folder, pid)], base_root)
        pack = Pack(
            id=pid, name=str(m.get("name", pid)), version=str(m.get("version", "0")),
            description=str(m.get("description", "")),
            players=list(m.get("players") or (base.players if base else [])),
            root=folder, chain=(base.chain if base else []) + [pid], manifest=manifest,
            data=dict(base.data) if base else {}, data_history=copy.deepcopy(base.data_history) if base else {},
            decls={}, modules=list(base.modules) if base else [],
            sources=(base.sources if base else []) + [(pid, folder)],
            removed=dict(base.removed) if base else {},
            language=self._language(m, manifest, pid, base),
        )
        if base:        # taken over, not copied: `base` was made for this load alone (loaded
            pack.decls = dict(base.decls)   # afresh or unpickled from the cache) and is dropped
        yaml_files, rules_files, not_read, problems = pack_layout(folder)
        self.errors.extend(problems)
        self._not_pack_data(folder, not_read)
        changed = self._load_yaml(pack, folder, root, yaml_files)
        # YAML collections are rebuilt from the data files this level replaced or patched
        # (declarations from untouched files keep the changes earlier levels made to them)
        for k in [k for k, d in pack.decls.items() if getattr(d, "yaml_stem", None) in changed]:
            pack.decls.pop(k, None)
        self._yaml_declarations(pack, changed)
        if rules_files:
            from .parser import parse_rules_file     # Lark is imported only when a file is parsed
        for path in rules_files:
            try:
                module = self._read(parse_rules_file, path, folder, root)
            except RulespecError as e:
                self.errors.extend(e.diagnostics)
                continue
            pack.modules.append(module)
            for item in module.items:
                self._apply(pack, item, pid)
        return pack

    def _language(self, m: dict, manifest: YamlDoc, pid: str, base) -> int:
        """The language version of the pack: its `language:` (the schema checked the value), or
        its base's, or 1. An overlay is read with its base, so it may not be written for an
        older language than the base (RS020 at its `language:`)."""
        inherited = base.language if base else DEFAULT_LANGUAGE
        if "language" not in m:
            return inherited
        lang = int(m["language"])        # the schema allows only whole numbers (1.0 reads as 1)
        if base and lang < base.language:
            span = manifest.span(("language",))
            self.err("RS020", f"pack '{pid}' is written for language {lang}, but the pack it extends, "
                              f"'{base.id}', is written for language {base.language}",
                     span, f"an overlay cannot be older than its base: run `rulespec migrate {pid}` to rewrite it "
                           f"for language {base.language}, or remove `language:` to take the base's",
                     src=manifest.source_line(span))
            return base.language
        return lang

    def _manifest(self, folder: Path, root: Path) -> YamlDoc:
        path = folder / "pack.yaml"
        doc = self._read(load_yaml_file, path, folder, root)
        if not isinstance(doc.data, dict):
            raise RulespecError(Diagnostic("RS020", "pack.yaml must be a mapping with id, name, version",
                                           Span(str(path), 1, 1), "start the file with `id: my_pack`"))
        problems = _language_in_words(doc, check_schema(doc, "pack"))
        for d in problems:
            d.code = "RS020"
        if problems:
            raise RulespecError(problems)
        return doc

    # -- YAML data files
    def _load_yaml(self, pack: Pack, folder: Path, root: Path, paths: list) -> set:
        """Load this level's YAML files into pack.data; returns the stems it changed."""
        known = data_schema_names()
        changed = set()
        files = sorted(p for p in paths if p.name != "pack.yaml")
        for path in files:
            try:
                doc = self._read(load_yaml_file, path, folder, root)
            except RulespecError as e:
                self.errors.extend(e.diagnostics)
                continue
            name = path.name.removesuffix(".yaml")
            patch = name.endswith(".patch")
            stem = name.removesuffix(".patch")
            if not patch and stem not in known and stem not in pack.data and not _declares_collections(doc):
                self._not_data_at_root(path, doc, known)
                continue
            if patch:
                if stem not in pack.data:
                    self.err("RS108", f"{path.name} patches data file '{stem}.yaml', which the base pack does not have",
                             Span(str(path), 1, 1), did_you_mean(stem, pack.data) or
                             f"data files in the base: {', '.join(sorted(pack.data)) or 'none'}")
                    continue
                if not isinstance(doc.data, dict):
                    # merged, an empty patch would replace the base file whole: it is refused
                    span = doc.span(())
                    what = "is empty" if doc.data is None else f"holds {_type_words(doc.data)}"
                    self.err("RS100", f"{path.name} {what}: a patch is a mapping of the keys it changes in "
                                      f"{stem}.yaml", span,
                             f"write the keys to change (e.g. `{_first_key(pack.data[stem])}: ...`), or delete the "
                             "file; the base file is kept as it is", src=doc.source_line(span))
                    continue
                # values taken from the patch keep their positions in the patch file; its
                # mistakes are reported and the rest of it applies
                base_id = pack.chain[-2] if len(pack.chain) > 1 else pack.id
                doc_eff = merge_yaml_docs(pack.data[stem], doc, self.errors, f"{stem}.yaml of {base_id}")
                op = "patch"
            else:
                doc_eff, op = doc, ("replace" if stem in pack.data else "define")
            if stem in known:
                problems = check_schema(doc_eff, stem)
                if problems:
                    self.errors.extend(problems)
                    continue
            pack.data[stem] = doc_eff
            pack.data_history.setdefault(stem, []).append((op, str(path), pack.id))
            changed.add(stem)
        return changed

    def _not_data_at_root(self, path: Path, doc: YamlDoc, known: set):
        """A YAML file at the pack's root that is no data file: not named after one, and no
        `tracks:`, `palaces:` or `components:` in it (a scenario, notes). It is not pack data;
        RS007 (a warning) when it looks like a data file under a wrong name."""
        keys = list(doc.data) if isinstance(doc.data, dict) else []
        owners = {k: n for n in sorted(known) for k in load_schema(n).get("properties", {})
                  if k not in ("note", "evidence")}
        stray = [k for k in keys if k in owners]
        close = did_you_mean(path.name.removesuffix(".yaml"), known)
        if not (stray or close):
            return
        named = [close.replace("'?", ".yaml'?").replace("' or", ".yaml' or")] if close else []
        hint = "; ".join(named + [f"`{k}:` belongs in {owners[k]}.yaml ({owners[k]}.patch.yaml in a variant)"
                                  for k in stray[:3]])
        span = Span(str(path), 1, 1)
        self.warnings.append(Diagnostic(
            "RS007", f"{path.name} is not pack data: it is not named after a data file ({', '.join(sorted(known))}) "
                     "and declares no tracks:, palaces: or components:", span,
            hint, severity="warning", source_line=doc.source_line(span)))

    def _not_pack_data(self, folder: Path, paths: list):
        """RS007 (a warning) for each `.yaml` file in a sub-folder: it is not read. Pack data sits
        next to pack.yaml, so a `map.yaml` kept in a sub-folder cannot replace the map unseen;
        scenarios/ and hidden folders (.github/) are not warned about."""
        known = data_schema_names()
        for path in paths:
            rel = path.relative_to(folder)
            if any(part.startswith(".") for part in rel.parts[:-1]):
                continue
            base = path.name.removesuffix(".yaml").removesuffix(".patch")
            if base in known:
                hint = "move it next to pack.yaml to make it part of the pack"
            else:
                hint = (f"pack data files sit next to pack.yaml; keep scenarios in {SCENARIOS_FOLDER}/ (not read "
                        "as pack data), or give other files another extension")
            self.warnings.append(Diagnostic(
                "RS007", f"{rel.as_posix()} is not read: only the .yaml files next to pack.yaml are pack data",
                Span(str(path), 1, 1), hint, severity="warning"))

    def _yaml_declarations(self, pack: Pack, stems: set):
        for stem, doc in pack.data.items():
            if stem not in stems or not isinstance(doc.data, dict):
                continue
            for top, (kind, subs) in YAML_COLLECTIONS.items():
                coll = doc.data.get(top)
                if not isinstance(coll, dict):
                    continue
                for id_, body in coll.items():
                    path = (top, id_)
                    if not _is_id(id_):
                        span = doc.key_span(path)
                        self.err("RS106", f"a {kind} id must be a name, not {_type_words(id_)}", span,
                                 f"write the {kind} as `some_name:` under `{top}:`", src=doc.source_line(span))
                        continue
                    decl = self._yaml_decl(doc, kind, str(id_), body, path, subs, pack.id)
                    decl.yaml_stem = stem
                    if decl.key in pack.decls:
                        other = pack.decls[decl.key]
                        self.err("RS101", f"{kind} '{id_}' is declared twice", decl.span,
                                 f"first declared at {other.span}")
                        continue
                    pack.decls[decl.key] = decl

    def _yaml_decl(self, doc, kind, id_, body, path, subs, pack_id, spec=None) -> Decl:
        span = doc.key_span(path)     # a collection item is where its id key is written
        decl = Decl(kind, id_, span, pack_id, history=[("yaml", span, pack_id)], id_span=span)
        if not isinstance(body, dict):
            return decl
        spec = spec or KINDS.get(kind)
        evidence = body.get("evidence") if isinstance(body.get("evidence"), dict) else {}
        for fname, raw in body.items():
            fpath = path + (fname,)
            if fname == "id" and raw == id_:     # a list item's id: the sub-block's key
                continue
            if fname in subs and isinstance(raw, list):
                sub_kind = subs[fname]
                for i, item in enumerate(raw):
                    key = item.get("id", i) if isinstance(item, dict) else i
                    if not _is_id(key):
                        ispan = doc.span(fpath + (i, "id"))
                        self.err("RS106", f"the id of {sub_kind} {i + 1} of {kind} '{id_}' must be a name "
                                 f"or a number, not {_type_words(key)}", ispan,
                                 f"write `id: some_name` (e.g. `id: {_first_word(key) or 'first'}`)",
                                 src=doc.source_line(ispan))
                        continue
                    if (sub_kind, key) in decl.blocks:
                        ispan = doc.span(fpath + (i, "id"))
                        self.err("RS101", f"{sub_kind} '{key}' appears twice in {kind} '{id_}'", ispan,
                                 f"first at {decl.blocks[(sub_kind, key)].span}", src=doc.source_line(ispan))
                        continue
                    sub = self._yaml_decl(doc, sub_kind, key, item, fpath + (i,), {}, pack_id,
                                          spec.blocks.get(sub_kind) if spec else None)
                    decl.blocks[(sub_kind, key)] = sub
                continue
            if fname == "name" and isinstance(raw, str):
                decl.title = raw
            ftype = spec.fields[fname].type if spec and fname in spec.fields else "any"
            value = self._yaml_value(doc, raw, ftype, fpath)
            fspan = doc.span(fpath)
            anns = []
            tag = evidence.get(fname) if evidence else None
            if isinstance(tag, str) and tag in EVIDENCE_TAGS and tag != "rulebook":
                anns.append(A.Annotation(tag, str(body.get("note", "")), span=fspan))
            decl.fields[fname] = FieldValue(fname, value, fspan, anns, [("yaml", fspan, pack_id)])
        if isinstance(body.get("evidence"), str) and body["evidence"] in EVIDENCE_TAGS and body["evidence"] != "rulebook":
            decl.annotations.append(A.Annotation(body["evidence"], str(body.get("note", "")), span=span))
        return decl

    def _yaml_value(self, doc, raw, ftype, path):
        """DSL text inside YAML (costs, formulas, effects) is parsed with its YAML position:
        every position in the DSL text is mapped to where that character is written in the
        YAML file (plain, quoted, literal `|` and folded `>` scalars alike)."""
        if isinstance(raw, str) and (ftype in ("cost", "symbols", "effect") or ftype.startswith("expr:")):
            span = doc.span(path)
            where = doc.text_positions(path, raw)
            if where is None:
                # no record of the scalar: a plain scalar starts at its span, a quoted one a column later
                line_text = doc.source_line(span)
                col = span.column + (1 if line_text[span.column - 1: span.column] in ('"', "'") else 0)

                def where(line, column, _end=False, _l=span.line, _c=col):
                    return _l + line - 1, column + (_c - 1 if line == 1 else 0)
            from .parser import _run, map_spans
            try:
                node = _run(raw, span.file, "block" if ftype == "effect" else "expr")
                map_spans(node, where)
                return node
            except RulespecError as e:
                for d in e.diagnostics:
                    if d.span.line:
                        line, col = where(d.span.line, max(d.span.column, 1), False)
                        end = where(d.span.end_line, d.span.end_column, True) if d.span.end_line else (0, 0)
                        d.span = Span(span.file, line, col, *end)
                    else:
                        d.span = span
                    d.source_line = doc.source_line(d.span)
                self.errors.extend(e.diagnostics)
                return None
        return raw

    # -- DSL declarations and overlay operations
    def _apply(self, pack: Pack, item, pid: str):
        if isinstance(item, A.Removal):
            key = (item.kind, item.id)
            if key not in pack.decls:
                self._missing_target(pack, item.kind, item.id, item.span, "remove")
                return
            pack.removed[key] = (pack.decls.pop(key), item.span)
            return
        d: A.Declaration = item
        key = (d.kind, d.id)
        existing = pack.decls.get(key)
        if d.op is None:
            if existing is not None:
                where = "the base pack" if existing.pack != pid else "this pack"
                self.err("RS101", f"{d.kind} '{d.id}' is already declared in {where}", d.id_span,
                         f"first declared at {existing.span}; to change it in an overlay write "
                         f"`modify {d.kind} {d.id} {{ ... }}` or `replace {d.kind} {d.id} {{ ... }}`")
                return
            pack.decls[key] = self._decl_from_ast(d, pid, "define")
            return
        if existing is None:
            self._missing_target(pack, d.kind, d.id, d.id_span, d.op)
            return
        if d.op == "replace":
            new = self._decl_from_ast(d, pid, "replace")
            new.history = existing.history + new.history
            pack.decls[key] = new
        else:
            self._modify(existing, d.members, d, pid)
            existing.history.append(("modify", d.span, pid))
            if d.title:
                existing.title = d.title
            existing.annotations.extend(d.annotations)

    def _missing_target(self, pack, kind, id_, span, op):
        same_kind = [i for (k, i) in pack.decls if k == kind]
        other_kinds = sorted({k for (k, i) in pack.decls if i == id_})
        hint = did_you_mean(id_, same_kind)
        if not hint and other_kinds:
            hint = f"'{id_}' exists as a {' / '.join(other_kinds)}"
        if not hint:
            hint = f"`{op}` needs an existing {kind}; to add a new one, declare it without `{op}`"
        self.err("RS108", f"cannot {op} {kind} '{id_}': no such {kind} in the packs it extends", span, hint,
                 missing=(id_,))

    def _decl_from_ast(self, d, pid, op) -> Decl:
        decl = Decl(d.kind, d.id, d.span, pid, d.title, d.params, list(d.annotations),
                    history=[(op, d.span, pid)], id_span=d.id_span)
        self._members(decl, d.members, pid, op)
        return decl

    def _members(self, decl: Decl, members, pid, op):
        for m in members:
            if isinstance(m, A.Field):
                if m.name in decl.fields and not m.append:
                    self.err("RS101", f"field '{m.name}' is given twice in {decl.kind} '{decl.id}'", m.span,
                             f"first given at {decl.fields[m.name].span}; keep one")
                    continue
                decl.fields[m.name] = FieldValue(m.name, m.value, m.span, list(m.annotations), [(op, m.span, pid)])
            elif isinstance(m, A.SubBlock):
                key = (m.kind, m.key)
                if key in decl.blocks:
                    self.err("RS101", f"{m.kind} {m.key if m.key is not None else ''} appears twice in "
                             f"{decl.kind} '{decl.id}'", m.span, f"first at {decl.blocks[key].span}")
                    continue
                sub = Decl(m.kind, m.key, m.span, pid, m.title, [], list(m.annotations), history=[(op, m.span, pid)])
                self._members(sub, m.members, pid, op)
                decl.blocks[key] = sub
            elif isinstance(m, A.RemoveMember):
                self.err("RS108", f"`remove {m.name}` only makes sense inside `modify`", m.span,
                         "write `modify KIND ID { remove FIELD }` in an overlay")

    def _modify(self, decl: Decl, members, d, pid):
        for m in members:
            if isinstance(m, A.Field):
                old = decl.fields.get(m.name)
                if m.append:
                    if old is None:
                        decl.fields[m.name] = FieldValue(m.name, m.value, m.span, list(m.annotations), [("append", m.span, pid)])
                        continue
                    merged = _append_values(old.value, m.value)
                    if merged is None:
                        self.err("RS106", f"cannot append to field '{m.name}': it is not a list", m.span,
                                 "`+=` adds items to a list field, e.g. `steps += [tax]`")
                        continue
                    old.value = merged
                    old.history.append(("append", m.span, pid))
                    continue
                fv = FieldValue(m.name, m.value, m.span, list(m.annotations), (old.history if old else []) + [("modify", m.span, pid)])
                decl.fields[m.name] = fv
            elif isinstance(m, A.SubBlock):
                key = (m.kind, m.key)
                sub = decl.blocks.get(key)
                if sub is None:
                    sub = Decl(m.kind, m.key, m.span, pid, m.title, [], list(m.annotations), history=[("add", m.span, pid)])
                    self._members(sub, m.members, pid, "add")
                    decl.blocks[key] = sub
                else:
                    self._modify(sub, m.members, d, pid)
                    sub.history.append(("modify", m.span, pid))
            elif isinstance(m, A.RemoveMember):
                if m.key is None and m.name in decl.fields:
                    del decl.fields[m.name]
                elif (m.name, m.key) in decl.blocks:
                    del decl.blocks[(m.name, m.key)]
                else:
                    what = f"{m.name}({m.key})" if m.key is not None else m.name
                    have = list(decl.fields) + [f"{k}({key})" for k, key in decl.blocks]
                    self.err("RS108", f"cannot remove '{what}' from {decl.kind} '{decl.id}': it has no such field or block",
                             m.span, did_you_mean(what, have) or f"it has: {', '.join(have) or 'nothing'}")


def _language_in_words(doc: YamlDoc, problems: list) -> list:
    """The schema's findings on pack.yaml, those about `language:` said once and in words."""
    if "language" not in doc.data:
        return problems
    at = doc.span(("language",))
    if not any(d.span == at for d in problems):
        return problems
    lang = doc.data["language"]
    d = next((d for d in problems if d.span == at and "wrong type" in d.message),
             next(d for d in problems if d.span == at))
    name = Path(doc.file).name
    whole = isinstance(lang, (int, float)) and not isinstance(lang, bool) and float(lang).is_integer()
    lang = int(lang) if whole else lang
    if not whole:
        d.hint = f"write the version as a whole number: `language: {max(LANGUAGES)}`"
    elif lang > max(LANGUAGES):
        d.message = (f"{name}: the pack is written for language {lang}, newer than this rulespec reads "
                     f"(language {', '.join(map(str, LANGUAGES))})")
        d.hint = "install a newer rulespec, or write the pack for a language it reads"
    else:
        d.message = f"{name}: there is no language {lang}: the versions are {', '.join(map(str, LANGUAGES))}"
    return [x for x in problems if x.span != at or x is d]


def _append_values(old, new):
    if isinstance(old, A.ListExpr) and isinstance(new, A.ListExpr):
        return A.ListExpr(old.items + new.items, span=old.span)
    if isinstance(old, list) and isinstance(new, A.ListExpr):
        return A.ListExpr([A.Name(x) if isinstance(x, str) else A.Num(x) for x in old] + new.items, span=new.span)
    return None


def _is_id(x) -> bool:
    """An id written in YAML: a name or a number (not a list, mapping, bool or null)."""
    return isinstance(x, (str, int, float)) and not isinstance(x, bool)


def _type_words(x) -> str:
    if isinstance(x, (list, tuple)):
        return "a list"
    if isinstance(x, dict):
        return "a mapping"
    if x is None:
        return "empty"
    if isinstance(x, bool):
        return "true/false"
    return f"a {type(x).__name__}"


def _declares_collections(doc: YamlDoc) -> bool:
    """The YAML file declares tracks, palaces or components (YAML_COLLECTIONS)."""
    return isinstance(doc.data, dict) and any(k in YAML_COLLECTIONS for k in doc.data)


def _first_key(doc: YamlDoc) -> str:
    return str(next(iter(doc.data), "key")) if isinstance(doc.data, dict) else "key"


def _first_word(x) -> str:
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], str):
        return x[0]
    return ""
