"""Structured events (interpreter/events.py, docs/language.md "Events"): what a move did, as
data named by the pack's ids. Seeded bot games of the base pack record every kind of event the
pack declares, each with exactly its declared keys; the account's text lines are unchanged and
sit beside them; a game log stores the events and a replay checks them; events are never part
of the state. Broken packs (an undeclared event, a wrong or missing key) are in
tests/packs/broken/rs10{5,7}_event_*."""
from __future__ import annotations

import collections
import json
import re

import pytest

from interpreter.api import engine_for
from interpreter.bots import play_game
from interpreter.events import LOG, account, structured, text_of
from interpreter.history import GameRecord
from interpreter.replay import LogWriter, read_log, replay
from interpreter.state import dumps
from rulespec.errors import RulespecError

# (players, seed, bot, options): full random games, and two short `sticky` games (troops gather,
# so Troops retreat and a Battle on the Plains is fought) found among the seeds of
# tests/test_war_coverage.py. In the random games a Trophy is taken (4 players, seed 5) and a
# Troop that cannot retreat is lost (5 players, seed 2): since a Wage War's "no" ends the moves
# (actions.rules, and the playout hint move_troops), the seeds that show them are others
GAMES = [(3, 0, "random", None), (4, 5, "random", None), (5, 2, "random", None),
         (3, 37, "sticky", {"max_years": 10}), (3, 15, "sticky", {"max_years": 10})]


@pytest.fixture(scope="module")
def engine():
    return engine_for("base_3to5")


@pytest.fixture(scope="module")
def played(engine):
    """[(game, [(move, events)])] for GAMES."""
    out = []
    for players, seed, bot, options in GAMES:
        moves = []
        play_game(engine, players, seed, bot, options=options,
                  on_move=lambda turn, mv, events, st: moves.append((mv, list(events))))
        out.append(((players, seed, bot, options), moves))
    return out


def _all_events(played):
    return [e for _, moves in played for _, events in moves for e in events]


def test_the_games_record_every_event_the_base_pack_declares(engine, played):
    counts = collections.Counter(e["event"] for e in structured(_all_events(played)))
    declared = set(engine.rs.events)
    assert declared >= {"action_taken", "card_gained", "tile_gained", "payment", "siege_resolved",
                        "battle_fought", "alliance_formed", "trophy_taken", "troop_retreated",
                        "troop_lost", "indulgence_taken"}
    assert set(counts) == declared, f"never recorded: {sorted(declared - set(counts))}"
    # every Action taken is recorded: the engine's account line "red: Govern" comes with it
    taken = sum(1 for e in _all_events(played) if re.fullmatch(r"[a-z]+: [A-Z].*", text_of(e) or "")
                and not (text_of(e) or "").split(": ", 1)[1].startswith(("unused ", "end of game")))
    assert counts["action_taken"] == taken


def test_every_event_has_exactly_its_declared_keys_and_json_values(engine, played):
    for (players, seed, bot, options), moves in played:
        sides = set(engine.new_game(players, seed, options)["players"])
        for e in structured(e for _, events in moves for e in events):
            assert list(e) == ["event"] + engine.rs.events[e["event"]], e
            assert json.loads(json.dumps(e)) == e
            for key in ("side", "attacker", "rival", "from"):
                if key in e and e["event"] not in ("troop_retreated", "troop_lost"):   # there `from` is a city
                    assert e[key] in sides, e
            if "defender" in e:
                assert e["defender"] in sides | {None}, e


def test_payments_say_what_was_paid(engine, played):
    pays = [e for e in structured(_all_events(played)) if e["event"] == "payment"]
    assert pays
    runnable = set(engine.rs.actions) | set(engine.rs.procedures)
    for e in pays:
        assert e["total"] == sum(e["paid"].values()) > 0, e
        assert set(e["paid"]) <= set(engine.rs.symbols), e
        assert e["within"] in runnable, e


def test_sieges_and_battles_agree_with_the_account(played):
    """The result lines the war rules write and the events beside them tell the same fight."""
    fights = 0
    for _, moves in played:
        for _, events in moves:
            lines = [t for t in account(events) if t.startswith(("Siege result:", "Battle result:"))]
            done = [e for e in structured(events) if e["event"] in ("siege_resolved", "battle_fought")]
            assert len(lines) == len(done)
            for line, e in zip(lines, done):
                a, d = (int(x) for x in line.split(":", 1)[1].split(" against "))
                mine, theirs = (e["attack"], e["defence"]) if e["event"] == "siege_resolved" \
                    else (e["strength"], e["rival_strength"])
                assert (a, d) == (mine, theirs), (line, e)
                want = "won" if a > d else ("tie" if a == d and e["event"] == "battle_fought" else "lost")
                assert e["result"] == want, e
                fights += 1
    assert fights


def test_the_account_is_text_lines_beside_the_events(played):
    evs = _all_events(played)
    lines = account(evs)
    assert lines and all(isinstance(t, str) and not t.startswith("{") for t in lines)
    assert len(lines) + len(structured(evs)) == len(evs)
    assert all(e["event"] == LOG and set(e) == {"event", "text"} for e in evs if text_of(e) is not None)


def test_play_prints_the_same_account(tmp_path, capsys, played):
    """`rulespec play` prints the account's lines, and only them, in order: the text a player
    reads did not change when events were added beside it. (The first game of `played`, by the
    random bots, played again by the command.)"""
    from rulespec.cli import main
    (players, seed, bot, options), moves = played[0]
    assert bot == "random" and not options
    got = [line for _, events in moves for line in account(events)]
    log = tmp_path / "game.jsonl"
    assert main(["play", "--pack", "base_3to5", "--players", str(players), "--seed", str(seed), "--bots", bot,
                 "--quiet", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    game = out.split("Final scores")[0].splitlines()
    printed = [ln[2:] for ln in game if ln.startswith("  ")]      # the rest: "Year N" headings
    assert printed == got
    # the log of that game stores its events, and replays with them
    _, moves, _ = read_log(log)
    assert sum(len(rec.get("events", ())) for _, rec in moves) > 0
    replay(log)


def _write_log(path, engine, players, seed, bot, options=None):
    w = LogWriter(path)
    play_game(engine, players, seed, bot, options=options,
              on_start=lambda st: w.header(engine, st["players"], seed, options or {}),
              on_move=lambda turn, mv, events, st: w.move((turn["pending"] or {}).get("player") or "-", mv, events))
    return w


def test_a_replay_reproduces_the_logged_events(tmp_path, engine, played):
    path = tmp_path / "g.jsonl"
    players, seed, bot, options = played[0][0]
    state = engine.new_game(players, seed, options)
    w = LogWriter(path)
    w.header(engine, state["players"], seed, options or {})
    record = GameRecord(engine, players, seed, options)
    for mv, events in played[0][1]:
        record.apply(mv)
        w.move(None, mv, events)
    w.finish(record.state)
    # the log holds the structured events of each move, exactly as they were played
    _, moves, _ = read_log(path)
    assert [rec.get("events", []) for _, rec in moves] == [structured(ev) for _, ev in played[0][1]]
    replay(path)
    # a GameRecord keeps the same events per move, and undo drops the last move's
    assert list(record.events) == [ev for _, ev in played[0][1]]
    n = len(record)
    record.undo()
    assert len(record.events) == n - 1


def test_a_log_whose_events_differ_does_not_replay(tmp_path, engine, played):
    path = tmp_path / "g.jsonl"
    players, seed, bot, options = played[0][0]
    w = LogWriter(path)
    w.header(engine, engine.new_game(players, seed)["players"], seed, {})
    state = engine.new_game(players, seed)
    for mv, events in played[0][1]:
        state = engine.apply(state, mv, check=False)
        w.move(None, mv, events)
    w.finish(state)
    lines = path.read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if '"tile_gained"' in ln)
    rec = json.loads(lines[at])
    for e in rec["events"]:
        if e["event"] == "tile_gained":
            e["side"] = "nobody"
    lines[at] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RulespecError) as err:
        replay(path)
    d = err.value.first
    assert d.code == "RS402" and d.span.line == at + 1 and "other events" in d.message and "nobody" in d.message


def test_events_are_not_state(engine, played):
    """Collecting events changes nothing in the state: the golden hashes do not see them."""
    players, seed, bot, options = played[3][0]
    with_events = engine.new_game(players, seed, options)
    without = engine.new_game(players, seed, options)
    for mv, _ in played[3][1][:400]:
        got = []
        with_events = engine.apply(with_events, mv, events=got)
        without = engine.apply(without, mv)
        assert dumps(with_events) == dumps(without)
    assert '"event"' not in dumps(with_events)


def test_an_event_value_a_log_cannot_store_is_a_rule_fault():
    from interpreter.events import json_safe
    from rulespec.errors import RuleFault
    assert json_safe({"crown": 1.0, "x": {"b", "a"}}) == {"crown": 1, "x": ["a", "b"]}
    with pytest.raises(RuleFault) as err:
        json_safe(object(), key="card")
    assert err.value.first.code == "RS301" and "'card'" in err.value.first.message
