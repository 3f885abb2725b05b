"""Edition 9 heroic interventions (seed 002): after the charges, an eligible CHARACTER
unit of the player who was charged may move each model up to 3", each ending closer to
the enemy model that was closest to it, the unit ending coherent.

The move is placed by the engine every 40k move shares (moves.py, settle.py): exact
paths round whatever stands in the way, recorded as segments; a model that cannot end
closer stays where it is; the intervention fails only when no model can move.

Edition 10 has no such move: its heroic intervention is a stratagem that makes a charge
(see ``W40k.charge`` with ``extra={"heroic_intervention": True}``).
"""

from __future__ import annotations

from typing import Any, Protocol

from ...errors import Problem, RequestError
from ...geometry.shapes import TOL
from ...ruling import Move, Reason, Ruling
from ...scenario import Scenario40k
from ..base import require_unit
from .moves import HEROIC_MOVE, heroic_rules
from .settle import Settle
from .solver_base import sd_many
from .world import build_world, in_engagement


class _System(Protocol):
    """What this module needs from the 40k system (no import of system.py: no cycle)."""

    def _after(self, scen: Scenario40k, req: Any, moves: list[Move], success: bool, casualties: list[str]) -> dict[str, Any]: ...

HI_MOVE = HEROIC_MOVE
HI_RANGE = 3.0


def heroic_intervention(system: _System, scen: Scenario40k, unit: str) -> Ruling:
    w = build_world(scen)
    u = require_unit(scen, unit, "unit")
    r = w.rules
    inch = r.inch
    if r.edition != 9:
        raise RequestError(
            Problem("unit", "in editions 10 and 11 a heroic intervention is a charge: use `chargeref heroic --against UNIT` "
                    "(edition 11: with --stratagem leap_to_defend | into_the_fray) and dice")
        )
    reasons: list[Reason] = []
    models = w.unit_models[unit]
    enemies = [o for o in w.models if o.player != u.player]
    if "CHARACTER" not in u.keywords:
        reasons.append(Reason(code="not_character", message=f"{unit} is not a CHARACTER unit"))
    if "heroic_intervened" in u.flags:
        reasons.append(Reason(code="already_intervened", message=f"{unit} has already intervened this phase"))
    near_units: set[str] = set()
    for m in models:
        for o in enemies:
            sd = float(sd_many(m.fp, m.xy[None], o.fp)[0])
            dz = abs(m.z - o.z)
            if sd <= r.er + TOL and dz <= r.er_v + TOL:
                reasons.append(Reason(code="starts_engaged", message=f"{m.id} is already within engagement range of {o.id}", models=[m.id]))
            if sd <= HI_RANGE * inch + TOL and dz <= 5.0 * inch + TOL:
                near_units.add(o.unit)
    if not near_units:
        reasons.append(Reason(code="no_enemy_near", message=f"no enemy unit is within 3\" horizontally and 5\" vertically of {unit}"))
    targets = sorted(near_units)
    if reasons:
        return Ruling(system="40k", charger=unit, targets=targets, eligible=False, success=False, procedure="ineligible",
                      reasons=reasons, details={"edition": 9, "heroic_intervention": True}, after=system._after(scen, _Req(unit), [], False, []))
    # the move, on the placement engine: each model ends closer to the enemy model that
    # was closest to it (or stays), base contact first, the unit coherent; exact paths
    rules = heroic_rules(w, unit)
    mv = Settle(w, unit, rules)
    for m in models:
        if mv.elevated(m):
            reasons.append(Reason(code="elevated_stays", message=f"{m.id} stands above the ground but not on a ruin floor; the planner leaves it where it is", models=[m.id]))
    plan = mv.place([m.id for m in models if not mv.elevated(m)], set())
    if plan.moved and mv.incoherence(plan) > 0:
        plan = mv.start_plan()
    if not plan.moved:
        reasons.append(Reason(code="no_legal_move", message="no model can end closer to the enemy model closest to it with the unit coherent"))
        return Ruling(system="40k", charger=unit, targets=targets, eligible=True, success=False, procedure="heroic_intervention",
                      reasons=reasons, details={"edition": 9, "heroic_intervention": True}, after=system._after(scen, _Req(unit), [], False, []))
    moves = [mv.record(m, plan.pos[m.id], plan.z[m.id], mv.contacts_at(mv.placed(m.id, plan), plan.pos[m.id], plan.z[m.id]),
                       False, plan.pose.get(m.id, 0))
             for m in models if m.id in plan.moved]
    after = system._after(scen, _Req(unit), moves, True, [])
    for ud in after["units"]:
        if ud["id"] == unit:
            fl = [f for f in ud.get("flags", []) if f != "charged"]
            fl.append("heroic_intervened")
            ud["flags"] = fl
    aw = build_world(scen.__class__.model_validate(after))
    engaged = [t for t in aw.enemies_of(unit) if in_engagement(aw, unit, t)]
    return Ruling(system="40k", charger=unit, targets=targets, eligible=True, success=True, procedure="heroic_intervention",
                  moves=moves, engaged=engaged, reasons=[], details={"edition": 9, "heroic_intervention": True}, after=after)


class _Req:
    def __init__(self, charger: str):
        self.charger = charger
