"""The Warmaster battlefield as plain geometry: stands, terrain pieces, the board.

Built once per charge from the parsed scenario. Lengths are in the scenario's unit
(centimetres by default); stand sizes come from millimetres (notes 3.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ...geometry.bases import wall_parts
from ...geometry.shapes import ConvexPolygon, make_polygon_parts
from ...scenario.common import MM_PER_UNIT
from ...scenario.warmaster import ScenarioWarmaster, UnitWarmaster
from .geom import EDGE_CORNERS, Poly, ccw, left_of, rect, unit

#: Full-pace moves by troop type, in centimetres (notes 3.2). Charges are always at
#: full pace, whatever the formation.
DEFAULT_MOVE_CM: dict[str, float] = {
    "infantry": 20.0,
    "cavalry": 30.0,
    "chariot": 30.0,
    "monster": 20.0,
    "artillery": 10.0,
    "character": 60.0,
}

#: Stand sizes (width across the front, depth) in mm: infantry face the long edge,
#: every other type the short one (notes 3.1).
DEFAULT_BASE_MM: dict[str, tuple[float, float]] = {
    "infantry": (40.0, 20.0),
    "cavalry": (20.0, 40.0),
    "chariot": (20.0, 40.0),
    "monster": (20.0, 40.0),
    "artillery": (20.0, 40.0),
    "character": (20.0, 40.0),
}

#: Which troop types may enter each kind of terrain (notes 3.2; anything not listed
#: may be entered by every type).
ENTERABLE: dict[str, frozenset[str]] = {
    "impassable": frozenset(),
    "wall": frozenset(),
    "ruin": frozenset({"infantry", "character"}),
    "obstacle": frozenset({"infantry", "cavalry", "monster", "character"}),
    "barricade": frozenset({"infantry", "cavalry", "monster", "character"}),
}
#: Terrain that blocks sight (the rest is low or, like rivers and rocks given as
#: ``impassable``, does not hide anything).
BLOCKS_SIGHT = frozenset({"wall", "ruin"})


def stand_id(unit_id: str, index: int, given: str | None) -> str:
    """The id a stand goes by in rulings: its own ``id`` or ``<unit>.<index>``."""
    return given if given else f"{unit_id}.{index}"


@dataclass(frozen=True, eq=False)
class StandW:
    sid: str
    unit: str
    player: int
    kind: str
    index: int
    c: np.ndarray
    facing: float
    w: float
    d: float
    #: radius of a round base (characters only), else None
    round_r: float | None = None

    @cached_property
    def poly(self) -> Poly:
        """The rectangle of a rectangular stand. A round stand's footprint is its
        disc (``disc``), never a polygon standing in for it: only characters stand on
        round bases, and they neither charge, nor block a charge's path or sight
        (notes 3.2, 3.3), so no charge geometry ever asks for one."""
        if self.round_r is not None:
            raise ValueError(f"stand {self.sid} is round: its footprint is the disc {self.disc}, not a polygon")
        return rect(self.c, self.facing, self.w, self.d)

    @property
    def disc(self) -> tuple[tuple[float, float], float] | None:
        """(centre, radius) of a round stand's exact footprint; None for a rectangle."""
        if self.round_r is None:
            return None
        return (float(self.c[0]), float(self.c[1])), float(self.round_r)

    @cached_property
    def f(self) -> np.ndarray:
        return unit(self.facing)

    @cached_property
    def lft(self) -> np.ndarray:
        return left_of(self.f)

    @property
    def is_character(self) -> bool:
        return self.kind == "character"

    def edge(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        i, j = EDGE_CORNERS[name]
        return self.poly[i], self.poly[j]

    @property
    def shortest(self) -> float:
        if self.round_r is not None:
            return 2 * self.round_r
        return min(self.w, self.d)

    def at(self, c: np.ndarray, facing: float) -> StandW:
        return replace(self, c=np.asarray(c, dtype=float), facing=float(facing))


@dataclass(frozen=True, eq=False)
class TerrainPiece:
    tid: str
    kind: str
    parts: tuple[Poly, ...]

    def blocks_move(self, troop: str) -> bool:
        if self.kind not in ENTERABLE:
            return False
        return troop not in ENTERABLE[self.kind]

    @property
    def blocks_sight(self) -> bool:
        return self.kind in BLOCKS_SIGHT


@dataclass
class World:
    scen: ScenarioWarmaster
    mm: float
    stands: list[StandW]
    units: dict[str, UnitWarmaster]
    terrain: list[TerrainPiece]
    width: float
    depth: float
    by_unit: dict[str, list[StandW]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_unit = {uid: [] for uid in self.units}
        for s in self.stands:
            self.by_unit[s.unit].append(s)

    @property
    def cm(self) -> float:
        """One centimetre in the scenario unit."""
        return 10.0 / self.mm

    def move_of(self, uid: str) -> float:
        u = self.units[uid]
        if u.move is not None:
            return float(u.move)
        return DEFAULT_MOVE_CM[u.type] * self.cm

    def player_of(self, uid: str) -> int:
        return int(self.units[uid].player)

    def stand(self, sid: str) -> StandW:
        for s in self.stands:
            if s.sid == sid:
                return s
        raise KeyError(sid)

    def board_poly(self) -> Poly:
        return np.array([[0.0, 0.0], [self.width, 0.0], [self.width, self.depth], [0.0, self.depth]])

    def move_blockers(self, troop: str) -> list[Poly]:
        return [p for t in self.terrain if t.blocks_move(troop) for p in t.parts]


def unit_base(u: UnitWarmaster, mm: float) -> tuple[str, float, float]:
    """(kind, w, d) in scenario units: kind 'rect' or 'round' (w = d = diameter)."""
    if u.base is None:
        W, D = DEFAULT_BASE_MM[u.type]
        return "rect", W / mm, D / mm
    if u.base.rect is not None:
        W, D = u.base.rect
        return "rect", W / mm, D / mm
    if u.base.round is not None:
        return "round", u.base.round / mm, u.base.round / mm
    return "other", 0.0, 0.0


def build_world(scen: ScenarioWarmaster) -> World:
    mm = MM_PER_UNIT[scen.unit]
    stands: list[StandW] = []
    units: dict[str, UnitWarmaster] = {}
    for u in scen.units:
        units[u.id] = u
        kind, w, d = unit_base(u, mm)
        for i, st in enumerate(u.stands):
            stands.append(
                StandW(
                    sid=stand_id(u.id, i, st.id),
                    unit=u.id,
                    player=int(u.player),
                    kind=u.type,
                    index=i,
                    c=np.array([float(st.at[0]), float(st.at[1])]),
                    facing=float(st.facing),
                    w=w if kind != "other" else 4.0 * 10 / mm,
                    d=d if kind != "other" else 2.0 * 10 / mm,
                    round_r=w / 2 if kind == "round" else None,
                )
            )
    terrain: list[TerrainPiece] = []
    for t in scen.terrain:
        parts: tuple[Poly, ...]
        if t.type in ("impassable", "obstacle", "hill"):
            parts = tuple(ccw(p.V) for p in make_polygon_parts(t.polygon) if isinstance(p, ConvexPolygon))
        elif t.type == "ruin":
            parts = tuple(ccw(p.V) for p in make_polygon_parts(t.footprint) if isinstance(p, ConvexPolygon))
        elif t.type in ("wall", "barricade"):
            parts = tuple(ccw(p.V) for p in wall_parts(t.points, t.thickness))
        else:
            continue
        terrain.append(TerrainPiece(t.id, t.type, parts))
    return World(scen, mm, stands, units, terrain, float(scen.board.width), float(scen.board.depth))
