"""The numbers and the manoeuvres of a rank-and-file ruleset, as parameters.

Today's only preset is ``T9A_2X`` (The 9th Age: Fantasy Battles 2nd edition). The
block geometry (units as rigid blocks, facings, arcs, flush contact) is shared by
the rank-and-file games; what differs between them is here: how the charge range is
rolled, what it adds to, and which manoeuvres a charge move may use. docs/t9a.md says
how a T9A 3rd edition or The Old World preset would plug in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...geometry.shapes import TOL


@dataclass(frozen=True)
class T9ARuleset:
    #: the name shown wherever the ruleset is (rulings' details, docs)
    name: str
    #: dice rolled for the charge range, and with the SWIFTSTRIDE keyword
    dice: int = 2
    swiftstride_dice: int = 3
    #: how many of the highest dice count
    keep: int = 2
    #: the charge range adds the unit's Advance Rate to the kept dice
    adds_advance: bool = True
    #: a charge move is forward moves with at most ``wheels`` wheels of at most
    #: ``max_wheel`` degrees each, then a free align move about the contact point
    wheels: int = 1
    max_wheel: float = 90.0
    manoeuvres: tuple[str, ...] = ("forward", "wheel", "align")

    def dice_count(self, keywords: frozenset[str] | set[str]) -> int:
        return self.swiftstride_dice if "SWIFTSTRIDE" in keywords else self.dice

    def kept_total(self, dice: list[int]) -> int:
        return sum(sorted(dice, reverse=True)[: self.keep])

    @property
    def max_total(self) -> int:
        return 6 * self.keep

    def charge_range(self, total: int, advance: float, inch: float) -> float:
        """The distance a charge of this roll total may cover (scenario units)."""
        return total * inch + (advance if self.adds_advance else 0.0)

    def longest_range(self, advance: float, modifier: int, inch: float) -> float:
        """The longest charge range any roll can give (a charge beyond it is not
        declared)."""
        return self.charge_range(self.max_total + max(0, modifier), advance, inch)

    def least_roll(self, distance: float, advance: float, inch: float) -> int:
        """The least roll total whose charge range covers ``distance`` (the ceiling;
        a distance exactly on a whole number of inches needs that number)."""
        base = advance if self.adds_advance else 0.0
        return math.ceil((distance - base) / inch - 1e-9 - TOL / inch)


#: The 9th Age: Fantasy Battles, 2nd edition (2.x): Advance Rate + 2D6 (3D6, highest
#: two, with Swiftstride), one wheel of at most 90 degrees, a free align move.
T9A_2X = T9ARuleset(name="T9A 2.x")
