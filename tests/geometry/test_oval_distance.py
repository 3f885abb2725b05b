"""The one-point certified distance of ellipses grown by discs (geometry.oval_distance).

``sd_certified`` is what every oval distance now goes through one point at a time
(the root finder's brentq calls, pile-in loci): Newton on the support angle plus a
proven bracket [lower, upper] no wider than 1e-9. These tests check it against the
general certified solver (``convex_distance.solve``: its brackets must overlap), against
closed forms (two discs, concentric aligned ellipses, ellipses touching along an
axis, at the tangency edge: touching, 1e-6 apart, 1e-6 overlapping), rotated and
mirrored; that a solve it cannot certify falls back to the general one; and the two
other closed forms this round touched: an ellipse moved against a disc, and the
point-ellipse distance near the major axis.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from chargeref.geometry import oval_distance
from chargeref.geometry.convex_distance import solve
from chargeref.geometry.ellipse_point import _eberly, ellipse_point_signed_distance
from chargeref.geometry.oval_distance import CERT_TOL, Pair, sd_certified
from chargeref.geometry.placement import OffsetCurve, grown, locus_crossings, sd_at, sd_at1
from chargeref.geometry.shapes import (
    Convex,
    ConvexPolygon,
    Disc,
    Ellipse,
    Footprint,
    Sum,
    _translations_general,
    point_sd,
    smooth_part,
    translations_signed_distance,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def certified(A: Convex, B: Convex, p: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float, float]:
    sa, sb = smooth_part(A), smooth_part(B)
    assert sa is not None and sb is not None
    got = sd_certified(Pair(sa, sb), p[0], p[1])
    assert got is not None
    v, lo, up = got
    assert lo <= v <= up and up - lo <= CERT_TOL
    return got


def general(A: Convex, B: Convex, p: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    c = solve(A.support, B.support, p, seeds=np.array([math.atan2(B.center[1] - A.center[1] - p[1], B.center[0] - A.center[0] - p[0])]))
    return c.lower, c.upper


def turned(e: Convex, ang: float, mirror: bool) -> Convex:
    """The part turned by ang about the origin, then mirrored in the x axis."""
    c, s = math.cos(ang), math.sin(ang)

    def pt(x: float, y: float) -> tuple[float, float]:
        x, y = c * x - s * y, s * x + c * y
        return (x, -y) if mirror else (x, y)

    if isinstance(e, Ellipse):
        th = e.theta + ang
        return Ellipse(pt(*e.c), e.a, e.b, -th if mirror else th)
    if isinstance(e, Disc):
        return Disc(pt(*e.c), e.r)
    assert isinstance(e, Sum)
    return Sum(tuple(turned(q, ang, mirror) for q in e.parts))


@st.composite
def ell(draw: st.DrawFn) -> Ellipse:
    # an oval base, never a circle (a round base is a Disc, with closed forms; an
    # ellipse with a = b may need the general solver: see the fallback test)
    a = draw(st.floats(0.2, 1.6))
    return Ellipse(draw(st.tuples(st.floats(-3, 3), st.floats(-3, 3))), a, a * draw(st.floats(0.25, 0.92)), draw(st.floats(-4, 4)))


@st.composite
def part(draw: st.DrawFn) -> Convex:
    kind = draw(st.sampled_from(["ellipse", "disc", "grown"]))
    e = draw(ell())
    if kind == "disc":
        return Disc(e.c, e.a)
    if kind == "grown":
        return Sum((e, Disc((0.0, 0.0), draw(st.floats(0.0, 0.8)))))
    return e


# ------------------------------------------------------------------ against the general solver


@SETTINGS
@given(part(), part(), st.tuples(st.floats(-4, 4), st.floats(-4, 4)))
@example(Ellipse((0, 0), 1.18, 0.69, 0.0), Ellipse((2.36, 0), 1.18, 0.69, 0.0), (0.0, 0.0))  # touching end to end
@example(Ellipse((0, 0), 1.5, 0.2, 0.0), Ellipse((0, 0.3), 1.5, 0.2, 0.0), (0.0, 0.0))  # thin, side by side, overlapping
@example(Ellipse((0, 0), 1.5, 0.2, 0.0), Ellipse((0, 0), 1.5, 0.2, math.pi / 2), (0.0, 0.0))  # a cross: two minima
@example(Ellipse((0, 0), 1.2, 0.7, 0.3), Disc((2.0, 0.5), 0.6), (0.1, -0.2))
@example(Disc((0.0, 0.0), 1.0), Disc((0.0, 0.0), 1.0), (0.0, 0.0))  # concentric: the general bracket stays wide
def test_bracket_overlaps_the_general_solvers(A: Convex, B: Convex, p: tuple[float, float]) -> None:
    v, lo, up = certified(A, B, p)
    glo, gup = general(A, B, p)
    # both brackets hold the true distance: they overlap, so the values agree to 1e-9
    # (plus half the general bracket, which stays wide in degenerate cases such as
    # two concentric equal discs, where every direction is as deep)
    assert lo <= gup + 1e-12 and glo <= up + 1e-12
    assert up - lo <= CERT_TOL
    assert abs(v - (glo + gup) / 2) <= CERT_TOL + (gup - glo) / 2


@SETTINGS
@given(part(), part(), st.floats(-math.pi, math.pi), st.booleans())
@example(Ellipse((0, 0), 1.18, 0.69, 0.4), Ellipse((1.9, 0.8), 1.18, 0.69, -0.3), 1.0, True)
def test_turned_and_mirrored_is_the_same(A: Convex, B: Convex, ang: float, mirror: bool) -> None:
    v0 = certified(A, B)[0]
    v1 = certified(turned(A, ang, mirror), turned(B, ang, mirror))[0]
    assert abs(v0 - v1) <= CERT_TOL


# ------------------------------------------------------------------ closed forms


@SETTINGS
@given(st.floats(-3, 3), st.floats(-3, 3), st.floats(0.1, 1.5), st.floats(0.1, 1.5))
@example(2.0, 0.0, 1.0, 1.0)  # touching
@example(0.0, 0.0, 1.0, 0.5)  # concentric
def test_two_discs_are_centre_distance_less_radii(x: float, y: float, r1: float, r2: float) -> None:
    v = certified(Disc((0.0, 0.0), r1), Disc((x, y), r2))[0]
    assert abs(v - (math.hypot(x, y) - r1 - r2)) <= CERT_TOL


@pytest.mark.parametrize("grow", [0.0, 0.3])
def test_concentric_aligned_ellipses_overlap_by_their_minor_axes(grow: float) -> None:
    A = Ellipse((1.0, 2.0), 1.3, 0.5, 0.7)
    B = Sum((Ellipse((1.0, 2.0), 0.9, 0.4, 0.7), Disc((0.0, 0.0), grow)))
    assert abs(certified(A, B)[0] - -(0.5 + 0.4 + grow)) <= CERT_TOL


@pytest.mark.parametrize("gap", [0.0, 1e-6, -1e-6, 1e-3, 2.5])
@pytest.mark.parametrize("axis", ["major", "minor"])
@pytest.mark.parametrize("ang,mirror", [(0.0, False), (0.9, False), (2.3, True)])
def test_ellipses_along_an_axis_are_gap_apart(gap: float, axis: str, ang: float, mirror: bool) -> None:
    """Two aligned ellipses whose ends face each other along an axis are exactly the gap
    apart (negative: overlapping by it), at the tangency edge too."""
    a1, b1, a2, b2 = 1.18, 0.69, 0.9, 0.5
    if axis == "major":
        A, B = Ellipse((0.0, 0.0), a1, b1, 0.0), Ellipse((a1 + a2 + gap, 0.0), a2, b2, 0.0)
    else:
        A, B = Ellipse((0.0, 0.0), a1, b1, 0.0), Ellipse((0.0, b1 + b2 + gap), a2, b2, 0.0)
    A, B = turned(A, ang, mirror), turned(B, ang, mirror)
    v, lo, up = certified(A, B)
    assert abs(v - gap) <= CERT_TOL
    # touching and 1e-6 apart are told apart: the brackets are 1e-9 wide
    if gap == 0.0:
        assert lo <= 1e-12 and up >= -1e-12  # (1e-12: the centres are rounded sums)
    if gap == 1e-6:
        assert lo > 1e-6 - CERT_TOL and up < 1e-6 + CERT_TOL


def test_grown_ellipse_is_the_ellipse_plus_the_radius() -> None:
    E, F = Ellipse((0.0, 0.0), 1.2, 0.6, 0.2), Ellipse((2.9, 0.7), 0.8, 0.5, -0.6)
    v0 = certified(E, F)[0]
    v1 = certified(Sum((E, Disc((0.0, 0.0), 0.25))), Sum((F, Disc((0.0, 0.0), 0.1))))[0]
    assert abs(v1 - (v0 - 0.35)) <= CERT_TOL


# ------------------------------------------------------------------ wiring and fallback


def test_translations_use_it_and_agree_with_the_general_path() -> None:
    A, B = Ellipse((0.0, 0.0), 1.18, 0.69, 0.5), Ellipse((2.0, 1.0), 1.18, 0.69, -0.2)
    P = np.array([[0.0, 0.0], [0.5, 0.1], [3.0, -2.0], [-1.0, 4.0], [2.0, 1.0]])
    got = translations_signed_distance(A, B, P)
    ref = _translations_general(A, B, P, 1e-9)
    assert np.max(np.abs(got - ref)) <= CERT_TOL


def test_a_solve_it_cannot_certify_goes_to_the_general_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    A, B = Ellipse((0.0, 0.0), 1.5, 0.2, 0.0), Ellipse((0.0, 0.0), 1.5, 0.2, math.pi / 2)  # overlapping
    sa, sb = smooth_part(A), smooth_part(B)
    assert sa is not None and sb is not None
    monkeypatch.setattr(oval_distance, "MAX_REFINE", 0)
    assert sd_certified(Pair(sa, sb), 0.0, 0.0) is None
    got = translations_signed_distance(A, B, np.zeros((1, 2)))[0]
    glo, gup = general(A, B)
    assert glo - 1e-12 <= got <= gup + 1e-12
    assert abs(got - -1.7) <= CERT_TOL  # a cross: moving one out along an arm, a + b
    monkeypatch.undo()
    # concentric equal circles given as ellipses: h_C is flat, the gap bounds cannot
    # close on it within the caps; the general solver answers
    C = Ellipse((0.0, 0.0), 1.0, 1.0, 0.0)
    sc = smooth_part(C)
    assert sc is not None and sd_certified(Pair(sc, sc), 0.0, 0.0) is None
    assert abs(translations_signed_distance(C, Ellipse((0.0, 0.0), 1.0, 1.0, 0.0), np.zeros((1, 2)))[0] - -2.0) <= CERT_TOL


@SETTINGS
@given(ell(), st.floats(0.1, 1.0), st.tuples(st.floats(-4, 4), st.floats(-4, 4)))
@example(Ellipse((0.0, 0.0), 1.18, 0.69, 0.0), 0.63, (1.18 + 0.63, 0.0))  # touching at the end of the axis
def test_ellipse_moved_against_a_disc_is_the_disc_moved_back(E: Ellipse, r: float, p: tuple[float, float]) -> None:
    D = Disc((0.5, -0.3), r)
    P = np.array([p])
    there = translations_signed_distance(E, D, P)[0]
    back = translations_signed_distance(D, E, -P)[0]
    assert abs(there - back) <= 1e-12
    glo, gup = general(E, D, p)
    assert glo - CERT_TOL <= there <= gup + CERT_TOL


def test_point_ellipse_distance_near_the_major_axis() -> None:
    """A point inside, 3e-12 off the major axis: the root was solved in a variable
    near -1 and kept only its leading digits (1.4e-4 off); now exact."""
    e0, e1, y0, y1 = 2.6610207880804895, 2.4872740868856145, 0.14216416687654276, 2.8479369142956503e-12

    def f(t: float) -> float:
        return math.hypot(e0 * math.cos(t) - y0, e1 * math.sin(t) - y1)

    ts = np.linspace(0.0, math.pi / 2, 20001)
    j = int(np.argmin([f(t) for t in ts]))
    ref = minimize_scalar(f, bounds=(ts[max(j - 1, 0)], ts[min(j + 1, len(ts) - 1)]), method="bounded",
                          options={"xatol": 1e-14}).fun
    d, inside = _eberly(e0, e1, y0, y1)
    assert inside and abs(d - ref) <= 1e-12


@SETTINGS
@given(st.floats(-7.0, 7.0), st.floats(0.0, 2.0), st.booleans())
def test_offset_curve_written_out_is_the_support_curve(th: float, d: float, grow: bool) -> None:
    T = Footprint((Ellipse((3.0, 1.0), 1.4, 0.7, 0.6),), "oval", (3.0, 1.0))
    if grow:
        T = grown(T, 0.3)
    M = Footprint((Ellipse((1.0, 2.0), 1.18, 0.69, -0.4),), "oval", (1.0, 2.0))
    cur = OffsetCurve(M, T, d)
    assert cur._fast(0) is not None
    ths = np.array([th, th + 1.0])
    # the curve from the parts' support functions: c(θ) = s_T(u) − (s_M(−u) − c) + d·u
    tp, mp, c = cur.pieces[0]
    U = np.stack([np.cos(ths), np.sin(ths)], axis=-1)
    ref = tp.support(U) - (mp.support(-U) - c) + d * U
    assert np.max(np.abs(cur.at(0, ths) - ref)) <= 1e-12
    assert np.max(np.abs(cur.at(0, np.array([th])) - ref[:1])) <= 1e-12


# ------------------------------------------------------------------ one point in plain floats


@SETTINGS
@given(part(), part(), st.tuples(st.floats(-4, 4), st.floats(-4, 4)))
@example(Disc((0.0, 0.0), 0.63), Ellipse((2.0, 0.0), 1.18, 0.69, 0.0), (0.19, 0.0))  # touching the axis end
@example(Ellipse((0.0, 0.0), 0.69, 1.18, 0.3), Disc((0.0, 0.0), 0.63), (0.0, 0.0))  # disc inside, b > a
def test_point_sd_is_translations_signed_distance(A: Convex, B: Convex, p: tuple[float, float]) -> None:
    fn = point_sd(A, B)
    assert fn is not None
    want = translations_signed_distance(A, B, np.array([p]))[0]
    assert abs(fn(*p) - want) <= CERT_TOL


def test_point_sd_of_polygons_is_the_array_form() -> None:
    """Round 6: an ellipse or a disc against a polygon now has a one-point form too
    (``ellipse_polygon``, ``polygon_sd.core_point_sd``): the same values as the arrays."""
    sq = ConvexPolygon(((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)))
    pts = np.array([[0.3, 0.4], [2.0, 0.5], [-1.5, 2.5], [0.5, 0.5]])
    for a, b in ((Ellipse((0.0, 0.0), 1.0, 0.5, 0.0), sq), (sq, Ellipse((0.2, 0.1), 1.0, 0.5, 0.7))):
        fn = point_sd(a, b)
        assert fn is not None
        want = translations_signed_distance(a, b, pts)
        assert np.allclose([fn(*p) for p in pts.tolist()], want, rtol=0.0, atol=1e-12)
    one = sd_at1(Footprint((Disc((0.0, 0.0), 0.5),)), Footprint((sq,)))
    assert one is not None
    assert abs(one(2.0, 0.5) - 0.5) <= 1e-12


@pytest.mark.parametrize("k", [0.0, 0.5, 2.0])
def test_roots_with_the_one_point_form_are_the_same(k: float) -> None:
    """locus_crossings of an oval mover (its root finder now takes one-point floats)
    against the same crossings found with arrays only."""
    mover = Footprint((Ellipse((0.0, 0.0), 1.18, 0.69, 0.4),), "oval", (0.0, 0.0))
    target = Footprint((Ellipse((5.0, 1.0), 1.4, 0.8, -0.3),), "oval", (5.0, 1.0))
    other = Footprint((Disc((4.0, 3.5), 0.63),), "round", (4.0, 3.5))
    got = locus_crossings(mover, target, 0.5, other, k)
    cur = OffsetCurve(mover, target, 0.5)
    ref = cur.roots(lambda P: sd_at(mover, P, other) - k, g_lip=1.0)
    assert len(got) == len(ref) > 0
    for q in got:
        assert np.min(np.hypot(*(ref - q).T)) <= 1e-9
        assert abs(float(sd_at(mover, q[None], other)[0]) - k) <= 1e-9
        assert abs(float(sd_at(mover, q[None], target)[0]) - 0.5) <= 1e-9


def test_point_ellipse_distances_as_arrays_are_the_one_by_one_ones() -> None:
    """``ellipse_point_signed_distance`` solves many points as arrays (``_eberly_many``)
    and the rest (on an axis, at the centre) one by one: the same values."""
    rng = np.random.default_rng(3)
    for a, b in ((1.18, 0.69), (0.69, 1.18), (2.0, 0.1)):
        P = rng.uniform(-3.0, 3.0, size=(400, 2))
        P[:20, 1] = 0.0
        P[20:40, 0] = 0.0
        P[40:60, 1] = 1e-13
        P[60] = (0.0, 0.0)
        P[61] = (a, 0.0)  # on the boundary
        got = ellipse_point_signed_distance(a, b, P)
        for (x, y), v in zip(P, got, strict=True):
            e0, e1, y0, y1 = (a, b, abs(x), abs(y)) if a >= b else (b, a, abs(y), abs(x))
            d, inside = _eberly(e0, e1, y0, y1)
            assert abs(v - (-d if inside else d)) <= 1e-12
