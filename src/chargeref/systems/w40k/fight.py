"""The 40k fight phase: who may fight whom, pile in, consolidate, and the WTC walls
tokens (seed 000, "fighting through walls", steps 6 to 10).

(Over 800 lines on purpose, for now: its own pile-in search, ``_Mover``, is to be replaced
by the charge's placement search (issue 9, "one engine for every move"); splitting it
before that would move the same code twice. It already builds its spots with
geometry/placement.py.)

What this module rules on
-------------------------
* **Who fights** (:func:`who_fights`). A model may attack an enemy unit when it is
  within engagement range of one of its models (1" horizontally, 5" vertically), or
  through the edition's chain: edition 9, within 1/2" of a friendly model that is itself
  within 1/2" of an enemy model; edition 10, in base contact with a friendly model that
  is in base contact with an enemy model. Two more links count as engagement:

  - **token links** (WTC walls rule): a model carrying a token and a model of one of the
    units its unit charged (``token_targets``) are engaged when they are within 2"
    horizontally and 5" vertically and a ruin wall stands between them (the segment
    joining their closest points crosses the interior of a ruin wall). Nobody else gets
    the 2" reach: not the token model against other units, not the charged unit's
    models against models without a token, not a third unit standing as close;
  - **barricade links** (barricades and fuel pipes): enemy models on opposite sides of
    a ``barricade`` feature within 2" of each other may fight each other.

  A unit is *in combat* when some link of any kind joins it to an enemy; it *may fight*
  when it is in combat or charged this turn (flag ``charged``).

* **Pile in / consolidate** (:func:`pile_in`, :func:`consolidate`). Each model may move
  up to 3". A model that moves must end closer to the enemy model that was closest to it
  when the move began (rules notes 1.11; ties: closer to any of the equally closest),
  the unit ends coherent, nothing ends overlapping a model or a terrain piece no base
  may stand in, and paths respect terrain as in ``world.py``. Edition 10 adds: a model
  ends in base contact with an enemy where it can, and the unit's move is only made if
  the unit then stands engaged with an enemy (normal, token or barricade link).
  The default plan moves every model as far in as it can: base contact first, then
  engagement range, then as close as it gets to its closest enemy, each move keeping
  the unit coherent. ``keep`` names models the player holds still.

* **Tokens in the fight phase.** A token model that can pile in to a normal legal
  position (within 1" of an enemy model, at a spot a legal pile-in move reaches with
  the unit coherent) must either do so, losing its token, or stay and drop the token
  (``keep``). A token model that cannot reach such a spot stays by the wall, keeps its
  token and counts as having piled in. Tokens may not be dropped so that the unit
  leaves combat (the last one, unless a model of the unit ends in normal engagement
  range); the player's ``keep`` is then overridden and that model piles in. Whether a
  token model can reach a normal legal position decides its duty, so its candidate
  spots include the ends of every reachable arc of the enemy loci (constructed by
  geometry/placement.py, no angular grid). When consolidating, a token model that moves
  must take a normal legal position if it can (its token goes); one held still keeps
  its token. Tokens persist in ``after`` across phases and turns.

* **Token bookkeeping** (:func:`refresh_tokens`). A token is removed as soon as its
  model stands within normal engagement range of an enemy model; all of a unit's
  tokens go when the unit is out of combat (no link of any kind) or when none of the
  units it charged is left; when a unit's last token goes its ``token_targets`` are
  cleared, which ends the 2" relationship for everyone. **Callers that move models
  must apply it to the resulting scenario**: after a charge, a heroic intervention or
  any other move (seed 000, step 10: a heroic intervention that brings the token models
  within 1" ends the tokens). The functions of this module apply it to their input
  themselves, so feeding them an unrefreshed ``after`` is safe.

Everything is exact where a verdict depends on it: footprint distances come from
``sd_many`` (closed forms for discs, the support-function solve for ellipses), and the
"wall between them" test intersects the closest-point segment with the wall polygons.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from scipy.optimize import minimize_scalar

from ... import budget
from ...errors import Problem, RequestError
from ...geometry.paths import CostField, Planner, path_cost
from ...geometry.placement import (
    arrangement_points,
    locus_nearest,
    nearest_spots,
    pair_crossings,
    reach_crossings,
)
from ...geometry.shapes import TOL, Convex, ConvexPolygon, Disc, Ellipse, Footprint
from ...ruling import Move, Reason, Ruling
from ...scenario import Scenario40k, scenario_from_data, scenario_to_data
from ..base import require_unit
from .solver import StraightLines, coherency_adjacency, offset_spots, sd_many
from .world import Model, World, build_world

#: Pile-in and consolidation move, in inches.
FIGHT_MOVE = 3.0
#: WTC walls tokens and barricades: engagement reach across the feature, in inches.
ACROSS_REACH = 2.0
#: Edition 9 chain: a model within this of a friend within this of an enemy may fight.
CHAIN_9 = 0.5
#: Our spots sit at most this far on the generous side of a threshold (inside TOL).
EPS = 1e-7
#: "Ends closer" must gain more than this (beyond the contract tolerance).
CLOSER_MARGIN = 2e-6
#: Constructed spots sit this far on the generous side of the gap they are built at.
HAIR = 1e-9

STEPS = ("pile_in", "consolidate")


def _r6(x: float) -> float:
    return round(float(x), 6)


def _pt(p: np.ndarray) -> tuple[float, float]:
    return (float(p[0]), float(p[1]))


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
    for ellipses the support-function dual, maximised to below 1e-12 rad)."""
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

    # sd(p, q) = max_u (-h_q(-u) - h_p(u)); at the best u the closest points are the
    # support points of p along u and of q along -u.
    def f(t: float) -> float:
        u = np.array([[math.cos(t), math.sin(t)]])
        return float(q.h(-u)[0] + p.h(u)[0])

    grid = np.linspace(0.0, 2.0 * math.pi, 720, endpoint=False)
    U = np.stack([np.cos(grid), np.sin(grid)], axis=-1)
    vals = q.h(-U) + p.h(U)
    i = int(np.argmin(vals))
    step = 2.0 * math.pi / 720
    res = minimize_scalar(f, bounds=(grid[i] - step, grid[i] + step), method="bounded", options={"xatol": 1e-12})
    u = np.array([[math.cos(float(res.x)), math.sin(float(res.x))]])
    pa, pb = p.support(u)[0], q.support(-u)[0]
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


# =============================================================================== tokens


def _as_scenario(x: Scenario40k | World | dict[str, Any]) -> Scenario40k:
    if isinstance(x, World):
        return x.scen
    if isinstance(x, dict):
        s = scenario_from_data(x)
        if not isinstance(s, Scenario40k):
            raise RequestError(Problem("system", "the fight phase is a 40k rule"))
        return s
    return x


def token_refresh(scen: Scenario40k | World | dict[str, Any]) -> tuple[dict[str, Any], list[Reason]]:
    """:func:`refresh_tokens` with the reasons for every token it removed."""
    s = _as_scenario(scen)
    data = scenario_to_data(s)
    reasons: list[Reason] = []
    for _ in range(len(s.units) + 2):
        world = build_world(scenario_from_data(data))  # type: ignore[arg-type]
        mel = Melee(world)
        changed = False
        for u in data["units"]:
            tok_models = [m for m in u["models"] if m.get("token")]
            targets = list(u.get("token_targets", []))
            if not tok_models and not targets:
                continue
            alive = [t for t in targets if world.unit_models.get(t)]
            if alive != targets:
                gone = sorted(set(targets) - set(alive))
                reasons.append(Reason(code="token_target_gone", message=f"{', '.join(gone)} no longer on the table: dropped from {u['id']}'s token targets"))
                u["token_targets"] = targets = alive
                changed = True
            drop: list[str] = []
            foes = mel.enemies(u["id"])
            # A token stays until its model stands within normal engagement range (or in
            # base contact) of an enemy model (seed 000, step 8 and the fight text).
            for m in tok_models:
                me = world.by_id.get(m["id"])
                if me is not None and any(mel.in_er(me, b) for b in foes):
                    drop.append(m["id"])
            if drop:
                reasons.append(Reason(code="token_removed_legal", message=f"{', '.join(drop)} stand(s) within normal engagement range of an enemy: token removed", models=drop))
            left = [m for m in tok_models if m["id"] not in drop]
            why = None
            if left and not targets:
                why = ("token_without_targets", f"{u['id']} has tokens but no charged units to fight through a wall: tokens removed")
            elif left:
                # A unit out of combat loses its tokens (seed 000: "or their unit is out of combat").
                mine = world.unit_models[u["id"]]
                linked = any(mel.token_link(a, b) for a in mine if a.id in {m["id"] for m in left} for b in foes)
                if not linked and not mel.normal_er(u["id"]) and not any(mel.barricade_link(a, b) for a in mine for b in foes):
                    why = ("token_out_of_combat", f"{u['id']} is out of combat: its tokens are removed")
            if why is not None:
                reasons.append(Reason(code=why[0], message=why[1], models=[m["id"] for m in left]))
                drop += [m["id"] for m in left]
                left = []
            for m in u["models"]:
                if m["id"] in drop:
                    m["token"] = False
                    changed = True
            if not left and targets:
                # The last token is gone: the 2" relationship ends for everyone (step 10).
                reasons.append(Reason(code="tokens_ended", message=f"{u['id']} has no token left: fighting through walls with {', '.join(targets)} ends", models=[]))
                u["token_targets"] = []
                changed = True
        if not changed:
            break
    for u in data["units"]:
        for m in u["models"]:
            if not m.get("token"):
                m.pop("token", None)
        if not u.get("token_targets"):
            u.pop("token_targets", None)
    return data, reasons


def refresh_tokens(scen: Scenario40k | World | dict[str, Any]) -> dict[str, Any]:
    """The scenario (as data) with every token that no longer applies removed.

    Apply it after any move (charge, heroic intervention, pile in, consolidation): a
    token goes when its model is within normal engagement range of an enemy model; all
    of a unit's tokens go when the unit is out of combat or none of its charged units
    is left; with the last token the unit's ``token_targets`` are cleared.
    Idempotent."""
    return token_refresh(scen)[0]


def _refreshed(scen: Scenario40k | World | dict[str, Any]) -> tuple[Scenario40k, list[Reason]]:
    data, reasons = token_refresh(scen)
    s = scenario_from_data(data)
    assert isinstance(s, Scenario40k)
    return s, reasons


def who_fights(world_or_scen: Scenario40k | World | dict[str, Any], unit: str) -> dict[str, Any]:
    """Which models of ``unit`` may attack which enemy units, and why.

    Returns ``{"unit", "edition", "in_combat", "may_fight", "engaged", "attacks",
    "links", "tokens", "token_targets", "token_partners", "reasons"}``: ``attacks``
    maps every model to the enemy units it may attack; ``links`` lists the pairs (kind
    ``er``, ``token`` or ``barricade``); ``tokens`` the unit's token models;
    ``token_partners`` the enemy units whose tokens reach this unit. Tokens that no
    longer apply are removed first (:func:`refresh_tokens`); ``reasons`` says which."""
    scen, reasons = _refreshed(world_or_scen)
    require_unit(scen, unit, "unit")
    world = build_world(scen)
    mel = Melee(world)
    links = mel.links(unit)
    engaged = sorted({lk.unit for lk in links})
    u = mel.units[unit]
    partners = sorted(
        v.id for v in scen.units if unit in v.token_targets and any(m.token for m in v.models) and v.player != u.player
    )
    return {
        "unit": unit,
        "edition": world.rules.edition,
        "in_combat": bool(links),
        "may_fight": bool(links) or "charged" in u.flags,
        "engaged": engaged,
        "attacks": mel.attacks(unit, links),
        "links": [lk.data() for lk in links],
        "tokens": sorted(m.id for m in u.models if m.token),
        "token_targets": list(u.token_targets),
        "token_partners": partners,
        "reasons": [r.model_dump() for r in reasons],
    }


def engaged_units(scen: Scenario40k | World | dict[str, Any], unit: str) -> list[str]:
    """Enemy units within engagement range of ``unit`` for any purpose (charge-phase
    effects included, seed 000 Example 5): normal engagement range, token links across
    a ruin wall, and barricade links."""
    s, _ = _refreshed(scen)
    require_unit(s, unit, "unit")
    return Melee(build_world(s)).engaged_units(unit)


# =============================================================================== moving


@dataclass
class _Opts:
    """Where one model may end its move, ranked best first."""

    pts: np.ndarray
    z: np.ndarray
    cost: np.ndarray
    contact: np.ndarray
    er: np.ndarray
    gap: np.ndarray  # distance to the closest-at-start enemy model(s)

    def __len__(self) -> int:
        return len(self.pts)

    def take(self, mask: np.ndarray) -> _Opts:
        return _Opts(self.pts[mask], self.z[mask], self.cost[mask], self.contact[mask], self.er[mask], self.gap[mask])


@dataclass
class _Plan:
    pos: dict[str, np.ndarray]
    z: dict[str, float]
    cost: dict[str, float]
    moved: set[str] = field(default_factory=set)


class _Mover:
    """Pile-in / consolidation moves of one unit, with exact candidate spots."""

    def __init__(self, world: World, unit: str, dense: Iterable[str] = ()):
        self.w = world
        self.dense = set(dense)  # models whose options are searched densely
        r = world.rules
        self.unit = unit
        self.models = list(world.unit_models[unit])
        self.by_id = {m.id: m for m in self.models}
        p = world.unit_player[unit]
        self.enemies = [m for m in world.models if m.player != p]
        self.others = [m for m in world.models if m.unit != unit]
        self.blockers = world.end_blockers()
        self.barriers = world.barriers_for(unit)
        self.planner = Planner(self.barriers, world.board)
        self.straight = StraightLines(self.barriers)
        self.budget = FIGHT_MOVE * r.inch
        self.er = r.er
        self.er_v = r.er_v
        self.two = r.needs_two(len(self.models))
        self._fields: dict[str, CostField] = {}
        # the enemy model(s) closest to each model when the move begins
        self.d0: dict[str, float] = {}
        self.closest: dict[str, list[Model]] = {}
        for m in self.models:
            ds = [self._dist3(m, m.xy[None], m.z, e)[0] for e in self.enemies]
            if not ds:
                self.d0[m.id] = math.inf
                self.closest[m.id] = []
                continue
            d0 = min(ds)
            self.d0[m.id] = d0
            self.closest[m.id] = [e for e, d in zip(self.enemies, ds, strict=True) if d <= d0 + TOL]
        self._base_opts: dict[str, _Opts] = {}

    # ---------------------------------------------------------------- measures
    @staticmethod
    def _dist3(m: Model, pts: np.ndarray, z: float | np.ndarray, e: Model) -> np.ndarray:
        """Distance between the base at each point (height z) and enemy model e."""
        h = np.maximum(sd_many(m.fp, pts, e.fp), 0.0)
        return np.hypot(h, np.asarray(z, dtype=float) - e.z)

    def elevated(self, m: Model) -> bool:
        return abs(m.z - float(self.w.ground_z(m.xy)[0])) > 1e-9

    def field(self, m: Model) -> CostField:
        f = self._fields.get(m.id)
        if f is None:
            f = self.planner.field(m.fp, budget=self.budget + 1e-9)
            self._fields[m.id] = f
        return f

    # ---------------------------------------------------------------- spots
    def _near_enemies(self, m: Model) -> list[Model]:
        reach = self.budget + self.er + 2.0 * m.fp.radius
        return [e for e in self.enemies if float(np.linalg.norm(e.xy - m.xy)) - e.fp.radius - m.fp.radius <= reach]

    def _raw_spots(self, m: Model) -> np.ndarray:
        """Constructed candidate centres (geometry/placement.py): round every enemy
        model within reach, the base-contact and engagement-edge spots nearest the
        start, where those loci cross the full move's circle round the start, the
        spots packed between two enemy bases or against terrain no base may end on;
        and the straight approach toward the closest enemy model(s)."""
        budget.check()
        gaps = [HAIR, self.er - HAIR]
        near = self._near_enemies(m)
        fps = [e.fp for e in near]
        out: list[np.ndarray] = [m.xy[None]]
        out.append(nearest_spots(m.fp, fps, gaps, m.xy[None]))
        out.append(reach_crossings(m.fp, fps, gaps, m.xy, self.budget - HAIR))
        walls = [f.fp for f in self.blockers if float(np.linalg.norm(f.fp.center - m.xy)) <= f.fp.radius + self.budget + 2 * m.fp.radius]
        pf = self._few(m, fps)
        out.append(pair_crossings(m.fp, pf, gaps, pf, [HAIR]))
        out.append(pair_crossings(m.fp, pf, gaps, self._few(m, walls), [HAIR]))
        for e in self.closest[m.id]:
            contact = locus_nearest(m.fp, e.fp, HAIR, m.xy)
            if len(contact) == 0:
                continue
            w = contact[0] - m.xy
            L = float(np.linalg.norm(w))
            if L > 0:
                ts = np.linspace(0.05, 1.0, 20)
                out.append(m.xy + np.outer(ts, w))
                if L > self.budget:
                    out.append(m.xy + w * ((self.budget - HAIR) / L))
        return np.vstack([x.reshape(-1, 2) for x in out])

    @staticmethod
    def _few(m: Model, fps: list[Footprint]) -> list[Footprint]:
        """All footprints when the crossings have closed forms (round mover, round or
        polygonal others); otherwise (ovals: the root finder) the three nearest."""
        if m.fp.is_disc and all(f.is_disc or (len(f.parts) == 1 and not isinstance(f.parts[0], Ellipse)) for f in fps):
            return fps
        return sorted(fps, key=lambda f: float(np.linalg.norm(f.center - m.xy)))[:3]

    def _link_spots(self, m: Model, plan: _Plan) -> np.ndarray:
        """Constructed spots that link to the unit's other models where they stand:
        their coherency and packing loci crossed with the enemy loci and with each
        other (two links), and the linking spot nearest the start."""
        budget.check()
        coh = self.w.rules.coh - HAIR
        mates = []
        for q in self.models:
            if q.id == m.id:
                continue
            if float(np.linalg.norm(plan.pos[q.id] - m.xy)) > self.budget + coh + m.fp.radius + q.fp.radius:
                continue
            mates.append(q.fp.moved_to(_pt(plan.pos[q.id])))
        if not mates:
            return np.zeros((0, 2))
        near = self._near_enemies(m)
        fps = [e.fp for e in near]
        if not (m.fp.is_disc and all(f.is_disc for f in fps + mates)):
            # shapes that need the root finder: this runs for every model on every pass
            # of the search, so only the linking spot nearest the start and, as
            # heuristic extras (legality is checked spot by spot; no verdict rests on
            # them), spots round each mate along 12 normals
            U = np.array([[math.cos(a), math.sin(a)] for a in np.arange(12) * (math.pi / 6)])
            extra = [offset_spots(m.fp, q, g, U) for q in mates for g in (HAIR, coh)]
            return np.vstack([nearest_spots(m.fp, mates, [coh], m.xy[None]), *extra])
        out = [
            pair_crossings(m.fp, mates, [coh, HAIR], fps, [HAIR, self.er - HAIR]),
            pair_crossings(m.fp, mates, [coh, HAIR], mates, [coh, HAIR]),
            nearest_spots(m.fp, mates, [coh], m.xy[None]),
        ]
        if m.id in self.dense and m.fp.is_disc and all(f.is_disc for f in fps + mates):
            out.append(self._arrangement(m, near, mates))
        return np.vstack([x.reshape(-1, 2) for x in out])

    def _arrangement(self, m: Model, near: list[Model], mates: list[Footprint]) -> np.ndarray:
        """Round bases only: every circle that bounds where the model may end (enemy
        contact and engagement edges, other bases, the full move round the start, the
        "ends closer" limit round the closest enemy models, coherency with the mates
        where they stand) and the vertices of their arrangement (geometry/placement.py):
        if any spot satisfies them all, one of these does."""
        rm = m.fp.radius
        coh = self.w.rules.coh - HAIR
        C: list[np.ndarray] = [m.xy]
        R: list[float] = [self.budget - HAIR]
        for e in near:
            C += [e.xy, e.xy]
            R += [rm + e.fp.radius + HAIR, rm + e.fp.radius + self.er - HAIR]
        for e in self.closest[m.id]:
            C.append(e.xy)
            R.append(rm + e.fp.radius + self.d0[m.id] - 2 * CLOSER_MARGIN)
        for o in self.others:
            if o.fp.is_disc and float(np.linalg.norm(o.xy - m.xy)) <= self.budget + o.fp.radius + rm:
                C.append(o.xy)
                R.append(rm + o.fp.radius + HAIR)
        for q in mates:
            C += [q.center, q.center]
            R += [rm + q.radius + coh, rm + q.radius + HAIR]
        return arrangement_points(np.array(C), np.array(R), m.xy[None])

    def _fits(self, m: Model, pts: np.ndarray, z: np.ndarray) -> np.ndarray:
        """On the board, out of terrain no base may end in, and overlapping no model of
        another unit at the same level."""
        w = self.w
        ok = np.ones(len(pts), dtype=bool)
        for part in m.fp.parts:
            off = part.support(np.array([[1.0, 0], [-1.0, 0], [0, 1.0], [0, -1.0]])) - m.xy
            ok &= (pts[:, 0] + off[0, 0] <= w.board[0] + EPS) & (pts[:, 0] + off[1, 0] >= -EPS)
            ok &= (pts[:, 1] + off[2, 1] <= w.board[1] + EPS) & (pts[:, 1] + off[3, 1] >= -EPS)
        for f in self.blockers:
            idx = np.nonzero(ok)[0]
            if len(idx) == 0:
                break
            near = np.linalg.norm(pts[idx] - f.fp.center, axis=1) <= f.fp.radius + m.fp.radius + 1e-9
            if near.any():
                sub = idx[near]
                ok[sub] &= sd_many(m.fp, pts[sub], f.fp) >= -EPS
        for o in self.others:
            idx = np.nonzero(ok)[0]
            if len(idx) == 0:
                break
            near = (np.linalg.norm(pts[idx] - o.xy, axis=1) <= o.fp.radius + m.fp.radius + 1e-9) & (np.abs(z[idx] - o.z) <= 1e-9)
            if near.any():
                sub = idx[near]
                ok[sub] &= sd_many(m.fp, pts[sub], o.fp) >= -EPS
        return ok

    def _costs(self, m: Model, pts: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Path cost from the model's start (length, climbing, vertical change)."""
        d = np.linalg.norm(pts - m.xy, axis=1)
        cost = np.full(len(pts), np.inf)
        cand = d <= self.budget + EPS
        if not cand.any():
            return cost
        idx = np.nonzero(cand)[0]
        clear = self.straight.clear(m.xy, m.fp.radius, pts[idx])
        cost[idx[clear]] = d[idx[clear]]
        rest = idx[~clear]
        if len(rest):
            cost[rest] = self.field(m).cost(pts[rest])
        cost += np.array([self.w.vertical_cost(m.z, float(zz)) for zz in z])
        cost[d <= 1e-12] = 0.0
        return cost

    def evaluate(self, m: Model, pts: np.ndarray) -> _Opts:
        """Usable end spots among ``pts``: reachable within 3", fitting, and (for a
        real move) ending closer to the enemy model that was closest at the start."""
        if len(pts) == 0 or not self.enemies or self.elevated(m):
            none = np.zeros(0)
            return _Opts(np.zeros((0, 2)), none, none, none.astype(bool), none.astype(bool), none)
        pts = pts[np.linalg.norm(pts - m.xy, axis=1) <= self.budget + EPS]
        z = self.w.ground_z(pts) if len(pts) else np.zeros(0)
        ok = self._fits(m, pts, z) if len(pts) else np.zeros(0, dtype=bool)
        ok |= np.linalg.norm(pts - m.xy, axis=1) <= 1e-12  # where it stands is always a place to be
        pts, z = pts[ok], z[ok]
        gap = np.full(len(pts), np.inf)
        for e in self.closest[m.id]:
            gap = np.minimum(gap, self._dist3(m, pts, z, e))
        # A model that moves must end closer to the closest enemy model (rules 1.11).
        moved = np.linalg.norm(pts - m.xy, axis=1) > 1e-12
        keep = ~moved | (gap < self.d0[m.id] - CLOSER_MARGIN)
        pts, z, gap = pts[keep], z[keep], gap[keep]
        cost = self._costs(m, pts, z)
        keep = cost <= self.budget + EPS
        pts, z, gap, cost = pts[keep], z[keep], gap[keep], cost[keep]
        contact = np.zeros(len(pts), dtype=bool)
        er = np.zeros(len(pts), dtype=bool)
        for e in self.enemies:
            if len(pts) == 0:
                break
            near = np.linalg.norm(pts - e.xy, axis=1) <= e.fp.radius + m.fp.radius + self.er + 1e-9
            if not near.any():
                continue
            sd = np.full(len(pts), np.inf)
            sd[near] = sd_many(m.fp, pts[near], e.fp)
            dz = np.abs(z - e.z)
            contact |= (sd <= EPS) & (dz <= 1e-9)
            er |= (sd <= self.er + EPS) & (dz <= self.er_v)
        return _Opts(pts, z, cost, contact, er, gap)

    def _dense_spots(self, m: Model) -> np.ndarray:
        """Extra candidates for a token model, whose duty to pile in depends on whether
        any normal legal position is in reach: besides the spots of ``_raw_spots``, the
        ends of every reachable arc of each enemy's engagement edge and contact locus
        (crossings with the move's circle, with other bases and with terrain), so an
        existing reachable position is found whenever the region within reach is not
        cut off by paths longer than the straight line."""
        gaps = [HAIR, self.er - HAIR]
        fps = [e.fp for e in self._near_enemies(m)]
        others = [o.fp for o in self.others if float(np.linalg.norm(o.xy - m.xy)) <= self.budget + self.er + 4 * m.fp.radius]
        out = [
            pair_crossings(m.fp, self._few(m, fps), gaps, self._few(m, others), [HAIR]),
            reach_crossings(m.fp, fps, gaps, m.xy, self.budget - HAIR),
        ]
        return np.vstack([x.reshape(-1, 2) for x in out])

    def options(self, m: Model) -> _Opts:
        o = self._base_opts.get(m.id)
        if o is None:
            pts = self._raw_spots(m)
            if m.id in self.dense:
                pts = np.vstack([pts, self._dense_spots(m)])
            o = self.evaluate(m, pts)
            self._base_opts[m.id] = o
        return o

    def legal_spots(self, m: Model) -> _Opts:
        """Normal legal positions a move can reach: within 1" of an enemy model."""
        o = self.options(m)
        return o.take(o.er & (np.linalg.norm(o.pts - m.xy, axis=1) > 1e-12))

    # ---------------------------------------------------------------- the unit
    def _mates_graph(self, q: str | None, plan: _Plan) -> tuple[list[Model], np.ndarray]:
        """The unit's models other than ``q`` and their coherency adjacency."""
        ms = [m for m in self.models if m.id != q]
        adj = coherency_adjacency(ms, plan.pos, plan.z, self.w.rules, slack=TOL)
        return ms, adj

    @staticmethod
    def _labels(adj: np.ndarray) -> tuple[np.ndarray, int]:
        n = len(adj)
        lab = np.full(n, -1)
        c = 0
        for s in range(n):
            if lab[s] >= 0:
                continue
            lab[s] = c
            frontier = np.zeros(n, dtype=bool)
            frontier[s] = True
            while frontier.any():
                nxt = adj[frontier].any(axis=0) & (lab < 0)
                lab[nxt] = c
                frontier = nxt
            c += 1
        return lab, c

    def incoherence(self, plan: _Plan) -> int:
        """1000 x (groups - 1) + models lacking neighbours: 0 is coherent."""
        if len(self.models) <= 1:
            return 0
        _, adj = self._mates_graph(None, plan)
        _, groups = self._labels(adj)
        need = 2 if self.two else 1
        return 1000 * (groups - 1) + int(np.sum(adj.sum(axis=1) < need))

    def spot_scores(self, m: Model, pts: np.ndarray, z: np.ndarray, plan: _Plan) -> tuple[np.ndarray, np.ndarray]:
        """For model m at each spot (its mates where the plan has them): the unit's
        incoherence, and whether the spot overlaps a mate at the same level."""
        k = len(pts)
        if len(self.models) <= 1 or k == 0:
            return np.zeros(k, dtype=int), np.zeros(k, dtype=bool)
        r = self.w.rules
        mates, adj = self._mates_graph(m.id, plan)
        sd = np.empty((k, len(mates)))
        for j, q in enumerate(mates):
            sd[:, j] = sd_many(m.fp, pts, q.fp.moved_to(_pt(plan.pos[q.id])))
        dz = np.abs(z[:, None] - np.array([plan.z[q.id] for q in mates])[None, :])
        row = (sd <= r.coh + TOL) & (dz <= r.coh_v + TOL)
        overlap = np.any((sd < -EPS) & (dz <= 1e-9), axis=1)
        lab, C = self._labels(adj)
        touched = np.zeros((k, C), dtype=bool)
        for c in range(C):
            touched[:, c] = row[:, lab == c].any(axis=1)
        cnt = touched.sum(axis=1)
        groups = np.where(cnt == 0, C + 1, C - cnt + 1)
        need = 2 if self.two else 1
        lacking = np.sum((adj.sum(axis=1)[None, :] + row) < need, axis=1) + (row.sum(axis=1) < need)
        return 1000 * (groups - 1) + lacking, overlap

    @staticmethod
    def _rank(o: _Opts, must_legal: bool) -> np.ndarray:
        """Indices of the options, best first: base contact, then engagement range,
        then closest to the closest enemy model, then the shortest move."""
        idx = np.arange(len(o.pts))
        if must_legal:
            idx = idx[o.er]
        keys = (o.cost[idx], o.gap[idx], ~o.er[idx], ~o.contact[idx])
        return idx[np.lexsort(keys)]

    @staticmethod
    def _key(o: _Opts, i: int) -> tuple[bool, bool, float]:
        return (bool(o.contact[i]), bool(o.er[i]), float(o.gap[i]))

    @staticmethod
    def _improves(o: _Opts, cur: tuple[bool, bool, float] | None) -> np.ndarray:
        """Which options beat the current spot (None: every option does)?"""
        if cur is None:
            return np.ones(len(o.pts), dtype=bool)
        c, e, g = cur
        better = (o.contact & (not c)) | ((o.contact == c) & o.er & (not e))
        same = (o.contact == c) & (o.er == e)
        return better | (same & (o.gap < g - CLOSER_MARGIN))

    def start_plan(self) -> _Plan:
        return _Plan({m.id: m.xy.copy() for m in self.models}, {m.id: m.z for m in self.models}, {m.id: 0.0 for m in self.models})

    def could_join(self, m: Model, plan: _Plan) -> bool:
        """Could m (where it starts) move to a normal legal position with the rest of
        the unit where the plan has it, the unit no less coherent?"""
        o = self.legal_spots(m)
        if not len(o):
            return False
        base = self.incoherence(plan)
        score, overlap = self.spot_scores(m, o.pts, o.z, plan)
        return bool(np.any((score <= base) & ~overlap))

    def _with_links(self, m: Model, plan: _Plan) -> _Opts:
        o = self.options(m)
        extra = self.evaluate(m, self._link_spots(m, plan))
        if len(extra.pts):
            o = _Opts(*(np.concatenate([getattr(o, f), getattr(extra, f)]) for f in ("pts", "z", "cost", "contact", "er", "gap")))
        return o

    def _set(self, plan: _Plan, m: Model, o: _Opts, i: int) -> None:
        plan.pos[m.id], plan.z[m.id], plan.cost[m.id] = o.pts[i].copy(), float(o.z[i]), float(o.cost[i])
        if float(np.linalg.norm(o.pts[i] - m.xy)) > 1e-12:
            plan.moved.add(m.id)
        else:
            plan.moved.discard(m.id)

    def place(self, movers: list[str], must: set[str], passes: int = 4) -> _Plan:
        """Move the listed models, each to its best spot, keeping the unit as coherent
        as it was (coherent when it started so). ``must``: models that may only end in
        a normal legal position (or stay where they are). Every move is measured from
        the model's start.

        1. Improvement passes: each model in turn takes its best spot that keeps the
           unit coherent; several passes let models follow one another.
        2. A ``must`` model that found no such spot is tried at each of its legal spots
           with the other movers re-placed to restore coherency (escorts, seed 000
           Example 1A-G); each escort move is itself a legal pile-in move.
        3. Improvement passes again."""
        plan = self.start_plan()
        cur: dict[str, tuple[bool, bool, float] | None] = {}
        for mid in movers:
            m = self.by_id[mid]
            o = self.options(m)
            here = np.nonzero(np.linalg.norm(o.pts - m.xy, axis=1) <= 1e-12)[0]
            # staying is the start; for ``must`` anything legal beats it
            cur[mid] = None if (mid in must or len(here) == 0) else self._key(o, int(here[0]))
        base = self.incoherence(plan)
        order = sorted(movers, key=lambda i: (i not in must, self.d0[i], i))
        self._improve(plan, order, must, cur, base, passes)
        for mid in order:
            if mid in must and mid not in plan.moved:
                self._escort(plan, mid, [q for q in order if q not in must], base, cur)
        self._improve(plan, order, must, cur, base, passes)
        if self.incoherence(plan) > 0:
            # a unit that starts out of coherency must end in it: legal moves that mend it
            self._repair(plan, order, must, cur)
            self._improve(plan, order, must, cur, self.incoherence(plan), passes)
        return plan

    def _repair(self, plan: _Plan, movers: list[str], must: set[str], cur: dict[str, tuple[bool, bool, float] | None]) -> None:
        """Greedy: the legal move (a legal spot for ``must`` models) that most reduces
        the unit's incoherence, again and again while it helps."""
        inc = self.incoherence(plan)
        for _ in range(2 * len(movers) + 2):
            if inc == 0:
                return
            best = self._best_next(movers, plan, inc, must)
            if best is None:
                return
            _, q, oq, j = best
            self._set(plan, self.by_id[q], oq, j)
            cur[q] = self._key(oq, j)
            inc = best[0][0]

    def _best_next(self, movers, plan: _Plan, inc: float, must: set[str]):  # noqa: ANN001, ANN202
        """Among ``movers``, the (rank, model id, options, spot index) of the best next
        move that lowers the plan's score below ``inc``, or None. Models in ``must``
        may only take a spot in engagement range or stay where they are."""
        best: tuple[tuple[int, int, int, float], str, _Opts, int] | None = None
        for q in movers:
            mq = self.by_id[q]
            oq = self._with_links(mq, plan)
            if q in must:
                oq = oq.take(oq.er | (np.linalg.norm(oq.pts - mq.xy, axis=1) <= 1e-12))
            if len(oq) == 0:
                continue
            score, ov = self.spot_scores(mq, oq.pts, oq.z, plan)
            score = np.where(ov, np.iinfo(np.int64).max, score)
            j = int(np.lexsort((oq.gap, ~oq.er, ~oq.contact, score))[0])
            rank = (int(score[j]), int(not oq.contact[j]), int(not oq.er[j]), float(oq.gap[j]))
            if score[j] < inc and (best is None or rank < best[0]):
                best = (rank, q, oq, j)
        return best

    def _improve(self, plan: _Plan, order: list[str], must: set[str], cur: dict[str, tuple[bool, bool, float] | None],
                 base: int, passes: int) -> None:
        for _ in range(passes):
            changed = False
            for mid in order:
                m = self.by_id[mid]
                c = cur[mid]
                if c is not None and c[0]:
                    continue  # in base contact: it cannot do better
                o = self._with_links(m, plan)
                ok = self._improves(o, c) & (np.linalg.norm(o.pts - m.xy, axis=1) > 1e-12)
                if mid in must:
                    ok &= o.er
                if not ok.any():
                    continue
                o = o.take(ok)
                score, overlap = self.spot_scores(m, o.pts, o.z, plan)
                fine = (score <= base) & ~overlap
                for i in self._rank(o, False):
                    if fine[i]:
                        self._set(plan, m, o, int(i))
                        cur[mid] = self._key(o, int(i))
                        changed = True
                        break
            if not changed:
                break

    def _escort(self, plan: _Plan, mid: str, escorts: list[str], base: int,
                cur: dict[str, tuple[bool, bool, float] | None], tries: int = 24) -> bool:
        """Put ``mid`` at one of its legal spots and re-place escorts, one greedy step
        at a time, until the unit is as coherent as it started."""
        m = self.by_id[mid]
        o = self.options(m)
        moving = np.linalg.norm(o.pts - m.xy, axis=1) > 1e-12
        ranked = [int(i) for i in self._rank(o, True) if moving[i]][:tries]
        if not ranked:
            return False
        _, overlap = self.spot_scores(m, o.pts[ranked], o.z[ranked], plan)
        for i, bad in zip(ranked, overlap, strict=True):
            if bad:
                continue
            trial = _Plan(dict(plan.pos), dict(plan.z), dict(plan.cost), set(plan.moved))
            self._set(trial, m, o, i)
            keys: dict[str, tuple[bool, bool, float] | None] = {mid: self._key(o, i)}
            inc = self.incoherence(trial)
            for _ in range(2 * len(escorts) + 2):
                if inc <= base:
                    break
                best = self._best_next(escorts, trial, inc, set())
                if best is None:
                    break
                _, q, oq, j = best
                self._set(trial, self.by_id[q], oq, j)
                keys[q] = self._key(oq, j)
                inc = best[0][0]
            if inc <= base:
                plan.pos, plan.z, plan.cost, plan.moved = trial.pos, trial.z, trial.cost, trial.moved
                cur.update(keys)
                return True
        return False

    def path(self, m: Model, goal: np.ndarray) -> list[list[float]]:
        g = np.asarray(goal, dtype=float)
        if m.fp.is_disc and self.straight.clear(m.xy, m.fp.radius, g[None])[0]:
            pts: Iterable[tuple[float, float]] = ((float(m.xy[0]), float(m.xy[1])), (float(g[0]), float(g[1])))
        else:
            pr = self.field(m).path((float(g[0]), float(g[1])))
            pts = pr.points if pr is not None else ((float(m.xy[0]), float(m.xy[1])), (float(g[0]), float(g[1])))
        return [[_r6(x), _r6(y)] for x, y in pts]

    def final_path(self, m: Model, goal: np.ndarray, z: float) -> tuple[list[list[float]], float]:
        """The move's path as published (coordinates rounded to 1e-6) and its cost,
        measured on the rounded points. Rounding can lengthen a path that uses the
        whole 3"; then the end is pulled back along the last leg to fit."""
        path = self.path(m, goal)

        def cost_of(pts: list[list[float]]) -> float:
            length, climb, _ = path_cost(m.fp, pts, self.barriers)
            return length + climb + self.w.vertical_cost(m.z, z)

        c = cost_of(path)
        over = c - self.budget
        if over > 5e-7 and len(path) >= 2:
            a, b = np.array(path[-2]), np.array(path[-1])
            leg = float(np.linalg.norm(b - a))
            if leg > over + 2e-6:
                b2 = b + (a - b) * ((over + 2e-6) / leg)
                path = path[:-1] + [[_r6(b2[0]), _r6(b2[1])]]
                c = cost_of(path)
        return path, c


# =============================================================================== rulings


def _check_keep(scen: Scenario40k, unit: str, keep: Iterable[str] | None) -> set[str]:
    ids = {m.id for u in scen.units if u.id == unit for m in u.models}
    out = set(keep or ())
    bad = sorted(out - ids)
    if bad:
        raise RequestError(Problem("--keep-token", f"{', '.join(bad)} is not a model of {unit}"))
    return out


def _fight_move(scen_in: Scenario40k | World | dict[str, Any], unit: str, step: str, keep: Iterable[str] | None) -> Ruling:
    if step not in STEPS:
        raise RequestError(Problem("--step", f"unknown step {step!r}"))
    scen, reasons = _refreshed(scen_in)
    require_unit(scen, unit, "unit")
    hold = _check_keep(scen, unit, keep)
    world = build_world(scen)
    r = world.rules
    mel = Melee(world)
    u = mel.units[unit]
    links = mel.links(unit)
    engaged_before = sorted({lk.unit for lk in links})
    details: dict[str, Any] = {"edition": r.edition, "wtc": r.wtc, "step": step}
    start_data = scenario_to_data(scen)

    def ruling(eligible: bool, success: bool, moves: list[Move], after: dict[str, Any], engaged: list[str]) -> Ruling:
        aw = build_world(scenario_from_data(after))  # type: ignore[arg-type]
        am = Melee(aw)
        alinks = am.links(unit)
        au = am.units[unit]
        details["attacks"] = am.attacks(unit, alinks)
        details["links"] = [lk.data() for lk in alinks]
        details["in_combat"] = bool(alinks)
        details["token_targets"] = list(au.token_targets)
        return Ruling(
            system="40k", charger=unit, targets=engaged_before, eligible=eligible, success=success,
            procedure=step, moves=moves, engaged=engaged, reasons=reasons, details=details, after=after,
        )

    tokens_before = sorted(m.id for m in u.models if m.token)
    details["tokens"] = {"before": tokens_before, "after": tokens_before, "removed": {}}
    # pile in: a unit fights when it is in combat or charged this turn; consolidation
    # follows the fight it was selected for (its foes may be gone by then)
    if step == "pile_in" and not links and "charged" not in u.flags:
        reasons.append(Reason(code="not_in_combat", message=f"{unit} is not in engagement range of any enemy (normal, across a wall with tokens, or across a barricade) and did not charge this turn"))
        return ruling(False, False, [], start_data, [])
    mv = _Mover(world, unit, dense=mel.token)
    if not mv.enemies:
        reasons.append(Reason(code="no_enemies", message="there is no enemy model to move toward"))
        return ruling(True, True, [], start_data, engaged_before)
    for m in mv.models:
        if mv.elevated(m) and m.id not in hold:
            reasons.append(Reason(code="elevated_stays", message=f"{m.id} stands on a ruin floor; the fight-phase planner leaves it where it is", models=[m.id]))
    tok = [m.id for m in mv.models if m.id in mel.token]
    # token models with a normal legal position in reach (within 1" of an enemy model)
    can_legal = {t for t in tok if len(mv.legal_spots(mv.by_id[t]))}
    # pile in: a token model held still that could pile in legally gives up its token;
    # consolidation: a model held still keeps its token (step 8)
    drop = sorted(can_legal & hold) if step == "pile_in" else []
    must = set(can_legal) - hold
    overridden: list[str] = []

    def run() -> _Plan:
        free = hold - set(overridden)
        movers = [m.id for m in mv.models if m.id not in free and not mv.elevated(m) and (m.id not in mel.token or m.id in must)]
        return mv.place(movers, must)

    plan = run()
    def out_of_combat(p: _Plan, dropped: list[str]) -> bool:
        """Would dropping these tokens leave the unit with no model in normal
        engagement range and no token still reaching across a wall?"""
        return not _plan_engaged(scen, mv, p, {t for t in must if t in p.moved} | set(dropped))

    # Tokens may not be dropped so that the unit leaves combat (the last token, unless
    # some model ends in normal engagement range): the player's choice is overridden
    # and the model piles in.
    while drop and out_of_combat(plan, drop):
        best = min(drop, key=lambda t: float(np.min(mv.legal_spots(mv.by_id[t]).cost)))
        drop.remove(best)
        must.add(best)
        overridden.append(best)
        plan = run()
    moved_into = {t for t in must if t in plan.moved}
    # The choice "pile in or drop the token" only arises for a model that could make a
    # legal pile-in: one whose every legal spot would break coherency keeps its token.
    # (with the others where they started, or where the plan puts them)
    unable = [t for t in drop if not (mv.could_join(mv.by_id[t], mv.start_plan()) or mv.could_join(mv.by_id[t], plan))]
    drop = [t for t in drop if t not in unable]
    # a move must end with the unit coherent (a unit that starts out of coherency may
    # move only if that restores it)
    if plan.moved and mv.incoherence(plan) > 0:
        reasons.append(Reason(code="not_coherent", message=f"no plan found ends with {unit} in coherency: no model moves", models=sorted(plan.moved)))
        plan = mv.start_plan()
        moved_into = set()
    # edition 10: the move is only made if the unit then stands engaged with an enemy
    if plan.moved and r.edition == 10 and not _plan_engaged(scen, mv, plan, set(moved_into) | set(drop)):
        reasons.append(Reason(code="not_engaged_after", message=f"{unit} would not end engaged with an enemy: no model moves", models=sorted(plan.moved)))
        plan = mv.start_plan()
        moved_into = set()
    # after any revert, the last token still may not be dropped without normal range
    if drop and out_of_combat(plan, drop):
        overridden += drop
        drop = []
    for t in overridden:
        then = f"so {t} piles in instead" if t in moved_into else f"so {t} keeps it"
        reasons.append(Reason(code="last_token_kept", message=f"{t} holds the unit's last token and no model is in normal engagement range: the token may not be dropped, {then}", models=[t]))
    doing = "piled in" if step == "pile_in" else "consolidated"
    token_codes: dict[str, str] = {}
    for t in tok:
        m = mv.by_id[t]
        if t in moved_into:
            token_codes[t] = "token_removed_legal"
            reasons.append(Reason(code="token_removed_legal", message=f"{t} moves to a normal legal position within 1\" of an enemy: its token is removed", models=[t]))
        elif t in drop:
            token_codes[t] = "token_dropped"
            reasons.append(Reason(code="token_dropped", message=f"{t} could pile in to a normal legal position but is held still: its token is removed", models=[t]))
        elif t in overridden:
            continue  # explained by last_token_kept
        elif t in unable:
            reasons.append(Reason(code="token_kept_wall", message=f"{t} is held still, and none of its normal legal positions keeps the unit coherent: it keeps its token", models=[t]))
        elif t in hold and t in can_legal:
            reasons.append(Reason(code="token_kept_still", message=f"{t} does not consolidate and keeps its token", models=[t]))
        elif t in must:
            reasons.append(Reason(code="token_kept_wall", message=f"no normal legal position of {t} keeps the unit coherent: it stays, keeps its token and counts as having {doing}", models=[t]))
        else:
            where = "as close as the wall allows" if any(mel.token_link(m, b) for b in mv.enemies) else "where it is"
            reasons.append(Reason(code="token_kept_wall", message=f"{t} cannot reach a normal legal position: it stays {where}, keeps its token and counts as having {doing}", models=[t]))
    moves: list[Move] = []
    for m in mv.models:
        if m.id not in plan.moved:
            continue
        path, cost = mv.final_path(m, plan.pos[m.id], plan.z[m.id])
        p = np.array(path[-1])
        keeps = m.id in mel.token and m.id not in moved_into and m.id not in drop
        moves.append(
            Move.model_validate(
                {
                    "id": m.id,
                    "from": [_r6(m.xy[0]), _r6(m.xy[1]), _r6(m.z)],
                    "to": [p[0], p[1], _r6(plan.z[m.id])],
                    "distance": _r6(cost),
                    "contacts": [e.id for e in mv.enemies if abs(plan.z[m.id] - e.z) <= 1e-9 and float(sd_many(m.fp, p[None], e.fp)[0]) <= 10 * EPS],
                    "token": keeps,
                    "path": path,
                }
            )
        )
    # the new scenario: moves, tokens removed by moving or dropping, then the bookkeeping
    data = scenario_to_data(scen)
    new = {mo.id: mo.to for mo in moves}
    gone = set(moved_into) | set(drop)
    for ud in data["units"]:
        for md in ud["models"]:
            if md["id"] in new:
                md["at"] = list(new[md["id"]])
            if md["id"] in gone:
                md["token"] = False
    after, more = token_refresh(data)
    reasons.extend(x for x in more if not (x.code == "token_removed_legal" and set(x.models) <= set(moved_into)))
    after_scen = scenario_from_data(after)
    assert isinstance(after_scen, Scenario40k)
    au = next(x for x in after_scen.units if x.id == unit)
    tokens_after = sorted(m.id for m in au.models if m.token)
    removed = {t: token_codes.get(t, "refresh") for t in tokens_before if t not in tokens_after}
    for x in more:
        for t in x.models:
            if t in removed and removed[t] == "refresh":
                removed[t] = x.code
    details["tokens"] = {"before": tokens_before, "after": tokens_after, "removed": removed}
    # moves keep the token state `after` gives them
    still = {m.id for uu in after_scen.units for m in uu.models if m.token}
    moves = [mo.model_copy(update={"token": mo.id in still}) for mo in moves]
    aw = build_world(after_scen)
    engaged_after = Melee(aw).engaged_units(unit)
    return ruling(True, True, moves, after, engaged_after)


def _plan_engaged(scen: Scenario40k, mv: _Mover, plan: _Plan, untoken: set[str]) -> bool:
    """Would the unit, where the plan puts it (and with ``untoken`` models no longer
    carrying tokens), be engaged with an enemy (normal range, token or barricade)?"""
    data = scenario_to_data(scen)
    for ud in data["units"]:
        for md in ud["models"]:
            if md["id"] in plan.moved:
                p = plan.pos[md["id"]]
                md["at"] = [float(p[0]), float(p[1]), plan.z[md["id"]]]
            if md["id"] in untoken:
                md["token"] = False
    s = scenario_from_data(data)
    assert isinstance(s, Scenario40k)
    return bool(Melee(build_world(s)).links(mv.unit))


def pile_in(scen: Scenario40k | World | dict[str, Any], unit: str, keep: Iterable[str] | None = None) -> Ruling:
    """The unit's pile-in move (procedure ``pile_in``).

    ``keep``: models the player holds still. A token model held still that could have
    piled in to a normal legal position drops its token (``token_dropped``), unless it
    holds the unit's last token and no model is in normal engagement range
    (``last_token_kept``: it piles in instead). Default: every token model that can
    reach a normal legal position piles in and loses its token."""
    return _fight_move(scen, unit, "pile_in", keep)


def consolidate(scen: Scenario40k | World | dict[str, Any], unit: str, keep: Iterable[str] | None = None) -> Ruling:
    """The unit's consolidation move (procedure ``consolidate``).

    A token model that moves takes a normal legal position if it can, and loses its
    token there; a token model held still (``keep``) keeps its token."""
    return _fight_move(scen, unit, "consolidate", keep)


__all__ = [
    "Link",
    "Melee",
    "closest_points",
    "consolidate",
    "engaged_units",
    "pile_in",
    "refresh_tokens",
    "token_refresh",
    "who_fights",
]
