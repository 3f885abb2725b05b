"""Record and replay the rulings of T9A and Warmaster, to prove a speed-up or a change of
search leaves every ruling as it was.

Recording is a pytest plugin: ``pytest tests/t9a tests/warmaster -p snapshot_tool`` with
``CHARGEREF_SNAPSHOT_OUT=DIR`` wraps each system's ``charge``, ``needed`` and ``phase``
and writes every call (scenario data, request, result) to ``DIR/<system>.json.gz``.
``test_snapshot.py`` replays them (see ``compare``).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import os
from pathlib import Path
from typing import Any

from chargeref.scenario import scenario_from_data, scenario_to_data
from chargeref.systems import ChargeRequest, find_system

SYSTEMS = ("t9a", "warmaster")
#: numbers in rulings compare to this (the project's exactness tolerance)
NUM_TOL = 1e-6


def request_to_data(req: ChargeRequest) -> dict[str, Any]:
    return json.loads(json.dumps(dataclasses.asdict(req)))


def request_from_data(d: dict[str, Any]) -> ChargeRequest:
    kw = dict(d)
    for k in ("targets", "dice", "reaction_dice", "casualties", "redirect_dice"):
        if kw.get(k) is not None:
            kw[k] = tuple(kw[k])
    return ChargeRequest(**kw)


def result_to_data(res: Any) -> Any:
    if hasattr(res, "to_json_data"):
        return json.loads(json.dumps(res.to_json_data()))
    if hasattr(res, "model_dump"):
        return json.loads(json.dumps(res.model_dump(mode="json")))
    return json.loads(json.dumps(res))


def run(system: str, call: dict[str, Any]) -> Any:
    sysm = find_system(system)
    scen = scenario_from_data(call["scenario"])
    if call["kind"] == "phase":
        return result_to_data(sysm.phase(scen, call["seed"]))
    return result_to_data(getattr(sysm, call["kind"])(scen, request_from_data(call["request"])))


def compare(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two recorded results differ (numbers within NUM_TOL count as equal)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return [] if a == b else [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isclose(a, b, rel_tol=0, abs_tol=NUM_TOL) or a == b:
            return []
        return [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: only in one" for k in set(a) ^ set(b)]
        for k in a.keys() & b.keys():
            out += compare(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += compare(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def load(system: str, folder: Path) -> list[dict[str, Any]]:
    with gzip.open(folder / f"{system}.json.gz", "rt") as fh:
        return json.load(fh)  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------- recording

_CALLS: dict[str, dict[str, dict[str, Any]]] = {s: {} for s in SYSTEMS}


def _wrap(system: str) -> None:
    sysm = find_system(system)
    cls = type(sysm)
    for kind in ("charge", "needed", "phase"):
        orig = getattr(cls, kind)

        def wrapper(self, scen, arg, _orig=orig, _kind=kind):  # type: ignore[no-untyped-def]
            res = _orig(self, scen, arg)
            try:
                call: dict[str, Any] = {"kind": _kind, "scenario": scenario_to_data(scen)}
                if _kind == "phase":
                    call["seed"] = arg
                else:
                    call["request"] = request_to_data(arg)
                key = json.dumps(call, sort_keys=True)
                if key not in _CALLS[system]:
                    call["result"] = result_to_data(res)
                    _CALLS[system][key] = call
            except Exception:  # noqa: BLE001 - a call we cannot record is left out
                pass
            return res

        setattr(cls, kind, wrapper)


def pytest_configure(config: Any) -> None:
    if os.environ.get("CHARGEREF_SNAPSHOT_OUT"):
        for s in SYSTEMS:
            _wrap(s)


def pytest_unconfigure(config: Any) -> None:
    out = os.environ.get("CHARGEREF_SNAPSHOT_OUT")
    if not out:
        return
    for s in SYSTEMS:
        calls = list(_CALLS[s].values())
        if calls:
            with gzip.open(Path(out) / f"{s}.json.gz", "wt") as fh:
                json.dump(calls, fh)


def replay_all(folder: Path, systems: tuple[str, ...] = SYSTEMS) -> int:
    """Replay every recorded call; print the differences; the number that differ."""
    import time

    bad = 0
    for s in systems:
        calls = load(s, folder)
        cpu = 0.0
        for i, c in enumerate(calls):
            t = time.process_time()
            d = compare(c["result"], run(s, c))
            cpu += time.process_time() - t
            if d:
                bad += 1
                print(s, i, c["kind"], d[:5])
        print(f"{s}: {len(calls)} calls replayed in {cpu:.1f} s CPU")
    return bad


if __name__ == "__main__":
    import sys

    here = Path(__file__).resolve().parents[1]
    n = replay_all(here / "t9a" / "data", ("t9a",)) + replay_all(here / "warmaster" / "data", ("warmaster",))
    sys.exit(1 if n else 0)
