"""Who sees whom (notes 3.3): a stand sees a target stand when a straight line runs
from some point of its front edge to some point of the target that lies in front of
the line through its front corners, without crossing another stand (characters
excepted) or sight-blocking terrain. Grazing a corner does not block.

Exact in the usual way: if some clear sight line exists, one exists that passes
through two of the critical points (front-edge ends, blocker corners, target
corners), so those lines are tried after a quick sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import shapely

from ...geometry.shapes import TOL
from .geom import Poly, hull

#: blockers are shrunk by this much so that grazing a corner does not block
GRAZE = 1e-7


def _clip_halfplane(P: Poly, p0: np.ndarray, n: np.ndarray, eps: float) -> Poly:
    """The part of convex polygon P with (x - p0).n >= eps."""
    out: list[np.ndarray] = []
    k = len(P)
    for i in range(k):
        a, b = P[i], P[(i + 1) % k]
        da, db = (a - p0) @ n - eps, (b - p0) @ n - eps
        if da >= 0:
            out.append(a)
        if (da >= 0) != (db >= 0):
            t = da / (da - db)
            out.append(a + t * (b - a))
    return np.array(out) if out else np.zeros((0, 2))


def _line_chord(P: Poly, a: np.ndarray, u: np.ndarray) -> tuple[float, float] | None:
    """Parameters [s0, s1] where a + s u lies in convex CCW polygon P."""
    lo, hi = -np.inf, np.inf
    k = len(P)
    for i in range(k):
        e = P[(i + 1) % k] - P[i]
        n = np.array([e[1], -e[0]])
        nu = float(n @ u)
        rhs = float(n @ (P[i] - a))
        if abs(nu) < 1e-15:
            if rhs < -1e-12:
                return None
            continue
        v = rhs / nu
        if nu > 0:
            hi = min(hi, v)
        else:
            lo = max(lo, v)
    if lo > hi:
        return None
    return float(lo), float(hi)


def sees(front: tuple[np.ndarray, np.ndarray], facing: np.ndarray, target: Poly, blockers: Sequence[Poly]) -> bool:
    """Whether a front edge (two points) with forward direction ``facing`` sees any
    point of the convex polygon ``target`` past the blockers."""
    F0, F1 = np.asarray(front[0], float), np.asarray(front[1], float)
    T = _clip_halfplane(np.asarray(target, float), F0, facing, TOL)
    if len(T) < 3:
        return False
    T = hull(T)
    if len(T) < 3:
        return False
    region = shapely.Polygon(hull(np.concatenate([T, [F0, F1]])))
    rel = [B for B in blockers if len(B) >= 2 and region.intersects(_shp(B))]
    if not rel:
        return True
    shrunk = [_shp(B).buffer(-GRAZE) if len(B) >= 3 else None for B in rel]
    geoms = [g for g in shrunk if g is not None and not g.is_empty]
    if not geoms:
        return True
    blocked = shapely.union_all(geoms)
    shapely.prepare(blocked)
    # quick sample
    fs = [F0 + (F1 - F0) * t for t in (0.0, 0.25, 0.5, 0.75, 1.0)]
    ts = list(T) + [T.mean(axis=0)]
    if _any_clear(fs, ts, blocked):
        return True
    # critical lines
    crit = [F0, F1] + [v for B in rel for v in B] + list(T)
    fd = F1 - F0
    cand_a: list[np.ndarray] = []
    cand_b: list[np.ndarray] = []
    for p, q in combinations(crit, 2):
        u = q - p
        nu = float(np.linalg.norm(u))
        if nu < 1e-12:
            continue
        u = u / nu
        # intersect the line p + s u with the front edge F0 + t fd
        den = u[0] * (-fd[1]) - u[1] * (-fd[0])
        if abs(den) < 1e-14:
            continue
        rhs = F0 - p
        t = (u[0] * rhs[1] - u[1] * rhs[0]) / den
        if t < -1e-12 or t > 1 + 1e-12:
            continue
        a = F0 + min(max(t, 0.0), 1.0) * fd
        ch = _line_chord(T, a, u)
        if ch is None:
            continue
        for sv in (ch[0], ch[1], (ch[0] + ch[1]) / 2):
            cand_a.append(a)
            cand_b.append(a + sv * u)
    if not cand_a:
        return False
    lines = shapely.linestrings(np.stack([np.array(cand_a), np.array(cand_b)], axis=1))
    hit = shapely.intersects(blocked, lines)
    return bool(np.any(~hit))


def _any_clear(fs: list[np.ndarray], ts: list[np.ndarray], blocked: shapely.Geometry) -> bool:
    segs = np.array([[a, b] for a in fs for b in ts])
    lines = shapely.linestrings(segs)
    hit = shapely.intersects(blocked, lines)
    return bool(np.any(~hit))


def _shp(B: Poly) -> shapely.Geometry:
    if len(B) == 2:
        return shapely.LineString(B)
    return shapely.Polygon(B)
