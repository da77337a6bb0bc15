"""A human seat (`rulespec play --human`): the session logic (rulespec/human.py), the screen
(rulespec/terminal.py) and a whole Spring played through a pseudo-terminal."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from interpreter.api import Engine
from interpreter.replay import read_log, replay, state_hash
from interpreter.state import dumps
from rulespec.human import Session, move_label
from rulespec.pack import load_pack
from rulespec.terminal import HEIGHT, WIDTH, Screen

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def session(engine, players=4, seed=3, **kw):
    s = Session(engine, players, ["red"], "random", seed, **kw)
    s.advance()
    return s


def test_room_choices_show_the_action_they_hold(engine):
    s = session(engine)
    # the first decision of Red's Spring is a Room: each labelled with the Action printed on
    # Red's Palace (palaces.yaml), or the Action card's `action` once a card is placed there
    while not any(mv.startswith("choose red.room") for _, mv, _ in s.legal()):
        s.play("1")
    palace = [engine.rs.static(r, "action") for r in engine.rs.boards["red"]["decl"].sub("room")]
    for _, mv, label in s.legal():
        if mv.startswith("choose red.room"):
            i = int(mv.rsplit("room", 1)[1])
            rec = s.state["p"]["red"]["rooms"][i]
            action = (engine.rs.static(engine.rs.decls[("card", rec["card"])], "action") if rec["card"] else None) \
                or palace[i]
            assert label.startswith(f"{i + 1} {engine.pack.decls[('action', action)].title}"), (mv, label)


def test_labels_of_payments_and_costs(engine):
    names = Session(engine, 4, ["red"]).names
    state = engine.new_game(4, 3)
    assert move_label(names, state, "choose 1 crown + 2 ship") == "pay 1 crown + 2 ship"
    florin = engine.pack.decls[("symbol", "florin")].title
    assert move_label(names, state, "tap merchant#2 florin") == f"{florin} from Merchant 2"
    assert move_label(names, state, "choose milan") == "Milan"
    assert move_label(names, state, "run request_indulgence") == engine.pack.decls[("procedure", "request_indulgence")].title


def test_a_typed_move_by_number_by_text_or_refused_with_why(engine):
    s = session(engine)
    legal = s.legal()
    assert s.resolve("1") == (legal[0][1], None)
    assert s.resolve(legal[-1][1]) == (legal[-1][1], None)
    n, mv, label = legal[1]
    assert s.resolve(label) == (mv, None)
    assert s.resolve(str(len(legal) + 1))[1].startswith("no move")
    reply = s.command("choose venice")          # a move that is not legal: why, with the rule
    assert reply.error and not reply.moved
    assert any(re.search(r"rule: \S+\.rules:\d+", line) for line in reply.lines)
    assert s.command("why " + mv).lines[0].startswith(f"'{mv}' is legal")


def test_undo_goes_back_exactly_to_an_earlier_decision_of_yours(engine):
    s = session(engine)
    seen = []
    for _ in range(6):
        seen.append(dumps(s.state))
        s.play("1")
    reply = s.undo(2)
    assert reply.moved and dumps(s.state) == seen[-2]
    assert s.undo(99).error
    s.undo(4)
    assert dumps(s.state) == seen[0]


def test_save_writes_the_log_as_the_game_goes_and_load_goes_on(engine, tmp_path):
    path = tmp_path / "game.jsonl"
    s = session(engine)
    s.play("1")
    s.command(f"save {path}")
    for _ in range(3):
        s.play("1")
    header, moves, final = read_log(path, allow_truncated=True)      # the play --log format
    assert header["players"] == s.state["players"] and header["seed"] == 3
    assert [m["move"] for _, m in moves] == list(s.record.moves) and final is None
    assert state_hash(replay(path, engine, allow_truncated=True)) == state_hash(s.state)
    s.undo(1)                           # the file follows an undo
    assert len(read_log(path, allow_truncated=True)[1]) == len(s.record)
    where = dumps(s.state)
    other = session(engine, seed=5)
    reply = other.command(f"load {path}")
    assert reply.moved and dumps(other.state) == where
    other.play("1")
    assert len(read_log(path, allow_truncated=True)[1]) == len(other.record)


def test_load_refuses_a_log_of_another_pack(engine, tmp_path):
    bad = tmp_path / "other.jsonl"
    bad.write_text(json.dumps({"rulespec_log": 1, "pack": "wars_of_italy", "version": "0.1.0",
                               "players": ["red", "blue"], "seed": 1, "options": {}}) + "\n")
    reply = session(engine).command(f"load {bad}")
    assert reply.error and "wars_of_italy" in reply.lines[0]


def test_hint_names_a_legal_move(engine):
    s = session(engine)
    line = s.command("hint").lines[0]
    mv = re.search(r"would play \d+: (.+?)  \(", line).group(1)
    assert mv in [m for _, m, _ in s.legal()]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_screen_fits_100_by_40(engine, players):
    """Every screen of a Year, with a `why` message under it, fits a 100x40 terminal (the
    last row is the prompt's)."""
    s = session(engine, players)
    shown = 0
    while s.state["year"] == 1 and not s.over():
        msg = s.why("choose atlantis").lines
        lines = Screen(s, WIDTH, HEIGHT).lines(msg)
        assert len(lines) <= HEIGHT - 1
        assert max(cell_len(t.plain) for t in lines) <= WIDTH, max((t.plain for t in lines), key=cell_len)
        assert lines[0].plain.startswith("base_3to5 | Year 1")
        assert any(t.plain.startswith("red decides:") for t in lines)
        shown += 1
        s.play("1")
    assert shown > 5


def test_the_screen_shows_an_overlays_own_track(tmp_path):
    from conftest import write_pack
    root = write_pack(tmp_path / "track_variant", {
        "pack.yaml": "id: track_variant\nname: Track variant\nversion: 0.1.0\nextends: base_3to5\n",
        "more_tracks.yaml": "tracks:\n  fame_track:\n    name: Fame\n    spaces:\n      - points: 0\n      - points: 1\n"})
    eng = Engine(load_pack(str(root)))
    text = Screen(session(eng)).text()
    assert "Fame: " in text and "Cities: " in text


# ------------------------------------------------------------------ through a terminal
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")
PROMPT = r"\[Year (\d+) (\w+)\] red> "


def test_a_whole_spring_at_a_pseudo_terminal(tmp_path):
    """`rulespec play --human red` in a 100x40 pseudo-terminal: moves by number and by text,
    `why` for an illegal move (the rule's file:line), undo 2, save, load, and on to Winter."""
    pexpect = pytest.importorskip("pexpect")
    save = tmp_path / "spring.jsonl"
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100", LINES="40")
    child = pexpect.spawn(sys.executable, ["-c", "import sys; from rulespec.cli import main; sys.exit(main(sys.argv[1:]))",
                                           "play", "--human", "red", "--bots", "greedy", "--seed", "3"],
                          cwd=str(ROOT), env=env, dimensions=(40, 100), encoding="utf-8", timeout=120)
    try:
        def step(line=None):
            if line is not None:
                child.sendline(line)
            child.expect(PROMPT)
            screen = ANSI.sub("", child.before)
            return child.match.group(2), screen

        def decision(screen):
            return [ln for ln in screen.splitlines() if ln.startswith("red decides:")][-1]

        phase, screen = step()
        assert phase == "play" and "red decides:" in screen
        phase, screen = step("why choose venice")                   # not one of the choices
        assert re.search(r"rule: content/base_3to5/rules/\w+\.rules:\d+", screen), screen
        assert "failed: " in screen
        phase, screen = step("1")                                   # by number
        items = re.findall(r"(?:^|\s)(\d+)\. (\S.*?)(?=\s{2,}|$)", screen.split("red decides:")[-1], re.M)
        label = next(lab for n, lab in items if re.search(r"[A-Za-z]", lab) and
                     sum(lab.lower() in other.lower() for _, other in items) == 1)
        phase, screen = step(label)                                 # by text
        assert f"red: {label}" in screen
        decisions = [decision(screen)]
        for _ in range(2):
            phase, screen = step("1")
            decisions.append(decision(screen))
        phase, screen = step("undo 2")
        assert "took back" in screen and decision(screen) == decisions[0]
        phase, screen = step(f"save {save}")
        assert re.search(r"saved \d+ moves to /", screen)      # (a long path is cut at 100 columns)
        phase, screen = step("1")
        before = decision(screen)
        phase, screen = step(f"load {save}")
        assert "loaded" in screen and decision(screen) == before
        for _ in range(200):                                        # on to the end of Spring
            if phase not in ("play", "spring"):
                break
            phase, screen = step("1")
        assert phase == "winter", phase
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    header, moves, _ = read_log(save, allow_truncated=True)
    assert header["pack"] == "base_3to5" and len(moves) > 10
