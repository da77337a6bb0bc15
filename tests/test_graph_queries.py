"""The generic graph functions (neighbours, distance, reachable `via:` edge kinds) and the map
queries the base pack writes with them (content/base_3to5/rules/map.rules).

Those queries were Python built-ins reading the Board's precomputed tables; the tables are still
there (rulespec.board, tests/test_map.py), so every query is compared with them here, for every
pair of cities of every board the packs play on: the same answers, so the same games.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from interpreter.api import Engine
from rulespec.board import Board
from rulespec.pack import load_pack
from validator.static import validate_pack

PACKS = Path(__file__).resolve().parent / "packs"
BOARDS = [("base_3to5", 3), ("base_3to5", 4), ("base_3to5", 5), ("wars_of_italy", 2)]


@lru_cache(maxsize=None)
def _engine(pack_id):
    return Engine(load_pack(pack_id))


def _runtime(pack_id, players):
    engine = _engine(pack_id)
    return engine.runtime(engine.new_game(players, seed=0))


@pytest.mark.parametrize("pack_id,players", BOARDS)
def test_the_map_queries_of_the_pack_answer_as_the_board_tables(pack_id, players):
    rt = _runtime(pack_id, players)
    b: Board = rt.board
    f = lambda name, *args: rt.formula(name, list(args), {}, {})      # noqa: E731
    cities = list(b.cities)
    for a in cities:
        assert f("road_neighbours", a) == sorted(b.road_neighbours(a)), a
        assert f("seas_of", a) == sorted(b.seas_of(a)), a
        assert f("is_port", a) is b.is_port(a), a
        assert f("ports_reachable", a) == sorted(b.ports_reachable(a)), a
        for c in cities:
            assert f("adjacent_by_road", a, c) is b.adjacent_by_road(a, c), (a, c)
            road = b.road_distance(a, c)
            assert f("road_distance", a, c) == (99 if road is None else road), (a, c)
            ships = b.seas_between(a, c)
            assert f("seas_between", a, c) == (99 if ships is None else ships), (a, c)


def _board():
    """A tiny map: a - b by road, b - c by road, d alone; a and d ports on two linked seas."""
    data = {"sides": [{"id": "s"}],
            "seas": [{"id": "north"}, {"id": "south"}, {"id": "east"}],
            "sea_links": [{"between": ["north", "south"]}],
            "cities": [{"id": i, "value": 1, "sides": ["s"], "seas": seas}
                       for i, seas in (("a", ["north"]), ("b", []), ("c", []), ("d", ["south"]), ("e", ["east"]))],
            "roads": [{"between": ["a", "b"], "sides": ["s"]}, {"between": ["b", "c"], "sides": ["s"]}]}
    return Board(data, "s")


def test_neighbours_distance_and_reachable_follow_only_the_edge_kinds_named():
    b = _board()
    assert b.neighbours("b", ("road",)) == ("a", "c")
    assert b.neighbours("a", ("coast",)) == ("north",)
    assert b.neighbours("north", ("coast",)) == ("a",)          # a sea's ports
    assert b.neighbours("north", ("sea",)) == ("south",)
    assert b.neighbours("a", ("coast", "road")) == ("b", "north")
    assert b.neighbours("nowhere", ("road",)) == ()
    assert b.distance("a", "c", ("road",)) == 2
    assert b.distance("a", "a", ("road",)) == 0
    assert b.distance("a", "d", ("road",)) is None              # no road reaches d
    assert b.distance("a", "d", ("coast", "sea")) == 3          # a, north, south, d
    assert b.distance("a", "e", ("coast", "sea")) is None       # east is linked to no sea
    assert b.reachable("a", ("road",)) == ("b", "c")
    assert b.reachable("a", ("coast", "sea")) == ("d", "north", "south")
    assert b.reachable("c", ("coast", "sea")) == ()


def test_via_a_kind_the_map_has_not_is_a_positioned_error(make_pack):
    folder = make_pack("bad_via", {"pack.yaml": "id: bad_via\nname: Bad via\nversion: 0.1.0\nextends: minimal_map\n",
                                   "rules/more.rules": """
formula by_rail(c: city) "Cities one rail away" { value: neighbours(c, via: rail) }
formula nowhere(c: city) "No via" { value: reachable(c) }
"""})
    report = validate_pack(folder, [PACKS])
    got = [(d.code, d.span.line, d.message) for d in report.errors]
    assert ("RS105", 1, "'rail' is not a kind of edge of the map") in got
    assert any(code == "RS107" and line == 2 and "needs `via:`" in msg for code, line, msg in got)
    hints = [d.hint for d in report.errors if d.code == "RS105"]
    assert hints and "road" in hints[0] and "coast" in hints[0]


def test_a_library_may_declare_map_formulas_a_mapless_game_never_calls():
    """minimal declares is_port and seas_between; the race extends nothing with a map, and a pack
    extending minimal without a map reports only the graph queries its own rules make."""
    from rulespec.mapless import map_formulas
    pack = load_pack("minimal_overlay")
    assert {"is_port", "seas_between"} <= map_formulas(pack)



def test_the_plural_of_a_kind_with_records_names_them_all(make_pack):
    """`sides` (built in) and `cities` (kind city { plural: cities }) are instances(KIND): the
    records in their order; a kind's plural a pack does not declare is an unknown name."""
    rt = _runtime("base_3to5", 4)
    assert rt.f_instances("city") == list(rt.state["cities"]) and rt.f_instances("side") == list(rt.state["p"])
    folder = make_pack("plurals", {"pack.yaml": "id: plurals\nname: Plurals\nversion: 0.1.0\nextends: race\n",
                                   "rules/more.rules": """
formula runners "Every side" { value: count(sides) }
formula towns "No kind city here" { value: count(cities) }
"""})
    report = validate_pack(folder, [PACKS])
    assert [(d.code, d.span.line, d.message) for d in report.errors] == [("RS105", 2, "unknown name 'cities'")]


def test_owner_of_reads_the_owner_field_each_kind_declares():
    """kind city { owner: controller }, kind alliance { owner: holder }: owner_of(x) is that
    field; a Room is its list's owner; a card or tile, the side holding it."""
    rt = _runtime("base_3to5", 4)
    city = next(c for c, rec in rt.state["cities"].items() if rec["controller"] is not None)
    assert rt.f_owner_of(city) == rt.state["cities"][city]["controller"]
    alliance = next(iter(rt.state["alliances"]))
    assert rt.f_owner_of(alliance) is None
    rt.state["alliances"][alliance]["holder"] = "red"
    assert rt.f_owner_of(alliance) == "red"
    assert rt.f_owner_of("blue.room1") == "blue"
    tile = rt.state["p"]["yellow"]["tiles"][0]["id"]
    assert rt.f_owner_of(tile) == "yellow"


def test_owns_is_a_pack_formula_over_what_a_house_holds():
    rt = _runtime("base_3to5", 4)
    owns = lambda p, x: rt.formula("owns", [p, x], {}, {"player": p})      # noqa: E731
    tile = rt.state["p"]["green"]["tiles"][0]["id"]
    kind = tile.split("#")[0]
    assert owns("green", tile) and owns("green", kind)
    assert not any(owns(q, tile) for q in ("red", "blue", "yellow") if q in rt.state["p"])
