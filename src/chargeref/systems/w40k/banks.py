"""Judging candidate spots of the 40k placement search: everything about a spot that
depends only on the base's shape (a "bank" row): on the board, clear of terrain no base
may end on and of other units' models, out of engagement range of non-targets, and for
each target whether it is in base contact, in engagement range, how far, and whether it
can be fought across a ruin wall or barricade.

A mixin of ``ChargeProblem`` (solver.py), split out by responsibility: it reads the
problem's world, targets, blockers and features and builds ``Bank`` values; the search
itself lives in solver.py and the spot construction in spots.py.
"""

from __future__ import annotations

import numpy as np

from ...geometry.shapes import ConvexPolygon, Footprint
from .solver_base import (
    EPS,
    OUT_MARGIN,
    Bank,
    _segments_cross,
    _segments_cross_from,
    pair_norm,
    sd_many,
)
from .world import Model


class BankBuilder:
    """Bank rows of candidate spots (mixed into ``ChargeProblem``)."""

    def _bank(self, m: Model, pts: np.ndarray, z: np.ndarray | None = None, drop: bool = False) -> Bank:
        """Everything about spots that depends only on the base's shape (``z``: the
        level of each spot, the ground by default). ``drop``: leave out the spots where
        the base does not fit (see grow)."""
        w = self.w
        r = w.rules
        k = len(pts)
        nT = len(self.targets)
        z = w.ground_z(pts) if z is None else z
        ok = np.ones(k, dtype=bool)
        for part in m.fp.parts:  # wholly on the board
            off = part.support(np.array([[1.0, 0], [-1.0, 0], [0, 1.0], [0, -1.0]])) - m.xy
            ok &= (pts[:, 0] + off[0, 0] <= w.board[0] + EPS) & (pts[:, 0] + off[1, 0] >= -EPS)
            ok &= (pts[:, 1] + off[2, 1] <= w.board[1] + EPS) & (pts[:, 1] + off[3, 1] >= -EPS)
        if self.blockers and k:  # terrain no base may end on
            # perf: the enclosing-circle test of every blocker at once (pair_norm is the
            # same bits as the norm of each difference); the exact test only where a
            # spot still fits and its base's circle reaches the blocker's
            BC, BR = self._blocker_circles
            near = pair_norm(pts, BC) <= BR[None, :] + m.fp.radius + 1e-9
            for j in np.flatnonzero(near.any(axis=0)):
                sub = np.flatnonzero(ok & near[:, j])
                if len(sub):
                    ok[sub] &= sd_many(m.fp, pts[sub], self.blockers[j].fp) >= -EPS
        ok &= self._fits_among_others(m, pts, z)
        if drop:
            keep = np.flatnonzero(ok)
            pts, z, ok = pts[keep], z[keep], ok[keep]
            k = len(pts)
        contact = np.zeros(k, dtype=bool)
        er = np.zeros((k, nT), dtype=bool)
        dist = np.full((k, nT), np.inf)
        if m.fp.is_disc and self.t_disc.all() and len(self.all_targets):
            # all round: one matrix of exact distances
            SD = pair_norm(pts, self.t_c) - m.fp.radius - self.t_r[None]
            DZ = np.abs(z[:, None] - self.t_z[None])
            contact = np.any((SD <= EPS) & (DZ <= 1e-9), axis=1)
            ERM = (SD <= r.er + EPS) & (DZ <= r.er_v)
            SDp = np.maximum(SD, 0.0)
            for j in range(nT):
                cols = self.target_col == j
                er[:, j] = ERM[:, cols].any(axis=1)
                dist[:, j] = SDp[:, cols].min(axis=1)
        else:
            for t, j in zip(self.all_targets, self.target_col, strict=True):
                sd = sd_many(m.fp, pts, t.fp)
                dz = np.abs(z - t.z)
                contact |= (sd <= EPS) & (dz <= 1e-9)
                er[:, j] |= (sd <= r.er + EPS) & (dz <= r.er_v)
                dist[:, j] = np.minimum(dist[:, j], np.maximum(sd, 0.0))
        tok = np.zeros((k, nT), dtype=bool)
        bar = np.zeros((k, nT), dtype=bool)
        two = 2.0 * r.inch
        for part, _, kind in self.across:
            # touching the feature (as close as it can be) ...
            if m.fp.is_disc and k:
                # perf: only bases whose circle comes within EPS of the part's enclosing
                # circle can touch it (the distance between the two is at least the
                # centre distance less both radii; 1e-9 more covers the rounding)
                touch = np.zeros(k, dtype=bool)
                cand = np.flatnonzero(pair_norm(pts, part.center[None])[:, 0] - part.radius - m.fp.radius <= EPS + 1e-9)
                if len(cand):
                    touch[cand] = np.abs(sd_many(m.fp, pts[cand], Footprint((part,)))) <= EPS
            else:
                touch = np.abs(sd_many(m.fp, pts, Footprint((part,)))) <= EPS
            if not touch.any():
                continue
            A, B = self._edges_of(part)
            tgt = tok if kind == "token" else bar
            if m.fp.is_disc and self.t_disc.all():
                # perf: every (touching spot, target model) pair at once, with the
                # arithmetic of the loop below: sd_many's closed form for two discs
                # (centre distance less both radii), the same height test, and the
                # crossing test of each spot's segment from its target's centre
                idx = np.flatnonzero(touch)
                sd = pair_norm(pts[idx], self._t_pc) - m.fp.parts[0].r - self._t_pr[None, :]
                near = (sd <= two + EPS) & (np.abs(z[idx][:, None] - self.t_z[None, :]) <= r.er_v)
                if kind == "barricade":
                    near &= self._near_barricade(part)[None, :]
                pi, ti = np.nonzero(near)
                if len(pi):
                    across = np.any(_segments_cross_from(self.t_c[ti], pts[idx[pi]], A, B), axis=1)
                    tgt[idx[pi[across]], self.target_col[ti[across]]] = True
                continue
            for t, j in zip(self.all_targets, self.target_col, strict=True):
                if kind == "barricade" and sd_many(t.fp, t.xy[None], Footprint((part,)))[0] > r.er + EPS:
                    continue  # a barricade charge is against an enemy within 1" of it
                idx = np.nonzero(touch)[0]
                sd = sd_many(m.fp, pts[idx], t.fp)
                near = (sd <= two + EPS) & (np.abs(z[idx] - t.z) <= r.er_v)
                if not near.any():
                    continue
                idx = idx[near]
                # ... and the target on its far side: the line between them crosses it
                across = np.any(_segments_cross(t.xy, pts[idx], A, B), axis=1)
                tgt[idx[across], j] = True
        return Bank(pts, z, ok, contact, er, dist, tok, bar)

    def _edges_of(self, part: ConvexPolygon) -> tuple[np.ndarray, np.ndarray]:
        """A feature part's edges: their starts (the vertices) and ends (the vertices
        rolled by one), kept per part (perf: np.roll is the same copy every time)."""
        memo = self.__dict__.setdefault("_edges_memo", {})
        hit = memo.get(id(part))
        if hit is None:
            hit = memo[id(part)] = (part, part.V, np.roll(part.V, -1, axis=0))
        return hit[1], hit[2]

    def _near_barricade(self, part: ConvexPolygon) -> np.ndarray:
        """For each target model: is it within engagement range of this barricade
        part (a charge across a barricade is against such a model)? Kept per part."""
        memo = self.__dict__.setdefault("_barricade_memo", {})
        hit = memo.get(id(part))
        if hit is None:
            pf = Footprint((part,))
            er = self.w.rules.er
            hit = memo[id(part)] = (part, np.array([not (sd_many(t.fp, t.xy[None], pf)[0] > er + EPS) for t in self.all_targets], dtype=bool))
        return hit[1]

    def _fits_among_others(self, m: Model, pts: np.ndarray, z: np.ndarray) -> np.ndarray:
        """No overlap with other units' models at the same level, and never within
        engagement range of an enemy unit that is not a target."""
        r = self.w.rules
        ok = np.ones(len(pts), dtype=bool)
        if len(self.other_models) == 0:
            return ok
        # perf: the round other models' centres, radii, levels and non-target flags,
        # the others and the non-target ids, taken once per problem (they do not change)
        memo = self.__dict__.get("_others_memo")
        if memo is None:
            d = self.o_disc
            memo = self._others_memo = (
                self.o_c[d], self.o_r[d][None], self.o_z[d][None], self.o_nt[d][None],
                [o for o, dd in zip(self.other_models, d, strict=True) if not dd], {o.id for o in self.nontarget_models},
            )
        oc, orr, oz, ont, rest_nd, nt_ids = memo
        if m.fp.is_disc and len(oc):
            rm = m.fp.radius
            sd = pair_norm(pts, oc) - rm - orr
            dz = np.abs(z[:, None] - oz)
            bad = (sd < -EPS) & (dz <= 1e-9)
            bad |= ont & (sd <= r.er + OUT_MARGIN) & (dz <= r.er_v + OUT_MARGIN)
            ok &= ~bad.any(axis=1)
            rest = rest_nd
        else:
            rest = self.other_models
        for o in rest:
            idx = np.nonzero(ok)[0]
            if len(idx) == 0:
                break
            near = np.linalg.norm(pts[idx] - o.xy, axis=1) <= o.fp.radius + m.fp.radius + r.er + 1e-6
            if not near.any():
                continue
            sub = idx[near]
            sd = sd_many(m.fp, pts[sub], o.fp)
            dz = np.abs(z[sub] - o.z)
            bad = (sd < -EPS) & (dz <= 1e-9)
            if o.id in nt_ids:
                bad |= (sd <= r.er + OUT_MARGIN) & (dz <= r.er_v + OUT_MARGIN)
            ok[sub] &= ~bad
        return ok
