"""Root isolation along an offset curve with a proof (issue 9): an interval between two
samples with values of one sign is dropped only when a Lipschitz bound shows the
function cannot reach zero in it, so a pair of roots closer together than any sample
spacing (a circle that only just crosses a locus) is found, where the refined angle
set missed it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chargeref.geometry import placement as pl
from chargeref.geometry.shapes import ConvexPolygon, Disc, Ellipse, Footprint

C0 = 1.234567


@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-8])
def test_narrow_root_pair_between_samples(delta: float) -> None:
    """1 - cos(θ - c) - δ has two roots c ± acos(1 - δ) (2.8e-4 rad apart for δ = 1e-8,
    far inside one sample spacing); |f'| <= 1."""

    def f(th: np.ndarray) -> np.ndarray:
        return 1.0 - np.cos(np.asarray(th) - C0) - delta

    got = pl.angle_roots(f, [], lip=1.0)
    half = math.acos(1.0 - delta)
    assert got == pytest.approx([C0 - half, C0 + half], abs=1e-9)
    # without the bound the refined angle set finds nothing for the narrow pairs
    if delta <= 1e-6:
        assert pl.angle_roots(f, []) == []


def test_no_root_is_proven_not_guessed() -> None:
    """A function that stays 1e-9 clear of zero: no root. Separating a minimum that
    shallow from zero with the Lipschitz bound alone takes more evaluations than the
    cap, so what comes back is one touching point, at the minimum (|f| within 1e-9 of
    its true minimum), never a guessed root pair; and the cap is counted. 1e-6 clear,
    it is proven root-free."""

    def f(th: np.ndarray) -> np.ndarray:
        return 1.0 - np.cos(np.asarray(th) - C0) + 1e-9

    before = pl.ISOLATION_STATS["capped"]
    got = pl.angle_roots(f, [], lip=1.0)
    assert pl.ISOLATION_STATS["capped"] == before + 1
    assert len(got) == 1
    assert float(f(np.array(got))[0]) <= 2e-9
    assert got[0] == pytest.approx(C0, abs=1e-4)

    def g(th: np.ndarray) -> np.ndarray:
        return 1.0 - np.cos(np.asarray(th) - C0) + 1e-6

    assert pl.angle_roots(g, [], lip=1.0) == []


@pytest.mark.parametrize("eps", [1e-4, 1e-7])
def test_circle_just_crossing_an_oval_locus(eps: float) -> None:
    """A round mover's centres 1" from an oval, and the circle round a point p whose
    radius exceeds the locus's nearest point to p by eps: two crossings, both found,
    both exactly on both curves."""
    T = Footprint((Ellipse((0.0, 0.0), 3.0, 1.5, 0.2),), kind="oval", origin=(0.0, 0.0))
    M = Footprint((Disc((10.0, 10.0), 0.5),), kind="round", origin=(10.0, 10.0))
    p = np.array([9.0, 6.0])
    q = pl.OffsetCurve(M, T, 1.0).nearest(p)[0]
    rho = float(np.hypot(*(q - p)))
    got = pl.locus_circle_crossings(M, T, 1.0, p, rho + eps)
    assert len(got) == 2
    assert float(np.hypot(*(got[0] - got[1]))) > 0.0
    assert np.hypot(*(got - p).T) == pytest.approx([rho + eps] * 2, abs=1e-9)
    assert pl.sd_at(M, got, T) == pytest.approx([1.0, 1.0], abs=1e-9)


def test_speed_bound_of_an_oval_locus() -> None:
    """The bound on the locus's speed is the oval's largest radius of curvature (a²/b)
    plus the disc's radius plus the gap, and no sampled speed exceeds it."""
    T = Footprint((Ellipse((0.0, 0.0), 3.0, 1.5, 0.2),), kind="oval", origin=(0.0, 0.0))
    M = Footprint((Disc((0.0, 0.0), 0.5),), kind="round", origin=(0.0, 0.0))
    cur = pl.OffsetCurve(M, T, 1.0)
    assert cur.speed() == pytest.approx(9.0 / 1.5 + 0.5 + 1.0)
    th = np.linspace(0.0, 2 * math.pi, 20001)
    P = cur.at(0, th)
    v = np.hypot(*np.diff(P, axis=0).T) / np.diff(th)
    assert float(v.max()) <= cur.speed()


@pytest.mark.parametrize("rho", [2.5, 3.0, 3.6])
def test_oval_round_a_rectangle_crosses_a_circle_on_the_flat_sides(rho: float) -> None:
    """An oval mover 0.5" from a 4" x 2" rectangle: where the locus runs straight along
    a long side (a flat face sliding past the oval) a circle of radius 2.5" round the
    centre crosses it twice per side, with both ends of that straight piece outside the
    circle. The straight pieces are searched with the same bound, so all four
    crossings are found (the sign test at their ends saw none)."""
    T = Footprint((ConvexPolygon(((-2.0, -1.0), (2.0, -1.0), (2.0, 1.0), (-2.0, 1.0))),), kind="rect", origin=(0.0, 0.0))
    M = Footprint((Ellipse((0.0, 0.0), 1.0, 0.5, 0.3),), kind="oval", origin=(0.0, 0.0))
    got = pl.locus_circle_crossings(M, T, 0.5, np.array([0.0, 0.0]), rho)
    assert len(got) == 4
    assert np.hypot(*got.T) == pytest.approx([rho] * 4, abs=1e-9)
    assert pl.sd_at(M, got, T) == pytest.approx([0.5] * 4, abs=1e-9)
