"""The Runtime: the game state plus the primitives the DSL composes.

Every entry of rulespec.vocabulary is implemented here, once:
  g_NAME(env)        global names (players, cities, round ...)
  a_TYPE_NAME(obj)   attributes (player.florins, city.controller ...)
  f_NAME(*args)      functions (count, adjacent_by_road, position ...)
  v_NAME(env, args, kwargs, span)   verbs (gain, flip, place_disc, move_troop ...)
Values are plain data: players are colour ids, cities/seas/actions/alliances their ids,
cards and tiles instance ids ("merchant#2"). Verbs that run rules of their own (perform, run)
return (block, env) for the VM to push.
"""
from __future__ import annotations

from rulespec import flow, limits
from rulespec.board import Board
from rulespec.errors import RuleFault
from rulespec.world import CHECKER_TYPE

from . import costs, events, payment, tracks, verbs, vm, world_store
from .fight import FightMixin
from .state import card_ids, first_of_each, type_of
from .vm import Abort, push


_ATTR_METHODS: dict = {}
_VERB_METHODS: dict = {}        # (Runtime class, verb) -> (its v_/i_ method or None, _VERB_WRITES[verb]) (Runtime.verb)
# The state keys each primitive verb writes itself (constraints.Writes; the blocks they return
# or run note their own writes): a verb not listed makes the move's writes unknown.
_VERB_WRITES = {
    "run_block": (), "perform": (), "run": (), "play_phase": (), "phase_end_hook": (),
    "log": (), "event": (), "add_to_payment": (),       # the payment in progress is the VM's
    "mark": ("marks",), "waste_leftover": ("leftover",), "set_turn_order": ("turn_order",),
    "advance": ("tracks", "seq"), "remeasure": ("tracks", "seq"),
    "begin_phase": ("phase", "marks", "fresh", "leftover"),
    "end_phase": ("marks", "fresh", "leftover", "winners", "ending", "over"),
    "check_end": ("winners", "ending", "over"), "end_game": ("over",),
    "move": (),         # interpreter/verbs.py notes the places it takes from and puts in
}
_ROUND_END_WRITES = _VERB_WRITES["check_end"] + ("year", "unfinished")      # Runtime.on_flow_end
_ACTION_WRITES = ("spent", "leftover")     # an action starts its payments afresh (Runtime.call)


# What each built-in function f_NAME reads of the state, for the constraint checker's static
# reads (interpreter/constraints.py static_reads): a function (ruleset, the sides its arguments
# are: "player", "any"...; the arguments written as texts, else None) -> [(side, name)]: side
# None for a key of the state itself, else the side whose key (or "key.field" of its records)
# it reads. A function not listed makes the reads of what calls it unknown (its constraints
# are then watched while evaluated, their reads learnt).
def _reads_nothing(rs, roles, values):
    return ()


def _reads_owned(rs, roles, values):
    """Runtime.f_owned: the places where side p's things are (Ruleset.owned_walks: its cards'
    for a kind of card, its tiles' for a kind of tile, both for a kind not written in the rules;
    none for a kind of neither)."""
    p = roles[0] if roles else "any"
    kind = values[1] if len(values) > 1 else None
    keys = []
    if kind is None or kind in rs.card_kinds:
        keys += rs.owned_reads("card")
    if kind is None or kind in rs.tile_kinds:
        keys += rs.owned_reads("tile")
    return [(p, k) for k in dict.fromkeys(keys)]


BUILTIN_READS = {
    **{f: _reads_nothing for f in ("count", "sum", "max", "min", "any", "all", "abs", "flatten",
                                   "first_of_each", "range", "space", "spaces")},
    "owned": _reads_owned,
    "option": lambda rs, roles, values: [(None, "options")],
    "setup_of": lambda rs, roles, values: [(None, "players")],
}
# the globals (Runtime.g_NAME): the key of the state each reads
GLOBAL_READS = {"players": "turn_order", "round": "year", "phase": "phase"}
# the local holding where a `@reports_caller` procedure was called (no pack name starts with _)
CALLER = "_caller"


_MAX_FORMULA_DEPTH = limits.MAX_FORMULA_DEPTH
# catalogue fields never remembered as plain values (Runtime.catalogue_field): who owns a thing
# changes, and an effect kept as a number is a block of the program, not a field's value
_NOT_REMEMBERED = frozenset(("owner", "on_gain", "effect"))
# the default of a lookup that tells a missing key from a stored None (a module global: read
# through the Runtime, a class attribute cost a lookup the interpreter does not specialise)
_UNSET = object()


def _source_symbols(src, v) -> dict:
    """What a payment source's `symbols` gave, as {symbol: n}: a cost (`1 cross`) merged as a
    bottom is; anything else is a fault of the pack, at the field."""
    try:
        return costs.merged(v)
    except (TypeError, ValueError, AttributeError):
        fv = src.decl.fields.get("symbols")
        raise RuleFault("RS301", f"source {src.id} gives {v!r} as its symbols", fv.span if fv is not None else None,
                        "give a bottom's symbols (`c.bottom`) or a cost (`1 cross`)") from None


def _attr_method(cls, t, name):
    """The `a_TYPE_NAME` method of a Runtime class, or None (memoised: `attr` runs for every
    attribute of a value typed `any`; a failed getattr costs an exception each time)."""
    key = (cls, t, name)
    try:
        return _ATTR_METHODS[key]
    except KeyError:
        m = _ATTR_METHODS[key] = getattr(cls, f"a_{t}_{name}", None)
        return m


class Runtime(FightMixin):
    def __init__(self, rs, state: dict, board: Board):
        self.rs = rs
        self.program = rs.program
        self.state = state
        self.board = board
        # what the move did, in order (interpreter/events.py): the pack's events and the
        # account's text lines ({"event": "log", "text": ...}); never part of the state
        self.events: list = []
        self.env: dict = {}        # locals of the instruction being run (set by the VM)
        # Memo of derived values, only while nothing can change the state (see `reading`).
        self.memo: dict | None = None
        # While constraints are checked (interpreter/constraints.py): where reads are noted.
        self.read_log = None
        # What the move being applied wrote (constraints.Writes), for the constraint check; None
        # when unknown (api.apply starts one; a write no primitive can describe ends it)
        self.wrote = None
        # The work budget of this call of the API (rulespec.limits): formula calls, elements
        # iterated by comprehensions, ranges, ways to reduce a cost. A Runtime serves one call.
        self.work = limits.WORK_BUDGET
        self.formula_depth = 0
        # the context of the payment whose sources are being worked out (payment_sources):
        # paying_for() and paying_within() answer for it
        self.considered = None

    def spend(self, n: int, span=None):
        """Count `n` units of work against the budget; RS305 at `span` once it is spent."""
        self.work -= n
        if self.work < 0:
            raise RuleFault("RS305", f"the rules did more than {limits.WORK_BUDGET:,} steps of work in one move "
                                     "(formulas, comprehensions, ranges)", span,
                            "a formula that recurses, or iterates over a very large range or set: bound it")

    def reading(self) -> bool:
        """Open a read-only window: until `done_reading`, only expressions run (they never
        change the state), so derived values (what a player owns, payment sources) may be
        memoised. Returns False when a window was already open (the caller then leaves it
        to its opener)."""
        if self.memo is not None:
            return False
        self.memo = {}
        return True

    def done_reading(self, opened: bool):
        if opened:
            self.memo = None

    def memoised(self, key, compute, *args):
        """compute(*args), remembered under `key` while a read-only window is open."""
        memo = self.memo
        if memo is None:
            return compute(*args)
        got = memo.get(key, _UNSET)
        log = self.read_log         # set while constraints are checked: reads are noted
        if got is _UNSET:
            if log is None:
                got = memo[key] = compute(*args)
                return got
            outer, log.cur = log.cur, set()
            try:
                got = compute(*args)
            finally:
                inner, log.cur = log.cur, outer
            memo[key], memo[("reads", key)] = got, inner
            outer |= inner
        elif log is not None:       # served from the memo: note again what computing it read
            log.cur |= memo[("reads", key)]
        return got

    def wrote_at(self, store: str, key: str, who=None):
        """Note a write under state[store] (the sides' store: `key` of side `who`) in the move's
        writes (constraints.Writes), for primitives that write the state themselves."""
        if self.wrote is not None:
            self.wrote.at(store, key, who)

    def wrote_field(self, store: str, key: str, who, field: str, kept: bool = True):
        """Note a write of one field of records (constraints.Writes.at_field), for primitives:
        kept, the field was there before, so the records keep their keys; else a write under
        the key itself (wrote_at)."""
        if self.wrote is not None:
            if kept:
                self.wrote.at_field(store, key, who, field)
            else:
                self.wrote.at(store, key, who)

    def writes_unknown(self):
        """Before a write the primitive cannot name (a roll, a record value): the move's writes
        become unknown (a try on a shallow copy stops here: constraints.NoWrites)."""
        if self.wrote is not None:
            self.wrote.unknown()
            self.wrote = None

    # ------------------------------------------------------------ helpers
    def P(self, player) -> dict:
        try:
            return self.state["p"][player]
        except KeyError:
            raise Abort(f"no player '{player}'")

    def rec(self, store: str, x) -> dict:
        """The stored record of `x` under `store` (a field the pack declares is read from it:
        compiled code does `rt.rec(store, x)[key]`); Abort on an id with no record."""
        try:
            return self.state[store][x]
        except (KeyError, TypeError):
            raise Abort(f"no '{x}' in {store}") from None

    def log(self, text: str):
        self.events.append(events.log_line(text))

    def record_payment(self, player, paid: dict, ctx):
        """The events the pack declares `emitted_by: pay`, after a completed payment of
        something: `paid` the symbols paid ({symbol: count}), `total` their number, `within` the
        Action or procedure whose effect the payment is in (the innermost one running)."""
        decls = self.rs.emitted_by.get("pay")
        if not decls or not any(paid.values()):       # a cost of nothing: no payment
            return
        values = {"side": player, "paid": {s: n for s, n in paid.items() if n},
                  "total": sum(paid.values()), "within": ((ctx or {}).get("within") or [None])[-1]}
        for name, keys in decls:
            self.events.append({"event": name, **{k: events.json_safe(values.get(k), key=k) for k in keys}})

    def opt(self, name, default=None):
        return self.state["options"].get(name, self.rs.options.get(name, default))

    def is_card(self, x) -> bool:
        return isinstance(x, str) and type_of(x) in self.rs.cards

    def is_tile(self, x) -> bool:
        return isinstance(x, str) and type_of(x) in self.rs.tiles

    def item(self, x) -> dict:
        """The catalogue entry of a card/tile instance (memoised per ruleset)."""
        it = self.rs.items.get(x)
        if it is None:
            t = type_of(x)
            it = self.rs.items[x] = self.rs.cards.get(t) or self.rs.tiles.get(t) or {}
        return it

    # ------------------------------------------------------------ globals
    def g_players(self, env):
        return list(self.state["turn_order"])


    def g_round(self, env):
        return self.state["year"]       # the round counter (the state keeps the base game's key)

    def g_phase(self, env):
        return self.state["phase"]

    # ------------------------------------------------------------ player attributes

    def cards_of(self, p):
        """The cards a side owns, in the order of the World's owned places (Ruleset.owned_walks;
        the pack's `cards` formula lists the same): for the engine's own searches (owner_of,
        symbols_owned, modifier)."""
        if self.memo is None or not isinstance(p, str):
            return self._player_cards(p)
        return list(self.memoised(("cards", p), self._player_cards, p))   # a copy: callers may extend it

    def _player_cards(self, p):
        return self.rs.owned_walkers["card"](self.P(p))

    def tiles_of(self, p):
        """The tiles a side owns, in the order of the World's owned places (none for a pack that
        declares no place of a side that holds tiles)."""
        return self.rs.owned_walkers["tile"](self.P(p))

    # ------------------------------------------------------------ cards, tiles, alliances
    def owner_of(self, x):
        for p in self.state["p"]:          # any side: players first (seat order), then factions
            if x in self._owned_things(p):
                return p
        return None

    def catalogue_field(self, x, name, env):
        """`x.F` of a card or tile instance: the one reader of catalogue fields (compiled code,
        `attr` and `field_of` all come here). A value a rule set on the thing wins; else what
        the declaration gives (its value for `self` = x, when it is a formula), or an entry
        field kept where the thing is now (interpreter/verbs.py). Anything that is not a card
        or tile instance is read by `field_of`. A field that is a plain value of the catalogue
        entry is remembered per ruleset (Ruleset.static_attrs), answered at once next time
        (here and by `attr`) while the instance has no variable of that name."""
        if x.__class__ is not str:
            return self.field_of(x, name, env)
        static = self.rs.static_attrs
        key = (x, name)
        v = static.get(key, _UNSET)
        vs = self.state.get("vars")
        if vs and x in vs and name in vs[x]:
            return vs[x][name]
        if v is not _UNSET:
            return v
        it = self.rs.items.get(x)
        if it is None:
            if not (self.is_card(x) or self.is_tile(x)) or "@" in x or x in self.rs.war_bonuses \
                    or x.startswith("space:"):
                kind = self.rs.things.get(x)
                d = self.rs.decls.get((kind, x)) if kind is not None and name not in _NOT_REMEMBERED else None
                if d is not None and "@" not in x and x not in self.rs.war_bonuses and self.rs.decl_fn(d, name) is None:
                    # a thing of a catalogue kind the pack declares (an Alliance): a field its
                    # declaration gives as a plain value is remembered as a card's is
                    v = static[key] = self.rs.thing_field(x, name)
                    return v
                return self.field_of(x, name, env)
            it = self.item(x)
        v = it.get(name)
        if callable(v):
            if not hasattr(v, "constant"):
                return v(self, {"self": x, "player": env.get("player")})
            v = v.constant      # a literal (`cost: 2 florin`): remembered below, as a plain value is
        if name in verbs.entry_names(self):     # kept where the thing is (interpreter/verbs.py)
            return verbs.entry_value(self, x, name)
        if name not in _NOT_REMEMBERED:
            static[key] = v
        return v

    def type_name(self, obj) -> str | None:
        """The runtime type of a value (for attributes on values typed `any`). Worked out at
        each ask, not memoised: a few lookups, where a memo's key and bookkeeping cost more than
        the memo saved (most types asked in a read-only window are asked once)."""
        if not isinstance(obj, str):
            return None
        st = self.state
        if obj in st["p"]:
            return "player"
        for kind, store in self.rs.stored_kinds:       # a record of a kind with its own store
            if obj in st.get(store, ()):
                return kind
        got = self.rs.id_types.get(obj)
        spelled, t = got if got is not None else self._id_type(obj)
        if spelled:
            ref = world_store.parse_ref(self, obj)
            if ref is not None:
                return ref[0]       # a record of a list ("red.room2"): its record type
        return t

    def _id_type(self, obj) -> tuple:
        """(whether `obj` is spelled as a record of a list, its type if no record names it): what
        the ruleset alone says of an id, worked out once per ruleset (Ruleset.id_types)."""
        if obj.startswith("space:"):
            t = "space"
        elif self.is_card(obj):
            t = "card"
        elif self.is_tile(obj):
            t = "tile"
        elif obj in self.rs.tracks:
            t = "track"
        else:
            t = None
        if len(self.rs.id_types) > 10_000:      # ids a formula spelled itself: bounded
            self.rs.id_types.clear()
        got = self.rs.id_types[obj] = (world_store.spelling(self.rs, obj) is not None, t)
        return got

    def attr(self, obj, name, env):
        if obj.__class__ is str:        # a catalogue field that is a plain value (tile.colour)
            v = self.rs.static_attrs.get((obj, name), _UNSET)
            if v is not _UNSET:
                inst_vars = self.state.get("vars")
                if not inst_vars or obj not in inst_vars or name not in inst_vars[obj]:
                    return v
        elif isinstance(obj, dict):     # a value of a `record` type (game.fight): its own fields
            return obj.get(name)
        t = self.type_name(obj)
        if t is not None:
            inst_vars = self.state.get("vars", {}).get(obj)
            if inst_vars and name in inst_vars:
                return inst_vars[name]
            key = (type(self), t, name)
            route = self.rs.attr_routes.get(key)
            if route is None:
                route = self.rs.attr_routes[key] = self._attr_route(t, name)
            how, x = route
            if how == "method":
                return x(self, obj)
            if how == "slot":
                return world_store.get(self, x, obj)
            if how == "field":
                if t in ("card", "tile"):
                    return self.catalogue_field(obj, name, env)
                return self.field_of(obj, name, env)
            stored, index, method, zr = x      # 'rest': what the ruleset says of (t, name)
            if stored:          # its stored fields (Runtime._record_at)
                rec = self._record_at(obj, False)
                if rec is not None and name in rec:
                    return rec[name]
            if index:
                return world_store.index_of(self, obj)
            if method:          # a method formula: x.name is name(x)
                return self.method(name, obj, env)
            if zr is not None:          # a zone it owns (x.tiles): the things in it
                return world_store.zone_things(self, zr, obj)
        return self.field_of(obj, name, env)

    def _attr_route(self, t, name) -> tuple:
        """How `attr` reads `name` of a value of type `t`, as far as the ruleset alone decides
        it (remembered per ruleset: the same checks in the same order, once): an `a_T_N`
        method, a declared field's slot, straight to `field_of`, or 'rest': the checks that
        depend on the value, with what the ruleset says of each (whether the type keeps stored
        fields, `index` of a record of a list, a method formula, the zone it owns)."""
        m = _attr_method(type(self), t, name)
        if m is not None:
            return "method", m
        slot = self.rs.slots.get((t, name), _UNSET)
        if slot is _UNSET:
            slot = self.rs.slot(t, name)
        if slot is not None:
            return "slot", slot
        listed = t in self.rs.record_lists
        rest = (t == "space" or listed, name == "index" and listed, (t, name) in self.rs.method_types,
                self.rs.zone_slot(t, name))
        if any(rest[:3]) or rest[3] is not None:
            return "rest", rest
        return "field", None

    def _record_at(self, ref, create: bool):
        """The stored record a reference to a place names: a Room of a Palace ("red.room2") or
        a track space a piece may stand on (space(t, n), stored once something stands there:
        `create`); None for a reference to nothing stored (a read of a spot left empty)."""
        got = world_store.parse_ref(self, ref)      # a record of a list ("red.room2")
        if got is not None:
            return got[3]
        if ref.startswith("space:"):
            if not create:
                return tracks.stored_spot(self, ref)
            return tracks.spot(self, ref, {}, True)
        return None

    def field_of(self, obj, name, env):
        """`x.field` on a declared object: its compiled field value (card.cost, alliance.pp...)."""
        if obj is None:
            return None
        if isinstance(obj, str):
            inst_vars = self.state.get("vars", {}).get(obj)
            if inst_vars and name in inst_vars:
                return inst_vars[name]
            if "@" in obj:
                return self.war_bonus_field(obj, name, env)
            if obj in self.rs.war_bonuses:
                return self.war_bonus_field(obj + "@", name, env)
            if obj.startswith("space:"):
                return self.space_field(obj, name, env)
            if self.is_card(obj) or self.is_tile(obj):
                return self.catalogue_field(obj, name, env)
            for kind in self.rs.field_kinds:
                d = self.rs.decls.get((kind, obj))
                if d is not None:
                    if (kind, name) in self.rs.symbols_fields:      # printed symbols, merged (cached)
                        return self.rs.thing_field(obj, name)
                    f = self.rs.decl_fn(d, name)        # an expression: evaluated for this object
                    return f(self, {"self": obj, "player": env.get("player")}) if f else self.rs.static(d, name)
            if obj in self.rs.things:       # a thing of a catalogue kind the pack declares
                return self.rs.thing_field(obj, name)
            if obj in self.state["p"]:
                if name in ("commanded_by", "plays"):       # of the side's declaration, if any
                    side = self.rs.sides.get(obj)
                    if name == "plays":
                        return obj in self.state["players"]
                    return side["commanded_by"](self, env) if side is not None else None
                return self.P(obj)["vars"].get(name, self.rs.player_vars.get(name, 0))
        return None

    def set_attr(self, otype, obj, name, value, span):
        """`set x.name = v`: a field the pack declares (interpreter/world_store.py), else a
        variable of a card/tile instance (kept in state['vars']) or of a player."""
        if otype == "zone":         # `set PILE = n`: a counted zone of the game (name: its ZoneRead)
            world_store.set_count(self, name, value)
            return
        slot = self.rs.slot(otype, name) if otype not in (None, "any") else None
        if slot is None and isinstance(obj, str):
            slot = self.rs.slot(self.type_name(obj), name)
        if slot is None and isinstance(obj, dict):      # a field of a record value (game.fight.terms)
            slot = world_store.record_slot(self, otype, name)
        if slot is not None:
            world_store.put(self, slot, obj, value)
            return
        if isinstance(obj, str) and (self.is_card(obj) or self.is_tile(obj) or obj in self.rs.things):
            if name in verbs.entry_names(self):     # kept by the thing's entry where it is
                verbs.set_entry(self, obj, name, value, span)
                return
            self.wrote_at("", "vars")
            self.state.setdefault("vars", {}).setdefault(obj, {})[name] = value
            return
        t = self.type_name(obj) if isinstance(obj, str) else None
        if t == "space" or t in self.rs.record_lists:       # a record of a side's list, a track space
            rec = self._record_at(obj, True)        # Abort: a track space that is not a spot
            if rec is not None and (name in rec or obj.startswith("space:")):
                self.writes_unknown()
                rec[name] = value
                return
        if otype == "player" or obj in self.state["p"]:
            self.wrote_at("p", "vars", obj)
            self.P(obj)["vars"][name] = value
            return
        raise Abort(f"cannot set {name} of {obj}", span)

    def set_item(self, otype, obj, name, key, value, span):
        """`set x.name[key] = v`: one key of a declared `count by` or `map` field
        (interpreter/world_store.py `put_item`)."""
        slot = self.rs.slot(otype, name) if otype not in (None, "any") else None
        if slot is None and isinstance(obj, str):
            slot = self.rs.slot(self.type_name(obj), name)
        if slot is None and isinstance(obj, dict):      # a field of a record value (game.fight.bonus)
            slot = world_store.record_slot(self, otype, name)
        if slot is None or slot.shape not in ("count", "map"):
            raise Abort(f"cannot set {name}[{key}] of {obj}: not a declared `count by` or `map` field", span)
        world_store.put_item(self, slot, obj, key, value)

    def formula(self, name, args, kwargs, env):
        f = self.rs.formulas[name]
        self.work -= 1
        depth = self.formula_depth
        if self.work < 0 or depth >= _MAX_FORMULA_DEPTH:
            self._formula_limit(name)
        local = {"player": env.get("player"), "action": env.get("action")}
        names = f["names"]
        if kwargs or len(args) != len(names):
            self._bind(f["params"], args, kwargs, local)
        elif len(names) == 1:       # one parameter, given by position: the commonest call
            local[names[0]] = args[0]
        elif names:                 # every parameter given by position
            local.update(zip(names, args))
        self.formula_depth = depth + 1
        try:
            return f["value"](self, local)
        finally:
            self.formula_depth = depth

    def method(self, name, obj, env):
        """`obj.name` for a method formula name(obj: KIND): memoised while a read-only window is
        open (rulespec/world.py; docs/design/world-model-plan.md §2.5)."""
        memo = self.memo
        if memo is None:
            return self.formula(name, (obj,), {}, env)
        key = ("method", name, obj, env.get("player"))
        if self.read_log is None:       # memoised's common case, inline
            got = memo.get(key, _UNSET)
            if got is _UNSET:
                got = memo[key] = self.formula(name, (obj,), {}, env)
            return got
        return self.memoised(key, self.formula, name, (obj,), {}, env)

    def f_location(self, x):
        return list(world_store.location(self, x))      # a copy: the index is shared
    def named(self, name, env):
        """A formula without parameters read by its bare name (`notables`): memoised while a
        read-only window is open, like a method formula."""
        memo = self.memo
        if memo is None:
            return self.formula(name, (), {}, env)
        key = ("named", name, env.get("player"))
        if self.read_log is None:       # memoised's common case, inline (as in method)
            got = memo.get(key, _UNSET)
            if got is _UNSET:
                got = memo[key] = self.formula(name, (), {}, env)
            return got
        return self.memoised(key, self.formula, name, (), {}, env)

    def f_find(self, store, key, value):
        """The ids of the records under `store` whose field `key` holds `value` (in their order)."""
        return [x for x, rec in self.state[store].items() if rec[key] == value]

    def f_instances(self, kind):
        """Every instance of a kind, in the pack's order: the copies of a catalogue's cards or
        tiles ('merchant#1'...), the records of a declared kind, or the declarations of a kind."""
        got = self.rs.instances.get(kind)
        if got is None:
            if kind in ("card", "tile"):
                got = [x for tid, it in (self.rs.cards if kind == "card" else self.rs.tiles).items()
                       for x in card_ids(tid, it["copies"])]
            else:
                store = self.rs.world.kinds[kind].store if kind in self.rs.world.kinds else ""
                if store:
                    return list(self.state[store])          # records: they may change
                got = [d.id for d in self.rs.pack.of_kind(kind)]
            self.rs.instances[kind] = got
        return list(got)

    def f_flatten(self, lists):
        """The elements of the lists, one list after the other (none and empty lists add nothing)."""
        return [x for part in lists or () if part for x in part]

    def f_first_of_each(self, things):
        """The first of each catalogue id, in order (the top of each pile)."""
        return first_of_each(things)

    def f_setup_of(self, key, default=None):
        """A value of setup.yaml's entry for the player count being played."""
        from .state import setup_for
        setup = self.rs.pack.data["setup"].data if "setup" in self.rs.pack.data else {}
        v = setup_for(setup, len(self.state["players"])).get(key)
        return default if v is None else v

    # what a zone holds (compiled `x.ZONE`, or a zone of the game by its name): world_store's
    # function itself, called with rt as its first argument
    zone_things = world_store.zone_things

    def _formula_limit(self, name):
        d = self.rs.decls.get(("formula", name))
        fv = d.fields.get("value") if d is not None else None
        span = getattr(fv.value, "span", None) or fv.span if fv is not None else (d.span if d is not None else None)
        if self.work < 0:
            self.spend(0, span)
        raise RuleFault("RS305", f"formula '{name}' calls formulas more than {limits.MAX_FORMULA_DEPTH} deep "
                                 "(a recursion without end?)", span,
                        "make the recursion stop: a formula that calls itself needs a case that does not")

    def _bind(self, params, args, kwargs, local):
        """Parameters of a formula, action or procedure: by position, by name, else the
        declared default (evaluated with the parameters bound so far)."""
        for i, (pname, default) in enumerate(params):
            if i < len(args):
                local[pname] = args[i]
            elif pname in kwargs:
                local[pname] = kwargs[pname]
            else:
                local[pname] = default(self, local) if default else None

    def table_lookup(self, table, *keys):
        rows = self.rs.tables.get(table)
        v = rows
        for k in keys:
            if isinstance(v, list) and v:
                v = self._pairs(v)
            if isinstance(v, dict):
                v = v.get(k, v.get(str(k)))
            elif isinstance(v, list) and isinstance(k, int) and 0 <= k < len(v):
                v = v[k]
            else:
                return None
        return v

    def _pairs(self, v: list):
        """A list of a table that is all [key, value] pairs as a dict of them (else the list as
        it is), worked out once per list (Ruleset.table_dicts, by the list's identity: the
        ruleset's tables are never changed, and the entry keeps the list alive)."""
        got = self.rs.table_dicts.get(id(v))
        if got is None or got[0] is not v:
            d = dict((r[0], r[1]) for r in v) if all(isinstance(r, list) and len(r) == 2 for r in v) else v
            got = self.rs.table_dicts[id(v)] = (v, d)
        return got[1]

    # ------------------------------------------------------------ functions
    def f_count(self, s):
        return len(s or ())

    def f_sum(self, s):
        return sum(filter(None, s or ()))       # none (and any false value) counts 0

    def f_max(self, s, default=0):
        s = [x for x in (s or ()) if x is not None]
        return max(s) if s else default

    def f_min(self, s, default=0):
        s = [x for x in (s or ()) if x is not None]
        return min(s) if s else default

    def f_any(self, s):
        return any(s or ())

    def f_all(self, s):
        return all(s or ())

    def f_abs(self, x):
        return abs(x or 0)

    def f_paying(self):
        return self._payment_in_progress() is not None

    def _payment_context(self) -> dict:
        """The context of the payment being considered (payment_sources), else of the one in
        progress, else of one the running instruction would make (its Action)."""
        if self.considered is not None:
            return self.considered
        k = self._payment_in_progress()
        return k["ctx"] if k is not None else {"action": self.env.get("action")}

    def f_paying_for(self):
        return self._payment_context().get("action")

    def f_paying_within(self, names):
        return self._paying_within(names or (), self._payment_context())

    def f_can_pay(self, cost):
        return payment.can_pay(self, self.env.get("player"), cost, {"action": self.env.get("action")})

    def f_range(self, lo, hi, span=None):
        lo, hi = int(lo), int(hi)
        n = hi - lo + 1
        if n > limits.MAX_RANGE:
            raise RuleFault("RS305", f"range({lo}, {hi}) has {n:,} elements (at most {limits.MAX_RANGE:,})", span,
                            "use a smaller range")
        if n > 0:
            self.spend(n, span)
        return list(range(lo, hi + 1))

    def f_symbols_available(self, p, symbol):
        """Counts what the pack's during-payment procedures could add too (an Indulgence's
        Crown), as `can_pay` does."""
        return payment.symbols_available(self, p, symbol, {"action": self.env.get("action")})

    def f_symbols_at_hand(self, p, symbol):
        return payment.symbols_available(self, p, symbol, {"action": self.env.get("action")}, virtual=False)

    def f_symbols_in_action(self, p, symbol):
        """What p could still pay in the Action p is running, wherever it is asked from: a bot's
        evaluation runs outside every Action, where symbols_available cannot count the Room's
        cards or the symbols left over from the Action's payments."""
        a = self.memoised(("action_run_by", p), self._action_run_by, p)
        return 0 if a is None else payment.symbols_available(self, p, symbol, {"action": a})

    def _action_run_by(self, p):
        """The Action whose own frame (the one its call opened, run by p) is on the stack."""
        owner, actions = self.rs.block_owner, self.rs.actions
        for fr in reversed(self.state["vm"]["frames"]):
            if fr.get("scope") and owner.get(fr["b"]) in actions and fr["env"].get("player") == p:
                return owner[fr["b"]]
        return None

    def f_modifier(self, p, hook):
        total = 0
        modifiers = self.rs.modifiers
        for x in self._owned_things(p):     # each thing once (a card beside the Palace too)
            abilities = modifiers.get((x, hook))
            if abilities is None:
                abilities = modifiers[(x, hook)] = self._modifiers(x, hook)
            for a in abilities:
                env = {"player": p, "self": x}
                if a["condition"] is None or a["condition"](self, env):
                    total += int(a["amount"](self, env) or 0)
        return total

    def _modifiers(self, x, hook) -> tuple:
        """The abilities of thing x that modify `hook`, in its catalogue entry's order (what the
        ruleset alone says: remembered per ruleset, Ruleset.modifiers)."""
        got = (self.rs.abilities.get(ab) for ab in self.item(x).get("abilities", []))
        return tuple(a for a in got if a and a["modifies"] == hook)

    def f_space(self, track, n):
        return f"space:{track}:{int(n)}"

    def f_spaces(self, track):
        spaces = self.rs.tracks[track]["spaces"] if track in self.rs.tracks else ()
        return [f"space:{track}:{n}" for n in range(len(spaces))]

    def space_field(self, ref, name, env):
        blocks = self.rs.space_blocks
        sp = blocks.get(ref, _UNSET)
        if sp is _UNSET:
            if len(blocks) > 10_000:        # refs a formula spelled out of range: bounded
                blocks.clear()
            sp = blocks[ref] = tracks.declared_space(self.rs, ref)
        if sp is None:
            return None
        v = sp[name] if name in sp else sp.setdefault(name, self.rs.space_static(sp, name))
        if callable(v):
            return v(self, {"player": env.get("player")})
        return v

    def f_owner_of(self, x):
        """Who owns a thing: for a record of a kind that declares `owner: FIELD` (a City's
        controller, an Alliance's holder), that field; for a record of a list, whose list it is
        in; else the side holding the card or tile."""
        owners = self.rs.owner_slots
        if owners is None:
            owners = self.rs.owner_slots = [
                (k.store, self.rs.slot(CHECKER_TYPE.get(k.name, k.name), k.owner))
                for k in self.rs.world.kinds.values() if k.owner and k.store]
        for store, slot in owners:
            rec = self.state[store].get(x) if type(x) is str else None
            if rec is not None:
                return rec[slot.key] if slot.direct else world_store.get(self, slot, x)
        ref = world_store.parse_ref(self, x)
        if ref is not None:
            return ref[1]       # a record of a list: whose list it is in
        return self.owner_of(x)

    def f_marked(self, x, flag):
        return [x, flag] in self.state.get("marks", [])

    def v_mark(self, env, args, kw, span):
        marks = self.state.setdefault("marks", [])
        if [args[0], args[1]] not in marks:
            marks.append([args[0], args[1]])

    def f_without(self, cost, symbol, n):
        out = []
        for alt in costs.as_cost(cost):
            d = dict(alt)
            if symbol in d:
                d[symbol] = max(0, d[symbol] - int(n or 0))
                if not d[symbol]:
                    del d[symbol]
            if d not in out:
                out.append(d)
        return out

    def f_reductions(self, cost, n, span=None):
        """Every way to waive n symbols of a cost (one alternative per result), in the order of
        a depth-first walk that waives the symbols in sorted order. Each step of the walk counts
        against the work budget (the number of ways grows exponentially with n)."""
        out, seen = [], set()
        for alt in costs.as_cost(cost):
            stack = [(dict(alt), int(n))]
            while stack:
                d, k = stack.pop()
                self.spend(1, span)
                if k == 0 or not d:
                    key = costs._key(d)
                    if key not in seen:
                        seen.add(key)
                        out.append(d)
                    continue
                children = []
                for s in sorted(d):
                    e = dict(d)
                    e[s] -= 1
                    if not e[s]:
                        del e[s]
                    children.append((e, k - 1))
                stack.extend(reversed(children))
        return [[d] for d in out]

    def f_neighbours(self, x, via):
        """The nodes of the map one edge of the kinds `via` away, sorted (neighbours(c, via: road));
        `via` is a tuple of edge kinds, resolved when the rules are compiled."""
        return list(self.board.neighbours(x, via))

    def f_distance(self, a, b, via):
        """Fewest edges of the kinds `via` between two nodes of the map (99: no path)."""
        d = self.board.distance(a, b, via)
        return 99 if d is None else d

    def f_reachable(self, x, via):
        """Every other node of the map a path of edges of the kinds `via` reaches, sorted."""
        return list(self.board.reachable(x, via))

    # position(x, track) and zone_of(x) are tracks.py's functions themselves (rt as their first
    # argument), without a method in between: rules ask for positions a few times per decision
    f_position = tracks.position
    f_zone_of = tracks.zone_of

    def _steps_left(self, p, track):
        """Spaces still allowed this Year by the track's max_steps_per_year (steps taken are
        kept per player as [year, steps] under the track's `year_steps`)."""
        tr = self.rs.tracks.get(track) or {}
        limit = tr.get("max_steps_per_year")
        if limit is None:
            return 99
        return max(0, limit - self._steps_this_year(p, track))

    def _steps_this_year(self, p, track) -> int:
        used = self.state["tracks"][track]["year_steps"].get(p)
        return used[1] if used and used[0] == self.state["year"] else 0

    def _bottom(self, x, symbol):
        """How many of a symbol the bottom of one card or tile shows."""
        return self.item(x).get("bottom", {}).get(symbol, 0) if isinstance(x, str) else 0

    def f_symbols_owned(self, p, symbol):
        """Memoised in a read-only window: a scoring formula that compares every player's count
        (a majority) is worked out for each player, so each count was asked once per player."""
        if self.memo is None or not isinstance(p, str) or not isinstance(symbol, str):
            return self._symbols_owned(p, symbol)
        return self.memoised(("symbols_owned", p, symbol), self._symbols_owned, p, symbol)

    def _symbols_owned(self, p, symbol):
        n = 0
        for x in self.cards_of(p) + self.tiles_of(p):
            n += self._bottom(x, symbol)
        return n

    def _owned_things(self, p) -> list:
        """The cards then the tiles a side owns (memoised in a read-only window; callers only
        iterate over it)."""
        if not isinstance(p, str):
            return self._things_of(p)
        return self.memoised(("owned", p), self._things_of, p)

    def _things_of(self, p) -> list:
        return self.cards_of(p) + self.tiles_of(p)

    def f_owned(self, p, kind):
        """The side's things of a kind (a type, or a catalogue id), looked for only where such a
        thing can be: among its cards if a card of the catalogue is of that kind, among its
        tiles if a tile is. So a constraint on how many tiles of a type a side owns reads none
        of its cards' places, and is not checked again after each card played. Memoised in a
        read-only window, as symbols_owned."""
        if self.memo is None or not isinstance(p, str) or not isinstance(kind, str):
            return self._owned(p, kind)
        return list(self.memoised(("owned_of", p, kind), self._owned, p, kind))     # a copy: callers may extend it

    def _owned(self, p, kind):
        item = self.item
        rs = self.rs
        if isinstance(p, str) and isinstance(kind, str):
            cards, tiles = kind in rs.card_kinds, kind in rs.tile_kinds
            things = self._owned_things(p) if cards and tiles else \
                self.cards_of(p) if cards else self.tiles_of(p) if tiles else ()
        else:
            things = self._owned_things(p)
        out = []
        kinds = rs.thing_kinds
        for o in things:
            k = kinds.get(o)
            if k is None:       # (its catalogue entry's type, its catalogue id)
                k = kinds[o] = (item(o).get("type"), type_of(o))
            if kind in k and o not in out:
                out.append(o)
        return out

    def f_option(self, name):
        return self.opt(name)

    # ------------------------------------------------------------ payment support
    def treasury(self, p) -> int:
        """The money a side keeps: the side field the money symbol's `treasury:` names (0 when
        the pack keeps none)."""
        key = self.rs.treasury_key
        return self.P(p)[key] if key else 0

    def withdraw(self, p, n):
        have = self.treasury(p)
        if have < n:
            raise Abort(f"{p} has {have} {self.rs.money} in the treasury, needs {n}")
        self.wrote_at("p", self.rs.treasury_key, p)
        self.P(p)[self.rs.treasury_key] = have - n

    def deposit(self, p, n):
        """Money into the side's treasury (a pack with none keeps nothing)."""
        if self.rs.treasury_key:
            self.wrote_at("p", self.rs.treasury_key, p)
            self.P(p)[self.rs.treasury_key] += n

    def surplus_kept(self, p) -> bool:
        """Whether the money tapped from the first sources beyond a cost goes to the treasury
        (the money symbol's `surplus_kept:`), else it is lost."""
        f = self.rs.surplus_kept
        return f is not None and bool(f(self, {"player": p}))

    def first_source(self, source: str) -> bool:
        """A source to use before the others, whose money stays in the payment (a `source`
        declared `first: true`: the Room being used)."""
        return source in self.rs.first_labels

    def payment_sources(self, p, ctx) -> list:
        """[(label, symbols)] of the pack's `source` declarations, in their order, for side p
        and a payment in context `ctx` (the Action paid for, what it is made within): the
        entries that give some symbols."""
        out = []
        env = {"player": p, "action": ctx.get("action")}
        considered, self.considered = self.considered, ctx
        try:        # (_source_entries' work in line: 0.69 calls per decision, its generator cost 0.5%)
            for src in self.rs.sources:
                for label, sym, _ in src.entries(self, env):
                    if sym:
                        out.append((label, sym if sym.__class__ is dict else _source_symbols(src, sym)))
        finally:
            self.considered = considered
        return out

    def _source_entries(self, p, ctx, sources):
        """(source, its entries [label, symbols, thing]) of `sources` for side p, one source at a
        time (a tap stops at its own), worked out for a payment in context `ctx` (paying_for()
        and paying_within() answer for it while each source's entries are)."""
        env = {"player": p, "action": ctx.get("action")}
        for src in sources:
            considered, self.considered = self.considered, ctx
            try:
                entries = src.entries(self, env)
            finally:
                self.considered = considered
            yield src, entries

    def _paying_within(self, names, ctx) -> bool:
        """Whether a payment is made for one of `names` (an Alliance's `bonus_usable_in`): the
        Action paid for, or an action or procedure being run (a Winter step such as `purchase`,
        a `retreat`...), so that outside Actions too a Bonus pays only where its list says."""
        if ctx.get("action") in names:
            return True
        within = ctx["within"] if "within" in ctx else self.running()
        return any(x in names for x in within)

    def running(self) -> list:
        """The actions and procedures being run, outermost first: those whose effect blocks
        were called on the VM's frame stack (the context of a payment). Memoised in a
        read-only window, where the frames cannot change."""
        return self.memoised(("running",), self._running)

    def _running(self) -> list:
        owner = self.rs.block_owner
        return [owner[fr["b"]] for fr in self.state["vm"]["frames"] if fr.get("scope") and fr["b"] in owner]

    def tap(self, p, label: str, symbol: str, ctx: dict) -> int:
        """Use side p's payment source `label` for `symbol` in a payment in context `ctx`: its
        declaration's `tap` block runs (a card exhausted, a Room's bottom marked used). Returns
        how many of the symbol it gives; money from a source that is not `first` goes to the
        treasury."""
        first = label in self.rs.first_labels       # (a first source is named by its fixed label)
        found = next(((src, sym, it) for src, entries in
                      self._source_entries(p, ctx, [s for s in self.rs.sources if s.first is first])
                      for lab, sym, it in entries if lab == label and sym), None)
        if found is None:
            raise Abort(f"{label} cannot pay now")
        src, sym, it = found
        n = (sym if sym.__class__ is dict else _source_symbols(src, sym)).get(symbol, 0)
        if n <= 0:
            raise Abort(f"{label} has no {symbol} to use")
        vm.run_now(self, src.tap, {"player": p, "action": ctx.get("action"), src.param: it, "symbol": symbol})
        self.wrote_at("", "spent")
        self.state.setdefault("spent", []).append(label)
        if symbol == self.rs.money and not src.first:
            self.deposit(p, n)        # money from the sources that are not first goes to the treasury
        return n

    # ------------------------------------------------------------ verbs
    def verb(self, name, env, args, kwargs, span):
        try:
            m, keys = _VERB_METHODS[(type(self), name)]
        except KeyError:        # looked up once per class: a failed getattr costs an exception
            cls = type(self)
            m = getattr(cls, "v_" + name, None) or getattr(cls, "i_" + name, None)
            m, keys = _VERB_METHODS[(cls, name)] = (m, _VERB_WRITES.get(name))
        if m is not None:
            w = self.wrote
            if w is not None:
                if keys is None:
                    self.writes_unknown()       # a primitive that does not say what it writes
                elif keys or w.shallow:
                    w.add_top(keys)
            return m(self, env, args, kwargs, span)
        c = self.rs.procedures.get(name)
        if c is not None:
            return self.call(c, env, args, kwargs, span)
        if name in self.rs.actions:
            return self.call(self.rs.actions[name], env, args, kwargs)
        raise Abort(f"the rules use '{name}', which this engine does not provide", span)

    def call(self, c, env, args, kwargs, span=None, checked=False):
        """(block, locals) of a procedure or action called; checked: its `requires` is known to
        hold (a procedure offered during a payment: payment.apply_option)."""
        local = {"player": env.get("player")}
        if "self" in env:
            local["self"] = env["self"]
        if c.reports_caller and span is not None and span.line:
            local[CALLER] = f"{span.file.rsplit('/', 1)[-1]}:{span.line}"      # read by log
        if c.decl.kind == "action":
            local["action"] = c.id
            if self.wrote is not None:
                self.wrote.add_top(_ACTION_WRITES)
            self.state["spent"] = []
            self.state.pop("leftover", None)
            self.log(f"{local['player']}: {c.decl.title or c.id}")
        elif env.get("action"):
            local["action"] = env["action"]
        params = c.params
        if kwargs or len(args) != len(params):
            self._bind(params, args, kwargs, local)
        else:                       # every parameter given by position: the common call
            for (pname, _), a in zip(params, args):
                local[pname] = a
        if c.requires is not None and not checked and not c.requires(self, local):
            raise Abort(f"{c.decl.kind} {c.id} cannot be used now", c.decl.span)
        return c.effect, local

    # internal instructions (interpreter/ruleset.py emits them; no pack can call them)
    def i_run_block(self, env, args, kw, span):
        return args[0], dict(env)

    def v_move(self, env, args, kw, span):
        """move(THING, PLACE, FIELD: v...): interpreter/verbs.py."""
        verbs.move(self, args[0], args[1], args[2] if len(args) > 2 else None, kw, span)

    def v_perform(self, env, args, kw, span):
        a = args[0]
        if a not in self.rs.actions:
            raise Abort(f"no action '{a}'", span)
        return self.call(self.rs.actions[a], env, args[1:], kw)

    def v_run(self, env, args, kw, span):
        pr = args[0]
        if type(pr) is int:         # an effect a thing's declaration gives (run(t.on_gain, self: t))
            return pr, {"player": kw.get("player", env.get("player")), "self": kw.get("self")}
        if pr not in self.rs.procedures:
            raise Abort(f"no procedure '{pr}'", span)
        return self.call(self.rs.procedures[pr], env, args[1:], kw, span)

    def v_log(self, env, args, kw, span):
        """One account line: the parts joined by `sep:` (a space), then, inside a procedure
        declared `@reports_caller`, the place of its call: `   [war.rules:203]`."""
        text = str(kw.get("sep", " ")).join(str(a) for a in args)
        caller = env.get(CALLER)
        self.log(f"{text}   [{caller}]" if caller else text)

    def v_event(self, env, args, kw, span):
        name = args[0]
        keys = self.rs.events.get(name)
        if keys is None:
            raise RuleFault("RS105", f"no event named '{name}'", span, "declare it: event NAME { keys: [...] }")
        unknown = [k for k in kw if k not in keys]
        if unknown:
            raise RuleFault("RS107", f"event '{name}' has no key '{unknown[0]}'", span, f"its keys: {', '.join(keys)}")
        self.events.append({"event": name, **{k: events.json_safe(kw.get(k), span, k) for k in keys}})

    def _payment_in_progress(self):
        for fr in reversed(self.state["vm"]["frames"]):
            if isinstance(fr.get("k"), dict) and "need" in fr["k"]:
                return fr["k"]
        return None

    def v_add_to_payment(self, env, args, kw, span):
        """add_to_payment(symbol, n): n symbols for the payment in progress (a Crown an
        Indulgence lends while paying); with no payment in progress they are lost."""
        what, n = args[0], int((args[1] if len(args) > 1 else 1) or 0)
        if what not in self.rs.symbols:
            raise Abort(f"cannot gain '{what}'", span)
        k = self._payment_in_progress()
        if n <= 0:
            return
        if k is None:
            self.log(f"{env.get('player')} gains {n} {what} (not storable: lost)")
        else:
            k["pool"][what] = k["pool"].get(what, 0) + n

    def v_remeasure(self, env, args, kw, span):
        """remeasure(side): the tracks that measure something (`measures:`) put the side where
        the formula now says (its control discs changed)."""
        self._measures_moved(args[0])


    def place_measured_tracks(self):
        """Setup: tracks that measure something (the Cities track) start where they measure;
        their stacks follow the turn order, first player on top."""
        order = self.state["turn_order"]
        for tid, tr in self.rs.tracks.items():
            if tr["measures"] is None:
                continue
            st = self.state["tracks"][tid]
            for i, p in enumerate(order):
                st["pos"][p] = self._measured_position(tr, p)
                st["seq"][p] = len(order) - i
        self.state["seq"] = max(self.state["seq"], len(order))

    def _measured_position(self, tr, p) -> int:
        """The space a `measures` track puts `p` on: the formula's value, kept within the
        track's spaces (past the last space: the last space). Several values may share one
        space when the formula says so (the pack clamps the Cities track: 0-2 Cities are one
        space), and a player whose value changes within a space does not move."""
        new = int(tr["measures"](self, {"player": p}) or 0)
        if tr["spaces"]:
            new = max(0, min(new, len(tr["spaces"]) - 1))
        return new

    def _measures_moved(self, p):
        """Keep the `measures`-driven tracks (the Cities track) in step with the board: a
        player whose position changes goes on top of the new space's stack."""
        for tid, tr in self.rs.tracks.items():
            if tr["measures"] is not None:
                new = self._measured_position(tr, p)
                st = self.state["tracks"][tid]
                if st["pos"].get(p) != new:
                    st["pos"][p] = new
                    self.state["seq"] += 1
                    st["seq"][p] = self.state["seq"]
                    self.track_moved(p)

    def v_waste_leftover(self, env, args, kw, span):
        """The symbols the player tapped beyond a cost and has not used yet go to waste (the
        pack says where: e.g. at the end of each Winter step). Until then they pay the next
        costs of the same Action, or outside Actions of the same phase (payment.leftover)."""
        p = kw.get("player", env.get("player"))
        lo = self.state.get("leftover")
        if lo and lo["player"] == p:
            self.state.pop("leftover")
            self.log(f"{p}: unused " + ", ".join(f"{n} {s}" for s, n in sorted(lo["symbols"].items()))
                     + " go to waste")

    def track_moved(self, p):
        """Run the game's `on_track_move` block for side `p`, whose disc the engine has just
        moved on a track (what a track position gives may have changed)."""
        block = self.rs.game.get("on_track_move")
        if block is not None:
            vm.run_now(self, block, {"player": p})

    def v_advance(self, env, args, kw, span):
        track, n = args[0], int(args[1] if len(args) > 1 else 1)
        p = kw.get("player", env.get("player"))
        tr = self.rs.tracks.get(track)
        if tr is None:
            raise Abort(f"no track '{track}'", span)
        if tr["shared"]:
            raise Abort(f"track '{track}' has shared markers: move one with move_along({track}, n, marker: M)", span)
        st = self.state["tracks"][track]
        top = len(tr["spaces"]) - 1
        old = st["pos"].get(p, 0)
        new = max(0, min(top, old + n))
        if tr.get("max_steps_per_year") is not None and new > old:
            left = self._steps_left(p, track)
            if new - old > left:
                word = self.rs.game.get("round_name", "round")      # the pack's word: a Year, a Round...
                raise Abort(f"at most {tr['max_steps_per_year']} step(s) per {word} on this track "
                            f"({left} left this {word})", span)
            st["year_steps"][p] = [self.state["year"], self._steps_this_year(p, track) + new - old]
        st["pos"][p] = new
        self.state["seq"] += 1
        st["seq"][p] = self.state["seq"]
        self.track_moved(p)
        if new > old:
            sp = tr["spaces"][new]
            if sp["on_arrival"] is not None:
                return sp["on_arrival"], {"player": p}

    def v_move_along(self, env, args, kw, span):
        track = args[0]
        new = tracks.move_along(self, track, args[1], kw.get("marker"), span)
        if new is not None:
            arrival = self.rs.tracks[track]["spaces"][new]["on_arrival"]
            if arrival is not None:
                return arrival, {"player": kw.get("player", env.get("player"))}

    def v_set_turn_order(self, env, args, kw, span):
        order = list(args[0])
        if sorted(order) != sorted(self.state["players"]):
            raise Abort("a turn order must list every player once", span)
        self.state["turn_order"] = order

    def v_end_game(self, env, args, kw, span):
        self.state["over"] = True
        self.state["vm"]["frames"].clear()

    def v_play_phase(self, env, args, kw, span):
        ph = self.rs.phases.get(args[0])
        if ph is None:
            raise Abort(f"no phase '{args[0]}'", span)
        return ph["block"], {"player": None}

    def i_begin_phase(self, env, args, kw, span):
        self.state["phase"] = args[0]
        self.state["marks"] = []
        self.state["fresh"] = []
        self.state.pop("leftover", None)

    def i_phase_end_hook(self, env, args, kw, span):
        """The game's `on_phase_end:` block, run at the end of every phase before its end
        conditions are checked."""
        hook = self.rs.game.get("on_phase_end")
        return (hook, {"player": None}) if hook is not None else None

    def i_end_phase(self, env, args, kw, span):
        self.state["marks"] = []
        self.state["fresh"] = []
        self.state.pop("leftover", None)
        return self.v_check_end(env, [f"end_of_{args[0]}"], {}, span)

    def v_check_end(self, env, args, kw, span):
        """The end conditions declared for this moment (end_of_PHASE, end_of_round): one that
        holds ends the game at once or at the end of the round; the first that names its
        winners names them (`state["winners"]`, read by api.winners)."""
        at = flow.moment(args[0] if args else flow.END_OF_ROUND)
        for ec in self.rs.end_conditions:
            if ec["at"] == at and ec["check"] is not None and ec["check"](self, env):
                self.log(f"end of game triggered: {ec['decl'].title or ec['id']}")
                if ec["winners"] is not None and "winners" not in self.state:
                    self.state["winners"] = self._winners_named(ec, env)
                if ec["then"] == "immediately":
                    return self.v_end_game(env, [], {}, span)
                self.state["ending"] = True

    def _winners_named(self, ec, env) -> list:
        """The players an end condition's `winners:` names, in seat order (RS301 for a value
        that is not a list of this game's players)."""
        named = ec["winners"](self, env)
        fv = ec["decl"].fields["winners"]
        seats = self.state["players"]
        if not isinstance(named, (list, tuple, set, frozenset)) or any(w not in seats for w in named):
            raise RuleFault("RS301", f"end condition '{ec['id']}' names winners {named!r:.80}, which is not a list of "
                                     f"players of this game ({', '.join(seats)})", fv.span,
                            "`winners:` gives a list of players, e.g. `[p for p in players where p.gems >= 10]`")
        return [p for p in seats if p in named]

    # ------------------------------------------------------------ flow
    def on_flow_end(self):
        """The round block finished: end the game or play the next round."""
        if self.wrote is not None:      # what check_end and the next round's start write
            self.wrote.add_top(_ROUND_END_WRITES)
        self.v_check_end({"player": None}, [flow.END_OF_ROUND], {}, None)
        if self.state["ending"] or self.state["over"]:
            self.state["over"] = True
            return
        options = self.state["options"]
        bound = options.get("max_rounds") or options.get("max_years") or self.rs.game["max_rounds"]
        if self.state["year"] >= bound:
            self.state["over"] = True
            self.state["unfinished"] = True     # reported by validation as RS304
            return
        self.state["year"] += 1
        push(self, self.rs.game["round"], {"player": None})
