"""Pivots at the end spot in the charge search (docs/40k.md, "Pivots";
``systems/w40k/end_pivots.py``).

The scene: a 1"-thick wall across the board with a slot ``2h`` wide, narrower than the
oval's minor axis, so no base passes; the target stands just beyond the slot. Two
friendly VEHICLEs behind the charging VEHICLE's start leave it no room to turn there.
Unturned (long axis across the slot) its side pokes into the slot mouth by
``b(1 - sqrt(1 - h²/a²))``; turned a quarter at its end spot its tip pokes in by up to
``a - sqrt(a² - h²)``, the most that keeps the tip's swept arc inside the slot. The
target stands between the two: only the end turn engages it, and the least move is
the straight line to where the tip is exactly the engagement range from the target
plus the turn ``a·π/2`` (closed form).
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from h40k import turned_slot_scene
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.ruling import ruling_from_data
from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.validate.w40k import validate

MM = 25.4
R_T = 16 / MM  # the target's round 32 mm base
XW, H, THICK = 30.0, 0.5, 1.0  # the wall's west face, the slot's half width, thickness


def codes(vs: list[Any]) -> list[str]:
    return [v.code for v in vs]


def _pokes(L: float, W: float, h: float = H) -> tuple[float, float]:
    """How far past the wall's face the unturned side and the end-turned tip reach."""
    a, b = L / 2 / MM, W / 2 / MM
    return b * (1 - math.sqrt(1 - h * h / (a * a))), a - math.sqrt(a * a - h * h)


def scene(edition: int = 10, oval: tuple[float, float] = (60.0, 35.0), x0: float = 24.0, into: float | None = None,
          friends: bool = True, h: float = H) -> dict[str, Any]:
    """``into``: how far past the wall's face the target's nearest point lies beyond
    the engagement range (default: midway between the two pokes)."""
    L, W = oval
    a = L / 2 / MM
    er = 2.0 if edition == 11 else 1.0
    side, tip = _pokes(L, W, h)
    x_t = XW + er + (into if into is not None else (side + tip) / 2)
    k = math.cos(math.pi / 4)
    dd = a + R_T - 0.05  # 0.05" into either turn's sweep behind the start
    fr = [{"id": "F", "player": 1, "keywords": ["VEHICLE"],
           "models": [{"id": "F1", "at": [x0 - dd * k, 15 + dd * k], "base": {"round": 32}},
                      {"id": "F2", "at": [x0 - dd * k, 15 - dd * k], "base": {"round": 32}}]}] if friends else []
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition},
        "terrain": [
            {"type": "wall", "id": "W1", "points": [[XW + THICK / 2, 0], [XW + THICK / 2, 15 - h]], "thickness": THICK,
             "height": 5, "climbable": False},
            {"type": "wall", "id": "W2", "points": [[XW + THICK / 2, 15 + h], [XW + THICK / 2, 30]], "thickness": THICK,
             "height": 5, "climbable": False},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"],
             "models": [{"id": "A1", "at": [x0, 15.0], "base": {"oval": [L, W]}, "facing": 90}]},
            *fr,
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [x_t + R_T, 15.0], "base": {"round": 32}}]},
        ],
    }


def want(data: dict[str, Any]) -> float:
    """The least move: straight east until the tip (turned) is the engagement range
    from the target's nearest point, plus the quarter turn."""
    m = data["units"][0]["models"][0]
    a = m["base"]["oval"][0] / 2 / MM
    er = 2.0 if data["rules"]["edition"] == 11 else 1.0
    x_t = data["units"][-1]["models"][0]["at"][0] - R_T
    return (x_t - er - a) - m["at"][0] + a * math.pi / 2


def charge(data: dict[str, Any], roll: int | None = 12, **kw: Any) -> tuple[Any, Any]:
    scen = scenario_from_data(data)
    return scen, find_system("40k").charge(scen, ChargeRequest(charger="A", targets=("T",), roll=roll, **kw))


def test_the_scene_only_an_end_turn_engages() -> None:
    side, tip = _pokes(60, 35)
    assert side < tip - 0.04
    data = scene()
    x_t = data["units"][-1]["models"][0]["at"][0] - R_T
    # unturned, the side stops farther than 1" from the target; the tip gets within it
    assert x_t - (XW + side) > 1.0 + 0.02
    assert x_t - (XW + tip) < 1.0 - 0.02


def test_an_oval_turns_at_its_end_spot_to_reach_into_a_slot() -> None:
    data = scene()
    scen, r = charge(data)
    w = want(data)
    assert r.needed.distance == pytest.approx(w, abs=1e-6)
    assert r.needed.roll == math.ceil(w)
    assert r.success and validate(scen, r) == []
    mv = r.moves[0]
    line, pv = mv.segments[0], mv.segments[-1]
    assert line["kind"] == "line" and pv["kind"] == "pivot"
    assert pv["at"] == mv.to[:2] and pv["from"] == 90.0 and abs(abs(pv["to"] - 90.0) - 90.0) < 1e-9
    assert pv["length"] == pytest.approx(30 / MM * math.pi / 2, abs=1e-6)
    assert mv.facing == pv["to"] and mv.facing_from == 90.0
    after = {m["id"]: m for u in r.after["units"] for m in u["models"]}
    assert after["A1"]["facing"] == mv.facing
    # one short of the least roll fails
    _, r2 = charge(data, roll=math.ceil(w) - 1)
    assert not r2.success and r2.needed.roll == math.ceil(w)


def test_without_end_turns_the_charge_is_impossible() -> None:
    from chargeref.systems.w40k import end_pivots

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(end_pivots, "end_plans", lambda *a, **k: [])
        _, r = charge(scene())
    assert r.needed.roll is None and not r.success


def test_room_to_turn_at_the_start_gives_the_same_least_move() -> None:
    """Without the friends behind it the oval may turn at its start: the same length."""
    data = scene(friends=False)
    scen, r = charge(data)
    assert r.needed.distance == pytest.approx(want(data), abs=1e-6)
    assert validate(scen, r) == []


def test_the_on_axis_end_spot_at_its_sweep_limit() -> None:
    """The target exactly as far as the deepest on-axis end turn reaches: the closed
    form (the tip's arc touches the slot's corners; touching is allowed). 1e-3 farther:
    the on-axis spot's sweep would enter the wall, so the least move is longer (an
    off-axis spot, its arc clear of the corners), still legal. Only the on-axis spot
    meets the straight-line bound of the turned base, so "longer" is strict."""
    _, tip = _pokes(60, 35)
    data = scene(into=tip)
    scen, r = charge(data)
    assert r.needed.distance == pytest.approx(want(data), abs=1e-6)
    assert r.moves[0].to[1] == pytest.approx(15.0, abs=1e-9)
    assert validate(scen, r) == []
    data2 = scene(into=tip + 1e-3)
    scen2, r2 = charge(data2)
    assert r2.needed.distance > want(data2) + 1e-6
    assert r2.success and validate(scen2, r2) == []
    assert r2.moves[0].segments[-1]["kind"] == "pivot"


def test_edition_11_the_move_sets_the_roll() -> None:
    """A long 120x40 mm oval in edition 11 (2" range): the turn costs more than the
    range saves, so the move (not the pick, the closest gap) sets the least roll."""
    oval = (120.0, 40.0)
    b = oval[1] / 2 / MM
    side, tip = _pokes(*oval)
    x_t = XW + 2.0 + (side + tip) / 2
    x0 = x_t - b - 8.95  # the closest gap at the start is 8.95": the pick needs a 9
    data = scene(edition=11, oval=oval, x0=x0)
    scen, r = charge(data)
    w = want(data)
    assert math.ceil(w) == 10
    assert r.needed.distance == pytest.approx(w, abs=1e-6)
    assert r.needed.roll == 10
    assert r.success and validate(scen, r) == []
    assert r.moves[0].segments[-1]["kind"] == "pivot"


def test_casualties_keep_the_end_turn() -> None:
    """Edition 10 (WTC): overwatch casualties at the start of the move; the unit is
    placed again without them, with the same end turn."""
    data = scene()
    data["units"][0]["models"].append({"id": "A2", "at": [24.0, 19.5], "base": {"round": 130}})
    scen, r = charge(data, casualties=("A2",))
    assert r.success, r.reasons
    assert [m.id for m in r.moves] == ["A1"]
    assert r.moves[0].segments[-1]["kind"] == "pivot"
    assert validate(scen, r) == []


# --------------------------------------------------------------------------- rotated


def _transform(data: dict[str, Any], ang: float, mirror: bool) -> dict[str, Any]:
    """The scene turned by ``ang`` and mirrored (h40k.turned_slot_scene); the walls are cut
    13" from the slot (going round is longer than any roll)."""
    xm = XW + THICK / 2
    return turned_slot_scene(data, ang, mirror, [(xm, 15 - H - 13, 15 - H), (xm, 15 + H, 15 + H + 13)], None)


@settings(max_examples=2, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-180, 180), st.booleans())
@example(90.0, True)
@example(-33.5, False)
def test_turned_and_mirrored_end_turns_need_the_same(ang: float, mirror: bool) -> None:
    data = scene()
    scen, r = charge(_transform(data, ang, mirror))
    assert r.needed.distance == pytest.approx(want(data), abs=1e-6)
    assert r.needed.roll == math.ceil(want(data))
    assert validate(scen, r) == []


# --------------------------------------------------------------------------- thresholds


A60, R_E = 30 / MM, 16 / MM
K = math.cos(math.pi / 4)


def _open(gap: float, edition: int = 10) -> dict[str, Any]:
    """A1 (60x35 mm oval facing 90) at (10, 10), the target at (24, 10), and a
    non-target E whose base lies ``gap`` from the sector A1's tip sweeps turning
    90 -> 0 at (20, 10) (north-east of that spot)."""
    d = A60 + R_E + gap
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition}, "terrain": [],
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"],
             "models": [{"id": "A1", "at": [10.0, 10.0], "base": {"oval": [60, 35]}, "facing": 90}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [24.0, 10.0], "base": {"round": 32}}]},
            {"id": "E", "player": 2, "keywords": ["INFANTRY"],
             "models": [{"id": "E1", "at": [20 + d * K, 10 + d * K], "base": {"round": 32}}]},
        ],
    }


def test_the_search_keeps_an_end_sweep_out_of_a_non_targets_range_at_the_edge() -> None:
    """The search's own test of a spot (``EndTurnProblem.turn_clear``): 1.000" from the
    non-target refused, 1.001" allowed in edition 10; edition 11 watches no range while
    turning (0.5" allowed)."""
    from chargeref.systems.w40k.end_pivots import EndTurnProblem
    from chargeref.systems.w40k.pivots import Plan, apply_plan
    from chargeref.systems.w40k.world import build_world

    def clear(gap: float, edition: int) -> bool:
        world = build_world(scenario_from_data(_open(gap, edition)))
        w2, _, _ = apply_plan(world, Plan("t", {"A1": 0.0}))
        p = EndTurnProblem(w2, "A", ["T"], 12.0 * world.rules.inch, {"A1": world.by_id["A1"]}, {"A1": -90.0})
        assert p.pivot_cost["A1"] == pytest.approx(A60 * math.pi / 2, abs=1e-12)
        return p.turn_clear("A1", np.array([20.0, 10.0]))

    assert clear(1.0, 10) is False
    assert clear(1.001, 10) is True
    assert clear(0.5, 11) is True
    assert clear(-1e-3, 11) is False  # an enemy model's base itself: never swept over
    assert clear(0.0, 11) is True  # touching it is allowed


def _end_ruling(data: dict[str, Any]) -> dict[str, Any]:
    """A1 moves east from (10, 10) to (20, 10) at facing 90, then turns to 0 there."""
    L = A60 * math.pi / 2
    after = copy.deepcopy(data)
    after["units"][0]["models"][0].update(at=[20.0, 10.0], facing=0.0)
    after["units"][0]["flags"] = ["charged"]
    return {
        "format": "chargeref-ruling/1", "system": "40k", "charger": "A", "targets": ["T"], "eligible": True,
        "success": True, "procedure": "normal", "roll": {"dice": [], "modifier": 0, "total": 12},
        "moves": [{"id": "A1", "from": [10.0, 10.0], "to": [20.0, 10.0], "distance": 10.0 + L,
                   "segments": [{"kind": "line", "from": [10.0, 10.0], "to": [20.0, 10.0]},
                                {"kind": "pivot", "at": [20.0, 10.0], "from": 90.0, "to": 0.0, "length": L}],
                   "facing": 0.0, "facing_from": 90.0}],
        "engaged": ["T"], "after": after,
    }


def test_the_validator_keeps_an_end_sweep_out_of_a_non_targets_range_at_the_edge() -> None:
    for gap, bad in ((1.0, True), (1.001, False)):
        data = _open(gap)
        got = codes(validate(scenario_from_data(data), ruling_from_data(_end_ruling(data))))
        assert ("pivot_in_er_of_non_target" in got) is bad, (gap, got)
        assert not {"bad_pivot", "pivot_cost", "pivot_blocked", "facing_changed"} & set(got), got


def test_plan_floor_is_a_lower_bound_and_tight_on_a_straight_turn() -> None:
    """``plan_floor`` (which lets the search skip a plan without solving it) is below
    the least move the plan achieves, and equal to it when the move is the straight
    line after the turn."""
    from chargeref.systems.w40k.end_pivots import plan_floor
    from chargeref.systems.w40k.pivots import Plan
    from chargeref.systems.w40k.solver import ChargeProblem
    from chargeref.systems.w40k.world import build_world

    data = scene()
    world = build_world(scenario_from_data(data))
    prob = ChargeProblem(world, "A", ["T"], 12.0 * world.rules.inch)
    for f in (0.0, 180.0):
        assert plan_floor(world, prob, Plan("t", {"A1": f})) == pytest.approx(want(data), abs=1e-9)
    # unturned: the plain straight-line bound
    assert plan_floor(world, prob, Plan("t", {})) == pytest.approx(prob.lower_bound(), abs=1e-9)


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.floats(50, 120), st.floats(0.4, 0.8), st.floats(0.3, 0.9), st.floats(0.05, 1.0), st.sampled_from([10, 11]))
@example(60.0, 35 / 60, 0.5 / (17.5 / MM), 0.5, 10)
@example(120.0, 1 / 3, 0.6, 0.9, 11)
def test_random_slots_end_turns_are_legal_and_never_worse(L: float, ratio: float, hrel: float, into: float,
                                                          edition: int) -> None:
    """Random ovals, slots narrower than their minor axis and targets between the two
    pokes (past the unturned side's by at least 5% of the difference): the ruling passes the validator, the least move meets the turned base's
    straight-line bound exactly (the on-axis spot's sweep is clear), and switching end
    turns off never finds a lower roll."""
    from chargeref.systems.w40k import end_pivots

    W = L * ratio
    h = hrel * W / 2 / MM
    side, tip = _pokes(L, W, h)
    data = scene(edition=edition, oval=(L, W), h=h, into=side + into * (tip - side))
    scen, r = charge(data)
    assert validate(scen, r) == []
    if r.eligible:
        assert r.needed.distance == pytest.approx(want(data), abs=1e-6)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(end_pivots, "end_plans", lambda *a, **k: [])
        _, r0 = charge(data)
    if r0.needed.roll is not None:
        assert r.needed.roll is not None and r.needed.roll <= r0.needed.roll
