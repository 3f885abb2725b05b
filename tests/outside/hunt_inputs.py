"""Hunt: broken inputs through the command line (in-process, ``chargeref.cli.main``)
and the web API. Not a test. Each broken scenario or option must be refused with exit
status 2 and one line ``chargeref: FIELD: message`` (no traceback); the web API with a
4xx whose ``error`` names a field. Anything else is printed.

    PYTHONPATH=src python tests/outside/hunt_inputs.py
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import outside_gen as gen  # noqa: E402

NAN = float("nan")


def _set(path: list[Any], value: Any) -> Any:
    def f(s: dict[str, Any]) -> None:
        d = s
        for k in path[:-1]:
            d = d[k]
        if value is KeyError:
            del d[path[-1]]
        else:
            d[path[-1]] = value
    return f


MUTATIONS_40K: list[tuple[str, Any]] = [
    ("at nan", _set(["units", 0, "models", 0, "at"], [NAN, 1.0])),
    ("at inf", _set(["units", 0, "models", 0, "at"], [float("inf"), 1.0])),
    ("at huge", _set(["units", 0, "models", 0, "at"], [1e308, 1.0])),
    ("at empty", _set(["units", 0, "models", 0, "at"], [])),
    ("at 4 numbers", _set(["units", 0, "models", 0, "at"], [1, 2, 3, 4])),
    ("round 0", _set(["units", 0, "models", 0, "base"], {"round": 0})),
    ("round huge", _set(["units", 0, "models", 0, "base"], {"round": 1e9})),
    ("round nan", _set(["units", 0, "models", 0, "base"], {"round": NAN})),
    ("oval one size", _set(["units", 0, "models", 0, "base"], {"oval": [10]})),
    ("rect negative", _set(["units", 0, "models", 0, "base"], {"rect": [-1, 5]})),
    ("base text", _set(["units", 0, "models", 0, "base"], "abc")),
    ("base two kinds", _set(["units", 0, "models", 0, "base"], {"round": 32, "oval": [60, 35]})),
    ("facing text", _set(["units", 0, "models", 0, "facing"], "north")),
    ("facing nan", _set(["units", 0, "models", 0, "facing"], NAN)),
    ("no models", _set(["units", 0, "models"], [])),
    ("model id missing", _set(["units", 0, "models", 0, "id"], KeyError)),
    ("unit id dup", _set(["units", 1, "id"], "A")),
    ("player 3", _set(["units", 1, "player"], 3)),
    ("player text", _set(["units", 1, "player"], "two")),
    ("keywords text", _set(["units", 0, "keywords"], "INFANTRY")),
    ("board width 0", _set(["board", "width"], 0)),
    ("board depth nan", _set(["board", "depth"], NAN)),
    ("board missing", _set(["board"], KeyError)),
    ("edition 8", _set(["rules", "edition"], 8)),
    ("edition text", _set(["rules", "edition"], "ten")),
    ("wtc text", _set(["rules", "wtc"], "yes")),
    ("system aos", _set(["system"], "aos")),
    ("format wrong", _set(["format"], "chargeref/9")),
    ("terrain lava", _set(["terrain"], [{"type": "lava", "id": "L1"}])),
    ("wall one point", _set(["terrain"], [{"type": "wall", "id": "W1", "points": [[10, 10]], "height": 3}])),
    ("wall thickness negative", _set(["terrain"], [{"type": "wall", "id": "W1", "points": [[1, 1], [3, 1]],
                                                    "height": 3, "thickness": -1}])),
    ("wall nan point", _set(["terrain"], [{"type": "wall", "id": "W1", "points": [[1, NAN], [3, 1]], "height": 3}])),
    ("ruin no footprint", _set(["terrain"], [{"type": "ruin", "id": "R1", "walls": []}])),
    ("units not a list", _set(["units"], {"A": 1})),
    ("extra top field", _set(["colour"], "red")),
]

OPTIONS: list[tuple[str, list[str]]] = [
    ("dice 0,7", ["--dice", "0,7"]),
    ("dice one", ["--dice", "3"]),
    ("dice text", ["--dice", "a,b"]),
    ("dice three", ["--dice", "1,2,3"]),
    ("roll 1", ["--roll", "1"]),
    ("roll nan", ["--roll", "nan"]),
    ("modifier 99", ["--dice", "3,4", "--modifier", "99"]),
    ("reroll bogus", ["--dice", "3,4", "--reroll", "sometimes"]),
    ("time limit negative", ["--dice", "3,4", "--time-limit", "-1"]),
    ("seed text", ["--seed", "abc"]),
]


def run_cli(args: list[str]) -> tuple[int, str, str]:
    from chargeref.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main.main(args=args, prog_name="chargeref")
        except SystemExit as e:
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


def judge(label: str, code: int, out: str, err: str) -> str | None:
    lines = err.strip().splitlines()
    if "Traceback" in err or code == 1:
        return f"{label}: exit {code}, crash: {err.strip()[-600:]}"
    if code == 0:
        return None  # accepted (a meaning the contract may allow): printed for a look when --all
    if code != 2:
        return f"{label}: exit {code}: {err.strip()[:300]}"
    if len(lines) != 1:
        return f"{label}: {len(lines)} lines: {err.strip()[:400]}"
    head = lines[0].removeprefix("chargeref: ")
    if not lines[0].startswith("chargeref: ") or ":" not in head:
        return f"{label}: no field named: {lines[0]}"
    return None


def main() -> None:
    show_all = "--all" in sys.argv
    scen0, req = gen.scenario_40k(401)
    tmp = Path(tempfile.mkdtemp())
    found = 0
    for label, mut in MUTATIONS_40K:
        s = copy.deepcopy(scen0)
        mut(s)
        f = tmp / "s.json"
        f.write_text(json.dumps(s))  # NaN is written as NaN (Python's json; not strict JSON)
        args = ["charge", str(f), "--charger", "A", "--dice", "3,4", "--json"]
        for t in req["targets"]:
            args += ["--target", t]
        code, out, err = run_cli(args)
        bad = judge(label, code, out, err)
        if bad or show_all:
            found += bool(bad)
            print(bad or f"{label}: exit {code} {err.strip()[:200]}")
    f = tmp / "s.json"
    f.write_text(json.dumps(scen0))
    for label, opt in OPTIONS:
        args = ["charge", str(f), "--charger", "A", "--json", *opt] + [a for t in req["targets"] for a in ("--target", t)]
        code, out, err = run_cli(args)
        bad = judge(label, code, out, err)
        if code == 0 and not opt[0] == "--seed":
            bad = bad or f"{label}: accepted (exit 0)"
        if bad or show_all:
            found += bool(bad)
            print(bad or f"{label}: exit {code} {err.strip()[:200]}")
    print(f"{found} finding(s)")


if __name__ == "__main__":
    main()
