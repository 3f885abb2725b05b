"""The placement engine's search for moves made model by model: pile-in, consolidation
and edition 9's heroic intervention (issue 9: one engine for every 40k move).

The charge and these moves share one engine, ``solver.ChargeProblem``, built from the
move's :class:`~.moves.MoveRules`: its constructed candidate spots (contact and
engagement loci round every enemy model the move is made toward, their crossings with
budget, packing and coherency circles, tangent spots round obstacles), its test of where
a base may stand (board, terrain no base may end on, other models, the zones the rules
forbid), its path costs (the exact planner of geometry/paths.py: tangent segments and
arcs, climbing counted) and its exact recorded paths (``moves[].segments``). What differs
is the search on top: a charge must engage every target at once (``ChargeProblem.solve``);
here every model improves its own end (base contact, then engagement range, then as close
as it gets to the enemy model that was closest to it), one at a time, the unit staying
coherent (:meth:`Settle.place`).

Candidate spots added here, on top of the engine's (all constructed, geometry/placement.py):
the contact and engagement-edge spots nearest the start and where they cross the full
move's circle, the spots packed between two enemy bases or against terrain, the spots
where the straight approach toward the closest enemy model meets a locus (its contact or
engagement edge, or, a hair short, the contact locus of anything in the way), linking
spots where coherency loci of the mates cross those loci and each other (two links) and
where each is nearest the start or the closest enemy's contact spot (for oval and other
non-round bases with the three nearest mates and enemy models: the root finder), and,
for models whose duty depends on whether any normal legal position is in reach (token
models), every vertex of the arrangement of circles that bound where the model may end.
No spot comes from a fixed set of directions or an even spacing.

Non-round bases may turn about their centre once, at the start or at the end of the
move (editions 9 and 10; settle_pivots.py): each option carries its ``pose`` and a plan
the pose of each moved model, so coherency, overlaps and contacts are judged with the
base as it ends.

The candidate spots are built in settle_spots.py, the options and plans and the path
geometry they use live in settle_base.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...geometry.paths import path_cost
from ...geometry.shapes import TOL
from ...ruling import Move
from .moves import MoveRules, failed_charge_rules, gap3
from .settle_base import (  # noqa: F401  (re-exported: the names settle.py always offered)
    CLOSER_MARGIN,
    EPS,
    FORBID_CLEAR,
    HAIR,
    OPT_FIELDS,
    Opts,
    Plan,
    _point_along,
    _point_along_curve,
    _pt,
    _r6,
    ray_locus_crossings,
)
from .settle_pivots import Pose, record_turned
from .settle_spots import SettleSpots
from .solver import ChargeProblem, coherency_adjacency, sd_many
from .spots import SpotBuilder
from .world import Model, World


class Settle(SettleSpots):
    """One unit's model-by-model move under ``rules``, on the placement engine."""

    def __init__(self, world: World, unit: str, rules: MoveRules, dense: set[str] | frozenset[str] = frozenset()):
        if rules.closer != "closest_model" or rules.engage_all:
            raise ValueError("Settle places moves made model by model (closer to the closest enemy model)")
        self.w = world
        self.rules = rules
        self.dense = set(dense)  # models whose options are searched densely
        r = world.rules
        self.unit = unit
        # the engine's own constructed spots: closed forms for round bases; ovals and
        # other shapes need the root finder for every locus, which the spots built here
        # already cover for the enemies within reach, so they are not built twice
        round_only = all(m.fp.is_disc for m in world.unit_models[unit])
        self.eng = ChargeProblem(world, unit, list(rules.engage), rules.budget, rules=rules, initial_spots=round_only)
        self.models = list(world.unit_models[unit])
        self.by_id = {m.id: m for m in self.models}
        p = world.unit_player[unit]
        self.enemies = [m for m in world.models if m.player != p]
        self.others = [m for m in world.models if m.unit != unit]
        self.blockers = self.eng.blockers
        self.budget = rules.budget
        self.er = r.er
        self.er_v = r.er_v
        self.two = rules.two_neighbours
        # the enemy model(s) closest to each model when the move begins (the rules'
        # reference) and that distance
        ids = {e.id: e for e in self.enemies}
        self.closest: dict[str, list[Model]] = {m.id: [ids[i] for i in rules.closer_to.get(m.id, ())] for m in self.models}
        self.d0: dict[str, float] = {
            m.id: min((self._gap(m, m.xy[None], m.z, e)[0] for e in self.closest[m.id]), default=math.inf) for m in self.models
        }
        self._base_opts: dict[str, Opts] = {}
        # pivots (settle_pivots.py): editions 9 and 10 let a non-round base turn about
        # its centre at the start or the end of its move; ``poses[model][k]`` is the
        # k-th such turn offered (index 0: none)
        self.pivots = r.edition in (9, 10)
        self.poses: dict[str, list[Pose | None]] = {m.id: [None] for m in self.models}
        self._turned_fields: dict[tuple[str, float], object] = {}
        self.closer_margin = CLOSER_MARGIN

    def pose_model(self, m: Model, k: int) -> Model:
        """The model as its base stands in pose ``k`` at the end of its move (at its start
        spot: callers move the footprint where they need it)."""
        pv = self.poses[m.id][k] if k else None
        return m if pv is None else pv.model

    def placed(self, mid: str, plan: Plan) -> Model:
        """Model ``mid`` with the facing the plan gives it."""
        return self.pose_model(self.by_id[mid], plan.pose.get(mid, 0))

    # ---------------------------------------------------------------- measures
    def _gap(self, m: Model, pts: np.ndarray, z: float | np.ndarray, e: Model) -> np.ndarray:
        return gap3(m.fp, pts, z, e, self.rules.closer_vertical)

    def floor_of(self, m: Model):  # noqa: ANN201
        """The ruin floor (outline, height) the model stands on, or None (on the
        ground, or above it somewhere else)."""
        if abs(m.z - float(self.w.ground_z(m.xy)[0])) <= 1e-9:
            return None
        for _, poly, h in self.w.floors:
            if abs(m.z - h) <= 1e-9 and bool(SpotBuilder._base_on_floor(m, m.xy[None], poly)[0]):
                return poly, float(h)
        return None

    def elevated(self, m: Model) -> bool:
        """Above the ground but not on a ruin floor we can move it on: it stays."""
        return abs(m.z - float(self.w.ground_z(m.xy)[0])) > 1e-9 and self.floor_of(m) is None

    # ---------------------------------------------------------------- the unit
    def _mates_graph(self, q: str | None, plan: Plan) -> tuple[list[Model], np.ndarray]:
        """The unit's models other than ``q`` and their coherency adjacency."""
        ms = [self.placed(m.id, plan) for m in self.models if m.id != q]
        adj = coherency_adjacency(ms, plan.pos, plan.z, self.w.rules, slack=TOL)
        return ms, adj

    @staticmethod
    def _labels(adj: np.ndarray) -> tuple[np.ndarray, int]:
        n = len(adj)
        lab = np.full(n, -1)
        c = 0
        for s in range(n):
            if lab[s] >= 0:
                continue
            lab[s] = c
            frontier = np.zeros(n, dtype=bool)
            frontier[s] = True
            while frontier.any():
                nxt = adj[frontier].any(axis=0) & (lab < 0)
                lab[nxt] = c
                frontier = nxt
            c += 1
        return lab, c

    def incoherence(self, plan: Plan) -> int:
        """1000 x (groups - 1) + models lacking neighbours: 0 is coherent."""
        if len(self.models) <= 1:
            return 0
        _, adj = self._mates_graph(None, plan)
        _, groups = self._labels(adj)
        need = 2 if self.two else 1
        return 1000 * (groups - 1) + int(np.sum(adj.sum(axis=1) < need))

    def spot_scores(self, m: Model, pts: np.ndarray, z: np.ndarray, plan: Plan,
                    pose: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For model m at each spot (its mates where the plan has them, turned as the
        plan turns them; m turned as ``pose`` says): the unit's incoherence, and whether
        the spot overlaps a mate at the same level."""
        k = len(pts)
        if len(self.models) <= 1 or k == 0:
            return np.zeros(k, dtype=int), np.zeros(k, dtype=bool)
        r = self.w.rules
        mates, adj = self._mates_graph(m.id, plan)
        sd = np.empty((k, len(mates)))
        kinds = np.zeros(k, dtype=int) if pose is None else np.asarray(pose, dtype=int)
        for j, q in enumerate(mates):
            other = q.fp.moved_to(_pt(plan.pos[q.id]))
            for v in np.unique(kinds):
                rows = kinds == v
                sd[rows, j] = sd_many(self.pose_model(m, int(v)).fp, pts[rows], other)
        dz = np.abs(z[:, None] - np.array([plan.z[q.id] for q in mates])[None, :])
        row = (sd <= r.coh + TOL) & (dz <= r.coh_v + TOL)
        overlap = np.any((sd < -EPS) & (dz <= 1e-9), axis=1)
        lab, C = self._labels(adj)
        touched = np.zeros((k, C), dtype=bool)
        for c in range(C):
            touched[:, c] = row[:, lab == c].any(axis=1)
        cnt = touched.sum(axis=1)
        groups = np.where(cnt == 0, C + 1, C - cnt + 1)
        need = 2 if self.two else 1
        lacking = np.sum((adj.sum(axis=1)[None, :] + row) < need, axis=1) + (row.sum(axis=1) < need)
        return 1000 * (groups - 1) + lacking, overlap

    @staticmethod
    def _rank(o: Opts, must_legal: bool) -> np.ndarray:
        """Indices of the options, best first: base contact, then engagement range,
        then closest to the closest enemy model, then the shortest move."""
        idx = np.arange(len(o.pts))
        if must_legal:
            idx = idx[o.er]
        keys = (o.cost[idx], Settle._gap_key(o)[idx], ~o.er[idx], ~o.contact[idx])
        return idx[np.lexsort(keys)]

    @staticmethod
    def _gap_key(o: Opts) -> np.ndarray:
        """The distance to the closest enemy as a ranking key: in base contact it is 0
        (the hair our contact spots keep is no reason to prefer one over another), and
        differences below the contract tolerance do not count, so the shorter move wins."""
        return np.where(o.contact, 0.0, np.round(o.gap / TOL) * TOL)

    @staticmethod
    def _key(o: Opts, i: int) -> tuple[bool, bool, float]:
        return (bool(o.contact[i]), bool(o.er[i]), float(o.gap[i]))

    @staticmethod
    def _improves(o: Opts, cur: tuple[bool, bool, float] | None) -> np.ndarray:
        """Which options beat the current spot (None: every option does)?"""
        if cur is None:
            return np.ones(len(o.pts), dtype=bool)
        c, e, g = cur
        better = (o.contact & (not c)) | ((o.contact == c) & o.er & (not e))
        same = (o.contact == c) & (o.er == e)
        return better | (same & (o.gap < g - CLOSER_MARGIN))

    def start_plan(self) -> Plan:
        return Plan({m.id: m.xy.copy() for m in self.models}, {m.id: m.z for m in self.models}, {m.id: 0.0 for m in self.models})

    def could_join(self, m: Model, plan: Plan) -> bool:
        """Could m (where it starts) move to a normal legal position with the rest of
        the unit where the plan has it, the unit no less coherent?"""
        o = self.legal_spots(m)
        if not len(o):
            return False
        base = self.incoherence(plan)
        score, overlap = self.spot_scores(m, o.pts, o.z, plan, o.pose)
        return bool(np.any((score <= base) & ~overlap))

    def _with_links(self, m: Model, plan: Plan) -> Opts:
        o = self.options(m)
        extra = self.evaluate(m, self._link_spots(m, plan))
        if len(extra.pts):
            o = o.joined(extra)
        return o

    def _set(self, plan: Plan, m: Model, o: Opts, i: int) -> None:
        plan.pos[m.id], plan.z[m.id], plan.cost[m.id] = o.pts[i].copy(), float(o.z[i]), float(o.cost[i])
        if float(np.linalg.norm(o.pts[i] - m.xy)) > 1e-12:
            plan.moved.add(m.id)
            plan.pose[m.id] = int(o.pose[i])  # type: ignore[index]
        else:
            plan.moved.discard(m.id)
            plan.pose.pop(m.id, None)

    def place(self, movers: list[str], must: set[str], passes: int = 4) -> Plan:
        """Move the listed models, each to its best spot, keeping the unit as coherent
        as it was (coherent when it started so). ``must``: models that may only end in
        a normal legal position (or stay where they are). Every move is measured from
        the model's start.

        1. Improvement passes: each model in turn takes its best spot that keeps the
           unit coherent; several passes let models follow one another.
        2. A ``must`` model that found no such spot is tried at each of its legal spots
           with the other movers re-placed to restore coherency (escorts, seed 000
           Example 1A-G); each escort move is itself a legal pile-in move.
        3. Improvement passes again.

        Models the rules hold still (``keep``) do not move unless listed in ``must``
        (the fight phase overrides a held token model that must pile in)."""
        movers = [q for q in movers if q not in self.rules.keep or q in must]
        plan = self.start_plan()
        cur: dict[str, tuple[bool, bool, float] | None] = {}
        for mid in movers:
            m = self.by_id[mid]
            o = self.options(m)
            here = np.nonzero(np.linalg.norm(o.pts - m.xy, axis=1) <= 1e-12)[0]
            # staying is the start; for ``must`` anything legal beats it
            cur[mid] = None if (mid in must or len(here) == 0) else self._key(o, int(here[0]))
        base = self.incoherence(plan)
        order = sorted(movers, key=lambda i: (i not in must, self.d0[i], i))
        self._improve(plan, order, must, cur, base, passes)
        for mid in order:
            if mid in must and mid not in plan.moved:
                self._escort(plan, mid, [q for q in order if q not in must], base, cur)
        self._improve(plan, order, must, cur, base, passes)
        if self.incoherence(plan) > 0:
            # a unit that starts out of coherency must end in it: legal moves that mend it
            self._repair(plan, order, must, cur)
            self._improve(plan, order, must, cur, self.incoherence(plan), passes)
        return plan

    def _repair(self, plan: Plan, movers: list[str], must: set[str], cur: dict[str, tuple[bool, bool, float] | None]) -> None:
        """Greedy: the legal move (a legal spot for ``must`` models) that most reduces
        the unit's incoherence, again and again while it helps."""
        inc = self.incoherence(plan)
        for _ in range(2 * len(movers) + 2):
            if inc == 0:
                return
            best = self._best_next(movers, plan, inc, must)
            if best is None:
                return
            _, q, oq, j = best
            self._set(plan, self.by_id[q], oq, j)
            cur[q] = self._key(oq, j)
            inc = best[0][0]

    def _best_next(self, movers, plan: Plan, inc: float, must: set[str]):  # noqa: ANN001, ANN202
        """Among ``movers``, the (rank, model id, options, spot index) of the best next
        move that lowers the plan's score below ``inc``, or None. Models in ``must``
        may only take a spot in engagement range or stay where they are."""
        best: tuple[tuple[int, int, int, float, float], str, Opts, int] | None = None
        for q in movers:
            mq = self.by_id[q]
            oq = self._with_links(mq, plan)
            if q in must:
                oq = oq.take(oq.er | (np.linalg.norm(oq.pts - mq.xy, axis=1) <= 1e-12))
            if len(oq) == 0:
                continue
            score, ov = self.spot_scores(mq, oq.pts, oq.z, plan, oq.pose)
            score = np.where(ov, np.iinfo(np.int64).max, score)
            gk = self._gap_key(oq)
            j = int(np.lexsort((oq.cost, gk, ~oq.er, ~oq.contact, score))[0])
            rank = (int(score[j]), int(not oq.contact[j]), int(not oq.er[j]), float(gk[j]), float(oq.cost[j]))
            if score[j] < inc and (best is None or rank < best[0]):
                best = (rank, q, oq, j)
        return best

    def _improve(self, plan: Plan, order: list[str], must: set[str], cur: dict[str, tuple[bool, bool, float] | None],
                 base: int, passes: int) -> None:
        for _ in range(passes):
            changed = False
            for mid in order:
                m = self.by_id[mid]
                c = cur[mid]
                if c is not None and c[0]:
                    continue  # in base contact: it cannot do better
                o = self._with_links(m, plan)
                ok = self._improves(o, c) & (np.linalg.norm(o.pts - m.xy, axis=1) > 1e-12)
                if mid in must:
                    ok &= o.er
                if not ok.any():
                    continue
                o = o.take(ok)
                score, overlap = self.spot_scores(m, o.pts, o.z, plan, o.pose)
                fine = (score <= base) & ~overlap
                for i in self._rank(o, False):
                    if fine[i]:
                        self._set(plan, m, o, int(i))
                        cur[mid] = self._key(o, int(i))
                        changed = True
                        break
            if not changed:
                break

    def _escort(self, plan: Plan, mid: str, escorts: list[str], base: int,
                cur: dict[str, tuple[bool, bool, float] | None], tries: int = 24) -> bool:
        """Put ``mid`` at one of its legal spots and re-place escorts, one greedy step
        at a time, until the unit is as coherent as it started."""
        m = self.by_id[mid]
        o = self.options(m)
        moving = np.linalg.norm(o.pts - m.xy, axis=1) > 1e-12
        ranked = [int(i) for i in self._rank(o, True) if moving[i]][:tries]
        if not ranked:
            return False
        _, overlap = self.spot_scores(m, o.pts[ranked], o.z[ranked], plan, o.pose[ranked])
        for i, bad in zip(ranked, overlap, strict=True):
            if bad:
                continue
            trial = plan.copy()
            self._set(trial, m, o, i)
            keys: dict[str, tuple[bool, bool, float] | None] = {mid: self._key(o, i)}
            inc = self.incoherence(trial)
            for _ in range(2 * len(escorts) + 2):
                if inc <= base:
                    break
                best = self._best_next(escorts, trial, inc, set())
                if best is None:
                    break
                _, q, oq, j = best
                self._set(trial, self.by_id[q], oq, j)
                keys[q] = self._key(oq, j)
                inc = best[0][0]
            if inc <= base:
                plan.pos, plan.z, plan.cost, plan.moved, plan.pose = trial.pos, trial.z, trial.cost, trial.moved, trial.pose
                cur.update(keys)
                return True
        return False


    # ---------------------------------------------------------------- the record
    def record(self, m: Model, goal: np.ndarray, z: float, contacts: list[str], token: bool, pose: int = 0) -> Move:
        """The model's move as published: the engine's exact path (tangent segments and
        arcs in ``segments``, their ends in ``path``), its cost with climbing and counted
        height. A straight move is rounded to 1e-6 like every coordinate; where rounding
        would lengthen a move that uses the whole budget, its end is pulled back along
        the line to fit. ``pose``: the turn the model makes (settle_pivots.py), recorded
        as a pivot piece at the start or the end of its pieces."""
        pv = self.poses[m.id][pose] if pose else None
        if pv is not None:
            return record_turned(self, m, pv, goal, z, contacts, token)
        g = np.asarray(goal, dtype=float)
        pr = self.eng.path_of(m, g)
        vert = self.w.vertical_cost(m.z, z)
        extra: dict[str, Any] = {}
        segs = list(getattr(pr, "segments", ()) or ()) if pr is not None else []
        if segs:
            extra["segments"] = segs
            ends = [segs[0]["from"], *(sg["to"] for sg in segs)]
            path = [[_r6(q[0]), _r6(q[1])] for q in ends]
            cost = float(pr.cost) + vert
            end = [_r6(g[0]), _r6(g[1])]
        else:
            pts = pr.points if pr is not None else (_pt(m.xy), _pt(g))
            path = [[_r6(x), _r6(y)] for x, y in pts]

            def cost_of(pp: list[list[float]]) -> float:
                length, climb, _ = path_cost(m.fp, pp, self.eng.barriers)
                return length + climb + vert

            cost = cost_of(path)
            over = cost - self.budget
            if over > 5e-7 and len(path) >= 2:
                a, b = np.array(path[-2]), np.array(path[-1])
                leg = float(np.linalg.norm(b - a))
                if leg > over + 2e-6:
                    b2 = b + (a - b) * ((over + 2e-6) / leg)
                    path = path[:-1] + [[_r6(b2[0]), _r6(b2[1])]]
                    cost = cost_of(path)
            end = path[-1]
        return Move.model_validate(
            {
                **extra,
                "id": m.id,
                "from": [_r6(m.xy[0]), _r6(m.xy[1]), _r6(m.z)],
                "to": [end[0], end[1], _r6(z)],
                "distance": _r6(cost),
                "contacts": contacts,
                "token": token,
                "path": path,
            }
        )

    def contacts_at(self, m: Model, p: np.ndarray, z: float) -> list[str]:
        """Enemy models the base touches at ``p`` (height ``z``)."""
        return [e.id for e in self.enemies if abs(z - e.z) <= 1e-9 and float(sd_many(m.fp, np.asarray(p, dtype=float)[None], e.fp)[0]) <= 10 * EPS]


def failed_charge_moves(world: World, unit: str, targets: list[str], roll: float) -> list[Move]:
    """Edition 9's failed charge move (``failed_charge_rules``) placed by the engine: each
    model as close to a target model as it may come, the unit coherent; no move when
    the unit could not end coherent."""
    st = Settle(world, unit, failed_charge_rules(world, unit, targets, roll))
    plan = st.place([m.id for m in st.models if not st.elevated(m)], set())
    if not plan.moved or st.incoherence(plan) > 0:
        return []
    return [st.record(m, plan.pos[m.id], plan.z[m.id], [], False, plan.pose.get(m.id, 0)) for m in st.models if m.id in plan.moved]


__all__ = ["CLOSER_MARGIN", "Opts", "Plan", "Settle", "failed_charge_moves"]
