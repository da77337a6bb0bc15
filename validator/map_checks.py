"""Semantic checks for map.yaml and setup.yaml (what a JSON Schema cannot see).

Codes (stable; each diagnostic points at the YAML line of the offending value):
  RS101  duplicate id (city, sea, side, or an alias clashing with another id)
  RS120  road problem: unknown city, road to itself, road listed twice (a–b = b–a),
         unknown side, or a road on a side where one of its cities is absent
  RS121  a city cannot be reached from the others (by road, or by sea through ports) on a board
         side or at a player count once its forbidden cities are removed; or a city placed on an
         undeclared side
  RS122  a port borders an undeclared sea, or a sea link names an unknown sea (or is a duplicate)
  RS123  setup.yaml refers to a city/side/colour that does not exist or is not on that player
         count's board side (starting cities, forbidden cities, returned tiles, Rome tile)
  RS124  a city value outside `value_range` (default [1, 4]), or a value for an unknown side

Content problems are returned as Diagnostics, never raised.
"""
from __future__ import annotations

from rulespec.errors import Diagnostic, did_you_mean
from rulespec.graphwalk import adjacency, components
from rulespec.schema import check_schema
from rulespec.yamldata import YamlDoc

DEFAULT_VALUE_RANGE = (1, 4)


class _Out:
    """Collects diagnostics for one document, de-duplicating identical findings."""

    def __init__(self):
        self.items: list[Diagnostic] = []
        self._seen: set = set()

    def add(self, doc: YamlDoc, code: str, path: tuple, message: str, hint: str = "",
            severity: str = "error") -> None:
        key = (doc.file, code, path, message)
        if key in self._seen:
            return
        self._seen.add(key)
        span = doc.span(path)
        self.items.append(Diagnostic(code, message, span, hint, severity=severity,
                                     source_line=doc.source_line(span)))


def _items(data, key):
    """(index, item) for the dict items of list `key` — tolerates malformed data."""
    seq = data.get(key) if isinstance(data, dict) else None
    if not isinstance(seq, list):
        return []
    return [(i, it) for i, it in enumerate(seq) if isinstance(it, dict)]


def _strs(value):
    """(index, str) for a list of strings, skipping anything else."""
    if not isinstance(value, list):
        return []
    return [(j, v) for j, v in enumerate(value) if isinstance(v, str)]


def _unknown_hint(name: str, known, what: str) -> str:
    return did_you_mean(name, known) or f"declare the {what} first, or use one of: " + ", ".join(sorted(known)[:12])


class _MapIndex:
    """Ids and positions of everything declared in map.yaml (first occurrence wins)."""

    def __init__(self, data):
        self.sides: dict[str, int] = {}
        self.side_names: dict[str, str] = {}
        self.seas: dict[str, int] = {}
        self.cities: dict[str, int] = {}
        self.city: dict[str, dict] = {}
        self.aliases: dict[str, str] = {}
        for i, s in _items(data, "sides"):
            if isinstance(s.get("id"), str):
                self.sides.setdefault(s["id"], i)
                self.side_names.setdefault(s["id"], str(s.get("name", s["id"])))
        for i, s in _items(data, "seas"):
            if isinstance(s.get("id"), str):
                self.seas.setdefault(s["id"], i)
        for i, c in _items(data, "cities"):
            if isinstance(c.get("id"), str) and c["id"] not in self.cities:
                self.cities[c["id"]] = i
                self.city[c["id"]] = c
                for _, a in _strs(c.get("aliases")):
                    self.aliases.setdefault(a, c["id"])

    def side_label(self, side: str) -> str:
        name = self.side_names.get(side, side)
        return f"'{name}' ({side})" if name != side else f"'{side}'"

    def on_side(self, city: str, side: str) -> bool:
        c = self.city.get(city)
        return bool(c) and side in (c.get("sides") or ())

    def city_hint(self, name: str) -> str:
        if name in self.aliases:
            return f"'{name}' is an alias of '{self.aliases[name]}'; use the city id '{self.aliases[name]}'"
        return _unknown_hint(name, self.cities, "city")


# --- map.yaml -------------------------------------------------------------------------------

def _check_ids(doc: YamlDoc, out: _Out) -> None:
    data = doc.data
    for key, what in (("sides", "board side"), ("seas", "sea"), ("cities", "city")):
        first: dict[str, int] = {}
        for i, it in _items(data, key):
            cid = it.get("id")
            if not isinstance(cid, str):
                continue
            if cid in first:
                line = doc.span((key, first[cid], "id")).line
                out.add(doc, "RS101", (key, i, "id"), f"{what} '{cid}' is declared twice",
                        f"the first '{cid}' is on line {line}; rename or merge the two entries")
            else:
                first[cid] = i
    idx = _MapIndex(data)
    # Cities and seas are nodes of the same graph: their ids must not clash.
    for sid, i in idx.seas.items():
        if sid in idx.cities:
            out.add(doc, "RS101", ("seas", i, "id"), f"sea '{sid}' has the same id as a city",
                    "cities and seas share one name space; rename the sea (e.g. add '_sea')")
    owner: dict[str, str] = {}
    for i, c in _items(data, "cities"):
        for j, a in _strs(c.get("aliases")):
            if a in idx.cities or a in idx.seas:
                out.add(doc, "RS101", ("cities", i, "aliases", j),
                        f"alias '{a}' of city '{c.get('id')}' is already the id of a city or sea",
                        "an alias must not be another id; remove it")
            elif a in owner and owner[a] != c.get("id"):
                out.add(doc, "RS101", ("cities", i, "aliases", j),
                        f"alias '{a}' is used by both '{owner[a]}' and '{c.get('id')}'",
                        "an alias must name one city only")
            owner.setdefault(a, c.get("id"))


def _check_values(doc: YamlDoc, idx: _MapIndex, out: _Out) -> None:
    data = doc.data
    vr = data.get("value_range", DEFAULT_VALUE_RANGE)
    lo, hi = (vr if isinstance(vr, (list, tuple)) and len(vr) == 2 else DEFAULT_VALUE_RANGE)
    for i, s in _items(data, "sides"):
        vf = s.get("values_from")
        if isinstance(vf, str) and vf not in idx.sides:
            out.add(doc, "RS124", ("sides", i, "values_from"),
                    f"board side '{s.get('id')}' takes its city values from '{vf}', which is not a declared side",
                    _unknown_hint(vf, idx.sides, "board side"))
    for i, c in _items(data, "cities"):
        name = c.get("name", c.get("id"))
        v = c.get("value")
        if isinstance(v, int) and not isinstance(v, bool) and not lo <= v <= hi:
            out.add(doc, "RS124", ("cities", i, "value"),
                    f"{name} has base value {v}; printed city values run from {lo} to {hi}",
                    f"use a value between {lo} and {hi} (or widen value_range)")
        sv = c.get("side_values")
        if isinstance(sv, dict):
            for side, v in sv.items():
                if side not in idx.sides:
                    out.add(doc, "RS124", ("cities", i, "side_values", side),
                            f"{name} has a value for board side '{side}', which is not declared",
                            _unknown_hint(str(side), idx.sides, "board side"))
                elif isinstance(v, int) and not lo <= v <= hi:
                    out.add(doc, "RS124", ("cities", i, "side_values", side),
                            f"{name} has value {v} on {idx.side_label(side)}; printed city values run from {lo} to {hi}",
                            f"use a value between {lo} and {hi}")


def _check_city_sides_and_seas(doc: YamlDoc, idx: _MapIndex, out: _Out) -> None:
    data = doc.data
    for i, c in _items(data, "cities"):
        name = c.get("name", c.get("id"))
        for j, side in _strs(c.get("sides")):
            if side not in idx.sides:
                out.add(doc, "RS121", ("cities", i, "sides", j),
                        f"{name} is placed on board side '{side}', which is not declared, so it is on no board",
                        _unknown_hint(side, idx.sides, "board side"))
        for j, sea in _strs(c.get("seas")):
            if sea not in idx.seas:
                out.add(doc, "RS122", ("cities", i, "seas", j),
                        f"port {name} borders sea '{sea}', which is not declared",
                        _unknown_hint(sea, idx.seas, "sea"))
    seen: dict[frozenset, int] = {}
    for i, link in _items(data, "sea_links"):
        pair = link.get("between")
        names = _strs(pair)
        bad = False
        for j, sea in names:
            if sea not in idx.seas:
                bad = True
                out.add(doc, "RS122", ("sea_links", i, "between", j),
                        f"sea link names sea '{sea}', which is not declared",
                        _unknown_hint(sea, idx.seas, "sea"))
        if bad or len(names) != 2:
            continue
        key = frozenset(v for _, v in names)
        if len(key) == 1:
            out.add(doc, "RS122", ("sea_links", i, "between"),
                    f"sea link joins the {names[0][1]} sea to itself", "a sea link joins two different seas")
        elif key in seen:
            line = doc.span(("sea_links", seen[key], "between")).line
            out.add(doc, "RS122", ("sea_links", i, "between"),
                    f"the link between {names[0][1]} and {names[1][1]} is listed twice",
                    f"sea links are undirected; the same link is already on line {line}")
        else:
            seen[key] = i


def _check_roads(doc: YamlDoc, idx: _MapIndex, out: _Out) -> None:
    seen: dict[frozenset, int] = {}
    for i, r in _items(doc.data, "roads"):
        ends = _strs(r.get("between"))
        bad = False
        for j, city in ends:
            if city not in idx.cities:
                bad = True
                out.add(doc, "RS120", ("roads", i, "between", j),
                        f"road leads to unknown city '{city}'", idx.city_hint(city))
        for k, side in _strs(r.get("sides")):
            if side not in idx.sides:
                out.add(doc, "RS120", ("roads", i, "sides", k),
                        f"road is drawn on board side '{side}', which is not declared",
                        _unknown_hint(side, idx.sides, "board side"))
        if bad or len(ends) != 2:
            continue
        a, b = ends[0][1], ends[1][1]
        if a == b:
            out.add(doc, "RS120", ("roads", i, "between"),
                    f"road from {idx.city[a].get('name', a)} to itself",
                    "a road joins two different cities; fix the second city")
            continue
        key = frozenset((a, b))
        if key in seen:
            line = doc.span(("roads", seen[key], "between")).line
            out.add(doc, "RS120", ("roads", i, "between"),
                    f"the road {a}–{b} is listed twice",
                    f"roads are undirected ({a}–{b} is the same road as {b}–{a}); it is already on line {line}")
        else:
            seen[key] = i
        for k, side in _strs(r.get("sides")):
            if side not in idx.sides:
                continue
            missing = [c for c in (a, b) if not idx.on_side(c, side)]
            if missing:
                who = " and ".join(idx.city[c].get("name", c) for c in missing)
                out.add(doc, "RS120", ("roads", i, "sides", k),
                        f"road {a}–{b} is drawn on board side {idx.side_label(side)}, but {who} "
                        f"{'is' if len(missing) == 1 else 'are'} not on that side",
                        f"remove '{side}' from this road's sides, or add it to the city's sides")


def _unreachable(data, idx: _MapIndex, side: str, excluded=frozenset()) -> list[str]:
    """Cities on `side` (minus `excluded`) outside the main road+sea component."""
    edges = []
    cities = [c for c in idx.cities if idx.on_side(c, side) and c not in excluded]
    for c in cities:
        for _, sea in _strs(idx.city[c].get("seas")):
            if sea in idx.seas:
                edges.append((c, ("sea", sea)))
    for _, link in _items(data, "sea_links"):
        pair = [v for _, v in _strs(link.get("between"))]
        if len(pair) == 2 and all(p in idx.seas for p in pair):
            edges.append((("sea", pair[0]), ("sea", pair[1])))
    in_play = set(cities)
    for _, r in _items(data, "roads"):
        pair = [v for _, v in _strs(r.get("between"))]
        if len(pair) == 2 and set(pair) <= in_play and side in (r.get("sides") or ()):
            edges.append((pair[0], pair[1]))
    comps = [[n for n in comp if isinstance(n, str)] for comp in components(adjacency(cities, edges))]
    comps = [c for c in comps if c]
    if len(comps) <= 1:
        return []
    order = {c: k for k, c in enumerate(cities)}
    main = max(comps, key=lambda comp: (len(comp), -min(order[c] for c in comp)))
    return sorted((c for comp in comps if comp is not main for c in comp), key=order.get)


def _check_reachability(doc: YamlDoc, idx: _MapIndex, out: _Out, setup_data=None) -> None:
    data = doc.data
    hint = ("add a road from it to a neighbouring city on this side, or make it a port "
            "(`seas:`) so it can be reached by sea")
    reported: set[tuple[str, str]] = set()
    cut_off: dict[str, list[str]] = {}
    for side in idx.sides:
        for c in _unreachable(data, idx, side):
            reported.add((c, side))
            cut_off.setdefault(c, []).append(side)
    for c in sorted(cut_off, key=idx.cities.get):
        sides = cut_off[c]
        where = (f"board side {idx.side_label(sides[0])}" if len(sides) == 1 else
                 "board sides " + " and ".join(idx.side_label(s) for s in sides))
        out.add(doc, "RS121", ("cities", idx.cities[c], "id"),
                f"{idx.city[c].get('name', c)} cannot be reached from the other cities on {where} "
                f"(no road and no sea route)", hint)
    # Player counts that take cities out of play (3 players: the starred cities).
    variants = []
    if setup_data is not None:
        for _, pc in _items(setup_data, "player_counts"):
            side = pc.get("board_side")
            forb = frozenset(v for _, v in _strs(pc.get("forbidden_cities")))
            if side in idx.sides and forb:
                variants.append((pc.get("players"), side, forb))
    else:
        forb = frozenset(c for c, d in idx.city.items() if d.get("forbidden_at_3"))
        for _, s in _items(data, "sides"):
            if forb and 3 in (s.get("players") or ()) and s.get("id") in idx.sides:
                variants.append((3, s["id"], forb))
    for players, side, forb in variants:
        for c in _unreachable(data, idx, side, forb):
            if (c, side) in reported:
                continue
            out.add(doc, "RS121", ("cities", idx.cities[c], "id"),
                    f"{idx.city[c].get('name', c)} cannot be reached from the other cities at {players} players "
                    f"(board side {idx.side_label(side)} without its forbidden cities)",
                    hint + "; a road through a forbidden city does not count")


# --- setup.yaml -----------------------------------------------------------------------------

def _check_setup(setup_doc: YamlDoc, idx: _MapIndex, out: _Out) -> None:
    data = setup_doc.data
    if not isinstance(data, dict):
        return
    colours: dict[str, int] = {}
    for ci, col in _items(data, "colours"):
        if isinstance(col.get("id"), str):
            colours.setdefault(col["id"], ci)
    colour_data = {cid: data["colours"][ci] for cid, ci in colours.items()}

    # Colour entries: unknown starting cities / plays_as.
    for cid, ci in colours.items():
        col = colour_data[cid]
        pa = col.get("plays_as")
        if isinstance(pa, str) and pa not in idx.cities:
            out.add(setup_doc, "RS123", ("colours", ci, "plays_as"),
                    f"{col.get('name', cid)} plays as '{pa}', which is not a city of the map", idx.city_hint(pa))
        for k, sc in _items(col, "starting_cities"):
            city = sc.get("city")
            if isinstance(city, str) and city not in idx.cities:
                out.add(setup_doc, "RS123", ("colours", ci, "starting_cities", k, "city"),
                        f"{col.get('name', cid)}'s starting city '{city}' does not exist on the map",
                        idx.city_hint(city))

    star_at_3 = {c for c, d in idx.city.items() if d.get("forbidden_at_3")}
    for pi, pc in _items(data, "player_counts"):
        n = pc.get("players")
        side = pc.get("board_side")
        if not isinstance(side, str) or side not in idx.sides:
            if side is None:            # optional in the schema: a pack without a map has no sides
                out.add(setup_doc, "RS100", ("player_counts", pi),
                        f"the {n}-player setup names no board side, and the pack has a map",
                        "add `board_side: ...`: " + (", ".join(sorted(idx.sides)) or "a side of map.yaml"))
            if isinstance(side, str):
                out.add(setup_doc, "RS123", ("player_counts", pi, "board_side"),
                        f"the {n}-player game uses board side '{side}', which map.yaml does not declare",
                        _unknown_hint(side, idx.sides, "board side"))
            side = None
        label = idx.side_label(side) if side else ""
        forbidden = {v for _, v in _strs(pc.get("forbidden_cities"))}
        returned = {v for _, v in _strs(pc.get("returned_tiles"))}

        for j, city in _strs(pc.get("forbidden_cities")):
            path = ("player_counts", pi, "forbidden_cities", j)
            if city not in idx.cities:
                out.add(setup_doc, "RS123", path,
                        f"forbidden city '{city}' at {n} players does not exist on the map", idx.city_hint(city))
            elif side and not idx.on_side(city, side):
                out.add(setup_doc, "RS123", path,
                        f"forbidden city {idx.city[city].get('name', city)} is not on board side {label} used at {n} players",
                        "only cities printed on this side can be covered by a Forbidden City token")
            elif n == 3 and city not in star_at_3:
                out.add(setup_doc, "RS123", path,
                        f"{idx.city[city].get('name', city)} is forbidden at 3 players but is not starred in map.yaml",
                        "set `forbidden_at_3: true` on the city in map.yaml, or remove it here", severity="warning")
        if n == 3 and side:
            for c in sorted(star_at_3 - forbidden):
                if idx.on_side(c, side):
                    out.add(setup_doc, "RS123", ("player_counts", pi, "forbidden_cities"),
                            f"{idx.city[c].get('name', c)} is starred (forbidden_at_3) in map.yaml but not forbidden here",
                            f"add '{c}' to forbidden_cities", severity="warning")

        for j, city in _strs(pc.get("returned_tiles")):
            path = ("player_counts", pi, "returned_tiles", j)
            if city not in idx.cities:
                out.add(setup_doc, "RS123", path,
                        f"returned City tile '{city}' at {n} players is not a city of the map", idx.city_hint(city))
            elif side and idx.on_side(city, side) and city not in forbidden:
                out.add(setup_doc, "RS123", path,
                        f"the {idx.city[city].get('name', city)} tile is returned to the box at {n} players, "
                        f"but the city is on board side {label}",
                        "only return tiles of cities that are not on this side (forbidden cities' tiles go back anyway)")
        if side:
            for c in idx.cities:
                if not idx.on_side(c, side) and c not in returned and c not in forbidden:
                    out.add(setup_doc, "RS123", ("player_counts", pi, "returned_tiles") if "returned_tiles" in pc
                            else ("player_counts", pi, "board_side"),
                            f"{idx.city[c].get('name', c)} is not on board side {label}, but its tile is not "
                            f"returned to the box at {n} players",
                            f"add '{c}' to returned_tiles")

        in_play = []
        for j, col in _strs(pc.get("colours")):
            if col not in colours:
                out.add(setup_doc, "RS123", ("player_counts", pi, "colours", j),
                        f"colour '{col}' at {n} players is not declared in colours", _unknown_hint(col, colours, "colour"))
            else:
                in_play.append(col)
        owner_of: dict[str, str] = {}
        for col in in_play:
            ci = colours[col]
            cname = colour_data[col].get("name", col)
            for k, sc in _items(colour_data[col], "starting_cities"):
                city = sc.get("city")
                if not isinstance(city, str) or city not in idx.cities:
                    continue
                path = ("colours", ci, "starting_cities", k, "city")
                cityname = idx.city[city].get("name", city)
                if side and not idx.on_side(city, side):
                    out.add(setup_doc, "RS123", path,
                            f"{cname}'s starting city {cityname} is not on board side {label}, used at {n} players",
                            "a starting city must be printed on every side its colour plays on")
                elif city in forbidden:
                    out.add(setup_doc, "RS123", path,
                            f"{cname}'s starting city {cityname} is a forbidden city at {n} players",
                            f"do not play {cname} at {n} players, or un-forbid {cityname}")
                if city in owner_of and owner_of[city] != col:
                    out.add(setup_doc, "RS123", path,
                            f"{cityname} is a starting city of both {owner_of[city]} and {col} at {n} players",
                            "each city tile has one coat of arms")
                owner_of.setdefault(city, col)

        rt = pc.get("rome_tile")
        if isinstance(rt, dict):
            owner = rt.get("owner")
            if rt.get("tile") == "coat_of_arms":
                if not isinstance(owner, str):
                    out.add(setup_doc, "RS123", ("player_counts", pi, "rome_tile"),
                            f"the coat-of-arms Rome tile at {n} players has no owner", "add `owner: <colour>`")
                elif owner not in in_play:
                    out.add(setup_doc, "RS123", ("player_counts", pi, "rome_tile", "owner"),
                            f"the Rome tile is owned by '{owner}', which is not a colour in play at {n} players",
                            _unknown_hint(owner, in_play or colours, "colour"))
                elif owner_of.get("rome") != owner:
                    out.add(setup_doc, "RS123", ("player_counts", pi, "rome_tile", "owner"),
                            f"the Rome tile is owned by {owner}, but Rome is not one of {owner}'s starting cities",
                            "add rome to that colour's starting_cities")
            elif "rome" in owner_of:
                out.add(setup_doc, "RS123", ("player_counts", pi, "rome_tile", "tile"),
                        f"the neutral Rome tile is used at {n} players, but {owner_of['rome']} starts in Rome",
                        "use `tile: coat_of_arms` with that colour as owner")


# --- entry points ---------------------------------------------------------------------------

def check_map(map_doc: YamlDoc, setup_doc: YamlDoc | None = None) -> list[Diagnostic]:
    """All semantic map checks (and setup cross-checks when setup_doc is given)."""
    out = _Out()
    if not isinstance(map_doc.data, dict):
        return out.items
    idx = _MapIndex(map_doc.data)
    _check_ids(map_doc, out)
    _check_values(map_doc, idx, out)
    _check_city_sides_and_seas(map_doc, idx, out)
    _check_roads(map_doc, idx, out)
    setup_data = setup_doc.data if setup_doc is not None and isinstance(setup_doc.data, dict) else None
    _check_reachability(map_doc, idx, out, setup_data)
    if setup_doc is not None:
        _check_setup(setup_doc, idx, out)
    return out.items


def check_map_files(map_doc: YamlDoc, setup_doc: YamlDoc | None = None) -> list[Diagnostic]:
    """Schema first (RS100); semantic checks only on files whose schema passes."""
    map_schema = check_schema(map_doc, "map")
    setup_schema = check_schema(setup_doc, "setup") if setup_doc is not None else []
    diags = map_schema + setup_schema
    if map_schema:
        return diags
    return diags + check_map(map_doc, None if setup_schema else setup_doc)
