"""Exact paths round oval-involved C-obstacles for the planner (``paths.CostField``).

Two hooks of ``CostField._refine``: the closed form round one smooth C-obstacle
(tangent, boundary piece, tangent) and the tangent graph of smooth bodies when an oval
is among the C-obstacles near the route. See ``geometry/smooth.py`` (the bodies),
``geometry/curves.py`` (boundary pieces) and ``geometry/smooth_graph.py`` (the graph).
Nothing here knows a game rule.
"""

from __future__ import annotations

import math

import numpy as np

from .curves import curve_box_ok, curve_hits, make_curve
from .measure import _Checker
from .shapes import TOL
from .smooth import SmoothBody, c_obstacle_body
from .smooth_graph import SmoothGraph, tangents_from
from .tangents import Piece


def smooth_graph_for(fld, key: frozenset[int]) -> SmoothGraph:  # noqa: ANN001 (a paths.CostField)
    sg = fld._sg_cache.get(key)
    if sg is not None:
        return sg
    cs = fld.ctx.cs
    for q in key:
        if q not in fld._smooth:
            body = c_obstacle_body(cs.O[q], cs.b[q]) if not cs.exact[q] else None
            if body is None:
                body = SmoothBody((), tuple((float(x), float(y)) for x, y in cs.core[q]), float(cs.rho[q]))
            fld._smooth[q] = body
    chk = _Checker(cs, fld.graph.qs, fld.ctx.box, np.empty(0, dtype=int))
    sg = SmoothGraph(cs, np.asarray(sorted(key), dtype=int), fld.start, chk.segments, fld.graph.qs,
                     fld.ctx.box, fld.limit, fld._smooth)
    if len(fld._sg_cache) >= 64:
        fld._sg_cache.clear()
    fld._sg_cache[key] = sg
    return sg

def around_smooth(
fld, goals: np.ndarray, gs: list[int], qs: list[int], want_paths: bool  # noqa: ANN001 (a paths.CostField)
) -> tuple[dict[int, float], dict[int, list]]:
    """Closed form round one hard smooth C-obstacle (an oval base involved; see
    :mod:`chargeref.geometry.smooth`): tangent from the start, the boundary between
    the two tangent normals on the side that is shorter *round this obstacle alone*,
    tangent to the goal. Kept only where the straight segment enters the obstacle,
    every piece is exactly clear of every C-obstacle (and the board) and climbs
    nothing: then it is the shortest path (a path round all obstacles is a path
    round this one). A start or goal on the boundary (touching) is pushed 1e-9
    outward first; its tangent then meets the boundary within ~1e-9 of the unit."""
    cs = fld.ctx.cs
    out_c: dict[int, float] = {}
    out_p: dict[int, list] = {}
    chk = _Checker(cs, fld.graph.qs, fld.ctx.box, np.empty(0, dtype=int))
    s = fld.start
    pairs = [(g, q) for g, q in zip(gs, qs, strict=True) if not cs.exact[q] and cs.hard[q]]
    if not pairs:
        return out_c, out_p
    pg = np.asarray([g for g, _ in pairs], dtype=int)
    pq = np.asarray([q for _, q in pairs], dtype=int)
    sd = cs.sd_pairs(np.repeat(s[None], len(pairs), axis=0), goals[pg], pq)
    for (g, q), sdv in zip(pairs, sd, strict=True):
        if sdv >= -TOL:
            continue  # the straight segment passes this one: not the case here
        G = goals[g]
        body = fld._smooth.get(q)
        if body is None:
            body = c_obstacle_body(cs.O[q], cs.b[q])
            if body is None:
                continue
            fld._smooth[q] = body
        if q not in fld._start_tangents:
            fld._start_tangents[q] = tangents_from(body, s)
        ts = fld._start_tangents[q]
        tg = tangents_from(body, G)
        if ts is None or tg is None:
            continue
        best = None
        for ccw in (True, False):
            fa, fb = (ts[0], tg[1]) if ccw else (ts[1], tg[0])
            cur = make_curve(body, fa, fb, ccw)
            la = math.dist(s, cur.a)
            lb = math.dist(cur.b, G)
            L = la + cur.length + lb
            if best is None or L < best[0]:
                best = (L, cur, la, lb)
        assert best is not None
        L, cur, la, lb = best
        if L > fld.limit:
            continue
        if g in out_c and out_c[g] <= L:
            # perf: a path round another obstacle already costs no more; the checks
            # below could only keep this one out too
            continue
        A = np.asarray([s, cur.b])
        B = np.asarray([cur.a, G])
        bl, climb, _ = chk.segments(A, B)
        if bl.any() or climb.any():
            continue
        if curve_hits(cs, fld.graph.qs, cur, skip={q}) or not curve_box_ok(cur, fld.ctx.box):
            continue
        if g in out_c and out_c[g] <= L:
            continue
        out_c[g] = L
        if want_paths:
            s0 = (float(s[0]), float(s[1]))
            gg = (float(G[0]), float(G[1]))
            ps = [Piece("line", s0, cur.a, la), cur, Piece("line", cur.b, gg, lb)]
            out_p[g] = [p for p in ps if p.length > 0]
    return out_c, out_p


__all__ = ["around_smooth", "smooth_graph_for"]
