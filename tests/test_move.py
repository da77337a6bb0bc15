"""The generic `move(THING, PLACE)` verb (interpreter/verbs.py; issue 16 stage 6): a thing
leaves its one place and enters a zone (ordered, sorted, grouped by catalogue id, with entry
fields) or a holder field, or leaves the game. Run on the base pack's declared zones
(content/base_3to5/rules/world.rules) through procedures of a small overlay; a bad target is
a positioned checker error or an Abort, never a traceback."""
from __future__ import annotations

import copy
import textwrap
from functools import lru_cache

import pytest

from interpreter import vm
from interpreter.api import Engine
from rulespec.errors import Span
from rulespec.pack import load_pack
from validator.static import validate_pack

COLOURS = ["red", "yellow", "green"]

TEST_RULES = """\
procedure t_take(x) "Beside the Palace" { effect: { move(x, player.outside) } }
procedure t_top "The top of the stack, beside the Palace" { effect: { move(indulgence_stack[0], player.outside) } }
procedure t_at(n: number) "Position n of the stack" { effect: { move(indulgence_stack[n], player.outside) } }
procedure t_on_top(x) "Back on top" { effect: { move(x, indulgence_stack[0]) } }
procedure t_at_bottom(x) "Back at the bottom" { effect: { move(x, indulgence_stack) } }
procedure t_display(x) "Back to the display" { effect: { move(x, display) } }
procedure t_domain(x, tired: bool = false) "Into the Domain" { effect: { move(x, player.tiles, exhausted: tired) } }
procedure t_room(x, r: room) "Onto a Room" { effect: { move(x, r.indulgence) } }
procedure t_out_of_room(r: room) "Out of the game" { effect: { move(r.indulgence, none) } }
procedure t_gone(x) "Out of the game" { effect: { move(x, none) } }
formula t_tile_tired(t: tile) "A typed read of an entry field" { value: t.exhausted }
formula t_card_tired(c: card) "The same for a card on a Cortigiano space" { value: c.exhausted }
"""


def overlay(make_pack, rules: str, name: str = "move_test"):
    return make_pack(name, {"pack.yaml": f"id: {name}\nname: Move test\nversion: 0.1.0\nextends: base_3to5\n",
                            "rules/test.rules": rules})


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("packs")
    from tests.conftest import write_pack
    return Engine(load_pack(write_pack(root / "move_test", {
        "pack.yaml": "id: move_test\nname: Move test\nversion: 0.1.0\nextends: base_3to5\n",
        "rules/test.rules": TEST_RULES})))


@lru_cache(maxsize=None)
def _start(engine) -> dict:
    return engine.new_game(COLOURS, seed=1)


@pytest.fixture
def st(engine):
    return copy.deepcopy(_start(engine))


def run(engine, st, name, player="red", **args):
    rt = engine.runtime(st)
    st["vm"] = {"frames": [], "pending": None}
    block, env = rt.verb("run", {"player": player}, [name], args, Span("<test>"))
    vm.push(rt, block, env, scope=True)
    vm.run(rt)


# ------------------------------------------------------------------ ordered zones
def test_the_top_of_an_ordered_zone_is_position_0(engine, st):
    stack = list(st["supply"]["indulgences"])
    run(engine, st, "t_top")
    assert st["supply"]["indulgences"] == stack[1:]
    assert st["p"]["red"]["outside"] == [stack[0]]
    run(engine, st, "t_at", n=-1)                       # a negative position counts from the end
    assert st["p"]["red"]["outside"] == [stack[0], stack[-1]]
    assert st["supply"]["indulgences"] == stack[1:-1]


def test_a_position_puts_a_thing_there_and_no_position_at_the_end(engine, st):
    stack = list(st["supply"]["indulgences"])
    run(engine, st, "t_top")
    run(engine, st, "t_on_top", x=stack[0])
    assert st["supply"]["indulgences"] == stack        # back where it was
    run(engine, st, "t_top")
    run(engine, st, "t_at_bottom", x=stack[0])
    assert st["supply"]["indulgences"] == stack[1:] + [stack[0]]
    assert st["p"]["red"]["outside"] == []


def test_a_position_past_the_end_is_an_abort_and_changes_nothing(engine, st):
    before = copy.deepcopy(st)
    n = len(st["supply"]["indulgences"])
    with pytest.raises(vm.Abort, match=f"no thing at position {n}"):
        run(engine, st, "t_at", n=n)
    del st["vm"], before["vm"]
    assert st == before


# ------------------------------------------------------------------ grouped, sorted zones
def test_a_catalogue_id_takes_the_first_copy_of_its_pile(engine, st):
    pile = list(st["supply"]["notables"]["bishop"])
    run(engine, st, "t_take", x="bishop")
    assert st["p"]["red"]["outside"] == [pile[0]]
    assert st["supply"]["notables"]["bishop"] == pile[1:]


def test_a_sorted_grouped_zone_puts_a_copy_back_in_its_place(engine, st):
    pile = list(st["supply"]["notables"]["bishop"])
    run(engine, st, "t_take", x=pile[0])
    run(engine, st, "t_take", x=pile[2])
    assert st["supply"]["notables"]["bishop"] == [pile[1]] + pile[3:]
    run(engine, st, "t_display", x=pile[2])
    run(engine, st, "t_display", x=pile[0])
    assert st["supply"]["notables"]["bishop"] == pile          # sorted again, not appended
    assert list(st["supply"]["notables"]) == list(_start(engine)["supply"]["notables"])   # piles keep their order


# ------------------------------------------------------------------ entry fields
def test_a_zone_with_entry_fields_keeps_them_with_the_thing(engine, st):
    t = next(x for x in st["supply"]["tiles"] if x.startswith("guild"))
    run(engine, st, "t_domain", x=t, tired=True)
    assert st["p"]["red"]["tiles"][-1] == {"id": t, "exhausted": True}
    assert list(st["p"]["red"]["tiles"][-1]) == ["id", "exhausted"]      # the stored key order
    assert t not in st["supply"]["tiles"]
    run(engine, st, "t_domain", x=t, player="yellow")      # moving resets them: the default
    assert st["p"]["yellow"]["tiles"][-1] == {"id": t, "exhausted": False}
    assert all(e["id"] != t for e in st["p"]["red"]["tiles"])


# ------------------------------------------------------------------ holder fields
def test_a_holder_field_takes_one_thing_and_gives_it_back(engine, st):
    top = st["supply"]["indulgences"][0]
    run(engine, st, "t_room", x=top, r="red.room1")
    assert st["p"]["red"]["rooms"][1]["indulgence"] == top
    assert top not in st["supply"]["indulgences"]
    second = st["supply"]["indulgences"][0]
    with pytest.raises(vm.Abort, match="already holds"):
        run(engine, st, "t_room", x=second, r="red.room1")
    assert st["supply"]["indulgences"][0] == second        # refused: nothing moved
    run(engine, st, "t_out_of_room", r="red.room1")
    assert st["p"]["red"]["rooms"][1]["indulgence"] is None
    assert top not in st["supply"]["indulgences"]           # out of the game
    with pytest.raises(vm.Abort, match="holds nothing"):
        run(engine, st, "t_out_of_room", r="red.room1")


def test_leaving_a_holder_resets_the_records_entry_fields(engine, st):
    space = st["p"]["red"]["court"][0]
    space["card"], space["exhausted"] = "bishop#5", True
    st["supply"]["notables"]["bishop"].remove("bishop#5")
    run(engine, st, "t_display", x="bishop#5")
    assert space == {**space, "card": None, "exhausted": False}
    assert st["supply"]["notables"]["bishop"][-1] == "bishop#5"


@pytest.mark.parametrize("bad", ["red.room99", "red.nothing1", "nowhere"])
def test_a_record_that_is_not_there_is_an_abort(engine, st, bad):
    with pytest.raises(vm.Abort, match="not a record that holds things"):
        run(engine, st, "t_room", x=st["supply"]["indulgences"][0], r=bad)


def test_a_thing_in_no_place_is_an_abort(engine, st):
    with pytest.raises(vm.Abort, match="not in any place"):
        run(engine, st, "t_gone", x="no_such_card#1")


# ------------------------------------------------------------------ reading and setting entry fields
def tired(engine, st, x, typed):
    rt = engine.runtime(st)
    if typed:
        return rt.formula(typed, (x,), {}, {"player": "red"})
    return rt.attr(x, "exhausted", {"player": "red"})


@pytest.mark.parametrize("typed", [None, "t_tile_tired"])
def test_an_entry_field_reads_where_the_thing_is_else_its_default(engine, st, typed):
    t = st["p"]["red"]["tiles"][0]["id"]
    assert tired(engine, st, t, typed) is False
    st["p"]["red"]["tiles"][0]["exhausted"] = True
    assert tired(engine, st, t, typed) is True
    supply_tile = st["supply"]["tiles"][0]
    assert tired(engine, st, supply_tile, typed) is False       # a zone without the field: the default


def test_a_records_entry_field_reads_and_flips_with_its_card(engine, st):
    space = st["p"]["red"]["court"][0]
    space["card"], space["exhausted"] = "bishop#5", True
    st["supply"]["notables"]["bishop"].remove("bishop#5")
    assert tired(engine, st, "bishop#5", "t_card_tired") is True
    run(engine, st, "flip", x="bishop#5")                       # the pack's procedure: the other side
    assert space["exhausted"] is False
    run(engine, st, "flip", x="bishop#5", side="exhausted")
    run(engine, st, "flip", x="bishop#5", side="exhausted")     # the side given, twice: still that side
    assert space["exhausted"] is True and tired(engine, st, "bishop#5", None) is True


def test_setting_an_entry_field_where_the_place_has_none_is_an_abort(engine, st):
    run(engine, st, "t_take", x="bishop")
    x = st["p"]["red"]["outside"][0]
    with pytest.raises(vm.Abort, match="not in a place that keeps 'exhausted'"):
        run(engine, st, "flip", x=x)
    assert st["p"]["red"]["outside"] == [x]


# ------------------------------------------------------------------ the checker
def findings(make_pack, rules: str) -> list:
    report = validate_pack(overlay(make_pack, rules))
    return [(d.code, d.message, d.hint, d.span.line, d.span.column) for d in report.errors]


def test_the_test_procedures_are_clean(make_pack):
    assert findings(make_pack, TEST_RULES) == []


def test_a_bad_target_is_a_positioned_error(make_pack):
    got = findings(make_pack, textwrap.dedent("""\
        procedure p(x) "Bad targets" {
          effect: {
            move(x, player.florins)
            move(x, display[0])
            move(x, player.tiles, shiny: true)
            move(x, cities)
            move(x, token_supply)
            move(x, city_count.tiles)
          }
        }
        """))
    by_line = {line: (code, msg, hint, col) for code, msg, hint, line, col in got}
    assert by_line[3][:2] == ("RS106", "`move` puts a thing into a zone, a field that holds a thing, or none")
    assert by_line[3][3] == 13 and "display" in by_line[3][2] and "room.action_card" in by_line[3][2]
    assert by_line[4][0] == "RS106" and "no position" in by_line[4][1]
    assert by_line[5][0] == "RS107" and "shiny" in by_line[5][1] and "exhausted" in by_line[5][2]
    assert by_line[6][0] == "RS106"
    assert by_line[7][0] == "RS106" and "counted" in by_line[7][1]
    assert 8 in by_line
