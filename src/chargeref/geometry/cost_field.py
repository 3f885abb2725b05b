"""The cost field of one base among the planner's barriers: least-cost paths from one
start to any goal, within a budget (:class:`CostField`, built by
:meth:`chargeref.geometry.paths.Planner.field`).

How the paths are built and what their lengths promise is the planner's story: see the
docstring of :mod:`chargeref.geometry.paths`. This module holds the per-start half of
it: the tangent graph's Dijkstra tree from the start, the exact stage that turns a
graph route into lines and arcs (or curves round an oval's C-obstacle) with exact
lengths, and the refinement near a goal. It was split out of ``paths.py`` to keep each
file to one responsibility (planner set-up and caching there, one start's field here).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from .cspace import (
    _TINY,
    PathResult,
    _in_box,
    _seg_point_d2_matrix,
    _seg_point_dist,
    _unique_pairs,
)
from .measure import (
    _Checker,
    _dedupe,
    _line_pieces,
    _piece_result,
)
from .shapes import (
    TOL,
    Footprint,
)
from .smooth import SmoothBody
from .smooth_graph import SmoothGraph
from .smooth_paths import around_smooth, smooth_graph_for
from .tangents import ExactGraph, Obstacles, Piece
from .visibility import (
    _Graph,
)

if TYPE_CHECKING:
    from .paths import Planner, _Context


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
        self._eg: ExactGraph | None = None
        self._eg_key: frozenset[int] = frozenset()
        self._eg_cache: dict[frozenset[int], ExactGraph] = {}
        self._smooth: dict[int, SmoothBody] = {}
        self._sg_cache: dict[frozenset[int], SmoothGraph] = {}
        self._start_tangents: dict[int, tuple[float, float] | None] = {}
        #: why a goal's cost or path of the last query is not proven least (goal index)
        self.last_reason: dict[int, str] = {}
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
        return _piece_result(self.ctx.cs, pieces, exact, self.start, "" if exact else self.last_reason.get(0, ""))

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
        self.last_reason = {}
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
                    self.last_reason[g] = "the exact construction found no path as short as the graph's polyline"
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

    #: the shared tangent graph of a field covers at most this many C-obstacles
    UNION_MAX = 16
    #: the smooth tangent graph (ovals) covers at most this many C-obstacles (its
    #: common tangents cost about 0.2 ms CPU per pair of bodies: 48 bodies, 1128 pairs,
    #: about 0.25 s); beyond it the result is reported not proven
    SMOOTH_MAX = 48
    #: goals joined to a tangent graph at once (bounds the goal x contact-point arrays)
    JOIN_CHUNK = 64

    def _exact_graph(self, key: frozenset[int]):
        if key == self._eg_key and self._eg is not None:
            return self._eg
        hit = self._eg_cache.get(key)
        if hit is not None:
            return hit
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
        eg._oval_checker = checker  # type: ignore[attr-defined]
        if len(key) <= self.UNION_MAX and key >= self._eg_key:
            self._eg, self._eg_key = eg, key
        else:
            if len(self._eg_cache) >= 256:
                self._eg_cache.clear()
            self._eg_cache[key] = eg
        return eg

    def _around_one(
        self, goals: np.ndarray, gs: list[int], qs: list[int], want_paths: bool
    ) -> tuple[dict[int, float], dict[int, list]]:
        """Closed form round one hard disc C-obstacle (centre c, radius ρ): tangent from
        the start, arc of ρ·φ on the side of the smaller angle, tangent to the goal, with
        ``φ = θ − acos(ρ/d_s) − acos(ρ/d_g)``; kept where every piece is exactly clear of
        every C-obstacle (and the board)."""
        cs = self.ctx.cs
        gi = np.asarray(gs, dtype=int)
        q = np.asarray(qs, dtype=int)
        ok = cs.is_point[q] & cs.hard[q]
        gi, q = gi[ok], q[ok]
        out_c: dict[int, float] = {}
        out_p: dict[int, list] = {}
        if len(gi) == 0:
            return out_c, out_p
        c = np.asarray([cs.core[k][0] for k in q]).reshape(-1, 2)
        rho = cs.rho[q]
        S = self.start[None] - c
        G = goals[gi] - c
        ds = np.hypot(S[:, 0], S[:, 1])
        dg = np.hypot(G[:, 0], G[:, 1])
        a_s = np.arctan2(S[:, 1], S[:, 0])
        cr = S[:, 0] * G[:, 1] - S[:, 1] * G[:, 0]
        dot = S[:, 0] * G[:, 0] + S[:, 1] * G[:, 1]
        th = np.arctan2(np.abs(cr), dot)
        sig = np.where(cr >= 0, 1.0, -1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            bs = np.arccos(np.clip(rho / ds, -1.0, 1.0))
            bg = np.arccos(np.clip(rho / dg, -1.0, 1.0))
        phi = th - bs - bg
        good = (phi > 0) & (ds >= rho - TOL) & (dg >= rho - TOL)
        n1 = a_s + sig * bs
        n2 = a_s + sig * (th - bg)
        T1 = c + rho[:, None] * np.stack([np.cos(n1), np.sin(n1)], axis=-1)
        T2 = c + rho[:, None] * np.stack([np.cos(n2), np.sin(n2)], axis=-1)
        # the pieces as built (their own lengths, so the parts add up to the whole)
        l1 = np.hypot(*(T1 - self.start[None]).T)
        l2 = np.hypot(*(goals[gi] - T2).T)
        length = l1 + l2 + rho * phi
        good &= length <= self.limit
        k = np.flatnonzero(good)
        if len(k) == 0:
            return out_c, out_p
        chk = _Checker(cs, self.graph.qs, self.ctx.box, np.empty(0, dtype=int))
        Sx = np.repeat(self.start[None], len(k), axis=0)
        b1, c1, _ = chk.segments(Sx, T1[k])
        b2, c2, _ = chk.segments(T2[k], goals[gi[k]])
        a0 = np.where(sig[k] > 0, n1[k], n2[k])
        # the arc runs on its own C-obstacle's boundary: judge it against the others only
        b3o, c3o = chk.arcs_skipping(c[k], rho[k], a0, phi[k], q[k])
        if chk.unsure:
            # an arc's clearance from an oval stayed undecided (counted as blocked): the
            # closed form may have been refused wrongly, so no result here is proven
            self._around_unsure = True
        cost = length[k] + c1 + c2 + c3o
        fine = ~(b1 | b2 | b3o)
        for j in np.flatnonzero(fine):
            i = int(k[j])
            g = int(gi[i])
            if g in out_c and out_c[g] <= float(cost[j]):
                continue
            out_c[g] = float(cost[j])
            if want_paths:
                s0 = (float(self.start[0]), float(self.start[1]))
                t1 = (float(T1[i, 0]), float(T1[i, 1]))
                t2 = (float(T2[i, 0]), float(T2[i, 1]))
                gg = (float(goals[g, 0]), float(goals[g, 1]))
                ps = [
                    Piece("line", s0, t1, float(l1[i])),
                    Piece("arc", t1, t2, float(rho[i] * phi[i]), (float(c[i, 0]), float(c[i, 1])), float(rho[i]), bool(sig[i] > 0)),
                    Piece("line", t2, gg, float(l2[i])),
                ]
                out_p[g] = [p for p in ps if p.length > 0]
        return out_c, out_p

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
        smooth: set[int] = set()  # solved round one smooth C-obstacle: exact as built
        self._around_unsure = False
        last_margin = 40.0 * eps + 0.05
        for margin in (4.0 * eps + 1e-3, last_margin):
            if not todo:
                break
            defer: set[int] = set()
            near = self._near(todo, margin)
            if margin == 4.0 * eps + 1e-3:
                # most goals wrap a single round C-obstacle: the closed form round each
                # one of the nearby C-obstacles first. The shortest path round one of
                # them alone is never longer than the shortest round all of them, so
                # where it is clear of all of them it is that shortest path.
                pg = [g for g, k in near.items() for _ in k]
                pq = [q for k in near.values() for q in k]
                if pg:
                    one = list(near)
                    self._around_unsure = False
                    fc, fp = self._around_one(goals, pg, pq, want_paths)
                    for g in one:
                        if g in fc and fc[g] <= float(graph_cost[g]) + 1e-9:
                            rc[g], rx[g] = fc[g], True
                            if want_paths:
                                rp[g] = fp[g]
                    near = {g: k for g, k in near.items() if g not in rc}
                    # the same round one smooth (oval-involved) C-obstacle
                    sg = [g for g, k in near.items() for q in k if not cs.exact[q]]
                    sq = [q for k in near.values() for q in k if not cs.exact[q]]
                    if sg:
                        fc, fp = around_smooth(self, goals, sg, sq, want_paths)
                        for g in fc:
                            if fc[g] <= float(graph_cost[g]) + 1e-9:
                                rc[g], rx[g] = fc[g], True
                                smooth.add(g)
                                if want_paths:
                                    rp[g] = fp[g]
                        near = {g: k for g, k in near.items() if g not in rc}
                    if not near:
                        todo = {}
                        break
            # oval-involved C-obstacles near the route: the tangent graph of smooth
            # bodies (geometry/smooth_graph.py), exact when its tangents are complete
            for g in [g for g, k in near.items() if any(not cs.exact[q] for q in k)]:
                key = near[g]
                if len(key) > self.SMOOTH_MAX:
                    self.last_reason[g] = (
                        f"{len(key)} obstacles near the route, one with an oval: more than the "
                        f"{self.SMOOTH_MAX} the exact oval tangent graph takes"
                    )
                    continue  # kept bounded: beyond this the circle graph's stand-in
                sg = smooth_graph_for(self, key)
                c, pieces = sg.join(goals[g])
                if pieces is not None and c <= float(graph_cost[g]) + 1e-9:
                    rc[g], rx[g] = float(c), bool(sg.complete)
                    if sg.complete:
                        smooth.add(g)
                    else:
                        self.last_reason[g] = sg.why
                    if want_paths:
                        rp[g] = pieces
                elif not sg.complete:
                    self.last_reason[g] = sg.why
                elif pieces is None and margin < last_margin:
                    # no path round these alone: another obstacle is in the way; try
                    # the wider margin before the circumscribed polygons
                    defer.add(g)
            near = {g: k for g, k in near.items() if g not in rc and g not in defer}
            # a tangent graph over the C-obstacles these goals need: one for all of
            # them (grown over later queries) while that stays small, else one per
            # distinct set, so that no graph grows with the table
            union = frozenset().union(*near.values()) | self._eg_key
            if len(union) <= self.UNION_MAX:
                groups = {union: list(near)}
            else:
                groups = {}
                for g, key in near.items():
                    groups.setdefault(key, []).append(g)
            for key, gs in groups.items():
                eg = self._exact_graph(key)
                for j0 in range(0, len(gs), self.JOIN_CHUNK):
                    part = gs[j0 : j0 + self.JOIN_CHUNK]
                    c, hw = eg.join(goals[np.asarray(part, dtype=int)])
                    for k, g in enumerate(part):
                        if np.isfinite(c[k]) and c[k] <= float(graph_cost[g]) + 1e-9:
                            rc[g] = float(c[k])
                            rx[g] = bool(all(cs.exact[q] for q in near[g]))
                            if not rx[g]:
                                self.last_reason.setdefault(
                                    g, "an oval-involved obstacle near the route was taken as its circumscribed polygon")
                            if eg._oval_checker.unsure:
                                rx[g] = False
                                self.last_reason.setdefault(
                                    g, "an arc's clearance from an oval-involved obstacle stayed undecided")
                            if want_paths:
                                rp[g] = eg.pieces(goals[g], hw[k])
            todo = {g: p for g, p in todo.items() if g not in rc}
        if self._around_unsure:
            for g in rc:
                if rx[g]:
                    rx[g] = False
                    self.last_reason[g] = "an arc's clearance from an oval-involved obstacle stayed undecided"
        for g in rc:
            if want_paths and g in rp and g not in smooth:
                # an ellipse-involved obstacle near the final path was judged by its
                # circumscribed stand-in: the path is valid but maybe not the shortest
                if rx[g]:
                    why = _Checker(cs, self.graph.qs, self.ctx.box, np.empty(0, int)).exact_near(rp[g])
                    if why:
                        rx[g] = False
                        self.last_reason[g] = why
        return rc, rp, rx


__all__ = ["CostField"]
