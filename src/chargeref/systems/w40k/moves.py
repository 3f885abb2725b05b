"""The rules of one 40k move, as data the placement engine consults.

Every move that places models (the charge, pile-in, consolidation, edition 9's heroic
intervention) is one search with different constraints (issue 9): how far each model may
go, what it must end closer to, which enemy units it wants to engage and which it may not
come near, the edition's coherency, and who is held still. The builders below turn a
battlefield and a move into a :class:`MoveRules`; the engine (``solver.ChargeProblem`` for
its candidate spots, spot legality, path costs and exact paths, with the charge's search;
``settle.Settle`` for the moves that improve each model in turn) reads only these fields
and the edition for the rest.

What may be crossed on the way is the edition's table (rules-notes 1.7: enemies never,
friends in editions 10 and 11 except a MONSTER or VEHICLE through a friendly MONSTER or
VEHICLE, FLY over models), applied by ``World.barriers_for`` for every move alike: the
engine builds its path planner from it, with the zones of ``forbid`` added as barriers
when ``forbid_on_path``.

This module imports only the world model: no import of the solvers, the system or the
fight phase, so any of them may build rules without a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ...geometry.shapes import TOL
from .solver_base import sd_many
from .world import World

#: the kinds of move the engine places
KINDS = ("charge", "failed_charge", "pile_in", "consolidate", "heroic")

#: pile-in, consolidation and edition 9's heroic intervention: each model's move, inches
FIGHT_MOVE = 3.0
HEROIC_MOVE = 3.0


@dataclass(frozen=True)
class MoveRules:
    """The constraints of one unit's move (lengths in scenario units).

    ``budget``: the longest path (climbing and counted height included) any model of the
    unit may take. ``engage``: the enemy units the move is made toward (a charge's
    targets; every enemy unit for the fight-phase moves); base contact and engagement
    are judged against their models (the model-by-model moves list the enemy units
    within reach: the move plus the engagement range). ``engage_all``: the move only succeeds if every
    unit of ``engage`` ends engaged (the charge). ``forbid``: enemy units whose
    engagement range no model may end in, and, with ``forbid_on_path``, no point of a
    path may enter. ``closer``: "none", "target_unit" (a charging model ends closer to a
    target unit than it started) or "closest_model" (a model that moves ends closer to
    one of the enemy models of ``closer_to[model]``, those closest to it at the start;
    ``closer_vertical``: the distance counts the height difference as well).
    ``contact_first``: among legal ends a model takes base contact with an enemy model
    where it can, then engagement range, then the closest spot. ``end_engaged``: the
    unit's move is only made if the unit then stands engaged with an enemy.
    ``two_neighbours``: every model needs two coherency neighbours (the edition's unit
    size rule). ``keep``: models the player holds still. ``may_stay``: a model may end
    where it started (a fight-phase or heroic move is made model by model)."""

    kind: str
    budget: float
    engage: tuple[str, ...]
    engage_all: bool
    forbid: tuple[str, ...] = ()
    forbid_on_path: bool = False
    closer: str = "none"
    closer_to: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    closer_vertical: bool = True
    contact_first: bool = True
    end_engaged: bool = False
    two_neighbours: bool = False
    keep: frozenset[str] = frozenset()
    may_stay: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown move kind {self.kind!r}")
        if self.closer not in ("none", "target_unit", "closest_model"):
            raise ValueError(f"unknown closer duty {self.closer!r}")


def closest_enemy_models(world: World, unit: str, vertical: bool = True) -> tuple[dict[str, tuple[str, ...]], dict[str, float]]:
    """For each model of ``unit``: the enemy models closest to it where it stands (ties
    within the contract tolerance all count) and that distance (the base-to-base gap,
    with the height difference when ``vertical``). Exact: closed forms for discs, the
    support-function solve otherwise."""
    p = world.unit_player[unit]
    foes = [m for m in world.models if m.player != p]
    refs: dict[str, tuple[str, ...]] = {}
    d0: dict[str, float] = {}
    for m in world.unit_models[unit]:
        if not foes:
            refs[m.id], d0[m.id] = (), float("inf")
            continue
        ds = [gap3(m.fp, m.xy[None], m.z, e, vertical)[0] for e in foes]
        best = min(ds)
        refs[m.id] = tuple(e.id for e, d in zip(foes, ds, strict=True) if d <= best + TOL)
        d0[m.id] = best
    return refs, d0


def gap3(fp, pts: np.ndarray, z: float | np.ndarray, e, vertical: bool = True) -> np.ndarray:  # noqa: ANN001
    """Distance from the base ``fp`` re-centred at each point (at height ``z``) to the
    model ``e``: the horizontal gap (0 when touching), combined with the height
    difference when ``vertical``."""
    h = np.maximum(sd_many(fp, pts, e.fp), 0.0)
    if not vertical:
        return h
    return np.hypot(h, np.asarray(z, dtype=float) - e.z)


def units_within(world: World, unit: str, reach: float) -> tuple[str, ...]:
    """Enemy units with a model whose base is within ``reach`` (horizontally) of a model
    of ``unit``: the only ones a move of at most ``reach`` minus the engagement range
    can touch or engage. Exact gaps (closed forms for discs)."""
    mine = world.unit_models[unit]
    out = []
    for u in world.enemies_of(unit):
        near = False
        for e in world.unit_models[u]:
            for m in mine:
                if float(np.linalg.norm(e.xy - m.xy)) - e.fp.radius - m.fp.radius > reach + TOL:
                    continue
                if float(sd_many(m.fp, m.xy[None], e.fp)[0]) <= reach + TOL:
                    near = True
                    break
            if near:
                break
        if near:
            out.append(u)
    return tuple(out)


def charge_rules(world: World, unit: str, targets: Iterable[str], cap: float, enforce_closer: bool | None = None) -> MoveRules:
    """A charge: every model within the roll ``cap``; every target ends engaged; no end
    (and in editions 9 and 10 no point of a path) within engagement range of an enemy
    unit that is not a target; the closer duty of the edition (10, 11, or 9 with the WTC
    procedure) unless ``enforce_closer`` says otherwise."""
    r = world.rules
    targets = tuple(targets)
    closer = (r.ed.closer_duty or r.wtc) if enforce_closer is None else enforce_closer
    return MoveRules(
        kind="charge",
        budget=cap,
        engage=targets,
        engage_all=True,
        forbid=tuple(u for u in world.enemies_of(unit) if u not in targets),
        forbid_on_path=r.ed.non_target_er_on_path,
        closer="target_unit" if closer else "none",
        contact_first=True,
        two_neighbours=r.needs_two(len(world.unit_models[unit])),
    )


def failed_charge_rules(world: World, unit: str, targets: Iterable[str], roll: float) -> MoveRules:
    """Edition 9's failed charge (seed 002, the ``failed_charge_moves`` option): each
    model may still move up to the roll, a model that moves ends closer (horizontally)
    to a target model, the unit ends coherent, and no model ends (nor, where the edition
    forbids it, passes) within engagement range of any enemy unit. Stricter than the rule
    in one respect, stated in docs/40k.md: with several targets a model gets closer to the
    nearest target model, and the path keeps out of the targets' engagement range too."""
    r = world.rules
    targets = tuple(targets)
    refs = tuple(m.id for t in targets for m in world.unit_models[t])
    return MoveRules(
        kind="failed_charge",
        budget=roll,
        engage=(),
        engage_all=False,
        forbid=tuple(world.enemies_of(unit)),
        forbid_on_path=r.ed.non_target_er_on_path,
        closer="closest_model",
        closer_to={m.id: refs for m in world.unit_models[unit]},
        closer_vertical=False,
        contact_first=False,
        two_neighbours=r.needs_two(len(world.unit_models[unit])),
        may_stay=True,
    )


def fight_rules(world: World, unit: str, step: str, keep: Iterable[str] = ()) -> MoveRules:
    """Pile-in or consolidation: each model up to the edition's 3"; a model that moves
    ends closer (with the height difference) to an enemy model that was closest to it;
    base contact first where it can; no enemy unit is out of bounds (the fight is among
    them); editions 10 and 11 make the move only if the unit ends engaged."""
    r = world.rules
    refs, _ = closest_enemy_models(world, unit, vertical=True)
    move = r.ed.pile_in * r.inch
    return MoveRules(
        kind=step,
        budget=move,
        engage=units_within(world, unit, move + r.er),
        engage_all=False,
        closer="closest_model",
        closer_to=refs,
        closer_vertical=True,
        contact_first=True,
        end_engaged=r.edition in (10, 11),
        two_neighbours=r.needs_two(len(world.unit_models[unit])),
        keep=frozenset(keep),
        may_stay=True,
    )


def heroic_rules(world: World, unit: str) -> MoveRules:
    """Edition 9's heroic intervention: each model up to 3"; a model that moves ends
    closer (horizontally, as rules-notes 1.10 measures it) to the enemy model that was
    closest to it; the unit ends coherent. It is not a charge: no unit is out of bounds
    and nothing needs to end engaged."""
    r = world.rules
    refs, _ = closest_enemy_models(world, unit, vertical=False)
    return MoveRules(
        kind="heroic",
        budget=HEROIC_MOVE * r.inch,
        engage=units_within(world, unit, HEROIC_MOVE * r.inch + r.er),
        engage_all=False,
        closer="closest_model",
        closer_to=refs,
        closer_vertical=False,
        contact_first=True,
        two_neighbours=r.needs_two(len(world.unit_models[unit])),
        may_stay=True,
    )


__all__ = [
    "FIGHT_MOVE",
    "HEROIC_MOVE",
    "MoveRules",
    "charge_rules",
    "closest_enemy_models",
    "failed_charge_rules",
    "fight_rules",
    "gap3",
    "heroic_rules",
    "units_within",
]
