"""Static checking of a resolved pack: kinds, fields, references and expression types.

Runs on the effective pack (after overlays) and reports Diagnostics; never raises for
content problems. Types are the simple ones of rulespec.vocabulary ('number', 'bool',
'city', 'set:city', 'any', ...); 'any' is compatible with everything, so the checker only
reports what is certainly wrong.
"""
from __future__ import annotations

import re

from . import ast as A
from . import limits
from . import prompts
from . import side_checks
from .errors import Diagnostic, Span, did_you_mean, source_line_at
from .catalogue import catalogue_specs
from .kinds import KINDS, SPACE, WORLD_KINDS, KindSpec
from .pack import Decl, Pack
from .flow import NAME_SPELLINGS, check_flow
from .mapless import check_map_use
from .board import EDGE_KINDS, GRAPH_FUNCTIONS, via_kinds
from .vocabulary import ATTRIBUTES, CONSTANTS, FUNCTIONS, GLOBALS, VERBS
from .world import CHECKER_TYPE, build_world, zone_type

NUMERIC = {"number", "int"}
# declaration kinds whose ids are values of that type in expressions
KIND_TYPES = {"symbol": "symbol", "action": "action", "card": "card", "tile": "tile",
              "alliance": "alliance", "track": "track", "procedure": "procedure", "table": "table",
              "option": "option", "war_bonus": "war_bonus", "ability": "ability", "colour": "colour",
              "palace": "palace", "component": "component", "scoring": "scoring",
              "constraint": "constraint", "end_condition": "end_condition", "phase": "phase", "game": "game",
              "side": "player"}


# the root of a `shuffle` path that is a store of the state rather than a value: supply.KEY
ZONE_STORE = "supply"

# text fields that may name formulas like prompts do, `{name}` (rulespec.prompts)
TEMPLATE_FIELDS = {("constraint", "message"), ("playout_hint", "decision"), ("playout_hint", "move")}


def _text_span(span: Span, text: str, offset: int, length: int = 1) -> Span:
    """Where `text[offset:]` is written, searched in the source from the start of the statement
    (a prompt keeps no position of its own); the statement's span if it cannot be found."""
    probe = text[offset:offset + max(length, 1)]
    for line in range(span.line, max(span.end_line, span.line) + 1):
        src = source_line_at(span.file, line)
        col = src.find(probe, span.column - 1 if line == span.line else 0)
        if col >= 0:
            return Span(span.file, line, col + 1, line, col + 1 + len(probe))
    return span


def _compatible(actual: str, expected: str) -> bool:
    if actual in ("any", None) or expected in ("any", None):
        return True
    a, e = actual.rstrip("?"), expected.rstrip("?")
    if a == e or a == "none" and expected.endswith("?"):
        return True
    if a in NUMERIC and e in NUMERIC:
        return True
    if a.startswith("set:") and e.startswith("set:"):
        return _compatible(a[4:], e[4:])
    if e == "cost" and a in ("symbol", "cost", "number"):
        return True
    if e in ("procedure", "action") and a in ("procedure", "action"):
        return True
    if {a, e} == {"colour", "player"}:       # a colour is a side, seated or not
        return True
    return False


class Checker:
    def __init__(self, pack: Pack):
        self.pack = pack
        self.out: list[Diagnostic] = []
        self.referenced: set = set()       # (kind, id) seen in references
        self.names: dict[str, str] = {}    # global name -> type
        self.name_kind: dict[str, str] = {}
        self.world = build_world(pack)
        # the kinds of declaration: the language's, and the catalogue kinds the pack declares
        specs, self._catalogue_findings = catalogue_specs(pack, self.world)
        self.kinds: dict = {**KINDS, **specs}
        self.field_hit = None               # set by e_Attr: the declared field an attribute reads
        self.attr_base = None               # set by e_Attr: the type of the value it reads from
        # method formulas, read x.NAME: (type of their first parameter, id) -> the formula
        self.methods = {(CHECKER_TYPE.get(d.params[0].type, d.params[0].type), str(d.id)): d
                        for d in pack.of_kind("formula") if d.params and d.params[0].type}
        self._formula_types: dict = {}      # formula id -> the type of its value (inferred)
        self._collect_names()

    # ------------------------------------------------------------ helpers
    def diag(self, code, msg, span: Span, hint="", severity="error", missing=()):
        """missing: the names this finding reports as absent (rulespec.diagnostic_order)."""
        self.out.append(Diagnostic(code, msg, span, hint, severity, source_line_at(span.file, span.line),
                                   missing=tuple(missing)))

    def removed_hint(self, name: str) -> str:
        """'' or where an overlay removed the declaration `name` (`remove KIND ID`), which a
        reference still names."""
        for module in reversed(self.pack.modules):
            for item in module.items:
                if isinstance(item, A.Removal) and item.id == name:
                    return f"{item.kind} '{name}' was removed by `remove {item.kind} {name}` at {item.span}; " \
                           f"remove this use too, or keep the {item.kind}"
        return ""

    def _collect_names(self):
        # colours first: a Palace keyed by its colour must not hide the colour
        for colour in self.colours():
            self.names.setdefault(colour, "colour")
            self.name_kind.setdefault(colour, "colour")
        for (kind, id_), d in self.pack.decls.items():
            if kind in WORLD_KINDS:         # descriptions of the world, not values (rulespec.world)
                continue
            spec = self.kinds.get(kind)
            if spec is not None and not spec.names_a_value:     # read by bots by its id, not by rules
                continue
            t = KIND_TYPES.get(kind, kind)
            self.names.setdefault(str(id_), t)
            self.name_kind.setdefault(str(id_), kind)
        m = self.pack.data.get("map")
        if m and isinstance(m.data, dict):
            for c in m.data.get("cities") or []:
                if isinstance(c, dict) and "id" in c:
                    self.names.setdefault(str(c["id"]), "city")
                    self.name_kind.setdefault(str(c["id"]), "city")
                    for alias in c.get("aliases") or []:
                        self.names.setdefault(str(alias), "city")
            for s in m.data.get("seas") or []:
                if isinstance(s, dict) and "id" in s:
                    self.names.setdefault(str(s["id"]), "sea")
                    self.name_kind.setdefault(str(s["id"]), "sea")
        for colour in self.colours():
            self.names.setdefault(colour, "colour")
            self.name_kind.setdefault(colour, "colour")
        side_checks.collect_names(self)
        # an enum's values are names of texts, unless something else has the name (a track
        # `patronage` stays a track when an enum lists `patronage`)
        for values in self.world.enums.values():
            for value in values:
                self.names.setdefault(value, "str")

    def colours(self) -> list:
        s = self.pack.data.get("setup")
        if not s or not isinstance(s.data, dict):
            return []
        c = s.data.get("colours")
        if isinstance(c, dict):
            return [str(k) for k in c]
        if isinstance(c, list):
            return [str(x["id"]) if isinstance(x, dict) else str(x) for x in c]
        return []

    def ids_of(self, kind: str) -> list:
        if kind == "side":
            return self.colours() + [str(i) for (k, i) in self.pack.decls if k == "side"]
        if kind == "colour":
            return self.colours() + [str(i) for (k, i) in self.pack.decls if k == "colour"]
        if kind in ("city", "sea"):
            return [n for n, t in self.names.items() if self.name_kind.get(n) == kind or t == kind]
        return [str(i) for (k, i) in self.pack.decls if k == kind]

    # ------------------------------------------------------------ entry point
    def run(self) -> list[Diagnostic]:
        self.out.extend(self.world.diagnostics)
        self.out.extend(self._catalogue_findings)
        for decl in self.pack.decls.values():
            spec = self.kinds.get(decl.kind)
            if spec is None:
                self.diag("RS102", f"unknown kind of declaration '{decl.kind}'", _kind_span(decl),
                          did_you_mean(decl.kind, self.kinds) or "known kinds: " + ", ".join(sorted(self.kinds)))
                continue
            self.check_decl(decl, spec)
        side_checks.check(self)
        return self.out

    def formula_type(self, decl: Decl) -> str:
        """The type of a formula's value, inferred once (and 'any' while it is being inferred:
        a formula that reads itself). Findings are not reported here: check_decl reports them."""
        fid = str(decl.id)
        if fid not in self._formula_types:
            self._formula_types[fid] = "any"
            fv = decl.fields.get("value")
            if fv is not None and isinstance(fv.value, A.Expr):
                saved, self.out = self.out, []
                saved_refs = set(self.referenced)
                try:
                    self._formula_types[fid] = self.expr(fv.value, param_types(decl.params))
                finally:
                    self.out, self.referenced = saved, saved_refs
        return self._formula_types[fid]

    def method_types(self) -> dict:
        """{(type, name): type of its value} of every method formula (for the compiler)."""
        return {key: self.formula_type(d) for key, d in self.methods.items()}

    def catalogue_fields(self) -> dict:
        """{(kind, field): type} of the fields of the pack's catalogue kinds (`kind card { field
        pp: number }`): the compiler reads them straight from the catalogue."""
        return {(CHECKER_TYPE.get(k, k), n): catalogue_type(f.type) for k, spec in self.kinds.items()
                if k not in KINDS for n, f in spec.fields.items()}

    def bare_formulas(self) -> dict:
        """The formulas without parameters (a bare name calls them): {name: type of its value},
        so that code reading `notables` knows it holds cards."""
        return {str(d.id): self.formula_type(d) for d in self.pack.of_kind("formula") if not d.params}

    def check_decl(self, decl: Decl, spec: KindSpec, outer: Decl | None = None):
        env = param_types(decl.params)
        for p in decl.params:
            if p.default is not None:
                self.expr(p.default, env)
        for name, fv in decl.fields.items():
            fs = spec.fields.get(name)
            if fs is None:
                if not spec.open_fields:
                    self.diag("RS103", f"{decl.kind} has no field '{name}'", fv.span,
                              did_you_mean(name, spec.fields) or "fields of " + decl.kind + ": " + ", ".join(sorted(spec.fields)))
                continue
            self.check_field(decl, fv, fs.type, dict(env, **{n: "any" for n in fs.names}) if fs.names else env)
            if (decl.kind, name) in TEMPLATE_FIELDS and isinstance(fv.value, A.Str):
                self.prompt(fv.value.value, fv.value.span, env)     # it may name formulas too
        for name, fs in spec.fields.items():
            if fs.required and name not in decl.fields:
                self.diag("RS104", f"{decl.kind} '{decl.id}' is missing the required field '{name}'",
                          decl.id_span or decl.span, f"add `{name}: ...` ({fs.doc})" if fs.doc else f"add `{name}: ...`")
        if decl.kind == "event":
            self.event_decl(decl)
        if decl.kind == "source":
            self.source_decl(decl)
        for (bkind, key), block in decl.blocks.items():
            sub_spec = spec.blocks.get(bkind)
            if sub_spec is None:
                self.diag("RS103", f"{decl.kind} cannot contain a '{bkind}' block", block.span,
                          did_you_mean(bkind, spec.blocks) or
                          ("blocks allowed here: " + ", ".join(spec.blocks) if spec.blocks else
                           "a field is written `name: value`"))
                continue
            self.check_decl(block, sub_spec, decl)
        if decl.kind == "die":
            self.die_faces(decl)
        if decl.kind in ("field", "record", "zone") and outer is None:
            self.field_defaults(decl)

    # ------------------------------------------------------------ fields
    def check_field(self, decl: Decl, fv, ftype: str, env: dict):
        v = fv.value
        if v is None:
            return
        if ftype == "any":
            if isinstance(v, (A.Expr, A.Block)):
                self.walk_any(v, env)
            return
        if ftype == "names":
            self.names_list(v, fv)
            return
        if ftype in ("world", "moment"):   # the world's names and types (rulespec.world), a moment of the flow (rulespec/flow.py)
            return
        if ftype == "effect":
            if isinstance(v, A.Block):
                self.block(v, dict(env))
            elif isinstance(v, A.Expr):
                self.diag("RS106", f"field '{fv.name}' must be a block of steps in {{ ... }}", fv.span,
                          f"write `{fv.name}: {{ ... }}`")
            return
        if ftype.startswith("list:"):
            inner = ftype[5:]
            if isinstance(v, A.ListExpr):
                for item in v.items:
                    self.check_value(item, inner, env, fv.name)
            elif isinstance(v, list):
                for item in v:
                    self.check_plain(item, inner, fv)
            elif isinstance(v, A.Expr):
                t = self.expr(v, env)
                if not t.startswith("set:") and t != "any":
                    self.diag("RS106", f"field '{fv.name}' must be a list", v.span, "write `[a, b, c]`")
            return
        if isinstance(v, (A.Expr, A.Block)):
            self.check_value(v, ftype, env, fv.name)
        else:
            self.check_plain(v, ftype, fv)

    def field_defaults(self, decl: Decl):
        """A declared field's `default:` has the field's type (RS106 at the default)."""
        w = self.world
        if decl.kind == "field":
            owners = [k.fields.get(str(decl.id)) for k in w.kinds.values()]
        elif decl.kind == "record":
            owners = list(w.records[str(decl.id)].fields.values()) if str(decl.id) in w.records else []
        else:
            owners = list(w.zones[str(decl.id)].entry.values()) if str(decl.id) in w.zones else []
        seen = set()
        for f in owners:
            if f is None or f.decl is None or id(f.decl) in seen or not isinstance(f.default, A.Expr):
                continue
            seen.add(id(f.decl))
            want = f.type.checker()
            env = {"self": CHECKER_TYPE.get(f.owner, f.owner)}
            got = self.expr(f.default, env)
            shape = f.type.shape
            if shape in ("count", "map"):
                self.diag("RS106", f"field '{f.name}' is a `{f.type}`, which starts empty: it takes no default",
                          f.default.span, "leave the default out")
            elif shape == "index":
                if not _compatible(got, "number?"):
                    self.diag("RS106", f"field '{f.name}' is an `{f.type}`, but its default is {_words(got)}",
                              f.default.span, "give a position (0 is the first) or none")
            elif not (_compatible(got, want) or got == "none" and shape == "ref"):
                self.diag("RS106", f"field '{f.name}' is {_words(want)} ({f.type}), but its default is {_words(got)}",
                          f.default.span, f"give a default of type {f.type}, or leave it out "
                                          f"(it is then {_empty_words(f.type.empty())})")

    def names_list(self, v, fv):
        """A list of plain names (an event's keys): names, each once; never evaluated."""
        items = v.items if isinstance(v, A.ListExpr) else v if isinstance(v, list) else None
        if items is None:
            self.diag("RS106", f"field '{fv.name}' must be a list of names", getattr(v, "span", fv.span),
                      f"write `{fv.name}: [side, card]`")
            return
        seen = set()
        for item in items:
            name = item.id if isinstance(item, A.Name) else item if isinstance(item, str) else None
            span = getattr(item, "span", fv.span)
            if name is None or not _NAME.fullmatch(name) or name == "event":
                self.diag("RS106", f"field '{fv.name}' lists names, and this is not one"
                          + (" ('event' names the event itself)" if name == "event" else ""), span,
                          "write lowercase names such as side, card, city")
            elif name in seen:
                self.diag("RS101", f"'{name}' is listed twice in '{fv.name}'", span, "list each name once")
            seen.add(name)

    def check_plain(self, v, ftype, fv):
        """A plain YAML value against a field type."""
        if ftype in ("int", "number") and not (isinstance(v, (int, float)) and not isinstance(v, bool)):
            self.diag("RS106", f"field '{fv.name}' must be a number, got {v!r}", fv.span, "write a number like 3")
        elif ftype == "bool" and not isinstance(v, bool):
            self.diag("RS106", f"field '{fv.name}' must be true or false, got {v!r}", fv.span, "write true or false")
        elif ftype.startswith("ref:") and isinstance(v, str):
            self.ref(v, ftype[4:], fv.span)
        elif ftype.startswith("enum:") and str(v) not in ftype[5:].split("|"):
            self.diag("RS109", f"'{v}' is not allowed for field '{fv.name}'", fv.span,
                      "expected one of: " + ", ".join(ftype[5:].split("|")))
        if ftype in ("int", "number") and isinstance(v, (int, float)) and v < 0:
            self.diag("RS109", f"field '{fv.name}' cannot be negative ({v})", fv.span, "use 0 or more")
        self.check_copies(fv.name, v, fv.span)

    def check_copies(self, fname, v, span):
        """Each copy of a card or tile is a thing of the game state: their number is bounded."""
        if fname == "copies" and isinstance(v, (int, float)) and not isinstance(v, bool) and v > limits.MAX_COPIES:
            self.diag("RS005", f"{v:,} copies (at most {limits.MAX_COPIES:,} of one card or tile)", span,
                      "a box holds a few copies of a card")

    def check_value(self, v, ftype: str, env: dict, fname: str):
        if ftype.startswith("ref:"):
            kind = ftype[4:]
            if isinstance(v, A.Name):
                self.ref(v.id, kind, v.span)
            elif isinstance(v, A.Call) and isinstance(v.func, A.Name):
                self.ref(v.func.id, kind, v.func.span)
                for a in list(v.args) + list(v.kwargs.values()):
                    self.expr(a, env)
            else:
                self.diag("RS106", f"field '{fname}' must name a {kind}", v.span, f"write the id of a {kind}")
            return
        if ftype.startswith("enum:"):
            allowed = ftype[5:].split("|")
            if not (isinstance(v, A.Name) and v.id in allowed):
                got = v.id if isinstance(v, A.Name) else "this value"
                dym = did_you_mean(got, allowed) if isinstance(v, A.Name) else ""
                self.diag("RS109", f"'{got}' is not allowed for field '{fname}'", v.span,
                          (dym + " " if dym else "") + "expected one of: " + ", ".join(allowed))
            return
        if ftype in ("cost", "symbols"):
            self.cost(v, env, fname)
            return
        expected = ftype[5:] if ftype.startswith("expr:") else ftype
        if isinstance(v, A.Block):
            self.diag("RS106", f"field '{fname}' takes a value, not a block of steps", v.span, "")
            return
        t = self.expr(v, env)
        if expected == "int":
            expected = "number"
            if isinstance(v, A.Neg) and isinstance(v.operand, A.Num) and v.operand.value > 0:
                self.diag("RS109", f"field '{fname}' cannot be negative (-{v.operand.value})", v.span, "use 0 or more")
            if isinstance(v, A.Num) and v.value < 0:
                self.diag("RS109", f"field '{fname}' cannot be negative ({v.value})", v.span, "use 0 or more")
            if isinstance(v, A.Num):
                self.check_copies(fname, v.value, v.span)
        if not _compatible(t, expected):
            self.diag("RS106", f"field '{fname}' must be {_words(expected)}, but this is {_words(t)}", v.span,
                      _type_hint(expected))

    def ref(self, name: str, kind: str, span: Span):
        known = self.ids_of(kind)
        if name in known:
            self.referenced.add((kind, name))
            return
        if kind == "city" and self.names.get(name) == "city":
            return
        self.diag("RS105", f"no {kind} named '{name}'", span,
                  self.removed_hint(name) or did_you_mean(name, known) or
                  (f"declared {kind}s: " + ", ".join(sorted(known)[:12]) if known else
                   f"no {kind} is declared in this pack"), missing=(name,))

    # ------------------------------------------------------------ costs
    def cost(self, v, env, fname):
        if isinstance(v, A.Qty):
            self.symbol(v.symbol, v.symbol_span)
            return
        if isinstance(v, A.PerCost):
            self.symbol(v.symbol, v.symbol_span)
            self.want(v.per, "number", env)
            return
        if isinstance(v, A.MoreThan):
            self.symbol(v.symbol, v.symbol_span)
            self.want(v.than, "number", env)
            return
        if isinstance(v, A.Name) and self.names.get(v.id) == "symbol":
            self.referenced.add(("symbol", v.id))
            return
        if isinstance(v, A.BinOp) and v.op in ("+", "|"):
            self.cost(v.left, env, fname)
            self.cost(v.right, env, fname)
            return
        if isinstance(v, A.Num) and v.value == 0:
            return
        if isinstance(v, A.ListExpr) and not v.items:
            return
        t = self.expr(v, env)
        if t not in ("cost", "any", "symbol"):
            self.diag("RS106", f"field '{fname}' must be a cost such as `2 florin + crown`, but this is {_words(t)}",
                      v.span, "a cost adds quantities of symbols: `3 crown`, `crown | cross`, `more crown than x`")

    def symbol(self, name, span):
        self.ref(name, "symbol", span)

    # ------------------------------------------------------------ statements
    def block(self, b: A.Block, env: dict):
        for s in b.stmts:
            self.stmt(s, env)

    def stmt(self, s, env: dict):
        if isinstance(s, A.Let):
            env[s.name] = self.expr(s.value, env)
        elif isinstance(s, A.SetStmt) and isinstance(s.target, A.Index):
            # `set c.troops[p] = n`: one key of a declared `count by` or `map` field
            self.field_hit = None
            tobj = s.target.obj
            self.expr(tobj, env)
            wf = self.field_hit
            known = isinstance(tobj, A.Attr) and self.attr_base != "any"     # else: known at run time
            self.expr(s.target.index, env)
            if not isinstance(tobj, A.Attr) or (known and (wf is None or wf.type.shape not in ("count", "map"))):
                self.diag("RS106", "`set X[key] = v` sets one key of a declared `count by` or `map` field, "
                          "and this is not one", s.target.span,
                          "e.g. `set c.troops[player] = c.troops[player] + 1` for `field troops: count by side on city`")
            self.expr(s.value, env)
        elif isinstance(s, A.SetStmt) and isinstance(s.target, A.Name) and s.target.id not in env \
                and self.world.game_zone(s.target.id) is not None:
            gz = self.world.game_zone(s.target.id)
            if not gz.counted:
                self.diag("RS106", f"`set {gz.name} = ...` sets how many a counted zone holds, and '{gz.name}' "
                          "holds things", s.target.span, f"move things in and out: `move(x, {gz.name})`")
            self.want(s.value, "number", env)
        elif isinstance(s, A.SetStmt):
            self.field_hit = None
            self.expr(s.target, env)
            wf = self.field_hit if isinstance(s.target, A.Attr) else None
            if wf is not None and wf.type.shape in ("scalar", "ref", "list"):
                vt = self.expr(s.value, env)
                if not _compatible(vt, wf.type.checker()):
                    self.diag("RS106", f"field '{wf.name}' is {_words(wf.type.checker())} ({wf.type}), but this is "
                              f"{_words(vt)}", s.value.span, _type_hint(wf.type.checker().rstrip("?")))
            else:
                self.expr(s.value, env)
        elif isinstance(s, A.If):
            for cond, blk in s.branches:
                self.want(cond, "bool", env)
                self.block(blk, dict(env))
            if s.else_:
                self.block(s.else_, dict(env))
        elif isinstance(s, (A.Choose, A.For)):
            it = self.expr(s.iter, env)
            if it not in ("any",) and not it.startswith("set:"):
                self.diag("RS106", f"`{'choose' if isinstance(s, A.Choose) else 'for'} {s.var} in ...` needs a set "
                          f"of things, but this is {_words(it)}", s.iter.span, "e.g. `cities`, `player.tiles`, `[a, b]`")
            inner = dict(env)
            inner[s.var] = it[4:] if it.startswith("set:") else "any"
            if isinstance(s, A.For) or s.up_to is not None:
                inner["__loop__"] = "any"
            if isinstance(s, A.Choose):
                self.prompt(s.prompt, s.span, env)
                if s.up_to is not None:
                    self.want(s.up_to, "number", env)
                if s.by is not None:
                    self.want(s.by, "player", env)
            if s.where is not None:
                self.want(s.where, "bool", inner)
            self.block(s.body, inner)
        elif isinstance(s, A.Repeat):
            self.want(s.count, "number", env)
            self.block(s.body, {**env, "__loop__": "any"})
        elif isinstance(s, A.OptionalStmt):
            self.prompt(s.prompt, s.span, env)
            if s.by is not None:
                self.want(s.by, "player", env)
            self.block(s.body, dict(env))
        elif isinstance(s, A.Either):
            self.prompt(s.prompt, s.span, env)
            if s.by is not None:
                self.want(s.by, "player", env)
            for o in s.options:
                self.prompt(o.label, o.span, env)
                if o.where is not None:
                    self.want(o.where, "bool", env)
                self.block(o.body, dict(env))
        elif isinstance(s, A.Pay):
            self.cost(s.cost, env, "pay")
            if s.as_name:
                env[s.as_name] = "number"
        elif isinstance(s, A.Require):
            self.want(s.cond, "bool", env)
        elif isinstance(s, A.CallStmt):
            self.call_stmt(s, env)
        elif isinstance(s, A.Roll):
            self.ref(s.die, "die", s.die_span)
            env[s.as_name] = self.face_type(s.die)
        elif isinstance(s, A.RandomPick):
            it = self.expr(s.iter, env)
            if it != "any" and not it.startswith("set:"):
                self.diag("RS106", f"`random {s.var} in ...` needs a set of things, but this is {_words(it)}",
                          s.iter.span, "e.g. `cities`, `player.tiles`, `[a, b]`")
            inner = dict(env)
            inner[s.var] = it[4:] if it.startswith("set:") else "any"
            if s.where is not None:
                self.want(s.where, "bool", inner)
            self.block(s.body, inner)
        elif isinstance(s, A.Shuffle):
            self.zone(s.zone, env)
        elif isinstance(s, A.Break):
            if not env.get("__loop__"):
                self.diag("RS106", "`break` outside a loop", s.span,
                          "`break` leaves the innermost `for`, `repeat` or `choose ... up_to` loop")

    # ------------------------------------------------------------ randomness
    def die_faces(self, decl: Decl):
        """A die's faces are fixed values (numbers, texts, declared names), at least one."""
        fv = decl.fields.get("faces")
        if fv is None:
            return
        v = fv.value
        items = v.items if isinstance(v, A.ListExpr) else v if isinstance(v, list) else None
        if items is None:
            return          # check_field reported that it is not a list
        if not items:
            self.diag("RS109", f"die '{decl.id}' has no faces", fv.span, "list its faces: `faces: [1, 2, 3, 4, 5, 6]`")
        for item in items:
            if isinstance(item, A.Name) and item.id not in self.names and item.id not in CONSTANTS:
                if NAME_SPELLINGS.get(item.id, item.id) in GLOBALS:       # (an unknown name is RS105 already)
                    self.diag("RS106", f"a face of a die is a fixed value, and '{item.id}' changes during the "
                              "game", item.span, "write a number, a \"text\" or a declared name (a symbol...)")
                continue
            if isinstance(item, A.Expr) and not (isinstance(item, (A.Num, A.Str, A.Name)) or
                                                 isinstance(item, A.Neg) and isinstance(item.operand, A.Num)):
                self.diag("RS106", "a face of a die is a fixed value", item.span,
                          "write a number, a \"text\" or a declared name (a symbol...); compute with the rolled "
                          "value after the roll instead")

    def face_type(self, die: str) -> str:
        """The type of a rolled face: number, str or a declared kind when all faces agree."""
        d = self.pack.get("die", die)
        fv = d.fields.get("faces") if d is not None else None
        items = fv.value.items if fv is not None and isinstance(fv.value, A.ListExpr) else []
        types = set()
        for item in items:
            if isinstance(item, (A.Num, A.Neg)):
                types.add("number")
            elif isinstance(item, A.Str):
                types.add("str")
            elif isinstance(item, A.Name):
                types.add(self.names.get(item.id, "any"))
        return types.pop() if len(types) == 1 else "any"

    def zone(self, e, env):
        """`shuffle(ZONE)`: ZONE names a list kept in the game state: `supply.KEY`, or a key of
        a player's or a city's record (`player.outside`, a list `player_var`)."""
        if not isinstance(e, A.Attr):
            self.diag("RS106", "`shuffle` needs a list of the game state", e.span,
                      "name where the list is kept: `shuffle(supply.tiles)`, `shuffle(player.outside)`")
            self.expr(e, env)
            return
        root = e
        while isinstance(root, A.Attr):
            root = root.obj
        if isinstance(root, A.Name) and root.id == ZONE_STORE and root.id not in env:
            return
        t = self.expr(root, env)
        # a side, or a thing of a kind with records of its own (interpreter/vm.py x_shuffle)
        owners = ["player"] + [k for k, _ in self.world.stored_kinds()]
        if not any(_compatible(t, o) for o in owners):
            self.diag("RS106", f"`shuffle` shuffles a list of the {ZONE_STORE}, of a side or of a stored thing "
                      f"({', '.join(owners[1:])}), but this starts from {_words(t)}", root.span,
                      f"start the path with `{ZONE_STORE}`, a player or a stored thing: `shuffle(supply.tiles)`")

    def prompt(self, text: str, span: Span, env: dict):
        """A prompt or option label may name formulas, `{name}` (rulespec.prompts): each must be
        a formula whose parameters without a default are variables here (they are passed by
        name)."""
        if not text or not prompts.has_fields(text):
            return
        try:
            parts = prompts.split(text)
        except prompts.TemplateError as e:
            self.diag("RS010", f"prompt \"{text}\": {e}", _text_span(span, text, e.offset),
                      "`{name}` shows the value of the formula `name`; write `{{` or `}}` for a brace")
            return
        for part in parts:
            if part[0] != "name":
                continue
            name, offset = part[1], part[2]
            where = _text_span(span, text, offset, len(name) + 2)
            if self.name_kind.get(name) != "formula":
                formulas = [str(i) for (k, i) in self.pack.decls if k == "formula"]
                what = f"'{name}' is a {self.name_kind[name]}, not a formula" if name in self.name_kind \
                    else f"no formula named '{name}'"
                self.diag("RS105", f"{what} (in the prompt \"{text}\")", where,
                          did_you_mean(name, formulas) or
                          "`{name}` shows the value of a `formula`; write `{{` for a brace")
                continue
            self.referenced.add(("formula", name))
            target = self.pack.get("formula", name)
            for p in (target.params if target else []):
                if p.default is None and p.name not in env and p.name not in GLOBALS:
                    self.diag("RS107", f"formula '{name}' needs its parameter '{p.name}', and the prompt "
                              f"\"{text}\" has no variable of that name", where,
                              f"a `{{{name}}}` in a prompt passes the variables of the same name as its "
                              f"parameters: name the variable '{p.name}', or give the parameter a default")

    def call_stmt(self, s: A.CallStmt, env):
        sig = VERBS.get(s.verb)
        if sig is None:
            kind = self.name_kind.get(s.verb)
            if kind in ("procedure", "action"):
                self.referenced.add((kind, s.verb))
                self._args(s.args, s.kwargs, env)
                return
            self.diag("RS107", f"unknown verb '{s.verb}'", s.span,
                      self.removed_hint(s.verb) or did_you_mean(s.verb, list(VERBS) + self.ids_of("procedure")) or
                      "verbs: " + ", ".join(sorted(VERBS)), missing=(s.verb,))
            self._args(s.args, s.kwargs, env)
            return
        self.arity(s.verb, sig, s.args, s.span, "verb")
        if s.verb == "move" and len(s.args) == 2:
            self.move_call(s, env)
            return
        if s.verb == "event":
            self.event_call(s, env)
            return
        if s.verb in ("perform", "run") and s.args and isinstance(s.args[0], A.Name):
            kind = "action" if s.verb == "perform" else "procedure"
            self.ref(s.args[0].id, kind, s.args[0].span)
            target = self.pack.get(kind, s.args[0].id)
            if target is not None:
                names = {p.name for p in target.params}
                for k, val in s.kwargs.items():
                    if k not in names:
                        self.diag("RS107", f"{kind} '{target.id}' has no parameter '{k}'", val.span,
                                  did_you_mean(k, names) or (f"its parameters: {', '.join(sorted(names))}" if names
                                                             else f"{kind} '{target.id}' takes no parameters"))
            for a in s.args[1:]:
                self.expr(a, env)
            for v in s.kwargs.values():
                self.expr(v, env)
            return
        for a, t in zip(s.args, sig.params):
            self.want(a, t, env) if not t.startswith("*") else self.expr(a, env)
        for a in s.args[len(sig.params):]:
            self.expr(a, env)
        for v in s.kwargs.values():
            self.expr(v, env)

    def move_call(self, s: A.CallStmt, env):
        """`move(THING, PLACE, FIELD: v...)` (interpreter/verbs.py): THING a value, `ZONE[n]` or
        `RECORD.HOLDER`; PLACE a zone of the World, `ZONE[n]` (a position), a holder field or
        none; the keywords are entry fields of PLACE."""
        thing, place = s.args
        if self._move_zone(thing, env, True) is None:
            self.expr(thing, env)
        entries: list = []
        if isinstance(place, A.NoneLit):
            pass
        elif (held := self._move_holder(place, env)) is not None:
            entries = held
        elif (z := self._move_zone(place, env, True) or self._move_zone(place, env, False)) is not None:
            entries = list(z.entry)
            if isinstance(place, A.Index) and (z.grouped or z.sorted):
                self.diag("RS106", f"zone '{z.name}' is kept {'in piles' if z.grouped else 'sorted'}: a thing "
                          "put there has no position to choose", place.span, f"write `move(x, {z.name})`")
        else:
            w = self.world
            zones = [z.name if not z.owner else f"{CHECKER_TYPE.get(z.owner, z.owner)}.{z.name}"
                     for z in w.zones.values() if not z.counted]
            holders = [f"{r}.{f}" for r, rec in w.records.items() for f, fd in rec.fields.items() if fd.holds]
            self.diag("RS106", "`move` puts a thing into a zone, a field that holds a thing, or none", place.span,
                      "write a zone (" + ", ".join(zones[:8]) + ")" +
                      (", a holder field (" + ", ".join(holders[:6]) + ")" if holders else "") +
                      ", `ZONE[0]` for the top of an ordered zone, or `none` (out of the game)")
            self.expr(place, env)
        for k, v in s.kwargs.items():
            if k not in entries:
                self.diag("RS107", f"`move` has no keyword '{k}' for this place", v.span,
                          did_you_mean(k, entries) or (f"its entry fields: {', '.join(entries)}" if entries
                                                       else "this place keeps no entry fields"))
            self.expr(v, env)

    def _move_zone(self, e, env, indexed):
        """The ZoneDef named by `ZONE` / `OWNER.ZONE` (with `[n]` when indexed), else None."""
        if indexed:
            if not isinstance(e, A.Index):
                return None
            target = e.obj
        else:
            target = e
        zones = self.world.zones
        z = None
        if isinstance(target, A.Name) and target.id not in env and target.id in zones \
                and not zones[target.id].owner:
            z = zones[target.id]
        elif isinstance(target, A.Attr) and target.name in zones and zones[target.name].owner:
            z = zones[target.name]
            want = CHECKER_TYPE.get(z.owner, z.owner)
            t = self.expr(target.obj, env)
            if not _compatible(t, want):
                self.diag("RS106", f"zone '{z.name}' belongs to each {want}, but this is {_words(t)}",
                          target.obj.span, f"write `{want}.{z.name}` with a {want}")
        if z is not None and indexed:
            self.want(e.index, "number", env)
        if z is not None and z.counted:
            self.diag("RS106", f"zone '{z.name}' is counted (a number): `move` moves things", target.span,
                      "change a counted zone with `set`")
        return z

    def _move_holder(self, e, env):
        """The entry field names of `RECORD.HOLDER` (a `@holds` field of a record), else None."""
        if not isinstance(e, A.Attr) or e.name in self.world.zones:
            return None
        t = self.expr(e.obj, env)
        rec = self.world.records.get(t.rstrip("?"))
        f = rec.fields.get(e.name) if rec is not None else None
        if f is None or not f.holds:
            return None
        return [x.name for x in rec.fields.values() if x.entry]

    def event_decl(self, decl: Decl):
        """`log` is the account's own event; an event the `pay` statement records can only
        have the keys `pay` knows."""
        if str(decl.id) == "log":
            self.diag("RS101", "'log' is the event of the account's text lines (the verb log(...))",
                      decl.id_span or decl.span, "give the event another name")
        if _plain(decl.get("emitted_by")) == "pay":
            fv = decl.fields.get("keys")
            items = fv.value.items if isinstance(fv.value, A.ListExpr) else []
            for k in event_keys(decl):
                if k not in PAY_EVENT_KEYS:
                    at = next((i.span for i in items if isinstance(i, A.Name) and i.id == k), fv.span)
                    self.diag("RS107", f"`pay` gives no key '{k}' to event '{decl.id}'", at,
                              did_you_mean(k, PAY_EVENT_KEYS) or "the keys of a payment: " + ", ".join(PAY_EVENT_KEYS))

    def source_decl(self, decl: Decl):
        """A payment source names what pays by its one parameter; a `first` source, which the
        payment uses before the others, by a text its moves always show (Ruleset.first_labels)."""
        if len(decl.params) != 1:
            self.diag("RS106", f"source '{decl.id}' takes one parameter (the thing or record that pays), "
                               f"not {len(decl.params)}", decl.id_span or decl.span,
                      "write `source NAME(c: card) { each: [c for c in ...]; symbols: c.bottom; tap: {...} }`")
        first = decl.fields.get("first")
        label = decl.fields.get("label")
        is_first = first is not None and (first.value.value if isinstance(first.value, A.Bool) else first.value) is True
        if is_first and not (label is not None and isinstance(label.value, A.Str)):
            self.diag("RS106", f"source '{decl.id}' is `first`, so its `label` must be a text",
                      label.value.span if label is not None else first.span,
                      "name a first source by a fixed text: `label: \"room.card\"`")

    def event_call(self, s: A.CallStmt, env):
        """`event(ID, KEY: value, ...)`: ID names an `event` declaration, and the keys are
        exactly its declared keys (rulespec.kinds, interpreter/events.py)."""
        for v in s.kwargs.values():
            self.expr(v, env)
        if not s.args:
            return
        first = s.args[0]
        if not isinstance(first, A.Name):
            self.diag("RS106", "the first argument of event(...) is the name of an event", first.span,
                      "write `event(card_gained, side: player, card: c)` with an `event` declaration's id")
            return
        self.ref(first.id, "event", first.span)
        decl = self.pack.get("event", first.id)
        if decl is None:
            return
        if decl.get("emitted_by") is not None:
            self.diag("RS107", f"event '{decl.id}' is recorded by `{_plain(decl.get('emitted_by'))}` itself, "
                      "not by event(...)", first.span, "remove this call, or declare another event")
            return
        keys = event_keys(decl)
        unknown = [k for k in s.kwargs if k not in keys]
        for k, val in s.kwargs.items():
            if k not in keys:
                self.diag("RS107", f"event '{decl.id}' has no key '{k}'", val.span,
                          did_you_mean(k, keys) or (f"its keys: {', '.join(keys)}" if keys else
                                                    f"event '{decl.id}' declares no keys"))
        missing = [k for k in keys if k not in s.kwargs]
        if missing and not unknown:         # a misspelt key is reported once, as unknown
            self.diag("RS107", f"event '{decl.id}' needs the key{'s' if len(missing) > 1 else ''} "
                      f"{', '.join(missing)}", s.span,
                      f"give every declared key: event({decl.id}, " + ", ".join(f"{k}: ..." for k in keys) + ")")

    def arity(self, name, sig, args, span, what):
        n = len(args)
        lo, hi = len(sig.params) - sig.optional, len(sig.params)
        if any(p.startswith("*") for p in sig.params):
            hi = 10 ** 6
        if not lo <= n <= hi:
            want = str(hi) if lo == hi else f"{lo} to {hi}"
            self.diag("RS107", f"{what} '{name}' takes {want} argument{'s' if hi != 1 else ''}, got {n}", span,
                      f"{name}({', '.join(sig.params)}): {sig.doc}")

    def _args(self, args, kwargs, env):
        for a in args:
            self.expr(a, env)
        for v in kwargs.values():
            self.expr(v, env)

    def walk_any(self, v, env):
        if isinstance(v, A.Block):
            self.block(v, dict(env))
        elif isinstance(v, A.Expr):
            self.expr(v, env)

    # ------------------------------------------------------------ expressions
    def want(self, e, expected: str, env) -> str:
        t = self.expr(e, env)
        if not _compatible(t, expected):
            self.diag("RS106", f"expected {_words(expected)} here, but this is {_words(t)}", e.span, _type_hint(expected))
        return t

    def expr(self, e, env: dict) -> str:
        m = getattr(self, "e_" + type(e).__name__, None)
        return m(e, env) if m else "any"

    def e_Num(self, e, env):
        return "number"

    def e_Str(self, e, env):
        return "str"

    def e_Bool(self, e, env):
        return "bool"

    def e_NoneLit(self, e, env):
        return "none"

    def e_Name(self, e, env):
        if e.id in env:
            return env[e.id] or "any"
        if NAME_SPELLINGS.get(e.id, e.id) in GLOBALS:
            return GLOBALS[NAME_SPELLINGS.get(e.id, e.id)][0]
        gz = self.world.game_zone(e.id)
        if gz is not None:          # a zone of the game itself, read by its name: what it holds
            return zone_type(gz)
        pk = self.world.plural_kind(e.id)
        bare = self.pack.get("formula", e.id) if pk is not None else None
        if pk is not None and (bare is None or bare.params):    # `alliances`: every instance of a kind
            return "set:" + CHECKER_TYPE.get(pk.name, pk.name)
        if e.id in self.names:
            kind = self.name_kind.get(e.id)
            if kind:
                self.referenced.add((kind, e.id))
            if kind == "formula":
                d = self.pack.get("formula", e.id)
                if d is not None and not d.params:
                    return self.formula_type(d)         # a bare name calls a formula without parameters
            return self.names[e.id]
        if e.id in CONSTANTS:
            return CONSTANTS[e.id]
        if e.id in FUNCTIONS:
            return "any"
        candidates = list(env) + list(GLOBALS) + list(self.names) + list(CONSTANTS) + \
            [z for z in self.world.zones if self.world.game_zone(z)] + [k.plural for k in self.world.kinds.values() if k.store]
        self.diag("RS105", f"unknown name '{e.id}'", e.span,
                  self.removed_hint(e.id) or did_you_mean(e.id, candidates) or
                  "declare it with `let`, as a parameter, or in the pack", missing=(e.id,))
        return "any"

    def e_Qty(self, e, env):
        self.symbol(e.symbol, e.symbol_span)
        return "cost"

    def e_PerCost(self, e, env):
        self.symbol(e.symbol, e.symbol_span)
        self.want(e.per, "number", env)
        return "cost"

    def e_MoreThan(self, e, env):
        self.symbol(e.symbol, e.symbol_span)
        self.want(e.than, "number", env)
        return "cost"

    def e_Attr(self, e, env):
        t = self.expr(e.obj, env)
        self.field_hit = None       # the declared field `e` reads, for `set` (stmt)
        base = self.attr_base = t.rstrip("?")
        if e.name == "index" and base in self.world.records:     # a record of a list: its position
            return "number"
        if base == "space" and e.name in SPACE.fields:      # a field of the track's `space` block
            return catalogue_type(SPACE.fields[e.name].type)
        attrs = ATTRIBUTES.get(base)
        if attrs is not None:
            if e.name in attrs:
                return attrs[e.name][0]
            wf = self.world.field(base, e.name)
            if wf is not None:
                self.field_hit = wf
                return wf.type.checker()
            ef = self.world.entry_field(base, e.name)
            if ef is not None:          # kept by the thing's entry where it is (interpreter/verbs.py)
                return ef.type.checker()
            zone = self.world.zone_on(base, e.name)
            if zone is not None:        # a zone each of them owns: what it holds (player.tiles)
                return zone_type(zone)
            method = self.methods.get((base, e.name))
            if method is not None:
                self.referenced.add(("formula", str(method.id)))
                return self.formula_type(method)
            if base == "player" and e.name in side_checks.SIDE_FIELDS:     # red.commanded_by
                return side_checks.SIDE_FIELDS[e.name]
            # declared objects also expose their fields
            if base in self.kinds and e.name in self.kinds[base].fields:
                return "any"
            known = list(attrs) + self.world.names_on(base) + [n for (t, n) in self.methods if t == base]
            self.diag("RS105", f"a {base} has no attribute '{e.name}'", e.span,
                      did_you_mean(e.name, known) or "attributes: " + ", ".join(sorted(known)), missing=(e.name,))
            return "any"
        method = self.methods.get((base, e.name))
        if method is not None:
            self.referenced.add(("formula", str(method.id)))
            return self.formula_type(method)
        if self.world.kind_of(base) is not None:
            wf = self.world.field(base, e.name)
            if wf is not None:
                self.field_hit = wf
                return wf.type.checker()
            if base not in self.kinds or self.kinds[base].open_fields:     # (a map's city: its declared fields)
                known = self.world.names_on(base) + [n for (t, n) in self.methods if t == base]
                self.diag("RS105", f"a {base} has no field '{e.name}'", e.span,
                          did_you_mean(e.name, known) or ("fields: " + ", ".join(known) if known else
                                                          f"declare it: `field {e.name} {{ on: {base}; type: ... }}`"),
                          missing=(e.name,))
                return "any"
        if base in self.kinds and base not in KINDS:    # a catalogue kind of the pack: its fields are typed
            spec = self.kinds[base]
            if e.name in spec.fields:
                return catalogue_type(spec.fields[e.name].type)
            if e.name == "id":          # its catalogue id: 'merchant' for the copy 'merchant#2'
                return "str"
            ef = self.world.entry_field(base, e.name)
            if ef is not None:          # kept by the thing's entry where it is (interpreter/verbs.py)
                return ef.type.checker()
            known = list(spec.fields) + self.world.names_on(base) + ["id"]
            self.diag("RS105", f"a {base} has no field '{e.name}'", e.span,
                      did_you_mean(e.name, known) or "fields: " + ", ".join(known), missing=(e.name,))
            return "any"
        if base in self.kinds and isinstance(e.obj, A.Name):
            spec = self.kinds[base]
            if e.name not in spec.fields and not spec.open_fields and not spec.blocks:
                self.diag("RS105", f"a {base} has no field '{e.name}'", e.span,
                          did_you_mean(e.name, spec.fields) or "")
        if base == "space":
            known = list(SPACE.fields) + [n for (t, n) in self.methods if t == base]
            self.diag("RS105", f"a space has no field '{e.name}'", e.span,
                      did_you_mean(e.name, known) or "fields: " + ", ".join(known), missing=(e.name,))
        return "any"

    def e_Call(self, e, env):
        if not isinstance(e.func, A.Name):
            self.expr(e.func, env)
            self._args(e.args, e.kwargs, env)
            return "any"
        name = e.func.id
        sig = FUNCTIONS.get(name)
        if sig is None and name in self.world.records:
            return self.record_value(e, self.world.records[name], env)
        if sig is None:
            kind = self.name_kind.get(name)
            if kind == "formula":
                self.referenced.add((kind, name))
                target = self.pack.get("formula", name)
                params = target.params if target else []
                if len(e.args) > len(params) or any(k not in {p.name for p in params} for k in e.kwargs):
                    self.diag("RS107", f"formula '{name}' takes {len(params)} argument(s): "
                              f"({', '.join(p.name for p in params)})", e.span, "")
                self._args(e.args, e.kwargs, env)
                return "any"
            if kind == "table":
                self.referenced.add((kind, name))
                self._args(e.args, e.kwargs, env)
                return "any"
            if kind == "procedure":
                self.diag("RS107", f"'{name}' is a procedure (steps), not a value", e.span,
                          f"run it as a step: `run({name})`; for a value, declare a `formula`")
                self._args(e.args, e.kwargs, env)
                return "any"
            if name in VERBS:
                self.diag("RS107", f"'{name}' is a verb (it changes the game), not a value", e.span,
                          f"use it as a step on its own line inside an effect block: `{name}(...)`")
            else:
                self.diag("RS107", f"unknown function '{name}'", e.func.span,
                          self.removed_hint(name) or did_you_mean(name, FUNCTIONS) or
                          "functions: " + ", ".join(sorted(FUNCTIONS)), missing=(name,))
            self._args(e.args, e.kwargs, env)
            return "any"
        self.arity(name, sig, e.args, e.span, "function")
        if name == "find" and len(e.args) == 3:
            return self.find_call(e, env)
        if name == "instances" and len(e.args) == 1:
            return self.instances_call(e.args[0])
        if name == "flatten" and len(e.args) == 1:
            t = self.expr(e.args[0], env)       # the lists' elements, one list after the other
            return t[4:] if t.startswith("set:set:") else "set:any"
        if name == "first_of_each" and len(e.args) == 1:
            t = self.expr(e.args[0], env)       # the same things, fewer
            return t if t.startswith("set:") else "set:any"
        if name in GRAPH_FUNCTIONS:
            return self.graph_call(name, sig, e, env)
        for k, v in e.kwargs.items():       # built-in functions take their arguments by position
            self.diag("RS107", f"function '{name}' has no keyword parameter '{k}'", getattr(v, "span", e.span),
                      f"give its arguments by position: {name}({', '.join(sig.params)})")
        if name == "option" and e.args and isinstance(e.args[0], A.Str):
            self.ref(e.args[0].value, "option", e.args[0].span)
        for a, t in zip(e.args, sig.params):
            self.want(a, t, env)
        for a in e.args[len(sig.params):]:
            self.expr(a, env)
        for v in e.kwargs.values():
            self.expr(v, env)
        if name in ("max", "min") and e.args:
            return "number"
        return sig.returns

    def graph_call(self, name, sig, e, env) -> str:
        """neighbours/distance/reachable(..., via: KIND or [KIND, ...]): the kinds of edge of the
        map (rulespec.board.EDGE_KINDS) are names of the map format, not values."""
        for a, t in zip(e.args, sig.params):
            self.want(a, t, env)
        for k, v in e.kwargs.items():
            if k != "via":
                self.diag("RS107", f"function '{name}' has no keyword parameter '{k}'", getattr(v, "span", e.span),
                          f"write {name}({', '.join(sig.params)}, via: road)")
        via = e.kwargs.get("via")
        if via is None:
            self.diag("RS107", f"'{name}' needs `via:`, the kinds of edge a path may use", e.span,
                      f"write {name}({', '.join(sig.params)}, via: road); edge kinds: {', '.join(EDGE_KINDS)}")
            return sig.returns
        _, bad = via_kinds(via)
        for b in bad:
            got = b.id if isinstance(b, A.Name) else "this"
            self.diag("RS105", f"'{got}' is not a kind of edge of the map", getattr(b, "span", e.span),
                      did_you_mean(got, EDGE_KINDS) or "edge kinds: " + ", ".join(EDGE_KINDS), missing=(got,))
        return sig.returns

    def record_value(self, e, rec, env) -> str:
        """`R(field: value, ...)`: a value of the record type R, its fields given by name (the
        others take their defaults)."""
        for a in e.args:
            self.diag("RS107", f"the fields of a {rec.name} are given by name", a.span,
                      f"write {rec.name}({', '.join(f'{n}: ...' for n in list(rec.fields)[:2])})")
            self.expr(a, env)
        for k, v in e.kwargs.items():
            vt = self.expr(v, env)
            f = rec.fields.get(k)
            if f is None:
                self.diag("RS107", f"a {rec.name} has no field '{k}'", getattr(v, "span", e.span),
                          did_you_mean(k, rec.fields) or "its fields: " + ", ".join(rec.fields), missing=(k,))
            elif not _compatible(vt, f.type.checker()):
                self.diag("RS106", f"field '{k}' of a {rec.name} is {_words(f.type.checker())} ({f.type}), but this is "
                          f"{_words(vt)}", getattr(v, "span", e.span), _type_hint(f.type.checker().rstrip("?")))
        return rec.name

    def find_call(self, e, env) -> str:
        """`find(KIND, FIELD, value)`: the instances of a declared kind whose field holds the
        value. KIND and FIELD are names of the world, not values."""
        kind, fname, value = e.args
        self.expr(value, env)
        if not isinstance(kind, A.Name) or self.world.kinds.get(kind.id) is None or not self.world.kinds[kind.id].store:
            known = [k for k, d in self.world.kinds.items() if d.store]
            got = kind.id if isinstance(kind, A.Name) else "this"
            self.diag("RS105", f"find(...) needs a kind with stored records first, not '{got}'", kind.span,
                      did_you_mean(got, known) or "kinds: " + ", ".join(known), missing=(got,))
            return "set:any"
        k = self.world.kinds[kind.id]
        if not isinstance(fname, A.Name) or fname.id not in k.fields or k.fields[fname.id].sparse:
            got = fname.id if isinstance(fname, A.Name) else "this"
            self.diag("RS105", f"a {kind.id} has no stored field '{got}' to find by", fname.span,
                      did_you_mean(got, list(k.fields)) or "its fields: " + ", ".join(k.fields), missing=(got,))
        return "set:" + CHECKER_TYPE.get(kind.id, kind.id)

    def instances_call(self, kind) -> str:
        """`instances(KIND)`: KIND names a kind of the world or of declarations, not a value."""
        got = kind.id if isinstance(kind, A.Name) else None
        # a kind of declarations (the language's, or a pack's catalogue kind: card) or of records
        if got is not None and (got in KINDS or got in self.world.kinds):
            return "set:" + CHECKER_TYPE.get(got, got)
        known = sorted(set(KINDS) | set(self.world.kinds))
        self.diag("RS105", f"instances(...) needs a kind, not '{got or 'this'}'", kind.span,
                  did_you_mean(got or "", known) or "kinds: " + ", ".join(known), missing=(got or "",))
        return "set:any"

    def e_Index(self, e, env):
        t = self.expr(e.obj, env)
        self.expr(e.index, env)
        return t[4:] if t.startswith("set:") else "any"

    def e_BinOp(self, e, env):
        if e.op in ("and", "or"):
            self.want(e.left, "bool", env)
            self.want(e.right, "bool", env)
            return "bool"
        lt, rt = self.expr(e.left, env), self.expr(e.right, env)
        if e.op == "|":
            return "cost"
        if "cost" in (lt, rt) or "symbol" in (lt, rt):
            if e.op in ("+", "*"):
                return "cost"
        if e.op == "+" and "str" in (lt, rt):       # texts join: "alliance." + a
            for side, t in ((e.left, lt), (e.right, rt)):
                if t in ("number", "bool", "cost") or t.startswith("set:"):
                    self.diag("RS106", f"'+' joins a text with texts or names, but this is {_words(t)}", side.span,
                              "join texts and the ids of things: \"alliance.\" + a")
            return "str"
        if e.op == "+" and lt.startswith("set:") and rt.startswith("set:"):
            return lt
        for side, t in ((e.left, lt), (e.right, rt)):
            if not _compatible(t, "number"):
                self.diag("RS106", f"'{e.op}' needs numbers, but this is {_words(t)}", side.span,
                          "arithmetic works on numbers (count(...), player.florins, city.value ...)")
        return "number"

    def e_Compare(self, e, env):
        lt, rt = self.expr(e.left, env), self.expr(e.right, env)
        if e.op in ("in", "not in"):
            if not (rt == "any" or rt.startswith("set:")):
                self.diag("RS106", f"'{e.op}' needs a set on its right, but this is {_words(rt)}", e.right.span,
                          "e.g. `c in player.cities`")
        elif e.op in ("<", "<=", ">", ">="):
            for side, t in ((e.left, lt), (e.right, rt)):
                if not _compatible(t, "number"):
                    self.diag("RS106", f"'{e.op}' compares numbers, but this is {_words(t)}", side.span, "")
        else:
            if not (_compatible(lt, rt) or _compatible(rt, lt) or "none" in (lt, rt)):
                self.diag("RS106", f"comparing {_words(lt)} with {_words(rt)} is always false", e.span,
                          "compare values of the same type")
        return "bool"

    def e_Not(self, e, env):
        self.want(e.operand, "bool", env)
        return "bool"

    def e_Neg(self, e, env):
        self.want(e.operand, "number", env)
        return "number"

    def e_CondExpr(self, e, env):
        self.want(e.cond, "bool", env)
        a, b = self.expr(e.then, env), self.expr(e.else_, env)
        return a if a == b else ("any" if "any" in (a, b) else a if b == "none" else b if a == "none" else "any")

    def e_ListExpr(self, e, env):
        types = {self.expr(i, env) for i in e.items}
        return "set:" + (types.pop() if len(types) == 1 else "any")

    def e_Comprehension(self, e, env):
        it = self.expr(e.iter, env)
        if it != "any" and not it.startswith("set:"):
            self.diag("RS106", f"`for {e.var} in ...` needs a set of things, but this is {_words(it)}", e.iter.span, "")
        inner = dict(env)
        inner[e.var] = it[4:] if it.startswith("set:") else "any"
        if e.cond is not None:
            self.want(e.cond, "bool", inner)
        return "set:" + self.expr(e.elem, inner)


def _words(t: str) -> str:
    if t is None:
        return "anything"
    if t.startswith("set:"):
        return f"a set of {t[4:]}s" if t[4:] != "any" else "a set"
    if t.endswith("?"):
        return f"a {t[:-1]} or none"
    return {"number": "a number", "bool": "true/false", "str": "a text", "cost": "a cost",
            "none": "none", "any": "anything", "int": "a whole number"}.get(t, f"a {t}")


def param_types(params) -> dict:
    """The checker's types of declared parameters (`p: side` is a 'player')."""
    return {p.name: CHECKER_TYPE.get(p.type, p.type) if p.type else "any" for p in params}


def _empty_words(v) -> str:
    if v is None or v is False:
        return str(v).lower()
    return '""' if v == "" else "[]" if isinstance(v, list) else "empty" if isinstance(v, dict) else str(v)


def _type_hint(expected: str) -> str:
    return {"bool": "a condition such as `x > 2`, `c.controller == player`, `a and b`",
            "number": "a number or a formula such as `count(...)`, `city.value + 1`",
            "player": "a player, e.g. `player` or a variable bound by `choose p in players`"}.get(expected, "")


def catalogue_type(ftype: str) -> str:
    """The checker's type of `x.F` for a field F of a catalogue kind (a cost is a cost)."""
    return "cost" if ftype == "cost" else _value_type(ftype)


def _value_type(ftype: str) -> str:
    """The checker's type of a declared value of a field of type `ftype` (a kinds.py type)."""
    if ftype in ("int", "number", "expr:number", "expr:int"):
        return "number"
    if ftype in ("bool", "expr:bool", "str"):
        return ftype.removeprefix("expr:")
    if ftype.startswith("enum:"):
        return "str"
    if ftype.startswith("ref:"):
        return CHECKER_TYPE.get(ftype[4:], ftype[4:])
    if ftype.startswith("list:"):
        inner = _value_type(ftype[5:])
        return "set:" + inner
    return "any"


def _kind_span(decl: Decl) -> Span:
    return decl.span


_NAME = re.compile(r"[a-z][a-z0-9_]*")

# the keys the `pay` statement can give an event declared `emitted_by: pay`
PAY_EVENT_KEYS = ("side", "paid", "total", "within")


def _plain(v):
    return v.id if isinstance(v, A.Name) else v.value if isinstance(v, A.Str) else v


def event_keys(decl) -> list:
    """The declared keys of an `event` declaration, in order (plain names)."""
    fv = decl.fields.get("keys")
    v = fv.value if fv is not None else None
    items = v.items if isinstance(v, A.ListExpr) else v if isinstance(v, list) else []
    return [str(_plain(i)) for i in items if isinstance(_plain(i), str)]


def references_of(pack: Pack, decls) -> set:
    """The (kind, id) pairs that `decls` refer to, checked against `pack` (their own findings are
    dropped): what a declaration removed by an overlay used (validator.static, RS202)."""
    c = Checker(pack)
    with limits.deep_recursion():
        for decl in decls:
            spec = c.kinds.get(decl.kind)
            if spec is not None:
                c.check_decl(decl, spec)
    return c.referenced


def check_pack(pack: Pack) -> tuple[list[Diagnostic], set]:
    """Type- and reference-check a resolved pack: (diagnostics, referenced (kind, id) pairs)."""
    c = Checker(pack)
    with limits.deep_recursion():       # nested expressions: a few Python frames per level
        out = c.run()
    return out + check_flow(pack) + check_map_use(pack), c.referenced
