"""Zones as the pack declares them (world-model plan stage 5): read by name (`display`) or as
`x.ZONE` (`player.tiles`), filled at setup by their `initial:` expressions, then the game's
`prepare` block; and the globals that became pack formulas (`notables`, `opponents`...).
The setup position itself is compared byte for byte with the Python setup it replaced in
tests/test_initial_state.py."""
from __future__ import annotations

import pytest

from interpreter.api import engine_for
from rulespec.errors import RulespecError
from rulespec.parser import parse_expr
from validator.static import validate_pack

COLOURS = ["red", "yellow", "green", "blue", "white"]


@pytest.fixture(scope="module")
def engine():
    return engine_for("base_3to5")


@pytest.fixture(scope="module", params=[3, 4, 5])
def game(request, engine):
    """A game some moves in, so the supply and the Domains have changed since setup."""
    from interpreter.bots import play_game
    state, _ = play_game(engine, COLOURS[:request.param], 5, "random", max_moves=400)
    return state


def _expr(engine, state, text, player="red"):
    fn, _ = engine.rs.comp.expr(parse_expr(text), {})
    return fn(engine.runtime(state), {"player": player})


def test_the_formulas_that_were_globals_say_what_the_state_says(engine, game):
    sup = game["supply"]
    assert _expr(engine, game, "notables") == [pile[0] for pile in sup["notables"].values() if pile]
    seen, tops = set(), []
    for t in sup["tiles"]:
        if t.split("#")[0] not in seen:
            seen.add(t.split("#")[0])
            tops.append(t)
    assert _expr(engine, game, "supply_tiles") == tops
    assert _expr(engine, game, "neutral_cities") == [c for c, r in game["cities"].items() if r["controller"] is None]
    assert _expr(engine, game, "num_players") == len(game["players"])
    assert _expr(engine, game, "opponents", "yellow") == [p for p in game["turn_order"] if p != "yellow"]
    assert _expr(engine, game, "bonuses") == sup["bonuses"]
    assert _expr(engine, game, "count(indulgence_stack)") == len(sup["indulgences"])
    assert _expr(engine, game, "token_supply") == sup["war_tokens"]


def test_a_sides_zones_and_the_method_formulas(engine, game):
    for p, rec in game["p"].items():
        assert _expr(engine, game, "player.tiles", p) == [t["id"] for t in rec["tiles"]]
        assert _expr(engine, game, "player.unplaced", p) == rec["unplaced"]
        assert _expr(engine, game, "player.colour", p) == p
    for c, rec in game["cities"].items():
        assert _expr(engine, game, f"{c}.neutral") is (rec["controller"] is None)
        starting = [p for p, r in game["p"].items() if c in r["starting_cities"]]
        assert _expr(engine, game, f"{c}.starting_colour") == (starting[0] if starting else None)
    for a, rec in game["alliances"].items():
        want = rec["holder"] is not None and not rec["used"] and rec["agent"] in (None, rec["holder"])
        assert _expr(engine, game, f"{a}.bonus_available") is want


def test_instances_and_first_of_each(engine):
    st = engine.new_game(COLOURS[:4], 1)
    cards = _expr(engine, st, "instances(card)")
    assert len(cards) == sum(c["copies"] for c in engine.rs.cards.values())
    assert len(set(cards)) == len(cards)
    assert _expr(engine, st, "first_of_each(instances(card))") == [c for c in cards if "#" not in c or c.endswith("#1")]


OVERLAY = {
    "pack.yaml": "id: omens\nname: Omens\nversion: 1.0.0\nextends: base_3to5\n",
    "rules/omens.rules": """
        zone omen_deck "Omens still to be read" {
          of: card; owner: none
          initial: [c for c in instances(card) where c.type == "indulgence"]
        }
        zone keepsakes "What a House keeps apart" {
          of: card; owner: side
          initial: [c for c in self.unplaced where c.colour == self]
        }
        modify game virtu {
          prepare: {
            for s in sides {
              for c in s.starting_cities where c in cities {
                set c.controller = s
              }
              set s.troops_reserve = s.troops_reserve - sum([c.troops[s] for c in cities])
            }
            set florence.cathedral = true
          }
        }
        procedure omen_count { effect: { log(count(omen_deck), count(player.keepsakes)) } }
        action read_omens { effect: { run(omen_count) } }
    """,
}


def test_an_overlay_declares_zones_with_initial_contents(make_pack):
    from interpreter.api import Engine
    report = validate_pack(make_pack("omens", OVERLAY))
    assert not report.errors, [str(d) for d in report.errors]
    st = Engine(report.pack).new_game(COLOURS[:3], 2)
    assert list(st["supply"])[-1] == "omen_deck"                 # after the base pack's zones
    assert st["supply"]["omen_deck"] == st["supply"]["indulgences"] and st["supply"]["omen_deck"]
    for rec in st["p"].values():              # evaluated for each side (`self`), after `unplaced`
        assert list(rec)[-1] == "keepsakes" and rec["keepsakes"] == rec["unplaced"] and rec["unplaced"]
    assert st["cities"]["florence"]["cathedral"] is True          # the prepare block ran
    assert st["cities"]["florence"]["controller"] == "red"        # and the base pack's part of it
    assert "milan" not in st["cities"]                            # 3 players: Milan is not in play


def test_a_prepare_block_cannot_ask_a_decision(make_pack):
    from interpreter.api import Engine
    files = dict(OVERLAY)
    files["rules/omens.rules"] = files["rules/omens.rules"].replace(
        "set florence.cathedral = true", 'choose c in cities "A City" { set c.cathedral = true }')
    report = validate_pack(make_pack("omens2", files))
    with pytest.raises(RulespecError) as e:
        Engine(report.pack).new_game(COLOURS[:3], 2)
    assert e.value.code == "RS301" and "decision" in str(e.value)


def test_instances_names_a_kind(make_pack):
    files = {"pack.yaml": OVERLAY["pack.yaml"].replace("omens", "inst"),
             "rules/x.rules": "formula how_many { value: count(instances(florin)) }\n"
                              "action count_them { effect: { log(how_many) } }\n"}
    report = validate_pack(make_pack("inst", files))
    bad = [d for d in report.errors if d.code == "RS105"]
    assert bad and "instances" in bad[0].message and bad[0].span.line == 1
