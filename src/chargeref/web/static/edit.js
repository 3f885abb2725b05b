// Changing what is on the table: add units with a chosen base, add or remove models.
import { $, hooks, pushUndo, round4, state, toast, unitById } from "./core.js";
import { dir, mmpu } from "./shapes.js";

export const BASES = {
  "40k": [["25mm", { round: 25 }], ["28.5mm", { round: 28.5 }], ["32mm", { round: 32 }], ["40mm", { round: 40 }],
    ["50mm", { round: 50 }], ["60mm", { round: 60 }], ["60×35.5mm oval", { oval: [60, 35.5] }],
    ["75×42mm oval", { oval: [75, 42] }], ["90×52mm oval", { oval: [90, 52] }], ["100mm", { round: 100 }]],
  t9a: [["20×20mm", { rect: [20, 20] }], ["25×25mm", { rect: [25, 25] }], ["25×50mm", { rect: [25, 50] }],
    ["40×40mm", { rect: [40, 40] }], ["50×50mm", { rect: [50, 50] }], ["50×100mm", { rect: [50, 100] }]],
  warmaster: [["by type", null], ["40×20mm", { rect: [40, 20] }], ["20×40mm", { rect: [20, 40] }], ["40×40mm", { rect: [40, 40] }]],
};

function nextId(prefix) {
  const ids = new Set((state.scen.units || []).map((u) => u.id));
  for (let i = 0; i < 26 * 27; i++) {
    const id = i < 26 ? String.fromCharCode(65 + i) : prefix + (i - 25);
    if (!ids.has(id)) return id;
  }
  return prefix + Date.now();
}

export function addUnit() {
  const scen = state.scen, sys = scen.system;
  const player = Number($("add-player").value);
  const base = JSON.parse($("add-base").value);
  const n = Math.max(1, Math.min(60, Number($("add-count").value) || 1));
  const id = nextId("U");
  const cx = scen.board.width / 2, cy = player === 1 ? scen.board.depth * 0.3 : scen.board.depth * 0.7;
  const facing = player === 1 ? 90 : 270;
  pushUndo();
  if (sys === "40k") {
    const b = base || { round: 32 };
    const w = (b.round ?? b.oval?.[0] ?? 32) / mmpu(scen) + 0.5;
    const models = Array.from({ length: n }, (_, i) => ({ id: `${id}${i + 1}`, at: [round4(cx + (i - (n - 1) / 2) * w), round4(cy)], base: b, facing }));
    scen.units.push({ id, player, keywords: ["INFANTRY"], models });
  } else if (sys === "t9a") {
    const files = Math.max(1, Math.min(n, Number($("add-files").value) || 5));
    scen.units.push({ id, player, formation: { front: [cx, cy], facing, files, models: n, base: base || { rect: [20, 20] } }, advance_rate: 4, march_rate: 8, discipline: 7 });
  } else {
    const type = $("add-type").value;
    const b = base || { rect: type === "infantry" ? [40, 20] : [20, 40] };
    const w = b.rect[0] / mmpu(scen);
    const stands = Array.from({ length: n }, (_, i) => ({ at: [round4(cx + (i - (n - 1) / 2) * w), round4(cy)], facing }));
    const unit = { id, player, type, stands };
    if (base) unit.base = base;
    scen.units.push(unit);
  }
  state.selected = { unit: id, index: 0 };
  hooks.changed();
}

export function addModel() {
  const s = state.selected, scen = state.scen;
  const u = s && unitById(s.unit);
  if (!u) { toast("Select a unit first (click one of its models)."); return; }
  pushUndo();
  if (scen.system === "40k") {
    const last = u.models[u.models.length - 1];
    const b = last?.base || { round: 32 };
    const w = (b.round ?? b.oval?.[0] ?? b.rect?.[0] ?? 32) / mmpu(scen) + 0.5;
    const ids = new Set(u.models.map((m) => m.id));
    let k = u.models.length + 1;
    while (ids.has(`${u.id}${k}`)) k++;
    u.models.push({ id: `${u.id}${k}`, at: [round4(last.at[0] + w), last.at[1]], base: b, facing: last.facing ?? 90 });
  } else if (scen.system === "t9a") {
    u.formation.models += 1;
  } else {
    const last = u.stands[u.stands.length - 1];
    const w = (u.base?.rect?.[0] ?? (u.type === "infantry" ? 40 : 20)) / mmpu(scen);
    const f = dir(last.facing ?? 90);
    u.stands.push({ at: [round4(last.at[0] + f[1] * w), round4(last.at[1] - f[0] * w)], facing: last.facing ?? 90 });
  }
  hooks.changed();
}

export function removeModel() {
  const s = state.selected, scen = state.scen;
  const u = s && unitById(s.unit);
  if (!u) { toast("Select a model first."); return; }
  const list = scen.system === "40k" ? u.models : scen.system === "warmaster" ? u.stands : null;
  if (list ? list.length <= 1 : u.formation.models <= 1) { removeUnit(); return; }
  pushUndo();
  if (list) { list.splice(Math.min(s.index, list.length - 1), 1); state.selected = { unit: u.id, index: 0 }; }
  else { u.formation.models -= 1; u.formation.files = Math.min(u.formation.files, u.formation.models); }
  hooks.changed();
}

export function removeUnit() {
  const s = state.selected;
  if (!s || !unitById(s.unit)) { toast("Select a unit first."); return; }
  pushUndo();
  state.scen.units = state.scen.units.filter((u) => u.id !== s.unit);
  state.selected = null;
  hooks.changed();
}
