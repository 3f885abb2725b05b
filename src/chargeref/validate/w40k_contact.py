"""40k validator: the base-contact duty (edition 10 / WTC). See
:mod:`chargeref.validate.w40k` and ``docs/validator.md``."""

from __future__ import annotations

import math

import numpy as np

from ..geometry.bases import base_footprint
from ..geometry.paths import Barrier, Planner
from ..geometry.shapes import (
    TOL,
    Capsule,
    Footprint,
    disc_centres_signed_distance,
    signed_distance,
)
from ..systems.w40k.editions import edition as edition_of
from . import Violation
from .w40k import _components, _units_in_er, coherency_problems
from .w40k_duty import STRICT_MARGIN, _circle_pairs_ij, loci_candidates, reach_roots, sd_to_each
from .w40k_path import BIG, grown
from .w40k_pivot import end_turn, turn_clear, turned_ctx
from .w40k_state import (
    COH_H,
    COH_V,
    ER_H,
    ER_V,
    TWO_NEIGHBOURS_FROM,
    Ctx,
    Placed,
    _axis_extent,
    _blocks_ending,
    _crossing_cost,
    _floor_ok,
    _ground,
    within_matrix,
)

# --------------------------------------------------------------------------- base contact


def _sd_many(base0: Footprint, cands: np.ndarray, fixed: Footprint, cutoff: float) -> np.ndarray:
    """Signed distance from ``base0`` placed at each candidate centre to ``fixed``; exact
    where it is at most ``cutoff``, a lower bound above it."""
    if len(cands) == 0:
        return np.zeros(0)
    if base0.is_disc:
        r = base0.parts[0].radius
        return disc_centres_signed_distance(cands, r, fixed)
    lb = (
        np.hypot(*(cands - np.asarray(fixed.center, float)).T)
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

    For each charging model not in base contact with a target model, constructed
    spots on every target model's contact locus (:mod:`chargeref.validate.w40k_duty`)
    are tested for one that is reachable along a real shortest path within the budget
    (:func:`_duty_path_cost`: round models and terrain, never within engagement range
    of a non-target where the edition forbids it), overlaps nothing, is on the board,
    out of terrain it may not stand in, out of engagement range of non-targets, and
    keeps the unit coherent and in engagement range of every target with the other
    models where they ended.
    """
    if ctx.budget is None:
        return []
    out: list[Violation] = []
    mine = ctx.charger_end()
    target_models = [p for t in ctx.targets for p in ctx.unit_end(t)]
    # which charging models hold each target in engagement range where they ended
    holders = {t: {c for c, _ in _units_in_er(ctx, mine, t)} for t in ctx.targets}
    # coherency links among the charging unit's models where they ended
    coh = within_matrix(mine, mine, COH_H * ctx.inch, COH_V * ctx.inch)
    contact = within_matrix(mine, target_models, 0.0, 0.0).any(axis=1)
    owing = []
    for i, c in enumerate(mine):
        mv = ctx.moves.get(c.id)
        if mv is not None and mv.token:
            continue  # TODO (WTC walls): token models are held to the wall, not contact
        if not contact[i]:
            owing.append(c)
    cleared = _cleared_in_bulk(ctx, owing, mine, target_models)
    for c in owing:
        found = None if c.id in cleared else _find_contact_spot(ctx, c, mine, target_models, holders, coh)
        facing = None
        how = ""
        if found is None:
            # a model the ruling turned: asked again with the base it turned to
            tctx = turned_ctx(ctx, c.id)
            if tctx is not None:
                found = _find_contact_spot(tctx, c, mine, target_models, holders, coh)
                facing = tctx.start[c.id].model.facing
                how = f" turned at its start to face {facing:g}"
        if found is None:
            # ... or travelling unturned and turning at the end spot
            got = end_turn(ctx, c.id)
            if got is not None:
                ectx, travel, f0, f1 = got
                found = _find_contact_spot(ectx, c, mine, target_models, holders, coh, turn=(travel, f0, f1))
                facing = f1
                how = f" turning at that spot to face {facing:g}"
        if found is not None:
            spot, tid = found
            witness = {"spot": [float(spot[0]), float(spot[1])], "target": tid}
            if facing is not None:
                witness["facing"] = float(facing)
            out.append(
                Violation(
                    "missed_base_contact",
                    f"{c.id} could have ended in base contact with {tid} at "
                    f"[{spot[0]:.4f}, {spot[1]:.4f}]{how}",
                    (c.id, tid),
                    witness,
                )
            )
    return out


def _cleared_in_bulk(ctx: Ctx, owing: list[Placed], mine: list[Placed], target_models: list[Placed]) -> set[str]:
    """The models of ``owing`` that :func:`_find_contact_spot` would search in vain,
    found for all of them at once.

    A contact locus does not depend on where the model stands, only on its base: so
    the crossings of every target model's locus with the boundaries of every model's
    rule regions (a superset of the ones one model's search builds) are built once
    per base, and each model adds only its own nearest points and straight-reach
    crossings. The cheap exact tests of that search (reach, board, contact, overlap
    with every model but itself, non-targets' engagement range, terrain) then run on
    the whole set in a few array operations. A model none of whose candidates pass
    them has no spot (its own search would build a subset of these points and test
    them the same way); the others are searched one by one."""
    assert ctx.budget is not None
    out: set[str] = set()
    if not owing or not target_models:
        return {c.id for c in owing}
    if not all(t.fp.is_disc for t in target_models) or not all(c.fp.is_disc for c in owing):
        # other shapes: the loci need the root finder, and sharing them saves little
        return out
    budget = ctx.budget
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    coh_h = COH_H * ctx.inch
    W, D = ctx.before.board.width, ctx.before.board.depth
    end_all = [p for mid, p in ctx.end.items() if mid not in ctx.casualties]
    non_target_models = [p for eid in ctx.enemy_units() if eid not in ctx.targets for p in ctx.unit_end(eid)]
    blocking = [f for f in ctx.features if _blocks_ending(ctx, f)]
    by_base: dict[tuple, list[Placed]] = {}
    for c in owing:
        m = ctx.start[c.id].model
        key = (m.base.kind, tuple(m.base.dims) if isinstance(m.base.dims, (list, tuple)) else m.base.dims,
               0.0 if m.base.kind == "round" else round(float(m.facing), 9))
        by_base.setdefault(key, []).append(c)
    heights: dict[float, list[Placed]] = {}
    for t in target_models:
        heights.setdefault(round(t.z, 9), []).append(t)
    for group in by_base.values():
        m = ctx.start[group[0].id].model
        base0 = base_footprint(m.base.kind, m.base.dims, (0.0, 0.0), m.facing, ctx.mmpu)
        x0, x1, y0, y1 = _axis_extent(base0)
        board_lines = [(0, -x0), (0, W - x1), (1, -y0), (1, D - y1)]
        alive = {c.id: False for c in group}
        for tg in heights.values():
            z = tg[0].z
            bounds: list[tuple[Footprint, float]] = [(o.fp, 0.0) for o in end_all if abs(o.z - z) <= TOL]
            bounds += [(o.fp, er_h + STRICT_MARGIN) for o in non_target_models if abs(o.z - z) <= er_v + TOL]
            bounds += [(o.fp, coh_h) for o in mine]
            bounds += [(e.fp, er_h) for e in target_models if abs(e.z - z) <= er_v + TOL]
            bounds += [(f.fp, 0.0) for f in blocking]
            bounds += _floor_edges(ctx, z)
            # the mover at the origin: the loci are the same for every model of the group
            pts, owner = loci_candidates(base0, [t.fp for t in tg], 0.0, None, bounds, board_lines)
            extra_p, extra_o, extra_w = [pts], [owner], [np.full(len(pts), -1)]
            # each model's own points, all models at once (round bases: closed forms):
            # the locus point nearest its start and the crossings with its reach
            S = np.array([ctx.start[c.id].xy for c in group], dtype=float)  # (g, 2)
            TC = np.array([t.fp.center for t in tg], dtype=float)  # (m, 2)
            TR = np.array([t.fp.radius for t in tg], dtype=float) + base0.radius
            v = S[:, None, :] - TC[None, :, :]
            n = np.hypot(v[..., 0], v[..., 1])
            safe = np.where(n > 0, n, 1.0)
            near = TC[None] + v * (TR[None, :] / safe)[..., None]
            # (a start on a target's centre: any point of the circle, as nearest_on_circle)
            near = np.where((n > 0)[..., None], near, TC[None] + np.stack([TR, 0 * TR], axis=1)[None])
            gi, ti = np.nonzero(np.ones_like(n, dtype=bool))
            extra_p.append(near[gi, ti])
            extra_o.append(ti)
            extra_w.append(gi)
            cp, ci, cj = _circle_pairs_ij(TC, TR, S, np.full(len(S), budget))
            extra_p.append(cp)
            extra_o.append(ci)
            extra_w.append(cj)
            P = np.vstack(extra_p)
            own = np.concatenate(extra_o).astype(int)
            who = np.concatenate(extra_w).astype(int)
            if len(P) == 0:
                continue
            ok = (P[:, 0] + x0 >= -TOL) & (P[:, 0] + x1 <= W + TOL)
            ok &= (P[:, 1] + y0 >= -TOL) & (P[:, 1] + y1 <= D + TOL)
            # within the straight reach of some model of the group
            reach = np.hypot(P[:, 0, None] - S[None, :, 0], P[:, 1, None] - S[None, :, 1]) <= budget + TOL  # (n, g)
            reach &= (who[:, None] < 0) | (who[:, None] == np.arange(len(group))[None, :])
            ok &= reach.any(axis=1)
            P, own, reach = P[ok], own[ok], reach[ok]
            if len(P) == 0:
                continue
            sd_t = sd_to_each(base0, P, [t.fp for t in tg], 1.0)[np.arange(len(P)), own]
            ok = np.abs(sd_t) <= TOL
            fixed = [o.fp for o in non_target_models if abs(o.z - z) <= er_v + TOL]
            if fixed:
                ok &= (sd_to_each(base0, P, fixed, er_h + 1.0) > er_h + TOL).all(axis=1)
            if blocking:
                ok &= (sd_to_each(base0, P, [f.fp for f in blocking], 0.0) >= -TOL).all(axis=1)
            P, reach = P[ok], reach[ok]
            if len(P) == 0:
                continue
            level = [o for o in end_all if abs(o.z - z) <= TOL]
            bad = sd_to_each(base0, P, [o.fp for o in level], 0.0) < -TOL  # (n, N)
            count = bad.sum(axis=1)
            lcol = {o.id: j for j, o in enumerate(level)}
            # every model of the group at once: a candidate is clear for a model when it
            # overlaps no model but (perhaps) that model itself
            own_col = np.array([lcol.get(c.id, -1) for c in group])
            self_bad = np.where(own_col[None, :] >= 0, bad[:, np.maximum(own_col, 0)], False)
            clear = (count[:, None] - self_bad) == 0
            for k in np.flatnonzero((clear & reach).any(axis=0)):
                alive[group[int(k)].id] = True
        out |= {cid for cid, a in alive.items() if not a}
    return out


def _find_contact_spot(
    ctx: Ctx,
    c: Placed,
    mine: list[Placed],
    target_models: list[Placed],
    holders: dict[str, set[str]] | None = None,
    coh: np.ndarray | None = None,
    turn: tuple[Placed, float, float] | None = None,
) -> tuple[np.ndarray, str] | None:
    """A spot in base contact with a target model that ``c`` could have taken (every
    rule checked exactly), or None. Candidates are constructed on each target model's
    contact locus (:mod:`chargeref.validate.w40k_duty`): its point nearest the start,
    its crossings with the straight reach, with the boundary of every other rule's
    region and with the board edges; and, when some stretch obeys every rule but the
    reach, the points where the real path cost along the locus equals the budget.

    ``turn`` (``w40k_pivot.end_turn``): the model travels with its base as it started
    (that model at its start) and turns at the spot between the two facings; ``ctx``
    holds the turned base and the budget less the turn. The spot must be at the start's
    height and the turn there clear (``w40k_pivot.turn_clear``); the reach is the
    travelling base's path cost, and the real-reach points are not built (the claim
    behind them is about the locus's own base; a stretch that only the real reach
    bounds is not searched then)."""
    assert ctx.budget is not None
    s = ctx.start[c.id]
    m = s.model
    base0 = base_footprint(m.base.kind, m.base.dims, (0.0, 0.0), m.facing, ctx.mmpu)
    mover = s.fp
    budget = ctx.budget
    x0, x1, y0, y1 = _axis_extent(base0)
    W, D = ctx.before.board.width, ctx.before.board.depth
    board_lines = [(0, -x0), (0, W - x1), (1, -y0), (1, D - y1)]
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    coh_h, coh_v = COH_H * ctx.inch, COH_V * ctx.inch
    others_mine = [p for p in mine if p.id != c.id]
    others_all = [p for mid, p in ctx.end.items() if mid != c.id and mid not in ctx.casualties]
    non_target_models = [
        p for eid in ctx.enemy_units() if eid not in ctx.targets for p in ctx.unit_end(eid)
    ]
    # Which targets stay engaged by the other charging models where they ended.
    if holders is None:
        engaged_by_others = {t: bool(_units_in_er(ctx, others_mine, t)) for t in ctx.targets}
    else:
        engaged_by_others = {t: bool(holders[t] - {c.id}) for t in ctx.targets}
    blocking = [f for f in ctx.features if _blocks_ending(ctx, f)]
    if coh is None:
        unit = _UnitLinks(ctx, others_mine)
    else:
        rest = [i for i, p in enumerate(mine) if p.id != c.id]
        unit = _UnitLinks(ctx, others_mine, coh[np.ix_(rest, rest)])
    sxy = np.asarray(s.xy, dtype=float)

    def survivors(cands: np.ndarray, owner: np.ndarray, group: list[Placed], z: float) -> tuple[np.ndarray, np.ndarray]:
        """The candidates that pass every cheap exact test, by target then nearest the
        start first."""
        keep = np.hypot(*(cands - sxy).T) <= budget + TOL
        keep &= (cands[:, 0] + x0 >= -TOL) & (cands[:, 0] + x1 <= W + TOL)
        keep &= (cands[:, 1] + y0 >= -TOL) & (cands[:, 1] + y1 <= D + TOL)
        cands, owner = cands[keep], owner[keep]
        if len(cands) == 0:
            return cands, owner
        sd_t = sd_to_each(base0, cands, [t.fp for t in group], 1.0)[np.arange(len(cands)), owner]
        keep = np.abs(sd_t) <= TOL
        fixed = [o.fp for o in others_all if abs(o.z - z) <= TOL]
        if fixed:
            keep &= (sd_to_each(base0, cands, fixed, 0.0) >= -TOL).all(axis=1)
        fixed = [o.fp for o in non_target_models if abs(o.z - z) <= er_v + TOL]
        if fixed:
            keep &= (sd_to_each(base0, cands, fixed, er_h + 1.0) > er_h + TOL).all(axis=1)
        if blocking:
            keep &= (sd_to_each(base0, cands, [f.fp for f in blocking], 0.0) >= -TOL).all(axis=1)
        cands, owner = cands[keep], owner[keep]
        if len(cands) == 0:
            return cands, owner
        keep = _keeps_unit(ctx, base0, cands, z, others_mine, engaged_by_others, unit)
        cands, owner = cands[keep], owner[keep]
        order = np.lexsort((np.hypot(*(cands - sxy).T), owner))
        return cands[order], owner[order]

    # targets standing at one height share every rule region: one batch per height
    heights: dict[float, list[Placed]] = {}
    for t in target_models:
        # the whole locus lies within this of the target's centre
        if math.dist(s.xy, t.fp.center) - t.fp.radius - mover.radius > budget + TOL:
            continue
        heights.setdefault(round(t.z, 9), []).append(t)
    for group in heights.values():
        z = group[0].z
        bounds: list[tuple[Footprint, float]] = []
        bounds += [(o.fp, 0.0) for o in others_all if abs(o.z - z) <= TOL]
        bounds += [(o.fp, er_h + STRICT_MARGIN) for o in non_target_models if abs(o.z - z) <= er_v + TOL]
        bounds += [(o.fp, coh_h) for o in others_mine if abs(o.z - z) <= coh_v + TOL]
        for tid, ok in engaged_by_others.items():
            if not ok:
                bounds += [(e.fp, er_h) for e in ctx.unit_end(tid) if abs(e.z - z) <= er_v + TOL]
        bounds += [(f.fp, 0.0) for f in blocking]
        bounds += _floor_edges(ctx, z)
        pts, owner = loci_candidates(mover, [t.fp for t in group], 0.0, budget, bounds, board_lines)
        cands, owner = survivors(pts, owner, group, z)
        short: set[int] = set()
        for q, k in zip(cands, owner, strict=True):
            verdict = _spot_ok(ctx, c, s, base0, q, group[k], others_mine, engaged_by_others, turn)
            if verdict is True:
                return q, group[k].id
            if verdict == "reach" and turn is None:
                short.add(int(k))
        for k in sorted(short):
            # a stretch obeys every rule but the reach: try where it enters the reach
            t = group[k]
            roots = _reach_spots(ctx, s, mover, t)
            cands, _ = survivors(roots, np.full(len(roots), k), group, z)
            for q in cands:
                if _spot_ok(ctx, c, s, base0, q, t, others_mine, engaged_by_others) is True:
                    return q, t.id
    return None


def _reach_spots(ctx: Ctx, s: Placed, mover: Footprint, t: Placed) -> np.ndarray:
    """Where the contact locus of target ``t`` meets the edge of the model's reach
    along real paths (:func:`w40k_duty.reach_roots`, with the cost the duty check
    uses: the path field plus the vertical climb, and the cut points where that cost
    may jump: the field's barriers, its board box, and hill edges when the climb is
    paid only off the ground). The field measures costs up to an inch past the
    budget, so a spot out of reach is known to be so by a margin that lets the
    Lipschitz bound drop whole stretches (a field cut off at the budget itself would
    leave every unreachable stretch within TOL of a root)."""
    assert ctx.budget is not None
    fld = _duty_field(ctx, s, t.z, beyond=ctx.inch)
    z = t.z
    dz = abs(z - s.z)
    paid = dz > ctx.climb_free + TOL
    hills = ctx.hills if paid and not s.elevated else []
    # the ground under a centre is a hill's height within TOL of the hill (_ground)
    areas = [(np.asarray(part.V, dtype=float), TOL) for fp, _ in hills for part in fp.parts]  # type: ignore[attr-defined]

    def cost(P: np.ndarray) -> np.ndarray:
        c = np.asarray(fld.cost(P), dtype=float)  # type: ignore[attr-defined]
        if not paid:
            return c
        if s.elevated:
            return c + dz
        up = np.array([abs(z - _ground((float(q[0]), float(q[1])), ctx.hills)) > TOL for q in P], dtype=bool)
        return c + np.where(up, dz, 0.0)

    box = fld.ctx.box  # type: ignore[attr-defined]
    lines = [] if box is None else [(0, float(box[0]) - TOL), (0, float(box[1]) + TOL),
                                    (1, float(box[2]) - TOL), (1, float(box[3]) + TOL)]
    walls = [(b.footprint, b.cost is not None and b.cost > 0) for b in fld.planner.barriers]  # type: ignore[attr-defined]
    # a spot whose base enters a feature charged to cross is refused by the terrain
    # test (every such feature is one no model may end in, charged_features_refuse_ends)
    refused = charged_features_refuse_ends(ctx, ctx.keywords(s.unit))
    return reach_roots(mover, t.fp, 0.0, cost, ctx.budget, limit=float(fld.limit),  # type: ignore[attr-defined]
                       walls=walls, lines=lines, areas=areas, charged_ends_refused=refused)


def charged_features_refuse_ends(ctx: Ctx, keywords: set[str]) -> bool:
    """Is every feature whose crossing costs this model something also one it may not
    end overlapping? (A climb is charged only for features taller than the free climb,
    and exactly those, with ruin walls, free walls and barricades, are refused as end
    spots; ``reach_roots`` relies on it to leave the inside of charged terrain out.)"""
    for f in ctx.features:
        c = _crossing_cost(ctx, f, keywords)
        if c is not None and c > 0 and not _blocks_ending(ctx, f):
            return False
    return True


def _floor_edges(ctx: Ctx, z: float) -> list[tuple[Footprint, float]]:
    """The edges of the floors at height ``z`` as zero-width walls (a base standing on a
    floor must stay inside it: its stretches end where the base touches an edge)."""
    out: list[tuple[Footprint, float]] = []
    for fl in ctx.floors:
        if abs(fl.height - z) > TOL:
            continue
        for a, b in fl.edges:
            out.append((Footprint((Capsule(a, b, 0.0),), "wall", a), 0.0))
    return out


def _duty_field(ctx: Ctx, s: Placed, z: float, beyond: float = 1e-9) -> object:
    """The shortest-path field from the model's start for a move ending at height
    ``z``, under the rules its charge move obeys: terrain crossings as in
    :func:`path_cost`, enemy models in the way unless it can FLY, no point within
    engagement range of a non-target where the edition forbids it (those models grown
    by the range), friendly models it may not move through. Shortest paths come from
    ``geometry.paths`` (exact tangents and arcs). One per model and height.
    ``beyond``: how far past the budget the field measures costs (farther costs are
    ``inf``)."""
    assert ctx.budget is not None
    key = f"{s.id}@{z:.9f}" if beyond == 1e-9 else f"{s.id}@{z:.9f}+{beyond!r}"
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
        fld = Planner(bars, board).field(s.fp, budget=ctx.budget + beyond)
        ctx.duty_fields[key] = fld
    return fld


def _duty_path_cost(ctx: Ctx, s: Placed, xy: tuple[float, float], z: float, elevated: bool) -> float:
    """Least cost of a real path from the model's start to ``xy`` (:func:`_duty_field`)
    plus the vertical change."""
    fld = _duty_field(ctx, s, z)
    c = float(fld.cost(np.asarray([xy], dtype=float))[0])  # type: ignore[attr-defined]
    dz = abs(z - s.z)
    if (s.elevated or elevated) and dz > ctx.climb_free + TOL:
        c += dz
    return c


class _UnitLinks:
    """The coherency links among the other models of the charging unit where they
    ended (the same for every candidate spot of one model)."""

    def __init__(self, ctx: Ctx, others: list[Placed], near: np.ndarray | None = None) -> None:
        coh_h, coh_v = COH_H * ctx.inch, COH_V * ctx.inch
        self.need = 2 if len(others) + 1 >= TWO_NEIGHBOURS_FROM[ctx.edition] else 1
        if near is None:
            near = within_matrix(others, others, coh_h, coh_v)
        near = near.copy()
        np.fill_diagonal(near, False)
        adj: list[list[int]] = [list(np.flatnonzero(near[i])) for i in range(len(others))]
        self.adj = adj
        self.groups = _components(adj)


def _keeps_unit(
    ctx: Ctx,
    base0: Footprint,
    cands: np.ndarray,
    z: float,
    others: list[Placed],
    engaged_by_others: dict[str, bool],
    links: _UnitLinks | None = None,
) -> np.ndarray:
    """For many candidate spots at once: would the unit, with this model there and the
    others where they ended, be coherent and in engagement range of every target?
    (A fast filter; :func:`_spot_ok` confirms the survivors one by one.)"""
    keep = np.ones(len(cands), bool)
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    for tid, ok in engaged_by_others.items():
        if ok:
            continue
        fixed = [e.fp for e in ctx.unit_end(tid) if abs(e.z - z) <= er_v + TOL]
        if not fixed:
            return np.zeros(len(cands), bool)
        keep &= (sd_to_each(base0, cands, fixed, er_h + 1.0) <= er_h + TOL).any(axis=1)
    if not others:
        return keep
    links = links or _UnitLinks(ctx, others)
    coh_h, coh_v = COH_H * ctx.inch, COH_V * ctx.inch
    adj_c = np.zeros((len(cands), len(others)), bool)
    near = [j for j, o in enumerate(others) if abs(o.z - z) <= coh_v + TOL]
    if near:
        adj_c[:, near] = sd_to_each(base0, cands, [others[j].fp for j in near], coh_h + 1.0) <= coh_h + TOL
    need = links.need
    keep &= adj_c.sum(axis=1) >= need
    for i, nb in enumerate(links.adj):
        if len(nb) < need:
            keep &= adj_c[:, i] & (len(nb) + 1 >= need)
    for group in links.groups:
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
    turn: tuple[Placed, float, float] | None = None,
) -> bool | str:
    """True when the spot obeys every rule; ``"reach"`` when it obeys every rule but
    the path cost; False otherwise. ``turn``: see :func:`_find_contact_spot`."""
    assert ctx.budget is not None
    xy = (float(q[0]), float(q[1]))
    ground = _ground(xy, ctx.hills)
    z = t.z
    fp = base0.translated(xy)
    p = Placed(c.id, c.unit, c.player, s.model, xy, z, ground, fp)
    if p.elevated and _floor_ok(ctx, c.unit, fp, z) is not None:
        return False
    for tid, ok in engaged_by_others.items():
        if not ok and not _units_in_er(ctx, [p], tid):
            return False
    if coherency_problems([*others_mine, p], ctx.edition, ctx.inch):
        return False
    if turn is not None:
        if abs(z - s.z) > TOL or not turn_clear(ctx, turn[0], xy, turn[1], turn[2]):
            return False
        s = turn[0]  # the base that travels
    if _duty_path_cost(ctx, s, xy, z, p.elevated) > ctx.budget + TOL:
        return "reach"
    return True


