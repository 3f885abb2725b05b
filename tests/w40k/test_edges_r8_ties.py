"""Frame-free choices in the spot builder (issue 9, round 8).

Some spots are built only round the few nearest of something: the whole-roll circles
of a start are crossed with its BUDGET_TARGETS nearest target models' loci, wrap spots
are built round the WRAP_NEAREST nearest obstacle corners of a target, and the points
along a straight approach toward the nearest engagement edge. When several are equally
near in exact arithmetic, rounding decides which come first, and it decides
differently on a turned or mirrored board. ``ties.ordered`` and ``ties.least`` count
values within 1e-9 as equal and then go by index (the scenario's order), so the same
spots are built in every frame.

Each test builds a board whose exact geometry has such equal distances, turns it about
the charger's start by many angles (and mirrors it), builds the spots there, maps them
back and demands the same set of spots (within 1e-9) as on the unturned board. Before
the change, the budget-circle case differed on 26 of 60 angles.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from chargeref.scenario import scenario_from_data
from chargeref.systems.w40k.solver import ChargeProblem
from chargeref.systems.w40k.world import build_world

C = np.array([30.0, 22.0])
ANGLES = [float(a) for a in np.linspace(1.0, 359.0, 30)] + [90.0, 180.0, 272.5956]


def _frame(theta: float, mirror: bool):  # noqa: ANN202
    """The map of a point of the unturned board into the frame (turned by theta about
    C, then mirrored across the vertical line through C), and its inverse."""
    a = math.radians(theta)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    F = np.diag([-1.0, 1.0]) if mirror else np.eye(2)
    M = F @ R
    Mi = np.linalg.inv(M)
    return (lambda p: list(C + M @ (np.asarray(p, dtype=float) - C))), (lambda P: (np.asarray(P) - C) @ Mi.T + C)


def _scen(to, targets: list[list[float]], blocks: list[list[list[float]]] | None = None) -> dict[str, Any]:
    return {"format": "chargeref/1", "system": "40k", "rules": {"edition": 10}, "board": {"width": 60, "depth": 44},
            "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"],
                       "models": [{"id": "A1", "at": to(C), "base": {"round": 32}}]},
                      {"id": "B", "player": 2, "keywords": ["INFANTRY"],
                       "models": [{"id": f"B{k + 1}", "at": to(p), "base": {"round": 32}} for k, p in enumerate(targets)]}],
            "terrain": [{"type": "impassable", "id": f"T{k}", "polygon": [to(q) for q in poly]}
                        for k, poly in enumerate(blocks or [])]}


def _same_set(P: np.ndarray, Q: np.ndarray) -> bool:
    if len(P) != len(Q):
        return False
    if len(P) == 0:
        return True
    d = np.hypot(*(P[:, None, :] - Q[None, :, :]).transpose(2, 0, 1))
    return bool(d.min(axis=1).max() <= 1e-9 and d.min(axis=0).max() <= 1e-9)


def _spots(theta: float, mirror: bool, targets, blocks, build) -> np.ndarray:  # noqa: ANN001
    to, back = _frame(theta, mirror)
    prob = ChargeProblem(build_world(scenario_from_data(_scen(to, targets, blocks))), "A", ["B"], 12.0)
    (m,) = prob.models
    return back(build(prob, m).reshape(-1, 2))


def _square(n: int, dist: float) -> list[list[float]]:
    return [list(C + dist * np.array([math.cos(2 * math.pi * k / n), math.sin(2 * math.pi * k / n)])) for k in range(n)]


@pytest.mark.parametrize("mirror", [False, True])
def test_budget_circles_round_the_same_nearest_targets(mirror: bool) -> None:
    # four target models 5" from the start at right angles: the three nearest are a
    # tie, broken by index in every frame
    targets = _square(4, 5.0)

    def build(prob, m):  # noqa: ANN001, ANN202
        return prob._budget_crossings(m, prob._starts_of(m), prob._loci())

    base = _spots(0.0, False, targets, None, build)
    assert len(base) > 0
    for theta in ANGLES:
        assert _same_set(_spots(theta, mirror, targets, None, build), base), theta


@pytest.mark.parametrize("mirror", [False, True])
def test_approach_toward_the_same_nearest_target(mirror: bool) -> None:
    # two target models at the same distance either side: the approach points go toward
    # the first in every frame
    targets = [list(C + [0.0, 4.0]), list(C + [0.0, -4.0])]

    def build(prob, m):  # noqa: ANN001, ANN202
        return np.vstack(prob._approach_points(m, prob._starts_of(m)))

    base = _spots(0.0, False, targets, None, build)
    assert len(base) == 9
    for theta in ANGLES:
        assert _same_set(_spots(theta, mirror, targets, None, build), base), theta


@pytest.mark.parametrize("mirror", [False, True])
def test_wrap_spots_round_the_same_nearest_corners(mirror: bool) -> None:
    # a ring of ten small blocks round a target model 8" from the start: twenty corners
    # equally near the target, of which the nearest WRAP_NEAREST (8) are used
    from chargeref.systems.w40k.solver_base import WRAP_NEAREST

    t = C + np.array([8.0, 0.0])
    blocks = []
    for k in range(10):
        u = np.array([math.cos(2 * math.pi * k / 10), math.sin(2 * math.pi * k / 10)])
        v = np.array([-u[1], u[0]])
        a, b = t + 2.2 * u - 0.2 * v, t + 2.2 * u + 0.2 * v
        blocks.append([list(a), list(b), list(b + 0.3 * u), list(a + 0.3 * u)])

    def build(prob, m):  # noqa: ANN001, ANN202
        return prob._wrap_spots(m, prob._loci())

    base = _spots(0.0, False, [list(t)], blocks, build)
    assert WRAP_NEAREST < 20 and len(base) > 0
    for theta in ANGLES[::3]:
        assert _same_set(_spots(theta, mirror, [list(t)], blocks, build), base), theta
