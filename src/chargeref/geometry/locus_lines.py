"""Where an offset curve (the centres of a mover at a fixed gap from a footprint, see
``placement.OffsetCurve``) meets an axis-parallel line of centres, such as a board
edge drawn in by the mover's own reach.

A round mover and a round footprint give a circle: the crossings are a closed form.
Any other pair is a root problem along the curve's normal angle: the line's coordinate
moves no faster than the point does (Lipschitz constant 1), so ``OffsetCurve.roots``
isolates every crossing with a proof and polishes it to ``ROOT_XTOL`` (1e-12 rad).

Nothing here knows about a game's rules or what the line stands for.
"""

from __future__ import annotations

import math

import numpy as np

from .placement import OffsetCurve
from .shapes import Footprint


def circle_line_crossings(c: np.ndarray, r: float, axis: int, value: float) -> np.ndarray:
    """The 0, 1 or 2 points of the circle (centre c, radius r) whose coordinate
    ``axis`` (0: x, 1: y) equals ``value``; shape (k, 2)."""
    off = value - float(c[axis])
    if r < 0 or abs(off) > r:
        return np.zeros((0, 2))
    h = math.sqrt(max(r * r - off * off, 0.0))
    o = 1 - axis
    n = 1 if h == 0.0 else 2
    out = np.empty((n, 2))
    out[:, axis] = value
    out[0, o] = float(c[o]) + h
    if n == 2:
        out[1, o] = float(c[o]) - h
    return out


def locus_line_crossings(mover: Footprint, target: Footprint, d: float, axis: int, value: float) -> np.ndarray:
    """Centres where ``mover`` (same facing) is at gap ``d`` from ``target`` and whose
    coordinate ``axis`` equals ``value``."""
    cur = OffsetCurve(mover, target, d)
    circ = cur.is_circle()
    if circ is not None:
        return circle_line_crossings(circ[0], circ[1], axis, value)
    # the curve lies within the two enclosing radii plus the gap of the target's centre
    # (the mover's radius twice: its centre need not be its enclosing circle's)
    reach = target.radius + 2.0 * mover.radius + d
    if abs(value - float(target.center[axis])) > reach + 1e-9:
        return np.zeros((0, 2))
    v = float(value)
    if axis == 0:
        return cur.roots(lambda P: P[:, 0] - v, g_lip=1.0, g1=lambda x, y: x - v)
    return cur.roots(lambda P: P[:, 1] - v, g_lip=1.0, g1=lambda x, y: y - v)


__all__ = ["circle_line_crossings", "locus_line_crossings"]
