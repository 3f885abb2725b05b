"""The renderer every system shares: the board, terrain, models, moves and labels.

``BoardRenderer`` draws what all three games have in common; ``w40k``, ``t9a`` and
``warmaster`` subclass it and add their own layers through the hooks ``_under_ghosts``,
``_under_units``, ``_detail_marks`` and ``_over_units``, and name their system in
``_system_name``. Text panels (header, legend, reasons) come from ``PanelsMixin``.

Conventions: the ``viewBox`` is in scenario units; the contract's y axis goes up the
page and SVG's down, so every point is written as ``(x, depth - y)``. Output is
deterministic (4 decimals, no dependence on set order).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import shapely
import shapely.ops

from ..geometry.blocks import block_frame
from ..geometry.shapes import Disc, Ellipse, Footprint
from ..ruling import Ruling
from ..scenario import AnyScenario, inch
from ..scenario.common import Barricade, Ruin, Wall
from .panels import PanelsMixin
from .primitives import (
    SVG_NS,
    Leg,
    Pt,
    _after_army,
    _army,
    _Block,
    _bounds_of,
    _closest_points,
    _cls,
    _f,
    _num,
    _offset_outline,
    _outline,
    _Piece,
    _same_place,
    _sub,
    move_route,
    route_points,
)
from .style import css


class BoardRenderer(PanelsMixin):
    def __init__(
        self,
        scen: AnyScenario,
        ruling: Ruling | None,
        title: str | None,
        show_before: bool,
        whole_board: bool,
        width_px: int,
        segments: dict[int, list[Any]] | None = None,
    ) -> None:
        self.scen = scen
        self.ruling = ruling
        self.title = title
        self.show_before = show_before and ruling is not None
        self.whole_board = whole_board or ruling is None
        self.width_px = width_px
        self.depth = float(scen.board.depth)
        self.inch = inch(scen)
        self.unit = scen.unit
        self.used: set[str] = set()
        self.before = _army(scen)
        self.after = _after_army(scen, self.before, ruling) if ruling is not None else self.before
        self.charger = ruling.charger if ruling else None
        self.targets = list(ruling.targets) if ruling else []
        self.engaged = list(ruling.engaged) if ruling else []
        segs = segments or {}
        #: each move's route (straight legs and arcs), in the ruling's order
        self.routes = [move_route(mv, segs.get(i)) for i, mv in enumerate(ruling.moves)] if ruling else []

    # ----------------------------------------------------------------- coordinates

    def Y(self, y: float) -> float:
        """Contract y (up the page) -> SVG y (down the page)."""
        return self.depth - y

    def pts(self, points: Iterable[Any]) -> str:
        return " ".join(f"{_f(p[0])},{_f(self.Y(p[1]))}" for p in points)

    def length(self, v: float) -> str:
        """A distance for people, in the scenario's unit."""
        return f'{_num(v)}"' if self.unit == "in" else f"{_num(v)} cm"

    # ----------------------------------------------------------------- the view

    def _region(self) -> tuple[float, float, float, float]:
        """The part of the battlefield to draw (contract coordinates)."""
        W, D = float(self.scen.board.width), self.depth
        if self.whole_board or self.ruling is None:
            return 0.0, 0.0, W, D
        pts: list[Sequence[float]] = []
        focus = {self.charger, *self.targets, *self.engaged}
        for army in (self.before, self.after):
            for p in army.pieces:
                if p.unit in focus:
                    r = p.fp.radius
                    pts += [(p.at[0] - r, p.at[1] - r), (p.at[0] + r, p.at[1] + r)]
            for b in army.blocks.values():
                if b.unit in focus:
                    pts += list(b.corners)
        for mv, legs in zip(self.ruling.moves, self.routes, strict=True):
            pts += [tuple(q[:2]) for q in mv.path or [mv.from_, mv.to] if len(q) >= 2]
            pts += route_points(legs, 0.25 * self.inch)
        bb = _bounds_of(pts)
        if bb is None:
            return 0.0, 0.0, W, D
        margin = 2.5 * self.inch
        x0, y0, x1, y1 = bb[0] - margin, bb[1] - margin, bb[2] + margin, bb[3] + margin
        # at least 10" across, and no flatter than 2:1 either way
        x0, x1 = self._widen(x0, x1, 10 * self.inch)
        y0, y1 = self._widen(y0, y1, 10 * self.inch)
        x0, x1 = self._widen(x0, x1, 1.2 * (y1 - y0))
        y0, y1 = self._widen(y0, y1, 0.5 * (x1 - x0))
        # never show much beyond the board's edges
        edge = 0.5 * self.inch
        x0, x1 = max(x0, -edge), min(x1, W + edge)
        y0, y1 = max(y0, -edge), min(y1, D + edge)
        return x0, y0, x1, y1

    @staticmethod
    def _widen(a: float, b: float, least: float) -> tuple[float, float]:
        if b - a >= least:
            return a, b
        c = (a + b) / 2
        return c - least / 2, c + least / 2

    # ----------------------------------------------------------------- build

    def build_bare(self) -> str:
        """The whole board and what is on it, without header, legend or margins: the
        ``viewBox`` is exactly ``0 0 width depth`` (the web board lays it over its own
        drawing, in the same coordinates)."""
        W, D = float(self.scen.board.width), self.depth
        self.region = (0.0, 0.0, W, D)
        self.px = W / self.width_px
        m = ET.Element("g", {"class": "map"})
        self._draw_map(m)
        root = ET.Element("svg", {"xmlns": SVG_NS, "version": "1.1", "class": f"chargeref bare system-{self.scen.system}",
                                  "viewBox": f"0 0 {_f(W)} {_f(D)}", "width": str(self.width_px),
                                  "height": _f(round(D / self.px))})
        _sub(root, "style", text=css(self.px, _f))
        root.append(m)
        # the legend of what this map shows, for the page to show beside it: kept in
        # <defs> so that the bare map itself draws nothing more
        key = self.legend_svg()
        if key is not None:
            _sub(root, "defs").append(key)
        for el in root.iter():
            if el.tag not in ("text", "tspan", "title", "style"):
                el.tail = "\n"
        root.text = "\n"
        return ET.tostring(root, encoding="unicode")

    def build(self) -> str:
        x0, y0, x1, y1 = self._region()
        self.region = (x0, y0, x1, y1)
        mw = x1 - x0
        pad_frac = 0.02
        total_w = mw * (1 + 2 * pad_frac)
        self.px = total_w / self.width_px  # one pixel in scenario units
        pad = mw * pad_frac
        left = x0 - pad
        map_top, map_bottom = self.Y(y1), self.Y(y0)

        # The map is drawn first: the legend lists only what the map uses.
        m = ET.Element("g", {"class": "map", "clip-path": "url(#cr-map-clip)"})
        self._draw_map(m)
        header = self._fit_lines(self._header_lines(), total_w - 2 * pad)
        header_h = pad + self._lines_height(header)
        top = map_top - header_h
        footer_rows = self._footer_plan(left + pad, total_w - 2 * pad)
        footer_h = pad + footer_rows + pad
        total_h = header_h + (map_bottom - map_top) + footer_h

        root = ET.Element(
            "svg",
            {
                "xmlns": SVG_NS,
                "version": "1.1",
                "class": f"chargeref system-{self.scen.system}",
                "viewBox": f"{_f(left)} {_f(top)} {_f(total_w)} {_f(total_h)}",
                "width": str(self.width_px),
                "height": _f(round(total_h / self.px)),
            },
        )
        _sub(root, "title", text=header[0][0][0] if header else "chargeref")
        _sub(root, "style", text=css(self.px, _f))
        self._defs(root)
        _sub(root, "rect", {"class": "page", "x": _f(left), "y": _f(top), "width": _f(total_w), "height": _f(total_h)})

        self._header(root, header, left + pad, top + pad)
        root.append(m)
        _sub(root, "rect", {"class": "map-frame", "x": _f(x0), "y": _f(map_top), "width": _f(mw), "height": _f(y1 - y0)})
        self._footer(root, left + pad, map_bottom + pad, total_w - 2 * pad)

        for el in root.iter():
            if el.tag not in ("text", "tspan", "title", "style"):
                el.tail = "\n"
        root.text = "\n"
        return ET.tostring(root, encoding="unicode")

    def _defs(self, root: ET.Element) -> None:
        defs = _sub(root, "defs")
        x0, y0, x1, y1 = self.region
        clip = _sub(defs, "clipPath", {"id": "cr-map-clip"})
        _sub(clip, "rect", {"x": _f(x0), "y": _f(self.Y(y1)), "width": _f(x1 - x0), "height": _f(y1 - y0)})


    # ----------------------------------------------------------------- map layers

    def _draw_map(self, m: ET.Element) -> None:
        x0, y0, x1, y1 = self.region
        W, D = float(self.scen.board.width), self.depth
        _sub(m, "rect", {"class": "board", "x": "0", "y": "0", "width": _f(W), "height": _f(D)})
        self._grid(_sub(m, "g", {"class": "grid-lines"}))
        self._terrain(_sub(m, "g", {"class": "terrain-layer"}))
        if self.ruling is not None:
            self._under_ghosts(m)
        if self.show_before:
            self._ghosts(_sub(m, "g", {"class": "ghosts"}))
        if self.ruling is not None:
            self._under_units(m)
        self._units(_sub(m, "g", {"class": "units"}))
        if self.ruling is not None:
            self._paths(_sub(m, "g", {"class": "paths"}))
            self._contacts(_sub(m, "g", {"class": "contacts"}))
            self._detail_marks(_sub(m, "g", {"class": "detail-marks"}))
        self._over_units(m)
        if self.ruling is not None:
            self._reason_marks(_sub(m, "g", {"class": "reason-marks"}))
        self._labels(_sub(m, "g", {"class": "labels"}))

    # ----------------------------------------------------------------- system hooks

    def _system_name(self) -> str:
        """The game's name as the header shows it."""
        return self.scen.system

    def _under_ghosts(self, m: ET.Element) -> None:
        """Layers under the starting positions (a ruling is drawn)."""

    def _under_units(self, m: ET.Element) -> None:
        """Layers under the models (a ruling is drawn)."""

    def _detail_marks(self, g: ET.Element) -> None:
        """Marks over the models for the ruling's system details."""
        self._first_stand(g)

    def _over_units(self, m: ET.Element) -> None:
        """Layers over the models, drawn with or without a ruling."""

    def _model_label_text(self, p: _Piece) -> str | None:
        """The text inside a charger's or target's base (None: no label)."""
        return p.id

    def _grid(self, g: ET.Element) -> None:
        """Faint measuring grid: 1" and 6" lines (inches) or 5 and 10 cm lines."""
        x0, y0, x1, y1 = self.region
        W, D = float(self.scen.board.width), self.depth
        if self.unit == "in":
            minor, major = 1.0, 6.0
        else:
            minor, major = 5.0, 10.0
        if minor / self.px < 9:  # too dense to read: majors only
            minor = major
        k0, k1 = math.ceil(max(0.0, x0) / minor), math.floor(min(W, x1) / minor)
        for k in range(k0, k1 + 1):
            x = k * minor
            cls = "grid-major" if abs(x / major - round(x / major)) < 1e-9 else "grid"
            _sub(g, "line", {"class": cls, "x1": _f(x), "y1": _f(self.Y(max(0.0, y0))), "x2": _f(x), "y2": _f(self.Y(min(D, y1)))})
        k0, k1 = math.ceil(max(0.0, y0) / minor), math.floor(min(D, y1) / minor)
        for k in range(k0, k1 + 1):
            y = k * minor
            cls = "grid-major" if abs(y / major - round(y / major)) < 1e-9 else "grid"
            _sub(g, "line", {"class": cls, "x1": _f(max(0.0, x0)), "y1": _f(self.Y(y)), "x2": _f(min(W, x1)), "y2": _f(self.Y(y))})

    def _terrain(self, g: ET.Element) -> None:
        """Terrain, lowest first: hills, obstacles, impassable ground, ruin footprints and
        floors, then walls (ruin walls, free walls, barricades) at their true thickness."""
        order = {"hill": 0, "obstacle": 1, "impassable": 2, "ruin": 3, "wall": 4, "barricade": 5}
        items = sorted(enumerate(self.scen.terrain), key=lambda it: (order[it[1].type], it[0]))
        view = shapely.box(*self.region)
        for _, t in items:
            if isinstance(t, (Wall, Barricade)):
                shape: shapely.Geometry = shapely.LineString(t.points)
            elif isinstance(t, Ruin):
                shape = shapely.Polygon(t.footprint)
            else:
                shape = shapely.Polygon(t.polygon)
            if not shape.intersects(view):
                continue  # out of the picture: neither drawn nor in the legend
            tg = _sub(g, "g", {"class": f"terrain terrain-{t.type}", "data-id": t.id})
            if t.type == "hill":
                _sub(tg, "polygon", {"class": "hill", "points": self.pts(t.polygon)})
                self._terrain_label(tg, t.polygon, self._name(t.id, "hill", self.length(t.height)))
            elif t.type == "obstacle":
                _sub(tg, "polygon", {"class": "obstacle", "points": self.pts(t.polygon)})
                self._terrain_label(tg, t.polygon, self._name(t.id, "obstacle", self.length(t.height)))
            elif t.type == "impassable":
                _sub(tg, "polygon", {"class": "impassable", "points": self.pts(t.polygon)})
                self._hatch(tg, shapely.Polygon(t.polygon))
                self._terrain_label(tg, t.polygon, self._name(t.id, "impassable"))
            elif t.type == "ruin":
                _sub(tg, "polygon", {"class": "ruin", "points": self.pts(t.footprint)})
                for fl in t.floors:
                    _sub(tg, "polygon", {"class": "floor", "points": self.pts(fl.polygon)})
                    self._terrain_label(tg, fl.polygon, f"floor {self.length(fl.height)}", corner="br")
                for wl in t.walls:
                    _sub(tg, "polyline", {"class": "ruin-wall", "points": self.pts(wl.points),
                                          "stroke-width": _f(wl.thickness)})
                    self.used.add("ruin-wall")
                self._terrain_label(tg, t.footprint, self._name(t.id, "ruin"))
            elif t.type in ("wall", "barricade"):
                _sub(tg, "polyline", {"class": t.type, "points": self.pts(t.points), "stroke-width": _f(t.thickness)})
                self._terrain_label(tg, t.points, self._name(t.id, t.type, self.length(t.height)), corner="line")
            self.used.add(t.type)

    @staticmethod
    def _name(tid: str, kind: str, extra: str = "") -> str:
        """A terrain label: its id, its kind unless the id already says it, its height."""
        head = tid if kind.lower() in tid.lower() else f"{tid} · {kind}"
        return f"{head} {extra}".strip()

    def _hatch(self, g: ET.Element, poly: shapely.Polygon) -> None:
        """Diagonal hatching clipped exactly to a polygon (drawn as line segments rather
        than an SVG pattern, which rasterisers handle poorly at small user units)."""
        step = 7 * self.px
        x0, y0, x1, y1 = poly.bounds
        lines = []
        k = math.floor((y0 - x1) / step)
        while k * step <= y1 - x0:
            c = k * step  # the line y = x + c
            lines.append([(x0 - 1, x0 - 1 + c), (x1 + 1, x1 + 1 + c)])
            k += 1
        cut = shapely.MultiLineString(lines).intersection(poly)
        segs = [geom for geom in getattr(cut, "geoms", [cut]) if geom.geom_type == "LineString" and not geom.is_empty]
        d = " ".join(f"M{_f(a[0])} {_f(self.Y(a[1]))}L{_f(b[0])} {_f(self.Y(b[1]))}"
                     for seg in segs for a, b in [(seg.coords[0], seg.coords[-1])])
        if d:
            _sub(g, "path", {"class": "hatch", "d": d})

    def _terrain_label(self, g: ET.Element, pts: Sequence[Sequence[float]], text: str, corner: str = "tl") -> None:
        fs = 10 * self.px
        # Label the part of the piece that is in view (a zoomed picture may cut it).
        x0, y0, x1, y1 = self.region
        if corner != "line" and len(pts) >= 3:
            seen = shapely.Polygon(pts).intersection(shapely.box(x0, y0, x1, y1))
            if seen.is_empty or seen.area < (3 * fs) ** 2:
                return
            bb = seen.bounds
        else:
            bb = _bounds_of(pts)
        if bb is None:
            return
        if corner == "line":
            a, b = pts[0], pts[1]
            x, y = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            if not (x0 <= x <= x1 and y0 <= y <= y1):
                return
            sx, sy, anchor = x, self.Y(y) - 0.5 * fs, "middle"
        elif corner == "br":
            sx, sy, anchor = bb[2] - 0.3 * fs, self.Y(bb[1]) - 0.35 * fs, "end"
        else:
            sx, sy, anchor = bb[0] + 0.3 * fs, self.Y(bb[3]) + 1.05 * fs, "start"
        self._text(g, sx, sy, text, "terrain-label", anchor=anchor, halo=True)

    # ----------------------------------------------------------------- pieces

    def _role(self, unit: str) -> str:
        if self.ruling is None:
            return ""
        if unit == self.charger:
            return "charger"
        if unit in self.targets:
            return "target"
        if unit in self.engaged:
            return "engaged"
        return "idle"

    def _shape(self, g: ET.Element, p: _Piece, cls: str) -> ET.Element:
        """A base at its exact size: round -> circle, oval -> rotated ellipse, else polygon."""
        part = p.fp.parts[0]
        attrs: dict[str, str] = {"class": cls, "data-id": p.id, "data-unit": p.unit}
        if len(p.fp.parts) == 1 and isinstance(part, Disc):
            attrs.update(cx=_f(part.c[0]), cy=_f(self.Y(part.c[1])), r=_f(part.r))
            el = _sub(g, "circle", attrs)
        elif len(p.fp.parts) == 1 and isinstance(part, Ellipse):
            cx, cy = _f(part.c[0]), _f(self.Y(part.c[1]))
            # SVG's y points down, so a counter-clockwise facing becomes a negative rotation.
            attrs.update(cx=cx, cy=cy, rx=_f(part.a), ry=_f(part.b),
                         transform=f"rotate({_f(-math.degrees(part.theta))} {cx} {cy})")
            el = _sub(g, "ellipse", attrs)
        else:
            attrs["points"] = self.pts(_outline(p.fp))
            el = _sub(g, "polygon", attrs)
        tip = f"{p.id} ({p.unit}) · {p.base.short()} · at {_num(p.at[0])}, {_num(p.at[1])}"
        if len(p.at) > 2:
            tip += f", z {_num(p.at[2])}"
        if p.base.kind != "round":
            tip += f" · facing {_num(p.facing)}°"
        _sub(el, "title", text=tip)
        return el

    def _facing_marks(self, g: ET.Element, p: _Piece, ghost: bool = False) -> None:
        """Rect bases: a thick front edge; ovals and hulls: a small tick at the front."""
        if not p.show_facing:
            return
        if p.front is not None:
            (ax, ay), (bx, by) = p.front
            _sub(g, "line", {"class": _cls("front", "ghost-front" if ghost else ""), "x1": _f(ax), "y1": _f(self.Y(ay)),
                             "x2": _f(bx), "y2": _f(self.Y(by))})
            self.used.add("front")
            return
        if ghost:
            return
        th = math.radians(p.facing)
        u = np.array([[math.cos(th), math.sin(th)]])
        # on the facing ray from the centre, as far out as the base reaches that way
        c = np.asarray(p.xy)
        reach_f = max(float(part.h(u)[0]) for part in p.fp.parts) - float(c @ u[0])
        tip = c + u[0] * reach_f
        reach = float(np.linalg.norm(tip - c))
        size = min(0.35 * reach, 7 * self.px)
        f = (tip - c) / max(reach, 1e-12)
        s = np.array([f[1], -f[0]])
        a = tip - f * 0.15 * reach
        tri = [a, a - f * size + s * size * 0.6, a - f * size - s * size * 0.6]
        _sub(g, "polygon", {"class": "facing", "points": self.pts(tri)})

    def _units(self, g: ET.Element) -> None:
        """Every unit after the charge (or as it stands), coloured by player; T9A blocks
        get their boundary, a front edge and a facing arrow."""
        for uid in self.after.unit_order:
            player = self.after.players[uid]
            role = self._role(uid)
            ug = _sub(g, "g", {"class": _cls("unit", f"p{player}", role), "data-unit": uid})
            self.used.add(f"p{player}")
            if role in ("charger", "target"):
                self.used.add(role)
            b = self.after.blocks.get(uid)
            in_block = "in-block" if b is not None and not b.round else ""
            for p in self.after.of_unit(uid):
                self._shape(ug, p, _cls("model", f"p{player}", role, in_block))
        # Front edges, facing ticks and blocks go over every base, so that two units
        # flush against each other both show their fronts.
        fg = _sub(g, "g", {"class": "fronts"})
        for uid in self.after.unit_order:
            role = self._role(uid)
            for p in self.after.of_unit(uid):
                self._facing_marks(fg, p)
            b = self.after.blocks.get(uid)
            if b is not None:
                self._block(fg, b, role if role in ("charger", "target") else "")
        lg = _sub(g, "g", {"class": "model-labels"})
        for uid in self.after.unit_order:
            role = self._role(uid)
            for p in self.after.of_unit(uid):
                self._model_label(lg, p, role)

    def _block(self, g: ET.Element, b: _Block, extra: str) -> None:
        if b.round:
            return
        ghost = "ghost" if extra == "ghost" else ""
        _sub(g, "polygon", {"class": _cls("unit-block", f"p{b.player}", extra), "points": self.pts(b.corners)})
        fl, fr = b.corners[0], b.corners[1]
        _sub(g, "line", {"class": _cls("front", "ghost-front" if ghost else ""), "x1": _f(fl[0]), "y1": _f(self.Y(fl[1])), "x2": _f(fr[0]),
                         "y2": _f(self.Y(fr[1]))})
        self.used.add("front")
        if ghost:
            return
        # facing arrow: a small triangle standing on the front edge's midpoint
        o, f, right = block_frame(b.front_mid, b.facing)
        width = math.dist(fl, fr)
        size = min(0.18 * width, 12 * self.px)
        tri = [o + f * size, o - right * size * 0.55, o + right * size * 0.55]
        _sub(g, "polygon", {"class": "facing", "points": self.pts(tri)})

    def _model_label(self, g: ET.Element, p: _Piece, role: str) -> None:
        """Model ids inside the bases of the charger and its targets, when they fit."""
        label = self._model_label_text(p)
        if role not in ("charger", "target") or label is None:
            return
        size = 2 * min(p.fp.radius, self._inner_radius(p))
        fs = min(0.42 * size, 11 * self.px)
        if fs < 7 * self.px:
            return
        if len(label) * 0.62 * fs > 1.9 * size:
            return
        _sub(g, "text", {"class": "model-label", "x": _f(p.at[0]), "y": _f(self.Y(p.at[1]) + 0.36 * fs),
                         "text-anchor": "middle", "style": f"font-size:{_f(fs)}px"}, label)

    @staticmethod
    def _inner_radius(p: _Piece) -> float:
        part = p.fp.parts[0]
        if isinstance(part, Disc):
            return part.r
        if isinstance(part, Ellipse):
            return min(part.a, part.b)
        out = _outline(p.fp)
        c = np.asarray(p.xy)
        return float(np.min(np.linalg.norm(out - c, axis=1))) * 0.8

    def _labels(self, g: ET.Element) -> None:
        """Unit ids: inside a T9A block, else just above the unit's highest base."""
        for uid in self.after.unit_order:
            player = self.after.players[uid]
            b = self.after.blocks.get(uid)
            pieces = self.after.of_unit(uid)
            name = uid
            if b is not None and not b.round:
                cx = sum(c[0] for c in b.corners) / 4
                cy = sum(c[1] for c in b.corners) / 4
                self._text(g, cx, self.Y(cy) + 0.35 * 12 * self.px, name, _cls("unit-label", f"p{player}"),
                           anchor="middle", halo=True, data_unit=uid)
                continue
            if not pieces:
                continue
            x, y, anchor = self._label_spot(pieces)
            self._text(g, x, y, name, _cls("unit-label", f"p{player}"), anchor=anchor, halo=True, data_unit=uid)

    def _path_lines(self) -> list[shapely.LineString]:
        out = []
        for legs in self.routes:
            pts = route_points(legs, 0.25 * self.inch)
            if len(pts) >= 2:
                out.append(shapely.LineString(pts))
        return out

    def _label_spot(self, pieces: list[_Piece]) -> tuple[float, float, str]:
        """Where a unit's label goes (SVG coordinates): above, below, left or right of
        its bases, whichever is farthest from other units' bases (ties: that order)."""
        fs = 12 * self.px
        gap = 4 * self.px
        x0 = min(p.at[0] - p.fp.radius for p in pieces)
        x1 = max(p.at[0] + p.fp.radius for p in pieces)
        y0 = min(p.at[1] - p.fp.radius for p in pieces)
        y1 = max(p.at[1] + p.fp.radius for p in pieces)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        w = len(pieces[0].unit) * 0.7 * fs
        # candidate text centres in contract coordinates, and how each is anchored
        cands = [
            (cx, y1 + gap + 0.5 * fs, "middle"),
            (cx, y0 - gap - 0.5 * fs, "middle"),
            (x0 - gap - w / 2, cy, "end"),
            (x1 + gap + w / 2, cy, "start"),
        ]
        others = [p for p in self.after.pieces if p.unit != pieces[0].unit]
        lines = self._path_lines()
        rx0, ry0, rx1, ry1 = self.region

        def score(c: tuple[float, float, str]) -> float:
            inside = rx0 + w / 2 <= c[0] <= rx1 - w / 2 and ry0 + fs <= c[1] <= ry1 - fs
            clear = min((math.dist((c[0], c[1]), q.xy) - q.fp.radius for q in others), default=1e9)
            pt = shapely.Point(c[0], c[1])
            clear_paths = min((ln.distance(pt) - w / 2 for ln in lines), default=1e9)
            return min(clear, clear_paths, 3 * fs) - (0 if inside else 1e6)

        best = max(cands, key=score)  # max() keeps the first of equal scores
        bx, by, anchor = best
        if anchor == "end":
            bx += w / 2
        elif anchor == "start":
            bx -= w / 2
        return bx, self.Y(by) + 0.36 * fs, anchor

    def _text(self, parent: ET.Element, x: float, y: float, text: str, cls: str, anchor: str = "start",
              halo: bool = False, data_unit: str | None = None) -> ET.Element:
        """A text item; ``halo`` adds a white outline copy behind it for legibility."""
        attrs = {"class": cls, "x": _f(x), "y": _f(y), "text-anchor": anchor}
        if data_unit is not None:
            attrs["data-unit"] = data_unit
        if not halo:
            return _sub(parent, "text", attrs, text)
        grp = _sub(parent, "g", attrs | {"class": cls})
        del grp.attrib["x"], grp.attrib["y"], grp.attrib["text-anchor"]
        base = {"x": _f(x), "y": _f(y), "text-anchor": anchor}
        _sub(grp, "text", base | {"class": "halo"}, text)
        _sub(grp, "text", base, text)
        return grp

    # ----------------------------------------------------------------- the charge

    def _moved_ids(self) -> set[str]:
        """Pieces that moved: named by a move, or at another place after the charge."""
        by_before = self.before.by_id()
        out = set()
        if self.ruling is not None:
            for mv in self.ruling.moves:
                p = by_before.get(mv.id)
                if p is not None:
                    out.add(p.id)
        after = {p.id: p for p in self.after.pieces}
        for p in self.before.pieces:
            q = after.get(p.id)
            if q is not None and not _same_place(p, q):
                out.add(p.id)
        return out

    def _ghosts(self, g: ET.Element) -> None:
        """Where the moved models stood before the charge: faint dashed outlines."""
        moved = self._moved_ids()
        for p in self.before.pieces:
            if p.id in moved:
                self._shape(g, p, _cls("ghost", f"p{p.player}"))
                self._facing_marks(g, p, ghost=True)
                self.used.add("ghost")
        for uid, b in self.before.blocks.items():
            if b != self.after.blocks.get(uid):
                self._block(g, b, "ghost")
                self.used.add("ghost")

    def _paths(self, g: ET.Element) -> None:
        """Each move's route (the base centre's path, arcs drawn as SVG arcs) with an
        arrowhead at the end."""
        assert self.ruling is not None
        by_id = self.after.by_id()
        for mv, legs in zip(self.ruling.moves, self.routes, strict=True):
            if not legs:
                continue
            me = by_id.get(mv.id)
            if all(lg.kind == "line" for lg in legs):
                clean = [legs[0].a] + [lg.b for lg in legs]
                if me is not None:
                    clean = self._trim_end(clean, me.fp)
                _sub(g, "polyline", {"class": "path", "data-id": mv.id, "points": self.pts(clean)})
                a, b = np.asarray(clean[-2]), np.asarray(clean[-1])
                f = (b - a) / float(np.linalg.norm(b - a))
                start = clean[0]
            else:
                if me is not None and legs[-1].kind == "line":
                    cut = self._trim_end([legs[-1].a, legs[-1].b], me.fp)
                    legs = [*legs[:-1], Leg("line", legs[-1].a, cut[-1])]
                _sub(g, "path", {"class": "path", "data-id": mv.id, "d": self._route_d(legs)})
                b = np.asarray(legs[-1].b)
                f = legs[-1].end_direction()
                start = legs[0].a
            self.used.add("path")
            s = np.array([f[1], -f[0]])
            size = min(9 * self.px, 0.6 * math.dist(start, (float(b[0]), float(b[1]))) + 3 * self.px)
            tri = [b, b - f * size + s * size * 0.45, b - f * size - s * size * 0.45]
            _sub(g, "polygon", {"class": "arrowhead", "points": self.pts(tri)})

    def _route_d(self, legs: Sequence[Leg]) -> str:
        """An SVG path for a route: ``L`` for straight legs, ``A`` for arcs. The y flip
        turns a counter-clockwise arc into SVG's negative sweep (sweep flag 0)."""
        d = [f"M{_f(legs[0].a[0])} {_f(self.Y(legs[0].a[1]))}"]
        for lg in legs:
            bx, by = _f(lg.b[0]), _f(self.Y(lg.b[1]))
            if lg.kind == "arc":
                sw = lg.sweep()
                large = 1 if sw > math.pi else 0
                flag = 0 if lg.ccw else 1
                r = _f(lg.radius)
                d.append(f"A{r} {r} 0 {large} {flag} {bx} {by}")
            else:
                d.append(f"L{bx} {by}")
        return "".join(d)

    def _trim_end(self, pts: list[Pt], fp: Footprint) -> list[Pt]:
        """Stop a path where it enters the moved base, so the arrowhead sits on the
        base's edge instead of under it (kept whole when that would leave too little)."""
        line = shapely.LineString(pts)
        poly = shapely.Polygon(_outline(fp))
        L = line.length
        if not poly.contains(shapely.Point(pts[-1])):
            return pts
        # the last point along the path that is outside the base: step back, then bisect
        step = max(fp.radius / 16, 1e-6)
        hi = L
        lo = L - step
        while lo > 0 and poly.contains(line.interpolate(lo)):
            hi, lo = lo, lo - step
        if lo <= 0:
            return pts
        for _ in range(30):
            mid = (lo + hi) / 2
            if poly.contains(line.interpolate(mid)):
                hi = mid
            else:
                lo = mid
        if lo < 12 * self.px:
            return pts
        cut = shapely.ops.substring(line, 0.0, lo)
        return [(float(x), float(y)) for x, y in cut.coords]

    def _charging_pieces(self) -> list[_Piece]:
        return self.after.of_unit(self.charger) if self.charger else []

    def _resolve(self, ref: str) -> list[_Piece]:
        """A model/stand id, or a unit id (all its pieces), in the position after."""
        by_id = self.after.by_id()
        if ref in by_id:
            return [by_id[ref]]
        return self.after.of_unit(ref)

    def _contacts(self, g: ET.Element) -> None:
        """A dot where each moved model touches a model it is in base contact with."""
        assert self.ruling is not None
        by_id = self.after.by_id()
        seen: set[tuple[str, str]] = set()
        for mv in self.ruling.moves:
            me = by_id.get(mv.id)
            if me is None:
                continue
            for ref in mv.contacts:
                cands = self._resolve(ref)
                if not cands:
                    continue
                best = min(cands, key=lambda q: (math.dist(q.xy, me.xy) - q.fp.radius, q.id))
                key = (me.id, best.id)
                if key in seen:
                    continue
                seen.add(key)
                pa, pb = _closest_points(me.fp, best.fp)
                c = (pa + pb) / 2
                _sub(g, "circle", {"class": "contact", "data-ids": f"{me.id} {best.id}", "cx": _f(c[0]),
                                   "cy": _f(self.Y(c[1])), "r": _f(3.2 * self.px)})
                self.used.add("contact")

    def _first_stand(self, g: ET.Element) -> None:
        """An outline around the first stand placed (Warmaster's ``details.first_stand``:
        a stand id, a 0-based index into the charger's stands, or a point)."""
        assert self.ruling is not None
        fs = self.ruling.details.get("first_stand")
        if fs is None:
            return
        piece: _Piece | None = None
        if isinstance(fs, str):
            got = self._resolve(fs)
            piece = got[0] if len(got) == 1 else None
        elif isinstance(fs, int) and not isinstance(fs, bool):
            mine = self._charging_pieces()
            piece = mine[fs] if 0 <= fs < len(mine) else None
        elif isinstance(fs, (list, tuple)) and len(fs) >= 2 and all(isinstance(v, (int, float)) for v in fs[:2]):
            mine = self._charging_pieces()
            if mine:
                piece = min(mine, key=lambda q: (math.dist(q.xy, (float(fs[0]), float(fs[1]))), q.id))
        elif isinstance(fs, dict) and isinstance(fs.get("id"), str):
            got = self._resolve(fs["id"])
            piece = got[0] if len(got) == 1 else None
        if piece is None:
            return
        _sub(g, "polygon", {"class": "first-stand", "data-id": piece.id,
                            "points": self.pts(_offset_outline(piece.fp, 4 * self.px))})
        self.used.add("first-stand")


    def _reason_marks(self, g: ET.Element) -> None:
        """Models named by a reason: a red dashed halo and the reason's number."""
        assert self.ruling is not None
        by_id = self.after.by_id()
        marked: dict[str, list[int]] = {}
        for k, rs in enumerate(self.ruling.reasons, start=1):
            for mid in rs.models:
                if mid in by_id:
                    marked.setdefault(by_id[mid].id, []).append(k)
        order = {p.id: i for i, p in enumerate(self.after.pieces)}
        for pid in sorted(marked, key=order.__getitem__):
            p = by_id[pid]
            _sub(g, "polygon", {"class": "reason-mark", "data-id": pid,
                                "points": self.pts(_offset_outline(p.fp, 3 * self.px, n=96))})
            x = p.at[0] - 0.75 * p.fp.radius - 2 * self.px
            y = p.at[1] - 0.75 * p.fp.radius - 10 * self.px
            self._text(g, x, self.Y(y), ",".join(str(k) for k in marked[pid]), "reason-number", anchor="end", halo=True)
            self.used.add("reason-mark")

    # ----------------------------------------------------------------- text panels

