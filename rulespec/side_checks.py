"""Static checks of sides that do not play, shared track markers and track zones (issue 16,
stages 14-15).

Why a module of its own: these checks read several declarations together (a marker and its
track, a side and setup.yaml's seats, the zones of one track against each other), which the
per-field checks of rulespec.checker cannot see. Every finding is positioned at the field
that is wrong.
"""
from __future__ import annotations

from . import ast as A

# fields of a `side` declaration readable on a side value: red.commanded_by, red.plays
SIDE_FIELDS = {"commanded_by": "player?", "plays": "bool"}


def _plain(fv):
    """The literal value of a field (a YAML value, or a number/name/bool written in a .rules
    file); None for an expression."""
    if fv is None:
        return None
    v = fv.value
    if isinstance(v, A.Neg) and isinstance(v.operand, A.Num):
        return -v.operand.value
    if isinstance(v, (A.Num, A.Bool, A.Str)):
        return v.value
    if isinstance(v, A.Name):
        return v.id
    return v if isinstance(v, (int, float, str, bool)) else None


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def collect_names(ck):
    """Side ids are values of type player (a side, seated or not), even when setup.yaml also
    lists them as colours; the zones of tracks are names `zone_of(...)` is compared with."""
    for (kind, id_), d in ck.pack.decls.items():
        if kind == "side":
            ck.names[str(id_)] = "player"
            ck.name_kind[str(id_)] = "side"
        elif kind == "track":
            for z in d.sub("zone"):
                ck.names.setdefault(str(z.id), "track_zone")


def check(ck):
    decls = ck.pack.decls
    for (kind, _), d in decls.items():
        if kind == "side":
            _side(ck, d)
        elif kind == "track":
            _zones(ck, d)
        elif kind == "marker":
            _marker(ck, d)


def _side(ck, d):
    """A faction is never seated: setup.yaml must not offer its colour to players."""
    fv = d.fields.get("plays")
    if _plain(fv) is not False:
        return
    setup = ck.pack.data.get("setup")
    counts = (setup.data.get("player_counts") if setup and isinstance(setup.data, dict) else None) or []
    for pc in counts:
        if isinstance(pc, dict) and str(d.id) in [str(c) for c in (pc.get("colours") or [])]:
            ck.diag("RS123", f"side '{d.id}' does not play (plays: false), but setup.yaml seats it in "
                    f"{pc.get('players')}-player games", fv.span,
                    f"take '{d.id}' out of `colours:` of that player count, or write `plays: true`")
            return


def _spaces(track) -> int:
    return len(track.sub("space"))


def _zones(ck, d):
    """Each zone names spaces of the track (0 .. n-1), from <= to, and no space is in two zones."""
    n = _spaces(d)
    seen = []
    for z in d.sub("zone"):
        lo, hi = _plain(z.fields.get("from")), _plain(z.fields.get("to"))
        if not (_is_int(lo) and _is_int(hi)):
            continue            # missing or not a number: RS104 / RS106 already
        bad = next((f for f, v in (("from", lo), ("to", hi)) if not 0 <= v < n), None)
        if bad:
            ck.diag("RS109", f"zone '{z.id}' of track '{d.id}' reaches space {lo if bad == 'from' else hi}, "
                    f"outside the track (spaces 0 to {n - 1})", z.fields[bad].span,
                    f"a zone names spaces 0 to {n - 1} of its track")
            continue
        if lo > hi:
            ck.diag("RS109", f"zone '{z.id}' of track '{d.id}' starts after it ends (from {lo}, to {hi})",
                    z.fields["from"].span, "write the lower space in `from:`")
            continue
        for other, olo, ohi in seen:
            if lo <= ohi and olo <= hi:
                ck.diag("RS109", f"zone '{z.id}' of track '{d.id}' overlaps zone '{other}' (spaces "
                        f"{max(lo, olo)} to {min(hi, ohi)} are in both)", z.span,
                        "a space is in one zone at most: `zone_of` must have one answer")
                break
        seen.append((z.id, lo, hi))


def _marker(ck, d):
    """A marker moves on a `markers: shared` track and starts on one of its spaces."""
    tv = d.fields.get("track")
    track = ck.pack.get("track", _plain(tv)) if tv is not None else None
    if track is None:
        return                  # unknown track: RS105 already
    if _plain(track.fields.get("markers")) != "shared":
        ck.diag("RS109", f"marker '{d.id}' is on track '{track.id}', which has a disc per player "
                "(markers: per_side)", tv.span,
                f"declare the track's markers shared: `modify track {track.id} {{ markers: shared }}`")
    start = _plain(d.fields.get("start"))
    n = _spaces(track)
    if _is_int(start) and not 0 <= start < n:
        ck.diag("RS109", f"marker '{d.id}' starts on space {start}, outside track '{track.id}' "
                f"(spaces 0 to {n - 1})", d.fields["start"].span, f"start it on a space from 0 to {n - 1}")
