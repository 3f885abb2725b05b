"""Text around the map: the header (title and verdict), the scale bar, the legend
(only what the map used) and the reasons, shared by every system's renderer."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import TYPE_CHECKING

from .primitives import SVG_NS, _f, _num, _sub
from .style import css

if TYPE_CHECKING:
    from ..ruling import Ruling
    from ..scenario import AnyScenario

#: Legend entries in display order: key -> label.
LEGEND = [
    ("p1", "player 1"),
    ("p2", "player 2"),
    ("charger", "charger"),
    ("target", "target"),
    ("ghost", "before the charge"),
    ("path", "charge move"),
    ("engagement-ring", 'engagement range 1"'),
    ("coherency", 'coherency (≤ 2")'),
    ("contact", "base contact"),
    ("token", "WTC wall token"),
    ("token-link", 'fights at 2" across a wall'),
    ("front", "front edge"),
    ("arc", "arc lines (135°)"),
    ("charged-facing", "charged facing"),
    ("first-stand", "first stand"),
    ("reason-mark", "named in a reason"),
    ("ruin", "ruin"),
    ("ruin-wall", "ruin wall"),
    ("wall", "wall"),
    ("barricade", "barricade"),
    ("obstacle", "obstacle"),
    ("impassable", "impassable"),
    ("hill", "hill"),
]




class PanelsMixin:
    """Header, legend and reasons. The renderer that mixes this in provides the
    attributes below."""

    scen: AnyScenario
    ruling: Ruling | None
    title: str | None
    px: float
    inch: float
    unit: str
    used: set[str]
    region: tuple[float, float, float, float]
    _legend_plan: tuple[list[tuple[str, str, float, float]], int]
    _reasons: list[tuple[str, str]]
    #: a distance as text, in the scenario's unit (the renderer's method)
    length: Callable[[float], str]
    #: the game's name as the header shows it (the renderer's method)
    _system_name: Callable[[], str]

    def _header_lines(self) -> list[list[tuple[str, str]]]:
        """Lines of (text, class) runs: a title, then the ruling's facts."""
        scen, r = self.scen, self.ruling
        sysname = self._system_name()
        lines: list[list[tuple[str, str]]] = []
        if r is None:
            head = self.title or f"{sysname}: {len(scen.units)} units on a {_num(scen.board.width)} × {self.length(scen.board.depth)} board"
            lines.append([(head, "title")])
            if self.title:
                lines.append([(f"{sysname} · board {_num(scen.board.width)} × {self.length(scen.board.depth)}", "header")])
            return lines
        lines.append([(self.title or f"{sysname}: {r.charger} charges {', '.join(r.targets)}", "title")])
        runs: list[tuple[str, str]] = []
        if self.title:
            runs.append((f"{sysname} · {r.charger} → {', '.join(r.targets)} · ", "header"))
        if r.roll is not None:
            parts = " + ".join(str(d) for d in r.roll.dice)
            if r.roll.modifier:
                parts += f" {'+' if r.roll.modifier > 0 else '−'} {abs(r.roll.modifier)}"
            txt = f"roll {parts} = {r.roll.total}"
            if r.roll.rerolled_from:
                txt += f" (re-rolled {' + '.join(str(d) for d in r.roll.rerolled_from)})"
            runs.append((txt + " · ", "header"))
        if r.needed is not None:
            if r.system == "warmaster":
                txt = "no charge roll"
                if r.needed.distance is not None:
                    txt += f"; first stand moves {self.length(r.needed.distance)}"
                runs.append((txt + " · ", "header"))
            elif r.needed.roll is None:
                runs.append(("no roll can succeed · ", "header"))
            else:
                txt = f"needs {r.needed.roll}"
                if r.needed.distance is not None:
                    txt += f" ({self.length(r.needed.distance)})"
                runs.append((txt + " · ", "header"))
        # name what was ruled on: a charge, or a fight-phase / intervention move
        what = {"pile_in": "PILE IN", "consolidate": "CONSOLIDATION", "heroic_intervention": "HEROIC INTERVENTION"}.get(
            r.procedure, "CHARGE"
        )
        if not r.eligible:
            runs.append(("NOT ELIGIBLE", "failure"))
        elif r.success:
            runs.append((f"{what} SUCCEEDS", "success"))
        else:
            runs.append((f"{what} FAILS", "failure"))
        runs.append((f" · procedure: {r.procedure}", "header"))
        if r.engaged:
            runs.append((f" · engaged: {', '.join(r.engaged)}", "header"))
        lines.append(runs)
        return lines

    def _fit_lines(self, lines: list[list[tuple[str, str]]], width: float) -> list[list[tuple[str, str]]]:
        """Break header lines that would run past the picture's width (at run
        boundaries, or inside a run that is itself too long)."""
        out: list[list[tuple[str, str]]] = []
        for ln in lines:
            fs = (16 if ln and ln[0][1] == "title" else 13) * self.px
            per_char = 0.6 * fs
            cur: list[tuple[str, str]] = []
            used = 0.0
            for text, cls in ln:
                pieces = textwrap.wrap(text, max(10, int(width / per_char)), drop_whitespace=False) or [text]
                for piece in pieces:
                    w = len(piece) * per_char
                    if cur and used + w > width:
                        out.append(cur)
                        cur, used = [], 0.0
                        piece = piece.lstrip(" ·")
                        w = len(piece) * per_char
                    cur.append((piece, cls))
                    used += w
            if cur:
                out.append(cur)
        return out

    def _lines_height(self, lines: list[list[tuple[str, str]]]) -> float:
        h = 0.0
        for ln in lines:
            h += (16 if ln and ln[0][1] == "title" else 13) * self.px * 1.45
        return h

    def _header(self, root: ET.Element, lines: list[list[tuple[str, str]]], x: float, top: float) -> None:
        g = _sub(root, "g", {"class": "header-block"})
        y = top
        for ln in lines:
            fs = (16 if ln and ln[0][1] == "title" else 13) * self.px
            y += fs * 1.2
            if len(ln) == 1 or all(cls == "title" for _, cls in ln):
                _sub(g, "text", {"class": ln[0][1], "x": _f(x), "y": _f(y)}, "".join(t for t, _ in ln))
            else:
                t = _sub(g, "text", {"class": "header", "x": _f(x), "y": _f(y)})
                for text, cls in ln:
                    _sub(t, "tspan", {"class": cls}, text)
            y += fs * 0.25

    def _legend_items(self) -> list[tuple[str, str]]:
        items = []
        for key, label in LEGEND:
            if key not in self.used:
                continue
            if key == "engagement-ring":
                er = getattr(self, "engagement_range", None)
                label = f"engagement range {self.length(er() if er else 1.0 * self.inch)}"
            items.append((key, label))
        return items

    def _wrap(self, text: str, width: float, fs: float) -> list[str]:
        chars = max(20, int(width / (0.58 * fs)))
        return textwrap.wrap(text, chars) or [""]

    def _reason_lines(self, width: float) -> list[tuple[str, str]]:
        """(text, class) lines of the reasons and details, wrapped to the width."""
        out: list[tuple[str, str]] = []
        if self.ruling is None:
            return out
        fs = 12 * self.px
        for k, rs in enumerate(self.ruling.reasons, start=1):
            who = f" [{', '.join(rs.models)}]" if rs.models else ""
            lines = self._wrap(f"{k}. {rs.code}: {rs.message}{who}", width, fs)
            out += [(ln, "reason") for ln in lines]
        det = []
        for key in sorted(self.ruling.details):
            v = self.ruling.details[key]
            if isinstance(v, bool) or isinstance(v, (str, int, float)):
                det.append(f"{key.replace('_', ' ')}: {_num(v) if isinstance(v, float) else v}")
            elif isinstance(v, list) and len(v) <= 8 and all(isinstance(e, (str, int, float)) for e in v):
                det.append(f"{key.replace('_', ' ')}: {', '.join(_num(e) if isinstance(e, float) else str(e) for e in v)}")
        if det:
            out += [(ln, "detail") for ln in self._wrap("details: " + " · ".join(det), width, fs)]
        return out

    def _scale_spec(self) -> tuple[float, float, str]:
        """(bar length, tick step, label) in scenario units."""
        mw = self.region[2] - self.region[0]
        if self.unit == "in":
            for length, step in ((12.0, 3.0), (6.0, 1.0), (3.0, 1.0), (2.0, 1.0), (1.0, 0.5)):
                if length <= mw / 3:
                    return length, step, f'{_num(length)}"'
            return 1.0, 0.5, '1"'
        for length, step in ((50.0, 10.0), (20.0, 5.0), (10.0, 2.0), (5.0, 1.0), (2.0, 1.0)):
            if length <= mw / 4:
                return length, step, f"{_num(length)} cm"
        return 2.0, 1.0, "2 cm"

    def _footer_plan(self, x: float, width: float) -> float:
        """Lay out the footer (scale bar, legend, reasons) and return its height; the
        drawing itself happens in ``_footer`` with the same arithmetic."""
        self._legend_plan = self._legend_layout(x, width)
        self._reasons = self._reason_lines(width)
        rows = self._legend_plan[1]
        h = max(rows, 1) * 18 * self.px + 6 * self.px
        if self._reasons:
            h += 6 * self.px + len(self._reasons) * 12 * self.px * 1.35
        return h

    def _legend_layout(self, x: float, width: float) -> tuple[list[tuple[str, str, float, float]], int]:
        length, _, label = self._scale_spec()
        start = x + length + (len(label) * 7 + 30) * self.px
        cx, row = start, 0
        placed = []
        for key, text in self._legend_items():
            w = (28 + 6.6 * len(text) + 14) * self.px
            if cx + w > x + width and cx > start:
                cx, row = start, row + 1
            placed.append((key, text, cx, row))
            cx += w
        return [(k, t, px, float(r)) for k, t, px, r in placed], row + 1

    def _footer(self, root: ET.Element, x: float, top: float, width: float) -> None:
        px = self.px
        # scale bar
        length, step, label = self._scale_spec()
        sb = _sub(root, "g", {"class": "scale-bar"})
        y = top + 12 * px
        n = int(round(length / step))
        for k in range(n):
            if k % 2 == 0:
                _sub(sb, "rect", {"class": "scale-fill", "x": _f(x + k * step), "y": _f(y - 3 * px),
                                  "width": _f(step), "height": _f(3 * px)})
        _sub(sb, "polyline", {"points": f"{_f(x)},{_f(y - 3 * px)} {_f(x + length)},{_f(y - 3 * px)} "
                                        f"{_f(x + length)},{_f(y)} {_f(x)},{_f(y)} {_f(x)},{_f(y - 3 * px)}"})
        for k in range(n + 1):
            tx = x + k * step
            _sub(sb, "line", {"x1": _f(tx), "y1": _f(y - 6 * px), "x2": _f(tx), "y2": _f(y)})
        _sub(sb, "text", {"x": _f(x + length + 6 * px), "y": _f(y + 1 * px)}, label)

        # legend
        lg = _sub(root, "g", {"class": "legend"})
        for key, text, lx, row in self._legend_plan[0]:
            ly = top + row * 18 * px + 12 * px
            self._swatch(lg, key, lx, ly)
            _sub(lg, "text", {"x": _f(lx + 28 * px), "y": _f(ly + 1 * px)}, text)

        # reasons and details
        rows = self._legend_plan[1]
        y = top + max(rows, 1) * 18 * px + 12 * px
        if self._reasons:
            rg = _sub(root, "g", {"class": "reasons"})
            dg: ET.Element | None = None
            fs = 12 * px
            for text, kind in self._reasons:
                y += fs * 1.35
                if kind == "detail":
                    if dg is None:
                        dg = _sub(root, "g", {"class": "details"})
                    _sub(dg, "text", {"x": _f(x), "y": _f(y)}, text)
                else:
                    _sub(rg, "text", {"x": _f(x), "y": _f(y)}, text)

    def legend_svg(self, width_px: float = 300.0) -> ET.Element | None:
        """The legend alone, in screen pixels (one pixel per unit), as its own ``<svg
        class="legend-key">`` with its own style sheet: the entries the map drawn last
        used (call after the map), in as many columns as fit ``width_px`` with the
        longest label whole. None when the map used none. The web board shows it beside
        its drawing of the same map."""
        items = self._legend_items()
        if not items:
            return None
        # 12 px text is at most about 7 px a character; the swatch and a gap take 40 px
        column_px = 40.0 + 7.0 * max(len(t) for _, t in items)
        columns = max(1, min(len(items), int(width_px // column_px)))
        saved = self.px
        self.px = 1.0
        try:
            rows = (len(items) + columns - 1) // columns
            w, h = columns * column_px, rows * 18 + 6
            root = ET.Element("svg", {"xmlns": SVG_NS, "version": "1.1", "class": "chargeref legend-key",
                                      "viewBox": f"0 0 {_f(w)} {_f(h)}", "width": _f(w), "height": _f(h)})
            _sub(root, "style", text=css(1.0, _f) + "text {font-size:12px}\n")
            lg = _sub(root, "g", {"class": "legend"})
            for i, (key, text) in enumerate(items):
                lx, ly = (i % columns) * column_px + 2, (i // columns) * 18 + 16
                entry = _sub(lg, "g", {"class": "entry", "data-key": key})
                self._swatch(entry, key, lx, ly)
                _sub(entry, "text", {"x": _f(lx + 28), "y": _f(ly + 1)}, text)
            return root
        finally:
            self.px = saved

    def _swatch(self, g: ET.Element, key: str, x: float, y: float) -> None:
        """A small sample of a legend entry, 20 px wide, centred on the text's middle."""
        px = self.px
        cy = y - 4 * px
        cx = x + 10 * px
        if key in ("p1", "p2", "charger", "target", "ghost"):
            cls = {"p1": "lg-model lg-p1", "p2": "lg-model lg-p2", "charger": "lg-model lg-p1 lg-charger",
                   "target": "lg-model lg-p2 lg-target", "ghost": "lg-ghost lg-p1"}[key]
            if key == "ghost":
                cls = "lg-model lg-p1 lg-ghost"
            _sub(g, "circle", {"class": cls, "cx": _f(cx), "cy": _f(cy), "r": _f(6 * px)})
        elif key in ("path", "coherency", "token-link", "arc", "charged-facing", "front"):
            _sub(g, "line", {"class": f"lg-{key}", "x1": _f(x), "y1": _f(cy), "x2": _f(x + 20 * px), "y2": _f(cy)})
            if key == "path":
                tri = [(x + 20 * px, cy), (x + 13 * px, cy - 3.5 * px), (x + 13 * px, cy + 3.5 * px)]
                _sub(g, "polygon", {"class": "lg-arrowhead", "points": " ".join(f"{_f(a)},{_f(b)}" for a, b in tri)})
        elif key in ("ruin-wall", "wall", "barricade"):
            _sub(g, "line", {"class": f"lg-{key}", "x1": _f(x), "y1": _f(cy), "x2": _f(x + 20 * px), "y2": _f(cy),
                             "stroke-width": _f(4 * px)})
        elif key in ("engagement-ring", "contact", "token", "reason-mark", "first-stand"):
            r = {"engagement-ring": 6.5, "contact": 3.5, "token": 5, "reason-mark": 6, "first-stand": 6}[key]
            _sub(g, "circle", {"class": f"lg-{key}", "cx": _f(cx), "cy": _f(cy), "r": _f(r * px)})
        else:  # areas
            attrs = {"class": f"lg-{key}", "x": _f(x), "y": _f(cy - 6 * px), "width": _f(20 * px), "height": _f(12 * px)}
            _sub(g, "rect", attrs)
            if key == "impassable":
                # 45° strokes 7 px apart, clipped to the 20 x 12 px swatch
                segs = ((-7, 6, 5, -6), (0, 6, 12, -6), (7, 6, 19, -6), (14, 6, 20, 0))
                d = " ".join(f"M{_f(x + max(a, 0) * px)} {_f(cy + (b - max(0, -a)) * px)}L{_f(x + c * px)} {_f(cy + e * px)}"
                             for a, b, c, e in segs)
                _sub(g, "path", {"class": "lg-hatch", "d": d})


