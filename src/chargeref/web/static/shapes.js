// What is on the table, as the board draws it: bases, T9A blocks, Warmaster stands.
// Pure functions over scenario data (the contract's written-out form). Drawing only:
// every verdict comes from the server.

export const MM = { in: 25.4, cm: 10 };
export const SYSTEM_NAMES = { "40k": "Warhammer 40,000", t9a: "T9A 2.x", warmaster: "Warmaster" };
// Warmaster stand bases (mm, width across the front x depth) when the unit gives none
export const WM_BASE = { infantry: [40, 20] };
export const WM_OTHER_BASE = [20, 40];

const SVGNS = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

export const f4 = (v) => {
  const r = Math.round(v * 1e4) / 1e4;
  return Object.is(r, -0) ? "0" : String(r);
};

export function unitOf(scen) { return scen.unit || (scen.system === "warmaster" ? "cm" : "in"); }
export function mmpu(scen) { return MM[unitOf(scen)]; }
export function inch(scen) { return unitOf(scen) === "in" ? 1 : 2.54; }
export function fmtLen(scen, v) {
  if (v === null || v === undefined) return "-";
  return unitOf(scen) === "in" ? `${(Math.round(v * 100) / 100).toFixed(2)}″` : `${(Math.round(v * 10) / 10).toFixed(1)} cm`;
}

const rad = (d) => (d * Math.PI) / 180;
export const dir = (deg) => [Math.cos(rad(deg)), Math.sin(rad(deg))];

// A base kind and its dimensions from the written-out form {round: D} | {oval: [L, W]} | ...
export function baseKind(base) {
  if (!base) return null;
  for (const k of ["round", "oval", "rect", "hull"]) if (base[k] !== undefined && base[k] !== null) return k;
  return null;
}

// The outline of a base at `at` facing `facing`, in scenario units:
// {kind: "circle", c, r} | {kind: "ellipse", c, a, b, theta} | {kind: "poly", pts}
export function footprint(base, at, facing, mmPerUnit) {
  const kind = baseKind(base);
  const c = [at[0], at[1]];
  const th = rad(facing ?? 90);
  if (kind === "round") return { kind: "circle", c, r: base.round / 2 / mmPerUnit, reach: base.round / 2 / mmPerUnit };
  if (kind === "oval") {
    const a = base.oval[0] / 2 / mmPerUnit, b = base.oval[1] / 2 / mmPerUnit;
    return { kind: "ellipse", c, a, b, theta: th, reach: Math.max(a, b) };
  }
  if (kind === "rect") return rectFootprint(c, base.rect[0] / mmPerUnit, base.rect[1] / mmPerUnit, th);
  if (kind === "hull") {
    const cs = Math.cos(th), sn = Math.sin(th);
    const pts = base.hull.map(([x, y]) => [c[0] + x * cs - y * sn, c[1] + x * sn + y * cs]);
    return { kind: "poly", pts, c, reach: Math.max(...pts.map((p) => Math.hypot(p[0] - c[0], p[1] - c[1]))) };
  }
  return { kind: "circle", c, r: 0.5, reach: 0.5 };
}

// A rectangle `width` across the facing and `depth` along it; vertex 0 is front-left,
// vertex 3 front-right (as the Python renderer builds it).
export function rectFootprint(c, width, depth, th) {
  const f = [Math.cos(th), Math.sin(th)];
  const s = [f[1], -f[0]];
  const hw = width / 2, hd = depth / 2;
  const p = (a, b) => [c[0] + s[0] * a + f[0] * b, c[1] + s[1] * a + f[1] * b];
  const pts = [p(-hw, hd), p(-hw, -hd), p(hw, -hd), p(hw, hd)];
  return { kind: "poly", pts, c, front: [pts[0], pts[3]], reach: Math.hypot(hw, hd) };
}

// T9A: centres of a block's models (front rank first, short last rank centred) and
// its boundary corners (front-left, front-right, rear-right, rear-left).
export function blockGeometry(fm, mmPerUnit) {
  const round = baseKind(fm.base) === "round";
  const w = (round ? fm.base.round : fm.base.rect[0]) / mmPerUnit;
  const d = (round ? fm.base.round : fm.base.rect[1]) / mmPerUnit;
  const o = fm.front, f = dir(fm.facing), right = [f[1], -f[0]];
  const ranks = Math.ceil(fm.models / fm.files);
  const centres = [];
  for (let r = 0; r < ranks; r++) {
    const n = r < ranks - 1 ? fm.files : fm.models - fm.files * (ranks - 1);
    const width = n * w;
    for (let i = 0; i < n; i++) {
      const x = -width / 2 + (i + 0.5) * w, y = -(r + 0.5) * d;
      centres.push([o[0] + right[0] * x + f[0] * y, o[1] + right[1] * x + f[1] * y]);
    }
  }
  const hw = (fm.files * w) / 2, depth = ranks * d;
  const corners = [
    [o[0] - right[0] * hw, o[1] - right[1] * hw],
    [o[0] + right[0] * hw, o[1] + right[1] * hw],
    [o[0] + right[0] * hw - f[0] * depth, o[1] + right[1] * hw - f[1] * depth],
    [o[0] - right[0] * hw - f[0] * depth, o[1] - right[1] * hw - f[1] * depth],
  ];
  return { centres, corners, w, d, depth, round, centre: [o[0] - f[0] * depth / 2, o[1] - f[1] * depth / 2] };
}

export function standBase(unit) {
  if (unit.base && baseKind(unit.base)) return unit.base;
  return { rect: WM_BASE[unit.type] || WM_OTHER_BASE };
}

// Every model or stand: {unit, player, id, index, fp, facing, kind}
export function pieces(scen) {
  const out = [];
  const k = mmpu(scen);
  for (const u of scen.units || []) {
    if (scen.system === "40k") {
      (u.models || []).forEach((m, i) => out.push({ unit: u.id, player: u.player, id: m.id, index: i, facing: m.facing ?? 90,
        fp: footprint(m.base, m.at, m.facing ?? 90, k), kind: "model", base: m.base, token: !!m.token }));
    } else if (scen.system === "t9a") {
      const g = blockGeometry(u.formation, k);
      g.centres.forEach((c, i) => out.push({ unit: u.id, player: u.player, id: `${u.id}.${i}`, index: i, facing: u.formation.facing,
        fp: footprint(u.formation.base, c, u.formation.facing, k), kind: "block-model", base: u.formation.base }));
    } else {
      const base = standBase(u);
      (u.stands || []).forEach((s, i) => out.push({ unit: u.id, player: u.player, id: s.id || `${u.id}.${i}`, index: i,
        facing: s.facing ?? 90, fp: footprint(base, s.at, s.facing ?? 90, k), kind: "stand", base }));
    }
  }
  return out;
}

// Distance from a point to a footprint's outline (drawing aids and picking only).
export function centreOf(fp) { return fp.c; }

// A small YAML writer for scenario and ruling data: block mappings and sequences, flow
// lists of plain values, quoted strings where YAML could misread them.
const PLAIN = /^[A-Za-z_][A-Za-z0-9_.\-/ ]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
function scalar(v) {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  const s = String(v);
  return PLAIN.test(s) && !RESERVED.test(s) && s.trim() === s ? s : JSON.stringify(s);
}
const isScalar = (v) => v === null || typeof v !== "object";
function flow(v) {
  if (isScalar(v)) return scalar(v);
  if (Array.isArray(v)) return `[${v.map(flow).join(", ")}]`;
  return `{${Object.entries(v).map(([k, x]) => `${scalar(k)}: ${flow(x)}`).join(", ")}}`;
}
function small(v) {
  // short lists of values and small flat mappings read best on one line
  if (Array.isArray(v)) return v.every((x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar))) && flow(v).length <= 90;
  if (v && typeof v === "object") return Object.values(v).every((x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar))) && flow(v).length <= 90;
  return true;
}
export function toYAML(v, indent = "") {
  if (isScalar(v)) return scalar(v) + "\n";
  const lines = [];
  if (Array.isArray(v)) {
    if (!v.length) return "[]\n";
    for (const x of v) {
      if (small(x)) lines.push(`${indent}- ${flow(x)}`);
      else {
        const body = toYAML(x, indent + "  ");
        lines.push(`${indent}- ${body.slice(indent.length + 2).replace(/\n$/, "")}`);
      }
    }
  } else {
    const entries = Object.entries(v);
    if (!entries.length) return "{}\n";
    for (const [k, x] of entries) {
      if (small(x)) lines.push(`${indent}${scalar(k)}: ${flow(x)}`);
      else lines.push(`${indent}${scalar(k)}:\n${toYAML(x, indent + "  ").replace(/\n$/, "")}`);
    }
  }
  return lines.join("\n") + "\n";
}
