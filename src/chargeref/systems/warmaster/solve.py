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

import numpy as np

from ...geometry.shapes import TOL
from .formation import Formation
from .geom import closest_in, overlaps, poly_seg_dist, poly_seg_dists
from .placing import EDGES, EdgeTry, Outcome, Placed
from .revolution import RevolutionFirst
from .world import StandW


class Charge(RevolutionFirst, Formation):
    """One charge, placed stand by stand: the first stand (original rules here,
    Revolution in ``revolution.py``), the rest of the unit (``formation.py``), on the
    obstacle, route and sight machinery of ``placing.ChargeBase``."""

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
