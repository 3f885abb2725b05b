"""Certified signed distance between two convex bodies known by support functions.

For convex A and B let C = B - A = {b - a}. The signed distance is

    sd(A, B) = max over unit w of phi(w),   phi(w) = min_{z in C} w.z = -h_C(-w)

(the gap when the origin is outside C, minus the penetration depth when it is
inside). Every evaluation gives a proven bound, which is what makes the result
certified rather than sampled:

* LOWER bound: any direction w gives phi(w) <= sd (weak duality).
* UPPER bound: support points of C are points of C, so their convex hull P lies in C.
  Origin outside P: sd <= dist(0, P) (a pair of actual points, one in A and one in B,
  is that far apart). Origin inside P: the depth of C is at least the depth of P,
  so sd <= -min over P's edges of their distance from the origin.

``solve`` grows P (GJK on the outside, EPA on the inside, in one loop over a polygon
kept in the order of its query directions): the new direction is the normal of the
edge that decides the current upper bound, and the loop stops only when
``upper - lower <= tol`` (default ``CERT_TOL`` = 1e-9 of the unit). The returned value
is the middle of the bracket, so it is within tol/2 of the true signed distance.

``batch_separated`` is the vectorised fast path for many translations of one body
against another when a separating direction is already known for a row: where
phi > 0 the function phi is strictly concave in the angle (h + h'' >= 0 for a support
function, so phi'' <= -phi < 0), hence a bracket of the maximum is bisected on the
sign of a supergradient, cross(w, z) with z the minimiser. Its certificate is the
same pair of bounds (phi at the best angle; distance from the origin to the chord
between the support points at the bracket ends). Rows it does not certify go to
``solve``.

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

#: Certificate width: upper - lower bound on the signed distance (unit of the scenario).
CERT_TOL = 1e-9
#: Safety cap on the polygon loop (each pass adds one support point).
MAX_STEPS = 400
#: Bisection passes of the vectorised fast path (the bracket halves each pass).
MAX_BISECT = 64

Support = Callable[[np.ndarray], np.ndarray]  # (k, 2) unit directions -> (k, 2) points

_TWO_PI = 2.0 * math.pi


@dataclass(frozen=True)
class Certified:
    """A signed distance with its proof: ``lower <= sd <= upper``.

    ``pa`` (a point of A) and ``pb`` (of B) are witnesses: apart, the pair whose
    distance is ``upper``; overlapping, the support points of the best direction ``w``
    (the deepest-penetration pair)."""

    value: float
    lower: float
    upper: float
    w: np.ndarray
    pa: np.ndarray
    pb: np.ndarray
    steps: int

    @property
    def width(self) -> float:
        return self.upper - self.lower


def _unit1(t: float) -> np.ndarray:
    return np.array([[math.cos(t), math.sin(t)]])


def solve(
    sA: Support,
    sB: Support,
    p: tuple[float, float] | np.ndarray = (0.0, 0.0),
    tol: float = CERT_TOL,
    stop: float | None = None,
    seeds: np.ndarray | None = None,
    init: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    reach: float | None = None,
    curv_min: float = 0.0,
) -> Certified:
    """Certified sd(A + p, B) for convex A, B given by support point functions.

    ``stop``: return as soon as the bracket lies wholly on one side of this value
    (a yes/no question "is sd >= stop?" needs no more). ``seeds``: extra starting
    query angles (radians), e.g. the direction between the centres. ``init``:
    support points already known, as (angles t, sA(-u_t), sB(u_t)) with A untranslated.

    ``reach`` (a bound on |z| over C, e.g. |c_B - c_A - p| + r_A + r_B) and ``curv_min``
    (a lower bound on C's radius of curvature, e.g. the sum of the parts' least radii)
    enable a second upper bound that needs no polygon: between two query angles
    h_C'' >= curv_min - h_C >= -K with K = max(0, H - curv_min), H bounding h there, so
    h_C lies above both end tangents bent down by K s^2/2; the least of these over all
    the gaps bounds min h_C from below, i.e. sd from above. Far from the minimum the
    tangents clear it at once, so only the gap holding the minimum is refined (at the
    crossing of its two tangents: a Newton-like step from both sides)."""
    px, py = float(p[0]), float(p[1])
    keys: list[float] = []  # query angle of each vertex of P (support direction of C)
    Z: list[tuple[float, float]] = []
    WA: list[np.ndarray] = []
    WB: list[np.ndarray] = []
    G: list[float] = []  # h_C'(t) at each vertex: cross(u_t, z)
    HV: list[float] = []  # h_C(t) at each vertex
    lower = -math.inf
    best_w = np.array([1.0, 0.0])
    best_pa = best_pb = None

    def record(t: float, a: np.ndarray, b: np.ndarray) -> float:
        """Record the support point b - a of C found in direction t; returns h_C(t)."""
        nonlocal lower, best_w, best_pa, best_pb
        c, s = math.cos(t), math.sin(t)
        z = b - a
        h = float(c * z[0] + s * z[1])
        if -h > lower:  # phi(-u) = -h_C(u)
            lower = -h
            best_w = np.array([-c, -s])
            best_pa, best_pb = a, b
        i = bisect.bisect_left(keys, t)
        if i < len(keys) and keys[i] == t:
            return h
        keys.insert(i, t)
        G.insert(i, float(c * z[1] - s * z[0]))
        HV.insert(i, h)
        Z.insert(i, (float(z[0]), float(z[1])))
        WA.insert(i, a)
        WB.insert(i, b)
        return h

    def query(t: float) -> float:
        t = t % _TWO_PI
        u = _unit1(t)
        return record(t, sA(-u)[0] + (px, py), sB(u)[0])

    if init is not None:
        for t, a, b in zip(*init, strict=True):
            record(float(t) % _TWO_PI, np.asarray(a, dtype=float) + (px, py), np.asarray(b, dtype=float))

    start = [k * (math.pi / 2) for k in range(4)] if init is None else []
    if seeds is not None:
        start += [float(s) for s in np.atleast_1d(seeds)]
    for t in start:
        query(t)
    upper = math.inf
    pa = pb = None
    steps = 0
    while True:
        steps += 1
        V = np.asarray(Z)
        # drop repeated vertices (flat sides of C give the same point for many angles)
        # (and points within rounding of each other, whose short edge has no reliable
        # direction)
        keep = np.ones(len(V), dtype=bool)
        if len(V) > 1:
            nxt = np.roll(V, -1, axis=0)
            eps = 1e-12 * (1.0 + float(np.max(np.abs(V))))
            keep = np.hypot(*(nxt - V).T) > eps
            if not keep.any():
                keep[0] = True
        idx = np.flatnonzero(keep)
        W = V[idx]
        m = len(W)
        E = np.roll(W, -1, axis=0) - W
        inside = False
        if m >= 3:
            cross = E[:, 0] * (-W[:, 1]) - E[:, 1] * (-W[:, 0])  # origin left of each edge
            inside = bool(np.all(cross >= 0.0))
        if inside:
            L = np.hypot(E[:, 0], E[:, 1])
            N = np.stack([E[:, 1], -E[:, 0]], axis=-1) / L[:, None]  # outward (CCW polygon)
            dist = np.einsum("ij,ij->i", N, W)
            j = int(np.argmin(dist))
            # every bound found stays valid: keep the best (a short edge between points
            # within rounding of each other can give a weaker one)
            if -float(dist[j]) < upper:
                upper = -float(dist[j])
                pa, pb = None, None
            t_norm = math.atan2(N[j, 1], N[j, 0])
            t_new = [t_norm]
            # Where h_C' changes sign along the edge, its minimum lies between the
            # edge's two query angles: estimate it by the secant of h_C' and query a
            # pair of angles round it, close enough (chord sag rho*delta^2/2 <= tol/4)
            # that the new edge between them certifies the bound if the estimate is
            # good. Only the choice of angles changes; the bounds are the same.
            i0, i1 = int(idx[j]), int(idx[(j + 1) % m])
            t0, t1 = keys[i0], keys[i1]
            if t1 <= t0:
                t1 += _TWO_PI
            g0, g1 = G[i0], G[i1]
            if g0 < 0.0 < g1 and t1 > t0:
                ts = t0 + (t1 - t0) * (-g0) / (g1 - g0)
                rho = (g1 - g0) / (t1 - t0) + max(float(dist[j]), 0.0)
                if rho > 0.0:
                    dl = math.sqrt(tol / (2.0 * rho))
                    if t0 < ts - dl and ts + dl < t1:
                        t_new = [ts - dl, ts + dl]
        else:
            if m == 1:
                v = W[0]
                j, tt = 0, 0.0
                E = np.zeros((1, 2))
            else:
                ne = m if m >= 3 else 1
                E = E[:ne]
                L2 = np.einsum("ij,ij->i", E, E)
                tt_all = np.clip(-np.einsum("ij,ij->i", W[:ne], E) / np.where(L2 > 0, L2, 1.0), 0.0, 1.0)
                C = W[:ne] + tt_all[:, None] * E
                d2 = np.einsum("ij,ij->i", C, C)
                j = int(np.argmin(d2))
                v, tt = C[j], float(tt_all[j])
            nv = float(math.hypot(v[0], v[1]))
            i0 = idx[j]
            i1 = idx[(j + 1) % m]
            if nv < upper:
                upper = nv
                pa = WA[i0] + tt * (WA[i1] - WA[i0])
                pb = WB[i0] + tt * (WB[i1] - WB[i0])
            if nv > 0.0:
                t_new = [math.atan2(-v[1], -v[0])]  # query -v: phi(v/|v|)
            else:
                # the origin lies on P's boundary: probe both normals of that edge
                e = E[j] if m > 1 else np.array([1.0, 0.0])
                te = math.atan2(e[1], e[0])
                before = len(keys)
                query(te - math.pi / 2)
                query(te + math.pi / 2)
                if lower >= -tol or len(keys) == before:
                    upper = 0.0
                    break
                continue
        if inside and reach is not None:
            # overlapping: refine whichever bound is the better one now (it decides
            # the bracket); apart, Gilbert's bound also gives the witness points
            t_tay, up_tay = _taylor_bound(keys, HV, G, reach, curv_min)
            if up_tay < upper:
                upper = up_tay
                t_new = [t_tay]
            else:  # the polygon's bound is better for now: refine both
                t_new = [*t_new, t_tay]
        if upper - lower <= tol or steps >= MAX_STEPS:
            break
        if stop is not None and (lower >= stop or upper < stop):
            break
        before = len(keys)
        for t in t_new:
            query(t)
        if len(keys) == before and len(t_new) > 1:
            query(t_norm)  # the pair gave nothing new: refine at the edge's normal
        if upper - lower <= tol:
            break
        if len(keys) == before:
            # no new support point: the polygon cannot improve here, so improve the
            # lower bound instead: minimise h_C between the query angles either side of
            # the best direction so far (every evaluation is a support query, so the
            # bounds stay proven); stop if that finds nothing either
            tb = math.atan2(-best_w[1], -best_w[0]) % _TWO_PI
            i = bisect.bisect_left(keys, tb)
            lo_t = keys[i - 1] if i > 0 else keys[-1] - _TWO_PI
            hi_t = keys[(i + 1) % len(keys)] if i + 1 < len(keys) else keys[0] + _TWO_PI
            if hi_t <= lo_t:
                break
            n_before, low_before = len(keys), lower
            minimize_scalar(query, bounds=(lo_t, hi_t), method="bounded", options={"xatol": 1e-13})
            if upper - lower <= tol or (len(keys) == n_before and lower <= low_before):
                break
    if best_pa is None:
        best_pa, best_pb = WA[0], WB[0]
    if pa is None or upper <= 0.0 and lower < 0.0:
        pa, pb = best_pa, best_pb
    return Certified((upper + lower) / 2.0, lower, upper, best_w, pa, pb, steps)


def _taylor_bound(keys: list[float], HV: list[float], G: list[float], reach: float, curv_min: float) -> tuple[float, float]:
    """The least lower bound of h_C over the gaps between query angles (see ``solve``)
    as an upper bound on sd, and the angle to query next (in the gap that gives it)."""
    T = np.asarray(keys)
    H0 = np.asarray(HV)
    G0 = np.asarray(G)
    w = np.roll(T, -1) - T
    w[-1] += _TWO_PI
    lb, off = _tangent_lb(H0, G0, np.roll(H0, -1), np.roll(G0, -1), w, reach, curv_min)
    j = int(np.argmin(lb))
    t = float(T[j] + off[j])
    return t % _TWO_PI, -float(lb[j])


def _tangent_lb(
    ha: np.ndarray, ga: np.ndarray, hb: np.ndarray, gb: np.ndarray, w: np.ndarray, reach: np.ndarray, curv_min: float
) -> tuple[np.ndarray, np.ndarray]:
    """Lower bound of h_C over a gap of width w between two query angles with values
    ha, hb and slopes ga, gb (the end tangents bent down by K s^2/2, see ``solve``),
    and the offset into the gap where the two bent tangents cross (or w/2)."""
    K = np.maximum(0.0, np.maximum(ha, hb) + reach * w / 2.0 - curv_min)
    num = ha - hb + gb * w + K * w * w / 2.0
    den = ga - gb - K * w
    with np.errstate(divide="ignore", invalid="ignore"):
        sc = np.where(den != 0.0, -num / den, -1.0)
    ok = (sc > 0.0) & (sc < w)
    qc = np.where(ok, ha + ga * sc - K * sc * sc / 2.0, np.inf)
    return np.minimum(np.minimum(ha, hb), qc), np.where(ok, sc, w / 2.0)


def batch_overlap(
    theta: np.ndarray,
    H: np.ndarray,
    G: np.ndarray,
    zfun: Callable[[np.ndarray, np.ndarray], np.ndarray],
    reach: np.ndarray,
    curv_min: float,
    tol: float = CERT_TOL,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised certified sd = -min h_C for many rows from evenly spread query angles
    ``theta`` (g,) with h_C values H (n, g) and slopes G (n, g) per row. Every gap
    between neighbouring angles gets the bent-tangent lower bound of ``solve``; the
    gap with the least bound is refined at the crossing of its tangents (one support
    query per row and pass, ``zfun(U, rows)`` = the support point of C_row along U)
    while the others keep their bounds. Returns (value, lower, upper); a row whose
    bracket stays wider than tol (its least bound sits in a gap not refined, or it
    ran out of passes) goes to ``solve``."""
    n, g = H.shape
    w0 = _TWO_PI / g
    H1, G1 = np.roll(H, -1, axis=1), np.roll(G, -1, axis=1)
    R = reach[:, None]
    lb, _ = _tangent_lb(H, G, H1, G1, np.full_like(H, w0), R, curv_min)
    rows = np.arange(n)
    j = np.argmin(lb, axis=1)
    act = lb[rows, j].copy()
    lb[rows, j] = np.inf
    others = lb.min(axis=1)
    ta, wa = theta[j].copy(), np.full(n, w0)
    ha, ga = H[rows, j].copy(), G[rows, j].copy()
    hb, gb = H1[rows, j].copy(), G1[rows, j].copy()
    lower = -H.min(axis=1)
    upper = -np.minimum(act, others)
    live = np.flatnonzero((upper - lower > tol) & (act <= others))
    for _ in range(MAX_BISECT):
        if len(live) == 0:
            break
        _, sc = _tangent_lb(ha[live], ga[live], hb[live], gb[live], wa[live], reach[live], curv_min)
        sc = np.clip(sc, 1e-3 * wa[live], (1 - 1e-3) * wa[live])
        t = ta[live] + sc
        U = np.stack([np.cos(t), np.sin(t)], axis=-1)
        z = zfun(U, live)
        hc = np.einsum("ij,ij->i", U, z)
        gc = U[:, 0] * z[:, 1] - U[:, 1] * z[:, 0]
        lower[live] = np.maximum(lower[live], -hc)
        r = reach[live]
        lbl, _ = _tangent_lb(ha[live], ga[live], hc, gc, sc, r, curv_min)
        lbr, _ = _tangent_lb(hc, gc, hb[live], gb[live], wa[live] - sc, r, curv_min)
        left = lbl <= lbr
        others[live] = np.minimum(others[live], np.where(left, lbr, lbl))
        act_new = np.where(left, lbl, lbr)
        ta[live] = np.where(left, ta[live], t)
        wa[live] = np.where(left, sc, wa[live] - sc)
        hb[live] = np.where(left, hc, hb[live])
        gb[live] = np.where(left, gc, gb[live])
        ha[live] = np.where(left, ha[live], hc)
        ga[live] = np.where(left, ga[live], gc)
        upper[live] = np.minimum(upper[live], -np.minimum(act_new, others[live]))
        live = live[(upper[live] - lower[live] > tol) & (act_new <= others[live])]
    return (upper + lower) / 2.0, lower, upper


def batch_separated(
    theta0: np.ndarray,
    step: float,
    zfun: Callable[[np.ndarray, np.ndarray], np.ndarray],
    tol: float = CERT_TOL,
    stop: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised certified maximisation of phi for rows known to be separated.

    Row i has a direction theta0[i] with phi > 0 that is the best of a set of tried
    directions no two neighbours of which are more than ``step`` apart; then the
    maximiser lies within ``step`` of it (phi is concave on its positive arc: a
    maximiser farther out would make the neighbouring tried direction better).
    ``zfun(U, rows)`` gives, for each listed row, the point of its difference body
    C_row = B_row - A_row that is lowest along the unit direction U[k] (the support
    point of C_row in -U[k]), so phi(U) = U.z.

    A row whose best is not positive gets the same bisection as a local ascent: its
    lower bound is still proven (useful with ``stop``), its maximum is not.

    Returns (value, lower, upper, angle) per row: the bracket [lower, upper] on the
    signed distance and the best direction found. A row stops once
    ``upper - lower <= tol`` (or, with ``stop``, once ``lower >= stop``); a row that
    does not certify within ``MAX_BISECT`` halvings keeps its wider bracket (callers
    send those to ``solve``)."""
    theta0 = np.asarray(theta0, dtype=float)
    n = len(theta0)
    rows = np.arange(n)

    def ev(t: np.ndarray, r: np.ndarray) -> np.ndarray:
        return zfun(np.stack([np.cos(t), np.sin(t)], axis=-1), r)

    lo, hi, pos = theta0 - step, theta0 + step, theta0.copy()
    z_pos, z_lo, z_hi = ev(pos, rows), ev(lo, rows), ev(hi, rows)
    lower = np.cos(pos) * z_pos[:, 0] + np.sin(pos) * z_pos[:, 1]
    upper = np.minimum(np.hypot(z_pos[:, 0], z_pos[:, 1]), _seg_origin(z_lo, z_hi))
    done = upper - lower <= tol
    if stop is not None:
        done |= lower >= stop
    live = np.flatnonzero(~done)
    for _ in range(MAX_BISECT):
        if len(live) == 0:
            break
        mid = 0.5 * (lo[live] + hi[live])
        Um = np.stack([np.cos(mid), np.sin(mid)], axis=-1)
        z = zfun(Um, live)
        f = np.einsum("ij,ij->i", Um, z)
        slope = Um[:, 0] * z[:, 1] - Um[:, 1] * z[:, 0]  # a supergradient of phi at mid
        # rows not known apart: plain ascent on the supergradient (a local maximum; the
        # bounds stay valid, and a row left uncertified goes to ``solve``)
        on_arc = (f > 0.0) | (lower[live] <= 0.0)
        # off the positive arc, the maximiser is on the side of the known positive angle
        go_up = np.where(on_arc, slope > 0.0, mid < pos[live])
        flat = on_arc & (slope == 0.0)  # mid is the maximiser
        take_lo = go_up | flat  # the bracket becomes [mid, hi] (or [mid, mid])
        take_hi = ~go_up | flat  # the bracket becomes [lo, mid]
        lo[live] = np.where(take_lo, mid, lo[live])
        hi[live] = np.where(take_hi, mid, hi[live])
        zl = np.where(take_lo[:, None], z, z_lo[live])
        zh = np.where(take_hi[:, None], z, z_hi[live])
        z_lo[live], z_hi[live] = zl, zh
        better = f > lower[live]
        lower[live] = np.where(better, f, lower[live])
        pos[live] = np.where(better & on_arc, mid, pos[live])
        ub = np.minimum(np.hypot(z[:, 0], z[:, 1]), _seg_origin(zl, zh))
        upper[live] = np.minimum(upper[live], ub)
        keep = upper[live] - lower[live] > tol
        if stop is not None:
            keep &= lower[live] < stop
        live = live[keep]
    return (upper + lower) / 2.0, lower, upper, pos


def _seg_origin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from the origin to each segment [a[i], b[i]]."""
    e = b - a
    L2 = np.einsum("ij,ij->i", e, e)
    t = np.clip(-np.einsum("ij,ij->i", a, e) / np.where(L2 > 0, L2, 1.0), 0.0, 1.0)
    c = a + t[:, None] * e
    return np.hypot(c[:, 0], c[:, 1])
