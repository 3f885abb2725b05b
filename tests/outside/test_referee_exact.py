"""The outside referee's exact geometry (``referee_exact.py``) against closed forms at
thresholds and against the referee's earlier sampled versions on random cases: the
separation never below the scan of 1024 directions (beyond the branch and bound's
1e-10), the least value along an arc never above the least of points sampled on it.
"""

from __future__ import annotations

import copy
import math
import os
from typing import Any

import pytest
import referee
import referee_exact as X
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from referee import Shape

SETTINGS = settings(
    max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "40")),
    deadline=None,
    derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
KINDS = ("disc", "rect", "ellipse")


def _shape(kind: str, x: float, y: float, a: float, b: float, h: float) -> Shape:
    return Shape("disc", x, y, a) if kind == "disc" else Shape(kind, x, y, a, b, h)


def _arc(cx: float, cy: float, r: float, t0: float, t1: float) -> dict[str, Any]:
    """An arc piece from angle t0 to t1 (counter-clockwise when t1 > t0)."""
    return {"kind": "arc", "center": [cx, cy], "radius": r, "from": [cx + r * math.cos(t0), cy + r * math.sin(t0)],
            "to": [cx + r * math.cos(t1), cy + r * math.sin(t1)], "ccw": t1 > t0}


size = st.floats(0.2, 1.6)
coord = st.floats(-4.0, 4.0)
angle = st.floats(0.0, 2 * math.pi)
shape_args = st.tuples(st.sampled_from(KINDS), size, size, angle)


# ----------------------------------------------------------------------- static pairs


@SETTINGS
@given(A=shape_args, B=shape_args, x=coord, y=coord)
@example(A=("rect", 1.0, 0.5, 0.3), B=("rect", 1.0, 0.5, 0.3 + math.pi), x=2.0 * math.cos(0.3),
         y=2.0 * math.sin(0.3))  # two rectangles face to face, touching
@example(A=("ellipse", 1.2, 0.4, 0.0), B=("rect", 0.5, 0.5, 0.7), x=1.0, y=0.2)
@example(A=("ellipse", 0.4, 1.2, 1.0), B=("ellipse", 1.5, 0.3, 2.0), x=0.3, y=-0.1)  # deep overlap
def test_separation_never_below_the_scan(A: tuple, B: tuple, x: float, y: float) -> None:
    """The exact separation is a max over directions, so never below any direction the
    scan tried (less the branch and bound's certified 1e-10); rectangles: the corner
    form and the Minkowski form agree."""
    sa = _shape(A[0], 0.0, 0.0, *A[1:])
    sb = _shape(B[0], x, y, *B[1:])
    exact = referee.separation(sa, sb)
    assert exact >= referee.separation_scan(sa, sb) - 2 * X.BB_TOL
    if sa.kind == sb.kind == "rect":
        assert abs(exact - X.rect_rect_separation(sa, sb)) <= 1e-12
    # the same pair the other way round
    assert abs(exact - referee.separation(sb, sa)) <= 2 * X.BB_TOL


@pytest.mark.parametrize("gap", [0.0, 1.0, 1.001, -0.25])
@pytest.mark.parametrize("h", [0.0, 0.7, 2.5])
def test_rectangles_face_to_face_and_corner_to_corner(gap: float, h: float) -> None:
    """Two 2x1 rectangles turned by h: side by side along their long axis the gap is
    the centre distance minus both half-lengths (negative: the overlap); placed corner
    to corner diagonally the gap is the corners' distance."""
    c, s = math.cos(h), math.sin(h)
    A = Shape("rect", 0.0, 0.0, 1.0, 0.5, h)
    d = 2.0 + gap
    B = Shape("rect", d * c, d * s, 1.0, 0.5, h + math.pi / 2 * 2)
    assert abs(referee.separation(A, B) - gap) <= 1e-12
    if gap > 0:
        # B's corner (-1, -0.5) set gap/sqrt2 beyond A's corner (1, 0.5), diagonally
        u = 1.0 + 1.0 + gap / math.sqrt(2)
        v = 0.5 + 0.5 + gap / math.sqrt(2)
        B = Shape("rect", u * c - v * s, u * s + v * c, 1.0, 0.5, h)
        assert abs(referee.separation(A, B) - gap) <= 1e-12


@pytest.mark.parametrize("gap", [0.0, 1.0, 1.001, -0.01])
def test_ellipse_against_a_rectangle_and_an_ellipse_on_their_axes(gap: float) -> None:
    """An oval 60x35 mm facing along 0.4 rad: a rectangle square to that axis, beyond its
    tip, is the centre distance minus 30 mm minus the rectangle's half-depth away; an
    oval side by side (axes parallel) the distance minus twice 17.5 mm."""
    mm, h = 1 / 25.4, 0.4
    oval = Shape("ellipse", 10.0, 10.0, 30 * mm, 17.5 * mm, h)
    d = 30 * mm + 0.5 + gap
    rect = Shape("rect", 10.0 + d * math.cos(h), 10.0 + d * math.sin(h), 0.5, 0.8, h)
    assert abs(referee.separation(oval, rect) - gap) <= 1e-9
    d = 35 * mm + gap
    o2 = Shape("ellipse", 10.0 - d * math.sin(h), 10.0 + d * math.cos(h), 30 * mm, 17.5 * mm, h)
    assert abs(referee.separation(oval, o2) - gap) <= 1e-9


def test_a_disc_inside_an_ellipse_and_inside_a_rectangle() -> None:
    """Depth from inside: an ellipse's centre is its short semi-axis from the boundary;
    a point on the long axis within the tip's centre of curvature is nearest to the
    off-axis point (a^2 x/(a^2-b^2), b sqrt(1 - x0^2/a^2)); a rectangle's inside point
    is nearest to its nearest side."""
    a, b, rho = 2.0, 1.0, 0.1
    e = Shape("ellipse", 5.0, 5.0, a, b, 0.0)
    assert abs(referee.separation(e, Shape("disc", 5.0, 5.0, rho)) - (-b - rho)) <= 1e-12
    x = 1.2  # < (a^2 - b^2)/a = 1.5
    x0 = a * a * x / (a * a - b * b)
    depth = math.hypot(x0 - x, b * math.sqrt(1 - (x0 / a) ** 2))
    assert abs(referee.separation(e, Shape("disc", 5.0 + x, 5.0, rho)) - (-depth - rho)) <= 1e-9
    x = 1.9  # beyond the centre of curvature: the tip is nearest
    assert abs(referee.separation(e, Shape("disc", 5.0 + x, 5.0, rho)) - (-(a - x) - rho)) <= 1e-12
    r = Shape("rect", 0.0, 0.0, 2.0, 1.0, 0.3)
    p = (0.5 * math.cos(0.3) - 0.2 * math.sin(0.3), 0.5 * math.sin(0.3) + 0.2 * math.cos(0.3))
    assert abs(referee.separation(r, Shape("disc", *p, rho)) - (-0.8 - rho)) <= 1e-12


# ----------------------------------------------------------------------- arcs


@SETTINGS
@given(A=shape_args, B=shape_args, x=coord, y=coord, cx=coord, cy=coord, r=st.floats(0.3, 5.0),
       t0=st.floats(-math.pi, math.pi), sweep=st.floats(-3.0, 3.0))
@example(A=("disc", 0.6, 0.6, 0.0), B=("rect", 1.0, 0.3, 0.2), x=0.0, y=0.0, cx=0.0, cy=-3.0, r=2.4,
         t0=0.5, sweep=2.0)  # the arc sweeps past a corner
@example(A=("rect", 0.8, 0.4, 1.0), B=("ellipse", 1.0, 0.5, 0.2), x=0.5, y=0.5, cx=0.0, cy=0.0, r=2.0,
         t0=0.0, sweep=3.0)
@example(A=("ellipse", 1.0, 0.5, 0.0), B=("disc", 0.6, 0.6, 0.0), x=0.0, y=0.0, cx=0.0, cy=0.0, r=1.0,
         t0=-1.0, sweep=-2.5)  # the disc inside the arc's reach all along
def test_arc_never_above_its_samples(A: tuple, B: tuple, x: float, y: float, cx: float, cy: float, r: float,
                                     t0: float, sweep: float) -> None:
    """The least separation along an arc is never above the least over 257 points of it
    (beyond 1e-9), and where the closed forms apply the certified branch and bound
    gives the same value."""
    mover = _shape(A[0], 0.0, 0.0, *A[1:])
    other = _shape(B[0], x, y, *B[1:])
    seg = _arc(cx, cy, r, t0, t0 + sweep)
    exact = referee.least_separation_along_arc(mover, seg, other)
    assert exact <= referee.sampled_least_separation_along_arc(mover, seg, other, 256) + 1e-9
    if "ellipse" not in (mover.kind, other.kind):
        assert abs(X.arc_bb_min(mover, *X.arc_angles(seg), other) - exact) <= 1e-9


@pytest.mark.parametrize("clear", [0.0, 1.0, 1.001, -0.3])
def test_arc_against_a_point_disc_and_corner_closed_forms(clear: float) -> None:
    """A disc of radius 0.5 on an arc of radius 4 about (0, 0) from -1 to 2 rad passes a
    disc of radius 0.6 set on the ray at 0.3 rad at 4 + 1.1 + clear: the least gap is
    ``clear``; off the arc's span (the ray at 2.5 rad) it is the gap from the nearer end.
    A rectangle whose corner sits on the ray at 0.3 rad, pointing at the centre: the
    least gap is the same closed form."""
    mover = Shape("disc", 0.0, 0.0, 0.5)
    seg = _arc(0.0, 0.0, 4.0, -1.0, 2.0)
    d = 4.0 + 1.1 + clear
    o = Shape("disc", d * math.cos(0.3), d * math.sin(0.3), 0.6)
    assert abs(referee.least_separation_along_arc(mover, seg, o) - clear) <= 1e-12
    o = Shape("disc", d * math.cos(2.5), d * math.sin(2.5), 0.6)
    end = (4.0 * math.cos(2.0), 4.0 * math.sin(2.0))
    want = math.hypot(o.cx - end[0], o.cy - end[1]) - 1.1
    assert abs(referee.least_separation_along_arc(mover, seg, o) - want) <= 1e-12
    if clear >= 0:
        # a square of half-side 0.4 turned 45 degrees off the ray: its corner points at the centre
        k = 4.5 + clear + 0.4 * math.sqrt(2)
        sq = Shape("rect", k * math.cos(0.3), k * math.sin(0.3), 0.4, 0.4, 0.3 + math.pi / 4)
        assert abs(referee.least_separation_along_arc(mover, seg, sq) - clear) <= 1e-12


@pytest.mark.parametrize("clear", [0.0, 1.0, 1.001])
def test_arc_round_an_ellipse_closed_form(clear: float) -> None:
    """A disc of radius 0.3 on an arc about an ellipse's centre (semi-axes 1.5 and 0.8,
    long axis at 1.1 rad) at radius 1.5 + 0.3 + clear: the least gap is ``clear``, at
    the long tip, when the arc spans the tip's direction; else the nearer end's gap."""
    e = Shape("ellipse", 2.0, 3.0, 1.5, 0.8, 1.1)
    mover = Shape("disc", 0.0, 0.0, 0.3)
    R = 1.5 + 0.3 + clear
    seg = _arc(2.0, 3.0, R, 0.2, 1.4)
    got = referee.least_separation_along_arc(mover, seg, e)
    assert abs(got - clear) <= 1e-9
    seg = _arc(2.0, 3.0, R, 1.4, 2.6)  # the tip at 1.1 rad is off this arc
    end = Shape("disc", 2.0 + R * math.cos(1.4), 3.0 + R * math.sin(1.4), 0.3)
    assert abs(referee.least_separation_along_arc(mover, seg, e) - referee.separation(end, e)) <= 1e-9


def _arc_ruling(clear: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """Edition 10: a 32 mm charger runs a quarter circle (radius 6", about (30, 14))
    round a non-target 32 mm model whose least gap to the path is 1" + ``clear``, at an
    angle halfway between two of the 65 points the old check sampled."""
    r32 = 16 / 25.4
    c = (30.0, 14.0)
    t0, t1 = math.pi, math.pi / 2  # clockwise from (24, 14) to (30, 20)
    tm = t0 + (t1 - t0) * 20.5 / 64
    d = 6.0 - 2 * r32 - 1.0 - clear
    near = [c[0] + d * math.cos(tm), c[1] + d * math.sin(tm)]
    start = [c[0] + 6.0 * math.cos(t0), c[1] + 6.0 * math.sin(t0)]
    end = [c[0] + 6.0 * math.cos(t1), c[1] + 6.0 * math.sin(t1)]
    tgt = [end[0], end[1] + 2 * r32 + 0.5]
    units = [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [{"id": "A1", "at": start,
                                                                           "base": {"round": 32}}]},
             {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "B1", "at": tgt,
                                                                           "base": {"round": 32}}]},
             {"id": "C", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "C1", "at": near,
                                                                           "base": {"round": 32}}]}]
    scen = {"format": "chargeref/1", "system": "40k", "rules": {"edition": 10, "wtc": False},
            "board": {"width": 60, "depth": 44}, "units": units}
    after = copy.deepcopy(scen)
    after["units"][0]["models"][0]["at"] = end
    seg = {"kind": "arc", "center": list(c), "radius": 6.0, "from": start, "to": end, "ccw": False}
    length = 6.0 * math.pi / 2
    ruling = {"charger": "A", "targets": ["B"], "eligible": True, "success": True, "roll": {"total": 12},
              "needed": {"distance": length, "roll": 10},
              "moves": [{"id": "A1", "from": start + [0.0], "to": end + [0.0], "distance": length,
                         "segments": [seg]}], "after": after}
    return scen, ruling


@pytest.mark.parametrize("clear,caught", [(0.0, True), (-0.001, True), (0.001, False)])
def test_referee_sees_an_arc_dip_into_engagement_range_between_samples(clear: float, caught: bool) -> None:
    """The path's least gap to a non-target at exactly 1.000" is within engagement
    range (edition 10), 0.001" more is not; the old check (65 points) missed the dip to
    1.000" (it saw 1.0007")."""
    scen, ruling = _arc_ruling(clear)
    codes = {f.code for f in referee.check(scen, ruling)}
    assert ("path_in_er_of_non_target" in codes) is caught, codes
    m = referee.Shape("disc", 0.0, 0.0, 16 / 25.4)
    o = referee.models_40k(scen)["C1"].shape
    seg = ruling["moves"][0]["segments"][0]
    assert abs(referee.least_separation_along_arc(m, seg, o) - (1.0 + clear)) <= 1e-12
    # the old 65 points sit 0.0123 rad either side of the dip: they see it 7e-4 too far
    assert referee.sampled_least_separation_along_arc(m, seg, o) >= 1.0 + clear + 5e-4


@pytest.mark.parametrize("ed", [9, 10, 11])
def test_one_on_one_at_a_board_edge_least_move_closed_form(ed: int) -> None:
    """A 2" round charger at (1.2, 20) and a 1" round target touching the left edge at
    (0.5, 10): the straight approach would cross the edge, so the least move ends with
    the charger touching the edge, its centre at (1, 10 + sqrt((1.5 + er)^2 - 0.5^2)).
    The referee takes that distance and no other (1e-3 more is a finding)."""
    er = 2.0 if ed == 11 else 1.0
    scen = {"format": "chargeref/1", "system": "40k", "rules": {"edition": ed}, "board": {"width": 60, "depth": 44},
            "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"],
                       "models": [{"id": "A1", "at": [1.2, 20.0], "base": {"round": 50.8}}]},
                      {"id": "B", "player": 2, "keywords": ["INFANTRY"],
                       "models": [{"id": "B1", "at": [0.5, 10.0], "base": {"round": 25.4}}]}]}
    end = [1.0, 10.0 + math.sqrt((1.5 + er) ** 2 - 0.25)]
    want = math.hypot(0.2, 20.0 - end[1])
    got = referee.least_move_on_board(Shape("disc", 1.2, 20.0, 1.0), Shape("disc", 0.5, 10.0, 0.5), er, 60.0, 44.0)
    assert abs(got - want) <= 1e-9
    after = copy.deepcopy(scen)
    after["units"][0]["models"][0]["at"] = end
    gap = math.hypot(0.7, 10.0) - 1.5
    roll = math.ceil(max(gap, want) if ed == 11 else want)
    ruling = {"charger": "A", "targets": ["B"], "eligible": True, "success": True, "roll": {"total": 12},
              "needed": {"distance": want, "roll": roll},
              "moves": [{"id": "A1", "from": [1.2, 20.0, 0.0], "to": end + [0.0], "distance": want}], "after": after}
    assert [str(f) for f in referee.check(scen, ruling)] == []
    ruling["needed"]["distance"] = want + 1e-3
    assert "closed_form" in {f.code for f in referee.check(scen, ruling)}


@settings(SETTINGS, max_examples=min(SETTINGS.max_examples, 15))
@given(A=shape_args, B=shape_args, ty=st.floats(0.0, 44.0), ang=st.floats(-1.5, 1.5), dist=st.floats(2.0, 11.0),
       reach=st.sampled_from([1.0, 2.0]))
@example(A=("disc", 1.0, 1.0, 0.0), B=("disc", 0.5, 0.5, 0.0), ty=10.0, ang=1.5007, dist=10.0245,
         reach=1.0)  # near the closed-form case above
@example(A=("ellipse", 1.77, 1.02, 2.67), B=("ellipse", 1.48, 0.83, 1.86), ty=0.0, ang=1.44, dist=6.5,
         reach=1.0)  # ovals in a corner
def test_least_move_on_the_board_is_feasible_and_never_beaten(A: tuple, B: tuple, ty: float, ang: float, dist: float,
                                                             reach: float) -> None:
    """Target against the left edge (or in a corner), the charger on the board: the
    least move's spot is on the board and within reach, never shorter than the gap less
    the reach, and no spot sampled on the left side of the box the board allows the
    centre, or on lines through the answer, that is on the board and within reach is
    nearer."""
    t0 = _shape(B[0], 0.0, 0.0, *B[1:])
    tgt = referee.moved(t0, t0.support(-1, 0), min(max(ty, t0.support(0, -1)), 44.0 - t0.support(0, 1)))
    m0 = _shape(A[0], 0.0, 0.0, *A[1:])
    mv = referee.moved(m0, tgt.cx + dist * math.cos(ang), tgt.cy + dist * math.sin(ang))
    if not referee._on_board(mv, 60.0, 44.0) or referee.separation(mv, tgt) <= reach:
        return
    d, x, y = referee.least_spot_on_board(mv, tgt, reach, 60.0, 44.0)
    end = referee.moved(mv, x, y)
    assert referee._on_board(end, 60.0, 44.0)
    assert referee.separation(end, tgt) <= reach + 1e-9
    assert abs(d - math.hypot(x - mv.cx, y - mv.cy)) <= 1e-12
    assert d >= referee.separation(mv, tgt) - reach - 1e-9
    lo_x = m0.support(-1, 0)
    for k in range(-40, 41):
        for px, py in ((lo_x, y + k * 0.05), (x + k * 0.01, y), (x, y + k * 0.01)):
            s = referee.moved(mv, px, py)
            if referee._on_board(s, 60.0, 44.0) and referee.separation(s, tgt) <= reach:
                assert math.hypot(px - mv.cx, py - mv.cy) >= d - 1e-9
