"""Basic T9A charges: straight, angled, failed, thresholds."""

from __future__ import annotations

import math

import pytest
from build import B20, SYSTEM, charge, scen, unit

from chargeref.errors import RequestError
from chargeref.systems import ChargeRequest
from chargeref.testing import assert_legal_charge


def straight(gap: float = 6.0, dx: float = 0.0):
    # A (5 x 2) faces down at B (5 x 3) which faces up; fronts `gap` apart
    return scen([unit("A", 1, (24 + dx, 20 + gap), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])


def test_straight_charge_flush_and_legal():
    s = straight()
    r = charge(s, "A", "B", dice=(3, 4))
    assert r.eligible and r.success and r.procedure == "normal"
    assert r.details["charged_facing"] == "front"
    assert r.needed.distance == pytest.approx(6.0)
    assert r.needed.roll == 2  # 6" minus Advance Rate 4" needs any roll of at least 2
    assert r.details["priorities"]["models_in_contact"] == 10
    u = r.details["units"][0]
    assert u["facing"] == pytest.approx(270)
    assert u["front"][1] == pytest.approx(20)
    assert r.engaged == ["B"]
    assert "engaged" in next(x for x in r.after["units"] if x["id"] == "B")["flags"]
    assert_legal_charge(s, r)


def test_model_ids_and_moves():
    s = straight()
    r = charge(s, "A", "B")
    ids = [m.id for m in r.moves]
    assert ids == [f"A.{i}" for i in range(10)]
    a0 = r.moves[0]
    assert a0.distance == pytest.approx(6.0)
    assert a0.contacts  # the front rank touches B's front rank


def test_charge_range_threshold_exact():
    # distance 10: Advance Rate 4 + roll 6 is exactly enough; 1e-3 more is not
    s = straight(gap=10.0)
    r = charge(s, "A", "B", dice=(3, 3))
    assert r.success
    assert_legal_charge(s, r)
    s2 = straight(gap=10.001)
    r2 = charge(s2, "A", "B", dice=(3, 3))
    assert not r2.success and r2.procedure == "failed"
    assert any(x.code == "out_of_range" for x in r2.reasons)
    assert_legal_charge(s2, r2)


def test_failed_charge_moves_highest_die_wheeling_first():
    # A faces down but B is off to the side: the failed move wheels toward B's centre
    s = scen([unit("A", 1, (14, 26), 270, 5, 10), unit("B", 2, (22, 12), 90, 5, 15)])
    r = charge(s, "A", "B", dice=(2, 5))
    assert not r.success and r.procedure == "failed"
    fm = r.details["failed_move"]
    assert fm["distance"] == 5
    steps = r.details["paths"][0]["steps"]
    assert steps[0]["kind"] == "wheel" and steps[0]["angle"] > 0  # toward B (to A's left)
    width = 5 * B20
    used = math.radians(abs(steps[0]["angle"])) * width + sum(s["distance"] for s in steps if s["kind"] == "forward")
    assert used == pytest.approx(5.0)
    # having wheeled fully it faces B's centre
    assert fm["wheel"] == pytest.approx(fm["wheel_to_face"])
    assert "shaken" in next(x for x in r.after["units"] if x["id"] == "A")["flags"]
    assert_legal_charge(s, r)


def test_unknown_units_are_refused():
    s = straight()
    with pytest.raises(RequestError):
        SYSTEM.charge(s, ChargeRequest("Z", ("B",)))
    with pytest.raises(RequestError):
        SYSTEM.charge(s, ChargeRequest("A", ("Q",)))


def test_friend_is_refused():
    s = scen([unit("A", 1, (24, 26), 270, 5, 10), unit("B", 1, (24, 20), 90, 5, 15)])
    with pytest.raises(RequestError):
        SYSTEM.charge(s, ChargeRequest("A", ("B",)))


def test_no_line_when_target_behind():
    s = scen([unit("A", 1, (24, 26), 90, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])
    r = charge(s, "A", "B")
    assert not r.eligible
    assert r.reasons[0].code == "no_line"


def test_problems_overlap_and_board():
    s = scen([unit("A", 1, (24, 19.5), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15), unit("C", 2, (0.5, 10), 90, 5, 5)])
    probs = SYSTEM.problems(s)
    msgs = " ".join(p.message for p in probs)
    assert "overlaps" in msgs and "board" in msgs
