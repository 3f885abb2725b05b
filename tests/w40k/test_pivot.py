"""Pivots: non-round 40k models turning about their centre (docs/40k.md, "Pivots").

* the geometry: a pivot's cost, and the exact swept area against a dense brute force;
  the validator's own swept area against the product's;
* charges through a slot only a turned base fits, with the least move in closed form,
  rotated and mirrored;
* the validator: every pivot threshold at its edge, and malformed pivots refused;
* the command line shows the new fields.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import numpy as np
import pytest
from h40k import turned_slot_scene
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.bases import base_footprint
from chargeref.geometry.pivot import pivot_length, pivotable, reach, sweep, turned
from chargeref.geometry.shapes import Disc, Footprint, signed_distance
from chargeref.ruling import ruling_from_data
from chargeref.scenario import scenario_from_data
from chargeref.validate.w40k import validate
from chargeref.validate.w40k_pivot import swept_parts

MM = 25.4
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def codes(vs: list[Any]) -> list[str]:
    return [v.code for v in vs]


# --------------------------------------------------------------------------- geometry


def test_cost_of_a_quarter_turn_of_a_60x35_oval() -> None:
    fp = base_footprint("oval", [60, 35], (3.0, 4.0), 90.0, MM)
    a = 30 / MM
    assert reach(fp) == pytest.approx(a, abs=1e-12)
    assert abs(pivot_length(fp, 90.0) - a * math.pi / 2) <= 1e-9
    assert abs(pivot_length(fp, -90.0) - a * math.pi / 2) <= 1e-9
    rect = base_footprint("rect", [90, 50], (0.0, 0.0), 17.0, MM)
    assert abs(pivot_length(rect, 180.0) - math.hypot(45, 25) / MM * math.pi) <= 1e-9
    assert not pivotable(base_footprint("round", 32, (0, 0), 0.0, MM))


def _point_gap(fp: Footprint, p: np.ndarray) -> float:
    return max(0.0, float(signed_distance(fp, Footprint((Disc((float(p[0]), float(p[1])), 0.0),)))))


@st.composite
def turning_base(draw: Any) -> tuple[Footprint, float]:
    kind = draw(st.sampled_from(["oval", "rect"]))
    L = draw(st.floats(30, 170))
    W = draw(st.floats(20, 120))
    facing = draw(st.floats(-180, 180))
    delta = draw(st.floats(-180, 180))
    fp = base_footprint(kind, [L, W], (1.0, -2.0), facing, MM)
    return fp, delta


@SETTINGS
@given(turning_base(), st.floats(0, 2 * math.pi), st.floats(0.0, 1.6))
@example((base_footprint("oval", [60, 35], (1.0, -2.0), 90.0, MM), -90.0), math.pi / 4, 1.0)
@example((base_footprint("rect", [90, 50], (1.0, -2.0), 0.0, MM), 180.0), 1.0, 1.2)
def test_sweep_is_exactly_the_area_covered_while_turning(base: tuple[Footprint, float], ang: float, rel: float) -> None:
    """The distance from a point to the swept area equals the least distance to the
    base at any moment of the turn (dense moments here; the product never samples)."""
    fp, delta = base
    R = reach(fp)
    p = fp.center + rel * R * np.array([math.cos(ang), math.sin(ang)])
    got = _point_gap(sweep(fp, delta), p)
    n = 1440
    brute = min(_point_gap(turned(fp, delta * k / n), p) for k in range(n + 1))
    # a sampled turn misses at most the arc its furthest point runs between two samples
    step = R * abs(math.radians(delta)) / n
    assert got <= brute + 1e-7
    assert got >= brute - step - 1e-7


@SETTINGS
@given(turning_base(), st.floats(0, 2 * math.pi), st.floats(0.2, 2.0), st.floats(0.1, 1.0))
def test_validator_sweep_agrees_with_the_product(base: tuple[Footprint, float], ang: float, rel: float, r: float) -> None:
    fp, delta = base
    kind = fp.kind
    p = fp.parts[0]
    R = reach(fp)
    c = fp.center + rel * R * np.array([math.cos(ang), math.sin(ang)])
    obs = Footprint((Disc((float(c[0]), float(c[1])), r),))
    prod = float(signed_distance(sweep(fp, delta), obs))
    if kind == "oval":
        L = 2 * p.a * MM  # type: ignore[attr-defined]
        Wd = 2 * p.b * MM  # type: ignore[attr-defined]
        dims, f0 = [L, Wd], math.degrees(p.theta)  # type: ignore[attr-defined]
    else:
        V = p.V - fp.center  # type: ignore[attr-defined]
        e0 = V[0] - V[1]  # along the facing (depth side)
        f0 = math.degrees(math.atan2(e0[1], e0[0]))
        dims = [float(np.hypot(*(V[2] - V[1]))) * MM, float(np.hypot(*e0)) * MM]
        assert base_footprint("rect", dims, tuple(fp.center), f0, MM).parts[0].V == pytest.approx(p.V, abs=1e-9)  # type: ignore[attr-defined]
    from chargeref.validate.w40k_state import _convex_sd

    class _P:  # the validator reads the base off a placed model
        class model:  # noqa: N801
            class base:  # noqa: N801
                kind = fp.kind
            base.dims = dims

    parts = swept_parts(_P, (float(fp.center[0]), float(fp.center[1])), f0, f0 + delta, MM)  # type: ignore[arg-type]
    val = min(_convex_sd(a, obs.parts[0]) for a in parts)
    if prod >= 0 or val >= 0:
        assert abs(max(prod, 0.0) - max(val, 0.0)) <= 1e-7
    else:
        assert val < 0 and prod < 0


def test_sweep_touching_an_obstacle_is_clear_and_1e3_deeper_is_not() -> None:
    from chargeref.geometry.paths import Barrier
    from chargeref.systems.w40k.pivots import sweep_clear
    from chargeref.systems.w40k.world import Model

    fp = base_footprint("oval", [60, 35], (10.0, 10.0), 90.0, MM)
    m = Model("A1", "A", 1, fp, 0.0, 90.0, 0)
    a, r = 30 / MM, 16 / MM
    for gap, clear in ((0.0, True), (-1e-3, False), (1e-3, True)):
        d = a + r + gap
        c = (10 + d * math.cos(math.pi / 4), 10 + d * math.sin(math.pi / 4))
        bar = Barrier(Footprint((Disc(c, r),)), None, "X")
        assert sweep_clear(m, -90.0, [bar]) is clear, gap
        # the end footprints alone never come near it: only the sector does
        assert signed_distance(turned(fp, -90.0), bar.footprint) > 0.05
        assert signed_distance(fp, bar.footprint) > 0.05


# --------------------------------------------------------------------------- charges


def slot_scenario(kind: str, dims: list[float], facing: float, gap: float, edition: int = 10) -> dict[str, Any]:
    """A thick wall across the board with one slot ``gap`` wide; the charger west of it,
    its target east of it. Walls reach the board edges: the slot is the only way."""
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition},
        "terrain": [
            {"type": "wall", "id": "W1", "points": [[30, 0], [30, 15 - gap / 2]], "thickness": 4, "height": 5, "climbable": False},
            {"type": "wall", "id": "W2", "points": [[30, 15 + gap / 2], [30, 30]], "thickness": 4, "height": 5, "climbable": False},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"], "models": [{"id": "A1", "at": [24, 15], "base": {kind: dims}, "facing": facing}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [34.5, 15], "base": {"round": 32}}]},
        ],
    }


def charge(data: dict[str, Any], roll: int = 12) -> Any:
    from chargeref.systems import ChargeRequest, find_system

    scen = scenario_from_data(data)
    r = find_system("40k").charge(scen, ChargeRequest(charger="A", targets=("T",), roll=roll))
    return scen, r


#: the target's nearest point along the slot, and the engagement range
X_T = 34.5 - 16 / MM
ER = 1.0


def test_oval_turns_to_pass_a_slot_exactly_as_wide_as_its_minor_axis() -> None:
    a = 30 / MM
    scen, r = charge(slot_scenario("oval", [60, 35], 90.0, 35 / MM))
    want = (X_T - ER - a) - 24 + a * math.pi / 2
    assert r.needed.distance == pytest.approx(want, abs=1e-6)
    assert r.needed.roll == math.ceil(want)
    assert r.success and validate(scen, r) == []
    mv = r.moves[0]
    pv = mv.segments[0]
    assert pv["kind"] == "pivot" and pv["at"] == [24.0, 15.0] and pv["from"] == 90.0
    assert abs(abs(pv["to"] - pv["from"]) - 90.0) < 1e-9
    assert pv["length"] == pytest.approx(a * math.pi / 2, abs=1e-6)
    assert mv.facing == pv["to"] and mv.facing_from == 90.0
    after = {m["id"]: m for u in r.after["units"] for m in u["models"]}
    assert after["A1"]["facing"] == mv.facing
    # the drawing shows the base at its start facing and, at its end, turned
    from chargeref.render.svg import render_svg

    svg = render_svg(scen, r)
    assert "at 24, 15 · facing 90°" in svg and f"· facing {mv.facing:g}°" in svg


def test_a_slot_1e3_narrower_than_the_minor_axis_stops_the_oval() -> None:
    _, r = charge(slot_scenario("oval", [60, 35], 90.0, 35 / MM - 1e-3))
    assert r.needed.roll is None and not r.success


def test_an_oval_already_facing_the_slot_does_not_pivot() -> None:
    a = 30 / MM
    scen, r = charge(slot_scenario("oval", [60, 35], 0.0, 35 / MM))
    assert r.needed.distance == pytest.approx((X_T - ER - a) - 24, abs=1e-6)
    assert all(sg["kind"] != "pivot" for mv in r.moves for sg in (mv.segments or []))
    assert r.moves[0].facing is None and validate(scen, r) == []


def test_rect_side_meets_the_walls_only_if_it_turns() -> None:
    """A 90x50 mm rect facing the slot with its 90 mm side across cannot enter; turned a
    quarter, its long sides lie along both walls, touching them."""
    half_diag = math.hypot(45, 25) / MM
    scen, r = charge(slot_scenario("rect", [90, 50], 0.0, 50 / MM))
    want = (X_T - ER - 45 / MM) - 24 + half_diag * math.pi / 2
    assert r.needed.distance == pytest.approx(want, abs=1e-6)
    assert r.needed.roll == math.ceil(want) and validate(scen, r) == []
    # 0.001" narrower than the short side: no way through
    _, r2 = charge(slot_scenario("rect", [90, 50], 0.0, 50 / MM - 1e-3))
    assert r2.needed.roll is None


def _transform(data: dict[str, Any], ang: float, mirror: bool) -> dict[str, Any]:
    """The scene turned by ``ang`` (degrees) and mirrored (h40k.turned_slot_scene). Walls
    are cut 13" from the slot: going round them is longer than any roll."""
    g = data["terrain"][0]["points"][1][1]
    g2 = data["terrain"][1]["points"][0][1]
    return turned_slot_scene(data, ang, mirror, [(30, g - 13, g), (30, g2, g2 + 13)], 90.0)


@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-180, 180), st.booleans())
@example(37.0, True)
@example(-123.5, False)
def test_turned_and_mirrored_slots_need_the_same(ang: float, mirror: bool) -> None:
    a = 30 / MM
    want = (X_T - ER - a) - 24 + a * math.pi / 2
    scen, r = charge(_transform(slot_scenario("oval", [60, 35], 90.0, 35 / MM), ang, mirror))
    assert r.needed.distance == pytest.approx(want, abs=1e-6)
    assert validate(scen, r) == []


def test_lower_bound_still_holds_with_pivots() -> None:
    """No point of a base moves farther than the pivot's cost, so the gap minus the reach
    stays below every move that engages, pivots included."""
    scen, r = charge(slot_scenario("oval", [60, 35], 90.0, 35 / MM))
    assert r.needed.lower_bound <= r.needed.distance
    fp = base_footprint("oval", [60, 35], (24, 15), 90.0, MM)
    tfp = base_footprint("round", 32, (34.5, 15), 0.0, MM)
    assert r.needed.lower_bound == pytest.approx(float(signed_distance(fp, tfp)) - ER, abs=1e-6)
    # and every point of the turned base is within the pivot's length of where it was
    moved = turned(fp, -90.0)
    gap_before = float(signed_distance(fp, tfp))
    assert float(signed_distance(moved, tfp)) >= gap_before - pivot_length(fp, -90.0) - 1e-9


# --------------------------------------------------------------------------- the validator


def _ruling_data() -> tuple[Any, dict[str, Any]]:
    scen, r = charge(slot_scenario("oval", [60, 35], 90.0, 35 / MM))
    return scen, r.to_json_data()


def _check(scen: Any, data: dict[str, Any]) -> list[str]:
    return codes(validate(scen, ruling_from_data(data)))


def test_validator_refuses_bad_pivots() -> None:
    scen, good = _ruling_data()
    assert _check(scen, good) == []

    def with_pivot(**kw: Any) -> dict[str, Any]:
        d = copy.deepcopy(good)
        d["moves"][0]["segments"][0].update(kw)
        return d

    pv = good["moves"][0]["segments"][0]
    assert "pivot_cost" in _check(scen, with_pivot(length=pv["length"] + 0.001))
    assert "pivot_cost" not in _check(scen, with_pivot(length=pv["length"] + 5e-7))
    assert "bad_pivot" in _check(scen, with_pivot(to=pv["from"] + 270.0))
    assert "bad_pivot" in _check(scen, with_pivot(at=[24.0, 15.01]))
    assert "bad_pivot" in _check(scen, with_pivot(**{"from": 45.0}))
    d = copy.deepcopy(good)
    del d["moves"][0]["segments"][0]["to"]
    assert "bad_pivot" in _check(scen, d)
    d = copy.deepcopy(good)
    segs = d["moves"][0]["segments"]
    line = segs[1]
    mid = [(line["from"][0] + line["to"][0]) / 2, line["from"][1]]
    d["moves"][0]["segments"] = [{"kind": "line", "from": line["from"], "to": mid},
                                 dict(segs[0], at=mid), {"kind": "line", "from": mid, "to": line["to"]}]
    assert "bad_pivot" in _check(scen, d)
    # the facing in `after` must be where the pivots end
    d = copy.deepcopy(good)
    for u in d["after"]["units"]:
        for m in u["models"]:
            if m["id"] == "A1":
                m["facing"] = 90.0
    assert "facing_changed" in _check(scen, d)
    # a turn with no pivot recorded
    d = copy.deepcopy(good)
    d["moves"][0]["segments"] = d["moves"][0]["segments"][1:]
    assert "facing_changed" in _check(scen, d)


def _open_scene(edition: int = 10, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition}, "terrain": [],
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"], "models": [{"id": "A1", "at": [10, 10], "base": {"oval": [60, 35]}, "facing": 90}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [30, 10], "base": {"round": 32}}]},
            *(extra or []),
        ],
    }


def _hand_ruling(scen_data: dict[str, Any], to_x: float, roll: int = 12) -> dict[str, Any]:
    """A ruling that turns A1 from 90 to 0 at its start and moves it east to ``to_x``."""
    a = 30 / MM
    L = a * math.pi / 2
    after = copy.deepcopy(scen_data)
    after["units"][0]["models"][0].update(at=[to_x, 10.0], facing=0.0)
    after["units"][0]["flags"] = ["charged"]
    return {
        "format": "chargeref-ruling/1", "system": "40k", "charger": "A", "targets": ["T"], "eligible": True,
        "success": True, "procedure": "normal", "roll": {"dice": [], "modifier": 0, "total": roll},
        "moves": [{"id": "A1", "from": [10.0, 10.0], "to": [to_x, 10.0], "distance": (to_x - 10) + L,
                   "segments": [{"kind": "pivot", "at": [10.0, 10.0], "from": 90.0, "to": 0.0, "length": L},
                                {"kind": "line", "from": [10.0, 10.0], "to": [to_x, 10.0]}],
                   "facing": 0.0, "facing_from": 90.0}],
        "engaged": ["T"], "after": after,
    }


def test_pivot_cost_counts_against_the_roll_at_the_edge() -> None:
    data = _open_scene()
    scen = scenario_from_data(data)
    L = 30 / MM * math.pi / 2
    exact = 10 + 12 - L  # path + pivot = 12
    assert "over_budget" not in _check(scen, _hand_ruling(data, exact))
    assert "over_budget" in _check(scen, _hand_ruling(data, exact + 0.001))


def test_sweep_against_a_model_and_a_non_target_engagement_range_at_the_edge() -> None:
    a, r = 30 / MM, 16 / MM
    k = math.cos(math.pi / 4)
    for gap, bad in ((0.0, False), (-1e-3, True)):
        d = a + r + gap
        extra = [{"id": "E", "player": 2, "keywords": ["INFANTRY"],
                  "models": [{"id": "E1", "at": [10 + d * k, 10 + d * k], "base": {"round": 32}}]}]
        data = _open_scene(extra=extra)
        scen = scenario_from_data(data)
        got = _check(scen, _hand_ruling(data, 20.0))
        # E1 is a non-target: the sweep's engagement range reaches it whatever the gap
        assert "pivot_in_er_of_non_target" in got
        assert ("pivot_blocked" in got) is bad
    for er_gap, bad in ((1.0, True), (1.001, False)):
        d = a + r + er_gap
        extra = [{"id": "E", "player": 2, "keywords": ["INFANTRY"],
                  "models": [{"id": "E1", "at": [10 + d * k, 10 + d * k], "base": {"round": 32}}]}]
        data = _open_scene(extra=extra)
        scen = scenario_from_data(data)
        got = _check(scen, _hand_ruling(data, 20.0))
        assert ("pivot_in_er_of_non_target" in got) is bad, er_gap
        assert "pivot_blocked" not in got


# --------------------------------------------------------------------------- command line


def test_cli_shows_the_pivot(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from chargeref.cli import main

    f = tmp_path / "slot.json"
    f.write_text(json.dumps(slot_scenario("oval", [60, 35], 90.0, 35 / MM)))
    res = CliRunner().invoke(main, ["charge", str(f), "--charger", "A", "--target", "T", "--roll", "12", "--json"])
    assert res.exit_code == 0, res.output
    mv = json.loads(res.output)["moves"][0]
    assert mv["facing_from"] == 90.0 and abs(abs(mv["facing"] - 90.0) - 90.0) < 1e-9
    assert mv["segments"][0]["kind"] == "pivot"
    res = CliRunner().invoke(main, ["charge", str(f), "--charger", "A", "--target", "T", "--roll", "12"])
    assert res.exit_code == 0, res.output
    assert f"turns 90° -> {mv['facing']:g}°" in res.output


# --------------------------------------------------------------------------- random slots


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.sampled_from(["oval", "rect"]), st.floats(40, 120), st.floats(25, 60), st.floats(-180, 180),
       st.floats(0.0, 1.0), st.floats(-2.0, 2.0), st.floats(20.0, 26.0))
@example("oval", 60.0, 35.0, 90.0, 0.0, 0.0, 24.0)
@example("rect", 90.0, 50.0, 30.0, 0.5, 1.0, 22.0)
def test_random_slots_are_legal_and_pivots_never_make_it_worse(
    kind: str, L: float, W: float, facing: float, slack: float, ty: float, x0: float
) -> None:
    """A slot between the base's short and long extent: the ruling passes the validator,
    and the least roll is never above the one found with pivots switched off."""
    from chargeref.systems.w40k import pivots

    short, long_ = min(L, W) / MM, max(L, W) / MM
    gap = short + slack * (long_ - short)
    data = slot_scenario(kind, [L, W], facing, gap)
    data["units"][0]["models"][0]["at"] = [x0, 15.0]
    data["units"][1]["models"][0]["at"] = [34.5, 15.0 + ty]
    scen, r = charge(data)
    assert validate(scen, r) == []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pivots, "plans", lambda *a, **k: [])
        _, r0 = charge(data)
    assert all(sg["kind"] != "pivot" for mv in r0.moves for sg in (mv.segments or []))
    if not r0.eligible:  # the target more than 12" away: nothing to compare
        assert not r.eligible
        return
    if r0.needed.roll is not None:
        assert r.needed.roll is not None and r.needed.roll <= r0.needed.roll
        assert r.needed.distance <= r0.needed.distance + 1e-6
    assert r.needed.lower_bound <= (r.needed.distance if r.needed.distance is not None else math.inf) + 1e-9


def _end_pivot_ruling(scen_data: dict[str, Any], to_x: float) -> dict[str, Any]:
    """A ruling that moves A1 east to ``to_x`` at facing 90, then turns it to 0 there."""
    a = 30 / MM
    L = a * math.pi / 2
    d = _hand_ruling(scen_data, to_x)
    mv = d["moves"][0]
    mv["segments"] = [{"kind": "line", "from": [10.0, 10.0], "to": [to_x, 10.0]},
                      {"kind": "pivot", "at": [to_x, 10.0], "from": 90.0, "to": 0.0, "length": L}]
    return d


def test_validator_accepts_a_pivot_at_the_end_spot_and_checks_its_sweep() -> None:
    data = _open_scene()
    scen = scenario_from_data(data)
    got = _check(scen, _end_pivot_ruling(data, 20.0))
    assert not {"bad_pivot", "pivot_cost", "pivot_blocked", "facing_changed", "distance_mismatch"} & set(got), got
    # the end pivot stands where the move ends, not where it started
    d = _end_pivot_ruling(data, 20.0)
    d["moves"][0]["segments"][1]["at"] = [10.0, 10.0]
    assert "bad_pivot" in _check(scen, d)
    # an enemy model 1e-3 inside the sector swept at the end spot
    a, r = 30 / MM, 16 / MM
    k = math.cos(math.pi / 4)
    for gap, bad in ((0.0, False), (-1e-3, True)):
        dd = a + r + gap
        extra = [{"id": "E", "player": 2, "keywords": ["INFANTRY"],
                  "models": [{"id": "E1", "at": [20 - dd * k, 10 - dd * k], "base": {"round": 32}}]}]
        data2 = _open_scene(extra=extra)
        got = _check(scenario_from_data(data2), _end_pivot_ruling(data2, 20.0))
        assert ("pivot_blocked" in got) is bad, (gap, got)


def test_a_two_model_unit_follows_through_the_slot_in_coherency() -> None:
    """The second oval turns too and keeps within 2" of the first: the unit needs what the
    leading model needs (closed form), and the validator finds nothing wrong."""
    a = 30 / MM
    data = slot_scenario("oval", [60, 35], 90.0, 35 / MM)
    data["units"][0]["models"].append({"id": "A2", "at": [21.0, 15.0], "base": {"oval": [60, 35]}, "facing": 90.0})
    scen, r = charge(data)
    assert r.needed.distance == pytest.approx((X_T - ER - a) - 24 + a * math.pi / 2, abs=1e-6)
    assert r.success and validate(scen, r) == []
    assert all(mv.segments[0]["kind"] == "pivot" for mv in r.moves)


def _edge_scene(y0: float) -> dict[str, Any]:
    """A1 (60x35 mm oval, facing 60) stands ``y0`` from the board's south edge."""
    data = _open_scene()
    data["units"][0]["models"][0].update(at=[10.0, y0], facing=60.0)
    data["units"][1]["models"][0].update(at=[30.0, y0 + 2])
    return data


def test_a_turn_that_swings_the_long_axis_past_the_board_edge() -> None:
    """Facing 60 and facing 120 both keep the oval on the board when its centre is
    ``a`` from the edge (their reach toward the edge is sqrt(a² sin² 60 + b² cos² 60) <
    a); turning from one to the other swings the long axis through facing 90, where it
    reaches ``a``: touching the edge is allowed, 1e-3 beyond it is not."""
    from chargeref.geometry.pivot import extent
    from chargeref.systems.w40k.pivots import sweep_on_board
    from chargeref.systems.w40k.world import build_world

    a, b = 30 / MM, 17.5 / MM
    side = math.sqrt(a * a * 0.75 + b * b * 0.25)
    assert side < a - 0.05
    for gap, off in ((0.0, False), (1e-3, True)):
        y0 = a - gap
        data = _edge_scene(y0)
        scen = scenario_from_data(data)
        m = build_world(scen).by_id["A1"]
        assert extent(turned(m.fp, 60.0))[2] >= -1e-12  # facing 120 itself is on the board
        assert extent(sweep(m.fp, 60.0))[2] == pytest.approx(y0 - a, abs=1e-12)
        assert sweep_on_board(m, 60.0, (44.0, 30.0)) is (not off)
        # the validator, on a hand-made ruling that turns 60 -> 120 at the start
        L = a * math.pi / 3
        after = copy.deepcopy(data)
        after["units"][0]["models"][0].update(at=[12.0, y0], facing=120.0)
        ruling = {
            "format": "chargeref-ruling/1", "system": "40k", "charger": "A", "targets": ["T"], "eligible": True,
            "success": True, "procedure": "normal", "roll": {"dice": [], "modifier": 0, "total": 12},
            "moves": [{"id": "A1", "from": [10.0, y0], "to": [12.0, y0], "distance": 2.0 + L,
                       "segments": [{"kind": "pivot", "at": [10.0, y0], "from": 60.0, "to": 120.0, "length": L},
                                    {"kind": "line", "from": [10.0, y0], "to": [12.0, y0]}],
                       "facing": 120.0, "facing_from": 60.0}],
            "engaged": ["T"], "after": after,
        }
        got = _check(scen, ruling)
        assert ("off_board" in got) is off, got
        assert not {"bad_pivot", "pivot_cost", "pivot_blocked"} & set(got), got


def test_plans_a_floor_rules_out_are_skipped_and_the_answer_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pivots.best_plan`` (editions 9/10) skips a plan whose proven floor cannot beat
    the best answer found (``_hopeless``, as the edition-11 search does): a 90x50 mm
    rect at 45 degrees before a 3" slot has three plans, the last is skipped, and the
    ruling is the one solving every plan gives."""
    from chargeref.systems.w40k import pivots

    data = slot_scenario("rect", [90, 50], 45.0, 3.0)
    calls: list[bool] = []
    real = pivots._hopeless

    def spy(floor: float, need: Any) -> bool:
        calls.append(real(floor, need))
        return calls[-1]

    monkeypatch.setattr(pivots, "_hopeless", spy)
    _, skipping = charge(data)
    assert calls == [False, False, True]
    monkeypatch.setattr(pivots, "_hopeless", lambda floor, need: False)
    _, solving_all = charge(data)
    assert skipping.model_dump() == solving_all.model_dump()
