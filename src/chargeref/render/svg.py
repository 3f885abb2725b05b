"""Draw a scenario, and optionally a ruling, as an SVG document.

``render_svg(scenario, ruling)`` is a pure function: it reads scenario data (and the
ruling's moves, reasons and details) and returns an SVG string built with the standard
library's ElementTree. It knows no game rules: every verdict it shows was made by a
rule system and handed over in the ruling. It only measures things in order to *draw*
them (where two bases touch, which charging models are within 2" of each other).

Conventions of the drawing
--------------------------
* The ``viewBox`` is in scenario units (inches or centimetres). The contract's y axis
  goes up the page, SVG's goes down, so every point is written as ``(x, depth - y)``:
  y = 0 (player 1's edge) is at the bottom of the picture.
* Everything carries semantic CSS classes (``model p1 charger``, ``ghost``, ``path``,
  ``engagement-ring``, ``coherency``, ``contact``, ``token``, ``token-link``, ``arc``,
  ``reasons`` ...), styled by one embedded ``<style>``; legend swatches use ``lg-``
  classes so that counting ``model`` elements counts models only.
* Output is deterministic: coordinates are rounded to 4 decimals, nothing depends on
  dict or set order, and the same input gives a byte-identical string.
"""

from __future__ import annotations

import math
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
import shapely.ops

from ..geometry.bases import base_footprint
from ..geometry.blocks import block_corners, block_frame, block_model_centres
from ..geometry.shapes import TOL, ConvexPolygon, Disc, Ellipse, Footprint, distance
from ..ruling import Move, Ruling
from ..scenario import (
    AnyScenario,
    Base,
    Scenario40k,
    ScenarioT9A,
    ScenarioWarmaster,
    inch,
    mm_per_unit,
    scenario_from_data,
)
from ..scenario.common import Barricade, Ruin, Wall

SVG_NS = "http://www.w3.org/2000/svg"
#: Width of the picture in pixels; every stroke and font size is given in pixels of
#: this width and converted to scenario units, so pictures look alike at any zoom.
DEFAULT_WIDTH_PX = 960
#: Warmaster stand bases (mm, W across the front x D deep) when the unit gives none.
WARMASTER_DEFAULT_BASE = {"infantry": (40.0, 20.0)}
WARMASTER_OTHER_BASE = (20.0, 40.0)

Pt = tuple[float, float]

# --------------------------------------------------------------------------------------
# colours and CSS
# --------------------------------------------------------------------------------------

P1_FILL, P1_DARK = "#5b8fd6", "#1f3f73"
P2_FILL, P2_DARK = "#d9695f", "#6e1d16"


def _css(px: float) -> str:
    """The embedded style sheet. ``px`` is one screen pixel in scenario units."""

    def w(v: float) -> str:
        return f"{_f(v * px)}px"

    rules = [
        ("text", f"font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:{w(13)};fill:#1b1b1b"),
        (".page", "fill:#f6f4ee"),
        (".board", f"fill:#e8eedd;stroke:#6b7a55;stroke-width:{w(1.5)}"),
        (".grid", f"stroke:#d3ddc5;stroke-width:{w(0.7)};fill:none"),
        (".grid-major", f"stroke:#b8c8a6;stroke-width:{w(1)};fill:none"),
        (".map-frame", f"fill:none;stroke:#8a8a80;stroke-width:{w(1)}"),
        # terrain
        (".ruin, .lg-ruin", f"fill:#d9ccb4;fill-opacity:0.55;stroke:#7d6a4c;stroke-width:{w(1.2)};stroke-dasharray:{w(6)} {w(4)}"),
        (".floor", f"fill:#cdbd9f;fill-opacity:0.35;stroke:#9c8664;stroke-width:{w(0.8)};stroke-dasharray:{w(2)} {w(3)}"),
        (".ruin-wall, .lg-ruin-wall", "fill:none;stroke:#5a4a36;stroke-linecap:butt;stroke-linejoin:miter"),
        (".wall, .lg-wall", "fill:none;stroke:#2f2f2f;stroke-linecap:butt;stroke-linejoin:miter"),
        (".barricade, .lg-barricade", "fill:none;stroke:#8a5a2b;stroke-linecap:butt;stroke-linejoin:miter"),
        (".obstacle, .lg-obstacle", f"fill:#b9a27f;fill-opacity:0.5;stroke:#7a6340;stroke-width:{w(1)}"),
        (".impassable, .lg-impassable", f"fill:#d6d2c8;stroke:#3d3d3d;stroke-width:{w(1.2)}"),
        (".hatch, .lg-hatch", f"fill:none;stroke:#6a6660;stroke-width:{w(1)}"),
        (".hill, .lg-hill", f"fill:#b5c98a;fill-opacity:0.6;stroke:#7f9657;stroke-width:{w(1.2)}"),
        (".terrain-label", f"font-size:{w(10)};font-style:italic;fill:#4d4535"),
        # units
        (".model, .lg-model", f"stroke:#2b2b2b;stroke-width:{w(0.8)}"),
        (".p1, .lg-p1", f"fill:{P1_FILL}"),
        (".p2, .lg-p2", f"fill:{P2_FILL}"),
        (".model.idle", "fill-opacity:0.55;stroke-opacity:0.6"),
        (".model.charger, .lg-charger", f"stroke:#0d1b2a;stroke-width:{w(2.4)}"),
        (".model.target, .lg-target", f"stroke:#0d1b2a;stroke-width:{w(2.4)};stroke-dasharray:{w(4)} {w(2)}"),
        (".model.engaged", f"stroke-width:{w(1.6)}"),
        (".model.in-block", f"stroke:#2b2b2b;stroke-width:{w(0.6)};stroke-dasharray:none"),
        (".unit-block", f"fill:none;stroke-width:{w(1.6)}"),
        (".unit-block.charger", f"stroke-width:{w(3)}"),
        (".unit-block.target", f"stroke-width:{w(3)};stroke-dasharray:{w(7)} {w(3)}"),
        (".unit-block.p1", f"stroke:{P1_DARK}"),
        (".unit-block.p2", f"stroke:{P2_DARK}"),
        (".front, .lg-front", f"stroke:#111;stroke-width:{w(3)};stroke-linecap:butt;fill:none"),
        (".front.ghost-front", f"stroke:#444;stroke-opacity:0.5;stroke-width:{w(2)}"),
        (".facing", "fill:#111;stroke:none"),
        (".ghost, .lg-ghost", f"fill-opacity:0.28;stroke:#555;stroke-opacity:0.8;stroke-width:{w(0.9)};stroke-dasharray:{w(3)} {w(2)}"),
        (".ghost.unit-block", "fill:none"),
        # the charge
        (".path, .lg-path", f"fill:none;stroke:#1b1b1b;stroke-width:{w(1.3)};stroke-opacity:0.85;stroke-linejoin:round"),
        (".arrowhead, .lg-arrowhead", "fill:#1b1b1b;fill-opacity:0.85;stroke:none"),
        (".engagement-ring, .lg-engagement-ring", f"fill:#f4c430;fill-opacity:0.12;stroke:#b8860b;stroke-width:{w(1)};stroke-dasharray:{w(4)} {w(2)}"),
        (".coherency, .lg-coherency", f"stroke:#1d8a7a;stroke-width:{w(2)};stroke-linecap:round;fill:none"),
        (".contact, .lg-contact", f"fill:#ffd60a;stroke:#111;stroke-width:{w(1)}"),
        (".token circle, .lg-token", f"fill:#ffd60a;stroke:#111;stroke-width:{w(1)}"),
        (".token text", f"font-size:{w(8)};font-weight:bold;fill:#111"),
        (".token-link, .lg-token-link", f"stroke:#8e2dc5;stroke-width:{w(1.8)};stroke-dasharray:{w(5)} {w(3)};fill:none"),
        (".token-link-label", f"font-size:{w(9)};fill:#6a1d96"),
        (".arc, .lg-arc", f"stroke:#7b3fa0;stroke-width:{w(1.1)};stroke-dasharray:{w(7)} {w(4)};fill:none"),
        (".charged-facing, .lg-charged-facing", f"stroke:#ff7b00;stroke-width:{w(5)};stroke-linecap:round;fill:none;stroke-opacity:0.9"),
        (".first-stand, .lg-first-stand", f"fill:none;stroke:#ff7b00;stroke-width:{w(2.5)}"),
        (".reason-mark, .lg-reason-mark", f"fill:none;stroke:#d62828;stroke-width:{w(1.8)};stroke-dasharray:{w(2)} {w(2)}"),
        (".reason-number", f"font-size:{w(10)};font-weight:bold;fill:#d62828"),
        # labels and text panels
        (".halo", f"stroke:#ffffff;stroke-width:{w(3)};stroke-linejoin:round;fill:#ffffff;stroke-opacity:0.85"),
        (".unit-label", f"font-size:{w(12)};font-weight:bold"),
        (".model-label", "fill:#ffffff"),
        (".title", f"font-size:{w(16)};font-weight:bold"),
        (".header", f"font-size:{w(13)}"),
        (".success", "fill:#1a7f37;font-weight:bold"),
        (".failure", "fill:#c1121f;font-weight:bold"),
        (".legend text, .scale-bar text", f"font-size:{w(11)}"),
        (".scale-bar line, .scale-bar polyline", f"stroke:#222;stroke-width:{w(1.2)};fill:none"),
        (".scale-fill", "fill:#222"),
        (".reasons text, .details text", f"font-size:{w(12)}"),
        (".reasons .code", "font-weight:bold"),
    ]
    return "\n" + "\n".join(f"{sel} {{{body}}}" for sel, body in rules) + "\n"


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------


def _f(v: float) -> str:
    """A number as SVG text, rounded to 4 decimals (deterministic, no '-0')."""
    r = round(float(v), 4)
    if r == 0:
        r = 0.0
    s = f"{r:.4f}".rstrip("0").rstrip(".")
    return s if s not in ("", "-") else "0"


def _num(v: float) -> str:
    """A length for people: at most 2 decimals."""
    r = round(float(v), 2)
    return f"{r:g}" if r != 0 else "0"


def _sub(parent: ET.Element, tag: str, attrs: dict[str, str] | None = None, text: str | None = None) -> ET.Element:
    el = ET.SubElement(parent, tag, attrs or {})
    if text is not None:
        el.text = text
    return el


def _cls(*names: str) -> str:
    return " ".join(n for n in names if n)


# --------------------------------------------------------------------------------------
# what is drawn: pieces (models and stands) and T9A blocks, from scenario data
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Piece:
    """One model or stand: its exact footprint and what the drawing needs to know."""

    id: str
    unit: str
    player: int
    base: Base
    at: tuple[float, ...]
    facing: float
    fp: Footprint
    #: the front edge (left, right) of a rectangular base, else None
    front: tuple[Pt, Pt] | None
    #: draw the front edge / facing tick on this piece itself
    show_facing: bool
    token: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def xy(self) -> Pt:
        return (float(self.at[0]), float(self.at[1]))


@dataclass(frozen=True)
class _Block:
    """A T9A unit's boundary rectangle: corners front-left, front-right, rear-right,
    rear-left (or a single round model)."""

    unit: str
    player: int
    corners: tuple[Pt, Pt, Pt, Pt]
    facing: float
    front_mid: Pt
    round: bool


@dataclass
class _Army:
    system: str
    mmpu: float
    pieces: list[_Piece] = field(default_factory=list)
    blocks: dict[str, _Block] = field(default_factory=dict)
    players: dict[str, int] = field(default_factory=dict)
    unit_order: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, _Piece]:
        out: dict[str, _Piece] = {}
        for p in self.pieces:
            for a in p.aliases:
                out.setdefault(a, p)
        for p in self.pieces:  # canonical ids win over aliases
            out[p.id] = p
        return out

    def of_unit(self, uid: str) -> list[_Piece]:
        return [p for p in self.pieces if p.unit == uid]


def _front_edge(fp: Footprint) -> tuple[Pt, Pt] | None:
    """The front edge of a rectangular footprint built by ``rect_polygon`` (vertex 0 is
    front-left, vertex 3 front-right)."""
    part = fp.parts[0]
    if fp.kind != "rect" or not isinstance(part, ConvexPolygon):
        return None
    v = part.vertices
    return ((v[0][0], v[0][1]), (v[3][0], v[3][1]))


def _make_piece(
    pid: str,
    unit: str,
    player: int,
    base: Base,
    at: Sequence[float],
    facing: float,
    mmpu: float,
    show_facing: bool,
    token: bool = False,
    aliases: tuple[str, ...] = (),
) -> _Piece:
    fp = base_footprint(base.kind, base.dims, at, facing, mmpu, hull_in_units=True)
    return _Piece(
        id=pid,
        unit=unit,
        player=player,
        base=base,
        at=tuple(float(c) for c in at),
        facing=float(facing),
        fp=fp,
        front=_front_edge(fp),
        show_facing=show_facing,
        token=token,
        aliases=aliases,
    )


_SEPARATORS = (".", "#", "-", "_", ":", "/")


def _index_aliases(unit: str, n: int) -> tuple[str, ...]:
    """Other spellings of model or stand n of a unit (counted from 0, as the T9A and
    Warmaster solvers name them: ``K.3``): ``K#3``, ``K-3``."""
    return tuple(f"{unit}{s}{n}" for s in _SEPARATORS[1:])


def _army(scen: AnyScenario) -> _Army:
    """Every model/stand of a scenario, with exact footprints."""
    mmpu = mm_per_unit(scen)
    army = _Army(system=scen.system, mmpu=mmpu)
    if isinstance(scen, Scenario40k):
        for u in scen.units:
            army.players[u.id] = u.player
            army.unit_order.append(u.id)
            for m in u.models:
                army.pieces.append(
                    _make_piece(m.id, u.id, u.player, m.base, m.at, m.facing, mmpu,
                                show_facing=m.base.kind != "round", token=m.token)
                )
    elif isinstance(scen, ScenarioT9A):
        for tu in scen.units:
            army.players[tu.id] = tu.player
            army.unit_order.append(tu.id)
            fm = tu.formation
            if fm.base.kind == "round":
                w = d = float(fm.base.round or 0.0) / mmpu
            else:
                rw, rd = fm.base.rect or (0.0, 0.0)
                w, d = rw / mmpu, rd / mmpu
            front = (float(fm.front[0]), float(fm.front[1]))
            centres = block_model_centres(front, fm.facing, fm.files, fm.models, w, d)
            for i, c in enumerate(centres):
                army.pieces.append(
                    _make_piece(f"{tu.id}.{i}", tu.id, tu.player, fm.base, (c[0], c[1]), fm.facing,
                                mmpu, show_facing=False, aliases=_index_aliases(tu.id, i))
                )
            corners = block_corners(front, fm.facing, fm.files, fm.models, w, d)
            cs = tuple((float(c[0]), float(c[1])) for c in corners)
            army.blocks[tu.id] = _Block(tu.id, tu.player, cs, float(fm.facing), front,  # type: ignore[arg-type]
                                        fm.base.kind == "round")
    elif isinstance(scen, ScenarioWarmaster):
        for wu in scen.units:
            army.players[wu.id] = wu.player
            army.unit_order.append(wu.id)
            base = wu.base or Base(rect=WARMASTER_DEFAULT_BASE.get(wu.type, WARMASTER_OTHER_BASE))
            for i, st in enumerate(wu.stands):
                canon = st.id or f"{wu.id}.{i}"
                aliases = _index_aliases(wu.id, i) + ((f"{wu.id}.{i}",) if st.id else ())
                army.pieces.append(
                    _make_piece(canon, wu.id, wu.player, base, st.at, st.facing, mmpu,
                                show_facing=True, aliases=aliases)
                )
    return army


def _moved_army(before: _Army, moves: Sequence[Move]) -> _Army:
    """The position after a ruling that carries no ``after`` scenario: every moved piece
    is placed at its move's end (with the move's facing, if given). T9A blocks of moved
    units are dropped (their models are drawn loose, each with its front edge)."""
    by_id = before.by_id()
    moved: dict[str, Move] = {}
    for mv in moves:
        p = by_id.get(mv.id)
        if p is not None:
            moved[p.id] = mv
    pieces = []
    moved_units = set()
    for p in before.pieces:
        got = moved.get(p.id)
        if got is None:
            pieces.append(p)
            continue
        mv = got
        moved_units.add(p.unit)
        facing = mv.facing if mv.facing is not None else p.facing
        at = tuple(mv.to[:3]) if len(mv.to) >= 2 else p.at
        q = _make_piece(p.id, p.unit, p.player, p.base, at, facing, before.mmpu,
                        show_facing=p.show_facing or p.unit in before.blocks, token=p.token or mv.token,
                        aliases=p.aliases)
        pieces.append(q)
    blocks = {k: b for k, b in before.blocks.items() if k not in moved_units}
    return _Army(before.system, before.mmpu, pieces, blocks, dict(before.players), list(before.unit_order))


def _after_army(scen: AnyScenario, before: _Army, ruling: Ruling) -> _Army:
    """The position after the charge: ``ruling.after`` when present and readable,
    else the moves applied to the scenario."""
    if ruling.after:
        try:
            after_scen = scenario_from_data(ruling.after)
        except ValueError:
            after_scen = None
        if after_scen is not None and after_scen.system == scen.system:
            army = _army(after_scen)
            # WTC tokens taken in this charge are shown even when `after` omits them.
            tok = {mv.id for mv in ruling.moves if mv.token}
            if tok:
                army.pieces = [replace(p, token=True) if p.id in tok else p for p in army.pieces]
            return army
    return _moved_army(before, ruling.moves)


def _same_place(a: _Piece, b: _Piece) -> bool:
    return (
        math.hypot(a.at[0] - b.at[0], a.at[1] - b.at[1]) <= 1e-9
        and abs((a.facing - b.facing + 180) % 360 - 180) <= 1e-9
    )


# --------------------------------------------------------------------------------------
# geometry used for drawing only
# --------------------------------------------------------------------------------------


def _offset_outline(fp: Footprint, r: float, n: int = 192) -> np.ndarray:
    """The outline of every point within ``r`` of a footprint (an engagement ring).

    Convex polygons use shapely's exact buffer (arcs as fine chords); discs and ellipses
    the support function: the offset boundary is ``support(u) + r u``."""
    ang = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    u = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    polys = []
    for part in fp.parts:
        if isinstance(part, ConvexPolygon):
            polys.append(shapely.Polygon(part.V).buffer(r, quad_segs=24))
        else:
            polys.append(shapely.Polygon(part.support(u) + r * u))
    if len(polys) == 1 and not isinstance(fp.parts[0], ConvexPolygon):
        return np.asarray(polys[0].exterior.coords)[:-1]
    g = shapely.union_all(polys)
    if g.geom_type != "Polygon":
        g = g.convex_hull
    return np.asarray(g.exterior.coords)[:-1]


def _outline(fp: Footprint) -> np.ndarray:
    return np.asarray(fp.boundary(96), dtype=float)


def _closest_points(a: Footprint, b: Footprint) -> tuple[np.ndarray, np.ndarray]:
    """Nearly closest points of two outlines (for placing a marker; not a verdict)."""
    pa, pb = _outline(a), _outline(b)
    if len(pa) < 48:
        pa = _densify(pa)
    if len(pb) < 48:
        pb = _densify(pb)
    d = np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=-1)
    da, db = d.min(axis=1), d.min(axis=0)
    best = float(da.min())
    # Where two edges lie flush, every sample along the shared stretch is (nearly) as
    # close as the best one: take the middle of that stretch, not one of its ends.
    spacing = max(_spacing(pa), _spacing(pb))
    tol = 0.75 * spacing
    return pa[da <= best + tol].mean(axis=0), pb[db <= best + tol].mean(axis=0)


def _spacing(poly: np.ndarray) -> float:
    """The largest gap between consecutive outline samples."""
    return float(np.max(np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)))


def _densify(poly: np.ndarray, per_edge: int = 16) -> np.ndarray:
    out = []
    n = len(poly)
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        for t in np.linspace(0, 1, per_edge, endpoint=False):
            out.append(a + (b - a) * t)
    return np.asarray(out)


def _bounds_of(points: Iterable[Sequence[float]]) -> tuple[float, float, float, float] | None:
    arr = [(float(p[0]), float(p[1])) for p in points]
    if not arr:
        return None
    xs, ys = [p[0] for p in arr], [p[1] for p in arr]
    return min(xs), min(ys), max(xs), max(ys)


# --------------------------------------------------------------------------------------
# the renderer
# --------------------------------------------------------------------------------------

_SYSTEM_NAMES = {"40k": "Warhammer 40,000", "t9a": "The 9th Age", "warmaster": "Warmaster"}

#: Legend entries in display order: key -> label.
_LEGEND = [
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


class _Renderer:
    def __init__(
        self,
        scen: AnyScenario,
        ruling: Ruling | None,
        title: str | None,
        show_before: bool,
        whole_board: bool,
        width_px: int,
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
        for mv in self.ruling.moves:
            pts += [tuple(q[:2]) for q in (mv.path or [mv.from_, mv.to]) if len(q) >= 2]
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
        _sub(root, "style", text=_css(self.px))
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
        if self.ruling is not None and self.scen.system == "t9a":
            self._arcs(_sub(m, "g", {"class": "arcs"}))
        if self.show_before:
            self._ghosts(_sub(m, "g", {"class": "ghosts"}))
        if self.ruling is not None and self.scen.system == "40k":
            self._rings(_sub(m, "g", {"class": "engagement-rings"}))
            self._coherency(_sub(m, "g", {"class": "coherency-links"}))
        self._units(_sub(m, "g", {"class": "units"}))
        if self.ruling is not None:
            self._paths(_sub(m, "g", {"class": "paths"}))
            self._contacts(_sub(m, "g", {"class": "contacts"}))
            dm = _sub(m, "g", {"class": "detail-marks"})
            if self.scen.system == "t9a":
                self._charged_facing(dm)
            self._details_marks(dm)
        if self.scen.system == "40k":
            self._tokens(_sub(m, "g", {"class": "tokens"}))
        if self.ruling is not None:
            self._reason_marks(_sub(m, "g", {"class": "reason-marks"}))
        self._labels(_sub(m, "g", {"class": "labels"}))

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
        if role not in ("charger", "target") or self.scen.system == "t9a":
            return
        size = 2 * min(p.fp.radius, self._inner_radius(p))
        fs = min(0.42 * size, 11 * self.px)
        if fs < 7 * self.px:
            return
        label = p.id
        if self.scen.system == "warmaster" and p.id.startswith(p.unit):
            label = p.id[len(p.unit):].lstrip("".join(_SEPARATORS)) or p.id
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
        if self.ruling is None:
            return []
        out = []
        for mv in self.ruling.moves:
            raw = mv.path if mv.path else [mv.from_, mv.to]
            pts = [(float(q[0]), float(q[1])) for q in raw if len(q) >= 2]
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
        """Each move's path (the base centre's route) with an arrowhead at the end."""
        assert self.ruling is not None
        by_id = self.after.by_id()
        for mv in self.ruling.moves:
            raw = mv.path if mv.path else [mv.from_, mv.to]
            pts = [(float(q[0]), float(q[1])) for q in raw if len(q) >= 2]
            clean: list[Pt] = []
            for q in pts:
                if not clean or math.dist(clean[-1], q) > 1e-9:
                    clean.append(q)
            if len(clean) < 2:
                continue
            me = by_id.get(mv.id)
            if me is not None:
                clean = self._trim_end(clean, me.fp)
            _sub(g, "polyline", {"class": "path", "data-id": mv.id, "points": self.pts(clean)})
            self.used.add("path")
            a, b = np.asarray(clean[-2]), np.asarray(clean[-1])
            L = float(np.linalg.norm(b - a))
            f = (b - a) / L
            s = np.array([f[1], -f[0]])
            size = min(9 * self.px, 0.6 * math.dist(clean[0], clean[-1]) + 3 * self.px)
            tri = [b, b - f * size + s * size * 0.45, b - f * size - s * size * 0.45]
            _sub(g, "polygon", {"class": "arrowhead", "points": self.pts(tri)})

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

    def _rings(self, g: ET.Element) -> None:
        """40k engagement range: every point within 1" of each charging model's base
        (a circle of radius r + 1" for round bases, the exact offset outline otherwise)."""
        r = 1.0 * self.inch
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
        """Links between charging models whose bases are within 2" (centre to centre,
        drawn under the bases so only the gap between them shows)."""
        ps = self._charging_pieces()
        lim = 2.0 * self.inch + TOL
        for i in range(len(ps)):
            for j in range(i + 1, len(ps)):
                a, b = ps[i], ps[j]
                if math.dist(a.xy, b.xy) - a.fp.radius - b.fp.radius > lim:
                    continue
                if distance(a.fp, b.fp) <= lim:
                    _sub(g, "line", {"class": "coherency", "data-ids": f"{a.id} {b.id}", "x1": _f(a.at[0]),
                                     "y1": _f(self.Y(a.at[1])), "x2": _f(b.at[0]), "y2": _f(self.Y(b.at[1]))})
                    self.used.add("coherency")

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

    def _details_marks(self, g: ET.Element) -> None:
        """Warmaster: an outline around the first stand placed (``details.first_stand``:
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

    def _header_lines(self) -> list[list[tuple[str, str]]]:
        """Lines of (text, class) runs: a title, then the ruling's facts."""
        scen, r = self.scen, self.ruling
        sysname = _SYSTEM_NAMES.get(scen.system, scen.system)
        if isinstance(scen, Scenario40k):
            sysname += f" ({scen.rules.edition}th edition{', WTC' if scen.rules.use_wtc else ''})"
        elif isinstance(scen, ScenarioWarmaster):
            sysname += f" ({scen.rules.variant})"
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
        for key, label in _LEGEND:
            if key not in self.used:
                continue
            if key == "engagement-ring":
                label = f"engagement range {self.length(1.0 * self.inch)}"
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


# --------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------


def render_svg(
    scenario: AnyScenario,
    ruling: Ruling | dict[str, Any] | None = None,
    *,
    title: str | None = None,
    show_before: bool = True,
    whole_board: bool = False,
    width_px: int = DEFAULT_WIDTH_PX,
) -> str:
    """Draw a scenario (and, optionally, a ruling on it) as an SVG document.

    * ``ruling``: a :class:`~chargeref.ruling.Ruling` (or its JSON data). The picture
      then shows the position after the charge (``ruling.after``, or the moves applied),
      the starting positions as ghosts (``show_before``), every move's path, engagement
      rings and coherency links (40k), base contacts, tokens, arcs (T9A), the first
      stand (Warmaster), a header with the verdict and the reasons as text.
    * By default a ruling zooms to the charge; ``whole_board=True`` draws the board.
    * ``width_px``: the picture's pixel width (fonts and strokes are sized for it).

    The result is deterministic: the same input gives the same string.

    >>> from chargeref.scenario import scenario_from_data
    >>> s = scenario_from_data({"format": "chargeref/1", "system": "40k",
    ...     "board": {"width": 20, "depth": 10},
    ...     "units": [{"id": "A", "player": 1, "models": [{"id": "A1", "at": [5, 5], "base": "32mm"}]}]})
    >>> svg = render_svg(s)
    >>> svg.startswith("<svg") and 'class="model p1"' in svg
    True
    """
    if isinstance(ruling, dict):
        ruling = Ruling.model_validate(ruling)
    if ruling is not None and ruling.system != scenario.system:
        raise ValueError(f"the ruling is for {ruling.system!r} but the scenario is {scenario.system!r}")
    if width_px < 200:
        raise ValueError("width_px must be at least 200")
    return _Renderer(scenario, ruling, title, show_before, whole_board, width_px).build()


__all__ = ["render_svg", "DEFAULT_WIDTH_PX"]
