"""Exact plane geometry for Warmaster stands: convex polygons (stands are rectangles),
signed distances, the exact offsets at which a sliding stand overlaps something, and
clearance of a disc swept along a segment.

No rules here. Every polygon is an ``(n, 2)`` float array in counter-clockwise order;
a segment (a wall's centre line, a gap bar) is a 2-vertex "polygon".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...geometry.shapes import TOL

Poly = np.ndarray


def unit(deg: float) -> np.ndarray:
    th = math.radians(deg)
    return np.array([math.cos(th), math.sin(th)])


def left_of(f: np.ndarray) -> np.ndarray:
    return np.array([-f[1], f[0]])


def rect(c: Sequence[float] | np.ndarray, facing_deg: float, w: float, d: float) -> Poly:
    """Corners of a stand: front-left, rear-left, rear-right, front-right (CCW).

    ``w`` is the width across the front edge, ``d`` the depth along the facing."""
    return np.array(rect_pts(c, facing_deg, w, d))


def rect_pts(c: Sequence[float] | np.ndarray, facing_deg: float, w: float, d: float) -> list[tuple[float, float]]:
    """``rect`` as plain float pairs (the same arithmetic, no array)."""
    th = math.radians(facing_deg)
    fx, fy = math.cos(th), math.sin(th)
    cx, cy = float(c[0]), float(c[1])
    hd, hw = d / 2, w / 2
    # forward (fx, fy) and left (-fy, fx), in plain floats (called very often)
    ax, ay = fx * hd, fy * hd
    bx, by = -fy * hw, fx * hw
    return [(cx + ax + bx, cy + ay + by), (cx - ax + bx, cy - ay + by),
            (cx - ax - bx, cy - ay - by), (cx + ax - bx, cy + ay - by)]


#: edge name -> (start corner, end corner) in the ``rect`` corner order (CCW walk)
EDGE_CORNERS = {"left": (0, 1), "rear": (1, 2), "right": (2, 3), "front": (3, 0)}


def ccw(P: Poly) -> Poly:
    if len(P) < 3:
        return P
    a = np.sum(P[:, 0] * np.roll(P[:, 1], -1) - np.roll(P[:, 0], -1) * P[:, 1])
    return P if a >= 0 else P[::-1].copy()


def hull(points: np.ndarray) -> Poly:
    """Convex hull (monotone chain), CCW, without repeated points."""
    return hull_of(list(map(tuple, np.asarray(points, dtype=float).tolist())))


def hull_of(points: list[tuple[float, float]]) -> Poly:
    """``hull`` of points given as plain float pairs."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return np.array(pts)
    # the cross product (a - o) x (b - o) written out: this runs very often
    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2:
            o, a = lower[-2], lower[-1]
            if (a[0] - o[0]) * (p[1] - o[1]) - (a[1] - o[1]) * (p[0] - o[0]) <= 1e-15:
                lower.pop()
            else:
                break
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2:
            o, a = upper[-2], upper[-1]
            if (a[0] - o[0]) * (p[1] - o[1]) - (a[1] - o[1]) * (p[0] - o[0]) <= 1e-15:
                upper.pop()
            else:
                break
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


_NORMALS: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def _normals(P: Poly) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals of a CCW polygon's edges and the support value of each
    (remembered by the polygon's exact coordinates: stands and terrain are tested
    again and again during one charge)."""
    key = P.tobytes() + bytes([len(P)])
    hit = _NORMALS.get(key)
    if hit is None:
        if len(_NORMALS) > 4096:
            _NORMALS.clear()
        hit = _NORMALS[key] = _normals_of(np.asarray(P, dtype=float))
        hit[0].flags.writeable = False
        hit[1].flags.writeable = False
    return hit


def _normals_of(P: Poly) -> tuple[np.ndarray, np.ndarray]:
    if len(P) == 2:
        e = P[1] - P[0]
        n = np.array([e[1], -e[0]]) / np.linalg.norm(e)
        N = np.array([n, -n])
        return N, np.array([n @ P[0], -n @ P[0]])
    E = np.concatenate([P[1:], P[:1]]) - P
    N = np.stack([E[:, 1], -E[:, 0]], axis=-1)
    N = N / np.sqrt(np.sum(N * N, axis=1))[:, None]
    return N, np.sum(N * P, axis=1)


def point_seg_dist(P: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances from points P (m,2) to segment ab."""
    ab = b - a
    L2 = float(ab @ ab)
    if L2 == 0.0:
        return np.linalg.norm(P - a, axis=1)
    t = np.clip(((P - a) @ ab) / L2, 0.0, 1.0)
    return np.linalg.norm(P - (a + t[:, None] * ab), axis=1)


def _edges(P: Poly) -> list[tuple[np.ndarray, np.ndarray]]:
    if len(P) == 2:
        return [(P[0], P[1])]
    return [(P[i], P[(i + 1) % len(P)]) for i in range(len(P))]


def sd(A: Poly, B: Poly) -> float:
    """Signed distance between two convex polygons (or segments): the gap when apart,
    minus the penetration depth when the interiors overlap (exact)."""
    best = -math.inf
    for P, Q in ((A, B), (B, A)):
        N, h = _normals(P)
        sep = np.min(Q @ N.T, axis=0) - h
        best = max(best, float(np.max(sep)))
    if best <= 0.0:
        return best
    d = math.inf
    for P, Q in ((A, B), (B, A)):
        if len(Q) == 2:
            q0, q1 = Q[:1], Q[1:]
        else:
            q0, q1 = Q, np.concatenate([Q[1:], Q[:1]])
        d = min(d, float(np.min(_pseg(P[:, None, :], q0[None, :, :], q1[None, :, :]))))
    return d


def sat_sep(A: Poly, B: Poly) -> float:
    """The largest separation along the polygons' edge normals: minus the penetration
    depth when they overlap, a lower bound on the gap otherwise (cheap)."""
    best = -math.inf
    for P, Q in ((A, B), (B, A)):
        N, h = _normals(P)
        best = max(best, float(np.max(np.min(Q @ N.T, axis=0) - h)))
    return best


def bbox_gap(A: Poly, B: Poly) -> float:
    """A lower bound on the distance between two point sets (axis-aligned boxes).
    (In plain floats: a minimum or maximum is exact either way, and so is each
    difference, so this is the array computation's value.)"""
    ax, ay = zip(*A.tolist(), strict=True)
    bx, by = zip(*B.tolist(), strict=True)
    return max(min(ax) - max(bx), min(bx) - max(ax), min(ay) - max(by), min(by) - max(ay))


def overlaps(A: Poly, B: Poly, tol: float = TOL) -> bool:
    """True when the interiors overlap by more than ``tol`` (penetration depth)."""
    if bbox_gap(A, B) > -tol:
        return False
    if len(A) < 3 or len(B) < 3:
        return sd(A, B) < -tol
    return sat_sep(A, B) < -tol


def seg_seg_dist(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> float:
    return max(0.0, sd(np.array([p0, p1]), np.array([q0, q1])))


def poly_seg_dist(P: Poly, a: np.ndarray, b: np.ndarray) -> float:
    """Distance from a convex polygon to a segment (0 when they meet)."""
    return max(0.0, sd(P, np.array([a, b])))


def poly_seg_dists(P: Poly, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``poly_seg_dist(P, A[i], B[i])`` for many segments at once: the same separating
    axes decide whether they meet (0), else the least of the same point-to-segment
    distances (P's corners to the segment, the segment's ends to P's edges)."""
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    N, h = _normals(P)
    sep = np.max(np.minimum(A @ N.T - h, B @ N.T - h), axis=1)
    e = B - A
    n = np.stack([e[:, 1], -e[:, 0]], axis=1) / np.sqrt(np.sum(e * e, axis=1))[:, None]
    pn = P @ n.T - np.sum(n * A, axis=1)[None, :]  # (corners, segments)
    sep = np.maximum(sep, np.maximum(np.min(pn, axis=0), np.min(-pn, axis=0)))
    Pn = np.roll(P, -1, axis=0)
    d = np.minimum(np.min(_pseg(P[None, :, :], A[:, None, :], B[:, None, :]), axis=1),
                   np.minimum(np.min(_pseg(A[:, None, :], P[None, :, :], Pn[None, :, :]), axis=1),
                              np.min(_pseg(B[:, None, :], P[None, :, :], Pn[None, :, :]), axis=1)))
    return np.where(sep <= 0.0, 0.0, d)


def max_dist(p: np.ndarray, t: np.ndarray, x: float) -> float:
    """``max_k |p_k + x t|``: how far the furthest of some points moves when a shape
    that moved them by ``p_k`` is slid by ``x`` along ``t`` (a straight move's cost)."""
    q = p + x * t
    return float(np.max(np.sqrt(np.sum(q * q, axis=1))))


def max_dist_argmin(p: np.ndarray, t: np.ndarray, a: float, b: float) -> float:
    """The ``x`` in ``[a, b]`` minimising ``max_dist(p, t, x)`` for a unit ``t``, in
    closed form: the maximum of the convex ``|p_k + x t|`` is least at an end, at the
    foot of one point's perpendicular (``x = -p_k . t``) or where two of them are equal
    (``|p_i|^2 - |p_j|^2 + 2 x (p_i - p_j) . t = 0``, linear in ``x``)."""
    pt = p @ t
    sq = np.sum(p * p, axis=1)
    xs = [a, b] + [-float(v) for v in pt]
    k = len(p)
    for i in range(k):
        for j in range(i + 1, k):
            den = 2.0 * float(pt[i] - pt[j])
            if abs(den) > 1e-15:
                xs.append(float(sq[j] - sq[i]) / den)
    xs = [min(max(x, a), b) for x in xs]
    return min(xs, key=lambda x: (max_dist(p, t, x), x))


def max_dist_cut(p: np.ndarray, t: np.ndarray, r: float) -> tuple[float, float] | None:
    """``{x : max_dist(p, t, x) <= r}`` for a unit ``t``: the common part of the circle
    cuts ``|p_k + x t| <= r`` (closed form), or None."""
    if r < 0.0:
        return None
    lo, hi = -math.inf, math.inf
    for q in p:
        qt = float(q @ t)
        disc = qt * qt - (float(q @ q) - r * r)
        if disc < 0.0:
            return None
        sq = math.sqrt(disc)
        lo, hi = max(lo, -qt - sq), min(hi, -qt + sq)
    return (lo, hi) if lo <= hi else None


def disc_path_clearance(P0: np.ndarray, P1: np.ndarray, Ob: Poly) -> np.ndarray:
    """For many segments (P0[i], P1[i]), their distance to the convex polygon Ob
    (0 when they cross it). Vectorised over the segments."""
    m = len(P0)
    out = np.empty(m)
    N, h = _normals(Ob)
    # separation along Ob's normals
    s0 = P0 @ N.T - h
    s1 = P1 @ N.T - h
    sep_o = np.max(np.minimum(s0, s1), axis=1)
    # separation along each segment's own normal
    D = P1 - P0
    L = np.linalg.norm(D, axis=1)
    safe = np.where(L > 0, L, 1.0)
    n = np.stack([D[:, 1], -D[:, 0]], axis=-1) / safe[:, None]
    proj = Ob @ n.T - np.einsum("ij,ij->i", n, P0)[None, :]  # (k, m)
    sep_s = np.maximum(np.min(proj, axis=0), np.min(-proj, axis=0))
    sep_s = np.where(L > 0, sep_s, -np.inf)
    sep = np.maximum(sep_o, sep_s)
    inter = sep <= 0
    out[inter] = 0.0
    idx = np.nonzero(~inter)[0]
    if len(idx):
        a, b = P0[idx], P1[idx]
        d = np.full(len(idx), np.inf)
        for ea, eb in _edges(Ob):
            d = np.minimum(d, _pts_segs(a, ea, eb))
            d = np.minimum(d, _pts_segs(b, ea, eb))
        # polygon vertices to each segment
        ab = b - a
        L2 = np.einsum("ij,ij->i", ab, ab)
        L2s = np.where(L2 > 0, L2, 1.0)
        for v in Ob:
            t = np.clip(np.einsum("ij,ij->i", v - a, ab) / L2s, 0.0, 1.0)
            d = np.minimum(d, np.linalg.norm(v - (a + t[:, None] * ab), axis=1))
        out[idx] = d
    return out


def _pts_segs(P: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return point_seg_dist(P, a, b)


def slide_blocked(P0: Poly, t: np.ndarray, Ob: Poly, tol: float = TOL) -> tuple[float, float] | None:
    """The open interval of s for which ``P0 + s t`` overlaps Ob by more than ``tol``
    (penetration depth), or None. Exact: the set is the line through the origin cut
    by the Minkowski difference Ob - P0 shrunk by ``tol``."""
    M = hull((Ob[:, None, :] - P0[None, :, :]).reshape(-1, 2))
    if len(M) < 3:
        return None  # a degenerate difference has no interior
    N, h = _normals(M)
    a = N @ t
    b = h - tol
    lo, hi = -math.inf, math.inf
    for ak, bk in zip(a, b, strict=True):
        if abs(ak) < 1e-15:
            if bk <= 0:
                return None
            continue
        v = bk / ak
        if ak > 0:
            hi = min(hi, v)
        else:
            lo = max(lo, v)
    if lo >= hi:
        return None
    return (lo, hi)


def free_intervals(lo: float, hi: float, blocked: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """[lo, hi] minus the union of open intervals (closed result intervals)."""
    if lo > hi:
        return []
    out: list[tuple[float, float]] = []
    cur = lo
    for a, b in sorted(blocked):
        if b <= cur:
            continue
        if a >= hi:
            break
        if a > cur:
            out.append((cur, a))
        elif a == cur and b > cur:
            pass
        cur = max(cur, b)
        if cur >= hi:
            break
    if cur <= hi:
        out.append((cur, hi))
    return [(a, b) for a, b in out if b >= a]


def closest_in(intervals: list[tuple[float, float]], target: float) -> float | None:
    best: float | None = None
    for a, b in intervals:
        x = min(max(target, a), b)
        if best is None or abs(x - target) < abs(best - target) - 1e-15:
            best = x
    return best


def inflate(P: Poly, r: float, step: float = math.pi / 32) -> Poly:
    """A polygon containing P + disc(r): exact along the edges, circumscribed around
    the rounded corners with pieces of at most ``step`` radians."""
    return np.concatenate(inflate_corners(P, r, step), axis=0)


def inflate_corners(P: Poly, r: float, step: float) -> list[np.ndarray]:
    """The vertices of ``inflate(P, r, step)`` grouped by the corner of P they go
    round (the two edge offsets at that corner included)."""
    if len(P) == 1:
        P = np.array([P[0], P[0] + 1e-12])
    if len(P) == 2:
        e = P[1] - P[0]
        L = float(np.linalg.norm(e))
        u = e / L
        n = np.array([u[1], -u[0]])
        normals = [n, -n]  # edge P0->P1 has normal n, edge P1->P0 normal -n
        verts = [P[0], P[1]]
    else:
        verts = list(P)
        normals = []
        for i in range(len(P)):
            e = P[(i + 1) % len(P)] - P[i]
            nn = np.array([e[1], -e[0]])
            normals.append(nn / np.linalg.norm(nn))
    out: list[np.ndarray] = []
    k = len(verts)
    for i in range(k):
        v = verts[i]
        n1 = normals[i - 1]  # edge arriving at v
        n2 = normals[i]  # edge leaving v
        a1 = math.atan2(n1[1], n1[0])
        a2 = math.atan2(n2[1], n2[0])
        phi = (a2 - a1) % (2 * math.pi)
        if phi > 2 * math.pi - 1e-12:
            phi = 0.0
        pts = [v + r * n1]
        if phi > 1e-12:
            m = max(1, math.ceil(phi / step))
            rr = r / math.cos(phi / (2 * m))
            for j in range(m):
                ang = a1 + (j + 0.5) * phi / m
                pts.append(v + rr * np.array([math.cos(ang), math.sin(ang)]))
        pts.append(v + r * n2)
        out.append(np.array(pts))
    return out


def inside_convex(P: Poly, pts: np.ndarray, margin: float) -> np.ndarray:
    """True for points deeper than ``margin`` inside the convex polygon P."""
    N, h = _normals(P)
    return np.all(pts @ N.T - h < -margin, axis=1)


class Packed:
    """Many obstacles (convex polygons and segments) packed as flat edge arrays, for
    vectorised clearance tests of many segments at once."""

    def __init__(self, obstacles: Sequence[Poly]) -> None:
        self.polys = [np.asarray(P, dtype=float) for P in obstacles]
        A: list[np.ndarray] = []
        B: list[np.ndarray] = []
        N: list[np.ndarray] = []
        h: list[float] = []
        starts: list[int] = []
        for P in obstacles:
            P = np.asarray(P, dtype=float)
            if len(P) == 2:
                A.append(P[:1])
                B.append(P[1:])
                continue
            A.append(P)
            B.append(np.roll(P, -1, axis=0))
            nn, hh = _normals(P)
            starts.append(len(h))
            N.append(nn)
            h.extend(hh.tolist())
        self.A = np.concatenate(A) if A else np.zeros((0, 2))
        self.B = np.concatenate(B) if B else np.zeros((0, 2))
        self.N = np.concatenate(N) if N else np.zeros((0, 2))
        self.h = np.array(h)
        self.starts = np.array(starts, dtype=int)
        # for ``hits``: the obstacle owning each edge, each obstacle's box, and for the
        # polygons (in order) their edge ranges in the normal arrays
        self.owner = np.concatenate([np.full(len(a), i) for i, a in enumerate(A)]) if A else np.zeros(0, dtype=int)
        self.box = np.array([np.concatenate([P.min(axis=0), P.max(axis=0)]) for P in self.polys]) \
            if self.polys else np.zeros((0, 4))
        self.poly_ids = np.array([i for i, P in enumerate(self.polys) if len(P) != 2], dtype=int)
        self.poly_ends = np.append(self.starts[1:], len(self.h)).astype(int) if len(starts) else np.zeros(0, dtype=int)

    def hits(self, P0: np.ndarray, P1: np.ndarray) -> np.ndarray:
        """For each segment (P0[i], P1[i]): whether it touches, crosses or lies inside an
        obstacle, i.e. ``clearance(P0, P1) <= 0`` (the same exact tests, made only for
        the obstacles whose box meets the segment's box: any other is strictly apart)."""
        m = len(P0)
        out = np.zeros(m, dtype=bool)
        if len(self.A) == 0 or m == 0:
            return out
        lo = np.minimum(P0, P1)
        hi = np.maximum(P0, P1)
        meet = (np.all(self.box[None, :, :2] <= hi[:, None, :], axis=2)
                & np.all(self.box[None, :, 2:] >= lo[:, None, :], axis=2))  # (m, k)
        si, ei = np.nonzero(meet[:, self.owner])
        if len(si):
            p0, p1 = P0[si], P1[si]
            A, B = self.A[ei], self.B[ei]
            n = len(si)
            # the four point-segment distances and the four orientations in one call each
            # (the same arithmetic element by element as four calls)
            dd = _pseg(np.concatenate([p0, p1, A, B]), np.concatenate([A, A, p0, p0]),
                       np.concatenate([B, B, p1, p1]))
            d = np.minimum(np.minimum(dd[:n], dd[n:2 * n]), np.minimum(dd[2 * n:3 * n], dd[3 * n:]))
            oo = _orient(np.concatenate([p0, p0, A, A]), np.concatenate([p1, p1, B, B]), np.concatenate([A, B, p0, p1]))
            cross = (oo[:n] * oo[n:2 * n] < 0) & (oo[2 * n:3 * n] * oo[3 * n:] < 0)
            bad = (d <= 0.0) | cross
            out[si[bad]] = True
        for k, a, b in zip(self.poly_ids, self.starts, self.poly_ends, strict=True):
            rows = np.nonzero(meet[:, k] & ~out)[0]
            if len(rows):
                inside = np.all(P0[rows] @ self.N[a:b].T - self.h[a:b] < 0, axis=1)
                out[rows[inside]] = True
        return out

    def clearance(self, P0: np.ndarray, P1: np.ndarray) -> np.ndarray:
        """For each segment (P0[i], P1[i]): its distance to the nearest obstacle, 0 when
        it crosses or lies inside one (exact)."""
        m = len(P0)
        if len(self.A) == 0 or m == 0:
            return np.full(m, np.inf)
        A, B = self.A[None, :, :], self.B[None, :, :]
        p0, p1 = P0[:, None, :], P1[:, None, :]
        d = np.minimum(np.minimum(_pseg(p0, A, B), _pseg(p1, A, B)),
                       np.minimum(_pseg(A, p0, p1), _pseg(B, p0, p1)))
        # proper or touching crossings
        o1 = _orient(p0, p1, A)
        o2 = _orient(p0, p1, B)
        o3 = _orient(A, B, p0)
        o4 = _orient(A, B, p1)
        cross = (o1 * o2 < 0) & (o3 * o4 < 0)
        d = np.where(cross, 0.0, d)
        out = np.min(d, axis=1)
        if len(self.starts):
            s = P0 @ self.N.T - self.h  # inside polygon k: every edge of k negative
            inside = np.maximum.reduceat(s, self.starts, axis=1) < 0
            out = np.where(np.any(inside, axis=1), 0.0, out)
        return out


def _orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0])


def _pseg(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Broadcast distance from points p to segments ab."""
    ab = b - a
    L2 = np.sum(ab * ab, axis=-1)
    t = np.sum((p - a) * ab, axis=-1) / np.where(L2 > 0, L2, 1.0)
    t = np.clip(np.where(L2 > 0, t, 0.0), 0.0, 1.0)
    q = a + t[..., None] * ab
    return np.sqrt(np.sum((p - q) ** 2, axis=-1))


def point_sd(c: np.ndarray, P: Poly) -> float:
    """Signed distance from a point to a convex polygon (or segment): the distance
    when outside, minus the depth when inside (exact)."""
    c = np.asarray(c, dtype=float)
    d = float(np.min([point_seg_dist(c[None], a, b)[0] for a, b in _edges(P)]))
    if len(P) >= 3:
        N, h = _normals(P)
        if float(np.max(N @ c - h)) < 0.0:
            return -d
    return d


def footprint_sd(A: Poly | tuple[np.ndarray, float], B: Poly | tuple[np.ndarray, float]) -> float:
    """Signed distance between two footprints, each a convex polygon or a disc given
    as ``(centre, radius)``: a disc is its centre grown by its radius, and growing a
    convex shape by ``r`` lowers its signed distance to any convex shape by exactly
    ``r`` (support functions add), so the result is exact."""
    if isinstance(A, tuple) and isinstance(B, tuple):
        return float(np.hypot(*(np.asarray(A[0]) - np.asarray(B[0])))) - A[1] - B[1]
    if isinstance(A, tuple):
        A, B = B, A
    if isinstance(B, tuple):
        return point_sd(np.asarray(B[0]), A) - B[1]
    return sd(A, B)
