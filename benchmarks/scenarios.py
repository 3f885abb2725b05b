"""Standard 40k benchmark scenarios (built in code so they scale cleanly)."""

from __future__ import annotations

import math
from typing import Any


def _unit(uid: str, player: int, pts: list[tuple[float, float]], base: Any = 32, kw: tuple[str, ...] = ("INFANTRY",)) -> dict[str, Any]:
    b = {"round": base} if isinstance(base, (int, float)) else base
    return {"id": uid, "player": player, "keywords": list(kw),
            "models": [{"id": f"{uid}{i + 1}", "at": [round(x, 4), round(y, 4)], "base": b} for i, (x, y) in enumerate(pts)]}


def block(x0: float, y0: float, n: int, per_row: int, dx: float = 1.5, dy: float = 1.5) -> list[tuple[float, float]]:
    return [(x0 + (i % per_row) * dx, y0 + (i // per_row) * dy) for i in range(n)]


def scen(units: list[dict[str, Any]], terrain: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "units": units, "terrain": terrain or []}


def open_10v10() -> tuple[dict[str, Any], str, list[str], int]:
    return scen([_unit("A", 1, block(22, 10, 10, 5)), _unit("B", 2, block(22.5, 19.5, 10, 5))]), "A", ["B"], 9


def walls_20_into_two() -> tuple[dict[str, Any], str, list[str], int]:
    walls = []
    for i in range(8):
        x = 8 + (i % 4) * 12
        y = 20 if i < 4 else 27
        walls.append({"points": [[x, y], [x + 4, y]], "height": 4, "thickness": 0.2})
    terrain = [{"type": "ruin", "id": "R", "footprint": [[6, 18], [56, 18], [56, 30], [6, 30]], "walls": walls}]
    units = [_unit("A", 1, block(16, 8, 20, 10)), _unit("B", 2, block(14, 22.5, 5, 5)), _unit("C", 2, block(26, 22.5, 5, 5))]
    return scen(units, terrain), "A", ["B", "C"], 12


def unit_of_30() -> tuple[dict[str, Any], str, list[str], int]:
    return scen([_unit("A", 1, block(15, 8, 30, 10, 1.4, 1.4)), _unit("B", 2, block(17, 19, 10, 10, 1.5, 1.5))]), "A", ["B"], 10


def oval_target() -> tuple[dict[str, Any], str, list[str], int]:
    big = {"oval": [170, 109]}
    u = _unit("M", 2, [(30, 22)], big, ("MONSTER",))
    u["models"][0]["facing"] = 30
    return scen([_unit("A", 1, block(25, 10, 5, 5)), u]), "A", ["M"], 8


CASES = {
    "40k open 10 vs 10": open_10v10,
    "40k 20 into two among 8 walls": walls_20_into_two,
    "40k 30-model unit": unit_of_30,
    "40k oval target": oval_target,
}


def _unused() -> float:
    return math.pi
