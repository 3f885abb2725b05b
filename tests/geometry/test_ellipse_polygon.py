"""An ellipse (grown by a disc) against a convex polygon core (geometry.ellipse_polygon).

The stationary-point form (edge normals plus the feet of perpendiculars from every
vertex, from the quartic) is checked against the general certified solver
(``convex_distance.solve`` through ``_translations_general``, bracket 1e-10) on random
ellipses, polygons, capsules and translations, apart and overlapping; against closed
forms (an aligned ellipse against a square's face: touching, 1e-6 apart, 1e-6
overlapping), rotated and mirrored; and the one-point form against the arrays.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.ellipse_polygon import ellipse_core_sd
from chargeref.geometry.shapes import (
    SOLVE_TOL,
    Capsule,
    ConvexPolygon,
    Disc,
    Ellipse,
    Sum,
    _translations_general,
    point_sd,
    translations_signed_distance,
)

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _rot(phi: float) -> np.ndarray:
    return np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])


def _rect(w: float, h: float, phi: float, cx: float, cy: float) -> ConvexPolygon:
    V = (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ _rot(phi).T + (cx, cy)
    return ConvexPolygon(tuple(map(tuple, V.tolist())))


@SETTINGS
@given(
    a=st.floats(0.5, 3.0), b=st.floats(0.5, 3.0), th=st.floats(0.0, 2 * math.pi),
    w=st.floats(0.2, 4.0), h=st.floats(0.2, 4.0), phi=st.floats(0.0, 2 * math.pi),
    tri=st.booleans(), grow=st.floats(0.0, 1.0), seed=st.integers(0, 10**6),
)
@example(a=1.77, b=1.02, th=0.3, w=1.57, h=1.57, phi=0.0, tri=False, grow=0.0, seed=1)  # 90x52 mm vs 40x40 mm
@example(a=3.0, b=0.5, th=0.0, w=4.0, h=4.0, phi=0.0, tri=False, grow=0.0, seed=2)  # thin ellipse, big square
def test_against_the_certified_solver(a, b, th, w, h, phi, tri, grow, seed) -> None:
    rng = np.random.default_rng(seed)
    K = _rect(w, h, phi, 0.3, -0.2)
    if tri:
        K = ConvexPolygon(K.vertices[:3])
    E = Ellipse((0.1, 0.2), a, b, th)
    A = Sum((E, Disc((0.0, 0.0), grow))) if grow > 0 else E
    # translations from deep overlap to well apart, and near contact
    P = rng.uniform(-8.0, 8.0, (40, 2))
    for B0, B1 in ((A, K), (K, A)):
        want = _translations_general(B0, B1, P, 1e-10)
        got = translations_signed_distance(B0, B1, P)
        assert np.max(np.abs(got - want)) <= SOLVE_TOL
        fn = point_sd(B0, B1)
        assert fn is not None
        one = np.array([fn(px, py) for px, py in P.tolist()])
        assert np.max(np.abs(one - got)) <= 1e-12


@SETTINGS
@given(
    a=st.floats(0.5, 3.0), b=st.floats(0.5, 3.0), th=st.floats(0.0, 2 * math.pi),
    r=st.floats(0.0, 1.0), seed=st.integers(0, 10**6),
)
def test_capsule_and_point_cores(a, b, th, r, seed) -> None:
    rng = np.random.default_rng(seed)
    E = Ellipse((0.0, 0.0), a, b, th)
    P = rng.uniform(-6.0, 6.0, (30, 2))
    for K in (Capsule((-1.0, 0.5), (1.5, -0.7), r), Capsule((0.4, 0.4), (0.4, 0.4), r)):
        want = _translations_general(E, K, P, 1e-10)
        got = translations_signed_distance(E, K, P)
        assert np.max(np.abs(got - want)) <= SOLVE_TOL


@pytest.mark.parametrize("gap", [0.0, 1e-6, -1e-6, 0.5])
@pytest.mark.parametrize("phi", [0.0, 0.7, math.pi / 2, 2.9])
@pytest.mark.parametrize("mirror", [False, True])
def test_face_closed_form(gap: float, phi: float, mirror: bool) -> None:
    """An ellipse with its long axis across a square's right face: the gap is the
    centre's x less the half-axis less the half-side (the nearest point of the ellipse
    is its axis end, which faces the middle of the face), in any rotation or mirror."""
    s, a, b = 1.0, 0.8, 0.3
    cx = s + a + gap
    R = _rot(phi)
    M = np.diag([1.0, -1.0]) if mirror else np.eye(2)
    T = R @ M
    sq = np.array([[-s, -s], [s, -s], [s, s], [-s, s]]) @ T.T
    K = ConvexPolygon(tuple(map(tuple, sq.tolist())))
    c = T @ np.array([cx, 0.0])
    axis = T @ np.array([1.0, 0.0])
    E = Ellipse((0.0, 0.0), a, b, math.atan2(axis[1], axis[0]))
    got = translations_signed_distance(E, K, c[None])[0]
    assert abs(got - gap) <= 1e-12
    assert (got > 0.0) == (gap > 0.0)
    fn = point_sd(E, K)
    assert fn is not None and abs(fn(*c.tolist()) - gap) <= 1e-12


def test_on_the_major_axis_and_at_the_centre() -> None:
    """The degenerate feet: a vertex on the ellipse's major axis (the quartic's
    leading coefficient vanishes unless the offset is chosen) and at its centre."""
    V = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    for q in ([3.0, 0.0], [-3.0, 0.0], [0.0, 0.0], [0.5, 0.5], [1.0, 0.0], [0.0, 2.5]):
        got = ellipse_core_sd(2.0, 0.5, 1.0, 0.0, V, np.array([q]))[0]
        E = Ellipse(tuple(q), 2.0, 0.5, 0.0)
        want = _translations_general(E, ConvexPolygon(tuple(map(tuple, V.tolist()))), np.zeros((1, 2)), 1e-10)[0]
        assert abs(got - want) <= SOLVE_TOL
