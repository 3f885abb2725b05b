"""T9A 2.x pictures: rank-and-file blocks with their front edges, the target's arc
lines (the four 135° corner bisectors) and the charged facing."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from ..geometry.blocks import block_frame
from .board import BoardRenderer
from .primitives import _f, _Piece, _sub

#: how the page and the pictures name the system
T9A_NAME = "T9A 2.x"


class RendererT9A(BoardRenderer):
    def _system_name(self) -> str:
        return T9A_NAME

    def _model_label_text(self, p: _Piece) -> str | None:
        return None  # models in a block are too many and too small to label

    def _under_ghosts(self, m: ET.Element) -> None:
        self._arcs(_sub(m, "g", {"class": "arcs"}))

    def _detail_marks(self, g: ET.Element) -> None:
        self._charged_facing(g)
        super()._detail_marks(g)

    def _arcs(self, g: ET.Element) -> None:
        """T9A: the target's four arc dividing lines, from each boundary corner at 135°
        to the adjacent facings (the corner's outward bisector), as the target stood
        when the charge was declared; the charged facing, if the ruling names it."""
        assert self.ruling is not None
        if not self.targets:
            return
        b = self.before.blocks.get(self.targets[0])
        if b is None or b.round:
            return
        _, f, right = block_frame(b.front_mid, b.facing)
        x0, y0, x1, y1 = self.region
        reach = math.hypot(x1 - x0, y1 - y0)
        dirs = [f - right, f + right, -f + right, -f - right]
        for c, d in zip(b.corners, dirs, strict=True):
            d = d / np.linalg.norm(d)
            e = np.asarray(c) + d * reach
            _sub(g, "line", {"class": "arc", "x1": _f(c[0]), "y1": _f(self.Y(c[1])), "x2": _f(e[0]),
                             "y2": _f(self.Y(e[1]))})
            self.used.add("arc")

    def _charged_facing(self, g: ET.Element) -> None:
        """T9A: the target's Charged Facing (``details.charged_facing``: front, rear,
        left or right), highlighted on the target as it stood when charged."""
        assert self.ruling is not None
        if not self.targets:
            return
        b = self.before.blocks.get(self.targets[0])
        if b is None or b.round:
            return
        cf = self.ruling.details.get("charged_facing")
        edges = {"front": (0, 1), "right": (1, 2), "right_flank": (1, 2), "rear": (2, 3), "back": (2, 3),
                 "left": (3, 0), "left_flank": (3, 0)}
        if isinstance(cf, str):
            key = cf.lower().replace(" ", "_").replace("-", "_")
            if key in edges:
                i, j = edges[key]
                a, bb = b.corners[i], b.corners[j]
                _sub(g, "line", {"class": "charged-facing", "data-facing": key, "x1": _f(a[0]), "y1": _f(self.Y(a[1])),
                                 "x2": _f(bb[0]), "y2": _f(self.Y(bb[1]))})
                self.used.add("charged-facing")

