"""Rulings of two source trees compared on the outside generator (round 8, issue 13).

    python benchmarks/lazy_compare.py run --src /work/main/src --out before.json
    python benchmarks/lazy_compare.py run --src src --out after.json
    python benchmarks/lazy_compare.py diff before.json after.json

``run`` rules every case in its own process (so each starts cold and a CPU limit cuts
only that case): ``outside_gen.scenario_40k(seed)`` for seeds 0..60, the same with
``tight=True`` for 0..30, by default; ``--cases`` picks others (``plain:73``,
``tight:5``, ``file:PATH:CHARGER:T1,T2:D1,D2``). Each case records its CPU seconds
(``time.process_time`` of the child) and the whole ruling, or why there is none.
``diff`` compares two such files: roll, success, ``needed`` and every number of the
ruling (end positions included) to 1e-9; a case cut by the CPU limit on both sides is
listed as skipped. This is a measuring tool, not a test.
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _case(spec: str) -> tuple[dict[str, Any], dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "tests" / "outside"))
    import outside_gen as gen  # noqa: PLC0415

    kind, _, rest = spec.partition(":")
    if kind == "plain":
        return gen.scenario_40k(int(rest))
    if kind == "tight":
        return gen.scenario_40k(int(rest), tight=True)
    if kind == "file":
        path, charger, targets, dice = rest.split(":")
        return json.loads(Path(path).read_text()), {
            "charger": charger, "targets": targets.split(","), "dice": [int(d) for d in dice.split(",")]}
    raise SystemExit(f"unknown case {spec}")


def _one(src: str, spec: str, cpu: float) -> None:
    """Child: rule one case under a CPU limit and print {cpu, ruling | status}."""
    sys.path.insert(0, src)
    from chargeref import service  # noqa: PLC0415

    scen, req = _case(spec)
    soft = int(time.process_time() + cpu) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
    t0 = time.process_time()
    try:
        r = service.charge(scen, req["charger"], req["targets"], dice=req.get("dice"), time_limit=0)
        out = {"cpu": time.process_time() - t0, "ruling": r}
    except Exception as e:  # noqa: BLE001 - recorded, compared like a ruling
        out = {"cpu": time.process_time() - t0, "status": f"{type(e).__name__}: {e}"}
    print(json.dumps(out, default=str))


def default_cases() -> list[str]:
    return [f"plain:{s}" for s in range(61)] + [f"tight:{s}" for s in range(31)]


def run(src: str, out: str, cases: list[str], cpu: float) -> None:
    res: dict[str, Any] = {}
    for spec in cases:
        p = subprocess.run([sys.executable, __file__, "one", "--src", src, "--case", spec, "--cpu", str(cpu)],
                           capture_output=True, text=True)
        if p.returncode != 0 or not p.stdout.strip():
            res[spec] = {"cpu": None, "status": f"cut (exit {p.returncode})"}
        else:
            res[spec] = json.loads(p.stdout.strip().splitlines()[-1])
        r = res[spec]
        print(spec, r.get("cpu") and round(r["cpu"], 2), r.get("status", ""), flush=True)
        Path(out).write_text(json.dumps(res, indent=1, sort_keys=True))


def _same(a: Any, b: Any, path: str, bad: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                bad.append(f"{path}.{k}: only on one side")
            else:
                _same(a[k], b[k], f"{path}.{k}", bad)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            bad.append(f"{path}: {len(a)} vs {len(b)} items")
        else:
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                _same(x, y, f"{path}[{i}]", bad)
    elif isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-9):
            bad.append(f"{path}: {a!r} vs {b!r}")
    elif a != b:
        bad.append(f"{path}: {a!r} vs {b!r}")


def diff(before: str, after: str) -> int:
    A, B = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    n_same = 0
    worse = 0
    for spec in sorted(set(A) & set(B), key=lambda s: (s.split(":")[0], int(s.split(":")[-1]) if s.split(":")[-1].isdigit() else 0)):
        a, b = A[spec], B[spec]
        ca, cb = a.get("cpu"), b.get("cpu")
        cut_a, cut_b = "ruling" not in a and "cut" in a.get("status", ""), "ruling" not in b and "cut" in b.get("status", "")
        if cut_a and cut_b:
            print(f"{spec}: skipped (CPU limit on both sides)")
            continue
        bad: list[str] = []
        _same({k: v for k, v in a.items() if k != "cpu"}, {k: v for k, v in b.items() if k != "cpu"}, spec, bad)
        if bad:
            worse += 1
            print(f"{spec}: DIFFERENT ({len(bad)} fields), e.g. " + "; ".join(bad[:3]))
        else:
            n_same += 1
            print(f"{spec}: identical  cpu {ca and round(ca, 2)} -> {cb and round(cb, 2)}")
    print(f"{n_same} identical, {worse} different")
    return 1 if worse else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("one")
    o.add_argument("--src", required=True)
    o.add_argument("--case", required=True)
    o.add_argument("--cpu", type=float, default=30.0)
    r = sub.add_parser("run")
    r.add_argument("--src", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--cpu", type=float, default=30.0)
    r.add_argument("--cases", nargs="*")
    d = sub.add_parser("diff")
    d.add_argument("before")
    d.add_argument("after")
    a = ap.parse_args()
    if a.cmd == "one":
        _one(str(Path(a.src).resolve()), a.case, a.cpu)
    elif a.cmd == "run":
        run(str(Path(a.src).resolve()), a.out, a.cases or default_cases(), a.cpu)
    else:
        raise SystemExit(diff(a.before, a.after))


if __name__ == "__main__":
    main()
