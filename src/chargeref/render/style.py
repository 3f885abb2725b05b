"""The look of every chargeref picture, from one file: ``style.json``.

Both the Python renderer and the web board read ``style.json`` (the board fetches it
from the server), so class names and colours have one source of truth. Each rule is a
CSS selector and its declarations; a value written ``{N}`` means N screen pixels and is
converted to scenario units by the reader (the drawing's viewBox is in scenario units).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

_PIXELS = re.compile(r"\{(-?\d+(?:\.\d+)?)\}")


@lru_cache(maxsize=1)
def style_data() -> dict[str, Any]:
    """The parsed ``style.json`` (players' colours and the CSS rules)."""
    text = resources.files("chargeref.render").joinpath("style.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def style_text() -> str:
    """``style.json`` as shipped (what the web board serves)."""
    return resources.files("chargeref.render").joinpath("style.json").read_text(encoding="utf-8")


def player_colours(player: int) -> tuple[str, str]:
    """(fill, dark outline) of a player's models."""
    p = style_data()["players"][str(player)]
    return p["fill"], p["dark"]


def css(px: float, fmt: Any) -> str:
    """The style sheet for a picture where one screen pixel is ``px`` scenario units;
    ``fmt`` writes a number as SVG text."""

    def pixels(m: re.Match[str]) -> str:
        return f"{fmt(float(m.group(1)) * px)}px"

    rules = style_data()["rules"]
    return "\n" + "\n".join(f"{sel} {{{_PIXELS.sub(pixels, body)}}}" for sel, body in rules) + "\n"


__all__ = ["css", "player_colours", "style_data", "style_text"]
