"""The world a pack declares: its kinds of thing, the fields each keeps, records, zones, enums.

`build_world(pack)` resolves the `kind`, `field`, `record`, `zone` and `enum` declarations (and
the older `player_var`, a sparse field of the players' kind) into a `World`: for every kind its
fields in declaration order, with their types, defaults and store keys. The checker types
`x.NAME` through it, and the interpreter reads and writes the state through its store keys
(interpreter/world_store.py). Nothing here names a thing of a particular game: every name comes
from the pack. Two kinds exist without a declaration because the language has them: `side` (the
kind of `player`, whose records are `state["p"]`) and `game` (fields of the game itself).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import ast as A
from .errors import Diagnostic, Span, did_you_mean, source_line_at
from .kinds import KINDS
from .catalogue import declaration_fields
from .vocabulary import ATTRIBUTES

SIDE, GAME = "side", "game"
# the checker's name for values of a kind, where it differs from the kind's (a side is a 'player')
CHECKER_TYPE = {SIDE: "player"}
KIND_OF_TYPE = {v: k for k, v in CHECKER_TYPE.items()}
SCALARS = {"int": "number", "number": "number", "bool": "bool", "str": "str", "any": "any"}
# where the instances of a kind come from (`kind K { instances: ... }`)
INSTANCES = ("map.cities", "map.seas", "catalogue", "setup.colours", "list")
# the stored state of the built-in kinds, before a pack declares it (where their records live)
BUILTIN_STORE = {SIDE: "p"}

# Built-in attributes that read a stored field of the same name: a pack's World may declare that
# field (it describes the state the attribute reads) without clashing with the attribute. Each
# entry leaves when its attribute leaves the vocabulary (docs/design/world-model-plan.md, §4).
READS_A_FIELD: set = set()


@dataclass
class FieldType:
    """A parsed field type. shape: 'scalar' | 'ref' | 'list' | 'count' | 'map' | 'index'."""
    shape: str
    name: str = ""                  # scalar or kind name; for count/map: the key kind; index: the list field
    optional: bool = False
    of: "FieldType | None" = None   # list items, map values
    enum: bool = False              # a ref to an `enum`: its values are names (texts)

    def checker(self) -> str:
        """The checker's type for values of this field (rulespec.checker)."""
        if self.shape == "scalar":
            t = SCALARS.get(self.name, "any")
        elif self.shape == "ref":
            t = "str" if self.enum else CHECKER_TYPE.get(self.name, self.name)
        elif self.shape == "list":
            return "set:" + self.of.checker().rstrip("?")
        elif self.shape == "index" and self.of is not None:
            return self.of.checker().rstrip("?") + "?"      # a record of the list, or none
        else:
            return "any"
        return t + "?" if self.optional and t != "any" else t

    def empty(self):
        """The value of the field when nothing is given."""
        if self.shape == "list":
            return []
        if self.shape in ("count", "map"):
            return {}
        if self.optional or self.shape in ("ref", "index"):
            return None
        return {"int": 0, "number": 0, "bool": False, "str": ""}.get(self.name)

    def __str__(self):
        if self.shape == "list":
            return f"list of {self.of}"
        if self.shape == "count":
            return f"count by {self.name}"
        if self.shape == "map":
            return f"map {self.name} to {self.of}"
        if self.shape == "index":
            return f"index of {self.name}"
        return self.name + ("?" if self.optional else "")


@dataclass
class FieldDef:
    name: str
    owner: str                  # the kind (or record type, or `game`) that keeps it
    type: FieldType
    default: object             # an AST expression, a plain YAML value, or None (the type's empty value)
    key: str                    # the key it is stored under
    span: Span
    sparse: bool = False        # stored only once set (player_var: the side's `vars` map)
    home: str = ""              # a sparse field's home inside the record ('vars'), '' for the record itself
    minimum: object = None      # `set` clamps to it
    setup: str = ""             # setup.yaml key of its starting value
    doc: str = ""
    decl: object = None
    holds: bool = False         # `@holds`: a holder field of a record: the one place of the thing it names
    entry: bool = False         # `@entry`: a record field that belongs to the thing held (reset when it moves)
    owned: bool = False         # `@owned`: what this holder field holds belongs to the side whose record it is
    on_map: str = ""            # `@map` / `@map("k")`: read from the instance's map.yaml entry, never stored
    # `@printed` / `@printed("k")`: printed on the side's board: read from the declaration that
    # lays out the side's records (a side's field: that declaration's `k`; a field of a record of
    # a side's list: the `k` of the declaration's sub-block at the record's index), never stored
    on_board: str = ""


@dataclass
class KindDef:
    name: str
    store: str                  # key of the state holding the records ('' for a catalogue kind)
    plural: str = ""
    owner: str = ""
    record: bool = True
    span: Span | None = None
    instances: str = ""         # where its instances come from (INSTANCES), '' if not said
    fields: dict = field(default_factory=dict)      # name -> FieldDef, in declaration order
    decl_fields: tuple = ()     # a catalogue kind: the fields its declarations give (rulespec.catalogue)
    # its fields and zones together, in declaration order: [(name, is_zone)] (a zone's stored
    # list takes its place among the record's keys by it: interpreter/state.py)
    members: list = field(default_factory=list)


@dataclass
class ZoneDef:
    name: str
    key: str
    of: tuple = ()
    owner: str = ""             # '' : the game's; else the kind of its owners
    shape: str = "list"         # 'list' | 'entries' (records {id, entry fields}) | 'grouped' | 'counted'
    store: str = ""             # where it is kept: GAME_ZONES for the game's, else its owners' store
    entry: dict = field(default_factory=dict)       # entry field name -> FieldDef
    span: Span | None = None
    decl: object = None
    ordered: bool = False       # a stack: position 0 is the top
    grouped: bool = False       # piles of copies by catalogue id: {id: [instances]}
    sorted: bool = False        # kept sorted: a thing put back goes to its place
    counted: bool = False       # a pile of identical things, stored as a number
    owned: bool = False         # `owned: true`: what it holds belongs to the side whose zone it is


@dataclass(frozen=True)
class OwnedPlace:
    """A place where a side's things are (World.owned_places): a list of records of the side
    whose `@owned` holder fields hold them (`holders`: (stored key, kind of thing) in the
    record's order), or a zone the side owns declared `owned: true` (`entries`: its entries are
    records keeping the thing under "id"). `of`: the kinds of thing it can hold."""
    name: str
    key: str                    # the side's stored key (a list of records, or the zone)
    holders: tuple = ()         # ((stored key, kind), ...) of the records' owned holder fields
    entries: bool = False
    of: tuple = ()


@dataclass
class World:
    kinds: dict = field(default_factory=dict)       # kind name -> KindDef (with `game` and `side`)
    records: dict = field(default_factory=dict)     # record type -> KindDef (store '')
    zones: dict = field(default_factory=dict)       # zone id -> ZoneDef
    enums: dict = field(default_factory=dict)       # enum id -> [values]
    diagnostics: list = field(default_factory=list)

    def stored_kinds(self) -> list:
        """(kind name, store) of the kinds with records of their own but the sides (`city`,
        `track`...), in the World's order: the things an id names a record of (Runtime.type_name,
        `shuffle(OWNER.LIST)`)."""
        return [(k.name, k.store) for k in self.kinds.values() if k.store and k.name not in (SIDE, GAME)]

    def kind_of(self, checker_type: str) -> KindDef | None:
        """The kind (or record type) whose values the checker types `checker_type` ('player'...)."""
        name = KIND_OF_TYPE.get(checker_type, checker_type)
        return self.kinds.get(name) or self.records.get(name)

    def field(self, checker_type: str, name: str) -> FieldDef | None:
        k = self.kind_of(checker_type.rstrip("?")) if checker_type else None
        if k is None:
            return None
        return k.fields.get(name) or self.zone_field(k, name)

    def zone_field(self, kind: KindDef, name: str) -> FieldDef | None:
        """A zone each `kind` owns (`zone unplaced { owner: side }`), read `x.unplaced`: the
        things in it, in order (a list in the owner's record, absent while never filled)."""
        z = self.zones.get(name)
        if z is None or z.owner != kind.name or not kind.store or z.entry:
            return None
        return FieldDef(name, kind.name, FieldType("list", of=FieldType("scalar", "any")), None, z.key,
                        z.span, sparse=True, decl=z.decl)

    def entry_field(self, checker_type: str, name: str):
        """The entry field `name` a thing of that type keeps where it is (rulespec/world.py zones'
        `entry`, records' `@entry` fields beside a holder of that type), or None."""
        t = KIND_OF_TYPE.get(checker_type.rstrip("?"), checker_type.rstrip("?"))
        for z in self.zones.values():
            if name in z.entry and t in z.of:
                return z.entry[name]
        for r in self.records.values():
            f = r.fields.get(name)
            if f is not None and f.entry and any(h.holds and h.type.name == t for h in r.fields.values()):
                return f
        return None

    def owned_places(self) -> list:
        """The places where a side's things are (OwnedPlace), in the order the side's fields and
        zones are declared (a list of records: at the place of its field; within each record,
        its `@owned` holder fields in the record's order)."""
        side = self.kinds.get(SIDE)
        out = []
        for name, is_zone in (side.members if side is not None else ()):
            if is_zone:
                z = self.zones[name]
                if z.owned and z.owner == SIDE and z.shape in ("list", "entries"):
                    out.append(OwnedPlace(name, z.key, entries=z.shape == "entries", of=z.of))
                continue
            f = side.fields[name]
            rec = self.records.get(f.type.of.name) if f.type.shape == "list" and f.type.of is not None else None
            if rec is None or f.sparse:
                continue
            holders = tuple((h.key, h.type.name) for h in rec.fields.values() if h.owned and h.holds)
            if holders:
                out.append(OwnedPlace(name, f.key, holders, of=tuple(dict.fromkeys(k for _, k in holders))))
        return out

    def names_on(self, checker_type: str) -> list:
        k = self.kind_of(checker_type.rstrip("?"))
        return list(k.fields) + [z.name for z in self.zones.values() if k is not None and z.owner == k.name] \
            if k is not None else []

    def record_lists(self) -> dict:
        """record type -> (kind, field) of the list field that holds the records of that type
        (`field rooms: list of room on side`): a record of a list is referred to as
        "OWNER.RECORDn" (`red.room2`, the record at index 2 of red's `rooms`), see
        interpreter/world_store.py. The first such field declared wins."""
        out = {}
        for k in self.kinds.values():
            for f in k.fields.values():
                if f.type.shape == "list" and f.type.of is not None and f.type.of.shape == "ref" \
                        and f.type.of.name in self.records and k.store and not f.sparse:
                    out.setdefault(f.type.of.name, (k, f))
        return out

    def zone_on(self, checker_type: str, name: str) -> ZoneDef | None:
        """The zone `name` each value of `checker_type` owns (read `x.NAME`), or None."""
        z = self.zones.get(name)
        if z is None or not z.owner or not checker_type:
            return None
        return z if KIND_OF_TYPE.get(checker_type.rstrip("?"), checker_type.rstrip("?")) == z.owner else None

    def plural_kind(self, name: str) -> KindDef | None:
        """The kind with stored records whose plural is `name` (`kind alliance { plural:
        alliances }`, `cities`, the built-in `sides`): a bare name in the rules for every record of
        the kind, in their stored order (instances(KIND))."""
        return next((k for k in self.kinds.values() if k.store and k.plural == name and k.name != GAME), None)

    def game_zone(self, name: str) -> ZoneDef | None:
        """The zone `name` of the game itself (`owner: none`, kept under state["supply"]), read
        by its bare name, or None."""
        z = self.zones.get(name)
        return z if z is not None and not z.owner else None


# where the zones of the game itself (`owner: none`) are stored: state[GAME_ZONES][key]
GAME_ZONES = "supply"


def zone_type(z: ZoneDef) -> str:
    """The checker's type of a zone's contents: a number for a counted pile, else the things."""
    if z.shape == "counted":
        return "number"
    return "set:" + CHECKER_TYPE.get(z.of[0], z.of[0]) if len(z.of) == 1 else "set:any"


# ------------------------------------------------------------------------------ type parsing
_TYPE = re.compile(r"""\s*(?:
    list\s+of\s+(?P<list>.+)
  | count\s+by\s+(?P<count>[a-z][a-z0-9_]*)
  | map\s+(?P<mapk>[a-z][a-z0-9_]*)\s+to\s+(?P<mapv>.+)
  | index\s+of\s+(?P<index>[a-z][a-z0-9_]*)
  | (?P<name>[a-z][a-z0-9_]*)(?P<opt>\?)?
)\s*$""", re.X)


def parse_type(text: str) -> FieldType | None:
    """'side?' -> ref side optional; 'list of city'; 'count by side'; 'map str to any'; None if not a type."""
    m = _TYPE.fullmatch(text or "")
    if m is None:
        return None
    if m["list"]:
        inner = parse_type(m["list"])
        return FieldType("list", of=inner) if inner else None
    if m["count"]:
        return FieldType("count", m["count"])
    if m["mapk"]:
        inner = parse_type(m["mapv"])
        return FieldType("map", m["mapk"], of=inner) if inner else None
    if m["index"]:
        return FieldType("index", m["index"])
    n = m["name"]
    return FieldType("scalar" if n in SCALARS else "ref", n, bool(m["opt"]))


def type_text(v) -> str | None:
    """The text of a `type:` value: a name (`type: bool`) or a string (`type: "side?"`)."""
    if isinstance(v, A.Name):
        return v.id
    if isinstance(v, A.Str):
        return v.value
    if isinstance(v, str):
        return v
    return None


def names_of(v) -> list:
    """[(name, span)] of a value naming kinds: `city`, `[card, tile]`, "city" (YAML)."""
    if isinstance(v, A.ListExpr):
        return [x for i in v.items for x in names_of(i)]
    if isinstance(v, A.Name):
        return [(v.id, v.span)]
    if isinstance(v, A.Str):
        return [(v.value, v.span)]
    if isinstance(v, A.NoneLit):
        return [("none", v.span)]
    if isinstance(v, str):
        return [(v, None)]
    if isinstance(v, list):
        return [x for i in v for x in names_of(i)]
    return []


def _plain(d, name, default=None):
    """A plain field value (a name, text, number or bool) of a declaration, or of an annotation
    of the same name (`@key("trophies")`)."""
    fv = d.fields.get(name)
    if fv is not None:
        v = fv.value
        if isinstance(v, A.Name):
            return v.id
        if isinstance(v, A.Attr) and isinstance(v.obj, A.Name):
            return f"{v.obj.id}.{v.name}"
        if isinstance(v, A.Neg) and isinstance(v.operand, A.Num):
            return -v.operand.value
        return getattr(v, "value", v)
    for a in getattr(d, "annotations", ()):
        if a.name == name:
            t = a.text
            try:
                return int(t) if name == "min" else t
            except ValueError:
                return t
    return default


def _annotation_span(d, name):
    """Where the annotation `@name` of a declaration is written, or None."""
    return next((a.span for a in getattr(d, "annotations", ()) if a.name == name), None)


def _flag(d, name) -> bool:
    """A yes/no setting: `name: true` or the annotation `@name`."""
    fv = d.fields.get(name)
    if fv is not None:
        return getattr(fv.value, "value", fv.value) is True
    return any(a.name == name for a in getattr(d, "annotations", ()))


# ------------------------------------------------------------------------------ building
class _Builder:
    def __init__(self, pack):
        self.pack = pack
        self.world = World()
        self.out = self.world.diagnostics

    def diag(self, code, msg, span, hint="", missing=()):
        self.out.append(Diagnostic(code, msg, span, hint, "error",
                                   source_line_at(span.file, span.line) if span else "", missing=tuple(missing)))

    def build(self) -> World:
        w = self.world
        w.kinds[SIDE] = KindDef(SIDE, BUILTIN_STORE[SIDE], "sides")
        w.kinds[GAME] = KindDef(GAME, "", "")
        decls = self.pack.decls.values()
        for d in decls:
            if d.kind == "kind":
                self.kind(d)
            elif d.kind == "enum":
                w.enums[str(d.id)] = [n for n, _ in names_of(d.get("values"))]
        for d in decls:
            if d.kind == "record":
                self.record(d)
        for d in decls:
            if d.kind == "field":
                self.field_decl(d)
            elif d.kind == "player_var":
                self.player_var(d)
            elif d.kind == "zone":
                self.zone(d)
        for k in list(w.kinds.values()):
            for f in k.fields.values():
                if f.type.shape == "index":
                    self.index_field(k, f)
        for d in decls:
            if d.kind == "symbol" and "treasury" in d.fields:
                self.treasury(d)
        self.owned_marks()
        return w

    def owned_marks(self):
        """`@owned` marks a holder field of a record kept in a list of the sides, and `owned: true`
        a zone each side owns that holds things one by one (World.owned_places): anywhere else
        who owns the thing is unknown, RS106."""
        w = self.world
        kept = {f.type.of.name for f in w.kinds[SIDE].fields.values()
                if f.type.shape == "list" and f.type.of is not None and not f.sparse}
        where = ([(k, f, False) for k in w.kinds.values() for f in k.fields.values()] +
                 [(r, f, True) for r in w.records.values() for f in r.fields.values()] +
                 [(z, f, False) for z in w.zones.values() for f in z.entry.values()])
        for owner, f, in_record in where:
            if not f.owned:
                continue
            span = _annotation_span(f.decl, "owned") or f.span
            if not in_record:
                self.diag("RS106", f"`@owned` marks a holder field of a record; '{f.name}' of {owner.name} is not one",
                          span, "declare the place in a `record` kept in a list of the sides (`field card: card? "
                                "@holds @owned`), or a zone of the sides with `owned: true`")
            elif not f.holds:
                self.diag("RS106", f"field '{f.name}' of record {owner.name} is `@owned` but holds no thing", span,
                          "mark it `@holds @owned` (what it holds is then its side's), or drop `@owned`")
            elif owner.name not in kept:
                self.diag("RS106", f"record {owner.name} is kept in no list of the sides: whose is what its field "
                                   f"'{f.name}' holds is unknown", span,
                          f"keep its records in a side's field (`field NAME: list of {owner.name} on side`), "
                          "or drop `@owned`")
        for z in w.zones.values():
            if not z.owned:
                continue
            fv = z.decl.fields.get("owned") if z.decl is not None else None
            span = (getattr(fv.value, "span", None) or fv.span) if fv is not None else \
                _annotation_span(z.decl, "owned") or z.span
            if z.owner != SIDE:
                self.diag("RS106", f"zone '{z.name}' is `owned` but is not a zone of the sides", span,
                          "`owned: true` says that what a side's zone holds is the side's: give it `owner: side`, "
                          "or drop `owned`")
            elif z.shape not in ("list", "entries"):
                self.diag("RS106", f"zone '{z.name}' is `owned` but keeps no things one by one ({z.shape})", span,
                          "only a zone of single things (not `counted`, not `grouped`) can say what a side owns")

    def treasury(self, d):
        """A symbol's `treasury:` names a whole-number field of the sides."""
        fv = d.fields["treasury"]
        name = _plain(d, "treasury")
        side = self.world.kinds[SIDE]
        f = side.fields.get(name) if isinstance(name, str) else None
        if f is None or f.type.shape != "scalar" or f.type.name != "int":
            ints = [g.name for g in side.fields.values() if g.type.shape == "scalar" and g.type.name == "int"]
            self.diag("RS105", f"the treasury of symbol '{d.id}' must be a whole-number field of the sides, "
                               f"not '{name}'", getattr(fv.value, "span", fv.span),
                      did_you_mean(str(name), ints) or (f"declare it: `field {name}: int = 0 on side`"),
                      missing=(str(name),))

    def index_field(self, kind: KindDef, f: FieldDef):
        """`index of rooms`: an index into a list of records of the same kind; its values are
        those records (`red.room2`), stored as the index (an int) or none."""
        lst = kind.fields.get(f.type.name)
        if lst is None or lst.type.shape != "list" or lst.type.of is None or lst.type.of.name not in self.world.records:
            lists = [g.name for g in kind.fields.values() if g.type.shape == "list" and g.type.of is not None
                     and g.type.of.name in self.world.records]
            self.diag("RS105", f"field '{f.name}' is an index of '{f.type.name}', which is not a list of records "
                               f"of {kind.name}", f.span,
                      did_you_mean(f.type.name, lists) or ("lists of records: " + ", ".join(lists) if lists else
                                                           f"declare it: `field {f.type.name}: list of RECORD on {kind.name}`"),
                      missing=(f.type.name,))
            return
        f.type.of = FieldType("ref", lst.type.of.name, optional=True)

    def kind(self, d):
        name = str(d.id)
        if name == GAME:
            self.diag("RS101", "'game' is the kind of the game's own fields: it cannot be declared",
                      d.id_span or d.span, "give the kind another name; declare fields of the game with `on: game`")
            return
        inst = _plain(d, "instances")
        if inst is not None and inst not in INSTANCES:
            fv = d.fields["instances"]
            self.diag("RS109", f"'{inst}' is not where instances come from", getattr(fv.value, "span", fv.span),
                      (did_you_mean(str(inst), INSTANCES) + " " if did_you_mean(str(inst), INSTANCES) else "")
                      + "expected one of: " + ", ".join(INSTANCES))
        plural = _plain(d, "plural") or name + "s"
        store = _plain(d, "store") or (BUILTIN_STORE.get(name) or plural)
        record = _plain(d, "record", True) is not False
        self.world.kinds[name] = KindDef(name, store if record else "", plural, _plain(d, "owner") or "",
                                         record, d.id_span or d.span, instances=str(inst or ""),
                                         decl_fields=declaration_fields(d))

    def record(self, d):
        name = str(d.id)
        if name in self.world.kinds:
            self.diag("RS101", f"'{name}' is a kind already; a record type needs a name of its own",
                      d.id_span or d.span, "rename the record")
            return
        rec = self.world.records[name] = KindDef(name, "", name + "s", span=d.id_span or d.span)
        for (bkind, key), sub in d.blocks.items():
            if bkind == "field":
                self.add(rec, self.field_def(sub, str(key), name, sub.span))

    def player_var(self, d):
        """`player_var X { default: v }`: a sparse field of the sides, in their `vars` map."""
        fv = d.fields.get("default")
        f = FieldDef(str(d.id), SIDE, FieldType("scalar", "any"), fv.value if fv else None, str(d.id),
                     d.id_span or d.span, sparse=True, home="vars", decl=d)
        self.add(self.world.kinds[SIDE], f)

    def field_decl(self, d):
        fv = d.fields.get("on")
        if fv is None:
            return          # the checker reports the missing `on:` (RS104)
        targets = names_of(fv.value)
        if not targets:
            self.diag("RS106", "`on:` names the kind(s) that keep the field", fv.span,
                      "write `on: city` or `on: [city, alliance]`")
        known = list(self.world.kinds)
        for kname, span in targets:
            kind = self.world.kinds.get(kname)
            if kind is None:
                hint = did_you_mean(kname, known) or "declared kinds: " + ", ".join(sorted(known))
                if kname in self.world.records:
                    hint = f"'{kname}' is a record type: declare its fields inside `record {kname} {{ ... }}`"
                elif kname in KINDS or kname in ATTRIBUTES:
                    hint = (f"declare the kind first: `kind {kname} {{ }}`" +
                            (f" ({did_you_mean(kname, known)})" if did_you_mean(kname, known) else ""))
                self.diag("RS105", f"no kind named '{kname}' for field '{d.id}'", span or fv.span, hint,
                          missing=(kname,))
                continue
            self.add(kind, self.field_def(d, str(d.id), kname, d.id_span or d.span))

    def field_def(self, d, name, owner, span) -> FieldDef | None:
        tv = d.fields.get("type")
        if tv is None:
            return None     # RS104 from the checker
        text = type_text(tv.value)
        ft = parse_type(text) if text is not None else None
        if ft is None:
            self.diag("RS106", f"'{text if text is not None else tv.value}' is not a field type", tv.span,
                      "write int, number, bool, str, any, a kind (city, side), `side?`, `list of city`, "
                      "`count by side`, `map str to any` or `index of rooms`")
            return None
        for ref in self._refs(ft):
            if ref not in self.world.kinds and ref not in self.world.records and ref not in self.world.enums \
                    and ref not in KINDS and ref not in ATTRIBUTES and ref not in SCALARS:
                known = list(self.world.kinds) + list(self.world.records) + list(self.world.enums) + list(SCALARS)
                self.diag("RS105", f"unknown type '{ref}' for field '{name}'", tv.span,
                          did_you_mean(ref, known) or "types: int, number, bool, str, any, or a kind: " +
                          ", ".join(sorted(self.world.kinds)), missing=(ref,))
                return None
        self._mark_enums(ft)
        dv = d.fields.get("default")
        minimum = _plain(d, "min")
        return FieldDef(name, owner, ft, dv.value if dv is not None else None, str(_plain(d, "key") or name), span,
                        sparse=bool(_plain(d, "sparse", False)), minimum=minimum,
                        setup=str(_plain(d, "setup") or ""), doc=d.title, decl=d,
                        holds=_flag(d, "holds"), entry=_flag(d, "entry"), owned=_flag(d, "owned"),
                        on_map=str(_plain(d, "map") or name) if _flag(d, "map") else "",
                        on_board=str(_plain(d, "printed") or name) if _flag(d, "printed") else "")

    def _mark_enums(self, ft: FieldType | None):
        while ft is not None:
            if ft.shape == "ref" and ft.name in self.world.enums:
                ft.enum = True
            ft = ft.of

    @staticmethod
    def _refs(ft: FieldType) -> list:
        if ft.shape == "ref":
            return [ft.name]
        if ft.shape == "count":
            return [ft.name]
        if ft.shape in ("list", "map"):
            return ([ft.name] if ft.shape == "map" else []) + _Builder._refs(ft.of)
        return []

    def add(self, kind: KindDef, f: FieldDef | None):
        if f is None:
            return
        old = kind.fields.get(f.name)
        if old is not None:
            self.diag("RS101", f"field '{f.name}' is declared twice on {kind.name}", f.span,
                      f"first declared at {old.span}; keep one")
            return
        clash = next((o for o in kind.fields.values() if o.key == f.key and o.home == f.home), None)
        if clash is not None:
            self.diag("RS101", f"fields '{clash.name}' and '{f.name}' of {kind.name} are both stored as '{f.key}'",
                      f.span, f"give one of them another `key:` (first at {clash.span})")
            return
        ctype = CHECKER_TYPE.get(kind.name, kind.name)
        builtin = ATTRIBUTES.get(ctype, {})
        if f.name in builtin and (ctype, f.name) not in READS_A_FIELD:
            self.diag("RS101", f"'{f.name}' is a built-in attribute of every {kind.name} ({builtin[f.name][1] or builtin[f.name][0]})",
                      f.span, f"name the field otherwise, e.g. '{kind.name}_{f.name}' or 'my_{f.name}'; "
                              f"`x.{f.name}` keeps its built-in meaning")
            return
        spec = KINDS.get(kind.name)
        if (spec is not None and f.name in spec.fields or f.name in kind.decl_fields) and kind.name not in (SIDE, GAME):
            self.diag("RS101", f"'{f.name}' is a field of every {kind.name} declaration already", f.span,
                      f"name the field otherwise (the declaration's `{f.name}:` is read as `x.{f.name}`)")
            return
        kind.fields[f.name] = f
        kind.members.append((f.name, False))

    def zone(self, d):
        name = str(d.id)
        owners = names_of(d.get("owner"))
        owner = owners[0][0] if owners else "none"
        if owner != "none" and owner not in self.world.kinds:
            fv = d.fields["owner"]
            self.diag("RS105", f"no kind named '{owner}' owns zones", owners[0][1] or fv.span,
                      did_you_mean(owner, list(self.world.kinds)) or "write `owner: none` for the game's own zone",
                      missing=(owner,))
            owner = "none"
        z = ZoneDef(name, str(_plain(d, "key") or name), tuple(n for n, _ in names_of(d.get("of"))),
                    "" if owner == "none" else owner, span=d.id_span or d.span, decl=d,
                    ordered=_flag(d, "ordered"), grouped=_plain(d, "grouped") is not None,
                    sorted=_flag(d, "sorted"), counted=_flag(d, "counted"), owned=_flag(d, "owned"))
        entry = d.blocks.get(("entry", None))
        if entry is not None:
            for (bkind, key), sub in entry.blocks.items():
                if bkind == "field":
                    f = self.field_def(sub, str(key), name, sub.span)
                    if f is not None:
                        z.entry[f.name] = f
        z.store = self.world.kinds[z.owner].store if z.owner else GAME_ZONES
        z.shape = ("counted" if _plain(d, "counted", False) is True else
                   "grouped" if _plain(d, "grouped") else "entries" if z.entry else "list")
        self.world.zones[name] = z
        if z.owner:
            self.world.kinds[z.owner].members.append((name, True))


def build_world(pack) -> World:
    """The World of a resolved pack, with its findings in `world.diagnostics`."""
    return _Builder(pack).build()
