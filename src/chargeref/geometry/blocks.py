"""Rank-and-file block layout (used by The 9th Age and by drawings). No rules here.

A block is described by the midpoint of its front edge, its facing (degrees CCW from
+x), the number of files, the number of models and a base of width W (across the
front) and depth D. Ranks are ``ceil(models / files)``; a short last rank is centred.
"""

from __future__ import annotations

import math

import numpy as np


def block_frame(front: tuple[float, float], facing_deg: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(front midpoint, forward unit vector, right unit vector)."""
    th = math.radians(facing_deg)
    f = np.array([math.cos(th), math.sin(th)])
    right = np.array([f[1], -f[0]])
    return np.asarray(front, dtype=float), f, right


def block_model_centres(
    front: tuple[float, float], facing_deg: float, files: int, models: int, base_w: float, base_d: float
) -> np.ndarray:
    """Centres of every model, front rank first, left to right (as seen by the unit)."""
    o, f, right = block_frame(front, facing_deg)
    ranks = math.ceil(models / files)
    out = []
    for r in range(ranks):
        n = files if r < ranks - 1 else models - files * (ranks - 1)
        width = n * base_w
        for i in range(n):
            x = -width / 2 + (i + 0.5) * base_w
            y = -(r + 0.5) * base_d
            out.append(o + right * x + f * y)
    return np.asarray(out)


def block_corners(
    front: tuple[float, float], facing_deg: float, files: int, models: int, base_w: float, base_d: float
) -> np.ndarray:
    """The unit boundary rectangle (front-left, front-right, rear-right, rear-left).

    The boundary encloses every base; with a short last rank it is still files wide."""
    o, f, right = block_frame(front, facing_deg)
    ranks = math.ceil(models / files)
    hw = files * base_w / 2
    depth = ranks * base_d
    return np.asarray([o - right * hw, o + right * hw, o + right * hw - f * depth, o - right * hw - f * depth])
