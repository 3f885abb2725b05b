"""Revolution placement along an edge reached only by detours: the spot is constructed
(``systems/warmaster/detour.py``), never sampled. Closed forms at the thresholds, a
gap exactly as wide as the stand, and invariance under turning and mirroring."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from wm_helpers import SYSTEM, charge, codes, infantry_line, scen, stands

from chargeref import scenario_from_data
from chargeref.systems import ChargeRequest
from chargeref.systems.warmaster.detour import reach_set
from chargeref.testing import assert_legal_charge

# A cavalry stand (2 wide, 4 deep) at (62, 40) facing 90 charges an infantry stand at
# (60, 60) facing 270; its flush spots have their centre on y = 57. A rock
# x in [60, 89], y in [48, 50] blocks every straight way, so the stand goes round the
# rock's left end. Its centre keeps out of the rock grown by the stand, x in [59, 90] x
# y in [46, 52]: the route is (62, 40) -> (59, 46) -> (59, 52) -> (x, 57), costing
# D + |(x, 57) - (59, 52)| with D = sqrt(45) + 6. With a move of D + r the nearest spot
# to the centre spot x = 60 is x = 59 + sqrt(r^2 - 25) (the cost circle cuts the edge).
D = math.hypot(3.0, 6.0) + 6.0


def rock_case(move: float, left_rock_end: float | None = None) -> Any:
    terrain = [{"id": "rock", "type": "impassable", "polygon": [[60, 48], [89, 48], [89, 50], [60, 50]]}]
    if left_rock_end is not None:
        terrain.append({"id": "rock2", "type": "impassable",
                        "polygon": [[30, 48], [left_rock_end, 48], [left_rock_end, 50], [30, 50]]})
    return scen({"rules": {"variant": "revolution"}, "units": [
        infantry_line("T", 2, [60], 60, 270),
        stands("C", 1, "cavalry", [(62, 40)], 90, move=move)], "terrain": terrain})


def test_the_cost_circle_cuts_the_edge_at_the_closed_form() -> None:
    r = charge(rock_case(D + 5.05), "C", "T")
    assert r.success and codes(r) == ["partially_covered"]
    # the least move to any spot: the foot of the perpendicular from (59, 52), x = 59
    assert r.needed.distance == pytest.approx(D + 5.0, abs=1e-6)
    assert r.details["first_contact"]["centre_to_centre_move"] == pytest.approx(D + 5.0, abs=1e-6)
    (m,) = r.moves
    assert m.to[0] == pytest.approx(59.0 + math.sqrt(5.05**2 - 25.0), abs=1e-6)
    assert m.to[1] == pytest.approx(57.0, abs=1e-9)
    assert m.distance == pytest.approx(D + 5.05, abs=1e-6)


def test_with_enough_move_the_detour_reaches_the_centre_spot() -> None:
    r = charge(rock_case(D + math.sqrt(26.0)), "C", "T")
    assert r.success and codes(r) == []
    assert r.moves[0].to == pytest.approx([60.0, 57.0], abs=1e-9)


def test_a_move_just_reaching_the_foot_of_the_perpendicular() -> None:
    # the cost circle round (59, 52) touches the edge line at the foot of the
    # perpendicular, x = 59: the only reachable spot. The move's tolerance (1e-6)
    # lets the spot slide at most sqrt(2 * 5 * 1e-6) = 0.0032 along the edge.
    r = charge(rock_case(D + 5.0), "C", "T")
    assert r.success and codes(r) == ["partially_covered"]
    assert r.moves[0].to[0] == pytest.approx(59.0, abs=math.sqrt(2 * 5.0 * 1e-6) + 1e-9)
    assert r.moves[0].distance <= D + 5.0 + 1e-6
    short = charge(rock_case(D + 5.0 - 0.001), "C", "T")
    assert not short.success and short.moves == []


def test_a_gap_exactly_as_wide_as_the_stand_is_passed() -> None:
    # a second rock x in [30, 58] leaves a gap x in [58, 60], exactly the stand's
    # 2 cm frontage; both rock ends are out of the cavalry's 30 cm reach
    r = charge(rock_case(30.0, left_rock_end=58.0), "C", "T")
    assert r.success and codes(r) == []
    assert r.moves[0].to == pytest.approx([60.0, 57.0], abs=1e-9)
    xs = [p[0] for p in r.moves[0].path[1:-1]]
    assert xs and all(abs(x - 59.0) < 1e-6 for x in xs)  # through the gap's middle


def test_a_gap_a_thousandth_of_a_millimetre_narrower_is_not() -> None:
    r = charge(rock_case(30.0, left_rock_end=58.0001), "C", "T")
    assert not r.success and r.moves == []


def test_reach_set_is_the_circle_cut_directly() -> None:
    obstacles = [np.array([[60.0, 48.0], [89.0, 48.0], [89.0, 50.0], [60.0, 50.0]]),
                 np.array([[58.0, 59.0], [62.0, 59.0], [62.0, 61.0], [58.0, 61.0]])]  # the target
    # spots (x, 57) facing 90 for x in [55, 65]; move D + 5.05. Right of x = 59 the
    # spots are reached over (59, 52) (5.05 left: a circle of that radius); left of it
    # straight from (59, 46), with sqrt(45) spent (11.05 left, 11 to climb)
    ivs = reach_set(np.array([62.0, 40.0]), 90.0, 90.0, 2.0, 4.0, np.array([0.0, 57.0]), np.array([1.0, 0.0]),
                    55.0, 65.0, obstacles, D + 5.05)
    assert len(ivs) == 1
    assert ivs[0][0] == pytest.approx(59.0 - math.sqrt(11.05**2 - 11.0**2), abs=1e-6)
    assert ivs[0][1] == pytest.approx(59.0 + math.sqrt(5.05**2 - 25.0), abs=1e-6)
    # just less than the perpendicular from (59, 52): nothing
    assert reach_set(np.array([62.0, 40.0]), 90.0, 90.0, 2.0, 4.0, np.array([0.0, 57.0]), np.array([1.0, 0.0]),
                     55.0, 65.0, obstacles, D + 4.999) == []


def _turned(data: dict[str, Any], deg: float, mirror: bool) -> dict[str, Any]:
    th = math.radians(deg)
    c, s = math.cos(th), math.sin(th)

    def pt(p: list[float]) -> list[float]:
        x, y = p[0] - 100.0, p[1] - 100.0
        if mirror:
            x = -x
        return [100.0 + c * x - s * y, 100.0 + s * x + c * y]

    def fac(f: float) -> float:
        return ((180.0 - f) if mirror else f) + deg

    out = {**data, "terrain": [{**t, "polygon": [pt(p) for p in t["polygon"]]} for t in data["terrain"]],
           "units": [{**u, "stands": [{**st_, "at": pt(st_["at"]), "facing": fac(st_["facing"]) % 360}
                                      for st_ in u["stands"]]} for u in data["units"]]}
    return out


def _base(move: float) -> dict[str, Any]:
    # the rock case moved to the middle of a 200 x 200 board
    return {"format": "chargeref/1", "system": "warmaster", "rules": {"variant": "revolution"},
            "board": {"width": 200.0, "depth": 200.0},
            "units": [infantry_line("T", 2, [100.0], 100.0, 270.0),
                      stands("C", 1, "cavalry", [(102.0, 80.0)], 90.0, move=move)],
            "terrain": [{"id": "rock", "type": "impassable",
                         "polygon": [[100, 88], [129, 88], [129, 90], [100, 90]]}]}


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.floats(0.0, 360.0), st.booleans(), st.floats(0.02, 0.09))
@example(0.0, False, 0.05)
@example(37.5, True, 0.05)
@example(90.0, False, 0.02)
def test_turning_or_mirroring_keeps_the_constructed_spot(deg: float, mirror: bool, extra: float) -> None:
    move = D + 5.0 + extra
    want = math.sqrt((5.0 + extra) ** 2 - 25.0) - 1.0  # the offset's size from the centre spot
    s = scenario_from_data(_turned(_base(move), deg, mirror))
    assert SYSTEM.problems(s) == []
    r = SYSTEM.charge(s, ChargeRequest("C", ("T",), dice=(2,)))
    assert_legal_charge(s, r)
    assert r.success
    assert abs(r.details["first_contact"]["offset"]) == pytest.approx(abs(want), abs=1e-6)
    assert r.moves[0].distance == pytest.approx(move, abs=1e-6)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.floats(40.0, 80.0), st.floats(30.0, 45.0), st.sampled_from([60.0, 90.0, 120.0, 45.0]),
       st.floats(45.0, 62.0), st.floats(2.0, 20.0), st.floats(18.0, 30.0))
@example(62.0, 40.0, 90.0, 60.0, 29.0, D + 5.05)
def test_reach_set_agrees_with_the_route_search(cx: float, cy: float, facing: float, rock_x: float,
                                                rock_len: float, move: float) -> None:
    # a stand (cavalry, 2 x 4) behind a rock, spots (x, 57) facing 90 along the
    # target's front: every probed spot the route search reaches lies in the
    # constructed set, and every probed spot well inside the set is reached
    from chargeref.systems.warmaster.sweep import stand_route

    rock = np.array([[rock_x, 48.0], [rock_x + rock_len, 48.0], [rock_x + rock_len, 50.0], [rock_x, 50.0]])
    target = np.array([[58.0, 59.0], [62.0, 59.0], [62.0, 61.0], [58.0, 61.0]])
    obstacles = [rock, target]
    start = np.array([cx, cy])
    g0, t = np.array([0.0, 57.0]), np.array([1.0, 0.0])
    ivs = reach_set(start, facing, 90.0, 2.0, 4.0, g0, t, 57.0, 63.0, obstacles, move)

    def inside(x: float, margin: float) -> bool:
        return any(a + margin <= x <= b - margin for a, b in ivs)

    probes = [57.0 + 6.0 * k / 40 for k in range(41)] + [x for iv in ivs for x in iv]
    for x in probes:
        found = stand_route(start, facing, g0 + x * t, 90.0, 2.0, 4.0, obstacles, move)
        reached = found is not None and found[1] <= move + 1e-6
        if reached:
            assert inside(x, -1e-6), (x, ivs)
        elif inside(x, 1e-6):
            raise AssertionError((x, ivs, found))
