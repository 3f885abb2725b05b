"""The 9th Age benchmark cases (timed by benchmarks/run.py; target < 100 ms median).

* ``t9a_block20_vs_block25_angled``: a 20-model block (5 x 4) charges a 25-model block
  (5 x 5) from 30 degrees off its front;
* ``t9a_combined_three``: three units charge one enemy unit in the same phase.
"""

from __future__ import annotations

from collections.abc import Callable

from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system

SYSTEM = find_system("t9a")


def _unit(uid: str, player: int, front: tuple[float, float], facing: float, files: int, models: int,
          base: tuple[float, float] = (20, 20)) -> dict[str, object]:
    return {"id": uid, "player": player,
            "formation": {"front": list(front), "facing": facing, "files": files, "models": models,
                          "base": {"rect": list(base)}}}


ANGLED = scenario_from_data({
    "format": "chargeref/1", "system": "t9a", "board": {"width": 48, "depth": 48},
    "units": [_unit("T", 2, (24, 20), 90, 5, 25), _unit("A", 1, (21, 28), 300, 5, 20)],
})

COMBINED = scenario_from_data({
    "format": "chargeref/1", "system": "t9a", "board": {"width": 48, "depth": 48},
    "units": [
        _unit("T", 2, (24, 20), 90, 8, 24),
        _unit("A", 1, (19.5, 26), 285, 3, 9),
        _unit("B", 1, (24.5, 27), 270, 3, 9),
        _unit("C", 1, (30.5, 24), 240, 3, 9),
    ],
    "charges": [{"charger": c, "targets": ["T"], "dice": [4, 5]} for c in "ABC"],
})


def block20_vs_block25_angled() -> object:
    return SYSTEM.charge(ANGLED, ChargeRequest("A", ("T",), dice=(4, 5)))


def combined_three() -> object:
    return SYSTEM.phase(COMBINED, 1)


#: the scenario each single charge is made on (benchmarks/run.py validates its end state)
block20_vs_block25_angled.before = ANGLED  # type: ignore[attr-defined]

CASES: dict[str, Callable[[], object]] = {
    "t9a_block20_vs_block25_angled": block20_vs_block25_angled,
    "t9a_combined_three": combined_three,
}

if __name__ == "__main__":
    import statistics
    import time

    for name, fn in CASES.items():
        fn()
        ts = []
        for _ in range(7):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        print(f"{name}: median {statistics.median(ts) * 1000:.1f} ms")
