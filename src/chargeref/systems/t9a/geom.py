"""Exact plane geometry for rank-and-file blocks (no rules here).

Shapes are convex polygons (counter-clockwise ``(n, 2)`` arrays), discs and capsules
(a segment thickened by a radius). Every distance below is a closed form:

* polygon-polygon: separating axes for overlap, vertex-edge distances otherwise;
* a polygon *translating* along a segment sweeps the convex hull of its start and end.

Turning shapes are in ``geom_turn.py``, the times of impact of a translation in
``geom_move.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .geom_small import (  # noqa: F401  (re-exported: the plain expressions the tests compare with)
    _bbox_circle_small,
    _gap_shapes_small,
    _poly_gap_small,
    _sat_shapes,
    _sat_small,
    _shape_axes,
    _vert_edge2,
    turn_gap_lower,
    turn_gap_lower_own,
)

TWO_PI = 2 * math.pi


def rot2(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def unit(deg: float) -> np.ndarray:
    r = math.radians(deg)
    return np.array([math.cos(r), math.sin(r)])


def cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def wrap_deg(a: float) -> float:
    """Angle in degrees wrapped to (-180, 180]."""
    a = math.fmod(a, 360.0)
    if a <= -180.0:
        a += 360.0
    elif a > 180.0:
        a -= 360.0
    return a


def angle_of(v: np.ndarray) -> float:
    """Direction of a vector in degrees, in [0, 360)."""
    a = math.degrees(math.atan2(float(v[1]), float(v[0])))
    return a + 360.0 if a < 0 else a


def ccw(V: np.ndarray) -> np.ndarray:
    V = np.asarray(V, dtype=float)
    x, y = V[:, 0], V[:, 1]
    area = float(x[:-1] @ y[1:] - x[1:] @ y[:-1] + x[-1] * y[0] - x[0] * y[-1])
    return V if area >= 0 else V[::-1].copy()


def hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (monotone chain), counter-clockwise, no repeated points."""
    # rows as plain floats first (the same values; iterating an array's rows is slow)
    pts = sorted({(round(x, 12), round(y, 12)) for x, y in np.asarray(points, dtype=float).tolist()})
    if len(pts) <= 2:
        return np.asarray(pts, dtype=float)

    def turn(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.asarray(lower[:-1] + upper[:-1], dtype=float)


# ----------------------------------------------------------------------------- shapes


@dataclass(frozen=True, eq=False)
class Shape:
    """A convex shape: ``poly`` (vertices ``V``), or ``cap`` (segment ``a``-``b`` with
    radius ``r``; a disc when ``a == b``)."""

    kind: str
    V: np.ndarray | None = None
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    r: float = 0.0

    @staticmethod
    def poly(V: np.ndarray) -> Shape:
        return Shape("poly", V=ccw(np.asarray(V, dtype=float)))

    @staticmethod
    def disc(c: np.ndarray, r: float) -> Shape:
        c = np.asarray(c, dtype=float)
        return Shape("cap", a=c, b=c, r=float(r))

    @staticmethod
    def capsule(a: np.ndarray, b: np.ndarray, r: float) -> Shape:
        return Shape("cap", a=np.asarray(a, float), b=np.asarray(b, float), r=float(r))

    @property
    def is_disc(self) -> bool:
        return self.kind == "cap" and self.a is not None and self.b is not None and bool(np.all(self.a == self.b))

    def bbox_circle(self) -> tuple[np.ndarray, float]:
        bc = self.__dict__.get("_bc")
        if bc is None:
            bc = self._bbox_circle()
            self.__dict__["_bc"] = bc
        return bc

    def bbox_circle_f(self) -> tuple[float, float, float]:
        """``bbox_circle`` as plain floats ``(cx, cy, r)`` (cached: ``near`` asks often)."""
        bf = self.__dict__.get("_bf")
        if bf is None:
            c, r = self.bbox_circle()
            bf = (float(c[0]), float(c[1]), float(r))
            self.__dict__["_bf"] = bf
        return bf

    def vl(self) -> list[list[float]]:
        """A polygon's vertices as a list of ``[x, y]`` floats (cached; the small-polygon
        paths below work on these)."""
        v = self.__dict__.get("_vl")
        if v is None:
            assert self.V is not None
            v = self.__dict__["_vl"] = self.V.tolist()
        return v

    def _bbox_circle(self) -> tuple[np.ndarray, float]:
        if self.kind == "poly" and self.V is not None and len(self.V) < 8:
            return _bbox_circle_small(self.vl())
        if self.kind == "poly":
            assert self.V is not None
            c = self.V.mean(axis=0)
            d = self.V - c
            return c, float(np.sqrt(np.max(d[:, 0] ** 2 + d[:, 1] ** 2)))
        assert self.a is not None and self.b is not None
        c = (self.a + self.b) / 2
        return c, float(np.linalg.norm(self.b - self.a)) / 2 + self.r

    def points(self) -> np.ndarray:
        """Defining points (vertices, or the segment ends)."""
        if self.kind == "poly":
            assert self.V is not None
            return self.V
        assert self.a is not None and self.b is not None
        return np.stack([self.a, self.b])

    def transformed(self, R: np.ndarray, pivot: np.ndarray) -> Shape:
        if self.kind == "poly":
            assert self.V is not None
            return Shape("poly", V=(self.V - pivot) @ R.T + pivot)
        assert self.a is not None and self.b is not None
        return Shape("cap", a=(self.a - pivot) @ R.T + pivot, b=(self.b - pivot) @ R.T + pivot, r=self.r)

    def translated(self, d: np.ndarray) -> Shape:
        if self.kind == "poly":
            assert self.V is not None
            return Shape("poly", V=self.V + d)
        assert self.a is not None and self.b is not None
        return Shape("cap", a=self.a + d, b=self.b + d, r=self.r)


# ----------------------------------------------------------------------------- distances


def point_seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    L2 = float(ab @ ab)
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, float((p - a) @ ab) / L2))
    return float(np.hypot(*(p - (a + t * ab))))


def seg_seg_dist(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> float:
    if segments_intersect(a, b, c, d):
        return 0.0
    return min(point_seg_dist(a, c, d), point_seg_dist(b, c, d), point_seg_dist(c, a, b), point_seg_dist(d, a, b))


def segments_intersect(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    d1 = cross(b - a, c - a)
    d2 = cross(b - a, d - a)
    d3 = cross(d - c, a - c)
    d4 = cross(d - c, b - c)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True
    return False


def point_poly_signed(p: np.ndarray, V: np.ndarray) -> float:
    """Signed distance from a point to a convex CCW polygon (negative inside)."""
    A = V
    AB = _edges(V)
    AP = p[None, :] - A
    L2 = np.einsum("ij,ij->i", AB, AB)
    t = np.clip(np.einsum("ij,ij->i", AP, AB) / np.where(L2 == 0, 1, L2), 0, 1)
    close = A + t[:, None] * AB
    d = float(np.min(np.hypot(*(p[None, :] - close).T)))
    inside = bool(np.all(AB[:, 0] * AP[:, 1] - AB[:, 1] * AP[:, 0] >= 0))
    return -d if inside else d


def _edges(V: np.ndarray) -> np.ndarray:
    return np.concatenate([V[1:], V[:1]]) - V


def _vert_edge(V: np.ndarray, W: np.ndarray, E: np.ndarray) -> float:
    """Least distance from the vertices V to the edges (W, W + E)."""
    AP = V[:, None, :] - W[None, :, :]
    L2 = np.einsum("ij,ij->i", E, E)
    L2 = np.where(L2 == 0, 1.0, L2)
    t = np.clip(np.einsum("nmk,mk->nm", AP, E) / L2, 0.0, 1.0)
    diff = AP - t[..., None] * E[None, :, :]
    return float(np.sqrt(np.min(np.einsum("nmk,nmk->nm", diff, diff))))


def poly_gap(P: np.ndarray, Q: np.ndarray) -> float:
    """Signed distance between convex polygons: the gap, or minus the penetration.
    Small polygons (units' rectangles) take the same steps in plain floats, which is
    several times faster than numpy for a handful of vertices."""
    if len(P) <= 8 and len(Q) <= 8:
        return _poly_gap_small(P.tolist(), Q.tolist())
    return _poly_gap_np(P, Q)


def gap_ok(A: Shape, B: Shape, ok: Callable[[float], bool]) -> tuple[bool, float]:
    """``ok(gap(A, B))`` for a test ``ok`` that is monotone (true for every gap above
    one it accepts), and the gap when it fails. For two polygons the separating-axis
    separation, a lower bound of the gap (exact when they overlap), decides first:
    when it already passes the exact distance is not needed."""
    if A.kind == "poly" and B.kind == "poly":
        assert A.V is not None and B.V is not None
        if len(A.V) <= 8 and len(B.V) <= 8:
            P, Q = A.vl(), B.vl()
            lb = _sat_shapes(A, B)
            if lb < 0:
                return ok(lb), lb
            if ok(lb):
                return True, lb
            g = math.sqrt(min(_vert_edge2(P, Q), _vert_edge2(Q, P)))
            return ok(g), g
    g = gap(A, B)
    return ok(g), g


def gap_lower(A: Shape, B: Shape) -> float:
    """A lower bound of ``gap(A, B)``: for two small polygons the separating-axis
    separation (exact when they overlap), otherwise the gap itself."""
    if A.kind == "poly" and B.kind == "poly":
        assert A.V is not None and B.V is not None
        if len(A.V) <= 8 and len(B.V) <= 8:
            return _sat_shapes(A, B)
    return gap(A, B)


def _poly_gap_np(P: np.ndarray, Q: np.ndarray) -> float:
    eP, eQ = _edges(P), _edges(Q)
    e = np.concatenate([eP, eQ])
    axes = np.stack([e[:, 1], -e[:, 0]], axis=-1)
    ln = np.hypot(axes[:, 0], axes[:, 1])
    keep = ln > 0
    axes = axes[keep] / ln[keep, None]
    pp = P @ axes.T
    qq = Q @ axes.T
    sep = np.maximum(qq.min(axis=0) - pp.max(axis=0), pp.min(axis=0) - qq.max(axis=0))
    best = float(sep.max())
    if best < 0:
        return best  # overlap: the least overlap over the edge normals is the depth
    # apart: the distance is reached at a vertex of one and an edge of the other
    return min(_vert_edge(P, Q, eQ), _vert_edge(Q, P, eP))


def seg_poly_gap(a: np.ndarray, b: np.ndarray, V: np.ndarray) -> float:
    """Signed distance from a segment to a convex polygon (negative if they cross)."""
    if float(np.linalg.norm(b - a)) == 0.0:
        return point_poly_signed(a, V)
    return _seg_poly(a, b, V)


def _seg_poly(a: np.ndarray, b: np.ndarray, V: np.ndarray) -> float:
    da, db = point_poly_signed(a, V), point_poly_signed(b, V)
    if da < 0 or db < 0:
        return min(da, db)
    clip = _clip_segment(a, b, V)
    if clip is not None:
        # part of the segment is inside: its depth at the middle of that part
        return min(0.0, point_poly_signed((clip[0] + clip[1]) / 2, V))
    d = min(da, db)
    for p in V:
        d = min(d, point_seg_dist(p, a, b))
    return d


def _clip_segment(a: np.ndarray, b: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of segment a-b inside the convex CCW polygon (Cyrus-Beck), if any
    part of positive length."""
    t0, t1 = 0.0, 1.0
    d = b - a
    Vb = np.roll(V, -1, axis=0)
    for p, q in zip(V, Vb, strict=True):
        e = q - p
        n = np.array([e[1], -e[0]])  # outward for CCW
        num = float(n @ (a - p))
        den = float(n @ d)
        if den == 0:
            if num > 0:
                return None
            continue
        t = -num / den
        if den > 0:
            t1 = min(t1, t)
        else:
            t0 = max(t0, t)
        if t0 >= t1:
            return None
    return a + t0 * d, a + t1 * d


def gap(A: Shape, B: Shape) -> float:
    """Signed distance between two shapes (negative: overlap)."""
    if A.kind == "poly" and B.kind == "poly":
        assert A.V is not None and B.V is not None
        if len(A.V) <= 8 and len(B.V) <= 8:
            return _gap_shapes_small(A, B)
        return poly_gap(A.V, B.V)
    if A.kind == "cap" and B.kind == "cap":
        assert A.a is not None and A.b is not None and B.a is not None and B.b is not None
        return seg_seg_dist(A.a, A.b, B.a, B.b) - A.r - B.r
    if A.kind == "cap":
        A, B = B, A
    assert A.V is not None and B.a is not None and B.b is not None
    return _seg_poly(B.a, B.b, A.V) - B.r


def near(A: Shape, B: Shape, margin: float) -> bool:
    """Cheap test: could the shapes be within ``margin`` of each other?"""
    ax, ay, ra = A.bbox_circle_f()
    bx, by, rb = B.bbox_circle_f()
    return math.hypot(ax - bx, ay - by) <= ra + rb + margin


# ----------------------------------------------------------------------------- sweeps


def sweep_translate(A: Shape, d: np.ndarray) -> Shape:
    """The region a shape covers while translating by ``d`` (exact, convex)."""
    if A.kind == "poly":
        assert A.V is not None
        if float(np.hypot(*d)) == 0:
            return A
        return Shape("poly", V=hull(np.concatenate([A.V, A.V + d])))
    assert A.a is not None and A.b is not None
    if A.is_disc:
        return Shape.capsule(A.a, A.a + d, A.r)
    return Shape("poly", V=hull(np.stack([A.a, A.b, A.a + d, A.b + d]))) if A.r == 0 else _cap_sweep(A, d)


def _cap_sweep(A: Shape, d: np.ndarray) -> Shape:
    # a capsule swept along d is not a capsule; approximate conservatively by the
    # capsule around the longer of its diagonals (never used for verdicts here)
    assert A.a is not None and A.b is not None
    pts = np.stack([A.a, A.b, A.a + d, A.b + d])
    c = pts.mean(axis=0)
    r = float(np.max(np.linalg.norm(pts - c, axis=1)))
    return Shape.disc(c, r + A.r)
