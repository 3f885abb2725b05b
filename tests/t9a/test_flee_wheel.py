"""The wheel of a charge at a fleeing unit comes from constructed angles (no grid):
a closed-form case, and rotation and mirror invariance."""

from __future__ import annotations

import math

import numpy as np
from build import B20, scen, unit
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.systems.t9a.moves import reach_fleeing
from chargeref.systems.t9a.resolve import Phase


def _rot(p: np.ndarray, c: np.ndarray, a: float, mirror: bool) -> np.ndarray:
    q = p - c
    if mirror:
        q = np.array([-q[0], q[1]])
    r = math.radians(a)
    return c + np.array([math.cos(r) * q[0] - math.sin(r) * q[1], math.sin(r) * q[0] + math.cos(r) * q[1]])


def _case(theta_p: float, dist: float, spin: float = 0.0, mirror: bool = False):
    """A (4 wide) faces +y; the fleeing E's rear-right corner sits ``dist`` from A's
    front-left corner Q, ``theta_p`` degrees left of straight ahead, and E looks
    that way too (its body lies left of the line from Q to that corner)."""
    w = 4 * B20
    F = np.array([24.0, 12.0])
    Q = F + np.array([-w / 2, 0.0])
    h = math.radians(90 + theta_p)
    f1 = np.array([math.cos(h), math.sin(h)])
    l1 = np.array([-f1[1], f1[0]])
    p = Q + dist * f1
    wE, dE = 4 * B20, 2 * B20
    FE = p + l1 * wE / 2 + f1 * dE
    c = np.array([24.0, 24.0])
    sgn = -1 if mirror else 1
    Fm, FEm = _rot(F, c, spin, mirror), _rot(FE, c, spin, mirror)
    fa = (90 - 90) * sgn + 90 + spin if not mirror else 90 + spin
    fe = (90 + sgn * theta_p) + spin
    s = scen([unit("A", 1, tuple(Fm), fa, 4, 8), unit("E", 2, tuple(FEm), fe, 4, 8)], board=(60, 60))
    ph = Phase(s, 1)
    return ph.world, ph.world.blocks["A"], ph.world.blocks["E"], w


def test_wheel_until_the_pivot_corner_meets_the_fleers_corner_has_a_closed_form():
    # wheeling less misses E (it passes on A's left); wheeling more costs more than it
    # saves: the best wheel is exactly the bearing of E's corner from the pivot corner
    world, A, E, w = _case(30.0, 6.0)
    r = reach_fleeing(world, A, E, 30)
    assert r is not None
    assert r.wheel == __import__("pytest").approx(30.0, abs=1e-6)
    assert abs(r.distance - (w * math.radians(30.0) + 6.0)) <= 1e-6


@settings(max_examples=12, deadline=None, derandomize=True)
@given(theta_p=st.floats(5.0, 80.0), dist=st.floats(2.0, 10.0), spin=st.floats(0.0, 360.0), mirror=st.booleans())
@example(theta_p=45.0, dist=3.0, spin=123.4, mirror=True)
def test_rotated_and_mirrored_the_same(theta_p, dist, spin, mirror):
    world, A, E, w = _case(theta_p, dist, spin, mirror)
    r = reach_fleeing(world, A, E, 30)
    assert r is not None
    assert abs(r.distance - (w * math.radians(theta_p) + dist)) <= 1e-6
    assert abs(abs(r.wheel) - theta_p) <= 1e-6
    assert (r.wheel < 0) == mirror
