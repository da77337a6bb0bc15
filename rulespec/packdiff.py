"""What an overlay changes: `rulespec show PACK --diff BASE`.

Two resolved packs are compared as a designer reads them: declarations by their DSL text
(unparsed, never cut), sub-blocks field by field, YAML data item by item on the *effective*
data (whatever the patch form that produced it). Every change carries where it was written,
relative to its pack folder, so the output is exactly the change and where to find it.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import unparse
from .pack import YAML_COLLECTIONS, Decl, Pack

ABSENT = "(absent)"
_OPS = {"define": "defined", "yaml": "defined", "replace": "replaced", "modify": "modified",
        "add": "added", "append": "appended", "patch": "patched"}
# list items without an `id`: the field naming them (a road is its two cities)
NATURAL_KEYS = ("id", "between", "city", "players", "name")


# ------------------------------------------------------------------ where
def rel_file(file) -> str:
    """A file named from its pack folder (`base_3to5/map.yaml`), else from the current folder;
    never an absolute path."""
    try:
        p = Path(file)
        for parent in p.parents:
            if (parent / "pack.yaml").is_file():
                return f"{parent.name}/{p.relative_to(parent).as_posix()}"
        if p.is_absolute():
            r = os.path.relpath(p)
            return r if not r.startswith("..") else p.name
    except (ValueError, OSError):
        return Path(str(file)).name
    return str(file)


def rel(span) -> str:
    """`file:line` of a span, the file as `rel_file` names it."""
    return f"{rel_file(span.file)}:{span.line}" if span.line else rel_file(span.file)


def history_text(hist) -> str:
    return "; ".join(f"{_OPS.get(op, op)} at {rel(span)}" for op, span, _ in hist)


# ------------------------------------------------------------------ the model
@dataclass
class Detail:
    """One changed part of a declaration or of a data item."""
    sign: str            # "~" changed, "+" added, "-" removed
    path: str            # "value", "space 7.ends_game", "city florence.value"
    old: str | None      # text on the base side (None: absent)
    new: str | None      # text on the pack side (None: absent)
    where: str = ""      # file:line of the pack side (of the base side for a removal)
    lines: list = field(default_factory=list)   # a line-level diff, when the text spans lines


@dataclass
class Entry:
    """One declaration or data file that differs."""
    sign: str            # "~", "+", "-"
    what: str            # "formula annex_by_road", "data map"
    where: str           # its provenance
    text: str = ""       # the whole text, for an added declaration
    details: list = field(default_factory=list)


# ------------------------------------------------------------------ line diffs
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _marks(line: str, other: str) -> str:
    """A `?` line marking with ^ the tokens of `line` (a diff line, sign first) that `other`
    does not have at the same place; '' when there is nothing to mark."""
    a, b = _TOKEN.findall(line[1:]), _TOKEN.findall(other[1:])
    out = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if sm.ratio() < 0.5:              # a line rewritten: marks would underline all of it
        return ""
    pos = [0]
    for t in a:
        pos.append(pos[-1] + len(t))
    for op, i1, i2, _, _ in sm.get_opcodes():
        if op in ("replace", "delete"):
            out.append((pos[i1], pos[i2]))
    if not out:
        return ""
    chars = [" "] * pos[-1]
    for s, e in out:
        for k in range(s, e):
            chars[k] = "^"
    col = len("".join(chars).rstrip())
    return ("?" + "".join(chars)[:col]) if col else ""


def line_diff(old: str, new: str, label: str = "", context: int = 3) -> list:
    """A unified line diff of two texts, hunk headers naming `label`; a run of n removed lines
    followed by n added lines gets `?` lines marking the changed tokens."""
    a, b = old.splitlines(), new.splitlines()
    raw = list(difflib.unified_diff(a, b, lineterm="", n=context))[2:]
    out, first = [], True
    i = 0
    while i < len(raw):
        line = raw[i]
        if line.startswith("@@"):
            m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", line)
            start = int(m.group(1)) if m else 1
            if not first or len(a) > 1 or len(b) > 1:
                out.append(f"@@ {label}{'' if first else f', line {start}'} @@" if label else line)
            first = False
            i += 1
            continue
        if line.startswith("-"):
            j = i
            while j < len(raw) and raw[j].startswith("-"):
                j += 1
            k = j
            while k < len(raw) and raw[k].startswith("+"):
                k += 1
            minus, plus = raw[i:j], raw[j:k]
            paired = len(minus) == len(plus)
            for n, m_ in enumerate(minus):
                out.append(m_)
                mark = _marks(m_, plus[n]) if paired else ""
                if mark:
                    out.append(mark)
            for n, p_ in enumerate(plus):
                out.append(p_)
                mark = _marks(p_, minus[n]) if paired else ""
                if mark:
                    out.append(mark)
            i = k
            continue
        out.append(line)
        i += 1
    return out


# ------------------------------------------------------------------ declarations
def _decl_label(d: Decl) -> str:
    return d.kind if d.id is None else f"{d.kind} {d.id}"


def _head(d: Decl) -> str:
    """The heading line of a declaration; a YAML item's title is its `name` field, compared there."""
    title = "" if d.get("name") == d.title else d.title
    return unparse.declaration(Decl(d.kind, d.id, d.span, d.pack, title, d.params, d.annotations)).split(" {")[0]


def _field_text(fv) -> str:
    return unparse.value(fv.value) + unparse.annotations(fv.annotations)


def _written(fv):
    """Where a field got its current value: its last overlay operation (an append keeps the
    field's first position), else where it is written."""
    return fv.history[-1][1] if fv.history else fv.span


def _decl_details(a: Decl, b: Decl, prefix: str = "") -> list:
    """Field-level changes between two versions of one declaration. Top-level fields get a line
    diff of their whole text; fields of sub-blocks one `path: old -> new` line each."""
    out = []
    if _head(a) != _head(b):
        out.append(Detail("~", prefix + "(heading)", _head(a), _head(b), rel(b.history[-1][1] if b.history else b.span),
                          line_diff(_head(a), _head(b))))
    for name in list(a.fields) + [n for n in b.fields if n not in a.fields]:
        fa, fb = a.fields.get(name), b.fields.get(name)
        ta = _field_text(fa) if fa else None
        tb = _field_text(fb) if fb else None
        if ta == tb:
            continue
        sign = "+" if fa is None else "-" if fb is None else "~"
        where = rel(_written((fb or fa)))
        lines = []
        if not prefix or "\n" in (ta or "") or "\n" in (tb or ""):
            lines = line_diff(unparse.field(fa) if fa else "", unparse.field(fb) if fb else "", prefix + name)
        out.append(Detail(sign, prefix + name, ta, tb, where, lines))
    for key in list(a.blocks) + [k for k in b.blocks if k not in a.blocks]:
        sa, sb = a.blocks.get(key), b.blocks.get(key)
        label = _decl_label(sa or sb)
        if sa is None:
            text = unparse.declaration(sb)
            out.append(Detail("+", prefix + label, None, text, rel(sb.span), ["+" + x for x in text.splitlines()]))
        elif sb is None:
            text = unparse.declaration(sa)
            out.append(Detail("-", prefix + label, text, None, rel(sa.span), ["-" + x for x in text.splitlines()]))
        elif unparse.declaration(sa) != unparse.declaration(sb):
            out.extend(_decl_details(sa, sb, prefix + label + "."))
    return out


def decl_entries(pack: Pack, base: Pack) -> list:
    def index(p):
        return {(d.kind, str(d.id)): d for d in p.decls.values()}
    a, b = index(base), index(pack)
    out = []
    for key in sorted(a.keys() | b.keys()):
        da, db = a.get(key), b.get(key)
        what = f"{key[0]} {key[1]}"
        if da is None:
            out.append(Entry("+", what, rel(db.span), unparse.declaration(db)))
        elif db is None:
            out.append(Entry("-", what, rel(da.span)))
        elif unparse.declaration(da) != unparse.declaration(db):
            details = _decl_details(da, db)
            if not details:              # same parts, another order: the whole text
                details = [Detail("~", "(order)", None, None, rel(db.span),
                                  line_diff(unparse.declaration(da), unparse.declaration(db)))]
            out.append(Entry("~", what, history_text(db.history), details=details))
    return out


# ------------------------------------------------------------------ YAML data
def singular(key: str) -> str:
    """`cities` -> `city`, `roads` -> `road`: what one item of a YAML list is called."""
    if key.endswith("ies"):
        return key[:-3] + "y"
    if key.endswith("s") and not key.endswith("ss"):
        return key[:-1]
    return key


def item_key(item) -> str | None:
    """The label of a list item: its `id`, or a natural key (a road's `between` as `a-b`)."""
    if not isinstance(item, dict):
        return None
    for k in NATURAL_KEYS:
        v = item.get(k)
        if isinstance(v, list) and v and all(isinstance(x, (str, int)) for x in v):
            return "-".join(map(str, v))
        if isinstance(v, (str, int)) and not isinstance(v, bool):
            return str(v)
    return None


def keyed(items) -> dict | None:
    """{label: (index, item)} for a list of mappings that all have a distinct label, else None."""
    if not isinstance(items, list) or not items or not all(isinstance(x, dict) for x in items):
        return None
    out = {}
    for i, x in enumerate(items):
        k = item_key(x)
        if k is None or k in out:
            return None
        out[k] = (i, x)
    return out


def collections(data) -> dict:
    """The item collections of one YAML data file: {top key: {label: (path, item)}} for lists
    of mappings with labels and mappings of mappings (not those that become declarations)."""
    out = {}
    if not isinstance(data, dict):
        return out
    for top, v in data.items():
        if top in YAML_COLLECTIONS:
            continue
        k = keyed(v)
        if k is not None:
            out[top] = {label: ((top, i), item) for label, (i, item) in k.items()}
        elif isinstance(v, dict) and v and all(isinstance(x, dict) for x in v.values()):
            out[top] = {str(label): ((top, label), item) for label, item in v.items()}
    return out


def _value_details(old, new, label, path_old, path_new, doc_old, doc_new, out):
    """Changes between two values at `label`: mappings key by key, labelled lists item by item,
    anything else as one `old -> new`."""
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            sub = f"{label}.{k}"
            if k not in new:
                out.append(Detail("-", sub, unparse._plain(old[k]), None, rel(doc_old.span(path_old + (k,)))))
            elif k not in old:
                out.append(Detail("+", sub, None, unparse._plain(new[k]), rel(doc_new.span(path_new + (k,)))))
            else:
                _value_details(old[k], new[k], sub, path_old + (k,), path_new + (k,), doc_old, doc_new, out)
        return
    ka, kb = keyed(old), keyed(new)
    if ka is not None and kb is not None:
        for k in list(ka) + [k for k in kb if k not in ka]:
            sub = f"{label}[{k}]"
            if k not in kb:
                out.append(Detail("-", sub, unparse._plain(ka[k][1]), None, rel(doc_old.span(path_old + (ka[k][0],)))))
            elif k not in ka:
                out.append(Detail("+", sub, None, unparse._plain(kb[k][1]), rel(doc_new.span(path_new + (kb[k][0],)))))
            else:
                _value_details(ka[k][1], kb[k][1], sub, path_old + (ka[k][0],), path_new + (kb[k][0],),
                               doc_old, doc_new, out)
        return
    out.append(Detail("~", label, unparse._plain(old), unparse._plain(new), rel(doc_new.span(path_new))))


def data_details(doc_old, doc_new, stem: str) -> list:
    """Item-level changes of one data file: `+ road a-b`, `- colour purple`,
    `~ city florence.value: 3 -> 4`; top-level values as `~ STEM key: old -> new`."""
    old, new = doc_old.data, doc_new.data
    if not isinstance(old, dict) or not isinstance(new, dict):
        if old == new:
            return []
        return [Detail("~", stem, unparse._plain(old), unparse._plain(new), rel(doc_new.span(())))]
    out = []
    ca, cb = collections(old), collections(new)
    for top in list(old) + [k for k in new if k not in old]:
        if top in YAML_COLLECTIONS:          # these are declarations, compared above
            continue
        kind = singular(str(top))
        if top in ca and top in cb:
            a, b = ca[top], cb[top]
            for k in list(a) + [k for k in b if k not in a]:
                if k not in b:
                    out.append(Detail("-", f"{kind} {k}", unparse._plain(a[k][1]), None, rel(doc_old.span(a[k][0]))))
                elif k not in a:
                    out.append(Detail("+", f"{kind} {k}", None, unparse._plain(b[k][1]), rel(doc_new.span(b[k][0]))))
                else:
                    _value_details(a[k][1], b[k][1], f"{kind} {k}", a[k][0], b[k][0], doc_old, doc_new, out)
        elif top not in new:
            out.append(Detail("-", f"{stem} {top}", unparse._plain(old[top]), None, rel(doc_old.span((top,)))))
        elif top not in old:
            out.append(Detail("+", f"{stem} {top}", None, unparse._plain(new[top]), rel(doc_new.span((top,)))))
        else:
            _value_details(old[top], new[top], f"{stem} {top}", (top,), (top,), doc_old, doc_new, out)
    return out


def data_entries(pack: Pack, base: Pack) -> list:
    out = []
    for stem in sorted(set(pack.data) | set(base.data)):
        da, db = base.data.get(stem), pack.data.get(stem)
        if da is None:
            out.append(Entry("+", f"data {stem}", rel_file(db.file)))
        elif db is None:
            out.append(Entry("-", f"data {stem}", rel_file(da.file)))
        elif da.data != db.data:
            details = data_details(da, db, stem)
            if details:
                seen = {(op, f) for op, f, _ in base.data_history.get(stem, [])}
                hist = [f"{_OPS.get(op, op)} by {rel_file(f)}" for op, f, _ in pack.data_history.get(stem, [])
                        if (op, f) not in seen]
                out.append(Entry("~", f"data {stem}", "; ".join(hist) or rel_file(db.file), details=details))
    return out


def pack_changes(pack: Pack, base: Pack) -> list:
    """Every declaration and data file that differs, declarations first (by kind and id)."""
    return decl_entries(pack, base) + data_entries(pack, base)


def only(entries: list, kind: str, id_: str) -> list:
    """The changes of one declaration or YAML item (`show PACK KIND ID --diff BASE`)."""
    name = f"{kind} {id_}"
    out = [e for e in entries if e.what == name]
    for e in entries:
        if e.what.startswith("data "):
            mine = [d for d in e.details if d.path == name or d.path.startswith((name + ".", name + "["))]
            if mine:
                out.append(Entry(e.sign, e.what, e.where, details=mine))
    return out


# ------------------------------------------------------------------ output
def render(entries: list, pack: Pack, base: Pack) -> str:
    lines = [f"--- {base.id}", f"+++ {pack.id}"]
    for e in entries:
        lines.append(f"{e.sign} {e.what}    # {e.where}" if e.where else f"{e.sign} {e.what}")
        if e.text:
            lines.extend("    " + x for x in e.text.splitlines())
        data = e.what.startswith("data ")
        for d in e.details:
            if d.lines:
                body = list(d.lines)
                # where it is written goes on the hunk header, else on the new text's first line
                at = next((i for i, x in enumerate(body) if x.startswith("@@")), None)
                if at is None:
                    at = next((i for i, x in enumerate(body) if x.startswith("+")), 0)
                body[at] += f"    # {d.where}"
                lines.extend("    " + x for x in body)
            elif data:
                # a removed item is named; a removed field also shows what it was
                text = (f"+ {d.path}: {d.new}" if d.sign == "+" else
                        (f"- {d.path}: {d.old}" if "." in d.path else f"- {d.path}") if d.sign == "-"
                        else f"~ {d.path}: {d.old} -> {d.new}")
                lines.append(f"    {text}    # {d.where}")
            else:
                text = (f"{d.path}: {ABSENT} -> {d.new}" if d.sign == "+" else
                        f"{d.path}: {d.old} -> {ABSENT}" if d.sign == "-" else f"{d.path}: {d.old} -> {d.new}")
                lines.append(f"    {text}    # {d.where}")
    n = len(entries)
    lines.append(f"{n} difference(s) between {pack.id} and {base.id}: "
                 f"{sum(e.sign == '~' for e in entries)} changed, {sum(e.sign == '+' for e in entries)} added, "
                 f"{sum(e.sign == '-' for e in entries)} removed")
    return "\n".join(lines)


def to_json(entries: list) -> list:
    change = {"~": "changed", "+": "added", "-": "removed"}
    return [{"change": change[e.sign], "what": e.what, "where": e.where,
             **({"text": e.text} if e.text else {}),
             "details": [{"change": change[d.sign], "what": d.path, "old": d.old, "new": d.new,
                          "where": d.where, **({"diff": d.lines} if d.lines else {})} for d in e.details]}
            for e in entries]
