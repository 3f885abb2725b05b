"""Three edges of refused input, each through the model, the command line and the web API.

1. A boolean field takes a boolean only: ``true`` is accepted, ``"true"``, ``"yes"`` and
   ``1`` are refused naming the field. YAML follows YAML 1.2: ``true``/``True``/``TRUE`` are
   booleans, ``yes``/``on`` are text (refused in a boolean field, kept as text in an id).
2. A 40k model's ``at`` takes 2 or 3 numbers; 1 or 4 are refused with a message saying
   so. A Warmaster stand's ``at`` and other points take exactly 2.
3. NaN and the infinities (JSON's ``NaN``/``Infinity`` as Python writes them, YAML's
   ``.nan``/``.inf``, a number like ``1e999`` that overflows) are refused naming the field
   that holds them; ``1e308`` is finite and refused by the size limit, also by field.

Every refusal on the command line is exit 2 with ``chargeref: FIELD: message`` lines and
no traceback, and the scenario file is left byte for byte as it was.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from chargeref.cli import main
from chargeref.errors import ScenarioError
from chargeref.scenario import parse_text, scenario_from_data
from chargeref.web import create_app

SRC = Path(__file__).resolve().parents[1] / "src"


def s40k() -> dict[str, Any]:
    return {
        "format": "chargeref/1", "system": "40k", "board": {"width": 44, "depth": 60},
        "terrain": [{"type": "wall", "id": "W1", "points": [[30, 30], [34, 30]], "height": 3}],
        "units": [
            {"id": "A", "player": 1, "models": [{"id": "A1", "at": [10, 10], "base": "32mm"}]},
            {"id": "B", "player": 2, "models": [{"id": "B1", "at": [10, 20], "base": "32mm"}]},
        ],
    }


def st9a() -> dict[str, Any]:
    return {
        "format": "chargeref/1", "system": "t9a", "board": {"width": 72, "depth": 48},
        "units": [
            {"id": "X", "player": 1, "formation": {"front": [20, 10], "facing": 0, "files": 5, "models": 10,
                                                  "base": "25x25mm"}},
            {"id": "Y", "player": 2, "formation": {"front": [20, 30], "facing": 180, "files": 5, "models": 10,
                                                  "base": "25x25mm"}},
        ],
    }


def swm() -> dict[str, Any]:
    return {
        "format": "chargeref/1", "system": "warmaster", "board": {"width": 180, "depth": 120},
        "units": [
            {"id": "W", "player": 1, "type": "infantry", "base": "40x20mm",
             "stands": [{"at": [50, 50]}, {"at": [54, 50]}, {"at": [58, 50]}]},
        ],
    }


def put(doc: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    d = copy.deepcopy(doc)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return d


def problems(doc: Any) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as err:
        scenario_from_data(doc)
    return [(p.field, p.message) for p in err.value.problems]


def problems_of_text(text: str) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as err:
        scenario_from_data(parse_text(text, "s.json"))
    return [(p.field, p.message) for p in err.value.problems]


# ------------------------------------------------------------------ 1. booleans

BOOL_FIELDS = [
    (s40k, ["rules", "wtc"], "rules.wtc"),
    (s40k, ["rules", "failed_charge_moves"], "rules.failed_charge_moves"),
    (s40k, ["units", 0, "models", 0, "token"], "units[A].models[A1].token"),
    (s40k, ["terrain", 0, "climbable"], "terrain[W1].climbable"),
    (st9a, ["units", 0, "shooting"], "units[X].shooting"),
]


def _doc(make: Any, path: list[Any], value: Any) -> dict[str, Any]:
    doc = make()
    if path[0] == "rules":
        doc["rules"] = {}
    return put(doc, path, value)


@pytest.mark.parametrize("make,path,field", BOOL_FIELDS, ids=[f for _, _, f in BOOL_FIELDS])
@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_accepted(make, path, field, value):
    scen = scenario_from_data(_doc(make, path, value))
    node: Any = scen
    for k in path:
        node = node[k] if isinstance(k, int) else getattr(node, k)
    assert node is value


@pytest.mark.parametrize("make,path,field", BOOL_FIELDS, ids=[f for _, _, f in BOOL_FIELDS])
@pytest.mark.parametrize("value", ["true", "yes", "false", 1, 0, 1.0, "on"])
def test_text_or_a_number_in_a_boolean_field_is_refused_naming_it(make, path, field, value):
    probs = problems(_doc(make, path, value))
    assert probs == [(field, f"must be true or false (a boolean, not text or a number; got {json.dumps(value)})")]


YAML_40K = """format: chargeref/1
system: 40k
rules: {{wtc: {wtc}}}
board: {{width: 44, depth: 60}}
units:
  - {{id: A, player: 1, models: [{{id: {mid}, at: [10, 10], base: 32mm}}]}}
"""


@pytest.mark.parametrize("word,value", [("true", True), ("True", True), ("TRUE", True), ("false", False),
                                        ("False", False), ("FALSE", False)])
def test_yaml_true_and_false_are_booleans(word, value):
    scen = scenario_from_data(parse_text(YAML_40K.format(wtc=word, mid="A1"), "s.yaml"))
    assert scen.rules.wtc is value


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "Yes", "OFF", "y", "'true'"])
def test_yaml_1_1_words_are_text_and_refused_in_a_boolean_field(word):
    probs = problems_of_text(YAML_40K.format(wtc=word, mid="A1"))
    shown = json.dumps(word.strip("'"))
    assert probs == [("rules.wtc", f"must be true or false (a boolean, not text or a number; got {shown})")]


@pytest.mark.parametrize("word", ["no", "yes", "on", "off", "y", "n"])
def test_yaml_1_1_words_stay_text_in_an_id(word):
    scen = scenario_from_data(parse_text(YAML_40K.format(wtc="false", mid=word), "s.yaml"))
    assert scen.units[0].models[0].id == word


# ------------------------------------------------------------------ 2. how many numbers a point takes


@pytest.mark.parametrize("at", [[10, 10], [10, 10, 0], [10.5, 10.25, 2.0]])
def test_at_takes_two_or_three_numbers(at):
    scen = scenario_from_data(put(s40k(), ["units", 0, "models", 0, "at"], at))
    assert list(scen.units[0].models[0].at) == at


@pytest.mark.parametrize("at", [[], [10], [10, 10, 0, 1], [1, 2, 3, 4, 5]])
def test_at_with_another_count_says_what_is_allowed(at):
    probs = problems(put(s40k(), ["units", 0, "models", 0, "at"], at))
    assert probs == [("units[A].models[A1].at",
                      f"must be 2 or 3 numbers: [x, y] or [x, y, z] (got {len(at)})")]


def test_a_bad_number_inside_at_is_still_named():
    probs = problems(put(s40k(), ["units", 0, "models", 0, "at"], [10, "x", 0]))
    assert [f for f, _ in probs] == ["units[A].models[A1].at"]
    assert probs[0][1].endswith("(at[1])") and "number" in probs[0][1]


def test_a_warmaster_stand_takes_exactly_two_numbers():
    scenario_from_data(put(swm(), ["units", 0, "stands", 0, "at"], [50, 50]))
    probs = problems(put(swm(), ["units", 0, "stands", 0, "at"], [50, 50, 0]))
    assert probs == [("units[W].stands[0].at", "must be 2 numbers: [x, y] (got 3)")]


def test_a_wall_point_and_a_t9a_front_take_exactly_two_numbers():
    probs = problems(put(s40k(), ["terrain", 0, "points", 1], [34, 30, 1]))
    assert probs == [("terrain[W1].points[1]", "must be 2 numbers: [x, y] (got 3)")]
    probs = problems(put(st9a(), ["units", 0, "formation", "front"], [20]))
    assert probs == [("units[X].formation.front", "must be 2 numbers: [x, y] (got 1)")]


def test_a_rect_base_with_three_sizes_says_two():
    probs = problems(put(s40k(), ["units", 0, "models", 0, "base"], {"rect": [25, 50, 3]}))
    assert probs == [("units[A].models[A1].base.rect", "must be 2 values (got 3)")]


# ------------------------------------------------------------------ 3. non-finite numbers

NAN_MSG = "NaN is not a finite number"
INF_MSG = "Infinity (or a number too large for a float) is not a finite number"


def _json_with(path: list[Any], token: str, make: Any = s40k) -> str:
    """The scenario as JSON text with ``token`` written verbatim at ``path``."""
    return json.dumps(put(make(), path, "@@")).replace('"@@"', token)


@pytest.mark.parametrize("token,msg", [("NaN", NAN_MSG), ("Infinity", INF_MSG), ("-Infinity", "-" + INF_MSG),
                                       ("1e999", INF_MSG), ("-1e999", "-" + INF_MSG)])
@pytest.mark.parametrize("path,field", [
    (["units", 0, "models", 0, "at", 0], "units[A].models[A1].at[0]"),
    (["units", 1, "models", 0, "at", 1], "units[B].models[B1].at[1]"),
    (["units", 0, "models", 0, "facing"], "units[A].models[A1].facing"),
    (["board", "depth"], "board.depth"),
    (["terrain", 0, "points", 0, 1], "terrain[W1].points[0][1]"),
])
def test_non_finite_json_numbers_are_refused_naming_the_field(token, msg, path, field):
    assert problems_of_text(_json_with(path, token)) == [(field, msg)]


def test_the_edge_between_finite_and_infinite():
    # 1e308 is a float (refused by the size limit, by field); 1e309 overflows to infinity
    path, field = ["units", 0, "models", 0, "at", 0], "units[A].models[A1].at[0]"
    assert problems_of_text(_json_with(path, "1e308")) == [(field, "1e+308 is too large (at most 1e+06 in size)")]
    assert problems_of_text(_json_with(path, "1e309")) == [(field, INF_MSG)]
    # the size limit itself: 1e6 is read, a hair above is refused
    scenario_from_data(parse_text(_json_with(["units", 0, "models", 0, "facing"], "1e6"), "s.json"))
    probs = problems_of_text(_json_with(["units", 0, "models", 0, "facing"], "1000000.0000001"))
    assert [f for f, _ in probs] == ["units[A].models[A1].facing"]


@pytest.mark.parametrize("token,msg", [(".nan", NAN_MSG), (".inf", INF_MSG), ("-.inf", "-" + INF_MSG),
                                       ("1.0e+999", INF_MSG)])
def test_non_finite_yaml_numbers_are_refused_naming_the_field(token, msg):
    text = YAML_40K.format(wtc="true", mid="A1").replace("at: [10, 10]", f"at: [10, {token}]")
    assert problems_of_text(text) == [("units[A].models[A1].at[1]", msg)]


def test_non_finite_in_t9a_and_warmaster_are_named():
    assert problems_of_text(_json_with(["units", 0, "formation", "front", 0], "NaN", st9a)) == [
        ("units[X].formation.front[0]", NAN_MSG)]
    assert problems_of_text(_json_with(["units", 0, "stands", 2, "at", 1], "Infinity", swm)) == [
        ("units[W].stands[2].at[1]", INF_MSG)]


# ------------------------------------------------------------------ the command line and the web API

CASES = [
    # name, the scenario text, the field named, the message
    ("wtc text", json.dumps(put(s40k(), ["rules"], {"wtc": "yes"})), "rules.wtc",
     'must be true or false (a boolean, not text or a number; got "yes")'),
    ("at 4 numbers", json.dumps(put(s40k(), ["units", 0, "models", 0, "at"], [10, 10, 0, 1])),
     "units[A].models[A1].at", "must be 2 or 3 numbers: [x, y] or [x, y, z] (got 4)"),
    ("at NaN", _json_with(["units", 0, "models", 0, "at", 0], "NaN"), "units[A].models[A1].at[0]", NAN_MSG),
    ("at Infinity", _json_with(["units", 0, "models", 0, "at", 1], "Infinity"), "units[A].models[A1].at[1]",
     INF_MSG),
]
GOOD = [
    ("wtc true", json.dumps(put(s40k(), ["rules"], {"wtc": True}))),
    ("at 3 numbers", json.dumps(put(s40k(), ["units", 0, "models", 0, "at"], [10, 10, 0]))),
    ("at finite", _json_with(["units", 0, "models", 0, "at", 0], "10.000001")),
]
CLI_COMMANDS = [["check"], ["charge", "--charger", "A", "--target", "B", "--roll", "9", "--json"]]


def _cli(cmd: list[str], path: Path) -> Any:
    return CliRunner().invoke(main, [cmd[0], str(path), *cmd[1:]])


@pytest.mark.parametrize("cmd", CLI_COMMANDS, ids=["check", "charge"])
@pytest.mark.parametrize("name,text,field,msg", CASES, ids=[c[0] for c in CASES])
def test_cli_refuses_with_one_line_and_leaves_the_file(tmp_path, cmd, name, text, field, msg):
    path = tmp_path / "s.json"
    path.write_text(text)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    res = _cli(cmd, path)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert res.stderr.splitlines() == [f"chargeref: {field}: {msg}"]
    assert res.stdout == ""
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


@pytest.mark.parametrize("cmd", CLI_COMMANDS, ids=["check", "charge"])
@pytest.mark.parametrize("name,text", GOOD, ids=[c[0] for c in GOOD])
def test_cli_accepts_the_other_side_of_each_edge(tmp_path, cmd, name, text):
    path = tmp_path / "s.json"
    path.write_text(text)
    res = _cli(cmd, path)
    assert res.exit_code == 0, res.output


def test_the_installed_command_prints_one_line_for_nan(tmp_path):
    """The real process, not the test runner: exit 2 and exactly one line on stderr."""
    path = tmp_path / "s.json"
    text = _json_with(["units", 0, "models", 0, "at", 0], "NaN")
    path.write_text(text)
    res = subprocess.run([sys.executable, "-c", "import sys; from chargeref.cli import main; sys.exit(main())",
                          "check", str(path)], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2, res.stderr
    assert res.stderr.splitlines() == [f"chargeref: units[A].models[A1].at[0]: {NAN_MSG}"]
    assert path.read_text() == text


def charge_body(scenario_text: str) -> str:
    """A charge request with the scenario's text written in verbatim (NaN stays NaN)."""
    return '{"scenario": ' + scenario_text + ', "charger": "A", "targets": ["B"], "roll": 9}'


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


@pytest.mark.parametrize("name,text,field,msg", CASES, ids=[c[0] for c in CASES])
def test_web_charge_refuses_naming_the_field(client, name, text, field, msg):
    body = charge_body(text)
    r = client.post("/api/charge", content=body.encode())
    assert r.status_code == 422, r.text
    assert r.json()["problems"] == [{"field": field, "message": msg}]
    assert r.json()["error"] == f"{field}: {msg}"


@pytest.mark.parametrize("name,text,field,msg", CASES, ids=[c[0] for c in CASES])
def test_web_check_and_load_name_the_field(client, name, text, field, msg):
    for url in ("/api/check", "/api/load"):
        r = client.post(url, content=text.encode())
        # a document that reads but breaks the contract is a check result (ok: false);
        # a number that is not finite stops the reading itself (422)
        if "finite" in msg:
            assert r.status_code == 422, r.text
            assert r.json()["problems"] == [{"field": field, "message": msg}]
        else:
            assert r.status_code == 200, r.text
            assert r.json()["ok"] is False
            assert r.json()["problems"] == [{"field": field, "message": msg}]


@pytest.mark.parametrize("name,text", GOOD, ids=[c[0] for c in GOOD])
def test_web_accepts_the_other_side_of_each_edge(client, name, text):
    r = client.post("/api/check", content=text.encode())
    assert r.status_code == 200 and r.json()["ok"] is True, r.text
    body = charge_body(text)
    assert client.post("/api/charge", content=body.encode()).status_code == 200
