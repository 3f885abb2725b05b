"""The working state of one Warmaster charge and the pieces every placement step uses.

``ChargeBase`` holds the charging and target stands and the caches of one charge, and
answers the questions the placement procedure (``solve.py``) keeps asking: what a
stand's final footprint may not overlap, which offsets along a slide stay free, which
gaps are too narrow to pass (bars), the route and its cost from a stand to a pose
(``paths.py`` for round stands, ``sweep.py`` for rectangles), what a stand sees, and
the pose flush against an enemy edge at a given offset. The values the procedure
passes around (``Pose``, ``Placed``, ``EdgeTry``, ``Outcome``) and the closed-form
``closest_feasible`` live here too. No rule choice is made here: the first stand is
chosen in ``solve.py`` (original) and ``revolution.py``; the rest of the unit in
``formation.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely

from ...geometry.shapes import TOL
from .geom import (
    Packed,
    Poly,
    bbox_gap,
    free_intervals,
    max_dist,
    max_dist_argmin,
    max_dist_cut,
    overlaps,
    rect,
    sd,
    slide_blocked,
    unit,
)
from .paths import clear_segments, corner_cost, path_cost, shortest_path
from .sight import sees
from .sweep import LegStore, route_cost, stand_route
from .world import StandW, World

EDGES = ("front", "left", "right", "rear")
#: sliding stops this close to a touching contact (far inside TOL, far above float noise)
SNAP = 1e-9


# ----------------------------------------------------------------------------- helpers


def _angle_of(v: np.ndarray) -> float:
    return math.degrees(math.atan2(float(v[1]), float(v[0])))


def closest_feasible(intervals: Sequence[tuple[float, float]], target: float, p: np.ndarray, t: np.ndarray,
                     limit: float) -> float | None:
    """The point of the intervals closest to ``target`` whose straight-move cost
    ``geom.max_dist(p, t, x)`` is at most ``limit`` (closed form: the cost is a maximum
    of distances from points moving along a line, so its sub-level set is a common part
    of circle cuts). A point within the move's tolerance counts; the crossing found is
    where the cost equals ``limit`` itself, or the cheapest point when even that costs
    more (but within the tolerance)."""
    cut = max_dist_cut(p, t, limit)
    best: float | None = None
    for a, b in intervals:
        x0 = min(max(target, a), b)
        if max_dist(p, t, x0) <= limit + TOL:
            cand = x0
        elif cut is not None and max(a, cut[0]) <= min(b, cut[1]):
            lo, hi = max(a, cut[0]), min(b, cut[1])
            cand = min(max(x0, lo), hi)
        else:
            m = max_dist_argmin(p, t, a, b)
            if max_dist(p, t, m) > limit + TOL:
                continue
            cand = m
        if best is None or abs(cand - target) < abs(best - target) - 1e-12:
            best = cand
    return best


@dataclass
class Pose:
    c: np.ndarray
    facing: float
    w: float
    d: float
    _poly: Poly | None = field(default=None, repr=False)

    @property
    def poly(self) -> Poly:
        if self._poly is None:
            self._poly = rect(self.c, self.facing, self.w, self.d)
        return self._poly

    @property
    def f(self) -> np.ndarray:
        return unit(self.facing)

    def front(self) -> tuple[np.ndarray, np.ndarray]:
        P = self.poly
        return P[3], P[0]


@dataclass
class Placed:
    stand: StandW
    pose: Pose
    path: list[np.ndarray]
    cost: float
    how: str
    #: side offset of the line (first stand's front edge frame) or None
    contact: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def poly(self) -> Poly:
        return self.pose.poly


@dataclass
class EdgeTry:
    """One (charging stand, target stand, edge) considered for the first stand."""

    stand: StandW
    enemy: StandW
    edge: str
    dist: float
    free: list[tuple[float, float]]
    offset: float | None = None
    pose: Pose | None = None
    path: list[np.ndarray] | None = None
    cost: float = math.inf
    straight: bool = False
    accessible: bool = False
    c2c_cost: float = math.inf


@dataclass
class Outcome:
    success: bool
    placed: list[Placed]
    reasons: list[tuple[str, str, list[str], dict | None]]
    first: EdgeTry | None = None
    needed: float | None = None
    zone: str | None = None
    zone_roll: int | None = None
    eligible: bool = True


# ----------------------------------------------------------------------------- the charge


class ChargeBase:
    """One charge in progress: its stands, what is placed so far, and the obstacle,
    route and sight questions every placement step asks (cached per charge)."""

    def __init__(self, world: World, charger: str, target: str, variant: str, first_stand: str | None = None,
                 zone_die: Callable[[], int] | None = None) -> None:
        self.w = world
        self.charger = charger
        self.target = target
        self.variant = variant
        self.first_choice = first_stand
        self.zone_die = zone_die
        self.move = world.move_of(charger)
        self.player = world.player_of(charger)
        self.cstands = [s for s in world.by_unit[charger] if not s.is_character]
        self.tstands = [s for s in world.by_unit[target] if not s.is_character]
        self.others = [s for s in world.stands if s.unit != charger and not s.is_character]
        self.enemies = [s for s in self.others if s.player != self.player]
        self.cmin = (1.0 * world.cm) if variant == "revolution" else 10 * TOL
        self.placed: list[Placed] = []
        self._bar_cache: dict[float, list[tuple[Poly, str, str]]] = {}
        self._sight: dict[tuple[str, str], bool] = {}
        self._routes: dict[tuple, tuple[list[np.ndarray] | None, float]] = {}
        self._placed_bar_cache: dict[tuple[float, int], list[tuple[Poly, str, str]]] = {}
        self._path_obs: dict[tuple[str, int], tuple[list[Poly], list[tuple[Poly, list[StandW]]]]] = {}
        self._edge_free: dict[tuple, list[tuple[float, float]]] = {}
        self._pair_bars: dict[tuple[str, int, float], tuple[Poly, str, str] | None] = {}
        self._boxes: dict[int, tuple[Poly, tuple[float, float, float, float]]] = {}
        self._legs: LegStore = {}  # leg verdicts of this charge's routes (sweep.leg_memo)
        self.zone: str | None = None
        self.zone_roll: int | None = None

    # ------------------------------------------------------------------ obstacles

    def final_obstacles(self, s: StandW) -> list[Poly]:
        """What a stand's final footprint may not overlap."""
        obs = [o.poly for o in self.others]
        obs += [p.poly for p in self.placed]
        obs += self.w.move_blockers(s.kind)
        return obs

    def board_interval(self, P0: Poly, t: np.ndarray) -> tuple[float, float]:
        lo, hi = -math.inf, math.inf
        for k, size in ((0, self.w.width), (1, self.w.depth)):
            tk = float(t[k])
            for v in P0[:, k]:
                if abs(tk) < 1e-15:
                    if v < -TOL or v > size + TOL:
                        return (1.0, -1.0)
                    continue
                a, b = (-TOL - v) / tk, (size + TOL - v) / tk
                if a > b:
                    a, b = b, a
                lo, hi = max(lo, a), min(hi, b)
        return lo, hi

    def slide_free(self, s: StandW, P0: Poly, t: np.ndarray, lo: float, hi: float,
                   ignore: Sequence[Poly] = ()) -> list[tuple[float, float]]:
        blo, bhi = self.board_interval(P0, t)
        lo, hi = max(lo, blo), min(hi, bhi)
        if lo > hi:
            return []
        ign = {id(x) for x in ignore}
        blocked = []
        # an obstacle apart from the box of every slid copy cannot block any of them
        ends = np.concatenate([P0 + lo * t, P0 + hi * t])
        blo, bhi = ends.min(axis=0), ends.max(axis=0)
        for Ob in self.final_obstacles(s):
            if id(Ob) in ign:
                continue
            ox0, oy0, ox1, oy1 = self.box(Ob)
            if ox0 > bhi[0] or oy0 > bhi[1] or ox1 < blo[0] or oy1 < blo[1]:
                continue
            iv = slide_blocked(P0, t, Ob, SNAP)
            if iv is not None:
                if iv[0] < lo and iv[1] > hi:
                    # one open interval reaching past both ends leaves nothing of
                    # [lo, hi] free (not even an end point), whatever else blocks
                    return []
                blocked.append(iv)
        return free_intervals(lo, hi, blocked)

    def pose_free(self, s: StandW, pose: Pose) -> bool:
        P = pose.poly
        if np.any(P[:, 0] < -TOL) or np.any(P[:, 1] < -TOL) or np.any(P[:, 0] > self.w.width + TOL) \
                or np.any(P[:, 1] > self.w.depth + TOL):
            return False
        x0, y0, x1, y1 = _box_of(P)
        # overlaps() is false for an obstacle whose box is apart from the pose's
        for Ob in self.final_obstacles(s):
            ox0, oy0, ox1, oy1 = self.box(Ob)
            if ox0 > x1 or oy0 > y1 or ox1 < x0 or oy1 < y0:
                continue
            if overlaps(P, Ob):
                return False
        return True

    def box(self, Ob: Poly) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of an obstacle, remembered while it lives (the
        obstacles are the stands', placed poses' and terrain's own arrays)."""
        hit = self._boxes.get(id(Ob))
        if hit is None or hit[0] is not Ob:
            hit = self._boxes[id(Ob)] = (Ob, _box_of(Ob))
        return hit[1]

    def _bars(self, frontage: float) -> list[tuple[Poly, str, str]]:
        """Segments closing every gap between an enemy stand and another stand or
        impassable ground that is no wider than ``frontage`` (notes 3.2)."""
        key = round(frontage, 9)
        if key in self._bar_cache:
            return self._bar_cache[key]
        out: list[tuple[Poly, str, str]] = []
        others: list[tuple[Poly, str]] = [(o.poly, o.sid) for o in self.others]
        terr = [(p, t.tid) for t in self.w.terrain if t.kind in ("impassable", "wall") for p in t.parts]
        for i, e in enumerate(self.enemies):
            for P, pid in others + terr:
                if pid == e.sid:
                    continue
                if any(pid == x.sid for x in self.enemies[:i]):
                    continue  # each enemy pair once
                if bbox_gap(e.poly, P) > frontage + TOL:
                    continue
                g = sd(e.poly, P)
                if TOL < g <= frontage + TOL:
                    line = shapely.shortest_line(shapely.Polygon(e.poly), _shp(P))
                    out.append((np.asarray(line.coords), e.sid, pid))
        self._bar_cache[key] = out
        return out

    def path_obstacles(self, s: StandW, goal: Pose, ignore: Sequence[Poly] = ()) -> list[Poly]:
        start_poly = s.poly
        if not ignore:
            # what does not depend on the goal is remembered per stand and number of
            # stands placed (placed stands are only ever added); same list, same order
            key = (s.sid, len(self.placed))
            hit = self._path_obs.get(key)
            if hit is None:
                base = [o.poly for o in self.others]
                base += [p.poly for p in self.placed if not overlaps(p.poly, start_poly)]
                base += self.w.move_blockers(s.kind)
                bars = [(bar, [x for x in self.others if x.sid in (eid, pid)])
                        for bar, eid, pid in self._bars(s.w) + self._placed_bars(s.w)
                        if not (bbox_gap(bar, start_poly) <= TOL and sd(bar, start_poly) <= TOL)]
                hit = self._path_obs[key] = (base, bars)
            gpoly = goal.poly
            return hit[0] + [bar for bar, touching in hit[1]
                             if not any(bbox_gap(gpoly, x.poly) <= TOL and sd(gpoly, x.poly) <= TOL
                                        for x in touching)]
        ign = {id(x) for x in ignore}
        obs: list[Poly] = [o.poly for o in self.others if id(o.poly) not in ign]
        for p in self.placed:
            if overlaps(p.poly, start_poly):
                continue  # it may leave a spot an earlier stand of its unit now covers
            obs.append(p.poly)
        obs += [P for P in self.w.move_blockers(s.kind) if id(P) not in ign]
        gpoly = goal.poly
        for bar, eid, pid in self._bars(s.w) + self._placed_bars(s.w):
            if bbox_gap(bar, start_poly) <= TOL and sd(bar, start_poly) <= TOL:
                continue
            touching = [x for x in self.others if x.sid in (eid, pid)]
            if any(bbox_gap(gpoly, x.poly) <= TOL and sd(gpoly, x.poly) <= TOL for x in touching):
                continue  # moving into the gap to charge is allowed
            obs.append(bar)
        return obs

    def _placed_bars(self, frontage: float) -> list[tuple[Poly, str, str]]:
        key = (round(frontage, 9), len(self.placed))  # placed stands are only ever added
        hit = self._placed_bar_cache.get(key)
        if hit is None:
            hit = self._placed_bar_cache[key] = self._placed_bars_now(frontage)
        return hit

    def _placed_bars_now(self, frontage: float) -> list[tuple[Poly, str, str]]:
        out = []
        fk = round(frontage, 9)
        for e in self.enemies:
            for i, p in enumerate(self.placed):
                # each (enemy, placed stand) pair is decided once per frontage: placed
                # stands are only ever added, so the index names the stand
                key = (e.sid, i, fk)
                if key not in self._pair_bars:
                    self._pair_bars[key] = self._pair_bar(e, p, frontage)
                hit = self._pair_bars[key]
                if hit is not None:
                    out.append(hit)
        return out

    def _pair_bar(self, e: StandW, p: Placed, frontage: float) -> tuple[Poly, str, str] | None:
        if bbox_gap(e.poly, p.poly) > frontage + TOL:
            return None
        g = sd(e.poly, p.poly)
        if TOL < g <= frontage + TOL:
            line = shapely.shortest_line(shapely.Polygon(e.poly), shapely.Polygon(p.poly))
            return (np.asarray(line.coords), e.sid, p.stand.sid)
        return None

    def route(self, s: StandW, goal: Pose, ignore: Sequence[Poly] = (), cap: float | None = None,
              refine: bool = True) -> tuple[list[np.ndarray] | None, float, bool]:
        """(path, cost, straight?) of a stand to a pose; path None when no clear path
        within ``cap`` (default: its move) exists. A clear straight path is returned
        whatever its length."""
        cap = self.move if cap is None else cap
        if s.round_r is None:
            return self._rect_route(s, goal, ignore, cap)
        obs = Packed(self.path_obstacles(s, goal, ignore))
        r = s.shortest / 2
        if clear_segments(s.c[None], goal.c[None], obs, r)[0]:
            return [s.c.copy(), goal.c.copy()], corner_cost(s.c, s.facing, goal.c, goal.facing, s.w, s.d), True
        # Obstacles only ever grow during a charge, so a shortest path found earlier
        # that is still clear is still the shortest.
        key = (s.sid, round(float(goal.c[0]), 9), round(float(goal.c[1]), 9), round(goal.facing, 9),
               tuple(sorted(id(x) for x in ignore)), round(cap, 9), refine)
        hit = self._routes.get(key)
        if hit is not None:
            p0 = hit[0]
            if p0 is None:
                return None, math.inf, False
            P = np.array(p0)
            if bool(np.all(clear_segments(P[:-1], P[1:], obs, r))):
                return p0, hit[1], False
        # A coarse detour is at most a few hundredths of r too long; when that could
        # matter (its cost is just over the cap) the search is refined.
        margin = 0.1 * r
        turn = (s.facing, goal.facing, s.w, s.d)
        p = shortest_path(s.c, goal.c, obs, r, cap + margin, stand=turn)
        c = math.inf if p is None else path_cost(p, s.facing, goal.facing, s.w, s.d)
        if refine and p is not None and cap + TOL < c <= cap + margin:
            p2 = shortest_path(s.c, goal.c, obs, r, cap + margin, refine=True, stand=turn)
            c2 = math.inf if p2 is None else path_cost(p2, s.facing, goal.facing, s.w, s.d)
            if c2 < c:
                p, c = p2, c2
        if p is None:
            self._routes[key] = (None, math.inf)
            return None, math.inf, False
        self._routes[key] = (p, c)
        return p, c, False

    def _rect_route(self, s: StandW, goal: Pose, ignore: Sequence[Poly], cap: float
                    ) -> tuple[list[np.ndarray] | None, float, bool]:
        """A rectangular stand moves as its rectangle (``sweep.py``): it never passes
        a gap its footprint does not fit in the facing it holds there."""
        obs = self.path_obstacles(s, goal, ignore)
        key = ("rect", s.sid, round(float(goal.c[0]), 9), round(float(goal.c[1]), 9), round(goal.facing, 9),
               tuple(sorted(id(x) for x in ignore)), round(cap, 9))
        hit = self._routes.get(key)
        if hit is not None:
            if hit[0] is None:
                return None, math.inf, False
            c = route_cost(hit[0], s.facing, goal.facing, s.w, s.d, obs, self._legs)
            if c == hit[1]:
                return hit[0], hit[1], len(hit[0]) == 2
        found = stand_route(s.c, s.facing, goal.c, goal.facing, s.w, s.d, obs, cap, self._legs)
        if found is None:
            self._routes[key] = (None, math.inf)
            return None, math.inf, False
        path, c = found
        if len(path) > 2:
            # the cheaper of the two turns among those clear (a straight move was just
            # tested and costed exactly so by stand_route)
            c = route_cost(path, s.facing, goal.facing, s.w, s.d, obs, self._legs)
        self._routes[key] = (path, c)
        return path, c, len(path) == 2

    # ------------------------------------------------------------------ sight

    def sight_blockers(self, viewer: StandW, target: StandW) -> list[Poly]:
        obs = [x.poly for x in self.w.stands if x is not viewer and x is not target and not x.is_character]
        obs += [p for t in self.w.terrain if t.blocks_sight for p in t.parts]
        return obs

    def stand_sees(self, viewer: StandW, target: StandW) -> bool:
        key = (viewer.sid, target.sid)
        if key not in self._sight:
            F = viewer.edge("front")
            self._sight[key] = sees(F, viewer.f, target.poly, self.sight_blockers(viewer, target))
        return self._sight[key]

    # ------------------------------------------------------------------ flush poses

    def edge_frame(self, s: StandW, enemy: StandW, edge: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        """(edge midpoint, unit along the edge, outward normal, edge length, facing the
        charger takes against it)."""
        a, b = enemy.edge(edge)
        L = float(np.linalg.norm(b - a))
        t = (b - a) / L
        n = np.array([t[1], -t[0]])
        return (a + b) / 2, t, n, L, _angle_of(-n)

    def flush_pose(self, s: StandW, enemy: StandW, edge: str, off: float) -> Pose:
        m, t, n, _, fac = self.edge_frame(s, enemy, edge)
        return Pose(m + off * t + n * (s.d / 2), fac, s.w, s.d)

    def edge_free(self, s: StandW, enemy: StandW, edge: str, cmin: float) -> list[tuple[float, float]]:
        # The free offsets depend on the stand only through its size and kind: the
        # flush pose is built from the edge and the stand's width and depth, and what
        # the final footprint may not overlap (``final_obstacles``) from its kind and
        # the stands placed so far (only ever added, so their count names them). Stands
        # of one size share the answer, computed once (the same call, the same result).
        key = (enemy.sid, edge, s.kind, s.w, s.d, cmin, len(self.placed))
        hit = self._edge_free.get(key)
        if hit is None:
            hit = self._edge_free[key] = self._edge_free_now(s, enemy, edge, cmin)
        return list(hit)

    def _edge_free_now(self, s: StandW, enemy: StandW, edge: str, cmin: float) -> list[tuple[float, float]]:
        _, t, _, L, _ = self.edge_frame(s, enemy, edge)
        if cmin > min(L, s.w) + 1e-12:
            return []
        span = (L + s.w) / 2 - cmin
        P0 = self.flush_pose(s, enemy, edge, 0.0).poly
        return self.slide_free(s, P0, t, -span, span)


def _box_of(P: Poly) -> tuple[float, float, float, float]:
    """The box of a polygon in plain floats (min and max are exact: the array's values)."""
    xs, ys = zip(*P.tolist(), strict=True)
    return min(xs), min(ys), max(xs), max(ys)


def _shp(P: Poly) -> shapely.Geometry:
    return shapely.LineString(P) if len(P) == 2 else shapely.Polygon(P)
