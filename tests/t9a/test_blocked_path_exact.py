"""The least clear approach when a terrain corner lies on the way (``detour``): against
a closed form, at the roll threshold, turned and mirrored, and the soundness of the
search's proofs (a box it discards really holds no clear approach).

The scenario is solvable by hand. The charger (front middle F, looking along +x,
width w) charges a long facing parallel to its path's left side, a height
``c = k + w/2`` above F, facing down. With a left wheel ``theta`` made at once about
the left front corner ``FL`` and a straight move until ``FL`` touches the facing
(then the free align), the distance is ``w theta + k / sin(theta)``, least at the
unobstructed ``theta*`` (``w sin^2 = k cos``). A terrain block to the upper left whose
corner ``Q`` lies on the ray from ``FL`` at 30 degrees (below ``theta*``) forbids larger
wheels: the least clear approach grazes ``Q`` with the charger's left side, a wheel of
exactly 30 degrees (the search's answer is settled onto the touch: ``detour_touch``).
The search's own contact check lets a shape overlap by ``SEARCH_SLACK`` (half of
``TOL``), so its proven lower bound is that of the wheel
``30 degrees + asin(SEARCH_SLACK / |Q - FL|)`` (``loose_form``), about 1e-6 shorter.
Moving forward first only costs more (the angle it frees is worth less than the inch
it takes, for ``|Q - FL| = 4``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from build import B20, SYSTEM, impassable, scen, unit
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.systems import ChargeRequest
from chargeref.systems.t9a import charge as charge_mod
from chargeref.systems.t9a import distance as distance_mod
from chargeref.systems.t9a.charge import SEARCH_SLACK, search_obstacles
from chargeref.systems.t9a.detour import PROVE_TOL, Search, cells
from chargeref.systems.t9a.reach import solve
from chargeref.systems.t9a.world import Step

W = 5 * B20
TH = math.radians(30.0)
RQ = 4.0
F = (10.0, 10.0)
ADVANCE = 4.0


def _k(n: float) -> float:
    return (n - W * TH) * math.sin(TH)


def closed_form(n: float, extra: float = 0.0) -> float:
    """The least clear (touching) distance of ``case(n, extra)``."""
    return W * TH + (_k(n) + extra) / math.sin(TH)


def loose_form(n: float) -> float:
    """The least distance of ``case(n)`` among approaches overlapping ``Q`` by up to
    ``SEARCH_SLACK`` (what the search's proven bound is for)."""
    th = TH + math.asin(SEARCH_SLACK / RQ)
    return W * th + _k(n) / math.sin(th)


def _rot(p: tuple[float, float], spin: float, mirror: bool, c: tuple[float, float] = (24.0, 24.0)) -> tuple[float, float]:
    dx, dy = p[0] - c[0], p[1] - c[1]
    if mirror:
        dx = -dx
    r = math.radians(spin)
    return (c[0] + math.cos(r) * dx - math.sin(r) * dy, c[1] + math.sin(r) * dx + math.cos(r) * dy)


def case(n: float = 7.0, extra: float = 0.0, obstacle: bool = True, spin: float = 0.0, mirror: bool = False):
    """The graze scenario with distance ``closed_form(n, extra)`` (see the module
    docstring), turned by ``spin`` degrees and mirrored about the board's middle."""
    k = _k(n) + extra
    c = k + W / 2
    fl = (F[0], F[1] + W / 2)
    q = (fl[0] + RQ * math.cos(TH), fl[1] + RQ * math.sin(TH))
    block = [q, (q[0], q[1] + 0.4), (q[0] - 8, q[1] + 0.4), (q[0] - 8, q[1])]
    xc = F[0] + k / math.tan(TH)

    def face(f: float) -> float:
        return ((180.0 - f if mirror else f) + spin) % 360.0

    ter = [impassable("X", [_rot(p, spin, mirror) for p in block])] if obstacle else []
    units = [unit("A", 1, _rot(F, spin, mirror), face(0.0), 5, 10, advance_rate=ADVANCE),
             unit("T", 2, _rot((xc + W / 2 + 0.8, F[1] + c), spin, mirror), face(270.0), 10, 20)]
    return scen(units, ter)


def needed(s):
    return SYSTEM.needed(s, ChargeRequest("A", ("T",)))


BASE = needed(case())


def test_the_grazing_approach_is_the_closed_form() -> None:
    assert BASE.distance == pytest.approx(closed_form(7.0), abs=1e-6)
    # proven: the lower bound is within the search's tolerance, and the roll is exact
    assert BASE.exact is True
    assert BASE.lower_bound <= BASE.distance
    assert loose_form(7.0) < closed_form(7.0) - 5e-7  # what the overlap would buy
    assert loose_form(7.0) - BASE.lower_bound <= PROVE_TOL + 1e-9
    assert BASE.lower_bound <= loose_form(7.0) + 1e-9
    # the terrain really decides: without it the charge is shorter (the wheel theta*)
    free = needed(case(obstacle=False))
    assert free.distance < BASE.distance - 0.2


def _roll_total(d: float) -> int:
    return max(2, math.ceil(d - ADVANCE - 1e-6))


def test_the_roll_threshold_at_its_edge() -> None:
    # needed distance d (just under 7"): a total of ceil(d - Advance Rate) charges ...
    d = closed_form(7.0)
    need = _roll_total(d)
    assert BASE.roll == need == 3
    dice = (1, need - 1)
    assert SYSTEM.charge(case(), ChargeRequest("A", ("T",), dice=dice)).success
    # ... and with the facing 1e-3" farther along the grazing path it falls short
    extra = 1e-3 * math.sin(TH)
    far = case(extra=extra)
    assert needed(far).distance == pytest.approx(closed_form(7.0, extra), abs=1e-6)
    assert needed(far).roll == need + 1
    assert not SYSTEM.charge(far, ChargeRequest("A", ("T",), dice=dice)).success


@settings(max_examples=3, deadline=None, derandomize=True)
@given(spin=st.floats(0.0, 360.0), mirror=st.booleans())
@example(spin=0.0, mirror=True)
@example(spin=90.0, mirror=False)
def test_turned_and_mirrored_the_same(spin: float, mirror: bool) -> None:
    got = needed(case(spin=spin, mirror=mirror))
    assert got.roll == BASE.roll
    assert abs(got.distance - BASE.distance) <= 1e-6
    assert got.exact is True
    assert loose_form(7.0) - got.lower_bound <= PROVE_TOL + 1e-9


# ----------------------------------------------------------------------------- soundness


def _search():
    """The search of the graze scenario with its exact clear check (as ``distance``
    builds it)."""
    got: dict[str, object] = {}
    orig = distance_mod.detour_search

    def spy(ctx, clear):
        got["ctx"], got["clear"] = ctx, clear
        return orig(ctx, clear)

    distance_mod.detour_search = spy
    try:
        needed(case())
    finally:
        distance_mod.detour_search = orig
    ctx = got["ctx"]
    return ctx, Search(ctx.world, ctx.charger, ctx.fr, search_obstacles(ctx.obstacles), got["clear"])


CTX, SEARCH = _search()
CELLS = cells(CTX.charger, CTX.fr)


def test_the_least_approach_grazes_the_corner() -> None:
    dist, ap, steps = distance_mod.needed_distance(CTX)
    assert dist == pytest.approx(closed_form(7.0), abs=1e-6)
    # a wheel at once (no forward move first) of 30 degrees: it touches Q
    assert ap.d1 == pytest.approx(0.0, abs=1e-6)
    assert ap.theta == pytest.approx(30.0, abs=1e-7)
    assert ap.delta == pytest.approx(-(90.0 - ap.theta), abs=1e-9) or ap.delta == pytest.approx(90.0 - ap.theta, abs=1e-9)
    # and it is clear, while a wheel 1e-3 degree larger runs into the terrain
    assert CTX.world.check_steps(CTX.charger, steps, CTX.obstacles) is None
    more = [Step("wheel", ap.theta + 1e-3), Step("forward", RQ + 0.2)]  # the left side passes Q
    hit = CTX.world.check_steps(CTX.charger, more, CTX.obstacles)
    assert hit is not None and hit.what == "X"


def test_closed_forms_match_the_solve() -> None:
    rng = np.random.default_rng(5)
    for c in CELLS:
        S = rng.uniform(c.pa, c.pb, 20)
        D = rng.uniform(c.dlo, c.dhi, 20)
        v = SEARCH.g.at(c, S, D)
        r = solve(CTX.charger, CTX.fr, S, D)
        assert np.allclose(np.degrees(v["th"]), r["theta"], atol=1e-9)
        assert np.allclose(v["n1"] / v["st"], r["raw_d1"], atol=1e-7)
        assert np.allclose(v["n2"] / v["st"], r["raw_d2"], atol=1e-7)
        ok = r["ok"]
        assert np.allclose(v["dist"][ok], r["dist"][ok], atol=1e-7)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(i=st.integers(0, 10_000), u=st.floats(0, 1), v=st.floats(0, 1), size=st.floats(1e-4, 0.3))
@example(i=0, u=0.2, v=0.6, size=0.05)
def test_a_discarded_box_holds_no_clear_approach(i: int, u: float, v: float, size: float) -> None:
    c = CELLS[i % len(CELLS)]
    s0 = c.pa + u * (c.pb - c.pa) * (1 - size)
    s1 = s0 + size * (c.pb - c.pa)
    d0 = c.dlo + v * (c.dhi - c.dlo) * (1 - size)
    d1 = d0 + size * (c.dhi - c.dlo)
    b = SEARCH._box(c, s0, s1, d0, d1)
    unreach = bool(b["unreach"])
    blocked = SEARCH._blocked(SEARCH._stages(c, b, SEARCH._moves(b)))
    rng = np.random.default_rng(i)
    S = np.concatenate([[s0, s1, s0, s1], rng.uniform(s0, s1, 12)])
    D = np.concatenate([[d0, d0, d1, d1], rng.uniform(d0, d1, 12)])
    r = solve(CTX.charger, CTX.fr, S, D)
    lbv = SEARCH.g.at(c, S, D)["dist"]
    assert np.all(lbv >= b["lb"] - 1e-9)  # the lower bound holds
    if unreach:
        assert not np.any(r["ok"])
    if blocked:
        for s, d in zip(S, D, strict=True):
            assert SEARCH.clear(float(s), float(d)) is None


def test_the_removed_grid_helpers_are_gone() -> None:
    # only that the 0.5-degree rows and their bisection are no longer importable; that
    # the answer is exact without them is asserted by the closed-form graze tests above
    assert not hasattr(charge_mod, "alternative_table")
    assert not hasattr(charge_mod, "refine_blocked")


def test_the_search_over_the_angle_alone_agrees_with_the_charge_move() -> None:
    # the placement (chosen for the most models in contact) ends at another offset;
    # the search over the angle alone at that end (what ``charge._best_approach``
    # runs when the shortest is blocked) proves the move's approach least
    r = SYSTEM.charge(case(), ChargeRequest("A", ("T",), dice=(6, 6)))
    pl = r.details["placement"]
    res = SEARCH.run(CELLS, None, s_fixed=float(pl["offset"]))
    assert res.best is not None and res.proven
    assert res.best[0].distance == pytest.approx(pl["distance"], abs=1e-6)
    assert res.lower <= res.best[0].distance <= res.lower + PROVE_TOL + 1e-9
    # at the grazing end the search over the angle alone finds the grazing approach
    dist, ap, _ = distance_mod.needed_distance(CTX)
    one = SEARCH.run(CELLS, None, s_fixed=ap.s)
    assert one.best is not None and one.best[0].distance == pytest.approx(dist, abs=1e-6)
