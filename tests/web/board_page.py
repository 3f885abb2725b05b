"""The board's page as the browser tests drive it (Playwright, Debian's chromium): a page
of the board with its console errors collected, and the ``board`` fixture's page built
on the ``server`` and ``browser`` fixtures of conftest.py."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, Page


class Board:
    """A page of the board with its console errors collected."""

    def __init__(self, page: Page, url: str):
        self.page = page
        self.url = url
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self) -> None:
        self.page.goto(self.url + "/")
        self.page.wait_for_selector("body[data-ready='1']", timeout=20_000)

    def state(self) -> Any:
        return self.page.evaluate("JSON.parse(JSON.stringify(window.chargeref.state))")

    def example(self, name: str) -> None:
        self.page.select_option("#example-select", name)
        self.page.wait_for_function(f"window.chargeref.state.name === {json.dumps(name)}")
        self.settle()

    def settle(self) -> None:
        """Wait until the live numbers have come back."""
        self.page.wait_for_timeout(200)
        self.page.wait_for_function("!document.querySelector('#live-nearest').classList.contains('busy')",
                                    timeout=20_000)

    def api(self, path: str, body: Any) -> Any:
        r = self.page.request.post(self.url + path, data=json.dumps(body), headers={"content-type": "application/json"})
        assert r.ok, r.text()
        return r.json()

    def click_unit(self, unit: str) -> None:
        self.page.locator(f"#layer-units .model[data-unit='{unit}']").first.click()
        self.page.wait_for_timeout(50)


def open_board(browser: Browser, server: str) -> tuple[Any, Board]:
    """A new browser context (downloads allowed) with the board open in it."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    b = Board(ctx.new_page(), server)
    b.open()
    return ctx, b
