"""The benchmark tables (issues 13 and 14), measured in one run on this machine.

    python benchmarks/run.py                 # standard cases + scaling table
    python benchmarks/run.py --repeat 21     # more runs per case
    python benchmarks/run.py --section standard --only walls
    python benchmarks/run.py --section batch # threat map and sweep on 1 and 2 workers
    python benchmarks/run.py --profile       # cProfile of the 30-model and walls cases
    python benchmarks/run.py --json          # every table as JSON
    python benchmarks/run.py --section compare --against ../main/src --repeat 7
                                             # 40k rulings of two checkouts side by side

Tables:

* ``standard``: per case the median and p95 of N runs of one ruling (``needed`` plus
  the placement, i.e. one ``charge``), one pass of the independent validator on the
  same end state, and the solver/validator ratio; targets p50 < 20 ms, p95 < 100 ms,
  ratio <= 10, a 30-model validator pass < 5 ms.
* ``scaling``: 40k open field, n models a side (n = 10 ... 200), ``charge --roll 12``;
  each size runs in its own subprocess under a wall-time cap and an address-space
  limit (``resource.RLIMIT_AS``), so a blow-up prints "over limit" instead of taking
  the machine down; targets 80 v 80 < 5 s and < 1 GB, 200 v 200 < 60 s within 2 GB.
* ``batch``: a 60x44" threat map at 1" steps for a 10-model unit against 5 enemy units
  of 10 models on 1 and 2 workers, and a sweep of 1,000 rulings on 1 and 2 workers
  (target < 60 s for the map on two cores; speedup >= 1.8x); peak memory per worker.

Numbers are printed next to their target with "met" or "MISSED". Nothing here is a
timed test: the test suite never depends on this machine's speed.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# issue 13 targets
P50_MS = 20.0
P95_MS = 100.0
RATIO = 10.0
VALIDATOR_30_MS = 5.0
SCALING_SIZES = (10, 20, 40, 80, 160, 200)
SCALE_TARGETS = {80: (5.0, 1024.0), 200: (60.0, 2048.0)}  # n: (seconds, MB)
# issue 14 targets
THREAT_S = 60.0
SPEEDUP = 1.8


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


# ------------------------------------------------------------------ standard cases


@dataclass
class Case:
    name: str
    run: Callable[[], Any]
    #: the scenario the ruling is made on (None: no single end state to validate)
    before: Any = None
    #: a p50 target of its own (ms), instead of P50_MS
    target_ms: float | None = None


def forty_k_cases() -> list[Case]:
    from scenarios import CASES

    from chargeref import ChargeRequest, find_system, scenario_from_data

    system = find_system("40k")
    out = []
    for name, make in CASES.items():
        data, charger, targets, roll = make()
        scen = scenario_from_data(data)

        def run(scen: Any = scen, charger: str = charger, targets: list[str] = targets, roll: int = roll) -> Any:
            return system.charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), roll=roll))

        out.append(Case(name, run, scen))
    return out


def other_cases() -> list[Case]:
    out = []
    for mod in ("bench_t9a", "bench_warmaster"):
        m = importlib.import_module(mod)
        for name, fn in m.CASES.items():
            out.append(Case(name, fn, getattr(fn, "before", None)))
    return out


def many_models_40k(per_side: int = 2000, units: int = 10) -> dict[str, Any]:
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


def check_cases() -> list[Case]:
    """`check` (the guarded loader, the contract, every geometric problem) on 2,000
    models a side, from the JSON text; target 1 s."""
    from chargeref import service

    text = json.dumps(many_models_40k()).encode()

    def run() -> Any:
        return service.check(service.load_document(text))

    return [Case("check 40k 2000 v 2000 models", run, None, target_ms=1000.0)]


def _ms(f: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    r = f()
    return (time.perf_counter() - t) * 1000, r


def _wall_cpu_ms(f: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one call (CPU time is what a quiet machine's wall
    time would be for this single-threaded work; on a shared machine the two differ)."""
    t, c = time.perf_counter(), time.process_time()
    f()
    return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def p95(xs: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, -(-95 * len(s) // 100) - 1))]


def standard_table(repeat: int, only: str | None, by_cpu: bool = False) -> list[dict[str, Any]]:
    from chargeref.ruling import Ruling
    from chargeref.validate import validate_ruling

    rows = []
    for case in forty_k_cases() + other_cases() + check_cases():
        if only and only not in case.name:
            continue
        result = case.run()  # warm-up (imports, caches) and the end state to validate
        both = [_wall_cpu_ms(case.run) for _ in range(repeat)]
        times, cpu = [w for w, _ in both], [c for _, c in both]
        wall_med, wall_top = statistics.median(times), p95(times)
        med, top = (statistics.median(cpu), p95(cpu)) if by_cpu else (wall_med, wall_top)
        row: dict[str, Any] = {"case": case.name, "median_ms": round(wall_med, 2), "p95_ms": round(wall_top, 2),
                               "cpu_median_ms": round(statistics.median(cpu), 2), "cpu_p95_ms": round(p95(cpu), 2),
                               "runs": repeat, "judged_on": "cpu" if by_cpu else "wall",
                               "success": result.get("ok") if isinstance(result, dict) else getattr(result, "success", None)}
        if isinstance(result, Ruling) and case.before is not None:
            validate_ruling(case.before, result)  # warm-up
            row["violations"] = len(validate_ruling(case.before, result))
            vt = [_wall_cpu_ms(lambda b=case.before, r=result: validate_ruling(b, r)) for _ in range(max(3, repeat // 3))]
            v_ms = statistics.median(c if by_cpu else w for w, c in vt)
            row["validator_ms"] = round(v_ms, 2)
            row["ratio"] = round(med / v_ms, 1) if v_ms > 0 else None
        else:
            row["validator_ms"] = row["ratio"] = row["violations"] = None
        row["targets"] = {
            "p50": med < (case.target_ms or P50_MS),
            "p95": top < (case.target_ms or P95_MS),
            "ratio": None if row["ratio"] is None else row["ratio"] <= RATIO,
        }
        if "30-model" in case.name and row["validator_ms"] is not None:
            row["targets"]["validator"] = row["validator_ms"] < VALIDATOR_30_MS
        rows.append(row)
    return rows


def print_standard(rows: list[dict[str, Any]]) -> None:
    w = max([len(r["case"]) for r in rows] + [4])
    print(f"Standard rulings: one charge each (targets: p50 < {P50_MS:g} ms, p95 < {P95_MS:g} ms, "
          f"solver/validator <= {RATIO:g}x, 30-model validator < {VALIDATOR_30_MS:g} ms; check of 2,000 a side < 1 s)")
    if rows and rows[0]["judged_on"] == "cpu":
        print("  (judged on CPU time: --cpu; the wall-clock p50 is shown too)")
    print(f"{'case':<{w}}  {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8} {'CPU p95':>8} {'valid. ms':>9} {'ratio':>6}  result   targets")
    for r in rows:
        t = r["targets"]
        flags = [f"p50 {_met(t['p50'])}", f"p95 {_met(t['p95'])}"]
        if t["ratio"] is not None:
            flags.append(f"ratio {_met(t['ratio'])}")
        if "validator" in t:
            flags.append(f"validator {_met(t['validator'])}")
        v = "-" if r["validator_ms"] is None else f"{r['validator_ms']:.2f}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.1f}"
        bad = f" ({r['violations']} violations!)" if r.get("violations") else ""
        print(f"{r['case']:<{w}}  {r['median_ms']:>8.1f} {r['p95_ms']:>8.1f} {r['cpu_median_ms']:>8.1f} {r['cpu_p95_ms']:>8.1f} "
              f"{v:>9} {ratio:>6}  {r['success']!s:<7}  "
              f"{', '.join(flags)}{bad}")


# ------------------------------------------------------------------ scaling


def open_field(n: int) -> tuple[dict[str, Any], str, list[str], int]:
    """n models a side in rows of up to 20 (32 mm bases 1.5" apart), 6" apart."""
    from scenarios import _unit, block

    per_row = min(n, 20)
    rows = -(-n // per_row)
    depth_a = (rows - 1) * 1.5
    a = _unit("A", 1, block(2, 2, n, per_row))
    b = _unit("B", 2, block(2.5, 2 + depth_a + 6.0, n, per_row))
    board_d = max(44.0, 2 + 2 * depth_a + 6.0 + 4)
    board_w = max(60.0, 2 + per_row * 1.5 + 4)
    data = {"format": "chargeref/1", "system": "40k", "board": {"width": board_w, "depth": board_d}, "units": [a, b]}
    return data, "A", ["B"], 12


def _scaling_child(n: int, mem_mb: int) -> None:
    """Run in a subprocess: one charge of n v n under an address-space limit."""
    limit = mem_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out: dict[str, Any] = {"n": n}
    try:
        from chargeref import ChargeRequest, find_system, scenario_from_data

        data, charger, targets, roll = open_field(n)
        scen = scenario_from_data(data)
        t, c = time.perf_counter(), time.process_time()
        r = find_system("40k").charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), roll=roll))
        out["seconds"] = time.perf_counter() - t
        out["cpu_s"] = time.process_time() - c
        out["success"] = r.success
    except MemoryError:
        out["error"] = "over limit"
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def scaling_table(sizes: tuple[int, ...], cap_s: float, mem_mb: int, by_cpu: bool = False) -> list[dict[str, Any]]:
    rows = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")])}
    for n in sizes:
        t = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--scaling-child", str(n), "--mem-mb", str(mem_mb)],
                               capture_output=True, text=True, timeout=cap_s, env=env)
            last = (p.stdout.strip().splitlines() or ["{}"])[-1]
            row = json.loads(last) if last.startswith("{") else {"n": n, "error": f"failed (exit {p.returncode})"}
            if p.returncode != 0 and "error" not in row:
                row["error"] = "over limit" if "MemoryError" in p.stderr else f"failed (exit {p.returncode})"
        except subprocess.TimeoutExpired:
            row = {"n": n, "error": f"over time limit ({cap_s:g} s)", "seconds": None}
        row["wall_s"] = time.perf_counter() - t
        goal = SCALE_TARGETS.get(n)
        if goal:
            # with --cpu the time target is judged on CPU seconds (a shared machine's
            # wall clock is several times its CPU time); the cap is always wall time
            t_used = row.get("cpu_s") if by_cpu else row.get("seconds")
            s_ok = t_used is not None and t_used < goal[0]
            m_ok = row.get("peak_mb") is not None and "error" not in row and row["peak_mb"] < goal[1]
            row["targets"] = {"seconds": s_ok, "memory": m_ok}
        rows.append(row)
    return rows


def print_scaling(rows: list[dict[str, Any]], cap_s: float, mem_mb: int) -> None:
    print(f"\nScaling: 40k open field, n models a side, charge --roll 12 (one subprocess each, "
          f"cap {cap_s:g} s, address space {mem_mb} MB)")
    print(f"{'n':>5}  {'seconds':>9}  {'CPU s':>8}  {'peak MB':>8}  result / targets")
    for r in rows:
        sec = "-" if r.get("seconds") is None else f"{r['seconds']:.2f}"
        cpu = "-" if r.get("cpu_s") is None else f"{r['cpu_s']:.2f}"
        mb = "-" if r.get("peak_mb") is None else f"{r['peak_mb']:.0f}"
        what = r.get("error") or ("success" if r.get("success") else "failed charge")
        t = r.get("targets")
        if t:
            goal = SCALE_TARGETS[r["n"]]
            what += f"; < {goal[0]:g} s {_met(t['seconds'])}, < {goal[1]:g} MB {_met(t['memory'])}"
        print(f"{r['n']:>5}  {sec:>9}  {cpu:>8}  {mb:>8}  {what}")


# ------------------------------------------------------------------ batch (issue 14)


def threat_scenario() -> Any:
    """A 10-model unit B (player 2) and 5 enemy units of 10 models on a 60x44" board."""
    from scenarios import _unit, block, scen

    from chargeref import scenario_from_data

    units = [_unit("B", 2, block(28, 22, 10, 5))]
    spots = [(6, 4), (24, 4), (42, 4), (10, 36), (38, 36)]
    for k, (x, y) in enumerate(spots):
        units.append(_unit(f"E{k + 1}", 1, block(x, y, 10, 5)))
    return scenario_from_data(scen(units))


def sweep_files(tmp: Path, n_rulings: int) -> list[str]:
    """Scenario files with 10 charges each (small open-field charges, fixed dice)."""
    import yaml
    from scenarios import _unit, block, scen

    files = []
    per_file = 10
    for f in range(-(-n_rulings // per_file)):
        units = [_unit("A", 1, block(10 + (f % 7), 10, 5, 5)), _unit("B", 2, block(10.5, 16 + (f % 5) * 0.5, 5, 5))]
        data = scen(units)
        k = min(per_file, n_rulings - f * per_file)
        data["charges"] = [{"charger": "A", "targets": ["B"], "dice": [1 + (i % 6), 1 + ((i + f) % 6)]} for i in range(k)]
        p = tmp / f"sweep_{f:04d}.yaml"
        p.write_text(yaml.safe_dump(data))
        files.append(str(p))
    return files


def _worker_peak_mb(client: Any) -> list[float]:
    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    return sorted(client.run(peak).values())


def _worker_cpu(client: Any) -> dict[str, float]:
    """CPU seconds each worker process has used so far (user + system)."""

    def cpu() -> float:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        return ru.ru_utime + ru.ru_stime

    return dict(client.run(cpu))


def batch_table(step: float, n_rulings: int) -> list[dict[str, Any]]:
    from distributed import Client, LocalCluster

    from chargeref.batch import sweep, threat_map

    scen = threat_scenario()
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="chargeref-bench-"))
    files = sweep_files(tmp, n_rulings)
    base: dict[str, float] = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, silence_logs=40,
                          scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"}) as cluster, Client(cluster) as client:
            addr = cluster.scheduler_address
            c0, t = _worker_cpu(client), time.perf_counter()
            tm = threat_map(scen, "B", step, scheduler=addr)
            ts, c1 = time.perf_counter() - t, _worker_cpu(client)
            mem_map = _worker_peak_mb(client)
            out = tmp / f"sweep_{workers}.jsonl"
            t = time.perf_counter()
            s = sweep(files, str(out), scheduler=addr)
            ss, c2 = time.perf_counter() - t, _worker_cpu(client)
            mem_all = _worker_peak_mb(client)
        cpu_map = sorted(c1[k] - c0[k] for k in c1)
        cpu_sweep = sorted(c2[k] - c1[k] for k in c2)
        cells = int((~__import__("numpy").isnan(tm.probability)).sum())
        for what, sec, extra, mem, cpu in (
                ("threat map", ts, f"{len(tm.x)}x{len(tm.y)} spots, {cells} standable", mem_map, cpu_map),
                ("sweep", ss, f"{s.written} rulings", mem_all, cpu_sweep)):
            row = {"job": what, "workers": workers, "seconds": round(sec, 2), "detail": extra,
                   "worker_cpu_s": [round(c, 1) for c in cpu], "worker_peak_mb": [round(m) for m in mem],
                   "loadavg": round(os.getloadavg()[0], 1)}
            if workers == 1:
                base[what] = sec
                base[what + " cpu"] = sum(cpu)
            else:
                row["speedup"] = round(base[what] / sec, 2)
                # on a machine with nothing else running: one worker's CPU time over the
                # busiest of the two workers' (each worker is one thread)
                row["cpu_speedup"] = round(base[what + " cpu"] / max(cpu), 2)
            rows.append(row)
    for r in rows:
        t: dict[str, bool] = {}
        if r["job"] == "threat map" and r["workers"] == 2:
            t["under_60s"] = r["seconds"] < THREAT_S
            t["under_60s_cpu"] = max(r["worker_cpu_s"]) < THREAT_S
        if "speedup" in r:
            t["speedup"] = r["speedup"] >= SPEEDUP
            t["cpu_speedup"] = r["cpu_speedup"] >= SPEEDUP
        r["targets"] = t
    return rows


def print_batch(rows: list[dict[str, Any]], step: float) -> None:
    print(f"\nBatch (Dask LocalCluster, 1 thread per worker): threat map of a 10-model unit against 5 units of 10 "
          f"at {step:g}\" steps; a sweep of rulings (targets: map < {THREAT_S:g} s on 2 workers, speedup >= {SPEEDUP:g}x)")
    print("  (CPU s: each worker's CPU seconds for the job; 'CPU speedup' = one worker's CPU time over the busiest "
          "of two, what a quiet machine would show; load = 1-minute load average when the job ended)")
    print(f"{'job':<11} {'workers':>7} {'seconds':>9} {'speedup':>8} {'CPU s per worker':<18} {'CPU speedup':>11} "
          f"{'peak MB per worker':<20} {'load':>5}  detail / targets")
    for r in rows:
        sp = f"{r['speedup']:.2f}x" if "speedup" in r else "-"
        csp = f"{r['cpu_speedup']:.2f}x" if "cpu_speedup" in r else "-"
        flags = ", ".join(f"{k} {_met(v)}" for k, v in r["targets"].items())
        print(f"{r['job']:<11} {r['workers']:>7} {r['seconds']:>9.2f} {sp:>8} {str(r['worker_cpu_s']):<18} {csp:>11} "
              f"{str(r['worker_peak_mb']):<20} {r['loadavg']:>5}  {r['detail']}" + (f"; {flags}" if flags else ""))


# ------------------------------------------------------------------ profile


def profile(names: tuple[str, ...] = ("30-model", "walls"), top: int = 15) -> str:
    out = io.StringIO()
    for case in forty_k_cases():
        if not any(n in case.name for n in names):
            continue
        case.run()
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(3):
            case.run()
        pr.disable()
        out.write(f"\n== {case.name} (3 runs) ==\n")
        st = pstats.Stats(pr, stream=out)
        st.sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ------------------------------------------------------------------ main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=21, help="runs per standard case")
    ap.add_argument("--only", default=None, help="substring of the standard case names to run")
    ap.add_argument("--section", action="append", choices=["standard", "scaling", "batch", "compare"],
                    help="tables to print (repeat; default: standard and scaling)")
    ap.add_argument("--sizes", default=",".join(map(str, SCALING_SIZES)), help="scaling sizes, n a side")
    ap.add_argument("--cap", type=float, default=120.0, help="wall-time cap per scaling size (s)")
    ap.add_argument("--mem-mb", type=int, default=4096, help="address-space limit per scaling size (MB)")
    ap.add_argument("--step", type=float, default=1.0, help="threat map step for the batch table")
    ap.add_argument("--rulings", type=int, default=1000, help="rulings in the batch sweep")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the 30-model and walls cases")
    ap.add_argument("--cpu", action="store_true",
                    help="judge the standard cases on CPU time (for a shared, loaded machine)")
    ap.add_argument("--against", default=None,
                    help="compare: the src directory of the checkout to measure against (before)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--scaling-child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.scaling_child is not None:
        _scaling_child(args.scaling_child, args.mem_mb)
        return 0
    if args.profile:
        print(profile())
        return 0
    sections = args.section or ["standard", "scaling"]
    report: dict[str, Any] = {}
    if "standard" in sections:
        report["standard"] = standard_table(args.repeat, args.only, by_cpu=args.cpu)
        if not args.json:
            print_standard(report["standard"])
    if "scaling" in sections:
        sizes = tuple(int(s) for s in args.sizes.split(",") if s)
        report["scaling"] = scaling_table(sizes, args.cap, args.mem_mb, by_cpu=args.cpu)
        if not args.json:
            print_scaling(report["scaling"], args.cap, args.mem_mb)
    if "batch" in sections:
        report["batch"] = batch_table(args.step, args.rulings)
        if not args.json:
            print_batch(report["batch"], args.step)
    if "compare" in sections:
        from compare import compare_table, print_compare

        if not args.against:
            ap.error("--section compare needs --against SRC (the other checkout's src directory)")
        report["compare"] = compare_table(args.against, args.repeat)
        if not args.json:
            print_compare(report["compare"], args.against, args.repeat)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
