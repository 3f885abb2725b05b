"""Choices of the 40k search that must not depend on the frame of the board.

The same board turned or mirrored gives the same distances and costs only up to
rounding: two values equal in exact arithmetic can come out a few units in the last
place apart, in either order. Wherever the search sorts or deduplicates such values, a
difference that small must not decide anything, or the same charge gets a different
ruling on a turned board. ``distinct`` treats values within ``TIE`` of each other as
one value.
"""

from __future__ import annotations

import numpy as np

#: values closer than this are the same value for the search's choices (far above the
#: rounding of any distance or cost on a 60" board, far below the contract's 1e-6)
TIE = 1e-9


def _runs(v: np.ndarray) -> np.ndarray:
    """For sorted ``v``: the run number of each value, a new run starting wherever the
    step from the previous value exceeds TIE."""
    return np.concatenate([[0], np.cumsum(np.diff(v) > TIE)]) if len(v) else np.zeros(0, dtype=int)


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values, each run of values within TIE of its neighbour kept
    once, as its largest member (a move allowed the largest is allowed every member)."""
    v = np.unique(np.asarray(values, dtype=float))
    if len(v) < 2:
        return v
    last = np.append(np.diff(_runs(v)) > 0, True)
    return v[last]


__all__ = ["TIE", "distinct"]
