"""The games of a browser table and the JSON the page draws of them.

A game is a human Session (rulespec/human.py): the labels of the legal moves, why a move is
refused, undo, save and load are the terminal table's. Its log is always being written, to a
file of the server's own temporary folder, so that `save` is a download of that file and
`load` an upload replayed by Session.load.

The page is drawn from the pack's declarations and the state's structure, never from names
Python knows: the board graph of the pack (its nodes with the scalar fields the pack's data
gives them, positioned by their x/y when the data has them, else by a seeded spring layout),
the state's store whose records are keyed by the graph's nodes (drawn on the map), the sides'
records, every other store of the state (an overlay's own records included), the pack's
track declarations, and the titles the pack gives its ids. Every request that the game cannot
answer raises WebError (a 4xx status and a message), never a Python exception.
"""
from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
from collections import OrderedDict

from interpreter.api import Engine, IllegalMove
from interpreter.bots import BOTS, parse_bot
from rulespec.errors import RulespecError
from rulespec.human import Session, move_label
from rulespec.pack import bundled_packs, load_pack
from rulespec.world import BUILTIN_STORE, SIDE

MAX_GAMES = 64                  # the oldest game is dropped past this many
MAX_LOG_BYTES = 4_000_000       # an uploaded game log
# the engine's own keys of a state, not the game's: not drawn
ENGINE_KEYS = ("format", "pack", "rng", "seq", "vm", "options")
LAYOUT_SEED = 7
BOX = 1000.0                    # the map's coordinates are scaled into a BOX x BOX square


class WebError(Exception):
    """A request the table cannot answer: the HTTP status (4xx) and what to tell the user."""

    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def _diagnostics(e: RulespecError) -> str:
    return "\n".join(d.render() for d in e.diagnostics) or str(e)


# ------------------------------------------------------------------ the board
def _data_fields(pack, ids: set) -> dict:
    """{id: {field: scalar}} of every item of the pack's data whose id is a node of the graph."""
    out: dict = {}

    def walk(v):
        if isinstance(v, dict):
            if v.get("id") in ids:
                out.setdefault(v["id"], {}).update(
                    {k: x for k, x in v.items() if isinstance(x, (str, int, float, bool)) and k != "id"})
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for doc in pack.data.values():
        walk(doc.data)
    return out


def board_layout(engine, n_players: int, names) -> dict:
    """The pack's graph for this player count: nodes (id, kind, title, x, y and the scalar
    fields of the pack's data for it) and edges (a, b, kind). Positions are the data's x/y
    when every node has them, else a spring layout with a fixed seed (the same every time)."""
    board = engine.board(n_players)
    g = board.graph
    fields = _data_fields(engine.pack, set(g.nodes))
    pos = {}
    for n, d in g.nodes(data=True):
        x, y = d.get("x", fields.get(n, {}).get("x")), d.get("y", fields.get(n, {}).get("y"))
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            pos[n] = (float(x), float(y))
    if len(pos) < len(g):
        import networkx as nx
        fixed = list(pos) or None
        pos = {n: (float(p[0]), float(p[1])) for n, p in
               nx.spring_layout(g, pos=pos or None, fixed=fixed, seed=LAYOUT_SEED).items()}
    xs, ys = [p[0] for p in pos.values()] or [0.0], [p[1] for p in pos.values()] or [0.0]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    nodes = []
    for n, d in g.nodes(data=True):
        rec = {k: v for k, v in {**fields.get(n, {}), **d}.items() if isinstance(v, (str, int, float, bool))}
        try:
            rec["value"] = board.value(n)
        except (KeyError, TypeError):
            pass
        rec.update(id=n, title=names.title(n), kind=str(d.get("kind", "")),
                   x=round((pos[n][0] - min(xs)) / span * BOX, 1), y=round((pos[n][1] - min(ys)) / span * BOX, 1))
        nodes.append(rec)
    edges = [{"a": a, "b": b, "kind": str(d.get("kind", ""))} for a, b, d in g.edges(data=True)]
    return {"nodes": nodes, "edges": edges}


def place_store(state: dict, node_ids) -> str | None:
    """The state's store whose records are keyed by nodes of the graph (drawn on the map)."""
    nodes = set(node_ids)
    for k, v in state.items():
        if isinstance(v, dict) and v and all(isinstance(r, dict) for r in v.values()) and set(v) <= nodes:
            return k
    return None


def move_ids(move: str) -> list:
    """The ids a move names (`tap merchant#2 crown` -> merchant#2, crown): what clicking a
    node of the map, a thing or a space of the page filters the moves by."""
    return move.split()[1:]


# ------------------------------------------------------------------ one game
class Table:
    """One game at the browser table: a Session, its log file, and a lock (the server answers
    requests on several threads)."""

    def __init__(self, gid: str, engine, session: Session, folder: str):
        self.id = gid
        self.engine = engine
        self.session = session
        self.folder = folder
        self.lock = threading.Lock()

    # -------------------------------------------------------------- reading
    def view(self, statics: dict, at: int | None = None) -> dict:
        """The JSON of the position (after `at` moves: a look back, with no moves offered)."""
        s, eng = self.session, self.engine
        n = len(s.record)
        if at is not None and not 0 <= at <= n:
            raise WebError(400, f"no position after {at} moves: the game has {n} (at=0..{n})")
        looking_back = at is not None and at != n
        st = s.record.state_at(at) if looking_back else s.state
        players = st["players"]
        static = statics_for(statics, eng, len(players), s.names)
        places = place_store(st, (nd["id"] for nd in static["board"]["nodes"]))
        sides = BUILTIN_STORE[SIDE]
        pending = st["vm"].get("pending") or {}
        over = eng.is_over(st) or not eng.legal_moves(st)
        deciding = None if over else pending.get("player")
        moves = []
        if not looking_back and not over and deciding in s.humans:
            moves = [{"n": i, "move": mv, "label": lab, "ids": move_ids(mv)} for i, mv, lab in s.legal()]
        game = {k: v for k, v in st.items() if k not in ENGINE_KEYS and k not in (places, sides)
                and (not isinstance(v, (dict, list)) or (isinstance(v, list) and all(isinstance(x, str) for x in v)))}
        stores = [{"key": k, "title": static["store_titles"].get(k, k), "records": v} for k, v in st.items()
                  if k not in ENGINE_KEYS and k not in (places, sides) and isinstance(v, dict) and v]
        space_labels = {}
        for owner, rec in (st.get(sides) or {}).items():
            for key, items in (rec.items() if isinstance(rec, dict) else ()):
                for i, x in enumerate(items if isinstance(items, list) else ()):
                    sid = f"{owner}.{key[:-1]}{i}"
                    if isinstance(x, dict) and s.names.space(st, sid) is not None:
                        space_labels[sid] = s.names.label(st, sid)
        log = [{"n": i + 1, "player": w, "move": mv} for i, (w, mv) in enumerate(zip(s.who, s.record.moves))]
        view = {
            "id": self.id, "pack": eng.pack.id, "title": static["title"], "players": players,
            "humans": s.humans, "bot": s.bot_name, "length": n, "at": at if looking_back else n,
            "over": over, "deciding": deciding,
            "pending": {k: pending.get(k) for k in ("kind", "player", "prompt", "at", "can_stop")},
            "game": game, "sides": st.get(sides) or {}, "sides_title": static["store_titles"].get(sides, ""),
            "places": {"key": places, "title": static["store_titles"].get(places, places),
                       "records": st.get(places) or {}},
            "stores": stores, "space_labels": space_labels, "moves": moves, "log": log,
            "last": [] if looking_back else [{"player": w, "label": lab, "account": acc} for w, lab, acc in s.last],
            "static": static,
        }
        if over:
            view["scores"] = eng.scores(st)
        return view

    # -------------------------------------------------------------- playing
    def play(self, body: dict) -> None:
        """Play the move of the request: {"index": N} (1-based, as listed) or {"move": text}
        (exactly a legal move). Not legal: WebError 422 with why it is refused (the reason and
        the rule), the state unchanged."""
        s = self.session
        if s.over():
            raise WebError(409, "the game is over: no move can be played")
        if s.deciding() not in s.humans:
            raise WebError(409, f"{s.deciding()} (a bot) is deciding, not a seat at this table")
        legal = s.legal()
        if "index" in body:
            i = body["index"]
            if not isinstance(i, int) or isinstance(i, bool) or not 1 <= i <= len(legal):
                raise WebError(400, f"bad move index {json.dumps(i)[:40]}: the moves are numbered 1 to {len(legal)}")
            move = legal[i - 1][1]
        elif isinstance(body.get("move"), str) and body["move"].strip():
            move = " ".join(body["move"].split())
        else:
            raise WebError(400, 'give the move as {"move": "choose milan"} or {"index": 3}')
        if move not in {mv for _, mv, _ in legal}:
            message, extra = self._refusal(move)
            raise WebError(422, message, **extra)
        reply = s.play(move)
        if reply.error:         # not expected for a legal move; said as it is
            raise WebError(422, "; ".join(reply.lines))

    def _refusal(self, move: str):
        r = self.engine.why(self.session.state, move)
        if r is None:
            return f"'{move}' is not one of the legal moves now", {}
        message = f"'{move}' is refused: {r.reason}" + (f" (rule: {r.where()})" if r.where() else "")
        return message, {"refusal": {"move": move, "reason": r.reason, "rule": r.where(), "lines": r.lines()}}

    def why(self, move) -> dict:
        if not isinstance(move, str) or not move.strip():
            raise WebError(400, 'give the move as {"move": "choose milan"}')
        move = " ".join(move.split())
        r = self.engine.why(self.session.state, move)
        if r is None:
            label = move_label(self.session.names, self.session.state, move)
            return {"legal": True, "lines": [f"'{move}' is legal: {label}"]}
        return {"legal": False, "reason": r.reason, "rule": r.where(), "lines": r.lines()}

    def undo(self, n) -> list:
        if not isinstance(n, int) or isinstance(n, bool):
            raise WebError(400, f"undo takes a number of moves, not {json.dumps(n)[:40]}")
        reply = self.session.undo(n)
        if reply.error:
            raise WebError(409, "; ".join(reply.lines))
        return reply.lines

    def hint(self) -> list:
        if self.session.over():
            raise WebError(409, "the game is over")
        return self.session.hint().lines

    def log_text(self) -> str:
        with open(self.session.log_path, encoding="utf-8") as f:
            return f.read()

    def close(self):
        self.session.close()


def statics_for(cache: dict, engine, n_players: int, names) -> dict:
    """What does not change in a game of this pack and player count: the board, the pack's
    titles, its tracks (title, last space), the titles of the state's stores (the pack's kinds)."""
    key = (engine.pack.id, n_players)
    if key not in cache:
        rs = engine.rs
        tracks = {}
        for tid, t in (rs.tracks or {}).items():
            decl = t.get("decl") if isinstance(t, dict) else None
            tracks[tid] = {"title": decl.title if decl is not None and decl.title else tid,
                           "last": max(0, len((t or {}).get("spaces") or []) - 1)}
        store_titles = {}
        for kname, kind in rs.world.kinds.items():
            decl = engine.pack.decls.get(("kind", kname))
            if kind.store:
                store_titles[kind.store] = (decl.title if decl is not None and decl.title else kname)
        side_kind = rs.world.kinds.get(SIDE)
        indexes = {name: {"list": f.type.name, "title": f.doc or name}
                   for name, f in (side_kind.fields.items() if side_kind else ()) if f.type.shape == "index"}
        game_decl = (rs.game or {}).get("decl")
        # a shared marker is drawn in its owner's colour (its `owner:` in the pack), not by its id
        marker_owners = {mid: m.get("owner") for mid, m in (rs.markers or {}).items() if m.get("owner")}
        cache[key] = {"board": board_layout(engine, n_players, names), "titles": names.titles,
                      "tracks": tracks, "marker_owners": marker_owners, "store_titles": store_titles, "side_indexes": indexes,
                      "title": game_decl.title if game_decl is not None and game_decl.title else engine.pack.id,
                      "round_name": (rs.game or {}).get("round_name") or ""}
    return cache[key]


# ------------------------------------------------------------------ all games
class Tables:
    """The games of one server, by id; the packs it may play (the one it serves and the
    bundled ones), each loaded once."""

    def __init__(self, pack_ref: str, search_path=None, bot: str = "random"):
        self.search_path = search_path
        self.default_bot = bot
        self.engines: dict = {}
        first = self.engine(pack_ref, trusted=True)
        self.default_pack = first.pack.id
        self.refs = {first.pack.id: pack_ref}
        self.tables: OrderedDict = OrderedDict()
        self.statics: dict = {}
        self.folder = tempfile.mkdtemp(prefix="rulespec-serve-")
        self.lock = threading.Lock()

    def packs(self) -> list:
        ids = [self.default_pack] + [p for p in bundled_packs() if p != self.default_pack]
        out = []
        for pid in ids:
            try:
                pk = self.engine(pid).pack
            except WebError:
                continue
            out.append({"id": pid, "players": list(pk.players or [])})
        return out

    def engine(self, ref, trusted: bool = False) -> Engine:
        """The engine of a pack the table may play: the served one or a bundled id."""
        if not isinstance(ref, str) or not ref:
            raise WebError(400, "give a pack id")
        if ref in self.engines:
            return self.engines[ref]
        if not trusted and ref not in bundled_packs() and ref not in getattr(self, "refs", {}):
            raise WebError(404, f"no pack '{ref[:80]}' here: " + ", ".join(self.packs_ids()))
        try:
            eng = Engine(load_pack(getattr(self, "refs", {}).get(ref, ref), self.search_path))
        except RulespecError as e:
            if trusted:         # the pack of the command line: its error is the command's
                raise
            raise WebError(400, _diagnostics(e)) from None
        self.engines[ref] = eng
        self.engines[eng.pack.id] = eng
        return eng

    def packs_ids(self) -> list:
        return [self.default_pack] + [p for p in bundled_packs() if p != self.default_pack]

    def get(self, gid) -> Table:
        t = self.tables.get(gid)
        if t is None:
            raise WebError(404, f"no game '{str(gid)[:40]}' on this server (games end when the server stops)")
        return t

    def _add(self, engine, session) -> Table:
        with self.lock:
            gid = secrets.token_hex(6)
            t = Table(gid, engine, session, self.folder)
            self.tables[gid] = t
            while len(self.tables) > MAX_GAMES:
                _, old = self.tables.popitem(last=False)
                old.close()
            return t

    def _bot(self, bot) -> str:
        bot = self.default_bot if bot is None else bot
        if not isinstance(bot, str) or len(bot) > 200:
            raise WebError(400, f"no bot {json.dumps(bot)[:40]}: bots are " + ", ".join(BOTS))
        try:
            parse_bot(bot)              # a name with its knobs ('mcts:iterations=8'), checked
        except RulespecError as e:
            raise WebError(400, f"{e.first.message} ({e.first.hint})") from None
        return bot

    def new(self, body: dict) -> Table:
        """A new game: {"pack": id, "players": N, "seed": S, "humans": "all" | [colours] | K
        (the first K seats), "bot": name}; the bots play until a person decides."""
        unknown = sorted(set(body) - {"pack", "players", "seed", "humans", "bot"})
        if unknown:
            raise WebError(400, f"unknown field(s) {', '.join(unknown)[:80]}: a new game takes pack, players, "
                                f"seed, humans and bot")
        engine = self.engine(body.get("pack", self.default_pack))
        counts = list(engine.pack.players or [])
        players = body.get("players", 4 if 4 in counts or not counts else min(counts))
        if not isinstance(players, int) or isinstance(players, bool) or (counts and players not in counts) \
                or not 1 <= players <= 8:
            raise WebError(400, f"players: {json.dumps(players)[:20]} is not a player count of {engine.pack.id} "
                                f"({', '.join(map(str, counts))})")
        seed = body.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 63:
            raise WebError(400, f"seed: {json.dumps(seed)[:20]} is not a whole number >= 0")
        bot = self._bot(body.get("bot"))
        colours = engine.new_game(players, seed)["players"]
        humans = self._humans(body.get("humans", "all"), colours)
        return self._start(engine, lambda path: Session(engine, players, humans, bot, seed, log_path=path))

    def _humans(self, humans, colours) -> list:
        if humans == "all":
            return list(colours)
        if isinstance(humans, int) and not isinstance(humans, bool) and 1 <= humans <= len(colours):
            return list(colours[:humans])
        if isinstance(humans, list) and humans and all(isinstance(h, str) for h in humans):
            bad = [h for h in humans if h not in colours]
            if bad:
                raise WebError(400, f"humans: {', '.join(bad)[:80]} not a colour of this game ({', '.join(colours)})")
            return humans
        raise WebError(400, 'humans: "all", a number of seats, or a list of colours of the game')

    def _start(self, engine, make) -> Table:
        fd, path = tempfile.mkstemp(suffix=".jsonl", dir=self.folder)
        os.close(fd)
        try:
            session = make(path)
            session.advance()
        except RulespecError as e:
            raise WebError(400, _diagnostics(e)) from None
        return self._add(engine, session)

    def load(self, text, humans="all", bot=None) -> Table:
        """A game from a game log (a save, or `rulespec play --log`): replayed, then it goes on."""
        if not isinstance(text, str) or not text.strip():
            raise WebError(400, "give the game log (the text of a save) to load")
        if len(text.encode()) > MAX_LOG_BYTES:
            raise WebError(413, f"the log is larger than {MAX_LOG_BYTES} bytes")
        try:
            header = json.loads(text.splitlines()[0])
        except ValueError:
            header = None
        if not isinstance(header, dict) or not isinstance(header.get("players"), list) \
                or not all(isinstance(p, str) for p in header["players"]) or not header["players"]:
            raise WebError(400, "not a game log: its first line is not a header with the players "
                                "(save a game here, or write one with `rulespec play --log`)")
        engine = self.engine(header.get("pack"))
        bot = self._bot(bot)
        humans = self._humans(humans, header["players"])
        seed = header.get("seed") if isinstance(header.get("seed"), int) else 0
        fd, path = tempfile.mkstemp(suffix=".jsonl", dir=self.folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            session = Session(engine, list(header["players"]), humans, bot, seed)
            session.load(path)
        except (RulespecError, IllegalMove) as e:
            msg = _diagnostics(e) if isinstance(e, RulespecError) else f"{e.move}: {e.reason}"
            raise WebError(400, "the log does not load: " + msg) from None
        except (KeyError, TypeError, ValueError) as e:
            raise WebError(400, f"the log does not load: a line lacks or misnames a field ({e})") from None
        return self._add(engine, session)
