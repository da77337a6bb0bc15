"""The declaration kinds of the language and the fields each may have.

This is the language's schema: which kinds of game object a pack can declare (in `.rules`
files or YAML data files), which fields they take and of what type. The checker uses it to
report unknown kinds/fields (with "did you mean"), missing required fields and type errors.

Field types (strings, checked by rulespec.checker):
  int, number, bool, str          literal values or expressions of that type
  ref:KIND                        the id of a declaration of KIND (e.g. ref:action)
  list:T                          a list of T
  cost                            a cost expression: 2 florin + (crown | cross), more crown than x, ...
  symbols                         symbols printed on a card/tile bottom: crown, 2 florin | ship
  effect                          a block of statements { ... }
  expr:T                          an expression evaluated during play, of type T
  enum:a|b|c                      one of the listed names
  moment                          a moment of the flow: end_of_round or end_of_PHASE (rulespec/flow.py)
  names                           a list of plain names, not evaluated: [side, card]
  world                           a name, list of names or type of a world declaration, not
                                  evaluated: checked by rulespec.world (on: city, type: "side?")
  any                             anything (free-form data)
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FieldSpec:
    type: str
    required: bool = False
    doc: str = ""
    names: tuple = ()        # local names an expression of this field may use (besides globals)


@dataclass(frozen=True)
class KindSpec:
    name: str
    doc: str
    fields: dict
    blocks: dict = field(default_factory=dict)    # sub-block kind -> KindSpec
    id_is_referenced: bool = True                  # whether "unused" warnings apply
    # whether its ids are names in expressions; not for what only bots read (a plan, an
    # evaluation...), so that a plan `war` does not hide the symbol `war` from the rules
    names_a_value: bool = True
    open_fields: bool = False                      # allow any field (free-form data)


F = FieldSpec
EVIDENCE = "enum:rulebook|board|derived|inferred|placeholder"

_common = {
    "name": F("str", doc="display name"),
    "french": F("str", doc="French name, as printed on the French components"),
    "doc": F("str", doc="free text for designers"),
    "evidence": F("any", doc="where the values come from: rulebook|board|derived|inferred|placeholder"),
    "note": F("str", doc="a note on the evidence"),
}


def _k(name, doc, fields, blocks=None, **kw):
    return KindSpec(name, doc, {**_common, **fields}, blocks or {}, **kw)


SPACE = _k("space", "one space of a track", {
    "points": F("expr:number", doc="Prestige Points for ending the game on this space"),
    "cost": F("cost", doc="what it costs to reach this space"),
    "on_arrival": F("effect", doc="what happens when a player reaches this space"),
    "cortigiano": F("int", doc="extra Cortigiano spaces unlocked while on or past this space"),
    "ends_game": F("bool", doc="reaching this space triggers the end of the game"),
    "spot": F("bool", doc="a piece may stand on this space: place_agent(space(TRACK, n)), agent_at, agent_spots"),
})

ROOM = _k("room", "one Room of a Palace, in clockwise order", {
    "action": F("ref:action", True, "the printed action"),
    "bottom": F("symbols", doc="printed base symbols (covered once a card is placed)"),
    "arrow_after": F("enum:left|right", doc="a Cortigiano arrow is passed when leaving this room"),
})

# -- the world: what exists in a game and what each thing keeps (rulespec.world) -----------------
_FIELD_COMMON = {
    "type": F("world", True, "int, number, bool, str, any, a kind (city, side...), `K?` (or none), `list of T`, "
                             "`count by K` ({K: n}, a 0 drops its key), `map K to T`, `index of FIELD`"),
    "default": F("any", doc="its value until a rule sets it (left out: none, 0, false, [] or {} by type)"),
    "key": F("world", doc="the key it is stored under, when not its name (a pack keeping an older state layout)"),
    "setup": F("world", doc="the setup.yaml key (of the side's colour) its starting value comes from"),
    "min": F("number", doc="the lowest value it can hold: `set` clamps to it (a treasury at min 0)"),
    "sparse": F("bool", doc="stored only once a rule sets it (read: its default until then)"),
}
RECORD_FIELD = _k("field", "a value each record of this type keeps, in this order", dict(_FIELD_COMMON))
ZONE_ENTRY = _k("entry", "fields every entry of the zone keeps (reset when the thing moves)", {},
                {"field": RECORD_FIELD})

# a `field` line of a catalogue kind (rulespec/catalogue.py): a field its declarations may give
DECLARATION_FIELD = _k("field", "a field every declaration of a catalogue kind may give: `field pp: number \"doc\" @required`", {
    "type": F("world", True, "int, number, bool, str, any, cost, symbols, effect, an enum, a kind (action, city...) or `list of T`"),
    "required": F("bool", doc="every declaration of the kind must give it (also written `@required`)"),
})

WORLD_KINDS = ("kind", "field", "record", "zone", "enum")
"""Declarations that describe the world rather than rules: their ids are not values in
expressions (rulespec.world resolves them; the checker reads fields through it)."""

TRACK_ZONE = _k("zone", "a named range of spaces of a track, from `from` to `to` (both included): `zone_of(marker)` gives its id", {
    "from": F("int", True, "the first space of the zone (0 = the track's first space)"),
    "to": F("int", True, "the last space of the zone (included)"),
})

KINDS: dict[str, KindSpec] = {k.name: k for k in [
    _k("game", "the game itself: player counts, flow, limits", {
        "players": F("list:int", doc="supported player counts"),
        "setup": F("effect", doc="what happens at the start, after the YAML setup is applied"),
        "prepare": F("effect", doc="the setup position the rules build before play starts, after the zones take their `initial:` contents and before the tracks that measure something are placed: no player decides anything here (starting Cities and their control discs)"),
        "refresh": F("effect", doc="what derives from the rest of the state, recomputed after a scenario's `given` patches it by hand (no decision: the extra Cortigiano spaces a House is entitled to)"),
        "round": F("effect", doc="one round of play: the phases in order, played again until the game ends (required; `year` is another spelling)"),
        "year": F("effect", doc="another spelling of `round` (the base game's word)"),
        "max_rounds": F("int", doc="a bound for validation playouts: a game must end within this many rounds (`max_years` is another spelling)"),
        "max_years": F("int", doc="another spelling of `max_rounds`"),
        "round_name": F("str", doc="what the pack calls a round in accounts and score sheets (a Year, a Round, a Turn); Round when left out"),
        "tie_break": F("expr:number", doc="per player: higher wins ties on total score"),
        "on_phase_end": F("effect", doc="run at the end of every phase, after its `after:` block and before the end conditions of that moment are checked"),
        "on_track_move": F("effect", doc="run each time the engine moves a side's disc on a track (`advance`, or a track that `measures` something following the board), `player` being that side: what a position on a track gives (the extra Cortigiano spaces of a Cities track space)"),
        "first_player": F("enum:choose|random|seat", doc="how the first player is chosen (choose: by the players, who give new_game the colours in seat order starting with the first player; random: drawn from the game's seeded RNG, the turn order then goes round the seats; left out: setup.yaml's first_player)"),
    }),
    _k("symbol", "a resource symbol printed on card and tile bottoms", {
        "usable_in": F("list:any", doc="the actions and steps where the symbol may be spent"),
        "storable": F("bool", doc="true for florins (go to the treasury); other symbols are used at once"),
        "treasury": F("world", doc="a storable symbol: the side field that keeps it (payments take it from there, "
                                   "and symbols of it tapped from cards and tiles go there)"),
        "surplus_kept": F("expr:bool", doc="a storable symbol: whether what the first sources of a payment "
                                           "(the Room being used) give beyond the cost goes to the treasury (else it is lost)"),
    }),
    _k("action", "an action: what a Room or an Action card lets a player do", {
        "cost": F("cost", doc="the cost paid before the effect, if fixed"),
        "effect": F("effect", True, "what the action does, step by step"),
        "requires": F("expr:bool", doc="when the action may be taken at all"),
        "printed": F("bool", doc="printed on Palace rooms (false: only on cards)"),
    }),
    _k("ability", "a permanent ability (modifier) granted by a card, tile or alliance", {
        "modifies": F("str", True, "what it modifies (a named hook the rules consult)"),
        "amount": F("expr:number", doc="by how much"),
        "condition": F("expr:bool", doc="when it applies"),
    }),
    _k("palace", "a Palace board: rooms in clockwise order", {
        "cortigiano_left": F("int"), "cortigiano_right": F("int"),
        "cortigiano_max": F("int"),
    }, {"room": ROOM}),
    _k("track", "a Prestige track (Cities, Patronage)", {
        "measures": F("expr:number", doc="what the position counts, if derived (e.g. cities controlled); the disc moves, onto the top of the stack, only when the value changes, so values that share a space are clamped into one: max([2, player.city_count])"),
        "max_steps_per_year": F("int", doc="how far a player may advance in one Year"),
        "leader_bonus": F("int", doc="PP for the player(s) furthest along"),
        "stacking": F("enum:top|bottom", doc="where an arriving disc goes in a stack"),
        "markers": F("enum:per_side|shared", doc="per_side (the default): one disc per player, moved by `advance`; "
                                                 "shared: the `marker` declarations on the track, moved both ways by `move_along`"),
    }, {"space": SPACE, "zone": TRACK_ZONE}),
    _k("side", "a side of the game: a player colour, or a faction that does not play (`plays: false`) but can "
               "control cities and own pieces, cards and tiles; its starting pieces come from its `colours:` entry in setup.yaml", {
        "plays": F("bool", doc="true (the default): a colour players may take; false: a faction, never seated, never in `players`"),
        "commanded_by": F("expr:player?", doc="the side that gives the faction's orders now (none: nobody), read as `SIDE.commanded_by`"),
    }, id_is_referenced=False),
    _k("marker", "a marker shared by every player on a `markers: shared` track, moved both ways by `move_along(track, n, marker: M)`", {
        "track": F("ref:track", True, "the track it moves on"),
        "owner": F("ref:side", doc="the side whose marker it is (a colour or a declared side)"),
        "start": F("int", doc="its space at the start of the game (default 0)"),
    }),
    _k("constraint", "an invariant the interpreter enforces after every move", {
        "scope": F("enum:player|side|game|city", doc="what the check is quantified over: player (each seated player), side (each side, factions too: the side is `player` in the check), game"),
        "check": F("expr:bool", True, "must hold"),
        "message": F("str", True, "shown when a move would break it"),
    }),
    _k("scoring", "a scoring category on the score pad", {
        "points": F("expr:number", True, "points for one player"),
        "order": F("int", doc="row on the score pad"),
        "label": F("str"),
    }),
    _k("end_condition", "a condition that triggers the end of the game", {
        "check": F("expr:bool", True, "when true at the checkpoint, the game ends"),
        "at": F("moment", doc="when it is checked: end_of_PHASE (a declared phase) or end_of_round (end_of_year is another spelling)"),
        "then": F("enum:end_of_round|immediately|final_winter", doc="what happens next: the round is played to its end, or the game ends at once (final_winter is another spelling of end_of_round)"),
        "winners": F("expr:set:any", doc="who wins when this condition ends the game (a list of players); left out: the scores decide"),
    }),
    _k("phase", "a phase of a round (Spring and Winter in the base game)", {
        "order": F("expr:any", doc="turn order for the phase"),
        "each_player": F("effect", doc="what each player does, in turn order"),
        "after": F("effect", doc="what happens once every player has played"),
        "before": F("effect", doc="what happens before the first player"),
    }),
    _k("procedure", "a named, reusable piece of effect (a Winter step, a siege resolution...)", {
        "effect": F("effect", True, "the steps"),
        "requires": F("expr:bool", doc="when it may be run"),
        "during_payment": F("expr:bool", doc="offered as a move while the player pays a cost, when this holds (`true`: any cost; `paying_for()` names the Action paid for), e.g. an Indulgence for a Crown"),
        "provides": F("symbols", doc="symbols it can add to a payment (counted by can_pay)"),
    }),
    _k("source", "a payment source: where the symbols of a payment come from. Payments offer the sources in the "
                 "order they are declared; its one parameter (`source court(c: card)`) names one thing or record that pays", {
        "each": F("expr:set:any", True, "the things or records of the paying `player` that may pay now, in order (`paying_for()` "
                                   "names the Action paid for, `paying_within(names)` whether the payment is made within one of them)"),
        "symbols": F("expr:any", True, "what one of them gives (its parameter): a bottom's symbols, `c.bottom`"),
        "label": F("expr:any", doc="its name in the move `tap LABEL SYMBOL` (default: the parameter itself, a thing's id); "
                                   "a text for a `first` source"),
        "first": F("bool", doc="used before the others (\"first use the resources provided from the Action card\"): while "
                               "a first source can help, only first sources may be tapped, and the money it gives stays in "
                               "the payment rather than going to the treasury"),
        "tap": F("effect", True, "what using it does (its parameter, and the `symbol` type used): "
                                 "`{ set c.exhausted = true }`", names=("symbol",)),
    }, id_is_referenced=False, names_a_value=False),
    _k("formula", "a named formula with parameters, usable in any expression: reach(c, target)", {
        "value": F("expr:any", True, "the formula; its parameters are in scope"),
    }),
    _k("table", "a lookup table (salaries, awards per player count...)", {
        "rows": F("any", True, "the rows"),
    }, open_fields=True),
    _k("option", "a rule option players may switch (e.g. ambiguities between rulebooks)", {
        "default": F("any", True), "choices": F("list:any"),
    }),
    _k("player_var", "a value each player keeps, read and set as `player.ID`: what a rule must remember (e.g. the type of the first Patronage Bonus taken)", {
        "default": F("any", True, "its value until a rule sets it"),
    }),
    _k("event", "a structured event the rules record in the game log, `event(ID, KEY: value, ...)`: its keys", {
        "keys": F("names", doc="the keys every `event(ID, ...)` call gives, in the order the log shows them: [side, card]"),
        "emitted_by": F("enum:pay", doc="recorded by the language itself rather than by `event(...)` calls: `pay` records it "
                                        "after every completed payment, with any of the keys side, paid (symbol -> count), "
                                        "total, within (the Action or procedure the payment is part of)"),
    }, id_is_referenced=False),
    _k("city", "a city on the map (usually declared in map.yaml)", {}, open_fields=True),
    _k("sea", "a sea (usually declared in map.yaml)", {}, open_fields=True),
    _k("playout_hint", "how simulated players (the `random` bot) weigh one kind of move: not a rule", {
        "decision": F("str", doc="the prompt of the decisions it applies to (its start); left out: every decision"),
        "move": F("str", True, "the move it weighs (its start): yes, no, done, choose X, option LABEL, tap, run PROCEDURE"),
        "weight": F("number", True, "how likely, against 1 for every other move (0: never, unless nothing else is legal)"),
        "when": F("expr:bool", doc="only where this holds, for the deciding `player` and the move's `choice` "
                                  "(the City, card or number chosen; yes/no; the option's label)", names=("choice",)),
    }, id_is_referenced=False, names_a_value=False),
    _k("heuristic", "a term of how well placed a player is, in Prestige Points, for planning bots: not a rule", {
        "value": F("expr:number", True, "the term for `player` (added to the player's score by the `planner` bot)"),
        "weight": F("number", doc="multiplies the value (default 1)"),
    }, id_is_referenced=False, names_a_value=False),
    _k("evaluation", "how well placed a player is, as one number, for the searching bots (`greedy_eval`, `mcts`): not a rule", {
        "value": F("expr:number", True, "the value for `player`, in Prestige Points; `score` is the player's total on the "
                                        "score pad (docs/bots.md)", names=("score",)),
        "quiet": F("expr:bool", doc="whether a position may be valued now (default: always): where it does not hold (a "
                                    "fight being resolved), `mcts` plays on by the cheap policy until it does"),
    }, id_is_referenced=False, names_a_value=False),
    _k("plan", "a goal a searching bot may commit to over several turns (`mcts:plan=NAME`), and how far it has come: not a rule", {
        "goals": F("expr:any", True, "the goals `player` may commit to now: a list (of Cities, say); the bot keeps its goal "
                                     "while it is in this list"),
        "pick": F("expr:number", doc="how good a `goal` is to commit to, for `player` (the best is taken; default: `progress`)",
                  names=("goal",)),
        "progress": F("expr:number", True, "how far `player` has come towards `goal`, in Prestige Points: added to the "
                                           "player's evaluation while the bot holds that goal", names=("goal",)),
    }, id_is_referenced=False, names_a_value=False),
    _k("die", "a die: `roll DIE as NAME` draws one of its faces from the game's seeded RNG", {
        "faces": F("list:any", True, "the faces, each as likely: numbers, \"texts\" or declared names (e.g. symbols)"),
    }),
    _k("kind", "a kind of thing of the world: each instance keeps the fields declared `on:` it", {
        "plural": F("world", doc="how the set of every instance is named (cities)"),
        "store": F("world", doc="the key of the state its records are kept under (default: the plural)"),
        "owner": F("world", doc="the field that says who owns an instance (a city: controller)"),
        "instances": F("world", doc="where its instances come from: map.cities, map.seas, catalogue "
                                    "(its declarations), setup.colours, list (made by the rules)"),
        "record": F("bool", doc="true (default): each instance has a record in the state; false: a "
                                "catalogue thing whose fields are stored only once set"),
    }, {"field": DECLARATION_FIELD}, id_is_referenced=False),
    _k("field", "a value each instance of a kind keeps, read `x.NAME` and changed by `set x.NAME = v`", {
        "on": F("world", True, "the kind(s) that keep it: a kind's id, a list of them, or `game`"),
        **_FIELD_COMMON,
    }, id_is_referenced=False),
    _k("record", "a record type kept inside other records (a Palace's Rooms): its fields, in order", {},
       {"field": RECORD_FIELD}, id_is_referenced=False),
    _k("zone", "an ordered container of things (a deck, a display, a side's Domain)", {
        "of": F("world", doc="the kinds of thing it holds"),
        "owner": F("world", doc="none (the game's), or the kind whose instances each have one"),
        "ordered": F("bool", doc="its order matters (a stack: the first is on top)"),
        "visibility": F("enum:public|owner|hidden", doc="who may see what it holds"),
        "grouped": F("enum:by_id", doc="kept as piles of copies, by catalogue id"),
        "sorted": F("bool", doc="kept sorted (a thing put back goes to its place)"),
        "counted": F("bool", doc="a pile of identical things, stored as a number"),
        "owned": F("bool", doc="a zone of the sides: what it holds is the side's (its cards and tiles: what it owns)"),
        "key": F("world", doc="the key it is stored under, when not its id"),
        "initial": F("expr:any", doc="what it holds when the game starts: a list of things, in order (a zone a kind owns: for each of them, `self`); a counted zone: a number"),
    }, {"entry": ZONE_ENTRY}, id_is_referenced=False),
    _k("enum", "named values (card types, sides of a tile, roles)", {
        "values": F("names", True, "the values, in order: [notable, family]"),
    }, id_is_referenced=False),
    _k("component", "a physical component and how many the box holds", {
        "count": F("int", True, "how many the box holds"),
        "of_kind": F("enum:card|tile", doc="check: the declared cards/tiles of this kind ..."),
        "of_type": F("str", doc="... and of this type (notable, family, city, title...) must add up to `count` copies"),
        "supply": F("enum:war_tokens", doc="a supply the engine keeps in play, starting with `count`"),
    }),
]}

OVERLAY_OPS = ("replace", "modify")
