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
coherency tests), ``spots.py`` the candidate construction (a mixin), ``banks.py`` what
each candidate spot is worth to every base of a shape (a mixin: fits, contact, range,
fighting across), ``score_rows.py`` the search's score terms as matrix rows, ``refine.py`` the
judging and improvement of a placement (a mixin: engagement, unit-level checks, the
base-contact and within-1" passes, held-back models, contacts), and this file the
problem and the search itself (banks, costs, orders of play).

``needed`` (see ``system.py``) uses a proven lower bound (the straight-line distance of
the closest model to each target's engagement range) and the least candidate cost with
which the placement succeeds.
"""

from __future__ import annotations

import math

import numpy as np

from ... import budget
from ...geometry.paths import Planner
from ...geometry.shapes import TOL, ConvexPolygon, Footprint
from .banks import BankBuilder
from .costs import CostBook
from .moves import MoveRules, charge_rules
from .refine import Refiner
from .score_rows import DENSE_CELLS, ScoreRows
from .solver_base import (  # noqa: F401  (re-exported: the placement values live there)
    BUDGET_SLACK,
    BUDGET_TARGETS,
    CLEAR_BLOCK,
    EPS,
    LOCUS_HAIR,
    OUT_MARGIN,
    SMALL_UNIT,
    TRIM_MARGIN,
    WRAP_NEAREST,
    Bank,
    Cands,
    Growing,
    Placement,
    StraightLines,
    _floor_edge_crossings,
    _segments_cross,
    _segments_cross_from,
    _unit_vecs,
    base_gaps,
    coherency_adjacency,
    coherent,
    face_spots,
    furthest,
    least_roll,
    mark_against,
    offset_spots,
    pair_norm,
    sd_many,
    shape_key,
)
from .spots import SpotBuilder
from .world import Model, World

#: the fields of a Bank, in order
BANK_FIELDS = ("pts", "z", "ok", "contact", "er", "dist", "tok", "bar")


class ChargeProblem(BankBuilder, SpotBuilder, Refiner, CostBook):
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
        self._blocker_circles = (
            np.array([f.fp.center for f in self.blockers], dtype=float).reshape(-1, 2),
            np.array([f.fp.radius for f in self.blockers], dtype=float),
        )
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
        self._derived: dict[tuple, np.ndarray] = {}  # per-spot terms of the search (_rows)
        self.two = self.rules.two_neighbours
        self.kws = world.unit_keywords[unit]
        self._prep_others()
        # start distances to each target unit (for "ends closer")
        self.start_dist = np.full((len(self.models), len(self.targets)), np.inf)
        if self._all_disc and self.models and self.all_targets:
            # perf: every (model, target model) pair at once, with sd_many's closed form
            # for two discs (centre gap less both radii) and max(0, .) as np.where; the
            # least over a target unit's models is the same number in any order
            S = np.array([m.xy for m in self.models], dtype=float).reshape(-1, 2)
            dx = S[:, None, 0] - self._t_pc[None, :, 0]
            dy = S[:, None, 1] - self._t_pc[None, :, 1]
            rm = np.array([m.fp.parts[0].r for m in self.models])
            sd = np.sqrt(dx * dx + dy * dy) - rm[:, None] - self._t_pr[None, :]
            sd = np.where(sd > 0.0, sd, 0.0)
            for j in range(len(self.targets)):
                cols = self.target_col == j
                if cols.any():
                    self.start_dist[:, j] = sd[:, cols].min(axis=1)
        else:
            for i, m in enumerate(self.models):
                for j, tl in enumerate(self.tmodels):
                    for t in tl:
                        self.start_dist[i, j] = min(self.start_dist[i, j], max(0.0, float(sd_many(m.fp, m.xy[None], t.fp)[0])))
        self.keys = {m.id: shape_key(m) for m in self.models}
        self.rep: dict[tuple, Model] = {}
        for m in self.models:
            self.rep.setdefault(self.keys[m.id], m)
        # the unit's models of each shape, in unit order
        self._of_shape: dict[tuple, list[Model]] = {key: [m for m in self.models if self.keys[m.id] == key] for key in self.rep}
        # ``initial_spots`` False: the caller brings its own candidates (the model-by-model
        # moves skip the charge's spot construction for bases that need the root finder)
        self.banks: dict[tuple, Bank] = {
            k: self._initial_bank(rep) if initial_spots else self._bank(rep, np.zeros((0, 2))) for k, rep in self.rep.items()
        }
        self.costs: dict[str, np.ndarray] = {m.id: np.zeros(0) for m in self.models}
        self.exact: dict[str, np.ndarray] = {m.id: np.zeros(0, dtype=bool) for m in self.models}
        self.pending: dict[str, np.ndarray] = {m.id: np.zeros(0, dtype=bool) for m in self.models}
        self._owed: dict[str, np.ndarray] = {}  # costs.py: owed
        self._cbuf: dict[str, tuple[np.ndarray, ...]] = {}
        self._gbuf: dict[tuple, tuple[np.ndarray, ...]] = {}  # costs.py: _append_rows
        self._gof: dict[str, tuple] = {}
        self._closer_of: dict[str, Growing] = {}  # costs.py: closer
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
            f = self.planner.field(m.fp, budget=self.cap + BUDGET_SLACK)
            self._fields[m.id] = f
        return f

    # ------------------------------------------------------------------ constructed spots
    def grow(self, around: list[tuple[Model, np.ndarray]], placed: list[tuple[Model, np.ndarray]] | None = None) -> None:
        """Add constructed spots round newly placed models to every bank."""
        if not around:
            return
        # perf, exact: the new rows depend only on the base shape, the models placed
        # (which, where, in which order) and the problem's fixed terrain, units and
        # targets, so a search that places the same models at the same spots in the
        # same order as an earlier one (the probes of ``needed`` and the final
        # placement often start alike) appends the very rows it built then
        memo: dict[tuple, Bank] = self.__dict__.setdefault("_grow_memo", {})
        state = (
            tuple((q.id, np.asarray(p, dtype=float).tobytes()) for q, p in around),
            tuple((o.id, np.asarray(p, dtype=float).tobytes()) for o, p in (placed or [])),
        )
        for key, rep in self.rep.items():
            budget.check()
            nb = memo.get((key, state))
            if nb is None:
                pts = np.vstack([self._spots_around(rep, q, p, placed or []) for q, p in around])
                # perf, exact: spots where the base does not fit are left out. Every
                # reader of a bank's spots asks ``ok`` first (the search's usable spots,
                # the reachability test, the candidate costs of ``needed``, ``cands``),
                # and a bank's rows are independent of each other, so the kept spots
                # keep their order and every value: the same spot wins every choice.
                nb = memo[(key, state)] = self._bank(rep, pts, drop=True)
            start = len(self.banks[key].pts)
            self.banks[key] = self._bank_appended(key, nb)
            # every model of the shape gets costs (later orders of play may use them)
            self._costs_batch(self._of_shape[key], self.banks[key], start)

    def _bank_appended(self, key: tuple, nb: Bank) -> Bank:
        """The bank of shape ``key`` with the rows of ``nb`` after its own: the values
        concatenation gives. perf: every field lives in a buffer that doubles when full,
        and the bank's fields are views of the filled part, so a growth writes only its
        new rows. Exact: nothing writes into a bank's arrays (a bank is replaced, never
        changed), and a new bank's rows past the old length are written before anyone
        sees them, so an older bank's views keep their values."""
        b = self.banks[key]
        n0, n1 = len(b.pts), len(b.pts) + len(nb.pts)
        bufs = self.__dict__.setdefault("_bank_bufs", {})
        buf = bufs.get(key)
        if buf is None or b.pts.base is not buf[0] or len(buf[0]) < n1 or any(
            getattr(b, f).base is not a or len(getattr(b, f)) != n0 for f, a in zip(BANK_FIELDS, buf, strict=True)
        ):
            cap = max(n1, 2 * n0, 64)
            buf = []
            for f in BANK_FIELDS:
                old = getattr(b, f)
                a = np.empty((cap, *old.shape[1:]), dtype=np.result_type(old, getattr(nb, f)))
                a[:n0] = old
                buf.append(a)
            buf = bufs[key] = tuple(buf)
        for f, a in zip(BANK_FIELDS, buf, strict=True):
            a[n0:n1] = getattr(nb, f)
        return Bank(*(a[:n1] for a in buf))

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
            # (also wholly on the board, for every base: spots._board_bound)
            lb = max(lb, float(np.min(self.start_dist[:, j])) - reach, self._board_bound(j, reach))
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
            use = b.ok & (self.costs[m.id] <= R + BUDGET_SLACK) & eng[:, ~out].any(axis=1)
            if self.enforce_closer:
                use &= self.closer(m)
            if use.any():
                # only planned costs decide reachability; a planned cost is never below
                # the straight-line bound, so spots already over R stay out
                out = self._reached(m, np.flatnonzero(use), eng, R, out)
        return out

    def _reached(self, m: Model, idx: np.ndarray, eng: np.ndarray, R: float, known: np.ndarray) -> np.ndarray:
        """``known`` (targets reached already) or, per target, does some spot of
        ``idx`` engaging it cost m at most R once planned? Every spot of ``idx`` is owed (costs.py), and only as many are paid as
        the answer needs: cheapest bound first, in doubling batches, a batch leaving out
        the spots that engage only targets answered yes by now. The answer of a target
        is yes as soon as one planned spot engaging it is within R, and no once every
        spot engaging it is planned over R: the same answer as planning them all."""
        self.owe(m, idx)
        c = self.costs[m.id]
        o = self.owed(m.id)
        done = idx[~o[idx]]
        out = known | eng[done[c[done] <= R + BUDGET_SLACK]].any(axis=0)
        rest = idx[o[idx]]
        k = REACH_FIRST
        while True:
            rest = rest[eng[rest][:, ~out].any(axis=1)]
            if len(rest) == 0:
                return out
            budget.check()
            rest = rest[np.argsort(c[rest], kind="stable")]
            part, rest = rest[:k], rest[k:]
            self.pay(m, part)
            out |= eng[part[c[part] <= R + BUDGET_SLACK]].any(axis=0)
            k *= 2

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
        pool = fresh or [p for p in self._found[tokens] if p.max_cost <= R + BUDGET_SLACK][:4]
        if not pool:
            return None
        if not improve:
            return self.fit(pool[0], R)
        best: Placement | None = None
        best_n = -1
        tried: set[tuple] = set()
        for p in pool:
            # perf, exact: two orders of play often end with every model on the same
            # spot. The improvement passes read only where each model stands (position,
            # level) and which models use a token, so such a placement improves to the
            # same one with the same contact count, which cannot beat the first (the
            # count must grow strictly): it is not improved again
            seen = _where_key(p)
            if seen in tried:
                continue
            tried.add(seen)
            if self.rules.contact_first:
                p = self._improve(p, R, tokens)
            if self.w.rules.ed.within_one_duty:
                p = self._improve_within(p, R)
            n = sum(1 for m in self.models if self._in_contact(m, p.pos[m.id], p.z[m.id]))
            if n > best_n:
                best, best_n = p, n
            if n == len(self.models):
                break
        return None if best is None else self.fit(best, R)

    def fit(self, pl: Placement, R: float) -> Placement:
        """The placement with every move within R + TOL - TRIM_MARGIN (solver_base: the
        order of the tolerances). The budget test lets a move cost up to R +
        BUDGET_SLACK, a hair over the contract's R + TOL, because spots are built a hair
        inside the gap they are built at: such a model steps back along the last piece
        of its path by the excess and a quarter hair (at most 3.25 LOCUS_HAIR), which
        opens its gaps by no more than that. The unit is checked again with the search's own
        slack (EPS) on engagement and coherency. Unchanged when no move is over, and
        when a step back cannot be made on the same straight piece at the same level or
        leaves the unit short of a condition (then the over-spend, at most
        BUDGET_SLACK - TOL, stays)."""
        top = R + TOL - TRIM_MARGIN
        over = [m for m in self.models if pl.cost.get(m.id, 0.0) > top and m.id not in pl.via]
        if not over:
            return pl
        out = Placement(dict(pl.pos), dict(pl.z), dict(pl.cost), list(pl.order), via=dict(pl.via))
        for m in over:
            goal = np.asarray(pl.pos[m.id], dtype=float)
            pr = self.path_of(m, goal)
            if pr is None or self.flies(m, goal) or len(pr.points) < 2:
                return pl
            back = np.asarray(pr.points[-2][:2], dtype=float) - goal
            L = float(np.linalg.norm(back))
            # a little past the excess, so rounding in the new cost cannot leave it over
            step = pl.cost[m.id] - top + LOCUS_HAIR / 4
            if L <= 2 * step:
                return pl
            spot = goal + back * (step / L)
            if abs(float(self.w.ground_z(spot[None])[0]) - float(self.w.ground_z(goal[None])[0])) > 1e-12:
                return pl
            c = float(self._costs(m, Bank(spot[None], np.array([pl.z[m.id]]), np.ones(1, dtype=bool),
                                          *([np.zeros((1, 0))] * 5)))[0])
            if not c <= top:
                return pl
            out.pos[m.id], out.cost[m.id] = spot, c
        ok = bool(self.engaged_by(out).all()) and coherent(self.models, out, self.w.rules, self.two, slack=EPS)
        return out if ok else pl

    def _rows(self, name: tuple, b: Bank, fn) -> np.ndarray:  # noqa: ANN001
        """perf: a per-spot array ``fn(b, start)`` (the rows from ``start`` on) derived
        from bank ``b``, kept across the steps, orders of play and probes of the search
        and extended as the bank grows. Exact: a bank only ever grows at its end (grow)
        and never changes a row, and every derived value depends on its own row alone,
        so the kept array equals the one computed afresh, bit for bit."""
        hit = self._derived.get(name)
        n = len(b.pts)
        if hit is not None and len(hit) == n:
            return hit
        arr = fn(b, 0) if hit is None else np.concatenate([hit, fn(b, len(hit))])
        self._derived[name] = arr
        return arr

    def _score_rows(self, b: Bank, s: int, tokens: bool, mode: tuple) -> np.ndarray:
        """The part of the greedy score that depends only on the spots (rows s: of b),
        for one phase ``mode`` of the search (see _greedy): engaging a target not yet
        engaged first, then base contact, then closeness; "least" weighs only the
        engaging, the move's length decides the rest."""
        nT = len(self.targets)
        if mode[0] == "mid":
            return -np.sum(b.dist[s:], axis=1) * 1e3
        contact_first = mode[-1]
        least = contact_first == "least"
        if mode[0] == "done" and least:
            return np.zeros(len(b.pts) - s)
        eng = b.er[s:] | b.bar[s:]
        if tokens:
            eng = eng | b.tok[s:]
        contact = b.contact[s:].astype(float)
        if tokens:
            contact = contact + 0.5 * b.er[s:].any(axis=1)  # normal spots before tokens
        if mode[0] == "done":
            focus = np.min(b.dist[s:], axis=1)
            return contact * 1e8 + np.any(eng, axis=1) * 1e6 - focus * 1e3
        if mode[0] == "first":
            ft = mode[1]
            new = eng[:, ft]
            cols = [j for j in range(nT) if j != ft] or [ft]
        else:
            cols = list(mode[1])
            new = np.any(eng[:, cols], axis=1)
        focus = np.min(b.dist[s:, cols], axis=1)
        if least:
            return new * 1e8
        if contact_first:
            return new * 1e8 + contact * 1e6 - np.round(focus / 0.05) * 1e2
        return new * 1e8 - np.round(focus / 0.05) * 1e3 + contact * 10.0

    def succeeds(self, R: float, tokens: bool = False) -> bool:
        """``solve(R, improve=False, tokens=tokens) is not None``, answered without the
        search when a placement found before already fits within R.

        perf, exact: ``solve`` returns None only when some target is unreachable within
        R or when no order of play succeeds and no remembered placement fits. A
        remembered placement whose every move is within R + BUDGET_SLACK stays in the pool, so
        then the answer is just the reachability test. This skips the search's side
        effects (its spots grow, it remembers what it finds): call it only when the
        problem is not searched again afterwards (the walls-rule question of the final
        placement, system.solve_any)."""
        if any(p.max_cost <= R + BUDGET_SLACK for p in self._found[tokens]):
            return bool(self.reachable_targets(R, tokens).all())
        return self.solve(R, improve=False, tokens=tokens) is not None

    def _greedy(self, R: float, first_target: int, contact_first: bool | str = False, tokens: bool = False) -> Placement | None:
        r = self.w.rules
        n = len(self.models)
        nT = len(self.targets)
        by_id = {m.id: m for m in self.models}
        # dynamic state lives on the banks (it depends only on spot geometry):
        # overlap with a placed model, and the number of coherency links to placed ones
        # (perf: Growing buffers, so a bank's growth appends instead of copying)
        overlap = {k: Growing(np.zeros(len(b.pts), dtype=bool)) for k, b in self.banks.items()}
        links = {k: Growing(np.zeros(len(b.pts), dtype=int)) for k, b in self.banks.items()}
        placed: list[str] = []
        pos: dict[str, np.ndarray] = {}
        zz: dict[str, float] = {}
        cost: dict[str, float] = {}
        engaged = np.zeros(nT, dtype=bool)
        via: dict[str, str] = {}

        def usable(m: Model, start: int = 0) -> np.ndarray:
            b = self.banks[self.keys[m.id]]
            c = self.costs[m.id][start:]
            u = b.ok[start:] & (c <= R + BUDGET_SLACK)
            if self.enforce_closer:
                u &= self.closer(m)[start:]
            return u

        # per model: which spots it may use (grown with the banks), their indices, and
        # the move-length term of the score on them (perf: Growing buffers, so a bank's
        # growth appends instead of copying; the term is recomputed when its weight
        # changes or when the model's costs are planned again)
        use = {m.id: Growing(usable(m)) for m in self.models}
        # owed spots (costs.py) stand in ``use`` on their bounds. "No usable spot" is
        # asked of planned costs: a model whose usable spots are all owed has them
        # planned first (a spot with a non-owed usable cost is usable either way)
        for m in self.models:
            u = use[m.id].a
            if u.any() and not (u & ~self.owed(m.id)).any():
                self.pay(m, np.flatnonzero(u))
                use[m.id] = Growing(usable(m))
        if any(not u.a.any() for u in use.values()):
            return None
        ui_of: dict[str, Growing] = {}
        cw_of: dict[str, tuple[float, Growing]] = {}
        # perf, exact: the models of a shape as the rows of one matrix (score_rows.py
        # says why the spots and values are the per-model ones); their ``use`` moves there
        dense: dict[tuple, ScoreRows] = {}
        w0 = 1.0 if contact_first == "least" else 1e-3
        for k, ms_k in self._of_shape.items():
            if len(ms_k) * len(self.banks[k].pts) <= DENSE_CELLS:
                ids = [m.id for m in ms_k]
                dense[k] = ScoreRows(ids, np.stack([use.pop(mid).a for mid in ids]), np.stack([self.costs[mid] for mid in ids]), w0)

        def refresh(m: Model) -> None:
            """m's costs were planned again: its usable spots and score terms afresh."""
            dg = dense.get(self.keys[m.id])
            if dg is not None:
                dg.reset(m.id, usable(m), self.costs[m.id])
            else:
                use[m.id] = Growing(usable(m))
                ui_of.pop(m.id, None)
                cw_of.pop(m.id, None)

        def firm_normal(m: Model, feas: np.ndarray, normal_free: np.ndarray) -> bool:
            """Walls rule: "can m reach a normal legal spot" is asked of planned costs.
            When only owed spots could say yes, they are planned (True: m refreshed)."""
            o = self.owed(m.id)
            if (feas & normal_free & ~o).any() or not self.pay(m, np.flatnonzero(feas & normal_free & o)):
                return False
            refresh(m)
            return True

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
            picks: dict[str, tuple[int, float]] = {}
            for k, b in self.banks.items():
                free = ~overlap[k].a & (links[k].a >= need)
                # perf: the terms that depend only on the spots are kept per bank (and
                # per phase of the score) and extended as the bank grows (_rows)
                normal_any = self._rows((k, "normal"), b, _normal_rows)
                token_only = self._rows((k, "token_only"), b, _token_only_rows) if tokens else None
                if unen.any():
                    if not placed and first_target < 0:
                        # the first model stands where it is closest to every target
                        mode: tuple = ("mid",)
                    elif not placed:
                        mode = ("first", first_target, contact_first)
                    else:
                        mode = ("unen", tuple(int(j) for j in np.flatnonzero(unen)), contact_first)
                else:
                    mode = ("done", contact_first)
                base = self._rows((k, tokens, mode), b, lambda bb, s0, mode=mode: self._score_rows(bb, s0, tokens, mode))
                terms[k] = (np.where(free, base, -np.inf), normal_any & free, token_only)
                dg = dense.get(k)
                if dg is not None:
                    if dg.w != w:
                        dg.reweigh(w, self.costs)
                    if token_only is not None:
                        for mid in list(dg.ids):
                            firm_normal(by_id[mid], dg.U[dg.row[mid], : dg.n], terms[k][1])
                    js, vs = dg.best(terms[k][0], token_only, terms[k][1])
                    picks.update(zip(dg.ids, zip(js, vs, strict=True), strict=True))

            def scores(m: Model, terms: dict = terms, w: float = w) -> tuple[np.ndarray, np.ndarray]:
                """m's spots it may take now (index order) and its score on each (on
                the bound where the spot is owed)."""
                k = self.keys[m.id]
                base, normal_free, token_only = terms[k]
                dg = dense.get(k)
                if dg is not None:
                    return np.arange(dg.n), dg.scores(m.id, base, token_only, normal_free)
                feas = use[m.id].a
                # perf: the score only over the model's usable spots (in index order, so
                # argmax picks the same first best spot the whole-bank score picks;
                # unusable spots score -inf there and never win)
                if token_only is not None and firm_normal(m, feas, normal_free):
                    feas = use[m.id].a
                if token_only is not None and (feas & normal_free).any():
                    # a model that can reach a normal legal spot must take one; only
                    # the others may use a token against the wall (seed 000, steps 3-4)
                    ui = np.flatnonzero(feas & ~token_only)
                    return ui, base[ui] - self.costs[m.id][ui] * w
                g = ui_of.get(m.id)
                if g is None:
                    g = ui_of[m.id] = Growing(np.flatnonzero(feas))
                ui = g.a
                # perf, exact: costs[ui] * w, kept: a model's costs change in the
                # search only where it is planned again, and then its record goes
                cw = cw_of.get(m.id)
                if cw is None or cw[0] != w:
                    cw = cw_of[m.id] = (w, Growing(self.costs[m.id][ui] * w))
                # perf: the same gather and difference, in place (base.take(ui) is
                # base[ui]; the method calls skip numpy's function dispatch)
                sub = base.take(ui)
                sub -= cw[1].a
                return ui, sub

            # perf, exact: the pick of the eager search (every owed spot planned). Each
            # model's best score is taken in turn, and replaces the best so far when
            # it is larger by more than 1e-12, as before. An owed spot's score is on
            # its bound, an upper bound on its planned score (costs.py), and a spot
            # not owed scores what it did. So when m's best is an owed spot and cannot
            # replace the best so far, m's planned best cannot either: m is passed by,
            # its spots left owed. When it could, m's owed spots that could are planned
            # (best bound first, a batch doubling at each try) and m is scored again.
            # When m's best is a spot not owed, it is m's planned best (same value,
            # same first index): every other spot scores at most its planned score
            # plus what planning can only lower, and a spot before it scoring as much
            # once planned would score at least as much now. So every model is
            # compared with its planned best or provably left out, in the same order
            # with the same test: the same (model, spot) wins, and the state every
            # later step and reader sees is the eager one (costs.py: owed).
            for m in self.models:
                if m.id in pos:
                    continue
                hit = picks.get(m.id)
                tries = 0
                while True:
                    if hit is None:
                        ui, sub = scores(m)
                        if len(ui) == 0:
                            break
                        j = int(sub.argmax())
                        hit = (int(ui[j]), float(sub[j]))
                    i, v = hit
                    if not math.isfinite(v) or (best is not None and not v > best[0] + 1e-12):
                        break
                    if not self.owed(m.id)[i]:
                        best = (v, m.id, i)
                        break
                    ui, sub = scores(m)
                    bar = -np.inf if best is None else best[0] + 1e-12
                    sel = np.flatnonzero(self.owed(m.id)[ui] & (sub > bar))
                    top = sel[np.lexsort((sel, -sub[sel]))[: PAY_FIRST << min(tries, 20)]]
                    self.pay(m, ui[top])
                    refresh(m)
                    tries += 1
                    hit = None
            if best is None:
                return None
            _, mid, i = best
            if not self.exact[mid][i]:
                self._settle(by_id[mid], np.array([i]))
            if not self.exact[mid][i]:
                # the spot's cost was a straight-line lower bound: this model's usable
                # spots are to be planned (owed, costs.py; the pick above plans what
                # it needs), then choose again
                dg = dense.get(self.keys[mid])
                self.owe(by_id[mid], np.flatnonzero(dg.usable(mid) if dg is not None else use[mid].a))
                refresh(by_id[mid])
                continue
            b = self.banks[self.keys[mid]]
            pos[mid] = b.pts[i].copy()
            zz[mid] = float(b.z[i])
            cost[mid] = float(self.costs[mid][i])
            # (row i of engages(b, tokens), without the whole bank's matrix)
            eng = (b.er[i] | b.bar[i] | b.tok[i]) if tokens else (b.er[i] | b.bar[i])
            engaged |= eng
            if not (b.er[i].any() or b.bar[i].any()) and b.tok[i].any() and tokens:
                via[mid] = "token"
            placed.append(mid)
            if len(placed) == n:
                break
            if self.keys[mid] in dense:
                dense[self.keys[mid]].drop(mid)
            pm = by_id[mid]
            sizes = {k: len(bb.pts) for k, bb in self.banks.items()}
            self.grow([(pm, pos[mid])], [(by_id[q], pos[q]) for q in placed[:-1]])
            for k, bb in self.banks.items():
                s0 = sizes[k]
                extra = len(bb.pts) - s0
                if extra:
                    # state of the new spots against models placed before this one
                    no, nl = self._against(self.rep[k], bb.pts[s0:], bb.z[s0:], [(by_id[q], pos[q], zz[q]) for q in placed[:-1]])
                    overlap[k].extend(no)
                    links[k].extend(nl)
                # every spot against the newly placed model
                rep = self.rep[k]
                mark_against(overlap[k].a, links[k].a, self._sd_at(rep, bb.pts, pm, pos[mid]), bb.z, zz[mid], r.coh, r.coh_v)
            # perf: the models that are still to place, grouped by shape and by how many
            # spots they have already judged, get their new spots judged at once
            for k, dg in list(dense.items()):
                nb = len(self.banks[k].pts)
                if nb > dg.n and dg.ids:  # (a shape whose models are all placed waits no more)
                    ms_k = [by_id[q] for q in dg.ids]
                    rows, C = self._usable_rows(ms_k, dg.n, R, with_costs=True)
                    dg.extend(rows, C)
                if dg.cells() > DENSE_CELLS:
                    # too big to hold as matrices: back to the per-model form
                    for q in dg.ids:
                        use[q] = Growing(dg.usable(q))
                    del dense[k]
            todo: dict[tuple, list[Model]] = {}
            for m in self.models:
                if m.id not in pos and m.id in use and len(self.costs[m.id]) > use[m.id].n:
                    todo.setdefault((self.keys[m.id], use[m.id].n), []).append(m)
            for (_, old), ms_k in todo.items():
                rows = self._usable_rows(ms_k, old, R)
                for j, m in enumerate(ms_k):
                    more = rows[j]
                    use[m.id].extend(more)
                    g = ui_of.get(m.id)
                    if g is not None:
                        # perf: the usable indices (and their score term) grow with
                        # the spots (no rescan)
                        new = np.flatnonzero(more) + old
                        g.extend(new)
                        cw = cw_of.get(m.id)
                        if cw is not None:
                            cw[1].extend(self.costs[m.id][new] * cw[0])
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


#: spots paid in _reached's first batch (doubled per batch)
REACH_FIRST = 32

#: owed spots paid at once when the search's pick needs a model's planned scores
#: (doubled each time the same model needs more within one step)
PAY_FIRST = 32


def _where_key(p: Placement) -> tuple:
    """Where each model of a placement stands (position bits, level) and which use a
    token: everything the improvement passes read of it."""
    return tuple((mid, p.pos[mid].tobytes(), p.z[mid]) for mid in sorted(p.pos)), tuple(sorted(p.via.items()))


def _normal_rows(b: Bank, s: int) -> np.ndarray:
    """Spots (rows s:) that engage some target normally (range or barricade)."""
    return (b.er[s:] | b.bar[s:]).any(axis=1)


def _token_only_rows(b: Bank, s: int) -> np.ndarray:
    """Spots (rows s:) that engage only with a token across a ruin wall."""
    return b.tok[s:].any(axis=1) & ~(b.er[s:] | b.bar[s:]).any(axis=1)


__all__ = ["ChargeProblem", "Placement", "coherent", "sd_many", "offset_spots"]
