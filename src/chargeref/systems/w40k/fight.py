"""The 40k fight phase: pile in and consolidate, with the WTC walls tokens' duties in the
fight phase (seed 000, "fighting through walls", steps 6 to 10).

The module is split by responsibility: ``melee.py`` says who may fight whom (links:
engagement range, tokens across a ruin wall, barricades), ``tokens.py`` keeps the tokens'
books after any move, ``moves.py`` holds the rules of a move as constraints and
``settle.py`` places the models on the charge's placement engine. This file makes the
rulings of the two moves.

* **Pile in / consolidate** (:func:`pile_in`, :func:`consolidate`). Each model may move
  up to 3". A model that moves must end closer to the enemy model that was closest to it
  when the move began (rules notes 1.11; ties: closer to any of the equally closest),
  the unit ends coherent, nothing ends overlapping a model or a terrain piece no base
  may stand in, and paths respect terrain and other models as the edition says
  (``world.py``), recorded exactly (``moves[].segments``: tangent lines and arcs).
  Editions 10 and 11 add: a model ends in base contact with an enemy where it can, and
  the unit's move is only made if the unit then stands engaged with an enemy (normal,
  token or barricade link). The default plan moves every model as far in as it can:
  base contact first, then engagement range, then as close as it gets to its closest
  enemy, each move keeping the unit coherent. ``keep`` names models the player holds
  still. In editions 9 and 10 a non-round base may turn about its centre at the start
  or the end of its move where only that reaches base contact or engagement range
  (settle_pivots.py); its move then records the pivot and ``after`` its new facing.

* **Tokens in the fight phase.** A token model that can pile in to a normal legal
  position (within 1" of an enemy model, at a spot a legal pile-in move reaches with
  the unit coherent) must either do so, losing its token, or stay and drop the token
  (``keep``). A token model that cannot reach such a spot stays by the wall, keeps its
  token and counts as having piled in. Tokens may not be dropped so that the unit
  leaves combat (the last one, unless a model of the unit ends in normal engagement
  range); the player's ``keep`` is then overridden and that model piles in. Whether a
  token model can reach a normal legal position decides its duty, so its candidate
  spots include the ends of every reachable arc of the enemy loci (constructed by
  geometry/placement.py, no angular grid). When consolidating, a token model that moves
  must take a normal legal position if it can (its token goes); one held still keeps
  its token. Tokens persist in ``after`` across phases and turns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ...errors import Problem, RequestError
from ...ruling import Move, Reason, Ruling
from ...scenario import Scenario40k, scenario_from_data, scenario_to_data
from ..base import require_unit
from .melee import ACROSS_REACH, CHAIN_9, Link, Melee, closest_points
from .moves import FIGHT_MOVE, fight_rules
from .settle import Plan, Settle
from .tokens import _refreshed, engaged_units, refresh_tokens, token_refresh, who_fights
from .world import World, build_world

STEPS = ("pile_in", "consolidate")



def _check_keep(scen: Scenario40k, unit: str, keep: Iterable[str] | None) -> set[str]:
    ids = {m.id for u in scen.units if u.id == unit for m in u.models}
    out = set(keep or ())
    bad = sorted(out - ids)
    if bad:
        raise RequestError(Problem("--keep-token", f"{', '.join(bad)} is not a model of {unit}"))
    return out


def _fight_move(scen_in: Scenario40k | World | dict[str, Any], unit: str, step: str, keep: Iterable[str] | None) -> Ruling:
    if step not in STEPS:
        raise RequestError(Problem("--step", f"unknown step {step!r}"))
    scen, reasons = _refreshed(scen_in)
    require_unit(scen, unit, "unit")
    hold = _check_keep(scen, unit, keep)
    world = build_world(scen)
    r = world.rules
    mel = Melee(world)
    u = mel.units[unit]
    links = mel.links(unit)
    engaged_before = sorted({lk.unit for lk in links})
    details: dict[str, Any] = {"edition": r.edition, "wtc": r.wtc, "step": step}
    start_data = scenario_to_data(scen)

    def ruling(eligible: bool, success: bool, moves: list[Move], after: dict[str, Any], engaged: list[str]) -> Ruling:
        aw = build_world(scenario_from_data(after))  # type: ignore[arg-type]
        am = Melee(aw)
        alinks = am.links(unit)
        au = am.units[unit]
        details["attacks"] = am.attacks(unit, alinks)
        details["links"] = [lk.data() for lk in alinks]
        details["in_combat"] = bool(alinks)
        details["token_targets"] = list(au.token_targets)
        return Ruling(
            system="40k", charger=unit, targets=engaged_before, eligible=eligible, success=success,
            procedure=step, moves=moves, engaged=engaged, reasons=reasons, details=details, after=after,
        )

    tokens_before = sorted(m.id for m in u.models if m.token)
    details["tokens"] = {"before": tokens_before, "after": tokens_before, "removed": {}}
    # pile in: a unit fights when it is in combat or charged this turn; consolidation
    # follows the fight it was selected for (its foes may be gone by then)
    if step == "pile_in" and not links and "charged" not in u.flags:
        reasons.append(Reason(code="not_in_combat", message=f"{unit} is not in engagement range of any enemy (normal, across a wall with tokens, or across a barricade) and did not charge this turn"))
        return ruling(False, False, [], start_data, [])
    if not world.enemies_of(unit) or not any(world.unit_models[e] for e in world.enemies_of(unit)):
        reasons.append(Reason(code="no_enemies", message="there is no enemy model to move toward"))
        return ruling(True, True, [], start_data, engaged_before)
    rules = fight_rules(world, unit, step, hold)
    mv = Settle(world, unit, rules, dense=frozenset(mel.token))
    for m in mv.models:
        if mv.elevated(m) and m.id not in hold:
            reasons.append(Reason(code="elevated_stays", message=f"{m.id} stands above the ground but not on a ruin floor; the fight-phase planner leaves it where it is", models=[m.id]))
    tok = [m.id for m in mv.models if m.id in mel.token]
    # token models with a normal legal position in reach (within 1" of an enemy model)
    can_legal = {t for t in tok if len(mv.legal_spots(mv.by_id[t]))}
    # pile in: a token model held still that could pile in legally gives up its token;
    # consolidation: a model held still keeps its token (step 8)
    drop = sorted(can_legal & hold) if step == "pile_in" else []
    must = set(can_legal) - hold
    overridden: list[str] = []

    def run() -> Plan:
        free = hold - set(overridden)
        movers = [m.id for m in mv.models if m.id not in free and not mv.elevated(m) and (m.id not in mel.token or m.id in must)]
        return mv.place(movers, must)

    plan = run()
    def out_of_combat(p: Plan, dropped: list[str]) -> bool:
        """Would dropping these tokens leave the unit with no model in normal
        engagement range and no token still reaching across a wall?"""
        return not _plan_engaged(scen, mv, p, {t for t in must if t in p.moved} | set(dropped))

    # Tokens may not be dropped so that the unit leaves combat (the last token, unless
    # some model ends in normal engagement range): the player's choice is overridden
    # and the model piles in.
    while drop and out_of_combat(plan, drop):
        best = min(drop, key=lambda t: float(np.min(mv.legal_spots(mv.by_id[t]).cost)))
        drop.remove(best)
        must.add(best)
        overridden.append(best)
        plan = run()
    moved_into = {t for t in must if t in plan.moved}
    # The choice "pile in or drop the token" only arises for a model that could make a
    # legal pile-in: one whose every legal spot would break coherency keeps its token.
    # (with the others where they started, or where the plan puts them)
    unable = [t for t in drop if not (mv.could_join(mv.by_id[t], mv.start_plan()) or mv.could_join(mv.by_id[t], plan))]
    drop = [t for t in drop if t not in unable]
    # a move must end with the unit coherent (a unit that starts out of coherency may
    # move only if that restores it)
    if plan.moved and mv.incoherence(plan) > 0:
        reasons.append(Reason(code="not_coherent", message=f"no plan found ends with {unit} in coherency: no model moves", models=sorted(plan.moved)))
        plan = mv.start_plan()
        moved_into = set()
    # edition 10: the move is only made if the unit then stands engaged with an enemy
    if plan.moved and rules.end_engaged and not _plan_engaged(scen, mv, plan, set(moved_into) | set(drop)):
        reasons.append(Reason(code="not_engaged_after", message=f"{unit} would not end engaged with an enemy: no model moves", models=sorted(plan.moved)))
        plan = mv.start_plan()
        moved_into = set()
    # after any revert, the last token still may not be dropped without normal range
    if drop and out_of_combat(plan, drop):
        overridden += drop
        drop = []
    for t in overridden:
        then = f"so {t} piles in instead" if t in moved_into else f"so {t} keeps it"
        reasons.append(Reason(code="last_token_kept", message=f"{t} holds the unit's last token and no model is in normal engagement range: the token may not be dropped, {then}", models=[t]))
    doing = "piled in" if step == "pile_in" else "consolidated"
    token_codes: dict[str, str] = {}
    for t in tok:
        m = mv.by_id[t]
        if t in moved_into:
            token_codes[t] = "token_removed_legal"
            reasons.append(Reason(code="token_removed_legal", message=f"{t} moves to a normal legal position within 1\" of an enemy: its token is removed", models=[t]))
        elif t in drop:
            token_codes[t] = "token_dropped"
            reasons.append(Reason(code="token_dropped", message=f"{t} could pile in to a normal legal position but is held still: its token is removed", models=[t]))
        elif t in overridden:
            continue  # explained by last_token_kept
        elif t in unable:
            reasons.append(Reason(code="token_kept_wall", message=f"{t} is held still, and none of its normal legal positions keeps the unit coherent: it keeps its token", models=[t]))
        elif t in hold and t in can_legal:
            reasons.append(Reason(code="token_kept_still", message=f"{t} does not consolidate and keeps its token", models=[t]))
        elif t in must:
            reasons.append(Reason(code="token_kept_wall", message=f"no normal legal position of {t} keeps the unit coherent: it stays, keeps its token and counts as having {doing}", models=[t]))
        else:
            where = "as close as the wall allows" if any(mel.token_link(m, b) for b in mv.enemies) else "where it is"
            reasons.append(Reason(code="token_kept_wall", message=f"{t} cannot reach a normal legal position: it stays {where}, keeps its token and counts as having {doing}", models=[t]))
    moves: list[Move] = []
    for m in mv.models:
        if m.id not in plan.moved:
            continue
        p, zz = plan.pos[m.id], plan.z[m.id]
        keeps = m.id in mel.token and m.id not in moved_into and m.id not in drop
        moves.append(mv.record(m, p, zz, mv.contacts_at(mv.placed(m.id, plan), p, zz), keeps, plan.pose.get(m.id, 0)))
    # the new scenario: moves, tokens removed by moving or dropping, then the bookkeeping
    data = scenario_to_data(scen)
    new = {mo.id: mo.to for mo in moves}
    facing = {mo.id: mo.facing for mo in moves if mo.facing is not None}
    gone = set(moved_into) | set(drop)
    for ud in data["units"]:
        for md in ud["models"]:
            if md["id"] in new:
                md["at"] = list(new[md["id"]])
            if md["id"] in facing:
                md["facing"] = facing[md["id"]]  # a base that turned (settle_pivots.py)
            if md["id"] in gone:
                md["token"] = False
    after, more = token_refresh(data)
    reasons.extend(x for x in more if not (x.code == "token_removed_legal" and set(x.models) <= set(moved_into)))
    after_scen = scenario_from_data(after)
    assert isinstance(after_scen, Scenario40k)
    au = next(x for x in after_scen.units if x.id == unit)
    tokens_after = sorted(m.id for m in au.models if m.token)
    removed = {t: token_codes.get(t, "refresh") for t in tokens_before if t not in tokens_after}
    for x in more:
        for t in x.models:
            if t in removed and removed[t] == "refresh":
                removed[t] = x.code
    details["tokens"] = {"before": tokens_before, "after": tokens_after, "removed": removed}
    # moves keep the token state `after` gives them
    still = {m.id for uu in after_scen.units for m in uu.models if m.token}
    moves = [mo.model_copy(update={"token": mo.id in still}) for mo in moves]
    aw = build_world(after_scen)
    engaged_after = Melee(aw).engaged_units(unit)
    return ruling(True, True, moves, after, engaged_after)


def _plan_engaged(scen: Scenario40k, mv: Settle, plan: Plan, untoken: set[str]) -> bool:
    """Would the unit, where the plan puts it (and with ``untoken`` models no longer
    carrying tokens), be engaged with an enemy (normal range, token or barricade)?"""
    data = scenario_to_data(scen)
    for ud in data["units"]:
        for md in ud["models"]:
            if md["id"] in plan.moved:
                p = plan.pos[md["id"]]
                md["at"] = [float(p[0]), float(p[1]), plan.z[md["id"]]]
                if plan.pose.get(md["id"]):
                    md["facing"] = mv.placed(md["id"], plan).facing
            if md["id"] in untoken:
                md["token"] = False
    s = scenario_from_data(data)
    assert isinstance(s, Scenario40k)
    return bool(Melee(build_world(s)).links(mv.unit))


def pile_in(scen: Scenario40k | World | dict[str, Any], unit: str, keep: Iterable[str] | None = None) -> Ruling:
    """The unit's pile-in move (procedure ``pile_in``).

    ``keep``: models the player holds still. A token model held still that could have
    piled in to a normal legal position drops its token (``token_dropped``), unless it
    holds the unit's last token and no model is in normal engagement range
    (``last_token_kept``: it piles in instead). Default: every token model that can
    reach a normal legal position piles in and loses its token."""
    return _fight_move(scen, unit, "pile_in", keep)


def consolidate(scen: Scenario40k | World | dict[str, Any], unit: str, keep: Iterable[str] | None = None) -> Ruling:
    """The unit's consolidation move (procedure ``consolidate``).

    A token model that moves takes a normal legal position if it can, and loses its
    token there; a token model held still (``keep``) keeps its token."""
    return _fight_move(scen, unit, "consolidate", keep)


__all__ = [
    "ACROSS_REACH",
    "CHAIN_9",
    "FIGHT_MOVE",
    "Link",
    "Melee",
    "closest_points",
    "consolidate",
    "engaged_units",
    "pile_in",
    "refresh_tokens",
    "token_refresh",
    "who_fights",
]
