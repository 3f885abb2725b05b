"""The Warmaster geometry layer against independent references."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from chargeref.geometry.shapes import ConvexPolygon, Footprint, signed_distance
from chargeref.systems.warmaster.geom import (
    Packed,
    max_dist,
    max_dist_argmin,
    max_dist_cut,
    poly_seg_dist,
    poly_seg_dists,
    rect,
    sd,
    slide_blocked,
)
from chargeref.systems.warmaster.paths import corner_cost, path_cost, shortest_path
from chargeref.systems.warmaster.sight import sees

coord = st.floats(0, 10, allow_nan=False)
ang = st.floats(0, 360, allow_nan=False)
size = st.floats(0.5, 5, allow_nan=False)
#: the suite runs a fixed (derandomised) set of examples; CHARGEREF_PROPERTY_RANDOM=1
#: explores new ones
DERANDOMIZE = not os.environ.get("CHARGEREF_PROPERTY_RANDOM")


@settings(max_examples=60, deadline=None, derandomize=DERANDOMIZE)
@given(coord, coord, ang, size, size, coord, coord, ang, size, size)
def test_signed_distance_matches_the_generic_exact_solver(x1: float, y1: float, a1: float, w1: float, d1: float,
                                                          x2: float, y2: float, a2: float, w2: float,
                                                          d2: float) -> None:
    A, B = rect((x1, y1), a1, w1, d1), rect((x2, y2), a2, w2, d2)
    ref = signed_distance(Footprint((ConvexPolygon(tuple(map(tuple, A))),)),
                          Footprint((ConvexPolygon(tuple(map(tuple, B))),)))
    assert abs(sd(A, B) - ref) < 1e-8


@settings(max_examples=40, deadline=None, derandomize=DERANDOMIZE)
@given(coord, coord, ang, coord, coord, ang, ang)
def test_slide_blocked_interval_is_exact(x1: float, y1: float, a1: float, x2: float, y2: float, a2: float,
                                         dirn: float) -> None:
    P0, Ob = rect((x1, y1), a1, 4, 2), rect((x2, y2), a2, 2, 4)
    t = np.array([math.cos(math.radians(dirn)), math.sin(math.radians(dirn))])
    iv = slide_blocked(P0, t, Ob, 1e-9)
    for s in np.linspace(-25, 25, 201):
        inside = iv is not None and iv[0] + 1e-6 < s < iv[1] - 1e-6
        outside = iv is None or s < iv[0] - 1e-6 or s > iv[1] + 1e-6
        depth = -sd(P0 + s * t, Ob)
        if inside:
            assert depth > 0
        if outside:
            assert depth < 1e-6


def test_packed_clearance_matches_shapely() -> None:
    rng = np.random.default_rng(5)
    obs = [rect(rng.uniform(0, 20, 2), rng.uniform(0, 360), rng.uniform(1, 5), rng.uniform(1, 5)) for _ in range(6)]
    obs.append(rng.uniform(0, 20, (2, 2)))
    P0, P1 = rng.uniform(-2, 22, (300, 2)), rng.uniform(-2, 22, (300, 2))
    got = Packed(obs).clearance(P0, P1)
    geoms = [shapely.Polygon(o) if len(o) > 2 else shapely.LineString(o) for o in obs]
    for i in range(len(P0)):
        line = shapely.LineString([P0[i], P1[i]])
        ref = min(float(shapely.distance(line, g)) for g in geoms)
        assert abs(got[i] - ref) < 1e-9


def test_refined_detour_is_within_a_ten_thousandth_of_the_true_arc_path() -> None:
    # a disc of radius 0.5 from (-3, 0) to (3, 0) round the square [-1, 1]^2: two
    # tangents, two arcs and the top edge
    sq = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    r = 0.5
    S, C1 = np.array([-3.0, 0.0]), np.array([-1.0, 1.0])
    dSC = float(np.linalg.norm(S - C1))
    tangent = math.sqrt(dSC**2 - r**2)
    # angle at C1 between the tangent point and the top of the arc (pointing up)
    a_sc = math.atan2(*(S - C1)[::-1])
    a_t = (a_sc - math.acos(r / dSC)) % (2 * math.pi)  # the tangent point on the upper side
    assert math.pi / 2 < a_t < math.pi
    arc = r * (a_t - math.pi / 2)
    exact = 2 * tangent + 2 * arc + 2.0
    p = shortest_path(S, np.array([3.0, 0.0]), [sq], r, 20, refine=True)
    assert p is not None
    got = sum(float(np.linalg.norm(p[i + 1] - p[i])) for i in range(len(p) - 1))
    assert exact - 1e-9 <= got <= exact + 1.5e-4 * r * 2
    coarse = shortest_path(S, np.array([3.0, 0.0]), [sq], r, 20)
    assert coarse is not None and got <= sum(float(np.linalg.norm(coarse[i + 1] - coarse[i]))
                                             for i in range(len(coarse) - 1)) + 1e-12


def test_move_cost_is_the_furthest_corner() -> None:
    # an infantry stand turning on the spot by 180 degrees: every corner crosses the
    # full diagonal
    assert corner_cost(np.array([0.0, 0.0]), 90, np.array([0.0, 0.0]), 270, 4, 2) == \
        np.float64(math.hypot(4, 2)).item()
    # a pure translation costs its length whatever the path's turns
    assert path_cost([np.array([0.0, 0.0]), np.array([3.0, 4.0]), np.array([3.0, 10.0])], 90, 90, 4, 2) == 11.0


def test_sight_through_a_slot_and_grazing_corners() -> None:
    front = (np.array([-1.0, 0.0]), np.array([1.0, 0.0]))
    up = np.array([0.0, 1.0])
    target = rect((0, 20), 270, 4, 2)
    # two walls leaving a 0.2 slot straight ahead: seen through it
    walls = [rect((-5.1, 10), 90, 10, 1), rect((5.1, 10), 90, 10, 1)]
    assert sees(front, up, target, walls)
    # closed: not seen
    assert not sees(front, up, target, [rect((0, 10), 90, 30, 1)])
    # the line must come from the front edge: a target behind is never seen
    assert not sees(front, up, rect((0, -20), 90, 4, 2), [])
    # a slot only reachable diagonally through two offset blockers (needs the
    # critical-line search, not the quick sample)
    blk = [rect((-3.5, 5), 90, 9, 1), rect((3.6, 9), 90, 9, 1)]
    diag = rect((-6, 14), 0, 2, 2)
    ok = sees(front, up, diag, blk)
    # reference: brute force over a fine grid of segments
    G = [shapely.Polygon(b).buffer(-1e-7) for b in blk]
    hit = False
    for a in np.linspace(-1, 1, 81):
        for bx in np.linspace(-7, -5, 41):
            for by in np.linspace(13, 15, 41):
                seg = shapely.LineString([(a, 0), (bx, by)])
                if not any(seg.intersects(g) for g in G):
                    hit = True
                    break
            if hit:
                break
        if hit:
            break
    assert ok == hit


def test_deep_overlap_of_nearly_parallel_rectangles() -> None:
    # found by hypothesis: 1 degree apart, overlapping by about 1.5 (the generic solver
    # used to miss this maximum; both now agree on the exact edge-normal value)
    A, B = rect((0, 0), 1.0, 1.5, 4.625), rect((3.0625, 0), 0.0, 1.625, 4.625)
    ref = signed_distance(Footprint((ConvexPolygon(tuple(map(tuple, A))),)),
                          Footprint((ConvexPolygon(tuple(map(tuple, B))),)))
    assert abs(sd(A, B) - ref) < 1e-9
    assert abs(sd(A, B) + 1.5492869474866053) < 1e-12


seg_pts = st.lists(st.tuples(coord, coord, coord, coord), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seg_pts, coord, coord, ang, size, size, coord, coord, coord, coord)
def test_packed_hits_is_clearance_at_most_zero(segs: list[tuple[float, float, float, float]], x: float, y: float,
                                               a: float, w: float, d: float, bx: float, by: float, ex: float,
                                               ey: float) -> None:
    # a rectangle, a triangle and a bare segment; segments touching a box corner exactly,
    # running along an edge and degenerate ones (a point) among the probes
    R = rect((x, y), a, w, d)
    tri = np.array([[bx, by], [bx + 2.0, by], [bx + 1.0, by + 1.5]])
    bar = np.array([[ex, ey], [ex + 1.0, ey + 0.5]])
    pk = Packed([R, tri, bar])
    P0 = np.array([[p[0], p[1]] for p in segs] + [R[0], R[0], tri[0], bar[0]])
    P1 = np.array([[p[2], p[3]] for p in segs] + [R[1], R[0], tri[0] - 1.0, bar[0] - [0.0, 1.0]])
    assert np.array_equal(pk.hits(P0, P1), pk.clearance(P0, P1) <= 0.0)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(coord, coord, ang, size, size, st.lists(st.tuples(coord, coord, coord, coord), min_size=1, max_size=6))
def test_poly_seg_dists_is_poly_seg_dist_for_each(x: float, y: float, a: float, w: float, d: float,
                                                  segs: list[tuple[float, float, float, float]]) -> None:
    P = rect((x, y), a, w, d)
    A = np.array([[s[0], s[1]] for s in segs] + [P[0], P[2] + (P[2] - P[1])])  # from a corner; along an edge
    B = np.array([[s[2] + 1e-3, s[3]] for s in segs] + [P[0] + [3.0, 1.0], P[3] + (P[3] - P[0]) * 0.5])
    got = poly_seg_dists(P, A, B)
    assert got.tolist() == [poly_seg_dist(P, A[i], B[i]) for i in range(len(A))]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(coord, coord, ang, coord, coord, ang, ang, size, size, st.floats(-8, 0), st.floats(0, 8))
def test_straight_move_cost_along_a_line_closed_forms(x0: float, y0: float, f0: float, x1: float, y1: float,
                                                      f1: float, th: float, w: float, d: float, a: float,
                                                      b: float) -> None:
    # a stand at (x0, y0, f0) moving straight to (x1, y1) + x t facing f1: the cost is
    # max_dist(p, t, x); its least value on [a, b] and the stretch within a move
    p = rect((x1, y1), f1, w, d) - rect((x0, y0), f0, w, d)
    t = np.array([math.cos(math.radians(th)), math.sin(math.radians(th))])
    assert max_dist(p, t, 0.3) == pytest.approx(corner_cost(np.array([x0, y0]), f0,
                                                            np.array([x1, y1]) + 0.3 * t, f1, w, d), abs=1e-12)
    m = max_dist_argmin(p, t, a, b)
    fm = max_dist(p, t, m)
    assert a <= m <= b
    for x in (a, b, max(a, m - 1e-6), min(b, m + 1e-6)):
        assert fm <= max_dist(p, t, x) + 1e-12
    r = fm + 1.0
    cut = max_dist_cut(p, t, r)
    assert cut is not None and cut[0] <= m <= cut[1]
    assert max_dist(p, t, cut[0]) == pytest.approx(r, abs=1e-9)
    assert max_dist(p, t, cut[1]) == pytest.approx(r, abs=1e-9)
    assert max_dist(p, t, cut[0] - 1e-6) > r and max_dist(p, t, cut[1] + 1e-6) > r
    assert max_dist_cut(p, t, max_dist(p, t, max_dist_argmin(p, t, -1e3, 1e3)) - 1e-6) is None
