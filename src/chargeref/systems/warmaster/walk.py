"""One best-first walk over a visibility graph, shared by every Warmaster route search.

The graph is given by points (index 0 the start; with a goal, the last index the
goal), a ``visible(u, js)`` test and a ``weights(u, js)`` cost of the legs from
``u`` to each of ``js``. The walk is A* with the straight distance to the goal as
its heuristic: every leg weight the callers use (a centre's path length, or a
turning stand's largest corner displacement) is at least the straight distance
between the leg's ends, so the heuristic never overestimates and the first time
the goal is settled its distance is the least. Without a goal the walk is Dijkstra
from the start to every point it can reach within ``cap``.

No geometry and no rules here: the callers say what blocks a leg and what it costs.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from ...budget import check as budget_check
from ...geometry.shapes import TOL

#: a leg is worth testing only when its straight length beats the known distance by this
PRUNE = 1e-12

Visible = Callable[[int, np.ndarray], np.ndarray]
Weights = Callable[[int, np.ndarray], np.ndarray]


def walk(pts: np.ndarray, cap: float, visible: Visible, weights: Weights, *, to_goal: bool = True,
         slack: float = 0.0, cap_on_accept: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(dist, prev) over ``pts``: the least cost from point 0 to each settled point
    (inf where none within ``cap`` was found) and the point before it (-1 for none).

    * ``to_goal``: the last point is the goal; the walk stops when it is settled and
      steers by the straight distance to it. Otherwise every point within ``cap`` is
      settled (no heuristic).
    * ``slack``: a relaxation is taken only when it improves the known distance by
      more than this (legs are pruned before their visibility test, with their
      straight length, when they do not improve it by more than ``PRUNE``).
    * ``cap_on_accept``: a relaxation whose cost plus heuristic passes ``cap`` is not
      taken (a leg's true weight can exceed the straight length the pruning used).
    """
    n = len(pts)
    goal_i = n - 1 if to_goal else -1
    g = pts[goal_i] if to_goal else None
    dist = np.full(n, np.inf)
    prev = np.full(n, -1)
    dist[0] = 0.0
    done = np.zeros(n, dtype=bool)

    def h_of(p: np.ndarray) -> np.ndarray:
        if g is None:
            return np.zeros(len(p))
        return np.linalg.norm(g - p, axis=1)

    def h1(j: int) -> float:
        return 0.0 if g is None else float(np.linalg.norm(g - pts[j]))

    heap: list[tuple[float, int]] = [(h1(0), 0)]
    while heap:
        budget_check()
        _, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        if u == goal_i:
            break
        cand = np.nonzero(~done)[0]
        if not len(cand):
            break
        # the straight length is a lower bound on every leg's weight
        lb = dist[u] + np.linalg.norm(pts[cand] - pts[u], axis=1)
        cand = cand[(lb < dist[cand] - PRUNE) & (lb + h_of(pts[cand]) <= cap + TOL)]
        if not len(cand):
            continue
        vis = visible(int(u), cand)
        cand = cand[vis]
        if not len(cand):
            continue
        ws = weights(int(u), cand)
        for j, w0 in zip(cand, ws, strict=True):
            nd = dist[u] + float(w0)
            if not nd < dist[j] - slack:
                continue
            hj = h1(int(j))
            if cap_on_accept and nd + hj > cap + TOL:
                continue
            dist[j] = nd
            prev[j] = u
            heapq.heappush(heap, (nd + hj, int(j)))
    return dist, prev


def trace(prev: np.ndarray, end: int) -> list[int]:
    """The point indices from the start (0) to ``end`` along ``prev``."""
    order = [end]
    while order[-1] != 0:
        order.append(int(prev[order[-1]]))
    order.reverse()
    return order
