"""Pivot facings built toward each declared target unit (docs/40k.md, "Pivots"): with
several targets, the facings are built toward the nearest target model and also toward
the nearest model of each target unit, so a turn that only the farther unit's geometry
suggests is found.

The scene: the slot of ``test_pivot.slot_scenario`` exactly as wide as a 60x35 mm oval's
minor axis, the oval broadside to it, target T beyond the slot and a second target B
beyond the wall south of the slot, nearer the oval than T. Every facing built toward B
leaves the oval too wide for the slot; the facings built toward T turn it a quarter and
it passes, ending within 1" of both.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_pivot import ER, MM, X_T, slot_scenario

from chargeref.geometry.shapes import signed_distance
from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.systems.w40k import pivots
from chargeref.systems.w40k.world import build_world
from chargeref.validate.w40k import validate

A = 30 / MM  # the oval's half length


def two_targets(gap: float = 35 / MM) -> dict[str, Any]:
    d = slot_scenario("oval", [60, 35], 90.0, gap)
    d["units"].append({"id": "B", "player": 2, "keywords": ["INFANTRY"],
                       "models": [{"id": "B1", "at": [33.0, 13.0], "base": {"round": 32}}]})
    return d


def charge(data: dict[str, Any], roll: int) -> tuple[Any, Any]:
    scen = scenario_from_data(data)
    return scen, find_system("40k").charge(scen, ChargeRequest(charger="A", targets=("B", "T"), roll=roll))


def test_b_is_the_nearest_target_and_its_facings_do_not_pass() -> None:
    """The premise: B is nearer, and no facing built toward it is the quarter turn."""
    w = build_world(scenario_from_data(two_targets()))
    a1 = w.by_id["A1"]
    assert signed_distance(a1.fp, w.by_id["B1"].fp) < signed_distance(a1.fp, w.by_id["T1"].fp)
    toward_b = pivots._candidate_turns(w, a1, [w.by_id["B1"]])
    assert all(abs(abs(d) - 90.0) > 1.0 for d in toward_b.values()), toward_b
    toward_t = pivots._candidate_turns(w, a1, [w.by_id["T1"]])
    assert any(abs(abs(d) - 90.0) < 1e-9 for d in toward_t.values()), toward_t


@pytest.mark.parametrize("roll,ok", [(10, True), (9, False)])
def test_a_facing_built_for_the_second_target_passes_the_slot(roll: int, ok: bool) -> None:
    """The least move in closed form (the quarter turn, then straight to 1" of T), the
    same as with T alone; a roll of 10 succeeds, 9 fails; the validator accepts it."""
    want = (X_T - ER - A) - 24 + A * math.pi / 2
    scen, r = charge(two_targets(), roll)
    assert r.needed.distance == pytest.approx(want, abs=1e-6)
    assert r.needed.roll == math.ceil(want) == 10
    assert r.success is ok
    if ok:
        assert validate(scen, r) == []
        pv = r.moves[0].segments[0]
        assert pv["kind"] == "pivot" and abs(abs(pv["to"] - pv["from"]) - 90.0) < 1e-9


def test_only_facings_toward_the_nearest_target_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old limit: facings built toward the nearest target model only give no answer."""
    real = pivots.plans
    monkeypatch.setattr(pivots, "plans", lambda *a, **k: [p for p in real(*a, **k) if "@" not in p.rule])
    from chargeref.systems.w40k import end_pivots

    monkeypatch.setattr(end_pivots, "plans", pivots.plans)
    _, r = charge(two_targets(), 12)
    assert r.needed.roll is None and not r.success


def test_a_slot_1e3_narrower_stops_it() -> None:
    _, r = charge(two_targets(35 / MM - 1e-3), 12)
    assert r.needed.roll is None and not r.success
