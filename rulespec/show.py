"""Describe a resolved pack: as text, as JSON, as a diff against another pack, and the list
of values that are not from the rulebook (`--unverified`)."""
from __future__ import annotations

import json
from collections import Counter
from . import packdiff, unparse
from .pack import UNVERIFIED_TAGS, Decl, Pack


def _history(hist) -> list:
    return [{"op": op, "at": packdiff.rel(span), "pack": pid} for op, span, pid in hist]


def decl_json(d: Decl) -> dict:
    return {
        "kind": d.kind, "id": d.id, "title": d.title,
        "params": [p.name + (f": {p.type}" if p.type else "") +
                   (f" = {unparse.expr(p.default)}" if p.default is not None else "") for p in d.params],
        "annotations": [f"@{a.name}" + (f"({a.text})" if a.text else "") for a in d.annotations],
        "fields": {n: {"value": unparse.value(fv.value),
                       "evidence": [f"{a.name}" + (f": {a.text}" if a.text else "") for a in fv.evidence],
                       "history": _history(fv.history)} for n, fv in d.fields.items()},
        "blocks": [decl_json(b) for b in d.blocks.values()],
        "history": _history(d.history),
    }


def pack_json(pack: Pack, with_data: bool = True) -> dict:
    out = {
        "id": pack.id, "name": pack.name, "version": pack.version, "description": pack.description,
        "players": pack.players, "chain": pack.chain,
        "declarations": [decl_json(d) for d in pack.decls.values()],
    }
    if with_data:
        out["data"] = {stem: {"file": doc.file, "history": [{"op": op, "file": f, "pack": p}
                                                             for op, f, p in pack.data_history.get(stem, [])],
                              "content": doc.data} for stem, doc in pack.data.items()}
    return out


def pack_text(pack: Pack) -> str:
    lines = [f"pack {pack.id} {pack.version}: {pack.name}",
             f"  chain: {' -> '.join(pack.chain)}   players: {', '.join(map(str, pack.players))}", ""]
    for stem, doc in pack.data.items():
        hist = ", ".join(f"{op} by {p}" for op, _, p in pack.data_history.get(stem, []))
        lines.append(f"data {stem}: {packdiff.rel_file(doc.file)}  ({hist})")
    lines.append("")
    for d in pack.decls.values():
        lines.extend(_decl_text(d, 0))
        lines.append("")
    return "\n".join(lines)


def _decl_text(d: Decl, indent: int) -> list:
    pad = "  " * indent
    head = f"{pad}{d.kind} {d.id}" + (f' "{d.title}"' if d.title else "")
    if d.params:
        head += "(" + ", ".join(p.name for p in d.params) + ")"
    prov = "; ".join(f"{op} {packdiff.rel(s)}" for op, s, _ in d.history)
    out = [f"{head} {{    # {prov}"]
    for n, fv in d.fields.items():
        val = unparse.value(fv.value, indent + 1)
        ev = "".join(f" @{a.name}" for a in fv.evidence)
        where = packdiff.rel(fv.history[-1][1]) if fv.history else ""
        changed = " (changed by overlay)" if len({p for _, _, p in fv.history}) > 1 else ""
        out.append(f"{pad}  {n}: {val}{ev}    # {where}{changed}")
    for b in d.blocks.values():
        out.extend(_decl_text(b, indent + 1))
    out.append(f"{pad}}}")
    return out


def pack_diff(pack: Pack, base: Pack) -> list:
    """What `pack` changes relative to `base`, one row per change: (change, what, detail), e.g.
    ("changed", "card cardinal.cost", "3 florin -> 4 florin"), ("added", "action tax", where),
    ("changed", "data setup", where). The summary form of `packdiff.pack_changes` (whole texts,
    never cut); `show --diff` prints the full diff."""
    word = {"~": "changed", "+": "added", "-": "removed"}
    rows = []
    for e in packdiff.pack_changes(pack, base):
        if e.sign != "~" or e.what.startswith("data "):
            rows.append((word[e.sign], e.what, e.where if e.sign != "-" else ""))
            continue
        for d in e.details:
            name = ".title" if d.path == "(heading)" else "." + d.path
            rows.append(("changed", e.what + name,
                         f"{d.old if d.old is not None else packdiff.ABSENT} -> "
                         f"{d.new if d.new is not None else packdiff.ABSENT}"))
    return sorted(rows, key=lambda r: (r[1], r[0]))


# ------------------------------------------------------------------ one declaration or item
def item_collections(pack: Pack) -> dict:
    """The YAML items `show PACK KIND ID` can name, by kind: {kind: {label: (stem, path, item)}}
    (`city florence`, `road florence-pisa`, `colour red`, `player_count 4`)."""
    out = {}
    for stem, doc in pack.data.items():
        for top, items in packdiff.collections(doc.data).items():
            kind = packdiff.singular(str(top))
            for label, (path, item) in items.items():
                out.setdefault(kind, {}).setdefault(label, (stem, path, item))
    return out


def kinds(pack: Pack) -> list:
    return sorted({k for k, _ in pack.decls} | set(item_collections(pack)))


def ids(pack: Pack, kind: str) -> list:
    found = [str(i) for k, i in pack.decls if k == kind]
    return found + [i for i in item_collections(pack).get(kind, {}) if i not in found]


def canonical_id(pack: Pack, kind: str, id_: str) -> str:
    """The id as `show` lists it: a road named from either end (`pisa-florence` is the road
    written `between: [florence, pisa]`)."""
    known = ids(pack, kind)
    if id_ not in known and "-" in id_:
        flipped = "-".join(reversed(id_.split("-")))
        if flipped in known:
            return flipped
    return id_


def describe(pack: Pack, kind: str, id_: str) -> str:
    """One declaration (as DSL text) or YAML item (as YAML), each after `#` lines saying where it
    was defined and which overlay replaced or changed what in it. '' when there is none."""
    parts = []
    decl = next((d for (k, i), d in pack.decls.items() if k == kind and str(i) == id_), None)
    if decl is not None:
        parts.append("\n".join(decl_provenance(decl) + [unparse.declaration(decl)]))
    hit = item_collections(pack).get(kind, {}).get(id_)
    if hit is not None:
        parts.append("\n".join(item_provenance(pack, kind, id_, *hit) + [item_yaml(*hit)]))
    return "\n\n".join(parts)


def _field_records(d: Decl, prefix=""):
    """(label, op, span) for every operation on a field of `d` or of its sub-blocks."""
    for name, fv in d.fields.items():
        for op, span, _ in fv.history:
            yield prefix + name, op, span
    for b in d.blocks.values():
        label = b.kind if b.id is None else f"{b.kind} {b.id}"
        for op, span, _ in b.history:
            if op == "add":           # a new sub-block (a modified one lists its fields)
                yield prefix + label, op, span
        yield from _field_records(b, prefix + label + ".")


def decl_provenance(d: Decl) -> list:
    """`#` lines: where `d` was defined, then each overlay operation with the fields it set."""
    records = list(_field_records(d))
    out = [f"# {d.kind} {d.id}"]
    covered = set()
    for n, (op, span, pid) in enumerate(d.history):
        line = f"#   {packdiff._OPS.get(op, op)} at {packdiff.rel(span)}"
        if n and op in ("modify", "replace"):
            end = span.end_line or span.line
            touched = [(label, fop) for label, fop, fs in records
                       if fs.file == span.file and span.line <= fs.line <= end]
            covered |= {label for label, _ in touched}
            if op == "modify" and touched:
                line += ": " + ", ".join(dict.fromkeys(label + (" +=" if fop == "append" else "")
                                                       for label, fop in touched))
        out.append(line)
    # YAML patches: fields whose value is written in another file than the item itself
    patched = {}
    for label, op, fs in records:
        if op == "yaml" and fs.file != d.span.file and label not in covered:
            patched.setdefault(fs.file, []).append(f"{label} (line {fs.line})")
    for file, labels in patched.items():
        out.append(f"#   patched at {packdiff.rel_file(file)}: {', '.join(dict.fromkeys(labels))}")
    return out


def item_provenance(pack: Pack, kind: str, label: str, stem: str, path: tuple, item) -> list:
    doc = pack.data[stem]
    where = doc.span(path)
    out = [f"# {kind} {label}: item of `{path[0]}` in {stem}.yaml",
           f"#   defined at {packdiff.rel(where)}"]
    patched = {}
    for p, span in doc.spans.items():
        if len(p) > len(path) and p[:len(path)] == tuple(path) and span.file != where.file:
            key = p[len(path)]
            if key == "id":           # restated only to name the item the patch merges into
                continue
            sub = doc.span(path + (key,))
            patched.setdefault(span.file, {}).setdefault(key, sub.line if sub.file == span.file else span.line)
    for file, keys in patched.items():
        out.append(f"#   patched at {packdiff.rel_file(file)}: "
                   + ", ".join(f"{k} (line {line})" for k, line in keys.items()))
    return out


def item_yaml(stem: str, path: tuple, item) -> str:
    import yaml
    shape = [item] if isinstance(path[-1], int) else {path[-1]: item}
    return yaml.safe_dump(shape, sort_keys=False, allow_unicode=True, default_flow_style=None, width=10 ** 6).rstrip()


# ------------------------------------------------------------------ values to check
DECISION_TAGS = ("decision",)


def unverified(pack: Pack) -> list:
    """Every value marked inferred or placeholder (to check on real components): rows
    (tag, what, note, where)."""
    return tagged(pack, UNVERIFIED_TAGS)


def decisions(pack: Pack) -> list:
    """Every value marked decision: a reading we chose between contradicting sources, or a
    house rule. Not a value to check, but one to know about: rows (tag, what, note, where)."""
    return tagged(pack, DECISION_TAGS)


def tagged(pack: Pack, tags) -> list:
    """Every value of the effective pack (DSL and YAML) whose evidence tag is one of `tags`."""
    rows = []
    for d in pack.decls.values():
        _decl_tagged(d, f"{d.kind} {d.id}", rows, tags)
    for stem, doc in pack.data.items():
        if stem in ("tracks", "palaces", "components"):
            continue   # these became declarations, listed above
        _yaml_tagged(doc, doc.data, (), stem, rows, tags)
    return rows


def _decl_tagged(d: Decl, label: str, rows: list, tags):
    for a in d.annotations:
        if a.name in tags:
            rows.append((a.name, label, a.text, packdiff.rel(a.span if a.span.line else d.span)))
    for n, fv in d.fields.items():
        for a in fv.annotations:
            if a.name in tags:
                rows.append((a.name, f"{label}.{n}", a.text, packdiff.rel(fv.span)))
    for b in d.blocks.values():
        _decl_tagged(b, f"{label} / {b.kind} {b.id}", rows, tags)


def _yaml_tagged(doc, node, path, label, rows, tags):
    if isinstance(node, dict):
        ev = node.get("evidence")
        item = node.get("id") or (path[-1] if path else label)
        note = str(node.get("note", ""))
        if isinstance(ev, str) and ev in tags:
            rows.append((ev, f"{label} {item}", note, packdiff.rel(doc.span(path))))
        elif isinstance(ev, dict):
            for f, tag in ev.items():
                if tag in tags:
                    rows.append((tag, f"{label} {item}.{f}", note, packdiff.rel(doc.span(path + (f,)))))
        for k, v in node.items():
            if k != "evidence":
                _yaml_tagged(doc, v, path + (k,), label, rows, tags)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _yaml_tagged(doc, v, path + (i,), label, rows, tags)


def unverified_summary(rows) -> Counter:
    return Counter(tag for tag, *_ in rows)


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str)
