"""Primitives about a player's Palace: Rooms, the Action marker, Cortigiano spaces, where a
card sits, and moving cards between them (Runtime mixin).

Rooms are referred to as "COLOUR.roomN" (N from 0, clockwise), so rules can store and compare
them like any other value.
"""
from __future__ import annotations

from .state import type_of
from .vm import Abort

SIDES = ("left", "right")


def room_ref(p, i) -> str:
    return f"{p}.room{i}"


def rooms_ahead(pl: dict, n: int) -> int:
    """The index of the Room n Rooms clockwise from the player's Action marker."""
    return (pl["marker"] + n) % len(pl["rooms"])


class PalaceMixin:
    # ------------------------------------------------------------ rooms
    def parse_room(self, ref):
        if not isinstance(ref, str):
            return self._parse_room(ref)
        return self.memoised(("room", ref), self._parse_room, ref)

    def _parse_room(self, ref):
        if not isinstance(ref, str) or ".room" not in ref:
            raise Abort(f"'{ref}' is not a Room")
        p, r = ref.split(".room", 1)
        try:
            i = int(r)
            return p, i, self.P(p)["rooms"][i]
        except (ValueError, IndexError):
            raise Abort(f"'{ref}' is not a Room")

    def a_player_rooms(self, p):
        return [room_ref(p, i) for i in range(len(self.P(p)["rooms"]))]

    def a_player_marker(self, p):
        m = self.P(p)["marker"]
        return None if m is None else room_ref(p, m)

    def f_room_ahead(self, p, n):
        """The Room `n` Rooms clockwise from the player's Action marker (its own Room for 0, and
        round the Palace again past the last); none before the marker is first placed. For
        advice that looks where a move of the marker would land."""
        pl = self.P(p)
        if pl["marker"] is None or not isinstance(n, int) or not pl["rooms"]:
            return None
        return room_ref(p, rooms_ahead(pl, n))

    def a_player_trophies_from(self, p):
        return list(self.P(p)["trophies"])

    def a_room_owner(self, ref):
        return self.parse_room(ref)[0]

    def a_room_action(self, ref):
        p, i, r = self.parse_room(ref)
        if r["card"] and self.item(r["card"]).get("action"):
            return self.item(r["card"])["action"]
        pal = self._palace(p)
        return pal["rooms"][i]["action"] if pal else None

    def a_room_action_card(self, ref):
        return self.parse_room(ref)[2]["card"]

    def a_room_improvement(self, ref):
        return self.parse_room(ref)[2]["impr"]

    def a_room_agent(self, ref):
        return self.parse_room(ref)[2]["agent"]

    def a_room_indulgence(self, ref):
        return bool(self.parse_room(ref)[2]["indulgence"])

    def a_room_arrow_after(self, ref):
        p, i, r = self.parse_room(ref)
        pal = self._palace(p)
        return pal["rooms"][i]["arrow_after"] if pal else None

    def v_place_marker(self, env, args, kw, span):
        p, i, r = self.parse_room(args[0])
        pl = self.P(p)
        pl["last_room"], pl["marker"] = pl["marker"], i

    # ------------------------------------------------------------ where cards are
    def locate(self, x):
        """(owner, place, detail) of a card: place in left/right/action/improvement/outside/unplaced."""
        if self.memo is not None and isinstance(x, str):        # read-only window (Runtime.reading)
            return self.memoised("locate", self._locate_index).get(x, (None, None, None))
        return self._locate(x)

    def _locate_index(self) -> dict:
        """What `_locate` answers for every card, in one pass: the same search order, the
        first place found wins (setdefault)."""
        index = {}
        for p, pl in self.state["p"].items():
            for s in pl["court"]:
                index.setdefault(s["card"], (p, s["side"], s))
            for i, r in enumerate(pl["rooms"]):
                index.setdefault(r["card"], (p, "action", i))
                index.setdefault(r["impr"], (p, "improvement", i))
            for c in pl["outside"]:
                index.setdefault(c, (p, "outside", None))
            for c in pl.get("unplaced", ()):
                index.setdefault(c, (p, "unplaced", None))
        return index

    def _locate(self, x):
        for p, pl in self.state["p"].items():
            for s in pl["court"]:
                if s["card"] == x:
                    return p, s["side"], s
            for i, r in enumerate(pl["rooms"]):
                if r["card"] == x:
                    return p, "action", i
                if r["impr"] == x:
                    return p, "improvement", i
            if x in pl["outside"]:
                return p, "outside", None
            if x in pl.get("unplaced", ()):
                return p, "unplaced", None
        return None, None, None

    def a_card_space(self, x):
        return self.locate(x)[1]

    def a_card_on_extra_space(self, x):
        p, place, d = self.locate(x)
        return place in SIDES and bool(d.get("shaded"))

    def a_card_room(self, x):
        p, place, d = self.locate(x)
        return room_ref(p, d) if place in ("action", "improvement") else None

    def a_card_id(self, x):
        return type_of(x)

    a_tile_id = a_card_id

    def f_free_spaces(self, p, side):
        return sum(1 for s in self.P(p)["court"] if s["open"] and s["card"] is None and s["side"] == side)

    def _take_out(self, x):
        p, place, d = self.locate(x)
        if p is None:
            raise Abort(f"{x} is not in a Palace")
        pl = self.P(p)
        exhausted = False
        if place in SIDES:
            exhausted = d["exhausted"]
            d["card"], d["exhausted"] = None, False
        elif place == "action":
            pl["rooms"][d]["card"] = None
        elif place == "improvement":
            pl["rooms"][d]["impr"] = None
        elif place == "outside":
            pl["outside"].remove(x)
        elif place == "unplaced":
            pl["unplaced"].remove(x)
        if place in SIDES:
            self.update_cortigiano_spaces(p)       # an extra space emptied: open or closed by the capacity
        return p, exhausted

    def put_on_court(self, p, x, side, exhausted=False):
        """Onto an empty open space of that edge, a printed one first (an extra, shaded space
        is used only when the printed ones are full)."""
        pl = self.P(p)
        spaces = sorted((s for s in pl["court"] if s["open"] and s["card"] is None and (side is None or s["side"] == side)),
                        key=lambda s: bool(s.get("shaded")))
        if not spaces:
            raise Abort(f"no empty Cortigiano space on the {side or 'any'} edge")
        spaces[0]["card"], spaces[0]["exhausted"] = x, exhausted
        self.update_cortigiano_spaces(p)

    def v_move_card(self, env, args, kw, span):
        x, to = args[0], args[1]
        p, exhausted = self._take_out(x)
        if to in SIDES:
            self.put_on_court(p, x, to, exhausted)
            return
        q, i, r = self.parse_room(to)
        slot = kw.get("slot", "action")
        key = "card" if slot == "action" else "impr"
        if r[key] is not None:
            raise Abort(f"that Room already has an {'Action card' if key == 'card' else 'Improvement'}", span)
        r[key] = x

    def v_use_bottom(self, env, args, kw, span):
        p, place, d = self.locate(args[0])
        if place in ("action", "improvement"):
            self.P(p)["rooms"][d]["used"]["card" if place == "action" else "impr"] = "war"

    def v_take_trophy(self, env, args, kw, span):
        p = kw.get("player", env.get("player"))
        # how many Trophies a player may take from one opponent is the pack's rule (war.rules
        # asks `defender not in attacker.trophies_from`; constraint one_trophy_per_opponent)
        self.P(p)["trophies"].append(args[0])
