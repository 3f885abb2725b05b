"""Fast paths of the combined-charge search against the plain searches they replace.

``plan_combined(fast=True)`` (what the phase uses) checks reachability only for the
best assignment the search finds, searching again when an end of it is unreachable,
and does not search a charger's approaches again while every obstacle that blocked
its last fruitless search stands unchanged (``_still_blocked``). ``fast=False`` is the
plain search. Whole phases are compared ruling by ruling, and the count of approach
searches shows the fast path was taken.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from build import SYSTEM, impassable, scen, unit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.systems.t9a import combined, resolve
from chargeref.systems.t9a.combined import _still_blocked
from chargeref.systems.t9a.geom import Shape, hull
from chargeref.systems.t9a.world import Obstacle


def _three(a: tuple[float, float, float], b: tuple[float, float, float], c: tuple[float, float, float],
           terrain: list | None = None) -> object:
    return scen([unit("T", 2, (24, 20), 90, 8, 24),
                 unit("A", 1, a[:2], a[2], 3, 9), unit("B", 1, b[:2], b[2], 3, 9), unit("C", 1, c[:2], c[2], 3, 9)],
                terrain=terrain,
                charges=[{"charger": x, "targets": ["T"], "dice": [4, 5]} for x in "ABC"])


#: the benchmark's three chargers (a later charger stands in the way of another's
#: move until it has moved: the refutation is reused), and variants
BENCH = _three((19.5, 26, 285), (24.5, 27, 270), (30.5, 24, 240))
CASES = {
    "bench": BENCH,
    "bench_rock": _three((19.5, 26, 285), (24.5, 27, 270), (30.5, 24, 240),
                         terrain=[impassable("rock", [(25.5, 22.6), (26.5, 22.6), (26.5, 23.6), (25.5, 23.6)])]),
    "spread": _three((17, 27, 300), (24, 28, 270), (31, 27, 240)),
    "crowd": _three((21, 25, 280), (24, 26, 270), (27, 25, 260)),
}


def _phase(s: object, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict], int]:
    calls = [0]
    orig = combined._best_approach

    def counted(*a, **k):  # noqa: ANN002, ANN003, ANN202
        calls[0] += 1
        return orig(*a, **k)

    def plan(world, members, target):  # noqa: ANN001, ANN202
        return combined.plan_combined(world, members, target, fast=fast)

    with monkeypatch.context() as m:
        m.setattr(combined, "_best_approach", counted)
        m.setattr(resolve, "plan_combined", plan)
        res = SYSTEM.phase(s, 1)
    return [r.to_json_data() for r in res.rulings], calls[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_combined_equals_plain(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, n_fast = _phase(CASES[name], True, monkeypatch)
    plain, n_plain = _phase(CASES[name], False, monkeypatch)
    assert fast == plain
    assert n_fast <= n_plain


def test_fast_combined_takes_fewer_searches_on_the_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, n_fast = _phase(BENCH, True, monkeypatch)
    plain, n_plain = _phase(BENCH, False, monkeypatch)
    assert fast == plain
    assert any(r["success"] for r in fast)
    assert n_fast < n_plain


@st.composite
def _chargers(draw: st.DrawFn) -> list[tuple[float, float, float]]:
    out = []
    for _ in range(3):
        dist = draw(st.floats(4, 9))
        bearing = draw(st.floats(30, 150))
        b = math.radians(bearing)
        face = (bearing + 180 + draw(st.floats(-30, 30))) % 360
        out.append((24 + dist * math.cos(b), 18 + dist * math.sin(b), face))
    return out


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(p=_chargers())
@example(p=[(19.5, 26, 285), (24.5, 27, 270), (30.5, 24, 240)])
@example(p=[(20, 25, 290), (24, 25.5, 270), (28, 25, 250)])
def test_fast_combined_equals_plain_anywhere(p: list, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _three(*p)
    if SYSTEM.problems(s):
        return  # overlapping start positions: not a battlefield
    assert _phase(s, True, monkeypatch)[0] == _phase(s, False, monkeypatch)[0]


# ----------------------------------------------------------------------- _still_blocked

SQ = Shape.poly(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))


def _ob(uid: str = "C", shape: Shape = SQ, cls: str = "friend", gap: float = 0.0, strict: bool = False) -> Obstacle:
    return Obstacle(uid, cls, shape, gap, strict)


def test_still_blocked_when_the_blockers_stand_unchanged() -> None:
    then = {"C": [_ob()], "board": []}
    assert _still_blocked([_ob("A"), _ob()], then)
    # an equal copy of the shape counts as unchanged
    assert _still_blocked([_ob(shape=Shape.poly(SQ.V.copy()))], then)
    # no blocker at all (no approach existed): refuted by that alone
    assert _still_blocked([], {})


@pytest.mark.parametrize("moved", [1e-12, 1e-9, 1e-6])
def test_not_still_blocked_when_a_blocker_moved(moved: float) -> None:
    then = {"C": [_ob()]}
    assert not _still_blocked([_ob(shape=Shape.poly(SQ.V + moved))], then)


def test_not_still_blocked_when_a_blocker_changed_role_or_left() -> None:
    then = {"C": [_ob()]}
    assert not _still_blocked([_ob(cls="enemy")], then)
    assert not _still_blocked([_ob(gap=0.5)], then)
    assert not _still_blocked([_ob(strict=True)], then)
    assert not _still_blocked([_ob("A")], then)  # C is gone
    assert not _still_blocked([_ob(), _ob()], then)  # two pieces where there was one
    assert not _still_blocked([replace(_ob(), shape=Shape.disc(np.array([0.5, 0.5]), 0.5))], then)


# ----------------------------------------------------------------------- blocks, hulls

def _plain_hull(points: np.ndarray) -> np.ndarray:
    """``geom.hull`` as it was (rows read from the array one by one)."""
    pts = sorted({(round(float(x), 12), round(float(y), 12)) for x, y in np.asarray(points)})
    if len(pts) <= 2:
        return np.asarray(pts, dtype=float)

    def turn(o, a, b):  # noqa: ANN001, ANN202
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.asarray(lower[:-1] + upper[:-1], dtype=float)


_c = st.floats(-100, 100, allow_nan=False)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_c, _c), min_size=1, max_size=12))
@example([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.5, 0.5)])
@example([(0.0, 0.0), (1e-13, 0.0), (1.0, 1.0)])  # points equal after rounding to 1e-12
@example([(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)])  # collinear
def test_hull_is_the_plain_hull(pts: list) -> None:
    P = np.array(pts, dtype=float)
    got, want = hull(P), _plain_hull(P)
    assert got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("facing", ["front", "right", "rear", "left"])
def test_profile_is_computed_once_and_the_same(facing: str) -> None:
    s = BENCH
    from chargeref.systems.t9a.world import World

    w = World.from_scenario(s)
    for b in w.blocks.values():
        fresh = b.at(b.F, b.facing)  # a copy with an empty cache
        first = b.profile(facing)
        first.append((-1, 0.0, 0.0, 0.0))  # a caller changing its list changes nothing
        assert b.profile(facing) == fresh._profile(facing) == fresh.profile(facing)
        assert ("profile:" + facing) in b._cache
