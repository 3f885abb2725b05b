"""The Warmaster Revolution variant (notes 3.6): zones, 1 cm of clear edge, blocked
edges, the original target first, staggering to follow an irregular target."""

from __future__ import annotations

import pytest
from wm_helpers import charge, codes, example, infantry_line, moved, scen, stands

from chargeref.scenario import scenario_to_data


def revolution(s: object) -> object:
    data = scenario_to_data(s)  # type: ignore[arg-type]
    data["rules"] = {"variant": "revolution"}
    from chargeref import scenario_from_data

    return scenario_from_data(data)


def test_34_1_revolution_keeps_to_the_original_target_first() -> None:
    r = charge(revolution(example("diagram_34_1.yaml")), "C", "T")
    assert r.details["zone"] == "front"
    m = moved(r)
    assert m["C.2"] == (60.0, 47.0, 90.0)
    assert m["C.1"] == (62.0, 47.0, 90.0)  # T and U both on this side: still the best
    assert m["C.0"] == (58.0, 47.0, 90.0)  # 1 cm of T beats 2 cm of U
    assert r.engaged == ["T", "U"]


def test_flank_zone_gives_the_side_edge() -> None:
    # cavalry well out to the east of the target's end stand: its left-side zone
    s = scen({"rules": {"variant": "revolution"}, "units": [
        infantry_line("T", 2, [56, 60, 64], 50, 270),
        stands("C", 1, "cavalry", [(80, 48), (80, 50), (80, 52)], 180),
    ]})
    r = charge(s, "C", "T")
    assert r.success and r.details["zone"] == "left"
    fc = r.details["first_contact"]
    assert (fc["enemy_stand"], fc["edge"], fc["centre_to_centre"]) == ("T.2", "left", True)
    assert moved(r)[r.details["first_stand"]] == (68.0, 50.0, 180.0)


def test_blocked_edge_moves_on_to_the_next_closest_stand() -> None:
    # the front of T.0 (the closest visible stand) has only 0.5 cm clear; T.1 is next
    s = scen({"rules": {"variant": "revolution"}, "units": [
        infantry_line("T", 2, [56, 60, 64], 50, 270),
        infantry_line("F", 1, [55.5], 48, 90, flags=["engaged"]),
        stands("C", 1, "cavalry", [(55, 30), (57, 30)], 90),
    ]})
    r = charge(s, "C", "T")
    assert r.success
    assert r.details["first_contact"]["enemy_stand"] == "T.1"
    assert r.details["first_contact"]["centre_to_centre"]
    # the original only needs some contact, so it uses the 0.5 cm left on T.0 (as close
    # as C.1 is to T.1, and its centre-to-centre spot needs less move)
    o = charge(scen({"units": scenario_to_data(s)["units"]}), "C", "T")
    assert o.success and o.procedure == "partially_covered"
    assert o.details["first_contact"]["enemy_stand"] == "T.0"
    assert o.details["first_contact"]["offset"] == pytest.approx(2.5, abs=1e-6)


def test_zone_split_exactly_is_decided_by_a_die() -> None:
    # a cavalry stand centred on the bisector through T's front-left corner (62, 49),
    # lying along it: exactly half in the front zone, half in the left-side zone
    def make() -> object:
        return scen({"rules": {"variant": "revolution"}, "units": [
            infantry_line("T", 2, [60], 50, 270),
            stands("C", 1, "cavalry", [(70, 41)], 135),
        ]})

    front = charge(make(), "C", "T", dice=[2])
    side = charge(make(), "C", "T", dice=[5])
    assert front.details["zone_roll"] == 2 and front.details["zone"] == "front"
    assert side.details["zone_roll"] == 5 and side.details["zone"] == "left"
    assert front.roll is not None and front.roll.dice == [2]
    assert front.details["first_contact"]["edge"] == "front"
    assert side.details["first_contact"]["edge"] == "left"
    seeded = charge(make(), "C", "T", seed=3)
    assert seeded.details["zone_roll"] in range(1, 7)


def test_irregular_target_stands_stagger_to_follow_it() -> None:
    # T.1 stands 1 cm further back than T.0: Revolution steps the next charger forward
    # to meet it; the original keeps the straight line (touching T.0's corner only)
    units = [
        stands("T", 2, "infantry", [(56, 50), (60, 51)], 270),
        stands("C", 1, "infantry", [(56, 35), (60, 35)], 90),
    ]
    o = charge(scen({"units": units}), "C", "T")
    rv = charge(scen({"rules": {"variant": "revolution"}, "units": units}), "C", "T")
    assert moved(o)["C.1"] == (60.0, 48.0, 90.0)
    assert moved(rv)["C.1"] == (60.0, 49.0, 90.0)
    assert rv.details["placements"]["C.1"] == "follow"
    assert rv.details["contact_lengths"]["C.1"] == pytest.approx(4.0)


def test_first_stand_may_be_chosen() -> None:
    s = revolution(example("diagram_33_4.yaml"))
    r = charge(s, "C", "E", first_stand="C.0")
    assert r.details["first_stand"] == "C.0"
    assert r.moves[0].id == "C.0"
    assert codes(r) == []


def test_first_stand_must_be_ours_and_see_the_target() -> None:
    from wm_helpers import SYSTEM

    from chargeref import RequestError
    from chargeref.systems import ChargeRequest

    s = revolution(example("diagram_33_4.yaml"))
    with pytest.raises(RequestError, match="first_stand"):
        SYSTEM.charge(s, ChargeRequest("C", ("E",), extra={"first_stand": "E.0"}))
    # C.0 hidden behind a friendly stand straight ahead of it
    s2 = scen({"rules": {"variant": "revolution"}, "units": [
        infantry_line("E", 2, [60], 60, 270),
        stands("C", 1, "cavalry", [(50, 30), (52, 30)], 90),
        infantry_line("F", 1, [50], 33.5, 90),
    ]})
    r = charge(s2, "C", "E", first_stand="C.0")
    assert codes(r) == ["first_stand_blind"] and not r.success
    assert charge(s2, "C", "E", first_stand="C.1").success
