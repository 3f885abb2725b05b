"""geometry/placement.py: constructed spots against closed forms and exact distances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.bases import base_footprint
from chargeref.geometry.placement import (
    OffsetCurve,
    circle_crossings,
    circles_crossings_many,
    corner_circles,
    grown,
    locus_circle_crossings,
    locus_crossings,
    locus_nearest,
    sd_at,
    tangent_points,
)
from chargeref.geometry.shapes import Footprint, signed_distance

MM = 25.4
FAST = settings(max_examples=25, deadline=None, derandomize=True)
coord = st.floats(-10, 10, allow_nan=False)
rad = st.floats(0.1, 6, allow_nan=False)


@FAST
@given(coord, coord, rad, coord, coord, rad)
@example(0.0, 0.0, 1.0, 2.0, 0.0, 1.0)  # tangent from outside: one point
@example(0.0, 0.0, 2.0, 1.0, 0.0, 1.0)  # tangent from inside: one point
@example(0.0, 0.0, 1.0, 0.0, 0.0, 1.0)  # same circle: no finite set of points
def test_circle_crossings_lie_on_both_circles(x1: float, y1: float, r1: float, x2: float, y2: float, r2: float) -> None:
    P = circle_crossings(np.array([x1, y1]), r1, np.array([x2, y2]), r2)
    d = math.hypot(x2 - x1, y2 - y1)
    if d == 0 or d > r1 + r2 + 1e-12 or d < abs(r1 - r2) - 1e-12:
        assert len(P) == 0
        return
    assert len(P) in (1, 2)
    for p in P:
        assert math.hypot(p[0] - x1, p[1] - y1) == pytest.approx(r1, abs=1e-9)
        assert math.hypot(p[0] - x2, p[1] - y2) == pytest.approx(r2, abs=1e-9)
    M = circles_crossings_many(np.array([[x1, y1]]), [r1], np.array([[x2, y2]]), [r2])
    assert len(M) == 2 * (len(P) > 0)


def test_circle_crossings_threshold_at_touching() -> None:
    # two circles 2.000 apart with radii 1 and 1 touch (one point); 2.001 apart: none
    assert len(circle_crossings(np.zeros(2), 1.0, np.array([2.0, 0.0]), 1.0)) == 1
    assert len(circle_crossings(np.zeros(2), 1.0, np.array([2.001, 0.0]), 1.0)) == 0


@FAST
@given(st.sampled_from(["oval", "rect"]), st.floats(0, 360), st.floats(0, 2), st.floats(0, 2 * math.pi))
@example("rect", 0.0, 0.0, 0.0)  # the start straight in front of a flat face
@example("rect", 45.0, 1.0, math.pi / 4)  # straight at a corner
def test_locus_nearest_is_on_the_locus_and_nearest(kind: str, facing: float, d: float, phi: float) -> None:
    dims = (90, 52) if kind == "oval" else (60, 35)
    t = base_footprint(kind, dims, (0.0, 0.0), facing, MM)
    m = base_footprint("round", 32, (0.0, 0.0), 90, MM)
    p = 6.0 * np.array([math.cos(phi), math.sin(phi)])
    q = locus_nearest(m, t, d, p)
    assert len(q) == 1
    assert sd_at(m, q, t)[0] == pytest.approx(d, abs=1e-9)
    # no point of the locus is nearer (the oracle samples the curve densely: a test
    # oracle, not a way of building spots)
    cur = OffsetCurve(m, t, d)
    th = np.linspace(0, 2 * math.pi, 20001)
    dense = np.vstack([cur.at(k, th) for k in range(len(cur.pieces))])
    assert float(np.min(np.hypot(*(dense - p).T))) >= float(np.hypot(*(q[0] - p))) - 1e-9


@FAST
@given(st.sampled_from(["oval", "rect", "round"]), st.floats(0, 360), st.floats(-3, 3), st.floats(-3, 3))
@example("round", 90.0, 2.5, 0.0)
def test_two_loci_cross_at_both_gaps(kind: str, facing: float, dx: float, dy: float) -> None:
    dims = {"oval": (90, 52), "rect": (60, 35), "round": 40}[kind]
    t = base_footprint(kind, dims, (0.0, 0.0), facing, MM)
    o = base_footprint("round", 32, (2.0 + dx, 1.0 + dy), 90, MM)
    if signed_distance(t, o) < 0:
        return
    m = base_footprint("rect", (60, 35), (0.0, 0.0), 20, MM)
    X = locus_crossings(m, t, 1.0, o, 2.0)
    for x in X:
        assert sd_at(m, x[None], t)[0] == pytest.approx(1.0, abs=1e-7)
        assert sd_at(m, x[None], o)[0] == pytest.approx(2.0, abs=1e-7)


def test_locus_circle_crossings_closed_form_round() -> None:
    # round mover (r) round a round target (R) at gap 1: the locus is a circle of radius
    # r + R + 1; a straight move of rho from c meets it where the two circles cross
    m = base_footprint("round", 32, (0.0, 0.0), 90, MM)
    t = base_footprint("round", 40, (5.0, 0.0), 90, MM)
    X = locus_circle_crossings(m, t, 1.0, np.zeros(2), 4.0)
    rl = 16 / MM + 20 / MM + 1.0
    x = (4.0**2 - rl**2 + 25.0) / 10.0
    y = math.sqrt(16.0 - x * x)
    assert sorted(map(tuple, np.round(X, 12))) == sorted([(round(x, 12), round(y, 12)), (round(x, 12), round(-y, 12))])


def test_grown_is_the_exact_offset() -> None:
    rect = base_footprint("rect", (60, 35), (3.0, 2.0), 30, MM)
    g = grown(rect, 1.0)
    pts = np.array([[7.0, 2.0], [3.0, 6.0], [0.0, 0.0]])
    for p in pts:
        dot = Footprint((base_footprint("round", 1e-6, p, 90, MM).parts[0],))
        assert signed_distance(dot, g) == pytest.approx(signed_distance(dot, rect) - 1.0, abs=1e-6)


def test_tangent_points_closed_form() -> None:
    T = tangent_points(np.array([5.0, 0.0]), np.zeros(2), 3.0)
    # tangent length 4 (3-4-5): each point is 3 from the centre and 4 from p
    for q in T:
        assert math.hypot(*q) == pytest.approx(3.0, abs=1e-12)
        assert math.hypot(q[0] - 5.0, q[1]) == pytest.approx(4.0, abs=1e-12)
    assert len(tangent_points(np.array([3.0, 0.0]), np.zeros(2), 3.0)) == 0  # on the circle


def test_corner_circles_of_a_wall() -> None:
    from chargeref.geometry.bases import wall_footprint

    w = wall_footprint([(0.0, 0.0), (4.0, 0.0)], 0.6)
    cc = corner_circles(w, 0.5)
    assert cc, "a wall has round ends (or corners) to wrap round"
    assert all(r >= 0.5 - 1e-12 for _, r in cc)


@FAST
@given(st.floats(0, 360), st.floats(-4, 4), st.floats(-4, 4), st.floats(0.5, 5), st.sampled_from(["rect", "wall"]))
@example(0.0, 0.0, 2.0, 1.5, "rect")
def test_closed_form_polygon_crossings_match_the_root_finder(facing: float, cx: float, cy: float, R: float, kind: str) -> None:
    """circle x rounded polygon in closed form: every point is at both gaps, and the
    generic root finder (brentq on the offset curve) finds the same points."""
    from chargeref.geometry.bases import wall_footprint

    m = base_footprint("round", 32, (0.0, 0.0), 90, MM)
    if kind == "rect":
        t = base_footprint("rect", (60, 35), (0.0, 0.0), facing, MM)
    else:
        a = np.array([math.cos(math.radians(facing)), math.sin(math.radians(facing))])
        t = wall_footprint([tuple(-2 * a), tuple(2 * a)], 0.6)
    o = base_footprint("round", 40, (cx, cy), 90, MM)
    X = locus_crossings(m, t, 0.5, o, 1.0)
    for x in X:
        assert sd_at(m, x[None], t)[0] == pytest.approx(0.5, abs=1e-7)
        assert sd_at(m, x[None], o)[0] == pytest.approx(1.0, abs=1e-7)
    Y = OffsetCurve(m, o, 1.0).roots(lambda P: sd_at(m, P, t) - 0.5)
    assert len(X) == len(Y)
    for y in Y:
        assert float(np.min(np.hypot(*(X - y).T))) <= 1e-6
