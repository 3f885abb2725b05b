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
from collections.abc import Callable

import numpy as np

from .ellipse_point import _eberly_root

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


def ellipse_core_point(a: float, b: float, ct: float, st: float, V: np.ndarray) -> Callable[[float, float], float]:
    """``ellipse_core_sd`` for one ellipse centre (qx, qy) in plain floats.

    When the centre is outside ``M = K + E0`` its signed distance is the least distance
    to the pieces of ``M``'s boundary, all of which lie in ``M``: the vertex ellipses
    ``v + E0`` (the exact point-ellipse solve of ``ellipse_point``) and the edges shifted
    by the ellipse's support point at their normals. That least distance ``d`` is an
    upper bound in every case (a distance to actual points of ``M``); the direction
    from the nearest such point to the centre gives the lower bound ``f(w)``. When the
    two agree within ``TIGHT`` the value is ``d``; otherwise (the centre inside ``M``,
    or a foot the bound does not confirm) the candidate directions of
    ``ellipse_core_sd`` decide, the quartics of all vertices in one eigenvalue call and
    the rest in plain floats. perf: the root finder's one-angle-at-a-time calls skip
    most of the array set-up."""
    Vc = np.atleast_2d(np.asarray(V, dtype=float))
    N = _edge_normals(Vc)
    verts = [(float(x), float(y)) for x, y in Vc]
    e0, e1, swap = (a, b, False) if a >= b else (b, a, True)

    def h_e(wx: float, wy: float) -> float:
        lx, ly = wx * ct + wy * st, -wx * st + wy * ct
        return math.hypot(a * lx, b * ly)

    def h_k(wx: float, wy: float) -> float:
        return max(wx * x + wy * y for x, y in verts)

    # the shifted edges: (start x, y, vector x, y, squared length)
    segs = []
    if len(verts) >= 2:
        k = len(verts)
        pairs = [(0, 1)] if k == 2 else [(i, (i + 1) % k) for i in range(k)]
        normals = N.tolist()
        for idx, (i, j) in enumerate(pairs):
            nx, ny = normals[idx]
            lx, ly = nx * ct + ny * st, -nx * st + ny * ct
            hh = math.hypot(a * lx, b * ly)
            px, py = a * a * lx / hh, b * b * ly / hh
            sx, sy = px * ct - py * st, px * st + py * ct
            (x0, y0), (x1, y1) = verts[i], verts[j]
            ex, ey = x1 - x0, y1 - y0
            segs.append((x0 + sx, y0 + sy, ex, ey, ex * ex + ey * ey))
        if k == 2:
            nx, ny = normals[1]
            lx, ly = nx * ct + ny * st, -nx * st + ny * ct
            hh = math.hypot(a * lx, b * ly)
            px, py = a * a * lx / hh, b * b * ly / hh
            sx, sy = px * ct - py * st, px * st + py * ct
            (x0, y0), (x1, y1) = verts
            segs.append((x0 + sx, y0 + sy, x1 - x0, y1 - y0, (x1 - x0) ** 2 + (y1 - y0) ** 2))

    def fn(qx: float, qy: float) -> float:
        best, wx, wy = math.inf, 0.0, 0.0
        for vx, vy in verts:
            dx, dy = qx - vx, qy - vy
            lx, ly = dx * ct + dy * st, -dx * st + dy * ct
            y0, y1 = (abs(ly), abs(lx)) if swap else (abs(lx), abs(ly))
            if (y0 / e0) ** 2 + (y1 / e1) ** 2 <= 1.0:
                return _candidates(qx, qy)  # inside a vertex ellipse: inside M
            d, fx, fy = _outside_foot(e0, e1, y0, y1)
            if d < best:
                # the outward direction back in the world frame
                gx, gy = (fy, fx) if swap else (fx, fy)
                gx, gy = math.copysign(gx, lx), math.copysign(gy, ly)
                best, wx, wy = d, gx * ct - gy * st, gx * st + gy * ct
        for sx, sy, ex, ey, L2 in segs:
            dx, dy = qx - sx, qy - sy
            t = (dx * ex + dy * ey) / L2 if L2 > 0.0 else 0.0
            t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
            rx, ry = dx - t * ex, dy - t * ey
            d = math.hypot(rx, ry)
            if d < best:
                best, wx, wy = d, rx, ry
        L = math.hypot(wx, wy)
        if not (best > 0.0 and L > 0.0):
            return _candidates(qx, qy)
        wx, wy = wx / L, wy / L
        lower = wx * qx + wy * qy - h_k(wx, wy) - h_e(wx, wy)
        if best - lower <= TIGHT:
            return best
        return _candidates(qx, qy)

    normals = [(float(x), float(y)) for x, y in N]
    edge_const = [h_k(nx, ny) + h_e(nx, ny) for nx, ny in normals]
    cc = -0.5 * (a - b) * (a + b)
    offs = (0.0, 0.5 * math.pi, math.pi, 1.5 * math.pi)

    def _candidates(qx: float, qy: float) -> float:
        # the same candidates as ``ellipse_core_sd`` (edge normals, every foot from
        # every vertex), the quartics of all vertices in one eigenvalue call
        best = max((nx * qx + ny * qy - c for (nx, ny), c in zip(normals, edge_const, strict=True)), default=-math.inf)
        rows, s0s, coefs = [], [], []
        for vx, vy in verts:
            dx, dy = qx - vx, qy - vy
            A, B = a * (dx * ct + dy * st), -b * (-dx * st + dy * ct)
            s0 = max(offs, key=lambda o: abs(-A * math.sin(o) - B * math.cos(o) + cc * math.sin(2 * o)))
            c0, n0, c20, n20 = math.cos(s0), math.sin(s0), math.cos(2 * s0), math.sin(2 * s0)
            Ap, Bp, Cp, Dp = A * c0 - B * n0, A * n0 + B * c0, cc * c20, cc * n20
            q4 = Dp - Bp
            rows.append((A, B))
            s0s.append(s0)
            if q4 != 0.0:
                coefs.append([-(2 * Ap - 4 * Cp) / q4, 6 * Dp / q4, -(2 * Ap + 4 * Cp) / q4, -(Bp + Dp) / q4])
            else:
                coefs.append(None)
        live = [c for c in coefs if c is not None]
        roots = iter([])
        if live:
            Cm = np.zeros((len(live), 4, 4))
            Cm[:, 0, :] = live
            Cm[:, 1, 0] = Cm[:, 2, 1] = Cm[:, 3, 2] = 1.0
            roots = iter(np.linalg.eigvals(Cm).real.tolist())
        for (A, B), s0, c in zip(rows, s0s, coefs, strict=True):
            ts = next(roots) if c is not None else None
            for j in range(4):
                S = s0 if ts is None else s0 + 2.0 * math.atan(ts[j])
                for _ in range(4):
                    sn, cs = math.sin(S), math.cos(S)
                    F = A * sn + B * cs + 2 * cc * sn * cs
                    dF = A * cs - B * sn + 2 * cc * (cs * cs - sn * sn)
                    if dF == 0.0:
                        break
                    Sn = S - F / dF
                    sn2, cs2 = math.sin(Sn), math.cos(Sn)
                    if not abs(A * sn2 + B * cs2 + 2 * cc * sn2 * cs2) < abs(F):
                        break
                    S = Sn
                lx, ly = b * math.cos(S), a * math.sin(S)
                L = math.hypot(lx, ly)
                lx, ly = lx / L, ly / L
                wx, wy = lx * ct - ly * st, lx * st + ly * ct
                f = wx * qx + wy * qy - h_k(wx, wy) - h_e(wx, wy)
                if f > best:
                    best = f
        return best

    return fn


#: ``ellipse_core_point``: the one-point bracket [f(w), d] accepted (well inside 1e-9)
TIGHT = 1e-11


def _outside_foot(e0: float, e1: float, y0: float, y1: float) -> tuple[float, float, float]:
    """Distance from a point (y0, y1) >= 0 outside x^2/e0^2 + y^2/e1^2 = 1 (e0 >= e1)
    and the (unnormalised) outward normal at its nearest point, by the same root
    solve as ``ellipse_point._eberly``."""
    if y1 > e1 * 1e-12:
        if y0 > 0:
            z0, z1 = y0 / e0, y1 / e1
            r0 = (e0 / e1) ** 2
            rm1 = (e0 - e1) * (e0 + e1) / (e1 * e1)
            n0 = r0 * z0
            s = _eberly_root(n0, z1, rm1, z1, math.hypot(n0, z1))
            fx, fy = y0 / (s + rm1), y1 / s
            return abs(1.0 - s) * math.hypot(fx, fy), fx, fy
        return abs(y1 - e1), 0.0, 1.0
    return abs(y0 - e0), 1.0, 0.0
