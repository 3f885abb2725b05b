"""A pile-in of five models on oval bases (round 6, oval distances): every distance
between the movers (ovals against ovals, for coherency and packing) and against the
enemy's round bases goes through the one-point certified oval solve. The ruling is
re-checked by the independent validator, and it is the ruling main gave before the
round (recorded below to 1e-6), at a fraction of the time (benchmarks/oval_pile_in.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chargeref.scenario import scenario_from_data
from chargeref.systems.w40k.fight import pile_in
from chargeref.testing import assert_legal_charge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from oval_pile_in import scene  # noqa: E402

#: the end centres main 272ad65 gave (before this round), to 1e-6
BEFORE = {
    "A1": (10.255842665, 12.989070846),
    "A2": (13.059158461, 12.964654027),
    "A3": (15.859822748, 12.926539584),
    "A4": (18.22161774, 12.952203467),
    "A5": (20.103917051, 12.119657743),
}


@pytest.fixture(scope="module")
def ruling():  # noqa: ANN201
    scen = scenario_from_data(scene())
    return scen, pile_in(scen, "A")


def test_the_pile_in_is_legal(ruling) -> None:  # noqa: ANN001
    scen, r = ruling
    assert r.success
    assert_legal_charge(scen, r)
    for m in r.moves:
        assert m.distance <= 3.0 + 1e-6


def test_the_pile_in_is_the_one_main_gave(ruling) -> None:  # noqa: ANN001
    _, r = ruling
    ends = {m.id: m.to for m in r.moves}
    for mid, (x, y) in BEFORE.items():
        assert abs(ends[mid][0] - x) <= 1e-6 and abs(ends[mid][1] - y) <= 1e-6
