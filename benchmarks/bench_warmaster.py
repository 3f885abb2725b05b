"""Warmaster benchmark cases: one charge on each seed-004 diagram scenario, the same
situations under Revolution, and a crowded battlefield.

``CASES`` maps a name to a callable that runs one standard charge once (the scenario
is loaded beforehand, so only the ruling is timed). ``benchmarks/run.py`` times them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data
from chargeref.scenario import scenario_to_data

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "warmaster"
SYSTEM = find_system("warmaster")


def _case(scen: object, charger: str, target: str) -> Callable[[], object]:
    req = ChargeRequest(charger=charger, targets=(target,), dice=(2,))

    def run() -> object:
        return SYSTEM.charge(scen, req)

    run.before = scen  # type: ignore[attr-defined]  # validated by benchmarks/run.py

    return run


def _crowded() -> object:
    """Two 4-stand infantry lines and a cavalry brigade with bystanders and rocks."""
    units = [
        {"id": "T", "player": 2, "type": "infantry",
         "stands": [{"at": [50 + 4 * i, 60], "facing": 270} for i in range(4)]},
        {"id": "U", "player": 2, "type": "infantry",
         "stands": [{"at": [66 + 4 * i, 60], "facing": 270} for i in range(4)]},
        {"id": "V", "player": 2, "type": "cavalry",
         "stands": [{"at": [40 + 2 * i, 58], "facing": 270} for i in range(3)]},
        {"id": "F", "player": 1, "type": "infantry",
         "stands": [{"at": [45 + 4 * i, 44], "facing": 90} for i in range(3)]},
        {"id": "C", "player": 1, "type": "cavalry",
         "stands": [{"at": [62 + 2 * i, 34 + 0.5 * i], "facing": 90} for i in range(4)]},
    ]
    terrain = [{"id": "rock", "type": "impassable", "polygon": [[70, 46], [74, 46], [74, 50], [70, 50]]},
               {"id": "wood", "type": "ruin", "footprint": [[30, 30], [38, 30], [38, 40], [30, 40]]}]
    return scenario_from_data({"format": "chargeref/1", "system": "warmaster", "board": {"width": 120, "depth": 80},
                               "units": units, "terrain": terrain})


def _revolution(name: str) -> object:
    data = scenario_to_data(load_scenario(EXAMPLES / name))
    data["rules"] = {"variant": "revolution"}
    return scenario_from_data(data)


def _cases() -> dict[str, Callable[[], object]]:
    out: dict[str, Callable[[], object]] = {}
    for path in sorted(EXAMPLES.glob("diagram_*.yaml")):
        scen = load_scenario(path)
        c = scen.charges[0]
        out[f"warmaster_{path.stem}"] = _case(scen, c.charger, c.targets[0])
    out["warmaster_revolution_33_4"] = _case(_revolution("diagram_33_4.yaml"), "C", "E")
    out["warmaster_revolution_34_1"] = _case(_revolution("diagram_34_1.yaml"), "C", "T")
    out["warmaster_crowded"] = _case(_crowded(), "C", "T")
    return out


CASES: dict[str, Callable[[], object]] = _cases()
