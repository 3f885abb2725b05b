"""Constructed candidate spots for the 40k placement search (a mixin of
``ChargeProblem``): contact and engagement loci round every target model, their
crossings with coherency, packing and budget circles, tangent spots round obstacles,
the corners of non-target zones, and spots on ruin floors. Nothing here is sampled
where a verdict depends on it; see docs/40k.md.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from ... import budget
from ...geometry.locus_lines import circle_line_crossings, locus_line_crossings
from ...geometry.placement import (
    circles_crossings_many,
    circles_crossings_stack,
    corner_circles,
    locus_circle_crossings,
    locus_crossings,
    locus_nearest,
    tangent_points,
)
from ...geometry.shapes import Capsule, ConvexPolygon, Disc
from ...geometry.smooth import c_obstacle_body
from .board_bound import BoardBound
from .solver_base import (
    BUDGET_SLACK,
    BUDGET_TARGETS,
    EPS,
    LOCUS_HAIR,
    OUT_MARGIN,
    WRAP_NEAREST,
    Bank,
    Placement,
    _floor_edge_crossings,
    face_spots,
)
from .ties import few, least, ordered
from .world import CAN_USE_FLOORS, Model

# The edge of a chain of built gaps. A spot is built a little on the generous side of
# the gap it stands at, and a model placed round another model's built spot inherits
# that model's offset too: a model linked at 2" to a model at the engagement edge moves
# the sum of the two offsets more than the exact move. The budget test (solver_base)
# allows one LOCUS_HAIR over the contract's tolerance, so the whole chain must stay
# within one LOCUS_HAIR and still be more than nothing (a move exactly 1.001e-6 over a
# roll must fail it): the target's engagement edge takes half a hair, and every
# coherency link a far smaller one, so up to CHAIN_LINKS links in a row still fit.
#: how far inside engagement range (or the 2" reach across a feature) a target-facing
#: spot is built
EDGE_HAIR = LOCUS_HAIR / 2
#: how far inside the coherency distance a link is built: far above the rounding of a
#: closed-form distance on a 60" board (about 1e-14), far below EDGE_HAIR
LINK_HAIR = 1e-11
#: links in a row that keep a chain's offsets within LOCUS_HAIR
CHAIN_LINKS = int(round((LOCUS_HAIR - EDGE_HAIR) / LINK_HAIR))


def _smooth_wrap_spots(sb, m: Model, loci: list[float]) -> list[np.ndarray]:  # noqa: ANN001
    """The same wrap spots round oval bases (round mover, round target): the tangent
    from the target's centre touches the oval grown by the mover's radius at a
    boundary point found by the root finder of geometry.smooth (1e-13 rad)."""
    rm = m.fp.radius
    bodies = []
    for b in sb.barriers:
        for p in b.footprint.parts:
            if isinstance(p, Disc | ConvexPolygon | Capsule):
                continue  # round pieces: corner_circles
            k = c_obstacle_body(p, Disc((0.0, 0.0), rm))
            if k is not None and k.ellipses:
                bodies.append(k)
    out: list[np.ndarray] = []
    for t in sb.all_targets:
        if not t.fp.is_disc or not bodies:
            continue
        reach = t.fp.radius + rm + max(loci) + 2 * sb.w.rules.inch
        for k in bodies:
            budget.check()
            if float(np.hypot(*(k.center() - t.xy))) - k.bound_radius() > reach:
                continue
            tn = k.tangent_normals(t.xy)
            for phi in tn or ():
                v = k.point(phi) - t.xy
                n = float(np.hypot(v[0], v[1]))
                if n > 0:
                    out.extend(t.xy + v * ((t.fp.radius + rm + g) / n) for g in loci)
    return out


class SpotBuilder(BoardBound):
    """Candidate construction; ChargeProblem supplies the state it reads."""

    def _starts_of(self, m: Model) -> np.ndarray:
        return np.array([mm.xy for mm in self.models if self.keys[mm.id] == self.keys[m.id]]).reshape(-1, 2)

    def _initial_bank(self, m: Model) -> Bank:
        """The ground spots of ``_initial_spots`` plus, on ruin floors, the floor spots."""
        b = self._bank(m, self._initial_spots(m))
        for pts, h in self._floor_spots(m):
            nb = self._bank(m, pts, z=np.full(len(pts), h))
            b = Bank(*(np.concatenate([getattr(b, f), getattr(nb, f)]) for f in ("pts", "z", "ok", "contact", "er", "dist", "tok", "bar")))
        return b

    def _floor_spots(self, m: Model) -> list[tuple[np.ndarray, float]]:
        """Ruin floors as end spots: for a unit that may stand on upper floors (INFANTRY,
        BEAST, SWARM, FLY), the base-contact and engagement-edge spots round every target
        model that stands on a floor's level, kept where the whole base rests on that
        floor (exact: a round base's centre at least its radius inside the outline; other
        bases by the support function against each side of a convex floor)."""
        w = self.w
        if not (self.kws & CAN_USE_FLOORS) or not w.floors:
            return []
        starts = self._starts_of(m)
        out: list[tuple[np.ndarray, float]] = []
        for _, poly, h in w.floors:
            ts = [t for t in self.all_targets if abs(t.z - h) <= 1e-9]
            if not ts:
                continue
            loci = self._loci()
            parts = [self._nearest_on_locus(m, t, d, s0) for t in ts for d in loci for s0 in starts]
            parts.append(self._pair_crossings(m, ts, loci, ts, [LOCUS_HAIR]))
            others = [q for q in self.models if q.id != m.id]
            if others:  # linking to a friend that will stand on the floor too
                parts.append(self._pair_crossings(m, ts, loci, ts, [self.w.rules.coh - LINK_HAIR]))
            if m.fp.is_disc:
                parts.append(_floor_edge_crossings(m.fp.radius, ts, loci, poly))
            pts = np.vstack([x.reshape(-1, 2) for x in parts])
            pts = pts[self._base_on_floor(m, pts, poly)]
            if len(pts):
                out.append((pts, float(h)))
        return out

    @staticmethod
    def _base_on_floor(m: Model, pts: np.ndarray, poly) -> np.ndarray:  # noqa: ANN001
        inside = shapely.contains_xy(poly, pts[:, 0], pts[:, 1])
        if m.fp.is_disc:
            edge = shapely.distance(poly.exterior, shapely.points(pts))
            return inside & (edge >= m.fp.radius - 1e-9)
        ring = np.asarray(poly.exterior.coords)[:-1]
        if not poly.equals(poly.convex_hull):
            return np.zeros(len(pts), dtype=bool)  # other bases: convex floors only
        if shapely.geometry.LinearRing(ring).is_ccw is False:
            ring = ring[::-1]
        e = np.roll(ring, -1, axis=0) - ring
        n = np.stack([e[:, 1], -e[:, 0]], axis=1)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        # the base (centred at the origin) stays inside every side's half-plane
        reach = np.max([part.h(n) for part in m.fp.parts], axis=0) - n @ m.xy
        lim = np.einsum("ij,ij->i", ring, n)
        return inside & np.all(pts @ n.T + reach[None, :] <= lim[None, :] + 1e-9, axis=1)

    def _loci(self) -> list[float]:
        """The gaps to a target at which spots are built: base contact (a hair outside
        0, so contact holds and nothing overlaps) and the engagement edge (EDGE_HAIR
        inside, so a chain of links built from it stays within one hair)."""
        return [LOCUS_HAIR, self.w.rules.er - EDGE_HAIR]

    def _initial_spots(self, m: Model) -> np.ndarray:
        """Constructed end spots for a base like m, before any model is placed:

        (a) on the contact locus and on the engagement edge of every target model, the
            point nearest each start (a straight approach);
        (d) where those loci cross the no-overlap locus of a neighbouring target model
            (packing between two target bases) and the forbidden zone round non-targets
            (as close as a non-target allows);
        (e) where they cross circles round each start whose radius is a whole roll
            (the farthest a straight move of that roll reaches), for each model's
            nearest target models;
        plus the starts themselves and points along each straight approach (models that
        only need to stand closer)."""
        starts = self._starts_of(m)
        loci = self._loci()
        spots: list[np.ndarray] = [starts]
        if m.fp.is_disc and self.t_disc.all():
            # all round: every (target, gap, start) nearest point in one closed form
            for d in loci:
                budget.check()
                R = (self.t_r + m.fp.radius + d)[:, None, None]
                v = starts[None, :, :] - self.t_c[:, None, :]
                n = np.hypot(v[..., 0], v[..., 1])[..., None]
                ok = n[..., 0] > 0
                P = self.t_c[:, None, :] + v * (R / np.where(n > 0, n, 1.0))
                spots.append(P[ok])
        else:
            for t in self.all_targets:
                budget.check()
                for d in loci:
                    for s0 in starts:
                        spots.append(self._nearest_on_locus(m, t, d, s0))
        spots.extend(self._approach_points(m, starts))
        spots.append(self._pair_crossings(m, self.all_targets, loci, self.all_targets, [LOCUS_HAIR]))
        if self.nontarget_models:
            gap = self.w.rules.er + 2 * OUT_MARGIN
            spots.append(self._pair_crossings(m, self.all_targets, loci, self.nontarget_models, [gap]))
            # the corners of the forbidden region itself: where the zones of two
            # non-target models cross (the notch between two bases of a screen)
            near = self._near_targets(self.nontarget_models, m, gap)
            spots.append(self._pair_crossings(m, near, [gap], near, [gap]))
        spots.append(self._budget_crossings(m, starts, loci))
        spots.append(self._edge_spots(m, loci))
        spots.append(self._blocker_crossings(m, loci))
        spots.append(self._wrap_spots(m, loci))
        if self.across:
            tc = np.array([t.xy for t in self.all_targets]).reshape(-1, 2)
            circles = self._face_circles(m, starts)
            for part, _, _ in self.across:
                spots.append(self._within_reach(m, face_spots(m.fp, part, np.vstack([tc, starts]), circles)))
        return np.vstack([x.reshape(-1, 2) for x in spots])

    def _within_reach(self, m: Model, pts: np.ndarray) -> np.ndarray:
        """Face spots that can engage across a feature: within 2" of some target model
        (bounding radii, so none that could is dropped)."""
        if len(pts) == 0 or len(self.all_targets) == 0:
            return pts.reshape(-1, 2)
        reach = self.t_r + m.fp.radius + 2.0 * self.w.rules.inch + EPS
        d = np.hypot(pts[:, None, 0] - self.t_c[None, :, 0], pts[:, None, 1] - self.t_c[None, :, 1])
        return pts[(d <= reach[None, :]).any(axis=1)]

    def _face_circles(self, m: Model, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Circles whose crossings with a feature face are face spots: the reach across
        a feature (2") and base contact round every round target, packing round other
        round models (for a round mover), and whole-roll circles round each start."""
        C, R = [], []
        rm = m.fp.radius
        if m.fp.is_disc:
            for t in self.all_targets:
                if t.fp.is_disc:
                    C += [t.xy, t.xy]
                    R += [t.fp.radius + rm + 2.0 * self.w.rules.inch - EDGE_HAIR, t.fp.radius + rm + LOCUS_HAIR]
            if len(self.other_models):
                C.extend(self.o_c[self.o_disc])
                R.extend(self.o_r[self.o_disc] + rm + LOCUS_HAIR)
        # whole rolls the charge can succeed with (none below the proven lower bound)
        lo = max(1, int(math.floor(self.lower_bound() / self.w.rules.inch)))
        radii = (np.arange(lo, int(math.ceil(self.cap / self.w.rules.inch)) + 1, dtype=float)
                 * self.w.rules.inch - LOCUS_HAIR)
        for s0 in starts:
            C.extend([s0] * len(radii))
            R.extend(radii)
        return np.asarray(C, dtype=float).reshape(-1, 2), np.asarray(R, dtype=float)

    def _near_targets(self, models: list[Model], m: Model, gap: float) -> list[Model]:
        """The models of ``models`` whose zone (at ``gap`` round a base like m) comes
        within engagement range of some target model: only their corners can matter."""
        if not self.all_targets:
            return []
        reach = 2 * m.fp.radius + gap + self.w.rules.er
        tc = np.array([t.xy for t in self.all_targets])
        tr = np.array([t.fp.radius for t in self.all_targets])
        return [o for o in models
                if np.any(np.hypot(*(tc - o.xy).T) - tr - o.fp.radius <= reach + 1e-9)]

    def _approach_points(self, m: Model, starts: np.ndarray) -> list[np.ndarray]:
        """Points on the straight line from each start toward its nearest engagement
        edge spot (at tenths of the way): where a model that need not engage may stop."""
        out = []
        er_in = self.w.rules.er - EDGE_HAIR
        if m.fp.is_disc and self.t_disc.all() and len(self.all_targets):
            # all round: the nearest engagement-edge spot of each start in closed form
            v = starts[:, None, :] - self.t_c[None, :, :]
            n = np.hypot(v[..., 0], v[..., 1])
            gap = n - (self.t_r[None, :] + m.fp.radius + er_in)
            j = least(gap, axis=1)  # frame-free among near-equal gaps (ties.py)
            for i, s0 in enumerate(starts):
                if n[i, j[i]] <= 0 or gap[i, j[i]] <= 0:
                    continue
                q = self.t_c[j[i]] + v[i, j[i]] * ((self.t_r[j[i]] + m.fp.radius + er_in) / n[i, j[i]])
                out.append(s0 + np.outer(np.linspace(0.1, 0.9, 9), q - s0))
            return out
        for s0 in starts:
            best = None
            for t in self.all_targets:
                q = self._nearest_on_locus(m, t, er_in, s0)
                if len(q):
                    dq = float(np.hypot(*(q[0] - s0)))
                    if best is None or dq < best[0]:
                        best = (dq, q[0])
            if best is not None and best[0] > 0:
                out.append(s0 + np.outer(np.linspace(0.1, 0.9, 9), best[1] - s0))
        return out

    def _circle_of(self, m: Model, q: Model, qpos: np.ndarray | None, gap: float) -> tuple[np.ndarray, float] | None:
        if m.fp.is_disc and q.fp.is_disc:
            c = q.xy if qpos is None else np.asarray(qpos, dtype=float)
            return c, m.fp.radius + q.fp.radius + gap
        return None

    def _locus_memo(self, key: tuple, fn, *args):  # noqa: ANN001, ANN202
        """perf: ``fn(*args)`` kept per problem. The root-finder loci (a target model's
        contact, engagement and coherency loci, for a base like m) and their nearest
        points and circle crossings depend only on the two bases, where they stand, the
        gap and the point or circle asked about; the search, its improvement pass and
        the held-back test ask for the same ones again. The entry holds the footprints
        its key names by id, so an id stays theirs while the entry lives."""
        memo: dict[tuple, tuple] = self.__dict__.setdefault("_locus_memo_d", {})
        hit = memo.get(key)
        if hit is None:
            x = fn(*args)
            x.setflags(write=False)
            hit = memo[key] = (x, args[0], args[1])
        return hit[0]

    def _nearest_on_locus(self, m: Model, t: Model, gap: float, p: np.ndarray) -> np.ndarray:
        """locus_nearest(m.fp, t.fp, gap, p), kept per problem (_locus_memo)."""
        p = np.asarray(p, dtype=float)
        return self._locus_memo(("near", id(m.fp), id(t.fp), float(gap), p.tobytes()), locus_nearest, m.fp, t.fp, gap, p)

    def _locus_circle(self, m: Model, t: Model, gap: float, c: np.ndarray, rho: float) -> np.ndarray:
        """locus_circle_crossings(m.fp, t.fp, gap, c, rho), kept per problem (_locus_memo)."""
        c = np.asarray(c, dtype=float)
        key = ("circle", id(m.fp), id(t.fp), float(gap), c.tobytes(), float(rho))
        return self._locus_memo(key, locus_circle_crossings, m.fp, t.fp, gap, c, rho)

    def _pair_crossings(self, m: Model, A: list[Model], gaps_a: list[float], B: list[Model], gaps_b: list[float],
                        pos_a: list[np.ndarray] | None = None, pos_b: list[np.ndarray] | None = None) -> np.ndarray:
        """Spots at gap ga from some model of A and at gap gb from some model of B at
        once (distinct models): closed-form circle crossings for round bases, the
        root finder of geometry.placement otherwise."""
        if not A or not B:
            return np.zeros((0, 2))
        PA = [a.xy for a in A] if pos_a is None else pos_a
        PB = [b.xy for b in B] if pos_b is None else pos_b
        out = []
        if m.fp.is_disc and (self._world_disc or (all(a.fp.is_disc for a in A) and all(b.fp.is_disc for b in B))):
            CA = np.array(PA).reshape(-1, 2)
            CB = np.array(PB).reshape(-1, 2)
            ra = np.array([a.fp.radius for a in A]) + m.fp.radius
            rb = np.array([b.fp.radius for b in B]) + m.fp.radius
            # perf: every (ga, gb) pair in one pass (the rows of the loop over ga, gb)
            R1s = np.array([ra + ga for ga in gaps_a for _ in gaps_b]).reshape(-1, len(CA))
            R2s = np.array([rb + gb for _ in gaps_a for gb in gaps_b]).reshape(-1, len(CB))
            return _touching_safe_crossings(CA, R1s, CB, R2s)
        reach_a = max(gaps_a) + 2 * m.fp.radius
        reach_b = max(gaps_b) + 2 * m.fp.radius
        # perf: the root finder's crossings are kept per problem: they depend only on
        # the mover's base, the two models, where they stand and the two gaps, and the
        # search asks for the same ones again (later steps, orders of play, probes)
        memo: dict[tuple, tuple] = self.__dict__.setdefault("_crossings_memo", {})
        for a, pa in zip(A, PA, strict=True):
            fa = None
            ka = (a.id, np.asarray(pa, dtype=float).tobytes())
            for b, pb in zip(B, PB, strict=True):
                if a is b:
                    continue
                if float(np.hypot(*(np.asarray(pa) - np.asarray(pb)))) > a.fp.radius + b.fp.radius + reach_a + reach_b:
                    continue
                kb = (b.id, np.asarray(pb, dtype=float).tobytes())
                fb = None
                for ga in gaps_a:
                    for gb in gaps_b:
                        # (the entry holds the mover's base, so its id stays its own)
                        key = (id(m.fp), ka, kb, ga, gb)
                        hit = memo.get(key)
                        if hit is None:
                            fa = a.fp.moved_to(pa) if fa is None else fa
                            fb = b.fp.moved_to(pb) if fb is None else fb
                            x = locus_crossings(m.fp, fa, ga, fb, gb)
                            x.setflags(write=False)
                            hit = memo[key] = (x, m.fp)
                        out.append(hit[0])
        return np.vstack(out) if out else np.zeros((0, 2))

    def _wrap_spots(self, m: Model, loci: list[float]) -> np.ndarray:
        """Ends of paths that wrap round an obstacle (round mover, round target): a
        shortest path to a target's locus leaves the last obstacle it wraps along the
        tangent from that obstacle toward the target's centre and meets the locus where
        that line does (the locus is a circle round the target's centre). Built for the
        round pieces of every barrier near a target: bases, wall ends, corners."""
        if not m.fp.is_disc:
            return np.zeros((0, 2))
        rm = m.fp.radius
        circles = [cc for b in self.barriers for cc in corner_circles(b.footprint, rm)]
        out = _smooth_wrap_spots(self, m, loci)
        if not circles:
            return np.array(out).reshape(-1, 2)
        C = np.array([c for c, _ in circles]).reshape(-1, 2)
        Rr = np.array([r for _, r in circles])
        for t in self.all_targets:
            if not t.fp.is_disc:
                continue
            d = np.hypot(*(C - t.xy).T) - Rr
            # the nearest pieces; a tie at the cut keeps every tied piece (ties.py: a
            # polygon's corner order is not frame-free, so no index may break it)
            near = few(d, WRAP_NEAREST)
            for i in near:
                if d[i] > t.fp.radius + rm + max(loci) + 2 * self.w.rules.inch:
                    continue
                for T in tangent_points(t.xy, C[i], float(Rr[i])):
                    v = T - t.xy
                    n = float(np.hypot(v[0], v[1]))
                    if n == 0:
                        continue
                    for g in loci:
                        out.append(t.xy + v * ((t.fp.radius + rm + g) / n))
        return np.array(out).reshape(-1, 2)

    def _board_lines(self, m: Model) -> list[tuple[int, float]]:
        """The board's edges drawn in by a base like m at its facing, as lines of centres
        (axis, value): the base is wholly on the board exactly when its centre is on the
        inner side of all four (each edge moved in by the base's reach toward it, the
        support of its parts in that direction; a round base's radius). Empty when the
        base is wider or deeper than the board. Kept per base shape."""
        memo = self.__dict__.setdefault("_board_lines_memo", {})
        key = self.keys[m.id]
        hit = memo.get(key)
        if hit is None:
            W, D = self.w.board
            U = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
            off = np.array([part.support(U) - m.xy for part in m.fp.parts])  # (parts, 4, 2)
            x0 = float(np.max(-off[:, 1, 0]))
            x1 = W - float(np.max(off[:, 0, 0]))
            y0 = float(np.max(-off[:, 3, 1]))
            y1 = D - float(np.max(off[:, 2, 1]))
            hit = memo[key] = [] if x0 > x1 or y0 > y1 else [(0, x0), (0, x1), (1, y0), (1, y1)]
        return hit

    def _line_crossings(self, m: Model, fq, gap: float) -> np.ndarray:  # noqa: ANN001
        """Where the locus at ``gap`` round footprint fq (for a base like m) meets the
        drawn-in board edges: exact (circle_line_crossings / locus_line_crossings)."""
        out = []
        for axis, value in self._board_lines(m):
            if m.fp.is_disc and fq.is_disc:
                out.append(circle_line_crossings(fq.parts[0].center, m.fp.radius + fq.radius + gap, axis, value))
            else:
                out.append(locus_line_crossings(m.fp, fq, gap, axis, value))
        return np.vstack(out) if out else np.zeros((0, 2))

    def _edge_spots(self, m: Model, loci: list[float]) -> np.ndarray:
        """Spots against the board's edge: where the contact locus and the engagement
        edge of every target model (and the forbidden zone of a non-target near one)
        meet an edge drawn in by the base's reach, and the board's four drawn-in
        corners. When the straight approach would leave the board, the least move ends
        on such a crossing (the base sliding along the edge toward the target)."""
        lines = self._board_lines(m)
        if not lines:
            return np.zeros((0, 2))
        x0, x1, y0, y1 = (v for _, v in lines)
        out = [np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]])]
        for t in self.all_targets:
            budget.check()
            for g in loci:
                out.append(self._line_crossings(m, t.fp, g))
        if self.nontarget_models:
            gap = self.w.rules.er + 2 * OUT_MARGIN
            for o in self._near_targets(self.nontarget_models, m, gap):
                budget.check()
                out.append(self._line_crossings(m, o.fp, gap))
        return np.vstack(out)

    def _blocker_crossings(self, m: Model, loci: list[float]) -> np.ndarray:
        """Where the target loci cross the touching locus of terrain no base may end on
        (a base squeezed between a target and a wall)."""
        out = []
        reach = max(loci) + 2 * m.fp.radius
        for f in self.blockers:
            for t in self.all_targets:
                if float(np.hypot(*(f.fp.center - t.xy))) > f.fp.radius + t.fp.radius + reach + 1e-9:
                    continue
                for g in loci:
                    out.append(locus_crossings(m.fp, t.fp, g, f.fp, LOCUS_HAIR))
        return np.vstack(out) if out else np.zeros((0, 2))

    def _budget_crossings(self, m: Model, starts: np.ndarray, loci: list[float]) -> np.ndarray:
        """Where the target loci cross circles of whole-roll radius round each start,
        for each start's few nearest target models (the farthest a straight move of
        that roll reaches along the locus)."""
        if len(self.all_targets) == 0 or len(starts) == 0:
            return np.zeros((0, 2))
        radii = np.arange(1, int(math.ceil(self.cap)) + 1, dtype=float) - LOCUS_HAIR
        near = BUDGET_TARGETS if m.fp.is_disc else 1
        out = []
        for s0 in starts:
            d = np.hypot(*(self.t_c - s0).T) - self.t_r
            idx = ordered(d)[:near]  # frame-free among near-equal distances (ties.py)
            if m.fp.is_disc and self.t_disc[idx].all():
                # one closed-form call: the nearest targets' loci against every radius
                C1 = np.repeat(self.t_c[idx], len(loci), axis=0)
                R1 = np.concatenate([self.t_r[i] + m.fp.radius + np.asarray(loci) for i in idx])
                out.append(circles_crossings_many(C1, R1, np.repeat(s0[None], len(radii), 0), radii))
                continue
            for i in idx:
                t = self.all_targets[int(i)]
                for g in loci:
                    for rho in radii:
                        out.append(locus_circle_crossings(m.fp, t.fp, g, s0, float(rho)))
        return np.vstack(out) if out else np.zeros((0, 2))

    def _spots_around(self, m: Model, q: Model, qpos: np.ndarray, placed: list[tuple[Model, np.ndarray]]) -> np.ndarray:
        """Constructed spots for a base like m once q stands at qpos:

        (b) where q's coherency locus (a link exactly at the coherency distance) and its
            packing locus (touching q) cross the contact locus and the engagement edge
            of every target model;
        (c) where q's coherency locus crosses the coherency locus of every other placed
            model (a spot with two links: the two-neighbour rule) and their packing loci;
        plus the points of q's coherency locus nearest each start of m's shape and
        nearest each target model (a chain growing toward a target)."""
        coh = self.w.rules.coh - LINK_HAIR
        loci = self._loci()
        out = [
            self._pair_crossings(m, [q], [coh, LOCUS_HAIR], self.all_targets, loci, pos_a=[qpos]),
        ]
        others = [(o, p) for o, p in placed if o is not q]
        if others:
            out.append(self._pair_crossings(m, [q], [coh, LOCUS_HAIR], [o for o, _ in others], [coh, LOCUS_HAIR],
                                            pos_a=[qpos], pos_b=[p for _, p in others]))
        # the unit moving as one body: every start moved by the first placed model's
        # displacement (later models add their own variants only through the loci)
        taken = {q.id} | {o.id for o, _ in placed}
        # (perf: the starts of m's shape, in unit order, taken once per problem)
        memo = self.__dict__.setdefault("_shape_starts", {})
        key = self.keys[m.id]
        hit = memo.get(key)
        if hit is None:
            mates = self._of_shape[key]
            hit = memo[key] = ([mm.id for mm in mates], np.array([mm.xy for mm in mates], dtype=float).reshape(-1, 2))
        free = hit[1][np.array([mid not in taken for mid in hit[0]], dtype=bool)]
        if not placed:
            out.append(free + (np.asarray(qpos, dtype=float) - q.xy))
        fq = q.fp.moved_to(qpos)
        if m.fp.is_disc and q.fp.is_disc and len(free):
            c = np.asarray(qpos, dtype=float)
            v = free - c
            n = np.hypot(v[:, 0], v[:, 1])
            ok = n > 0
            out.append(c + v[ok] * ((m.fp.radius + q.fp.radius + coh) / n[ok])[:, None])
        else:
            for s0 in free:
                out.append(locus_nearest(m.fp, fq, coh, s0))
        if m.fp.is_disc and fq.is_disc and self.all_targets:
            # perf: locus_nearest toward every target at once (nearest_on_circle's
            # arithmetic: the centre plus the direction scaled by radius / length)
            c = np.asarray(fq.parts[0].center, dtype=float)
            rr = m.fp.parts[0].r + fq.parts[0].r + coh
            V = np.array([t.xy for t in self.all_targets], dtype=float).reshape(-1, 2) - c
            n = np.hypot(V[:, 0], V[:, 1])
            z = n == 0.0
            P = c + V * (rr / np.where(z, 1.0, n))[:, None]
            P[z] = c + np.array([rr, 0.0])
            out.append(P)
        else:
            for t in self.all_targets:
                out.append(locus_nearest(m.fp, fq, coh, t.xy))
        # linked to (or touching) q against the board's edge
        out.append(self._line_crossings(m, fq, coh))
        out.append(self._line_crossings(m, fq, LOCUS_HAIR))
        if self.across and m.fp.is_disc and q.fp.is_disc:
            # touching a feature face and linked to (or touching) q
            rq = m.fp.radius + q.fp.radius
            qc = np.asarray(qpos, dtype=float)
            circ = (np.stack([qc, qc]), np.array([rq + coh, rq + LOCUS_HAIR]))
            for part, _, _ in self.across:
                if float(np.hypot(*(part.center - qc))) - part.radius > 2 * m.fp.radius + q.fp.radius + coh:
                    continue  # no spot touching this face links to q
                out.append(self._within_reach(m, face_spots(m.fp, part, qc[None], circ)))
        return np.vstack([x.reshape(-1, 2) for x in out])

    # ------------------------------------------------------------------ bounds
    def _gap_spots(self, m: Model, pl: Placement, R: float, gap: float) -> np.ndarray:
        """Constructed spots of m exactly ``gap`` from a target model (less a hair), within
        a straight move of R: the nearest such spot, the ends of the reachable arc, and
        the spots that touch or link to another model (crossings with their loci)."""
        hair = LOCUS_HAIR
        g = max(gap - EDGE_HAIR, hair)
        coh = self.w.rules.coh - LINK_HAIR
        out = []
        for t in self.all_targets:
            out.append(self._nearest_on_locus(m, t, g, m.xy))
            out.append(self._locus_circle(m, t, g, m.xy, max(R - hair, 0.0)))
        others = [q for q in self.models if q.id != m.id]
        if others:
            out.append(self._pair_crossings(m, self.all_targets, [g], others, [hair, coh], pos_b=[pl.pos[q.id] for q in others]))
        out.append(self._pair_crossings(m, self.all_targets, [g], list(self.all_targets), [hair]))
        spots = np.vstack([x.reshape(-1, 2) for x in out])
        return spots[np.hypot(*(spots - m.xy).T) <= R + BUDGET_SLACK]

    def _contact_spots_owned(self, m: Model, ts: list[Model], pl: Placement, R: float) -> tuple[np.ndarray, np.ndarray]:
        """``_contact_spots(m, [t], pl, R)`` for every t of ts, stacked, with the index in
        ts of the target each spot was built for. perf: for round bases the same closed
        forms, term for term, in a few array calls instead of four per target."""
        if not ts:
            return np.zeros((0, 2)), np.zeros(0, dtype=int)
        if not (m.fp.is_disc and self._world_disc):
            parts = [self._contact_spots(m, [t], pl, R) for t in ts]
            own = np.concatenate([np.full(len(p), j, dtype=int) for j, p in enumerate(parts)])
            return np.vstack([p.reshape(-1, 2) for p in parts]), own
        hair = LOCUS_HAIR
        coh = self.w.rules.coh - LINK_HAIR
        rm = m.fp.parts[0].r
        jj = np.arange(len(ts))
        # the contact locus of each target: a circle round its base's centre
        Cl = np.array([t.fp.parts[0].center for t in ts], dtype=float).reshape(-1, 2)
        rl = np.array([rm + t.fp.parts[0].r for t in ts]) + hair
        pts, own = [], []
        # its point nearest the start (locus_nearest)
        s0 = np.asarray(m.xy, dtype=float)
        V = s0 - Cl
        n = np.hypot(V[:, 0], V[:, 1])
        z = n == 0.0
        P = Cl + V * (rl / np.where(z, 1.0, n))[:, None]
        P[z] = Cl[z] + np.stack([rl[z], np.zeros(int(z.sum()))], axis=1)
        pts.append(P)
        own.append(jj)
        # its crossings with the circle of radius R round the start (locus_circle_crossings)
        rho = max(R - hair, 0.0)
        X, i = _crossings_owned(Cl, rl, s0[None], np.array([rho]))
        pts.append(X)
        own.append(i)
        # packing / linking to the unit's other models, and packing against target models
        Ca = np.array([t.xy for t in ts], dtype=float).reshape(-1, 2)
        ra = np.array([t.fp.radius for t in ts]) + m.fp.radius
        others = [q for q in self.models if q.id != m.id]
        if others:
            Cb = np.array([pl.pos[q.id] for q in others], dtype=float).reshape(-1, 2)
            rb = np.array([q.fp.radius for q in others]) + m.fp.radius
            for gb in (hair, coh):
                X, i = _crossings_owned(Ca, ra + hair, Cb, rb + gb)
                pts.append(X)
                own.append(i)
        X, i = _crossings_owned(Ca, ra + hair, self.t_c, (self.t_r + m.fp.radius) + hair)
        pts.append(X)
        own.append(i)
        spots = np.vstack([x.reshape(-1, 2) for x in pts])
        owner = np.concatenate(own).astype(int)
        keep = np.hypot(*(spots - m.xy).T) <= R + BUDGET_SLACK
        return spots[keep], owner[keep]

    def _contact_spots(self, m: Model, targets: list[Model], pl: Placement, R: float) -> np.ndarray:
        """Constructed base-contact spots of m round ``targets`` within a straight move
        of R: the nearest contact spot, the ends of the reachable contact arc (crossings
        with the circle of radius R round the start), and the contact spots that touch
        or link to another model (crossings with their packing and coherency loci)."""
        hair = LOCUS_HAIR
        coh = self.w.rules.coh - LINK_HAIR
        out = []
        tkey = tuple(id(t.fp) for t in targets)
        if m.fp.is_disc and targets and all(t.fp.is_disc for t in targets):
            # perf: kept per problem (_locus_memo): the start, the bases and R decide it
            rho = max(R - hair, 0.0)
            key = ("near+circle", id(m.fp), tkey, float(m.xy[0]), float(m.xy[1]), rho)
            out.append(self._locus_memo(key, lambda _fp, _ts: _nearest_and_crossings(m, targets, hair, rho), m.fp, targets))
        else:
            for t in targets:
                out.append(self._nearest_on_locus(m, t, hair, m.xy))
                out.append(self._locus_circle(m, t, hair, m.xy, max(R - hair, 0.0)))
        others = [q for q in self.models if q.id != m.id]
        if others:
            out.append(self._pair_crossings(m, targets, [hair], others, [hair, coh], pos_b=[pl.pos[q.id] for q in others]))
        # perf: the spots touching a target and a target model at once do not depend
        # on the placement: kept per problem (_locus_memo)
        key = ("contact x targets", id(m.fp), tkey, tuple(id(t.fp) for t in self.all_targets))
        out.append(self._locus_memo(
            key, lambda _fp, _ts: self._pair_crossings(m, targets, [hair], [t for t in self.all_targets], [hair]), m.fp, targets))
        spots = np.vstack([x.reshape(-1, 2) for x in out])
        return spots[np.hypot(*(spots - m.xy).T) <= R + BUDGET_SLACK]


#: two circles whose centre distance is within this of the sum (or difference) of their
#: radii touch: one spot where they meet, in every frame. Far above the rounding of a
#: centre distance on a 60" board (about 1e-14), far below any gap the rules measure.
TOUCH = 1e-12


def _touching_safe_crossings(C1: np.ndarray, R1s: np.ndarray, C2: np.ndarray, R2s: np.ndarray) -> np.ndarray:
    """``circles_crossings_stack``, except where two circles touch (their centre distance
    within TOUCH of the sum or difference of the radii): there the one point where they
    meet (the closed form's foot point, no offset along the chord), whichever side of
    the touch rounding put them on.

    Why: a chain of models linked in a straight line (each at the coherency distance of
    the one before, as the search builds them) makes the first and third models' loci
    touch exactly. Rounding then decides, by the frame's last bits, whether the two
    circles cross (two spots ~1e-7 apart) or miss (none); those spots' move lengths
    change the least-distance bisection's candidates, so a turned board could get another
    answer (docs/40k.md "Same answer in any frame")."""
    C1 = np.asarray(C1, dtype=float).reshape(-1, 2)
    C2 = np.asarray(C2, dtype=float).reshape(-1, 2)
    X = circles_crossings_stack(C1, R1s, C2, R2s)
    if len(C1) == 0 or len(C2) == 0:
        return X
    R1s = np.asarray(R1s, dtype=float).reshape(-1, len(C1))
    R2s = np.asarray(R2s, dtype=float).reshape(-1, len(C2))
    if len(R1s) == 0:
        return X
    # the pair distances and the crossing test of circles_crossings_stack, term for term
    vx = C2[None, :, 0] - C1[:, None, 0]
    vy = C2[None, :, 1] - C1[:, None, 1]
    d = np.hypot(vx, vy)
    r1 = R1s[:, :, None]
    r2 = R2s[:, None, :]
    touch = (d > 0)[None] & ((np.abs(d[None] - (r1 + r2)) <= TOUCH) | (np.abs(d[None] - np.abs(r1 - r2)) <= TOUCH))
    if not touch.any():
        return X
    ok = (d > 0)[None] & (d[None] <= r1 + r2) & (d[None] >= np.abs(r1 - r2))
    keep = np.ones(len(X), dtype=bool)
    g, i, j = np.nonzero(ok)
    if len(g):
        # the rows of each crossing pair, as circles_crossings_stack lays them out
        cnt = np.bincount(g, minlength=len(R1s))
        first = np.cumsum(cnt) - cnt
        plus = 2 * first[g] + (np.arange(len(g)) - first[g])
        hit = touch[g, i, j]
        keep[plus[hit]] = False
        keep[(plus + cnt[g])[hit]] = False
    tg, ti, tj = np.nonzero(touch)
    dd = d[ti, tj]
    a = (R1s[tg, ti] ** 2 - R2s[tg, tj] ** 2 + dd * dd) / (2 * dd)
    P = C1[ti] + (a / dd)[:, None] * np.stack([vx[ti, tj], vy[ti, tj]], axis=1)
    return np.vstack([X[keep], P])


def _crossings_owned(C1: np.ndarray, R1: np.ndarray, C2: np.ndarray, R2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """circles_crossings_many and, for each crossing, the index of its circle of set 1
    (the same pairs, found by the same test)."""
    X = circles_crossings_many(C1, R1, C2, R2)
    if len(X) == 0:
        return X, np.zeros(0, dtype=int)
    v = C2[None, :, :] - C1[:, None, :]
    d = np.hypot(v[..., 0], v[..., 1])
    r1 = np.broadcast_to(np.asarray(R1, dtype=float), (len(C1),))[:, None]
    r2 = np.broadcast_to(np.asarray(R2, dtype=float), (len(C2),))[None, :]
    i, _ = np.nonzero((d > 0) & (d <= r1 + r2) & (d >= np.abs(r1 - r2)))
    assert 2 * len(i) == len(X)
    return X, np.concatenate([i, i])


def _nearest_and_crossings(m: Model, targets: list[Model], gap: float, rho: float) -> np.ndarray:
    """For round m and round targets, the rows the loop ``for t in targets:
    locus_nearest(m, t, gap, start); locus_circle_crossings(m, t, gap, start, rho)``
    gives, in the same order and with the same arithmetic (nearest_on_circle and
    circle_crossings, term for term), computed for every target at once. perf."""
    rm = m.fp.parts[0].r
    C = np.array([t.fp.parts[0].center for t in targets], dtype=float).reshape(-1, 2)
    r1 = np.array([rm + t.fp.parts[0].r for t in targets]) + gap
    s0 = np.asarray(m.xy, dtype=float)
    # the nearest point of each locus to the start
    V = s0 - C
    n = np.hypot(V[:, 0], V[:, 1])
    z = n == 0.0
    near = C + V * (r1 / np.where(z, 1.0, n))[:, None]
    near[z] = C[z] + np.stack([r1[z], np.zeros(int(z.sum()))], axis=1)
    # the crossings of each locus with the circle of radius rho round the start
    v = s0[None] - C
    d = np.hypot(v[:, 0], v[:, 1])
    ok = ~((d == 0.0) | (d > r1 + rho) | (d < np.abs(r1 - rho)) | (r1 < 0) | (rho < 0))
    dd = np.where(ok, d, 1.0)
    a = (r1 * r1 - rho * rho + dd * dd) / (2 * dd)
    h = np.sqrt(np.maximum(r1 * r1 - a * a, 0.0))
    e = v / dd[:, None]
    mid = C + a[:, None] * e
    nrm = np.stack([-e[:, 1], e[:, 0]], axis=1)
    plus = mid + h[:, None] * nrm
    minus = mid - h[:, None] * nrm
    # rows per target: nearest, then 0, 1 (touching) or 2 crossings
    cnt = 1 + np.where(ok, np.where(h == 0.0, 1, 2), 0)
    out = np.empty((int(cnt.sum()), 2))
    at = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    out[at] = near
    one = ok & (h == 0.0)
    two = ok & (h != 0.0)
    out[at[one] + 1] = mid[one]
    out[at[two] + 1] = plus[two]
    out[at[two] + 2] = minus[two]
    return out

