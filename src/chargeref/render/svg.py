"""Draw a scenario, and optionally a ruling, as an SVG document.

``render_svg(scenario, ruling)`` is a pure function: it reads scenario data (and the
ruling's moves, reasons and details) and returns an SVG string built with the standard
library's ElementTree. It knows no game rules: every verdict it shows was made by a
rule system and handed over in the ruling. It only measures things in order to *draw*
them (where two bases touch, which charging models are within 2" of each other).

The work is split by responsibility: ``primitives`` (SVG helpers, pieces, routes),
``board`` (what every system draws), ``panels`` (header, legend, reasons), ``style``
(the look, from ``style.json``, shared with the web board) and one renderer per system
(``w40k``, ``t9a``, ``warmaster``).

Conventions of the drawing
--------------------------
* The ``viewBox`` is in scenario units (inches or centimetres). The contract's y axis
  goes up the page, SVG's goes down, so every point is written as ``(x, depth - y)``:
  y = 0 (player 1's edge) is at the bottom of the picture.
* Everything carries semantic CSS classes (``model p1 charger``, ``ghost``, ``path``,
  ``engagement-ring``, ``coherency``, ``contact``, ``token``, ``token-link``, ``arc``,
  ``reasons`` ...), styled by one embedded ``<style>``; legend swatches use ``lg-``
  classes so that counting ``model`` elements counts models only.
* A move's route is drawn from its ``segments`` when the ruling gives them (circular
  arcs as SVG ``A`` commands), else from its ``path`` points.
* Output is deterministic: coordinates are rounded to 4 decimals, nothing depends on
  dict or set order, and the same input gives a byte-identical string.
"""

from __future__ import annotations

from typing import Any

from ..ruling import Ruling
from ..scenario import AnyScenario
from .board import BoardRenderer
from .primitives import DEFAULT_WIDTH_PX, split_segments
from .t9a import RendererT9A
from .w40k import Renderer40k
from .warmaster import RendererWarmaster

#: the renderer class of each system
RENDERERS: dict[str, type[BoardRenderer]] = {
    "40k": Renderer40k,
    "t9a": RendererT9A,
    "warmaster": RendererWarmaster,
}


def render_svg(
    scenario: AnyScenario,
    ruling: Ruling | dict[str, Any] | None = None,
    *,
    title: str | None = None,
    show_before: bool = True,
    whole_board: bool = False,
    width_px: int = DEFAULT_WIDTH_PX,
    bare: bool = False,
    segments: dict[int, list[Any]] | None = None,
) -> str:
    """Draw a scenario (and, optionally, a ruling on it) as an SVG document.

    * ``ruling``: a :class:`~chargeref.ruling.Ruling` (or its JSON data). The picture
      then shows the position after the charge (``ruling.after``, or the moves applied),
      the starting positions as ghosts (``show_before``), every move's path (arcs
      included), engagement rings and coherency links (40k), base contacts, tokens,
      arcs (T9A), the first stand (Warmaster), a header with the verdict and the
      reasons as text.
    * By default a ruling zooms to the charge; ``whole_board=True`` draws the board.
    * ``width_px``: the picture's pixel width (fonts and strokes are sized for it).
    * ``bare=True``: only the whole board and what is on it (no header, legend or
      margins; ``viewBox="0 0 width depth"``), for laying over the web board.
    * ``segments``: move index -> that move's ``segments`` (straight legs and arcs),
      for a ``Ruling`` object read without them; a dict ruling carries its own.

    The result is deterministic: the same input gives the same string.

    >>> from chargeref.scenario import scenario_from_data
    >>> s = scenario_from_data({"format": "chargeref/1", "system": "40k",
    ...     "board": {"width": 20, "depth": 10},
    ...     "units": [{"id": "A", "player": 1, "models": [{"id": "A1", "at": [5, 5], "base": "32mm"}]}]})
    >>> svg = render_svg(s)
    >>> svg.startswith("<svg") and 'class="model p1"' in svg
    True
    """
    segments = dict(segments or {})
    if isinstance(ruling, dict):
        data, found = split_segments(ruling)
        segments.update(found)
        ruling = Ruling.model_validate(data)
    if ruling is not None and ruling.system != scenario.system:
        raise ValueError(f"the ruling is for {ruling.system!r} but the scenario is {scenario.system!r}")
    if width_px < 200:
        raise ValueError("width_px must be at least 200")
    cls = RENDERERS.get(scenario.system)
    if cls is None:
        raise ValueError(f"no renderer for system {scenario.system!r}")
    renderer = cls(scenario, ruling, title, show_before, whole_board or bare, width_px, segments)
    return renderer.build_bare() if bare else renderer.build()


__all__ = ["render_svg", "DEFAULT_WIDTH_PX", "RENDERERS"]
