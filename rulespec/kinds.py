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
  names                           a list of plain names, not evaluated: [side, card]
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
})

ROOM = _k("room", "one Room of a Palace, in clockwise order", {
    "action": F("ref:action", True, "the printed action"),
    "bottom": F("symbols", doc="printed base symbols (covered once a card is placed)"),
    "arrow_after": F("enum:left|right", doc="a Cortigiano arrow is passed when leaving this room"),
})

KINDS: dict[str, KindSpec] = {k.name: k for k in [
    _k("game", "the game itself: player counts, flow, limits", {
        "players": F("list:int", doc="supported player counts"),
        "setup": F("effect", doc="what happens at the start, after the YAML setup is applied"),
        "year": F("effect", True, "one Year: the phases in order"),
        "max_years": F("int", doc="a bound for validation playouts: a game must end within this many years"),
        "tie_break": F("expr:number", doc="per player: higher wins ties on total score"),
        "first_player": F("enum:choose|random|seat", doc="how the first player is chosen (choose: by the players, who give new_game the colours in seat order starting with the first player; random: drawn from the game's seeded RNG, the turn order then goes round the seats; left out: setup.yaml's first_player)"),
    }),
    _k("symbol", "a resource symbol printed on card and tile bottoms", {
        "usable_in": F("list:any", doc="the actions and steps where the symbol may be spent"),
        "storable": F("bool", doc="true for florins (go to the treasury); other symbols are used at once"),
    }),
    _k("action", "an action: what a Room or an Action card lets a player do", {
        "cost": F("cost", doc="the cost paid before the effect, if fixed"),
        "effect": F("effect", True, "what the action does, step by step"),
        "requires": F("expr:bool", doc="when the action may be taken at all"),
        "printed": F("bool", doc="printed on Palace rooms (false: only on cards)"),
    }),
    _k("card", "a card: Notable, Family, Indulgence or Patronage bonus card", {
        "type": F("enum:notable|family|indulgence|patronage", True, "which deck it belongs to"),
        "copies": F("int", doc="how many copies are in the box"),
        "cost": F("cost", doc="purchase cost (upper-left corner)"),
        "action": F("ref:action", doc="the Action in the upper-right corner, if any"),
        "action_args": F("any", doc="arguments passed to the action (e.g. max_uses: 1)"),
        "bottom": F("symbols", doc="resource symbols at the bottom"),
        "pp": F("expr:number", doc="Prestige Points at the end of the game"),
        "agent": F("bool", doc="gaining the card gives one more available Agent"),
        "war_bonus": F("list:any", doc="War Bonuses printed on the card: see war_bonus declarations"),
        "colour": F("ref:colour", doc="for Family cards: the owning colour"),
        "limit": F("int", doc="how many a player may own at once"),
        "bonus_type": F("enum:artist|work", doc="for Patronage bonuses"),
        "placement": F("enum:cortigiano|outside|domain", doc="where the card goes when gained"),
        "abilities": F("list:ref:ability", doc="permanent abilities granted while owned"),
        "counts_as": F("enum:notable|family|indulgence|patronage", doc="treated as this type"),
        "crosses": F("int", doc="extra Crosses counted for religious influence only"),
        "cortigiano": F("int", doc="extra Cortigiano spaces granted while owned"),
        "players": F("list:int", doc="player counts the card is used at"),
    }),
    _k("tile", "a tile: City, Title, Guild, Cathedral or Patronage tile", {
        "type": F("enum:city|title|guild|cathedral|patronage", True, "which kind of tile"),
        "copies": F("int", doc="how many copies are in the box"),
        "city": F("ref:city", doc="for City tiles: the city"),
        "colour": F("ref:colour", doc="coat of arms: the owning colour"),
        "cost": F("cost", doc="purchase cost"),
        "bottom": F("symbols", doc="resource symbols at the bottom"),
        "pp": F("expr:number", doc="Prestige Points at the end"),
        "cortigiano": F("int", doc="extra Cortigiano spaces (still usable when Exhausted)"),
        "limit": F("int", doc="how many a player may own at once (the ① mark = 1)"),
        "excludes": F("list:ref:tile", doc="tiles that cannot be owned together with this one"),
        "requires": F("expr:bool", doc="condition to buy it"),
        "on_gain": F("effect", doc="what happens when it is bought"),
        "gained_side": F("enum:available|exhausted", doc="side it enters the Domain with"),
        "abilities": F("list:ref:ability", doc="permanent abilities granted while owned"),
        "war_bonus": F("list:any", doc="War Bonuses printed on the tile"),
        "bonus_type": F("enum:artist|work", doc="for Patronage bonus tiles"),
        "players": F("list:int", doc="player counts the tile is used at"),
        "neutral": F("bool", doc="a neutral tile (no coat of arms)"),
    }),
    _k("war_bonus", "a War Bonus usable in Sieges and Battles on the Plains", {
        "strength": F("expr:number", True, "strength added"),
        "cost": F("cost", doc="what using it costs (most cost 1 florin)"),
        "side": F("enum:attack|defence|both", doc="who may use it"),
        "in_battles": F("bool", doc="also usable in Battles on the Plains"),
        "flips": F("bool", doc="flip the source to Exhausted when used"),
        "once": F("enum:per_siege|until_reactivated", doc="how often it can be used"),
        "uses_tokens": F("bool", doc="spends one of the player's +1 War Bonus tokens each time"),
    }),
    _k("ability", "a permanent ability (modifier) granted by a card, tile or alliance", {
        "modifies": F("str", True, "what it modifies (a named hook the rules consult)"),
        "amount": F("expr:number", doc="by how much"),
        "condition": F("expr:bool", doc="when it applies"),
    }),
    _k("alliance", "a Major Power players may ally with", {
        "cost": F("cost", True, "cost to form or appropriate the alliance"),
        "bonus": F("symbols", doc="symbols the bonus provides, once, until reactivated"),
        "bonus_usable_in": F("list:any", doc="where the bonus symbols may be spent: the actions and procedures (e.g. purchase, retreat) whose payments may use them, inside or outside Actions; empty: any payment"),
        "war_bonus": F("ref:war_bonus", doc="a war bonus instead of symbols"),
        "pp": F("expr:number", doc="Prestige Points at the end, if no enemy Agent is on it"),
        "crosses": F("int", doc="Crosses counted for religious influence"),
        "discount": F("int", doc="symbols discounted with your own Agent on it"),
    }),
    _k("colour", "a player colour (House)", {
        "house": F("str"), "city": F("ref:city", doc="capital"),
        "palace": F("ref:palace"),
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
    }, {"space": SPACE}),
    _k("constraint", "an invariant the interpreter enforces after every move", {
        "scope": F("enum:player|game|city", doc="what the check is quantified over"),
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
        "at": F("enum:end_of_spring|end_of_winter|end_of_year", doc="when it is checked"),
        "then": F("enum:final_winter|immediately", doc="what happens next"),
    }),
    _k("phase", "a phase of the Year (Spring, Winter)", {
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
    }, id_is_referenced=False),
    _k("heuristic", "a term of how well placed a player is, in Prestige Points, for planning bots: not a rule", {
        "value": F("expr:number", True, "the term for `player` (added to the player's score by the `planner` bot)"),
        "weight": F("number", doc="multiplies the value (default 1)"),
    }, id_is_referenced=False),
    _k("evaluation", "how well placed a player is, as one number, for the searching bots (`greedy_eval`, `mcts`): not a rule", {
        "value": F("expr:number", True, "the value for `player`, in Prestige Points; `score` is the player's total on the "
                                        "score pad (docs/bots.md)", names=("score",)),
    }, id_is_referenced=False),
    _k("die", "a die: `roll DIE as NAME` draws one of its faces from the game's seeded RNG", {
        "faces": F("list:any", True, "the faces, each as likely: numbers, \"texts\" or declared names (e.g. symbols)"),
    }),
    _k("component", "a physical component and how many the box holds", {
        "count": F("int", True, "how many the box holds"),
        "of_kind": F("enum:card|tile", doc="check: the declared cards/tiles of this kind ..."),
        "of_type": F("str", doc="... and of this type (notable, family, city, title...) must add up to `count` copies"),
        "supply": F("enum:war_tokens", doc="a supply the engine keeps in play, starting with `count`"),
    }),
]}

OVERLAY_OPS = ("replace", "modify")
