"""Placing a charging Warmaster unit (seed 004, and the Revolution differences).

The procedure, stand by stand:

1. The first stand.
   * ``original`` (seed 004): among every (charging stand, accessible target edge)
     pair take the closest (footprint to edge distance; equally close pairs go to the
     one needing the least move to its centre-to-centre spot). An edge is accessible
     when some flush contact pose on it is free, and the stand can get to its ideal
     placement by a clear path: either the straight way (however long - a stand that
     is merely too far is still the closest, and then fails) or a detour within its
     move (an edge reachable only by a longer detour, e.g. behind a gap too narrow to
     pass, is seen but not accessible). The stand is placed centre to centre, or, when
     that spot is covered, as close to it as it can while still touching some of the
     edge; either way it must have the move to reach the centre-to-centre spot.
   * ``revolution``: the zone (front, side, rear) of the closest visible target stand
     that the charging unit mostly occupies names the edge; any charging stand that
     sees the target may go first (we take the one that gets closest to centre to
     centre, then the one moving least); at least 1 cm of clear edge is needed, else
     the next closest visible target stand is tried in the same zone. Off-centre
     placement is allowed for any reason, room or reach.
2. The remaining stands, one at a time, each touching a placed stand: into the line
   (front edges flush with the first stand's) where they can, each taking the spot
   with the most front-edge contact with enemy stands (a corner counts for something);
   Revolution counts the target unit first. Stands with no line spot in reach or room
   go directly behind, or beside and staggered back from, a placed stand. If even that
   fails, the charge fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from ...budget import check as budget_check
from ...geometry.shapes import TOL
from .detour import least_cost, reach_set
from .geom import (
    Packed,
    Poly,
    bbox_gap,
    closest_in,
    free_intervals,
    max_dist,
    max_dist_argmin,
    max_dist_cut,
    overlaps,
    poly_seg_dist,
    poly_seg_dists,
    rect,
    sd,
    slide_blocked,
    unit,
)
from .paths import clear_segments, corner_cost, path_cost, shortest_path
from .sight import sees
from .sweep import leg_sweep, route_cost, stand_route, sweep_blocked
from .world import StandW, World

EDGES = ("front", "left", "right", "rear")
#: sliding stops this close to a touching contact (far inside TOL, far above float noise)
SNAP = 1e-9
#: a constructed Revolution spot refused by the route search is tried again this far
#: inside its reachable stretch (a last leg that only grazes an obstacle)
RETRY = 1e-9


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


class Charge:
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
            if np.any(Ob.min(axis=0) > bhi) or np.any(Ob.max(axis=0) < blo):
                continue
            iv = slide_blocked(P0, t, Ob, SNAP)
            if iv is not None:
                blocked.append(iv)
        return free_intervals(lo, hi, blocked)

    def pose_free(self, s: StandW, pose: Pose) -> bool:
        P = pose.poly
        if np.any(P[:, 0] < -TOL) or np.any(P[:, 1] < -TOL) or np.any(P[:, 0] > self.w.width + TOL) \
                or np.any(P[:, 1] > self.w.depth + TOL):
            return False
        lo, hi = P.min(axis=0), P.max(axis=0)
        # overlaps() is false for an obstacle whose box is apart from the pose's
        return not any(overlaps(P, Ob) for Ob in self.final_obstacles(s)
                       if not (np.any(Ob.min(axis=0) > hi) or np.any(Ob.max(axis=0) < lo)))

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
        for e in self.enemies:
            for p in self.placed:
                if bbox_gap(e.poly, p.poly) > frontage + TOL:
                    continue
                g = sd(e.poly, p.poly)
                if TOL < g <= frontage + TOL:
                    line = shapely.shortest_line(shapely.Polygon(e.poly), shapely.Polygon(p.poly))
                    out.append((np.asarray(line.coords), e.sid, p.stand.sid))
        return out

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
            c = route_cost(hit[0], s.facing, goal.facing, s.w, s.d, obs)
            if c == hit[1]:
                return hit[0], hit[1], len(hit[0]) == 2
        found = stand_route(s.c, s.facing, goal.c, goal.facing, s.w, s.d, obs, cap)
        if found is None:
            self._routes[key] = (None, math.inf)
            return None, math.inf, False
        path, c = found
        if len(path) > 2:
            # the cheaper of the two turns among those clear (a straight move was just
            # tested and costed exactly so by stand_route)
            c = route_cost(path, s.facing, goal.facing, s.w, s.d, obs)
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
        _, t, _, L, _ = self.edge_frame(s, enemy, edge)
        if cmin > min(L, s.w) + 1e-12:
            return []
        span = (L + s.w) / 2 - cmin
        P0 = self.flush_pose(s, enemy, edge, 0.0).poly
        return self.slide_free(s, P0, t, -span, span)

    # ------------------------------------------------------------------ first stand: original

    def try_edge_original(self, s: StandW, enemy: StandW, edge: str, dist: float | None = None) -> EdgeTry:
        if dist is None:
            dist = poly_seg_dist(s.poly, *enemy.edge(edge))
        et = EdgeTry(s, enemy, edge, dist, self.edge_free(s, enemy, edge, self.cmin))
        if not et.free:
            return et
        # as near the centre-to-centre spot as the free offsets allow; the nearest spot
        # on the other side is the fallback when the first has no clear path at all
        offs: list[float] = []
        o1 = closest_in(et.free, 0.0)
        if o1 is not None:
            offs.append(o1)
            if o1 > 1e-12:
                o2 = closest_in([(a, min(b, 0.0)) for a, b in et.free if a < 0.0], 0.0)
            elif o1 < -1e-12:
                o2 = closest_in([(max(a, 0.0), b) for a, b in et.free if b > 0.0], 0.0)
            else:
                o2 = None
            if o2 is not None:
                offs.append(o2)
        for off in offs:
            pose = self.flush_pose(s, enemy, edge, off)
            path, cost, straight = self.route(s, pose)
            if path is None:
                continue
            et.offset, et.pose, et.path, et.cost, et.straight = off, pose, path, cost, straight
            et.accessible = straight or cost <= self.move + TOL
            break
        if et.accessible and et.offset is not None:
            if abs(et.offset) <= 1e-12:
                et.c2c_cost = et.cost
            else:
                ideal = self.flush_pose(s, enemy, edge, 0.0)
                cover = [Ob for Ob in self.final_obstacles(s) if overlaps(ideal.poly, Ob)]
                _, c2c, _ = self.route(s, ideal, ignore=cover)
                et.c2c_cost = c2c
        return et

    def first_original(self) -> tuple[EdgeTry | None, list[EdgeTry]]:
        edges = [(j, k, e, ed, *e.edge(ed)) for j, e in enumerate(self.tstands) for k, ed in enumerate(EDGES)]
        cands = []
        for i, s in enumerate(self.cstands):
            dists = poly_seg_dists(s.poly, np.array([x[4] for x in edges]), np.array([x[5] for x in edges]))
            cands += [(float(dist), i, j, k, s, e, ed) for dist, (j, k, e, ed, _, _) in zip(dists, edges, strict=True)]
        cands.sort(key=lambda c: (c[0], c[1], c[2], c[3]))
        tried: list[EdgeTry] = []
        dstar = math.inf
        for dist, _i, _j, _k, s, e, ed in cands:
            if dist > dstar + TOL:
                break
            et = self.try_edge_original(s, e, ed, dist)
            tried.append(et)
            if et.accessible:
                dstar = min(dstar, dist)
        ties = [t for t in tried if t.accessible and t.dist <= dstar + TOL]
        if not ties:
            return None, tried
        # equally close pairs: the one needing the least move to its ideal spot
        best = min(ties, key=lambda t: (round(t.c2c_cost, 9), self.cstands.index(t.stand),
                                        self.tstands.index(t.enemy), EDGES.index(t.edge)))
        return best, tried

    # ------------------------------------------------------------------ first stand: revolution

    def zones(self, enemy: StandW) -> dict[str, shapely.Geometry]:
        K = 10 * max(self.w.width, self.w.depth) + 100
        P = enemy.poly  # FL, RL, RR, FR
        f, lf = enemy.f, enemy.lft
        FL, RL, RR, FR = P
        return {
            "front": shapely.Polygon([FR, FL, FL + K * (f + lf), FR + K * (f - lf)]),
            "left": shapely.Polygon([FL, RL, RL + K * (lf - f), FL + K * (f + lf)]),
            "rear": shapely.Polygon([RL, RR, RR + K * (-f - lf), RL + K * (lf - f)]),
            "right": shapely.Polygon([RR, FR, FR + K * (f - lf), RR + K * (-f - lf)]),
        }

    def zone_of_unit(self, enemy: StandW) -> tuple[str, int | None]:
        body = shapely.union_all([shapely.Polygon(s.poly) for s in self.cstands])
        areas = {k: body.intersection(z).area for k, z in self.zones(enemy).items()}
        top = max(areas.values())
        best = [k for k in EDGES if areas[k] >= top - 1e-9 * max(1.0, top)]
        if len(best) == 1:
            return best[0], None
        die = self.zone_die() if self.zone_die else 1
        # split exactly: a die decides (1-3 the first zone, 4-6 the second; notes 3.4)
        return (best[0] if die <= 3 else best[1]), die

    def first_revolution(self) -> tuple[EdgeTry | None, list[EdgeTry]]:
        seeing = [s for s in self.cstands if any(self.stand_sees(s, t) for t in self.tstands)]
        if self.first_choice is not None:
            seeing = [s for s in seeing if s.sid == self.first_choice]
        visible = [t for t in self.tstands if any(self.stand_sees(s, t) for s in self.cstands)]
        if not visible or not seeing:
            return None, []
        unit_dist = {t.sid: min(sd(s.poly, t.poly) for s in self.cstands) for t in visible}
        order = sorted(visible, key=lambda t: (round(unit_dist[t.sid], 9), self.tstands.index(t)))
        zone, die = self.zone_of_unit(order[0])
        self.zone, self.zone_roll = zone, die
        tried: list[EdgeTry] = []
        for enemy in order:
            best: EdgeTry | None = None
            for s in seeing:
                et = EdgeTry(s, enemy, zone, poly_seg_dist(s.poly, *enemy.edge(zone)),
                             self.edge_free(s, enemy, zone, self.cmin))
                tried.append(et)
                if not et.free:
                    continue
                self._place_revolution(et, None if best is None else abs(best.offset or 0.0))
                if not et.accessible:
                    continue
                if best is None or (round(abs(et.offset or 0.0), 9), round(et.cost, 9)) < (
                        round(abs(best.offset or 0.0), 9), round(best.cost, 9)):
                    best = et
            if best is not None:
                return best, tried
        return None, tried

    def _place_revolution(self, et: EdgeTry, beat: float | None = None) -> None:
        """As near centre to centre as the stand can reach (Revolution allows off-centre
        placement for any reason). The nearest spot a straight move can afford bounds
        every answer (no route is cheaper than the straight one) and is the answer
        when it is reachable; otherwise the spots reached by detours are constructed
        (``detour.reach_set``) and the nearest confirmed by the route search."""
        s, enemy, edge = et.stand, et.enemy, et.edge

        # a straight move to the spot at offset x moves corner k by p_k + x t
        m, t, n, _, fac = self.edge_frame(s, enemy, edge)
        g0 = m + n * (s.d / 2)
        p = rect(g0, fac, s.w, s.d) - rect(s.c, s.facing, s.w, s.d)

        def reach(off: float) -> tuple[list[np.ndarray], float, bool] | None:
            pose = self.flush_pose(s, enemy, edge, off)
            path, c, straight = self.route(s, pose)
            if path is None or c > self.move + TOL:
                return None
            return path, c, straight

        def take(off: float, got: tuple[list[np.ndarray], float, bool]) -> None:
            et.offset, et.pose = off, self.flush_pose(s, enemy, edge, off)
            et.path, et.cost, et.straight = got
            et.accessible = True

        pieces_: list[tuple[tuple[float, float], list[Poly]]] = []

        def pieces() -> list[tuple[tuple[float, float], list[Poly]]]:
            """The free stretches cut where the obstacles change (a gap bar is dropped
            while the spot touches a stand that forms the gap), each with its obstacles."""
            if not pieces_:
                pieces_.extend((pq, self.path_obstacles(s, self.flush_pose(s, enemy, edge, (pq[0] + pq[1]) / 2)))
                               for a, b in et.free for pq in self._bar_pieces(s, enemy, edge, a, b))
            return pieces_

        # least move to any legal spot on the edge (for ``needed``): the cheapest straight
        # move (closed form) when its way is clear; else the cheapest route within the
        # move (detour.least_cost); when none is within the move, the straight one stays
        # as a lower bound
        xs = [max_dist_argmin(p, t, a, b) for a, b in et.free]
        et.c2c_cost = min((max_dist(p, t, x) for x in xs), default=math.inf)
        if xs:
            x_best = min(xs, key=lambda x: max_dist(p, t, x))
            pose = self.flush_pose(s, enemy, edge, x_best)
            if sweep_blocked(leg_sweep(s.c, s.facing, pose.c, fac, s.w, s.d), self.path_obstacles(s, pose)):
                found = [least_cost(s.c, s.facing, fac, s.w, s.d, g0, t, a, b, obs, self.move + TOL)
                         for (a, b), obs in pieces()]
                costs = [c for _, c in (f for f in found if f is not None)]
                if costs:
                    et.c2c_cost = min(costs)
        # a straight move is the cheapest way to any spot, so the nearest spot that a
        # straight move reaches bounds every answer; when its straight way is clear it
        # is the answer
        o = closest_feasible(et.free, 0.0, p, t, self.move)
        if o is None:
            return
        if beat is not None and abs(o) > beat + 1e-9:
            return  # another stand already gets nearer the centre than this one can
        got = reach(o)
        if got is not None:
            take(o, got)  # no spot nearer the centre can be reached by any route
            return
        # Only detours remain. The offsets they reach are constructed (detour.py),
        # piece by piece of edge over which the obstacles stay the same (a gap bar is
        # dropped while the spot touches a stand forming the gap); the candidates are
        # confirmed with the route search, nearest the centre first.
        # the exact move first; the tolerance allowed on a move only when nothing is
        # reached without it (a spot that needs just the move touches the cost circle)
        for cap in (self.move, self.move + TOL):
            cands: set[float] = set()
            for (p, q), obs in pieces():
                for u, v in reach_set(s.c, s.facing, fac, s.w, s.d, g0, t, p, q, obs, cap):
                    x = min(max(0.0, u), v)
                    cands.add(x)
                    # where the last leg only grazes a sum the route search's strict
                    # test may refuse the spot itself: then a hair (1e-9) inside
                    inner = x + (RETRY if x == u else -RETRY)
                    if u < inner < v:
                        cands.add(inner)
                cands |= {p, q}  # the obstacles change here: the ends are tried too
            for x in sorted(cands, key=lambda x: (abs(x), x)):
                if beat is not None and abs(x) > beat + 1e-9:
                    return
                got = reach(x)
                if got is not None:
                    take(x, got)
                    return

    def _bar_pieces(self, s: StandW, enemy: StandW, edge: str, a: float, b: float) -> list[tuple[float, float]]:
        """``[a, b]`` cut where a spot on the edge starts or stops touching a stand that
        forms a gap closed by a bar (``path_obstacles`` drops such a bar for a stand
        charging into the gap): exact offsets from the slide intervals."""
        formers = {sid for _, eid, pid in self._bars(s.w) for sid in (eid, pid)}
        P0 = self.flush_pose(s, enemy, edge, 0.0).poly
        _, t, _, _, _ = self.edge_frame(s, enemy, edge)
        xs: set[float] = set()
        for o in self.others:
            if o.sid in formers:
                iv = slide_blocked(P0, t, o.poly, -TOL)  # touching within TOL
                if iv is not None:
                    xs |= set(iv)
        cuts = sorted({a, b} | {x for x in xs if a < x < b})
        return list(zip(cuts[:-1], cuts[1:], strict=True)) or [(a, b)]

    # ------------------------------------------------------------------ contact

    def contact(self, pose: Pose) -> tuple[float, bool, float, bool]:
        """(front contact length with the target, front touches the target, the same
        for other enemy stands)."""
        F0, F1 = pose.front()
        f = pose.f
        lf = np.array([-f[1], f[0]])
        out = [0.0, False, 0.0, False]
        seg = np.array([F0, F1])
        for e in self.enemies:
            k = 0 if e.unit == self.target else 2
            if bbox_gap(e.poly, seg) > TOL or poly_seg_dist(e.poly, F0, F1) > TOL:
                continue
            out[k + 1] = True
            for name in EDGES:
                a, b = e.edge(name)
                n = np.array([(b - a)[1], -(b - a)[0]]) / np.linalg.norm(b - a)
                if n @ f > -1 + 1e-9 or abs((a - F0) @ f) > TOL:
                    continue
                u0, u1 = sorted((float((a - F0) @ lf), float((b - F0) @ lf)))
                v0, v1 = sorted((float((F0 - F0) @ lf), float((F1 - F0) @ lf)))
                out[k] += max(0.0, min(u1, v1) - max(u0, v0))
        return out[0], out[1], out[2], out[3]  # type: ignore[return-value]

    def score(self, pose: Pose) -> tuple:
        tl, tt, ol, ot = self.contact(pose)
        if self.variant == "revolution":
            # the unit originally charged comes first (Revolution Q&A)
            return (round(tl, 7), tt, round(ol, 7), ot)
        return (round(tl + ol, 7), tt or ot)

    # ------------------------------------------------------------------ remaining stands

    def line_candidates(self, s: StandW) -> list[tuple[Pose, str]]:
        """Beside either end of the line, front edges flush (Revolution also: staggered
        to follow an irregular target's front)."""
        ends = self._line_ends()
        out: list[tuple[Pose, str]] = []
        for p, side in ends:
            f, lf = p.pose.f, np.array([-p.pose.f[1], p.pose.f[0]])
            base = p.pose.c + side * lf * (p.pose.w + s.w) / 2 + f * (p.pose.d - s.d) / 2
            out.append((Pose(base, p.pose.facing, s.w, s.d), "line"))
            if self.variant == "revolution" and not self._target_in_line():
                for delta in self._follow_offsets(base, f, lf, s, p):
                    out.append((Pose(base + f * delta, p.pose.facing, s.w, s.d), "follow"))
        return out

    def _line_ends(self) -> list[tuple[Placed, float]]:
        line = [p for p in self.placed if p.how in ("first", "line", "follow")]
        first = self.placed[0]
        lf = np.array([-first.pose.f[1], first.pose.f[0]])
        us = [(float((p.pose.c - first.pose.c) @ lf), p) for p in line]
        hi = max(us, key=lambda x: x[0])[1]
        lo = min(us, key=lambda x: x[0])[1]
        return [(hi, 1.0), (lo, -1.0)]

    def _target_in_line(self) -> bool:
        ts = self.tstands
        if len(ts) <= 1:
            return True
        f0 = ts[0].f
        a0 = ts[0].edge("front")[0]
        for t in ts:
            if abs(float(t.f @ f0) - 1) > 1e-9:
                return False
            if abs(float((t.edge("front")[0] - a0) @ f0)) > TOL:
                return False
        return True

    def _follow_offsets(self, base: np.ndarray, f: np.ndarray, lf: np.ndarray, s: StandW, p: Placed) -> list[float]:
        out = []
        front0 = base + f * s.d / 2
        u_lo = float(front0 @ lf) - s.w / 2
        u_hi = u_lo + s.w
        for e in self.enemies:
            for name in EDGES:
                a, b = e.edge(name)
                n = np.array([(b - a)[1], -(b - a)[0]]) / np.linalg.norm(b - a)
                if n @ f > -1 + 1e-9:
                    continue
                e0, e1 = sorted((float(a @ lf), float(b @ lf)))
                if min(e1, u_hi) - max(e0, u_lo) <= TOL:
                    continue
                delta = float((a - front0) @ f)
                if TOL < abs(delta) < min(s.d, p.pose.d) - TOL:
                    out.append(delta)
        return out

    def fallback_candidates(self, s: StandW) -> list[tuple[Pose, str, Callable[[], float | None] | None]]:
        out: list[tuple[Pose, str, Callable[[], float | None] | None]] = []
        for p in self.placed:
            f = p.pose.f
            lf = np.array([-f[1], f[0]])
            behind = Pose(p.pose.c - f * (p.pose.d + s.d) / 2, p.pose.facing, s.w, s.d)
            out.append((behind, "behind", None))
            for side in (1.0, -1.0):
                base = p.pose.c + side * lf * (p.pose.w + s.w) / 2 + f * (p.pose.d - s.d) / 2
                out.append((Pose(base, p.pose.facing, s.w, s.d), "staggered", None))
                out[-1] = (out[-1][0], "staggered", self._stagger_solver(s, p, base, f))
        return out

    def _stagger_solver(self, s: StandW, p: Placed, base: np.ndarray, f: np.ndarray) -> Callable[[], float | None]:
        def solve() -> float | None:
            P0 = Pose(base, p.pose.facing, s.w, s.d).poly
            free = self.slide_free(s, P0, -f, 0.0, p.pose.d)
            # set back by dl, corner k moves by q_k - dl f
            q = P0 - rect(s.c, s.facing, s.w, s.d)
            return closest_feasible(free, 0.0, q, -f, self.move)

        return solve

    def place_rest(self) -> tuple[bool, str | None, list[str]]:
        left = [s for s in self.cstands if s is not self.placed[0].stand]
        while left:
            budget_check()
            best: tuple[tuple[Any, ...], Placed] | None = None
            saw_free = False
            seen: set[tuple[str, float, float, float]] = set()

            def fresh(s: StandW, pose: Pose, seen: set[tuple[str, float, float, float]] = seen) -> bool:
                """False for a spot this stand has already been tried at in this step."""
                k = (s.sid, round(float(pose.c[0]), 7), round(float(pose.c[1]), 7), round(pose.facing % 360, 7))
                if k in seen:
                    return False
                seen.add(k)
                return True

            for s in left:
                for pose, how in self.line_candidates(s):
                    if not fresh(s, pose) or not self.pose_free(s, pose):
                        continue
                    saw_free = True
                    path, cost, _ = self.route(s, pose)
                    if path is None or cost > self.move + TOL:
                        continue
                    sc = self.score(pose)
                    key: tuple[Any, ...] = (tuple(-x if isinstance(x, float) else -int(x) for x in sc),
                                            0 if how == "line" else 1, round(cost, 9), self.cstands.index(s))
                    if best is None or key < best[0]:
                        best = (key, Placed(s, pose, path, cost, how, contact=sc[0]))
            if best is None:
                for s in left:
                    for pose, how, solver in self.fallback_candidates(s):
                        if solver is not None:
                            dl = solver()
                            if dl is None:
                                continue
                            pose = Pose(pose.c - pose.f * dl, pose.facing, pose.w, pose.d)
                            if dl <= 1e-12:
                                how = "line" if self._on_line(pose) else how
                        if not fresh(s, pose) or not self.pose_free(s, pose):
                            continue
                        saw_free = True
                        path, cost, _ = self.route(s, pose)
                        if path is None or cost > self.move + TOL:
                            continue
                        sc = self.score(pose)
                        key = (round(float(cost), 9), self.cstands.index(s), how)
                        if best is None or key < best[0]:
                            best = (key, Placed(s, pose, path, cost, how, contact=sc[0]))
            if best is None:
                ids = [s.sid for s in left]
                return False, ("out_of_reach" if saw_free else "no_room"), ids
            self.placed.append(best[1])
            left.remove(best[1].stand)
        return True, None, []

    def _on_line(self, pose: Pose) -> bool:
        first = self.placed[0].pose
        return abs(float((pose.front()[0] - first.front()[0]) @ first.f)) <= TOL and \
            abs(pose.facing - first.facing) % 360 < 1e-9

    # ------------------------------------------------------------------ corner check

    def corner_reachable(self) -> EdgeTry | None:
        """A pose touching a target stand only at a corner (flush with one of its edges
        just past the end), free and in reach: used to explain a refusal."""
        for s in self.cstands:
            for e in self.tstands:
                for ed in EDGES:
                    _, _, _, L, _ = self.edge_frame(s, e, ed)
                    for off in ((L + s.w) / 2, -(L + s.w) / 2):
                        pose = self.flush_pose(s, e, ed, off)
                        if not self.pose_free(s, pose):
                            continue
                        path, cost, _ = self.route(s, pose)
                        if path is not None and cost <= self.move + TOL:
                            et = EdgeTry(s, e, ed, poly_seg_dist(s.poly, *e.edge(ed)), [], off, pose, path, cost)
                            return et
        return None

    # ------------------------------------------------------------------ run

    def run(self) -> Outcome:
        reasons: list[tuple[str, str, list[str], dict | None]] = []
        # the unit must see its target (notes 3.3)
        if not any(self.stand_sees(s, t) for s in self.cstands for t in self.tstands):
            reasons.append(("not_visible", f"no stand of {self.charger} can see {self.target} from its front edge",
                            [s.sid for s in self.cstands], None))
            return Outcome(False, [], reasons, eligible=False)
        if self.variant == "revolution" and self.first_choice is not None:
            chosen = [s for s in self.cstands if s.sid == self.first_choice]
            if not chosen or not any(self.stand_sees(chosen[0], t) for t in self.tstands):
                reasons.append(("first_stand_blind", f"the chosen first stand {self.first_choice} cannot see "
                                f"{self.target}", [self.first_choice], None))
                return Outcome(False, [], reasons)
        if self.variant == "revolution":
            first, tried = self.first_revolution()
        else:
            first, tried = self.first_original()
        if first is None:
            corner = self.corner_reachable()
            if corner is not None:
                reasons.append(("corner_only",
                                f"only a corner of {self.target} can be reached ({corner.enemy.sid}); the first "
                                "stand must contact an edge, so the charge is not allowed",
                                [corner.stand.sid], {"enemy_stand": corner.enemy.sid, "edge": corner.edge}))
            elif any(t.free for t in tried):
                open_ = [t for t in tried if t.free]
                too_far = all(t.c2c_cost > self.move + TOL for t in open_) if self.variant == "revolution" \
                    else False
                reasons.append(("out_of_reach" if too_far else "blocked_path",
                                f"no charging stand has a clear path within its move ({self.move:g}) to an "
                                f"accessible edge of {self.target}", [s.sid for s in self.cstands], None))
            else:
                msg = (f"every edge of {self.target} that could be charged is covered"
                       + (" (less than 1 cm clear)" if self.variant == "revolution" else ""))
                reasons.append(("no_accessible_edge", msg, [s.sid for s in self.cstands], None))
            return Outcome(False, [], reasons, first=None, zone=self.zone, zone_roll=self.zone_roll)
        needed = max(first.c2c_cost, first.cost) if self.variant == "original" else first.c2c_cost
        # the move limit (seed 004: the first stand must be able to make the ideal,
        # centre-to-centre placement even when it ends off-centre)
        if first.cost > self.move + TOL or (self.variant == "original" and first.c2c_cost > self.move + TOL):
            short = max(first.cost, first.c2c_cost if self.variant == "original" else 0.0)
            reasons.append(("out_of_reach",
                            f"the first stand {first.stand.sid} needs {short:.3f} to reach the centre-to-centre spot "
                            f"on the {first.edge} edge of {first.enemy.sid} but may move {self.move:g}",
                            [first.stand.sid], {"needed": short, "move": self.move}))
            return Outcome(False, [], reasons, first=first, needed=needed, zone=self.zone, zone_roll=self.zone_roll)
        assert first.pose is not None and first.path is not None
        self.placed = [Placed(first.stand, first.pose, first.path, first.cost, "first",
                              contact=self.score(first.pose)[0])]
        if abs(first.offset or 0.0) > 1e-12:
            reasons.append(("partially_covered",
                            f"the centre-to-centre spot on {first.enemy.sid} is covered; {first.stand.sid} is placed "
                            f"{abs(first.offset or 0.0):.3f} off centre, as close as it can get",
                            [first.stand.sid], {"offset": first.offset}))
        ok, code, ids = self.place_rest()
        if not ok:
            what = "the move" if code == "out_of_reach" else "the room"
            reasons.append((code or "no_room",
                            f"stands {', '.join(ids)} have neither {what} to join the line nor a spot behind or "
                            "staggered back that keeps the unit in formation", ids, None))
            return Outcome(False, [], reasons, first=first, needed=needed, zone=self.zone, zone_roll=self.zone_roll)
        return Outcome(True, list(self.placed), reasons, first=first, needed=needed, zone=self.zone,
                       zone_roll=self.zone_roll)


def _shp(P: Poly) -> shapely.Geometry:
    return shapely.LineString(P) if len(P) == 2 else shapely.Polygon(P)
