"""All 30 cities of the Italy board, their printed values and their ports, written out here from
the sources and compared with the loaded pack (content/base_3to5/map.yaml through Board).

This table is kept apart from map.yaml on purpose: a value or a port changed by mistake in
map.yaml (two cities' values swapped, say) makes this test fail; a deliberate change needs the
table changed too, from a source.

Sources:
  * values and French board names: the text printed on the board (2/5-player side), OCR in
    shared/seeds/000_5077d333c722c523.txt ("RomeRome 4 4": name and value shield, doubled by
    the OCR; "Perouse" is Pérouse without its accent);
  * where the English rulebook (shared/seeds/004_8bf6c857e4fa2905.txt) states a value or a
    port, it wins: RULEBOOK below, each with its sentence (they all agree with the board);
  * ports and their seas: the anchors are not in the board text. Pisa, Terracina, Ancona and
    the 4 pirate ports are ports by the rulebook; the other ports and every sea are the fact
    sheet's reading of the geography (shared/reference/virtu-base-data.md, §1.4), marked INF.
"""
from __future__ import annotations

from collections import Counter

import pytest

from interpreter.api import Engine
from rulespec.board import Board
from rulespec.pack import load_pack

L, T, I, A = "ligurian", "tyrrhenian", "ionian", "adriatic"

# id: (French name on the board, printed value, seas of its port (() = not a port), pirate port)
TABLE = {
    "rome":          ("Rome",          4, (),     False),
    "benevento":     ("Bénévent",      2, (),     False),
    "naples":        ("Naples",        3, (T,),   False),   # port INF
    "terracina":     ("Latina",        1, (T,),   False),   # port EN; sea DER (not Pisa's)
    "corfu":         ("Corfou",        2, (I, A), False),   # port INF (island)
    "rossano":       ("Rossano",       2, (I,),   False),   # port INF
    "bari":          ("Bari",          2, (A,),   False),   # port INF
    "reggio":        ("Reggio",        1, (T, I), False),   # port INF
    "palermo":       ("Palerme",       3, (T,),   False),   # port INF (island)
    "messina":       ("Messine",       1, (T, I), False),   # port INF (island)
    "tunis":         ("Tunis",         1, (T,),   True),    # pirate port EN; sea INF
    "ragusa":        ("Raguse",        1, (A,),   True),    # pirate port EN; sea INF
    "cagliari":      ("Cagliari",      1, (T,),   True),    # pirate port EN; sea INF
    "ajaccio":       ("Ajaccio",       1, (L,),   True),    # pirate port EN; sea INF
    "nice":          ("Nice",          2, (L,),   False),   # port INF
    "genoa":         ("Gênes",         3, (L,),   False),   # port INF
    "turin":         ("Turin",         2, (),     False),
    "milan":         ("Milan",         3, (),     False),
    "florence":      ("Florence",      3, (),     False),
    "parma":         ("Parme",         1, (),     False),
    "mantua":        ("Mantoue",       2, (),     False),
    "trento":        ("Trente",        2, (),     False),
    "venice":        ("Venise",        3, (A,),   False),   # port INF
    "ravenna":       ("Ravenne",       2, (A,),   False),   # port INF
    "perugia":       ("Pérouse",       1, (),     False),   # 2/5 side only
    "ancona":        ("Ancône",        2, (A,),   False),   # port EN (retreat by sea); sea DER
    "spoleto":       ("Spolète",       2, (),     False),
    "civitavecchia": ("Civitavecchia", 1, (T,),   False),   # 2/5 side only; port INF
    "siena":         ("Sienne",        3, (),     False),
    "pisa":          ("Pise",          2, (L,),   False),   # port EN; sea DER (Pisa-Terracina: 2 seas)
}

# What the English rulebook itself says (it wins over the board text; all agree).
RULEBOOK_VALUES = {
    "ravenna": 2,      # "Red annexes Ravenna (value 2) from Florence, and must pay 3 Crowns."
    "terracina": 1,    # "Red annexes Terracina (port, value 1), which has 1 green Agent on it"
    "siena": 3,        # "Siena: 3 (City value) – 1 (Agent) = 2"
    "benevento": 2,    # "Benevento: 2 (City value) + 1 (enemy Agent) = 3"
    "parma": 1,        # "Parma: 1 (City value) + 1 (Troop) = 2"
    "palermo": 3,      # "Yellow can build a Cathedral in Palermo because this city has a base value of 3."
}
RULEBOOK_PORTS = {
    "terracina", "pisa",                      # "Red annexes Terracina (port, ...) from Pisa (port)"
    "ancona",                                 # "Green must retreat from Ancona, but cannot retreat
                                              #  by land; Green must pay 1 Ship per Troop"
}
RULEBOOK_PIRATES = {"ragusa", "ajaccio", "cagliari", "tunis"}   # "pirate ports" (Annex)
NOT_ON_3_4_SIDE = {"perugia", "civitavecchia"}   # their tiles "are not on that side" (Setup)


@pytest.fixture(scope="module")
def pack():
    return load_pack("base_3to5")


@pytest.fixture(scope="module")
def engine(pack):
    return Engine(pack)


def test_the_table_agrees_with_the_rulebook():
    assert len(TABLE) == 30
    for city, value in RULEBOOK_VALUES.items():
        assert TABLE[city][1] == value, city
    for city in RULEBOOK_PORTS | RULEBOOK_PIRATES:
        assert TABLE[city][2], city
    assert {c for c, row in TABLE.items() if row[3]} == RULEBOOK_PIRATES
    # the 30 value shields of the board: ten 1s, twelve 2s, seven 3s and one 4
    assert Counter(row[1] for row in TABLE.values()) == {1: 10, 2: 12, 3: 7, 4: 1}
    # "Note that some Cities have ports on two seas."
    assert any(len(row[2]) == 2 for row in TABLE.values())


def test_the_pack_has_the_30_cities_of_the_board(pack):
    cities = pack.data["map"].data["cities"]
    assert sorted(c["id"] for c in cities) == sorted(TABLE)
    assert {c["id"]: c["name_fr"] for c in cities} == {c: row[0] for c, row in TABLE.items()}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_city_values_in_play(engine, players):
    """The values the rules use (the engine's Board), at every player count. The 3/4 side's
    values are not in any source: map.yaml assumes those of the 2/5 side (a placeholder)."""
    board = engine.board(players)
    want = {c: row[1] for c, row in TABLE.items()}
    assert {c: board.value(c) for c in board.cities} == {c: want[c] for c in board.cities}
    if players == 5:
        assert set(board.cities) == set(TABLE)
    else:
        assert NOT_ON_3_4_SIDE.isdisjoint(board.cities)


@pytest.mark.parametrize("players", [4, 5])
def test_ports_and_seas(engine, players):
    board = engine.board(players)
    assert {c: set(board.seas_of(c)) for c in board.cities} == {c: set(TABLE[c][2]) for c in board.cities}
    assert board.ports == {c for c in board.cities if TABLE[c][2]}
    assert {c for c in board.cities if board.is_pirate(c)} == {c for c in board.cities if TABLE[c][3]}
    # pirate ports cannot be annexed; every other City can
    assert {c for c in board.cities if not board.is_annexable(c)} == RULEBOOK_PIRATES


def test_the_raw_map_data_matches_too(pack):
    """The same facts read straight from the data a Board is built from (both sides)."""
    data = pack.data["map"].data
    for side in ("side_25", "side_34"):
        board = Board(data, side)
        for c in board.cities:
            name, value, seas, pirate = TABLE[c]
            assert (board.value(c), set(board.seas_of(c)), board.is_pirate(c)) == (value, set(seas), pirate), (side, c)
