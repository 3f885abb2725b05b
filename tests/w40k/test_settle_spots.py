"""Pile-in spots built from the loci of oval bases (settle.py, issue 9).

A round model A1 piles in toward an oval enemy B1 while its oval mate A2 stands end
to end with B1. Ending in base contact with B1 and within 2" of A2 is possible only on
a short arc of B1's contact locus; A1 starts 3" (less 2e-6) from that arc's end, the
crossing of B1's contact locus with A2's coherency locus, and every other point of the
arc is farther. So the only good spot is that crossing (to ~1e-6), and A1 must end
there.

The reference crossing shares no code with the planner: B1's contact locus is the
ellipse offset by the round base's radius (point + r·normal, by the ellipse's
parameter), and the crossing is where the distance from that point to A2's ellipse
(``shapes.ellipse_point_signed_distance``, Eberly's solve) equals r + 2", by brentq.
The scene is also turned by quarter and other turns, and mirrored.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from h40k import scen40k, unit40k
from scipy.optimize import brentq

from chargeref import scenario_from_data
from chargeref.geometry.shapes import ellipse_point_signed_distance
from chargeref.systems.w40k.fight import pile_in
from chargeref.testing import assert_legal_charge

MM = 25.4
A, B = 30 / MM, 17.75 / MM  # a 60 x 35.5 mm oval's semi-axes
R = 16 / MM  # a 32 mm base's radius
CB = np.array([20.0, 15.0])
CA2 = np.array([20.0 + 2 * A, 15.0])  # end to end with B1


def contact_point(t: float) -> np.ndarray:
    p = np.array([A * math.cos(t), B * math.sin(t)])
    n = np.array([B * math.cos(t), A * math.sin(t)])
    return CB + p + R * n / np.linalg.norm(n)


def coherency_gap(t: float) -> float:
    x = contact_point(t) - CA2
    return float(ellipse_point_signed_distance(A, B, x[None])[0]) - (R + 2.0)


def crossing_and_start() -> tuple[np.ndarray, np.ndarray]:
    """The crossing on B1's lower left (parameter t1) and A1's start, 3 − 2e-6 from it,
    away from the allowed arc (which runs toward A2) and outward."""
    t1 = brentq(coherency_gap, -math.pi / 2 - 1.2, -0.05, xtol=1e-15)
    p1 = contact_point(t1)
    tan = np.array([-A * math.sin(t1), B * math.cos(t1)])
    tan /= np.linalg.norm(tan)
    assert coherency_gap(t1 + 1e-3) < 0 < coherency_gap(t1 - 1e-3)  # the arc is t > t1
    nrm = np.array([B * math.cos(t1), A * math.sin(t1)])
    nrm /= np.linalg.norm(nrm)
    v = -tan + 1.5 * nrm
    v /= np.linalg.norm(v)
    return p1, p1 + (3.0 - 2e-6) * v


@pytest.mark.parametrize("turn,mirror", [(0.0, False), (90.0, False), (180.0, True), (37.0, False), (211.0, True)])
def test_pile_in_ends_at_the_crossing_of_two_oval_loci(turn, mirror):
    p1, a1 = crossing_and_start()
    th = math.radians(turn)
    rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    M = rot @ (np.diag([1.0, -1.0]) if mirror else np.eye(2))
    mid = np.array([22.0, 15.0])

    def f(p: np.ndarray) -> list[float]:
        return [float(v) for v in M @ (np.asarray(p) - mid) + mid]

    # the ovals' long axes lie along x: a mirror in x keeps them there, the turn turns them
    facing = turn % 360.0
    oval = {"oval": [60, 35.5]}
    ua = unit40k("A", 1, [tuple(f(a1))], flags=["charged"])
    ua["models"].append({"id": "A2", "at": f(CA2), "base": oval, "facing": facing})
    ub = unit40k("B", 2, [tuple(f(CB))], base=oval)
    ub["models"][0]["facing"] = facing
    scen = scenario_from_data(scen40k([ua, ub]))
    r = pile_in(scen, "A")
    assert_legal_charge(scen, r)
    (m,) = [x for x in r.moves if x.id == "A1"]
    assert m.contacts == ["B1"]
    assert m.distance <= 3.0 + 1e-6
    assert float(np.hypot(*(np.asarray(m.to[:2]) - f(p1)))) <= 1e-5
