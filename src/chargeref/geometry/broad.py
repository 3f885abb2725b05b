"""Broad phase: which pairs of axis-aligned boxes meet, without testing all pairs.

A shapely STRtree over the boxes answers in about n log n. It only proposes
candidates; the caller decides each with an exact distance.
"""

from __future__ import annotations

import numpy as np
import shapely


def _boxes(b: np.ndarray) -> np.ndarray:
    b = np.asarray(b, dtype=float).reshape(-1, 4)
    return shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])


def box_pairs(bounds: np.ndarray) -> list[tuple[int, int]]:
    """Index pairs (i < j, sorted) of boxes [xmin, ymin, xmax, ymax] that meet."""
    if len(bounds) < 2:
        return []
    boxes = _boxes(bounds)
    ii, jj = shapely.STRtree(boxes).query(boxes, predicate="intersects")
    return sorted((int(i), int(j)) for i, j in zip(ii, jj, strict=True) if i < j)


def box_hits(bounds: np.ndarray, others: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (i, k), sorted, of box i of ``bounds`` meeting box k of ``others``."""
    if len(bounds) == 0 or len(others) == 0:
        return []
    kk, ii = shapely.STRtree(_boxes(bounds)).query(_boxes(others), predicate="intersects")
    return sorted((int(i), int(k)) for k, i in zip(kk, ii, strict=True))


def disc_bounds(xy: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Boxes around discs of centres ``xy`` (n x 2) and radii ``r`` (n)."""
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    r = np.asarray(r, dtype=float).reshape(-1)
    return np.column_stack([xy[:, 0] - r, xy[:, 1] - r, xy[:, 0] + r, xy[:, 1] + r])


def points_bounds(pts: np.ndarray, pad: float = 0.0) -> np.ndarray:
    """The box [xmin, ymin, xmax, ymax] of points (m x 2), grown by ``pad``."""
    p = np.asarray(pts, dtype=float).reshape(-1, 2)
    return np.array([p[:, 0].min() - pad, p[:, 1].min() - pad, p[:, 0].max() + pad, p[:, 1].max() + pad])


__all__ = ["box_hits", "box_pairs", "disc_bounds", "points_bounds"]
