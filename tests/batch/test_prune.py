"""The threat map's exact short cuts (batch/prune.py) never change a value: maps
computed with them equal maps computed cell by cell through the system's ``needed``,
and each out-of-reach bound sits exactly at the rule's edge."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from threat_helpers import R32, model, p_2d6_at_least, scenario, unit

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data
from chargeref.batch import combined, threat_map
from chargeref.batch.threat import _centres, _Context, move_unit
from chargeref.dice import success_probability
from chargeref.scenario import scenario_to_data

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def by_needed(scen, uid: str, xs, ys) -> tuple[list[list[Fraction | None]], dict[str, int]]:  # noqa: ANN001
    """The map the slow way: every spot, every enemy, the system's full ``needed``."""
    system = find_system(scen.system)
    me = next(u for u in scen.units if u.id == uid)
    enemies = [u.id for u in scen.units if u.player != me.player]
    counts = {"cells": 0, "above_bound": 0}
    out: list[list[Fraction | None]] = []
    for y in ys:
        row: list[Fraction | None] = []
        for x in xs:
            moved = move_unit(scen, uid, (float(x), float(y)))
            if system.problems(moved):
                row.append(None)
                continue
            per = {}
            for e in enemies:
                need = system.needed(moved, ChargeRequest(charger=e, targets=(uid,)))
                per[e] = success_probability(need.roll, 0, "none")
                counts["above_bound"] += need.roll is not None and need.exact is not True
            row.append(combined(per))
            counts["cells"] += 1
        out.append(row)
    return out, counts


def test_40k_map_with_short_cuts_equals_needed_cell_by_cell() -> None:
    """Two multi-model enemy units and a wall: spots out of reach, spots settled by the
    probe at the lower bound, and spots behind the wall where the probe fails and the
    full search decides."""
    wall = {"type": "wall", "id": "W", "points": [[13, 3], [13, 10]], "height": 6, "climbable": False}
    scen = scenario([unit("A", 1, [model("A1", 8, 6), model("A2", 9.5, 6), model("A3", 8.75, 7.3)]),
                     unit("C", 1, [model("C1", 20, 14), model("C2", 21.5, 14)]),
                     unit("B", 2, [model("B1", 3, 14), model("B2", 4.5, 14)])], width=26, depth=18, terrain=[wall])
    tm = threat_map(scen, "B", 3.0, pool="inline")
    want, counts = by_needed(scen, "B", tm.x, tm.y)
    assert tm.fractions == want
    assert counts["cells"] > 30 and counts["above_bound"] >= 1
    assert any(f == 0 for row in want for f in row if f is not None)
    assert any(f is not None and 0 < f < 1 for row in want for f in row)


def t9a_pair(gap: float, modifier: int = 0, spacing: str | None = None):  # noqa: ANN201
    """B (5 files of 20 mm) facing north; A straight in front of it facing south,
    ``gap`` inches between the two fronts; advance rate 4."""
    data = {"format": "chargeref/1", "system": "t9a", "board": {"width": 48, "depth": 48},
            "units": [{"id": "B", "player": 2, "formation": {"front": [24, 10], "facing": 90, "files": 5, "models": 10,
                                                            "base": {"rect": [20, 20]}}},
                      {"id": "A", "player": 1, "advance_rate": 4,
                       "formation": {"front": [24, 10 + gap], "facing": 270, "files": 5, "models": 10,
                                     "base": {"rect": [20, 20]}}}]}
    if modifier:
        data["charges"] = [{"charger": "A", "targets": ["B"], "modifier": modifier}]
    if spacing:
        data["rules"] = {"charge_spacing": spacing}
    return scenario_from_data(data)


def t9a_context(scen):  # noqa: ANN001, ANN201
    ctx = _Context(scen.model_dump(mode="json", exclude_none=True), "B", None)
    return ctx, tuple(float(v) for v in _centres(scen, "B").mean(axis=0))


def test_t9a_out_of_reach_at_its_edge() -> None:
    """Advance rate 4 plus 12 on 2D6: a 16.000" charge is declared (a 12 does it),
    16.001" is out of reach, and the bound (the exact gap between the outlines) says so
    without asking the system."""
    for gap, pruned, want in ((16.0, False, p_2d6_at_least(12)), (16.001, True, Fraction(0))):
        ctx, at = t9a_context(t9a_pair(gap))
        assert ctx.reach.gap_lower_bound("A", at) == gap
        assert ctx.out_of_reach("A", at) is pruned
        assert ctx.spot(at) == {"A": want}


def test_t9a_out_of_reach_counts_a_bonus_and_the_half_inch_spacing() -> None:
    ctx, at = t9a_context(t9a_pair(17.0, modifier=1))
    assert not ctx.out_of_reach("A", at)
    ctx, at = t9a_context(t9a_pair(17.001, modifier=1))
    assert ctx.out_of_reach("A", at)
    # a charge that stops half an inch short may start half an inch farther away
    ctx, at = t9a_context(t9a_pair(16.5, spacing="half_inch"))
    assert not ctx.out_of_reach("A", at)
    ctx, at = t9a_context(t9a_pair(16.501, spacing="half_inch"))
    assert ctx.out_of_reach("A", at)


def test_t9a_map_with_short_cuts_equals_needed_cell_by_cell() -> None:
    scen = t9a_pair(10.0)
    tm = threat_map(scen, "B", 4.0, pool="inline")
    want, counts = by_needed(scen, "B", tm.x, tm.y)
    assert tm.fractions == want
    flat = [f for row in want for f in row if f is not None]
    assert counts["cells"] > 80 and Fraction(0) in flat and any(f > 0 for f in flat)


@given(x=st.floats(3, 45), y=st.floats(3, 45), facing=st.sampled_from([0, 90, 135, 270]))
@example(x=24.0, y=26.0 - 16.001, facing=90)
@example(x=24.0, y=26.0 - 16.0, facing=90)
@SETTINGS
def test_t9a_pruning_never_hides_a_charge_the_system_finds(x: float, y: float, facing: int) -> None:
    data = {"format": "chargeref/1", "system": "t9a", "board": {"width": 48, "depth": 48},
            "units": [{"id": "B", "player": 2, "formation": {"front": [10, 10], "facing": facing, "files": 4, "models": 8,
                                                            "base": {"rect": [25, 25]}}},
                      {"id": "A", "player": 1, "formation": {"front": [24, 26], "facing": 270, "files": 5, "models": 10,
                                                            "base": {"rect": [20, 20]}}}]}
    scen = scenario_from_data(data)
    ctx, _ = t9a_context(scen)
    moved = move_unit(scen, "B", (x, y))
    if ctx.system.problems(moved) or not ctx.out_of_reach("A", (x, y)):
        return
    assert ctx.system.needed(moved, ChargeRequest("A", ("B",))).roll is None


def test_40k_probe_at_the_lower_bound_matches_needed_at_the_edge() -> None:
    """A lone pair 7.000" and 7.001" apart: the probe settles 6 and 7 exactly as
    ``needed`` does."""
    for gap, roll in ((7.0, 6), (7.001, 7)):
        scen = scenario([unit("A", 1, [model("A1", 2, 10)]), unit("B", 2, [model("B1", 2 + 2 * R32 + gap, 10)])], width=30)
        ctx, at = _Context(scen.model_dump(mode="json", exclude_none=True), "B", None), (2 + 2 * R32 + gap, 10.0)
        assert find_system("40k").needed(scen, ChargeRequest("A", ("B",))).roll == roll
        assert ctx.spot(at) == {"A": p_2d6_at_least(roll)}


# ---------------------------------------------------------------------- Warmaster

WM_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "warmaster" / "diagram_33_4.yaml"


def wm_pair(gap: float, charger_type: str = "cavalry", base: dict | None = None):  # noqa: ANN201
    """E (one infantry stand facing down the table, front edge on y = 49) and C (one
    stand straight below it facing up), ``gap`` cm between the two front edges."""
    depth = 4.0 if base is None else 2.0  # C's stand: 20 x 40 mm cavalry, or a round base
    stand: dict = {"at": [60, 49 - gap - depth / 2], "facing": 90}
    c = {"id": "C", "player": 1, "type": charger_type, "stands": [stand]}
    if base is not None:
        c["base"] = base
    return scenario_from_data({"format": "chargeref/1", "system": "warmaster", "board": {"width": 120, "depth": 80},
                               "units": [{"id": "E", "player": 2, "type": "infantry",
                                          "stands": [{"at": [60, 50], "facing": 270}]}, c]})


def wm_context(scen):  # noqa: ANN001, ANN201
    ctx = _Context(scen.model_dump(mode="json", exclude_none=True), "E", None)
    return ctx, tuple(float(v) for v in _centres(scen, "E").mean(axis=0))


def test_warmaster_out_of_reach_at_its_edge() -> None:
    """Cavalry moves 30 cm: a charge exactly 30.000 cm long succeeds; 30.001 cm is out
    of reach, and the bound (the exact gap between the stands) says so."""
    for gap, pruned, want in ((30.0, False, Fraction(1)), (30.001, True, Fraction(0))):
        ctx, at = wm_context(wm_pair(gap))
        assert abs(ctx.reach.gap_lower_bound("C", at) - gap) < 1e-9
        assert ctx.out_of_reach("C", at) is pruned
        assert ctx.spot(at) == {"C": want}
        assert find_system("warmaster").chance(wm_pair(gap), ChargeRequest("C", ("E",))) == want


def test_warmaster_round_charging_stand_is_never_pruned() -> None:
    scen = wm_pair(20.0, "character", {"round": 25})
    ctx, at = wm_context(scen)
    assert "C" not in ctx.reach.enemy and not ctx.out_of_reach("C", at)
    assert ctx.spot(at) == {"C": find_system("warmaster").chance(scen, ChargeRequest("C", ("E",)))}


def test_warmaster_map_with_short_cuts_equals_the_rulings_cell_by_cell() -> None:
    scen = load_scenario(WM_EXAMPLE)
    tm = threat_map(scen, "E", 10.0, pool="inline")
    system = find_system("warmaster")
    want = []
    for y in tm.y:
        row = []
        for x in tm.x:
            moved = move_unit(scen, "E", (float(x), float(y)))
            row.append(None if system.problems(moved) else system.chance(moved, ChargeRequest("C", ("E",))))
        want.append(row)
    assert tm.fractions == want
    flat = [f for r in want for f in r if f is not None]
    assert Fraction(0) in flat and Fraction(1) in flat


@given(x=st.floats(3, 117), y=st.floats(3, 77), variant=st.sampled_from(["original", "revolution"]))
@example(x=60.0, y=50.0 - 0.001 - 0.5, variant="original")
@SETTINGS
def test_warmaster_pruning_never_hides_a_charge_the_system_finds(x: float, y: float, variant: str) -> None:
    data = scenario_to_data(load_scenario(WM_EXAMPLE))
    data["rules"] = {"variant": variant}
    scen = scenario_from_data(data)
    ctx = _Context(scenario_to_data(scen), "E", None)
    moved = move_unit(scen, "E", (x, y))
    if ctx.system.problems(moved) or not ctx.out_of_reach("C", (x, y)):
        return
    assert ctx.system.chance(moved, ChargeRequest("C", ("E",))) == 0
