"""A round stand's footprint is its exact disc (no polygon standing in for it).

Only characters stand on round bases, and they neither charge nor block, so the one
place a round footprint is measured is the battlefield check of a (refused) round
base on another type: its overlap with a rectangle is decided at the disc's radius."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from wm_helpers import SYSTEM, infantry_line, scen

from chargeref.systems.warmaster.geom import footprint_sd, rect
from chargeref.systems.warmaster.world import build_world

R = 1.25  # a 25 mm base, in cm


def overlap_problems(gap: float) -> list[str]:
    """A round infantry stand whose disc is ``gap`` straight ahead of the front edge
    of a 4 x 2 cm stand at (20, 20) facing 90."""
    c = (20.0, 21.0 + R + gap)
    data = {"units": [infantry_line("A", 1, [20.0], 20.0, 90.0),
                      {"id": "B", "player": 1, "type": "infantry", "base": {"round": 25},
                       "stands": [{"at": list(c)}]}]}
    return [str(p) for p in SYSTEM.problems(scen(data)) if "overlaps" in str(p)]


@pytest.mark.parametrize("gap, overlaps", [(0.001, False), (0.0, False), (-0.001, True)])
def test_round_stand_overlap_is_decided_at_its_radius(gap, overlaps):
    # a 32-gon round the disc reached 0.006 cm past it and flagged the first case
    assert bool(overlap_problems(gap)) is overlaps


def test_a_round_stand_has_no_polygon():
    w = build_world(scen({"units": [{"id": "G", "player": 1, "type": "character", "base": {"round": 25},
                                     "stands": [{"at": [10, 10]}]}]}))
    g = w.stands[0]
    assert g.disc == ((10.0, 10.0), 1.25)
    with pytest.raises(ValueError):
        _ = g.poly


@settings(max_examples=25, deadline=None, derandomize=True)
@given(ang=st.floats(0, 360), dist=st.floats(0.0, 6.0), spin=st.floats(0, 360))
@example(ang=0.0, dist=1.25 + 2.0, spin=0.0)
def test_footprint_sd_against_closed_form(ang, dist, spin):
    # a disc centred ``dist`` from the centre of a 4 x 2 rectangle, in the rectangle's
    # frame: the signed distance of the disc is the point's minus its radius
    P = rect((0.0, 0.0), spin, 4.0, 2.0)
    a, s = math.radians(ang), math.radians(spin)
    lx, ly = dist * math.cos(a), dist * math.sin(a)  # in the rectangle's frame (x forward)
    c = (lx * math.cos(s) - ly * math.sin(s), lx * math.sin(s) + ly * math.cos(s))
    hx, hy = 1.0, 2.0  # half depth (forward), half width
    qx, qy = abs(lx) - hx, abs(ly) - hy
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
    want = (outside if outside > 0 else max(qx, qy)) - R
    assert footprint_sd(P, ((c[0], c[1]), R)) == pytest.approx(want, abs=1e-9)
    assert footprint_sd(((c[0], c[1]), R), P) == pytest.approx(want, abs=1e-9)
