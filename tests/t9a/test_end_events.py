"""The end offsets where a charger flush on the charged facing starts or stops being
blocked are constructed (``ends.end_events``), not sampled every 0.5 inch."""

from __future__ import annotations

import numpy as np
import pytest
from build import impassable, round_unit, scen, unit

from chargeref.systems.t9a.charge import candidate_offsets, make_context, target_profile
from chargeref.systems.t9a.ends import end_events
from chargeref.systems.t9a.geom import gap
from chargeref.systems.t9a.resolve import Phase


def _ctx(rock_x: float, round_rock: bool = False):
    units = [unit("A", 1, (22.0, 14.0), 90.0, 4, 8), unit("T", 2, (24.0, 20.0), 270.0, 10, 20)]
    terrain = []
    if round_rock:
        units.append(round_unit("R", 2, (rock_x, 19.0), 90.0, d=25.4))  # an enemy model, 1" across
    else:
        terrain.append(impassable("rock", [(10.0, 17.5), (rock_x, 17.5), (rock_x, 18.6), (10.0, 18.6)]))
    ph = Phase(scen(units, terrain), 1)
    w = ph.world
    A, T = w.blocks["A"], w.blocks["T"]
    return make_context(w, A, T, T.facing_of("front"), frozenset(), False)


@pytest.mark.parametrize("rock_x", [21.0, 21.001, 23.37])
def test_the_offset_where_the_end_pose_leaves_the_rock_is_constructed(rock_x: float) -> None:
    ctx = _ctx(rock_x)
    ch, fr = ctx.charger, ctx.fr
    ev = end_events(ch, fr, ctx.obstacles, ctx.target.id, ctx.world.board)
    rock = next(o for o in ctx.obstacles if o.uid == "rock")
    # the end pose whose left side lies on x = rock_x (the facing runs along -x here)
    hits = [s for s in ev if abs(gap(ch.at(fr.pt(s), fr.psi).shape(), rock.shape)) <= 1e-9]
    assert hits, ev
    s = hits[0]
    fin = ch.at(fr.pt(s), fr.psi)
    assert abs(float(fin.shape().V[:, 0].min()) - rock_x) <= 1e-9
    # a thousandth further along the facing into the rock overlaps it, a thousandth out does not
    step = 1e-3 * np.sign(float(fr.t[0]))  # +x in facing units
    assert gap(ch.at(fr.pt(s - step), fr.psi).shape(), rock.shape) < -5e-4
    assert gap(ch.at(fr.pt(s + step), fr.psi).shape(), rock.shape) > -1e-12
    # and the end search tries it
    assert any(abs(c - s) <= 1e-12 for c in candidate_offsets(ch, fr, target_profile(ctx.target, fr), ctx.table, ev))


def test_an_enemy_that_may_not_be_touched_is_left_by_more_than_the_tolerance() -> None:
    ctx = _ctx(27.0, round_rock=True)
    ch, fr = ctx.charger, ctx.fr
    R = next(o for o in ctx.obstacles if o.uid == "R")
    assert R.strict
    ev = end_events(ch, fr, ctx.obstacles, ctx.target.id, ctx.world.board)
    gaps = sorted(gap(ch.at(fr.pt(s), fr.psi).shape(), R.shape) for s in ev)
    near0 = [g for g in gaps if abs(g) < 1e-3]
    assert near0 and all(abs(g - 2e-6) <= 1e-9 for g in near0)
    assert all(R.ok(g) for g in near0)
