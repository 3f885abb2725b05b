"""The Warmaster system's plumbing: scenario problems, refused requests, eligibility,
``needed``, the ruling's ids and ``after``, a whole phase, inches."""

from __future__ import annotations

import math

import pytest
from wm_helpers import SYSTEM, charge, codes, example, infantry_line, moved, scen, stands

from chargeref import RequestError, ScenarioError, scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.testing import assert_legal_charge


def test_registered() -> None:
    s = find_system("warmaster")
    assert s.name == "warmaster" and s is SYSTEM


def probs(data: dict) -> list[str]:
    return [str(p) for p in SYSTEM.problems(scen(data))]


def test_problems_overlap_offboard_bases_ids_terrain_charges() -> None:
    assert probs({"units": [infantry_line("A", 1, [10, 13], 10, 90)]}) == [
        "units[A].stands[A.0]: overlaps stand A.1 of unit A by 1"]
    assert probs({"units": [infantry_line("A", 1, [1], 10, 90)]}) == [
        "units[A].stands[A.0]: the stand is (partly) off the board"]
    p = probs({"units": [{"id": "A", "player": 1, "type": "infantry", "base": {"round": 25},
                          "stands": [{"at": [10, 10]}]}]})
    assert p and "base" in p[0]
    p = probs({"units": [{"id": "A", "player": 1, "type": "infantry",
                          "stands": [{"id": "x", "at": [10, 10]}, {"id": "x", "at": [14, 10]}]}]})
    assert any("used" in x for x in p)
    p = probs({"terrain": [{"id": "lake", "type": "impassable", "polygon": [[0, 0], [20, 0], [20, 20]]}],
               "units": [infantry_line("A", 1, [15], 5, 90)]})
    assert any("lake" in x for x in p)
    # infantry may stand in a ruin, cavalry may not
    ruin = [{"id": "r", "type": "ruin", "footprint": [[30, 30], [50, 30], [50, 50], [30, 50]]}]
    assert probs({"terrain": ruin, "units": [infantry_line("A", 1, [40], 40, 90)]}) == []
    assert probs({"terrain": ruin, "units": [stands("A", 1, "cavalry", [(40, 40)], 90)]})
    p = probs({"units": [infantry_line("A", 1, [10], 10, 90), infantry_line("B", 1, [30], 10, 90)],
               "charges": [{"charger": "A", "targets": ["B"]}, {"charger": "Z", "targets": ["B"]}]})
    assert p == ["charges[0].targets: B is on the same side as A", "charges[1].charger: no unit 'Z'"]


def test_touching_stands_are_fine() -> None:
    assert probs({"units": [infantry_line("A", 1, [10, 14, 18], 10, 90),
                            infantry_line("B", 2, [10, 14], 12, 270)]}) == []


def test_bad_requests_are_refused_naming_the_field() -> None:
    s = example("diagram_33_4.yaml")
    with pytest.raises(RequestError, match="charger"):
        SYSTEM.charge(s, ChargeRequest("Z", ("E",)))
    with pytest.raises(RequestError, match="exactly one target"):
        SYSTEM.charge(s, ChargeRequest("C", ("E", "C")))
    with pytest.raises(RequestError, match="target"):
        SYSTEM.charge(s, ChargeRequest("C", ("Q",)))
    with pytest.raises(RequestError, match="same side"):
        SYSTEM.charge(s, ChargeRequest("E", ("E",)))
    with pytest.raises(RequestError, match="only Revolution"):
        SYSTEM.charge(s, ChargeRequest("C", ("E",), extra={"first_stand": "C.0"}))
    for kw, field in (({"roll": 7}, "roll"), ({"modifier": 1}, "modifier"), ({"reroll": "failed"}, "reroll"),
                      ({"reaction": "hold"}, "reaction"), ({"casualties": ("C.0",)}, "casualties")):
        with pytest.raises(RequestError) as exc:
            SYSTEM.charge(s, ChargeRequest("C", ("E",), **kw))  # type: ignore[arg-type]
        assert exc.value.problems[0].field == field


def test_impossible_battlefield_is_a_scenario_error() -> None:
    s = scen({"units": [infantry_line("A", 1, [10, 12], 10, 90), infantry_line("B", 2, [30], 30, 270)]})
    with pytest.raises(ScenarioError, match="overlaps"):
        SYSTEM.charge(s, ChargeRequest("A", ("B",)))


def test_not_visible_behind_a_wall() -> None:
    s = scen({"terrain": [{"id": "w", "type": "wall", "points": [[40, 40], [80, 40]], "thickness": 0.5}],
              "units": [infantry_line("E", 2, [60], 50, 270), stands("C", 1, "cavalry", [(60, 30)], 90)]})
    r = charge(s, "C", "E")
    assert not r.eligible and r.procedure == "ineligible" and codes(r) == ["not_visible"]


def test_target_behind_the_charger_is_not_visible() -> None:
    s = scen({"units": [infantry_line("E", 2, [60], 20, 270), stands("C", 1, "cavalry", [(60, 30)], 90)]})
    assert codes(charge(s, "C", "E")) == ["not_visible"]


def test_ineligible_units() -> None:
    base = [infantry_line("E", 2, [60], 50, 270)]
    eng = scen({"units": base + [stands("C", 1, "cavalry", [(60, 30)], 90, flags=["engaged"])]})
    assert codes(charge(eng, "C", "E")) == ["engaged"]
    ch = scen({"units": base + [{"id": "G", "player": 1, "type": "character", "base": {"round": 25},
                                 "stands": [{"at": [60, 30]}]}]})
    r = charge(ch, "G", "E")
    assert not r.eligible and codes(r) == ["character"]


def test_stand_ids_given_or_generated() -> None:
    s = scen({"units": [infantry_line("E", 2, [60], 50, 270),
                        {"id": "C", "player": 1, "type": "cavalry",
                         "stands": [{"id": "knight", "at": [60, 30], "facing": 90}, {"at": [62, 30], "facing": 90}]}]})
    r = charge(s, "C", "E")
    assert sorted(m.id for m in r.moves) == ["C.1", "knight"]


def test_after_is_a_loadable_scenario_with_flags() -> None:
    s = example("diagram_34_1.yaml")
    r = charge(s, "C", "T")
    assert r.after is not None
    a = scenario_from_data(r.after)
    units = {u.id: u for u in a.units}
    assert set(units["C"].flags) == {"charged", "engaged"}
    assert units["U"].flags == ["engaged"] and units["T"].flags == ["engaged"]
    assert SYSTEM.problems(a) == []
    c = units["C"]
    assert [tuple(x.at) for x in c.stands] == [(64.0, 47.0), (62.0, 47.0), (60.0, 47.0)]
    # the charged unit cannot charge again
    assert codes(charge(a, "C", "T")) == ["engaged", "already_charged"]


def test_phase_resolves_in_order() -> None:
    s = scen({"units": [
        infantry_line("E", 2, [56, 60, 64], 50, 270),
        stands("C", 1, "cavalry", [(50, 30), (52, 30), (54, 30)], 90),
        stands("D", 1, "cavalry", [(70, 30), (72, 30), (74, 30)], 90),
    ], "charges": [{"charger": "C", "targets": ["E"]}, {"charger": "D", "targets": ["E"]}]})
    ph = SYSTEM.phase(s, 1)
    assert [r.success for r in ph.rulings] == [True, True]
    second = ph.rulings[1]
    # D's stands join the fight beside C's
    assert all(m.to[1] == 47.0 for m in second.moves)
    first_after = scenario_from_data(ph.rulings[0].after)  # type: ignore[arg-type]
    assert_legal_charge(first_after, second)
    final = scenario_from_data(ph.after)
    assert SYSTEM.problems(final) == []
    assert ph.to_json_data()["format"] == "chargeref-phase/1"


def test_inches_are_supported() -> None:
    # the same 33.4 situation written in inches: same verdict, same stands
    cm = example("diagram_33_4.yaml")
    k = 1 / 2.54
    data = {"format": "chargeref/1", "system": "warmaster", "unit": "in", "board": {"width": 120 * k, "depth": 80 * k},
            "units": [{"id": u.id, "player": u.player, "type": u.type,
                       "stands": [{"at": [x.at[0] * k, x.at[1] * k], "facing": x.facing} for x in u.stands]}
                      for u in cm.units]}
    inch = scenario_from_data(data)
    r_in = charge(inch, "C", "E")  # type: ignore[arg-type]
    r_cm = charge(cm, "C", "E")
    assert r_in.details["move"] == pytest.approx(30 * k)
    got = {m: tuple(v / k for v in xy[:2]) for m, xy in moved(r_in).items()}
    want = {m: xy[:2] for m, xy in moved(r_cm).items()}
    assert got.keys() == want.keys()
    for m in got:
        assert got[m] == pytest.approx(want[m], abs=1e-5)


def test_needed_has_no_roll() -> None:
    s = example("diagram_34_2.yaml")
    n = SYSTEM.needed(s, ChargeRequest("C", ("E",)))
    # the 2 cm wide cavalry stand passes the rock's corner (55.5, 44) as its rectangle:
    # its centre goes straight to (56.5, 42) (the corner plus half its width and depth),
    # then 5 cm straight on; no turn, so the cost is the centre's path
    assert n.roll is None and n.distance == pytest.approx(math.hypot(0.5, 12.0) + 5.0, abs=1e-6)
    assert SYSTEM.needed(example("diagram_34_3.yaml"), ChargeRequest("C", ("T",))).distance is None


def test_ruling_json_round_trip() -> None:
    s = example("diagram_33_3.yaml")
    r = charge(s, "C", "E")
    data = r.to_json_data()
    # Warmaster has no charge roll: needed.roll is null (to_json_data drops nulls)
    assert data["needed"].get("roll") is None
    data["needed"]["roll"] = None
    assert set(data["details"]) >= {"first_stand", "first_contact", "contacted_edges", "drawn_in",
                                    "contact_lengths", "placements", "order", "variant", "move"}
    assert_legal_charge(s, data)
