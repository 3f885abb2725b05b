"""The locus round a capsule (a wall piece) has two straight sides: the root finder
walking it must treat them as flat faces (corners of the support angle), or it jumps
across them and loses the crossings there. Checked against the closed form of a
stadium meeting a circle, turned and mirrored."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.placement import OffsetCurve
from chargeref.geometry.shapes import Capsule, Disc, Footprint

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def stadium_circle(a, b, R, q, rho):
    """Crossings of the stadium {x: dist(x, segment ab) = R} with the circle |x - q| = rho."""
    a, b, q = (np.asarray(v, dtype=float) for v in (a, b, q))
    out = []
    u = (b - a) / np.linalg.norm(b - a)
    n = np.array([-u[1], u[0]])
    L = float(np.linalg.norm(b - a))
    for s in (1.0, -1.0):  # the straight sides: a + t u + s R n, t in [0, L]
        p0 = a + s * R * n
        w = p0 - q
        # |w + t u|^2 = rho^2
        B, C = float(w @ u), float(w @ w) - rho * rho
        disc = B * B - C
        if disc < 0:
            continue
        for t in (-B - math.sqrt(disc), -B + math.sqrt(disc)):
            if 0.0 <= t <= L:
                out.append(p0 + t * u)
    for c, side in ((a, -1.0), (b, 1.0)):  # the round ends, on the outer half only
        d = float(np.linalg.norm(q - c))
        if d == 0 or d > R + rho or d < abs(R - rho):
            continue
        x = (d * d + R * R - rho * rho) / (2 * d)
        h = math.sqrt(max(R * R - x * x, 0.0))
        e = (q - c) / d
        f = np.array([-e[1], e[0]])
        for sg in (1.0, -1.0):
            p = c + x * e + sg * h * f
            if side * float((p - c) @ u) >= 0.0:
                out.append(p)
    return np.array(out).reshape(-1, 2)


def _match(got: np.ndarray, want: np.ndarray) -> None:
    assert len(got) == len(want), (got, want)
    for p in want:
        assert float(np.min(np.hypot(*(got - p).T))) <= 1e-7


@SETTINGS
@given(L=st.floats(0.5, 6.0), rw=st.floats(0.05, 0.5), rm=st.floats(0.3, 1.0), d=st.floats(0.0, 2.0),
       turn=st.floats(0.0, 2 * math.pi), t=st.floats(0.1, 0.9), off=st.floats(-0.9, 0.9), rho=st.floats(0.3, 2.5))
@example(L=4.0, rw=0.1, rm=0.63, d=1.0, turn=0.0, t=0.5, off=0.0, rho=1.0)
def test_roots_on_the_straight_sides_of_a_capsule_locus(L, rw, rm, d, turn, t, off, rho) -> None:
    """A circle centred near the capsule's side crosses the locus's straight side."""
    c, s = math.cos(turn), math.sin(turn)
    a = np.array([10.0, 10.0])
    b = a + L * np.array([c, s])
    n = np.array([-s, c])
    R = rw + rm + d
    q = a + t * (b - a) + (R + off * rho) * n  # the circle straddles the straight side
    wall = Footprint((Capsule(tuple(a), tuple(b), rw),))
    mover = Footprint((Disc((0.0, 0.0), rm),))
    cur = OffsetCurve(mover, wall, d)
    got = cur.roots(lambda P: np.hypot(*(np.atleast_2d(P) - q).T) - rho, g_lip=1.0)
    _match(np.asarray(got).reshape(-1, 2), stadium_circle(a, b, R, q, rho))


@pytest.mark.parametrize("mirror", [False, True])
def test_a_circle_inside_the_straight_side_band(mirror: bool) -> None:
    """A small circle whose two crossings both lie on one straight side (the case the
    corner-less walk jumped across): both are found."""
    sy = -1.0 if mirror else 1.0
    R = 0.1 + 0.5 + 0.25
    q = np.array([3.0, sy * R])
    cur = OffsetCurve(Footprint((Disc((0.0, 0.0), 0.5),)), Footprint((Capsule((0.0, 0.0), (6.0, 0.0), 0.1),)), 0.25)
    got = np.asarray(cur.roots(lambda P: np.hypot(*(np.atleast_2d(P) - q).T) - 0.3, g_lip=1.0)).reshape(-1, 2)
    want = np.array([[3.0 - 0.3, sy * R], [3.0 + 0.3, sy * R]])
    _match(got, want)
