"""Pivots at the end spot: a non-round model moves with its base as it stands, then
turns about its centre where it ends (docs/40k.md, "Pivots").

INTERPRETATION as for the start pivot (pivots.py): the turn by ``Δ`` costs ``R·|Δ|``
of the move and the area the base sweeps while turning must be clear like a path; here
the sweep is at the end spot, so it is checked there, spot by spot.

Why it is worth a plan of its own: a start pivot turns the base before it travels, so
a corridor or slot that only the unturned base fits, or a start spot too cramped to turn
in, rules it out; turning at the end keeps the unturned base for the whole path and
still lets the turned base reach what the unturned one cannot (the tip of an oval or the
corner of a rect pushed into a gap, a long side laid against a target's flat face).

A plan names the models that turn at their end and the facing each ends with: the same
constructed facings as the start plans (``pivots._candidate_turns``: ``reach``, ``gap``,
``face``, ``tangent``; never an angular grid), for every non-round model and for the one
nearest the targets. Its problem (:class:`EndTurnProblem`) is the charge on a world
where those models stand turned, so every question about an end spot (fit, overlap,
contact, engagement, coherency) sees the turned base; their paths are planned for the
base as it stood, each spot costs that path plus the turn, and a spot where the turn's
sweep enters a barrier (what the path may not cross or would climb, non-target
engagement ranges where the edition keeps paths out of them) or leaves the board, or a
spot on another level than the start (a limit), is out of reach. The straight-line
lower bound stays proven: no point of the base moves farther than the path plus
``R·|Δ|``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...geometry.pivot import pivot_length, reach, turn_between
from ...geometry.shapes import TOL, Disc, Footprint, signed_distance
from . import pivots
from .pivots import (
    Plan,
    SharedFields,
    StartTurnProblem,
    _better,
    _hopeless,
    apply_plan,
    plan_floor,
    plans,
    probed,
    proven_least,
    sweep_clear,
    sweep_on_board,
)
from .solver import ChargeProblem
from .solver_base import Bank
from .world import Model, World


class EndTurns(dict):
    """Each model's (from facing, to facing) for turns made at the end spot (a start
    plan's turns are a plain dict)."""


class EndTurnProblem(SharedFields, ChargeProblem):
    """A charge whose models named in ``travel`` move with the base they started with
    (``travel[id]``: the model as it stood) and turn at their end spot by
    ``end_turn[id]`` degrees; the world given stands them turned. Set before the
    engine's set-up, which already prices the first spots."""

    def __init__(self, world: World, unit: str, targets: list[str], cap: float, travel: dict[str, Model],
                 end_turn: dict[str, float], field_source: ChargeProblem | None = None, **kw) -> None:  # noqa: ANN003
        # every path, the turning models' too, is travelled by a base as it stood: all
        # the fields can be borrowed from the unturned problem (pivots.SharedFields)
        self.field_source = field_source
        self.travel = dict(travel)
        self.end_turn = dict(end_turn)
        #: each model turning at its end: (from facing, to facing), read by the ruling
        self.end_pivots = {mid: (m.facing, m.facing + end_turn[mid]) for mid, m in travel.items()}
        self._sweep_ok: dict[str, dict[tuple[float, float], bool]] = {mid: {} for mid in travel}
        cost = {mid: pivot_length(m.fp, end_turn[mid]) for mid, m in travel.items()}
        super().__init__(world, unit, targets, cap, pivot_cost=cost, **kw)

    # the path is travelled by the base as it stood
    def field(self, m: Model):  # noqa: ANN201
        t = self.travel.get(m.id)
        if t is None:
            return super().field(m)
        f = self._fields.get(m.id)
        if f is None:
            f = self.borrow(m.id, t.fp) or self.planner.field(t.fp, budget=self.cap + 1e-9)
            self._fields[m.id] = f
        return f

    def sky_field(self, m: Model):  # noqa: ANN201
        t = self.travel.get(m.id)
        if t is None:
            return super().sky_field(m)
        f = self._sky_fields.get(m.id)
        if f is None:
            assert self.sky_planner is not None
            f = self.sky_planner.field(t.fp, budget=self.cap + 1e-9)
            self._sky_fields[m.id] = f
        return f

    def _costs(self, m: Model, bank: Bank, start: int = 0) -> np.ndarray:
        cost = super()._costs(m, bank, start)
        t = self.travel.get(m.id)
        if t is None:
            return cost
        pts, z = bank.pts[start:], bank.z[start:]
        for i in np.flatnonzero(np.isfinite(cost)):
            if abs(float(z[i]) - t.z) > TOL or not self.turn_clear(m.id, pts[i]):
                cost[i] = np.inf
        return cost

    def _resolve(self, m: Model, idx: np.ndarray) -> None:
        super()._resolve(m, idx)
        t = self.travel.get(m.id)
        if t is None:
            return
        b = self.banks[self.keys[m.id]]
        for i in idx:
            if abs(float(b.z[i]) - t.z) > TOL or not self.turn_clear(m.id, b.pts[i]):
                self.costs[m.id][i] = np.inf

    def turn_clear(self, mid: str, spot: np.ndarray) -> bool:
        """May the model turn at ``spot``: its sweep clear of every barrier (touching
        allowed) and on the board? Each spot is asked once."""
        key = (float(spot[0]), float(spot[1]))
        memo = self._sweep_ok[mid]
        ok = memo.get(key)
        if ok is None:
            t = self.travel[mid]
            at = replace(t, fp=t.fp.moved_to(key))
            d = self.end_turn[mid]
            # perf: the whole turn stays within R of the centre, so a barrier the disc of
            # radius R does not enter (beyond the tolerance) is not entered by the sweep
            R = reach(t.fp)
            disc = Footprint((Disc(key, R),))
            near = [b for b in self.barriers
                    if float(np.hypot(*(b.footprint.center - at.xy))) - b.footprint.radius <= R + TOL
                    and signed_distance(disc, b.footprint) < -TOL]
            ok = sweep_clear(at, d, near) and sweep_on_board(at, d, self.w.board)
            memo[key] = ok
        return ok


def end_plans(world: World, unit: str, targets: list[str]) -> list[Plan]:
    """The end-turn plans worth a solve: per rule, every non-round model turned, and only
    the model nearest the targets (the sweep is checked spot by spot, not here)."""
    return plans(world, unit, targets, None, prefix="end-")


def end_problem(world: World, plan: Plan, build):  # noqa: ANN001, ANN201
    """The plan's problem and its open-field twin (or None): ``build(world, travel,
    end_turn)`` makes them with its caller's rules on the world where the plan's models
    stand turned."""
    w2, _, turns = apply_plan(world, plan)
    travel = {mid: world.by_id[mid] for mid in turns}
    delta = {mid: turn_between(world.by_id[mid].facing, plan.facing[mid]) for mid in turns}
    return build(w2, travel, delta)


def system_builder(system, req, cap: float, source: ChargeProblem | None = None,  # noqa: ANN001, ANN201
                   bare_source: ChargeProblem | None = None):
    """``build`` for the charges of editions 9 and 10 (``W40k``): the charge as
    ``W40k._problem`` makes it, and its open-field twin when the WTC walls rule
    applies. ``source`` and ``bare_source``: the unturned problem and its twin, whose
    path fields the plan's problems borrow (``pivots.SharedFields``)."""
    def build(w2: World, travel: dict[str, Model], delta: dict[str, float]):  # noqa: ANN202
        p = EndTurnProblem(w2, req.charger, list(req.targets), cap, travel, delta, field_source=source)
        b = system.open_field(w2, req, cap)
        return p, (EndTurnProblem(b.w, req.charger, list(req.targets), cap, travel, delta, field_source=bare_source)
                   if b is not None else None)

    return build


def best_end_plan(system, world: World, prob, bare, need, build):  # noqa: ANN001, ANN201
    """Try the end-turn plans (after the start plans): returns (prob, bare, need, turns)
    for the plan strictly better than ``need`` (the best of them), ``turns`` each
    turning model's (from facing, to facing) at its end; or the inputs and empty
    ``turns``. Not tried when ``need`` is already proven least."""
    if proven_least(need, prob.lower_bound()):
        return prob, bare, need, {}
    best = (prob, bare, need, {})
    for plan in end_plans(world, prob.unit, list(prob.targets)):
        if _hopeless(plan_floor(world, prob, plan), best[2]):
            continue  # perf: a proven bound says it cannot do better (no solve)

        def make(plan: Plan = plan):  # noqa: ANN202
            p2, b2 = end_problem(world, plan, build)
            # "ends closer" and the lower bound measure from where the model stood
            p2.start_dist = prob.start_dist.copy()
            if b2 is not None and bare is not None:
                b2.start_dist = bare.start_dist.copy()
            return p2, b2

        built = probed(system, make, best[2])
        if built is None:
            continue  # perf: no placement at the level a better answer needs (proof there)
        p2, b2 = built
        n2, _ = system.needed_on(p2, b2)
        if _better(n2, best[2]):
            best = (p2, b2, n2, EndTurns(p2.end_pivots))
    return best


def best_plan(system, world: World, req, prob, bare, need):  # noqa: ANN001, ANN201
    """What the charges of editions 9 and 10 rule on: ``pivots.best_plan`` (turns at the
    start spot), then the end-turn plans when the answer is still not proven; the same
    (prob, bare, need, turns), ``turns`` an :class:`EndTurns` for an end plan."""
    best = pivots.best_plan(system, world, req, prob, bare, need)
    end = best_end_plan(system, world, *best[:3], system_builder(system, req, prob.cap, prob, bare))
    return end if end[3] else best


def replan(system, world: World, req, prob, turns: dict[str, tuple[float, float]]):  # noqa: ANN001, ANN201
    """``pivots.replan`` for turns of either kind (after casualties)."""
    if isinstance(turns, EndTurns):
        return end_replan(system, world, req, prob, turns)
    return pivots.replan(system, world, req, prob, turns)


def end_replan(system, world: World, req, prob, turns: dict[str, tuple[float, float]]):  # noqa: ANN001, ANN201
    """The same end turns on another world of the same charge (after casualties): the
    problem and its open-field twin. Models no longer there are left out."""
    plan = Plan("same", {k: v[1] for k, v in turns.items() if k in world.by_id})
    p2, b2 = end_problem(world, plan, system_builder(system, req, prob.cap))
    p2.start_dist = prob.start_dist.copy()
    return p2, b2


__all__ = ["EndTurnProblem", "EndTurns", "StartTurnProblem", "best_end_plan", "best_plan", "end_plans", "end_problem", "end_replan", "replan", "system_builder"]
