"""Time the standard scenarios and print medians.

    python benchmarks/run.py [--repeat N] [--json]

Each 40k case times `needed` plus the full placement for a fixed roll (one
`charge` call). The T9A and Warmaster cases come from `bench_t9a.py` and
`bench_warmaster.py` (each exposes CASES: name -> callable). Targets live here, not
in the tests: every case should take under 100 ms median on one core.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

TARGET_MS = 100.0


def forty_k_cases():
    from scenarios import CASES

    from chargeref import ChargeRequest, find_system, scenario_from_data

    system = find_system("40k")
    out = {}
    for name, make in CASES.items():
        data, charger, targets, roll = make()
        scen = scenario_from_data(data)

        def run(scen=scen, charger=charger, targets=targets, roll=roll):
            r = system.charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), roll=roll))
            return r

        out[name] = run
    return out


def other_cases():
    out = {}
    for mod in ("bench_t9a", "bench_warmaster"):
        try:
            m = importlib.import_module(mod)
        except ImportError as exc:
            print(f"(skipping {mod}: {exc})", file=sys.stderr)
            continue
        out.update(m.CASES)
    return out


def many_models_40k(per_side: int = 2000, units: int = 10) -> dict:
    """A 40k table with ``per_side`` models a side (32 mm bases 1.5" apart, in
    ``units`` units each) and a ruin: the scenario ``check`` must answer in < 1 s."""
    us = []
    cols = 50
    per = per_side // units
    for side in (1, 2):
        for k in range(units):
            ms = []
            for i in range(per):
                idx = k * per + i
                y = 1.0 + 1.5 * (idx // cols) + (0.0 if side == 1 else 70.0)
                ms.append({"id": f"{'AB'[side - 1]}{k}_{i}", "at": [1.0 + 1.5 * (idx % cols), y], "base": "32mm"})
            us.append({"id": f"{'AB'[side - 1]}{k}", "player": side, "keywords": ["INFANTRY"], "models": ms})
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 80, "depth": 140},
            "terrain": [{"type": "ruin", "id": "R", "footprint": [[10, 63], [30, 63], [30, 68], [10, 68]],
                         "walls": [{"points": [[10, 65], [30, 65]]}]}], "units": us}


def check_cases():
    """`check` (the guarded loader, the contract, every geometric problem) on 2,000
    models a side, from the JSON text; target 1 s."""
    from chargeref import service

    text = json.dumps(many_models_40k()).encode()

    def run():
        return service.check(service.load_document(text))

    run.target_ms = 1000.0  # type: ignore[attr-defined]
    return {"check 40k 2000 v 2000 models": run}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default=None, help="substring of the case names to run")
    args = ap.parse_args()
    cases = {**forty_k_cases(), **other_cases(), **check_cases()}
    rows = []
    for name, fn in cases.items():
        if args.only and args.only not in name:
            continue
        result = fn()  # warm-up (imports, caches) and a sanity check
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1000)
        med = statistics.median(times)
        ok = getattr(result, "success", None) if not isinstance(result, dict) else result.get("ok")
        rows.append({"case": name, "median_ms": round(med, 1), "min_ms": round(min(times), 1), "success": ok,
                     "within_target": med <= getattr(fn, "target_ms", TARGET_MS)})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        w = max(len(r["case"]) for r in rows) if rows else 10
        print(f"{'case':<{w}}  median ms   min ms  result  target {TARGET_MS:g} ms")
        for r in rows:
            flag = "ok" if r["within_target"] else "SLOW"
            print(f"{r['case']:<{w}}  {r['median_ms']:>9.1f}  {r['min_ms']:>7.1f}  {str(r['success']):>6}  {flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
