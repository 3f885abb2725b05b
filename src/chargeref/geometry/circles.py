"""Closed forms on circles (the offset curves of round bases): the nearest point of a
circle, crossings of two circles (one pair, every pair of two sets, several radius
pairs at once), tangent points, the round pieces a disc wraps round when it passes a
footprint, the crossings of a circle with a grown polygon, and the vertices of an
arrangement of circles. ``placement`` re-exports them.

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math

import numpy as np

from .shapes import Capsule, ConvexPolygon, Disc, Footprint, polygon_point_signed_distance


def nearest_on_circle(c: np.ndarray, r: float, p: np.ndarray) -> np.ndarray:
    """The point of the circle (centre c, radius r) nearest to p (any point if p = c)."""
    c = np.asarray(c, dtype=float)
    v = np.asarray(p, dtype=float) - c
    n = float(np.hypot(v[0], v[1]))
    if n == 0.0:
        return c + np.array([r, 0.0])
    return c + v * (r / n)


def circle_crossings(c1: np.ndarray, r1: float, c2: np.ndarray, r2: float) -> np.ndarray:
    """The 0, 1 or 2 points where two circles cross (closed form), shape (k, 2)."""
    c1 = np.asarray(c1, dtype=float)
    c2 = np.asarray(c2, dtype=float)
    v = c2 - c1
    d = float(np.hypot(v[0], v[1]))
    if d == 0.0 or d > r1 + r2 or d < abs(r1 - r2) or r1 < 0 or r2 < 0:
        return np.zeros((0, 2))
    a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h2 = r1 * r1 - a * a
    h = math.sqrt(max(h2, 0.0))
    e = v / d
    m = c1 + a * e
    n = np.array([-e[1], e[0]])
    if h == 0.0:
        return m[None]
    return np.stack([m + h * n, m - h * n])


def circles_crossings_many(C1: np.ndarray, R1: np.ndarray, C2: np.ndarray, R2: np.ndarray) -> np.ndarray:
    """Crossings of every circle of set 1 with every circle of set 2, vectorised: the
    "+" crossing of every crossing pair (row-major over the pairs), then the "-" ones."""
    C1 = np.asarray(C1, dtype=float).reshape(-1, 2)
    C2 = np.asarray(C2, dtype=float).reshape(-1, 2)
    if len(C1) == 0 or len(C2) == 0:
        return np.zeros((0, 2))
    R1 = np.broadcast_to(np.asarray(R1, dtype=float), (len(C1),))
    R2 = np.broadcast_to(np.asarray(R2, dtype=float), (len(C2),))
    # perf: coordinates as separate arrays and one output buffer (no stack/vstack); the
    # arithmetic is the same, term for term, as the closed form in circle_crossings
    vx = C2[None, :, 0] - C1[:, None, 0]
    vy = C2[None, :, 1] - C1[:, None, 1]
    d = np.hypot(vx, vy)
    r1 = R1[:, None]
    r2 = R2[None, :]
    ok = (d > 0) & (d <= r1 + r2) & (d >= np.abs(r1 - r2))
    i, j = np.nonzero(ok)
    k = len(i)
    if k == 0:
        return np.zeros((0, 2))
    px, py, qx, qy = _crossings_at(C1, vx, vy, d, i, j, R1[i], R2[j])
    out = np.empty((2 * k, 2))
    out[:k, 0], out[:k, 1] = px, py
    out[k:, 0], out[k:, 1] = qx, qy
    return out


def _crossings_at(C1, vx, vy, d, i, j, r1, r2):  # noqa: ANN001, ANN202
    """The "+" and "-" crossings (px, py, qx, qy) of the circle pairs (i, j) with radii
    r1, r2, from the centre offsets vx, vy and distances d of every pair: the closed
    form of ``circle_crossings``, term for term."""
    d = d[i, j]
    ex = vx[i, j] / d
    ey = vy[i, j] / d
    a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = np.sqrt(np.maximum(r1 * r1 - a * a, 0.0))
    mx = C1[i, 0] + a * ex
    my = C1[i, 1] + a * ey
    nx = -ey
    return mx + h * nx, my + h * ex, mx - h * nx, my - h * ex


def circles_crossings_stack(C1: np.ndarray, R1s: np.ndarray, C2: np.ndarray, R2s: np.ndarray) -> np.ndarray:
    """``np.vstack([circles_crossings_many(C1, R1s[g], C2, R2s[g]) for g in range(G)])``
    in one pass: the same rows in the same order (each radius pair's "+" crossings, then
    its "-" ones), computed with the same arithmetic, so the same bits. perf: spot
    construction asks for several radius pairs round the same centres (contact and
    coherency loci), and the centre distances are shared."""
    C1 = np.asarray(C1, dtype=float).reshape(-1, 2)
    C2 = np.asarray(C2, dtype=float).reshape(-1, 2)
    if len(C1) == 0 or len(C2) == 0:
        return np.zeros((0, 2))
    R1s = np.asarray(R1s, dtype=float).reshape(-1, len(C1))
    R2s = np.asarray(R2s, dtype=float).reshape(-1, len(C2))
    G = len(R1s)
    if G == 0:
        return np.zeros((0, 2))
    vx = C2[None, :, 0] - C1[:, None, 0]
    vy = C2[None, :, 1] - C1[:, None, 1]
    d = np.hypot(vx, vy)
    r1 = R1s[:, :, None]
    r2 = R2s[:, None, :]
    ok = (d > 0)[None] & (d[None] <= r1 + r2) & (d[None] >= np.abs(r1 - r2))
    g, i, j = np.nonzero(ok)
    k = len(g)
    if k == 0:
        return np.zeros((0, 2))
    px, py, qx, qy = _crossings_at(C1, vx, vy, d, i, j, R1s[g, i], R2s[g, j])
    # rows of pair g: its block starts after every earlier pair's two rows per crossing
    cnt = np.bincount(g, minlength=G)
    first = np.cumsum(cnt) - cnt
    plus = 2 * first[g] + (np.arange(k) - first[g])
    minus = plus + cnt[g]
    out = np.empty((2 * k, 2))
    out[plus, 0], out[plus, 1] = px, py
    out[minus, 0], out[minus, 1] = qx, qy
    return out


def tangent_points(p: np.ndarray, c: np.ndarray, r: float) -> np.ndarray:
    """The two points where lines from p touch the circle (centre c, radius r)."""
    p = np.asarray(p, dtype=float)
    c = np.asarray(c, dtype=float)
    v = p - c
    d = float(np.hypot(v[0], v[1]))
    if d <= r or r <= 0:
        return np.zeros((0, 2))
    a = math.acos(r / d)
    b = math.atan2(v[1], v[0])
    return c + r * np.array([[math.cos(b + a), math.sin(b + a)], [math.cos(b - a), math.sin(b - a)]])


def corner_circles(fp: Footprint, r: float) -> list[tuple[np.ndarray, float]]:
    """The round pieces of ``fp ⊕ disc(r)`` (what a disc of radius r wraps round when
    it passes the footprint): a disc grows, a capsule's two ends, a polygon's corners."""
    out: list[tuple[np.ndarray, float]] = []
    for p in fp.parts:
        if isinstance(p, Disc):
            out.append((p.center, p.r + r))
        elif isinstance(p, Capsule):
            out.append((np.asarray(p.p0, dtype=float), p.r + r))
            out.append((np.asarray(p.p1, dtype=float), p.r + r))
        elif isinstance(p, ConvexPolygon):
            out.extend((v, r) for v in p.V)
    return out


def circle_offset_crossings(c: np.ndarray, R: float, V: np.ndarray, e: float) -> np.ndarray:
    """Where the circle (c, R) crosses the boundary of ``conv(V) ⊕ disc(e)`` (closed
    form): the boundary is made of the edges pushed out by e and arcs of radius e round
    the vertices; every crossing with their lines and circles is kept when it lies on
    the boundary (its exact distance to the polygon is e within 1e-9)."""
    c = np.asarray(c, dtype=float)
    V = np.asarray(V, dtype=float).reshape(-1, 2)
    out = []
    for v in V:
        if e > 0:
            out.append(circle_crossings(c, R, v, e))
    n = len(V)
    for i in range(n if n > 2 else 1):
        a, b = V[i], V[(i + 1) % n]
        t = b - a
        L = float(np.hypot(t[0], t[1]))
        if L == 0:
            continue
        t = t / L
        for sgn in ((1.0,) if n > 2 else (1.0, -1.0)):
            nrm = sgn * np.array([t[1], -t[0]])
            p0 = a + e * nrm
            # |p0 + s t - c| = R: s^2 + 2 s (p0-c).t + |p0-c|^2 - R^2 = 0
            w = p0 - c
            B = float(w @ t)
            Cq = float(w @ w) - R * R
            disc = B * B - Cq
            if disc < 0:
                continue
            for sv in {-B - math.sqrt(disc), -B + math.sqrt(disc)}:
                if -1e-12 <= sv <= L + 1e-12:
                    out.append((p0 + sv * t)[None])
    if not out:
        return np.zeros((0, 2))
    P = np.vstack(out)
    if len(V) > 2:
        dist = polygon_point_signed_distance(V, P)
    else:
        a, b = V[0], V[-1]
        t = b - a
        L2 = float(t @ t)
        s = np.clip(((P - a) @ t) / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(P))
        dist = np.hypot(*(P - (a + s[:, None] * t)).T)
    return P[np.abs(dist - e) <= 1e-9]


def arrangement_points(C: np.ndarray, R: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The vertices of an arrangement of circles (every pairwise crossing, closed form)
    plus the point of each circle nearest each start. A region bounded by arcs of these
    circles (intersections and differences of their discs) either has a vertex among
    the crossings or is bounded by one whole circle, on which the point nearest a start
    lies: so every non-empty such region contains one of these points on its boundary."""
    C = np.asarray(C, dtype=float).reshape(-1, 2)
    R = np.asarray(R, dtype=float).reshape(-1)
    if len(C) == 0:
        return np.zeros((0, 2))
    out = [circles_crossings_many(C, R, C, R)]
    for s0 in np.atleast_2d(starts):
        v = s0 - C
        n = np.hypot(v[:, 0], v[:, 1])
        ok = n > 0
        out.append(C[ok] + v[ok] * (R[ok] / n[ok])[:, None])
    return np.vstack(out)
