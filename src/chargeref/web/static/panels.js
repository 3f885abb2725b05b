// The panels beside the board: the units (charger and targets), the ruling in words,
// the odds, and the add box.
import { $, hooks, pushUndo, state, unitById } from "./core.js";
import { BASES } from "./edit.js";
import { fmtLen } from "./shapes.js";

export function renderUnitList() {
  const tb = $("units").querySelector("tbody");
  tb.replaceChildren();
  for (const u of state.scen.units || []) {
    const tr = document.createElement("tr");
    if (state.selected?.unit === u.id) tr.className = "selected";
    const n = state.scen.system === "40k" ? (u.models || []).length : state.scen.system === "t9a" ? u.formation.models : (u.stands || []).length;
    tr.innerHTML = `<td class="name"><span class="dot p${u.player}"></span></td><td>${u.player}</td>
      <td><input type="radio" name="charger" aria-label="charger ${u.id}"></td>
      <td><input type="checkbox" aria-label="target ${u.id}"></td><td class="hint">${n}</td>`;
    tr.querySelector(".name").append(u.id);
    tr.dataset.unit = u.id;
    const rb = tr.querySelector("input[type=radio]"), cb = tr.querySelector("input[type=checkbox]");
    rb.checked = state.charger === u.id;
    cb.checked = state.targets.includes(u.id);
    const enemy = state.charger && unitById(state.charger)?.player !== u.player;
    cb.disabled = !enemy;
    rb.addEventListener("change", () => { setCharger(u.id); });
    cb.addEventListener("change", () => { toggleTarget(u.id); });
    tr.querySelector(".name").addEventListener("click", () => { state.selected = { unit: u.id, index: 0 }; hooks.render(); });
    tb.appendChild(tr);
  }
}

export function setCharger(id) {
  pushUndo();
  state.charger = id;
  const me = unitById(id);
  state.targets = state.targets.filter((t) => unitById(t)?.player !== me?.player);
  hooks.changed();
}

export function toggleTarget(id) {
  if (!state.charger || unitById(id)?.player === unitById(state.charger)?.player) return;
  pushUndo();
  state.targets = state.targets.includes(id) ? state.targets.filter((t) => t !== id) : [...state.targets, id];
  hooks.changed();
}

// A click on a unit: the first becomes the charger; enemies of the charger toggle as
// targets; a friend of the charger becomes the new charger; the charger again clears it.
export function clickUnit(id) {
  if (!state.charger) return setCharger(id);
  if (id === state.charger) { pushUndo(); state.charger = null; state.targets = []; return hooks.changed(); }
  if (unitById(id)?.player === unitById(state.charger)?.player) return setCharger(id);
  return toggleTarget(id);
}

export function renderVerdict() {
  const r = state.ruling, v = $("verdict"), facts = $("facts"), reasons = $("reasons");
  facts.replaceChildren(); reasons.replaceChildren(); reasons.classList.remove("as-choices");
  $("why-title").textContent = r?.choices ? "The target sets this roll may pick" : "Why";
  if (!r) {
    v.className = "verdict none";
    v.innerHTML = "No charge yet. Choose a charger and its targets, then press <b>Charge!</b>";
    return;
  }
  if (r.choices) return renderChoices(r, v, facts, reasons);
  const what = { pile_in: "PILE IN", consolidate: "CONSOLIDATION", heroic_intervention: "HEROIC INTERVENTION" }[r.procedure] || "CHARGE";
  v.className = `verdict ${r.success ? "ok" : "bad"}`;
  v.textContent = !r.eligible ? "NOT ELIGIBLE" : r.success ? `${what} SUCCEEDS` : `${what} FAILS`;
  v.id = "verdict";
  const add = (k, val, id) => {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = val; if (id) dd.id = id;
    facts.append(dt, dd);
  };
  add("charge", `${r.charger} → ${r.targets.join(", ")}`);
  if (r.needed) {
    if (r.system === "warmaster") add("needed", r.needed.distance == null ? "no stand can reach" : `first stand moves ${fmtLen(state.scen, r.needed.distance)}`, "fact-needed");
    else add("least roll", r.needed.roll == null ? "no roll can succeed" : `${r.needed.roll} (${fmtLen(state.scen, r.needed.distance)})`, "fact-needed");
  }
  if (r.roll) {
    const mod = r.roll.modifier ? ` ${r.roll.modifier > 0 ? "+" : "−"} ${Math.abs(r.roll.modifier)}` : "";
    const rr = r.roll.rerolled_from ? ` (re-rolled ${r.roll.rerolled_from.join(" + ")})` : "";
    add("roll", `${r.roll.dice.join(" + ")}${mod} = ${r.roll.total}${rr}`, "fact-roll");
  }
  add("procedure", r.procedure.replaceAll("_", " "));
  add("moved", `${r.moves.length} (${r.moves.filter((m) => m.contacts?.length).length} in base contact)`, "fact-moved");
  if (r.engaged?.length) add("engaged", r.engaged.join(", "));
  const tokens = r.moves.filter((m) => m.token).length;
  if (tokens) add("WTC tokens", String(tokens));
  for (const k of ["charged_facing", "first_stand"]) if (r.details?.[k] !== undefined) add(k.replace("_", " "), JSON.stringify(r.details[k]).replaceAll('"', ""));
  if (!r.reasons.length) {
    const li = document.createElement("li"); li.textContent = r.success ? "Every rule of the charge is met." : "-"; reasons.appendChild(li);
  }
  for (const rs of r.reasons) {
    const li = document.createElement("li");
    const code = document.createElement("code"); code.textContent = rs.code;
    li.append(code, " ", rs.message, rs.models?.length ? ` [${rs.models.join(", ")}]` : "");
    reasons.appendChild(li);
  }
}

// Edition 11 picks targets after the roll: a charge declared without targets answers
// with the target sets this roll may pick. Each allowed set has a button that makes the
// charge with the same dice.
function renderChoices(r, v, facts, reasons) {
  const allowed = r.choices.filter((c) => c.allowed);
  v.className = `verdict choices ${allowed.length ? "ok" : "bad"}`;
  v.textContent = allowed.length ? `A ROLL OF ${r.roll.total} MAY PICK ${allowed.length === 1 ? "1 TARGET SET" : `${allowed.length} TARGET SETS`}`
    : `A ROLL OF ${r.roll.total} PICKS NO TARGET`;
  const add = (k, val) => {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = val;
    facts.append(dt, dd);
  };
  add("charger", r.charger);
  add("roll", `${r.roll.dice.join(" + ")}${r.roll.modifier ? ` ${r.roll.modifier > 0 ? "+" : "−"} ${Math.abs(r.roll.modifier)}` : ""} = ${r.roll.total}`);
  add("rule", "edition 11: targets are picked after the roll");
  const list = document.createElement("ul");
  list.className = "choices"; list.id = "choices";
  for (const c of r.choices) {
    const li = document.createElement("li");
    li.className = c.allowed ? "allowed" : "refused";
    li.dataset.targets = c.targets.join(" ");
    const need = c.needed.roll == null ? "no roll can make it" : `needs ${c.needed.roll} (move ${fmtLen(state.scen, c.needed.distance)})`;
    const gaps = Object.entries(c.gaps || {}).map(([u, d]) => `${u} ${fmtLen(state.scen, d)} away`).join(", ");
    li.append(`${c.targets.join(" + ")}: ${need}; ${gaps}; ${(100 * c.probability).toFixed(1)}% for a fresh roll. `);
    if (c.allowed) {
      const b = document.createElement("button");
      b.textContent = `Charge ${c.targets.join(" + ")}`;
      b.onclick = () => {
        // the same roll: fixed dice as rolled (a 2D6 total stays as given)
        if (r.roll.dice.length === 2) {
          const radio = document.querySelector("input[name=dice-mode][value=dice]");
          radio.checked = true; radio.dispatchEvent(new Event("change"));
          $("die1").value = r.roll.dice[0]; $("die2").value = r.roll.dice[1];
        }
        pushUndo(); state.targets = [...c.targets]; hooks.charge();
      };
      li.append(b);
    } else {
      li.append(`Not with a ${r.roll.total}.`);
    }
    list.appendChild(li);
  }
  if (!r.choices.length) {
    const li = document.createElement("li"); li.textContent = "No enemy unit is within 12\" and within the roll."; list.appendChild(li);
  }
  const li = document.createElement("li"); li.append(list); reasons.appendChild(li);
  reasons.classList.add("as-choices");
}

export function renderOdds() {
  const o = state.odds, box = $("odds");
  if (!o) { box.textContent = state.charger && state.targets.length ? "…" : "Choose a charger and targets."; return; }
  const pct = (100 * o.probability).toFixed(1);
  box.innerHTML = "";
  const big = document.createElement("div"); big.className = "big"; big.id = "odds-value"; big.textContent = `${pct}%`;
  const sub = document.createElement("div");
  sub.textContent = state.scen.system === "warmaster" ? "Warmaster charges roll no dice." :
    `exactly ${o.probability_fraction} · re-roll ${o.reroll} · modifier ${o.modifier >= 0 ? "+" : ""}${o.modifier}`;
  box.append(big, sub);
  const need = o.needed?.roll;
  const rows = Object.entries(o.table || {}).sort((a, b) => Number(a[0]) - Number(b[0]));
  if (rows.length) {
    const t = document.createElement("table");
    for (const [k, v] of rows) {
      const tr = document.createElement("tr");
      if (Number(k) === need) tr.className = "need";
      tr.innerHTML = `<td>${k}${Number(k) === need ? " ← least" : ""}</td><td>${(100 * v).toFixed(1)}%</td>`;
      t.appendChild(tr);
    }
    box.appendChild(t);
  }
}

export function renderAddBox() {
  const sys = state.scen.system;
  const sel = $("add-base");
  if (sel.dataset.system !== sys) {
    sel.replaceChildren();
    for (const [name, b] of BASES[sys]) {
      const o = document.createElement("option"); o.textContent = name; o.value = JSON.stringify(b); sel.appendChild(o);
    }
    sel.dataset.system = sys;
  }
  $("add-files-label").classList.toggle("hidden", sys !== "t9a");
  $("add-type-label").classList.toggle("hidden", sys !== "warmaster");
  $("add-count-label").firstChild.textContent = sys === "warmaster" ? "Stands " : "Models ";
  // Warmaster charges roll no dice: the dice, re-roll and modifier do not apply
  document.querySelectorAll("#dice-mode, #dice-fixed, #dice-total, #roll-options").forEach((e) => e.classList.toggle("dim", sys === "warmaster"));
}
