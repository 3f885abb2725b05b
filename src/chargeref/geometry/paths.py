"""Least-cost paths for a base that translates (never rotates) among obstacles.

Callers describe the obstacles as :class:`Barrier` values: a footprint (a union of
convex parts) and a crossing cost, ``None`` for a barrier that may never be entered and
a number for one that may be crossed at that price (climbing a wall, say). No game
rule lives here: what is a barrier and what crossing costs is the caller's business.

Configuration space
-------------------
The base is a union of convex parts ``b_j`` placed relative to its centre. Part ``b_j``
centred at ``x`` meets barrier part ``O_i`` exactly when ``x`` lies in the
configuration-space obstacle (C-obstacle) ``C_ij = O_i ⊕ (−b_j)``, whose support
function is ``h_C(u) = h_O(u) + h_b(−u)``. The signed distance from a point (or a
segment) to ``C_ij`` equals the signed distance from the base part placed there (or
swept along it) to ``O_i``, so every question about the moving base becomes a
question about the path of its centre.

Exact checks
------------
Most C-obstacles are a convex polygon "core" thickened by a disc of radius ``ρ``:
disc ⊕ disc is a disc, polygon ⊕ disc a rounded polygon, polygon ⊕ polygon a polygon
(their Minkowski sum), capsule ⊕ anything a core ⊕ disc. For those the signed distance
from a centre segment is ``sd(segment, core) − ρ`` in closed form: the Euclidean
distance when apart, the separating-axis penetration depth when they overlap. This is
what ``convex_signed_distance(segment_sweep(...), part)`` computes, only vectorised.
C-obstacles that involve an ellipse (or a ``Sum`` part) are bracketed by a
circumscribed and an inscribed polygon; the rare segment that falls between the two
verdicts is settled by ``convex_signed_distance`` on the exact swept region. A segment
is *blocked* when it penetrates a hard C-obstacle by more than ``TOL`` (touching is
allowed: a charger ends touching its target) and *crosses* a soft barrier when it
penetrates one of its C-obstacles by more than ``TOL``; each (barrier, segment) pair is
charged once. Every returned path, and its cost, is re-measured with these exact checks.

The planner
-----------
1. The straight segment is tried first; if it is exactly clear and crosses nothing it is
   optimal and is returned at once.
2. Otherwise a tangent visibility graph is built (and cached per base shape and barrier
   set). Its vertices are the corners of a *circumscribed* polygon of every relevant
   C-obstacle: tangent lines at ``n`` evenly spaced normals (``n`` = ``segments``
   rounded up to a multiple of 4, so the board's axes are among them) plus every edge
   normal of the polygonal parts, so that polygon ⊕ polygon C-obstacles and the flat
   sides of rounded ones are exact. Corners lie on or outside the true C-obstacle, so
   they are clear. Only edges that are tangent at both ends are kept (a shortest path
   only bends around a convex corner it touches), and every kept edge is checked
   exactly. Corners of soft C-obstacles are vertices too, so a path may go around a
   wall instead of over it. Dijkstra (scipy's ``csgraph``) runs once from the start.
3. Goals are joined to the tree by tangent edges. A start or goal that touches a
   C-obstacle lies inside that obstacle's circumscribed polygon; for it the touching
   normal is inserted into the polygon locally, so the path can leave or arrive along
   the true tangent line. Two curved C-obstacles whose true gap is narrower than what
   their circumscribed polygons leave open get their separating normal inserted too,
   so such passages stay open (for C-obstacles with an exact core: everything except
   ellipses and ``Sum`` parts).
4. With a budget, only barriers whose C-obstacle can be reached within the budget are
   used (a disc around the start, or the ellipse of foci start and goal).

Near-optimality
---------------
Let ``x = π/n`` (``n`` as above; extra normals only shrink the angular gaps). Returned
paths are exactly clear, so they are never shorter than the true least-cost path. They
are longer by at most the circumscription excess of the curved arcs the true shortest
path wraps: where it follows the boundary of a C-obstacle with radius of curvature
``ρ`` through a turn of ``φ`` radians (a disc C-obstacle of radius ``ρ``: disc base
radius plus obstacle radius), the polygon path is at most

    ρ · φ · (tan(x) / x − 1)                 (≈ ρ·φ·x²/3; 0.143 % of the arc at n = 48)

longer, and flat sides cost nothing extra. ``tests/geometry/test_paths.py`` checks
this against the closed-form tangent-arc-tangent length around a disc. The bound
holds for paths that only bend at C-obstacles (always true for hard barriers). With
soft barriers the returned path is the least-cost path of the graph, whose vertices
are the corners described above.

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra
from scipy.spatial import cKDTree

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
    """A path of the base centre with its exact length and crossing costs."""

    cost: float
    length: float
    climb: float
    points: tuple[tuple[float, float], ...]
    crossed: tuple[str, ...]


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


def _seg_point_dist_matrix(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Distances (S, Q) from points C[q] to segments [A[s], B[s]]."""
    sx = (B[:, 0] - A[:, 0])[:, None]
    sy = (B[:, 1] - A[:, 1])[:, None]
    wx = C[None, :, 0] - A[:, 0:1]
    wy = C[None, :, 1] - A[:, 1:2]
    ss = sx * sx + sy * sy
    inv = np.divide(1.0, ss, out=np.zeros_like(ss), where=ss > 0)
    t = np.clip((wx * sx + wy * sy) * inv, 0.0, 1.0)
    dx = wx - t * sx
    dy = wy - t * sy
    return np.sqrt(dx * dx + dy * dy)


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
    # separating axes: polygon edge normals and the segment's normal
    L = np.sqrt(ee[i])
    ok = L > 0
    Ls = np.where(ok, L, 1.0)
    nx = np.concatenate([Ey[i] / Ls, -Sy[i] / np.where(ss[i] > 0, np.sqrt(ss[i]), 1.0)], axis=1)
    ny = np.concatenate([-Ex[i] / Ls, Sx[i] / np.where(ss[i] > 0, np.sqrt(ss[i]), 1.0)], axis=1)
    valid = np.concatenate([ok, ss[i] > 0], axis=1)
    proj = nx[:, :, None] * Vx[i][:, None, :] + ny[:, :, None] * Vy[i][:, None, :]
    pa = nx * Ax[i] + ny * Ay[i]
    pb = nx * Bx[i] + ny * By[i]
    gap = np.maximum(np.minimum(pa, pb) - proj.max(axis=2), proj.min(axis=2) - np.maximum(pa, pb))
    gap = np.where(valid, gap, -np.inf)
    sat = gap.max(axis=1)
    use = np.isfinite(sat) & (sat <= 0)
    out[i] = np.where(use, sat, dist[i])
    return out


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
            for O in barrier.footprint.parts:
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
                        ex = np.concatenate([_flat_normal_angles(O), _flat_normal_angles(b) + math.pi])
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
        self.cost = np.asarray([self.barriers[i].cost or 0.0 for i in bar], dtype=float)
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
        size = np.where(self.nv <= 2, self.nv, 2 ** np.ceil(np.log2(np.maximum(self.nv, 1))).astype(int))
        self.bucket_of = size
        self.row_of = np.zeros(self.Q, dtype=int)
        self.buckets: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
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

    # -- support function of a C-obstacle (for graph polygons) --------------------
    def h(self, q: int, U: np.ndarray) -> np.ndarray:
        if self.exact[q]:
            return (self.core[q] @ U.T).max(axis=0) + self.rho[q]
        return self.O[q].h(U) + self.b[q].h(-U)

    # -- exact signed distances ---------------------------------------------------
    def sd_pairs(self, A: np.ndarray, B: np.ndarray, q: np.ndarray, tol: float = TOL) -> np.ndarray:
        """Signed distance from centre segments [A[i], B[i]] to C-obstacles q[i], exact
        wherever it decides ``sd < -tol`` (bracketed values are returned when they
        already decide it)."""
        out = np.empty(len(q))
        if len(q) == 0:
            return out
        sizes = self.bucket_of[q]
        for K in np.unique(sizes):
            sel = np.flatnonzero(sizes == K)
            qq = q[sel]
            rows = self.row_of[qq]
            po, pi, nv = self.buckets[int(K)]
            a, b = A[sel], B[sel]
            lo = _seg_poly_sd(a, b, po[rows], nv[rows]) - self.rho[qq]
            amb = (~self.exact[qq]) & (lo < -tol)
            if amb.any():
                k = np.flatnonzero(amb)
                hi = _seg_poly_sd(a[k], b[k], pi[rows[k]], nv[rows[k]])
                for kk, hv in zip(k, hi, strict=True):
                    if hv < -tol:
                        lo[kk] = hv
                    else:
                        lo[kk] = self.exact_sd(a[kk], b[kk], int(qq[kk]))
            out[sel] = lo
        return out

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
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For centre segments A[s]→B[s]: (blocked by a hard barrier, climb, and the
        (segment, barrier) index pairs penetrated deeper than tol). ``owners`` (S, 2)
        lists C-obstacles a segment is tangent to by construction (skipped)."""
        S = len(A)
        blocked = np.zeros(S, dtype=bool)
        climb = np.zeros(S)
        if S == 0 or len(qs) == 0:
            e = np.empty(0, dtype=int)
            return blocked, climb, e, e
        si_l, q_l, sd_l = [], [], []
        chunk = max(1, 400_000 // max(1, len(qs)))
        for s0 in range(0, S, chunk):
            a, b = A[s0 : s0 + chunk], B[s0 : s0 + chunk]
            d = _seg_point_dist_matrix(a, b, self.centre[qs])
            si, qj = np.nonzero(d <= self.radius[qs] + tol)
            q = qs[qj]
            if owners is not None:
                keep = (q != owners[s0 + si, 0]) & (q != owners[s0 + si, 1])
                si, qj, q = si[keep], qj[keep], q[keep]
            sd = np.empty(len(q))
            pt = self.is_point[q]
            sd[pt] = d[si[pt], qj[pt]] - self.rho[q[pt]]
            npt = ~pt
            if npt.any():
                sd[npt] = self.sd_pairs(a[si[npt]], b[si[npt]], q[npt], tol)
            si_l.append(si + s0)
            q_l.append(q)
            sd_l.append(sd)
        si = np.concatenate(si_l)
        q = np.concatenate(q_l)
        pen = np.concatenate(sd_l) < -tol
        si, q = si[pen], q[pen]
        blocked[si[self.hard[q]]] = True
        soft = ~self.hard[q]
        pairs = np.unique(np.stack([si[soft], self.bar[q[soft]]], axis=1), axis=0).reshape(-1, 2)
        if len(pairs):
            climb += np.bincount(pairs[:, 0], weights=self.cost_of_bar[pairs[:, 1]], minlength=S)
        hits = np.unique(np.stack([si, self.bar[q]], axis=1), axis=0).reshape(-1, 2)
        return blocked, climb, hits[:, 0], hits[:, 1]


# ----------------------------------------------------------------------------------
# the tangent visibility graph
# ----------------------------------------------------------------------------------


class _Graph:
    """Static tangent visibility graph over a subset ``qs`` of the C-obstacles."""

    def __init__(self, cs: _CSet, qs: np.ndarray, box: np.ndarray | None) -> None:
        self.cs = cs
        self.qs = np.asarray(qs, dtype=int)
        self.box = box
        n = cs.n
        M = len(self.qs)
        self.M = M
        step = _TWO_PI / n
        gap_extra = self._gap_normals()
        ang_l, j_l, m_l, H_l = [], [], [], []
        G = _unit(np.arange(n) * step)
        Hg = np.empty((M, n))
        for m, q in enumerate(self.qs):
            ex = cs.extras[q]
            if m in gap_extra:
                ex = np.concatenate([ex, np.asarray(gap_extra[m])])
            a, j = _merge_normals(n, ex)
            ang_l.append(a)
            j_l.append(j)
            m_l.append(np.full(len(a), m))
            H_l.append(cs.h(q, _unit(a)))
            Hg[m] = cs.h(q, G)
        if M == 0:
            self._empty()
            return
        self.ang = np.concatenate(ang_l)
        self.jj = np.concatenate(j_l)
        self.mm = np.concatenate(m_l)
        self.U = _unit(self.ang)
        self.H = np.concatenate(H_l)
        counts = np.asarray([len(a) for a in ang_l])
        self.off = np.concatenate([[0], np.cumsum(counts)])
        L = len(self.ang)
        idx = np.arange(L)
        self.nxt = idx + 1
        self.nxt[self.off[1:] - 1] = self.off[:-1]
        self.prv = idx - 1
        self.prv[self.off[:-1]] = self.off[1:] - 1
        # corners, computed about each polygon's centre for precision
        cen = cs.centre[self.qs][self.mm]
        Hrel = self.H - np.einsum("ij,ij->i", self.U, cen)
        self.P = cen + _intersect(self.U, Hrel, self.U[self.nxt], Hrel[self.nxt])
        # valid corners: inside the board box, clear of every hard C-obstacle
        valid = np.isfinite(self.P).all(axis=1)
        if box is not None:
            valid &= _in_box(self.P, box)
        hardq = self.qs[cs.hard[self.qs]]
        vi = np.flatnonzero(valid)
        blocked, _, _, _ = cs.assess(self.P[vi], self.P[vi], hardq)
        valid[vi[blocked]] = False
        self.valid = valid
        # merge coincident corners into one graph vertex
        vi = np.flatnonzero(valid)
        lab = np.full(L, -1)
        if len(vi):
            pairs = cKDTree(self.P[vi]).query_pairs(_MERGE_R, output_type="ndarray")
            adj = coo_matrix(
                (np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(vi), len(vi))
            )
            _, comp = connected_components(adj, directed=False)
            lab[vi] = comp
            N = int(comp.max()) + 1
            first = np.full(N, -1)
            first[comp[::-1]] = vi[::-1]
            self.xy = self.P[first]
        else:
            N = 0
            self.xy = np.empty((0, 2))
        self.lab = lab
        self.N = N
        # candidate edges: polygon sides, and tangent (outer and inner) bitangents
        t1 = [idx]
        t2 = [self.nxt]
        b1, b2 = self._bitangents(Hg)
        t1.append(b1)
        t2.append(b2)
        t1c, t2c = np.concatenate(t1), np.concatenate(t2)
        ok = valid[t1c] & valid[t2c]
        t1c, t2c = t1c[ok], t2c[ok]
        c1, c2 = lab[t1c], lab[t2c]
        ok = c1 != c2
        t1c, t2c, c1, c2 = t1c[ok], t2c[ok], c1[ok], c2[ok]
        lo, hi = np.minimum(c1, c2), np.maximum(c1, c2)
        _, first = np.unique(lo * max(N, 1) + hi, return_index=True)
        e1, e2 = lo[first], hi[first]
        owners = np.stack([self.qs[self.mm[t1c[first]]], self.qs[self.mm[t2c[first]]]], axis=1)
        A, B = self.xy[e1], self.xy[e2]
        blocked, climb, _, _ = cs.assess(A, B, self.qs, owners=owners)
        keep = ~blocked
        self.e1, self.e2 = e1[keep], e2[keep]
        self.w = np.hypot(*(B[keep] - A[keep]).T) + climb[keep]

    def _empty(self) -> None:
        self.ang = np.empty(0)
        self.jj = np.empty(0, dtype=int)
        self.mm = np.empty(0, dtype=int)
        self.U = np.empty((0, 2))
        self.H = np.empty(0)
        self.off = np.zeros(1, dtype=int)
        self.nxt = self.prv = np.empty(0, dtype=int)
        self.P = np.empty((0, 2))
        self.valid = np.empty(0, dtype=bool)
        self.lab = np.empty(0, dtype=int)
        self.N = 0
        self.xy = np.empty((0, 2))
        self.e1 = self.e2 = np.empty(0, dtype=int)
        self.w = np.empty(0)

    # -- passages narrower than the circumscription slack ---------------------------
    def _gap_normals(self) -> dict[int, list[float]]:
        """Separating normals for pairs of exact C-obstacles that do not overlap (beyond
        TOL) but whose circumscribed polygons might: inserting the normal into both
        polygons makes them disjoint, keeping the passage open."""
        cs = self.cs
        qs = self.qs
        M = len(qs)
        out: dict[int, list[float]] = {}
        if M < 2:
            return out
        slack = cs.rho[qs] * (1.0 / math.cos(math.pi / cs.n) - 1.0) + 1e-12
        curved = cs.exact[qs] & (cs.rho[qs] > 0)
        c = cs.centre[qs]
        R = cs.radius[qs]
        i, j = np.triu_indices(M, 1)
        d = np.hypot(*(c[j] - c[i]).T)
        near = curved[i] & curved[j] & (d - R[i] - R[j] < slack[i] + slack[j] + TOL)
        for a, b in zip(i[near], j[near], strict=True):
            qa, qb = qs[a], qs[b]
            dist, u = _closest_between(cs.core[qa], cs.core[qb])
            if u is None:
                continue
            sd = dist - cs.rho[qa] - cs.rho[qb]
            if -TOL <= sd < slack[a] + slack[b]:
                th = math.atan2(u[1], u[0])
                out.setdefault(int(a), []).append(th)
                out.setdefault(int(b), []).append(th + math.pi)
        return out

    # -- bitangent candidates -------------------------------------------------------
    def _in_cone(self, t: np.ndarray, nx: np.ndarray, ny: np.ndarray) -> np.ndarray:
        """Is the unit normal (nx, ny) within corner t's normal cone [U[t], U[nxt[t]]]?"""
        lo = self.U[t]
        hi = self.U[self.nxt[t]]
        return (lo[:, 0] * ny - lo[:, 1] * nx >= -_ANG_EPS) & (nx * hi[:, 1] - ny * hi[:, 0] >= -_ANG_EPS)

    def _bitangents(self, Hg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Corner pairs of two different polygons whose joining line supports both (outer
        bitangents: both polygons on one side; inner: on opposite sides).

        Such a line's normal lies in one uniform interval j; its corners are then among
        the corners of interval j of one polygon and of interval j (outer) or j + n/2
        (inner) of the other. Intervals are pre-selected where the support-function
        difference (outer) or sum (inner) at the uniform normals changes sign or is
        within its Lipschitz bound of zero."""
        cs = self.cs
        n = cs.n
        M = self.M
        empty = np.empty(0, dtype=int)
        if M < 2:
            return empty, empty
        step = _TWO_PI / n
        # corner groups: table[m*n + j] = corners of polygon m in interval j (-1 pads)
        key = self.mm * n + self.jj
        order = np.argsort(key, kind="stable")
        cnt = np.bincount(key, minlength=M * n)
        start = np.concatenate([[0], np.cumsum(cnt)[:-1]])
        E = int(cnt.max())
        table = np.full((M * n, E), -1)
        ks = key[order]
        table[ks, np.arange(len(ks)) - start[ks]] = order
        # polygon extents about their centres, for the Lipschitz bound
        cen = cs.centre[self.qs]
        rp = np.zeros(M)
        np.maximum.at(rp, self.mm, np.hypot(*(self.P - cen[self.mm]).T))
        i, j = np.triu_indices(M, 1)
        d = np.hypot(*(cen[j] - cen[i]).T)
        lip = (d + rp[i] + rp[j]) * step / 2 + 1e-9
        out1, out2 = [empty], [empty]
        half = n // 2
        for inner in (False, True):
            if inner:
                F = Hg[i] + np.roll(Hg[j], -half, axis=1)
            else:
                F = Hg[i] - Hg[j]
            F2 = np.roll(F, -1, axis=1)
            flag = (np.sign(F) != np.sign(F2)) | (np.minimum(np.abs(F), np.abs(F2)) <= lip[:, None])
            p, jj = np.nonzero(flag)
            if len(p) == 0:
                continue
            j2 = (jj + half) % n if inner else jj
            v1 = table[i[p] * n + jj][:, :, None]
            v2 = table[j[p] * n + j2][:, None, :]
            v1, v2 = np.broadcast_arrays(v1, v2)
            v1, v2 = v1.ravel(), v2.ravel()
            ok = (v1 >= 0) & (v2 >= 0)
            v1, v2 = v1[ok], v2[ok]
            ok = self.valid[v1] & self.valid[v2]
            v1, v2 = v1[ok], v2[ok]
            dd = self.P[v2] - self.P[v1]
            L = np.hypot(dd[:, 0], dd[:, 1])
            ok = L > _MERGE_R
            v1, v2, dd, L = v1[ok], v2[ok], dd[ok], L[ok]
            nx, ny = -dd[:, 1] / L, dd[:, 0] / L
            sgn = -1.0 if inner else 1.0
            hit = np.zeros(len(v1), dtype=bool)
            for s in (1.0, -1.0):
                hit |= self._in_cone(v1, s * nx, s * ny) & self._in_cone(v2, sgn * s * nx, sgn * s * ny)
            out1.append(v1[hit])
            out2.append(v2[hit])
        return np.concatenate(out1), np.concatenate(out2)

    # -- queries --------------------------------------------------------------------
    def tangent_corners(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(point index, corner index) pairs such that the line from X[i] to the corner
        supports the corner's polygon there (the visible chain of its sides ends at the
        corner). Only valid corners."""
        if len(X) == 0 or len(self.ang) == 0:
            e = np.empty(0, dtype=int)
            return e, e
        S = X @ self.U.T - self.H
        vis = S > -_ON_LINE
        tan = (vis != vis[:, self.nxt]) & self.valid[None, :]
        return np.nonzero(tan)

    def touching(
        self, X: np.ndarray, others: Sequence[tuple[int, int, float, float]] = ()
    ) -> list[tuple[int, np.ndarray, tuple[int, int, float, float]]]:
        """For each point strictly inside a circumscribed polygon but (within TOL)
        outside the true C-obstacle: the corners obtained by inserting the point's
        touching normal into that polygon (the two corners it makes with the polygon's
        neighbouring tangent lines). ``others`` are touching normals inserted for
        another point (the start): where one falls between the same two tangent lines,
        the corner of the two inserted lines is added too.

        Returns (point index, corners (k, 2), (polygon, line k, normal angle, h))."""
        out: list[tuple[int, np.ndarray, tuple[int, int, float, float]]] = []
        if len(X) == 0 or self.M == 0:
            return out
        S = X @ self.U.T - self.H
        smax = np.maximum.reduceat(S, self.off[:-1], axis=1)
        xi, mi = np.nonzero(smax < -_ON_LINE)
        for x_i, m in zip(xi, mi, strict=True):
            q = int(self.qs[m])
            x = X[x_i]
            hit = self._touching_normal(x, q, int(m))
            if hit is None:
                continue
            phi, hphi = hit
            lo, hi = self.off[m], self.off[m + 1]
            a0 = self.ang[lo]
            ph = a0 + (phi - a0) % _TWO_PI
            k = lo + int(np.searchsorted(self.ang[lo:hi], ph, side="right")) - 1
            if k < lo:
                k = hi - 1
            kn = self.nxt[k]
            dk = (ph - self.ang[k]) % _TWO_PI
            dn = (self.ang[kn] - ph) % _TWO_PI
            u = np.array([[math.cos(phi), math.sin(phi)]])
            hr = np.array([hphi - float(u[0] @ x)])
            if dk < _ANG_EPS or dk > _TWO_PI - _ANG_EPS:
                corners = [self.P[self.prv[k]], self.P[k]]
            elif dn < _ANG_EPS or dn > _TWO_PI - _ANG_EPS:
                corners = [self.P[k], self.P[kn]]
            else:
                corners = [
                    _intersect(self.U[[k]], self.H[[k]] - self.U[[k]] @ x, u, hr)[0] + x,
                    _intersect(u, hr, self.U[[kn]], self.H[[kn]] - self.U[[kn]] @ x)[0] + x,
                ]
            for m2, k2, phi2, h2 in others:
                if m2 != m or k2 != k or abs(math.sin(phi2 - phi)) < _ANG_EPS:
                    continue
                u2 = np.array([[math.cos(phi2), math.sin(phi2)]])
                corners.append(_intersect(u, hr, u2, np.array([h2 - float(u2[0] @ x)]))[0] + x)
            out.append((int(x_i), np.asarray(corners), (int(m), int(k), float(phi), float(hphi))))
        return out

    def _touching_normal(self, x: np.ndarray, q: int, m: int) -> tuple[float, float] | None:
        """The outward normal φ of C_q at the point nearest x, and h_C(φ); None if x is
        inside C_q deeper than TOL."""
        cs = self.cs
        if cs.exact[q]:
            core = cs.core[q]
            rho = float(cs.rho[q])
            if len(core) >= 3:
                e = np.roll(core, -1, axis=0) - core
                nrm = np.stack([e[:, 1], -e[:, 0]], axis=-1) / np.hypot(*e.T)[:, None]
                sdist = np.einsum("ij,ij->i", nrm, x - core)
                inside = bool((sdist <= 0).all())
            else:
                inside = False
            if inside:
                k = int(np.argmax(sdist))
                if sdist[k] - rho < -TOL:
                    return None
                u = nrm[k]
                return math.atan2(u[1], u[0]), float(u @ core[k]) + rho
            dist, u = _closest_between(core, x[None, :])
            if u is None or dist - rho < -TOL:
                return None
            # nearest core point p = x - dist*u; supporting line u·y = u·p + ρ
            return math.atan2(u[1], u[0]), float(u @ x) - dist + rho
        # curved: maximise u·x − h_C(u) (the separating normal), then refine
        lo, hi = self.off[m], self.off[m + 1]
        S = self.U[lo:hi] @ x - self.H[lo:hi]
        t0 = float(self.ang[lo + int(np.argmax(S))])
        w = _TWO_PI / cs.n

        def f(t: float) -> float:
            u = np.array([[math.cos(t), math.sin(t)]])
            return float(u[0] @ x - cs.h(q, u)[0])

        a, b = t0 - w, t0 + w
        g = (math.sqrt(5) - 1) / 2
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = f(c), f(d)
        for _ in range(80):
            if fc > fd:
                b, d, fd = d, c, fc
                c = b - g * (b - a)
                fc = f(c)
            else:
                a, c, fc = c, d, fd
                d = a + g * (b - a)
                fd = f(d)
        t = (a + b) / 2
        sd = f(t)
        if sd < -TOL or cs.exact_sd(x, x, q) < -TOL:
            return None
        u = np.array([[math.cos(t), math.sin(t)]])
        return t, float(cs.h(q, u)[0])


def _in_box(X: np.ndarray, box: np.ndarray, tol: float = TOL) -> np.ndarray:
    return (
        (X[:, 0] >= box[0] - tol)
        & (X[:, 0] <= box[1] + tol)
        & (X[:, 1] >= box[2] - tol)
        & (X[:, 1] <= box[3] + tol)
    )


# ----------------------------------------------------------------------------------
# planner
# ----------------------------------------------------------------------------------


@dataclass
class _Context:
    """Everything cached for one base shape against the planner's barriers."""

    cs: _CSet
    box: np.ndarray | None
    graphs: list[tuple[frozenset[int], _Graph]] = field(default_factory=list)


class Planner:
    """Shortest paths for a translating base among fixed barriers.

    >>> from chargeref.geometry.shapes import Disc, Footprint
    >>> wall = Barrier(Footprint((Disc((5.0, 0.0), 1.0),)), None, "rock")
    >>> base = Footprint((Disc((0.0, 0.0), 0.5),), "round", (0.0, 0.0))
    >>> p = Planner([wall]).plan(base, (10.0, 0.0))
    >>> round(p.length, 3), p.crossed
    (10.345, ())
    """

    #: Graphs kept per base shape.
    CACHE = 6

    def __init__(
        self,
        barriers: Sequence[Barrier],
        board: tuple[float, float] | None = None,
        segments: int = 48,
    ) -> None:
        if segments < 8:
            raise ValueError("segments must be at least 8")
        self.barriers = tuple(barriers)
        self.board = None if board is None else (float(board[0]), float(board[1]))
        self.n = 4 * math.ceil(segments / 4)
        self._contexts: dict[tuple, _Context] = {}

    @property
    def excess_factor(self) -> float:
        """``tan(x)/x − 1`` with ``x = π/n``: the most a returned path exceeds the true
        shortest path, per unit length of curved C-obstacle boundary it wraps."""
        x = math.pi / self.n
        return math.tan(x) / x - 1.0

    # -- contexts and graphs ----------------------------------------------------------
    def _context(self, base: Footprint) -> _Context:
        key = _shape_key(base)
        ctx = self._contexts.get(key)
        if ctx is None:
            rel = _rel_parts(base)
            box = None
            if self.board is not None:
                w, d = self.board
                ext = {
                    tuple(u): max(float(p.h(np.asarray([u], dtype=float))[0]) for p in rel)
                    for u in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))
                }
                box = np.array(
                    [ext[(-1.0, 0.0)], w - ext[(1.0, 0.0)], ext[(0.0, -1.0)], d - ext[(0.0, 1.0)]]
                )
            ctx = _Context(_CSet(rel, self.barriers, self.n), box)
            self._contexts[key] = ctx
        return ctx

    def _relevant(self, ctx: _Context, s: np.ndarray, g: np.ndarray | None, budget: float | None) -> np.ndarray:
        cs = ctx.cs
        if budget is None:
            return cs.all
        lim = budget + TOL
        ds = np.hypot(*(cs.centre - s).T)
        if g is None:
            return np.flatnonzero(ds - cs.radius <= lim)
        dg = np.hypot(*(cs.centre - g).T)
        return np.flatnonzero(ds + dg - 2 * cs.radius <= lim)

    def _graph(self, ctx: _Context, qs: np.ndarray) -> _Graph:
        need = frozenset(int(q) for q in qs)
        for k, (have, gr) in enumerate(ctx.graphs):
            if need <= have:
                ctx.graphs.append(ctx.graphs.pop(k))
                return gr
        gr = _Graph(ctx.cs, np.asarray(sorted(need), dtype=int), ctx.box)
        ctx.graphs.append((need, gr))
        if len(ctx.graphs) > self.CACHE:
            ctx.graphs.pop(0)
        return gr

    # -- public -------------------------------------------------------------------------
    def plan(self, base: Footprint, goal: Sequence[float], budget: float | None = None) -> PathResult | None:
        """Least-cost path of the base centre from ``base.center`` to ``goal``; ``None``
        if there is none (or none within ``budget``, compared with TOL)."""
        ctx = self._context(base)
        s = np.asarray(base.center, dtype=float)
        g = np.asarray(goal, dtype=float)
        if ctx.box is not None and not _in_box(np.stack([s, g]), ctx.box).all():
            return None
        L = float(math.hypot(g[0] - s[0], g[1] - s[1]))
        if budget is not None and L > budget + TOL:
            return None
        blocked, climb, _, _ = ctx.cs.assess(s[None], g[None], ctx.cs.all)
        if not blocked[0] and climb[0] == 0.0:
            return PathResult(L, L, 0.0, ((float(s[0]), float(s[1])), (float(g[0]), float(g[1]))), ())
        qs = self._relevant(ctx, s, g, budget)
        fld = CostField(self, ctx, self._graph(ctx, qs), base, budget)
        return fld.path(g)

    def field(self, base: Footprint, budget: float | None = None) -> CostField:
        """One shortest-path tree from ``base.center``, reusable for many goals."""
        ctx = self._context(base)
        s = np.asarray(base.center, dtype=float)
        qs = self._relevant(ctx, s, None, budget)
        return CostField(self, ctx, self._graph(ctx, qs), base, budget)


class CostField:
    """Least costs from one start to any goal (one Dijkstra, many queries)."""

    def __init__(self, planner: Planner, ctx: _Context, graph: _Graph, base: Footprint, budget: float | None) -> None:
        self.planner = planner
        self.ctx = ctx
        self.graph = graph
        self.base = base
        self.budget = budget
        self.limit = np.inf if budget is None else budget + TOL
        cs = ctx.cs
        gr = graph
        s = np.asarray(base.center, dtype=float)
        self.start = s
        self.start_ok = ctx.box is None or bool(_in_box(s[None], ctx.box)[0])
        N = gr.N
        # extra nodes: the start (index N) and corners where it touches a C-obstacle
        extra = [s]
        e1: list[np.ndarray] = [gr.e1]
        e2: list[np.ndarray] = [gr.e2]
        ww: list[np.ndarray] = [gr.w]
        touch = gr.touching(s[None])
        self.start_touch = [info for _, _, info in touch]
        for _, corners, _ in touch:
            extra.extend(corners)
        X = np.asarray(extra)
        ids = N + np.arange(len(X))
        A_l, B_l, i1, i2 = [], [], [], []
        # start -> its touching corners (along the touching line)
        for k in range(1, len(X)):
            A_l.append(X[0])
            B_l.append(X[k])
            i1.append(N)
            i2.append(ids[k])
        # every extra node -> tangent corners of the graph
        xi, t = gr.tangent_corners(X)
        keep = gr.lab[t] >= 0
        xi, t = xi[keep], t[keep]
        pair = np.unique(np.stack([xi, gr.lab[t]], axis=1), axis=0).reshape(-1, 2)
        A = np.concatenate([np.asarray(A_l).reshape(-1, 2), X[pair[:, 0]]])
        B = np.concatenate([np.asarray(B_l).reshape(-1, 2), gr.xy[pair[:, 1]]])
        a_id = np.concatenate([np.asarray(i1, dtype=int), ids[pair[:, 0]]])
        b_id = np.concatenate([np.asarray(i2, dtype=int), pair[:, 1]])
        if self.start_ok and len(A):
            blocked, climb, _, _ = cs.assess(A, B, gr.qs)
            ok = ~blocked
            e1.append(a_id[ok])
            e2.append(b_id[ok])
            ww.append(np.hypot(*(B[ok] - A[ok]).T) + climb[ok])
        self.nodes = np.concatenate([gr.xy, X])
        self.n_start = N
        self.start_extra = ids[1:]
        T = len(self.nodes)
        r = np.concatenate(e1)
        c = np.concatenate(e2)
        w = np.maximum(np.concatenate(ww), _TINY)
        mat = csr_matrix((w, (r, c)), shape=(T, T))
        if self.start_ok:
            self.dist, self.pred = dijkstra(
                mat, directed=False, indices=N, return_predecessors=True, limit=self.limit
            )
        else:
            self.dist = np.full(T, np.inf)
            self.pred = np.full(T, -9999)
        reach = np.isfinite(self.dist)
        # corners usable as the last bend: reached, and valid
        self.reached_corner = np.zeros(len(gr.ang), dtype=bool)
        if len(gr.ang):
            has = gr.lab >= 0
            self.reached_corner[has] = reach[gr.lab[has]]

    # -- queries ----------------------------------------------------------------------
    def cost(self, goals: np.ndarray) -> np.ndarray:
        """Least cost (length + climb) to each goal (n, 2); ``inf`` if unreachable or over
        budget."""
        goals = np.atleast_2d(np.asarray(goals, dtype=float))
        return self._solve(goals)[0]

    def path(self, goal: Sequence[float]) -> PathResult | None:
        g = np.asarray(goal, dtype=float)[None, :]
        c, how = self._solve(g)
        if not np.isfinite(c[0]):
            return None
        pts = how[0]
        return _result(self.ctx.cs, pts)

    # -- internals ----------------------------------------------------------------------
    def _chain(self, node: int) -> list[np.ndarray]:
        out = []
        k = node
        while k >= 0:
            out.append(self.nodes[k])
            if k == self.n_start:
                break
            k = int(self.pred[k])
        return out[::-1]

    def _arrive(
        self, T: np.ndarray, tgt: np.ndarray, d0: np.ndarray, F: np.ndarray, best: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """For candidate arrivals (target tgt[i] reached from point F[i] already at cost
        d0[i]), the least d0 + |T − F| + climb over unblocked ones, improving ``best``;
        returns (best, index of the winning candidate or -1)."""
        arg = np.full(len(T), -1)
        if len(tgt) == 0:
            return best, arg
        cs = self.ctx.cs
        lb = d0 + np.hypot(*(T[tgt] - F).T)
        keep = lb <= np.minimum(best[tgt], self.limit)
        idx = np.flatnonzero(keep)
        if len(idx) == 0:
            return best, arg
        order = idx[np.lexsort((lb[idx], tgt[idx]))]
        tg = tgt[order]
        first = np.searchsorted(tg, tg, side="left")
        rank = np.arange(len(order)) - first
        lo, width = 0, 1
        while True:
            live = (rank >= lo) & (lb[order] < best[tg])
            if not live.any():
                break
            sel = live & (rank < lo + width)
            k = order[sel]
            if len(k):
                blocked, climb, _, _ = cs.assess(F[k], T[tgt[k]], self.graph.qs)
                cval = np.where(blocked, np.inf, lb[k] + climb)
                better = cval < best[tgt[k]]
                for kk, cv in zip(k[better], cval[better], strict=True):
                    if cv < best[tgt[kk]]:
                        best[tgt[kk]] = cv
                        arg[tgt[kk]] = kk
            lo += width
            width *= 2
        return best, arg

    def _solve(self, goals: np.ndarray) -> tuple[np.ndarray, list[list[np.ndarray] | None]]:
        cs = self.ctx.cs
        gr = self.graph
        G = len(goals)
        cost = np.full(G, np.inf)
        how: list[list[np.ndarray] | None] = [None] * G
        if not self.start_ok:
            return cost, how
        s = self.start
        ok = np.ones(G, dtype=bool)
        if self.ctx.box is not None:
            ok &= _in_box(goals, self.ctx.box)
        gi = np.flatnonzero(ok)
        if len(gi) == 0:
            return cost, how
        # 1. the straight segment
        A = np.repeat(s[None], len(gi), axis=0)
        blocked, climb, _, _ = cs.assess(A, goals[gi], cs.all)
        L = np.hypot(*(goals[gi] - s).T)
        direct = np.where(blocked, np.inf, L + climb)
        direct = np.where(direct <= self.limit, direct, np.inf)
        best = np.full(G, np.inf)
        best[gi] = direct
        via: list[tuple[str, int]] = [("direct", -1) if np.isfinite(best[g]) else ("none", -1) for g in range(G)]
        rest = gi[(blocked | (climb > 0))]
        if len(rest):
            reach = np.isfinite(self.dist)
            extra_nodes = self.start_extra[reach[self.start_extra]]
            # 2. corners where a goal touches a C-obstacle (pseudo-goals)
            touch = gr.touching(goals[rest], self.start_touch)
            pg_owner = np.asarray([int(rest[i]) for i, c, _ in touch for _ in c], dtype=int)
            pg = np.asarray([p for _, c, _ in touch for p in c]).reshape(-1, 2)
            pcost = np.full(len(pg), np.inf)
            parg_node = np.full(len(pg), -1)
            if len(pg):
                tg, nd = self._candidates(pg, extra_nodes, include_start=True)
                pcost, parg = self._arrive(pg, tg, self.dist[nd], self.nodes[nd], pcost)
                parg_node = np.where(parg >= 0, nd[np.maximum(parg, 0)], -1)
            # 3. goals: from tangent corners, start-touching corners, or via a pseudo-goal
            tg, nd = self._candidates(goals[rest], extra_nodes, include_start=False)
            d0 = self.dist[nd]
            F = self.nodes[nd]
            src = nd.copy()
            if len(pg):
                inv = {int(g): k for k, g in enumerate(rest)}
                ptg = np.asarray([inv[int(o)] for o in pg_owner], dtype=int)
                fin = np.isfinite(pcost)
                tg = np.concatenate([tg, ptg[fin]])
                d0 = np.concatenate([d0, pcost[fin]])
                F = np.concatenate([F, pg[fin]])
                src = np.concatenate([src, -2 - np.flatnonzero(fin)])
            sub_best = best[rest].copy()
            sub_best, arg = self._arrive(goals[rest], tg, d0, F, sub_best)
            for k, g in enumerate(rest):
                if arg[k] >= 0:
                    best[g] = sub_best[k]
                    sv = int(src[arg[k]])
                    if sv >= 0:
                        via[g] = ("node", sv)
                    else:
                        p = -2 - sv
                        via[g] = ("pseudo", p)
            self._pseudo = (pg, parg_node)
        cost = np.where(best <= self.limit, best, np.inf)
        for g in range(G):
            if not np.isfinite(cost[g]):
                continue
            kind, v = via[g]
            if kind == "direct":
                how[g] = [s, goals[g]]
            elif kind == "node":
                how[g] = self._chain(v) + [goals[g]]
            else:
                pg, parg_node = self._pseudo
                nd = int(parg_node[v])
                how[g] = self._chain(nd) + [pg[v], goals[g]]
        return cost, how

    def _candidates(self, T: np.ndarray, extra_nodes: np.ndarray, include_start: bool) -> tuple[np.ndarray, np.ndarray]:
        """(target index, graph node) candidates for the last edge into each target:
        reached corners tangent from the target, the start's touching corners, and the
        start itself if asked."""
        gr = self.graph
        xi, t = gr.tangent_corners(T)
        keep = self.reached_corner[t]
        xi, t = xi[keep], t[keep]
        nodes = gr.lab[t]
        parts_t = [xi]
        parts_n = [nodes]
        k = len(T)
        more = list(extra_nodes) + ([self.n_start] if include_start else [])
        for nd in more:
            parts_t.append(np.arange(k))
            parts_n.append(np.full(k, nd))
        tg = np.concatenate(parts_t).astype(int)
        nd = np.concatenate(parts_n).astype(int)
        if len(tg):
            u = np.unique(np.stack([tg, nd], axis=1), axis=0)
            tg, nd = u[:, 0], u[:, 1]
        return tg, nd


# ----------------------------------------------------------------------------------
# exact measurement of given polylines
# ----------------------------------------------------------------------------------


def _dedupe(points: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    P = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(P) <= 1:
        return P
    keep = np.ones(len(P), dtype=bool)
    keep[1:] = np.hypot(*np.diff(P, axis=0).T) > 0
    return P[keep]


def _result(cs: _CSet, pts: list[np.ndarray]) -> PathResult:
    P = _dedupe(pts)
    if len(P) == 1:
        P = np.vstack([P, P])
    length, climb, crossed = _measure(cs, P)
    return PathResult(
        length + climb, length, climb, tuple((float(x), float(y)) for x, y in P), crossed
    )


def _measure(cs: _CSet, P: np.ndarray) -> tuple[float, float, tuple[str, ...]]:
    A, B = P[:-1], P[1:]
    length = float(np.sum(np.hypot(*(B - A).T))) if len(A) else 0.0
    if len(A) == 0:
        return length, 0.0, ()
    _, _, seg, bar = cs.assess(A, B, cs.all)
    crossed: list[str] = []
    climb = 0.0
    for b in bar[np.lexsort((bar, seg))] if len(seg) else []:
        barrier = cs.barriers[int(b)]
        if barrier.cost is not None:
            crossed.append(barrier.id)
            climb += barrier.cost
    return length, climb, tuple(crossed)


def sweep_clear(
    base: Footprint,
    points: Sequence[Sequence[float]] | np.ndarray,
    barriers: Sequence[Barrier],
    tol: float = TOL,
    board: tuple[float, float] | None = None,
) -> list[str]:
    """Ids of the hard barriers that the base, translated along the polyline of centre
    positions ``points``, penetrates deeper than ``tol`` (empty: the move is clear).
    With ``board``, :data:`BOARD_ID` is reported if the base leaves ``[0,w]x[0,d]``."""
    P = _dedupe(points)
    rel = _rel_parts(base)
    hard = [b for b in barriers if b.cost is None]
    out: list[str] = []
    if board is not None:
        w, d = board
        for p in rel:
            lo = p.h(np.asarray([[-1.0, 0.0], [0.0, -1.0]]))
            hi = p.h(np.asarray([[1.0, 0.0], [0.0, 1.0]]))
            if (
                (P[:, 0] - lo[0] < -tol).any()
                or (P[:, 1] - lo[1] < -tol).any()
                or (P[:, 0] + hi[0] > w + tol).any()
                or (P[:, 1] + hi[1] > d + tol).any()
            ):
                out.append(BOARD_ID)
                break
    if not hard:
        return out
    cs = _CSet(rel, hard, 48)
    A, B = (P[:-1], P[1:]) if len(P) > 1 else (P, P)
    _, _, _, bar = cs.assess(A, B, cs.all, tol=tol)
    seen: list[int] = []
    for b in bar:
        if int(b) not in seen:
            seen.append(int(b))
    out.extend(hard[b].id for b in sorted(seen))
    return out


def path_cost(
    base: Footprint, points: Sequence[Sequence[float]] | np.ndarray, barriers: Sequence[Barrier]
) -> tuple[float, float, tuple[str, ...]]:
    """(length, climb, crossed ids) of the base moved along the polyline ``points``.

    Each segment that penetrates a soft barrier deeper than TOL adds its cost once; hard
    barriers are not counted here (see :func:`sweep_clear`)."""
    P = _dedupe(points)
    if len(P) < 2:
        return 0.0, 0.0, ()
    cs = _CSet(_rel_parts(base), list(barriers), 48)
    return _measure(cs, P)


__all__ = [
    "BOARD_ID",
    "Barrier",
    "CostField",
    "PathResult",
    "Planner",
    "path_cost",
    "sweep_clear",
]
