"""A human seat: the session logic of `rulespec play --human`, without any drawing.

Kept apart from the terminal table (rulespec/terminal.py) so that another front end (a
browser table) can reuse it: the labels of the legal moves, reading a typed move (by number
or by text), `why` (Engine.explain), `undo` (interpreter/history.GameRecord: a replay of the
moves minus the last ones, exact since the RNG is in the state), `save`/`load` (the game log
of `play --log`, interpreter/replay.py) and `hint` (a bot's choice).

Labels come from the pack, not from Python: a name in a move (`choose milan`, `tap
merchant#2 crown`) is shown by the name the pack gives it (a declaration's title, a YAML
item's `name`); a Palace space in the move notation (`red.room0`, interpreter/notation.py)
by its position and the Action it holds (the card placed there, else the printed one).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from interpreter.api import IllegalMove
from interpreter.bots import make_bot
from interpreter.events import account
from interpreter.history import GameRecord
from interpreter.replay import LogWriter, read_log

from .errors import Diagnostic, RulespecError, Span

_INSTANCE = re.compile(r"^(?P<base>[A-Za-z_]\w*)#(?P<n>\d+)$")
# a Palace space in the move notation (interpreter/notation.py): OWNER.room<index>, an item of
# the owner's `rooms` list
_SPACE = re.compile(r"^(?P<owner>[A-Za-z_]\w*)\.(?P<list>room)(?P<i>\d+)$")
_COST = re.compile(r"^\d+ [A-Za-z_]\w*( [+|] \d+ [A-Za-z_]\w*)*$")
MOVE_VERBS = ("choose", "option", "tap", "run", "yes", "no", "done")

HELP = ("moves: a number, or the move's text (or a word of its label); why MOVE: why it is refused; "
        "undo [N]: take back your last N moves; save FILE; load FILE; hint; quit")


# ------------------------------------------------------------------ labels
class Names:
    """What the pack calls each id: declaration titles and the `name` of YAML items."""

    def __init__(self, engine):
        self.engine = engine
        self.titles: dict = {}
        for (kind, id_), d in engine.pack.decls.items():
            if d.title and str(id_) not in self.titles:
                self.titles[str(id_)] = d.title
        for doc in engine.pack.data.values():
            self._walk(doc.data)

    def _walk(self, v):
        if isinstance(v, dict):
            if isinstance(v.get("id"), str) and isinstance(v.get("name"), str):
                self.titles.setdefault(v["id"], v["name"])
            for k, x in v.items():
                if isinstance(x, dict) and isinstance(x.get("name"), str) and isinstance(k, str):
                    self.titles.setdefault(k, x["name"])
                self._walk(x)
        elif isinstance(v, list):
            for x in v:
                self._walk(x)

    def title(self, name) -> str:
        """The pack's name for an id (`merchant#2` -> `Merchant 2`); the id itself otherwise."""
        s = str(name)
        if s in self.titles:
            return self.titles[s]
        m = _INSTANCE.match(s)
        if m and m["base"] in self.titles:
            return f"{self.titles[m['base']]} {m['n']}"
        return s

    def space(self, state, name):
        """(owner, list name, index, record) of a space in the move notation (`red.room0`:
        the owner's `rooms` list, item 0), or None."""
        m = _SPACE.match(str(name))
        if not m:
            return None
        rec = (state.get("p") or {}).get(m["owner"])
        items = rec.get(m["list"] + "s") if isinstance(rec, dict) else None
        i = int(m["i"])
        if not isinstance(items, list) or not 0 <= i < len(items):
            return None
        return m["owner"], m["list"] + "s", i, items[i]

    def held_action(self, state, owner, key, i, rec):
        """The Action a Palace space holds: the `action` of the card placed there, else the
        one printed on the owner's board (the pack's palaces data)."""
        rs = self.engine.rs
        for v in (rec or {}).values():
            d = rs.decls.get(("card", v)) if isinstance(v, str) else None
            if d is None and isinstance(v, str):
                m = _INSTANCE.match(v)
                d = rs.decls.get(("card", m["base"])) if m else None
            if d is not None and rs.static(d, "action"):
                return rs.static(d, "action")
        board = getattr(rs, "boards", {}).get(owner)      # its board: the sub-blocks of its list
        printed = board["decl"].sub(key[:-1]) if board else []
        return rs.static(printed[i], "action") if i < len(printed) else None

    def label(self, state, name, cut: int = 0) -> str:
        """A name in a move, for a human: a Palace space by its number, the Action it holds
        and what is placed there; anything else by the pack's name for it."""
        sp = self.space(state, name)
        if sp is not None:
            owner, key, i, rec = sp
            action = self.held_action(state, owner, key, i, rec)
            players = state.get("players") or ()
            placed = [f"{k} {v}" if v in players else _cut(self.title(v), cut)
                      for k, v in (rec or {}).items() if isinstance(v, str)]
            text = f"{i + 1} " + (self.title(action) if action else key[:-1])
            return text + (f" [{', '.join(placed)}]" if placed else "")
        return self.title(name)


def _cut(text: str, n: int) -> str:
    return text if not n or len(text) <= n else text[:n - 1] + "…"


def move_label(names: Names, state, move: str) -> str:
    """The human label of a legal move (the Action a Room holds, what a payment costs...)."""
    verb, _, rest = move.partition(" ")
    if verb == "choose":
        if _COST.match(rest):
            return f"pay {rest}"
        return names.label(state, rest)
    if verb == "option":
        return rest
    if verb == "tap":
        src, _, sym = rest.partition(" ")
        return f"{names.title(sym)} from {names.label(state, src)}"
    if verb == "run":
        return names.title(rest)
    if verb == "done":
        return "done (choose no more)"
    return move


# ------------------------------------------------------------------ the session
@dataclass
class Reply:
    """What a command answered: lines to show, and whether the position changed."""
    lines: list = field(default_factory=list)
    moved: bool = False
    quit: bool = False
    error: bool = False


class Session:
    """A game where some seats are people and the others bots: the moves so far (a
    GameRecord, for undo), the log file being written (after `save` or `load`), and
    the bots' moves played until a person must decide."""

    def __init__(self, engine, players, humans, bot: str = "random", seed: int = 0, options=None,
                 log_path: str | None = None):
        self.engine = engine
        self.names = Names(engine)
        self.seed = seed
        self.bot_name = bot
        self.bot = make_bot(bot, seed)      # a name with its knobs: 'greedy_eval:horizon=move'
        self.record = GameRecord(engine, players, seed, options)
        self.who: list = []            # the deciding player of each move
        colours = self.record.state["players"]
        unknown = [h for h in humans if h not in colours]
        if unknown:
            raise RulespecError(Diagnostic("RS030", f"--human {', '.join(unknown)}: not a colour of this game "
                                                    f"({', '.join(colours)})", Span("<command line>"),
                                           "give colours of the game, e.g. --human " + colours[0]))
        self.humans = list(humans)
        self.log_path = None
        self._log = None
        self._written = 0
        self.last = []                 # [(player, move, account lines)] of the latest moves
        if log_path:
            self.save(log_path)

    # -------------------------------------------------------------- reading
    @property
    def state(self) -> dict:
        return self.record.state

    def over(self) -> bool:
        return self.engine.is_over(self.state) or not self.record.legal_moves()

    def deciding(self):
        return (self.state["vm"].get("pending") or {}).get("player")

    def legal(self) -> list:
        """[(number, move, label)] of the moves of the decision pending."""
        return [(i, mv, move_label(self.names, self.state, mv)) for i, mv in enumerate(self.record.legal_moves(), 1)]

    # -------------------------------------------------------------- playing
    def advance(self) -> list:
        """Bots play until a person must decide or the game ends; [(player, move)] played."""
        played = []
        while not self.engine.is_over(self.state):
            legal = self.record.legal_moves()
            if not legal or self.deciding() in self.humans:
                break
            mv = self.bot.choose(self.engine, self.state, legal)
            played.append((self.deciding(), mv))
            self._play(mv)
        return played

    def _play(self, move: str):
        who = self.deciding()
        label = move_label(self.names, self.state, move)
        self.record.apply(move)
        self.who.append(who)
        self.last = (self.last + [(who, label, account(self.record.events[-1]))])[-12:]
        self._append_log()

    def resolve(self, text: str):
        """The legal move a typed text means: a number, the move itself, the move without its
        verb (`milan` for `choose milan`), or the one move whose label or text contains it;
        (move, None) or (None, why not)."""
        legal = self.legal()
        t = " ".join(text.split())
        if t.isdigit():
            n = int(t)
            if 1 <= n <= len(legal):
                return legal[n - 1][1], None
            return None, f"no move {n}: the moves are numbered 1 to {len(legal)}"
        for verb in ("", "choose ", "option "):
            for _, mv, _ in legal:
                if mv == verb + t:
                    return mv, None
        low = t.lower()
        hits = [mv for _, mv, lab in legal if low in lab.lower() or low in mv.lower()]
        if len(hits) == 1:
            return hits[0], None
        if hits:
            return None, f"'{t}' fits {len(hits)} moves: " + ", ".join(hits[:6]) + " (give its number)"
        return None, None

    def play(self, text: str) -> Reply:
        """Play what the person typed (a move), then let the bots play."""
        move, problem = self.resolve(text)
        if problem:
            return Reply([problem], error=True)
        if move is None:
            if text.split()[0] in MOVE_VERBS:        # a move that is not legal: say why
                return Reply(self.why(text).lines, error=True)
            return Reply([f"'{text}' is neither a move nor a command", HELP], error=True)
        self._play(move)
        self.advance()
        return Reply([], moved=True)

    # -------------------------------------------------------------- commands
    def command(self, line: str) -> Reply:
        """One line typed at the table: a command or a move."""
        line = line.strip()
        if not line:
            return Reply()
        word, _, arg = line.partition(" ")
        arg = arg.strip()
        try:
            if word in ("quit", "exit"):
                return Reply(quit=True)
            if word in ("help", "?"):
                return Reply([HELP])
            if word == "why":
                return self.why(arg) if arg else Reply(["why MOVE: e.g. why choose milan"], error=True)
            if word == "undo":
                return self.undo(int(arg) if arg.isdigit() else 1)
            if word == "save":
                return self.save(arg) if arg else Reply(["save FILE"], error=True)
            if word == "load":
                return self.load(arg) if arg else Reply(["load FILE"], error=True)
            if word == "hint":
                return self.hint()
            return self.play(line)
        except RulespecError as e:
            return Reply([d.render() for d in e.diagnostics], error=True)

    def why(self, text: str) -> Reply:
        move, _ = self.resolve(text)
        move = move or " ".join(text.split())
        r = self.engine.why(self.state, move)
        if r is None:
            return Reply([f"'{move}' is legal: {move_label(self.names, self.state, move)}"])
        return Reply(r.lines())

    def undo(self, n: int = 1) -> Reply:
        """Take back the last n moves of the people at the table (and the bots' moves after
        them): the position is again at the decision of the earliest one."""
        mine = sum(1 for w in self.who if w in self.humans)
        if n < 1 or mine < n:
            return Reply([f"cannot undo {n}: {mine} move(s) of yours to take back"], error=True)
        taken, left = 0, n
        while left:
            mv = self.record.undo()
            w = self.who.pop()
            taken += 1
            if w in self.humans:
                left -= 1
        self.last = self.last[:max(0, len(self.last) - taken)]
        self._rewrite_log()
        return Reply([f"took back {taken} move(s), {n} of them yours"], moved=True)

    def hint(self) -> Reply:
        legal = self.record.legal_moves()
        if not legal:
            return Reply(["no decision is pending"])
        bot = make_bot(self.bot_name, self.seed + len(self.record))
        mv = bot.choose(self.engine, self.state, legal)
        return Reply([f"the {self.bot_name} bot would play {legal.index(mv) + 1}: {mv}  "
                      f"({move_label(self.names, self.state, mv)})"])

    # -------------------------------------------------------------- save and load
    def save(self, path: str) -> Reply:
        """Write the game log so far to `path` and go on writing it as the game goes (the
        format of `play --log`: `rulespec replay` reads it)."""
        if self._log is not None:
            self._log.close()
        self._log = LogWriter(path)
        self.log_path = path
        self._written = 0
        self._log.header(self.engine, self.state["players"], self.seed, self.record.options)
        self._append_log()
        return Reply([f"saved {len(self.record)} moves to {path} (written on as the game goes)"])

    def _append_log(self):
        if self._log is None:
            return
        moves, events = self.record.moves, self.record.events
        while self._written < len(moves):
            i = self._written
            self._log.move(self.who[i], moves[i], events[i])
            self._written += 1
        if self.engine.is_over(self.state):
            self._log.finish(self.state)
            self._log = None

    def _rewrite_log(self):
        if self.log_path is not None and (self._log is not None or self._written > len(self.record)):
            self.save(self.log_path)

    def load(self, path: str) -> Reply:
        """Replay a game log (a save, or `play --log`) and go on from its last move; the
        log goes on being written to the same file."""
        header, lines, _ = read_log(path, allow_truncated=True)
        if header.get("pack") != self.engine.pack.id:
            raise RulespecError(Diagnostic("RS402", f"{path} is a game of pack '{header.get('pack')}', not of "
                                                    f"'{self.engine.pack.id}'", Span(str(path), 1, 1),
                                           "load a game of the pack being played"))
        missing = [h for h in self.humans if h not in header["players"]]
        if missing:
            raise RulespecError(Diagnostic("RS402", f"{path} is a game of {', '.join(header['players'])}: "
                                                    f"no seat {', '.join(missing)}", Span(str(path), 1, 1),
                                           "load a game with the seats of --human"))
        record = GameRecord(self.engine, header["players"], header["seed"], header.get("options"))
        who = []
        for lineno, rec in lines:
            try:
                who.append((record.state["vm"].get("pending") or {}).get("player"))
                record.apply(rec["move"])
            except IllegalMove as e:
                raise RulespecError(Diagnostic("RS402", f"move {rec.get('n')} '{rec['move']}' does not replay: "
                                                        f"{e.reason}", Span(str(path), lineno, 1),
                                               "the log and the pack disagree")) from None
        self.record, self.who, self.seed = record, who, header["seed"]
        self.last = [(w, m, account(ev)) for w, m, ev in zip(who, record.moves, record.events)][-12:]
        self.save(path)
        self.advance()
        return Reply([f"loaded {len(lines)} moves from {path}"], moved=True)

    def close(self):
        if self._log is not None:
            self._log.close()
