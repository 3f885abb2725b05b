"""A rectangular stand moving as its rectangle: exact swept areas and shortest routes.

A route is a polyline of the stand's centre. The stand turns from its start facing
to its end facing along one leg only, the first or the last (the same model as the
move cost in ``paths.py``: on that leg every point of the stand travels a straight
chord); on every other leg it translates without turning.

* A translating convex polygon sweeps the convex hull of its start and end copies
  (the Minkowski sum of the polygon with the leg): exact.
* On the turning leg every point moves along its chord between its start and end
  positions, so the swept set lies in the hull of the two copies; that hull is what
  is tested (exact when the facing does not change, otherwise never smaller than the
  true sweep: a route is never let through a gap it does not fit).
* Where the stand translates with facing ``phi`` it is blocked exactly when its centre
  enters ``Ob + R(phi)`` (the Minkowski sum of the obstacle and the stand centred on
  the origin; a stand is symmetric about its centre). Those sums are convex polygons,
  so the shortest route among them is a path through their vertices (a visibility
  graph): exact, with the vertices pushed out by ``NODE_EPS`` so that a leg grazing a
  sum is told from one entering it.

No rules here: which things block, and the gap bars, come from the caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...geometry.shapes import TOL
from .geom import Packed, Poly, _normals, _normals_of, hull, hull_of, rect, rect_pts, sd
from .paths import corner_cost
from .walk import trace, walk

#: how far the visibility-graph vertices stand outside the Minkowski sums (scenario
#: units; a route is at most a few times this longer than the true shortest one)
NODE_EPS = 1e-8


def leg_sweep(c0: np.ndarray, f0: float, c1: np.ndarray, f1: float, w: float, d: float) -> Poly:
    """The hull of the stand at both ends of a leg (see the module docstring)."""
    return hull_of(rect_pts(c0, f0, w, d) + rect_pts(c1, f1, w, d))


def sweep_blocked(P: Poly, obstacles: Sequence[Poly], boxes: np.ndarray | None = None) -> bool:
    """Whether a swept area overlaps any obstacle by more than TOL (touching is
    allowed): ``geom.overlaps`` against each obstacle, with the box tests made for all
    of them at once. ``boxes`` (from ``boxes_of``) may be passed when known."""
    if not len(obstacles):
        return False
    if boxes is None:
        boxes = boxes_of(obstacles)
    xs, ys = zip(*P.tolist(), strict=True)  # min and max are exact in plain floats too
    lo0, lo1, hi0, hi1 = min(xs), min(ys), max(xs), max(ys)
    # overlaps() first asks that the boxes overlap by more than TOL (bbox_gap <= -TOL);
    # such boxes also pass the looser test with TOL of slack each way
    gap = np.maximum(np.maximum(lo0 - boxes[:, 2], boxes[:, 0] - hi0), np.maximum(lo1 - boxes[:, 3], boxes[:, 1] - hi1))
    near = np.nonzero(gap <= -TOL)[0]
    if not len(near):
        return False
    NP, hP = _normals_of(P)
    for i in near.tolist():
        Ob = obstacles[i]
        if len(Ob) < 3:
            if sd(P, Ob) < -TOL:
                return True
            continue
        # separating axes (geom.sat_sep): the area's edge normals, then the obstacle's;
        # the obstacle blocks only when both fall short of -TOL, so a first one that
        # does not settles it
        if float(np.max(np.min(Ob @ NP.T, axis=0) - hP)) >= -TOL:
            continue
        NO, hO = _normals(Ob)
        if float(np.max(np.min(P @ NO.T, axis=0) - hO)) < -TOL:
            return True
    return False


#: a store of leg verdicts: per obstacle set (named by its exact coordinates), leg ->
#: blocked? One charge keeps one (``ChargeBase``): the same legs are tested again by
#: the other turning mode, by ``route_cost`` and by one stand's routes to neighbouring
#: goals.
LegStore = dict[bytes, dict[tuple[float, ...], bool]]


def leg_memo(obstacles: Sequence[Poly], store: LegStore | None) -> dict[tuple[float, ...], bool]:
    """The remembered leg verdicts for this list of obstacles (in this order) in
    ``store`` (none kept without a store)."""
    if store is None:
        return {}
    key = (np.concatenate(obstacles).tobytes() if len(obstacles) else b"") + \
        np.array([len(Ob) for Ob in obstacles], dtype=np.int64).tobytes()
    hit = store.get(key)
    if hit is None:
        hit = store[key] = {}
    return hit


def leg_blocked(c0: np.ndarray, fa: float, c1: np.ndarray, fb: float, w: float, d: float,
                obstacles: Sequence[Poly], boxes: np.ndarray, memo: dict[tuple[float, ...], bool]) -> bool:
    """``sweep_blocked(leg_sweep(c0, fa, c1, fb, w, d), obstacles, boxes)``, remembered in
    ``memo`` (from ``leg_memo(obstacles)``): the same leg, the same verdict."""
    key = (float(c0[0]), float(c0[1]), float(c1[0]), float(c1[1]), float(fa), float(fb), float(w), float(d))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = sweep_blocked(leg_sweep(c0, fa, c1, fb, w, d), obstacles, boxes)
    return hit


def boxes_of(obstacles: Sequence[Poly]) -> np.ndarray:
    """The bounding boxes ``(xmin, ymin, xmax, ymax)`` of the obstacles."""
    if not len(obstacles):
        return np.zeros((0, 4))
    starts = np.cumsum([0] + [len(Ob) for Ob in obstacles[:-1]])
    allv = np.concatenate(obstacles)
    return np.concatenate([np.minimum.reduceat(allv, starts, axis=0), np.maximum.reduceat(allv, starts, axis=0)],
                          axis=1)


def route_legs_clear(path: Sequence[np.ndarray], f0: float, f1: float, w: float, d: float,
                     obstacles: Sequence[Poly], mode: str, boxes: np.ndarray | None = None,
                     memo: dict[tuple[float, ...], bool] | None = None) -> bool:
    """Whether a centre route is clear when the stand turns on its ``mode`` ("first"
    or "last") leg."""
    n = len(path) - 1
    if boxes is None:
        boxes = boxes_of(obstacles)
    if memo is None:
        memo = {}
    for i in range(n):
        turning = (mode == "first" and i == 0) or (mode == "last" and i == n - 1)
        if turning:
            fa, fb = f0, f1
        else:
            fa = fb = f1 if mode == "first" else f0
        if leg_blocked(path[i], fa, path[i + 1], fb, w, d, obstacles, boxes, memo):
            return False
    return True


def mode_cost(path: Sequence[np.ndarray], f0: float, f1: float, w: float, d: float, mode: str) -> float:
    pts = [np.asarray(p, dtype=float) for p in path]
    legs = [float(np.linalg.norm(pts[i + 1] - pts[i])) for i in range(len(pts) - 1)]
    if mode == "first":
        return corner_cost(pts[0], f0, pts[1], f1, w, d) + sum(legs[1:])
    return sum(legs[:-1]) + corner_cost(pts[-2], f0, pts[-1], f1, w, d)


def route_cost(path: Sequence[np.ndarray], f0: float, f1: float, w: float, d: float,
               obstacles: Sequence[Poly], store: LegStore | None = None) -> float:
    """The move cost of a route: the cheaper of turning on the first or on the last
    leg among the two that are clear (inf when neither is)."""
    best = math.inf
    boxes = boxes_of(obstacles)
    memo = leg_memo(obstacles, store)
    for mode in ("first", "last") if len(path) > 2 else ("first",):
        c = mode_cost(path, f0, f1, w, d, mode)
        if c < best and route_legs_clear(path, f0, f1, w, d, obstacles, mode, boxes, memo):
            best = c
    return best


_SUMS: dict[tuple[bytes, float, float, float], tuple[Poly, np.ndarray, Poly, bytes]] = {}


def minkowski(Ob: Poly, facing: float, w: float, d: float) -> Poly:
    """``Ob + R(facing)``: where the centre of a stand with that facing may not be."""
    return _sum_and_nodes(Ob, facing, w, d)[0]


def _sum_and_nodes(Ob: Poly, facing: float, w: float, d: float) -> tuple[Poly, np.ndarray, Poly, bytes]:
    """The Minkowski sum, its pushed-out vertices, the sum eroded by TOL and a key
    naming them (cached: a charge asks for the same obstacles again and again)."""
    Ob = np.asarray(Ob, dtype=float)
    key = (Ob.tobytes(), float(facing), float(w), float(d))
    hit = _SUMS.get(key)
    if hit is None:
        if len(_SUMS) > 4096:
            _SUMS.clear()
        R = rect(np.zeros(2), facing, w, d)
        M = hull((Ob[:, None, :] + R[None, :, :]).reshape(-1, 2))
        big = len(M) >= 3
        name = key[0] + np.array(key[1:]).tobytes()
        hit = _SUMS[key] = (M, _nodes(M) if big else np.zeros((0, 2)), _erode(M) if big else M, name)
    return hit


def _nodes(M: Poly) -> np.ndarray:
    """The vertices of a convex polygon pushed out along their outward bisectors."""
    k = len(M)
    out = np.empty_like(M)
    for i in range(k):
        a, b = M[i - 1], M[(i + 1) % k]
        e1, e2 = M[i] - a, b - M[i]
        n1 = np.array([e1[1], -e1[0]]) / max(float(np.linalg.norm(e1)), 1e-300)
        n2 = np.array([e2[1], -e2[0]]) / max(float(np.linalg.norm(e2)), 1e-300)
        n = n1 + n2
        nn = float(np.linalg.norm(n))
        out[i] = M[i] + NODE_EPS * (n / nn if nn > 1e-12 else n1)
    return out


def stand_route(start: np.ndarray, f0: float, goal: np.ndarray, f1: float, w: float, d: float,
                obstacles: Sequence[Poly], cap: float, store: LegStore | None = None
                ) -> tuple[list[np.ndarray], float] | None:
    """The cheapest clear route of a rectangular stand from (start, f0) to (goal, f1)
    costing at most ``cap``, with its cost, or None. The straight move is tried first
    (and returned whatever its cost when clear). ``store``: leg verdicts kept across
    calls (``leg_memo``)."""
    s = np.asarray(start, dtype=float)
    g = np.asarray(goal, dtype=float)
    obs = [np.asarray(Ob, dtype=float) for Ob in obstacles]
    boxes = boxes_of(obs)
    memo = leg_memo(obs, store)
    if not leg_blocked(s, f0, g, f1, w, d, obs, boxes, memo):
        return [s, g], corner_cost(s, f0, g, f1, w, d)
    if float(np.linalg.norm(g - s)) > cap + TOL:
        return None
    best: tuple[list[np.ndarray], float] | None = None
    for mode in ("first", "last"):
        # the second search need not look past the first one's cost
        found = _search(s, f0, g, f1, w, d, obs, cap if best is None else min(cap, best[1]), mode, boxes, memo)
        if found is not None and (best is None or found[1] < best[1]):
            best = found
    return best


def graph_nodes(s: np.ndarray, far: Callable[[np.ndarray], np.ndarray], obs: list[Poly], cap: float, phi: float,
                w: float, d: float) -> tuple[np.ndarray, Packed] | None:
    """The visibility-graph vertices for a stand translating with facing ``phi``
    from ``s`` towards a goal within ``cap`` (``far(P)``: each point's distance to
    the goal, or to the nearest point of a set of goals), and the Minkowski sums
    packed for the translating legs' clearance test; None when no obstacle is near
    enough to matter. Obstacles too far for a route within ``cap`` to come near, and
    vertices such a route cannot visit (or inside another sum), are left out."""
    span = math.hypot(w, d)
    if not obs:
        return None
    # an obstacle is near when a route within cap could come near it (its vertex
    # nearest the start plus its vertex nearest the goal, less its size); computed for
    # every obstacle at once
    starts = np.cumsum([0] + [len(Ob) for Ob in obs[:-1]])
    allv = np.concatenate(obs)
    lo_s = np.minimum.reduceat(np.linalg.norm(allv - s, axis=1), starts)
    lo_g = np.minimum.reduceat(far(allv), starts)
    rad = np.array([_radius(Ob) for Ob in obs])
    near_i = np.nonzero(lo_s + lo_g <= cap + 2 * span + 4 * rad + TOL)[0]
    if not len(near_i):
        return None
    sn = [_sum_and_nodes(obs[i], phi, w, d) for i in near_i]
    full = [hit for hit in sn if len(hit[0]) >= 3]
    packed = _packed([hit[0] for hit in full], [hit[3] for hit in full])
    nodes = np.concatenate([hit[1] for hit in full], axis=0)
    keep = np.linalg.norm(nodes - s, axis=1) + far(nodes) <= cap + TOL
    nodes = nodes[keep]
    if len(nodes):
        # a node inside another sum is no place for the centre
        inside = packed.hits(nodes, nodes)
        nodes = nodes[~inside]
    return nodes, _packed([hit[2] for hit in full], [hit[3] + b"e" for hit in full])


_RADII: dict[bytes, float] = {}
_PACKED: dict[tuple[bytes, ...], Packed] = {}


def _radius(Ob: Poly) -> float:
    """The largest distance from an obstacle's vertex mean to its vertices (cached)."""
    key = Ob.tobytes()
    r = _RADII.get(key)
    if r is None:
        if len(_RADII) > 4096:
            _RADII.clear()
        r = _RADII[key] = float(np.max(np.linalg.norm(Ob - Ob.mean(axis=0), axis=1)))
    return r


def _packed(polys: list[Poly], keys: list[bytes]) -> Packed:
    """``Packed(polys)``, remembered by the polygons' keys."""
    k = tuple(keys)
    hit = _PACKED.get(k)
    if hit is None:
        if len(_PACKED) > 1024:
            _PACKED.clear()
        hit = _PACKED[k] = Packed(polys)
    return hit


def _erode(M: Poly) -> Poly:
    """M with every edge moved in by TOL: a translating leg may graze a sum, or run
    along it, as a swept stand may touch an obstacle (depth up to TOL), so a stand
    passes a gap exactly as wide as its footprint."""
    N, h = _normals(M)
    k = len(M)
    out = np.empty_like(M)
    for i in range(k):
        n1, h1 = N[i - 1], h[i - 1] - TOL
        n2, h2 = N[i], h[i] - TOL
        det = n1[0] * n2[1] - n1[1] * n2[0]
        out[i] = M[i] if abs(det) < 1e-12 else np.array([(h1 * n2[1] - h2 * n1[1]) / det, (n1[0] * h2 - n2[0] * h1) / det])
    return out


def _search(s: np.ndarray, f0: float, g: np.ndarray, f1: float, w: float, d: float, obs: list[Poly],
            cap: float, mode: str, boxes: np.ndarray, memo: dict[tuple[float, ...], bool] | None = None
            ) -> tuple[list[np.ndarray], float] | None:
    """The walk (``walk.py``) over the vertices of the Minkowski sums for the facing
    held on the translating legs; the turning leg is tested (and costed) as a swept
    hull."""
    legs = {} if memo is None else memo
    phi = f1 if mode == "first" else f0
    graph = graph_nodes(s, lambda P: np.linalg.norm(P - g, axis=1), obs, cap, phi, w, d)
    if graph is None:
        return None
    nodes, packed = graph
    pts = np.concatenate([s[None], nodes, g[None]], axis=0)
    n = len(pts)
    goal_i = n - 1

    def turning(u: int, js: np.ndarray) -> np.ndarray:
        """Which legs from ``u`` are the turning one (out of the start, or into the goal)."""
        if mode == "first":
            return np.full(len(js), u == 0)
        return js == goal_i

    def visible(u: int, js: np.ndarray) -> np.ndarray:
        out = np.zeros(len(js), dtype=bool)
        turn = turning(u, js)
        for k in np.nonzero(turn)[0]:
            out[k] = not leg_blocked(pts[u], f0, pts[js[k]], f1, w, d, obs, boxes, legs)
        idx = np.nonzero(~turn)[0]
        if len(idx):
            P0 = np.repeat(pts[u][None], len(idx), axis=0)
            out[idx] = ~packed.hits(P0, pts[js[idx]])
        return out

    def weights(u: int, js: np.ndarray) -> np.ndarray:
        out = np.empty(len(js))
        turn = turning(u, js)
        for k in np.nonzero(turn)[0]:
            out[k] = corner_cost(pts[u], f0, pts[js[k]], f1, w, d)
        plain = ~turn
        out[plain] = np.linalg.norm(pts[js[plain]] - pts[u], axis=1)
        return out

    dist, prev = walk(pts, cap, visible, weights, slack=1e-12, cap_on_accept=True)
    if not math.isfinite(dist[goal_i]):
        return None
    return [pts[i].copy() for i in trace(prev, goal_i)], float(dist[goal_i])
