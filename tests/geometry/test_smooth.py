"""Smooth convex bodies (ellipses + polygon + disc) against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy.special import ellipe

from chargeref.geometry.shapes import Capsule, ConvexPolygon, Disc, Ellipse, Sum
from chargeref.geometry.smooth import SmoothBody, c_obstacle_body

SETTINGS = settings(
    max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


def ramanujan2(a: float, b: float) -> float:
    h = ((a - b) / (a + b)) ** 2
    return math.pi * (a + b) * (1 + 3 * h / (10 + math.sqrt(4 - 3 * h)))


@SETTINGS
@given(a=st.floats(0.2, 5.0), b=st.floats(0.2, 5.0), th=st.floats(0, 2 * math.pi), r=st.floats(0, 2),
       phi0=st.floats(0, 2 * math.pi))
@example(a=1.0, b=1.0, th=0.0, r=0.5, phi0=0.0)
@example(a=3.0, b=0.5, th=1.0, r=0.0, phi0=0.3)
def test_perimeter_of_grown_ellipse(a, b, th, r, phi0):
    """Full turn: the ellipse's perimeter (4a·E(e²) with a >= b) plus 2πr; Ramanujan's
    second formula agrees to its own known accuracy."""
    B = SmoothBody(((0.3, -0.2, a, b, th),), ((0.0, 0.0),), r)
    big, small = max(a, b), min(a, b)
    exact = 4 * big * ellipe(1 - (small / big) ** 2)
    assert B.length(phi0, 2 * math.pi) == pytest.approx(exact + 2 * math.pi * r, abs=1e-9)
    # Ramanujan II is within ~1e-4 relative even for b/a = 0.04
    assert exact == pytest.approx(ramanujan2(a, b), rel=2e-4)


def test_quarter_arc_of_ellipse_is_elliptic_integral():
    """From the end of the minor axis to the end of the major axis: a quarter of the
    perimeter (by symmetry)."""
    a, b = 2.0, 0.75
    B = SmoothBody(((0.0, 0.0, a, b, 0.0),))
    q = B.length(0.0, math.pi / 2)
    assert q == pytest.approx(a * ellipe(1 - (b / a) ** 2), abs=1e-10)
    assert B.point(0.0) == pytest.approx([a, 0.0], abs=1e-12)
    assert B.point(math.pi / 2) == pytest.approx([0.0, b], abs=1e-12)


@SETTINGS
@given(R=st.floats(0.2, 3.0), r=st.floats(0.0, 2.0), d=st.floats(1e-6, 10.0), a=st.floats(0, 2 * math.pi),
       s0=st.floats(0, 2 * math.pi), sp=st.floats(0, 2 * math.pi))
@example(R=1.0, r=0.5, d=1e-6, a=0.0, s0=0.0, sp=math.pi)
def test_circle_special_case_matches_circle_formulas(R, r, d, a, s0, sp):
    """a = b: a disc of radius R + r. Tangent normals from a point at distance D from
    the centre are at ±acos(ρ/D) from its direction; arcs are ρ·span; the distance is
    D − ρ (the formulas the exact circle code uses)."""
    c = np.array([4.0, -1.0])
    B = SmoothBody(((float(c[0]), float(c[1]), R, R, 0.7),), ((0.0, 0.0),), r)
    rho = R + r
    D = rho + d
    P = c + D * np.array([math.cos(a), math.sin(a)])
    ccw, cw = B.tangent_normals(P)
    g = math.acos(rho / D)
    assert (ccw - (a + g) + math.pi) % (2 * math.pi) - math.pi == pytest.approx(0.0, abs=1e-9)
    assert (cw - (a - g) + math.pi) % (2 * math.pi) - math.pi == pytest.approx(0.0, abs=1e-9)
    assert B.distance(P) == pytest.approx(d, abs=1e-9)
    assert B.length(s0, sp) == pytest.approx(rho * sp, abs=1e-9)


@SETTINGS
@given(a=st.floats(0.3, 3.0), b=st.floats(0.3, 3.0), th=st.floats(0, 6.3), r=st.floats(0, 1),
       w=st.floats(0.1, 2), h=st.floats(0.1, 2), phi=st.floats(0, 6.3), d=st.floats(1e-8, 6))
@example(a=1.0, b=0.5, th=0.0, r=0.0, w=1.0, h=1.0, phi=0.0, d=1e-8)
def test_tangents_touch_and_distance(a, b, th, r, w, h, phi, d):
    """Tangent normals from a point at distance d along the normal φ: the point lies on
    both support lines, they are on either side of φ, and the distance is d."""
    sq = ((-w, -h), (w, -h), (w, h), (-w, h))
    B = SmoothBody(((0.5, 0.1, a, b, th),), sq, r)
    u = np.array([math.cos(phi), math.sin(phi)])
    P = B.point(phi) + d * u
    ccw, cw = B.tangent_normals(P)
    for t in (ccw, cw):
        assert abs(B.gap(t, P)) <= 1e-9
    off1 = (ccw - phi) % (2 * math.pi)
    off2 = (phi - cw) % (2 * math.pi)
    assert 0 < off1 < math.pi + 1e-9 and 0 < off2 < math.pi + 1e-9
    assert B.distance(P) == pytest.approx(d, abs=1e-9)


def test_points_inside_and_on_have_no_tangent():
    B = SmoothBody(((0.0, 0.0, 2.0, 1.0, 0.0),), ((0.0, 0.0),), 0.5)
    assert B.tangent_normals((0.0, 0.0)) is None
    assert B.tangent_normals((2.5, 0.0)) is None  # on the boundary
    assert B.tangent_normals((2.5 + 1e-7, 0.0)) is not None


def test_flat_sides_count_once_and_ends_pick_sides():
    """A square core grown by an ellipse: the boundary length over a full turn adds the
    four sides; a span that starts on a side's normal leaves that side out."""
    sq = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))
    E = SmoothBody(((0.0, 0.0, 1.0, 0.5, 0.2),), ((0.0, 0.0),), 0.1)
    B = SmoothBody(((0.0, 0.0, 1.0, 0.5, 0.2),), sq, 0.1)
    full = E.length(0.0, 2 * math.pi)
    assert B.length(0.1, 2 * math.pi) == pytest.approx(full + 8.0, abs=1e-9)
    assert B.length(0.0, 2 * math.pi) == pytest.approx(full + 6.0, abs=1e-9)
    # the two ends of the flat side with normal +x
    lo, hi = B.point(0.0, -1), B.point(0.0, +1)
    assert hi[1] - lo[1] == pytest.approx(2.0, abs=1e-12)
    assert hi[0] == pytest.approx(lo[0], abs=1e-12)


def test_c_obstacle_body_matches_support_functions():
    """obstacle ⊕ (−part): support function h_O(u) + h_b(−u) for every kind of part."""
    parts = [
        Disc((1.0, 2.0), 0.5),
        Ellipse((0.3, -0.4), 1.2, 0.6, 0.9),
        ConvexPolygon(((0.0, 0.0), (1.0, 0.0), (0.5, 0.8))),
        Capsule((0.0, 0.0), (2.0, 1.0), 0.25),
        Sum((Ellipse((0.0, 0.0), 1.0, 0.4, 0.3), Disc((0.0, 0.0), 0.2))),
    ]
    phis = np.linspace(0.0, 2 * math.pi, 17)
    U = np.stack([np.cos(phis), np.sin(phis)], axis=-1)
    for obs in parts:
        for b in parts:
            K = c_obstacle_body(obs, b)
            assert K is not None
            want = obs.h(U) + b.h(-U)
            got = np.array([K.h(p) for p in phis])
            assert got == pytest.approx(want, abs=1e-12)


def test_contract_form_round_trips():
    B = SmoothBody(((0.0, 1.0, 2.0, 1.0, 0.5),), ((0.0, 0.0), (1.0, 0.0)), 0.25)
    C = SmoothBody.from_dict(B.as_dict())
    assert C.h(0.3) == B.h(0.3)
    with pytest.raises(ValueError):
        SmoothBody.from_dict({"ellipses": [[0, 0, -1, 1, 0]]})
    with pytest.raises(ValueError):
        SmoothBody.from_dict({"ellipses": [], "grow": -1})


def test_polyline_stays_within_sagitta():
    B = SmoothBody(((0.0, 0.0, 3.0, 0.4, 0.3),), ((0.0, 0.0),), 0.2)
    s = 2.5e-7
    pts = np.asarray([B.point(0.2)] + [np.asarray(p) for p in B.polyline(0.2, 2.5, True, s)] + [B.point(2.7)])
    # every boundary point between two consecutive polyline points is within s of the chord
    for p, q in zip(pts[:-1], pts[1:], strict=True):
        n = np.array([q[1] - p[1], p[0] - q[0]]) / np.hypot(*(q - p))
        phi = math.atan2(n[1], n[0])  # the normal parallel to the chord's normal
        x = B.point(phi)
        assert float((x - p) @ n) <= s + 1e-12
