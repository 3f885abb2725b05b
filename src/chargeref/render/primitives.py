"""Drawing primitives shared by every system's renderer.

Small SVG helpers (numbers as text, elements, classes), what is drawn (models and
stands as exact footprints, T9A blocks, an army before and after a ruling), moves as
drawable routes (straight segments and circular arcs), and geometry used for drawing
only (offset outlines for rings, closest points for markers). Nothing here decides a
verdict: every verdict comes from a rule system, in the ruling.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely

from ..geometry.bases import base_footprint
from ..geometry.blocks import block_corners, block_model_centres
from ..geometry.shapes import ConvexPolygon, Footprint
from ..ruling import Move, Ruling
from ..scenario import (
    AnyScenario,
    Base,
    Scenario40k,
    ScenarioT9A,
    ScenarioWarmaster,
    mm_per_unit,
    scenario_from_data,
)

SVG_NS = "http://www.w3.org/2000/svg"
#: Width of the picture in pixels; every stroke and font size is given in pixels of
#: this width and converted to scenario units, so pictures look alike at any zoom.
DEFAULT_WIDTH_PX = 960
#: Warmaster stand bases (mm, W across the front x D deep) when the unit gives none.
WARMASTER_DEFAULT_BASE = {"infantry": (40.0, 20.0)}
WARMASTER_OTHER_BASE = (20.0, 40.0)

Pt = tuple[float, float]

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
# moves as drawable routes: straight segments and circular arcs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leg:
    """One piece of a move's route: a straight segment, or a circular arc around
    ``center`` of ``radius`` from ``a`` to ``b`` (counter-clockwise when ``ccw``)."""

    kind: str
    a: Pt
    b: Pt
    center: Pt | None = None
    radius: float = 0.0
    ccw: bool = True

    def sweep(self) -> float:
        """The arc's turning angle in radians (0 for a line)."""
        if self.kind != "arc" or self.center is None:
            return 0.0
        cx, cy = self.center
        a0 = math.atan2(self.a[1] - cy, self.a[0] - cx)
        a1 = math.atan2(self.b[1] - cy, self.b[0] - cx)
        d = (a1 - a0) if self.ccw else (a0 - a1)
        return d % (2 * math.pi)

    def end_direction(self) -> np.ndarray:
        """The unit direction of travel at ``b``."""
        if self.kind == "arc" and self.center is not None:
            r = np.asarray(self.b) - np.asarray(self.center)
            t = np.array([-r[1], r[0]]) if self.ccw else np.array([r[1], -r[0]])
        else:
            t = np.asarray(self.b) - np.asarray(self.a)
        n = float(np.linalg.norm(t))
        return t / n if n > 0 else np.array([1.0, 0.0])

    def samples(self, step: float) -> list[Pt]:
        """Points along the leg about ``step`` apart (for layout only), ``a`` and ``b``
        included."""
        if self.kind != "arc" or self.center is None:
            return [self.a, self.b]
        sw = self.sweep()
        n = max(2, int(math.ceil(sw * self.radius / max(step, 1e-9))) + 1)
        cx, cy = self.center
        a0 = math.atan2(self.a[1] - cy, self.a[0] - cx)
        sign = 1.0 if self.ccw else -1.0
        out = [(cx + self.radius * math.cos(a0 + sign * sw * k / (n - 1)),
                cy + self.radius * math.sin(a0 + sign * sw * k / (n - 1))) for k in range(n)]
        out[0], out[-1] = self.a, self.b
        return out


def _pt(v: Any) -> Pt | None:
    if isinstance(v, (list, tuple)) and len(v) >= 2 and all(isinstance(c, (int, float)) for c in v[:2]):
        return (float(v[0]), float(v[1]))
    return None


def legs_from_segments(segments: Sequence[Any]) -> list[Leg] | None:
    """Legs from a move's ``segments`` (``{"kind": "line", "from", "to"}`` and
    ``{"kind": "arc", "center", "radius", "from", "to", "ccw"}``); None when any item
    is unreadable (the caller then falls back to the move's points)."""
    out: list[Leg] = []
    for seg in segments:
        if hasattr(seg, "model_dump"):
            seg = seg.model_dump(mode="json", by_alias=True)
        if not isinstance(seg, dict):
            return None
        if seg.get("kind") == "pivot":
            continue  # a turn on the spot: the route does not move (the end facing is drawn)
        a, b = _pt(seg.get("from")), _pt(seg.get("to"))
        if a is None or b is None:
            return None
        if seg.get("kind") == "arc":
            c, r = _pt(seg.get("center")), seg.get("radius")
            if c is None or not isinstance(r, (int, float)) or not r > 0:
                return None
            out.append(Leg("arc", a, b, c, float(r), bool(seg.get("ccw", True))))
        elif seg.get("kind", "line") == "line":
            out.append(Leg("line", a, b))
        else:
            return None
    return out or None


def move_route(mv: Move, segments: Sequence[Any] | None = None) -> list[Leg]:
    """The route of a move's base centre: its ``segments`` when given (arcs drawn as
    arcs), else its ``path`` points (or from -> to) joined by straight lines. Repeated
    points are dropped; a move that goes nowhere has no legs."""
    segs = segments if segments is not None else getattr(mv, "segments", None)
    if segs:
        legs = legs_from_segments(segs)
        if legs is not None:
            return [lg for lg in legs if math.dist(lg.a, lg.b) > 1e-9 or lg.sweep() > 1e-9]
    raw = mv.path if mv.path else [mv.from_, mv.to]
    pts = [(float(q[0]), float(q[1])) for q in raw if len(q) >= 2]
    clean: list[Pt] = []
    for q in pts:
        if not clean or math.dist(clean[-1], q) > 1e-9:
            clean.append(q)
    return [Leg("line", clean[k], clean[k + 1]) for k in range(len(clean) - 1)]


def route_points(legs: Sequence[Leg], step: float) -> list[Pt]:
    """The route as a polyline (arcs sampled ``step`` apart): for layout, never a
    verdict."""
    out: list[Pt] = []
    for lg in legs:
        for q in lg.samples(step):
            if not out or math.dist(out[-1], q) > 1e-12:
                out.append(q)
    return out


def split_segments(ruling: dict[str, Any]) -> tuple[dict[str, Any], dict[int, list[Any]]]:
    """A ruling's JSON data without the moves' ``segments``, and those segments by
    move index (so a ruling from a newer planner draws even where the ``Ruling`` model
    does not know the field)."""
    moves = ruling.get("moves")
    if not isinstance(moves, list) or not any(isinstance(m, dict) and "segments" in m for m in moves):
        return ruling, {}
    segs: dict[int, list[Any]] = {}
    new_moves = []
    for i, m in enumerate(moves):
        if isinstance(m, dict) and "segments" in m:
            m = dict(m)
            s = m.pop("segments")
            if isinstance(s, list):
                segs[i] = s
        new_moves.append(m)
    return {**ruling, "moves": new_moves}, segs
