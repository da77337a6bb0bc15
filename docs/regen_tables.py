"""Regenerate the kinds/vocabulary tables of docs/language.md (sections 10 and 11) from
rulespec/kinds.py, the catalogue kinds the base pack declares (content/base_3to5/rules/catalogue.rules,
rulespec/catalogue.py) and rulespec/vocabulary.py. Usage: python docs/regen_tables.py ."""
import re, sys
root = sys.argv[1] if len(sys.argv) > 1 else "/work/main"
sys.path.insert(0, root)
from rulespec.kinds import KINDS, _common
from rulespec import vocabulary as V
from rulespec.checker import Checker
from rulespec.pack import load_pack
BASE_KINDS = {n: k for n, k in Checker(load_pack(f"{root}/content/base_3to5")).kinds.items() if n not in KINDS}
def esc(s): return s.replace("|", "\\|")
def sig(n, s):
    ps = list(s.params)
    if s.optional:
        ps = ps[:len(ps) - s.optional] + [p + "?" for p in ps[len(ps) - s.optional:]]
    return f"`{n}({', '.join(ps)})`"
kt = ["| Kind | Field | Type | Meaning |", "|---|---|---|---|"]
for k in list(KINDS.values()) + list(BASE_KINDS.values()):
    rows = []
    for n, f in k.fields.items():
        if n in _common: continue
        rows.append((f"`{n}`", f.type, f.doc, f.required))
    for bname, b in k.blocks.items():
        for n, f in b.fields.items():
            if n in _common: continue
            rows.append((f"`{bname} KEY {{ {n} }}`", f.type, f.doc, f.required))
    if k.open_fields:
        rows.append(("*any other field*", "any", "free-form data", False))
    for i, (n, t, d, req) in enumerate(rows):
        head = f"**{k.name}** — {esc(k.doc)}" if i == 0 else ""
        if head and k.name in BASE_KINDS:
            head += " (a catalogue kind of the base pack: `kind " + k.name + "`)"
        kt.append(("| " + head + " | " if head else "| | ") + f"{n} | `{esc(t)}` | {esc(d)}{' **(required)**' if req else ''} |")
g = ["| Name | Type | Meaning |", "|---|---|---|"] + [f"| `{n}` | `{t}` | {esc(d)} |" for n, (t, d) in V.GLOBALS.items()]
fn = ["| Function | Returns | Meaning |", "|---|---|---|"] + [f"| {sig(n, s)} | `{s.returns}` | {esc(s.doc)} |" for n, s in V.FUNCTIONS.items()]
at = ["| Of | Attribute | Type | Meaning |", "|---|---|---|---|"]
big = [o for o, a in V.ATTRIBUTES.items() if any(d for _, (t, d) in a.items())]
for obj in big:
    for i, (a, (t, d)) in enumerate(V.ATTRIBUTES[obj].items()):
        at.append((f"| **{obj}** | " if i == 0 else "| | ") + f"`{a}` | `{t}` | {esc(d)} |")
small = [o for o in V.ATTRIBUTES if o not in big and V.ATTRIBUTES[o]]
if not big and not small:       # (a table stays, so that the next heading's table is not taken for it)
    at.append("| — | — | — | none: every attribute is a field or a method formula the pack declares |")
if small:
    at += ["", "| Of | Attributes |", "|---|---|"]
    at += [f"| **{o}** | " + ", ".join(f"`{a}` ({t})" for a, (t, d) in V.ATTRIBUTES[o].items()) + " |" for o in small]
vb = ["| Verb | What it does |", "|---|---|"] + [f"| {sig(n, s)} | {esc(s.doc)} |" for n, s in V.VERBS.items()]
cs = ", ".join(f"`{c}`" for c in getattr(V, "CONSTANTS", {}))

path = f"{root}/docs/language.md"
doc = open(path, encoding="utf-8").read()
def table_after(doc, heading, new):
    """Replace the first markdown table (and an optional second one right after it) below heading."""
    i = doc.index(heading)
    j = doc.index("\n|", i) + 1
    k = j
    lines = doc[j:].split("\n")
    n = 0
    while n < len(lines) and (lines[n].startswith("|") or (lines[n] == "" and n + 1 < len(lines) and lines[n + 1].startswith("|"))):
        n += 1
    end = j + len("\n".join(lines[:n]))
    return doc[:j] + "\n".join(new) + doc[end:]
doc = table_after(doc, "## 10. Every kind and its fields", kt)
doc = table_after(doc, "### Globals", g)
doc = table_after(doc, "### Functions", fn)
doc = table_after(doc, "### Attributes", at)
doc = table_after(doc, "### Verbs", vb)
doc = re.sub(r"(Bare names with a fixed meaning, usable as values \(e\.g\. `flip\(t, available\)`\):\n)(.*?)\.\n",
             lambda m: m.group(1) + cs + ".\n", doc, count=1, flags=re.S)
open(path, "w", encoding="utf-8").write(doc)
print("regenerated", path)
