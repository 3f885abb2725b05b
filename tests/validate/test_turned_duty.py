"""The WTC base-contact duty asks a model the ruling turned with its turned base too
(``w40k_contact.turned_ctx``): the base turned at its start to the facing the ruling
gave it, the turn's length taken off the roll, the turn's sweep clear.

The scene (tests/w40k/test_pivot.py's slot): a 60x35 mm oval facing 90 (its long axis
across) west of a wall with one slot exactly 35 mm wide, its target T1 east of it. Only
the oval turned to face 0 passes. The ruling turns it at its start (a quarter turn,
``L = a pi / 2``, ``a`` = 30 mm) and stops it 1/2" short of T1 (engaged, not in base
contact). Base contact costs ``(X_T - a - x0) + L`` from a start at ``x0``: with the start
placed so that this is exactly the roll (12), base contact was owed; 0.001" farther
back it was not. Unturned the oval cannot pass the slot at all.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from h40k import turned_slot_scene

from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data
from chargeref.validate import validate_ruling

MM = 25.4
A = 30 / MM  # the oval's half length
L = A * math.pi / 2  # a quarter turn
X_T = 34.5 - 16 / MM  # T1's nearest point along the slot's axis


def scene(x0: float, wtc: bool = True, edition: int = 10) -> dict[str, Any]:
    gap = 35 / MM
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition, "wtc": wtc} if edition != 11 else {"edition": 11},
        "terrain": [
            {"type": "wall", "id": "W1", "points": [[30, 0], [30, 15 - gap / 2]], "thickness": 4, "height": 5,
             "climbable": False},
            {"type": "wall", "id": "W2", "points": [[30, 15 + gap / 2], [30, 30]], "thickness": 4, "height": 5,
             "climbable": False},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"],
             "models": [{"id": "A1", "at": [x0, 15.0], "base": {"oval": [60, 35]}, "facing": 90.0}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [34.5, 15.0], "base": {"round": 32}}]},
        ],
    }


def ruling(data: dict[str, Any], x0: float, ang: float, mirror: bool, short: float = 0.5) -> tuple:
    """Turn 90 -> 0 at the start, then east to ``short`` inches short of base contact
    with T1."""
    g = 35 / MM / 2
    walls = [(30, 0 - 0, 15 - g), (30, 15 + g, 30)]
    before = turned_slot_scene(data, ang, mirror, walls, None)
    end = X_T - A - short
    after_src = {**data, "units": [dict(u) for u in data["units"]]}
    after_src["units"][0] = {**data["units"][0], "flags": ["charged"],
                             "models": [{**data["units"][0]["models"][0], "at": [end, 15.0], "facing": 0.0}]}
    after = turned_slot_scene(after_src, ang, mirror, walls, None)
    c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))

    def pt(x: float, y: float) -> list[float]:
        x, y = x - 30.0, y - 15.0
        if mirror:
            y = -y
        return [50 + c * x - s * y, 50 + s * x + c * y]

    def face(f: float) -> float:
        return (-f if mirror else f) + ang

    p0, p1 = pt(x0, 15.0), pt(end, 15.0)
    mv = {"id": "A1", "from": p0, "to": p1, "distance": (end - x0) + L,
          "segments": [{"kind": "pivot", "at": p0, "from": face(90.0), "to": face(0.0), "length": L},
                       {"kind": "line", "from": p0, "to": p1}],
          "facing": face(0.0), "facing_from": face(90.0)}
    return before, {
        "format": "chargeref-ruling/1", "system": "40k", "charger": "A", "targets": ["T"], "eligible": True,
        "success": True, "procedure": "normal", "roll": {"dice": [6, 6], "modifier": 0, "total": 12},
        "needed": {"roll": 10}, "moves": [mv], "engaged": ["T"], "after": after,
    }


def codes(x0: float, ang: float = 0.0, mirror: bool = False, wtc: bool = True) -> list[str]:
    before, r = ruling(scene(x0, wtc), x0, ang, mirror)
    got = validate_ruling(scenario_from_data(before), Ruling.model_validate(r))
    return sorted(v.code for v in got)


EXACT = X_T - A + L - 12.0  # the start from which base contact costs exactly 12


@pytest.mark.parametrize("ang, mirror", [(0.0, False), (90.0, False), (33.0, True)])
@pytest.mark.parametrize("back, owed", [(0.0, True), (5e-7, True), (1.1e-6, False), (0.001, False)])
def test_turned_base_contact_at_the_roll(ang: float, mirror: bool, back: float, owed: bool) -> None:
    assert codes(EXACT - back, ang, mirror) == (["missed_base_contact"] if owed else [])


def test_without_wtc_no_duty() -> None:
    assert codes(EXACT, wtc=False) == []


def test_the_witness_names_the_turned_facing() -> None:
    before, r = ruling(scene(EXACT), EXACT, 0.0, False)
    got = validate_ruling(scenario_from_data(before), Ruling.model_validate(r))
    assert [v.code for v in got] == ["missed_base_contact"]
    w = got[0].witness
    assert w["facing"] == pytest.approx(0.0, abs=1e-9) and w["target"] == "T1"
    # (the scene stands with the slot's centre (30, 15) at (50, 50))
    assert w["spot"][0] == pytest.approx(X_T - A + 20.0, abs=1e-6) and w["spot"][1] == pytest.approx(50.0, abs=1e-6)


# edition 11: the within-1" duty (straight level moves) asks the turned base too. The
# ruling stops 1.5" short of T1 (in its 2" engagement range, not within 1"); the spot
# 1" from T1 costs (X_T - A - 1 - x0) + L.

EXACT11 = X_T - A - 1.0 + L - 12.0


def codes11(x0: float, ang: float = 0.0, mirror: bool = False) -> list[str]:
    before, r = ruling(scene(x0, edition=11), x0, ang, mirror, short=1.5)
    got = validate_ruling(scenario_from_data(before), Ruling.model_validate(r))
    return sorted(v.code for v in got)


@pytest.mark.parametrize("ang, mirror", [(0.0, False), (33.0, True)])
@pytest.mark.parametrize("back, owed", [(0.0, True), (1.1e-6, False), (0.001, False)])
def test_ed11_within_one_with_the_turned_base(ang: float, mirror: bool, back: float, owed: bool) -> None:
    assert codes11(EXACT11 - back, ang, mirror) == (["missed_within_one"] if owed else [])
