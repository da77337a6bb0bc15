"""The house rules of the developers' guide and the world-model plan's stage-17 overlays, each
written as an overlay pack with no Python (tests/packs/variants/): they validate, change exactly what they say, and play."""
from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from interpreter import vm
from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.constraints import ConstraintChecker
from rulespec.pack import load_pack
from rulespec.show import pack_diff
from validator.static import validate_pack

from ci_mode import ci_only

VARIANTS = Path(__file__).parent / "packs" / "variants"
NAMES = sorted(p.name for p in VARIANTS.iterdir() if (p / "pack.yaml").is_file())
# the README's command plays a whole game of the variants that change how a game ends or is
# scored; CI plays one of each (docs/testing.md, "What runs where"): 4-player games of about
# 2,000 moves, the largest part of this file
WHOLE_GAME_LOCALLY = {"five_years", "trophies_uncapped"}
WHOLE_GAMES = [n if n in WHOLE_GAME_LOCALLY else pytest.param(n, marks=ci_only) for n in NAMES]


@functools.lru_cache(maxsize=None)
def _engine(name):
    """Each variant's engine (None: the base game's), compiled once for the tests of this file (an engine holds no game:
    its states are values)."""
    return Engine(load_pack(VARIANTS / name) if name else load_pack("base_3to5"))

EXPECTED_DIFF = {
    "govern_three_tiles": ("changed", "formula tiles_per_govern_symbol.value"),
    "annex_two_roads": ("changed", "formula annex_by_road.value"),
    "cathedral_defence": ("added", "ability cathedral_walls"),
    "tax_action": ("added", "action tax"),
    "five_years": ("added", "end_condition five_years"),
    "fourth_power": ("added", "alliance venice_league"),
    "trade_then_scheme": ("added", "action trade_then_scheme"),
    "fortification": ("changed", "formula city_defence_bonus.value"),
    "trophies_uncapped": ("changed", "formula takes_trophy.value"),
}


@pytest.fixture(scope="module")
def base():
    return load_pack("base_3to5")


def test_every_variant_is_listed():
    assert set(NAMES) == set(EXPECTED_DIFF)


@pytest.mark.parametrize("name", NAMES)
def test_variant_validates_and_changes_what_it_says(name, base):
    report = validate_pack(VARIANTS / name)
    assert not report.errors, "\n".join(d.render() for d in report.errors)
    rows = pack_diff(report.pack, base)
    change, what = EXPECTED_DIFF[name]
    assert any(r[0] == change and r[1] == what for r in rows), rows


@pytest.mark.parametrize("name", WHOLE_GAMES)
def test_variant_plays_to_an_end_by_its_rules(name):
    """A whole 4-player game by the random bots ends by an end condition of the rules (not at
    the pack's Year bound), every constraint holds in the final position under a full
    evaluation (the incremental checker refused no move during play), and the score sheet adds
    up. What each variant changes in play is checked by its scenarios
    (tests/scenarios/variants/) and the tests below."""
    engine = _engine(name)
    s, moves = play_game(engine, 4, seed=3)
    assert engine.is_over(s) and not s.get("unfinished"), \
        f"{name}: stopped at the bound, Year {s['year']}, after {len(moves)} moves"
    assert s["year"] >= 2 and len(moves) > 100
    try:
        ConstraintChecker(engine.rs.constraints).check(engine.runtime(s))
    except vm.Abort as e:
        pytest.fail(f"{name}: a constraint fails at the end of the game: {e.reason}")
    sc = engine.scores(s)
    assert set(sc) == set(s["players"])
    for row in sc.values():
        assert row["total"] == sum(v for k, v in row.items() if k not in ("total", "tie_break"))
    best = max(r["total"] for r in sc.values())
    assert engine.winners(s) and all(sc[p]["total"] == best for p in engine.winners(s))


@pytest.mark.parametrize("name", NAMES)
def test_variant_survives_uniform_random_moves(name):
    """400 moves drawn uniformly (no playout hints: odd choices too): every move the engine
    offers is accepted (a refused legal move raises here), and the game moves on."""
    engine = _engine(name)
    rng = random.Random(3)
    s = engine.new_game(4, seed=3)
    for _ in range(400):
        if engine.is_over(s):
            break
        legal = engine.legal_moves(s)
        assert legal, f"no legal move at Year {s['year']}: {s['vm']['pending']}"
        s = engine.apply(s, rng.choice(legal))
    assert s["year"] >= 3


def test_five_years_variant_ends_random_games_after_year_five():
    engine = _engine("five_years")
    rng = random.Random(1)
    s = engine.new_game(3, seed=1)
    while not engine.is_over(s):
        s = engine.apply(s, rng.choice(engine.legal_moves(s)))
    assert s["year"] == 5 and not s.get("unfinished")
    assert set(engine.scores(s)) == {"red", "yellow", "green"}


def _engine_with(name, players=4, seed=1):
    engine = _engine(name)
    return engine, engine.new_game(players, seed=seed)


def test_annex_within_two_roads_reaches_further():
    base_engine, s = _engine_with(None)
    two, t = _engine_with("annex_two_roads")
    rt_base, rt_two = base_engine.runtime(s), two.runtime(t)
    # Siena is two roads from Pisa... and Florence is Red's: count cities reachable by road
    reach_base = {c for c in s["cities"] if any(rt_base.formula("annex_by_road", [o, c], {}, {}) for o in ("florence", "pisa"))}
    reach_two = {c for c in t["cities"] if any(rt_two.formula("annex_by_road", [o, c], {}, {}) for o in ("florence", "pisa"))}
    assert reach_base < reach_two
    assert "ravenna" in reach_base and "ancona" in reach_two - reach_base


def test_fortification_is_a_new_city_field_kept_within_0_to_3():
    """The overlay's field is on every City at 0 (the base game's cities have no such key); a
    level of 4 breaks its constraint; bots fortify in play (Winter step, 2 florins a level)."""
    engine, s = _engine_with("fortification")
    base, b = _engine_with(None)
    assert all(c["fortification"] == 0 for c in s["cities"].values())
    assert all("fortification" not in c for c in b["cities"].values())
    checker = ConstraintChecker(engine.rs.constraints)
    checker.check(engine.runtime(s))
    s["cities"]["siena"]["fortification"] = 4
    with pytest.raises(vm.Abort, match="between 0 and 3"):
        checker.check(engine.runtime(s))
    s, _ = play_game(engine, 4, seed=3)
    levels = [c["fortification"] for c in s["cities"].values()]
    assert max(levels) >= 1 and all(0 <= n <= 3 for n in levels), levels


def test_fourth_power_is_a_fourth_alliance_in_play():
    engine, s = _engine_with("fourth_power")
    assert set(s["alliances"]) == {"france", "hre", "ottoman", "venice_league"}
    # its Bonus pays its holder through the base pack's `source alliance_bonus`, in a Wage War
    s["alliances"]["venice_league"]["holder"] = "red"
    sources = dict(engine.runtime(s).payment_sources("red", {"action": "wage_war", "within": ["wage_war"]}))
    assert sources["alliance.venice_league"] == {"cavalry": 1}


def test_trophies_uncapped_lifts_the_cap_the_base_pack_keeps():
    """Two Yellow Trophies: the base pack's constraint one_trophy_per_opponent refuses the
    position, the variant (which removes it and makes takes_trophy true) accepts it; the same
    victory brings a Trophy only in the variant."""
    for name, capped in ((None, True), ("trophies_uncapped", False)):
        engine, s = _engine_with(name, players=3)
        s["p"]["red"]["trophies"] = ["yellow", "yellow"]
        rt = engine.runtime(s)
        try:
            ConstraintChecker(engine.rs.constraints).check(rt)
            refused = False
        except vm.Abort:
            refused = True
        assert refused == capped, name
        assert rt.formula("takes_trophy", ["red", "yellow"], {}, {}) is (not capped), name
