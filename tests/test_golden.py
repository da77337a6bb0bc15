"""The golden corpus (tests/golden/, docs/testing.md "The golden corpus"): stored bot games that
must be played again move for move, with the same totals and winners; the one stored game log
replays to its final state; and the provenance that explains an old log or golden file (the
engine version, the pack's content hash)."""
from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

import rulespec
from interpreter import golden
from interpreter.api import engine_for
from interpreter.replay import read_log, replay, state_hash
from rulespec.cli import main as cli
from rulespec.errors import RulespecError
from rulespec.pack import bundled_packs, load_pack

from ci_mode import CI

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"

REVIEW = (f"Run `{golden.COMMAND}` to see the per-game diff. If the change is intended, run "
          f"`{golden.UPDATE_COMMAND}`, read the diff it prints and list the changed games (moves, totals, "
          f"winners) in the issue note; never edit tests/golden/golden.json by hand.")


@pytest.fixture(scope="module")
def corpus():
    return golden.read_corpus(GOLDEN)


@pytest.fixture(scope="module")
def stored():
    return golden.read_golden(GOLDEN)


# ------------------------------------------------------------------ the corpus itself
def _local_slice(corpus: golden.Corpus) -> golden.Corpus:
    """The README's command plays the first seed of each entry of the corpus: every pack, player
    count and bot, and the stored log's game (about 40% of the CPU). CI plays every game, and so
    does `rulespec golden` (docs/testing.md, "What runs where")."""
    if CI:
        return corpus
    return dataclasses.replace(corpus, entries=[(dict(spec, seeds=spec["seeds"][:1]), span)
                                                for spec, span in corpus.entries])


def test_the_golden_games_are_played_the_same(corpus, stored):
    played = golden.play_corpus(_local_slice(corpus))
    if not CI:      # the games left out of the slice are not GONE
        stored = dict(stored, games=[g for g in stored["games"] if golden.key_of(g) in played.games])
        assert len(played.games) >= 10 and len(stored["games"]) == len(played.games)
    outcome = golden.compare(GOLDEN, played, stored)
    assert not outcome.failed, f"the golden corpus changed:\n{outcome.text}\n\n{REVIEW}"
    # and the winners follow from the scores: the most points, a tie broken by the tie-break
    for key, entry in played.games.items():
        totals = {p: (r["total"], r["tie_break"]) for p, r in entry["scores"].items()}
        assert entry["winners"] == [p for p, t in totals.items() if t == max(totals.values())], key.label


def test_the_corpus_covers_every_bundled_pack_and_player_count(corpus, stored):
    games = [golden.key_of(g) for g in stored["games"]]
    for pid in bundled_packs():
        pack = engine_for(pid).pack
        assert pack.players, pid
        for n in pack.players:
            seeds = {k.seed for k in games if (k.pack, k.players, k.bot) == (pid, n, "random")}
            assert len(seeds) >= 3, f"{pid} at {n} players: {len(seeds)} random games in the corpus (3 or more)"
    assert len({k.bot for k in games}) >= 3, "the corpus plays the random bot and at least two others"
    # the corpus keeps a game that stops at the Year bound and one decided by the tie-break
    assert any(not g["ended_by_rules"] for g in stored["games"]), \
        "no game of the corpus stops at the pack's Year bound: add one to corpus.yaml (the eager bot does)"
    assert any(sum(r["total"] == max(s["total"] for s in g["scores"].values()) for r in g["scores"].values()) > 1
               for g in stored["games"]), \
        "no game of the corpus is a tie on points: add a seed that is one to corpus.yaml (the tie-break is then checked)"
    # the provenance is recorded (a different engine or content alone does not fail: the games decide)
    assert stored["engine"] and set(bundled_packs()) <= set(stored["packs"])    # and the test packs it plays
    assert all(len(p["content_hash"]) == 64 for p in stored["packs"].values())


def test_the_stored_log_replays_to_its_final_state(corpus, stored):
    log = GOLDEN / corpus.log["file"]
    header, moves, final = read_log(log)
    assert header["engine"] and header["content_hash"] and final
    state = replay(log)                                  # every move legal, every constraint kept
    entry = next(g for g in stored["games"] if golden.key_of(g) == golden.GameKey(
        corpus.log["pack"], corpus.log["players"], corpus.log["seed"], corpus.log["bot"]))
    assert state_hash(state) == final == entry["final_state_sha256"], REVIEW
    assert len(moves) == entry["moves"] and state["over"]


# ------------------------------------------------------------------ provenance
def test_the_engine_version_has_one_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert rulespec.__version__ == project["version"], \
        "the installed metadata is stale: reinstall with `python3 -m pip install -e .`"


def test_the_version_is_read_from_the_metadata_importlib_would_find(tmp_path, monkeypatch):
    """rulespec reads its version from the first metadata folder on sys.path itself, as
    importlib.metadata would find it, without importing importlib.metadata (55 ms per command)."""
    from importlib.metadata import version
    assert rulespec._installed_version() == version("rulespec")
    (tmp_path / "rulespec-9.8.7.dist-info").mkdir()
    (tmp_path / "rulespec-9.8.7.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: rulespec\nVersion: 9.8.7\n\nVersion: not a header\n", encoding="utf-8")
    (tmp_path / "rulespec_other-1.0.dist-info").mkdir()        # another distribution's folder: not ours
    monkeypatch.setattr(sys, "path", [str(tmp_path / "nowhere"), str(tmp_path)] + sys.path)
    assert rulespec._installed_version() == "9.8.7" == version("rulespec")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "nowhere")])
    assert rulespec._installed_version() is None        # then importlib.metadata is asked (a source tree: 0+unknown)


def test_the_content_hash_covers_the_pack_and_its_base_wherever_they_are(tmp_path):
    packs = ROOT / "tests" / "packs"
    for name in ("minimal", "minimal_overlay"):
        shutil.copytree(packs / name, tmp_path / "here" / name)
        shutil.copytree(packs / name, tmp_path / "there" / name)
    base, overlay = load_pack(packs / "minimal").content_hash(), load_pack(packs / "minimal_overlay").content_hash()
    assert len(base) == 64 and overlay != base
    # elsewhere, and with CRLF line endings (a Windows checkout): the same content, the same hash
    for f in (tmp_path / "there").rglob("*"):
        if f.is_file():
            f.write_bytes(f.read_bytes().replace(b"\n", b"\r\n"))
    # (a copy's `extends: minimal` finds the copy beside it: its folder is in the search path)
    there = [tmp_path / "there"]
    assert load_pack(tmp_path / "there" / "minimal_overlay", search_path=there).content_hash() == overlay
    # one more byte in one file of the base (a comment: the same rules) changes the overlay's hash
    rules = tmp_path / "here" / "minimal" / "rules" / "game.rules"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    changed = load_pack(tmp_path / "here" / "minimal_overlay", search_path=[tmp_path / "here"])
    assert changed.content_hash() != overlay and changed.chain == ["minimal", "minimal_overlay"]
    # the bundled overlay covers its base's files too
    assert engine_for("wars_of_italy").pack.content_hash() != engine_for("base_3to5").pack.content_hash()


def _tampered(src: Path, dst: Path, header=None, move_at=None, final=None) -> Path:
    lines = src.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    if header:
        header(head)
    lines[0] = json.dumps(head)
    if move_at is not None:
        rec = json.loads(lines[move_at])
        rec["move"] = "choose nowhere"
        lines[move_at] = json.dumps(rec)
    if final is not None:
        lines[-1] = json.dumps({"final": final})
    dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dst


@pytest.fixture(scope="module")
def base_engine():
    return engine_for("base_3to5")


@pytest.fixture
def stored_log(corpus):
    return GOLDEN / corpus.log["file"]


def test_a_log_from_other_rules_says_the_rules_changed(base_engine, stored_log, tmp_path):
    def other_content(h):
        h["content_hash"] = "abc123" + "0" * 58
    log = _tampered(stored_log, tmp_path / "g.jsonl", header=other_content, move_at=5)
    with pytest.raises(RulespecError) as e:
        replay(log, base_engine)
    msg = e.value.first.message
    current = base_engine.pack.content_hash()
    assert msg.startswith("move 5 'choose nowhere' does not replay")
    assert (f"recorded with engine {rulespec.__version__} and pack content abc123000000…, this is engine "
            f"{rulespec.__version__} / content {current[:12]}…: the rules of base_3to5 changed since it was logged") in msg
    assert e.value.first.code == "RS402" and e.value.first.span.line == 6


def test_a_log_from_another_engine_says_the_engine_changed(base_engine, stored_log, tmp_path):
    def other_engine(h):
        h["engine"] = "0.0.1"
    log = _tampered(stored_log, tmp_path / "g.jsonl", header=other_engine, final="0" * 64)
    with pytest.raises(RulespecError) as e:
        replay(log, base_engine, check=False)
    msg = e.value.first.message
    assert msg.startswith("the replayed final state differs from the recorded one")
    assert f"recorded with engine 0.0.1 and pack content {base_engine.pack.content_hash()[:12]}…" in msg
    assert "the engine changed since it was logged" in msg and "rules of" not in msg


def test_an_old_log_without_provenance_still_replays_and_says_so_when_it_fails(base_engine, stored_log, tmp_path):
    def old_format(h):
        del h["engine"], h["content_hash"]
    old = _tampered(stored_log, tmp_path / "old.jsonl", header=old_format)
    header, _, final = read_log(old)
    assert "engine" not in header
    assert state_hash(replay(old, base_engine, check=False)) == final
    broken = _tampered(stored_log, tmp_path / "broken.jsonl", header=old_format, move_at=3)
    with pytest.raises(RulespecError) as e:
        replay(broken, base_engine)
    assert "the log records no engine version or pack content" in e.value.first.message
    assert "the rules may have changed since it was logged" in e.value.first.message


def test_a_log_from_these_rules_that_fails_blames_the_log(base_engine, stored_log, tmp_path):
    log = _tampered(stored_log, tmp_path / "g.jsonl", move_at=3)
    with pytest.raises(RulespecError) as e:
        replay(log, base_engine)
    d = e.value.first
    assert "changed since" not in d.message
    assert "recorded with this engine" in d.hint and "the log was altered" in d.hint


@pytest.mark.parametrize("line", ['[1, 2]', '{"rulespec_log": 1, "pack": "base_3to5"}', '{"n": 1}'])
def test_malformed_log_lines_are_diagnostics(stored_log, tmp_path, line):
    lines = stored_log.read_text(encoding="utf-8").splitlines()
    if line.startswith('{"rulespec_log'):
        lines[0] = line
    else:
        lines[2] = line
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RulespecError) as e:
        replay(log)
    assert e.value.first.code == "RS401"


# ------------------------------------------------------------------ the command, on a small corpus
# (tests/packs/oracle_duel: a game is about 20 moves, so the command's five runs cost little)
def _small_corpus(tmp_path) -> Path:
    folder = tmp_path / "golden"
    folder.mkdir()
    (folder / "corpus.yaml").write_text(
        "games:\n"
        "  - {pack: oracle_duel, seeds: [0], bot: random}\n"
        "log: {pack: oracle_duel, players: 2, seed: 0, bot: random, file: duel.jsonl}\n", encoding="utf-8")
    return folder


def _edit_golden(folder: Path, change):
    path = folder / "golden.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return data


def test_the_golden_command_prints_a_per_game_diff(tmp_path, capsys):
    folder = _small_corpus(tmp_path)
    assert cli(["golden", "--dir", str(folder)]) == 1          # nothing stored yet
    assert "oracle_duel 2p seed 0 random: NEW" in capsys.readouterr().out
    assert cli(["golden", "--update", "--dir", str(folder)]) == 0
    assert cli(["golden", "--dir", str(folder)]) == 0
    assert "1 game(s): 1 same, 0 differ" in capsys.readouterr().out
    true = json.loads((folder / "golden.json").read_text(encoding="utf-8"))["games"][0]

    def wrong(data):
        g = data["games"][0]
        g["moves"] += 1
        g["scores"]["amber"]["total"] += 2
        g["winners"] = ["amber"]
        data["packs"]["oracle_duel"]["content_hash"] = "f" * 64
    _edit_golden(folder, wrong)
    assert cli(["golden", "--dir", str(folder)]) == 1
    out = capsys.readouterr().out
    amber = true["scores"]["amber"]["total"]
    for expected in ("oracle_duel 2p seed 0 random: CHANGED",
                     f"moves: {true['moves'] + 1} -> {true['moves']}",
                     f"amber: total {amber + 2} -> {amber}",
                     f"winners: amber -> {', '.join(true['winners'])}",
                     "pack oracle_duel: content changed since the corpus was recorded (ffffffffffff… ->",
                     "1 game(s): 0 same, 1 differ",
                     golden.UPDATE_COMMAND, "issue note"):
        assert expected in out, (expected, out)
    # the same games with only the provenance changed: passes, and says so
    assert cli(["golden", "--update", "--dir", str(folder)]) == 0
    capsys.readouterr()
    _edit_golden(folder, lambda d: d["packs"]["oracle_duel"].update(content_hash="0" * 64))
    assert cli(["golden", "--dir", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "content changed since the corpus was recorded" in out and "every game is the same" in out


def test_the_golden_command_checks_the_log_and_the_game_list(tmp_path, capsys):
    folder = _small_corpus(tmp_path)
    golden.update(folder)
    log = folder / "duel.jsonl"
    _tampered(log, log, move_at=4)
    out = golden.check(folder)
    assert out.failed and "log duel.jsonl (oracle_duel 2p seed 0 random): CHANGED" in out.text
    assert "first difference at move 4" in out.text and "1 same, 0 differ, the log differs" in out.text
    # a changed game with the recorded engine and pack content: the engine's code changed
    _edit_golden(folder, lambda d: d["games"][0].update(final_state_sha256="0" * 64))
    out = golden.check(folder)
    assert "final state: 000000000000… ->" in out.text and "the change comes from the engine's code" in out.text
    # a game dropped from corpus.yaml, another added
    (folder / "corpus.yaml").write_text("games:\n  - {pack: oracle_duel, seeds: [3], bot: random}\n", encoding="utf-8")
    golden.update(folder)
    (folder / "corpus.yaml").write_text("games:\n  - {pack: oracle_duel, seeds: [4], bot: random}\n", encoding="utf-8")
    out = golden.check(folder)
    assert "oracle_duel 2p seed 4 random: NEW" in out.text
    assert "oracle_duel 2p seed 3 random: GONE" in out.text and out.failed
    assert "engine's code" not in out.text


@pytest.mark.parametrize("text,where,message", [
    ("games:\n  - {pack: base_3to5, seeds: [0], bots: random}\n", 2, "unknown key 'bots'"),
    ("games:\n  - {pack: base_3to5, seeds: [0], bot: randon}\n", 2, "unknown bot 'randon'"),
    ("games:\n  - {pack: base_3to5, seeds: [-1]}\n", 2, "seeds must be a whole number"),
    ("gmaes: []\n", 1, "non-empty `games:` list"),
    ("games:\n  - {pack: oracle_duel, players: [4], seeds: [0]}\n", 2, "oracle_duel is not played by 4 players"),
])
def test_a_broken_corpus_file_is_a_diagnostic(tmp_path, capsys, text, where, message):
    folder = tmp_path / "golden"
    folder.mkdir()
    (folder / "corpus.yaml").write_text(text, encoding="utf-8")
    assert cli(["golden", "--dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert f"corpus.yaml:{where}:" in err and "RS410" in err and message in err, err


def test_an_unreadable_golden_file_is_a_diagnostic(tmp_path, capsys):
    folder = _small_corpus(tmp_path)
    (folder / "golden.json").write_text("{not json", encoding="utf-8")
    assert cli(["golden", "--dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "RS410" in err and "golden.json cannot be read" in err
