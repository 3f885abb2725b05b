"""The board in a real browser: Playwright (sync API) driving Debian's chromium.

The server runs in a thread on a free 127.0.0.1 port. The tests load the page, open an
example of each system, drag a model, choose the charger and a target by clicking, run
a charge, and check what the page draws and shows against the API. They fail (never
skip) when chromium or Playwright is missing: ``make test`` installs chromium.
The last one saves the README's screenshot, docs/img/board.png.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from board_page import Board, open_board
from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def board(browser: Browser, server: str) -> Iterator[Board]:
    ctx, b = open_board(browser, server)
    yield b
    ctx.close()


def _charge_flow(b: Board, name: str, charger: str, target: str, dice: list[int] | None, dy: int) -> dict[str, Any]:
    """Open an example, drag a model of the charger, choose charger and target by
    clicking, charge, and check the page against the API."""
    b.example(name)
    page = b.page
    # clear the example's choice by clicking the charger, then choose again by clicks
    if b.state()["charger"]:
        b.click_unit(b.state()["charger"])
    assert b.state()["charger"] is None and b.state()["targets"] == []
    b.click_unit(charger)
    b.click_unit(target)
    st = b.state()
    assert st["charger"] == charger and st["targets"] == [target]

    # drag the charger's first model 12 px down or up the screen (into free space)
    model = page.locator(f"#layer-units .model[data-unit='{charger}']").first
    box = model.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    before = json.dumps(b.state()["scen"])
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 7):
        page.mouse.move(x, y + dy * k / 6)
    page.mouse.up()
    b.settle()
    st = b.state()
    assert json.dumps(st["scen"]) != before, "the drag moved nothing"
    assert st["charger"] == charger and st["targets"] == [target], "a drag is not a click"

    # the live numbers are the API's for the dragged position
    needed = b.api("/api/needed", {"scenario": st["scen"], "charger": charger, "targets": [target]})
    shown = page.locator("#live-nearest").get_attribute("data-distance")
    assert shown is not None and abs(float(shown) - needed["nearest"]["distance"]) <= 1e-9
    if st["scen"]["system"] != "warmaster":
        roll = page.locator("#live-needed").get_attribute("data-roll")
        want = needed["odds"]["needed"]["roll"]
        assert roll == ("" if want is None else str(want))
        assert page.locator("#odds-value").inner_text() == f"{100 * needed['odds']['probability']:.1f}%"

    # charge with fixed dice; the ruling shown is the API's, and it is drawn
    if dice:
        page.check("input[name=dice-mode][value=dice]")
        page.fill("#die1", str(dice[0]))
        page.fill("#die2", str(dice[1]))
    page.click("#charge")
    page.wait_for_selector("#verdict.ok, #verdict.bad", timeout=30_000)
    st = b.state()
    body: dict[str, Any] = {"scenario": st["scen"], "charger": charger, "targets": [target]}
    if st["scen"]["system"] != "warmaster":
        body |= {"reroll": "none", "modifier": 0, "dice": dice}
    ruling = b.api("/api/charge", body)
    assert st["ruling"] == ruling
    verdict = page.locator("#verdict").inner_text()
    assert verdict == ("NOT ELIGIBLE" if not ruling["eligible"] else "CHARGE SUCCEEDS" if ruling["success"] else "CHARGE FAILS")
    drawn = page.locator("#layer-ruling .paths .path")
    assert drawn.count() == len(ruling["moves"])
    assert page.locator("#layer-ruling .model").count() >= 1
    assert page.locator("#reasons li").count() == max(1, len(ruling["reasons"]))
    if ruling.get("needed") and ruling["needed"].get("roll") is not None:
        assert page.locator("#fact-needed").inner_text().startswith(str(ruling["needed"]["roll"]))
    return ruling


@pytest.mark.parametrize(
    ("name", "charger", "target", "dice", "dy"),
    [
        ("40k_wtc_walkthrough", "A", "B", [4, 6], 12),
        ("t9a_align_a", "A", "B", [3, 4], -12),
        ("warmaster_diagram_33_3", "C", "E", None, 12),
    ],
)
def test_drag_choose_and_charge_each_system(board: Board, tmp_path: Path, name: str, charger: str, target: str,
                                            dice: list[int] | None, dy: int) -> None:
    ruling = _charge_flow(board, name, charger, target, dice, dy)
    # the ruling saves as YAML that reads back as the same data, the picture as the API's
    page = board.page
    with page.expect_download() as dl:
        page.click("#save-ruling-yaml")
    saved = tmp_path / "ruling.yaml"
    dl.value.save_as(saved)
    assert yaml.safe_load(saved.read_text(encoding="utf-8")) == ruling
    with page.expect_download() as dl:
        page.click("#save-svg")
    svg = tmp_path / "ruling.svg"
    dl.value.save_as(svg)
    want = page.request.post(board.url + "/api/draw", data=json.dumps(
        {"scenario": board.state()["scen"], "ruling": ruling, "whole_board": True}),
        headers={"content-type": "application/json"}).text()
    assert svg.read_text(encoding="utf-8") == want
    assert ruling["system"] == {"40k": "40k", "t9a": "t9a", "warmaster": "warmaster"}[name.split("_")[0]]
    if name.startswith("t9a"):
        assert "T9A 2.x" in board.page.locator("#sysname").inner_text()
    if name.startswith("40k"):
        assert board.page.locator("#layer-ruling .engagement-ring").count() >= 1
    assert board.errors == []


def test_undo_redo_reload_and_save(board: Board, tmp_path: Path) -> None:
    b, page = board, board.page
    b.example("40k_ruin_wall")
    start = b.state()["scen"]
    model = page.locator("#layer-units .model[data-unit='K']").first
    box = model.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 30, box["y"] + box["height"] / 2 - 20, steps=5)
    page.mouse.up()
    moved = b.state()["scen"]
    assert moved != start
    page.click("#undo")
    assert b.state()["scen"] == start
    page.click("#redo")
    assert b.state()["scen"] == moved

    # a reload loses nothing
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert b.state()["scen"] == moved

    # the ruler measures in the scenario's unit
    page.click("#ruler")
    wrap = page.locator("#board").bounding_box()
    assert wrap is not None
    page.mouse.move(wrap["x"] + 100, wrap["y"] + 100)
    page.mouse.down()
    page.mouse.move(wrap["x"] + 300, wrap["y"] + 100, steps=4)
    page.mouse.up()
    inches = 200 * moved["board"]["width"] / wrap["width"]
    shown = page.locator("#ruler-text").text_content() or ""
    assert shown.endswith("″") and abs(float(shown[:-1]) - inches) <= 0.02  # 200 screen pixels, to 2 decimals
    page.click("#ruler")

    # saving: the scenario as YAML reads back as the same data; the picture as PNG
    with page.expect_download() as dl:
        page.click("#save-scen-yaml")
    path = tmp_path / "scen.yaml"
    dl.value.save_as(path)
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == moved
    with page.expect_download() as dl:
        page.click("#save-png")
    png = tmp_path / "board.png"
    dl.value.save_as(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # open a file with the picker (YAML, read on the server), then by drag and drop
    page.set_input_files("#file-input", str(ROOT / "examples" / "warmaster" / "diagram_34_2.yaml"))
    page.wait_for_function("window.chargeref.state.name === 'diagram_34_2.yaml'")
    assert b.state()["scen"]["system"] == "warmaster"
    text = (ROOT / "examples" / "t9a" / "multiple_b.yaml").read_text(encoding="utf-8")
    page.evaluate("""(text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], "dropped.yaml", {type: "text/yaml"}));
        document.getElementById("board-wrap").dispatchEvent(
            new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""", text)
    page.wait_for_function("window.chargeref.state.name === 'dropped.yaml'")
    assert b.state()["scen"]["system"] == "t9a"
    assert b.errors == []


def test_new_table_add_units_and_the_readme_screenshot(board: Board) -> None:
    b, page = board, board.page
    page.click("#left details summary >> text=New empty table")
    page.select_option("#new-system", "t9a")
    page.click("#new-table")
    assert b.state()["scen"]["system"] == "t9a" and b.state()["scen"]["units"] == []
    page.click("#add-box summary")
    page.select_option("#add-player", "1")
    page.fill("#add-count", "10")
    page.click("#add-unit")
    page.select_option("#add-player", "2")
    page.click("#add-unit")
    scen = b.state()["scen"]
    assert [u["player"] for u in scen["units"]] == [1, 2]
    assert b.api("/api/check", scen) == {"ok": True, "problems": []}
    assert page.locator("#layer-units .unit-block").count() == 2
    # select the first unit in the table, then add and remove models, then the unit
    first = scen["units"][0]["id"]
    page.locator(f"#units tr[data-unit='{first}'] td.name").click()
    page.click("#add-model")
    assert b.state()["scen"]["units"][0]["formation"]["models"] == 11
    page.click("#remove-model")
    assert b.state()["scen"]["units"][0]["formation"]["models"] == 10
    page.click("#remove-unit")
    assert [u["id"] for u in b.state()["scen"]["units"]] == [scen["units"][1]["id"]]
    page.click("#undo")
    assert len(b.state()["scen"]["units"]) == 2

    # the README's screenshot: the WTC walk-through, charged
    b.example("40k_wtc_walkthrough")
    page.check("input[name=dice-mode][value=dice]")
    page.fill("#die1", "4")
    page.fill("#die2", "6")
    page.click("#charge")
    page.wait_for_selector("#verdict.ok", timeout=30_000)
    b.settle()
    page.evaluate("document.querySelectorAll('#left details').forEach((d) => { d.open = false; });"
                  "document.getElementById('left').scrollTop = 0")
    out = ROOT / "docs" / "img" / "board.png"
    page.screenshot(path=str(out))
    assert out.stat().st_size > 20_000
    assert b.errors == []


def test_turn_a_t9a_block_and_pan_a_zoomed_board(board: Board) -> None:
    b, page = board, board.page
    b.example("t9a_align_a")

    def client(x: float, y: float) -> tuple[float, float]:
        got = page.evaluate("""([x, y]) => {
            const svg = document.getElementById("board");
            const pt = svg.createSVGPoint();
            pt.x = x; pt.y = window.chargeref.state.scen.board.depth - y;
            const q = pt.matrixTransform(svg.getScreenCTM());
            return [q.x, q.y];
        }""", [x, y])
        return float(got[0]), float(got[1])

    # B: 16 models, 8 files of 20 mm: two ranks, 40 mm deep, front midpoint (24, 20), facing 90
    depth = 40 / 25.4
    centre = (24.0, 20.0 - depth / 2)
    page.mouse.click(*client(24.0, 19.5))  # select the block
    handle = page.locator("#turn-handle")
    box = handle.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    tx, ty = client(centre[0] + 3.0, centre[1])  # drag the handle round to face +x
    page.mouse.move(tx, ty, steps=8)
    page.mouse.up()
    b.settle()
    unit = next(u for u in b.state()["scen"]["units"] if u["id"] == "B")
    fm = unit["formation"]
    assert min(fm["facing"], 360 - fm["facing"]) <= 1.0  # turned to face +x, to a pixel
    # turned as a block about its centre: the front midpoint swung round it
    f = (math.cos(math.radians(fm["facing"])), math.sin(math.radians(fm["facing"])))
    assert fm["front"][0] == pytest.approx(centre[0] + f[0] * depth / 2, abs=1e-3)
    assert fm["front"][1] == pytest.approx(centre[1] + f[1] * depth / 2, abs=1e-3)
    assert b.api("/api/check", b.state()["scen"])["ok"]

    # zoom in with the wheel, then drag empty ground to pan
    page.mouse.move(*client(10.0, 40.0))
    page.mouse.wheel(0, -600)
    page.wait_for_timeout(100)
    vb0 = [float(v) for v in (page.locator("#board").get_attribute("viewBox") or "").split()]
    assert vb0[2] < 48
    x, y = client(vb0[0] + 2, 48 - vb0[1] - 2)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=4)
    page.mouse.up()
    vb1 = [float(v) for v in (page.locator("#board").get_attribute("viewBox") or "").split()]
    assert vb1[2:] == vb0[2:] and (vb1[0], vb1[1]) != (vb0[0], vb0[1])
    page.click("#fit")
    assert page.locator("#board").get_attribute("viewBox") == "0 0 48 48"
    assert b.errors == []


def test_the_nearest_enemy_line_shows_the_server_distance(board: Board) -> None:
    b, page = board, board.page
    b.example("40k_ruin_wall")
    b.settle()
    st = b.state()
    n = b.api("/api/needed", {"scenario": st["scen"], "charger": st["charger"]})["nearest"]
    assert page.locator("#layer-tools .nearest-line").count() == 1
    assert page.locator("#nearest-text").text_content() == f"{n['distance']:.2f}″"
    assert b.errors == []
