"""The tangent graph among smooth C-obstacles (geometry/smooth_graph.py).

* Common tangents of two grown circles written as ellipses with a = b match the
  closed form ``n = β ± acos((r1 − s·r2)/L)``.
* A round base passing two or three obstacles given as ellipses with a = b (so the
  planner must use the smooth graph) gets exactly the length the exact circle code
  gives for the same scene written with discs.
* With true ovals: rotating and mirroring the scene keeps the length; the recorded
  pieces are clear, joined and as long as reported.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.paths import Barrier, Planner, measure_path
from chargeref.geometry.shapes import Disc, Ellipse, Footprint
from chargeref.geometry.smooth import SmoothBody
from chargeref.geometry.smooth_graph import common_tangents

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
TWO_PI = 2 * math.pi


def wrap(a: float) -> float:
    return (a + math.pi) % TWO_PI - math.pi


@SETTINGS
@given(r1=st.floats(0.2, 2.0), r2=st.floats(0.2, 2.0), L=st.floats(0.5, 8.0), beta=st.floats(0, TWO_PI))
@example(r1=1.0, r2=1.0, L=3.0, beta=0.0)
def test_common_tangents_of_circles(r1, r2, L, beta):
    c1 = np.array([1.0, 2.0])
    c2 = c1 + L * np.array([math.cos(beta), math.sin(beta)])
    if L <= abs(r1 - r2) + 1e-6:
        return  # one inside the other: no tangent
    K1 = SmoothBody(((float(c1[0]), float(c1[1]), r1 * 0.6, r1 * 0.6, 0.3),), ((0.0, 0.0),), r1 * 0.4)
    K2 = SmoothBody(((float(c2[0]), float(c2[1]), r2, r2, 1.0),))
    got, complete = common_tangents(K1, K2)
    expect = []
    for s in (1.0, -1.0):
        k = (r1 - s * r2) / L
        if abs(k) <= 1:
            for sg in (1, -1):
                expect.append(beta + sg * math.acos(k))
    if L > r1 + r2 + 1e-6:
        assert complete and len(got) == 4
    for e in expect:
        assert min(abs(wrap(g[0] - e)) for g in got) < 1e-9
    for phi1, o1, phi2, o2 in got:
        # the line touches both: same support line
        u = np.array([math.cos(phi1), math.sin(phi1)])
        p1, p2 = K1.point(phi1), K2.point(phi2)
        assert abs(float((p2 - p1) @ u)) < 1e-9
        # and travelling from 1 to 2 goes round each as stated
        t1 = np.array([-math.sin(phi1), math.cos(phi1)]) * o1
        t2 = np.array([-math.sin(phi2), math.cos(phi2)]) * o2
        d = p2 - p1
        assert d @ t1 > 0 and d @ t2 > 0


def fp_disc(c, r):
    return Footprint((Disc(c, r),), "round", c)


def fp_circle_as_ellipse(c, r, th):
    return Footprint((Ellipse(c, r, r, th),), "oval", c)


def transform(th: float, mirror: bool):
    R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    M = np.diag([1.0, -1.0]) if mirror else np.eye(2)
    A = R @ M

    def f(p):
        return tuple(float(v) for v in A @ np.asarray(p, dtype=float))

    def ang(t: float) -> float:
        return th + (-t if mirror else t)

    return f, ang


@SETTINGS
@given(
    y1=st.floats(-1.0, 1.0), y2=st.floats(-1.0, 1.0), r1=st.floats(0.5, 1.5), r2=st.floats(0.5, 1.5),
    gap=st.floats(0.2, 3.0), rb=st.floats(0.3, 0.8), third=st.booleans(),
)
@example(y1=0.3, y2=-0.4, r1=1.0, r2=1.2, gap=1.0, rb=0.5, third=True)
def test_circles_as_ellipses_match_the_circle_code(y1, y2, r1, r2, gap, rb, third):
    c1 = (10.0, 10.0 + y1)
    c2 = (10.0 + r1 + r2 + 2 * rb + gap, 10.0 + y2)
    c3 = (c2[0] - 0.5, c2[1] + r2 + rb + 1.1)
    start, goal = (5.0, 10.1), (c2[0] + 6.0, 10.2)
    discs = [fp_disc(c1, r1), fp_disc(c2, r2)] + ([fp_disc(c3, 0.4)] if third else [])
    ovals = [fp_circle_as_ellipse(c1, r1, 0.7), fp_circle_as_ellipse(c2, r2, 2.0)] + (
        [fp_circle_as_ellipse(c3, 0.4, 0.1)] if third else [])
    base = fp_disc(start, rb)
    ref = Planner([Barrier(f, None, f"d{i}") for i, f in enumerate(discs)]).plan(base, goal)
    pl = Planner([Barrier(f, None, f"o{i}") for i, f in enumerate(ovals)])
    got = pl.plan(base, goal)
    assert ref is not None and got is not None
    assert ref.exact
    assert got.exact
    assert got.length == pytest.approx(ref.length, abs=1e-6)
    chk = measure_path(base, got.segments, pl.barriers)
    assert chk.blocked == ()
    assert chk.length == pytest.approx(got.length, abs=1e-9)


@SETTINGS
@given(rot=st.floats(0, TWO_PI), mirror=st.booleans(), th1=st.floats(0, math.pi), th2=st.floats(0, math.pi))
@example(rot=0.0, mirror=False, th1=0.3, th2=1.3)
def test_two_ovals_and_a_rock_rotated_and_mirrored(rot, mirror, th1, th2):
    def scene(f, ang):
        bars = [
            Barrier(Footprint((Ellipse(f((20.0, 15.0)), 2.0, 1.0, ang(th1)),), "oval", f((20.0, 15.0))), None, "a"),
            Barrier(Footprint((Ellipse(f((25.0, 16.5)), 1.5, 0.8, ang(th2)),), "oval", f((25.0, 16.5))), None, "b"),
            Barrier(fp_disc(f((22.5, 13.2)), 0.7), None, "rock"),
        ]
        base = fp_disc(f((14.0, 15.5)), 0.5)
        return Planner(bars), base, f((30.0, 15.2))

    pl0, b0, g0 = scene(*transform(0.0, False))
    ref = pl0.plan(b0, g0)
    pl, base, g = scene(*transform(rot, mirror))
    got = pl.plan(base, g)
    assert ref is not None and got is not None and ref.exact and got.exact
    assert got.length == pytest.approx(ref.length, abs=1e-6)
    chk = measure_path(base, got.segments, pl.barriers)
    assert chk.blocked == ()
    assert chk.length == pytest.approx(got.length, abs=1e-9)
