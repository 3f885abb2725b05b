"""Certified signed distance between two smooth convex parts, one point at a time.

A *smooth part* here is an ellipse grown by a disc (``Ellipse``, ``Disc``, or a
``Sum`` of one ellipse and discs): its support function in direction
u(t) = (cos t, sin t) is

    h(t) = u.c + n(t) + r,   n(t) = sqrt(a^2 (u.e1)^2 + b^2 (u.e2)^2)

(e1, e2 the axes; a = b = 0 for a disc), and its radius of curvature at normal t is
rho(t) = a^2 b^2 / n^3 + r. For A moved by p and B, the difference body C = B - (A + p)
has h_C(t) = d.u + n_A(t) + n_B(t) + r_A + r_B with d = c_B - c_A - p (both n are
even in u), and

    sd(A + p, B) = -min over t of h_C(t),    h_C'' = rho_A + rho_B - h_C

(the gap when apart, minus the penetration depth when overlapping). So the distance
is the minimum of one smooth periodic function whose value, slope and second
derivative are all closed forms; Newton's method finds it in a few steps. What makes
the answer *certified* (as in ``convex_distance``) is a pair of proven bounds:

* LOWER bound on sd: -h_C(t) for any t (any direction's support gap).
* UPPER bound on sd: a lower bound on h_C over the whole circle. Between two angles
  t_a < t_b where h_C is known with slopes g_a, g_b, h_C'' >= -K (``Pair.bend``: term
  by term, from how fast d.u and each ellipse's n can move across the gap), so h_C
  lies above both end tangents bent down by K s^2 / 2; the least of these over every
  gap bounds min h_C from below.

Apart (the minimum is negative) no global sampling is needed: where h_C < 0 it is
strictly convex (h_C'' = rho - h_C > 0), and the directions where it is negative form
one arc shorter than a half turn, so a local minimum with a negative value is the
global one. Two angles either side of Newton's root with negative values and slopes
of opposite signs then prove it: the tangent lines there bound h_C below on the
bracket, and outside it h_C only grows (convexity on the arc, h_C >= 0 off it).
Otherwise (overlapping or nearly touching, where h_C may have several local minima)
the circle is sampled at ``SAMPLES`` angles, every gap gets the bent-tangent bound,
and the gap holding the least bound is refined by Newton (safeguarded inside it)
until the bounds are within ``tol``. A solve that does not certify within its caps
returns None, and the caller uses the general solver (``convex_distance.solve``).

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

#: certificate width (unit of the scenario): the same as the general solver's
CERT_TOL = 1e-9
#: even sample angles of the global bound (overlapping or nearly touching)
SAMPLES = 12
#: Newton steps of the apart fast path before it gives up
NEWTON_STEPS = 30
#: a Newton step this small ends the iteration (the next one would be ~1e-20 rad)
NEWTON_DONE = 1e-10
#: gap refinements of the global path before it gives up (the caller then solves)
MAX_REFINE = 200

_TWO_PI = 2.0 * math.pi


class Smooth(NamedTuple):
    """An ellipse (a, b along the unit axis (ct, st)) grown by r, centred at (cx, cy)."""

    cx: float
    cy: float
    a: float
    b: float
    ct: float
    st: float
    r: float

    @property
    def rho_min(self) -> float:
        return (min(self.a, self.b) ** 2 / max(self.a, self.b) if self.a > 0.0 and self.b > 0.0 else 0.0) + self.r


class Pair:
    """The fixed data of one part pair (A to be moved by p, B fixed): everything of
    h_C but the translation, so each point costs only its own evaluations."""

    def __init__(self, A: Smooth, B: Smooth) -> None:
        self.A, self.B = A, B
        self.r = A.r + B.r
        self.rho_min = A.rho_min + B.rho_min
        # perf: the ellipse terms as (a^2, b^2, axis); a disc contributes only to r
        self.ells = [(e.a * e.a, e.b * e.b, e.ct, e.st) for e in (A, B) if e.a > 0.0]
        self.bends = [(max(e.a, e.b), (e.a * e.b) ** 2) for e in (A, B) if e.a > 0.0]
        self.dcx, self.dcy = B.cx - A.cx, B.cy - A.cy

    def eval(self, dx: float, dy: float, t: float) -> tuple[float, float, float]:
        """h_C, h_C' and h_C'' at angle t for d = (dx, dy)."""
        h, g, h2, _ = self.eval_n(dx, dy, t)
        return h, g, h2

    def eval_many(self, dx: np.ndarray, dy: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``eval`` for arrays of rows (same formulas)."""
        c, s = np.cos(t), np.sin(t)
        h = dx * c + dy * s + self.r
        g = dy * c - dx * s
        rho = np.full(len(t), self.r)
        for a2, b2, ct, st in self.ells:
            uc = c * ct + s * st
            us = s * ct - c * st
            n = np.sqrt(a2 * uc * uc + b2 * us * us)
            h = h + n
            g = g + (b2 - a2) * uc * us / n
            rho = rho + a2 * b2 / (n * n * n)
        return h, g, rho - h

    def eval_n(self, dx: float, dy: float, t: float) -> tuple[float, float, float, tuple[float, ...]]:
        """``eval`` and the terms of h_C at t: (d.u, n(t) of each ellipse) (for
        ``bend``)."""
        c, s = math.cos(t), math.sin(t)
        du = dx * c + dy * s
        h = du + self.r
        g = dy * c - dx * s
        rho = self.r
        terms = [du]
        for a2, b2, ct, st in self.ells:
            uc = c * ct + s * st
            us = s * ct - c * st
            n = math.sqrt(a2 * uc * uc + b2 * us * us)
            terms.append(n)
            h += n
            g += (b2 - a2) * uc * us / n
            rho += a2 * b2 / (n * n * n)
        return h, g, rho - h, tuple(terms)

    def bend(self, ta: tuple[float, ...], tb: tuple[float, ...], w: float, nd: float) -> float:
        """K >= 0 with h_C'' >= -K on a gap of width w whose ends have the terms ta, tb
        (``eval_n``), for |d| = nd. Term by term, h_C'' = -(d.u) + sum of n'' (a
        disc's r contributes nothing): d.u moves no faster than |d|, so on the gap
        d.u <= max of its end values + |d| w / 2; an ellipse term moves no faster than
        its major semi-axis (|n'| = |u x q| <= |q|), so n <= n_max = max(n_a, n_b) +
        a w / 2 there, and -n'' = n - a^2 b^2 / n^3 <= n_max - a^2 b^2 / n_max^3."""
        x, y = ta[0], tb[0]
        k = (x if x > y else y) + nd * w / 2.0
        for i, (amax, a2b2) in enumerate(self.bends, 1):
            x, y = ta[i], tb[i]
            n = (x if x > y else y) + amax * w / 2.0
            k += n - a2b2 / (n * n * n)
        return k if k > 0.0 else 0.0


def _gap_lb(ha: float, ga: float, hb: float, gb: float, w: float, K: float) -> tuple[float, float]:
    """The bent-tangent lower bound of h_C over a gap of width w where h_C'' >= -K
    (K >= 0; see the module text), and the offset into the gap where the two bent
    tangents cross (or w / 2)."""
    num = ha - hb + gb * w + K * w * w / 2.0
    den = ga - gb - K * w
    lb = min(ha, hb)
    if den != 0.0:
        sc = -num / den
        if 0.0 < sc < w:
            return min(lb, ha + ga * sc - K * sc * sc / 2.0), sc
    return lb, w / 2.0


def sd_certified(pair: Pair, px: float, py: float, tol: float = CERT_TOL) -> tuple[float, float, float] | None:
    """Certified sd(A + p, B) as (value, lower, upper) with upper - lower <= tol (the
    value is the bracket's middle), or None when the caps are reached."""
    dx, dy = pair.dcx - px, pair.dcy - py
    nd = math.hypot(dx, dy)
    t0 = math.atan2(-dy, -dx) if nd > 0.0 else 0.0  # the centres' direction
    got, seed = _apart(pair, dx, dy, t0, tol)
    if got is not None:
        return got
    return _global(pair, dx, dy, t0, nd, tol, seed)


def apart_many(pair: Pair, px: np.ndarray, py: np.ndarray, tol: float = CERT_TOL) -> tuple[np.ndarray, np.ndarray]:
    """``_apart`` for many translations at once (the same steps, row by row, as
    arrays): returns (value, ok); rows not ok were not certified this way (the caller
    sends them to ``sd_certified``). perf: the root finder's first pass samples a
    curve at 65 angles in one call."""
    dx, dy = pair.dcx - px, pair.dcy - py
    n = len(dx)
    t = np.arctan2(-dy, -dx)
    fail = np.zeros(n, dtype=bool)
    live = np.arange(n)
    for _ in range(NEWTON_STEPS):
        if not len(live):
            break
        _, g, h2 = pair.eval_many(dx[live], dy[live], t[live])
        bad = h2 <= 0.0
        fail[live[bad]] = True
        step = np.clip(g / np.where(bad, 1.0, h2), -0.5, 0.5)
        t[live] -= np.where(bad, 0.0, step)
        live = live[~bad & (np.abs(step) > NEWTON_DONE)]
    h, g, h2 = pair.eval_many(dx, dy, t)
    fail |= (h >= 0.0) | (h2 <= 0.0)
    val = np.zeros(n)
    ok = np.zeros(n, dtype=bool)
    delta = 0.25 * np.sqrt(tol / np.where(fail, 1.0, h2))
    for _ in range(3):
        live = np.flatnonzero(~fail & ~ok)
        if not len(live):
            break
        tl, dl = t[live], delta[live]
        ha, ga, _ = pair.eval_many(dx[live], dy[live], tl - dl)
        hb, gb, _ = pair.eval_many(dx[live], dy[live], tl + dl)
        w = 2.0 * dl
        den = ga - gb
        with np.errstate(divide="ignore", invalid="ignore"):
            sc = np.where(den != 0.0, -(ha - hb + gb * w) / den, -1.0)
        inside = (sc > 0.0) & (sc < w)
        lb = np.minimum(np.minimum(ha, hb), np.where(inside, ha + ga * sc, np.inf))  # convex: K = 0
        hmin = np.minimum(h[live], np.minimum(ha, hb))
        good = (ha < 0.0) & (hb < 0.0) & (ga < 0.0) & (gb > 0.0) & (hmin - lb <= tol)
        k = live[good]
        val[k] = (-hmin[good] - lb[good]) / 2.0
        ok[k] = True
        delta[live] *= 4.0
    return val, ok


def _apart(pair: Pair, dx: float, dy: float, t: float, tol: float) -> tuple[tuple[float, float, float] | None, float | None]:
    """The fast path when the parts are apart: Newton from the centre direction, then
    the two-sided certificate of the module text. Returns (result, None), or (None,
    seed) when it does not hold: seed is the local minimum Newton converged to (for
    the sampled path to start from), or None."""
    ev = pair.eval
    for _ in range(NEWTON_STEPS):
        h, g, h2 = ev(dx, dy, t)
        if h2 <= 0.0:
            return None, None  # not on an arc where h_C is convex
        step = g / h2
        if step > 0.5:
            step = 0.5
        elif step < -0.5:
            step = -0.5
        t -= step
        if abs(step) <= NEWTON_DONE:
            break
    h, g, h2 = ev(dx, dy, t)
    if h2 <= 0.0:
        return None, None
    if h >= 0.0:
        return None, t  # a local minimum, not negative: overlapping or touching
    # two angles either side, near enough that the tangent lines certify tol
    delta = 0.25 * math.sqrt(tol / h2)
    for _ in range(3):
        ha, ga, _ = ev(dx, dy, t - delta)
        hb, gb, _ = ev(dx, dy, t + delta)
        if ha < 0.0 and hb < 0.0 and ga < 0.0 < gb:
            lb, _ = _gap_lb(ha, ga, hb, gb, 2.0 * delta, 0.0)  # convex: K = 0
            hmin = min(h, ha, hb)
            if hmin - lb <= tol:
                return ((-hmin - lb) / 2.0, -hmin, -lb), None
        delta *= 4.0  # Newton's root is off by more than delta: widen once or twice
    return None, None


def _global(pair: Pair, dx: float, dy: float, t0: float, nd: float, tol: float,
            seed: float | None = None) -> tuple[float, float, float] | None:
    """The sampled path: bent-tangent bounds on every gap, the least one refined.
    ``seed``: a local minimum already found; the samples start there, with one angle
    just either side of it (as after a refinement)."""
    ev = pair.eval_n
    bend = pair.bend
    w0 = _TWO_PI / SAMPLES
    if seed is None:
        T = [t0 + i * w0 for i in range(SAMPLES)]
    else:
        h, _, h2, _ = ev(dx, dy, seed)
        delta = 0.25 * math.sqrt(tol / max(abs(h2) + 2.0 * max(0.0, h - pair.rho_min), 1e-300))
        T = [seed, seed + delta] + [seed + i * w0 for i in range(1, SAMPLES)] + [seed + _TWO_PI - delta]
    H: list[float] = []
    G: list[float] = []
    NS: list[tuple[float, ...]] = []
    for t in T:
        h, g, _, ns = ev(dx, dy, t)
        H.append(h)
        G.append(g)
        NS.append(ns)
    n = len(T)
    LB = []
    for j in range(n):
        k = (j + 1) % n
        w = (T[k] if k else T[0] + _TWO_PI) - T[j]
        LB.append(_gap_lb(H[j], G[j], H[k], G[k], w, bend(NS[j], NS[k], w, nd))[0])
    hmin = min(H)
    for _ in range(MAX_REFINE):
        lbmin = min(LB)
        if hmin - lbmin <= tol:
            return (-hmin - lbmin) / 2.0, -hmin, -lbmin
        j = LB.index(lbmin)
        k = (j + 1) % len(T)
        ta = T[j]
        tb = T[k] if k else T[0] + _TWO_PI
        w = tb - ta
        ha, ga, hb, gb = H[j], G[j], H[k], G[k]
        K = bend(NS[j], NS[k], w, nd)
        new: list[float] = []
        if ga < 0.0 < gb:
            # a local minimum inside: Newton on h_C', kept inside the shrinking bracket
            lo, hi = ta, tb
            t = ta + _gap_lb(ha, ga, hb, gb, w, K)[1]
            for _ in range(NEWTON_STEPS):
                h, g, h2, _ = ev(dx, dy, t)
                if g < 0.0:
                    lo = t
                elif g > 0.0:
                    hi = t
                else:
                    break
                tn = t - g / h2 if h2 > 0.0 else 0.5 * (lo + hi)
                if not lo < tn < hi:
                    tn = 0.5 * (lo + hi)
                if abs(tn - t) <= 1e-15 * (1.0 + abs(t)) or hi - lo <= 1e-15 * (1.0 + abs(t)):
                    t = tn
                    break
                t = tn
            h, g, h2, _ = ev(dx, dy, t)
            delta = 0.25 * math.sqrt(tol / max(abs(h2) + 2.0 * max(0.0, h - pair.rho_min), 1e-300))
            new = [x for x in (t - delta, t, t + delta) if ta < x < tb]
        if not new:
            # no minimum proven inside (or it sits at an end): split at the crossing
            # of the bent tangents (a Newton-like step from both ends)
            sc = _gap_lb(ha, ga, hb, gb, w, K)[1]
            sc = min(max(sc, 1e-3 * w), (1.0 - 1e-3) * w)
            new = [ta + sc]
        pts = [(ta, ha, ga, NS[j])]
        for x in new:
            h, g, _, ns = ev(dx, dy, x)
            pts.append((x, h, g, ns))
            hmin = min(hmin, h)
        pts.append((tb, hb, gb, NS[k]))
        lbs = [_gap_lb(p[1], p[2], q[1], q[2], q[0] - p[0], bend(p[3], q[3], q[0] - p[0], nd))[0]
               for p, q in zip(pts, pts[1:], strict=False)]
        # splice the new angles in after T[j] (and the new gaps in place of gap j)
        T[j + 1:j + 1] = [p[0] for p in pts[1:-1]]
        H[j + 1:j + 1] = [p[1] for p in pts[1:-1]]
        G[j + 1:j + 1] = [p[2] for p in pts[1:-1]]
        NS[j + 1:j + 1] = [p[3] for p in pts[1:-1]]
        LB[j:j + 1] = lbs
    return None


__all__ = ["CERT_TOL", "Pair", "Smooth", "apart_many", "sd_certified"]
