"""Randomness as data (issue 16, stage 12): `die` declarations, `roll DIE as NAME`,
`random x in S { ... }`, `shuffle(ZONE)` and `first_player: random` all draw from the seeded
RNG the state carries (interpreter/rng.py), so a game replays bit for bit; a scenario fixes
the outcomes it needs (`rolls:`, `picks:`). Played on the small pack tests/packs/dice_min."""
from __future__ import annotations

import textwrap
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from interpreter import compiler as C
from interpreter import rng, vm
from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.replay import replay, state_hash, write_log
from interpreter.scenario import run_scenario
from interpreter.state import dumps
from rulespec.errors import RulespecError, Span
from rulespec.pack import load_pack
from validator.static import validate_pack

PACKS = Path(__file__).resolve().parent / "packs"
COLOURS = ["red", "yellow", "green"]


@lru_cache(maxsize=None)
def engine() -> Engine:
    return Engine(load_pack(PACKS / "dice_min", [PACKS]))


# procedures the tests run, in an overlay of dice_min (they would be unused in the pack itself)
TEST_RULES = """\
procedure roll_many(n: number = 6000) "Roll many times" {
  effect: { repeat n { roll d6 as r } }
}
procedure pick_from_nothing "Pick from an empty list" {
  effect: {
    random x in [] { gain(florin, 10) }
    random c in cities where c.value > 100 { gain(florin, 10) }
  }
}
procedure shuffle_a_number "Shuffle what is not a list" {
  effect: { shuffle(supply.war_tokens) }
}
procedure shuffle_own "Shuffle a list of the side's" {
  effect: { shuffle(player.starting_cities) }
}
procedure shuffle_of(owner: any) "Shuffle a list of something named by id" {
  effect: { shuffle(owner.starting_cities) }
}
"""


def overlay(make_pack, rules: str, name: str = "dice_test") -> Path:
    return make_pack(name, {"pack.yaml": f"id: {name}\nname: Dice test\nversion: 0.1.0\nextends: dice_min\n",
                            "rules/test.rules": rules})


@pytest.fixture
def test_engine(make_pack):
    return Engine(load_pack(overlay(make_pack, TEST_RULES), [PACKS]))


def run_procedure(eng, st, name: str, player: str = "red", **args) -> list:
    """Run a procedure of the pack on `st` (in place) as `player`, as a scenario's `start`
    does; the account lines it wrote."""
    rt = eng.runtime(st)
    st["vm"] = {"frames": [], "pending": None}
    block, env = rt.verb("run", {"player": player}, [name], args, Span("<test>"))
    vm.push(rt, block, env, scope=True)
    vm.run(rt)
    return rt.events


def text_of(event) -> str:
    """An account line: a text, or a structured log event {"event": "log", "text": ...}."""
    return event if isinstance(event, str) else str(event.get("text", ""))


def rolled(events) -> list:
    """The faces of the d6 rolls in account lines `red rolls d6: 4`."""
    return [int(text_of(e).rsplit(":", 1)[1]) for e in events if " d6: " in text_of(e)]


# ------------------------------------------------------------------ rolls
def test_the_same_seed_gives_the_same_rolls_and_other_seeds_other_rolls(test_engine):
    def rolls(seed):
        return rolled(run_procedure(test_engine, test_engine.new_game(COLOURS, seed), "roll_many", n=200))
    first, again, other = rolls(11), rolls(11), rolls(12)
    assert len(first) == 200 and first == again
    assert other != first
    assert sum(a != b for a, b in zip(first, other)) > 100       # not a shifted copy either


def test_rolls_are_faces_of_the_die_and_about_uniform(test_engine):
    st = test_engine.new_game(COLOURS, 2024)
    faces = rolled(run_procedure(test_engine, st, "roll_many"))
    counts = Counter(faces)
    assert len(faces) == 6000 and set(counts) == {1, 2, 3, 4, 5, 6}
    # 1000 expected per face, standard deviation about 29: 150 is over 5 deviations
    assert all(abs(n - 1000) < 150 for n in counts.values()), counts


def test_a_roll_is_a_statement_compiled_to_an_instruction():
    eng = engine()
    rolls = [ins for block in eng.rs.program.blocks for ins in block if ins[0] == C.ROLL]
    assert {(ins[2], ins[3]) for ins in rolls} == {("d6", "r"), ("omen", "o")}
    assert eng.rs.dice == {"d6": [1, 2, 3, 4, 5, 6], "omen": ["crown", "cross", "blank"]}


def test_the_rng_state_moves_with_each_roll_and_is_part_of_the_state_hash(test_engine):
    st = test_engine.new_game(COLOURS, 5)
    before, hash_before = st["rng"], state_hash(st)
    run_procedure(test_engine, st, "roll_many", n=1)
    assert st["rng"] != before and state_hash(st) != hash_before


# ------------------------------------------------------------------ replays
def test_a_game_that_rolled_replays_bit_for_bit(tmp_path):
    eng = engine()
    account = []
    players = []
    final, moves = play_game(eng, 3, seed=3, bot="random",
                             on_move=lambda turn, mv, ev, st: (players.append(turn["pending"]["player"]),
                                                                account.extend(ev)))
    assert rolled(account), "the game rolled no die: it does not test replays of rolls"
    log = tmp_path / "game.jsonl"
    write_log(log, eng, final["players"], 3, {}, list(zip(players, moves)), final)
    again = replay(log, engine=eng)
    assert dumps(again) == dumps(final)
    assert again["turn_order"] == final["turn_order"] and again["rng"] == final["rng"]


# ------------------------------------------------------------------ random picks
def test_random_over_an_empty_collection_does_nothing(test_engine):
    st = test_engine.new_game(COLOURS, 9)
    before = dumps(st["p"]), st["rng"]
    events = run_procedure(test_engine, st, "pick_from_nothing")
    assert (dumps(st["p"]), st["rng"]) == before and events == []
    # every City has a controller at the start: claim_neutral picks nothing either
    cities = dumps(st["cities"])
    run_procedure(test_engine, st, "claim_neutral")
    assert dumps(st["cities"]) == cities and st["rng"] == before[1]


def test_random_picks_among_the_elements_that_pass_where():
    eng = engine()
    picked = Counter()
    for seed in range(40):
        st = eng.new_game(COLOURS, seed)
        for c in ("alpha", "beta"):
            st["cities"][c]["controller"] = None
        run_procedure(eng, st, "claim_neutral")
        [city] = [c for c in ("alpha", "beta") if st["cities"][c]["controller"] == "red"]
        picked[city] += 1
        assert st["cities"]["delta"]["controller"] == "yellow"
    assert set(picked) == {"alpha", "beta"}, picked


# ------------------------------------------------------------------ shuffle
def test_shuffle_is_a_permutation_drawn_from_the_seed():
    eng = engine()
    orders = set()
    for seed in range(8):
        st = eng.new_game(COLOURS, seed)
        tiles = list(st["supply"]["tiles"])
        for _ in COLOURS:          # everyone passes: the Year ends, `after` shuffles
            st = eng.apply(st, "option Pass")
        assert st["year"] == 2
        assert sorted(st["supply"]["tiles"]) == sorted(tiles) and len(tiles) == 6
        orders.add(tuple(st["supply"]["tiles"]))
        again = eng.new_game(COLOURS, seed)
        for _ in COLOURS:
            again = eng.apply(again, "option Pass")
        assert again["supply"]["tiles"] == st["supply"]["tiles"]
    assert len(orders) > 4


def test_shuffle_of_what_is_not_a_list_is_refused(test_engine):
    st = test_engine.new_game(COLOURS, 1)
    with pytest.raises(vm.Abort, match="needs a list, and supply.war_tokens is int"):
        run_procedure(test_engine, st, "shuffle_a_number")


def test_shuffle_reaches_a_sides_list_and_refuses_an_owner_that_is_neither_a_side_nor_a_stored_thing(test_engine):
    st = test_engine.new_game(COLOURS, 1)
    st["p"]["red"]["starting_cities"] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    orders = set()
    for seed in range(6):
        st["rng"] = test_engine.new_game(COLOURS, seed)["rng"]
        run_procedure(test_engine, st, "shuffle_own")
        assert sorted(st["p"]["red"]["starting_cities"]) == ["alpha", "beta", "delta", "epsilon", "gamma", "zeta"]
        orders.add(tuple(st["p"]["red"]["starting_cities"]))
    assert len(orders) > 2
    with pytest.raises(vm.Abort, match="needs a side or a stored thing .* not 'nowhere'"):
        run_procedure(test_engine, st, "shuffle_of", owner="nowhere")
    with pytest.raises(vm.Abort, match="alpha has no 'starting_cities'"):       # a City: found, no such list
        run_procedure(test_engine, st, "shuffle_of", owner="alpha")


# ------------------------------------------------------------------ first_player: random
def test_first_player_random_varies_with_the_seed_and_keeps_the_seats():
    eng = engine()
    assert eng.first_player_rule() == "random"
    firsts = set()
    for seed in range(20):
        st = eng.new_game(COLOURS, seed)
        order = st["turn_order"]
        assert st["players"] == COLOURS
        i = COLOURS.index(order[0])
        assert order == COLOURS[i:] + COLOURS[:i]          # round the table from the first player
        assert eng.new_game(COLOURS, seed)["turn_order"] == order
        firsts.add(order[0])
    assert firsts == set(COLOURS)


def test_first_player_choose_takes_the_colours_as_given(make_pack):
    folder = overlay(make_pack, "modify game virtu {\n  first_player: choose\n}\n", "dice_choose")
    eng = Engine(load_pack(folder, [PACKS]))
    assert {tuple(eng.new_game(COLOURS, seed)["turn_order"]) for seed in range(10)} == {tuple(COLOURS)}


# ------------------------------------------------------------------ scenarios fix outcomes
def scenario(tmp_path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text("name: forced outcomes\npack: dice_min\nplayers: [red, yellow, green]\n"
                    + textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_scenario_forces_rolls_and_picks(tmp_path):
    out = run_scenario(scenario(tmp_path, """\
        rolls: [6]
        picks: [red, beta]
        given: {cities.beta.controller: null}
        start: {run: roll_for_florins, player: red}
        steps:
          - expect: {p.red.florins: 7, cities.beta.controller: red, turn_order: [red, yellow, green]}
        """), [PACKS])
    assert out.ok, out.failures


def test_forced_rolls_are_taken_by_the_moves_in_order(tmp_path):
    out = run_scenario(scenario(tmp_path, """\
        rolls: [3, 5]
        picks: [yellow]
        steps:
          - expect: {turn_order: [yellow, green, red]}
          - move: option Roll for florins
            log: ["yellow rolls d6: 3"]
            expect: {p.yellow.florins: 4}
          - move: option Roll for florins
            expect: {p.green.florins: 6}
        """), [PACKS])
    assert out.ok, out.failures


def test_a_forced_roll_the_die_cannot_show_is_an_error_at_its_line(tmp_path):
    path = scenario(tmp_path, """\
        seed: 1
        rolls: [7]
        start: {run: roll_for_florins, player: red}
        steps: [{expect: {year: 1}}]
        """)
    with pytest.raises(RulespecError) as e:
        run_scenario(path, [PACKS])
    d = e.value.first
    assert d.code == "RS403" and d.span.line == 5
    assert "forces the roll 7, which is not a face of die d6" in d.message
    assert "dice.rules" in d.hint


def test_a_forced_pick_not_among_the_elements_is_an_error(tmp_path):
    path = scenario(tmp_path, """\
        picks: [purple]
        steps: [{expect: {year: 1}}]
        """)
    with pytest.raises(RulespecError) as e:
        run_scenario(path, [PACKS])
    assert e.value.first.code == "RS403" and "forces the pick 'purple'" in e.value.first.message
    assert e.value.first.span.line == 4


def test_forced_outcomes_left_unused_fail_the_scenario(tmp_path):
    out = run_scenario(scenario(tmp_path, """\
        rolls: [6, 2]
        picks: [red]
        start: {run: roll_for_florins, player: red}
        steps: [{expect: {p.red.florins: 7}}]
        """), [PACKS])
    assert [line for line, _ in out.failures] == [4]
    assert "rolls: 1 forced outcome(s) never drawn: [2]" in out.failures[0][1]


def test_the_scenario_schema_checks_forced_outcomes(tmp_path):
    with pytest.raises(RulespecError) as e:
        run_scenario(scenario(tmp_path, "rolls: 6\nsteps: [{expect: {year: 1}}]\n"), [PACKS])
    assert e.value.first.code == "RS100" and "rolls" in e.value.first.message


def test_rng_draw_takes_forced_outcomes_first():
    st = {"rng": 1, "vm": {"forced": {"rolls": [2, "3"]}}}
    assert rng.draw(st, [1, 2, 3], "rolls") == 2
    assert rng.draw(st, [1, 2, 3], "rolls") == 3          # YAML text matches by its text
    assert "forced" not in st["vm"] and st["rng"] == 1     # forced draws leave the RNG alone
    assert rng.draw(st, [1, 2, 3], "rolls") in (1, 2, 3) and st["rng"] != 1


# ------------------------------------------------------------------ the checker
def findings(make_pack, rules: str) -> list:
    report = validate_pack(overlay(make_pack, rules), [PACKS])
    return [(d.code, d.message, d.hint, d.span.line) for d in report.errors]


def test_an_unknown_die_is_rs105_with_did_you_mean(make_pack):
    [(code, msg, hint, line)] = findings(make_pack, "procedure p {\n  effect: {\n    roll d7 as r\n    gain(florin, r)\n  }\n}\n")
    assert (code, line) == ("RS105", 3) and msg == "no die named 'd7'" and "d6" in hint


def test_a_die_needs_fixed_faces(make_pack):
    got = findings(make_pack, "die empty { faces: [] }\ndie odd { faces: [1, year, 2 + 1] }\ndie none_at_all { }\n")
    assert {(c, m) for c, m, _, _ in got} == {
        ("RS109", "die 'empty' has no faces"),
        ("RS106", "a face of a die is a fixed value, and 'year' changes during the game"),
        ("RS106", "a face of a die is a fixed value"),
        ("RS104", "die 'none_at_all' is missing the required field 'faces'")}


def test_random_and_shuffle_are_checked(make_pack):
    got = findings(make_pack, textwrap.dedent("""\
        procedure p {
          effect: {
            random c in 3 { log(c) }
            shuffle(cities)
            shuffle(year.tiles)
            random c in cities where c.value { log(c.nope) }
          }
        }
        """))
    codes = {(c, line) for c, _, _, line in got}
    assert {("RS106", 3), ("RS106", 4), ("RS106", 5), ("RS105", 6)} <= codes, got


def test_the_statements_read_back_as_written():
    from rulespec import unparse
    from rulespec.parser import parse_rules
    text = ("procedure p {\n  effect: {\n    roll d6 as r\n    random c in cities where c.value > r {\n"
            "      shuffle(supply.tiles)\n    }\n  }\n}\n")
    [decl] = parse_rules(text).items
    block = decl.members[0].value
    assert unparse.block(block) == "{\n  roll d6 as r\n  random c in cities where c.value > r {\n" \
                                  "    shuffle(supply.tiles)\n  }\n}"
    again = parse_rules(f"procedure p {{\n  effect: {unparse.block(block)}\n}}\n").items[0].members[0].value
    assert again == block


def test_shuffle_starts_from_the_supply_a_side_or_a_stored_thing(make_pack):
    got = findings(make_pack, 'procedure bad(n: number) "A number owns no list" {\n  effect: { shuffle(n.tiles) }\n}\n'
                              'procedure good(c: city) "A City is a stored thing" {\n  effect: { shuffle(c.besiegers) }\n}\n')
    assert [(c, line) for c, _, _, line in got] == [("RS106", 2)]
    assert "of a side or of a stored thing (alliance, city), but this starts from a number" in got[0][1]
