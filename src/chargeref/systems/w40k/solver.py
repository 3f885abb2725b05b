"""Placement of a charging unit: can it succeed with a given roll, and where does every
model end?

The search follows the WTC precise procedure (seed 000, step 6), with the player's
freedom to choose the order of models used to make the charge succeed:

1. Candidate end spots are exact: base-contact spots and engagement-edge spots around
   every target model (built from support functions, so each is exactly at distance 0
   or 1"), the exact closest approach toward every target, and points along the straight
   approach. As the unit forms up, spots packing against and linking to the models
   already placed are added. Spots depend only on a base's shape, so models with the
   same base share them (a "bank"); only the path cost is per model.
2. A spot is usable when the base fits there (board, terrain, other units' models,
   out of engagement range of every enemy unit that is not a target), its path cost
   (horizontal path, climbing, vertical change) is within the roll, and, with the WTC
   procedure, it ends closer to a target than the model started.
3. Models are placed one at a time, always picking the best (model, spot) pair: first
   engage every target (growing a coherent chain toward targets still unengaged), then
   base contact with a target wherever a model can reach it (step 6.A.I), then as close
   as possible (step 6.A.II). Each new model must link to the models already placed,
   so the unit stays one coherent group (two links once the unit needs two).
4. The unit-level conditions (step 6.C) are checked at the end; they override base
   contact. A final pass moves any model not yet in base contact into a free contact
   spot when that keeps every unit-level condition.

The module is split by responsibility: ``solver_base.py`` holds the values (banks,
placements) and plain geometry (many-spot distances, straight-line clearance, the
coherency tests), ``spots.py`` the candidate construction (a mixin), ``refine.py`` the
judging and improvement of a placement (a mixin: engagement, unit-level checks, the
base-contact and within-1" passes, held-back models, contacts), and this file the
problem and the search itself (banks, costs, orders of play).

``needed`` (see ``system.py``) uses a proven lower bound (the straight-line distance of
the closest model to each target's engagement range) and the least candidate cost with
which the placement succeeds.
"""

from __future__ import annotations

import numpy as np

from ... import budget
from ...geometry.paths import Planner
from ...geometry.shapes import ConvexPolygon, Footprint
from .moves import MoveRules, charge_rules
from .refine import Refiner
from .solver_base import (  # noqa: F401  (re-exported: the placement values live there)
    BUDGET_TARGETS,
    CLEAR_BLOCK,
    EPS,
    LOCUS_HAIR,
    OUT_MARGIN,
    SMALL_UNIT,
    WRAP_NEAREST,
    Bank,
    Cands,
    Placement,
    StraightLines,
    _floor_edge_crossings,
    _segments_cross,
    _unit_vecs,
    base_gaps,
    coherency_adjacency,
    coherent,
    face_spots,
    furthest,
    offset_spots,
    pair_norm,
    sd_many,
    shape_key,
)
from .spots import SpotBuilder
from .world import Model, World


class ChargeProblem(SpotBuilder, Refiner):
    """One declared charge of ``unit`` against ``targets`` in ``world``.

    Built once; ``solve(R)`` answers for any roll R up to ``cap``.
    """

    def __init__(self, world: World, unit: str, targets: list[str], cap: float, enforce_closer: bool | None = None,
                 rules: MoveRules | None = None, initial_spots: bool = True,
                 pivot_cost: dict[str, float] | None = None):
        self.w = world
        # pivots (pivots.py): models whose bases were turned at their start spot pay the
        # turn's length on top of every path cost (added in _costs and _resolve)
        self.pivot_cost: dict[str, float] = dict(pivot_cost or {})
        #: each pivoting model's (from facing, to facing), set by pivots.best_plan
        self.pivots: dict[str, tuple[float, float]] = {}
        self.unit = unit
        # the move's constraints (moves.py): a charge builds its own from the request;
        # the fight-phase moves and the heroic intervention pass theirs
        self.rules = charge_rules(world, unit, targets, cap, enforce_closer) if rules is None else rules
        self.targets = list(self.rules.engage)
        self.cap = self.rules.budget
        r = world.rules
        self.enforce_closer = self.rules.closer == "target_unit"
        self.models: list[Model] = list(world.unit_models[unit])
        self.index = {m.id: i for i, m in enumerate(self.models)}
        self.tmodels: list[list[Model]] = [world.unit_models[t] for t in self.targets]
        self.all_targets: list[Model] = [t for tl in self.tmodels for t in tl]
        self.target_col = np.array([j for j, tl in enumerate(self.tmodels) for _ in tl], dtype=int)
        self.t_disc = np.array([t.fp.is_disc for t in self.all_targets], dtype=bool)
        self.t_c = np.array([t.xy for t in self.all_targets]).reshape(-1, 2)
        self.t_r = np.array([t.fp.radius for t in self.all_targets])
        self.t_z = np.array([t.z for t in self.all_targets])
        # perf: round charger and target bases take the vectorised paths below
        self._world_disc = all(m.fp.is_disc for m in world.models)
        self._all_disc = bool(all(m.fp.is_disc for m in world.unit_models[unit]) and self.t_disc.all())
        self._t_pc = np.array([t.fp.parts[0].center if t.fp.is_disc else t.xy for t in self.all_targets], dtype=float).reshape(-1, 2)
        self._t_pr = np.array([t.fp.parts[0].r if t.fp.is_disc else t.fp.radius for t in self.all_targets], dtype=float)
        forbid = set(self.rules.forbid)
        self.nontarget_models = [m for u in world.enemies_of(unit) if u in forbid for m in world.unit_models[u]]
        self.other_models = [m for m in world.models if m.unit != unit]
        self.blockers = world.end_blockers()
        # features a charge may be fought across at 2": barricades (everyone) and, for
        # the WTC walls rule, ruin walls (INFANTRY and BEAST only)
        self.tokens_possible = bool(r.wtc and (world.unit_keywords[unit] & {"INFANTRY", "BEAST"}))
        # (a charge's question: the other moves ask the fight phase's links instead)
        self.across = self._across_parts() if self.rules.kind == "charge" else []
        self.barriers = world.barriers_for(unit, avoid=self._path_avoid(), avoid_gap=r.er + OUT_MARGIN)
        self.planner = Planner(self.barriers, world.board)
        # edition 11: a FLY model may take to the skies: over models and terrain (only
        # impassable terrain and, where the edition asks, non-target engagement range
        # stay in the way), vertical distance ignored, at a fixed price off its move
        # (a charge rule: the moves made model by model go on the ground)
        self.sky = "FLY" in world.unit_keywords[unit] and r.ed.fly == "skies" and self.rules.kind == "charge"
        self.sky_penalty = r.ed.fly_penalty * r.inch
        self.sky_planner = (
            Planner(world.barriers_for(unit, avoid=self._path_avoid(), avoid_gap=r.er + OUT_MARGIN, sky=True), world.board)
            if self.sky
            else None
        )
        self._sky_fields: dict[str, object] = {}
        self.straight = StraightLines(self.barriers)
        self._fields: dict[str, object] = {}
        self._found: dict[bool, list[Placement]] = {False: [], True: []}
        self.two = self.rules.two_neighbours
        self.kws = world.unit_keywords[unit]
        self._prep_others()
        # start distances to each target unit (for "ends closer")
        self.start_dist = np.full((len(self.models), len(self.targets)), np.inf)
        for i, m in enumerate(self.models):
            for j, tl in enumerate(self.tmodels):
                for t in tl:
                    self.start_dist[i, j] = min(self.start_dist[i, j], max(0.0, float(sd_many(m.fp, m.xy[None], t.fp)[0])))
        self.keys = {m.id: shape_key(m) for m in self.models}
        self.rep: dict[tuple, Model] = {}
        for m in self.models:
            self.rep.setdefault(self.keys[m.id], m)
        # ``initial_spots`` False: the caller brings its own candidates (the model-by-model
        # moves skip the charge's spot construction for bases that need the root finder)
        self.banks: dict[tuple, Bank] = {
            k: self._initial_bank(rep) if initial_spots else self._bank(rep, np.zeros((0, 2))) for k, rep in self.rep.items()
        }
        self.costs: dict[str, np.ndarray] = {m.id: np.zeros(0) for m in self.models}
        self.exact: dict[str, np.ndarray] = {m.id: np.zeros(0, dtype=bool) for m in self.models}
        self._cbuf: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for key in self.rep:
            self._costs_batch([m for m in self.models if self.keys[m.id] == key], self.banks[key], 0)

    # ------------------------------------------------------------------ set-up
    def _path_avoid(self) -> list[Model]:
        """Non-target models whose engagement range no point of a path may enter
        (editions 9 and 10; edition 11 only checks the end). Only models within the
        vertical engagement range of some charging model's level are kept: a model far
        above or below cannot be engaged at any level this charge reaches without
        climbing, and climbing is rare enough that we state it as a limit (docs/40k.md)."""
        r = self.w.rules
        if not self.rules.forbid_on_path:
            return []
        zs = [m.z for m in self.models]
        return [o for o in self.nontarget_models if any(abs(o.z - z) <= r.er_v for z in zs)]

    def _prep_others(self) -> None:
        o = self.other_models
        self.o_disc = np.array([m.fp.is_disc for m in o], dtype=bool)
        self.o_c = np.array([m.xy for m in o]).reshape(-1, 2)
        self.o_r = np.array([m.fp.radius for m in o])
        self.o_z = np.array([m.z for m in o])
        nt = {m.id for m in self.nontarget_models}
        self.o_nt = np.array([m.id in nt for m in o], dtype=bool)

    def _across_parts(self) -> list[tuple[ConvexPolygon, str, str]]:
        """(part, feature id, kind) of every ruin wall / barricade part within 2" of a
        target model; kind is "token" or "barricade"."""
        out = []
        two = 2.0 * self.w.rules.inch
        for f in self.w.features:
            kind = "barricade" if f.type == "barricade" else ("token" if f.type == "ruin_wall" and self.tokens_possible else None)
            if kind is None:
                continue
            for part in f.fp.parts:
                if not isinstance(part, ConvexPolygon):
                    continue
                pf = Footprint((part,))
                if any(sd_many(t.fp, t.xy[None], pf)[0] <= two + EPS for t in self.all_targets):
                    out.append((part, f.ruin or f.id, kind))
        return out

    def field(self, m: Model):  # noqa: ANN201
        f = self._fields.get(m.id)
        if f is None:
            f = self.planner.field(m.fp, budget=self.cap + 1e-9)
            self._fields[m.id] = f
        return f

    # ------------------------------------------------------------------ constructed spots
    def _bank(self, m: Model, pts: np.ndarray, z: np.ndarray | None = None) -> Bank:
        """Everything about spots that depends only on the base's shape (``z``: the
        level of each spot, the ground by default)."""
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
        for f in self.blockers:  # terrain no base may end on
            idx = np.nonzero(ok)[0]
            if len(idx) == 0:
                break
            near = np.linalg.norm(pts[idx] - f.fp.center, axis=1) <= f.fp.radius + m.fp.radius + 1e-9
            if near.any():
                sub = idx[near]
                ok[sub] &= sd_many(m.fp, pts[sub], f.fp) >= -EPS
        ok &= self._fits_among_others(m, pts, z)
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
            touch = np.abs(sd_many(m.fp, pts, Footprint((part,)))) <= EPS
            if not touch.any():
                continue
            V = part.V
            A, B = V, np.roll(V, -1, axis=0)
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
                tgt = tok if kind == "token" else bar
                tgt[idx[across], j] = True
        return Bank(pts, z, ok, contact, er, dist, tok, bar)

    def _fits_among_others(self, m: Model, pts: np.ndarray, z: np.ndarray) -> np.ndarray:
        """No overlap with other units' models at the same level, and never within
        engagement range of an enemy unit that is not a target."""
        r = self.w.rules
        ok = np.ones(len(pts), dtype=bool)
        if len(self.other_models) == 0:
            return ok
        if m.fp.is_disc and self.o_disc.any():
            rm = m.fp.radius
            C = self.o_c[self.o_disc]
            sd = pair_norm(pts, C) - rm - self.o_r[self.o_disc][None]
            dz = np.abs(z[:, None] - self.o_z[self.o_disc][None])
            bad = (sd < -EPS) & (dz <= 1e-9)
            nt = self.o_nt[self.o_disc][None]
            bad |= nt & (sd <= r.er + OUT_MARGIN) & (dz <= r.er_v + OUT_MARGIN)
            ok &= ~bad.any(axis=1)
            rest = [o for o, d in zip(self.other_models, self.o_disc, strict=True) if not d]
        else:
            rest = self.other_models
        nt_ids = {o.id for o in self.nontarget_models}
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

    def _costs(self, m: Model, bank: Bank, start: int = 0) -> np.ndarray:
        """Path cost (plus counted vertical change) from the model's start to every
        usable spot of its bank from index ``start`` on; inf where unreachable."""
        pts = bank.pts[start:]
        z = bank.z[start:]
        cost = np.full(len(pts), np.inf)
        idx = np.nonzero(bank.ok[start:])[0]
        if len(idx) == 0:
            return cost
        # cheap reject: farther than the cap in a straight line
        d = np.linalg.norm(pts[idx] - m.xy, axis=1)
        idx = idx[d <= self.cap + EPS]
        if len(idx) == 0:
            return cost
        if m.fp.is_disc:
            clear = self.straight.clear(m.xy, m.fp.radius, pts[idx])
            cost[idx[clear]] = np.linalg.norm(pts[idx[clear]] - m.xy, axis=1)
            rest = idx[~clear]
        else:
            rest = idx
        if len(rest):
            cost[rest] = self.field(m).cost(pts[rest])
        dz = np.abs(z - m.z)
        thr = self.w.rules.climb_free
        cost += np.where(dz > thr + 1e-12, dz, 0.0)
        if self.sky:
            sky = np.full(len(pts), np.inf)
            sky[idx] = self._sky_costs(m, pts[idx])
            cost = np.minimum(cost, sky)
        return cost + self.pivot_cost.get(m.id, 0.0)

    def sky_field(self, m: Model):  # noqa: ANN201
        f = self._sky_fields.get(m.id)
        if f is None:
            assert self.sky_planner is not None
            f = self.sky_planner.field(m.fp, budget=self.cap + 1e-9)
            self._sky_fields[m.id] = f
        return f

    def _sky_costs(self, m: Model, pts: np.ndarray) -> np.ndarray:
        """Cost of reaching each point through the skies: the path over everything but
        impassable terrain (and avoided engagement ranges) plus the edition's price."""
        if len(pts) == 0:
            return np.zeros(0)
        return np.asarray(self.sky_field(m).cost(pts), dtype=float) + self.sky_penalty

    def _costs_batch(self, ms: list[Model], bank: Bank, start: int) -> None:
        """Append the costs of bank spots [start:] for several models of one shape."""
        if not ms:
            return
        pts = bank.pts[start:]
        ok = bank.ok[start:]
        if ms[0].fp.is_disc and len(pts) and not self.sky:
            S = np.array([m.xy for m in ms])
            d = pair_norm(S, pts)
            cand = ok[None, :] & (d <= self.cap + EPS)
            clear = np.zeros_like(cand)
            cols = np.nonzero(cand.any(axis=0))[0]
            if len(cols):
                # perf: only the pairs within the cap, against nearby barriers (exact, see clear_within)
                clear[:, cols] = self.straight.clear_within(S, ms[0].fp.radius, pts[cols], cand[:, cols], self.cap + EPS)
            thr = self.w.rules.climb_free
            # perf: every model's row at once. A clear straight line costs its length; a
            # blocked one also gets its length, as a lower bound the planner is asked to
            # replace only if the search ever wants the spot (see _resolve)
            rest = cand & ~clear
            dz = np.abs(bank.z[start:][None, :] - np.array([m.z for m in ms])[:, None])
            vert = np.where(dz > thr + 1e-12, dz, 0.0)
            cost = np.where(cand, d, np.inf) + vert
            for i, m in enumerate(ms):
                self._append(m.id, cost[i], ~rest[i])
        else:
            for m in ms:
                self._append(m.id, self._costs(m, bank, start), np.ones(len(pts), dtype=bool))

    def _append(self, mid: str, cost: np.ndarray, exact: np.ndarray) -> None:
        """Append to a model's spot costs and exactness flags. perf: they live in buffers
        that double when full (self.costs[mid] is a view of the filled part), so growing
        the banks spot by spot is not quadratic in copying."""
        n0 = len(self.costs[mid])
        n1 = n0 + len(cost)
        buf = self._cbuf.get(mid)
        if buf is not None and (self.costs[mid].base is not buf[0] or self.exact[mid].base is not buf[1]):
            buf = None  # the arrays were replaced outside _append: start a new buffer from them
        if buf is None or len(buf[0]) < n1:
            cap = max(n1, 2 * (len(buf[0]) if buf is not None else 0), 64)
            cb = np.empty(cap)
            eb = np.empty(cap, dtype=bool)
            cb[:n0] = self.costs[mid]
            eb[:n0] = self.exact[mid]
            buf = (cb, eb)
            self._cbuf[mid] = buf
        buf[0][n0:n1] = cost
        buf[1][n0:n1] = exact
        self.costs[mid] = buf[0][:n1]
        self.exact[mid] = buf[1][:n1]

    def _resolve(self, m: Model, idx: np.ndarray) -> None:
        """Replace lower-bound costs of spots ``idx`` of model m by planned path costs."""
        idx = idx[~self.exact[m.id][idx]]
        if len(idx) == 0:
            return
        b = self.banks[self.keys[m.id]]
        c = self.field(m).cost(b.pts[idx])
        dz = np.abs(b.z[idx] - m.z)
        c = c + np.where(dz > self.w.rules.climb_free + 1e-12, dz, 0.0)
        if self.sky:
            c = np.minimum(c, self._sky_costs(m, b.pts[idx]))
        self.costs[m.id][idx] = c + self.pivot_cost.get(m.id, 0.0)
        self.exact[m.id][idx] = True

    def cands(self, m: Model, R: float) -> Cands:
        b = self.banks[self.keys[m.id]]
        cost = self.costs[m.id]
        closer = np.any(b.dist < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1)
        use = b.ok & (cost <= R + EPS)
        if self.enforce_closer:
            use &= closer
        return Cands(b.pts[use], b.z[use], cost[use], b.ok[use], b.contact[use], b.er[use], b.dist[use], closer[use])

    def grow(self, around: list[tuple[Model, np.ndarray]], placed: list[tuple[Model, np.ndarray]] | None = None) -> None:
        """Add constructed spots round newly placed models to every bank."""
        for key, rep in self.rep.items():
            budget.check()
            new = [self._spots_around(rep, q, p, placed or []) for q, p in around]
            if not new:
                continue
            pts = np.vstack(new)
            b = self.banks[key]
            nb = self._bank(rep, pts)
            start = len(b.pts)
            self.banks[key] = Bank(*(np.concatenate([getattr(b, f), getattr(nb, f)]) for f in ("pts", "z", "ok", "contact", "er", "dist", "tok", "bar")))
            # every model of the shape gets costs (later orders of play may use them)
            self._costs_batch([m for m in self.models if self.keys[m.id] == key], self.banks[key], start)

    def lower_bound(self) -> float:
        """A proven lower bound on the least successful move: some model must get from
        its start to within engagement range of each target, and no path is shorter
        than the straight line. A model touching a barricade engages a target model
        within 1" of it from 2", so for such a target the bound uses 2". (Tokens across
        a ruin wall need the open-field roll anyway: the engagement range stands.)"""
        r = self.w.rules
        lb = 0.0
        for j in range(len(self.targets)):
            reach = r.er
            for part, _, kind in self.across:
                if kind != "barricade":
                    continue
                pf = Footprint((part,))
                if any(sd_many(t.fp, t.xy[None], pf)[0] <= r.er + EPS
                       for t, c in zip(self.all_targets, self.target_col, strict=True) if c == j):
                    reach = max(reach, 2.0 * r.inch)
            lb = max(lb, float(np.min(self.start_dist[:, j])) - reach)
        return max(lb, 0.0)

    def engages(self, b: Bank, tokens: bool) -> np.ndarray:
        """(k, nT): the spots that engage each target: engagement range, across a
        barricade, or (walls rule) across a ruin wall."""
        e = b.er | b.bar
        return e | b.tok if tokens else e

    def reachable_targets(self, R: float, tokens: bool = False) -> np.ndarray:
        """For each target: can any model reach a usable spot that engages it?"""
        out = np.zeros(len(self.targets), dtype=bool)
        for m in self.models:
            if out.all():
                # only existence is asked: once every target is reached, planning more
                # paths cannot change the answer (the search plans what it uses itself)
                break
            b = self.banks[self.keys[m.id]]
            eng = self.engages(b, tokens)
            # spots that would only re-reach targets already reached answer nothing new
            use = b.ok & (self.costs[m.id] <= R + EPS) & eng[:, ~out].any(axis=1)
            if self.enforce_closer:
                use &= np.any(b.dist < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1)
            if use.any():
                # only planned costs decide reachability; a planned cost is never below
                # the straight-line bound, so spots already over R stay out
                self._resolve(m, np.nonzero(use)[0])
                use &= self.costs[m.id] <= R + EPS
                out |= eng[use].any(axis=0)
        return out

    # ------------------------------------------------------------------ the search
    def solve(self, R: float, improve: bool = True, tokens: bool = False) -> Placement | None:
        """A legal successful placement with every move within R, or None.

        Several orders of play are tried (each target engaged first; engaging every
        target before taking base contact, or base contact first). Without ``improve``
        the first success is returned; with it, each is improved and the one with the
        most models in base contact is kept. Every legal placement found stays legal for
        any larger roll, so they are remembered: the search never contradicts an answer
        it gave before (its candidate spots grow as it works)."""
        if not self.reachable_targets(R, tokens).all():
            return None
        fresh: list[Placement] = []
        # big units: the first order of play that works (the improvement pass still
        # adds base contacts); small ones: every order, keeping the most contacts
        wanted = 1 if (not improve or len(self.models) > SMALL_UNIT) else 4
        orders = [(ft, cf) for ft in range(len(self.targets)) for cf in (False, True)]
        if len(self.targets) > 1:
            orders.append((-1, False))  # start in the middle and grow toward every target
        # last: every model takes the shortest move that engages or links (base contact
        # comes afterwards, where the unit-level conditions allow it)
        orders += [(ft, "least") for ft in range(len(self.targets))]
        for ft, contact_first in orders:
            p = self._greedy(R, ft, contact_first, tokens)
            if p is not None:
                fresh.append(p)
                if len(fresh) >= wanted:
                    break
        self._found[tokens].extend(fresh)
        pool = fresh or [p for p in self._found[tokens] if p.max_cost <= R + EPS][:4]
        if not pool:
            return None
        if not improve:
            return pool[0]
        best: Placement | None = None
        best_n = -1
        for p in pool:
            if self.rules.contact_first:
                p = self._improve(p, R, tokens)
            if self.w.rules.ed.within_one_duty:
                p = self._improve_within(p, R)
            n = sum(1 for m in self.models if self._in_contact(m, p.pos[m.id], p.z[m.id]))
            if n > best_n:
                best, best_n = p, n
            if n == len(self.models):
                break
        return best

    def _greedy(self, R: float, first_target: int, contact_first: bool | str = False, tokens: bool = False) -> Placement | None:
        r = self.w.rules
        n = len(self.models)
        nT = len(self.targets)
        by_id = {m.id: m for m in self.models}
        # dynamic state lives on the banks (it depends only on spot geometry):
        # overlap with a placed model, and the number of coherency links to placed ones
        overlap = {k: np.zeros(len(b.pts), dtype=bool) for k, b in self.banks.items()}
        links = {k: np.zeros(len(b.pts), dtype=int) for k, b in self.banks.items()}
        placed: list[str] = []
        pos: dict[str, np.ndarray] = {}
        zz: dict[str, float] = {}
        cost: dict[str, float] = {}
        engaged = np.zeros(nT, dtype=bool)
        via: dict[str, str] = {}

        def usable(m: Model, start: int = 0) -> np.ndarray:
            b = self.banks[self.keys[m.id]]
            c = self.costs[m.id][start:]
            u = b.ok[start:] & (c <= R + EPS)
            if self.enforce_closer:
                u &= np.any(b.dist[start:] < self.start_dist[self.index[m.id]][None, :] - OUT_MARGIN, axis=1)
            return u

        use = {m.id: usable(m) for m in self.models}
        if any(not u.any() for u in use.values()):
            return None
        uidx: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        while len(placed) < n:
            budget.check()
            best = None
            need = 0 if not placed else (2 if (self.two and len(placed) >= 2) else 1)
            unen = ~engaged
            # score terms that depend only on the spots: once per base shape
            terms: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
            least = contact_first == "least"
            # weight of the move's length in the score ("least": the length alone decides)
            w = 1.0 if least else (1e-3 if unen.any() else 1.0)
            for k, b in self.banks.items():
                free = ~overlap[k] & (links[k] >= need)
                eng = self.engages(b, tokens)
                normal_any = (b.er | b.bar).any(axis=1)
                contact = b.contact.astype(float)
                if tokens:
                    contact = contact + 0.5 * b.er.any(axis=1)  # normal spots before tokens
                if unen.any():
                    if not placed and first_target < 0:
                        # the first model stands where it is closest to every target
                        new = np.zeros(len(b.pts))
                        cols = list(range(nT))
                        focus_mid = np.sum(b.dist, axis=1)
                        base = -focus_mid * 1e3
                        token_only = (b.tok.any(axis=1) & ~normal_any) if tokens else None
                        terms[k] = (np.where(free, base, -np.inf), normal_any & free, token_only)
                        continue
                    if not placed:
                        new = eng[:, first_target]
                        cols = [j for j in range(nT) if j != first_target] or [first_target]
                    else:
                        new = np.any(eng[:, unen], axis=1)
                        cols = list(np.nonzero(unen)[0])
                    focus = np.min(b.dist[:, cols], axis=1)
                    if least:
                        base = new * 1e8
                    elif contact_first:
                        base = new * 1e8 + contact * 1e6 - np.round(focus / 0.05) * 1e2
                    else:
                        base = new * 1e8 - np.round(focus / 0.05) * 1e3 + contact * 10.0
                elif least:
                    base = np.zeros(len(b.pts))
                else:
                    focus = np.min(b.dist, axis=1)
                    base = contact * 1e8 + np.any(eng, axis=1) * 1e6 - focus * 1e3
                token_only = (b.tok.any(axis=1) & ~normal_any) if tokens else None
                terms[k] = (np.where(free, base, -np.inf), normal_any & free, token_only)
            for m in self.models:
                if m.id in pos:
                    continue
                k = self.keys[m.id]
                base, normal_free, token_only = terms[k]
                feas = use[m.id]
                if token_only is not None and (feas & normal_free).any():
                    # a model that can reach a normal legal spot must take one; only
                    # the others may use a token against the wall (seed 000, steps 3-4)
                    feas = feas & ~token_only
                    ui = np.flatnonzero(feas)
                else:
                    # use[m.id] is replaced (never changed in place) when it changes
                    hit = uidx.get(m.id)
                    if hit is None or hit[0] is not feas:
                        hit = uidx[m.id] = (feas, np.flatnonzero(feas))
                    ui = hit[1]
                # perf: the score only over the model's usable spots (in index order, so
                # argmax picks the same first best spot the whole-bank score picks;
                # unusable spots score -inf there and never win)
                if len(ui) == 0:
                    continue
                sub = base[ui] - self.costs[m.id][ui] * w
                j = int(np.argmax(sub))
                if np.isfinite(sub[j]) and (best is None or sub[j] > best[0] + 1e-12):
                    best = (float(sub[j]), m.id, int(ui[j]))
            if best is None:
                return None
            _, mid, i = best
            if not self.exact[mid][i]:
                # the spot's cost was a straight-line lower bound: plan the real paths of
                # this model's usable spots, then choose again
                self._resolve(by_id[mid], np.nonzero(use[mid])[0])
                use[mid] = usable(by_id[mid])
                continue
            b = self.banks[self.keys[mid]]
            pos[mid] = b.pts[i].copy()
            zz[mid] = float(b.z[i])
            cost[mid] = float(self.costs[mid][i])
            eng = self.engages(b, tokens)[i]
            engaged |= eng
            if not (b.er[i].any() or b.bar[i].any()) and b.tok[i].any() and tokens:
                via[mid] = "token"
            placed.append(mid)
            if len(placed) == n:
                break
            pm = by_id[mid]
            sizes = {k: len(bb.pts) for k, bb in self.banks.items()}
            self.grow([(pm, pos[mid])], [(by_id[q], pos[q]) for q in placed[:-1]])
            for k, bb in self.banks.items():
                s0 = sizes[k]
                extra = len(bb.pts) - s0
                if extra:
                    # state of the new spots against models placed before this one
                    no, nl = self._against(self.rep[k], bb.pts[s0:], bb.z[s0:], [(by_id[q], pos[q], zz[q]) for q in placed[:-1]])
                    overlap[k] = np.concatenate([overlap[k], no])
                    links[k] = np.concatenate([links[k], nl])
                # every spot against the newly placed model
                rep = self.rep[k]
                sd = self._sd_at(rep, bb.pts, pm, pos[mid])
                dz = np.abs(bb.z - zz[mid])
                overlap[k] |= (sd < -EPS) & (dz <= 1e-9)
                links[k] += ((sd <= r.coh) & (dz <= r.coh_v)).astype(int)
            for m in self.models:
                if m.id not in pos:
                    old = len(use[m.id])
                    if len(self.costs[m.id]) > old:
                        more = usable(m, old)
                        hit = uidx.get(m.id)
                        prev = use[m.id]
                        use[m.id] = np.concatenate([prev, more])
                        if hit is not None and hit[0] is prev:
                            # perf: the usable indices grow with the spots (no rescan)
                            uidx[m.id] = (use[m.id], np.concatenate([hit[1], np.flatnonzero(more) + old]))
        pl = Placement(pos, zz, cost, placed, via=via)
        return pl if self.unit_ok(pl) else None

    def flies(self, m: Model, goal: np.ndarray) -> bool:
        """Edition 11: does the model's cheapest way to ``goal`` take to the skies?"""
        if not self.sky:
            return False
        g = np.asarray(goal, dtype=float)[None]
        ground = float(self.field(m).cost(g)[0]) + float(self.w.vertical_cost(m.z, float(self.w.ground_z(g)[0])))
        return float(self._sky_costs(m, g)[0]) < ground

    def path_of(self, m: Model, goal: np.ndarray):  # noqa: ANN201
        g = np.asarray(goal, dtype=float)
        if self.flies(m, g):
            return self.sky_field(m).path((float(g[0]), float(g[1])))
        if m.fp.is_disc and self.straight.clear(m.xy, m.fp.radius, g[None])[0]:
            from ...geometry.paths import PathResult

            L = float(np.linalg.norm(g - m.xy))
            return PathResult(L, L, 0.0, ((float(m.xy[0]), float(m.xy[1])), (float(g[0]), float(g[1]))), ())
        return self.field(m).path((float(g[0]), float(g[1])))


__all__ = ["ChargeProblem", "Placement", "coherent", "sd_many", "offset_spots"]
