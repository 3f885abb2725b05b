"""Spots on a feature's face are constructed, not stepped along it (solver_base.face_spots).

A charger below a barricade engages a target 1" beyond it only across the barricade
(touching the near face, within 2" of the target). The nearest such spot is where the
face's contact line meets the 2" circle round the target; the least move is the
straight distance to it, a closed form. Placing the charger so that it is exactly
9.000 ± 0.001" away tests the verdict at its edge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from h40k import r32, scen40k, unit40k

from chargeref import ChargeRequest, find_system, scenario_from_data
from chargeref.geometry.bases import base_footprint
from chargeref.geometry.shapes import ConvexPolygon, Footprint
from chargeref.systems.w40k.solver_base import face_spots
from chargeref.testing import assert_legal_charge

S = find_system("40k")
BX = 22.0


def spot() -> np.ndarray:
    """The face spot nearest a charger on the lower left: the contact line y = 15.9 − r
    crosses the circle of radius r + r + 2 round B1 (at 1" beyond the barricade)."""
    r = r32()
    by = 16.1 + 1.0 + r
    y = 15.9 - r
    R = 2 * r + 2.0
    return np.array([BX - math.sqrt(R * R - (by - y) ** 2), y])


def data(a_at):
    r = r32()
    return scen40k(
        [unit40k("A", 1, [tuple(a_at)]), unit40k("B", 2, [(BX, 16.1 + 1.0 + r)])],
        terrain=[{"type": "barricade", "id": "pipe", "points": [[15, 16], [25, 16]], "height": 1.5, "thickness": 0.2}],
    )


def charger_at(dist: float) -> np.ndarray:
    P = spot()
    u = np.array([-0.9, -0.45])
    return P + dist * u / np.hypot(*u)


def test_needed_is_the_distance_to_the_constructed_spot():
    a = charger_at(8.5)
    need = S.needed(scenario_from_data(data(a)), ChargeRequest("A", ("B",)))
    assert need.distance == pytest.approx(8.5, abs=1e-6)


@pytest.mark.parametrize("d, ok", [(9.0 - 1e-3, True), (9.0 + 1e-3, False)])
def test_roll_nine_at_the_edge(d, ok):
    sc = scenario_from_data(data(charger_at(d)))
    r = S.charge(sc, ChargeRequest("A", ("B",), roll=9))
    assert r.success is ok
    if ok:
        assert_legal_charge(sc, r)
        assert r.moves[0].to[:2] == pytest.approx(list(spot()), abs=1e-6)


def test_face_spots_cross_circles_on_edges_and_corner_arcs():
    mover = base_footprint("round", 32, (0.0, 0.0), 0.0, 25.4)
    r = r32()
    sq = ConvexPolygon(((0.0, 0.0), (4.0, 0.0), (4.0, 1.0), (0.0, 1.0)))
    # a circle round (2, -3) of radius 3 crosses the lower contact line y = -r at
    # x = 2 ± sqrt(9 - (3 - r)^2), both on the edge
    R = 3.0
    pts = face_spots(mover, sq, np.zeros((0, 2)), (np.array([[2.0, -3.0]]), np.array([R])))
    dx = math.sqrt(R * R - (3.0 - r) ** 2)
    for x in (2 - dx, 2 + dx):
        assert np.min(np.hypot(pts[:, 0] - x, pts[:, 1] + r)) < 1e-12
    # ends of each edge's contact line are there, nothing else without circles
    bare = face_spots(mover, sq, np.zeros((0, 2)))
    assert len(bare) == 8
    # a circle crossing the corner arc round (4, 0): a point at distance r from the corner
    C = np.array([[6.0, -2.0]])
    R2 = math.hypot(6.0 - 4.0 - r * math.cos(-0.5), -2.0 - r * math.sin(-0.5))
    pts = face_spots(mover, sq, np.zeros((0, 2)), (C, np.array([R2])))
    want = np.array([4.0 + r * math.cos(-0.5), r * math.sin(-0.5)])
    assert np.min(np.hypot(*(pts - want).T)) < 1e-9
    # every spot touches the polygon (distance r from it)
    poly = Footprint((sq,))
    from chargeref.systems.w40k.solver_base import sd_many

    assert np.abs(sd_many(mover, pts, poly)).max() < 1e-9
