"""The edition-11 charge (rules-notes §1.13): declare, roll, then pick the targets.

In edition 11 a unit declares that it charges without naming targets. After the 2D6
roll it picks them: every target must be an enemy unit within 12" of it and within the
rolled distance (the closest gap between the two units is no more than the roll). So:

* a request without targets answers with ``choices``: every set of enemy units the
  charger could name, the least roll that lets it pick that set *and* make the move, and
  whether this request's roll allows it; nothing moves;
* a request with targets makes the charge when the roll lets it pick them (each within
  the roll) and the move can be made.

Overwatch is no longer part of the charge phase, so overwatch casualties passed with an
edition-11 charge are refused. The heroic intervention is a stratagem that makes a 2D6
charge in the opponent's charge phase (``stratagem``): *Leap to Defend* against units
that made a charge move this phase, or *Into the Fray* against any enemy within 6" with
the roll capped at 6. The placement itself (engagement range 2", coherency, FLY taking
to the skies, the end duties) is the solver's, driven by the editions table. Non-round
models may turn at their start or end spot as in the other editions (pivots.py,
end_pivots.py), when that lowers the least roll or move of a target set.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Any

from ... import budget
from ...dice import apply_reroll, roll_dice, success_probability
from ...errors import Problem, RequestError
from ...geometry.shapes import TOL
from ...ruling import Choice, Move, Needed, Reason, Roll, Ruling
from ...scenario import Scenario40k
from ..base import ChargeRequest, require_unit
from .editions import edition
from .end_pivots import EndTurnProblem, best_end_plan
from .pivots import best_plan_built
from .solver import BUDGET_SLACK, EPS, ChargeProblem, sd_many
from .world import World, build_world

if TYPE_CHECKING:
    from .system import W40k

#: the two heroic-intervention stratagems of edition 11
LEAP_TO_DEFEND = "leap_to_defend"
INTO_THE_FRAY = "into_the_fray"
STRATAGEMS = (LEAP_TO_DEFEND, INTO_THE_FRAY)
_ED = edition(11)
#: Into the Fray: targets within this many inches, and the roll counts at most this much
#: (the editions table)
INTO_THE_FRAY_RANGE = float(_ED.into_the_fray_range or 0.0)
INTO_THE_FRAY_CAP = int(_ED.into_the_fray_cap or 0)
#: with more candidate units than this, only single units and pairs are listed as
#: choices (every larger set would cost one placement search each)
ALL_SETS_UP_TO = 3


def stratagem_of(req: ChargeRequest) -> str | None:
    """The heroic-intervention stratagem a request asks for (None: a normal charge)."""
    s = req.extra.get("stratagem")
    if s is None and req.extra.get("heroic_intervention"):
        s = LEAP_TO_DEFEND
    if s is not None and s not in STRATAGEMS:
        raise RequestError(Problem("stratagem", f"unknown stratagem {s!r} (edition 11: {' | '.join(STRATAGEMS)})"))
    return s


def roll_for(n: int | None) -> int | None:
    """The least whole roll that reaches a length n (within the contract tolerance)."""
    return None if n is None else max(1, math.ceil(n - TOL))


# --------------------------------------------------------------------------- eligibility


def unit_reasons(world: World, charger: str, stratagem: str | None) -> list[Reason]:
    """Why this unit may not charge at all this phase (empty: it may)."""
    from .system import in_engagement, unit_distance

    u = require_unit(world.scen, charger, "charger")
    flags, kws = set(u.flags), set(u.keywords)
    ids = [m.id for m in world.unit_models[charger]]
    out: list[Reason] = []
    if not ids:
        return [Reason(code="no_models", message=f"unit {charger} has no models left")]
    if "advanced" in flags:
        out.append(Reason(code="advanced", message=f"{charger} advanced this turn and cannot charge"))
    if "fell_back" in flags:
        out.append(Reason(code="fell_back", message=f"{charger} fell back this turn and cannot charge"))
    if "charged" in flags:
        out.append(Reason(code="already_charged", message=f"{charger} has already charged this phase"))
    if stratagem is not None and "heroic_intervened" in flags:
        out.append(Reason(code="already_intervened", message=f"{charger} has already made a heroic intervention"))
    if u.movement == "-":
        out.append(Reason(code="no_movement", message=f"{charger} has a Movement of '-' and cannot charge"))
    if "AIRCRAFT" in kws:
        out.append(Reason(code="aircraft", message=f"{charger} is an AIRCRAFT and cannot charge"))
    enemies = [e for e in world.enemies_of(charger) if world.unit_models[e]]
    engaged = [e for e in enemies if in_engagement(world, charger, e)]
    if engaged:
        out.append(Reason(code="starts_engaged", message=f"{charger} starts within engagement range of {', '.join(engaged)}", models=ids))
    # a charge: an enemy within 12"; the stratagem: within its own reach (also 12")
    rng = _ED.heroic_range * world.rules.inch if stratagem is not None else world.rules.charge_range
    if not any(unit_distance(world, charger, e) <= rng + TOL for e in enemies):
        out.append(Reason(code="no_enemy_in_range", message=f"no enemy unit is within 12\" of {charger}"))
    return out


def _reach(stratagem: str | None) -> float:
    """How far (inches) a target may be: 12" for a charge and for Leap to Defend, 6" for
    Into the Fray."""
    if stratagem == INTO_THE_FRAY:
        return INTO_THE_FRAY_RANGE
    return _ED.heroic_range if stratagem is not None else _ED.charge_range


def candidates(world: World, charger: str, stratagem: str | None) -> dict[str, float]:
    """Enemy units the charger could name, with the closest gap to each: within 12"
    (Into the Fray: 6"); Leap to Defend only units that charged this phase."""
    from .system import unit_distance

    inch = world.rules.inch
    reach = _reach(stratagem) * inch
    charged = {u.id for u in world.scen.units if "charged" in u.flags}
    out: dict[str, float] = {}
    for e in world.enemies_of(charger):
        if not world.unit_models[e]:
            continue
        if stratagem == LEAP_TO_DEFEND and e not in charged:
            continue
        d = unit_distance(world, charger, e)
        if d <= reach + TOL:
            out[e] = d
    return out


def target_reasons(world: World, charger: str, targets: list[str], cands: dict[str, float], stratagem: str | None) -> list[Reason]:
    """Why these targets can never be named (not enemies, too far, gone, twice)."""
    from .system import unit_distance

    scen = world.scen
    me = require_unit(scen, charger, "charger")
    out: list[Reason] = []
    if len(set(targets)) != len(targets):
        out.append(Reason(code="duplicate_target", message="a target is named twice"))
    for t in targets:
        tu = require_unit(scen, t, "target")
        if tu.player == me.player:
            out.append(Reason(code="target_friendly", message=f"{t} is a friendly unit"))
        elif not world.unit_models[t]:
            out.append(Reason(code="target_destroyed", message=f"{t} has no models left"))
        elif t not in cands:
            if stratagem == LEAP_TO_DEFEND and "charged" not in tu.flags:
                out.append(Reason(code="target_did_not_charge", message=f"Leap to Defend only answers units that charged this phase; {t} did not"))
                continue
            d = unit_distance(world, charger, t)
            lim = _reach(stratagem)
            out.append(
                Reason(
                    code="target_out_of_range",
                    message=f"{t} is {d:.3f} away from {charger}; a target must be within {lim:g}\"",
                    witness={"distance": round(d, 9)},
                )
            )
    return out


# --------------------------------------------------------------------------- needed


def _cap(req: ChargeRequest, stratagem: str | None) -> float:
    cap = 12.0 + max(0, req.modifier)
    if req.roll is not None:
        cap = max(cap, float(req.roll))
    if stratagem == INTO_THE_FRAY:
        cap = min(cap, float(INTO_THE_FRAY_CAP))
    return cap


def problem(world: World, charger: str, targets: list[str], cap: float,
            pivot_cost: dict[str, float] | None = None) -> ChargeProblem:
    # edition 11: each model that moves ends closer to a target (editions table);
    # ``pivot_cost``: the models turned at their start spot pay their turn (pivots.py)
    return ChargeProblem(world, charger, list(targets), cap * world.rules.inch, enforce_closer=world.rules.ed.closer_duty,
                         pivot_cost=pivot_cost)


def least_move(system: W40k, world: World, charger: str, targets: list[str], cap: float) -> tuple[Needed, ChargeProblem, ChargeProblem]:
    """The least move for this target set: (its need, the problem that gives it, the
    problem with every base unturned). Non-round models may turn at their start spot
    (docs/40k.md "Pivots"), or at their end spot: a plan of turns replaces the unturned problem only when its
    least roll is lower, or its distance shorter (``pivots.best_plan_built``)."""
    prob = problem(world, charger, targets, cap)
    need, _ = system.needed_on(prob, None)
    def end(w: World, travel: dict, turn: dict[str, float]) -> ChargeProblem:
        return EndTurnProblem(w, charger, list(targets), cap * world.rules.inch, travel, turn,
                              enforce_closer=world.rules.ed.closer_duty)

    best, need2, _ = best_plan_built(system, world, prob, need,
                                     lambda w, cost: problem(w, charger, targets, cap, cost))
    # then turns at the end spot, when the answer is still not proven
    p3, _, n3, t3 = best_end_plan(system, world, best, None, need2, lambda w, t, d: (end(w, t, d), None))
    if t3:
        best, need2 = p3, n3
    return need2, best, prob


def needed_for(system: W40k, world: World, charger: str, targets: list[str], gaps: dict[str, float], cap: float,
               unturned: list[ChargeProblem] | None = None) -> tuple[Needed, ChargeProblem]:
    """The least move for this target set and the least roll that both picks every
    target (closest gap within the roll) and makes that move. ``unturned`` (a list),
    when given, receives the problem with every base unturned."""
    need, prob, bare = least_move(system, world, charger, targets, cap)
    if unturned is not None:
        unturned.append(bare)
    inch = world.rules.inch
    pick = roll_for(max(gaps[t] for t in targets) / inch)
    # the move's roll is rounded as the search's budget test reads it (solver_base:
    # a cost c fits R * inch when c <= R * inch + BUDGET_SLACK)
    move = None if need.roll is None or need.distance is None else max(1, math.ceil((need.distance - BUDGET_SLACK) / inch))
    if move is None or pick is None or max(move, pick) > cap + EPS:
        return Needed(distance=need.distance if move is not None else None, roll=None, lower_bound=need.lower_bound, exact=need.exact), prob
    roll = max(move, pick)
    # the pick threshold is exact (a closed-form gap); the move's part is as exact as
    # the solver says
    return Needed(distance=need.distance, roll=int(roll), lower_bound=need.lower_bound, exact=need.exact if roll == move else True), prob


def _hgap(world: World, u: str, v: str) -> float:
    """Closest horizontal gap between the bases of two units."""
    return min(float(sd_many(a.fp, a.xy[None], b.fp)[0]) for a in world.unit_models[u] for b in world.unit_models[v])


def _farthest_engageable(world: World, charger: str) -> float:
    """An upper bound on the gap between two enemy units that one charging unit can
    engage together: a model within engagement range of each, those two models no more
    than the unit's greatest spread apart (edition 11: 9"; otherwise the chain of all its
    models), plus both models' widths."""
    r = world.rules
    ms = world.unit_models[charger]
    widest = max(2.0 * m.fp.radius for m in ms)
    spread = r.ed.max_spread * r.inch if r.ed.max_spread is not None else len(ms) * (r.coh + widest)
    return 2.0 * r.er + spread + 2.0 * widest


def target_sets(units: list[str]) -> list[tuple[str, ...]]:
    """Every non-empty set of candidate units when there are few; otherwise single units
    and pairs."""
    top = len(units) if len(units) <= ALL_SETS_UP_TO else 2
    return [c for k in range(1, top + 1) for c in combinations(units, k)]


def choices(system: W40k, world: World, req: ChargeRequest, stratagem: str | None, R: float | None) -> list[Choice]:
    """Every target set the charger could pick, with its least roll; ``allowed`` when the
    roll R (None: no roll yet) picks it and the move succeeds."""
    cands = candidates(world, req.charger, stratagem)
    cap = _cap(req, stratagem)
    out: list[Choice] = []
    inch = world.rules.inch
    apart = _farthest_engageable(world, req.charger)
    for ts in target_sets(sorted(cands, key=lambda e: (cands[e], e))):
        budget.check()
        pick = roll_for(max(cands[t] for t in ts) / inch)
        if len(ts) > 1 and pick is not None and pick > cap + EPS:
            continue  # no roll picks them all; the single units say why
        if any(_hgap(world, a, b) > apart + TOL for a, b in combinations(ts, 2)):
            continue  # too far apart for one unit to engage both (a proven bound)
        need, _ = needed_for(system, world, req.charger, list(ts), cands, cap)
        if len(ts) > 1 and need.roll is None:
            continue  # an impossible set of several units says nothing new
        allowed = R is not None and need.roll is not None and need.roll <= R + EPS
        p = success_probability(need.roll, req.modifier, req.reroll)
        if stratagem == INTO_THE_FRAY and need.roll is not None and need.roll > INTO_THE_FRAY_CAP:
            p = Fraction(0)
        out.append(
            Choice(
                targets=list(ts),
                needed=need,
                allowed=allowed,
                gaps={t: round(cands[t] / inch, 9) for t in ts},
                probability=float(p),
                probability_fraction=f"{p.numerator}/{p.denominator}",
            )
        )
    out.sort(key=lambda c: (c.needed.roll is None, c.needed.roll or 0, len(c.targets), c.targets))
    return out


def needed(system: W40k, scen: Scenario40k, req: ChargeRequest) -> Needed:
    """The least roll for named targets (the odds of edition 11 per target set)."""
    world = build_world(scen)
    stratagem = stratagem_of(req)
    require_unit(scen, req.charger, "charger")
    if not req.targets:
        raise RequestError(Problem("target", "name the targets (or ask for the choices)"))
    cands = candidates(world, req.charger, stratagem)
    if unit_reasons(world, req.charger, stratagem) or target_reasons(world, req.charger, list(req.targets), cands, stratagem):
        return Needed(distance=None, roll=None)
    return needed_for(system, world, req.charger, list(req.targets), cands, _cap(req, stratagem))[0]


# --------------------------------------------------------------------------- the charge


def _roll(req: ChargeRequest, stratagem: str | None, least: int | None) -> Roll:
    if req.roll is not None:
        total = int(req.roll)
        roll = Roll(dice=[], modifier=req.modifier, total=total)
    else:
        dice = list(req.dice) if req.dice else roll_dice(req.rng(), 2)
        if len(dice) != 2:
            raise RequestError(Problem("dice", f"a charge roll is two dice (got {len(dice)})"))
        final, before = apply_reroll(dice, least, req.modifier, req.reroll, req.rng())
        total = sum(final) + req.modifier
        roll = Roll(dice=final, modifier=req.modifier, total=total, rerolled_from=before, seed=req.seed if not req.dice else None)
    if stratagem == INTO_THE_FRAY and roll.total > INTO_THE_FRAY_CAP:
        # Into the Fray: the charge distance counts at most 6
        roll = roll.model_copy(update={"total": INTO_THE_FRAY_CAP})
    return roll


def charge(system: W40k, scen: Scenario40k, req: ChargeRequest) -> Ruling:
    world = build_world(scen)
    require_unit(scen, req.charger, "charger")
    for t in req.targets:
        require_unit(scen, t, "target")
    if req.casualties:
        raise RequestError(
            Problem("casualties", "edition 11 has no overwatch in the charge phase (it is a stratagem of the opponent's Movement phase)")
        )
    stratagem = stratagem_of(req)
    targets = list(req.targets)
    r = world.rules
    details: dict[str, Any] = {"edition": r.edition, "wtc": r.wtc, "targets_after_roll": True}
    if stratagem is not None:
        details["heroic_intervention"] = True
        details["stratagem"] = stratagem
        cp = _ED.heroic_cp or 0
        details["command_points"] = cp + (_ED.into_the_fray_extra_cp or 0) if stratagem == INTO_THE_FRAY else cp
    reasons = unit_reasons(world, req.charger, stratagem)
    cands = candidates(world, req.charger, stratagem)
    reasons += target_reasons(world, req.charger, targets, cands, stratagem)
    if stratagem is not None and not reasons and not cands:
        what = "no enemy unit that charged this phase is within 12\"" if stratagem == LEAP_TO_DEFEND else "no enemy unit is within 6\""
        reasons.append(Reason(code="no_target_for_stratagem", message=f"{what} of {req.charger}"))
    if reasons:
        return system._ruling(world, req, targets, eligible=False, success=False, procedure="ineligible", reasons=reasons, details=details)
    cap = _cap(req, stratagem)
    inch = r.inch

    if not targets:
        # declare, roll, and list what the roll may pick
        pre = choices(system, world, req, stratagem, None)
        least = min((c.needed.roll for c in pre if c.needed.roll is not None), default=None)
        roll = _roll(req, stratagem, least)
        R = float(roll.total)
        chs = [c.model_copy(update={"allowed": c.needed.roll is not None and c.needed.roll <= R + EPS}) for c in pre]
        details["choices_for_roll"] = roll.total
        if not any(c.allowed for c in chs):
            reasons.append(Reason(code="no_choice", message=f"a roll of {roll.total} lets {req.charger} pick no target it can reach"))
        ruling = system._ruling(world, req, [], True, False, "choices", reasons, details, None, roll)
        return ruling.model_copy(update={"choices": chs, "after": None})

    plain: list[ChargeProblem] = []
    need, prob = needed_for(system, world, req.charger, targets, cands, cap, plain)
    roll = _roll(req, stratagem, need.roll)
    R = float(roll.total)
    procedure = "heroic_intervention" if stratagem else "normal"
    beyond = [t for t in targets if cands[t] > R * inch + TOL]
    if beyond:
        for t in beyond:
            reasons.append(
                Reason(
                    code="target_beyond_roll",
                    message=f"{t} is {cands[t] / inch:.3f}\" away: a roll of {roll.total} cannot pick it",
                    witness={"gap": round(cands[t] / inch, 9)},
                )
            )
        return system._ruling(world, req, targets, True, False, "failed", reasons, details, need, roll)
    placement = None
    if need.roll is not None and R + EPS >= need.roll:
        if prob.pivots or getattr(prob, "end_pivots", None):
            # a pivot spends part of the move: where this roll succeeds without one,
            # nobody turns (every model keeps its whole roll for the end duties)
            placement, _ = system.solve_any(plain[0], None, R * inch)
            if placement is not None:
                prob = plain[0]
        if placement is None:
            placement, _ = system.solve_any(prob, None, R * inch)
    if placement is None:
        reasons.append(system.failure_reason(prob, need, roll))
        return system._ruling(world, req, targets, True, False, "failed", reasons, details, need, roll)
    contacts = prob.contacts_of(placement)
    moves: list[Move] = system._moves(world, prob, placement, contacts)
    details["order"] = placement.order
    engaged = [t for t, e in zip(targets, prob.engaged_by(placement), strict=True) if e]
    ruling = system._ruling(world, req, targets, True, True, procedure, reasons, details, need, roll, moves, engaged)
    if stratagem is not None and ruling.after is not None:
        for u in ruling.after["units"]:
            if u["id"] == req.charger:
                u["flags"] = [f for f in u.get("flags", []) if f != "charged"] + ["heroic_intervened"]
    return ruling


# --------------------------------------------------------------------------- odds


def odds(system: W40k, scen: Scenario40k, req: ChargeRequest) -> dict[str, Any]:
    """Edition-11 odds per target set: for each set the charger could pick (or the named
    targets), the least roll and the exact chance that a charge roll (with the
    request's re-roll and modifier; Into the Fray capped at 6) allows it."""
    world = build_world(scen)
    require_unit(scen, req.charger, "charger")
    for t in req.targets:
        require_unit(scen, t, "target")
    stratagem = stratagem_of(req)
    reasons = unit_reasons(world, req.charger, stratagem)
    cands = candidates(world, req.charger, stratagem)
    if req.targets:
        reasons += target_reasons(world, req.charger, list(req.targets), cands, stratagem)
    rows: list[Choice] = []
    if not reasons:
        if req.targets:
            need, _ = needed_for(system, world, req.charger, list(req.targets), cands, _cap(req, stratagem))
            p = success_probability(need.roll, req.modifier, req.reroll)
            if stratagem == INTO_THE_FRAY and need.roll is not None and need.roll > INTO_THE_FRAY_CAP:
                p = Fraction(0)
            rows = [
                Choice(targets=list(req.targets), needed=need, allowed=need.roll is not None,
                       gaps={t: round(cands[t] / world.rules.inch, 9) for t in req.targets},
                       probability=float(p), probability_fraction=f"{p.numerator}/{p.denominator}")
            ]
        else:
            rows = choices(system, world, req, stratagem, None)
    out_rows = []
    for c in rows:
        d = c.model_dump(mode="json", exclude={"allowed"})
        d["needed"].setdefault("distance", None)
        d["needed"].setdefault("roll", None)
        out_rows.append(d)
    return {
        "format": "chargeref-odds/1",
        "edition": 11,
        "charger": req.charger,
        "eligible": not reasons,
        "reasons": [r.model_dump(mode="json", exclude_none=True) for r in reasons],
        "modifier": req.modifier,
        "reroll": req.reroll,
        "stratagem": stratagem,
        "choices": out_rows,
    }
