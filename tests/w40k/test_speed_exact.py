"""The speed work's shortcuts give the very bits of the code they stand for.

Each fast path here claims to compute exactly what a plainer expression computes (the
same rows, in the same order, to the bit); these tests hold it to that on random
scenes and on the edge cases (touching circles, equal centres, no crossing)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.placement import circles_crossings_many, circles_crossings_stack
from chargeref.systems.w40k.solver_base import StraightLines


def _plain(C1, R1s, C2, R2s):  # noqa: ANN001, ANN202
    parts = [circles_crossings_many(C1, R1s[g], C2, R2s[g]) for g in range(len(R1s))]
    return np.vstack(parts) if parts else np.zeros((0, 2))


@settings(max_examples=60, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), n1=st.integers(0, 4), n2=st.integers(0, 12), g=st.integers(0, 6))
@example(seed=1, n1=1, n2=3, g=4)
@example(seed=2, n1=0, n2=3, g=2)
@example(seed=3, n1=2, n2=0, g=2)
def test_crossings_stack_is_the_loop_bit_for_bit(seed: int, n1: int, n2: int, g: int) -> None:
    rng = np.random.default_rng(seed)
    C1 = rng.uniform(0, 6, (n1, 2))
    C2 = rng.uniform(0, 6, (n2, 2))
    R1s = rng.uniform(0.2, 3, (g, n1))
    R2s = rng.uniform(0.2, 3, (g, n2))
    got = circles_crossings_stack(C1, R1s, C2, R2s)
    want = _plain(C1, R1s, C2, R2s)
    assert got.shape == want.shape
    assert np.array_equal(got, want)


def test_crossings_stack_edges() -> None:
    # tangent circles (one crossing row pair with h == 0), equal centres (none), apart (none)
    C1 = np.array([[0.0, 0.0]])
    C2 = np.array([[2.0, 0.0], [0.0, 0.0], [10.0, 0.0], [1.0, 1.0]])
    R1s = np.array([[1.0], [1.5]])
    R2s = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 2.0, 1.0, 1.0]])
    got = circles_crossings_stack(C1, R1s, C2, R2s)
    want = _plain(C1, R1s, C2, R2s)
    assert np.array_equal(got, want)
    assert len(got) > 0


@settings(max_examples=40, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000))
@example(seed=0)
def test_clear_within_cones_kept_across_calls(seed: int) -> None:
    """The cones kept per start set give the verdicts computed afresh, call after call."""
    from chargeref.geometry.paths import Barrier
    from chargeref.geometry.shapes import Disc, Footprint

    rng = np.random.default_rng(seed)
    discs = [Barrier(Footprint((Disc(tuple(rng.uniform(0, 20, 2)), float(rng.uniform(0.3, 1.0))),)), None, f"b{i}") for i in range(8)]
    S = rng.uniform(0, 20, (5, 2))
    kept = StraightLines(discs)
    for _ in range(3):
        P = rng.uniform(0, 20, (40, 2))
        near = np.linalg.norm(P[None] - S[:, None], axis=2) <= 12.0
        fresh = StraightLines(discs)
        assert np.array_equal(kept.clear_within(S, 0.6, P, near, 12.0), fresh.clear_within(S, 0.6, P, near, 12.0))
        assert np.array_equal(kept.clear_within(S, 0.6, P, near, 12.0), fresh.clear_many(S, 0.6, P) & near)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), walls=st.booleans())
@example(seed=0, walls=False)
@example(seed=0, walls=True)
def test_straight_verdict_of_a_pair_is_its_own(seed: int, walls: bool) -> None:
    """The search tests a (start, spot) pair's straight line only when it wants the spot
    (ChargeProblem._settle), one model at a time: the verdict must be the one the test of
    every model and spot at once gives."""
    from chargeref.geometry.bases import wall_footprint
    from chargeref.geometry.paths import Barrier
    from chargeref.geometry.shapes import Disc, Footprint

    rng = np.random.default_rng(seed)
    bars = [Barrier(Footprint((Disc(tuple(rng.uniform(0, 20, 2)), float(rng.uniform(0.3, 1.0))),)), None, f"b{i}") for i in range(10)]
    if walls:
        for i in range(3):
            a = rng.uniform(0, 20, 2)
            bars.append(Barrier(wall_footprint([tuple(a), tuple(a + rng.uniform(-4, 4, 2))], 0.2), None, f"w{i}"))
    lines = StraightLines(bars)
    S = rng.uniform(0, 20, (6, 2))
    P = rng.uniform(0, 20, (60, 2))
    near = np.linalg.norm(P[None] - S[:, None], axis=2) <= 12.0
    every = lines.clear_within(S, 0.63, P, near, 12.0)
    for i in range(len(S)):
        cols = np.flatnonzero(near[i])
        rng.shuffle(cols)
        for part in np.array_split(cols, 3):
            one = lines.clear_within(S[i : i + 1], 0.63, P[part], np.ones((1, len(part)), dtype=bool), 12.0)[0]
            assert np.array_equal(one, every[i, part])


def _walls_scenario(gap: float) -> dict:
    """Twenty models charging two units that stand among ruin walls (the benchmark's
    walls case, with the targets ``gap`` inches further away)."""
    def unit(uid: str, player: int, x0: float, y0: float, n: int, per_row: int) -> dict:
        return {"id": uid, "player": player, "keywords": ["INFANTRY"],
                "models": [{"id": f"{uid}{i + 1}", "at": [x0 + (i % per_row) * 1.5, y0 + (i // per_row) * 1.5],
                            "base": {"round": 32}} for i in range(n)]}

    walls = [{"points": [[8 + (i % 4) * 12, 20 if i < 4 else 27], [12 + (i % 4) * 12, 20 if i < 4 else 27]],
              "height": 4, "thickness": 0.2} for i in range(8)]
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44},
            "terrain": [{"type": "ruin", "id": "R", "footprint": [[6, 18], [56, 18], [56, 30], [6, 30]], "walls": walls}],
            "units": [unit("A", 1, 16, 8, 20, 10), unit("B", 2, 14, 22.5 + gap, 5, 5), unit("C", 2, 26, 22.5 + gap, 5, 5)]}


def test_open_field_question_answered_from_the_search() -> None:
    """ChargeProblem.succeeds answers the final walls-rule question as a fresh search
    would, after the least-roll search has run (two identical problems, one asked each way)."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.world import build_world

    system = find_system("40k")
    req = ChargeRequest(charger="A", targets=("B", "C"), roll=12)
    for gap in (0.0, 0.1):
        scen = scenario_from_data(_walls_scenario(gap))
        for last in ("need", 12.0):
            answers = []
            for ask in ("succeeds", "solve"):
                world = build_world(scen)
                prob = system._problem(world, req)
                bare = system.open_field(world, req, prob.cap)
                assert bare is not None and prob.across
                need, _ = system.needed_on(prob, bare)
                assert need.roll is not None
                R = float(need.roll) if last == "need" else last
                answers.append(bare.succeeds(R) if ask == "succeeds" else bare.solve(R, improve=False) is not None)
            assert answers[0] == answers[1] is True


def test_validator_straight_moves_cost_what_path_cost_says(monkeypatch) -> None:  # noqa: ANN001
    """The validator's shortcut for straight moves that nothing comes near
    (w40k_state.clear_straight_moves) gives every stored 40k ruling of the validator
    corpus the same move costs and the same path violations as the full path_cost."""
    import gzip
    import json
    from pathlib import Path

    from chargeref.ruling import Ruling
    from chargeref.scenario import scenario_from_data
    from chargeref.validate import w40k_moves as V  # check_paths and the name it calls live here
    from chargeref.validate.w40k_state import _build
    from chargeref.validate.w40k_state import clear_straight_moves as fast

    with gzip.open(Path(__file__).resolve().parents[1] / "validate" / "corpus.json.gz", "rt") as fh:
        data = json.load(fh)
    used = 0
    checked = 0
    for r in data["rulings"]:
        sd = data["scenarios"][r["before"]]
        if sd["system"] != "40k" or (sd.get("rules") or {}).get("edition") == 11:
            continue
        ruling = Ruling.model_validate(r["ruling"])
        if ruling.procedure in ("pile_in", "consolidate"):
            continue
        before = scenario_from_data(sd)
        runs = []
        taken: list[int] = []

        def counted(ctx, moves, taken=taken):  # noqa: ANN001, ANN202
            out = fast(ctx, moves)
            taken.append(len(out))
            return out

        for shortcut in (True, False):
            monkeypatch.setattr(V, "clear_straight_moves", counted if shortcut else (lambda ctx, moves: set()))
            ctx, _ = _build(before, ruling)
            if ctx is None:
                break
            got = V.check_paths(ctx)
            runs.append(([(v.code, v.models) for v in got], dict(ctx.costs)))
        used += sum(taken)
        if len(runs) == 2:
            checked += 1
            assert runs[0] == runs[1], r["name"]
    assert checked > 300
    assert used > 300  # the shortcut is really taken (630 moves of the corpus)


# ------------------------------------------------------------------ round 5


def _disc_lines(rng: np.random.Generator, n: int = 8) -> StraightLines:
    from chargeref.geometry.paths import Barrier
    from chargeref.geometry.shapes import Disc, Footprint

    return StraightLines([Barrier(Footprint((Disc(tuple(rng.uniform(0, 20, 2)), float(rng.uniform(0.3, 1.0))),)), None, f"b{i}")
                          for i in range(n)])


@settings(max_examples=40, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6))
@example(seed=0, k=1)
@example(seed=5, k=6)
def test_clear_within_few_pairs_is_the_sorted_path(seed: int, k: int) -> None:
    """clear_within's direct test of few (pair, window) combinations gives the verdicts
    of its sorted path (FEW_TRIPLES = 0 forces that one)."""
    import pytest

    from chargeref.systems.w40k import solver_base

    rng = np.random.default_rng(seed)
    lines = _disc_lines(rng)
    S = rng.uniform(0, 20, (2, 2))
    S[1] = lines.dc[0]  # a start inside a disc: every direction is in its cone
    P = rng.uniform(0, 20, (k, 2))
    P[0] = S[0]  # a goal on the start (no move)
    near = np.linalg.norm(P[None] - S[:, None], axis=2) <= 12.0
    fast = lines.clear_within(S, 0.6, P, near, 12.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver_base, "FEW_TRIPLES", 0)
        slow = lines.clear_within(S, 0.6, P, near, 12.0)
    assert np.array_equal(fast, slow)
    assert np.array_equal(fast, lines.clear_many(S, 0.6, P) & near)


def test_clear_within_few_pairs_at_the_threshold(monkeypatch) -> None:  # noqa: ANN001
    """A move passing a disc exactly at the clearance limit (r + radius - EPS) is clear,
    a hair closer it is blocked: the direct test and the sorted path agree at the edge."""
    from chargeref.geometry.paths import Barrier
    from chargeref.geometry.shapes import Disc, Footprint
    from chargeref.systems.w40k import solver_base
    from chargeref.systems.w40k.solver_base import EPS

    bars = [Barrier(Footprint((Disc((5.0, 0.0), 1.0),)), None, "d")]
    lines = StraightLines(bars)
    r = 0.5
    edge = r + 1.0 - EPS
    S = np.array([[0.0, edge], [0.0, edge - 1e-3]])
    P = np.array([[10.0, edge], [10.0, edge - 1e-3]])
    near = np.eye(2, dtype=bool)
    got = lines.clear_within(S, r, P, near, 12.0)
    assert got[0, 0] and not got[1, 1]
    monkeypatch.setattr(solver_base, "FEW_TRIPLES", 0)
    assert np.array_equal(got, StraightLines(bars).clear_within(S, r, P, near, 12.0))


@settings(max_examples=40, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000))
@example(seed=0)
def test_segments_cross_from_is_the_per_start_test(seed: int) -> None:
    """The crossing test with a start per segment is the one-start test, row by row
    (including touching and collinear segments, which do not cross properly)."""
    from chargeref.systems.w40k.solver_base import _segments_cross, _segments_cross_from

    rng = np.random.default_rng(seed)
    V = rng.integers(0, 6, (4, 2)).astype(float)
    A, B = V, np.roll(V, -1, axis=0)
    S = rng.integers(0, 6, (30, 2)).astype(float)  # on a grid: many touching / collinear cases
    P = rng.integers(0, 6, (30, 2)).astype(float)
    got = _segments_cross_from(S, P, A, B)
    want = np.vstack([_segments_cross(S[i], P[i : i + 1], A, B) for i in range(len(S))])
    assert np.array_equal(got, want)


def _plain_across(prob, m, pts, z):  # noqa: ANN001, ANN202
    """The across-a-feature flags of ChargeProblem._bank, target model by target model
    (the loop the round-base path replaces)."""
    from chargeref.geometry.shapes import Footprint
    from chargeref.systems.w40k.solver_base import EPS, _segments_cross, sd_many

    r = prob.w.rules
    k, nT = len(pts), len(prob.targets)
    tok = np.zeros((k, nT), dtype=bool)
    bar = np.zeros((k, nT), dtype=bool)
    two = 2.0 * r.inch
    for part, _, kind in prob.across:
        touch = np.abs(sd_many(m.fp, pts, Footprint((part,)))) <= EPS
        if not touch.any():
            continue
        A, B = part.V, np.roll(part.V, -1, axis=0)
        for t, j in zip(prob.all_targets, prob.target_col, strict=True):
            if kind == "barricade" and sd_many(t.fp, t.xy[None], Footprint((part,)))[0] > r.er + EPS:
                continue
            idx = np.nonzero(touch)[0]
            sd = sd_many(m.fp, pts[idx], t.fp)
            near = (sd <= two + EPS) & (np.abs(z[idx] - t.z) <= r.er_v)
            if not near.any():
                continue
            idx = idx[near]
            across = np.any(_segments_cross(t.xy, pts[idx], A, B), axis=1)
            (tok if kind == "token" else bar)[idx[across], j] = True
    return tok, bar


def _barricade_scenario(gap: float) -> dict:
    def unit(uid: str, player: int, x0: float, y0: float, n: int) -> dict:
        return {"id": uid, "player": player, "keywords": ["INFANTRY"],
                "models": [{"id": f"{uid}{i + 1}", "at": [x0 + i * 1.4, y0], "base": {"round": 32}} for i in range(n)]}

    return {"format": "chargeref/1", "system": "40k", "board": {"width": 40, "depth": 30},
            "terrain": [{"type": "barricade", "id": "pipe", "points": [[15, 16], [25, 16]], "height": 1.5, "thickness": 0.2}],
            "units": [unit("A", 1, 16, 10, 6), unit("B", 2, 17, 16.1 + 0.63 + gap, 5)]}


def test_bank_across_flags_every_target_at_once() -> None:
    """For round bases, _bank judges every (touching spot, target model) pair at once:
    the token and barricade flags are those of the per-target loop, on every spot of
    the charge's banks (walls and a barricade; the barricade's targets at 1" of it and
    a hair beyond)."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.world import build_world

    system = find_system("40k")
    cases = [(_walls_scenario(0.0), ("B", "C"))] + [(_barricade_scenario(g), ("B",)) for g in (0.0, 0.37, 0.3701)]
    flagged = 0
    for data, targets in cases:
        world = build_world(scenario_from_data(data))
        prob = system._problem(world, ChargeRequest(charger="A", targets=targets, roll=12))
        assert prob.across
        prob.solve(12.0, improve=False)  # grow the banks round a placement
        for key, b in prob.banks.items():
            rep = prob.rep[key]
            nb = prob._bank(rep, b.pts, b.z)
            tok, bar = _plain_across(prob, rep, b.pts, b.z)
            assert np.array_equal(nb.tok, tok) and np.array_equal(nb.bar, bar)
            flagged += int(tok.sum() + bar.sum())
    assert flagged > 0


def _plain_face_spots(mover, poly, toward, circles=None):  # noqa: ANN001, ANN202
    """face_spots as it was written before round 5 (a Python loop over each root)."""
    import math

    c = mover.center
    V = poly.V
    toward = np.atleast_2d(np.asarray(toward, dtype=float)).reshape(-1, 2)
    if circles is not None:
        CC = np.asarray(circles[0], dtype=float).reshape(-1, 2)
        CR = np.asarray(circles[1], dtype=float).reshape(-1)
    else:
        CC, CR = np.zeros((0, 2)), np.zeros(0)
    out = []
    for a, b in zip(V, np.roll(V, -1, axis=0), strict=True):
        e = b - a
        L2 = float(e @ e)
        if L2 == 0:
            continue
        n = np.array([e[1], -e[0]]) / math.sqrt(L2)
        for o in np.vstack([mp.support(-n[None]) - c for mp in mover.parts]):
            a0 = a - o
            ts = [0.0, 1.0]
            ts.extend(np.clip((toward - a0) @ e / L2, 0.0, 1.0))
            if len(CR):
                w = a0[None, :] - CC
                B = w @ e / L2
                Cq = (np.einsum("ij,ij->i", w, w) - CR * CR) / L2
                disc = B * B - Cq
                ok = disc >= 0
                sq = np.sqrt(np.where(ok, disc, 0.0))
                for t in np.concatenate([(-B - sq)[ok], (-B + sq)[ok]]):
                    if -1e-12 <= t <= 1 + 1e-12:
                        ts.append(min(1.0, max(0.0, float(t))))
            out.append(a0 + np.asarray(ts)[:, None] * e)
    if mover.is_disc and len(CR):
        rm = float(mover.parts[0].radius)
        nv = len(V)
        for k in range(nv):
            ein, eout = V[k] - V[k - 1], V[(k + 1) % nv] - V[k]
            lo = math.atan2(-ein[0], ein[1])
            span = (math.atan2(-eout[0], eout[1]) - lo) % (2 * math.pi)
            v = CC - V[k]
            d = np.hypot(v[:, 0], v[:, 1])
            ok = (d > 0) & (d <= rm + CR) & (d >= np.abs(rm - CR))
            if not ok.any():
                continue
            base = np.arctan2(v[ok, 1], v[ok, 0])
            half = np.arccos(np.clip((rm * rm + d[ok] ** 2 - CR[ok] ** 2) / (2 * rm * d[ok]), -1.0, 1.0))
            for ang in np.concatenate([base + half, base - half]):
                if (ang - lo) % (2 * math.pi) <= span:
                    out.append((V[k] + rm * np.array([math.cos(ang), math.sin(ang)]))[None])
    return np.vstack(out) if out else np.zeros((0, 2))


@settings(max_examples=60, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), round_mover=st.booleans())
@example(seed=0, round_mover=True)
@example(seed=1, round_mover=False)
def test_face_spots_is_the_root_loop_bit_for_bit(seed: int, round_mover: bool) -> None:
    """face_spots filters and clamps its edge roots in arrays and its corner-arc angles
    in one test: the same rows in the same order as the loop over each root. Circles
    through a corner and tangent to an edge put roots exactly on 0, 1 and the clamp's
    hair."""
    from chargeref.geometry.shapes import ConvexPolygon, Disc, Footprint
    from chargeref.systems.w40k.solver_base import face_spots

    rng = np.random.default_rng(seed)
    poly = ConvexPolygon(((0.0, 0.0), (4.0, 0.0), (4.0, 0.2), (0.0, 0.2)))
    if round_mover:
        mover = Footprint((Disc((0.0, -3.0), 0.63),))
    else:
        mover = Footprint((ConvexPolygon(((-0.5, -3.5), (0.5, -3.5), (0.5, -2.5), (-0.5, -2.5))),))
    n = 12
    CC = np.vstack([rng.uniform(-3, 7, (n, 2)), [[0.0, -0.63], [4.0, 0.0], [2.0, -1.63]]])
    CR = np.concatenate([rng.uniform(0.1, 4.0, n), [0.63, 1.26, 1.0]])
    toward = rng.uniform(-3, 7, (3, 2))
    got = face_spots(mover, poly, toward, (CC, CR))
    want = _plain_face_spots(mover, poly, toward, (CC, CR))
    assert got.shape == want.shape and np.array_equal(got, want)
    assert np.array_equal(face_spots(mover, poly, toward), _plain_face_spots(mover, poly, toward))


def test_growing_is_concatenation() -> None:
    from chargeref.systems.w40k.solver_base import Growing

    rng = np.random.default_rng(3)
    for dtype in (bool, int, float):
        plain = (rng.uniform(size=5) > 0.5).astype(dtype)
        g = Growing(plain)
        for size in (0, 1, 7, 30, 0, 200):
            x = (rng.uniform(size=size) * 10).astype(dtype)
            plain = np.concatenate([plain, x])
            g.extend(x)
            assert g.a.dtype == plain.dtype and np.array_equal(g.a, plain)


@pytest.mark.parametrize("cells", [1_000_000, 150])
def test_cost_rows_of_a_group_are_the_model_by_model_arrays(cells: int, monkeypatch) -> None:  # noqa: ANN001
    """CostBook._append_rows keeps a shape's models in one buffer: every model's costs,
    exactness and pending flags equal those appended model by model (_append), also
    after a model's own append takes it out of the group and after a cost is planned
    in place."""
    from chargeref.systems.w40k import costs
    from chargeref.systems.w40k.costs import CostBook

    # a small limit: the group outgrows one buffer and goes on model by model
    monkeypatch.setattr(costs, "GROUP_CELLS", cells)

    class M:
        def __init__(self, mid: str) -> None:
            self.id = mid

    def fresh() -> CostBook:
        cb = CostBook()
        ids = ["a", "b", "c"]
        cb.costs = {i: np.zeros(0) for i in ids}
        cb.exact = {i: np.zeros(0, dtype=bool) for i in ids}
        cb.pending = {i: np.zeros(0, dtype=bool) for i in ids}
        cb._cbuf, cb._gbuf, cb._gof = {}, {}, {}
        return cb

    rng = np.random.default_rng(0)
    grouped, single = fresh(), fresh()
    ms = [M("a"), M("b"), M("c")]
    for step, size in enumerate((3, 70, 0, 1, 130, 5)):
        C = rng.uniform(size=(3, size))
        E = rng.uniform(size=(3, size)) > 0.5
        P = rng.uniform(size=(3, size)) > 0.5
        grouped._append_rows(ms, C, E, P if step % 2 else None)
        for i, m in enumerate(ms):
            single._append(m.id, C[i], E[i], P[i] if step % 2 else None)
        if step == 3:
            for cb in (grouped, single):  # a model's own append, then a planned cost
                cb._append("b", np.array([7.0]), np.array([True]))
                cb._append("a", np.array([7.0]), np.array([True]))
                cb._append("c", np.array([7.0]), np.array([True]))
                cb.costs["a"][1] = 9.0
        for m in ms:
            for name in ("costs", "exact", "pending"):
                assert np.array_equal(getattr(grouped, name)[m.id], getattr(single, name)[m.id]), (step, m.id, name)


def test_kept_loci_are_the_root_finder_answers() -> None:
    """The nearest points and circle crossings of an oval target's loci kept per problem
    (_locus_memo) are what the root finder answers afresh, and a second request gets
    the same array."""
    import sys
    from pathlib import Path

    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.geometry.placement import locus_circle_crossings, locus_nearest
    from chargeref.systems.w40k.world import build_world

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from scenarios import oval_target

    data, charger, targets, roll = oval_target()
    world = build_world(scenario_from_data(data))
    prob = find_system("40k")._problem(world, ChargeRequest(charger=charger, targets=tuple(targets), roll=roll))
    m, t = prob.models[0], prob.all_targets[0]
    for gap in (1e-9, 1.0):
        a = prob._nearest_on_locus(m, t, gap, m.xy)
        assert a is prob._nearest_on_locus(m, t, gap, m.xy.copy())
        assert np.array_equal(a, locus_nearest(m.fp, t.fp, gap, m.xy))
        for rho in (4.0, 8.0 - 1e-9):
            c = prob._locus_circle(m, t, gap, m.xy, rho)
            assert np.array_equal(c, locus_circle_crossings(m.fp, t.fp, gap, m.xy, rho))


def test_kept_closer_flags_are_the_fresh_test() -> None:
    """ChargeProblem.closer (kept per model, extended as the bank grows, also from the
    search's batch test) equals the "ends closer" test computed afresh on the whole
    bank, and follows start distances that are replaced (as pivots.py does)."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.solver_base import OUT_MARGIN
    from chargeref.systems.w40k.world import build_world

    world = build_world(scenario_from_data(_walls_scenario(0.0)))
    prob = find_system("40k")._problem(world, ChargeRequest(charger="A", targets=("B", "C"), roll=12))
    assert prob.enforce_closer

    def fresh(m):  # noqa: ANN001, ANN202
        b = prob.banks[prob.keys[m.id]]
        return np.any(b.dist < prob.start_dist[prob.index[m.id]][None, :] - OUT_MARGIN, axis=1)

    before = {m.id: prob.closer(m).copy() for m in prob.models}
    prob.solve(12.0, improve=False)  # the banks grow; the search extends the kept rows
    for m in prob.models:
        got = prob.closer(m)
        assert np.array_equal(got, fresh(m)) and np.array_equal(got[: len(before[m.id])], before[m.id])
    prob.start_dist = prob.start_dist + 0.5  # replaced: measured again
    assert all(np.array_equal(prob.closer(m), fresh(m)) for m in prob.models)
    assert not all(np.array_equal(prob.closer(m)[: len(before[m.id])], before[m.id]) for m in prob.models)
