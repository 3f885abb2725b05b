"""Pivots in the moves made model by model (docs/40k.md, "Pivots"; settle_pivots.py):
pile-in, consolidation, edition 9's heroic intervention and failed-charge move.

The scene: a thick wall across the board with a slot in it; behind the slot, an enemy
model. A 40x20 mm rect faces the wall with its 40 mm side across the slot: it cannot
enter; turned a quarter it fits, and reaches base contact if the move leaves enough
after the turn. Every threshold is worked out in closed form here and tested 0.001"
either side; the validator's pivot checks in the fight phase are tested at theirs.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from h40k import turned_slot_scene
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.systems.w40k.fight import consolidate, pile_in
from chargeref.validate.w40k import validate

MM = 25.4
W_RECT, D_RECT = 40.0, 20.0  # across the facing, along it (mm)
R = math.hypot(W_RECT / 2, D_RECT / 2) / MM  # the rect's reach: half its diagonal
QUARTER = R * math.pi / 2  # the cost of a quarter turn
SLOT = W_RECT / 2 / MM + 0.01  # wider than the turned base by 0.01"
WALL_X0, WALL_X1 = 29.55, 30.45  # the wall's two faces
T_NEAR = 30.5  # the enemy model's nearest point (0.05" behind the wall)
R_T = 16 / MM  # the enemy's 32 mm round base
#: base contact after a quarter turn: the turned base's front (half of 40 mm ahead of
#: its centre) at the enemy's nearest point
CONTACT_X = T_NEAR - W_RECT / 2 / MM
#: the farthest start from which the turn and the straight move fit in 3"
X_STAR = CONTACT_X + QUARTER - 3.0
#: the nearest start from which the quarter turn's sweep clears the wall: the wall's
#: corner at the slot is the first thing the sweep (radius R) meets
X_SWEEP = WALL_X0 - math.sqrt(R * R - (SLOT / 2) ** 2)

SETTINGS = settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def scene(x0: float, edition: int = 10, facing: float = 0.0, flags: tuple[str, ...] = ("charged",),
          keywords: tuple[str, ...] = ("VEHICLE",)) -> dict[str, Any]:
    g = SLOT
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": edition},
        "terrain": [
            {"type": "wall", "id": "W1", "points": [[30, 0], [30, 15 - g / 2]], "thickness": WALL_X1 - WALL_X0,
             "height": 5, "climbable": False},
            {"type": "wall", "id": "W2", "points": [[30, 15 + g / 2], [30, 30]], "thickness": WALL_X1 - WALL_X0,
             "height": 5, "climbable": False},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": list(keywords), "flags": list(flags),
             "models": [{"id": "A1", "at": [x0, 15], "base": {"rect": [W_RECT, D_RECT]}, "facing": facing}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [T_NEAR + R_T, 15], "base": {"round": 32}}]},
        ],
    }


def codes(vs: list[Any]) -> list[str]:
    return [v.code for v in vs]


def kinds(mv: Any) -> list[str]:
    return [sg["kind"] for sg in (mv.segments or [])]


# --------------------------------------------------------------------------- the engine


def test_constants_of_the_scene() -> None:
    """The slot is narrower than the unturned base (40 mm across) and wider than the
    turned one; the threshold starts lie where the sweep at the start is clear."""
    assert W_RECT / MM > SLOT > D_RECT / MM
    assert X_STAR < X_SWEEP
    assert 27.0 < X_STAR < 29.0


@pytest.mark.parametrize("dx", [1e-3, 0.0])
def test_pile_in_reaches_base_contact_only_after_a_quarter_turn(dx: float) -> None:
    x0 = X_STAR + dx
    scen = scenario_from_data(scene(x0))
    r = pile_in(scen, "A")
    assert r.success and validate(scen, r) == []
    (mv,) = r.moves
    assert mv.contacts == ["T1"]
    assert kinds(mv) == ["pivot", "line"]
    pv = mv.segments[0]
    assert pv["at"] == [round(x0, 9), 15.0] and pv["from"] == 0.0 and abs(abs(pv["to"]) - 90.0) < 1e-9
    assert pv["length"] == pytest.approx(QUARTER, abs=1e-6)
    # the move: the quarter turn, then straight to base contact
    assert mv.to[0] == pytest.approx(CONTACT_X, abs=1e-6) and mv.to[1] == pytest.approx(15.0, abs=1e-6)
    assert mv.distance == pytest.approx(CONTACT_X - x0 + QUARTER, abs=1e-6)
    assert mv.distance <= 3.0 + 1e-6
    assert mv.facing == pv["to"] and mv.facing_from == 0.0
    after = {m["id"]: m for u in r.after["units"] for m in u["models"]}
    assert after["A1"]["facing"] == mv.facing


def test_pile_in_001_short_of_the_turn_stays_unturned_at_the_wall() -> None:
    """0.001" farther, the turn and the move no longer fit: the best end is the
    unturned base against the wall, in engagement range (0.95" from the enemy)."""
    x0 = X_STAR - 1e-3
    scen = scenario_from_data(scene(x0))
    r = pile_in(scen, "A")
    assert r.success and validate(scen, r) == []
    (mv,) = r.moves
    assert mv.contacts == [] and "pivot" not in kinds(mv) and mv.facing is None
    assert mv.to[0] == pytest.approx(WALL_X0 - D_RECT / 2 / MM, abs=1e-6)
    assert r.engaged == ["T"]


def test_a_model_already_in_base_contact_reach_does_not_turn() -> None:
    """Facing the slot already (turned a quarter to begin with), the same start needs no
    turn: the move is the straight line, with nothing paid for a turn."""
    x0 = X_STAR - 1.0
    scen = scenario_from_data(scene(x0, facing=90.0))
    r = pile_in(scen, "A")
    (mv,) = r.moves
    assert mv.contacts == ["T1"] and "pivot" not in kinds(mv) and mv.facing is None
    assert mv.distance == pytest.approx(CONTACT_X - x0, abs=1e-6)
    assert validate(scen, r) == []


def test_consolidation_turns_like_the_pile_in() -> None:
    x0 = 28.5
    scen = scenario_from_data(scene(x0))
    r = consolidate(scen, "A")
    (mv,) = r.moves
    assert mv.contacts == ["T1"] and kinds(mv) == ["pivot", "line"]
    assert mv.distance == pytest.approx(CONTACT_X - x0 + QUARTER, abs=1e-6)
    assert validate(scen, r) == []


def test_edition_9_heroic_intervention_turns_into_base_contact() -> None:
    x0 = 28.5
    scen = scenario_from_data(scene(x0, edition=9, flags=(), keywords=("CHARACTER", "INFANTRY")))
    r = find_system("40k").heroic_intervention(scen, "A")
    assert r.success and r.procedure == "heroic_intervention"
    (mv,) = r.moves
    assert mv.contacts == ["T1"] and kinds(mv) == ["pivot", "line"]
    assert mv.distance == pytest.approx(CONTACT_X - x0 + QUARTER, abs=1e-6)
    assert validate(scen, r) == []


def test_no_start_turn_whose_sweep_enters_the_wall() -> None:
    """0.001" past the start where the quarter turn's sweep meets the wall's corner the
    engine does not turn there; the ruling it gives is legal."""
    scen = scenario_from_data(scene(X_SWEEP + 1e-3))
    r = pile_in(scen, "A")
    assert validate(scen, r) == []
    assert all(not (sg["kind"] == "pivot" and sg["at"][0] == round(X_SWEEP + 1e-3, 9)) for mv in r.moves for sg in mv.segments or [])
    scen2 = scenario_from_data(scene(X_SWEEP - 1e-3))
    r2 = pile_in(scen2, "A")
    assert kinds(r2.moves[0])[0] == "pivot" and validate(scen2, r2) == []


def _transform(data: dict[str, Any], ang: float, mirror: bool) -> dict[str, Any]:
    """The scene turned by ``ang`` degrees and mirrored (h40k.turned_slot_scene). The walls
    are cut 8" from the slot (going round them is longer than any 3" move)."""
    g = SLOT / 2
    return turned_slot_scene(data, ang, mirror, [(30, 15 - g - 8, 15 - g), (30, 15 + g, 15 + g + 8)], 0.0)


@SETTINGS
@given(st.floats(-180, 180), st.booleans())
@example(37.0, True)
@example(-123.5, False)
def test_turned_and_mirrored_pile_in_is_the_same(ang: float, mirror: bool) -> None:
    x0 = 28.5
    scen = scenario_from_data(_transform(scene(x0), ang, mirror))
    r = pile_in(scen, "A")
    (mv,) = r.moves
    assert mv.contacts == ["T1"] and kinds(mv) == ["pivot", "line"]
    assert mv.distance == pytest.approx(CONTACT_X - x0 + QUARTER, abs=1e-6)
    assert validate(scen, r) == []


# --------------------------------------------------------------------------- the validator


def _pile_in_ruling(x0: float) -> tuple[Any, Ruling]:
    scen = scenario_from_data(scene(x0))
    r = pile_in(scen, "A")
    assert kinds(r.moves[0]) == ["pivot", "line"]
    return scen, r


def _with_move(r: Ruling, **upd: Any) -> Ruling:
    data = r.model_dump(by_alias=True)
    data["moves"][0].update(upd)
    return Ruling.model_validate(data)


def _restart(r: Ruling, x0: float) -> Ruling:
    """The same turn and straight line, made from ``x0`` instead."""
    data = r.model_dump(by_alias=True)
    mv = data["moves"][0]
    pv, line = mv["segments"]
    pv["at"] = [x0, 15.0]
    line["from"] = [x0, 15.0]
    mv["from"] = [x0, 15.0, 0.0]
    mv["path"][0] = [x0, 15.0]
    mv["distance"] = (mv["to"][0] - x0) + pv["length"]
    return Ruling.model_validate(data)


def test_validator_pivot_length_short_by_0001_refused_5e7_accepted() -> None:
    scen, r = _pile_in_ruling(28.5)
    assert validate(scen, r) == []
    segs = copy.deepcopy(r.moves[0].segments)
    for off, bad in ((-1e-3, True), (-5e-7, False), (5e-7, False), (1e-3, True)):
        s2 = copy.deepcopy(segs)
        s2[0]["length"] = s2[0]["length"] + off
        got = codes(validate(scen, _with_move(r, segments=s2)))
        assert ("pivot_cost" in got) is bad, (off, got)


def test_validator_counts_the_turn_against_the_3_inches() -> None:
    """The same turn and line from 0.001" farther: 3.001" in all, over the move; 5e-7
    farther: within the contract tolerance."""
    scen0, r = _pile_in_ruling(X_STAR + 1e-3)
    for x0, over in ((X_STAR - 1e-3, True), (X_STAR - 5e-7, False)):
        scen = scenario_from_data(scene(x0))
        r2 = _restart(r, x0)
        got = codes(validate(scen, r2))
        assert ("over_budget" in got) is over, (x0, got)
        assert set(got) <= {"over_budget"}


def test_validator_refuses_a_sweep_through_the_wall() -> None:
    """The turn made 0.001" past the start where its sweep meets the wall's corner sweeps
    through the wall; 0.001" short of it, it does not."""
    _, r = _pile_in_ruling(28.5)
    for x0, blocked in ((X_SWEEP + 1e-3, True), (X_SWEEP - 1e-3, False)):
        scen = scenario_from_data(scene(x0))
        got = codes(validate(scen, _restart(r, x0)))
        assert ("pivot_blocked" in got) is blocked, (x0, got)
        if not blocked:
            assert got == []


def test_validator_wants_the_facing_the_pivot_leaves() -> None:
    scen, r = _pile_in_ruling(28.5)
    assert "facing_changed" in codes(validate(scen, _with_move(r, facing=0.0)))
    data = r.model_dump(by_alias=True)
    data["after"]["units"][0]["models"][0]["facing"] = 0.0
    assert "facing_changed" in codes(validate(scen, Ruling.model_validate(data)))
    # without its pivot piece the turned end is a facing changed for nothing
    segs = [sg for sg in r.moves[0].segments if sg["kind"] != "pivot"]
    got = codes(validate(scen, _with_move(r, segments=segs, distance=r.moves[0].distance - r.moves[0].segments[0]["length"])))
    assert "facing_changed" in got


def test_validator_refuses_a_pivot_in_the_middle() -> None:
    scen, r = _pile_in_ruling(28.5)
    pv, line = copy.deepcopy(r.moves[0].segments)
    a, b = line["from"], line["to"]
    mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]
    segs = [{"kind": "line", "from": a, "to": mid}, pv, {"kind": "line", "from": mid, "to": b}]
    assert "bad_pivot" in codes(validate(scen, _with_move(r, segments=segs)))


# --------------------------------------------------------------------------- failed charge


def failed_scene(gap_c: float) -> dict[str, Any]:
    """Edition 9: the rect charges B 10" away and fails; C, not a target, stands behind
    it, ``gap_c`` farther than 1" from where a quarter turn's sweep reaches (the sweep
    reaches R behind the centre, the base itself only half its depth)."""
    cx = 10.0 - R - 1.0 - R_T - gap_c
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": 9},
        "units": [
            {"id": "A", "player": 1, "keywords": ["VEHICLE"], "models": [{"id": "A1", "at": [10.0, 15.0], "base": {"rect": [W_RECT, D_RECT]}, "facing": 0.0}]},
            {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "B1", "at": [20.0, 15.0], "base": {"round": 32}}]},
            {"id": "C", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "C1", "at": [cx, 15.0], "base": {"round": 32}}]},
        ],
    }


def test_failed_charge_turn_may_not_sweep_into_a_non_targets_engagement_range() -> None:
    """The engine's test (the sweep against the move's barriers, the forbidden ranges
    among them): exactly 1" from C is within its engagement range, 1.001" is not."""
    from chargeref.systems.w40k.moves import failed_charge_rules
    from chargeref.systems.w40k.pivots import sweep_clear
    from chargeref.systems.w40k.settle import Settle
    from chargeref.systems.w40k.world import build_world

    for gap_c, clear in ((0.0, False), (1e-3, True)):
        w = build_world(scenario_from_data(failed_scene(gap_c)))
        st_ = Settle(w, "A", failed_charge_rules(w, "A", ["B"], 3.0))
        m = st_.by_id["A1"]
        assert sweep_clear(m, 90.0, st_.eng.barriers) is clear
        assert sweep_clear(m, -90.0, st_.eng.barriers) is clear


def _failed_with_turn(gap_c: float) -> tuple[Any, Ruling]:
    """The engine's failed-charge move, remade by hand with a quarter turn first and a
    straight line as long as the roll leaves."""
    scen = scenario_from_data(failed_scene(gap_c))
    r = find_system("40k").charge(scen, ChargeRequest("A", ("B",), roll=3))
    assert not r.success and r.procedure == "failed" and validate(scen, r) == []
    (mv,) = r.moves
    assert "pivot" not in kinds(mv)
    data = r.model_dump(by_alias=True)
    md = data["moves"][0]
    x1 = 10.0 + 3.0 - QUARTER - 0.01
    md.update({
        "to": [x1, 15.0, 0.0], "path": [[10.0, 15.0], [x1, 15.0]], "distance": x1 - 10.0 + QUARTER,
        "segments": [{"kind": "pivot", "at": [10.0, 15.0], "from": 0.0, "to": 90.0, "length": QUARTER},
                     {"kind": "line", "from": [10.0, 15.0], "to": [x1, 15.0]}],
        "facing": 90.0, "facing_from": 0.0,
    })
    for u in data["after"]["units"]:
        for m in u["models"]:
            if m["id"] == "A1":
                m["at"], m["facing"] = [x1, 15.0, 0.0], 90.0
    return scen, Ruling.model_validate(data)


def test_validator_failed_charge_sweep_1000_from_a_non_target_refused_1001_accepted() -> None:
    scen, r = _failed_with_turn(0.0)
    assert codes(validate(scen, r)) == ["pivot_in_er_of_non_target"]
    scen, r = _failed_with_turn(1e-3)
    assert validate(scen, r) == []


# --------------------------------------------------------------------------- a turn at the end


A_OV, B_OV = 30 / MM, 17.5 / MM  # a 60x35 mm oval's half axes


def end_scene() -> dict[str, Any]:
    """A 60x35 mm oval at (10, 15), its long axis across the way to T (round, its nearest
    point at x = 12); a short wall 0.025" behind it: too close for a turn at the start."""
    wx = 10.0 - B_OV - 0.05
    return {
        "format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
        "rules": {"edition": 10},
        "terrain": [{"type": "wall", "id": "P", "points": [[wx, 14.8], [wx, 15.2]], "thickness": 0.05, "height": 5,
                     "climbable": False}],
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"], "flags": ["charged"],
             "models": [{"id": "A1", "at": [10.0, 15.0], "base": {"oval": [60, 35]}, "facing": 90.0}]},
            {"id": "T", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "T1", "at": [12.0 + R_T, 15.0], "base": {"round": 32}}]},
        ],
    }


def test_a_turn_at_the_end_spot_when_the_start_is_too_tight() -> None:
    """With the wall behind it the oval cannot turn where it starts (its long axis would
    sweep through the wall); it can walk unturned to where a quarter turn ends with the
    end of its long axis on T, the sweep only touching T: the path then the turn, in
    closed form. (The unturned base reaches contact more cheaply, so the search keeps
    it; the turned end is built and recorded here directly.)"""
    import numpy as np

    from chargeref.systems.w40k.moves import fight_rules
    from chargeref.systems.w40k.pivots import sweep_clear
    from chargeref.systems.w40k.settle import Opts, Settle
    from chargeref.systems.w40k.settle_pivots import _turn_options, record_turned
    from chargeref.systems.w40k.world import build_world

    scen = scenario_from_data(end_scene())
    w = build_world(scen)
    st_ = Settle(w, "A", fight_rules(w, "A", "pile_in"))
    m = st_.by_id["A1"]
    assert not sweep_clear(m, -90.0, st_.eng.barriers)
    o = _turn_options(st_, m, -90.0, Opts)
    assert o is not None
    i = int(np.argmin(np.linalg.norm(o.pts - np.array([12.0 - A_OV, 15.0]), axis=1)))
    assert abs(o.pts[i][0] - (12.0 - A_OV)) <= 1e-6 and abs(o.pts[i][1] - 15.0) <= 1e-6
    pv = st_.poses["A1"][int(o.pose[i])]
    assert pv is not None and pv.kind == "end" and bool(o.contact[i])
    want = (12.0 - A_OV - 10.0) + A_OV * math.pi / 2
    assert o.cost[i] == pytest.approx(want, abs=1e-6)
    mv = record_turned(st_, m, pv, o.pts[i], 0.0, ["T1"], False)
    assert kinds(mv) == ["line", "pivot"] and mv.segments[-1]["at"] == mv.to[:2]
    assert mv.distance == pytest.approx(want, abs=1e-6) and mv.facing == 0.0 and mv.facing_from == 90.0
    # the engine's own ruling (unturned, straight into contact) remade with this move
    r = pile_in(scen, "A")
    assert "pivot" not in kinds(r.moves[0]) and r.moves[0].contacts == ["T1"]
    data = r.model_dump(by_alias=True)
    data["moves"] = [mv.model_dump(by_alias=True)]
    for u in data["after"]["units"]:
        for md in u["models"]:
            if md["id"] == "A1":
                md["at"], md["facing"] = list(mv.to), mv.facing
    assert validate(scen, Ruling.model_validate(data)) == []
    # the same turn made at the start instead sweeps through the wall
    data["moves"][0]["segments"] = [{**mv.segments[-1], "at": [10.0, 15.0]}, *mv.segments[:-1]]
    assert "pivot_blocked" in codes(validate(scen, Ruling.model_validate(data)))


@pytest.mark.parametrize("at", [(-1.2, 0.0), (0.0, 1.0)])
def test_a_mate_packs_against_the_turned_base_not_the_unturned_one(at: tuple[float, float]) -> None:
    """Two rects: the first turns into the slot and base contact; the second comes up
    beside it against the wall, touching the first as it stands turned (10 mm from its
    centre across, not 20 mm as unturned): overlaps and coherency see the turned base."""
    d = scene(28.5)
    m2 = {**d["units"][0]["models"][0], "id": "A2", "at": [28.5 + at[0], 15.0 + at[1]]}
    d["units"][0]["models"].append(m2)
    scen = scenario_from_data(d)
    r = pile_in(scen, "A")
    assert r.success and validate(scen, r) == []
    mv = {m.id: m for m in r.moves}
    assert mv["A1"].contacts == ["T1"] and kinds(mv["A1"]) == ["pivot", "line"]
    assert mv["A1"].distance == pytest.approx(CONTACT_X - 28.5 + QUARTER, abs=1e-6)
    side = 1.0 if at[1] > 0 else -1.0
    assert mv["A2"].facing is None
    assert mv["A2"].to[1] == pytest.approx(15.0 + side * (D_RECT / 2 + W_RECT / 2) / MM, abs=1e-5)


#: where the rect's front ends after a quarter turn and the rest of the 3" from x = 28
FRONT_28 = 28.0 + 3.0 - QUARTER + W_RECT / 2 / MM


@pytest.mark.parametrize("t_near", [30.7, FRONT_28 + 1.0 - 1e-3])
def test_a_turn_for_engagement_range_goes_as_far_as_the_move_leaves(t_near: float) -> None:
    """T more than 1" behind the wall's face: unturned, the rect cannot come within 1";
    turned a quarter it cannot reach base contact from x = 28 but goes the 3" less the
    turn into the slot, into engagement range (T 0.999" beyond that end, too)."""
    d = scene(28.0)
    d["units"][1]["models"][0]["at"] = [t_near + R_T, 15.0]
    scen = scenario_from_data(d)
    r = pile_in(scen, "A")
    (mv,) = r.moves
    assert mv.contacts == [] and kinds(mv) == ["pivot", "line"]
    assert mv.distance == pytest.approx(3.0, abs=1e-6)
    assert mv.to[0] == pytest.approx(28.0 + 3.0 - QUARTER, abs=1e-6)
    assert r.success and r.engaged == ["T"] and validate(scen, r) == []


def test_no_end_within_engagement_range_no_pile_in() -> None:
    """T 1.001" beyond the farthest turned end: no end is in range, so in edition 10 the
    unit does not pile in at all."""
    d = scene(28.0)
    d["units"][1]["models"][0]["at"] = [FRONT_28 + 1.0 + 1e-3 + R_T, 15.0]
    scen = scenario_from_data(d)
    r = pile_in(scen, "A")
    assert r.moves == [] and "not_engaged_after" in [x.code for x in r.reasons]
    assert validate(scen, r) == []
