"""Threat maps against closed forms: one model against one model in the open, re-rolls,
a wall, several enemies, spots where the unit cannot stand, and the pruning bound."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from threat_helpers import R32, model, one_on_one, p_2d6_at_least, p_rerolled, scenario, unit

from chargeref.batch import combined, threat_at, threat_map
from chargeref.batch.threat import _Context, grid_axis, move_unit
from chargeref.errors import RequestError

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def lone_pair(ax: float = 10.0, ay: float = 10.0, **kw):  # noqa: ANN003, ANN201
    return scenario([unit("A", 1, [model("A1", ax, ay)]), unit("B", 2, [model("B1", 3, 3)])], **kw)


def test_one_model_against_one_model_every_cell_is_the_closed_form() -> None:
    scen = lone_pair()
    tm = threat_map(scen, "B", 1.0, pool="inline")
    assert tm.x.tolist() == list(range(21)) and tm.y.tolist() == list(range(21))
    assert list(tm.by) == ["A"]
    checked = 0
    for j, y in enumerate(tm.y):
        for i, x in enumerate(tm.x):
            d = math.hypot(x - 10, y - 10)
            cant = x < R32 or y < R32 or x > 20 - R32 or y > 20 - R32 or d < 2 * R32
            if cant:
                assert math.isnan(tm.probability[j, i]), (x, y)
                assert tm.fractions[j][i] is None
                continue
            want = one_on_one(d - 2 * R32)
            assert tm.fractions[j][i] == want, (x, y)
            assert tm.probability[j, i] == float(want)
            assert tm.by["A"][j, i] == float(want)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize(
    ("gap", "want"),
    [
        (7.000, p_2d6_at_least(6)),  # gap minus 1" is exactly 6: a 6 does it
        (7.001, p_2d6_at_least(7)),  # a thousandth more needs a 7
        (12.000, p_2d6_at_least(11)),  # exactly at the 12" charge range: still a target
        (12.001, Fraction(0)),  # beyond it: no charge (pruned before the solver)
        (1.000, Fraction(0)),  # exactly at engagement range: A starts engaged
        (1.001, Fraction(1)),  # just outside: any roll brings it in
    ],
)
def test_thresholds_at_their_edge(gap: float, want: Fraction) -> None:
    scen = lone_pair(2.0, 10.0, width=30)
    at = (2.0 + 2 * R32 + gap, 10.0)
    assert threat_at(scen, "B", at) == {"A": want}


def test_the_pruning_bound_keeps_the_edge_and_drops_beyond() -> None:
    scen = lone_pair(2.0, 10.0, width=30)
    ctx = _Context(scen.model_dump(mode="json", exclude_none=True), "B", None)
    assert not ctx.out_of_reach("A", (2.0 + 2 * R32 + 12.0, 10.0))
    assert ctx.out_of_reach("A", (2.0 + 2 * R32 + 12.001, 10.0))


@given(x=st.floats(1, 29), y=st.floats(1, 19))
@example(x=2.0 + 2 * R32 + 12.0, y=10.0)
@example(x=2.0 + 2 * R32 + 12.0 + 2e-6, y=10.0)
@SETTINGS
def test_pruning_never_hides_a_charge_the_solver_finds(x: float, y: float) -> None:
    """Where the proven gap bound says 'out of reach', the solver itself says no roll."""
    scen = scenario([unit("A", 1, [model("A1", 2, 10), model("A2", 3.5, 10.5), model("A3", 2.5, 11.8, "40mm")]),
                     unit("B", 2, [model("B1", 20, 3), model("B2", 21.5, 3)])], width=30)
    ctx = _Context(scen.model_dump(mode="json", exclude_none=True), "B", None)
    moved = move_unit(scen, "B", (x, y))
    if ctx.system.problems(moved):
        return
    if ctx.out_of_reach("A", (x, y)):
        assert ctx.odds(moved, "A") == 0


def test_rerolled_charge_odds_follow_the_closed_form() -> None:
    scen = lone_pair(2.0, 10.0, width=30, charges=[{"charger": "A", "targets": ["B"], "reroll": "failed"}])
    for gap, roll in ((4.5, 4), (7.2, 7), (10.9, 10)):
        got = threat_at(scen, "B", (2.0 + 2 * R32 + gap, 10.0))
        assert got == {"A": p_rerolled(roll)}


def test_modifier_of_the_charges_entry_counts() -> None:
    scen = lone_pair(2.0, 10.0, width=30, charges=[{"charger": "A", "targets": ["B"], "modifier": 1}])
    # 8.5" gap: 7.5" to move, so a total of 8, which 2D6 + 1 makes on a 7
    assert threat_at(scen, "B", (2.0 + 2 * R32 + 8.5, 10.0)) == {"A": p_2d6_at_least(7)}


def test_a_wall_lowers_the_odds_behind_it() -> None:
    wall = {"type": "wall", "id": "W", "points": [[14, 4], [14, 16]], "height": 6, "climbable": False}
    scen = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 3, 3)])], width=24, terrain=[wall])
    lower = 0
    for dx in (5.0, 6.0, 7.0, 8.0):
        behind = threat_at(scen, "B", (10 + dx, 10.0))["A"]
        open_side = threat_at(scen, "B", (10 - dx, 10.0))["A"]
        assert open_side == one_on_one(dx - 2 * R32)
        assert behind <= open_side
        lower += behind < open_side
    assert lower >= 3


def test_combined_odds_are_one_minus_the_product_of_misses() -> None:
    scen = scenario([unit("A", 1, [model("A1", 4, 10)]), unit("C", 1, [model("C1", 16, 10)]),
                     unit("B", 2, [model("B1", 10, 3)])])
    tm = threat_map(scen, "B", 2.0, pool="inline")
    assert sorted(tm.by) == ["A", "C"]
    seen_both = 0
    for j, y in enumerate(tm.y):
        for i, x in enumerate(tm.x):
            if math.isnan(tm.probability[j, i]):
                continue
            pa = one_on_one(math.hypot(x - 4, y - 10) - 2 * R32)
            pc = one_on_one(math.hypot(x - 16, y - 10) - 2 * R32)
            assert tm.fractions[j][i] == 1 - (1 - pa) * (1 - pc) == combined({"A": pa, "C": pc})
            assert tm.by["A"][j, i] == float(pa) and tm.by["C"][j, i] == float(pc)
            seen_both += pa > 0 and pc > 0
    assert seen_both > 10


def test_combined_of_known_values() -> None:
    assert combined({}) == 0
    assert combined({"A": Fraction(1, 2), "C": Fraction(1, 3)}) == Fraction(2, 3)
    assert combined({"A": Fraction(1), "C": Fraction(0)}) == 1


def test_spots_where_the_unit_cannot_stand_are_null() -> None:
    imp = {"type": "impassable", "id": "I", "polygon": [[2, 12], [6, 12], [6, 16], [2, 16]]}
    scen = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 3, 3), model("B2", 4.5, 3)])],
                    terrain=[imp])
    tm = threat_map(scen, "B", 1.0, pool="inline")
    data = tm.to_json_data()
    xi, yi = tm.x.tolist().index, tm.y.tolist().index
    assert data["probability"][yi(14)][xi(4)] is None  # on the impassable piece
    assert data["probability"][yi(10)][xi(10)] is None  # on top of A
    assert data["probability"][yi(0)][xi(10)] is None  # half off the board
    assert data["by"]["A"][yi(14)][xi(4)] is None
    # B's two models are 1.5" apart: the centroid at (10, 4) puts B1 at (9.25, 4)
    gap = min(math.hypot(9.25 - 10, 4 - 10), math.hypot(10.75 - 10, 4 - 10)) - 2 * R32
    assert tm.fractions[yi(4)][xi(10)] == one_on_one(gap)


def test_json_shape_follows_the_contract() -> None:
    tm = threat_map(lone_pair(width=6, depth=4), "B", 2.0, pool="inline")
    data = tm.to_json_data()
    assert list(data) == ["format", "unit", "step", "x", "y", "probability", "by"]
    assert data["format"] == "chargeref-threat/1" and data["unit"] == "B" and data["step"] == 2.0
    assert data["x"] == [0.0, 2.0, 4.0, 6.0] and data["y"] == [0.0, 2.0, 4.0]
    assert len(data["probability"]) == 3 and all(len(r) == 4 for r in data["probability"])


def test_grid_axis_includes_the_far_edge_on_the_grid() -> None:
    assert grid_axis(2.0, 0.5).tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert grid_axis(2.0, 0.3).tolist() == [0.0, 0.3, 0.6, 0.9, 1.2, 1.5, 1.8]


def test_bad_requests_are_refused_naming_the_option() -> None:
    scen = lone_pair()
    with pytest.raises(RequestError) as e:
        threat_map(scen, "Z", pool="inline")
    assert e.value.problems[0].field == "--unit"
    for bad in (0, -1, float("nan")):
        with pytest.raises(RequestError) as e:
            threat_map(scen, "B", bad, pool="inline")
        assert e.value.problems[0].field == "--step"


def test_process_pool_gives_the_same_map_as_inline() -> None:
    scen = scenario([unit("A", 1, [model("A1", 4, 10)]), unit("C", 1, [model("C1", 16, 10)]),
                     unit("B", 2, [model("B1", 10, 3)])])
    a = threat_map(scen, "B", 2.0, pool="inline")
    b = threat_map(scen, "B", 2.0)
    assert a.to_json_data() == b.to_json_data()
    assert np.array_equal(a.probability, b.probability, equal_nan=True)
