"""Plain-float one-angle forms for offset curves with polygon or capsule parts.

The root finder (``placement.OffsetCurve.roots``) solves one angle at a time; for a
piece whose parts all have a support point written out in plain floats (discs,
polygons, capsules, ellipses, and Minkowski sums of those) ``_PartsCurve`` gives the
curve's point without array set-up, choosing the same support points as the parts'
``support`` methods. ``_few`` evaluates a function of a small batch of parameters one
value at a time. Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .shapes import Capsule, ConvexPolygon, Disc, Sum, smooth_part

#: ``_few``: batches up to this size are evaluated one plain-float call at a time
FEW = 32


def _few(one: Callable[[float], float], t: np.ndarray, many: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A function of an array of parameters: by its one-value form for small batches
    (no array set-up), by its array form otherwise."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    if len(t) > FEW:
        return np.asarray(many(t), dtype=float)
    return np.array([one(x) for x in t.tolist()], dtype=float)


def _support1(p: object) -> Callable[[float, float], tuple[float, float]] | None:
    """A convex part's support point for one unit direction (ux, uy) in plain floats,
    the same choice as its ``support`` (a polygon: the first vertex of greatest u.v; a
    capsule: p0 when u.p0 >= u.p1), or None for a part of another kind."""
    if isinstance(p, Disc):
        cx, cy, r = float(p.c[0]), float(p.c[1]), float(p.r)
        return lambda ux, uy: (cx + r * ux, cy + r * uy)
    if isinstance(p, ConvexPolygon):
        V = [(float(x), float(y)) for x, y in p.V]

        def poly(ux: float, uy: float) -> tuple[float, float]:
            best, bv = -math.inf, V[0]
            for v in V:
                h = ux * v[0] + uy * v[1]
                if h > best:
                    best, bv = h, v
            return bv

        return poly
    if isinstance(p, Capsule):
        (ax, ay), (bx, by), r = map(float, p.p0), map(float, p.p1), float(p.r)

        def cap(ux: float, uy: float) -> tuple[float, float]:
            if ux * ax + uy * ay >= ux * bx + uy * by:
                return ax + r * ux, ay + r * uy
            return bx + r * ux, by + r * uy

        return cap
    if isinstance(p, Sum):
        subs = [_support1(q) for q in p.parts]
        if any(f is None for f in subs):
            return None
        fs = [f for f in subs if f is not None]

        def tot(ux: float, uy: float) -> tuple[float, float]:
            x = y = 0.0
            for f in fs:
                px, py = f(ux, uy)
                x, y = x + px, y + py
            return x, y

        return tot
    sm = smooth_part(p)  # type: ignore[arg-type]
    if sm is None:
        return None
    cx, cy, a2, b2, ct, st, r = sm.cx, sm.cy, sm.a * sm.a, sm.b * sm.b, sm.ct, sm.st, sm.r

    def ell(ux: float, uy: float) -> tuple[float, float]:
        uc = ux * ct + uy * st
        us = uy * ct - ux * st
        n = math.sqrt(a2 * uc * uc + b2 * us * us)
        pc, ps = a2 * uc / n, b2 * us / n
        return cx + r * ux + pc * ct - ps * st, cy + r * uy + pc * st + ps * ct

    return ell


class _PartsCurve:
    """``OffsetCurve.at`` of one piece for one angle in plain floats, for any parts
    with a plain-float support (polygons and capsules too): c(θ) = s_T(u) - (s_M(-u) -
    c) + d u. perf: the root finder's brentq steps skip the array work."""

    def __init__(self, ft: Callable[[float, float], tuple[float, float]],
                 fm: Callable[[float, float], tuple[float, float]], c: np.ndarray, d: float) -> None:
        self.ft, self.fm, self.cx, self.cy, self.d = ft, fm, float(c[0]), float(c[1]), d

    def __call__(self, t: float) -> tuple[float, float]:
        ux, uy = math.cos(t), math.sin(t)
        tx, ty = self.ft(ux, uy)
        mx, my = self.fm(-ux, -uy)
        return tx - (mx - self.cx) + self.d * ux, ty - (my - self.cy) + self.d * uy
