"""Shared track markers and track zones (issue 16, stage 15).

A track declared `markers: shared` carries no disc per player: it carries the `marker`
declarations that name it, one position each, which any rule may move both ways. Its state is
`tracks[id] = {"pos": {marker: space}}` (a per-side track keeps `{pos, seq, year_steps}`).
A track's `zone` sub-blocks name ranges of its spaces, so a rule can ask which range a marker
(or a space) is in: `zone_of(m) == france_alliance`.

The runtime (interpreter/runtime.py) calls these functions; they know tracks, spaces, markers
and zones only, never what a pack makes of them.
"""
from __future__ import annotations

from .vm import Abort


def initial(rs, track_id: str) -> dict:
    """The state of a shared track at setup: every marker on its `start` space."""
    return {"pos": {m: spec["start"] for m, spec in rs.markers.items() if spec["track"] == track_id}}


def marker_track(rs, marker) -> str:
    spec = rs.markers.get(marker) if isinstance(marker, str) else None
    if spec is None:
        raise Abort(f"'{marker}' is not a marker (declare it: `marker {marker} {{ track: T }}`)")
    return spec["track"]


def position(rt, x, track=None) -> int:
    """The space of a marker, or of a side's disc on a per-side track (0 before it moves)."""
    if track is None:
        track = marker_track(rt.rs, x)
    return rt.state["tracks"][track]["pos"].get(x, 0)


def zone_at(tr: dict, n: int):
    """The id of the zone of track `tr` (a ruleset track) that holds space n, or None."""
    for zid, lo, hi in tr["zones"]:
        if lo <= n <= hi:
            return zid
    return None


def split_space(ref: str) -> tuple:
    """(track, n as written) of a "space:TRACK:N" ref, "" for a part it lacks."""
    _, track, n = (ref.split(":") + ["", ""])[:3]
    return track, n


def declared_space(rs, ref: str):
    """The block the pack declares for track space `ref`, None for no such space."""
    track, n = split_space(ref)
    spaces = rs.tracks[track]["spaces"] if track in rs.tracks else ()
    i = int(n) if n.isdigit() else -1
    return spaces[i] if 0 <= i < len(spaces) else None


def space_ref(rt, ref: str):
    """(track, n) of a space(track, n) ref; Abort for a track the pack does not declare."""
    track, n = split_space(ref)
    if track not in rt.rs.tracks or not n.lstrip("-").isdigit():
        raise Abort(f"'{ref}' is not a space of a track")
    return track, int(n)


def zone_of(rt, x):
    """The zone holding a marker, or a space given as space(track, n); None outside every zone."""
    if isinstance(x, str) and x.startswith("space:"):
        track, n = space_ref(rt, x)
        return zone_at(rt.rs.tracks[track], n)
    track = marker_track(rt.rs, x)
    return zone_at(rt.rs.tracks[track], position(rt, x, track))


def spot(rt, ref: str, blank: dict, create: bool) -> dict:
    """The record of the piece standing on track space `ref` (space(track, n), a space declared
    `spot: true`), stored as tracks[id]["spots"][n] once something stands there: `blank` (a copy)
    until then, stored only when `create` (a piece is being put there; a read stores nothing)."""
    track, n = split_space(ref)
    spaces = rt.rs.tracks[track]["spaces"] if track in rt.rs.tracks else ()
    if not (n.isdigit() and int(n) < len(spaces) and spaces[int(n)]["spot"]):
        raise Abort(f"space {n} of track '{track}' is not a spot where a piece can stand (spot: true)")
    spots = rt.state["tracks"][track].get("spots")
    if spots is not None and n in spots:
        return spots[n]
    if not create:
        return dict(blank)
    return rt.state["tracks"][track].setdefault("spots", {}).setdefault(n, dict(blank))


def stored_spot(rt, ref: str):
    """What is stored for track space `ref` (`spot`'s record once something stood there), else
    None: a read of any space, spot or not, without raising (most spaces are not spots)."""
    track, n = split_space(ref)
    tr = rt.state["tracks"].get(track) if track in rt.rs.tracks else None
    spots = tr.get("spots") if type(tr) is dict else None
    return spots.get(n) if spots else None


def move_along(rt, track: str, n: int, marker, span=None):
    """Move `marker` n spaces along `track` (back when n < 0), stopping at the first and last
    space. Returns the space it reached when it changed space, else None."""
    tr = rt.rs.tracks.get(track)
    if tr is None:
        raise Abort(f"no track '{track}'", span)
    if not tr["shared"]:
        raise Abort(f"track '{track}' has a disc per player (markers: per_side): move a disc with advance", span)
    if marker is None:
        raise Abort(f"move_along on track '{track}' needs the marker it moves: move_along({track}, n, marker: M)", span)
    if marker_track(rt.rs, marker) != track:
        raise Abort(f"marker '{marker}' is on track '{rt.rs.markers[marker]['track']}', not on '{track}'", span)
    pos = rt.state["tracks"][track]["pos"]
    old = pos.get(marker, 0)
    new = max(0, min(len(tr["spaces"]) - 1, old + int(n)))
    if new == old:
        return None
    pos[marker] = new
    return new
