"""WTC walls tokens (seed 000, "fighting through walls", steps 6 to 10): the bookkeeping
after any move, and who fights given the tokens that still apply.

A token is removed as soon as its model stands within normal engagement range of an
enemy model; all of a unit's tokens go when the unit is out of combat (no link of any
kind) or when none of the units it charged is left; when a unit's last token goes its
``token_targets`` are cleared, which ends the 2" relationship for everyone. **Callers that
move models must apply it to the resulting scenario**: after a charge, a heroic
intervention or any other move (seed 000, step 10: a heroic intervention that brings the
token models within 1" ends the tokens). The functions here apply it to their input
themselves, so feeding them an unrefreshed ``after`` is safe.
"""

from __future__ import annotations

from typing import Any

from ...errors import Problem, RequestError
from ...ruling import Reason
from ...scenario import Scenario40k, scenario_from_data, scenario_to_data
from ..base import require_unit
from .melee import Melee
from .world import World, build_world


def _as_scenario(x: Scenario40k | World | dict[str, Any]) -> Scenario40k:
    if isinstance(x, World):
        return x.scen
    if isinstance(x, dict):
        s = scenario_from_data(x)
        if not isinstance(s, Scenario40k):
            raise RequestError(Problem("system", "the fight phase is a 40k rule"))
        return s
    return x


def token_refresh(scen: Scenario40k | World | dict[str, Any]) -> tuple[dict[str, Any], list[Reason]]:
    """:func:`refresh_tokens` with the reasons for every token it removed."""
    s = _as_scenario(scen)
    data = scenario_to_data(s)
    reasons: list[Reason] = []
    for _ in range(len(s.units) + 2):
        world = build_world(scenario_from_data(data))  # type: ignore[arg-type]
        mel = Melee(world)
        changed = False
        for u in data["units"]:
            tok_models = [m for m in u["models"] if m.get("token")]
            targets = list(u.get("token_targets", []))
            if not tok_models and not targets:
                continue
            alive = [t for t in targets if world.unit_models.get(t)]
            if alive != targets:
                gone = sorted(set(targets) - set(alive))
                reasons.append(Reason(code="token_target_gone", message=f"{', '.join(gone)} no longer on the table: dropped from {u['id']}'s token targets"))
                u["token_targets"] = targets = alive
                changed = True
            drop: list[str] = []
            foes = mel.enemies(u["id"])
            # A token stays until its model stands within normal engagement range (or in
            # base contact) of an enemy model (seed 000, step 8 and the fight text).
            for m in tok_models:
                me = world.by_id.get(m["id"])
                if me is not None and any(mel.in_er(me, b) for b in foes):
                    drop.append(m["id"])
            if drop:
                reasons.append(Reason(code="token_removed_legal", message=f"{', '.join(drop)} stand(s) within normal engagement range of an enemy: token removed", models=drop))
            left = [m for m in tok_models if m["id"] not in drop]
            why = None
            if left and not targets:
                why = ("token_without_targets", f"{u['id']} has tokens but no charged units to fight through a wall: tokens removed")
            elif left:
                # A unit out of combat loses its tokens (seed 000: "or their unit is out of combat").
                mine = world.unit_models[u["id"]]
                linked = any(mel.token_link(a, b) for a in mine if a.id in {m["id"] for m in left} for b in foes)
                if not linked and not mel.normal_er(u["id"]) and not any(mel.barricade_link(a, b) for a in mine for b in foes):
                    why = ("token_out_of_combat", f"{u['id']} is out of combat: its tokens are removed")
            if why is not None:
                reasons.append(Reason(code=why[0], message=why[1], models=[m["id"] for m in left]))
                drop += [m["id"] for m in left]
                left = []
            for m in u["models"]:
                if m["id"] in drop:
                    m["token"] = False
                    changed = True
            if not left and targets:
                # The last token is gone: the 2" relationship ends for everyone (step 10).
                reasons.append(Reason(code="tokens_ended", message=f"{u['id']} has no token left: fighting through walls with {', '.join(targets)} ends", models=[]))
                u["token_targets"] = []
                changed = True
        if not changed:
            break
    for u in data["units"]:
        for m in u["models"]:
            if not m.get("token"):
                m.pop("token", None)
        if not u.get("token_targets"):
            u.pop("token_targets", None)
    return data, reasons


def refresh_tokens(scen: Scenario40k | World | dict[str, Any]) -> dict[str, Any]:
    """The scenario (as data) with every token that no longer applies removed.

    Apply it after any move (charge, heroic intervention, pile in, consolidation): a
    token goes when its model is within normal engagement range of an enemy model; all
    of a unit's tokens go when the unit is out of combat or none of its charged units
    is left; with the last token the unit's ``token_targets`` are cleared.
    Idempotent."""
    return token_refresh(scen)[0]


def _refreshed(scen: Scenario40k | World | dict[str, Any]) -> tuple[Scenario40k, list[Reason]]:
    data, reasons = token_refresh(scen)
    s = scenario_from_data(data)
    assert isinstance(s, Scenario40k)
    return s, reasons


def who_fights(world_or_scen: Scenario40k | World | dict[str, Any], unit: str) -> dict[str, Any]:
    """Which models of ``unit`` may attack which enemy units, and why.

    Returns ``{"unit", "edition", "in_combat", "may_fight", "engaged", "attacks",
    "links", "tokens", "token_targets", "token_partners", "reasons"}``: ``attacks``
    maps every model to the enemy units it may attack; ``links`` lists the pairs (kind
    ``er``, ``token`` or ``barricade``); ``tokens`` the unit's token models;
    ``token_partners`` the enemy units whose tokens reach this unit. Tokens that no
    longer apply are removed first (:func:`refresh_tokens`); ``reasons`` says which."""
    scen, reasons = _refreshed(world_or_scen)
    require_unit(scen, unit, "unit")
    world = build_world(scen)
    mel = Melee(world)
    links = mel.links(unit)
    engaged = sorted({lk.unit for lk in links})
    u = mel.units[unit]
    partners = sorted(
        v.id for v in scen.units if unit in v.token_targets and any(m.token for m in v.models) and v.player != u.player
    )
    return {
        "unit": unit,
        "edition": world.rules.edition,
        "in_combat": bool(links),
        "may_fight": bool(links) or "charged" in u.flags,
        "engaged": engaged,
        "attacks": mel.attacks(unit, links),
        "links": [lk.data() for lk in links],
        "tokens": sorted(m.id for m in u.models if m.token),
        "token_targets": list(u.token_targets),
        "token_partners": partners,
        "reasons": [r.model_dump() for r in reasons],
    }


def engaged_units(scen: Scenario40k | World | dict[str, Any], unit: str) -> list[str]:
    """Enemy units within engagement range of ``unit`` for any purpose (charge-phase
    effects included, seed 000 Example 5): normal engagement range, token links across
    a ruin wall, and barricade links."""
    s, _ = _refreshed(scen)
    require_unit(s, unit, "unit")
    return Melee(build_world(s)).engaged_units(unit)



__all__ = ["engaged_units", "refresh_tokens", "token_refresh", "who_fights"]
