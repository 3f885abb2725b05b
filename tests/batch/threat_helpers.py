"""Small 40k battlefields for the batch tests, and the closed forms they are checked on."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product
from typing import Any

from chargeref.scenario import scenario_from_data

#: radius of a 32 mm base in inches
R32 = 16 / 25.4


def model(mid: str, x: float, y: float, base: str = "32mm") -> dict[str, Any]:
    return {"id": mid, "at": [x, y], "base": base}


def unit(uid: str, player: int, models: list[dict[str, Any]], keywords: tuple[str, ...] = ("INFANTRY",)) -> dict[str, Any]:
    return {"id": uid, "player": player, "keywords": list(keywords), "models": models}


def scenario(units: list[dict[str, Any]], width: float = 20, depth: float = 20, terrain: list[dict[str, Any]] | None = None,
             charges: list[dict[str, Any]] | None = None) -> Any:
    data: dict[str, Any] = {"format": "chargeref/1", "system": "40k", "board": {"width": width, "depth": depth},
                            "units": units, "terrain": terrain or []}
    if charges:
        data["charges"] = charges
    return scenario_from_data(data)


def p_2d6_at_least(r: int) -> Fraction:
    """Closed form, by counting the 36 outcomes."""
    return Fraction(sum(1 for a, b in product(range(1, 7), repeat=2) if a + b >= r), 36)


def p_rerolled(r: int) -> Fraction:
    """Re-rolling a failed 2D6: p + (1 - p) p."""
    p = p_2d6_at_least(r)
    return p + (1 - p) * p


def one_on_one(gap: float, er: float = 1.0, charge_range: float = 12.0) -> Fraction:
    """A lone model charging a lone model ``gap`` away in the open (40k edition 10):
    no charge from within engagement range or beyond the charge range; otherwise the
    least roll is the gap minus engagement range, rounded up."""
    if gap <= er + 1e-9 or gap > charge_range + 1e-9:
        return Fraction(0)
    return p_2d6_at_least(math.ceil(gap - er - 1e-6))
