"""Edition 11 (rules-notes §1.13): golden rulings of examples/40k/ed11 and the edition-11
validator, each rule tested at its threshold (x.000 against x.001)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chargeref.errors import ChargerefError
from chargeref.geometry.bases import base_footprint
from chargeref.geometry.shapes import signed_distance
from chargeref.ruling import Move, Needed, Roll, Ruling, ruling_schema
from chargeref.scenario import Scenario40k, load_scenario, scenario_from_data, scenario_to_data
from chargeref.scenario.w40k import Rules40k
from chargeref.systems import ChargeRequest, find_system
from chargeref.validate import w40k as v10
from chargeref.validate import w40k_ed11 as v11
from chargeref.validate.w40k import validate

EX = Path(__file__).resolve().parents[2] / "examples" / "40k" / "ed11"
MM = 25.4
R32 = 16 / MM  # radius of a 32 mm base in inches


def scen(name: str) -> Scenario40k:
    s = load_scenario(str(EX / name))
    assert isinstance(s, Scenario40k)
    return s


def charge(s: Scenario40k, targets: tuple[str, ...], charger: str = "A", **kw: Any) -> Ruling:
    return find_system("40k").charge(s, ChargeRequest(charger=charger, targets=targets, **kw))


def with_edition(s: Scenario40k, ed: int) -> Scenario40k:
    data = scenario_to_data(s)
    data["rules"] = {"edition": ed}
    out = scenario_from_data(data)
    assert isinstance(out, Scenario40k)
    return out


def model_fp(s: Scenario40k, mid: str, at: tuple[float, float] | None = None):  # noqa: ANN201
    m = next(m for u in s.units for m in u.models if m.id == mid)
    return base_footprint(m.base.kind, m.base.dims, at if at is not None else m.xy, m.facing, MM)


def manual(s: Scenario40k, charger: str, targets: list[str], to: dict[str, tuple[float, float]], total: int,
           engaged: list[str], details: dict[str, Any] | None = None, dice: list[int] | None = None) -> Ruling:
    """A hand-made successful charge ruling: straight moves to ``to``."""
    data = scenario_to_data(s)
    start = {m.id: m.xy for u in s.units for m in u.models}
    for u in data["units"]:
        for m in u["models"]:
            if m["id"] in to:
                m["at"] = list(to[m["id"]])
        if u["id"] == charger:
            u["flags"] = [*u.get("flags", []), "charged"]
    moves = [
        Move(id=mid, **{"from": [*start[mid], 0.0]}, to=[*p, 0.0], distance=math.dist(start[mid], p),
             path=[list(start[mid]), list(p)])
        for mid, p in to.items()
    ]
    return Ruling(system="40k", charger=charger, targets=targets, eligible=True, needed=Needed(distance=None, roll=total),
                  roll=Roll(dice=dice or [], modifier=0, total=total), success=True, procedure="normal", moves=moves,
                  engaged=engaged, details=details or {"edition": 11}, after=data)


# --------------------------------------------------------------------------- the scenario


def test_wtc_default_comes_from_the_editions_table() -> None:
    assert Rules40k(edition=11).use_wtc is False
    assert Rules40k(edition=10).use_wtc is True
    assert Rules40k(edition=9).use_wtc is False
    assert Rules40k(edition=11, wtc=True).use_wtc is True
    with pytest.raises(ValueError):
        Rules40k(edition=12)  # type: ignore[arg-type]


def test_ruling_schema_has_choices() -> None:
    props = ruling_schema()["properties"]
    assert "choices" in props
    choice = ruling_schema()["$defs"]["Choice"]["properties"]
    assert {"targets", "needed", "allowed"} <= set(choice)


# --------------------------------------------------------------------------- choices after the roll


def test_choices_after_the_roll_list_every_pickable_set_and_move_nothing() -> None:
    s = scen("choices.yaml")
    r = charge(s, (), dice=(2, 3))
    assert r.eligible and not r.success and r.procedure == "choices"
    assert r.moves == [] and r.targets == [] and r.after is None
    got = {tuple(c.targets): c for c in r.choices or []}
    # D is 12.5" away: never a choice; B + C cannot both be engaged by one model
    assert set(got) == {("B",), ("C",)}
    b, c = got[("B",)], got[("C",)]
    assert b.needed.roll == 5 and b.needed.distance == pytest.approx(3.0, abs=1e-6)  # 5" gap less 2" ER
    assert b.gaps["B"] == pytest.approx(5.0, abs=1e-9)
    assert b.allowed is True
    assert c.needed.roll == 9 and c.allowed is False  # 8.001" is beyond a roll of 8
    assert c.probability_fraction == "5/18"  # 2D6 >= 9
    assert [ch.targets for ch in r.choices or []] == [["B"], ["C"]]  # least roll first
    assert validate(s, r) == []
    data = r.to_json_data()
    assert data["choices"][0]["needed"]["roll"] == 5 and "after" not in data


def test_a_roll_of_9_allows_both_choices() -> None:
    r = charge(scen("choices.yaml"), (), roll=9)
    assert all(c.allowed for c in r.choices or [])


@pytest.mark.parametrize(("target", "roll", "ok"), [("B", 5, True), ("B", 4, False), ("C", 9, True), ("C", 8, False)])
def test_a_target_is_picked_only_within_the_roll(target: str, roll: int, ok: bool) -> None:
    # B's gap is exactly 5.000" (picked by a 5), C's 8.001" (not by an 8)
    s = scen("choices.yaml")
    r = charge(s, (target,), roll=roll)
    assert r.eligible and r.success is ok
    if not ok:
        assert [x.code for x in r.reasons] == ["target_beyond_roll"]
        assert r.moves == []
    else:
        assert r.engaged == [target]
    assert validate(s, r) == []


def test_a_pick_beyond_the_roll_is_refused_by_the_validator() -> None:
    s = scen("choices.yaml")
    # B1 stands 5.000" from A1: a hand-made "success" with a roll of 4 (3" move) is illegal
    bad = manual(s, "A", ["B"], {"A1": (33.0, 22.0)}, 4, ["B"])
    codes = {v.code for v in validate(s, bad)}
    assert "target_beyond_roll" in codes
    good = manual(s, "A", ["B"], {"A1": (35.0, 22.0)}, 5, ["B"])
    assert validate(s, good) == []


def test_needed_for_named_targets_is_the_pick_roll_in_11_and_the_move_in_10() -> None:
    s = scen("choices.yaml")
    sysm = find_system("40k")
    n11 = sysm.needed(s, ChargeRequest(charger="A", targets=("B",)))
    n10 = sysm.needed(with_edition(s, 10), ChargeRequest(charger="A", targets=("B",)))
    assert (n11.roll, n11.distance) == (5, pytest.approx(3.0, abs=1e-6))
    assert (n10.roll, n10.distance) == (4, pytest.approx(4.0, abs=1e-6))


def test_overwatch_casualties_are_refused_in_edition_11() -> None:
    with pytest.raises(ChargerefError) as e:
        charge(scen("choices.yaml"), ("B",), dice=(3, 3), casualties=("A1",))
    assert e.value.problems[0].field == "casualties"


def test_an_advanced_unit_or_aircraft_is_ineligible() -> None:
    s = scen("choices.yaml")
    data = scenario_to_data(s)
    data["units"][0]["flags"] = ["advanced"]
    r = charge(scenario_from_data(data), (), dice=(6, 6))  # type: ignore[arg-type]
    assert not r.eligible and [x.code for x in r.reasons] == ["advanced"]
    data["units"][0]["flags"] = []
    data["units"][0]["keywords"] = ["VEHICLE", "AIRCRAFT"]
    r = charge(scenario_from_data(data), ("B",), dice=(6, 6))  # type: ignore[arg-type]
    assert not r.eligible and "aircraft" in [x.code for x in r.reasons]


# --------------------------------------------------------------------------- engagement range 2"


def test_two_inch_engagement_range_keeps_the_charger_away_from_a_non_target() -> None:
    s = scen("er_two_inch.yaml")
    r = charge(s, ("B",), dice=(2, 3))
    assert r.success and r.engaged == ["B"]
    assert r.needed is not None and r.needed.distance == pytest.approx(3.0, abs=1e-6)
    end = tuple(r.moves[0].to[:2])
    a = model_fp(s, "A1", end)  # type: ignore[arg-type]
    assert signed_distance(a, model_fp(s, "N1")) > 2.0  # out of N's 2" range
    assert signed_distance(a, model_fp(s, "B1")) <= 1.0 + 1e-6  # within 1" of B (duty)
    assert validate(s, r) == []


def test_base_contact_in_front_of_b_is_within_2_inches_of_n() -> None:
    s = scen("er_two_inch.yaml")
    b1 = next(m for u in s.units for m in u.models if m.id == "B1").xy
    contact = (b1[0] - 2 * R32, b1[1])  # touching B1, 1.76" from N1
    bad = manual(s, "A", ["B"], {"A1": contact}, 5, ["B", "N"])
    assert [v.code for v in validate(s, bad)] == ["non_target_engaged"]
    # the same end is legal in edition 10 (1" engagement range)
    s10 = with_edition(s, 10)
    ok10 = manual(s10, "A", ["B"], {"A1": contact}, 5, ["B"], details={"edition": 10})
    assert "non_target_engaged" not in {v.code for v in validate(s10, ok10)}


@pytest.mark.parametrize(("gap", "engaged"), [(2.0, True), (2.001, False)])
def test_engagement_range_edge(gap: float, engaged: bool) -> None:
    s = scen("choices.yaml")
    b1 = next(m for u in s.units for m in u.models if m.id == "B1").xy
    end = (b1[0] - 2 * R32 - gap, b1[1])
    r = manual(s, "A", ["B"], {"A1": end}, 5, ["B"] if engaged else [])
    codes = {v.code for v in validate(s, r)}
    assert ("target_not_engaged" in codes) is not engaged


def test_within_one_inch_duty() -> None:
    s = scen("choices.yaml")
    b1 = next(m for u in s.units for m in u.models if m.id == "B1").xy
    # engaged at 2" although a roll of 5 reaches 1" (and base contact): a missed duty
    at2 = manual(s, "A", ["B"], {"A1": (b1[0] - 2 * R32 - 2.0, b1[1])}, 5, ["B"])
    assert [v.code for v in validate(s, at2)] == ["missed_within_one"]
    at1 = manual(s, "A", ["B"], {"A1": (b1[0] - 2 * R32 - 1.0, b1[1])}, 5, ["B"])
    assert validate(s, at1) == []  # within 1" is enough: no base-contact duty in 11


# --------------------------------------------------------------------------- crossing engagement range


def test_engagement_range_of_other_units_may_be_crossed_mid_move() -> None:
    s = scen("nontarget_path.yaml")
    r = charge(s, ("B",), dice=(4, 4))
    assert r.success and r.engaged == ["B"]
    assert r.needed is not None and r.needed.roll == 8
    # the path runs within 1" of N1 and N2 (only the end counts in 11)
    path = np.asarray(r.moves[0].path)
    n1 = np.asarray(next(m for u in s.units for m in u.models if m.id == "N1").xy)
    ys = np.linspace(path[0, 1], path[-1, 1], 400)
    closest = min(float(np.linalg.norm(np.array([path[0, 0], y]) - n1)) for y in ys) - 2 * R32
    assert closest < 1.0
    end = model_fp(s, "A1", tuple(r.moves[0].to[:2]))  # type: ignore[arg-type]
    assert min(signed_distance(end, model_fp(s, n)) for n in ("N1", "N2")) > 2.0
    assert validate(s, r) == []


# --------------------------------------------------------------------------- coherency


def test_coherency_spread_at_9_000_and_9_001() -> None:
    s = scen("coherency_spread.yaml")
    assert v11.unit_coherency(s, "A") == []
    data = scenario_to_data(s)
    a5 = data["units"][0]["models"][4]
    a5["at"] = [a5["at"][0] + 0.001, a5["at"][1]]
    far = scenario_from_data(data)
    probs = v11.unit_coherency(far, "A")  # type: ignore[arg-type]
    assert [p.code for p in probs] == ["not_coherent"] and set(probs[0].models) == {"A1", "A5"}
    assert probs[0].witness["gap"] == pytest.approx(9.001, abs=1e-6)
    # edition 10 has no spread rule: the same line is coherent there
    assert v10.unit_coherency(with_edition(far, 10), "A") == []  # type: ignore[arg-type]


def test_one_neighbour_is_enough_in_11_whatever_the_size() -> None:
    # seven models in a line: the ends have one neighbour (edition 10 wants two at 7+)
    s = scen("coherency_spread.yaml")
    data = scenario_to_data(s)
    models = data["units"][0]["models"]
    step = 1.7  # neighbours 0.44" apart, next-but-one 2.14", the ends 8.94"
    data["units"][0]["models"] = [dict(models[0], id=f"A{i + 1}", at=[20 + i * step, 15.0]) for i in range(7)]
    line = scenario_from_data(data)
    assert v11.unit_coherency(line, "A") == []  # type: ignore[arg-type]
    assert v10.unit_coherency(with_edition(line, 10), "A") != []  # type: ignore[arg-type]


def test_a_charge_keeps_the_unit_coherent_in_11() -> None:
    s = scen("coherency_spread.yaml")
    r = charge(s, ("B",), dice=(3, 4))
    assert r.success and r.engaged == ["B"]
    assert validate(s, r) == []


# --------------------------------------------------------------------------- FLY


def test_fly_takes_to_the_skies_over_the_screen_with_two_inches_less() -> None:
    s = scen("fly_skies.yaml")
    # a roll of 9 lets A1 fly 7.000" over S: it ends 1.000" from B1 and 2.240" from S
    assert validate(s, manual(s, "A", ["B"], {"A1": (30.0, 17.0)}, 9, ["B"])) == []
    codes = [v.code for v in validate(s, manual(s, "A", ["B"], {"A1": (30.0, 17.001)}, 9, ["B"]))]
    assert codes == ["over_budget"]  # 7.001" is more than 9 - 2
    contact = {"A1": (30.0, 18.0)}  # 8.000" into base contact with B1
    assert validate(s, manual(s, "A", ["B"], contact, 10, ["B"])) == []
    assert [v.code for v in validate(s, manual(s, "A", ["B"], contact, 9, ["B"]))] == ["over_budget"]
    # a roll of 8 flies 6.000": A1 would end 1.240" from S (within its 2")
    found = validate(s, manual(s, "A", ["B"], {"A1": (30.0, 16.0)}, 8, ["B", "S"]))
    assert {v.code for v in found} == {"non_target_engaged"}
    assert sorted(v.models[1] for v in found) == ["S10", "S8", "S9"]
    # without FLY the screen blocks the same move
    data = scenario_to_data(s)
    data["units"][0]["keywords"] = ["INFANTRY"]
    walk = scenario_from_data(data)
    codes = {v.code for v in validate(walk, manual(walk, "A", ["B"], contact, 12, ["B"]))}  # type: ignore[arg-type]
    assert "path_blocked" in codes


# --------------------------------------------------------------------------- heroic intervention


def test_leap_to_defend_only_answers_units_that_charged() -> None:
    s = scen("heroic.yaml")
    r = charge(s, (), charger="H", dice=(5, 4), extra={"stratagem": "leap_to_defend"})
    assert [c.targets for c in r.choices or []] == [["E"]]
    assert r.details["command_points"] == 1
    r = charge(s, ("G",), charger="H", dice=(5, 4), extra={"stratagem": "leap_to_defend"})
    assert not r.eligible and [x.code for x in r.reasons] == ["target_did_not_charge"]
    r = charge(s, ("E",), charger="H", dice=(2, 3), extra={"stratagem": "leap_to_defend"})
    assert r.success and r.procedure == "heroic_intervention" and r.engaged == ["E"]
    assert "heroic_intervened" in next(u for u in r.after["units"] if u["id"] == "H")["flags"]  # type: ignore[index]
    assert validate(s, r) == []


def test_into_the_fray_reaches_6_000_not_6_001_and_caps_the_roll() -> None:
    s = scen("heroic.yaml")
    r = charge(s, (), charger="H", dice=(6, 6), extra={"stratagem": "into_the_fray"})
    assert r.roll is not None and r.roll.total == 6 and r.roll.dice == [6, 6]
    assert r.details["command_points"] == 2
    got = {tuple(c.targets): c for c in r.choices or []}
    assert set(got) == {("E",), ("F",)}  # G is 6.001" away
    assert got[("F",)].needed.roll == 6 and got[("F",)].allowed
    r = charge(s, ("F",), charger="H", dice=(6, 6), extra={"stratagem": "into_the_fray"})
    assert r.success and r.roll is not None and r.roll.total == 6
    assert validate(s, r) == []
    r = charge(s, ("F",), charger="H", dice=(1, 4), extra={"stratagem": "into_the_fray"})
    assert not r.success and [x.code for x in r.reasons] == ["target_beyond_roll"]
    r = charge(s, ("G",), charger="H", dice=(6, 6), extra={"stratagem": "into_the_fray"})
    assert not r.eligible and [x.code for x in r.reasons] == ["target_out_of_range"]


def test_an_uncapped_into_the_fray_total_is_refused_by_the_validator() -> None:
    s = scen("heroic.yaml")
    e1 = next(m for u in s.units for m in u.models if m.id == "E1").xy
    bad = manual(s, "H", ["E"], {"H1": (e1[0] - 2 * R32, e1[1])}, 9, ["E"],
                 details={"edition": 11, "stratagem": "into_the_fray"}, dice=[5, 4])
    assert "roll_inconsistent" in {v.code for v in validate(s, bad)}


def test_unknown_stratagem_is_refused() -> None:
    with pytest.raises(ChargerefError) as e:
        charge(scen("heroic.yaml"), ("E",), charger="H", dice=(3, 3), extra={"stratagem": "counter_offensive"})
    assert e.value.problems[0].field == "stratagem"


# --------------------------------------------------------------------------- fight phase


def test_fight_moves_accept_edition_11() -> None:
    from chargeref.systems.w40k.fight import consolidate, engaged_units, pile_in

    s = scen("er_two_inch.yaml")
    r = charge(s, ("B",), dice=(2, 3))
    after = scenario_from_data(r.after)  # type: ignore[arg-type]
    assert engaged_units(after, "A") == ["B"]
    p = pile_in(after, "A", set())
    assert p.success and validate(after, p) == []  # type: ignore[arg-type]
    # piled into base contact with B1, A1 is 1.76" from N1: engaged with N at 2" (not at 1")
    assert p.engaged == ["B", "N"]
    piled = scenario_from_data(p.after)  # type: ignore[arg-type]
    assert engaged_units(with_edition(piled, 10), "A") == ["B"]  # type: ignore[arg-type]
    c = consolidate(piled, "A", set())
    assert validate(piled, c) == []  # type: ignore[arg-type]


# --------------------------------------------------------------------------- odds and phase


def test_odds_per_target_set() -> None:
    from chargeref.systems.w40k import ed11

    sysm = find_system("40k")
    s = scen("choices.yaml")
    data = ed11.odds(sysm, s, ChargeRequest(charger="A", targets=()))
    rows = {tuple(c["targets"]): c for c in data["choices"]}
    assert set(rows) == {("B",), ("C",)}
    assert rows[("B",)]["probability_fraction"] == "5/6"  # 2D6 >= 5
    assert rows[("C",)]["probability_fraction"] == "5/18"  # 2D6 >= 9
    one = ed11.odds(sysm, s, ChargeRequest(charger="A", targets=("C",), reroll="failed"))
    # a re-roll of a failed 2D6 against 9: 5/18 + 13/18 * 5/18
    assert one["choices"][0]["probability_fraction"] == "155/324"
    fray = ed11.odds(sysm, scen("heroic.yaml"), ChargeRequest(charger="H", targets=("F",), extra={"stratagem": "into_the_fray"}))
    assert fray["choices"][0]["needed"]["roll"] == 6 and fray["choices"][0]["probability_fraction"] == "13/18"
    far = ed11.odds(sysm, scen("heroic.yaml"), ChargeRequest(charger="H", targets=("G",), extra={"stratagem": "into_the_fray"}))
    assert not far["eligible"] and far["choices"] == []


def test_a_charge_phase_in_edition_11() -> None:
    s = scen("choices.yaml")
    data = scenario_to_data(s)
    data["charges"] = [{"charger": "A", "targets": ["B"], "dice": [2, 3]}]
    res = find_system("40k").phase(scenario_from_data(data), None)  # type: ignore[arg-type]
    assert [r.success for r in res.rulings] == [True]
    assert "charged" in next(u for u in res.after["units"] if u["id"] == "A")["flags"]


# --------------------------------------------------------------------------- command line


def _cli(*args: str) -> Any:
    from click.testing import CliRunner

    from chargeref.cli import main

    return CliRunner().invoke(main, list(args))


def test_cli_charge_without_target_prints_the_choices() -> None:
    f = str(EX / "choices.yaml")
    res = _cli("charge", f, "--charger", "A", "--dice", "2,3")
    assert res.exit_code == 0, res.output
    assert "choices for a roll of 5" in res.output
    lines = [ln.split() for ln in res.output.splitlines() if ln.startswith("  B ") or ln.startswith("  C ")]
    assert [ln[0] for ln in lines] == ["B", "C"] and lines[0][-1] == "ALLOWED" and lines[1][-1] == "-"
    res = _cli("charge", f, "--charger", "A", "--dice", "2,3", "--json")
    data = __import__("json").loads(res.output)
    assert [c["targets"] for c in data["choices"]] == [["B"], ["C"]]
    assert [c["allowed"] for c in data["choices"]] == [True, False]


def test_cli_odds_per_target_and_heroic_stratagem() -> None:
    import json

    f = str(EX / "choices.yaml")
    data = json.loads(_cli("odds", f, "--charger", "A", "--json").output)
    assert {tuple(c["targets"]): c["probability_fraction"] for c in data["choices"]} == {("B",): "5/6", ("C",): "5/18"}
    data = json.loads(_cli("odds", f, "--charger", "A", "--target", "C", "--json").output)
    assert data["needed"]["roll"] == 9 and data["probability_fraction"] == "5/18"
    h = str(EX / "heroic.yaml")
    res = _cli("heroic", h, "--unit", "H", "--against", "F", "--stratagem", "into_the_fray", "--dice", "6,6", "--json")
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    assert r["success"] and r["roll"]["total"] == 6 and r["details"]["stratagem"] == "into_the_fray"
    res = _cli("charge", f, "--charger", "A", "--target", "B", "--dice", "2,3", "--casualty", "A1")
    assert res.exit_code == 2 and "--casualty" in res.output


def test_a_set_of_units_is_a_choice_when_one_alone_cannot_be_charged() -> None:
    s = scen("ringed_pair.yaml")
    r = charge(s, (), dice=(3, 3))
    got = {tuple(sorted(c.targets)): c for c in r.choices or []}
    assert got[("B",)].needed.roll is None and not got[("B",)].allowed
    assert got[("B", "N")].needed.roll == 6 and got[("B", "N")].allowed  # B's gap 5.740" -> 6
    assert got[("N",)].needed.roll == 4
    r = charge(s, ("B", "N"), dice=(3, 3))
    assert r.success and sorted(r.engaged) == ["B", "N"]
    assert validate(s, r) == []
    r = charge(s, ("B", "N"), dice=(3, 2))
    assert not r.success and [x.code for x in r.reasons] == ["target_beyond_roll"]


# --------------------------------------------------------------------------- the search's rules per edition


def test_edition_10_refuses_the_path_through_n() -> None:
    s10 = with_edition(scen("nontarget_path.yaml"), 10)
    r = charge(s10, ("B",), dice=(6, 6))
    assert not r.success


def test_fly_needs_nine_to_cross_the_screen() -> None:
    s = scen("fly_skies.yaml")
    assert find_system("40k").needed(s, ChargeRequest(charger="A", targets=("B",))).roll == 9
    assert not charge(s, ("B",), dice=(4, 4)).success
    r = charge(s, ("B",), dice=(4, 5))
    assert r.success and validate(s, r) == []


def test_a_failure_at_the_least_roll_is_refused_by_the_validator() -> None:
    s = scen("choices.yaml")
    r = charge(s, ("B",), roll=4)
    assert not r.success and validate(s, r) == []
    assert r.roll is not None
    lie = r.model_copy(update={"roll": r.roll.model_copy(update={"total": 5})})
    assert [v.code for v in validate(s, lie)] == ["roll_inconsistent"]


def test_service_takes_edition_11_as_the_cli_does() -> None:
    import json

    from chargeref import service

    doc = service.load_path(EX / "heroic.yaml")
    data = service.heroic(doc, "H", stratagem="into_the_fray", dice="6,6")
    assert data["procedure"] == "choices" and [c["targets"] for c in data["choices"]] == [["E"], ["F"]]
    cli = json.loads(_cli("heroic", str(EX / "heroic.yaml"), "--unit", "H", "--stratagem", "into_the_fray",
                          "--dice", "6,6", "--json").output)
    assert cli == data
    with pytest.raises(ChargerefError) as e:
        service.heroic(service.load_path(Path(__file__).resolve().parents[2] / "examples" / "40k" / "ringed_target.yaml"),
                       "B", against="A", stratagem="into_the_fray", dice="3,3")
    assert e.value.problems[0].field == "stratagem"
    with pytest.raises(ChargerefError) as e:
        service.heroic(doc, "H", stratagem="counter_offensive", dice="3,3")
    assert e.value.problems[0].field == "stratagem"
