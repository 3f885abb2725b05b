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
base-contact and within-1" passes, held-back models, contacts), ``costs.py`` the path
costs (straight bounds first, owed plans paid when read), ``greedy.py`` the search's order
of play (a mixin: which model takes which spot, step by step), and this file the problem
and the solve loop (banks, reachability, the orders of play tried, the fit).

``needed`` (see ``system.py``) uses a proven lower bound (the straight-line distance of
the closest model to each target's engagement range) and the least candidate cost with
which the placement succeeds.
"""

from __future__ import annotations

import numpy as np

from ... import budget
from ...geometry.paths import Planner
from ...geometry.shapes import TOL, ConvexPolygon, Footprint
from .banks import BankBuilder
from .costs import CostBook
from .greedy import Greedy
from .moves import MoveRules, charge_rules
from .refine import Refiner
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


class ChargeProblem(Greedy, BankBuilder, SpotBuilder, Refiner, CostBook):
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



def _where_key(p: Placement) -> tuple:
    """Where each model of a placement stands (position bits, level) and which use a
    token: everything the improvement passes read of it."""
    return tuple((mid, p.pos[mid].tobytes(), p.z[mid]) for mid in sorted(p.pos)), tuple(sorted(p.via.items()))






__all__ = ["ChargeProblem", "Placement", "coherent", "sd_many", "offset_spots"]
