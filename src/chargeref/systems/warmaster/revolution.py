"""The first stand of a Revolution charge (rules-notes section 3.4).

The zone (front, side, rear) of the closest visible target stand that the charging
unit mostly occupies names the edge; an exact split of the unit between two zones is
settled by a die. Any charging stand that sees the target may go first: each is placed
as near centre to centre on that edge as it can reach (off-centre for any reason), by a
straight move when its way is clear, else at the nearest offset a detour reaches
(``detour.reach_set``), confirmed by the route search. The stand nearest the centre
(then moving least) goes first; when no stand gets in, the next closest visible target
stand is tried in the same zone.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from ...geometry.shapes import TOL
from .detour import least_cost, reach_set
from .geom import Poly, max_dist, max_dist_argmin, poly_seg_dist, rect, sd, slide_blocked
from .placing import EDGES, ChargeBase, EdgeTry, closest_feasible
from .sweep import leg_sweep, sweep_blocked
from .world import StandW

#: a constructed Revolution spot refused by the route search is tried again this far
#: inside its reachable stretch (a last leg that only grazes an obstacle)
RETRY = 1e-9


class RevolutionFirst(ChargeBase):
    """Chooses and places the first stand of a Revolution charge."""

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
