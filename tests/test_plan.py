"""A plan over Years for the searching bots (`mcts:plan=war`, interpreter/plan.py): the goal is
held across turns while the pack still offers it, the pack's progress grows with each step
towards a winning Siege, and the plan changes what the bot plays."""
from __future__ import annotations

import pytest

from interpreter.api import Engine, _copy
from interpreter.bots import make_bot, play_game
from interpreter.evaluation import Evaluation
from interpreter.plan import Plan, PlannedEvaluation
from rulespec.errors import RulespecError
from rulespec.pack import load_pack

from conftest import at


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def _goal_beside_an_own_city(engine, s, player):
    """A goal of the `war` plan for `player` and one of the player's Cities one road from it."""
    plan = Plan.for_engine(engine, "war")
    board = engine.board(len(s["players"]))
    for g in plan.goals(s, player):
        for d in s["p"][player]["starting_cities"]:
            if d in board.road_neighbours(g):
                return plan, g, d
    raise AssertionError("no goal beside a starting City")


def test_the_goal_is_kept_while_the_plan_offers_it(engine):
    s = engine.new_game(4, 0)
    plan = Plan.for_engine(engine, "war")
    goals = plan.goals(s, "blue")
    assert len(goals) >= 2 and all(s["cities"][g]["controller"] != "blue" for g in goals)
    best = plan.choose_goal(s, "blue")
    other = next(g for g in goals if g != best)
    assert plan.choose_goal(s, "blue", held=other) == other       # committed: not re-picked
    s = _copy(s)
    s["cities"][other]["controller"] = "blue"                     # taken: no longer a goal
    assert plan.choose_goal(s, "blue", held=other) in set(goals) - {other}


def test_each_step_towards_a_winning_siege_is_progress(engine):
    s = engine.new_game(4, 0)
    plan, goal, home = _goal_beside_an_own_city(engine, s, "blue")
    need = engine.runtime(s).formula("siege_strength_needed", (goal,), {}, {})

    def progress(beside, in_front):
        st = _copy(s)       # a fresh state each time: what a runtime worked out is not reused
        st["cities"][home]["troops"]["blue"] = beside
        st["cities"][goal]["besiegers"] = {"blue": in_front} if in_front else {}
        return plan.progress(st, "blue", goal)
    # Troops gathered beside the goal, up to what a Siege needs (moved in front of it, one by
    # one, while Cavalry allows: the next test)
    gathered = [progress(n, 0) for n in range(need + 1)]
    assert all(b > a for a, b in zip(gathered, gathered[1:]))


def _position_with_cavalry(engine, seed=1):
    """(state, player, goal, home, need) from a random game: a goal of the `war` plan one road
    from a City `home` of `player`, who holds Cavalry enough to move all but one of the Troops
    a Siege of it needs (troops_needed: its strength less the War Bonuses at hand), so that it
    can be made ready."""
    from interpreter.bots import RandomBot
    plan = Plan.for_engine(engine, "war")
    s, bot = engine.new_game(4, seed), RandomBot(seed)
    board = engine.board(4)
    for i in range(4000):
        if i % 10 == 0:
            for p in s["players"]:
                for g in plan.goals(s, p):
                    # the Troops it needs with the War Bonuses at hand
                    need = engine.runtime(s).formula("troops_needed", (g,), {}, {"player": p})
                    for d in board.road_neighbours(g):
                        if s["cities"][d]["controller"] == p and need >= 2:
                            st = _copy(s)
                            st["cities"][d]["troops"][p] = need - 1
                            st["cities"][g]["besiegers"] = {p: 1}
                            if engine.runtime(st).formula("siege_ready", (g,), {}, {"player": p}):
                                return _copy(s), p, g, d, need
        s = engine.apply(s, bot.choose(engine, s, engine.legal_moves(s)))
    raise AssertionError("no position with Cavalry beside a goal")


def test_a_troop_moved_in_front_is_progress_only_while_the_siege_can_reach_its_strength(engine):
    """The base pack's `siege_ready`: Troops moved in front of the goal count while the Troops
    beside and in front, and the Cavalry left, can still bring the Siege to the strength it
    needs; a Troop in front of a Siege that cannot is a Troop lost, and is counted against."""
    s, player, goal, home, need = _position_with_cavalry(engine)
    plan = Plan.for_engine(engine, "war")

    def progress(beside, in_front):
        st = _copy(s)
        st["cities"][home]["troops"][player] = beside
        others = {k: v for k, v in st["cities"][goal].get("besiegers", {}).items() if k != player}
        st["cities"][goal]["besiegers"] = others | ({player: in_front} if in_front else {})
        ready = engine.runtime(st).formula("siege_ready", (goal,), {}, {"player": player})
        return plan.progress(st, player, goal), ready
    # enough Troops beside and Cavalry to move them: each Troop moved in front is progress
    moved = [progress(need - n, n) for n in range(need + 1)]
    assert all(ready for _, ready in moved[1:])
    assert all(b[0] > a[0] for a, b in zip(moved, moved[1:]))
    # one Troop short: the Siege is never ready, and moving one in front is a loss
    short, short_ready = progress(need - 1, 0)
    one_moved, moved_ready = progress(need - 2, 1)
    assert not short_ready and not moved_ready and one_moved < short
    # and counts for less than no Troop at all: it will be lost alone, where sent elsewhere (to
    # another Siege) it may win
    gone, _ = progress(need - 2, 0)
    assert one_moved < gone


def test_a_wage_war_room_within_the_markers_next_move_is_progress_more_so_when_ready(engine):
    """The base pack's `wage_war_in_reach`: the marker moves 1-2 Rooms a Spring for free, so of
    its five places exactly the two that are 1 and 2 Rooms before the printed Wage War Room
    reach it; being there is progress, more when the Siege of the goal is ready."""
    s, player, goal, home, need = _position_with_cavalry(engine)
    plan = Plan.for_engine(engine, "war")
    rooms = len(s["p"][player]["rooms"])

    def at(marker, beside, in_front=0):
        st = _copy(s)
        st["p"][player]["marker"] = marker
        st["cities"][home]["troops"][player] = beside
        others = {k: v for k, v in st["cities"][goal].get("besiegers", {}).items() if k != player}
        st["cities"][goal]["besiegers"] = others | ({player: in_front} if in_front else {})
        rt = engine.runtime(st)
        return (rt.formula("wage_war_in_reach", (), {}, {"player": player}),
                rt.formula("siege_ready", (goal,), {}, {"player": player}), plan.progress(st, player, goal))
    gains = []
    # the Troops a Siege needs, one of them in front (the Cavalry moves the rest); a Troop short
    for beside, in_front, enough in ((need - 1, 1, True), (need - 2, 0, False)):
        seen = [at(m, beside, in_front) for m in range(rooms)]
        reach = [m for m, (inr, _, _) in enumerate(seen) if inr]
        assert len(reach) == 2 and ((reach[0] + 1) % rooms == reach[1] or (reach[1] + 1) % rooms == reach[0])
        assert all(ready == enough for inr, ready, _ in seen if inr)
        far = {round(v, 9) for inr, _, v in seen if not inr}
        near = {round(v, 9) for inr, _, v in seen if inr}
        assert len(far) == 1 and len(near) == 1
        gains.append(near.pop() - far.pop())
    assert gains[0] > gains[1] > 0
    assert at(None, need - 1, 1)[0] is False                # before the first Spring: no marker


def test_the_planned_evaluation_adds_progress_to_the_planner_only(engine):
    s = engine.new_game(4, 0)
    plan, goal, home = _goal_beside_an_own_city(engine, s, "blue")
    s = _copy(s)
    s["cities"][home]["troops"]["blue"] = 2
    ev = Evaluation.for_engine(engine)
    plain, planned = ev.values(s), PlannedEvaluation(ev, plan, "blue", goal).values(s)
    assert planned["blue"] == pytest.approx(plain["blue"] + plan.progress(s, "blue", goal))
    assert plan.progress(s, "blue", goal) > 0
    assert {p: v for p, v in planned.items() if p != "blue"} == {p: v for p, v in plain.items() if p != "blue"}


def test_a_bot_naming_an_undeclared_plan_is_told_the_declared_ones(engine):
    with pytest.raises(RulespecError) as e:
        make_bot("mcts:plan=nothere", 0).choose(engine, engine.new_game(3, 0), ["x", "y"])
    assert e.value.first.code == "RS301" and "war" in e.value.first.hint


@pytest.mark.parametrize("bot", ["mcts:iterations=4", "greedy_eval"])
def test_the_plan_steers_the_bot(engine, bot):
    """Same seed, same bot, with and without the plan: another game (that the planning bots'
    games replay from their moves is tested with every bot's, tests/test_search_bots.py)."""
    opts = {"max_years": 3}
    planned = play_game(engine, 3, 11, bot + (",plan=war" if ":" in bot else ":plan=war"), options=opts)[1]
    assert planned != play_game(engine, 3, 11, bot, options=opts)[1]


def test_a_planning_bot_holds_a_goal_for_each_of_its_players(engine):
    bot = make_bot("greedy_eval:plan=war", 3)
    s = engine.new_game(3, 3)
    seen = {}
    for _ in range(400):
        if engine.is_over(s):
            break
        legal = engine.legal_moves(s)
        s = engine.apply(s, bot.choose(engine, s, legal))
        for p, g in bot.planning.goals.items():
            seen.setdefault(p, set()).add(g)
    assert set(seen) == set(s["players"])
    # a goal is held across turns: far fewer goals than decisions
    assert all(1 <= len(gs) <= 4 for gs in seen.values())


def test_a_plan_is_not_a_name_of_the_rules(make_pack):
    """A plan (like an evaluation, a heuristic or a playout hint) is read by bots by its id, not
    by the rules: the base pack's plan `war` does not hide the symbol `war` from a formula (it
    did: "expected a symbol here, but this is a plan"), and a plan's id is no value."""
    from validator.static import validate_pack
    overlay = make_pack("war_bonuses", {
        "pack.yaml": "id: war_bonuses\nname: War Bonuses\nversion: '1'\nextends: base_3to5\n",
        "rules/more.rules": """
            formula war_bonuses_at_hand "The War Bonuses the player could use now" {
              value: symbols_available(player, war)
            }
        """})
    assert [d.code for d in validate_pack(overlay).diagnostics if d.severity == "error"] == []
    bad = make_pack("plan_as_value", {
        "pack.yaml": "id: plan_as_value\nname: Plan as a value\nversion: '1'\nextends: base_3to5\n",
        "rules/more.rules": """
            plan hold "Hold what you have" {
              goals: player.cities
              progress: 0
            }
            formula held_plan "A plan read as a value" {
              value: count([hold])
            }
        """})
    errors = [d for d in validate_pack(bad).diagnostics if d.severity == "error"]
    assert [(d.code, d.span.line) for d in errors] == [("RS105", 6)]
    assert "unknown name 'hold'" in errors[0].message


def test_a_siege_begun_reads_as_ready_only_while_the_cavalry_left_in_the_action_can_complete_it(engine):
    """The base pack's `siege_ready` once Troops stand in front of a City: only the Cavalry left
    in the Wage War being run (`symbols_in_action`, 0 once it is over) can still bring Troops to
    the Siege. Counting later Cavalry there, 1 Troop moved where 2 were needed read as ready,
    and the lost Sieges were 1-Troop Sieges with no Troop left to retreat."""
    s = at(engine, given={"p.red.marker": 4, "cities.florence.troops": {"red": 3}, "p.red.troops_reserve": 3},
           start={"perform": "wage_war", "player": "red"})
    assert s["vm"]["pending"]["prompt"] == "Move a Troop?"
    rt = engine.runtime(s)
    # the Wage War Room's printed Cavalry: counted for the player running the Action, wherever
    # asked from (a bot's evaluation runs outside it), and 0 for a player running none
    assert rt.f_symbols_in_action("red", "cavalry") == 1
    assert rt.f_symbols_in_action("yellow", "cavalry") == 0
    goal = "spoleto"        # neutral, one road from Florence; a Siege of it needs 3
    assert engine.runtime(s).formula("siege_strength_needed", (goal,), {}, {"player": "red"}) == 3
    over = engine.apply(s, "no")            # "no" ends the Wage War

    def ready(st, in_front):
        st = _copy(st)
        st["cities"][goal]["besiegers"] = {"red": in_front}
        return engine.runtime(st).formula("siege_ready", (goal,), {}, {"player": "red"})
    assert ready(s, 2) and not ready(s, 1)      # 2 in front + 1 Cavalry left make 3
    assert not ready(over, 2) and ready(over, 3)


def test_the_war_bonuses_at_hand_count_as_troops_a_siege_needs(engine):
    """The base pack's `troops_needed`: a Siege's strength less the War Bonuses the player could
    announce (a +1 token here), at least 1 Troop; `siege_ready` reads it."""
    goal = "spoleto"        # neutral, one road from Florence; a Siege of it needs strength 3

    def needed(tokens):
        s = at(engine, given={"p.red.war_tokens": tokens, "cities.florence.troops": {"red": 2}})
        rt = engine.runtime(s)
        return (rt.formula("siege_strength_needed", (goal,), {}, {"player": "red"}),
                rt.formula("war_bonus_strength", (), {}, {"player": "red"}),
                rt.formula("troops_needed", (goal,), {}, {"player": "red"}))
    strength, bonus, troops = needed(0)
    assert strength == 3 and troops == 3 - bonus
    with_token = needed(1)
    assert with_token[1] == bonus + 1 and with_token[2] == max(1, troops - 1)


def test_the_strength_a_siege_needs_counts_the_agents_as_the_siege_does(engine):
    """The base pack's `siege_strength_needed` reads the Agents as war.rules' assault does: 1
    less for the attacker's Agent in the City, 1 more for another House's in a neutral City
    (left out, a bot misread such a City's Siege by a Troop)."""
    goal = "spoleto"        # neutral, value 2: a Siege needs 3

    def needed(agent, who="red", controller=None):
        s = at(engine, given={f"cities.{goal}.agent": agent, f"cities.{goal}.controller": controller})
        return engine.runtime(s).formula("siege_strength_needed", (goal,), {}, {"player": who})
    assert needed(None) == 3
    assert needed("red") == 2                 # the attacker's Agent
    assert needed("yellow") == 4              # a rival's Agent in a neutral City
    assert needed("yellow", controller="green") == 3   # a House's City: no such +1
    assert needed("red", controller="green") == 2


def test_a_cavalry_card_just_bought_is_progress_before_it_can_pay(engine):
    """The base pack's `war_progress`: a card bought cannot pay until the purchases settle at the
    end of the phase (game.fresh), beyond the search's turn; its Cavalry still counts, so a
    player short of Cavalry for a Siege sees a Cavalry card as progress when buying it."""
    s = engine.new_game(4, 0)
    plan, goal, home = _goal_beside_an_own_city(engine, s, "blue")

    def measured(bought: bool):
        st = _copy(s)
        if bought:
            slot = next(c for c in st["p"]["blue"]["court"] if c["open"] and c["card"] is None)
            slot["card"], slot["exhausted"] = "gonfalonier#1", False
            st["fresh"] = ["gonfalonier#1"]
        rt = engine.runtime(st)
        cavalry = rt.f_symbols_available("blue", "cavalry")
        return plan.progress(st, "blue", goal), cavalry
    (before, cav_before), (after, cav_after) = measured(False), measured(True)
    assert cav_after == cav_before                  # not payable yet
    assert after > before
