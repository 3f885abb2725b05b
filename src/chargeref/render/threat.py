"""The threat map as a heat map over the board.

The board, terrain and models come from ``render_svg`` (whole board, no ruling); a
layer of cells, one per grid spot and ``step`` wide, goes between the terrain and the
models. Colour runs from pale yellow (a small chance) to dark red (certain); a spot
where the unit cannot stand is left uncoloured and a spot with no threat at all is
light green. A small scale of eleven swatches (0 to 1) sits in the map's lower left corner.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

from ..scenario import AnyScenario
from . import render_svg

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)

#: (probability, RGB) stops of the colour scale
STOPS = ((0.0, (255, 245, 190)), (0.5, (245, 130, 40)), (1.0, (150, 0, 20)))
SAFE = "#b8e0b0"


def colour(p: float) -> str:
    """The colour of a probability in [0, 1] (0 itself is the 'safe' green)."""
    if p <= 0:
        return SAFE
    p = min(1.0, p)
    for (p0, c0), (p1, c1) in zip(STOPS, STOPS[1:], strict=False):
        if p <= p1:
            t = (p - p0) / (p1 - p0)
            rgb = [round(a + (b - a) * t) for a, b in zip(c0, c1, strict=True)]
            return "#{:02x}{:02x}{:02x}".format(*rgb)
    return "#{:02x}{:02x}{:02x}".format(*STOPS[-1][1])


def _f(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def render_threat_svg(scen: AnyScenario, tmap: Any, title: str | None = None) -> str:
    """SVG text of the threat map ``tmap`` (a ``chargeref.batch.ThreatMap``) on ``scen``."""
    ttl = title or f"threat to {tmap.unit}: chance that an enemy charge succeeds, B's centroid at each spot"
    text = render_svg(scen, None, title=ttl, whole_board=True)
    root = ET.fromstring(text)
    q = f"{{{SVG_NS}}}"
    mapg = next(g for g in root.iter(q + "g") if g.get("class") == "map")
    depth = float(scen.board.depth)
    h = tmap.step / 2
    layer = ET.Element(q + "g", {"class": "threat", "opacity": "0.75"})
    for j, y in enumerate(tmap.y):
        for i, x in enumerate(tmap.x):
            p = float(tmap.probability[j][i])
            if math.isnan(p):
                continue
            cell = ET.SubElement(
                layer,
                q + "rect",
                {"x": _f(x - h), "y": _f(depth - (y + h)), "width": _f(tmap.step), "height": _f(tmap.step), "fill": colour(p)},
            )
            ET.SubElement(cell, q + "title").text = f"({x:g}, {y:g}): {p:.4f}"
    kids = list(mapg)
    where = next((k + 1 for k, el in enumerate(kids) if el.get("class") == "terrain-layer"), 1)
    mapg.insert(where, layer)
    # the scale: ten swatches along the bottom edge of the map, inside it
    W = float(scen.board.width)
    sw = min(W, depth) / 28
    leg = ET.SubElement(mapg, q + "g", {"class": "threat-legend"})
    for k in range(11):
        p = k / 10
        ET.SubElement(
            leg, q + "rect",
            {"x": _f(0.5 + k * sw), "y": _f(depth - 0.5 - sw), "width": _f(sw), "height": _f(sw), "fill": colour(p),
             "stroke": "#333", "stroke-width": _f(sw / 30)},
        )
        t = ET.SubElement(leg, q + "text", {"x": _f(0.5 + (k + 0.5) * sw), "y": _f(depth - 0.5 - sw * 0.35),
                                             "font-size": _f(sw * 0.4), "text-anchor": "middle"})
        t.text = f"{p:.1f}"
    return ET.tostring(root, encoding="unicode")
