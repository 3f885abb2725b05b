"""The threat layer of the board in a real browser (Playwright, Debian's chromium): the
toggle computes the map a few rows at a time with a progress bar, draws one cell per
spot where the unit can stand, under the models, in the colours of the Python heat
map, with the values of POST /api/threat; a change to the table recomputes it; off
clears it. Fails (never skips) without chromium or Playwright. Saves the screenshot of
docs/web.md, docs/img/threat-board.png."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from chargeref.render.threat import colour

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE, UNIT, STEP = "40k_ringed_target", "B", 4


def cells(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("""[...document.querySelectorAll('#layer-threat rect.threat-cell')].map((r) => ({
        x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'),
        fill: r.getAttribute('fill'), p: +r.dataset.p}))""")


def test_threat_layer_draws_the_map_under_the_models(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    page.select_option("#example-select", EXAMPLE)
    page.wait_for_function(f"window.chargeref.state.name === {json.dumps(EXAMPLE)}")
    page.select_option("#threat-unit", UNIT)
    page.fill("#threat-step", str(STEP))
    page.dispatch_event("#threat-step", "change")
    assert page.locator("#threat-legend .swatch").count() == 11
    assert page.locator("#layer-threat rect").count() == 0

    # progress while it computes: the bar counts rows; the map arrives a few rows at a
    # time. A fast server can finish before a poll would see the bar, so the page
    # records every state the bar takes from the click on.
    page.evaluate("""() => {
      const bar = document.getElementById('threat-progress');
      window.__barSeen = [];
      new MutationObserver(() => window.__barSeen.push(bar.classList.contains('hidden') ? -1 : bar.value))
        .observe(bar, { attributes: true });
    }""")
    page.click("#threat-toggle")
    assert page.get_attribute("#threat-toggle", "aria-pressed") == "true"
    page.wait_for_selector("#threat-card[data-done='1']", timeout=180_000)
    seen = page.evaluate("window.__barSeen")
    assert seen and seen[0] == 0 and seen[-1] == -1, seen  # shown at 0 rows, hidden when done
    assert "rows" in page.inner_text("#threat-status") or "spots" in page.inner_text("#threat-status")

    scen = page.evaluate("JSON.parse(JSON.stringify(window.chargeref.state.scen))")
    r = page.request.post(server + "/api/threat", data=json.dumps({"scenario": scen, "unit": UNIT, "step": STEP}),
                          headers={"content-type": "application/json"})
    assert r.ok, r.text()
    want = r.json()
    depth = scen["board"]["depth"]
    expect = {(round(x - STEP / 2, 4), round(depth - (y + STEP / 2), 4)): p
              for j, y in enumerate(want["y"]) for i, x in enumerate(want["x"])
              if (p := want["probability"][j][i]) is not None}
    drawn = cells(page)
    assert len(drawn) == len(expect) > 20
    for c in drawn:
        p = expect[(round(c["x"], 4), round(c["y"], 4))]
        assert c["p"] == p and c["w"] == STEP
        assert c["fill"] == colour(p), (p, c["fill"])
    assert any(c["p"] > 0 for c in drawn) and any(c["p"] == 0 for c in drawn)
    # under the models: the layer comes before the units' layer in the picture
    order = page.evaluate("[...document.querySelector('#board').children].map((g) => g.id)")
    assert order.index("layer-threat") < order.index("layer-units")

    page.screenshot(path=str(ROOT / "docs" / "img" / "threat-board.png"))

    # a change to the table throws the map away and computes it again
    before = {(c["x"], c["y"]): c["p"] for c in drawn}
    model = page.locator("#layer-units .model[data-unit='A']").first
    box = model.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 7):
        page.mouse.move(x - 40 * k / 6, y)
    page.mouse.up()
    page.wait_for_function("!document.querySelector('#threat-card').dataset.done", timeout=10_000)
    page.wait_for_selector("#threat-card[data-done='1']", timeout=180_000)
    after = {(c["x"], c["y"]): c["p"] for c in cells(page)}
    assert after and after != before

    page.click("#threat-toggle")
    assert page.locator("#layer-threat rect").count() == 0
    assert page.inner_text("#threat-status") == "off"
    assert not errors, errors
    ctx.close()
