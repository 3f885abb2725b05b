"""The broad phase proposes exactly the pairs of boxes that meet (checked against all
pairs), and check on 2,000 models a side finds exactly the overlaps there are."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.broad import box_hits, box_pairs, disc_bounds

SETTINGS = settings(max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "40")), deadline=None,
                    derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"),
                    suppress_health_check=[HealthCheck.too_slow])

coords = st.floats(min_value=0, max_value=20, allow_nan=False)
radii = st.floats(min_value=0.01, max_value=3, allow_nan=False)
discs = st.lists(st.tuples(coords, coords, radii), min_size=0, max_size=40)


def brute(b: np.ndarray, o: np.ndarray | None = None) -> list[tuple[int, int]]:
    other = b if o is None else o
    out = []
    for i in range(len(b)):
        for k in range(len(other)):
            if o is None and k <= i:
                continue
            if b[i, 0] <= other[k, 2] and other[k, 0] <= b[i, 2] and b[i, 1] <= other[k, 3] and other[k, 1] <= b[i, 3]:
                out.append((i, k))
    return sorted(out)


@SETTINGS
@given(discs, discs)
@example([(0, 0, 1), (2, 0, 1), (2.000001, 0, 1), (4.000001, 0, 1)], [(3, 3, 0.5)])
def test_pairs_are_exactly_the_boxes_that_meet(a, b):
    A = disc_bounds(np.array([(x, y) for x, y, _ in a]).reshape(-1, 2), np.array([r for *_, r in a]))
    B = disc_bounds(np.array([(x, y) for x, y, _ in b]).reshape(-1, 2), np.array([r for *_, r in b]))
    assert box_pairs(A) == brute(A)
    assert box_hits(A, B) == brute(A, B)


def test_touching_boxes_meet_and_a_gap_does_not():
    b = disc_bounds(np.array([[0.0, 0.0], [2.0, 0.0], [4.000001, 0.0]]), np.array([1.0, 1.0, 1.0]))
    assert box_pairs(b) == [(0, 1)]


def _many_models_40k() -> dict:
    """The benchmark's table of 2,000 models a side (benchmarks/run.py)."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
    spec = importlib.util.spec_from_file_location("chargeref_bench_run", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # dataclasses look their module up there
    spec.loader.exec_module(bench)
    return bench.many_models_40k()


def test_check_on_2000_models_a_side_finds_exactly_the_one_overlap():
    """The spatial index must not lose a pair on a big table: a clean table passes, and
    one model moved onto its neighbour (a 0.0001" overlap) is the one problem reported,
    naming the model. (The time it takes is a benchmark, not a test.)"""
    from chargeref import service

    data = _many_models_40k()
    assert service.check(service.load_document(json.dumps(data).encode())) == {"ok": True, "problems": []}
    r = 16 / 25.4
    unit = data["units"][7]
    a, b = unit["models"][10], unit["models"][11]
    b["at"] = [a["at"][0] + 2 * r - 1e-4, a["at"][1]]
    res = service.check(service.load_document(json.dumps(data).encode()))
    assert not res["ok"]
    assert len(res["problems"]) == 1, res["problems"]
    assert b["id"] in res["problems"][0]["field"] or a["id"] in res["problems"][0]["field"]
