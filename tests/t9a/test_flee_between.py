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
import os

import numpy as np
import pytest
from build import B20, reach_fleeing_seen, round_unit, scen, unit
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.systems.t9a.geom import Shape
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
    r, seen_search = reach_fleeing_seen(world, A, E, 20)
    assert r is not None
    assert r.steps[0].kind == "forward"
    assert r.steps[0].amount == pytest.approx(LO, abs=1e-9)
    assert r.steps[1].kind == "wheel" and 70.0 < r.wheel < 85.0
    # forward, wheel (the outer corner's arc), forward
    cost = r.steps[0].amount + math.radians(abs(r.wheel)) * W + r.steps[2].amount
    assert r.distance == pytest.approx(cost, abs=1e-12)
    search = seen_search
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


# ----------------------------------------------------------------------------- the crossings

PROPS = settings(max_examples=15, deadline=None, derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"))


def _state(A, shp, g: float, d: float) -> tuple[bool, ...]:
    """Whether each corner circle (about either front corner moved ``d`` forward)
    reaches each point of ``shp`` (as widened by ``g``)."""
    c = A.corners()
    out = []
    r = (shp.r if shp.kind != "poly" else 0.0) + g
    for q in (c["FL"], c["FR"]):
        for rho in (A.width, A.depth, math.hypot(A.width, A.depth)):
            for p in shp.points():
                out.append(float(np.hypot(*(p - q - d * A.f))) <= rho + r)
    return tuple(out)


@PROPS
@given(x=st.floats(-6, 6), y=st.floats(-3, 9), dmm=st.sampled_from([25.0, 40.0, 60.0]), facing=st.floats(0, 360))
@example(x=P3X - W / 2, y=0.0, dmm=25.0, facing=90.0)
def test_between_crossings_no_circle_starts_or_stops_reaching(x: float, y: float, dmm: float, facing: float) -> None:
    A = case()[1]
    A = A.at(A.F, facing)
    f, lv = A.f, A.l
    ctr = A.F + y * f - x * lv
    shp = Shape.capsule(ctr, ctr, dmm / 25.4 / 2)
    cr = sorted(reach_crossings(A, shp, 0.0))
    c = A.corners()
    R_ = dmm / 25.4 / 2
    # each crossing is exact: some corner circle passes the round base's edge there
    for d in cr:
        err = min(abs(float(np.hypot(*(ctr - q - d * A.f))) - (rho + R_))
                  for q in (c["FL"], c["FR"]) for rho in (A.width, A.depth, math.hypot(A.width, A.depth)))
        assert err <= 1e-9
    # and between neighbours (and beyond the last) nothing changes
    ds = [v for v in cr if 0 < v < 12]
    pts = [0.0] + ds + [12.0]
    for a, b in zip(pts, pts[1:], strict=False):
        if b - a < 1e-6:
            continue
        s0 = _state(A, shp, 0.0, a + (b - a) * 0.25)
        assert _state(A, shp, 0.0, a + (b - a) * 0.5) == s0
        assert _state(A, shp, 0.0, a + (b - a) * 0.75) == s0


@PROPS
@given(x=st.floats(-6, 6), y=st.floats(-3, 9), turn=st.floats(0, 90), g=st.sampled_from([0.0, 0.5]))
@example(x=2.0, y=1.0, turn=0.0, g=0.0)
def test_an_edge_crossing_is_a_tangency(x: float, y: float, turn: float, g: float) -> None:
    A = case()[1]
    ctr = A.F + y * A.f - x * A.l
    a = math.radians(turn)
    e = np.array([math.cos(a), math.sin(a)])
    n = np.array([-e[1], e[0]])
    sq = Shape.poly(np.array([ctr, ctr + 0.8 * e, ctr + 0.8 * e + 0.5 * n, ctr + 0.5 * n]))
    c = A.corners()
    V = sq.V
    for d in reach_crossings(A, sq, g):
        # some circle (about a pivot moved d) passes through a vertex or is tangent to
        # an edge (at a point of it), at its radius plus the gap
        dist = []
        for q in (c["FL"], c["FR"]):
            P = q + d * A.f
            for i in range(4):
                va, vb = V[i], V[(i + 1) % 4]
                ev = vb - va
                t = min(1.0, max(0.0, float((P - va) @ ev) / float(ev @ ev)))
                dist += [float(np.hypot(*(P - va - t * ev))), float(np.hypot(*(P - va)))]
        radii = [rho + g for rho in (A.width, A.depth, math.hypot(A.width, A.depth))]
        assert min(abs(dv - rr) for dv in dist for rr in radii) <= 1e-9
