"""Exact wheels: the align angles of an approach are built (closed forms and roots),
never sampled, and the thresholds sit at their edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import SYSTEM, scen, unit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.systems import ChargeRequest
from chargeref.systems.t9a import charge as C
from chargeref.systems.t9a.ruleset import T9A_2X
from chargeref.systems.t9a.wheel import MAX_ALIGN, approach_distance, candidate_deltas
from chargeref.systems.t9a.world import World

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def blocks(tface: float, cx: float, cy: float, cface: float, files: int = 5):
    s = scen([unit("T", 2, (60, 60), tface, 4, 8), unit("A", 1, (cx, cy), cface, files, files)], board=(120, 120))
    w = World.from_scenario(s)
    return w.blocks["A"], w.blocks["T"]


def oracle(ch, fr, s: float, n: int = 4001) -> float:
    """The least distance over a dense sample of align angles, from the independent
    closed form (a test may sample: it only checks that no sample beats the answer)."""
    best = math.inf
    for d in np.linspace(-MAX_ALIGN, MAX_ALIGN, n):
        if d == 0:
            continue
        r = approach_distance(ch, fr, s, float(d))
        if r is None:
            continue
        dist, th, d1, d2 = r
        if abs(th) <= 90 and d1 >= -1e-12 and d2 >= -1e-12:
            best = min(best, dist)
    return best


@SETTINGS
@given(st.floats(0, 360), st.floats(-12, 12), st.floats(4, 14), st.floats(-100, 100), st.floats(0, 1),
       st.sampled_from(["front", "left", "right", "rear"]))
@example(0.0, 3.0, 8.0, 40.0, 0.5, "front")
@example(90.0, -8.0, 5.0, -70.0, 0.1, "left")
def test_no_sampled_align_angle_beats_the_constructed_ones(tface, dx, dy, turn, frac, facing) -> None:
    ch, tg = blocks(tface, 60 + dx, 60 + dy, (math.degrees(math.atan2(-dy, -dx)) + turn) % 360)
    fr = tg.facing_of(facing)
    lo, hi = C.contact_range(ch, fr)
    s = lo + frac * (hi - lo)
    D = np.asarray(candidate_deltas(ch, fr, s))
    r = C.solve(ch, fr, np.full(len(D), s), D)
    exact = float(np.min(np.where(r["ok"], r["dist"], np.inf)))
    sampled = oracle(ch, fr, s)
    assert exact <= sampled + 1e-9
    if math.isfinite(exact):
        # the constructed approach is real: its steps end flush at the offset
        i = int(np.argmin(np.where(r["ok"], r["dist"], np.inf)))
        ap = C.Approach(s, float(D[i]), float(r["theta"][i]), float(r["d1"][i]), float(r["d2"][i]), exact,
                        None if D[i] == 0 else fr.pt(float(r["xp"][i])))
        assert C.lands(ch, fr, ap, ap.steps())


def test_the_closed_form_matches_the_solver() -> None:
    ch, tg = blocks(0.0, 66.0, 63.0, 200.0)
    fr = tg.facing_of("front")
    for s in (-2.0, 0.0, 1.5):
        for d in (-40.0, -5.0, 7.5, 60.0):
            r = C.solve(ch, fr, np.array([s]), np.array([d]))
            cf = approach_distance(ch, fr, s, d)
            assert cf is not None
            assert float(r["raw_d1"][0]) == pytest.approx(cf[2], abs=1e-9)
            assert float(r["raw_d2"][0]) == pytest.approx(cf[3], abs=1e-9)
            if bool(r["ok"][0]):
                assert float(r["dist"][0]) == pytest.approx(cf[0], abs=1e-9)


@pytest.mark.parametrize(("wheel", "ok"), [(90.0, True), (90.001, False)])
def test_one_wheel_of_at_most_90_degrees(wheel: float, ok: bool) -> None:
    # the align angle that leaves exactly this wheel: theta = psi - delta - facing
    ch, tg = blocks(0.0, 66.0, 63.0, 180.0)
    fr = tg.facing_of("front")
    d = fr.psi - ch.facing - wheel
    r = C.solve(ch, fr, np.array([0.0]), np.array([d]))
    assert float(abs(r["theta"][0])) == pytest.approx(min(wheel, 90.0))
    assert bool(abs((fr.psi - d - ch.facing + 180) % 360 - 180) <= T9A_2X.max_wheel + 1e-9) is ok


@pytest.mark.parametrize(("extra", "roll"), [(7.0, 7), (7.001, 8), (6.999, 7)])
def test_a_charge_needing_exactly_the_roll(extra: float, roll: int) -> None:
    # fronts parallel and centred: the distance is the gap, the least roll its ceiling
    # after the Advance Rate (4")
    gap = 4.0 + extra
    s = scen([unit("T", 2, (24, 10), 90, 5, 10), unit("A", 1, (24, 10 + gap), 270, 5, 10)], board=(48, 48))
    n = SYSTEM.needed(s, ChargeRequest("A", ("T",)))
    assert n.distance == pytest.approx(gap, abs=1e-9)
    assert n.roll == roll
    r = SYSTEM.charge(s, ChargeRequest("A", ("T",), roll=roll))
    assert r.success
    r2 = SYSTEM.charge(s, ChargeRequest("A", ("T",), roll=roll - 1))
    assert not r2.success


def test_rulings_name_the_ruleset() -> None:
    s = scen([unit("T", 2, (24, 10), 90, 5, 10), unit("A", 1, (24, 20), 270, 5, 10)], board=(48, 48))
    r = SYSTEM.charge(s, ChargeRequest("A", ("T",), roll=7))
    assert r.details["ruleset"] == "T9A 2.x"


@pytest.mark.parametrize("want", [30.0, -47.5, 0.25, 120.0])
def test_failed_charge_wheel_to_face_is_the_closed_form(want: float) -> None:
    # put the point on the centre line the unit would have after wheeling ``want``
    from chargeref.systems.t9a.moves import heading_error, wheel_to_face

    ch, _ = blocks(0.0, 80.0, 80.0, 10.0)
    after = ch.wheeled(want)
    T = after.centre + 9.0 * after.f
    got = wheel_to_face(ch, T)
    assert got == pytest.approx(want, abs=1e-9)
    assert heading_error(ch.wheeled(got), T) == pytest.approx(0.0, abs=1e-9)


@SETTINGS
@given(st.floats(4.2, 15.0), st.floats(-0.7, 0.7), st.floats(0, 360), st.booleans())
@example(11.0, 0.0, 0.0, False)
@example(11.001, 0.3, 37.5, True)
def test_head_on_needed_is_the_gap_and_the_roll_its_ceiling(gap: float, lateral: float, rot: float,
                                                            mirror: bool) -> None:
    # fronts parallel, the charger's front wholly opposite the target's: every approach
    # moves the contact point at least the gap, and straight ahead does it in exactly
    # that, on a turned (and mirrored) table alike
    def place(x: float, y: float, f: float) -> tuple[float, float, float]:
        if mirror:
            x, f = -x, 180 - f
        r = math.radians(rot)
        return 60 + x * math.cos(r) - y * math.sin(r), 60 + x * math.sin(r) + y * math.cos(r), (f + rot) % 360

    tx, ty, tf = place(0.0, 0.0, 90.0)
    cx, cy, cf = place(lateral, gap, 270.0)
    s = scen([unit("T", 2, (tx, ty), tf, 5, 10), unit("A", 1, (cx, cy), cf, 3, 6)], board=(120, 120))
    n = SYSTEM.needed(s, ChargeRequest("A", ("T",)))
    assert n.distance == pytest.approx(gap, abs=1e-6)
    assert n.roll == max(2, math.ceil(round(gap - 4.0, 9)))
