"""The service layer: the same answers as the command line, refusals that name the
request field, one validation path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from chargeref import service
from chargeref.budget import WorkLimitExceeded
from chargeref.cli import main
from chargeref.errors import ChargerefError, RequestError, ScenarioError

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
CASES = [
    (EX / "wtc_walkthrough.yaml", "A", ["B", "C"], ["--dice", "4,6"], {"dice": [4, 6]}),
    (EX / "40k" / "oval_short_axis.yaml", "A", ["M"], ["--roll", "6", "--modifier", "1"], {"roll": 6, "modifier": 1}),
    (EX / "t9a" / "align_a.yaml", "A", ["B"], ["--dice", "3,4"], {"dice": "3,4"}),
    (EX / "warmaster" / "diagram_33_3.yaml", "C", ["E"], [], {}),
]
runner = CliRunner()


def doc(path: Path):
    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize("path,charger,targets,cli,kw", CASES, ids=lambda x: getattr(x, "name", None))
def test_charge_and_odds_identical_to_the_cli(path, charger, targets, cli, kw):
    tflags = [a for t in targets for a in ("--target", t)]
    res = runner.invoke(main, ["charge", str(path), "--charger", charger, *tflags, *cli, "--json"])
    assert res.exit_code == 0, res.output
    assert service.charge(doc(path), charger, targets, **kw) == json.loads(res.stdout)
    res = runner.invoke(main, ["odds", str(path), "--charger", charger, *tflags, "--json"])
    assert res.exit_code == 0, res.output
    assert service.odds(doc(path), charger, targets) == json.loads(res.stdout)


def test_check_draw_phase_validate():
    d = doc(EX / "t9a" / "align_a.yaml")
    assert service.check(d) == {"ok": True, "problems": []}
    bad = {**d, "units": d["units"] + [dict(d["units"][0])]}
    out = service.check(bad)
    assert out["ok"] is False and out["problems"][0]["field"].startswith("units[")
    assert service.draw(d).lstrip().startswith("<svg") or "<svg" in service.draw(d)[:300]
    ph = service.phase(d, seed=1)
    assert ph["format"] == "chargeref-phase/1" and len(ph["rulings"]) == 1
    ruling = service.charge(d, "A", ["B"], dice=[3, 4])
    assert "<svg" in service.draw(d, ruling)[:300]
    assert service.validate(d, ruling) == {"legal": True, "violations": []}


def test_refusals_name_request_fields():
    d = doc(EX / "wtc_walkthrough.yaml")
    for kw, field in (({"roll": 13}, "roll"), ({"roll": True}, "roll"), ({"modifier": 7}, "modifier"),
                      ({"dice": [3, 4, 5]}, "dice"), ({"dice": [0, 4]}, "dice"), ({"seed": -1}, "seed"),
                      ({"reroll": "all"}, "reroll"), ({"reaction": "flee"}, "reaction"), ({"colour": "red"}, "colour")):
        with pytest.raises(RequestError) as info:
            service.charge(d, "A", ["B"], **kw)
        assert info.value.problems[0].field == field, (kw, info.value.problems)
    with pytest.raises(RequestError) as info:
        service.charge(d, "Q", ["Z"])
    assert [p.field for p in info.value.problems] == ["charger", "target"]
    with pytest.raises(ScenarioError):
        service.validate(d, {"format": "chargeref-ruling/1", "system": "40k"})


def test_time_limit_is_a_refusal():
    d = doc(EX / "t9a" / "example_charge_phase.yaml")
    with pytest.raises(WorkLimitExceeded) as info:
        service.phase(d, seed=1, time_limit=1e-9)
    assert info.value.problems[0].field == "time-limit"
    assert isinstance(info.value, ChargerefError)


def test_parse_scenario_is_what_check_accepts():
    d = doc(EX / "wtc_walkthrough.yaml")
    d["charges"] = [{"charger": "A", "targets": ["B"], "dice": [3]}]
    assert service.check(d)["problems"] == [{"field": "charges[0].dice", "message": "this charge rolls two dice (got 1)"}]
    with pytest.raises(ScenarioError):
        service.parse_scenario(d)
    with pytest.raises(ScenarioError):
        service.phase(d)


@pytest.mark.parametrize("charger,targets,kw,field", [
    (5, ["B"], {}, "charger"),
    ("A", 7, {}, "target"),
    ("A", ["B"], {"dice": {"x": 1}}, "dice"),
    ("A", ["B"], {"roll": [1]}, "roll"),
    ("A", ["B"], {"modifier": "x"}, "modifier"),
    ("A", ["B"], {"seed": 1.5}, "seed"),
    ("A", ["B"], {"reroll": ["x"]}, "reroll"),
    ("A", ["B"], {"reaction": {"a": 1}}, "reaction"),
    ("A", ["B"], {"reaction": "flee", "reaction_dice": [[1]]}, "reaction_dice"),
    ("A", ["B"], {"redirect": ["B"]}, "redirect"),
    ("A", ["B"], {"casualties": 5}, "casualties"),
    ("A", ["B"], {"first_stand": 3}, "first_stand"),
])
def test_wrongly_typed_request_fields_are_refused(charger, targets, kw, field):
    """What a web body may hold: every wrong type is a refusal naming the field."""
    d = doc(EX / "t9a" / "align_a.yaml")
    with pytest.raises(RequestError) as info:
        service.charge(d, charger, targets, **kw)
    assert info.value.problems[0].field == field
