"""The validator checks the whole recorded path: engagement range of non-targets along
the way (editions 9 and 10, not 11), moving through models by edition, FLY, and exact
arcs in ``moves[].segments``."""

from __future__ import annotations

import math

from test_validate import R32, codes, model, ruling, scenario, unit


def passing_case(gap: float, edition: int = 9):
    """A1 charges B1 straight along y = 10; C1 (not a target) stands beside the line,
    ``gap`` inches from the moving base's nearest approach."""
    cy = 10 + 2 * R32 + gap
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)]),
            unit("B", 2, [model("B1", 20, 10)]),
            unit("C", 2, [model("C1", 15, cy)]),
        ],
        edition=edition,
    )
    return ruling(data, {"A1": [20 - 2 * R32, 10]}, total=9)


def test_non_target_at_exactly_one_inch_from_the_path_is_refused():
    before, r = passing_case(1.000)
    assert "path_in_er_of_non_target" in codes(before, r)


def test_non_target_a_thousandth_past_one_inch_is_accepted():
    before, r = passing_case(1.001)
    assert "path_in_er_of_non_target" not in codes(before, r)


def test_edition_10_also_forbids_it_on_the_path():
    before, r = passing_case(0.5, edition=10)
    assert "path_in_er_of_non_target" in codes(before, r)


def crossing_case(edition: int, mover_kw=("INFANTRY",), friend_kw=("INFANTRY",), fly=False):
    """A1 moves straight through friendly model F1 (another unit) to reach B1."""
    kw = tuple(mover_kw) + (("FLY",) if fly else ())
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)], keywords=kw),
            unit("F", 1, [model("F1", 14, 10)], keywords=tuple(friend_kw)),
            unit("B", 2, [model("B1", 20, 10)]),
        ],
        edition=edition,
    )
    return ruling(data, {"A1": [20 - 2 * R32, 10]}, total=9)


def test_edition_9_refuses_crossing_a_friend():
    before, r = crossing_case(9)
    assert "path_crosses_model" in codes(before, r)


def test_edition_10_lets_infantry_cross_a_friend():
    before, r = crossing_case(10)
    assert "path_crosses_model" not in codes(before, r)


def test_edition_10_refuses_a_monster_through_a_friendly_vehicle():
    before, r = crossing_case(10, mover_kw=("MONSTER",), friend_kw=("VEHICLE",))
    assert "path_crosses_model" in codes(before, r)


def test_edition_10_lets_a_monster_through_friendly_infantry():
    before, r = crossing_case(10, mover_kw=("MONSTER",), friend_kw=("INFANTRY",))
    assert "path_crosses_model" not in codes(before, r)


def test_fly_passes_over_a_friend_in_edition_9():
    before, r = crossing_case(9, fly=True)
    assert "path_crosses_model" not in codes(before, r)


def test_friend_just_beside_the_path_is_not_crossed():
    # F1's base touches the moving base's sweep exactly: touching is not crossing
    data = scenario(
        [
            unit("A", 1, [model("A1", 10, 10)]),
            unit("F", 1, [model("F1", 14, 10 + 2 * R32)]),
            unit("B", 2, [model("B1", 20, 10)]),
        ],
        edition=9,
    )
    before, r = ruling(data, {"A1": [20 - 2 * R32, 10]}, total=9)
    assert "path_crosses_model" not in codes(before, r)


def test_arc_segments_are_measured_exactly_and_must_join_up():
    # a detour: line up, a quarter arc of radius 1 round (12, 10), line on
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])], edition=9
    )
    end = [20 - 2 * R32, 10]
    segs = [
        {"kind": "line", "from": [10, 10], "to": [12, 9]},
        {"kind": "arc", "center": [12, 10], "radius": 1.0, "from": [12, 9], "to": [13, 10], "ccw": True},
        {"kind": "line", "from": [13, 10], "to": end},
    ]
    length = math.dist((10, 10), (12, 9)) + math.pi / 2 + math.dist((13, 10), end)
    before, r = ruling(data, {"A1": {"to": end, "path": [[10, 10], [12, 9], [13, 10], end], "distance": length}}, total=9)
    r.moves[0].segments = segs
    assert "distance_mismatch" not in codes(before, r)
    # the same arc taken the long way round is 3/2 pi long
    segs_cw = [dict(s) for s in segs]
    segs_cw[1] = dict(segs[1], ccw=False)
    r.moves[0].segments = segs_cw
    assert "distance_mismatch" in codes(before, r)
    # a gap between pieces is refused
    bad = [dict(s) for s in segs]
    bad[2] = dict(segs[2], **{"from": [13, 10.01]})
    r.moves[0].segments = bad
    assert "path_mismatch" in codes(before, r)


def detour_duty_case(total: int):
    """Edition 10 (WTC): A1 ends in engagement range of B1 behind a rock, having gone
    round it. Base contact with B1 is reachable only round the rock (the shortest such
    path is about 9.33"), never in a straight line."""
    a = math.radians(150)
    end = [20 + (2 * R32 + 1.0) * math.cos(a), 10 + (2 * R32 + 1.0) * math.sin(a)]
    data = scenario(
        [unit("A", 1, [model("A1", 10, 10)]), unit("B", 2, [model("B1", 20, 10)])],
        terrain=[{"type": "impassable", "id": "R", "polygon": [[15, 9], [16, 9], [16, 11], [15, 11]]}],
        edition=10,
    )
    return ruling(data, {"A1": {"to": end, "path": [[10, 10], [15.5, 11.9], end]}}, total=total)


def test_base_contact_duty_follows_the_real_path_round_terrain():
    before, r = detour_duty_case(10)
    assert codes(before, r) == ["missed_base_contact"]


def test_base_contact_round_terrain_out_of_reach_is_not_owed():
    before, r = detour_duty_case(9)
    assert codes(before, r) == []


def test_edition_11_lifts_the_rule_through_the_editions_table():
    """The switch is read from systems/w40k/editions.py: the same path judged with
    edition 11's row passes (only the end of the move counts there)."""
    from chargeref.systems.w40k.editions import EDITIONS
    from chargeref.validate.w40k import _build
    from chargeref.validate.w40k_path import check_whole_paths

    assert EDITIONS[11].non_target_er_on_path is False
    before, r = passing_case(0.5, edition=10)
    ctx, _ = _build(before, r)
    assert [v.code for v in check_whole_paths(ctx)] == ["path_in_er_of_non_target"]
    ctx.edition = 11
    assert check_whole_paths(ctx) == []
