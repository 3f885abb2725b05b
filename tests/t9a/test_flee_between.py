"""Charging a fleeing unit through a gap in the forward run: the only forward moves
that let a wheel get past lie wholly between two blocked events of the old candidate
set (the levels where a point comes abreast of the charger's front or rear), so they
are found only because where a shape enters or leaves the circle a wheeling corner
runs on is a constructed candidate too (``moves.reach_crossings``).

A (4 x 2, looking along +y) must wheel left about 77 degrees to reach the fleeing E to
its west. A round friend P3 stands just right of A, level with its front: a left wheel
swings A's rear-right corner (on the circle of radius ``R``, A's diagonal, about the
front-left corner ``Q``) through it until A has moved forward ``lo`` (P3's centre
``R + r`` from ``Q``). A round friend P2 stands ahead, in A's column: once A has moved
``hi`` forward, the same corner's circle reaches it. Between ``lo`` and ``hi`` (0.02")
the wheel is clear, and the least move is at ``lo`` (the cost grows with the forward
move).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import B20, round_unit, scen, unit

from chargeref.systems.t9a import moves
from chargeref.systems.t9a.moves import forward_events, reach_crossings, reach_fleeing
from chargeref.systems.t9a.resolve import Phase

W, DEP = 4 * B20, 2 * B20
R = math.hypot(W, DEP)
F = np.array([30.0, 12.0])
Q = np.array([F[0] - W / 2, F[1]])  # the front-left corner: the left wheel's pivot
D_POST = 25.0
RP = D_POST / 25.4 / 2
P3X = W + 0.3 + RP  # P3's centre, right of Q, level with the front
LO = math.sqrt((R + RP) ** 2 - P3X**2)  # P3 leaves the rear-right corner's circle
P2X = 3.07  # P2's centre, right of Q (inside A's column, so it ends the straight run)


def case(width: float = 0.02):
    """The scenario with the clear stretch ``[LO, LO + width]`` of forward moves."""
    hi = LO + width
    p2y = hi + math.sqrt((R + RP) ** 2 - P2X**2)  # P2 enters the circle at hi
    units = [unit("A", 1, tuple(F), 90.0, 4, 8),
             unit("E", 2, (18.0, 13.5), 0.0, 4, 8),
             round_unit("P3", 1, (Q[0] + P3X, Q[1] + RP), 90.0, d=D_POST),
             round_unit("P2", 1, (Q[0] + P2X, Q[1] + p2y + RP), 90.0, d=D_POST)]
    ph = Phase(scen(units, [], board=(60, 60)), 1)
    return ph.world, ph.world.blocks["A"], ph.world.blocks["E"], hi


def _events(world, A, E):
    obst = world.obstacles(A, targets={E.id}, spacing=world.charge_spacing())
    return obst, forward_events(world, A, E, obst, 20)


def test_the_old_candidates_miss_the_gap() -> None:
    world, A, E, hi = case()
    obst, ev = _events(world, A, E)
    # both ends of the gap are constructed crossings ...
    cross = [d for o in obst if o.uid in ("P2", "P3") for d in reach_crossings(A, o.shape, o.min_gap)]
    assert any(abs(d - LO) <= 1e-12 for d in cross) and any(abs(d - hi) <= 1e-12 for d in cross)
    assert any(abs(d - LO) <= 1e-12 for d in ev) and any(abs(d - hi) <= 1e-12 for d in ev)
    # ... while no level event, nor the middle of two neighbouring ones, falls inside it
    new = set()
    for o in obst:
        new |= set(reach_crossings(A, o.shape, o.min_gap))
    new |= set(reach_crossings(A, E.shape(), 0.0))
    old = sorted(d for d in ev if d not in new)
    pts = set(old) | {(a + b) / 2 for a, b in zip(old, old[1:], strict=False)}
    assert not any(LO - 1e-9 <= p <= hi + 1e-9 for p in pts)


def test_only_the_gap_works_and_its_constructed_end_is_taken() -> None:
    world, A, E, hi = case()
    got: dict[str, object] = {}
    orig = moves.best_forward

    def spy(cands, search, bound):
        got["search"] = search
        return orig(cands, search, bound)

    moves.best_forward = spy
    try:
        r = reach_fleeing(world, A, E, 20)
    finally:
        moves.best_forward = orig
    assert r is not None
    assert r.steps[0].kind == "forward"
    assert r.steps[0].amount == pytest.approx(LO, abs=1e-9)
    assert r.steps[1].kind == "wheel" and 70.0 < r.wheel < 85.0
    # forward, wheel (the outer corner's arc), forward
    cost = r.steps[0].amount + math.radians(abs(r.wheel)) * W + r.steps[2].amount
    assert r.distance == pytest.approx(cost, abs=1e-12)
    search = got["search"]
    # no wheel at once, nor just before or after the gap; inside it, yes
    for d in (0.0, LO - 1e-3, hi + 1e-3, (LO + hi) / 2 + 0.05):
        assert search(d) is None, d
    for d in (LO + 1e-4, (LO + hi) / 2, hi - 1e-4):
        found = search(d)
        assert found is not None and found.distance > r.distance, d


@pytest.mark.parametrize("width,ok", [(1e-3, True), (-1e-3, False)])
def test_the_gap_at_its_threshold(width: float, ok: bool) -> None:
    # a gap of 0.001" is still found; once the two circles overlap there is none
    world, A, E, _ = case(width)
    r = reach_fleeing(world, A, E, 20)
    assert (r is not None) == ok
    if ok:
        assert r is not None and r.steps[0].amount == pytest.approx(LO, abs=1e-9)
