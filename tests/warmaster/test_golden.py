"""Golden tests: the diagrams of seed 004 (Warmaster rules update, pp. 33-34) rebuilt as
scenarios under examples/warmaster/, each giving the placement or refusal the seed
describes. Every end state is re-checked by the independent validator."""

from __future__ import annotations

import pytest
from wm_helpers import SYSTEM, charge, codes, example, moved

from chargeref.systems import ChargeRequest
from chargeref.testing import assert_legal_charge

DIAGRAMS = ["33_3", "33_4", "33_5", "33_6", "33_7", "34_1", "34_2", "34_3"]


@pytest.mark.parametrize("name", DIAGRAMS)
def test_every_diagram_is_a_possible_battlefield_and_its_ruling_is_legal(name: str) -> None:
    s = example(f"diagram_{name}.yaml")
    assert SYSTEM.problems(s) == []
    assert len(s.charges) == 1
    r = SYSTEM.charge(s, ChargeRequest.from_spec(s.charges[0], 7))
    assert_legal_charge(s, r)
    # the phase gives the same ruling
    ph = SYSTEM.phase(s, 7)
    assert ph.rulings[0].success == r.success
    assert ph.after["charges"] == []


def test_33_3_closest_accessible_edge_not_the_visible_one() -> None:
    # The fronts of E are 17 cm away and in sight across the river, but no stand fits
    # against them; the closest reachable edge is E.0's side, round the river's end.
    s = example("diagram_33_3.yaml")
    r = charge(s, "C", "E")
    assert r.success and r.procedure == "normal"
    fc = r.details["first_contact"]
    assert r.details["first_stand"] == "C.0"
    assert (fc["enemy_stand"], fc["edge"], fc["centre_to_centre"]) == ("E.0", "right", True)
    assert moved(r)["C.0"] == (52.0, 50.0, 0.0)
    # its path bends round the west end of the river
    first = next(m for m in r.moves if m.id == "C.0")
    assert first.path is not None and len(first.path) > 2
    assert min(p[0] for p in first.path) < 50.0
    # the stand above touches E.0 at a corner; the last one has no line spot in reach
    # or room (the river is below) and is staggered back, still in formation
    assert r.details["placements"] == {"C.0": "first", "C.1": "line", "C.2": "staggered"}
    kinds = {(c["stand"], c["kind"]) for c in r.details["contacted_edges"]}
    assert ("C.1", "corner") in kinds
    assert r.engaged == ["E"]


def test_33_3_the_front_edges_are_seen() -> None:
    from chargeref.systems.warmaster.solve import Charge
    from chargeref.systems.warmaster.world import build_world

    s = example("diagram_33_3.yaml")
    ch = Charge(build_world(s), "C", "E", "original")
    w = ch.w
    assert ch.stand_sees(w.stand("C.1"), w.stand("E.1"))
    et = ch.try_edge_original(w.stand("C.1"), w.stand("E.1"), "front")
    assert et.dist == pytest.approx(13.0) and et.free == []  # in plain sight, but covered


def test_33_4_initial_position() -> None:
    # cavalry about to charge infantry: C.2 is the closest stand, 17 cm below E.0
    s = example("diagram_33_4.yaml")
    n = SYSTEM.needed(s, ChargeRequest("C", ("E",)))
    assert n.roll is None
    assert n.distance == pytest.approx((2**2 + 17**2) ** 0.5, abs=1e-9)
    r = charge(s, "C", "E")
    assert r.eligible and r.success
    assert r.details["first_stand"] == "C.2"


def test_33_5_first_stand_centre_to_centre() -> None:
    s = example("diagram_33_5.yaml")
    r = charge(s, "C", "E")
    assert r.moves[0].id == "C.2"
    assert moved(r)["C.2"] == (56.0, 47.0, 90.0)
    fc = r.details["first_contact"]
    assert fc == {"enemy_unit": "E", "enemy_stand": "E.0", "edge": "front", "offset": 0.0,
                  "centre_to_centre": True, "centre_to_centre_move": pytest.approx(17.117242769)}
    assert r.moves[0].distance == pytest.approx((4 + 289) ** 0.5)


def test_33_6_remaining_stands_flush_and_maximising() -> None:
    s = example("diagram_33_6.yaml")
    r = charge(s, "C", "E")
    assert moved(r) == {"C.2": (56.0, 47.0, 90.0), "C.1": (58.0, 47.0, 90.0), "C.0": (60.0, 47.0, 90.0)}
    assert r.details["order"] == ["C.2", "C.1", "C.0"]
    assert r.details["contact_lengths"] == {"C.2": 2.0, "C.1": 2.0, "C.0": 2.0}
    # C.1 straddles E.0 and E.1
    c1 = sorted((c["enemy_stand"], c["length"]) for c in r.details["contacted_edges"] if c["stand"] == "C.1")
    assert c1 == [("E.0", 1.0), ("E.1", 1.0)]


def test_33_7_only_one_side_gives_contact() -> None:
    s = example("diagram_33_7.yaml")
    r = charge(s, "C", "E")
    assert r.details["first_stand"] == "C.0"
    fc = r.details["first_contact"]
    assert (fc["enemy_stand"], fc["edge"], fc["centre_to_centre"]) == ("E.0", "left", True)
    m = moved(r)
    assert m["C.0"] == (63.0, 50.0, 180.0)
    # both others on the side away from E's front: the other side would touch nothing
    assert m["C.1"] == (63.0, 54.0, 180.0)
    assert m["C.2"] == (63.0, 58.0, 180.0)
    assert r.details["contact_lengths"]["C.0"] == pytest.approx(3.0)
    assert r.details["contact_lengths"]["C.1"] == pytest.approx(3.0)


def test_34_1_adjacent_enemy_drawn_in() -> None:
    s = example("diagram_34_1.yaml")
    r = charge(s, "C", "T")
    assert r.details["first_stand"] == "C.2"
    assert moved(r) == {"C.2": (60.0, 47.0, 90.0), "C.1": (62.0, 47.0, 90.0), "C.0": (64.0, 47.0, 90.0)}
    assert r.engaged == ["T", "U"]
    assert r.details["drawn_in"] == ["U"]
    units = {(c["stand"], c["enemy_unit"]) for c in r.details["contacted_edges"]}
    assert ("C.0", "U") in units and ("C.1", "U") in units


def test_34_2_partially_covered_edge() -> None:
    s = example("diagram_34_2.yaml")
    r = charge(s, "C", "E")
    assert r.success and r.procedure == "partially_covered"
    assert "partially_covered" in codes(r)
    fc = r.details["first_contact"]
    assert fc["enemy_stand"] == "E.0" and fc["edge"] == "front"
    assert fc["offset"] == pytest.approx(0.5, abs=1e-6)
    assert fc["centre_to_centre_move"] == pytest.approx(17.0)
    x, y, f = moved(r)["C.2"]
    assert (x, y, f) == (pytest.approx(56.5, abs=1e-6), 47.0, 90.0)
    assert [m.id for m in r.moves] == ["C.2", "C.1", "C.0"]
    assert moved(r)["C.1"][0] == pytest.approx(58.5, abs=1e-6)
    assert moved(r)["C.0"][0] == pytest.approx(60.5, abs=1e-6)


def test_34_3_corner_only_refused() -> None:
    s = example("diagram_34_3.yaml")
    r = charge(s, "C", "T")
    assert r.eligible and not r.success
    assert r.procedure == "failed"
    assert codes(r) == ["corner_only"]
    assert r.moves == [] and r.engaged == []
    assert r.needed is not None and r.needed.distance is None
