"""Facts about the base-game Italy board, read through Board from content/base_3to5."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest

from rulespec.board import Board
from rulespec.errors import RulespecError
from rulespec.mapdraw import draw_map_svg
from rulespec.yamldata import load_yaml_file
from validator.map_checks import check_map_files

PACK = Path(__file__).resolve().parents[1] / "content" / "base_3to5"

STARRED = {"nice", "turin", "milan", "genoa", "parma", "ragusa", "cagliari", "reggio"}
PIRATES = {"ragusa", "ajaccio", "cagliari", "tunis"}
ISLANDS = {"corfu", "palermo", "messina", "cagliari", "ajaccio", "tunis"}


@pytest.fixture(scope="module")
def docs():
    return load_yaml_file(PACK / "map.yaml"), load_yaml_file(PACK / "setup.yaml")


@pytest.fixture(scope="module")
def map_data(docs):
    return docs[0].data


@pytest.fixture(scope="module")
def setup_data(docs):
    return docs[1].data


@pytest.fixture(scope="module")
def boards(map_data, setup_data):
    return {n: Board.from_pack_data(map_data, setup_data, n) for n in (3, 4, 5)}


def test_pack_files_pass_all_checks(docs):
    assert [d.render() for d in check_map_files(*docs)] == []


def test_city_counts_per_side_and_player_count(map_data, boards):
    assert len(Board(map_data, "side_25").cities) == 30
    assert len(Board(map_data, "side_34").cities) == 28
    assert len(boards[3].cities) == 20
    assert len(boards[4].cities) == 28
    assert len(boards[5].cities) == 30
    assert {"perugia", "civitavecchia"}.isdisjoint(Board(map_data, "side_34").cities)
    assert boards[3].side == boards[4].side == "side_34" and boards[5].side == "side_25"


@pytest.mark.parametrize("city,value", [
    ("rome", 4), ("naples", 3), ("ravenna", 2), ("siena", 3), ("benevento", 2), ("parma", 1),
    ("palermo", 3), ("terracina", 1), ("florence", 3), ("venice", 3), ("milan", 3), ("genoa", 3),
    ("corfu", 2), ("perugia", 1), ("civitavecchia", 1),
])
def test_board_values(boards, city, value):
    assert boards[5].value(city) == value


def test_value_distribution_on_2_5_side(boards):
    b = boards[5]
    assert Counter(b.value(c) for c in b.cities) == {1: 10, 2: 12, 3: 7, 4: 1}


def test_3_4_side_values_assumed_equal_to_2_5(boards):
    for c in boards[4].cities:
        assert boards[4].value(c) == boards[5].value(c)


def _sea_and_road_graph(b: Board) -> nx.Graph:
    return b.graph  # cities, seas, roads, coasts and sea links in one graph


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_city_reachable_by_road_or_sea(boards, n):
    b = boards[n]
    assert nx.is_connected(_sea_and_road_graph(b))
    for c in b.cities:
        assert b.road_neighbours(c) or b.is_port(c), c


def test_every_city_reachable_on_both_full_sides(map_data):
    for side in ("side_34", "side_25"):
        assert nx.is_connected(Board(map_data, side).graph)


def test_islands_have_no_road_to_the_mainland(map_data, boards):
    landmass = {c["id"]: c["landmass"] for c in map_data["cities"]}
    for b in (boards[5], Board(map_data, "side_34")):
        for c in ISLANDS:
            assert landmass[c] != "mainland"
            assert all(landmass[n] == landmass[c] for n in b.road_neighbours(c)), c
            assert b.is_port(c), c
    assert boards[5].road_neighbours("messina") == {"palermo"}
    assert not boards[5].adjacent_by_road("messina", "reggio")
    assert boards[5].road_distance("naples", "palermo") is None


def test_pirate_ports(boards):
    b = boards[5]
    assert {c for c in b.cities if b.is_pirate(c)} == PIRATES
    for c in PIRATES:
        assert b.is_port(c) and not b.is_annexable(c)
    assert {c for c in b.cities if not b.is_annexable(c)} == PIRATES


def test_forbidden_cities_at_3_players(map_data, setup_data, boards):
    starred = {c["id"] for c in map_data["cities"] if c.get("forbidden_at_3")}
    assert starred == STARRED
    pc3 = next(pc for pc in setup_data["player_counts"] if pc["players"] == 3)
    assert set(pc3["forbidden_cities"]) == STARRED
    assert boards[3].excluded == STARRED
    assert STARRED.isdisjoint(boards[3].cities)
    assert STARRED <= set(boards[4].cities)


def test_roads_from_rulebook_examples(boards):
    for b in boards.values():
        assert b.adjacent_by_road("florence", "ravenna")
        assert b.adjacent_by_road("ravenna", "florence")
        assert b.adjacent_by_road("florence", "spoleto")
        assert "ravenna" in b.road_neighbours("florence")


def test_road_distance(boards):
    b = boards[5]
    assert b.road_distance("florence", "florence") == 0
    assert b.road_distance("florence", "ravenna") == 1
    assert b.road_distance("florence", "rome") == 2
    # At 3 players the Via Emilia through Parma is gone.
    assert boards[4].road_distance("pisa", "mantua") == 3
    assert boards[3].road_distance("pisa", "mantua") == 4
    assert boards[3].road_distance("pisa", "milan") is None


def test_seas_between_ports(boards):
    b = boards[5]
    assert b.seas_between("pisa", "terracina") == 2      # Annex example: 2 Ships
    assert b.seas_between("venice", "corfu") == 1
    assert b.seas_between("venice", "venice") == 1
    assert b.seas_between("nice", "corfu") == 3
    assert b.seas_between("florence", "pisa") is None     # Florence is inland
    assert b.seas_between("pisa", "florence") is None


def test_ancona_shares_a_sea_with_venice(boards):
    b = boards[5]
    assert b.is_port("ancona")
    assert b.seas_of("ancona") & b.seas_of("venice")
    assert b.seas_between("ancona", "venice") == 1
    assert "venice" in b.ports_reachable("ancona")


def test_ports_and_seas(boards):
    b = boards[5]
    assert b.seas_of("pisa") == {"ligurian"}
    assert b.seas_of("terracina") == {"tyrrhenian"}
    assert b.seas_of("florence") == frozenset()
    assert not b.is_port("rome")
    assert b.ports_reachable("rome") == frozenset()
    assert "pisa" not in b.ports_reachable("pisa")
    assert b.ports_reachable("pisa") == b.ports - {"pisa"}
    assert boards[3].ports_reachable("pisa").isdisjoint(STARRED)


def test_graph_edge_kinds(boards):
    g = boards[5].graph
    assert g.edges["florence", "ravenna"]["kind"] == "road"
    assert g.edges["pisa", "ligurian"]["kind"] == "coast"
    assert g.edges["ligurian", "tyrrhenian"]["kind"] == "sea"
    assert g.nodes["tyrrhenian"]["kind"] == "sea" and g.nodes["rome"]["kind"] == "city"


def test_alias_latina(boards):
    assert boards[5].resolve("latina") == "terracina"
    assert boards[5].resolve("terracina") == "terracina"
    assert boards[3].resolve("milan") is None


def test_starting_cities_exist_on_their_side(setup_data, boards):
    expected = {"blue": {"milan", "turin"}, "red": {"florence", "pisa"},
                "yellow": {"naples", "rossano"}, "green": {"venice", "corfu"},
                "white": {"rome", "civitavecchia"}}
    colours = {c["id"]: c for c in setup_data["colours"]}
    assert {cid: {s["city"] for s in c["starting_cities"]} for cid, c in colours.items()} == expected
    for pc in setup_data["player_counts"]:
        b = boards[pc["players"]]
        for col in pc["colours"]:
            for s in colours[col]["starting_cities"]:
                assert s["city"] in b, (pc["players"], col, s["city"])
                assert s.get("troops", 1) == 1


def test_setup_numbers(setup_data):
    colours = {c["id"]: c for c in setup_data["colours"]}
    assert {c: colours[c]["agents_start"] for c in colours} == {
        "blue": 2, "red": 2, "yellow": 3, "green": 2, "white": 3}
    for c in colours.values():
        assert (c["troops_total"], c["agents_max"], c["florins_start"], c["control_discs"]) == (6, 5, 1, 18)
        assert c["cortigiano_open"] == {"left": 1, "right": 2}
    counts = {pc["players"]: pc for pc in setup_data["player_counts"]}
    assert counts[3]["colours"] == ["red", "yellow", "green"]
    assert counts[5]["rome_tile"] == {"tile": "coat_of_arms", "owner": "white"}
    assert counts[4]["rome_tile"] == {"tile": "neutral"}
    assert set(counts[4]["returned_tiles"]) == {"perugia", "civitavecchia"}


def test_unknown_player_count_and_side(map_data, setup_data):
    with pytest.raises(RulespecError):
        Board.from_pack_data(map_data, setup_data, 2)
    with pytest.raises(RulespecError):
        Board(map_data, "side_99")


def test_draw_svg_omits_excluded_cities(map_data, boards):
    svg = draw_map_svg(boards[3], map_data, "Virtù – 3 players")
    root = ET.fromstring(svg)
    ids = {el.get("id") for el in root.iter() if el.get("id", "").startswith("city-")}
    assert ids == {f"city-{c}" for c in boards[3].cities}
    assert "Milan" not in svg and "Florence" in svg
    assert root.get("width") == "1000" and root.get("height") == "1200"
    svg5 = draw_map_svg(boards[5], map_data, "Virtù – 5 players")
    assert "Perugia" in svg5 and "Tyrrhenian Sea" in svg5
