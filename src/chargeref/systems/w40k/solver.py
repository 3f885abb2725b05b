"""Placement of a charging unit: can it succeed with a given roll, and where does every
model end?

The search follows the WTC precise procedure (seed 000, step 6), with the player's
freedom to choose the order of models used to make the charge succeed:

1. Every model gets a set of candidate end spots: exact base-contact spots and exact
   engagement-edge spots around every target model (built from support functions, so
   each is exactly at distance 0 or 1"), the exact closest-approach spot toward every
   target, and points along the straight approach. Spots around already placed models
   of the unit (tight packing and coherency links) are added as the unit forms up.
2. A spot is usable when the base fits there (board, terrain, other units' models,
   out of engagement range of every enemy unit that is not a target), its path cost
   (horizontal path, climbing, vertical change) is within the roll, and, in edition 10,
   it ends closer to a target than the model started.
3. Models are placed one at a time, always picking the best (model, spot) pair: first
   engage every target (growing a coherent chain toward targets still unengaged), then
   base contact with a target wherever a model can reach it (step 6.A.I), then as close
   as possible (step 6.A.II). Each new model must link to the models already placed,
   so the unit stays one coherent group (two links once the unit needs two).
4. The unit-level conditions (step 6.C) are checked at the end; they override base
   contact. A final pass moves any model not yet in base contact into a free contact
   spot when that keeps every unit-level condition.

``needed`` is found from a proven lower bound (the straight-line distance of the closest
model to each target's engagement range) and the least candidate cost with which the
placement succeeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...geometry.paths import Planner
from ...geometry.shapes import (
    Disc,
    Footprint,
    footprint_translations_sd,
)
from .world import CAN_USE_FLOORS, Model, World

#: internal slack: our spots sit at most this far on the generous side of a threshold,
#: far inside the contract tolerance (1e-6).
EPS = 1e-7
#: margin kept outside the engagement range of non-targets (beyond the 1e-6 tolerance).
OUT_MARGIN = 2e-6
RING = 72
FINE_RING = 360


def _unit_vecs(n: int, extra: list[np.ndarray] | None = None) -> np.ndarray:
    th = np.linspace(0, 2 * math.pi, n, endpoint=False)
    U = np.stack([np.cos(th), np.sin(th)], axis=-1)
    if extra:
        E = np.asarray(extra, dtype=float)
        E = E / np.linalg.norm(E, axis=1, keepdims=True)
        U = np.vstack([E, U])
    return U


def sd_many(mover: Footprint, pts: np.ndarray, other: Footprint) -> np.ndarray:
    """Signed distance between ``mover`` re-centred at each point and ``other``."""
    pts = np.atleast_2d(pts)
    if len(pts) == 0:
        return np.zeros(0)
    c = mover.center
    if mover.is_disc and other.is_disc:
        o = other.parts[0]
        r = mover.parts[0].r  # type: ignore[attr-defined]
        return np.linalg.norm(pts - o.center, axis=1) - r - o.radius
    return footprint_translations_sd(mover, other, pts - c)


def offset_spots(mover: Footprint, target: Footprint, d: float, U: np.ndarray) -> np.ndarray:
    """Centres where ``mover`` (translated, same facing) is exactly ``d`` from ``target``
    with common normal u, for each u in U: support_T(u) - support_M(-u) + d u, shifted
    to centres. Exact for convex parts; for several parts, each part pair is used."""
    out = []
    c = mover.center
    for tp in target.parts:
        for mp in mover.parts:
            # centre offset of this mover part relative to the footprint centre
            st = tp.support(U)
            sm = mp.support(-U) - c
            out.append(st - sm + d * U)
    return np.vstack(out)


@dataclass
class Cands:
    """Candidate end spots of one model with everything that does not depend on the
    order of placement."""

    pts: np.ndarray  # (k,2)
    z: np.ndarray  # (k,)
    cost: np.ndarray  # (k,) path + climbing + vertical
    ok: np.ndarray  # (k,) static validity
    contact: np.ndarray  # (k,) base contact with some target model
    er: np.ndarray  # (k, nT) within engagement range of target unit j
    dist: np.ndarray  # (k, nT) horizontal distance to target unit j
    closer: np.ndarray  # (k,) ends closer to some target than at start

    def take(self, mask: np.ndarray) -> Cands:
        return Cands(*(getattr(self, f)[mask] for f in ("pts", "z", "cost", "ok", "contact", "er", "dist", "closer")))

    @staticmethod
    def cat(a: Cands, b: Cands) -> Cands:
        return Cands(*(np.concatenate([getattr(a, f), getattr(b, f)]) for f in ("pts", "z", "cost", "ok", "contact", "er", "dist", "closer")))


@dataclass
class Placement:
    pos: dict[str, np.ndarray]  # model id -> xy
    z: dict[str, float]
    cost: dict[str, float]
    order: list[str]
    contacts: dict[str, list[str]] = field(default_factory=dict)

    @property
    def max_cost(self) -> float:
        return max(self.cost.values()) if self.cost else 0.0


class ChargeProblem:
    """One declared charge of ``unit`` against ``targets`` in ``world``.

    Built once; ``solve(R)`` answers for any roll R up to ``cap``.
    """

    def __init__(self, world: World, unit: str, targets: list[str], cap: float, enforce_closer: bool | None = None):
        self.w = world
        self.unit = unit
        self.targets = list(targets)
        self.cap = cap
        r = world.rules
        self.enforce_closer = (r.edition == 10 or r.wtc) if enforce_closer is None else enforce_closer
        self.models: list[Model] = list(world.unit_models[unit])
        self.tmodels: list[list[Model]] = [world.unit_models[t] for t in self.targets]
        enemies = world.enemies_of(unit)
        self.nontarget_models: list[Model] = [m for u in enemies if u not in self.targets for m in world.unit_models[u]]
        self.other_models: list[Model] = [m for m in world.models if m.unit != unit]
        self.blockers = world.end_blockers()
        self.barriers = world.barriers_for(unit)
        self.planner = Planner(self.barriers, world.board)
        self.fields = {m.id: self.planner.field(m.fp, budget=cap + world.vertical_cost(0, 0) + 1e-9) for m in self.models}
        self.two = world.rules.needs_two(len(self.models))
        self.kws = world.unit_keywords[unit]
        # start distances to each target unit (for "ends closer")
        self.start_dist = np.array(
            [[min(self._sd_points(m, m.xy[None], t)[0] for t in tl) for tl in self.tmodels] for m in self.models]
        )
        self.cands: dict[str, Cands] = {m.id: self._initial_cands(m) for m in self.models}

    # ------------------------------------------------------------------ geometry
    def _sd_points(self, m: Model, pts: np.ndarray, other: Model) -> np.ndarray:
        return sd_many(m.fp, pts, other.fp)

    def _initial_cands(self, m: Model) -> Cands:
        U = _unit_vecs(RING)
        er = self.w.rules.er
        spots = []
        for tl in self.tmodels:
            for t in tl:
                toward = m.xy - t.fp.center
                Ut = _unit_vecs(RING, [toward] if np.linalg.norm(toward) > 0 else None)
                spots.append(offset_spots(m.fp, t.fp, 0.0, Ut))
                spots.append(offset_spots(m.fp, t.fp, er, Ut))
                spots.append(offset_spots(m.fp, t.fp, er * 0.5, U[::3]))
                # the exact closest approach along the straight line
                spots.append(self._approach(m, t))
        pts = np.vstack(spots)
        return self._evaluate(m, pts)

    def _approach(self, m: Model, t: Model) -> np.ndarray:
        """Spots on the straight line from the model toward the target's closest point:
        exactly at engagement edge and at contact, plus intermediate steps."""
        c = m.xy
        # direction: from the target toward the model along the separating normal; for
        # discs it is the centre line; for others we find the best normal numerically.
        U = _unit_vecs(720)
        cand = offset_spots(m.fp, t.fp, 0.0, U)
        d = np.linalg.norm(cand - c, axis=1)
        i = int(np.argmin(d))
        u = U[i % len(U)]
        # refine around the best normal
        lo, hi = math.atan2(u[1], u[0]) - 0.01, math.atan2(u[1], u[0]) + 0.01
        for _ in range(60):
            a1, a2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            p1 = offset_spots(m.fp, t.fp, 0.0, np.array([[math.cos(a1), math.sin(a1)]]))[0]
            p2 = offset_spots(m.fp, t.fp, 0.0, np.array([[math.cos(a2), math.sin(a2)]]))[0]
            if np.linalg.norm(p1 - c) < np.linalg.norm(p2 - c):
                hi = a2
            else:
                lo = a1
        a = (lo + hi) / 2
        u = np.array([[math.cos(a), math.sin(a)]])
        contact = offset_spots(m.fp, t.fp, 0.0, u)[:1]
        edge = offset_spots(m.fp, t.fp, self.w.rules.er, u)[:1]
        pts = [contact, edge]
        v = edge[0] - c
        L = float(np.linalg.norm(v))
        if L > 0:
            for f in np.linspace(0.1, 0.9, 9):
                pts.append((c + v * f)[None])
        return np.vstack(pts)

    def _evaluate(self, m: Model, pts: np.ndarray) -> Cands:
        w = self.w
        r = w.rules
        k = len(pts)
        nT = len(self.targets)
        z = w.ground_z(pts)
        ok = np.ones(k, dtype=bool)
        # on the board, wholly
        for part in m.fp.parts:
            off = part.support(np.array([[1.0, 0], [-1.0, 0], [0, 1.0], [0, -1.0]])) - m.xy
            ok &= pts[:, 0] + off[0, 0] <= w.board[0] + EPS
            ok &= pts[:, 0] + off[1, 0] >= -EPS
            ok &= pts[:, 1] + off[2, 1] <= w.board[1] + EPS
            ok &= pts[:, 1] + off[3, 1] >= -EPS
        # terrain no base may end on
        for f in self.blockers:
            if not ok.any():
                break
            idx = np.nonzero(ok)[0]
            near = np.linalg.norm(pts[idx] - f.fp.center, axis=1) <= f.fp.radius + m.fp.radius + 1e-9
            if near.any():
                sub = idx[near]
                ok[sub] &= sd_many(m.fp, pts[sub], f.fp) >= -EPS
        # other units' models: no overlap at the same level
        for o in self.other_models:
            idx = np.nonzero(ok)[0]
            if len(idx) == 0:
                break
            near = np.linalg.norm(pts[idx] - o.xy, axis=1) <= o.fp.radius + m.fp.radius + r.er + 1e-6
            if not near.any():
                continue
            sub = idx[near]
            sd = sd_many(m.fp, pts[sub], o.fp)
            same = np.abs(z[sub] - o.z) <= 1e-9
            bad = same & (sd < -EPS)
            if o in self.nontarget_models:
                # never within engagement range of an enemy unit that is not a target
                bad |= (sd <= r.er + OUT_MARGIN) & (np.abs(z[sub] - o.z) <= r.er_v + OUT_MARGIN)
            ok[sub] &= ~bad
        # relationships with the targets
        contact = np.zeros(k, dtype=bool)
        er = np.zeros((k, nT), dtype=bool)
        dist = np.full((k, nT), np.inf)
        for j, tl in enumerate(self.tmodels):
            for t in tl:
                sd = sd_many(m.fp, pts, t.fp)
                dz = np.abs(z - t.z)
                contact |= (sd <= EPS) & (dz <= 1e-9)
                er[:, j] |= (sd <= r.er + EPS) & (dz <= r.er_v)
                dist[:, j] = np.minimum(dist[:, j], np.maximum(sd, 0.0))
        closer = np.any(dist < self.start_dist[self.models.index(m)][None, :] - OUT_MARGIN, axis=1)
        # path cost (+ vertical change beyond the climbing threshold)
        cost = np.full(k, np.inf)
        idx = np.nonzero(ok)[0]
        if len(idx):
            cost[idx] = self.fields[m.id].cost(pts[idx])
            dzc = np.abs(z[idx] - m.z)
            cost[idx] += np.where(dzc > r.climb_free + 1e-12, dzc, 0.0)
        return Cands(pts, z, cost, ok & np.isfinite(cost), contact, er, dist, closer)

    # ------------------------------------------------------------------ bounds
    def lower_bound(self) -> float:
        """A proven lower bound on the least successful move: some model must get from
        its start to within engagement range of each target, and no path is shorter
        than the straight line."""
        er = self.w.rules.er
        lb = 0.0
        for j in range(len(self.targets)):
            lb = max(lb, float(np.min(self.start_dist[:, j])) - er)
        return max(lb, 0.0)

    # ------------------------------------------------------------------ the search
    def solve(self, R: float, improve: bool = True) -> Placement | None:
        """A legal successful placement with every move within R, or None.

        Several orders of play are tried (each target engaged first; engaging every
        target before taking base contact, or base contact first); with ``improve`` the
        one with the most models in base contact is kept and then improved."""
        best: Placement | None = None
        best_n = -1
        for ft in range(len(self.targets)):
            for contact_first in (False, True):
                p = self._greedy(R, ft, contact_first)
                if p is None:
                    continue
                if not improve:
                    return p
                p = self._improve(p, R)
                n = sum(1 for m in self.models if self._in_contact(m, p.pos[m.id], p.z[m.id]))
                if n > best_n:
                    best, best_n = p, n
                if n == len(self.models):
                    return best
        return best

    def _greedy(self, R: float, first_target: int, contact_first: bool = False) -> Placement | None:
        w = self.w
        r = w.rules
        n = len(self.models)
        nT = len(self.targets)
        base: dict[str, Cands] = {}
        for m in self.models:
            c = self.cands[m.id]
            use = c.ok & (c.cost <= R + EPS)
            if self.enforce_closer:
                use &= c.closer
            base[m.id] = c.take(use)
        overlap: dict[str, np.ndarray] = {m.id: np.zeros(len(base[m.id].pts), dtype=bool) for m in self.models}
        links: dict[str, np.ndarray] = {m.id: np.zeros(len(base[m.id].pts), dtype=int) for m in self.models}
        placed: dict[str, int] = {}
        pos: dict[str, np.ndarray] = {}
        zz: dict[str, float] = {}
        cost: dict[str, float] = {}
        engaged = np.zeros(nT, dtype=bool)
        order: list[str] = []
        by_id = {m.id: m for m in self.models}
        while len(placed) < n:
            best = None
            for m in self.models:
                if m.id in placed:
                    continue
                c = base[m.id]
                if len(c.pts) == 0:
                    return None
                need = 0 if not placed else (2 if (self.two and len(placed) >= 2) else 1)
                feas = ~overlap[m.id] & (links[m.id] >= need)
                if not feas.any():
                    continue
                unen = ~engaged
                if unen.any():
                    if not placed:
                        new = c.er[:, first_target]
                        focus_cols = [j for j in range(nT) if j != first_target] or [first_target]
                    else:
                        new = np.any(c.er[:, unen], axis=1)
                        focus_cols = list(np.nonzero(unen)[0])
                    focus = np.min(c.dist[:, focus_cols], axis=1)
                    if contact_first:
                        score = new * 1e8 + c.contact * 1e6 - np.round(focus / 0.05) * 1e2 - c.cost * 1e-3
                    else:
                        score = new * 1e8 - np.round(focus / 0.05) * 1e3 + c.contact * 10.0 - c.cost * 1e-3
                else:
                    focus = np.min(c.dist, axis=1)
                    score = c.contact * 1e8 + np.any(c.er, axis=1) * 1e6 - focus * 1e3 - c.cost
                score = np.where(feas, score, -np.inf)
                i = int(np.argmax(score))
                if best is None or score[i] > best[0] + 1e-12:
                    best = (float(score[i]), m.id, i)
            if best is None:
                return None
            _, mid, i = best
            c = base[mid]
            placed[mid] = i
            pos[mid] = c.pts[i].copy()
            zz[mid] = float(c.z[i])
            cost[mid] = float(c.cost[i])
            engaged |= c.er[i]
            order.append(mid)
            pm = by_id[mid]
            # add packing / linking spots around the new model for everyone unplaced
            for m in self.models:
                if m.id in placed:
                    continue
                extra = self._spots_around(m, pm, pos[mid])
                if len(extra):
                    ev = self._evaluate(m, extra)
                    use = ev.ok & (ev.cost <= R + EPS)
                    if self.enforce_closer:
                        use &= ev.closer
                    ev = ev.take(use)
                    if len(ev.pts):
                        base[m.id] = Cands.cat(base[m.id], ev)
                        overlap[m.id] = np.concatenate([overlap[m.id], np.zeros(len(ev.pts), dtype=bool)])
                        # links/overlaps to previously placed models for the new spots
                        nl = np.zeros(len(ev.pts), dtype=int)
                        no = np.zeros(len(ev.pts), dtype=bool)
                        for q in placed:
                            if q == mid:
                                continue
                            sd = self._sd_at(m, ev.pts, by_id[q], pos[q])
                            dz = np.abs(ev.z - zz[q])
                            no |= (sd < -EPS) & (dz <= 1e-9)
                            nl += (sd <= r.coh) & (dz <= r.coh_v)
                        overlap[m.id][-len(ev.pts):] = no
                        links[m.id] = np.concatenate([links[m.id], nl])
                # update overlap and links against the newly placed model
                cc = base[m.id]
                sd = self._sd_at(m, cc.pts, pm, pos[mid])
                dz = np.abs(cc.z - zz[mid])
                overlap[m.id] |= (sd < -EPS) & (dz <= 1e-9)
                links[m.id] += ((sd <= r.coh) & (dz <= r.coh_v)).astype(int)
        pl = Placement(pos, zz, cost, order)
        if not self.unit_ok(pl):
            return None
        return pl

    def _sd_at(self, m: Model, pts: np.ndarray, q: Model, qpos: np.ndarray) -> np.ndarray:
        other = q.fp.moved_to(qpos)
        return sd_many(m.fp, pts, other)

    def _spots_around(self, m: Model, q: Model, qpos: np.ndarray) -> np.ndarray:
        """Spots for model m touching (packing) and at coherency distance of q."""
        other = q.fp.moved_to(qpos)
        U = _unit_vecs(24)
        pack = offset_spots(m.fp, other, 1e-4, U)
        link = offset_spots(m.fp, other, self.w.rules.coh * 0.999, U[::2])
        return np.vstack([pack, link])

    # ------------------------------------------------------------------ unit checks
    def unit_ok(self, pl: Placement) -> bool:
        r = self.w.rules
        ids = [m.id for m in self.models]
        fps = {m.id: m.fp.moved_to(pl.pos[m.id]) for m in self.models}
        # every target within engagement range of some model
        for tl in self.tmodels:
            hit = False
            for mid in ids:
                for t in tl:
                    if abs(pl.z[mid] - t.z) <= r.er_v and sd_many(fps[mid], fps[mid].center[None], t.fp)[0] <= r.er + EPS:
                        hit = True
                        break
                if hit:
                    break
            if not hit:
                return False
        return coherent(self.models, pl, r, self.two)

    def _improve(self, pl: Placement, R: float) -> Placement:
        """Move models not in base contact into free contact spots where every
        unit-level condition still holds (WTC step 6.A.I, overridden by 6.C)."""
        r = self.w.rules
        by_id = {m.id: m for m in self.models}
        for _ in range(3):
            changed = False
            for m in self.models:
                if self._in_contact(m, pl.pos[m.id], pl.z[m.id]):
                    continue
                U = _unit_vecs(FINE_RING)
                spots = np.vstack([offset_spots(m.fp, t.fp, 0.0, U) for tl in self.tmodels for t in tl])
                ev = self._evaluate(m, spots)
                use = ev.ok & (ev.cost <= R + EPS) & ev.contact
                if self.enforce_closer:
                    use &= ev.closer
                if not use.any():
                    continue
                ev = ev.take(use)
                for q in self.models:
                    if q.id == m.id:
                        continue
                    sd = self._sd_at(m, ev.pts, by_id[q.id], pl.pos[q.id])
                    keep = ~((sd < -EPS) & (np.abs(ev.z - pl.z[q.id]) <= 1e-9))
                    ev = ev.take(keep)
                    if len(ev.pts) == 0:
                        break
                if len(ev.pts) == 0:
                    continue
                # the moved model must keep enough coherency links where it lands
                nl = np.zeros(len(ev.pts), dtype=int)
                for q in self.models:
                    if q.id != m.id:
                        sd = self._sd_at(m, ev.pts, q, pl.pos[q.id])
                        nl += (sd <= r.coh) & (np.abs(ev.z - pl.z[q.id]) <= r.coh_v)
                ev = ev.take(nl >= (2 if self.two else 1))
                for i in np.argsort(ev.cost)[:24]:
                    trial = Placement(dict(pl.pos), dict(pl.z), dict(pl.cost), list(pl.order))
                    trial.pos[m.id] = ev.pts[i].copy()
                    trial.z[m.id] = float(ev.z[i])
                    trial.cost[m.id] = float(ev.cost[i])
                    if self.unit_ok(trial):
                        pl = trial
                        changed = True
                        break
            if not changed:
                break
        return pl

    def _in_contact(self, m: Model, p: np.ndarray, z: float) -> bool:
        for tl in self.tmodels:
            for t in tl:
                if abs(z - t.z) <= 1e-9 and sd_many(m.fp, p[None], t.fp)[0] <= EPS:
                    return True
        return False

    def contacts_of(self, pl: Placement) -> dict[str, list[str]]:
        """Models of any unit each charger model touches at the end."""
        out: dict[str, list[str]] = {}
        for m in self.models:
            lst = []
            for o in self.w.models:
                if o.unit == self.unit:
                    continue
                if abs(pl.z[m.id] - o.z) <= 1e-9 and sd_many(m.fp, pl.pos[m.id][None], o.fp)[0] <= EPS * 10:
                    lst.append(o.id)
            out[m.id] = lst
        return out

    def path_of(self, m: Model, goal: np.ndarray):  # noqa: ANN201
        return self.fields[m.id].path((float(goal[0]), float(goal[1])))


def coherent(models: list[Model], pl: Placement, r, two: bool) -> bool:  # noqa: ANN001
    """One connected group with links within 2"/5"; two links each when required."""
    n = len(models)
    if n <= 1:
        return True
    P = np.array([pl.pos[m.id] for m in models])
    Z = np.array([pl.z[m.id] for m in models])
    if all(m.fp.is_disc for m in models):
        rad = np.array([m.fp.radius for m in models])
        sd = np.linalg.norm(P[:, None] - P[None], axis=-1) - rad[:, None] - rad[None]
    else:
        sd = np.full((n, n), np.inf)
        for i in range(n):
            fi = models[i].fp.moved_to(P[i])
            for j in range(i + 1, n):
                sd[i, j] = sd[j, i] = sd_many(models[j].fp, P[j][None], fi)[0]
    adj = (sd <= r.coh) & (np.abs(Z[:, None] - Z[None]) <= r.coh_v)
    np.fill_diagonal(adj, False)
    need = 2 if two else 1
    if np.any(adj.sum(axis=1) < need):
        return False
    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        nxt = adj[frontier].any(axis=0) & ~seen
        seen |= nxt
        frontier = nxt
    return bool(seen.all())


def can_use_floor(kws: frozenset[str]) -> bool:
    return bool(kws & CAN_USE_FLOORS)


__all__ = ["ChargeProblem", "Placement", "coherent", "Disc"]
