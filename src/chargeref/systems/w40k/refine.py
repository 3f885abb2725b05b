"""After a first placement of a charging unit: who is engaged, whether the unit-level
conditions hold, and the passes that improve a legal placement (base contact where a
model can still reach it; in edition 11 within 1" and engaged where it can), plus
which models were held back and who touches whom.

A mixin of ``ChargeProblem`` (solver.py), split out by responsibility: the search
there finds a legal placement; the methods here judge and refine one. They read the
problem's banks, costs, targets and rules and never build candidate spots of their own
beyond asking the spot builder.
"""

from __future__ import annotations

import math

import numpy as np

from ... import budget
from ...geometry.shapes import Footprint
from .solver_base import (
    BUDGET_SLACK,
    EPS,
    LOCUS_HAIR,
    OUT_MARGIN,
    Bank,
    Placement,
    _segments_cross,
    coherent,
    pair_norm,
    sd_many,
)
from .world import Model


class Refiner:
    """Judging and improving a placement (mixed into ``ChargeProblem``)."""

    def _against(self, m: Model, pts: np.ndarray, z: np.ndarray, placed: list[tuple[Model, np.ndarray, float]]) -> tuple[np.ndarray, np.ndarray]:
        """For spots of a base like m: overlap with any placed model, and the number of
        coherency links to placed models."""
        r = self.w.rules
        no = np.zeros(len(pts), dtype=bool)
        nl = np.zeros(len(pts), dtype=int)
        if not placed or len(pts) == 0:
            return no, nl
        if m.fp.is_disc and all(q.fp.is_disc for q, _, _ in placed):
            C = np.array([p for _, p, _ in placed])
            rq = np.array([q.fp.radius for q, _, _ in placed])
            Z = np.array([zq for _, _, zq in placed])
            SD = pair_norm(pts, C) - m.fp.radius - rq[None]
            DZ = np.abs(z[:, None] - Z[None])
            no = np.any((SD < -EPS) & (DZ <= 1e-9), axis=1)
            nl = np.sum((SD <= r.coh) & (DZ <= r.coh_v), axis=1)
            return no, nl
        for q, p, zq in placed:
            sd = self._sd_at(m, pts, q, p)
            dz = np.abs(z - zq)
            no |= (sd < -EPS) & (dz <= 1e-9)
            nl += (sd <= r.coh) & (dz <= r.coh_v)
        return no, nl

    def _sd_at(self, m: Model, pts: np.ndarray, q: Model, qpos: np.ndarray) -> np.ndarray:
        return sd_many(m.fp, pts, q.fp.moved_to(qpos))

    # ------------------------------------------------------------------ unit checks
    def engaged_by(self, pl: Placement, exclude: str | None = None) -> np.ndarray:
        """Which targets the placement engages (engagement range, across a barricade,
        or across a ruin wall for token models), optionally leaving one model out."""
        r = self.w.rules
        two = 2.0 * r.inch
        out = np.zeros(len(self.targets), dtype=bool)
        if self._all_disc:
            # perf: round bases: one matrix of the same distances sd_many gives (centre
            # gap less both radii), any model per target
            ms = [m for m in self.models if m.id != exclude]
            if not ms or not len(self.all_targets):
                return out
            P = np.array([pl.pos[m.id] for m in ms], dtype=float).reshape(-1, 2)
            Z = np.array([pl.z[m.id] for m in ms], dtype=float)
            rm = np.array([m.fp.parts[0].r for m in ms])
            dx = P[:, None, 0] - self._t_pc[None, :, 0]
            dy = P[:, None, 1] - self._t_pc[None, :, 1]
            sd = np.sqrt(dx * dx + dy * dy) - rm[:, None] - self._t_pr[None, :]
            level = ~(np.abs(Z[:, None] - self.t_z[None, :]) > r.er_v)
            hit = (sd <= r.er + EPS) & level
            cols = hit.any(axis=0)
            for j in range(len(self.targets)):
                out[j] = bool(cols[self.target_col == j].any())
            if self.across and not out.all():
                # a target still unengaged may be engaged across a feature: the pairs
                # within 2" (the loop below asks the same test of the same pairs; which
                # pair answers first does not change the verdict)
                for i, k in zip(*np.nonzero(level & (sd <= two + EPS)), strict=True):
                    j = int(self.target_col[k])
                    if not out[j] and self._engages_across(ms[i], P[i], self.all_targets[k], pl):
                        out[j] = True
            return out
        for m in self.models:
            if m.id == exclude:
                continue
            p = pl.pos[m.id]
            for t, j in zip(self.all_targets, self.target_col, strict=True):
                if out[j] or abs(pl.z[m.id] - t.z) > r.er_v:
                    continue
                sd = float(sd_many(m.fp, p[None], t.fp)[0])
                if sd <= r.er + EPS:
                    out[j] = True
                elif sd <= two + EPS and self.across:
                    out[j] = self._engages_across(m, p, t, pl)
        return out

    def _engages_across(self, m: Model, p: np.ndarray, t: Model, pl: Placement) -> bool:
        """Does m at p, within 2" of target model t, engage it across a feature: touching
        a barricade part with t within 1" of it, or (a token model) touching a ruin wall
        part, with t on the feature's far side (the line between them crosses it)?"""
        r = self.w.rules
        for part, _, kind in self.across:
            if kind == "token" and pl.via.get(m.id) != "token":
                continue
            if kind == "barricade" and sd_many(t.fp, t.xy[None], Footprint((part,)))[0] > r.er + EPS:
                continue
            if abs(float(sd_many(m.fp, p[None], Footprint((part,)))[0])) > EPS:
                continue
            if np.any(_segments_cross(t.xy, p[None], part.V, np.roll(part.V, -1, axis=0))):
                return True
        return False

    def unit_ok(self, pl: Placement) -> bool:
        return bool(self.engaged_by(pl).all()) and coherent(self.models, pl, self.w.rules, self.two)

    def _improve(self, pl: Placement, R: float, tokens: bool = False) -> Placement:
        """Move models not in base contact into free contact spots where every
        unit-level condition still holds (WTC step 6.A.I, overridden by 6.C)."""
        r = self.w.rules
        for _ in range(3):
            changed = False
            for m in self.models:
                if self._in_contact(m, pl.pos[m.id], pl.z[m.id]):
                    continue
                spots = self._contact_spots(m, self.all_targets, pl, R)
                if len(spots) == 0:
                    continue
                b = self._bank(m, spots)
                # it must still engage whatever the other models leave unengaged
                rest = ~self.engaged_by(pl, exclude=m.id)
                keep = b.ok & b.contact & (b.er | b.bar)[:, rest].all(axis=1)
                if self.enforce_closer:
                    keep &= np.any(b.dist < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1)
                if not keep.any():
                    continue
                spots, bz = spots[keep], b.z[keep]
                nl = np.zeros(len(spots), dtype=int)
                fine = np.ones(len(spots), dtype=bool)
                qs = [q for q in self.models if q.id != m.id]
                if qs and self._all_disc:
                    # perf: the loop below as one matrix (the same centres, moved as
                    # _sd_at moves them, and sd_many's arithmetic)
                    C = np.array([q.fp.moved_to(pl.pos[q.id]).parts[0].center for q in qs], dtype=float)
                    rq = np.array([q.fp.parts[0].r for q in qs])
                    dx = spots[:, None, 0] - C[None, :, 0]
                    dy = spots[:, None, 1] - C[None, :, 1]
                    sd = np.sqrt(dx * dx + dy * dy) - m.fp.parts[0].r - rq[None, :]
                    dz = np.abs(bz[:, None] - np.array([pl.z[q.id] for q in qs])[None, :])
                    fine &= ~np.any((sd < -EPS) & (dz <= 1e-9), axis=1)
                    nl += np.sum((sd <= r.coh) & (dz <= r.coh_v), axis=1)
                    qs = []
                for q in qs:
                    sd = self._sd_at(m, spots, q, pl.pos[q.id])
                    dz = np.abs(bz - pl.z[q.id])
                    fine &= ~((sd < -EPS) & (dz <= 1e-9))
                    nl += (sd <= r.coh) & (dz <= r.coh_v)
                if len(self.models) > 1:  # a lone model has nobody to stay coherent with
                    fine &= nl >= (2 if self.two else 1)
                spots, bz = spots[fine], bz[fine]
                if len(spots) == 0:
                    continue
                ones = np.ones(len(spots), dtype=bool)
                none = np.zeros((len(spots), 0), dtype=bool)
                cost = self._costs(m, Bank(spots, bz, ones, ones, none, none.astype(float), none, none))
                for i in np.argsort(cost):
                    if not np.isfinite(cost[i]) or cost[i] > R + BUDGET_SLACK:
                        break
                    trial = Placement(dict(pl.pos), dict(pl.z), dict(pl.cost), list(pl.order), via=dict(pl.via))
                    trial.via.pop(m.id, None)  # base contact is a normal position
                    trial.pos[m.id] = spots[i].copy()
                    trial.z[m.id] = float(bz[i])
                    trial.cost[m.id] = float(cost[i])
                    if coherent(self.models, trial, r, self.two):
                        pl = trial
                        changed = True
                        break
            if not changed:
                break
        return pl

    def _duty_level(self, m: Model, pl: Placement) -> int:
        """Edition 11's end duties for one placed model: 2 within 1" of a target model,
        1 in engagement range of one, 0 neither."""
        b = self._bank(m, pl.pos[m.id][None])
        if ((b.dist[0] <= self.w.rules.inch + EPS) & b.er[0]).any():
            return 2
        return 1 if b.er[0].any() else 0

    def _improve_within(self, pl: Placement, R: float) -> Placement:
        """Edition 11 (no base-contact duty): a model that could end within 1" of a target
        model must, and one that could end engaged must; the unit-level conditions
        (coherency, the 9" spread, every target engaged, no other unit) still override.
        Candidate spots are built at exactly 0 and 1" (and at the engagement range) from
        every target model, as for base contact."""
        r = self.w.rules
        for _ in range(3):
            budget.check()
            changed = False
            for m in self.models:
                level = self._duty_level(m, pl)
                if level == 2:
                    continue
                for want, gaps in ((2, (LOCUS_HAIR, r.inch)), (1, (r.er,))):
                    if want <= level:
                        break
                    spots = np.vstack([self._gap_spots(m, pl, R, g) for g in gaps])
                    if len(spots) == 0:
                        continue
                    b = self._bank(m, spots)
                    rest = ~self.engaged_by(pl, exclude=m.id)
                    good = ((b.dist <= r.inch + EPS) & b.er).any(axis=1) if want == 2 else b.er.any(axis=1)
                    keep = b.ok & good & (b.er | b.bar)[:, rest].all(axis=1)
                    if self.enforce_closer:
                        keep &= np.any(b.dist < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1)
                    if not keep.any():
                        continue
                    spots, bz = spots[keep], b.z[keep]
                    fine = np.ones(len(spots), dtype=bool)
                    for q in self.models:
                        if q.id != m.id:
                            sd = self._sd_at(m, spots, q, pl.pos[q.id])
                            fine &= ~((sd < -EPS) & (np.abs(bz - pl.z[q.id]) <= 1e-9))
                    spots, bz = spots[fine], bz[fine]
                    if len(spots) == 0:
                        continue
                    ones = np.ones(len(spots), dtype=bool)
                    none = np.zeros((len(spots), 0), dtype=bool)
                    cost = self._costs(m, Bank(spots, bz, ones, ones, none, none.astype(float), none, none))
                    moved = False
                    for i in np.argsort(cost):
                        if not np.isfinite(cost[i]) or cost[i] > R + BUDGET_SLACK:
                            break
                        trial = Placement(dict(pl.pos), dict(pl.z), dict(pl.cost), list(pl.order), via=dict(pl.via))
                        trial.via.pop(m.id, None)
                        trial.pos[m.id] = spots[i].copy()
                        trial.z[m.id] = float(bz[i])
                        trial.cost[m.id] = float(cost[i])
                        if coherent(self.models, trial, r, self.two):
                            pl, moved = trial, True
                            break
                    if moved:
                        changed = True
                        break
            if not changed:
                break
        return pl

    def held_back(self, pl: Placement, R: float) -> dict[str, str]:
        """Models not in base contact that could have reached a free contact spot
        within the roll, which the unit-level conditions (coherency, every target
        engaged) forbade (WTC step 6.C): model id -> target model it could have touched."""
        out: dict[str, str] = {}
        for m in self.models:
            if self._in_contact(m, pl.pos[m.id], pl.z[m.id]):
                continue
            here = pl.pos[m.id]
            # perf: every contact spot of m round t lies within the two bases' radii (and
            # a hair) of t's centre, and only spots within R + EPS of m's start are kept,
            # so a target farther than that from the start has none (exact skip)
            reach = R + BUDGET_SLACK + m.fp.radius + 2 * LOCUS_HAIR
            ts = [t for t in sorted(self.all_targets, key=lambda t: float(np.linalg.norm(t.xy - here)))
                  if math.hypot(*(t.fp.center - m.xy)) <= reach + t.fp.radius + 1e-6]
            # perf: the spots of every target are built as before, one target at a time,
            # but tested in one batch (every test is per spot); the answer is still the
            # first target, nearest first, with a spot the model can reach
            spots, owner = self._contact_spots_owned(m, ts, pl, R)
            if len(spots) == 0:
                continue
            b = self._bank(m, spots)
            keep = b.ok & b.contact
            if self.enforce_closer:
                keep &= np.any(b.dist < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1)
            spots, bz, owner = spots[keep], b.z[keep], owner[keep]
            if len(spots) == 0:
                continue
            no, _ = self._against(m, spots, bz, [(q, pl.pos[q.id], pl.z[q.id]) for q in self.models if q.id != m.id])
            spots, bz, owner = spots[~no], bz[~no], owner[~no]
            if len(spots) == 0:
                continue
            ones = np.ones(len(spots), dtype=bool)
            none = np.zeros((len(spots), 0), dtype=bool)
            cost = self._costs(m, Bank(spots, bz, ones, ones, none, none.astype(float), none, none))
            hit = owner[cost <= R + BUDGET_SLACK]
            if len(hit):
                out[m.id] = ts[int(hit.min())].id
        return out

    def _in_contact(self, m: Model, p: np.ndarray, z: float) -> bool:
        if self._all_disc:
            # perf: the same test as below, every target at once (sd_many's arithmetic)
            if not len(self.all_targets):
                return False
            dx = p[0] - self._t_pc[:, 0]
            dy = p[1] - self._t_pc[:, 1]
            sd = np.sqrt(dx * dx + dy * dy) - m.fp.parts[0].r - self._t_pr
            return bool(np.any((np.abs(z - self.t_z) <= 1e-9) & (sd <= EPS)))
        return any(abs(z - t.z) <= 1e-9 and sd_many(m.fp, p[None], t.fp)[0] <= EPS for t in self.all_targets)

    def contacts_of(self, pl: Placement) -> dict[str, list[str]]:
        """Models of other units each charger model touches at the end."""
        out: dict[str, list[str]] = {}
        if self._world_disc and self.models:
            # perf: the test below for every pair at once (sd_many's arithmetic)
            os_ = [o for o in self.w.models if o.unit != self.unit]
            if not os_:
                return {m.id: [] for m in self.models}
            C = np.array([o.fp.parts[0].center for o in os_], dtype=float)
            ro = np.array([o.fp.parts[0].r for o in os_])
            zo = np.array([o.z for o in os_])
            P = np.array([pl.pos[m.id] for m in self.models], dtype=float).reshape(-1, 2)
            dx = P[:, None, 0] - C[None, :, 0]
            dy = P[:, None, 1] - C[None, :, 1]
            rm = np.array([m.fp.parts[0].r for m in self.models])
            sd = np.sqrt(dx * dx + dy * dy) - rm[:, None] - ro[None, :]
            zm = np.array([pl.z[m.id] for m in self.models])
            hit = (np.abs(zm[:, None] - zo[None, :]) <= 1e-9) & (sd <= EPS * 10)
            return {m.id: [os_[int(k)].id for k in np.nonzero(hit[i])[0]] for i, m in enumerate(self.models)}
        for m in self.models:
            out[m.id] = [
                o.id
                for o in self.w.models
                if o.unit != self.unit
                and abs(pl.z[m.id] - o.z) <= 1e-9
                and sd_many(m.fp, pl.pos[m.id][None], o.fp)[0] <= EPS * 10
            ]
        return out
