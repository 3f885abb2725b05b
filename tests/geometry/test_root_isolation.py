"""``placement.lipschitz_roots`` finds every root of functions whose roots are known:
trigonometric products with roots placed anywhere (pairs far closer than the 2π/64
start spacing included), tangencies (a double root), jumps at given angles, and
intervals where no bound holds (judged on the grid only). Also the straight-piece
version ``segment_roots``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry import placement as pl

TP = 2 * math.pi
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def product(roots: list[float], amp: float):  # noqa: ANN201
    """f(θ) = amp * Π sin((θ - r_i) / 2): 2π-periodic for an even count, zero exactly
    at the r_i, |f'| <= amp * n / 2 (each factor and its derivative are at most 1
    and 1/2)."""
    r = np.asarray(roots, dtype=float)

    def f(th: np.ndarray) -> np.ndarray:
        th = np.atleast_1d(np.asarray(th, dtype=float))
        return amp * np.prod(np.sin((th[:, None] - r[None, :]) / 2.0), axis=1)

    return f, amp * len(roots) / 2.0


def circ_gap(a: float, b: float) -> float:
    d = abs(a - b) % TP
    return min(d, TP - d)


@SETTINGS
@given(
    st.floats(0.0, TP, allow_nan=False, exclude_max=True),
    st.floats(5e-3, 0.05),
    st.one_of(st.none(), st.tuples(st.floats(-0.5, 0.5), st.floats(5e-3, 0.05))),
    st.floats(0.2, 5.0),
)
@example(1.0, 1e-3, None, 1.0)  # a pair 1e-3 rad apart, 1/100 of the start spacing
@example(6.282, 5e-3, (0.0, 5e-3), 3.0)  # a pair straddling the period's start
@example(0.3, 0.01, (0.5, 0.05), 0.2)
def test_every_root_of_a_trig_product_is_found(c: float, gap: float, other: tuple[float, float] | None,
                                               amp: float) -> None:
    """Roots come in pairs (c, c + gap), gaps from 5e-3 to 0.05 rad (every pair far
    inside one 0.098 rad start spacing; 1e-3 in the first example), one pair or two
    roughly opposite. Every known root is found to 1e-9, without reaching the cap;
    anything else reported is a touching point of the documented kind
    (|f| <= lip * TOUCH_WIDTH, where a root's slope is far below the bound). The
    work grows as lip / (|f'| at the roots): pairs 1e-3 apart with a second pair
    take up to ~3e4 evaluations, past the cap (test_a_pair_closer_than...)."""
    roots = [c % TP, (c + gap) % TP]
    if other is not None:
        c2 = c + math.pi + other[0]
        roots += [c2 % TP, (c2 + other[1]) % TP]
    # a root on a start angle is test_a_root_on_a_sample_angle's case (slower: the
    # stretch next to it is cleared octave by octave down to NUDGE)
    step = TP / pl.START_ANGLES
    if any(abs(r / step - round(r / step)) * step < 1e-6 for r in roots):
        return
    f, lip = product(roots, amp)
    before = pl.ISOLATION_STATS["capped"]
    got = pl.lipschitz_roots(f, [], lip)
    assert got is not None
    assert pl.ISOLATION_STATS["capped"] == before
    for r in roots:
        assert min(circ_gap(r, t) for t in got) <= 1e-9, (r, got)
    for t in got:
        if min(circ_gap(r, t) for r in roots) > 1e-9:
            assert abs(float(f(np.array([t]))[0])) <= lip * pl.TOUCH_WIDTH, (t, roots)


def test_a_pair_closer_than_the_cap_resolves_is_one_touching_point() -> None:
    """A pair 1e-4 apart with |f''| about 1/2: separating it with the Lipschitz bound
    alone needs about lip / (|f''| gap) = 20000+ evaluations, past the cap. What comes
    back is the run's sample of least |f| (within 1e-4 of both roots), counted."""
    f, lip = product([1.0, 1.0001], 1.0)
    before = pl.ISOLATION_STATS["capped"]
    got = pl.lipschitz_roots(f, [], lip)
    assert got is not None
    assert pl.ISOLATION_STATS["capped"] == before + 1
    assert all(min(circ_gap(t, 1.0), circ_gap(t, 1.0001)) <= 1e-4 for t in got)
    assert any(circ_gap(t, 1.00005) <= 1e-4 for t in got)


@pytest.mark.parametrize("c", [0.3, 2.0, math.pi, 5.9])
def test_a_tangency_is_a_touching_point_not_a_fallback(c: float) -> None:
    """f = 1 - cos(θ - c) touches 0 at c without changing sign. With ``touch`` the
    isolation stops where both ends of an interval are within it: one point, at c to
    within sqrt(2 touch), reached well under the evaluation cap; the cap is not hit."""
    def f(th: np.ndarray) -> np.ndarray:
        return 1.0 - np.cos(np.asarray(th) - c)

    calls = []

    def counted(th: np.ndarray) -> np.ndarray:
        calls.append(len(np.atleast_1d(th)))
        return f(th)

    before = pl.ISOLATION_STATS["capped"]
    got = pl.lipschitz_roots(counted, [], 1.0, touch=1e-7)
    assert pl.ISOLATION_STATS["capped"] == before
    assert sum(calls) < pl.MAX_EVALS
    assert len(got) == 1
    assert circ_gap(got[0], c) <= math.sqrt(2 * 1e-7) * 1.01
    assert float(f(np.array(got))[0]) <= 1e-7


def test_tangency_without_touch_is_capped_to_one_point() -> None:
    """Without ``touch``, a tangency needs more evaluations than the cap; the
    isolation then reports each unresolved run by its sample of least |f| (a few
    points here, all next to the double root) instead of falling back to the refined angle set
    (which finds no sign change at all)."""
    c = 1.0

    def f(th: np.ndarray) -> np.ndarray:
        return 1.0 - np.cos(np.asarray(th) - c)

    before = pl.ISOLATION_STATS["capped"]
    got = pl.lipschitz_roots(f, [], 1.0)
    assert pl.ISOLATION_STATS["capped"] == before + 1
    # a few runs (cleared intervals may split the region where |f| is tiny), all
    # next to the double root
    assert 1 <= len(got) <= 4
    assert all(circ_gap(t, c) <= 1e-6 for t in got)
    assert pl.angle_roots(f, []) == []  # the old way


def test_touch_with_roots_keeps_the_roots() -> None:
    """A simple root pair 0.01 apart plus a tangency elsewhere: the roots to 1e-9,
    the tangency as one touching point."""
    f1, _ = product([1.0, 1.01], 1.0)

    def f(th: np.ndarray) -> np.ndarray:
        th = np.atleast_1d(np.asarray(th, dtype=float))
        return f1(th) * (1.0 - np.cos(th - 4.0))

    # |f'| <= |f1'| * 2 + |f1| * 1 <= 1 * 2 + 1
    got = pl.lipschitz_roots(f, [], 3.0, touch=1e-9)
    assert any(circ_gap(t, 1.0) <= 1e-9 for t in got)
    assert any(circ_gap(t, 1.01) <= 1e-9 for t in got)
    assert sum(circ_gap(t, 4.0) <= 1e-3 for t in got) == 1
    assert len(got) == 3


def test_jumps_are_not_judged_across() -> None:
    """f jumps at 2.0 from -1 to a function rising from 0.5 through a root at 3.0: the
    jump is not a root; the root beyond it is found."""
    def f(th: np.ndarray) -> np.ndarray:
        th = np.atleast_1d(np.asarray(th, dtype=float)) % TP
        return np.where(th < 2.0, -1.0, 0.5 - 0.5 * (th - 2.0))

    got = pl.lipschitz_roots(f, [2.0], 0.5)
    assert any(abs(t % TP - 3.0) <= 1e-9 for t in got)
    assert not any(abs(t % TP - 2.0) <= 1e-6 for t in got)


def test_loose_intervals_are_judged_by_sign_changes_on_the_grid() -> None:
    """Inside [2, 3] (declared loose) f has no Lipschitz bound the caller can give: a
    sign change there is still solved; a dip narrower than the 2π/4096 grid is not
    promised (and not found here); outside, the proof holds as usual."""
    def f(th: np.ndarray) -> np.ndarray:
        th = np.atleast_1d(np.asarray(th, dtype=float)) % TP
        steep = np.where(np.abs(th - 2.5) < 1e-5, -1.0, 1.0)  # a dip 2e-5 wide
        return np.where((th > 2.0) & (th < 3.0), steep * (1.0 + 0 * th), 1.0 - np.cos(th - 5.0) - 1e-6)

    got = pl.lipschitz_roots(f, [2.0, 3.0], 1.0, loose=lambda m: (m % TP > 2.0) & (m % TP < 3.0))
    half = math.acos(1.0 - 1e-6)
    assert sum(abs(t % TP - (5.0 - half)) <= 1e-9 for t in got) == 1
    assert sum(abs(t % TP - (5.0 + half)) <= 1e-9 for t in got) == 1
    assert not any(2.0 < t % TP < 3.0 for t in got)


@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_segment_roots_with_a_jump(delta: float) -> None:
    """On [0, 1], h = |t - 0.7| - delta (a root pair 2 delta apart) with a jump at
    0.3 (to +5 before it): the pair is found, the jump is not a root."""
    def h(t: np.ndarray) -> np.ndarray:
        t = np.atleast_1d(np.asarray(t, dtype=float))
        return np.where(t < 0.3, 5.0, np.abs(t - 0.7) - delta)

    got = pl.segment_roots(h, 1.0, extra=[0.3])
    assert got is not None
    assert got == pytest.approx([0.7 - delta, 0.7 + delta], abs=1e-9)


@pytest.mark.parametrize("roots, amp", [([0.0, 0.05], 1.0), ([0.0, 0.02], 1.0),
                                        ([0.0, 0.01, math.pi + 0.5, math.pi + 0.55], 0.2)])
def test_a_root_on_a_sample_angle(roots: list[float], amp: float) -> None:
    """A root exactly on a start angle (f is exactly 0 there) and a second one 0.01 to
    0.05 rad on, inside the same start interval: the second one is found too (the
    zero end is moved NUDGE inwards and the interval judged as usual; before, an
    interval with an exact zero at one end was dropped unjudged). One point per
    root, the period's end (2π, the same angle as 0) aside."""
    f, lip = product(roots, amp)
    before = pl.ISOLATION_STATS["capped"]
    got = pl.lipschitz_roots(f, [], lip)
    assert pl.ISOLATION_STATS["capped"] == before
    for r in roots:
        assert min(circ_gap(r, t) for t in got) <= 1e-9
    assert len([t for t in got if t < TP - 1e-6]) == len(roots)
