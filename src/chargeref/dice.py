"""Exact dice distributions (fractions, never samples) and seeded rolling.

A distribution is a ``dict[int, Fraction]`` from total to probability.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import product

D6 = range(1, 7)
Dist = dict[int, Fraction]


def nd6(n: int) -> Dist:
    """Distribution of the sum of n six-sided dice."""
    out: Dist = {}
    for faces in product(D6, repeat=n):
        s = sum(faces)
        out[s] = out.get(s, Fraction(0)) + Fraction(1, 6**n)
    return out


def success_probability(needed: int | None, modifier: int = 0, reroll: str = "none", n: int = 2) -> Fraction:
    """P(sum of n D6 + modifier >= needed) with the re-roll policy.

    * ``none``: no re-roll.
    * ``failed``: re-roll the whole roll when it fails (e.g. a Command Re-roll).
    * ``one_die``: when it fails, re-roll the lowest die (the best single-die choice).
    """
    if needed is None:
        return Fraction(0)
    p = Fraction(0)
    for faces in product(D6, repeat=n):
        w = Fraction(1, 6**n)
        total = sum(faces) + modifier
        if total >= needed:
            p += w
        elif reroll == "failed":
            p += w * success_probability(needed, modifier, "none", n)
        elif reroll == "one_die":
            keep = sum(faces) - min(faces)
            p += w * Fraction(sum(1 for d in D6 if keep + d + modifier >= needed), 6)
    return p


def table(modifier: int = 0, reroll: str = "none", n: int = 2) -> dict[int, Fraction]:
    """P(success) for every needed roll from n+modifier to 6n+modifier+1."""
    lo, hi = n + modifier, 6 * n + modifier
    return {t: success_probability(t, modifier, reroll, n) for t in range(lo, hi + 2)}


def roll_dice(rng: random.Random, n: int = 2) -> list[int]:
    return [rng.randint(1, 6) for _ in range(n)]


def apply_reroll(
    dice: Sequence[int], needed: int | None, modifier: int, reroll: str, rng: random.Random
) -> tuple[list[int], list[int] | None]:
    """Apply a re-roll policy to rolled dice; returns (final dice, original dice or None)."""
    dice = list(dice)
    if reroll == "none" or needed is None or sum(dice) + modifier >= needed:
        return dice, None
    if reroll == "failed":
        return roll_dice(rng, len(dice)), dice
    if reroll == "one_die":
        i = dice.index(min(dice))
        new = list(dice)
        new[i] = rng.randint(1, 6)
        return new, dice
    raise ValueError(f"unknown re-roll policy {reroll!r}")


def highest(dice: Sequence[int]) -> int:
    return max(dice)
