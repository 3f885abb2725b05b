"""Exact shortest paths against closed forms, rotated and mirrored.

Round a round base (the C-obstacle is a disc of radius r_base + r_obstacle) and round
the end of a wall (a capsule: the C-obstacle is a capsule of radius r_base + half the
thickness), the shortest path is tangent, arc, tangent, and its length has a closed
form. The planner must return that length within 1e-6 whatever the graph's resolution,
and the same length after the whole scene is rotated by any angle and mirrored."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.paths import Barrier, Planner, measure_path
from chargeref.geometry.shapes import Capsule, Disc, Footprint

SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


def transform(th: float, mirror: bool):
    c, s = math.cos(th), math.sin(th)
    R = np.array([[c, -s], [s, c]])
    M = np.diag([1.0, -1.0]) if mirror else np.eye(2)
    A = R @ M

    def f(p):
        return tuple(float(v) for v in A @ np.asarray(p, dtype=float))

    return f


def disc_base(p, r: float) -> Footprint:
    return Footprint((Disc(p, r),), "round", p)


def around_disc(s, g, c, rho: float) -> float:
    """Closed form: the straight line if it clears the disc, else the shorter of the two
    tangent-arc-tangent paths."""
    s, g, c = (np.asarray(v, dtype=float) for v in (s, g, c))
    ds, dg = float(np.hypot(*(s - c))), float(np.hypot(*(g - c)))
    th = math.acos(max(-1.0, min(1.0, float((s - c) @ (g - c)) / (ds * dg))))
    phi = th - math.acos(min(1.0, rho / ds)) - math.acos(min(1.0, rho / dg))
    if phi <= 0:
        return float(np.hypot(*(g - s)))
    return math.sqrt(max(0.0, ds * ds - rho * rho)) + math.sqrt(max(0.0, dg * dg - rho * rho)) + rho * phi


def cross2(u, v) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def seg_dist(p, a, b) -> float:
    p, a, b = (np.asarray(v, dtype=float) for v in (p, a, b))
    d = b - a
    t = min(1.0, max(0.0, float((p - a) @ d) / float(d @ d)))
    return float(np.hypot(*(p - a - t * d)))


def check(planner: Planner, base: Footprint, goal, expected: float) -> None:
    res = planner.plan(base, goal)
    assert res is not None
    assert res.exact
    assert abs(res.length - expected) <= 1e-6
    # the recorded pieces are the path: joined, clear, and as long as reported
    chk = measure_path(base, res.segments, planner.barriers)
    assert chk.blocked == ()
    assert chk.length == pytest.approx(res.length, abs=1e-12)
    assert res.segments[-1]["to"] == pytest.approx(list(goal), abs=1e-9)


@SETTINGS
@given(
    r=st.floats(0.4, 1.2),
    R=st.floats(0.4, 2.5),
    a=st.floats(0.0, 2 * math.pi),
    th=st.floats(0.2, math.pi),
    ks=st.floats(1.0, 5.0),
    kg=st.floats(1.0, 5.0),
    rot=st.floats(0.0, 2 * math.pi),
    mirror=st.booleans(),
    segments=st.sampled_from([8, 16, 48]),
)
@example(r=0.5, R=1.0, a=math.pi, th=math.pi, ks=10 / 3, kg=10 / 3, rot=0.0, mirror=False, segments=48)
@example(r=0.5, R=1.25, a=0.3, th=2.0, ks=1.0, kg=1.0, rot=1.234, mirror=True, segments=8)
def test_round_base_past_round_base(r, R, a, th, ks, kg, rot, mirror, segments):
    rho = r + R
    c = np.array([20.0, 15.0])
    s = c + rho * ks * np.array([math.cos(a), math.sin(a)])
    g = c + rho * kg * np.array([math.cos(a + th), math.sin(a + th)])
    expected = around_disc(s, g, c, rho)
    assume(expected > float(np.hypot(*(g - s))) + 1e-6)  # the straight line is blocked
    f = transform(rot, mirror)
    planner = Planner([Barrier(disc_base(f(c), R), None, "rock")], segments=segments)
    check(planner, disc_base(f(s), r), f(g), expected)


@SETTINGS
@given(
    r=st.floats(0.4, 1.5),
    t=st.floats(0.05, 0.5),
    th1=st.floats(0.0, math.pi),
    th2=st.floats(0.0, math.pi),
    ls=st.floats(0.5, 6.0),
    lg=st.floats(0.5, 6.0),
    rot=st.floats(0.0, 2 * math.pi),
    mirror=st.booleans(),
)
@example(r=1.0, t=0.25, th1=math.pi, th2=0.0, ls=3.0, lg=3.0, rot=0.0, mirror=False)
@example(r=0.63, t=0.1, th1=2.5, th2=0.4, ls=4.0, lg=1.0, rot=2.0, mirror=True)
def test_round_base_round_the_end_of_a_wall(r, t, th1, th2, ls, lg, rot, mirror):
    """The wall runs from (0, -30) up to its end at the origin (a capsule of radius t).
    The path comes up the left, wraps the end clockwise from normal th1 to th2 and
    leaves: tangent ls, arc rho*(th1 - th2), tangent lg."""
    assume(th1 - th2 > 0.05)
    rho = r + t
    o = np.array([30.0, 40.0])
    p0, p1 = o + np.array([0.0, -30.0]), o
    T1 = p1 + rho * np.array([math.cos(th1), math.sin(th1)])
    T2 = p1 + rho * np.array([math.cos(th2), math.sin(th2)])
    d1 = np.array([math.sin(th1), -math.cos(th1)])  # clockwise travel direction
    d2 = np.array([math.sin(th2), -math.cos(th2)])
    s, g = T1 - ls * d1, T2 + lg * d2
    # the straight line must run into the wall (else it is the answer)
    A, B = s, g
    d = B - A
    # distance between segment sg and the wall's core segment p0p1 (they cross, or an end)
    crosses = (cross2(d, p0 - A) * cross2(d, p1 - A) < 0) and (
        cross2(p1 - p0, A - p0) * cross2(p1 - p0, B - p0) < 0
    )
    gap = 0.0 if crosses else min(
        seg_dist(p0, A, B), seg_dist(p1, A, B), seg_dist(A, p0, p1), seg_dist(B, p0, p1)
    )
    assume(gap < rho - 1e-3)
    expected = ls + rho * (th1 - th2) + lg
    f = transform(rot, mirror)
    wall = Barrier(Footprint((Capsule(f(p0), f(p1), t),), "wall"), None, "wall")
    check(Planner([wall]), disc_base(f(s), r), f(g), expected)


def test_monster_round_a_ruin_wall_end_needs_the_exact_distance():
    """A 60 mm base (r = 1.181") detours round the end of a 0.5"-thick wall: the exact
    length is tangent + arc + tangent round the wall's end, within 1e-9."""
    r = 30 / 25.4
    t = 0.25
    rho = r + t
    wall = Barrier(Footprint((Capsule((10.0, 0.0), (10.0, 10.0), t),), "wall"), None, "w")
    s, g = (7.0, 9.5), (13.0, 9.5)
    c = (10.0, 10.0)
    # over the top of the end circle (below it is the wall): the angle between the
    # two centre rays measured over the top, less the two tangent angles
    ds = math.dist(s, c)
    below = math.acos(((s[0] - c[0]) * (g[0] - c[0]) + (s[1] - c[1]) * (g[1] - c[1])) / ds**2)
    wrap = 2 * math.pi - below - 2 * math.acos(rho / ds)
    expected = 2 * math.sqrt(ds * ds - rho * rho) + rho * wrap
    assert wrap > 0
    # both tangent points lie on the end cap (normals pointing up)
    a = math.atan2(s[1] - c[1], s[0] - c[0]) % (2 * math.pi)
    assert math.sin(a - math.acos(rho / ds)) > 0
    res = Planner([wall], segments=48).plan(disc_base(s, r), g)
    assert res.exact
    assert res.length == pytest.approx(expected, abs=1e-9)
    arcs = [p for p in res.segments if p["kind"] == "arc"]
    assert len(arcs) == 1 and arcs[0]["center"] == pytest.approx(list(c), abs=1e-12)
