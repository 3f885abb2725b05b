"""The WTC walls rule and barricades in the charge phase (seed 000; issue 3 items 1, 2, 4).

Every end state is re-checked by the independent validator.
"""

from __future__ import annotations

import math

import pytest
from h40k import EXAMPLES, r32, scen40k, unit40k

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data
from chargeref.testing import assert_legal_charge

S = find_system("40k")
WALLS = EXAMPLES / "40k" / "wtc_walls"


def rule(scen, roll, charger="A", targets=("B",)):
    r = S.charge(scen, ChargeRequest(charger, tuple(targets), roll=roll))
    if r.success:
        assert_legal_charge(scen, r)
    return r


@pytest.mark.parametrize("name", ["ex1a.yaml", "ex1b.yaml"])
def test_example_1a_seven_charges_with_tokens_nine_forces_the_legal_spot(name):
    scen = load_scenario(WALLS / name)
    need = S.needed(scen, ChargeRequest("A", ("B",)))
    assert need.roll == 7  # what the open-field charge needs (6.3" to engagement range)
    # never below the proven straight-line bound, even though token models move only 5.7"
    assert need.distance >= need.lower_bound - 1e-9
    assert need.distance == pytest.approx(6.3, abs=0.01)
    r6 = rule(scen, 6)
    assert not r6.success and r6.moves == []
    for roll in (7, 8):
        r = rule(scen, roll)
        assert r.success and r.procedure == "wtc_walls" and r.engaged == ["B"]
        assert all(m.token for m in r.moves)  # nobody can reach a normal legal spot
        # every token model touches the wall's outside face (5.7" from A's front)
        assert all(m.distance == pytest.approx(5.7, abs=0.5) for m in r.moves)
        after = scenario_from_data(r.after)
        a = next(u for u in after.units if u.id == "A")
        assert a.token_targets == ["B"] and all(m.token for m in a.models)
    r9 = rule(scen, 9)
    assert r9.success
    legal = [m for m in r9.moves if not m.token]
    assert legal and any(c.startswith("B") for m in legal for c in m.contacts)
    assert any(m.token for m in r9.moves)


def test_example_1a_closest_legal_spot_is_8_1_inches():
    from chargeref.systems.w40k.solver import ChargeProblem
    from chargeref.systems.w40k.world import build_world

    scen = load_scenario(WALLS / "ex1a.yaml")
    prob = ChargeProblem(build_world(scen), "A", ["B"], 14.0)
    need, _ = S.needed_on(prob)  # the charge without the walls rule
    # the seed's "8.1" exactly: A5 ends touching B10 and the wall's inner face, just past
    # the end of B's line (the crossing of B10's contact circle with the face's offset line)
    r = 16 / 25.4
    y = 16.6299 + 0.3 + r
    x = 26.7 + math.sqrt((2 * r) ** 2 - (18.5598 - y) ** 2)
    assert need.distance == pytest.approx(math.hypot(x - 24.5916, y - 10.0), abs=1e-6)
    assert need.distance == pytest.approx(8.1, abs=0.02)
    assert need.roll == 9


def test_example_1b_same_as_1a():
    a = load_scenario(WALLS / "ex1a.yaml")
    b = load_scenario(WALLS / "ex1b.yaml")
    for roll in (6, 7, 9):
        ra, rb = rule(a, roll), rule(b, roll)
        assert (ra.success, ra.procedure, [m.token for m in ra.moves]) == (rb.success, rb.procedure, [m.token for m in rb.moves])


def test_example_2_an_eight_puts_one_model_in_the_pocket():
    scen = load_scenario(WALLS / "ex2.yaml")
    r = rule(scen, 8)
    assert r.success and r.procedure == "wtc_walls"
    legal = [m for m in r.moves if not m.token]
    assert len(legal) == 1 and legal[0].contacts == ["B6"]
    # the seed's "7.9" exactly: touching B6 and the wall's inner face (closed form)
    r = 16 / 25.4
    y = 16.6299 + 0.3 + r
    x = 21.8 - math.sqrt((2 * r) ** 2 - (18.5598 - y) ** 2)
    assert legal[0].distance == pytest.approx(math.hypot(x - 23.2932, y - 10.0), abs=1e-6)
    assert legal[0].distance == pytest.approx(7.9, abs=0.02)
    r7 = rule(scen, 7)
    assert r7.success and all(m.token for m in r7.moves)


def test_roll_one_short_of_open_field_fails_and_walls_never_help_more():
    for name in ("ex1a.yaml", "ex2.yaml"):
        scen = load_scenario(WALLS / name)
        # open field needs 6.3": a 6 fails with or without the wall
        assert not rule(scen, 6).success
        data = scen.model_dump(mode="json", exclude_none=True)
        data["terrain"] = []
        bare = scenario_from_data(data)
        for roll in range(2, 13):
            if rule(scen, roll).success:
                assert rule(bare, roll).success, roll


@pytest.mark.parametrize("kw", [["MONSTER"], ["VEHICLE"]])
def test_monsters_and_vehicles_never_get_tokens(kw):
    data = load_scenario(WALLS / "ex1a.yaml").model_dump(mode="json", exclude_none=True)
    data["units"][0]["keywords"] = kw
    scen = scenario_from_data(data)
    for roll in (7, 8, 12):
        r = rule(scen, roll)
        assert not any(m.token for m in r.moves)
        assert r.procedure != "wtc_walls"


def test_edition_9_has_no_walls_rule():
    data = load_scenario(WALLS / "ex1a.yaml").model_dump(mode="json", exclude_none=True)
    data["rules"] = {"edition": 9}
    r = rule(scenario_from_data(data), 7)
    assert not r.success


# ------------------------------------------------------------------ barricades


def _barricade(gap_target: float):
    """Charger 6" below a barricade; a tight line of three targets stands
    ``gap_target`` beyond it, too close for a base to fit in between."""
    rad = r32()
    ty = 16.1 + gap_target + rad
    return scen40k(
        [unit40k("A", 1, [(20, 10)]), unit40k("B", 2, [(18.7, ty), (20, ty), (21.3, ty)])],
        terrain=[{"type": "barricade", "id": "pipe", "points": [[15, 16], [25, 16]], "height": 1.5, "thickness": 0.2}],
    )


def test_barricade_charge_ends_touching_within_two_inches():
    scen = scenario_from_data(_barricade(0.5))
    # a 6 reaches the barricade (5.27") but not round the end of B's line
    r = rule(scen, 6)
    assert r.success and r.engaged == ["B"]
    m = r.moves[0]
    # touching the barricade's near face (y = 15.9) and 0.5 + 0.2 = 0.7" from B
    assert m.to[1] == pytest.approx(15.9 - r32(), abs=1e-6)


def test_barricade_needs_target_within_one_inch_of_it():
    ok = scenario_from_data(_barricade(1.0))
    assert rule(ok, 6).success
    far = scenario_from_data(_barricade(1.0 + 1e-3))
    # 1.001" behind the barricade: no charge across it, and 6" is too short to go round
    assert not rule(far, 6).success
