"""Combined charges: several units charging one enemy unit in the same phase.

Seed 001: all Charge Ranges are rolled first; then the charge moves are made in the
order that best satisfies Maximising Contact *after all of them*: fewest other enemy
units contacted, the most charging units in contact, no (or the least) rotation of the
charged unit (only the first charger may rotate it), the most models in contact.

The search is over end offsets: every charger's candidate offsets on its charged
facing (plus offsets that put it shoulder to shoulder with a charger already placed);
chargers may touch each other but not overlap. Branch and bound on (units in
contact, models in contact). The best assignment is then checked move by move, in
every order, against the real paths (earlier chargers in their new places, later ones
still where they started); the first order that works is the one used.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ...geometry.shapes import TOL
from .block import Block
from .charge import (
    Context,
    Entry,
    Placement,
    PlanFailure,
    _best_approach,
    _entries,
    _placement,
    contact_range,
    count_1d,
    make_context,
    plan,
    target_profile,
)
from .geom import gap, near
from .world import World

MAX_ASSIGNMENTS = 6


@dataclass
class Member:
    charger: str
    facing: str
    allowed: frozenset[str]


@dataclass
class CombinedResult:
    placements: dict[str, Placement]
    unplaced: dict[str, PlanFailure]
    order: list[str]
    score: dict[str, int | float] = field(default_factory=dict)
    rotated_by: str | None = None


def _entry_at(ctx: Context, s: float) -> Entry | None:
    lo, hi = contact_range(ctx.charger, ctx.fr)
    if not lo - TOL <= s <= hi + TOL:
        return None
    ch, fr, tgt = ctx.charger, ctx.fr, ctx.target
    fin = ch.at(fr.pt(s), fr.psi)
    sh = fin.shape()
    if not ctx.world.shape_on_board(sh):
        return None
    extra: set[str] = set()
    for ob in ctx.obstacles:
        if not near(sh, ob.shape, ob.min_gap + 10 * TOL):
            continue
        g = gap(sh, ob.shape)
        if ob.uid == tgt.id:
            if g < -TOL:
                return None
            continue
        if not ob.ok(g):
            return None
        if ob.cls in ("target", "enemy") and g <= TOL:
            extra.add(ob.uid)
    prof = target_profile(tgt, fr)
    cm, tm = count_1d(ch, s, prof)
    return Entry(s, frozenset(extra), len(cm) + len(tm), cm, tm, fin)


def plan_combined(world: World, members: list[Member], target: str) -> CombinedResult:
    res = _plan_fixed(world, members, target)
    if len(res.placements) == len(members):
        return res
    # the charged unit may be turned for the first charger only, if that gets more
    # chargers into contact
    best = res
    for m in members:
        ctx = make_context(world, world.blocks[m.charger], world.blocks[target],
                           world.blocks[target].facing_of(m.facing), m.allowed, False,
                           ignore=frozenset(x.charger for x in members if x.charger != m.charger))
        pl = plan(ctx, allow_rotation=True)
        if not isinstance(pl, Placement) or not pl.target_steps:
            continue
        w2 = world.copy()
        w2.put(pl.target_final)
        w2.put(pl.final)
        rest = [x for x in members if x.charger != m.charger]
        sub = _plan_fixed(w2, rest, target) if rest else CombinedResult({}, {}, [])
        n = len(sub.placements) + 1
        if n > len(best.placements) or (n == len(best.placements) and best.rotated_by is not None
                                        and abs(pl.target_turn) < float(best.score.get("target_rotation", 1e9))):
            placements = {m.charger: pl, **sub.placements}
            best = CombinedResult(placements, sub.unplaced, [m.charger] + sub.order,
                                  {**sub.score, "target_rotation": abs(pl.target_turn)}, m.charger)
    return best


def _plan_fixed(world: World, members: list[Member], target: str) -> CombinedResult:
    tgt = world.blocks[target]
    ids = [m.charger for m in members]
    ctxs: list[Context] = []
    entries: list[list[Entry]] = []
    for m in members:
        ch = world.blocks[m.charger]
        fr = tgt.facing_of(m.facing) if not tgt.round else None
        if fr is None:
            from .charge import round_facing
            from .geom import angle_of

            fr = round_facing(tgt, angle_of(tgt.centre - ch.F))
        ctx = make_context(world, ch, tgt, fr, m.allowed, False, ignore=frozenset(i for i in ids if i != m.charger))
        es = _entries(ctx)
        if es:
            lv = min(len(e.extra) for e in es)
            es = [e for e in es if len(e.extra) == lv]
        es.sort(key=lambda e: (-e.models, abs(e.s)))
        ctxs.append(ctx)
        entries.append(es)
    k = len(members)
    feas: dict[tuple[int, float], bool] = {}

    def feasible(i: int, e: Entry) -> bool:
        key = (i, round(e.s, 9))
        if key not in feas:
            feas[key] = _best_approach(ctxs[i], e.s) is not None
        return feas[key]

    def compatible(i: int, e: Entry, j: int, f: Entry) -> bool:
        if members[i].facing == members[j].facing and not tgt.round:
            wi = ctxs[i].charger.width
            wj = ctxs[j].charger.width
            return e.s + wi / 2 <= f.s - wj / 2 + TOL or f.s + wj / 2 <= e.s - wi / 2 + TOL
        return gap(e.final.shape(), f.final.shape()) >= -TOL

    maxm = [max((e.models for e in es), default=0) for es in entries]
    excluded: set[tuple[tuple[int, float], ...]] = set()
    result: CombinedResult | None = None
    for _ in range(MAX_ASSIGNMENTS):
        best: dict[str, object] = {"key": (-1, -1), "assign": None}

        def dfs(i: int, placed: list[tuple[int, Entry]], tm: frozenset[str], cm: int, eng: int,
                best: dict[str, object] = best) -> None:
            if i == k:
                key = (eng, cm + len(tm))
                sig = tuple((j, round(e.s, 9)) for j, e in placed)
                if key > best["key"] and sig not in excluded:  # type: ignore[operator]
                    best["key"] = key
                    best["assign"] = list(placed)
                return
            bk = best["key"]
            rem = k - i
            if (eng + rem, cm + len(tm) + sum(maxm[i:])) <= bk:  # type: ignore[operator]
                return
            opts = list(entries[i])
            seen = {round(e.s, 9) for e in opts}
            for j, f in placed:
                if members[j].facing == members[i].facing:
                    half = (ctxs[i].charger.width + ctxs[j].charger.width) / 2
                    for s in (f.s - half, f.s + half):
                        if round(s, 9) not in seen:
                            e2 = _entry_at(ctxs[i], s)
                            if e2 is not None:
                                opts.append(e2)
                                seen.add(round(s, 9))
            opts.sort(key=lambda e: (-e.models, abs(e.s)))
            for e in opts:
                if not all(compatible(i, e, j, f) for j, f in placed):
                    continue
                if not feasible(i, e):
                    continue
                dfs(i + 1, placed + [(i, e)], tm | e.target_models, cm + len(e.charger_models), eng + 1)
            dfs(i + 1, placed, tm, cm, eng)

        dfs(0, [], frozenset(), 0, 0)
        assign = best["assign"]
        if assign is None:
            break
        assert isinstance(assign, list)
        done = _order(world, members, ctxs, assign, target)
        if done is not None:
            placements, order = done
            unplaced = {}
            for m in members:
                if m.charger not in placements:
                    unplaced[m.charger] = PlanFailure("no_room", "the other chargers leave no room on the charged facing")
            key = best["key"]
            assert isinstance(key, tuple)
            result = CombinedResult(placements, unplaced, order, {"charging_units_engaged": key[0], "models_in_contact": key[1]})
            break
        excluded.add(tuple((j, round(e.s, 9)) for j, e in assign))
    if result is None:
        # fall back: one after the other in the given order
        placements = {}
        unplaced = {}
        w2 = world.copy()
        order = []
        for m in members:
            ctx = make_context(w2, w2.blocks[m.charger], w2.blocks[target], w2.blocks[target].facing_of(m.facing),
                               m.allowed, False)
            pl = plan(ctx, allow_rotation=False)
            if isinstance(pl, Placement):
                placements[m.charger] = pl
                w2.put(pl.final)
                order.append(m.charger)
            else:
                unplaced[m.charger] = pl
        result = CombinedResult(placements, unplaced, order)
    return result


def _order(world: World, members: list[Member], ctxs: list[Context], assign: list[tuple[int, Entry]],
           target: str) -> tuple[dict[str, Placement], list[str]] | None:
    idx = [i for i, _ in assign]
    ent = dict(assign)
    perms = itertools.permutations(idx) if len(idx) <= 5 else iter([tuple(idx)])
    for perm in perms:
        w2 = world.copy()
        out: dict[str, Placement] = {}
        ok = True
        for i in perm:
            m = members[i]
            ch: Block = w2.blocks[m.charger]
            ctx = make_context(w2, ch, w2.blocks[target], ctxs[i].fr, m.allowed, False)
            found = _best_approach(ctx, ent[i].s)
            if found is None:
                ok = False
                break
            ap, steps = found
            pl = _placement(ctx, ent[i], ap, steps)
            out[m.charger] = pl
            w2.put(pl.final)
        if ok:
            return out, [members[i].charger for i in perm]
    return None
