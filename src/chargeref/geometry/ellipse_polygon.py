"""Signed distance between an ellipse and a convex polygon core, many translations at once.

Setting. ``E`` is an ellipse with centre ``c``, semi-axes ``a``, ``b`` and axis angle
``theta``; ``K`` is a convex polygon core (its vertices in order; a segment or a single
point is allowed). Either may be grown by a disc: growing a body by a disc of radius r
lowers every support gap by exactly r, so the signed distance just drops by r; the
caller subtracts it.

The signed distance is ``sd(E, K) = max over unit w of f(w)`` with

    f(w) = w . q - h_K(w) - h_E0(w),

``q`` the ellipse centre (after translation), ``h_K`` the polygon's support function
and ``h_E0`` that of the ellipse moved to the origin. This is the signed distance of
``q`` from the Minkowski sum ``M = K + E0`` (a gap outside, minus the depth inside), and
it holds for overlapping bodies as well as apart ones. Every direction ``w`` gives a
proven lower bound ``f(w)``.

Where the maximum lies. The normal directions of ``M`` split into cones, one per vertex
``v`` of ``K`` (between the normals of its two edges); inside the cone of ``v``,
``h_K(w) = w . v`` and so ``f(w) = w . (q - v) - h_E0(w)``. Its maximum over the closed
cone is at an end (an edge normal of ``K``) or at an interior stationary point, where
``q - v`` lies on the normal line of the ellipse point whose outward normal is ``w``: a
foot of a perpendicular from ``q - v`` to ``E0``. In the ellipse parameter ``s``
(boundary point ``(a cos s, b sin s)`` in the ellipse frame) the feet of a point
``(x, y)`` are the roots of

    F(s) = a x sin s - b y cos s - (a^2 - b^2) sin s cos s,

a trigonometric polynomial of degree two, i.e. a quartic in ``tan((s - s0) / 2)``; its
(at most four) roots are the eigenvalues of the companion matrix, polished by Newton
steps on ``F``. The candidate set is every edge normal of ``K`` and the outward normals
at all feet from every vertex; the value is the largest ``f`` over them, ``f`` evaluated
with the true ``h_K`` (the maximum over all vertices), so a stray candidate can only
give a lower bound, never an overshoot, and the true maximiser is always a candidate.
The cone test is thus not needed. Near a double root (``q - v`` on the evolute) ``f`` is
flat to third order, so the root's rounding changes the value by far less than 1e-12.

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math

import numpy as np

#: rows per chunk (each holds rows x vertices x 4 candidates x vertices floats)
CHUNK = 2048


def _edge_normals(V: np.ndarray) -> np.ndarray:
    """Unit outward normals of a counter-clockwise core's edges; both normals of a
    segment; none for a point."""
    if len(V) < 2:
        return np.zeros((0, 2))
    if len(V) == 2:
        e = V[1] - V[0]
        L = math.hypot(e[0], e[1])
        if L == 0.0:
            return np.zeros((0, 2))
        n = np.array([[e[1] / L, -e[0] / L]])
        return np.vstack([n, -n])
    E = np.roll(V, -1, axis=0) - V
    N = np.stack([E[:, 1], -E[:, 0]], axis=-1)
    L = np.linalg.norm(N, axis=1)
    keep = L > 0
    return N[keep] / L[keep, None]


def _feet_params(a: float, b: float, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Ellipse parameters ``s`` (m, 4) of the feet of perpendiculars from the points
    (X, Y) (ellipse frame, shape (m,)) to x^2/a^2 + y^2/b^2 = 1: the roots of ``F``
    from the companion matrix of the quartic, each polished by Newton steps (a step
    is kept only when it lowers |F|). A complex root contributes its real part, a
    direction that is merely one more (valid) candidate."""
    m = len(X)
    A = a * X  # F = A sin s + B cos s + C sin 2s
    B = -b * Y
    C = np.full(m, -0.5 * (a - b) * (a + b))
    # offset s0 in {0, pi/2, pi, 3pi/2} making |F(s0 + pi)| largest, so the leading
    # coefficient of the quartic (which is F(s0 + pi)) stays well away from zero
    offs = np.array([0.0, 0.5 * math.pi, math.pi, 1.5 * math.pi])
    Fpi = np.abs(
        A[:, None] * np.sin(offs + math.pi)[None, :]
        + B[:, None] * np.cos(offs + math.pi)[None, :]
        + C[:, None] * np.sin(2 * (offs + math.pi))[None, :]
    )
    s0 = offs[np.argmax(Fpi, axis=1)]
    c0, n0 = np.cos(s0), np.sin(s0)
    c20, n20 = np.cos(2 * s0), np.sin(2 * s0)
    # in sigma = s - s0: F = A' sin + B' cos + C' sin 2sigma + D' cos 2sigma
    Ap = A * c0 - B * n0
    Bp = A * n0 + B * c0
    Cp = C * c20
    Dp = C * n20
    # times (1 + t^2)^2 with t = tan(sigma / 2): a quartic, highest power first
    q4 = Dp - Bp
    q3 = 2 * Ap - 4 * Cp
    q2 = -6 * Dp
    q1 = 2 * Ap + 4 * Cp
    q0 = Bp + Dp
    S = np.repeat(s0[:, None], 4, axis=1).astype(float)
    ok = np.abs(q4) > 0.0
    if np.any(ok):
        k = np.flatnonzero(ok)
        Cm = np.zeros((len(k), 4, 4))
        Cm[:, 0, :] = -np.stack([q3[k], q2[k], q1[k], q0[k]], axis=1) / q4[k, None]
        Cm[:, 1, 0] = Cm[:, 2, 1] = Cm[:, 3, 2] = 1.0
        t = np.linalg.eigvals(Cm).real
        S[k] = s0[k, None] + 2.0 * np.arctan(t)
    Am, Bm, Cc = A[:, None], B[:, None], C[:, None]
    for _ in range(4):
        sn, cs = np.sin(S), np.cos(S)
        F = Am * sn + Bm * cs + 2 * Cc * sn * cs
        dF = Am * cs - Bm * sn + 2 * Cc * (cs * cs - sn * sn)
        with np.errstate(divide="ignore", invalid="ignore"):
            Sn = S - F / dF
        sn2, cs2 = np.sin(Sn), np.cos(Sn)
        F2 = Am * sn2 + Bm * cs2 + 2 * Cc * sn2 * cs2
        better = np.isfinite(Sn) & (np.abs(F2) < np.abs(F))
        S = np.where(better, Sn, S)
    return S


def ellipse_core_sd(
    a: float, b: float, ct: float, st: float, V: np.ndarray, Q: np.ndarray
) -> np.ndarray:
    """Signed distance between the ellipse (semi-axes a, b; axis direction (ct, st))
    centred at each row of ``Q`` (n, 2) and the fixed convex core ``V`` (k, 2), counter-
    clockwise (a segment or a point allowed): the largest ``f`` over the candidate
    directions described in the module docstring. Exact up to the rounding of the
    feet (far below 1e-9 of the unit)."""
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    V = np.atleast_2d(np.asarray(V, dtype=float))
    n = len(Q)
    out = np.empty(n)
    N = _edge_normals(V)
    for lo in range(0, n, CHUNK):
        out[lo : lo + CHUNK] = _chunk(a, b, ct, st, V, N, Q[lo : lo + CHUNK])
    return out


def _h_ellipse(a: float, b: float, ct: float, st: float, W: np.ndarray) -> np.ndarray:
    lx = W[..., 0] * ct + W[..., 1] * st
    ly = -W[..., 0] * st + W[..., 1] * ct
    return np.hypot(a * lx, b * ly)


def _chunk(a: float, b: float, ct: float, st: float, V: np.ndarray, N: np.ndarray, Q: np.ndarray) -> np.ndarray:
    m, k = len(Q), len(V)
    # edge normals: f(n) = n.q - h_K(n) - h_E0(n), h_K(n) and h_E0(n) fixed per edge
    if len(N):
        hK = np.max(N @ V.T, axis=1)
        hE = _h_ellipse(a, b, ct, st, N)
        best = np.max(Q @ N.T - (hK + hE)[None, :], axis=1)
    else:
        best = np.full(m, -np.inf)
    # feet from q - v for every vertex v, in the ellipse frame
    D = Q[:, None, :] - V[None, :, :]  # (m, k, 2)
    X = D[..., 0] * ct + D[..., 1] * st
    Y = -D[..., 0] * st + D[..., 1] * ct
    S = _feet_params(a, b, X.ravel(), Y.ravel()).reshape(m, k * 4)
    # outward normal at the foot (b cos s, a sin s) in the frame, to world, unit
    lx, ly = b * np.cos(S), a * np.sin(S)
    L = np.hypot(lx, ly)
    lx, ly = lx / L, ly / L
    W = np.stack([lx * ct - ly * st, lx * st + ly * ct], axis=-1)  # (m, 4k, 2)
    hK = np.max(W @ V.T, axis=-1)  # (m, 4k)
    hE = _h_ellipse(a, b, ct, st, W)
    f = np.einsum("mjk,mk->mj", W, Q) - hK - hE
    return np.maximum(best, np.max(f, axis=1))
