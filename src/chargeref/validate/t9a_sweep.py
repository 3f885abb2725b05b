"""Exact turn check of the T9A validator: does a block turning about a point pass
through an obstacle?

A turning rigid shape ``A`` (a rectangle or a disc) and a fixed convex obstacle part
``Q`` (a convex polygon or a disc) can only start or stop overlapping at an instant
when their boundaries touch. For polygons that is a vertex of one lying on an edge of
the other; with a disc of radius ``r`` it is the disc's centre lying on an edge pushed
out by ``r`` or on a circle of radius ``r`` round a vertex (two discs: the centres
``rA + rQ`` apart). Every such instant is where a point turning about the pivot (a
vertex or a centre of ``A``; or, seen from ``A``, one of ``Q`` turning the other way)
crosses a segment or a circle: the crossing of two circles, or of a circle and a line,
a closed form. Between two neighbouring instants the overlap state does not change,
so testing one angle inside each piece (its middle) with the exact signed distance
decides the whole turn: no sampled positions.

Independent of the solver: it uses only ``geometry.shapes`` (no ``systems`` import).
"""

from __future__ import annotations

import math

import numpy as np

from ..geometry.shapes import TOL, ConvexPolygon, Disc, Footprint, signed_distance

#: an overlap deeper than this at the middle of a piece of the turn is moving through
#: (the contract's comparison tolerance; touching is allowed)
TURN_TOL = TOL


def _ang(u: np.ndarray, v: np.ndarray) -> float:
    """Signed angle (radians) turning u onto v."""
    return math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1])


def _turn_to(piv: np.ndarray, p: np.ndarray, sgn: float, q: np.ndarray) -> float:
    """How far (radians, in [0, 2 pi)) p must turn about piv in direction sgn to
    reach q (which lies on p's circle)."""
    t = sgn * _ang(p - piv, q - piv)
    return t % (2 * math.pi)


def arc_segment(piv: np.ndarray, p: np.ndarray, sgn: float, a: np.ndarray, b: np.ndarray) -> list[float]:
    """Turn amounts at which p, turning about piv, lies on the segment a-b (the
    circle |x - piv| = |p - piv| meets the segment: a quadratic in the segment
    parameter)."""
    rho2 = float((p - piv) @ (p - piv))
    if rho2 < 1e-24:
        return []
    d = b - a
    f = a - piv
    A = float(d @ d)
    if A < 1e-24:
        return []
    B = 2.0 * float(f @ d)
    C = float(f @ f) - rho2
    disc = B * B - 4 * A * C
    if disc < -1e-12 * max(1.0, B * B):
        return []
    sq = math.sqrt(max(0.0, disc))
    out = []
    for u in ((-B - sq) / (2 * A), (-B + sq) / (2 * A)):
        if -1e-12 <= u <= 1 + 1e-12:
            out.append(_turn_to(piv, p, sgn, a + min(1.0, max(0.0, u)) * d))
    return out


def arc_circle(piv: np.ndarray, p: np.ndarray, sgn: float, c: np.ndarray, r: float) -> list[float]:
    """Turn amounts at which p, turning about piv, lies on the circle (c, r)."""
    rho = float(np.hypot(*(p - piv)))
    if rho < 1e-12 or r <= 0:
        return []
    dv = c - piv
    dd = float(np.hypot(*dv))
    if dd < 1e-12 or dd > rho + r + 1e-12 or dd < abs(rho - r) - 1e-12:
        return []
    # the crossing points: along dv at x, across it at +-y
    x = (dd * dd + rho * rho - r * r) / (2 * dd)
    y = math.sqrt(max(0.0, rho * rho - x * x))
    e = dv / dd
    n = np.array([-e[1], e[0]])
    return [_turn_to(piv, p, sgn, piv + x * e + s * y * n) for s in (1.0, -1.0)]


def _edges(V: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(V[i], V[(i + 1) % len(V)]) for i in range(len(V))]


def _pushed(V: np.ndarray, r: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The edges of a counter-clockwise convex polygon pushed outward by r."""
    out = []
    for a, b in _edges(V):
        e = b - a
        L = float(np.hypot(*e))
        if L < 1e-15:
            continue
        n = np.array([e[1], -e[0]]) / L
        out.append((a + r * n, b + r * n))
    return out


def _events(A: ConvexPolygon | Disc, Q: ConvexPolygon | Disc, piv: np.ndarray, sgn: float) -> list[float]:
    """Every turn amount at which the boundaries of A (turning) and Q (fixed) can
    meet (see the module docstring)."""
    ev: list[float] = []
    if isinstance(A, ConvexPolygon) and isinstance(Q, ConvexPolygon):
        VA, VQ = A.V, Q.V
        for v in VA:
            for a, b in _edges(VQ):
                ev += arc_segment(piv, v, sgn, a, b)
        for v in VQ:  # seen from A, Q turns the other way
            for a, b in _edges(VA):
                ev += arc_segment(piv, v, -sgn, a, b)
    elif isinstance(A, ConvexPolygon) and isinstance(Q, Disc):
        c = Q.center
        for a, b in _pushed(A.V, Q.r):
            ev += arc_segment(piv, c, -sgn, a, b)
        for v in A.V:
            ev += arc_circle(piv, c, -sgn, v, Q.r)
    elif isinstance(A, Disc) and isinstance(Q, ConvexPolygon):
        c = A.center
        for a, b in _pushed(Q.V, A.r):
            ev += arc_segment(piv, c, sgn, a, b)
        for v in Q.V:
            ev += arc_circle(piv, c, sgn, v, A.r)
    elif isinstance(A, Disc) and isinstance(Q, Disc):
        ev += arc_circle(piv, A.center, sgn, Q.center, A.r + Q.r)
    else:  # pragma: no cover - the validator builds only these kinds
        raise TypeError(f"no exact turn test for {type(A).__name__} against {type(Q).__name__}")
    return ev


def _turned(A: ConvexPolygon | Disc, piv: np.ndarray, t: float) -> Footprint:
    c, s = math.cos(t), math.sin(t)
    R = np.array([[c, -s], [s, c]])
    if isinstance(A, Disc):
        q = (A.center - piv) @ R.T + piv
        return Footprint((Disc((float(q[0]), float(q[1])), A.r),), "round")
    V = (A.V - piv) @ R.T + piv
    return Footprint((ConvexPolygon(tuple((float(x), float(y)) for x, y in V)),), "polygon")


def turn_overlap(A: ConvexPolygon | Disc, piv: np.ndarray, angle: float, Q: ConvexPolygon | Disc) -> float | None:
    """The first turn (radians, signed like ``angle``) at which A, turning about piv
    by ``angle``, overlaps Q by more than ``TURN_TOL``: the middle of the first
    piece between contact instants where it does; None if it never does."""
    T = abs(angle)
    if T <= 0:
        return None
    sgn = 1.0 if angle > 0 else -1.0
    ev = sorted({round(e, 15) for e in _events(A, Q, np.asarray(piv, float), sgn) if 0.0 < e < T})
    cuts = [0.0, *ev, T]
    Qf = Footprint((Q,), "polygon")
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        if hi - lo <= 0:
            continue
        m = (lo + hi) / 2
        if signed_distance(_turned(A, piv, sgn * m), Qf) < -TURN_TOL:
            return sgn * m
    return None


def turn_hits(fp: Footprint, piv: np.ndarray, angle: float, obst: list[tuple[str, Footprint]]) -> str | None:
    """The obstacle a footprint turning about ``piv`` by ``angle`` (radians) passes
    through first, if any (touching is allowed)."""
    first: tuple[float, int] | None = None
    for k, (_, ofp) in enumerate(obst):
        for A in fp.parts:
            for Q in ofp.parts:
                if not isinstance(A, ConvexPolygon | Disc) or not isinstance(Q, ConvexPolygon | Disc):
                    raise TypeError("the exact turn test takes polygons and discs")
                t = turn_overlap(A, piv, angle, Q)
                if t is not None and (first is None or abs(t) < first[0]):
                    first = (abs(t), k)
    return None if first is None else obst[first[1]][0]
