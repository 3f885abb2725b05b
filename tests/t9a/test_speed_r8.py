"""Round 8 speed paths of the T9A solver against the plain forms they replace.

* ``wheel.candidate_deltas`` written out inline gives the same align angles, in the
  same order, as ``wheel._candidate_deltas_ref`` (one helper per step), sign of zero
  included: at offsets where the contact corner reaches the facing's end exactly, on
  every facing, for narrow and wide chargers, straight on and side-on;
* ``report._path_rounded`` (a model's path in plain floats) drops the same points as
  ``report._dedupe`` and rounds them alike, steps at its 1e-12 tolerance included.
"""

from __future__ import annotations

import math

import numpy as np
from build import B20
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.systems.t9a import report
from chargeref.systems.t9a.block import Block
from chargeref.systems.t9a.wheel import _candidate_deltas_ref, candidate_deltas

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

TARGET = Block("T", 2, (24.0, 20.0), 90.0, 8, 24, B20, B20)


def _same_list(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
                                    for x, y in zip(a, b, strict=True))


@SETTINGS
@given(x=st.floats(10, 38), y=st.floats(21, 34), facing=st.floats(0, 360, exclude_max=True),
       files=st.integers(1, 6), side=st.sampled_from(["front", "left", "right", "rear"]),
       s=st.floats(-6, 6), max_wheel=st.sampled_from([90.0, 45.0, 30.0]))
@example(x=24.5, y=27.0, facing=270.0, files=3, side="front", s=0.0, max_wheel=90.0)  # straight on
@example(x=19.5, y=26.0, facing=285.0, files=3, side="front", s=3.1496062992, max_wheel=90.0)
@example(x=30.5, y=24.0, facing=180.0, files=3, side="front", s=-2.0, max_wheel=90.0)  # side-on
@example(x=24.0, y=30.0, facing=270.0, files=8, side="front", s=0.0, max_wheel=90.0)  # as wide as the facing
def test_candidate_deltas_inline_matches_reference(x: float, y: float, facing: float, files: int, side: str,
                                                   s: float, max_wheel: float) -> None:
    ch = Block("X", 1, (x, y), facing, files, files * 2, B20, B20)
    fr = TARGET.facing_of(side)
    got = candidate_deltas(ch, fr, s, max_wheel)
    ref = _candidate_deltas_ref(ch, fr, s, max_wheel)
    assert _same_list(got, ref), (got, ref)
    # and at the offsets where a front corner meets an end of the facing exactly
    half = ch.width / 2
    for s_edge in (fr.length / 2 - half, -fr.length / 2 + half):
        assert _same_list(candidate_deltas(ch, fr, s_edge, max_wheel), _candidate_deltas_ref(ch, fr, s_edge, max_wheel))


# ----------------------------------------------------------------------------- report paths

step = st.sampled_from([0.0, 1e-13, 4e-13, 5e-13, 6e-13, 7.07e-13, 7.072e-13, 1e-12, 1.0000001e-12, 1.5e-12,
                        2e-12, 2.0000001e-12, 3e-12, 1e-6, 0.3])


@SETTINGS
@given(start=st.tuples(st.floats(-50, 50), st.floats(-50, 50)),
       steps=st.lists(st.tuples(step, step, st.sampled_from([1.0, -1.0]), st.sampled_from([1.0, -1.0])),
                      min_size=0, max_size=12))
@example(start=(1.0, 2.0), steps=[])  # one point: repeated
@example(start=(1.0, 2.0), steps=[(7.07e-13, 7.07e-13, 1.0, 1.0)])  # length just under 1e-12
@example(start=(1.0, 2.0), steps=[(7.072e-13, 7.072e-13, 1.0, -1.0)])  # just over
@example(start=(0.0, 0.0), steps=[(1e-12, 0.0, 1.0, 1.0), (1.0000001e-12, 0.0, -1.0, 1.0)])  # at the tolerance
def test_path_rounded_matches_dedupe(start: tuple[float, float], steps: list[tuple[float, float, float, float]]) -> None:
    """``report._path_rounded`` drops the same points as ``report._dedupe`` and rounds
    them as the ruling did (``_r``), steps at the 1e-12 tolerance included."""
    pts = [np.array(start)]
    for dx, dy, sx, sy in steps:
        pts.append(pts[-1] + np.array([sx * dx, sy * dy]))
    want = [[report._r(p[0]), report._r(p[1])] for p in report._dedupe(list(pts))]
    assert report._path_rounded(pts) == want
