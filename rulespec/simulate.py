"""`rulespec simulate`: many bots' games of one pack, for designers weighing its balance.

A run is a list of GameSpecs (one per game: its seed, its seats' colours and bots) played by
`play_one`, here, in worker processes (`--jobs`) or on a Dask cluster (`--dask`): a game
depends only on its spec, so the same specs give the same records wherever they run. Seats
are rotated so that colour, seat and bot effects can be told apart: in game g, seat k (1 is the
first in the turn order the setup gives) plays colour `colours[(k + g) % N]` and bot
`bots[(k + g // N) % N]`, so that over N x N games every colour sits at every seat and every
bot plays every seat.

Each game becomes a record (JSON-safe, the `games` of report.json): the seats, the winners,
the scores by the pack's scoring categories, the length in Years and decisions, and counts of
the pack's structured events (interpreter/events.py), keyed by their declared keys: nothing
here knows a rule of any game. A game that fails (an exception, a broken constraint, no legal
move) is a record with its code, message and a replay log, and the run goes on.

`metrics` turns the records into per-game numbers named like `win.colour.red`,
`score.cities`, `length.years`, `events.card_gained.card.bishop`, `per_event.traded.florins`
(a numeric key's mean per occurrence of its event: what one Trade brings, which a per-game
total hides behind how often players trade and how long games last) and
`ratio.traded.florins_per_ships` (one numeric key's game total over another's); their means and 95%
intervals (rulespec.stats) are the aggregates, compared pair by pair by rulespec.compare and
checked against the pack's balance.yaml by rulespec.balance.
"""
from __future__ import annotations

import os
import re
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from .errors import Diagnostic, RuleFault, RulespecError, Span, did_you_mean
from .stats import mean_interval, rate_interval

REPORT_VERSION = 1
MAX_MOVES = 100_000
DASK_CONNECT_TIMEOUT = "10s"
# a card instance is written `bishop#2`: counted as its card, `bishop`
_INSTANCE = re.compile(r"#\d+$")


@dataclass(frozen=True)
class GameSpec:
    """Everything one game depends on: a worker needs nothing else."""
    pack: str                 # the pack's folder (absolute) or bundled id
    search_path: tuple
    index: int
    seed: int
    seats: tuple              # colours, in seat order
    bots: tuple               # bot names, in seat order
    log_dir: str              # where a failed game's replay log is written
    max_moves: int = MAX_MOVES


def bot_names() -> list:
    """The registered bots (interpreter/bots.py's BOTS), so that new bots appear here unasked."""
    from interpreter.bots import BOTS
    return list(BOTS)


def parse_bots(text: str, players: int) -> list:
    """`greedy,random,mcts` (one per seat) or `random` (every seat); RulespecError RS030
    otherwise, naming what is wrong."""
    names = [n.strip() for n in str(text).split(",")]
    known = bot_names()
    for n in names:
        if n not in known:
            # the span names the argument: the command line places it there (cli._place_on_command_line)
            raise RulespecError(Diagnostic("RS030", f"unknown bot '{n[:40]}'", Span(str(text)),
                                           did_you_mean(n, known) or f"bots: {', '.join(known)}"))
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise RulespecError(Diagnostic("RS030", f"{len(names)} bots given for {players} players", Span(str(text)),
                                       "give one bot for every seat, or one bot for all"))
    return names


def seat_colours(engine, players: int) -> list:
    """The colours of a player count, in the order the pack's setup gives them."""
    from interpreter.state import setup_for
    engine.board(players)                 # RS301 for a pack that cannot be played
    try:
        return list(setup_for(engine.pack.data["setup"].data, players).get("colours") or [])
    except RulespecError as e:
        counts = ", ".join(map(str, engine.pack.players)) or "none"
        raise RulespecError(Diagnostic("RS123", f"pack '{engine.pack.id}' has no setup for {players} players",
                                       Span("<command line>"), f"player counts of the pack: {counts}")) from e


def plan(pack_ref: str, search_path, colours: list, bots: list, games: int, seed: int, log_dir: str,
         max_moves: int = MAX_MOVES) -> list:
    """The games of a run: seeds seed, seed+1, ...; colours rotated every game, the bots'
    lineup every N games (module docstring)."""
    n = len(colours)
    specs = []
    for g in range(games):
        seats = tuple(colours[(k + g) % n] for k in range(n))
        lineup = tuple(bots[(k + g // n) % n] for k in range(n))
        specs.append(GameSpec(str(pack_ref), tuple(map(str, search_path)), g, seed + g, seats, lineup,
                              str(log_dir), max_moves))
    return specs


# ------------------------------------------------------------------ one game (in a worker)
_ENGINES: dict = {}


def _engine(spec: GameSpec):
    key = (spec.pack, spec.search_path)
    if key not in _ENGINES:
        from interpreter.api import Engine
        from .pack import load_pack
        _ENGINES[key] = Engine(load_pack(spec.pack, list(spec.search_path)))
    return _ENGINES[key]


def play_one(spec: GameSpec) -> dict:
    """Play one game of a run; its record (never raises for a fault of the game or the pack:
    that is a failed record with a replay log)."""
    from interpreter.api import IllegalMove
    from interpreter.bots import BOTS
    from interpreter.events import structured
    engine = _engine(spec)
    record = {"index": spec.index, "seed": spec.seed, "content_hash": engine.pack.content_hash(),
              "seats": [{"seat": k + 1, "colour": c, "bot": b} for k, (c, b) in enumerate(zip(spec.seats, spec.bots))]}
    bots = {c: BOTS[b](spec.seed * 101 + k) for k, (c, b) in enumerate(zip(spec.seats, spec.bots))}
    fallback = BOTS[spec.bots[0]](spec.seed * 101 + len(spec.seats))   # decisions of no seat
    moves, state = [], None
    playing = []                    # the move being applied: logged too when it fails
    counter = EventCounter(spec.seats)

    def failed(code, message, span=None):
        record.update(status="failed", code=code, error=message, decisions=len(moves),
                      years=(state or {}).get("year", 0))
        if span is not None and getattr(span, "line", 0):
            record["at"] = f"{span.file}:{span.line}:{span.column}"
        record["log"] = _failure_log(spec, engine, moves + [(who, mv, []) for who, mv in playing])
        record["replay"] = f"rulespec replay {record['log']} --allow-truncated --pack {engine.pack.root}"
        return record

    try:
        state = engine.new_game(list(spec.seats), spec.seed)
        record["turn_order"] = list(state.get("turn_order") or spec.seats)      # at the start
        while not engine.is_over(state):
            legal = engine.legal_moves(state)
            pending = state["vm"]["pending"] or {}
            if not legal:
                return failed("RS303", f"no legal move in Year {state['year']} "
                                       f"({pending.get('prompt') or pending.get('kind')}, rule at {pending.get('at')})")
            who = pending.get("player")
            mv = bots.get(who, fallback).choose(engine, state, legal)
            events: list = []
            playing[:] = [(who, mv)]
            try:
                state = engine.apply(state, mv, events=events, transactional=False)
            except IllegalMove as e:
                code = "RS302" if "constraint" in e.reason.lower() else "RS301"
                return failed(code, f"the legal move '{mv}' was refused: {e.reason}", e.rule_span)
            playing.clear()
            done = structured(events)
            moves.append((who, mv, done))
            counter.add(done)
            if len(moves) > spec.max_moves:
                return failed("RS304", f"no end after {spec.max_moves} decisions")
        scores = engine.scores(state)
        winners = engine.winners(state)
    except RuleFault as e:
        return failed(e.code, e.first.message, e.span)
    except RulespecError as e:
        return failed(e.code or "RS301", e.first.message, e.span)
    except Exception as e:          # an engine bug: reported with the game, the run goes on
        return failed("RS301", "the engine raised " + traceback.format_exception_only(type(e), e)[-1].strip())
    record.update(status="ok", winners=winners,
                  ended=not state.get("unfinished"), years=state.get("year", 0), decisions=len(moves),
                  scores=scores, events=counter.events, by_player=counter.by_player)
    return record


def _failure_log(spec: GameSpec, engine, moves) -> str:
    """The replay log of a failed game (it has no final line: replay with --allow-truncated)."""
    from interpreter.replay import LogWriter
    os.makedirs(spec.log_dir, exist_ok=True)
    path = os.path.join(spec.log_dir, f"{engine.pack.id}-{len(spec.seats)}p-seed{spec.seed}.jsonl")
    try:
        log = LogWriter(path)
        try:
            log.header(engine, list(spec.seats), spec.seed, {})
            for who, mv, done in moves:
                log.move(who, mv, done)
        finally:
            log.close()
    except RulespecError:
        return "(no log: the folder cannot be written)"
    return path


def _value_name(v) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _INSTANCE.sub("", v)
    return None


class EventCounter:
    """Counts a game's structured events, by the pack's names: per event, how many; per key
    whose values are ids, how many of each id (a card instance as its card); per key whose
    values are numbers, their sum; per key whose values map ids to numbers (a payment's
    symbols), the sum per id. A key whose value is a player's colour counts for that player
    (`by_player`) instead, so the aggregates do not depend on which colour did what."""

    def __init__(self, colours):
        self.colours = set(colours)
        self.events: dict = {}
        self.by_player: dict = {c: {} for c in colours}

    def add(self, events):
        for e in events:
            name = e.get("event")
            row = self.events.setdefault(name, {"count": 0, "by": {}, "sums": {}})
            row["count"] += 1
            players = set()
            for key, v in e.items():
                if key == "event" or v is None:
                    continue
                if isinstance(v, str) and v in self.colours:
                    players.add(v)
                elif isinstance(v, (int, float)) and not isinstance(v, bool):
                    row["sums"][key] = row["sums"].get(key, 0) + v
                elif isinstance(v, dict):
                    for sym, n in v.items():
                        if isinstance(n, (int, float)) and not isinstance(n, bool):
                            k = f"{key}.{sym}"
                            row["sums"][k] = row["sums"].get(k, 0) + n
                else:
                    name_v = _value_name(v)
                    if name_v is not None:
                        by = row["by"].setdefault(key, {})
                        by[name_v] = by.get(name_v, 0) + 1
            for p in players:
                self.by_player[p][name] = self.by_player[p].get(name, 0) + 1


# ------------------------------------------------------------------ per-game numbers
def metrics(record: dict, categories: list) -> dict:
    """The numbers of one finished game, by aggregate name (module docstring). Win shares: 1
    for the winner, 1/k for each of k tied winners. `win.bot.B`: the mean share of the seats B
    played."""
    winners = record["winners"]
    share = {c: (1.0 / len(winners) if c in winners else 0.0) for c in (s["colour"] for s in record["seats"])}
    out = {}
    bots: dict = {}
    for s in record["seats"]:
        out[f"win.colour.{s['colour']}"] = share[s["colour"]]
        out[f"win.seat.{s['seat']}"] = share[s["colour"]]
        bots.setdefault(s["bot"], []).append(share[s["colour"]])
    for b, xs in bots.items():
        out[f"win.bot.{b}"] = sum(xs) / len(xs)
    rows = list(record["scores"].values())
    for cat in list(categories) + ["total"]:
        vals = [r[cat] for r in rows if cat in r]
        if vals:
            out[f"score.{cat}"] = sum(vals) / len(vals)
    out["length.years"] = record["years"]
    out["length.decisions"] = record["decisions"]
    out["ended"] = 1.0 if record["ended"] else 0.0
    for name, row in record["events"].items():
        out[f"events.{name}"] = row["count"]
        for key, values in row["by"].items():
            for v, n in values.items():
                out[f"events.{name}.{key}.{v}"] = n
        for key, total in row["sums"].items():
            out[f"events.{name}.{key}"] = total
            out[f"per_event.{name}.{key}"] = total / row["count"] if row["count"] else 0.0
        plain = [k for k in row["sums"] if "." not in k]       # numeric keys (not a map's ids)
        for a in plain:
            for b in plain:
                if a != b and row["sums"][b]:
                    out[f"ratio.{name}.{a}_per_{b}"] = row["sums"][a] / row["sums"][b]
    return out


def absent_value(name: str):
    """What a metric is in a game that does not have it: an event that did not happen counted 0
    times; anything else (a colour not in play, a category the pack does not score, the mean of
    a key per event where the event did not happen) is no value."""
    return 0.0 if name.startswith("events.") else None


def is_rate(name: str) -> bool:
    return name.startswith("win.") or name == "ended"


def estimate(name: str, values):
    """A metric's mean and 95% interval: Wilson's for rates, Student's t otherwise (counts and
    lengths, which cannot be negative, with the interval cut at 0)."""
    if is_rate(name):
        return rate_interval(values)
    e = mean_interval(values)
    if name.startswith(("events.", "length.")):
        e.low = max(0.0, e.low)
    return e


@dataclass
class Simulation:
    """A finished run: its settings and one record per game, in game order."""
    pack_id: str
    pack_root: str
    content_hash: str
    players: int
    seed: int
    bots: list
    colours: list
    categories: list              # the pack's scoring ids, in the score sheet's order
    category_labels: dict
    event_names: list             # the pack's declared events
    records: list = field(default_factory=list)

    @property
    def finished(self) -> list:
        return [r for r in self.records if r.get("status") == "ok"]

    @property
    def failures(self) -> list:
        return [r for r in self.records if r.get("status") != "ok"]

    def series(self) -> dict:
        """{metric: [value per finished game, in game order]}; a game without a value of a
        metric counts as absent_value (games without any value are left out: None)."""
        per_game = [metrics(r, self.categories) for r in self.finished]
        names = sorted({k for m in per_game for k in m})
        out = {}
        for k in names:
            vals = [m.get(k, absent_value(k)) for m in per_game]
            out[k] = [v for v in vals if v is not None]
        return out

    def series_by_index(self) -> dict:
        """{game index: {metric: value}} of the finished games (for paired comparisons)."""
        return {r["index"]: metrics(r, self.categories) for r in self.finished}

    def aggregates(self) -> dict:
        return {k: estimate(k, v) for k, v in self.series().items()}

    def report(self) -> dict:
        """report.json: the run's settings, every game's record, and the aggregates."""
        return {"rulespec_simulation": REPORT_VERSION, "pack": self.pack_id, "pack_root": self.pack_root,
                "content_hash": self.content_hash, "players": self.players, "games": len(self.records),
                "seed": self.seed, "bots": self.bots, "colours": self.colours, "categories": self.categories,
                "finished": len(self.finished), "failed": len(self.failures),
                "failures": [{k: r.get(k) for k in ("index", "seed", "code", "error", "at", "log", "replay")}
                             for r in self.failures],
                "aggregates": {k: e.as_dict() for k, e in self.aggregates().items()},
                "game_records": self.records}


# ------------------------------------------------------------------ running
def run(pack_ref: str, players: int | None, games: int, bots_text: str, seed: int = 0, jobs: int = 1,
        dask: str | None = None, out_dir: str | None = None, search_path=(), on_game=None,
        engine=None) -> Simulation:
    """Play a run; `on_game(record)` is called as each game ends (in whatever order)."""
    from interpreter.api import Engine
    from .pack import load_pack
    engine = engine or Engine(load_pack(pack_ref, list(search_path)))
    pack = engine.pack
    if players is None:
        players = 4 if not pack.players or 4 in pack.players else min(pack.players)
    colours = seat_colours(engine, players)
    lineup = parse_bots(bots_text, players)
    log_dir = os.path.join(out_dir, "failed") if out_dir else os.path.join(tempfile.gettempdir(), "rulespec-simulate")
    specs = plan(str(pack.root), search_path, colours, lineup, games, seed, os.path.abspath(log_dir))
    sim = Simulation(pack.id, str(pack.root), pack.content_hash(), players, seed, lineup, colours,
                     [s["id"] for s in engine.rs.scoring], {s["id"]: s["label"] for s in engine.rs.scoring},
                     list(engine.rs.events))
    if specs:
        _ENGINES.setdefault((specs[0].pack, specs[0].search_path), engine)
    sim.records = run_specs(specs, jobs, dask, on_game)
    for r in sim.records:
        if r.get("content_hash") != sim.content_hash:
            raise RulespecError(Diagnostic(
                "RS301", f"game {r['index']} (seed {r['seed']}) was played with other rules: pack content "
                         f"{str(r.get('content_hash'))[:12]} where this run has {sim.content_hash[:12]}",
                Span(str(pack.root / "pack.yaml"), 1, 1),
                "the workers must read the same pack: give them the same folder (a shared file system) "
                "and the same rulespec"))
    return sim


def run_specs(specs: list, jobs: int = 1, dask: str | None = None, on_game=None) -> list:
    """The records of `specs`, in game order: played here (jobs 1), in `jobs` worker processes,
    or on the Dask scheduler at `dask`."""
    records = []

    def done(r):
        records.append(r)
        if on_game:
            on_game(r)

    if dask:
        _run_dask(specs, dask, done)
    elif jobs > 1 and len(specs) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        # spawn: workers start clean (no copy of a parent's threads, such as a progress bar's)
        with ProcessPoolExecutor(max_workers=min(jobs, len(specs)),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            for f in as_completed([pool.submit(play_one, s) for s in specs]):
                done(f.result())
    else:
        for s in specs:
            done(play_one(s))
    return sorted(records, key=lambda r: r["index"])


def _run_dask(specs, address: str, done):
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise RulespecError(Diagnostic("RS030", "--dask needs Dask's distributed scheduler, which is not installed",
                                       Span("<command line>"), "pip install 'rulespec[sim]'")) from None
    try:
        client = Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        raise RulespecError(Diagnostic("RS030", f"cannot reach the Dask scheduler at {address[:100]}: {e}",
                                       Span("<command line>"),
                                       "give the scheduler's address, e.g. tcp://10.0.0.5:8786")) from None
    try:
        futures = client.map(play_one, specs, pure=False)
        for f in as_completed(futures):
            done(f.result())
    finally:
        client.close()


# ------------------------------------------------------------------ output
def write_report(sim: Simulation, out_dir: str) -> Path:
    import json
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "report.json"
    path.write_text(json.dumps(sim.report(), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path
