"""The command line: rulings, JSON contract fields, drawings and refusals (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from h40k import EXAMPLES, scen40k, unit40k

from chargeref.cli import main
from chargeref.scenario import scenario_from_data
from chargeref.testing import assert_legal_charge

runner = CliRunner()


def run(*args: str):
    return runner.invoke(main, list(args), catch_exceptions=False)


def write(tmp_path: Path, data, name="s.yaml") -> str:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    return str(p)


def test_walkthrough_json_ruling_passes_validator(tmp_path):
    out = tmp_path / "r.json"
    svg = tmp_path / "r.svg"
    res = run("charge", str(EXAMPLES / "wtc_walkthrough.yaml"), "--charger", "A", "--target", "B", "--target", "C",
              "--dice", "4,6", "--json", "--out", str(out), "--svg", str(svg))
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    for key in ("format", "system", "charger", "targets", "eligible", "needed", "roll", "success", "procedure",
                "moves", "engaged", "reasons", "after"):
        assert key in data
    assert data["format"] == "chargeref-ruling/1" and data["success"] is True
    assert data["roll"] == {"dice": [4, 6], "modifier": 0, "total": 10}
    m = data["moves"][0]
    assert set(m) >= {"id", "from", "to", "distance", "contacts", "token"}
    assert json.loads(out.read_text()) == data
    assert svg.read_text().startswith("<svg") or "<svg" in svg.read_text()[:200]
    # `after` can be fed back in
    after = scenario_from_data(data["after"])
    assert after.units[0].flags == ["charged"]
    before = scenario_from_data(yaml.safe_load((EXAMPLES / "wtc_walkthrough.yaml").read_text()))
    assert_legal_charge(before, data)


def test_summary_is_human(tmp_path):
    res = run("charge", str(EXAMPLES / "wtc_walkthrough.yaml"), "--charger", "A", "--target", "B", "--target", "C", "--dice", "4,6")
    assert res.exit_code == 0
    assert "SUCCESS" in res.output and "needed" in res.output


def test_failed_charge_exit_zero():
    res = run("charge", str(EXAMPLES / "wtc_walkthrough.yaml"), "--charger", "A", "--target", "B", "--target", "C", "--dice", "1,1", "--json")
    assert res.exit_code == 0
    assert json.loads(res.output)["success"] is False


def test_odds_json():
    res = run("odds", str(EXAMPLES / "40k" / "oval_short_axis.yaml"), "--charger", "A", "--target", "M", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["needed"]["roll"] == 7
    assert d["probability"] == pytest.approx(21 / 36)
    assert d["table"]["7"] == pytest.approx(21 / 36)
    res = run("odds", str(EXAMPLES / "40k" / "oval_short_axis.yaml"), "--charger", "A", "--target", "M", "--reroll", "failed", "--json")
    assert json.loads(res.output)["probability"] == pytest.approx(1 - (15 / 36) ** 2)


def test_schema_has_both_documents():
    res = run("schema")
    d = json.loads(res.output)
    assert "scenario" in d and "ruling" in d
    assert "moves" in json.dumps(d["ruling"])


def test_check_ok():
    res = run("check", str(EXAMPLES / "wtc_walkthrough.yaml"))
    assert res.exit_code == 0 and res.output.startswith("ok")


# ------------------------------------------------------------------ refusals


def good():
    return scen40k([unit40k("A", 1, [(10, 10), (11.5, 10)]), unit40k("B", 2, [(10, 16)])])


BAD = {
    "not yaml": "format: [unclosed",
    "not a mapping": "- 1\n- 2\n",
    "wrong format": {**good(), "format": "chargeref/9"},
    "unknown system": {**good(), "system": "chess"},
    "nan": "NaN",
    "overlap": "overlap",
    "off board": "off",
    "absurd base": "absurd",
    "zero board": "zero",
    "unknown keyword": "kw",
    "duplicate unit": "dup",
    "inside wall": "wall",
    "inside impassable": "imp",
    "unknown field": "extra",
    "huge board": "huge",
}


def make_bad(kind):
    d = good()
    if kind == "nan":
        d["units"][0]["models"][0]["at"] = [float("nan"), 3]
        return json.dumps(d).replace("NaN", "NaN")
    if kind == "overlap":
        d["units"][0]["models"][1]["at"] = [10.5, 10]
    elif kind == "off":
        d["units"][0]["models"][0]["at"] = [0.2, 10]
    elif kind == "absurd":
        d["units"][0]["models"][0]["base"] = {"round": 50000}
    elif kind == "zero":
        d["board"]["width"] = 0
    elif kind == "kw":
        d["units"][0]["keywords"] = ["INFANTRY", "WIZARD"]
    elif kind == "dup":
        d["units"][1]["id"] = "A"
        for m in d["units"][1]["models"]:
            m["id"] = "Z" + m["id"]
    elif kind == "wall":
        d["terrain"] = [{"type": "wall", "id": "w", "points": [[5, 10], [15, 10]], "height": 3}]
    elif kind == "imp":
        d["terrain"] = [{"type": "impassable", "id": "lake", "polygon": [[9, 15], [11, 15], [11, 17], [9, 17]]}]
    elif kind == "extra":
        d["units"][0]["models"][0]["colour"] = "red"
    elif kind == "huge":
        d["board"]["width"] = 1e9
    return d


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_exits_2_with_one_line_per_problem(tmp_path, name):
    spec = BAD[name]
    data = make_bad(spec) if spec in ("nan", "overlap", "off", "absurd", "zero", "kw", "dup", "wall", "imp", "extra", "huge") else spec
    path = write(tmp_path, data if isinstance(data, str) else json.dumps(data), "s.json" if not isinstance(data, str) or data.startswith("{") else "s.yaml")
    for cmd in (["check", path], ["charge", path, "--charger", "A", "--target", "B", "--roll", "8"]):
        res = runner.invoke(main, cmd)
        assert res.exit_code == 2, (name, res.output)
        assert "Traceback" not in res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert lines and all(ln.startswith("chargeref: ") for ln in lines), res.output


def test_unknown_unit_and_bad_dice(tmp_path):
    path = write(tmp_path, good())
    res = runner.invoke(main, ["charge", path, "--charger", "X", "--target", "B"])
    assert res.exit_code == 2 and "charger" in res.output and "'X'" in res.output
    res = runner.invoke(main, ["charge", path, "--charger", "A", "--target", "Q"])
    assert res.exit_code == 2 and "target" in res.output
    res = runner.invoke(main, ["charge", path, "--charger", "A", "--target", "B", "--dice", "7,1"])
    assert res.exit_code == 2 and "--dice" in res.output
    res = runner.invoke(main, ["charge", path, "--charger", "A", "--target", "B", "--dice", "3"])
    assert res.exit_code == 2
    res = runner.invoke(main, ["check", str(tmp_path / "missing.yaml")])
    assert res.exit_code == 2 and "no such file" in res.output


def test_problems_name_the_field(tmp_path):
    d = good()
    d["units"][0]["models"][1]["at"] = [10.5, 10]
    d["units"][0]["keywords"] = ["INFANTRY"]
    res = runner.invoke(main, ["check", write(tmp_path, d)])
    assert "units[A].models[A1].at" in res.output or "units[A].models[A2].at" in res.output
    d = good()
    d["units"][0]["models"][0]["base"] = {"round": -3}
    res = runner.invoke(main, ["check", write(tmp_path, d)])
    assert res.exit_code == 2 and "units[A].models[A1].base" in res.output
