"""The searching bots (greedy_eval, mcts) and the pack's `evaluation`: deterministic for a
seed, legal moves only, games that finish, and a broken evaluation is a positioned error."""
from __future__ import annotations

import pytest

from interpreter.api import Engine
from interpreter.bots import BOTS, make_bot, parse_bot, play_game
from interpreter.evaluation import Evaluation
from rulespec.errors import RulespecError
from rulespec.pack import load_pack

from ci_mode import ci_only


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def _moves(engine, bot, seed, n=60, players=3):
    """The first n moves of a game played by `bot` (a spec), from a fresh bot."""
    s = engine.new_game(players, seed)
    b = make_bot(bot, seed)
    out = []
    while len(out) < n and not engine.is_over(s):
        legal = engine.legal_moves(s)
        mv = b.choose(engine, s, legal)
        assert mv in legal
        out.append(mv)
        s = engine.apply(s, mv)
    return out


# every other bot plays the same moves for the same seed in
# test_every_bot_plays_a_short_game_that_replays_from_its_moves (a game of 2 Years, played twice)
# (the greedy continuation values each move of the rest of the turn: 20 moves of it cost more
# CPU than 40 of the others)
@pytest.mark.parametrize("bot, n", [("mcts:iterations=4,rollout=2", 40), ("mcts:iterations=4,root=even,reply=1", 40),
                                    ("mcts:iterations=8,root=even,per_move=1,continuation=greedy,reply=0", 20),
                                    ("mcts:iterations=6,q=minmax,prior=uniform", 40)])
def test_every_mcts_setting_plays_the_same_moves_for_the_same_seed(engine, bot, n):
    assert _moves(engine, bot, 5, n=n) == _moves(engine, bot, 5, n=n)


def test_mcts_with_a_tiny_budget_plays_legal_deterministic_moves_that_depend_on_the_seed(engine):
    a = _moves(engine, "mcts:iterations=3,rollout=2", 1, n=50)
    assert a == _moves(engine, "mcts:iterations=3,rollout=2", 1, n=50)
    assert a != _moves(engine, "mcts:iterations=3,rollout=2", 2, n=50)


@ci_only      # a whole game of greedy search: ~20 s of CPU (docs/testing.md)
def test_greedy_eval_finishes_a_four_player_game_within_the_year_bound(engine):
    # 4 players: 3-player tables of greedy_eval can still stall for a long time (seed 0 ran to
    # Year 161 of 250 and took most of CI's budget; issue 19 note), which this test does not hide
    # from the ladder (docs/bots.md), only from CI's clock
    state, moves = play_game(engine, 4, 2, "greedy_eval")
    # ended by an end condition, long before the pack's Year bound (max_rounds)
    assert engine.is_over(state)
    assert state["year"] < engine.rs.game["max_rounds"]


def test_one_bot_per_seat(engine):
    state, moves = play_game(engine, 3, 2, ["greedy_eval", "random", "random"], options={"max_rounds": 3})
    again, moves2 = play_game(engine, 3, 2, ["greedy_eval", "random", "random"], options={"max_rounds": 3})
    assert moves == moves2


def test_bot_knobs_are_checked():
    assert parse_bot("mcts:iterations=8,scale=2.5") == ("mcts", {"iterations": 8, "scale": 2.5})
    for bad in ("mcts:iteration=8", "nobot", "greedy_eval:horizon"):
        with pytest.raises(RulespecError) as e:
            parse_bot(bad)
        assert e.value.first.code == "RS404"
    for bad in ("mcts:root=deep", "mcts:continuation=smart", "mcts:q=max", "mcts:prior=eval", "mcts:scale=0",
                "mcts:scale=-1"):     # a knob's value out of range
        with pytest.raises(RulespecError) as e:
            make_bot(bad, 0)
        assert e.value.first.code == "RS404" and bad.split(":")[1].split("=")[1] in e.value.first.message


def test_the_base_evaluation_values_every_player(engine):
    s = engine.new_game(4, 0)
    vals = Evaluation.for_engine(engine).values(s)
    assert set(vals) == set(s["players"])
    # the score is part of it: the evaluation differs from the score by the means terms only
    assert all(isinstance(v, float) for v in vals.values())


def _pack(make_pack, name, rules):
    return make_pack(name, {
        "pack.yaml": f"""
            id: {name}
            name: {name}
            version: 0.1.0
            extends: base_3to5
        """,
        "rules/advice.rules": rules,
    })


def test_an_evaluation_with_an_unknown_name_is_a_positioned_error(make_pack):
    root = _pack(make_pack, "bad_eval_name", """
        evaluation sloppy "A misspelt name" {
          value: score + count(player.citties)
        }
    """)
    from validator.static import validate_pack
    diags = [d for d in validate_pack(root).diagnostics if d.severity == "error"]
    d = diags[0]
    assert d.span.file.endswith("advice.rules") and d.span.line == 2 and "citties" in d.message


def test_a_failing_evaluation_is_a_positioned_error_not_a_traceback(make_pack):
    root = _pack(make_pack, "bad_eval_run", """
        evaluation slip "A player where a City is expected" {
          value: score + modified_value(player, player)
        }
    """)
    eng = Engine(load_pack(root))
    with pytest.raises(RulespecError) as e:
        Evaluation.for_engine(eng, "slip").values(eng.new_game(4, 0))
    d = e.value.first
    assert d.code == "RS301" and "slip" in d.message and d.span.file.endswith("advice.rules") and d.span.line == 2


def test_a_bot_naming_an_undeclared_evaluation_is_told_the_declared_ones(engine):
    with pytest.raises(RulespecError) as e:
        make_bot("greedy_eval:evaluation=nothere", 0).choose(engine, engine.new_game(3, 0), ["x", "y"])
    assert "default" in e.value.first.hint


# ------------------------------------------------------------------ short games, replays
@pytest.mark.parametrize("bot", sorted(set(BOTS) - {"mcts"}) + ["mcts:iterations=4", "mcts:iterations=4,plan=war",
                                                                "greedy_eval:plan=war"])
def test_every_bot_plays_a_short_game_that_replays_from_its_moves(engine, bot):
    """The same seed plays the same game, and the moves alone replay it (the bots' look-aheads
    draw from their own generators, never from the game's)."""
    opts = {"max_years": 2}
    state, moves = play_game(engine, 3, 11, bot, options=opts)
    again, moves2 = play_game(engine, 3, 11, bot, options=opts)
    assert moves == moves2 and engine.is_over(state)
    replay = engine.new_game(3, 11, opts)
    for mv in moves:
        replay = engine.apply(replay, mv)
    assert replay == state


# ------------------------------------------------------------------ the end in sight
def test_an_end_condition_that_holds_is_in_sight_and_rewards_the_projected_winner(engine):
    from interpreter.search_bots import ending_in_sight, values
    s = engine.new_game(4, 0)
    assert not ending_in_sight(engine, s)
    ev = Evaluation.for_engine(engine)
    plain = values(engine, ev, s, 10.0)
    assert plain == ev.values(s)                    # no end in sight: the evaluation alone
    last = len(engine.rs.tracks["patronage_track"]["spaces"]) - 1
    s["tracks"]["patronage_track"]["pos"]["red"] = last        # the end of the Patronage track
    assert ending_in_sight(engine, s)
    won = engine.winners(s)
    with_end = values(engine, ev, s, 10.0)
    base = ev.values(s)
    assert all(with_end[p] == pytest.approx(base[p] + (10.0 if p in won else 0.0)) for p in s["players"])


def test_the_end_in_sight_widens_the_leaders_gap_and_narrows_the_trailers(engine):
    """What greedy_eval maximises (its value minus the best rival's) gains the finish bonus for
    the player ahead on the score pad when an end condition holds, and loses it for the others:
    a leader brings the end on, a trailer puts it off."""
    from interpreter.search_bots import _gap
    ev = Evaluation.for_engine(engine)
    ended = engine.new_game(4, 0)
    ended["tracks"]["patronage_track"]["pos"]["red"] = len(engine.rs.tracks["patronage_track"]["spaces"]) - 1
    lead = engine.winners(ended)
    trail = [p for p in ended["players"] if p not in lead]
    assert trail
    for p in lead:
        assert _gap(engine, ev, ended, p, 10.0) - _gap(engine, ev, ended, p, 0.0) == pytest.approx(10.0)
    for p in trail:
        assert _gap(engine, ev, ended, p, 10.0) < _gap(engine, ev, ended, p, 0.0)


# ------------------------------------------------------------------ war in the evaluation
def test_a_siege_strong_enough_to_win_is_worth_more_than_a_weak_one(engine):
    s = engine.new_game(4, 0)
    ev = Evaluation.for_engine(engine)
    city = next(c for c, d in s["cities"].items() if d["controller"] is None and engine.runtime(s).formula(
        "siege_strength_needed", (c,), {}, {}) <= 5)
    need = engine.runtime(s).formula("siege_strength_needed", (city,), {}, {})
    values_by_troops = []
    for n in range(0, need + 1):
        s["cities"][city]["besiegers"] = {"blue": n} if n else {}
        s["p"]["blue"]["troops_reserve"] = 6 - n
        values_by_troops.append(ev.values(s)["blue"])
    steps = [b - a for a, b in zip(values_by_troops, values_by_troops[1:])]
    assert steps[-1] > 5 * max(steps[:-1])          # the Troop that makes the Siege winnable


# ------------------------------------------------------------------ mcts
def _rearranging(make_pack, name: str, favoured: str, steps: int) -> tuple:
    """(engine, state, legal moves) at the first "Rearrange your Palace" decision offering
    `favoured` (uniform random play, seed 0) of a pack whose playout hint weighs it 1000."""
    root = _pack(make_pack, name, f"""
        playout_hint {name} "Favour one move" {{
          decision: "Rearrange your Palace"
          move: "{favoured}"
          weight: 1000
        }}
    """)
    eng = Engine(load_pack(root))
    s = eng.new_game(3, 0)
    from interpreter.bots import UniformBot
    u = UniformBot(0)
    for _ in range(steps):
        if (s["vm"]["pending"].get("prompt") or "").startswith("Rearrange your Palace") \
                and any(m.startswith(favoured) for m in eng.legal_moves(s)):
            break
        s = eng.apply(s, u.choose(eng, s, eng.legal_moves(s)))
    return eng, s, eng.legal_moves(s)


def test_mcts_tries_the_moves_the_pack_favours_first(make_pack):
    """With one iteration, the only move tried is the one the playout hints favour most."""
    eng, s, moves = _rearranging(make_pack, "favour_stop", "option stop", 3000)
    stop = [m for m in moves if m.startswith("option stop")]
    assert stop and len(moves) > 1
    assert make_bot("mcts:iterations=1,root=puct", 0).choose(eng, s, moves) == stop[0]


def test_a_uniform_prior_ignores_the_moves_the_pack_favours(make_pack):
    """prior=uniform: with one iteration the move tried is the first legal one, not the one the
    playout hints favour (prior=hints, the default, tries that one)."""
    eng, s, moves = _rearranging(make_pack, "favour_discard", "option discard", 20000)
    favoured = [m for m in moves if m.startswith("option discard")]
    assert favoured and moves[0] != favoured[0]
    assert make_bot("mcts:iterations=1,root=puct,prior=uniform", 0).choose(eng, s, moves) == moves[0]
    assert make_bot("mcts:iterations=1,root=puct,prior=hints", 0).choose(eng, s, moves) == favoured[0]


def test_minmax_q_lets_puct_compare_close_means_instead_of_replaying_the_prior():
    """q=minmax: PUCT reads each child's mean between the lowest (0) and the highest (1) seen
    among its siblings. Two moves tried equally often, means 0.50 and 0.51 (a turn moves the
    evaluation little), the prior favouring the worse one 9 to 1: raw means pick the prior's
    favourite, normalised ones the better move."""
    from interpreter.search_bots import _Node
    for q, expected in (("mean", "a"), ("minmax", "b")):
        bot = make_bot(f"mcts:q={q},c=1.0", 0)
        node = _Node()
        for mv, mean in (("a", 0.50), ("b", 0.51)):
            ch = node.children[mv] = _Node()
            ch.n, ch.w = 4, 4 * mean
        node.n = 8
        mv, child, new = bot._select(node, ["a", "b"], [0.9, 0.1], at_root=False)
        assert (mv, new) == (expected, False)
    norm = make_bot("mcts:q=minmax", 0)._normaliser(node)
    assert (norm(0.50), norm(0.51), norm(0.2), norm(0.9)) == (0.0, pytest.approx(1.0), 0.0, 1.0)


def test_the_default_scale_lets_a_better_move_outweigh_the_prior():
    """Two moves tried 16 times each, one half a point of the evaluation better than the other
    (a turn moves the evaluation little), the pack's hints favouring the worse one 9 to 1: at
    the default `scale` PUCT walks to the better move; at the first rounds' scale=3 the rewards
    sat within hundredths of 0.5 and PUCT replayed the prior (docs/bots.md)."""
    from interpreter.search_bots import _Node, squash
    for spec, expected in (("mcts", "b"), ("mcts:scale=3", "a")):
        bot = make_bot(spec, 0)
        node = _Node()
        for mv, change in (("a", 0.0), ("b", 0.5)):
            ch = node.children[mv] = _Node()
            ch.n = 16
            ch.w = 16 * squash(change, bot.scale)
        node.n = 32
        assert bot._select(node, ["a", "b"], [0.9, 0.1], at_root=False)[0] == expected
    assert squash(0.0, 0.3) == 0.5 and squash(1.0, 0.3) > 0.9 > squash(1.0, 3.0) > 0.5


def test_mcts_spends_per_move_iterations_on_each_legal_move_within_its_cap(engine):
    """The budget follows the decision (root=puct): `per_move` iterations for each legal move,
    at most `iterations`, and at the root every move is looked at (a yes/no question costs less
    than a four-way choice, and no move goes unseen)."""
    s = engine.new_game(4, 3)
    from interpreter.search_bots import is_macro_step
    from interpreter.bots import RandomBot
    r = RandomBot(3)
    seen = set()
    for _ in range(4000):
        moves = engine.legal_moves(s)
        if not is_macro_step(s, moves) and len(moves) not in seen and len(moves) <= 6:
            seen.add(len(moves))
            bot = make_bot("mcts:iterations=20,per_move=4,root=puct", 1)
            bot.choose(engine, s, moves)
            root = bot.last_root
            assert root.n == min(20, 4 * len(moves))
            assert set(root.children) == set(moves) and all(ch.n >= 1 for ch in root.children.values())
        if len(seen) >= 3:
            break
        s = engine.apply(s, r.choose(engine, s, moves))
    assert len(seen) >= 3


def _searched_decisions(engine, seed, players=4, want=3, limit=4000, distinct=True):
    """Positions of a random game at decisions the searching bots search (more than one move,
    not a payment step), each with its legal moves: up to `want` of them (of distinct sizes
    unless `distinct` is False)."""
    from interpreter.search_bots import is_macro_step
    from interpreter.bots import RandomBot
    s = engine.new_game(players, seed)
    r = RandomBot(seed)
    out, sizes = [], set()
    for _ in range(limit):
        moves = engine.legal_moves(s)
        if not is_macro_step(s, moves) and (not distinct or len(moves) not in sizes) and len(moves) <= 6:
            sizes.add(len(moves))
            out.append((_copied(s), moves))
            if len(out) >= want:
                break
        s = engine.apply(s, r.choose(engine, s, moves))
    return out


def _copied(state):
    from interpreter.api import _copy
    return _copy(state)


def test_an_even_root_gives_every_move_the_same_worlds_and_plays_the_best_mean(engine):
    """root=even: whole rounds (every legal move `per_move` times, within `iterations`) and the
    move played has the best mean reward; one look-ahead per move is greedy_eval's comparison."""
    found = _searched_decisions(engine, 3)
    assert len(found) >= 3
    for s, moves in found:
        bot = make_bot("mcts:root=even,iterations=20,per_move=4", 1)
        mv = bot.choose(engine, _copied(s), moves)
        root = bot.last_root
        per = max(1, min(4, 20 // len(moves)))
        assert set(root.children) == set(moves)
        assert {ch.n for ch in root.children.values()} == {per}
        means = {m: ch.w / ch.n for m, ch in root.children.items()}
        assert means[mv] == pytest.approx(max(means.values()))


def test_an_even_root_with_one_look_ahead_per_move_chooses_as_greedy_eval(engine):
    """mcts with the smallest budget degenerates to greedy_eval's choice (the same look-ahead:
    the move, the rest of the turn by the cheap policy, the same drawn world for every move),
    so that more iterations can only refine it. Compared where greedy_eval sees one best move."""
    from interpreter.search_bots import _gap
    compared = 0
    for s, moves in _searched_decisions(engine, 7, want=30, distinct=False):
        bot = make_bot("mcts:root=even,per_move=1", 5)
        mv = bot.choose(engine, _copied(s), moves)
        means = sorted((ch.w / ch.n for ch in bot.last_root.children.values()), reverse=True)
        if len(means) > 1 and means[0] - means[1] > 1e-9:
            assert mv == make_bot("greedy_eval:epsilon=0", 5).choose(engine, _copied(s), moves)
            compared += 1
            if compared >= 3:
                break
    assert compared >= 3


def test_the_rivals_reply_before_a_leaf_is_valued(engine):
    """reply=k plays the rivals' next k turns (runs of decisions by one player) by the cheap
    policy, and stops at the deciding player's own next decision."""
    import random as _random
    from interpreter.bots import RandomBot
    from interpreter.search_bots import is_macro_step
    s = engine.new_game(4, 2)
    r = RandomBot(2)
    while (s["vm"]["pending"] or {}).get("player") == s["players"][0] or s["year"] < 2:
        s = engine.apply(s, r.choose(engine, s, engine.legal_moves(s)))
    me = s["players"][0]
    rival = s["vm"]["pending"]["player"]
    assert rival != me
    for k in (0, 1, 99):
        st = _copied(s)
        make_bot(f"mcts:reply={k}", 1)._replies(engine, st, _random.Random(4), me)
        now = (st["vm"]["pending"] or {}).get("player")
        if k == 0:
            assert now == rival and st == s             # no reply: the leaf as it was
        elif k == 1:
            assert now != rival and st != s             # the rival's turn was played out
        else:
            # every rival answered, up to my next real choice
            assert engine.is_over(st) or (now == me and not is_macro_step(st, engine.legal_moves(st)))


def test_the_greedy_continuation_plays_out_the_turn_choosing_by_the_evaluation(engine):
    """continuation=greedy: the rest of the deciding player's turn is played by a one-move
    look-ahead (each real choice: the move whose position, after its payment, has the best
    gap), not by the cheap policy. It ends the turn, and where one move is valued above the
    others it plays that move (here without looking through moves that change nothing: the
    next test)."""
    import random as _random
    from interpreter.search_bots import _greedy_rest_of_turn, _gap, _forward
    ev = Evaluation.for_engine(engine)
    checked = 0
    for s, moves in _searched_decisions(engine, 5, want=60, distinct=False)[20:]:
        me = s["vm"]["pending"]["player"]
        st = _copied(s)
        _greedy_rest_of_turn(engine, ev, st, _random.Random(3), me, through=0)
        assert engine.is_over(st) or st["vm"]["pending"].get("player") != me
        # its first choice: the best one-move value, in the world it draws first
        world = _random.Random(3).getrandbits(64)
        vals = {}
        for mv in moves:
            cp = _copied(s)
            cp["rng"] = world
            engine.apply(cp, mv, check=False, transactional=False)
            _forward(engine, cp, _random.Random(world), lambda x: x["vm"]["pending"].get("player") != me)
            vals[mv] = _gap(engine, ev, cp, me)
        top = sorted(vals.values(), reverse=True)
        if len(top) > 1 and top[0] - top[1] > 1e-9:
            best = max(vals, key=vals.get)
            first = _copied(s)
            played = []
            orig = engine.apply

            def spy(state, mv, **kw):
                if state is first and not played:
                    played.append(mv)
                return orig(state, mv, **kw)
            engine.apply = spy
            try:
                _greedy_rest_of_turn(engine, ev, first, _random.Random(3), me, through=0)
            finally:
                engine.apply = orig
            assert played == [best]
            checked += 1
            if checked >= 2:
                break
    assert checked >= 2


def test_the_greedy_continuation_looks_through_a_move_that_changes_nothing(engine):
    """A move whose position has the gap of the position before it (a yes that only asks
    where to, a way of moving before the destination) is valued by the best of the player's
    next choice (of at most LOOK_THROUGH_WIDTH moves), up to `through` choices deep; a move
    that changes the gap keeps its own value. Without it such a move tied with stopping and
    the cheap policy chose."""
    import random as _random
    from interpreter.search_bots import LOOK_THROUGH_WIDTH, _gap, _tried, is_macro_step, looked_through
    ev = Evaluation.for_engine(engine)
    world = 12345
    raised = 0
    for seed in (5, 6, 7):
        for s, moves in _searched_decisions(engine, seed, want=80, distinct=False):
            me = s["vm"]["pending"]["player"]
            before = _gap(engine, ev, s, me)
            for mv in moves:
                cp = _tried(engine, s, mv, world, me)
                if cp is None:
                    continue
                own = _gap(engine, ev, cp, me)
                assert looked_through(engine, ev, cp, me, before, world, through=0) == own
                seen = looked_through(engine, ev, cp, me, before, world, through=1)
                nxt = [] if engine.is_over(cp) or cp["vm"]["pending"].get("player") != me else engine.legal_moves(cp)
                if abs(own - before) > 1e-9 or not nxt or is_macro_step(cp, nxt) or len(nxt) > LOOK_THROUGH_WIDTH:
                    assert seen == own          # a change, or no (narrow) choice of mine next: its own value
                    continue
                best = max(_gap(engine, ev, n, me) for n in (_tried(engine, cp, m, world, me) for m in nxt) if n is not None)
                assert seen == pytest.approx(best)
                raised += seen > own + 1e-9
        if raised >= 2:
            break
    assert raised >= 2      # some move that changed nothing led to a better choice


def test_a_leaf_in_the_middle_of_a_fight_is_played_on_until_quiet(engine, monkeypatch):
    """The base pack's evaluation is `quiet` only while no fight is being resolved: a position
    where a War Bonus is being announced is played on by the cheap policy (quiesce), past the
    Siege's result to the end of the phase, before it is valued; mcts values its leaves so."""
    import random
    import interpreter.search_bots as sb
    from interpreter.api import _copy
    mid = []

    def keep(turn, mv, events, st):
        if not mid and st.get("fight") is not None and (st["vm"]["pending"] or {}).get("prompt") == "Use a War Bonus?":
            mid.append(_copy(st))
    play_game(engine, 4, 0, "random", on_move=keep)
    assert mid, "a random game of seed 0 announces War Bonuses"
    ev = Evaluation.for_engine(engine)
    st = _copy(mid[0])
    assert not ev.is_quiet(st)
    year, phase = st["year"], st["phase"]
    sb.quiesce(engine, ev, st, random.Random(0))
    assert ev.is_quiet(st) and st.get("fight") is None and (st["year"], st["phase"]) != (year, phase)
    again = _copy(st)
    sb.quiesce(engine, ev, again, random.Random(0))
    assert again == st          # a quiet position is left as it is

    leaves, iterations = [], []
    real, iterate = sb.quiesce, sb.MctsBot._iterate
    monkeypatch.setattr(sb, "quiesce", lambda eng, e, s, rng, limit=400: leaves.append(s) or real(eng, e, s, rng, limit))
    monkeypatch.setattr(sb.MctsBot, "_iterate", lambda self, *a: iterations.append(1) or iterate(self, *a))
    st = _copy(mid[0])
    make_bot("mcts:iterations=4,per_move=2", 0).choose(engine, st, engine.legal_moves(st))
    assert leaves and len(leaves) == len(iterations)        # every leaf quiesced before it is valued
    assert all(ev.is_quiet(s) or engine.is_over(s) for s in leaves)
