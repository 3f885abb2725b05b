"""One placement engine for every 40k move (issue 9, item 1): the move's rules as
constraints (moves.py), pile-in / consolidation / edition 9's heroic intervention placed
on the charge's engine (settle.py), exact paths recorded, and every rule at its edge.

Closed forms: a base that must walk round another round base of the same size covers a
tangent, an arc of the obstacle's C-space circle (radius 2r) and a tangent, stopping in
base contact with its enemy (2r from its centre). With the mover, the obstacle F1 and the
enemy B1 on one line, at centre distances dA (A1-F1) and dB (F1-B1):

    L = sqrt(dA^2 - rho^2) + rho * (pi - acos(rho/dA) - acos(rho/dB)) + sqrt(dB^2 - rho^2) - 2r

(rho = 2r; the last tangent is longer than 2r, so the contact point lies on it).
"""

from __future__ import annotations

import ast
import copy
import math
import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from h40k import MM, r32, scen40k, unit40k
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from chargeref import scenario_from_data
from chargeref.ruling import Ruling
from chargeref.systems import find_system
from chargeref.systems.w40k.fight import consolidate, pile_in
from chargeref.systems.w40k.moves import (
    MoveRules,
    charge_rules,
    closest_enemy_models,
    fight_rules,
    heroic_rules,
)
from chargeref.systems.w40k.settle import CLOSER_MARGIN, Settle
from chargeref.systems.w40k.solver import ChargeProblem
from chargeref.systems.w40k.world import build_world
from chargeref.testing import assert_legal_charge
from chargeref.validate import validate_ruling

BASE = 25  # mm: round bases small enough for wraps well under 3"
R = BASE / 2 / MM
RHO = 2 * R
S = find_system("40k")
FAST = settings(max_examples=8, deadline=None, derandomize=True)
DA = RHO + 0.04  # A1's centre to F1's centre: the mover starts 0.04" from the friend's base


def wrap(dA: float, dB: float) -> float:
    """The closed form above: A1 round F1 into base contact with B1."""
    tA = math.sqrt(dA**2 - RHO**2)
    tB = math.sqrt(dB**2 - RHO**2)
    phi = math.pi - math.acos(RHO / dA) - math.acos(RHO / dB)
    return tA + RHO * phi + tB - 2 * R


def dB_for(length: float, dA: float = DA) -> float:
    """F1-B1 centre distance at which the wrap is exactly ``length`` (root to 1e-14)."""
    return brentq(lambda d: wrap(dA, d) - length, RHO * math.sqrt(2), 6.0, xtol=1e-14)


def line_of_three(dB: float, edition: int, kw: tuple[str, ...] = ("INFANTRY",), hero: bool = False,
                  dA: float = DA) -> dict[str, Any]:
    """A1 at (20, 22), a friendly model F1 (another unit of A's player) dA further on,
    the enemy B1 dB beyond it. ``hero``: A is a CHARACTER of player 2 facing B of
    player 1 (a heroic intervention); otherwise A charged this turn (a pile-in)."""
    pa, pb = (2, 1) if hero else (1, 2)
    a = unit40k("A", pa, [(20.0, 22.0)], base=BASE, kw=kw + (("CHARACTER",) if hero else ()), flags=[] if hero else ["charged"])
    f = unit40k("F", pa, [(20.0 + dA, 22.0)], base=BASE, kw=kw)
    b = unit40k("B", pb, [(20.0 + dA + dB, 22.0)], base=BASE)
    return scen40k([a, f, b], rules={"edition": edition})


def turned(data: dict[str, Any], theta: float, mirror: bool, centre: tuple[float, float] = (22.0, 15.0)) -> dict[str, Any]:
    out = copy.deepcopy(data)
    c, s = math.cos(theta), math.sin(theta)
    for u in out["units"]:
        for m in u["models"]:
            x, y = m["at"][0] - 20.0, m["at"][1] - 22.0
            if mirror:
                y = -y
            m["at"] = [centre[0] + c * x - s * y, centre[1] + s * x + c * y]
    return out


def move_of(r: Ruling, mid: str) -> Any:
    return next((m for m in r.moves if m.id == mid), None)


def legal(before: Any, r: Ruling) -> Ruling:
    assert_legal_charge(before, r)
    return r


# --------------------------------------------------------------------------- constraints


def test_each_move_builds_its_constraints() -> None:
    data = line_of_three(2.5, 10)
    data["units"].append(unit40k("C", 2, [(30.0, 10.0)]))
    w = build_world(scenario_from_data(data))
    ch = charge_rules(w, "A", ["B"], 7.0)
    assert (ch.kind, ch.engage, ch.forbid, ch.engage_all, ch.closer) == ("charge", ("B",), ("C",), True, "target_unit")
    assert ch.forbid_on_path and ch.budget == 7.0 and not ch.may_stay
    pi = fight_rules(w, "A", "pile_in", {"A1"})
    assert pi.budget == pytest.approx(3.0) and pi.closer == "closest_model" and pi.closer_to == {"A1": ("B1",)}
    assert pi.forbid == () and pi.end_engaged and pi.keep == frozenset({"A1"}) and pi.may_stay
    assert pi.engage == ("B",)  # C is out of reach: 3" plus the engagement range
    nine = build_world(scenario_from_data(line_of_three(2.5, 9)))
    assert not fight_rules(nine, "A", "consolidate").end_engaged  # edition 9: no such rule
    assert not charge_rules(nine, "A", ["B"], 7.0).closer == "target_unit"  # 9 without the WTC procedure
    # the charge's engine reads them: its non-targets are the rules' forbidden units
    prob = ChargeProblem(w, "A", ["B"], 7.0)
    assert prob.rules == ch and [m.id for m in prob.nontarget_models] == ["C1"]
    with pytest.raises(ValueError):
        MoveRules(kind="run", budget=1.0, engage=(), engage_all=False)


def test_heroic_rules_measure_closer_horizontally() -> None:
    w = build_world(scenario_from_data(line_of_three(2.5, 9, hero=True)))
    hr = heroic_rules(w, "A")
    assert (hr.kind, hr.budget, hr.closer, hr.closer_vertical, hr.forbid) == ("heroic", pytest.approx(3.0), "closest_model", False, ())


def test_ties_for_the_closest_enemy_model_all_count() -> None:
    a = unit40k("A", 1, [(20.0, 20.0)], base=BASE, flags=["charged"])
    b = unit40k("B", 2, [(20.0, 20.0 + 2 * R + 2.0), (20.0, 20.0 - 2 * R - 2.0), (20.0 + 2 * R + 2.5, 20.0)], base=BASE)
    w = build_world(scenario_from_data(scen40k([a, b])))
    refs, d0 = closest_enemy_models(w, "A")
    assert refs == {"A1": ("B1", "B2")} and d0["A1"] == pytest.approx(2.0, abs=1e-12)


# --------------------------------------------------------------------------- ends closer


@pytest.mark.parametrize("gain,usable", [(0.0, False), (CLOSER_MARGIN / 2, False), (1e-3, True)])
def test_a_spot_that_ends_no_closer_is_refused(gain: float, usable: bool) -> None:
    """A1 starts 2" from B1; spots on the circle at 2" - gain from B1 (away from the
    straight line, so they are real moves): only a real gain is usable."""
    a = unit40k("A", 1, [(20.0, 20.0)], base=BASE, flags=["charged"])
    b = unit40k("B", 2, [(20.0, 20.0 + 2 * R + 2.0)], base=BASE)
    w = build_world(scenario_from_data(scen40k([a, b], rules={"edition": 9})))
    st_ = Settle(w, "A", fight_rules(w, "A", "pile_in"))
    m = w.by_id["A1"]
    c = np.array([20.0, 20.0 + 2 * R + 2.0])
    rad = 2 * R + 2.0 - gain
    th = math.radians(-80.0)
    spot = c + rad * np.array([math.cos(th), math.sin(th)])
    o = st_.evaluate(m, spot[None])
    assert (len(o) == 1) is usable
    if usable:
        assert o.gap[0] == pytest.approx(2.0 - gain, abs=1e-9)


def test_a_model_in_base_contact_cannot_get_closer_and_stays() -> None:
    """A1 touches B1; C1 (another enemy unit) is 1.5" away: moving into contact with C1
    would leave A1 no closer to B1, so A1 does not move."""
    a = unit40k("A", 1, [(20.0, 20.0)], base=BASE, flags=["charged"])
    b = unit40k("B", 2, [(20.0, 20.0 + 2 * R)], base=BASE)
    c = unit40k("C", 2, [(20.0 + 2 * R + 1.5, 20.0)], base=BASE)
    scen = scenario_from_data(scen40k([a, b, c], rules={"edition": 9}))
    r = legal(scen, pile_in(scen, "A"))
    assert r.moves == []


def test_models_the_rules_keep_stay_unless_they_must_move() -> None:
    a = unit40k("A", 1, [(20.0, 20.0)], base=BASE, flags=["charged"])
    b = unit40k("B", 2, [(20.0, 20.0 + 2 * R + 2.0)], base=BASE)
    w = build_world(scenario_from_data(scen40k([a, b], rules={"edition": 9})))
    free = Settle(w, "A", fight_rules(w, "A", "pile_in"))
    assert free.place(["A1"], set()).moved == {"A1"}
    held = Settle(w, "A", fight_rules(w, "A", "pile_in", {"A1"}))
    assert held.place(["A1"], set()).moved == set()
    assert held.place(["A1"], {"A1"}).moved == {"A1"}  # the fight phase's override


# --------------------------------------------------------------------------- exact paths


@pytest.mark.parametrize("length,contact", [(3.0, True), (3.001, False)])
def test_pile_in_round_a_friend_is_exact_at_3_inches(length: float, contact: bool) -> None:
    """Edition 9: no base crosses another; the wrap round F1 of exactly 3.000" ends in
    base contact with B1, one of 3.001" does not."""
    scen = scenario_from_data(line_of_three(dB_for(length), 9))
    r = legal(scen, pile_in(scen, "A"))
    m = move_of(r, "A1")
    assert m is not None and m.segments and any(s["kind"] == "arc" for s in m.segments)
    assert (m.contacts == ["B1"]) is contact
    # either way the move uses the whole 3" along the exact path: at 3.001" it stops
    # where the budget runs out, on the last tangent, 0.001" short of base contact
    assert m.distance == pytest.approx(3.0, abs=1e-6)
    b1 = (20.0 + DA + dB_for(length), 22.0)
    gap = math.hypot(m.to[0] - b1[0], m.to[1] - b1[1]) - 2 * R
    assert gap == pytest.approx(0.0 if contact else 0.001, abs=2e-6)


@FAST
@given(st.floats(2.4, 2.95), st.floats(0.0, 2 * math.pi), st.booleans())
@example(2.5, 0.0, False)
@example(2.9, 1.1, True)
def test_pile_in_wrap_matches_the_closed_form_turned_and_mirrored(length: float, theta: float, mirror: bool) -> None:
    data = turned(line_of_three(dB_for(length), 9), theta, mirror)
    scen = scenario_from_data(data)
    r = legal(scen, pile_in(scen, "A"))
    m = move_of(r, "A1")
    assert m is not None and m.contacts == ["B1"]
    assert m.distance == pytest.approx(length, abs=1e-6)


@pytest.mark.parametrize(
    "edition,kw,through",
    [(9, ("INFANTRY",), False), (10, ("INFANTRY",), True), (10, ("MONSTER",), False), (10, ("VEHICLE",), False)],
)
def test_pile_in_crosses_a_friend_as_the_edition_allows(edition: int, kw: tuple[str, ...], through: bool) -> None:
    """A straight pile-in of 2.94" passes over F1: edition 10 lets infantry through a
    friend (straight, base contact), not a MONSTER or VEHICLE through a friendly one of
    those; edition 9 lets nobody through (the wrap is longer than 3": no contact)."""
    dB = 2.9
    assert wrap(DA, dB) > 3.0
    scen = scenario_from_data(line_of_three(dB, edition, kw=kw))
    r = legal(scen, pile_in(scen, "A"))
    m = move_of(r, "A1")
    assert m is not None
    assert (m.contacts == ["B1"]) is through
    if through:
        assert m.distance == pytest.approx(DA + dB - 2 * R, abs=1e-6) and not m.segments


def test_consolidation_uses_the_same_engine() -> None:
    scen = scenario_from_data(line_of_three(dB_for(2.75), 9))
    r = legal(scen, consolidate(scen, "A"))
    m = move_of(r, "A1")
    assert m is not None and m.contacts == ["B1"] and m.distance == pytest.approx(2.75, abs=1e-6)


@pytest.mark.parametrize("edition", [9, 10])
def test_a_model_on_a_ruin_floor_piles_in_on_that_floor(edition: int) -> None:
    floor = [[8, 14.5], [12, 14.5], [12, 18], [8, 18]]
    data = scen40k([unit40k("A", 1, [(9.0, 15.5, 5.0)], base=BASE, flags=["charged"]),
                    unit40k("B", 2, [(11.0, 17.0, 5.0)], base=BASE)],
                   terrain=[{"type": "ruin", "id": "R", "footprint": floor, "floors": [{"polygon": floor, "height": 5.0}]}],
                   rules={"edition": edition})
    scen = scenario_from_data(data)
    r = legal(scen, pile_in(scen, "A"))
    m = move_of(r, "A1")
    assert m is not None and m.contacts == ["B1"] and m.to[2] == pytest.approx(5.0)
    assert m.distance == pytest.approx(math.hypot(2.0, 1.5) - 2 * R, abs=1e-6)
    assert "elevated_stays" not in {x.code for x in r.reasons}


# --------------------------------------------------------------------------- heroic intervention


@pytest.mark.parametrize("length,contact", [(3.0, True), (3.001, False)])
def test_heroic_intervention_9_walks_round_a_friend(length: float, contact: bool) -> None:
    """Edition 9's heroic intervention no longer steps straight: it walks round the
    friend in its way on the exact tangent-arc-tangent path."""
    scen = scenario_from_data(line_of_three(dB_for(length), 9, hero=True))
    r = S.heroic_intervention(scen, "A")
    assert r.success and r.procedure == "heroic_intervention"
    legal(scen, r)
    m = move_of(r, "A1")
    assert m is not None and m.segments and (m.contacts == ["B1"]) is contact
    if contact:
        assert m.distance == pytest.approx(3.0, abs=1e-6)
        assert r.engaged == ["B"]


@FAST
@given(st.floats(2.4, 2.95), st.floats(0.0, 2 * math.pi), st.booleans())
@example(2.6, 2.0, True)
def test_heroic_wrap_matches_the_closed_form_turned_and_mirrored(length: float, theta: float, mirror: bool) -> None:
    scen = scenario_from_data(turned(line_of_three(dB_for(length), 9, hero=True), theta, mirror))
    r = S.heroic_intervention(scen, "A")
    assert r.success
    legal(scen, r)
    m = move_of(r, "A1")
    assert m is not None and m.contacts == ["B1"]
    assert m.distance == pytest.approx(length, abs=1e-6)


@pytest.mark.parametrize("room", [1e-6, 0.01])
def test_heroic_intervention_9_fails_when_no_model_can_get_closer(room: float) -> None:
    """The character is boxed in by impassable terrain with ``room`` to spare on each
    side. With 1e-6 nothing can move closer (by more than the margin), so nothing is
    placed and the ruling says why; with 0.01" it steps 0.01" toward the enemy,
    touching the wall (a constructed spot: the approach cut a hair short of the wall)."""
    data = line_of_three(2.5, 9, hero=True)
    data["units"] = [u for u in data["units"] if u["id"] != "F"]
    x, y, g = 20.0, 22.0, R + room
    data["terrain"] = [
        {"type": "impassable", "id": "N", "polygon": [[x - 1, y + g], [x + 1, y + g], [x + 1, y + g + 0.5], [x - 1, y + g + 0.5]]},
        {"type": "impassable", "id": "S", "polygon": [[x - 1, y - g - 0.5], [x + 1, y - g - 0.5], [x + 1, y - g], [x - 1, y - g]]},
        {"type": "impassable", "id": "E", "polygon": [[x + g, y - 1], [x + g + 0.5, y - 1], [x + g + 0.5, y + 1], [x + g, y + 1]]},
        {"type": "impassable", "id": "W", "polygon": [[x - g - 0.5, y - 1], [x - g, y - 1], [x - g, y + 1], [x - g - 0.5, y + 1]]},
    ]
    scen = scenario_from_data(data)
    assert S.problems(scen) == []
    r = S.heroic_intervention(scen, "A")
    if room < 1e-3:
        assert r.eligible and not r.success and r.moves == []
        assert "no_legal_move" in {x.code for x in r.reasons}
    else:
        assert r.eligible and r.success
        (m,) = r.moves
        assert m.distance == pytest.approx(room, abs=1e-6)
        assert validate_ruling(scen, r) == []


# --------------------------------------------------------------------------- structure


def test_the_old_fight_mover_is_gone_and_no_module_imports_the_system() -> None:
    import chargeref.systems.w40k as pkg

    root = pathlib.Path(pkg.__file__).parent
    for name in ("fight", "heroic", "settle", "moves", "melee", "tokens", "solver"):
        tree = ast.parse((root / f"{name}.py").read_text())
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1}
        assert "system" not in mods, name
        assert not any(isinstance(n, ast.ClassDef) and n.name == "_Mover" for n in ast.walk(tree)), name
    # each imports on its own in a fresh interpreter (no cycle to trip over)
    for mod in ("heroic", "fight", "settle", "moves"):
        subprocess.run([sys.executable, "-c", f"import chargeref.systems.w40k.{mod}"], check=True)


def test_validator_refuses_a_heroic_move_that_ends_no_closer() -> None:
    scen = scenario_from_data(line_of_three(dB_for(2.5), 9, hero=True))
    good = S.heroic_intervention(scen, "A")
    assert validate_ruling(scen, good) == []
    d = good.to_json_data()
    # A1 steps back 0.5" instead: farther from B1
    d["moves"][0]["to"] = [19.5, 22.0, 0.0]
    d["moves"][0]["path"] = [[20.0, 22.0], [19.5, 22.0]]
    d["moves"][0].pop("segments", None)
    d["moves"][0]["distance"] = 0.5
    d["moves"][0]["contacts"] = []
    for u in d["after"]["units"]:
        for mm in u["models"]:
            if mm["id"] == "A1":
                mm["at"] = [19.5, 22.0, 0.0]
    d["engaged"] = []
    assert "not_closer" in {v.code for v in validate_ruling(scen, d)}


# --------------------------------------------------------------------------- failed charge (edition 9)


def failed(units: list[dict[str, Any]], roll: int) -> Ruling:
    from chargeref.systems import ChargeRequest

    scen = scenario_from_data(scen40k(units, rules={"edition": 9}))
    r = S.charge(scen, ChargeRequest("A", ("B",), roll=roll))
    assert not r.success and r.procedure == "failed"
    return legal(scen, r)


def test_failed_charge_rules() -> None:
    from chargeref.systems.w40k.moves import failed_charge_rules

    data = line_of_three(2.5, 9)
    data["units"].append(unit40k("C", 2, [(30.0, 10.0)], base=BASE))
    w = build_world(scenario_from_data(data))
    fr = failed_charge_rules(w, "A", ["B"], 3.0)
    assert (fr.kind, fr.budget, fr.engage, set(fr.forbid), fr.closer_to) == ("failed_charge", 3.0, (), {"B", "C"}, {"A1": ("B1",)})
    assert fr.forbid_on_path and not fr.closer_vertical and fr.may_stay


def test_failed_charge_moves_the_unit_the_whole_roll_as_one_body() -> None:
    a = unit40k("A", 1, [(10.0, 10.0 + 1.5 * i) for i in range(5)])
    b = unit40k("B", 2, [(10.0 + 2 * r32() + 9.0, 13.0)])
    r = failed([a, b], 3)
    assert len(r.moves) == 5
    for m in r.moves:
        assert m.distance == pytest.approx(3.0, abs=1e-6)
        assert m.to[0] == pytest.approx(m.from_[0] + 3.0, abs=1e-6) and m.to[1] == pytest.approx(m.from_[1], abs=1e-6)


def test_failed_charge_keeps_out_of_a_non_targets_engagement_range() -> None:
    """C1 stands 0.5" beside where a straight 3" move would end: the move stops outside
    its engagement range (the validator checks the end and, in edition 9, the path)."""
    a = unit40k("A", 1, [(10.0, 10.0)])
    b = unit40k("B", 2, [(10.0 + 2 * r32() + 9.0, 10.0)])
    c = unit40k("C", 2, [(13.0, 10.0 + 2 * r32() + 0.5)])
    r = failed([a, b, c], 3)
    (m,) = r.moves
    gap = math.hypot(m.to[0] - 13.0, m.to[1] - (10.0 + 2 * r32() + 0.5)) - 2 * r32()
    assert gap > 1.0 and m.to[0] > 10.0


def test_failed_charge_walks_round_a_friend_the_whole_roll() -> None:
    """Edition 9: the friend F1 stands in the straight line; the failed move goes round
    it on the exact path and stops where the roll runs out."""
    a = unit40k("A", 1, [(10.0, 10.0)])
    f = unit40k("F", 1, [(10.0 + 2 * r32() + 0.1, 10.0)])
    b = unit40k("B", 2, [(10.0 + 2 * r32() + 9.0, 10.0)])
    r = failed([a, f, b], 3)
    (m,) = r.moves
    assert m.distance == pytest.approx(3.0, abs=1e-6)
    assert m.segments and any(sg["kind"] == "arc" for sg in m.segments)
