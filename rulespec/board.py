"""The Italy board as a graph, with O(1) lookup tables for the rules engine's hot loop.

`Board` is built once per game from map.yaml data (plain dicts, already validated by
validator.map_checks) for one board side, minus the cities taken out of play (Forbidden City
tokens at 3 players). Every query the rules make (values, road neighbours, distances, ship
costs between ports) is precomputed at construction, so a playout never walks the graph.

Unknown city ids raise KeyError from value/road_neighbours/road_distance (a programming
error, not a content error); the yes/no queries (is_port, ...) just answer False.
"""
from __future__ import annotations

from functools import cached_property
from itertools import product
from typing import Iterable

from .errors import RuleFault, RulespecError
from .graphwalk import adjacency, distances


class Board:
    """One side of the Italy board with the cities in play.

    Graph nodes are city ids (kind="city") and sea ids (kind="sea"); edges have
    kind="road" (city–city), "coast" (port–sea) or "sea" (sea–sea).
    """

    def __init__(self, map_data: dict, side: str, excluded: Iterable[str] = ()):
        side_ids = [s["id"] for s in map_data.get("sides", [])]
        if side not in side_ids:
            raise RulespecError(f"unknown board side '{side}'", code="RS123",
                                hint="board sides in this map: " + ", ".join(side_ids))
        self.side: str = side
        self.excluded: frozenset[str] = frozenset(excluded)
        side_entry = next(s for s in map_data["sides"] if s["id"] == side)
        values_from = side_entry.get("values_from")

        self._map_data = map_data
        sea_ids = [s["id"] for s in map_data.get("seas", [])]
        sea_links = [tuple(link["between"]) for link in map_data.get("sea_links", [])]

        cities: list[str] = []
        value: dict[str, int] = {}
        seas_of: dict[str, frozenset[str]] = {}
        alias: dict[str, str] = {}
        names: dict[str, str] = {}
        pirates, annexable = set(), set()
        self._entries: dict = {}
        for c in map_data.get("cities", []):
            cid = c["id"]
            self._entries[cid] = c
            if side not in c.get("sides", ()) or cid in self.excluded:
                continue
            cities.append(cid)
            sv = c.get("side_values") or {}
            value[cid] = sv.get(side, sv.get(values_from, c["value"]) if values_from else c["value"])
            seas_of[cid] = frozenset(c.get("seas") or ())
            names[cid] = c.get("name", cid)
            pirate = bool(c.get("pirate", False))
            if pirate:
                pirates.add(cid)
            # Pirate ports cannot be annexed (rulebook) unless the data says otherwise.
            if c.get("annexable", not pirate):
                annexable.add(cid)
            alias[cid] = cid
            for a in c.get("aliases") or ():
                alias[a] = cid

        in_play = set(cities)
        roads = [(a, b) for r in map_data.get("roads", []) for a, b in [r["between"]]
                 if side in r.get("sides", ()) and a in in_play and b in in_play and a != b]

        self.cities: tuple[str, ...] = tuple(cities)
        self._city_set = frozenset(cities)
        self._value = value
        self._seas_of = seas_of
        self._alias = alias
        self._pirates = frozenset(pirates)
        self._annexable = frozenset(annexable)
        self._ports = frozenset(c for c in cities if seas_of[c])
        self._names = names

        road_adj = adjacency(cities, roads)
        self._roads = roads
        self._road_nb = {c: frozenset(road_adj[c]) for c in cities}
        self._road_dist = {c: distances(road_adj, c) for c in cities}

        # Ships = seas on the shortest sea path, counting the first and last sea
        # (same sea = 1, neighbouring seas = 2): the Pisa→Terracina example costs 2.
        sea_adj = adjacency(sea_ids, sea_links)
        sea_dist = {s: distances(sea_adj, s) for s in sea_adj}
        between: dict[tuple[str, str], int] = {}
        for a, b in product(self._ports, repeat=2):
            hops = [sea_dist[sa][sb] for sa, sb in product(seas_of[a], seas_of[b])
                    if sb in sea_dist.get(sa, {})]
            if hops:
                between[(a, b)] = min(hops) + 1
        self._seas_between = between
        self._ports_reachable = {c: frozenset(b for (a, b) in between if a == c and b != c)
                                 for c in self._ports}

        # The generic graph the rules ask (neighbours/distance/reachable `via:` edge kinds): for
        # each edge kind of the map format, each node's neighbours, sorted (EDGE_KINDS).
        coasts = [(c, s) for c in cities for s in sorted(seas_of[c])]
        self._edges = {"road": road_adj, "coast": adjacency(cities + sea_ids, coasts),
                       "sea": sea_adj}
        self._nb: dict = {}         # (kinds, node) -> sorted tuple of neighbours
        self._dist: dict = {}       # (kinds, node) -> {node: edges on a shortest path}

    @cached_property
    def graph(self):
        """The board as a networkx Graph, for drawing (rulespec.mapdraw, rulespec.mapplot):
        nodes are city ids (kind="city") and sea ids (kind="sea"); edges have kind="road"
        (city–city), "coast" (port–sea) or "sea" (sea–sea). Built on first use: the rules never
        walk it (networkx is imported only here)."""
        import networkx as nx
        g = nx.Graph()
        for s in self._map_data.get("seas", []):
            g.add_node(s["id"], kind="sea", name=s.get("name", s["id"]), x=s.get("x"), y=s.get("y"))
        for a, b in (tuple(link["between"]) for link in self._map_data.get("sea_links", [])):
            g.add_edge(a, b, kind="sea")
        for c in self._map_data.get("cities", []):
            cid = c["id"]
            if cid not in self._city_set:
                continue
            g.add_node(cid, kind="city", name=self._names[cid], value=self._value[cid],
                       landmass=c.get("landmass"), pirate=cid in self._pirates, x=c.get("x"), y=c.get("y"))
            for s in self._seas_of[cid]:
                g.add_edge(cid, s, kind="coast")
        for a, b in self._roads:
            g.add_edge(a, b, kind="road")
        return g

    @classmethod
    def from_pack_data(cls, map_data: dict, setup_data: dict, players: int) -> "Board":
        """The board for `players` players: side and forbidden cities come from setup.yaml."""
        counts = {pc["players"]: pc for pc in setup_data.get("player_counts", [])}
        if players not in counts:
            raise RulespecError(f"this pack has no setup for {players} players", code="RS123",
                                hint="supported player counts: " + ", ".join(map(str, sorted(counts))))
        pc = counts[players]
        return cls(map_data, pc["board_side"], pc.get("forbidden_cities") or ())

    # --- queries (all O(1)) -----------------------------------------------------------------

    def __contains__(self, city: str) -> bool:
        return city in self._city_set

    def resolve(self, name: str) -> str | None:
        """City id for an id or alias (e.g. 'latina' -> 'terracina'), None if not in play."""
        return self._alias.get(name)

    def name(self, city: str) -> str:
        return self._names[city]

    def field(self, city: str, key: str, default=None):
        """What a city's map.yaml entry gives for `key` (`value`: on the side played), else
        `default`: the pack reads it as a field declared `@map` (docs/language.md)."""
        if key == "value":
            return self._value[city]
        v = self._entries[city].get(key)
        return default if v is None else v

    def value(self, city: str) -> int:
        """Printed base value on this side (Annex cost and Siege strength start here)."""
        return self._value[city]

    def road_neighbours(self, city: str) -> frozenset[str]:
        """Cities one road away: Annex targets, Cavalry moves, retreats on foot."""
        return self._road_nb[city]

    def adjacent_by_road(self, a: str, b: str) -> bool:
        nb = self._road_nb.get(a)
        return nb is not None and b in nb

    def road_distance(self, a: str, b: str) -> int | None:
        """Roads on the shortest road path (Cavalry needed to march one Troop); None if none."""
        return self._road_dist[a].get(b) if b in self._city_set else None

    def seas_of(self, city: str) -> frozenset[str]:
        """Seas the port borders (anchor icons); empty for inland cities."""
        return self._seas_of[city]

    def is_port(self, city: str) -> bool:
        return city in self._ports

    def is_pirate(self, city: str) -> bool:
        return city in self._pirates

    def is_annexable(self, city: str) -> bool:
        """False for pirate ports (never annexed, but they can still be besieged)."""
        return city in self._annexable

    def seas_between(self, a: str, b: str) -> int | None:
        """Ships per Troop (or per Annex) from port a to port b: seas crossed counting the
        starting and ending sea (same sea = 1, neighbouring = 2). None if either is not a
        port or no sea route exists."""
        return self._seas_between.get((a, b))

    def ports_reachable(self, city: str) -> frozenset[str]:
        """Other ports in play that can be reached by sea from this port (pirate ports
        included; the Annex rule filters them out). Empty for inland cities."""
        return self._ports_reachable.get(city, frozenset())

    # --- the generic graph: nodes (cities, seas) joined by edges of a kind (EDGE_KINDS) ---------
    def _adjacent(self, kinds: tuple) -> dict:
        """node -> neighbours over the edges of any of `kinds` (memoised per tuple of kinds)."""
        key = ("adj", kinds)
        adj = self._nb.get(key)
        if adj is None:
            adj = {}
            for k in kinds:
                for n, nbs in self._edges[k].items():
                    adj.setdefault(n, set()).update(nbs)
            adj = self._nb[key] = {n: tuple(sorted(nbs)) for n, nbs in adj.items()}
        return adj

    def neighbours(self, node: str, kinds: tuple) -> tuple:
        """The nodes one edge of one of `kinds` away, sorted (none for an unknown node)."""
        return self._adjacent(kinds).get(node, ())

    def _distances(self, node: str, kinds: tuple) -> dict:
        key = (kinds, node)
        got = self._dist.get(key)
        if got is None:
            adj = self._adjacent(kinds)
            got = self._dist[key] = distances(adj, node) if node in adj else {}
        return got

    def distance(self, a: str, b: str, kinds: tuple) -> int | None:
        """Edges of `kinds` on a shortest path from a to b (0 from a node to itself); None when
        no such path exists."""
        if a == b:
            return 0
        return self._distances(a, kinds).get(b)

    def reachable(self, node: str, kinds: tuple) -> tuple:
        """Every other node a path over edges of `kinds` reaches from `node`, sorted."""
        key = ("reach", kinds, node)
        got = self._nb.get(key)
        if got is None:
            got = self._nb[key] = tuple(sorted(n for n in self._distances(node, kinds) if n != node))
        return got

    @property
    def ports(self) -> frozenset[str]:
        return self._ports

    def __repr__(self) -> str:
        return f"Board(side={self.side!r}, cities={len(self.cities)}, excluded={sorted(self.excluded)})"


# the graph queries of Board, which a pack without a map cannot answer
GRAPH_QUERIES = ("resolve", "name", "value", "road_neighbours", "adjacent_by_road", "road_distance", "seas_of",
                 "is_port", "is_pirate", "is_annexable", "seas_between", "ports_reachable",
                 "neighbours", "distance", "reachable")

# The kinds of edge of the map format (map.yaml): `roads` join cities, a port's `seas` join it to
# each sea it borders, `sea_links` join seas. The rules name them: neighbours(c, via: road).
EDGE_KINDS = ("road", "coast", "sea")


class NoMap:
    """The board of a pack without map.yaml (a map is optional): no cities, no seas. A graph
    query is a fault of the pack's rules, RS105 at the rule that asks it (the validator finds it
    before any game: rulespec.mapless)."""
    side = None
    cities: tuple = ()
    excluded = frozenset()
    ports = frozenset()

    def __contains__(self, city) -> bool:
        return False

    def __repr__(self) -> str:
        return "NoMap()"


def _no_graph(query: str):
    def ask(self, *args):
        raise RuleFault("RS105", f"this pack has no map: the rules ask a graph query ({query}) of a board "
                                 f"that does not exist", hint="add a map.yaml to the pack, or take the map "
                                 "query out of this rule")
    ask.__name__ = query
    return ask


for _q in GRAPH_QUERIES:
    setattr(NoMap, _q, _no_graph(_q))


def board_for(pack, setup_data, players: int):
    """The board of a game of `pack` at `players` players: its map.yaml's (the side and the
    forbidden cities of setup.yaml), or NoMap for a pack without a map."""
    doc = pack.data.get("map")
    if doc is None:
        return NoMap()
    return Board.from_pack_data(doc.data, setup_data, players)

# The functions of the language that walk the map's graph, each with a `via:` of edge kinds.
GRAPH_FUNCTIONS = ("neighbours", "distance", "reachable")


def via_kinds(via) -> tuple[tuple, list]:
    """The edge kinds a `via:` argument names (an AST node: one bare name, or a list of them),
    and the nodes that name none (for the checker's diagnostics). A graph function's `via:` is
    resolved when the rules are compiled, so the query is a table lookup at run time."""
    from . import ast as A
    items = via.items if isinstance(via, A.ListExpr) else [via]
    kinds, bad = [], []
    for it in items:
        if isinstance(it, A.Name) and it.id in EDGE_KINDS:
            if it.id not in kinds:
                kinds.append(it.id)
        else:
            bad.append(it)
    return tuple(sorted(kinds)), bad
