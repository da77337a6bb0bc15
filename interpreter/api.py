"""The decision API: new_game, legal_moves, apply, is_over, scores, explain.

Moves are short strings in the textual notation (docs/scenarios.md): `choose ravenna`,
`done`, `yes`, `no`, `option Flip tiles`, `tap merchant#2 ship`. `apply` works on a copy and
returns the new state; an illegal or malformed move raises IllegalMove (the project's error
type) with the reason and the rule it breaks, and the given state is untouched (unless the
caller asked for the move to be applied in place: transactional=False).
"""
from __future__ import annotations

import marshal
from functools import lru_cache

from rulespec.errors import RULE_ERRORS, Diagnostic, RuleFault, RulespecError, Span, source_line_at
from rulespec import flow
from rulespec.pack import Pack, load_pack
from rulespec.board import Board, NoMap, board_for

from . import constraints, rng, vm
from . import compiler as C        # (after vm, which the compiler's modules import)
from .constraints import ConstraintChecker, NoWrites, Shared, Writes
from .ruleset import Ruleset
from .runtime import Runtime
from .state import initial_state, setup_for, state_problem


# legal_moves copies the state during a payment only when a move needs a try (a speed-up that
# must not change a game: tests/test_speedups.py turns it off)
COPY_ONLY_TO_TRY = True
# legal_moves tries a move on a shallow copy of the state first (Engine._try; tests turn it off)
SHALLOW_TRIES = True
# a procedure offered mid-payment that opens with a question of two or more options is legal
# without a try (Engine._stops_at_its_question; tests turn it off)
QUESTION_STOPS = True


class IllegalMove(RulespecError):
    """A refused move: `reason` and the rule that refused it (`rule_span`: the decision that
    does not offer it, or the statement, constraint or declaration that stopped it). `context`:
    (runtime, variables) where the rules stopped, for interpreter/why.py to say which condition
    failed (Engine.explain)."""

    def __init__(self, move, reason: str, span: Span | None = None, context=None):
        hint = f"rule at {span}" if span and span.line else ""
        super().__init__(Diagnostic("RS400", f"illegal move '{move}': {reason}", span or Span("<move>"), hint))
        self.move = move
        self.reason = reason
        self.rule_span = span
        self.context = context


class Engine:
    """A compiled pack, ready to play any number of games."""

    def __init__(self, pack: Pack, verify_moves: bool = False):
        """verify_moves: try every candidate move on a copy and drop those a rule refuses.
        By default only decisions taken while a cost is being paid are tried (there a choice can
        leave the cost unpayable), except the payment's own taps, which it offers only when the
        cost stays payable (measured: 0 refusals in 2,317 tries over 4 games); elsewhere the
        pack's own filters (`where`, `can_pay`) decide, which in the base pack never let a
        refused move through (measured: 0 refusals in 1,785 tries over a 15-Year game), at twice
        the speed. Playouts report any refused "legal" move as RS301."""
        self.pack = pack
        self.rs = Ruleset.build(pack)
        self.constraint_checker = ConstraintChecker(self.rs.constraints, self.rs)
        self._boards = {}
        self.verify_moves = verify_moves
        # the moves tried by the last legal_moves (_Tried), for apply to adopt the state a move
        # led to instead of running the move again
        self._tried = None
        self._new_writes = Writes       # what apply notes a move's writes in (_try: NoWrites)
        # the moves whose last try on a shallow copy wrote (Engine._try): (block, pc, move)
        self._deep_tries = set()
        # (state, its pending decision) that legal_moves checked last: apply of a move on that
        # very state, still at that decision, does not check its shape again (a damaged state
        # that fails inside apply is still refused as RS404: _bad_state)
        self._checked = None
        # (state, its pending decision) that the last apply in place (transactional=False) made:
        # legal_moves of that very state, still at that decision, does not check its shape
        self._made = None

    def playable(self):
        """RS301 unless the pack can be played: a setup and a `game` with a `round` (a pack
        without them is a library for other packs to extend). A map is optional."""
        missing = [what for what, ok in (("a setup.yaml", "setup" in self.pack.data),
                                         ("a `game` declaration with a `round`", self.rs.game.get("round") is not None))
                   if not ok]
        if missing:
            raise RulespecError(Diagnostic("RS301", f"pack '{self.pack.id}' cannot be played: it has no "
                                           f"{' and no '.join(missing)}", Span(str(self.pack.root / "pack.yaml"), 1, 1),
                                           "a pack without them is a library for other packs to extend: play a pack "
                                           "that extends it and adds them"))

    def board(self, players: int) -> Board | NoMap:
        if players not in self._boards:
            self.playable()
            setup = self.pack.data.get("setup")
            self._boards[players] = board_for(self.pack, setup.data if setup else None, players)
        return self._boards[players]

    def runtime(self, state) -> Runtime:
        return Runtime(self.rs, state, self.board(len(state["players"])))

    # ------------------------------------------------------------ API
    def new_game(self, players, seed: int = 0, options: dict | None = None, forced: dict | None = None) -> dict:
        """The state after setup, waiting for the first decision. Whatever the pack's setup
        does, the result is a state or a RulespecError: RS301 (the game cannot start: a rule
        refused, a division by zero), RS305 (a limit passed), RS123 (no setup for this count).
        forced: outcomes a scenario fixes, {"rolls": [...], "picks": [...]} (interpreter.rng.draw),
        taken by the draws from the start, setup and `first_player: random` included."""
        self.playable()
        _check_arguments(players, seed, options)
        setup_span = self._setup_span()
        try:
            if isinstance(players, int):
                pc = setup_for(self.pack.data["setup"].data, players)
                colours = list(pc.get("colours") or [])
                if len(colours) != players:
                    raise RulespecError(Diagnostic(
                        "RS123", f"the {players}-player setup names {len(colours)} colour(s) "
                                 f"({', '.join(map(str, colours)) or 'none'}), not {players}",
                        self._setup_doc_span(players, "colours"), "list one colour per player"))
                players = colours
            st = initial_state(self.rs, list(players), seed, options)
            if forced:
                st["vm"]["forced"] = {k: list(v) for k, v in forced.items() if v}
            self._draw_first_player(st)
            rt = self.runtime(st)
            rt.place_measured_tracks()
            st["phase"] = "play"
            vm.push(rt, self.rs.game["round"], {"player": None})
            if self.rs.game.get("setup") is not None:      # on top of the stack: runs first
                vm.push(rt, self.rs.game["setup"], {"player": None})
            vm.run(rt)
            self._check_constraints(rt)
        except vm.Abort as e:
            raise RulespecError(Diagnostic("RS301", f"the game cannot start: {e.reason}", e.span or setup_span,
                                           source_line=source_line_at((e.span or setup_span).file,
                                                                      (e.span or setup_span).line))) from None
        except RuleFault as e:
            raise e.at(setup_span) from None
        except RulespecError as e:
            if e.code == "RS123" and not e.span.line:      # no setup for this count: said where
                d = e.first
                d.span = self._setup_doc_span(None)
                d.source_line = source_line_at(d.span.file, d.span.line)
                raise RulespecError(e.diagnostics) from None
            raise
        except RecursionError:
            raise RuleFault("RS305", "the game cannot start: the rules recurse too deeply", setup_span) from None
        except Exception as e:      # an engine bug: a clear error, never a raw traceback for users
            raise RulespecError(Diagnostic("RS301", f"the game cannot start: engine error {type(e).__name__}: {e}",
                                           setup_span, "please report this with the pack")) from e
        return st

    def first_player_rule(self) -> str:
        """How the first player is chosen: the `game` declaration's `first_player`, else
        setup.yaml's (choose, random or seat; choose and seat: the first colour given)."""
        d = self.rs.game.get("decl")
        rule = self.rs.static(d, "first_player") if d is not None else None
        if rule is None:
            setup = self.pack.data["setup"].data
            rule = setup.get("first_player") if isinstance(setup, dict) else None
        return str(rule or "choose")

    def _draw_first_player(self, st):
        """`first_player: random`: the seeded RNG (or a scenario's forced pick) names the first
        player; the turn order goes on round the table in seat order (`players` keeps the seats)."""
        if self.first_player_rule() != "random":
            return
        seats = st["players"]
        first = rng.draw(st, seats, "picks", "a colour of this game (the random first player)")
        i = seats.index(first)
        st["turn_order"] = seats[i:] + seats[:i]

    def _setup_doc_span(self, players, key=None) -> Span:
        """Where setup.yaml writes the setup of a player count (its `key`), or its list of them."""
        doc = self.pack.data["setup"]
        counts = doc.data.get("player_counts") if isinstance(doc.data, dict) else None
        for i, pc in enumerate(counts or []):
            if isinstance(pc, dict) and pc.get("players") == players:
                return doc.span(("player_counts", i) + ((key,) if key else ()))
        return doc.key_span(("player_counts",))

    def _setup_span(self) -> Span:
        d = self.rs.game.get("decl")
        if d is not None:
            f = d.fields.get("setup") or flow.game_field(d, "round")
            return f.span if f is not None else d.span
        return Span(str(self.pack.root / "pack.yaml"), 1, 1)

    def check_state(self, state):
        """RS404 unless `state` looks like a state of this pack's games (its shape, the
        running rules' positions): the API refuses a corrupted state instead of failing
        somewhere inside the rules."""
        why = state_problem(state, self.rs)
        if why:
            raise self._not_a_state(why)

    def _not_a_state(self, why: str) -> RulespecError:
        return RulespecError(Diagnostic("RS404", f"not a game state of pack '{self.pack.id}': {why}", Span("<state>"),
                                        "pass a state returned by new_game or apply (or a JSON copy of one), unchanged"))

    def _guarded(self, read, state, shape_known: bool = False):
        """read(state) for a state checked first (unless `shape_known`); a damaged state that
        fails inside it is RS404 too (see _bad_state)."""
        if not shape_known:
            self.check_state(state)
        try:
            return read(state)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            self._bad_state(state, e)
            raise

    def legal_moves(self, state) -> list:
        # the state an in-place apply has just made, unchanged since: its shape is the engine's
        moves = self._guarded(self._legal_moves, state, _at(state, self._made))
        self._checked = (state, state["vm"]["pending"])
        return moves

    def _bad_state(self, state, e):
        """After an unexpected exception: RS404 if the state is damaged deeper than
        check_state looks (state_problem(deep=True)); otherwise the caller's own error."""
        why = state_problem(state, self.rs, deep=True)
        if why:
            raise self._not_a_state(why) from e

    def _legal_moves(self, state) -> list:
        pending = state["vm"]["pending"]
        if state.get("over") or pending is None:
            return []
        cands = _candidates(pending)
        if len(cands) <= 1 or not (self.verify_moves or _paying(state)):
            return cands
        # a payment offers only taps after which the cost can still be paid (payment.py):
        # they need no try; procedures run mid-payment and other decisions do
        taps = pending["kind"] == "pay" and not self.verify_moves
        if taps and COPY_ONLY_TO_TRY and all(m.startswith("tap ") for m in cands):
            self._tried = None
            return cands            # nothing to try: no copy of the state
        tried = self._tried = _Tried(state, pending)
        return [m for m in cands if (taps and m.startswith("tap ")) or self._try(tried, m)]

    def _try(self, tried: "_Tried", move) -> bool:
        """Whether the move runs to the next decision without a rule refusing it, on a copy of
        the state. Constraints are invariants the rules must keep: they are checked when a move
        is applied (a move that breaks one is refused there and reported by playouts as
        RS302), not in this filter. The state the move leads to is kept (Engine._tried) for the
        apply of the move that follows.

        The copy is first a shallow one, with its own running rules (`vm`) only: most tries
        (a procedure offered mid-payment that opens with a question) write nothing else. The
        first write raises constraints.Shared before it is made (NoWrites), and the move is
        tried again on a full copy (marshal)."""
        state = tried.state
        if QUESTION_STOPS and not self.verify_moves and self._stops_at_its_question(state, move):
            if constraints.VERIFY_WRITES:       # the suite's cross-check: the try says so too
                assert self._tried_on_a_copy(tried, move), f"'{move}' was taken to stop at its question, and its try was refused"
            return True
        return self._tried_on_a_copy(tried, move)

    def _stops_at_its_question(self, state, move) -> bool:
        """Whether `move`, a procedure offered mid-payment (`run NAME`), surely stops at its
        first statement: an `either` with two or more options whose conditions hold now. Nothing
        runs before it (calling a procedure writes nothing; its `requires` held when the payment
        offered it), so the move is legal, and trying it (a copy of the state, the rules run up
        to that question) would only say so: 1.8% of a playout's instructions. Any other move,
        and anything this cannot tell, goes to the try."""
        pending = state["vm"]["pending"]
        name = move[4:]
        if pending.get("kind") != "pay" or not move.startswith("run ") or name not in self.rs.payment_procedures:
            return False
        proc = self.rs.procedures[name]         # (payment procedures are procedures: Ruleset._k_procedure)
        code = self.rs.program.blocks[proc.effect]
        if not code or code[0][0] != C.EITHER:
            return False
        rt = self.runtime(state)
        opened = rt.reading()
        try:        # the procedure's locals as payment.apply_option makes them (the payer's: vm.x_pay)
            env = rt.env = rt.call(proc, {"player": pending.get("player")}, [], {}, checked=True)[1]
            return len(vm.either_options(rt, {"env": env}, code[0])) >= 2
        except Exception:       # the try will say what is wrong, as it would have
            return False
        finally:
            rt.done_reading(opened)

    def _tried_on_a_copy(self, tried: "_Tried", move) -> bool:
        """_try's answer from the try itself."""
        state = tried.state
        before = _copy(state) if constraints.VERIFY_WRITES else None       # (equal, not the same bytes:
        # marshal's bytes depend on how many references an object has)
        ok = None
        # a move whose last try wrote before its next decision is tried on a full copy at once
        # (a shallow try would run up to that write in vain), until a try of it writes nothing
        site = _site(state, move)
        deep = self._deep_tries
        if SHALLOW_TRIES and (site is None or site not in deep):
            try:
                ok = self._try_on(tried, tried.shallow(), move, NoWrites) is not None
            except Shared:
                if site is not None:
                    if len(deep) > 10_000:      # (bounded: the moves are the pack's, but ids may be many)
                        deep.clear()
                    deep.add(site)
        if ok is None:
            wrote = self._try_on(tried, tried.full(), move, Writes)
            ok = wrote is not None
            if site is not None and ok and wrote is not _UNKNOWN and not wrote.top and not wrote.side:
                deep.discard(site)
        if before is not None and state != before:
            raise AssertionError(f"trying '{move}' changed the state it was tried on: a write made before "
                                 "it was noted (constraints.NoWrites)")
        return ok

    def _try_on(self, tried: "_Tried", st: dict, move, writes):
        """The try itself: what the move wrote (_UNKNOWN when it cannot say), None when refused."""
        events, wrote = [], []
        self._checked = (st, st["vm"]["pending"])       # a copy of the state legal_moves checked
        self._new_writes = writes
        try:
            self.apply(st, move, check=False, events=events, transactional=False, wrote=wrote)
        except IllegalMove:
            return None
        finally:
            self._new_writes = Writes
        if self._tried is tried:
            tried.after[move] = (st, events, wrote[0])
        return _UNKNOWN if wrote[0] is None else wrote[0]

    def _adopt(self, state, move):
        """The Runtime of the state `move` leads to when legal_moves has just tried it on this
        very state (the same bytes): `state` takes that state's content instead of running the
        move again (the rules are deterministic given the state). Else None."""
        tried, self._tried = self._tried, None
        if tried is None or move not in tried.after:
            return None
        # the very state legal_moves tried, still at that decision (as for check_state: an
        # in-place caller does not change it between the two calls)
        if not _at(state, (tried.state, tried.pending)):
            return None
        after, events, wrote = tried.after[move]
        state.clear()
        state.update(after)
        rt = self.runtime(state)
        rt.events = list(events)
        rt.wrote = Writes() if type(wrote) is NoWrites else wrote   # a shallow try wrote nothing
        return rt

    def apply(self, state, move: str, check: bool = True, events: list | None = None,
              transactional: bool = True, wrote: list | None = None) -> dict:
        """The state after `move`. check: every pack constraint must hold afterwards.
        events: a list that receives what the move did, in order (interpreter/events.py): the
        pack's events `{"event": "card_gained", "side": "red", ...}` and the account's text
        lines `{"event": "log", "text": ...}` (events.account / events.structured split them).
        transactional=False changes the given state itself instead of a copy (a third faster):
        for callers that never look at the old state again, such as a replay or a bot's game
        (play_game), which give up on the first refused move (the state is then half-changed),
        and change the state only by applying moves: the constraint check of a move applied in
        place to the last state that passed compares only what the move wrote.
        wrote: a list that receives what the move wrote (constraints.Writes, None: unknown)."""
        if not _at(state, self._checked):
            self.check_state(state)
        self._checked = self._made = None
        checker, passed = self.constraint_checker, self.constraint_checker.passed
        from_passed = not transactional and _at(state, passed)
        if not transactional and passed is not None and passed[0] is state:
            checker.passed = None       # it changes now: known again once checked
        pending = state["vm"]["pending"]
        if state.get("over") or pending is None:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a text such as 'choose ravenna'")
        kind, value = _parse(move, pending)
        if kind is None:
            fr = state["vm"]["frames"][-1]      # the decision's statement: the rule that offers the moves
            raise IllegalMove(move, value + "; legal moves: " + ", ".join(_candidates(pending)[:12]),
                              self.rs.program.blocks[fr["b"]][fr["pc"]][1])
        st = _copy(state) if transactional else state
        rt = self._adopt(st, move) if check and not transactional and self._tried is not None else None
        try:
            if rt is None:
                rt = self.runtime(st)
                rt.wrote = self._new_writes()
                vm.resume(rt, kind, value)
            if check:
                self._check_constraints(rt, rt.wrote if from_passed else None, keep=not transactional)
        except vm.Abort as e:
            raise IllegalMove(move, e.reason, e.span, (rt, rt.env if isinstance(rt.env, dict) else {})) from None
        except RecursionError:
            raise IllegalMove(move, "the rules recurse without end") from None
        except RuleFault as e:
            if e.python_error is not None:       # a damaged state, rather than a fault of the rules?
                self._bad_state(state, e)
            raise
        except (RulespecError, Shared):
            raise
        except Exception as e:      # an engine bug: a clear error, never a raw traceback for users
            self._bad_state(state, e)
            raise RulespecError(Diagnostic("RS301", f"engine error while applying '{move}': "
                                           f"{type(e).__name__}: {e}", Span("<engine>"),
                                           "please report this with the game log")) from e
        if events is not None:
            events.extend(rt.events)
        if wrote is not None:
            wrote.append(rt.wrote)
        if not transactional:
            self._made = (st, st["vm"]["pending"])
        return st

    def _check_constraints(self, rt, wrote=None, keep=False):
        """Every pack constraint must hold after the move (interpreter/constraints.py: only
        those whose inputs differ from the last state that passed are evaluated again; with
        `wrote`, what the move wrote to that very state, only those keys are compared; keep:
        the state is changed only by moves applied in place, so the next one may be checked
        by its writes)."""
        self.constraint_checker.check(rt, wrote, keep)

    def is_over(self, state) -> bool:
        if not isinstance(state, dict):
            self.check_state(state)
        return bool(state.get("over"))

    def scores(self, state) -> dict:
        return self._guarded(self._scores, state)

    def _scores(self, state) -> dict:
        rt = self.runtime(state)
        out = {}
        for p in state["players"]:
            row = {}
            for s in self.rs.scoring:
                row[s["id"]] = int(_scored(s["points"], rt, p, s.get("decl")) or 0)
            row["total"] = sum(row.values())
            tb = self.rs.game.get("tie_break")
            row["tie_break"] = int(_scored(tb, rt, p, self.rs.game.get("decl"), "tie_break") or 0) if tb else 0
            out[p] = row
        return out

    def total_score(self, state, player, rt=None) -> int:
        rt = rt or self.runtime(state)
        return sum(int(_scored(s["points"], rt, player, s.get("decl")) or 0) for s in self.rs.scoring)

    def winners(self, state) -> list:
        """Who won: the players the end condition that ended the game names (its `winners:`),
        else the best total score (ties broken by the game's tie_break)."""
        if isinstance(state, dict) and isinstance(state.get("winners"), list):
            self.check_state(state)
            return list(state["winners"])
        sc = self.scores(state)
        best = max((r["total"], r["tie_break"]) for r in sc.values())
        return [p for p, r in sc.items() if (r["total"], r["tie_break"]) == best]

    def explain(self, state, move) -> str:
        """Why a move is illegal (or 'legal'): the reason, the rule (file:line), the condition
        of the rule that failed and the values that made it fail (interpreter/why.py)."""
        r = self.why(state, move)
        return "legal" if r is None else r.render()

    def why(self, state, move):
        """None when the move is legal, else a why.Refusal (reason, rule span, condition, values)."""
        from . import why
        return why.explain(self, state, move)


def _scored(f, rt, player, decl, field="points"):
    """A scoring formula's value; a fault of it (RuleFault) is placed at the formula."""
    try:
        return f(rt, {"player": player})
    except RuleFault as e:
        fv = decl.fields.get(field) if decl is not None else None
        raise e.at(fv.span if fv is not None else getattr(decl, "span", None))
    except RecursionError:
        fv = decl.fields.get(field) if decl is not None else None
        raise RuleFault("RS305", "a scoring formula recurses too deeply", fv.span if fv is not None else None) from None
    except RULE_ERRORS as e:
        fv = decl.fields.get(field) if decl is not None else None
        raise RuleFault.from_python(e, fv.span if fv is not None else getattr(decl, "span", None),
                                    f"{getattr(decl, 'kind', 'scoring')} '{getattr(decl, 'id', '?')}'") from e


def _check_arguments(players, seed, options):
    problems = []
    if isinstance(players, bool) or not (isinstance(players, int) or
                                         (isinstance(players, (list, tuple)) and players
                                          and all(isinstance(p, str) for p in players))):
        problems.append(f"players must be a count or a list of colours, not {players!r:.60}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        problems.append(f"seed must be a whole number, not {seed!r:.60}")
    if options is not None and not isinstance(options, dict):
        problems.append(f"options must be a mapping, not {options!r:.60}")
    if problems:
        raise RulespecError(Diagnostic("RS404", "; ".join(problems), Span("<new_game>"),
                                       "new_game(players, seed, options): e.g. new_game(4, 7)"))


class _Tried:
    """The moves legal_moves tried on one state, at one decision: what each led to (`after`:
    move -> (the state after it, its events, what it wrote)), and the copies tried on."""

    __slots__ = ("state", "pending", "after", "_vm", "_full")

    def __init__(self, state, pending):
        self.state, self.pending, self.after = state, pending, {}
        self._vm = None             # the running rules as marshal bytes, made at the first shallow copy
        self._full = None           # the state as marshal bytes, made at the first full copy

    def shallow(self) -> dict:
        """A copy sharing every value with the state but its running rules (`vm`)."""
        if self._vm is None:
            self._vm = marshal.dumps(self.state["vm"])
        st = dict(self.state)
        st["vm"] = marshal.loads(self._vm)
        return st

    def full(self) -> dict:
        if self._full is None:
            self._full = marshal.dumps(self.state)
        return marshal.loads(self._full)


def _at(state, seen) -> bool:
    """Whether `state` is the very state `seen` names, still at the very decision it was at:
    seen = (state, its pending decision), as legal_moves saw them. An in-place caller does not
    change a state between legal_moves and apply, so what legal_moves found about it holds."""
    if seen is None or seen[0] is not state or seen[1] is None:
        return False
    vm = state.get("vm")
    return type(vm) is dict and vm.get("pending") is seen[1]


_UNKNOWN = object()     # what _try_on says a legal move wrote when its writes are unknown


def _site(state, move):
    """(block, pc, move): the decision's statement and a move tried there (Engine._deep_tries);
    None when the running rules do not say (a damaged state: the try itself says what is wrong)."""
    frames = state["vm"]["frames"]
    fr = frames[-1] if frames.__class__ is list and frames else None
    if fr.__class__ is dict and fr.get("b").__class__ is int and fr.get("pc").__class__ is int:
        return fr["b"], fr["pc"], move
    return None


def _paying(state) -> bool:
    """A payment is in progress somewhere in the rules being run."""
    for f in state["vm"]["frames"]:
        k = f.get("k")
        if k.__class__ is dict and "need" in k:
            return True
    return False


def _copy(state):
    return marshal.loads(marshal.dumps(state))


def _fmt(v) -> str:
    """A choice as it is written in a move: ids and numbers as they are, costs as '1 crown + 2 ship'."""
    if isinstance(v, list) and v and all(isinstance(a, dict) for a in v):
        from .costs import describe
        return describe(v)
    return str(v)


def _candidates(pending) -> list:
    k = pending["kind"]
    if k == "choose":
        # f"{v}" is str(v): _fmt only for a list (a cost)
        out = [f"choose {v}" if v.__class__ is not list else f"choose {_fmt(v)}" for v in pending["options"]]
        if pending.get("can_stop"):
            out.append("done")
        return out
    if k == "optional":
        return ["yes", "no"]
    if k == "either":
        return [f"option {lab}" for lab in pending["options"]]
    if k == "pay":
        return list(pending["options"])
    return []


def _parse(move: str, pending):
    k = pending["kind"]
    move = " ".join(move.split())
    if k == "choose":
        if move == "done" and pending.get("can_stop"):
            return "choose", None
        if move.startswith("choose "):
            text = move[7:]
            for v in pending["options"]:
                if (v if v.__class__ is str else _fmt(v)) == text:
                    return "choose", v
            return None, f"'{text}' is not one of the choices ({pending.get('prompt') or 'choose'})"
        return None, "expected 'choose X'" + (" or 'done'" if pending.get("can_stop") else "")
    if k == "optional":
        if move in ("yes", "no"):
            return "optional", move
        return None, f"expected 'yes' or 'no' ({pending.get('prompt')})"
    if k == "either":
        if move.startswith("option "):
            lab = move[7:]
            if lab in pending["options"]:
                return "either", lab
            return None, f"'{lab}' is not an available option"
        return None, "expected 'option LABEL'"
    if k == "pay":
        if move in pending["options"]:
            return "pay", move
        return None, f"'{move}' is not a possible payment ({pending.get('prompt')})"
    return None, "unknown decision"


@lru_cache(maxsize=8)
def engine_for(ref: str) -> Engine:
    return Engine(load_pack(ref))


# module-level convenience API (OpenSpiel-like)
def new_game(pack, players, seed=0, options=None):
    eng = pack if isinstance(pack, Engine) else engine_for(str(pack))
    return eng.new_game(players, seed, options)
