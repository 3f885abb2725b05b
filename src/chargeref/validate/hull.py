"""The convex hull of a handful of points (the region a convex polygon sweeps when it
translates along a segment is the hull of its two end copies)."""

from __future__ import annotations

import numpy as np


def hull_ccw(P: np.ndarray) -> np.ndarray:
    """The convex hull of a few points, counter-clockwise, collinear points dropped
    (Andrew's monotone chain)."""
    pts = sorted(set(map(tuple, P.tolist())))
    if len(pts) <= 2:
        return np.array(pts, dtype=float)

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0]) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1], dtype=float)
