"""Who may fight whom in the 40k fight phase: engagement links between enemy models.

A model may attack an enemy unit when it is within engagement range of one of its models
(1" horizontally, 5" vertically), or through the edition's chain: edition 9, within 1/2"
of a friendly model that is itself within 1/2" of an enemy model; edition 10, in base
contact with a friendly model that is in base contact with an enemy model. Two more links
count as engagement:

- **token links** (WTC walls rule): a model carrying a token and a model of one of the
  units its unit charged (``token_targets``) are engaged when they are within 2"
  horizontally and 5" vertically and a ruin wall stands between them (the segment
  joining their closest points crosses the interior of a ruin wall). Nobody else gets
  the 2" reach: not the token model against other units, not the charged unit's models
  against models without a token, not a third unit standing as close;
- **barricade links** (barricades and fuel pipes): enemy models on opposite sides of a
  ``barricade`` feature within 2" of each other may fight each other.

Everything is exact where a verdict depends on it: footprint distances come from
``sd_many`` (closed forms for discs, the support-function solve for ellipses), and the
"wall between them" test intersects the closest-point segment with the wall polygons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely

from ...geometry.convex_distance import solve
from ...geometry.shapes import TOL, Convex, ConvexPolygon, Disc, Footprint, least_curvature_radius
from .solver_base import sd_many
from .world import Model, World

#: WTC walls tokens and barricades: engagement reach across the feature, in inches.
ACROSS_REACH = 2.0
#: Edition 9 chain: a model within this of a friend within this of an enemy may fight.
CHAIN_9 = 0.5


def _r6(x: float) -> float:
    return round(float(x), 6)


# =============================================================================== geometry


def _project_polygon(V: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The point of the convex polygon V (CCW) closest to p (p itself when inside)."""
    A, B = V, np.roll(V, -1, axis=0)
    AB = B - A
    t = np.clip(np.einsum("ij,ij->i", p - A, AB) / np.einsum("ij,ij->i", AB, AB), 0.0, 1.0)
    Q = A + t[:, None] * AB
    cross = AB[:, 0] * (p[1] - A[:, 1]) - AB[:, 1] * (p[0] - A[:, 0])
    if np.all(cross >= 0):
        return p.copy()
    return Q[int(np.argmin(np.linalg.norm(Q - p, axis=1)))]


def _closest_convex(p: Convex, q: Convex) -> tuple[np.ndarray, np.ndarray]:
    """Closest points of two convex parts (exact closed forms for discs and polygons;
    for ellipses the certified support-function solve, to 1e-9 of the unit)."""
    if isinstance(p, Disc) and isinstance(q, Disc):
        v = q.center - p.center
        n = float(np.linalg.norm(v))
        u = v / n if n > 0 else np.array([1.0, 0.0])
        return p.center + p.r * u, q.center - q.r * u
    if isinstance(p, Disc) and isinstance(q, ConvexPolygon):
        c = p.center
        qp = _project_polygon(q.V, c)
        n = float(np.linalg.norm(qp - c))
        return (c + p.r * (qp - c) / n if n > 0 else c.copy()), qp
    if isinstance(p, ConvexPolygon) and isinstance(q, Disc):
        b, a = _closest_convex(q, p)
        return a, b
    if isinstance(p, ConvexPolygon) and isinstance(q, ConvexPolygon):
        line = shapely.shortest_line(shapely.Polygon(p.V), shapely.Polygon(q.V))
        c = np.asarray(line.coords, dtype=float)
        return c[0], c[1]

    # ovals and sums: the certified solve (geometry.convex_distance). Apart, its
    # witnesses are a point of each part whose distance is within 1e-9 of the gap;
    # overlapping, the support points of the deepest direction.
    reach = float(np.hypot(*(q.center - p.center))) + p.radius + q.radius
    c = solve(p.support, q.support, reach=reach, curv_min=least_curvature_radius(p) + least_curvature_radius(q))
    pa, pb = np.asarray(c.pa, dtype=float), np.asarray(c.pb, dtype=float)
    if isinstance(q, ConvexPolygon):
        pb = _project_polygon(q.V, pa)
    if isinstance(p, ConvexPolygon):
        pa = _project_polygon(p.V, pb)
    return pa, pb


def closest_points(A: Footprint, B: Footprint) -> tuple[np.ndarray, np.ndarray]:
    """The closest points of two footprints (over every pair of convex parts)."""
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for p in A.parts:
        for q in B.parts:
            pa, pb = _closest_convex(p, q)
            d = float(np.linalg.norm(pb - pa))
            if best is None or d < best[0]:
                best = (d, pa, pb)
    assert best is not None
    return best[1], best[2]


def _crosses(pa: np.ndarray, pb: np.ndarray, polys: list[shapely.Polygon]) -> bool:
    """Does a feature stand between: does the segment pa-pb pass through the interior
    of one of the polygons (not merely touch or run along its side)?"""
    if float(np.linalg.norm(pb - pa)) <= 0.0:
        return False
    seg = shapely.LineString([tuple(pa), tuple(pb)])
    # interior of the segment meets the interior of the wall: it goes through it
    return any(shapely.relate_pattern(seg, poly, "T********") for poly in polys)


# =============================================================================== links


@dataclass(frozen=True)
class Link:
    """One pair of enemy models that may fight each other, and why."""

    model: str
    enemy: str
    unit: str  # the enemy model's unit
    kind: str  # "er" (engagement range), "token" (WTC walls), "barricade"
    distance: float  # horizontal gap between the bases

    def data(self) -> dict[str, Any]:
        return {"model": self.model, "enemy": self.enemy, "unit": self.unit, "kind": self.kind, "distance": _r6(self.distance)}


class Melee:
    """The engagement relationships of one battlefield (a :class:`World`)."""

    def __init__(self, world: World):
        self.w = world
        scen = world.scen
        r = world.rules
        self.er = r.er
        self.er_v = r.er_v
        self.reach = ACROSS_REACH * r.inch
        self.units = {u.id: u for u in scen.units}
        self.token = {m.id for u in scen.units for m in u.models if m.token and m.id in world.by_id}
        self.token_targets: dict[str, list[str]] = {u.id: list(u.token_targets) for u in scen.units}
        wall_parts: list[shapely.Polygon] = []
        wall_ids: list[str] = []
        bar_parts: list[shapely.Polygon] = []
        bar_ids: list[str] = []
        for f in world.features:
            for part in f.fp.parts:
                if not isinstance(part, ConvexPolygon):
                    continue
                if f.type == "ruin_wall":
                    wall_parts.append(shapely.Polygon(part.V))
                    wall_ids.append(f.ruin or f.id)
                elif f.type == "barricade":
                    bar_parts.append(shapely.Polygon(part.V))
                    bar_ids.append(f.id)
        self.walls, self.wall_ids = wall_parts, wall_ids
        self.bars, self.bar_ids = bar_parts, bar_ids
        self._sd: dict[tuple[str, str], float] = {}

    # ---------------------------------------------------------------- pair tests
    def gap(self, a: Model, b: Model) -> float:
        """Horizontal signed distance between two bases (exact, cached)."""
        key = (a.id, b.id) if a.id < b.id else (b.id, a.id)
        d = self._sd.get(key)
        if d is None:
            if float(np.linalg.norm(a.xy - b.xy)) - a.fp.radius - b.fp.radius > 10.0 * self.reach:
                d = float(np.linalg.norm(a.xy - b.xy)) - a.fp.radius - b.fp.radius  # far: a lower bound is enough
            else:
                d = float(sd_many(a.fp, a.xy[None], b.fp)[0])
            self._sd[key] = d
        return d

    def in_er(self, a: Model, b: Model) -> bool:
        """Within normal engagement range: 1" horizontally and 5" vertically."""
        return abs(a.z - b.z) <= self.er_v + TOL and self.gap(a, b) <= self.er + TOL

    def in_contact(self, a: Model, b: Model) -> bool:
        return abs(a.z - b.z) <= TOL and self.gap(a, b) <= TOL

    def _across(self, a: Model, b: Model, polys: list[shapely.Polygon]) -> bool:
        if not polys:
            return False
        if abs(a.z - b.z) > self.er_v + TOL or self.gap(a, b) > self.reach + TOL:
            return False
        pa, pb = closest_points(a.fp, b.fp)
        return _crosses(pa, pb, polys)

    def token_pair(self, a: Model, b: Model) -> bool:
        """Is this a WTC walls pair: one model carries a token, the other belongs to a
        unit its unit charged? (Either order.)"""
        if a.player == b.player:
            return False
        if a.id in self.token and b.unit in self.token_targets.get(a.unit, []):
            return True
        return b.id in self.token and a.unit in self.token_targets.get(b.unit, [])

    def token_link(self, a: Model, b: Model) -> bool:
        """Token engagement: a token pair within 2" horizontally (5" vertically) with a
        ruin wall between their closest points."""
        return self.token_pair(a, b) and self._across(a, b, self.walls)

    def barricade_link(self, a: Model, b: Model) -> bool:
        """Enemies within 2" of each other on opposite sides of a barricade."""
        return a.player != b.player and self._across(a, b, self.bars)

    def pair_kind(self, a: Model, b: Model) -> str | None:
        if a.player == b.player:
            return None
        if self.in_er(a, b):
            return "er"
        if self.token_link(a, b):
            return "token"
        if self.barricade_link(a, b):
            return "barricade"
        return None

    # ---------------------------------------------------------------- unit level
    def enemies(self, unit: str) -> list[Model]:
        p = self.w.unit_player[unit]
        return [m for m in self.w.models if m.player != p]

    def links(self, unit: str) -> list[Link]:
        out: list[Link] = []
        foes = self.enemies(unit)
        for a in self.w.unit_models[unit]:
            for b in foes:
                k = self.pair_kind(a, b)
                if k is not None:
                    out.append(Link(a.id, b.id, b.unit, k, max(0.0, self.gap(a, b))))
        return out

    def engaged_units(self, unit: str) -> list[str]:
        return sorted({lk.unit for lk in self.links(unit)})

    def normal_er(self, unit: str) -> bool:
        """Is some model of the unit within normal engagement range of an enemy?"""
        foes = self.enemies(unit)
        return any(self.in_er(a, b) for a in self.w.unit_models[unit] for b in foes)

    def attacks(self, unit: str, links: list[Link] | None = None) -> dict[str, list[str]]:
        """Enemy units each model of the unit may attack (links plus the edition's
        chain through a friendly model)."""
        links = self.links(unit) if links is None else links
        out: dict[str, set[str]] = {m.id: set() for m in self.w.unit_models[unit]}
        for lk in links:
            out[lk.model].add(lk.unit)
        mine = self.w.unit_models[unit]
        foes = self.enemies(unit)
        r = self.w.rules
        for a in mine:
            for f in mine:
                if f.id == a.id:
                    continue
                if r.edition == 9:
                    # within 1/2" of a friend that is within 1/2" of an enemy model
                    half = CHAIN_9 * r.inch
                    if abs(a.z - f.z) > self.er_v + TOL or self.gap(a, f) > half + TOL:
                        continue
                    for b in foes:
                        if abs(f.z - b.z) <= self.er_v + TOL and self.gap(f, b) <= half + TOL:
                            out[a.id].add(b.unit)
                else:
                    # base contact with a friend in base contact with an enemy model
                    if not self.in_contact(a, f):
                        continue
                    for b in foes:
                        if self.in_contact(f, b):
                            out[a.id].add(b.unit)
        return {k: sorted(v) for k, v in out.items()}



__all__ = ["ACROSS_REACH", "CHAIN_9", "Link", "Melee", "closest_points"]
