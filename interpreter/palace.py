"""Where a card sits in a Palace (Runtime mixin).

The Rooms, the Action marker, Trophies and Alliances are pack code (content/base_3to5/rules/
palace.rules, alliances.rules, war.rules) over records of lists (interpreter/world_store.py:
`red.room2` is index 2 of red's Rooms); so are the card moves `take_card`, `move_card` and
`discard` (world-model stage 6, docs/design/world-model-plan.md). What is left here is finding
where a card is, and a Room's printed Action and arrow, read from the
Palace catalogue until catalogue data is readable from the pack (stage 18b).
"""
from __future__ import annotations

from . import world_store


class BoardMixin:
    # ------------------------------------------------------------ records of a side's list
    def parse_record_ref(self, ref):
        """(owner, index, record) of a Room ref (world_store.the_ref)."""
        _, owner, i, r = world_store.the_ref(self, ref)
        return owner, i, r

    def _printed_place(self, ref):
        p, i, r = self.parse_record_ref(ref)
        board = self._board(p)
        return r, (board["places"][i] if board else {})

    def a_room_action(self, ref):
        r, printed = self._printed_place(ref)
        if r["card"] and self.item(r["card"]).get("action"):
            return self.item(r["card"])["action"]
        return printed.get("action")

    def a_room_arrow_after(self, ref):
        return self._printed_place(ref)[1].get("arrow_after")

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
