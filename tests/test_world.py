"""The world a pack declares (rulespec/world.py): kinds, fields, records, zones, enums.

The base pack's content/base_3to5/rules/world.rules describes the state the interpreter keeps:
these tests hold the declarations to the real state (every declared field is a key of the
records, in the declared order), and show what a designer sees for a field that is wrong.
"""
from __future__ import annotations

import pytest

from interpreter.api import engine_for
from rulespec.checker import Checker
from rulespec.pack import load_pack
from rulespec.world import build_world, parse_type
from validator.static import validate_pack


@pytest.fixture(scope="module")
def base():
    return load_pack("base_3to5")


@pytest.fixture(scope="module", params=[3, 4, 5])
def state(request):
    eng = engine_for("base_3to5")
    colours = ["red", "yellow", "green", "blue", "white"][:request.param]
    return eng.new_game(colours, seed=1)


def _stored(kind):
    """The keys a record keeps: not a sparse field, nor one printed on the map (`@map`) or on
    the side's board (`@printed`)."""
    return [f.key for f in kind.fields.values() if not f.sparse and not f.on_map and not f.on_board]


def test_declared_fields_are_the_stored_keys_in_order(base, state):
    w = build_world(base)
    assert not w.diagnostics
    for kind, store in (("side", "p"), ("city", "cities"), ("alliance", "alliances"), ("track", "tracks")):
        k = w.kinds[kind]
        assert k.store == store
        assert state[store], store
        for rec in state[store].values():
            keys = list(rec)
            declared = _stored(k)
            missing = [key for key in declared if key not in keys]
            assert not missing, (kind, missing)
            # the record's keys that are fields come in the declared order
            assert [key for key in keys if key in declared] == declared, kind


def test_record_types_are_the_stored_records(base, state):
    w = build_world(base)
    for pl in state["p"].values():
        for room in pl["rooms"]:
            assert list(room) == _stored(w.records["room"])
        for space in pl["court"]:
            # a sparse field (court_space.shaded: a scenario may leave it out) is stored once
            # something sets it, and the setup does: the declared order, sparse fields included
            declared = [f.key for f in w.records["court_space"].fields.values()]
            assert [k for k in declared if k in space] == list(space)
            assert set(_stored(w.records["court_space"])) <= set(space)
        for entry in pl["tiles"]:
            assert list(entry) == ["id"] + list(w.zones["tiles"].entry)


def test_zones_are_where_the_state_keeps_them(base, state):
    w = build_world(base)
    supply = [z.key for z in w.zones.values() if not z.owner]
    assert supply == list(state["supply"])
    for z in w.zones.values():
        if z.owner == "side":
            assert all(z.key in pl for pl in state["p"].values()), z.name


def test_player_var_is_a_sparse_field_of_the_sides(base):
    f = build_world(base).kinds["side"].fields["patronage_type_taken"]
    assert f.sparse and f.home == "vars"


@pytest.mark.parametrize("text,back,checker", [
    ("int", "int", "number"), ("side?", "side?", "player?"), ("list of city", "list of city", "set:city"),
    ("count by side", "count by side", "any"), ("map str to list of card", "map str to list of card", "any"),
    ("index of rooms", "index of rooms", "any"), ("card?", "card?", "card?"), ("bool", "bool", "bool"),
])
def test_field_types_parse(text, back, checker):
    t = parse_type(text)
    assert str(t) == back and t.checker() == checker


@pytest.mark.parametrize("text", ["", "list of", "count by", "Side", "map str", "int??", "list city"])
def test_not_a_field_type(text):
    assert parse_type(text) is None


OVERLAY = {
    "pack.yaml": "id: fortified\nname: Fortified\nversion: 0.1.0\nextends: base_3to5\n",
    "rules/walls.rules": """
        field walls "Fortification level" { on: city; type: int; default: 0 }
        formula wall_bonus(c: city) { value: c.walls + 1 }
        scoring walls_pp "Walls" { points: sum(wall_bonus(c) for c in player.cities) }
    """,
}


def test_an_overlay_adds_a_field(make_pack):
    report = validate_pack(make_pack("fortified", OVERLAY))
    assert not report.errors, [str(d) for d in report.errors]


def test_an_unknown_field_suggests_the_declared_one(make_pack):
    files = dict(OVERLAY)
    files["rules/walls.rules"] = files["rules/walls.rules"].replace("c.walls + 1", "c.wals + 1")
    report = validate_pack(make_pack("fortified", files))
    bad = [d for d in report.errors if d.code == "RS105"]
    assert len(bad) == 1 and "wals" in bad[0].message and "walls" in bad[0].hint
    assert bad[0].span.line == 2


def test_a_set_of_a_declared_field_is_typed(make_pack):
    files = dict(OVERLAY)
    files["rules/walls.rules"] += """
        procedure fortify(c: city) { effect: { set c.walls = "high" } }
        action build_walls { effect: { run(fortify, c: florence) } }
    """
    pack = load_pack(make_pack("fortified", files))
    diags = Checker(pack).run()
    assert any(d.code == "RS106" and "walls" in d.message for d in diags), [str(d) for d in diags]


def test_world_declarations_are_not_values(base):
    """A field's id is not a name in expressions: `cathedral` stays the tile type."""
    c = Checker(base)
    assert c.names.get("cathedral") != "field"
    assert "florins" not in c.names


def test_the_language_docs_example_is_a_valid_overlay(make_pack):
    """The example of docs/language.md "Declaring the world" validates as an overlay of the
    base pack (no error; its formula is unused, a warning)."""
    from doc_examples import rules_example
    example = rules_example("### Declaring the world")
    assert "kind castle" in example and "zone siege_engines" in example
    report = validate_pack(make_pack("castles", {
        "pack.yaml": "id: castles\nname: Castles\nversion: 0.1.0\nextends: base_3to5\n",
        "rules/castles.rules": example}))
    assert not report.errors, [str(d) for d in report.errors]
    world = build_world(report.pack)
    assert list(world.kinds["castle"].fields) == ["sieged_by", "gate"]
    assert list(world.kinds["city"].fields)[-2:] == ["walls", "sieged_by"]
    assert world.enums["wall_state"] == ["standing", "breached"]


LINES = [
    'field florins: int = 1 on side "Florins in the treasury" @setup("florins_start") @min(0)',
    'field trophies_from: list of side on side @key("trophies")',
    'field agent: side? on city, alliance "Whose Agent is there"',
    'field troops: count by side on city',
    'field year_steps: map side to list of int on track @sparse',
    'field marker: index of rooms = none on side',
    'field cathedral: bool = false on city "A Cathedral pawn" @rulebook',
]


def test_the_one_line_field_is_the_block_declaration_and_prints_back(make_pack):
    """`field F: T = d on K` resolves to the same declaration as the block form, and `show`
    prints it back in one line (rulespec.unparse.field_line)."""
    from rulespec import unparse
    kinds = "kind track { }\n"            # (minimal declares city and alliance, and some fields)
    lines = [line.replace("field ", "field my_", 1) for line in LINES]
    one = load_pack(make_pack("one", {
        "pack.yaml": "id: one\nname: One\nversion: 0.1.0\nextends: minimal\n",
        "rules/w.rules": kinds + "\n".join(lines) + "\n"}))
    blocks = []
    for line in lines:
        d = one.decls[("field", line.split(":")[0].split()[1])]
        assert unparse.declaration(d) == line
        body = "; ".join(f"{k}: {unparse.value(fv.value)}" for k, fv in d.fields.items())
        title = f' "{d.title}"' if d.title else ""
        blocks.append(f"field {d.id}{title}{unparse.annotations(d.annotations)} {{ {body} }}")
    block = load_pack(make_pack("block", {
        "pack.yaml": "id: block\nname: Block\nversion: 0.1.0\nextends: minimal\n",
        "rules/w.rules": kinds + "\n".join(blocks) + "\n"}))
    for key, d in one.decls.items():
        if d.kind != "field" or d.pack != "one":
            continue
        b = block.decls[key]
        assert {k: unparse.value(f.value) for k, f in d.fields.items()} == \
            {k: unparse.value(f.value) for k, f in b.fields.items()}
        assert unparse.declaration(b) == unparse.declaration(d)


def test_an_overlay_modifies_and_removes_a_one_line_field(make_pack):
    report = validate_pack(make_pack("rich", {
        "pack.yaml": "id: rich\nname: Rich\nversion: 0.1.0\nextends: base_3to5\n",
        "rules/rich.rules": "modify field war_tokens { default: 2 }\nremove field year_steps\n"}))
    world = build_world(report.pack)
    assert world.kinds["side"].fields["war_tokens"].default.value == 2
    assert "year_steps" not in world.kinds["track"].fields and "pos" in world.kinds["track"].fields


# ------------------------------------------------------------------ the fields at play (stage 3)
WALLS = {
    "pack.yaml": "id: walls\nname: Walls\nversion: 0.1.0\nextends: base_3to5\n",
    "rules/walls.rules": """
        field walls: int = 2 on city "Fortification level" @min(0)
        field hoard: int = 7 on side @setup("florins_start")
        formula wall_bonus(c: city) { value: c.walls + 1 }
    """,
}


@pytest.fixture(scope="module")
def walls(tmp_path_factory):
    from conftest import write_pack
    from interpreter.api import Engine
    eng = Engine(load_pack(write_pack(tmp_path_factory.mktemp("w") / "walls", WALLS)))
    st = eng.new_game(["red", "yellow", "green"], seed=3)
    return eng, st


def test_a_field_an_overlay_adds_is_in_every_record(walls):
    eng, st = walls
    assert {c["walls"] for c in st["cities"].values()} == {2}
    assert all(list(c)[-1] == "walls" for c in st["cities"].values())     # after the stored fields
    start = {c["id"]: c.get("florins_start") for c in eng.pack.data["setup"].data["colours"]}
    assert all(pl["hoard"] == start[p] for p, pl in st["p"].items())      # @setup: from setup.yaml


def test_a_declared_field_is_read_and_set_through_the_world(walls):
    import copy
    from interpreter.vm import Abort
    eng, st = walls
    rt = eng.runtime(copy.deepcopy(st))
    assert rt.formula("wall_bonus", ["florence"], {}, {}) == 3
    rt.set_attr("city", "florence", "walls", -4, None)          # @min(0)
    assert rt.state["cities"]["florence"]["walls"] == 0
    rt.set_attr("city", "florence", "walls", "3", None)         # an int field keeps an int
    assert rt.formula("wall_bonus", ["florence"], {}, {}) == 4
    assert rt.attr("florence", "walls", {}) == 3                # a value typed `any`
    rt.set_attr("player", "red", "florins", -2, None)          # the base pack's @min(0)
    assert rt.state["p"]["red"]["florins"] == 0
    rt.set_attr("city", "florence", "cathedral", 1, None)
    assert rt.state["cities"]["florence"]["cathedral"] is True
    with pytest.raises(Abort):
        rt.formula("wall_bonus", ["atlantis"], {}, {})          # a bad id: an illegal move


def test_a_count_field_set_whole_drops_its_zero_counts(walls):
    import copy
    from interpreter import world_store
    eng, st = walls
    rt = eng.runtime(copy.deepcopy(st))
    slot = eng.rs.slot("city", "troops")
    world_store.put(rt, slot, "florence", {"red": 2, "yellow": 0, "green": 1})
    assert rt.state["cities"]["florence"]["troops"] == {"red": 2, "green": 1}


# ------------------------------------------------------------------ method formulas (stage 4)
def test_method_formulas_read_as_attributes(base, state):
    """player.cities, city_count, alliances, troops_available and trophies are pack formulas
    now (world.rules): what they give is what the state says."""
    eng = engine_for("base_3to5")
    rt = eng.runtime(state)
    for p in state["players"]:
        env = {"player": p}
        mine = [c for c, rec in state["cities"].items() if rec["controller"] == p]
        assert mine and rt.method("cities", p, env) == mine
        assert rt.method("city_count", p, env) == len(mine)
        assert rt.method("troops_available", p, env) == state["p"][p]["troops_reserve"]
        assert rt.method("trophies", p, env) == len(state["p"][p]["trophies"])
        assert rt.method("alliances", p, env) == []
        assert rt.f_find("cities", "controller", p) == mine


def test_a_method_formula_is_typed_by_its_value(base):
    methods = Checker(base).method_types()
    assert methods[("player", "cities")] == "set:city"
    assert methods[("player", "city_count")] == "number"
    assert methods[("player", "alliances")] == "set:alliance"


def test_find_names_a_kind_and_a_stored_field(make_pack):
    files = dict(OVERLAY)
    files["rules/walls.rules"] += """
        formula strongholds(p: side) { value: find(city, wals, p) }
        formula in_towns(p: side) { value: find(town, controller, p) }
    """
    report = validate_pack(make_pack("fortified", files))
    bad = sorted((d.span.line, d.code, d.message) for d in report.errors)
    assert [(c, "wals" in m or "town" in m) for _, c, m in bad] == [("RS105", True), ("RS105", True)], bad


def test_a_formula_without_parameters_is_called_by_its_bare_name(make_pack):
    from interpreter.api import Engine
    files = dict(OVERLAY)
    files["rules/walls.rules"] += """
        formula base_walls { value: 2 }
        formula walls_of(c: city) { value: c.walls + base_walls }
    """
    report = validate_pack(make_pack("fortified", files))
    assert not report.errors, [str(d) for d in report.errors]
    eng = Engine(report.pack)
    rt = eng.runtime(eng.new_game(["red", "yellow", "green"], seed=1))
    assert rt.formula("walls_of", ["florence"], {}, {}) == 2
    assert rt.method("walls_of", "florence", {}) == 2


# ------------------------------------------------------------------ records of a list (stage 8)
def test_a_record_of_a_list_is_a_ref_with_fields_and_an_index(state):
    """`red.room2` is index 2 of red's `rooms`: its fields are the stored record's, `index` is
    its position, `player.rooms` lists the refs in order."""
    import copy
    from interpreter import world_store
    from interpreter.vm import Abort
    eng = engine_for("base_3to5")
    rt = eng.runtime(copy.deepcopy(state))
    me = next(iter(state["p"]))
    n = len(state["p"][me]["rooms"])
    assert rt.attr(me, "rooms", {}) == [f"{me}.room{i}" for i in range(n)]
    rt.state["p"][me]["rooms"][2]["impr"] = "x#1"
    assert rt.attr(f"{me}.room2", "improvement", {}) == "x#1"     # field improvement @key("impr")
    assert rt.attr(f"{me}.room2", "index", {}) == 2
    assert rt.f_location("x#1") == [f"{me}.room2", "room.improvement"]
    assert rt.formula("room", ["x#1"], {}, {}) == f"{me}.room2"
    assert rt.formula("space", ["x#1"], {}, {}) == "improvement"
    assert rt.f_location("nowhere#1") == [None, None]
    rt.set_attr("room", f"{me}.room3", "agent", "yellow", None)
    assert rt.state["p"][me]["rooms"][3]["agent"] == "yellow"
    assert rt.f_owner_of(f"{me}.room3") == me
    for bad in (f"{me}.room{n}", "atlantis.room0", f"{me}.hall1", 7):
        assert world_store.parse_ref(rt, bad) is None
        with pytest.raises(Abort):
            world_store.the_ref(rt, bad)


def test_location_finds_a_card_wherever_it_is_kept(state):
    """location(x) follows the World: holder fields of records of lists, then owned zones; the
    same answer in and out of a read-only window (where it is one memoised index)."""
    import copy
    eng = engine_for("base_3to5")
    rt = eng.runtime(copy.deepcopy(state))
    me = list(state["p"])[-1]
    pl = rt.state["p"][me]
    spaces = [i for i, s in enumerate(pl["court"]) if s["card"] is None]
    pl["court"][spaces[0]]["card"] = "y#1"
    pl["outside"].append("z#1")
    pl["rooms"][0]["card"] = "w#1"
    want = {"y#1": [f"{me}.court_space{spaces[0]}", "court_space.card"], "z#1": [me, "outside"],
            "w#1": [f"{me}.room0", "room.action_card"]}
    for window in (False, True):
        opened = rt.reading() if window else False
        assert {x: rt.f_location(x) for x in want} == want
        assert rt.formula("space", ["y#1"], {}, {}) == pl["court"][spaces[0]]["side"]
        assert rt.formula("space", ["z#1"], {}, {}) == "outside"
        assert rt.formula("space", ["w#1"], {}, {}) == "action"
        rt.done_reading(opened)


def test_an_index_field_keeps_the_position_and_reads_the_record(state):
    import copy
    from interpreter.vm import Abort
    eng = engine_for("base_3to5")
    rt = eng.runtime(copy.deepcopy(state))
    me, other = list(state["p"])[:2]
    rt.set_attr("player", me, "marker", f"{me}.room4", None)
    assert rt.state["p"][me]["marker"] == 4                     # stored as the index
    assert rt.attr(me, "marker", {}) == f"{me}.room4"
    with pytest.raises(Abort, match="not one of the rooms"):
        rt.set_attr("player", me, "marker", f"{other}.room1", None)     # another House's Room
    assert rt.state["p"][me]["marker"] == 4
    rt.set_attr("player", me, "marker", None, None)
    assert rt.attr(me, "marker", {}) is None
    assert eng.rs.slot("player", "marker").checker_type == "room?"


def test_move_marker_wraps_round_the_palace_and_frees_the_bottoms():
    """move_marker is pack code (palace.rules): last_room keeps where it was, the marker goes
    n Rooms clockwise round the Palace, every Room's `used` is emptied."""
    import copy
    from interpreter import vm
    eng = engine_for("base_3to5")
    s = eng.new_game(["red", "yellow", "green"], seed=1)
    s = copy.deepcopy(s)
    pl = s["p"]["red"]
    n = len(pl["rooms"])
    pl["marker"], pl["rooms"][1]["used"] = n - 1, {"card": "war"}
    s["vm"]["frames"], s["vm"]["pending"] = [], None           # nothing else to run
    rt = eng.runtime(s)
    block, env = rt.verb("move_marker", {"player": "red"}, [2], {}, None)
    vm.push(rt, block, env, scope=True)
    vm.run(rt)
    assert (pl["last_room"], pl["marker"]) == (n - 1, 1)
    assert all(r["used"] == {} for r in pl["rooms"])


def test_an_index_of_something_not_a_list_of_records_is_rs105(make_pack):
    report = validate_pack(make_pack("bad_index", {
        "pack.yaml": "id: bad_index\nname: x\nversion: 0.1.0\nextends: base_3to5\n",
        "rules/x.rules": "field favourite: index of florins on side\n",
    }))
    bad = [(d.code, d.span.line) for d in report.errors]
    assert ("RS105", 1) in bad, [d.render() for d in report.errors]
