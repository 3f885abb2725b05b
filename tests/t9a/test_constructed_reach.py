"""The reach table's align angles are constructed (``reach._critical_deltas``), so the
least distance of a charge that needs a wheel is exact: a charge range of exactly that
distance succeeds and 0.001" less fails, the needed distance does not move when the
table is rotated or mirrored, and the trigonometric-polynomial roots are exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import SYSTEM, scen, unit
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.systems import ChargeRequest
from chargeref.systems.t9a.detour import PROVE_TOL
from chargeref.systems.t9a.trigpoly import TP


def _scenario(dx: float, dy: float, facing: float, spin: float = 0.0, mirror: bool = False, ar: float = 4.0):
    c = np.array([30.0, 30.0])

    def tr(p):
        q = np.asarray(p, float) - c
        if mirror:
            q = np.array([-q[0], q[1]])
        r = math.radians(spin)
        return tuple(c + [math.cos(r) * q[0] - math.sin(r) * q[1], math.sin(r) * q[0] + math.cos(r) * q[1]])

    def tf(f):
        return ((180.0 - f) if mirror else f) + spin

    return scen([unit("T", 2, tr((30.0, 30.0)), tf(90.0), 5, 10),
                 unit("A", 1, tr((30.0 + dx, 30.0 + dy)), tf(facing), 4, 8, advance_rate=ar)], board=(60, 60))


def _needed(s) -> float:
    n = SYSTEM.needed(s, ChargeRequest("A", ("T",)))
    assert n.distance is not None
    return n.distance


@pytest.mark.parametrize("dx, dy, facing", [(-4.0, 6.0, 300.0), (3.5, 7.0, 235.0), (-6.0, 3.0, 330.0)])
def test_a_range_of_exactly_the_needed_distance_succeeds(dx, dy, facing):
    d = _needed(_scenario(dx, dy, facing))
    ok = SYSTEM.charge(_scenario(dx, dy, facing, ar=d - 2), ChargeRequest("A", ("T",), dice=(1, 1)))
    short = SYSTEM.charge(_scenario(dx, dy, facing, ar=d - 2 - 0.001), ChargeRequest("A", ("T",), dice=(1, 1)))
    assert ok.success and abs(ok.details["placement"]["wheel"]) > 1.0
    assert not short.success


@settings(max_examples=6, deadline=None, derandomize=True)
@given(spin=st.floats(0.0, 360.0), mirror=st.booleans())
@example(spin=37.0, mirror=True)
def test_needed_is_the_same_rotated_and_mirrored(spin, mirror):
    base = _needed(_scenario(-4.0, 6.0, 300.0))
    assert _needed(_scenario(-4.0, 6.0, 300.0, spin, mirror)) == pytest.approx(base, abs=1e-6)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(a=st.floats(-3, 3), b=st.floats(-3, 3), c=st.floats(-2, 2), p=st.floats(-2, 2), q=st.floats(-2, 2))
@example(a=1.0, b=0.0, c=0.0, p=0.0, q=0.0)
def test_trig_roots_are_every_real_root(a, b, c, p, q):
    # g(x) = a cos x + b sin x + c + p cos 2x + q sin 2x
    C, S = TP.cos(), TP.sin()
    g = C * a + S * b + c + (C * C - S * S) * p + (C * S) * (2 * q)

    def f(x):
        return a * math.cos(x) + b * math.sin(x) + c + p * math.cos(2 * x) + q * math.sin(2 * x)

    roots = g.roots(-math.pi, math.pi)
    for x in roots:
        assert abs(f(x)) <= 1e-9 * (1 + abs(a) + abs(b) + abs(c) + abs(p) + abs(q))
    # every sign change on a fine scan lies within 1e-9 of a reported root
    xs = np.linspace(-math.pi, math.pi, 4001)
    fx = np.array([f(x) for x in xs])
    for i in np.nonzero(np.sign(fx[:-1]) * np.sign(fx[1:]) < 0)[0]:
        assert any(xs[i] - 1e-9 <= r <= xs[i + 1] + 1e-9 for r in roots)


def _blocked_case(with_friend: bool):
    units = [unit("T", 2, (60.0, 60.0), 90.0, 6, 18),
             unit("B", 1, (65.97085501220403, 61.05282283654994), 177.59326703482097, 4, 7)]
    if with_friend:
        units.append(unit("A", 1, (60.784499454463635, 62.89561057567247), 242.43419236389937, 5, 5))
    return scen(units, board=(120, 120))


def test_a_distance_found_among_alternatives_says_what_it_proves():
    # a friend stands where B's shortest approach would go: the distance comes from
    # the certified search (``detour``), and the ruling gives its proven lower bound,
    # within PROVE_TOL of the least approach overlapping the friend by up to
    # SEARCH_SLACK (the distance, settled onto the touch, is at most about 1e-6 more:
    # detour_touch) and above the unobstructed least distance (the same charge with
    # the friend taken away)
    free = SYSTEM.needed(_blocked_case(False), ChargeRequest("B", ("T",)))
    got = SYSTEM.needed(_blocked_case(True), ChargeRequest("B", ("T",)))
    assert free.exact is None and free.lower_bound == free.distance
    assert got.distance > free.distance + 0.1
    assert free.distance < got.lower_bound <= got.distance <= got.lower_bound + PROVE_TOL + 1e-6
    assert got.exact is True
