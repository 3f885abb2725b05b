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
C-obstacles that involve an ellipse (directly or inside a ``Sum``) are bracketed: a segment clear
of a circumscribed polygon is clear, one that enters an inscribed polygon deeper than
``TOL`` penetrates (separating-axis values decide both). The rare segment in between
is settled by maximising ``sd = max_v (min over the segment of v·x − h_C(v))`` over
nested grids of normals (to ~1e-9 rad), and by ``convex_signed_distance`` on the exact
swept region when that lands within 1e-7 of the threshold. A segment
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
   exactly (against hard curved C-obstacles conservatively: entering the circumscribed
   polygon counts as blocked, which is the world the bound below is about). Corners of
   soft C-obstacles are vertices too, so a path may go around a wall instead of over
   it. Dijkstra (scipy's ``csgraph``) runs once from the start. A graph built for more
   barriers is reused for a query that needs fewer.
3. Goals are joined to the tree by tangent edges. A start or goal that touches a
   C-obstacle lies inside that obstacle's circumscribed polygon; for it the touching
   normal is inserted into the polygon locally, so the path can leave or arrive along
   the true tangent line. Two curved C-obstacles whose true gap is narrower than what
   their circumscribed polygons leave open get their separating normal inserted too,
   so such passages stay open (for C-obstacles with an exact core: all but those
   involving an ellipse).
4. With a budget, only barriers whose C-obstacle can be reached within the budget are
   used (a disc around the start, or the ellipse of foci start and goal).

Near-optimality
---------------
Returned paths are exactly clear, so they are never shorter than the true shortest
path. How much longer they can be follows from the circumscription. Let ``x = π/n``
(``n`` as above; extra normals only shrink the angular gaps). Where the boundary of a
C-obstacle is curved with radius of curvature at most ``ρ`` (a disc C-obstacle: base
radius + obstacle radius; a rounded wall: the base radius; an ellipse: its largest
radius of curvature), the tangent-line corners stand at most ``ε = ρ·(sec x − 1)``
outside it; flat sides are exact. The graph's polygons therefore lie inside the true
C-obstacles grown by ``ε``, and the graph contains the shortest path around its
polygons, so the returned path is no longer than the shortest path around the grown
C-obstacles. Growing a convex obstacle by ``ε`` lengthens a path that turns ``φ``
around it by at most ``ε`` times the turn around the grown one, which is at most
``φ + 2x``. Per curved C-obstacle that the true shortest path wraps by ``φ``:

    excess ≤ ρ · (sec(π/n) − 1) · (φ + 2π/n)

(≈ ``ρ·x²/2·(φ + 2x)``; for ``n = 48`` that is 0.214 % of ``ρ·φ`` plus ``0.00028·ρ``).
The polyline that wraps the arc itself is only ``ρ·φ·(tan x / x − 1)`` (≈ ``ρ·φ·x²/3``)
longer than the arc; the rest is the two ends, where the path meets the arc at a corner
instead of at the exact tangent point. The argument above needs the start and the
goal outside the grown C-obstacles; for a start or goal that touches a C-obstacle
(handled by inserting its normal) the same bound is checked numerically, and
``tests/geometry/test_paths.py`` checks it against the closed-form
tangent-arc-tangent length around a disc for ``n`` = 8, 12, 16 and 48. Passages
narrower than ``ε`` between a curved C-obstacle and another one are kept open for
C-obstacles with exact cores; for ellipses they may be lost (the answer is then
longer, never invalid). Raise ``segments`` for a tighter bound (the excess falls as
``1/n²``).

Soft barriers: each path segment that penetrates one pays its cost once, so a path
that bends while overlapping a soft barrier pays at every bend. The planner finds the
least-cost path of its graph under that rule; the bound above concerns length only.

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
from .tangents import ExactGraph, Obstacles, Piece, arc_box_ok, arc_sd_core

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
    points is not the path. ``exact`` is False when a stand-in decided the path: the
    circumscribed polygon of an oval-involved obstacle, or the graph polyline when the
    exact construction found nothing as short; the length is then that of a valid
    path, possibly longer than the shortest."""

    cost: float
    length: float
    climb: float
    points: tuple[tuple[float, float], ...]
    crossed: tuple[str, ...]
    segments: tuple[dict, ...] = ()
    exact: bool = True


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
        self, A: np.ndarray, B: np.ndarray, q: np.ndarray, tol: float = TOL, loose: bool = False
    ) -> np.ndarray:
        """Signed distances from centre segments [A[i], B[i]] to C-obstacles q[i],
        decision-grade: ``value < -tol`` exactly when the swept base penetrates deeper
        than tol. Exact cores give the exact value; curved ones are bracketed by
        circumscribed (lower bound) and inscribed (upper bound) polygons, then by a
        local maximisation of the support-function gap, then by the library solve.

        ``loose``: a segment that enters the circumscribed polygon of a *hard* curved
        C-obstacle counts as blocked without refining (conservative; used for the graph,
        whose corners and sides are tangent to those very polygons)."""
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
            if loose:
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

    def max_gap(
        self, a: np.ndarray, b: np.ndarray, q: int, stop: float = math.inf
    ) -> tuple[np.ndarray, np.ndarray]:
        """sd(segment [a[i], b[i]], C_q) = max over unit v of (min over the segment of
        v·x − h_C(v)), maximised numerically for many segments at once: a grid of 96
        normals plus each segment's own two normals (where the maximum sits when it is
        a kink), the three best refined by nested grids to ~1e-9 rad. Returns (values,
        angles). Every value is attained, so each is a lower bound, equal to the maximum
        unless a basin narrower than the grid is missed. A segment stops refining once
        its value reaches ``stop``."""
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
        order = np.argsort(f, axis=1)[:, ::-1][:, :3]
        rows = np.arange(P)
        best = f[rows, order[:, 0]].copy()
        best_t = th[rows, order[:, 0]].copy()
        span = np.linspace(-1.0, 1.0, 33)
        for r in range(3):
            live = np.flatnonzero(best < stop)
            if len(live) == 0:
                break
            t0 = th[live, order[live, r]]
            w = _TWO_PI / 96
            for _ in range(5):
                tt = t0[:, None] + w * span[None, :]
                Ut = _unit(tt.ravel()).reshape(len(live), 33, 2)
                g = np.minimum(
                    np.einsum("pkd,pd->pk", Ut, a[live]), np.einsum("pkd,pd->pk", Ut, b[live])
                ) - self.h(q, Ut.reshape(-1, 2)).reshape(len(live), 33)
                j = np.argmax(g, axis=1)
                gj = g[np.arange(len(live)), j]
                t0 = tt[np.arange(len(live)), j]
                up = gj > best[live]
                best[live[up]] = gj[up]
                best_t[live[up]] = t0[up]
                w /= 16
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
        loose: bool = False,
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
        loose: bool = False,
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
        loose: bool = False,
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
        self.cen = cs.centre[self.qs]
        self.rp = np.zeros(M)
        np.maximum.at(self.rp, self.mm, np.hypot(*(self.P - cen).T))
        # tangent lines padded per polygon (the last line repeated), for per-pair tests
        self.cnt = counts
        Kmax = int(counts.max())
        col = np.minimum(np.arange(Kmax)[None, :], counts[:, None] - 1) + self.off[:-1, None]
        self.Upad = self.U[col]
        self.Hpad = self.H[col]
        # valid corners: inside the board box, clear of every hard C-obstacle
        valid = np.isfinite(self.P).all(axis=1)
        if box is not None:
            valid &= _in_box(self.P, box)
        # neighbours of each polygon: C-obstacles whose bounding circle meets the
        # polygon's (corners and sides of a polygon lie inside its bounding circle)
        dd = np.hypot(
            self.cen[:, None, 0] - cs.centre[None, self.qs, 0],
            self.cen[:, None, 1] - cs.centre[None, self.qs, 1],
        )
        close = dd <= self.rp[:, None] + cs.radius[self.qs][None, :] + TOL
        self.nbr_ptr = np.concatenate([[0], np.cumsum(close.sum(axis=1))])
        self.nbr = np.broadcast_to(self.qs, close.shape)[close]
        hard_close = close & cs.hard[self.qs][None, :]
        hard_ptr = np.concatenate([[0], np.cumsum(hard_close.sum(axis=1))])
        hard_nbr = np.broadcast_to(self.qs, close.shape)[hard_close]
        vi = np.flatnonzero(valid)
        blocked, _, _, _ = cs.assess_near(
            self.P[vi],
            self.P[vi],
            self.mm[vi],
            hard_ptr,
            hard_nbr,
            self.qs[self.mm[vi]],
            loose=True,
        )
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
        # candidate edges: polygon sides (checked against the polygon's neighbours) and
        # tangent bitangents (checked against everything)
        b1, b2 = self._bitangents(Hg)
        e1_l, e2_l, w_l = [], [], []
        seen = np.empty(0, dtype=np.int64)
        for t1c, t2c, sides in ((idx, self.nxt, True), (b1, b2, False)):
            ok = valid[t1c] & valid[t2c]
            t1c, t2c = t1c[ok], t2c[ok]
            c1, c2 = lab[t1c], lab[t2c]
            ok = c1 != c2
            t1c, t2c, c1, c2 = t1c[ok], t2c[ok], c1[ok], c2[ok]
            lo, hi = np.minimum(c1, c2), np.maximum(c1, c2)
            key = lo.astype(np.int64) * max(N, 1) + hi
            _, first = np.unique(key, return_index=True)
            first = first[~np.isin(key[first], seen)]
            seen = np.concatenate([seen, key[first]])
            e1, e2 = lo[first], hi[first]
            A, B = self.xy[e1], self.xy[e2]
            m1, m2 = self.mm[t1c[first]], self.mm[t2c[first]]
            if sides:
                blocked, climb, _, _ = cs.assess_near(
                    A, B, m1, self.nbr_ptr, self.nbr, self.qs[m1], loose=True
                )
            else:
                owners = np.stack([self.qs[m1], self.qs[m2]], axis=1)
                blocked, climb, _, _ = cs.assess(A, B, self.qs, owners=owners, loose=True)
            keep = ~blocked
            e1_l.append(e1[keep])
            e2_l.append(e2[keep])
            w_l.append(np.hypot(*(B[keep] - A[keep]).T) + climb[keep])
        self.e1, self.e2 = np.concatenate(e1_l), np.concatenate(e2_l)
        self.w = np.concatenate(w_l)

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
        # disc-like pairs in closed form: the separating normal joins the centres
        pp = near & cs.is_point[qs[i]] & cs.is_point[qs[j]]
        sd = d - R[i] - R[j]
        ok = pp & (sd >= -TOL) & (d > 0)
        for a, b in zip(i[ok], j[ok], strict=True):
            dv = c[b] - c[a]
            th = math.atan2(dv[1], dv[0])
            out.setdefault(int(a), []).append(th)
            out.setdefault(int(b), []).append(th + math.pi)
        ia, ib = i[near & ~pp], j[near & ~pp]
        if len(ia):
            # signed distance between the two cores: the least over the edges of each of
            # the edge-to-polygon distance (exact when apart, <= 0 when they meet)
            lo = np.full(len(ia), np.inf)
            for x, y in ((ia, ib), (ib, ia)):
                qx, qy = qs[x], qs[y]
                segs_a, segs_b, owner = [], [], []
                for k, u_ in enumerate(qx):
                    cx = cs.core[u_]
                    segs_a.append(cx)
                    segs_b.append(np.roll(cx, -1, axis=0))
                    owner.append(np.full(len(cx), k))
                A_ = np.concatenate(segs_a)
                B_ = np.concatenate(segs_b)
                own = np.concatenate(owner)
                sd_e = cs.sd_pairs(A_, B_, qy[own]) + cs.rho[qy[own]]  # against the bare core
                np.minimum.at(lo, own, sd_e)
            gap = lo - cs.rho[qs[ia]] - cs.rho[qs[ib]]
            keep = (gap >= -TOL) & (gap < slack[ia] + slack[ib])
            ia, ib = ia[keep], ib[keep]
        for a, b in zip(ia, ib, strict=True):
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
        return (lo[:, 0] * ny - lo[:, 1] * nx >= -_ANG_EPS) & (
            nx * hi[:, 1] - ny * hi[:, 0] >= -_ANG_EPS
        )

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
        cen = self.cen
        rp = self.rp
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
                hit |= self._in_cone(v1, s * nx, s * ny) & self._in_cone(
                    v2, sgn * s * nx, sgn * s * ny
                )
            out1.append(v1[hit])
            out2.append(v2[hit])
        return np.concatenate(out1), np.concatenate(out2)

    # -- queries --------------------------------------------------------------------
    def tangent_corners(
        self, X: np.ndarray, lines: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(point index, corner index) pairs such that the line from X[i] to the corner
        supports the corner's polygon there: corner t joins tangent lines t and next(t),
        and X sees exactly one of them (the visible chain of sides ends at t). Only
        valid corners; ``lines`` optionally restricts the search to a boolean mask of
        polygons."""
        e = np.empty(0, dtype=int)
        if len(X) == 0 or len(self.ang) == 0:
            return e, e
        if lines is None:
            U, Hm, last = self.U, self.H - _ON_LINE, self.off[1:] - 1
            sel = None
        else:
            pm = np.flatnonzero(lines)
            if len(pm) == 0:
                return e, e
            sel = np.concatenate([np.arange(self.off[m], self.off[m + 1]) for m in pm])
            U, Hm = self.U[sel], self.H[sel] - _ON_LINE
            cnt = self.off[pm + 1] - self.off[pm]
            last = np.cumsum(cnt) - 1
        vis = (X @ U.T) > Hm
        tan = np.empty_like(vis)
        np.not_equal(vis[:, :-1], vis[:, 1:], out=tan[:, :-1])
        first = np.concatenate([[0], last[:-1] + 1])
        tan[:, last] = vis[:, last] != vis[:, first]
        xi, t = np.nonzero(tan)
        if sel is not None:
            t = sel[t]
        ok = self.valid[t]
        return xi[ok], t[ok]

    def tangent_pairs(
        self, X: np.ndarray, xi: np.ndarray, mi: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`tangent_corners` for given (point X[xi[p]], polygon mi[p]) pairs:
        returns (pair index, corner index)."""
        e = np.empty(0, dtype=int)
        if len(xi) == 0:
            return e, e
        U = self.Upad[mi]
        x = X[xi]
        vis = (U[..., 0] * x[:, 0:1] + U[..., 1] * x[:, 1:2]) > self.Hpad[mi] - _ON_LINE
        p, j = np.nonzero(vis != np.roll(vis, -1, axis=1))
        t = self.off[mi[p]] + np.minimum(j, self.cnt[mi[p]] - 1)
        ok = self.valid[t]
        return p[ok], t[ok]

    def touching(
        self, X: np.ndarray, others: Sequence[tuple[int, int, float, float]] = ()
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, int, float, float]]]:
        """Corners for points that touch a C-obstacle.

        A point strictly inside a circumscribed polygon but (within TOL) outside the
        true C-obstacle lies between the true boundary and the polygon. Inserting the
        point's touching normal φ (outward normal of C at the nearest point) into the
        polygon puts the point on its boundary; the two corners that line makes with the
        neighbouring tangent lines are returned. ``others`` are normals inserted for
        another point (the start): where one falls between the same two tangent lines,
        the corner of the two inserted lines is returned too.

        Returns (point index per corner, corners (k, 2), polygon per corner, per touch
        (polygon, line k, φ, h_C(φ)))."""
        none: tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, int, float, float]]] = (
            np.empty(0, dtype=int),
            np.empty((0, 2)),
            np.empty(0, dtype=int),
            [],
        )
        if len(X) == 0 or self.M == 0:
            return none
        cs = self.cs
        S = X @ self.U.T - self.H
        smax = np.maximum.reduceat(S, self.off[:-1], axis=1)
        xi, mi = np.nonzero(smax < -_ON_LINE)
        if len(xi) == 0:
            return none
        q = self.qs[mi]
        x = X[xi]
        phi = np.full(len(xi), np.nan)
        hphi = np.full(len(xi), np.nan)
        pt = cs.is_point[q]
        if pt.any():
            # disc-like C: normal along the centre-to-point direction
            c = np.asarray([cs.core[k][0] for k in q[pt]]).reshape(-1, 2)
            d = x[pt] - c
            r = np.hypot(d[:, 0], d[:, 1])
            okp = (r > 0) & (r - cs.rho[q[pt]] >= -TOL)
            u = d / np.where(r > 0, r, 1.0)[:, None]
            idx = np.flatnonzero(pt)[okp]
            phi[idx] = np.arctan2(u[okp, 1], u[okp, 0])
            hphi[idx] = np.einsum("ij,ij->i", u[okp], c[okp]) + cs.rho[q[pt]][okp]
        for i in np.flatnonzero(~pt & cs.exact[q]):
            hit = self._touching_normal(x[i], int(q[i]))
            if hit is not None:
                phi[i], hphi[i] = hit
        curved = ~cs.exact[q]
        for qc in np.unique(q[curved]):
            # the separating normal maximises u·x − h_C(u); its maximum is sd(x, C)
            k = np.flatnonzero(curved & (q == qc))
            sdv, tv = cs.max_gap(x[k], x[k], int(qc))
            good = sdv >= -TOL
            phi[k[good]] = tv[good]
            hphi[k[good]] = cs.h(int(qc), _unit(tv[good]))
        ok = np.isfinite(phi)
        xi, mi, x, phi, hphi = xi[ok], mi[ok], x[ok], phi[ok], hphi[ok]
        if len(xi) == 0:
            return none
        # line k of polygon m with ang[k] <= φ < ang[next k] (angles taken from the
        # polygon's first line, so a global search over (m, angle) keys works)
        a0 = self.ang[self.off[:-1]]
        rel_line = self.ang - a0[self.mm]
        ph = np.mod(phi - a0[mi], _TWO_PI)
        k = np.searchsorted(self.mm * 8.0 + rel_line, mi * 8.0 + ph, side="right") - 1
        kn = self.nxt[k]
        dk = np.mod(ph - rel_line[k], _TWO_PI)
        dn = np.mod(rel_line[kn] - ph, _TWO_PI)
        near_k = (dk < _ANG_EPS) | (dk > _TWO_PI - _ANG_EPS)
        near_n = (dn < _ANG_EPS) | (dn > _TWO_PI - _ANG_EPS)
        u = _unit(phi)
        hr = hphi - np.einsum("ij,ij->i", u, x)
        Uk, Un = self.U[k], self.U[kn]
        with np.errstate(divide="ignore", invalid="ignore"):
            c1 = _intersect(Uk, self.H[k] - np.einsum("ij,ij->i", Uk, x), u, hr) + x
            c2 = _intersect(u, hr, Un, self.H[kn] - np.einsum("ij,ij->i", Un, x)) + x
        c1 = np.where(
            near_k[:, None], self.P[self.prv[k]], np.where(near_n[:, None], self.P[k], c1)
        )
        c2 = np.where(near_k[:, None], self.P[k], np.where(near_n[:, None], self.P[kn], c2))
        owner = [xi, xi]
        poly = [mi, mi]
        corners = [c1, c2]
        for m2, k2, phi2, h2 in others:
            j = np.flatnonzero((mi == m2) & (k == k2) & (np.abs(np.sin(phi - phi2)) >= _ANG_EPS))
            if len(j) == 0:
                continue
            u2 = np.repeat(np.array([[math.cos(phi2), math.sin(phi2)]]), len(j), axis=0)
            h2r = h2 - np.einsum("ij,ij->i", u2, x[j])
            corners.append(_intersect(u[j], hr[j], u2, h2r) + x[j])
            owner.append(xi[j])
            poly.append(mi[j])
        info = [
            (int(m), int(kk), float(p), float(h))
            for m, kk, p, h in zip(mi, k, phi, hphi, strict=True)
        ]
        return np.concatenate(owner), np.concatenate(corners), np.concatenate(poly), info

    def _touching_normal(self, x: np.ndarray, q: int) -> tuple[float, float] | None:
        """For an exact C-obstacle (core ⊕ disc): the outward normal φ at the point of
        C_q nearest x, and h_C(φ); None if x is inside C_q deeper than TOL."""
        cs = self.cs
        core = cs.core[q]
        rho = float(cs.rho[q])
        if len(core) >= 3:
            e = np.roll(core, -1, axis=0) - core
            nrm = np.stack([e[:, 1], -e[:, 0]], axis=-1) / np.hypot(*e.T)[:, None]
            sdist = np.einsum("ij,ij->i", nrm, x - core)
            if bool((sdist <= 0).all()):
                # inside the core: the face of least penetration
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
    (10.455, ())
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

    def excess_bound(self, rho: float, phi: float) -> float:
        """The stated bound on how much longer than the true shortest path a returned
        path can be, for one curved C-obstacle of radius of curvature ``rho`` that the
        true path wraps by ``phi`` radians (see the module docstring)."""
        x = math.pi / self.n
        return rho * (1.0 / math.cos(x) - 1.0) * (phi + 2.0 * x)

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

    def _relevant(
        self, ctx: _Context, s: np.ndarray, g: np.ndarray | None, budget: float | None
    ) -> np.ndarray:
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
            if need <= have:  # a graph over more barriers answers the same within budget
                ctx.graphs.append(ctx.graphs.pop(k))
                return gr
        if 2 * len(need) > ctx.cs.Q:
            # most barriers matter anyway: build once for all, so later starts reuse it
            need = frozenset(range(ctx.cs.Q))
        gr = _Graph(ctx.cs, np.asarray(sorted(need), dtype=int), ctx.box)
        ctx.graphs.append((need, gr))
        if len(ctx.graphs) > self.CACHE:
            ctx.graphs.pop(0)
        return gr

    # -- public -------------------------------------------------------------------------
    def plan(
        self, base: Footprint, goal: Sequence[float] | np.ndarray, budget: float | None = None
    ) -> PathResult | None:
        """Least-cost path of the base centre from ``base.center`` to ``goal``; ``None``
        if there is none (or none within ``budget``, compared with TOL).

        The start and the goal may touch hard barriers; a start that already overlaps
        one deeper than TOL, or a goal that would, has no path."""
        ctx = self._context(base)
        s = np.asarray(base.center, dtype=float)
        g = np.asarray(goal, dtype=float)
        if ctx.box is not None and not _in_box(np.stack([s, g]), ctx.box).all():
            return None
        L = float(math.hypot(g[0] - s[0], g[1] - s[1]))
        if budget is not None and L > budget + TOL:
            return None
        blocked, climb, hit, _ = ctx.cs.assess(s[None], g[None], ctx.cs.all)
        if not blocked[0] and climb[0] == 0.0:
            # nothing is shorter than the straight segment, and it climbs nothing
            if len(hit) == 0:
                pts = ((float(s[0]), float(s[1])), (float(g[0]), float(g[1])))
                seg = ({"kind": "line", "from": list(pts[0]), "to": list(pts[1])},) if L > 0 else ()
                return PathResult(L, L, 0.0, pts, (), seg, True)
            return _result(ctx.cs, [s, g])  # crosses only free soft barriers
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

    def __init__(
        self, planner: Planner, ctx: _Context, graph: _Graph, base: Footprint, budget: float | None
    ) -> None:
        self.planner = planner
        self.ctx = ctx
        self.graph = graph
        self.base = base
        self.budget = budget
        self.limit = np.inf if budget is None else budget + TOL
        # the graph's polygons may make a path up to the stated excess longer than the
        # exact one, so the graph explores that much beyond the budget; the exact
        # refinement then decides against the budget itself
        cs0 = ctx.cs
        rho_max = float(cs0.rho.max()) if cs0.Q else 0.0
        curv = [float(np.max(np.hypot(*(cs0.core[q] - cs0.centre[q]).T))) for q in np.flatnonzero(~cs0.exact)]
        rho_max = max([rho_max, *curv])
        x = math.pi / planner.n
        self.slack = rho_max * (1.0 / math.cos(x) - 1.0) * (4.0 * math.pi + 1.0) + 1e-6
        self.glimit = self.limit + self.slack
        self._exact: dict[frozenset[int], object] = {}
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
        _, corners, _, self.start_touch = gr.touching(s[None])
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
        px, pn = _unique_pairs(xi, gr.lab[t])
        A = np.concatenate([np.asarray(A_l).reshape(-1, 2), X[px]])
        B = np.concatenate([np.asarray(B_l).reshape(-1, 2), gr.xy[pn]])
        a_id = np.concatenate([np.asarray(i1, dtype=int), ids[px]])
        b_id = np.concatenate([np.asarray(i2, dtype=int), pn])
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
        r = np.concatenate(e1).astype(np.int64)
        c = np.concatenate(e2).astype(np.int64)
        w = np.maximum(np.concatenate(ww), _TINY)
        # one entry per undirected edge (a sparse matrix would add up repeats), the least
        lo, hi = np.minimum(r, c), np.maximum(r, c)
        order = np.lexsort((w, hi, lo))
        lo, hi, w = lo[order], hi[order], w[order]
        first = np.ones(len(lo), dtype=bool)
        first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        mat = csr_matrix((w[first], (lo[first], hi[first])), shape=(T, T))
        if self.start_ok:
            self.dist, self.pred = dijkstra(
                mat, directed=False, indices=N, return_predecessors=True, limit=self.glimit
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
        self.poly_dmin = np.full(gr.M, np.inf)
        if len(gr.ang):
            t = np.flatnonzero(self.reached_corner)
            np.minimum.at(self.poly_dmin, gr.mm[t], self.dist[gr.lab[t]])
        self.extra_reached = self.start_extra[reach[self.start_extra]]

    # -- queries ----------------------------------------------------------------------
    def cost(self, goals: np.ndarray) -> np.ndarray:
        """Least cost (length + climb) to each goal (n, 2); ``inf`` if unreachable or over
        budget."""
        goals = np.atleast_2d(np.asarray(goals, dtype=float))
        return self._solve(goals)[0]

    def path(self, goal: Sequence[float] | np.ndarray) -> PathResult | None:
        """The least-cost path to ``goal`` (measured exactly), or ``None``."""
        g = np.asarray(goal, dtype=float)[None, :]
        c, how = self._solve(g, want_paths=True)
        if not np.isfinite(c[0]) or how[0] is None:
            return None
        pieces, exact = how[0]
        return _piece_result(self.ctx.cs, pieces, exact, self.start)

    # -- internals ----------------------------------------------------------------------
    _DIRECT = -2

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
        self,
        T: np.ndarray,
        tgt: np.ndarray,
        d0: np.ndarray,
        F: np.ndarray,
        src: np.ndarray,
        best: np.ndarray,
        who: np.ndarray,
        guard: np.ndarray | None = None,
    ) -> None:
        """Candidate last edges: target T[tgt[i]] reached from point F[i], already at cost
        d0[i]. Improves ``best`` (and ``who`` = src of the winner) in place with the least
        d0 + |T − F| + climb over exactly clear edges. Candidates are checked in rounds,
        cheapest lower bound first, and dropped once their bound cannot win.

        ``guard[t]`` (optional) is a C-obstacle target t touches: candidates whose edge
        enters it are dropped first, in closed form when it is disc-like."""
        if len(tgt) == 0:
            return
        cs = self.ctx.cs
        lb = d0 + np.hypot(*(T[tgt] - F).T)
        keep = (lb < best[tgt]) & (lb <= self.glimit)
        if guard is not None:
            gq = guard[tgt]
            chk = np.flatnonzero(keep & (gq >= 0))
            chk = chk[cs.is_point[gq[chk]] & cs.hard[gq[chk]]]
            if len(chk):
                d = _seg_point_dist(F[chk], T[tgt[chk]], cs.centre[gq[chk]])
                keep[chk[d - cs.rho[gq[chk]] < -TOL]] = False
        idx = np.flatnonzero(keep)
        if len(idx) == 0:
            return
        order = idx[np.lexsort((lb[idx], tgt[idx]))]
        tg = tgt[order]
        rank = np.arange(len(order)) - np.searchsorted(tg, tg, side="left")
        lo, width = 0, 1
        while True:
            live = (rank >= lo) & (lb[order] < best[tg])
            if not live.any():
                break
            k = order[live & (rank < lo + width)]
            if len(k):
                blocked, climb, _, _ = cs.assess(F[k], T[tgt[k]], self.graph.qs)
                cval = np.where(blocked, np.inf, lb[k] + climb)
                o = np.lexsort((cval, tgt[k]))
                kt, cv = tgt[k][o], cval[o]
                first = np.ones(len(kt), dtype=bool)
                first[1:] = kt[1:] != kt[:-1]
                kt, cv, ko = kt[first], cv[first], k[o][first]
                win = cv < best[kt]
                best[kt[win]] = cv[win]
                who[kt[win]] = src[ko[win]]
            lo += width
            width *= 2

    def _best(
        self,
        T: np.ndarray,
        best: np.ndarray,
        who: np.ndarray,
        include_start: bool,
        pre: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
        guard: np.ndarray | None = None,
    ) -> None:
        """Least arrival cost at each point T[i] (in place in ``best``/``who``): from the
        candidates ``pre`` (target, d0, from, src), from the start's touching corners
        (and the start itself if asked), and from graph corners tangent from T[i].

        Polygons are visited per target in order of a lower bound on any arrival through
        them (least cost of their reached corners + distance to their bounding circle),
        and only while that bound can still win."""
        gr = self.graph
        k = len(T)
        if pre is not None and len(pre[0]):
            self._arrive(T, pre[0], pre[1], pre[2], pre[3], best, who)
        if guard is not None and not (guard >= 0).any():
            guard = None
        extra = list(self.extra_reached) + ([self.n_start] if include_start else [])
        if extra:
            tg = np.repeat(np.arange(k), len(extra))
            nd = np.tile(np.asarray(extra, dtype=int), k)
            self._arrive(T, tg, self.dist[nd], self.nodes[nd], nd, best, who, guard)
        M = gr.M
        if M == 0 or not np.isfinite(self.poly_dmin).any():
            return
        dc = np.hypot(T[:, None, 0] - gr.cen[None, :, 0], T[:, None, 1] - gr.cen[None, :, 1])
        LB = self.poly_dmin[None, :] + np.maximum(0.0, dc - gr.rp[None, :])
        done = np.zeros((k, M), dtype=bool)
        rows = np.arange(k)[:, None]
        width = 3
        while True:
            cand = ~done & (LB < np.minimum(best, self.glimit)[:, None])
            if not cand.any():
                break
            LBc = np.where(cand, LB, np.inf)
            w = min(width, M)
            idx = (
                np.argpartition(LBc, w - 1, axis=1)[:, :w]
                if w < M
                else np.broadcast_to(np.arange(M), (k, M))
            )
            sel = np.isfinite(LBc[rows, idx])
            xi = np.broadcast_to(rows, idx.shape)[sel]
            mi = idx[sel]
            done[xi, mi] = True
            p, t = gr.tangent_pairs(T, xi, mi)
            keep = self.reached_corner[t]
            tg, nd = _unique_pairs(xi[p[keep]], gr.lab[t[keep]])
            self._arrive(T, tg, self.dist[nd], self.nodes[nd], nd, best, who, guard)
            width = M

    def _solve(
        self, goals: np.ndarray, want_paths: bool = False
    ) -> tuple[np.ndarray, list[list[np.ndarray] | None]]:
        cs = self.ctx.cs
        gr = self.graph
        G = len(goals)
        how: list[list[np.ndarray] | None] = [None] * G
        best = np.full(G, np.inf)
        who = np.full(G, -1)
        if not self.start_ok:
            return best, how
        s = self.start
        gi = np.arange(G) if self.ctx.box is None else np.flatnonzero(_in_box(goals, self.ctx.box))
        if len(gi) == 0:
            return best, how
        # 1. the straight segment (optimal when clear and crossing nothing)
        A = np.repeat(s[None], len(gi), axis=0)
        blocked, climb, _, _ = cs.assess(A, goals[gi], cs.all)
        direct = np.where(blocked, np.inf, np.hypot(*(goals[gi] - s).T) + climb)
        direct = np.where(direct <= self.limit, direct, np.inf)
        best[gi] = direct
        who[gi[np.isfinite(direct)]] = self._DIRECT
        rest = gi[blocked | (climb > 0)]
        pg = np.empty((0, 2))
        pwho = np.empty(0, dtype=int)
        if len(rest):
            # 2. corners where a goal touches a C-obstacle (pseudo-goals), then the goals
            own, pg, poly, _ = gr.touching(goals[rest], self.start_touch)
            pbest = np.full(len(pg), np.inf)
            pwho = np.full(len(pg), -1)
            if len(pg):
                self._best(pg, pbest, pwho, include_start=True, guard=gr.qs[poly])
            fin = np.flatnonzero(np.isfinite(pbest))
            pre = (own[fin], pbest[fin], pg[fin], -3 - fin)
            sub_best, sub_who = best[rest].copy(), who[rest].copy()
            guard = np.full(len(rest), -1)
            guard[own] = gr.qs[poly]
            self._best(goals[rest], sub_best, sub_who, include_start=False, pre=pre, guard=guard)
            best[rest], who[rest] = sub_best, sub_who
        exact = np.ones(G, dtype=bool)
        pieces: list = [None] * G
        ref = np.flatnonzero(np.isfinite(best) & (who != self._DIRECT))
        if len(ref):
            polys = {}
            for g in ref:
                v = int(who[g])
                if v >= 0:
                    polys[int(g)] = self._chain(v) + [goals[g]]
                else:
                    p = -3 - v
                    polys[int(g)] = self._chain(int(pwho[p])) + [pg[p], goals[g]]
            rc, rp, rx = self._refine(goals, polys, best, want_paths)
            for g in ref:
                g = int(g)
                if g in rc and rc[g] <= best[g] + 1e-9:
                    best[g] = rc[g]
                    pieces[g] = rp.get(g)
                    exact[g] = rx[g]
                else:
                    # the exact construction found nothing better: keep the polyline
                    exact[g] = False
                    pieces[g] = _line_pieces(_dedupe(polys[g]))
        cost = np.where(best <= self.limit, best, np.inf)
        self.last_exact = exact
        if want_paths:
            for g in np.flatnonzero(np.isfinite(cost)):
                if int(who[g]) == self._DIRECT:
                    how[g] = (_line_pieces(_dedupe([s, goals[g]])), True)
                else:
                    how[g] = (pieces[g], bool(exact[g]))
        return cost, how

    # -- exact refinement -------------------------------------------------------------
    def _near(self, polys: dict[int, list[np.ndarray]], margin: float) -> dict[int, frozenset[int]]:
        """For each goal's polyline: the C-obstacles of the graph within ``margin`` of it."""
        cs = self.ctx.cs
        qs = self.graph.qs
        A_l, B_l, o_l = [], [], []
        for g, pts in polys.items():
            P = _dedupe(pts)
            if len(P) < 2:
                P = np.vstack([P, P])
            A_l.append(P[:-1])
            B_l.append(P[1:])
            o_l.append(np.full(len(P) - 1, g))
        out: dict[int, set[int]] = {g: set() for g in polys}
        if len(qs) == 0:
            return {g: frozenset() for g in polys}
        A, B, own = np.concatenate(A_l), np.concatenate(B_l), np.concatenate(o_l)
        chunk = max(1, 200_000 // max(1, len(qs)))
        for s0 in range(0, len(A), chunk):
            a, b = A[s0 : s0 + chunk], B[s0 : s0 + chunk]
            d2 = _seg_point_d2_matrix(a, b, cs.centre[qs])
            si, qj = np.nonzero(d2 <= (cs.radius[qs] + margin) ** 2)
            if len(si) == 0:
                continue
            q = qs[qj]
            sd = cs.sd_pairs(a[si], b[si], q, tol=-margin)
            near = sd < margin
            for g, qq in zip(own[s0 + si[near]], q[near], strict=True):
                out[int(g)].add(int(qq))
        return {g: frozenset(v) for g, v in out.items()}

    def _exact_graph(self, key: frozenset[int]):
        eg = self._exact.get(key)
        if eg is not None:
            return eg
        cs = self.ctx.cs
        local = np.asarray(sorted(key), dtype=int)
        obs = Obstacles(
            [cs.core[q] for q in local],
            [float(cs.rho[q]) if cs.exact[q] else 0.0 for q in local],
            [bool(cs.hard[q]) for q in local],
            [int(cs.bar[q]) for q in local],
            [bool(cs.exact[q]) for q in local],
        )
        checker = _Checker(cs, self.graph.qs, self.ctx.box, local)
        eg = ExactGraph(obs, self.start, checker.segments, checker.arcs, self.limit)
        eg.all_exact = bool(cs.exact[local].all()) if len(local) else True
        if len(self._exact) > 64:
            self._exact.clear()
        self._exact[key] = eg
        return eg

    def _refine(
        self,
        goals: np.ndarray,
        polys: dict[int, list[np.ndarray]],
        graph_cost: np.ndarray,
        want_paths: bool,
    ) -> tuple[dict[int, float], dict[int, list], dict[int, bool]]:
        """Exact costs (and pieces) for goals the graph reached along ``polys``: the
        tangent graph over the C-obstacles near each polyline, widened once if that
        finds nothing as short as the polyline."""
        cs = self.ctx.cs
        rc: dict[int, float] = {}
        rp: dict[int, list] = {}
        rx: dict[int, bool] = {}
        eps = self.slack / (4.0 * math.pi + 1.0)
        todo = dict(polys)
        for margin in (4.0 * eps + 1e-3, 40.0 * eps + 0.05):
            if not todo:
                break
            near = self._near(todo, margin)
            groups: dict[frozenset[int], list[int]] = {}
            for g, key in near.items():
                groups.setdefault(key, []).append(g)
            for key, gs in groups.items():
                eg = self._exact_graph(key)
                idx = np.asarray(gs, dtype=int)
                c, hw = eg.join(goals[idx])
                for k, g in enumerate(gs):
                    pc = float(graph_cost[g])
                    if np.isfinite(c[k]):
                        rc[g] = float(c[k])
                        rx[g] = eg.all_exact
                        if want_paths:
                            rp[g] = eg.pieces(goals[g], hw[k])
                    if not (np.isfinite(c[k]) and c[k] <= pc + 1e-9):
                        rc.pop(g, None)
                        continue
            todo = {g: p for g, p in todo.items() if g not in rc}
        for g in rc:
            if want_paths and g in rp:
                # an ellipse-involved obstacle near the final path was judged by its
                # circumscribed stand-in: the path is valid but maybe not the shortest
                if rx[g] and not _Checker(cs, self.graph.qs, self.ctx.box, np.empty(0, int)).exact_near(rp[g]):
                    rx[g] = False
        return rc, rp, rx
# ----------------------------------------------------------------------------------
# exact measurement of given polylines
# ----------------------------------------------------------------------------------


def _dedupe(points: Sequence[Sequence[float]] | Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
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
    segs = tuple(p.as_dict() for p in _line_pieces(P))
    return PathResult(
        length + climb, length, climb, tuple((float(x), float(y)) for x, y in P), crossed, segs
    )


def _line_pieces(P: np.ndarray) -> list[Piece]:
    return [
        Piece("line", (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), float(math.dist(a, b)))
        for a, b in zip(P[:-1], P[1:], strict=True)
        if math.dist(a, b) > 0
    ]


def _piece_result(cs: _CSet, pieces: list[Piece], exact: bool, start: np.ndarray) -> PathResult:
    """A path made of pieces, measured: its length is the sum of the pieces' exact
    lengths; each piece that enters a soft barrier deeper than TOL pays its cost once."""
    s = (float(start[0]), float(start[1]))
    points = [s]
    for p in pieces:
        if p.kind == "arc":
            points.extend(_arc_polyline(p))
        points.append(p.b)
    if len(points) == 1:
        points.append(s)
    length = float(sum(p.length for p in pieces))
    crossed: list[str] = []
    climb = 0.0
    chk = _Checker(cs, cs.all, None, np.empty(0, dtype=int))
    for p in pieces:
        if p.kind == "line":
            _, _, _, bar = cs.assess(np.asarray([p.a]), np.asarray([p.b]), cs.all)
            bars = sorted({int(b) for b in bar})
        else:
            bars = sorted(chk.arc_barriers(p))
        for b in bars:
            barrier = cs.barriers[b]
            if barrier.cost is not None:
                crossed.append(barrier.id)
                climb += barrier.cost
    return PathResult(
        length + climb,
        length,
        climb,
        tuple(points),
        tuple(crossed),
        tuple(p.as_dict() for p in pieces),
        exact,
    )


class _Checker:
    """Exact judges of path pieces against the C-obstacles ``qs`` (and the board box),
    for the tangent graph: segments by the exact segment distance, arcs by the exact
    arc distance to each C-obstacle's core (an oval-involved C-obstacle is represented
    by its circumscribed polygon, which is conservative). ``local`` maps the tangent
    graph's obstacle numbers to C-obstacles (an arc never checks its own)."""

    def __init__(self, cs: _CSet, qs: np.ndarray, box: np.ndarray | None, local: np.ndarray) -> None:
        self.cs = cs
        self.qs = np.asarray(qs, dtype=int)
        self.box = box
        self.local = np.asarray(local, dtype=int)

    def segments(self, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        blocked, climb, _, _ = self.cs.assess(A, B, self.qs)
        if self.box is not None:
            blocked = blocked | ~_in_box(A, self.box) | ~_in_box(B, self.box)
        return blocked, climb, [()] * len(A)

    def _pairs(self, c: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cs = self.cs
        out_i, out_q = [], []
        chunk = max(1, 200_000 // max(1, len(self.qs)))
        for s0 in range(0, len(c), chunk):
            cc, rr = c[s0 : s0 + chunk], r[s0 : s0 + chunk]
            d = np.hypot(
                cc[:, None, 0] - cs.centre[None, self.qs, 0], cc[:, None, 1] - cs.centre[None, self.qs, 1]
            )
            i, j = np.nonzero(d <= rr[:, None] + cs.radius[self.qs][None, :] + TOL)
            out_i.append(i + s0)
            out_q.append(self.qs[j])
        if not out_i:
            return np.empty(0, dtype=int), np.empty(0, dtype=int)
        return np.concatenate(out_i), np.concatenate(out_q)

    def _pen(
        self, c: np.ndarray, r: np.ndarray, a0: np.ndarray, sp: np.ndarray, skip: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(arc, C-obstacle) pairs where the arc penetrates deeper than TOL."""
        cs = self.cs
        i, q = self._pairs(c, r)
        keep = q != skip[i]
        i, q = i[keep], q[keep]
        pi_, pq = [], []
        for qq in np.unique(q):
            k = i[q == qq]
            rho = float(cs.rho[qq]) if cs.exact[qq] else 0.0
            hit = arc_sd_core(c[k], r[k], a0[k], sp[k], cs.core[qq], rho)
            pi_.append(k[hit])
            pq.append(np.full(int(hit.sum()), qq))
        if not pi_:
            return np.empty(0, dtype=int), np.empty(0, dtype=int)
        return np.concatenate(pi_), np.concatenate(pq)

    def arcs(
        self, c: np.ndarray, r: np.ndarray, a0: np.ndarray, sp: np.ndarray, owner: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list]:
        cs = self.cs
        n = len(c)
        skip = self.local[owner] if len(self.local) else np.full(n, -1)
        pi_, pq = self._pen(c, r, a0, sp, skip)
        blocked = np.zeros(n, dtype=bool)
        blocked[pi_[cs.hard[pq]]] = True
        climb = np.zeros(n)
        soft = ~cs.hard[pq]
        ps, pb = _unique_pairs(pi_[soft], cs.bar[pq[soft]])
        if len(ps):
            climb += np.bincount(ps, weights=cs.cost_of_bar[pb], minlength=n)
        blocked |= ~arc_box_ok(c, r, a0, sp, self.box)
        return blocked, climb, [()] * n

    def arc_barriers(self, p: Piece) -> set[int]:
        """Barriers an arc piece penetrates deeper than TOL (its own C-obstacle, on
        whose boundary it runs, is never penetrated)."""
        c, r, a0, sp = _arc_params(p)
        pi_, pq = self._pen(c, r, a0, sp, np.full(1, -1))
        # the arc runs on the boundary of the C-obstacle it wraps: sd = 0 there
        return {int(self.cs.bar[q]) for q in pq}

    def exact_near(self, pieces: list[Piece]) -> bool:
        """No oval-involved C-obstacle comes near any piece (within its bounding circle)."""
        cs = self.cs
        inex = np.flatnonzero(~cs.exact)
        if len(inex) == 0:
            return True
        for p in pieces:
            if p.kind == "line":
                d2 = _seg_point_d2_matrix(np.asarray([p.a]), np.asarray([p.b]), cs.centre[inex])[0]
                if (d2 <= (cs.radius[inex] + TOL) ** 2).any():
                    return False
            else:
                c, r, _, _ = _arc_params(p)
                d = np.hypot(*(cs.centre[inex] - c[0]).T)
                if (d <= cs.radius[inex] + r[0] + TOL).any():
                    return False
        return True


#: Largest gap (scenario unit) between an arc and the chords that stand for it in
#: ``PathResult.points``: well inside TOL even after coordinates are rounded to 1e-6.
ARC_SAGITTA = 2.5e-7


def _arc_polyline(p: Piece) -> list[tuple[float, float]]:
    """Inner points of an arc for the polyline ``points``: equally spaced on the arc so
    that no chord strays more than :data:`ARC_SAGITTA` from it (a reader who takes the
    polyline for the path is off by less than TOL)."""
    c, r, a0, sp = _arc_params(p)
    rr, span = float(r[0]), float(sp[0])
    if rr <= ARC_SAGITTA or span <= 0:
        return []
    step = 2.0 * math.acos(1.0 - ARC_SAGITTA / rr)
    k = math.ceil(span / step)
    if k <= 1:
        return []
    t = np.arange(1, k) / k * span
    ang = float(a0[0]) + (t if p.ccw else span - t)
    return [(float(c[0, 0] + rr * math.cos(a)), float(c[0, 1] + rr * math.sin(a))) for a in ang]


def _arc_params(p: Piece) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(centre, radius, start angle, span) of an arc piece as length-1 arrays, the
    span counter-clockwise from the start angle."""
    assert p.center is not None
    c = np.asarray([p.center], dtype=float)
    ta = math.atan2(p.a[1] - p.center[1], p.a[0] - p.center[0])
    tb = math.atan2(p.b[1] - p.center[1], p.b[0] - p.center[0])
    sp = p.length / p.radius if p.radius > 0 else 0.0
    a0 = ta if p.ccw else tb
    del tb
    return c, np.asarray([p.radius]), np.asarray([a0]), np.asarray([sp])


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


@dataclass(frozen=True)
class PathCheck:
    """What :func:`measure_path` finds: exact length, climb and crossed soft barriers
    (once per piece and barrier), and the hard barriers (or :data:`BOARD_ID`) entered."""

    length: float
    climb: float
    crossed: tuple[str, ...]
    blocked: tuple[str, ...]


def piece_from_dict(d: dict) -> Piece:
    """A path piece from its contract form (``kind`` line or arc). An arc's span runs
    from ``from`` to ``to`` round ``center`` in its direction (``ccw``); its length is
    ``radius × span``. Raises ValueError for a malformed piece."""
    kind = d.get("kind")
    a = tuple(float(v) for v in d["from"][:2])
    b = tuple(float(v) for v in d["to"][:2])
    if kind == "line":
        return Piece("line", a, b, math.dist(a, b))
    if kind != "arc":
        raise ValueError(f"unknown piece kind {kind!r}")
    c = tuple(float(v) for v in d["center"][:2])
    r = float(d["radius"])
    if not (r >= 0 and math.isfinite(r)):
        raise ValueError("an arc's radius must be finite and >= 0")
    ccw = bool(d.get("ccw", True))
    ta = math.atan2(a[1] - c[1], a[0] - c[0])
    tb = math.atan2(b[1] - c[1], b[0] - c[0])
    span = (tb - ta) % _TWO_PI if ccw else (ta - tb) % _TWO_PI
    return Piece("arc", a, b, r * span, c, r, ccw)


def measure_path(
    base: Footprint,
    pieces: Sequence[Piece | dict],
    barriers: Sequence[Barrier],
    board: tuple[float, float] | None = None,
    tol: float = TOL,
) -> PathCheck:
    """Measure the base (centred at the first piece's start) moved along ``pieces``
    (lines and arcs of its centre, as :class:`Piece` or contract dicts): exact length,
    climbing, and which hard barriers it enters deeper than ``tol``."""
    ps = [p if isinstance(p, Piece) else piece_from_dict(p) for p in pieces]
    ps = [p for p in ps if p.length > 0]
    length = float(sum(p.length for p in ps))
    rel = _rel_parts(base)
    blocked: list[str] = []
    if board is not None and ps:
        box = _box_for(rel, board)
        pts = np.asarray([p.a for p in ps] + [ps[-1].b])
        out = not _in_box(pts, box, tol).all()
        for p in ps:
            if p.kind == "arc":
                c, r, a0, sp = _arc_params(p)
                out |= not bool(arc_box_ok(c, r, a0, sp, box)[0])
        if out:
            blocked.append(BOARD_ID)
    if not barriers or not ps:
        return PathCheck(length, 0.0, (), tuple(blocked))
    cs = _CSet(rel, list(barriers), 48)
    chk = _Checker(cs, cs.all, None, np.empty(0, dtype=int))
    crossed: list[str] = []
    hard: list[int] = []
    climb = 0.0
    for p in ps:
        if p.kind == "line":
            _, _, _, bar = cs.assess(np.asarray([p.a]), np.asarray([p.b]), cs.all, tol=tol)
            bars = sorted({int(b) for b in bar})
        else:
            bars = sorted(chk.arc_barriers(p))
        for b in bars:
            barrier = cs.barriers[b]
            if barrier.cost is None:
                if b not in hard:
                    hard.append(b)
            else:
                crossed.append(barrier.id)
                climb += barrier.cost
    blocked.extend(cs.barriers[b].id for b in sorted(hard))
    return PathCheck(length, climb, tuple(crossed), tuple(blocked))


def _box_for(rel: tuple[Convex, ...], board: tuple[float, float]) -> np.ndarray:
    w, d = board
    ext = {
        tuple(u): max(float(p.h(np.asarray([u], dtype=float))[0]) for p in rel)
        for u in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))
    }
    return np.array([ext[(-1.0, 0.0)], w - ext[(1.0, 0.0)], ext[(0.0, -1.0)], d - ext[(0.0, 1.0)]])


__all__ = [
    "BOARD_ID",
    "Barrier",
    "CostField",
    "PathCheck",
    "PathResult",
    "Piece",
    "measure_path",
    "piece_from_dict",
    "Planner",
    "path_cost",
    "sweep_clear",
]
