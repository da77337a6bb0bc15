"""Bots and the pack's advice to them (playout hints, heuristics): the advice is data, it
changes how likely moves are and how positions are valued, and it never changes what is legal."""
from __future__ import annotations

import collections

import pytest

from interpreter.api import Engine
from interpreter.bots import BOTS, PlannerBot, RandomBot, UniformBot, play_game
from interpreter.playout_policy import PlayoutPolicy
from rulespec.pack import load_pack


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def _state_with_prompt(engine, start: str, seed: int = 0, limit: int = 3000):
    """Play uniformly random moves until a decision whose prompt starts with `start`."""
    bot = UniformBot(seed)
    s = engine.new_game(4, seed)
    for _ in range(limit):
        if (s["vm"]["pending"].get("prompt") or "").startswith(start):
            return s
        s = engine.apply(s, bot.choose(engine, s, engine.legal_moves(s)))
    pytest.fail(f"no decision '{start}' reached")


def test_hints_weigh_the_moves_of_matching_decisions_only(engine):
    policy = PlayoutPolicy.for_engine(engine)
    s = _state_with_prompt(engine, "Request an Indulgence")
    assert policy.weights(s["vm"]["pending"], ["yes", "no"]) == [0.001, 1.0]
    assert policy.weights({"prompt": "Besiege this City?"}, ["option besiege the City now", "option do not besiege"]) is None
    # a hint without `decision` applies to every decision (paying with an Indulgence)
    assert policy.weights({"prompt": "pay 2 crown"}, ["tap a crown", "run request_indulgence"]) == [1.0, 0.001]


def test_random_bot_follows_the_weights(engine):
    s = _state_with_prompt(engine, "Request an Indulgence")
    moves = engine.legal_moves(s)
    rnd, uni = RandomBot(1), UniformBot(1)
    yes_random = sum(rnd.choose(engine, s, moves) == "yes" for _ in range(2000))
    yes_uniform = sum(uni.choose(engine, s, moves) == "yes" for _ in range(2000))
    assert yes_random <= 12                   # 0.001 / 1.001 of 2000 is about 2
    assert 850 <= yes_uniform <= 1150


def test_pick_draws_as_choices_of_the_weights(engine):
    """PlayoutPolicy.pick (the random bot's draw, cumulative weights kept per decision) takes
    the very draws of random.choices over `weights` (randrange when all moves are alike): the
    same move and the generator left in the same state, so the bot's games stay the same."""
    import random
    policy = PlayoutPolicy.for_engine(engine)
    cases = [({"prompt": "Request an Indulgence (1 Crown now)"}, ["yes", "no"]),
             ({"prompt": "pay 2 crown"}, ["tap a crown", "run request_indulgence", "tap b crown"]),
             ({"prompt": "Tile to buy"}, ["choose a", "choose b", "done"]),
             ({"prompt": "Besiege this City?"}, ["option now", "option later"]),
             ({"prompt": "Crowns to spend"}, ["choose 0", "choose 1", "choose 2"])]
    a, b = random.Random(5), random.Random(5)
    for i in range(3000):
        pending, moves = cases[i % len(cases)]
        weights = policy.weights(pending, moves)
        want = moves[b.randrange(len(moves))] if weights is None else b.choices(moves, weights)[0]
        assert policy.pick(a, pending, moves) == want
    assert a.getstate() == b.getstate()


def test_a_zero_weight_move_is_played_only_when_it_is_the_only_one(make_pack):
    root = make_pack("never_yes", {
        "pack.yaml": """
            id: never_yes
            name: never yes
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": """
            playout_hint never_move_troops "Never move a Troop" {
              decision: "Move a Troop?"
              move: "yes"
              weight: 0
            }
        """,
    })
    eng = Engine(load_pack(root))
    pol = PlayoutPolicy.for_engine(eng)
    assert pol.weights({"prompt": "Move a Troop?"}, ["yes", "no"]) == [0.0, 1.0]
    assert pol.weights({"prompt": "Move a Troop?"}, ["yes"]) is None       # all zero: uniform
    bot = RandomBot(3)
    assert {bot.choose(eng, {"vm": {"pending": {"prompt": "Move a Troop?"}}}, ["yes", "no"])
            for _ in range(200)} == {"no"}
    assert bot.choose(eng, {"vm": {"pending": {"prompt": "Move a Troop?"}}}, ["yes"]) == "yes"


def test_hints_and_heuristics_are_not_rules(engine):
    """The same legal moves with or without advice: a pack without any hint or heuristic offers
    exactly the moves of the base pack along a game."""
    pack = load_pack("base_3to5")
    for kind in ("playout_hint", "heuristic"):
        for d in pack.of_kind(kind):
            del pack.decls[(kind, d.id)]
    bare = Engine(pack)
    assert PlayoutPolicy.for_engine(bare).hints == [] and PlayoutPolicy.for_engine(bare).heuristics == []
    bot = RandomBot(4)
    s1, s2 = engine.new_game(4, 4), bare.new_game(4, 4)
    for _ in range(300):
        moves = engine.legal_moves(s1)
        assert moves == bare.legal_moves(s2)
        mv = bot.choose(engine, s1, moves)
        s1, s2 = engine.apply(s1, mv), bare.apply(s2, mv)


def test_heuristics_add_to_the_score(engine, make_pack):
    root = make_pack("florin_lover", {
        "pack.yaml": """
            id: florin_lover
            name: florin lover
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": """
            heuristic hoard "Florins" {
              value: player.florins
              weight: 10
            }
        """,
    })
    eng = Engine(load_pack(root))
    s = eng.new_game(4, 0)
    base = PlayoutPolicy.for_engine(engine).value(s, "blue")
    mine = PlayoutPolicy.for_engine(eng).value(s, "blue")
    s["p"]["blue"]["florins"] += 2
    assert PlayoutPolicy.for_engine(eng).value(s, "blue") == pytest.approx(mine + 20 + 0.6)   # + the base treasury term
    assert PlayoutPolicy.for_engine(engine).value(s, "blue") == pytest.approx(base + 0.6)


def test_planner_follows_its_sampled_turn_and_is_reproducible(engine):
    a, b = PlannerBot(7), PlannerBot(7)
    s = engine.new_game(4, 7)
    for _ in range(120):
        moves = engine.legal_moves(s)
        mv = a.choose(engine, s, moves)
        assert mv == b.choose(engine, s, moves) and mv in moves
        s = engine.apply(s, mv)


def test_random_players_take_fewer_indulgences_than_uniform_ones(engine):
    """The point of the hints: far fewer Indulgences than uniform play over the same Years."""
    counts = collections.Counter()
    for name in ("random", "uniform"):
        for seed in range(2):
            state, _ = play_game(engine, 4, seed, name, options={"max_years": 8})
            counts[name] += sum(1 for p in state["players"] for r in state["p"][p]["rooms"] if r["indulgence"])
    assert counts["random"] < counts["uniform"]


def test_every_bot_is_listed_for_the_command_line():
    from rulespec.cli import BOT_NAMES
    assert set(BOT_NAMES) == set(BOTS)


def test_a_failing_heuristic_is_a_positioned_error_not_a_traceback(make_pack):
    from rulespec.errors import RulespecError
    root = make_pack("bad_heuristic", {
        "pack.yaml": """
            id: bad_heuristic
            name: bad heuristic
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": """
            heuristic slip "A player where a City is expected" {
              value: modified_value(player, player)
            }
        """,
    })
    eng = Engine(load_pack(root))
    s = eng.new_game(4, 0)
    with pytest.raises(RulespecError) as e:
        PlayoutPolicy.for_engine(eng).value(s, "blue")
    d = e.value.first
    assert d.code == "RS301" and "slip" in d.message and d.span.file.endswith("advice.rules") and d.span.line == 2


def test_a_hint_with_when_reads_the_state_and_the_choice(make_pack):
    """`when` makes advice depend on the position (the deciding player's florins) and on the
    move (`choice`: the number chosen)."""
    root = make_pack("when_hints", {
        "pack.yaml": """
            id: when_hints
            name: When hints
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": """
            playout_hint rich_players_never_borrow "No Indulgence with florins at hand" {
              decision: "Request an Indulgence"
              move: "yes"
              when: player.florins >= 3
              weight: 0
            }
            playout_hint move_far "Prefer moving two Rooms" {
              decision: "Rooms to move for free"
              move: "choose"
              when: choice == 2
              weight: 3
            }
        """,
    })
    eng = Engine(load_pack(root))
    pol = PlayoutPolicy.for_engine(eng)
    s = _state_with_prompt(eng, "Request an Indulgence")
    me = s["vm"]["pending"]["player"]
    s["p"][me]["florins"] = 5
    assert pol.weights(s["vm"]["pending"], ["yes", "no"], s) == [0.0, 1.0]
    s["p"][me]["florins"] = 0
    assert pol.weights(s["vm"]["pending"], ["yes", "no"], s) == [0.001, 1.0]     # the base hint only
    # without a state a `when` hint does not apply
    s["p"][me]["florins"] = 5
    assert pol.weights(s["vm"]["pending"], ["yes", "no"]) == [0.001, 1.0]
    s = _state_with_prompt(eng, "Rooms to move for free")
    # on top of whatever the base pack's own hints give these moves here
    base = PlayoutPolicy.for_engine(Engine(load_pack("base_3to5")))
    b1, b2 = base.weights(s["vm"]["pending"], ["choose 1", "choose 2"], s) or [1.0, 1.0]
    assert pol.weights(s["vm"]["pending"], ["choose 1", "choose 2"], s) == [b1, b2 * 3.0]


def test_a_when_that_names_an_unknown_value_is_reported(make_pack):
    root = make_pack("bad_when", {
        "pack.yaml": """
            id: bad_when
            name: Bad when
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": """
            playout_hint odd "Odd" {
              decision: "Rooms to move for free"
              move: "choose"
              when: chioce == 2
              weight: 3
            }
        """,
    })
    from validator.static import validate_pack
    report = validate_pack(root)
    assert any("chioce" in d.message and d.span.line == 4 for d in report.errors), \
        [d.render() for d in report.errors]


def test_a_hint_can_aim_the_action_marker_with_room_ahead(make_pack):
    """`room_ahead(player, n)` is the Room n Rooms clockwise from the Action marker: a hint on
    "Rooms to move for free" can prefer the move that lands on a given Action."""
    root = make_pack("aim_hints", {
        "pack.yaml": """
            id: aim_hints
            name: Aim hints
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": """
            playout_hint aim_for_scheme "Land on Scheme" {
              decision: "Rooms to move for free"
              move: "choose"
              when: room_ahead(player, choice).action == scheme
              weight: 1000
            }
        """,
    })
    eng, base = Engine(load_pack(root)), Engine(load_pack("base_3to5"))
    pol, base_pol = PlayoutPolicy.for_engine(eng), PlayoutPolicy.for_engine(base)
    s = _state_with_prompt(eng, "Rooms to move for free")
    pending, moves = s["vm"]["pending"], ["choose 1", "choose 2"]
    me = pending["player"]
    rt = eng.runtime(s)
    marker = s["p"][me]["marker"]
    rooms = len(s["p"][me]["rooms"])
    assert rt.formula("room_ahead", (me, 0), {}, {}) == f"{me}.room{marker}"
    assert rt.formula("room_ahead", (me, rooms + 1), {}, {}) == f"{me}.room{(marker + 1) % rooms}"     # round again
    # a Scheme Action card one Room ahead, another Action's card two Rooms ahead
    scheme_card = next(c for c, d in eng.rs.cards.items() if d.get("action") == "scheme")
    other_card = next(c for c, d in eng.rs.cards.items() if d.get("action") not in (None, "scheme"))
    rt.P(me)["rooms"][(marker + 1) % rooms]["card"] = scheme_card
    rt.P(me)["rooms"][(marker + 2) % rooms]["card"] = other_card
    assert rt.formula("room_ahead", (me, 1), {}, {}) == f"{me}.room{(marker + 1) % rooms}"
    base_w = base_pol.weights(pending, moves, s) or [1.0, 1.0]
    w = pol.weights(pending, moves, s)
    assert w == [base_w[0] * 1000, base_w[1]]
    bot = RandomBot(3)
    assert sum(bot.choose(eng, s, moves) == "choose 1" for _ in range(300)) >= 290
