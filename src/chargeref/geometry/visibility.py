"""The tangent visibility graph over circumscribed C-obstacle polygons (the planner's
first stage; see :mod:`chargeref.geometry.paths`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from .. import budget
from .convex_distance import solve
from .cspace import (
    _ANG_EPS,
    _MERGE_R,
    _ON_LINE,
    _TWO_PI,
    _closest_between,
    _CSet,
    _in_box,
    _intersect,
    _merge_normals,
    _unit,
)
from .shapes import (
    TOL,
)

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
        #: C-obstacles the graph's checks may judge by their circumscribed polygon
        #: (``_CSet.sd_pairs``): all hard curved ones but those of an open narrow passage
        self.loose: bool | np.ndarray = True
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
            loose=self.loose,
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
                    A, B, m1, self.nbr_ptr, self.nbr, self.qs[m1], loose=self.loose
                )
            else:
                owners = np.stack([self.qs[m1], self.qs[m2]], axis=1)
                blocked, climb, _, _ = cs.assess(A, B, self.qs, owners=owners, loose=self.loose)
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
        self._oval_gap_normals(out)
        return out

    def _oval_gap_normals(self, out: dict[int, list[float]]) -> None:
        """The same for pairs with an oval-involved C-obstacle (no exact core). Such a
        C-obstacle's polygon lies inside its bounding circle (``cs.radius`` is the
        polygon's), so two whose circles are apart (allowing an exact partner its own
        slack) cannot be closed together. For the rest the signed distance of the true
        bodies is certified (``convex_distance.solve``, to 1e-9) and, where they do not
        overlap beyond TOL, its best direction ``w`` is inserted into both polygons:
        the tangent lines of normals ``w`` and ``−w`` then stand ``φ(w)`` apart (the
        certified lower bound, positive when the bodies are apart), so neither polygon
        reaches the other and the passage between them stays open."""
        cs = self.cs
        qs = self.qs
        M = len(qs)
        if M < 2 or cs.exact[qs].all():
            return
        sec1 = 1.0 / math.cos(math.pi / cs.n) - 1.0
        slack = np.where(cs.exact[qs], cs.rho[qs] * sec1, 0.0) + 1e-12
        c = cs.centre[qs]
        R = cs.radius[qs]
        inexact = np.flatnonzero(~cs.exact[qs])
        for a in inexact:
            # every partner of a (inexact partners once: the lower index first)
            d = np.hypot(*(c - c[a]).T)
            near = d - R - R[a] < slack + TOL
            near[a] = False
            near[inexact[inexact < a]] = False
            for b in np.flatnonzero(near):
                budget.check()
                qa, qb = int(qs[a]), int(qs[b])
                cert = solve(
                    lambda U, q=qa: cs.support(q, U),
                    lambda U, q=qb: cs.support(q, U),
                    seeds=np.asarray([math.atan2(*(c[b] - c[a])[::-1])]),
                )
                if cert.value < -TOL:
                    continue  # they overlap: no passage between them
                th = math.atan2(float(cert.w[1]), float(cert.w[0]))
                if not isinstance(self.loose, np.ndarray):
                    self.loose = np.ones(cs.Q, dtype=bool)
                # the polygon no longer stands in for it near the passage: judged exactly
                self.loose[[q for q in (qa, qb) if not cs.exact[q]]] = False
                out.setdefault(int(a), []).append(th)
                out.setdefault(int(b), []).append(th + math.pi)

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


