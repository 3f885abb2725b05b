"""How far a stand moves, and the clear path it takes.

Move cost (notes 3.2: measure from the point of the stand that travels furthest).
A move is a polyline of the stand's centre with the stand turning to its new facing
along the first leg or along the last one, whichever is shorter for it. Every point
of the stand travels, leg by leg, in a straight line; the cost is the longest total
distance any point travels. For a rectangle that point is a corner, so the cost is
``max over corners of the sum of the corner's chords``. A straight move costs the
largest corner displacement.

Clear path. A stand may be turned to pass any gap at least as wide as its shortest
edge (notes 3.2), so for clearance it is a disc of that diameter travelling with its
centre; its final footprint is checked exactly elsewhere. Gaps next to an enemy
stand that are no wider than the stand's frontage are closed by a bar along the gap
(built by the caller). The shortest path is searched on a visibility graph whose
nodes sit around the obstacles' corners (circumscribed, so every leg is checked with
the exact clearance and is truly clear); a straight move is always tried first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...geometry.shapes import TOL
from .geom import Packed, Poly, inflate_corners, rect
from .walk import trace, walk

#: corners of obstacles are rounded by the disc; nodes circumscribe those arcs in pieces of
#: at most this angle (a detour round a right-angled corner is at most 0.009 r too long)
CORNER_STEP = math.pi / 12


def corner_cost(c0: np.ndarray, th0: float, c1: np.ndarray, th1: float, w: float, d: float) -> float:
    """The largest corner displacement of a straight move from pose 0 to pose 1."""
    A = rect(c0, th0, w, d)
    B = rect(c1, th1, w, d)
    return float(np.max(np.linalg.norm(B - A, axis=1)))


def path_cost(path: Sequence[np.ndarray], th0: float, th1: float, w: float, d: float) -> float:
    """Cost of a centre polyline (start and end included), turning on the first or the
    last leg, whichever is cheaper (see the module docstring)."""
    pts = [np.asarray(p, dtype=float) for p in path]
    if len(pts) < 2:
        return 0.0
    if len(pts) == 2:
        return corner_cost(pts[0], th0, pts[1], th1, w, d)
    legs = [float(np.linalg.norm(pts[i + 1] - pts[i])) for i in range(len(pts) - 1)]
    first = corner_cost(pts[0], th0, pts[1], th1, w, d) + sum(legs[1:])
    last = sum(legs[:-1]) + corner_cost(pts[-2], th0, pts[-1], th1, w, d)
    return min(first, last)


def clear_segments(P0: np.ndarray, P1: np.ndarray, obstacles: Sequence[Poly] | Packed, r: float) -> np.ndarray:
    """For each segment, whether a disc of radius r swept along it stays clear of every
    obstacle (touching allowed, up to TOL)."""
    pk = obstacles if isinstance(obstacles, Packed) else Packed(obstacles)
    return pk.clearance(np.asarray(P0, dtype=float), np.asarray(P1, dtype=float)) >= r - TOL


def shortest_path(
    start: np.ndarray,
    goal: np.ndarray,
    obstacles: Sequence[Poly] | Packed,
    r: float,
    cap: float,
    refine: bool = False,
    stand: tuple[float, float, float, float] | None = None,
) -> list[np.ndarray] | None:
    """The shortest clear centre path from start to goal no longer than ``cap``, or
    None. Straight when that is clear (exact); otherwise through nodes circumscribed
    around the obstacles' corners; with ``refine`` the search is repeated with fine
    nodes around the obstacles that the coarse path wraps. With ``stand`` = (start
    facing, end facing, width, depth) the search minimises the move cost itself (the
    turn taken on the first leg or on the last, searched separately) rather than the
    length of the centre's path, so that equally long detours are told apart by what
    the turn costs on each."""
    s = np.asarray(start, dtype=float)
    g = np.asarray(goal, dtype=float)
    direct = float(np.linalg.norm(g - s))
    pk = obstacles if isinstance(obstacles, Packed) else Packed(obstacles)
    if clear_segments(s[None], g[None], pk, r)[0]:
        return [s, g]
    if direct > cap + TOL:
        return None
    # obstacles that a path of length <= cap could come near
    near: list[Poly] = []
    for Ob in pk.polys:
        ds = np.min(np.linalg.norm(Ob - s, axis=1))
        dg = np.min(np.linalg.norm(Ob - g, axis=1))
        span = float(np.max(np.linalg.norm(Ob - Ob.mean(axis=0), axis=1)))
        if ds + dg - 4 * span - 2 * r <= cap + TOL:
            near.append(Ob)
    if not near:
        return None
    # node sets, one per obstacle corner
    per = [inflate_corners(Ob, r, CORNER_STEP) for Ob in near]
    corners = [(i, j) for i, cs in enumerate(per) for j in range(len(cs))]
    coarse = [c for cs in per for c in cs]
    found = _best(s, g, coarse, pk, r, cap, stand)
    if found is None:
        return None
    path, owners = found
    if not refine:
        return path
    # the same search with fine nodes round the corners the path wraps
    used = set(owners)
    fine_by_obstacle: dict[int, list[np.ndarray]] = {}
    fine = []
    for k, (i, j) in enumerate(corners):
        if k in used:
            if i not in fine_by_obstacle:
                fine_by_obstacle[i] = inflate_corners(near[i], r, FINE_STEP)
            fine.append(fine_by_obstacle[i][j])
        else:
            fine.append(coarse[k])
    better = _best(s, g, fine, pk, r, cap, stand)
    if better is not None and _cost(better[0], stand) <= _cost(path, stand):
        return better[0]
    return path


def _cost(path: list[np.ndarray], stand: tuple[float, float, float, float] | None) -> float:
    if stand is None:
        return sum(float(np.linalg.norm(path[i + 1] - path[i])) for i in range(len(path) - 1))
    return path_cost(path, *stand)


def _best(s: np.ndarray, g: np.ndarray, node_sets: list[np.ndarray], pk: Packed, r: float, cap: float,
          stand: tuple[float, float, float, float] | None) -> tuple[list[np.ndarray], list[int]] | None:
    graph = _Graph(s, g, node_sets, pk, r, cap)
    if stand is None:
        return _search(graph, cap, None, "first")
    found = [f for f in (_search(graph, cap, stand, m) for m in ("first", "last")) if f]
    if not found:
        return None
    return min(found, key=lambda f: _cost(f[0], stand))


#: the refinement step: a detour round a right-angled corner is then at most about
#: 1.5e-4 of the disc radius longer than the true arc
FINE_STEP = math.pi / 96


class _Graph:
    """The nodes of a visibility graph and the visibility tests made so far."""

    def __init__(self, s: np.ndarray, g: np.ndarray, node_sets: list[np.ndarray], pk: Packed, r: float,
                 cap: float) -> None:
        nodes = np.concatenate(node_sets, axis=0)
        owner = np.concatenate([np.full(len(ns), i) for i, ns in enumerate(node_sets)])
        keep = np.linalg.norm(nodes - s, axis=1) + np.linalg.norm(nodes - g, axis=1) <= cap + TOL
        nodes, owner = nodes[keep], owner[keep]
        self.pts = np.concatenate([s[None], nodes, g[None]], axis=0)
        self.owner = owner
        self.pk, self.r = pk, r
        n = len(self.pts)
        self.known = np.full((n, n), -1, dtype=np.int8)
        #: whether each node is itself clear (worked out when first needed)
        self.ok = np.full(n, -1, dtype=np.int8)
        self.ok[0] = self.ok[-1] = 1

    def visible(self, u: int, js: np.ndarray) -> np.ndarray:
        unknown = js[self.ok[js] < 0]
        if len(unknown):
            P = self.pts[unknown]
            self.ok[unknown] = clear_segments(P, P, self.pk, self.r)
        bad = js[self.ok[js] == 0]
        self.known[u, bad] = 0
        row = self.known[u, js]
        todo = js[row < 0]
        if len(todo):
            vis = clear_segments(np.repeat(self.pts[u][None], len(todo), axis=0), self.pts[todo], self.pk, self.r)
            self.known[u, todo] = vis
            self.known[todo, u] = vis
        return self.known[u, js] == 1


def _search(graph: _Graph, cap: float, stand: tuple[float, float, float, float] | None, mode: str
            ) -> tuple[list[np.ndarray], list[int]] | None:
    """The walk (``walk.py``) on the visibility graph of the given nodes; returns the path and, for each
    inner node, the index of the node set (obstacle) it came from. With ``stand``, the
    leg out of the start (``mode`` "first") or into the goal ("last") is weighted by
    the corner displacement of the turning stand; the straight-line heuristic stays a
    lower bound."""
    pts = graph.pts
    owner = graph.owner
    goal_i = len(pts) - 1

    def weights(u: int, js: np.ndarray) -> np.ndarray:
        if stand is not None and mode == "first" and u == 0:
            # the turning first leg: largest corner displacement, for every neighbour at once
            A = rect(pts[0], stand[0], stand[2], stand[3])
            off1 = rect(np.zeros(2), stand[1], stand[2], stand[3])
            B = pts[js][:, None, :] + off1[None, :, :]
            return np.max(np.linalg.norm(B - A[None, :, :], axis=2), axis=1)
        ws = np.linalg.norm(pts[js] - pts[u], axis=1)
        if stand is not None and mode == "last":
            for k, j in enumerate(js):
                if j == goal_i:
                    ws[k] = corner_cost(pts[u], stand[0], pts[j], stand[1], stand[2], stand[3])
        return ws

    dist, prev = walk(pts, cap, graph.visible, weights)
    if not math.isfinite(dist[goal_i]):
        return None
    out = trace(prev, goal_i)
    return [pts[i] for i in out], [int(owner[i - 1]) for i in out[1:-1]]
