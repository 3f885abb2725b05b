"""The 40k validator against hand-built scenarios and hand-built rulings.

Every rule is tried exactly at its threshold (legal) and just past it (illegal). The
rulings are written by hand, never produced by the solver, so these tests pin the
validator down on its own.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from chargeref.geometry.bases import base_footprint
from chargeref.geometry.shapes import signed_distance
from chargeref.ruling import Move, Needed, Roll, Ruling
from chargeref.scenario import Scenario40k, scenario_from_data
from chargeref.testing import assert_legal_charge
from chargeref.validate import validate_ruling
from chargeref.validate.w40k import unit_coherency, validate
from chargeref.validate.w40k_duty import locus_candidates

R32 = 16 / 25.4  # radius of a 32 mm base in inches
ER = 1.0


# --------------------------------------------------------------------------- builders


def model(
    mid: str, x: float, y: float, z: float | None = None, base: Any = None, facing: float = 90
) -> dict[str, Any]:
    at = [x, y] if z is None else [x, y, z]
    return {
        "id": mid,
        "at": at,
        "base": base if base is not None else {"round": 32},
        "facing": facing,
    }


def unit(
    uid: str,
    player: int,
    models: list[dict[str, Any]],
    keywords: tuple[str, ...] = ("INFANTRY",),
    **kw: Any,
) -> dict[str, Any]:
    return {"id": uid, "player": player, "keywords": list(keywords), "models": models, **kw}


def scenario(
    units: list[dict[str, Any]],
    terrain: list[dict[str, Any]] | None = None,
    edition: int = 9,
    wtc: bool | None = None,
    **kw: Any,
) -> dict[str, Any]:
    rules: dict[str, Any] = {"edition": edition}
    if wtc is not None:
        rules["wtc"] = wtc
    rules.update(kw.pop("rules", {}))
    return {
        "format": "chargeref/1",
        "system": "40k",
        "rules": rules,
        "unit": kw.pop("unit", "in"),
        "board": kw.pop("board", {"width": 60, "depth": 44}),
        "terrain": terrain or [],
        "units": units,
    }


def _length(pts: list[list[float]]) -> float:
    return sum(math.dist(pts[i][:2], pts[i + 1][:2]) for i in range(len(pts) - 1))


def ruling(
    data: dict[str, Any],
    moves: dict[str, list[float] | dict[str, Any]],
    *,
    total: int = 7,
    success: bool = True,
    charger: str = "A",
    targets: tuple[str, ...] = ("B",),
    procedure: str = "normal",
    engaged: list[str] | None = None,
    casualties: list[str] | None = None,
    needed: int | None = -1,
) -> tuple[Scenario40k, Ruling]:
    """A hand-made ruling: ``moves`` maps a model id to its end point, or to a dict with
    ``to`` and optionally ``path``, ``distance``, ``token``. ``after`` is derived."""
    before = scenario_from_data(copy.deepcopy(data))
    assert isinstance(before, Scenario40k)
    after = copy.deepcopy(data)
    where = {m["id"]: m for u in after["units"] for m in u["models"]}
    start = {m.id: m for u in before.units for m in u.models}
    dead = set(casualties or [])
    mv_list = []
    for mid, spec in moves.items():
        spec = {"to": spec} if isinstance(spec, list) else dict(spec)
        s = start[mid]
        frm = list(s.at)
        to = list(spec["to"])
        path = spec.get("path", [frm[:2], to[:2]])
        dist = spec.get("distance", _length(path))
        mv_list.append(
            Move.model_validate(
                {
                    "id": mid,
                    "from": frm,
                    "to": to,
                    "distance": dist,
                    "path": path,
                    "token": spec.get("token", False),
                }
            )
        )
        where[mid]["at"] = to
        if spec.get("token"):
            where[mid]["token"] = True
    for u in after["units"]:
        u["models"] = [m for m in u["models"] if m["id"] not in dead]
    dice = [1, total - 1] if total <= 7 else [6, total - 6]
    if total > 12:
        dice = [6, 6]
    roll = Roll(dice=dice, modifier=total - sum(dice), total=total)
    need = (total if success else total + 1) if needed == -1 else needed
    if need is not None and need > 13:
        need = None
    r = Ruling(
        system="40k",
        charger=charger,
        targets=list(targets),
        eligible=True,
        needed=Needed(distance=None, roll=need),
        roll=roll,
        success=success,
        procedure=procedure,
        moves=mv_list,
        engaged=list(targets)
        if engaged is None
        and success
        and procedure in ("normal", "wtc_walls", "heroic_intervention")
        else (engaged or []),
        details={"casualties": casualties} if casualties else {},
        after=after,
    )
    return before, r


def codes(before: Scenario40k, r: Ruling) -> list[str]:
    return [v.code for v in validate(before, r)]


def legal(before: Scenario40k, r: Ruling) -> None:
    assert_legal_charge(before, r)


# --------------------------------------------------------------------------- engagement range


def er_case(gap: float, total: int = 8, **kw: Any) -> tuple[Scenario40k, Ruling]:
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])], **kw
    )
    return ruling(data, {"A1": [20 - 2 * R32 - gap, 10]}, total=total)


def test_engagement_range_exactly_one_inch_is_in():
    before, r = er_case(1.000)
    legal(before, r)


def test_engagement_range_past_one_inch_is_out():
    before, r = er_case(1.001)
    assert "target_not_engaged" in codes(before, r)
    assert "engaged_mismatch" in codes(before, r)


def test_engagement_range_in_centimetres():
    # the same battlefield measured in cm: thresholds convert, bases stay in mm
    cm = 2.54
    data = scenario(
        [
            unit("A", 1, [model("A1", 10 * cm, 10 * cm)]),
            unit("B", 2, [model("B1", 20 * cm, 10 * cm)]),
        ],
        unit="cm",
        board={"width": 150, "depth": 110},
    )
    ok = ruling(data, {"A1": [(20 - 2 * R32 - 1.0) * cm, 10 * cm]}, total=8)
    legal(*ok)
    far = ruling(data, {"A1": [(20 - 2 * R32 - 1.001) * cm, 10 * cm]}, total=8)
    assert "target_not_engaged" in codes(*far)


def vertical_case(dz: float) -> tuple[Scenario40k, Ruling]:
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10, z=dz)])]
    )
    return ruling(data, {"A1": [20 - 2 * R32 - 0.5, 10]}, total=9)


def test_engagement_range_vertical_five_inches_is_in():
    legal(*vertical_case(5.0))


def test_engagement_range_vertical_past_five_inches_is_out():
    assert "target_not_engaged" in codes(*vertical_case(5.001))


def oval_case(gap: float) -> tuple[Scenario40k, Ruling]:
    # 170 x 109 mm oval facing up the page: its short semi-axis points along x
    b = 109 / 2 / 25.4
    data = scenario(
        [
            unit("A", 1, [model("A1", 20, 20)]),
            unit(
                "B",
                2,
                [model("B1", 30, 20, base={"oval": [170, 109]}, facing=90)],
                keywords=("MONSTER",),
            ),
        ]
    )
    return ruling(data, {"A1": [30 - b - R32 - gap, 20]}, total=8)


def test_oval_short_axis_exact():
    legal(*oval_case(1.0))
    assert "target_not_engaged" in codes(*oval_case(1.001))
    # a bounding circle (85 mm) would have said "far away" for the legal case
    b_long = 170 / 2 / 25.4
    assert 30 - (30 - 109 / 2 / 25.4 - R32 - 1.0) - R32 - b_long < 0


# --------------------------------------------------------------------------- coherency


def coherency_case(gap: float, dz: float = 0.0) -> tuple[Scenario40k, Ruling]:
    x1 = 20 - 2 * R32 - 1.0
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10), model("A2", x1, 10 - 2 * R32 - gap, z=dz or None)]),
            unit("B", 2, [model("B1", 20, 10)]),
        ]
    )
    return ruling(data, {"A1": [x1, 10]}, total=8)


def test_coherency_exactly_two_inches():
    legal(*coherency_case(2.000))


def test_coherency_past_two_inches():
    assert codes(*coherency_case(2.001)).count("not_coherent") >= 1


def test_coherency_vertical_five_inches():
    legal(*coherency_case(1.0, dz=5.0))
    assert "not_coherent" in codes(*coherency_case(1.0, dz=5.001))


def chain_case(n: int, edition: int) -> tuple[Scenario40k, Ruling]:
    step = 2 * R32 + 1.5  # each model 1.5" from the next: a chain, ends have one neighbour
    gap0 = 4.0
    ya, yb = 10.0, 10 + 2 * R32 + gap0
    a_models = [model(f"A{i}", 10 + i * step, ya) for i in range(n)]
    b_models = [model(f"B{i}", 10 + i * step, yb) for i in range(n)]
    data = scenario([unit("A", 1, a_models), unit("B", 2, b_models)], edition=edition, wtc=False)
    moves: dict[str, list[float] | dict[str, Any]] = {
        f"A{i}": [10 + i * step, ya + gap0 - ER] for i in range(n)
    }
    return ruling(data, moves, total=3)


def test_seven_models_need_two_neighbours_in_edition_10():
    found = validate(*chain_case(7, 10))
    assert {v.code for v in found} == {"not_coherent"}
    assert sorted(v.models for v in found) == [("A0",), ("A6",)]


def test_six_models_need_one_neighbour_in_edition_10():
    legal(*chain_case(6, 10))


def test_six_models_need_two_neighbours_in_edition_9():
    found = validate(*chain_case(6, 9))
    assert {v.code for v in found} == {"not_coherent"}
    assert sorted(v.models for v in found) == [("A0",), ("A5",)]


def test_two_separate_pairs_are_not_one_unit():
    # every model has a neighbour, but the unit is two groups
    pairs = [model("A1", 10, 10), model("A2", 11.5, 10), model("A3", 30, 10), model("A4", 31.5, 10)]
    before = scenario_from_data(scenario([unit("A", 1, pairs)], edition=10))
    assert isinstance(before, Scenario40k)
    found = unit_coherency(before, "A")
    assert [v.code for v in found] == ["not_coherent"]
    assert "2 groups" in found[0].message


def test_single_model_is_coherent():
    legal(*er_case(0.5, total=9))


# --------------------------------------------------------------------------- budget and paths


def budget_case(extra: float) -> tuple[Scenario40k, Ruling]:
    x_end = 20 - 2 * R32 - 1.0
    data = scenario(
        [unit("A", 1, [model("A1", x_end - 7 - extra, 10)]), unit("B", 2, [model("B1", 20, 10)])]
    )
    return ruling(data, {"A1": [x_end, 10]}, total=7)


def test_budget_exactly_equal():
    legal(*budget_case(0.0))


def test_budget_over_by_a_thousandth():
    assert codes(*budget_case(1e-3)) == ["over_budget"]


def test_distance_must_match_the_path():
    data = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])])
    x = 20 - 2 * R32 - 0.5
    before, r = ruling(data, {"A1": {"to": [x, 10], "distance": (x - 10) + 1e-4}}, total=9)
    assert codes(before, r) == ["distance_mismatch"]
    before, r = ruling(data, {"A1": {"to": [x, 10], "distance": (x - 10) + 1e-7}}, total=9)
    legal(before, r)


def test_path_must_start_and_end_at_the_move():
    data = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])])
    x = 20 - 2 * R32 - 0.5
    before, r = ruling(
        data, {"A1": {"to": [x, 10], "path": [[10, 10.1], [x, 10]], "distance": x - 10}}, total=8
    )
    assert "path_mismatch" in codes(before, r)


def test_detour_counts_its_whole_length():
    data = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 16, 10)])])
    x = 16 - 2 * R32 - 0.5
    path = [[10, 10], [12, 13], [x, 10]]
    before, r = ruling(data, {"A1": {"to": [x, 10], "path": path}}, total=8)
    legal(before, r)
    assert r.moves[0].distance > x - 10 + 1


def through_case(keywords: tuple[str, ...]) -> tuple[Scenario40k, Ruling]:
    # the target model stands between the charger and its end point
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)], keywords=keywords),
            unit("B", 2, [model("B1", 15, 10)]),
        ]
    )
    return ruling(data, {"A1": [15 + 2 * R32 + 0.5, 10]}, total=7)


def test_path_through_an_enemy_is_blocked():
    found = validate(*through_case(("INFANTRY",)))
    assert [v.code for v in found] == ["path_blocked"]
    assert found[0].models == ("A1", "B1")


def test_fly_passes_over_enemies():
    legal(*through_case(("INFANTRY", "FLY")))


def test_path_through_a_friend_is_allowed():
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10), model("A2", 12, 10)]),
            unit("B", 2, [model("B1", 20, 10)]),
        ]
    )
    # A1 runs straight through A2; A2 steps aside to stay in coherency
    x = 20 - 2 * R32 - 1.0
    legal(*ruling(data, {"A1": [x, 10], "A2": [x, 10 - 2 * R32 - 0.5]}, total=8))


def test_grazing_an_enemy_is_not_passing_through_it():
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 15, 10 + 2 * R32)])]
    )
    # the straight path along y=10 keeps the bases exactly tangent to B1
    before, r = ruling(data, {"A1": [15 + 2 * R32 + 0.5, 10]}, total=7)
    assert "path_blocked" not in codes(before, r)


# --------------------------------------------------------------------------- terrain


def ruin(height: float = 3.0, x: float = 15.0) -> dict[str, Any]:
    return {
        "type": "ruin",
        "id": "R",
        "footprint": [[x - 0.5, 4], [x + 4, 4], [x + 4, 16], [x - 0.5, 16]],
        "walls": [{"points": [[x, 5], [x, 15]], "height": height, "thickness": 0.2}],
    }


def wall_case(
    keywords: tuple[str, ...],
    distance: float | None = None,
    total: int = 7,
    height: float = 3.0,
    edition: int = 10,
) -> tuple[Scenario40k, Ruling]:
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)], keywords=keywords),
            unit("B", 2, [model("B1", 17 + 2 * R32 + 1.0, 10)]),
        ],
        terrain=[ruin(height)],
        edition=edition,
        wtc=False,
    )
    spec: dict[str, Any] = {"to": [17, 10]}
    if distance is not None:
        spec["distance"] = distance
    return ruling(data, {"A1": spec}, total=total)


def test_infantry_moves_through_ruin_walls_free():
    legal(*wall_case(("INFANTRY",)))


def test_monster_pays_twice_the_wall_height():
    found = codes(*wall_case(("MONSTER",)))
    assert sorted(found) == ["distance_mismatch", "over_budget"]
    legal(*wall_case(("MONSTER",), distance=7 + 6, total=13))


def test_low_ruin_wall_is_free_for_everyone():
    # 2" is the edition 10 threshold: a 2" wall is ignored, a 2.001" one is climbed
    legal(*wall_case(("VEHICLE",), height=2.0))
    assert "distance_mismatch" in codes(*wall_case(("VEHICLE",), height=2.001))
    # edition 9's threshold is 1"
    assert "distance_mismatch" in codes(*wall_case(("VEHICLE",), height=1.5, edition=9))


def test_ending_inside_a_ruin_wall():
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 15 + 2 * R32 + 0.9, 10)])],
        terrain=[ruin()],
    )
    before, r = ruling(data, {"A1": [15, 10]}, total=7)
    assert codes(before, r) == ["in_terrain"]
    # touching the wall face is fine
    before, r = ruling(data, {"A1": [15 - 0.1 - R32, 10]}, total=7)
    assert "in_terrain" not in codes(before, r)


def free_wall_case(climbable: bool, height: float) -> tuple[Scenario40k, Ruling]:
    terrain = [
        {
            "type": "wall",
            "id": "W",
            "points": [[15, 5], [15, 15]],
            "height": height,
            "thickness": 0.2,
            "climbable": climbable,
        }
    ]
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 17 + 2 * R32 + 1.0, 10)])],
        terrain=terrain,
        edition=10,
        wtc=False,
    )
    tall = height > 2.0
    return ruling(
        data, {"A1": {"to": [17, 10], "distance": 7 + (2 * height if tall else 0)}}, total=12
    )


def test_free_walls():
    # edition 10: 7" of path, plus 2 x height when the wall is taller than 2"
    assert codes(*free_wall_case(True, 2.5)) == []  # 7 + 5 = 12
    assert codes(*free_wall_case(True, 3.0)) == ["over_budget"]  # 7 + 6 = 13
    assert codes(*free_wall_case(False, 2.0)) == []  # low enough to step over
    assert "path_blocked" in codes(*free_wall_case(False, 2.5))


def test_impassable_terrain_blocks():
    terrain = [{"type": "impassable", "id": "X", "polygon": [[14, 8], [16, 8], [16, 12], [14, 12]]}]
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 17 + 2 * R32 + 1.0, 10)])],
        terrain=terrain,
    )
    before, r = ruling(data, {"A1": [17, 10]}, total=7)
    assert codes(before, r) == ["path_blocked"]
    # going round it is fine
    path = [[10, 10], [14 - R32, 12 + R32], [16 + R32, 12 + R32], [17, 10]]
    before, r = ruling(data, {"A1": {"to": [17, 10], "path": path}}, total=11)
    legal(before, r)


def test_barricades_and_obstacles():
    def case(kind: str, h: float, distance: float) -> tuple[Scenario40k, Ruling]:
        if kind == "barricade":
            t = {
                "type": "barricade",
                "id": "K",
                "points": [[15, 5], [15, 15]],
                "height": h,
                "thickness": 0.2,
            }
        else:
            t = {
                "type": "obstacle",
                "id": "K",
                "polygon": [[14.5, 5], [15.5, 5], [15.5, 15], [14.5, 15]],
                "height": h,
            }
        data = scenario(
            [
                unit("A", 1, [model("A1", 10, 10)]),
                unit("B", 2, [model("B1", 17 + 2 * R32 + 1.0, 10)]),
            ],
            terrain=[t],
        )
        return ruling(data, {"A1": {"to": [17, 10], "distance": distance}}, total=12)

    assert codes(*case("barricade", 1.0, 7)) == []  # edition 9: 1" is ignored
    assert codes(*case("barricade", 1.5, 10)) == []  # 7 + 2 x 1.5
    assert codes(*case("barricade", 1.5, 7)) == ["distance_mismatch"]
    assert codes(*case("obstacle", 1.5, 10)) == []


def test_ending_on_a_low_obstacle_is_fine_but_not_on_a_tall_one():
    def case(h: float) -> list[str]:
        t = {
            "type": "obstacle",
            "id": "K",
            "polygon": [[14, 5], [16, 5], [16, 15], [14, 15]],
            "height": h,
        }
        data = scenario(
            [
                unit("A", 1, [model("A1", 10, 10)]),
                unit("B", 2, [model("B1", 15 + 2 * R32 + 1.0, 10)]),
            ],
            terrain=[t],
        )
        return codes(
            *ruling(
                data, {"A1": {"to": [15, 10], "distance": 5 + (2 * h if h > 1 else 0)}}, total=12
            )
        )

    assert case(1.0) == []
    assert case(1.5) == ["in_terrain"]


def floor_case(keywords: tuple[str, ...], inset: float = 1.0) -> tuple[Scenario40k, Ruling]:
    terrain = [
        {
            "type": "ruin",
            "id": "R",
            "footprint": [[14, 4], [24, 4], [24, 16], [14, 16]],
            "floors": [{"polygon": [[14, 4], [24, 4], [24, 16], [14, 16]], "height": 3.0}],
        }
    ]
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)], keywords=keywords),
            unit("B", 2, [model("B1", 14 + inset + 2 * R32 + 0.5, 10, z=3.0)]),
        ],
        terrain=terrain,
    )
    x = 14 + inset
    return ruling(data, {"A1": {"to": [x, 10, 3.0], "distance": x - 10 + 3.0}}, total=8)


def test_infantry_may_end_on_a_floor_and_pays_the_climb():
    legal(*floor_case(("INFANTRY",)))


def test_vehicles_may_not_end_on_a_floor():
    assert codes(*floor_case(("VEHICLE",))) == ["illegal_floor"]


def test_a_base_hanging_off_a_floor_is_illegal():
    assert codes(*floor_case(("INFANTRY",), inset=R32)) == []
    assert codes(*floor_case(("INFANTRY",), inset=R32 - 1e-4)) == ["illegal_floor"]


def test_standing_on_a_hill_is_ground_level():
    terrain = [
        {
            "type": "hill",
            "id": "H",
            "polygon": [[14, 4], [24, 4], [24, 16], [14, 16]],
            "height": 6.0,
        }
    ]
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 17 + 2 * R32 + 1.0, 10)])],
        terrain=terrain,
    )
    # hills are free: only z changes, and both models stand on it
    legal(*ruling(data, {"A1": [17, 10]}, total=7))
    # a target at the hill's foot is 6" below the charger: out of engagement range
    data["units"][1]["models"][0]["at"] = [14 - 2 * R32 - 0.5, 10]
    data["units"][0]["models"][0]["at"] = [14.5, 14]
    assert codes(*ruling(data, {"A1": [14.0 + 1e-3, 10]}, total=7)) == [
        "target_not_engaged",
        "engaged_mismatch",
    ]


# --------------------------------------------------------------------------- overlap and board


def overlap_case(dist: float) -> tuple[Scenario40k, Ruling]:
    x = 20 - 2 * R32 - 1.0
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10), model("A2", 10, 12)]),
            unit("B", 2, [model("B1", 20, 10), model("B2", 20, 12)]),
        ]
    )
    return ruling(data, {"A1": [x, 10], "A2": [x, 10 + dist]}, total=8)


def test_touching_bases_do_not_overlap():
    legal(*overlap_case(2 * R32))


def test_overlap_by_a_hundred_thousandth():
    found = validate(*overlap_case(2 * R32 - 1e-5))
    assert [v.code for v in found] == ["overlap"]
    assert found[0].models == ("A1", "A2")


def test_off_board():
    # A1 runs down to the bottom edge; B1 waits beside its end point
    data = scenario(
        [unit("A", 1, [model("A1", 5, 10)]), unit("B", 2, [model("B1", 5 + 2 * R32 + 0.8, R32)])]
    )
    before, r = ruling(data, {"A1": [5, R32 - 0.2]}, total=12)
    assert codes(before, r) == ["off_board"]
    legal(*ruling(data, {"A1": [5, R32]}, total=12))


# --------------------------------------------------------------------------- unit rules


def test_non_target_in_engagement_range():
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)]),
            unit("B", 2, [model("B1", 20, 10)]),
            unit("C", 2, [model("C1", 20 - 2 * R32 - 1.0, 10 + 2 * R32 + 1.0)]),
        ]
    )
    before, r = ruling(data, {"A1": [20 - 2 * R32 - 1.0, 10]}, total=8)
    found = validate(before, r)
    assert "non_target_engaged" in [v.code for v in found]
    assert any(v.models == ("A1", "C1") for v in found)
    # 1.001" away it is fine
    data["units"][2]["models"][0]["at"] = [20 - 2 * R32 - 1.0, 10 + 2 * R32 + 1.001]
    legal(*ruling(data, {"A1": [20 - 2 * R32 - 1.0, 10]}, total=8))


def test_every_model_must_end_closer_in_edition_10():
    units = [
        unit("A", 1, [model("A1", 10, 10), model("A2", 12.5, 11.8)]),
        unit("B", 2, [model("B1", 16, 10)]),
    ]
    x = 16 - 2 * R32 - 1.0
    data = scenario(units, edition=10, wtc=False)
    # A2 stays where it is: still coherent with A1, but not closer to B
    found = validate(*ruling(data, {"A1": [x, 10]}, total=7))
    assert [(v.code, v.models) for v in found] == [("not_closer", ("A2",))]
    legal(*ruling(data, {"A1": [x, 10], "A2": [12.6, 11.8]}, total=7))
    # edition 9 has no such rule
    legal(*ruling(scenario(units, edition=9), {"A1": [x, 10]}, total=7))


def test_wtc_missed_base_contact():
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10), model("A2", 10, 12)]),
            unit("B", 2, [model("B1", 16, 10), model("B2", 16, 12)]),
        ],
        edition=10,
    )
    x_contact = 16 - 2 * R32
    x_er = 16 - 2 * R32 - 1.0
    found = validate(*ruling(data, {"A1": [x_contact, 10], "A2": [x_er, 12]}, total=7))
    assert [v.code for v in found] == ["missed_base_contact"]
    assert found[0].models[0] == "A2"
    spot, tid = found[0].witness["spot"], found[0].witness["target"]
    t_at = {"B1": (16, 10), "B2": (16, 12)}[tid]
    tb = base_footprint("round", 32, t_at, 90, 25.4)
    a2 = base_footprint("round", 32, spot, 90, 25.4)
    assert abs(signed_distance(a2, tb)) < 1e-9
    legal(*ruling(data, {"A1": [x_contact, 10], "A2": [x_contact, 12]}, total=7))


def test_wtc_contact_out_of_reach_is_not_owed():
    # the roll reaches engagement range but not base contact
    x_er = 16 - 2 * R32 - 1.0
    data = scenario(
        [unit("A", 1, [model("A1", x_er - 5, 10)]), unit("B", 2, [model("B1", 16, 10)])], edition=10
    )
    legal(*ruling(data, {"A1": [x_er, 10]}, total=5))
    # one more inch and contact was owed
    assert codes(*ruling(data, {"A1": [x_er, 10]}, total=6, needed=5)) == ["missed_base_contact"]


def chain_contact_case(total: int) -> tuple[Scenario40k, Ruling]:
    """B1 <- A1 (contact) <- A2 (1.9" behind) <- A3 (2" behind A2), in a line.

    A2 could reach contact with B1, but every contact spot leaves A3 without a
    neighbour: the unit conditions (step 6.C) override its contact duty. A3 could join
    B1 without breaking anything once the roll reaches its nearest free contact spot,
    60 degrees round B1 from A1 (9.11" away).
    """
    bx = 30.0
    a1 = bx - 2 * R32
    a2 = a1 - 2 * R32 - 1.9
    a3 = a2 - 2 * R32 - 2.0
    data = scenario(
        [
            unit(
                "A", 1, [model("A1", a1 - 7, 12), model("A2", a2 - 3, 10), model("A3", a3 - 2, 10)]
            ),
            unit("B", 2, [model("B1", bx, 10)]),
        ],
        edition=10,
    )
    return ruling(data, {"A1": [a1, 10], "A2": [a2, 10], "A3": [a3, 10]}, total=total)


def test_wtc_contact_that_breaks_coherency_is_not_owed():
    legal(*chain_contact_case(8))
    legal(*chain_contact_case(9))


def test_wtc_contact_owed_when_it_keeps_the_unit_whole():
    found = validate(*chain_contact_case(10))
    assert [(v.code, v.models[0]) for v in found] == [("missed_base_contact", "A3")]


def test_failed_charge_moves_nobody_in_edition_10():
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])], edition=10
    )
    before, r = ruling(data, {}, total=3, success=False, procedure="failed")
    legal(before, r)
    before, r = ruling(data, {"A1": [12, 10]}, total=3, success=False, procedure="failed")
    assert "moved_on_failure" in codes(before, r)


def test_failed_charge_moves_in_edition_9():
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])], edition=9
    )
    legal(*ruling(data, {"A1": [13, 10]}, total=3, success=False, procedure="failed"))
    assert "not_closer" in codes(
        *ruling(data, {"A1": [10, 13]}, total=3, success=False, procedure="failed")
    )
    assert "over_budget" in codes(
        *ruling(data, {"A1": [13.5, 10]}, total=3, success=False, procedure="failed")
    )
    # the switch off: nobody moves
    off = scenario(data["units"], edition=9, rules={"failed_charge_moves": False})
    assert "moved_on_failure" in codes(
        *ruling(off, {"A1": [13, 10]}, total=3, success=False, procedure="failed")
    )


def test_failed_charge_may_not_end_in_engagement_range():
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])], edition=9
    )
    found = codes(
        *ruling(
            data,
            {"A1": [20 - 2 * R32 - 1.0, 10]},
            total=8,
            success=False,
            procedure="failed",
            needed=9,
        )
    )
    assert "engaged_on_failure" in found


def test_roll_and_verdict_must_agree():
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])], edition=10
    )
    # fails although its own least roll is met
    assert "roll_inconsistent" in codes(
        *ruling(data, {}, total=8, success=False, procedure="failed", needed=8)
    )
    # succeeds below its own least roll
    x = 20 - 2 * R32
    assert "roll_inconsistent" in codes(*ruling(data, {"A1": [x, 10]}, total=8, needed=9))


def test_ineligible_charger():
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)], flags=["advanced"]),
            unit("B", 2, [model("B1", 20, 10)]),
        ]
    )
    assert "ineligible" in codes(*er_case_from(data))
    far = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 24, 10)])])
    assert "ineligible" in codes(*ruling(far, {"A1": [24 - 2 * R32 - 1, 10]}, total=12))


def er_case_from(data: dict[str, Any]) -> tuple[Scenario40k, Ruling]:
    return ruling(data, {"A1": [20 - 2 * R32 - 1.0, 10]}, total=8)


# --------------------------------------------------------------------------- after


def test_after_must_match_the_moves():
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10), model("A2", 10, 11.5)]),
            unit("B", 2, [model("B1", 20, 10)]),
        ]
    )
    x = 20 - 2 * R32 - 1.0
    before, r = ruling(data, {"A1": [x, 10], "A2": [x, 11.5]}, total=8)
    legal(before, r)
    assert r.after is not None
    bad = copy.deepcopy(r.after)
    bad["units"][0]["models"][0]["at"] = [x - 0.1, 10]
    assert "after_mismatch" in codes(before, r.model_copy(update={"after": bad}))
    bad = copy.deepcopy(r.after)
    bad["units"][1]["models"][0]["at"] = [21, 10]
    assert "after_mismatch" in codes(before, r.model_copy(update={"after": bad}))
    bad = copy.deepcopy(r.after)
    del bad["units"][0]["models"][1]
    assert "after_mismatch" in codes(before, r.model_copy(update={"after": bad}))


def test_casualties_leave_the_board():
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10), model("A2", 10, 11.5)]),
            unit("B", 2, [model("B1", 20, 10)]),
        ]
    )
    x = 20 - 2 * R32 - 1.0
    before, r = ruling(data, {"A1": [x, 10]}, total=8, casualties=["A2"])
    legal(before, r)
    # without the casualty list the missing model is a mismatch
    r2 = r.model_copy(update={"details": {}})
    assert "after_mismatch" in codes(before, r2)


def test_moves_of_other_units_are_refused():
    data = scenario([unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])])
    before, r = ruling(data, {"A1": [20 - 2 * R32 - 1.0, 10], "B1": [21, 10]}, total=8)
    assert "foreign_move" in codes(before, r)


def test_oval_keeps_its_facing():
    data = scenario(
        [
            unit(
                "A",
                1,
                [model("A1", 10, 10, base={"oval": [60, 35]}, facing=0)],
                keywords=("CAVALRY",),
            ),
            unit("B", 2, [model("B1", 20, 10)]),
        ]
    )
    # facing 0: the long semi-axis (30 mm) points at B1
    x = 20 - R32 - 30 / 25.4 - 1.0
    before, r = ruling(data, {"A1": [x, 10]}, total=8)
    legal(before, r)
    turned = copy.deepcopy(r.after)
    assert turned is not None
    turned["units"][0]["models"][0]["facing"] = 90
    assert "facing_changed" in codes(before, r.model_copy(update={"after": turned}))


# --------------------------------------------------------------------------- heroic intervention


def hi_data(gap: float = 2.5) -> dict[str, Any]:
    return scenario(
        [
            unit("H", 2, [model("H1", 20 + 2 * R32 + gap, 10)], keywords=("INFANTRY", "CHARACTER")),
            unit("A", 1, [model("A1", 20, 10)]),
        ],
        edition=9,
    )


def test_heroic_intervention():
    data = hi_data()
    before, r = ruling(
        data,
        {"H1": [20 + 2 * R32, 10]},
        charger="H",
        targets=(),
        procedure="heroic_intervention",
        engaged=["A"],
        needed=None,
    )
    legal(before, r)
    # 3.001" is over the heroic budget
    data = hi_data(2.5)
    data["units"][0]["models"][0]["at"] = [20 + 2 * R32 + 3.001, 10]
    found = codes(
        *ruling(
            data,
            {"H1": [20 + 2 * R32, 10]},
            charger="H",
            targets=(),
            procedure="heroic_intervention",
            engaged=["A"],
            needed=None,
        )
    )
    assert "over_budget" in found and "hi_ineligible" in found


def test_heroic_intervention_must_end_closer():
    data = hi_data()
    found = codes(
        *ruling(
            data,
            {"H1": [20 + 2 * R32 + 2.5, 12]},
            charger="H",
            targets=(),
            procedure="heroic_intervention",
            needed=None,
        )
    )
    assert "not_closer" in found


def test_heroic_intervention_needs_a_character_in_edition_9():
    data = hi_data()
    data["units"][0]["keywords"] = ["INFANTRY"]
    found = codes(
        *ruling(
            data,
            {"H1": [20 + 2 * R32, 10]},
            charger="H",
            targets=(),
            procedure="heroic_intervention",
            engaged=["A"],
            needed=None,
        )
    )
    assert found == ["hi_ineligible"]


def test_heroic_intervention_in_edition_10_is_a_charge():
    # edition 10's heroic intervention is a stratagem charge: the roll is the budget, and
    # its target must be within 6"
    data = scenario(
        [unit("H", 2, [model("H1", 30, 10)]), unit("A", 1, [model("A1", 30 - 2 * R32 - 5.5, 10)])],
        edition=10,
        wtc=False,
    )
    x = 30 - 2 * R32 - 5.5 + 2 * R32 + 1.0
    legal(
        *ruling(
            data,
            {"H1": [x, 10]},
            charger="H",
            targets=("A",),
            procedure="heroic_intervention",
            total=5,
        )
    )
    data["units"][1]["models"][0]["at"] = [30 - 2 * R32 - 6.1, 10]
    found = codes(
        *ruling(
            data,
            {"H1": [x - 0.6, 10]},
            charger="H",
            targets=("A",),
            procedure="heroic_intervention",
            total=6,
        )
    )
    assert found == ["ineligible"]


# --------------------------------------------------------------------------- plumbing


def test_contact_candidates_are_exact_for_ovals_and_rectangles():
    """Every constructed candidate on a contact locus really touches the target."""
    target = base_footprint("oval", [170, 109], (30, 20), 37, 25.4)
    friend = base_footprint("round", 40, (24, 24), 0, 25.4)
    wall = base_footprint("rect", [50, 25], (36, 16), 20, 25.4)
    for base in (("round", 32), ("oval", [60, 35]), ("rect", [25, 50])):
        mover = base_footprint(base[0], base[1], (20, 12), 10, 25.4)
        cands = locus_candidates(mover, target, 0.0, 12.0, [(friend, 2.0), (wall, 0.0)], [(0, 0.5), (1, 23.5)])
        assert len(cands) >= 3
        for q in cands:
            assert abs(signed_distance(mover.moved_to(q), target)) < 1e-7


def test_dispatch_and_json_rulings():
    before, r = er_case(1.0)
    r = r.model_copy(update={"needed": Needed(distance=7.74, roll=8)})
    assert validate_ruling(before, r.to_json_data()) == []


@pytest.mark.parametrize("gap", [1.0, 1.001])
def test_violation_strings_name_models(gap: float):
    before, r = er_case(gap)
    for v in validate(before, r):
        assert v.code in str(v)


def test_rectangular_base_measured_exactly():
    # 25 x 50 mm facing +x: the 50 mm depth lies along x, so the half-depth is 25 mm
    def case(gap: float) -> tuple[Scenario40k, Ruling]:
        data = scenario(
            [
                unit(
                    "A",
                    1,
                    [model("A1", 10, 10, base={"rect": [25, 50]}, facing=0)],
                    keywords=("CAVALRY",),
                ),
                unit("B", 2, [model("B1", 20, 10)]),
            ]
        )
        return ruling(data, {"A1": [20 - R32 - 25 / 25.4 - gap, 10]}, total=8)

    legal(*case(1.0))
    assert "target_not_engaged" in codes(*case(1.001))


def test_token_models_engage_targets_at_two_inches_only_across_a_ruin_wall():
    x = 20 - 2 * R32 - 2.0
    wall_x = x + R32 + 0.1  # a 0.2" ruin wall touching A1's base, between A1 and B1
    a = unit("A", 1, [model("A1", 10, 10)])
    a["token_targets"] = ["B"]
    walled = scenario(
        [a, unit("B", 2, [model("B1", 20, 10)])],
        edition=10,
        terrain=[{"type": "ruin", "id": "R", "footprint": [[wall_x - 0.1, 5], [25, 5], [25, 15], [wall_x - 0.1, 15]],
                  "walls": [{"points": [[wall_x, 5], [wall_x, 15]], "height": 5, "thickness": 0.2}]}],
    )
    legal(*ruling(walled, {"A1": {"to": [x, 10], "token": True}}, total=7, procedure="wtc_walls"))
    # the same 2" with no wall in between: the token does not reach
    bare = scenario([a, unit("B", 2, [model("B1", 20, 10)])], edition=10)
    assert "target_not_engaged" in codes(*ruling(bare, {"A1": {"to": [x, 10], "token": True}}, total=7, procedure="wtc_walls"))
    # and without a token 2" is just out of range
    assert "target_not_engaged" in codes(*ruling(bare, {"A1": [x, 10]}, total=7))


def barricade_case(behind: float, short: float = 0.0) -> tuple[Scenario40k, Ruling]:
    """A 2" barricade along x = 15 (0.2" thick). B1 waits ``behind`` inches behind its
    far face; A1 charges to ``short`` inches short of its near face."""
    bx = 15.1 + R32 + behind
    terrain = [{"type": "barricade", "id": "K", "points": [[15, 5], [15, 15]], "height": 2.0}]
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)], keywords=("MONSTER",)),
            unit("B", 2, [model("B1", bx, 10)]),
        ],
        terrain=terrain,
    )
    return ruling(data, {"A1": {"to": [14.9 - R32 - short, 10]}}, total=7)


def test_engaging_across_a_barricade_at_two_inches():
    # touching the barricade, 1.1" from B1 straight across it: engaged across it
    legal(*barricade_case(0.9))
    # B1 more than 1" behind the barricade: the barricade rule does not apply
    assert "target_not_engaged" in codes(*barricade_case(1.05))
    # A1 not touching the barricade
    assert "target_not_engaged" in codes(*barricade_case(0.9, short=0.01))
