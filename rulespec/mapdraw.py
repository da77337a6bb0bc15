"""Draw a Board as a standalone SVG, so designers can eyeball roads, ports and seas.

SVG only, written by hand (no drawing library): PNG output is not supported — convert the
SVG with any external tool if needed. City positions are the rough `x`/`y` drawing coordinates
from map.yaml (a 1000 x 1000 box); they carry no rule meaning.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .board import Board

WIDTH, HEIGHT = 1000, 1200
SEA_BG = "#dce9f5"
LAND = "#efe5cc"
ROAD = "#8a5a2b"
COAST = "#3d78b5"
INK = "#222222"
PIRATE = "#b3261e"
LANDMASS_FILL = {"mainland": "#fffaf0"}
OTHER_FILL = "#f6f0ff"


def _t(x: float, y: float, text: str, size: int = 14, anchor: str = "middle", weight: str = "normal",
       fill: str = INK, style: str = "normal", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" font-style="{style}" fill="{fill}"{extra}>{escape(text)}</text>')


def _anchor_icon(x: float, y: float, colour: str = COAST) -> str:
    """A small anchor: ring, shank, stock and curved flukes (about 12 x 14 px)."""
    return (f'<g stroke="{colour}" stroke-width="1.6" fill="none" stroke-linecap="round">'
            f'<circle cx="{x:.1f}" cy="{y - 6:.1f}" r="1.8"/>'
            f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x:.1f}" y2="{y + 7:.1f}"/>'
            f'<line x1="{x - 3.5:.1f}" y1="{y - 1.5:.1f}" x2="{x + 3.5:.1f}" y2="{y - 1.5:.1f}"/>'
            f'<path d="M {x - 6:.1f} {y + 2:.1f} Q {x - 5:.1f} {y + 8:.1f} {x:.1f} {y + 7:.1f} '
            f'Q {x + 5:.1f} {y + 8:.1f} {x + 6:.1f} {y + 2:.1f}"/></g>')


def _positions(board: Board, map_data: dict) -> dict[str, tuple[float, float]]:
    """x/y per city and sea id; items without coordinates get a fallback grid slot."""
    pos: dict[str, tuple[float, float]] = {}
    missing = []
    for item in list(map_data.get("cities", [])) + list(map_data.get("seas", [])):
        i = item.get("id")
        if i not in board.graph:
            continue
        if isinstance(item.get("x"), (int, float)) and isinstance(item.get("y"), (int, float)):
            pos[i] = (float(item["x"]), float(item["y"]))
        else:
            missing.append(i)
    for k, i in enumerate(missing):
        pos[i] = (80.0 + (k % 8) * 110.0, 960.0 - (k // 8) * 60.0)
    return pos


def _radius(value: int) -> float:
    return 9.0 + 3.5 * value


def draw_map_svg(board: Board, map_data: dict, title: str) -> str:
    """Standalone SVG (about 1000 x 1200 px) of the board's cities in play, roads, ports and seas.

    Excluded cities (not on this side, or forbidden at this player count) are not drawn.
    SVG only: PNG is not supported.
    """
    g = board.graph
    pos = _positions(board, map_data)
    sea_names = {s["id"]: s.get("name", s["id"]) for s in map_data.get("seas", [])}
    sea_short = {s: "".join(w[0] for w in n.split()[:1]).upper() for s, n in sea_names.items()}
    side_name = next((s.get("name", s["id"]) for s in map_data.get("sides", []) if s["id"] == board.side),
                     board.side)
    roads = [(a, b) for a, b, k in g.edges(data="kind") if k == "road"]
    coasts = [(a, b) if g.nodes[a].get("kind") == "city" else (b, a)
              for a, b, k in g.edges(data="kind") if k == "coast"]
    sea_links = [(a, b) for a, b, k in g.edges(data="kind") if k == "sea"]
    seas = [n for n, k in g.nodes(data="kind") if k == "sea"]

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="Georgia, \'DejaVu Serif\', serif">',
           f'<title>{escape(title)}</title>',
           f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="{SEA_BG}"/>']

    # Land underlay: wide pale strokes along roads and discs under cities suggest land masses.
    out.append(f'<g id="land" fill="{LAND}" stroke="{LAND}" stroke-linecap="round">')
    for a, b in roads:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke-width="46"/>')
    for c in board.cities:
        x, y = pos[c]
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="30" stroke="none"/>')
    out.append('</g>')

    # Seas: links between neighbouring seas, then coast links from ports.
    out.append(f'<g id="sea-links" stroke="{COAST}" stroke-width="3" stroke-dasharray="2 6" '
               f'stroke-linecap="round" opacity="0.8">')
    for a, b in sea_links:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}">'
                   f'<title>{escape(sea_names.get(a, a))} – {escape(sea_names.get(b, b))}</title></line>')
    out.append('</g>')
    out.append(f'<g id="coasts" stroke="{COAST}" stroke-width="1.3" stroke-dasharray="6 4" opacity="0.7">')
    for c, s in coasts:
        (x1, y1), (x2, y2) = pos[c], pos[s]
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>')
    out.append('</g>')
    out.append('<g id="seas">')
    for s in seas:
        x, y = pos[s]
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{COAST}"/>')
        out.append(_t(x, y - 12, sea_names.get(s, s), 20, style="italic", fill=COAST, weight="bold"))
    out.append('</g>')

    # Roads.
    out.append(f'<g id="roads" stroke="{ROAD}" stroke-width="3.2" stroke-linecap="round">')
    for a, b in roads:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}">'
                   f'<title>{escape(board.name(a))} – {escape(board.name(b))}</title></line>')
    out.append('</g>')

    # Cities: circle sized by value, value inside; anchors for ports. Labels go in a second
    # pass so no circle hides a neighbour's name.
    halo = ' stroke="#ffffff" stroke-width="3" paint-order="stroke"'
    labels = []
    out.append('<g id="cities">')
    for c in board.cities:
        x, y = pos[c]
        v = board.value(c)
        r = _radius(v)
        node = g.nodes[c]
        fill = LANDMASS_FILL.get(node.get("landmass"), OTHER_FILL)
        tip = f"{board.name(c)} ({c}) — value {v}"
        if board.is_port(c):
            tip += "; port on " + ", ".join(sorted(sea_names.get(s, s) for s in board.seas_of(c)))
        if board.is_pirate(c):
            tip += "; pirate port"
        if not board.is_annexable(c):
            tip += "; cannot be annexed"
        out.append(f'<g class="city" id={quoteattr("city-" + c)}><title>{escape(tip)}</title>')
        if board.is_pirate(c):
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r + 5:.1f}" fill="none" stroke="{PIRATE}" '
                       f'stroke-width="2.5" stroke-dasharray="4 3"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}" stroke="{INK}" stroke-width="2"/>')
        out.append(_t(x, y + 5.5, str(v), 16, weight="bold"))
        if board.is_port(c):
            ax, ay = x + r + 7, y - r + 2
            out.append(_anchor_icon(ax, ay))
            seas_txt = "+".join(sea_short.get(s, s[:1].upper()) for s in sorted(board.seas_of(c)))
            labels.append(_t(ax + 8, ay + 4, seas_txt, 10, anchor="start", fill=COAST, weight="bold", extra=halo))
        out.append('</g>')
        labels.append(_t(x, y + r + 16, board.name(c), 14, weight="bold", extra=halo))
        if board.is_pirate(c):
            labels.append(_t(x, y + r + 30, "pirate · no annex", 11, fill=PIRATE, style="italic", extra=halo))
    out.append('</g>')
    out.append('<g id="labels">')
    out.extend(labels)
    out.append('</g>')

    # Title and legend.
    out.append(_t(WIDTH / 2, 34, title, 26, weight="bold"))
    excluded = sorted(board.excluded)
    sub = f"Board side: {side_name} — {len(board.cities)} cities in play"
    if excluded:
        sub += " (out of play: " + ", ".join(excluded) + ")"
    out.append(_t(WIDTH / 2, 58, sub, 14))

    ly = 1010
    out.append(f'<g id="legend"><rect x="20" y="{ly - 30}" width="{WIDTH - 40}" height="{HEIGHT - ly + 20}" '
               f'fill="#ffffff" opacity="0.85" stroke="{INK}" stroke-width="1" rx="8"/>')
    out.append(_t(40, ly - 6, "Legend", 16, anchor="start", weight="bold"))
    col1, col2 = 50, 520
    r1, r2, r3, r4 = ly + 24, ly + 56, ly + 88, ly + 120
    out.append(f'<line x1="{col1 - 10}" y1="{r1}" x2="{col1 + 40}" y2="{r1}" stroke="{ROAD}" stroke-width="3.2"/>')
    out.append(_t(col1 + 55, r1 + 5, "road (Cavalry: 1 Troop, 1 road)", 14, anchor="start"))
    out.append(f'<line x1="{col1 - 10}" y1="{r2}" x2="{col1 + 40}" y2="{r2}" stroke="{COAST}" '
               f'stroke-width="1.3" stroke-dasharray="6 4"/>')
    out.append(_t(col1 + 55, r2 + 5, "port on a sea (dashed to the sea's label)", 14, anchor="start"))
    out.append(f'<line x1="{col1 - 10}" y1="{r3}" x2="{col1 + 40}" y2="{r3}" stroke="{COAST}" '
               f'stroke-width="3" stroke-dasharray="2 6" stroke-linecap="round"/>')
    out.append(_t(col1 + 55, r3 + 5, "neighbouring seas (Ship: 1 per sea crossed)", 14, anchor="start"))
    out.append(f'<circle cx="{col2}" cy="{r1}" r="{_radius(2):.1f}" fill="#fffaf0" stroke="{INK}" stroke-width="2"/>')
    out.append(_t(col2, r1 + 5.5, "2", 16, weight="bold"))
    out.append(_t(col2 + 30, r1 + 5, "city with its base value (bigger = higher)", 14, anchor="start"))
    out.append(_anchor_icon(col2, r2))
    out.append(_t(col2 + 30, r2 + 5, "port (letters: the seas it borders)", 14, anchor="start"))
    out.append(f'<circle cx="{col2}" cy="{r3}" r="12" fill="none" stroke="{PIRATE}" stroke-width="2.5" '
               f'stroke-dasharray="4 3"/>')
    out.append(_t(col2 + 30, r3 + 5, "pirate port (cannot be annexed)", 14, anchor="start"))
    out.append(_t(40, r4 + 4, "Seas: " + " · ".join(f"{sea_short[s]} = {sea_names[s]}" for s in sea_names),
                  13, anchor="start", fill=COAST))
    out.append(_t(40, r4 + 30, "Positions are rough geography for drawing only. Most roads and port seas are "
                  "inferred, not from the rulebook: see the evidence tags in map.yaml.", 12, anchor="start",
                  style="italic"))
    out.append('</g>')
    out.append('</svg>')
    return "\n".join(out) + "\n"
