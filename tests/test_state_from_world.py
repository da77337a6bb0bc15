"""The state is built from what the pack declares (world-model plan, branch nouns): a side's
record holds exactly the fields its pack declares, in declaration order; a `count by side` field
with `@setup(KEY)` takes its starting counts from the sides' setup lists; the money a payment
takes comes from the side field the money symbol's `treasury:` names; scenario `given` paths
may add keys under the declared `count by`/`map` fields only; move texts naming records of a
list (`red.room3`) are recognised through the pack's own names.
The base game's setup position is compared byte for byte in tests/test_initial_state.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.api import Engine, engine_for
from interpreter.notation import pack_names, unknown_names
from interpreter.scenario import _set, open_maps
from rulespec.pack import load_pack
from rulespec.world import SIDE

PACKS = Path(__file__).resolve().parent / "packs"


def _declared_side_keys(rs) -> list:
    """The stored keys of the side fields and side zones, in declaration order."""
    kind = rs.world.kinds[SIDE]
    out = []
    for name, is_zone in kind.members:
        if is_zone:
            out.append(rs.world.zones[name].key)
        elif not kind.fields[name].sparse and not kind.fields[name].home:
            out.append(kind.fields[name].key)
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("pack", ["oracle_duel", "race", "sides_min"])
def test_a_side_keeps_exactly_the_fields_its_pack_declares(pack):
    eng = Engine(load_pack(PACKS / pack, [PACKS]))
    n = min(eng.pack.players) if eng.pack.players else 2
    s = eng.new_game(n, seed=1)
    expected = _declared_side_keys(eng.rs)
    for side, rec in s["p"].items():
        assert list(rec) == expected, side
        # nothing of the base game's Palace or treasury unless the pack says so
        assert ("rooms" in rec) == ("rooms" in expected) and ("florins" in rec) == ("florins" in expected)


def test_starting_troops_come_from_the_setup_lists_and_leave_the_reserve():
    eng = Engine(load_pack(PACKS / "sides_min", [PACKS]))
    s = eng.new_game(3, seed=1)
    setup = {c["id"]: c for c in eng.pack.data["setup"].data["colours"]}
    for side, rec in s["p"].items():
        placed = 0
        for item in setup[side].get("starting_cities", []):
            want = item.get("troops", 1)
            assert s["cities"][item["city"]]["troops"] == {side: want}
            placed += want
        assert rec["troops_reserve"] == setup[side]["troops_total"] - placed
    assert s["cities"]["epsilon"]["troops"] == {"league": 2}         # the faction's 2, not 1


def test_payments_take_money_from_the_declared_treasury(make_pack):
    root = make_pack("purse", {
        "pack.yaml": """
            id: purse
            name: purse
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/purse.rules": """
            field purse: int = 7 on side "Money kept apart"
            modify symbol florin { treasury: purse }
        """,
    })
    eng = Engine(load_pack(root))
    s = eng.new_game(3, seed=1)
    rt = eng.runtime(s)
    assert rt.treasury("red") == 7 and s["p"]["red"]["florins"] != 7
    rt.withdraw("red", 3)
    rt.deposit("red", 1)
    assert s["p"]["red"]["purse"] == 5
    base = engine_for("base_3to5")
    assert base.runtime(base.new_game(3, seed=1)).treasury("red") == 1       # florins_start


def test_given_paths_open_only_under_declared_open_fields():
    eng = engine_for("base_3to5")
    s = eng.new_game(["red", "yellow", "green"], 0)
    keys = open_maps(eng.rs)
    assert {"troops", "besiegers", "pos", "seq", "year_steps", "notables", "vars", "options"} <= keys
    city = next(iter(s["cities"]))
    _set(s, f"cities.{city}.troops.blue", 2, keys)                  # a `count by side` field
    assert s["cities"][city]["troops"]["blue"] == 2
    with pytest.raises(KeyError):
        _set(s, f"cities.{city}.troopz.blue", 2, keys)              # a typo is refused
    with pytest.raises(KeyError):
        _set(s, "p.red.colour_name", "x", keys)                     # not a declared field


def test_move_texts_name_records_and_sources_by_the_packs_names():
    names = pack_names(load_pack("base_3to5"))
    assert unknown_names("choose red.room3", names) == []
    assert unknown_names("tap room.impr crown", names) == []
    assert unknown_names("tap alliance.hre crown", names) == []
    assert unknown_names("choose red.rooom3", names) == ["red.rooom3"]
    assert unknown_names("choose purple.room3", names) == ["purple.room3"]
    assert unknown_names("tap room.pocket crown", names) == ["room.pocket"]
