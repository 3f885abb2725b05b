"""Round bases, Swiftstride, casualties and the scenario checks."""

from __future__ import annotations

import pytest
from build import SYSTEM, charge, impassable, round_unit, scen, unit

from chargeref.errors import RequestError
from chargeref.systems import ChargeRequest
from chargeref.testing import assert_legal_charge


def test_round_charger_touches_the_facing():
    s = scen([round_unit("M", 1, (24, 26), 270, d=50), unit("B", 2, (24, 20), 90, 5, 15)])
    r = charge(s, "M", "B", dice=(4, 4))
    assert r.success and r.details["charged_facing"] == "front"
    assert r.details["priorities"]["models_in_contact"] >= 2
    assert_legal_charge(s, r)


def test_charging_a_round_model_has_one_front_arc():
    s = scen([unit("A", 1, (30, 26), 225, 5, 10), round_unit("M", 2, (24, 21), 90, d=60)])
    r = charge(s, "A", "M", dice=(5, 5))
    assert r.details["charged_facing"] == "front"
    assert r.success
    assert_legal_charge(s, r)


def test_swiftstride_rolls_three_dice_and_keeps_two():
    s = scen([unit("A", 1, (24, 34), 270, 5, 10, keywords=["SWIFTSTRIDE"]), unit("B", 2, (24, 20), 90, 5, 15)])
    r = charge(s, "A", "B", dice=(6, 1, 5))
    assert r.roll.total == 11 and r.success
    assert_legal_charge(s, r)


def test_reroll_failed_charge():
    s = scen([unit("A", 1, (24, 34), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])
    r = SYSTEM.charge(s, ChargeRequest("A", ("B",), dice=(1, 1), reroll="failed", seed=3))
    assert r.roll.rerolled_from == [1, 1]


def test_engaged_shaken_and_fleeing_chargers_cannot_charge():
    for flag in ("engaged", "shaken", "fleeing"):
        s = scen([unit("A", 1, (24, 26), 270, 5, 10, flags=[flag]), unit("B", 2, (24, 20), 90, 5, 15)])
        r = charge(s, "A", "B")
        assert not r.eligible and r.reasons[0].code == flag


def test_beyond_max_range():
    s = scen([unit("A", 1, (24, 40), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])
    r = charge(s, "A", "B")
    assert not r.eligible and r.reasons[0].code == "beyond_max_range"


def test_terrain_in_the_way_of_the_only_path():
    # a wall of impassable terrain fully between A and B
    s = scen([unit("A", 1, (24, 30), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)],
             [impassable("rock", [(10, 24), (38, 24), (38, 26), (10, 26)])])
    r = charge(s, "A", "B")
    assert not r.eligible
    assert_legal_charge(s, r)


def test_half_inch_spacing_option_keeps_away_from_friends():
    units = [unit("A", 1, (24, 26), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15),
             unit("F", 1, (28.2, 26), 270, 3, 6)]
    r_touch = charge(scen(units), "A", "B", dice=(4, 4))
    r_half = charge(scen(units, rules={"charge_spacing": "half_inch"}), "A", "B", dice=(4, 4))
    assert r_touch.success and r_half.success


def test_request_must_fit_the_scenario():
    s = scen([unit("A", 1, (24, 26), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)])
    with pytest.raises(RequestError) as ei:
        SYSTEM.charge(s, ChargeRequest("A", ()))
    assert ei.value.problems[0].field == "targets"


def test_problems_lists_bad_charges_and_terrain():
    s = scen([unit("A", 1, (24, 26), 270, 5, 10), unit("B", 2, (24, 20), 90, 5, 15)],
             [impassable("rock", [(22, 25.5), (26, 25.5), (26, 26.5), (22, 26.5)])],
             charges=[{"charger": "A", "targets": ["Q"]}], move_order=["Z"])
    fields = [p.field for p in SYSTEM.problems(s)]
    assert "charges[0].targets" in fields and "move_order" in fields
    assert any("impassable" in p.message for p in SYSTEM.problems(s))


def test_after_is_loadable_and_keeps_other_fields():
    s = scen([unit("A", 1, (24, 26), 270, 5, 10, discipline=9), unit("B", 2, (24, 20), 90, 5, 15)])
    r = charge(s, "A", "B", dice=(4, 4))
    from chargeref.scenario import scenario_from_data

    s2 = scenario_from_data(r.after)
    a = next(u for u in s2.units if u.id == "A")
    assert a.discipline == 9 and "engaged" in a.flags
    assert SYSTEM.problems(s2) == []


def test_redirect_after_a_flee():
    s = scen([unit("B", 1, (24, 26), 270, 5, 10), unit("E", 2, (24, 20), 90, 5, 10),
              unit("F", 2, (32, 20), 90, 5, 10)])
    r = SYSTEM.charge(s, ChargeRequest("B", ("E",), dice=(5, 5), reaction="flee", reaction_dice=(3, 3),
                                       redirect="F", redirect_dice=(2, 2)))
    assert r.targets == ["F"] and r.details["redirected_from"] == "E"
    assert any(x.code == "redirected" for x in r.reasons)
    assert r.success and r.engaged == ["F"]
    assert_legal_charge(s, r)
    # a failed test keeps the charge on the fleeing unit
    r2 = SYSTEM.charge(s, ChargeRequest("B", ("E",), dice=(5, 5), reaction="flee", reaction_dice=(3, 3),
                                        redirect="F", redirect_dice=(6, 6)))
    assert r2.targets == ["E"] and any(x.code == "redirect_failed" for x in r2.reasons)
    assert_legal_charge(s, r2)
