"""Sweeps: one line per charge, error lines naming the field, resumable, safe to stop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from chargeref.batch import sweep
from chargeref.batch.sweep import charge_seed
from chargeref.errors import RequestError
from chargeref.systems import find_system


def _scen(charges: list[dict[str, Any]], bx: float = 10.0) -> dict[str, Any]:
    return {
        "format": "chargeref/1", "system": "40k", "board": {"width": 30, "depth": 20},
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [{"id": "A1", "at": [4, 10], "base": "32mm"},
                                                                       {"id": "A2", "at": [4, 11.5], "base": "32mm"}]},
            {"id": "B", "player": 2, "models": [{"id": "B1", "at": [bx, 10], "base": "32mm"}]},
            {"id": "C", "player": 2, "models": [{"id": "C1", "at": [bx + 2, 15], "base": "40mm"}]},
        ],
        "charges": charges,
    }


def write_files(tmp: Path) -> list[str]:
    files = {
        "one.yaml": _scen([{"charger": "A", "targets": ["B"], "dice": [3, 4]},
                           {"charger": "A", "targets": ["B", "C"], "dice": [6, 6]}]),
        "two.json": _scen([{"charger": "A", "targets": ["C"]}, {"charger": "B", "targets": ["A"], "reroll": "failed"}], bx=12),
        "bad.yaml": {**_scen([]), "units": [{"id": "A", "player": 3, "models": []}]},
        "none.yaml": _scen([]),
        "ghost.yaml": _scen([{"charger": "A", "targets": ["B"], "dice": [1, 1], "casualties": ["A2"]},
                             {"charger": "B", "targets": ["C"], "dice": [6, 6]}]),
        "badcharge.yaml": _scen([{"charger": "A", "targets": ["B"], "dice": [6]}]),
    }
    out = []
    for name, data in files.items():
        p = tmp / name
        p.write_text(json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data))
        out.append(str(p))
    return out


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_one_line_per_charge_with_errors_naming_the_field(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    out = tmp_path / "r.jsonl"
    s = sweep(files, str(out), pool="inline")
    rec = lines(out)
    assert [(Path(r["file"]).name, r["charge"]) for r in rec] == [
        ("one.yaml", 0), ("one.yaml", 1), ("two.json", 0), ("two.json", 1), ("bad.yaml", None), ("none.yaml", None),
        ("ghost.yaml", 0), ("ghost.yaml", 1), ("badcharge.yaml", None)]
    assert s.written == 9 and s.skipped == 0 and s.total == 9
    one0, one1 = rec[0]["ruling"], rec[1]["ruling"]
    assert one0["format"] == "chargeref-ruling/1" and one0["charger"] == "A" and one0["roll"]["dice"] == [3, 4]
    assert one1["targets"] == ["B", "C"] and one1["roll"]["total"] == 12
    # undeclared dice are rolled with a seed of (sweep seed, file hash, index)
    assert rec[2]["ruling"]["roll"]["seed"] == charge_seed(0, rec[2]["hash"], 0)
    fields = [p["field"] for p in rec[4]["error"]]
    assert any(f.startswith("units[A]") for f in fields)
    assert rec[5]["error"] == [{"field": "charges", "message": "the scenario declares no charges"}]
    assert rec[6]["ruling"]["success"] is False
    assert rec[7]["ruling"]["eligible"] is False  # a friendly target: a ruling, not an error
    assert [p["field"] for p in rec[8]["error"]] == ["charges[0].dice"]
    assert s.errors == 3


def test_a_rerun_skips_what_is_done(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    out = tmp_path / "r.jsonl"
    sweep(files, str(out), pool="inline")
    before = out.read_bytes()
    s = sweep(files, str(out), pool="inline")
    assert s.written == 0 and s.skipped == 9
    assert out.read_bytes() == before


def test_a_stopped_sweep_resumes_to_the_same_file(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    out = tmp_path / "r.jsonl"
    sweep(files, str(out), pool="inline")
    full = out.read_bytes()
    keep = full.splitlines(keepends=True)
    # stopped in the middle of writing line 4: three whole lines and half a line
    out.write_bytes(b"".join(keep[:3]) + keep[3][: len(keep[3]) // 2])
    s = sweep(files, str(out), pool="inline")
    assert s.skipped == 3 and s.written == 6
    assert out.read_bytes() == full


def test_a_changed_file_is_ruled_again(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    out = tmp_path / "r.jsonl"
    sweep(files, str(out), pool="inline")
    p = Path(files[0])
    data = yaml.safe_load(p.read_text())
    data["charges"][0]["dice"] = [6, 5]
    p.write_text(yaml.safe_dump(data))
    s = sweep(files, str(out), pool="inline")
    assert s.written == 2 and s.skipped == 7
    assert lines(out)[-2]["ruling"]["roll"]["dice"] == [6, 5]
    assert lines(out)[-2]["hash"] != lines(out)[0]["hash"]


def test_process_pool_writes_the_same_file(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    sweep(files, str(a), pool="inline")
    sweep(files, str(b))
    assert a.read_bytes() == b.read_bytes()


def test_unreadable_files_are_refused_by_name_before_any_work(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    out = tmp_path / "r.jsonl"
    with pytest.raises(RequestError) as e:
        sweep([*files, str(tmp_path / "missing.yaml"), str(tmp_path)], str(out), pool="inline")
    assert [p.field for p in e.value.problems] == [str(tmp_path / "missing.yaml"), str(tmp_path)]
    assert not out.exists() or out.read_text() == ""


def test_a_charge_over_its_time_limit_is_an_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each charge runs under its own time limit; one that overruns is an error line
    naming the limit, and the sweep goes on."""
    import importlib
    import time

    from chargeref import budget

    sweep_mod = importlib.import_module("chargeref.batch.sweep")

    real = find_system("40k")

    class Slow:
        def charge(self, scen: Any, req: Any) -> Any:
            time.sleep(0.02)
            budget.check()  # as the solvers' loops do
            return real.charge(scen, req)

    monkeypatch.setattr(sweep_mod, "find_system", lambda name: Slow())
    files = write_files(tmp_path)[:1]
    out = tmp_path / "r.jsonl"
    s = sweep(files, str(out), pool="inline", seconds=0.005)
    rec = lines(out)
    assert s.errors == 2 and [r["charge"] for r in rec] == [0, 1]
    assert rec[0]["error"][0]["field"] == "charges[0].time-limit"
