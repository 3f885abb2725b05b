// The board's shared state and its small helpers: the scenario on the table, the
// choices, the undo history, talking to the server, messages.
export const $ = (id) => document.getElementById(id);

export const state = {
  scen: null, // the scenario (written-out form)
  name: "", // where it came from
  charger: null,
  targets: [],
  selected: null, // {unit, index}
  ruling: null,
  rulingSvg: null,
  showRuling: false,
  odds: null,
  nearest: null, // the closest enemy to the charger, from the server
  problems: [], // what the server's check finds wrong with the table
};
export const history = { undo: [], redo: [] };

// what the page module plugs in: redraw everything, or note that the table changed
export const hooks = { render: () => {}, changed: () => {}, charge: () => {} };

export const round4 = (v) => Math.round(v * 1e4) / 1e4;

export async function api(path, body, { signal, raw = false } = {}) {
  const opts = body === undefined ? { signal } : {
    method: "POST", signal, headers: { "Content-Type": typeof body === "string" ? "text/plain" : "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    // no answer at all: say so in words, not as the browser's "Failed to fetch"
    const err = new Error("the chargeref server did not answer (is `chargeref serve` still running?)");
    err.status = 0;
    throw err;
  }
  if (!res.ok) {
    let msg = `${res.status} ${res.statusText}`;
    try { msg = (await res.json()).error || msg; } catch (_) { /* not JSON */ }
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return raw ? res.text() : res.json();
}

export function toast(msg, kind = "error") {
  const t = $("toast");
  t.textContent = msg;
  t.className = `toast ${kind === "info" ? "info" : ""}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.add("hidden"), kind === "info" ? 2500 : 6000);
}

export function snapshot() {
  return JSON.stringify({ scen: state.scen, charger: state.charger, targets: state.targets });
}
export function restore(text) {
  const s = JSON.parse(text);
  state.scen = s.scen; state.charger = s.charger; state.targets = s.targets;
}
export function pushUndo() {
  history.undo.push(snapshot());
  if (history.undo.length > 200) history.undo.shift();
  history.redo = [];
}

export function unitById(id) { return (state.scen.units || []).find((u) => u.id === id); }
