"""40k charges end to end: the issue's acceptance cases and the rule thresholds.

Every successful end state is re-checked by the independent validator.
"""

from __future__ import annotations

import math

import pytest
from h40k import EXAMPLES, MM, r32, scen40k, unit40k

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data
from chargeref.testing import assert_legal_charge

S = find_system("40k")


def charge(data_or_scen, charger, targets, **kw):
    scen = scenario_from_data(data_or_scen) if isinstance(data_or_scen, dict) else data_or_scen
    r = S.charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), **kw))
    if r.success:
        assert_legal_charge(scen, r)
    return scen, r


# ------------------------------------------------------------------ worked example


def test_wtc_walkthrough_ten_inch_roll_holds_last_model_back():
    scen = load_scenario(EXAMPLES / "wtc_walkthrough.yaml")
    r = S.charge(scen, ChargeRequest("A", ("B", "C"), dice=(4, 6)))
    assert r.success and r.roll.total == 10
    assert sorted(r.engaged) == ["B", "C"]
    assert_legal_charge(scen, r)
    c1 = (23.0, 17.5)
    rad = r32()
    # models touching B take base contact; toward C a model ends in engagement range
    # but not in contact (contact would break coherency), as in the seed's last step
    near_c = [m for m in r.moves if math.dist(m.to[:2], c1) - 2 * rad <= 1.0 + 1e-6]
    assert near_c, "somebody must engage C"
    held = [m for m in near_c if "C1" not in m.contacts]
    assert held, "the model toward C is held back from base contact"
    for m in held:
        # it could have reached base contact with C within the roll ...
        assert math.dist(m.from_[:2], c1) - 2 * rad <= 10 + 1e-9
        # ... and the ruling says why it did not
        assert any(x.code == "held_back" and x.models == [m.id, "C1"] for x in r.reasons)
    assert any("B" in c for m in r.moves for c in m.contacts)


# ------------------------------------------------------------------ exact ellipse


def test_oval_target_short_axis_uses_the_true_ellipse():
    scen = load_scenario(EXAMPLES / "40k" / "oval_short_axis.yaml")
    need = S.needed(scen, ChargeRequest("A", ("M",)))
    gap = 10.276 - 109 / 2 / MM - 16 / MM
    assert need.distance == pytest.approx(gap - 1.0, abs=1e-6)
    assert need.roll == 7
    # a bounding circle of the oval (radius 85 mm) would have promised a 6
    circle_gap = 10.276 - 85 / MM - 16 / MM
    assert math.ceil(circle_gap - 1.0) == 6
    _, r = charge(scen, "A", ["M"], dice=(3, 4))
    assert r.success
    _, r = charge(scen, "A", ["M"], dice=(3, 3))
    assert not r.success and r.moves == []


# ------------------------------------------------------------------ ruin walls


def test_infantry_goes_through_a_ruin_wall_monster_must_go_round():
    scen = load_scenario(EXAMPLES / "40k" / "ruin_wall.yaml")
    inf = S.needed(scen, ChargeRequest("I", ("T",)))
    # straight through: from y=9 to contact below T1 at y=16.2-2r
    assert inf.distance == pytest.approx(16.2 - 2 * r32() - 9 - 1.0, abs=1e-6) or inf.distance <= 16.2 - 2 * r32() - 9
    assert inf.roll is not None and inf.roll <= 6
    mon = S.needed(scen, ChargeRequest("K", ("T",)))
    assert mon.roll is None  # round the 8" wall is too far, over it costs 10" of climbing
    _, r = charge(scen, "I", ["T"], dice=(3, 3))
    assert r.success
    # no model ended inside the wall (the validator also checks this)
    assert all(not (13.9 - r32() < m.to[1] < 14.1 + r32() and 18 - r32() < m.to[0] < 26 + r32()) for m in r.moves)


def test_monster_round_a_short_wall_needs_the_longer_path():
    data = scenario_from_data(load_scenario(EXAMPLES / "40k" / "ruin_wall.yaml").model_dump(mode="json", exclude_none=True)).model_dump(mode="json", exclude_none=True)
    data["terrain"][0]["walls"][0]["points"] = [[20.5, 14], [23.5, 14]]
    scen = scenario_from_data(data)
    inf = S.needed(scen, ChargeRequest("I", ("T",)))
    mon = S.needed(scen, ChargeRequest("K", ("T",)))
    straight = math.dist((22, 6), (22, 16.2)) - r32() - 30 / MM - 1.0
    assert mon.roll is not None
    assert mon.distance > straight + 0.3  # it has to walk round the wall
    assert inf.roll is not None and inf.distance < mon.distance
    _, r = charge(scen, "K", ["T"], roll=mon.roll)
    assert r.success
    path = r.moves[0].path
    assert len(path) >= 3  # bends round the wall's end
    _, r = charge(scen, "K", ["T"], roll=mon.roll - 1)
    assert not r.success


# ------------------------------------------------------------------ non-targets


def test_ringed_target_cannot_be_charged_alone_but_can_with_the_ring():
    scen = load_scenario(EXAMPLES / "40k" / "ringed_target.yaml")
    alone = S.needed(scen, ChargeRequest("A", ("B",)))
    assert alone.roll is None
    both = S.needed(scen, ChargeRequest("A", ("B", "N")))
    assert both.roll is not None
    _, r = charge(scen, "A", ["B", "N"], roll=12)
    assert r.success and sorted(r.engaged) == ["B", "N"]
    _, r = charge(scen, "A", ["B"], roll=12)
    assert not r.success
    assert any(x.code in ("target_unreachable", "no_legal_placement") for x in r.reasons)


# ------------------------------------------------------------------ thresholds


def _pair(gap: float, **kw):
    """A single 32 mm charger and a single 32 mm target, ``gap`` apart (edge to edge)."""
    d = gap + 2 * r32()
    return scen40k([unit40k("A", 1, [(10, 10)]), unit40k("B", 2, [(10, 10 + d)])], **kw)


@pytest.mark.parametrize("gap,roll,ok", [(7.0, 6, True), (7.0 + 1e-3, 6, False), (6.0, 5, True)])
def test_engagement_edge_exactly_at_one_inch(gap, roll, ok):
    _, r = charge(_pair(gap), "A", ["B"], roll=roll)
    assert r.success is ok
    if ok:
        assert r.needed.distance == pytest.approx(gap - 1.0, abs=1e-6)


def test_needed_roll_is_exact_and_proven():
    _, r = charge(_pair(8.5), "A", ["B"], roll=12)
    assert r.needed.roll == 8 and r.needed.exact
    assert r.needed.distance == pytest.approx(7.5, abs=1e-6)


@pytest.mark.parametrize("gap,eligible", [(12.0, True), (12.0 + 1e-3, False)])
def test_target_within_twelve_inches(gap, eligible):
    _, r = charge(_pair(gap), "A", ["B"], roll=12)
    assert r.eligible is eligible
    if not eligible:
        assert {x.code for x in r.reasons} >= {"target_out_of_range"}


def test_starting_in_engagement_range_is_not_eligible():
    _, r = charge(_pair(1.0), "A", ["B"], roll=12)
    assert not r.eligible and any(x.code == "starts_engaged" for x in r.reasons)
    _, r = charge(_pair(1.0 + 1e-3), "A", ["B"], roll=12)
    assert r.eligible


@pytest.mark.parametrize("flag,code", [("advanced", "advanced"), ("fell_back", "fell_back"), ("action", "action")])
def test_flags_make_a_unit_ineligible(flag, code):
    d = _pair(5.0)
    d["units"][0]["flags"] = [flag]
    _, r = charge(d, "A", ["B"], roll=12)
    assert not r.eligible and code in {x.code for x in r.reasons}


def test_movement_dash_and_aircraft_cannot_charge():
    d = _pair(5.0)
    d["units"][0]["movement"] = "-"
    _, r = charge(d, "A", ["B"], roll=12)
    assert "no_movement" in {x.code for x in r.reasons}
    d = _pair(5.0)
    d["units"][0]["keywords"] = ["AIRCRAFT", "FLY"]
    _, r = charge(d, "A", ["B"], roll=12)
    assert "aircraft" in {x.code for x in r.reasons}


def test_vertical_five_inches_exactly():
    # target on a ruin floor 5" up, directly above reach: engagement counts at 5.000"
    for z, ok in ((5.0, True), (5.0 + 1e-3, False)):
        d = scen40k(
            [unit40k("A", 1, [(10, 10)]), unit40k("B", 2, [(10, 14 + 2 * r32(), z)])],
            terrain=[{"type": "ruin", "id": "R", "footprint": [[8, 14.5], [12, 14.5], [12, 18], [8, 18]],
                      "floors": [{"polygon": [[8, 14.5], [12, 14.5], [12, 18], [8, 18]], "height": 5.0}]}],
        )
        _, r = charge(d, "A", ["B"], roll=12)
        assert r.success is ok, z


def test_two_models_exactly_two_inches_apart_charge_together():
    # two chargers exactly 2.000" apart edge to edge stay coherent as they move (the 2.001"
    # edge is checked in test_validate.py: the solver itself may simply close up)
    rad = r32()
    d = scen40k([unit40k("A", 1, [(10, 10), (10 + 2 * rad + 2.0, 10)]), unit40k("B", 2, [(10, 17 + 2 * rad)])])
    _, r = charge(d, "A", ["B"], roll=8)
    assert r.success


def test_failed_charge_edition_10_nobody_moves():
    _, r = charge(_pair(9.0), "A", ["B"], dice=(1, 2))
    assert not r.success and r.procedure == "failed" and r.moves == []
    assert any(x.code == "roll_too_low" for x in r.reasons)


def test_failed_charge_edition_9_moves_closer():
    scen, r = charge(_pair(9.0, rules={"edition": 9}), "A", ["B"], dice=(1, 2))
    assert not r.success and len(r.moves) == 1
    m = r.moves[0]
    assert m.distance <= 3 + 1e-9 and m.to[1] > m.from_[1]
    _, r = charge(_pair(9.0, rules={"edition": 9, "failed_charge_moves": False}), "A", ["B"], dice=(1, 2))
    assert r.moves == []


def test_overwatch_casualties_spoil_the_charge_wtc():
    # the only model that can reach is shot: the charge fails, nobody moves
    rad = r32()
    d = scen40k([unit40k("A", 1, [(10, 10), (10, 10 - 2 * rad - 1.5)]), unit40k("B", 2, [(10, 17 + 2 * rad)])])
    _, r = charge(d, "A", ["B"], dice=(3, 4))
    assert r.success
    _, r = charge(d, "A", ["B"], dice=(3, 4), casualties=("A1",))
    assert not r.success and r.moves == []
    assert "overwatch_spoiled" in {x.code for x in r.reasons}


def test_command_reroll_rerolls_both_dice_when_failing():
    _, r = charge(_pair(9.0), "A", ["B"], dice=(1, 1), reroll="failed", seed=3)
    assert r.roll.rerolled_from == [1, 1] and len(r.roll.dice) == 2


def test_rotation_invariance_of_needed():
    import numpy as np

    base = _pair(6.3)
    need0 = S.needed(scenario_from_data(base), ChargeRequest("A", ("B",)))
    th = math.radians(37)
    rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    d = scen40k([unit40k("A", 1, [tuple(rot @ np.array([0, 0]) + 20)]),
                 unit40k("B", 2, [tuple(rot @ np.array([0, 6.3 + 2 * r32()]) + 20)])])
    need1 = S.needed(scenario_from_data(d), ChargeRequest("A", ("B",)))
    assert need0.roll == need1.roll and need0.distance == pytest.approx(need1.distance, abs=1e-6)


# ------------------------------------------------------------------ climbing thresholds


def _over_wall(h: float, edition: int):
    """A MONSTER 10" from its target with a long free wall of height h in between."""
    return scen40k(
        [unit40k("A", 1, [(20, 10)], kw=("MONSTER",)), unit40k("B", 2, [(20, 20)])],
        terrain=[{"type": "wall", "id": "w", "points": [[4, 15], [36, 15]], "height": h, "thickness": 0.2}],
        rules={"edition": edition},
    )


@pytest.mark.parametrize(
    "edition,h,extra",
    [(10, 2.0, 0.0), (10, 2.001, 4.002), (9, 1.0, 0.0), (9, 1.001, 2.002)],
)
def test_climbing_counts_only_above_the_edition_threshold(edition, h, extra):
    need = S.needed(scenario_from_data(_over_wall(h, edition)), ChargeRequest("A", ("B",)))
    straight = 10 - 2 * r32() - 1.0
    if straight + extra <= 12:
        assert need.distance == pytest.approx(straight + extra, abs=1e-6)
    else:
        assert need.roll is None


def test_nobody_ends_mid_climb_on_a_tall_obstacle():
    # the only spots in engagement range are on top of a 3" block: not allowed
    d = scen40k(
        [unit40k("A", 1, [(20, 10)], kw=("MONSTER",)), unit40k("B", 2, [(20, 17)])],
        terrain=[{"type": "obstacle", "id": "block", "polygon": [[10, 12], [30, 12], [30, 16.3], [10, 16.3]], "height": 3}],
    )
    r = S.charge(scenario_from_data(d), ChargeRequest("A", ("B",), roll=12))
    for m in r.moves:
        assert not (12 - r32() < m.to[1] < 16.3 + r32() and 10 - r32() < m.to[0] < 30 + r32())
    if r.success:
        assert_legal_charge(scenario_from_data(d), r)


# ------------------------------------------------------------------ heroic interventions


def test_edition_9_heroic_intervention_moves_up_to_three_inches_closer():
    rad = r32()
    # C (a CHARACTER) is 2.5" from enemy A1 (within 3", not within 1")
    d = scen40k(
        [unit40k("A", 1, [(20, 10)]), unit40k("C", 2, [(20, 10 + 2 * rad + 2.5)], kw=("INFANTRY", "CHARACTER"))],
        rules={"edition": 9},
    )
    scen = scenario_from_data(d)
    r = S.heroic_intervention(scen, "C")
    assert r.success and r.procedure == "heroic_intervention"
    m = r.moves[0]
    assert m.distance == pytest.approx(2.5, abs=1e-6)  # straight into base contact
    assert r.engaged == ["A"]
    assert_legal_charge(scen, r)


@pytest.mark.parametrize("gap,eligible", [(3.0, True), (3.0 + 1e-3, False)])
def test_edition_9_heroic_intervention_needs_an_enemy_within_three_inches(gap, eligible):
    rad = r32()
    d = scen40k(
        [unit40k("A", 1, [(20, 10)]), unit40k("C", 2, [(20, 10 + 2 * rad + gap)], kw=("INFANTRY", "CHARACTER"))],
        rules={"edition": 9},
    )
    r = S.heroic_intervention(scenario_from_data(d), "C")
    assert r.eligible is eligible
    if not eligible:
        assert "no_enemy_near" in {x.code for x in r.reasons}


def test_heroic_intervention_needs_a_character():
    d = scen40k([unit40k("A", 1, [(20, 10)]), unit40k("C", 2, [(20, 13.5)])], rules={"edition": 9})
    r = S.heroic_intervention(scenario_from_data(d), "C")
    assert not r.eligible and "not_character" in {x.code for x in r.reasons}
