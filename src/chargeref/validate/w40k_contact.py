"""40k validator: the base-contact duty (edition 10 / WTC). See
:mod:`chargeref.validate.w40k` and ``docs/validator.md``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize_scalar

from ..geometry.bases import base_footprint
from ..geometry.paths import Barrier, Planner
from ..geometry.shapes import (
    TOL,
    Convex,
    ConvexPolygon,
    Footprint,
    disc_centres_signed_distance,
    signed_distance,
)
from ..systems.w40k.editions import edition as edition_of
from . import Violation
from .w40k import _components, _units_in_er, coherency_problems
from .w40k_path import BIG, grown
from .w40k_state import (
    COH_H,
    COH_V,
    ER_H,
    ER_V,
    RING_STEP_DEG,
    TWO_NEIGHBOURS_FROM,
    Ctx,
    Placed,
    _axis_extent,
    _blocks_ending,
    _crossing_cost,
    _floor_ok,
    _ground,
    _in_base_contact,
    _within,
)

# --------------------------------------------------------------------------- base contact


def contact_ring(base0: Footprint, target: Footprint, toward: Sequence[float]) -> np.ndarray:
    """Centres at which ``base0`` (a base centred at the origin) exactly touches
    ``target``: the boundary of the Minkowski difference, sampled every RING_STEP_DEG of
    outward normal, densified along flat stretches, plus the spot nearest ``toward``."""
    ang = np.radians(np.arange(0.0, 360.0, RING_STEP_DEG))
    u = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    chunks: list[np.ndarray] = []
    for pt in target.parts:
        for pc in base0.parts:
            ring = pt.support(u) - pc.support(-u)
            chunks.append(ring)
            if isinstance(pt, ConvexPolygon) or isinstance(pc, ConvexPolygon):
                nxt = np.roll(ring, -1, axis=0)
                for f in (0.25, 0.5, 0.75):
                    chunks.append(ring + f * (nxt - ring))
            chunks.append(_nearest_on_ring(pt, pc, toward, ang, ring))
    return np.concatenate(chunks, axis=0)


def _nearest_on_ring(
    pt: Convex, pc: Convex, toward: Sequence[float], ang: np.ndarray, ring: np.ndarray
) -> np.ndarray:
    s = np.asarray(toward, float)
    k = int(np.argmin(np.linalg.norm(ring - s, axis=1)))
    step = math.radians(RING_STEP_DEG)

    def at(t: float) -> np.ndarray:
        v = np.array([[math.cos(t), math.sin(t)]])
        return pt.support(v)[0] - pc.support(-v)[0]

    res = minimize_scalar(
        lambda t: float(np.linalg.norm(at(t) - s)),
        bounds=(float(ang[k]) - step, float(ang[k]) + step),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return at(float(res.x))[None]


def _sd_many(base0: Footprint, cands: np.ndarray, fixed: Footprint, cutoff: float) -> np.ndarray:
    """Signed distance from ``base0`` placed at each candidate centre to ``fixed``; exact
    where it is at most ``cutoff``, a lower bound above it."""
    if base0.is_disc:
        r = base0.parts[0].radius
        return disc_centres_signed_distance(cands, r, fixed)
    lb = (
        np.linalg.norm(cands - np.asarray(fixed.center, float), axis=1)
        - base0.radius
        - fixed.radius
    )
    out = lb.copy()
    for i in np.nonzero(lb <= cutoff)[0]:
        out[i] = signed_distance(base0.translated(cands[i]), fixed)
    return out


def check_base_contact(ctx: Ctx) -> list[Violation]:
    """WTC: a charging model that could have ended in base contact with a target model
    must have done so, unless that spot would break a unit-level condition.

    For each charging model not in base contact with a target model, a dense ring of
    exact contact spots around every target model is searched for one that is reachable
    along a real shortest path within the budget (:func:`_duty_path_cost`: round
    models and terrain, never within engagement range of a non-target where the
    edition forbids it), overlaps nothing, is on the board, out of
    terrain it may not stand in, out of engagement range of non-targets, and keeps the
    unit coherent and in engagement range of every target with the other models where
    they ended.
    """
    if ctx.budget is None:
        return []
    out: list[Violation] = []
    mine = ctx.charger_end()
    target_models = [p for t in ctx.targets for p in ctx.unit_end(t)]
    for c in mine:
        mv = ctx.moves.get(c.id)
        if mv is not None and mv.token:
            continue  # TODO (WTC walls): token models are held to the wall, not contact
        if any(_in_base_contact(c, t) for t in target_models):
            continue
        found = _find_contact_spot(ctx, c, mine, target_models)
        if found is not None:
            spot, tid = found
            out.append(
                Violation(
                    "missed_base_contact",
                    f"{c.id} could have ended in base contact with {tid} at "
                    f"[{spot[0]:.4f}, {spot[1]:.4f}]",
                    (c.id, tid),
                    {"spot": [float(spot[0]), float(spot[1])], "target": tid},
                )
            )
    return out


def _find_contact_spot(
    ctx: Ctx, c: Placed, mine: list[Placed], target_models: list[Placed]
) -> tuple[np.ndarray, str] | None:
    assert ctx.budget is not None
    s = ctx.start[c.id]
    m = s.model
    base0 = base_footprint(m.base.kind, m.base.dims, (0.0, 0.0), m.facing, ctx.mmpu)
    budget = ctx.budget
    x0, x1, y0, y1 = _axis_extent(base0)
    W, D = ctx.before.board.width, ctx.before.board.depth
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    others_mine = [p for p in mine if p.id != c.id]
    others_all = [p for mid, p in ctx.end.items() if mid != c.id and mid not in ctx.casualties]
    non_target_models = [
        p for eid in ctx.enemy_units() if eid not in ctx.targets for p in ctx.unit_end(eid)
    ]
    # Which targets stay engaged by the other charging models where they ended.
    engaged_by_others = {t: bool(_units_in_er(ctx, others_mine, t)) for t in ctx.targets}
    blocking = [f for f in ctx.features if _blocks_ending(ctx, f)]

    for t in target_models:
        cands = contact_ring(base0, t.fp, s.xy)
        # straight-line reach (the horizontal length alone is a lower bound of the cost)
        keep = np.linalg.norm(cands - np.asarray(s.xy), axis=1) <= budget + TOL
        keep &= (cands[:, 0] + x0 >= -TOL) & (cands[:, 0] + x1 <= W + TOL)
        keep &= (cands[:, 1] + y0 >= -TOL) & (cands[:, 1] + y1 <= D + TOL)
        cands = cands[keep]
        if len(cands) == 0:
            continue
        # exact contact (sampling is only ever a source of candidates, never a verdict)
        sd_t = _sd_many(base0, cands, t.fp, 1.0)
        cands = cands[np.abs(sd_t) <= TOL]
        for o in others_all:
            if not len(cands):
                break
            if abs(o.z - t.z) <= TOL:
                cands = cands[_sd_many(base0, cands, o.fp, 0.0) >= -TOL]
        for o in non_target_models:
            if not len(cands):
                break
            if abs(o.z - t.z) <= er_v + TOL:
                cands = cands[_sd_many(base0, cands, o.fp, er_h + 1.0) > er_h + TOL]
        for f in blocking:
            if not len(cands):
                break
            cands = cands[_sd_many(base0, cands, f.fp, 0.0) >= -TOL]
        if not len(cands):
            continue
        cands = cands[_keeps_unit(ctx, base0, cands, t.z, others_mine, engaged_by_others)]
        order = np.argsort(np.linalg.norm(cands - np.asarray(s.xy), axis=1))
        for q in cands[order]:
            if _spot_ok(ctx, c, s, base0, q, t, others_mine, engaged_by_others):
                return q, t.id
    return None


def _duty_path_cost(ctx: Ctx, s: Placed, xy: tuple[float, float], z: float, elevated: bool) -> float:
    """Least cost of a real path (not only the straight line) from the model's start to
    ``xy``, under the rules its charge move obeys: terrain crossings as in
    :func:`path_cost`, enemy models in the way unless it can FLY, no point within
    engagement range of a non-target where the edition forbids it (those models grown
    by the range), friendly models it may not move through; plus the vertical change.
    Shortest paths come from ``geometry.paths`` (exact tangents and arcs)."""
    assert ctx.budget is not None
    key = f"{s.id}@{z:.9f}"
    fld = ctx.duty_fields.get(key)
    if fld is None:
        ed = edition_of(ctx.edition)
        kw = ctx.keywords(s.unit)
        fly = "FLY" in kw
        bars: list[Barrier] = []
        for f in ctx.features:
            c = _crossing_cost(ctx, f, kw)
            if c is None or c > 0:
                bars.append(Barrier(f.fp, c, f"F:{f.id}"))
        er_h, er_v = ed.er * ctx.inch, ed.er_vertical * ctx.inch
        # models stand in the way at the heights the move passes, as in path_cost
        z_lo, z_hi = min(s.z, z) - TOL, max(s.z, z) + TOL
        for mid, p in ctx.start.items():
            if mid in ctx.casualties or p.unit == s.unit:
                continue
            if p.player != s.player:
                if ed.non_target_er_on_path and p.unit not in ctx.targets:
                    if z_lo - er_v <= p.z <= z_hi + er_v:
                        bars.append(Barrier(grown(p.fp, er_h), None, f"N:{mid}"))
                elif not fly and z_lo <= p.z <= z_hi:
                    bars.append(Barrier(p.fp, None, f"M:{mid}"))
            elif not fly and z_lo <= p.z <= z_hi:
                big = bool(kw & BIG) and bool(ctx.keywords(p.unit) & BIG)
                if not ed.friends_passable or (ed.big_blocks_big and big):
                    bars.append(Barrier(p.fp, None, f"M:{mid}"))
        board = (ctx.before.board.width, ctx.before.board.depth)
        fld = Planner(bars, board).field(s.fp, budget=ctx.budget + 1e-9)
        ctx.duty_fields[key] = fld
    c = float(fld.cost(np.asarray([xy], dtype=float))[0])  # type: ignore[attr-defined]
    dz = abs(z - s.z)
    if (s.elevated or elevated) and dz > ctx.climb_free + TOL:
        c += dz
    return c


def _keeps_unit(
    ctx: Ctx,
    base0: Footprint,
    cands: np.ndarray,
    z: float,
    others: list[Placed],
    engaged_by_others: dict[str, bool],
) -> np.ndarray:
    """For many candidate spots at once: would the unit, with this model there and the
    others where they ended, be coherent and in engagement range of every target?
    (A fast filter; :func:`_spot_ok` confirms the survivors one by one.)"""
    keep = np.ones(len(cands), bool)
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    for tid, ok in engaged_by_others.items():
        if ok:
            continue
        hit = np.zeros(len(cands), bool)
        for e in ctx.unit_end(tid):
            if abs(e.z - z) <= er_v + TOL:
                hit |= _sd_many(base0, cands, e.fp, er_h + 1.0) <= er_h + TOL
        keep &= hit
    if not others:
        return keep
    coh_h, coh_v = COH_H * ctx.inch, COH_V * ctx.inch
    need = 2 if len(others) + 1 >= TWO_NEIGHBOURS_FROM[ctx.edition] else 1
    adj_c = np.zeros((len(cands), len(others)), bool)
    for j, o in enumerate(others):
        if abs(o.z - z) <= coh_v + TOL:
            adj_c[:, j] = _sd_many(base0, cands, o.fp, coh_h + 1.0) <= coh_h + TOL
    adj: list[list[int]] = [[] for _ in others]
    for i in range(len(others)):
        for j in range(i + 1, len(others)):
            if _within(others[i], others[j], coh_h, coh_v):
                adj[i].append(j)
                adj[j].append(i)
    keep &= adj_c.sum(axis=1) >= need
    for i, nb in enumerate(adj):
        if len(nb) < need:
            keep &= adj_c[:, i] & (len(nb) + 1 >= need)
    for group in _components(adj):
        keep &= adj_c[:, group].any(axis=1)
    return keep


def _spot_ok(
    ctx: Ctx,
    c: Placed,
    s: Placed,
    base0: Footprint,
    q: np.ndarray,
    t: Placed,
    others_mine: list[Placed],
    engaged_by_others: dict[str, bool],
) -> bool:
    assert ctx.budget is not None
    xy = (float(q[0]), float(q[1]))
    ground = _ground(xy, ctx.hills)
    z = t.z
    fp = base0.translated(xy)
    p = Placed(c.id, c.unit, c.player, s.model, xy, z, ground, fp)
    if p.elevated and _floor_ok(ctx, c.unit, fp, z) is not None:
        return False
    if _duty_path_cost(ctx, s, xy, z, p.elevated) > ctx.budget + TOL:
        return False
    for tid, ok in engaged_by_others.items():
        if not ok and not _units_in_er(ctx, [p], tid):
            return False
    return not coherency_problems([*others_mine, p], ctx.edition, ctx.inch)


