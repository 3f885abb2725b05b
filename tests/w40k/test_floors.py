"""Ruin floors as end spots: a charger that may stand on upper floors ends in base
contact with a target on a floor when it can (the climb counted), and the spot is the
constructed one where the base just fits on the floor's edge."""

from __future__ import annotations

import pytest
from h40k import r32, scen40k, unit40k

from chargeref import ChargeRequest, find_system, scenario_from_data
from chargeref.testing import assert_legal_charge

FLOOR = [[8, 14.5], [12, 14.5], [12, 18], [8, 18]]


def _scen(kw: tuple[str, ...]) -> dict:
    return scen40k(
        [unit40k("A", 1, [(10, 10)], kw=kw), unit40k("B", 2, [(10, 14 + 2 * r32(), 5.0)])],
        terrain=[{"type": "ruin", "id": "R", "footprint": FLOOR, "floors": [{"polygon": FLOOR, "height": 5.0}]}],
    )


def test_infantry_ends_in_base_contact_on_the_floor() -> None:
    scen = scenario_from_data(_scen(("INFANTRY",)))
    r = find_system("40k").charge(scen, ChargeRequest("A", ("B",), roll=12))
    assert r.success
    (mv,) = r.moves
    assert mv.to[2] == pytest.approx(5.0)  # on the floor
    assert mv.contacts == ["B1"]
    # the base rests exactly on the floor's edge (y = 14.5 + r), nothing hangs over
    assert mv.to[1] == pytest.approx(14.5 + r32(), abs=1e-6)
    assert_legal_charge(scen, r)


def test_a_vehicle_may_not_use_the_floor_and_stays_on_the_ground() -> None:
    scen = scenario_from_data(_scen(("VEHICLE",)))
    r = find_system("40k").charge(scen, ChargeRequest("A", ("B",), roll=12))
    assert r.success
    assert r.moves[0].to[2] == pytest.approx(0.0)
    assert r.moves[0].contacts == []
    assert_legal_charge(scen, r)
