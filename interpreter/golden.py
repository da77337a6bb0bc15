"""The golden corpus (tests/golden/): bot games whose moves and results are stored, so that any
change to the rules, the data or the engine that changes a game is seen, game by game.

* `corpus.yaml` (written by hand) says which games: for each entry a pack, its player counts
  (all those the pack supports when omitted), seeds and a bot; and which one game is also
  stored as a whole game log (`log:`).
* `golden.json` (written only by `rulespec golden --update`) holds, for each game, the number
  of moves, the sha256 of the move sequence (`moves_hash`), the sha256 of the final state,
  the final Year, whether an end condition of the rules ended the game, every player's score
  rows and the winners; and the provenance: the engine version and each pack's version and
  content hash (`Pack.content_hash()`).
* the log (JSON lines, `interpreter.replay.write_log`) replays to its recorded final state.

`check(folder)` plays every game again and compares (`rulespec golden`: a per-game diff, exit 1
when a game differs); `update(folder)` rewrites golden.json and the log
(`rulespec golden --update`). Only the games decide: when the engine version or a pack's
content changed but every game is the same, the check passes and says so (the next update
records the new provenance). docs/testing.md, "The golden corpus", is the procedure.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from rulespec import __version__ as ENGINE_VERSION
from rulespec.errors import Diagnostic, RulespecError, Span, did_you_mean

from .replay import moves_hash, read_log, short, state_hash, write_log

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "tests" / "golden"
# the test packs (tests/packs/): the corpus may name one by its id, wherever it is run from
TEST_PACKS = DEFAULT_DIR.parent / "packs"
CORPUS_FILE = "corpus.yaml"
GOLDEN_FILE = "golden.json"
COMMAND = "rulespec golden"
UPDATE_COMMAND = "rulespec golden --update"
RESULT_FIELDS = ("moves", "moves_sha256", "final_state_sha256", "year", "ended_by_rules", "scores", "winners")


@dataclass(frozen=True, order=True)
class GameKey:
    pack: str
    players: int
    seed: int
    bot: str

    @property
    def label(self) -> str:
        return f"{self.pack} {self.players}p seed {self.seed} {self.bot}"


@dataclass
class Corpus:
    folder: Path
    entries: list                      # [(spec dict, Span)] as written in corpus.yaml
    log: dict | None = None            # {pack, players, seed, bot, file}
    log_span: Span | None = None


@dataclass
class Outcome:
    """What a check or update found: the report text, and whether any game differs."""
    lines: list = field(default_factory=list)
    changed: list = field(default_factory=list)     # labels of games that differ (or are new / gone / fail)
    failed: bool = False                            # something differs: exit 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _err(msg: str, span: Span, hint: str = "") -> RulespecError:
    return RulespecError(Diagnostic("RS410", msg, span, hint))


# ------------------------------------------------------------------ corpus.yaml
_ENTRY_KEYS = ("pack", "players", "seeds", "bot")
_LOG_KEYS = ("pack", "players", "seed", "bot", "file")


def read_corpus(folder) -> Corpus:
    """The games corpus.yaml asks for (checked: unknown keys, types, bots; RS410 with the line)."""
    from rulespec.yamldata import load_yaml_file
    from .bots import BOTS
    folder = Path(folder)
    path = folder / CORPUS_FILE
    if not path.is_file():
        raise _err(f"no golden corpus here: {path} does not exist", Span(str(path)),
                   f"give the folder holding {CORPUS_FILE} and {GOLDEN_FILE} (the default is tests/golden/)")
    doc = load_yaml_file(path)
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("games"), list) or not data["games"]:
        raise _err("corpus.yaml must be a mapping with a non-empty `games:` list", doc.span(()),
                   "games: [{pack: base_3to5, players: [3, 4, 5], seeds: [0, 1], bot: random}]")
    for k in data:
        if k not in ("games", "log"):
            raise _err(f"unknown key '{k}' in corpus.yaml", doc.key_span((k,)),
                       did_you_mean(str(k), ("games", "log")) or "the keys are games and log")

    def ints(v, where, what):
        vals = v if isinstance(v, list) else [v]
        if not vals or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in vals):
            raise _err(f"{what} must be a whole number or a list of them", doc.span(where))
        return vals

    def mapping(raw, where, keys, required):
        if not isinstance(raw, dict):
            raise _err("expected a mapping such as {pack: base_3to5, seeds: [0], bot: random}", doc.span(where))
        for k in raw:
            if k not in keys:
                raise _err(f"unknown key '{k}'", doc.key_span(where + (k,)),
                           did_you_mean(str(k), keys) or f"the keys are {', '.join(keys)}")
        for k in required:
            if k not in raw:
                raise _err(f"missing key '{k}'", doc.span(where), f"the keys are {', '.join(keys)}")
        if not isinstance(raw["pack"], str):
            raise _err("pack must be a pack id", doc.span(where + ("pack",)))
        bot = raw.get("bot", "random")
        if bot not in BOTS:
            raise _err(f"unknown bot '{bot}'", doc.span(where + ("bot",)),
                       did_you_mean(str(bot), BOTS) or f"bots: {', '.join(BOTS)}")
        out = dict(raw, bot=bot)
        if "players" in raw:
            out["players"] = ints(raw["players"], where + ("players",), "players")
        return out

    entries = []
    for i, raw in enumerate(data["games"]):
        spec = mapping(raw, ("games", i), _ENTRY_KEYS, ("pack", "seeds"))
        spec["seeds"] = ints(raw["seeds"], ("games", i, "seeds"), "seeds")
        entries.append((spec, doc.span(("games", i))))
    corpus = Corpus(folder, entries)
    if data.get("log") is not None:
        log = mapping(data["log"], ("log",), _LOG_KEYS, _LOG_KEYS[:3] + ("file",))
        if len(log["players"]) != 1 or not isinstance(log["seed"], int) or isinstance(log["seed"], bool):
            raise _err("the log is one game: one player count and one seed", doc.span(("log",)))
        if not isinstance(log["file"], str) or "/" in log["file"] or not log["file"].endswith(".jsonl"):
            raise _err("the log file is a name ending in .jsonl, in the corpus folder", doc.span(("log", "file")))
        log["players"] = log["players"][0]
        corpus.log, corpus.log_span = log, doc.span(("log",))
    return corpus


# ------------------------------------------------------------------ playing the games
def play_one(engine, key: GameKey, record: list | None = None) -> tuple[dict, dict]:
    """Play one corpus game; (its golden entry, final state). record collects (player, move)."""
    from .bots import play_game

    def on_move(turn, mv, events, after):
        record.append(((turn["pending"] or {}).get("player") or "-", mv))
    state, moves = play_game(engine, key.players, key.seed, key.bot,
                             on_move=on_move if record is not None else None)
    entry = {"pack": key.pack, "players": key.players, "seed": key.seed, "bot": key.bot,
             "moves": len(moves), "moves_sha256": moves_hash(moves), "final_state_sha256": state_hash(state),
             "year": state["year"], "ended_by_rules": bool(engine.is_over(state) and not state.get("unfinished")),
             "scores": engine.scores(state), "winners": engine.winners(state)}
    return entry, state


@dataclass
class Played:
    games: dict                 # GameKey -> entry, or {"error": text}
    packs: dict                 # pack id -> {"version", "content_hash"} (or {"error"})
    engines: dict               # pack id -> Engine
    log: tuple | None = None    # (GameKey, file name, record, final state) of the logged game
    log_key: GameKey | None = None


def play_corpus(corpus: Corpus) -> Played:
    from rulespec.pack import load_pack
    from .api import Engine
    played = Played({}, {}, {})
    specs = list(corpus.entries)
    if corpus.log:
        specs.append(({**corpus.log, "seeds": [corpus.log["seed"]], "players": [corpus.log["players"]]},
                      corpus.log_span))
    keys = []
    for spec, span in specs:
        pid = spec["pack"]
        if pid not in played.packs:
            try:
                engine = Engine(load_pack(pid, [TEST_PACKS]))       # loaded once per process
            except RulespecError as e:
                played.packs[pid] = {"error": f"the pack does not load: {e.first.message} ({e.first.span})"}
            else:
                played.engines[pid] = engine
                played.packs[pid] = {"version": engine.pack.version, "content_hash": engine.pack.content_hash()}
        engine = played.engines.get(pid)
        counts = spec.get("players") or (list(engine.pack.players) if engine else [])
        for n in counts:
            if engine and engine.pack.players and n not in engine.pack.players:
                raise _err(f"{pid} is not played by {n} players", span,
                           f"it is played by {', '.join(map(str, engine.pack.players))}")
            for seed in spec["seeds"]:
                key = GameKey(pid, n, seed, spec["bot"])
                if key not in keys:
                    keys.append(key)
    log_key = (GameKey(corpus.log["pack"], corpus.log["players"], corpus.log["seed"], corpus.log["bot"])
               if corpus.log else None)
    played.log_key = log_key
    for key in keys:
        engine = played.engines.get(key.pack)
        if engine is None:
            played.games[key] = {"error": played.packs[key.pack]["error"]}
            continue
        record = [] if key == log_key else None
        try:
            entry, state = play_one(engine, key, record)
        except Exception as e:      # an engine fault: reported for this game, the others go on
            why = e.first.message if isinstance(e, RulespecError) else f"{type(e).__name__}: {e}"
            played.games[key] = {"error": f"the game fails: {why} (see it with `rulespec play --pack {key.pack} "
                                          f"--players {key.players} --seed {key.seed} --bots {key.bot}`)"}
            continue
        played.games[key] = entry
        if record is not None:
            played.log = (key, corpus.log["file"], record, state)
    return played


# ------------------------------------------------------------------ golden.json
def read_golden(folder) -> dict | None:
    """The stored golden.json, or None when there is none yet; RS410 when it is unreadable."""
    path = Path(folder) / GOLDEN_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _err(f"{GOLDEN_FILE} cannot be read: {e}", Span(str(path), 1, 1),
                   f"it is written by `{UPDATE_COMMAND}`: restore it from git, or regenerate it") from None
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(games, list) or not all(isinstance(g, dict) and {"pack", "players", "seed", "bot"} <= set(g)
                                              for g in games):
        raise _err(f"{GOLDEN_FILE} has no valid `games` list", Span(str(path), 1, 1),
                   f"it is written by `{UPDATE_COMMAND}`: restore it from git, or regenerate it")
    return data


def key_of(g: dict) -> GameKey:
    return GameKey(str(g["pack"]), g["players"], g["seed"], str(g["bot"]))


def dumps_golden(data: dict) -> str:
    """golden.json as text: one line per field of a game and per player's score rows, so that
    a regenerated file diffs line by line in review."""
    head = json.dumps({k: v for k, v in data.items() if k != "games"}, indent=1, ensure_ascii=False)
    games = []
    for g in data["games"]:
        fields = []
        for k, v in g.items():
            if k == "scores" and isinstance(v, dict) and v:
                rows = ",\n".join(f"   {json.dumps(p)}: {json.dumps(r)}" for p, r in v.items())
                fields.append(f'  "scores": {{\n{rows}\n  }}')
            else:
                fields.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
        games.append(" {\n" + ",\n".join(fields) + "\n }")
    text = head[:-2] + ',\n "games": [\n' + ",\n".join(games) + "\n ]\n}\n"
    assert json.loads(text) == data
    return text


def golden_data(played: Played) -> dict:
    return {
        "about": f"The golden corpus, written by `{UPDATE_COMMAND}` from {CORPUS_FILE}: never edit by hand "
                 f"(docs/testing.md, 'The golden corpus'). moves_sha256: sha256 of the moves, each followed by "
                 f"a newline; final_state_sha256: interpreter.replay.state_hash of the final state.",
        "engine": ENGINE_VERSION,
        "packs": played.packs,
        "log": played.log[1] if played.log else None,
        "games": [played.games[k] for k in played.games],
    }


# ------------------------------------------------------------------ the diff
def _yes(b) -> str:
    return "yes" if b else "no (stopped at the pack's Year bound)"


def _game_diff(old: dict, new: dict) -> list:
    out = []
    if "error" in new:
        return [f"    {new['error']}"]
    missing = [f for f in RESULT_FIELDS if f not in old]
    if missing:
        out.append(f"    the stored entry lacks {', '.join(missing)}")
    if old.get("moves") != new["moves"]:
        out.append(f"    moves: {old.get('moves')} -> {new['moves']}")
    if old.get("moves_sha256") != new["moves_sha256"]:
        out.append(f"    move sequence: {short(old.get('moves_sha256'))} -> {short(new['moves_sha256'])}")
    if old.get("year") != new["year"]:
        out.append(f"    final Year: {old.get('year')} -> {new['year']}")
    if old.get("ended_by_rules") != new["ended_by_rules"]:
        out.append(f"    ended by the rules: {_yes(old.get('ended_by_rules'))} -> {_yes(new['ended_by_rules'])}")
    old_sc = old.get("scores") if isinstance(old.get("scores"), dict) else {}
    for p in list(new["scores"]) + [p for p in old_sc if p not in new["scores"]]:
        a, b = old_sc.get(p), new["scores"].get(p)
        if a == b:
            continue
        if a is None or b is None or not isinstance(a, dict):
            out.append(f"    {p}: scores {a} -> {b}")
            continue
        rows = [r for r in list(b) + [r for r in a if r not in b] if a.get(r) != b.get(r)]
        first = [r for r in ("total", "tie_break") if r in rows]
        out.append(f"    {p}: " + ", ".join(f"{r} {a.get(r)} -> {b.get(r)}" for r in
                                            first + [r for r in rows if r not in first]))
    if old.get("winners") != new["winners"]:
        w = lambda ws: ", ".join(ws) if isinstance(ws, list) and ws else str(ws)
        out.append(f"    winners: {w(old.get('winners'))} -> {w(new['winners'])}")
    if old.get("final_state_sha256") != new["final_state_sha256"]:
        out.append(f"    final state: {short(old.get('final_state_sha256'))} -> {short(new['final_state_sha256'])}")
    return out


def _log_diff(folder: Path, played: Played, stored: dict | None) -> list:
    """Differences between the stored log and the logged game played now."""
    if played.log is None:
        if played.log_key is not None:      # its game failed: reported with the games
            return [f"log of {played.log_key.label}: not written, its game fails"]
        return [f"log {stored.get('log')}: no longer in {CORPUS_FILE}"] if stored and stored.get("log") else []
    key, name, record, state = played.log
    path = folder / name
    if not path.is_file():
        return [f"log {name} ({key.label}): missing"]
    try:
        header, moves, final = read_log(path)
    except RulespecError as e:
        return [f"log {name} ({key.label}): unreadable: {e.first.message}"]
    out = []
    pack_id = played.engines[key.pack].pack.id
    if (header.get("pack"), header.get("players"), header.get("seed")) != (pack_id, state["players"], key.seed):
        out.append(f"    it records another game: {header.get('pack')} {header.get('players')} seed {header.get('seed')}")
    logged = [m["move"] for _, m in moves]
    if logged != [mv for _, mv in record]:
        at = next((i for i, (a, b) in enumerate(zip(logged, record)) if a != b[1]), min(len(logged), len(record)))
        out.append(f"    moves: {len(logged)} -> {len(record)}, first difference at move {at + 1}")
    if final != state_hash(state):
        out.append(f"    final state: {short(final)} -> {short(state_hash(state))}")
    return [f"log {name} ({key.label}): CHANGED"] + out if out else []


def compare(folder, played: Played, stored: dict | None) -> Outcome:
    """The per-game report of what changed between golden.json (stored) and the games now."""
    folder = Path(folder)
    o = Outcome()
    first = stored is None
    if first:
        o.lines.append(f"no {GOLDEN_FILE} yet in {folder}: every game is new")
        stored = {"games": [], "packs": {}, "engine": ENGINE_VERSION}
    engine_old = stored.get("engine")
    provenance_changed = []
    if engine_old != ENGINE_VERSION:
        provenance_changed.append(f"engine: {engine_old or 'not recorded'} -> {ENGINE_VERSION}")
    old_packs = stored.get("packs") if isinstance(stored.get("packs"), dict) else {}
    for pid, now in played.packs.items():
        was = old_packs.get(pid) if isinstance(old_packs.get(pid), dict) else {}
        if "error" in now:
            o.lines.append(f"pack {pid}: {now['error']}")
            o.failed = True
            continue
        if first:
            continue
        if was.get("version") != now["version"]:
            provenance_changed.append(f"pack {pid}: version {was.get('version') or 'not recorded'} -> {now['version']}")
        if not was.get("content_hash"):
            provenance_changed.append(f"pack {pid}: its content hash was not recorded (now {short(now['content_hash'])})")
        elif was["content_hash"] != now["content_hash"]:
            provenance_changed.append(f"pack {pid}: content changed since the corpus was recorded "
                                      f"({short(was['content_hash'])} -> {short(now['content_hash'])})")
    o.lines += provenance_changed
    old_games = {}
    for g in stored["games"]:
        try:
            old_games[key_of(g)] = g
        except (TypeError, ValueError):
            pass
    same, altered = 0, 0
    for key, new in played.games.items():
        old = old_games.get(key)
        if old is None:
            o.lines.append(f"{key.label}: NEW (not in {GOLDEN_FILE})")
            o.changed.append(key.label)
            continue
        diff = _game_diff(old, new)
        if diff:
            o.lines.append(f"{key.label}: " + ("FAILS" if "error" in new else "CHANGED"))
            o.lines += diff
            o.changed.append(key.label)
            altered += "error" not in new
        else:
            same += 1
    for key in old_games:
        if key not in played.games:
            o.lines.append(f"{key.label}: GONE (in {GOLDEN_FILE}, no longer in {CORPUS_FILE})")
            o.changed.append(key.label)
    log_lines = _log_diff(folder, played, stored)
    o.lines += log_lines
    o.failed = o.failed or bool(o.changed or log_lines)
    o.lines.append(f"{len(played.games)} game(s): {same} same, {len(o.changed)} differ"
                   + (", the log differs" if log_lines else ""))
    if altered and not provenance_changed:
        o.lines.append("the engine version and every pack's content are those recorded: the change comes from "
                       "the engine's code (or from an edited golden file)")
    if provenance_changed and not o.failed:
        o.lines.append(f"every game is the same: record the new provenance with `{UPDATE_COMMAND}` (in a commit of "
                       "its own): the stored game log's tests (tests/test_golden.py) compare it with the pack's")
    return o


# ------------------------------------------------------------------ the two commands
def check(folder=DEFAULT_DIR) -> Outcome:
    """Play the corpus and compare it with golden.json and the stored log."""
    corpus = read_corpus(folder)
    stored = read_golden(folder)
    played = play_corpus(corpus)
    return compare(folder, played, stored)


def update(folder=DEFAULT_DIR) -> Outcome:
    """Play the corpus and rewrite golden.json and the log; the Outcome lists what changed.
    Writes nothing when a pack does not load or a game fails."""
    folder = Path(folder)
    corpus = read_corpus(folder)
    try:
        stored = read_golden(folder)
    except RulespecError:
        stored = None           # an unreadable golden file is replaced
    played = play_corpus(corpus)
    o = compare(folder, played, stored)
    broken = [k.label for k, g in played.games.items() if "error" in g] + \
             [p for p, v in played.packs.items() if "error" in v]
    if broken:
        o.failed = True
        o.lines.append(f"nothing written: {', '.join(broken)} fail")
        return o
    text = dumps_golden(golden_data(played))
    (folder / GOLDEN_FILE).write_text(text, encoding="utf-8")
    if played.log:
        key, name, record, state = played.log
        write_log(folder / name, played.engines[key.pack], state["players"], key.seed, {}, record, state)
    o.failed = False
    o.lines.append(f"wrote {folder / GOLDEN_FILE}" + (f" and {folder / played.log[1]}" if played.log else ""))
    return o
