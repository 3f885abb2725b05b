"""Round 6 (oval distances): a 40k pile-in of five models on 60x35 mm oval bases, 3.2"
or more from an enemy unit of round bases (no base contact possible), CPU seconds.

    PYTHONPATH=src python benchmarks/oval_pile_in.py
"""

from __future__ import annotations

import time
from typing import Any

from chargeref.scenario import scenario_from_data
from chargeref.systems.w40k.fight import pile_in


def scene() -> dict[str, Any]:
    mine = [{"id": f"A{i + 1}", "at": [10 + 2.6 * i, 10], "base": {"oval": [60, 35]}, "facing": 0} for i in range(5)]
    theirs = [{"id": f"B{i + 1}", "at": [10.5 + 1.5 * i, 10 + 0.69 + 0.63 + 3.2 + 0.4 * (i % 2)], "base": {"round": 32}}
              for i in range(5)]
    return {"format": "chargeref/1", "system": "40k", "unit": "in", "board": {"width": 44, "depth": 30},
            "rules": {"edition": 10},
            "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "flags": ["charged"], "models": mine},
                      {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": theirs}]}


def main() -> None:
    scen = scenario_from_data(scene())
    t = time.process_time()
    r = pile_in(scen, "A")
    print(f"pile-in of 5 ovals: {time.process_time() - t:.2f} s CPU, success={r.success}, "
          f"moves={[round(m.distance, 6) for m in r.moves]}")


if __name__ == "__main__":
    main()
