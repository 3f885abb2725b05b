"""The 40k battlefield as geometry: model footprints with heights, terrain pieces, and
what blocks or costs whom. Built once per scenario; immutable.

Rules modelled here (thresholds in inches, converted to the scenario unit):

* Engagement range: 1" horizontally and 5" vertically. Coherency: 2" and 5".
* Climbing threshold: terrain up to 1" (edition 9) or 2" (edition 10) tall is moved
  over as if absent; taller terrain is climbed, its height counted up and down.
* Ruin walls: INFANTRY, BEAST and SWARM pass through freely; others climb them.
  Nobody ends a move overlapping a wall (ruin wall, free wall or barricade).
* Free walls: climbed when ``climbable`` (default), otherwise never crossed.
* Obstacles taller than the threshold are climbed and cannot be ended on (no ending
  mid-climb); impassable terrain is never entered.
* Hills are ground: a model standing on one is at its height.
* Models: enemies block movement unless the mover has FLY; friends block in edition 9,
  and in 10/11 only a friendly MONSTER or VEHICLE blocks a MONSTER or VEHICLE; no model
  ends overlapping another at the same level. Charges in 9/10 also keep their paths
  out of the engagement range of non-targets (``barriers_for(avoid=...)``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely

from ...geometry.bases import base_footprint, polygon_footprint, wall_footprint
from ...geometry.paths import Barrier
from ...geometry.placement import grown
from ...geometry.shapes import TOL, Footprint, signed_distance
from ...scenario import Scenario40k, inch, mm_per_unit
from .editions import Edition, edition

PASS_RUIN_WALLS = frozenset({"INFANTRY", "BEAST", "SWARM"})
CAN_USE_FLOORS = frozenset({"INFANTRY", "BEAST", "SWARM", "FLY"})
#: a MONSTER or VEHICLE may not move through a friendly MONSTER or VEHICLE (10, 11)
BIG = frozenset({"MONSTER", "VEHICLE"})


@dataclass(frozen=True, eq=False)
class Model:
    id: str
    unit: str
    player: int
    fp: Footprint
    z: float
    facing: float
    index: int  # position in the world's model list

    @property
    def xy(self) -> np.ndarray:
        return self.fp.center


@dataclass(frozen=True, eq=False)
class Feature:
    """A terrain piece that matters to movement or to where models may end."""

    id: str
    type: str  # ruin_wall | wall | barricade | obstacle | impassable
    fp: Footprint
    height: float
    climbable: bool = True
    ruin: str | None = None


@dataclass(frozen=True, eq=False)
class Rules:
    edition: int
    wtc: bool
    inch: float
    failed_charge_moves: bool

    @property
    def ed(self) -> Edition:
        """The edition's numbers and switches (editions.py), in inches."""
        return edition(self.edition)

    @property
    def er(self) -> float:
        return self.ed.er * self.inch

    @property
    def er_v(self) -> float:
        return self.ed.er_vertical * self.inch

    @property
    def coh(self) -> float:
        return self.ed.coherency * self.inch

    @property
    def coh_v(self) -> float:
        return self.ed.coherency_vertical * self.inch

    @property
    def climb_free(self) -> float:
        return self.ed.climb_free * self.inch

    @property
    def charge_range(self) -> float:
        return self.ed.charge_range * self.inch

    def needs_two(self, n_models: int) -> bool:
        """Coherency asks for two neighbours from 6 models (9th) or 7 (10th); never in 11th."""
        return self.ed.needs_two(n_models)


@dataclass(eq=False)
class World:
    scen: Scenario40k
    rules: Rules
    models: list[Model]
    features: list[Feature]
    hills: list[tuple[shapely.Polygon, float]]
    floors: list[tuple[str, shapely.Polygon, float]]
    board: tuple[float, float]
    unit_models: dict[str, list[Model]] = field(default_factory=dict)
    unit_player: dict[str, int] = field(default_factory=dict)
    unit_keywords: dict[str, frozenset[str]] = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[str, Model]:
        return {m.id: m for m in self.models}

    def enemies_of(self, unit: str) -> list[str]:
        p = self.unit_player[unit]
        return [u for u, q in self.unit_player.items() if q != p]

    def ground_z(self, xy: np.ndarray) -> np.ndarray:
        """Height of the ground (hill tops included) under each point."""
        xy = np.atleast_2d(xy)
        z = np.zeros(len(xy))
        for poly, h in self.hills:
            inside = shapely.contains_xy(poly, xy[:, 0], xy[:, 1])
            z = np.where(inside, np.maximum(z, h), z)
        return z

    def barriers_for(
        self,
        unit: str,
        exclude_models: frozenset[str] = frozenset(),
        avoid: tuple[Model, ...] | list[Model] = (),
        avoid_gap: float = 0.0,
        sky: bool = False,
    ) -> list[Barrier]:
        """What blocks or costs a model of ``unit`` while it moves.

        Models, by edition (rules-notes §1.7): enemies are never crossed; friends of
        other units may be crossed when ``ed.friends_passable``, except that a MONSTER or
        VEHICLE may not cross a friendly MONSTER or VEHICLE when ``ed.big_blocks_big``;
        FLY passes over every model (edition 11: only in the skies). ``avoid`` lists models whose engagement range the
        path may not enter (a charge's non-targets in editions 9 and 10): each becomes a
        hard barrier grown by ``avoid_gap``, so the mover's base stays farther than that
        from the model's base all along the path. ``sky`` (FLY in edition 11) passes over
        terrain too; only impassable terrain and the avoided models remain."""
        kws = self.unit_keywords[unit]
        thr = self.rules.climb_free
        ed = self.rules.ed
        out: list[Barrier] = []
        for f in self.features:
            if f.type == "impassable":
                out.append(Barrier(f.fp, None, f.id))
                continue
            if sky:
                continue  # taking to the skies: over every other terrain piece
            if f.type == "ruin_wall" and kws & PASS_RUIN_WALLS:
                continue  # breachable for infantry, beasts and swarms
            if f.height <= thr + 1e-12:
                continue  # low terrain is moved over as if it were not there
            if f.type == "wall" and not f.climbable:
                out.append(Barrier(f.fp, None, f.id))
                continue
            out.append(Barrier(f.fp, 2.0 * f.height, f.id))  # climb up and down
        avoid_ids = {m.id for m in avoid}
        # FLY passes over models in editions 9 and 10; in 11 only when it takes to the
        # skies (``sky``), otherwise it moves like any other model
        over_models = sky or ("FLY" in kws and ed.fly == "over_models")
        if not over_models:
            p = self.unit_player[unit]
            big = bool(kws & BIG)
            for m in self.models:
                if m.unit == unit or m.id in exclude_models or m.id in avoid_ids:
                    continue
                if m.player != p:
                    out.append(Barrier(m.fp, None, m.id))
                elif not ed.friends_passable or (ed.big_blocks_big and big and self.unit_keywords[m.unit] & BIG):
                    out.append(Barrier(m.fp, None, m.id))
        for m in avoid:
            if m.id not in exclude_models:
                out.append(Barrier(grown(m.fp, avoid_gap), None, f"{m.id}+er"))
        return out

    def end_blockers(self) -> list[Feature]:
        """Terrain no base may end overlapping."""
        thr = self.rules.climb_free
        return [
            f
            for f in self.features
            if f.type in ("ruin_wall", "wall", "barricade", "impassable")
            or (f.type == "obstacle" and f.height > thr + 1e-12)
        ]

    def vertical_cost(self, z0: float, z1: float) -> float:
        dz = abs(z1 - z0)
        return dz if dz > self.rules.climb_free + 1e-12 else 0.0


def reported(x: float) -> float:
    """A length or coordinate as a ruling reports it: rounded to 1e-9 of the unit, far
    below the 1e-6 tolerance, so rounding never pushes a move over its budget, into
    another base (two touching bases rounded to 1e-6 could overlap by 1.4e-6) or out
    of contact. Every 40k move that places models reports through this."""
    return round(float(x), 9)


def _dist3(a: Model, b: Model) -> float:
    """Closest distance between two flat bases at their heights."""
    h = max(0.0, float(signed_distance(a.fp, b.fp)))
    return math.hypot(h, a.z - b.z)


def unit_distance(world: World, u: str, v: str) -> float:
    """Closest distance between two units' models."""
    return min(_dist3(a, b) for a in world.unit_models[u] for b in world.unit_models[v])


def in_engagement(world: World, u: str, v: str, er: float | None = None) -> bool:
    """Is some model of u within engagement range (or ``er``) of some model of v?"""
    r = world.rules
    er = r.er if er is None else er
    for a in world.unit_models[u]:
        for b in world.unit_models[v]:
            if abs(a.z - b.z) <= r.er_v + TOL and signed_distance(a.fp, b.fp) <= er + TOL:
                return True
    return False


def model_footprint(m, mpu: float) -> Footprint:  # noqa: ANN001
    b = m.base
    return base_footprint(b.kind, b.dims, m.xy, m.facing, mpu)


def build_world(scen: Scenario40k, removed: frozenset[str] = frozenset()) -> World:
    mpu = mm_per_unit(scen)
    rules = Rules(scen.rules.edition, scen.rules.use_wtc, inch(scen), scen.rules.failed_charge_moves)
    features: list[Feature] = []
    hills: list[tuple[shapely.Polygon, float]] = []
    floors: list[tuple[str, shapely.Polygon, float]] = []
    for t in scen.terrain:
        if t.type == "ruin":
            for i, w in enumerate(t.walls):
                features.append(Feature(f"{t.id}.wall{i}", "ruin_wall", wall_footprint(w.points, w.thickness), w.height, True, t.id))
            for fl in t.floors:
                floors.append((t.id, shapely.Polygon(fl.polygon), fl.height))
        elif t.type == "wall":
            features.append(Feature(t.id, "wall", wall_footprint(t.points, t.thickness), t.height, t.climbable))
        elif t.type == "barricade":
            features.append(Feature(t.id, "barricade", wall_footprint(t.points, t.thickness), t.height))
        elif t.type == "obstacle":
            features.append(Feature(t.id, "obstacle", polygon_footprint(t.polygon), t.height))
        elif t.type == "impassable":
            features.append(Feature(t.id, "impassable", polygon_footprint(t.polygon), math.inf, False))
        elif t.type == "hill":
            hills.append((shapely.Polygon(t.polygon), t.height))
    world = World(scen, rules, [], features, hills, floors, (scen.board.width, scen.board.depth))
    models: list[Model] = []
    for u in scen.units:
        world.unit_player[u.id] = u.player
        world.unit_keywords[u.id] = frozenset(u.keywords)
        world.unit_models[u.id] = []
        for m in u.models:
            if m.id in removed:
                continue
            fp = model_footprint(m, mpu)
            z = m.z if m.z is not None else float(world.ground_z(np.asarray(m.xy))[0])
            mod = Model(m.id, u.id, u.player, fp, z, m.facing, len(models))
            models.append(mod)
            world.unit_models[u.id].append(mod)
    world.models = models
    return world
