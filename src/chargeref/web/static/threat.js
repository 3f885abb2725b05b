// The threat layer: for one unit, the exact chance that an enemy charge on it succeeds
// with its centroid at each spot of a grid, drawn as a heat map under the models. The
// numbers come from POST /api/threat (the chargeref-threat/1 map of `chargeref threat`),
// asked for a few rows at a time so the page can show its progress; a change to the
// table throws the map away and, while the layer is on, asks again.
import { $, api, state, toast, unitById } from "./core.js";
import { el, f4, inch, unitOf } from "./shapes.js";

// The colour scale of render/threat.py (STOPS, SAFE): keep the two the same (the
// browser test compares a drawn cell with the Python colour of its value).
const STOPS = [[0, [255, 245, 190]], [0.5, [245, 130, 40]], [1, [150, 0, 20]]];
const SAFE = "#b8e0b0";
// spots asked for in one request (whole rows): small enough to show progress often
const SPOTS_PER_REQUEST = 120;

// Python's round(): a half goes to the even neighbour (Math.round would go up)
function roundHalfEven(v) {
  const f = Math.floor(v);
  if (v - f !== 0.5) return Math.round(v);
  return f % 2 === 0 ? f : f + 1;
}

const hex = (rgb) => "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("");

export function colour(p) {
  if (p <= 0) return SAFE;
  p = Math.min(1, p);
  for (let k = 0; k + 1 < STOPS.length; k++) {
    const [p0, c0] = STOPS[k], [p1, c1] = STOPS[k + 1];
    if (p <= p1) {
      const t = (p - p0) / (p1 - p0);
      return hex(c0.map((a, i) => roundHalfEven(a + (c1[i] - a) * t)));
    }
  }
  return hex(STOPS[STOPS.length - 1][1]);
}

const threat = {
  on: false,
  map: null, // {unit, step, x, y: [...], probability: [[...]]} rows received so far
  rows: 0, // rows of the whole map
  run: 0, // the current computation (an older one stops when this changes)
  abort: null,
  timer: null,
};

// the grid of batch/threat.py grid_axis: 0, step, ... up to the length (within 1e-9)
function axis(length, step) {
  const n = Math.floor(length / step + 1e-9);
  return Array.from({ length: n + 1 }, (_, k) => Math.round(k * step * 1e9) / 1e9);
}

function defaultUnit() {
  const units = state.scen?.units || [];
  if (state.targets.length) return state.targets[0];
  const ch = state.charger && unitById(state.charger);
  const other = units.find((u) => ch ? u.player !== ch.player : u.player === 2);
  return (other || units[0])?.id || "";
}

function defaultStep() {
  return state.scen.system === "warmaster" ? 10 : 2 * inch(state.scen);
}

// The unit list of the layer's card, kept in step with the table.
export function threatUnits() {
  const sel = $("threat-unit");
  if (!sel || !state.scen) return;
  const ids = (state.scen.units || []).map((u) => u.id);
  const keep = ids.includes(sel.value) ? sel.value : defaultUnit();
  if ([...sel.options].map((o) => o.value).join("\n") !== ids.join("\n")) {
    sel.replaceChildren(...ids.map((id) => { const o = document.createElement("option"); o.value = id; o.textContent = id; return o; }));
  }
  sel.value = keep;
  // the step is a length in the table's unit: a table in another unit (or another
  // system's default) starts again from that table's default step
  const step = $("threat-step"), kind = `${state.scen.system} ${unitOf(state.scen)}`;
  if (!(Number(step.value) > 0) || step.dataset.kind !== kind) { step.value = defaultStep(); step.dataset.kind = kind; }
  $("threat-step-unit").textContent = unitOf(state.scen);
}

function status(text, done = null, total = null) {
  $("threat-status").textContent = text;
  const bar = $("threat-progress");
  bar.classList.toggle("hidden", total === null);
  if (total !== null) { bar.max = total; bar.value = done; }
}

// Draw the rows received so far under the models (nothing when the layer is off or the
// board shows a ruling).
export function drawThreat() {
  const g = $("layer-threat");
  if (!g) return;
  g.replaceChildren();
  const m = threat.map;
  if (!threat.on || !m || state.showRuling || !state.scen) return;
  const D = state.scen.board.depth, h = m.step / 2;
  m.y.forEach((y, j) => m.x.forEach((x, i) => {
    const p = m.probability[j][i];
    if (p === null) return; // the unit cannot stand there: the board shows through
    const r = el("rect", { class: "threat-cell", x: f4(x - h), y: f4(D - (y + h)), width: f4(m.step), height: f4(m.step),
      fill: colour(p), "data-p": p }, g);
    el("title", {}, r, `(${x}, ${y}): ${p.toFixed(4)}`);
  }));
}

function stop() {
  threat.run += 1;
  if (threat.abort) threat.abort.abort();
  threat.abort = null;
  clearTimeout(threat.timer);
}

async function compute() {
  stop();
  const run = threat.run;
  const scen = state.scen, unit = $("threat-unit").value, step = Number($("threat-step").value);
  if (!unit) { status("no unit to threaten"); return; }
  if (!(step > 0)) { status("give a step above 0"); return; }
  const xs = axis(scen.board.width, step), ys = axis(scen.board.depth, step);
  threat.rows = ys.length;
  threat.map = { unit, step, x: xs, y: [], probability: [] };
  drawThreat();
  const per = Math.max(1, Math.floor(SPOTS_PER_REQUEST / xs.length));
  threat.abort = new AbortController();
  const signal = threat.abort.signal;
  status(`threat to ${unit}: computing…`, 0, ys.length);
  try {
    for (let a = 0; a < ys.length; a += per) {
      const b = Math.min(ys.length, a + per);
      const part = await api("/api/threat", { scenario: scen, unit, step, rows: [a, b] }, { signal });
      if (run !== threat.run) return;
      threat.map.x = part.x;
      threat.map.y.push(...part.y);
      threat.map.probability.push(...part.probability);
      drawThreat();
      status(`threat to ${unit}: ${b} of ${ys.length} rows`, b, ys.length);
    }
  } catch (e) {
    if (run !== threat.run || e.name === "AbortError") return;
    status(`no map: ${e.message}`);
    toast(`Threat map: ${e.message}`);
    return;
  }
  const vals = threat.map.probability.flat().filter((v) => v !== null);
  const safe = vals.filter((v) => v === 0).length;
  const top = vals.length ? Math.max(...vals) : 0;
  status(`threat to ${unit}: ${vals.length} spots where it can stand, ${safe} safe; highest ${top.toFixed(4)}`);
  $("threat-card").dataset.done = "1";
}

function toggle() {
  threat.on = !threat.on;
  $("threat-toggle").classList.toggle("on", threat.on);
  $("threat-toggle").setAttribute("aria-pressed", String(threat.on));
  delete $("threat-card").dataset.done;
  if (threat.on) compute();
  else { stop(); threat.map = null; drawThreat(); status("off"); }
}

// The table changed: the map no longer applies; while the layer is on, ask again
// once the changes settle.
export function threatStale() {
  if (!threat.on) return;
  stop();
  threat.map = null;
  drawThreat();
  delete $("threat-card").dataset.done;
  status("the table changed: recomputing…");
  threat.timer = setTimeout(() => compute(), 600);
}

function legend() {
  const box = $("threat-legend");
  box.replaceChildren();
  for (let k = 0; k <= 10; k++) {
    const s = document.createElement("span");
    s.className = "swatch";
    s.style.background = colour(k / 10);
    s.title = k === 0 ? "0: no enemy charge can succeed" : `${(k / 10).toFixed(1)}`;
    s.textContent = k % 5 === 0 ? (k / 10).toFixed(1) : "";
    if (k >= 7) s.style.color = "#ffffff"; // readable on the dark reds
    box.appendChild(s);
  }
}

export function initThreat() {
  $("threat-toggle").onclick = toggle;
  for (const id of ["threat-unit", "threat-step"]) {
    $(id).addEventListener("change", () => { if (threat.on) { delete $("threat-card").dataset.done; compute(); } });
  }
  legend();
  status("off");
}
