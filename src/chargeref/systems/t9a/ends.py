"""Where a charger standing flush on the charged facing starts or stops being blocked.

The end pose at offset ``s`` is one pose slid along the facing's axis, so the offsets
where it starts or stops overlapping an obstacle are the ends of the interval of a
translation's times of impact (both shapes are convex), and the board edge is a linear
equation in ``s``: exact, no sampled offsets (see docs/t9a.md, "When something is in
the way").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ...geometry.shapes import TOL
from .block import Block, Facing
from .geom import Shape
from .geom_move import near_interval
from .memo import table as memo_table
from .reach import contact_range
from .world import Obstacle


def end_events(ch: Block, fr: Facing, obstacles: Iterable[Obstacle], target: str,
               board: tuple[float, float] | None) -> list[float]:
    """The end offsets where the charger standing flush on the facing starts or stops
    overlapping (or, for an obstacle it may not touch, touching) an obstacle, or
    leaves the board: exact (the end pose only slides along the facing, so each is a
    time of impact of a translation, or a linear equation for the board edge)."""
    lo, hi = contact_range(ch, fr)
    if hi - lo <= 1e-12:
        return []
    start = ch.at(fr.pt(lo), fr.psi).shape()
    t = np.asarray(fr.t, float)
    out: list[float] = []
    # within a ruling (``memo``) the slide of one charger's formation along one
    # facing against one obstacle (by identity, held with the answer) is worked out
    # once: the start pose depends on the formation and the facing only
    tab = memo_table("end_slides")
    base = None if tab is None else (ch.files, ch.models, ch.bw, ch.bd, ch.round, fr.mid.tobytes(), fr.t.tobytes(),
                                     fr.n.tobytes(), fr.length)
    for ob in obstacles:
        if ob.uid == target:
            continue
        # a strict obstacle must be left more than its gap (plus the tolerance)
        margin = ob.min_gap + (2 * TOL if ob.strict else 0.0)
        if tab is None:
            iv = _slide_interval(start, t, ob.shape, margin, hi - lo)
        else:
            key = (base, id(ob.shape), margin)
            hit = tab.get(key)
            if hit is None or hit[0] is not ob.shape:
                hit = tab[key] = (ob.shape, _slide_interval(start, t, ob.shape, margin, hi - lo))
            iv = hit[1]
        if iv is not None:
            out += [lo + iv[0], lo + iv[1]]
    if board is not None:
        W, D = board
        pts = start.points()
        r = start.r if start.kind != "poly" else 0.0
        for v in pts:
            for c, lims in ((0, (r, W - r)), (1, (r, D - r))):
                if abs(t[c]) > 1e-15:
                    for lim in lims:
                        k = (lim - float(v[c])) / float(t[c])
                        if 0.0 <= k <= hi - lo:
                            out.append(lo + k)
    return out


def _slide_interval(A: Shape, t: np.ndarray, B: Shape, margin: float, kmax: float) -> tuple[float, float] | None:
    """The k in [0, kmax] where A moved by k t is within ``margin`` of B (an interval:
    both are convex)."""
    if A.kind == "poly":
        return near_interval(A, t, B, margin, kmax)
    if B.kind == "poly":
        return near_interval(B, -t, A, margin, kmax)
    # two round shapes (discs): |c + k t - b| = rA + rB + margin, a quadratic
    assert A.a is not None and B.a is not None and B.b is not None
    if not B.is_disc:
        return None  # no such obstacle is built (round units are discs)
    R = A.r + B.r + margin
    d = A.a - B.a
    bq = float(d @ t)
    cq = float(d @ d) - R * R
    disc = bq * bq - cq
    if disc < 0:
        return None
    r = math.sqrt(disc)
    k0, k1 = max(0.0, -bq - r), min(kmax, -bq + r)
    return (k0, k1) if k0 <= k1 else None
