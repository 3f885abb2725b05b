"""The speed work's shortcuts give the very bits of the code they stand for.

Each fast path here claims to compute exactly what a plainer expression computes (the
same rows, in the same order, to the bit); these tests hold it to that on random
scenes and on the edge cases (touching circles, equal centres, no crossing)."""

from __future__ import annotations

import numpy as np
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
    from chargeref.validate import w40k as V
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
