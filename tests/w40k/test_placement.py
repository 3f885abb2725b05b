"""The 40k placement engine against closed forms and at every rule threshold.

Each scenario has a hand-computed least move. ``needed.distance`` must equal it within
1e-6 (or, for a path that wraps a base, within the path planner's stated bound until the
planner returns exact arcs), ``needed.roll`` is its ceiling, and every ruling passes the
independent validator.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.paths import PathResult
from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.testing import assert_legal_charge

MM = 25.4
R32 = 16 / MM
S = find_system("40k")
FAST = settings(max_examples=6, deadline=None, derandomize=True)


def unit(uid: str, player: int, pts: list[tuple[float, float]], kw: tuple[str, ...] = ("INFANTRY",), base: float = 32) -> dict[str, Any]:
    return {"id": uid, "player": player, "keywords": list(kw),
            "models": [{"id": f"{uid}{i + 1}", "at": [float(x), float(y)], "base": {"round": base}} for i, (x, y) in enumerate(pts)]}


def scen(units: list[dict[str, Any]], edition: int, board: tuple[float, float] = (60.0, 44.0)) -> dict[str, Any]:
    return {"format": "chargeref/1", "system": "40k", "rules": {"edition": edition},
            "board": {"width": board[0], "depth": board[1]}, "units": units}


def needed(data: dict[str, Any], targets: tuple[str, ...] = ("B",)) -> Any:
    return S.needed(scenario_from_data(data), ChargeRequest(charger="A", targets=targets, dice=(1, 1)))


def charge(data: dict[str, Any], roll: int, targets: tuple[str, ...] = ("B",)) -> Any:
    sc = scenario_from_data(data)
    r = S.charge(sc, ChargeRequest(charger="A", targets=targets, roll=roll))
    assert_legal_charge(sc, r)
    return r


def ceil_roll(d: float) -> int:
    return max(1, math.ceil(d - 1e-6))


def transform(data: dict[str, Any], theta: float, mirror: bool, centre: tuple[float, float] = (30.0, 22.0)) -> dict[str, Any]:
    """The same battlefield turned by theta about ``centre`` (and mirrored first)."""
    out = copy.deepcopy(data)
    c, s = math.cos(theta), math.sin(theta)
    for u in out["units"]:
        for m in u["models"]:
            x, y = m["at"][0] - centre[0], m["at"][1] - centre[1]
            if mirror:
                x = -x
            m["at"] = [centre[0] + c * x - s * y, centre[1] + s * x + c * y]
    return out


# --------------------------------------------------------------------------- coherency at exactly 2"


def two_model_line(g: float, edition: int = 10, bx: float = 28.3) -> tuple[dict[str, Any], float]:
    """A1 in front, A2 behind it on the line to B1 with a gap of 2 + g. A1 must move
    D1 = gap(A1, B1) - 1" to engage; A2 must end within 2" of A1, so it moves D1 + g."""
    a1 = (20.0, 22.0)
    b1 = (bx, 22.0)
    a2 = (a1[0] - (2 * R32 + 2.0 + g), 22.0)
    d1 = (b1[0] - a1[0]) - 2 * R32 - 1.0
    return scen([unit("A", 1, [a1, a2]), unit("B", 2, [b1])], edition), d1 + g


@pytest.mark.parametrize("edition", [9, 10])
@pytest.mark.parametrize("g", [0.0, 0.37, 0.8])
def test_two_models_keep_coherency_at_exactly_two_inches(edition: int, g: float) -> None:
    data, want = two_model_line(g, edition)
    n = needed(data)
    assert n.distance == pytest.approx(want, abs=1e-6)
    assert n.roll == ceil_roll(want)
    r = charge(data, n.roll)
    assert r.success
    a1, a2 = (np.array(m.to[:2]) for m in r.moves)
    assert float(np.hypot(*(a1 - a2))) - 2 * R32 <= 2.0 + 1e-6


def test_roll_is_the_ceiling_at_the_integer_edge() -> None:
    # D1 + g exactly 6.000 needs a 6; 6.001 needs a 7
    d1 = (27.5 - 20.0) - 2 * R32 - 1.0
    data, want = two_model_line(6.0 - d1, bx=27.5)
    assert want == pytest.approx(6.0, abs=1e-12)
    assert needed(data).roll == 6
    data, want = two_model_line(6.001 - d1, bx=27.5)
    assert needed(data).roll == 7
    assert not charge(data, 6).success
    assert charge(data, 7).success


@FAST
@given(st.floats(0, 2 * math.pi), st.booleans())
@example(0.0, True)
@example(1.234567, False)
def test_coherency_case_turned_and_mirrored(theta: float, mirror: bool) -> None:
    data, want = two_model_line(0.37)
    n = needed(transform(data, theta, mirror))
    assert n.distance == pytest.approx(want, abs=1e-6)
    assert n.roll == ceil_roll(want)


# --------------------------------------------------------------------------- seven models, two links each


def seven_in_a_row(edition: int = 10) -> tuple[dict[str, Any], float]:
    """Seven 32 mm models in a slanted row (0.2" apart, so each links to two on each
    side) behind a wide target line. The unit must engage; the closest model must move
    its gap minus 1"; the row moved as one body by that much keeps every link, so that
    is the least move (nobody needs more than the closest model's straight move)."""
    pts = [(14.0 + i * (2 * R32 + 0.2), 10.0 + 0.15 * i) for i in range(7)]
    b = [(10.0 + i * 2 * R32, 16.5) for i in range(16)]
    closest = min(math.hypot(bx - x, by - y) for x, y in pts for bx, by in b) - 2 * R32 - 1.0
    return scen([unit("A", 1, pts), unit("B", 2, b)], edition), closest


def test_seven_models_with_two_links_each_edition_10() -> None:
    data, want = seven_in_a_row(10)
    n = needed(data)
    assert n.distance == pytest.approx(want, abs=1e-6)
    assert n.roll == ceil_roll(want) and n.exact
    r = charge(data, n.roll)
    assert r.success


@FAST
@given(st.floats(0, 2 * math.pi), st.booleans())
@example(0.7, True)
def test_seven_models_turned_and_mirrored(theta: float, mirror: bool) -> None:
    data, want = seven_in_a_row(10)
    n = needed(transform(data, theta, mirror))
    assert n.distance == pytest.approx(want, abs=1e-6)


# --------------------------------------------------------------------------- wrapping round a base


def past_one_base(kind: str, edition: int, mover_kw: tuple[str, ...] = ("INFANTRY",), friend_kw: tuple[str, ...] = ("INFANTRY",),
                  fx: float = 24.0) -> dict[str, Any]:
    """A1 charges B1 straight along y = 22; a friendly model F1 (another unit) of the
    same base sits on the line (half way unless ``fx`` says otherwise)."""
    a1, f1, b1 = (20.0, 22.0), (fx, 22.0), (28.0, 22.0)
    return scen([unit("A", 1, [a1], mover_kw), unit("F", 1, [f1], friend_kw), unit("B", 2, [b1])], edition)


def wrap_length() -> tuple[float, float, float]:
    """Closed form of the least move A1 -> engagement of B1 round F1 (tangent, arc,
    tangent): A1 and B1 are 4 from F1's centre, the C-obstacle radius is rho = 2r; the
    path leaves the obstacle along the tangent line through B1's centre and stops at
    B1's engagement circle (radius 2r + 1). Returns (length, rho, wrapped angle)."""
    rho = 2 * R32
    dA = dB = 4.0
    tA = math.sqrt(dA**2 - rho**2)
    tB = math.sqrt(dB**2 - rho**2)
    phi = math.pi - math.acos(rho / dA) - math.acos(rho / dB)
    return tA + rho * phi + (tB - (2 * R32 + 1.0)), rho, phi


def planner_tolerance(rho: float, phi: float) -> float:
    """1e-6 once the path planner returns exact arcs (PathResult.segments); until then
    the bound it states for its polygonal circumscription."""
    if "segments" in getattr(PathResult, "__dataclass_fields__", {}):
        return 1e-6
    from chargeref.geometry.paths import Planner

    return Planner([]).excess_bound(rho, phi) + 1e-6


def test_edition_9_walks_round_a_friend_tangent_arc_tangent() -> None:
    want, rho, phi = wrap_length()
    n = needed(past_one_base("round", 9))
    assert n.distance >= want - 1e-6
    assert n.distance == pytest.approx(want, abs=planner_tolerance(rho, phi))
    r = charge(past_one_base("round", 9), ceil_roll(n.distance))
    assert r.success


def edition_11(data: dict[str, Any]) -> Any:
    """The engine under the edition-11 switches (the scenario format takes 9 or 10 until
    the edition-11 flow lands): the same world with the rules' edition set to 11."""
    from dataclasses import replace

    from chargeref.systems.w40k.world import build_world

    w = build_world(scenario_from_data(data))
    return replace(w, rules=replace(w.rules, edition=11))


def needed_11(data: dict[str, Any], cap: float = 12.0) -> Any:
    from chargeref.systems.w40k.solver import ChargeProblem

    prob = ChargeProblem(edition_11(data), "A", ["B"], cap)
    return S.needed_on(prob)


def test_edition_10_walks_through_a_friend() -> None:
    want = (28.0 - 20.0) - 2 * R32 - 1.0
    n = needed(past_one_base("round", 10))
    assert n.distance == pytest.approx(want, abs=1e-6)
    assert n.roll == ceil_roll(want)


def test_edition_11_walks_through_a_friend_and_engages_at_two_inches() -> None:
    # F1 nearer A1 so that the engagement spot (2" from B1) does not overlap it
    want = (28.0 - 20.0) - 2 * R32 - 2.0
    n, pl = needed_11(past_one_base("round", 10, fx=22.5))
    assert n.distance == pytest.approx(want, abs=1e-6)
    assert n.roll == ceil_roll(want)
    assert pl is not None


def test_edition_11_fly_takes_to_the_skies_at_two_inches_off() -> None:
    # an impassable block across the straight line: on foot the model walks round it;
    # through the skies it goes straight over for 2" more. The least is whichever is less.
    data = past_one_base("round", 10, ("INFANTRY", "FLY"))
    data["units"] = [u for u in data["units"] if u["id"] != "F"]
    data["terrain"] = [{"type": "impassable", "id": "T", "polygon": [[23.0, 17.0], [25.0, 17.0], [25.0, 27.0], [23.0, 27.0]]}]
    straight = (28.0 - 20.0) - 2 * R32 - 2.0
    n, _ = needed_11(data)
    # impassable terrain stays in the way even in the skies: the path goes round it
    assert n.distance > straight + 1e-3
    data["terrain"] = [{"type": "obstacle", "id": "T", "height": 6.0, "polygon": [[21.5, 17.0], [23.5, 17.0], [23.5, 27.0], [21.5, 27.0]]}]
    n, _ = needed_11(data)
    # a tall obstacle: climbing costs 2 x 6"; the skies cost 2": straight + 2
    assert n.distance == pytest.approx(straight + 2.0, abs=1e-6)


@pytest.mark.parametrize(("mover", "friend", "blocked"), [
    (("MONSTER",), ("VEHICLE",), True),
    (("VEHICLE",), ("MONSTER",), True),
    (("INFANTRY",), ("VEHICLE",), False),
    (("MONSTER",), ("INFANTRY",), False),
])
def test_monster_or_vehicle_never_through_a_friendly_monster_or_vehicle(mover: tuple[str, ...], friend: tuple[str, ...], blocked: bool) -> None:
    straight = (28.0 - 20.0) - 2 * R32 - 1.0
    n = needed(past_one_base("round", 10, mover, friend))
    if blocked:
        want, rho, phi = wrap_length()
        assert n.distance == pytest.approx(want, abs=planner_tolerance(rho, phi))
    else:
        assert n.distance == pytest.approx(straight, abs=1e-6)


def test_fly_passes_over_a_friend_in_edition_9() -> None:
    straight = (28.0 - 20.0) - 2 * R32 - 1.0
    n = needed(past_one_base("round", 9, ("INFANTRY", "FLY")))
    assert n.distance == pytest.approx(straight, abs=1e-6)


@FAST
@given(st.floats(0, 2 * math.pi), st.booleans())
@example(math.pi / 7, True)
def test_wrapping_case_turned_and_mirrored(theta: float, mirror: bool) -> None:
    base = needed(past_one_base("round", 9))
    n = needed(transform(past_one_base("round", 9), theta, mirror))
    assert n.roll == base.roll
    want, rho, phi = wrap_length()
    assert n.distance == pytest.approx(want, abs=planner_tolerance(rho, phi))


# --------------------------------------------------------------------------- non-target engagement range on the path


def squeeze(gap: float, edition: int, bx: float = 26.5) -> tuple[dict[str, Any], float]:
    """A1 charges B1 straight along y = 22 between two models of a non-target unit X,
    one on each side, whose bases are ``gap`` from the path's swept base. The detour
    round the outside of X is far longer than the straight move."""
    er = 1.0 if edition < 11 else 2.0
    a1, b1 = (20.0, 22.0), (bx, 22.0)
    h = 2 * R32 + gap
    x = 22.5
    data = scen([unit("A", 1, [a1]), unit("B", 2, [b1]), unit("X", 2, [(x, 22.0 + h), (x, 22.0 - h)])], edition)
    return data, (b1[0] - a1[0]) - 2 * R32 - er


@pytest.mark.parametrize("edition", [9, 10])
def test_path_within_engagement_range_of_a_non_target_is_refused(edition: int) -> None:
    data, straight = squeeze(1.000, edition)
    roll = ceil_roll(straight)
    assert not charge(data, roll).success
    data, straight = squeeze(1.001, edition)
    assert charge(data, roll).success
    assert needed(data).distance == pytest.approx(straight, abs=1e-6)


def test_edition_11_only_checks_the_end() -> None:
    # B1 farther, so the end spot (2" from B1) is out of X's 2" engagement range
    data, straight = squeeze(1.000, 11, bx=29.5)
    data["rules"]["edition"] = 10
    n, pl = needed_11(data)
    assert n.distance == pytest.approx(straight, abs=1e-6)
    assert pl is not None


# --------------------------------------------------------------------------- needed's honesty


def test_needed_not_proven_is_reported() -> None:
    # the wrap case: the straight-line lower bound rounds below the roll found
    data = past_one_base("round", 9)
    n = needed(data)
    lb_roll = ceil_roll(n.lower_bound)
    r = charge(data, n.roll)
    codes = [x.code for x in r.reasons]
    if lb_roll == n.roll:
        assert n.exact and "needed_not_proven" not in codes
    else:
        assert n.exact is False and "needed_not_proven" in codes


def test_no_import_cycle_among_the_40k_modules() -> None:
    """heroic.py once imported system.py, which imported heroic.py (issue 9)."""
    import ast
    import pathlib

    import chargeref.systems.w40k as pkg

    root = pathlib.Path(pkg.__file__).parent
    mods = {p.stem: p for p in root.glob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, p in mods.items():
        deps = set()
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module:
                deps.add(n.module.split(".")[0])
        edges[name] = deps & set(mods)

    def reach(u: str, seen: set[str]) -> set[str]:
        for v in edges[u]:
            if v not in seen:
                seen.add(v)
                reach(v, seen)
        return seen

    assert [u for u in edges if u in reach(u, set())] == []
