"""Describe a resolved pack: as text, as JSON, as a diff against another pack, and the list
of values that are not from the rulebook (`--unverified`)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from . import unparse
from .pack import UNVERIFIED_TAGS, Decl, Pack


def _rel(span) -> str:
    try:
        p = Path(span.file)
        for parent in p.parents:
            if (parent / "pack.yaml").is_file():
                return f"{parent.name}/{p.relative_to(parent)}:{span.line}"
    except (ValueError, OSError):
        pass
    return f"{span.file}:{span.line}"


def _history(hist) -> list:
    return [{"op": op, "at": _rel(span), "pack": pid} for op, span, pid in hist]


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
        lines.append(f"data {stem}: {doc.file}  ({hist})")
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
    prov = "; ".join(f"{op} {_rel(s)}" for op, s, _ in d.history)
    out = [f"{head} {{    # {prov}"]
    for n, fv in d.fields.items():
        val = unparse.value(fv.value, indent + 1)
        ev = "".join(f" @{a.name}" for a in fv.evidence)
        where = _rel(fv.history[-1][1]) if fv.history else ""
        changed = " (changed by overlay)" if len({p for _, _, p in fv.history}) > 1 else ""
        out.append(f"{pad}  {n}: {val}{ev}    # {where}{changed}")
    for b in d.blocks.values():
        out.extend(_decl_text(b, indent + 1))
    out.append(f"{pad}}}")
    return out


def _strip(j):
    """Decl JSON without provenance, for comparing packs."""
    if isinstance(j, dict):
        return {k: _strip(v) for k, v in j.items() if k not in ("history",)}
    if isinstance(j, list):
        return [_strip(x) for x in j]
    return j


def pack_diff(pack: Pack, base: Pack) -> list:
    """What `pack` changes relative to `base`: a list of (change, what, detail) rows."""
    rows = []
    a = {(d.kind, str(d.id)): _strip(decl_json(d)) for d in base.decls.values()}
    b = {(d.kind, str(d.id)): _strip(decl_json(d)) for d in pack.decls.values()}
    for key in a.keys() - b.keys():
        rows.append(("removed", f"{key[0]} {key[1]}", ""))
    for key in b.keys() - a.keys():
        rows.append(("added", f"{key[0]} {key[1]}", _rel(pack.decls[(key[0], _orig_id(pack, key))].span)))
    for key in a.keys() & b.keys():
        if a[key] != b[key]:
            fa, fb = a[key]["fields"], b[key]["fields"]
            for f in sorted(fa.keys() | fb.keys()):
                va, vb = fa.get(f, {}).get("value"), fb.get(f, {}).get("value")
                if va != vb:
                    rows.append(("changed", f"{key[0]} {key[1]}.{f}", f"{va!s:.60} -> {vb!s:.60}"))
            if a[key]["blocks"] != b[key]["blocks"]:
                rows.append(("changed", f"{key[0]} {key[1]} (blocks)", ""))
            if a[key]["title"] != b[key]["title"]:
                rows.append(("changed", f"{key[0]} {key[1]}.title", f"{a[key]['title']} -> {b[key]['title']}"))
    for stem in sorted(set(pack.data) | set(base.data)):
        da = base.data.get(stem)
        db = pack.data.get(stem)
        if da is None:
            rows.append(("added", f"data {stem}", db.file))
        elif db is None:
            rows.append(("removed", f"data {stem}", ""))
        elif da.data != db.data:
            rows.append(("changed", f"data {stem}", db.file))
    return sorted(rows, key=lambda r: (r[1], r[0]))


def _orig_id(pack, key):
    for (k, i) in pack.decls:
        if k == key[0] and str(i) == key[1]:
            return i
    return key[1]


def unverified(pack: Pack) -> list:
    """Every value marked inferred or placeholder: rows (tag, what, note, where)."""
    rows = []
    for d in pack.decls.values():
        _decl_unverified(d, f"{d.kind} {d.id}", rows)
    for stem, doc in pack.data.items():
        if stem in ("tracks", "palaces", "components"):
            continue   # these became declarations, listed above
        _yaml_unverified(doc, doc.data, (), stem, rows)
    return rows


def _decl_unverified(d: Decl, label: str, rows: list):
    for a in d.annotations:
        if a.name in UNVERIFIED_TAGS:
            rows.append((a.name, label, a.text, _rel(a.span if a.span.line else d.span)))
    for n, fv in d.fields.items():
        for a in fv.annotations:
            if a.name in UNVERIFIED_TAGS:
                rows.append((a.name, f"{label}.{n}", a.text, _rel(fv.span)))
    for b in d.blocks.values():
        _decl_unverified(b, f"{label} / {b.kind} {b.id}", rows)


def _yaml_unverified(doc, node, path, label, rows):
    if isinstance(node, dict):
        ev = node.get("evidence")
        item = node.get("id") or (path[-1] if path else label)
        note = str(node.get("note", ""))
        if isinstance(ev, str) and ev in UNVERIFIED_TAGS:
            rows.append((ev, f"{label} {item}", note, _rel(doc.span(path))))
        elif isinstance(ev, dict):
            for f, tag in ev.items():
                if tag in UNVERIFIED_TAGS:
                    rows.append((tag, f"{label} {item}.{f}", note, _rel(doc.span(path + (f,)))))
        for k, v in node.items():
            if k != "evidence":
                _yaml_unverified(doc, v, path + (k,), label, rows)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _yaml_unverified(doc, v, path + (i,), label, rows)


def unverified_summary(rows) -> Counter:
    return Counter(tag for tag, *_ in rows)


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str)
