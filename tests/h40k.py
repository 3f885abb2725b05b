"""Shared 40k test helpers (imported by bare name: tests/ is on pytest's pythonpath)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

MM = 25.4


def r32() -> float:
    """Radius of a 32 mm base in inches."""
    return 16 / MM


def unit40k(uid: str, player: int, pts: list[tuple[float, ...]], base: Any = 32, kw: tuple[str, ...] = ("INFANTRY",),
            **extra: Any) -> dict[str, Any]:
    b = {"round": base} if isinstance(base, (int, float)) else base
    return {
        "id": uid,
        "player": player,
        "keywords": list(kw),
        "models": [{"id": f"{uid}{i + 1}", "at": list(p), "base": b} for i, p in enumerate(pts)],
        **extra,
    }


def scen40k(units: list[dict[str, Any]], terrain: list[dict[str, Any]] | None = None, rules: dict[str, Any] | None = None,
            board: tuple[float, float] = (44, 30)) -> dict[str, Any]:
    d: dict[str, Any] = {
        "format": "chargeref/1",
        "system": "40k",
        "board": {"width": board[0], "depth": board[1]},
        "units": units,
    }
    if terrain:
        d["terrain"] = terrain
    if rules:
        d["rules"] = rules
    return d


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


def turned_slot_scene(data: dict[str, Any], ang: float, mirror: bool, walls: list[tuple[float, float, float]],
                      facing: float | None) -> dict[str, Any]:
    """A slot scene (two walls along x = const either side of y = 15, the charge along +x
    through (30, 15)) turned by ``ang`` degrees onto a 100" board, (30, 15) going to
    (50, 50), mirrored across the slot's axis first. ``walls`` gives each wall's new
    (x, y0, y1) before the turn (cut short so going round is longer than any move);
    a model without a facing gets ``facing`` (None: it keeps none)."""
    import copy
    import math

    out = copy.deepcopy(data)
    out["board"] = {"width": 100, "depth": 100}
    c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))

    def pt(p: list[float]) -> list[float]:
        x, y = p[0] - 30.0, p[1] - 15.0
        if mirror:
            y = -y
        return [50 + c * x - s * y, 50 + s * x + c * y]

    for t, (x, y0, y1) in zip(out["terrain"], walls, strict=False):
        t["points"] = [pt([x, y0]), pt([x, y1])]
    for u in out["units"]:
        for m in u["models"]:
            m["at"] = pt(m["at"])
            f = m.get("facing", facing)
            if f is not None:
                m["facing"] = (-f if mirror else f) + ang
    return out
