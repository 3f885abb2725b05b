"""The approach search stops at a real touch, not at the edge of the contact tolerance.

The search for the least clear approach (``detour``) slides towards an obstacle by
bisection on its clear test; it used to accept overlaps of up to ``TOL``, so its answer
overlapped by almost exactly ``TOL`` and the independent checker, rounding its own
way, could see the move passing through the obstacle (issue 9: a combined charge's
second charger slid along the first one's side; a charger wheeled past a friendly
unit's corner). The search's test now allows ``SEARCH_SLACK`` (half of ``TOL``), and a
turn's sweep reports overlaps shallower than ``TOL`` as negative gaps so that the
stricter test can see them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from build import B20, SYSTEM, charge, scen, unit
from test_phase_properties import SLID_ALONG_A, phase_scenario

from chargeref.geometry.shapes import TOL, ConvexPolygon, Footprint, signed_distance
from chargeref.systems.t9a.charge import SEARCH_SLACK, search_obstacles
from chargeref.systems.t9a.geom import Shape
from chargeref.systems.t9a.geom_turn import rot_sweep_gap, rot_sweep_gap_v
from chargeref.systems.t9a.world import Obstacle
from chargeref.testing import assert_legal_charge

W3 = 3 * B20


# ------------------------------------------------------------------ the search's test


def _square() -> Shape:
    return Shape.poly(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))


@pytest.mark.parametrize("strict", [False, True])
def test_search_obstacles_allow_half_the_tolerance(strict: bool) -> None:
    ob = Obstacle("F", "friend", _square(), 0.0, strict)
    (tight,) = search_obstacles([ob])
    if strict:
        # no contact allowed anyway: unchanged
        assert tight == ob
        return
    assert SEARCH_SLACK == TOL / 2
    # the ordinary test takes up to TOL of overlap ...
    assert ob.ok(-TOL + 1e-9) and not ob.ok(-TOL - 1e-9)
    # ... the search's only up to SEARCH_SLACK, and an exact touch or a gap still pass
    assert tight.ok(-SEARCH_SLACK + 1e-9) and not tight.ok(-SEARCH_SLACK - 1e-9)
    assert tight.ok(0.0) and tight.ok(1.0)


def _tip_dip(depth: float) -> tuple[Shape, Shape, float]:
    """A thin triangle whose tip, ``rho`` from the origin, turns about the origin from
    -1 to +1 degree, and a block whose near side lies ``rho - depth`` out along +x: at
    mid-turn the tip is ``depth`` inside the block (the deepest moment, by symmetry)."""
    rho = 3.0
    e = math.radians(1.0)
    V = np.array([[1.0, -0.2], [rho, 0.0], [1.0, 0.2]])
    R = np.array([[math.cos(-e), -math.sin(-e)], [math.sin(-e), math.cos(-e)]])
    A = Shape.poly(V @ R.T)
    x0 = rho - depth
    B = Shape.poly(np.array([[x0, -1.0], [x0 + 1.0, -1.0], [x0 + 1.0, 1.0], [x0, 1.0]]))
    return A, B, 2 * e


@pytest.mark.parametrize("sweep", [rot_sweep_gap, rot_sweep_gap_v])
@pytest.mark.parametrize("depth", [0.0, 1e-7, SEARCH_SLACK - 1e-9, SEARCH_SLACK + 1e-9, TOL - 1e-8])
def test_a_shallow_dip_of_a_turn_is_a_negative_gap(sweep, depth: float) -> None:
    A, B, ang = _tip_dip(depth)
    g = sweep(A, np.zeros(2), ang, B)
    # the overlap at the piece's middle, signed (it used to read as a gap of about 0)
    assert g == pytest.approx(-depth, abs=1e-10)
    ob = Obstacle("F", "friend", B, 0.0, False)
    (tight,) = search_obstacles([ob])
    assert ob.ok(g)  # within the ordinary tolerance ...
    assert tight.ok(g) == (depth < SEARCH_SLACK)  # ... the search's edge is at SEARCH_SLACK


def test_a_dip_deeper_than_the_tolerance_still_blocks() -> None:
    A, B, ang = _tip_dip(TOL + 1e-8)
    assert rot_sweep_gap_v(A, np.zeros(2), ang, B) < -TOL
    assert rot_sweep_gap(A, np.zeros(2), ang, B) < -TOL


# ------------------------------------------------------------------ whole rulings


def corridor(off: float):
    """A (3 wide) charges straight down its lane at T, 10" away; friendly units F and G
    stand on both sides of the lane, ``off`` clear of it (negative: inside it)."""
    return scen([unit("T", 2, (60, 60), 90, 6, 18), unit("A", 1, (60, 70), 270, 3, 3),
                 unit("F", 1, (60 + W3 + off, 66), 270, 3, 3), unit("G", 1, (60 - W3 - off, 66), 270, 3, 3)],
                board=(120, 120))


def test_a_lane_0_001_clear_is_driven_through_legally() -> None:
    s = corridor(1e-3)
    r = charge(s, "A", "T", (6, 6))
    assert r.success and r.needed.distance == pytest.approx(10.0, abs=1e-9)
    # the move wheels past F's corner: it used to clip it by the whole tolerance
    assert any(st["kind"] == "wheel" for st in r.details["paths"][0]["steps"])
    assert_legal_charge(s, r)


def test_a_lane_0_001_too_narrow_blocks_the_charge() -> None:
    s = corridor(-1e-3)
    r = charge(s, "A", "T", (6, 6))
    assert not r.success
    assert r.reasons[0].code == "path_blocked"
    assert set(r.reasons[0].witness["blockers"]) == {"F", "G"}
    assert_legal_charge(s, r)


def _corners(front: np.ndarray, facing: float, width: float, depth: float) -> np.ndarray:
    f = np.array([math.cos(math.radians(facing)), math.sin(math.radians(facing))])
    t = np.array([-f[1], f[0]])
    return np.array([front + t * width / 2, front - t * width / 2,
                     front - t * width / 2 - f * depth, front + t * width / 2 - f * depth])


def _poly(P: np.ndarray) -> Footprint:
    hull = shapely.convex_hull(shapely.MultiPoint([tuple(p) for p in P]))
    return Footprint((ConvexPolygon(tuple(hull.exterior.coords[:-1])),))


def test_the_second_charger_slides_along_the_first_without_entering_it() -> None:
    s = phase_scenario(SLID_ALONG_A)
    res = SYSTEM.phase(s, 1)
    by = {r.charger: r for r in res.rulings}
    assert by["A"].success and by["B"].success
    assert by["B"].details["combined"]["order"] == ["A", "B"]
    for r in res.rulings:
        assert_legal_charge(s, r)
    # B's straight moves against A where A ended, worked out here from the recorded
    # steps (shapely hulls, the generic signed distance): the deepest overlap is at
    # most the search's slack
    d = B20
    a_end = by["A"].details["paths"][0]["to"]
    A = _poly(_corners(np.array(a_end["front"]), a_end["facing"], 3 * d, d))
    rec = by["B"].details["paths"][0]
    front, facing = np.array(rec["from"]["front"], float), float(rec["from"]["facing"])
    least = math.inf
    for st in rec["steps"]:
        if st["kind"] == "forward":
            C0 = _corners(front, facing, 2 * d, d)
            step = st["distance"] * np.array([math.cos(math.radians(facing)), math.sin(math.radians(facing))])
            least = min(least, signed_distance(_poly(np.concatenate([C0, C0 + step])), A))
            front = front + step
        else:
            piv = np.array(st["pivot"], float)
            a = math.radians(st["angle"])
            R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            front, facing = (front - piv) @ R.T + piv, facing + st["angle"]
    assert -SEARCH_SLACK - 1e-9 <= least <= 0.0
