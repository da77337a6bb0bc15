"""`rulespec profile`: where a playout's time goes, named by the pack's own rules.

The report must blame the right rule (a costly formula and constraint an overlay adds come
first, at their file:line), leave the games as they are, and put the engine back as it was."""
import json

import pytest

from interpreter import runtime, vm
from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.playout_policy import PlayoutPolicy
from rulespec import rule_profile
from rulespec.bench_worker import moves_sha256
from rulespec.cli import main
from rulespec.pack import load_pack

# a formula that walks 3,000 numbers each time a player's cards change, read by a constraint
# (called by keyword, so that the compiler does not write it into its caller: compiler._inline)
SLOW = '''
formula slow_count(p: side) "Deliberately slow" {
  value: count([x for x in range(1, 3000) where x > 0]) + count(p.cards)
}
constraint slow_limit "A check that costs" {
  scope: player
  check: slow_count(p: player) >= 0
  message: "never"
}
'''


@pytest.fixture(scope="module")
def slow_pack(tmp_path_factory):
    from conftest import write_pack
    return load_pack(write_pack(tmp_path_factory.mktemp("slow"), {
        "pack.yaml": "id: slow\nname: Slow\nversion: 0.1.0\nextends: base_3to5\n", "slow.rules": SLOW}))


def test_the_costly_rules_of_an_overlay_come_first(slow_pack):
    s = rule_profile.summary(rule_profile.profile(slow_pack, 3, [1]), top=5)
    top_formula, top_constraint = s["formulas"][0], s["constraints"][0]
    assert top_formula["formula"] == "slow_count" and top_formula["at"].endswith("slow.rules:1:1")
    assert top_constraint["constraint"] == "slow_limit" and top_constraint["at"].endswith("slow.rules:4:1")
    # the constraint's time holds its formula's (it is the formula's only reader)
    assert top_constraint["share"] >= top_formula["share"] > 0.03
    assert s["phases"]["constraint check"] > 0.1
    assert 0.99 < sum(s["phases"].values()) < 1.01
    assert all(r["statement"] and ".rules:" in r["at"] for r in s["statements"])


def test_an_error_in_the_run_puts_the_engine_back():
    engine = Engine(load_pack("base_3to5"))
    formula, execs = runtime.Runtime.formula, list(vm._EXEC)
    hints = PlayoutPolicy.for_engine(engine).hints
    with pytest.raises(ZeroDivisionError):
        with rule_profile.timed(engine, rule_profile.RuleProfile()):
            1 / 0
    assert runtime.Runtime.formula is formula and vm._EXEC == execs
    assert "apply" not in engine.__dict__ and "check" not in engine.constraint_checker.__dict__
    assert PlayoutPolicy.for_engine(engine).hints is hints
    assert all(not getattr(c["check"], "__name__", "") == "evaluate" for c in engine.constraint_checker.constraints)


def test_cli_json_plays_the_untimed_game_and_puts_the_engine_back(capsys):
    formula, execs = runtime.Runtime.formula, list(vm._EXEC)
    assert main(["profile", "base_3to5", "--players", "3", "--games", "1", "--seed", "2", "--top", "4", "--json"]) == 0
    assert runtime.Runtime.formula is formula and vm._EXEC == execs
    s = json.loads(capsys.readouterr().out)
    assert s["games"] == 1 and s["players"] == 3
    assert s["moves_sha256"] == [moves_sha256(play_game(Engine(load_pack("base_3to5")), 3, 2)[1])]
    assert s["decisions"] > 500
    for rows in s["formulas"], s["constraints"], s["hints"]:
        assert rows and all(".rules:" in r["at"] and r["per_decision"] > 0 for r in rows)
    assert {r["hint"] for r in s["hints"]} <= {d.id for d in load_pack("base_3to5").of_kind("playout_hint")}
    assert len(s["formulas"]) == 4 and set(s["phases"]) == {"legal moves", "rules' run (apply)", "constraint check",
                                                            "bot and game loop"}
    shares = [r["share"] for r in s["statements"]]
    assert shares == sorted(shares, reverse=True) and shares[0] > 0


# a playout hint whose `when` walks 15,000 numbers each time the bot weighs the answers of one
# decision (Winter's "Recruit a Troop?", phases.rules:366: about 1% of a game's time without it)
SLOW_DECISION = '''
playout_hint slow_advice "Deliberately slow advice" {
  decision: "Recruit a Troop?"
  move: "option"
  when: count([x for x in range(1, 15000) where x > 0]) > 0
  weight: 1
}
'''


def test_the_decisions_table_blames_the_decision_whose_answering_costs(tmp_path):
    from conftest import write_pack
    pack = load_pack(write_pack(tmp_path, {"pack.yaml": "id: slowd\nname: Slow decision\nversion: 0.1.0\n"
                                                        "extends: base_3to5\n", "slow.rules": SLOW_DECISION}))
    prof = rule_profile.profile(pack, 3, [1])
    s = rule_profile.summary(prof, top=5)
    top = s["by_decision"][0]
    assert (top["decision"], top["prompt"]) == ("either", "Recruit a Troop?")
    assert top["at"].endswith("rules/phases.rules:366:7")        # the statement, as the other tables name theirs
    assert top["share"] > 0.1
    # every decision asked is in the table once, and they hold the games' time but the setups
    assert sum(n for n, _ in prof.decisions_by.values()) == prof.decisions
    assert 0.8 < s["by_decision_share"] <= 1.0
    assert "slow_advice" in {r["hint"] for r in s["hints"]}
    line = next(x for x in rule_profile.text(s).splitlines() if 'either "Recruit a Troop?"' in x)
    assert line.endswith("rules/phases.rules:366:7") and not line.split()[-1].startswith("/")   # named relative
