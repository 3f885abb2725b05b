"""Make every T9A example and snapshot ruling with two source trees and compare the JSON.

    python tests/t9a/compare_trees.py --against ../main/src            # examples + snapshot
    python tests/t9a/compare_trees.py --against ../main/src --examples # examples only

Each tree runs in its own process (``PYTHONPATH=<src>``) and writes one JSON line per
ruling: for every ``examples/t9a/*.yaml`` a whole phase (seed 1) and ``charge`` and
``needed`` of each of its charges, then every recorded call of
``tests/t9a/data/t9a.json.gz`` (the slow ones too). A refusal is recorded as its error.
The rulings are then compared as canonical JSON text (byte for byte, not within a
tolerance): what a speed change that keeps every ruling must pass. The CPU time of each
ruling is recorded beside it (not compared); ``--top N`` prints the slowest. Not a test (the
snapshot alone takes minutes of CPU); used for docs/performance.md, "Round 6: T9A".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def dump(out: str, examples_only: bool) -> None:
    """Write the rulings of the ``chargeref`` on the path (one JSON line each)."""
    import time

    sys.path.insert(0, str(HERE))
    import snapshot_tool as st

    from chargeref.scenario import load_scenario
    from chargeref.systems import ChargeRequest, find_system

    sysm = find_system("t9a")
    cpu = 0.0
    with open(out, "w") as fh:
        def emit(name: str, fn: object) -> None:
            nonlocal cpu
            t = time.process_time()
            try:
                r = st.result_to_data(fn())  # type: ignore[operator]
            except Exception as e:  # noqa: BLE001  (a refusal is a ruling too)
                r = {"error": type(e).__name__, "message": str(e)}
            dt = time.process_time() - t
            cpu += dt
            fh.write(json.dumps({"name": name, "result": r, "cpu": dt}, sort_keys=True) + "\n")

        for p in sorted((ROOT / "examples" / "t9a").glob("*.yaml")):
            scen = load_scenario(p)
            emit(f"{p.name}:phase", lambda scen=scen: sysm.phase(scen, 1))
            for c in scen.charges or []:
                req = ChargeRequest(c.charger, tuple(c.targets), dice=tuple(c.dice) if c.dice else None,
                                    roll=getattr(c, "roll", None))
                emit(f"{p.name}:charge:{c.charger}", lambda scen=scen, req=req: sysm.charge(scen, req))
                emit(f"{p.name}:needed:{c.charger}", lambda scen=scen, req=req: sysm.needed(scen, req))
        if not examples_only:
            for i, call in enumerate(st.load("t9a", HERE / "data")):
                emit(f"snapshot:{i}", lambda call=call: st.run("t9a", call))
    print(f"{out}: {cpu:.1f} s CPU", file=sys.stderr)


def _run(src: str, out: str, examples_only: bool) -> None:
    env = dict(os.environ, PYTHONPATH=src)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump", out] + (["--examples"] if examples_only else [])
    subprocess.run(cmd, env=env, check=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", help="the other tree's src folder")
    ap.add_argument("--src", default=str(ROOT / "src"), help="this tree's src folder")
    ap.add_argument("--examples", action="store_true", help="the examples only (skip the snapshot)")
    ap.add_argument("--top", type=int, default=5, help="print the N rulings that took the most CPU in each tree")
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.dump:
        dump(a.dump, a.examples)
        return 0
    if not a.against:
        ap.error("give --against SRC")
    with tempfile.TemporaryDirectory() as tmp:
        mine, theirs = os.path.join(tmp, "mine.jsonl"), os.path.join(tmp, "theirs.jsonl")
        _run(a.src, mine, a.examples)
        _run(a.against, theirs, a.examples)
        x = [json.loads(line) for line in open(mine)]
        y = [json.loads(line) for line in open(theirs)]
    if [r["name"] for r in x] != [r["name"] for r in y]:
        print("the two trees made different sets of rulings")
        return 1
    diff = [r["name"] for r, s in zip(x, y, strict=True)
            if json.dumps(r["result"], sort_keys=True) != json.dumps(s["result"], sort_keys=True)]
    print(f"{len(x)} rulings compared, {len(diff)} differ")
    if a.top:
        # the slowest rulings (CPU seconds) of this tree, each beside the other tree's
        theirs_cpu = {r["name"]: r["cpu"] for r in y}
        print(f"the {a.top} rulings taking the most CPU here (s): this tree / --against")
        for r in sorted(x, key=lambda r: -r["cpu"])[:a.top]:
            print(f"  {r['name']:<40} {r['cpu']:8.2f} {theirs_cpu[r['name']]:8.2f}")
        print(f"the {a.top} taking the most CPU in --against (s): this tree / --against")
        mine_cpu = {r["name"]: r["cpu"] for r in x}
        for r in sorted(y, key=lambda r: -r["cpu"])[:a.top]:
            print(f"  {r['name']:<40} {mine_cpu[r['name']]:8.2f} {r['cpu']:8.2f}")
    for name in diff:
        print("  differs:", name)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
