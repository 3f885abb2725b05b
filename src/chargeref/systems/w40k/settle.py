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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ... import budget
from ...geometry.measure import piece_from_dict
from ...geometry.paths import path_cost
from ...geometry.pivot import pivotable
from ...geometry.placement import (
    OffsetCurve,
    arrangement_points,
    locus_nearest,
    nearest_spots,
    pair_crossings,
    reach_crossings,
)
from ...geometry.shapes import TOL, Ellipse, Footprint
from ...ruling import Move
from .moves import MoveRules, failed_charge_rules, gap3
from .settle_pivots import Pose, record_turned, with_turns
from .solver import ChargeProblem, coherency_adjacency, sd_many
from .spots import SpotBuilder
from .world import Model, World, reported

#: Our spots sit at most this far on the generous side of a threshold (inside TOL).
EPS = 1e-7
#: "Ends closer" must gain more than this (beyond the contract tolerance).
CLOSER_MARGIN = 2e-6
#: Constructed spots sit this far on the generous side of the gap they are built at.
HAIR = 1e-9
#: Spots outside a forbidden engagement range sit this far beyond it (the engine keeps
#: OUT_MARGIN = 2e-6 clear of it; both far below the contract tolerance).
FORBID_CLEAR = 3e-6


def _point_along(pieces: list, s: float) -> np.ndarray | None:
    """The point at arc length ``s`` along exact path pieces (lines and arcs)."""
    for p in pieces:
        if s <= p.length:
            if p.kind == "line":
                a, b = np.asarray(p.a), np.asarray(p.b)
                return a + (b - a) * (s / p.length if p.length > 0 else 0.0)
            if p.kind == "curve":
                return _point_along_curve(p, s)
            c = np.asarray(p.center)
            t = math.atan2(p.a[1] - c[1], p.a[0] - c[0]) + (s / p.radius if p.ccw else -s / p.radius)
            return c + p.radius * np.array([math.cos(t), math.sin(t)])
        s -= p.length
    return None


def _point_along_curve(p: Any, s: float) -> np.ndarray:
    """The point at boundary length ``s`` from the start of a curve piece (a piece that
    runs along a smooth body, e.g. round an oval grown by a gap). The length from the
    start to the normal at turn δ grows with δ, by quadrature of the curvature radius
    plus a jump for each flat side passed: bisection on δ (to 1e-13 rad, far inside the
    contract tolerance) finds the normal where it reaches ``s``; a remainder left there
    lies along the flat side at that normal, walked in a straight line."""
    f = p.normals[0]
    sign = 1.0 if p.ccw else -1.0
    span = (p.normals[1] - f) * sign % (2 * math.pi)
    body = p.body

    def length(d: float) -> float:
        return float(body.length(f, d) if p.ccw else body.length(f - d, d))

    if s <= 0.0:
        return np.asarray(p.a, dtype=float)
    lo, hi = 0.0, span
    while hi - lo > 1e-13:
        budget.check()
        mid = (lo + hi) / 2
        if length(mid) < s:
            lo = mid
        else:
            hi = mid
    if hi <= 1e-9:
        # still at the start normal: a flat side there belongs to the piece before
        return np.asarray(p.a, dtype=float)
    phi = f + sign * hi
    # the length jumps by a flat side's length just past its normal (within 1e-9 of it)
    flat = [d for d in (((n - f) * sign) % (2 * math.pi) for n, _ in body.flats()) if abs(d - hi) <= 1e-8]
    if not flat:
        return np.asarray(body.point(phi), dtype=float)
    snapped = f + sign * flat[0]
    a = np.asarray(body.point(snapped, -1 if p.ccw else 1), dtype=float)
    # the length up to the flat side's first end, the rest along it
    rest = s - length(flat[0])
    b = np.asarray(body.point(snapped, 1 if p.ccw else -1), dtype=float)
    L = float(np.hypot(*(b - a)))
    return a + (b - a) * min(1.0, max(0.0, rest) / L) if L > 0 else a


def ray_locus_crossings(mover: Footprint, target: Footprint, d: float, p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Centres on the segment from ``p`` to ``p + w`` where ``mover`` is at gap ``d``
    from ``target``: a line against the locus (mover ⊕ target grown by d), in closed
    form when both are round (a line crossing a circle), else the locus's roots of the
    signed distance to the line (geometry/placement.py's root finder), kept where they
    lie on the segment."""
    p = np.asarray(p, dtype=float)
    w = np.asarray(w, dtype=float)
    L2 = float(w @ w)
    if L2 == 0.0:
        return np.zeros((0, 2))
    cur = OffsetCurve(mover.moved_to(_pt(p)), target, d)
    circ = cur.is_circle()
    if circ is not None:
        c, R = np.asarray(circ[0], dtype=float), float(circ[1])
        f = p - c
        b = float(f @ w)
        disc = b * b - L2 * (float(f @ f) - R * R)
        if disc < 0:
            return np.zeros((0, 2))
        sq = math.sqrt(disc)
        ts = np.array([(-b - sq) / L2, (-b + sq) / L2])
    else:
        if float(np.linalg.norm(target.center - (p + 0.5 * w))) > target.radius + 2 * mover.radius + d + 0.5 * math.sqrt(L2):
            return np.zeros((0, 2))
        n = np.array([-w[1], w[0]]) / math.sqrt(L2)
        P = cur.roots(lambda X: (X - p) @ n, g_lip=1.0)  # n is a unit normal: Lipschitz 1
        if len(P) == 0:
            return np.zeros((0, 2))
        ts = (P - p) @ w / L2
    ts = ts[(ts >= 0.0) & (ts <= 1.0)]
    return p + np.outer(ts, w)


_r6 = reported  # rounded to 1e-9 (world.reported), like the charge's moves


def _pt(p: np.ndarray) -> tuple[float, float]:
    return (float(p[0]), float(p[1]))


@dataclass
class Opts:
    """Where one model may end its move, with what each spot gives."""

    pts: np.ndarray
    z: np.ndarray
    cost: np.ndarray
    contact: np.ndarray
    er: np.ndarray
    gap: np.ndarray  # distance to the closest-at-start enemy model(s)
    #: how the base turns on the way (index into ``Settle.poses[model]``; 0: it does not)
    pose: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.pose is None:
            self.pose = np.zeros(len(self.pts), dtype=int)

    def __len__(self) -> int:
        return len(self.pts)

    def take(self, mask: np.ndarray) -> Opts:
        return Opts(self.pts[mask], self.z[mask], self.cost[mask], self.contact[mask], self.er[mask], self.gap[mask],
                    self.pose[mask])  # type: ignore[index]

    def joined(self, other: Opts) -> Opts:
        return Opts(*(np.concatenate([getattr(self, f), getattr(other, f)]) for f in OPT_FIELDS))


OPT_FIELDS = ("pts", "z", "cost", "contact", "er", "gap", "pose")


@dataclass
class Plan:
    pos: dict[str, np.ndarray]
    z: dict[str, float]
    cost: dict[str, float]
    moved: set[str] = field(default_factory=set)
    #: the pose (``Settle.poses``) each moved model takes; absent: no turn
    pose: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Plan:
        return Plan(dict(self.pos), dict(self.z), dict(self.cost), set(self.moved), dict(self.pose))


class Settle:
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

    # ---------------------------------------------------------------- spots
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
