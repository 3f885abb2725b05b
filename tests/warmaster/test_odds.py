"""Warmaster has no charge roll: the odds of a charge are the charge itself ruled
(1 or 0), never 1 merely because a least distance exists."""

from __future__ import annotations

import copy

import pytest
import yaml

from chargeref import service

BASE = yaml.safe_load(open("examples/warmaster/diagram_33_3.yaml"))


def _odds_and_charge(shift: float) -> tuple[dict, dict]:
    doc = copy.deepcopy(BASE)
    doc["charges"] = []
    for u in doc["units"]:
        if u["id"] == "E":
            for s in u["stands"]:
                s["at"] = [s["at"][0], s["at"][1] + shift]
    return service.odds(doc, "C", ["E"]), service.charge(doc, "C", ["E"])


@pytest.mark.parametrize("shift", [0.0, 4.0, 8.0, 12.0, 16.0, 20.0, 25.0])
def test_odds_are_the_charge_ruled(shift: float) -> None:
    odds, ruling = _odds_and_charge(shift)
    assert odds["probability"] == (1.0 if ruling["success"] else 0.0)


def test_both_outcomes_occur() -> None:
    assert _odds_and_charge(0.0)[1]["success"] is True
    assert _odds_and_charge(25.0)[1]["success"] is False
