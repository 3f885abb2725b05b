"""The charge distance (``needed.distance``): the shortest clear approach to any flush
end on the charged facing. When the shortest unobstructed approach is blocked, the
certified search of ``detour`` over end offsets and align angles decides (see
docs/t9a.md, "When something is in the way")."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .block import Block, Facing
from .charge import (
    Approach,
    Context,
    Placement,
    _approach_at,
    _clear_approach,
    _iter_approaches,
    align_angles,
    approaches,
    candidate_offsets,
    detour_search,
    end_overlaps_target,
    plan,
    search_obstacles,
    target_profile,
)
from .detour import cells
from .geom import gap
from .memo import table as memo_table
from .reach import contact_range, solve
from .world import Step

#: at most this many constructed approaches are checked for a first clear one (the
#: search's starting bound) before the search starts without one
FIRST_TRIES = 400


def needed_distance(ctx: Context) -> tuple[float, Approach, list[Step]] | None:
    """The shortest clear approach to any flush end on the facing (path distance).

    For a fixed align angle the distance is affine in the offset over each interval
    of the reach table, so the shortest unobstructed approach is one of the
    constructed candidates. When it is clear it is the answer; otherwise the
    search of ``detour`` finds the least clear one (``ctx.lower_bound`` is then set
    to its proven lower bound)."""
    ch, fr = ctx.charger, ctx.fr
    prof = target_profile(ctx.target, fr)
    tb = ctx.table
    others = [o for o in ctx.obstacles if o.uid != ctx.target.id]
    bad_s: dict[float, bool] = {}

    def end_bad(s: float) -> bool:
        ks = round(s, 12)
        if ks not in bad_s:
            fin = ch.at(fr.pt(s), fr.psi)
            bad_s[ks] = (ctx.world.pose_clear(fin, others) is not None
                         or end_overlaps_target(fin.shape(), ctx.target.shape(), fr))
        return bad_s[ks]

    if ch.round:
        lo, hi = contact_range(ch, fr)
        x, _ = fr.local(ch.centre)
        cands: Iterable[Approach] = []
        for s in sorted({min(max(x, lo), hi), lo, hi} | set(candidate_offsets(ch, fr, prof, tb, ctx.end_events()))):
            cands = list(cands) + approaches(ch, fr, s, tb)
        for ap in sorted(cands, key=lambda a: a.distance):
            if end_bad(ap.s):
                continue
            steps, res = _clear_approach(ctx, ap)
            if res is None:
                return ap.distance, ap, steps
        return _rotated(ctx)
    co = np.asarray(candidate_offsets(ch, fr, prof, tb, ctx.end_events()))
    Ds = [tb.D, tb.D]
    for s in co:
        Ds.append(align_angles(ch, fr, float(s), tb))
    # each offset once per align angle there (one repeat, not an array per offset)
    Ss = [tb.A, tb.B, np.repeat(co, [len(dd) for dd in Ds[2:]])]
    least: float | None = None
    first: tuple[Approach, list[Step]] | None = None
    seen: set[tuple[float, float]] = set()
    for k, ap in enumerate(_iter_approaches(ch, fr, _solve(ch, fr, np.concatenate(Ss), np.concatenate(Ds)))):
        if least is None:
            least = ap.distance  # the shortest unobstructed approach of all
        key = (round(ap.s, 9), round(ap.delta, 9))
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > FIRST_TRIES:
            break
        if end_bad(ap.s):
            continue
        steps, res = _clear_approach(ctx, ap)
        if res is None:
            if k == 0:
                return ap.distance, ap, steps
            first = (ap, steps)
            break
    if least is None:
        return _rotated(ctx)

    # the search's clear test allows less overlap than the ordinary one (as the
    # charge's own search: ``charge.search_obstacles``)
    tight = search_obstacles(ctx.obstacles)

    def clear(s: float, d: float) -> tuple[Approach, list[Step]] | None:
        if end_bad(s):
            return None
        ap = _approach_at(ch, fr, s, d)
        if ap is None:
            return None
        steps, res = _clear_approach(ctx, ap, tight)
        return (ap, steps) if res is None else None

    found = detour_search(ctx, clear).run(cells(ch, fr), first)
    if found.best is not None:
        ap, steps = found.best  # type: ignore[misc]
        # the unobstructed least bounds it too (obstacles only take approaches away)
        ctx.lower_bound = min(ap.distance, max(least, found.lower))
        return ap.distance, ap, steps
    return _rotated(ctx)


def _solve(ch: Block, fr: Facing, S: np.ndarray, D: np.ndarray) -> dict[str, np.ndarray]:
    """``solve`` of every candidate, within a ruling (``memo``) once per set of inputs:
    a charger's declaration and its move often ask the same (the same offsets and
    angles when the obstacles they differ in give no end events). Keyed by the
    charger's pose and width, the facing and the exact arrays; read only."""
    tab = memo_table("needed_solve")
    if tab is None:
        return solve(ch, fr, S, D)
    key = (ch.front, ch.facing, ch.width, fr.mid.tobytes(), fr.t.tobytes(), fr.n.tobytes(), fr.length,
           S.dtype.str, S.tobytes(), D.dtype.str, D.tobytes())
    hit = tab.get(key)
    if hit is None:
        hit = tab[key] = solve(ch, fr, S, D)
        for v in hit.values():
            v.flags.writeable = False
    return hit


def _rotated(ctx: Context) -> tuple[float, Approach, list[Step]] | None:
    """No flush end the charger can reach by itself: a charge that needs the charged
    unit to turn is measured to the contact."""
    pl = plan(ctx)
    if isinstance(pl, Placement) and pl.target_steps:
        ap = Approach(pl.s, pl.align + pl.target_turn, pl.wheel, 0.0, 0.0, pl.distance,
                      None if pl.pivot is None else np.asarray(pl.pivot))
        return pl.distance, ap, pl.steps
    return None


def boundary_gap(a: Block, b: Block) -> float:
    return max(0.0, gap(a.shape(), b.shape()))
