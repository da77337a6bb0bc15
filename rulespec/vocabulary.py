"""The primitive vocabulary the DSL composes: names, functions, attributes and verbs.

Python provides exactly these primitives; everything else (costs, targets, formulas, phase
order, scoring) is written in packs. The checker types every expression against this table,
and the interpreter implements each entry (one place to look when adding a primitive).

Types: number, bool, str, player, city, sea, card, tile, symbol, action, alliance, track,
room, colour, cost, none, any, and set:T for collections. 'T?' means T or none.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sig:
    params: tuple          # parameter types, in order ('*T' = any number of T)
    returns: str
    doc: str
    optional: int = 0      # how many trailing params may be omitted


# Names always in scope in expressions and effects.
GLOBALS = {
    "player": ("player", "the player whose decision or turn it is"),
    "players": ("set:player", "all players, in turn order"),
    "sides": ("set:player", "every side: the players in seat order, then the factions (`side X { plays: false }`) in declaration order"),
    "cities": ("set:city", "the cities in play"),
    "seas": ("set:sea", "the seas"),
    "alliances": ("set:alliance", "the Major Powers"),
    "round": ("number", "the current round (1, 2, ...): the pack names it (a Year, a Round...); `year` is another spelling"),
    "phase": ("phase", "the phase being played (spring, winter...)"),
    "self": ("any", "the card, tile, alliance or action being used"),
    "agent_spots": ("set:any", "every City, Palace Room and Alliance, and every track space declared `spot: true`: where an Agent can stand"),
    "game": ("game", "the game itself: its declared fields are read and set as game.NAME (`field NAME: T on game`)"),
}

FUNCTIONS: dict[str, Sig] = {
    # aggregates over collections
    "count": Sig(("set:any",), "number", "how many elements"),
    "sum": Sig(("set:number",), "number", "the sum (0 for an empty set)"),
    "max": Sig(("set:number", "number"), "number", "the largest (or the default for an empty set)", 1),
    "min": Sig(("set:number", "number"), "number", "the smallest (or the default for an empty set)", 1),
    "any": Sig(("set:bool",), "bool", "true if at least one element is true"),
    "all": Sig(("set:bool",), "bool", "true if every element is true"),
    "abs": Sig(("number",), "number", "absolute value"),
    "rank": Sig(("player", "set:number"), "number", "1-based rank of a player by a per-player value, ties share"),
    "lookup": Sig(("any", "any"), "any", "the value of a table row: lookup(salaries, troops)"),
    # map queries (precomputed tables: cheap in the hot loop)
    "adjacent_by_road": Sig(("city", "city"), "bool", "a road joins the two cities"),
    "road_neighbours": Sig(("city",), "set:city", "cities one road away"),
    "road_distance": Sig(("city", "city"), "number", "fewest roads between two cities (99 if none)"),
    "seas_between": Sig(("city", "city"), "number", "seas crossed between two ports (same sea = 1)"),
    "seas_of": Sig(("city",), "set:sea", "seas a port borders"),
    "is_port": Sig(("city",), "bool", "the city borders a sea"),
    "ports_reachable": Sig(("city",), "set:city", "ports reachable by sea from a port"),
    # state queries
    "modified_value": Sig(("city", "player"), "number", "base value -1 for the player's Agent, +1 for another's"),
    "position": Sig(("any", "track"), "number", "a side's space on a track, or a shared marker's (its track may be left out: position(m))", 1),
    "zone_of": Sig(("any",), "track_zone?", "the zone of a track (`zone Z { from: a; to: b }` in the track) that holds a shared marker or a space (space(track, n)); none outside every zone"),
    "steps_left": Sig(("player", "track"), "number",
                      "how many more spaces the player may advance on a track this Year (its max_steps_per_year; 99 without one)"),
    "symbols_owned": Sig(("player", "symbol"), "number", "symbols on all the player's cards and tiles, either side"),
    "bottom": Sig(("any", "symbol"), "number", "how many of a symbol the bottom of one card or tile shows"),
    "owns": Sig(("player", "any"), "bool", "the player owns this card/tile (or one of this type)"),
    "owned": Sig(("player", "str"), "set:any", "the player's cards/tiles of a type (notable, title, city...)"),
    "holder": Sig(("alliance",), "player?", "who holds an alliance"),
    "option": Sig(("str",), "any", "the value of a rule option"),
    "location": Sig(("any",), "set:any", "where a thing is kept: [the record, \"RECORD.FIELD\"] for a holder field of a record of a list ([red.room2, \"room.impr\"]), [the owner, the zone] for a zone a kind owns ([red, \"outside\"]), else [none, none]"),
    "instances": Sig(("any",), "set:any", "every instance of a kind, in the pack's order: the copies of the cards or tiles of the catalogue (instances(card)), the records of a declared kind, or the declarations of a kind (instances(component))"),
    "first_of_each": Sig(("set:any",), "set:any", "the first instance of each catalogue id, in order: the top of each pile (first_of_each(tile_supply))"),
    "setup_of": Sig(("str", "any"), "any", "a value of setup.yaml's entry for the player count being played (setup_of(\"returned_tiles\", [])), or the default", 1),
    "find": Sig(("any", "any", "any"), "set:any", "the instances of a declared kind whose stored field holds a value: find(city, controller, player)"),
    "paying": Sig((), "bool", "a payment is in progress (symbols gained now go to it)"),
    "paying_for": Sig((), "action?", "the Action whose cost is being paid, or could be paid (`can_pay`) now; none for a cost outside an Action (a purchase, removing an Indulgence)"),
    "can_pay": Sig(("cost",), "bool", "whether the player could pay this cost now, from every source they may use"),
    "range": Sig(("number", "number"), "set:number", "the whole numbers from lo to hi, both included"),
    "symbols_available": Sig(("player", "symbol"), "number", "how many of a symbol the player could pay right now"),
    "symbols_at_hand": Sig(("player", "symbol"), "number", "as symbols_available, without what a procedure run while paying could add (an Indulgence's Crown)"),
    "modifier": Sig(("player", "str"), "number", "sum of the amounts of the player's abilities for a hook"),
    "space": Sig(("track", "number"), "space", "the n-th space of a track (0 = start)"),
    "standings": Sig(("track",), "set:player", "players furthest along first; ties: higher in the stack first"),
    "owner_of": Sig(("any",), "player?", "who controls a City, owns a Palace Room, or holds an Alliance"),
    "marked": Sig(("any", "str"), "bool", "a flag set with mark(); flags clear at the end of each phase"),
    "without": Sig(("cost", "symbol", "number"), "cost", "the cost with up to n of one symbol waived (a free Crown...)"),
    "reductions": Sig(("cost", "number"), "set:cost", "the cost with n symbols of the payer's choice waived"),
    "war_bonuses": Sig(("player", "str"), "set:war_bonus", "War Bonuses the player may use now as 'attack', 'defence' or 'battle'"),
}

ATTRIBUTES: dict[str, dict[str, tuple[str, str]]] = {
    "player": {
        "cards": ("set:card", "cards in the Palace"),
        "indulgences": ("number", "Indulgence cards in the Palace"),
        "cortigiano_spaces": ("number", "Cortigiano spaces the player is entitled to (printed + the `cortigiano` of their Domain tiles, cards beside the Palace or on a Cortigiano space, track spaces reached)"),
        "extra_spaces": ("number", "extra (shaded) Cortigiano spaces the player is entitled to"),
    },
    "room": {
        "action": ("action", "the Action card's action, else the printed one"),
        "arrow_after": ("str?", "the Cortigiano edge ('left'/'right') whose arrow is passed leaving this Room"),
    },
    "space": {
        "points": ("number", "Prestige Points for ending on this space"),
        "cost": ("cost", "the cost to reach it"),
        "ends_game": ("bool", "reaching it triggers the end of the game"),
        "cortigiano": ("number", "extra Cortigiano spaces"),
    },
    "city": {
        "value": ("number", "base value printed on the board"),
        "is_port": ("bool", "it borders a sea"),
        "pirate": ("bool", "a pirate port"),
        "annexable": ("bool", "may be annexed"),
        "tile": ("tile?", "the City tile of this city"),
    },
    "card": {"owner": ("player?", "who owns it"),
             "pp": ("number", "its Prestige Points"), "type": ("str", "notable, family, indulgence, patronage"),
             "cost": ("cost", "purchase cost"), "copies": ("number", "copies in the box"),
             "id": ("str", "its card type id")},
    "tile": {"owner": ("player?", "who owns it"),
             "pp": ("number", "its Prestige Points"), "type": ("str", "city, title, guild, cathedral, patronage"),
             "cost": ("cost", "purchase cost"),
             "spent": ("bool", "used to pay during the current action"), "id": ("str", "its tile type id")},
    "track": {"leader_bonus": ("number", "")},
    "sea": {"name": ("str", "")},
    "colour": {"house": ("str", ""), "name": ("str", "")},
    "action": {"name": ("str", "")},
    "symbol": {"name": ("str", "")},
}

# Verbs: statements that change the state. Each is one primitive implemented in Python.
VERBS: dict[str, Sig] = {
    "take_tile": Sig(("any", "str"), "none", "take a tile into the Domain, on the given side", 1),
    "advance": Sig(("track", "number"), "none", "move the player's disc along a track", 1),
    "move_along": Sig(("track", "number"), "none", "move a shared marker n spaces along its track, back when n < 0, stopping at either end: move_along(t, -2, marker: m)"),
    "take_war_token": Sig(("number",), "none", "take +1 War Bonus tokens from the supply", 1),
    "perform": Sig(("action",), "none", "perform another action (with keyword arguments)"),
    "run": Sig(("procedure",), "none", "run a procedure (with keyword arguments)"),
    "set_turn_order": Sig(("set:player",), "none", "set the turn order"),
    "end_game": Sig((), "none", "end the game now"),
    "log": Sig(("*any",), "none", "write a line to the game account: log(\"Siege:\", attack, \"against\", defence)"),
    "event": Sig(("event",), "none", "record a structured event in the game log: event(card_gained, side: player, card: c), with the keys its `event` declaration lists"),
    "mark": Sig(("any", "str"), "none", "set a flag on a thing until the end of the phase"),
    "waste_leftover": Sig((), "none", "the symbols tapped beyond a cost and not used yet are lost (until then they pay the next costs of the same Action, or outside Actions of the same phase)"),
    "move": Sig(("any", "any"), "none", "move a thing to a zone (`display`, `player.outside`, `stack[0]`: on top), a field that holds a thing (`room.action_card`) or none; entry fields by name: move(t, player.tiles, exhausted: true)"),
    "use_bottom": Sig(("any",), "none", "the card's bottom can pay nothing else in this action"),
    "play_phase": Sig(("phase",), "none", "play a phase: before, each player in turn order, after; then end conditions"),
    "check_end": Sig(("str",), "none", "check the end conditions declared for this moment"),
    "add_to_payment": Sig(("symbol", "number"), "none", "add n symbols to the payment in progress (lost when none is): what gain(crown) does while paying", 1),
    "remeasure": Sig(("player",), "none", "put a side where the tracks that measure something (`measures:`) now place it"),
}

# Bare names with a fixed meaning (sides, deck types, tile types...), usable as values.
CONSTANTS = {
    "available": "str", "exhausted": "str", "left": "str", "right": "str",
    "attack": "str", "defence": "str", "both": "str",
    "notable": "str", "family": "str", "indulgence": "str", "patronage": "str",
    "city": "str", "title": "str", "guild": "str", "cathedral": "str",
    "artist": "str", "work": "str", "cortigiano": "str", "outside": "str", "domain": "str",
    "immediately": "str", "top": "str", "bottom": "str",
    "player": "str", "game": "str", "per_siege": "str", "until_reactivated": "str",
    "choose": "str", "random": "str", "seat": "str", "rulebook": "str", "board": "str",
    "derived": "str", "inferred": "str", "placeholder": "str",
}
