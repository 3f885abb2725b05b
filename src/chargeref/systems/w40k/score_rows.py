"""The placement search's per-model score terms held as the rows of one matrix per base
shape (perf, round 7).

Each step of the greedy search (greedy.py, ``_greedy``) asks every waiting model for its
best spot: the largest of ``base[i] - cost[i] * w`` over the spots i it may use (``base``:
the part of the score that depends on the spot alone, shared by the models of a shape;
``w``: the weight of the move's length). Model by model that is a gather, a
subtraction and an argmax, plus the bookkeeping of each model's usable spots as the
banks grow: a few dozen small numpy calls a step per model.

Here the models of one shape that still wait are the rows of two matrices over the
shape's bank: ``U`` (may the model use the spot) and ``NS`` (``-(cost * w)`` where it
may, minus infinity where it may not). One step is then ``base + NS`` and an argmax per
row, for every model at once.

Why the answer is the very same spot and value, bit for bit:

* ``x - y`` and ``x + (-y)`` are the same IEEE operation (negation is exact), so a usable
  spot's value is the float the per-model form computed;
* a spot the model may not use is minus infinity here and left out there. When some
  usable spot has a finite value it is larger than every such spot, and the first index
  holding the largest value (numpy's argmax) is the first usable one holding it: the
  spot the per-model argmax over the usable indices (ascending) picks. When no usable
  spot is finite, both give a value that is not finite, which the search skips;
* a model that must take a normal spot under the walls rule has its token-only spots
  set to minus infinity, which is leaving them out.

A placed model leaves the matrices (its row is overwritten by the last waiting one), so
the work shrinks as the unit forms up. The matrices cost rows times spots cells; above
``DENSE_CELLS`` a shape's models go back to the per-model form, which takes over from
their rows (the usable flags are the same arrays).
"""

from __future__ import annotations

import numpy as np

#: the largest (waiting models x bank spots) held as matrices for one shape
DENSE_CELLS = 1_500_000


class ScoreRows:
    """The waiting models of one base shape as rows (see the module's note)."""

    __slots__ = ("ids", "row", "U", "NS", "n", "act", "w")

    def __init__(self, ids: list[str], U: np.ndarray, C: np.ndarray, w: float) -> None:
        k, n = U.shape
        cap = max(n * 2, 64)
        self.ids = list(ids)
        self.row = {mid: i for i, mid in enumerate(ids)}
        self.U = np.zeros((k, cap), dtype=bool)
        self.U[:, :n] = U
        self.NS = np.empty((k, cap))
        self.n = n
        self.act = k
        self.w = w
        self.NS[:, :n] = np.where(U, -(C * w), -np.inf)

    def cells(self) -> int:
        return self.act * self.n

    def usable(self, mid: str) -> np.ndarray:
        """The model's usable-spot flags (a copy)."""
        return self.U[self.row[mid], : self.n].copy()

    def drop(self, mid: str) -> None:
        """A model is placed: its row goes (the last waiting model's row takes its place)."""
        r = self.row.pop(mid)
        last = self.act - 1
        if r != last:
            moved = self.ids[last]
            self.U[r, : self.n] = self.U[last, : self.n]
            self.NS[r, : self.n] = self.NS[last, : self.n]
            self.ids[r] = moved
            self.row[moved] = r
        self.ids.pop()
        self.act = last

    def _room(self, n1: int) -> None:
        if n1 > self.U.shape[1]:
            cap = max(n1, 2 * self.U.shape[1])
            U = np.zeros((self.U.shape[0], cap), dtype=bool)
            NS = np.empty((self.U.shape[0], cap))
            U[: self.act, : self.n] = self.U[: self.act, : self.n]
            NS[: self.act, : self.n] = self.NS[: self.act, : self.n]
            self.U, self.NS = U, NS

    def extend(self, rows: np.ndarray, C: np.ndarray) -> None:
        """New bank spots: ``rows`` (usable flags) and ``C`` (costs), one row per waiting
        model in ``ids`` order."""
        n1 = self.n + rows.shape[1]
        self._room(n1)
        self.U[: self.act, self.n : n1] = rows
        self.NS[: self.act, self.n : n1] = np.where(rows, -(C * self.w), -np.inf)
        self.n = n1

    def reset(self, mid: str, usable: np.ndarray, cost: np.ndarray) -> None:
        """The model's costs were planned again: its row afresh."""
        r = self.row[mid]
        self.U[r, : self.n] = usable
        self.NS[r, : self.n] = np.where(usable, -(cost[: self.n] * self.w), -np.inf)

    def reweigh(self, w: float, costs: dict[str, np.ndarray]) -> None:
        """The move's length weighs ``w`` now: every row afresh."""
        self.w = w
        if self.act:
            C = np.stack([costs[mid][: self.n] for mid in self.ids])
            self.NS[: self.act, : self.n] = np.where(self.U[: self.act, : self.n], -(C * w), -np.inf)

    def best(self, base: np.ndarray, token_only: np.ndarray | None, normal_free: np.ndarray | None) -> tuple[list, list]:
        """For every waiting model (``ids`` order): the first spot holding its largest
        value ``base + NS`` and that value. With ``token_only``, a model that can use a
        spot in ``normal_free`` may not take a token-only spot."""
        a = self.act
        if a == 0:
            return [], []
        out = self.NS[:a, : self.n] + base[None, :]
        if token_only is not None:
            must = (self.U[:a, : self.n] & normal_free[None, :]).any(axis=1)
            if must.any():
                out[np.ix_(np.flatnonzero(must), np.flatnonzero(token_only))] = -np.inf
        j = out.argmax(axis=1)
        return j.tolist(), out[np.arange(a), j].tolist()

    def scores(self, mid: str, base: np.ndarray, token_only: np.ndarray | None, normal_free: np.ndarray | None) -> np.ndarray:
        """One waiting model's row of ``best``'s values (a new array): the same sums
        and the same token rule, so its argmax is the spot ``best`` gives the model."""
        r = self.row[mid]
        out = self.NS[r, : self.n] + base
        if token_only is not None and (self.U[r, : self.n] & normal_free).any():
            out[token_only] = -np.inf
        return out
