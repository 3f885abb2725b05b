"""Exact sweeps of a polygon *turning* about a pivot (no rules here).

Any overlap during the turn starts and ends at an instant where a vertex of one shape
meets an edge of the other. Those instants are intersections of a vertex's circle with
an edge (closed form), so the overlap state is tested exactly between consecutive
instants; when there is no overlap the least gap during the turn is the least distance
between a vertex's arc and an edge (closed form). ``rot_sweep_gap_v`` is the same test
with the arc-edge work in arrays.
"""

from __future__ import annotations

import math

import numpy as np

from ...geometry.shapes import TOL
from .geom import TWO_PI, Shape, gap, point_seg_dist, poly_gap, rot2


def _norm_ang(a: float) -> float:
    a = math.fmod(a, TWO_PI)
    return a + TWO_PI if a < 0 else a


def _in_sweep(gamma: float, beta0: float, delta: float) -> float | None:
    """The turn t in [0, |delta|] (as a signed turn) at which a point starting at
    angle beta0 and turning by delta reaches angle gamma, or None."""
    if delta >= 0:
        t = _norm_ang(gamma - beta0)
        if t <= delta + 1e-15:
            return t
        if t >= TWO_PI - 1e-12:  # numerically zero
            return 0.0
        return None
    t = _norm_ang(beta0 - gamma)
    if t <= -delta + 1e-15:
        return -t
    if t >= TWO_PI - 1e-12:
        return 0.0
    return None


def arc_seg_dist(c: np.ndarray, rho: float, beta0: float, delta: float, a: np.ndarray, b: np.ndarray) -> float:
    """Least distance between the arc (centre c, radius rho, from angle beta0 turning by
    delta radians) and the segment a-b."""
    p0 = c + rho * np.array([math.cos(beta0), math.sin(beta0)])
    p1 = c + rho * np.array([math.cos(beta0 + delta), math.sin(beta0 + delta)])
    best = min(point_seg_dist(p0, a, b), point_seg_dist(p1, a, b))
    if rho == 0:
        return best
    # segment ends against the arc interior
    for q in (a, b):
        v = q - c
        g = math.atan2(float(v[1]), float(v[0]))
        if _in_sweep(g, beta0, delta) is not None:
            best = min(best, abs(float(np.hypot(*v)) - rho))
    # the segment's line against the circle
    ab = b - a
    L2 = float(ab @ ab)
    if L2 > 0:
        t = float((c - a) @ ab) / L2
        foot = a + t * ab
        h = float(np.hypot(*(foot - c)))
        if h >= rho:
            if 0 <= t <= 1 and h > 0:
                g = math.atan2(float(foot[1] - c[1]), float(foot[0] - c[0]))
                if _in_sweep(g, beta0, delta) is not None:
                    best = min(best, h - rho)
        else:
            half = math.sqrt(max(0.0, rho * rho - h * h)) / math.sqrt(L2)
            for tt in (t - half, t + half):
                if 0 <= tt <= 1:
                    q = a + tt * ab
                    g = math.atan2(float(q[1] - c[1]), float(q[0] - c[0]))
                    if _in_sweep(g, beta0, delta) is not None:
                        return 0.0
    return best


def _arc_events(c: np.ndarray, rho: float, beta0: float, delta: float, a: np.ndarray, b: np.ndarray) -> list[float]:
    """Turns (signed, within [0, delta]) at which the arc meets the segment."""
    out: list[float] = []
    ab = b - a
    L2 = float(ab @ ab)
    if L2 == 0 or rho == 0:
        return out
    t = float((c - a) @ ab) / L2
    foot = a + t * ab
    h = float(np.hypot(*(foot - c)))
    if h > rho + 1e-12:
        return out
    half = math.sqrt(max(0.0, rho * rho - h * h)) / math.sqrt(L2)
    for tt in (t - half, t + half):
        if -1e-12 <= tt <= 1 + 1e-12:
            q = a + tt * ab
            g = math.atan2(float(q[1] - c[1]), float(q[0] - c[0]))
            s = _in_sweep(g, beta0, delta)
            if s is not None:
                out.append(s)
    return out


def _rot_pts(P: np.ndarray, pivot: np.ndarray, ang: float) -> np.ndarray:
    return (P - pivot) @ rot2(ang).T + pivot


def rot_pts(P: np.ndarray, pivot: np.ndarray, ang: float) -> np.ndarray:
    """Points turned about ``pivot`` by ``ang`` radians."""
    return _rot_pts(P, pivot, ang)


def rot_sweep_gap(A: Shape, pivot: np.ndarray, delta: float, B: Shape) -> float:
    """Least signed distance between ``A`` turning about ``pivot`` by ``delta`` radians
    (counter-clockwise when positive) and the fixed ``B``; negative when they overlap at
    some moment of the turn."""
    assert A.kind == "poly" and A.V is not None
    g0 = gap(A, B)
    if g0 < -TOL or delta == 0:
        return g0
    P = A.V
    Pe = list(zip(P, np.roll(P, -1, axis=0), strict=True))
    events: list[float] = [0.0, delta]
    arcs_P: list[tuple[float, float]] = []  # (rho, beta) of A's vertices
    for v in P:
        w = v - pivot
        arcs_P.append((float(np.hypot(*w)), math.atan2(float(w[1]), float(w[0]))))
    if B.kind == "poly":
        assert B.V is not None
        Q = B.V
        Qe = list(zip(Q, np.roll(Q, -1, axis=0), strict=True))
        arcs_Q = []
        for q in Q:
            w = q - pivot
            arcs_Q.append((float(np.hypot(*w)), math.atan2(float(w[1]), float(w[0]))))
        for rho, beta in arcs_P:
            for a, b in Qe:
                events += _arc_events(pivot, rho, beta, delta, a, b)
        for rho, beta in arcs_Q:  # B seen from A's frame turns the other way
            for a, b in Pe:
                events += [-e for e in _arc_events(pivot, rho, beta, -delta, a, b)]
    else:
        assert B.a is not None and B.b is not None
        # B is a capsule; in A's frame its segment turns by -delta. Contacts begin when
        # an end of B's segment meets an edge of A offset by r, or a vertex of A meets B.
        for q in (B.a, B.b):
            w = q - pivot
            rho, beta = float(np.hypot(*w)), math.atan2(float(w[1]), float(w[0]))
            for a, b in Pe:
                n = np.array([b[1] - a[1], -(b[0] - a[0])])
                ln = float(np.hypot(*n))
                if ln == 0:
                    continue
                n = n / ln
                events += [-e for e in _arc_events(pivot, rho, beta, -delta, a + n * B.r, b + n * B.r)]
            for v in P:  # rounded corners: circle of radius r about each vertex
                events += _circle_events(pivot, rho, beta, -delta, v, B.r, negate=True)
        if not B.is_disc:
            for rho, beta in arcs_P:
                events += _arc_events(pivot, rho, beta, delta, B.a, B.b)
    ev = sorted(set(events), key=lambda e: abs(e))
    # overlap state is constant between consecutive events: test each gap's middle
    # (the deepest shallow overlap is kept: see ``rot_sweep_gap_v``)
    gmid = math.inf
    for e0, e1 in zip(ev, ev[1:], strict=False):
        mid = (e0 + e1) / 2
        g = gap(Shape("poly", V=_rot_pts(P, pivot, mid)), B)
        if g < -TOL:
            return g
        gmid = min(gmid, g)
    gend = gap(Shape("poly", V=_rot_pts(P, pivot, delta)), B)
    if gend < -TOL:
        return gend
    # no overlap: least distance over the turn (vertex arcs against edges)
    best = min(g0, gend, gmid if gmid < 0 else math.inf)
    if B.kind == "poly":
        assert B.V is not None
        for rho, beta in arcs_P:
            for a, b in Qe:
                best = min(best, arc_seg_dist(pivot, rho, beta, delta, a, b))
        for rho, beta in arcs_Q:
            for a, b in Pe:
                best = min(best, arc_seg_dist(pivot, rho, beta, -delta, a, b))
    else:
        assert B.a is not None and B.b is not None
        for q in (B.a, B.b):
            w = q - pivot
            rho, beta = float(np.hypot(*w)), math.atan2(float(w[1]), float(w[0]))
            for a, b in Pe:
                best = min(best, arc_seg_dist(pivot, rho, beta, -delta, a, b) - B.r)
        if not B.is_disc:
            for rho, beta in arcs_P:
                best = min(best, arc_seg_dist(pivot, rho, beta, delta, B.a, B.b) - B.r)
    return best


def _circle_events(c: np.ndarray, rho: float, beta0: float, delta: float, v: np.ndarray, r: float, negate: bool) -> list[float]:
    """Turns at which a point on the arc comes at distance exactly r from v."""
    out: list[float] = []
    if r <= 0 or rho == 0:
        return out
    w = v - c
    dv = float(np.hypot(*w))
    if dv == 0:
        return out
    # |c + rho u - v| = r  ->  cos(angle(u) - angle(w)) = (rho^2 + dv^2 - r^2) / (2 rho dv)
    k = (rho * rho + dv * dv - r * r) / (2 * rho * dv)
    if abs(k) > 1:
        return out
    base = math.atan2(float(w[1]), float(w[0]))
    for g in (base + math.acos(k), base - math.acos(k)):
        s = _in_sweep(g, beta0, delta)
        if s is not None:
            out.append(-s if negate else s)
    return out


def rot_sweep_extent(A: Shape, pivot: np.ndarray, delta: float) -> tuple[float, float, float, float]:
    """Bounding box (xmin, ymin, xmax, ymax) of the region A covers while turning."""
    assert A.kind == "poly" and A.V is not None
    xs: list[float] = []
    ys: list[float] = []
    for v in A.V:
        w = v - pivot
        rho = float(np.hypot(*w))
        beta = math.atan2(float(w[1]), float(w[0]))
        for t in (0.0, delta):
            xs.append(float(pivot[0] + rho * math.cos(beta + t)))
            ys.append(float(pivot[1] + rho * math.sin(beta + t)))
        for g in (0.0, math.pi / 2, math.pi, 3 * math.pi / 2):
            if _in_sweep(g, beta, delta) is not None:
                xs.append(float(pivot[0] + rho * math.cos(g)))
                ys.append(float(pivot[1] + rho * math.sin(g)))
    return min(xs), min(ys), max(xs), max(ys)


def first_contact_turn(A: Shape, pivot: np.ndarray, delta: float, B: Shape, min_gap: float) -> float:
    """The largest turn t (same sign as delta, |t| <= |delta|) such that turning A by any
    amount in [0, t] keeps it at least ``min_gap`` from B (bisection on the exact
    sweep test, to 1e-10 radians)."""
    if rot_sweep_gap(A, pivot, delta, B) >= min_gap - TOL:
        return delta
    lo, hi = 0.0, delta
    for _ in range(60):
        mid = (lo + hi) / 2
        if rot_sweep_gap(A, pivot, mid, B) >= min_gap - TOL:
            lo = mid
        else:
            hi = mid
        if abs(hi - lo) < 1e-10:
            break
    return lo


# ----------------------------------------------------------------------------- vectorised turn


def _in_sweep_v(g: np.ndarray, b0: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """(inside?, signed turn) for angles g reached from starting angles b0."""
    if delta >= 0:
        t = np.mod(g - b0, TWO_PI)
        wrapz = t >= TWO_PI - 1e-12
        t = np.where(wrapz, 0.0, t)
        return t <= delta + 1e-15, t
    t = np.mod(b0 - g, TWO_PI)
    wrapz = t >= TWO_PI - 1e-12
    t = np.where(wrapz, 0.0, t)
    return t <= -delta + 1e-15, -t


def _arcs_vs_edges(c: np.ndarray, V: np.ndarray, delta: float, A: np.ndarray, B: np.ndarray
                   ) -> tuple[np.ndarray, float]:
    """Vertices V turning about c by delta against edges A->B: (event turns where an
    arc meets an edge, least arc-edge distance)."""
    W = V - c
    rho = np.hypot(W[:, 0], W[:, 1])  # (n,)
    beta = np.arctan2(W[:, 1], W[:, 0])
    # arc ends against the edges
    ca, sa = math.cos(delta), math.sin(delta)
    V1 = np.stack([W[:, 0] * ca - W[:, 1] * sa, W[:, 0] * sa + W[:, 1] * ca], axis=1) + c
    E = B - A  # (m,2)
    L2 = np.einsum("ij,ij->i", E, E)
    L2s = np.where(L2 == 0, 1.0, L2)

    def pseg(P: np.ndarray) -> np.ndarray:  # (k,2) -> (k,m)
        AP = P[:, None, :] - A[None, :, :]
        t = np.clip(np.einsum("kmj,mj->km", AP, E) / L2s, 0.0, 1.0)
        d = AP - t[..., None] * E[None]
        return np.hypot(d[..., 0], d[..., 1])

    best = float(min(pseg(V).min(), pseg(V1).min()))
    # edge ends against the arc interiors
    for Q in (A,):
        Wq = Q - c
        dq = np.hypot(Wq[:, 0], Wq[:, 1])  # (m,)
        gq = np.arctan2(Wq[:, 1], Wq[:, 0])
        inside, _ = _in_sweep_v(gq[None, :], beta[:, None], delta)  # (n,m)
        dd = np.abs(dq[None, :] - rho[:, None])
        if np.any(inside):
            best = min(best, float(dd[inside].min()))
    # the edges' lines against the circles
    tf = np.einsum("mj,mj->m", c[None, :] - A, E) / L2s  # (m,)
    foot = A + tf[:, None] * E
    hv = foot - c
    h = np.hypot(hv[:, 0], hv[:, 1])  # (m,)
    gf = np.arctan2(hv[:, 1], hv[:, 0])
    okf = (tf >= 0) & (tf <= 1) & (h > 0)
    ins, _ = _in_sweep_v(gf[None, :], beta[:, None], delta)  # (n,m)
    outside = h[None, :] >= rho[:, None]
    cand = np.where(ins & okf[None, :] & outside, h[None, :] - rho[:, None], np.inf)
    best = min(best, float(cand.min()))
    # crossings of circles with the edges
    with np.errstate(invalid="ignore"):
        half = np.sqrt(np.maximum(0.0, rho[:, None] ** 2 - h[None, :] ** 2)) / np.sqrt(L2s)[None, :]
    events: list[float] = []
    cross = (h[None, :] <= rho[:, None] + 1e-12) & (L2[None, :] > 0) & (rho[:, None] > 0)
    for sgn in (-1.0, 1.0):
        tt = tf[None, :] + sgn * half  # (n,m)
        onseg = (tt >= -1e-12) & (tt <= 1 + 1e-12) & cross
        if not np.any(onseg):
            continue
        q = A[None, :, :] + tt[..., None] * E[None, :, :]
        g = np.arctan2(q[..., 1] - c[1], q[..., 0] - c[0])
        ins2, turn = _in_sweep_v(g, beta[:, None], delta)
        hit = onseg & ins2
        if np.any(hit):
            events += turn[hit].tolist()
            best = 0.0
    return np.asarray(events), best


def rot_sweep_gap_v(A: Shape, pivot: np.ndarray, delta: float, B: Shape) -> float:
    """Vectorised :func:`rot_sweep_gap` (polygon B; capsules fall back)."""
    if B.kind != "poly" or A.kind != "poly":
        return rot_sweep_gap(A, pivot, delta, B)
    assert A.V is not None and B.V is not None
    g0 = poly_gap(A.V, B.V)
    if g0 < -TOL or delta == 0:
        return g0
    P, Q = A.V, B.V
    Pn, Qn = np.concatenate([P[1:], P[:1]]), np.concatenate([Q[1:], Q[:1]])
    ev1, d1 = _arcs_vs_edges(pivot, P, delta, Q, Qn)
    ev2, d2 = _arcs_vs_edges(pivot, Q, -delta, P, Pn)
    events = sorted(set([0.0, delta] + ev1.tolist() + [-e for e in ev2.tolist()]), key=abs)
    # the deepest overlap found at a piece's middle, kept even when shallower than TOL:
    # the arc distances below are unsigned, so without it a turn that dips into B by
    # less than TOL would read as a gap of about 0, and a caller asking for less
    # overlap than TOL (``charge.search_obstacles``) could not tell
    gmid = math.inf
    for e0, e1 in zip(events, events[1:], strict=False):
        mid = (e0 + e1) / 2
        g = poly_gap(_rot_pts(P, pivot, mid), Q)
        if g < -TOL:
            return g
        gmid = min(gmid, g)
    gend = poly_gap(_rot_pts(P, pivot, delta), Q)
    if gend < -TOL:
        return gend
    return min(g0, gend, d1, d2, gmid if gmid < 0 else math.inf)
