"""Fast paths of the Warmaster solver against the plain computations they replace.

* ``ChargeBase.edge_free`` answers once per (enemy edge, stand size and kind, stands
  placed): every stand must get exactly what computing it afresh gives.
* ``ChargeBase.slide_free`` stops when one blocked interval reaches past both ends of
  the slide: the answer must equal ``free_intervals`` over every obstacle, also when a
  blocked interval ends exactly at an end of the slide (that end point stays free).
* ``Warmaster.problems`` may be handed the world already built: the same problems.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example as hexample
from hypothesis import given, settings
from hypothesis import strategies as st
from wm_helpers import EXAMPLES, SYSTEM, example, infantry_line, scen, stands

from chargeref.geometry.shapes import TOL
from chargeref.systems import ChargeRequest
from chargeref.systems.warmaster import placing as placing_mod
from chargeref.systems.warmaster import sweep as sweep_mod
from chargeref.systems.warmaster.geom import (
    _normals,
    _normals_of,
    bbox_gap,
    free_intervals,
    hull,
    overlaps,
    rect,
    rect_pts,
    sd,
    slide_blocked,
)
from chargeref.systems.warmaster.placing import EDGES, SNAP, Placed, Pose
from chargeref.systems.warmaster.solve import Charge
from chargeref.systems.warmaster.sweep import (
    boxes_of,
    leg_blocked,
    leg_memo,
    leg_sweep,
    route_cost,
    sweep_blocked,
)
from chargeref.systems.warmaster.world import build_world

DIAGRAMS = sorted(p.name for p in EXAMPLES.glob("diagram_*.yaml"))


def _plain_slide_free(ch: Charge, s, P0, t, lo, hi):  # noqa: ANN001, ANN202
    """slide_free without the box filter or the early exit: every obstacle's interval."""
    blo, bhi = ch.board_interval(P0, t)
    lo, hi = max(lo, blo), min(hi, bhi)
    if lo > hi:
        return []
    blocked = [iv for Ob in ch.final_obstacles(s) if (iv := slide_blocked(P0, t, Ob, SNAP)) is not None]
    return free_intervals(lo, hi, blocked)


@pytest.mark.parametrize("name", DIAGRAMS)
def test_edge_free_shared_by_stands_of_one_size(name: str) -> None:
    sc = example(name)
    c = sc.charges[0]
    ch = Charge(build_world(sc), c.charger, c.targets[0], sc.rules.variant)
    fresh = Charge(build_world(sc), c.charger, c.targets[0], sc.rules.variant)
    n = 0
    for s in ch.cstands:
        for e in ch.tstands:
            for ed in EDGES:
                got = ch.edge_free(s, e, ed, ch.cmin)
                assert got == fresh._edge_free_now(s, e, ed, ch.cmin)
                # and against the plain slide (no filter, no early exit)
                _, t, _, L, _ = ch.edge_frame(s, e, ed)
                if ch.cmin <= min(L, s.w) + 1e-12:
                    span = (L + s.w) / 2 - ch.cmin
                    P0 = ch.flush_pose(s, e, ed, 0.0).poly
                    assert got == _plain_slide_free(ch, s, P0, t, -span, span)
                n += 1
    # stands of one size share answers: fewer computed than asked
    assert len(ch._edge_free) < n or len(ch.cstands) == 1


@pytest.mark.parametrize("eps", [0.0, 1e-12, 1e-9, 1e-6, -1e-12, -1e-6])
def test_slide_free_early_exit_at_its_edge(eps: float) -> None:
    """The slide runs exactly over one friend's blocked interval, shrunk by ``eps`` at
    both ends: inside it (eps > 0) nothing is free (the early exit); with the ends
    equal (eps = 0) no early exit (free_intervals keeps the far end point); wider,
    two pieces are free."""
    s0 = scen({"units": [
        infantry_line("T", 2, [60], 50, 270),
        infantry_line("F", 1, [70], 47.5, 90),
        stands("C", 1, "infantry", [(40, 30)], 90),
    ]})
    ch = Charge(build_world(s0), "C", "T", "original")
    s, e = ch.cstands[0], ch.tstands[0]
    _, t, _, L, _ = ch.edge_frame(s, e, "front")
    P0 = ch.flush_pose(s, e, "front", 0.0).poly
    friend = ch.others[-1].poly
    iv = slide_blocked(P0, t, friend, SNAP)
    assert iv is not None
    lo, hi = iv[0] + eps, iv[1] - eps
    got = ch.slide_free(s, P0, t, lo, hi)
    assert got == _plain_slide_free(ch, s, P0, t, lo, hi)
    if eps > 0:
        assert got == []
    elif eps == 0:
        assert got == [(hi, hi)]  # an end the interval reaches is not passed over
    else:
        assert got == [(lo, iv[0]), (iv[1], hi)]


def test_slide_free_fully_covered_edge() -> None:
    """An enemy stand whose front is covered by a wider friend: nothing is free, and
    the early exit says so exactly as the plain computation does."""
    s0 = scen({"units": [
        infantry_line("T", 2, [60], 50, 270),
        stands("F", 1, "infantry", [(60, 48)], 90, base={"rect": [60, 20]}),
        stands("C", 1, "cavalry", [(40, 30)], 90),
    ]})
    ch = Charge(build_world(s0), "C", "T", "original")
    s, e = ch.cstands[0], ch.tstands[0]
    _, t, _, L, _ = ch.edge_frame(s, e, "front")
    span = (L + s.w) / 2 - ch.cmin
    P0 = ch.flush_pose(s, e, "front", 0.0).poly
    assert ch.slide_free(s, P0, t, -span, span) == [] == _plain_slide_free(ch, s, P0, t, -span, span)


@pytest.mark.parametrize("name", DIAGRAMS)
def test_problems_with_the_world_given(name: str) -> None:
    sc = example(name)
    assert SYSTEM.problems(sc, build_world(sc)) == SYSTEM.problems(sc)


def test_problems_with_the_world_given_bad_battlefield() -> None:
    sc = scen({"units": [infantry_line("T", 2, [60, 62], 50, 270), infantry_line("C", 1, [60], 50.5, 90)]})
    got = SYSTEM.problems(sc, build_world(sc))
    assert got and got == SYSTEM.problems(sc)
    assert np.all([p.field.startswith("units[") for p in got])


# ------------------------------------------------------------ plain-float geometry

def _np_bbox_gap(A: np.ndarray, B: np.ndarray) -> float:
    """The array expression ``bbox_gap`` replaced."""
    alo, ahi = A.min(axis=0), A.max(axis=0)
    blo, bhi = B.min(axis=0), B.max(axis=0)
    return float(max(alo[0] - bhi[0], blo[0] - ahi[0], alo[1] - bhi[1], blo[1] - ahi[1]))


_coord = st.floats(-200, 200, allow_nan=False)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_coord, _coord), min_size=2, max_size=8),
       st.lists(st.tuples(_coord, _coord), min_size=2, max_size=8))
@hexample([(0.0, 0.0), (1.0, 1.0)], [(1.000001, 0.0), (2.0, 1.0)])
@hexample([(0.0, 0.0), (1.0, 1.0)], [(1.0, 1.0), (2.0, 2.0)])
@hexample([(0.0, 0.0), (1.0, 1.0)], [(0.5, 0.5), (0.6, 0.6)])
def test_bbox_gap_is_the_array_value(a: list, b: list) -> None:
    A, B = np.array(a), np.array(b)
    assert bbox_gap(A, B) == _np_bbox_gap(A, B)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_coord, _coord, st.floats(-720, 720), st.floats(0.1, 10), st.floats(0.1, 10),
       _coord, _coord, st.floats(-720, 720))
@hexample(60.0, 50.0, 270.0, 4.0, 2.0, 60.0, 54.0, 90.0)
@hexample(0.0, 0.0, 0.0, 4.0, 2.0, 0.0, 0.0, 0.0)  # the same pose twice
def test_leg_sweep_is_the_array_hull(x0: float, y0: float, f0: float, w: float, d: float,
                                     x1: float, y1: float, f1: float) -> None:
    c0, c1 = np.array([x0, y0]), np.array([x1, y1])
    assert np.array_equal(np.array(rect_pts(c0, f0, w, d)), rect(c0, f0, w, d))
    plain = hull(np.concatenate([rect(c0, f0, w, d), rect(c1, f1, w, d)]))
    got = leg_sweep(c0, f0, c1, f1, w, d)
    assert got.shape == plain.shape and np.array_equal(got, plain)


@pytest.mark.parametrize("gap", [0.0, 5e-7, 1e-6, 1e-6 + 5e-10, 1e-6 + 2e-9, 1e-3])
def test_contacts_box_filter_at_its_edge(gap: float) -> None:
    """A charge ends touching; a bystander enemy stands ``gap`` beside the charger's
    placed stand: contact is reported exactly when the exact distance is within TOL."""
    s0 = scen({"units": [
        infantry_line("T", 2, [60], 50, 270),
        infantry_line("U", 2, [64 + gap], 46, 270),
        stands("C", 1, "infantry", [(60, 40)], 90),
    ]})
    ch = Charge(build_world(s0), "C", "T", "original")
    s = ch.cstands[0]
    pose = Pose(np.array([60.0, 48.0]), 90.0, s.w, s.d)
    placed = [Placed(s, pose, [s.c, pose.c], 8.0, "first")]
    got = SYSTEM._contacts(ch.w, placed, "T")
    near = [e for e in ch.enemies if sd(pose.poly, e.poly) <= TOL]
    assert sorted(got["touching"][s.sid]) == sorted(e.sid for e in near)
    assert ("U" in {ch.w.stand(x).unit for x in got["touching"][s.sid]}) == (gap <= TOL)


# ------------------------------------------------------------ sweeps, poses, bars

def _plain_sweep_blocked(P: np.ndarray, obstacles: list) -> bool:
    """``sweep_blocked`` as it was: both box tests, both separating-axis families."""
    boxes = boxes_of(obstacles)
    lo, hi = P.min(axis=0), P.max(axis=0)
    near = np.nonzero(np.all(boxes[:, :2] < hi + TOL, axis=1) & np.all(boxes[:, 2:] > lo - TOL, axis=1))[0]
    B = boxes[near]
    gap = np.maximum(np.maximum(lo[0] - B[:, 2], B[:, 0] - hi[0]), np.maximum(lo[1] - B[:, 3], B[:, 1] - hi[1]))
    NP, hP = _normals_of(P)
    for i in near[gap <= -TOL]:
        Ob = obstacles[i]
        if len(Ob) < 3:
            if sd(P, Ob) < -TOL:
                return True
            continue
        NO, hO = _normals(Ob)
        sep = max(float(np.max(np.min(Ob @ NP.T, axis=0) - hP)), float(np.max(np.min(P @ NO.T, axis=0) - hO)))
        if sep < -TOL:
            return True
    return False


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.floats(0, 20), st.floats(0, 20), st.floats(0, 360), st.floats(0, 20), st.floats(0, 20), st.floats(0, 360),
       st.lists(st.tuples(st.floats(0, 20), st.floats(0, 20), st.floats(0, 360)), min_size=1, max_size=6))
# a stand sliding past another: touching (depth 0), overlapping by TOL and a hair more
@hexample(0.0, 0.0, 90.0, 10.0, 0.0, 90.0, [(5.0, 2.0, 90.0)])
@hexample(0.0, 0.0, 90.0, 10.0, 0.0, 90.0, [(5.0, 2.0 - 1e-6, 90.0)])
@hexample(0.0, 0.0, 90.0, 10.0, 0.0, 90.0, [(5.0, 2.0 - 1.001e-6, 90.0)])
def test_sweep_blocked_is_the_plain_test(x0: float, y0: float, f0: float, x1: float, y1: float, f1: float,
                                         others: list) -> None:
    P = leg_sweep(np.array([x0, y0]), f0, np.array([x1, y1]), f1, 4.0, 2.0)
    obs = [rect(np.array([x, y]), f, 4.0, 2.0) for x, y, f in others] + [np.array([[3.0, 3.0], [6.0, 7.0]])]
    assert sweep_blocked(P, obs) == _plain_sweep_blocked(P, obs)


def test_sweep_blocked_at_the_overlap_tolerance() -> None:
    """Sliding along a stand's edge: blocked exactly when the overlap passes TOL."""
    P = leg_sweep(np.array([0.0, 0.0]), 90.0, np.array([10.0, 0.0]), 90.0, 4.0, 2.0)
    for depth, blocked in ((0.0, False), (0.5e-6, False), (2e-6, True), (1e-3, True)):
        obs = [rect(np.array([5.0, 2.0 - depth]), 90.0, 4.0, 2.0)]
        assert sweep_blocked(P, obs) is blocked
        assert _plain_sweep_blocked(P, obs) is blocked


def _plain_pose_free(ch: Charge, s, pose) -> bool:  # noqa: ANN001
    P = pose.poly
    if np.any(P[:, 0] < -TOL) or np.any(P[:, 1] < -TOL) or np.any(P[:, 0] > ch.w.width + TOL) \
            or np.any(P[:, 1] > ch.w.depth + TOL):
        return False
    return not any(overlaps(P, Ob) for Ob in ch.final_obstacles(s))


@pytest.mark.parametrize("name", DIAGRAMS)
def test_pose_free_and_placed_bars_are_the_plain_ones(name: str) -> None:
    sc = example(name)
    c = sc.charges[0]
    ruling = SYSTEM.charge(sc, ChargeRequest(charger=c.charger, targets=(c.targets[0],), dice=(2,)))
    ch = Charge(build_world(sc), c.charger, c.targets[0], sc.rules.variant)
    s = ch.cstands[0]
    # every stand's end pose from the ruling placed in turn; poses all round each
    by_id = {m.id: m for m in ruling.moves}
    for st_ in ch.cstands:
        m = by_id.get(st_.sid)
        if m is None:
            continue
        pose = Pose(np.array(m.to[:2], dtype=float), float(m.facing or st_.facing), st_.w, st_.d)
        for dx in (-1.0, -1e-6, 0.0, 1e-6, 1.0):
            for dy in (-1e-6, 0.0, 1e-6):
                q = Pose(pose.c + np.array([dx, dy]), pose.facing, s.w, s.d)
                assert ch.pose_free(s, q) == _plain_pose_free(ch, s, q)
        ch.placed.append(Placed(st_, pose, [st_.c, pose.c], 0.0, "line"))
        for fr in (s.w, 2 * s.w):
            got = ch._placed_bars_now(fr)
            plain = []
            for e in ch.enemies:
                for p in ch.placed:
                    g = sd(e.poly, p.poly)
                    if TOL < g <= fr + TOL:
                        plain.append((e.sid, p.stand.sid))
            assert [(a, b) for _, a, b in got] == plain


# ------------------------------------------------------------ remembered leg verdicts

@pytest.mark.parametrize("name", DIAGRAMS)
def test_routes_with_remembered_legs_are_the_plain_routes(name: str) -> None:
    """Every route the charge asks for, made again with no store and with a store
    that has seen all the others first: the same path and cost."""
    sc = example(name)
    c = sc.charges[0]
    asked: list[tuple] = []
    orig = sweep_mod.stand_route

    def spy(*a, **k):  # noqa: ANN002, ANN003, ANN202
        asked.append(a[:8])
        return orig(*a, **k)

    sweep_mod_stand_route = placing_mod.stand_route
    placing_mod.stand_route = spy
    try:
        SYSTEM.charge(sc, ChargeRequest(charger=c.charger, targets=(c.targets[0],), dice=(2,)))
    finally:
        placing_mod.stand_route = sweep_mod_stand_route
    store: dict = {}
    for a in asked + asked:  # the second round answers from the store
        plain = orig(*a)
        kept = orig(*a, store=store)
        assert (plain is None) == (kept is None)
        if plain is not None:
            assert plain[1] == kept[1]
            assert all(np.array_equal(p, q) for p, q in zip(plain[0], kept[0], strict=True))
            assert route_cost(plain[0], a[1], a[3], a[4], a[5], a[6]) == \
                route_cost(plain[0], a[1], a[3], a[4], a[5], a[6], store)


def test_leg_blocked_is_the_sweep_test() -> None:
    obs = [rect(np.array([5.0, 2.0 - 2e-6]), 90.0, 4.0, 2.0), rect(np.array([20.0, 20.0]), 0.0, 4.0, 2.0)]
    boxes = boxes_of(obs)
    store: dict = {}
    memo = leg_memo(obs, store)
    assert leg_memo(obs, store) is memo
    assert leg_memo(obs[::-1], store) is not memo  # another order is another set
    assert leg_memo(obs, None) == {}
    for c1, fb in (((10.0, 0.0), 90.0), ((10.0, -1.0), 90.0), ((0.0, 5.0), 45.0), ((10.0, 0.0), 90.0)):
        c0, c1a = np.array([0.0, 0.0]), np.array(c1)
        want = sweep_blocked(leg_sweep(c0, 90.0, c1a, fb, 4.0, 2.0), obs)
        assert leg_blocked(c0, 90.0, c1a, fb, 4.0, 2.0, obs, boxes, memo) is want
    assert len(memo) == 3
