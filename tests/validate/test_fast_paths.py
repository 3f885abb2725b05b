"""The validator's fast paths give the verdicts of the exact one-pair-at-a-time
functions they replace (hypothesis, fixed examples first)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.bases import base_footprint, rect_polygon
from chargeref.geometry.shapes import TOL, Footprint, signed_distance
from chargeref.validate.t9a import _sat_sd
from chargeref.validate.w40k_state import Placed, gap_matrix, within_matrix
from chargeref.validate.warmaster import _gap, _hull_ccw, _pen

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

BASES = [("round", 32), ("round", 60), ("oval", [90, 52]), ("rect", [50, 25])]


def placed(i: int, kind: tuple, x: float, y: float, facing: float, z: float = 0.0) -> Placed:
    fp = base_footprint(kind[0], kind[1], (x, y), facing, 25.4)
    return Placed(f"M{i}", "U", 1, None, (x, y), z, 0.0, fp)  # type: ignore[arg-type]


coords = st.floats(0, 8, allow_nan=False)
model = st.tuples(st.sampled_from(range(len(BASES))), coords, coords, st.floats(0, 360))


@SETTINGS
@given(a=st.lists(model, min_size=1, max_size=5), b=st.lists(model, min_size=1, max_size=5),
       cutoff=st.sampled_from([0.0, 1.0, 2.0, math.inf]))
@example(a=[(0, 1.0, 1.0, 0.0)], b=[(0, 1.0 + 32 / 25.4, 1.0, 0.0)], cutoff=0.0)
def test_gap_matrix_is_signed_distance_up_to_the_cutoff(a: list, b: list, cutoff: float) -> None:
    A = [placed(i, BASES[k], x, y, f) for i, (k, x, y, f) in enumerate(a)]
    B = [placed(10 + i, BASES[k], x, y, f) for i, (k, x, y, f) in enumerate(b)]
    G = gap_matrix(A, B, cutoff)
    for i, p in enumerate(A):
        for j, q in enumerate(B):
            exact = signed_distance(p.fp, q.fp)
            if exact <= cutoff:
                assert abs(G[i, j] - exact) <= 1e-12
            else:
                assert G[i, j] > cutoff or abs(G[i, j] - exact) <= 1e-12
                assert G[i, j] <= exact + 1e-12


@SETTINGS
@given(a=st.lists(model, min_size=1, max_size=4), h=st.sampled_from([0.0, 1.0, 2.0]))
def test_within_matrix_matches_pairwise_within(a: list, h: float) -> None:
    from chargeref.validate.w40k_state import _within

    A = [placed(i, BASES[k], x, y, f, z=float(i % 2) * 3) for i, (k, x, y, f) in enumerate(a)]
    W = within_matrix(A, A, h, 5.0)
    for i, p in enumerate(A):
        for j, q in enumerate(A):
            assert W[i, j] == _within(p, q, h, 5.0)


rect = st.tuples(st.floats(0, 10), st.floats(0, 10), st.floats(0.5, 6), st.floats(0.5, 6), st.floats(0, 360))


@SETTINGS
@given(r1=rect, r2=rect)
@example(r1=(5.0, 5.0, 2.0, 2.0, 0.0), r2=(6.5, 5.0, 2.0, 2.0, 45.0))
def test_separating_axes_give_the_overlap_depth(r1: tuple, r2: tuple) -> None:
    """T9A turn check: the vectorised separating-axis value equals the exact signed
    distance wherever the rectangles overlap, and is positive wherever they do not."""
    P = rect_polygon((r1[0], r1[1]), r1[2], r1[3], math.radians(r1[4]))
    Q = rect_polygon((r2[0], r2[1]), r2[2], r2[3], math.radians(r2[4]))
    exact = signed_distance(Footprint((P,)), Footprint((Q,)))
    sat = float(_sat_sd(np.asarray(P.V)[None], np.asarray(Q.V))[0])
    if exact < -1e-9:
        assert abs(sat - exact) <= 1e-9
    elif exact > 1e-9:
        assert sat > 0


@SETTINGS
@given(r1=rect, r2=rect, far=st.sampled_from([0.0, 1e-3, 2.0]))
def test_warmaster_early_outs_keep_the_verdict(r1: tuple, r2: tuple, far: float) -> None:
    P = np.asarray(rect_polygon((r1[0], r1[1]), r1[2], r1[3], math.radians(r1[4])).V)
    Q = np.asarray(rect_polygon((r2[0], r2[1]), r2[2], r2[3], math.radians(r2[4])).V)
    exact = signed_distance(Footprint((rect_polygon((r1[0], r1[1]), r1[2], r1[3], math.radians(r1[4])),)),
                            Footprint((rect_polygon((r2[0], r2[1]), r2[2], r2[3], math.radians(r2[4])),)))
    # penetration verdicts
    assert (_pen(P, Q) < -TOL) == (exact < -TOL) or abs(exact + TOL) < 1e-9
    # gaps: exact up to ``far``
    g = _gap(P, Q, far)
    if max(exact, 0.0) <= far:
        assert abs(g - max(exact, 0.0)) <= 1e-9
    else:
        assert g > far
    # the hull of two copies is convex and counter-clockwise
    H = _hull_ccw(np.concatenate([P, Q]))
    e = np.roll(H, -1, axis=0) - H
    cross = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
    assert (cross > 0).all()
