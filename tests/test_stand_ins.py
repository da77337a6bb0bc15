"""Every stand-in of the base pack is flagged: each value that the sources do not give must be
tagged @inferred or @placeholder (YAML: `evidence: inferred|placeholder`), so that
`rulespec show base_3to5 --unverified` lists it as a value to check on the real components.

The list below is written from the fact sheet (shared/reference/virtu-base-data.md), from its
own markers of what the sources do not give: "unknown", "PH" (placeholder), "INF" (inferred),
"not legible", "assumed", "tentative", "probably", and its §6 (ambiguities) and §7 (what is
missing from all sources), section by section; plus the few readings that no text settles and
the fact sheet does not list (issue 13: "one City per Annex"). It is NOT read from the pack:
a stand-in whose tag is lost (or mistaken for a fact, e.g. `@board` or `@derived`) makes the
first test fail. The second test keeps the list complete: a new stand-in of the pack must be
added here, with the fact sheet's reason.

Entries are the labels `show.unverified` prints (`KIND ID.FIELD`, `palace C / room N.FIELD`),
except the YAML lists without ids (roads, sea links), written `road A-B` / `sea_link A-B`.
"""
from __future__ import annotations

import re

import pytest

from rulespec import show
from rulespec.pack import load_pack

COLOURS = ["blue", "red", "yellow", "green", "white"]

# fact sheet §1.2, the 30 Cities of the 2/5 side (the 3/4 side has 28 of them)
CITIES = ["nice", "turin", "milan", "genoa", "parma", "mantua", "trento", "venice", "ravenna",
          "florence", "pisa", "siena", "perugia", "spoleto", "ancona", "civitavecchia", "rome",
          "terracina", "naples", "benevento", "bari", "rossano", "reggio", "palermo", "messina",
          "tunis", "cagliari", "ajaccio", "ragusa", "corfu"]
SEAS = ["ligurian", "tyrrhenian", "ionian", "adriatic"]

NOTABLES = ["ambassador", "bishop", "consigliere", "merchant", "gonfalonier", "cardinal",
            "podesta", "assassin", "maestro", "pope", "notable_x1", "notable_x2"]
FAMILY = ["gian_galeazzo_sforza", "ludovico_sforza", "blue_family_3",
          "giuliano_de_medici", "red_family_2", "red_family_3",
          "ferdinand_ii_of_naples", "alfonso_duke_of_calabria", "federico_iii_da_montefeltro",
          "cristoforo_moro", "niccolo_orsini", "council_of_ten",
          "cesare_borgia", "white_family_2", "white_family_3"]
BONUS_CARDS = ["leonardo", "bastion_fort", "copernicus", "the_prince", "michelangelo", "duomo",
               "sistine_chapel", "columbus", "machiavelli"]

STAND_INS: dict[str, list[str]] = {
    # ---------------------------------------------------------------- §1 the map
    "§1.1 city values on the 3/4 side: 'Not recoverable [...] Assume the same values (PH)'":
        ["map side_34.values_from"],
    "§1.2 'land mass INF'":
        [f"map {c}.landmass" for c in CITIES],
    "§1.4 ports: 'every sea assignment below is INF unless tagged DER' (Pisa, Terracina and "
    "Ancona are DER), 'all others: no (INF)'":
        [f"map {c}.seas" for c in CITIES if c not in ("pisa", "terracina", "ancona")],
    "§1.4 'Sea adjacency (INF, from geography)'":
        ["sea_link ligurian-tyrrhenian", "sea_link tyrrhenian-ionian", "sea_link ionian-adriatic"],
    "§1.5 'Road adjacency — PROPOSED, INFERRED, NOT FROM THE RULEBOOK' (every road but the two "
    "of the worked examples)":
        [f"road {a}-{b}" for a, b in [
            ("nice", "turin"), ("nice", "genoa"), ("turin", "milan"), ("turin", "genoa"),
            ("milan", "genoa"), ("milan", "parma"), ("milan", "mantua"), ("genoa", "parma"),
            ("genoa", "pisa"), ("parma", "mantua"), ("parma", "ravenna"), ("mantua", "trento"),
            ("mantua", "venice"), ("trento", "venice"), ("venice", "ravenna"),
            ("ravenna", "ancona"), ("florence", "pisa"), ("florence", "siena"),
            ("pisa", "siena"), ("siena", "rome"), ("spoleto", "ancona"), ("spoleto", "rome"),
            ("rome", "terracina"), ("rome", "benevento"), ("terracina", "naples"),
            ("naples", "benevento"), ("benevento", "bari"), ("ancona", "bari"),
            ("naples", "rossano"), ("bari", "rossano"), ("rossano", "reggio"),
            ("palermo", "messina"), ("perugia", "florence"), ("perugia", "siena"),
            ("perugia", "spoleto"), ("civitavecchia", "rome"), ("civitavecchia", "siena")]],
    "§1.5/§6.15 the two roads of the worked examples: on which board sides is not said":
        ["road ravenna-florence.sides", "road florence-spoleto.sides"],
    "§1 drawing positions: no source gives coordinates (the board was not scraped as an image)":
        [f"map {c}.{xy}" for c in CITIES + SEAS for xy in ("x", "y")],
    # ---------------------------------------------------------------- §2 Major Powers
    "§2 'Cost to form: unknown in sources (icons only). PH' (France, Holy Roman Empire)":
        ["alliance france.cost", "alliance hre.cost"],
    # ---------------------------------------------------------------- §3 Prestige board
    "§3.1 stacking is stated for the Cities track only; the Patronage track's is assumed":
        ["track patronage_track.stacking"],
    "§3.2 Patronage PP per step: 'unknown; PH'":
        [f"track patronage_track / space {i}.points" for i in range(1, 6)],
    "§3.3/§6.7 'Three-way ties are not illustrated' (religious influence: PH)":
        ["scoring religious_influence"],
    # ---------------------------------------------------------------- §4 cards and tiles
    "§4.1 florins: 'Supply limit is not discussed; PH: unlimited'":
        ["component florin_coins"],
    "§4.10 Indulgences: 'Supply limit when the stack is empty is not discussed (PH)'":
        ["constraint indulgence_supply"],
    "§4.11 +1 War Bonus tokens: 'Supply limit PH: 11'":
        ["constraint war_token_supply"],
    "§4.2 note a: the costs of 6 Notables are digits read off the images; 'Cost currency is not "
    "visible in the OCR (digits only); PH: florins'":
        [f"card {n}.cost" for n in ("ambassador", "bishop", "consigliere", "merchant",
                                   "gonfalonier", "cardinal")],
    "§4.2 Notable costs 'unknown'":
        [f"card {n}.cost" for n in ("podesta", "assassin", "maestro", "pope", "notable_x1",
                                   "notable_x2")],
    "§4.2 Notable Actions 'unknown' (the Ambassador's and Gonfalonier's: 'has one; which one "
    "unknown'; the Merchant's Trade: 'PH')":
        [f"card {n}.action" for n in ("ambassador", "consigliere", "merchant", "gonfalonier",
                                     "podesta", "maestro", "pope", "notable_x1")],
    "§4.2 Notable bottoms 'unknown' (the Cardinal's Crown is known, its alternative is not)":
        [f"card {n}.bottom" for n in ("bishop", "consigliere", "merchant", "gonfalonier",
                                     "cardinal", "podesta", "assassin", "maestro", "pope",
                                     "notable_x1", "notable_x2")],
    "§4.2 Notable PP 'unknown'":
        [f"card {n}.pp" for n in NOTABLES],
    "§4.2 two Notable types 'unknown in sources'; the Maestro 'probably Patronage-related (INF)'":
        ["card notable_x1", "card notable_x2", "card maestro"],
    "§4.2 'War Bonus \"+1 (pay 1 florin)\" appears on several card images; none of them is a "
    "named Notable type' (PH on two Notables)":
        ["card assassin.war_bonus", "card notable_x1.war_bonus"],
    "§4.3 Family colours 'INF from the surname'":
        [f"card {n}.colour" for n in ("gian_galeazzo_sforza", "ludovico_sforza",
                                     "giuliano_de_medici", "cesare_borgia")],
    "§4.3 'PH for missing Family cards'":
        [f"card {n}" for n in ("blue_family_3", "red_family_2", "red_family_3",
                               "white_family_2", "white_family_3")],
    "§4.3 Family card PP: none is given":
        [f"card {n}.pp" for n in FAMILY],
    "§4.3 Family card bottoms: none is given (Alfonso is 'an Ambassador': derived)":
        [f"card {n}.bottom" for n in FAMILY if n != "alfonso_duke_of_calabria"],
    "§4.3 Family card Actions: none is given (Alfonso 'has an Action', which one is unknown)":
        [f"card {n}.action" for n in ("gian_galeazzo_sforza", "blue_family_3",
                                     "giuliano_de_medici", "red_family_2",
                                     "alfonso_duke_of_calabria", "cristoforo_moro",
                                     "council_of_ten", "white_family_2")],
    "§4.3 'One of the three has an Agent symbol' (which one is unknown)":
        ["card ferdinand_ii_of_naples.agent"],
    "§4.3 Cesare Borgia: 'War Bonus +1 (florin cost not legible)'":
        ["card cesare_borgia.war_bonus"],
    "§4.4 Palaces: '**room order unknown**', 'PH clockwise orders', arrows PH":
        [f"palace {c} / room {i}.action" for c in COLOURS for i in range(5)]
        + [f"palace {c} / room {i}.arrow_after" for c in COLOURS for i in (1, 3)],
    "§4.5 City tiles: 'The symbols of individual City tiles are unknown in sources' (the second "
    "number of 12 tile images is a tentative florin amount, IMG low confidence)":
        [f"tile {c}_tile.bottom" for c in CITIES] + ["tile rome_arms_tile.bottom"],
    "§4.6 Titles: cost, bottom, Cortigiano 'unknown'; PP and the ① mark unknown (the "
    "Principality's space: 'probably +1', from the 2-player game)":
        [f"tile {t}_{c}.{f}" for t in ("duchy", "principality") for c in COLOURS
         for f in ("cost", "bottom", "cortigiano", "pp")]
        + [f"tile {t}.{f}" for t in ("kingdom", "republic")
           for f in ("cost", "bottom", "cortigiano", "limit", "pp")],
    "§4.7 Guilds: 'Cost, symbols, PP: unknown in sources'":
        ["tile guild", "tile guild.cost", "tile guild.bottom", "tile guild.pp"],
    "§4.8 Cathedrals: 'Cost and symbols unknown in sources'":
        ["tile cathedral.cost", "tile cathedral.bottom"],
    "§4.9 Patronage Bonuses: Artist/Work 'shown only by icons' (INF)":
        [f"card {b}.bonus_type" for b in BONUS_CARDS] + ["tile cannons.bonus_type"],
    "§4.9 Patronage Bonus PP: '\"Some\" bonuses give 1 PP (which ones is unknown)' (Columbus: 2)":
        [f"card {b}.pp" for b in BONUS_CARDS if b != "columbus"] + ["tile cannons.pp"],
    "§4.9 Machiavelli 'provides resources (symbols unknown)'":
        ["card machiavelli.bottom"],
    # ---------------------------------------------------------------- §5 symbols and rules
    "§5.1 alliance costs are paid in symbols, but no symbol's list names Alliances":
        [f"symbol {s}.usable_in" for s in ("crown", "cross", "cavalry", "ship")],
    "§6.13 Leonardo / Cannons in defence: 'PH: yes for both'":
        ["war_bonus leonardo_bonus.side", "war_bonus cannons_bonus.side"],
    "§5.5 Battle on the Plains: 'only Troops + War Bonuses count', which War Bonuses is not "
    "said; France's '+2 in a Siege or a Battle' for whom is not said":
        [f"war_bonus {w}.in_battles" for w in ("war_token", "card_war", "leonardo_bonus",
                                              "cannons_bonus")]
        + ["war_bonus france_bonus.side"],
    # ---------------------------------------------------------------- readings no text settles
    "issue 13: 'Seize control of a neutral City' read as one City per Annex":
        ["formula cities_per_annex.value"],
    "no text gives a game length: a bound for validation playouts":
        ["game virtu.max_rounds"],
}


@pytest.fixture(scope="module")
def pack():
    return load_pack("base_3to5")


def _listed(pack) -> set:
    """What `show.unverified` lists, with YAML list items without ids (roads, sea links: rows
    'map N' or 'map N.FIELD') named by what they join, found by their line."""
    lines = {}
    doc = pack.data["map"]
    for key, kind in (("roads", "road"), ("sea_links", "sea_link")):
        for i, item in enumerate(doc.data.get(key) or []):
            for path in [(key, i)] + [(key, i, f) for f in item]:    # an item may span lines
                lines[doc.span(path).line] = f"{kind} {'-'.join(item['between'])}"
    out = set()
    for _tag, what, _note, where in show.unverified(pack):
        m = re.fullmatch(r"map \d+(\.\w+)?", what)
        line = int(where.rsplit(":", 1)[1])
        if m and where.startswith("base_3to5/map.yaml:") and line in lines:
            what = lines[line] + (m.group(1) or "")
        out.add(what)
    return out


def _expected() -> list:
    return [(reason, what) for reason, whats in STAND_INS.items() for what in whats]


def test_every_stand_in_is_listed_by_show_unverified(pack):
    listed = _listed(pack)
    missing = [f"{what}   ({reason})" for reason, what in _expected() if what not in listed]
    assert not missing, ("values the sources do not give, not tagged @inferred/@placeholder "
                         "(not listed by `show base_3to5 --unverified`):\n  " + "\n  ".join(missing))


def test_the_list_covers_every_flagged_value(pack):
    known = {what for _, what in _expected()}
    extra = sorted(_listed(pack) - known)
    assert not extra, ("values flagged in the pack but missing from STAND_INS (add each with "
                       "the fact sheet's reason):\n  " + "\n  ".join(extra))


def test_the_list_has_no_duplicates():
    whats = [what for _, what in _expected()]
    assert len(whats) == len(set(whats)), sorted({w for w in whats if whats.count(w) > 1})


@pytest.mark.parametrize("what", [
    # issue 13: the stand-ins that were tagged as facts (@board, @derived) or not at all
    *[f"tile {c}.bottom" for c in ("rome_tile", "rome_arms_tile", "naples_tile", "rossano_tile",
                                   "florence_tile", "pisa_tile", "venice_tile", "corfu_tile",
                                   "milan_tile", "turin_tile", "civitavecchia_tile",
                                   "palermo_tile")],
    *[f"card {n}.cost" for n in ("ambassador", "bishop", "consigliere", "merchant", "gonfalonier",
                                 "cardinal")],
    "card cesare_borgia.war_bonus",
    "component florin_coins",
    "formula cities_per_annex.value",
    *[f"tile principality_{c}.cortigiano" for c in COLOURS],
])
def test_issue_13_stand_ins_are_listed(pack, what):
    assert what in _listed(pack)
