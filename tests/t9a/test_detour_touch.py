"""The blocked-approach search settles its answer onto a real touch (``detour_touch``).

A block charges a round base. The base's 'facing' is its tangent line at the point
facing the charger's front middle, and the free align turns the charger about that
tangent point: any align turn there swings the front edge into the base by about
``r a^2 / 2`` (``a`` the turn, ``r`` the radius). The shortest unobstructed approach
aligns, so it is blocked by the target itself, and the search's test, which lets a
path overlap by ``SEARCH_SLACK``, accepts turns up to ``sqrt(2 SEARCH_SLACK / r)``:
about 1.7e-3 inch shorter than any approach that only touches (snapshot call 187).

The least touching approach is solvable by hand: no align (``a = 0``), so the wheel is
the whole turn ``theta`` from the charger's facing to the line from its front middle
to the base's centre, made at once (a forward move first only moves the charger
along a heading ``theta`` off the one it ends on); then straight on until the front
lies on the tangent line. Its distance is ``w |theta|`` (the outer corner's arc) plus
the distance of the wheeled front middle from the tangent line.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import SYSTEM, charge, round_unit, scen, unit

from chargeref.geometry.shapes import TOL
from chargeref.systems import ChargeRequest
from chargeref.systems.t9a import distance as distance_mod
from chargeref.systems.t9a.charge import search_obstacles
from chargeref.systems.t9a.detour_touch import SEARCH_SLACK, TOUCH_SLACK, touch_obstacles
from chargeref.systems.t9a.world import Obstacle, Step
from chargeref.testing import assert_legal_charge

MM = 25.4
F, FACING = (30.0, 26.0), 225.0
#: the round target's front point, facing and diameter (mm)
M, M_FACING, M_D = (24.0, 21.0), 90.0, 60.0
W = 5 * 20 / MM
R = M_D / 2 / MM
CENTRE = (M[0], M[1] - R)


def closed_form() -> float:
    """The least touching distance (see the module docstring), in the original frame."""
    psi = math.atan2(CENTRE[1] - F[1], CENTRE[0] - F[0])
    phi = math.radians(FACING)
    th = (psi - phi + math.pi) % (2 * math.pi) - math.pi
    f = np.array([math.cos(phi), math.sin(phi)])
    left = np.array([-f[1], f[0]])
    pivot = np.array(F) + (W / 2 if th > 0 else -W / 2) * left  # the inner front corner
    rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    fw = pivot + rot @ (np.array(F) - pivot)
    u = np.array([math.cos(psi), math.sin(psi)])
    return W * abs(th) + (-float((fw - np.array(CENTRE)) @ u) - R)


def _rot(p: tuple[float, float], spin: float, mirror: bool, c: tuple[float, float] = (24.0, 24.0)) -> tuple[float, float]:
    dx, dy = p[0] - c[0], p[1] - c[1]
    if mirror:
        dx = -dx
    r = math.radians(spin)
    return (c[0] + math.cos(r) * dx - math.sin(r) * dy, c[1] + math.sin(r) * dx + math.cos(r) * dy)


def case(spin: float = 0.0, mirror: bool = False):
    def face(f: float) -> float:
        return ((180.0 - f if mirror else f) + spin) % 360.0

    return scen([unit("A", 1, _rot(F, spin, mirror), face(FACING), 5, 10, advance_rate=4.0),
                 round_unit("M", 2, _rot(M, spin, mirror), face(M_FACING), d=M_D, advance_rate=4.0)])


def needed(s):
    return SYSTEM.needed(s, ChargeRequest("A", ("M",)))


def _needed_with_search():
    """``needed`` of the original case, with its search's context and answer."""
    got: dict[str, object] = {}
    orig = distance_mod.detour_search

    def spy(ctx, clear):
        search = orig(ctx, clear)
        run = search.run

        def kept(*a, **k):
            got["found"] = run(*a, **k)
            return got["found"]

        search.run = kept
        got["ctx"] = ctx
        return search

    distance_mod.detour_search = spy
    try:
        res = needed(case())
    finally:
        distance_mod.detour_search = orig
    return res, got["ctx"], got["found"]


BASE, CTX, FOUND = _needed_with_search()


def test_the_distance_is_the_least_touching_one() -> None:
    d = closed_form()
    assert BASE.distance == pytest.approx(d, abs=1e-6)
    # what the search's tolerated overlap would buy: far more than the contract's 1e-6
    assert BASE.distance - BASE.lower_bound > 1e-3
    assert BASE.lower_bound <= d + 1e-9
    assert BASE.roll == max(2, math.ceil(d - 4.0 - 1e-6))


def test_the_approach_touches_and_no_more() -> None:
    ctx, (ap, steps) = CTX, FOUND.best
    assert ap.distance == pytest.approx(closed_form(), abs=1e-6)
    # its align is (all but) none: any align here turns the front into the base
    assert abs(ap.delta) < 1e-3
    assert ap.d1 == pytest.approx(0.0, abs=1e-9)  # the wheel at once
    # clear with no overlap beyond rounding (the obstacles as they are with an overlap
    # of TOUCH_SLACK allowed; the product builds the same from the search's ones) ...
    exact = [o if o.strict else Obstacle(o.uid, o.cls, o.shape, o.min_gap + TOL - TOUCH_SLACK, o.strict)
             for o in ctx.obstacles]
    assert touch_obstacles(search_obstacles(ctx.obstacles), SEARCH_SLACK) == exact
    assert all(o.ok(0.0) and o.ok(-TOUCH_SLACK / 2) and not o.ok(-2 * TOUCH_SLACK) for o in exact if not o.strict)
    assert ctx.world.check_steps(ctx.charger, steps, exact) is None
    # ... where the same approach with 0.001 degree more align runs into the base
    more = [s if s.kind != "turn" else Step("turn", s.amount + math.copysign(1e-3, s.amount or 1.0), pivot=s.pivot)
            for s in steps]
    if not any(s.kind == "turn" for s in steps):
        more.append(Step("turn", 1e-3, pivot=(float(ap.pivot[0]), float(ap.pivot[1]))))
    hit = ctx.world.check_steps(ctx.charger, more, exact)
    assert hit is not None and hit.what == "M"


@pytest.mark.parametrize("spin,mirror", [(0.0, False), (0.0, True), (137.0, False)])
def test_the_charge_is_legal(spin: float, mirror: bool) -> None:
    s = case(spin=spin, mirror=mirror)
    r = charge(s, "A", "M", dice=(5, 5))
    assert r.success
    # the distance is the least touching one in every frame
    assert r.needed.distance == pytest.approx(closed_form(), abs=1e-6)
    assert r.needed.roll == BASE.roll
    assert_legal_charge(s, r)
