"""Property tests: the 40k solver against the independent validator.

Random small open-field battlefields (a charging unit of 1-10 round-based models in a
coherent blob, one or two target units, sometimes a bystander enemy unit; random
places, rotations and fixed dice) are charged by ``find_system("40k")`` and:

* the validator finds nothing wrong with any ruling;
* pushing a target farther away along the line from the charger never lowers the least
  roll (checked without a bystander, which could legitimately make a farther target
  easier to reach without touching it);
* turning or mirroring the whole board gives the same verdict and least roll.
"""

from __future__ import annotations

import copy
import math
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from chargeref.errors import ChargerefError
from chargeref.geometry.bases import base_footprint
from chargeref.geometry.shapes import signed_distance
from chargeref.scenario import Scenario40k, scenario_from_data
from chargeref.validate.w40k import unit_coherency, validate

W, D = 60.0, 44.0
MM = 25.4
BASES = [25.0, 28.5, 32.0, 40.0, 50.0]

#: More examples on demand: CHARGEREF_PROPERTY_EXAMPLES=500 pytest tests/w40k/test_properties.py
#: The suite runs a fixed (derandomised) set of examples so CI is reproducible; set
#: CHARGEREF_PROPERTY_RANDOM=1 to explore new ones (that is how the cases in
#: test_known_search_limits below were found).
SETTINGS = settings(
    max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "40")),
    deadline=None,
    derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


def solver() -> Any:
    """The 40k system; the import fails (and the tests with it) until the solver lands."""
    from chargeref.systems import find_system

    return find_system("40k")


def request(targets: list[str], dice: tuple[int, int]) -> Any:
    from chargeref.systems import ChargeRequest

    return ChargeRequest(charger="A", targets=tuple(targets), dice=dice)


# --------------------------------------------------------------------------- worlds


def _block(n: int, width: int, spacing: float) -> np.ndarray:
    """Centres of ``n`` models in ranks ``width`` wide, centred on the origin."""
    pts = np.array([[(i % width) * spacing, -(i // width) * spacing] for i in range(n)], float)
    return pts - pts.mean(axis=0)


def _rot(th: float) -> np.ndarray:
    return np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])


@st.composite
def unit_shape(draw: st.DrawFn, max_models: int) -> tuple[np.ndarray, float]:
    n = draw(st.integers(1, max_models))
    diameter = draw(st.sampled_from(BASES))
    width = draw(st.integers(1, min(n, 5)))
    gap = draw(st.floats(0.05, 0.9))
    th = draw(st.floats(0, 2 * math.pi))
    pts = _block(n, width, diameter / MM + gap) @ _rot(th).T
    return pts, diameter


def _models(prefix: str, pts: np.ndarray, diameter: float) -> list[dict[str, Any]]:
    return [
        {"id": f"{prefix}{i + 1}", "at": [float(x), float(y)], "base": {"round": diameter}}
        for i, (x, y) in enumerate(pts)
    ]


@st.composite
def worlds(
    draw: st.DrawFn, bystander: bool = True
) -> tuple[dict[str, Any], list[str], tuple[int, int]]:
    """A scenario, the target ids and the dice."""
    edition = draw(st.sampled_from([9, 10]))
    a_pts, a_d = draw(unit_shape(10))
    centre = np.array([draw(st.floats(22, W - 22)), draw(st.floats(16, D - 16))])
    a_pts = a_pts + centre
    units = [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": _models("A", a_pts, a_d)}]
    n_targets = draw(st.integers(1, 2))
    others = ["B", "C"][:n_targets] + (["X"] if bystander and draw(st.booleans()) else [])
    for uid in others:
        pts, d = draw(unit_shape(5))
        phi = draw(st.floats(0, 2 * math.pi))
        reach = draw(st.floats(1.5, 11.0))
        a_r = float(np.max(np.linalg.norm(a_pts - centre, axis=1))) + a_d / MM / 2
        b_r = float(np.max(np.linalg.norm(pts, axis=1))) + d / MM / 2
        where = centre + (a_r + b_r + reach) * np.array([math.cos(phi), math.sin(phi)])
        units.append(
            {
                "id": uid,
                "player": 2,
                "keywords": ["INFANTRY"],
                "models": _models(uid, pts + where, d),
            }
        )
    data = {
        "format": "chargeref/1",
        "system": "40k",
        "rules": {"edition": edition},
        "board": {"width": W, "depth": D},
        "units": units,
    }
    assume(_sane(data, ["B", "C"][:n_targets]))
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return data, ["B", "C"][:n_targets], dice


def _fps(data: dict[str, Any], uid: str) -> list[Any]:
    u = next(u for u in data["units"] if u["id"] == uid)
    return [base_footprint("round", m["base"]["round"], m["at"], 90, MM) for m in u["models"]]


def _gap(data: dict[str, Any], u1: str, u2: str) -> float:
    return min(signed_distance(a, b) for a in _fps(data, u1) for b in _fps(data, u2))


def _sane(data: dict[str, Any], targets: list[str]) -> bool:
    """On the board, no overlaps, a coherent charger out of engagement range, targets
    within 12" (with a margin, so that no verdict sits on a threshold by accident)."""
    for u in data["units"]:
        for m in u["models"]:
            r = m["base"]["round"] / MM / 2
            x, y = m["at"]
            if not (r + 0.05 <= x <= W - r - 0.05 and r + 0.05 <= y <= D - r - 0.05):
                return False
    ids = [u["id"] for u in data["units"]]
    for i, u1 in enumerate(ids):
        for u2 in ids[i + 1 :]:
            g = _gap(data, u1, u2)
            if g < 0.05 or (u1 == "A" and g <= 1.05):
                return False
    for t in targets:
        if _gap(data, "A", t) > 11.95:
            return False
    scen = scenario_from_data(data)
    assert isinstance(scen, Scenario40k)
    return not unit_coherency(scen, "A")


def _roll_key(r: int | None) -> float:
    return math.inf if r is None else float(r)


# --------------------------------------------------------------------------- properties


#: found by hypothesis: an edition-9 failed charge (roll 2) packs A6 against A5; the moves
#: were reported to 1e-6, which pushed the touching pair 1.18e-6 into each other (every
#: 40k move is now reported to 1e-9: world.reported)
_ROUNDED_INTO_OVERLAP = ({
    "format": "chargeref/1", "system": "40k", "rules": {"edition": 9}, "board": {"width": 60.0, "depth": 44.0},
    "units": [
        {"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [
            {"id": f"A{i + 1}", "at": [22.92578125, y], "base": {"round": 28.5}}
            for i, y in enumerate([20.638102854330707, 19.312930610236222, 17.987758366141733, 16.662586122047244,
                                   15.337413877952756, 14.012241633858267, 12.687069389763778, 11.361897145669293])]},
        {"id": "B", "player": 2, "keywords": ["INFANTRY"],
         "models": [{"id": "B1", "at": [30.11703371062992, 16.0], "base": {"round": 25.0}}]}]}, ["B"], (1, 1))


@SETTINGS
@given(worlds())
@example(world=_ROUNDED_INTO_OVERLAP)
def test_solver_rulings_are_legal(world: tuple[dict[str, Any], list[str], tuple[int, int]]) -> None:
    data, targets, dice = world
    scen = scenario_from_data(data)
    ruling = solver().charge(scen, request(targets, dice))
    found = validate(scen, ruling)
    assert not found, "\n".join(str(v) for v in found)


def _needed_roll(data: dict[str, Any], targets: list[str]) -> int | None:
    scen = scenario_from_data(data)
    try:
        return solver().needed(scen, request(targets, (1, 1))).roll
    except ChargerefError:
        return None  # e.g. a target pushed out of declaration range


def _line_of_three(bx: float, cx: float) -> dict[str, Any]:
    """A1 (25 mm) at (22, 16) charging B1 and C1 on one line (edition 9)."""
    def u(uid: str, player: int, x: float) -> dict[str, Any]:
        return {"id": uid, "player": player, "keywords": ["INFANTRY"],
                "models": [{"id": f"{uid}1", "at": [x, 16.0], "base": {"round": 25.0}}]}

    return {"format": "chargeref/1", "system": "40k", "rules": {"edition": 9}, "board": {"width": W, "depth": D},
            "units": [u("A", 1, 22.0), u("B", 2, bx), u("C", 2, cx)]}


@SETTINGS
@given(worlds(bystander=False), st.floats(0.05, 3.0), st.integers(0, 1))
@example((_line_of_three(24.98425, 28.98425), ["B", "C"], (1, 1)), 1.0, 0)
def test_farther_targets_never_need_less(
    world: tuple[dict[str, Any], list[str], tuple[int, int]], push: float, which: int
) -> None:
    data, targets, _ = world
    tid = targets[min(which, len(targets) - 1)]
    a = np.array([m["at"] for m in data["units"][0]["models"]]).mean(axis=0)
    farther = copy.deepcopy(data)
    tu = next(u for u in farther["units"] if u["id"] == tid)
    t = np.array([m["at"] for m in tu["models"]]).mean(axis=0)
    away = (t - a) / np.linalg.norm(t - a)
    for m in tu["models"]:
        m["at"] = [float(v) for v in np.asarray(m["at"]) + push * away]
    assume(_sane(farther, [u for u in targets if u != tid]))
    # pushing one target away from the charger can bring it nearer another target; then
    # one model may engage both where it could not before: the property does not hold
    # (see test_pushing_a_target_toward_another_can_help below)
    for other in targets:
        if other != tid:
            assume(_gap(farther, tid, other) >= _gap(data, tid, other) - 1e-12)
    near_roll = _needed_roll(data, targets)
    far_roll = _needed_roll(farther, targets)
    assert _roll_key(far_roll) >= _roll_key(near_roll), (near_roll, far_roll)


def _transform(data: dict[str, Any], how: str) -> dict[str, Any]:
    out = copy.deepcopy(data)
    w, d = out["board"]["width"], out["board"]["depth"]

    def f(x: float, y: float) -> list[float]:
        if how == "rot90":
            return [d - y, x]
        if how == "rot180":
            return [w - x, d - y]
        if how == "mirror_x":
            return [w - x, y]
        return [x, d - y]  # mirror_y

    turn = {"rot90": 90.0, "rot180": 180.0}
    for u in out["units"]:
        for m in u["models"]:
            m["at"] = f(*m["at"])
            fa = m.get("facing", 90.0)
            if how in turn:
                m["facing"] = (fa + turn[how]) % 360
            elif how == "mirror_x":
                m["facing"] = (180.0 - fa) % 360
            else:
                m["facing"] = (-fa) % 360
    if how == "rot90":
        out["board"] = {"width": d, "depth": w}
    return out


@SETTINGS
@given(worlds(), st.sampled_from(["rot90", "rot180", "mirror_x", "mirror_y"]))
def test_turning_the_board_changes_nothing(
    world: tuple[dict[str, Any], list[str], tuple[int, int]], how: str
) -> None:
    data, targets, dice = world
    other = _transform(data, how)
    r1 = solver().charge(scenario_from_data(data), request(targets, dice))
    r2 = solver().charge(scenario_from_data(other), request(targets, dice))
    n1 = r1.needed.roll if r1.needed else None
    n2 = r2.needed.roll if r2.needed else None
    assert (r1.success, n1) == (r2.success, n2)


@pytest.mark.parametrize("how", ["rot90", "rot180", "mirror_x", "mirror_y"])
def test_transform_keeps_gaps(how: str) -> None:
    """The board transforms used above are isometries (a check of the test itself)."""
    data = {
        "board": {"width": W, "depth": D},
        "units": [
            {"id": "A", "models": [{"id": "A1", "at": [10.0, 7.0], "base": {"round": 32}}]},
            {"id": "B", "models": [{"id": "B1", "at": [16.0, 12.0], "base": {"round": 40}}]},
        ],
    }
    assert _gap(_transform(data, how), "A", "B") == pytest.approx(_gap(data, "A", "B"), abs=1e-12)


def _block_between(a_pts: list[tuple[float, float]], b: tuple[float, float], c_pts: list[tuple[float, float]]) -> dict[str, Any]:
    def u(uid: str, player: int, pts: list[tuple[float, float]]) -> dict[str, Any]:
        return {"id": uid, "player": player, "keywords": ["INFANTRY"],
                "models": [{"id": f"{uid}{i + 1}", "at": list(p), "base": {"round": 25.0}} for i, p in enumerate(pts)]}

    return {"format": "chargeref/1", "system": "40k", "rules": {"edition": 9}, "board": {"width": 60.0, "depth": 44.0},
            "units": [u("A", 1, a_pts), u("B", 2, [b]), u("C", 2, c_pts)]}


def test_known_search_limits_block_between_two_targets() -> None:
    """Once a limit of the greedy search (found by hypothesis): an edition-9 block of 6+
    models between targets on opposite sides got 5 where pushing B away gave 4. The
    constructed two-neighbour spots (coherency circles crossing) find the 4 directly."""
    xs, ys = (21.07037401574803, 22.92962598425197), (18.788877952755904, 16.92962598425197, 15.070374015748031, 13.211122047244094)
    a_pts = [(x, y) for y in ys for x in xs]
    b = (25.741046385477937, 21.82633453903564)
    c_pts = [(17.642737477214617, 11.69719470258684), (17.642737477214617, 10.212942734082903)]
    near = _block_between(a_pts, b, c_pts)
    centre = np.array(a_pts).mean(axis=0)
    away = (np.array(b) - centre) / np.linalg.norm(np.array(b) - centre)
    far = _block_between(a_pts, tuple(np.array(b) + away), c_pts)
    assert _roll_key(_needed_roll(far, ["B", "C"])) >= _roll_key(_needed_roll(near, ["B", "C"]))


def test_pushing_a_target_toward_another_can_help() -> None:
    """Found by the property above (it was filed as a search failure, but the geometry
    says otherwise). One 25 mm model must be within 1" of both B1 and C1. Its centre must
    then be within 1 + 25 mm of both centres; with the centres 4.000" apart that needs
    2 x (1 + 25/25.4) = 3.969 >= 4: impossible. Pushed 1" away from A (toward C) the
    centres are 3" apart and the model fits between them."""
    r = 25.0 / MM
    assert 2 * (1.0 + r) < 4.0
    assert _needed_roll(_line_of_three(24.98425, 28.98425), ["B", "C"]) is None
    far = _needed_roll(_line_of_three(25.98425, 28.98425), ["B", "C"])
    assert far is not None
    # the nearest spot within 1" of both is (27.0, 16), 5.000" away in a straight line,
    # but B1 stands on that line: the path bends round it, so the roll is 6
    assert far == 6
