// The chargeref web board: set up a table, drag models, ask the server for rulings.
// Plain JavaScript and SVG, no build step, nothing fetched from the network but our
// own server. The board's classes and colours come from /api/style (style.json),
// the same file the Python renderer reads.
import { $, api, history, hooks, pushUndo, restore, round4, snapshot, state, toast, unitById } from "./core.js";
import { addModel, addUnit, removeModel, removeUnit } from "./edit.js";
import { clickUnit, renderAddBox, renderOdds, renderUnitList, renderVerdict } from "./panels.js";
import { SYSTEM_NAMES, blockGeometry, dir, el, f4, fmtLen, inch, mmpu, pieces, toYAML, unitOf } from "./shapes.js";
import { drawThreat, initThreat, threatStale, threatUnits } from "./threat.js";

const STORE = "chargeref-board/v1";
const NEW_BOARD = { "40k": [60, 44], t9a: [72, 48], warmaster: [180, 120] };
let style = null;
let liveTimer = null;
let liveAbort = null;
let rulerOn = false;

// ------------------------------------------------------------------ server

// ------------------------------------------------------------------ state

function undo() {
  if (!history.undo.length) return;
  history.redo.push(snapshot());
  restore(history.undo.pop());
  changed();
}
function redo() {
  if (!history.redo.length) return;
  history.undo.push(snapshot());
  restore(history.redo.pop());
  changed();
}

function settings() {
  return {
    mode: document.querySelector("input[name=dice-mode]:checked").value,
    dice: [Number($("die1").value), Number($("die2").value)],
    total: Number($("roll-total").value),
    reroll: $("reroll").value,
    modifier: Number($("modifier").value) || 0,
  };
}

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify({
      scen: state.scen, name: state.name, charger: state.charger, targets: state.targets,
      ruling: state.ruling, showRuling: state.showRuling, settings: settings(), example: $("example-select").value,
    }));
  } catch (_) { /* storage full or off: the page still works */ }
}

// Something on the table changed: the old ruling no longer applies.
function changed({ keepRuling = false } = {}) {
  if (!keepRuling) { state.ruling = null; state.rulingSvg = null; state.showRuling = false; }
  const ids = new Set((state.scen?.units || []).map((u) => u.id));
  if (state.charger && !ids.has(state.charger)) state.charger = null;
  state.targets = state.targets.filter((t) => ids.has(t) && t !== state.charger);
  render();
  save();
  scheduleLive();
  threatStale();
}

// ------------------------------------------------------------------ drawing

// The part of the board in view, in SVG coordinates [x, y, width, height]; null: all.
let view = null;

function viewBox() {
  const { width: W, depth: D } = state.scen.board;
  return view || [0, 0, W, D];
}

// One screen pixel in scenario units.
function px() {
  const box = $("board").getBoundingClientRect();
  const [, , vw, vh] = viewBox();
  if (!(box.width > 0)) return vw / 960;
  return Math.max(vw / box.width, vh / box.height);
}

function cssFor(pxUnits) {
  if (!style) return "";
  return style.rules.map(([sel, body]) =>
    `#board ${sel.split(",").join(", #board ")} {${body.replace(/\{(-?\d+(?:\.\d+)?)\}/g, (_, n) => `${f4(Number(n) * pxUnits)}px`)}}`)
    .join("\n") + `\n#board .ruler-line {stroke-width:${f4(2.5 * pxUnits)}px}\n#board .ruler-text {font-size:${f4(14 * pxUnits)}px;stroke-width:${f4(3 * pxUnits)}px}`
    + `\n#board .handle {stroke-width:${f4(1.2 * pxUnits)}px}\n#board .handle-link {stroke-width:${f4(1 * pxUnits)}px}`
    + `\n#board .selected-mark {stroke-width:${f4(3 * pxUnits)}px}`
    + `\n#board .nearest-line {stroke-width:${f4(1.5 * pxUnits)}px;stroke-dasharray:${f4(4 * pxUnits)} ${f4(3 * pxUnits)}}`
    + `\n#board .nearest-text {font-size:${f4(12 * pxUnits)}px;stroke-width:${f4(3 * pxUnits)}px}`
    + `\n#board .off-board-arrow {fill:#c62828;stroke:#ffffff;stroke-width:${f4(1 * pxUnits)}px}`
    + `\n#board .off-board-text {font-size:${f4(12 * pxUnits)}px;font-weight:bold;fill:#8b1a1a;paint-order:stroke;stroke:#ffffff;stroke-width:${f4(3 * pxUnits)}px}`;
}

const Y = (y) => state.scen.board.depth - y;
const P = (pts) => pts.map((p) => `${f4(p[0])},${f4(Y(p[1]))}`).join(" ");

function fitBoard() {
  const svg = $("board"), wrap = $("board-wrap");
  const W = state.scen.board.width, D = state.scen.board.depth;
  // a narrow (one column) page gives the board the whole width; a wide one fits it in
  const narrow = window.matchMedia("(max-width: 1100px)").matches;
  const bw = wrap.clientWidth - 16, bh = narrow ? Infinity : wrap.clientHeight - 16;
  const k = Math.max(0.1, Math.min(bw / W, bh / D));
  svg.setAttribute("viewBox", viewBox().map(f4).join(" "));
  svg.setAttribute("width", Math.floor(W * k));
  svg.setAttribute("height", Math.floor(D * k));
  $("board-style").textContent = cssFor(px());
}

// Zoom by `factor` about the board point under the pointer (SVG coordinates).
function zoomAt(factor, sx, sy) {
  const { width: W, depth: D } = state.scen.board;
  const [x, y, w, h] = viewBox();
  const nw = Math.min(W, Math.max(2 * inch(state.scen), w * factor));
  const nh = nw * (D / W);
  const tx = (sx - x) / w, ty = (sy - y) / h;
  let nx = sx - tx * nw, ny = sy - ty * nh;
  nx = Math.min(Math.max(nx, 0), W - nw); ny = Math.min(Math.max(ny, 0), D - nh);
  view = nw >= W - 1e-9 ? null : [nx, ny, nw, nh];
  render();
}

// Show the charge: the charger, its targets and every move, with a margin.
function zoomToRuling() {
  const r = state.ruling;
  if (!r) return;
  const pts = [];
  // the targets, or (edition 11, targets after the roll) every unit the roll was asked about
  const shown = new Set([r.charger, ...r.targets, ...(r.choices || []).flatMap((c) => c.targets)]);
  for (const p of pieces(state.scen)) if (shown.has(p.unit)) {
    pts.push([p.fp.c[0] - p.fp.reach, p.fp.c[1] - p.fp.reach], [p.fp.c[0] + p.fp.reach, p.fp.c[1] + p.fp.reach]);
  }
  for (const m of r.moves) pts.push(m.from, m.to);
  if (!pts.length) return;
  const { width: W, depth: D } = state.scen.board;
  const pad = 2.5 * inch(state.scen);
  let x0 = Math.min(...pts.map((p) => p[0])) - pad, x1 = Math.max(...pts.map((p) => p[0])) + pad;
  let y0 = Math.min(...pts.map((p) => p[1])) - pad, y1 = Math.max(...pts.map((p) => p[1])) + pad;
  let w = Math.max(x1 - x0, (y1 - y0) * W / D, 12 * inch(state.scen));
  w = Math.min(w, W);
  const h = w * D / W;
  const cx = (x0 + x1) / 2, cy = D - (y0 + y1) / 2; // SVG y
  x0 = Math.min(Math.max(cx - w / 2, 0), W - w);
  const top = Math.min(Math.max(cy - h / 2, 0), D - h);
  view = w >= W - 1e-9 ? null : [x0, top, w, h];
}

// The Open box names where the table came from: a bundled example, or a file / new table.
function showSource() {
  const sel = $("example-select"), file = $("example-file");
  const isExample = [...sel.options].some((o) => o.value && o.value === state.name);
  file.hidden = isExample;
  file.textContent = isExample ? "" : `(${state.name || "your table"})`;
  sel.value = isExample ? state.name : "";
}

function render() {
  const scen = state.scen;
  showSource();
  $("sysname").textContent = SYSTEM_NAMES[scen.system] + (scen.system === "40k" && scen.rules?.edition ? ` · edition ${scen.rules.edition}` : "");
  fitBoard();
  drawTable();
  threatUnits();
  drawThreat();
  drawUnits();
  drawRuling();
  drawTools();
  renderUnitList();
  renderVerdict();
  renderAddBox();
  $("undo").disabled = !history.undo.length;
  $("redo").disabled = !history.redo.length;
}

function drawTable() {
  const g = $("layer-table");
  g.replaceChildren();
  const { width: W, depth: D } = state.scen.board;
  // the hatching of impassable ground: 45° strokes 7 screen pixels apart
  const defs = el("defs", {}, g), hp = 7 * px();
  const pat = el("pattern", { id: "hatch-pattern", patternUnits: "userSpaceOnUse", width: f4(hp), height: f4(hp),
    patternTransform: "rotate(45)" }, defs);
  el("line", { class: "hatch", x1: 0, y1: 0, x2: 0, y2: f4(hp) }, pat);
  el("rect", { class: "board", x: 0, y: 0, width: W, height: D }, g);
  const [minor, major] = unitOf(state.scen) === "in" ? [1, 6] : [5, 10];
  const step = minor / px() < 9 ? major : minor;
  const grid = el("g", { class: "grid-lines" }, g);
  for (let x = step; x < W; x += step) {
    el("line", { class: Math.abs(x / major - Math.round(x / major)) < 1e-9 ? "grid-major" : "grid", x1: f4(x), y1: 0, x2: f4(x), y2: D }, grid);
  }
  for (let y = step; y < D; y += step) {
    el("line", { class: Math.abs(y / major - Math.round(y / major)) < 1e-9 ? "grid-major" : "grid", x1: 0, y1: f4(Y(y)), x2: W, y2: f4(Y(y)) }, grid);
  }
  const order = { hill: 0, obstacle: 1, impassable: 2, ruin: 3, wall: 4, barricade: 5 };
  const terrain = [...(state.scen.terrain || [])].sort((a, b) => (order[a.type] ?? 9) - (order[b.type] ?? 9));
  const tg = el("g", { class: "terrain-layer" }, g);
  for (const t of terrain) {
    const one = el("g", { class: `terrain terrain-${t.type}`, "data-terrain": t.id }, tg);
    if (t.type === "ruin") {
      el("polygon", { class: "ruin", points: P(t.footprint) }, one);
      for (const fl of t.floors || []) el("polygon", { class: "floor", points: P(fl.polygon) }, one);
      for (const w of t.walls || []) el("polyline", { class: "ruin-wall", points: P(w.points), "stroke-width": w.thickness ?? 0.2 }, one);
      label(one, t.footprint, t.id);
    } else if (t.type === "wall" || t.type === "barricade") {
      el("polyline", { class: t.type, points: P(t.points), "stroke-width": t.thickness ?? 0.2 }, one);
    } else if (t.polygon) {
      el("polygon", { class: t.type, points: P(t.polygon) }, one);
      // impassable ground is hatched, as in the ruling's picture and its key
      if (t.type === "impassable") el("polygon", { class: "hatch-fill", points: P(t.polygon), fill: "url(#hatch-pattern)" }, one);
      label(one, t.polygon, t.id + (t.height ? ` ${fmtLen(state.scen, t.height)}` : ""));
    }
  }
}

function label(g, pts, text) {
  const spot = labelSpot(pts);
  if (spot) el("text", { class: "terrain-label", x: f4(spot[0]), y: f4(spot[1]) }, g, text);
}

// The bounds [x0, y0, x1, y1] (scenario coordinates) of the part of a polygon in view,
// or null when none of it is: the polygon clipped to the view's rectangle, edge by edge.
function visibleBounds(pts) {
  const [vx, vy, vw, vh] = viewBox(), D = state.scen.board.depth;
  const box = [vx, D - (vy + vh), vx + vw, D - vy];
  let poly = pts.map((p) => [p[0], p[1]]);
  for (let k = 0; k < 4 && poly.length; k++) {
    const axis = k % 2, lo = k < 2, edge = box[k];
    const inside = (p) => (lo ? p[axis] >= edge : p[axis] <= edge);
    const out = [];
    poly.forEach((p, i) => {
      const q = poly[(i + 1) % poly.length];
      if (inside(p)) out.push(p);
      if (inside(p) !== inside(q)) {
        const t = (edge - p[axis]) / (q[axis] - p[axis]);
        out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
      }
    });
    poly = out;
  }
  if (poly.length < 3) return null;
  const xs = poly.map((p) => p[0]), ys = poly.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

// Where a terrain label goes (SVG coordinates): the top-left corner of the part of the
// piece in view, so that zooming never cuts it; null when too little of it shows.
function labelSpot(pts) {
  const bb = visibleBounds(pts), fs = 10 * px();
  if (!bb || bb[2] - bb[0] < 3 * fs || bb[3] - bb[1] < 1.5 * fs) return null;
  return [bb[0] + 0.3 * fs, Y(bb[3]) + 1.1 * fs];
}

// The ruling's picture labels terrain for the whole board: move each top-left label to
// the part of its piece in view (as the table's own labels are), or hide it.
function placeRulingLabels(g) {
  for (const tg of g.querySelectorAll("g.terrain[data-id]")) {
    const t = (state.scen.terrain || []).find((x) => x.id === tg.dataset.id);
    const pts = t && (t.footprint || t.polygon);
    if (!pts) continue;
    for (const lab of tg.querySelectorAll(":scope > g.terrain-label, :scope > text.terrain-label")) {
      const texts = lab.tagName === "text" ? [lab] : [...lab.querySelectorAll("text")];
      if (texts[0]?.getAttribute("text-anchor") !== "start") continue; // floors and walls keep theirs
      const spot = labelSpot(pts);
      lab.style.display = spot ? "" : "none";
      if (spot) for (const tx of texts) { tx.setAttribute("x", f4(spot[0])); tx.setAttribute("y", f4(spot[1])); }
    }
  }
}

function role(uid) {
  if (uid === state.charger) return "charger";
  if (state.targets.includes(uid)) return "target";
  return "";
}

function shape(g, p, cls) {
  const fp = p.fp;
  const attrs = { class: cls, "data-unit": p.unit, "data-index": p.index, "data-id": p.id };
  let e;
  if (fp.kind === "circle") e = el("circle", { ...attrs, cx: f4(fp.c[0]), cy: f4(Y(fp.c[1])), r: f4(fp.r) }, g);
  else if (fp.kind === "ellipse") {
    const cx = f4(fp.c[0]), cy = f4(Y(fp.c[1]));
    e = el("ellipse", { ...attrs, cx, cy, rx: f4(fp.a), ry: f4(fp.b), transform: `rotate(${f4(-fp.theta * 180 / Math.PI)} ${cx} ${cy})` }, g);
  } else e = el("polygon", { ...attrs, points: P(fp.pts) }, g);
  el("title", {}, e, `${p.id} (${p.unit}) at ${f4(fp.c[0])}, ${f4(fp.c[1])}`);
  return e;
}

function drawUnits() {
  const g = $("layer-units");
  g.replaceChildren();
  g.style.display = state.showRuling ? "none" : "";
  const scen = state.scen;
  const all = pieces(scen);
  const fronts = el("g", { class: "fronts" });
  for (const u of scen.units || []) {
    const r = role(u.id);
    const ug = el("g", { class: `unit p${u.player} ${r}`.trim(), "data-unit": u.id }, g);
    const mine = all.filter((p) => p.unit === u.id);
    const inBlock = scen.system === "t9a" && mine[0]?.base?.rect ? "in-block" : "";
    for (const p of mine) {
      shape(ug, p, `model p${u.player} ${r} ${inBlock}`.replace(/\s+/g, " ").trim());
      if (p.fp.front && scen.system !== "t9a") {
        const [a, b] = p.fp.front;
        el("line", { class: "front", x1: f4(a[0]), y1: f4(Y(a[1])), x2: f4(b[0]), y2: f4(Y(b[1])) }, fronts);
      }
    }
    if (scen.system === "t9a" && inBlock) {
      const geo = blockGeometry(u.formation, mmpu(scen));
      el("polygon", { class: `unit-block p${u.player} ${r}`.trim(), points: P(geo.corners), "data-unit": u.id, "data-index": -1 }, fronts);
      const [fl, fr] = geo.corners;
      el("line", { class: "front", x1: f4(fl[0]), y1: f4(Y(fl[1])), x2: f4(fr[0]), y2: f4(Y(fr[1])) }, fronts);
    }
  }
  g.appendChild(fronts);
  const labels = el("g", { class: "labels" }, g);
  for (const u of scen.units || []) {
    const mine = all.filter((p) => p.unit === u.id);
    if (!mine.length) continue;
    const top = Math.max(...mine.map((p) => p.fp.c[1] + p.fp.reach));
    const cx = mine.reduce((s, p) => s + p.fp.c[0], 0) / mine.length;
    const fs = 12 * px();
    const lg = el("g", { class: `unit-label p${u.player}` }, labels);
    el("text", { class: "halo", x: f4(cx), y: f4(Y(top) - 0.4 * fs), "text-anchor": "middle" }, lg, u.id);
    el("text", { class: "unit-label", x: f4(cx), y: f4(Y(top) - 0.4 * fs), "text-anchor": "middle" }, lg, u.id);
  }
  // A model whose centre is off the board would be out of sight: mark the edge where it
  // left, pointing at it, with its id (the check lists the problem above the board).
  const { width: W, depth: D } = scen.board;
  const off = el("g", { class: "off-board" }, g);
  for (const p of all) {
    const [x, y] = p.fp.c;
    if (x >= 0 && x <= W && y >= 0 && y <= D) continue;
    const ex = Math.min(Math.max(x, 0), W), ey = Math.min(Math.max(y, 0), D);
    const a = Math.atan2(y - ey, x - ex), s = 14 * px();
    const tip = [ex, ey], back = [ex - Math.cos(a) * 1.6 * s, ey - Math.sin(a) * 1.6 * s];
    const side = [-Math.sin(a) * 0.8 * s, Math.cos(a) * 0.8 * s];
    const tri = [tip, [back[0] + side[0], back[1] + side[1]], [back[0] - side[0], back[1] - side[1]]];
    const mark = el("g", { class: "off-board-mark", "data-unit": p.unit, "data-model": p.id }, off);
    el("polygon", { class: "off-board-arrow", points: P(tri) }, mark);
    // the label sits inside the board, behind the arrow, reading away from the edge
    const c = Math.cos(a), sn = Math.sin(a);
    const anchor = c > 0.5 ? "end" : c < -0.5 ? "start" : "middle";
    const lx = Math.min(Math.max(back[0] - c * 0.5 * s, 0.5 * s), W - 0.5 * s);
    const ly = Math.min(Math.max(back[1] - sn * 1.3 * s - (anchor === "middle" ? 0 : 0.4 * s), 1.2 * s), D - 1.2 * s);
    el("text", { class: "off-board-text", x: f4(lx), y: f4(Y(ly)), "text-anchor": anchor }, mark,
      `${p.id} is off the board`);
  }
}

function drawRuling() {
  const g = $("layer-ruling");
  g.replaceChildren();
  $("layer-table").style.display = state.showRuling ? "none" : "";
  $("ruling-banner").classList.toggle("hidden", !state.showRuling);
  $("legend-box").classList.add("hidden");
  if (!state.showRuling || !state.rulingSvg) return;
  // The server's picture of the ruling, drawn by the Python renderer in the board's
  // own coordinates (viewBox 0 0 width depth); the page's style sheet styles it.
  const doc = new DOMParser().parseFromString(state.rulingSvg, "image/svg+xml");
  const map = doc.querySelector("g.map");
  if (map) g.appendChild(document.importNode(map, true));
  placeRulingLabels(g);
  // its key (the same renderer's legend of what the picture uses), shown as an image
  // so that its own style sheet stays its own
  const key = doc.querySelector("defs svg.legend-key");
  if (key) {
    const img = $("legend-img"), entries = [...key.querySelectorAll("g.entry")];
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(key));
    img.width = Number(key.getAttribute("width"));
    img.alt = `Key: ${entries.map((e) => e.textContent.trim()).join("; ")}`;
    $("legend-box").dataset.keys = entries.map((e) => e.getAttribute("data-key")).join(" ");
    $("legend-box").classList.remove("hidden");
  }
  const r = state.ruling;
  $("banner-text").textContent = r.choices
    ? `Showing what a roll of ${r.roll.total} lets ${r.charger} pick: choose a target set in the Ruling card, or go back to the table.`
    : `Showing the ruling: ${r.charger} → ${r.targets.join(", ")} · ${r.success ? "succeeds" : r.eligible ? "fails" : "not eligible"}. Back to the table to move models again.`;
  $("banner-keep").classList.toggle("hidden", !r.after);
}

// the selected piece's turn handle, and the ruler
function drawTools() {
  const g = $("layer-tools");
  g.replaceChildren();
  if (state.showRuling) return;
  const sel = selectedPiece();
  if (sel) {
    const { centre, facing, reach } = sel;
    const f = dir(facing);
    const d = reach + 0.8 * inch(state.scen);
    const h = [centre[0] + f[0] * d, centre[1] + f[1] * d];
    el("line", { class: "handle-link", x1: f4(centre[0]), y1: f4(Y(centre[1])), x2: f4(h[0]), y2: f4(Y(h[1])) }, g);
    el("circle", { class: "handle", id: "turn-handle", cx: f4(h[0]), cy: f4(Y(h[1])), r: f4(7 * px()) }, g);
  }
  const n = state.nearest;
  if (n?.points && state.charger) {
    // where the charger comes closest to an enemy, and how far (the server's exact figure)
    const [a, b] = n.points;
    el("line", { class: "nearest-line", x1: f4(a[0]), y1: f4(Y(a[1])), x2: f4(b[0]), y2: f4(Y(b[1])) }, g);
    el("text", { class: "nearest-text", id: "nearest-text", x: f4((a[0] + b[0]) / 2 + 6 * px()), y: f4(Y((a[1] + b[1]) / 2)) }, g,
      fmtLen(state.scen, n.distance));
  }
  if (ruler.a && ruler.b) {
    const { a, b } = ruler;
    el("line", { class: "ruler-line", x1: f4(a[0]), y1: f4(Y(a[1])), x2: f4(b[0]), y2: f4(Y(b[1])) }, g);
    const d = Math.hypot(b[0] - a[0], b[1] - a[1]);
    el("text", { class: "ruler-text", id: "ruler-text", x: f4(b[0] + 8 * px()), y: f4(Y(b[1]) - 8 * px()) }, g, fmtLen(state.scen, d));
  }
}

// The piece the turn handle acts on: a T9A block, a stand, or a model that has a facing.
function selectedPiece() {
  const s = state.selected;
  if (!s) return null;
  const u = unitById(s.unit);
  if (!u) return null;
  const scen = state.scen;
  if (scen.system === "t9a") {
    const geo = blockGeometry(u.formation, mmpu(scen));
    return { centre: geo.centre, facing: u.formation.facing, reach: geo.depth / 2 };
  }
  const p = pieces(scen).find((q) => q.unit === s.unit && q.index === s.index);
  if (!p) return null;
  if (scen.system === "40k" && p.base?.round) return null; // a round base has no facing to turn
  return { centre: p.fp.c, facing: p.facing, reach: p.fp.reach };
}


// ------------------------------------------------------------------ live numbers

// Re-roll and modifier apply to charge rolls; Warmaster charges roll no dice.
function rollOptions(s) {
  return state.scen.system === "warmaster" ? {} : { reroll: s.reroll, modifier: s.modifier };
}

function scheduleLive() {
  clearTimeout(liveTimer);
  liveTimer = setTimeout(() => { live(); checkTable(); }, 140);
}

// The server's check of the table (as `chargeref check`): every problem stays listed
// above the board until it is fixed (a toast alone would be gone before it is read).
let checkAbort = null;
async function checkTable() {
  if (checkAbort) checkAbort.abort();
  const ctrl = new AbortController();
  checkAbort = ctrl;
  let problems;
  try {
    problems = (await api("/api/check", state.scen, { signal: ctrl.signal })).problems;
  } catch (e) {
    if (e.name === "AbortError") return;
    problems = [{ field: "", message: e.message }];
  }
  if (ctrl.signal.aborted) return;
  state.problems = problems;
  renderProblems();
}

function renderProblems() {
  const list = state.problems || [];
  const box = $("problems"), ul = $("problem-list");
  ul.replaceChildren();
  box.classList.toggle("hidden", !list.length);
  box.dataset.count = String(list.length);
  $("problems-title").textContent = list.length === 1 ? "This table has a problem (a charge is refused until it is fixed):"
    : `This table has ${list.length} problems (a charge is refused until they are fixed):`;
  for (const p of list) {
    const li = document.createElement("li");
    if (p.field) { const c = document.createElement("code"); c.textContent = p.field; li.append(c, " "); }
    li.append(p.message);
    ul.appendChild(li);
  }
}

async function live() {
  if (liveAbort) liveAbort.abort();
  const ch = state.charger;
  $("live-charger").textContent = ch ? `charger ${ch}${state.targets.length ? " → " + state.targets.join(", ") : ""}` : "no charger: click a unit";
  if (!ch) {
    state.nearest = null; drawTools();
    $("live-nearest").textContent = "nearest enemy: -"; $("live-needed").textContent = "least roll: -"; $("live-odds").textContent = "odds: -";
    state.odds = null; renderOdds();
    return;
  }
  const ctrl = new AbortController();
  liveAbort = ctrl;
  const s = settings();
  const body = { scenario: state.scen, charger: ch, targets: state.targets, ...rollOptions(s) };
  const sent = JSON.stringify(state.scen);
  document.querySelectorAll(".live .chip").forEach((c) => c.classList.add("busy"));
  try {
    const res = await api("/api/needed", body, { signal: ctrl.signal });
    if (ctrl.signal.aborted) return;
    const n = res.nearest;
    // the measuring line is drawn only for the position it was measured on
    state.nearest = sent === JSON.stringify(state.scen) ? n : null;
    drawTools();
    $("live-nearest").textContent = n ? `nearest enemy: ${n.unit} ${fmtLen(state.scen, n.distance)}` : "nearest enemy: none";
    $("live-nearest").dataset.distance = n ? n.distance : "";
    state.odds = res.odds || null;
    if (res.odds) {
      const need = res.odds.needed;
      $("live-needed").textContent = state.scen.system === "warmaster"
        ? (need.distance == null ? "cannot reach" : `first stand moves ${fmtLen(state.scen, need.distance)}`)
        : (need.roll == null ? "least roll: none can succeed" : `least roll: ${need.roll}`);
      $("live-needed").dataset.roll = need.roll ?? "";
      $("live-odds").textContent = `odds: ${(100 * res.odds.probability).toFixed(1)}%`;
    } else {
      $("live-needed").textContent = "least roll: choose targets"; $("live-odds").textContent = "odds: -";
    }
    renderOdds();
  } catch (e) {
    if (e.name === "AbortError") return;
    $("live-needed").textContent = "least roll: -";
    $("live-nearest").textContent = `⚠ ${e.message}`;
  } finally {
    if (liveAbort === ctrl) document.querySelectorAll(".live .chip").forEach((c) => c.classList.remove("busy"));
  }
}

// ------------------------------------------------------------------ pointer

function boardPoint(ev) {
  const svg = $("board");
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  const q = pt.matrixTransform(svg.getScreenCTM().inverse());
  return [q.x, state.scen.board.depth - q.y];
}

const ruler = { a: null, b: null, active: false };
let drag = null;

function startDrag(ev) {
  const p = boardPoint(ev);
  if (rulerOn && !state.showRuling) {
    ruler.a = p; ruler.b = p; ruler.active = true;
    $("board").setPointerCapture(ev.pointerId);
    drawTools();
    return;
  }
  const target = ev.target;
  const hit = state.showRuling ? null : target.closest("#layer-units [data-unit]");
  if (!state.showRuling && target.id === "turn-handle") {
    drag = { kind: "turn", start: p, before: snapshot(), moved: false };
  } else if (hit) {
    const unit = hit.getAttribute("data-unit");
    const index = Number(hit.getAttribute("data-index") ?? 0);
    drag = { kind: "move", unit, index: Math.max(0, index), whole: ev.shiftKey || state.scen.system === "t9a", start: p,
      orig: JSON.parse(JSON.stringify(unitById(unit))), before: snapshot(), moved: false };
  } else {
    // empty ground: pan a zoomed board; a plain click clears the selection
    drag = { kind: "pan", client: [ev.clientX, ev.clientY], view0: viewBox(), start: p, moved: false };
  }
  $("board").setPointerCapture(ev.pointerId);
  ev.preventDefault();
}

function moveDrag(ev) {
  if (ruler.active) { ruler.b = boardPoint(ev); drawTools(); return; }
  if (!drag) return;
  if (drag.kind === "pan") {
    const k = px(), ddx = (ev.clientX - drag.client[0]) * k, ddy = (ev.clientY - drag.client[1]) * k;
    if (!drag.moved && Math.hypot(ddx, ddy) < 3 * k) return;
    drag.moved = true;
    if (!view) return; // the whole board is in view: nothing to pan
    const { width: W, depth: D } = state.scen.board;
    const [x0, y0, w, h] = drag.view0;
    view = [Math.min(Math.max(x0 - ddx, 0), W - w), Math.min(Math.max(y0 - ddy, 0), D - h), w, h];
    $("board").setAttribute("viewBox", view.map(f4).join(" "));
    return;
  }
  const p = boardPoint(ev);
  const dx = p[0] - drag.start[0], dy = p[1] - drag.start[1];
  if (!drag.moved && Math.hypot(dx, dy) < 3 * px()) return;
  if (!drag.moved) { drag.moved = true; $("board").classList.add("dragging"); if (state.ruling) { state.ruling = null; state.rulingSvg = null; renderVerdict(); } }
  if (drag.kind === "turn") turnTo(p);
  else moveBy(drag, dx, dy);
  drawUnits();
  drawTools();
  scheduleLive();
}

function moveBy(d, dx, dy) {
  const u = unitById(d.unit), o = d.orig;
  const shift = (at) => [round4(at[0] + dx), round4(at[1] + dy), ...at.slice(2)];
  if (state.scen.system === "t9a") u.formation.front = shift(o.formation.front);
  else if (state.scen.system === "40k") u.models.forEach((m, i) => { if (d.whole || i === d.index) m.at = shift(o.models[i].at); });
  else u.stands.forEach((s, i) => { if (d.whole || i === d.index) s.at = shift(o.stands[i].at); });
}

function turnTo(p) {
  const sel = selectedPiece();
  if (!sel) return;
  const { centre } = sel;
  const facing = round4(((Math.atan2(p[1] - centre[1], p[0] - centre[0]) * 180) / Math.PI + 360) % 360);
  const s = state.selected, u = unitById(s.unit);
  if (state.scen.system === "t9a") {
    // turned as a block about its centre: the front midpoint swings round with it
    const geo = blockGeometry(u.formation, mmpu(state.scen));
    const f = dir(facing);
    u.formation.front = [round4(geo.centre[0] + f[0] * geo.depth / 2), round4(geo.centre[1] + f[1] * geo.depth / 2)];
    u.formation.facing = facing;
  } else if (state.scen.system === "40k") u.models[s.index].facing = facing;
  else u.stands[s.index].facing = facing;
}


function endDrag(ev) {
  if (ruler.active) { ruler.active = false; return; }
  if (!drag) return;
  const d = drag;
  drag = null;
  $("board").classList.remove("dragging");
  if (d.kind === "pan") {
    if (!d.moved && !state.showRuling) { state.selected = null; drawTools(); renderUnitList(); }
    return;
  }
  if (d.moved) {
    history.undo.push(d.before); history.redo = [];
    changed();
    return;
  }
  if (d.kind === "move") {
    state.selected = { unit: d.unit, index: d.index };
    clickUnit(d.unit);
  }
  void ev;
}

// ------------------------------------------------------------------ charge

async function runCharge() {
  // edition 11 picks targets after the roll: without targets the ruling lists the choices
  const pickLater = state.scen.system === "40k" && state.scen.rules?.edition === 11;
  if (!state.charger || (!state.targets.length && !pickLater)) { toast("Choose a charger and at least one target first (click the units)."); return; }
  const s = settings();
  const body = { scenario: state.scen, charger: state.charger, targets: state.targets, ...rollOptions(s) };
  if (state.scen.system !== "warmaster") {
    if (s.mode === "dice") body.dice = s.dice;
    else if (s.mode === "roll") body.roll = s.total;
    else body.seed = crypto.getRandomValues(new Uint32Array(1))[0];
  }
  $("charge").disabled = true;
  $("charge").textContent = "Ruling…";
  // the old ruling goes (its facts would read as the new one's), and since the ruling
  // may take a while (a big unit, an awkward wall) the verdict says it is under way
  if (state.ruling) { state.ruling = null; state.rulingSvg = null; state.showRuling = false; render(); }
  const v = $("verdict");
  v.className = "verdict busy";
  v.textContent = state.targets.length ? `Working out the charge ${state.charger} → ${state.targets.join(", ")}…`
    : `Working out what ${state.charger}'s roll may pick…`;
  document.body.dataset.charging = "1";
  try {
    const ruling = await api("/api/charge", body);
    const svg = await api("/api/draw", { scenario: state.scen, ruling, whole_board: true, bare: true }, { raw: true });
    state.ruling = ruling; state.rulingSvg = svg; state.showRuling = true;
    zoomToRuling();
    if (ruling.roll && s.mode === "random") { $("die1").value = ruling.roll.dice[0] ?? 1; $("die2").value = ruling.roll.dice[1] ?? 1; }
    render(); save();
    scheduleLive(); // the live numbers follow the targets charged (edition 11 picks them now)
  } catch (e) {
    toast(e.message);
    renderVerdict();
  } finally {
    $("charge").disabled = false;
    $("charge").textContent = "Charge!";
    delete document.body.dataset.charging;
  }
}

function keepResult() {
  if (!state.ruling?.after) return;
  pushUndo();
  state.scen = state.ruling.after;
  changed();
  toast("The position after the charge is now the table.", "info");
}

// ------------------------------------------------------------------ open and save

async function openExample(name) {
  try {
    const ex = await api(`/api/examples/${encodeURIComponent(name)}`);
    if (state.scen) pushUndo();
    state.scen = ex.scenario; state.name = name; view = null;
    state.charger = ex.charger; state.targets = ex.targets || []; state.selected = null;
    if (ex.dice) { $("die1").value = ex.dice[0]; $("die2").value = ex.dice[1]; document.querySelector("input[name=dice-mode][value=dice]").checked = true; syncDiceMode(); }
    changed();
  } catch (e) { toast(e.message); }
}

async function openText(text, name) {
  try {
    const res = await api("/api/load", text);
    if (state.scen) pushUndo();
    state.scen = res.scenario; state.name = name; view = null; state.charger = null; state.targets = []; state.selected = null;
    const first = (res.scenario.charges || [])[0];
    if (first) { state.charger = first.charger; state.targets = first.targets || []; }
    changed();
    if (!res.ok) {
      // the problems are listed above the board (and stay there until fixed)
      state.problems = res.problems; renderProblems();
      toast(`Opened ${name}: ${res.problems.length === 1 ? "it has a problem" : `it has ${res.problems.length} problems`}, listed above the board.`);
    }
    else toast(`Opened ${name}.`, "info");
  } catch (e) {
    // a refused file leaves the table as it was; say so, in words
    const why = e.status === 413 ? "the file is larger than the board accepts (1 MB)" : e.message;
    toast(`Could not open ${name}: ${why}. The table is unchanged.`);
  }
}

function newTable() {
  const sys = $("new-system").value;
  const W = Number($("new-width").value), D = Number($("new-depth").value);
  if (!(W > 0 && D > 0)) { toast("Give the board a width and a depth."); return; }
  if (state.scen) pushUndo();
  state.scen = { format: "chargeref/1", system: sys, unit: sys === "warmaster" ? "cm" : "in", board: { width: W, depth: D }, terrain: [], units: [] };
  state.name = `new ${sys} table`; view = null; state.charger = null; state.targets = []; state.selected = null;
  changed();
}

function download(name, text, type) {
  const blob = text instanceof Blob ? text : new Blob([text], { type });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

const baseName = () => (state.name || "scenario").replace(/\.(ya?ml|json)$/i, "").replace(/[^A-Za-z0-9_.-]+/g, "_");

async function picture() {
  const body = { scenario: state.scen, whole_board: true };
  if (state.ruling) body.ruling = state.ruling;
  return api("/api/draw", body, { raw: true });
}

async function savePNG() {
  try {
    const svg = await picture();
    const img = new Image();
    const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    await new Promise((ok, bad) => { img.onload = ok; img.onerror = () => bad(new Error("the picture did not load")); img.src = url; });
    const scale = 2;
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth * scale; canvas.height = img.naturalHeight * scale;
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => download(`${baseName()}.png`, blob, "image/png"), "image/png");
  } catch (e) { toast(e.message); }
}

// ------------------------------------------------------------------ wiring

function syncDiceMode() {
  const m = settings().mode;
  $("dice-fixed").classList.toggle("hidden", m !== "dice");
  $("dice-total").classList.toggle("hidden", m !== "roll");
}

async function init() {
  style = await api("/api/style");
  for (const [n, c] of Object.entries(style.players)) document.documentElement.style.setProperty(`--p${n}`, c.fill);
  const list = (await api("/api/examples")).examples;
  const sel = $("example-select");
  for (const e of list) {
    const o = document.createElement("option"); o.value = e.name; o.textContent = e.title; sel.appendChild(o);
  }
  sel.addEventListener("change", () => openExample(sel.value));

  const board = $("board");
  board.addEventListener("pointerdown", startDrag);
  board.addEventListener("pointermove", moveDrag);
  board.addEventListener("pointerup", endDrag);
  board.addEventListener("pointercancel", endDrag);
  window.addEventListener("resize", () => { if (state.scen) render(); });

  $("undo").onclick = undo; $("redo").onclick = redo;
  $("fit").onclick = () => { view = null; render(); };
  board.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const pt = board.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const q = pt.matrixTransform(board.getScreenCTM().inverse());
    zoomAt(ev.deltaY > 0 ? 1.15 : 1 / 1.15, q.x, q.y);
  }, { passive: false });
  $("ruler").onclick = () => {
    rulerOn = !rulerOn; ruler.a = ruler.b = null;
    $("ruler").classList.toggle("on", rulerOn); board.classList.toggle("ruler-mode", rulerOn); drawTools();
  };
  $("charge").onclick = runCharge;
  $("banner-edit").onclick = () => { state.showRuling = false; render(); save(); };
  $("banner-keep").onclick = keepResult;
  $("new-table").onclick = newTable;
  $("new-system").onchange = () => {
    const [w, d] = NEW_BOARD[$("new-system").value];
    $("new-width").value = w; $("new-depth").value = d;
    $("new-unit").textContent = $("new-system").value === "warmaster" ? "cm" : "in";
  };
  $("add-unit").onclick = addUnit; $("add-model").onclick = addModel;
  $("remove-model").onclick = removeModel; $("remove-unit").onclick = removeUnit;
  document.querySelectorAll("input[name=dice-mode]").forEach((r) => r.addEventListener("change", () => { syncDiceMode(); save(); }));
  for (const id of ["die1", "die2", "roll-total"]) $(id).addEventListener("change", save);
  for (const id of ["reroll", "modifier"]) $(id).addEventListener("change", () => { save(); scheduleLive(); });

  $("file-input").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (f) openText(await f.text(), f.name);
    ev.target.value = "";
  });
  const drop = $("drop");
  for (const t of [drop, $("board-wrap")]) {
    t.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
    t.addEventListener("dragleave", () => drop.classList.remove("over"));
    t.addEventListener("drop", async (ev) => {
      ev.preventDefault(); drop.classList.remove("over");
      const f = ev.dataTransfer.files[0];
      if (f) openText(await f.text(), f.name);
    });
  }

  $("save-scen-json").onclick = () => download(`${baseName()}.json`, JSON.stringify(state.scen, null, 2) + "\n", "application/json");
  $("save-scen-yaml").onclick = () => download(`${baseName()}.yaml`, toYAML(state.scen), "text/yaml");
  $("save-ruling-json").onclick = () => state.ruling ? download(`${baseName()}-ruling.json`, JSON.stringify(state.ruling, null, 2) + "\n", "application/json") : toast("No ruling yet: press Charge! first.");
  $("save-ruling-yaml").onclick = () => state.ruling ? download(`${baseName()}-ruling.yaml`, toYAML(state.ruling), "text/yaml") : toast("No ruling yet: press Charge! first.");
  $("save-svg").onclick = async () => { try { download(`${baseName()}.svg`, await picture(), "image/svg+xml"); } catch (e) { toast(e.message); } };
  $("save-png").onclick = savePNG;
  initThreat();

  document.addEventListener("keydown", (ev) => {
    if (ev.target.matches("input, select, textarea")) return;
    const k = ev.key.toLowerCase();
    if ((ev.ctrlKey || ev.metaKey) && k === "z" && !ev.shiftKey) { ev.preventDefault(); undo(); }
    else if ((ev.ctrlKey || ev.metaKey) && (k === "y" || (k === "z" && ev.shiftKey))) { ev.preventDefault(); redo(); }
    else if (k === "delete" || k === "backspace") { if (state.selected) { ev.preventDefault(); removeModel(); } }
    else if (k === "escape") { state.selected = null; ruler.a = ruler.b = null; drawTools(); }
  });

  // a reload loses nothing: the table, the choices and the ruling come back
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (_) { saved = null; }
  if (saved?.scen) {
    Object.assign(state, { scen: saved.scen, name: saved.name || "", charger: saved.charger, targets: saved.targets || [],
      ruling: saved.ruling || null, showRuling: false });
    const st = saved.settings;
    if (st) {
      document.querySelector(`input[name=dice-mode][value=${st.mode}]`).checked = true;
      $("die1").value = st.dice[0]; $("die2").value = st.dice[1]; $("roll-total").value = st.total;
      $("reroll").value = st.reroll; $("modifier").value = st.modifier;
    }
    if (saved.example) sel.value = saved.example;
    syncDiceMode();
    if (state.ruling && saved.showRuling) {
      try {
        state.rulingSvg = await api("/api/draw", { scenario: state.scen, ruling: state.ruling, whole_board: true, bare: true }, { raw: true });
        state.showRuling = true;
      } catch (_) { state.ruling = null; }
    }
    render(); scheduleLive();
  } else {
    await openExample(list[0].name);
  }
  document.body.dataset.ready = "1";
}

hooks.render = () => render();
hooks.changed = () => changed();
hooks.charge = () => runCharge();
window.chargeref = { state, openExample, runCharge };
init().catch((e) => toast(`The board could not start: ${e.message}`));
