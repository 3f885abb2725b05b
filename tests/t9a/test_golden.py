"""Golden tests: the seed figures of The 9th Age (seeds 001 and 003), each rebuilt as a
scenario under examples/t9a/ and resolved as a charge phase, with the seed's verdict
asserted (legal or not, which unit moves, how many models are in contact)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from build import SYSTEM

from chargeref.scenario import load_scenario, scenario_from_data
from chargeref.systems import ChargeRequest
from chargeref.systems.t9a.scoring import priorities
from chargeref.testing import assert_legal_charge

EX = Path(__file__).resolve().parents[2] / "examples" / "t9a"


def phase(name: str, seed: int = 1):
    s = load_scenario(EX / f"{name}.yaml")
    assert SYSTEM.problems(s) == []
    res = SYSTEM.phase(s, seed)
    for r in res.rulings:
        assert_legal_charge(s, r)
    return s, res


def by_charger(res, cid):
    return next(r for r in res.rulings if r.charger == cid)


def unit_after(after, uid):
    return next((u for u in after["units"] if u["id"] == uid), None)


# ----------------------------------------------------------------------------- align


@pytest.mark.parametrize("name, contact", [("align_a", "charger corner"), ("align_b", "charger corner"),
                                           ("align_c", "target corner")])
def test_align_abc_charger_turns_toward_alignment(name, contact):
    s, res = phase(name)
    r = res.rulings[0]
    assert r.eligible and r.success and r.procedure == "normal"
    pl = r.details["placement"]
    assert pl["align_by"] == "charger" and abs(pl["align"]) > 0
    assert pl["target_rotation"] == 0
    assert abs(pl["wheel"]) <= 90
    # the charger turned about a point on the charged facing (y = 20)
    px, py = pl["contact_point"]
    assert py == pytest.approx(20)
    ends = (24 - 1.5 * 20 / 25.4, 24 + 1.5 * 20 / 25.4)  # align_c: B is 3 wide
    if contact == "target corner":
        assert min(abs(px - e) for e in ends) < 1e-6
    assert unit_after(r.after, "A")["formation"]["facing"] == pytest.approx(270)


def test_align_b_mirrors_a():
    _, ra = phase("align_a")
    _, rb = phase("align_b")
    pa, pb = ra.rulings[0].details["placement"], rb.rulings[0].details["placement"]
    assert pa["align"] == pytest.approx(-pb["align"])
    assert pa["wheel"] == pytest.approx(-pb["wheel"])
    assert pa["offset"] == pytest.approx(-pb["offset"])


def test_align_d_charged_unit_turns():
    s, res = phase("align_d")
    r = res.rulings[0]
    assert r.success and r.procedure == "normal"
    pl = r.details["placement"]
    assert pl["align_by"] == "target"  # A cannot turn at all
    assert pl["align"] == 0
    assert abs(pl["target_rotation"]) == pytest.approx(20)
    assert unit_after(r.after, "B")["formation"]["facing"] == pytest.approx(110)
    assert "engaged" in unit_after(r.after, "B")["flags"]


def test_align_e_flying_charger_cannot_align_out_of_the_rock():
    s, res = phase("align_e")
    r = res.rulings[0]
    assert not r.eligible and r.procedure == "none"
    assert r.reasons[0].code == "no_room"
    # without the rock the same charge is fine
    data = copy.deepcopy(s.model_dump(mode="json", exclude_none=True))
    data["terrain"] = []
    r2 = SYSTEM.phase(scenario_from_data(data), 1).rulings[0]
    assert r2.success


# ----------------------------------------------------------------------------- maximising contact


def test_maximising_contact_b1_and_b2():
    s1, res1 = phase("max_contact_b1")
    r1 = res1.rulings[0]
    p1 = r1.details["priorities"]
    assert r1.success and p1["target_rotation"] == 0
    assert (p1["models_in_contact_chargers"], p1["models_in_contact_enemies"]) == (5, 6)
    s2, res2 = phase("max_contact_b2")
    r2 = res2.rulings[0]
    p2 = r2.details["priorities"]
    assert r2.success and p2["target_rotation"] == pytest.approx(20)
    assert (p2["models_in_contact_chargers"], p2["models_in_contact_enemies"]) == (5, 7)
    k1 = priorities(s1, r1.after, ["B"], "T")["key"]
    k2 = priorities(s2, r2.after, ["B"], "T")["key"]
    assert k1[3] > k2[3]  # b2 has more models in contact...
    assert k1 < k2  # ...but turning the charged unit breaks priority 3 first


# ----------------------------------------------------------------------------- multiple charges


def test_multiple_charges_a():
    s, res = phase("multiple_a")
    r = res.rulings[0]
    assert r.success and r.targets == ["D", "C"]
    ev = r.details["events"]
    assert ev[0] == {"event": "multiple_charge", "unavoidable": ["C"], "secondaries": ["C"]}
    reactions = {e["unit"]: e["result"] for e in ev if e["event"] == "reaction"}
    assert reactions == {"D": "hold", "C": "hold"}  # both engaged: they must hold
    assert any(x.code == "must_hold" for x in r.reasons)
    assert r.engaged == ["C", "D"]
    assert r.details["priorities"]["enemy_units_contacted"] == 2


@pytest.mark.parametrize("secondary, side", [("B", -1), ("D", 1)])
def test_multiple_charges_b_positions(secondary, side):
    s = load_scenario(EX / "multiple_b.yaml")
    r = SYSTEM.charge(s, ChargeRequest("A", ("C", secondary), dice=(4, 4)))
    assert_legal_charge(s, r)
    assert r.success and r.engaged == sorted(["C", secondary])
    # position 1 (with B) lies to the left, position 2 (with D) to the right
    assert r.details["placement"]["offset"] * side > 0
    pr = r.details["priorities"]
    assert pr["enemy_units_contacted"] == 2
    assert pr["models_in_contact"] == 13  # A's 6 against C's 3 and 4 of the other unit


def test_multiple_charges_b_default_secondary():
    s, res = phase("multiple_b")
    r = res.rulings[0]
    assert r.details["events"][0]["event"] == "multiple_charge"
    assert len(r.engaged) == 2


# ----------------------------------------------------------------------------- combined charges


def test_combined_charge_b1():
    s, res = phase("combined_b")
    assert all(r.success for r in res.rulings)
    pr = priorities(s, res.after, list("WXYZ"), "A")
    assert pr["charging_units_engaged"] == 4
    assert (pr["models_in_contact_chargers"], pr["models_in_contact_enemies"]) == (4, 8)
    # the unit at the corner touches a single enemy model, one that another charger
    # already touches
    rz = by_charger(res, "Z") if by_charger(res, "Z").details["placement"]["offset"] > 3 else None
    flank = rz or next(r for r in res.rulings if abs(r.details["placement"]["offset"]) > 3)
    c = next(m for m in flank.moves if m.id.endswith(".0")).contacts
    assert len(c) == 1
    others = [m for r in res.rulings if r is not flank for m in r.moves]
    assert any(c[0] in m.contacts for m in others)


def _moved(after, places):
    data = copy.deepcopy(after)
    for u in data["units"]:
        if u["id"] in places:
            u["formation"]["front"] = list(places[u["id"]])
    return scenario_from_data(data)


def test_combined_charge_b2_b3_b4_are_worse():
    s, res = phase("combined_b")
    best = priorities(s, res.after, list("WXYZ"), "A")
    # b2 / b4: all four engaged but spread out, leaving enemy models untouched
    w, left = 50 / 25.4, 24 - 4 * 20 / 25.4
    b2 = _moved(res.after, {"W": (18.9 + w / 2, 20), "X": (22.5 + w / 2, 20), "Y": (24.9 + w / 2, 20),
                            "Z": (26.9 + w / 2, 20)})
    b4 = _moved(res.after, {"W": (left - w / 2, 20), "X": (20.9 + w / 2, 20), "Y": (24.85 + w / 2, 20),
                            "Z": (26.83 + w / 2, 20)})
    # b3: only three engaged (Z left out), the rest pressed together
    b3 = _moved(res.after, {"W": (left + w / 2, 20), "X": (left + 1.5 * w, 20), "Y": (left + 2.5 * w, 20),
                            "Z": (28.0, 24)})
    for alt, decided_by in ((b2, 3), (b3, 1), (b4, 3)):
        assert SYSTEM.problems(alt) == []
        p = priorities(s, alt, list("WXYZ"), "A")
        assert best["key"] < p["key"]
        # the first priority where they differ is the one the seed names
        first = next(i for i in range(4) if best["key"][i] != p["key"][i])
        assert first == decided_by
    p2, p3, p4 = (priorities(s, b, list("WXYZ"), "A") for b in (b2, b3, b4))
    assert (p2["charging_units_engaged"], p2["models_in_contact_enemies"]) == (4, 7)
    assert p3["charging_units_engaged"] == 3
    assert (p4["charging_units_engaged"], p4["models_in_contact_chargers"], p4["models_in_contact_enemies"]) == (4, 4, 6)


# ----------------------------------------------------------------------------- blocked path


@pytest.mark.parametrize("name, ch, tg", [("blocked_path_a", "B", "A"), ("blocked_path_b", "F", "E")])
def test_blocked_path(name, ch, tg):
    s, res = phase(name)
    r = res.rulings[0]
    assert r.success and r.procedure == "blocked_path"
    assert r.reasons[0].code == "blocked_path"
    # the charger only moved straight forward
    steps = r.details["paths"][0]["steps"]
    assert [st["kind"] for st in steps] == ["forward"]
    bp = r.details["blocked_path"]
    assert bp["reform"]["kept_formation"] and bp["reform"]["files"] == 4 and bp["reform"]["models"] == 8
    # the charged unit now faces the charger: its front is flush with the charger's
    cf = unit_after(r.after, ch)["formation"]["facing"]
    tf = unit_after(r.after, tg)["formation"]["facing"]
    assert (cf - tf) % 360 == pytest.approx(180)
    assert sorted(r.engaged) == [tg]


def test_blocked_path_b_needs_both_unit_and_terrain():
    s = load_scenario(EX / "blocked_path_b.yaml")
    data = s.model_dump(mode="json", exclude_none=True)
    no_rock = copy.deepcopy(data)
    no_rock["terrain"] = []
    no_d = copy.deepcopy(data)
    no_d["units"] = [u for u in no_d["units"] if u["id"] != "D"]
    for d in (no_rock, no_d):
        r = SYSTEM.phase(scenario_from_data(d), 1).rulings[0]
        assert r.procedure == "normal" and r.success


# ----------------------------------------------------------------------------- the example phase


def test_example_charge_phase():
    s, res = phase("example_charge_phase")
    A, B, C, D = (by_charger(res, x) for x in "ABCD")
    # a) A -> E, E holds; C -> G, G stands and shoots (1 casualty)
    assert A.details["events"][0]["result"] == "hold"
    assert [e for e in C.details["events"] if e["event"] == "reaction"][0]["result"] == "stand_and_shoot"
    assert {"event": "casualties", "unit": "C", "lost": 1, "left": 9} in C.details["events"]
    # b) B -> E, E flees 5", extended past F; F passes its Panic Test
    flee1 = next(e for e in B.details["events"] if e["event"] == "flee")
    assert flee1["rolled"] == 5 and flee1["distance"] > 5 and flee1["extended_past"] == ["F"]
    assert "F" in flee1["through_friends"]
    panic = next(e for e in B.details["events"] if e["event"] == "panic_test")
    assert panic["unit"] == "F" and panic["passed"]
    # c) A fails to redirect; B redirects to F, which holds
    red_a = next(e for e in A.details["events"] if e["event"] == "redirect_test")
    assert not red_a["passed"] and A.targets == ["E"]
    assert any(x.code == "redirect_failed" for x in A.reasons)
    assert B.details["redirected_from"] == "E" and B.targets == ["F"]
    # d) D charges the fleeing E: E flees again 3", extended past F; F does not test
    flee2 = next(e for e in D.details["events"] if e["event"] == "flee")
    assert flee2["rolled"] == 3 and flee2["extended_past"] == ["F"]
    skipped = next(e for e in D.details["events"] if e["event"] == "panic_test" and e["unit"] == "F")
    assert skipped["skipped"]
    # e) D redirects to F; F stands and shoots (2 casualties); D passes its Panic Test
    assert D.details["redirected_from"] == "E" and D.targets == ["F"]
    assert {"event": "casualties", "unit": "D", "lost": 2, "left": 6} in D.details["events"]
    dp = next(e for e in D.details["events"] if e["event"] == "panic_test" and e["unit"] == "D")
    assert dp["passed"]
    # movement: C reaches G
    assert C.success and C.procedure == "normal" and C.engaged == ["G"]
    # A catches the fleeing E, which is removed; A passes its post-combat pivot test
    assert A.success and A.procedure == "fleeing_target"
    assert unit_after(res.after, "E") is None
    assert A.details["post_combat_pivot"]["passed"]
    assert unit_after(res.after, "A")["formation"]["facing"] == pytest.approx(45)
    assert "shaken" in unit_after(res.after, "A")["flags"]
    # B and D charge F together: B succeeds, D fails and moves toward F
    assert B.success and B.procedure == "normal" and B.engaged == ["F"]
    assert not D.success and D.procedure == "failed"
    assert D.details["failed_move"]["distance"] == 1


def test_example_phase_d_declaration_counts_declared_charges_as_made():
    """D's charge at the fleeing E is legal although C stands in the way, because C has
    declared a charge of its own (seed 001, example d1)."""
    from chargeref.systems.t9a.moves import reach_fleeing
    from chargeref.systems.t9a.resolve import Phase, Spec

    s = load_scenario(EX / "example_charge_phase.yaml")
    ph = Phase(s, 1)
    for e in s.charges[:3]:
        ph.declare(Spec.from_entry(e))
    w = ph.world
    D, E = w.blocks["D"], w.blocks["E"]
    assert reach_fleeing(w, D, E, 30) is None  # C blocks D's path now
    w2 = w.copy()
    w2.remove("C")
    assert reach_fleeing(w2, D, E, 30) is not None  # once C has moved it is clear
