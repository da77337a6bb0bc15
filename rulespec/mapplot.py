"""The board drawn with matplotlib (the `[sim]` extra): `rulespec map PACK --out FILE.png` (or
`.svg`), optionally with the position of a saved game (`--game LOG`).

Without matplotlib, `rulespec map` writes the hand-made SVG of rulespec/mapdraw.py instead.
The same geography is drawn (the map's rough `x`/`y`, roads, sea links, ports), and with a
game, what the state holds for each City, read generically so that no rule is known here:
every per-City record of the state (a mapping from City ids to records) is looked at field by
field; the first field holding a player's colour rings the City in that colour (in the base
game: who controls it), further ones put a coloured diamond next to it (an Agent), and fields
mapping colours to numbers put numbered markers under it (Troops, besiegers). The legend names
the fields as the state names them.
"""
from __future__ import annotations

from .mapdraw import COAST, INK, LAND, ROAD, _positions, _radius
from .plots import matplotlib_pyplot

MARKERS = ("s", "^", "v", "P")


def colour_of(colour_id: str, players: list):
    """A matplotlib colour for a player's colour id: the id itself when matplotlib knows it
    (red, yellow...), else one of the tab10 colours by seat."""
    from matplotlib import colors
    if colors.is_color_like(colour_id):
        return colour_id
    return f"C{players.index(colour_id) % 10}" if colour_id in players else "grey"


def per_city_records(state: dict, cities: set) -> dict:
    """{city: {field: value}} merged from every mapping of the state whose keys are Cities."""
    out: dict = {}
    for value in state.values():
        if isinstance(value, dict) and value and set(value) <= cities and all(isinstance(v, dict) for v in value.values()):
            for c, rec in value.items():
                out.setdefault(c, {}).update(rec)
    return out


def draw_map(board, map_data: dict, title: str, path: str, state: dict | None = None) -> str:
    """Draw the board (and the state's per-City fields) to path, PNG or SVG by its extension."""
    plt = matplotlib_pyplot()
    import matplotlib
    matplotlib.rcParams["svg.fonttype"] = "none"        # SVG text stays text (searchable)
    g = board.graph
    pos = _positions(board, map_data)
    fig, ax = plt.subplots(figsize=(10, 12))
    ax.set_facecolor("#dce9f5")
    for a, b, k in g.edges(data="kind"):
        if a not in pos or b not in pos:
            continue
        (x1, y1), (x2, y2) = pos[a], pos[b]
        if k == "road":
            ax.plot([x1, x2], [y1, y2], color=LAND, linewidth=18, solid_capstyle="round", zorder=1)
            ax.plot([x1, x2], [y1, y2], color=ROAD, linewidth=2.2, zorder=2)
        elif k == "sea":
            ax.plot([x1, x2], [y1, y2], color=COAST, linewidth=2, linestyle=(0, (1, 3)), zorder=1)
        elif k == "coast":
            ax.plot([x1, x2], [y1, y2], color=COAST, linewidth=0.9, linestyle="--", alpha=0.7, zorder=1)
    for s, kind in g.nodes(data="kind"):
        if kind == "sea" and s in pos:
            x, y = pos[s]
            ax.plot([x], [y], "o", color=COAST, markersize=5, zorder=3)
            ax.text(x, y - 14, next((i.get("name", s) for i in map_data.get("seas", []) if i.get("id") == s), s),
                    ha="center", color=COAST, fontsize=10, style="italic", weight="bold", zorder=3)
    players = list(state["players"]) if state else []
    records = per_city_records(state, set(board.cities)) if state else {}
    # each field's part is decided once for the whole board, in the records' field order
    colour_fields = list(dict.fromkeys(f for rec in records.values() for f, v in rec.items()
                                       if isinstance(v, str) and v in players))
    count_fields = list(dict.fromkeys(f for rec in records.values() for f, v in rec.items()
                                      if isinstance(v, dict) and v and set(v) <= set(players)
                                      and all(isinstance(n, int) for n in v.values())))
    legend = {}
    for c in board.cities:
        x, y = pos[c]
        r = _radius(board.value(c))
        rec = records.get(c, {})
        owner = rec.get(colour_fields[0]) if colour_fields else None
        held = isinstance(owner, str) and owner in players
        ax.add_patch(plt.Circle((x, y), r, facecolor="#fffaf0", edgecolor=colour_of(owner, players) if held else INK,
                                linewidth=4 if held else 1.5, zorder=4))
        if held:
            legend[f"ring: {colour_fields[0]}"] = ("o", "none")
        ax.text(x, y, str(board.value(c)), ha="center", va="center", fontsize=9, weight="bold", zorder=5)
        ax.text(x, y + r + 12, board.name(c), ha="center", va="center", fontsize=8, weight="bold", zorder=5)
        for j, f in enumerate(colour_fields[1:]):
            if not (isinstance(rec.get(f), str) and rec[f] in players):
                continue
            ax.plot([x - r - 6 - 10 * j], [y - r], "D", color=colour_of(rec[f], players), markersize=7,
                    markeredgecolor=INK, zorder=6)
            legend[f"diamond: {f}"] = ("D", "white")
        col = 0
        for j, f in enumerate(count_fields):
            if not isinstance(rec.get(f), dict):
                continue
            for who, n in sorted(rec[f].items()):
                if not n:
                    continue
                mx, my = x - r + 12 * col, y - r - 10
                ax.plot([mx], [my], MARKERS[j % len(MARKERS)], color=colour_of(who, players), markersize=10,
                        markeredgecolor=INK, zorder=6)
                ax.text(mx, my, str(n), ha="center", va="center", fontsize=6, weight="bold", zorder=7)
                col += 1
            legend[f"{MARKERS[j % len(MARKERS)]}: {f} (number)"] = (MARKERS[j % len(MARKERS)], "white")
    if legend:
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], marker=m, linestyle="none", markerfacecolor=face, markeredgecolor=INK,
                          markersize=9, label=label.split(": ", 1)[1]) for label, (m, face) in legend.items()]
        handles += [Line2D([], [], marker="o", linestyle="none", color=colour_of(p, players), label=p) for p in players]
        ax.legend(handles=handles, loc="lower left", fontsize=8, title="the game's state")
    ax.set_xlim(0, 1000)
    ax.set_ylim(1000, 0)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, format="svg" if str(path).lower().endswith(".svg") else "png", dpi=100)
    plt.close(fig)
    return path
