"""Round 7 speed paths of the T9A solver against the plain expressions they replace.

* ``reach.solve_one`` (one offset and one align angle in plain floats) gives the
  numbers of the array ``solve`` bit for bit, so ``charge._approach_at`` (the detour
  search's one-approach question) is the same approach;
* ``charge._align_angles`` (a set of plain floats, sorted) is the array ``np.unique``
  makes of the same values, and falls back to it where a value is NaN or -0.0;
* ``charge.count_1d`` with its comparisons written out counts the same models at the
  touching edge (TOL apart, and 1e-9 beyond);
* an end overlapping the charged unit is refused on ``gap_lower`` exactly where it is
  on ``gap``, and ``charge.end_overlaps_target`` (the facing's normal first) likewise:
  overlap TOL, 1e-9 either side, and turned or shifted ends;
* the combined search's node (ends fitting the placed ones from cached lists, the
  gain cut) gives the plain node's answers (``plan_combined(fast=False)``), on one
  facing and on two;
* a combined charge works out the priorities of the finished combat once.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import B20, SYSTEM, scen, unit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.shapes import TOL
from chargeref.systems.t9a import charge, combined, resolve
from chargeref.systems.t9a.block import Block
from chargeref.systems.t9a.geom import Shape, gap, gap_lower
from chargeref.systems.t9a.reach import ReachTable, reach_table, solve, solve_one
from chargeref.systems.t9a.wheel import MAX_ALIGN

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _same(a: float, b: float) -> bool:
    """The same float, sign of zero included."""
    return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)


def _charger(x: float, y: float, facing: float, files: int, bw: float) -> Block:
    return Block("X", 1, (x, y), facing, files, files * 2, bw, B20)


TARGET = Block("T", 2, (24.0, 20.0), 90.0, 8, 24, B20, B20)


# ----------------------------------------------------------------------------- solve_one


@SETTINGS
@given(x=st.floats(10, 38), y=st.floats(21, 34), facing=st.floats(0, 360, exclude_max=True),
       files=st.integers(1, 6), bw=st.sampled_from([B20, 25 / 25.4, 1.0, 0.6]),
       side=st.sampled_from(["front", "left", "right", "rear"]),
       s=st.floats(-6, 6), delta=st.floats(-90, 90))
@example(x=24.5, y=27.0, facing=270.0, files=3, bw=B20, side="front", s=0.3937007874, delta=0.87224421)
@example(x=24.5, y=27.0, facing=270.0, files=3, bw=B20, side="front", s=0.0, delta=0.0)
@example(x=24.5, y=27.0, facing=270.0, files=3, bw=B20, side="front", s=0.0, delta=-0.0)
@example(x=19.5, y=26.0, facing=285.0, files=3, bw=B20, side="front", s=-1.968503937, delta=MAX_ALIGN)
@example(x=19.5, y=26.0, facing=285.0, files=3, bw=B20, side="front", s=-1.968503937, delta=-MAX_ALIGN)
# a wheel of exactly 90 degrees, and a hair over (the solve's own edge)
@example(x=30.0, y=26.0, facing=0.0, files=3, bw=B20, side="front", s=0.0, delta=0.0)
@example(x=30.0, y=26.0, facing=1e-9, files=3, bw=B20, side="front", s=0.0, delta=0.0)
@example(x=30.0, y=26.0, facing=2e-9, files=3, bw=B20, side="front", s=0.0, delta=0.0)
# the contact point at the facing's end
@example(x=24.0, y=27.0, facing=270.0, files=3, bw=B20, side="front", s=TARGET.width / 2 - 3 * B20 / 2, delta=5.0)
def test_solve_one_is_the_array_solve(x: float, y: float, facing: float, files: int, bw: float, side: str,
                                      s: float, delta: float) -> None:
    ch = _charger(x, y, facing, files, bw)
    fr = TARGET.facing_of(side)
    one = solve_one(ch, fr, s, delta)
    assert one is not None
    r = solve(ch, fr, np.array([s]), np.array([delta]))
    ok, theta, d1, d2, dist, xp = one
    assert ok == bool(r["ok"][0])
    for got, key in ((theta, "theta"), (d1, "d1"), (d2, "d2"), (dist, "dist"), (xp, "xp")):
        assert _same(got, float(r[key][0])), key
    a, b = charge._approach_at(ch, fr, s, delta), charge._approach_at_plain(ch, fr, s, delta)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        for u, v in ((a.s, b.s), (a.delta, b.delta), (a.theta, b.theta), (a.d1, b.d1), (a.d2, b.d2),
                     (a.distance, b.distance)):
            assert _same(u, v)
        assert (a.pivot is None) == (b.pivot is None)
        if a.pivot is not None:
            assert np.array_equal(a.pivot, b.pivot)


def test_solve_one_refuses_what_is_not_a_finite_float() -> None:
    ch = _charger(24.5, 27.0, 270.0, 3, B20)
    fr = TARGET.facing_of("front")
    assert solve_one(ch, fr, math.nan, 0.0) is None
    assert solve_one(ch, fr, 0.0, math.inf) is None
    # the approach then comes from the array solve
    assert charge._approach_at(ch, fr, math.nan, 0.0) is None


# ----------------------------------------------------------------------------- align angles


@SETTINGS
@given(x=st.floats(12, 36), y=st.floats(22, 32), facing=st.floats(180, 360, exclude_max=True),
       files=st.integers(1, 5), side=st.sampled_from(["front", "left", "right"]), u=st.floats(0, 1))
@example(x=24.5, y=27.0, facing=270.0, files=3, side="front", u=0.5)
@example(x=19.5, y=26.0, facing=285.0, files=3, side="front", u=0.0)
@example(x=30.5, y=24.0, facing=240.0, files=3, side="front", u=1.0)
def test_align_angles_are_the_unique_of_both_parts(x: float, y: float, facing: float, files: int, side: str,
                                                   u: float) -> None:
    ch = _charger(x, y, facing, files, B20)
    fr = TARGET.facing_of(side)
    tb = reach_table(ch, fr)
    lo, hi = charge.contact_range(ch, fr)
    # an offset anywhere, and each row's ends (where the 1e-9 margins decide)
    offsets = [lo + u * (hi - lo)] + [float(v) for v in tb.A[:6]] + [float(v) for v in tb.B[:6]]
    offsets += [float(v) - 1e-9 for v in tb.A[:3]] + [float(v) + 1.1e-9 for v in tb.B[:3]]
    for s in offsets:
        a = charge._align_angles(ch, fr, s, tb)
        b = charge._align_angles_plain(ch, fr, s, tb)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_align_angles_fall_back_to_np_unique_on_negative_zero_or_nan() -> None:
    ch = _charger(24.5, 27.0, 270.0, 3, B20)
    fr = TARGET.facing_of("front")
    tb = reach_table(ch, fr)
    assert tb.plain_rows() is not None
    for odd in (-0.0, math.nan):
        t2 = ReachTable(np.append(tb.D, odd), np.append(tb.A, -1.0), np.append(tb.B, 1.0), list(tb.spans))
        assert t2.plain_rows() is None
        a = charge._align_angles(ch, fr, 0.0, t2)
        b = charge._align_angles_plain(ch, fr, 0.0, t2)
        assert a.tobytes() == b.tobytes()


# ----------------------------------------------------------------------------- count_1d


def _count_plain(ch: Block, s: float, prof: list[tuple[str, float, float]]) -> tuple[frozenset[int], frozenset[str]]:
    cm, tm = set(), set()
    for k in range(ch.files):
        hi = s + ch.width / 2 - k * ch.bw
        lo = hi - ch.bw
        for j, a, b in prof:
            if max(a, lo) <= min(b, hi) + TOL:
                cm.add(k)
                tm.add(j)
    return frozenset(cm), frozenset(tm)


@pytest.mark.parametrize("beyond", [0.0, TOL / 2, TOL, TOL + 1e-9, 2e-6])
def test_count_1d_at_the_touching_edge(beyond: float) -> None:
    ch = _charger(0.0, 0.0, 0.0, 3, 1.0)
    # one enemy model whose left end lies ``beyond`` past the charger's right edge
    s = 0.0
    edge = s - ch.width / 2
    prof = [("T.0", edge - 1.0 - beyond, edge - beyond), ("T.1", edge + 0.25, edge + 1.25)]
    got = charge.count_1d(ch, s, prof)
    assert got == _count_plain(ch, s, prof)
    assert ("T.0" in got[1]) == (beyond <= TOL)


@SETTINGS
@given(s=st.floats(-5, 5), files=st.integers(1, 6), bw=st.sampled_from([B20, 1.0, 0.6]),
       cuts=st.lists(st.floats(-6, 6), min_size=2, max_size=12))
@example(s=0.0, files=3, bw=1.0, cuts=[-1.5, -0.5, 0.5, 1.5])
@example(s=0.0, files=3, bw=1.0, cuts=[1.5 + TOL, 2.5])
@example(s=0.0, files=3, bw=1.0, cuts=[1.5 + TOL + 1e-9, 2.5])
def test_count_1d_is_the_max_min_expression(s: float, files: int, bw: float, cuts: list[float]) -> None:
    ch = _charger(0.0, 0.0, 0.0, files, bw)
    cuts = sorted(cuts)
    prof = [(f"T.{i}", a, b) for i, (a, b) in enumerate(zip(cuts, cuts[1:], strict=False))]
    assert charge.count_1d(ch, s, prof) == _count_plain(ch, s, prof)


# ----------------------------------------------------------------------------- gap_lower at the target


@pytest.mark.parametrize("overlap", [0.0, 1e-9, TOL - 1e-9, TOL, TOL + 1e-9, 1e-3, -1e-6, -0.5])
@pytest.mark.parametrize("turn", [0.0, 30.0])
def test_overlap_test_on_gap_lower_is_the_one_on_gap(overlap: float, turn: float) -> None:
    a = Shape.poly(np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]]))
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    base = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    rot = base @ np.array([[c, s], [-s, c]])
    rot = rot - [rot[:, 0].min(), 0.0] + [2.0 - overlap, 0.0]
    b = Shape.poly(rot)
    assert (gap_lower(a, b) < -TOL) == (gap(a, b) < -TOL)
    if overlap > 0 and turn == 0.0:
        assert (gap(a, b) < -TOL) == (overlap > TOL)


# ----------------------------------------------------------------------------- the combined search


def _three(a: tuple[float, float, float], b: tuple[float, float, float], c: tuple[float, float, float]) -> object:
    return scen([unit("T", 2, (24, 20), 90, 8, 24),
                 unit("A", 1, a[:2], a[2], 3, 9), unit("B", 1, b[:2], b[2], 3, 9), unit("C", 1, c[:2], c[2], 3, 9)],
                charges=[{"charger": x, "targets": ["T"], "dice": [5, 6]} for x in "ABC"])


CASES = {
    "bench": _three((19.5, 26, 285), (24.5, 27, 270), (30.5, 24, 240)),
    # one charger on the flank: pairs on two facings (the ends' shapes decide)
    "flank": _three((19.5, 26, 285), (26.5, 27, 270), (36, 18, 180)),
    # all close: few ends fit together
    "tight": _three((21, 25, 280), (24, 26, 270), (27, 25, 260)),
}


def _phase(s: object, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    def plan(world, members, target):  # noqa: ANN001, ANN202
        return combined.plan_combined(world, members, target, fast=fast)

    with monkeypatch.context() as m:
        m.setattr(resolve, "plan_combined", plan)
        res = SYSTEM.phase(s, 1)
    return [r.to_json_data() for r in res.rulings]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_node_gives_the_plain_search(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _phase(CASES[name], True, monkeypatch)
    assert fast == _phase(CASES[name], False, monkeypatch)
    if name == "bench":
        assert sum(r["success"] for r in fast) == 3


def test_combined_priorities_are_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    orig = resolve.Phase._priorities

    def counted(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls[0] += 1
        return orig(self, *a, **k)

    monkeypatch.setattr(resolve.Phase, "_priorities", counted)
    res = SYSTEM.phase(CASES["bench"], 1)
    assert calls[0] == 1
    pri = [r.details["priorities"] for r in res.rulings]
    assert pri[0] is not None and all(p == pri[0] for p in pri)
    assert pri[0]["charging_units_engaged"] == 3


@pytest.mark.parametrize("into", [0.0, -1e-9, 1e-9, TOL - 1e-9, TOL - 1e-10, TOL, TOL + 1e-10, TOL + 1e-9, 1e-3,
                                  -0.5])
@pytest.mark.parametrize("turn", [0.0, 0.5, 20.0])
@pytest.mark.parametrize("side", ["front", "left", "rear"])
@pytest.mark.parametrize("s", [0.0, 2.9, -4.0])
def test_end_overlap_on_the_facing_normal_is_the_gap_test(into: float, turn: float, side: str, s: float) -> None:
    fr = TARGET.facing_of(side)
    ch = _charger(0.0, 0.0, 0.0, 3, B20)
    # the end pose at offset s, pushed ``into`` the target along the facing's normal,
    # and turned about its front midpoint
    end = ch.at(fr.pt(s, -into), fr.psi)
    if turn:
        end = end.turned(end.F, turn)
    sh, ts = end.shape(), TARGET.shape()
    want = gap(sh, ts) < -TOL
    assert charge.end_overlaps_target(sh, ts, fr) == want
    assert (gap_lower(sh, ts) < -TOL) == want
    if turn == 0.0 and abs(s) < 1.0 and abs(into - TOL) >= 1e-10:
        # (exactly TOL in is left to rounding)
        assert want == (into > TOL)


# ----------------------------------------------------------------------------- per-ruling tables


class _NoTables:
    """Stands in for the tables' context variable: no ruling ever has tables."""

    def get(self) -> None:
        return None

    def set(self, value: object) -> object:
        return None

    def reset(self, token: object) -> None:
        return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_phases_agree_with_and_without_the_new_tables(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from chargeref.systems.t9a import memo

    seen: dict[str, int] = {}
    orig = memo.table

    def spy(tname: str) -> dict | None:
        t = orig(tname)
        if t is not None:
            seen[tname] = len(t)
        return t

    with monkeypatch.context() as m:
        m.setattr(charge, "memo_table", spy)
        with_tables = [r.to_json_data() for r in SYSTEM.phase(CASES[name], 1).rulings]
    # each charger's offsets and end events were asked more than once, worked out once
    assert 0 < seen["candidate_offsets"] and 0 < seen["end_events"]
    with monkeypatch.context() as m:
        m.setattr(memo, "_TABLES", _NoTables())
        without = [r.to_json_data() for r in SYSTEM.phase(CASES[name], 1).rulings]
    assert with_tables == without


def test_candidate_offsets_table_tells_numpy_scalars_from_floats() -> None:
    from chargeref.systems.t9a import memo

    ch = _charger(24.5, 27.0, 270.0, 3, B20)
    fr = TARGET.facing_of("front")
    tb = reach_table(ch, fr)
    prof = charge.target_profile(TARGET, fr)
    ev = 0.123456789
    plain_f = charge._candidate_offsets(ch, fr, prof, tb, (ev,))
    plain_n = charge._candidate_offsets(ch, fr, prof, tb, (np.float64(ev),))
    with memo.scope():
        a = charge.candidate_offsets(ch, fr, prof, tb, [ev])
        b = charge.candidate_offsets(ch, fr, prof, tb, [np.float64(ev)])
        a2 = charge.candidate_offsets(ch, fr, prof, tb, [ev])
    assert a == plain_f == a2 and b == plain_n
    assert [type(x) for x in a] == [type(x) for x in plain_f]
    assert [type(x) for x in b] == [type(x) for x in plain_n]
    assert a is not a2  # a copy each time


# ----------------------------------------------------------------------------- model centres


@SETTINGS
@given(x=st.floats(-60, 60), y=st.floats(-60, 60), facing=st.floats(0, 360, exclude_max=True),
       files=st.integers(1, 9), models=st.integers(1, 60), bw=st.floats(0.3, 3.0), bd=st.floats(0.3, 3.0))
@example(x=24.0, y=20.0, facing=90.0, files=8, models=24, bw=B20, bd=B20)
@example(x=0.0, y=-0.0, facing=0.0, files=5, models=7, bw=1.0, bd=1.0)  # a short, centred last rank
@example(x=1.0, y=1.0, facing=359.999999, files=6, models=2, bw=0.3, bd=3.0)  # fewer models than files
def test_model_centres_are_block_model_centres(x: float, y: float, facing: float, files: int, models: int,
                                               bw: float, bd: float) -> None:
    from chargeref.geometry.blocks import block_model_centres

    b = Block("X", 1, (x, y), facing, files, models, bw, bd)
    want = block_model_centres((x, y), facing, files, models, bw, bd)
    got = b.model_centres()
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
    # worked out once per block, handed out as copies
    got[0, 0] += 1.0
    assert b.model_centres().tobytes() == want.tobytes()
    assert b.with_flags({"engaged"}).model_centres().tobytes() == want.tobytes()


# ----------------------------------------------------------------------------- turns about the target's corner


def _turned_rect(cx: float, cy: float, w: float, h: float, a: float) -> Shape:
    c, s = math.cos(a), math.sin(a)
    pts = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return Shape.poly(np.array([[cx + c * x - s * y, cy + s * x + c * y] for x, y in pts]))


@SETTINGS
@given(a=st.tuples(st.floats(-4, 4), st.floats(-4, 4), st.floats(0.5, 4), st.floats(0.5, 4), st.floats(0, 7)),
       b=st.tuples(st.floats(-4, 4), st.floats(-4, 4), st.floats(0.5, 4), st.floats(0.5, 4), st.floats(0, 7)),
       corner=st.integers(-1, 3), px=st.floats(-5, 5), py=st.floats(-5, 5), delta=st.floats(-2, 2))
@example(a=(0.0, 1.0, 2.0, 2.0, 0.0), b=(0.0, -1.0, 2.0, 2.0, 0.0), corner=2, px=0.0, py=0.0, delta=0.5)
@example(a=(0.0, 1.0, 2.0, 2.0, 0.0), b=(0.0, -1.0, 2.0, 2.0, 0.0), corner=3, px=0.0, py=0.0, delta=-0.5)
@example(a=(3.0, 3.0, 1.0, 1.0, 0.3), b=(-3.0, -3.0, 1.0, 1.0, 0.0), corner=-1, px=0.0, py=0.0, delta=math.pi)
def test_own_edge_turn_bound_never_exceeds_the_exact_sweep(a: tuple[float, ...], b: tuple[float, ...], corner: int,
                                                           px: float, py: float, delta: float) -> None:
    from chargeref.systems.t9a.geom import turn_gap_lower_own
    from chargeref.systems.t9a.geom_turn import _rot_pts, rot_sweep_gap_v

    A, B = _turned_rect(*a), _turned_rect(*b)
    if corner >= 0:  # the pivot at a corner of B (as an align turn about the facing's end)
        px, py = float(B.V[corner][0]), float(B.V[corner][1])
    lb = turn_gap_lower_own(A, (px, py), delta, B)
    piv = np.array([px, py])
    assert lb <= rot_sweep_gap_v(A, piv, delta, B) + 1e-12
    for k in range(0, 21):
        assert lb <= gap(Shape("poly", V=_rot_pts(A.V, piv, delta * k / 20)), B) + 1e-12


def _corner_turn(delta: float) -> tuple[Block, Block, tuple[float, float], Block]:
    """A 3-wide charger (1" bases) ends flush on T's front with its front edge past
    T's right end; the align turn pivots about that corner of T."""
    tgt = Block("T", 2, (24.0, 20.0), 90.0, 4, 8, 1.0, 1.0)
    fr = tgt.facing_of("front")
    corner = fr.pt(fr.length / 2 if delta > 0 else -fr.length / 2)
    end = Block("A", 1, (float(corner[0]) - (0.8 if delta < 0 else -0.8), 20.0), 270.0, 3, 6, 1.0, 1.0)
    pivot = (float(corner[0]), float(corner[1]))
    return tgt, end, pivot, end.turned(np.asarray(pivot), -delta)


@pytest.mark.parametrize("delta", [10.0, -10.0, 40.0, -40.0])
@pytest.mark.parametrize("strict", [False, True])
def test_align_turns_about_the_targets_corner_agree_with_the_exact_sweep(delta: float, strict: bool,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from chargeref.systems.t9a import world as world_mod
    from chargeref.systems.t9a.geom import turn_gap_lower, turn_gap_lower_own
    from chargeref.systems.t9a.geom_turn import rot_sweep_gap_v
    from chargeref.systems.t9a.world import TURN_BOUND_SLACK, Obstacle, Step, World

    tgt, end, pivot, start = _corner_turn(delta)
    w = World({"T": tgt, "A": start}, [], (48.0, 48.0), 1.0, None, ["T", "A"])
    steps = [Step("turn", delta, pivot=pivot, label="align")]
    ob = Obstacle("T", "enemy" if strict else "target", tgt.shape(), 0.0, strict)
    ang = math.radians(delta)
    exact = rot_sweep_gap_v(start.shape(), np.asarray(pivot), ang, tgt.shape())
    own = turn_gap_lower_own(start.shape(), pivot, ang, tgt.shape())
    # the static edge lines of T do not settle it; the charger's own front line does
    assert not ob.ok(turn_gap_lower(start.shape(), pivot, ang, tgt.shape()) - TURN_BOUND_SLACK)
    assert -1e-12 <= own <= exact + 1e-12 and abs(exact) <= 1e-12
    assert ob.ok(own - TURN_BOUND_SLACK) == (not strict) == ob.ok(exact)
    with_bounds = w.check_steps(start, steps, [ob])
    with monkeypatch.context() as m:
        m.setattr(world_mod, "turn_gap_lower", lambda *a: -math.inf)
        m.setattr(world_mod, "turn_gap_lower_own", lambda *a: -math.inf)
        exact_only = w.check_steps(start, steps, [ob])
    assert with_bounds == exact_only
    assert (with_bounds is None) == (not strict)  # a target may be touched, an enemy not
    # turned the wrong way (into T) neither bound clears it, nor the exact sweep
    wrong = end.turned(np.asarray(pivot), delta)
    assert not ob.ok(turn_gap_lower_own(wrong.shape(), pivot, -ang, tgt.shape()) - TURN_BOUND_SLACK)
    assert not ob.ok(rot_sweep_gap_v(wrong.shape(), np.asarray(pivot), -ang, tgt.shape()))


def test_reach_union_is_worked_out_once_and_handed_out_as_copies() -> None:
    ch = _charger(19.5, 26.0, 285.0, 3, B20)
    fr = TARGET.facing_of("front")
    tb = reach_table(ch, fr)
    fresh = ReachTable(tb.D, tb.A, tb.B, list(tb.spans))
    u = fresh.union()
    assert u == fresh._union() == tb.union()
    u.append((99.0, 100.0))
    assert fresh.union() == fresh._union()
