"""``chargeref import-tts``: writes a scenario that check accepts and a charge runs on;
malformed saves exit 2 and write nothing."""

from __future__ import annotations

import json

import yaml
from click.testing import CliRunner
from tts_save import row, tts_object, tts_save, yellowscribe_unit

from chargeref.cli import main

runner = CliRunner()


def run(*args: str):
    return runner.invoke(main, list(args), catch_exceptions=False)


def armies():
    a = yellowscribe_unit("Intercessor Squad", "Intercessor", 2, row(-4, -3, 5, 2), rot_y=0.0)
    b = yellowscribe_unit("Veteran Squad", "Veteran", 1, row(-4, 5, 5, 2), rot_y=180.0)
    return tts_save(a + b + [tts_object("Mystery", 20, 15, 0.0)])


def test_import_check_charge(tmp_path):
    save = tmp_path / "TS_Save_1.json"
    save.write_text(json.dumps(armies()))
    out = tmp_path / "game.yaml"
    res = run("import-tts", str(save), "--out", str(out), "--base", "Veteran=28mm")
    assert res.exit_code == 0, res.output
    assert "wrote" in res.output and "2 unit(s), 10 model(s)" in res.output
    assert "not placed (1):" in res.output and "Mystery: unknown base" in res.output
    data = yaml.safe_load(out.read_text())
    assert data["format"] == "chargeref/1" and data["board"] == {"width": 60.0, "depth": 44.0}
    assert run("check", str(out)).exit_code == 0
    ids = {u["name"]: u["id"] for u in data["units"]}
    res = run("charge", str(out), "--charger", ids["Intercessor Squad"], "--target", ids["Veteran Squad"],
              "--dice", "5,5", "--json")
    assert res.exit_code == 0, res.output
    ruling = json.loads(res.output)
    assert ruling["success"] is True and ruling["engaged"] == [ids["Veteran Squad"]]


def test_json_summary_and_options(tmp_path):
    save = tmp_path / "s.json"
    save.write_text(json.dumps(armies()))
    out = tmp_path / "g.json"
    res = run("import-tts", str(save), "--out", str(out), "--json", "--board", "44x60")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["format"] == "chargeref-tts-import/1"
    assert data["units"] == [{"id": "Intercessor_Squad", "name": "Intercessor Squad", "player": 1, "models": 5,
                              "bases": ["32mm"]}]
    assert {s["name"] for s in data["not_placed"]} == {"Veteran", "Mystery"}
    scen = json.loads(out.read_text())
    assert scen["board"] == {"width": 44.0, "depth": 60.0}
    assert scen["units"][0]["models"][0]["at"] == [18.0, 27.0]
    # split by x: the squad's centre is on the line x = 22, so it has no player
    res = run("import-tts", str(save), "--out", str(out), "--json", "--board", "44x60", "--player-split", "x")
    data = json.loads(res.output)
    assert data["units"] == []
    assert sum("centre line" in s["reason"] for s in data["not_placed"]) == 5


def test_malformed_save_exits_2_and_writes_nothing(tmp_path):
    out = tmp_path / "never.yaml"
    for text in ("{not json", json.dumps({"SaveName": "x"}), json.dumps({"ObjectStates": [{"Name": "Custom_Model"}]})):
        save = tmp_path / "bad.json"
        save.write_text(text)
        res = run("import-tts", str(save), "--out", str(out))
        assert res.exit_code == 2, res.output
        assert res.output.startswith("chargeref: ")
        assert not out.exists()


def test_bad_options_exit_2(tmp_path):
    save = tmp_path / "s.json"
    save.write_text(json.dumps(armies()))
    out = tmp_path / "o.json"
    for args, word in ((["--board", "60by44"], "--board"), (["--base", "Veteran"], "--base"),
                       (["--base", "Veteran=huge"], "--base"), (["--player-split", "z"], "--player-split")):
        res = run("import-tts", str(save), "--out", str(out), *args)
        assert res.exit_code == 2 and word in res.output, res.output
        assert not out.exists()
    res = run("import-tts", str(save), "--out", str(save))
    assert res.exit_code == 2 and "--out" in res.output


def test_player_option(tmp_path):
    save = tmp_path / "s.json"
    save.write_text(json.dumps(armies()))
    out = tmp_path / "o.json"
    res = run("import-tts", str(save), "--out", str(out), "--json", "--player", "Intercessor Squad=2",
              "--player", "Veteran Squad=1", "--base", "Veteran=28mm")
    assert res.exit_code == 0, res.output
    got = {u["name"]: u["player"] for u in json.loads(res.output)["units"]}
    assert got == {"Intercessor Squad": 2, "Veteran Squad": 1}
    res = run("import-tts", str(save), "--out", str(out), "--player", "Intercessor Squad=3")
    assert res.exit_code == 2 and "--player" in res.output


def test_edition_option(tmp_path):
    save = tmp_path / "s.json"
    save.write_text(json.dumps(armies()))
    out = tmp_path / "o.yaml"
    res = run("import-tts", str(save), "--out", str(out), "--edition", "9")
    assert res.exit_code == 0, res.output
    assert yaml.safe_load(out.read_text())["rules"]["edition"] == 9
    out2 = tmp_path / "o2.yaml"
    res = run("import-tts", str(save), "--out", str(out2), "--edition", "8")
    assert res.exit_code == 2 and res.output.startswith("chargeref: --edition:"), res.output
    assert not out2.exists()
