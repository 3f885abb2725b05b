"""Small helpers shared by the Warmaster tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chargeref import load_scenario, scenario_from_data
from chargeref.ruling import Ruling
from chargeref.scenario import ScenarioWarmaster
from chargeref.systems import ChargeRequest, find_system
from chargeref.testing import assert_legal_charge

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "warmaster"
SYSTEM = find_system("warmaster")


def example(name: str) -> ScenarioWarmaster:
    scen = load_scenario(EXAMPLES / name)
    assert isinstance(scen, ScenarioWarmaster)
    return scen


def scen(data: dict[str, Any]) -> ScenarioWarmaster:
    s = scenario_from_data({"format": "chargeref/1", "system": "warmaster", "board": {"width": 120, "depth": 80},
                            **data})
    assert isinstance(s, ScenarioWarmaster)
    return s


def charge(s: ScenarioWarmaster, charger: str, target: str, legal: bool = True, **extra: Any) -> Ruling:
    req = ChargeRequest(charger=charger, targets=(target,), seed=extra.pop("seed", 1),
                        dice=extra.pop("dice", None), extra=extra)
    r = SYSTEM.charge(s, req)
    if legal:
        assert_legal_charge(s, r)
    return r


def moved(r: Ruling) -> dict[str, tuple[float, float, float]]:
    """stand id -> (x, y, facing) after the charge, rounded to 1e-6."""
    return {m.id: (round(m.to[0], 6), round(m.to[1], 6), round((m.facing or 0.0) % 360, 6)) for m in r.moves}


def codes(r: Ruling) -> list[str]:
    return [x.code for x in r.reasons]


def infantry_line(uid: str, player: int, xs: list[float], y: float, facing: float, **kw: Any) -> dict[str, Any]:
    return {"id": uid, "player": player, "type": "infantry",
            "stands": [{"at": [x, y], "facing": facing} for x in xs], **kw}


def stands(uid: str, player: int, kind: str, pts: list[tuple[float, float]], facing: float, **kw: Any
           ) -> dict[str, Any]:
    return {"id": uid, "player": player, "type": kind,
            "stands": [{"at": [x, y], "facing": facing} for x, y in pts], **kw}


__all__ = ["EXAMPLES", "SYSTEM", "charge", "codes", "example", "infantry_line", "moved", "scen", "stands",
           "scenario_from_data"]
