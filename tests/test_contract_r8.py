"""The public contract (shared/design/scenario-format.md), name by name: every scenario,
request and ruling field, every CLI command and option and every web endpoint is
accepted or produced under the contract's name with the contract's meaning; refused
input names the field (CLI: exit 2 and one line; web: 400/413/422 with the field);
an input file is never changed. The audit table behind these tests is in the round 8
report (docs/web.md keeps the user-facing parts)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from fastapi.testclient import TestClient

from chargeref import service
from chargeref.cli import main
from chargeref.render import render_svg
from chargeref.scenario import load_scenario, scenario_from_data, scenario_to_data
from chargeref.web import MAX_BODY, create_app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
client = TestClient(create_app(), raise_server_exceptions=False)


def s40(**top: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44},
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [
                {"id": "A1", "at": [10, 12], "base": {"round": 32}}, {"id": "A2", "at": [11.5, 12], "base": "32mm"}]},
            {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "B1", "at": [10, 20], "base": {"round": 32}}]},
        ],
    }
    doc.update(top)
    return doc


T9A = {"format": "chargeref/1", "system": "t9a", "board": {"width": 72, "depth": 48}, "units": [
    {"id": "K", "player": 2, "formation": {"front": [30, 20], "facing": 270, "files": 5, "models": 18,
                                          "base": {"rect": [20, 20]}}, "advance_rate": 4, "march_rate": 8, "discipline": 7},
    {"id": "L", "player": 1, "formation": {"front": [30, 8], "facing": 90, "files": 1, "models": 1, "base": {"round": 50}},
     "advance_rate": 4, "march_rate": 8, "discipline": 7}]}

WM = {"format": "chargeref/1", "system": "warmaster", "board": {"width": 180, "depth": 120}, "units": [
    {"id": "W", "player": 1, "type": "infantry", "stands": [{"at": [50, 30], "facing": 90}], "base": {"rect": [40, 20]}, "move": 20},
    {"id": "X", "player": 2, "type": "cavalry", "stands": [{"at": [50, 50], "facing": 270}]}]}

TERRAIN = [
    {"type": "ruin", "id": "R", "footprint": [[20, 26], [30, 26], [30, 36], [20, 36]],
     "walls": [{"points": [[20, 26], [30, 26]], "height": 5, "thickness": 0.2}],
     "floors": [{"polygon": [[20, 26], [25, 26], [25, 31], [20, 31]], "height": 3}]},
    {"type": "wall", "id": "W", "points": [[40, 5], [40, 10]], "height": 3, "thickness": 0.5},
    {"type": "barricade", "id": "Ba", "points": [[45, 5], [45, 10]], "height": 1, "thickness": 0.2},
    {"type": "obstacle", "id": "O", "polygon": [[50, 5], [52, 5], [52, 7]], "height": 1},
    {"type": "impassable", "id": "I", "polygon": [[50, 30], [52, 30], [52, 32]]},
    {"type": "hill", "id": "H", "polygon": [[2, 30], [8, 30], [8, 40], [2, 40]], "height": 2},
]


def model(doc: dict[str, Any], **fields: Any) -> dict[str, Any]:
    doc["units"][0]["models"][0].update(fields)
    return doc


def unit_base(doc: dict[str, Any]) -> dict[str, Any]:
    doc["units"][0]["base"] = {"round": 32}
    for m in doc["units"][0]["models"]:
        m.pop("base")
    return doc


# ------------------------------------------------------------------ scenario names

ACCEPTED = {
    "rules 40k edition 9 + failed_charge_moves": s40(rules={"edition": 9, "failed_charge_moves": False}),
    "rules 40k edition 10 + wtc": s40(rules={"edition": 10, "wtc": False}),
    "rules 40k edition 11": s40(rules={"edition": 11}),
    "unit cm": model(s40(unit="cm", board={"width": 150, "depth": 110}), at=[25, 30]),
    "at [x, y, z]": model(s40(), at=[10, 12, 0]),
    "base round": model(s40(), base={"round": 32}),
    "base oval + facing": model(s40(), base={"oval": [60, 35.5]}, facing=90, at=[8, 12]),
    "base rect": model(s40(), base={"rect": [25, 50]}, at=[8, 12]),
    "base hull": model(s40(), base={"hull": [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]}, at=[8, 12]),
    'base "32mm"': model(s40(), base="32mm"),
    'base "60x35.5mm oval"': model(s40(), base="60x35.5mm oval", at=[8, 12]),
    'base "25x50mm"': model(s40(), base="25x50mm", at=[8, 12]),
    "base {catalogue}": model(s40(), base={"catalogue": "Intercessor"}),
    "base catalogue name": model(s40(), base="Intercessor"),
    "unit-level base": unit_base(s40()),
    "model wounds, token": model(s40(), wounds=2, token=True),
    "unit name, flags": s40(units=[{**s40()["units"][0], "name": "Alpha",
                                    "flags": ["advanced", "fell_back", "action", "engaged", "fleeing", "shaken", "charged"]},
                                   s40()["units"][1]]),
    "keywords": s40(units=[{**s40()["units"][0], "keywords": ["INFANTRY", "BEAST", "SWARM", "FLY", "CHARACTER"]},
                           s40()["units"][1]]),
    "every terrain type": s40(terrain=TERRAIN),
    "charges": s40(charges=[{"charger": "A", "targets": ["B"], "dice": [3, 4], "modifier": 0, "reroll": "none"}]),
    "t9a rank-and-file + rules": {**T9A, "rules": {"charge_distance": "gap"}},
    "t9a charges reaction": {**T9A, "charges": [{"charger": "L", "targets": ["K"], "reaction": "flee",
                                                  "reaction_dice": [2, 5]}]},
    "warmaster stands + rules": {**WM, "rules": {"variant": "revolution"}},
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_every_contract_name_is_accepted(name, tmp_path):
    doc = ACCEPTED[name]
    assert service.check(doc) == {"ok": True, "problems": []}
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(doc))
    res = runner.invoke(main, ["check", str(p)])
    assert res.exit_code == 0, res.output
    r = client.post("/api/check", json=doc)
    assert r.status_code == 200 and r.json() == {"ok": True, "problems": []}


def test_defaults_are_the_contracts():
    d40 = scenario_to_data(scenario_from_data(s40()))
    assert d40["unit"] == "in" and d40["rules"]["edition"] == 10
    assert d40["units"][0]["models"][0]["facing"] == 90
    assert d40["units"][0]["models"][1]["base"] == {"round": 32.0}  # "32mm" written out
    assert scenario_to_data(scenario_from_data(T9A))["rules"]["charge_distance"] == "path"
    dwm = scenario_to_data(scenario_from_data(WM))
    assert dwm["unit"] == "cm" and dwm["rules"]["variant"] == "original"
    # WTC: on by default with edition 10, off with 11
    assert scenario_from_data(s40()).rules.use_wtc is True
    assert scenario_from_data(s40(rules={"edition": 11})).rules.use_wtc is False


# ------------------------------------------------------------------ refusals name the field

def _off_board() -> dict[str, Any]:
    d = s40()
    d["units"][1]["models"][0]["at"] = [70, 20]
    return d


def _dup_model() -> dict[str, Any]:
    d = s40()
    d["units"][1]["models"][0]["id"] = "A1"
    return d


REFUSED = {
    "missing format": ({k: v for k, v in s40().items() if k != "format"}, "format", "missing"),
    "wrong format": (s40(format="chargeref/2"), "format", "chargeref/1"),
    "missing system": ({k: v for k, v in s40().items() if k != "system"}, "system", "missing"),
    "unknown system": (s40(system="chess"), "system", "unknown system"),
    "unit mm": (s40(unit="mm"), "unit", ""),
    "edition 8": (s40(rules={"edition": 8}), "rules.edition", ""),
    "player 3": (s40(units=[{**s40()["units"][0], "player": 3}, s40()["units"][1]]), "units[A].player", ""),
    "lower-case keyword": (s40(units=[{**s40()["units"][0], "keywords": ["infantry"]}, s40()["units"][1]]),
                           "units[A].keywords", "upper-case"),
    "repeated unit id": (s40(units=[s40()["units"][0], {**s40()["units"][1], "id": "A"}]), "units[A]", "2 times"),
    # the repeat is named where it stands: unit B's model A1 (round 8: was "models[A1]")
    "repeated model id": (_dup_model(), "units[B].models[A1]", "first in unit A"),
    "model off the board": (_off_board(), "units[B].models[B1].at", "off the board"),
    "unknown terrain type": (s40(terrain=[{"type": "forest", "id": "F", "polygon": [[1, 1], [2, 1], [2, 2]]}]),
                             "terrain[F]", "forest"),
    "charges reroll": (s40(charges=[{"charger": "A", "targets": ["B"], "reroll": "all"}]), "charges[0].reroll", ""),
    "charges modifier past 6": (s40(charges=[{"charger": "A", "targets": ["B"], "modifier": 7}]), "charges[0].modifier", ""),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refusals_name_the_field_everywhere(name, tmp_path):
    doc, field, words = REFUSED[name]
    p = tmp_path / "s.json"
    text = json.dumps(doc)
    p.write_text(text)
    # check: exit 2, every line "chargeref: FIELD: message", the first naming the field
    res = runner.invoke(main, ["check", str(p)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert lines and all(ln.startswith("chargeref: ") for ln in lines)
    assert any(ln.startswith(f"chargeref: {field}: ") and words in ln for ln in lines), lines
    # charge refuses the same scenario the same way, and writes nothing
    out = tmp_path / "r.json"
    res = runner.invoke(main, ["charge", str(p), "--charger", "A", "--target", "B", "--dice", "3,4", "--out", str(out)])
    assert res.exit_code == 2 and res.output.startswith("chargeref: ") and "Traceback" not in res.output
    assert not out.exists() and p.read_text() == text
    # the web: /api/check lists it; /api/charge answers 422 with "field: message"
    r = client.post("/api/check", json=doc)
    assert r.status_code == 200 and any(q["field"] == field and words in q["message"] for q in r.json()["problems"])
    r = client.post("/api/charge", json={"scenario": doc, "charger": "A", "targets": ["B"], "dice": [3, 4]})
    assert r.status_code == 422, r.text
    assert any(part.startswith(f"{field}: ") for part in r.json()["error"].split("; ")), r.json()


# ------------------------------------------------------------------ rulings

RULING_KEYS = {"format", "system", "charger", "targets", "eligible", "needed", "success", "procedure", "moves",
               "engaged", "reasons", "after"}
MOVE_KEYS = {"id", "from", "to", "distance", "contacts", "token"}


@pytest.mark.parametrize(("doc", "charger", "target", "dice", "rolled"), [
    (s40(), "A", "B", [3, 4], True),
    (T9A, "L", "K", [3, 4], True),
    (WM, "W", "X", None, False),
])
def test_ruling_names(doc, charger, target, dice, rolled):
    body: dict[str, Any] = {"scenario": doc, "charger": charger, "targets": [target]}
    if dice:
        body["dice"] = dice
    r = client.post("/api/charge", json=body)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    data = r.json()
    assert RULING_KEYS <= set(data), RULING_KEYS - set(data)
    assert data["format"] == "chargeref-ruling/1" and data["system"] == doc["system"]
    assert data["charger"] == charger and data["targets"] == [target]
    assert set(data["needed"]) >= {"distance", "roll"}
    # a charge roll is reported where the system has one (Warmaster charges roll no dice)
    assert ("roll" in data) is rolled
    if rolled:
        assert set(data["roll"]) >= {"dice", "modifier", "total"} and data["roll"]["dice"] == dice
        assert data["roll"]["total"] == sum(dice) + data["roll"]["modifier"]
    for mv in data["moves"]:
        assert MOVE_KEYS <= set(mv)
    for rs in data["reasons"]:
        assert {"code", "message"} <= set(rs)
    # `after` is a complete scenario that can be fed back in
    assert service.check(data["after"])["ok"] is True


def test_ineligible_charge_has_reasons_and_no_roll():
    """A charge that may not be declared (target beyond 12") rolls nothing: the ruling
    has no ``needed`` and no ``roll`` (documented in docs/web.md), and says why."""
    d = s40()
    d["units"][1]["models"][0]["at"] = [10, 31]
    r = client.post("/api/charge", json={"scenario": d, "charger": "A", "targets": ["B"], "dice": [6, 6]}).json()
    assert r["eligible"] is False and r["success"] is False and r["procedure"] == "ineligible"
    assert "needed" not in r and "roll" not in r and r["moves"] == []
    assert "target_out_of_range" in [x["code"] for x in r["reasons"]]


def test_needed_roll_is_null_when_no_roll_succeeds():
    """In range, but walled off: declared, yet no roll can make it (``needed.roll`` null)."""
    d = s40(terrain=[{"type": "impassable", "id": "I", "polygon": [[0, 15], [60, 15], [60, 16], [0, 16]]}])
    r = client.post("/api/charge", json={"scenario": d, "charger": "A", "targets": ["B"], "dice": [6, 6]}).json()
    assert r["eligible"] is True and r["needed"]["roll"] is None and r["success"] is False and r["reasons"]


def test_edition_11_choices_without_targets():
    r = client.post("/api/charge", json={"scenario": s40(rules={"edition": 11}), "charger": "A", "dice": [3, 4]})
    data = r.json()
    assert r.status_code == 200 and data["moves"] == [] and [c["targets"] for c in data["choices"]] == [["B"]]
    assert data["choices"][0]["needed"]["roll"] == 7


# ------------------------------------------------------------------ command line

COMMAND_OPTIONS = {
    "check": [],
    "charge": ["--charger", "--target", "--dice", "--roll", "--seed", "--json", "--svg", "--png", "--out"],
    "odds": ["--charger", "--target", "--reroll", "--modifier", "--json"],
    "phase": ["--seed", "--json", "--svg"],
    "draw": ["--svg"],
    "schema": [],
    "bases": [],
    "import-tts": ["--out", "--board", "--base"],
    "serve": ["--host", "--port"],
    "threat": ["--unit", "--step", "--svg", "--json", "--workers", "--scheduler"],
    "sweep": ["--out", "--workers", "--scheduler"],
}


@pytest.mark.parametrize("command", list(COMMAND_OPTIONS))
def test_every_command_and_option_exists(command):
    res = runner.invoke(main, [command, "--help"])
    assert res.exit_code == 0, res.output
    for opt in COMMAND_OPTIONS[command]:
        assert re.search(rf"(^|[\s,]){re.escape(opt)}[\s,=]", res.output, re.M), f"{command} lacks {opt}"


def test_serve_defaults_to_this_machine_only():
    res = runner.invoke(main, ["serve", "--help"])
    assert "127.0.0.1" in res.output and "8000" in res.output


def test_schema_publishes_both_documents():
    res = runner.invoke(main, ["schema"])
    data = json.loads(res.output)
    assert set(data) >= {"scenario", "ruling"}
    assert RULING_KEYS - {"after"} <= set(data["ruling"]["properties"])


def test_charge_outputs_and_the_input_untouched(tmp_path):
    src = ROOT / "examples" / "wtc_walkthrough.yaml"
    p = tmp_path / "w.yaml"
    p.write_bytes(src.read_bytes())
    before = hashlib.sha256(p.read_bytes()).hexdigest()
    out, svg, png = tmp_path / "r.json", tmp_path / "r.svg", tmp_path / "r.png"
    res = runner.invoke(main, ["charge", str(p), "--charger", "A", "--target", "B", "--target", "C", "--dice", "4,6",
                               "--json", "--out", str(out), "--svg", str(svg), "--png", str(png)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == json.loads(out.read_text())
    assert svg.read_text().startswith("<svg") and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert hashlib.sha256(p.read_bytes()).hexdigest() == before


# ------------------------------------------------------------------ web API

def test_web_status_codes_and_content_types():
    assert client.get("/api/health").json()["status"] == "ok"
    r = client.post("/api/charge", content=b"{not json")
    assert r.status_code == 400 and r.json()["error"].startswith("body: ")
    r = client.post("/api/check", content=b"x" * (MAX_BODY + 1))
    assert r.status_code == 413 and r.json()["error"].startswith("body: ")
    r = client.post("/api/charge", json={"scenario": s40(), "charger": "A", "targets": ["B"], "roll": 13})
    assert r.status_code == 422 and r.json()["error"].startswith("roll: ")
    r = client.post("/api/odds", json={"scenario": s40(), "charger": "A", "targets": ["B"], "reroll": "failed",
                                       "modifier": 1})
    assert r.status_code == 200 and r.json()["reroll"] == "failed" and r.json()["modifier"] == 1
    r = client.post("/api/draw", json={"scenario": s40()})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")


def test_bare_picture_carries_its_key():
    """The board's picture of a ruling carries the renderer's legend (in <defs>, so the
    map draws nothing more): every entry is one the full picture's legend shows too."""
    scen = load_scenario(ROOT / "examples" / "wtc_walkthrough.yaml")
    ruling = service.charge_ruling(scen, "A", ("B", "C"), dice=(4, 6))
    bare = render_svg(scen, ruling, bare=True)
    full = render_svg(scen, ruling)
    defs = bare[bare.index("<defs>"):bare.index("</defs>")]
    keys = re.findall(r'data-key="([^"]+)"', defs)
    assert {"charger", "target", "ghost", "path", "engagement-ring", "coherency", "contact"} <= set(keys)
    legend = full[full.index('class="legend"'):]
    for k in keys:
        assert f"lg-{k}" in legend or k in ("p1", "p2", "ghost", "charger", "target"), k
    # without a ruling there is no move to explain, so no charge entries
    plain = render_svg(scen, bare=True)
    assert "data-key=\"path\"" not in plain


def test_dice_with_roll_refused_but_seed_rolls_what_the_dice_leave(tmp_path):
    body = {"scenario": s40(), "charger": "A", "targets": ["B"], "dice": [1, 1]}
    r = client.post("/api/charge", json={**body, "roll": 7})
    assert r.status_code == 422 and r.json()["error"].startswith("roll: ")
    # a failed 1 + 1 is re-rolled from the seed: the same seed, the same new dice
    a = client.post("/api/charge", json={**body, "reroll": "failed", "seed": 5}).json()["roll"]
    b = client.post("/api/charge", json={**body, "reroll": "failed", "seed": 5}).json()["roll"]
    assert a == b and a["rerolled_from"] == [1, 1] and a["total"] == sum(a["dice"])
    p = tmp_path / "s.json"
    p.write_text(json.dumps(s40()))
    res = runner.invoke(main, ["charge", str(p), "--charger", "A", "--target", "B", "--dice", "1,1",
                               "--reroll", "failed", "--seed", "5", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["roll"] == a
    res = runner.invoke(main, ["charge", str(p), "--charger", "A", "--target", "B", "--dice", "1,1", "--roll", "7"])
    assert res.exit_code == 2 and res.output.startswith("chargeref: --roll: ")


def test_wrong_path_or_method_answers_in_the_same_error_shape():
    r = client.get("/api/charge")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert r.json()["error"] == "method: GET is not allowed on /api/charge"
    r = client.post("/api/nope", json={})
    assert r.status_code == 404 and r.json()["error"].startswith("path: ") and r.json()["problems"][0]["field"] == "path"
    assert client.get("/static/nope.js").json()["error"].startswith("path: ")


def test_the_contract_copy_in_docs_is_the_shared_contract_word_for_word() -> None:
    """docs/scenario-format.md carries the public contract so that a clone has it; the part
    before our notes must be the contract itself, word for word (a stale copy fails here).
    The contract lives in ../shared/design beside the checkout, as CI lays it out."""
    root = Path(__file__).resolve().parents[1]
    shared = root.parent / "shared" / "design" / "scenario-format.md"
    assert shared.is_file(), f"the shared contract is missing: {shared} (CI puts ../shared beside the checkout)"
    copy = (root / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    body = copy.split("-->", 1)[1].split("\n## How chargeref reads the open points", 1)[0]
    assert body.strip() == shared.read_text(encoding="utf-8").strip()
