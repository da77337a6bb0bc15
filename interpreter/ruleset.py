"""A pack compiled for play: every formula, cost and effect turned into callables and blocks,
every catalogue (cards, tiles, alliances, tracks, palaces) into plain lookup tables.

Built once per pack (`Ruleset.build(pack)`), shared by all games of that pack.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from rulespec import ast as A
from rulespec import flow, limits
from rulespec.checker import Checker, param_types
from rulespec.errors import Diagnostic, RulespecError, source_line_at
from rulespec.kinds import KINDS, SPACE
from rulespec.kinds import _common as DOC_FIELDS
from rulespec.pack import Decl, Pack
from rulespec.prompts import literal_values
from rulespec.world import GAME, SIDE

from . import codecache, costs, world_store
from .compiler import Compiler, Program


@dataclass
class Callable_:
    """An action or procedure: parameters with default formulas, optional cost, effect block."""
    id: str
    params: list            # [(name, default_fn or None)]
    cost: object            # fn or None
    effect: int             # block index
    requires: object        # fn or None
    decl: Decl
    provides: dict = None   # symbols a during-payment procedure can add
    during_payment: object = None   # fn: when it is offered during a payment
    reports_caller: bool = False    # `@reports_caller`: its account lines end with where it was called


def _names_in(node) -> set:
    """Every Name used in an expression (for dependency analysis)."""
    return {n.id for n in A.walk(node) if isinstance(n, A.Name)}


def _literal(v):
    """A constant AST value as plain data: lists nest, names become their id."""
    if isinstance(v, A.ListExpr):
        return [_literal(i) for i in v.items]
    if isinstance(v, A.Name):
        return v.id
    if isinstance(v, A.Neg) and isinstance(v.operand, A.Num):
        return -v.operand.value
    if isinstance(v, A.NoneLit):
        return None
    return getattr(v, "value", None)


def _const(v):
    """fn(rt, env) of a value the pack gives as it is (YAML, a default), marked `constant` as
    Compiler.expr marks a literal's."""
    f = lambda rt, env: v      # noqa: E731
    f.constant = v
    return f


def _kinds_of(catalogue: dict) -> frozenset:
    return frozenset(catalogue) | {it["type"] for it in catalogue.values() if it.get("type") is not None}


def _walker(steps):
    """The function listing a side's things at `steps` (Ruleset.owned_walks): each step one
    comprehension over the side's stored list, the first one making the list. The stored keys
    are written as Python literals (repr), the catalogues passed as names."""
    from .state import type_of
    ns = {"type_of": type_of}
    lines = ["def walk(pl):"]
    for i, (key, holders, entries, catalogue) in enumerate(steps):
        cat = f"_c{i}"
        ns[cat] = catalogue
        if holders is not None:         # a list of records: what their owned holder fields hold
            x = f"r[{holders[0]!r}]" if len(holders) == 1 else "r[h]"
            loops = "for r in got" + (f" for h in {tuple(holders)!r}" if len(holders) > 1 else "")
            test = f"{x} and type_of({x}) in {cat}" if catalogue is not None else x
        elif entries:                   # records keeping the thing under "id"
            x, loops = "e['id']", "for e in got"
            test = f"type_of(e['id']) in {cat}" if catalogue is not None else ""
        else:
            x, loops = "x", "for x in got"
            test = f"x.__class__ is str and type_of(x) in {cat}" if catalogue is not None else ""
        got = f"[{x} {loops}{' if ' + test if test else ''}]" if test or entries or holders else "list(got)"
        lines.append(f"    got = pl.get({key!r})")
        lines.append(f"    out = {got} if got else []" if i == 0 else f"    if got: out += {got}")
    lines.append("    return out" if steps else "    return []")
    exec(compile("\n".join(lines), "<rulespec owned places>", "exec"), ns)
    return ns["walk"]


@dataclass
class PaymentSource:
    """A compiled `source` declaration (Runtime.payment_sources, Runtime.tap)."""
    id: str
    param: str              # the name its fields give the thing or record that pays
    entries: object         # fn(rt, env) -> [[label, symbols, thing or record], ...]
    tap: int                # the block of its `tap` effect (locals: player, param, symbol)
    first: bool
    decl: Decl


@dataclass
class Ruleset:
    pack: Pack
    program: Program
    names: dict
    actions: dict = field(default_factory=dict)
    procedures: dict = field(default_factory=dict)
    cards: dict = field(default_factory=dict)       # card type id -> dict
    tiles: dict = field(default_factory=dict)       # tile type id -> dict
    symbols: dict = field(default_factory=dict)
    tracks: dict = field(default_factory=dict)
    # side id -> its board: the declaration that lays out its records, and the symbols printed on
    # each sub-block, by record type (Ruleset._board)
    boards: dict = field(default_factory=dict)
    printed_values: dict = field(default_factory=dict)     # (record type, key, ref or side) -> value (cache)
    war_bonuses: dict = field(default_factory=dict)
    abilities: dict = field(default_factory=dict)
    scoring: list = field(default_factory=list)
    end_conditions: list = field(default_factory=list)
    constraints: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    phases: dict = field(default_factory=dict)
    game: dict = field(default_factory=dict)
    decls: dict = field(default_factory=dict)
    items: dict = field(default_factory=dict)      # card/tile instance id -> catalogue entry (cache)
    instances: dict = field(default_factory=dict)  # kind -> its instances, in order (cache: Runtime.f_instances)
    zones: list = field(default_factory=list)      # [(ZoneDef, ZoneRead, initial fn or None)], declaration order
    payment_procedures: list = field(default_factory=list)   # offered as moves while paying
    # the pack's payment sources, in declaration order (Ruleset._source): [PaymentSource]
    sources: list = field(default_factory=list)
    first_labels: frozenset = frozenset()       # the labels of the `first: true` sources
    symbols_fields: frozenset = frozenset()     # (catalogue kind, field) of the fields of type `symbols`
    # effect block -> the action or procedure it is the effect of (what is being run, for a
    # payment's context: where an Alliance Bonus may be used, runtime.running)
    block_owner: dict = field(default_factory=dict)
    player_vars: dict = field(default_factory=dict)          # player_var id -> default
    formulas: dict = field(default_factory=dict)
    events: dict = field(default_factory=dict)             # event id -> its declared keys (interpreter/events.py)
    emitted_by: dict = field(default_factory=dict)         # statement ('pay') -> [(event id, keys)]
    dice: dict = field(default_factory=dict)                 # die id -> its faces, in order
    world: object = None                                     # rulespec.world.World of the pack
    slots: dict = field(default_factory=dict)                # (type, field) -> world_store.Slot or None
    sides: dict = field(default_factory=dict)      # side id -> {plays, commanded_by} (interpreter/sides.py)
    markers: dict = field(default_factory=dict)    # shared marker id -> {track, owner, start} (interpreter/tracks.py)
    # the declared things of the pack's catalogue kinds (`kind K { instances: catalogue }`): id -> kind
    things: dict = field(default_factory=dict)
    thing_values: dict = field(default_factory=dict)   # (id, field) -> its static value (cache)
    method_types: dict = field(default_factory=dict)   # (type, name) -> type of a method formula
    decl_fns: dict = field(default_factory=dict)       # (kind, id, field) -> compiled field (decl_fn)
    ref_cache: dict = field(default_factory=dict)      # text -> what it refers to (world_store.parse_ref)
    attr_routes: dict = field(default_factory=dict)    # (Runtime class, type, name) -> Runtime.attr's route
    owner_slots: list | None = None     # [(store, owner field's slot)] of the kinds that declare `owner:` (Runtime.f_owner_of)
    static_attrs: dict = field(default_factory=dict)   # (instance, field) -> a plain catalogue value (Runtime.attr)
    space_blocks: dict = field(default_factory=dict)   # "space:TRACK:N" -> its declared block, or None (Runtime.space_field)
    id_types: dict = field(default_factory=dict)       # id -> (spelled as a record of a list, its type else) (Runtime._id_type)
    modifiers: dict = field(default_factory=dict)      # (thing, hook) -> its abilities that modify hook (Runtime.f_modifier)
    thing_kinds: dict = field(default_factory=dict)    # thing -> (its catalogue entry's type, its catalogue id) (Runtime._owned)
    table_dicts: dict = field(default_factory=dict)    # id of a table's list -> (the list, it as a dict of its pairs) (Runtime._pairs)
    formula_reads: dict = field(default_factory=dict)  # formula id -> the read items of its code (Compiler.noting)

    # ------------------------------------------------------------ building
    @classmethod
    def build(cls, pack: Pack) -> "Ruleset":
        checker = Checker(pack)
        names = dict(checker.names)
        rs = cls(pack, Program(), names, world=checker.world)
        rs.method_types = checker.method_types()      # (type, name) of method formulas, for rt.attr
        codecache.warm(pack)                # the code compiled for this pack by an earlier process
        rs.comp = Compiler(names, rs.program, literal_values(pack), slots=rs.slot,
                           methods=rs.method_types, bare=checker.bare_formulas(), world=checker.world)
        rs.comp.records = checker.world.records
        rs.comp.catalogue = checker.catalogue_fields()
        rs.symbols_fields = frozenset((k, n) for k, spec in checker.kinds.items() if k not in KINDS
                                      for n, f in spec.fields.items() if f.type == "symbols")
        rs.comp.catalogue_ids = {(k, "id") for (k, _) in rs.comp.catalogue}
        rs.comp.formula_decls = {str(d.id): d for d in pack.decls.values() if d.kind == "formula"}
        rs.comp.record_lists = rs.record_lists
        rs.decls = pack.decls
        catalogue = {k for k, kd in checker.world.kinds.items() if kd.decl_fields}
        rs.things = {str(d.id): d.kind for d in pack.decls.values() if d.kind in catalogue}
        with limits.deep_recursion():       # nested expressions: a few Python frames per level
            laid_out = rs.laid_out
            for d in pack.decls.values():
                getattr(rs, "_k_" + d.kind, lambda d: None)(d)
                if laid_out and any(d.sub(r) for r in laid_out):
                    rs._board(d)
            rs._setup_rules()
        rs.owned_walkers        # written out with the rest of the code, not at a game's first look
        if rs.comp.compiled_anew:
            codecache.store(pack, rs.comp.codes)
        return rs

    def _setup_rules(self):
        """The zones' `initial:` contents, the game's `prepare` block (interpreter/state.py),
        its `refresh` block (interpreter/scenario.py) and `on_track_move` block, compiled after everything else: their blocks come last, so the other blocks keep their
        numbers (a saved game's frames name blocks by number)."""
        for z in self.world.zones.values():
            initial = self.fn(z.decl, "initial") if z.decl is not None else None
            self.zones.append((z, world_store.zone_read(z), initial))
        d = self.game.get("decl")
        self.game["prepare"] = self.fn(d, "prepare") if d is not None else None
        self.game["refresh"] = self.fn(d, "refresh") if d is not None else None
        self.game["on_track_move"] = self.fn(d, "on_track_move") if d is not None else None
        self.sources = [self._source(src) for src in self.sources]
        self.first_labels = frozenset(self.static(src.decl, "label") for src in self.sources if src.first)

    def slot(self, type_name, name: str):
        """Where the declared field `name` of values of `type_name` (the checker's type: 'player',
        'city'...) is stored (interpreter/world_store.py), or None (not a declared field)."""
        key = (type_name, name)
        try:
            return self.slots[key]
        except KeyError:
            pass
        s = None
        kind = self.world.kind_of(type_name.rstrip("?")) if type_name else None
        # a kind with stored records, the game (its own fields are the top of the state), or a
        # record kept in a list (a Room: interpreter/world_store.py parse_ref)
        f = self.world.field(kind.name, name) if kind is not None and (kind.store or kind.name == GAME or kind.name in self.record_lists) else None
        if f is not None:
            s = world_store.slot_of(kind, f, self.world.records)
            if f.decl is not None and f.decl.kind == "player_var":     # its default as the rules read it
                s = world_store.Slot(**{**s.__dict__, "default": self.static(f.decl, "default")})
        self.slots[key] = s
        return s

    def thing_field(self, thing: str, name: str):
        """`x.name` of a declared thing of a catalogue kind, while no rule has set it: what its
        declaration gives, else the declared field's default (a sparse field, rulespec.world)."""
        key = (thing, name)
        try:
            return self.thing_values[key]
        except KeyError:
            pass
        kind = self.things[thing]
        d = self.decls[(kind, thing)]
        if name in d.fields:
            # printed symbols (an Alliance's `bonus`), merged as a card's bottom is
            v = self.symbols_of(d, name) if (kind, name) in self.symbols_fields else self.static(d, name)
        else:
            f = self.world.kinds[kind].fields.get(name)
            v = world_store.default_value(f) if f is not None else None
        self.thing_values[key] = v
        return v

    def zone_slot(self, type_name, name: str):
        """How to read the zone `name` that values of `type_name` own (world_store.ZoneRead), or
        None (cached)."""
        key = ("zone", type_name, name)
        try:
            return self.slots[key]
        except KeyError:
            z = self.world.zone_on(type_name, name) if type_name else None
            zr = self.slots[key] = world_store.zone_read(z) if z is not None else None
            return zr

    def fn(self, d: Decl, name: str, scope=None, default=None):
        """Compile field `name` of a declaration to fn(rt, env) (constants for YAML values)."""
        fv = d.fields.get(name)
        if fv is None:
            return default
        v = fv.value
        if isinstance(v, A.Block):
            return self.comp.block(v, self._scope(d, scope))
        if isinstance(v, A.Expr):
            return self.comp.expr(v, self._scope(d, scope))[0]
        return _const(v)

    def _scope(self, d: Decl, extra=None) -> dict:
        s = param_types(d.params)
        s.update(extra or {})
        return s

    def decl_fn(self, d: Decl, name: str):
        """The compiled field `name` of a declaration when it is an expression that needs the
        game (a cost, a formula of `self`), else None (read it with `static`). Memoised."""
        key = (d.kind, str(d.id), name)
        if key not in self.decl_fns:
            fv = d.fields.get(name)
            v = fv.value if fv is not None else None
            simple = (A.Name, A.Num, A.Str, A.Bool, A.ListExpr, A.NoneLit)
            self.decl_fns[key] = self.fn(d, name) if isinstance(v, A.Expr) and not isinstance(v, simple) else None
        return self.decl_fns[key]

    def static(self, d: Decl, name: str, default=None):
        """The value of a field that needs no game state (copies, type, colour...)."""
        fv = d.fields.get(name)
        if fv is None:
            return default
        v = fv.value
        if isinstance(v, A.Name):
            return v.id
        if isinstance(v, A.Num) or isinstance(v, A.Str) or isinstance(v, A.Bool):
            return v.value
        if isinstance(v, A.ListExpr):
            return [_literal(i) for i in v.items]
        if isinstance(v, A.Expr):
            try:
                return self.comp.expr(v, {})[0](None, {})
            except Exception:
                return default
        return v

    def symbols_of(self, d: Decl, name: str = "bottom") -> dict:
        """Symbols printed on a bottom, merged: {'crown': 1, 'cross': 1} for `crown | cross`."""
        fv = d.fields.get(name)
        if fv is None:
            return {}
        v = fv.value
        try:
            return costs.merged(self.comp.expr(v, {})[0](None, {}) if isinstance(v, A.Expr) else v)
        except Exception:
            return {}

    def _callable(self, d: Decl) -> Callable_:
        params = []
        for p in d.params:
            params.append((p.name, self.comp.expr(p.default, {})[0] if p.default is not None else None))
        effect = self.fn(d, "effect")
        if effect is None:
            effect = self.program.add([], d.span)
        cost = self.fn(d, "cost")
        if cost is not None:
            # an action with a fixed `cost:` runs as one block: pay, then the effect
            from .compiler import PAY
            effect = self.program.add([(PAY, d.span, cost, None),
                                       self.comp.call(d.span, "run_block", [self.comp.literal(effect)])], d.span)
        c = Callable_(str(d.id), params, cost, effect, self.fn(d, "requires"), d)
        c.reports_caller = any(a.name == "reports_caller" for a in d.annotations)
        return c

    def _k_action(self, d):
        self.actions[d.id] = self._callable(d)
        self.block_owner[self.actions[d.id].effect] = str(d.id)

    def _k_procedure(self, d):
        self.procedures[d.id] = self._callable(d)
        self.block_owner[self.procedures[d.id].effect] = str(d.id)
        when = self.fn(d, "during_payment")
        if when is not None:
            self.payment_procedures.append(d.id)
            self.procedures[d.id].during_payment = when
            self.procedures[d.id].provides = self.symbols_of(d, "provides")

    @cached_property
    def money(self) -> str:
        """The symbol kept in the treasury (`storable: true`, florins in Virtù): what payments
        take from the treasury and what `gain`/`lose` add to it. A variant may rename it; ''
        when no symbol is storable (no treasury)."""
        return next((sid for sid, sym in self.symbols.items() if sym["storable"]), "")

    def _k_source(self, d):
        self.sources.append(d)      # compiled last (_setup_rules): the other blocks keep their numbers

    def _source(self, d) -> "PaymentSource":
        """A `source` declaration compiled to one generated function giving its entries as
        [label, symbols, the thing or record] (the `each`, `label` and `symbols` fields in one
        comprehension: when `each` is `[x for x in S where c]` with x the source's parameter, the
        label and symbols are worked out in that very loop), and its `tap` block."""
        param = d.params[0].name if d.params else "it"
        scope = self._scope(d)
        each, symbols = d.fields["each"].value, d.fields["symbols"].value
        label = d.fields["label"].value if "label" in d.fields else A.Name(param, span=d.span)
        if isinstance(each, A.Comprehension) and each.var == param and \
                isinstance(each.elem, A.Name) and each.elem.id == param:
            over, cond = each.iter, each.cond
        else:
            over, cond = each, None
        inner = {k: v for k, v in scope.items() if k != param}
        entries = self.comp.expr(A.Comprehension(A.ListExpr([label, symbols, A.Name(param, span=d.span)], span=d.span),
                                                 param, over, cond, span=each.span), inner)[0]
        first = bool(self.static(d, "first", False))
        return PaymentSource(str(d.id), param, entries, self.fn(d, "tap", {"symbol": "any"}), first, d)

    def _k_symbol(self, d):
        self.symbols[d.id] = {"storable": bool(self.static(d, "storable", False)), "name": d.title or d.id,
                              "treasury": self.static(d, "treasury"), "surplus_kept": self.fn(d, "surplus_kept")}

    @cached_property
    def treasury_key(self) -> str:
        """The stored key of the side field that keeps the money (the money symbol's
        `treasury:`), '' when the pack keeps none."""
        name = (self.symbols.get(self.money) or {}).get("treasury")
        f = self.world.kinds[SIDE].fields.get(name) if name else None
        return f.key if f is not None else ""

    @cached_property
    def surplus_kept(self):
        """The money symbol's `surplus_kept:` (compiled), or None."""
        return (self.symbols.get(self.money) or {}).get("surplus_kept")

    def _copies(self, d: Decl) -> int:
        """How many copies of a card or tile the box holds (limits.MAX_COPIES at most: each one
        is a thing of the game state, so a pack cannot make the state huge)."""
        n = self.static(d, "copies", 1)
        n = int(n or 1) if isinstance(n, (int, float)) and not isinstance(n, bool) else 1
        if n > limits.MAX_COPIES:
            fv = d.fields.get("copies")
            span = fv.span if fv is not None else d.span
            raise RulespecError(Diagnostic("RS005", f"{n:,} copies of {d.kind} '{d.id}' (at most "
                                                    f"{limits.MAX_COPIES:,})", span, "a box holds a few copies of a card",
                                           source_line=source_line_at(span.file, span.line)))
        return n

    def _item(self, d: Decl) -> dict:
        item = {
            "id": d.id, "name": d.title or d.id, "type": self.static(d, "type"),
            "copies": self._copies(d),
            "cost": self.fn(d, "cost"), "action": self.static(d, "action"),
            "action_args": {}, "bottom": self.symbols_of(d),
            "pp": self.fn(d, "pp", default=_const(0)),
            "war_bonus": self.static(d, "war_bonus", []) or [], "colour": self.static(d, "colour"),
            "limit": self.static(d, "limit"), "bonus_type": self.static(d, "bonus_type"),
            "placement": self.static(d, "placement"),
            "crosses": int(self.static(d, "crosses", 0) or 0), "city": self.static(d, "city"),
            "excludes": self.static(d, "excludes", []) or [], "requires": self.fn(d, "requires"),
            "on_gain": self.fn(d, "on_gain"), "gained_side": self.static(d, "gained_side", "available"),
            "abilities": self.static(d, "abilities", []) or [], "players": self.static(d, "players"),
            "counts_as": self.static(d, "counts_as"), "neutral": self.static(d, "neutral", False),
            "decl": d,
        }
        return item | self._declared_rest(d, item)

    # the value of a flag or number field a declaration leaves out
    _ABSENT = {"bool": False, "int": 0, "number": 0}

    def _declared_rest(self, d: Decl, built: dict) -> dict:
        """The fields the pack's catalogue kind declares (`field extra: int` in catalogue.rules)
        beyond those `_item` builds and the documentation fields: what the declaration gives,
        else False/0 for a flag/number, else None."""
        out = {}
        for (kind, name), typ in self.comp.catalogue.items():
            if kind == d.kind and name not in built and name not in DOC_FIELDS:
                v = self.static(d, name)
                out[name] = self._ABSENT.get(typ) if v is None else v
        return out

    def _k_card(self, d):
        self.cards[d.id] = self._item(d)

    @cached_property
    def card_kinds(self) -> frozenset:
        """The names `owned(side, name)` finds a card by: each card's id and its `type`."""
        return _kinds_of(self.cards)

    @cached_property
    def tile_kinds(self) -> frozenset:
        """The names `owned(side, name)` finds a tile by: each tile's id and its `type`."""
        return _kinds_of(self.tiles)

    def _k_tile(self, d):
        self.tiles[d.id] = self._item(d)

    def _k_war_bonus(self, d):
        self.war_bonuses[d.id] = {"id": d.id, "strength": self.fn(d, "strength"), "cost": self.fn(d, "cost"),
                                  "side": self.static(d, "side", "both"), "in_battles": bool(self.static(d, "in_battles", True)),
                                  "flips": bool(self.static(d, "flips", False)), "once": self.static(d, "once"),
                                  "uses_tokens": bool(self.static(d, "uses_tokens", False)),
                                  "title": d.title or str(d.id), "decl": d}

    def _k_ability(self, d):
        self.abilities[d.id] = {"id": d.id, "modifies": self.static(d, "modifies"),
                                "amount": self.fn(d, "amount", default=_const(1)),
                                "condition": self.fn(d, "condition"), "decl": d}

    def _k_track(self, d):
        spaces = []
        for sp in d.sub("space"):
            spaces.append({"points": self.fn(sp, "points", default=_const(0)), "cost": self.fn(sp, "cost"),
                           "on_arrival": self.fn(sp, "on_arrival"),
                           "ends_game": bool(self.static(sp, "ends_game", False)),
                           "spot": bool(self.static(sp, "spot", False)), "decl": sp})
        self.tracks[d.id] = {"id": d.id, "spaces": spaces, "measures": self.fn(d, "measures"),
                             "max_steps_per_year": self.static(d, "max_steps_per_year"),
                             "leader_bonus": int(self.static(d, "leader_bonus", 0) or 0), "decl": d,
                             "shared": self.static(d, "markers") == "shared",
                             "zones": [(z.id, self.static(z, "from"), self.static(z, "to")) for z in d.sub("zone")]}

    _EMPTY = {"int": 0, "number": 0, "bool": False}

    def space_static(self, sp: dict, name: str):
        """A field of a track's space that the Ruleset does not compile (`space(t, n).NAME`):
        its value in the space's block, else 0 / false for a number / flag."""
        v = self.static(sp["decl"], name)
        spec = SPACE.fields.get(name)
        return self._EMPTY.get(spec.type) if v is None and spec is not None else v

    def _k_side(self, d):
        self.sides[d.id] = {"plays": self.static(d, "plays", True) is not False,
                            "commanded_by": self.fn(d, "commanded_by", default=_const(None)), "decl": d}

    @cached_property
    def record_lists(self) -> dict:
        """record type -> (store, key) of the list that keeps the records of that type
        (`red.room2` is state[store]['red'][key][2]; interpreter/world_store.py)."""
        return {r: (k.store, f.key) for r, (k, f) in self.world.record_lists().items()}

    @cached_property
    def stored_kinds(self) -> list:
        """World.stored_kinds, once per ruleset (Runtime.type_name asks it at every read)."""
        return self.world.stored_kinds()

    @cached_property
    def owned_walks(self) -> dict:
        """"card" / "tile" -> the steps that list a side's cards / tiles, in the order of the
        World's owned places (World.owned_places: the `@owned` holder fields of the side's lists
        of records, the side's zones declared `owned: true`), each step (stored key, the holder
        keys of its records or None for a zone, whether the zone's entries are records keeping
        the thing under "id", the catalogue to test each thing against where the place may hold
        things of another kind, else None). Worked out once per ruleset: Runtime.cards_of and
        tiles_of walk them (a few times per decision)."""
        out = {}
        for kind, catalogue in (("card", self.cards), ("tile", self.tiles)):
            steps = []
            for place in self.world.owned_places():
                if place.holders:
                    keys = tuple(k for k, of in place.holders if of in (kind, "any"))
                    if keys:
                        mixed = any(of == "any" for k, of in place.holders if k in keys)
                        steps.append((place.key, keys, False, catalogue if mixed else None))
                elif kind in place.of or "any" in place.of or not place.of:
                    steps.append((place.key, None, place.entries, None if place.of == (kind,) else catalogue))
            out[kind] = tuple(steps)
        return out

    @cached_property
    def owned_walkers(self) -> dict:
        """"card" / "tile" -> a function (a side's record) -> its things of that kind, in order:
        the steps of owned_walks written out as one Python function each (Runtime.cards_of and
        tiles_of run a few times per decision; a loop over the steps cost a tenth of them more)."""
        return {kind: _walker(steps) for kind, steps in self.owned_walks.items()}

    def owned_reads(self, kind: str) -> list:
        """The side's stored keys (and "key.field" of its records) that walking its things of a
        kind ("card", "tile") reads (runtime._reads_owned, for the constraints' static reads)."""
        out = []
        for key, holders, entries, _ in self.owned_walks[kind]:
            out.append(key)
            out += [f"{key}.{h}" for h in holders or ()]
            if entries:
                out.append(f"{key}.id")
        return out

    @cached_property
    def field_kinds(self) -> tuple:
        """The kinds whose declarations give an object's fields (`Runtime.field_of`): the
        kinds with records of their own, then actions, procedures and components."""
        return tuple(k for k, _ in self.stored_kinds) + ("action", "procedure", "component")

    @cached_property
    def holders(self) -> list:
        """Where things are kept (world_store.location): [(store, [("records", record type,
        list key, [(RECORD.FIELD, key) of its holder fields]) | ("zone", zone, key)])], in the
        World's order. A holder field is a field of a record of a list whose type is a thing
        of the catalogue (`card?`), not a kind with records of its own (`side?`)."""
        w, out = self.world, []
        for k in w.kinds.values():
            if not k.store:
                continue
            plan = []
            for f in k.fields.values():
                rec = w.records.get(f.type.of.name) if f.type.shape == "list" and f.type.of is not None else None
                if rec is None or f.sparse:
                    continue
                held = [(f"{rec.name}.{g.name}", g.key) for g in rec.fields.values()
                        if g.type.shape == "ref" and not g.on_board and not g.type.enum and g.type.name not in w.records
                        and not (g.type.name in w.kinds and w.kinds[g.type.name].store)]
                if held:
                    plan.append(("records", rec.name, f.key, held))
            plan += [("zone", z.name, z.key) for z in w.zones.values() if z.owner == k.name]
            if plan:
                out.append((k.store, plan))
        return out

    @cached_property
    def spot_refs(self) -> list:
        """The track spaces a piece may stand on (`spot: true`), as space(track, n) refs."""
        return [f"space:{t}:{n}" for t, tr in self.tracks.items() for n, sp in enumerate(tr["spaces"]) if sp["spot"]]

    @cached_property
    def factions(self) -> list:
        """The sides that do not play, in declaration order."""
        return [s for s, side in self.sides.items() if not side["plays"]]

    def _k_marker(self, d):
        self.markers[d.id] = {"track": self.static(d, "track"), "owner": self.static(d, "owner"),
                              "start": int(self.static(d, "start", 0) or 0)}

    @cached_property
    def laid_out(self) -> tuple:
        """The record types of the sides' lists of records (`field rooms: list of room on side`):
        a declaration with sub-blocks named after one of them is a side's board, which lays
        those records out and prints what the fields declared `@printed` read."""
        side = self.world.kinds[SIDE]
        return tuple(f.type.of.name for f in side.fields.values()
                     if f.type.shape == "list" and f.type.of is not None and f.type.of.name in self.world.records)

    def _board(self, d):
        """A side's board (its id is the side's): the declaration that lays out its records
        (`@printed` fields read it: Ruleset.printed)."""
        self.boards[d.id] = {"decl": d}

    def board_of(self, side):
        """The board of a side: its own, else the first one (None when the pack has none)."""
        return self.boards.get(side) or next(iter(self.boards.values()), None)

    def printed(self, rt, slot, x):
        """The value of a field declared `@printed` (world_store.get): for a side, its board
        declaration's field `slot.on_board`; for a record of a side's list ("red.room2"), that
        field of the board's sub-block at the record's index; the field's default when the
        board does not give it."""
        key = (slot.kind, slot.on_board, x)
        try:
            return self.printed_values[key]
        except KeyError:
            pass
        v = None
        if slot.of_record:
            where = world_store.spelling(self, x)     # (record type, owner, index, ...) of the text
            board = self.board_of(where[1]) if where is not None else None
            subs = board["decl"].sub(slot.kind) if board is not None else ()
            if where is not None and where[2] < len(subs):
                sub = subs[where[2]]
                spec = KINDS[board["decl"].kind].blocks.get(slot.kind) if board["decl"].kind in KINDS else None
                fs = spec.fields.get(slot.on_board) if spec is not None else None
                # printed symbols (a Room's bottom), merged as a card's are
                v = self.symbols_of(sub, slot.on_board) if fs is not None and fs.type == "symbols" \
                    else self.static(sub, slot.on_board)
        else:
            board = self.board_of(x)
            if board is not None:
                v = self.static(board["decl"], slot.on_board)
        v = slot.default if v is None else v
        self.printed_values[key] = v
        return v

    def _k_scoring(self, d):
        self.scoring.append({"id": d.id, "label": self.static(d, "label") or d.title or d.id,
                             "order": self.static(d, "order", len(self.scoring)),
                             "points": self.fn(d, "points", default=_const(0)), "decl": d})
        self.scoring.sort(key=lambda s: s["order"] if isinstance(s["order"], (int, float)) else 0)

    def _k_end_condition(self, d):
        self.end_conditions.append({"id": d.id, "check": self.fn(d, "check"),
                                    "at": flow.moment(self.static(d, "at", flow.END_OF_ROUND)),
                                    "then": flow.then_word(self.static(d, "then", flow.END_OF_ROUND)),
                                    "winners": self.fn(d, "winners"), "decl": d})

    def _k_constraint(self, d):
        names = _names_in(d.get("check"))
        scope = self.static(d, "scope", "player")
        if "player" not in names:
            scope = "game"             # does not depend on which player: evaluate once
        # what each constraint reads: worked out from its code where it can be (its read items,
        # resolved by interpreter/constraints.py static_reads), else learnt while checking
        with self.comp.noting() as reads:
            check = self.fn(d, "check")
        self.constraints.append({"id": d.id, "check": check, "scope": scope, "reads": reads,
                                 "message": self.comp.text(self.static(d, "message", d.id)), "decl": d})

    def _k_formula(self, d):
        with self.comp.noting({p.name: ("param", p.name) for p in d.params}) as reads:
            self.formulas[d.id] = {"params": [(p.name, self.comp.expr(p.default, {})[0] if p.default is not None else None)
                                              for p in d.params],
                                   "names": tuple(p.name for p in d.params),
                                   "value": self.fn(d, "value", default=_const(None)),
                                   "span": d.span}      # (rulespec profile names it)
        self.formula_reads[d.id] = reads

    def _k_die(self, d):
        self.dice[d.id] = list(self.static(d, "faces", []) or [])

    def _k_table(self, d):
        self.tables[d.id] = self.static(d, "rows")

    def _k_player_var(self, d):
        self.player_vars[d.id] = self.static(d, "default")

    def _k_event(self, d):
        from rulespec.checker import event_keys
        keys = event_keys(d)
        self.events[d.id] = keys
        by = self.static(d, "emitted_by")
        if by:
            self.emitted_by.setdefault(by, []).append((d.id, keys))

    def _k_option(self, d):
        self.options[d.id] = self.static(d, "default")

    def _k_phase(self, d):
        from .compiler import FOR
        order = self.fn(d, "order") or (lambda rt, env: rt.g_players(env))
        before, each, after = self.fn(d, "before"), self.fn(d, "each_player"), self.fn(d, "after")
        sp = d.span
        call, literal = self.comp.call, self.comp.literal
        instrs = [call(sp, "begin_phase", [literal(d.id)])]
        if before is not None:
            instrs.append(call(sp, "run_block", [literal(before)]))
        if each is not None:
            instrs.append((FOR, sp, "player", order, None, each))
        if after is not None:
            instrs.append(call(sp, "run_block", [literal(after)]))
        instrs.append(call(sp, "phase_end_hook", []))
        instrs.append(call(sp, "end_phase", [literal(d.id)]))
        self.phases[d.id] = {"block": self.program.add(instrs, sp), "decl": d, "after": after}

    def phase_close(self, phase: str) -> int:
        """A block that closes a phase: its `after` block, then its end (end conditions checked
        `at: end_of_PHASE`), for a scenario that starts inside the phase. Made on first use, so
        the blocks of ordinary games keep their numbers."""
        ph = self.phases[phase]
        if "close" not in ph:
            sp = ph["decl"].span
            call, literal = self.comp.call, self.comp.literal
            instrs = [call(sp, "run_block", [literal(ph["after"])])] if ph["after"] is not None else []
            ph["close"] = self.program.add(instrs + [call(sp, "phase_end_hook", []),
                                                     call(sp, "end_phase", [literal(phase)])], sp)
        return ph["close"]

    def _k_game(self, d):
        round_, bound = flow.game_field(d, "round"), flow.game_field(d, "max_rounds")
        self.game = {"setup": self.fn(d, "setup"), "round": self.fn(d, round_.name) if round_ else None,
                     "max_rounds": int((self.static(d, bound.name) if bound else 0) or flow.DEFAULT_MAX_ROUNDS),
                     "round_name": str(self.static(d, "round_name") or "Round"),
                     "tie_break": self.fn(d, "tie_break"), "on_phase_end": self.fn(d, "on_phase_end"), "decl": d}
