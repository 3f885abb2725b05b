"""The same 40k charge on a board turned by any angle, or mirrored, gets the same ruling:
the same success, the same least roll and the same least distance (within the
contract's 1e-6), issue 9.

The scenarios are the outside referee's generator (``tests/outside/outside_gen.py``:
every edition, round, oval and rectangular bases, sometimes a ruin or a free wall), small
charging units, turned about the board centre by an arbitrary angle and sometimes
mirrored as well. ``frame_data/`` holds the outside referee's repro: a board and the
same board turned by 272.5956 degrees whose least distances once differed (4.236414757
and 4.226204403): the least-distance bisection reads its candidate move lengths by
index, and lengths equal but for rounding were kept once on one board and twice on the
other (``systems/w40k/ties.py`` merges them; both boards now give 4.164022221).

Where the least roll is proven (``needed.exact``), success, roll and distance must all
agree. Where it is not, the search's answer is only what its greedy orders of play
achieve; the test still demands the same success and roll, and the same distance.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from chargeref import service
from chargeref.scenario import scenario_from_data
from chargeref.systems.w40k.ties import TIE, distinct, few, least, ordered
from chargeref.validate import validate_ruling

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "outside"))
import outside_gen as gen  # noqa: E402  (the outside referee's generator, no chargeref imports)

DATA = Path(__file__).parent / "frame_data"
TIME_LIMIT = 300.0
#: the angle between the repro board and its turned copy (the facings' difference)
REPRO_TURN = 272.5956173350556
#: generated boards with more models than this are skipped (CI time)
MAX_MODELS = 10

SETTINGS = settings(
    max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "12")),
    deadline=None,
    derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


def _load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text())


REPRO = _load("distance_not_least_turned.json")
REPRO_REQ = {"charger": "A", "targets": ["B", "C"], "dice": [5, 5]}


def _rule(scen: dict[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    return service.charge(scen, req["charger"], req["targets"], dice=req["dice"], time_limit=TIME_LIMIT)


def _verdict(r: dict[str, Any]) -> tuple[Any, ...]:
    n = r["needed"]
    return r["success"], n["roll"], n["distance"], n.get("exact")


def _same(a: dict[str, Any], b: dict[str, Any], what: str) -> None:
    va, vb = _verdict(a), _verdict(b)
    assert va[:2] == vb[:2], (what, va, vb)
    assert (va[2] is None) == (vb[2] is None), (what, va, vb)
    if va[2] is not None:
        assert abs(va[2] - vb[2]) <= 1e-6, (what, va, vb)


def _legal(scen: dict[str, Any], ruling: dict[str, Any]) -> None:
    assert [str(v) for v in validate_ruling(scenario_from_data(scen), ruling)] == []


# ----------------------------------------------------------------------- the repro


def test_repro_copy_is_the_board_turned() -> None:
    """A check of the test's data: the copy is the board turned by REPRO_TURN about its
    centre (to the digits the generator wrote)."""
    copy = _load("distance_not_least_turned_copy.json")
    mine = gen.turned(REPRO, REPRO_TURN)
    for u, v in zip(mine["units"], copy["units"], strict=True):
        for m, n in zip(u["models"], v["models"], strict=True):
            assert abs(m["at"][0] - n["at"][0]) < 1e-9 and abs(m["at"][1] - n["at"][1]) < 1e-9
            assert abs((m["facing"] - n["facing"] + 180) % 360 - 180) < 1e-9


def test_repro_same_least_distance_turned() -> None:
    """The outside referee's pair of boards: one least distance, one roll, and both
    rulings legal."""
    copy = _load("distance_not_least_turned_copy.json")
    a, b = _rule(REPRO, REPRO_REQ), _rule(copy, REPRO_REQ)
    _same(a, b, "repro turned")
    assert a["needed"]["exact"] and a["needed"]["roll"] == 5 and a["success"]
    # no worse than the better of the two answers the frames once gave
    assert a["needed"]["distance"] <= 4.226204403 + 1e-6
    _legal(REPRO, a)
    _legal(copy, b)


# ----------------------------------------------------------------------- the property

def _case(seed: int) -> tuple[dict[str, Any], dict[str, Any], float, bool]:
    """A small generated charge (at most 3 charging models), an arbitrary angle and
    whether to mirror as well, all drawn from ``seed`` (so the fixed examples are not
    hypothesis's simplest values: angle 0, no mirror)."""
    scen, req = gen.scenario_40k(seed, max_models=3)
    rng = random.Random(seed * 7919 + 1)
    return scen, req, rng.uniform(0.0, 360.0), rng.random() < 0.5


@SETTINGS
@given(st.integers(0, 2**20).map(_case).filter(lambda c: sum(len(u["models"]) for u in c[0]["units"]) <= MAX_MODELS))
@example((REPRO, REPRO_REQ, REPRO_TURN, False))
@example((REPRO, REPRO_REQ, REPRO_TURN, True))
@example((REPRO, REPRO_REQ, 0.0, True))
def test_turned_or_mirrored_board_same_least_distance(case: tuple[dict[str, Any], dict[str, Any], float, bool]) -> None:
    scen, req, angle, mirror = case
    other = gen.turned(scen, angle)
    if mirror:
        other = gen.mirrored(other)
    assume(gen.fits_board(other))
    a, b = _rule(scen, req), _rule(other, req)
    _same(a, b, f"turned {angle} mirrored {mirror}")


# ----------------------------------------------------------------------- ties.py


def test_distinct_merges_rounding_twins_to_the_largest() -> None:
    """Costs a few units in the last place apart are one candidate (kept as the larger);
    costs TIE apart or more stay two, whatever order they come in."""
    c = 4.635601117545398
    twin = np.nextafter(np.nextafter(c, 5.0), 5.0)
    assert list(distinct(np.array([twin, 3.0, c]))) == [3.0, twin]
    assert list(distinct(np.array([c, twin, 3.0]))) == list(distinct(np.array([twin, c, 3.0])))
    # at the threshold: TIE apart is still one value, a little more is two
    assert len(distinct(np.array([1.0, 1.0 + 0.9 * TIE]))) == 1
    assert len(distinct(np.array([1.0, 1.0 + 1.1 * TIE]))) == 2
    assert len(distinct(np.zeros(0))) == 0 and list(distinct(np.array([2.0]))) == [2.0]


def test_distinct_same_probes_in_any_frame() -> None:
    """The bisection reads the candidate list by index: a list with a rounding twin
    added (the turned board's) has the same length and the same entries to 1e-12."""
    rng = np.random.default_rng(5)
    a = np.sort(rng.uniform(4.0, 5.0, 80))
    b = np.concatenate([a * (1 + 1e-15), a[::7] + 2e-15])
    da, db = distinct(a), distinct(b)
    assert len(da) == len(db) == len(np.unique(a))
    assert np.max(np.abs(da - db)) < 1e-12


def test_ordered_keeps_rounding_twins_in_index_order() -> None:
    """Values within TIE of each other are one value: their order is their index order,
    whichever one rounding made smaller; values more than TIE apart keep their order."""
    c = 2.718281828459045
    up = np.nextafter(np.nextafter(c, 3.0), 3.0)
    assert list(ordered(np.array([up, 5.0, c, 1.0]))) == [3, 0, 2, 1]
    assert list(ordered(np.array([c, 5.0, up, 1.0]))) == [3, 0, 2, 1]
    # at the threshold: 0.9 TIE apart is one value (index order), 1.1 TIE is two
    assert list(ordered(np.array([1.0 + 0.9 * TIE, 1.0]))) == [0, 1]
    assert list(ordered(np.array([1.0 + 1.1 * TIE, 1.0]))) == [1, 0]
    assert list(ordered(np.zeros(0))) == [] and list(ordered(np.array([4.0]))) == [0]
    # the few nearest: the cut through a run falls the same way in any frame
    assert list(ordered(np.array([9.0, up, 9.5, c]))[:1]) == [1]
    assert list(ordered(np.array([9.0, c, 9.5, up]))[:1]) == [1]


def test_few_keeps_the_whole_tie_at_the_cut() -> None:
    """The k least, and every value of the run the k-th lies in: the set kept is the same
    whichever of equal values rounding made smaller."""
    c = 3.0
    up = np.nextafter(c, 4.0)
    assert sorted(few(np.array([1.0, up, c, 7.0]), 2).tolist()) == [0, 1, 2]
    assert sorted(few(np.array([1.0, c, up, 7.0]), 2).tolist()) == [0, 1, 2]
    # at the threshold: 0.9 TIE past the k-th is kept, 1.1 TIE is not
    assert sorted(few(np.array([1.0, 2.0, 2.0 + 0.9 * TIE]), 2).tolist()) == [0, 1, 2]
    assert sorted(few(np.array([1.0, 2.0, 2.0 + 1.1 * TIE]), 2).tolist()) == [0, 1]
    assert few(np.array([5.0, 1.0]), 3).tolist() == [1, 0] and len(few(np.zeros(0), 2)) == 0


def test_least_takes_the_first_of_near_equal_values() -> None:
    c = 1.4142135623730951
    up = np.nextafter(c, 2.0)
    assert int(least(np.array([3.0, up, c]))) == 1
    assert int(least(np.array([3.0, c, up]))) == 1
    assert list(least(np.array([[c + 0.9 * TIE, c], [c + 1.1 * TIE, c]]), axis=1)) == [0, 1]


def _symmetric(seed: int) -> tuple[dict[str, Any], dict[str, Any], float, bool]:
    """A charge whose exact geometry is symmetric about the charging unit's axis, so the
    few nearest target models of a start and the nearest corners of a block round a
    target come in equal pairs: two round or oval target models side by side, the
    charging unit (1 to 3 round models) on their axis, and in front of them (sometimes)
    a square block or a wall across the axis. Then turned by an angle and sometimes
    mirrored, all drawn from ``seed``."""
    rng = random.Random(seed)
    ed = rng.choice([9, 10, 11])
    n = rng.randint(1, 3)
    gap = rng.uniform(4.5, 9.0)  # clear of engagement range in every edition
    tbase = rng.choice([{"round": 32}, {"round": 40}, {"oval": [60, 35.5]}])
    # the two target bases apart (an oval stands with its long axis across the axis)
    half = (tbase.get("round", 60) / 25.4 / 2) + rng.uniform(0.0, 1.0)
    cx, cy = 30.0, 22.0
    mods = [{"id": f"A{i + 1}", "at": [cx - gap - 1.5 * i, cy + (0.0 if i == 0 else (-1) ** i * 0.75)],
             "base": {"round": 32}} for i in range(n)]
    targets = [{"id": f"B{i + 1}", "at": [cx, cy + s * half], "base": tbase, "facing": 90.0}
               for i, s in enumerate((-1.0, 1.0))]
    if tbase.get("round"):
        targets = [dict(t, facing=0.0) for t in targets]
    terrain = []
    k = rng.random()
    if k < 0.4:
        x0, w = cx - gap / 2 - 0.5, 0.6
        terrain.append({"type": "impassable", "id": "T",
                        "polygon": [[x0, cy - w], [x0 + 2 * w, cy - w], [x0 + 2 * w, cy + w], [x0, cy + w]]})
    elif k < 0.7:
        x0 = cx - gap / 2
        terrain.append({"type": "impassable", "id": "T",
                        "polygon": [[x0, cy - 1.6], [x0 + 0.2, cy - 1.6], [x0 + 0.2, cy + 1.6], [x0, cy + 1.6]]})
    scen = {"format": "chargeref/1", "system": "40k", "rules": {"edition": ed}, "board": {"width": 60, "depth": 44},
            "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": mods},
                      {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": targets}],
            "terrain": terrain}
    req = {"charger": "A", "targets": ["B"], "dice": [rng.randint(1, 6), rng.randint(1, 6)]}
    return scen, req, rng.uniform(0.0, 360.0), rng.random() < 0.5


SYMMETRIC = settings(max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "8")), deadline=None,
                     derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"))


@SYMMETRIC
@given(st.integers(0, 2**20).map(_symmetric))
@example(_symmetric(3))
@example(_symmetric(11))
def test_symmetric_ties_same_ruling_in_any_frame(case: tuple[dict[str, Any], dict[str, Any], float, bool]) -> None:
    """Equal pairs in exact arithmetic (two target models, or two block corners, equally
    near) come out a few units in the last place apart, in either order depending on
    the frame: the spots built round the nearest of them must not depend on which."""
    scen, req, angle, mirror = case
    other = gen.turned(scen, angle)
    if mirror:
        other = gen.mirrored(other)
    assume(gen.fits_board(other))
    a, b = _rule(scen, req), _rule(other, req)
    _same(a, b, f"symmetric turned {angle} mirrored {mirror}")
    _legal(scen, a)
