"""Independent checker for Warmaster charges.

Re-checks the end state of a ruling from the scenario and the ruling alone (it does
not import the Warmaster solver): who moved and how far (from the point of each stand
that travels furthest), that no stand passed through another unit's stand or through
a gap next to an enemy no wider than its frontage, that nothing overlaps, that the
unit is in formation with every stand facing the same way, that the first stand is
flush edge to edge against the target (never corner-only), centre to centre or as
close to it as it could get, that the other stands form the flush line before anyone
falls back behind or staggered, and that ``engaged`` lists exactly the enemy units
touched.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely

from ..geometry.bases import rect_polygon, wall_parts
from ..geometry.shapes import TOL, ConvexPolygon, make_polygon_parts
from ..scenario import scenario_from_data
from ..scenario.common import MM_PER_UNIT
from . import Violation
from .hull import hull_ccw as _hull_ccw

_MOVE_CM = {"infantry": 20.0, "cavalry": 30.0, "chariot": 30.0, "monster": 20.0, "artillery": 10.0,
            "character": 60.0}
_ENTER = {"impassable": set(), "wall": set(), "ruin": {"infantry", "character"},
          "obstacle": {"infantry", "cavalry", "monster", "character"},
          "barricade": {"infantry", "cavalry", "monster", "character"}}


class _St:
    def __init__(self, sid: str, unit: str, player: int, kind: str, c: np.ndarray, facing: float, w: float,
                 d: float, char: bool) -> None:
        self.sid, self.unit, self.player, self.kind = sid, unit, player, kind
        self.c, self.facing, self.w, self.d, self.char = c, facing, w, d, char
        self.round_r: float | None = None

    def poly(self, c: np.ndarray | None = None, facing: float | None = None) -> np.ndarray:
        if c is None and facing is None:
            # where the stand stands (asked for again and again): built once
            got = self.__dict__.get("_poly0")
            if got is None:
                got = self.__dict__["_poly0"] = rect_polygon(
                    (float(self.c[0]), float(self.c[1])), self.w, self.d, math.radians(self.facing)).V
            return got
        cc = self.c if c is None else c
        fa = self.facing if facing is None else facing
        return rect_polygon((float(cc[0]), float(cc[1])), self.w, self.d, math.radians(fa)).V

    @property
    def r(self) -> float:
        return min(self.w, self.d) / 2


def _apart(A: np.ndarray, B: np.ndarray) -> float:
    """A lower bound of the gap between two point sets' hulls: the distance of their
    centroids less the radius of each about its centroid."""
    ax, ay, ra = _circ(A)
    bx, by, rb = _circ(B)
    return math.hypot(ax - bx, ay - by) - ra - rb


#: enclosing circles of polygons asked about again and again, by the array's id; an
#: entry keeps its array alive and is used only for that very array
_CIRCLES: dict[int, tuple[np.ndarray, tuple[float, float, float]]] = {}


def _circ(P: np.ndarray) -> tuple[float, float, float]:
    """(x, y, r): the centroid of the corners and the farthest corner's distance."""
    got = _CIRCLES.get(id(P))
    if got is not None and got[0] is P:
        return got[1]
    pts = P.tolist()  # a handful of corners: plain floats beat small-array numpy
    n = len(pts)
    cx = sum(p[0] for p in pts) / n
    cy = sum(p[1] for p in pts) / n
    out = (cx, cy, max(math.hypot(p[0] - cx, p[1] - cy) for p in pts))
    if len(_CIRCLES) > 4096:
        _CIRCLES.clear()
    _CIRCLES[id(P)] = (P, out)
    return out


def _pen(A: np.ndarray, B: np.ndarray) -> float:
    """Separating-axis signed separation of two convex polygons: > 0 apart, <= 0
    overlapping (then minus the penetration depth). Far apart, a positive lower bound
    of the gap is returned instead (callers only ask whether it is below -TOL)."""
    lb = _apart(A, B)
    if lb > 0:
        return lb
    best = -math.inf
    for P, Q in ((A, B), (B, A)):
        e = np.roll(P, -1, axis=0) - P  # a segment gives its two normals
        n = np.stack([e[:, 1], -e[:, 0]], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            n = n / np.linalg.norm(n, axis=1, keepdims=True)
            sep = (Q @ n.T).min(axis=0) - (P @ n.T).max(axis=0)
        sep = sep[~np.isnan(sep)]
        if len(sep):
            best = max(best, float(sep.max()))
    return best


def _any_pen(H: np.ndarray, obst: list[np.ndarray]) -> bool:
    """Does the convex polygon H penetrate any of ``obst`` deeper than TOL? Polygons
    whose enclosing circles stay apart are dropped in one vectorised step first."""
    if not obst:
        return False
    return any(_pen(H, obst[i]) < -TOL for i in _near_polys(H, obst))


def _near_polys(H: np.ndarray, polys: list[np.ndarray]) -> np.ndarray:
    """Indices of the polygons whose enclosing circle meets the one of H."""
    hx, hy, rh = _circ(H)
    circles = np.array([_circ(P) for P in polys])
    return np.flatnonzero(np.hypot(circles[:, 0] - hx, circles[:, 1] - hy) - circles[:, 2] - rh <= 0)


#: the coordinates of bar segments, by the bar's id (an entry keeps its bar alive)
_COORDS: dict[int, tuple[Any, np.ndarray]] = {}


def _coords(bar: Any) -> np.ndarray:
    got = _COORDS.get(id(bar))
    if got is not None and got[0] is bar:
        return got[1]
    arr = np.asarray(bar.coords, dtype=float)
    if len(_COORDS) > 4096:
        _COORDS.clear()
    _COORDS[id(bar)] = (bar, arr)
    return arr


def _near_segment(a: np.ndarray, b: np.ndarray, polys: list[np.ndarray], reach: float) -> np.ndarray:
    """Indices of the polygons whose enclosing circle comes within ``reach`` of the
    segment a-b (the others are farther than that from it)."""
    if not polys:
        return np.zeros(0, dtype=int)
    circles = np.array([_circ(P) for P in polys])
    C = circles[:, :2]
    ab = np.asarray(b, float) - np.asarray(a, float)
    L2 = float(ab @ ab)
    t = np.clip(((C - a) @ ab) / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(C))
    d = np.hypot(*(C - (np.asarray(a, float) + t[:, None] * ab)).T)
    return np.flatnonzero(d - circles[:, 2] <= reach + TOL)


def _shp(P: np.ndarray) -> shapely.Geometry:
    return shapely.LineString(P) if len(P) == 2 else shapely.Polygon(P)


def _gap(A: np.ndarray, B: np.ndarray, far: float = math.inf) -> float:
    """The gap between two polygons (or segments), exact wherever it is at most
    ``far``; beyond, a lower bound (callers compare with thresholds up to ``far``)."""
    lb = _apart(A, B)
    if lb > far:
        return lb
    return float(shapely.distance(_shp(A), _shp(B)))


def _cost(path: list[np.ndarray], st: _St, f0: float, f1: float) -> float:
    def chord(a: np.ndarray, fa: float, b: np.ndarray, fb: float) -> float:
        return float(np.max(np.linalg.norm(st.poly(b, fb) - st.poly(a, fa), axis=1)))

    if len(path) == 2:
        return chord(path[0], f0, path[1], f1)
    legs = [float(np.linalg.norm(path[i + 1] - path[i])) for i in range(len(path) - 1)]
    return min(chord(path[0], f0, path[1], f1) + sum(legs[1:]),
               sum(legs[:-1]) + chord(path[-2], f0, path[-1], f1))


def _mode_costs(path: list[np.ndarray], st: _St, f0: float, f1: float) -> dict[str, float]:
    """The move cost of a path when the stand turns on its first leg or on its last."""
    def chord(a: np.ndarray, fa: float, b: np.ndarray, fb: float) -> float:
        return float(np.max(np.linalg.norm(st.poly(b, fb) - st.poly(a, fa), axis=1)))

    if len(path) == 2:
        return {"first": chord(path[0], f0, path[1], f1)}
    legs = [float(np.linalg.norm(path[i + 1] - path[i])) for i in range(len(path) - 1)]
    return {"first": chord(path[0], f0, path[1], f1) + sum(legs[1:]),
            "last": sum(legs[:-1]) + chord(path[-2], f0, path[-1], f1)}


def _front(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # rect_polygon order: front-left, rear-left, rear-right, front-right
    return P[0], P[3]


def _edges(P: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    # walk the corners counter-clockwise so that each edge's outward normal is (dy, -dx)
    return {"front": (P[3], P[0]), "left": (P[0], P[1]), "rear": (P[1], P[2]), "right": (P[2], P[3])}


def _flush(front: tuple[np.ndarray, np.ndarray], f: np.ndarray, a: np.ndarray, b: np.ndarray
           ) -> tuple[float, float] | None:
    """If the enemy edge a->b is flush against the front edge (collinear, facing each
    other): (overlap length, offset of the front midpoint from the edge midpoint)."""
    e = b - a
    L = float(np.linalg.norm(e))
    n = np.array([e[1], -e[0]]) / L
    if float(n @ f) > -1 + 1e-9 or abs(float((a - front[0]) @ f)) > TOL:
        return None
    t = e / L
    u = sorted((float((front[0] - a) @ t), float((front[1] - a) @ t)))
    ov = min(u[1], L) - max(u[0], 0.0)
    off = (u[0] + u[1]) / 2 - L / 2
    return ov, off


def validate(before: Any, ruling: Any) -> list[Violation]:
    V: list[Violation] = []
    mm = MM_PER_UNIT[before.unit]
    cm = 10.0 / mm
    variant = before.rules.variant
    stands: dict[str, _St] = {}
    units: dict[str, Any] = {u.id: u for u in before.units}
    for u in before.units:
        if u.base is not None and u.base.rect is not None:
            W, D = u.base.rect
        elif u.base is not None and u.base.round is not None:
            W = D = u.base.round
        else:
            W, D = (40.0, 20.0) if u.type == "infantry" else (20.0, 40.0)
        for i, s in enumerate(u.stands):
            sid = s.id or f"{u.id}.{i}"
            stands[sid] = _St(sid, u.id, int(u.player), u.type, np.array(s.at, dtype=float), float(s.facing),
                              W / mm, D / mm, u.type == "character")
            if u.base is not None and u.base.round is not None:
                stands[sid].round_r = W / mm / 2
    charger = ruling.charger
    if charger not in units:
        return [Violation("unknown_unit", f"the charger {charger!r} is not in the scenario")]
    cu = units[charger]
    move = float(cu.move) if cu.move is not None else _MOVE_CM[cu.type] * cm
    player = int(cu.player)
    target = ruling.targets[0] if ruling.targets else None
    own = [s for s in stands.values() if s.unit == charger]
    terrain: list[tuple[str, np.ndarray]] = []
    for t in before.terrain:
        if t.type in ("impassable", "obstacle"):
            parts = [p.V for p in make_polygon_parts(t.polygon) if isinstance(p, ConvexPolygon)]
        elif t.type == "ruin":
            parts = [p.V for p in make_polygon_parts(t.footprint) if isinstance(p, ConvexPolygon)]
        elif t.type in ("wall", "barricade"):
            parts = [p.V for p in wall_parts(t.points, t.thickness)]
        else:
            continue
        terrain += [(t.type, p) for p in parts]

    def blocks(kind: str, st: _St) -> bool:
        return kind in _ENTER and st.kind not in _ENTER[kind]

    # ---- which stands moved, and where to
    final: dict[str, tuple[np.ndarray, float]] = {s.sid: (s.c, s.facing) for s in own}
    order: list[str] = []
    for m in ruling.moves:
        if m.id not in final:
            V.append(Violation("unknown_stand", f"{m.id} is not a stand of {charger}", (m.id,)))
            continue
        if m.id in order:
            V.append(Violation("moved_twice", f"{m.id} moves twice", (m.id,)))
        st = stands[m.id]
        if float(np.linalg.norm(np.array(m.from_) - st.c)) > TOL:
            V.append(Violation("wrong_start", f"{m.id} does not start where it stands", (m.id,)))
        final[m.id] = (np.array(m.to, dtype=float), float(m.facing if m.facing is not None else st.facing))
        order.append(m.id)
    if V:
        return V

    # ---- after: the same end state
    if ruling.after is not None:
        aft = scenario_from_data(ruling.after)
        for u in aft.units:
            if not hasattr(u, "stands"):
                continue
            for i, s in enumerate(u.stands):  # type: ignore[union-attr]
                sid = s.id or f"{u.id}.{i}"
                if sid not in stands:
                    V.append(Violation("after_mismatch", f"{sid} is not in the scenario before", (sid,)))
                    continue
                c, fa = final.get(sid, (stands[sid].c, stands[sid].facing))
                if float(np.linalg.norm(np.array(s.at) - c)) > TOL or abs((s.facing - fa + 180) % 360 - 180) > 1e-6:
                    V.append(Violation("after_mismatch", f"{sid} in `after` is not where the moves put it", (sid,)))

    if not ruling.success:
        if ruling.moves:
            V.append(Violation("failed_but_moved", "a refused or failed charge must not move any stand"))
        return V

    # ---- the end state
    others = [s for s in stands.values() if s.unit != charger and not s.char]
    fpoly = {sid: stands[sid].poly(*final[sid]) for sid in final}
    W_, D_ = float(before.board.width), float(before.board.depth)
    for sid in order:
        P = fpoly[sid]
        st = stands[sid]
        if np.any(P < -TOL) or np.any(P[:, 0] > W_ + TOL) or np.any(P[:, 1] > D_ + TOL):
            V.append(Violation("off_board", f"{sid} ends (partly) off the board", (sid,)))
        for o in others:
            if _pen(P, o.poly()) < -TOL:
                V.append(Violation("overlap", f"{sid} ends overlapping {o.sid}", (sid, o.sid)))
        for sid2 in final:
            if sid2 != sid and not stands[sid2].char and _pen(P, fpoly[sid2]) < -TOL and \
                    (sid2 not in order or order.index(sid2) > order.index(sid)):
                V.append(Violation("overlap", f"{sid} ends overlapping {sid2} of its own unit", (sid, sid2)))
        for kind, T in terrain:
            if blocks(kind, st) and _pen(P, T) < -TOL:
                V.append(Violation("terrain", f"{sid} ends inside {kind} terrain it cannot enter", (sid,)))

    # ---- formation: every stand touches another; one connected group
    ids = [s.sid for s in own if not s.char]
    adj = {a: [b for b in ids if b != a and _gap(fpoly[a], fpoly[b], 1e-3) <= TOL] for a in ids}
    seen = {ids[0]} if ids else set()
    stack = list(seen)
    while stack:
        cur = stack.pop()
        for nxt in adj[cur]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    if len(seen) != len(ids):
        V.append(Violation("formation", "the charging unit is not one group of touching stands",
                           tuple(sorted(set(ids) - seen))))
    for i, sid in enumerate(order[1:], start=1):
        if not any(_gap(fpoly[sid], fpoly[o], 1e-3) <= TOL for o in order[:i]):
            V.append(Violation("formation", f"{sid} does not touch a stand placed before it", (sid,)))

    # ---- move limits and clear paths
    enemies = [s for s in others if s.player != player]

    # gaps between enemy stands and the things beside them, by (stand, polygon, width);
    # every polygon keyed here lives as long as this call, so its id stays its own
    gap_memo: dict[tuple[str, int, float], float] = {}

    def obstacles(st: _St, k: int, endP: np.ndarray) -> tuple[list[np.ndarray], list[shapely.Geometry]]:
        """What the k-th mover may not pass (ending at endP): other units' stands, own
        stands moved before it (unless they cover its start), forbidden ground, and bars
        across gaps beside enemies no wider than its frontage (except a gap it enters to
        touch one of its sides)."""
        start_P = st.poly()
        obst: list[np.ndarray] = [o.poly() for o in others]
        for prev in ruling.moves[:k]:
            if _pen(fpoly[prev.id], start_P) >= -TOL:
                obst.append(fpoly[prev.id])
        obst += [T for kind, T in terrain if blocks(kind, st)]
        bars: list[shapely.Geometry] = []
        gap_things = [(o.sid, o.poly()) for o in others] + [(p.id, fpoly[p.id]) for p in ruling.moves[:k]] + \
                     [("terrain", T) for kind, T in terrain if kind in ("impassable", "wall")]
        for e in enemies:
            for oid, OP in gap_things:
                if oid == e.sid:
                    continue
                key = (e.sid, id(OP), st.w)  # fixed polygons: the same for every mover
                g = gap_memo.get(key)
                if g is None:
                    g = gap_memo[key] = _gap(e.poly(), OP, st.w + 1e-3)
                if TOL < g <= st.w + TOL:
                    bar = shapely.shortest_line(_shp(e.poly()), _shp(OP))
                    if shapely.distance(bar, _shp(start_P)) <= TOL:
                        continue
                    if _gap(endP, e.poly(), 1e-3) <= TOL or (oid in stands and _gap(endP, OP, 1e-3) <= TOL):
                        continue  # moving into the gap to charge
                    bars.append(bar)
        return obst, bars

    def leg_problem(st: _St, a: np.ndarray, fa: float, b: np.ndarray, fb: float, obst: list[np.ndarray],
                    bars: list[shapely.Geometry]) -> str | None:
        """A stand moves as its rectangle: on a leg every point travels a straight
        chord, so it sweeps (at most) the hull of its two end copies. A round stand
        is its disc travelling with the centre."""
        if st.round_r is not None:
            leg = shapely.LineString([a, b]) if float(np.linalg.norm(b - a)) > 0 else shapely.Point(a)
            # only polygons whose enclosing circle comes within the stand's radius of
            # the leg can be nearer than it
            near = [obst[i] for i in _near_segment(a, b, obst, st.round_r)]
            if any(float(shapely.distance(leg, _shp(OP))) < st.round_r - TOL for OP in near):
                return "path_blocked"
            if any(float(shapely.distance(leg, bar)) < st.round_r - TOL for bar in bars):
                return "narrow_gap"
            return None
        H = _hull_ccw(np.concatenate([st.poly(a, fa), st.poly(b, fb)]))
        if _any_pen(H, obst):
            return "path_blocked"
        if bars:
            arrs = [_coords(bar) for bar in bars]
            if any(_pen(H, arrs[i]) < -TOL for i in _near_polys(H, arrs)):
                return "narrow_gap"
        return None

    def route_problem(st: _St, path: list[np.ndarray], f0: float, f1: float, obst: list[np.ndarray],
                      bars: list[shapely.Geometry], mode: str) -> str | None:
        n = len(path) - 1
        for i in range(n):
            turning = (mode == "first" and i == 0) or (mode == "last" and i == n - 1)
            fa, fb = (f0, f1) if turning else ((f1, f1) if mode == "first" else (f0, f0))
            why = leg_problem(st, path[i], fa, path[i + 1], fb, obst, bars)
            if why:
                return why
        return None

    for k, m in enumerate(ruling.moves):
        st = stands[m.id]
        path = [np.array(p, dtype=float) for p in (m.path or [m.from_, m.to])]
        if float(np.linalg.norm(path[0] - st.c)) > TOL or float(np.linalg.norm(path[-1] - final[m.id][0])) > TOL:
            V.append(Violation("path_ends", f"the path of {m.id} does not join its start and end", (m.id,)))
        obst, bars = obstacles(st, k, fpoly[m.id])
        # the stand turns on the first leg or on the last: the cheaper of the clear ones
        costs = _mode_costs(path, st, st.facing, final[m.id][1])
        why_by_mode = {md: route_problem(st, path, st.facing, final[m.id][1], obst, bars, md) for md in costs}
        clear = [c for md, c in costs.items() if why_by_mode[md] is None]
        if not clear:
            why = next(iter(why_by_mode.values()))
            if why == "narrow_gap":
                V.append(Violation("narrow_gap", f"{m.id} passes a gap next to an enemy no wider than its frontage",
                                   (m.id,)))
            else:
                V.append(Violation("path_blocked", f"{m.id} passes through something on its way", (m.id,)))
            continue
        cost = min(clear)
        if cost > move + TOL:
            V.append(Violation("too_far", f"{m.id} travels {cost:.6f} (furthest point) but may move {move:g}",
                               (m.id,), {"cost": cost, "move": move}))
        if abs(cost - m.distance) > 1e-6:
            V.append(Violation("distance_mismatch", f"{m.id} reports {m.distance} but its path costs {cost:.9f}",
                               (m.id,)))

    # ---- engaged: exactly the enemy units touched
    touched = []
    for sid in ids:
        for e in enemies:
            if _gap(fpoly[sid], e.poly(), 1e-3) <= TOL and e.unit not in touched:
                touched.append(e.unit)
    if sorted(touched) != sorted(ruling.engaged):
        V.append(Violation("engaged_mismatch", f"engaged should be {sorted(touched)}, the ruling says "
                           f"{sorted(ruling.engaged)}"))
    if target not in touched:
        V.append(Violation("target_untouched", f"no stand touches the target {target}"))

    # ---- every stand faces the way the first does
    first = ruling.details.get("first_stand")
    if first not in final or first not in order:
        V.append(Violation("first_stand", "details.first_stand does not name a stand that moved"))
        return V
    f_fac = final[first][1]
    for sid in ids:
        if abs((final[sid][1] - f_fac + 180) % 360 - 180) > 1e-6:
            V.append(Violation("facing", f"{sid} does not face the way the first stand does", (sid,)))

    # ---- the first stand: flush, edge to edge, centre to centre or as near as it can
    fst = stands[first]
    FP = fpoly[first]
    fdir = np.array([math.cos(math.radians(f_fac)), math.sin(math.radians(f_fac))])
    front = _front(FP)
    need = 1.0 * cm if variant == "revolution" else TOL
    flushes: list[tuple[float, float, _St, str]] = []
    for t in [s for s in others if s.unit == target]:
        for name, (a, b) in _edges(t.poly()).items():
            fl = _flush(front, fdir, a, b)
            if fl is not None and (fl[0] >= need - TOL if variant == "revolution" else fl[0] > need):
                flushes.append((fl[0], fl[1], t, name))
    if not flushes:
        code = "corner_only_first" if any(_gap(FP, t.poly(), 1e-3) <= TOL for t in others if t.unit == target) \
            else "first_not_flush"
        V.append(Violation(code, f"the first stand {first} is not flush against an edge of {target} "
                           f"with {'1 cm' if variant == 'revolution' else 'some'} contact", (first,)))
        return V

    def covered(P: np.ndarray) -> bool:
        if np.any(P < -TOL) or np.any(P[:, 0] > W_ + TOL) or np.any(P[:, 1] > D_ + TOL):
            return True
        return any(_pen(P, o.poly()) < -TOL for o in others) or \
            any(blocks(kind, fst) and _pen(P, T) < -TOL for kind, T in terrain)

    # it must be centre to centre on one of the target edges it is flush with, or as near
    # to that edge's centre as it could get (and, in the original, able to reach it)
    complaints: list[Violation] = []
    for _ov, off, tst, edge in flushes:
        a, b = _edges(tst.poly())[edge]
        tdir = (b - a) / np.linalg.norm(b - a)
        n_out = np.array([tdir[1], -tdir[0]])

        def pose_at(o: float, a: np.ndarray = a, b: np.ndarray = b, tdir: np.ndarray = tdir,
                    n_out: np.ndarray = n_out) -> tuple[np.ndarray, np.ndarray]:
            c = (a + b) / 2 + o * tdir + n_out * fst.d / 2
            return c, fst.poly(c, f_fac)

        c2c, _ = pose_at(0.0)
        if variant == "original" and _cost([fst.c, c2c], fst, fst.facing, f_fac) > move + TOL:
            complaints.append(Violation("first_out_of_reach",
                                        f"{first} could not have reached the centre-to-centre spot on {tst.sid}",
                                        (first,)))
            continue
        if abs(off) > TOL:
            eps = 1e-5
            closer = off - math.copysign(min(eps, abs(off)), off)
            cc, cP = pose_at(closer)
            blocked = covered(cP)
            if not blocked and variant == "revolution":
                # Revolution goes off centre for reach too: a nearer spot only counts
                # against the ruling if a straight, clear move within the move gets there
                ob, br = obstacles(fst, order.index(first), cP)
                blocked = _cost([fst.c, cc], fst, fst.facing, f_fac) > move + TOL or \
                    leg_problem(fst, fst.c, fst.facing, cc, f_fac, ob, br) is not None
            if not blocked:
                complaints.append(Violation("not_centre_to_centre",
                                            f"{first} is {abs(off):.4f} off centre on {tst.sid} but could be closer",
                                            (first,), {"offset": off}))
                continue
        complaints = []
        break
    V += complaints

    # ---- the line: front edges flush with the first stand's, contiguous through it
    lf = np.array([-fdir[1], fdir[0]])
    F0 = front[0]

    def on_line(sid: str) -> bool:
        P = fpoly[sid]
        fa, fb = _front(P)
        return abs(float((fa - F0) @ fdir)) <= TOL and abs(float((fb - F0) @ fdir)) <= TOL

    def follows(sid: str) -> bool:
        P = fpoly[sid]
        fr = _front(P)
        return any(_flush(fr, fdir, *ed) is not None and _flush(fr, fdir, *ed)[0] > TOL  # type: ignore[index]
                   for e in enemies for ed in _edges(e.poly()).values())

    line = [sid for sid in order if on_line(sid) or (variant == "revolution" and follows(sid))]
    rest = [sid for sid in order if sid not in line]
    for sid in rest:
        P = fpoly[sid]
        if np.max((P - F0) @ fdir) > TOL:
            V.append(Violation("ahead_of_line", f"{sid} is neither in the line nor behind it", (sid,)))
    # a stand that fell back must not have been able to extend the line
    for sid in rest:
        st = stands[sid]
        k = order.index(sid)
        placed_before = [x for x in order[:k]]
        line_before = [x for x in placed_before if x in line]
        if not line_before:
            continue
        us = [(float((stands[x].poly(*final[x]).mean(axis=0) - F0) @ lf), x) for x in line_before]
        for sign, (_, x) in ((1.0, max(us)), (-1.0, min(us))):
            cx, fx = final[x]
            px = stands[x]
            c = cx + sign * lf * (px.w + st.w) / 2 + fdir * (px.d - st.d) / 2
            P = st.poly(c, f_fac)
            if np.any(P < -TOL) or np.any(P[:, 0] > W_ + TOL) or np.any(P[:, 1] > D_ + TOL):
                continue
            obst2 = [o.poly() for o in others] + [fpoly[y] for y in placed_before] + \
                [T for kind, T in terrain if blocks(kind, st)]
            if any(_pen(P, Q) < -TOL for Q in obst2):
                continue
            if _cost([st.c, c], st, st.facing, f_fac) > move + TOL:
                continue
            sp = st.poly()
            obst3 = [Q for Q in obst2 if not any(np.allclose(Q, fpoly[y]) and _pen(Q, sp) < -TOL for y in placed_before)]
            if leg_problem(st, st.c, st.facing, c, f_fac, obst3, []) is not None:
                continue
            V.append(Violation("not_in_line", f"{sid} fell back although it could have joined the line beside {x}",
                               (sid,), {"at": list(c)}))
            break
    return V
