"""The 40k rule system: eligibility, the roll, ``needed``, the charge move, failed
charges, overwatch casualties, heroic interventions and the whole charge phase.

Editions 9 (seed 002) and 10 with the WTC precise procedure (seed 000) are options of
one system (``rules.edition``, ``rules.wtc``), not separate systems.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from ...dice import apply_reroll, roll_dice
from ...errors import Problem, RequestError
from ...geometry.shapes import TOL
from ...ruling import Move, Needed, Reason, Roll, Ruling
from ...scenario import Scenario40k, scenario_from_data, scenario_to_data
from ..base import ChargeRequest, PhaseResult, require_unit
from .checks import scenario_problems

# start-spot pivots (pivots.py), then end-spot ones (end_pivots.py)
from .end_pivots import best_plan, replan
from .solver import BUDGET_SLACK, EPS, TRIM_MARGIN, ChargeProblem, Placement, coherent, least_roll
from .ties import distinct
from .world import Model, World, build_world, reported
from .world import unit_distance as _unit_distance_pairs

NAME = "40k"


_r6 = reported  # lengths and coordinates rounded to 1e-9 of the unit (world.reported)


class W40k:
    name = NAME

    # ---------------------------------------------------------------- checks
    def problems(self, scen: Scenario40k) -> list[Problem]:
        return scenario_problems(scen)

    # ---------------------------------------------------------------- eligibility
    def eligibility(self, world: World, charger: str, targets: list[str], heroic: bool = False) -> list[Reason]:
        """Every reason this unit may not declare this charge (empty: it may)."""
        scen = world.scen
        u = require_unit(scen, charger, "charger")
        reasons: list[Reason] = []
        kws = set(u.keywords)
        flags = set(u.flags)
        ids = [m.id for m in world.unit_models[charger]]
        if not ids:
            reasons.append(Reason(code="no_models", message=f"unit {charger} has no models left"))
            return reasons
        if "advanced" in flags:
            reasons.append(Reason(code="advanced", message=f"{charger} advanced this turn and cannot charge"))
        if "fell_back" in flags:
            reasons.append(Reason(code="fell_back", message=f"{charger} fell back this turn and cannot charge"))
        if "action" in flags:
            reasons.append(Reason(code="action", message=f"{charger} is performing an action and cannot charge"))
        if "charged" in flags:
            reasons.append(Reason(code="already_charged", message=f"{charger} has already charged this phase"))
        if u.movement == "-":
            reasons.append(Reason(code="no_movement", message=f"{charger} has a Movement of '-' and cannot charge"))
        if "AIRCRAFT" in kws:
            reasons.append(Reason(code="aircraft", message=f"{charger} is an AIRCRAFT and cannot charge"))
        enemies = world.enemies_of(charger)
        engaged_now = [e for e in enemies if world.unit_models[e] and in_engagement(world, charger, e)]
        if engaged_now:
            reasons.append(
                Reason(
                    code="starts_engaged",
                    message=f"{charger} starts within engagement range of {', '.join(engaged_now)}",
                    models=ids,
                )
            )
        rng = world.rules.charge_range
        if not heroic and not any(world.unit_models[e] and unit_distance(world, charger, e) <= rng + TOL for e in enemies):
            reasons.append(Reason(code="no_enemy_in_range", message=f"no enemy unit is within 12\" of {charger}"))
        for t in targets:
            tu = require_unit(scen, t, "target")
            if tu.player == u.player:
                reasons.append(Reason(code="target_friendly", message=f"{t} is a friendly unit"))
                continue
            if not world.unit_models[t]:
                reasons.append(Reason(code="target_destroyed", message=f"{t} has no models left"))
                continue
            d = unit_distance(world, charger, t)
            limit = 6.0 * world.rules.inch if heroic else rng
            if d > limit + TOL:
                reasons.append(
                    Reason(
                        code="target_out_of_range",
                        message=f"{t} is {d:.3f} away from {charger}; a target must be within {limit / world.rules.inch:g}\"",
                        witness={"distance": _r6(d)},
                    )
                )
        if len(set(targets)) != len(targets):
            reasons.append(Reason(code="duplicate_target", message="a target is declared twice"))
        return reasons

    # ---------------------------------------------------------------- needed
    def _problem(self, world: World, req: ChargeRequest, cap: float | None = None) -> ChargeProblem:
        cap = self._cap(req) if cap is None else cap
        return ChargeProblem(world, req.charger, list(req.targets), cap)

    @staticmethod
    def _cap(req: ChargeRequest) -> float:
        """The largest roll total that can be made: 12 on 2D6 plus a positive modifier
        (or the fixed roll, when given)."""
        cap = 12.0 + max(0, req.modifier)
        if req.roll is not None:
            cap = max(cap, float(req.roll))
        return cap

    def open_field(self, world: World, req: ChargeRequest, cap: float, pivot_cost: dict[str, float] | None = None) -> ChargeProblem | None:
        """The same charge with every ruin wall taken away: the WTC walls rule only
        applies to rolls that would succeed if the wall were not there (seed 000)."""
        if not (world.rules.wtc and (world.unit_keywords[req.charger] & {"INFANTRY", "BEAST"})):
            return None
        if not any(f.type == "ruin_wall" for f in world.features):
            return None
        bare = replace(world, features=[f for f in world.features if f.type != "ruin_wall"])
        return ChargeProblem(bare, req.charger, list(req.targets), cap, pivot_cost=pivot_cost)

    def solve_any(self, prob: ChargeProblem, bare: ChargeProblem | None, R: float, improve: bool = True,
                  last: bool = False) -> tuple[Placement | None, str]:
        """A normal placement if there is one; otherwise, when the walls rule applies,
        one with wall tokens. Returns (placement, procedure).

        ``last``: ``bare`` is not searched again after this call, so whether the charge
        succeeds without the walls may be answered from what it found before
        (``ChargeProblem.succeeds``: the same answer, without its side effects)."""
        if bare is not None and prob.across and (bare.succeeds(R) if last else bare.solve(R, improve=False) is not None):
            # the walls rule is in effect: every model that can reach a normal legal
            # spot takes one; the others may end against the wall with a token
            pl = prob.solve(R, improve=improve, tokens=True)
            if pl is not None:
                return pl, ("wtc_walls" if any(v == "token" for v in pl.via.values()) else "normal")
        pl = prob.solve(R, improve=improve)
        if pl is not None:
            return pl, "normal"
        return None, "failed"

    def needed_on(self, prob: ChargeProblem, bare: ChargeProblem | None = None) -> tuple[Needed, Placement | None]:
        """The least distance and roll for the problem, and a placement at that distance.

        Feasibility grows with the roll, so the least whole roll is found by bisection
        starting from the proven lower bound, and the least distance by bisection over
        the candidate move lengths between the previous roll and that one."""
        lb = prob.lower_bound()
        cap = prob.cap
        tokens = bare is not None and bool(prob.across)

        def feasible(R: float) -> Placement | None:
            return self.solve_any(prob, bare, R, improve=False)[0]

        def dist_of(p: Placement, R: float) -> float:
            # a walls-rule placement can be shorter than the open-field move the rule
            # still requires: its distance is the roll level that was tested
            return R if any(v == "token" for v in p.via.values()) else p.max_cost

        if lb > cap + BUDGET_SLACK or not prob.reachable_targets(cap, tokens).all():
            return Needed(distance=None, roll=None, lower_bound=_r6(lb), exact=True), None
        lo_roll = max(1, math.ceil(lb - TOL))
        at_roll = feasible(float(lo_roll))
        roll = lo_roll
        if at_roll is None:
            top = feasible(cap)
            if top is None:
                return Needed(distance=None, roll=None, lower_bound=_r6(lb), exact=None), None
            lo, hi, hi_pl = lo_roll, max(lo_roll + 1, least_roll(top.max_cost)), top
            while lo + 1 < hi:
                mid = (lo + hi) // 2
                p = feasible(float(mid))
                if p is not None:
                    hi, hi_pl = mid, p
                else:
                    lo = mid
            roll, at_roll = hi, hi_pl
        best = at_roll
        # the least distance: candidate move lengths in (roll - 1, roll]
        pools = [prob] + ([bare] if bare is not None else [])
        for q in pools:
            q.pay_upto(max(best.max_cost, roll) + BUDGET_SLACK)  # (the window's costs as planned: costs.py, owed)
        allc = np.concatenate([q.costs[m.id][q.banks[q.keys[m.id]].ok] for q in pools for m in q.models])
        # (costs equal but for rounding are one candidate: the bisection's steps, and so
        # its answer, must not depend on how the board is turned; ties.py)
        costs = distinct(allc[(allc <= max(best.max_cost, roll) + BUDGET_SLACK) & (allc > max(roll - 1, lb) - EPS)])
        if len(costs):
            i0 = 0
            while i0 < len(costs) - 1 and not prob.reachable_targets(float(costs[i0]), tokens).all():
                i0 += 1
            first = feasible(float(costs[i0]))
            if first is not None:
                best = first
                dist = dist_of(first, float(costs[i0]))
            else:
                lo, hi = i0, len(costs) - 1
                dist = dist_of(best, float(roll))
                for _ in range(10):
                    if lo + 1 >= hi:
                        break
                    mid = (lo + hi) // 2
                    p = feasible(float(costs[mid]))
                    if p is not None:
                        hi, best, dist = mid, p, dist_of(p, float(costs[mid]))
                    else:
                        lo = mid
        else:
            dist = dist_of(best, float(roll))
        # a later search can find a cheaper placement than the bisection saw (its spots
        # grow as it works); the placement is remembered, so the roll can come down
        # (least_roll: the budget test's own rounding, so the roll found succeeds)
        roll = max(lo_roll, min(roll, least_roll(dist)))
        if not any(v == "token" for v in best.via.values()) and dist > roll + TOL - TRIM_MARGIN:
            # at the edge (a move within TOL over the roll) the reported placement is
            # the one a roll of `roll` gets: each move stepped back within roll + TOL
            best = prob.fit(best, float(roll))
            dist = best.max_cost
        # the bound is to the exact gap, with no hair: a roll below ceil(lb - TOL) is
        # short of it by more than the tolerance
        exact = math.ceil(lb - TOL) == roll
        return Needed(distance=_r6(dist), roll=int(roll), lower_bound=_r6(lb), exact=exact), best

    def needed(self, scen: Scenario40k, req: ChargeRequest) -> Needed:
        if scen.rules.edition == 11:  # targets picked after the roll (ed11.py)
            from . import ed11

            return ed11.needed(self, scen, req)
        world = build_world(scen)
        self._require(world, req)
        if self.eligibility(world, req.charger, list(req.targets)):
            return Needed(distance=None, roll=None)
        prob = self._problem(world, req)
        bare = self.open_field(world, req, self._cap(req))
        need = self.needed_on(prob, bare)[0]
        # non-round models may turn before they move, when that can help (pivots.py)
        return best_plan(self, world, req, prob, bare, need)[2]

    def _require(self, world: World, req: ChargeRequest) -> None:
        require_unit(world.scen, req.charger, "charger")
        if not req.targets:
            raise RequestError(Problem("target", "declare at least one target"))
        for t in req.targets:
            require_unit(world.scen, t, "target")
        ids = {m.id for m in world.unit_models[req.charger]}
        for c in req.casualties:
            if c not in ids:
                raise RequestError(Problem("casualties", f"{c!r} is not a model of {req.charger}"))

    # ---------------------------------------------------------------- charge
    def charge(self, scen: Scenario40k, req: ChargeRequest) -> Ruling:
        if scen.rules.edition == 11:  # declare, roll, then pick targets (ed11.py)
            from . import ed11

            return ed11.charge(self, scen, req)
        world = build_world(scen)
        self._require(world, req)
        heroic = bool(req.extra.get("heroic_intervention"))
        r = world.rules
        targets = list(req.targets)
        details: dict[str, Any] = {"edition": r.edition, "wtc": r.wtc}
        reasons = self.eligibility(world, req.charger, targets, heroic=heroic)
        if heroic:
            details["heroic_intervention"] = True
        if reasons:
            return self._ruling(world, req, targets, eligible=False, success=False, procedure="ineligible", reasons=reasons, details=details)
        rng = req.rng()
        seed = req.seed
        casualties = frozenset(req.casualties)
        # edition 9 (seed 002): overwatch is fired when the charge is declared, so its
        # casualties are gone before the roll is made.
        if casualties and not (r.edition == 10 or r.wtc):
            world = build_world(scen, removed=casualties)
            details["casualties"] = sorted(casualties)
        prob = self._problem(world, req)
        bare = self.open_field(world, req, prob.cap)
        need, _ = self.needed_on(prob, bare)
        # non-round models may turn before they move, when that can help (pivots.py)
        unturned = (prob, bare)
        prob, bare, need, turns = best_plan(self, world, req, prob, bare, need)
        if need.exact is False:
            reasons.append(not_proven(need))
        # the roll
        if req.roll is not None:
            roll = Roll(dice=[], modifier=req.modifier, total=int(req.roll))
        else:
            dice = list(req.dice) if req.dice else roll_dice(rng, 2)
            if len(dice) != 2:
                raise RequestError(Problem("dice", f"a charge roll is two dice (got {len(dice)})"))
            final, before = apply_reroll(dice, need.roll, req.modifier, req.reroll, rng)
            roll = Roll(dice=final, modifier=req.modifier, total=sum(final) + req.modifier, rerolled_from=before, seed=seed if not req.dice else None)
        R = float(roll.total)
        placement, procedure = (None, "failed")
        if need.roll is not None and R + BUDGET_SLACK >= (need.distance or 0):
            if turns:
                # a pivot costs part of the move: where this roll succeeds without one,
                # nobody turns (and every model keeps its whole roll for base contact)
                placement, procedure = self.solve_any(*unturned, R, last=True)
                if placement is not None:
                    prob, bare, turns = *unturned, {}
            if placement is None:
                placement, procedure = self.solve_any(prob, bare, R, last=True)
        if placement is not None and casualties and (r.edition == 10 or r.wtc):
            # WTC step 5A: overwatch at the start of the move; casualties can spoil it
            details["casualties"] = sorted(casualties)
            world = build_world(scen, removed=casualties)
            prob = self._problem(world, req)
            bare = self.open_field(world, req, prob.cap)
            if turns:
                # the same pivots, on the battlefield without the casualties
                prob, bare = replan(self, world, req, prob, turns)
            placement, procedure = self.solve_any(prob, bare, R)
            if placement is None:
                reasons.append(
                    Reason(
                        code="overwatch_spoiled",
                        message="after the overwatch casualties the unit can no longer reach every target in coherency; nobody moves",
                        models=sorted(casualties),
                    )
                )
                return self._ruling(world, req, targets, True, False, "failed", reasons, details, need, roll)
        if placement is None:
            reasons.append(self.failure_reason(prob, need, roll))
            moves: list[Move] = []
            if r.edition == 9 and not r.wtc and r.failed_charge_moves:
                moves = self._failed_moves(world, prob, R)
                if moves:
                    details["failed_move"] = "moved up to the roll, ending closer (seed 002)"
            return self._ruling(world, req, targets, True, False, "failed", reasons, details, need, roll, moves)
        contacts = prob.contacts_of(placement)
        moves = self._moves(world, prob, placement, contacts)
        details["order"] = placement.order
        for mid, tid in prob.held_back(placement, R).items():
            reasons.append(
                Reason(
                    code="held_back",
                    message=f"{mid} could reach base contact with {tid}, but not without breaking coherency or "
                    "leaving a target unengaged, so it stops short (WTC step 6.C)",
                    models=[mid, tid],
                )
            )
        if procedure == "wtc_walls":
            tokens = [m for m in placement.order if placement.via.get(m) == "token"]
            details["tokens"] = tokens
            reasons.append(
                Reason(
                    code="wall_token",
                    message="a ruin wall leaves no room to reach these models' targets; they end against the wall with a token "
                    "and fight the charged units at 2\" across it",
                    models=tokens,
                )
            )
        details["base_contacts"] = sum(1 for m in prob.models if any(o in {t.id for tl in prob.tmodels for t in tl} for o in contacts[m.id]))
        engaged = [t for t, e in zip(targets, prob.engaged_by(placement), strict=True) if e]
        return self._ruling(world, req, targets, True, True, "heroic_intervention" if heroic else procedure, reasons, details, need, roll, moves, engaged)

    def failure_reason(self, prob: ChargeProblem, need: Needed, roll: Roll) -> Reason:
        """Why a charge with this roll found no placement: no roll can do it, or this roll
        is short of the least one."""
        if need.roll is None:
            return self._why_impossible(prob)
        return Reason(
            code="roll_too_low",
            message=f"a roll of {roll.total} is short: the charge needs {need.roll} ({need.distance:.3f})",
            witness={"needed": need.distance},
        )

    def _why_impossible(self, prob: ChargeProblem) -> Reason:
        """Explain why no roll can make the charge succeed."""
        lb = prob.lower_bound()
        if lb > prob.cap + BUDGET_SLACK:
            return Reason(
                code="out_of_reach",
                message=f"the closest model is {lb:.3f} beyond engagement range, more than the best roll ({prob.cap:g})",
                witness={"lower_bound": _r6(lb)},
            )
        # is some target unreachable without touching a non-target's engagement range?
        reach = prob.reachable_targets(prob.cap)
        for j, t in enumerate(prob.targets):
            if not reach[j]:
                return Reason(
                    code="target_unreachable",
                    message=f"every spot in engagement range of {t} is blocked or in engagement range of a unit that is not a target",
                )
        return Reason(
            code="no_legal_placement",
            message="no placement keeps the unit coherent, in engagement range of every target and out of range of every other enemy",
        )

    def _moves(self, world: World, prob: ChargeProblem, pl: Placement, contacts: dict[str, list[str]]) -> list[Move]:
        out = []
        for m in prob.models:
            goal = pl.pos[m.id]
            pr = prob.path_of(m, goal)
            path = [[_r6(x), _r6(y)] for x, y in pr.points] if pr is not None else [[_r6(m.xy[0]), _r6(m.xy[1])], [_r6(goal[0]), _r6(goal[1])]]
            extra: dict[str, Any] = {}
            segs = getattr(pr, "segments", None)
            if segs:
                # the exact path is the lines and arcs the planner gives; the polyline
                # keeps only their ends (for a drawing or a reader of points), so a
                # ruling does not carry hundreds of points for every arc
                extra["segments"] = list(segs)
                ends = [segs[0]["from"], *(sg["to"] for sg in segs)]
                path = [[_r6(q[0]), _r6(q[1])] for q in ends]
            turn = prob.pivots.get(m.id)
            if turn is not None:
                # a pivot at the start spot (pivots.py) comes first among the pieces
                lines = list(segs) if segs else [
                    {"kind": "line", "from": a, "to": b} for a, b in zip(path[:-1], path[1:], strict=True)
                ]
                pv = {"kind": "pivot", "at": [_r6(m.xy[0]), _r6(m.xy[1])], "from": _r6(turn[0]),
                      "to": _r6(turn[1]), "length": _r6(prob.pivot_cost[m.id])}
                extra["segments"] = [pv, *lines]
                extra["facing"] = _r6(turn[1])
                extra["facing_from"] = _r6(turn[0])
            end = getattr(prob, "end_pivots", {}).get(m.id)
            if end is not None:
                # a pivot at the end spot (end_pivots.py) comes last among the pieces
                lines = extra.get("segments") or [
                    {"kind": "line", "from": a, "to": b} for a, b in zip(path[:-1], path[1:], strict=True)
                ]
                pv = {"kind": "pivot", "at": [_r6(goal[0]), _r6(goal[1])], "from": _r6(end[0]),
                      "to": _r6(end[1]), "length": _r6(prob.pivot_cost[m.id])}
                extra.update(segments=[*lines, pv], facing=_r6(end[1]), facing_from=_r6(end[0]))
            out.append(
                Move(
                    **extra,
                    id=m.id,
                    **{"from": [_r6(m.xy[0]), _r6(m.xy[1]), _r6(m.z)]},
                    to=[_r6(goal[0]), _r6(goal[1]), _r6(pl.z[m.id])],
                    distance=_r6(pl.cost[m.id]),
                    contacts=contacts.get(m.id, []),
                    token=pl.via.get(m.id) == "token",
                    path=path,
                )
            )
        return out

    def _failed_moves(self, world: World, prob: ChargeProblem, R: float) -> list[Move]:
        """Seed 002: a failed charge still moves up to the roll and ends closer to the
        charged unit, in coherency, out of engagement range of every enemy: placed by
        the engine every model-by-model move shares (settle.py, ``failed_charge_rules``)."""
        from .settle import failed_charge_moves

        return failed_charge_moves(world, prob.unit, list(prob.targets), R)

    # ---------------------------------------------------------------- ruling
    def _ruling(
        self,
        world: World,
        req: ChargeRequest,
        targets: list[str],
        eligible: bool,
        success: bool,
        procedure: str,
        reasons: list[Reason],
        details: dict[str, Any],
        need: Needed | None = None,
        roll: Roll | None = None,
        moves: list[Move] | None = None,
        engaged: list[str] | None = None,
    ) -> Ruling:
        moves = moves or []
        after = self._after(world.scen, req, moves, success, details.get("casualties", []))
        if success and any(m.get("token") for u in after["units"] for m in u["models"]):
            # tokens end when their models come within normal engagement range (e.g. a
            # heroic intervention, Example 6) or their unit leaves combat
            from .fight import token_refresh

            after, gone = token_refresh(after)
            reasons = reasons + gone
        if engaged is None:
            engaged = []
            if success:
                aw = build_world(scenario_from_data(after))
                engaged = [t for t in targets if in_engagement(aw, req.charger, t)]
        return Ruling(
            system=NAME,
            charger=req.charger,
            targets=targets,
            eligible=eligible,
            needed=need,
            roll=roll,
            success=success,
            procedure=procedure,
            moves=moves,
            engaged=engaged,
            reasons=reasons,
            details=details,
            after=after,
        )

    def _after(self, scen: Scenario40k, req: ChargeRequest, moves: list[Move], success: bool, casualties: list[str]) -> dict[str, Any]:
        data = scenario_to_data(scen)
        new = {m.id: m.to for m in moves}
        turned = {m.id: m.facing for m in moves if m.facing is not None}
        dead = set(casualties)
        tok = {m.id for m in moves if m.token}
        for u in data["units"]:
            u["models"] = [m for m in u["models"] if m["id"] not in dead]
            for m in u["models"]:
                if m["id"] in new:
                    m["at"] = list(new[m["id"]])
                if m["id"] in turned:
                    m["facing"] = turned[m["id"]]
                if m["id"] in tok:
                    m["token"] = True
            if u["id"] == req.charger and tok:
                u["token_targets"] = sorted(set(u.get("token_targets", [])) | set(req.targets))
            if u["id"] == req.charger and (success or moves or True):
                flags = list(u.get("flags", []))
                if "charged" not in flags:
                    flags.append("charged")
                u["flags"] = flags
        return data

    # ---------------------------------------------------------------- heroic (9th)
    def heroic_intervention(self, scen: Scenario40k, unit: str) -> Ruling:
        from .heroic import heroic_intervention

        return heroic_intervention(self, scen, unit)

    # ---------------------------------------------------------------- phase
    def phase(self, scen: Scenario40k, seed: int | None, progress=None) -> PhaseResult:  # noqa: ANN001
        rulings: list[Ruling] = []
        cur = scen
        for i, spec in enumerate(scen.charges):
            if progress is not None:
                progress(i, len(scen.charges), f"{spec.charger} -> {', '.join(spec.targets)}")
            s = None if seed is None else seed + i
            req = ChargeRequest.from_spec(spec, s)
            ruling = self.charge(cur, req)
            rulings.append(ruling)
            if ruling.after is not None:
                cur = scenario_from_data(ruling.after)
        after = scenario_to_data(cur)
        after["charges"] = []
        return PhaseResult(rulings=rulings, after=after)


def _centre_gaps(world: World, u: str, v: str) -> tuple[list[Model], list[Model], np.ndarray]:
    """Lower bounds of the gap between every model of u and every model of v: centre
    distance less both bounding radii (every point of a base lies within its radius of
    its centre, so no two bases are closer than that)."""
    A, B = world.unit_models[u], world.unit_models[v]
    ca = np.array([a.fp.center for a in A], dtype=float).reshape(-1, 2)
    cb = np.array([b.fp.center for b in B], dtype=float).reshape(-1, 2)
    ra = np.array([a.fp.radius for a in A])
    rb = np.array([b.fp.radius for b in B])
    d = np.hypot(ca[:, None, 0] - cb[None, :, 0], ca[:, None, 1] - cb[None, :, 1])
    return A, B, d - ra[:, None] - rb[None, :]


def unit_distance(world: World, u: str, v: str) -> float:
    """world.unit_distance (the least distance between two units' models), with the
    same value: pairs are measured exactly in order of their lower bound, and the search
    stops once the next bound (less 1e-6) exceeds the best found, since no later pair
    can then be closer. perf: a few exact measures instead of every pair."""
    A, B, lb = _centre_gaps(world, u, v)
    if lb.size == 0:
        return _unit_distance_pairs(world, u, v)
    za = np.array([a.z for a in A])
    zb = np.array([b.z for b in B])
    lb3 = np.hypot(np.maximum(lb, 0.0), za[:, None] - zb[None, :])
    best = math.inf
    for k in np.argsort(lb3, axis=None, kind="stable"):
        if lb3.flat[k] - 1e-6 > best:
            break
        i, j = divmod(int(k), len(B))
        best = min(best, _unit_distance_one(A[i], B[j]))
    return best


def _unit_distance_one(a: Model, b: Model) -> float:
    from .world import _dist3

    return _dist3(a, b)


def in_engagement(world: World, u: str, v: str, er: float | None = None) -> bool:
    """world.in_engagement, with the same answer: only pairs whose lower bound is within
    the range (and 1e-6) are measured exactly. perf: no pair loop over far models."""
    r = world.rules
    er = r.er if er is None else er
    A, B, lb = _centre_gaps(world, u, v)
    za = np.array([a.z for a in A]).reshape(-1)
    zb = np.array([b.z for b in B]).reshape(-1)
    near = (lb <= er + TOL + 1e-6) & (np.abs(za[:, None] - zb[None, :]) <= r.er_v + TOL + 1e-9)
    for i, j in zip(*np.nonzero(near), strict=True):
        if _in_engagement_pairs_one(world, A[int(i)], B[int(j)], er):
            return True
    return False


def _in_engagement_pairs_one(world: World, a: Model, b: Model, er: float) -> bool:
    from ...geometry.shapes import signed_distance

    r = world.rules
    return abs(a.z - b.z) <= r.er_v + TOL and signed_distance(a.fp, b.fp) <= er + TOL


def not_proven(need: Needed) -> Reason:
    """The least roll found is not proven least: say so instead of guessing high."""
    return Reason(
        code="needed_not_proven",
        message=(
            f"the least roll found is {need.roll} ({need.distance:.6f}), but the proven lower bound "
            f"({need.lower_bound:.6f}) rounds to a smaller roll: a smaller roll is not ruled out"
        ),
        witness={"distance": need.distance, "lower_bound": need.lower_bound},
    )


def placement_coherent(models: list[Model], pl: Placement, world: World) -> bool:
    return coherent(models, pl, world.rules, world.rules.needs_two(len(models)))


SYSTEM = W40k()
