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

from rulespec.errors import Diagnostic, RulespecError, Span
from rulespec.pack import Pack, load_pack
from rulespec.board import Board

from . import vm
from .constraints import ConstraintChecker
from .ruleset import Ruleset
from .runtime import Runtime
from .state import initial_state, setup_for


class IllegalMove(RulespecError):
    def __init__(self, move, reason: str, span: Span | None = None):
        hint = f"rule at {span}" if span and span.line else ""
        super().__init__(Diagnostic("RS400", f"illegal move '{move}': {reason}", span or Span("<move>"), hint))
        self.move = move
        self.reason = reason
        self.rule_span = span


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
        self.constraint_checker = ConstraintChecker(self.rs.constraints)
        self._boards = {}
        self.verify_moves = verify_moves

    def board(self, players: int) -> Board:
        if players not in self._boards:
            setup = self.pack.data.get("setup")
            self._boards[players] = Board.from_pack_data(self.pack.data["map"].data, setup.data if setup else None, players)
        return self._boards[players]

    def runtime(self, state) -> Runtime:
        return Runtime(self.rs, state, self.board(len(state["players"])))

    # ------------------------------------------------------------ API
    def new_game(self, players, seed: int = 0, options: dict | None = None) -> dict:
        if isinstance(players, int):
            pc = setup_for(self.pack.data["setup"].data, players)
            players = list(pc["colours"])
        st = initial_state(self.rs, list(players), seed, options)
        rt = self.runtime(st)
        rt.place_measured_tracks()
        st["phase"] = "play"
        vm.push(rt, self.rs.game["year"], {"player": None})
        if self.rs.game.get("setup") is not None:      # on top of the stack: runs first
            vm.push(rt, self.rs.game["setup"], {"player": None})
        try:
            vm.run(rt)
            self._check_constraints(rt)
        except vm.Abort as e:
            raise RulespecError(Diagnostic("RS301", f"the game cannot start: {e.reason}", e.span or Span("<setup>")))
        return st

    def legal_moves(self, state) -> list:
        pending = state["vm"]["pending"]
        if state.get("over") or pending is None:
            return []
        cands = _candidates(pending)
        if len(cands) <= 1 or not (self.verify_moves or _paying(state)):
            return cands
        if self.verify_moves:
            return [m for m in cands if self._try(state, m)]
        # a payment offers only taps after which the cost can still be paid (payment.py):
        # they need no try; procedures run mid-payment and other decisions do
        taps = pending["kind"] == "pay"
        return [m for m in cands if (taps and m.startswith("tap ")) or self._try(state, m)]

    def _try(self, state, move) -> bool:
        """Whether the move runs to the next decision without a rule refusing it. Constraints
        are invariants the rules must keep: they are checked when a move is applied (a move that
        breaks one is refused there and reported by playouts as RS302), not in this filter."""
        try:
            self.apply(state, move, check=False)
            return True
        except IllegalMove:
            return False

    def apply(self, state, move: str, check: bool = True, events: list | None = None,
              transactional: bool = True) -> dict:
        """The state after `move`. check: every pack constraint must hold afterwards.
        transactional=False changes the given state itself instead of a copy (a third faster):
        for callers that never look at the old state again, such as a replay or a bot's game
        (play_game), which give up on the first refused move (the state is then half-changed)."""
        pending = state["vm"]["pending"]
        if state.get("over") or pending is None:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a text such as 'choose ravenna'")
        kind, value = _parse(move, pending)
        if kind is None:
            raise IllegalMove(move, value + "; legal moves: " + ", ".join(_candidates(pending)[:12]))
        st = _copy(state) if transactional else state
        rt = self.runtime(st)
        try:
            vm.resume(rt, kind, value)
            if check:
                self._check_constraints(rt)
        except vm.Abort as e:
            raise IllegalMove(move, e.reason, e.span) from None
        except RecursionError:
            raise IllegalMove(move, "the rules recurse without end") from None
        except RulespecError:
            raise
        except Exception as e:      # an engine bug: a clear error, never a raw traceback for users
            raise RulespecError(Diagnostic("RS301", f"engine error while applying '{move}': "
                                           f"{type(e).__name__}: {e}", Span("<engine>"),
                                           "please report this with the game log")) from e
        if events is not None:
            events.extend(rt.events)
        return st

    def _check_constraints(self, rt):
        """Every pack constraint must hold after the move (interpreter/constraints.py: only
        those whose inputs differ from the last state that passed are evaluated again)."""
        self.constraint_checker.check(rt)

    def is_over(self, state) -> bool:
        return bool(state.get("over"))

    def scores(self, state) -> dict:
        rt = self.runtime(state)
        out = {}
        for p in state["players"]:
            row = {}
            for s in self.rs.scoring:
                row[s["id"]] = int(s["points"](rt, {"player": p}) or 0)
            row["total"] = sum(row.values())
            tb = self.rs.game.get("tie_break")
            row["tie_break"] = int(tb(rt, {"player": p}) or 0) if tb else 0
            out[p] = row
        return out

    def total_score(self, state, player, rt=None) -> int:
        rt = rt or self.runtime(state)
        return sum(int(s["points"](rt, {"player": player}) or 0) for s in self.rs.scoring)

    def winners(self, state) -> list:
        sc = self.scores(state)
        best = max((r["total"], r["tie_break"]) for r in sc.values())
        return [p for p, r in sc.items() if (r["total"], r["tie_break"]) == best]

    def explain(self, state, move) -> str:
        """Why a move is illegal (or 'legal')."""
        try:
            self.apply(state, move)
            return "legal"
        except IllegalMove as e:
            where = f" [rule: {e.rule_span}]" if e.rule_span and e.rule_span.line else ""
            return e.reason + where


def _paying(state) -> bool:
    """A payment is in progress somewhere in the rules being run."""
    return any(isinstance(f.get("k"), dict) and "need" in f["k"] for f in state["vm"]["frames"])


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
        out = [f"choose {_fmt(v)}" for v in pending["options"]]
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
                if _fmt(v) == text:
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
