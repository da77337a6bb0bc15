"""The Wars of Italy (2 players) as an overlay pack on base_3to5, written with no Python
(content/wars_of_italy/): it validates, its diff against the base game reads as the list of
2-player changes, its setup is France (blue) vs Naples (yellow) on the 2/5 side, and the
engine plays it to the end of Round 21."""
from __future__ import annotations

import random
import re

import pytest

from interpreter.api import Engine
from interpreter.state import setup_for
from rulespec import unparse
from rulespec.cli import main as cli_main
from rulespec.pack import load_pack
from rulespec.show import pack_diff
from validator.static import validate_pack


@pytest.fixture(scope="module")
def pack():
    return load_pack("wars_of_italy")


@pytest.fixture(scope="module")
def base():
    return load_pack("base_3to5")


@pytest.fixture(scope="module")
def diff(pack, base):
    return {(change, what) for change, what, _ in pack_diff(pack, base)}


@pytest.fixture(scope="module")
def engine(pack):
    return Engine(pack)


# ------------------------------------------------------------------ the pack
def test_pack_validates_without_errors_or_warnings():
    report = validate_pack("wars_of_italy")
    assert not report.errors, "\n".join(d.render() for d in report.errors)
    assert not report.warnings, "\n".join(d.render() for d in report.warnings)


def test_cli_validate_exits_0():
    assert cli_main(["validate", "wars_of_italy"]) == 0


def test_manifest(pack):
    assert pack.id == "wars_of_italy"
    assert pack.version == "0.3.0"
    assert pack.players == [2]
    assert pack.chain == ["base_3to5", "wars_of_italy"]
    assert "NOT YET ENCODED" not in pack.description
    assert "Postures" in pack.description


# ------------------------------------------------------------------ the diff against the base game
@pytest.mark.parametrize("row", [
    ("removed", "action sponsor"),
    ("removed", "track patronage_track"),
    ("removed", "track cities_track"),
    ("removed", "procedure take_patronage_bonus"),
    ("removed", "tile cannons"),
    ("removed", "card columbus"),
    ("removed", "tile cathedral"),
    ("removed", "card maestro"),
    ("removed", "card pope"),
    ("removed", "tile republic"),
    ("removed", "alliance france"),
    ("removed", "alliance hre"),
    ("removed", "alliance ottoman"),
    ("removed", "procedure alliance_step"),
    ("removed", "scoring patronage"),
    ("removed", "scoring alliances"),
    ("removed", "end_condition no_neutral_city"),
    ("removed", "end_condition end_of_patronage_track"),
    ("removed", "card ludovico_sforza"),          # the 3-5 player Family cards
    ("removed", "palace red"),
    ("changed", "game virtu.players"),
    ("changed", "tile guild.copies"),
    ("changed", "tile kingdom.copies"),
    ("changed", "scoring cities.points"),
    ("changed", "scoring trophies.points"),
    ("changed", "table salaries.rows"),
    ("changed", "procedure pay_salaries.effect"),
    ("changed", "constraint max_troops.check"),
    ("changed", "data setup"),
    ("added", "end_condition twenty_one_rounds"),
    ("added", "end_condition france_holds_naples"),
    ("added", "tile kingdom_of_france"),
    ("added", "tile cannons_2p"),
    ("added", "card france_family_1"),
    ("added", "action empty_room"),
    ("added", "track influence_florence"),
    ("added", "track influence_venice"),
    ("added", "track influence_rome"),
    ("added", "table major_cities"),
    ("added", "side red"),
    ("added", "side green"),
    ("added", "side white"),
    ("added", "marker florence_influence"),
    ("added", "marker venice_influence"),
    ("added", "marker rome_influence"),
    ("added", "formula stance"),
    ("added", "procedure conclude_alliance"),
    ("added", "procedure influence_major_cities"),
    ("added", "procedure recruit_allied_troops"),
    ("changed", "action annex.effect"),
    # the Postures, penalties, retreats and mixed armies: the base war hooks, modified
    ("changed", "formula siege_allowed.value"),
    ("changed", "formula siege_required.value"),
    ("changed", "formula plains_battle.value"),
    ("changed", "formula defending_sides.value"),
    ("changed", "formula may_stay_in_front.value"),
    ("changed", "formula retreat_destination.value"),
    ("changed", "formula troop_origins.value"),
    ("changed", "formula commanded_sides.value"),
    ("changed", "procedure after_conquest.effect"),
    ("changed", "procedure lose_army_troop.effect"),
    ("changed", "formula agent_places.value"),
    ("changed", "field agent.on"),
    ("added", "procedure eliminate_major_city"),
])
def test_diff_lists_the_two_player_changes(diff, row):
    assert row in diff


def test_game_is_two_players(pack):
    assert unparse.value(pack.get("game", "virtu").get("players")) == "[2]"


def test_twenty_one_round_end_condition(pack):
    ec = pack.get("end_condition", "twenty_one_rounds")
    assert unparse.value(ec.get("check")) == "round >= 21"
    assert unparse.value(ec.get("at")) == "end_of_round"
    assert unparse.value(ec.get("then")) == "immediately"


def test_show_diff_command(capsys):
    assert cli_main(["show", "wars_of_italy", "--diff", "base_3to5"]) == 0
    out = capsys.readouterr().out
    for line in (r"^- action sponsor    #", r"^- tile cathedral    #",
                 r"^~ game virtu    #", r"^\s+-players: \[3, 4, 5\]$",
                 r"^\s+\+players: \[2\]    # wars_of_italy/rules/setup\.rules:\d+$",
                 r"^\+ end_condition twenty_one_rounds    #"):
        assert re.search(line, out, re.M), line


def test_component_counts(pack):
    counts = {str(d.id): d.get("count") for d in pack.of_kind("component")}
    assert counts["notable_cards"] == 50
    assert counts["family_cards"] == 13
    assert counts["guild_tiles"] == 2
    assert "cathedral_tiles" not in counts and "patronage_bonuses" not in counts


# ------------------------------------------------------------------ the effective setup
def test_effective_setup_for_two_players(pack, base):
    setup = pack.data["setup"].data
    pc = setup_for(setup, 2)
    assert pc["board_side"] == "side_25"
    assert pc["colours"] == ["blue", "yellow"]
    assert [p["players"] for p in setup["player_counts"]] == [2]
    colours = {c["id"]: c for c in setup["colours"]}
    blue, yellow = colours["blue"], colours["yellow"]
    assert blue["starting_cities"] == [{"city": "turin", "troops": 2}, {"city": "milan", "troops": 2}]
    assert (blue["florins_start"], blue["agents_start"], blue["troops_total"], blue["family_cards"]) == (4, 1, 8, 4)
    assert [c["city"] for c in yellow["starting_cities"]] == ["naples", "rossano", "reggio", "bari"]
    assert (yellow["florins_start"], yellow["agents_start"], yellow["troops_total"], yellow["family_cards"]) == (4, 2, 6, 3)
    # the other colours are the Major Cities: their pieces on the board, their caps (troops_total)
    # and their set-aside Agent (setup 13-17)
    mc = {c: ([(sc["city"], sc["troops"]) for sc in colours[c]["starting_cities"]],
              colours[c]["troops_total"], colours[c]["agents_start"]) for c in ("red", "green", "white")}
    assert mc == {"red": ([("florence", 1), ("pisa", 0)], 2, 1),
                  "white": ([("rome", 1), ("civitavecchia", 0)], 2, 1),
                  "green": ([("venice", 1), ("corfu", 0), ("ravenna", 1)], 4, 0)}


def test_new_game_starting_position(engine):
    s = engine.new_game(2, seed=1)
    assert s["players"] == s["turn_order"] == ["blue", "yellow"]
    blue, yellow = s["p"]["blue"], s["p"]["yellow"]
    assert blue["florins"] == yellow["florins"] == 4
    assert (blue["agents_available"], yellow["agents_available"]) == (1, 2)
    assert (blue["troops_reserve"], yellow["troops_reserve"]) == (4, 4)
    assert {t["id"] for t in blue["tiles"]} == {"turin_tile", "milan_tile", "kingdom_of_france", "cannons_2p", "duchy_blue"}
    assert {t["id"] for t in yellow["tiles"]} == {"naples_tile", "rossano_tile", "reggio_tile", "bari_tile",
                                                  "principality_yellow"}
    assert {c: v["controller"] for c, v in s["cities"].items() if v["controller"]} == {
        "turin": "blue", "milan": "blue", "naples": "yellow", "rossano": "yellow", "reggio": "yellow", "bari": "yellow",
        "florence": "red", "pisa": "red", "rome": "white", "civitavecchia": "white",
        "venice": "green", "corfu": "green", "ravenna": "green"}
    # the Major Cities are sides that do not play: records in p, no seat
    assert set(s["p"]) == {"blue", "yellow", "red", "green", "white"}
    assert not any(t.startswith(("florence_tile", "pisa_tile", "venice_tile", "rome", "ravenna_tile"))
                   for t in s["supply"]["tiles"])
    assert s["cities"]["turin"]["troops"] == {"blue": 2} and s["cities"]["naples"]["troops"] == {"yellow": 2}
    # 3 printed Cortigiano spaces + 1 from the Titles held
    # 4 Cortigiano spaces each (the extra ones may be on either edge: all empty shaded spaces
    # stay usable until the extra spaces are filled)
    rt = engine.runtime(s)
    assert [rt.formula("cortigiano_spaces", [p], {}, {}) for p in ("blue", "yellow")] == [4, 4]
    assert len(blue["unplaced"]) == 4 and len(yellow["unplaced"]) == 3
    # no Sponsor Room; one Room without printed Action
    rt = engine.runtime(s)
    for p in ("blue", "yellow"):
        actions = [rt.formula("action", [f"{p}.room{i}"], {}, {}) for i in range(5)]
        assert sorted(actions) == ["annex", "empty_room", "govern", "scheme", "wage_war"]
    # titles for sale: Principality of Milan, Duchy of Naples, one Kingdom; no Cathedral
    tiles = set(s["supply"]["tiles"])
    assert {"principality_blue", "duchy_yellow", "kingdom"} <= tiles
    assert not any(t.startswith(("cathedral", "republic", "duchy_red")) for t in tiles)
    assert "maestro" not in s["supply"]["notables"] and "pope" not in s["supply"]["notables"]
    # Major City Cities are not Neutral Cities: they cannot be annexed
    assert rt.formula("held_by_major_city", ["florence"], {}, {}) is True
    assert rt.formula("held_by_major_city", ["siena"], {}, {}) is False


def test_salaries_every_fourth_round_one_florin_per_two_troops(engine):
    rt = engine.runtime(engine.new_game(2, seed=1))
    assert [rt.formula("salary_round", [r], {}, {}) for r in (1, 3, 4, 8, 20, 21)] == [False, False, True, True, True, False]
    assert [rt.table_lookup("salaries", n) for n in range(9)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_france_holding_naples_is_the_end_condition_that_names_france(engine, pack):
    s = engine.new_game(2, seed=1)
    s["cities"]["naples"]["controller"] = "blue"
    rt = engine.runtime(s)
    ec = next(e for e in engine.rs.end_conditions if e["id"] == "france_holds_naples")
    assert ec["at"] == "end_of_round" and ec["then"] == "immediately"
    assert ec["check"](rt, {"player": None})
    assert unparse.value(pack.get("end_condition", "france_holds_naples").get("winners")) == "[blue]"
    # no score row stands for the victory any more (it was 100 PP before the end condition could name a winner)
    assert pack.get("scoring", "automatic_victory") is None and "automatic_victory" not in engine.scores(s)["blue"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_france_holding_naples_at_the_end_of_a_round_wins_whatever_the_points(engine, seed):
    """France takes Naples (by hand, before the first move) and Naples has more points (Trophies):
    the game ends after Round 1 and France wins, though the scores would name Naples."""
    s = engine.new_game(2, seed=seed)
    s["cities"]["naples"].update(controller="blue", troops={"blue": 2})
    s["p"]["yellow"]["trophies"] = ["blue"] * 10
    rng = random.Random(seed)
    while not engine.is_over(s):
        s = engine.apply(s, rng.choice(engine.legal_moves(s)))
    assert s["year"] == 1 and s["cities"]["naples"]["controller"] == "blue"
    totals = {p: r["total"] for p, r in engine.scores(s).items()}
    assert totals["yellow"] > totals["blue"]
    assert engine.winners(s) == ["blue"]


def test_naples_wins_ties(engine):
    s = engine.new_game(2, seed=1)
    sc = engine.scores(s)
    assert sc["yellow"]["tie_break"] == 1 and sc["blue"]["tie_break"] == 0


# ------------------------------------------------------------------ play
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_moves_run(engine, seed):
    s = engine.new_game(2, seed=seed)
    rng = random.Random(seed)
    for _ in range(400):
        if engine.is_over(s):
            break
        moves = engine.legal_moves(s)
        assert moves, f"no legal move in year {s['year']}: {s['vm']['pending']}"
        s = engine.apply(s, rng.choice(moves))


def test_random_game_ends_after_round_21(engine):
    s = engine.new_game(2, seed=5)
    rng = random.Random(5)
    for _ in range(20_000):
        if engine.is_over(s):
            break
        s = engine.apply(s, rng.choice(engine.legal_moves(s)))
    assert engine.is_over(s) and not s.get("unfinished")
    assert s["year"] <= 21
    if s["cities"]["naples"]["controller"] != "blue":
        assert s["year"] == 21
    assert set(engine.scores(s)) == {"blue", "yellow"}


# ------------------------------------------------------------------ stances: the zone, and nothing else
ZONES = {"france_alliance": "blue", "france_favorable": "blue", "neutral_zone": None,
         "naples_favorable": "yellow", "naples_alliance": "yellow"}


@pytest.mark.parametrize("space", range(13))
def test_stance_follows_the_zone_of_every_space(engine, pack, space):
    """On every space of Rome's track, the stance toward each player is what the marker's zone
    says (tracks.patch.yaml): Favorable to the player whose end holds it, Hostile to the other,
    Neutral to both in the Neutral zone."""
    s = engine.new_game(2, seed=1)
    s["tracks"]["influence_rome"]["pos"]["rome_influence"] = space
    rt = engine.runtime(s)
    zones = {z["id"]: (z["from"], z["to"]) for z in pack.data["tracks"].data["tracks"]["influence_rome"]["zones"]}
    zone = next(z for z, (lo, hi) in zones.items() if lo <= space <= hi)
    leaning = ZONES[zone]
    for p in ("blue", "yellow"):
        want = "neutral" if leaning is None else "favorable" if leaning == p else "hostile"
        assert rt.formula("stance", ["white", p], {}, {}) == want, (space, zone, p)


def test_alliance_only_from_the_players_alliance_zone_without_an_opposing_agent(engine):
    s = engine.new_game(2, seed=1)
    rt = engine.runtime(s)
    assert rt.formula("may_conclude_alliance", ["green", "yellow"], {}, {}) is True
    assert rt.formula("may_conclude_alliance", ["green", "blue"], {}, {}) is False
    assert rt.formula("may_conclude_alliance", ["red", "blue"], {}, {}) is False    # Favorable, not Alliance
    s["p"]["green"]["agent"] = "blue"
    assert engine.runtime(s).formula("may_conclude_alliance", ["green", "yellow"], {}, {}) is False


# ------------------------------------------------------------------ the command line
def test_play_needs_no_player_count(capsys):
    """The pack says it is for 2 players: `rulespec play wars_of_italy` seats France and Naples."""
    assert cli_main(["play", "wars_of_italy", "--seed", "3", "--bots", "random"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Final scores after \d+ moves, Round \d+", out)
    assert re.search(r"winner\(s\): (blue|yellow)", out)


# ------------------------------------------------------------------ no variant in the interpreter
def test_the_interpreter_names_no_part_of_the_variant():
    """Major Cities, Influence, stances and postures are pack data: no Python module of the
    interpreter names them (Rome is also a City of the base game: it is not searched)."""
    from pathlib import Path
    words = re.compile(r"\b(influence|stances?|postures?|major[ _]cit(y|ies)|wars[ _]of[ _]italy|florence|venice)\b", re.I)
    root = Path(__file__).parent.parent / "interpreter"
    hits = [f"{p.name}:{n}" for p in root.rglob("*.py")
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if words.search(line)]
    assert not hits, hits
