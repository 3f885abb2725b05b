"""The web API: the same answers as the CLI for the same input (each system), every
error status (400, 413, 422, 503), 100 concurrent requests, hostile bodies never 500,
and nothing read from or written to the server's files."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref.cli import main
from chargeref.web import MAX_BODY, create_app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "chargeref" / "web" / "examples"

#: one example of each system, with a charge that moves models
PARITY = [
    ("40k_wtc_walkthrough", "A", ["B", "C"], [4, 6]),
    ("40k_ruin_wall", "I", ["T"], [3, 4]),
    ("t9a_align_a", "A", ["B"], [3, 4]),
    ("warmaster_diagram_33_3", "C", ["E"], None),
]

SETTINGS = settings(
    max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "25")),
    deadline=None,
    derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def scenario_of(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8"))
    return data


def cli_json(args: list[str]) -> Any:
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


# ---------------------------------------------------------------------- basics


def test_health(client: TestClient) -> None:
    r = client.get("/api/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["version"]


def test_page_and_assets_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "board.js" in page.text
    # nothing from the network: every script, style and import is our own
    remote = re.compile(r"""(src|href)\s*=\s*["']?(https?:)?//|@import|\bimport\b[^;]*["']https?:|fetch\(\s*["'`]https?:|url\(\s*["']?https?:""")
    assert not remote.search(page.text)
    for asset in ("board.js", "core.js", "edit.js", "panels.js", "shapes.js", "threat.js", "board.css"):
        r = client.get(f"/static/{asset}")
        assert r.status_code == 200, asset
        assert not remote.search(r.text), asset
    style = client.get("/api/style").json()
    assert any(sel.startswith(".model") for sel, _ in style["rules"])


def test_bundled_examples_equal_the_repository_examples(client: TestClient) -> None:
    index = json.loads((EXAMPLES / "index.json").read_text(encoding="utf-8"))["examples"]
    assert {e["name"] for e in client.get("/api/examples").json()["examples"]} == {e["name"] for e in index}
    systems = set()
    for e in index:
        assert (EXAMPLES / f"{e['name']}.yaml").read_bytes() == (ROOT / e["source"]).read_bytes(), e["name"]
        got = client.get(f"/api/examples/{e['name']}").json()
        systems.add(got["scenario"]["system"])
        assert client.post("/api/check", json=got["scenario"]).json() == {"ok": True, "problems": []}
    assert systems == {"40k", "t9a", "warmaster"}


# ---------------------------------------------------------------------- parity


@pytest.mark.parametrize(("name", "charger", "targets", "dice"), PARITY)
def test_charge_odds_check_draw_answer_what_the_cli_answers(client: TestClient, tmp_path: Path, name: str,
                                                            charger: str, targets: list[str], dice: list[int] | None) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes((EXAMPLES / f"{name}.yaml").read_bytes())
    scen = scenario_of(name)
    tflags = [x for t in targets for x in ("--target", t)]
    dflags = ["--dice", ",".join(map(str, dice))] if dice else []

    body: dict[str, Any] = {"scenario": scen, "charger": charger, "targets": targets}
    if dice:
        body["dice"] = dice
    api_ruling = client.post("/api/charge", json=body)
    assert api_ruling.status_code == 200, api_ruling.text
    assert api_ruling.json() == cli_json(["charge", str(path), "--charger", charger, *tflags, *dflags, "--json"])
    assert api_ruling.json()["moves"], "the parity case should move models"

    # Warmaster charges roll no dice: nothing to re-roll or modify
    for reroll, modifier in (("none", 0),) if name.startswith("warmaster") else (("none", 0), ("failed", 1)):
        api_odds = client.post("/api/odds", json={"scenario": scen, "charger": charger, "targets": targets,
                                                   "reroll": reroll, "modifier": modifier})
        assert api_odds.status_code == 200, api_odds.text
        assert api_odds.json() == cli_json(["odds", str(path), "--charger", charger, *tflags, "--reroll", reroll,
                                            "--modifier", str(modifier), "--json"])

    assert client.post("/api/check", content=path.read_bytes()).json() == {"ok": True, "problems": []}
    res = CliRunner().invoke(main, ["check", str(path)])
    assert res.exit_code == 0

    svg_file = tmp_path / "cli.svg"
    CliRunner().invoke(main, ["charge", str(path), "--charger", charger, *tflags, *dflags, "--svg", str(svg_file)],
                       catch_exceptions=False)
    drawn = client.post("/api/draw", json={"scenario": scen, "ruling": api_ruling.json()})
    assert drawn.status_code == 200 and drawn.headers["content-type"].startswith("image/svg+xml")
    assert drawn.text == svg_file.read_text(encoding="utf-8")

    plain = tmp_path / "plain.svg"
    CliRunner().invoke(main, ["draw", str(path), "--svg", str(plain)], catch_exceptions=False)
    assert client.post("/api/draw", json={"scenario": scen}).text == plain.read_text(encoding="utf-8")


def test_needed_reports_the_nearest_enemy_and_the_odds(client: TestClient) -> None:
    scen = scenario_of("40k_wtc_walkthrough")
    r = client.post("/api/needed", json={"scenario": scen, "charger": "A", "targets": ["B", "C"]}).json()
    odds = client.post("/api/odds", json={"scenario": scen, "charger": "A", "targets": ["B", "C"]}).json()
    assert r["odds"] == odds
    # A3 at (13, 10) and B3 at (13.3, 18.3), both 32 mm bases: the closest pair
    d = (0.3**2 + 8.3**2) ** 0.5 - 32 / 25.4
    assert r["nearest"]["unit"] == "B" and r["nearest"]["model"] == "B3"
    assert abs(r["nearest"]["distance"] - d) <= 1e-6
    alone = client.post("/api/needed", json={"scenario": scen, "charger": "A"}).json()
    assert "odds" not in alone and alone["nearest"] == r["nearest"]


def test_load_reads_yaml_on_the_server(client: TestClient) -> None:
    text = (EXAMPLES / "t9a_align_a.yaml").read_text(encoding="utf-8")
    r = client.post("/api/load", content=text.encode(), headers={"content-type": "text/plain"})
    assert r.status_code == 200
    got = r.json()
    assert got["ok"] and got["scenario"]["units"][0]["formation"]["base"] == {"rect": [20.0, 20.0]}


def test_draw_bare_is_the_board_in_board_coordinates(client: TestClient) -> None:
    scen = scenario_of("40k_wtc_walkthrough")
    ruling = client.post("/api/charge", json={"scenario": scen, "charger": "A", "targets": ["B", "C"],
                                              "dice": [4, 6]}).json()
    svg = client.post("/api/draw", json={"scenario": scen, "ruling": ruling, "bare": True}).text
    # no legend on the map itself: the key rides along in <defs> for the page to show
    drawn = svg[:svg.index("<defs>")] + svg[svg.index("</defs>"):]
    assert 'viewBox="0 0 44 30"' in svg and 'class="legend"' not in drawn
    assert svg.count("<defs>") == 1 and 'class="chargeref legend-key"' in svg[svg.index("<defs>"):]
    assert svg.count('class="path"') == len(ruling["moves"])


# ---------------------------------------------------------------------- errors


def test_400_for_bodies_that_are_not_json_objects(client: TestClient) -> None:
    for body in (b"", b"{", b"[1, 2]", b"\xff\xfe", b'"text"'):
        r = client.post("/api/charge", content=body)
        assert r.status_code == 400, body
        assert r.json()["error"].startswith("body: ")
    r = client.post("/api/odds", json={"scenario": {}, "charger": "A", "targets": ["B"], "colour": "red"})
    assert r.status_code == 400 and r.json()["error"].startswith("colour: unknown field")
    r = client.post("/api/draw", json={"scenario": scenario_of("40k_ruin_wall"), "bare": "yes"})
    assert r.status_code == 400 and r.json()["error"].startswith("bare: ")


def test_422_names_the_field(client: TestClient) -> None:
    scen = scenario_of("40k_wtc_walkthrough")
    r = client.post("/api/charge", json={"scenario": scen, "charger": "Z", "targets": ["B"]})
    assert r.status_code == 422 and r.json()["error"].startswith("charger: ")
    r = client.post("/api/charge", json={"scenario": scen, "charger": "A", "targets": ["B"], "dice": [7, 1]})
    assert r.status_code == 422 and "dice" in r.json()["error"].split(":")[0]
    bad = json.loads(json.dumps(scen))
    bad["units"][0]["models"][1]["at"] = "here"
    r = client.post("/api/charge", json={"scenario": bad, "charger": "A", "targets": ["B"]})
    assert r.status_code == 422 and r.json()["error"].startswith("units[A].models[A2].at")
    checked = client.post("/api/check", json=bad)
    assert checked.status_code == 200 and checked.json()["ok"] is False
    assert checked.json()["problems"][0]["field"].startswith("units[A].models[A2].at")


def test_413_by_content_length_and_by_streamed_size(client: TestClient) -> None:
    big = b" " * (MAX_BODY + 1)
    r = client.post("/api/check", content=big)
    assert r.status_code == 413 and r.json()["error"].startswith("body: larger than")
    # no Content-Length: the size is counted as the body streams in
    r = client.post("/api/charge", content=iter([b" " * 300_000] * 4))
    assert r.status_code == 413
    # exactly at the limit is read (and refused only for what it says)
    r = client.post("/api/check", content=b" " * MAX_BODY)
    assert r.status_code in (400, 422)


def test_503_past_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    slow = TestClient(create_app(time_limit=1e-9))
    scen = scenario_of("40k_wtc_walkthrough")
    # the live measure checks the budget in its loop over the charger's models
    r = slow.post("/api/needed", json={"scenario": scen, "charger": "A", "targets": ["B", "C"]})
    assert r.status_code == 503
    assert r.json()["error"].startswith("time-limit: ") and "longer than 1e-09 s" in r.json()["error"]

    # a ruling that runs out of time (whatever part of the library notices) is a 503 too
    from chargeref import budget, service

    def too_slow(*a: Any, time_limit: float | None = None, **k: Any) -> Any:
        with budget.time_limit(time_limit, "the charge"):
            time.sleep(0.01)
            budget.check()
        raise AssertionError("the deadline should have passed")

    monkeypatch.setattr(service, "charge", too_slow)
    r = slow.post("/api/charge", json={"scenario": scen, "charger": "A", "targets": ["B", "C"], "dice": [4, 6]})
    assert r.status_code == 503 and r.json()["error"].startswith("time-limit: the charge took longer")


def test_503_when_every_slot_stays_taken() -> None:
    app = create_app(max_concurrent=1, queue_wait=0.05)
    c = TestClient(app)
    scen = scenario_of("40k_wtc_walkthrough")
    body = {"scenario": scen, "charger": "A", "targets": ["B", "C"], "dice": [4, 6]}
    gate = threading.Barrier(6)

    def one(_: int) -> int:
        gate.wait()
        return c.post("/api/charge", json=body).status_code

    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(one, range(6)))
    assert 200 in codes and 503 in codes and set(codes) <= {200, 503}


def test_100_concurrent_requests_are_all_answered(client: TestClient) -> None:
    scen = scenario_of("t9a_align_a")
    body = {"scenario": scen, "charger": "A", "targets": ["B"], "reroll": "failed"}
    want = client.post("/api/odds", json=body).json()

    def one(i: int) -> tuple[int, Any]:
        if i % 10 == 0:
            r = client.get("/api/health")
            return r.status_code, None
        r = client.post("/api/odds", json=body)
        return r.status_code, r.json()

    with ThreadPoolExecutor(25) as pool:
        got = list(pool.map(one, range(100)))
    assert [code for code, _ in got] == [200] * 100
    assert all(data == want for _, data in got if data is not None)


def test_no_request_reads_or_writes_server_files(client: TestClient, tmp_path: Path) -> None:
    for path in ("/api/examples/..%2F..%2Fpyproject", "/api/examples/../../etc/passwd", "/static/../app.py",
                 "/static/%2e%2e/app.py", "/api/examples/index"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "[project]" not in r.text and "root:" not in r.text and "create_app" not in r.text
    before = sorted(p.name for p in tmp_path.iterdir())
    scen = scenario_of("40k_ruin_wall")
    scen["terrain"][0]["id"] = str(tmp_path / "x.svg")
    r = client.post("/api/draw", json={"scenario": scen})
    assert r.status_code == 200
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_serve_binds_127_0_0_1_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    res = CliRunner().invoke(main, ["serve"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert calls[-1]["host"] == "127.0.0.1" and calls[-1]["port"] == 8000
    res = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "8123", "--time-limit", "5"])
    assert res.exit_code == 0 and calls[-1]["host"] == "0.0.0.0" and calls[-1]["port"] == 8123
    res = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert res.exit_code == 2


# ---------------------------------------------------------------------- hostile bodies

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=25,
)


def _post_raw(client: TestClient, path: str, body: Any) -> Any:
    """POST a body as Python's json writes it, infinities included (``Infinity`` is
    not JSON, yet a hostile client can send it and Python's reader accepts it): httpx's
    own encoder refuses them, which would test the client instead of the server."""
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def _mutations(scen: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid scenario with one value somewhere replaced by anything."""
    paths: list[tuple[Any, ...]] = []

    def walk(x: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, (*path, k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, (*path, i))

    walk(scen, ())

    def put(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
        doc = json.loads(json.dumps(scen))
        if not path:
            return value if isinstance(value, dict) else {"scenario": value}
        cur = doc
        for k in path[:-1]:
            cur = cur[k]
        cur[path[-1]] = value
        return doc

    return st.builds(put, st.sampled_from(paths), json_values)


HOSTILE = [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"scenario": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"scenario": {"a": NaN}, "charger": "A", "targets": ["B"]}',
    b'{"scenario": 1e999, "charger": "A", "targets": ["B"]}',
    b'{"scenario": {}, "charger": {"$gt": ""}, "targets": "B"}',
    b'{"scenario": {}, "charger": "A\\u0000", "targets": [null]}',
    b"a: &a [1,2]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b]\n",
    b"!!python/object/apply:os.system ['true']",
]


@pytest.mark.parametrize("body", HOSTILE)
def test_hostile_raw_bodies_never_500(client: TestClient, body: bytes) -> None:
    for path in ("/api/check", "/api/charge", "/api/odds", "/api/draw", "/api/needed", "/api/load"):
        r = client.post(path, content=body)
        assert r.status_code in (200, 400, 413, 422), (path, r.status_code, r.text[:200])
        if r.status_code != 200:
            assert ": " in r.json()["error"]


@SETTINGS
@given(doc=_mutations(scenario_of("40k_wtc_walkthrough")) | _mutations(scenario_of("t9a_align_a"))
       | _mutations(scenario_of("warmaster_diagram_33_3")), extra=json_values)
@example(doc={"format": "chargeref/1", "system": "40k", "board": {"width": 1e308, "depth": 1e308}, "units": []}, extra=None)
@example(doc={"format": "chargeref/1", "system": "t9a", "board": {"width": 10, "depth": 10},
              "units": [{"id": "A", "player": 1, "formation": {"front": [5, 5], "facing": 0, "files": 0,
                                                                "models": 10**9, "base": {"rect": [20, 20]}}}]}, extra=[])
def test_hostile_scenarios_never_500(client: TestClient, doc: Any, extra: Any) -> None:
    sysid = doc.get("system") if isinstance(doc, dict) else None
    sysid = sysid if isinstance(sysid, str) else None  # a mutated "system" may be any JSON value
    charger, targets = {"40k": ("A", ["B"]), "t9a": ("A", ["B"]), "warmaster": ("C", ["E"])}.get(sysid, ("A", ["B"]))
    bodies = [
        ("/api/check", doc),
        ("/api/charge", {"scenario": doc, "charger": charger, "targets": targets, "dice": [3, 4]}),
        ("/api/odds", {"scenario": doc, "charger": charger, "targets": targets, "modifier": extra}),
        ("/api/needed", {"scenario": doc, "charger": charger, "targets": extra}),
        ("/api/draw", {"scenario": doc, "ruling": extra}),
    ]
    for path, body in bodies:
        r = _post_raw(client, path, body)
        assert r.status_code in (200, 400, 422, 503), (path, r.status_code, r.text[:300])
        if r.status_code != 200:
            assert ": " in r.json()["error"]


def _real_ruling() -> dict[str, Any]:
    from chargeref import service

    scen = scenario_of("40k_wtc_walkthrough")
    return service.charge(scen, "A", ["B", "C"], dice=[4, 6])


@SETTINGS
@given(ruling=_mutations({k: v for k, v in _real_ruling().items() if k != "after"}))
@example(ruling={**{k: v for k, v in _real_ruling().items() if k != "after"},
                 "moves": [{"id": "A1", "from": [1], "to": [], "distance": -1, "segments": [{"kind": "arc"}]}]})
@example(ruling={**{k: v for k, v in _real_ruling().items() if k != "after"},
                 "moves": [{"id": "A1", "from": [float("inf"), 0], "to": [0, float("-inf")], "distance": float("inf")}]})
def test_hostile_rulings_to_draw_never_500(client: TestClient, ruling: Any) -> None:
    scen = scenario_of("40k_wtc_walkthrough")
    for extra in ({}, {"whole_board": True}, {"bare": True}):
        r = _post_raw(client, "/api/draw", {"scenario": scen, "ruling": ruling, **extra})
        assert r.status_code in (200, 400, 422), (r.status_code, r.text[:300])


def test_a_real_bug_is_a_500_with_a_plain_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from chargeref import service

    def broken(*a: Any, **k: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(service, "odds", broken)
    c = TestClient(create_app(), raise_server_exceptions=False)
    r = c.post("/api/odds", json={"scenario": scenario_of("t9a_align_a"), "charger": "A", "targets": ["B"]})
    assert r.status_code == 500
    assert r.json()["error"] == "server: internal error (ZeroDivisionError); this is a bug"
