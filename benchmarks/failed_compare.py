"""Failed and impossible 40k charges ruled by two source trees, ruling JSON compared
(issue 13: the failed-charge and no-roll shortcuts must not change a ruling).

    python benchmarks/failed_compare.py --src /work/main/src --out before.jsonl --seeds 0-61
    python benchmarks/failed_compare.py --src src --out after.jsonl --seeds 0-61
    python benchmarks/failed_compare.py --diff before.jsonl after.jsonl

The first two run ``tests/outside/outside_gen.scenario_40k(seed)`` for each seed (one
child process per ruling, on the tree's ``src``, cut off by CPU time: ``--cpu``
seconds, SIGXCPU) and append one JSON line per seed: CPU seconds, whether the ruling
is a failed charge (``success`` false with a roll) or one no roll can make
(``needed.roll`` null), and the whole ruling. ``--diff`` compares the rulings of the
seeds that are failed or no-roll in the first file and ruled within the limit in both,
byte for byte as sorted JSON, and prints each seed's CPU on both sides. ``--like
before.jsonl`` runs only the seeds that file has as failed or no-roll.
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


def _child(src: str, seed: int, cpu: float) -> None:
    sys.path.insert(0, str(Path(src).resolve()))
    sys.path.insert(0, str(ROOT / "tests" / "outside"))
    import outside_gen as gen  # noqa: PLC0415

    from chargeref import service  # noqa: PLC0415

    resource.setrlimit(resource.RLIMIT_CPU, (int(cpu) + 1, resource.RLIM_INFINITY))
    scen, req = gen.scenario_40k(seed)
    t0 = time.process_time()
    r = service.charge(scen, req["charger"], req["targets"], dice=req.get("dice"), time_limit=0)
    used = time.process_time() - t0
    need = r.get("needed") or {}
    print(json.dumps({"seed": seed, "cpu": round(used, 2), "edition": scen["rules"]["edition"],
                      "failed": bool(r.get("eligible") and not r.get("success")),
                      "no_roll": bool(r.get("eligible") and need.get("roll") is None),
                      "ruling": r}, sort_keys=True))


def run(src: str, out: str, seeds: range, cpu: float) -> None:
    with open(out, "a") as f:
        for s in seeds:
            p = subprocess.run([sys.executable, __file__, "--child", src, str(s), str(cpu)],
                               capture_output=True, text=True)
            line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            if p.returncode != 0 or not line:
                rec: dict[str, Any] = {"seed": s, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}"}
                line = json.dumps(rec)
            f.write(line + "\n")
            f.flush()
            print(line[:160], flush=True)


def _load(path: str) -> dict[int, dict[str, Any]]:
    out = {}
    for line in Path(path).read_text().splitlines():
        rec = json.loads(line)
        out[rec["seed"]] = rec
    return out


def diff(a_path: str, b_path: str) -> int:
    a, b = _load(a_path), _load(b_path)
    same = differ = 0
    for s in sorted(a):
        ra, rb = a[s], b.get(s)
        if "error" not in ra and not (ra["failed"] or ra["no_roll"]):
            continue
        if "error" in ra or rb is None or "error" in rb:
            why = ra.get("error") or (rb or {}).get("error") or "missing"
            print(f"seed {s}: not compared ({why[:80]})")
            continue
        eq = json.dumps(ra["ruling"], sort_keys=True) == json.dumps(rb["ruling"], sort_keys=True)
        same += eq
        differ += not eq
        kind = "no roll" if ra["no_roll"] else "failed"
        print(f"seed {s}: ed {ra['edition']} {kind:7s} cpu {ra['cpu']:7.2f} -> {rb['cpu']:7.2f}  {'identical' if eq else 'DIFFERENT'}")
    print(f"{same} identical, {differ} different")
    return 1 if differ else 0


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--src")
    ap.add_argument("--out")
    ap.add_argument("--seeds", default="0-61")
    ap.add_argument("--cpu", type=float, default=30.0)
    ap.add_argument("--diff", nargs=2)
    ap.add_argument("--like", help="run only the seeds that are failed or no-roll in this earlier output")
    a = ap.parse_args()
    if a.diff:
        sys.exit(diff(*a.diff))
    lo, hi = (int(x) for x in a.seeds.split("-"))
    seeds: Any = range(lo, hi)
    if a.like:
        prev = _load(a.like)
        seeds = [s for s in seeds if s in prev and (prev[s].get("failed") or prev[s].get("no_roll"))]
    run(a.src, a.out, seeds, a.cpu)


if __name__ == "__main__":
    main()
