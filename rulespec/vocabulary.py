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
    "round": ("number", "the current round (1, 2, ...): the pack names it (a Year, a Round...); `year` is another spelling"),
    "phase": ("phase", "the phase being played (spring, winter...)"),
    "self": ("any", "the card, tile, alliance or action being used"),
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
    # the map's graph (precomputed tables: cheap in the hot loop). `via:` names the kinds of edge
    # a path may use (rulespec.board.EDGE_KINDS: road, coast, sea), one or a list: via: [coast, sea]
    "neighbours": Sig(("any",), "set:any", "the nodes (cities, seas) one edge of the `via:` kinds away, sorted: neighbours(c, via: road)"),
    "distance": Sig(("any", "any"), "number", "fewest edges of the `via:` kinds between two nodes (0 to itself, 99 if none): distance(a, b, via: road)"),
    "reachable": Sig(("any",), "set:any", "every other node a path of edges of the `via:` kinds reaches, sorted: reachable(c, via: [coast, sea])"),
    # state queries
    "position": Sig(("any", "track"), "number", "a side's space on a track, or a shared marker's (its track may be left out: position(m))", 1),
    "zone_of": Sig(("any",), "track_zone?", "the zone of a track (`zone Z { from: a; to: b }` in the track) that holds a shared marker or a space (space(track, n)); none outside every zone"),
    "symbols_owned": Sig(("player", "symbol"), "number", "symbols on all the player's cards and tiles, either side"),
    "owned": Sig(("player", "str"), "set:any", "the player's cards/tiles of a type (notable, title, city...)"),
    "option": Sig(("str",), "any", "the value of a rule option"),
    "location": Sig(("any",), "set:any", "where a thing is kept: [the record, \"RECORD.FIELD\"] for a holder field of a record of a list ([red.room2, \"room.impr\"]), [the owner, the zone] for a zone a kind owns ([red, \"outside\"]), else [none, none]"),
    "instances": Sig(("any",), "set:any", "every instance of a kind, in the pack's order: the copies of the cards or tiles of the catalogue (instances(card)), the records of a declared kind, or the declarations of a kind (instances(component))"),
    "first_of_each": Sig(("set:any",), "set:any", "the first instance of each catalogue id, in order: the top of each pile (first_of_each(tile_supply))"),
    "setup_of": Sig(("str", "any"), "any", "a value of setup.yaml's entry for the player count being played (setup_of(\"returned_tiles\", [])), or the default", 1),
    "find": Sig(("any", "any", "any"), "set:any", "the instances of a declared kind whose stored field holds a value: find(city, controller, player)"),
    "paying": Sig((), "bool", "a payment is in progress (symbols gained now go to it)"),
    "paying_for": Sig((), "action?", "the Action whose cost is being paid, or could be paid (`can_pay`) now; none for a cost outside an Action (a purchase, removing an Indulgence)"),
    "paying_within": Sig(("set:any",), "bool", "whether the payment being made, or considered (`can_pay`, a `source`), is made within one of these actions and procedures: the Action paid for, or an action or procedure being run (a Winter step such as `purchase`, a `retreat`)"),
    "can_pay": Sig(("cost",), "bool", "whether the player could pay this cost now, from every source they may use"),
    "range": Sig(("number", "number"), "set:number", "the whole numbers from lo to hi, both included"),
    "flatten": Sig(("set:any",), "set:any", "the elements of a list of lists, one list after the other: flatten([p.rooms for p in players])"),
    "symbols_available": Sig(("player", "symbol"), "number", "how many of a symbol the player could pay right now"),
    "symbols_at_hand": Sig(("player", "symbol"), "number", "as symbols_available, without what a procedure run while paying could add (an Indulgence's Crown)"),
    "symbols_in_action": Sig(("player", "symbol"), "number", "how many of a symbol the player could still pay in the Action they are running (its Room's cards, the symbols left over from its payments, and what symbols_available counts), read from anywhere (a bot's evaluation); 0 when they run none"),
    "modifier": Sig(("player", "str"), "number", "sum of the amounts of the player's abilities for a hook"),
    "space": Sig(("track", "number"), "space", "the n-th space of a track (0 = start)"),
    "spaces": Sig(("track",), "set:space", "every space of a track, in order: space(t, 0), space(t, 1)..."),
    "owner_of": Sig(("any",), "player?", "who controls a City, owns a Palace Room, or holds an Alliance"),
    "marked": Sig(("any", "str"), "bool", "a flag set with mark(); flags clear at the end of each phase"),
    "without": Sig(("cost", "symbol", "number"), "cost", "the cost with up to n of one symbol waived (a free Crown...)"),
    "reductions": Sig(("cost", "number"), "set:cost", "the cost with n symbols of the payer's choice waived"),
    "war_bonuses": Sig(("player", "str"), "set:war_bonus", "War Bonuses the player may use now as 'attack', 'defence' or 'battle'"),
}

ATTRIBUTES: dict[str, dict[str, tuple[str, str]]] = {
    # every built-in attribute has left (issue 16): the pack's declared fields and method
    # formulas give them (`player.cortigiano_spaces`, `room.action`: palace.rules); the types stay
    # listed so that their attributes are looked up as before
    "player": {},
    "room": {},
}

# Verbs: statements that change the state. Each is one primitive implemented in Python.
VERBS: dict[str, Sig] = {
    "advance": Sig(("track", "number"), "none", "move the player's disc along a track", 1),
    "move_along": Sig(("track", "number"), "none", "move a shared marker n spaces along its track, back when n < 0, stopping at either end: move_along(t, -2, marker: m)"),
    "perform": Sig(("action",), "none", "perform another action (with keyword arguments)"),
    "run": Sig(("procedure",), "none", "run a procedure (with keyword arguments)"),
    "set_turn_order": Sig(("set:player",), "none", "set the turn order"),
    "end_game": Sig((), "none", "end the game now"),
    "log": Sig(("*any",), "none", "write a line to the game account: log(\"Siege:\", attack, \"against\", defence)"),
    "event": Sig(("event",), "none", "record a structured event in the game log: event(card_gained, side: player, card: c), with the keys its `event` declaration lists"),
    "mark": Sig(("any", "str"), "none", "set a flag on a thing until the end of the phase"),
    "waste_leftover": Sig((), "none", "the symbols tapped beyond a cost and not used yet are lost (until then they pay the next costs of the same Action, or outside Actions of the same phase)"),
    "move": Sig(("any", "any"), "none", "move a thing to a zone (`display`, `player.outside`, `stack[0]`: on top), a field that holds a thing (`room.action_card`) or none; entry fields by name: move(t, player.tiles, exhausted: true)"),
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
