"""Hand-built 40k scenarios and rulings for the duty-search tests (no solver)."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from chargeref.ruling import Move, Needed, Roll, Ruling
from chargeref.scenario import Scenario40k, scenario_from_data

R32 = 16 / 25.4  # radius of a 32 mm base in inches


def model(mid: str, x: float, y: float) -> dict[str, Any]:
    return {"id": mid, "at": [x, y], "base": {"round": 32}}


def scenario(units: list[tuple[str, int, list[tuple[str, float, float]]]], edition: int = 10,
             board: float = 200.0) -> dict[str, Any]:
    return {
        "format": "chargeref/1", "system": "40k", "rules": {"edition": edition},
        "board": {"width": board, "depth": board},
        "units": [{"id": uid, "player": pl, "keywords": ["INFANTRY"], "models": [model(*m) for m in ms]}
                  for uid, pl, ms in units],
    }


def ruling(data: dict[str, Any], moves: dict[str, tuple[float, float]], total: int,
           targets: tuple[str, ...] = ("B",)) -> tuple[Scenario40k, Ruling]:
    """A successful charge of unit A: each listed model moves straight to its point."""
    before = scenario_from_data(copy.deepcopy(data))
    assert isinstance(before, Scenario40k)
    after = copy.deepcopy(data)
    where = {m["id"]: m for u in after["units"] for m in u["models"]}
    start = {m["id"]: m["at"] for u in data["units"] for m in u["models"]}
    mv = []
    for mid, to in moves.items():
        frm = list(start[mid])
        mv.append(Move.model_validate({"id": mid, "from": frm, "to": list(to), "distance": math.dist(frm, to),
                                       "path": [frm, list(to)]}))
        where[mid]["at"] = list(to)
    r = Ruling(system="40k", charger="A", targets=list(targets), eligible=True,
               needed=Needed(distance=None, roll=total), roll=Roll(dice=[6, total - 6] if total > 7 else [1, total - 1],
                                                                  modifier=0, total=total),
               success=True, procedure="normal", moves=mv, engaged=list(targets), details={}, after=after)
    return before, r


def polar(c: tuple[float, float], r: float, deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    return c[0] + r * math.cos(a), c[1] + r * math.sin(a)


def packing_case(alpha_deg: float, edition: int = 10) -> tuple[dict[str, Any], dict[str, tuple[float, float]], int]:
    """B1 at the centre; A2 and A3 in base contact with it at +-(60 - alpha) degrees;
    A1 comes from 25 degrees off the gap and stops 1" out, facing the gap. At alpha = 0 the one contact spot left for
    A1 (angle 0) touches A2 and A3 exactly (hexagonal packing); for alpha > 0 any
    contact spot overlaps one of them (by 2 R32 - 4 R32 sin(30 - alpha) at best)."""
    b = (100.0, 100.0)
    rho = 2 * R32
    phi = 60.0 - alpha_deg
    a2_end = polar(b, rho, phi)
    a3_end = polar(b, rho, -phi)
    a1_end = polar(b, rho + 1.0, 0.0)
    # A1 comes in from 25 degrees: the contact spot nearest its start overlaps A2
    a1_start = polar(b, rho + 5.0, 25.0)
    a2_start = polar(b, rho + 4.0, phi)
    a3_start = polar(b, rho + 4.0, -phi)
    data = scenario([("A", 1, [("A1", *a1_start), ("A2", *a2_start), ("A3", *a3_start)]),
                     ("B", 2, [("B1", *b)])], edition=edition)
    # a 6 reaches the gap (5.15") but not round B1 to its far side
    return data, {"A1": a1_end, "A2": a2_end, "A3": a3_end}, 6


def reach_case(extra: float, edition: int = 10) -> tuple[dict[str, Any], dict[str, tuple[float, float]], int]:
    """One model 6 + ``extra`` inches (straight, open ground) from base contact with
    B1, charging with a 6; it stops 1" out."""
    b = (100.0, 100.0)
    rho = 2 * R32
    start = polar(b, rho + 6.0 + extra, 30.0)
    end = polar(b, rho + 1.0, 30.0)
    data = scenario([("A", 1, [("A1", *start)]), ("B", 2, [("B1", *b)])], edition=edition)
    return data, {"A1": end}, 6


def transform(data: dict[str, Any], moves: dict[str, tuple[float, float]], deg: float, mirror: bool
              ) -> tuple[dict[str, Any], dict[str, tuple[float, float]]]:
    """The same case rotated by ``deg`` about the board centre (and mirrored in x first)."""
    c = np.array([data["board"]["width"] / 2, data["board"]["depth"] / 2])
    a = math.radians(deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    def f(p: Any) -> tuple[float, float]:
        v = np.asarray(p[:2], float) - c
        if mirror:
            v[0] = -v[0]
        q = rot @ v + c
        return float(q[0]), float(q[1])

    out = copy.deepcopy(data)
    for u in out["units"]:
        for m in u["models"]:
            m["at"] = list(f(m["at"]))
    return out, {k: f(v) for k, v in moves.items()}
