"""Edition 9 heroic interventions (seed 002): after the charges, an eligible CHARACTER
unit of the player who was charged may move each model up to 3", each ending closer to
the enemy model that was closest to it, the unit ending coherent.

Edition 10 has no such move: its heroic intervention is a stratagem that makes a charge
(see ``W40k.charge`` with ``extra={"heroic_intervention": True}``).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ...errors import Problem, RequestError
from ...geometry.paths import Planner
from ...geometry.shapes import TOL
from ...ruling import Move, Reason, Ruling
from ...scenario import Scenario40k
from ..base import require_unit
from .solver import EPS, Placement, coherent, furthest, sd_many
from .world import build_world, in_engagement


class _System(Protocol):
    """What this module needs from the 40k system (no import of system.py: no cycle)."""

    def _after(self, scen: Scenario40k, req: Any, moves: list[Move], success: bool, casualties: list[str]) -> dict[str, Any]: ...

HI_MOVE = 3.0
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
    budget = HI_MOVE * inch
    planner = Planner(w.barriers_for(unit), w.board)
    blockers = w.end_blockers()
    others = [o for o in w.models if o.unit != unit]
    # each model heads for the enemy model closest to it
    plans = []
    for m in models:
        closest = min(enemies, key=lambda o: float(sd_many(m.fp, m.xy[None], o.fp)[0]))
        d0 = float(sd_many(m.fp, m.xy[None], closest.fp)[0])
        v = closest.xy - m.xy
        v = v / max(np.linalg.norm(v), 1e-12)
        plans.append((m, closest, d0, v))

    def place(scale: float) -> Placement | None:
        pos, zz, cost = {}, {}, {}
        placed_fps = []
        for m, closest, d0, v in plans:
            # the furthest straight step toward the closest enemy, stopping at contact
            hi = budget * scale
            field = planner.field(m.fp, budget=budget + 1e-9)

            def ok(s: float, m=m, v=v, field=field) -> bool:  # noqa: ANN001
                p = m.xy + v * s
                fp = m.fp.moved_to(p)
                if s > 0 and field.cost(p[None])[0] > s + 1e-6:
                    return False
                for o in others:
                    if abs(o.z - m.z) <= 1e-9 and float(sd_many(fp, p[None], o.fp)[0]) < -EPS:
                        return False
                for f in blockers:
                    if float(sd_many(fp, p[None], f.fp)[0]) < -EPS:
                        return False
                for q in placed_fps:
                    if float(sd_many(fp, p[None], q)[0]) < -EPS:
                        return False
                return True

            s = furthest(ok, hi)
            p = m.xy + v * s
            if float(sd_many(m.fp, p[None], closest.fp)[0]) >= d0 - 2e-6:
                return None  # this model could not get closer
            pos[m.id], zz[m.id], cost[m.id] = p, m.z, s
            placed_fps.append(m.fp.moved_to(p))
        pl = Placement(pos, zz, cost, [m.id for m in models])
        return pl if coherent(models, pl, r, r.needs_two(len(models))) else None

    pl = None
    for scale in (1.0, 0.75, 0.5, 0.25):
        pl = place(scale)
        if pl is not None:
            break
    if pl is None:
        reasons.append(Reason(code="no_legal_move", message="no move brings every model closer to its closest enemy while keeping coherency"))
        return Ruling(system="40k", charger=unit, targets=targets, eligible=True, success=False, procedure="heroic_intervention",
                      reasons=reasons, details={"edition": 9, "heroic_intervention": True}, after=system._after(scen, _Req(unit), [], False, []))
    moves = []
    for m in models:
        p = pl.pos[m.id]
        moves.append(Move(id=m.id, **{"from": [round(float(m.xy[0]), 9), round(float(m.xy[1]), 9), round(m.z, 9)]},
                          to=[round(float(p[0]), 9), round(float(p[1]), 9), round(m.z, 9)], distance=round(pl.cost[m.id], 9),
                          path=[[round(float(m.xy[0]), 9), round(float(m.xy[1]), 9)], [round(float(p[0]), 9), round(float(p[1]), 9)]]))
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
