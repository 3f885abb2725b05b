"""``chargeref threat`` and ``chargeref sweep`` on the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_sweep import write_files
from threat_helpers import R32, one_on_one

from chargeref.cli import main

SCEN = {
    "format": "chargeref/1", "system": "40k", "board": {"width": 12, "depth": 8},
    "units": [
        {"id": "A", "player": 1, "models": [{"id": "A1", "at": [3, 4], "base": "32mm"}]},
        {"id": "B", "player": 2, "models": [{"id": "B1", "at": [9, 4], "base": "32mm"}]},
    ],
}


@pytest.fixture
def scen_file(tmp_path: Path) -> Path:
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(SCEN))
    return p


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_threat_json_follows_the_contract(scen_file: Path) -> None:
    r = run("threat", str(scen_file), "--unit", "B", "--step", "2", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["format"] == "chargeref-threat/1" and data["unit"] == "B" and data["step"] == 2.0
    assert data["x"] == [0, 2, 4, 6, 8, 10, 12] and data["y"] == [0, 2, 4, 6, 8]
    assert data["probability"][0][0] is None  # half off the board
    # (8, 4): 5" between centres
    assert data["probability"][2][4] == float(one_on_one(5 - 2 * R32))
    assert data["by"]["A"] == data["probability"]


def test_threat_writes_a_heat_map_and_a_summary(scen_file: Path, tmp_path: Path) -> None:
    svg, out = tmp_path / "t.svg", tmp_path / "t.json"
    r = run("threat", str(scen_file), "--unit", "B", "--step", "2", "--svg", str(svg), "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "threat to B: 7 x 5 spots" in r.output and "highest threat" in r.output
    text = svg.read_text()
    data = json.loads(out.read_text())
    cells = sum(v is not None for row in data["probability"] for v in row)
    assert text.count("<title>(") == cells  # one cell per standable spot, with its value
    assert 'class="threat"' in text and 'class="model p1"' in text


def test_threat_refusals_name_the_option(scen_file: Path) -> None:
    r = run("threat", str(scen_file), "--unit", "Z")
    assert r.exit_code == 2 and "--unit" in r.output
    r = run("threat", str(scen_file), "--unit", "B", "--step", "-1")
    assert r.exit_code == 2 and "--step" in r.output
    r = run("threat", str(scen_file), "--unit", "B", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert r.exit_code == 2 and "--workers/--scheduler" in r.output
    r = run("threat", str(scen_file), "--unit", "B", "--out", str(scen_file))
    assert r.exit_code == 2 and "--out" in r.output


def test_without_dask_workers_are_refused_with_exit_2(scen_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    r = run("threat", str(scen_file), "--unit", "B", "--workers", "2")
    assert r.exit_code == 2
    assert "--workers" in r.output and "chargeref[distributed]" in r.output
    out = tmp_path / "x.jsonl"
    r = run("sweep", str(scen_file), "--out", str(out), "--scheduler", "tcp://127.0.0.1:1")
    assert r.exit_code == 2 and "--scheduler" in r.output
    assert not out.exists()  # refused before anything is written


def test_sweep_writes_then_resumes(tmp_path: Path) -> None:
    files = write_files(tmp_path)
    out = tmp_path / "r.jsonl"
    r = run("sweep", *files, "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "9 line(s) written" in r.output and "0 already done" in r.output
    assert len(out.read_text().splitlines()) == 9
    r = run("sweep", *files, "--out", str(out))
    assert r.exit_code == 0 and "0 line(s) written" in r.output and "9 already done" in r.output
    r = run("sweep", *files, "--out", files[0])
    assert r.exit_code == 2 and "--out" in r.output
