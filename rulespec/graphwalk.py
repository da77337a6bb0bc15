"""Breadth-first walks over the small undirected graphs of a map (roads, seas, ports).

The board and the map checks need only adjacency, shortest hop counts and connected
components; networkx, which they used for this, costs a fresh process about 0.1 s of CPU to
import, a fifth of a warm `rulespec validate`. networkx stays for drawing (Board.graph).
"""
from __future__ import annotations

from collections import deque
from typing import Hashable, Iterable


def adjacency(nodes: Iterable[Hashable], edges: Iterable[tuple]) -> dict:
    """node -> list of neighbours, in the order the edges name them (each edge both ways,
    listed once; nodes named only by an edge are added)."""
    adj: dict = {n: [] for n in nodes}
    seen = set()
    for a, b in edges:
        adj.setdefault(a, [])
        adj.setdefault(b, [])
        key = frozenset((a, b))
        if key in seen:
            continue
        seen.add(key)
        adj[a].append(b)
        if a != b:
            adj[b].append(a)
    return adj


def distances(adj: dict, source) -> dict:
    """node -> number of edges on a shortest path from `source` (reachable nodes only)."""
    dist = {source: 0}
    todo = deque([source])
    while todo:
        v = todo.popleft()
        for w in adj[v]:
            if w not in dist:
                dist[w] = dist[v] + 1
                todo.append(w)
    return dist


def components(adj: dict) -> list[set]:
    """The connected components, each a set of nodes, in the order of their first node."""
    out, placed = [], set()
    for n in adj:
        if n not in placed:
            comp = set(distances(adj, n))
            placed |= comp
            out.append(comp)
    return out
