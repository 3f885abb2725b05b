"""Threat maps for The 9th Age and Warmaster: the system's own answers, turned into odds."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data
from chargeref.batch import threat_at, threat_map
from chargeref.batch.threat import _centres, move_unit
from chargeref.dice import success_probability
from chargeref.scenario import scenario_to_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_t9a_odds_are_2d6_at_least_the_least_roll() -> None:
    scen = load_scenario(EXAMPLES / "t9a" / "align_a.yaml")
    system = find_system("t9a")
    seen = set()
    for at in ((24.0, 30.0), (20.0, 36.0), (30.0, 12.0), (6.0, 6.0)):
        got = threat_at(scen, "B", at)
        assert got is not None and list(got) == ["A"]
        need = system.needed(move_unit(scen, "B", at), ChargeRequest("A", ("B",)))
        assert got["A"] == success_probability(need.roll, 0, "none")
        seen.add(got["A"])
    assert Fraction(0) in seen and len(seen) >= 2


def test_t9a_block_moves_by_the_centroid_of_its_model_centres() -> None:
    scen = load_scenario(EXAMPLES / "t9a" / "align_a.yaml")
    moved = move_unit(scen, "A", (10.0, 12.5))
    c = _centres(moved, "A").mean(axis=0)
    assert np.allclose(c, [10.0, 12.5], atol=1e-9)
    u = next(u for u in moved.units if u.id == "A")
    assert u.formation.facing == 175 and u.formation.files == 4


def test_warmaster_odds_are_the_ruling_itself() -> None:
    """No charge roll: a spot the charger cannot reach within its move is 0 even though
    a least distance exists; a reachable one is 1."""
    scen = load_scenario(EXAMPLES / "warmaster" / "diagram_33_4.yaml")
    system = find_system("warmaster")
    far = move_unit(scen, "E", (10.0, 40.0))
    assert system.needed(far, ChargeRequest("C", ("E",))).distance is not None
    assert threat_at(scen, "E", (10.0, 40.0)) == {"C": Fraction(0)}
    near = threat_at(scen, "E", (60.0, 60.0))
    assert near == {"C": Fraction(1)}
    assert system.charge(move_unit(scen, "E", (60.0, 60.0)), ChargeRequest("C", ("E",), dice=(1,))).success


def test_warmaster_revolution_map_is_made_of_sixths() -> None:
    data = scenario_to_data(load_scenario(EXAMPLES / "warmaster" / "diagram_33_4.yaml"))
    data["rules"] = {"variant": "revolution"}
    scen = scenario_from_data(data)
    tm = threat_map(scen, "E", 20.0, pool="inline")
    vals = [f for row in tm.fractions for f in row if f is not None]
    assert vals and all((f * 6).denominator == 1 for f in vals)
    assert any(f == 1 for f in vals) and any(f == 0 for f in vals)
