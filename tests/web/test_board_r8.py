"""The board as a person sees it (round 8), in a real browser (Playwright, Debian's
chromium; fails, never skips, without them): a ruling comes with the key to its
picture; a slow ruling says it is under way; a broken or huge file is refused in words
and leaves the table as it was; a model off the board is pointed at, and the table's
problems stay listed above the board until they are fixed. No timed assertions: every
wait is on the page's state."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from board_page import Board, open_board
from playwright.sync_api import Browser, Route

OFF_BOARD = {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "units": [
    {"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [{"id": "A1", "at": [10, 12], "base": {"round": 32}}]},
    {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "B1", "at": [70, 20], "base": {"round": 32}}]}]}

#: what a refused request may print in the console (the page shows it in words instead)
REFUSED = ("status of 413", "status of 422")


@pytest.fixture()
def board(browser: Browser, server: str) -> Iterator[Board]:
    ctx, b = open_board(browser, server)
    yield b
    ctx.close()


def unexpected(b: Board) -> list[str]:
    return [e for e in b.errors if not any(r in e for r in REFUSED)]


def toast(b: Board, starts: str) -> str:
    b.page.wait_for_function("(s) => document.getElementById('toast').textContent.startsWith(s)", arg=starts)
    return b.page.locator("#toast").inner_text()


@pytest.mark.parametrize(("name", "dice", "must"), [
    ("40k_wtc_walkthrough", [4, 6], {"charger", "target", "ghost", "path", "engagement-ring", "coherency", "contact"}),
    ("t9a_multiple_a", [3, 3], {"charger", "target", "path", "contact"}),
    ("warmaster_diagram_33_3", None, {"charger", "target", "path", "first-stand"}),
])
def test_a_ruling_comes_with_the_key_to_its_picture(board: Board, name: str, dice: list[int] | None,
                                                     must: set[str]) -> None:
    b, page = board, board.page
    b.example(name)
    assert page.locator("#legend-box").is_hidden()  # the table view is not the picture
    if dice:
        page.check("input[name=dice-mode][value=dice]")
        page.fill("#die1", str(dice[0]))
        page.fill("#die2", str(dice[1]))
    page.click("#charge")
    page.wait_for_selector("#verdict.ok, #verdict.bad", timeout=60_000)
    box = page.locator("#legend-box")
    box.wait_for(state="visible")
    keys = set((box.get_attribute("data-keys") or "").split())
    assert must <= keys, must - keys
    # the key is the server's legend of this very picture: the same entries
    st = b.state()
    svg = page.request.post(b.url + "/api/draw", data=json.dumps(
        {"scenario": st["scen"], "ruling": st["ruling"], "whole_board": True, "bare": True}),
        headers={"content-type": "application/json"}).text()
    defs = svg[svg.index("<defs>"):]
    assert keys == {k.split('"')[0] for k in defs.split('data-key="')[1:]}
    # it loaded as a picture, and says in words what it shows
    page.wait_for_function("() => { const i = document.getElementById('legend-img');"
                           " return i.complete && i.naturalWidth > 0; }")
    alt = page.locator("#legend-img").get_attribute("alt") or ""
    assert alt.startswith("Key: ") and "charger" in alt and "target" in alt
    # back to the table: the picture and its key go
    page.click("#banner-edit")
    box.wait_for(state="hidden")
    assert unexpected(b) == []


def test_a_slow_ruling_says_it_is_under_way(board: Board) -> None:
    """The charge request is held by the test: while it is out, the verdict says the
    charge is being worked out and the button cannot be pressed again."""
    b, page = board, board.page
    b.example("40k_wtc_walkthrough")
    page.click("#charge")  # a first ruling, whose facts must not stay beside the next
    page.wait_for_selector("#verdict.ok", timeout=60_000)
    assert page.locator("#facts dd").count() > 0 and page.locator("#legend-box").is_visible()
    held: list[Route] = []
    page.route("**/api/charge", lambda route: held.append(route))
    page.click("#charge")
    page.wait_for_selector("#verdict.busy")
    assert page.locator("#verdict").inner_text().startswith("Working out the charge A → B, C")
    assert page.locator("#charge").is_disabled() and page.locator("#charge").inner_text() == "Ruling…"
    page.wait_for_function("() => document.body.dataset.charging === '1'")
    assert page.locator("#facts dd").count() == 0 and page.locator("#reasons li").count() == 0
    assert page.locator("#legend-box").is_hidden() and page.locator("#ruling-banner").is_hidden()
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_selector("#verdict.ok", timeout=60_000)
    assert page.locator("#charge").is_enabled() and page.locator("#charge").inner_text() == "Charge!"
    page.unroute("**/api/charge")
    assert unexpected(b) == []


def test_broken_and_huge_files_are_refused_in_words(board: Board) -> None:
    b, page = board, board.page
    b.example("40k_ruin_wall")
    before = b.state()["scen"]
    page.set_input_files("#file-input", files=[{"name": "broken.yaml", "mimeType": "text/yaml",
                                                "buffer": b"format: chargeref/1\nsystem: 40k\nunits: [\n"}])
    text = toast(b, "Could not open broken.yaml")
    assert "line 4" in text and text.endswith("The table is unchanged.") and "{" not in text
    assert b.state()["scen"] == before and b.state()["name"] == "40k_ruin_wall"
    page.set_input_files("#file-input", files=[{"name": "huge.json", "mimeType": "application/json",
                                                "buffer": b"{" + b" " * 1_100_000 + b"}"}])
    text = toast(b, "Could not open huge.json")
    assert "larger than the board accepts (1 MB)" in text and "{" not in text
    assert b.state()["scen"] == before
    assert page.locator("#example-select").input_value() == "40k_ruin_wall"
    assert unexpected(b) == []


def test_a_model_off_the_board_is_pointed_at_and_listed_until_fixed(board: Board) -> None:
    b, page = board, board.page
    b.example("40k_ruin_wall")
    page.set_input_files("#file-input", files=[{"name": "off.json", "mimeType": "application/json",
                                                "buffer": json.dumps(OFF_BOARD).encode()}])
    page.wait_for_function("window.chargeref.state.name === 'off.json'")
    assert toast(b, "Opened off.json") == "Opened off.json: it has a problem, listed above the board."
    # Open names the file, not the example shown before
    assert page.locator("#example-select").input_value() == ""
    assert page.locator("#example-select option:checked").inner_text() == "(off.json)"
    # the problem stays listed above the board (a toast alone would go)
    box = page.locator("#problems")
    box.wait_for(state="visible")
    assert box.get_attribute("data-count") == "1"
    items = page.locator("#problem-list li")
    assert items.count() == 1
    assert items.first.inner_text().startswith("units[B].models[B1].at the base is off the board")
    # the model is out of sight: an arrow at the board's edge points at it, with its id
    mark = page.locator("#layer-units .off-board-mark[data-model='B1']")
    assert mark.count() == 1 and mark.text_content() == "B1 is off the board"
    pts: Any = page.evaluate("""() => [...document.querySelectorAll('.off-board-mark polygon')][0]
        .getAttribute('points').split(' ').map((p) => p.split(',').map(Number))""")
    tip = pts[0]
    assert tip[0] == pytest.approx(60, abs=1e-3)  # on the right edge (x = 60), where B1 left
    assert tip[1] == pytest.approx(44 - 20, abs=1e-3)  # at B1's height (SVG y is depth - y)
    # a charge on this table is refused, in words naming the field
    b.click_unit("A")
    page.evaluate("window.chargeref.state.targets = ['B']")
    page.click("#charge")
    assert "units[B].models[B1].at" in toast(b, "units[B].models[B1].at")
    page.wait_for_selector("#verdict.none")
    # the fixed file: no problem left, no arrow
    fixed = json.loads(json.dumps(OFF_BOARD))
    fixed["units"][1]["models"][0]["at"] = [50, 20]
    page.set_input_files("#file-input", files=[{"name": "fixed.json", "mimeType": "application/json",
                                                "buffer": json.dumps(fixed).encode()}])
    page.wait_for_function("window.chargeref.state.name === 'fixed.json'")
    box.wait_for(state="hidden")
    assert box.get_attribute("data-count") == "0"
    assert page.locator("#layer-units .off-board-mark").count() == 0
    assert page.locator("#example-select option:checked").inner_text() == "(fixed.json)"
    assert unexpected(b) == []


def test_terrain_labels_stay_in_view_when_the_ruling_is_zoomed(board: Board) -> None:
    """The ruling view zooms to the charge and cuts the rock at the left: its label
    moves to the part in view (it was cut to "sable" before round 8)."""
    b, page = board, board.page
    b.example("t9a_multiple_a")
    # on the table, impassable ground is hatched as in the picture and its key
    hatch = page.locator("#layer-table g.terrain[data-terrain='rock'] polygon.hatch-fill")
    assert hatch.count() == 1 and hatch.get_attribute("fill") == "url(#hatch-pattern)"
    assert page.locator("#hatch-pattern line.hatch").count() == 1
    page.click("#charge")
    page.wait_for_selector("#verdict.ok", timeout=60_000)
    vb = [float(v) for v in (page.locator("#board").get_attribute("viewBox") or "").split()]
    assert vb[2] < b.state()["scen"]["board"]["width"]  # zoomed: the test means something
    inside: Any = page.evaluate("""() => {
        const lab = document.querySelector('#layer-ruling g.terrain[data-id="rock"] g.terrain-label text:last-child');
        const a = lab.getBoundingClientRect(), v = document.getElementById('board').getBoundingClientRect();
        return [lab.textContent, a.left >= v.left, a.right <= v.right, a.top >= v.top, a.bottom <= v.bottom];
    }""")
    assert inside == ["rock · impassable", True, True, True, True]
    assert unexpected(b) == []


def test_edition_11_lists_the_targets_the_roll_may_pick_then_charges_one(board: Board) -> None:
    """Edition 11: Charge! without targets asks which targets the roll may pick (the
    API's choices), each allowed set has a button that charges it with the same dice."""
    b, page = board, board.page
    b.example("40k_ed11_choices")
    assert b.state()["charger"] == "A" and b.state()["targets"] == []
    page.click("#charge")
    page.wait_for_selector("#verdict.choices", timeout=60_000)
    st = b.state()
    want = b.page.request.post(b.url + "/api/charge", data=json.dumps(
        {"scenario": st["scen"], "charger": "A", "targets": [], "dice": [4, 3], "reroll": "none", "modifier": 0}),
        headers={"content-type": "application/json"}).json()
    assert st["ruling"] == want and [c["targets"] for c in want["choices"]] == [["B"], ["C"]]
    assert page.locator("#verdict").inner_text() == "A ROLL OF 7 MAY PICK 1 TARGET SET"
    assert page.locator("#why-title").inner_text() == "The target sets this roll may pick"
    rows = page.locator("#choices li")
    assert rows.count() == 2
    assert rows.nth(0).get_attribute("class") == "allowed" and "needs 5" in rows.nth(0).inner_text()
    assert rows.nth(1).get_attribute("class") == "refused" and rows.nth(1).inner_text().endswith("Not with a 7.")
    assert page.locator("#banner-keep").is_hidden()  # nothing moved: nothing to keep
    # the 2" engagement range of edition 11, in the picture and its key
    box = page.locator("#legend-box")
    box.wait_for(state="visible")
    assert "engagement range 2" in (page.locator("#legend-img").get_attribute("alt") or "")
    # both targets the roll was asked about are in view
    for unit in ("B", "C"):
        inside = page.evaluate("""(u) => {
            const m = document.querySelector(`#layer-ruling .model[data-unit="${u}"]`) ||
                      [...document.querySelectorAll('#layer-ruling .model')].find((e) => (e.getAttribute('data-id') || '').startsWith(u));
            const a = m.getBoundingClientRect(), v = document.getElementById('board').getBoundingClientRect();
            return a.left >= v.left && a.right <= v.right && a.top >= v.top && a.bottom <= v.bottom;
        }""", unit)
        assert inside, unit
    # pick B: the charge is made with the same dice
    rows.nth(0).locator("button").click()
    page.wait_for_selector("#verdict.ok:not(.choices)", timeout=60_000)
    st = b.state()
    assert st["targets"] == ["B"] and st["ruling"]["targets"] == ["B"] and st["ruling"]["roll"]["dice"] == [4, 3]
    assert st["ruling"]["success"] is True and page.locator("#banner-keep").is_visible()
    # the live numbers follow the new target
    page.wait_for_function("document.getElementById('live-needed').dataset.roll === '5'")
    assert unexpected(b) == []


def test_a_server_that_does_not_answer_is_said_in_words(board: Board) -> None:
    b, page = board, board.page
    b.example("40k_ruin_wall")
    page.route("**/api/charge", lambda route: route.abort())
    page.click("#charge")
    assert toast(b, "the chargeref server") == "the chargeref server did not answer (is `chargeref serve` still running?)"
    page.wait_for_selector("#verdict.none")
    assert page.locator("#charge").is_enabled()
    page.unroute("**/api/charge")
    assert [e for e in unexpected(b) if "ERR_FAILED" not in e] == []


def test_the_threat_step_follows_the_tables_unit(board: Board) -> None:
    """A step is a length in the table's unit: 2" on a 40k table, 10 cm on a Warmaster
    one (a 2 kept from a 40k table made a 2 cm Warmaster grid, 25 times the spots)."""
    b, page = board, board.page
    b.example("40k_ruin_wall")
    page.fill("#threat-step", "3")
    page.dispatch_event("#threat-step", "change")
    b.example("40k_wtc_walkthrough")
    assert page.locator("#threat-step").input_value() == "3"  # same unit: the user's step stays
    b.example("warmaster_diagram_33_3")
    assert page.locator("#threat-step").input_value() == "10" and page.locator("#threat-step-unit").inner_text() == "cm"
    b.example("t9a_align_a")
    assert page.locator("#threat-step").input_value() == "2" and page.locator("#threat-step-unit").inner_text() == "in"
    assert unexpected(b) == []
