"""40k charges round an oval base: exact length, threshold, rotation and mirror.

A round model (32 mm) charges a round target (32 mm) straight behind a friendly oval
vehicle (120 x 92 mm) that edition 9 does not let it cross. Its least move is the
shortest path from its centre round the oval grown by its radius to the target's
centre, less the distance at which it engages (both radii and 1"): a tangent, an arc
of the grown ellipse and a tangent (geometry.smooth is checked against an independent
quartic / elliptic-integral reference in tests/geometry/test_smooth_paths.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from chargeref import ChargeRequest, find_system, scenario_from_data
from chargeref.geometry.smooth import SmoothBody
from chargeref.testing import assert_legal_charge

S = find_system("40k")
MM = 25.4
W, D = 60.0, 44.0
RA = 16 / MM
OVAL = (120.0, 92.0)
SETTINGS = settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def scen(a_at, o_at, facing, b_at, edition=9):
    return {
        "format": "chargeref/1", "system": "40k", "rules": {"edition": edition},
        "board": {"width": W, "depth": D},
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"],
             "models": [{"id": "A1", "at": list(a_at), "base": {"round": 32}}]},
            {"id": "F", "player": 1, "keywords": ["VEHICLE"],
             "models": [{"id": "F1", "at": list(o_at), "base": {"oval": list(OVAL)}, "facing": facing}]},
            {"id": "B", "player": 2, "keywords": ["INFANTRY"],
             "models": [{"id": "B1", "at": list(b_at), "base": {"round": 32}}]},
        ],
    }


def expected(a_at, o_at, facing, b_at) -> float:
    """Shortest path from A1's centre round the grown oval to B1's centre, less the
    engagement distance (the last tangent heads for B1's centre)."""
    K = SmoothBody(((o_at[0], o_at[1], OVAL[0] / 2 / MM, OVAL[1] / 2 / MM, math.radians(facing)),),
                   ((0.0, 0.0),), RA)
    s, g = np.asarray(a_at, float), np.asarray(b_at, float)
    ts, tg = K.tangent_normals(s), K.tangent_normals(g)
    best = math.inf
    for ccw in (True, False):
        fa, fb = (ts[0], tg[1]) if ccw else (ts[1], tg[0])
        lo, span = (fa, (fb - fa) % (2 * math.pi)) if ccw else (fb, (fa - fb) % (2 * math.pi))
        side = (1, -1) if ccw else (-1, 1)
        L = (math.dist(s, K.point(fa, side[0])) + K.length(lo, span) + math.dist(K.point(fb, side[1]), g))
        best = min(best, L)
    return best - (2 * RA + 1.0)


def transform(rot_deg: float, mirror: bool):
    th = math.radians(rot_deg)
    c0 = np.array([W / 2, D / 2])
    R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])

    def p(xy):
        v = np.asarray(xy, float) - c0
        if mirror:
            v = np.array([v[0], -v[1]])
        return tuple(float(x) for x in R @ v + c0)

    def f(deg):
        return rot_deg + (-deg if mirror else deg)

    return p, f


A0, O0, B0 = (16.0, 22.3), (20.0, 22.0), (24.5, 22.0)


def test_needed_distance_is_the_closed_form():
    need = S.needed(scenario_from_data(scen(A0, O0, 90.0, B0)), ChargeRequest("A", ("B",)))
    want = expected(A0, O0, 90.0, B0)
    # the straight line would need 6.245": the oval makes it longer
    assert want > 8.0
    assert need.distance == pytest.approx(want, abs=1e-6)
    assert need.roll == math.ceil(want - 1e-6)


def test_charge_round_the_oval_is_legal_and_follows_the_curve():
    data = scen(A0, O0, 90.0, B0)
    sc = scenario_from_data(data)
    r = S.charge(sc, ChargeRequest("A", ("B",), dice=(4, 5)))
    assert r.success
    assert_legal_charge(sc, r)
    mv = r.moves[0]
    assert any(seg["kind"] == "curve" for seg in mv.segments)
    r = S.charge(sc, ChargeRequest("A", ("B",), dice=(4, 4)))
    assert not r.success


@pytest.mark.parametrize("extra, ok", [(-1e-3, True), (1e-3, False)])
def test_threshold_at_exactly_nine_inches(extra, ok):
    """B1 moved along the line so that the least move is 9.000 ± 0.001": a roll of 9
    makes it exactly when the closed form says so."""
    bx = brentq(lambda x: expected(A0, O0, 90.0, (x, 22.0)) - 9.0, 24.0, 30.0, xtol=1e-12)
    # shift the target along the last tangent direction: the length changes by the shift
    bx2 = brentq(lambda x: expected(A0, O0, 90.0, (x, 22.0)) - (9.0 + extra), 24.0, 30.0, xtol=1e-12)
    assert abs(bx2 - bx) > 5e-4
    data = scen(A0, O0, 90.0, (bx2, 22.0))
    sc = scenario_from_data(data)
    need = S.needed(sc, ChargeRequest("A", ("B",)))
    assert need.distance == pytest.approx(9.0 + extra, abs=1e-6)
    r = S.charge(sc, ChargeRequest("A", ("B",), dice=(4, 5)))
    assert r.success is ok
    if ok:
        assert_legal_charge(sc, r)


@SETTINGS
@given(rot=st.floats(0.0, 360.0), mirror=st.booleans(), facing=st.floats(45.0, 135.0))
@example(rot=0.0, mirror=False, facing=90.0)
@example(rot=123.4, mirror=True, facing=70.0)
def test_rotation_and_mirror_invariance(rot, mirror, facing):
    p, f = transform(rot, mirror)
    want = expected(A0, O0, facing, B0)
    need = S.needed(scenario_from_data(scen(p(A0), p(O0), f(facing), p(B0))), ChargeRequest("A", ("B",)))
    assert need.distance == pytest.approx(want, abs=1e-6)
    assert need.roll == math.ceil(want - 1e-6)
