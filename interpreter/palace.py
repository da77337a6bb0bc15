"""Where a card sits in a Palace (Runtime mixin).

The Rooms, the Action marker, Trophies and Alliances are pack code (content/base_3to5/rules/
palace.rules, alliances.rules, war.rules) over records of lists (interpreter/world_store.py:
`red.room2` is index 2 of red's Rooms); so are the card moves `take_card`, `move_card` and
`discard` (world-model stage 6, docs/design/world-model-plan.md); a Room's printed Action and
arrow are fields declared `@printed` (world.rules), read from the House's board (palaces.yaml).
What is left here is finding where a card is.
"""
from __future__ import annotations


class BoardMixin:
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
            for i, r in enumerate(pl[self.rs.marked_list]):
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
            for i, r in enumerate(pl[self.rs.marked_list]):
                if r["card"] == x:
                    return p, "action", i
                if r["impr"] == x:
                    return p, "improvement", i
            if x in pl["outside"]:
                return p, "outside", None
            if x in pl.get("unplaced", ()):
                return p, "unplaced", None
        return None, None, None
