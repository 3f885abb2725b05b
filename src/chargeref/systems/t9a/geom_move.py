"""A polygon *translating* along a direction: how far it may go before it comes within
a margin of another shape (exact ray casts of vertices against offset edges and rounded
corners), and the stretch of the move during which it is that close (no rules here).
"""

from __future__ import annotations

import math

import numpy as np

from ...geometry.shapes import TOL
from .geom import Shape, cross, gap, sweep_translate


def translate_limit(A: Shape, d: np.ndarray, B: Shape, min_gap: float) -> float:
    """The largest fraction k in [0, 1] such that A translated by any k' * d with
    k' <= k stays at least ``min_gap`` from B (bisection on the exact sweep test)."""
    if gap(sweep_translate(A, d), B) >= min_gap - TOL:
        return 1.0
    if gap(A, B) < min_gap - TOL:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if gap(sweep_translate(A, d * mid), B) >= min_gap - TOL:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return lo


def _ray_seg(p: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray) -> float | None:
    """Smallest k >= 0 with p + k d on segment a-b (None if it never is)."""
    e = b - a
    den = cross(d, e)
    w = a - p
    if abs(den) < 1e-15:
        # parallel: touching only if collinear; take the nearer end along d
        if abs(cross(w, d)) > 1e-12:
            return None
        dd = float(d @ d)
        ks = [float((a - p) @ d) / dd, float((b - p) @ d) / dd]
        if max(ks) < 0:
            return None
        if min(ks) <= 0 <= max(ks):
            return 0.0
        return min(k for k in ks if k >= 0)
    k = cross(w, e) / den
    u = cross(w, d) / den
    if k < -1e-12 or u < -1e-12 or u > 1 + 1e-12:
        return None
    return max(k, 0.0)


def _ray_circle(p: np.ndarray, d: np.ndarray, c: np.ndarray, r: float) -> float | None:
    f = p - c
    a = float(d @ d)
    b = 2 * float(f @ d)
    cc = float(f @ f) - r * r
    if cc <= 0:
        return 0.0
    disc = b * b - 4 * a * cc
    if disc < 0:
        return None
    k = (-b - math.sqrt(disc)) / (2 * a)
    return k if k >= 0 else None


def time_of_impact(A: Shape, d: np.ndarray, B: Shape, margin: float = 0.0) -> float | None:
    """Smallest k >= 0 such that A moved by k*d comes within ``margin`` of B (0 if it
    already is), or None if moving along d never brings them that close. Exact: ray
    casts of vertices against (offset) edges and rounded corners."""
    if gap(A, B) <= margin:
        return 0.0
    best: float | None = None

    def take(k: float | None) -> None:
        nonlocal best
        if k is not None and (best is None or k < best):
            best = k

    assert A.kind == "poly" and A.V is not None
    P = A.V
    Pe = list(zip(P, np.concatenate([P[1:], P[:1]]), strict=True))

    def offset(a: np.ndarray, b: np.ndarray, r: float) -> tuple[np.ndarray, np.ndarray] | None:
        n = np.array([b[1] - a[1], -(b[0] - a[0])])
        ln = float(np.hypot(*n))
        if ln == 0:
            return None
        n = n / ln
        return a + n * r, b + n * r

    if B.kind == "poly":
        assert B.V is not None
        Q = B.V
        Qe = list(zip(Q, np.concatenate([Q[1:], Q[:1]]), strict=True))
        for v in P:
            for a, b in Qe:
                o = offset(a, b, margin)
                if o is not None:
                    take(_ray_seg(v, d, o[0], o[1]))
            if margin > 0:
                for w in Q:
                    take(_ray_circle(v, d, w, margin))
        for w in Q:
            for a, b in Pe:
                o = offset(a, b, margin)
                if o is not None:
                    take(_ray_seg(w, -d, o[0], o[1]))
        return best
    assert B.a is not None and B.b is not None
    r = B.r + margin
    ends = [B.a] if B.is_disc else [B.a, B.b]
    for c in ends:
        for a, b in Pe:
            o = offset(a, b, r)
            if o is not None:
                take(_ray_seg(c, -d, o[0], o[1]))
        for v in P:
            take(_ray_circle(c, -d, v, r))
    if not B.is_disc:
        # A's vertices against the capsule's straight sides
        for v in P:
            for sgn in (1.0, -1.0):
                o = offset(B.a, B.b, sgn * r)
                if o is not None:
                    take(_ray_seg(v, d, o[0], o[1]))
    return best


def near_interval(A: Shape, d: np.ndarray, B: Shape, margin: float, kmax: float) -> tuple[float, float] | None:
    """The interval of k in [0, kmax] where A moved by k*d is within ``margin`` of B
    (an interval: the distance between convex sets moving linearly is convex)."""
    k0 = time_of_impact(A, d, B, margin)
    if k0 is None or k0 > kmax:
        return None
    far = A.translated(d * kmax)
    k1 = time_of_impact(far, -d, B, margin)
    if k1 is None:
        return None
    return k0, kmax - k1
