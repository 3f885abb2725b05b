"""Failed and impossible charges made fast without changing a ruling (issue 13).

Two shortcuts, each checked against the work it skips:

* the failed-charge move (edition 9) builds no turned ends when none could be kept
  (settle_pivots.with_turns: no unit to engage, and an unturned end moves); the ruling
  equals the one the full loop over every constructed turn gives, and that loop is
  shown to have built turned ends only to drop them;
* a pivot plan's first candidate spots are built once per turned world
  (plan_banks.SharedBanks): the probe and the full search of a plan, and the start and
  end plans with the same facing, share them; rulings equal those without sharing, and
  the shared banks equal freshly built ones value for value.

The scene: edition 9, a 40x20 mm rect facing a thick wall with a slot a little wider
than its 20 mm side; the enemy stands just behind the slot. Unturned the rect cannot
enter the slot; turned a quarter it can.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.systems.w40k import settle_pivots
from chargeref.systems.w40k.moves import failed_charge_rules
from chargeref.systems.w40k.plan_banks import SharedBanks
from chargeref.systems.w40k.settle import Settle
from chargeref.systems.w40k.world import build_world
from chargeref.validate.w40k import validate

MM = 25.4
W_RECT, D_RECT = 40.0, 20.0
SLOT = W_RECT / 2 / MM + 0.01
T_NEAR = 30.5
R_T = 16 / MM


def scene(x0: float, edition: int = 9, keywords: tuple[str, ...] = ("VEHICLE",), slot: float = SLOT,
          t_near: float = T_NEAR) -> dict[str, Any]:
    g = slot
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition},
        "terrain": [
            {"type": "wall", "id": "W1", "points": [[30, 0], [30, 15 - g / 2]], "thickness": 0.9, "height": 5, "climbable": False},
            {"type": "wall", "id": "W2", "points": [[30, 15 + g / 2], [30, 30]], "thickness": 0.9, "height": 5, "climbable": False},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": list(keywords),
             "models": [{"id": "A1", "at": [x0, 15], "base": {"rect": [W_RECT, D_RECT]}, "facing": 0.0}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [t_near + R_T, 15], "base": {"round": 32}}]},
        ],
    }


def full_with_turns(st: Any, m: Any, o: Any, built: list[int]) -> Any:
    """settle_pivots.with_turns as it was before the shortcut: every constructed turn's
    ends are built, then kept only where they give what no unturned end gives."""
    moving = np.linalg.norm(o.pts - m.xy, axis=1) > settle_pivots.MOVED
    if bool((o.contact & moving).any()):
        return o
    has_er = bool((o.er & moving).any())
    has_move = bool(moving.any())
    for delta in settle_pivots.turns_for(st, m):
        t = settle_pivots._turn_options(st, m, delta, type(o))
        if t is None:
            continue
        built.append(len(t))
        want = t.contact | (t.er & (not has_er)) | np.full(len(t), not has_move)
        if want.any():
            o = o.joined(t.take(want))
    return o


def _ruling(scen: Any, roll: int) -> Any:
    return find_system("40k").charge(scen, ChargeRequest("A", ("T",), roll=roll))


@pytest.mark.parametrize("x0", [20.0, 24.0])
def test_failed_move_is_the_full_loops_ruling(monkeypatch: pytest.MonkeyPatch, x0: float) -> None:
    """The failed charge (the slot too narrow unturned, the roll too short to turn and
    go through): the move equals the full loop's, which built turned ends and kept
    none; the shortcut builds none."""
    scen = scenario_from_data(scene(x0))
    calls: list[int] = []
    real = settle_pivots._turn_options
    monkeypatch.setattr(settle_pivots, "_turn_options", lambda *a: calls.append(1) or real(*a))
    fast = _ruling(scen, 2)
    assert not fast.success and fast.procedure == "failed"
    assert fast.moves and validate(scen, fast) == []
    assert calls == []  # the shortcut built no turned end
    built: list[int] = []
    monkeypatch.setattr(settle_pivots, "with_turns", lambda st, m, o: full_with_turns(st, m, o, built))
    import chargeref.systems.w40k.settle_spots as settle_spots

    monkeypatch.setattr(settle_spots, "with_turns", lambda st, m, o: full_with_turns(st, m, o, built))
    full = _ruling(scen, 2)
    assert sum(built) > 0  # the full loop did build turned ends (and dropped them)
    assert json.dumps(fast.model_dump(mode="json"), sort_keys=True) == json.dumps(full.model_dump(mode="json"), sort_keys=True)


def test_turned_ends_of_a_failed_move_never_engage() -> None:
    """The premise of the shortcut, on the engine: with the failed charge's rules no
    turned end has base contact or engagement range (no unit is engaged; every enemy's
    range is out of bounds)."""
    w = build_world(scenario_from_data(scene(24.0)))
    st = Settle(w, "A", failed_charge_rules(w, "A", ["T"], 5.0))
    m = st.by_id["A1"]
    assert st.rules.engage == () and not st.eng.targets
    n = 0
    for delta in settle_pivots.turns_for(st, m):
        t = settle_pivots._turn_options(st, m, delta, type(st.options(m)))
        if t is not None:
            n += len(t)
            assert not t.contact.any() and not t.er.any()
    assert n > 0


def test_pile_in_still_turns() -> None:
    """The shortcut is the failed move's only: a pile-in (base contact sought) still
    builds the quarter turn through the slot (3" move: 1" short of the slot's mouth)."""
    from chargeref.systems.w40k.fight import pile_in

    d = scene(30.5 - 0.45 - 1.0 - D_RECT / 2 / MM - 0.5, edition=10)
    d["units"][0]["flags"] = ["charged"]
    scen = scenario_from_data(d)
    r = pile_in(scen, "A")
    (mv,) = [mv for mv in r.moves if mv.id == "A1"]
    assert any(sg["kind"] == "pivot" for sg in (mv.segments or []))


# --------------------------------------------------------------------------- plan banks


def _charge_json(scen: Any, roll: int) -> str:
    return json.dumps(_ruling(scen, roll).model_dump(mode="json"), sort_keys=True)


#: the enemy 1.5" behind the wall's near face: out of engagement range from there
FAR = 29.55 + 1.5


@pytest.mark.parametrize(("x0", "roll", "slot"), [(24.0, 9, SLOT), (24.0, 3, SLOT), (24.0, 9, 15.0 / MM)])
def test_shared_plan_banks_change_no_ruling(monkeypatch: pytest.MonkeyPatch, x0: float, roll: int, slot: float) -> None:
    """A charge through the slot: only a quarter turn fits it (a turn at the start
    succeeds, one at the end cannot, so the start and the end plans are all built), or,
    with a 15 mm slot, nothing fits and no roll can succeed. The ruling with shared
    banks equals the one with every bank built afresh, and the sharing was used."""
    scen = scenario_from_data(scene(x0, edition=10, slot=slot, t_near=FAR))
    hits: list[int] = []
    real = SharedBanks._initial_bank

    def counting(self: Any, m: Any) -> Any:
        memo = self.field_source.__dict__.get("_plan_banks", {}) if self.field_source is not None else {}
        if self.field_source is not None and self._bank_key(m) in memo:
            hits.append(1)
        return real(self, m)

    monkeypatch.setattr(SharedBanks, "_initial_bank", counting)
    shared = _charge_json(scen, roll)
    assert hits, "no plan reused a bank"
    from chargeref.systems.w40k.spots import SpotBuilder

    monkeypatch.setattr(SharedBanks, "_initial_bank", lambda self, m: SpotBuilder._initial_bank(self, m))
    fresh = _charge_json(scen, roll)
    assert shared == fresh


def test_a_shared_bank_equals_a_fresh_one() -> None:
    """The start plan and the end plan that turn the rect to the same facing get the
    same bank object, equal value for value to one built without the memo."""
    from chargeref.systems.w40k import end_pivots, pivots
    from chargeref.systems.w40k.spots import SpotBuilder

    system = find_system("40k")
    w = build_world(scenario_from_data(scene(24.0, edition=10, t_near=FAR)))
    req = ChargeRequest("A", ("T",), roll=9)
    prob = system._problem(w, req)
    plan = pivots.plans(w, "A", ["T"], prob.barriers)[0]
    w2, cost, _ = pivots.apply_plan(w, plan)
    p1 = pivots.StartTurnProblem(w2, "A", ["T"], prob.cap, pivot_cost=cost, field_source=prob)
    eplan = next(p for p in end_pivots.end_plans(w, "A", ["T"]) if p.facing == plan.facing)
    p2, _ = end_pivots.end_problem(w, eplan, end_pivots.system_builder(system, req, prob.cap, prob, None))
    for key, b in p1.banks.items():
        assert p2.banks[key] is b
        fresh = SpotBuilder._initial_bank(p1, p1.rep[key])
        for f in ("pts", "z", "ok", "contact", "er", "dist", "tok", "bar"):
            assert np.array_equal(getattr(b, f), getattr(fresh, f)), f
    # another facing is another world: another bank
    other = next(p for p in pivots.plans(w, "A", ["T"], prob.barriers) if p.facing != plan.facing)
    w3, cost3, _ = pivots.apply_plan(w, other)
    p3 = pivots.StartTurnProblem(w3, "A", ["T"], prob.cap, pivot_cost=cost3, field_source=prob)
    assert all(p3.banks[k] is not p1.banks[k] for k in p1.banks if k in p3.banks)
    assert math.isfinite(prob.lower_bound())
