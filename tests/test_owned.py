"""What a side owns is declared (docs/language.md, "What a side owns"): `@owned` holder fields of
the records of a side's lists and `owned: true` zones of the sides. The engine's cards_of,
tiles_of, owned(), owner_of and the constraints' static reads walk those places (World.owned_places,
Ruleset.owned_walks); which of them lend War Bonuses is the pack's formula `war_bonus_things`.
"""
from __future__ import annotations

import pytest

from interpreter.api import Engine
from interpreter.bots import play_game
from interpreter.runtime import _reads_owned
from rulespec.pack import load_pack
from rulespec.parser import parse_expr
from validator.static import validate_pack

COLOURS = ["red", "yellow", "green", "blue", "white"]


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def _expr(engine, state, text, player="red"):
    fn, _ = engine.rs.comp.expr(parse_expr(text), {})
    return fn(engine.runtime(state), {"player": player})


def test_the_base_pack_declares_where_a_house_owns_things(engine):
    places = engine.rs.world.owned_places()
    assert [(p.name, p.key, p.holders, p.entries) for p in places] == [
        ("rooms", "rooms", (("card", "card"), ("impr", "card")), False),
        ("court", "court", (("card", "card"),), False),
        ("tiles", "tiles", (), True),
        ("outside", "outside", (), False),
        ("unplaced", "unplaced", (), False),
    ]
    # the Indulgence on a Room is held there, not owned
    room = engine.rs.world.records["room"]
    assert room.fields["indulgence"].holds and not room.fields["indulgence"].owned
    walks = engine.rs.owned_walks
    assert [s[0] for s in walks["card"]] == ["rooms", "court", "outside", "unplaced"]
    assert [s[0] for s in walks["tile"]] == ["tiles", "outside"]
    # a catalogue test only where another kind may be: beside the Palace
    assert [s[0] for s in walks["card"] + walks["tile"] if s[3] is not None] == ["outside", "outside"]


def test_the_reads_of_owned_are_the_walked_places(engine):
    rs = engine.rs
    tile_type = next(iter(rs.tile_kinds - rs.card_kinds))
    card_type = next(iter(rs.card_kinds - rs.tile_kinds))
    assert _reads_owned(rs, ["player"], [None, tile_type]) == [
        ("player", k) for k in ("tiles", "tiles.id", "outside")]
    assert _reads_owned(rs, ["player"], [None, card_type]) == [
        ("player", k) for k in ("rooms", "rooms.card", "rooms.impr", "court", "court.card", "outside", "unplaced")]
    assert _reads_owned(rs, ["any"], [None, "no_such_kind"]) == []
    assert {k for _, k in _reads_owned(rs, ["any"], [None, None])} == \
        {"rooms", "rooms.card", "rooms.impr", "court", "court.card", "outside", "unplaced", "tiles", "tiles.id"}


def _old_bonus_sources(rt, p):
    """fight._bonus_sources as the engine wrote it before the pack's `war_bonus_things`."""
    pl = rt.P(p)
    out = []
    if pl.get("war_tokens", 0) > 0:
        out += [(b, "token") for b, wb in rt.rs.war_bonuses.items() if wb["uses_tokens"]]
    for s in pl["court"]:
        if s["card"] and not s["exhausted"]:
            out += [(b, s["card"]) for b in rt.item(s["card"]).get("war_bonus", [])]
    for c in pl["outside"]:
        out += [(b, c) for b in rt.item(c).get("war_bonus", [])]
    for t in pl["tiles"]:
        if not t["exhausted"]:
            out += [(b, t["id"]) for b in rt.item(t["id"]).get("war_bonus", [])]
    out += rt._held_bonuses(p)
    return [(b, s) for b, s in out if b in rt.rs.war_bonuses]


@pytest.mark.parametrize("pack", ["base_3to5", "wars_of_italy"])
def test_the_walks_give_what_the_pack_lists_through_a_game(pack):
    """At every 20th state of a random game: cards_of is the pack's `cards` formula, tiles_of the
    side's Domain, owner_of finds each of them, and the War Bonuses a side may use are those the
    engine listed itself before (court, outside, tiles; Exhausted ones left out)."""
    engine = Engine(load_pack(pack))
    seen = [0]
    lent = [0]

    def check(turn, move, events, state):
        seen[0] += 1
        if seen[0] % 20:
            return
        rt = engine.runtime(state)
        for p in state["p"]:
            cards = rt.cards_of(p)
            assert cards == _expr(engine, state, "player.cards", p), p
            assert rt.tiles_of(p) == [e["id"] for e in state["p"][p]["tiles"]]
            for x in cards[:3] + rt.tiles_of(p)[:3]:
                assert rt.owner_of(x) == p
            got = rt._bonus_sources(p)
            assert got == _old_bonus_sources(rt, p), p
            lent[0] += len(got)
    play_game(engine, 4 if pack == "base_3to5" else 2, 3, "random", on_move=check)
    assert seen[0] > 200 and lent[0] > 0


OVERLAY = {
    "pack.yaml": "id: keepsakes\nname: Keepsakes\nversion: 1.0.0\nextends: base_3to5\n",
    "rules/keepsakes.rules": """
        # a House's keepsakes are its own; its unplaced Family cards are not (yet)
        zone keepsakes "What a House keeps apart" { of: card; owner: side; owned: true }
        replace zone unplaced "Family cards waiting to be placed" {
          of: card
          owner: side
          visibility: owner
          initial: [c for c in instances(card) where c.type == family and c.colour == self and in_play(c)]
        }
    """,
}


def test_an_overlay_says_where_a_side_owns_things(make_pack):
    report = validate_pack(make_pack("keepsakes", OVERLAY))
    assert not report.errors, [str(d) for d in report.errors]
    engine = Engine(report.pack)
    st = engine.new_game(COLOURS[:3], 2)
    rt = engine.runtime(st)
    assert [p.name for p in engine.rs.world.owned_places()] == ["rooms", "court", "tiles", "outside", "keepsakes"]
    red = st["p"]["red"]
    assert red["unplaced"] and not set(red["unplaced"]) & set(rt.cards_of("red"))
    kept = st["supply"]["indulgences"][0]
    red["keepsakes"] = [kept]
    assert rt.cards_of("red")[-1] == kept and rt.owner_of(kept) == "red"
    assert rt.owner_of(red["unplaced"][0]) is None
    assert kept in rt.f_owned("red", "indulgence")
    assert ("player", "keepsakes") in _reads_owned(engine.rs, ["player"], [None, "indulgence"])
    assert ("player", "unplaced") not in _reads_owned(engine.rs, ["player"], [None, "indulgence"])


BAD = {
    "not a holder": ("record trinket { field thing: card? @owned }\nfield trinkets: list of trinket on side\n",
                     1, "holds no thing"),
    "kept by no side": ("record shelf { field thing: card? @holds @owned }\n", 1, "kept in no list of the sides"),
    "a kind's field": ("field charm: card? on side @owned\n", 1, "is not one"),
    "the game's zone": ("zone pile { of: card; owner: none; owned: true }\n", 1, "not a zone of the sides"),
    "a counted zone": ("zone coins { counted: true; owner: side; owned: true }\n", 1, "no things one by one"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_misplaced_owned_mark_is_rs106_where_it_is_written(make_pack, case):
    text, line, words = BAD[case]
    folder = make_pack("bad_owned", {"pack.yaml": "id: bad_owned\nname: Bad\nversion: 1.0.0\nextends: base_3to5\n",
                                     "rules/bad.rules": text})
    report = validate_pack(folder)
    got = [d for d in report.errors if d.code == "RS106" and words in d.message]
    assert got, [str(d) for d in report.errors]
    d = got[0]
    assert d.span.file.endswith("bad.rules") and d.span.line == line and d.hint


def test_an_ability_beside_the_palace_counts_once(engine):
    """Michelangelo "provides a free Crown for your Sponsor actions" (a Patronage bonus kept
    beside the Palace): one Crown. The engine's own list of a side's things named the cards
    beside the Palace twice (among its cards, then as its `outside` zone), which gave two."""
    st = engine.new_game(COLOURS[:3], seed=1)
    assert _expr(engine, st, 'modifier(player, "sponsor_crowns")') == 0
    st["supply"]["bonuses"].remove("michelangelo")
    st["p"]["red"]["outside"].append("michelangelo")
    assert _expr(engine, st, 'modifier(player, "sponsor_crowns")') == 1
    assert _expr(engine, st, 'modifier(player, "sponsor_crowns")', player="yellow") == 0
