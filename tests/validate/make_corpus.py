"""Build ``tests/validate/corpus.json.gz``: rulings to re-validate (tests/validate/test_corpus.py).

Run once from the repository root (``python tests/validate/make_corpus.py``). It resolves
charges on every example scenario (examples/40k, t9a, warmaster), on the benchmark
scenarios and on a few WTC and edition 9 variants, adds altered copies of successful
rulings (a model pulled back from contact, a wrong roll, an emptied `engaged` list, a
move pushed into an enemy), and stores each ruling with the violation codes the
validator gave it when the corpus was made. The rulings are stored, not recomputed, so
the test judges the validator alone: a faster validator must give the same codes.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data  # noqa: E402
from chargeref.scenario import scenario_to_data  # noqa: E402
from chargeref.validate import validate_ruling  # noqa: E402

OUT = Path(__file__).resolve().parent / "corpus.json.gz"
#: the scenarios (by a hash of their data) and the rulings made on them
SCENARIOS: dict[str, Any] = {}
RULINGS: list[dict[str, Any]] = []


def _units(data: dict[str, Any]) -> list[tuple[str, int]]:
    return [(u["id"], int(u["player"])) for u in data.get("units", [])]


def _pairs(data: dict[str, Any]) -> list[tuple[str, str]]:
    us = _units(data)
    return [(a, b) for a, pa in us for b, pb in us if pa != pb]


def _variants(ruling: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Altered copies of a successful ruling that break one thing each."""
    out: list[tuple[str, dict[str, Any]]] = []
    if not ruling.get("success") or not ruling.get("moves"):
        return out
    r = copy.deepcopy(ruling)
    r["engaged"] = []
    out.append(("no_engaged", r))
    if ruling.get("roll"):
        r = copy.deepcopy(ruling)
        r["roll"]["total"] = max(2, int(r["roll"]["total"]) - 3)
        r["roll"]["dice"] = []
        out.append(("low_roll", r))
    # pull one moved model back along its move by 0.4 of the way (path straightened)
    for frac, tag in ((0.4, "pulled_back"), (0.03, "nudged_back")):
        r = copy.deepcopy(ruling)
        mv = r["moves"][len(r["moves"]) // 2]
        a, b = mv["from"], mv["to"]
        to = [b[0] + (a[0] - b[0]) * frac, b[1] + (a[1] - b[1]) * frac, *b[2:]]
        mv["to"] = to
        mv.pop("segments", None)
        mv["path"] = [a[:2], to[:2]]
        mv["distance"] = math.dist(a[:2], to[:2])
        if r.get("after"):
            for u in r["after"]["units"]:
                for m in u.get("models", []):
                    if m["id"] == mv["id"]:
                        m["at"] = to
        out.append((tag, r))
    return out


def _dump(name: str, before: Any, ruling: Any, extra: list[tuple[str, dict[str, Any]]] | None = None) -> int:
    data = ruling.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(ruling, "model_dump") else ruling
    items = [("as_ruled", data), *(_variants(data))]
    bdata = scenario_to_data(before)
    key = hashlib.sha1(json.dumps(bdata, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]
    SCENARIOS[key] = bdata
    for tag, r in items:
        codes = sorted(v.code for v in validate_ruling(before, r))
        RULINGS.append({"name": f"{name}:{tag}", "before": key, "ruling": r, "codes": codes})
    return len(items)


def forty_k(name: str, scen: Any, rolls: tuple[int, ...] = (7, 12)) -> int:
    system = find_system("40k")
    data = scenario_to_data(scen)
    n = 0
    for a, b in _pairs(data):
        for roll in rolls:
            try:
                r = system.charge(scen, ChargeRequest(charger=a, targets=(b,), roll=roll))
            except Exception as exc:  # noqa: BLE001 - refused requests are not rulings
                print("  skip", name, a, b, roll, type(exc).__name__, str(exc)[:80])
                continue
            n += _dump(f"{name}__{a}_{b}_{roll}", scen, r)
    return n


def with_rules(scen: Any, **rules: Any) -> Any:
    d = scenario_to_data(scen)
    d["rules"] = {**d.get("rules", {}), **rules}
    return scenario_from_data(d)


def main() -> None:
    n = 0
    for path in sorted((ROOT / "examples" / "40k").rglob("*.yaml")):
        scen = load_scenario(path)
        rel = path.relative_to(ROOT / "examples").with_suffix("").as_posix().replace("/", "_")
        n += forty_k(rel, scen)
        if scen.rules.edition == 10:
            n += forty_k(rel + "_ed9", with_rules(scen, edition=9), rolls=(9,))
    from scenarios import CASES

    for cname, make in CASES.items():
        data, charger, targets, roll = make()
        scen = scenario_from_data(data)
        system = find_system("40k")
        r = system.charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), roll=roll))
        n += _dump("bench_" + cname, scen, r)
        r = system.charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), roll=max(2, roll - 2)))
        n += _dump("bench_" + cname + "_short", scen, r)
    t9a = find_system("t9a")
    for path in sorted((ROOT / "examples" / "t9a").glob("*.yaml")):
        scen = load_scenario(path)
        for a, b in _pairs(scenario_to_data(scen))[:4]:
            for dice in ((3, 3), (6, 6)):
                try:
                    r = t9a.charge(scen, ChargeRequest(a, (b,), dice=dice))
                except Exception as exc:  # noqa: BLE001
                    print("  skip", path.name, a, b, type(exc).__name__)
                    continue
                n += _dump(f"t9a_{path.stem}__{a}_{b}_{dice[0]}{dice[1]}", scen, r)
    import bench_t9a
    import bench_warmaster

    r = bench_t9a.block20_vs_block25_angled()
    n += _dump("bench_t9a_block", bench_t9a.ANGLED, r)
    wm = find_system("warmaster")
    for path in sorted((ROOT / "examples" / "warmaster").glob("*.yaml")):
        scen = load_scenario(path)
        for a, b in _pairs(scenario_to_data(scen))[:4]:
            try:
                r = wm.charge(scen, ChargeRequest(a, (b,), dice=(2,)))
            except Exception as exc:  # noqa: BLE001
                print("  skip", path.name, a, b, type(exc).__name__)
                continue
            n += _dump(f"wm_{path.stem}__{a}_{b}", scen, r)
    for cname, fn in bench_warmaster.CASES.items():
        n += _dump("bench_" + cname, fn.before, fn())
    RULINGS.sort(key=lambda r: r["name"])
    with gzip.open(OUT if len(sys.argv) < 2 else Path(sys.argv[1]), "wt") as fh:
        json.dump({"scenarios": SCENARIOS, "rulings": RULINGS}, fh, sort_keys=True, separators=(",", ":"))
    print(n, "rulings")


if __name__ == "__main__":
    main()
