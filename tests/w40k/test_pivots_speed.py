"""Pivot plans that cannot win are not searched (docs/40k.md, "Skipping plans that
cannot win"): the probe at the level a better answer needs (``pivots.probe_level``,
``pivots.may_win``), and the path fields a plan's problem borrows from the unturned
problem (``pivots.SharedFields``). Each skip is checked at its edge and against the
ruling the full search gives.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_pivot import charge, slot_scenario

from chargeref.geometry.shapes import TOL
from chargeref.ruling import Needed
from chargeref.scenario import scenario_from_data
from chargeref.systems.w40k import end_pivots, pivots
from chargeref.systems.w40k.end_pivots import StartTurnProblem
from chargeref.systems.w40k.solver import ChargeProblem
from chargeref.systems.w40k.system import W40k
from chargeref.systems.w40k.world import build_world

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _need(d: float) -> Needed:
    """An answer as ``needed_on`` reports it: the roll is the distance rounded up."""
    return Needed(distance=d, roll=max(1, math.ceil(d - 1e-6)))


def test_probe_level_is_the_edge_of_a_better_answer() -> None:
    """Same roll: an answer exactly ``TOL`` shorter is not better (the level), one 1e-9
    shorter still is; a lower roll: its largest distance, ``roll - 1 + 1e-6``, lies
    within the level even when the best distance is just above the roll below."""
    best = _need(6.5)
    level = pivots.probe_level(best)
    assert level == 6.5 - TOL
    assert not pivots._better(_need(level), best)
    assert pivots._better(_need(level - 1e-9), best)
    # the best distance barely above 6: a roll of 6 is better and reaches 6 + 1e-6
    best = Needed(distance=6.0 + 1.5e-6, roll=7)
    level = pivots.probe_level(best)
    assert level == pytest.approx(6.0 + 1e-6, abs=1e-15)
    assert pivots._better(_need(6.0 + 1e-6), best) and 6.0 + 1e-6 <= level
    # no answer yet: every answer is better, nothing to probe
    assert pivots.probe_level(Needed(distance=None, roll=None)) is None


@SETTINGS
@given(st.floats(0.5, 12.0), st.floats(0.0, 12.0))
@example(6.5, 6.5 - TOL)
@example(6.5, 6.5 - TOL - 1e-9)
@example(6.0 + 1.5e-6, 6.0 + 1e-6)
@example(7.0, 6.0)
@example(7.0, 6.000001)
def test_every_better_answer_lies_within_the_probe_level(best_d: float, d: float) -> None:
    """The proof of ``probe_level``: an answer strictly better than the best (``_better``)
    needs a placement no longer than the level."""
    best = _need(best_d)
    if pivots._better(_need(d), best):
        assert d <= pivots.probe_level(best)


def _spy(monkeypatch: pytest.MonkeyPatch, fn: str, log: list[Any]) -> None:
    real = getattr(pivots, fn)

    def spy(*a: Any) -> Any:
        log.append(real(*a))
        return log[-1]

    monkeypatch.setattr(pivots, fn, spy)
    monkeypatch.setattr(end_pivots, fn, spy, raising=False)


def test_a_plan_the_probe_rules_out_is_not_searched_and_the_ruling_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 90x50 mm rect at 45 degrees before a 3" slot: unturned it has no answer, so the
    two start plans are searched without a probe (nothing to beat yet: each problem is
    built once) and one of them wins; the end plan that follows has no placement at the
    level it would need and gets no least-roll search; the ruling is the one searching
    it gives."""
    data = slot_scenario("rect", [90, 50], 45.0, 3.0)
    probes: list[bool] = []
    _spy(monkeypatch, "may_win", probes)
    searched: list[Any] = []
    real_needed = W40k.needed_on

    def counting(self: W40k, prob: Any, bare: Any = None) -> Any:
        searched.append(type(prob).__name__)
        return real_needed(self, prob, bare)

    monkeypatch.setattr(W40k, "needed_on", counting)
    _, probed = charge(data)
    assert probes == [False]
    assert searched == ["ChargeProblem", "StartTurnProblem", "StartTurnProblem"]
    monkeypatch.setattr(pivots, "may_win", lambda *a: True)
    monkeypatch.setattr(end_pivots, "may_win", lambda *a: True)
    searched.clear()
    _, full = charge(data)
    assert searched == ["ChargeProblem", "StartTurnProblem", "StartTurnProblem", "EndTurnProblem"]
    assert probed.model_dump() == full.model_dump()
    assert probed.moves[0].segments[0]["kind"] == "pivot"


def test_an_end_plan_borrows_the_unturned_field_and_rules_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The end plan's model travels with its base as it stood, so its problem takes the
    unturned problem's field; planning it afresh gives the same ruling."""
    data = slot_scenario("rect", [90, 50], 45.0, 3.0)
    hits: list[Any] = []
    real = pivots.SharedFields.borrow

    def spy(self: Any, mid: str, fp: Any) -> Any:
        hits.append((type(self).__name__, mid, real(self, mid, fp) is not None))
        return real(self, mid, fp)

    monkeypatch.setattr(pivots.SharedFields, "borrow", spy)
    _, shared = charge(data)
    assert ("EndTurnProblem", "A1", True) in hits
    # the start plans turn their only model: nothing to borrow there
    assert all(not ok for kind, _, ok in hits if kind == "StartTurnProblem")
    monkeypatch.setattr(pivots.SharedFields, "borrow", lambda self, mid, fp: None)
    _, planned = charge(data)
    assert shared.model_dump() == planned.model_dump()


def test_a_field_is_borrowed_only_among_the_same_barriers() -> None:
    """The same base among the same barriers: the very field object; the walls taken
    away (other barriers, same model objects): none."""
    scen = scenario_from_data(slot_scenario("rect", [90, 50], 45.0, 3.0))
    world = build_world(scen)
    src = ChargeProblem(world, "A", ["T"], 12.0)
    fp = world.by_id["A1"].fp
    assert src._fields["A1"].base is fp
    same = StartTurnProblem(world, "A", ["T"], 12.0, field_source=src)
    assert same.borrow("A1", fp).field is src._fields["A1"]
    assert same.field(world.by_id["A1"]).field is src._fields["A1"]
    open_world = replace(world, features=[])
    other = StartTurnProblem(open_world, "A", ["T"], 12.0, field_source=src)
    assert other.borrow("A1", fp) is None
    assert getattr(other.field(open_world.by_id["A1"]), "field", None) is None
    # another cap: another budget, no borrowing
    assert StartTurnProblem(world, "A", ["T"], 11.0, field_source=src).borrow("A1", fp) is None


@pytest.mark.parametrize("kind,dims,facing", [("rect", [90, 50], 45.0), ("oval", [75, 42], 30.0)])
def test_a_remembered_cost_is_the_one_a_fresh_field_gives(kind: str, dims: list[float], facing: float) -> None:
    """``MemoField``: goals asked in two overlapping batches (the second in reverse)
    answer bit for bit what a fresh field gives when asked them all at once, paths
    round the walls' corners and through the slot included."""
    scen = scenario_from_data(slot_scenario(kind, dims, facing, 4.0))
    world = build_world(scen)
    src = ChargeProblem(world, "A", ["T"], 12.0)
    m = world.by_id["A1"]
    b = src.banks[src.keys["A1"]]
    # the bank's spots and goals beyond the wall, north and south of the slot
    beyond = np.array([[x, y] for x in (33.0, 35.5, 38.0) for y in (4.0, 9.5, 15.0, 20.5, 26.0)])
    pts = np.vstack([b.pts[b.ok], beyond])
    assert len(pts) >= 30
    fresh = src.planner.field(m.fp, budget=src.cap + 1e-9).cost(pts)
    ok = np.isfinite(fresh)
    straight = np.linalg.norm(pts - m.xy, axis=1)
    assert ok.sum() >= 10 and (fresh[ok] > straight[ok] + 1e-3).any()  # paths that bend
    memo = StartTurnProblem(world, "A", ["T"], 12.0, field_source=src).field(m)
    half = len(pts) // 2
    first = memo.cost(pts[: half + 5])
    second = memo.cost(pts[half - 5:][::-1])[::-1]
    got = np.concatenate([first[:half], second[5:]])
    assert got.tobytes() == fresh.tobytes()
    assert len(memo.memo) == len({p.tobytes() for p in pts})


def _oval_line() -> dict[str, Any]:
    """Two 60x35 mm ovals side by side, long axes across the way to a 40x40 mm rect 5"
    off: a charge whose spots the search grows round each placed model."""
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": 10},
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [
                {"id": f"A{i + 1}", "at": [14.0, 12.0 + 1.6 * i], "base": {"oval": [60, 35]}, "facing": 0.0}
                for i in range(2)]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [
                {"id": "T1", "at": [21.5, 13.0], "base": {"rect": [40, 40]}, "facing": 30.0}]},
        ],
    }


def _same_placement(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return (a.order == b.order and a.cost == b.cost and a.z == b.z and a.contacts == b.contacts and a.via == b.via
            and a.pos.keys() == b.pos.keys() and all(np.array_equal(a.pos[k], b.pos[k]) for k in a.pos))


def test_a_pristine_copy_searches_as_a_problem_built_afresh() -> None:
    """``pivots.pristine``: a plan's problem copied as built, the original then searched
    at two rolls (as the probe would: its banks grow), and the copy's least-roll
    search gives the very answer and placement of a problem built afresh (bit for bit),
    its banks untouched by the original's search."""
    from chargeref.systems import ChargeRequest

    scen = scenario_from_data(_oval_line())
    world = build_world(scen)
    system = W40k()
    req = ChargeRequest(charger="A", targets=("T",), roll=12)
    prob = system._problem(world, req)
    ps = pivots.plans(world, "A", ["T"], prob.barriers)
    assert ps
    plan = ps[0]

    def make() -> StartTurnProblem:
        w2, cost, _ = pivots.apply_plan(world, plan)
        return StartTurnProblem(w2, "A", ["T"], prob.cap, pivot_cost=cost, field_source=prob)

    probe = make()
    copy = pivots.pristine(probe)
    sizes = {k: len(b.pts) for k, b in copy.banks.items()}
    for R in (6.0, 12.0):
        system.solve_any(probe, None, R, improve=False)
    assert any(len(probe.banks[k].pts) > n for k, n in sizes.items())  # the probe grew its banks
    assert {k: len(b.pts) for k, b in copy.banks.items()} == sizes  # the copy's did not
    fresh = make()
    for k, b in fresh.banks.items():
        assert np.array_equal(b.pts, copy.banks[k].pts) and np.array_equal(b.ok, copy.banks[k].ok)
    n1, pl1 = system.needed_on(copy, None)
    n2, pl2 = system.needed_on(fresh, None)
    assert n1 == n2 and n1.roll is not None
    assert _same_placement(pl1, pl2)
    assert _same_placement(copy.solve(12.0), fresh.solve(12.0))
    assert pivots.pristine(None) is None
