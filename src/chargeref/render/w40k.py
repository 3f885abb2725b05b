"""Warhammer 40,000 pictures: engagement rings and coherency links around the charging
models, and WTC wall tokens with the fights they allow across a wall."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import shapely

from ..geometry.shapes import TOL, Disc, distance
from ..scenario import Scenario40k
from ..systems.w40k.editions import Edition, edition
from .board import BoardRenderer
from .primitives import _closest_points, _f, _offset_outline, _sub


class Renderer40k(BoardRenderer):
    def _system_name(self) -> str:
        scen = self.scen
        assert isinstance(scen, Scenario40k)
        return f"Warhammer 40,000 ({scen.rules.edition}th edition{', WTC' if scen.rules.use_wtc else ''})"

    def _under_units(self, m: ET.Element) -> None:
        self._rings(_sub(m, "g", {"class": "engagement-rings"}))
        self._coherency(_sub(m, "g", {"class": "coherency-links"}))

    def _over_units(self, m: ET.Element) -> None:
        self._tokens(_sub(m, "g", {"class": "tokens"}))

    def _edition(self) -> Edition:
        scen = self.scen
        assert isinstance(scen, Scenario40k)
        return edition(scen.rules.edition)

    def engagement_range(self) -> float:
        """The edition's engagement range in scenario units (1" in 9th and 10th, 2" in
        11th): the rings and the legend's label both use it."""
        return self._edition().er * self.inch

    def _rings(self, g: ET.Element) -> None:
        """40k engagement range: every point within the edition's engagement range of
        each charging model's base (a circle of radius r + range for round bases, the
        exact offset outline otherwise)."""
        r = self.engagement_range()
        for p in self._charging_pieces():
            part = p.fp.parts[0]
            if len(p.fp.parts) == 1 and isinstance(part, Disc):
                _sub(g, "circle", {"class": "engagement-ring", "data-id": p.id, "cx": _f(part.c[0]),
                                   "cy": _f(self.Y(part.c[1])), "r": _f(part.r + r)})
            else:
                _sub(g, "polygon", {"class": "engagement-ring", "data-id": p.id,
                                    "points": self.pts(_offset_outline(p.fp, r))})
            self.used.add("engagement-ring")

    def _coherency(self, g: ET.Element) -> None:
        """Links between charging models whose bases are within the edition's coherency
        distance (2" in every edition so far; centre to centre, drawn under the bases so
        only the gap between them shows)."""
        ps = self._charging_pieces()
        lim = self._edition().coherency * self.inch + TOL
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                a, b = ps[i], ps[j]
                if math.dist(a.xy, b.xy) - a.fp.radius - b.fp.radius > lim:
                    continue
                if distance(a.fp, b.fp) <= lim:
                    _sub(g, "line", {"class": "coherency", "data-ids": f"{a.id} {b.id}", "x1": _f(a.at[0]),
                                     "y1": _f(self.Y(a.at[1])), "x2": _f(b.at[0]), "y2": _f(self.Y(b.at[1]))})
                    self.used.add("coherency")

    def _walls(self) -> list[shapely.LineString]:
        out = []
        for t in self.scen.terrain:
            if t.type == "ruin":
                out += [shapely.LineString(w.points) for w in t.walls]
            elif t.type == "wall":
                out.append(shapely.LineString(t.points))
        return out

    def _tokens(self, g: ET.Element) -> None:
        """WTC walls tokens: a 'T' marker on the model, and a dashed link to each enemy
        model within 2" of it on the far side of a wall (the segment between the two
        bases crosses a ruin wall or a free-standing wall)."""
        walls = self._walls()
        lim = 2.0 * self.inch + TOL
        tokens = [p for p in self.after.pieces if p.token]
        for p in tokens:
            for q in self.after.pieces:
                if self.after.players[q.unit] == p.player:
                    continue
                if math.dist(p.xy, q.xy) - p.fp.radius - q.fp.radius > lim:
                    continue
                if distance(p.fp, q.fp) > lim:
                    continue
                seg = shapely.LineString([p.xy, q.xy])
                if not any(seg.intersects(w) for w in walls):
                    continue
                a, b = _closest_points(p.fp, q.fp)
                _sub(g, "line", {"class": "token-link", "data-ids": f"{p.id} {q.id}", "x1": _f(a[0]),
                                 "y1": _f(self.Y(a[1])), "x2": _f(b[0]), "y2": _f(self.Y(b[1]))})
                self.used.add("token-link")
        for p in tokens:
            r = max(4.5 * self.px, min(0.3 * p.fp.radius, 8 * self.px))
            tg = _sub(g, "g", {"class": "token", "data-id": p.id})
            cx, cy = p.at[0] + 0.55 * p.fp.radius, p.at[1] + 0.55 * p.fp.radius
            _sub(tg, "circle", {"cx": _f(cx), "cy": _f(self.Y(cy)), "r": _f(r)})
            _sub(tg, "text", {"x": _f(cx), "y": _f(self.Y(cy) + 0.36 * r * 1.6), "text-anchor": "middle",
                              "style": f"font-size:{_f(1.6 * r)}px"}, "T")
            self.used.add("token")

