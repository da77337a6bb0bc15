// The browser table of `rulespec serve`: draws the JSON of /api/games/{id} and sends moves.
// Nothing here knows a game: the map is the pack's graph, the records are drawn by the shape
// of their values (a player's colour, a count per player, a flag, a list of ids), the names
// are the pack's titles.
"use strict";

const $ = (sel) => document.querySelector(sel);
let view = null;          // the position drawn
let gameId = null;
let filterIds = null;     // the ids a click chose: only the moves naming one of them are shown
let filterText = "";

// ------------------------------------------------------------------ the server
async function api(method, path, body, raw) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = raw ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = raw ? "text/plain" : "application/json";
  }
  const r = await fetch(path, opts);
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (e) { data = { error: text }; }
  if (!r.ok) {
    const err = new Error((data && data.error) || r.statusText);
    err.data = data; err.status = r.status;
    throw err;
  }
  return data;
}

function say(lines, kind) {
  const m = $("#table").hidden ? $("#form-message") : $("#message");
  m.className = kind || "";
  m.replaceChildren();
  for (const line of [].concat(lines || [])) {
    const div = document.createElement("div");
    div.textContent = line;
    m.appendChild(div);
  }
}

function sayError(e) {
  const ref = e.data && e.data.refusal;
  if (ref) {
    say(ref.lines, "refusal");
    const m = $("#table").hidden ? $("#form-message") : $("#message");
    m.dataset.reason = ref.reason;
    m.dataset.rule = ref.rule || "";
  } else {
    say([e.message], "error");
  }
}

// ------------------------------------------------------------------ helpers
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else if (k === "title") e.title = v;
    else e[k] = v;
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

const SVG = "http://www.w3.org/2000/svg";
function sv(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function title(id) {
  // the pack's name for an id; a copy `x#2` by its thing's name and number (as rulespec/human.py)
  const titles = view ? view.static.titles : {};
  if (titles[id]) return titles[id];
  const m = /^(.+)#(\d+)$/.exec(String(id));
  if (m && titles[m[1]]) return `${titles[m[1]]} ${m[2]}`;
  return String(id);
}

function isPlayer(v) { return typeof v === "string" && view.players.includes(v); }

function colour(c) {
  return (window.CSS && CSS.supports("color", c)) ? c : "#888";
}

function isCounts(v) {
  return v && typeof v === "object" && !Array.isArray(v) &&
    Object.keys(v).length > 0 && Object.values(v).every((n) => typeof n === "number");
}

function chip(id) {
  if (isPlayer(id)) {
    const c = el("span", { class: "chip player", "data-id": id }, id);
    c.style.setProperty("--c", colour(id));
    return c;
  }
  const c = el("span", { class: "chip id", "data-id": id, title: id }, title(id));
  c.addEventListener("click", () => setFilter([id], title(id)));
  return c;
}

// any value of the state, by its shape
function value(v) {
  if (v === null || v === undefined) return el("span", { class: "none" }, "–");
  if (typeof v === "boolean") return el("span", { class: v ? "yes" : "no" }, v ? "yes" : "no");
  if (typeof v === "number") return el("span", { class: "num" }, String(v));
  if (typeof v === "string") return chip(v);
  if (Array.isArray(v)) {
    if (!v.length) return el("span", { class: "none" }, "–");
    const span = el("span", { class: "list" });
    // copies of one thing (ids `x#1`, `x#2`...) as one chip with their number
    const groups = [];
    for (const x of v) {
      const base = typeof x === "string" && /#\d+$/.test(x) ? x.replace(/#\d+$/, "") : null;
      const last = groups[groups.length - 1];
      if (base !== null && last && last.base === base) last.n += 1;
      else groups.push({ base, x, n: 1 });
    }
    for (const g of groups) {
      const c = value(g.x);
      if (g.n > 1) { c.textContent = `${title(g.base)} ×${g.n}`; c.title = `${g.n} of ${g.base}`; }
      span.append(c, " ");
    }
    return span;
  }
  if (isCounts(v)) return counts(v);
  const dl = el("span", { class: "rec" });
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === false || (typeof x === "object" && x && !Object.keys(x).length)) continue;
    dl.append(el("span", { class: "k" }, k + " "), value(x), " ");
  }
  if (!dl.childNodes.length) dl.append(el("span", { class: "none" }, "–"));
  return dl;
}

function counts(d) {
  const span = el("span", { class: "counts" });
  for (const [k, n] of Object.entries(d)) {
    if (!n) continue;
    const c = el("span", { class: "count", title: `${title(k)}: ${n}` }, `${n}`);
    c.style.setProperty("--c", colour(k));
    span.append(c);
  }
  return span;
}

// ------------------------------------------------------------------ drawing
function draw(v) {
  view = v;
  gameId = v.id;
  if (location.hash !== "#g=" + v.id) history.replaceState(null, "", "#g=" + v.id);
  $("#table").hidden = false;
  $("#title").textContent = `${v.title} — ${v.pack}`;
  drawGame();
  drawMap();
  drawDecision();
  drawMoves();
  drawSides();
  drawStores();
  drawLog();
  drawStep();
  drawScores();
}

function drawGame() {
  const box = $("#game-fields");
  box.replaceChildren();
  for (const [k, x] of Object.entries(view.game)) {
    box.append(el("span", { class: "field", "data-key": k }, el("b", {}, k + " "), value(x)));
  }
  const seats = el("span", { class: "field", "data-key": "seats" }, el("b", {}, "people "));
  view.humans.forEach((h) => seats.append(chip(h), " "));
  if (view.humans.length < view.players.length) seats.append(el("span", {}, ` (bots: ${view.bot})`));
  box.append(seats);
}

const EDGE_STYLES = [
  { stroke: "#8a5a2b", width: 3, dash: "" },
  { stroke: "#3d78b5", width: 1.5, dash: "6 4" },
  { stroke: "#7aa7d6", width: 2, dash: "2 4" },
  { stroke: "#555", width: 1, dash: "1 3" },
];

function drawMap() {
  const svg = $("#map");
  svg.replaceChildren();
  const board = view.static.board;
  const pos = {};
  board.nodes.forEach((n) => { pos[n.id] = n; });
  const xs = board.nodes.map((n) => n.x), ys = board.nodes.map((n) => n.y);
  const pad = 60;
  const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad;
  svg.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + pad} ${Math.max(...ys) - minY + pad + 20}`);
  // the commonest kind of edge drawn boldest
  const tally = {};
  board.edges.forEach((e) => { tally[e.kind] = (tally[e.kind] || 0) + 1; });
  const kinds = Object.keys(tally).sort((a, b) => tally[b] - tally[a] || a.localeCompare(b));
  const edges = sv("g", { class: "edges" });
  for (const e of board.edges) {
    const a = pos[e.a], b = pos[e.b];
    if (!a || !b) continue;
    const st = EDGE_STYLES[kinds.indexOf(e.kind) % EDGE_STYLES.length];
    const line = sv("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: st.stroke, "stroke-width": st.width,
                             "stroke-dasharray": st.dash, "data-kind": e.kind });
    line.append(sv("title", {}, `${e.kind}: ${title(e.a)} – ${title(e.b)}`));
    edges.append(line);
  }
  svg.append(edges);
  // the legend of the edge kinds
  const legend = sv("g", { class: "legend" });
  kinds.forEach((k, i) => {
    const st = EDGE_STYLES[i % EDGE_STYLES.length];
    const y = minY + 20 + i * 18;
    legend.append(sv("line", { x1: minX + 10, y1: y, x2: minX + 40, y2: y, stroke: st.stroke,
                               "stroke-width": st.width, "stroke-dasharray": st.dash }));
    legend.append(sv("text", { x: minX + 46, y: y + 4, class: "legend-text" }, k));
  });
  svg.append(legend);
  const records = view.places.records || {};
  const nodes = sv("g", { class: "nodes" });
  for (const n of board.nodes) {
    const rec = records[n.id];
    nodes.append(rec ? placeNode(n, rec) : otherNode(n));
  }
  svg.append(nodes);
  markSelection();
}

function otherNode(n) {
  const g = sv("g", { class: "node other", "data-id": n.id, transform: `translate(${n.x},${n.y})` });
  g.append(sv("text", { class: "other-label", "text-anchor": "middle" }, n.title));
  g.addEventListener("click", () => setFilter([n.id], n.title));
  return g;
}

function placeNode(n, rec) {
  const r = 12 + 3 * (typeof n.value === "number" ? n.value : 1);
  const g = sv("g", { class: "node place", "data-id": n.id, transform: `translate(${n.x},${n.y})` });
  const tip = [`${n.title}${typeof n.value === "number" ? " (" + n.value + ")" : ""}`];
  let fill = null;
  const marks = [], flags = [], rows = [], other = [];
  for (const [k, x] of Object.entries(rec)) {
    if (x === null || x === false || x === 0) continue;
    if (isPlayer(x)) { if (fill === null) fill = [k, x]; else marks.push([k, x]); }
    else if (x === true) flags.push(k);
    else if (isCounts(x)) rows.push([k, x]);
    else if (typeof x !== "object") other.push([k, x]);
    else continue;
    tip.push(`${k}: ${typeof x === "object" ? JSON.stringify(x) : x}`);
  }
  const circle = sv("circle", { r, class: "place-circle", fill: fill ? colour(fill[1]) : "#fffaf0" });
  if (fill) circle.setAttribute("data-" + fill[0], fill[1]);
  g.append(circle);
  g.append(sv("text", { class: "place-label", y: r + 13, "text-anchor": "middle" }, n.title));
  if (typeof n.value === "number") {
    g.append(sv("text", { class: "place-value" + (fill ? " on-colour" : ""), y: 5, "text-anchor": "middle" }, String(n.value)));
  }
  // others fields holding a player: small diamonds above
  marks.forEach(([k, c], i) => {
    const d = sv("rect", { x: r - 4 + i * 12, y: -r - 6, width: 10, height: 10, transform: `rotate(45 ${r + 1 + i * 12} ${-r - 1})`,
                           fill: colour(c), class: "mark", "data-field": k });
    d.append(sv("title", {}, `${k}: ${c}`));
    g.append(d);
  });
  // flags: a badge with the field's initial
  flags.forEach((k, i) => {
    const b = sv("g", { class: "flag", "data-field": k, transform: `translate(${-r - 4 - i * 16},${-r + 2})` });
    b.append(sv("rect", { x: -7, y: -7, width: 14, height: 14, rx: 3 }));
    b.append(sv("text", { y: 4, "text-anchor": "middle" }, k[0].toUpperCase()));
    b.append(sv("title", {}, k));
    g.append(b);
  });
  // counts per player (pieces in and in front of the place): one row each, below the name
  rows.forEach(([k, d], i) => {
    const y = r + 20 + i * 15;
    const entries = Object.entries(d).filter(([, m]) => m);
    entries.forEach(([c, m], j) => {
      const x = -((entries.length - 1) * 17) / 2 + j * 17;
      const box = sv("g", { class: "count-box", "data-field": k, "data-player": c, transform: `translate(${x},${y})` });
      box.append(sv("rect", { x: -7, y: -6, width: 14, height: 13, rx: i ? 7 : 2, fill: colour(c) }));
      box.append(sv("text", { y: 4, "text-anchor": "middle" }, String(m)));
      box.append(sv("title", {}, `${k}: ${c} ${m}`));
      g.append(box);
    });
    if (entries.length) g.append(sv("text", { class: "row-key", x: -((entries.length - 1) * 17) / 2 - 12, y: y + 4, "text-anchor": "end" }, k[0]));
  });
  other.forEach(([k, x], i) => g.append(sv("text", { class: "other-field", x: r + 4, y: -r + 12 * i, }, `${k} ${x}`)));
  g.append(sv("title", {}, tip.join("\n")));
  g.addEventListener("click", () => setFilter([n.id], n.title));
  return g;
}

function drawDecision() {
  const d = $("#decision");
  d.replaceChildren();
  if (view.at !== view.length) {
    d.append(el("div", { class: "looking" }, `looking back: the position after move ${view.at} of ${view.length}`));
    return;
  }
  if (view.over) { d.append(el("b", {}, "The game is over.")); return; }
  const p = view.pending;
  d.dataset.player = p.player || "";
  const who = p.player ? chip(p.player) : el("span", {}, "–");
  d.append(who, el("b", {}, ` decides: ${p.prompt || p.kind || ""}`));
  if (p.at) d.append(el("span", { class: "rule" }, `  (${p.at})`));
  if (view.deciding && !view.humans.includes(view.deciding)) d.append(el("div", {}, "(a bot decides)"));
}

function moveMatches(m) {
  return !filterIds || m.ids.some((i) => filterIds.includes(i));
}

function drawMoves() {
  const ol = $("#moves");
  ol.replaceChildren();
  const shown = view.moves.filter(moveMatches);
  for (const m of shown) {
    const b = el("button", { class: "move", type: "button", "data-n": m.n, "data-move": m.move, title: m.move },
                 el("span", { class: "n" }, `${m.n}. `), m.label);
    if (m.label !== m.move) b.append(el("code", {}, m.move));
    b.addEventListener("click", () => play({ index: m.n }));
    ol.append(el("li", {}, b));
  }
  const f = $("#filter");
  f.hidden = !filterIds;
  if (filterIds) {
    $("#filter-what").textContent = `moves naming ${filterText}: ${shown.length} of ${view.moves.length}`;
  }
}

function setFilter(ids, text) {
  filterIds = ids;
  filterText = text;
  drawMoves();
  markSelection();
}

function markSelection() {
  document.querySelectorAll(".selected").forEach((e) => e.classList.remove("selected"));
  if (!filterIds) return;
  for (const id of filterIds) {
    document.querySelectorAll(`[data-id="${CSS.escape(id)}"]`).forEach((e) => e.classList.add("selected"));
  }
}

function drawSides() {
  const box = $("#sides");
  box.replaceChildren();
  const order = view.game && Object.values(view.game).find((x) => Array.isArray(x) && x.length === view.players.length && x.every(isPlayer));
  for (const c of order || view.players) {
    const rec = view.sides[c];
    if (!rec) continue;
    const side = el("div", { class: "side", "data-player": c });
    side.style.setProperty("--c", colour(c));
    const head = el("h2", {}, c, view.humans.includes(c) ? " (a person)" : " (bot)");
    if (view.deciding === c) head.append(el("span", { class: "turn" }, " ◀ deciding"));
    side.append(head);
    const nums = el("div", { class: "numbers" });
    for (const [k, x] of Object.entries(rec)) {
      if (typeof x === "number" && !(k in view.static.side_indexes)) nums.append(el("span", { class: "field", "data-key": k }, el("b", {}, k + " "), String(x)));
    }
    side.append(nums);
    for (const [k, x] of Object.entries(rec)) {
      if (typeof x === "number" || x === null || k in view.static.side_indexes) continue;
      if (Array.isArray(x) && x.length && x.every((r) => r && typeof r === "object" && !Array.isArray(r))) {
        side.append(recordList(c, k, x, rec));
      } else if (Array.isArray(x) || (typeof x === "object" && Object.keys(x).length) || typeof x !== "object") {
        if (Array.isArray(x) && !x.length) continue;
        side.append(el("div", { class: "list-line", "data-key": k }, el("b", {}, k + " "), value(x)));
      }
    }
    box.append(side);
  }
}

function recordList(owner, key, items, rec) {
  const wrap = el("div", { class: "records", "data-key": key }, el("b", {}, key));
  const row = el("div", { class: "record-row" });
  // the side's fields that point at an item of this list (an index field of the pack's world)
  const pointers = Object.entries(view.static.side_indexes).filter(([, d]) => d.list === key);
  items.forEach((x, i) => {
    const sid = `${owner}.${key.slice(0, -1)}${i}`;
    const ids = [sid, ...Object.values(x).filter((v) => typeof v === "string" && !isPlayer(v))];
    const box = el("div", { class: "record", "data-id": sid });
    for (const [f, d] of pointers) if (rec[f] === i) box.append(el("span", { class: "pointer", title: d.title }, `▶ ${f} `));
    const label = view.space_labels[sid];
    if (label) box.append(el("div", { class: "space-label" }, label));
    for (const [f, v] of Object.entries(x)) {
      if (v === null || v === false || (typeof v === "object" && v && !Object.keys(v).length)) continue;
      if (label && typeof v === "string" && label.includes(title(v))) continue;
      if (v === true) box.append(el("span", { class: "flag-tag", title: f }, f));
      else box.append(el("span", { class: "cell", "data-field": f }, el("i", {}, f + " "), value(v)));
    }
    box.addEventListener("click", (ev) => { ev.stopPropagation(); setFilter(ids, label || title(ids[1] || sid)); });
    row.append(box);
  });
  wrap.append(row);
  return wrap;
}

function drawStores() {
  const box = $("#stores");
  box.replaceChildren();
  for (const s of view.stores) {
    const sec = el("div", { class: "store", "data-key": s.key }, el("h2", {}, s.title));
    for (const [id, rec] of Object.entries(s.records)) {
      const track = view.static.tracks[id];
      if (track && rec && typeof rec === "object") sec.append(trackBar(id, track, rec));
      else sec.append(el("div", { class: "store-rec", "data-id": id }, el("b", {}, title(id) + " "), value(rec)));
    }
    box.append(sec);
  }
}

function trackBar(id, track, rec) {
  const div = el("div", { class: "track", "data-id": id }, el("b", {}, track.title));
  const w = 22, h = 34;
  const svg = sv("svg", { width: (track.last + 1) * w + 4, height: h + 14, class: "track-svg" });
  for (let i = 0; i <= track.last; i++) {
    svg.append(sv("rect", { x: 2 + i * w, y: 2, width: w - 2, height: h - 6, class: "track-space" }));
    svg.append(sv("text", { x: 2 + i * w + (w - 2) / 2, y: h + 10, "text-anchor": "middle", class: "track-n" }, String(i)));
  }
  // each field holding positions (a count per key): a marker per key at its space
  for (const [f, d] of Object.entries(rec)) {
    if (!isCounts(d)) continue;
    const at = {};
    for (const [k, pos] of Object.entries(d)) {
      const slot = at[pos] = (at[pos] || 0) + 1;
      const m = sv("circle", { cx: 2 + Math.min(pos, track.last) * w + (w - 2) / 2, cy: 2 + slot * 7, r: 5,
                              fill: colour((view.static.marker_owners || {})[k] || k), class: "track-marker", "data-key": k, "data-pos": pos });
      m.append(sv("title", {}, `${title(k)}: ${pos} (${f})`));
      svg.append(m);
    }
    break;      // the first such field is the markers' positions; the others are shown as values
  }
  div.append(svg);
  const rest = Object.entries(rec).filter(([, d]) => !isCounts(d) && d && Object.keys(d).length);
  if (rest.length) div.append(value(Object.fromEntries(rest)));
  return div;
}

function drawLog() {
  const ol = $("#log");
  ol.replaceChildren();
  const lastByN = {};
  const firstLast = view.length - view.last.length;
  view.last.forEach((x, i) => { lastByN[firstLast + i + 1] = x; });
  for (const m of view.log) {
    const li = el("li", { "data-n": m.n, class: m.n === view.at ? "here" : "" });
    li.append(el("span", { class: "n" }, `${m.n} `), m.player ? chip(m.player) : "", " ");
    const extra = lastByN[m.n];
    li.append(el("span", {}, extra ? extra.label : m.move));
    if (extra && extra.account && extra.account.length) li.append(el("div", { class: "account" }, extra.account.join("; ")));
    li.addEventListener("click", () => step(m.n));
    ol.append(li);
  }
  const here = ol.querySelector(".here");       // the list scrolls, not the page
  if (here) ol.scrollTop = Math.max(0, here.offsetTop - ol.clientHeight / 2);
}

function drawStep() {
  $("#step-where").textContent = `move ${view.at} of ${view.length}`;
}

function drawScores() {
  const box = $("#scores");
  box.hidden = !view.scores;
  if (!view.scores) return;
  box.replaceChildren(el("h2", {}, "Scores"));
  for (const [p, s] of Object.entries(view.scores)) box.append(el("div", {}, chip(p), ` ${s.total}`));
}

// ------------------------------------------------------------------ actions
async function load(path) {
  draw(await api("GET", path));
}

async function play(body) {
  try {
    const v = await api("POST", `/api/games/${gameId}/move`, body);
    filterIds = null;
    draw(v);
    say([]);
  } catch (e) { sayError(e); }
}

async function step(n) {
  try {
    if (n === null || n >= view.length) await load(`/api/games/${gameId}`);
    else await load(`/api/games/${gameId}?at=${Math.max(0, n)}`);
  } catch (e) { sayError(e); }
}

async function setupForm() {
  const info = await api("GET", "/api/packs");
  const packSel = $("#pack");
  packSel.replaceChildren(...info.packs.map((p) => el("option", { value: p.id }, p.id)));
  packSel.value = info.default;
  $("#bot").replaceChildren(...info.bots.map((b) => el("option", { value: b }, b)));
  $("#bot").value = info.bot;
  const counts = () => (info.packs.find((p) => p.id === packSel.value) || { players: [] }).players;
  const fillPlayers = () => {
    const cs = counts().length ? counts() : [2, 3, 4, 5];
    $("#players").replaceChildren(...cs.map((n) => el("option", { value: n }, String(n))));
    $("#players").value = cs.includes(4) ? 4 : cs[0];
    fillHumans();
  };
  const fillHumans = () => {
    const n = Number($("#players").value);
    const opts = [el("option", { value: "all" }, "every seat (hot seat)")];
    for (let k = 1; k < n; k++) opts.push(el("option", { value: k }, `${k} seat${k > 1 ? "s" : ""}, bots the others`));
    $("#humans").replaceChildren(...opts);
  };
  packSel.addEventListener("change", fillPlayers);
  $("#players").addEventListener("change", fillHumans);
  fillPlayers();
}

function wire() {
  $("#new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const h = $("#humans").value;
    try {
      filterIds = null;
      draw(await api("POST", "/api/games", {
        pack: $("#pack").value, players: Number($("#players").value), seed: Number($("#seed").value || 0),
        humans: h === "all" ? "all" : Number(h), bot: $("#bot").value,
      }));
      say([]);
    } catch (e) { sayError(e); }
  });
  $("#load-file").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    try {
      const text = await f.text();
      filterIds = null;
      const v = await api("POST", `/api/games/load?humans=all&bot=${encodeURIComponent($("#bot").value)}`, text, true);
      draw(v);
      say([`loaded ${v.length} moves from ${f.name}`]);
    } catch (e) { sayError(e); }
    ev.target.value = "";
  });
  $("#typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("#move-text").value.trim();
    if (t) play({ move: t });
  });
  $("#why-typed").addEventListener("click", async () => {
    try {
      const r = await api("POST", `/api/games/${gameId}/why`, { move: $("#move-text").value });
      say(r.lines, r.legal ? "" : "refusal");
    } catch (e) { sayError(e); }
  });
  $("#undo").addEventListener("click", async () => {
    try {
      const v = await api("POST", `/api/games/${gameId}/undo`, { n: 1 });
      draw(v);
      say(v.message);
    } catch (e) { sayError(e); }
  });
  $("#hint").addEventListener("click", async () => {
    try { say((await api("POST", `/api/games/${gameId}/hint`, {})).lines); } catch (e) { sayError(e); }
  });
  $("#save").addEventListener("click", async () => {
    try {
      const r = await fetch(`/api/games/${gameId}/save`);
      if (!r.ok) throw new Error(await r.text());
      const blob = await r.blob();
      const a = el("a", { href: URL.createObjectURL(blob), download: `${view.pack}-${view.id}.jsonl` });
      document.body.append(a);
      a.click();
      a.remove();
      say([`saved ${view.length} moves`]);
    } catch (e) { sayError(e); }
  });
  $("#filter-clear").addEventListener("click", () => setFilter(null, ""));
  $("#step-first").addEventListener("click", () => step(0));
  $("#step-back").addEventListener("click", () => step(view.at - 1));
  $("#step-next").addEventListener("click", () => step(view.at + 1));
  $("#step-last").addEventListener("click", () => step(null));
}

(async function main() {
  wire();
  await setupForm();
  const m = location.hash.match(/^#g=([0-9a-f]+)$/);
  if (m) {
    try { await load(`/api/games/${m[1]}`); } catch (e) { sayError(e); }
  }
  document.body.dataset.ready = "1";
})();
