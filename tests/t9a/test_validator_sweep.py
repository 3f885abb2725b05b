"""The T9A validator's turn check is exact (validate/t9a_sweep.py): a turn that clips
an obstacle is refused however thin the clip, a turn that only touches passes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chargeref.geometry.shapes import ConvexPolygon, Disc, Footprint
from chargeref.validate.t9a import VBlock, _sd, _step_clear
from chargeref.validate.t9a_sweep import arc_circle, arc_segment, turn_overlap

# a 4 x 2 block (front at the origin, looking along +x) wheeling 90 degrees to its
# left about its front-left corner (0, 2): its far rear corner (-2, -2) is the point
# farthest from the pivot, sqrt(20) away, and passes straight below the pivot
BLOCK = VBlock("A", 1, np.array([0.0, 0.0]), 0.0, 4, 8, 1.0, 1.0, False, frozenset())
PIV = np.array([0.0, 2.0])
R = math.sqrt(20.0)
WHEEL = {"kind": "wheel", "angle": 90.0}


def _poly(pts: list[np.ndarray] | list[tuple[float, float]]) -> Footprint:
    return Footprint((ConvexPolygon(tuple((float(x), float(y)) for x, y in pts)),), "polygon")


def _below(top: float) -> Footprint:
    return _poly([(-1.0, -4.0), (1.0, -4.0), (1.0, top), (-1.0, top)])


def test_turn_touching_an_edge_tangentially_is_clear() -> None:
    # the rear corner's arc is tangent to y = 2 - sqrt(20): touching is allowed
    assert _step_clear(BLOCK, WHEEL, [("rock", _below(2.0 - R))]) is None


def test_turn_clipping_an_edge_by_a_thousandth_is_refused() -> None:
    assert _step_clear(BLOCK, WHEEL, [("rock", _below(2.0 - R + 1e-3))]) == "rock"
    # and 1e-5 in: still through (the tolerance is the contract's 1e-6)
    assert _step_clear(BLOCK, WHEEL, [("rock", _below(2.0 - R + 1e-5))]) == "rock"


def test_turn_stopping_short_of_the_tangent_point_is_clear() -> None:
    # the corner passes below the pivot after atan(1/2) = 26.57 degrees of wheel: 20 stops short
    assert _step_clear(BLOCK, {"kind": "wheel", "angle": 20.0}, [("rock", _below(2.0 - R + 1e-3))]) is None


def _old_sampled_worst(fp: Footprint) -> tuple[float, int]:
    """The previous validator's check: positions every 0.01 inch of travel of the
    farthest point, an overlap counted past 1e-3 inch."""
    reach = float(np.hypot(*(BLOCK.centre - PIV))) + math.hypot(BLOCK.width, BLOCK.depth) / 2
    n = math.ceil(math.pi / 2 * reach / 0.01)
    worst = 0.0
    for k in range(1, n + 1):
        a = math.pi / 2 * k / n
        Rm = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        bb = BLOCK.moved((BLOCK.front - PIV) @ Rm.T + PIV, BLOCK.facing + math.degrees(a))
        worst = min(worst, _sd(bb.footprint(), fp, 0.0))
    return worst, n


def test_thin_obstacle_between_two_old_sample_positions_is_refused() -> None:
    # a sliver 0.0026 wide poking 0.0025 into the rear corner's path, centred between
    # two of the old validator's sample positions
    n = math.ceil(math.pi / 2 * R / 0.01)
    a0 = math.atan2(-4.0, -2.0)
    half = (n // 2 + 0.5) * (math.pi / 2) / n
    th = a0 + half
    e = np.array([math.cos(th), math.sin(th)])
    t = np.array([-e[1], e[0]])
    hw, dep = 0.0013, 0.0025
    sliver = _poly([PIV + e * (R - dep) + t * hw, PIV + e * (R + 0.5) + t * hw,
                    PIV + e * (R + 0.5) - t * hw, PIV + e * (R - dep) - t * hw])
    old_worst, old_n = _old_sampled_worst(sliver)
    assert old_n == n
    assert old_worst > -1e-3  # the old check saw nothing deeper than its threshold
    # yet with the corner on the sliver's axis the block is in it by more than that
    Rm = np.array([[math.cos(half), -math.sin(half)], [math.sin(half), math.cos(half)]])
    mid = BLOCK.moved((BLOCK.front - PIV) @ Rm.T + PIV, math.degrees(half))
    assert _sd(mid.footprint(), sliver, 0.0) < -1e-3
    assert _step_clear(BLOCK, WHEEL, [("sliver", sliver)]) == "sliver"


def test_turn_about_a_contact_point_that_only_touches_is_clear() -> None:
    # an align-like turn: the block turns about its front-right corner onto a wall
    # lying along the line its front edge ends on
    wall = _poly([(0.0, -2.0), (1.0, -2.0), (1.0, 5.0), (0.0, 5.0)])  # x in [0, 1]
    blk = BLOCK.moved(np.array([0.0, 0.0]) + np.array([-2 * math.sin(math.radians(10)), -2 + 2 * math.cos(math.radians(10))]), 10.0)
    FL, FR, _, _ = blk.corners()
    assert abs(FR[0]) < 1e-12 and abs(FR[1] + 2.0) < 1e-12
    assert _step_clear(blk, {"kind": "turn", "angle": -10.0, "pivot": [0.0, -2.0]}, [("wall", wall)]) is None
    # turning 0.001 degree too far swings the front-left corner into it
    assert _step_clear(blk, {"kind": "turn", "angle": -10.001, "pivot": [0.0, -2.0]}, [("wall", wall)]) == "wall"


def test_round_bases_turning_and_standing() -> None:
    # a disc turning about a point 3 away passes a disc standing on its path
    A = Disc((3.0, 0.0), 0.5)
    on_path = Disc((0.0, 3.0), 0.5)
    assert turn_overlap(A, np.zeros(2), math.pi / 2, on_path) is not None
    assert turn_overlap(A, np.zeros(2), math.pi / 4, on_path) is None  # stops short (gap > 0)
    # a disc exactly touching the arc's outer side (centre 3 + 1 away) is clear
    assert turn_overlap(A, np.zeros(2), math.pi, Disc((0.0, 4.0), 0.5)) is None
    assert turn_overlap(A, np.zeros(2), math.pi, Disc((0.0, 4.0 - 1e-4), 0.5)) is not None
    # a square turning past a disc, and a disc turning past a square
    sq = ConvexPolygon(((2.5, -0.5), (3.5, -0.5), (3.5, 0.5), (2.5, 0.5)))
    assert turn_overlap(sq, np.zeros(2), math.pi / 2, Disc((0.0, 3.0), 0.2)) is not None
    assert turn_overlap(A, np.zeros(2), math.pi / 2, ConvexPolygon(((-0.2, 2.9), (0.2, 2.9), (0.2, 3.1), (-0.2, 3.1)))) is not None
    assert turn_overlap(A, np.zeros(2), -math.pi / 2, ConvexPolygon(((-0.2, 2.9), (0.2, 2.9), (0.2, 3.1), (-0.2, 3.1)))) is None


@pytest.mark.parametrize("sgn", [1.0, -1.0])
def test_crossing_instants_are_closed_forms(sgn: float) -> None:
    # a point 2 from the pivot meets the line x = 1 where cos(angle) = 1/2
    p = np.array([2.0, 0.0])
    ev = arc_segment(np.zeros(2), p, sgn, np.array([1.0, -5.0]), np.array([1.0, 5.0]))
    assert sorted(ev) == pytest.approx([math.pi / 3, 2 * math.pi - math.pi / 3], abs=1e-12)
    ev = arc_circle(np.zeros(2), p, sgn, np.array([0.0, 2.0 * sgn]), 2.0 * math.sqrt(2 - math.sqrt(2)))
    # the circle of radius 2|sin(pi/8)| * 2 round (0, 2 sgn) meets p's circle at 45 and 135 degrees
    assert sorted(ev) == pytest.approx([math.pi / 4, 3 * math.pi / 4], abs=1e-9)
