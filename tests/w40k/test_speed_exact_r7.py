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

from chargeref.systems.w40k import greedy
from chargeref.systems.w40k.score_rows import ScoreRows


def _thirty_scenario() -> dict:
    """Thirty models charging ten (the benchmark's 30-model unit, spaced 1.5")."""
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "terrain": [],
            "units": [_block_unit("A", 1, 15, 8, 30, 10), _block_unit("B", 2, 17, 19, 10, 10)]}


def _mixed_scenario() -> dict:
    """Ten models of two base sizes charging ten: two shapes, each with its own rows
    (one shape's models can all be placed while the other's still wait)."""
    a = _block_unit("A", 1, 22, 10, 10, 5)
    for i, m in enumerate(a["models"]):
        m["base"] = {"round": 25 if i % 3 else 40}
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "terrain": [],
            "units": [a, _block_unit("B", 2, 22.5, 19.5, 10, 5)]}


_CASES = {
    "mixed": (_mixed_scenario, ("B",), 9.0),
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
    monkeypatch.setattr(greedy, "DENSE_CELLS", 0)
    plain = _charge_state(make(), targets, roll, {})
    _same_state(dense, plain)
    # a limit crossed while the unit forms up (the fourth growth of each search says
    # the rows have outgrown it): they go back to the per-model form
    switched = {"calls": 0, "n": 0}

    def cells(self):  # noqa: ANN001, ANN202
        switched["calls"] += 1
        if switched["calls"] % 4 == 0:
            switched["n"] += 1
            return greedy.DENSE_CELLS + 1
        return 0

    monkeypatch.setattr(greedy, "DENSE_CELLS", 10**9)
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


@settings(max_examples=60, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), reach=st.sampled_from([3.0, 12.0]))
@example(seed=0, reach=12.0)
@example(seed=7, reach=3.0)
def test_one_pair_is_the_windowed_verdict(seed: int, reach: float) -> None:
    """clear_within with one (start, goal) pair (plain floats, _pair_blocked) gives the
    verdict of the same pair asked among others (the cone windows and numpy's triples)
    and of clear_many, for goals that pass discs a hair either side of the clearance
    limit r + radius - EPS, starts inside a disc and a goal on the start."""
    from test_speed_exact import _disc_lines

    from chargeref.systems.w40k.solver_base import EPS

    rng = np.random.default_rng(seed)
    lines = _disc_lines(rng)
    r = 0.6
    S = rng.uniform(0, 20, (3, 2))
    S[1] = lines.dc[0]  # inside a disc
    goals = [rng.uniform(0, 20, 2) for _ in range(6)] + [S[0].copy()]
    # goals whose straight move passes disc k at the clearance limit, and a hair inside
    # or outside it: the perpendicular foot of the disc's centre on the move
    for k in range(3):
        c, rho = lines.dc[k], r + float(lines.dr[k]) - EPS
        for gap in (0.0, 1e-12, -1e-12, 1e-9, -1e-9):
            u = c - S[2]
            L = float(np.hypot(*u))
            if L <= rho + 1e-6:
                continue
            u /= L
            nrm = np.array([-u[1], u[0]])
            goals.append(c + nrm * (rho + gap) + u * 2.0)  # the move's closest point lies before the goal
    P = np.array(goals)
    for i in range(len(S)):
        for j in range(len(P)):
            one = np.zeros((len(S), len(P)), dtype=bool)
            one[i, j] = True
            got = lines.clear_within(S, r, P, one, reach)
            assert got.sum() <= 1
            two = one.copy()
            two[(i + 1) % len(S), (j + 1) % len(P)] = True  # asked among others: the windowed path
            ref = lines.clear_within(S, r, P, two, reach)
            assert got[i, j] == ref[i, j]
            assert lines.clear_one(S[i : i + 1], r, P[j], reach) == bool(ref[i, j])
            if float(np.hypot(*(P[j] - S[i]))) <= reach:
                assert got[i, j] == lines.clear_many(S[i : i + 1], r, P[j : j + 1])[0, 0]


def test_one_pair_at_the_threshold() -> None:
    """A move passing a disc exactly at the clearance limit is clear on the one-pair
    path, 1e-3 closer it is blocked."""
    from chargeref.geometry.paths import Barrier
    from chargeref.geometry.shapes import Disc, Footprint
    from chargeref.systems.w40k.solver import StraightLines
    from chargeref.systems.w40k.solver_base import EPS

    lines = StraightLines([Barrier(Footprint((Disc((5.0, 0.0), 1.0),)), None, "d")])
    r = 0.5
    edge = r + 1.0 - EPS
    for y, clear in ((edge, True), (edge - 1e-3, False)):
        S = np.array([[0.0, y]])
        P = np.array([[10.0, y]])
        assert bool(lines.clear_within(S, r, P, np.ones((1, 1), dtype=bool), 12.0)[0, 0]) is clear


@pytest.mark.parametrize("case", ["walls", "thirty"])
def test_kept_others_are_the_fresh_arrays(case: str) -> None:
    """_fits_among_others with the other models' arrays taken once per problem gives
    the verdicts of taking them afresh on every call (a problem whose memo is dropped
    before each call), on spots round every other model."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.world import build_world

    make, targets, roll = _CASES[case]
    system = find_system("40k")
    world = build_world(scenario_from_data(make()))
    prob = system._problem(world, ChargeRequest(charger="A", targets=targets, roll=int(roll)))
    rng = np.random.default_rng(3)
    m = prob.models[0]
    C = np.array([o.xy for o in prob.other_models])
    pts = np.vstack([C + rng.uniform(-3, 3, C.shape) for _ in range(20)])
    z = np.zeros(len(pts))
    kept = [prob._fits_among_others(m, pts, z) for _ in range(2)]
    prob.__dict__.pop("_others_memo", None)
    fresh = prob._fits_among_others(m, pts, z)
    # the plain test, model by model: no overlap, out of non-targets' engagement range
    from chargeref.systems.w40k.solver_base import EPS, OUT_MARGIN, sd_many

    r = prob.w.rules
    nt = {o.id for o in prob.nontarget_models}
    plain = np.ones(len(pts), dtype=bool)
    for o in prob.other_models:
        sd = sd_many(m.fp, pts, o.fp)
        bad = (sd < -EPS) & (np.abs(z - o.z) <= 1e-9)
        if o.id in nt:
            bad |= (sd <= r.er + OUT_MARGIN) & (np.abs(z - o.z) <= r.er_v + OUT_MARGIN)
        plain &= ~bad
    assert np.array_equal(kept[0], fresh) and np.array_equal(kept[1], fresh)
    assert np.array_equal(fresh, plain)
    assert fresh.any() and not fresh.all()


@pytest.mark.parametrize("case", ["open", "walls", "thirty"])
def test_bank_buffers_are_concatenation(case: str, monkeypatch) -> None:  # noqa: ANN001
    """Banks grown in doubling buffers (ChargeProblem._bank_appended) leave the state
    that concatenating every growth leaves: the same needed roll, placement, banks and
    costs, bit for bit; and an older bank keeps its values when later rows are written."""
    from chargeref.systems.w40k.solver import BANK_FIELDS, Bank, ChargeProblem

    make, targets, roll = _CASES[case]
    kept = _charge_state(make(), targets, roll, {})
    seen: list[tuple[Bank, list[np.ndarray]]] = []
    real = ChargeProblem._bank_appended

    def checked(self, key, nb):  # noqa: ANN001, ANN202
        old = self.banks[key]
        seen.append((old, [np.array(getattr(old, f)) for f in BANK_FIELDS]))
        return real(self, key, nb)

    monkeypatch.setattr(ChargeProblem, "_bank_appended", checked)
    again = _charge_state(make(), targets, roll, {})
    _same_state(kept, again)
    assert len(seen) > 10
    for bank, values in seen:  # written past their length, never inside it
        assert all(np.array_equal(getattr(bank, f), v) for f, v in zip(BANK_FIELDS, values, strict=True))

    def concatenated(self, key, nb):  # noqa: ANN001, ANN202
        b = self.banks[key]
        return Bank(*(np.concatenate([getattr(b, f), getattr(nb, f)]) for f in BANK_FIELDS))

    monkeypatch.setattr(ChargeProblem, "_bank_appended", concatenated)
    plain = _charge_state(make(), targets, roll, {})
    _same_state(kept, plain)


@pytest.mark.parametrize("levels", ["ground", "raised", "model_raised"])
def test_cost_rows_skip_the_zero_climb(levels: str) -> None:
    """_costs_batch's straight costs for round bases are the plain expression
    where(fits and within the cap, length, inf) + climb (the height change when over
    the free climb, else 0.0): on the ground the 0.0 is not added, which changes no
    bit; off the ground the climb is added, at the free climb, a hair over it and 1e-3
    over it."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.solver import EPS, Bank, pair_norm
    from chargeref.systems.w40k.world import build_world

    world = build_world(scenario_from_data(_open_scenario()))
    prob = find_system("40k")._problem(world, ChargeRequest(charger="A", targets=("B",), roll=9))
    key = next(iter(prob.banks))
    ms = prob._of_shape[key]
    if levels == "model_raised":  # the same models a level up (their rows are taken afresh)
        from dataclasses import replace

        ms = [replace(m, z=0.25) for m in ms]
        prob.__dict__.pop("_starts_memo", None)
    start = len(prob.costs[ms[0].id])
    rng = np.random.default_rng(1)
    k = 40
    pts = np.vstack([np.zeros((start, 2)), ms[0].xy + rng.uniform(-14, 14, (k, 2))])
    pts[start] = ms[0].xy  # no move at all: a length of +0.0
    thr = prob.w.rules.climb_free
    z = np.zeros(start + k)
    if levels == "raised":
        z[start:] = rng.choice([0.0, thr, thr + 1e-12, thr + 2e-12, thr + 1e-3, 3.0], k)
    ok = np.ones(start + k, dtype=bool)
    ok[start + 1 :: 7] = False
    nT = len(prob.targets)
    bank = Bank(pts, z, ok, ok, np.zeros((start + k, nT), dtype=bool), np.zeros((start + k, nT)),
                np.zeros((start + k, nT), dtype=bool), np.zeros((start + k, nT), dtype=bool))
    prob._costs_batch(ms, bank, start)
    S = np.array([m.xy for m in ms])
    d = pair_norm(S, pts[start:])
    cand = ok[None, start:] & (d <= prob.cap + EPS)
    dz = np.abs(z[start:][None, :] - np.array([m.z for m in ms])[:, None])
    plain = np.where(cand, d, np.inf) + np.where(dz > thr + 1e-12, dz, 0.0)
    for i, m in enumerate(ms):
        got = prob.costs[m.id][start:]
        assert np.array_equal(got, plain[i])
        assert np.array_equal(np.signbit(got), np.signbit(plain[i]))


def test_clear_one_with_walls_is_clear_many() -> None:
    """clear_one where the barriers hold polygons (walls) gives clear_within's verdict
    (clear_many), for moves that cross a wall, pass its end and stay clear."""
    from chargeref.geometry.paths import Barrier
    from chargeref.geometry.shapes import ConvexPolygon, Disc, Footprint
    from chargeref.systems.w40k.solver import StraightLines

    wall = ConvexPolygon(np.array([[4.0, -1.0], [4.2, -1.0], [4.2, 1.0], [4.0, 1.0]]))
    lines = StraightLines([Barrier(Footprint((wall,)), None, "w"), Barrier(Footprint((Disc((8.0, 3.0), 0.5),)), None, "d")])
    S = np.array([[0.0, 0.0]])
    r = 0.5
    seen = set()
    for goal in ([8.0, 0.0], [8.0, 1.5 + 1e-3], [8.0, 1.5], [0.0, 5.0], [8.0, 4.2], [3.0, 0.0]):
        g = np.array(goal)
        want = bool(lines.clear_within(S, r, g[None], np.ones((1, 1), dtype=bool), 12.0)[0, 0])
        assert lines.clear_one(S, r, g, 12.0) == want
        seen.add(want)
    assert seen == {True, False}
