"""Candidate end spots of the model-by-model moves (split from settle.py): the spots
built round the enemy models within reach, the linking spots of the mates' coherency
loci, the arrangement of circles for token models, the point where the budget runs out
on the shortest path toward a better end, and the engine's judgement of each spot
(:meth:`SettleSpots.evaluate`). A mixin of :class:`~.settle.Settle`, which holds the
state it reads (``eng``, ``enemies``, ``closest``, ``d0``, ``budget`` ...)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ... import budget
from ...geometry.measure import piece_from_dict
from ...geometry.pivot import pivotable
from ...geometry.placement import (
    arrangement_points,
    locus_nearest,
    nearest_spots,
    pair_crossings,
    reach_crossings,
)
from ...geometry.shapes import TOL, Ellipse, Footprint
from .settle_base import (
    CLOSER_MARGIN,
    EPS,
    FORBID_CLEAR,
    HAIR,
    Opts,
    Plan,
    _point_along,
    _pt,
    ray_locus_crossings,
)
from .settle_pivots import with_turns
from .spots import SpotBuilder
from .world import Model


class SettleSpots:
    """Where each model of a model-by-model move may end (mixin of ``Settle``)."""

    def _near_enemies(self, m: Model) -> list[Model]:
        reach = self.budget + self.er + 2.0 * m.fp.radius
        return [e for e in self.enemies if float(np.linalg.norm(e.xy - m.xy)) - e.fp.radius - m.fp.radius <= reach]

    def _raw_spots(self, m: Model) -> np.ndarray:
        """Constructed candidate centres: the engine's spots for this base within the
        move's reach (contact and engagement loci round the enemy models, their
        crossings, tangent spots round obstacles); round every enemy model within
        reach, the base-contact and engagement-edge spots nearest the start, where
        those loci cross the full move's circle round the start, the spots packed
        between two enemy bases or against terrain no base may end on; and the straight
        approach toward the closest enemy model(s)."""
        budget.check()
        gaps = self._gaps()
        near = self._near_enemies(m)
        fps = [e.fp for e in near]
        bank = self.eng.banks[self.eng.keys[m.id]]
        own = bank.pts[np.linalg.norm(bank.pts - m.xy, axis=1) <= self.budget + EPS]
        out: list[np.ndarray] = [m.xy[None], own]
        out.append(nearest_spots(m.fp, fps, gaps, m.xy[None]))
        out.append(reach_crossings(m.fp, fps, gaps, m.xy, self.budget - HAIR))
        walls = [f.fp for f in self.blockers if float(np.linalg.norm(f.fp.center - m.xy)) <= f.fp.radius + self.budget + 2 * m.fp.radius]
        pf = self._few(m, fps)
        out.append(pair_crossings(m.fp, pf, gaps, pf, [HAIR]))
        out.append(pair_crossings(m.fp, pf, gaps, self._few(m, walls), [HAIR]))
        for e in self.closest[m.id]:
            contact = locus_nearest(m.fp, e.fp, HAIR, m.xy)
            if len(contact) == 0:
                continue
            w = contact[0] - m.xy
            L = float(np.linalg.norm(w))
            if L > 0:
                out.append(contact)
                if L > self.budget:
                    out.append(m.xy + w * ((self.budget - HAIR) / L))
                out.append(self._along(m, w, near, gaps))
        return np.vstack([x.reshape(-1, 2) for x in out])

    def _along(self, m: Model, w: np.ndarray, near: list[Model], gaps: list[float]) -> np.ndarray:
        """Spots on the straight approach from the model's start along ``w`` (toward
        the closest enemy model's contact spot) where the model meets a locus: the
        contact and engagement-edge loci of each enemy model within reach (and the
        edge of a forbidden engagement range), and the contact locus of every other
        model or terrain piece no base may cross near the way (the last spot before
        it, a hair short). Where the way is open the model goes as far as a locus it
        wants; where something stands in it, as far as it can."""
        spots = [ray_locus_crossings(m.fp, e.fp, g, m.xy, w) for e in near for g in gaps]
        L = float(np.linalg.norm(w))
        reach = L + 2.0 * m.fp.radius
        mid = m.xy + 0.5 * w
        for o in [o.fp for o in self.others if o.id not in {e.id for e in near}] + [f.fp for f in self.blockers]:
            if float(np.linalg.norm(o.center - mid)) > o.radius + 0.5 * reach:
                continue
            hit = ray_locus_crossings(m.fp, o, HAIR, m.xy, w)
            if len(hit):
                t = (hit - m.xy) @ w / (L * L)
                first = float(t.min())
                if first > HAIR / L:
                    spots.append(m.xy[None] + w[None] * (first - HAIR / L))
        return np.vstack([x.reshape(-1, 2) for x in spots]) if spots else np.zeros((0, 2))

    def _gaps(self) -> list[float]:
        """The gaps to an enemy model at which spots are built: base contact and the
        engagement edge (a hair inside) and, when the rules forbid engagement ranges,
        just outside the forbidden zone (as close as a model may come)."""
        out = [HAIR, self.er - HAIR]
        if self.rules.forbid:
            out.append(self.er + FORBID_CLEAR)
        return out

    @staticmethod
    def _few(m: Model, fps: list[Footprint]) -> list[Footprint]:
        """All footprints when the crossings have closed forms (round mover, round or
        polygonal others); otherwise (ovals: the root finder) the three nearest."""
        if m.fp.is_disc and all(f.is_disc or (len(f.parts) == 1 and not isinstance(f.parts[0], Ellipse)) for f in fps):
            return fps
        return sorted(fps, key=lambda f: float(np.linalg.norm(f.center - m.xy)))[:3]

    def _link_spots(self, m: Model, plan: Plan) -> np.ndarray:
        """Constructed spots that link to the unit's other models where they stand:
        their coherency and packing loci crossed with the enemy loci and with each
        other (two links), the linking spot nearest the start, and the model's start
        moved as each mate has moved (the unit advancing as one body)."""
        budget.check()
        coh = self.w.rules.coh - HAIR
        mates = []
        for q in self.models:
            if q.id == m.id:
                continue
            if float(np.linalg.norm(plan.pos[q.id] - m.xy)) > self.budget + coh + m.fp.radius + q.fp.radius:
                continue
            mates.append(self.placed(q.id, plan).fp.moved_to(_pt(plan.pos[q.id])))
        # the unit moved as one body: this model's start moved as each mate has moved
        body = [m.xy + (plan.pos[q.id] - q.xy) for q in self.models if q.id in plan.moved and q.id != m.id]
        if not mates:
            return np.array(body).reshape(-1, 2)
        near = self._near_enemies(m)
        fps = [e.fp for e in near]
        if not (m.fp.is_disc and all(f.is_disc for f in fps + mates)):
            # shapes that need the root finder (this runs for every model on every pass
            # of the search, so with the three nearest mates and enemy models): the
            # coherency locus of each mate nearest the start and nearest each closest
            # enemy model's contact spot, where the straight approach toward that
            # spot meets it, and where two such loci (or one and an enemy's contact
            # or engagement edge) cross
            fm = self._few(m, mates)
            fe = self._few(m, fps)
            out = [
                np.array(body).reshape(-1, 2),
                nearest_spots(m.fp, mates, [coh], m.xy[None]),
                pair_crossings(m.fp, fm, [coh, HAIR], fe, [HAIR, self.er - HAIR]),
                pair_crossings(m.fp, fm, [coh, HAIR], fm, [coh, HAIR]),
            ]
            for e in self.closest[m.id]:
                contact = locus_nearest(m.fp, e.fp, HAIR, m.xy)
                if len(contact) == 0:
                    continue
                out.append(nearest_spots(m.fp, fm, [coh], contact))
                w = contact[0] - m.xy
                if float(np.linalg.norm(w)) > 0:
                    out += [ray_locus_crossings(m.fp, q, coh, m.xy, w) for q in fm]
            return np.vstack([x.reshape(-1, 2) for x in out])
        out = [
            np.array(body).reshape(-1, 2),
            pair_crossings(m.fp, mates, [coh, HAIR], fps, [HAIR, self.er - HAIR]),
            pair_crossings(m.fp, mates, [coh, HAIR], mates, [coh, HAIR]),
            nearest_spots(m.fp, mates, [coh], m.xy[None]),
        ]
        # the straight approach toward each closest enemy model's contact spot, as far
        # as each mate's coherency (or packing) circle lets it go (closed forms)
        for e in self.closest[m.id]:
            contact = locus_nearest(m.fp, e.fp, HAIR, m.xy)
            if len(contact) and float(np.linalg.norm(contact[0] - m.xy)) > 0:
                w = contact[0] - m.xy
                out += [ray_locus_crossings(m.fp, q, g, m.xy, w) for q in mates for g in (coh, HAIR)]
        if m.id in self.dense and m.fp.is_disc and all(f.is_disc for f in fps + mates):
            out.append(self._arrangement(m, near, mates))
        return np.vstack([x.reshape(-1, 2) for x in out])

    def _arrangement(self, m: Model, near: list[Model], mates: list[Footprint]) -> np.ndarray:
        """Round bases only: every circle that bounds where the model may end (enemy
        contact and engagement edges, other bases, the full move round the start, the
        "ends closer" limit round the closest enemy models, coherency with the mates
        where they stand) and the vertices of their arrangement (geometry/placement.py):
        if any spot satisfies them all, one of these does."""
        rm = m.fp.radius
        coh = self.w.rules.coh - HAIR
        C: list[np.ndarray] = [m.xy]
        R: list[float] = [self.budget - HAIR]
        for e in near:
            C += [e.xy, e.xy]
            R += [rm + e.fp.radius + HAIR, rm + e.fp.radius + self.er - HAIR]
        for e in self.closest[m.id]:
            C.append(e.xy)
            R.append(rm + e.fp.radius + self.d0[m.id] - 2 * CLOSER_MARGIN)
        for o in self.others:
            if o.fp.is_disc and float(np.linalg.norm(o.xy - m.xy)) <= self.budget + o.fp.radius + rm:
                C.append(o.xy)
                R.append(rm + o.fp.radius + HAIR)
        for q in mates:
            C += [q.center, q.center]
            R += [rm + q.radius + coh, rm + q.radius + HAIR]
        return arrangement_points(np.array(C), np.array(R), m.xy[None])

    def evaluate(self, m: Model, pts: np.ndarray) -> Opts:
        """Usable end spots among ``pts``, judged by the engine: the base fits there
        (board, terrain, other models, the zones the rules forbid), its path (exact,
        climbing counted) is within the budget and, for a real move, it ends closer to
        an enemy model that was closest at the start."""
        if len(pts) == 0 or not self.enemies or self.elevated(m):
            none = np.zeros(0)
            return Opts(np.zeros((0, 2)), none, none, none.astype(bool), none.astype(bool), none)
        pts = pts[np.linalg.norm(pts - m.xy, axis=1) <= self.budget + EPS]
        fl = self.floor_of(m)
        if fl is None:
            b = self.eng._bank(m, pts)
        else:
            # a model on a ruin floor moves on that floor: spots where its whole base
            # rests on it, at its height (no climbing; paths as on the ground, with
            # every model in the way, a conservative reading)
            pts = pts[SpotBuilder._base_on_floor(m, pts, fl[0])] if len(pts) else pts
            b = self.eng._bank(m, pts, np.full(len(pts), fl[1]))
        here = np.linalg.norm(pts - m.xy, axis=1) <= 1e-12
        ok = b.ok | here  # where it stands is always a place to be
        gap = np.full(len(pts), np.inf)
        for e in self.closest[m.id]:
            gap = np.minimum(gap, self._gap(m, pts, b.z, e))
        # A model that moves must end closer to the closest enemy model (rules 1.11).
        ok &= here | (gap < self.d0[m.id] - CLOSER_MARGIN)
        cost = self.eng._costs(m, replace(b, ok=ok & ~here))
        cost[here] = 0.0
        keep = ok & (cost <= self.budget + EPS)
        # base contact counts in the ranking only where the rules ask for it
        contact = b.contact if (b.er.shape[1] and self.rules.contact_first) else np.zeros(len(pts), dtype=bool)
        er = b.er.any(axis=1) if b.er.shape[1] else np.zeros(len(pts), dtype=bool)
        return Opts(pts[keep], b.z[keep], cost[keep], contact[keep], er[keep], gap[keep])

    def _dense_spots(self, m: Model) -> np.ndarray:
        """Extra candidates for a token model, whose duty to pile in depends on whether
        any normal legal position is in reach: besides the spots of ``_raw_spots``, the
        ends of every reachable arc of each enemy's engagement edge and contact locus
        (crossings with the move's circle, with other bases and with terrain), so an
        existing reachable position is found whenever the region within reach is not
        cut off by paths longer than the straight line."""
        gaps = self._gaps()
        fps = [e.fp for e in self._near_enemies(m)]
        others = [o.fp for o in self.others if float(np.linalg.norm(o.xy - m.xy)) <= self.budget + self.er + 4 * m.fp.radius]
        out = [
            pair_crossings(m.fp, self._few(m, fps), gaps, self._few(m, others), [HAIR]),
            reach_crossings(m.fp, fps, gaps, m.xy, self.budget - HAIR),
        ]
        return np.vstack([x.reshape(-1, 2) for x in out])

    def options(self, m: Model) -> Opts:
        o = self._base_opts.get(m.id)
        if o is None:
            pts = self._raw_spots(m)
            if m.id in self.dense:
                pts = np.vstack([pts, self._dense_spots(m)])
            o = self.evaluate(m, pts)
            # no spot can be closer than the start's distance less the budget (the gap
            # changes no faster than the base moves): only short of that bound is it
            # worth looking along the shortest paths for the point where the budget ends
            bound = max(0.0, self.d0[m.id] - self.budget)
            best = float(np.min(o.gap)) if len(o) else math.inf
            if not o.contact.any() and best > bound + 10 * TOL:
                far = self.evaluate(m, self._reach_spots(m, pts))
                if len(far):
                    o = o.joined(far)
            if self.pivots and pivotable(m.fp) and self.floor_of(m) is None and not self.elevated(m):
                # a non-round base may turn where that reaches what it cannot unturned
                o = with_turns(self, m, o)
            self._base_opts[m.id] = o
        return o

    def _reach_spots(self, m: Model, pts: np.ndarray, goals: int = 3) -> np.ndarray:
        """Where the budget runs out on the shortest path toward a better end beyond it:
        for the (up to ``goals``) constructed spots closest to the enemy models of the
        rules' reference that fit but that the move cannot reach, the point of the
        planner's exact path (lines and arcs) at the budget. A prefix of a shortest
        path is a shortest path, so that point costs the budget exactly (paths without
        climbing only). On the ground only."""
        if self.floor_of(m) is not None or len(pts) == 0 or not self.closest[m.id]:
            return np.zeros((0, 2))
        pts = pts[np.linalg.norm(pts - m.xy, axis=1) <= 2.0 * self.budget]
        b = self.eng._bank(m, pts)
        gap = np.full(len(pts), np.inf)
        for e in self.closest[m.id]:
            gap = np.minimum(gap, self._gap(m, pts, b.z, e))
        cand = np.nonzero(b.ok & (gap < self.d0[m.id] - CLOSER_MARGIN))[0]
        if len(cand) == 0:
            return np.zeros((0, 2))
        field = self.eng.planner.field(m.fp, budget=2.0 * self.budget)
        cost = np.asarray(field.cost(pts[cand]), dtype=float)
        keep = np.isfinite(cost) & (cost > self.budget + EPS)
        cand, cost = cand[keep], cost[keep]
        out = []
        for i in cand[np.lexsort((cost, np.round(gap[cand] / TOL)))][:goals]:
            budget.check()
            pr = field.path((float(pts[i][0]), float(pts[i][1])))
            if pr is None or pr.climb > 0 or not pr.exact or pr.length <= self.budget:
                continue
            pieces = [piece_from_dict(sg) for sg in pr.segments] if pr.segments else [
                piece_from_dict({"kind": "line", "from": list(a), "to": list(c)}) for a, c in zip(pr.points[:-1], pr.points[1:], strict=True)
            ]
            q = _point_along(pieces, self.budget - HAIR)
            if q is not None:
                out.append(q)
        return np.array(out).reshape(-1, 2)

    def legal_spots(self, m: Model) -> Opts:
        """Normal legal positions a move can reach: within 1" of an enemy model."""
        o = self.options(m)
        return o.take(o.er & (np.linalg.norm(o.pts - m.xy, axis=1) > 1e-12))

