"""The all-rows polygon-core distance (geometry/polygon_sd.py) against the one-row
closed form it replaces (shapes.core_signed_distance), at touching and overlapping
edges, turned and mirrored, and across its chunk boundary."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry import polygon_sd
from chargeref.geometry.bases import base_footprint
from chargeref.geometry.polygon_sd import cores_translations_sd
from chargeref.geometry.shapes import ConvexPolygon, core_signed_distance, footprint_translations_sd

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _core(angles: list[float], r: float, c: tuple[float, float]) -> np.ndarray:
    th = np.sort(np.asarray(angles, dtype=float))
    return np.c_[c[0] + r * np.cos(th), c[1] + r * np.sin(th)]


angles = st.lists(st.floats(0.0, 2 * math.pi, allow_nan=False), min_size=1, max_size=6, unique=True)
coord = st.floats(-4.0, 4.0, allow_nan=False)


@SETTINGS
@given(a=angles, b=angles, ra=st.floats(0.1, 2.0), rb=st.floats(0.1, 2.0),
       cb=st.tuples(coord, coord), P=st.lists(st.tuples(coord, coord), min_size=1, max_size=20))
@example(a=[0.0, math.pi / 2, math.pi, 3 * math.pi / 2], b=[0.0, math.pi / 2, math.pi, 3 * math.pi / 2],
         ra=1.0, rb=1.0, cb=(0.0, 0.0), P=[(0.0, 0.0), (2 * math.sqrt(2), 0.0), (1.0, 1.0)])
@example(a=[0.0], b=[0.0, math.pi], ra=1.0, rb=1.0, cb=(0.0, 0.0), P=[(0.0, 0.5), (3.0, 0.0), (-1.0, 0.0)])
def test_every_row_equals_the_one_row_closed_form(a, b, ra, rb, cb, P) -> None:
    VA, VB = _core(a, ra, (0.0, 0.0)), _core(b, rb, cb)
    P = np.asarray(P, dtype=float)
    got = cores_translations_sd(VA, VB, P)
    ref = np.array([core_signed_distance(VA + p, VB) for p in P])
    assert np.max(np.abs(got - ref)) <= 1e-12


def _square(h: float) -> np.ndarray:
    return np.array([(-h, -h), (h, -h), (h, h), (-h, h)], dtype=float)


@pytest.mark.parametrize("gap", [0.0, 1e-6, -1e-6, 1e-3, -0.25])
@pytest.mark.parametrize("turn", [0.0, 0.7, 2.3])
@pytest.mark.parametrize("mirror", [False, True])
def test_squares_face_to_face_at_the_edge(gap: float, turn: float, mirror: bool) -> None:
    """Two 1" squares side by side: the signed distance is the gap (negative: the
    overlap depth), whatever the frame."""
    c, s = math.cos(turn), math.sin(turn)
    R = np.array([[c, -s], [s, c]])
    M = np.diag([1.0, -1.0]) if mirror else np.eye(2)
    T = R @ M
    VA, VB = _square(0.5) @ T.T, _square(0.5) @ T.T
    if mirror:  # keep the vertices counter-clockwise
        VA, VB = VA[::-1], VB[::-1]
    p = np.array([-(1.0 + gap), 0.0]) @ T.T
    got = float(cores_translations_sd(VA, VB, p[None])[0])
    assert got == pytest.approx(gap, abs=1e-12)


def test_rows_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows split over several chunks give the same values as one chunk."""
    rng = np.random.default_rng(5)
    VA, VB = _square(0.6), _core([0.1, 2.0, 4.0], 1.0, (0.5, 0.2))
    P = rng.uniform(-3.0, 3.0, (1000, 2))
    whole = cores_translations_sd(VA, VB, P)
    monkeypatch.setattr(polygon_sd, "CHUNK", 7)
    assert np.array_equal(cores_translations_sd(VA, VB, P), whole)


def test_rect_bases_through_the_footprint_entry_point() -> None:
    """Two 40x40 mm bases: the footprint distance of many translations is the closed
    form of the one-row path, and touching corners measure 0."""
    A = base_footprint("rect", (40.0, 40.0), (0.0, 0.0), 0.0, 25.4)
    B = base_footprint("rect", (40.0, 40.0), (0.0, 0.0), 30.0, 25.4)
    assert isinstance(A.parts[0], ConvexPolygon)
    rng = np.random.default_rng(11)
    P = rng.uniform(-3.0, 3.0, (200, 2))
    got = footprint_translations_sd(A, B, P)
    ref = np.array([core_signed_distance(A.parts[0].V + p, B.parts[0].V) for p in P])
    assert np.max(np.abs(got - ref)) <= 1e-12
