"""Hunt: fresh generated scenarios through chargeref, checked by the outside referee.

Not a test (too long for the suite). Each case is ruled on the board, turned by an
arbitrary angle and mirrored, every ruling under a CPU-seconds limit (SIGXCPU on the
worker process, so a slow ruling is cut off by CPU time, not wall clock on a loaded
machine). One JSON line per ruling goes to the output file: case, variant, CPU seconds,
the referee's findings, an error (with or without a field), a verdict that changed.

    PYTHONPATH=src python tests/outside/hunt.py OUT.jsonl --cases 40k:400-460 tight:400-440 \
        duel:100-120 edge:100-110 wall:100-110 t9a:100-130 around:100-130 wm:100-130 --cpu 30 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import resource
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import outside_gen as gen  # noqa: E402
import referee  # noqa: E402

SLOW = 10.0  # CPU seconds: a ruling above this is reported as slow


class CpuLimit(Exception):
    pass


def _on_xcpu(signum: int, frame: Any) -> None:
    raise CpuLimit()


def make(kind: str, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    if kind == "40k":
        return gen.scenario_40k(seed)
    if kind == "tight":
        return gen.scenario_40k(seed, tight=True)
    if kind == "duel":
        return gen.duel_40k(seed)
    if kind == "edge":
        return gen.duel_edge_40k(seed)
    if kind == "wall":
        return gen.wall_wtc_40k(seed)
    if kind == "t9a":
        return gen.scenario_t9a(seed)
    if kind == "around":
        return gen.scenario_t9a(seed, around=True)
    if kind == "wm":
        return gen.scenario_warmaster(seed)
    raise ValueError(kind)


def _rule_limited(scen: dict[str, Any], req: dict[str, Any], cpu: float) -> tuple[dict[str, Any] | None, float, str]:
    from chargeref import service
    from chargeref.errors import ChargerefError

    used = resource.getrusage(resource.RUSAGE_SELF)
    now = used.ru_utime + used.ru_stime
    soft = int(now + cpu) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    t0 = time.process_time()
    try:
        r = service.charge(scen, req["charger"], req["targets"], dice=req.get("dice"), time_limit=0)
        return r, time.process_time() - t0, ""
    except CpuLimit:
        return None, time.process_time() - t0, f"cpu_limit {cpu}s"
    except ChargerefError as e:
        return None, time.process_time() - t0, f"refused: {e}"
    except Exception:  # noqa: BLE001 - a crash is a finding
        return None, time.process_time() - t0, "crash: " + traceback.format_exc(limit=6)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, hard))


def _verdict(r: dict[str, Any]) -> tuple[Any, ...]:
    n = r.get("needed") or {}
    d = n.get("distance")
    return (r.get("success"), n.get("roll"), None if d is None else round(d, 6))


def run_case(job: tuple[str, int, float]) -> list[dict[str, Any]]:
    kind, seed, cpu = job
    signal.signal(signal.SIGXCPU, _on_xcpu)
    out: list[dict[str, Any]] = []
    try:
        scen, req = make(kind, seed)
    except Exception as e:  # noqa: BLE001
        return [{"kind": kind, "seed": seed, "variant": "gen", "error": f"generator: {e}"}]
    rng = random.Random(seed)
    angle = rng.uniform(0, 360)
    variants = [("board", scen), ("turned", gen.turned(scen, angle)), ("mirrored", gen.mirrored(scen))]
    base = None
    for name, doc in variants:
        if name != "board" and scen["system"] == "40k" and not gen.fits_board(doc):
            continue
        r, used, err = _rule_limited(doc, req, cpu)
        if name != "board" and base is None:
            break  # the board itself was not ruled (limit or error): its copies would say the same
        rec: dict[str, Any] = {"kind": kind, "seed": seed, "variant": name, "cpu": round(used, 2), "error": err,
                               "findings": []}
        if name == "turned":
            rec["angle"] = angle
        if r is not None:
            try:
                rec["findings"] = [str(f) for f in referee.check(doc, r)]
            except Exception:  # noqa: BLE001
                rec["findings"] = ["referee_crash: " + traceback.format_exc(limit=4)]
            rec["verdict"] = _verdict(r)
            rec["exact"] = r.get("exact")
            if name == "board":
                base = rec["verdict"]
            elif base is not None and rec["verdict"] != base:
                rec["findings"].append(f"verdict_changed: board {base}, {name} {rec['verdict']}")
        out.append(rec)
    return out


def parse_cases(specs: list[str], cpu: float) -> list[tuple[str, int, float]]:
    lists = []
    for s in specs:
        kind, rng = s.split(":")
        a, b = (int(x) for x in rng.split("-"))
        lists.append([(kind, i, cpu) for i in range(a, b)])
    jobs = []
    while any(lists):  # interleave the kinds so every kind gets covered early
        for lst in lists:
            if lst:
                jobs.append(lst.pop(0))
    return jobs


def drive(run: Any, shown: int = 400) -> None:
    """The command line of a hunt: rule the ``--cases`` with ``run`` (one job each, in
    ``--jobs`` processes), append every record to OUT as a JSON line and print the
    flagged ones (an error, a finding, or slow), cut to ``shown`` characters."""
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--cases", nargs="+", required=True)
    ap.add_argument("--cpu", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    jobs = parse_cases(a.cases, a.cpu)
    with open(a.out, "a") as f, mp.get_context("fork").Pool(a.jobs, maxtasksperchild=20) as pool:
        for recs in pool.imap_unordered(run, jobs):
            for rec in recs:
                flag = rec.get("error") or rec.get("findings") or (rec.get("cpu", 0) > SLOW)
                f.write(json.dumps(rec) + "\n")
                f.flush()
                if flag:
                    print(json.dumps(rec)[:shown], flush=True)


def main() -> None:
    drive(run_case)

if __name__ == "__main__":
    main()
