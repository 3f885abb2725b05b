"""Signed distance from points to an ellipse (a closed form up to one scalar root).

For a point (y0, y1) in the ellipse's frame (first quadrant by symmetry, e0 >= e1 the
semi-axes) the nearest boundary point is x = (r0 y0 / (s + r0 - 1), y1 / s), with
r0 = (e0 / e1)^2 and s the root of a convex decreasing function (Eberly, "Distance from
a point to an ellipse"), bracketed and solved by Newton's method; points on an axis
take closed forms. Many points are solved as arrays (the same steps row by row).

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math

import numpy as np

#: from this many points on, ``ellipse_point_signed_distance`` solves them as arrays
MANY_POINTS = 8


def ellipse_point_signed_distance(a: float, b: float, loc: np.ndarray) -> np.ndarray:
    """Signed distance from points given in the ellipse frame to the ellipse
    x^2/a^2 + y^2/b^2 = 1 (negative inside), by the robust bracketed root solve of
    Eberly ("Distance from a point to an ellipse"), vectorised, to ~1e-12."""
    loc = np.atleast_2d(loc)
    x = np.abs(loc[:, 0])
    y = np.abs(loc[:, 1])
    swap = b > a
    if swap:
        a, b = b, a
        x, y = y, x
    out = np.empty(len(x))
    todo = np.arange(len(x))
    if len(x) >= MANY_POINTS:
        done = _eberly_many(a, b, x, y, out)
        todo = np.flatnonzero(~done)
    for i in todo.tolist():
        d, inside = _eberly(a, b, float(x[i]), float(y[i]))
        out[i] = -d if inside else d
    return out


def _eberly_many(e0: float, e1: float, y0: np.ndarray, y1: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``_eberly`` for the points off both axes (its root solve), as arrays: the same
    Newton steps row by row, each row stopping where the scalar one would. Writes the
    signed distance into ``out`` and returns the rows done (the others: ``_eberly``)."""
    z0, z1 = y0 / e0, y1 / e1
    g = z0 * z0 + z1 * z1 - 1.0
    done = (y1 > e1 * 1e-12) & (y0 > 0) & (g != 0.0)
    rows = np.flatnonzero(done)
    if not len(rows):
        return done
    r0 = (e0 / e1) ** 2
    rm1 = (e0 - e1) * (e0 + e1) / (e1 * e1)
    n0 = r0 * z0[rows]
    zz = z1[rows]
    s = zz.copy()
    s1 = np.where(g[rows] < 0, 1.0, np.hypot(n0, zz))
    live = np.arange(len(rows))
    for _ in range(100):
        if not len(live):
            break
        sl, nl, zl = s[live], n0[live], zz[live]
        p, q = nl / (sl + rm1), zl / sl
        G = p * p + q * q - 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            sn = sl + G / (2.0 * (p * p / (sl + rm1) + q * q / sl))
        go = (G > 0.0) & (sn > sl)
        over = go & (sn >= s1[live])
        s[live] = np.where(over, s1[live], np.where(go, sn, sl))
        live = live[go & ~over]
    if len(live):
        done[rows[live]] = False  # the scalar solve (with its bisection) takes these
    yy0, yy1 = y0[rows], y1[rows]
    d = np.abs(1.0 - s) * np.hypot(yy0 / (s + rm1), yy1 / s)
    out[rows] = np.where(g[rows] < 0, -d, d)
    return done


def _eberly_root(n0: float, z1: float, rm1: float, s0: float, s1: float) -> float:
    """The root in [s0, s1] of G(s) = (n0 / (s + rm1))^2 + (z1 / s)^2 - 1, given
    G(s0) >= 0 >= G(s1), s0 > 0, rm1 >= 0. G is convex and decreasing for s > 0, so a
    Newton step from a point left of the root stays left of it and the iterates rise
    monotonically to it (quadratically at the end); they stop when a step no longer
    moves s (the root to rounding) or G reaches 0. perf: a handful of steps instead of
    the ~60 halvings of a bisection, which remains the fallback past 100 steps."""
    s = s0
    for _ in range(100):
        p, q = n0 / (s + rm1), z1 / s
        G = p * p + q * q - 1.0
        if G <= 0.0:
            return s
        sn = s + G / (2.0 * (p * p / (s + rm1) + q * q / s))
        if not sn > s:
            return s
        if sn >= s1:
            return s1
        s = sn
    lo, hi = s, s1
    while True:
        m = 0.5 * (lo + hi)
        if m == lo or m == hi:
            return m
        p, q = n0 / (m + rm1), z1 / m
        G = p * p + q * q - 1.0
        if G > 0:
            lo = m
        elif G < 0:
            hi = m
        else:
            return m


def _eberly(e0: float, e1: float, y0: float, y1: float) -> tuple[float, bool]:
    """Distance from (y0, y1) (first quadrant) to ellipse with e0 >= e1 > 0.

    The nearest point is x = (r0 y0 / (s + r0 - 1), y1 / s) with r0 = (e0 / e1)^2 and s
    the root of G above (s = 1 + Eberly's t). The root is solved in s itself rather
    than in s - 1: near the major axis s is tiny, and a variable near -1 would keep
    only the leading digits of it (an error of 1e-16 e1^2 / y1 in the distance)."""
    inside = (y0 / e0) ** 2 + (y1 / e1) ** 2 < 1.0
    # A point within 1e-12 of the major axis is on it (the bracket below starts at
    # z1, which must not round to 0). Moving the point by at most 1e-12 * e1 changes
    # the distance by no more than that.
    if y1 > e1 * 1e-12:
        if y0 > 0:
            z0, z1 = y0 / e0, y1 / e1
            g = z0 * z0 + z1 * z1 - 1.0
            if g != 0.0:
                r0 = (e0 / e1) ** 2
                rm1 = (e0 - e1) * (e0 + e1) / (e1 * e1)
                n0 = r0 * z0
                s = _eberly_root(n0, z1, rm1, z1, 1.0 if g < 0 else math.hypot(n0, z1))
                # x - y = (1 - s) (y0 / (s + rm1), y1 / s): no cancellation near s = 1
                return abs(1.0 - s) * math.hypot(y0 / (s + rm1), y1 / s), inside
            return 0.0, False
        return abs(y1 - e1), inside
    numer0 = e0 * y0
    denom0 = e0 * e0 - e1 * e1
    if numer0 < denom0:
        xde0 = numer0 / denom0
        x0 = e0 * xde0
        x1 = e1 * math.sqrt(max(0.0, 1.0 - xde0 * xde0))
        return math.hypot(x0 - y0, x1), inside
    return abs(y0 - e0), inside


def _ellipse_point_sd1(e: tuple[float, float, float, float, float, float], x: float, y: float) -> float:
    """``Ellipse.point_distance`` of one point in plain floats (the same solve), for the
    ellipse given by ``_ellipse_frame``."""
    cx, cy, ct, st, a, b = e
    dx, dy = x - cx, y - cy
    lx, ly = abs(dx * ct + dy * st), abs(dy * ct - dx * st)
    if b > a:
        a, b, lx, ly = b, a, ly, lx
    d, inside = _eberly(a, b, lx, ly)
    return -d if inside else d
