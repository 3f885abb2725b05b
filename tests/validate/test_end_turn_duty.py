"""Edition 11's within-1" duty asks a model the ruling turned also the other way round:
travel with the base as it started, turn at the end spot (``w40k_pivot.end_turn``;
docs/40k.md, "Turning at the end spot").

The scene: A1, a 60x35 mm oval facing 90 (long axis across the charge), charges T1
east along y = 50. A post just behind it (south-west, inside the circle its tips sweep)
stops it turning where it starts. Two non-targets, N1 north and N2 south of the spot
1" from T1, stand so that the oval's long side there (1.18" out) is within their 2"
engagement range, its short side (0.69" out) is not: only the turned base (facing 0)
may end within 1" of T1. The ruling travels unturned, turns at its end spot and stops
1.5" from T1. Getting within 1" instead costs the straight travel to the spot S* on
the axis plus the quarter turn (a pi / 2, a = 30 mm): with that exactly the roll (12),
and 0.001" less, the duty was missed; 1.1e-6 or 0.001" more, it was not. Rotated and
mirrored too. Neither the unturned base nor the base turned at the start finds it.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from duty_cases import R32

from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data
from chargeref.validate import validate_ruling

MM = 25.4
A, B_ = 30 / MM, 17.5 / MM  # the oval's half axes
L = A * math.pi / 2  # the quarter turn's length
X_T = 60.0
SX = X_T - R32 - 1.0 - A  # S*: the turned base's centre 1" from T1 on the axis
D = 2.0 + B_ + 0.25 + R32  # N1 and N2 this far north and south of S*


def case(over: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scenario and ruling with S* costing the roll + ``over``."""
    x0 = SX + L - 12.0 - over
    post = (x0 + 26 / MM * math.cos(math.radians(225)), 50.0 + 26 / MM * math.sin(math.radians(225)))
    data = {
        "format": "chargeref/1", "system": "40k", "rules": {"edition": 11}, "board": {"width": 100, "depth": 100},
        "terrain": [{"type": "wall", "id": "P1", "points": [[post[0] - 0.02, post[1]], [post[0] + 0.02, post[1]]],
                     "thickness": 0.04, "height": 5, "climbable": False}],
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"],
             "models": [{"id": "A1", "at": [x0, 50.0], "base": {"oval": [60, 35]}, "facing": 90.0}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [X_T, 50.0], "base": {"round": 32}}]},
            {"id": "N", "player": 2, "keywords": ["INFANTRY"],
             "models": [{"id": "N1", "at": [SX, 50.0 + D], "base": {"round": 32}},
                        {"id": "N2", "at": [SX, 50.0 - D], "base": {"round": 32}}]},
        ],
    }
    end = [X_T - R32 - 1.5 - A, 50.0]
    return data, end_turn_ruling(data, x0, end, L)


def end_turn_ruling(data: dict[str, Any], x0: float, end: list[float], L: float) -> dict[str, Any]:
    """A roll-12 success of unit A's one model: a straight line along y = 50 from x0 to
    ``end``, then a turn there from facing 90 to 0 of length ``L``."""
    after = copy.deepcopy(data)
    after["units"][0]["flags"] = ["charged"]
    after["units"][0]["models"][0].update({"at": end, "facing": 0.0})
    mv = {"id": "A1", "from": [x0, 50.0], "to": end, "distance": (end[0] - x0) + L,
          "segments": [{"kind": "line", "from": [x0, 50.0], "to": end},
                       {"kind": "pivot", "at": end, "from": 90.0, "to": 0.0, "length": L}],
          "facing": 0.0, "facing_from": 90.0}
    return {"format": "chargeref-ruling/1", "system": "40k", "charger": "A", "targets": ["T"], "eligible": True,
            "success": True, "procedure": "normal", "roll": {"dice": [6, 6], "modifier": 0, "total": 12},
            "needed": {"roll": 10}, "moves": [mv], "engaged": ["T"], "after": after}


def transformed(data: dict[str, Any], ruling: dict[str, Any], deg: float, mirror: bool) -> tuple[dict, dict]:
    """Rotated by ``deg`` about the board's centre (mirrored in x first): points, the
    wall, facings and pivots."""
    a = math.radians(deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    def f(p: list[float]) -> list[float]:
        v = np.asarray(p[:2], float) - 50.0
        if mirror:
            v[0] = -v[0]
        return [float(x) for x in rot @ v + 50.0]

    def face(x: float) -> float:
        return (180.0 - x if mirror else x) + deg

    def scene(d: dict[str, Any]) -> None:
        for u in d["units"]:
            for m in u["models"]:
                m["at"] = f(m["at"])
                if "facing" in m:
                    m["facing"] = face(m["facing"])
        for t in d.get("terrain", []):
            t["points"] = [f(p) for p in t["points"]]

    data, ruling = copy.deepcopy(data), copy.deepcopy(ruling)
    scene(data)
    scene(ruling["after"])
    for mv in ruling["moves"]:
        mv["from"], mv["to"] = f(mv["from"]), f(mv["to"])
        mv["facing"], mv["facing_from"] = face(mv["facing"]), face(mv["facing_from"])
        for p in mv["segments"]:
            if p["kind"] == "pivot":
                p["at"] = f(p["at"])
                p["from"], p["to"] = face(p["from"]), face(p["to"])
            else:
                p["from"], p["to"] = f(p["from"]), f(p["to"])
    return data, ruling


def codes(over: float, deg: float = 0.0, mirror: bool = False) -> list[str]:
    data, ruling = transformed(*case(over), deg, mirror)
    got = validate_ruling(scenario_from_data(data), Ruling.model_validate(ruling))
    return sorted(v.code for v in got)


@pytest.mark.parametrize("deg, mirror", [(0.0, False), (90.0, False), (33.0, True)])
@pytest.mark.parametrize("over, owed", [(0.0, True), (-0.001, True), (1.1e-6, False), (0.001, False)])
def test_within_one_turning_at_the_end_spot(deg: float, mirror: bool, over: float, owed: bool) -> None:
    assert codes(over, deg, mirror) == (["missed_within_one"] if owed else [])


def test_only_the_end_turn_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the end-turn question (the unturned base, and the base turned at its
    start, which the post stops) nothing is found at the roll."""
    from chargeref.validate import w40k_ed11

    assert codes(0.0) == ["missed_within_one"]
    monkeypatch.setattr(w40k_ed11, "end_turn", lambda *a, **k: None)
    assert codes(0.0) == []
    assert codes(-0.5) == []


def test_without_the_post_the_start_turn_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The post is what stops the turn at the start: without it, turning first finds
    the same spot at the same cost."""
    from chargeref.validate import w40k_ed11

    data, ruling = case(0.0)
    data["terrain"] = []
    ruling["after"]["terrain"] = []
    monkeypatch.setattr(w40k_ed11, "end_turn", lambda *a, **k: None)
    got = validate_ruling(scenario_from_data(data), Ruling.model_validate(ruling))
    assert sorted(v.code for v in got) == ["missed_within_one"]


# --------------------------------------------------------------------------- WTC base contact
# T1 stands in a channel 1.5" wide (walls north and south, closed east) whose mouth
# starts DELTA = 0.21" west of T1's west point. Unturned (long axis across), the oval's
# blunt side cannot reach T1 through the mouth (0.21" behind its tip it is 1.94" wide);
# turned (long axis along), its tip touches T1 with the base clear of the walls, and the
# turn there sweeps past the mouth's corners (1.226" from the centre, the tips reach
# 1.18"). The post stops the turn at the start. Base contact costs the straight travel
# to S* = (X_T - R32 - a, 50) plus the quarter turn.

HALF = 0.75  # the channel's half width (T1's radius is 0.63)
DELTA = 0.21


def contact_case(over: float) -> tuple[dict[str, Any], dict[str, Any]]:
    sx = X_T - R32 - A
    x0 = sx + L - 12.0 - over
    post = (x0 + 26 / MM * math.cos(math.radians(225)), 50.0 + 26 / MM * math.sin(math.radians(225)))
    x_end = X_T - R32 - DELTA
    wall = {"type": "wall", "height": 5, "climbable": False, "thickness": 0.02}
    data = {
        "format": "chargeref/1", "system": "40k", "rules": {"edition": 10, "wtc": True},
        "board": {"width": 100, "depth": 100},
        "terrain": [
            {**wall, "id": "P1", "points": [[post[0] - 0.02, post[1]], [post[0] + 0.02, post[1]]], "thickness": 0.04},
            {**wall, "id": "WN", "points": [[x_end, 50.0 + HALF + 0.01], [X_T + 2.0, 50.0 + HALF + 0.01]]},
            {**wall, "id": "WS", "points": [[x_end, 50.0 - HALF - 0.01], [X_T + 2.0, 50.0 - HALF - 0.01]]},
            {**wall, "id": "WE", "points": [[X_T + R32 + 0.05, 50.0 - HALF], [X_T + R32 + 0.05, 50.0 + HALF]]},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"],
             "models": [{"id": "A1", "at": [x0, 50.0], "base": {"oval": [60, 35]}, "facing": 90.0}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [X_T, 50.0], "base": {"round": 32}}]},
        ],
    }
    end = [sx - 0.5, 50.0]  # turned there, 1/2" from T1: engaged, not in contact
    return data, end_turn_ruling(data, x0, end, L)


def contact_codes(over: float, deg: float = 0.0, mirror: bool = False) -> list[str]:
    data, ruling = transformed(*contact_case(over), deg, mirror)
    got = validate_ruling(scenario_from_data(data), Ruling.model_validate(ruling))
    return sorted(v.code for v in got)


@pytest.mark.parametrize("deg, mirror", [(0.0, False), (33.0, True)])
@pytest.mark.parametrize("over, owed", [(0.0, True), (-0.001, True), (1.1e-6, False), (0.001, False)])
def test_base_contact_turning_at_the_end_spot(deg: float, mirror: bool, over: float, owed: bool) -> None:
    assert contact_codes(over, deg, mirror) == (["missed_base_contact"] if owed else [])


def test_base_contact_only_the_end_turn_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from chargeref.validate import w40k_contact

    data, ruling = contact_case(0.0)
    got = validate_ruling(scenario_from_data(data), Ruling.model_validate(ruling))
    assert [v.code for v in got] == ["missed_base_contact"]
    assert got[0].witness["facing"] == pytest.approx(0.0, abs=1e-9)
    assert got[0].witness["spot"] == pytest.approx([X_T - R32 - A, 50.0], abs=1e-6)
    monkeypatch.setattr(w40k_contact, "end_turn", lambda *a, **k: None)
    assert contact_codes(-0.5) == []
