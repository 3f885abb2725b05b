"""Rulings of non-round 40k chargers on two source trees, compared (issue 13, round 8).

    python benchmarks/pivot_rulings.py run --src /work/main/src --out before.jsonl
    python benchmarks/pivot_rulings.py run --src src --out after.jsonl
    python benchmarks/pivot_rulings.py diff before.jsonl after.jsonl

``run`` rules ``tests/outside/outside_gen.scenario_40k(seed)`` for every seed (0..80 by
default) whose charging unit stands on oval or rect bases (the ones that get pivot
plans), each in its own subprocess with a CPU-time limit (``--cpu``, 30 s: ``RLIMIT_CPU``
counts this process's CPU only, not the other work on a shared machine). A line per
seed: the roll, success, needed roll and distance, every model's end position and
facing (the ruling's ``moves``), the engaged units, and the CPU seconds (or ``"over"`` past the limit). ``diff`` lists the seeds
whose rulings differ (positions compared to 1e-6) and the CPU of each side.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _one(src: str, seed: int) -> dict[str, Any]:
    sys.path.insert(0, src)
    sys.path.insert(0, str(ROOT / "tests" / "outside"))
    import outside_gen  # noqa: PLC0415

    from chargeref import service  # noqa: PLC0415

    scen, req = outside_gen.scenario_40k(seed)
    base = scen["units"][0]["models"][0]["base"]
    if "round" in base:
        return {"seed": seed, "round": True}
    t = time.process_time()
    r = service.charge(scen, req["charger"], req["targets"], dice=req["dice"], time_limit=0)
    cpu = time.process_time() - t
    return {"seed": seed, "cpu": round(cpu, 2), "roll": r.get("roll"), "success": r.get("success"),
            "needed": r.get("needed"), "moves": r.get("moves"), "engaged": r.get("engaged")}


def run(src: str, out: str, seeds: range, cpu: int) -> None:
    with open(out, "w") as fh:
        for s in seeds:
            def limit() -> None:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

            p = subprocess.run([sys.executable, __file__, "one", "--src", src, "--seed", str(s)],
                               capture_output=True, text=True, preexec_fn=limit)
            if p.returncode != 0:
                line = {"seed": s, "over" if p.returncode < 0 else "error": p.returncode,
                        "stderr": p.stderr[-300:] if p.returncode > 0 else ""}
            else:
                line = json.loads(p.stdout)
            if not line.get("round"):
                fh.write(json.dumps(line, sort_keys=True) + "\n")
                fh.flush()
                print(s, line.get("cpu", line.get("over", line.get("error"))), flush=True)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-6
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def diff(a: str, b: str) -> None:
    A = {d["seed"]: d for d in map(json.loads, Path(a).read_text().splitlines())}
    B = {d["seed"]: d for d in map(json.loads, Path(b).read_text().splitlines())}
    same = differ = skipped = 0
    for s in sorted(A.keys() | B.keys()):
        x, y = A.get(s, {}), B.get(s, {})
        if "cpu" not in x and "cpu" not in y:
            skipped += 1
            print(f"seed {s}: skipped (over the CPU limit or failed on both)")
            continue
        keys = ("roll", "success", "needed", "moves", "engaged")
        ok = "cpu" in x and "cpu" in y and all(_close(x.get(k), y.get(k)) for k in keys)
        same += ok
        differ += not ok
        print(f"seed {s}: {'identical' if ok else 'DIFFERENT'}  cpu {x.get('cpu', 'over')} -> {y.get('cpu', 'over')}")
    print(f"{same} identical, {differ} different, {skipped} skipped")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("one")
    o.add_argument("--src", required=True)
    o.add_argument("--seed", type=int, required=True)
    r = sub.add_parser("run")
    r.add_argument("--src", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--first", type=int, default=0)
    r.add_argument("--last", type=int, default=80)
    r.add_argument("--cpu", type=int, default=30)
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    ns = ap.parse_args()
    if ns.cmd == "one":
        print(json.dumps(_one(str(Path(ns.src).resolve()), ns.seed), sort_keys=True))
    elif ns.cmd == "run":
        run(ns.src, ns.out, range(ns.first, ns.last + 1), ns.cpu)
    else:
        diff(ns.a, ns.b)


if __name__ == "__main__":
    main()
