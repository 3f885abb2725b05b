"""Small builders for T9A test scenarios (inches, 20 x 20 mm bases by default)."""

from __future__ import annotations

from typing import Any

from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system

SYSTEM = find_system("t9a")
MM = 25.4
#: one 20 mm base in inches
B20 = 20 / MM


def unit(uid: str, player: int, front: tuple[float, float], facing: float, files: int, models: int,
         base: tuple[float, float] = (20, 20), **kw: Any) -> dict[str, Any]:
    u: dict[str, Any] = {"id": uid, "player": player,
                         "formation": {"front": list(front), "facing": facing, "files": files, "models": models,
                                       "base": {"rect": list(base)}}}
    u.update(kw)
    return u


def round_unit(uid: str, player: int, front: tuple[float, float], facing: float, d: float = 50, **kw: Any) -> dict[str, Any]:
    u: dict[str, Any] = {"id": uid, "player": player,
                         "formation": {"front": list(front), "facing": facing, "files": 1, "models": 1,
                                       "base": {"round": d}}}
    u.update(kw)
    return u


def impassable(tid: str, pts: list[tuple[float, float]]) -> dict[str, Any]:
    return {"type": "impassable", "id": tid, "polygon": [list(p) for p in pts]}


def scen(units: list[dict[str, Any]], terrain: list[dict[str, Any]] | None = None, board: tuple[float, float] = (48, 48),
         **kw: Any) -> Any:
    data: dict[str, Any] = {"format": "chargeref/1", "system": "t9a", "board": {"width": board[0], "depth": board[1]},
                            "units": units, "terrain": terrain or []}
    data.update(kw)
    return scenario_from_data(data)


def charge(s: Any, charger: str, target: str, dice: tuple[int, ...] | None = (6, 6), **kw: Any) -> Any:
    return SYSTEM.charge(s, ChargeRequest(charger, (target,), dice=dice, **kw))


def reach_fleeing_seen(world: Any, A: Any, E: Any, budget: float) -> tuple[Any, Any]:
    """``moves.reach_fleeing(world, A, E, budget)`` and the search it handed to
    ``moves.best_forward`` (the forward candidates' test), caught on the way."""
    from chargeref.systems.t9a import moves

    seen: dict[str, Any] = {}
    orig = moves.best_forward

    def spy(cands: Any, search: Any, bound: Any) -> Any:
        seen["search"] = search
        return orig(cands, search, bound)

    moves.best_forward = spy
    try:
        r = moves.reach_fleeing(world, A, E, budget)
    finally:
        moves.best_forward = orig
    return r, seen.get("search")
