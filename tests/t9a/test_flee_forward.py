"""Charging a fleeing unit that no wheel reaches at once: the forward move before the
wheel is constructed (where an obstacle's corner comes level with the charger's
front), not sampled; a closed-form case and its threshold."""

from __future__ import annotations

import math

import numpy as np
from build import B20, impassable, scen, unit

from chargeref.systems.t9a.moves import forward_events, reach_fleeing
from chargeref.systems.t9a.resolve import Phase

W = 4 * B20  # the charger's width
L = 8.0  # from the charger's left side to the fleeing unit's front


def _case(a: float):
    """A (4 x 2, looking along +y) has a wall flush on its left that ends ``a`` ahead
    of its front: it must move forward ``a`` before any wheel to the left gets past.
    The fleeing E looks back along +x, its front ``L`` to the left of A's side,
    centred where A's front-left corner meets it on the best wheel."""
    F = np.array([30.0, 12.0])
    Qx = F[0] - W / 2
    c = (-L + math.sqrt(L * L + 4 * W * W)) / (2 * W)  # cos of the best wheel (below)
    th = math.acos(c)
    yc = F[1] + a + L / math.tan(th)
    s = scen([unit("A", 1, tuple(F), 90.0, 4, 8), unit("E", 2, (Qx - L, yc), 0.0, 4, 8)],
             [impassable("wall", [(Qx - 5, 8.0), (Qx, 8.0), (Qx, F[1] + a), (Qx - 5, F[1] + a)])], board=(60, 60))
    ph = Phase(s, 1)
    return ph.world, ph.world.blocks["A"], ph.world.blocks["E"], th


def _closed_form(a: float, th: float) -> float:
    # forward a, wheel th about the front-left corner, then L / sin(th) until that
    # corner meets E's front: d/dth (W th + L / sin th) = 0 <=> L cos th = W sin^2 th
    return a + W * th + L / math.sin(th)


def test_forward_then_wheel_has_a_closed_form() -> None:
    for a in (0.73, 1.9):
        world, A, E, th = _case(a)
        r = reach_fleeing(world, A, E, 30)
        assert r is not None
        assert abs(r.distance - _closed_form(a, th)) <= 1e-6
        assert abs(r.wheel - math.degrees(th)) <= 1e-5
        assert r.steps[0].kind == "forward" and abs(r.steps[0].amount - a) <= 1e-8


def test_the_level_of_the_walls_corner_is_a_constructed_forward_distance() -> None:
    world, A, E, _ = _case(0.73)
    obst = world.obstacles(A, targets={E.id}, spacing=world.charge_spacing())
    ev = forward_events(world, A, E, obst, 30)
    assert any(abs(d - 0.73) <= 1e-12 for d in ev)


def test_a_wall_longer_by_a_thousandth_costs_a_thousandth_more() -> None:
    w0, A0, E0, th = _case(0.73)
    w1, A1, E1, _ = _case(0.731)
    r0 = reach_fleeing(w0, A0, E0, 30)
    r1 = reach_fleeing(w1, A1, E1, 30)
    assert r0 is not None and r1 is not None
    assert abs((r1.distance - r0.distance) - 0.001) <= 1e-6
