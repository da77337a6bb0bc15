"""The terminal table of `rulespec play --human`: draws a Session (rulespec/human.py) with rich
and reads the person's commands.

Everything is drawn from the pack's data and the state's structure, not from names known to
Python: the map from the state's places (whatever each holds: a controller, counts per side,
an agent...), each side's record field by field (numbers, lists of records such as the Palace
spaces, lists of ids), the tracks from the pack's track declarations (an overlay's own tracks
appear), the alliances and turn order from the state. The screen fits WIDTH x HEIGHT (100 x
40): every line is cut to the width, and the list of moves gets the rows that are left.
"""
from __future__ import annotations

from rich.console import Console
from rich.text import Text

from .human import HELP, Session, _cut

WIDTH, HEIGHT = 100, 40
LABEL = 22          # a name in a list is cut to this many characters
# the colours of rich for the pack's colour ids (any other id is drawn in the default colour)
_STYLE = {"red": "red", "blue": "blue", "yellow": "yellow", "green": "green", "white": "bright_white",
          "black": "bright_black", "purple": "magenta", "orange": "dark_orange"}


def _short(v) -> str:
    return str(v)


def _abbreviations(keys) -> dict:
    """Each key's shortest prefix that no other key starts with (agent: a, cathedral: ca...)."""
    keys = list(keys)
    out = {}
    for k in keys:
        n = 1
        while n < len(k) and any(o != k and o.startswith(k[:n]) for o in keys):
            n += 1
        out[k] = k[:n]
    return out


class Screen:
    """The lines of one screen of a session (rich Text, each at most `width` wide)."""

    def __init__(self, session: Session, width: int = WIDTH, height: int = HEIGHT):
        self.s = session
        self.width = width
        self.height = height
        self.names = session.names

    # -------------------------------------------------------------- pieces
    def side(self, colour, text=None) -> Text:
        return Text(text if text is not None else str(colour), style=_STYLE.get(str(colour), ""))

    def initial(self, colour) -> Text:
        c = str(colour)
        return self.side(c, c[:1].upper())

    def header(self) -> list:
        st = self.s.state
        t = Text()
        t.append(f"{self.s.engine.pack.id} ", style="bold")
        t.append(f"| Year {st.get('year')} | {st.get('phase')} | order: ")
        for i, c in enumerate(st.get("turn_order") or []):
            t.append(" " if i else "")
            t.append_text(self.side(c))
        t.append(" | you: ")
        for i, c in enumerate(self.s.humans):
            t.append("," if i else "")
            t.append_text(self.side(c))
        return [t]

    def _counts(self, d: dict) -> Text:
        t = Text()
        for c, n in d.items():
            if n:
                t.append_text(self.initial(c))
                t.append(str(n))
        return t

    def place(self, pid, rec: dict, width: int) -> Text:
        """One place of the map: its name, then what it holds (colours as their initial)."""
        players = self.s.state["players"]
        short = _abbreviations(rec)
        t = Text(self.names.title(pid)[:11].ljust(11))
        for k, v in rec.items():
            if v in (None, False, 0, {}, []):
                continue
            t.append(" ")
            if isinstance(v, dict):
                t.append(short[k])
                t.append_text(self._counts(v))
            elif v in players:
                t.append(short[k] + ":")
                t.append_text(self.initial(v))
            elif v is True:
                t.append(short[k], style="bold")
            else:
                t.append(f"{short[k]}:{_short(v)}")
        t.truncate(width)
        return t

    def map(self, cols: int = 4, legend: bool = True) -> list:
        places = self.s.state.get("cities") or {}
        if not places:
            return []
        w = self.width // cols
        items = [self.place(pid, rec, w - 1) for pid, rec in places.items()]
        keys = {k: None for rec in places.values() for k in rec}
        short = _abbreviations(keys)
        out = [Text("Map: " + ", ".join(f"{short[k]}={k}" for k in keys), style="dim")]
        out = out if legend else []
        rows = (len(items) + cols - 1) // cols
        for r in range(rows):
            line = Text()
            for c in range(cols):
                i = c * rows + r
                if i < len(items):
                    cell = items[i].copy()
                    cell.pad_right(w - cell.cell_len)
                    line.append_text(cell)
            out.append(line)
        return out

    def _item(self, owner, key, i, rec) -> Text:
        """One record of a side's list (a Palace space, a Cortigiano space, a Domain tile):
        a space of the move notation by its label (rulespec/human.py), another by the names
        it holds and its flags that are set."""
        t = Text()
        name = f"{owner}.{key[:-1]}{i}"
        if self.names.space(self.s.state, name) is not None:
            marker = self.s.state["p"][owner].get("marker")
            t.append("▶" if marker == i else "", style="bold")
            t.append(self.names.label(self.s.state, name, cut=LABEL - 6))
            return t
        words = [_cut(self.names.title(v), LABEL) for v in rec.values() if isinstance(v, str) and v]
        flags = [k[:4] for k, v in rec.items() if v is True]
        t.append(" ".join(words) or "·")
        if flags:
            t.append(" " + " ".join(flags), style="dim")
        return t

    def _records(self, owner, key, items) -> list:
        """A list of records, grouped by the first text they all have (a Cortigiano edge),
        on as many lines as they need."""
        first = next(iter(items[0]), None)
        group = first if first and all(isinstance(x.get(first), str) for x in items) else None
        if group and len({x[group] for x in items}) == len(items):
            group = None            # an id of each record, not a group
        cells, last = [], None
        for i, x in enumerate(items):
            cell = Text()
            if group and x[group] != last:
                cell.append(f"{x[group]}: ", style="bold")
                last = x[group]
            cell.append_text(self._item(owner, key, i, {k: v for k, v in x.items() if k != group} if group else x))
            cells.append(cell)
        lines = [Text(f" {key}: ", style="dim")]
        for i, cell in enumerate(cells):
            sep = "" if i == 0 else ("  " if cell.plain.endswith(": ") or (group and items[i][group] != items[i - 1][group]) else " | ")
            if i and lines[-1].cell_len + len(sep) + cell.cell_len > self.width:
                lines.append(Text("   "))
                sep = ""
            lines[-1].append(sep)
            lines[-1].append_text(cell)
        return lines

    def player(self, colour) -> list:
        rec = self.s.state["p"][colour]
        places = self.s.state.get("cities") or {}
        head = Text()
        head.append_text(self.side(colour, str(colour).upper()))
        if colour in self.s.humans:
            head.append(" (you)", style="bold")
        groups: dict = {}
        for k, v in rec.items():
            if isinstance(v, int) and not isinstance(v, bool):
                first, _, rest = k.partition("_")
                groups.setdefault(first, []).append((rest, v))
        for first, parts in groups.items():
            head.append(f"  {first} " + " ".join(f"{rest} {v}".strip() for rest, v in parts))
        lines = [head]
        for k, v in rec.items():
            if not isinstance(v, list) or not v or all(x in places for x in v if isinstance(x, str)) and \
                    all(isinstance(x, str) for x in v):
                continue            # empty, or places of the map (drawn there)
            if all(isinstance(x, dict) for x in v):
                lines += self._records(colour, k, v)
            else:
                t = Text(f" {k}: ", style="dim")
                t.append(", ".join(_cut(self.names.title(x), LABEL) for x in v))
                lines.append(t)
        return lines

    def tracks(self) -> list:
        st, rs = self.s.state, self.s.engine.rs
        out = []
        t = Text()
        for tid, track in (st.get("tracks") or {}).items():
            decl = rs.tracks.get(tid, {}).get("decl") if isinstance(rs.tracks.get(tid), dict) else None
            name = decl.title if decl is not None and decl.title else tid
            last = len(rs.tracks.get(tid, {}).get("spaces") or []) - 1
            t.append(f"{name}: ", style="bold")
            for c, pos in (track.get("pos") or {}).items():
                t.append_text(self.initial(c))
                t.append(f"{pos} ")
            t.append(f"(of {last})  " if last > 0 else " ")
        if t.plain:
            out.append(t)
        alliances = st.get("alliances") or {}
        if alliances:
            t = Text("Alliances: ", style="bold")
            for aid, rec in alliances.items():
                t.append(self.names.title(aid) + " ")
                held = [(k, v) for k, v in rec.items() if v not in (None, False)]
                t.append(("[" + " ".join(f"{k} {v}" for k, v in held) + "]") if held else "-")
                t.append("  ")
            out.append(t)
        return out

    def decision(self) -> list:
        st = self.s.state
        if self.s.over():
            return [Text("The game is over.", style="bold")]
        p = st["vm"]["pending"] or {}
        t = Text()
        t.append_text(self.side(p.get("player"), str(p.get("player"))))
        t.append(f" decides: {p.get('prompt') or p.get('kind')}", style="bold")
        if p.get("at"):
            t.append(f"   ({p['at']})", style="dim")
        return [t]

    def moves(self, rows: int) -> list:
        """The legal moves, numbered, in as many columns as the rows left need (labels cut
        to fit); what still does not fit is counted on the last row."""
        legal = self.s.legal()
        if not legal or self.s.deciding() not in self.s.humans:
            return []
        cells = [f"{n:>2}. {lab}" for n, _, lab in legal]
        rows = max(1, rows)
        cols = max(1, min(len(cells), self.width // (max(len(c) for c in cells) + 2)))
        if (len(cells) + cols - 1) // cols > rows:       # more columns, shorter labels
            cols = max(cols, min(4, (len(cells) + rows - 1) // rows))
        width = self.width // cols
        per_col = (len(cells) + cols - 1) // cols
        fits = per_col <= rows
        shown_rows = per_col if fits else max(1, rows - 1)
        if not fits:
            per_col = shown_rows
        out = []
        for r in range(shown_rows):
            line = Text()
            for c in range(cols):
                i = c * per_col + r
                if i < len(cells):
                    line.append(_cut(cells[i], width - 1).ljust(width))
            out.append(line)
        hidden = len(cells) - min(len(cells), shown_rows * cols)
        if hidden > 0:
            out.append(Text(f"... and {hidden} more: type a number or a word of the move", style="dim"))
        return out

    def log(self, rows: int) -> list:
        lines = []
        for who, mv, acc in self.s.last:
            lines.append(Text(f"{who or '-'}: {mv}" + (f"  ({'; '.join(acc)})" if acc else ""), style="dim"))
        return lines[-rows:] if rows > 0 else []

    # -------------------------------------------------------------- the screen
    def lines(self, message: list | None = None) -> list:
        """The screen's lines: at most height - 1 (the last row is the prompt's). When the
        sides take many rows (5 players), the map gets more columns, then loses its legend."""
        players = []
        for c in self.s.state["players"]:
            players += self.player(c)
        bottom = [Text(m) for m in (message or [])]
        decision = self.decision()
        for cols, legend in ((4, True), (5, True), (5, False), (6, False)):
            top = self.header() + self.map(cols, legend) + players + self.tracks()
            room = self.height - 1 - len(top) - len(decision) - len(bottom)
            if room >= 2:
                break
        if room < 2:                # still too tall: the message gives way
            bottom = bottom[:max(1, len(bottom) + room - 2)]
            room = self.height - 1 - len(top) - len(decision) - len(bottom)
        moves = self.moves(max(1, room))
        log = self.log(max(0, room - len(moves)))
        out = top + log + decision + moves + bottom
        for t in out:
            t.no_wrap = True
            t.truncate(self.width)
        return out[:self.height - 1]

    def text(self, message: list | None = None) -> str:
        """The screen as plain text (for tests and the issue note)."""
        return "\n".join(t.plain for t in self.lines(message))


def prompt(session: Session) -> str:
    st = session.state
    return f"[Year {st.get('year')} {st.get('phase')}] {session.deciding()}> "


def run(session: Session, console: Console | None = None, read=input) -> int:
    """The table: draw, read a line, do it; until the game ends or the person quits."""
    con = console or Console(highlight=False, width=min(WIDTH, Console().width))
    message = [HELP]
    session.advance()
    while True:
        if con.is_terminal:
            con.clear()
        screen = Screen(session, min(WIDTH, con.width), HEIGHT)
        for t in screen.lines(message):
            con.print(t, soft_wrap=False, overflow="crop", no_wrap=True)
        if session.over():
            scores = session.engine.scores(session.state)
            con.print("final scores: " + ", ".join(f"{p} {r['total']}" for p, r in scores.items()))
            return 0
        try:
            line = read(prompt(session))
        except EOFError:
            line = "quit"
        reply = session.command(line)
        if reply.quit:
            if session.log_path:
                con.print(f"the game is in {session.log_path}: `rulespec play --human ... ` then `load "
                          f"{session.log_path}` goes on")
            session.close()
            return 0
        message = reply.lines



def play_human(args, search_path, players_of) -> int:
    """`rulespec play PACK --human red[,blue]`: the session and its table (cli.cmd_play)."""
    from interpreter.api import Engine
    from .pack import load_pack
    engine = Engine(load_pack(args.pack, search_path))
    humans = [c.strip() for c in str(args.human).split(",") if c.strip()]
    session = Session(engine, players_of(args, engine.pack), humans, args.bots, args.seed, log_path=args.log)
    try:
        return run(session)
    finally:
        session.close()
