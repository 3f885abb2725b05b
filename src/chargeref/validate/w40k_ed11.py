"""Independent checker for edition-11 40k charges (rules-notes §1.13).

Edition 11 changes the numbers and some duties of a charge; the rest (the scenario
after the move, facings, where bases may end, path costs over terrain) is checked by
the edition-independent checks of :mod:`chargeref.validate.w40k`. What this module
writes again for edition 11:

* engagement range 2" horizontally and 5" vertically;
* coherency: every model within 2" H / 5" V of at least one other model of its unit,
  whatever the unit size, and every model within 9" of every other model of its unit;
* eligibility: not Advanced or Fallen Back, not AIRCRAFT, out of engagement range at the
  start; every target within 12" (Into the Fray: 6"; Leap to Defend: a unit that
  charged this phase) **and** within the roll (closest gap no more than the roll);
* the roll: Into the Fray counts at most 6;
* paths: enemy models block the move; a FLY model may instead take to the skies: its
  path then passes over models and terrain, vertical distance is ignored, and it may
  only be 2" shorter than the roll;
* the end: each moved model ends closer to a target, within 1" of a target model if it
  could, in engagement range of a target if it could; every target engaged and no other
  enemy unit; no base-contact duty;
* a request answered with ``choices`` moves nothing;
* pivots (``{"kind": "pivot"}`` pieces at the start or end of a move) are read and
  checked by :mod:`chargeref.validate.w40k_pivot` with edition 11's ways of moving
  (``check_pivots_ed11``): friends passed as the table says, no engagement range
  watched while turning, a FLY model's sweep over models or terrain legal only when
  its move is made in the skies; the path is then checked with the base as it stands
  after a start pivot and the pivots' lengths count against the roll.

Numbers come from the data-only editions table (``systems/w40k/editions.py``), which
holds facts and no solver logic, so the checker stays independent of the solver.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..geometry.bases import base_footprint
from ..geometry.placement import locus_circle_crossings
from ..geometry.shapes import TOL, Capsule, ConvexPolygon, Footprint, signed_distance
from ..ruling import Ruling
from ..scenario import Scenario40k
from ..systems.w40k.editions import edition as edition_table
from . import Violation
from . import w40k as base
from .w40k_duty import STRICT_MARGIN, locus_candidates, ray_crossings, reach_roots, shadow_lines
from .w40k_pivot import check_pivots, end_turn, turn_clear, turned_ctx
from .w40k_reach import ReachField, level_field, vertical
from .w40k_reach import board_lines as board_box

BIG = frozenset({"MONSTER", "VEHICLE"})

#: the edition-11 heroic-intervention stratagems (ruling ``details.stratagem``)
LEAP_TO_DEFEND = "leap_to_defend"
INTO_THE_FRAY = "into_the_fray"

ED = edition_table(11)
INTO_THE_FRAY_RANGE = float(ED.into_the_fray_range or 0.0)
INTO_THE_FRAY_CAP = int(ED.into_the_fray_cap or 0)


# --------------------------------------------------------------------------- context


def _ctx(before: Scenario40k, ruling: Ruling) -> tuple[base.Ctx | None, list[Violation]]:
    """The shared context, built as for edition 10 (same terrain threshold) and then
    given back its edition-11 identity."""
    rules10 = before.rules.model_copy(update={"edition": 10, "wtc": before.rules.use_wtc})
    ctx, problems = base._build(before.model_copy(update={"rules": rules10}), ruling)
    if ctx is None:
        return None, problems
    ctx.before = before
    ctx.edition = 11
    ctx.climb_free = ED.climb_free * ctx.inch
    return ctx, problems


def _er(ctx: base.Ctx) -> tuple[float, float]:
    return ED.er * ctx.inch, ED.er_vertical * ctx.inch


def _stratagem(ctx: base.Ctx) -> str | None:
    return ctx.ruling.details.get("stratagem")


def _gap3(a: base.Placed, b: base.Placed) -> float:
    return math.hypot(base._hdist(a, b), a.z - b.z)


def validate(before: Scenario40k, ruling: Ruling) -> list[Violation]:
    """Every edition-11 rule the ruling breaks (empty list: the ruling is legal)."""
    ctx, problems = _ctx(before, ruling)
    if ctx is None:
        return problems
    r = ctx.ruling
    # pivot pieces first: the other checks see each move without them, the path with
    # the base as it stands after a start pivot (w40k_pivot.py; edition 11 below)
    piv, must_fly = check_pivots_ed11(ctx)
    problems.extend(piv)

    def paths(c: base.Ctx) -> list[Violation]:
        return check_paths(c, must_fly)

    checks = [base.check_after, base.check_facing, paths, base.check_end_positions]
    # the whole-path checks (moving through models by edition; engagement range on the
    # path where the edition forbids it, never in 11) of validate/w40k_path.py, when
    # that module is part of the build
    whole = getattr(base, "check_whole_paths", None)
    if whole is not None:
        checks.insert(3, whole)
    if r.procedure == "choices":
        checks = [check_choices]
    elif r.success:
        checks += [check_roll, check_eligibility, check_coherency, check_targets_engaged,
                   check_non_targets, check_engaged_list, check_closer, check_duties]
    else:
        checks += [check_roll, check_failure, check_engaged_list]
    for c in checks:
        problems.extend(c(ctx))
    return problems


# --------------------------------------------------------------------------- pivots


def check_pivots_ed11(ctx: base.Ctx) -> tuple[list[Violation], set[str]]:
    """The pivot checks of ``w40k_pivot`` with edition 11's ways of moving through
    things: on the ground a turning base may sweep over friendly models as the editions
    table allows (not a friendly MONSTER or VEHICLE for one of its own), never over an
    enemy model, nor terrain it could not cross or would have to climb; no non-target's
    engagement range is watched while it moves (only the end counts in 11). A FLY model
    passes over models and terrain only in the skies: a turn that sweeps over any of
    them is legal only if the model takes to the skies for its move (then only
    impassable terrain stops the sweep). Returns the violations and the models whose
    pivots bind them to the skies (``check_paths`` then asks that the move fit there)."""
    kws = list(ctx.charger.keywords)
    if "FLY" not in kws:
        return check_pivots(ctx), set()
    moves0 = dict(ctx.moves)
    charger0 = ctx.charger
    # on the ground a FLY model in edition 11 moves like any other model
    ctx.charger = charger0.model_copy(update={"keywords": [k for k in kws if k != "FLY"]})
    try:
        ground = check_pivots(ctx)
    finally:
        ctx.charger = charger0
    sky_bound = {v.models[0] for v in ground if v.code == "pivot_blocked"}
    if not sky_bound:
        return ground, set()
    # in the skies (FLY kept: over every model) only impassable terrain stops the sweep
    done, feats = ctx.moves, ctx.features
    ctx.moves = {k: v for k, v in moves0.items() if k in sky_bound}
    ctx.features = [f for f in feats if f.kind == "impassable"]
    try:
        sky = check_pivots(ctx)
    finally:
        ctx.moves, ctx.features = done, feats
    out = [v for v in ground if not (v.code == "pivot_blocked" and v.models[0] in sky_bound)]
    out += [v for v in sky if v.code == "pivot_blocked"]
    return out, sky_bound


# --------------------------------------------------------------------------- paths


def _enemy_crossings(ctx: base.Ctx, s: base.Placed, pts: Sequence[Sequence[float]]) -> list[str]:
    out = []
    for mid, e in ctx.start.items():
        if e.player == s.player or mid in ctx.casualties or abs(e.z - s.z) > TOL:
            continue
        for i in range(len(pts) - 1):
            a = (float(pts[i][0]), float(pts[i][1]))
            b = (float(pts[i + 1][0]), float(pts[i + 1][1]))
            if a != b and base._sweep_penetrates(s.fp.moved_to(a), a, b, e.fp):
                out.append(mid)
                break
    return out


def _friend_crossings(ctx: base.Ctx, s: base.Placed, pts: Sequence[Sequence[float]]) -> list[str]:
    """Friendly models of other units at the mover's height that the straight pieces
    pass through although the editions table forbids it (a MONSTER or VEHICLE through
    a MONSTER or VEHICLE); a FLY model is held to it too (the duty search then only
    loses spots)."""
    big = bool(ctx.keywords(s.unit) & BIG)
    out = []
    for mid, f in ctx.start.items():
        if f.player != s.player or f.unit == s.unit or mid in ctx.casualties or abs(f.z - s.z) > TOL:
            continue
        if ED.friends_passable and not (ED.big_blocks_big and big and ctx.keywords(f.unit) & BIG):
            continue
        for i in range(len(pts) - 1):
            a = (float(pts[i][0]), float(pts[i][1]))
            b = (float(pts[i + 1][0]), float(pts[i + 1][1]))
            if a != b and base._sweep_penetrates(s.fp.moved_to(a), a, b, f.fp):
                out.append(mid)
                break
    return out


def check_paths(ctx: base.Ctx, sky_bound: set[str] | frozenset[str] = frozenset()) -> list[Violation]:
    """Each move starts where the model stood and ends where it says; on the ground it
    costs its length plus climbs, enemy models block it, and it fits the roll; a FLY
    model may instead take to the skies: over models and terrain (never into impassable
    ground), vertical distance ignored, its length within the roll less 2". The path is
    travelled by the base as it stands after a start pivot, and the pivots' lengths
    count against the roll either way; a model in ``sky_bound`` (its pivot sweeps over
    what only the skies pass over) must fit in the skies."""
    out: list[Violation] = []
    pen = ED.fly_penalty * ctx.inch
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or mid in ctx.casualties or s.unit != ctx.charger.id:
            continue
        pts = base._move_points(mv)
        if not pts or not base._same_xy(pts[0], s.xy) or not base._same_xy(pts[-1], mv.to):
            out.append(Violation("path_mismatch", f"{mid}'s path does not run from where it stood to where it ends", (mid,)))
            continue
        s = ctx.turned.get(mid, s)  # the base as it travels, turned by a start pivot
        piv = ctx.pivot_length.get(mid, 0.0)
        e = ctx.end.get(mid)
        z_to = float(mv.to[2]) if len(mv.to) >= 3 else (e.z if e is not None else base._ground(mv.to, ctx.hills))
        elevated_to = abs(z_to - base._ground(mv.to, ctx.hills)) > TOL
        pieces_cost = getattr(base, "pieces_cost", None)  # exact lines and arcs, when recorded
        if pieces_cost is not None and getattr(mv, "segments", None) and base.pieces_problems(mv) is None:
            cost = pieces_cost(ctx, s, mv, z_to, elevated_to)
        else:
            cost = base.path_cost(ctx, s, pts, z_to, elevated_to)
        ctx.costs[mid] = cost
        blocked = list(cost.blocked) + [("enemy model", x) for x in _enemy_crossings(ctx, s, pts) if ("enemy model", x) not in cost.blocked]
        ground_ok = not blocked and mid not in sky_bound and (ctx.budget is None or cost.total + piv <= ctx.budget + TOL)
        length = cost.length
        sky_ok = False
        if "FLY" in ctx.keywords(s.unit) and ctx.budget is not None:
            sky_blocked = [b for b in cost.blocked if b[0] == "impassable"]
            sky_ok = not sky_blocked and length + piv <= ctx.budget - pen + TOL
        if mid in sky_bound and not sky_ok:
            out.append(Violation("pivot_blocked", f"{mid}'s pivot sweeps over what only a model in the skies passes over, "
                                 f"but its move ({length:.6f} + pivots {piv:.6f} + 2\") does not fit the roll in the skies",
                                 (mid,), {"length": length, "pivots": piv}))
        if not ground_ok and not sky_ok:
            if blocked and "FLY" not in ctx.keywords(s.unit):
                for kind, what in blocked:
                    out.append(Violation("path_blocked", f"{mid}'s path passes through {kind} {what}", (mid,), {"blocker": what, "kind": kind}))
            else:
                what = f"{cost.total + piv:.6f} on the ground" if not blocked else "a blocked ground path"
                sky = f", {length + piv:.6f} + 2\" in the skies" if "FLY" in ctx.keywords(s.unit) else ""
                out.append(
                    Violation(
                        "over_budget",
                        f"{mid}'s move costs {what}{sky}; the roll allows {ctx.budget}",
                        (mid,),
                        {"cost": cost.total + piv, "length": length + piv, "budget": ctx.budget},
                    )
                )
        claimed = mv.distance
        fits = [cost.total] + ([length, length + pen] if "FLY" in ctx.keywords(s.unit) else [])
        if not any(abs(claimed - f) <= TOL + 1e-6 * abs(f) for f in fits):
            out.append(
                Violation(
                    "distance_mismatch",
                    f"{mid}'s move says {claimed:.6f} but its path costs {cost.total:.6f} (length {length:.6f})",
                    (mid,),
                    {"claimed": claimed, "cost": cost.total},
                )
            )
    return out


# --------------------------------------------------------------------------- roll, eligibility


def check_roll(ctx: base.Ctx) -> list[Violation]:
    """The roll adds up (Into the Fray: at most 6) and agrees with the verdict."""
    r = ctx.ruling
    out: list[Violation] = []
    if r.roll is None:
        if r.success or r.moves:
            out.append(Violation("roll_inconsistent", "the ruling moves models but has no roll"))
        return out
    if r.roll.dice:
        total = sum(r.roll.dice) + r.roll.modifier
        if _stratagem(ctx) == INTO_THE_FRAY:
            total = min(total, INTO_THE_FRAY_CAP)
        if r.roll.total != total:
            out.append(Violation("roll_inconsistent", f"roll total {r.roll.total} is not dice {r.roll.dice} + modifier {r.roll.modifier} (= {total})"))
    elif _stratagem(ctx) == INTO_THE_FRAY and r.roll.total > INTO_THE_FRAY_CAP:
        out.append(Violation("roll_inconsistent", f"Into the Fray counts at most {INTO_THE_FRAY_CAP}, not {r.roll.total}"))
    need = r.needed.roll if r.needed is not None else None
    if r.success and (need is None or r.roll.total < need or not r.eligible):
        out.append(Violation("roll_inconsistent", f"the charge succeeds with {r.roll.total} although the least roll is {need}"))
    elif not r.success and r.eligible and r.targets and need is not None and r.roll.total >= need:
        out.append(Violation("roll_inconsistent", f"the charge fails with {r.roll.total} although the least roll is {need}"))
    return out


def check_eligibility(ctx: base.Ctx) -> list[Violation]:
    """Not Advanced or Fallen Back, not AIRCRAFT, out of engagement range (2") at the
    start; every target an enemy within 12" (Into the Fray 6"; Leap to Defend: one that
    charged this phase) and within the roll."""
    out: list[Violation] = []
    u = ctx.charger
    ids = tuple(base._ids(u))
    for flag in ("advanced", "fell_back"):
        if flag in u.flags:
            out.append(Violation("ineligible", f"{u.id} has {flag}", ids))
    if "AIRCRAFT" in u.keywords:
        out.append(Violation("ineligible", f"{u.id} is AIRCRAFT", ids))
    er_h, er_v = _er(ctx)
    mine = ctx.unit_start(u.id)
    for eid in ctx.enemy_units():
        hit = next(((m, e) for m in mine for e in ctx.unit_start(eid) if base._within(m, e, er_h, er_v)), None)
        if hit is not None:
            out.append(Violation("ineligible", f"{hit[0].id} starts in engagement range of {hit[1].id}", (hit[0].id, hit[1].id)))
    strat = _stratagem(ctx)
    reach = (INTO_THE_FRAY_RANGE if strat == INTO_THE_FRAY else ED.charge_range) * ctx.inch
    roll = ctx.ruling.roll.total * ctx.inch if ctx.ruling.roll is not None else None
    for t in ctx.targets:
        tm = ctx.unit_start(t)
        gap = min((_gap3(m, e) for m in mine for e in tm), default=math.inf)
        if gap > reach + TOL:
            out.append(Violation("ineligible", f'target {t} is {gap:.6f} away, farther than {reach / ctx.inch:g}"', tuple(base._ids(ctx.units[t]))))
        if roll is not None and gap > roll + TOL:
            out.append(Violation("target_beyond_roll", f"target {t} is {gap:.6f} away: the roll {ctx.ruling.roll.total} cannot pick it", tuple(base._ids(ctx.units[t])), {"gap": gap}))
        if strat == LEAP_TO_DEFEND and "charged" not in ctx.units[t].flags:
            out.append(Violation("ineligible", f"Leap to Defend answers units that charged this phase; {t} did not", tuple(base._ids(ctx.units[t]))))
    return out


# --------------------------------------------------------------------------- coherency


def coherency_problems(models: Sequence[base.Placed], inch_: float) -> list[Violation]:
    """Edition 11: each model within 2" H / 5" V of at least one other model of its
    unit, the links joining the unit into one group, and every two models of the unit
    within 9" of each other (closest horizontal gap between the bases)."""
    n = len(models)
    if n <= 1:
        return []
    h, v = ED.coherency * inch_, ED.coherency_vertical * inch_
    spread = ED.max_spread * inch_ if ED.max_spread is not None else math.inf
    out: list[Violation] = []
    adj: list[list[int]] = [[j for j in range(n) if j != i and base._within(models[i], models[j], h, v)] for i in range(n)]
    for i in range(n):
        if not adj[i]:
            out.append(Violation("not_coherent", f"{models[i].id} has no coherency neighbour within 2\"", (models[i].id,)))
    groups = base._components(adj)
    if len(groups) > 1 and all(adj):
        # as in editions 9 and 10 (rules-notes §1.4): the links must join the unit into
        # one group, not leave two coherent halves apart
        out.append(Violation("not_coherent", f"the unit is split into {len(groups)} groups",
                             tuple(models[i].id for g in groups[1:] for i in g)))
    for i in range(n):
        for j in range(i + 1, n):
            d = base._hdist(models[i], models[j])
            if d > spread + TOL:
                out.append(
                    Violation(
                        "not_coherent",
                        f"{models[i].id} and {models[j].id} are {d:.6f} apart; no two models of a unit may be more than 9\" apart",
                        (models[i].id, models[j].id),
                        {"gap": d},
                    )
                )
    return out


def unit_coherency(scen: Scenario40k, unit_id: str) -> list[Violation]:
    """Edition-11 coherency problems of one unit of a scenario as it stands."""
    _, _, hills = base._terrain(scen)
    from ..scenario import inch, mm_per_unit

    mmpu = mm_per_unit(scen)
    u = next(u for u in scen.units if u.id == unit_id)
    placed = [base._place(m, u, m.at, hills, mmpu) for m in u.models]
    return coherency_problems(placed, inch(scen))


def check_coherency(ctx: base.Ctx) -> list[Violation]:
    if not ctx.moves and not ctx.ruling.success:
        return []
    return coherency_problems(ctx.charger_end(), ctx.inch)


# --------------------------------------------------------------------------- engagement


def _pairs_in_er(ctx: base.Ctx, mine: Sequence[base.Placed], unit_id: str) -> list[tuple[str, str]]:
    er_h, er_v = _er(ctx)
    return [(c.id, e.id) for c in mine for e in ctx.unit_end(unit_id) if base._within(c, e, er_h, er_v)]


def check_targets_engaged(ctx: base.Ctx) -> list[Violation]:
    out = []
    mine = ctx.charger_end()
    for t in ctx.targets:
        if not _pairs_in_er(ctx, mine, t):
            gap = min((base._hdist(c, e) for c in mine for e in ctx.unit_end(t)), default=math.inf)
            out.append(Violation("target_not_engaged", f"target {t} is not within 2\" (closest gap {gap:.6f})", tuple(e.id for e in ctx.unit_end(t)), {"gap": gap}))
    return out


def check_non_targets(ctx: base.Ctx) -> list[Violation]:
    out = []
    mine = ctx.charger_end()
    for eid in ctx.enemy_units():
        if eid in ctx.targets:
            continue
        for c, e in _pairs_in_er(ctx, mine, eid):
            out.append(Violation("non_target_engaged", f"{c} ends within 2\" of {e} ({eid}, not a target)", (c, e)))
    return out


def check_engaged_list(ctx: base.Ctx) -> list[Violation]:
    if not ctx.ruling.eligible:
        return []
    mine = ctx.charger_end()
    actual = {eid for eid in ctx.enemy_units() if _pairs_in_er(ctx, mine, eid)}
    if not ctx.ruling.success and not ctx.moves:
        actual = set()
    if actual != set(ctx.ruling.engaged):
        return [Violation("engaged_mismatch", f"`engaged` says {sorted(ctx.ruling.engaged)} but the units within 2\" are {sorted(actual)}")]
    return []


def check_closer(ctx: base.Ctx) -> list[Violation]:
    """Each model that moved ends closer to one of the targets."""
    return base._closer_violations(ctx, [m for m in ctx.moves if base._really_moved(ctx, m)])


def check_failure(ctx: base.Ctx) -> list[Violation]:
    """A failed edition-11 charge moves nobody."""
    if ctx.ruling.moves:
        return [Violation("moved_on_failure", "a failed charge moves no model", tuple(mv.id for mv in ctx.ruling.moves))]
    return []


def check_choices(ctx: base.Ctx) -> list[Violation]:
    """A ruling that lists the choices after the roll moves nothing, names no target,
    and each allowed choice is within 12" and within the roll."""
    r = ctx.ruling
    out: list[Violation] = []
    if r.moves or r.success or r.targets:
        out.append(Violation("moved_on_failure", "a list of choices moves nothing and names no target", tuple(mv.id for mv in r.moves)))
    roll = r.roll.total if r.roll is not None else None
    mine = ctx.unit_start(ctx.charger.id)
    reach = (INTO_THE_FRAY_RANGE if _stratagem(ctx) == INTO_THE_FRAY else ED.charge_range) * ctx.inch
    for ch in r.choices or []:
        for t in ch.targets:
            if t not in ctx.units or ctx.units[t].player == ctx.charger.player:
                out.append(Violation("bad_target", f"choice {ch.targets} names {t}, not an enemy unit"))
                continue
            gap = min((_gap3(m, e) for m in mine for e in ctx.unit_start(t)), default=math.inf)
            if gap > reach + TOL:
                out.append(Violation("ineligible", f"choice {ch.targets}: {t} is {gap:.6f} away, beyond {reach / ctx.inch:g}\""))
            if ch.allowed and (roll is None or gap > roll * ctx.inch + TOL):
                out.append(Violation("target_beyond_roll", f"choice {ch.targets} is allowed but {t} is {gap:.6f} away (roll {roll})"))
        if ch.allowed and (ch.needed.roll is None or roll is None or ch.needed.roll > roll):
            out.append(Violation("roll_inconsistent", f"choice {ch.targets} is allowed with {roll} but needs {ch.needed.roll}"))
    return out


# --------------------------------------------------------------------------- end duties


def _missed_spot(ctx: base.Ctx, c: base.Placed, mine: list[base.Placed], d: float,
                 turn: tuple[base.Placed, float, float] | None = None) -> tuple[np.ndarray, str] | None:
    """A spot within ``d`` of a target model, at that model's height (level with the
    start, or wholly on a ruin floor), that ``c`` could have reached within the roll
    by a straight move or along its real path (``w40k_reach``, the climb counted),
    where it overlaps nothing, stands on the board out of terrain, stays out of
    engagement range of every other enemy unit, and keeps the unit coherent (edition
    11) and engaged with every target. None when there is none.

    The spots tried are constructed on the locus at exactly ``d`` from each target
    model (:mod:`chargeref.validate.w40k_duty`): its point nearest the start; its
    crossings with the straight reach (the roll, and the roll less each climb a
    straight move may pay), with the board edges, with the boundaries of the other
    rules' regions (other bases, terrain, engagement range of non-targets, 2" and 9"
    of the unit's other models, engagement range of targets the others do not hold),
    and with the rays that graze enemy models and terrain (where a straight move
    starts or stops passing through them); on a floor also with the floor's edges,
    and the straight reach less the climb.

    ``turn`` (from ``w40k_pivot.end_turn``): the model travels with its base as it
    started (that model, as placed at its start) and turns at the spot from the first
    facing to the second; ``ctx`` then holds the turned base at the start and the
    budget less the turn. A spot counts only where that turn is clear
    (``w40k_pivot.turn_clear``)."""
    assert ctx.budget is not None
    s = ctx.start[c.id]
    m = s.model
    base0 = base_footprint(m.base.kind, m.base.dims, (0.0, 0.0), m.facing, ctx.mmpu)
    er_h, er_v = _er(ctx)
    coh_h = ED.coherency * ctx.inch
    spread = ED.max_spread * ctx.inch if ED.max_spread is not None else None
    others_mine = [p for p in mine if p.id != c.id]
    others_all = [p for mid, p in ctx.end.items() if mid != c.id and mid not in ctx.casualties]
    non_targets = [p for eid in ctx.enemy_units() if eid not in ctx.targets for p in ctx.unit_end(eid)]
    blocking = [f for f in ctx.features if base._blocks_ending(ctx, f)]
    engaged_by_others = {t: bool(_pairs_in_er(ctx, others_mine, t)) for t in ctx.targets}
    x0, x1, y0, y1 = base._axis_extent(base0)
    W, D = ctx.before.board.width, ctx.before.board.depth
    board_lines = [(0, -x0), (0, W - x1), (1, -y0), (1, D - y1)]
    kw = ctx.keywords(c.unit)
    climbs = sorted({cc for f in ctx.features if (cc := base._crossing_cost(ctx, f, kw))})
    enemies_start = [e for mid, e in ctx.start.items()
                     if e.player != s.player and mid not in ctx.casualties and abs(e.z - s.z) <= TOL]
    rays = shadow_lines(s.fp, [e.fp for e in enemies_start] + [f.fp for f in ctx.features])
    sxy = np.asarray(s.xy, dtype=float)
    fields: dict[float, ReachField | None] = {}

    def field(z: float) -> ReachField | None:
        """The real-path field of the travelling base from its start to height ``z``
        (built once per height, on demand), measuring up to an inch past the roll (so
        the reach search can drop whole stretches out of reach)."""
        if z not in fields:
            assert ctx.budget is not None
            go = s if turn is None else turn[0]
            fields[z] = level_field(ctx, go, ctx.budget + ctx.inch, z)
        return fields[z]

    def spot_ok(q: np.ndarray, t: base.Placed) -> bool | str:
        """True when the spot passes every test; "reach" when it fails only on the
        reach (no straight move and no real path within the roll); False otherwise."""
        assert ctx.budget is not None
        xy = (float(q[0]), float(q[1]))
        fp = base0.translated(xy)
        if not base._on_board(fp, ctx.before):
            return False
        p = base.Placed(c.id, c.unit, c.player, m, xy, t.z, base._ground(xy, ctx.hills), fp)
        if p.elevated and base._floor_ok(ctx, c.unit, fp, p.z) is not None:
            return False  # above the ground only wholly on a floor, and only for some
        if not p.elevated and abs(p.z - s.z) > TOL and not s.elevated:
            return False  # from the ground onto a hill top at another height: not tried
        if signed_distance(fp, t.fp) > d + TOL:
            return False
        if any(abs(o.z - p.z) <= TOL and signed_distance(fp, o.fp) < -TOL for o in others_all):
            return False
        if any(signed_distance(fp, f.fp) < -TOL for f in blocking):
            return False
        if any(base._within(p, o, er_h, er_v) for o in non_targets):
            return False
        if any(not ok and not _pairs_in_er(ctx, [p], tid) for tid, ok in engaged_by_others.items()):
            return False
        if coherency_problems([*others_mine, p], ctx.inch):
            return False
        if turn is not None and not turn_clear(ctx, turn[0], xy, turn[1], turn[2]):
            return False
        go = s if turn is None else turn[0]  # the base that travels
        cost = base.path_cost(ctx, go, [s.xy, xy], p.z, p.elevated)
        if not (cost.blocked or _enemy_crossings(ctx, go, [s.xy, xy]) or _friend_crossings(ctx, go, [s.xy, xy])
                or cost.total > ctx.budget + TOL):
            return True
        # a real path round what is in the way, the climb onto a floor (or down from
        # one) counted as every move counts it
        fld = field(p.z)
        up = vertical(ctx, go, p.z, p.elevated)
        if fld is not None and float(fld.cost(q[None])[0]) + up <= ctx.budget + TOL:
            return True
        return "reach"

    for t in [p for tid in ctx.targets for p in ctx.unit_end(tid)]:
        # spots at the target's height: level, or on a floor (climbing or coming down)
        floors = [f for f in ctx.floors if abs(f.height - t.z) <= TOL]
        if abs(t.z - s.z) > TOL and not floors and not s.elevated:
            continue  # from the ground to a hill top at another height: not tried
        if math.dist(s.xy, t.fp.center) - t.fp.radius - s.fp.radius - d > ctx.budget + TOL:
            continue
        bounds = [(o.fp, 0.0) for o in others_all if abs(o.z - t.z) <= TOL]
        bounds += [(f.fp, 0.0) for f in blocking]
        # where the base stops being wholly on a floor: touching one of its edges
        bounds += [(Footprint((Capsule(a, b, 0.0),), "edge"), 0.0) for f in floors for a, b in f.edges]
        bounds += [(o.fp, er_h + STRICT_MARGIN) for o in non_targets if abs(o.z - t.z) <= er_v + TOL]
        bounds += [(o.fp, coh_h) for o in others_mine]
        if spread is not None:
            bounds += [(o.fp, spread) for o in others_mine]
        for tid, ok in engaged_by_others.items():
            if not ok:
                bounds += [(e.fp, er_h) for e in ctx.unit_end(tid)]
        # the straight reach: the roll less the vertical part (a spot at the target's
        # height on a floor) and less each crossing a straight move may pay
        up = abs(t.z - s.z) if abs(t.z - s.z) > ctx.climb_free + TOL else 0.0
        cands = [locus_candidates(s.fp, t.fp, d, ctx.budget, bounds, board_lines)]
        cands += [locus_circle_crossings(s.fp, t.fp, d, sxy, ctx.budget - cc)
                  for cc in sorted({*climbs, up, *(up + c for c in climbs)})
                  if 0 < cc < ctx.budget]
        cands.append(ray_crossings(s.fp, t.fp, d, rays))
        pts = np.vstack([p.reshape(-1, 2) for p in cands])
        pts = pts[np.hypot(*(pts - sxy).T) <= ctx.budget + TOL]
        short = False
        for q in pts[np.argsort(np.hypot(*(pts - sxy).T), kind="stable")]:
            verdict = spot_ok(q, t)
            if verdict is True:
                return q, t.id
            short = short or verdict == "reach"
        fld = field(t.z) if turn is None else None
        if short and fld is not None:
            # a stretch of the locus obeys every rule but the reach: where it enters
            # the reach along real paths (w40k_duty.reach_roots, proven isolation where
            # the field is the base's exact least path; see docs/validator.md). Spots
            # on a floor pay the vertical change on top (a constant along the locus,
            # cut where the ground under the centre changes: the hills' edges)
            def climbing(Q: np.ndarray, f: ReachField = fld, z: float = t.z) -> np.ndarray:
                Q = np.atleast_2d(Q)
                add = [vertical(ctx, s, z, abs(z - base._ground(q, ctx.hills)) > TOL) for q in Q]
                return f.cost(Q) + np.asarray(add, dtype=float)

            cost = climbing if floors or s.elevated else fld.cost
            up_max = abs(t.z - s.z)
            areas = [(np.asarray(part.V, dtype=float), TOL) for fp_, _ in ctx.hills for part in fp_.parts
                     if isinstance(part, ConvexPolygon)] if floors else []
            roots = reach_roots(s.fp, t.fp, d, cost, ctx.budget, limit=fld.limit + up_max,
                                walls=[(w, False) for w in fld.walls], lines=board_box(fld), areas=areas,
                                field_mover=fld.stand_in)
            for q in roots[np.argsort(np.hypot(*(roots - sxy).T), kind="stable")]:
                if spot_ok(q, t) is True:
                    return q, t.id
    return None


def check_duties(ctx: base.Ctx) -> list[Violation]:
    """Each charging model ends within 1" of a target model if it could, and in
    engagement range (2") of a target if it could (searched over straight moves and
    real paths to spots at the target's height: a found spot is a proven miss; finding
    none proves nothing)."""
    if ctx.budget is None:
        return []
    out: list[Violation] = []
    mine = ctx.charger_end()
    one = 1.0 * ctx.inch
    er_h, er_v = _er(ctx)
    tmodels = [p for t in ctx.targets for p in ctx.unit_end(t)]
    for c in mine:
        if any(base._within(c, t, one, er_v) for t in tmodels):
            continue
        tctx = turned_ctx(ctx, c.id)  # a model the ruling turned: asked with that base too
        ectx = end_turn(ctx, c.id)  # ... turning at its start, or at the end spot
        found = _missed_spot(ctx, c, mine, one)
        if found is None and tctx is not None:
            found = _missed_spot(tctx, c, mine, one)
        if found is None and ectx is not None:
            found = _missed_spot(ectx[0], c, mine, one, ectx[1:])
        if found is not None:
            out.append(Violation("missed_within_one", f"{c.id} could have ended within 1\" of {found[1]} at [{found[0][0]:.4f}, {found[0][1]:.4f}]",
                                 (c.id, found[1]), {"spot": [float(found[0][0]), float(found[0][1])]}))
            continue
        if any(base._within(c, t, er_h, er_v) for t in tmodels):
            continue
        found = _missed_spot(ctx, c, mine, er_h)
        if found is None and tctx is not None:
            found = _missed_spot(tctx, c, mine, er_h)
        if found is None and ectx is not None:
            found = _missed_spot(ectx[0], c, mine, er_h, ectx[1:])
        if found is not None:
            out.append(Violation("missed_engagement", f"{c.id} could have ended in engagement range of {found[1]} at [{found[0][0]:.4f}, {found[0][1]:.4f}]",
                                 (c.id, found[1]), {"spot": [float(found[0][0]), float(found[0][1])]}))
    return out
