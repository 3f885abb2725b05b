"""The board-aware lower bound for every base shape (issue 9, round 8).

A base may not end partly off the board, so when the straight approach toward a target
would carry it over an edge, the least move is longer than the plain straight bound.
``spots._board_bound`` used to know this for round models and round targets only; it is
now built for every base (``_model_board_bound``, geometry ``locus_box_distance``).

Closed form: a 3" round charger (r = 1.5) starts at (1.5, y0) against the left edge; the
target is a 2" x 1" rectangle standing in the corner region at x in [0, 1], y in [10, 12]
(or in the very corner, y in [0, 2]). The set of centres within 1" of the target is the
rectangle grown by 2.5"; its corner arc round (1, top) meets the drawn-in edge x = 1.5 at
y = top + sqrt(2.5^2 - 0.5^2) = top + sqrt(6), so the least move is y0 - top - sqrt(6),
while the plain bound (the straight line to the grown rectangle, which would leave the
board) is shorter. Turned by 90, 180 and 270 degrees and mirrored, edges map onto edges.
A base that may turn (oval, rectangle) is bounded over all its facings: the bound never
exceeds the move found.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.locus_lines import disc_box_distance, locus_box_distance
from chargeref.geometry.shapes import Disc, Ellipse, Footprint
from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.systems.w40k.world import build_world
from chargeref.validate.w40k import validate

S = find_system("40k")
W, D = 60.0, 44.0
MM = 25.4
SQ6 = math.sqrt(6.0)


def _place(x: float, y: float, f: float, turn: int, mirror: bool) -> tuple[list[float], float, float, float]:
    """(x, y) and facing f on the 60 x 44 board, turned by ``turn`` degrees (a multiple
    of 90) about the origin and shifted back onto the board, then mirrored left to
    right; with the board's new width and depth."""
    w, d = W, D
    for _ in range(turn // 90):
        x, y, f, w, d = d - y, x, f + 90.0, d, w
    if mirror:
        x, f = w - x, 180.0 - f
    return [x, y], f % 360.0, w, d


def board(y0: float, top: float, turn: int = 0, mirror: bool = False, mover: dict[str, Any] | None = None,
          ed: int = 10) -> dict[str, Any]:
    """The charger at (1.5, y0), the 2" x 1" target at x in [0, 1], y in [top - 2, top]."""
    a, fa, w, d = _place(1.5, y0, 0.0, turn, mirror)
    b, fb, _, _ = _place(0.5, top - 1.0, 0.0, turn, mirror)
    return {"format": "chargeref/1", "system": "40k", "rules": {"edition": ed}, "board": {"width": w, "depth": d},
            "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"],
                       "models": [{"id": "A1", "at": a, "base": mover or {"round": 3 * MM}, "facing": fa}]},
                      {"id": "B", "player": 2, "keywords": ["INFANTRY"],
                       "models": [{"id": "B1", "at": b, "base": {"rect": [2 * MM, MM]}, "facing": fb}]}]}


def bound_of(data: dict[str, Any]) -> float:
    scen = scenario_from_data(data)
    prob = S._problem(build_world(scen), ChargeRequest(charger="A", targets=("B",), roll=12))
    return prob.lower_bound()


TURNS = [(0, False), (90, False), (180, False), (270, False), (0, True), (90, True), (270, True)]


@pytest.mark.parametrize(("turn", "mirror"), TURNS)
@pytest.mark.parametrize("top", [12.0, 2.0], ids=["edge", "corner"])
def test_round_charger_rect_target_closed_form(turn: int, mirror: bool, top: float) -> None:
    # the least move is 7.02, the plain straight bound about 6.98 (a roll of 7): the
    # board bound proves 8
    y0 = 7.02 + top + SQ6
    data = board(y0, top, turn, mirror)
    assert bound_of(data) == pytest.approx(7.02, abs=1e-9)
    scen = scenario_from_data(data)
    need = S.needed(scen, ChargeRequest(charger="A", targets=("B",)))
    assert need.roll == 8 and need.exact is True, need
    assert need.distance == pytest.approx(7.02, abs=1e-6)
    assert need.lower_bound <= need.distance + 1e-9


@pytest.mark.parametrize(("turn", "mirror"), [(0, False), (90, True), (180, False), (270, True)])
@pytest.mark.parametrize(("move", "least"), [(7 + 1e-6 - 1e-12, 7), (7 + 1.001e-6, 8)])
def test_the_board_bound_at_the_roll_edge(turn: int, mirror: bool, move: float, least: int) -> None:
    # the bound at the tolerance's edge: a least move of R + 1e-6 is proven R, one of
    # R + 1.001e-6 is proven R + 1 (the corner arc's crossing with the edge, closed
    # form). The start's y0 = move + 12 + sqrt(6) rounds (about 1e-14), which can put
    # the exact move itself over R + 1e-6: the inside edge is taken 1e-12 inside it
    data = board(move + 12.0 + SQ6, 12.0, turn, mirror)
    scen = scenario_from_data(data)
    ok = S.charge(scen, ChargeRequest(charger="A", targets=("B",), roll=least))
    assert ok.needed.roll == least and ok.needed.exact is True, ok.needed
    assert ok.success and validate(scen, ok) == []
    short = S.charge(scen, ChargeRequest(charger="A", targets=("B",), roll=least - 1))
    assert not short.success and short.needed.exact is True
    assert validate(scen, short) == []


MOVERS = [{"oval": [60, 35.5]}, {"rect": [50.8, 25.4]}, {"rect": [25.4, 50.8]}]


@pytest.mark.parametrize(("turn", "mirror"), TURNS)
@pytest.mark.parametrize("mover", MOVERS, ids=["oval", "rect-deep", "rect-wide"])
@pytest.mark.parametrize("top", [12.0, 2.0], ids=["edge", "corner"])
def test_a_base_that_may_turn_is_bounded_at_every_facing(turn: int, mirror: bool, mover: dict[str, Any],
                                                        top: float) -> None:
    # oval and rectangular chargers may turn (pivots): their bound is a relaxation that
    # holds at every facing, so it never exceeds the move found, and it is no lower
    # than the plain straight bound
    data = board(6.5 + top + SQ6, top, turn, mirror, mover)
    scen = scenario_from_data(data)
    need = S.needed(scen, ChargeRequest(charger="A", targets=("B",)))
    assert need.roll is not None
    assert need.lower_bound <= need.distance + 1e-9, need
    w = build_world(scen)
    a, b = w.unit_models["A"][0], w.unit_models["B"][0]
    from chargeref.geometry.shapes import signed_distance

    plain = float(signed_distance(a.fp, b.fp)) - 1.0
    assert need.lower_bound >= plain - 1e-9


BOX = settings(max_examples=25, deadline=None, derandomize=True)


@BOX
@given(px=st.floats(0.5, 59.5), py=st.floats(0.5, 43.5), cx=st.floats(-1.0, 61.0), cy=st.floats(-1.0, 45.0),
       rm=st.floats(0.5, 2.0), rt=st.floats(0.3, 3.0), d=st.floats(0.0, 3.0))
@example(px=1.5, py=20.0, cx=0.5, cy=11.0, rm=1.5, rt=1.0, d=1.0)
@example(px=30.0, py=1.0, cx=59.0, cy=0.5, rm=1.0, rt=1.0, d=2.0)
def test_locus_box_distance_is_the_disc_closed_form(px: float, py: float, cx: float, cy: float, rm: float, rt: float,
                                                   d: float) -> None:
    # two round bases: the set is a disc, and the closed form of disc_box_distance is
    # the answer; the root finder's answer agrees within 1e-9
    p = np.array([px, py])
    mover = Footprint((Disc((px, py), rm),), origin=(px, py))
    target = Footprint((Disc((cx, cy), rt),), origin=(cx, cy))
    lo, hi = np.array([rm, rm]), np.array([W - rm, D - rm])
    want = float(disc_box_distance(p, np.array([cx, cy]), np.array(rm + rt + d), lo, hi))
    got = locus_box_distance(mover, target, d, p, lo, hi)
    if math.isinf(want):
        assert math.isinf(got)
    else:
        assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("p", "c", "theta"), [((10.0, 1.0), (5.0, 0.5), 0.0), ((1.0, 8.0), (0.3, 3.0), 0.7),
                                                ((3.0, 3.0), (0.5, 0.5), 2.0)])
def test_locus_box_distance_oval_target_near_an_edge(p: tuple[float, float], c: tuple[float, float],
                                                     theta: float) -> None:
    # a round mover (r = 1) and an oval target (semi-axes 2 and 1, turned by theta)
    # hanging over the board's edge or corner: checked against a dense check of the
    # set itself (test only): no spot of the set in the box is nearer than the answer,
    # and some spot is within the check's spacing of it
    P = np.array(p)
    mover = Footprint((Disc(p, 1.0),), origin=p)
    target = Footprint((Ellipse(c, 2.0, 1.0, theta),), origin=c)
    lo, hi = np.array([1.0, 1.0]), np.array([59.0, 43.0])
    got = locus_box_distance(mover, target, 1.0, P, lo, hi)
    g = np.arange(-4.5, 4.5 + 1e-9, 0.02)
    X, Y = np.meshgrid(g + c[0], g + c[1])
    Q = np.stack([X.ravel(), Y.ravel()], axis=1)
    Q = Q[np.all((Q >= lo) & (Q <= hi), axis=1)]
    # the mover within 1" of the oval: its centre within 2" of the oval (r = 1)
    near = Q[target.parts[0].point_distance(Q) <= 2.0]
    best = float(np.min(np.hypot(*(near - P).T)))
    assert got <= best + 1e-9
    assert best - got <= 0.03
