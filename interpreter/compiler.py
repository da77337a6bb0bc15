"""Compile checked AST into fast Python callables and a flat table of statement blocks.

Expressions become functions `f(rt, env) -> value` (rt: the Runtime, env: the local variables of
the running frame), each generated as Python source and compiled once, so that a formula runs
as one call (measured: the same games, move for move, about 5-10% faster than closures). Statement blocks become lists of small instruction tuples that the VM
(interpreter.vm) steps through; a block is referred to by its index in `Program.blocks`, so a
suspended game (waiting for a decision) is plain data: block index, program counter, locals.

Nothing here walks parse trees at play time.
"""
from __future__ import annotations

import itertools
import re
import warnings
from dataclasses import dataclass, field

from rulespec import ast as A
from rulespec import limits
from rulespec import prompts
from rulespec.board import EDGE_KINDS, GRAPH_FUNCTIONS, via_kinds
from rulespec.errors import UNKNOWN_SPAN, Diagnostic, RuleFault, RulespecError, Span
from rulespec.flow import NAME_SPELLINGS
from rulespec.vocabulary import ATTRIBUTES, CONSTANTS, FUNCTIONS, GLOBALS, VERBS
from rulespec.checker import catalogue_type
from rulespec.kinds import SPACE
from rulespec.world import CHECKER_TYPE, zone_type

from . import costs, world_store


# Instruction opcodes (first element of each instruction tuple)
LET, SET, IF, CHOOSE, FOR, REPEAT, OPTIONAL, EITHER, PAY, REQUIRE, CALL, BREAK, ROLL, RANDOM, SHUFFLE, PROC, \
    BRANCH, JUMP = range(18)
OPNAMES = ["let", "set", "if", "choose", "for", "repeat", "optional", "either", "pay", "require", "call", "break",
           "roll", "random", "shuffle", "call", "if", "jump"]
# PROC: a call of one of the pack's procedures the compiler resolved, `name(...)` or `run(name,
# ...)` (Compiler.stmt); CALL: any other verb, looked up when it runs (Runtime.verb)
CALLS = (CALL, PROC)
LOOPS = (FOR, REPEAT, CHOOSE)
# a call statement of one of the pack's procedures by its name is compiled to PROC, which runs it
# without looking the verb up (vm.x_proc); off: a CALL, through Runtime.verb (tests/test_speedups.py)
RESOLVED_PROCEDURES = True
# an `if` whose branches bind no name of their own is laid out in its block (BRANCH, the branches'
# statements, a JUMP past the others at the end of each but the last: vm.x_branch), where IF runs
# the branch as a block of its own, a frame pushed and popped; off: every `if` an IF
# (tests/test_speedups.py)
FLAT_IFS = True
# the verbs the engine gives its own blocks (Runtime's i_ methods; interpreter/ruleset.py calls
# them), besides the pack's (rulespec.vocabulary.VERBS): Runtime.verb finds them before a procedure
ENGINE_VERBS = ("run_block", "begin_phase", "phase_end_hook", "end_phase")
# the locals the engine itself gives a block, whatever its scope (Runtime.call, a thing's effect)
_CONTEXT_NAMES = ("player", "action", "self")

# levels of the rules' expressions in one generated Python function (deeper ones are chunked)
CHUNK_DEPTH = 10
# built-in functions given the position of their call, for the errors they may raise
SPANNED_FUNCTIONS = {"range", "reductions"}
# formulas inlined at their calls (Compiler._inline): at most this many syntax nodes, nested
# at most this deep
INLINE_NODES = 40
INLINE_DEPTH = 3
# expressions that nest nothing: never a chunk of their own (a chunk would cost a call, and in
# an inlined formula a dict of its variables, to read one name)
_LEAVES = (A.Name, A.Num, A.Str, A.Bool, A.NoneLit)
# expressions whose value needs nothing of the game: a number, a text, a flag, none, a cost
# (`2 florin`); Compiler.expr marks their functions `constant`
_LITERALS = (A.Num, A.Str, A.Bool, A.NoneLit, A.Qty)
# the generated code's own Python locals (a loop's element, a bound temporary)
_PLAIN_LOCAL = re.compile(r"_it|_t[0-9]+")
# the whole of an expression's source when it calls a generated function with the same arguments
_CALL_OF_GENERATED = re.compile(r"_k[0-9]+\(rt, env\)")
# the elements of a `for`, `choose` or `random` that pass its `where`: one generated comprehension
# (Compiler._loop_items); off: vm._passing tests the condition element by element
FILTERED_LOOPS = True
# a plain field read takes the record straight from the state's store (rt.rec only for an id
# the store lacks); off: every read calls rt.rec (tests/test_speedups.py)
DIRECT_RECORDS = True
# a comprehension over a list of records reads its variable's fields from the record it holds
# (Compiler._record_of); off: by the variable's ref, each time (tests/test_speedups.py)
RECORDS_IN_LOOPS = True
# A comprehension's `where` terms that name neither its variable nor anything that could fail
# (`paying_for() != none`) are asked once, before the iterable is worked out (c_Comprehension)
HOISTED_GUARDS = True
# built-ins without arguments that only read the payment in progress or considered
_PURE_CALLS = frozenset(("paying_for", "paying"))


@dataclass
class Program:
    """All compiled blocks of a pack. Instructions are tuples: (opcode, span, ...operands)."""
    blocks: list = field(default_factory=list)
    spans: list = field(default_factory=list)      # block index -> Span of the block
    # Span of a decision or `require` -> (its syntax node, the variables in scope): what
    # interpreter/why.py reads to say which condition of the rule refused a move
    sources: dict = field(default_factory=dict)

    def add(self, instrs: list, span: Span) -> int:
        self.blocks.append(instrs)
        self.spans.append(span)
        return len(self.blocks) - 1


def _zero(op, span):
    return RuleFault("RS301", f"{'division' if op == '/' else 'modulo'} by zero", span,
                     "guard the formula, e.g. `if n > 0 then x / n else 0`")


# (the text _static_or writes, the local of a comprehension's function that holds it, its value)
_LOOKED_UP_ONCE = (("(rt.state.get('vars') or ())", "_vars", "rt.state.get('vars') or ()"),
                   ("rt.rs.static_attrs", "_static", "rt.rs.static_attrs"))


def _conjuncts(e) -> list:
    """The terms of an `and` chain, in order."""
    if isinstance(e, A.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _invariant(e, var: str, scope: dict) -> bool:
    """Whether a `where` term can be asked once for a whole loop: it is made of literals, the
    variables in scope but the loop's, comparisons, and/or/not and the reading built-ins without
    arguments (_PURE_CALLS), so it neither changes from one element to the next nor fails."""
    if isinstance(e, (A.Num, A.Str, A.Bool, A.NoneLit)):
        return True
    if isinstance(e, A.Name):
        return e.id != var and e.id in scope
    if isinstance(e, A.Call):
        return isinstance(e.func, A.Name) and e.func.id in _PURE_CALLS and not e.args and not e.kwargs \
            and e.func.id not in scope
    if isinstance(e, A.Compare):
        return _invariant(e.left, var, scope) and _invariant(e.right, var, scope)
    if isinstance(e, A.Not):
        return _invariant(e.operand, var, scope)
    if isinstance(e, A.BinOp) and e.op in ("and", "or"):
        return _invariant(e.left, var, scope) and _invariant(e.right, var, scope)
    return False


def _cat(a, b) -> str:
    """`text + x`: the two joined as prompts show them ("alliance." + a)."""
    if a.__class__ is str and b.__class__ is str:       # (the common case: a text and an id)
        return a + b
    return prompts.show_value(a) + prompts.show_value(b)


def _div(a, b, span=None):
    if not b:
        raise _zero("/", span)
    return a // b


def _mod(a, b, span=None):
    a, b = a or 0, b or 0
    if not b:
        raise _zero("%", span)
    return a % b


_CODE: dict = {}        # (source, file name, mode) -> Python code object
_CODE_MAX = 200_000


def remember_code(codes: dict):
    """Add code objects compiled before (interpreter/codecache.py) to those of this process."""
    if len(_CODE) + len(codes) > _CODE_MAX:
        _CODE.clear()
    _CODE.update(codes)


def _python_code(key: tuple) -> tuple:
    """(Python's compile() of generated source, whether it was compiled now), remembered per
    process by (source, file name, mode): building the same pack again (a test's engines, a
    validator's, an overlay's shared rules) generates the same sources, and compile() was two
    thirds of an engine's build."""
    got = _CODE.get(key)
    if got is not None:
        return got, False
    if len(_CODE) > _CODE_MAX:
        _CODE.clear()
    with warnings.catch_warnings():     # Python's remarks on odd rules are not the designer's
        warnings.simplefilter("ignore", SyntaxWarning)
        got = _CODE[key] = compile(*key)
    return got, True


_UNSET = object()


def _index(o, i):
    try:
        return o[i]
    except (KeyError, IndexError, TypeError):
        return None


def _count(o, i):
    """One key of a `count by` field: 0 when the key is not stored (a zero count is not kept)."""
    try:
        return o.get(i, 0)
    except (AttributeError, TypeError):
        return 0


def _is_bool(e) -> bool:
    """Whether the compiled expression gives a Python bool itself (no bool() needed)."""
    return isinstance(e, (A.Compare, A.Not, A.Bool)) or (isinstance(e, A.BinOp) and e.op in ("and", "or"))


def _entry_value():
    from .verbs import entry_value     # (verbs imports the VM, which imports this module)
    return entry_value


class Compiler:
    """Compiles expressions/blocks of one resolved pack. `names` maps global ids to types
    (declarations, cities, seas, colours), as the checker does."""

    def __init__(self, names: dict, program: Program | None = None, literals: dict | None = None, slots=None,
                 methods: dict | None = None, bare: dict | None = None, world=None):
        self.names = names
        self.world = world                  # rulespec.world.World: zones for `move`, zones read by name
        self.methods = methods or {}        # (type, name) -> type of a method formula read x.name
        self.bare = bare or {}              # formulas without parameters (a bare name calls them) -> type
        self._body_node_classes: dict = {}  # formula -> the node classes of its body (_body_nodes)
        # the code objects this build used ((source, file, mode) -> code), and whether any was
        # compiled anew (interpreter/codecache.py then keeps them for the next process)
        self.codes: dict = {}
        self.compiled_anew = False
        # (type, field) -> where a field the pack declares is stored (Ruleset.slot), or None
        self.slots = slots or (lambda t, name: None)
        self.literals = literals or {}     # formula id -> its plain value, as prompts show it
        self.program = program or Program()
        from .state import type_of        # (state imports the VM, which imports this module)
        # globals of the generated code: helpers, then constants and comprehensions (_kN)
        self._ns: dict = {"_costs": costs, "_div": _div, "_mod": _mod, "_index": _index, "_count": _count,
                          "_field": world_store.get, "_ref_record": world_store._ref_record, "_record": world_store.new_record,
                          "_refs_list": world_store.refs_list, "_zone_held": world_store.zone_held,
                          "_entry_ids": world_store.entry_ids, "_index_ref": world_store.index_ref,
                          "_listed": world_store.listed,
                          "_entry": _entry_value(), "_type_of": type_of, "_UNSET": _UNSET,
                          "_NONES": itertools.repeat(None), "_cat": _cat}
        self.records: dict = {}             # record type -> its KindDef (rulespec.world): `R(f: v)` makes one
        self.catalogue: dict = {}           # (kind, field) -> type: the fields of catalogue kinds (Checker.catalogue_fields)
        self.catalogue_ids: set = set()     # (kind, "id") of every catalogue kind: `x.id` is its catalogue id
        self._catalogue_names: set | None = None     # _catalogue_only's names
        self._tmps = 0
        self._depth = 0         # of the expression being compiled, within its generated function
        self._pyvars: dict = {}             # rules variable -> Python local, in a comprehension's own code
        # formula id -> its declaration, for inlining small formulas at their calls (_inline)
        self.formula_decls: dict = {}
        self._inlining: tuple = ()          # the formulas being inlined, innermost last
        # while an inlined formula's body is compiled: the Python source of the formula's own
        # variables (`local` of Runtime.formula), for the generated functions that read them
        self._inline_env: str | None = None
        # a comprehension over a list of records (`for s in p.court`): its iterable binds the
        # stored list (`_want_records`: to this Python local), and while its element and
        # condition are compiled, `_loop_records` = (variable, record type): the variable's
        # fields are read from its record (`_rec_it`) rather than by its ref; over a zone with
        # entry fields (`for t in p.tiles`), (variable, the ZoneDef): its entry fields likewise
        self._want_records: str | None = None
        self._records_of = None         # the record type, or the zone, the iterable read
        # while the right side of `in` is compiled: a list field may be read without its copy
        self._peek = False
        self._loop_records: tuple | None = None
        # What the code being compiled reads of the state, while `noting` (a constraint's check,
        # a formula): items the Ruleset resolves into a constraint's static reads
        # (Ruleset.static_reads; interpreter/constraints.py). `_roles`: rules variable -> the
        # side it holds ("player": the player the formula is evaluated for; ("param", name):
        # a parameter of the formula compiled; ("rec", role): a record of that side's list;
        # "any" or absent: any side)
        self.noted: set | None = None
        self._roles: dict = {}
        self._keyed = None          # (the Attr indexed by c_Index, the side its index is)
        # record type -> (store, key) of the list that keeps its records (Ruleset.record_lists)
        self.record_lists: dict = {}

    def noting(self, roles: dict | None = None) -> "_Noting":
        """`with comp.noting() as items:` the read items of what is compiled inside."""
        return _Noting(self, roles or {})

    def _note(self, item):
        if self.noted is not None:
            self.noted.add(item)

    def _role(self, e, scope) -> object:
        """The side the value of expression `e` is, as far as compiling tells (_roles)."""
        if isinstance(e, A.Name):
            n = e.id
            if n in self._roles:
                return self._roles[n]
            if n in scope:
                return "any"
            if NAME_SPELLINGS.get(n, n) == "player":
                return "player"
        return "any"

    def _note_slot(self, slot, e, scope):
        """The reads of field `e.name` kept at `slot` (world_store.Slot), as items."""
        if self.noted is None or slot.on_map or slot.on_board:      # printed: the pack's own
            return
        field = slot.home or slot.key
        if slot.of_record:
            lst = self.record_lists.get(slot.kind)
            if lst is None or lst[0] != "p":
                self._note(("unknown", f"a field of {slot.kind}"))
                return
            role = self._role(e.obj, scope)
            owner = role[1] if type(role) is tuple and role[0] == "rec" else "any"
            self._note(("side", owner, lst[1]))
            self._note(("side", owner, f"{lst[1]}.{field}"))
        elif slot.store == "p":
            role = self._role(e.obj, scope)
            self._note(("side", "any" if type(role) is tuple and role[0] == "rec" else role, field))
        elif slot.store:
            self._note(("top", slot.store))
            keyed = self._keyed
            if keyed is not None and keyed[0] is e and slot.shape == "count" and not slot.home:
                role = keyed[1]     # one side's key of it (constraints._Reads: keyed)
                self._note(("keyed", "any" if type(role) is tuple and role[0] == "rec" else role,
                            slot.store, field))
            else:
                self._note(("top", f"{slot.store}.{field}"))
        else:
            self._note(("top", field))

    @staticmethod
    def _none_fn(rt, env):
        return None

    def fail(self, msg, span):
        raise RulespecError(Diagnostic("RS106", msg, span, "run `rulespec validate` for details"))

    # ------------------------------------------------------------ expressions
    # An expression becomes Python source (`_src`), compiled once into one function
    # `f(rt, env)`: a formula runs as a single call, not as a tree of small closures.
    # Comprehensions become small generated functions of their own.

    def expr(self, e, scope: dict):
        """-> (callable f(rt, env), static type). A literal's function carries its value as
        `constant` (Runtime.catalogue_field remembers it like a plain value of the catalogue)."""
        src, t = self.source(e, scope)
        if _CALL_OF_GENERATED.fullmatch(src):      # a comprehension's function: itself, not a
            return self._ns[src[:src.index("(")]], t     # function that only calls it
        f = self._compile(f"lambda rt, env: {src}")
        if isinstance(e, _LITERALS):
            f.constant = f(None, {})
        return f, t

    def source(self, e, scope: dict) -> tuple:
        """-> (Python source of the expression, reading locals from `env`; static type): what
        `expr` compiles, and what a call site's generated function (`call`) is made of."""
        saved, self._pyvars = self._pyvars, {}
        try:
            with limits.deep_recursion():       # a few Python frames per level of the rules
                return self._src(e, scope, "env")
        finally:
            self._pyvars = saved

    def fn(self, e, scope):
        return self.expr(e, scope)[0]

    def _compile(self, code: str):
        return eval(self._code((code, "<rulespec expression>", "eval")), self._ns)

    def _exec(self, code: str, what: str):
        exec(self._code((code, f"<rulespec {what}>", "exec")), self._ns)

    def _code(self, key: tuple):
        got, fresh = _python_code(key)
        self.codes[key] = got
        self.compiled_anew |= fresh
        return got

    def _const(self, value) -> str:
        """A name for a constant of the generated code (any Python value, shared, not copied)."""
        ns = self._ns
        name = f"_k{len(ns)}"
        ns[name] = value
        return name

    def _tmp(self) -> str:
        self._tmps += 1
        return f"_t{self._tmps}"

    def _src(self, e, scope: dict, env: str):
        """-> (Python source of the expression, reading locals from `env`; static type)"""
        m = getattr(self, "c_" + type(e).__name__, None)
        if m is None:
            self.fail(f"cannot compile {type(e).__name__}", e.span)
        if self._depth >= CHUNK_DEPTH and not isinstance(e, _LEAVES):
            return self._chunk(e, scope, env)
        self._depth += 1
        try:
            return m(e, scope, env)
        finally:
            self._depth -= 1

    def _chunk(self, e, scope: dict, env: str):
        """A deep subexpression becomes a generated function of its own, called from here: the
        generated Python never nests deeper than CHUNK_DEPTH levels of the rules (Python
        refuses more than 200 nested parentheses; a sum of 70 terms would need them)."""
        saved, self._depth = self._depth, 0
        saved_vars, self._pyvars = self._pyvars, {}
        saved_inline, self._inline_env = self._inline_env, None
        try:
            src, t = self._src(e, scope, "env")
        finally:
            self._depth, self._pyvars, self._inline_env = saved, saved_vars, saved_inline
        call_env = saved_inline or env      # an inlined formula's body: its own variables
        name = self._const(None)
        self._exec(f"def {name}(rt, env):\n    return {src}\n", "expression")
        return f"{name}(rt, {call_env})", t

    def _bound(self, src: str) -> tuple:
        """(a Python name for the value of `src`, the source that evaluates and binds it): a
        Python local of the generated code is its own name, anything else a new temporary."""
        if _PLAIN_LOCAL.fullmatch(src):
            return src, src
        t = self._tmp()
        return t, f"({t} := {src})"

    def literal(self, v) -> str:
        """The Python source of a constant value (a number or text as itself, else a name)."""
        return repr(v) if type(v) in (int, str) else self._const(v)

    def c_Num(self, e, scope, env):
        return self.literal(e.value), "number"

    def c_Str(self, e, scope, env):
        return self.literal(e.value), "str"

    def c_Bool(self, e, scope, env):
        return ("True" if e.value else "False"), "bool"

    def c_NoneLit(self, e, scope, env):
        return "None", "none"

    def c_Name(self, e, scope, env):
        n = e.id
        if n in scope:
            py = self._pyvars.get(n)
            if py is not None:          # a comprehension's variable, a Python local there
                return py, scope[n] or "any"
            return f"{env}[{n!r}]", scope[n] or "any"
        n = NAME_SPELLINGS.get(n, n)
        env = self._pyvars.get(None, env)
        if n in GLOBALS:
            if n == "player":
                return f"{env}.get('player')", "player"
            if n == "self":
                return f"{env}.get('self')", "any"
            if n == "game":         # the game's own fields: game.F (world_store: the state's top level)
                return "'game'", "game"
            self._note(("global", n))
            return f"rt.g_{n}({env})", GLOBALS[n][0]
        gz = self.world.game_zone(n) if self.world is not None else None
        if gz is not None:
            self._note(("top", gz.store))
            self._note(("top", f"{gz.store}.*"))
            return f"rt.zone_things({self._const(world_store.zone_read(gz))}, None)", zone_type(gz)
        pk = self.world.plural_kind(n) if self.world is not None else None
        if pk is not None and not (n in self.bare and self.names.get(n) == "formula"):
            self._note(("top", pk.store))
            # the plural of a kind with stored records: its instances (`alliances`, `cities`,
            # `sides`), instances(KIND) read straight from the store
            ctype = CHECKER_TYPE.get(pk.name, pk.name)
            want, self._want_records = self._want_records, None
            if want is not None:        # a comprehension's iterable: its records too, in order
                self._records_of = ctype
                return f"list((({want} := (_st := rt.state[{pk.store!r}]).values()), _st)[1])", "set:" + ctype
            return f"list(rt.state[{pk.store!r}])", "set:" + ctype
        if n in self.bare and self.names.get(n) == "formula":
            self._note(("call", n, (), ()))
            return f"rt.named({n!r}, {env})", self.bare[n]
        if n in self.names:
            return repr(n), self.names[n]
        if n in CONSTANTS:
            return repr(n), "str"
        self.fail(f"unknown name '{n}'", e.span)

    def c_Qty(self, e, scope, env):
        return self._const(costs.qty(e.symbol, e.count)), "cost"

    def c_PerCost(self, e, scope, env):
        per, _ = self._src(e.per, scope, env)
        return f"_costs.qty({e.symbol!r}, {e.count!r} * int({per}))", "cost"

    def c_MoreThan(self, e, scope, env):
        than, _ = self._src(e.than, scope, env)
        return f"_costs.qty({e.symbol!r}, int({than}) + 1)", "cost"

    def c_Attr(self, e, scope, env):
        want, self._want_records = self._want_records, None     # for this Attr alone, not its parts
        peek, self._peek = self._peek, False
        obj, t = self._src(e.obj, scope, env)
        base = t.rstrip("?")
        name = e.name
        # what the runtime reads `player` and `action` from (a comprehension's own variable is
        # neither: its generated code then needs no dict of its variables for these calls)
        raw_env, env = env, self._pyvars.get(None, env)
        if base in ATTRIBUTES and name in ATTRIBUTES[base]:
            self._note(("unknown", f"rt.a_{base}_{name}"))
            o, bind = self._bound(obj)
            return f"(None if {bind} is None else rt.a_{base}_{name}({o}))", ATTRIBUTES[base][name][0]
        slot = self.slots(base, name)
        if slot is not None:
            self._note_slot(slot, e, scope)
            # a field the pack declares: read from the record (rt.rec: Abort on a bad id)
            o, bind = self._bound(obj)
            if slot.on_map:         # printed on the map (`@map`): the instance's map.yaml entry
                read = f"rt.board.field({o}, {slot.on_map!r}, {self.literal(slot.default)})"
            elif slot.on_board:     # printed on the side's board (`@printed`): Ruleset.printed
                read = f"rt.rs.printed(rt, {self._const(slot)}, {o})"
            elif slot.direct and not DIRECT_RECORDS:
                read = f"rt.rec({slot.store!r}, {o})[{slot.key!r}]"
            elif slot.direct:
                # the record straight from the store; rt.rec only for an id it lacks (Abort)
                # or a value that is not an id. (`is None`, not `or`: the truth of a record
                # would read all its fields, for the constraint checker's notes)
                if self._is_loop_record(e, base):       # `c.troops` for c in cities
                    rec = "_rec_it"
                else:
                    r = self._tmp()
                    rec = (f"({r} if ({r} := (rt.state[{slot.store!r}].get({o}) if {o}.__class__ is str else None)) "
                           f"is not None else rt.rec({slot.store!r}, {o}))")
                read = f"{rec}[{slot.key!r}]"
                if slot.shape == "list" and not peek:
                    read = f"list({read})"          # a copy: the record's list is the state's
            elif slot.of_record and not slot.home and not slot.sparse and slot.shape not in ("list", "records", "index"):
                # a field of a record of a list ("red.room2".agent): world_store.get's own read
                read = f"{self._record_of(e, slot, o)}[{slot.key!r}]"
            elif slot.home:
                read = f"rt.rec({slot.store!r}, {o})[{slot.home!r}].get({slot.key!r}, {self.literal(slot.default)})"
            elif slot.of_record and slot.sparse and slot.shape == "scalar":
                # a field of a record of a list kept only once set (court_space.shaded)
                read = f"{self._record_of(e, slot, o)}.get({slot.key!r}, {self.literal(slot.default)})"
            elif not slot.of_record and (slot.shape in ("records", "index") and not slot.sparse
                                         or slot.shape == "list" and slot.sparse):
                # world_store.get's reads of a stored record's list of records (as refs), the
                # index of one of them (player.marker) or a list kept only once set, in place
                if slot.store:
                    r = self._tmp()
                    rec = (f"({r} if ({r} := (rt.state[{slot.store!r}].get({o}) if {o}.__class__ is str else None)) "
                           f"is not None else rt.rec({slot.store!r}, {o}))")
                else:
                    rec = "rt.state"            # the game's own fields
                if slot.shape == "records":
                    stored = f"{rec}[{slot.key!r}]"
                    if want is not None:        # a comprehension's iterable: its records too
                        stored, self._records_of = f"({want} := {stored})", slot.item
                    read = f"_refs_list({slot.item!r}, {o}, {stored})"
                elif slot.shape == "index":
                    read = f"_index_ref({slot.item!r}, {o}, {rec}[{slot.key!r}])"
                elif peek:          # only looked in (`x in game.fresh`)
                    read = f"{rec}.get({slot.key!r}, {self.literal(slot.default)})"
                else:
                    read = f"_listed({rec}.get({slot.key!r}, {self.literal(slot.default)}))"
            else:
                read = f"_field(rt, {self._const(slot)}, {o})"
            if read.startswith("_rec_it["):     # the loop's own element: never none
                return read, slot.checker_type
            return f"(None if {bind} is None else {read})", slot.checker_type
        if base == "space" and name in SPACE.fields:
            # a field of a track's `space` block (space(t, n).points): its declared value
            self._note(("space", name))
            o, bind = self._bound(obj)
            return f"(None if {bind} is None else rt.space_field({o}, {name!r}, {env}))", \
                catalogue_type(SPACE.fields[name].type)
        ct = self.catalogue.get((base, name))
        if ct is not None:
            # a field of a catalogue kind (`kind card { field pp: number }`): what the thing's
            # declaration gives, read straight from the catalogue
            self._note(("catalogue", name))
            return self._static_or(obj, name, "catalogue_field", env, guard=True), ct
        if name == "id" and (base, "id") in self.catalogue_ids:
            o, bind = self._bound(obj)         # the catalogue id of a thing: 'merchant' for the copy 'merchant#2'
            return f"(None if {bind} is None else _type_of({o}))", "str"
        if self.world is not None and self.world.entry_field(base, name) is not None:
            # an entry field: kept where the thing is now (interpreter/verbs.py)
            self._note(("unknown", f"entry field {name}"))
            ftype = self.world.entry_field(base, name).type.checker()
            lr = self._loop_records
            if lr is not None and lr[1].__class__ is not str and name in lr[1].entry \
                    and isinstance(e.obj, A.Name) and self._pyvars.get(e.obj.id) == "_it":
                # the element of a loop over a zone's entries (`t.exhausted` for t in
                # player.tiles): its own entry, at hand
                return f"_rec_it[{lr[1].entry[name].key!r}]", ftype
            o, bind = self._bound(obj)
            return f"(None if {bind} is None else _entry(rt, {o}, {name!r}))", ftype
        zone = self.world.zone_on(base, name) if self.world is not None else None
        if zone is not None:
            # a zone each of them owns (player.tiles): the things it holds, in order
            if zone.store == "p":
                role = self._role(e.obj, scope)
                role = "any" if type(role) is tuple and role[0] == "rec" else role
                self._note(("side", role, zone.key))
                if zone.shape == "entries":         # the ids of its entries (world_store.zone_things)
                    self._note(("side", role, f"{zone.key}.id"))
            else:
                self._note(("top", zone.store))
                self._note(("top", f"{zone.store}.*"))
            o, bind = self._bound(obj)
            zr = self._const(world_store.zone_read(zone))
            if want is not None and zone.shape == "entries" and zone.entry:
                # a comprehension's iterable: its entries too, for their fields (c_Comprehension)
                self._records_of = zone
                return (f"(None if {bind} is None else _entry_ids({want} := _zone_held(rt, {zr}, {o})))",
                        zone_type(zone))
            return f"(None if {bind} is None else rt.zone_things({zr}, {o}))", zone_type(zone)
        if (base, name) in self.methods:
            # a method formula: `x.name` is name(x), memoised while nothing can change; one
            # that only reads fields (no call, no comprehension) is compiled in place, as a
            # small formula's call is (_inline): cheaper than the memo's lookup
            o, bind = self._bound(obj)
            if self._reads_only(name):
                inlined = self._inline(name, [o], raw_env, [self._role(e.obj, scope)])
                if inlined is not None:
                    return f"(None if {bind} is None else {inlined[0]})", self.methods[(base, name)]
            self._note(("call", name, (self._role(e.obj, scope),), ()))
            return f"(None if {bind} is None else rt.method({name!r}, {o}, {env}))", self.methods[(base, name)]
        rec = self.records.get(base)
        if rec is not None and name in rec.fields:      # a field of a record value (game.fight.terms)
            return f"rt.attr({obj}, {rec.fields[name].key!r}, {env})", rec.fields[name].type.checker()
        # a value whose type is only known at run time, or a field of a declared object
        self._note(("attr", name))
        if self._catalogue_only(name):      # only a catalogue kind has it: Runtime.attr's first answer inline
            return self._static_or(obj, name, "attr", env, guard=False), "any"
        return f"rt.attr({obj}, {name!r}, {env})", "any"

    def _static_or(self, obj: str, name: str, call: str, env: str, guard: bool) -> str:
        """`obj.name` read inline when it is a plain value of the thing's catalogue entry
        (Ruleset.static_attrs, remembered per ruleset) and the thing has no variables of its
        own, else by the call `rt.CALL(obj, name, env)`: the first answer of Runtime.attr and
        Runtime.catalogue_field without the call (one Cathedral's `city` among the variables
        no longer sends every read to the call). guard: a none object reads none (else the
        call is given it)."""
        (o, bind), v = self._bound(obj), self._tmp()
        read = (f"{v} if ({o if guard else bind}.__class__ is str and {o} not in (rt.state.get('vars') or ()) "
                f"and ({v} := rt.rs.static_attrs.get(({o}, {name!r}), _UNSET)) is not _UNSET) "
                f"else rt.{call}({o}, {name!r}, {env})")
        return f"(None if {bind} is None else {read})" if guard else f"({read})"

    def _catalogue_only(self, name) -> bool:
        """Whether `x.name` names a field of catalogue kinds (or their id) and of no kind, record
        or zone of the world (whose values Runtime.attr finds elsewhere)."""
        got = self._catalogue_names
        if got is None:
            w = self.world
            other = set()
            if w is not None:
                for k in list(w.kinds.values()) + list(w.records.values()):
                    other |= set(k.fields)
                for z in w.zones.values():
                    other |= set(z.entry) | {z.name}
            got = self._catalogue_names = {n for _, n in self.catalogue} - other
            if self.catalogue_ids and "id" not in other:
                got.add("id")
        return name in got

    def c_Call(self, e, scope, env):
        if not isinstance(e.func, A.Name):
            self.fail("only named functions can be called", e.span)
        name = e.func.id
        if name == "find" and len(e.args) == 3:
            return self._find(e, scope, env)
        if name == "instances" and len(e.args) == 1 and isinstance(e.args[0], A.Name):
            k = e.args[0].id            # a kind's name, not a value (checked: rulespec.checker)
            self._note(("instances", k))
            return f"rt.f_instances({k!r})", "set:" + CHECKER_TYPE.get(k, k)
        if name in GRAPH_FUNCTIONS and set(e.kwargs) == {"via"}:
            self._note(("unknown", name))
            kinds, bad = via_kinds(e.kwargs["via"])        # edge kinds: names of the map format
            if bad or not kinds:
                self.fail(f"{name}(..., via: KIND) needs edge kinds of the map ({', '.join(EDGE_KINDS)})", e.span)
            args = [self._src(a, scope, env)[0] for a in e.args]
            return f"rt.f_{name}({', '.join(args + [repr(kinds)])})", FUNCTIONS[name].returns
        args = [self._src(a, scope, env)[0] for a in e.args]
        kw = {k: self._src(v, scope, env)[0] for k, v in e.kwargs.items()}
        if name in FUNCTIONS:
            if kw:          # no built-in function takes a keyword (the checker says so: RS107)
                raise RulespecError(Diagnostic("RS107", f"function '{name}' takes no keyword argument "
                                               f"'{next(iter(kw))}'", e.span, "run `rulespec validate` for details"))
            rtype = "number" if name in ("max", "min") else FUNCTIONS[name].returns
            self._note(("builtin", name, tuple(self._role(a, scope) for a in e.args),
                        tuple(a.value if isinstance(a, A.Str) else None for a in e.args)))
            if name in SPANNED_FUNCTIONS:           # they may pass a limit: they say where
                args = args + [self._const(e.span)]
            return f"rt.f_{name}({', '.join(args)})", rtype
        if name in self.records and not args:          # a record value: R(field: value, ...)
            kws = ", ".join(f"{k!r}: {v}" for k, v in kw.items())
            return f"_record(rt, {name!r}, {{{kws}}})", name
        kind = self.names.get(name)
        if kind == "formula" and not kw and not args and name in self.bare and self._iterates(name):
            # `seated()` as `seated`: memoised while nothing can change (Runtime.named), where
            # inlining would build its list again at every use
            self._note(("call", name, (), ()))
            return f"rt.named({name!r}, {self._pyvars.get(None, env)})", self.bare[name]
        if kind == "formula" and not kw:
            inlined = self._inline(name, args, env, [self._role(a, scope) for a in e.args])
            if inlined is not None:
                return inlined
        if kind == "formula":
            self._note(("call", name, tuple(self._role(a, scope) for a in e.args),
                        tuple((k, self._role(v, scope)) for k, v in e.kwargs.items())))
            kws = ", ".join(f"{k!r}: {v}" for k, v in kw.items())
            return f"rt.formula({name!r}, [{', '.join(args)}], {{{kws}}}, {self._pyvars.get(None, env)})", "any"
        if kind == "table":         # the pack's own rows: nothing of the game
            return f"rt.table_lookup({', '.join([repr(name)] + args)})", "any"
        self.fail(f"unknown function '{name}'", e.span)

    def _body_nodes(self, name) -> frozenset:
        """The node classes in a formula's value expression, walked once per formula (empty
        when its value is no expression)."""
        got = self._body_node_classes.get(name)
        if got is None:
            d = self.formula_decls.get(name)
            fv = d.fields.get("value") if d is not None else None
            body = fv.value if fv is not None else None
            got = self._body_node_classes[name] = \
                frozenset(type(n) for n in A.walk(body)) if isinstance(body, A.Expr) else frozenset()
        return got

    def _reads_only(self, name) -> bool:
        """Whether a formula's body calls nothing and builds no list (only reads and operators)."""
        nodes = self._body_nodes(name)
        return bool(nodes) and A.Call not in nodes and A.Comprehension not in nodes

    def _iterates(self, name) -> bool:
        """Whether a formula's body builds a list (a comprehension): worth remembering."""
        return A.Comprehension in self._body_nodes(name)

    def _inline(self, name, args: list, env: str, roles: list = ()):
        """A call of a small formula compiled in place (its body with its parameters bound to
        the arguments, each evaluated once, first, in order): the same value as
        Runtime.formula gives, without a call, a dict and a binding per use (measured: formula
        calls were a sixth of a playout's Python calls). The body reads the formula's own
        variables only: the parameters (Python locals here), `player` and `action` from the
        caller's (Runtime.formula copies those two), and globals; generated functions inside it
        (comprehensions, chunks) get the formula's variables as a dict, as Runtime.formula
        would give them. Not inlined: recursive or large formulas, calls by keyword, defaults
        that are not literals, bodies that read `self`. (An inlined formula does not count
        against the formula-call work budget; comprehensions inside it still do.)"""
        d = self.formula_decls.get(name)
        if d is None or name in self._inlining or len(self._inlining) >= INLINE_DEPTH:
            return None
        fv = d.fields.get("value")
        body = fv.value if fv is not None else None
        if not isinstance(body, A.Expr) or len(args) > len(d.params):
            return None
        size = 0
        for n in A.walk(body):
            size += 1
            if isinstance(n, A.Name) and NAME_SPELLINGS.get(n.id, n.id) == "self" and n.id not in {p.name for p in d.params}:
                return None
        if size > INLINE_NODES:
            return None
        values = list(args)
        for p in d.params[len(args):]:
            if p.default is None:
                values.append("None")
            elif isinstance(p.default, (A.Num, A.Str, A.Bool, A.NoneLit)):
                values.append(self._src(p.default, {}, env)[0])
            else:
                return None
        from rulespec.checker import param_types
        scope = param_types(d.params)
        # a parameter given a Python local (the loop's `_it`, an inlined formula's own) reads that
        # local itself: no binding, and a loop's element keeps its record (_is_loop_record)
        bound = [self._bound(v) for v in values]
        tmps = [t for t, _ in bound]
        penv = self._pyvars.get(None, env)     # what `player` and `action` are read from (c_Attr)
        local = "{" + ", ".join([f"'player': {penv}.get('player')", f"'action': {penv}.get('action')"]
                                + [f"{p.name!r}: {t}" for p, t in zip(d.params, tmps)]) + "}"
        saved = self._pyvars, self._inline_env, self._inlining, self._roles
        try:
            self._pyvars = dict(zip((p.name for p in d.params), tmps))
            self._pyvars[None] = penv       # (the variables the caller reads `player` from)
            self._inline_env, self._inlining = local, self._inlining + (name,)
            self._roles = {p.name: (roles[i] if i < len(roles) else "any") for i, p in enumerate(d.params)}
            src, _ = self._src(body, scope, env)
        finally:
            self._pyvars, self._inline_env, self._inlining, self._roles = saved
        binds = [b for t, b in bound if b != t]
        if not binds:
            return f"({src})", "any"
        return f"({', '.join(binds)}, {src})[{len(binds)}]", "any"

    def _find(self, e, scope, env):
        """find(KIND, FIELD, v): KIND and FIELD are names of the world, resolved here."""
        kind, fname, value = e.args
        ktype = CHECKER_TYPE.get(getattr(kind, "id", None), getattr(kind, "id", None))
        slot = self.slots(ktype, getattr(fname, "id", None)) if ktype else None
        if slot is None or not slot.direct:
            self.fail("find(KIND, FIELD, value) needs a kind and one of its stored fields", e.span)
        v, _ = self._src(value, scope, env)
        self._note(("top", slot.store))
        self._note(("top", f"{slot.store}.{slot.key}"))
        return f"rt.f_find({slot.store!r}, {slot.key!r}, {v})", "set:" + ktype

    def c_Index(self, e, scope, env):
        saved = self._keyed
        if isinstance(e.obj, A.Attr) and self.noted is not None:
            # `c.troops[p]`: one key of a dict field of the state's records, read for side p
            self._keyed = (e.obj, self._role(e.index, scope))
        try:
            obj, t = self._src(e.obj, scope, env)
        finally:
            self._keyed = saved
        idx, _ = self._src(e.index, scope, env)
        if isinstance(e.obj, A.Attr):
            _, ot = self._src(e.obj.obj, scope, env)
            slot = self.slots(ot.rstrip("?"), e.obj.name)
            if slot is not None and slot.shape == "count":
                c = self._tmp()     # a key not stored counts 0 (_count: also for no record)
                return f"({c}.get({idx}, 0) if ({c} := {obj}).__class__ is dict else _count({c}, {idx}))", "number"
        return f"_index({obj}, {idx})", (t[4:] if t.startswith("set:") else "any")

    def c_BinOp(self, e, scope, env):
        (l, lt), (r, rt_) = self._src(e.left, scope, env), self._src(e.right, scope, env)
        op = e.op
        if op in ("and", "or"):         # a comparison, `not`, and/or are already a bool
            l = l if _is_bool(e.left) else f"bool({l})"
            r = r if _is_bool(e.right) else f"bool({r})"
            return f"({l} {op} {r})", "bool"
        if op == "|":
            return f"_costs.alternative(_costs.as_cost({l}), _costs.as_cost({r}))", "cost"
        if "cost" in (lt, rt_) or "symbol" in (lt, rt_):
            if op == "+":
                return f"_costs.combine(_costs.as_cost({l}), _costs.as_cost({r}))", "cost"
            if op == "*":
                if lt in ("cost", "symbol"):
                    return f"_costs.times(_costs.as_cost({l}), int({r}))", "cost"
                return f"_costs.times(_costs.as_cost({r}), int({l}))", "cost"
        if op == "+" and "str" in (lt, rt_):
            return f"_cat({l}, {r})", "str"         # texts join (a thing's id joins as its id)
        if op == "+" and lt.startswith("set:"):
            return f"(list({l} or ()) + list({r} or ()))", lt      # lists concatenate
        if op == "/":
            return f"_div({l}, {r}, {self._const(e.span)})", "number"
        if op == "%":
            return f"_mod({l}, {r}, {self._const(e.span)})", "number"
        if op == "+" and lt == "any" and rt_ == "any":
            # two values whose types are known only at run time: lists concatenate (none and an
            # empty list add nothing; `(a or 0) + (b or 0)` gave 0 + [..] for an empty left list),
            # anything else adds as numbers. Both sides are read once, left first (`|`, not `or`).
            ta, tb = self._tmp(), self._tmp()
            return (f"((list({ta} or ()) + list({tb} or ())) if ((({ta} := {l}).__class__ is list) | "
                    f"(({tb} := {r}).__class__ is list)) else (({ta} or 0) + ({tb} or 0)))"), "any"
        # none counts as 0 (a number written in the rules is never none)
        a = l if isinstance(e.left, A.Num) else f"(({l}) or 0)"
        b = r if isinstance(e.right, A.Num) else f"(({r}) or 0)"
        return f"({a} {op} {b})", "number"

    def c_Compare(self, e, scope, env):
        l, _ = self._src(e.left, scope, env)
        # a membership test only reads the list: a field's stored list, not a copy (c_Attr)
        self._peek = e.op in ("in", "not in")
        try:
            r, _ = self._src(e.right, scope, env)
        finally:
            self._peek = False
        op = e.op
        if op == "in":
            return f"({l} in ({r} or ()))", "bool"
        if op == "not in":
            return f"({l} not in ({r} or ()))", "bool"
        if op in ("==", "!="):
            # `x == none` (very common in `where` filters): values are plain data, for which
            # `== None` is `is None`
            if isinstance(e.right, A.NoneLit) or isinstance(e.left, A.NoneLit):
                other = e.left if isinstance(e.right, A.NoneLit) else e.right
                if isinstance(other, (A.NoneLit, A.Num, A.Str, A.Bool)):     # known now (and no
                    return str((isinstance(other, A.NoneLit)) == (op == "==")), "bool"   # SyntaxWarning)
                x = l if isinstance(e.right, A.NoneLit) else r
                return f"({x} {'is' if op == '==' else 'is not'} None)", "bool"
            return f"({l} {op} {r})", "bool"
        # none counts as 0 in an order comparison (a number written in the rules is never none)
        a = l if isinstance(e.left, A.Num) else self._none_as_0(l)
        b = r if isinstance(e.right, A.Num) else self._none_as_0(r)
        return f"({a} {op} {b})", "bool"

    def _none_as_0(self, src: str) -> str:
        t = self._tmp()
        return f"({t} if ({t} := {src}) is not None else 0)"

    def c_Not(self, e, scope, env):
        return f"(not {self._src(e.operand, scope, env)[0]})", "bool"

    def c_Neg(self, e, scope, env):
        return f"(-(({self._src(e.operand, scope, env)[0]}) or 0))", "number"

    def c_CondExpr(self, e, scope, env):
        c, _ = self._src(e.cond, scope, env)
        (a, at), (b, bt) = self._src(e.then, scope, env), self._src(e.else_, scope, env)
        return f"({a} if {c} else {b})", (at if at == bt else "any")

    def c_ListExpr(self, e, scope, env):
        items = [self._src(i, scope, env) for i in e.items]
        types = {i[1] for i in items}
        return f"[{', '.join(i[0] for i in items)}]", "set:" + (types.pop() if len(types) == 1 else "any")

    def _record_of(self, e, slot, o: str) -> str:
        """The record whose field `e` reads (o: the Python name of its ref): the loop's own
        record in a comprehension over a list of records of that type (`s.card` for s in
        p.court), else the record found by its ref (world_store._ref_record)."""
        return "_rec_it" if self._is_loop_record(e, slot.kind) else f"_ref_record(rt, {o}, {slot.kind!r})"

    def _is_loop_record(self, e, kind: str) -> bool:
        """Whether `e` (a field read) reads a field of the element of the comprehension being
        compiled, whose record is at hand (`_rec_it`, never none while it iterates): its object
        is a name the Python code reads as the loop's own `_it` (the loop variable, or a
        parameter of a formula inlined with it), in a loop over records of that kind."""
        lr = self._loop_records
        return lr is not None and lr[1] == kind and isinstance(e.obj, A.Name) \
            and self._pyvars.get(e.obj.id) == "_it"

    def c_Comprehension(self, e, scope, env):
        saved, saved_inline, saved_loop = self._pyvars, self._inline_env, self._loop_records
        saved_roles = self._roles
        saved_depth, self._depth = self._depth, 0      # its own generated function: nesting anew
        try:
            self._pyvars, self._inline_env, self._loop_records = {}, None, None
            self._want_records = "_recs" if RECORDS_IN_LOOPS and isinstance(e.iter, (A.Attr, A.Name)) else None
            self._records_of = None
            it, itype = self._src(e.iter, scope, "env")     # in the generated function's terms
            self._want_records = None
            guard, cond_e = None, e.cond
            if HOISTED_GUARDS and e.cond is not None:
                terms = _conjuncts(e.cond)
                once = [t for t in terms if _invariant(t, e.var, scope)]
                if once:
                    guard = " and ".join(f"({self._src(t, scope, 'env')[0]})" for t in once)
                    rest = [t for t in terms if not any(t is o for o in once)]
                    cond_e = None
                    for t in rest:
                        cond_e = t if cond_e is None else A.BinOp("and", cond_e, t, span=t.span)
            if self._records_of is not None and (self._records_of.__class__ is not str or
                                                 itype == "set:" + self._records_of):
                # (a zone: a loop over its entries, whose fields the element reads at hand)
                self._loop_records = (e.var, self._records_of)
            inner = dict(scope)
            inner[e.var] = itype[4:] if itype.startswith("set:") else "any"
            # In this function's own code `local` is `env` plus the loop variable: the variable
            # is read as the Python local `_it`, the others from `env` (None: what to read the
            # globals from). The generated functions it calls get `local`.
            self._pyvars = {n: f"env[{n!r}]" for n in scope}
            self._pyvars[e.var] = "_it"
            # the loop's variable: a record of the iterable's side's list, or any value
            self._roles = dict(self._roles)
            self._roles[e.var] = ("rec", self._role(e.iter.obj, scope)) \
                if self._loop_records is not None and self._loop_records[1].__class__ is str \
                and isinstance(e.iter, A.Attr) else "any"
            if e.var not in ("player", "action", "self"):    # what calls read from the variables
                self._pyvars[None] = "env"
            elem, etype = self._src(e.elem, inner, "local")
            cond = self._src(cond_e, inner, "local")[0] if cond_e is not None else "True"
            over_records = self._loop_records is not None and ("_rec_it" in elem or "_rec_it" in cond)
            if self._loop_records is not None and not over_records:     # records read, not used
                self._pyvars = {}
                it, _ = self._src(e.iter, scope, "env")
        finally:
            self._pyvars, self._inline_env, self._loop_records = saved, saved_inline, saved_loop
            self._want_records, self._depth, self._roles = None, saved_depth, saved_roles
        # over a list of records: each ref with its record (`_recs`, the stored list the
        # iterable read; None when it read none: then with None)
        start, loop = ("    _recs = None\n", "_it, _rec_it in zip(items, _NONES if _recs is None else _recs)") \
            if over_records else ("", "_it in items")
        name = self._const(None)
        # the work budget (limits.WORK_BUDGET): Runtime.spend's count, and its call (RS305) once
        # the budget is spent
        spend = (f"    rt.work -= len(items)\n"
                 f"    if rt.work < 0:\n"
                 f"        rt.spend(0, {self._const(e.span)})\n")
        # what every element's catalogue reads look up (_static_or): looked up once, as nothing
        # a comprehension runs writes the state
        for looked, local, pre in _LOOKED_UP_ONCE:
            if looked in elem or looked in cond:
                elem, cond = elem.replace(looked, local), cond.replace(looked, local)
                start = f"    {local} = {pre}\n" + start
        if guard is not None:       # asked once: false, and no element passes
            start = f"    if not ({guard}):\n        return []\n" + start
        # `local` (the variables in scope) is only built when the code reads it
        uses_local = "local" in elem or "local" in cond
        if uses_local:
            code = (f"def {name}(rt, env):\n"
                    f"    out = []\n"
                    f"    local = dict(env)\n"
                    f"{start}"
                    f"    items = {it} or ()\n"
                    f"{spend}"
                    f"    for {loop}:\n"
                    f"        local[{e.var!r}] = _it\n"
                    f"        if {cond}:\n"
                    f"            out.append({elem})\n"
                    f"    return out\n")
        else:       # no dict of the variables: a Python list comprehension (a third faster)
            code = (f"def {name}(rt, env):\n"
                    f"{start}"
                    f"    items = {it} or ()\n"
                    f"{spend}"
                    f"    return [{elem} for {loop}" + ("" if cond == "True" else f" if {cond}") + "]\n")
        self._exec(code, "comprehension")
        return f"{name}(rt, {saved_inline or env})", "set:" + etype

    def _loop_items(self, s, scope: dict) -> tuple:
        """(items, where, the body's scope) of a `for`, `choose` or `random` over `s.iter`
        `where` a condition: the elements that pass are worked out by one generated
        comprehension (`[x for x in S where c]`, vm._passing then has no condition to test), so
        the condition reads the loop's element as a Python local, and its record when S is a
        list of records (c_Comprehension), instead of a dict of the variables per element."""
        filtered = s.where is not None and FILTERED_LOOPS
        if filtered:        # its elements' type is the iterable's (the element is the variable)
            it, itype = self.expr(A.Comprehension(A.Name(s.var, span=s.span), s.var, s.iter, s.where,
                                                  span=s.span), scope)
        else:
            it, itype = self.expr(s.iter, scope)
        inner = dict(scope)
        inner[s.var] = itype[4:] if itype.startswith("set:") else "any"
        where = self.fn(s.where, inner) if s.where is not None and not filtered else None
        return it, where, inner

    def zone(self, e, scope) -> tuple:
        """A `shuffle` path -> (root, keys): root is the name of a store of the state
        (`supply`) or a function giving the id of a side or of a stored thing (vm.x_shuffle);
        keys lead to the list."""
        from rulespec.checker import ZONE_STORE
        keys = []
        while isinstance(e, A.Attr):
            keys.append(e.name)
            e = e.obj
        if not keys:
            self.fail("`shuffle` needs a list of the game state, such as supply.tiles", e.span)
        keys.reverse()
        if isinstance(e, A.Name) and e.id == ZONE_STORE and e.id not in scope:
            return e.id, tuple(keys)
        return self.fn(e, scope), tuple(keys)

    def move(self, s, scope):
        """`move(THING, PLACE, FIELD: v...)` (interpreter/verbs.py): THING a value, `ZONE[n]` or
        `RECORD.HOLDER`; PLACE a zone (`ZONE`, `OWNER.ZONE`, `ZONE[n]` for a position), a holder
        field (`RECORD.HOLDER`) or none. The checker has checked the forms (RS106)."""
        from . import verbs
        thing, place = s.args
        zone_at = self._zone_ref(thing, scope, True)
        if zone_at is not None:
            zone, owner, n = zone_at
            src = lambda rt, env, _z=zone, _o=owner, _n=n: verbs.entry_at(rt, _z, _o and _o(rt, env), _n(rt, env))
        elif (held := self._holder_ref(thing, scope)) is not None:
            rec, name = held
            src = lambda rt, env, _r=rec, _f=name: verbs.held(rt, _r(rt, env), _f)
        else:
            src = self.fn(thing, scope)
        at = lambda rt, env: None
        if isinstance(place, A.NoneLit):
            dest = lambda rt, env: None
        elif (held := self._holder_ref(place, scope)) is not None:
            rec, name = held
            dest = lambda rt, env, _r=rec, _f=name: ("holder", _r(rt, env), _f)
        else:
            ref = self._zone_ref(place, scope, True) or self._zone_ref(place, scope, False)
            if ref is None:
                self.fail("`move` puts a thing into a zone, a field that holds a thing, or none", place.span)
            zone, owner, n = ref
            dest = lambda rt, env, _z=zone, _o=owner: ("zone", _z, _o and _o(rt, env))
            at = n or at
        kw = {k: self.source(v, scope)[0] for k, v in s.kwargs.items()}
        return self.call(s.span, "move", [self.applied(f) for f in (src, dest, at)], kw)

    def _zone_ref(self, e, scope, indexed):
        """(zone, owner fn or None, position fn or None) of `ZONE`, `OWNER.ZONE` (and `[n]` when
        `indexed`), or None when `e` does not name a zone."""
        n = None
        if indexed:
            if not isinstance(e, A.Index):
                return None
            n, e = self.fn(e.index, scope), e.obj
        zones = self.world.zones if self.world is not None else {}
        if isinstance(e, A.Name) and e.id not in scope and e.id in zones and not zones[e.id].owner:
            return e.id, None, n
        if isinstance(e, A.Attr) and e.name in zones and zones[e.name].owner:
            return e.name, self.fn(e.obj, scope), n
        return None

    def _holder_ref(self, e, scope):
        """(record fn, field) of `RECORD.HOLDER` (a `@holds` field of a record type), or None."""
        if not isinstance(e, A.Attr) or self.world is None:
            return None
        obj, t = self.expr(e.obj, scope)
        rec = self.world.records.get(t.rstrip("?"))
        f = rec.fields.get(e.name) if rec is not None else None
        return (obj, e.name) if f is not None and f.holds else None

    # ------------------------------------------------------------ prompt templates
    def text(self, template: str):
        """A prompt or option label: the plain text, or, when it names formulas (`{name}`,
        rulespec.prompts), a function f(rt, env) -> text. Split here, once; the checker has
        reported malformed templates and unknown names (RS010, RS105, RS107)."""
        if not template or not prompts.has_fields(template):
            return template
        try:
            parts = prompts.split(template)
        except prompts.TemplateError as e:
            raise RulespecError(Diagnostic("RS010", f"prompt {template!r}: {e}", UNKNOWN_SPAN,
                                           "run `rulespec validate` for details"))
        if all(p[0] == "text" or p[1] in self.literals for p in parts):
            return "".join(p[1] if p[0] == "text" else self.literals[p[1]] for p in parts)
        parts = tuple(p[:2] for p in parts)

        def render(rt, env, _parts=parts):
            out = []
            for kind, v in _parts:
                if kind == "text":
                    out.append(v)
                else:       # the formula's parameters: the variables of the same name
                    params = rt.rs.formulas[v]["params"]
                    kw = {p: env[p] for p, _ in params if p in env}
                    out.append(prompts.show_value(rt.formula(v, [], kw, env)))
            return "".join(out)
        return render

    # ------------------------------------------------------------ calls
    def applied(self, f) -> str:
        """The Python source of a call of the function f(rt, env)."""
        return f"{self._const(f)}(rt, env)"

    def call(self, sp: Span, verb: str, args: list, kw: dict | None = None) -> tuple:
        """The instruction (CALL, span, verb, arguments) that calls `verb`: `arguments(rt, env)`
        gives (its arguments, its keyword arguments), evaluated in order, as one generated
        function of the call site (`args` and `kw`'s values are Python sources) rather than one
        call per argument."""
        kws = "".join(f"{k!r}: {v}, " for k, v in (kw or {}).items())
        return (CALL, sp, verb, self._compile(f"lambda rt, env: ([{', '.join(args)}], {{{kws}}})"))

    # ------------------------------------------------------------ statements
    def block(self, b: A.Block, scope: dict) -> int:
        return self.program.add(self._stmts(b, scope), b.span)

    def _stmts(self, b: A.Block, scope: dict) -> list:
        """The instructions of a block's statements (an `if` laid out in place gives several)."""
        scope = dict(scope)
        instrs = []
        with limits.deep_recursion():
            for s in b.stmts:
                ins = self.stmt(s, scope)
                if type(ins) is list:
                    instrs += ins
                else:
                    instrs.append(ins)
        return instrs

    def _if(self, s: A.If, scope: dict):
        """An IF, whose branches are blocks of their own; or, when no branch binds a name of its
        own (`let`, `roll ... as`, a `pay`: they would need a copy of the locals, vm.x_if), the
        instructions [BRANCH, first branch, JUMP, second branch, JUMP, ..., else], the jumps
        counted from the instruction that makes them: the branch runs in the frame of the `if`,
        in its very locals, as x_if runs it in a frame that holds them."""
        sp = s.span
        branches = [(self.fn(c, scope), self._stmts(b, scope)) for c, b in s.branches]
        else_ = self._stmts(s.else_, scope) if s.else_ else None
        # whether a branch binds a name of its own (else vm.x_if runs it in the `if`'s locals)
        binds = any(i[0] in (LET, PAY, ROLL) for b in [b for _, b in branches] + [else_]
                    if b is not None for i in b)
        if binds or not FLAT_IFS:
            return (IF, sp, [(c, self.program.add(b, bs.span)) for (c, b), (_, bs) in zip(branches, s.branches)],
                    self.program.add(else_, s.else_.span) if else_ is not None else None, binds)
        bodies = [b for _, b in branches] + ([else_] if else_ is not None else [])
        out, starts, jumps = [], [], []     # positions counted from the BRANCH (out[i] is at 1 + i)
        for i, body in enumerate(bodies):
            starts.append(1 + len(out))
            out += body
            if i < len(bodies) - 1:         # a JUMP past the other bodies, its distance known at the end
                jumps.append(len(out))
                out.append(None)
        end = 1 + len(out)
        for j in jumps:
            out[j] = (JUMP, sp, end - (1 + j))
        otherwise = starts[-1] if else_ is not None else end
        return [(BRANCH, sp, [(c, start) for (c, _), start in zip(branches, starts)], otherwise)] + out

    def stmt(self, s, scope: dict):
        t = type(s)
        sp = s.span
        if t is A.Let:
            f, ty = self.expr(s.value, scope)
            scope[s.name] = ty
            return (LET, sp, s.name, f)
        if t is A.SetStmt:
            if isinstance(s.target, A.Name):
                gz = self.world.game_zone(s.target.id) if self.world is not None and s.target.id not in scope else None
                if gz is not None and gz.counted:
                    # `set token_supply = n`: how many a counted pile of the game holds (Runtime.set_attr)
                    return (SET, sp, self._none_fn, "zone", world_store.zone_read(gz), self.fn(s.value, scope))
                return (SET, sp, None, "var", s.target.id, self.fn(s.value, scope))
            if isinstance(s.target, A.Index) and isinstance(s.target.obj, A.Attr):
                # `set c.troops[p] = v`: one key of a `count by`/`map` field (Runtime.set_item)
                obj, ot = self.expr(s.target.obj.obj, scope)
                key = self.fn(s.target.index, scope)
                return (SET, sp, obj, "index", (ot.rstrip("?"), s.target.obj.name, key), self.fn(s.value, scope))
            if not isinstance(s.target, A.Attr):
                self.fail("`set` needs a variable, an attribute such as player.score, or a key of a "
                          "`count by` field such as c.pieces[player]", sp)
            obj, ot = self.expr(s.target.obj, scope)
            return (SET, sp, obj, ot.rstrip("?"), s.target.name, self.fn(s.value, scope))
        if t is A.If:
            return self._if(s, scope)
        if t in (A.Choose, A.For):
            it, where, inner = self._loop_items(s, scope)
            body = self.block(s.body, inner)
            if t is A.For:
                return (FOR, sp, s.var, it, where, body)
            up_to = self.fn(s.up_to, scope) if s.up_to is not None else None
            by = self.fn(s.by, scope) if s.by is not None else None
            self.program.sources[sp] = (s, inner)
            return (CHOOSE, sp, s.var, it, where, body, up_to, by, self.text(s.prompt))
        if t is A.Repeat:
            return (REPEAT, sp, self.fn(s.count, scope), self.block(s.body, scope))
        if t is A.OptionalStmt:
            by = self.fn(s.by, scope) if s.by is not None else None
            return (OPTIONAL, sp, self.text(s.prompt), by, self.block(s.body, scope))
        if t is A.Either:
            by = self.fn(s.by, scope) if s.by is not None else None
            opts = [(self.text(o.label), self.fn(o.where, scope) if o.where is not None else None,
                     self.block(o.body, scope)) for o in s.options]
            self.program.sources[sp] = (s, dict(scope))
            return (EITHER, sp, self.text(s.prompt), by, opts)
        if t is A.Pay:
            f = self.fn(s.cost, scope)
            self.program.sources[sp] = (s, dict(scope))
            if s.as_name:
                scope[s.as_name] = "number"
            return (PAY, sp, f, s.as_name)
        if t is A.Require:
            self.program.sources[sp] = (s, dict(scope))
            return (REQUIRE, sp, self.fn(s.cond, scope), s.message)
        if t is A.Break:
            return (BREAK, sp)
        if t is A.Roll:
            scope[s.as_name] = "any"
            return (ROLL, sp, s.die, s.as_name)
        if t is A.RandomPick:
            it, where, inner = self._loop_items(s, scope)
            return (RANDOM, sp, s.var, it, where, self.block(s.body, inner))
        if t is A.Shuffle:
            return (SHUFFLE, sp) + self.zone(s.zone, scope)
        if t is A.CallStmt and s.verb == "move" and len(s.args) == 2:
            return self.move(s, scope)
        if t is A.CallStmt:
            proc = self._procedure(s, scope)
            if proc is not None:        # the pack's procedure, by its name: no lookup of the verb
                args = [self.source(a, scope)[0] for a in s.args[s.verb == "run":]]
                kw = {k: self.source(v, scope)[0] for k, v in s.kwargs.items()}
                return (PROC,) + self.call(sp, s.verb, args, kw)[1:] + (proc,)
            args = [self.source(a, scope)[0] for a in s.args]
            # the first argument of perform/run names a declaration: keep it as a plain id
            if s.verb in ("perform", "run") and s.args and isinstance(s.args[0], A.Name):
                target = self.literal(s.args[0].id)
                args[0] = f"(env[{target}] if {target} in env else {target})"
            elif s.verb == "event" and s.args and isinstance(s.args[0], A.Name):
                args[0] = self.literal(s.args[0].id)      # an event's name, never a variable
            kw = {k: self.source(v, scope)[0] for k, v in s.kwargs.items()}
            return self.call(sp, s.verb, args, kw)
        self.fail(f"cannot compile statement {t.__name__}", sp)

    def _procedure(self, s: A.CallStmt, scope: dict) -> str | None:
        """The procedure a call statement surely runs, when the compiler can tell: `name(...)`
        for a procedure's name that no verb of the engine has (Runtime.verb looks those up
        first), and `run(name, ...)` for a procedure's name that is no variable (`run` takes a
        variable's value for its name)."""
        name = s.verb
        if not RESOLVED_PROCEDURES:
            return None
        if name == "run" and s.args and isinstance(s.args[0], A.Name):
            name = s.args[0].id
            if name in scope or name in _CONTEXT_NAMES:
                return None
        elif name in VERBS or name in ENGINE_VERBS:
            return None
        return name if self.names.get(name) == "procedure" else None


class _Noting:
    """Compiler.noting(): collects the read items of what is compiled inside (nested: each
    collects its own, and the outer one the inner one's too)."""

    def __init__(self, comp: Compiler, roles: dict):
        self.comp, self.roles = comp, roles

    def __enter__(self) -> set:
        comp = self.comp
        self.saved = comp.noted, comp._roles
        comp.noted, comp._roles = set(), dict(self.roles)
        return comp.noted

    def __exit__(self, *exc):
        comp = self.comp
        got = comp.noted
        comp.noted, comp._roles = self.saved
        if comp.noted is not None:
            comp.noted |= got
        return False
