"""`odds`/`needed` and the charge ruling must agree on the least roll, also when the
move cannot avoid drawing a second enemy unit in (a multiple charge, seed 001)."""

from __future__ import annotations

import pytest

from chargeref import ChargeRequest, find_system, load_scenario


@pytest.mark.parametrize("name,charger,target", [("multiple_a", "A", "D"), ("align_a", "A", "B")])
def test_needed_equals_the_charge_rulings_needed(name: str, charger: str, target: str) -> None:
    scen = load_scenario(f"examples/t9a/{name}.yaml")
    system = find_system("t9a")
    ruling = system.charge(scen, ChargeRequest(charger, (target,), dice=(1, 1)))
    need = system.needed(scen, ChargeRequest(charger, (target,)))
    assert ruling.needed is not None
    assert need.roll == ruling.needed.roll
    assert need.distance == pytest.approx(ruling.needed.distance, abs=1e-6)
    assert need.roll is not None
