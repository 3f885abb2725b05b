"""Signed distance between one convex polygon core translated many times and another,
all translations at once.

A *core* is a convex polygon given by its vertices in order (a single point and a
segment are allowed: a disc's centre, a capsule's spine). The exact value for one
translation is ``shapes.core_signed_distance``; this module gives the same closed form
for every row of ``P`` in a few array operations instead of a Python loop over rows:

* **overlapping** (no separating axis): the separating-axis value. For every edge
  normal ``n`` of either core, the gap along ``n`` is ``min over B of n.b`` less
  ``max over A of n.a``; translating ``A`` by ``p`` only shifts the second term by
  ``n.p``. The largest gap over the axes is the signed distance when it is not
  positive (minus the penetration depth of two convex polygons);
* **apart**: the least distance between a vertex of one core and an edge of the other
  (for convex polygons apart, the closest pair always has a vertex at one end). A
  vertex of ``B`` against an edge of ``A + p`` is the vertex ``b - p`` against the
  fixed edge of ``A``, so both families use fixed edges.

Rows are taken in chunks so memory stays bounded for many translations. Nothing here
knows about any game's rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: rows per chunk (each chunk holds rows x vertices x edges floats a few times)
CHUNK = 4096


def _normals(V: np.ndarray) -> np.ndarray:
    """Unit edge normals of a core, both signs (none for a point)."""
    if len(V) < 2:
        return np.zeros((0, 2))
    E = np.roll(V, -1, axis=0) - V if len(V) > 2 else (V[1:] - V[:1])
    N = np.stack([E[:, 1], -E[:, 0]], axis=-1)
    L = np.linalg.norm(N, axis=1)
    N = N[L > 0] / L[L > 0, None]
    return np.vstack([N, -N])


def _edges(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start points and vectors of a core's edges (one edge for a segment)."""
    n = len(W)
    if n == 2:
        return W[:1], W[1:] - W[:1]
    return W, np.roll(W, -1, axis=0) - W


def _points_to_edges(Q: np.ndarray, a: np.ndarray, ab: np.ndarray, L2: np.ndarray) -> np.ndarray:
    """Least distance from each row's points ``Q`` (rows, k, 2) to the edges
    ``a + t ab`` (e, 2), t in [0, 1], ``L2`` their squared lengths: (rows,)."""
    D = Q[:, :, None, :] - a[None, None, :, :]  # (rows, k, e, 2)
    dot = D[..., 0] * ab[:, 0] + D[..., 1] * ab[:, 1]
    safe = np.where(L2 > 0.0, L2, 1.0)
    t = np.where(L2 > 0.0, np.clip(dot / safe, 0.0, 1.0), 0.0)
    Rx = D[..., 0] - t * ab[:, 0]
    Ry = D[..., 1] - t * ab[:, 1]
    return np.sqrt(Rx * Rx + Ry * Ry).reshape(len(Q), -1).min(axis=1)


class _Pair:
    """What does not depend on the translation: the axes, the gaps along them at
    p = 0, and each core's edges."""

    __slots__ = ("VA", "VB", "N", "sep0", "fams")

    def __init__(self, VA: np.ndarray, VB: np.ndarray) -> None:
        self.VA, self.VB = VA, VB
        N = np.vstack([_normals(VA), _normals(VB)])
        self.N = N.T.copy() if len(N) else None
        self.sep0 = (np.min(VB @ N.T, axis=0) - np.max(VA @ N.T, axis=0)) if len(N) else None
        fams = []
        for V, W, sign in ((VA, VB, 1.0), (VB, VA, -1.0)):
            if len(W) == 1:
                fams.append((V, sign, W[0], None, None))
            else:
                a, ab = _edges(W)
                fams.append((V, sign, a, ab, np.einsum("ej,ej->e", ab, ab)))
        self.fams = fams


_PAIRS: dict[tuple[bytes, bytes], _Pair] = {}


def _pair(VA: np.ndarray, VB: np.ndarray) -> _Pair:
    key = (VA.tobytes(), VB.tobytes())
    got = _PAIRS.get(key)
    if got is None:
        if len(_PAIRS) > 4096:
            _PAIRS.clear()
        got = _PAIRS[key] = _Pair(VA, VB)
    return got


def cores_translations_sd(VA: np.ndarray, VB: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Signed distance between the core ``VA + p`` and the core ``VB`` for every row
    p of ``P`` (n, 2): the closed form of ``shapes.core_signed_distance``, row by row
    the same value up to rounding."""
    VA = np.ascontiguousarray(VA, dtype=float).reshape(-1, 2)
    VB = np.ascontiguousarray(VB, dtype=float).reshape(-1, 2)
    P = np.atleast_2d(np.asarray(P, dtype=float))
    n = len(P)
    out = np.empty(n)
    if n == 0:
        return out
    pr = _pair(VA, VB)
    for s in range(0, n, CHUNK):
        Pc = P[s:s + CHUNK]
        if pr.N is None:
            best = np.ones(len(Pc))  # two points never overlap in area
        else:
            best = (pr.sep0[None, :] - Pc @ pr.N).max(axis=1)
        apart = best > 0.0
        if apart.any():
            Pa = Pc[apart]
            d = np.full(len(Pa), np.inf)
            # vertices of A + p against B, and vertices of B - p against A
            for V, sign, a, ab, L2 in pr.fams:
                Q = V[None, :, :] + sign * Pa[:, None, :]
                if ab is None:
                    diff = Q - a
                    d = np.minimum(d, np.sqrt(diff[..., 0] ** 2 + diff[..., 1] ** 2).min(axis=1))
                else:
                    d = np.minimum(d, _points_to_edges(Q, a, ab, L2))
            best[apart] = d
        out[s:s + CHUNK] = best
    return out


def core_point_sd(VA: np.ndarray, VB: np.ndarray) -> Callable[[float, float], float]:
    """``cores_translations_sd`` for one translation (px, py) in plain floats: the same
    closed form (separating axes when overlapping, else the least vertex-edge
    distance). perf: the root finder calls it one translation at a time, where array
    set-up would cost more than the arithmetic."""
    VA = np.ascontiguousarray(VA, dtype=float).reshape(-1, 2)
    VB = np.ascontiguousarray(VB, dtype=float).reshape(-1, 2)
    N = np.vstack([_normals(VA), _normals(VB)])
    # per axis n: (n.x, n.y, min over B of n.b - max over A of n.a); A + p adds -n.p
    axes = [
        (float(n[0]), float(n[1]), float(np.min(VB @ n) - np.max(VA @ n))) for n in N
    ]
    A = [(float(x), float(y)) for x, y in VA]
    B = [(float(x), float(y)) for x, y in VB]

    def edges(W: list[tuple[float, float]]) -> list[tuple[float, float, float, float, float]]:
        if len(W) < 2:
            return []
        pairs = [(W[0], W[1])] if len(W) == 2 else [(W[i], W[(i + 1) % len(W)]) for i in range(len(W))]
        return [(a[0], a[1], b[0] - a[0], b[1] - a[1], (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) for a, b in pairs]

    EA, EB = edges(A), edges(B)
    hypot = math.hypot

    def to_edges(pts: list[tuple[float, float]], E: list[tuple[float, float, float, float, float]]) -> float:
        d = math.inf
        for qx, qy in pts:
            for ax, ay, ex, ey, L2 in E:
                dx, dy = qx - ax, qy - ay
                t = (dx * ex + dy * ey) / L2 if L2 > 0.0 else 0.0
                t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
                v = hypot(dx - t * ex, dy - t * ey)
                if v < d:
                    d = v
        return d

    def fn(px: float, py: float) -> float:
        if axes:
            best = max(s - nx * px - ny * py for nx, ny, s in axes)
            if best <= 0.0:
                return best
        # apart: vertices of A + p against B's edges, vertices of B - p against A's
        d = math.inf
        QA = [(x + px, y + py) for x, y in A]
        QB = [(x - px, y - py) for x, y in B]
        if EB:
            d = min(d, to_edges(QA, EB))
        if EA:
            d = min(d, to_edges(QB, EA))
        if not EA and not EB:
            d = hypot(QA[0][0] - B[0][0], QA[0][1] - B[0][1])
        return d

    return fn
