"""Each map/setup check code, on a small broken YAML text: right code, right line."""
from __future__ import annotations

import textwrap

import pytest

from rulespec.yamldata import load_yaml_text
from validator.map_checks import check_map, check_map_files

# A tiny valid board: two sides, two seas, four cities (gamma only on side_b).
MAP = textwrap.dedent("""\
    sides:
      - id: side_a
        name: "A"
        players: [3, 4]
      - id: side_b
        name: "B"
        players: [5]
    seas:
      - id: north
        name: North Sea
      - id: south
        name: South Sea
    sea_links:
      - between: [north, south]
        evidence: inferred
    cities:
      - id: alpha
        name: Alpha
        value: 2
        sides: [side_a, side_b]
        seas: [north]
        landmass: mainland
      - id: beta
        name: Beta
        aliases: [bet]
        value: 1
        sides: [side_a, side_b]
        landmass: mainland
        evidence: {value: board}
      - id: delta
        name: Delta
        value: 3
        sides: [side_a, side_b]
        seas: [south]
        landmass: island
      - id: gamma
        name: Gamma
        value: 4
        sides: [side_b]
        landmass: mainland
    roads:
      - {between: [alpha, beta], sides: [side_a, side_b], evidence: inferred}
      - {between: [beta, gamma], sides: [side_b]}
    """)

SETUP = textwrap.dedent("""\
    first_player: choose
    colours:
      - id: red
        starting_cities:
          - {city: alpha, troops: 1}
          - {city: beta, troops: 1, evidence: derived}
        agents_start: 2
        agents_max: 5
        troops_total: 6
        florins_start: 1
        control_discs: 18
        cortigiano_open: {left: 1, right: 2}
    player_counts:
      - players: 3
        board_side: side_a
        colours: [red]
        forbidden_cities: []
        returned_tiles: [gamma]
        rome_tile: {tile: neutral}
      - players: 5
        board_side: side_b
        colours: [red]
        returned_tiles: []
    """)


def doc(text, name="map.yaml"):
    return load_yaml_text(text, name)


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line containing `needle`."""
    hits = [i for i, ln in enumerate(text.splitlines(), 1) if needle in ln]
    return hits[nth - 1]


def only(diags, code):
    found = [d for d in diags if d.code == code]
    assert found, f"no {code} in {[d.render() for d in diags]}"
    return found


def test_base_fixtures_are_clean():
    assert [d.render() for d in check_map_files(doc(MAP), doc(SETUP, "setup.yaml"))] == []


# --- RS120 roads --------------------------------------------------------------------------

def test_rs120_road_to_unknown_city_with_suggestion():
    text = MAP.replace("{between: [beta, gamma]", "{between: [beta, gamme]")
    [d] = only(check_map(doc(text)), "RS120")
    assert d.span.line == line_of(text, "gamme")
    assert d.span.column == text.splitlines()[d.span.line - 1].index("gamme") + 1
    assert "gamme" in d.message and "did you mean 'gamma'" in d.hint
    assert "gamme" in d.source_line


def test_rs120_road_names_an_alias():
    text = MAP.replace("{between: [beta, gamma]", "{between: [bet, gamma]")
    [d] = only(check_map(doc(text)), "RS120")
    assert d.span.line == line_of(text, "[bet, gamma]")
    assert "alias of 'beta'" in d.hint


def test_rs120_road_to_itself():
    text = MAP.replace("{between: [beta, gamma], sides: [side_b]}", "{between: [gamma, gamma], sides: [side_b]}")
    [d] = only(check_map(doc(text)), "RS120")
    assert d.span.line == line_of(text, "[gamma, gamma]")
    assert "itself" in d.message


def test_rs120_duplicate_road_in_reverse_order():
    text = MAP + "  - {between: [beta, alpha], sides: [side_a]}\n"
    [d] = only(check_map(doc(text)), "RS120")
    assert d.span.line == line_of(text, "[beta, alpha]")
    assert "twice" in d.message
    assert f"line {line_of(text, '[alpha, beta]')}" in d.hint


def test_rs120_road_on_a_side_without_its_city():
    text = MAP.replace("{between: [beta, gamma], sides: [side_b]}", "{between: [beta, gamma], sides: [side_a, side_b]}")
    [d] = only(check_map(doc(text)), "RS120")
    ln = line_of(text, "[beta, gamma]")
    assert d.span.line == ln
    assert d.span.column == text.splitlines()[ln - 1].index("side_a") + 1
    assert "Gamma" in d.message and "'A' (side_a)" in d.message


def test_rs120_road_on_unknown_side():
    text = MAP.replace("{between: [beta, gamma], sides: [side_b]}", "{between: [beta, gamma], sides: [side_c]}")
    [d] = only(check_map(doc(text)), "RS120")
    assert d.span.line == line_of(text, "side_c")


# --- RS121 reachability -------------------------------------------------------------------

def test_rs121_city_with_no_road_and_no_port():
    text = MAP.replace("  - id: gamma\n", "  - id: epsilon\n    name: Epsilon\n    value: 1\n"
                       "    sides: [side_a]\n    landmass: mainland\n  - id: gamma\n")
    diags = check_map(doc(text))
    [d] = only(diags, "RS121")
    assert d.span.line == line_of(text, "id: epsilon")
    assert "Epsilon" in d.message and "'A' (side_a)" in d.message
    assert "road" in d.hint


def test_rs121_disconnected_only_at_3_players_via_setup():
    # On side_a, zeta hangs off beta; at 3 players beta is forbidden, so zeta is cut off.
    text = MAP.replace("  - id: gamma\n", "  - id: zeta\n    name: Zeta\n    value: 1\n"
                       "    sides: [side_a]\n    landmass: mainland\n  - id: gamma\n")
    text += "  - {between: [beta, zeta], sides: [side_a]}\n"
    setup = SETUP.replace("forbidden_cities: []", "forbidden_cities: [beta]").replace(
        "{city: beta, troops: 1, evidence: derived}", "{city: alpha, troops: 1}")
    diags = check_map(doc(text))
    assert not [d for d in diags if d.code == "RS121"]
    diags = check_map(doc(text), doc(setup, "setup.yaml"))
    [d] = only(diags, "RS121")
    assert d.span.line == line_of(text, "id: zeta")
    assert "at 3 players" in d.message


def test_rs121_disconnected_at_3_players_from_map_stars():
    text = MAP.replace("  - id: gamma\n", "  - id: zeta\n    name: Zeta\n    value: 1\n"
                       "    sides: [side_a]\n    landmass: mainland\n  - id: gamma\n")
    text = text.replace("    aliases: [bet]\n", "    aliases: [bet]\n    forbidden_at_3: true\n")
    text += "  - {between: [beta, zeta], sides: [side_a]}\n"
    [d] = only(check_map(doc(text)), "RS121")
    assert d.span.line == line_of(text, "id: zeta")


def test_rs121_city_on_undeclared_side():
    text = MAP.replace("    sides: [side_b]\n    landmass: mainland", "    sides: [side_bb]\n    landmass: mainland")
    d = only(check_map(doc(text)), "RS121")[0]
    assert d.span.line == line_of(text, "side_bb")
    assert "did you mean 'side_b'" in d.hint


# --- RS122 seas ---------------------------------------------------------------------------

def test_rs122_port_on_undeclared_sea():
    text = MAP.replace("    seas: [north]", "    seas: [nrth]")
    diags = check_map(doc(text))
    [d] = only(diags, "RS122")
    assert d.span.line == line_of(text, "seas: [nrth]")
    assert "did you mean 'north'" in d.hint
    assert "Alpha" in d.message


def test_rs122_sea_link_unknown_sea():
    text = MAP.replace("  - between: [north, south]", "  - between: [north, west]")
    [d] = only(check_map(doc(text)), "RS122")
    assert d.span.line == line_of(text, "[north, west]")
    assert "west" in d.message


def test_rs122_duplicate_sea_link():
    text = MAP.replace("    evidence: inferred\n", "    evidence: inferred\n  - between: [south, north]\n", 1)
    [d] = only(check_map(doc(text)), "RS122")
    assert d.span.line == line_of(text, "[south, north]")


# --- RS123 setup references ---------------------------------------------------------------

def _setup_diags(setup_text, map_text=MAP):
    return check_map(doc(map_text), doc(setup_text, "setup.yaml"))


def test_rs123_starting_city_does_not_exist():
    setup = SETUP.replace("{city: alpha, troops: 1}", "{city: alpah, troops: 1}")
    [d] = only(_setup_diags(setup), "RS123")
    assert d.span.line == line_of(setup, "alpah")
    assert d.span.file == "setup.yaml"
    assert "did you mean 'alpha'" in d.hint


def test_rs123_starting_city_not_on_the_side():
    setup = SETUP.replace("{city: beta, troops: 1, evidence: derived}", "{city: gamma, troops: 1}")
    diags = only(_setup_diags(setup), "RS123")
    assert [d.span.line for d in diags] == [line_of(setup, "city: gamma")]
    assert "not on board side 'A' (side_a)" in diags[0].message and "3 players" in diags[0].message


def test_rs123_starting_city_forbidden():
    setup = SETUP.replace("forbidden_cities: []", "forbidden_cities: [beta]")
    diags = [d for d in _setup_diags(setup) if d.code == "RS123" and d.severity == "error"]
    assert [d.span.line for d in diags] == [line_of(setup, "city: beta")]
    assert "forbidden" in diags[0].message


def test_rs123_forbidden_city_unknown_and_off_side():
    setup = SETUP.replace("forbidden_cities: []", "forbidden_cities: [omega, gamma]")
    diags = [d for d in _setup_diags(setup) if d.code == "RS123" and d.severity == "error"]
    ln = line_of(setup, "forbidden_cities: [omega")
    assert [d.span.line for d in diags] == [ln, ln]
    row = setup.splitlines()[ln - 1]
    assert [d.span.column for d in diags] == [row.index("omega") + 1, row.index("gamma") + 1]


def test_rs123_returned_tile_unknown_and_missing():
    setup = SETUP.replace("returned_tiles: [gamma]", "returned_tiles: [gamm]")
    diags = only(_setup_diags(setup), "RS123")
    ln = line_of(setup, "returned_tiles: [gamm]")
    assert [d.span.line for d in diags] == [ln, ln]
    assert "'gamm'" in diags[0].message and "did you mean 'gamma'" in diags[0].hint
    assert "Gamma is not on board side" in diags[1].message


def test_rs123_unknown_board_side():
    setup = SETUP.replace("board_side: side_b", "board_side: side_c")
    [d] = only(_setup_diags(setup), "RS123")
    assert d.span.line == line_of(setup, "side_c")


# --- RS124 values -------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [0, 5, 9])
def test_rs124_value_out_of_range(bad):
    text = MAP.replace("    value: 3\n", f"    value: {bad}\n")
    [d] = only(check_map(doc(text)), "RS124")
    assert d.span.line == line_of(text, f"value: {bad}")
    assert "Delta" in d.message and "1 to 4" in d.message


def test_rs124_value_range_from_the_map_file():
    text = "value_range: [1, 6]\n" + MAP.replace("    value: 3\n", "    value: 5\n")
    assert not [d for d in check_map(doc(text)) if d.code == "RS124"]
    text = "value_range: [1, 6]\n" + MAP.replace("    value: 3\n", "    value: 7\n")
    [d] = only(check_map(doc(text)), "RS124")
    assert d.span.line == line_of(text, "value: 7") and "1 to 6" in d.message


# --- RS101 duplicate ids ------------------------------------------------------------------

def test_rs101_duplicate_city_id():
    text = MAP.replace("  - id: gamma\n", "  - id: alpha\n    name: Alpha 2\n    value: 1\n"
                       "    sides: [side_b]\n    landmass: mainland\n  - id: gamma\n")
    [d] = only(check_map(doc(text)), "RS101")
    assert d.span.line == line_of(text, "id: alpha", 2)
    assert f"line {line_of(text, 'id: alpha')}" in d.hint


def test_rs101_duplicate_sea_id():
    text = MAP.replace("  - id: south\n    name: South Sea\n", "  - id: north\n    name: South Sea\n")
    d = only(check_map(doc(text)), "RS101")[0]
    assert d.span.line == line_of(text, "id: north", 2)


def test_rs101_sea_and_city_share_an_id():
    text = MAP.replace("  - id: gamma\n", "  - id: south\n    name: South\n    value: 1\n"
                       "    sides: [side_b]\n    landmass: mainland\n  - id: gamma\n")
    d = only(check_map(doc(text)), "RS101")[0]
    assert d.span.line == line_of(text, "id: south", 1)
    assert "same id as a city" in d.message


# --- RS100 schema first -------------------------------------------------------------------

def test_schema_errors_stop_semantic_checks():
    # A misspelt field (schema) and a duplicate road (semantic): only the schema error shows.
    text = MAP.replace("    landmass: island", "    landmas: island") + \
        "  - {between: [beta, alpha], sides: [side_a]}\n"
    diags = check_map_files(doc(text), doc(SETUP, "setup.yaml"))
    assert {d.code for d in diags} == {"RS100"}
    assert line_of(text, "landmas: island") in {d.span.line for d in diags}


def test_schema_rejects_unknown_evidence_tag_and_field():
    text = MAP.replace("evidence: {value: board}", "evidence: {value: guess}")
    diags = check_map_files(doc(text))
    assert [d.code for d in diags] == ["RS100"]
    assert diags[0].span.line == line_of(text, "value: guess")
    text = MAP.replace("evidence: {value: board}", "evidence: {vlaue: board}")
    assert [d.code for d in check_map_files(doc(text))] == ["RS100"]


def test_bad_setup_schema_still_checks_the_map():
    setup = SETUP.replace("agents_start: 2", "agents_start: two")
    text = MAP.replace("    value: 3\n", "    value: 5\n")
    codes = sorted(d.code for d in check_map_files(doc(text), doc(setup, "setup.yaml")))
    assert codes == ["RS100", "RS124"]


BAD_SETUP = "player_counts: [{players: 3, board_side: 4, forbidden_cities: x}]\ncolours: 7\n"
BAD_SETUP_2 = "colours: [{id: red, starting_cities: 3}]\n"


# Each malformed map.yaml with what must be reported:
#   semantic   check_map alone (it runs after the schema, so shapes it cannot read are skipped,
#              not guessed at): the exact (code, line, column) set;
#   schema     check_map_files: only RS100 for map.yaml (schema errors stop the semantic checks),
#              at least at these (line, column) places.
MALFORMED = [
    pytest.param("", set(), {(1, 1)}, id="empty-document"),
    pytest.param("cities: 3\n", set(), {(1, 9)}, id="cities-not-a-list"),
    pytest.param("sides: [side_a]\ncities: [alpha]\nroads: [[a, b]]\n", set(),
                 {(1, 9), (2, 10), (3, 9)}, id="items-not-mappings"),
    pytest.param("sides: [{id: 3}]\nseas: [{id: [x]}]\ncities: [{id: a, value: high, sides: side_a, seas: north}]\n",
                 set(), {(1, 14), (2, 13), (3, 25), (3, 38), (3, 52)}, id="wrong-field-types"),
    pytest.param("cities: [{id: a, sides: [s]}]\nroads: [{between: [a, b, c], sides: s}, {between: a}]\n"
                 "sea_links: [{between: 1}]\n",
                 {("RS121", 1, 26), ("RS120", 2, 23), ("RS120", 2, 26)},   # side 's', cities b and c
                 {(2, 19), (2, 51), (3, 23)}, id="unknown-side-and-cities"),
    pytest.param("value_range: 4\ncities: [{id: a, value: 9, side_values: [1]}]\n",
                 {("RS124", 2, 25)},      # value 9 outside the default range 1-4
                 {(1, 14), (2, 41)}, id="value-out-of-range"),
]


@pytest.mark.parametrize("text,semantic,schema", MALFORMED)
def test_malformed_content_is_reported_not_raised(text, semantic, schema):
    d = doc(text)
    got = check_map(d)
    assert {(x.code, x.span.line, x.span.column) for x in got} == semantic, [x.render() for x in got]
    assert all(x.span.file == "map.yaml" for x in got)
    # a setup.yaml that fails its own schema adds nothing here (the schema step reports it)
    assert [x.render() for x in check_map(d, doc(BAD_SETUP, "setup.yaml"))] == [x.render() for x in got]
    diags = check_map_files(d, doc(BAD_SETUP_2, "setup.yaml"))
    in_map = [x for x in diags if x.span.file == "map.yaml"]
    assert in_map and {x.code for x in in_map} == {"RS100"}, [x.render() for x in diags]
    assert schema <= {(x.span.line, x.span.column) for x in in_map}, [x.render() for x in in_map]
    # the setup's own schema error: starting_cities is not a list
    assert ("RS100", 1, 38) in {(x.code, x.span.line, x.span.column) for x in diags if x.span.file == "setup.yaml"}
