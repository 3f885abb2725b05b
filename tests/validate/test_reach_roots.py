"""The validator's reach crossings along a contact locus are isolated with a proof
(``w40k_duty.reach_roots``): a target behind a round obstacle makes the path cost along
its contact locus dip to a narrow minimum, far narrower than any sample spacing, and
the duty is owed exactly when that minimum is within the roll (plus the 1e-6
tolerance). The case is built by hand from its closed form: the least path leaves the
obstacle along the tangent that points at the target's centre.

Geometry (all in inches, edition 10): C1 (a non-target enemy) at o; in edition 10 a
charger may not pass within 1" of it, so round o there is a wall of radius
R = 1 + 2 r (r = a 32 mm base's radius). B1 (the target) at b = o + (4, 0). The
least path to B1's contact locus (radius 2 r round b) follows the tangent from b to
that circle (tangent point T1 at angle a = acos(R / 4)) and touches the locus at
P* (on T1 b, 2 r from b). A1 starts on the tangent line that leaves the circle at
angle a + wrap, so its least cost to P* is |S T0| + R wrap + (|T1 b| - 2 r), set to
the roll plus ``extra``.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from duty_cases import R32, scenario, transform

from chargeref.geometry.bases import base_footprint
from chargeref.geometry.cspace import Barrier
from chargeref.geometry.paths import Planner
from chargeref.geometry.shapes import ConvexPolygon, Disc, Footprint, signed_distance
from chargeref.ruling import Move, Needed, Roll, Ruling
from chargeref.scenario import scenario_from_data
from chargeref.validate import w40k_duty
from chargeref.validate.w40k import validate

OC = np.array([100.0, 100.0])
D = 4.0
R = 1.0 + 2 * R32  # the engagement range of C1 grown by both bases
RHO = 2 * R32  # the contact locus round B1


def dip(extra: float, total: int = 8, wrap: float = math.radians(40.0), charge: float = 0.0) -> dict:
    """The case's points: start S, the closed-form best contact spot P*, a legal
    path of the charger that ends 1" short of P* (out of contact). ``charge``: what
    crossings on the way cost (the straight first leg is shortened by as much)."""
    b = OC + np.array([D, 0.0])
    a = math.acos(R / D)
    ell = math.sqrt(D * D - R * R)
    t1 = OC + R * np.array([math.cos(a), math.sin(a)])
    u = (b - t1) / ell
    pstar = t1 + (ell - RHO) * u
    be = a + wrap
    t0 = OC + R * np.array([math.cos(be), math.sin(be)])
    ts = total + extra - charge - R * wrap - (ell - RHO)
    s = t0 - ts * np.array([math.sin(be), -math.cos(be)])
    end = pstar - 1.0 * u
    # round the 1" ring by a circumscribed polygon, a hair outside it
    n = 24
    rp = R / math.cos(wrap / n / 2) + 1e-4
    ring = [OC + rp * np.array([math.cos(be - wrap * (i + 0.5) / n), math.sin(be - wrap * (i + 0.5) / n)])
            for i in range(n)]
    return {"S": s, "b": b, "P*": pstar, "path": [s, *ring, end], "total": total, "T0": t0,
            "lead": np.array([math.sin(be), -math.cos(be)]), "charge": charge, "terrain": []}


def ruling_for(case: dict, deg: float = 0.0, mirror: bool = False) -> tuple:
    s, b = case["S"], case["b"]
    data = scenario([("A", 1, [("A1", *s)]), ("B", 2, [("B1", *b)]), ("C", 2, [("C1", *OC)])], edition=10)
    path = [tuple(map(float, p)) for p in case["path"]]
    polys = [[tuple(map(float, v)) for v in poly] for poly, _ in case["terrain"]]
    if deg or mirror:
        pts = {str(i): p for i, p in enumerate(path)}
        pts.update({f"t{j}.{i}": v for j, poly in enumerate(polys) for i, v in enumerate(poly)})
        data, moved = transform(data, pts, deg, mirror)
        path = [moved[str(i)] for i in range(len(path))]
        polys = [[moved[f"t{j}.{i}"] for i in range(len(poly))] for j, poly in enumerate(polys)]
        if mirror:
            polys = [poly[::-1] for poly in polys]
    data["terrain"] = [{"id": f"W{j + 1}", "type": "obstacle", "height": h, "polygon": [list(v) for v in poly]}
                       for j, (poly, (_, h)) in enumerate(zip(polys, case["terrain"], strict=True))]
    before = scenario_from_data(copy.deepcopy(data))
    after = copy.deepcopy(data)
    after["units"][0]["models"][0]["at"] = list(path[-1])
    length = sum(math.dist(path[i], path[i + 1]) for i in range(len(path) - 1)) + case["charge"]
    total = case["total"]
    mv = [Move.model_validate({"id": "A1", "from": list(path[0]), "to": list(path[-1]), "distance": length,
                               "path": [list(p) for p in path]})]
    r = Ruling(system="40k", charger="A", targets=["B"], eligible=True, needed=Needed(distance=None, roll=total),
               roll=Roll(dice=[6, total - 6], modifier=0, total=total), success=True, procedure="normal",
               moves=mv, engaged=["B"], details={}, after=after)
    return before, r


def field(case: dict, budget: float) -> object:
    """The path field the validator builds for A1 here (C1's 1" ring and B1 are
    walls; A1 may not enter either; obstacles taller than 2" cost twice their height
    to cross)."""
    bars = [Barrier(Footprint((Disc(tuple(OC), R32 + 1.0),)), None, "N:C1"),
            Barrier(Footprint((Disc(tuple(case["b"]), R32),)), None, "M:B1")]
    bars += [Barrier(Footprint((ConvexPolygon(tuple(map(tuple, poly))),), "obstacle"), 2 * h, f"F:W{j}")
             for j, (poly, h) in enumerate(case["terrain"])]
    s = case["S"]
    return Planner(bars, (200.0, 200.0)).field(Footprint((Disc(tuple(s), R32),), "round", tuple(s)), budget=budget)


def test_the_closed_form_is_the_planners_least_cost() -> None:
    """The hand-built minimum is what the path planner measures at P* (to 1e-12), and
    the cost rises on both sides of it along the locus."""
    case = dip(0.0)
    fld = field(case, 9.0)
    c = fld.cost(case["P*"][None])[0]  # type: ignore[attr-defined]
    assert abs(c - 8.0) <= 1e-12
    b = case["b"]
    th = math.atan2(case["P*"][1] - b[1], case["P*"][0] - b[0])
    for dth in (-1e-3, 1e-3, -0.05, 0.05):
        q = b + RHO * np.array([math.cos(th + dth), math.sin(th + dth)])
        assert fld.cost(q[None])[0] > 8.0 + 1e-8  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "extra, owed",
    [
        (0.0, True),  # the minimum equals the roll: touches the budget (a tangency)
        (-1e-7, True),  # two crossings 5e-4 rad apart, inside one 2π/4096 step
        (4e-7, True),  # above the roll but inside the tolerance
        (1.1e-6, False),  # beyond the tolerance
        (1e-3, False),  # 0.001" short: no legal spot
    ],
)
def test_contact_spot_in_a_narrow_dip_of_the_path_cost(extra: float, owed: bool) -> None:
    """Base contact is owed exactly when the dip reaches within the roll (+1e-6); the
    witness spot is on B1's contact locus and its path cost is within the roll."""
    case = dip(extra)
    got = validate(*ruling_for(case))
    assert [v.code for v in got] == (["missed_base_contact"] if owed else [])
    if owed:
        spot = np.asarray(got[0].witness["spot"])
        b1 = base_footprint("round", 32, tuple(case["b"]), 0, 25.4)
        a1 = base_footprint("round", 32, tuple(spot), 0, 25.4)
        assert abs(signed_distance(a1, b1)) <= 1e-9
        assert field(case, 9.0).cost(spot[None])[0] <= 8.0 + 1e-6  # type: ignore[attr-defined]
        # the spot is in the dip: within 1e-2 rad of P* along the locus
        assert float(np.hypot(*(spot - case["P*"]))) <= 1e-2 * RHO


@pytest.mark.parametrize("deg, mirror", [(90.0, False), (33.0, True)])
def test_dip_verdicts_do_not_depend_on_orientation(deg: float, mirror: bool) -> None:
    """Rotated and mirrored, the same verdicts at the same thresholds (the sample
    angles fall elsewhere on the locus; the proof does not care)."""
    for extra, owed in ((0.0, True), (1e-3, False)):
        got = validate(*ruling_for(dip(extra), deg, mirror))
        assert [v.code for v in got] == (["missed_base_contact"] if owed else [])


def test_reach_roots_finds_a_root_pair_closer_than_any_sample_spacing() -> None:
    """Directly: the budget 1e-7 above the dip's minimum gives two crossings about
    5e-4 rad apart (less than 2π/4096 = 1.5e-3); both are found, each with its cost
    within 1e-9 of the budget."""
    case = dip(0.0)
    fld = field(case, 9.0 + 1.0)
    mover = Footprint((Disc(tuple(case["S"]), R32),), "round", tuple(case["S"]))
    target = Footprint((Disc(tuple(case["b"]), R32),), "round", tuple(case["b"]))
    budget = 8.0 + 1e-7
    walls = [(b.footprint, False) for b in fld.planner.barriers]  # type: ignore[attr-defined]
    got = w40k_duty.reach_roots(mover, target, 0.0, fld.cost, budget, limit=fld.limit, walls=walls)  # type: ignore[attr-defined]
    cost = fld.cost(got)  # type: ignore[attr-defined]
    near = got[np.abs(cost - budget) <= 1e-9]
    assert len(near) == 2
    b = case["b"]
    th = sorted(math.atan2(q[1] - b[1], q[0] - b[0]) for q in near)
    assert 0.0 < th[1] - th[0] < 2 * math.pi / 4096
    # the old way (no limit: sign changes on the refined angle set) misses the pair
    old = w40k_duty.reach_roots(mover, target, 0.0, fld.cost, budget)  # type: ignore[attr-defined]
    assert len(old) == 0 or np.all(np.abs(fld.cost(old) - budget) > 1e-9)  # type: ignore[attr-defined]


def test_reach_roots_touching_budget_gives_the_touching_point() -> None:
    """The budget equal to the dip's minimum: one touching point, whose cost is
    within ``REACH_TOUCH`` of the budget, next to P*."""
    case = dip(0.0)
    fld = field(case, 10.0)
    mover = Footprint((Disc(tuple(case["S"]), R32),), "round", tuple(case["S"]))
    target = Footprint((Disc(tuple(case["b"]), R32),), "round", tuple(case["b"]))
    walls = [(b.footprint, False) for b in fld.planner.barriers]  # type: ignore[attr-defined]
    got = w40k_duty.reach_roots(mover, target, 0.0, fld.cost, 8.0, limit=fld.limit, walls=walls)  # type: ignore[attr-defined]
    assert len(got) >= 1
    c = fld.cost(got)  # type: ignore[attr-defined]
    assert np.all(np.abs(c - 8.0) <= w40k_duty.REACH_TOUCH)
    assert float(np.min(np.hypot(*(got - case["P*"]).T))) <= 1e-2 * RHO
    # 0.001 below: nothing
    none = w40k_duty.reach_roots(mover, target, 0.0, fld.cost, 8.0 - 1e-3, limit=fld.limit, walls=walls)  # type: ignore[attr-defined]
    assert len(none) == 0


def _disc(x: float, y: float, r: float = R32) -> Footprint:
    return Footprint((Disc((x, y), r),), "round", (x, y))


def test_a_step_in_the_cost_is_cut_and_its_side_is_a_candidate() -> None:
    """A charge added inside a square of centres (as the climb onto a hill is): the
    cost jumps at the square's edge, grown by the given margin. Along the contact
    locus the budget is met outside the square and missed inside, so the reachable
    part begins at the grown edge: that point (a hair outside) comes back, on the
    locus, with its cost within the budget; without the area the jump is judged as if
    the cost were continuous and no such point comes back."""
    mover = _disc(90.0, 100.0)
    target = _disc(100.0, 100.0)
    sq = np.array([[96.0, 99.0], [99.0, 99.0], [99.0, 103.0], [96.0, 103.0]])
    margin = 1e-6
    from chargeref.geometry.shapes import polygon_point_signed_distance

    def cost(P: np.ndarray) -> np.ndarray:
        d = np.hypot(*(P - mover.center).T)
        return d + np.where(polygon_point_signed_distance(sq, P) <= margin, 5.0, 0.0)

    budget = 9.5  # the nearest contact spot (8.74" away) is inside the square; where the
    # locus leaves it (x = 99) it is 9.03" away
    got = w40k_duty.reach_roots(mover, target, 0.0, cost, budget, limit=50.0, areas=[(sq, margin)])
    assert len(got) >= 2
    assert np.all(np.abs(np.hypot(*(got - target.center).T) - 2 * R32) <= 1e-9)
    c = cost(got)
    edge = np.abs(polygon_point_signed_distance(sq, got) - margin) <= 1e-9
    assert edge.sum() >= 2  # where the locus leaves the grown square, both ways
    assert np.all(c[edge] <= budget)
    plain = w40k_duty.reach_roots(mover, target, 0.0, cost, budget, limit=50.0)
    assert not np.any(np.abs(polygon_point_signed_distance(sq, plain) - margin) <= 1e-6)


# --------------------------------------------------------------------------- charged terrain
#
# The same dip with terrain whose crossing is charged (edition 10: an obstacle taller
# than 2" costs twice its height to cross and no model may end on it). W1, a 10"-long
# obstacle 2.1" tall, lies across the first leg 3" before T0: every path to the dip
# crosses it once (going round its ends costs more), so the least cost at P* is the
# closed form plus 4.2, and the roll is 12. W2, an obstacle 2.1" tall beside the locus,
# covers it from DELTA rad past P* on: there the cost has no bound (every path piece
# that enters it is charged) and no spot is wanted (a base there stands in terrain).

HEIGHT = 2.1
DELTA = 1e-4


def charged_dip(extra: float) -> dict:
    case = dip(extra, total=12, charge=2 * HEIGHT)
    lead = case["lead"]  # the first leg's direction
    n = np.array([-lead[1], lead[0]])
    m = case["T0"] - 3.0 * lead
    w1 = [m - 0.1 * lead - 5.0 * n, m + 0.1 * lead - 5.0 * n, m + 0.1 * lead + 5.0 * n, m - 0.1 * lead + 5.0 * n]
    b = case["b"]
    th = math.atan2(case["P*"][1] - b[1], case["P*"][0] - b[0]) + DELTA
    e2 = np.array([math.cos(th), math.sin(th)])
    tau = np.array([-e2[1], e2[0]])  # towards larger angles round b
    w2 = [b + 0.9 * e2 + R32 * tau, b + 1.8 * e2 + R32 * tau, b + 1.8 * e2 + (R32 + 0.5) * tau,
          b + 0.9 * e2 + (R32 + 0.5) * tau]
    case["terrain"] = [(w1, HEIGHT), (w2, HEIGHT)]
    case["th*"] = th - DELTA
    return case


def _round(xy: np.ndarray) -> Footprint:
    return Footprint((Disc(tuple(xy), R32),), "round", tuple(xy))


def test_charged_case_closed_form() -> None:
    """With W1 and W2 in place the planner's least cost at P* is still the closed form
    (4.2 for crossing W1 included), rising on both sides; P* is clear of W2 by
    about RHO * DELTA and the locus enters W2 just past th* + DELTA."""
    case = charged_dip(0.0)
    fld = field(case, 13.0)
    assert abs(fld.cost(case["P*"][None])[0] - 12.0) <= 1e-12  # type: ignore[attr-defined]
    b, th = case["b"], case["th*"]
    for dth in (-1e-3, -0.05):
        q = b + RHO * np.array([math.cos(th + dth), math.sin(th + dth)])
        assert fld.cost(q[None])[0] > 12.0 + 1e-8  # type: ignore[attr-defined]
    w2 = Footprint((ConvexPolygon(tuple(map(tuple, case["terrain"][1][0]))),), "obstacle")
    from chargeref.geometry.placement import sd_at

    mover = _round(case["S"])
    assert abs(sd_at(mover, case["P*"][None], w2)[0] - RHO * math.sin(DELTA)) <= 1e-9
    inside = b + RHO * np.array([math.cos(th + 2 * DELTA), math.sin(th + 2 * DELTA)])
    assert sd_at(mover, inside[None], w2)[0] < -1e-5


@pytest.mark.parametrize(
    "extra, owed",
    [
        (0.0, True),  # the minimum equals the roll
        (-1e-7, True),  # 1e-7 above: the reachable stretch runs from a root to W2's edge
        (1.1e-6, False),  # 1.1e-6 below: beyond the tolerance
    ],
)
@pytest.mark.parametrize("deg, mirror", [(0.0, False), (90.0, False), (33.0, True)])
def test_dip_beside_charged_terrain(extra: float, owed: bool, deg: float, mirror: bool) -> None:
    """The dip with W1 crossed on the way and W2 covering the locus beside P*: base
    contact is owed exactly at the thresholds, in any orientation, and the witness
    stands outside W2."""
    got = validate(*ruling_for(charged_dip(extra), deg, mirror))
    assert [v.code for v in got] == (["missed_base_contact"] if owed else [])


def test_reach_roots_leave_charged_terrain_out() -> None:
    """Directly, 1e-7 above the minimum: the root on the free side of P* comes back
    (cost within 1e-9 of the budget) and so does W2's edge (the cut's free side, cost
    within the budget); no point inside W2 comes back and the cost is not even asked
    there (it jumps by a fresh charge at W2's edge)."""
    case = charged_dip(0.0)
    fld = field(case, 13.0)
    mover, target = _round(case["S"]), _round(case["b"])
    budget = 12.0 + 1e-7
    walls = [(bb.footprint, bb.cost is not None and bb.cost > 0) for bb in fld.planner.barriers]  # type: ignore[attr-defined]
    asked: list[np.ndarray] = []

    def cost(P: np.ndarray) -> np.ndarray:
        asked.append(np.atleast_2d(P).copy())
        return fld.cost(P)  # type: ignore[attr-defined]

    got = w40k_duty.reach_roots(mover, target, 0.0, cost, budget, limit=fld.limit, walls=walls,  # type: ignore[attr-defined]
                                charged_ends_refused=True)
    from chargeref.geometry.placement import sd_at

    w2 = walls[-1][0]
    assert walls[-1][1] and walls[-2][1]
    assert np.all(sd_at(mover, got, w2) >= -w40k_duty.PEN)
    b, th = case["b"], case["th*"]
    ang = np.arctan2(got[:, 1] - b[1], got[:, 0] - b[0])
    c = fld.cost(got)  # type: ignore[attr-defined]
    root = (ang < th) & (np.abs(c - budget) <= 1e-9)
    assert root.sum() == 1 and th - ang[root][0] < 2 * math.pi / 4096
    edge = np.abs(sd_at(mover, got, w2) + w40k_duty.PEN) <= 1e-9
    assert edge.any() and np.all(c[edge] <= budget)
    every = np.vstack(asked)
    assert np.all(sd_at(mover, every, w2) >= -w40k_duty.PEN)
    # just inside W2 the cost has jumped by a fresh charge (no Lipschitz bound there)
    deep = b + RHO * np.array([math.cos(th + 2 * DELTA), math.sin(th + 2 * DELTA)])
    assert fld.cost(deep[None])[0] > budget + 1.0  # type: ignore[attr-defined]


def test_reach_roots_refuse_charged_terrain_without_the_promise() -> None:
    """No bound holds inside charged terrain: without the caller's promise that spots
    there are refused, reach_roots says so instead of sampling."""
    case = charged_dip(0.0)
    fld = field(case, 13.0)
    walls = [(bb.footprint, bb.cost is not None and bb.cost > 0) for bb in fld.planner.barriers]  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        w40k_duty.reach_roots(_round(case["S"]), _round(case["b"]), 0.0, fld.cost, 12.0,  # type: ignore[attr-defined]
                              limit=fld.limit, walls=walls)  # type: ignore[attr-defined]


@pytest.mark.parametrize("edition, free", [(9, 1.0), (10, 2.0)])
@pytest.mark.parametrize("kind", ["ruin_wall", "wall", "barricade", "obstacle"])
@pytest.mark.parametrize("over", [0.0, 0.001])
@pytest.mark.parametrize("keywords", [{"INFANTRY"}, {"VEHICLE"}])
def test_every_charged_feature_is_refused_as_an_end(edition: int, free: float, kind: str, over: float,
                                                    keywords: set[str]) -> None:
    """The promise the duty search gives reach_roots: a feature that costs something to
    cross is one no model may end in, at the climb threshold (free) and just above it
    (charged), for a model that walks through ruin walls and one that does not."""
    from types import SimpleNamespace

    from chargeref.validate.w40k_contact import charged_features_refuse_ends
    from chargeref.validate.w40k_state import _blocks_ending, _crossing_cost

    f = SimpleNamespace(kind=kind, height=free + over, climbable=True)
    ctx = SimpleNamespace(climb_free=free, features=[f])
    c = _crossing_cost(ctx, f, keywords)  # type: ignore[arg-type]
    assert (c is not None and c > 0) == (over > 0 and not (kind == "ruin_wall" and "INFANTRY" in keywords))
    if c is not None and c > 0:
        assert _blocks_ending(ctx, f)  # type: ignore[arg-type]
    assert charged_features_refuse_ends(ctx, keywords)  # type: ignore[arg-type]
