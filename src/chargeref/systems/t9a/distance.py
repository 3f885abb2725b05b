"""The charge distance (``needed.distance``): the shortest clear approach to any flush
end on the charged facing, and the refinement of blocked approaches across end offsets
(see docs/t9a.md, "When something is in the way")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ... import budget
from ...geometry.shapes import TOL
from .block import Block
from .charge import (
    REFINE_MAX,
    Approach,
    Context,
    Placement,
    _approach_at,
    _clear_approach,
    _iter_approaches,
    approaches,
    candidate_offsets,
    plan,
    refine_blocked,
    target_profile,
)
from .geom import gap
from .reach import MAX_WHEEL, ReachTable, alternative_table, contact_range, solve
from .wheel import candidate_deltas
from .world import Step


def _refine_offsets(ctx: Context, offsets: np.ndarray, best: tuple[Approach, list[Step]],
                    blocked: list[Approach]) -> tuple[Approach, list[Step]]:
    """The same refinement across end offsets: for a fixed align angle the distance is
    affine in the offset, so the shortest clear approach of that angle lies at an end
    of a clear stretch of offsets. For each blocked approach shorter than ``best``
    whose neighbouring candidate offset is clear at the same align angle, the
    boundary between them is bisected to ``OFFSET_BISECT`` inch."""
    ch, fr = ctx.charger, ctx.fr
    grid = np.unique(np.asarray(offsets, float))
    known: dict[tuple[float, float], tuple[Approach, list[Step]] | None] = {}

    def clear(s: float, delta: float) -> tuple[Approach, list[Step]] | None:
        key = (s, delta)
        if key not in known:
            ap = _approach_at(ch, fr, s, delta)
            res = None
            if ap is not None:
                fin = ch.at(fr.pt(s), fr.psi)
                if ctx.world.pose_clear(fin, [o for o in ctx.obstacles if o.uid != ctx.target.id]) is None:
                    steps, bl = _clear_approach(ctx, ap)
                    res = None if bl is not None else (ap, steps)
            known[key] = res
        return known[key]

    out = best
    for ap in sorted(blocked, key=lambda a: a.distance)[:REFINE_MAX]:
        if ap.distance >= out[0].distance - 1e-9:
            break
        i = int(np.searchsorted(grid, ap.s))
        for j in (i - 1, i + 1) if i < len(grid) and abs(grid[i] - ap.s) <= 1e-12 else (i - 1, i):
            if not 0 <= j < len(grid):
                continue
            nb = float(grid[j])
            if clear(nb, ap.delta) is None:
                continue
            good, bad = nb, ap.s
            while abs(good - bad) > OFFSET_BISECT:
                budget.check()
                m = (good + bad) / 2
                if clear(m, ap.delta) is not None:
                    good = m
                else:
                    bad = m
            found = clear(good, ap.delta)
            if found is not None and found[0].distance < out[0].distance - 1e-9:
                out = found
    return out


#: blocked/clear boundaries of the end offset are bisected to this (inch)
OFFSET_BISECT = 1e-9


def needed_distance(ctx: Context) -> tuple[float, Approach, list[Step]] | None:
    """The shortest clear approach to any flush end on the facing (path distance).

    For a fixed align angle the distance is affine in the offset over each interval
    of the reach table, so the shortest approach of each align angle is at an end of
    its interval. Candidate offsets are added for when those are blocked."""
    ch, fr = ctx.charger, ctx.fr
    prof = target_profile(ctx.target, fr)
    tb = ctx.table
    if ch.round:
        lo, hi = contact_range(ch, fr)
        x, _ = fr.local(ch.centre)
        cands: Iterable[Approach] = []
        for s in sorted({min(max(x, lo), hi), lo, hi} | set(candidate_offsets(ch, fr, prof, tb, ctx.end_events()))):
            cands = list(cands) + approaches(ch, fr, s, tb)
        cands = sorted(cands, key=lambda a: a.distance)
    else:
        co = np.asarray(candidate_offsets(ch, fr, prof, tb, ctx.end_events()))

        def build(tables: list[ReachTable]) -> Iterator[Approach]:
            Ss = [x for t in tables for x in (t.A, t.B)]
            Ds = [x for t in tables for x in (t.D, t.D)]
            for s in co:
                dd = np.unique(np.concatenate([np.asarray(candidate_deltas(ch, fr, float(s), MAX_WHEEL))]
                                              + [t.deltas_at(float(s)) for t in tables]))
                Ss.append(np.full(len(dd), s))
                Ds.append(dd)
            return _iter_approaches(ch, fr, solve(ch, fr, np.concatenate(Ss), np.concatenate(Ds)))

        cands = build([tb])
    seen = 0
    tried: set[tuple[float, float]] = set()
    others = [o for o in ctx.obstacles if o.uid != ctx.target.id]
    bad_s: dict[float, bool] = {}
    blocked_at: dict[float, list[Approach]] = {}
    seen_s: set[float] = set()
    first = True
    least: float | None = None
    while True:
        for ap in cands:
            if first and least is None:
                least = ap.distance  # the shortest unobstructed approach of all
            key = (round(ap.s, 9), round(ap.delta, 9))
            seen_s.add(ap.s)
            if key in tried:
                continue
            tried.add(key)
            ks = round(ap.s, 9)
            if ks not in bad_s:
                fin = ch.at(fr.pt(ap.s), fr.psi)
                bad_s[ks] = (ctx.world.pose_clear(fin, others) is not None
                             or gap(fin.shape(), ctx.target.shape()) < -TOL)
            if bad_s[ks]:
                seen += 1  # its end is blocked: the alternatives are needed
                continue
            steps, res = _clear_approach(ctx, ap)
            seen += 1
            if res is None and (seen == 1 or ch.round):
                return ap.distance, ap, steps
            if res is None and not first:
                # the alternatives decided: refine at the blocked shorter approaches
                best = (ap, steps)
                for group in blocked_at.values():
                    best = refine_blocked(ctx, group[0].s, best, group)
                best = _refine_offsets(ctx, np.asarray(sorted(seen_s)), best, [a for g in blocked_at.values() for a in g])
                return best[0].distance, best[0], best[1]
            if res is not None and res.what != "imprecise":
                blocked_at.setdefault(ks, []).append(ap)
            if res is None:
                # the shortest constructed approach is blocked: the alternatives may
                # hold a shorter clear one than the next constructed one
                tried.discard(key)
                break
            if seen > 400:
                break
        if not first or ch.round:
            break
        first = False
        seen = 0
        ctx.lower_bound = least
        cands = build([tb, alternative_table(ch, fr)])
    # no flush end the charger can reach by itself: a charge that needs the charged
    # unit to turn is measured to the contact
    pl = plan(ctx)
    if isinstance(pl, Placement) and pl.target_steps:
        ap = Approach(pl.s, pl.align + pl.target_turn, pl.wheel, 0.0, 0.0, pl.distance,
                      None if pl.pivot is None else np.asarray(pl.pivot))
        return pl.distance, ap, pl.steps
    return None


def boundary_gap(a: Block, b: Block) -> float:
    return max(0.0, gap(a.shape(), b.shape()))
