"""Choices of the 40k search that must not depend on the frame of the board.

The same board turned or mirrored gives the same distances and costs only up to
rounding: two values equal in exact arithmetic can come out a few units in the last
place apart, in either order. Wherever the search sorts or deduplicates such values, a
difference that small must not decide anything, or the same charge gets a different
ruling on a turned board. ``distinct`` treats values within ``TIE`` of each other as
one value; ``ordered`` and ``least`` rank values so that values within ``TIE`` of each
other are one value, their order then decided by their index (the order of the models,
targets and terrain in the scenario, which does not depend on the frame); ``few`` keeps
the k least and, when the cut falls among such equal values, all of them.
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


def ordered(values: np.ndarray) -> np.ndarray:
    """The indices of ``values`` from least to greatest, where a run of values each
    within TIE of the next counts as one value and keeps its members in index order
    (a stable argsort of the run numbers)."""
    v = np.asarray(values, dtype=float).reshape(-1)
    if len(v) < 2:
        return np.arange(len(v))
    first = np.argsort(v, kind="stable")
    run = np.empty(len(v), dtype=int)
    run[first] = _runs(v[first])
    return np.lexsort((np.arange(len(v)), run))


def few(values: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k least values, as ``ordered`` ranks them, and with them every
    further value of the run the k-th belongs to: when the cut falls among values equal
    but for rounding, all of them are kept, so the set kept does not depend on the
    frame even where the index is not frame-free (a polygon's corners, whose order
    starts wherever the hull does)."""
    o = ordered(values)
    if k <= 0:
        return o[:0]
    if len(o) <= k:
        return o
    v = np.asarray(values, dtype=float).reshape(-1)[o]
    end = k
    while end < len(o) and v[end] - v[end - 1] <= TIE:
        end += 1
    return o[:end]


def least(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Like ``np.argmin`` along ``axis``, but among values within TIE of the least the
    first index wins (not the one rounding made a few units smaller)."""
    v = np.asarray(values, dtype=float)
    lo = np.min(v, axis=axis, keepdims=True)
    return np.argmax(v <= lo + TIE, axis=axis)


__all__ = ["TIE", "distinct", "few", "least", "ordered"]
