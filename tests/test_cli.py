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


# ------------------------------------------------------------------ hardening (issue 10)

WALK = EXAMPLES / "wtc_walkthrough.yaml"
T9A = EXAMPLES / "t9a" / "align_a.yaml"
WM = EXAMPLES / "warmaster" / "diagram_33_3.yaml"


def err_lines(res) -> list[str]:
    return [ln for ln in res.stderr.splitlines() if ln.strip()]


def refused(res, field: str) -> None:
    """Exit 2, no traceback, every line 'chargeref: <field>: ...', one naming ``field``."""
    assert res.exit_code == 2, res.output
    lines = err_lines(res)
    assert lines and all(ln.startswith("chargeref: ") for ln in lines), res.output
    assert "Traceback" not in res.output
    assert any(ln.startswith(f"chargeref: {field}:") for ln in lines), (field, lines)


def charge40k(*extra: str):
    return runner.invoke(main, ["charge", str(WALK), "--charger", "A", "--target", "B", "--json", *extra])


@pytest.mark.parametrize("roll,ok", [("1", False), ("2", True), ("12", True), ("13", False), ("-1", False),
                                     ("1000", False), ("1e30", False), ("7.5", False)])
def test_roll_range_edges_40k(roll, ok):
    res = charge40k("--roll", roll)
    if ok:
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["roll"]["total"] == int(roll)
    else:
        refused(res, "--roll")


@pytest.mark.parametrize("mod,ok", [("-7", False), ("-6", True), ("6", True), ("7", False), ("1000", False)])
def test_modifier_range_edges(mod, ok):
    res = charge40k("--roll", "7", "--modifier", mod)
    if ok:
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["roll"] == {"dice": [], "modifier": int(mod), "total": 7 + int(mod)}
    else:
        refused(res, "--modifier")


def test_modifier_is_applied_with_a_fixed_roll():
    # A needs a 7 to reach B: a fixed 6 fails, a fixed 6 with +1 makes it
    assert json.loads(charge40k("--roll", "7").stdout)["needed"]["roll"] == 7
    assert json.loads(charge40k("--roll", "6").stdout)["success"] is False
    r = json.loads(charge40k("--roll", "6", "--modifier", "1").stdout)
    assert r["success"] is True and r["roll"]["total"] == 7


def test_t9a_roll_minus_one_is_refused_not_a_success():
    res = runner.invoke(main, ["charge", str(T9A), "--charger", "A", "--target", "B", "--roll", "-1"])
    refused(res, "--roll")


@pytest.mark.parametrize("dice,ok", [("3,4", True), ("1,6", True), ("0,4", False), ("3,7", False), ("3", False),
                                     ("3,4,5", False), ("a,b", False), ("", False), ("3,,4", False)])
def test_charge_dice_faces_and_count_40k(dice, ok):
    res = charge40k("--dice", dice)
    if ok:
        assert res.exit_code == 0 and json.loads(res.stdout)["roll"]["dice"] == [int(x) for x in dice.split(",")]
    else:
        refused(res, "--dice")


def test_reaction_and_redirect_dice_checked_t9a():
    base = ["charge", str(T9A), "--charger", "A", "--target", "B", "--dice", "3,4"]
    refused(runner.invoke(main, base + ["--reaction", "flee", "--reaction-dice", "1,2,3,4,5,6,6"]), "--reaction-dice")
    refused(runner.invoke(main, base + ["--reaction", "flee", "--reaction-dice", "2"]), "--reaction-dice")
    refused(runner.invoke(main, base + ["--reaction", "hold", "--reaction-dice", "2,3"]), "--reaction-dice")
    ok = runner.invoke(main, base + ["--reaction", "flee", "--reaction-dice", "2,3"])
    assert ok.exit_code == 0, ok.output
    refused(runner.invoke(main, base + ["--redirect-dice", "3"]), "--redirect-dice")
    refused(runner.invoke(main, base + ["--dice", "3,4,5"]), "--dice")  # no Swiftstride: two dice


def test_warmaster_takes_one_zone_die_and_no_roll():
    base = ["charge", str(WM), "--charger", "C", "--target", "E"]
    refused(runner.invoke(main, base + ["--dice", "3,4"]), "--dice")
    refused(runner.invoke(main, base + ["--roll", "7"]), "--roll")
    refused(runner.invoke(main, base + ["--modifier", "1"]), "--modifier")


@pytest.mark.parametrize("args,field", [
    (["charge", str(WALK), "--charger", "Z", "--target", "B"], "--charger"),
    (["charge", str(WALK), "--charger", "A", "--target", "Z"], "--target"),
    (["charge", str(T9A), "--charger", "A", "--target", "B", "--redirect", "Z"], "--redirect"),
    (["charge", str(WALK), "--charger", "A", "--target", "B", "--redirect", "B"], "--redirect"),
    (["charge", str(WALK), "--charger", "A", "--target", "B", "--casualty", "Z9"], "--casualty"),
    (["odds", str(WALK), "--charger", "A", "--target", "Z"], "--target"),
    (["heroic", str(WALK), "--unit", "Z"], "--unit"),
    (["heroic", str(WALK), "--unit", "B", "--against", "Z"], "--against"),
    (["fight", str(WALK), "--unit", "Z"], "--unit"),
    (["fight", str(WALK), "--unit", "A", "--keep-token", "Z1"], "--keep-token"),
    (["charge", str(WALK), "--charger", "A", "--target", "B", "--seed", "-5"], "--seed"),
    (["charge", str(WALK), "--charger", "A", "--target", "B", "--time-limit", "-1"], "--time-limit"),
    (["charge", str(WALK), "--charger", "A", "--target", "B", "--dice", "3,4", "--roll", "7"], "--roll"),
])
def test_unknown_ids_and_bad_options_name_the_option(args, field):
    refused(runner.invoke(main, args), field)


def test_usage_errors_are_one_line():
    res = runner.invoke(main, ["charge", str(WALK), "--target", "B"])
    refused(res, "--charger")
    res = runner.invoke(main, ["charge", str(WALK), "--charger", "A", "--bogus"])
    refused(res, "--bogus")


# ------------------------------------------------------------------ writes


def _copy_input(tmp_path: Path) -> Path:
    p = tmp_path / "in.yaml"
    p.write_bytes(WALK.read_bytes())
    return p


@pytest.mark.parametrize("opt", ["--out", "--svg"])
def test_never_writes_onto_the_input(tmp_path, opt):
    src = _copy_input(tmp_path)
    before = src.read_bytes()
    (tmp_path / "link.yaml").symlink_to(src)
    os_link = tmp_path / "hard.yaml"
    import os

    os.link(src, os_link)
    for target in (src, tmp_path / "link.yaml", os_link, tmp_path / "." / "in.yaml"):
        res = runner.invoke(main, ["charge", str(src), "--charger", "A", "--target", "B", "--roll", "8", opt, str(target)])
        refused(res, opt)
        assert src.read_bytes() == before
    res = runner.invoke(main, ["validate", str(src), str(src)])
    assert src.read_bytes() == before


def test_no_output_for_a_refused_ruling_and_no_temp_files(tmp_path):
    src = _copy_input(tmp_path)
    out, svg = tmp_path / "o" / "r.json", tmp_path / "o" / "r.svg"
    res = runner.invoke(main, ["charge", str(src), "--charger", "A", "--target", "Z", "--out", str(out), "--svg", str(svg)])
    refused(res, "--target")
    assert not out.exists() and not svg.exists()
    res = runner.invoke(main, ["charge", str(src), "--charger", "A", "--target", "B", "--roll", "8", "--out", str(out),
                               "--svg", str(svg)])
    assert res.exit_code == 0
    assert json.loads(out.read_text())["format"] == "chargeref-ruling/1" and "<svg" in svg.read_text()
    assert sorted(p.name for p in out.parent.iterdir()) == ["r.json", "r.svg"]
    res = runner.invoke(main, ["charge", str(src), "--charger", "A", "--target", "B", "--roll", "8", "--out", str(out),
                               "--svg", str(out)])
    refused(res, "--svg")


def test_time_limit_ends_with_exit_2():
    res = runner.invoke(main, ["phase", str(EXAMPLES / "t9a" / "example_charge_phase.yaml"), "--time-limit", "0.000001"])
    refused(res, "--time-limit")
    assert "--time-limit" in res.stderr


def test_max_bytes_cuts_the_read():
    res = runner.invoke(main, ["check", str(WALK), "--max-bytes", "100"])
    refused(res, str(WALK))
    assert "larger than 100 bytes" in res.stderr


# ------------------------------------------------------------------ one validation path


def test_zero_length_wall_is_refused_by_check(tmp_path):
    d = good()
    d["terrain"] = [{"type": "wall", "id": "W", "points": [[20, 20], [20, 20]]}]
    refused(runner.invoke(main, ["check", write(tmp_path, d)]), "terrain[W].points")
    d["terrain"] = [{"type": "wall", "id": "W", "points": [[20, 20], [20.001, 20]]}]
    assert runner.invoke(main, ["check", write(tmp_path, d)]).exit_code == 0


@pytest.mark.parametrize("entry,field", [
    ({"charger": "Q", "targets": ["B"]}, "charges[0].charger"),
    ({"charger": "A", "targets": ["B"], "dice": [3]}, "charges[0].dice"),
    ({"charger": "A", "targets": ["B"], "modifier": 9}, "charges[0].modifier"),
    ({"charger": "A", "targets": ["B"], "reaction": "flee"}, "charges[0].reaction"),
])
def test_check_and_phase_refuse_the_same_charges_with_the_same_field(tmp_path, entry, field):
    d = good()
    d["charges"] = [entry]
    path = write(tmp_path, d)
    refused(runner.invoke(main, ["check", path]), field)
    refused(runner.invoke(main, ["phase", path]), field)


def test_validate_refuses_bad_ruling_files(tmp_path):
    good_ruling = charge40k("--roll", "8").stdout
    ok = tmp_path / "r.json"
    ok.write_text(good_ruling)
    assert runner.invoke(main, ["validate", str(WALK), str(ok)]).exit_code == 0
    bom16 = tmp_path / "r16.json"
    bom16.write_bytes(good_ruling.encode("utf-16"))  # with a byte-order mark: read
    assert runner.invoke(main, ["validate", str(WALK), str(bom16)]).exit_code == 0
    raw16 = tmp_path / "r16le.json"
    raw16.write_bytes(good_ruling.encode("utf-16-le"))  # no mark: refused
    refused(runner.invoke(main, ["validate", str(WALK), str(raw16)]), str(raw16))
    junk = tmp_path / "junk.json"
    junk.write_text('{"format": "chargeref-ruling/1", "moves": [')
    refused(runner.invoke(main, ["validate", str(WALK), str(junk)]), str(junk))
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**json.loads(good_ruling), "format": "chargeref-phase/1"}))
    refused(runner.invoke(main, ["validate", str(WALK), str(wrong)]), "ruling.format")
    typed = json.loads(good_ruling)
    typed["moves"][0]["to"] = "far away"
    bad = tmp_path / "typed.json"
    bad.write_text(json.dumps(typed))
    refused(runner.invoke(main, ["validate", str(WALK), str(bad)]), f"ruling.moves[{typed['moves'][0]['id']}].to")
