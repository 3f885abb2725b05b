"""Independent checker for Warhammer 40,000 charge rulings.

``validate(before, ruling)`` re-derives every rule the 40k solver must respect from the
scenario the charge was made on and the ruling it produced, and returns the list of
:class:`~chargeref.validate.Violation` it finds (empty: the ruling is legal).

Independence is the point of this module: from ``chargeref.systems`` it reads only the
editions table (``systems/w40k/editions.py``, data without logic) and calls no solver
code. It uses the exact footprints, distances and shortest paths of
``chargeref.geometry`` and the parsed scenario of ``chargeref.scenario``; every rule is
written again here, one function per rule, so that a bug in the solver is not silently
shared by its checker. ``docs/validator.md`` describes each check and its limits.

The code is split by responsibility: ``w40k_state`` (placed models, terrain, the shared
context, geometry and move-cost helpers), ``w40k_moves`` (the checks of every move:
after, facing, paths and budget, end positions), this module (the entry point and the
unit-level checks), ``w40k_path``
(whole-path rules: non-target engagement range along the path, moving through models),
``w40k_contact`` (the base-contact duty), ``w40k_reach`` (real-path reach for the
duties) and ``w40k_fight`` (pile-in, consolidation).

Stable violation codes: ``unknown_unit``, ``bad_target``, ``after_mismatch``,
``foreign_move``, ``facing_changed``, ``path_mismatch``, ``path_blocked``,
``over_budget``, ``distance_mismatch``, ``off_board``, ``overlap``, ``in_terrain``,
``illegal_floor``, ``roll_inconsistent``, ``ineligible``, ``not_coherent``,
``target_not_engaged``, ``non_target_engaged``, ``not_closer``, ``engaged_mismatch``,
``missed_base_contact``, ``moved_on_failure``, ``engaged_on_failure``,
``hi_ineligible``, ``path_in_er_of_non_target``, ``path_crosses_model``, and for pivots
(``w40k_pivot``) ``bad_pivot``, ``pivot_cost``, ``pivot_blocked``,
``pivot_in_er_of_non_target``.

All lengths are in the scenario's unit; rules thresholds are written in inches and
converted once with :func:`chargeref.scenario.inch`. Every comparison allows the
contract tolerance ``TOL`` (1e-6 of the unit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ..geometry.shapes import (
    TOL,
    Capsule,
    signed_distance,
)
from ..ruling import Ruling
from ..scenario import Scenario40k, inch, mm_per_unit
from . import Violation
from .w40k_path import check_whole_paths, pieces_problems  # noqa: F401
from .w40k_pivot import check_pivots
from .w40k_state import (
    BARRICADE_ER_H,  # noqa: F401
    CHARGE_PROCEDURES,  # noqa: F401
    CLIMB_FREE,  # noqa: F401
    COH_H,  # noqa: F401
    COH_V,  # noqa: F401
    DECLARE_RANGE,  # noqa: F401
    ER_H,  # noqa: F401
    ER_V,  # noqa: F401
    FLOOR_STANDERS,  # noqa: F401
    HEROIC,  # noqa: F401
    HEROIC_DECLARE_RANGE,  # noqa: F401
    HI_MOVE,  # noqa: F401
    HI_REACH_H,  # noqa: F401
    HI_REACH_V,  # noqa: F401
    TOKEN_ER_H,  # noqa: F401
    TWO_NEIGHBOURS_FROM,  # noqa: F401
    WALL_WALKERS,  # noqa: F401
    Ctx,  # noqa: F401
    Feature,  # noqa: F401
    Floor,  # noqa: F401
    MoveCost,  # noqa: F401
    Placed,  # noqa: F401
    _axis_extent,  # noqa: F401
    _blocks_ending,  # noqa: F401
    _build,  # noqa: F401
    _capsule_disc,  # noqa: F401
    _convex_sd,  # noqa: F401
    _crossing_cost,  # noqa: F401
    _floor_ok,  # noqa: F401
    _ground,  # noqa: F401
    _hdist,  # noqa: F401
    _ids,  # noqa: F401
    _in_base_contact,  # noqa: F401
    _on_board,  # noqa: F401
    _penetrates,  # noqa: F401
    _place,  # noqa: F401
    _sweep_penetrates,  # noqa: F401
    _terrain,  # noqa: F401
    _wholly_inside,  # noqa: F401
    _within,  # noqa: F401
    clear_straight_moves,  # noqa: F401
    gap_matrix,
    path_cost,  # noqa: F401
    pieces_cost,  # noqa: F401
    within_matrix,
)

# --------------------------------------------------------------------------- entry point


def validate(before: Scenario40k, ruling: Ruling) -> list[Violation]:
    """Every rule the ruling's charge breaks (empty list: the ruling is legal)."""
    if ruling.procedure in ("pile_in", "consolidate"):
        # fight-phase moves have their own rules (validate/w40k_fight.py)
        from .w40k_fight import validate_fight_move

        return validate_fight_move(before, ruling)
    if before.rules.edition == 11:
        # edition 11 has its own numbers and duties (validate/w40k_ed11.py)
        from .w40k_ed11 import validate as validate_ed11

        return validate_ed11(before, ruling)
    ctx, problems = _build(before, ruling)
    if ctx is None:
        return problems
    # pivot pieces first: the other checks see each move without them (w40k_pivot.py)
    problems.extend(check_pivots(ctx))
    for check in _checks_for(ctx):
        problems.extend(check(ctx))
    return problems


Check = Callable[[Ctx], list[Violation]]


def _checks_for(ctx: Ctx) -> list[Check]:
    """The rules that apply to this kind of ruling, in reporting order."""
    always: list[Check] = [
        check_after,
        check_facing,
        check_paths,
        check_whole_paths,
        check_end_positions,
    ]
    r = ctx.ruling
    if _is_heroic_move(ctx):
        return always + [check_heroic, check_coherency, check_engaged_list]
    if r.success:
        unit_rules: list[Check] = [
            check_roll,
            check_eligibility,
            check_coherency,
            check_targets_engaged,
            check_non_targets,
            check_engaged_list,
        ]
        if ctx.edition == 10 or ctx.use_wtc:
            unit_rules.append(check_closer)
        if ctx.use_wtc:
            unit_rules.append(check_base_contact)
        return always + unit_rules
    return always + [check_roll, check_failure, check_engaged_list]


def _is_heroic_move(ctx: Ctx) -> bool:
    """Edition 9's heroic intervention is a 3" move of its own. In edition 10 the
    heroic intervention is a stratagem that makes an ordinary charge, checked as one
    (its targets within 6" instead of 12")."""
    return ctx.ruling.procedure == HEROIC and ctx.edition == 9


# --------------------------------------------------------------------------- checks
# (after, facing, paths and end positions live in w40k_moves.py; re-exported here)
from .w40k_moves import (  # noqa: E402
    _move_points,  # noqa: F401
    _same_facing,  # noqa: F401
    _same_xy,  # noqa: F401
    check_after,
    check_end_positions,
    check_facing,
    check_paths,
)


def check_roll(ctx: Ctx) -> list[Violation]:
    """The roll adds up, and agrees with the ruling's own least roll and verdict."""
    r = ctx.ruling
    out: list[Violation] = []
    if r.roll is None:
        if r.success or r.moves:
            out.append(Violation("roll_inconsistent", "the ruling moves models but has no roll"))
        return out
    # a fixed total (`--roll`) comes with no dice; otherwise the dice must add up
    if r.roll.dice and r.roll.total != sum(r.roll.dice) + r.roll.modifier:
        out.append(
            Violation(
                "roll_inconsistent",
                f"roll total {r.roll.total} is not dice {r.roll.dice} + modifier {r.roll.modifier}",
            )
        )
    need = r.needed.roll if r.needed is not None else None
    if r.success:
        if not r.eligible:
            out.append(Violation("roll_inconsistent", "an ineligible charge cannot succeed"))
        if need is None or r.roll.total < need:
            out.append(
                Violation(
                    "roll_inconsistent",
                    f"the charge succeeds with {r.roll.total} although the least roll is {need}",
                )
            )
    elif r.eligible and need is not None and r.roll.total >= need and not ctx.casualties:
        out.append(
            Violation(
                "roll_inconsistent",
                f"the charge fails with {r.roll.total} although the least roll is {need}",
            )
        )
    return out


def check_eligibility(ctx: Ctx) -> list[Violation]:
    """A unit that charges may: not advanced or fallen back (WTC: nor doing an action or
    without Movement; edition 10: not AIRCRAFT), not in engagement range at the start,
    and every target within 12" of it."""
    out: list[Violation] = []
    u = ctx.charger
    ids = tuple(_ids(u))
    for flag in ("advanced", "fell_back"):
        if flag in u.flags:
            out.append(Violation("ineligible", f"{u.id} has {flag}", ids))
    if ctx.use_wtc and ("action" in u.flags or u.movement == "-"):
        out.append(Violation("ineligible", f"{u.id} is doing an action or has no Movement", ids))
    if ctx.edition == 10 and "AIRCRAFT" in u.keywords:
        out.append(Violation("ineligible", f"{u.id} is AIRCRAFT", ids))
    mine = ctx.unit_start(u.id)
    reach = (HEROIC_DECLARE_RANGE if ctx.ruling.procedure == HEROIC else DECLARE_RANGE) * ctx.inch
    # perf: _within is asked only of the pairs whose enclosing circles come within
    # reach (the lower bound it starts with, with a margin far above rounding), in the
    # same order, so the first hit is the same model
    by_unit = [ctx.unit_start(eid) for eid in ctx.enemy_units()]
    foes = [e for es in by_unit for e in es]
    near: dict[int, list[Placed]] = {}
    if mine and foes:
        mc = np.array([m.xy for m in mine], dtype=float).reshape(-1, 2)
        mr = np.array([m.fp.radius for m in mine], dtype=float)
        fc = np.array([e.xy for e in foes], dtype=float).reshape(-1, 2)
        fr = np.array([e.fp.radius for e in foes], dtype=float)
        lb = np.hypot(mc[:, None, 0] - fc[None, :, 0], mc[:, None, 1] - fc[None, :, 1]) - mr[:, None] - fr[None, :]
        for j, i in sorted(zip(*np.nonzero((lb <= ER_H * ctx.inch + TOL + 1e-9).T), strict=True)):
            near.setdefault(int(j), []).append(mine[int(i)])
    first = 0
    for es in by_unit:
        first += len(es)
        for j, e in enumerate(es, start=first - len(es)):
            hit = next((m for m in near.get(j, ()) if _within(m, e, ER_H * ctx.inch, ER_V * ctx.inch)), None)
            if hit is not None:
                out.append(
                    Violation(
                        "ineligible",
                        f"{hit.id} starts in engagement range of {e.id}",
                        (hit.id, e.id),
                    )
                )
                break
    for t in ctx.targets:
        tm = ctx.unit_start(t)
        if not any(_hdist(m, e) <= reach + TOL for m in mine for e in tm):
            out.append(
                Violation(
                    "ineligible",
                    f'target {t} is farther than {reach / ctx.inch:g}" at the start',
                    tuple(_ids(ctx.units[t])),
                )
            )
    return out


def coherency_problems(models: Sequence[Placed], edition: int, inch_: float) -> list[Violation]:
    """Coherency of a set of models: one connected group, each model with enough
    neighbours within 2" horizontally and 5" vertically."""
    if edition == 11:  # one neighbour and a 9" spread (validate/w40k_ed11.py)
        from .w40k_ed11 import coherency_problems as coherency_ed11

        return coherency_ed11(models, inch_)
    n = len(models)
    if n <= 1:
        return []
    need = 2 if n >= TWO_NEIGHBOURS_FROM[edition] else 1
    h, v = COH_H * inch_, COH_V * inch_
    near = within_matrix(models, models, h, v)
    np.fill_diagonal(near, False)
    adj: list[list[int]] = [list(np.flatnonzero(near[i])) for i in range(n)]
    out: list[Violation] = []
    groups = _components(adj)
    if len(groups) > 1:
        names = [[models[i].id for i in g] for g in groups]
        out.append(
            Violation(
                "not_coherent",
                f"the unit is split into {len(groups)} groups: {names}",
                tuple(models[i].id for i in range(n)),
                {"groups": names},
            )
        )
    for i in range(n):
        if len(adj[i]) < need:
            out.append(
                Violation(
                    "not_coherent",
                    f"{models[i].id} has {len(adj[i])} coherency neighbour(s), needs {need}",
                    (models[i].id,),
                )
            )
    return out


def unit_coherency(scen: Scenario40k, unit_id: str) -> list[Violation]:
    """Coherency problems of one unit of a scenario as it stands (empty: coherent)."""
    _, _, hills = _terrain(scen)
    mmpu = mm_per_unit(scen)
    u = next(u for u in scen.units if u.id == unit_id)
    placed = [_place(m, u, m.at, hills, mmpu) for m in u.models]
    return coherency_problems(placed, scen.rules.edition, inch(scen))


def _components(adj: list[list[int]]) -> list[list[int]]:
    seen = [False] * len(adj)
    groups: list[list[int]] = []
    for s in range(len(adj)):
        if seen[s]:
            continue
        seen[s] = True
        stack, g = [s], []
        while stack:
            i = stack.pop()
            g.append(i)
            for j in adj[i]:
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
        groups.append(sorted(g))
    return groups


def check_coherency(ctx: Ctx) -> list[Violation]:
    """The moving unit ends in coherency (only when some model moved, or the charge
    succeeded: an unmoved unit is not the ruling's doing)."""
    if not ctx.moves and not ctx.ruling.success:
        return []
    return coherency_problems(ctx.charger_end(), ctx.edition, ctx.inch)


def _engage_reach(ctx: Ctx, charger_model: str, target_unit: str | None) -> float:
    """Horizontal engagement reach from a charger model to an enemy unit's models: 1",
    or 2" for a WTC walls token model toward a unit it charged (whether a ruin wall
    really stands between them is checked by ``_token_link``)."""
    mv = ctx.moves.get(charger_model)
    if mv is not None and mv.token and target_unit in ctx.targets:
        return TOKEN_ER_H * ctx.inch
    return ER_H * ctx.inch


def _token_link(ctx: Ctx, c: Placed, e: Placed) -> bool:
    """A token model reaches a model of a unit it charged at 2" only across a ruin wall
    (seed 000): the independent 2"-through-a-wall test of ``w40k_fight``, asked of the
    end state (``after``) pair by pair. (Callers have already found the pair out of
    normal engagement range.)"""
    if ctx.after is None:
        return False
    st = ctx.__dict__.get("_token_state")
    if st is None:
        from .w40k_fight import State

        st = ctx.__dict__["_token_state"] = State(ctx, True)
    return bool(st.token_link(c, e))


def _units_in_er(ctx: Ctx, chargers: Iterable[Placed], unit_id: str) -> list[tuple[str, str]]:
    """Pairs (charger model, enemy model) within engagement range (for a target unit,
    across a barricade too)."""
    chargers = list(chargers)
    # perf: several checks ask this of the same models and unit; the answer depends
    # only on those placed models and the validation's fixed state, so it is kept per
    # validation (the key holds the very objects asked about; the entry keeps them alive)
    cache = ctx.__dict__.setdefault("_units_in_er", {})
    key = (tuple(id(c) for c in chargers), unit_id)
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = (chargers, _units_in_er_now(ctx, chargers, unit_id))
    return list(hit[1])


def _units_in_er_now(ctx: Ctx, chargers: list[Placed], unit_id: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    em = ctx.unit_end(unit_id)
    er = within_matrix(chargers, em, ER_H * ctx.inch, ER_V * ctx.inch)
    # the barricade link needs a barricade; the 2" token link a token move
    barricades = unit_id in ctx.targets and any(f.kind == "barricade" for f in ctx.features)
    for i, c in enumerate(chargers):
        reach = _engage_reach(ctx, c.id, unit_id)
        if reach <= ER_H * ctx.inch and not barricades:
            pairs.extend((c.id, em[j].id) for j in np.flatnonzero(er[i]))
            continue
        for j, e in enumerate(em):
            if er[i, j] or (
                reach > ER_H * ctx.inch and _within(c, e, reach, ER_V * ctx.inch) and _token_link(ctx, c, e)
            ) or (unit_id in ctx.targets and _across_barricade(ctx, c, e)):
                pairs.append((c.id, e.id))
    return pairs


def _across_barricade(ctx: Ctx, c: Placed, e: Placed) -> bool:
    """A charging model engages a target model across a barricade (edition 9 Defence
    Line, edition 10 Barricades and Fuel Pipes, as the contract's barricade reads): the
    target model is within 1" of the barricade, the charging model touches it (our
    reading of "as close as possible"), the two are within 2" horizontally and 5"
    vertically, and the line between their centres passes through the barricade."""
    if abs(c.z - e.z) > ER_V * ctx.inch + TOL:
        return False
    if math.dist(c.xy, e.xy) - c.fp.radius - e.fp.radius > BARRICADE_ER_H * ctx.inch + TOL:
        return False
    for f in ctx.features:
        if f.kind != "barricade":
            continue
        if signed_distance(c.fp, f.fp) > TOL:
            continue
        if signed_distance(e.fp, f.fp) > ER_H * ctx.inch + TOL:
            continue
        if signed_distance(c.fp, e.fp) > BARRICADE_ER_H * ctx.inch + TOL:
            continue
        line = Capsule(c.xy, e.xy, 0.0)
        if any(_convex_sd(line, part) <= TOL for part in f.fp.parts):
            return True
    return False


def check_targets_engaged(ctx: Ctx) -> list[Violation]:
    """Every declared target ends within engagement range of the charging unit."""
    out: list[Violation] = []
    mine = ctx.charger_end()
    for t in ctx.targets:
        if not _units_in_er(ctx, mine, t):
            em = ctx.unit_end(t)
            gap = min((_hdist(c, e) for c in mine for e in em), default=math.inf)
            out.append(
                Violation(
                    "target_not_engaged",
                    f"target {t} is not in engagement range (closest gap {gap:.6f})",
                    tuple(e.id for e in em),
                    {"gap": gap},
                )
            )
    return out


def check_non_targets(ctx: Ctx) -> list[Violation]:
    """No enemy unit that was not a target ends within engagement range."""
    out: list[Violation] = []
    mine = ctx.charger_end()
    for eid in ctx.enemy_units():
        if eid in ctx.targets:
            continue
        for c, e in _units_in_er(ctx, mine, eid):
            out.append(
                Violation(
                    "non_target_engaged",
                    f"{c} is in engagement range of {e} ({eid}, not a target)",
                    (c, e),
                )
            )
    return out


def check_engaged_list(ctx: Ctx) -> list[Violation]:
    """`engaged` lists exactly the enemy units in engagement range after a charge
    (none after a failed one)."""
    if not ctx.ruling.eligible:
        return []
    mine = ctx.charger_end()
    actual = {eid for eid in ctx.enemy_units() if _units_in_er(ctx, mine, eid)}
    if not ctx.ruling.success and not ctx.moves:
        actual = set()
    claimed = set(ctx.ruling.engaged)
    if actual != claimed:
        return [
            Violation(
                "engaged_mismatch",
                f"`engaged` says {sorted(claimed)} but the units in engagement range are {sorted(actual)}",
            )
        ]
    return []


def _unit_gap(p: Placed, models: Sequence[Placed]) -> float:
    return min((_hdist(p, q) for q in models), default=math.inf)


def check_closer(ctx: Ctx) -> list[Violation]:
    """Edition 10 / WTC: every charging model ends strictly closer to one of the targets
    than it started (footprint distance to the target unit's nearest model)."""
    return _closer_violations(ctx, ctx.charger_ids())


def _closer_violations(ctx: Ctx, model_ids: Iterable[str]) -> list[Violation]:
    out: list[Violation] = []
    ids = [mid for mid in model_ids if ctx.start.get(mid) is not None and ctx.end.get(mid) is not None]
    # footprint distance of every model to each target unit's nearest model, at the
    # start and at the end (all pairs at once; exact, as no cutoff is given)
    d0s, d1s = [], []
    for t in ctx.targets:
        ts, te = ctx.unit_start(t), ctx.unit_end(t)
        g0 = gap_matrix([ctx.start[m] for m in ids], ts, math.inf)
        g1 = gap_matrix([ctx.end[m] for m in ids], te, math.inf)
        d0s.append(np.maximum(g0, 0.0).min(axis=1) if ts else np.full(len(ids), math.inf))
        d1s.append(np.maximum(g1, 0.0).min(axis=1) if te else np.full(len(ids), math.inf))
    for i, mid in enumerate(ids):
        gains = []
        for k in range(len(ctx.targets)):
            d0, d1 = float(d0s[k][i]), float(d1s[k][i])
            gains.append(d0 - d1)
            if d1 < d0 - TOL:
                break
        else:
            out.append(
                Violation(
                    "not_closer",
                    f"{mid} does not end closer to any target (gains {[round(g, 6) for g in gains]})",
                    (mid,),
                )
            )
    return out


def _really_moved(ctx: Ctx, mid: str) -> bool:
    """A listed move that leaves the model where it was is no move (for the rules that
    bind only the models that move)."""
    s, e = ctx.start.get(mid), ctx.end.get(mid)
    if s is None or e is None:
        return False
    return not _same_xy(s.xy, e.xy) or abs(s.z - e.z) > TOL


def check_failure(ctx: Ctx) -> list[Violation]:
    """A failed charge moves nobody (edition 10, WTC, or edition 9 without the failed-
    charge move); in edition 9 with it, moved models end closer to a target, in
    coherency and out of engagement range of every enemy."""
    r = ctx.ruling
    may_move = (
        r.eligible and ctx.edition == 9 and not ctx.use_wtc and ctx.before.rules.failed_charge_moves
    )
    if not may_move:
        if r.moves:
            return [
                Violation(
                    "moved_on_failure",
                    "a failed charge moves no model",
                    tuple(mv.id for mv in r.moves),
                )
            ]
        return []
    out = _closer_violations(ctx, [m for m in ctx.moves if _really_moved(ctx, m)])
    if ctx.moves:
        out += coherency_problems(ctx.charger_end(), ctx.edition, ctx.inch)
    mine = ctx.charger_end()
    for eid in ctx.enemy_units():
        em = ctx.unit_end(eid)
        for c in mine:
            for e in em:
                if _within(c, e, ER_H * ctx.inch, ER_V * ctx.inch):
                    out.append(
                        Violation(
                            "engaged_on_failure",
                            f"{c.id} ends a failed charge in engagement range of {e.id}",
                            (c.id, e.id),
                        )
                    )
    return out


def check_heroic(ctx: Ctx) -> list[Violation]:
    """Edition 9 heroic intervention: an eligible CHARACTER unit (not in engagement
    range, within 3" horizontally and 5" vertically of an enemy) moves each model up to
    3", ending closer to the enemy model that was closest to it."""
    out: list[Violation] = []
    u = ctx.charger
    ids = tuple(_ids(u))
    if ctx.edition != 9:
        out.append(Violation("hi_ineligible", "heroic interventions are moves of edition 9", ids))
    if "CHARACTER" not in u.keywords:
        out.append(Violation("hi_ineligible", f"{u.id} is not a CHARACTER unit", ids))
    mine = ctx.unit_start(u.id)
    enemies = [e for eid in ctx.enemy_units() for e in ctx.unit_start(eid)]
    if any(_within(m, e, ER_H * ctx.inch, ER_V * ctx.inch) for m in mine for e in enemies):
        out.append(
            Violation("hi_ineligible", f"{u.id} starts in engagement range of an enemy", ids)
        )
    if not any(
        _within(m, e, HI_REACH_H * ctx.inch, HI_REACH_V * ctx.inch) for m in mine for e in enemies
    ):
        out.append(Violation("hi_ineligible", f'{u.id} is not within 3" of an enemy unit', ids))
    for mid in ctx.moves:
        s, e = ctx.start.get(mid), ctx.end.get(mid)
        if s is None or e is None or not enemies or not _really_moved(ctx, mid):
            continue
        d0 = [_hdist(s, q) for q in enemies]
        best = min(d0)
        nearest = [q for q, d in zip(enemies, d0, strict=True) if d <= best + TOL]
        ok = any(_hdist(e, ctx.end.get(q.id, q)) < best - TOL for q in nearest)
        if not ok:
            out.append(
                Violation(
                    "not_closer",
                    f"{mid} does not end closer to {nearest[0].id}, the enemy model closest to it",
                    (mid, nearest[0].id),
                )
            )
    return out



# the base-contact duty lives in its own module; it uses the checks above
from .w40k_contact import (  # noqa: E402
    _duty_path_cost,  # noqa: F401
    _find_contact_spot,  # noqa: F401
    _keeps_unit,  # noqa: F401
    _sd_many,  # noqa: F401
    _spot_ok,  # noqa: F401
    check_base_contact,  # noqa: F401
)

__all__ = [
    "Ctx",
    "Feature",
    "MoveCost",
    "Placed",
    "check_after",
    "check_base_contact",
    "check_closer",
    "check_coherency",
    "check_end_positions",
    "check_engaged_list",
    "check_eligibility",
    "check_facing",
    "check_failure",
    "check_heroic",
    "check_non_targets",
    "check_paths",
    "check_roll",
    "check_targets_engaged",
    "coherency_problems",
    "unit_coherency",
    "path_cost",
    "validate",
]
