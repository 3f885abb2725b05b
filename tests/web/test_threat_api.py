"""POST /api/threat: the threat map of the CLI (``threat --json``) for the same input, a
few rows at a time with the same values, and the web's refusals (400, 413, 422, 503)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from fastapi.testclient import TestClient

from chargeref.cli import main
from chargeref.web import MAX_BODY, create_app
from chargeref.web.ops import THREAT_MAX_SPOTS

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "chargeref" / "web" / "examples"


def small_40k() -> dict[str, Any]:
    """Two enemy units and B on a 20 x 14" table."""
    def unit(uid: str, player: int, pts: list[tuple[float, float]]) -> dict[str, Any]:
        return {"id": uid, "player": player, "keywords": ["INFANTRY"],
                "models": [{"id": f"{uid}{k + 1}", "at": list(p), "base": "32mm"} for k, p in enumerate(pts)]}

    return {"format": "chargeref/1", "system": "40k", "board": {"width": 20, "depth": 14},
            "units": [unit("A", 1, [(4, 4), (5.5, 4)]), unit("C", 1, [(16, 10)]), unit("B", 2, [(10, 12), (11.5, 12)])]}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def cli_threat(tmp_path: Path, doc: dict[str, Any], unit: str, step: float) -> Any:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    res = CliRunner().invoke(main, ["threat", str(f), "--unit", unit, "--step", str(step), "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.mark.parametrize(("doc", "unit", "step"), [
    (small_40k(), "B", 2.0),
    (yaml.safe_load((EXAMPLES / "t9a_align_a.yaml").read_text(encoding="utf-8")), "B", 8.0),
])
def test_threat_answers_what_the_cli_answers(client: TestClient, tmp_path: Path, doc: dict[str, Any], unit: str,
                                             step: float) -> None:
    r = client.post("/api/threat", json={"scenario": doc, "unit": unit, "step": step})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["format"] == "chargeref-threat/1" and got["unit"] == unit
    assert got == cli_threat(tmp_path, doc, unit, step)
    flat = [v for row in got["probability"] for v in row]
    assert None in flat or doc["system"] == "t9a"
    assert any(v is not None and v > 0 for v in flat) and any(v == 0 for v in flat)


def test_rows_are_the_same_rows_of_the_whole_map(client: TestClient) -> None:
    doc = small_40k()
    whole = client.post("/api/threat", json={"scenario": doc, "unit": "B", "step": 2.0}).json()
    parts = [client.post("/api/threat", json={"scenario": doc, "unit": "B", "step": 2.0, "rows": [a, min(a + 3, 8)]}).json()
             for a in range(0, 8, 3)]
    assert len(whole["y"]) == 8
    assert [y for p in parts for y in p["y"]] == whole["y"]
    assert [row for p in parts for row in p["probability"]] == whole["probability"]
    assert [row for p in parts for row in p["by"]["A"]] == whole["by"]["A"]
    assert all(p["x"] == whole["x"] for p in parts)


def test_refusals_name_the_field(client: TestClient) -> None:
    doc = small_40k()
    cases = [
        ({"scenario": doc, "step": 2}, 422, "unit"),
        ({"scenario": doc, "unit": "Z", "step": 2}, 422, "unit"),
        ({"scenario": doc, "unit": "B", "step": 0}, 422, "step"),
        ({"scenario": doc, "unit": "B", "step": "two"}, 422, "step"),
        ({"scenario": doc, "unit": "B", "step": 2, "rows": [3, 2]}, 422, "rows"),
        ({"scenario": doc, "unit": "B", "step": 2, "rows": [0, 9]}, 422, "rows"),
        ({"scenario": doc, "unit": "B", "step": 2, "rows": "all"}, 422, "rows"),
        ({"scenario": doc, "unit": "B", "step": 0.1}, 422, "step"),  # 201 x 141 spots
        ({"scenario": {**doc, "board": {"width": -1, "depth": 14}}, "unit": "B"}, 422, "board"),
        ({"scenario": doc, "unit": "B", "colour": "red"}, 400, "colour"),
        ({"unit": "B"}, 400, "scenario"),
    ]
    for body, status, field in cases:
        r = client.post("/api/threat", json=body)
        assert r.status_code == status, (body.get("step"), r.text)
        assert r.json()["error"].startswith(field), r.json()["error"]
    assert 201 * 141 > THREAT_MAX_SPOTS


def test_413_for_a_body_over_the_limit(client: TestClient) -> None:
    r = client.post("/api/threat", content=b"{" + b" " * (MAX_BODY + 10) + b"}",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_503_past_the_time_limit() -> None:
    slow = TestClient(create_app(time_limit=0.05))
    r = slow.post("/api/threat", json={"scenario": small_40k(), "unit": "B", "step": 0.5})
    assert r.status_code == 503, r.text
    assert r.json()["error"].startswith("time-limit: the threat map took longer")
