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
from .shapes import Footprint, signed_distance


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


def locus_box_distance(mover: Footprint, target: Footprint, d: float, p: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                       slack: float = 1e-9) -> float:
    """The distance from point p to the set K of centres where ``mover`` (one convex
    part, same facing) is within gap ``d`` (>= 0) of ``target`` (one convex part) and
    lies in the box [lo, hi]; inf when that set is empty.

    K is convex (the target grown by the mirrored mover and a disc of radius d), and so
    is its part in the box. Its nearest point to p is p itself, or the nearest point of
    K (on the offset curve, ``OffsetCurve.nearest``) when that lies in the box, or else
    a point of the box's outline: on each side, K meets the side's line in one interval
    between its crossings with the curve (``locus_line_crossings``, 1e-12 rad), and the
    nearest point of that interval (clipped to the side) is the foot of p clamped to
    it. The least of these candidates is the answer; a candidate is kept when it misses
    the box by at most ``slack``, so rounding can only lower the answer."""
    p = np.asarray(p, dtype=float)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if np.any(lo > hi):
        return math.inf

    def in_box(q: np.ndarray) -> bool:
        return bool(np.all(q >= lo - slack) and np.all(q <= hi + slack))

    if in_box(p) and float(signed_distance(mover.moved_to(p), target)) <= d + slack:
        return 0.0
    best = math.inf
    for q in OffsetCurve(mover, target, d).nearest(p):
        if in_box(q):
            best = min(best, float(np.hypot(*(q - p))))
    for axis in (0, 1):
        o = 1 - axis
        for value in (float(lo[axis]), float(hi[axis])):
            X = locus_line_crossings(mover, target, d, axis, value)
            if len(X) == 0:
                continue
            a = max(float(np.min(X[:, o])), float(lo[o]))
            b = min(float(np.max(X[:, o])), float(hi[o]))
            if a > b + slack:
                continue
            q = np.empty(2)
            q[axis] = value
            q[o] = min(max(float(p[o]), a), max(a, b))
            best = min(best, float(np.hypot(*(q - p))))
    return best


def disc_box_distance(P: np.ndarray, C: np.ndarray, R: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                      slack: float = 1e-9) -> np.ndarray:
    """The distance from each point P to the part of the disc (centre C, radius R) that
    lies in the box [lo, hi] (inf where they do not meet), closed form; the arguments
    broadcast row by row (P, C, lo, hi: (..., 2); R: (...)).

    The set is convex, so its nearest point to P is P itself, or the foot of P on a
    piece of its outline (the circle's radial point, a box side's perpendicular foot),
    or a corner of the outline (a circle crossing a side, a box corner in the disc):
    every one of those that lies in the set is a candidate and the least is the answer.
    A candidate is kept when it misses the set by at most ``slack``, so rounding can
    only lower the answer (by no more than the slack), never raise it."""
    P, C = np.asarray(P, dtype=float), np.asarray(C, dtype=float)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    R = np.asarray(R, dtype=float)
    shape = np.broadcast_shapes(P.shape[:-1], C.shape[:-1], R.shape, lo.shape[:-1], hi.shape[:-1])
    P, C = np.broadcast_to(P, shape + (2,)), np.broadcast_to(C, shape + (2,))
    lo, hi = np.broadcast_to(lo, shape + (2,)), np.broadcast_to(hi, shape + (2,))
    R = np.broadcast_to(R, shape)
    best = np.full(shape, np.inf)

    def take(Q: np.ndarray, valid: np.ndarray | None = None) -> None:
        nonlocal best
        inside = np.all((Q >= lo - slack) & (Q <= hi + slack), axis=-1)
        inside &= np.hypot(*np.moveaxis(Q - C, -1, 0)) <= R + slack
        if valid is not None:
            inside &= valid
        d = np.hypot(*np.moveaxis(Q - P, -1, 0))
        best = np.where(inside, np.minimum(best, d), best)

    take(P)
    v = P - C
    n = np.hypot(v[..., 0], v[..., 1])
    u = np.where((n > 0)[..., None], v / np.where(n > 0, n, 1.0)[..., None], np.array([1.0, 0.0]))
    take(C + u * R[..., None])
    for axis in (0, 1):
        o = 1 - axis
        for edge in (lo, hi):
            val = edge[..., axis]
            foot = P.copy()
            foot[..., axis] = val
            take(foot)
            off = val - C[..., axis]
            h2 = R * R - off * off
            h = np.sqrt(np.maximum(h2, 0.0))
            for sgn in (1.0, -1.0):
                Q = np.empty(shape + (2,))
                Q[..., axis] = val
                Q[..., o] = C[..., o] + sgn * h
                take(Q, h2 >= 0)
    for cx in (lo[..., 0], hi[..., 0]):
        for cy in (lo[..., 1], hi[..., 1]):
            take(np.stack([cx, cy], axis=-1))
    return best


__all__ = ["circle_line_crossings", "disc_box_distance", "locus_box_distance", "locus_line_crossings"]
