"""Which spots along a line a rectangular stand can reach within a cost: constructed.

A goal pose slides along a line, ``g(x) = g0 + x t`` with a fixed facing, and we
want every ``x`` in ``[lo, hi]`` that ``sweep.stand_route`` reaches at a cost of at
most ``cap``. That route model (see ``sweep.py``) is a straight move, or a polyline
through the vertices of the obstacles' Minkowski sums with the turn on the first or
on the last leg. So:

* The least cost of reaching each graph vertex ``v`` does not depend on the goal:
  one walk from the start settles them all (``walk.py`` without a goal).
* The cost of the whole route is ``dist(v) + leg_v(x)`` for the vertex ``v`` the
  last leg leaves from. A translating last leg costs ``|g(x) - v|``; a turning last
  leg (and the straight move) costs the largest corner displacement,
  ``max_k |g(x) + R1_k - v - R0_k|``. Each bound ``<= cap`` is a circle cut by the
  line: a closed interval in closed form.
* Whether the last leg is clear changes only where it starts or stops touching an
  obstacle. A translating leg is a segment from ``v`` to ``g(x)`` against a convex
  sum: it touches when ``g(x)`` crosses an edge line of the sum or the segment passes
  through a vertex of it. A turning leg is tested as the hull of the stand at both
  ends against the obstacle: that hull's vertices are fixed ones or moving ones
  ``b_k + x t``, its edges fixed, moving (fixed normal) or bridges from a fixed
  vertex to a moving one, so contact begins or ends where a moving vertex crosses an
  obstacle edge line, an obstacle vertex crosses a moving edge line, or an obstacle
  vertex is collinear with a bridge. All of these are linear in ``x``: exact roots.
  Between two consecutive roots the test cannot change, so it is made once, at the
  middle (an exact test, not a sample standing in for the interval).

The union over every ``v`` (and the straight move) is the set of reachable ``x``.
No rules here: the caller gives the obstacles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...geometry.shapes import TOL
from .geom import Packed, Poly, _normals, max_dist, max_dist_argmin, overlaps, point_seg_dist, rect
from .paths import corner_cost
from .sweep import boxes_of, graph_nodes, leg_sweep, sweep_blocked
from .walk import walk

Interval = tuple[float, float]


def reach_set(start: np.ndarray, f0: float, f1: float, w: float, d: float, g0: np.ndarray, t: np.ndarray,
              lo: float, hi: float, obstacles: Sequence[Poly], cap: float) -> list[Interval]:
    """The closed intervals of ``x`` in ``[lo, hi]`` for which the stand (centre
    ``start``, facing ``f0``, ``w`` x ``d``) reaches ``(g0 + x t, f1)`` at a cost of at
    most ``cap`` (see the module docstring). Boundaries where a leg only grazes an
    obstacle are included; the caller confirms a chosen spot with the route search."""
    return _union([iv for _, _, _, iv in _last_legs(start, f0, f1, w, d, g0, t, lo, hi, obstacles, cap)])


def least_cost(start: np.ndarray, f0: float, f1: float, w: float, d: float, g0: np.ndarray, t: np.ndarray,
               lo: float, hi: float, obstacles: Sequence[Poly], cap: float) -> tuple[float, float] | None:
    """``(x, cost)``: the spot of ``[lo, hi]`` reached most cheaply and what it costs,
    when that is at most ``cap`` (else None). On each stretch where a last leg is clear
    its cost is least in closed form: at the foot of the perpendicular from the leg's
    start (a translating leg), or where ``geom.max_dist_argmin`` puts it (a turning leg:
    a foot or a crossing of two corner distances)."""
    best: tuple[float, float] | None = None
    for v, dv, turning, (a, b) in _last_legs(start, f0, f1, w, d, g0, t, lo, hi, obstacles, cap):
        if turning:
            p = rect(g0, f1, w, d) - rect(v, f0, w, d)
            x = max_dist_argmin(p, t, a, b)
            c = dv + max_dist(p, t, x)
        else:
            x = min(max(-float((g0 - v) @ t), a), b)
            c = dv + float(np.linalg.norm(g0 + x * t - v))
        if best is None or c < best[1]:
            best = (x, c)
    return best


def _last_legs(start: np.ndarray, f0: float, f1: float, w: float, d: float, g0: np.ndarray, t: np.ndarray,
               lo: float, hi: float, obstacles: Sequence[Poly], cap: float
               ) -> list[tuple[np.ndarray, float, bool, Interval]]:
    """Every clear last leg within ``cap``: (where it starts, the least cost of getting
    there, whether it turns, a closed stretch of ``x`` it reaches)."""
    s = np.asarray(start, dtype=float)
    g0 = np.asarray(g0, dtype=float)
    t = np.asarray(t, dtype=float)
    obs = [np.asarray(Ob, dtype=float) for Ob in obstacles]
    boxes = boxes_of(obs)
    out = [(s, 0.0, True, iv) for iv in _turning_leg(s, f0, f1, w, d, g0, t, lo, hi, cap, obs, boxes)]  # straight
    G0, G1 = g0 + lo * t, g0 + hi * t

    def far(P: np.ndarray) -> np.ndarray:
        return point_seg_dist(P, G0, G1)

    for mode in ("first", "last"):
        phi = f1 if mode == "first" else f0
        graph = graph_nodes(s, far, obs, cap, phi, w, d)
        if graph is None:
            continue
        nodes, packed = graph
        if not len(nodes):
            continue
        pts = np.concatenate([s[None], nodes], axis=0)

        def visible(u: int, js: np.ndarray, pts: np.ndarray = pts, packed: Packed = packed,
                    mode: str = mode) -> np.ndarray:
            if mode == "first" and u == 0:
                return np.array([not sweep_blocked(leg_sweep(pts[0], f0, pts[j], f1, w, d), obs, boxes)
                                 for j in js], dtype=bool)
            return ~packed.hits(np.repeat(pts[u][None], len(js), axis=0), pts[js])

        def weights(u: int, js: np.ndarray, pts: np.ndarray = pts, mode: str = mode) -> np.ndarray:
            if mode == "first" and u == 0:
                return np.array([corner_cost(pts[0], f0, pts[j], f1, w, d) for j in js])
            return np.linalg.norm(pts[js] - pts[u], axis=1)

        dist, _ = walk(pts, cap, visible, weights, to_goal=False, slack=1e-12, cap_on_accept=True)
        sums = packed.polys
        for v in range(1, len(pts)):
            r = cap - float(dist[v])
            if not r >= 0.0:
                continue
            if mode == "last":
                legs = _turning_leg(pts[v], f0, f1, w, d, g0, t, lo, hi, r, obs, boxes)
            else:
                legs = _translating_leg(pts[v], g0, t, lo, hi, r, sums)
            out += [(pts[v], float(dist[v]), mode == "last", iv) for iv in legs]
    return out


def _circle_cut(p: np.ndarray, t: np.ndarray, r: float) -> Interval | None:
    """``{x : |p + x t| <= r}`` for a unit ``t`` (closed form), or None."""
    if r < 0.0:
        return None
    pt = float(p @ t)
    disc = pt * pt - (float(p @ p) - r * r)
    if disc < 0.0:
        return None
    sq = math.sqrt(disc)
    return -pt - sq, -pt + sq


def _turning_leg(v: np.ndarray, f0: float, f1: float, w: float, d: float, g0: np.ndarray, t: np.ndarray,
                 lo: float, hi: float, r: float, obs: list[Poly], boxes: np.ndarray) -> list[Interval]:
    """The ``x`` whose turning leg from ``(v, f0)`` costs at most ``r`` and is clear."""
    A = rect(v, f0, w, d)
    B0 = rect(g0, f1, w, d)
    a, b = lo, hi
    for p in B0 - A:  # corner k moves by p_k + x t (same corner order in both)
        cut = _circle_cut(p, t, r)
        if cut is None:
            return []
        a, b = max(a, cut[0]), min(b, cut[1])
        if a > b:
            return []
    # obstacles whose box meets the box of every hull this leg can sweep
    region = np.concatenate([A, B0 + a * t, B0 + b * t])
    rlo, rhi = region.min(axis=0), region.max(axis=0)
    near = np.nonzero(np.all(boxes[:, :2] < rhi + TOL, axis=1) & np.all(boxes[:, 2:] > rlo - TOL, axis=1))[0] \
        if len(obs) else []
    NB, hB = _normals(B0)
    xs: list[float] = []
    for i in near:
        Ob = obs[i]
        NO, hO = _normals(Ob)
        # a moving corner crosses an obstacle edge line
        num = hO[None, :] - B0 @ NO.T  # (4, e)
        den = NO @ t
        ok = np.abs(den) > 1e-15
        xs += (num[:, ok] / den[ok]).ravel().tolist()
        # an obstacle vertex crosses a moving edge line
        den = NB @ t
        ok = np.abs(den) > 1e-15
        xs += ((Ob @ NB[ok].T - hB[ok][None, :]) / den[ok][None, :]).ravel().tolist()
        # an obstacle vertex on a bridge from a fixed corner a_i to a moving corner b_k
        for ai in A:
            q = Ob - ai  # (m, 2)
            den = t[0] * q[:, 1] - t[1] * q[:, 0]
            ok = np.abs(den) > 1e-15
            bk = B0 - ai  # (4, 2)
            num = bk[:, 0][:, None] * q[ok, 1][None, :] - bk[:, 1][:, None] * q[ok, 0][None, :]
            xs += (-num / den[ok][None, :]).ravel().tolist()
    obs_near = [obs[i] for i in near]
    return _clear(a, b, xs, lambda x: any(overlaps(leg_sweep(v, f0, g0 + x * t, f1, w, d), Ob) for Ob in obs_near))


def _translating_leg(v: np.ndarray, g0: np.ndarray, t: np.ndarray, lo: float, hi: float, r: float,
                     sums: list[Poly]) -> list[Interval]:
    """The ``x`` whose translating leg from ``v`` costs at most ``r`` and stays clear of
    every Minkowski sum."""
    cut = _circle_cut(g0 - v, t, r)
    if cut is None:
        return []
    a, b = max(lo, cut[0]), min(hi, cut[1])
    if a > b:
        return []
    seg = np.array([v, g0 + a * t, g0 + b * t])
    rlo, rhi = seg.min(axis=0), seg.max(axis=0)
    xs: list[float] = []
    near: list[Poly] = []
    for M in sums:
        if np.any(M.min(axis=0) > rhi + TOL) or np.any(M.max(axis=0) < rlo - TOL):
            continue
        near.append(M)
        N, h = _normals(M)
        den = N @ t
        ok = np.abs(den) > 1e-15
        xs += ((h[ok] - N[ok] @ g0) / den[ok]).tolist()  # the end crosses an edge line
        q = M - v
        den = t[0] * q[:, 1] - t[1] * q[:, 0]
        ok = np.abs(den) > 1e-15
        e = g0 - v
        xs += (-(e[0] * q[ok, 1] - e[1] * q[ok, 0]) / den[ok]).tolist()  # through a vertex
    if not near:
        return [(a, b)]
    pk = Packed(near)
    return _clear(a, b, xs, lambda x: bool(pk.hits(v[None], (g0 + x * t)[None])[0]))


def _clear(a: float, b: float, xs: list[float], blocked_at: Callable[[float], bool]) -> list[Interval]:
    """The closed intervals of ``[a, b]`` where the leg is clear, given every root
    ``xs`` at which its test can change: the test is made once on each open stretch
    between consecutive roots (at its middle) and once at each root itself (a leg may
    be clear exactly at a root and blocked on both sides, as through a gap exactly as
    wide as the stand)."""
    cuts = sorted({a, b} | {x for x in xs if a < x < b and math.isfinite(x)})
    out: list[Interval] = [(x, x) for x in cuts if not blocked_at(x)]
    out += [(p, q) for p, q in zip(cuts[:-1], cuts[1:], strict=True) if q > p and not blocked_at((p + q) / 2)]
    return _union(out)


def _union(ivs: list[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for a, b in sorted(ivs):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
