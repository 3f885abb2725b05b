"""The round 7 speed work's shortcuts give the very bits of the code they stand for
(earlier rounds: test_speed_exact.py and test_speed_exact_r6.py, whose scenes and
helpers these tests share): each shortcut is held to the plain computation it
replaces, on the benchmark's scenes and at the edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_speed_exact import _walls_scenario
from test_speed_exact_r6 import _block_unit, _charge_state, _open_scenario, _oval_scenario

from chargeref.systems.w40k import solver
from chargeref.systems.w40k.score_rows import ScoreRows


def _thirty_scenario() -> dict:
    """Thirty models charging ten (the benchmark's 30-model unit, spaced 1.5")."""
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "terrain": [],
            "units": [_block_unit("A", 1, 15, 8, 30, 10), _block_unit("B", 2, 17, 19, 10, 10)]}


_CASES = {
    "open": (_open_scenario, ("B",), 9.0),
    "oval": (_oval_scenario, ("M",), 8.0),
    "walls": (lambda: _walls_scenario(0.0), ("B", "C"), 12.0),
    "walls_far": (lambda: _walls_scenario(0.6), ("B", "C"), 12.0),
    "thirty": (_thirty_scenario, ("B",), 10.0),
}


def _same_state(a: tuple, b: tuple) -> None:
    assert a[:3] == b[:3]
    assert len(a[3]) == len(b[3])
    for x, y in zip(a[3], b[3], strict=True):
        assert all(np.array_equal(p, q) for p, q in zip(x, y, strict=True))


@pytest.mark.parametrize("case", sorted(_CASES))
def test_score_rows_are_the_per_model_search(case: str, monkeypatch) -> None:  # noqa: ANN001
    """The search with every shape's models held as matrix rows (score_rows.py) and with
    every model scored on its own (DENSE_CELLS 0: the per-model form) leaves the same
    least roll and distance, the same placement, and the same banks and cost arrays,
    bit for bit; likewise when the matrices are given up in the middle of a search
    (a limit the banks outgrow after a few placements)."""
    make, targets, roll = _CASES[case]
    dense = _charge_state(make(), targets, roll, {})
    monkeypatch.setattr(solver, "DENSE_CELLS", 0)
    plain = _charge_state(make(), targets, roll, {})
    _same_state(dense, plain)
    # a limit crossed while the unit forms up (the fourth growth of each search says
    # the rows have outgrown it): they go back to the per-model form
    switched = {"calls": 0, "n": 0}

    def cells(self):  # noqa: ANN001, ANN202
        switched["calls"] += 1
        if switched["calls"] % 4 == 0:
            switched["n"] += 1
            return solver.DENSE_CELLS + 1
        return 0

    monkeypatch.setattr(solver, "DENSE_CELLS", 10**9)
    monkeypatch.setattr(ScoreRows, "cells", cells)
    mixed = _charge_state(make(), targets, roll, {})
    _same_state(mixed, plain)
    assert switched["n"] > 0


def _per_model(base: np.ndarray, use: np.ndarray, cost: np.ndarray, w: float, token_only: np.ndarray | None,
               normal_free: np.ndarray | None) -> tuple[int | None, float | None]:
    """The search's per-model step: the usable spots, the score gathered and the move's
    length taken off, the first best spot (None when nothing is usable)."""
    if token_only is not None and (use & normal_free).any():
        ui = np.flatnonzero(use & ~token_only)
        if len(ui) == 0:
            return None, None
        sub = base[ui] - cost[ui] * w
    else:
        ui = np.flatnonzero(use)
        if len(ui) == 0:
            return None, None
        sub = base.take(ui)
        sub -= cost[ui] * w
    j = int(sub.argmax())
    return int(ui[j]), float(sub[j])


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 40), n=st.integers(1, 60), tokens=st.booleans(),
       ties=st.booleans())
@example(seed=0, k=1, n=1, tokens=False, ties=True)
@example(seed=1, k=5, n=30, tokens=True, ties=True)
@example(seed=2, k=3, n=7, tokens=True, ties=False)
def test_score_rows_best_is_the_per_model_argmax(seed: int, k: int, n: int, tokens: bool, ties: bool) -> None:
    """ScoreRows.best against the per-model step, spot for spot and value for value:
    values that tie exactly (first index wins), spots that are not free (minus
    infinity), models with nothing usable, the walls rule's token-only spots, a row
    taken out (a model placed), spots added, a model planned again and a new weight."""
    rng = np.random.default_rng(seed)
    q = 4 if ties else 10_000  # few distinct values: many exact ties
    base = rng.integers(0, q, n).astype(float) * 0.25
    base[rng.random(n) < 0.3] = -np.inf
    U = rng.random((k, n)) < 0.5
    if k > 1:
        U[1] = False  # nothing usable
    C = rng.integers(0, q, (k, n)).astype(float) * 0.125
    C[~U & (rng.random((k, n)) < 0.5)] = np.inf  # spots beyond the cap cost inf
    token_only = (rng.random(n) < 0.3) if tokens else None
    normal_free = (rng.random(n) < 0.5) if tokens else None
    ids = [f"m{i}" for i in range(k)]
    w = 1e-3
    rows = ScoreRows(ids, U, C, w)
    costs = {mid: C[i].copy() for i, mid in enumerate(ids)}
    use = {mid: U[i].copy() for i, mid in enumerate(ids)}

    def check() -> None:
        js, vs = rows.best(base, token_only, normal_free)
        assert sorted(rows.ids) == sorted(rows.row) and all(rows.ids[r] == mid for mid, r in rows.row.items())
        for mid, j, v in zip(rows.ids, js, vs, strict=True):
            pj, pv = _per_model(base, use[mid], costs[mid], w, token_only, normal_free)
            if pj is None or not math.isfinite(pv):
                assert not math.isfinite(v)
            else:
                assert (j, v) == (pj, pv)
                assert math.copysign(1.0, v) == math.copysign(1.0, pv)

    check()
    if k > 2:
        rows.drop(ids[0])  # placed: the last row moves into its place
        check()
    extra = int(rng.integers(1, 20))
    newU = rng.random((len(rows.ids), extra)) < 0.5
    newC = rng.integers(0, q, (len(rows.ids), extra)).astype(float) * 0.125
    base = np.concatenate([base, rng.integers(0, q, extra).astype(float) * 0.25])
    if tokens:
        token_only = np.concatenate([token_only, rng.random(extra) < 0.3])
        normal_free = np.concatenate([normal_free, rng.random(extra) < 0.5])
    rows.extend(newU, newC)
    for r, mid in enumerate(rows.ids):
        use[mid] = np.concatenate([use[mid], newU[r]])
        costs[mid] = np.concatenate([costs[mid], newC[r]])
    check()
    mid = rows.ids[-1]
    costs[mid] = costs[mid] + 0.5  # planned again: dearer
    use[mid] = use[mid] & (rng.random(len(use[mid])) < 0.7)
    rows.reset(mid, use[mid], costs[mid])
    check()
    w = 1.0
    rows.reweigh(w, costs)
    check()
