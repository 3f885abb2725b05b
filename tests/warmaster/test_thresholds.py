"""Thresholds: the move limit at exactly the move and just over it, the first stand 1 cm
short of its centre-to-centre spot, corner-only contact."""

from __future__ import annotations

import pytest
from wm_helpers import charge, codes, infantry_line, moved, scen, stands

# Target: one infantry stand facing down, front edge y = 49, x 58..62; its
# centre-to-centre spot for a cavalry stand facing up has its centre at (60, 47).
TARGET = infantry_line("E", 2, [60], 50, 270)


def one_cavalry(x: float, y: float, variant: str = "original") -> object:
    return scen({"rules": {"variant": variant},
                 "units": [TARGET, stands("C", 1, "cavalry", [(x, y)], 90)]})


def test_exactly_the_move_to_centre_to_centre_charges() -> None:
    r = charge(one_cavalry(60, 17), "C", "E")  # 30 cm straight ahead, cavalry move 30
    assert r.success
    assert r.moves[0].distance == 30.0
    assert moved(r)["C.0"] == (60.0, 47.0, 90.0)
    assert r.needed is not None and r.needed.distance == 30.0


def test_exactly_the_move_on_a_diagonal() -> None:
    r = charge(one_cavalry(78, 23), "C", "E")  # (18, 24): 30 exactly
    assert r.success and r.moves[0].distance == pytest.approx(30.0, abs=1e-12)


def test_a_thousandth_over_the_move_fails() -> None:
    r = charge(one_cavalry(60, 16.999), "C", "E")
    assert r.eligible and not r.success
    assert codes(r) == ["out_of_reach"]
    assert r.moves == []
    assert r.needed is not None and r.needed.distance == pytest.approx(30.001)


def test_one_cm_short_of_centre_to_centre_cannot_charge_though_off_centre_is_in_reach() -> None:
    # (78.6, 22.2) is 31 cm from the centre-to-centre spot (18.6, 24.8), but spots on
    # the same edge 1.72 cm or more towards the charger are within 30 cm
    s = one_cavalry(78.6, 22.2)
    r = charge(s, "C", "E")
    assert not r.success and codes(r) == ["out_of_reach"]
    assert r.details["first_contact"]["centre_to_centre_move"] == pytest.approx(31.0)
    assert r.needed is not None and r.needed.distance == pytest.approx(31.0)
    # the off-centre spot really is in reach
    from chargeref.systems.warmaster.paths import corner_cost

    assert corner_cost([78.6, 22.2], 90, [60 + 2.0, 47], 90, 2.0, 4.0) < 30.0


def test_revolution_lets_the_first_stand_go_off_centre_when_short() -> None:
    s = one_cavalry(78.6, 22.2, "revolution")
    r = charge(s, "C", "E")
    assert r.success and r.procedure == "partially_covered"
    off = r.details["first_contact"]["offset"]
    assert abs(off) == pytest.approx(18.6 - (30**2 - 24.8**2) ** 0.5, abs=1e-6)
    assert r.moves[0].distance == pytest.approx(30.0, abs=1e-6)


def test_corner_only_contact_is_refused() -> None:
    # The target's front is covered by a friendly unit, its sides and rear by
    # impassable ground; the charger could reach a spot touching only its corner.
    s = scen({
        "terrain": [{"id": "x", "type": "impassable",
                     "polygon": [[50, 49], [58, 49], [58, 51], [62, 51], [62, 49], [70, 49], [70, 60], [50, 60]]}],
        "units": [TARGET,
                  infantry_line("F", 1, [60], 48, 90, flags=["engaged"]),
                  stands("C", 1, "cavalry", [(55, 35)], 90)],
    })
    r = charge(s, "C", "E")
    assert r.eligible and not r.success and codes(r) == ["corner_only"]


def test_corner_free_but_partly_exposed_edge_is_enough_in_original_not_in_revolution() -> None:
    # The friendly unit leaves 0.5 cm of the target's front edge clear: the original
    # rules only ask for some contact, Revolution for a full centimetre.
    units = [TARGET, infantry_line("F", 1, [60.5], 48, 90, flags=["engaged"]),
             stands("C", 1, "cavalry", [(55, 35)], 90)]
    terrain = [{"id": "x", "type": "impassable",
                "polygon": [[50, 49], [58, 49], [58, 51], [62, 51], [62, 49], [70, 49], [70, 60], [50, 60]]}]
    r = charge(scen({"terrain": terrain, "units": units}), "C", "E")
    assert r.success and r.procedure == "partially_covered"
    fc = r.details["first_contact"]
    assert abs(fc["offset"]) == pytest.approx(2.5, abs=1e-6)
    assert r.details["contact_lengths"]["C.0"] == pytest.approx(0.5, abs=1e-6)
    r2 = charge(scen({"rules": {"variant": "revolution"}, "terrain": terrain, "units": units}), "C", "E")
    assert not r2.success and codes(r2) == ["corner_only"]


def test_gap_exactly_the_shortest_edge_passes_narrower_blocks() -> None:
    # Two friendly walls of stands with a gap straight ahead of a lone cavalry stand:
    # 2 cm (its shortest edge) lets it through, 1.999 cm does not (and going round is
    # too far).
    def make(gap: float) -> object:
        left = [(60 - gap / 2 - 2 - 4 * i, 40) for i in range(4)]
        right = [(60 + gap / 2 + 2 + 4 * i, 40) for i in range(4)]
        return scen({"units": [TARGET,
                               stands("L", 1, "infantry", left, 90), stands("R", 1, "infantry", right, 90),
                               stands("C", 1, "cavalry", [(60, 25)], 90)]})

    ok = charge(make(2.0), "C", "E")
    assert ok.success and len(ok.moves[0].path or []) == 2
    bad = charge(make(1.999), "C", "E")
    assert not bad.success


def test_gap_beside_an_enemy_must_be_wider_than_the_frontage() -> None:
    # Infantry (4 cm frontage) facing a gap of 3 cm between an enemy stand and a
    # friendly one: it could turn sideways and fit, but the rules close such gaps.
    # Charging the enemy that stands by the gap is still allowed (moving into it).
    def make(gap: float) -> object:
        return scen({"units": [
            infantry_line("E", 2, [54], 50, 270),
            infantry_line("X", 2, [50], 40, 90),
            infantry_line("F", 1, [52 + gap + 2], 40, 90),
            infantry_line("C", 1, [52 + gap / 2], 30, 90),
        ]})

    wide = charge(make(4.5), "C", "E")
    assert wide.success
    assert wide.moves[0].path is not None and len(wide.moves[0].path) == 2  # straight through
    exact = charge(make(4.0), "C", "E")  # "wider than" the frontage: 4 cm is not enough
    narrow = charge(make(3.0), "C", "E")
    for r in (exact, narrow):
        assert not r.success and codes(r) == ["blocked_path"]
