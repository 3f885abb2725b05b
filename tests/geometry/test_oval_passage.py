"""Narrow passages beside an oval C-obstacle stay open (issue 9).

The planner's first stage stands a polygon of 48 tangent lines in for each oval
C-obstacle; its corners stand up to ``ρmax·(sec(π/48) − 1)`` outside the true body. Two
bodies closer than that used to have overlapping polygons, so the route between them was
never tried and the longer one was reported exact. Now the pair's separating normal is
inserted into both polygons (and those ovals are judged exactly by the graph's checks):
the route through the gap is found at every turn of the scene, with its exact length.

References share no code with the planner: the tangent-arc-tangent closed form round a
disc C-obstacle, and the hull chain of 200 000 boundary points of a grown ellipse
(``hull_path_ref``) for the path over an oval one.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_oval_paths_exact import (
    SETTINGS,
    TWO_PI,
    check_path,
    disc,
    hull_path_ref,
    oval,
    over_the_rock,
    rock_closed_form,
    transform,
)

from chargeref.geometry.paths import Barrier, Planner
from chargeref.geometry.shapes import Disc, Ellipse, Footprint


@SETTINGS
@given(rot=st.floats(0, TWO_PI), mirror=st.booleans(), clear=st.sampled_from([1e-3, 1e-5, 0.0, -5e-7]))
@example(rot=1.0, mirror=False, clear=1e-3)
@example(rot=3.3, mirror=True, clear=1e-3)
@example(rot=1.0, mirror=True, clear=0.0)
def test_route_over_the_rock_under_an_oval_at_any_turn(rot, mirror, clear):
    """A disc C-obstacle (the rock) below an oval one, ``clear`` apart (within TOL =
    1e-6 counts as apart): the shortest route hugs the rock, through the gap."""
    bars, base, got = over_the_rock(clear, rot, mirror)
    assert got is not None and got.exact, got.reason
    assert got.length == pytest.approx(rock_closed_form(), abs=1e-6)
    check_path(base, got, bars)


@pytest.mark.parametrize("clear", [-2e-6, -1e-3])
@pytest.mark.parametrize("rot,mirror", [(1.0, False), (3.3, True)])
def test_overlap_beyond_tol_closes_the_gap_at_any_turn(clear, rot, mirror):
    """Just past the threshold (penetration 2e-6 > TOL) there is no passage: the long
    way round, proven."""
    bars, base, got = over_the_rock(clear, rot, mirror)
    assert got is not None and got.exact, got.reason
    assert got.length > rock_closed_form() + 0.1
    check_path(base, got, bars)


def between_two_ovals(clear: float, rot: float, mirror: bool):
    """A round base (r 0.5) from (0, 1) to (20, 1) over an oval (semi-axes 3, 1 at
    (10, 0): its C-obstacle's top at (10, 1.5)) under another oval (semi-axes 2, 0.5)
    whose C-obstacle's lowest point is at (10, 1.5 + clear). Both C-obstacles are
    oval-involved (no exact core): the pair is judged by the certified distance."""
    f, ang = transform(rot, mirror)
    low = (*f((10.0, 0.0)), 3.0, 1.0, ang(0.0))
    bars = [oval(f((10.0, 0.0)), 3.0, 1.0, ang(0.0), "low"), oval(f((10.0, 2.5 + clear)), 2.0, 0.5, ang(0.0), "high")]
    base = disc(f((0.0, 1.0)), 0.5)
    S, G = f((0.0, 1.0)), f((20.0, 1.0))
    return bars, base, Planner(bars).plan(base, G), hull_path_ref([low], 0.5, S, G)


@SETTINGS
@given(rot=st.floats(0, TWO_PI), mirror=st.booleans(), clear=st.sampled_from([1e-3, 1e-5, 0.0]))
@example(rot=1.0, mirror=False, clear=1e-3)
@example(rot=3.3, mirror=True, clear=1e-5)
@example(rot=0.0, mirror=False, clear=1e-3)
def test_route_between_two_ovals_at_any_turn(rot, mirror, clear):
    bars, base, got, ref = between_two_ovals(clear, rot, mirror)
    assert got is not None and got.exact, got.reason
    # the hull chain is inscribed (at most ~1e-8 short of the true length)
    assert got.length == pytest.approx(ref, abs=1e-6)
    check_path(base, got, bars)


@pytest.mark.parametrize("rot,mirror", [(1.0, False), (3.3, True)])
def test_two_ovals_overlapping_beyond_tol_close_the_gap(rot, mirror):
    bars, base, got, ref = between_two_ovals(-2e-6, rot, mirror)
    assert got is not None and got.exact, got.reason
    assert got.length > ref + 0.1
    check_path(base, got, bars)


@pytest.mark.parametrize("rot,mirror", [(0.0, False), (1.0, False), (2.5, True), (0.2, False)])
def test_oval_base_between_two_rocks(rot, mirror):
    """An oval base (semi-axes 1, 0.5, turned 1 rad) between two rocks: both C-obstacles
    are oval-involved, 1e-3 apart (the rocks are placed from the base's extent in ±y, so
    the gap is the band 0 < y < 1e-3 at x = 10), and the route through it is taken: it
    never rises above the band nor dips below the start's height (going round either
    rock would). The whole scene is then turned. (Before the fix this scene was
    already answered right, by the second stage's closed form round the lower rock
    alone; it guards the graph's exact judgement of two oval-involved C-obstacles,
    which the separating normals switch on.)"""
    f, ang = transform(rot, mirror)
    th = 1.0
    # the base's extent straight up and down (its support in ±y)
    hy = math.sqrt((1.0 * math.sin(th)) ** 2 + (0.5 * math.cos(th)) ** 2)
    # rock 1 (r 1) below: its C-obstacle's top exactly at y = 0; rock 2 above: its
    # C-obstacle's bottom at y = clear
    clear = 1e-3
    c1, c2, s0 = f((10.0, -(1.0 + hy))), f((10.0, 1.0 + hy + clear)), f((0.0, -0.3))
    r1 = Barrier(Footprint((Disc(c1, 1.0),), "round", c1), None, "r1")
    r2 = Barrier(Footprint((Disc(c2, 1.0),), "round", c2), None, "r2")
    base = Footprint((Ellipse(s0, 1.0, 0.5, ang(th)),), "oval", s0)
    got = Planner([r1, r2]).plan(base, f((20.0, -0.3)))
    assert got is not None and got.exact, got.reason
    # back in the scene's own frame (the inverse of a rotation-and-mirror)
    c, s_ = math.cos(rot), math.sin(rot)
    ys = [(-s_ * p[0] + c * p[1]) * (-1.0 if mirror else 1.0) for p in got.points]
    assert max(ys) <= clear + 1e-6
    assert min(ys) >= -0.3 - 1e-9
    check_path(base, got, [r1, r2])
