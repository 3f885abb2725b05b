"""The certified convex distance (geometry.convex_distance, issue 9).

Every distance between bases that is not a closed form comes with a proof: a lower
bound (the support gap of a direction) and an upper bound (two actual points, or the
depth of a polygon inscribed in the difference body), at most 1e-9 apart. These tests
check the values against an independent reference (a dense direction sweep polished by
a bounded scalar search, in the test only), check the certificate itself (recomputed
from the support functions and from the witness points), and pin the adversarial
cases: thin ovals side by side, an oval at a polygon vertex, exact touching, an overlap
of 1e-4, and a penetration the old sampled bracket got wrong by 0.01".
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from chargeref.geometry.convex_distance import CERT_TOL, Certified, solve
from chargeref.geometry.shapes import (
    Capsule,
    Convex,
    ConvexPolygon,
    Ellipse,
    Sum,
    convex_signed_distance,
    ellipse_point_signed_distance,
    polygon_point_signed_distance,
    translations_signed_distance,
)
from chargeref.systems.w40k.melee import _closest_convex
from chargeref.validate.w40k_fight import _part_closest

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# ------------------------------------------------------------------ reference (test only)


def reference_sd(A: Convex, B: Convex, p=(0.0, 0.0), n: int = 20000) -> float:
    """sd(A + p, B) = -min over u of h_C(u), C = B - A - p: a sweep of n directions,
    each local minimum of the sweep polished by a bounded scalar search."""
    p = np.asarray(p, dtype=float)
    th = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    U = np.stack([np.cos(th), np.sin(th)], axis=-1)
    h = B.h(U) + A.h(-U) - U @ p

    def f(t: float) -> float:
        u = np.array([[math.cos(t), math.sin(t)]])
        return float(B.h(u)[0] + A.h(-u)[0] - u[0] @ p)

    best = float(h.min())
    step = 2 * math.pi / n
    for i in np.flatnonzero((h <= np.roll(h, 1)) & (h <= np.roll(h, -1))):
        r = minimize_scalar(f, bounds=(th[i] - step, th[i] + step), method="bounded", options={"xatol": 1e-14})
        best = min(best, float(r.fun))
    return -best


def member_gap(body: Convex, x: np.ndarray) -> float:
    """How far the point x lies outside the body (<= 0 inside), exactly."""
    x = np.asarray(x, dtype=float)[None]
    if isinstance(body, Ellipse):
        return float(body.point_distance(x)[0])
    if isinstance(body, ConvexPolygon):
        return float(polygon_point_signed_distance(body.V, x)[0])
    raise AssertionError("member_gap knows ellipses and polygons")


def check_certificate(A: Convex, B: Convex, c: Certified, p=(0.0, 0.0)) -> None:
    """Re-derive both bounds from the bodies themselves, not from the solver's numbers."""
    p = np.asarray(p, dtype=float)
    assert c.width <= CERT_TOL
    # (the bounds are computed in floating point: they may cross by a rounding error)
    assert c.lower - 1e-12 <= c.value <= c.upper + 1e-12
    w = np.asarray(c.w, dtype=float)[None]
    # the lower bound is the support gap of the reported direction
    gap = float(-B.h(-w)[0] - A.h(w)[0] - w[0] @ p)
    assert gap == pytest.approx(c.lower, abs=1e-12)
    if c.upper > 0:
        # the upper bound is the distance between a point of A + p and a point of B
        if isinstance(A, (Ellipse, ConvexPolygon)):
            assert member_gap(A, c.pa - p) <= 1e-9
        if isinstance(B, (Ellipse, ConvexPolygon)):
            assert member_gap(B, c.pb) <= 1e-9
        assert float(np.hypot(*(c.pb - c.pa))) == pytest.approx(c.upper, abs=1e-12)


# ------------------------------------------------------------------ strategies

coord = st.floats(-4.0, 4.0)
angle = st.floats(0.0, 2 * math.pi)


@st.composite
def ellipses(draw, centred: bool = False) -> Ellipse:
    a = draw(st.floats(0.2, 3.0))
    b = a * draw(st.floats(0.02, 0.9))  # an oval (a round one takes the disc closed forms)
    c = (0.0, 0.0) if centred else (draw(coord), draw(coord))
    return Ellipse(c, a, b, draw(angle))


@st.composite
def triangles(draw) -> ConvexPolygon:
    x0, y0 = draw(coord), draw(coord)
    a1, a2 = draw(angle), draw(st.floats(0.3, math.pi - 0.3))
    r1, r2 = draw(st.floats(0.3, 3.0)), draw(st.floats(0.3, 3.0))
    pts = ((x0, y0), (x0 + r1 * math.cos(a1), y0 + r1 * math.sin(a1)),
           (x0 + r2 * math.cos(a1 + a2), y0 + r2 * math.sin(a1 + a2)))
    return ConvexPolygon(pts)


bodies = st.one_of(ellipses(), triangles())


# ------------------------------------------------------------------ property tests


@SETTINGS
@given(A=ellipses(centred=True), B=bodies, p=st.tuples(coord, coord))
@example(A=Ellipse((0.0, 0.0), 3.0, 0.05, 0.0), B=Ellipse((0.0, 0.1 + 1e-6), 3.0, 0.05, 0.0), p=(0.0, 0.0))
@example(A=Ellipse((0.0, 0.0), 2.0, 0.3, 0.0), B=ConvexPolygon(((0.0, 0.3001), (1.0, 3.0), (-1.0, 3.0))), p=(0.0, 0.0))
def test_matches_reference_with_a_proof(A: Ellipse, B: Convex, p: tuple[float, float]) -> None:
    c = solve(A.support, B.support, p)
    check_certificate(A, B, c, p)
    ref = reference_sd(A, B, p)
    assert c.value == pytest.approx(ref, abs=1e-6)
    # the vectorised entry point agrees with the scalar solve (both certified)
    v = translations_signed_distance(A, B, np.array([p]))[0]
    assert v == pytest.approx(c.value, abs=2 * CERT_TOL)


@SETTINGS
@given(A=ellipses(centred=True), B=bodies, P=st.lists(st.tuples(coord, coord), min_size=2, max_size=12))
def test_many_translations_each_certified(A: Ellipse, B: Convex, P: list) -> None:
    """The batched path (a proven bracket bisected on a supergradient) and the
    scalar loop agree row by row within their certificates."""
    P = np.asarray(P, dtype=float)
    got = translations_signed_distance(A, B, P)
    for i, p in enumerate(P):
        c = solve(A.support, B.support, p)
        assert c.width <= CERT_TOL
        assert got[i] == pytest.approx(c.value, abs=2 * CERT_TOL)


@SETTINGS
@given(A=ellipses(), B=bodies, psi=angle, mirror=st.booleans())
def test_rotation_and_mirror_invariance(A: Ellipse, B: Convex, psi: float, mirror: bool) -> None:
    def move(body: Convex) -> Convex:
        R = np.array([[math.cos(psi), -math.sin(psi)], [math.sin(psi), math.cos(psi)]])
        M = np.diag([1.0, -1.0]) if mirror else np.eye(2)
        T = R @ M
        if isinstance(body, Ellipse):
            c = T @ np.asarray(body.c)
            th = -body.theta if mirror else body.theta
            return Ellipse((float(c[0]), float(c[1])), body.a, body.b, th + psi)
        V = np.asarray(body.vertices) @ T.T
        return ConvexPolygon(tuple(map(tuple, V)))

    d0 = convex_signed_distance(A, B)
    d1 = convex_signed_distance(move(A), move(B))
    assert d1 == pytest.approx(d0, abs=2 * CERT_TOL)


@SETTINGS
@given(A=ellipses(), B=bodies)
def test_closest_points_of_fight_and_validator(A: Ellipse, B: Convex) -> None:
    """The fight phase's closest points and the validator's own copy: a point of each
    body, as far apart as the certified gap (apart), within 2e-9."""
    c = solve(A.support, B.support)
    for f in (_closest_convex, _part_closest):
        pa, pb = f(A, B)
        assert member_gap(A, pa) <= 1e-9
        assert member_gap(B, pb) <= 1e-9
        if c.lower > 1e-9:
            assert float(np.hypot(*(pb - pa))) == pytest.approx(c.value, abs=2 * CERT_TOL)


# ------------------------------------------------------------------ adversarial cases


def _rotated(body: Convex, psi: float) -> Convex:
    R = np.array([[math.cos(psi), -math.sin(psi)], [math.sin(psi), math.cos(psi)]])
    if isinstance(body, Ellipse):
        c = R @ np.asarray(body.c, dtype=float)
        return Ellipse((float(c[0]), float(c[1])), body.a, body.b, body.theta + psi)
    return ConvexPolygon(tuple(map(tuple, np.asarray(body.vertices) @ R.T)))


@pytest.mark.parametrize("g", [1e-3, 1e-6, 1e-9, 0.0, -1e-4])
@pytest.mark.parametrize("psi", [0.0, 0.3, 2 * math.pi / 128, 1.0 + 1e-7])
def test_thin_ovals_side_by_side(g: float, psi: float) -> None:
    """Two 6" x 0.1" ovals, parallel, one above the other: the gap is exactly g (a
    negative g is an overlap whose depth is |g|, the curvature there being huge). The
    separating directions form an arc about g/6 rad wide, far narrower than any grid."""
    A = _rotated(Ellipse((0.0, 0.0), 3.0, 0.05, 0.0), psi)
    B = _rotated(Ellipse((0.0, 0.1 + g), 3.0, 0.05, 0.0), psi)
    c = solve(A.support, B.support)
    check_certificate(A, B, c)
    assert c.value == pytest.approx(g, abs=CERT_TOL)
    assert convex_signed_distance(A, B) == pytest.approx(g, abs=CERT_TOL)
    assert convex_signed_distance(B, A) == pytest.approx(g, abs=CERT_TOL)


@pytest.mark.parametrize("g", [1e-3, 1e-5, 1e-9, 0.0, -1e-4])
@pytest.mark.parametrize("psi", [0.0, 0.7, 4.0])
def test_oval_at_a_polygon_vertex(g: float, psi: float) -> None:
    """A triangle's vertex right above the end of an oval's minor axis, g away: the
    nearest point of the oval to a point on its minor axis outside it is the axis end,
    so the gap is exactly g (and an overlap of |g| when g < 0)."""
    A = _rotated(Ellipse((0.0, 0.0), 2.0, 0.3, 0.0), psi)
    B = _rotated(ConvexPolygon(((0.0, 0.3 + g), (1.0, 3.0), (-1.0, 3.0))), psi)
    c = solve(A.support, B.support)
    check_certificate(A, B, c)
    assert c.value == pytest.approx(g, abs=CERT_TOL)
    assert convex_signed_distance(A, B) == pytest.approx(g, abs=CERT_TOL)
    if g > 1e-9:
        pa, pb = _closest_convex(A, B)
        assert float(np.hypot(*(pb - pa))) == pytest.approx(g, abs=2 * CERT_TOL)
        pa, pb = _part_closest(A, B)
        assert float(np.hypot(*(pb - pa))) == pytest.approx(g, abs=2 * CERT_TOL)


def _three_faces() -> tuple[Ellipse, ConvexPolygon]:
    """A round oval (a = b = 0.05) inside a triangle whose faces are 1, 1 and 0.99 from
    its centre. The nearest face's normal sits half-way between two of 64 evenly spread
    directions while the other two sit on them, so a 64-direction bracket refined round
    its two best samples finds the 1" faces: penetration 1.05 instead of 1.04."""
    step = 2 * math.pi / 64
    al = [5 * step, 27 * step, 48.5 * step]
    d = [1.0, 1.0, 0.99]
    N = [np.array([math.cos(a), math.sin(a)]) for a in al]
    V = [tuple(np.linalg.solve(np.array([N[i], N[(i + 1) % 3]]), np.array([d[i], d[(i + 1) % 3]]))) for i in range(3)]
    return Ellipse((0.0, 0.0), 0.05, 0.05, 0.3), ConvexPolygon(tuple(V))


def test_penetration_the_sampled_bracket_missed() -> None:
    A, B = _three_faces()
    c = solve(A.support, B.support)
    check_certificate(A, B, c)
    assert c.value == pytest.approx(-1.04, abs=CERT_TOL)
    assert convex_signed_distance(A, B) == pytest.approx(-1.04, abs=CERT_TOL)
    got = translations_signed_distance(A, B, np.array([[0.0, 0.0], [0.0, 0.5]]))
    assert got[0] == pytest.approx(-1.04, abs=CERT_TOL)
    assert got[1] == pytest.approx(reference_sd(A, B, (0.0, 0.5)), abs=1e-6)


def test_random_overlap_the_sampled_bracket_missed() -> None:
    """Found by comparing with the old bracket on random pairs: an oval overlapping a
    triangle, depth 1.0205", which the old 64-direction bracket put at 1.1005"."""
    A = Ellipse((0.0, 0.0), 1.517371657766049, 0.16756310891338627, 1.467564266324644)
    B = ConvexPolygon(((-1.5334551012443316, -2.6948274221221515), (1.2876813605652053, 2.5281342152369355),
                       (-2.9703651770038992, -1.269940164249385)))
    p = (0.19106870118607144, 1.5623959710134443)
    c = solve(A.support, B.support, p)
    check_certificate(A, B, c, p)
    assert c.value == pytest.approx(reference_sd(A, B, p, 200000), abs=1e-6)
    assert c.value == pytest.approx(-1.02045771, abs=1e-8)
    assert translations_signed_distance(A, B, np.array([p]))[0] == pytest.approx(c.value, abs=2 * CERT_TOL)


def test_sums_and_capsules_certified() -> None:
    """A swept oval (oval + segment) against an oval and a capsule."""
    S = Sum((Ellipse((0.2, 0.1), 1.5, 0.3, 0.4), Capsule((0.0, 0.0), (1.0, 0.5), 0.0)))
    for B in (Ellipse((3.0, 1.0), 1.0, 0.2, 1.0), Capsule((-2.0, 2.0), (2.0, 2.5), 0.1), Ellipse((0.5, 0.3), 1.0, 0.2, 1.0)):
        c = solve(S.support, B.support)
        assert c.width <= CERT_TOL
        assert c.value == pytest.approx(reference_sd(S, B), abs=1e-6)
        assert convex_signed_distance(S, B) == pytest.approx(c.value, abs=2 * CERT_TOL)


def test_stop_answers_the_threshold_question_early() -> None:
    """With ``stop`` the loop ends once the bracket is wholly on one side of it; the
    side is right."""
    A, B = Ellipse((0.0, 0.0), 2.0, 0.3, 0.0), ConvexPolygon(((0.0, 0.31), (1.0, 3.0), (-1.0, 3.0)))
    for stop in (-0.5, 0.0, 0.0099, 0.0101, 1.0):
        c = solve(A.support, B.support, stop=stop)
        assert (c.lower >= stop) == (0.01 >= stop)
        assert (c.upper < stop) == (0.01 < stop)


def test_round_oval_takes_the_disc_closed_form() -> None:
    """An oval with equal axes is a disc: inside a flat-sided base at a corner (depth
    the same in a half-turn of directions, where no polygon loop could certify fast)."""
    A = Ellipse((0.0, 0.0), 1.0, 1.0, 0.0)
    B = ConvexPolygon(((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))
    assert convex_signed_distance(A, B) == pytest.approx(-1.0, abs=1e-12)
    got = translations_signed_distance(A, B, np.array([[0.0, 0.0], [-3.0, 0.0]]))
    assert got == pytest.approx([-1.0, 2.0], abs=1e-12)


def test_ellipse_point_reference_is_itself_exact() -> None:
    """The membership test used above (Eberly's solve) at a known point."""
    assert ellipse_point_signed_distance(2.0, 0.3, np.array([[0.0, 0.5]]))[0] == pytest.approx(0.2, abs=1e-12)
