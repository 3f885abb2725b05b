"""Charging a fleeing unit through a stretch of forward moves whose both ends depend on
the wheel chosen (``flee_forward.closing_forwards``).

A (4 x 2, looking along +y) must move forward, wheel left about 70 degrees and run
west to the fleeing E. Three round friends stand along that run: Y1 on the run's left
(south) side, X1 on its right side farther on, X2 on its right side nearer. In the
frame of A's pivot corner ``Q0`` (x east, y north) a post at ``(-a, y)`` of radius
``r`` is clear of the strip the charger runs along after a wheel ``theta`` (the
pivot moved forward ``d1``) when

* on the left:  ``d1 >= y + (r - a cos(theta)) / sin(theta)`` (``L``), and
* on the right: ``d1 <= y - (W + r + a cos(theta)) / sin(theta)`` (``U``).

Both bounds grow with the wheel. Y1 and X1 leave room only for wheels of at least
``T1`` (``U_X1 - L_Y1`` grows with the wheel: X1 is farther); Y1 and X2 only for wheels
of at most ``T2`` (it shrinks: X2 is nearer than Y1 by more than ``(W + 2r) cos``).
So the clear forward moves are ``[D_LO, D_HI]`` with ``D_LO = L_Y1(T1) = U_X1(T1)``
and ``D_HI = L_Y1(T2) = U_X2(T2)``: each end is where two strip contacts meet, a point
no level or circle crossing of ``moves.forward_events`` gives. A fourth friend B ahead
of A ends its straight run early (the stretch is the only way). The cost grows with
the forward move, so the least is at ``D_LO``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import B20, reach_fleeing_seen, round_unit, scen, unit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.systems.t9a import moves
from chargeref.systems.t9a.flee_forward import closing_forwards, trig2_roots
from chargeref.systems.t9a.moves import forward_events, reach_fleeing
from chargeref.systems.t9a.resolve import Phase
from chargeref.systems.t9a.trigpoly import TP

W, DEP = 4 * B20, 2 * B20
F = np.array([30.0, 12.0])
Q0 = np.array([F[0] - W / 2, F[1]])  # front-left corner: the left wheel's pivot
D_POST = 25.0
RP = D_POST / 25.4 / 2
T1 = 70.0
A_Y1, A_X1, A_X2 = 7.0, 10.0, 2.5
D_LO = 1.0


def _low(y: float, a: float, t: float) -> float:
    return y + (RP - a * math.cos(t)) / math.sin(t)


def case(t2: float = 70.3):
    """The scenario whose clear forward moves are ``[D_LO, D_HI]`` (empty when
    ``t2 < T1``), and ``D_HI``."""
    a1, a2 = math.radians(T1), math.radians(t2)
    y_y1 = D_LO - (RP - A_Y1 * math.cos(a1)) / math.sin(a1)
    y_x1 = D_LO + (W + RP + A_X1 * math.cos(a1)) / math.sin(a1)
    d_hi = _low(y_y1, A_Y1, a2)
    y_x2 = d_hi + (W + RP + A_X2 * math.cos(a2)) / math.sin(a2)
    posts = {"Y1": (-A_Y1, y_y1), "X1": (-A_X1, y_x1), "X2": (-A_X2, y_x2), "B": (3.0, 3.9)}
    units = [unit("A", 1, tuple(F), 90.0, 4, 8), unit("E", 2, (Q0[0] - 14.0, Q0[1] + D_LO + 6.8), 0.0, 4, 8)]
    for k, (x, y) in posts.items():
        c = Q0 + np.array([x, y])
        units.append(round_unit(k, 1, (c[0], c[1] + RP), 90.0, d=D_POST))
    ph = Phase(scen(units, [], board=(60, 60)), 1)
    return ph.world, ph.world.blocks["A"], ph.world.blocks["E"], d_hi


def _obstacles(world, A, E):
    return world.obstacles(A, targets={E.id}, spacing=world.charge_spacing())


def test_both_ends_are_constructed_and_the_old_candidates_miss_the_stretch() -> None:
    world, A, E, d_hi = case()
    obst = _obstacles(world, A, E)
    shapes = [(E.shape(), 0.0)] + [(o.shape, o.min_gap) for o in obst if o.uid != E.id]
    closing = closing_forwards(A, shapes, 20.0)
    # each end is a meeting point, at its wheel, to 1e-9
    for d, t in ((D_LO, T1), (d_hi, 70.3)):
        assert any(abs(c - d) <= 1e-9 and abs(w - t) <= 1e-9 for c, w in closing), (d, t)
    ev = forward_events(world, A, E, obst, 20)
    assert any(abs(d - D_LO) <= 1e-9 for d in ev) and any(abs(d - d_hi) <= 1e-9 for d in ev)
    # without them no candidate, nor the middle of two neighbouring ones, is inside
    orig = moves.closing_forwards
    moves.closing_forwards = lambda *a: []  # type: ignore[assignment]
    try:
        old = forward_events(world, A, E, obst, 20)
    finally:
        moves.closing_forwards = orig
    pts = set(old) | {(a + b) / 2 for a, b in zip(old, old[1:], strict=False)}
    assert not any(D_LO - 1e-9 <= p <= d_hi + 1e-9 for p in pts)
    assert len(old) < len(ev)


def test_the_stretch_is_found_at_its_constructed_end() -> None:
    world, A, E, d_hi = case()
    r, seen_search = reach_fleeing_seen(world, A, E, 20)
    assert r is not None
    assert r.steps[0].kind == "forward" and r.steps[0].amount == pytest.approx(D_LO, abs=1e-9)
    assert r.steps[1].kind == "wheel" and r.wheel == pytest.approx(T1, abs=1e-4)
    cost = r.steps[0].amount + math.radians(abs(r.wheel)) * W + r.steps[2].amount
    assert r.distance == pytest.approx(cost, abs=1e-12)
    search = seen_search
    # blocked just outside the stretch; clear inside it, and dearer than its low end
    for d in (0.0, D_LO - 1e-3, d_hi + 1e-3):
        assert search(d) is None, d  # type: ignore[operator]
    for d in (D_LO + 1e-4, (D_LO + d_hi) / 2, d_hi - 1e-4):
        found = search(d)  # type: ignore[operator]
        assert found is not None and found.distance > r.distance, d


def test_none_once_the_stretch_closes() -> None:
    # the right-hand posts' bounds cross: no forward move lets a wheel through
    world, A, E, d_hi = case(T1 - 0.05)
    assert d_hi < D_LO
    assert reach_fleeing(world, A, E, 20) is None


# ----------------------------------------------------------------------------- the roots

coef = st.floats(-5, 5, allow_nan=False)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(c=st.tuples(coef, coef, coef, coef, coef))
@example(c=(0.0, 1.0, 0.0, 0.0, 0.0))  # cos t: two roots
@example(c=(1.0, 0.0, 0.0, 1.0, 0.0))  # 1 + cos 2t: two double roots (tangencies)
@example(c=(1.0, -1.0, 2.0, 0.0, 0.0))  # degree one
@example(c=(0.0, 0.0, 0.0, 0.0, 0.0))  # vanishes: none
def test_trig2_roots_are_every_root(c: tuple[float, ...]) -> None:
    """``trig2_roots`` (all rows at once) finds every root ``trigpoly.TP`` finds (within
    1e-6 radian: a tangency's double root converges only linearly in either), and
    each one it gives is a root (the value there within 1e-9 of the scale)."""
    g = np.array([c])
    ri, t = trig2_roots(g)
    cos, sin = TP.cos(), TP.sin()
    c2 = cos * cos - sin * sin
    s2 = 2.0 * (sin * cos)
    tp = TP.const(c[0]) + c[1] * cos + c[2] * sin + c[3] * c2 + c[4] * s2
    want = tp.roots(-math.pi, math.pi)
    for x in t:
        assert abs(tp(float(x))) <= 1e-9 * max(1.0, max(abs(v) for v in c))
    for x in want:
        assert any(abs(math.remainder(x - y, 2 * math.pi)) <= 1e-6 for y in t), (x, t)
    assert all(i == 0 for i in ri)
