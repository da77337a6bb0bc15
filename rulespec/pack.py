"""Load a content pack and resolve its overlays into one effective pack.

A pack is a folder with `pack.yaml` (manifest), YAML data files and `.rules` DSL files
(anywhere below the folder). A pack may `extends:` another; loading applies each pack of the
chain in order, base first:

* DSL declarations: a plain declaration adds a new object (RS101 if the id is taken);
  `replace kind id {...}` swaps the whole declaration, `modify kind id {...}` sets, appends to
  (`+=`) or removes (`remove f`) single fields and sub-blocks, `remove kind id` deletes it.
  Targets that do not exist are RS108.
* YAML data: an overlay file with the same name replaces the base file whole (the 2-player
  game replaces the map); `NAME.patch.yaml` deep-merges into it (mappings merge key by key,
  lists of items with an `id` merge by id, an item with `$remove: true` is deleted).
* YAML collections named after a kind (`tracks:`, `palaces:`, `components:`) become
  declarations too, so DSL overlays can modify them like any other object.

Every resolved declaration and field keeps its provenance: where it was defined and where
each overlay changed it.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from .errors import Diagnostic, RulespecError, Span, did_you_mean, source_line_at
from .kinds import KINDS
from .parser import parse_expr, parse_rules_file
from .schema import check_schema, schema_names
from .yamldata import YamlDoc, load_yaml_file

EVIDENCE_TAGS = ("rulebook", "board", "derived", "inferred", "placeholder", "decision")
UNVERIFIED_TAGS = ("inferred", "placeholder")

# YAML collections that become declarations: top-level key -> (kind, {sub-list key: sub-block kind})
YAML_COLLECTIONS = {
    "tracks": ("track", {"spaces": "space"}),
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

    def of_kind(self, kind: str) -> list:
        return [d for (k, _), d in self.decls.items() if k == kind]

    def get(self, kind: str, id_: str) -> Decl | None:
        return self.decls.get((kind, id_))


# ------------------------------------------------------------------ locating packs
def bundled_packs() -> dict:
    from content import PACKS_DIR
    return {p.name: p for p in sorted(PACKS_DIR.iterdir()) if (p / "pack.yaml").is_file()}


def find_pack(ref: str | Path, relative_to: Path | None = None) -> Path:
    """A pack folder from an id (bundled pack) or a path; RS020 when neither exists."""
    ref_s = str(ref)
    candidates = []
    if relative_to is not None:
        candidates.append((relative_to / ref_s))
    candidates.append(Path(ref_s))
    for c in candidates:
        if (c / "pack.yaml").is_file():
            return c.resolve()
        if c.is_file() and c.name == "pack.yaml":
            return c.parent.resolve()
    bundled = bundled_packs()
    if ref_s in bundled:
        return bundled[ref_s]
    hint = did_you_mean(ref_s, bundled) or f"bundled packs: {', '.join(bundled)}; or give a folder holding a pack.yaml"
    raise RulespecError(Diagnostic("RS020", f"no pack '{ref_s}' found", Span(ref_s), hint))


# ------------------------------------------------------------------ loading
def load_pack(ref: str | Path) -> Pack:
    """Load and resolve a pack and everything it extends. Raises RulespecError with all the
    problems found (never a Python exception for a content problem)."""
    pack, errors = load_pack_collecting(ref)
    if errors:
        raise RulespecError(errors)
    return pack


def load_pack_collecting(ref: str | Path) -> tuple[Pack | None, list]:
    """Like load_pack, but returns (pack, errors) so a validator can go on checking the parts
    that did load. pack is None when nothing usable could be loaded (bad manifest, cycle)."""
    try:
        folder = find_pack(ref)
        loader = _Loader()
        pack = loader.load(folder, [])
    except RulespecError as e:
        return None, e.diagnostics
    pack.warnings.extend(loader.warnings)
    return pack, loader.errors


class _Loader:
    def __init__(self):
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []

    def err(self, code, msg, span, hint="", src=None):
        self.errors.append(Diagnostic(code, msg, span, hint,
                                      source_line=src if src is not None else source_line_at(span.file, span.line)))

    # -- one pack of the chain
    def load(self, folder: Path, seen: list) -> Pack:
        manifest = self._manifest(folder)
        m = manifest.data if isinstance(manifest.data, dict) else {}
        pid = str(m.get("id", folder.name))
        if pid in seen:
            raise RulespecError(Diagnostic("RS021", f"packs extend each other in a cycle: {' -> '.join(seen + [pid])}",
                                           manifest.span(("extends",)), "remove one of the `extends:`",
                                           source_line=manifest.source_line(manifest.span(("extends",)))))
        base = None
        if m.get("extends"):
            try:
                base_folder = find_pack(m["extends"], folder)
            except RulespecError as e:
                span = manifest.span(("extends",))
                d = e.first
                raise RulespecError(Diagnostic("RS021", f"pack '{pid}' extends unknown pack '{m['extends']}'", span,
                                               d.hint, source_line=manifest.source_line(span))) from None
            base = self.load(base_folder, seen + [pid])
        pack = Pack(
            id=pid, name=str(m.get("name", pid)), version=str(m.get("version", "0")),
            description=str(m.get("description", "")),
            players=list(m.get("players") or (base.players if base else [])),
            root=folder, chain=(base.chain if base else []) + [pid], manifest=manifest,
            data=dict(base.data) if base else {}, data_history=copy.deepcopy(base.data_history) if base else {},
            decls={}, modules=list(base.modules) if base else [],
        )
        if base:
            pack.decls = {k: copy.deepcopy(v) for k, v in base.decls.items()}
        changed = self._load_yaml(pack, folder)
        # YAML collections are rebuilt from the data files this level replaced or patched
        # (declarations from untouched files keep the changes earlier levels made to them)
        for k in [k for k, d in pack.decls.items() if getattr(d, "yaml_stem", None) in changed]:
            pack.decls.pop(k, None)
        self._yaml_declarations(pack, changed)
        for path in sorted(folder.rglob("*.rules")):
            try:
                module = parse_rules_file(path)
            except RulespecError as e:
                self.errors.extend(e.diagnostics)
                continue
            pack.modules.append(module)
            for item in module.items:
                self._apply(pack, item, pid)
        return pack

    def _manifest(self, folder: Path) -> YamlDoc:
        path = folder / "pack.yaml"
        doc = load_yaml_file(path)
        if not isinstance(doc.data, dict):
            raise RulespecError(Diagnostic("RS020", "pack.yaml must be a mapping with id, name, version",
                                           Span(str(path), 1, 1), "start the file with `id: my_pack`"))
        problems = check_schema(doc, "pack")
        for d in problems:
            d.code = "RS020"
        if problems:
            raise RulespecError(problems)
        return doc

    # -- YAML data files
    def _load_yaml(self, pack: Pack, folder: Path) -> set:
        """Load this level's YAML files into pack.data; returns the stems it changed."""
        known = set(schema_names())
        changed = set()
        files = sorted(p for p in folder.rglob("*.yaml") if p.name != "pack.yaml")
        for path in files:
            try:
                doc = load_yaml_file(path)
            except RulespecError as e:
                self.errors.extend(e.diagnostics)
                continue
            name = path.name.removesuffix(".yaml")
            patch = name.endswith(".patch")
            stem = name.removesuffix(".patch")
            if patch:
                if stem not in pack.data:
                    self.err("RS108", f"{path.name} patches data file '{stem}.yaml', which the base pack does not have",
                             Span(str(path), 1, 1), did_you_mean(stem, pack.data) or
                             f"data files in the base: {', '.join(sorted(pack.data)) or 'none'}")
                    continue
                merged_data = _deep_merge(copy.deepcopy(pack.data[stem].data), doc.data)
                base_doc = pack.data[stem]
                merged = YamlDoc(base_doc.file, merged_data, {**base_doc.spans}, base_doc.text)
                # spans of patched values point into the patch file
                merged.spans.update(_spans_under(doc, pack.data[stem].data, merged_data))
                doc_eff = merged
                op = "patch"
            else:
                doc_eff, op = doc, ("replace" if stem in pack.data else "define")
            if stem in known:
                problems = check_schema(doc_eff if not patch else _for_check(doc_eff), stem)
                if problems:
                    self.errors.extend(problems)
                    continue
            pack.data[stem] = doc_eff
            pack.data_history.setdefault(stem, []).append((op, str(path), pack.id))
            changed.add(stem)
        return changed

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
                    decl = self._yaml_decl(doc, kind, str(id_), body, path, subs, pack.id)
                    decl.yaml_stem = stem
                    if decl.key in pack.decls:
                        other = pack.decls[decl.key]
                        self.err("RS101", f"{kind} '{id_}' is declared twice", decl.span,
                                 f"first declared at {other.span}")
                        continue
                    pack.decls[decl.key] = decl

    def _yaml_decl(self, doc, kind, id_, body, path, subs, pack_id, spec=None) -> Decl:
        span = doc.span(path)
        decl = Decl(kind, id_, span, pack_id, history=[("yaml", span, pack_id)], id_span=span)
        if not isinstance(body, dict):
            return decl
        spec = spec or KINDS.get(kind)
        evidence = body.get("evidence") if isinstance(body.get("evidence"), dict) else {}
        for fname, raw in body.items():
            fpath = path + (fname,)
            if fname in subs and isinstance(raw, list):
                sub_kind = subs[fname]
                for i, item in enumerate(raw):
                    key = item.get("id", i) if isinstance(item, dict) else i
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
        """DSL text inside YAML (costs, formulas, effects) is parsed with its YAML position."""
        if isinstance(raw, str) and (ftype in ("cost", "symbols", "effect") or ftype.startswith("expr:")):
            span = doc.span(path)
            # a plain scalar starts at its span; quoted scalars start one column later
            line_text = doc.source_line(span)
            col = span.column + (1 if line_text[span.column - 1: span.column] in ('"', "'") else 0)
            try:
                if ftype == "effect":
                    from .parser import _run, _shift_spans
                    node = _run(raw, doc.file, "block")
                    _shift_spans(node, span.line - 1, col - 1)
                    return node
                return parse_expr(raw, doc.file, span.line, col)
            except RulespecError as e:
                for d in e.diagnostics:
                    d.span = Span(doc.file, span.line + d.span.line - 1,
                                  (col - 1 if d.span.line == 1 else 0) + d.span.column)
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
            del pack.decls[key]
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
        self.err("RS108", f"cannot {op} {kind} '{id_}': no such {kind} in the packs it extends", span, hint)

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


def _append_values(old, new):
    if isinstance(old, A.ListExpr) and isinstance(new, A.ListExpr):
        return A.ListExpr(old.items + new.items, span=old.span)
    if isinstance(old, list) and isinstance(new, A.ListExpr):
        return A.ListExpr([A.Name(x) if isinstance(x, str) else A.Num(x) for x in old] + new.items, span=new.span)
    return None


def _deep_merge(base, patch):
    """Merge YAML `patch` into `base` (see module docstring)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        for k, v in patch.items():
            if isinstance(v, dict) and v.get("$remove") is True:
                base.pop(k, None)
            elif k in base:
                base[k] = _deep_merge(base[k], v)
            else:
                base[k] = v
        return base
    if isinstance(base, list) and isinstance(patch, list) and all(isinstance(x, dict) and "id" in x for x in patch) \
            and all(isinstance(x, dict) and "id" in x for x in base):
        by_id = {x["id"]: i for i, x in enumerate(base)}
        out = list(base)
        removed = set()
        for item in patch:
            if item.get("$remove") is True:
                removed.add(item["id"])
            elif item["id"] in by_id:
                out[by_id[item["id"]]] = _deep_merge(out[by_id[item["id"]]], item)
            else:
                out.append(item)
        return [x for x in out if x.get("id") not in removed]
    return patch


def _spans_under(patch_doc: YamlDoc, _base, _merged) -> dict:
    return {p: s for p, s in patch_doc.spans.items() if p}


def _for_check(doc: YamlDoc) -> YamlDoc:
    return doc
