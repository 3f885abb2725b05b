"""A Warmaster stand moves as its rectangle: it never passes a gap narrower than its
footprint, and a detour round a corner is the exact polygonal one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from wm_helpers import charge, scen

from chargeref.systems.warmaster.geom import _normals, rect
from chargeref.systems.warmaster.sweep import leg_sweep, route_cost, stand_route
from chargeref.validate.warmaster import validate


def gap_field(gap: float, kind: str = "cavalry") -> dict:
    """A stand of C (facing up) 17 cm below its target E, and two long rocks that
    leave a gap of ``gap`` cm centred on its way; the rocks reach both board edges,
    so there is no way round."""
    lo, hi = 50 - gap / 2, 50 + gap / 2
    return {
        "board": {"width": 100, "depth": 80},
        "terrain": [
            {"id": "west", "type": "impassable", "polygon": [[0, 39], [lo, 39], [lo, 41], [0, 41]]},
            {"id": "east", "type": "impassable", "polygon": [[hi, 39], [100, 39], [100, 41], [hi, 41]]},
        ],
        "units": [
            {"id": "E", "player": 2, "type": "infantry", "stands": [{"at": [50, 50], "facing": 270}]},
            {"id": "C", "player": 1, "type": kind, "stands": [{"at": [50, 30], "facing": 90}]},
        ],
    }


@pytest.mark.parametrize(("kind", "width"), [("cavalry", 2.0), ("infantry", 4.0)])
def test_a_stand_passes_a_gap_only_as_wide_as_its_front(kind: str, width: float) -> None:
    wide = scen(gap_field(width + 0.001, kind))
    r = charge(wide, "C", "E")
    assert r.success
    assert len(r.moves[0].path or []) in (0, 2)  # straight through
    narrow = scen(gap_field(width - 0.001, kind))
    r2 = charge(narrow, "C", "E")
    assert not r2.success
    # the validator refuses the wide gap's move on the narrow field
    found = validate(narrow, r)
    assert any(v.code == "path_blocked" for v in found), found


def test_detour_round_a_corner_is_the_rectangles_exact_one() -> None:
    # a 2 x 4 stand (facing up) passes a rock's corner (5.5, 14): its centre turns at
    # the corner plus half its width and depth, (6.5, 12), exactly
    rock = np.array([[0.0, 14.0], [5.5, 14.0], [5.5, 19.0], [0.0, 19.0]])
    found = stand_route(np.array([6.0, 0.0]), 90.0, np.array([6.5, 17.0]), 90.0, 2.0, 4.0, [rock], 30.0)
    assert found is not None
    path, cost = found
    assert cost == pytest.approx(math.hypot(0.5, 12.0) + 5.0, abs=1e-6)
    assert path[1] == pytest.approx([6.5, 12.0], abs=1e-6)
    assert route_cost(path, 90.0, 90.0, 2.0, 4.0, [rock]) == pytest.approx(cost, abs=1e-12)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.floats(0, 360), st.floats(-5, 5), st.floats(-5, 5), st.floats(0.5, 4), st.floats(0.5, 4))
@example(90.0, 0.0, 3.0, 2.0, 4.0)
@example(30.0, 0.0, 0.0, 4.0, 2.0)
def test_a_translating_stand_sweeps_the_minkowski_sum_of_stand_and_leg(facing: float, dx: float, dy: float,
                                                                      w: float, d: float) -> None:
    c0 = np.array([10.0, 10.0])
    c1 = c0 + np.array([dx, dy])
    H = leg_sweep(c0, facing, c1, facing, w, d)
    N, h = _normals(H)
    # every copy along the leg lies in the sweep
    for t in np.linspace(0, 1, 11):
        P = rect(c0 + t * (c1 - c0), facing, w, d)
        assert np.all(P @ N.T - h <= 1e-9)
    # and the sweep is no bigger than the sum: its area is the stand's plus the leg's
    # length times the stand's width across the leg (closed form)
    L = math.hypot(dx, dy)
    across = 0.0
    if L > 0:
        n = np.array([-dy, dx]) / L
        R = rect(np.zeros(2), facing, w, d)
        across = float(np.max(R @ n) - np.min(R @ n))
    x, y = H[:, 0], H[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    assert area == pytest.approx(w * d + L * across, abs=1e-9)
