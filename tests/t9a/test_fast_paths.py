"""The round-6 speed paths of the T9A solver against the plain expressions they replace.

* plain-float block corners, frames, facing points and bounding circles give the very
  numbers the array expressions give (the same IEEE operations in the same order);
* the separating-axis separation with each shape's own axes cached equals the plain
  ``_sat_small``, and the gap equals ``_poly_gap_small``, at the touching edge (0
  apart, 1e-6 apart, 1e-6 overlapping) as anywhere;
* the per-ruling tables (``memo``) change no answer: a move checked, an end slide, a
  unit contact and whole phases with the tables and without them agree, and the
  tables live only inside one ruling.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import SYSTEM, impassable, scen, unit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.systems.t9a import memo
from chargeref.systems.t9a import world as world_mod
from chargeref.systems.t9a.block import Block
from chargeref.systems.t9a.contact import unit_contact
from chargeref.systems.t9a.ends import end_events
from chargeref.systems.t9a.geom import (
    Shape,
    _poly_gap_small,
    _sat_shapes,
    _sat_small,
    angle_of,
    gap,
    gap_lower,
    gap_ok,
    turn_gap_lower,
)
from chargeref.systems.t9a.geom import (
    unit as unit_vec,
)
from chargeref.systems.t9a.geom_turn import _rot_pts, rot_sweep_gap_v
from chargeref.systems.t9a.world import TURN_BOUND_SLACK, Obstacle, Step, World

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

coord = st.floats(-60, 60, allow_nan=False)
angle = st.floats(0, 360, allow_nan=False, exclude_max=True)
size = st.floats(0.3, 3.0, allow_nan=False)


def _block(x: float, y: float, facing: float, files: int, models: int, bw: float, bd: float) -> Block:
    return Block("X", 1, (x, y), facing, files, models, bw, bd)


# ----------------------------------------------------------------------------- frames


@SETTINGS
@given(x=coord, y=coord, facing=angle, files=st.integers(1, 8), models=st.integers(1, 40), bw=size, bd=size)
@example(x=0.0, y=0.0, facing=0.0, files=1, models=1, bw=1.0, bd=1.0)
@example(x=24.0, y=20.0, facing=90.0, files=8, models=24, bw=20 / 25.4, bd=20 / 25.4)
@example(x=-0.0, y=1e-9, facing=359.999999, files=5, models=7, bw=0.3, bd=3.0)
def test_block_frame_and_corners_equal_the_array_expressions(x: float, y: float, facing: float, files: int,
                                                              models: int, bw: float, bd: float) -> None:
    b = _block(x, y, facing, min(files, models), models, bw, bd)
    F = np.asarray(b.front, dtype=float)
    f = unit_vec(b.facing)
    lv = np.array([-f[1], f[0]])
    hw, d = b.width / 2, b.depth
    V = np.stack([F + lv * hw, F + lv * hw - f * d, F - lv * hw - f * d, F - lv * hw])
    assert np.array_equal(b.f, f) and np.array_equal(b.l, lv)
    assert np.array_equal(b.shape().V, V)
    c = b.corners()
    assert np.array_equal(np.stack([c["FL"], c["RL"], c["RR"], c["FR"]]), V)
    # the corners run counter-clockwise: what Shape.poly would have made of them
    assert np.array_equal(Shape.poly(V).V, V)
    # flags change no geometry: the cached shape carries over
    assert b.with_flags({"engaged"}).shape() is b.shape()


@SETTINGS
@given(x=coord, y=coord, facing=angle, files=st.integers(1, 8), models=st.integers(1, 40), bw=size, bd=size,
       s=st.floats(-10, 10, allow_nan=False), h=st.floats(-3, 3, allow_nan=False))
@example(x=0.0, y=0.0, facing=0.0, files=1, models=1, bw=1.0, bd=1.0, s=0.0, h=0.0)
@example(x=3.0, y=-2.0, facing=45.0, files=4, models=8, bw=1.0, bd=1.0, s=-0.0, h=-0.0)
def test_facing_points_and_heading_equal_the_array_expressions(x: float, y: float, facing: float, files: int,
                                                               models: int, bw: float, bd: float, s: float,
                                                               h: float) -> None:
    b = _block(x, y, facing, min(files, models), models, bw, bd)
    for name in ("front", "rear", "left", "right"):
        fr = b.facing_of(name)
        for xs in (s, np.float64(s)):
            assert np.array_equal(fr.pt(xs, h), fr.mid + xs * fr.t + h * fr.n)
            assert np.array_equal(fr.pt(xs), fr.mid + xs * fr.t + 0.0 * fr.n)
        assert fr.psi == angle_of(-fr.n)


@SETTINGS
@given(pts=st.lists(st.tuples(coord, coord), min_size=3, max_size=9), scale=st.sampled_from([1e-3, 1.0, 1e3]))
@example(pts=[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], scale=1.0)
@example(pts=[(0.1, 0.2)] * 3, scale=1.0)
def test_bounding_circle_equals_the_array_expression(pts: list[tuple[float, float]], scale: float) -> None:
    V = np.array(pts) * scale
    sh = Shape("poly", V=V)
    c, r = sh.bbox_circle()
    c0 = V.mean(axis=0)
    d = V - c0
    assert np.array_equal(c, c0)
    assert r == float(np.sqrt(np.max(d[:, 0] ** 2 + d[:, 1] ** 2)))
    assert sh.bbox_circle_f() == (float(c0[0]), float(c0[1]), r)


# ----------------------------------------------------------------------------- gaps


def _rect(x0: float, y0: float, x1: float, y1: float) -> Shape:
    return Shape.poly(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))


def _turned_rect(cx: float, cy: float, w: float, h: float, a: float) -> Shape:
    c, s = math.cos(a), math.sin(a)
    return Shape.poly(np.array([[cx + c * px - s * py, cy + s * px + c * py]
                                for px, py in ((w / 2, h / 2), (-w / 2, h / 2), (-w / 2, -h / 2), (w / 2, -h / 2))]))


@pytest.mark.parametrize("dx, expect", [(0.0, 0.0), (1e-6, 1e-6), (-1e-6, -1e-6), (1.001, 1.001), (1.0, 1.0)])
def test_gap_of_rectangles_at_the_touching_edge(dx: float, expect: float) -> None:
    A = _rect(0.0, 0.0, 1.0, 1.0)
    B = _rect(1.0 + dx, 0.25, 2.0 + dx, 0.75)
    P, Q = A.V.tolist(), B.V.tolist()
    g = gap(A, B)
    assert g == _poly_gap_small(P, Q)
    assert _sat_shapes(A, B) == _sat_small(P, Q) == gap_lower(A, B)
    assert g == pytest.approx(expect, abs=1e-15)
    # the quick check decides as the exact gap does, for a friend (may touch) and an
    # enemy (may not)
    for ob in (Obstacle("F", "friend", B, 0.0, False), Obstacle("E", "enemy", B, 0.0, True)):
        assert gap_ok(A, B, ob.ok)[0] == ob.ok(g)


def test_the_edges_of_the_checks_fall_where_the_rules_put_them() -> None:
    A = _rect(0.0, 0.0, 1.0, 1.0)
    touching = _rect(1.0, 0.0, 2.0, 1.0)
    apart = _rect(1.001, 0.0, 2.0, 1.0)
    enemy_t = Obstacle("E", "enemy", touching, 0.0, True)
    enemy_a = Obstacle("E", "enemy", apart, 0.0, True)
    assert not gap_ok(A, touching, enemy_t.ok)[0]  # touching an enemy: not allowed
    assert gap_ok(A, apart, enemy_a.ok)[0]  # 0.001 apart: allowed


@SETTINGS
@given(a=st.tuples(st.floats(-5, 5), st.floats(-5, 5), st.floats(0.5, 6), st.floats(0.5, 6), st.floats(0, 7)),
       b=st.tuples(st.floats(-5, 5), st.floats(-5, 5), st.floats(0.5, 6), st.floats(0.5, 6), st.floats(0, 7)))
@example(a=(0.0, 0.0, 2.0, 2.0, 0.0), b=(2.0, 0.0, 2.0, 2.0, 0.0))
@example(a=(0.0, 0.0, 2.0, 2.0, 0.0), b=(2.000001, 0.0, 2.0, 2.0, 0.0))
@example(a=(0.0, 0.0, 2.0, 2.0, 0.0), b=(1.999999, 0.0, 2.0, 2.0, 0.0))
@example(a=(0.0, 0.0, 2.0, 2.0, 0.0), b=(2.0, 2.0, 2.0, 2.0, 0.0))
def test_cached_axes_give_the_plain_separation(a: tuple[float, ...], b: tuple[float, ...]) -> None:
    A, B = _turned_rect(*a), _turned_rect(*b)
    P, Q = A.V.tolist(), B.V.tolist()
    # twice: the second time from the cached axes of both
    for _ in range(2):
        assert _sat_shapes(A, B) == _sat_small(P, Q)
        assert _sat_shapes(B, A) == _sat_small(Q, P)
        assert gap(A, B) == _poly_gap_small(P, Q)


# ----------------------------------------------------------------------------- memo


def test_tables_live_only_inside_a_ruling() -> None:
    assert memo.table("x") is None
    with memo.scope():
        t = memo.table("x")
        assert t is not None
        t["k"] = 1
        with memo.scope():  # a ruling inside a ruling shares the tables
            assert memo.table("x") == {"k": 1}
    assert memo.table("x") is None
    with memo.scope():
        assert memo.table("x") == {}


def _world(blocks: list[Block]) -> World:
    return World({b.id: b for b in blocks}, [], (48.0, 48.0), 1.0, None, [b.id for b in blocks])


@SETTINGS
@given(d1=st.floats(0, 6), wheel=st.floats(-90, 90), d2=st.floats(0, 6), turn=st.floats(-60, 60),
       ox=st.floats(18, 30), oy=st.floats(22, 34), ofacing=angle, strict=st.booleans(), gap_=st.sampled_from([0.0, 0.5]))
@example(d1=2.0, wheel=0.0, d2=0.0, turn=0.0, ox=24.0, oy=26.0 + 2.0, ofacing=90.0, strict=False, gap_=0.0)
@example(d1=2.0, wheel=0.0, d2=0.0, turn=0.0, ox=24.0, oy=26.0 + 2.0, ofacing=90.0, strict=True, gap_=0.0)
@example(d1=1.0, wheel=30.0, d2=1.0, turn=-20.0, ox=22.0, oy=27.0, ofacing=10.0, strict=True, gap_=0.0)
def test_checked_moves_agree_with_and_without_the_tables(d1: float, wheel: float, d2: float, turn: float, ox: float,
                                                          oy: float, ofacing: float, strict: bool, gap_: float) -> None:
    ch = Block("A", 1, (24.0, 24.0), 90.0, 3, 6, 1.0, 1.0)
    other = Block("O", 2, (ox, oy), ofacing, 2, 4, 1.0, 1.0)
    w = _world([ch, other])
    obst = [Obstacle("O", "enemy", other.shape(), gap_, strict)]
    steps = [Step("forward", d1), Step("wheel", wheel), Step("forward", d2),
             Step("turn", turn, pivot=(24.0, 26.0))]
    # the same obstacle with another spacing is not taken from the tables
    other_gap = [Obstacle("O", "enemy", other.shape(), gap_ + 0.25, strict)]
    plain = w.check_steps(ch, steps, obst)
    plain_other = w.check_steps(ch, steps, other_gap)
    with memo.scope():
        first = w.check_steps(ch, steps, obst)
        again = w.check_steps(ch, steps, obst)  # every piece from the tables
        assert w.check_steps(ch, steps, other_gap) == plain_other
    assert plain == first == again


def test_end_slides_and_contacts_agree_with_and_without_the_tables() -> None:
    tgt = Block("T", 2, (24.0, 20.0), 90.0, 8, 24, 20 / 25.4, 20 / 25.4)
    ch = Block("A", 1, (19.5, 26.0), 285.0, 3, 9, 20 / 25.4, 20 / 25.4)
    near_b = Block("B", 1, (24.5, 27.0), 270.0, 3, 9, 20 / 25.4, 20 / 25.4)
    rock = Shape.poly(np.array([[21.0, 20.2], [22.0, 20.2], [22.0, 21.0], [21.0, 21.0]]))
    fr = tgt.facing_of("front")
    obst = [Obstacle("B", "friend", near_b.shape(), 0.0, False), Obstacle("rock", "terrain", rock, 0.0, False),
            Obstacle("T", "target", tgt.shape(), 0.0, False)]
    plain = end_events(ch, fr, obst, "T", (48.0, 48.0))
    flush = ch.at(fr.pt(0.3), fr.psi)
    plain_uc = unit_contact(flush, tgt)
    with memo.scope():
        assert end_events(ch, fr, obst, "T", (48.0, 48.0)) == plain
        assert end_events(ch, fr, obst, "T", (48.0, 48.0)) == plain
        assert unit_contact(flush, tgt) == plain_uc
        assert unit_contact(flush.with_flags({"engaged"}), tgt) == plain_uc
    assert plain_uc is not None and plain_uc.aligned


def _three(a: tuple[float, float, float], b: tuple[float, float, float], c: tuple[float, float, float],
           terrain: list | None = None) -> object:
    return scen([unit("T", 2, (24, 20), 90, 8, 24),
                 unit("A", 1, a[:2], a[2], 3, 9), unit("B", 1, b[:2], b[2], 3, 9), unit("C", 1, c[:2], c[2], 3, 9)],
                terrain=terrain,
                charges=[{"charger": x, "targets": ["T"], "dice": [4, 5]} for x in "ABC"])


PHASES = {
    "bench": _three((19.5, 26, 285), (24.5, 27, 270), (30.5, 24, 240)),
    "bench_rock": _three((19.5, 26, 285), (24.5, 27, 270), (30.5, 24, 240),
                         terrain=[impassable("rock", [(25.5, 22.6), (26.5, 22.6), (26.5, 23.6), (25.5, 23.6)])]),
    "crowd": _three((21, 25, 280), (24, 26, 270), (27, 25, 260)),
}


@pytest.mark.parametrize("name", sorted(PHASES))
def test_whole_phases_agree_with_and_without_the_tables(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with_tables = [r.to_json_data() for r in SYSTEM.phase(PHASES[name], 1).rulings]
    with monkeypatch.context() as m:
        m.setattr(memo, "_TABLES", _NoTables())
        without = [r.to_json_data() for r in SYSTEM.phase(PHASES[name], 1).rulings]
    assert with_tables == without
    assert any(r["success"] for r in with_tables)


class _NoTables:
    """Stands in for the tables' context variable: no ruling ever has tables."""

    def get(self) -> None:
        return None

    def set(self, value: object) -> object:
        return None

    def reset(self, token: object) -> None:
        return None


# ----------------------------------------------------------------------------- turns


@SETTINGS
@given(a=st.tuples(st.floats(-4, 4), st.floats(-4, 4), st.floats(0.5, 4), st.floats(0.5, 4), st.floats(0, 7)),
       b=st.tuples(st.floats(-4, 4), st.floats(-4, 4), st.floats(0.5, 4), st.floats(0.5, 4), st.floats(0, 7)),
       px=st.floats(-5, 5), py=st.floats(-5, 5), delta=st.floats(-2, 2))
@example(a=(0.0, 1.0, 2.0, 2.0, 0.0), b=(0.0, -1.0, 2.0, 2.0, 0.0), px=1.0, py=0.0, delta=0.5)
@example(a=(0.0, 1.0, 2.0, 2.0, 0.0), b=(0.0, -1.0, 2.0, 2.0, 0.0), px=1.0, py=0.0, delta=-0.5)
@example(a=(3.0, 3.0, 1.0, 1.0, 0.3), b=(-3.0, -3.0, 1.0, 1.0, 0.0), px=0.0, py=0.0, delta=math.pi)
def test_turn_bound_never_exceeds_the_exact_sweep(a: tuple[float, ...], b: tuple[float, ...], px: float, py: float,
                                                  delta: float) -> None:
    A, B = _turned_rect(*a), _turned_rect(*b)
    lb = turn_gap_lower(A, (px, py), delta, B)
    piv = np.array([px, py])
    assert lb <= rot_sweep_gap_v(A, piv, delta, B) + 1e-12
    # and at the sampled moments of the turn (the bound holds all through it)
    for k in range(0, 21):
        assert lb <= gap(Shape("poly", V=_rot_pts(A.V, piv, delta * k / 20)), B) + 1e-12


@pytest.mark.parametrize("delta", [0.3, -0.3, 1.2, -1.2])
def test_an_align_turn_onto_the_facing_is_cleared_by_the_bound(delta: float) -> None:
    # a 2" x 1" charger ends flush on the top edge (y = 0) of a 4" x 2" unit, turning
    # about its leading front corner: it never crosses that edge's line
    target = _rect(-2.0, -2.0, 2.0, 0.0)
    end = _rect(-0.5, 0.0, 1.5, 1.0)
    piv = np.array([1.5, 0.0]) if delta > 0 else np.array([-0.5, 0.0])
    start = Shape("poly", V=_rot_pts(end.V, piv, -delta))
    lb = turn_gap_lower(start, (float(piv[0]), float(piv[1])), delta, target)
    assert -1e-12 <= lb <= 1e-12  # flush at the end: touching, no overlap
    exact = rot_sweep_gap_v(start, piv, delta, target)
    assert lb <= exact + 1e-12
    touch_ok = Obstacle("T", "target", target, 0.0, False)
    assert touch_ok.ok(lb - TURN_BOUND_SLACK) and touch_ok.ok(exact)
    # the same turn against an enemy that may not be touched: the bound does not
    # clear it (the exact sweep decides: not clear)
    enemy = Obstacle("E", "enemy", target, 0.0, True)
    assert not enemy.ok(lb - TURN_BOUND_SLACK) and not enemy.ok(exact)
    # one that crosses the line (turned the wrong way) is not cleared either
    wrong = Shape("poly", V=_rot_pts(end.V, piv, delta))
    assert not touch_ok.ok(turn_gap_lower(wrong, (float(piv[0]), float(piv[1])), -delta, target) - TURN_BOUND_SLACK)
    assert not touch_ok.ok(rot_sweep_gap_v(wrong, piv, -delta, target))


@pytest.mark.parametrize("delta", [25.0, -25.0, 60.0, -60.0])
@pytest.mark.parametrize("strict", [False, True])
def test_checked_align_turns_agree_with_the_exact_sweep(delta: float, strict: bool,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # a charger turning about its leading front corner onto the front of T (the
    # align move): the check with the bound and with the exact sweep alone agree
    tgt = Block("T", 2, (24.0, 20.0), 90.0, 4, 8, 1.0, 1.0)
    end = Block("A", 1, (24.5, 20.0), 270.0, 2, 4, 1.0, 1.0)
    corner = end.corners()["FL" if delta > 0 else "FR"]
    pivot = (float(corner[0]), float(corner[1]))
    start = end.turned(np.asarray(pivot), -delta)
    w = _world([tgt, start])
    steps = [Step("turn", delta, pivot=pivot, label="align")]
    obst = [Obstacle("T", "enemy" if strict else "target", tgt.shape(), 0.0, strict)]
    with_bound = w.check_steps(start, steps, obst)
    with monkeypatch.context() as m:
        m.setattr(world_mod, "turn_gap_lower", lambda *a: -math.inf)
        exact_only = w.check_steps(start, steps, obst)
    assert with_bound == exact_only
    assert (with_bound is None) == (not strict)  # a target may be touched, an enemy not
