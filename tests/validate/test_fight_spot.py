"""The fight phase's "normal legal position" search (``w40k_fight.legal_spot``, the
WTC walls token duty) builds its candidates (``w40k_fight_spot``) instead of trying
spots one degree apart round enemy models.

The case: A1 (a token model of A, which charged B) is held still in a pile-in; B1
stands so that the nearest spot within 1" of it is ``reach`` inches from A1's start,
in the direction 0.5 degrees off the board's axes (where the old search had no
sample). Within 3" (and TOL) that spot is a normal legal position and A1 had to pile
in or drop its token (``token_not_piled_in``); 0.001" farther it is not.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from duty_cases import R32, transform

from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data
from chargeref.validate import validate_ruling
from chargeref.validate.w40k_fight_spot import charge_sums

RHO = 2 * R32 + 1.0  # centres 1" from B1
START = np.array([50.0, 50.0])


def case(reach: float, phi_deg: float = 0.5, edition: int = 10) -> tuple[dict, dict]:
    """A1 at START; B1 at distance RHO + reach in direction phi (from A1 away)."""
    u = np.array([math.cos(math.radians(phi_deg)), math.sin(math.radians(phi_deg))])
    b = START + (RHO + reach) * u
    data = {
        "format": "chargeref/1", "system": "40k", "rules": {"edition": edition, "wtc": True},
        "board": {"width": 100, "depth": 100},
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"], "flags": ["charged"], "token_targets": ["B"],
             "models": [{"id": "A1", "at": list(START), "base": {"round": 32}, "token": True}]},
            {"id": "B", "player": 2, "keywords": ["INFANTRY"],
             "models": [{"id": "B1", "at": list(b), "base": {"round": 32}}]},
        ],
    }
    return data, {"B1": tuple(b)}


def held_still(data: dict) -> dict:
    """A pile-in ruling that keeps every model (and A1's token) where it is."""
    return {"format": "chargeref-ruling/1", "system": "40k", "charger": "A", "targets": [], "eligible": True,
            "success": True, "procedure": "pile_in", "moves": [], "engaged": [], "reasons": [],
            "details": {}, "after": copy.deepcopy(data)}


def codes(data: dict) -> list[str]:
    scen = scenario_from_data(copy.deepcopy(data))
    return sorted(v.code for v in validate_ruling(scen, Ruling.model_validate(held_still(data))))


def old_ring_had_one(data: dict) -> bool:
    """Did the old search (spots 1 degree apart of outward normal on the rings at gap
    0, 1/2" and 1" round B1) have a spot within 3" + TOL of A1?"""
    b = np.asarray(next(m["at"] for u in data["units"] for m in u["models"] if m["id"] == "B1"), dtype=float)
    s = np.asarray(data["units"][0]["models"][0]["at"], dtype=float)
    ang = np.radians(np.arange(0.0, 360.0, 1.0))
    U = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    pts = np.vstack([b + (2 * R32 + g) * U for g in (0.0, 0.5, 1.0)])
    return bool((np.hypot(*(pts - s).T) <= 3.0 + 1e-6).any())


@pytest.mark.parametrize(
    "reach, owed",
    [
        (3.0, True),  # the nearest spot in range is exactly 3.000" away
        (3.0 - 1e-4, True),  # a lens of legal spots 0.82 degrees wide, between two old samples
        (3.0 + 5e-7, True),  # within the tolerance
        (3.0 + 1.1e-6, False),
        (3.001, False),
    ],
)
@pytest.mark.parametrize("deg, mirror", [(0.0, False), (90.0, False), (33.0, True)])
def test_token_duty_at_the_3_inch_threshold(reach: float, owed: bool, deg: float, mirror: bool) -> None:
    data, pts = case(reach)
    if deg or mirror:
        data, _ = transform(data, pts, deg, mirror)
    assert codes(data) == (["token_not_piled_in"] if owed else [])


def test_the_old_ring_missed_it() -> None:
    """Unrotated, the legal spots lie between two of the old samples: the old search
    found none, the new one flags the duty."""
    data, _ = case(3.0 - 1e-4)
    assert not old_ring_had_one(data)
    assert codes(data) == ["token_not_piled_in"]


def test_the_witness_is_a_legal_spot() -> None:
    """The reported spot is 1" (within TOL) from B1, within 3" (and TOL) of A1's start."""
    data, pts = case(3.0)
    scen = scenario_from_data(copy.deepcopy(data))
    got = validate_ruling(scen, Ruling.model_validate(held_still(data)))
    assert [v.code for v in got] == ["token_not_piled_in"]
    spot = np.asarray(got[0].witness["spot"])
    assert abs(float(np.hypot(*(spot - START))) - 3.0) <= 1e-6
    assert abs(float(np.hypot(*(spot - np.asarray(pts["B1"])))) - RHO) <= 1e-9


@pytest.mark.parametrize("edition, er", [(10, 1.0), (11, 2.0)])
def test_engagement_range_by_edition(edition: int, er: float) -> None:
    """Edition 11's 2" range: B1 placed for a 1" range 1" farther is still reached."""
    data, _ = case(3.0 + (er - 1.0), edition=edition)
    assert codes(data) == ["token_not_piled_in"]
    data, _ = case(3.001 + (er - 1.0), edition=edition)
    assert codes(data) == []


def test_charge_sums() -> None:
    """What a straight move may pay besides its length, within a 3" budget: sums of
    distinct charges and one climb, each below the budget."""
    assert charge_sums([], [], 3.0) == [0.0]
    assert charge_sums([1.0, 1.5, 4.2], [], 3.0) == [0.0, 1.0, 1.5, 2.5]
    assert charge_sums([1.0], [2.5], 3.0) == [0.0, 1.0, 2.5]


def test_rays_meet_rounded_polygons_in_closed_form() -> None:
    """``_ray_rounded_polygon`` (a ray against a polygon or capsule grown by e): every
    point it returns is on the ray and exactly at gap k from the footprint for a round
    base; for polygons and capsules it returns what the proven root finder along the
    locus returns (capsule straight sides included: the root finder treats them as
    flat faces since round 6)."""
    from chargeref.geometry.placement import OffsetCurve, sd_at
    from chargeref.geometry.shapes import Capsule, ConvexPolygon, Disc, Footprint
    from chargeref.validate.w40k_fight_spot import _ray_rounded_polygon

    rng = np.random.default_rng(1)
    r = R32
    mover = Footprint((Disc((0.0, 0.0), r),), "round", (0.0, 0.0))
    side_hits = 0
    for it in range(120):
        c = rng.uniform(-2, 2, 2)
        if it % 2:
            ang = np.sort(rng.uniform(0, 2 * np.pi, 5))
            V = c + rng.uniform(0.5, 2) * np.stack([np.cos(ang), np.sin(ang)], 1)
            F = Footprint((ConvexPolygon(tuple(map(tuple, V))),))
            VV, rho = F.parts[0].V, 0.0  # type: ignore[attr-defined]
        else:
            a, b = c, c + rng.uniform(-2, 2, 2)
            F = Footprint((Capsule(tuple(a), tuple(b), 0.1),))
            VV, rho = np.array([a, b]), 0.1
        k = float(rng.choice([0.0, 1.0, 2.0]))
        u = rng.normal(size=2)
        u /= np.hypot(*u)
        got = _ray_rounded_polygon(np.zeros(2), u, np.asarray(VV), rho + r + k, 50.0)
        if len(got):
            assert np.all(np.abs(sd_at(mover, got, F) - k) <= 1e-9)
            assert np.all(np.abs(got[:, 0] * u[1] - got[:, 1] * u[0]) <= 1e-12) and np.all(got @ u >= 0)
        ref = OffsetCurve(mover, F, k).roots(lambda P, u=u: P[:, 0] * u[1] - P[:, 1] * u[0], g_lip=1.0)
        ref = ref[ref @ u >= 0] if len(ref) else ref
        key = lambda P: sorted(map(tuple, np.round(P, 6)))  # noqa: E731
        assert key(got) == key(ref)
        if not it % 2:
            side_hits += len(got)
    assert side_hits > 0


def test_rounded_polygons_cross_in_closed_form() -> None:
    """``_rounded_pair``: every point is at gap k1 from one footprint and k2 from the
    other (a round base); for two polygons the set is what ``locus_crossings`` (the
    proven root finder) gives; with capsules it holds that set and more (their straight
    sides)."""
    from chargeref.geometry.placement import locus_crossings, sd_at
    from chargeref.geometry.shapes import Capsule, ConvexPolygon, Disc, Footprint
    from chargeref.validate.w40k_fight_spot import _rounded, _rounded_pair

    rng = np.random.default_rng(7)
    mover = Footprint((Disc((0.0, 0.0), R32),), "round", (0.0, 0.0))

    def shape(cap: bool) -> Footprint:
        c = rng.uniform(-1.5, 1.5, 2)
        if cap:
            return Footprint((Capsule(tuple(c), tuple(c + rng.uniform(-2, 2, 2)), 0.1),))
        ang = np.sort(rng.uniform(0, 2 * np.pi, 4))
        V = c + rng.uniform(0.5, 1.5) * np.stack([np.cos(ang), np.sin(ang)], 1)
        return Footprint((ConvexPolygon(tuple(map(tuple, V))),))

    key = lambda P: sorted(map(tuple, np.round(P, 6)))  # noqa: E731
    found = 0
    for it in range(60):
        caps = (it % 3 == 1, it % 3 == 2)
        F, G = shape(caps[0]), shape(caps[1])
        k1, k2 = float(rng.choice([0.0, 1.0])), float(rng.choice([0.0, 2.0]))
        a, b = _rounded(mover, F, k1), _rounded(mover, G, k2)
        assert a is not None and b is not None
        got = _rounded_pair(a[0], a[1], b[0], b[1])
        if len(got):
            assert np.all(np.abs(sd_at(mover, got, F) - k1) <= 1e-9)
            assert np.all(np.abs(sd_at(mover, got, G) - k2) <= 1e-9)
        ref = locus_crossings(mover, F, k1, G, k2).reshape(-1, 2)
        if not any(caps):
            assert key(got) == key(ref)
        else:
            assert set(key(ref)) <= set(key(got))
        found += len(got)
    assert found > 20
