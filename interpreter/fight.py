"""The War Bonuses a player may use in the current fight (Runtime mixin): `war_bonuses(p, role)`
and the fields of one usable War Bonus. The fight itself (a sparse game record: start_fight,
fight_term, fight_total, fight_bonus, use_war_bonus, close_fight) and the strength formulas and
outcomes are pack rules (war.rules).

A usable War Bonus is named "BONUS@SOURCE": the war_bonus declaration and where it comes from
(a card or tile instance, an alliance, or 'token' for +1 War Bonus tokens). Which of a side's
cards and tiles lend their War Bonuses, and in what order, is the pack's formula
`war_bonus_things(p)` (war.rules: Available Cortigiano cards, what lies beside the Palace,
Available Domain tiles); the tokens and the Alliances stay here.
"""
from __future__ import annotations

from . import payment

ROLES = ("attack", "defence", "battle")
_USABLE = "bonus_available"     # the pack's formula: may a held thing's bonus be used now
_LENDERS = "war_bonus_things"   # the pack's formula: a side's cards and tiles whose War Bonuses it may use now


class FightMixin:
    def _bonus_sources(self, p):
        """(bonus id, source) pairs the player owns, whatever the fight: its tokens', those of
        the things the pack's `war_bonus_things(p)` lists (none without that formula), in its
        order, then those of the things of a kind with an owner field it holds."""
        pl = self.P(p)
        rs = self.rs
        out = []
        if pl.get("war_tokens", 0) > 0:
            out += [(b, "token") for b, wb in rs.war_bonuses.items() if wb["uses_tokens"]]
        if _LENDERS in rs.formulas:
            for x in self.formula(_LENDERS, [p], {}, {"player": p}) or ():
                out += [(b, x) for b in self.item(x).get("war_bonus", [])]
        out += self._held_bonuses(p)
        return [(b, s) for b, s in out if b in rs.war_bonuses]

    def _held_bonuses(self, p) -> list:
        """(bonus id, thing) for the declared things of a catalogue kind with an owner field
        (`kind alliance { owner: holder }`) that `p` holds, whose declaration gives a
        `war_bonus`, while the pack's formula `bonus_available(thing)` holds (when it has one)."""
        rs = self.rs
        usable = _USABLE in rs.formulas
        out = []
        for kind in rs.world.kinds.values():
            owner = kind.fields.get(kind.owner) if kind.owner and kind.store and kind.instances == "catalogue" else None
            if owner is None:
                continue
            for x, rec in self.state.get(kind.store, {}).items():
                if rec.get(owner.key) != p or x not in rs.things:
                    continue
                wb = rs.thing_field(x, "war_bonus")
                if wb and (not usable or self.formula(_USABLE, [x], {}, {"player": p})):
                    out.append((wb, x))
        return out

    def f_war_bonuses(self, p, role):
        if p is None:
            return []
        fight = self.state.get("fight") or {"used": []}
        out = []
        for b, src in self._bonus_sources(p):
            wb = self.rs.war_bonuses[b]
            name = f"{b}@{src}"
            if name in fight["used"] or name in out:
                continue
            side = wb["side"]
            if role == "battle":
                if not wb["in_battles"] or side == "defence":
                    continue
            elif role == "attack" and side not in ("attack", "both"):
                continue
            elif role == "defence" and side not in ("defence", "both"):
                continue
            if wb["cost"] is not None and not payment.can_pay(self, p, wb["cost"](self, {"player": p}), {}):
                continue
            out.append(name)
        return out

    def war_bonus_field(self, name, field, env):
        """`w.F` of a usable War Bonus "BONUS@SOURCE": a field of the declaration, its `title`,
        or `source`, where it is used from (the pack's use_war_bonus, war.rules)."""
        b, src = name.split("@", 1)
        if field == "source":
            return src
        wb = self.rs.war_bonuses.get(b)
        if wb is None:
            return None
        v = wb.get(field)
        if callable(v):
            return v(self, {"player": env.get("player"), "self": src})
        return v
