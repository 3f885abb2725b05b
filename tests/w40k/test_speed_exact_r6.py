"""The round 6 speed work's shortcuts give the very bits of the code they stand for
(the round 4 and 5 ones are in test_speed_exact.py, whose scenes and plain loops these
tests share): each shortcut is held to the plain computation it replaces, on the
benchmark's scenes and at the edges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_speed_exact import _barricade_scenario, _plain_face_spots, _walls_scenario


def _block_unit(uid: str, player: int, x0: float, y0: float, n: int, per_row: int, base: dict | None = None) -> dict:
    return {"id": uid, "player": player, "keywords": ["INFANTRY"],
            "models": [{"id": f"{uid}{i + 1}", "at": [x0 + (i % per_row) * 1.5, y0 + (i // per_row) * 1.5],
                        "base": base or {"round": 32}} for i in range(n)]}


def _open_scenario() -> dict:
    """Ten models charging ten in the open (the benchmark's open 10 v 10)."""
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "terrain": [],
            "units": [_block_unit("A", 1, 22, 10, 10, 5), _block_unit("B", 2, 22.5, 19.5, 10, 5)]}


def _oval_scenario() -> dict:
    """Five round bases charging one turned oval (the benchmark's oval target)."""
    mon = {"id": "M", "player": 2, "keywords": ["MONSTER"],
           "models": [{"id": "M1", "at": [30, 22], "base": {"oval": [170, 109]}, "facing": 30}]}
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "terrain": [],
            "units": [_block_unit("A", 1, 25, 10, 5, 5), mon]}


class _CountingMemo(dict):
    """A grow memo that counts its hits."""

    hits = 0

    def get(self, key, default=None):  # noqa: ANN001, ANN201
        hit = super().get(key, default)
        if hit is not None:
            type(self).hits += 1
        return hit


class _NoMemo(dict):
    """A grow memo that never answers: every growth is built afresh."""

    def get(self, key, default=None):  # noqa: ANN001, ANN201
        return default


def _charge_state(data: dict, targets: tuple[str, ...], roll: float, memo: dict) -> tuple:
    """needed_on, then the final placement, with the given grow memo; returns what the
    ruling is made of and every bank and cost array the searches left."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.world import build_world

    system = find_system("40k")
    req = ChargeRequest(charger="A", targets=targets, roll=int(roll))
    world = build_world(scenario_from_data(data))
    prob = system._problem(world, req)
    bare = system.open_field(world, req, prob.cap)
    for p in (prob, bare):
        if p is not None:
            p.__dict__["_grow_memo"] = type(memo)()
    need, _ = system.needed_on(prob, bare)
    pl, how = system.solve_any(prob, bare, roll, last=True)
    banks = []
    for p in (prob, bare):
        if p is None:
            continue
        for key in sorted(p.banks, key=repr):
            b = p.banks[key]
            banks.append(tuple(np.array(getattr(b, f)) for f in ("pts", "z", "ok", "contact", "er", "dist", "tok", "bar")))
        for m in p.models:
            banks.append((np.array(p.costs[m.id]), np.array(p.exact[m.id]), np.array(p.pending[m.id])))
    where = None if pl is None else {mid: pl.pos[mid].tobytes() for mid in pl.order}
    return need, how, where, banks


@pytest.mark.parametrize("case", ["open", "oval", "walls"])
def test_grow_memo_appends_the_rows_built_afresh(case: str) -> None:
    """A search that places the same models at the same spots in the same order as an
    earlier one appends the rows grow built then (ChargeProblem.grow's memo): the
    banks, the costs and the ruling are those of building every growth afresh, bit for
    bit, and the memo is really used on the open and oval charges."""
    data, targets, roll = {
        "open": (_open_scenario(), ("B",), 9.0),
        "oval": (_oval_scenario(), ("M",), 8.0),
        "walls": (_walls_scenario(0.0), ("B", "C"), 12.0),
    }[case]
    _CountingMemo.hits = 0
    kept = _charge_state(data, targets, roll, _CountingMemo())
    fresh = _charge_state(data, targets, roll, _NoMemo())
    assert kept[:3] == fresh[:3]
    assert len(kept[3]) == len(fresh[3])
    for a, b in zip(kept[3], fresh[3], strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    if case != "walls":
        assert _CountingMemo.hits > 0


def _plain_start_dist(prob) -> np.ndarray:  # noqa: ANN001
    """The start distances as the loop over every (model, target model) pair gives them."""
    from chargeref.systems.w40k.solver import sd_many

    out = np.full((len(prob.models), len(prob.targets)), np.inf)
    for i, m in enumerate(prob.models):
        for j, tl in enumerate(prob.tmodels):
            for t in tl:
                out[i, j] = min(out[i, j], max(0.0, float(sd_many(m.fp, m.xy[None], t.fp)[0])))
    return out


@pytest.mark.parametrize("gap", [0.0, 1.0, 1.0 + 1e-3])
def test_start_distances_at_once_are_the_pair_loop(gap: float) -> None:
    """For round bases the start distances to each target unit are computed in one
    matrix: the same numbers as the pair loop, also for models that start touching a
    target (the distance clamps to 0) and 1" / 1.001" apart (a target unit's
    nearest model decides)."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.world import build_world

    system = find_system("40k")
    # B's front rank stands ``gap`` from A's (32 mm bases, 1.26" apart centre to centre)
    data = {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "terrain": [],
            "units": [_block_unit("A", 1, 22, 10, 10, 5), _block_unit("B", 2, 22, 11.5 + 32 / 25.4 + gap, 5, 5),
                      _block_unit("C", 2, 40, 20, 3, 3)]}
    world = build_world(scenario_from_data(data))
    prob = system._problem(world, ChargeRequest(charger="A", targets=("B", "C"), roll=12))
    assert prob._all_disc
    want = _plain_start_dist(prob)
    assert np.array_equal(prob.start_dist, want)
    assert want[:, 0].min() == pytest.approx(max(gap, 0.0), abs=1e-9)


@pytest.mark.parametrize("case", ["walls", "barricade 1\"", "barricade 1.0001\""])
def test_engaged_by_at_once_is_the_pair_loop(case: str) -> None:
    """engaged_by for round bases with a feature to fight across: the matrix of
    engagement-range pairs, then the across-a-feature test of the pairs within 2",
    gives the verdicts of the loop over every (model, target model) pair, for every
    placement the search found and every model left out, and for placements moved
    so that models touch the feature (barricade targets at 1" of it and a hair beyond)."""
    from chargeref import ChargeRequest, find_system, scenario_from_data
    from chargeref.systems.w40k.solver import Placement
    from chargeref.systems.w40k.world import build_world

    system = find_system("40k")
    data, targets = {
        "walls": (_walls_scenario(0.0), ("B", "C")),
        "barricade 1\"": (_barricade_scenario(0.37), ("B",)),
        "barricade 1.0001\"": (_barricade_scenario(0.3701), ("B",)),
    }[case]
    world = build_world(scenario_from_data(data))
    prob = system._problem(world, ChargeRequest(charger="A", targets=targets, roll=12))
    assert prob.across and prob._all_disc
    prob.solve(12.0, improve=False)
    prob.solve(12.0, improve=False, tokens=True)
    placements = list(prob._found[False]) + list(prob._found[True])
    assert placements
    rng = np.random.default_rng(5)
    # everybody at their start spot but one model, which stands on a bank spot: touching
    # a feature face near a target, or anywhere (with and without a token)
    m0 = prob.models[0]
    b = prob.banks[prob.keys[m0.id]]
    touching = np.flatnonzero(b.tok.any(axis=1) | b.bar.any(axis=1))
    assert len(touching)
    spots = np.concatenate([rng.choice(touching, size=min(12, len(touching)), replace=False), rng.choice(len(b.pts), size=12)])
    for i in spots:
        pos = {m.id: m.xy.copy() for m in prob.models}
        pos[m0.id] = b.pts[i]
        z = {m.id: float(m.z) for m in prob.models}
        z[m0.id] = float(b.z[i])
        for via in ({}, {m0.id: "token"}):
            placements.append(Placement(pos, z, {m.id: 0.0 for m in prob.models}, [m.id for m in prob.models], via=via))
    seen = set()
    for pl in placements:
        for exclude in [None, *(m.id for m in prob.models[:4])]:
            got = prob.engaged_by(pl, exclude=exclude)
            prob._all_disc = False
            try:
                want = prob.engaged_by(pl, exclude=exclude)
            finally:
                prob._all_disc = True
            assert np.array_equal(got, want)
            seen.add(tuple(want.tolist()))
    assert len(seen) > 1  # engaged and not engaged both occur


@settings(max_examples=60, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10_000), parts=st.integers(1, 3))
@example(seed=0, parts=1)
@example(seed=1, parts=2)
def test_sd_many_round_base_against_polygons_is_the_general_path(seed: int, parts: int) -> None:
    """sd_many's shortcut for a round base against polygon parts gives the bits of
    footprint_translations_sd: centres inside, touching (a radius from an edge and from
    a corner) and apart, with the base's footprint centre off its disc's centre."""
    from chargeref.geometry.bases import wall_footprint
    from chargeref.geometry.shapes import ConvexPolygon, Disc, Footprint, footprint_translations_sd
    from chargeref.systems.w40k.solver_base import sd_many

    rng = np.random.default_rng(seed)
    polys = []
    for _ in range(parts):
        a = rng.uniform(0, 10, 2)
        polys.extend(wall_footprint([tuple(a), tuple(a + rng.uniform(-4, 4, 2))], float(rng.uniform(0.1, 1.0))).parts)
    other = Footprint(tuple(polys))
    assert all(type(p) is ConvexPolygon for p in other.parts)
    r = float(rng.uniform(0.3, 1.2))
    c = tuple(rng.uniform(-1, 1, 2))
    mover = Footprint((Disc(c, r),), origin=(c[0] + 1e-3, c[1]))
    V = polys[0].V
    e = V[1] - V[0]
    n = np.array([e[1], -e[0]]) / np.hypot(*e)  # outward for a counter-clockwise polygon
    u = (V[0] - polys[0].center) / np.hypot(*(V[0] - polys[0].center))
    shift = mover.center - np.asarray(c)  # a spot names the footprint centre, not the disc's
    touch = np.vstack([(V[0] + V[1]) / 2 + n * r, V[0] + u * r]) + shift
    pts = np.vstack([rng.uniform(-2, 12, (40, 2)), polys[0].center, touch, touch + 1e-3 * np.vstack([n, u])])
    want = footprint_translations_sd(mover, other, pts - mover.center)
    got = sd_many(mover, pts, other)
    assert np.array_equal(got, want)
    assert (got < 0).any() and (got > 0).any()
    if parts == 1:
        assert np.abs(got[-4:-2]).max() < 1e-9  # touching a face and a corner
        assert np.allclose(got[-2:], 1e-3, atol=1e-9)  # 1e-3 beyond


def test_face_spots_table_kept_across_calls() -> None:
    """face_spots keeps each (polygon, base) pair's edge and corner table: later calls on
    the same pair, with other feet and circles, give the rows of the loop written out
    (and a second base on the same polygon gets its own table)."""
    from chargeref.geometry.shapes import ConvexPolygon, Disc, Footprint
    from chargeref.systems.w40k.solver_base import face_spots

    rng = np.random.default_rng(11)
    poly = ConvexPolygon(((0.0, 0.0), (4.0, 0.0), (4.0, 0.2), (0.0, 0.2)))
    movers = [Footprint((Disc((0.0, -3.0), 0.63),)), Footprint((Disc((0.0, -3.0), 1.0),)),
              Footprint((ConvexPolygon(((-0.5, -3.5), (0.5, -3.5), (0.5, -2.5), (-0.5, -2.5))),))]
    for _ in range(4):
        for mover in movers:
            CC = rng.uniform(-3, 7, (6, 2))
            CR = rng.uniform(0.1, 4.0, 6)
            toward = rng.uniform(-3, 7, (2, 2))
            got = face_spots(mover, poly, toward, (CC, CR))
            want = _plain_face_spots(mover, poly, toward, (CC, CR))
            assert got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("case", ["open", "oval"])
def test_same_spots_are_improved_once(case: str, monkeypatch) -> None:  # noqa: ANN001
    """solve(improve=True) improves a placement whose models stand where an earlier
    one's do only once (solver._where_key): the final placement is the one found when
    every placement of the pool is improved, and the shortcut is really taken."""
    from chargeref.systems.w40k import solver

    data, targets, roll = {"open": (_open_scenario(), ("B",), 9.0), "oval": (_oval_scenario(), ("M",), 8.0)}[case]
    calls = []
    real = solver.ChargeProblem._improve

    def counted(self, pl, R, tokens=False):  # noqa: ANN001, ANN202
        calls.append(pl)
        return real(self, pl, R, tokens)

    monkeypatch.setattr(solver.ChargeProblem, "_improve", counted)
    got = _charge_state(data, targets, roll, _CountingMemo())
    once = len(calls)
    calls.clear()
    monkeypatch.setattr(solver, "_where_key", lambda p: object())  # every placement is new
    want = _charge_state(data, targets, roll, _CountingMemo())
    assert got[:3] == want[:3]
    assert once < len(calls)


@pytest.mark.parametrize("levels", ["ground", "spots up", "model up", "-0.0"])
def test_mark_against_is_the_height_tested_update(levels: str) -> None:
    """mark_against skips the height tests when the model and every spot stand on the
    ground: the overlap flags and link counts are those of the tested update, also at
    the thresholds (a spot EPS inside, exactly at the coherency distance and a hair
    beyond, on the level limits)."""
    from chargeref.systems.w40k.solver_base import EPS, mark_against

    coh, coh_v = 2.0, 5.0
    sd = np.array([-1.0, -EPS, -EPS * (1 + 1e-9), 0.0, coh, np.nextafter(coh, 3.0), 3.0, -0.5, 1.0])
    z = np.zeros(len(sd))
    zq = 0.0
    if levels == "spots up":
        z = np.array([0.0, 0.0, 1e-9, 2e-9, 0.0, 0.0, 0.0, 5.0, 5.0 + 1e-9])
    elif levels == "model up":
        zq = 1e-9
    elif levels == "-0.0":
        zq = -0.0
    ov = np.zeros(len(sd), dtype=bool)
    ln = np.array([0, 1, 2, 0, 1, 0, 0, 1, 1])
    ov_want, ln_want = ov.copy(), ln.copy()
    dz = np.abs(z - zq)
    ov_want |= (sd < -EPS) & (dz <= 1e-9)
    ln_want += ((sd <= coh) & (dz <= coh_v)).astype(int)
    mark_against(ov, ln, sd, z, zq, coh, coh_v)
    assert np.array_equal(ov, ov_want) and np.array_equal(ln, ln_want) and ln.dtype == ln_want.dtype
    assert ov.any() and not ov.all()
