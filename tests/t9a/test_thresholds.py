"""Thresholds: the front/flank dividing line, the 90 degree wheel, and flees that must
be extended past a friend (which then takes a Panic Test)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import B20, SYSTEM, charge, scen, unit

from chargeref.ruling import Ruling
from chargeref.systems import ChargeRequest
from chargeref.systems.t9a.charge import solve
from chargeref.systems.t9a.world import World
from chargeref.testing import assert_legal_charge
from chargeref.validate import validate_ruling

HW = 5 * B20 / 2  # half the width of a 5-wide unit
DEPTH = 3 * B20  # 3 ranks


def target_and(charger_front, facing, files=5, models=10):
    return scen([unit("B", 2, (24, 20), 90, 5, 15), unit("A", 1, charger_front, facing, files, models)])


def test_on_the_dividing_line_counts_as_flank():
    # B's front-right corner is (24 + HW, 20); its dividing line runs up-right at 45
    # degrees from there. A's front midpoint sits exactly on it.
    k = 3.0
    s = target_and((24 + HW + k, 20 + k), 225)
    r = charge(s, "A", "B", dice=(6, 6))
    assert r.details["charged_facing"] == "right"
    assert r.success
    a = next(u for u in r.after["units"] if u["id"] == "A")["formation"]
    assert a["facing"] == pytest.approx(180)  # flush on the right flank, looking in
    assert a["front"][0] == pytest.approx(24 + HW)
    assert_legal_charge(s, r)


def test_just_inside_the_front_arc_is_front():
    k = 3.0
    s = target_and((24 + HW + k, 20 + k + 1e-3), 225)
    r = charge(s, "A", "B", dice=(6, 6))
    assert r.details["charged_facing"] == "front"
    assert_legal_charge(s, r)


def test_flank_arc_ends_flush_on_the_flank():
    s = target_and((30, 19), 180)
    r = charge(s, "A", "B", dice=(6, 6))
    assert r.details["charged_facing"] == "right" and r.success
    a = next(u for u in r.after["units"] if u["id"] == "A")["formation"]
    assert a["facing"] == pytest.approx(180) and a["front"][0] == pytest.approx(24 + HW)
    assert_legal_charge(s, r)


def _direct(facing: float) -> bool:
    """Can A reach B's front with a wheel alone (no align move)?"""
    s = target_and((18, 26), facing)
    w = World.from_scenario(s)
    A, B = w.blocks["A"], w.blocks["B"]
    fr = B.facing_of("front")
    S = np.linspace(-4, 4, 81)
    r = solve(A, fr, S, np.zeros_like(S))
    return bool(np.any(r["ok"]))


def test_wheel_of_exactly_90_degrees_is_allowed():
    # facing the front of B needs a heading of 270: from 0 that is a 90 degree wheel
    assert _direct(0.0)
    assert not _direct(0.001)  # 90.001 degrees: one wheel is not enough
    assert _direct(-0.001)  # 89.999 degrees


def test_a_90_001_degree_turn_needs_an_align_move():
    s = target_and((18, 26), 0.001)
    r = charge(s, "A", "B", dice=(6, 6))
    assert r.success
    assert abs(r.details["placement"]["wheel"]) <= 90
    assert abs(r.details["placement"]["align"]) > 0
    assert_legal_charge(s, r)


def _wheel_ruling(angle: float):
    s = target_and((18, 26), 0.0)
    r = charge(s, "A", "B", dice=(6, 6))
    assert r.success
    data = r.to_json_data()
    steps = data["details"]["paths"][0]["steps"]
    # a hand-made path: one wheel of the given angle in place (its end recorded)
    wl = World.from_scenario(s)
    A = wl.blocks["A"].wheeled(angle)
    data["details"]["paths"][0]["steps"] = [{"kind": "wheel", "angle": angle}]
    data["details"]["paths"][0]["to"] = {"front": [A.front[0], A.front[1]], "facing": A.facing}
    del steps
    return s, Ruling.model_validate(data)


def test_validator_allows_90_and_refuses_90_001():
    s, r90 = _wheel_ruling(-90.0)
    assert not [v for v in validate_ruling(s, r90) if v.code == "wheel_too_large"]
    s, r91 = _wheel_ruling(-90.001)
    assert [v for v in validate_ruling(s, r91) if v.code == "wheel_too_large"]


def test_flee_extended_past_a_friend_which_takes_a_panic_test():
    # B charges E; E flees straight away from B, 5", which would end inside F
    s = scen([unit("B", 1, (24, 26), 270, 5, 10), unit("E", 2, (24, 20), 90, 5, 10),
              unit("F", 2, (24, 14), 90, 5, 15, discipline=8)])
    r = SYSTEM.charge(s, ChargeRequest("B", ("E",), dice=(4, 4), reaction="flee", reaction_dice=(2, 3),
                                       extra={"panic_dice": {"F": [4, 4]}}))
    assert_legal_charge(s, r)
    flee = next(e for e in r.details["events"] if e["event"] == "flee")
    assert flee["rolled"] == 5 and flee["heading"] == pytest.approx(270)
    assert flee["extended_past"] == ["F"] and flee["through_friends"] == ["F"]
    # F's far edge is at y = 14 - 3 ranks; E (2 ranks, now looking south) must end more
    # than 1" beyond it: its rear edge below 14 - DEPTH - 1
    e = next(u for u in r.after["units"] if u["id"] == "E")
    rear = e["formation"]["front"][1] + 2 * B20
    assert rear < 14 - DEPTH - 1
    assert rear == pytest.approx(14 - DEPTH - 1, abs=2e-3)
    panic = next(x for x in r.details["events"] if x["event"] == "panic_test")
    assert panic == {"event": "panic_test", "unit": "F", "dice": [4, 4], "passed": True, "why": "E fled through it"}
    assert "fleeing" in e["flags"]
    assert any(x.code == "fled" for x in r.reasons)


def test_flee_off_the_board_destroys():
    s = scen([unit("B", 1, (24, 8), 270, 5, 10), unit("E", 2, (24, 4), 90, 5, 10)])
    r = SYSTEM.charge(s, ChargeRequest("B", ("E",), dice=(4, 4), reaction="flee", reaction_dice=(6, 6)))
    flee = next(e for e in r.details["events"] if e["event"] == "flee")
    assert flee["destroyed"]
    assert all(u["id"] != "E" for u in r.after["units"])
    assert_legal_charge(s, r)


def test_stand_and_shoot_only_when_allowed():
    # A is 2" away (within its Advance Rate of 4): no Stand and Shoot; B holds
    s = scen([unit("A", 1, (24, 22), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15, shooting=True)])
    r = SYSTEM.charge(s, ChargeRequest("A", ("B",), dice=(3, 3), reaction="stand_and_shoot"))
    assert any(x.code == "stand_and_shoot_not_allowed" for x in r.reasons)
    # 6" away and in the front arc: allowed
    s2 = scen([unit("A", 1, (24, 26), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15, shooting=True)])
    r2 = SYSTEM.charge(s2, ChargeRequest("A", ("B",), dice=(3, 3), reaction="stand_and_shoot",
                                         extra={"shoot_casualties": 3}))
    ev = r2.details["events"]
    assert ev[0]["result"] == "stand_and_shoot"
    a = next(u for u in r2.after["units"] if u["id"] == "A")["formation"]
    assert a["models"] == 7
    assert_legal_charge(s2, r2)


def test_charge_range_uses_lowest_advance_rate_and_path():
    # needed.roll is the least 2D6 total: distance 9.5 - Advance Rate 4 -> 6
    s = scen([unit("A", 1, (24, 29.5), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])
    n = SYSTEM.needed(s, ChargeRequest("A", ("B",)))
    assert n.distance == pytest.approx(9.5) and n.roll == 6


def test_gap_mode_measures_closest_distance():
    s = scen([unit("A", 1, (28, 22.5), 180, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)],
             rules={"charge_distance": "gap"})
    s2 = scen([unit("A", 1, (28, 22.5), 180, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])
    ng = SYSTEM.needed(s, ChargeRequest("A", ("B",)))
    npath = SYSTEM.needed(s2, ChargeRequest("A", ("B",)))
    assert ng.distance < npath.distance


def test_charging_a_fleeing_unit_destroys_it():
    s = scen([unit("A", 1, (24, 26), 270, 5, 10), unit("E", 2, (24, 20), 270, 5, 10, flags=["fleeing"])])
    # charged again, the fleeing unit must flee again (1 + 1 = 2"), then it is caught
    r = charge(s, "A", "E", dice=(5, 5), reaction_dice=(1, 1), seed=7)
    assert next(e for e in r.details["events"] if e["event"] == "flee")["rolled"] == 2
    assert r.procedure == "fleeing_target" and r.success
    assert all(u["id"] != "E" for u in r.after["units"])
    a = next(u for u in r.after["units"] if u["id"] == "A")
    assert "shaken" in a["flags"]
    assert_legal_charge(s, r)


def test_math_sanity():
    assert math.isclose(HW * 2, 5 * 20 / 25.4)
