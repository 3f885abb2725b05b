"""Exact shortest paths among rounded convex C-obstacles: tangents and arcs.

A C-obstacle of the form "convex core ⊕ disc(ρ)" has a boundary made of the core's
edges pushed out by ρ and of circular arcs of radius ρ round the core's vertices. A
shortest path among such obstacles is a chain of straight tangent segments and arcs
along those vertex circles (the classical tangent graph). This module builds that graph
for a small set of C-obstacles in closed form:

* every pair of vertex circles has up to four common tangents; the contact normal of a
  tangent leaving circle ``(c1, r1)`` is ``n = u(β ± acos((r1 − s·r2)/L))`` (``β`` the
  direction and ``L`` the distance between the centres, ``s = +1`` for an outer and
  ``−1`` for an inner tangent); a point is a circle of radius 0, so start and goal
  tangents are the same formula;
* a tangent is kept only where it supports its own C-obstacle (its contact normal lies
  in the normal cone of the core vertex) and is clear of every C-obstacle of the set
  (exact segment distance);
* consecutive contact points on one circle, travelled the same way round, are joined
  by the arc between them, of length ``ρ·Δθ``, kept when it stays in the vertex's normal
  cone (so it is boundary, not interior) and is clear of the other C-obstacles (exact
  arc-to-segment and arc-to-point distances).

Dijkstra runs once from the start; goals are joined by their own tangents, reached
along an arc from any contact point already reached. Nothing here knows a game rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from .shapes import TOL

_TWO_PI = 2.0 * math.pi
#: angular slack (radians) when testing a normal against a vertex's normal cone
_CONE_EPS = 1e-9
_TINY = 1e-300


# ----------------------------------------------------------------------------------
# arcs: exact distances
# ----------------------------------------------------------------------------------


def ang_in(theta: np.ndarray, lo: np.ndarray, span: np.ndarray, eps: float = _CONE_EPS) -> np.ndarray:
    """Is angle ``theta`` within the counter-clockwise interval ``[lo, lo + span]``?"""
    d = np.mod(np.asarray(theta) - lo + eps, _TWO_PI)
    return (d <= np.asarray(span) + 2 * eps) | (np.asarray(span) >= _TWO_PI - eps)


def arc_point_dist(
    c: np.ndarray, r: np.ndarray, a0: np.ndarray, span: np.ndarray, P: np.ndarray
) -> np.ndarray:
    """Distance from points P[i] to arcs (centre c[i], radius r[i], counter-clockwise
    from angle a0[i] over span[i])."""
    d = P - c
    rho = np.hypot(d[:, 0], d[:, 1])
    phi = np.arctan2(d[:, 1], d[:, 0])
    inside = ang_in(phi, a0, span, 0.0) & (rho > 0)
    e0 = c + r[:, None] * np.stack([np.cos(a0), np.sin(a0)], axis=-1)
    a1 = a0 + span
    e1 = c + r[:, None] * np.stack([np.cos(a1), np.sin(a1)], axis=-1)
    ends = np.minimum(np.hypot(*(P - e0).T), np.hypot(*(P - e1).T))
    return np.where(inside, np.abs(rho - r), ends)


def _seg_point(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    s = B - A
    w = C - A
    ss = np.einsum("ij,ij->i", s, s)
    t = np.divide(np.einsum("ij,ij->i", w, s), ss, out=np.zeros(len(ss)), where=ss > 0)
    t = np.clip(t, 0.0, 1.0)
    return np.hypot(*(w - t[:, None] * s).T)


def arc_seg_dist(
    c: np.ndarray,
    r: np.ndarray,
    a0: np.ndarray,
    span: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
) -> np.ndarray:
    """Exact distance between arcs (as in :func:`arc_point_dist`) and segments [A, B].

    The least distance is attained at an end of one of them, or at an interior point
    of both: there either the segment meets the circle, or the common normal runs
    through the centre (the foot of the perpendicular from ``c``, when it lies outside
    the circle); inside the circle the distance to it only grows towards the ends."""
    a1 = a0 + span
    e0 = c + r[:, None] * np.stack([np.cos(a0), np.sin(a0)], axis=-1)
    e1 = c + r[:, None] * np.stack([np.cos(a1), np.sin(a1)], axis=-1)
    out = np.minimum(
        np.minimum(arc_point_dist(c, r, a0, span, A), arc_point_dist(c, r, a0, span, B)),
        np.minimum(_seg_point(A, B, e0), _seg_point(A, B, e1)),
    )
    s = B - A
    ss = np.einsum("ij,ij->i", s, s)
    ok = ss > 0
    t = np.divide(np.einsum("ij,ij->i", c - A, s), ss, out=np.zeros(len(ss)), where=ok)
    F = A + t[:, None] * s
    dF = F - c
    h = np.hypot(dF[:, 0], dF[:, 1])
    # foot outside the circle, inside the segment, in the arc's angular range
    phiF = np.arctan2(dF[:, 1], dF[:, 0])
    m = ok & (t >= 0) & (t <= 1) & (h >= r) & (h > 0) & ang_in(phiF, a0, span, 0.0)
    out = np.where(m, np.minimum(out, h - r), out)
    # the line crosses the circle: crossing points inside both
    cross = ok & (h < r)
    if cross.any():
        L = np.sqrt(np.where(ok, ss, 1.0))
        half = np.sqrt(np.maximum(r * r - h * h, 0.0)) / L
        for sg in (-1.0, 1.0):
            tt = t + sg * half
            X = A + tt[:, None] * s
            phX = np.arctan2(X[:, 1] - c[:, 1], X[:, 0] - c[:, 0])
            hit = cross & (tt >= 0) & (tt <= 1) & ang_in(phX, a0, span, 0.0)
            out = np.where(hit, 0.0, out)
    return out


def arc_box_ok(
    c: np.ndarray, r: np.ndarray, a0: np.ndarray, span: np.ndarray, box: np.ndarray | None
) -> np.ndarray:
    """Do the arcs stay within the box [x0, x1] x [y0, y1] (TOL)? Their extremes are
    the ends and the axis directions inside the range."""
    if box is None:
        return np.ones(len(c), dtype=bool)
    ok = np.ones(len(c), dtype=bool)
    for th in (a0, a0 + span):
        p = c + r[:, None] * np.stack([np.cos(th), np.sin(th)], axis=-1)
        ok &= (p[:, 0] >= box[0] - TOL) & (p[:, 0] <= box[1] + TOL)
        ok &= (p[:, 1] >= box[2] - TOL) & (p[:, 1] <= box[3] + TOL)
    for k, (ax, lim, sgn) in enumerate(
        ((0, box[1], 1), (1, box[3], 1), (0, box[0], -1), (1, box[2], -1))
    ):
        th = k * math.pi / 2
        inr = ang_in(np.full(len(c), th), a0, span, 0.0)
        v = c[:, ax] + sgn * r
        ok &= ~inr | ((v - lim) * sgn <= TOL)
    return ok


def arc_sd_core(
    c: np.ndarray,
    r: np.ndarray,
    a0: np.ndarray,
    span: np.ndarray,
    core: np.ndarray,
    rho: float,
    tol: float = TOL,
) -> np.ndarray:
    """Does each arc penetrate the C-obstacle ``core ⊕ disc(rho)`` deeper than ``tol``?

    With ``rho >= tol`` this is ``dist(arc, core) < rho − tol``, exact. A bare polygon
    (``rho < tol``) is entered deeper than ``tol`` exactly when the arc meets the
    polygon shrunk by ``tol − rho`` (its edges moved inwards)."""
    K = np.asarray(core, dtype=float).reshape(-1, 2)
    n = len(c)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if rho >= tol:
        d = np.full(n, np.inf)
        if len(K) == 1:
            d = arc_point_dist(c, r, a0, span, np.repeat(K, n, axis=0))
        else:
            m = len(K) if len(K) >= 3 else 1
            for k in range(m):
                A = np.repeat(K[k][None], n, axis=0)
                B = np.repeat(K[(k + 1) % len(K)][None], n, axis=0)
                d = np.minimum(d, arc_seg_dist(c, r, a0, span, A, B))
            if len(K) >= 3:
                d = np.where(_in_poly(K, c + r[:, None] * _u(a0)), 0.0, d)
        return d < rho - tol
    if len(K) < 3:
        return np.zeros(n, dtype=bool)
    S = _shrink(K, tol - rho)
    if S is None:
        return np.zeros(n, dtype=bool)
    hit = _in_poly(S, c + r[:, None] * _u(a0))
    for k in range(len(S)):
        A = np.repeat(S[k][None], n, axis=0)
        B = np.repeat(S[(k + 1) % len(S)][None], n, axis=0)
        hit |= arc_seg_dist(c, r, a0, span, A, B) <= 0.0
    return hit


def _off(a, lo):  # noqa: ANN001, ANN202 (floats or arrays)
    """Counter-clockwise offset of angle ``a`` from ``lo`` in [-eps, 2π - eps): an angle
    a hair before the start of a cone counts as its start, not as a full turn."""
    return np.mod(np.asarray(a) - lo + _CONE_EPS, _TWO_PI) - _CONE_EPS


def _u(a: np.ndarray) -> np.ndarray:
    return np.stack([np.cos(a), np.sin(a)], axis=-1)


def _in_poly(K: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Points strictly inside a CCW convex polygon."""
    E = np.roll(K, -1, axis=0) - K
    W = P[:, None, :] - K[None, :, :]
    cr = E[None, :, 0] * W[..., 1] - E[None, :, 1] * W[..., 0]
    return (cr > 0).all(axis=1)


def _shrink(K: np.ndarray, d: float) -> np.ndarray | None:
    """A CCW convex polygon with every edge moved inwards by ``d`` (None if it vanishes)."""
    E = np.roll(K, -1, axis=0) - K
    L = np.hypot(E[:, 0], E[:, 1])
    if (L <= 0).any():
        return None
    N = np.stack([E[:, 1], -E[:, 0]], axis=-1) / L[:, None]
    H = np.einsum("ij,ij->i", N, K) - d
    N2, H2 = np.roll(N, -1, axis=0), np.roll(H, -1)
    det = N[:, 0] * N2[:, 1] - N[:, 1] * N2[:, 0]
    if (np.abs(det) < 1e-15).any():
        return None
    x = (H * N2[:, 1] - H2 * N[:, 1]) / det
    y = (N[:, 0] * H2 - N2[:, 0] * H) / det
    S = np.stack([x, y], axis=-1)
    # every shrunk vertex must satisfy all shrunk half-planes, else the polygon vanished
    if ((S @ N.T) - H[None, :] > 1e-12).any():
        return None
    return S


# ----------------------------------------------------------------------------------
# tangents
# ----------------------------------------------------------------------------------


def tangents(
    c1: np.ndarray, r1: np.ndarray, c2: np.ndarray, r2: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Directed common tangents from circles (c1, r1) to circles (c2, r2), vectorised
    over pairs: a list of ``(normal angle at 1, o1, o2, valid)``, where ``o = +1`` means
    the path goes counter-clockwise round that circle at the contact point. The contact
    point on circle 2 has normal ``o1·o2·n1``. ``valid`` is False where the tangent does
    not exist (one circle inside the other) or runs backwards."""
    D = c2 - c1
    L = np.hypot(D[:, 0], D[:, 1])
    beta = np.arctan2(D[:, 1], D[:, 0])
    out = []
    for o1 in (1.0, -1.0):
        for s in (1.0, -1.0):
            with np.errstate(invalid="ignore", divide="ignore"):
                k = (r1 - s * r2) / L
            exists = (L > 0) & (np.abs(k) <= 1.0)
            g = np.arccos(np.clip(k, -1.0, 1.0))
            for sg in (1.0, -1.0):
                a = beta + sg * g
                n1 = _u(a)
                d = o1 * np.stack([-n1[:, 1], n1[:, 0]], axis=-1)
                P1 = c1 + r1[:, None] * n1
                P2 = c2 + (s * r2)[:, None] * n1
                fwd = np.einsum("ij,ij->i", P2 - P1, d) > 0
                out.append((a, np.full(len(a), o1), np.full(len(a), o1 * s), exists & fwd))
    return out


# ----------------------------------------------------------------------------------
# the exact local graph
# ----------------------------------------------------------------------------------


@dataclass
class Piece:
    """One piece of a path: a segment, or an arc (centre, radius, counter-clockwise?)."""

    kind: str
    a: tuple[float, float]
    b: tuple[float, float]
    length: float
    center: tuple[float, float] | None = None
    radius: float = 0.0
    ccw: bool = True
    #: a "curve" piece runs along the boundary of this smooth body (geometry.smooth)
    #: from normal ``normals[0]`` to ``normals[1]`` (counter-clockwise when ``ccw``)
    body: Any = None
    normals: tuple[float, float] = (0.0, 0.0)

    def as_dict(self) -> dict:
        if self.kind == "line":
            return {"kind": "line", "from": list(self.a), "to": list(self.b)}
        if self.kind == "curve":
            return {
                "kind": "curve",
                "from": list(self.a),
                "to": list(self.b),
                "ccw": self.ccw,
                "normals": list(self.normals),
                "body": self.body.as_dict(),
            }
        assert self.center is not None
        return {
            "kind": "arc",
            "center": list(self.center),
            "radius": self.radius,
            "from": list(self.a),
            "to": list(self.b),
            "ccw": self.ccw,
        }


class Obstacles:
    """What the exact graph needs of a set of C-obstacles: per obstacle a convex core
    (CCW vertices), a disc radius, whether it is hard, its barrier, and whether its
    core is exact (False for a circumscribed stand-in of a curved obstacle)."""

    def __init__(
        self,
        cores: Sequence[np.ndarray],
        rho: Sequence[float],
        hard: Sequence[bool],
        bar: Sequence[int],
        exact: Sequence[bool],
    ) -> None:
        self.cores = [np.asarray(k, dtype=float).reshape(-1, 2) for k in cores]
        self.rho = np.asarray(rho, dtype=float)
        self.hard = np.asarray(hard, dtype=bool)
        self.bar = np.asarray(bar, dtype=int)
        self.exact = np.asarray(exact, dtype=bool)
        cen, rad = [], []
        for k, r in zip(self.cores, self.rho, strict=True):
            m = k.mean(axis=0)
            cen.append(m)
            rad.append(float(np.max(np.hypot(*(k - m).T))) + float(r))
        self.cen = np.asarray(cen).reshape(-1, 2)
        self.rad = np.asarray(rad)

    def circles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Vertex circles: centres, radii, owner, normal-cone start and span."""
        C, R, own, lo, span = [], [], [], [], []
        for m, K in enumerate(self.cores):
            r = float(self.rho[m])
            nv = len(K)
            for k in range(nv):
                C.append(K[k])
                R.append(r)
                own.append(m)
                if nv == 1:
                    lo.append(0.0)
                    span.append(_TWO_PI)
                elif nv == 2:
                    d = K[k] - K[1 - k]
                    lo.append(math.atan2(d[1], d[0]) - math.pi / 2)
                    span.append(math.pi)
                else:
                    ei = K[k] - K[k - 1]
                    eo = K[(k + 1) % nv] - K[k]
                    a_in = math.atan2(-ei[0], ei[1])
                    a_out = math.atan2(-eo[0], eo[1])
                    lo.append(a_in)
                    span.append((a_out - a_in) % _TWO_PI)
        return (
            np.asarray(C, dtype=float).reshape(-1, 2),
            np.asarray(R, dtype=float),
            np.asarray(own, dtype=int),
            np.asarray(lo, dtype=float),
            np.asarray(span, dtype=float),
        )


class ExactGraph:
    """The tangent graph of :class:`Obstacles` from one start point, with Dijkstra run.

    ``seg_check(A, B) -> (blocked, climb, barrier sets)`` and ``arc_check(c, r, a0,
    span, owner) -> (blocked, climb, barrier sets)`` judge pieces against every
    obstacle the caller cares about (exactly); ``limit`` bounds the costs explored."""

    def __init__(self, obs: Obstacles, start: np.ndarray, seg_check, arc_check, limit: float) -> None:
        self.obs = obs
        self.seg_check = seg_check
        self.arc_check = arc_check
        self.limit = limit
        self.start = np.asarray(start, dtype=float)
        C, R, own, lo, span = obs.circles()
        self.C, self.R, self.own, self.lo, self.span = C, R, own, lo, span
        nc = len(C)
        self.nc = nc
        # --- candidate tangent segments: circle -> circle, start -> circle
        seg_from, seg_to, seg_a1, seg_o1, seg_o2 = [], [], [], [], []
        if nc:
            i, j = np.nonzero(~np.eye(nc, dtype=bool))
            for a, o1, o2, ok in tangents(C[i], R[i], C[j], R[j]):
                n2 = a + np.where(o1 * o2 > 0, 0.0, math.pi)
                ok = ok & ang_in(a, lo[i], span[i]) & ang_in(n2, lo[j], span[j])
                seg_from.append(i[ok])
                seg_to.append(j[ok])
                seg_a1.append(a[ok])
                seg_o1.append(o1[ok])
                seg_o2.append(o2[ok])
            jj = np.arange(nc)
            S = np.repeat(self.start[None], nc, axis=0)
            for a, o1, o2, ok in tangents(S, np.zeros(nc), C, R):
                if len(o1) and o1[0] < 0:
                    continue  # a point has no way round: keep one copy of each line
                n2 = a + np.where(o2 > 0, 0.0, math.pi)
                ok = ok & ang_in(n2, lo, span)
                seg_from.append(np.full(int(ok.sum()), -1))
                seg_to.append(jj[ok])
                seg_a1.append(a[ok])
                seg_o1.append(o1[ok])
                seg_o2.append(o2[ok])
        if seg_from:
            sf = np.concatenate(seg_from)
            st = np.concatenate(seg_to)
            a1 = np.concatenate(seg_a1)
            o1 = np.concatenate(seg_o1)
            o2 = np.concatenate(seg_o2)
        else:
            sf = st = np.empty(0, dtype=int)
            a1 = o1 = o2 = np.empty(0)
        n1 = _u(a1)
        a2 = np.where(o1 * o2 > 0, a1, a1 + math.pi)
        P1 = np.where(sf[:, None] >= 0, C[np.maximum(sf, 0)] + R[np.maximum(sf, 0)][:, None] * n1, self.start)
        P2 = C[st] + R[st][:, None] * _u(a2) if len(st) else np.empty((0, 2))
        blocked, climb, bars = seg_check(P1, P2) if len(sf) else (np.empty(0, bool), np.empty(0), [])
        keep = ~blocked
        # --- nodes: (circle, orientation, angle); node 0 is the start. Tangent ends
        # and a start lying on a circle (touching its C-obstacle) give the nodes.
        sf, st, a1, a2, o1, o2 = sf[keep], st[keep], a1[keep], a2[keep], o1[keep], o2[keep]
        P1, P2, climb = P1[keep], P2[keep], climb[keep]
        on_c = np.empty(0, dtype=int)
        aS = np.empty(0)
        if nc:
            dS = self.start[None] - C
            LS = np.hypot(dS[:, 0], dS[:, 1])
            aSall = np.arctan2(dS[:, 1], dS[:, 0])
            on = (LS <= R + 1e-9) & (LS >= R - TOL) & (R > 0) & ang_in(aSall, lo, span)
            on_c = np.flatnonzero(on)
            aS = aSall[on_c]
        dep = sf >= 0
        kc = np.concatenate([sf[dep], st, on_c, on_c])
        ko = np.concatenate([o1[dep], o2, np.ones(len(on_c)), -np.ones(len(on_c))])
        ka = np.round(np.mod(np.concatenate([a1[dep], a2, aS, aS]), _TWO_PI), 12)
        ka = np.where(ka >= _TWO_PI, 0.0, ka)
        if len(kc):
            keys = np.stack([kc.astype(float), ko, ka], axis=1)
            uniq, inv = np.unique(keys, axis=0, return_inverse=True)
            inv = inv.ravel() + 1
        else:
            uniq, inv = np.empty((0, 3)), np.empty(0, dtype=int)
        self.nodes_c = np.concatenate([[-1], uniq[:, 0].astype(int)])
        self.nodes_o = np.concatenate([[0.0], uniq[:, 1]])
        self.nodes_a = np.concatenate([[0.0], uniq[:, 2]])
        nd = int(dep.sum())
        ne = len(sf)
        u_line = np.zeros(ne, dtype=np.int64)
        u_line[dep] = inv[:nd]
        v_line = inv[nd : nd + ne]
        v_on = inv[nd + ne :]
        Ton = C[np.concatenate([on_c, on_c])] + np.concatenate([R[on_c], R[on_c]])[:, None] * _u(
            np.concatenate([aS, aS])
        ) if len(on_c) else np.empty((0, 2))
        # edge arrays: u, v, weight, kind (0 line, 1 arc), ends, circle, ccw, length
        eu = [u_line, np.zeros(len(v_on), dtype=np.int64)]
        ev = [v_line, v_on]
        ew = [np.hypot(*(P2 - P1).T) + climb, np.hypot(*(Ton - self.start).T)]
        eA = [P1, np.repeat(self.start[None], len(v_on), axis=0)]
        eB = [P2, Ton]
        ek = [np.zeros(ne, dtype=int), np.zeros(len(v_on), dtype=int)]
        ec = [np.full(ne, -1), np.full(len(v_on), -1)]
        eo = [np.zeros(ne, dtype=bool), np.zeros(len(v_on), dtype=bool)]
        el = [np.hypot(*(P2 - P1).T), np.hypot(*(Ton - self.start).T)]
        # --- arcs between consecutive contact points, per circle and direction
        T = len(self.nodes_c)
        idx = np.arange(1, T)
        if len(idx) > 1:
            order = np.lexsort((self.nodes_a[idx], self.nodes_o[idx], self.nodes_c[idx]))
            srt = idx[order]
            gkey = self.nodes_c[srt] * 2 + (self.nodes_o[srt] > 0)
            newg = np.ones(len(srt), dtype=bool)
            newg[1:] = gkey[1:] != gkey[:-1]
            gstart = np.maximum.accumulate(np.where(newg, np.arange(len(srt)), 0))
            gend = np.empty(len(srt), dtype=int)
            ends = np.flatnonzero(np.r_[newg[1:], True])
            gend[:] = ends[np.searchsorted(ends, np.arange(len(srt)))]
            size = gend - gstart + 1
            pos = np.arange(len(srt))
            ccw = self.nodes_o[srt] > 0
            nxt = np.where(pos == gend, gstart, pos + 1)
            prv = np.where(pos == gstart, gend, pos - 1)
            to = np.where(ccw, nxt, prv)
            m = size >= 2
            u, v = srt[m], srt[to[m]]
            c = self.nodes_c[u]
            ta, tb = self.nodes_a[u], self.nodes_a[v]
            cc = ccw[m]
            s0 = np.where(cc, ta, tb)
            sp = np.where(cc, np.mod(tb - ta, _TWO_PI), np.mod(ta - tb, _TWO_PI))
            full = span[c] >= _TWO_PI - 1e-12
            ok = full | (ang_in(s0, lo[c], span[c]) & (_off(s0, lo[c]) + sp <= span[c] + 1e-9))
            u, v, c, s0, sp, cc = u[ok], v[ok], c[ok], s0[ok], sp[ok], cc[ok]
            if len(u):
                bl, cl, _ = arc_check(C[c], R[c], s0, sp, self.own[c])
                g = ~bl
                u, v, c, s0, sp, cc, cl = u[g], v[g], c[g], s0[g], sp[g], cc[g], cl[g]
                pu = C[c] + R[c][:, None] * _u(self.nodes_a[u])
                pv = C[c] + R[c][:, None] * _u(self.nodes_a[v])
                eu.append(u)
                ev.append(v)
                ew.append(R[c] * sp + cl)
                eA.append(pu)
                eB.append(pv)
                ek.append(np.ones(len(u), dtype=int))
                ec.append(c)
                eo.append(cc)
                el.append(R[c] * sp)
        self.T = T
        r_ = np.concatenate(eu).astype(np.int64)
        c_ = np.concatenate(ev).astype(np.int64)
        w_ = np.maximum(np.concatenate(ew), _TINY)
        if len(r_):
            order = np.lexsort((w_, c_, r_))
            rs, cs_ = r_[order], c_[order]
            first = np.ones(len(order), dtype=bool)
            first[1:] = (rs[1:] != rs[:-1]) | (cs_[1:] != cs_[:-1])
            sel = order[first]
            self.e_key = r_[sel] * T + c_[sel]  # sorted (r then c)
            self.e_A = np.concatenate(eA)[sel]
            self.e_B = np.concatenate(eB)[sel]
            self.e_kind = np.concatenate(ek)[sel]
            self.e_circ = np.concatenate(ec)[sel]
            self.e_ccw = np.concatenate(eo)[sel]
            self.e_len = np.concatenate(el)[sel]
            mat = csr_matrix((w_[sel], (r_[sel], c_[sel])), shape=(T, T))
            self.dist, self.pred = dijkstra(
                mat, directed=True, indices=0, return_predecessors=True, limit=limit
            )
        else:
            self.e_key = np.empty(0, dtype=np.int64)
            self.dist = np.full(T, np.inf)
            self.dist[0] = 0.0
            self.pred = np.full(T, -9999)

    # -- goals --------------------------------------------------------------------------
    def join(self, goals: np.ndarray) -> tuple[np.ndarray, list]:
        """Least cost to each goal and how it is reached: ("direct",) or (node, circle,
        orientation, angle of the last contact, arc span)."""
        G = len(goals)
        best = np.full(G, np.inf)
        how: list = [None] * G
        S = np.repeat(self.start[None], G, axis=0)
        blocked, climb, _ = self.seg_check(S, goals)
        d = np.hypot(*(goals - S).T) + climb
        ok = ~blocked & (d <= self.limit)
        best[ok] = d[ok]
        for g in np.flatnonzero(ok):
            how[g] = ("direct",)
        reached = np.flatnonzero(np.isfinite(self.dist) & (self.nodes_c >= 0))
        if len(reached) == 0 or self.nc == 0:
            return best, how
        C, R = self.C, self.R
        # tangents from each circle to each goal (goal = circle of radius 0)
        gi, ci = np.meshgrid(np.arange(G), np.arange(self.nc), indexing="ij")
        gi, ci = gi.ravel(), ci.ravel()
        cand_g, cand_n, cand_a, cand_sp, cand_T, cand_lb = [], [], [], [], [], []
        joins = list(tangents(C[ci], R[ci], goals[gi], np.zeros(len(gi))))
        # a goal on a vertex circle (touching its C-obstacle) is reached along that circle
        dG = goals[gi] - C[ci]
        LG = np.hypot(dG[:, 0], dG[:, 1])
        aG = np.arctan2(dG[:, 1], dG[:, 0])
        on = (LG <= R[ci] + 1e-9) & (LG >= R[ci] - TOL) & (R[ci] > 0)
        for o in (1.0, -1.0):
            joins.append((aG, np.full(len(gi), o), np.full(len(gi), 1.0), on))
        for a, o1, _o2, ok in joins:
            if len(_o2) == 0 or _o2[0] < 0:
                continue
            ok = ok & ang_in(a, self.lo[ci], self.span[ci])
            if not ok.any():
                continue
            g_, c_, a_ = gi[ok], ci[ok], a[ok]
            o = o1[0]
            Tpt = C[c_] + R[c_][:, None] * _u(a_)
            # reached contact points on the same circle, same direction: every
            # (tangent, node) pair at once
            rn = reached[self.nodes_o[reached] == o]
            if len(rn) == 0:
                continue
            rn = rn[np.argsort(self.nodes_c[rn], kind="stable")]
            rcirc = self.nodes_c[rn]
            first = np.searchsorted(rcirc, c_, side="left")
            cnt = np.searchsorted(rcirc, c_, side="right") - first
            pi = np.repeat(np.arange(len(c_)), cnt)
            if len(pi) == 0:
                continue
            off = np.arange(len(pi)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            n = rn[np.repeat(first, cnt) + off]
            an = self.nodes_a[n]
            ap = a_[pi]
            c0 = c_[pi]
            if o > 0:
                s0 = an
                sp = np.mod(ap - an, _TWO_PI)
            else:
                s0 = ap
                sp = np.mod(an - ap, _TWO_PI)
            within = (_off(s0, self.lo[c0]) + sp <= self.span[c0] + 1e-9) | (
                self.span[c0] >= _TWO_PI - 1e-12
            )
            within &= ang_in(s0, self.lo[c0], self.span[c0])
            lb = self.dist[n] + R[c0] * sp + np.hypot(*(goals[g_[pi]] - Tpt[pi]).T)
            k = within & (lb <= self.limit)
            cand_g.append(g_[pi][k])
            cand_n.append(n[k])
            cand_a.append(s0[k])
            cand_sp.append(sp[k])
            cand_T.append(Tpt[pi][k])
            cand_lb.append(lb[k])
        if not cand_g:
            return best, how
        cg = np.concatenate(cand_g)
        cn = np.concatenate(cand_n)
        ca = np.concatenate(cand_a)
        csp = np.concatenate(cand_sp)
        cT = np.concatenate(cand_T).reshape(-1, 2)
        clb = np.concatenate(cand_lb)
        order = np.lexsort((clb, cg))
        cg, cn, ca, csp, cT, clb = cg[order], cn[order], ca[order], csp[order], cT[order], clb[order]
        rank = np.arange(len(cg)) - np.searchsorted(cg, cg, side="left")
        lo_, width = 0, 2
        while True:
            live = (rank >= lo_) & (clb < best[cg])
            if not live.any():
                break
            k = np.flatnonzero(live & (rank < lo_ + width))
            if len(k):
                cc = self.nodes_c[cn[k]]
                bl1, cl1, _ = self.seg_check(cT[k], goals[cg[k]])
                arcs = csp[k] > 0
                bl2 = np.zeros(len(k), dtype=bool)
                cl2 = np.zeros(len(k))
                if arcs.any():
                    j = np.flatnonzero(arcs)
                    b_, c2_, _ = self.arc_check(
                        C[cc[j]], R[cc[j]], ca[k[j]], csp[k[j]], self.own[cc[j]]
                    )
                    bl2[j] = b_
                    cl2[j] = c2_
                val = np.where(bl1 | bl2, np.inf, clb[k] + cl1 + cl2)
                for t, kk in enumerate(k):
                    g = cg[kk]
                    if val[t] < best[g] and val[t] <= self.limit:
                        best[g] = val[t]
                        how[g] = ("node", int(cn[kk]), float(ca[kk]), float(csp[kk]), tuple(cT[kk]))
            lo_ += width
            width *= 2
        return best, how

    def pieces(self, goal: np.ndarray, how) -> list[Piece]:
        """The pieces of the path to ``goal`` reached as ``how`` (from :meth:`join`)."""
        g = (float(goal[0]), float(goal[1]))
        s = (float(self.start[0]), float(self.start[1]))
        if how[0] == "direct":
            return [Piece("line", s, g, math.dist(s, g))]
        _, n, s0, sp, Tpt = how
        chain = []
        k = n
        while k != 0:
            p = int(self.pred[k])
            chain.append(int(np.searchsorted(self.e_key, p * self.T + k)))
            k = p
        chain.reverse()
        out = [self._piece(e) for e in chain]
        c = int(self.nodes_c[n])
        o = self.nodes_o[n]
        if sp > 0 and self.R[c] > 0:
            pa = tuple(float(v) for v in self.C[c] + self.R[c] * _u(np.asarray(self.nodes_a[n])))
            out.append(
                Piece(
                    "arc",
                    pa,
                    (float(Tpt[0]), float(Tpt[1])),
                    float(self.R[c] * sp),
                    (float(self.C[c][0]), float(self.C[c][1])),
                    float(self.R[c]),
                    bool(o > 0),
                )
            )
        out.append(Piece("line", (float(Tpt[0]), float(Tpt[1])), g, math.dist(Tpt, g)))
        return [p for p in out if p.length > 0]

    def _piece(self, e: int) -> Piece:
        a = (float(self.e_A[e][0]), float(self.e_A[e][1]))
        b = (float(self.e_B[e][0]), float(self.e_B[e][1]))
        if self.e_kind[e] == 0:
            return Piece("line", a, b, math.dist(a, b))
        c = int(self.e_circ[e])
        cen = (float(self.C[c][0]), float(self.C[c][1]))
        return Piece("arc", a, b, float(self.e_len[e]), cen, float(self.R[c]), bool(self.e_ccw[e]))
