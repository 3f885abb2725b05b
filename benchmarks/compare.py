"""Two checkouts side by side: the 40k standard rulings timed in one run, alternating
between a process on each checkout's ``src`` (so both see the same load), and the two
rulings compared field by field.

    python benchmarks/run.py --section compare --against /path/to/other/checkout/src

Each process keeps its rulings warm (imports, first run) and then, case by case and in
turn, times one ``charge`` and ten validator passes on that end state, on CPU time
(``time.process_time``: on a shared machine the wall clock also counts other people's
work). The table gives the median and the least of the runs for each side, their ratio,
and whether the two rulings are identical (the whole ruling as JSON).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _worker(src: str) -> None:
    """Serve timing requests on stdin: a case name, answered with 'charge_ms validator_ms'."""
    sys.path.insert(0, src)
    sys.path.insert(0, str(HERE))
    import run  # noqa: PLC0415

    import chargeref.validate.w40k  # noqa: F401, PLC0415  (import order of the validator package)
    from chargeref.validate import validate_ruling  # noqa: PLC0415

    cases = {c.name: c for c in run.forty_k_cases()}
    last = {name: c.run() for name, c in cases.items()}
    for name, c in cases.items():
        validate_ruling(c.before, last[name])
    print(json.dumps({name: r.model_dump(mode="json") for name, r in last.items()}, sort_keys=True, default=str), flush=True)
    for line in sys.stdin:
        name = line.strip()
        c = cases[name]
        t = time.process_time()
        r = c.run()
        t_charge = (time.process_time() - t) * 1e3
        t = time.process_time()
        for _ in range(10):
            validate_ruling(c.before, r)
        t_val = (time.process_time() - t) * 1e2
        print(f"{t_charge:.4f} {t_val:.4f}", flush=True)


def compare_table(against: str, repeat: int) -> list[dict[str, Any]]:
    mine = str(HERE.parent / "src")
    sides = {"before": against, "after": mine}
    procs = {
        k: subprocess.Popen([sys.executable, str(Path(__file__)), "--worker", v], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
        for k, v in sides.items()
    }
    try:
        rulings = {k: json.loads(p.stdout.readline()) for k, p in procs.items()}  # type: ignore[union-attr]
        names = list(rulings["after"])
        times: dict[tuple[str, str], list[tuple[float, float]]] = {(k, n): [] for k in procs for n in names}
        for _ in range(repeat):
            for n in names:
                for k, p in procs.items():
                    p.stdin.write(n + "\n")  # type: ignore[union-attr]
                    p.stdin.flush()  # type: ignore[union-attr]
                    a, b = p.stdout.readline().split()  # type: ignore[union-attr]
                    times[(k, n)].append((float(a), float(b)))
    finally:
        for p in procs.values():
            p.stdin.close()  # type: ignore[union-attr]
            p.wait()
    rows = []
    for n in names:
        row: dict[str, Any] = {"case": n, "identical": rulings["before"].get(n) == rulings["after"][n]}
        for k in procs:
            ch = [c for c, _ in times[(k, n)]]
            va = [v for _, v in times[(k, n)]]
            row[k] = {"cpu_p50_ms": round(statistics.median(ch), 2), "cpu_min_ms": round(min(ch), 2),
                      "validator_p50_ms": round(statistics.median(va), 3), "validator_min_ms": round(min(va), 3)}
        row["speedup_p50"] = round(row["before"]["cpu_p50_ms"] / row["after"]["cpu_p50_ms"], 2)
        row["speedup_min"] = round(row["before"]["cpu_min_ms"] / row["after"]["cpu_min_ms"], 2)
        row["validator_speedup_p50"] = round(row["before"]["validator_p50_ms"] / row["after"]["validator_p50_ms"], 2)
        row["ratio_after"] = round(row["after"]["cpu_p50_ms"] / row["after"]["validator_p50_ms"], 1)
        rows.append(row)
    return rows


def print_compare(rows: list[dict[str, Any]], against: str, repeat: int) -> None:
    print(f"\nSide by side (CPU ms, {repeat} alternating runs each): before = {against}, after = this checkout")
    print(f"{'case':32s} {'before p50':>10s} {'after p50':>10s} {'x p50':>6s} {'before min':>10s} {'after min':>10s} {'x min':>6s}"
          f" {'valid. before':>13s} {'valid. after':>12s} {'ratio after':>11s}  identical")
    for r in rows:
        b, a = r["before"], r["after"]
        print(f"{r['case']:32s} {b['cpu_p50_ms']:10.1f} {a['cpu_p50_ms']:10.1f} {r['speedup_p50']:6.2f} {b['cpu_min_ms']:10.1f}"
              f" {a['cpu_min_ms']:10.1f} {r['speedup_min']:6.2f} {b['validator_p50_ms']:13.2f} {a['validator_p50_ms']:12.2f}"
              f" {r['ratio_after']:11.1f}  {'yes' if r['identical'] else 'NO'}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(sys.argv[2])
