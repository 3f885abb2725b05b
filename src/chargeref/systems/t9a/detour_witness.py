"""The witness geometry of the blocked-approach search (``detour.Search``): signed
distances of many points to small convex polygons and capsules, the sample points of
the charger's body and of obstacles, and the poses of a straight or turning stage.

These only decide how soon a box of the search is thrown away (a witness deep inside
an obstacle proves the box blocked); the answer rests on the proofs in ``detour``'s
header. Split out of ``detour.py`` by responsibility (it was over 900 lines).
"""

from __future__ import annotations

import numpy as np

from .world import Obstacle

#: the instants (fractions of each step) and the splits of each edge at which witness
#: points are taken (they only speed the search up; see the module docstring)
TAU = np.linspace(0.0, 1.0, 9)
EDGE_SPLIT = 4
#: a stage of a witness path: its poses (front middles, heading unit vectors), how
#: far any point may move over the box, and the half-width of the part of the
#: charger the bound holds for
Stage = tuple[np.ndarray, np.ndarray, float, float]


def _sd_poly(P: np.ndarray, V: np.ndarray, inside_only: bool = False) -> np.ndarray:
    """Signed distances of points to a convex CCW polygon (negative inside). With
    ``inside_only`` a point outside gets only a lower bound of its distance (its
    greatest distance beyond an edge's line): enough when only points inside count."""
    A = V
    E = np.concatenate([V[1:], V[:1]]) - V
    L = np.hypot(E[:, 0], E[:, 1])
    N = np.stack([E[:, 1], -E[:, 0]], axis=1) / np.where(L > 0, L, 1.0)[:, None]
    side = P @ N.T - np.einsum("ek,ek->e", A, N)[None, :]
    inside = np.max(side, axis=1)
    if inside_only:
        return inside
    rel = P[:, None, :] - A[None, :, :]
    t = np.clip(np.einsum("pek,ek->pe", rel, E) / np.where(L > 0, L * L, 1.0)[None, :], 0.0, 1.0)
    cl = rel - t[:, :, None] * E[None, :, :]
    out = np.min(np.hypot(cl[:, :, 0], cl[:, :, 1]), axis=1)
    return np.where(inside <= 0, inside, out)


class _PolyConst:
    """The per-obstacle constants of ``_sd_poly`` for one convex CCW polygon (its
    vertices, edges, their lengths, outward unit normals and the normals' offsets),
    worked out once per search: the same expressions as ``_sd_poly``, so the same
    floats."""

    __slots__ = ("V", "E", "L", "N", "NA", "L2")

    def __init__(self, V: np.ndarray) -> None:
        self.V = V
        self.E = np.concatenate([V[1:], V[:1]]) - V
        self.L = np.hypot(self.E[:, 0], self.E[:, 1])
        self.N = np.stack([self.E[:, 1], -self.E[:, 0]], axis=1) / np.where(self.L > 0, self.L, 1.0)[:, None]
        self.NA = np.einsum("ek,ek->e", V, self.N)
        self.L2 = np.where(self.L > 0, self.L * self.L, 1.0)

    def outside(self, P: np.ndarray) -> np.ndarray:
        """The distance of each point (all outside) to the polygon's boundary, by the
        same expression as ``_sd_poly``."""
        rel = P[:, None, :] - self.V[None, :, :]
        t = np.clip(np.einsum("pek,ek->pe", rel, self.E) / self.L2[None, :], 0.0, 1.0)
        cl = rel - t[:, :, None] * self.E[None, :, :]
        return np.min(np.hypot(cl[:, :, 0], cl[:, :, 1]), axis=1)


def _sd_cap(P: np.ndarray, a: np.ndarray, b: np.ndarray, r: float) -> np.ndarray:
    e = b - a
    ll = float(e @ e)
    t = np.clip(((P - a) @ e) / ll, 0.0, 1.0) if ll > 0 else np.zeros(len(P))
    q = P - (a[None, :] + t[:, None] * e[None, :])
    return np.hypot(q[:, 0], q[:, 1]) - r


def _body_samples(w: float, depth: float) -> np.ndarray:
    """Points of the charger's boundary in its own frame (ahead, left) from the front
    middle: the corners and ``EDGE_SPLIT`` pieces of each edge."""
    c = np.array([[0.0, w / 2], [-depth, w / 2], [-depth, -w / 2], [0.0, -w / 2]])
    k = np.linspace(0.0, 1.0, EDGE_SPLIT, endpoint=False)
    return np.concatenate([c[i] + k[:, None] * (c[(i + 1) % 4] - c[i]) for i in range(4)])


def _shape_samples(ob: Obstacle) -> np.ndarray:
    sh = ob.shape
    if sh.kind == "poly":
        V = sh.V
        assert V is not None
        k = np.linspace(0.0, 1.0, EDGE_SPLIT, endpoint=False)
        return np.concatenate([V[i] + k[:, None] * (V[(i + 1) % len(V)] - V[i]) for i in range(len(V))])
    assert sh.a is not None and sh.b is not None
    return np.stack([sh.a, sh.b, (sh.a + sh.b) / 2])


def _turned(X: np.ndarray, rel: np.ndarray, psi: float, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Poses turned about ``X`` by each angle (radians): the front middle ``X + rel``
    turned, and the heading ``psi`` (radians) turned."""
    ca, sa = np.cos(angles), np.sin(angles)
    Fs = np.stack([X[0] + ca * rel[0] - sa * rel[1], X[1] + sa * rel[0] + ca * rel[1]], axis=1)
    return Fs, np.stack([np.cos(psi + angles), np.sin(psi + angles)], axis=1)


def _spun(v: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """The vector ``v`` turned by each angle (radians)."""
    ca, sa = np.cos(angles), np.sin(angles)
    return np.stack([ca * v[0] - sa * v[1], sa * v[0] + ca * v[1]], axis=1)


def _plus_spun(F: np.ndarray, v: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """``F + _spun(v, angles)``; when ``v`` is zero (nothing of the middle approach
    was taken: the usual case) that is ``F`` itself, so the turn is skipped."""
    if v[0] == 0 and v[1] == 0:
        return F
    return F + _spun(v, angles)


def _line(F: np.ndarray, d: np.ndarray, length: float, M: float, hw: float,
          heading: np.ndarray | None = None) -> Stage:
    """The stage of poses from ``F`` along ``d`` for ``length`` (at the fractions
    ``TAU``), heading ``d`` (or ``heading``)."""
    Fs = F[None, :] + (TAU * length)[:, None] * d[None, :]
    h = d if heading is None else heading
    return Fs, np.repeat(h[None, :], len(TAU), axis=0), M, hw


def _group_reduce(op: np.ufunc, A: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``op`` over each group of rows of ``A`` (group ``j`` from ``starts[j]`` to the
    next start), one row per group: by a reshape when the groups are of one size."""
    k = len(starts)
    size = len(A) // k
    if size * k == len(A) and bool(np.all(starts == np.arange(k) * size)):
        return op.reduce(A.reshape(k, size, -1), axis=1)
    return op.reduceat(A, starts, axis=0)
