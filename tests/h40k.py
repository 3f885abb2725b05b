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
