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

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ...budget import check as budget_check
from ...geometry.shapes import TOL
from .charge import (
    Approach,
    Context,
    Entry,
    Placement,
    PlanFailure,
    _best_approach,
    _entries,
    _placement,
    contact_range,
    count_1d,
    end_overlaps_target,
    make_context,
    plan,
    target_profile,
)
from .geom import Shape, gap, near
from .world import Obstacle, Step, World

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
        if ob.uid == tgt.id:
            if end_overlaps_target(sh, ob.shape, fr):
                return None
            continue
        g = gap(sh, ob.shape)
        if not ob.ok(g):
            return None
        if ob.cls in ("target", "enemy") and g <= TOL:
            extra.add(ob.uid)
    prof = target_profile(tgt, fr)
    cm, tm = count_1d(ch, s, prof)
    return Entry(s, frozenset(extra), len(cm) + len(tm), cm, tm, fin)


def plan_combined(world: World, members: list[Member], target: str, fast: bool = True) -> CombinedResult:
    """``fast=False``: the plain searches (``_plan_fixed``), for the tests."""
    res = _plan_fixed(world, members, target, fast)
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
        sub = _plan_fixed(w2, rest, target, fast) if rest else CombinedResult({}, {}, [])
        n = len(sub.placements) + 1
        if n > len(best.placements) or (n == len(best.placements) and best.rotated_by is not None
                                        and abs(pl.target_turn) < float(best.score.get("target_rotation", 1e9))):
            placements = {m.charger: pl, **sub.placements}
            best = CombinedResult(placements, sub.unplaced, [m.charger] + sub.order,
                                  {**sub.score, "target_rotation": abs(pl.target_turn)}, m.charger)
    return best


def _plan_fixed(world: World, members: list[Member], target: str, fast: bool = True) -> CombinedResult:
    """The combined placement with the charged unit where it stands. ``fast=False``
    runs the plain search (reachability checked at every would-be improvement, every
    failed move order searched afresh): the same answer, kept for the tests."""
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
    found_steps: dict[tuple[int, float], tuple[Approach, list[Step]]] = {}
    at_cache: dict[tuple[int, float], Entry | None] = {}

    def feasible(i: int, e: Entry) -> bool:
        key = (i, round(e.s, 9))
        if key not in feas:
            f = _best_approach(ctxs[i], e.s, limit=12)
            feas[key] = f is not None
            if f is not None:
                found_steps[key] = f
        return feas[key]

    def entry_at(i: int, s: float) -> Entry | None:
        key = (i, round(s, 9))
        if key not in at_cache:
            at_cache[key] = _entry_at(ctxs[i], s)
        return at_cache[key]

    compat: dict[tuple[int, int], bool] = {}

    def compatible(i: int, e: Entry, j: int, f: Entry) -> bool:
        # a pure function of the two ends (the entries live as long as this search,
        # so their ids name them): each pair is decided once
        key = (id(e), id(f))
        hit = compat.get(key)
        if hit is None:
            hit = compat[key] = _compatible(i, e, j, f)
        return hit

    def _compatible(i: int, e: Entry, j: int, f: Entry) -> bool:
        if members[i].facing == members[j].facing and not tgt.round:
            wi = ctxs[i].charger.width
            wj = ctxs[j].charger.width
            return e.s + wi / 2 <= f.s - wj / 2 + TOL or f.s + wj / 2 <= e.s - wi / 2 + TOL
        return gap(e.final.shape(), f.final.shape()) >= -TOL

    # bounds: charger models and target models each charger can add at most, and the
    # target models there are to touch at all
    max_cm = [max((len(e.charger_models) for e in es), default=0) for es in entries]
    max_tm = [max((len(e.target_models) for e in es), default=0) for es in entries]
    all_tm = len(set().union(*[e.target_models for es in entries for e in es])) if any(entries) else 0
    # chargers on one facing keep their left-to-right order (their paths would cross
    # otherwise); this is tried first, then dropped if no order of moves works
    lateral = [float((ctxs[i].charger.centre - ctxs[i].fr.mid) @ ctxs[i].fr.t) for i in range(k)]
    keep_order = [True]

    def in_order(i: int, e: Entry, j: int, f: Entry) -> bool:
        if not keep_order[0] or members[i].facing != members[j].facing:
            return True
        return (lateral[i] - lateral[j]) * (e.s - f.s) >= 0

    # whether an end may join the ends already placed: ``compatible`` and ``in_order``
    # with each of them, kept per pair of ends (by id, as ``compatible``) and per
    # state of ``keep_order`` (the search asks the same pairs over and over)
    fits_memo: dict[tuple[int, int, bool], bool] = {}

    def fits(i: int, e: Entry, placed: list[tuple[int, Entry]]) -> bool:
        ko = keep_order[0]
        for j, f in placed:
            key = (id(e), id(f), ko)
            hit = fits_memo.get(key)
            if hit is None:
                hit = fits_memo[key] = compatible(i, e, j, f) and in_order(i, e, j, f)
            if not hit:
                return False
        return True

    # each charger's own candidate ends that fit one placed end, in the order of
    # ``entries`` (with their ids for membership), per state of ``keep_order``: the
    # search intersects these instead of asking ``fits`` of every end at every node
    fit_cache: dict[tuple[int, int, bool], tuple[list[Entry], set[int]]] = {}

    def fit_with(i: int, j: int, f: Entry) -> tuple[list[Entry], set[int]]:
        key = (i, id(f), keep_order[0])
        hit = fit_cache.get(key)
        if hit is None:
            if members[i].facing == members[j].facing and not tgt.round:
                # ``_compatible`` and ``in_order`` of one facing written out, the same
                # float operations in the same order (side by side, not overlapping;
                # in their left-to-right order while that is kept)
                wi2 = ctxs[i].charger.width / 2
                left_of = f.s - ctxs[j].charger.width / 2 + TOL
                right_of = f.s + ctxs[j].charger.width / 2
                dl = lateral[i] - lateral[j]
                ko = keep_order[0]
                lst = [e for e in entries[i]
                       if (e.s + wi2 <= left_of or right_of <= e.s - wi2 + TOL)
                       and (not ko or dl * (e.s - f.s) >= 0)]
            else:
                lst = [e for e in entries[i] if fits(i, e, [(j, f)])]
            hit = fit_cache[key] = (lst, {id(e) for e in lst})
        return hit

    def own_fitting(i: int, placed: list[tuple[int, Entry]]) -> list[Entry]:
        """``[e for e in entries[i] if fits(i, e, placed)]``, from the cached lists."""
        if not placed:
            return list(entries[i])
        lst = fit_with(i, *placed[0])[0]
        for j, f in placed[1:]:
            ids = fit_with(i, j, f)[1]
            lst = [e for e in lst if id(e) in ids]
        return list(lst)

    # what the models-in-contact part of a bound can add from charger i on
    rest_max = [sum(max_cm[i:]) + sum(max_tm[i:]) for i in range(k + 1)]

    # the rounded offsets of each charger's own candidate ends (the search adds those
    # shoulder to shoulder with chargers placed before it, unless already there)
    base_seen = [{round(e.s, 9) for e in es} for es in entries]

    def flush_ends(i: int, placed: list[tuple[int, Entry]]) -> Iterator[Entry]:
        """Charger i's ends shoulder to shoulder with each placed charger facing the same
        way, in the order the search takes them, each offset once and none already among
        its own ends."""
        seen = base_seen[i]
        for j, f in placed:
            if members[j].facing == members[i].facing:
                if seen is base_seen[i]:
                    seen = set(seen)  # about to grow: a copy
                half = (ctxs[i].charger.width + ctxs[j].charger.width) / 2
                for s in (f.s - half, f.s + half):
                    if round(s, 9) not in seen:
                        e2 = entry_at(i, s)
                        if e2 is not None:
                            yield e2
                            seen.add(round(s, 9))
    excluded: set[tuple[tuple[int, float], ...]] = set()
    result: CombinedResult | None = None
    for attempt_no in range(2 * MAX_ASSIGNMENTS):
        if attempt_no == MAX_ASSIGNMENTS:
            keep_order[0] = False
        best: dict[str, object] = {"key": (-1, -1), "assign": None}

        def dfs(i: int, placed: list[tuple[int, Entry]], tm: frozenset[str], cm: int, eng: int,
                best: dict[str, object] = best) -> None:
            if i == k:
                key = (eng, cm + len(tm))
                # fast: reachability is checked after the search (see below); plain:
                # for every would-be improvement (cached)
                if key > best["key"] and (not excluded or tuple(  # type: ignore[operator]
                        (j, round(e.s, 9)) for j, e in placed) not in excluded) and (
                        fast or all(feasible(j, e) for j, e in placed)):
                    best["key"] = key
                    best["assign"] = list(placed)
                return
            bk = best["key"]
            bound = (eng + (k - i), cm + sum(max_cm[i:]) + min(all_tm, len(tm) + sum(max_tm[i:])))
            if bound <= bk:  # type: ignore[operator]
                return
            if not fast:
                _node_plain(i, placed, tm, cm, eng)
                return
            # the ends that fit every placed one (``fits`` is a pure function of the
            # two ends, so filtering first and then sorting, stably, leaves the
            # fitting ends in the order the search took them in before)
            opts = own_fitting(i, placed)
            opts.extend(e2 for e2 in flush_ends(i, placed) if fits(i, e2, placed))
            # most models added first, then nearest the middle (a stable sort)
            ranked = sorted(((-(len(e.charger_models) + len(e.target_models - tm)), abs(e.s), e) for e in opts),
                            key=lambda r: (r[0], r[1]))
            # a child's bound (or, past the last charger, its key) is at most
            # (eng + k - i, cm + len(tm) + gain + what the chargers after it can add),
            # which falls as the gain does: once that cannot beat the best, no later
            # end can either, and each would be cut at once
            cap = cm + len(tm) + rest_max[i + 1]
            for neg_gain, _, e in ranked:
                if (eng + k - i, cap - neg_gain) <= best["key"]:  # type: ignore[operator]
                    break
                if feas.get((i, round(e.s, 9))) is False:
                    continue
                dfs(i + 1, placed + [(i, e)], tm | e.target_models, cm + len(e.charger_models), eng + 1)
            dfs(i + 1, placed, tm, cm, eng)

        def _node_plain(i: int, placed: list[tuple[int, Entry]], tm: frozenset[str], cm: int, eng: int) -> None:
            # the node as the plain search takes it: every end asked ``fits`` in turn
            opts = list(entries[i]) + list(flush_ends(i, placed))
            opts.sort(key=lambda e: (-(len(e.charger_models) + len(e.target_models - tm)), abs(e.s)))
            for e in opts:
                if not fits(i, e, placed):
                    continue
                if feas.get((i, round(e.s, 9))) is False:
                    continue
                dfs(i + 1, placed + [(i, e)], tm | e.target_models, cm + len(e.charger_models), eng + 1)
            dfs(i + 1, placed, tm, cm, eng)

        # The answer is the first assignment in the search's order among those whose
        # ends can all be reached, with the best key among them. The search takes
        # every assignment as reachable and finds the first with the best key; when
        # its ends are all reachable, no reachable one can beat it or come before it
        # with its key, so it is the answer. Otherwise an end of it is unreachable
        # (remembered in ``feas``), every assignment using that end is skipped from
        # then on, and the search is run again (this ends: each run rules out an end).
        while True:
            budget_check()
            best["key"], best["assign"] = (-1, -1), None
            dfs(0, [], frozenset(), 0, 0)
            found = best["assign"]
            if found is None or all(feasible(j, e) for j, e in found):  # type: ignore[attr-defined]
                break
        assign = best["assign"]
        if assign is None:
            break
        assert isinstance(assign, list)
        done = _order(world, members, ctxs, assign, target, found_steps, reuse=fast)
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
    # the search's functions call themselves and each other through their closures (a
    # reference cycle): unbound here, what they hold (ends, blocks, shapes) is freed
    # now rather than by the next garbage collection (a few thousand objects a phase)
    dfs = _node_plain = None  # type: ignore[assignment]
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


def _same_shape(a: Shape, b: Shape) -> bool:
    if a is b:
        return True
    return a.kind == b.kind and a.r == b.r and all(
        (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
        for x, y in ((a.V, b.V), (a.a, b.a), (a.b, b.b)))


def _still_blocked(obstacles: list[Obstacle], blockers: dict[str, list[Obstacle]]) -> bool:
    """Whether a search for a clear approach that found none, every try blocked by
    one of ``blockers`` (id -> its obstacles then), must find none among
    ``obstacles`` as well: true when each of those blockers is there unchanged (same
    shape, role and spacing). The search tries the same approaches in the same order
    whatever stands around (they depend on the charger, the facing and its reach
    table only), and a path that ran into an obstacle still runs into it at the same
    step or earlier into another, so every try is blocked again. The board is the
    same board. (Searches with no blocker at all, e.g. no approach existing, are
    refuted by that alone.)"""
    for who, then in blockers.items():
        if who == "board":
            continue
        now = [o for o in obstacles if o.uid == who]
        if len(now) != len(then):
            return False
        for a, b in zip(now, then, strict=True):
            if (a.cls, a.min_gap, a.strict) != (b.cls, b.min_gap, b.strict) or not _same_shape(a.shape, b.shape):
                return False
    return True


def _order(world: World, members: list[Member], ctxs: list[Context], assign: list[tuple[int, Entry]],
           target: str, known: dict[tuple[int, float], tuple[Approach, list[Step]]] | None = None,
           reuse: bool = True) -> tuple[dict[str, Placement], list[str]] | None:
    """A move order in which every charger's path is clear: earlier chargers stand in
    their new places, later ones where they started. Only which chargers have moved
    matters, so each (moved set, next charger) is tried once. With ``reuse``, a
    charger whose search found no clear approach is not searched again while every
    obstacle that blocked it stands unchanged (``_still_blocked``)."""
    ent = dict(assign)
    idx = [i for i, _ in assign]
    memo: dict[tuple[frozenset[int], int], Placement | None] = {}
    # per charger, the searches that found no clear approach: (the obstacles that
    # blocked them, by id, as they stood then)
    refuted: dict[int, list[dict[str, list[Obstacle]]]] = {}

    def attempt(done: frozenset[int], i: int) -> Placement | None:
        key = (done, i)
        if key not in memo:
            w2 = world.copy()
            for j in done:
                w2.put(ent[j].final)
            m = members[i]
            ctx = make_context(w2, w2.blocks[m.charger], w2.blocks[target], ctxs[i].fr, m.allowed, False)
            ctx._table = ctxs[i].table  # the same charger and facing: the same reach
            found = None
            k0 = (i, round(ent[i].s, 9))
            if known and k0 in known:
                # the way found with the others out of the way, if it is still clear
                ap, steps = known[k0]
                if w2.check_steps(ctx.charger, steps, ctx.obstacles, skip_path=ctx.charger.flying) is None:
                    found = (ap, steps)
            if found is None and not (reuse and any(_still_blocked(ctx.obstacles, r) for r in refuted.get(i, []))):
                found = _best_approach(ctx, ent[i].s, limit=12)
                # every failed try named its blocker (none is nameless): a refutation
                if found is None and sum(ctx.blockers.values()) == sum(
                        n for why, n in ctx.fails.items() if why != "unreachable"):
                    refuted.setdefault(i, []).append(
                        {who: [o for o in ctx.obstacles if o.uid == who] for who in ctx.blockers})
            memo[key] = None if found is None else _placement(ctx, ent[i], found[0], found[1])
        return memo[key]

    # try first the chargers that are already nearest to where they end
    near_first = sorted(idx, key=lambda i: float(np.hypot(*(ctxs[i].charger.F - ent[i].final.F))))

    def search(done: frozenset[int], order: list[int]) -> list[int] | None:
        if len(order) == len(idx):
            return order
        for i in near_first:
            if i in done:
                continue
            if attempt(done, i) is None:
                continue
            r = search(done | {i}, order + [i])
            if r is not None:
                return r
        return None

    order = search(frozenset(), [])
    search = None  # type: ignore[assignment]  # it calls itself through its closure: a cycle (see ``_plan_fixed``)
    if order is None:
        return None
    out: dict[str, Placement] = {}
    done: frozenset[int] = frozenset()
    for i in order:
        pl = attempt(done, i)
        assert pl is not None
        out[members[i].charger] = pl
        done = done | {i}
    return out, [members[i].charger for i in order]
