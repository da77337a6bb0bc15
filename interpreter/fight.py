"""War Bonuses in a fight (a Siege or a Battle on the Plains): which a player may use, using
them, and the strength they add (Runtime mixin). The fight itself, strength formulas and
outcomes are pack rules (war.rules); this only keeps the bookkeeping.

A usable War Bonus is named "BONUS@SOURCE": the war_bonus declaration and where it comes from
(a card or tile instance, an alliance, or 'token' for +1 War Bonus tokens).
"""
from __future__ import annotations

from . import payment, verbs
from .vm import Abort

ROLES = ("attack", "defence", "battle")


class FightMixin:
    def v_start_fight(self, env, args, kw, span):
        if "fight" in self.state:
            self.state["last_fight"] = self.state["fight"]
        self.state["fight"] = {"city": args[0], "bonus": {}, "used": [], "terms": [], "by": env.get("player")}

    def v_fight_term(self, env, args, kw, span):
        """Record a term of a side's strength; nonzero terms go to the game account."""
        side, label, value = args[0], args[1], int(args[2] or 0)
        fight = self.state.setdefault("fight", {"city": None, "bonus": {}, "used": [], "terms": []})
        fight.setdefault("terms", []).append([side, label, value])
        if value:
            where = f"{span.file.rsplit('/', 1)[-1]}:{span.line}" if span and span.line else ""
            self.log(f"  {fight.get('city')}: {side} {label} {value:+d}   [{where}]")

    def f_fight_total(self, side):
        return sum(v for s, _, v in (self.state.get("fight") or {}).get("terms", []) if s == side)

    def f_fight_bonus(self, p):
        return (self.state.get("fight") or {}).get("bonus", {}).get(p, 0)

    def _bonus_sources(self, p):
        """(bonus id, source) pairs the player owns, whatever the fight."""
        pl = self.P(p)
        out = []
        if pl["war_tokens"] > 0:
            out += [(b, "token") for b, wb in self.rs.war_bonuses.items() if wb["uses_tokens"]]
        for s in pl["court"]:
            if s["card"] and not s["exhausted"]:
                out += [(b, s["card"]) for b in self.item(s["card"]).get("war_bonus", [])]
        for c in pl["outside"]:
            out += [(b, c) for b in self.item(c).get("war_bonus", [])]
        for t in pl["tiles"]:
            if not t["exhausted"]:
                out += [(b, t["id"]) for b in self.item(t["id"]).get("war_bonus", [])]
        for a, st in self.state["alliances"].items():
            wb = self.rs.alliances[a].get("war_bonus")
            if wb and st["holder"] == p and not st["used"] and st["agent"] in (None, p):
                out.append((wb, a))
        return [(b, s) for b, s in out if b in self.rs.war_bonuses]

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
        b, src = name.split("@", 1)
        wb = self.rs.war_bonuses.get(b)
        if wb is None:
            return None
        v = wb.get(field)
        if callable(v):
            return v(self, {"player": env.get("player"), "self": src})
        return v

    def v_use_war_bonus(self, env, args, kw, span):
        name = args[0]
        p = kw.get("player", env.get("player"))
        b, src = name.split("@", 1)
        wb = self.rs.war_bonuses.get(b)
        if wb is None:
            raise Abort(f"no War Bonus '{b}'", span)
        fight = self.state.setdefault("fight", {"city": None, "bonus": {}, "used": []})
        if name in fight["used"]:
            raise Abort("each War Bonus may be used once per fight", span)
        pl = self.P(p)
        if src == "token":
            if pl["war_tokens"] <= 0:
                raise Abort("no +1 War Bonus token left", span)
            pl["war_tokens"] -= 1
            self.state["supply"]["war_tokens"] += 1
            fight["used"] = [u for u in fight["used"] if not u.endswith("@token")]   # tokens: one per use
        elif src in self.state["alliances"]:
            self.state["alliances"][src]["used"] = True
            fight["used"].append(name)
        else:
            if wb["flips"]:
                verbs.set_entry(self, src, "exhausted", True, span)     # its Exhausted side up
            fight["used"].append(name)
        strength = int(wb["strength"](self, {"player": p}) or 0) if wb["strength"] else 0
        fight["bonus"][p] = fight["bonus"].get(p, 0) + strength
        self.log(f"  {p} uses {wb['decl'].title or b} (+{strength}) from {src}")
