"""The configuration space of a translating base: C-obstacles and exact segment tests.

See :mod:`chargeref.geometry.paths` for the whole story; this module holds the
public values (:class:`Barrier`, :class:`PathResult`), small vector helpers and
:class:`_CSet`, every (barrier part, base part) pair as a C-obstacle with its exact
signed distance to a segment of centre positions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .convex_distance import CERT_TOL, batch_separated, solve
from .shapes import (
    TOL,
    Capsule,
    Convex,
    ConvexPolygon,
    Disc,
    Ellipse,
    Footprint,
    Sum,
    convex_signed_distance,
    least_curvature_radius,
    segment_sweep,
)

#: Id reported by :func:`sweep_clear` when the base leaves the board.
BOARD_ID = "<board>"

_TWO_PI = 2.0 * math.pi
#: Angular tolerance (radians) for merging normals and for tangency tests. A segment
#: accepted as tangent within this angle can dip into its own polygon by at most
#: ``_ANG_EPS × length``, far below TOL on any table.
_ANG_EPS = 1e-9
#: Graph corners closer than this (scenario unit) are one vertex.
_MERGE_R = 1e-9
#: A point is "on" a tangent line when within this distance of it.
_ON_LINE = 1e-9
#: Smallest edge weight handed to Dijkstra (zero-length links are merged away first).
_TINY = 1e-300


# ----------------------------------------------------------------------------------
# public values
# ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Barrier:
    """An obstacle for paths: its horizontal extent and what crossing it costs.

    ``cost`` ``None`` makes the barrier hard (never entered). A number ``>= 0`` lets a
    path cross it; each straight path segment whose swept base penetrates the barrier
    (deeper than TOL) adds ``cost`` once.
    """

    footprint: Footprint
    cost: float | None
    id: str = ""

    def __post_init__(self) -> None:
        if self.cost is not None and not (self.cost >= 0 and math.isfinite(self.cost)):
            raise ValueError(f"barrier {self.id!r}: crossing cost must be finite and >= 0")

    @property
    def hard(self) -> bool:
        return self.cost is None


@dataclass(frozen=True)
class PathResult:
    """A path of the base centre with its exact length and crossing costs.

    ``segments`` is the path itself: straight pieces ``{"kind": "line", "from", "to"}``
    and arcs ``{"kind": "arc", "center", "radius", "from", "to", "ccw"}`` whose lengths
    add up to ``length``. ``points`` are their ends in order (for drawing and for the
    contract's ``moves[].path``); where the path bends along an arc the chord between two
    points is not the path. Round ovals a third kind of piece, ``{"kind": "curve",
    ...}``, runs along a smooth C-obstacle's boundary (see ``geometry/curves.py``).
    ``exact`` is False when a stand-in decided the path: the circumscribed polygon of
    an oval-involved obstacle, or the graph polyline when the exact construction found
    nothing as short; the length is then that of a valid path, possibly longer than
    the shortest; ``reason`` then says which case it was (empty when exact)."""

    cost: float
    length: float
    climb: float
    points: tuple[tuple[float, float], ...]
    crossed: tuple[str, ...]
    segments: tuple[dict, ...] = ()
    exact: bool = True
    reason: str = ""


# ----------------------------------------------------------------------------------
# small geometry helpers
# ----------------------------------------------------------------------------------


def _unit(angles: np.ndarray) -> np.ndarray:
    return np.stack([np.cos(angles), np.sin(angles)], axis=-1)


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull, counter-clockwise, without repeated or collinear vertices
    (Andrew's monotone chain). One point or two points come back as they are."""
    pts = np.unique(np.asarray(points, dtype=float), axis=0)
    if len(pts) <= 2:
        return pts
    scale = float(np.max(np.abs(pts))) + 1.0
    eps = 1e-13 * scale * scale

    def cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    lower: list[np.ndarray] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= eps:
            lower.pop()
        lower.append(p)
    upper: list[np.ndarray] = []
    for p in pts[::-1]:
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= eps:
            upper.pop()
        upper.append(p)
    return np.asarray(lower[:-1] + upper[:-1])


def _minkowski(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Minkowski sum of two convex vertex sets (exact: hull of pairwise sums)."""
    if len(b) == 1:
        return a + b[0]
    if len(a) == 1:
        return b + a[0]
    return _hull((a[:, None, :] + b[None, :, :]).reshape(-1, 2))


def _edge_normal_angles(core: np.ndarray) -> np.ndarray:
    """Angles of the outward edge normals of a CCW convex polygon (both normals for a
    segment, none for a point)."""
    if len(core) < 2:
        return np.empty(0)
    e = np.roll(core, -1, axis=0) - core
    keep = np.hypot(e[:, 0], e[:, 1]) > 0
    e = e[keep]
    return np.arctan2(-e[:, 0], e[:, 1])


def _decompose(part: Convex) -> tuple[np.ndarray, float] | None:
    """A convex part as (polygon core vertices, disc radius) when it is exactly such a
    rounded polygon (disc, capsule, polygon, sums of them); ``None`` if it is curved
    otherwise (an ellipse)."""
    if isinstance(part, Disc):
        return np.asarray([part.center], dtype=float), float(part.r)
    if isinstance(part, Capsule):
        return _hull(np.asarray([part.p0, part.p1], dtype=float)), float(part.r)
    if isinstance(part, ConvexPolygon):
        return part.V.astype(float).copy(), 0.0
    if isinstance(part, Sum):
        core = np.zeros((1, 2))
        rho = 0.0
        for sub in part.parts:
            d = _decompose(sub)
            if d is None:
                return None
            core = _minkowski(core, d[0])
            rho += d[1]
        return core, rho
    return None


def _flat_normal_angles(part: Convex) -> np.ndarray:
    """Normals of the flat sides of a part (polygon edges, capsule sides)."""
    if isinstance(part, ConvexPolygon):
        return _edge_normal_angles(part.V)
    if isinstance(part, Capsule):
        return _edge_normal_angles(_hull(np.asarray([part.p0, part.p1], dtype=float)))
    if isinstance(part, Sum):
        out = [_flat_normal_angles(p) for p in part.parts]
        return np.concatenate(out) if out else np.empty(0)
    return np.empty(0)


def _merge_normals(n: int, extras: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted normal angles: the ``n`` uniform ones plus ``extras``, each tagged with the
    uniform interval ``[2πj/n, 2π(j+1)/n)`` it starts. An extra within ``_ANG_EPS`` of a
    uniform normal replaces it (keeping its interval)."""
    step = _TWO_PI / n
    ang = np.arange(n) * step
    jj = np.arange(n)
    if len(extras) == 0:
        return ang, jj
    e = np.unique(np.mod(np.asarray(extras, dtype=float), _TWO_PI))
    r = np.rint(e / step)
    snap = np.abs(e - r * step) < _ANG_EPS
    jr = r[snap].astype(int)
    ang[jr % n] = e[snap] - np.where(jr == n, _TWO_PI, 0.0)
    rest = e[~snap]
    a = np.concatenate([ang, rest])
    j = np.concatenate([jj, np.floor(rest / step).astype(int) % n])
    order = np.argsort(a, kind="stable")
    a, j = a[order], j[order]
    keep = np.ones(len(a), dtype=bool)
    keep[1:] = np.diff(a) > _ANG_EPS
    if a[-1] - (a[0] + _TWO_PI) > -_ANG_EPS:
        keep[-1] = False
    return a[keep], j[keep]


def _line_corners(U: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Corner k = meeting point of tangent lines k and k+1 (cyclic): u·x = h."""
    U2 = np.roll(U, -1, axis=0)
    h2 = np.roll(h, -1)
    det = U[:, 0] * U2[:, 1] - U[:, 1] * U2[:, 0]
    x = (h * U2[:, 1] - h2 * U[:, 1]) / det
    y = (U[:, 0] * h2 - U2[:, 0] * h) / det
    return np.stack([x, y], axis=-1)


def _intersect(u1: np.ndarray, h1: np.ndarray, u2: np.ndarray, h2: np.ndarray) -> np.ndarray:
    """Meeting points of lines u1·x = h1 and u2·x = h2 (vectorised)."""
    det = u1[:, 0] * u2[:, 1] - u1[:, 1] * u2[:, 0]
    x = (h1 * u2[:, 1] - h2 * u1[:, 1]) / det
    y = (u1[:, 0] * h2 - u2[:, 0] * h1) / det
    return np.stack([x, y], axis=-1)


def _unique_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (a, b) pairs of non-negative ints, sorted by a then b."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if len(a) == 0:
        return a, b
    span = int(b.max()) + 1
    key = np.unique(a * span + b)
    return key // span, key % span


def _seg_point_d2_pairs(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances from points C[i] to segments [A[i], B[i]]."""
    s = B - A
    w = C - A
    ss = s[:, 0] * s[:, 0] + s[:, 1] * s[:, 1]
    t = np.divide(w[:, 0] * s[:, 0] + w[:, 1] * s[:, 1], ss, out=np.zeros(len(ss)), where=ss > 0)
    np.clip(t, 0.0, 1.0, out=t)
    dx = w[:, 0] - t * s[:, 0]
    dy = w[:, 1] - t * s[:, 1]
    return dx * dx + dy * dy


def _seg_point_dist(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Distance from points C[i] to segments [A[i], B[i]]."""
    s = B - A
    w = C - A
    ss = s[:, 0] * s[:, 0] + s[:, 1] * s[:, 1]
    t = np.divide(w[:, 0] * s[:, 0] + w[:, 1] * s[:, 1], ss, out=np.zeros(len(ss)), where=ss > 0)
    t = np.clip(t, 0.0, 1.0)
    dx = w[:, 0] - t * s[:, 0]
    dy = w[:, 1] - t * s[:, 1]
    return np.sqrt(dx * dx + dy * dy)


def _seg_point_d2_matrix(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances (S, Q) from points C[q] to segments [A[s], B[s]]."""
    sx = (B[:, 0] - A[:, 0])[:, None]
    sy = (B[:, 1] - A[:, 1])[:, None]
    wx = C[None, :, 0] - A[:, 0:1]
    wy = C[None, :, 1] - A[:, 1:2]
    ss = sx * sx + sy * sy
    inv = np.divide(1.0, ss, out=np.zeros_like(ss), where=ss > 0)
    t = wx * sx
    t += wy * sy
    t *= inv
    np.clip(t, 0.0, 1.0, out=t)
    wx -= t * sx
    wy -= t * sy
    wx *= wx
    wy *= wy
    wx += wy
    return wx


def _seg_poly_sd(A: np.ndarray, B: np.ndarray, V: np.ndarray, nv: np.ndarray) -> np.ndarray:
    """Exact signed distance between segments [A[i], B[i]] and convex CCW polygons V[i]
    (padded to a common vertex count by repeating the last vertex; ``nv`` = true count,
    1 = a point, 2 = a segment).

    Apart: the Euclidean distance (closest pair involves an endpoint or a vertex).
    Overlapping: minus the penetration depth, which for two convex polygons is the least
    overlap over the edge normals of both (separating-axis theorem).
    """
    P, K, _ = V.shape
    if K == 1:
        return _seg_point_dist(A, B, V[:, 0, :])
    Ax, Ay, Bx, By = A[:, 0:1], A[:, 1:2], B[:, 0:1], B[:, 1:2]
    Vx, Vy = V[..., 0], V[..., 1]
    Ex = np.roll(Vx, -1, axis=1) - Vx
    Ey = np.roll(Vy, -1, axis=1) - Vy
    ee = Ex * Ex + Ey * Ey
    inv = np.divide(1.0, ee, out=np.zeros_like(ee), where=ee > 0)
    # endpoints to polygon edges
    wAx, wAy = Ax - Vx, Ay - Vy
    t = np.clip((wAx * Ex + wAy * Ey) * inv, 0.0, 1.0)
    dA = ((wAx - t * Ex) ** 2 + (wAy - t * Ey) ** 2).min(axis=1)
    wBx, wBy = Bx - Vx, By - Vy
    t = np.clip((wBx * Ex + wBy * Ey) * inv, 0.0, 1.0)
    dB = ((wBx - t * Ex) ** 2 + (wBy - t * Ey) ** 2).min(axis=1)
    # polygon vertices to the segment
    Sx, Sy = Bx - Ax, By - Ay
    ss = Sx * Sx + Sy * Sy
    invs = np.divide(1.0, ss, out=np.zeros_like(ss), where=ss > 0)
    t = np.clip((-wAx * Sx - wAy * Sy) * invs, 0.0, 1.0)
    dV = ((-wAx - t * Sx) ** 2 + (-wAy - t * Sy) ** 2).min(axis=1)
    dist = np.sqrt(np.minimum(np.minimum(dA, dB), dV))
    # do they meet? an endpoint inside, a proper crossing of an edge, or contact
    cA = Ex * wAy - Ey * wAx
    cB = Ex * wBy - Ey * wBx
    solid = nv >= 3
    inside = solid & ((cA >= 0).all(axis=1) | (cB >= 0).all(axis=1))
    o1 = Sx * (-wAy) - Sy * (-wAx)
    o2 = np.roll(o1, -1, axis=1)
    crossing = ((o1 * o2 < 0) & (cA * cB < 0)).any(axis=1)
    meet = inside | crossing | (dist <= 1e-12)
    if not meet.any():
        return dist
    out = dist.copy()
    i = np.flatnonzero(meet)
    # sd = max over v of (min over the segment of v·x − h_P(v)); for a polygon and a
    # segment the maximiser is an outward edge normal of P or a normal of the segment.
    Vxi, Vyi = Vx[i], Vy[i]
    L = np.sqrt(ee[i])
    ok = L > 0
    Ls = np.where(ok, L, 1.0)
    nx, ny = Ey[i] / Ls, -Ex[i] / Ls
    pa = nx * Ax[i] + ny * Ay[i]
    pb = nx * Bx[i] + ny * By[i]
    gap = np.minimum(pa, pb) - (nx * Vxi + ny * Vyi)
    sat = np.where(ok, gap, -np.inf).max(axis=1)
    sl = np.sqrt(ss[i][:, 0])
    has = sl > 0
    sls = np.where(has, sl, 1.0)
    mx, my = -Sy[i][:, 0] / sls, Sx[i][:, 0] / sls
    proj = mx[:, None] * Vxi + my[:, None] * Vyi
    ma = mx * Ax[i][:, 0] + my * Ay[i][:, 0]
    seg_gap = np.maximum(ma - proj.max(axis=1), proj.min(axis=1) - ma)
    sat = np.where(has, np.maximum(sat, seg_gap), sat)
    use = np.isfinite(sat) & (sat <= 0)
    out[i] = np.where(use, sat, dist[i])
    return out


def _edge_lines(V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (..., K, 2) and offsets (..., K) of the edges of padded CCW
    polygons V (..., K, 2); zero-length edges get offset +inf (never separating)."""
    E = np.roll(V, -1, axis=-2) - V
    L = np.hypot(E[..., 0], E[..., 1])
    ok = L > 0
    Ls = np.where(ok, L, 1.0)
    N = np.stack([E[..., 1] / Ls, -E[..., 0] / Ls], axis=-1)
    H = np.where(ok, np.einsum("...i,...i->...", N, V), np.inf)
    return N, H


def _seg_poly_gap(
    A: np.ndarray, B: np.ndarray, V: np.ndarray, N: np.ndarray, H: np.ndarray
) -> np.ndarray:
    """Separating-axis value between segments [A[i], B[i]] and convex polygons V[i]
    (edge normals N[i], offsets H[i]): the exact signed distance when they overlap
    (minus the penetration depth) and a positive number when they are apart. Enough
    to decide ``sd < -tol`` at a fraction of :func:`_seg_poly_sd`'s cost."""
    pa = N[..., 0] * A[:, 0:1] + N[..., 1] * A[:, 1:2]
    pb = N[..., 0] * B[:, 0:1] + N[..., 1] * B[:, 1:2]
    sat = (np.minimum(pa, pb) - H).max(axis=1)
    S = B - A
    sl = np.hypot(S[:, 0], S[:, 1])
    has = sl > 0
    if has.any():
        i = np.flatnonzero(has)
        mx, my = -S[i, 1] / sl[i], S[i, 0] / sl[i]
        proj = mx[:, None] * V[i, :, 0] + my[:, None] * V[i, :, 1]
        ma = mx * A[i, 0] + my * A[i, 1]
        sat[i] = np.maximum(sat[i], np.maximum(ma - proj.max(axis=1), proj.min(axis=1) - ma))
    return sat


def _closest_between(P1: np.ndarray, P2: np.ndarray) -> tuple[float, np.ndarray | None]:
    """Distance between two convex polygons (points and segments allowed) and the unit
    direction from the first to the second; (0, None) when they meet."""

    def edges(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return P, np.roll(P, -1, axis=0)

    best = math.inf
    bp = bq = None
    for X, Y, flip in ((P1, P2, False), (P2, P1, True)):
        a, b = edges(Y)
        ab = b - a
        L2 = np.einsum("ij,ij->i", ab, ab)
        for p in X:
            t = np.divide(np.einsum("ij,ij->i", p - a, ab), L2, out=np.zeros(len(L2)), where=L2 > 0)
            t = np.clip(t, 0.0, 1.0)
            q = a + t[:, None] * ab
            d = np.hypot(*(q - p).T)
            k = int(np.argmin(d))
            if d[k] < best:
                best = float(d[k])
                bp, bq = (q[k], p) if flip else (p, q[k])
    # separated? (some edge normal of either polygon, or the witness line, separates them)
    axes = [np.asarray(bq) - np.asarray(bp)] if best > 0 else []
    for P in (P1, P2):
        if len(P) >= 2:
            e = np.roll(P, -1, axis=0) - P
            axes.extend(np.stack([e[:, 1], -e[:, 0]], axis=-1))
    separated = False
    for ax in axes:
        nrm = float(np.hypot(*ax))
        if nrm == 0:
            continue
        u = ax / nrm
        if (P2 @ u).min() - (P1 @ u).max() > 0 or (P1 @ u).min() - (P2 @ u).max() > 0:
            separated = True
            break
    if not separated or best <= 0:
        return 0.0, None
    d = np.asarray(bq) - np.asarray(bp)
    return best, d / np.hypot(*d)


# ----------------------------------------------------------------------------------
# base shape keys and the C-obstacle set
# ----------------------------------------------------------------------------------


def _rel_parts(base: Footprint) -> tuple[Convex, ...]:
    c = base.center
    return tuple(p.translated((-float(c[0]), -float(c[1]))) for p in base.parts)


def _part_key(p: Convex) -> tuple:
    def r(v: float) -> float:
        return round(float(v), 9)

    if isinstance(p, Disc):
        return ("D", r(p.c[0]), r(p.c[1]), r(p.r))
    if isinstance(p, Ellipse):
        return ("E", r(p.c[0]), r(p.c[1]), r(p.a), r(p.b), r(p.theta))
    if isinstance(p, ConvexPolygon):
        return ("P",) + tuple(r(v) for xy in p.vertices for v in xy)
    if isinstance(p, Capsule):
        return ("C", r(p.p0[0]), r(p.p0[1]), r(p.p1[0]), r(p.p1[1]), r(p.r))
    if isinstance(p, Sum):
        return ("S",) + tuple(_part_key(q) for q in p.parts)
    return ("X", id(p))


def _shape_key(base: Footprint) -> tuple:
    """Identifies a base's shape relative to its centre (position does not matter)."""
    if len(base.parts) == 1 and isinstance(base.parts[0], Disc):
        p = base.parts[0]
        c = base.center
        return ("D", round(p.c[0] - float(c[0]), 9), round(p.c[1] - float(c[1]), 9), round(p.r, 9))
    return tuple(_part_key(p) for p in _rel_parts(base))


class _CSet:
    """Every (barrier part, base part) pair as a C-obstacle, with what exact segment
    tests need: a polygon core and disc radius (exact), or circumscribed and inscribed
    polygons (ellipses), plus a bounding circle for the broad phase."""

    def __init__(self, rel_parts: tuple[Convex, ...], barriers: Sequence[Barrier], n: int) -> None:
        self.rel_parts = rel_parts
        self.barriers = tuple(barriers)
        self.n = n
        bar: list[int] = []
        self.O: list[Convex] = []
        self.b: list[Convex] = []
        outer: list[np.ndarray] = []
        inner: list[np.ndarray] = []
        rho: list[float] = []
        exact: list[bool] = []
        self.extras: list[np.ndarray] = []
        centre: list[np.ndarray] = []
        radius: list[float] = []
        dec_b = [_decompose(b) for b in rel_parts]
        for bi, barrier in enumerate(self.barriers):
            for O in barrier.footprint.parts:  # noqa: E741 (O for obstacle, as in the docs)
                dO = _decompose(O)
                for b, db in zip(rel_parts, dec_b, strict=True):
                    bar.append(bi)
                    self.O.append(O)
                    self.b.append(b)
                    if dO is not None and db is not None:
                        # C = core_O ⊕ (−core_b) ⊕ disc(ρ_O + ρ_b), exactly
                        core = _minkowski(dO[0], -db[0])
                        r = dO[1] + db[1]
                        c = core.mean(axis=0)
                        outer.append(core)
                        inner.append(core)
                        rho.append(r)
                        exact.append(True)
                        self.extras.append(_edge_normal_angles(core))
                        centre.append(c)
                        radius.append(float(np.max(np.hypot(*(core - c).T))) + r)
                    else:
                        ex = np.concatenate(
                            [_flat_normal_angles(O), _flat_normal_angles(b) + math.pi]
                        )
                        ang, _ = _merge_normals(n, ex)
                        U = _unit(ang)
                        h = O.h(U) + b.h(-U)
                        poly = _line_corners(U, h)
                        sup = O.support(U) - b.support(-U)
                        c = O.center - b.center
                        outer.append(poly)
                        inner.append(sup)
                        rho.append(0.0)
                        exact.append(False)
                        self.extras.append(ex)
                        centre.append(c)
                        radius.append(float(np.max(np.hypot(*(poly - c).T))))
        self.Q = len(bar)
        self.bar = np.asarray(bar, dtype=int)
        self.hard = np.asarray([self.barriers[i].cost is None for i in bar], dtype=bool)
        self.rho = np.asarray(rho, dtype=float)
        self.exact = np.asarray(exact, dtype=bool)
        self.centre = np.asarray(centre, dtype=float).reshape(-1, 2)
        self.radius = np.asarray(radius, dtype=float)
        self.core = outer
        self.nv = np.asarray([len(c) for c in outer], dtype=int)
        self.is_point = (self.nv == 1) & self.exact
        self.all = np.arange(self.Q)
        self.cost_of_bar = np.asarray([b.cost or 0.0 for b in self.barriers], dtype=float)
        # vertex-count buckets for padded vectorised tests
        size = np.where(
            self.nv <= 2, self.nv, np.where(self.nv <= 8, 8, 8 * np.ceil(self.nv / 8).astype(int))
        )
        self.bucket_of = size
        self.row_of = np.zeros(self.Q, dtype=int)
        self.buckets: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.lines: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        for K in np.unique(size):
            qs = np.flatnonzero(size == K)
            self.row_of[qs] = np.arange(len(qs))
            po = np.empty((len(qs), K, 2))
            pi = np.empty((len(qs), K, 2))
            for r, q in enumerate(qs):
                k = len(outer[q])
                po[r, :k] = outer[q]
                po[r, k:] = outer[q][-1]
                pi[r, :k] = inner[q]
                pi[r, k:] = inner[q][-1]
            self.buckets[int(K)] = (po, pi, self.nv[qs])
            self.lines[int(K)] = (*_edge_lines(po), *_edge_lines(pi))
        # curved C-obstacles also get a coarse circumscribed 12-gon: most segments that
        # pass near one are cleared by it at a fraction of the cost
        self.coarse_row = np.full(self.Q, -1)
        inexact = np.flatnonzero(~self.exact)
        self.coarse_row[inexact] = np.arange(len(inexact))
        U12 = _unit(np.arange(12) * (_TWO_PI / 12))
        self.coarse = np.asarray(
            [_line_corners(U12, self.h(int(q), U12)) for q in inexact]
        ).reshape(-1, 12, 2)
        self.coarse_in = np.asarray(
            [self.O[q].support(U12) - self.b[q].support(-U12) for q in inexact]
        ).reshape(-1, 12, 2)
        self.coarse_lines = (*_edge_lines(self.coarse), *_edge_lines(self.coarse_in))

    # -- support function of a C-obstacle (for graph polygons) --------------------
    def h(self, q: int, U: np.ndarray) -> np.ndarray:
        if self.exact[q]:
            return (self.core[q] @ U.T).max(axis=0) + self.rho[q]
        return self.O[q].h(U) + self.b[q].h(-U)

    # -- exact signed distances ---------------------------------------------------
    def sd_pairs(
        self,
        A: np.ndarray,
        B: np.ndarray,
        q: np.ndarray,
        tol: float = TOL,
        loose: bool | np.ndarray = False,
    ) -> np.ndarray:
        """Signed distances from centre segments [A[i], B[i]] to C-obstacles q[i],
        decision-grade: ``value < -tol`` exactly when the swept base penetrates deeper
        than tol. Exact cores give the exact value; curved ones are bracketed by
        circumscribed (lower bound) and inscribed (upper bound) polygons, then by a
        local maximisation of the support-function gap, then by the library solve.

        ``loose``: a segment that enters the circumscribed polygon of a *hard* curved
        C-obstacle counts as blocked without refining (conservative; used for the graph,
        whose corners and sides are tangent to those very polygons). A boolean array
        over the C-obstacles instead limits that to those marked True (the graph judges
        exactly an oval-involved C-obstacle whose polygon would close a true passage)."""
        out = np.empty(len(q))
        if len(q) == 0:
            return out
        todo = np.ones(len(q), dtype=bool)
        inex = ~self.exact[q]
        if inex.any():
            k = np.flatnonzero(inex)
            rows = self.coarse_row[q[k]]
            No, Ho, Ni, Hi = self.coarse_lines
            lo = _seg_poly_gap(A[k], B[k], self.coarse[rows], No[rows], Ho[rows])
            clear = lo >= -tol
            out[k[clear]] = lo[clear]
            todo[k[clear]] = False
            k, rows = k[~clear], rows[~clear]
            if len(k):
                hi = _seg_poly_gap(A[k], B[k], self.coarse_in[rows], Ni[rows], Hi[rows])
                deep = hi < -tol
                out[k[deep]] = hi[deep]
                todo[k[deep]] = False
        sizes = np.where(todo, self.bucket_of[q], -1)
        for K in np.unique(sizes):
            if K < 0:
                continue
            sel = np.flatnonzero(sizes == K)
            qq = q[sel]
            rows = self.row_of[qq]
            po, pi, nv = self.buckets[int(K)]
            No, Ho, Ni, Hi = self.lines[int(K)]
            a, b = A[sel], B[sel]
            ex = self.exact[qq]
            lo = np.empty(len(sel))
            if ex.any():
                e = np.flatnonzero(ex)
                lo[e] = _seg_poly_sd(a[e], b[e], po[rows[e]], nv[rows[e]]) - self.rho[qq[e]]
            if not ex.all():
                e = np.flatnonzero(~ex)
                r = rows[e]
                lo[e] = _seg_poly_gap(a[e], b[e], po[r], No[r], Ho[r])
            amb = (~ex) & (lo < -tol)
            if isinstance(loose, np.ndarray):
                amb &= ~(self.hard[qq] & loose[qq])
            elif loose:
                amb &= ~self.hard[qq]
            if amb.any():
                k = np.flatnonzero(amb)
                r = rows[k]
                hi = _seg_poly_gap(a[k], b[k], pi[r], Ni[r], Hi[r])
                deep = hi < -tol
                lo[k[deep]] = hi[deep]
                k = k[~deep]
                for qk in np.unique(qq[k]):
                    kq = k[qq[k] == qk]
                    low, _ = self.max_gap(a[kq], b[kq], int(qk), stop=-tol)
                    # a value just below -tol is confirmed by the library's solve
                    for i in np.flatnonzero(np.abs(low + tol) <= 1e-7):
                        low[i] = min(low[i], self.exact_sd(a[kq[i]], b[kq[i]], int(qk)))
                    lo[kq] = low
            out[sel] = lo
        return out

    def support(self, q: int, U: np.ndarray) -> np.ndarray:
        """Support points of C-obstacle q along the unit directions U (k, 2)."""
        if self.exact[q]:
            core = self.core[q]
            return core[np.argmax(U @ core.T, axis=1)] + self.rho[q] * U
        return self.O[q].support(U) - self.b[q].support(-U)

    def max_gap(
        self, a: np.ndarray, b: np.ndarray, q: int, stop: float = math.inf
    ) -> tuple[np.ndarray, np.ndarray]:
        """sd(segment [a[i], b[i]], C_q) = max over unit v of (min over the segment of
        v·x − h_C(v)) for many segments at once, certified (``convex_distance``): every
        value returned lies within 1e-9 of a lower bound (the gap along its direction)
        and an upper bound (two actual points, or an inscribed polygon's depth).

        Each segment first tries a spread of 96 normals plus its own two. A segment
        whose best is positive is apart from C_q; its maximiser is then within one
        spacing of that best (the function is concave where positive) and is bisected
        there for all such segments at once. Every other segment gets the certified
        polygon loop. Returns (values, angles of the best directions). A segment stops
        refining once its proven lower bound reaches ``stop`` (its value is then that
        lower bound), or, for the loop, once the bracket lies wholly below it (its
        value is then the upper bound, below ``stop`` too)."""
        a = np.atleast_2d(a)
        b = np.atleast_2d(b)
        P = len(a)
        d = b - a
        base = np.arange(96) * (_TWO_PI / 96)
        ts = np.arctan2(d[:, 1], d[:, 0])
        th = np.concatenate(
            [
                np.broadcast_to(base, (P, 96)),
                (ts + math.pi / 2)[:, None],
                (ts - math.pi / 2)[:, None],
            ],
            axis=1,
        )
        hg = self.h(q, _unit(base))
        U = _unit(th[:, 96:].ravel()).reshape(P, 2, 2)
        hs = self.h(q, U.reshape(-1, 2)).reshape(P, 2)
        Ug = _unit(base)
        f = np.concatenate(
            [
                np.minimum(a @ Ug.T, b @ Ug.T) - hg[None, :],
                np.minimum(np.einsum("pkd,pd->pk", U, a), np.einsum("pkd,pd->pk", U, b)) - hs,
            ],
            axis=1,
        )
        rows = np.arange(P)
        k0 = np.argmax(f, axis=1)
        best = f[rows, k0].copy()
        best_t = th[rows, k0].copy()
        stop_at = None if math.isinf(stop) else float(stop)
        # apart rows are certified here; the rest try the same bisection as a local
        # ascent first, which settles every row whose lower bound reaches ``stop`` and
        # every row on the boundary (its chord bound meets its lower bound at 0)
        sep = np.flatnonzero(best < stop)
        lower = best.copy()
        upper = np.full(P, np.inf)
        if len(sep):

            def zfun(Um: np.ndarray, r: np.ndarray) -> np.ndarray:
                # the lowest point of (segment - C_q) along Um
                aa, bb = a[sep[r]], b[sep[r]]
                low = np.where((np.einsum("ij,ij->i", Um, aa) <= np.einsum("ij,ij->i", Um, bb))[:, None], aa, bb)
                return low - self.support(q, Um)

            v, lo_, up_, t = batch_separated(best_t[sep], _TWO_PI / 96, zfun, stop=stop_at)
            # a row settled by ``stop`` alone reports its proven lower bound (an attained
            # value, on the right side of ``stop``), a certified row the middle
            best[sep] = np.where(up_ - lo_ <= CERT_TOL, v, lo_)
            best_t[sep], lower[sep], upper[sep] = t, lo_, up_
        settled = (upper - lower <= CERT_TOL) | (lower >= stop)
        rest = np.flatnonzero(~settled)
        if len(rest):
            # the loop starts from the support points already known on the 96 normals
            # (the spread is symmetric, so -Ug are among them)
            sc = self.support(q, Ug)
            init_t = base + math.pi

        def seg(Uq: np.ndarray, ai: np.ndarray, bi: np.ndarray) -> np.ndarray:
            return np.where((Uq @ ai >= Uq @ bi)[:, None], ai, bi)

        if self.exact[q]:
            cm = float(self.rho[q])
        else:
            cm = least_curvature_radius(self.O[q]) + least_curvature_radius(self.b[q])
        for i in rest:
            ai, bi = a[i], b[i]
            reach = float(np.hypot(*(0.5 * (ai + bi) - self.centre[q]))) + 0.5 * float(np.hypot(*(bi - ai))) + float(self.radius[q])
            c = solve(
                lambda Uq: self.support(q, Uq),
                lambda Uq, ai=ai, bi=bi: seg(Uq, ai, bi),
                stop=stop_at,
                init=(init_t, sc, seg(-Ug, ai, bi)),
                reach=reach,
                curv_min=cm,
            )
            if c.width <= CERT_TOL:
                best[i] = c.value
            else:  # settled by ``stop``: the bound on the side it settled
                best[i] = c.lower if c.lower >= stop else c.upper
            best_t[i] = math.atan2(float(c.w[1]), float(c.w[0]))
        return best, best_t

    def exact_sd(self, a: np.ndarray, b: np.ndarray, q: int) -> float:
        """The library's exact solve: the base part swept from a to b against O."""
        part = self.b[q].translated((float(a[0]), float(a[1])))
        sweep = segment_sweep(part, (float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
        return float(convex_signed_distance(sweep, self.O[q]))

    def assess(
        self,
        A: np.ndarray,
        B: np.ndarray,
        qs: np.ndarray,
        tol: float = TOL,
        owners: np.ndarray | None = None,
        loose: bool | np.ndarray = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For centre segments A[s]→B[s] against C-obstacles ``qs``: (blocked by a hard
        barrier, climb, and the (segment, barrier) index pairs penetrated deeper than
        tol). ``owners`` (S, 2) lists C-obstacles a segment is tangent to by
        construction (skipped). Broad phase: each C-obstacle's bounding circle."""
        S = len(A)
        if S == 0 or len(qs) == 0:
            return self._judge(
                A, B, np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty(0), tol
            )
        si_l, q_l, d_l = [], [], []
        chunk = max(1, 400_000 // max(1, len(qs)))
        for s0 in range(0, S, chunk):
            a, b = A[s0 : s0 + chunk], B[s0 : s0 + chunk]
            d2 = _seg_point_d2_matrix(a, b, self.centre[qs])
            si, qj = np.nonzero(d2 <= (self.radius[qs] + tol) ** 2)
            si_l.append(si + s0)
            q_l.append(qs[qj])
            d_l.append(d2[si, qj])
        si, q, d2 = np.concatenate(si_l), np.concatenate(q_l), np.concatenate(d_l)
        if owners is not None:
            keep = (q != owners[si, 0]) & (q != owners[si, 1])
            si, q, d2 = si[keep], q[keep], d2[keep]
        return self._judge(A, B, si, q, d2, tol, loose)

    def assess_near(
        self,
        A: np.ndarray,
        B: np.ndarray,
        group: np.ndarray,
        indptr: np.ndarray,
        nbr: np.ndarray,
        own: np.ndarray,
        tol: float = TOL,
        loose: bool | np.ndarray = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Like :meth:`assess` for segments known to lie inside a disc of group
        ``group[s]``, tested only against that group's neighbours ``nbr[indptr[g]:
        indptr[g+1]]`` other than ``own[s]``."""
        cnt = indptr[group + 1] - indptr[group]
        si = np.repeat(np.arange(len(A)), cnt)
        start = np.cumsum(cnt) - cnt
        q = nbr[indptr[group][si] + np.arange(len(si)) - start[si]]
        keep = q != own[si]
        si, q = si[keep], q[keep]
        d2 = _seg_point_d2_pairs(A[si], B[si], self.centre[q])
        near = d2 <= (self.radius[q] + tol) ** 2
        return self._judge(A, B, si[near], q[near], d2[near], tol, loose)

    def _judge(
        self,
        A: np.ndarray,
        B: np.ndarray,
        si: np.ndarray,
        q: np.ndarray,
        d2: np.ndarray,
        tol: float,
        loose: bool | np.ndarray = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Narrow phase on candidate (segment, C-obstacle) pairs; ``d2`` = squared
        distance from the C-obstacle's bounding centre to the segment (exact for
        disc-like C-obstacles, whose centre is their core)."""
        S = len(A)
        blocked = np.zeros(S, dtype=bool)
        climb = np.zeros(S)
        sd = np.empty(len(q))
        pt = self.is_point[q]
        sd[pt] = np.sqrt(d2[pt]) - self.rho[q[pt]]
        npt = ~pt
        if npt.any():
            sd[npt] = self.sd_pairs(A[si[npt]], B[si[npt]], q[npt], tol, loose)
        pen = sd < -tol
        si, q = si[pen], q[pen]
        blocked[si[self.hard[q]]] = True
        soft = ~self.hard[q]
        ps, pb = _unique_pairs(si[soft], self.bar[q[soft]])
        if len(ps):
            climb += np.bincount(ps, weights=self.cost_of_bar[pb], minlength=S)
        hs, hb = _unique_pairs(si, self.bar[q])
        return blocked, climb, hs, hb


def _in_box(X: np.ndarray, box: np.ndarray, tol: float = TOL) -> np.ndarray:
    return (
        (X[:, 0] >= box[0] - tol)
        & (X[:, 0] <= box[1] + tol)
        & (X[:, 1] >= box[2] - tol)
        & (X[:, 1] <= box[3] + tol)
    )


