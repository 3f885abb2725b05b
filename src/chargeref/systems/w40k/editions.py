"""The 40k editions as data: every number and switch that differs between editions.

This module is the one place where an edition's choices live, so that a correction
(rules-notes marks some edition-11 rows UNVERIFIED) is a one-line change. It holds data
only and imports nothing from the solvers, so the independent validator may read the
same facts without sharing any logic with them. Lengths are inches.

Sources: seed 002 (edition 9 as played with it), seed 000 and rules-notes §1.1 (edition
10 and the WTC procedure), rules-notes §1.13 (edition 11, June 2026).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edition:
    number: int
    #: engagement range, horizontal and vertical
    er: float
    er_vertical: float
    #: coherency link, horizontal and vertical
    coherency: float
    coherency_vertical: float
    #: unit size from which every model needs two coherency neighbours (None: never)
    two_neighbours_from: int | None
    #: every model within this distance of every other model of its unit (None: no such rule)
    max_spread: float | None
    #: terrain up to this height is moved over freely; taller terrain is climbed
    climb_free: float
    #: a charge may target an enemy unit within this distance
    charge_range: float
    #: targets are picked after the roll, each within the rolled distance (edition 11)
    targets_after_roll: bool
    #: each charging model must end closer to a target (editions 10 and 11; 9 with WTC)
    closer_duty: bool
    #: each charging model must end in base contact with a target if it can (10)
    base_contact_duty: bool
    #: each charging model must end within 1" of a target if it can (11)
    within_one_duty: bool
    #: no point of a charging model's path may come within engagement range of an enemy
    #: unit that is not a target (9 and 10); in 11 only the end counts
    non_target_er_on_path: bool
    #: models may move through friendly models (10, 11); never through enemies
    friends_passable: bool
    #: a MONSTER or VEHICLE may not move through a friendly MONSTER or VEHICLE (10, 11)
    big_blocks_big: bool
    #: FLY in a charge: "over_models" (9, 10: pass over models, not terrain) or "skies"
    #: (11: pass over models and terrain, vertical distance ignored, 2" off the move)
    fly: str
    fly_penalty: float
    #: fighting across a barricade at 2" (the 9th Defence Line and 10th barricades)
    barricade_two_inch: bool
    #: overwatch is part of the charge phase (9: at declaration; 10: at the move)
    overwatch_in_charge: bool
    #: heroic intervention: "move" (9: 3" move), "charge6" (10: stratagem charge of a unit
    #: within 6"), "charge12" (11: stratagem charge, Leap to Defend / Into the Fray)
    heroic: str
    heroic_range: float
    #: pile-in and consolidation distance
    pile_in: float
    #: the WTC procedure and walls rule apply unless the scenario says otherwise
    wtc_default: bool
    #: rows taken from memory or a digest and still to be confirmed at the source
    unverified: tuple[str, ...] = ()
    #: edition 11 heroic intervention stratagems: the command points of Leap to Defend,
    #: the points Into the Fray adds, Into the Fray's reach and the most its roll counts
    heroic_cp: int | None = None
    into_the_fray_extra_cp: int | None = None
    into_the_fray_range: float | None = None
    into_the_fray_cap: int | None = None

    def needs_two(self, n_models: int) -> bool:
        return self.two_neighbours_from is not None and n_models >= self.two_neighbours_from


EDITIONS: dict[int, Edition] = {
    9: Edition(
        number=9, er=1.0, er_vertical=5.0, coherency=2.0, coherency_vertical=5.0,
        two_neighbours_from=6, max_spread=None, climb_free=1.0, charge_range=12.0,
        targets_after_roll=False, closer_duty=False, base_contact_duty=False,
        within_one_duty=False, non_target_er_on_path=True, friends_passable=False,
        big_blocks_big=False, fly="over_models", fly_penalty=0.0, barricade_two_inch=True,
        overwatch_in_charge=True, heroic="move", heroic_range=3.0, pile_in=3.0,
        wtc_default=False,
    ),
    10: Edition(
        number=10, er=1.0, er_vertical=5.0, coherency=2.0, coherency_vertical=5.0,
        two_neighbours_from=7, max_spread=None, climb_free=2.0, charge_range=12.0,
        targets_after_roll=False, closer_duty=True, base_contact_duty=True,
        within_one_duty=False, non_target_er_on_path=True, friends_passable=True,
        big_blocks_big=True, fly="over_models", fly_penalty=0.0, barricade_two_inch=True,
        overwatch_in_charge=True, heroic="charge6", heroic_range=6.0, pile_in=3.0,
        wtc_default=True,
    ),
    11: Edition(
        number=11, er=2.0, er_vertical=5.0, coherency=2.0, coherency_vertical=5.0,
        two_neighbours_from=None, max_spread=9.0, climb_free=2.0, charge_range=12.0,
        targets_after_roll=True, closer_duty=True, base_contact_duty=False,
        within_one_duty=True, non_target_er_on_path=False, friends_passable=True,
        big_blocks_big=True, fly="skies", fly_penalty=2.0, barricade_two_inch=False,
        overwatch_in_charge=False, heroic="charge12", heroic_range=12.0, pile_in=3.0,
        wtc_default=False,
        # rules-notes §1.13 marks these as still to be checked against the core rules
        unverified=("pile_in",),
        heroic_cp=1, into_the_fray_extra_cp=1, into_the_fray_range=6.0, into_the_fray_cap=6,
    ),
}


def edition(number: int) -> Edition:
    return EDITIONS[number]
