"""40k validator: the state it works on (models placed before and after, terrain
features and floors, the shared context) and the geometry, terrain and move-cost
helpers every check uses. See :mod:`chargeref.validate.w40k`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ScenarioError
from ..geometry.bases import base_footprint, polygon_footprint, wall_footprint
from ..geometry.paths import Barrier, measure_path
from ..geometry.shapes import (
    TOL,
    Capsule,
    Convex,
    ConvexPolygon,
    Disc,
    Footprint,
    convex_signed_distance,
    segment_sweep,
    signed_distance,
)
from ..ruling import Move, Ruling
from ..scenario import Scenario40k, inch, mm_per_unit, scenario_from_data
from ..scenario.w40k import Model40k, Unit40k
from . import Violation
from .w40k_duty import _disc
from .w40k_path import move_pieces

# --------------------------------------------------------------------------- constants
# Rules distances, in inches (converted to the scenario unit in the context).

#: Engagement range: horizontal and vertical reach.
ER_H = 1.0
ER_V = 5.0
#: Unit coherency: horizontal and vertical reach of a neighbour.
COH_H = 2.0
COH_V = 5.0
#: A WTC walls token model engages across a ruin wall at this range (placeholder, see
#: :func:`_engage_reach`).
TOKEN_ER_H = 2.0
#: Across a barricade, a charging model touching it engages a target up to this far.
BARRICADE_ER_H = 2.0
#: Charge declaration range (targets must be within it at the start).
DECLARE_RANGE = 12.0
#: Edition 10 heroic intervention (a stratagem charge): its target must be this close.
HEROIC_DECLARE_RANGE = 6.0
#: Heroic intervention: move budget, and the reach that makes a unit eligible.
HI_MOVE = 3.0
HI_REACH_H = 3.0
HI_REACH_V = 5.0
#: Climb threshold: terrain up to this height is ignored (by edition).
CLIMB_FREE = {9: 1.0, 10: 2.0, 11: 2.0}
#: Models in a unit from which each model needs two coherency neighbours (by edition).
TWO_NEIGHBOURS_FROM = {9: 6, 10: 7, 11: math.inf}  # 11: never (one neighbour, any size)

#: Keywords that move through ruin walls as if they were not there.
WALL_WALKERS = frozenset({"INFANTRY", "BEAST", "SWARM"})
#: Keywords that may end a move on an upper floor of a ruin.
FLOOR_STANDERS = WALL_WALKERS | {"FLY"}

#: Procedures whose moves are charge moves (budget: the roll).
CHARGE_PROCEDURES = frozenset({"normal", "wtc_walls"})
HEROIC = "heroic_intervention"


# --------------------------------------------------------------------------- model state


@dataclass(frozen=True)
class Placed:
    """A model at one moment: where it stands and the footprint it covers."""

    id: str
    unit: str
    player: int
    model: Model40k
    xy: tuple[float, float]
    #: height of the surface the base stands on
    z: float
    #: ground height under the centre (a hill's height or 0)
    ground: float
    fp: Footprint

    @property
    def elevated(self) -> bool:
        """Standing above the ground (on a ruin floor), not merely on a hill."""
        return abs(self.z - self.ground) > TOL


@dataclass(frozen=True)
class Feature:
    """A terrain piece that matters to moving or to ending a move."""

    id: str
    #: ``ruin_wall`` | ``wall`` | ``barricade`` | ``obstacle`` | ``impassable``
    kind: str
    fp: Footprint
    height: float = 0.0
    climbable: bool = True


@dataclass(frozen=True)
class Floor:
    id: str
    polygon: tuple[tuple[float, float], ...]
    fp: Footprint
    height: float

    @property
    def edges(self) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        p = self.polygon
        return [(p[i], p[(i + 1) % len(p)]) for i in range(len(p))]


@dataclass
class MoveCost:
    """What a path costs: its length, the climbs it makes and what blocks it."""

    length: float = 0.0
    climbs: list[tuple[str, float]] = field(default_factory=list)
    vertical: float = 0.0
    blocked: list[tuple[str, str]] = field(default_factory=list)  # (kind, id)

    @property
    def total(self) -> float:
        return self.length + sum(c for _, c in self.climbs) + self.vertical


@dataclass
class Ctx:
    """Everything the checks share, derived once from the scenario and the ruling."""

    before: Scenario40k
    ruling: Ruling
    inch: float
    mmpu: float
    edition: int
    use_wtc: bool
    climb_free: float
    features: list[Feature]
    floors: list[Floor]
    hills: list[tuple[Footprint, float]]
    units: dict[str, Unit40k]
    start: dict[str, Placed]
    end: dict[str, Placed]
    after: Scenario40k | None
    charger: Unit40k
    targets: list[str]
    casualties: set[str]
    moves: dict[str, Move]
    budget: float | None
    costs: dict[str, MoveCost] = field(default_factory=dict)
    #: per model: the shortest-path field used by the base-contact duty check
    duty_fields: dict[str, object] = field(default_factory=dict)
    #: pivots (w40k_pivot.check_pivots): the base after its start pivot, the length of
    #: its pivots (part of the move's distance) and the facing it must end with
    turned: dict[str, Placed] = field(default_factory=dict)
    pivot_length: dict[str, float] = field(default_factory=dict)
    end_facing: dict[str, float] = field(default_factory=dict)

    # -- helpers -------------------------------------------------------------
    def inches(self, v: float) -> float:
        return v * self.inch

    def keywords(self, unit_id: str) -> set[str]:
        return set(self.units[unit_id].keywords)

    def charger_ids(self) -> list[str]:
        return [m.id for m in self.charger.models if m.id not in self.casualties]

    def charger_end(self) -> list[Placed]:
        return [self.end[i] for i in self.charger_ids() if i in self.end]

    def unit_end(self, unit_id: str) -> list[Placed]:
        return [
            self.end[m.id]
            for m in self.units[unit_id].models
            if m.id in self.end and m.id not in self.casualties
        ]

    def unit_start(self, unit_id: str) -> list[Placed]:
        return [self.start[m.id] for m in self.units[unit_id].models if m.id not in self.casualties]

    def enemy_units(self) -> list[str]:
        return [u.id for u in self.before.units if u.player != self.charger.player]


# --------------------------------------------------------------------------- building


def _build(before: Scenario40k, ruling: Ruling) -> tuple[Ctx | None, list[Violation]]:
    problems: list[Violation] = []
    units = {u.id: u for u in before.units}
    charger = units.get(ruling.charger)
    if charger is None:
        return None, [Violation("unknown_unit", f"no unit {ruling.charger!r} in the scenario")]
    for t in ruling.targets:
        tu = units.get(t)
        if tu is None:
            problems.append(Violation("bad_target", f"target {t!r} is not a unit of the scenario"))
        elif tu.player == charger.player:
            problems.append(
                Violation(
                    "bad_target", f"target {t} belongs to the charging player", tuple(_ids(tu))
                )
            )
    targets = [t for t in ruling.targets if t in units and units[t].player != charger.player]

    unit_in = inch(before)
    mmpu = mm_per_unit(before)
    edition = before.rules.edition
    features, floors, hills = _terrain(before)

    start: dict[str, Placed] = {}
    for u in before.units:
        for m in u.models:
            start[m.id] = _place(m, u, m.at, hills, mmpu)

    after: Scenario40k | None = None
    if ruling.after is not None:
        try:
            parsed = scenario_from_data(ruling.after)
        except ScenarioError as exc:
            problems.append(Violation("after_mismatch", f"`after` is not a valid scenario: {exc}"))
        else:
            if isinstance(parsed, Scenario40k):
                after = parsed
            else:
                problems.append(Violation("after_mismatch", "`after` is not a 40k scenario"))

    moves: dict[str, Move] = {}
    for mv in ruling.moves:
        if mv.id in moves:
            problems.append(Violation("after_mismatch", f"{mv.id} moves twice", (mv.id,)))
        moves[mv.id] = mv

    casualties = {str(c) for c in (ruling.details.get("casualties") or [])}

    end: dict[str, Placed] = {}
    if after is not None:
        for u in after.units:
            for m in u.models:
                p = start.get(m.id)
                if p is not None and p.unit == u.id and p.player == u.player and p.model == m:
                    # perf: a model that did not change (same unit, same model record:
                    # position, base, facing) stands where it started, with the same base
                    end[m.id] = p
                else:
                    end[m.id] = _place(m, u, m.at, hills, mmpu)
    else:
        # No `after`: the end state is the start with the listed moves applied.
        for mid, p in start.items():
            if mid in casualties:
                continue
            found = moves.get(mid)
            if found is None:
                end[mid] = p
            else:
                m = p.model.model_copy(update={"at": tuple(found.to)})
                end[mid] = _place(m, units[p.unit], m.at, hills, mmpu)

    budget: float | None = None
    if ruling.procedure == HEROIC and edition == 9:
        budget = HI_MOVE * unit_in
    elif ruling.roll is not None:
        budget = ruling.roll.total * unit_in

    ctx = Ctx(
        before=before,
        ruling=ruling,
        inch=unit_in,
        mmpu=mmpu,
        edition=edition,
        use_wtc=before.rules.use_wtc,
        climb_free=CLIMB_FREE[edition] * unit_in,
        features=features,
        floors=floors,
        hills=hills,
        units=units,
        start=start,
        end=end,
        after=after,
        charger=charger,
        targets=targets,
        casualties=casualties,
        moves=moves,
        budget=budget,
    )
    return ctx, problems


def _ids(unit: Unit40k) -> list[str]:
    return [m.id for m in unit.models]


def _terrain(scen: Scenario40k) -> tuple[list[Feature], list[Floor], list[tuple[Footprint, float]]]:
    features: list[Feature] = []
    floors: list[Floor] = []
    hills: list[tuple[Footprint, float]] = []
    for t in scen.terrain:
        if t.type == "ruin":
            for i, w in enumerate(t.walls):
                fp = wall_footprint([tuple(p) for p in w.points], w.thickness)
                features.append(Feature(f"{t.id}.walls[{i}]", "ruin_wall", fp, w.height))
            for i, f in enumerate(t.floors):
                poly = tuple((float(x), float(y)) for x, y in f.polygon)
                floors.append(Floor(f"{t.id}.floors[{i}]", poly, polygon_footprint(poly), f.height))
        elif t.type == "wall":
            fp = wall_footprint([tuple(p) for p in t.points], t.thickness)
            features.append(Feature(t.id, "wall", fp, t.height, t.climbable))
        elif t.type == "barricade":
            fp = wall_footprint([tuple(p) for p in t.points], t.thickness)
            features.append(Feature(t.id, "barricade", fp, t.height))
        elif t.type == "obstacle":
            features.append(Feature(t.id, "obstacle", polygon_footprint(t.polygon), t.height))
        elif t.type == "impassable":
            features.append(Feature(t.id, "impassable", polygon_footprint(t.polygon)))
        elif t.type == "hill":
            hills.append((polygon_footprint(t.polygon), t.height))
    return features, floors, hills


def _ground(xy: Sequence[float], hills: list[tuple[Footprint, float]]) -> float:
    """Height of the ground under a point: the highest hill containing it, else 0."""
    z = 0.0
    if not hills:
        return z
    pt = np.array([[float(xy[0]), float(xy[1])]])
    for fp, h in hills:
        for part in fp.parts:
            assert isinstance(part, ConvexPolygon)
            if float(part.point_signed_distance(pt)[0]) <= TOL:
                z = max(z, h)
                break
    return z


def _place(
    m: Model40k,
    u: Unit40k,
    at: Sequence[float],
    hills: list[tuple[Footprint, float]],
    mmpu: float,
) -> Placed:
    xy = (float(at[0]), float(at[1]))
    ground = _ground(xy, hills)
    z = float(at[2]) if len(at) >= 3 else ground
    fp = base_footprint(m.base.kind, m.base.dims, xy, m.facing, mmpu)
    return Placed(m.id, u.id, u.player, m, xy, z, ground, fp)


# --------------------------------------------------------------------------- geometry


def _hdist(a: Placed, b: Placed) -> float:
    """Horizontal footprint distance (0 when touching or overlapping)."""
    return max(0.0, signed_distance(a.fp, b.fp))


def _within(a: Placed, b: Placed, h: float, v: float) -> bool:
    """Within ``h`` horizontally and ``v`` vertically, equality included."""
    if abs(a.z - b.z) > v + TOL:
        return False
    lb = math.dist(a.xy, b.xy) - a.fp.radius - b.fp.radius
    if lb > h + TOL:
        return False
    return signed_distance(a.fp, b.fp) <= h + TOL


def _in_base_contact(a: Placed, b: Placed) -> bool:
    return _within(a, b, 0.0, 0.0)


def _convex_sd(a: Convex, b: Convex) -> float:
    """Signed distance of two convex parts, with the capsule/disc closed form."""
    if isinstance(a, Capsule) and isinstance(b, Disc):
        return _capsule_disc(a, b)
    if isinstance(b, Capsule) and isinstance(a, Disc):
        return _capsule_disc(b, a)
    return convex_signed_distance(a, b)


def _capsule_disc(c: Capsule, d: Disc) -> float:
    p0 = np.asarray(c.p0, float)
    p1 = np.asarray(c.p1, float)
    q = np.asarray(d.c, float)
    ab = p1 - p0
    L2 = float(ab @ ab)
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, float((q - p0) @ ab) / L2))
    return float(np.linalg.norm(q - (p0 + t * ab))) - c.r - d.r


def _sweep_penetrates(
    base: Footprint, a: Sequence[float], b: Sequence[float], obstacle: Footprint
) -> bool:
    """Does ``base`` (centred at ``a``), translated straight to ``b``, enter ``obstacle``
    deeper than TOL? Exact: the swept region of each convex part is convex."""
    for p in base.parts:
        sw = segment_sweep(p, a, b)
        sc, sr = np.asarray(sw.center, float), sw.radius
        for q in obstacle.parts:
            if float(np.linalg.norm(np.asarray(q.center, float) - sc)) > sr + q.radius + TOL:
                continue
            if _convex_sd(sw, q) < -TOL:
                return True
    return False


def _penetrates(a: Footprint, b: Footprint) -> bool:
    if float(np.linalg.norm(a.center - b.center)) > a.radius + b.radius + TOL:
        return False
    return signed_distance(a, b) < -TOL


def _axis_extent(fp: Footprint) -> tuple[float, float, float, float]:
    """(min x, max x, min y, max y) of a footprint, exact from support functions."""
    u = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    h = np.max(np.stack([p.h(u) for p in fp.parts]), axis=0)
    return -float(h[1]), float(h[0]), -float(h[3]), float(h[2])


def _on_board(fp: Footprint, scen: Scenario40k) -> bool:
    xyr = _round(fp)
    if xyr is not None:
        x, y, r = xyr
        x0, x1, y0, y1 = x - r, x + r, y - r, y + r
    else:
        x0, x1, y0, y1 = _axis_extent(fp)
    return (
        x0 >= -TOL and y0 >= -TOL and x1 <= scen.board.width + TOL and y1 <= scen.board.depth + TOL
    )


def _wholly_inside(fp: Footprint, floor: Floor) -> bool:
    """Is the base wholly inside the floor polygon (touching its edge allowed)?"""
    c = np.asarray(fp.center, float)[None]
    if not any(
        float(p.point_signed_distance(c)[0]) <= TOL
        for p in floor.fp.parts
        if isinstance(p, ConvexPolygon)
    ):
        return False
    for a, b in floor.edges:
        edge = Capsule(a, b, 0.0)
        for part in fp.parts:
            if _convex_sd(part, edge) < -TOL:
                return False
    return True


# --------------------------------------------------------------------------- terrain rules


def _crossing_cost(ctx: Ctx, f: Feature, keywords: set[str]) -> float | None:
    """The cost of one crossing of ``f`` (None: it cannot be crossed)."""
    tall = f.height > ctx.climb_free + TOL
    if f.kind == "impassable":
        return None
    if f.kind == "ruin_wall":
        # INFANTRY, BEAST and SWARM pass through ruin walls; others climb the tall ones.
        if keywords & WALL_WALKERS:
            return 0.0
        return 2 * f.height if tall else 0.0
    if f.kind == "wall":
        if not tall:
            return 0.0
        return 2 * f.height if f.climbable else None
    # barricade, obstacle: climbed (up and down) when taller than the threshold
    return 2 * f.height if tall else 0.0


def _blocks_ending(ctx: Ctx, f: Feature) -> bool:
    """May no model end a move overlapping this feature?"""
    if f.kind == "obstacle":
        return f.height > ctx.climb_free + TOL
    return True  # ruin walls, free walls, barricades, impassable ground


def _floor_ok(ctx: Ctx, unit_id: str, fp: Footprint, z: float) -> str | None:
    """None when a base may stand at height ``z`` above the ground, else why not."""
    kw = ctx.keywords(unit_id)
    if not kw & FLOOR_STANDERS:
        return "only INFANTRY, BEAST, SWARM or FLY models may end on an upper floor"
    fitting = [f for f in ctx.floors if abs(f.height - z) <= TOL]
    if not fitting:
        return f"there is no floor at height {z:g}"
    if not any(_wholly_inside(fp, f) for f in fitting):
        return f"the base is not wholly on a floor at height {z:g}"
    return None


# --------------------------------------------------------------------------- move cost


def path_cost(
    ctx: Ctx,
    mover: Placed,
    pts: Sequence[Sequence[float]],
    z_to: float,
    elevated_to: bool,
    clear: bool = False,
) -> MoveCost:
    """The cost of moving ``mover`` (at its start) along the polyline ``pts``.

    Length of the polyline, plus each crossing of a terrain feature (once per feature and
    straight segment whose swept base enters it deeper than TOL), plus the vertical
    change when the move starts or ends on a ruin floor and the change exceeds the climb
    threshold. Enemy models block the path unless the unit can FLY.

    ``clear``: the caller has shown that no feature and no enemy model comes near the
    path (:func:`clear_straight_moves`), so only the length and the vertical change are
    counted (the same arithmetic as below).
    """
    if clear:
        cost = MoveCost()
        for i in range(len(pts) - 1):
            seg = math.dist((float(pts[i][0]), float(pts[i][1])), (float(pts[i + 1][0]), float(pts[i + 1][1])))
            if seg != 0.0:
                cost.length += seg
        dz = abs(z_to - mover.z)
        if (mover.elevated or elevated_to) and dz > ctx.climb_free + TOL:
            cost.vertical = dz
        return cost
    kw = ctx.keywords(mover.unit)
    cost = MoveCost()
    base = mover.fp
    z_lo = min(mover.z, z_to) - TOL
    z_hi = max(mover.z, z_to) + TOL
    fly = "FLY" in kw
    mr = _round(base)
    key = (mover.player, round(z_lo, 9), round(z_hi, 9), mr is not None)
    cache = ctx.__dict__.setdefault("_enemies_in_the_way", {})
    if key not in cache:
        enemies = [
            p
            for mid, p in ctx.start.items()
            if p.player != mover.player and mid not in ctx.casualties and z_lo <= p.z <= z_hi
        ]
        # round enemies against a round mover: the capsule-disc closed form, all at once
        round_e = [e for e in enemies if mr is not None and _round(e.fp) is not None]
        other_e = {e.id for e in enemies if not (mr is not None and _round(e.fp) is not None)}
        EC = np.array([_round(e.fp)[:2] for e in round_e]).reshape(-1, 2)  # type: ignore[index]
        ER = np.array([_round(e.fp)[2] for e in round_e])  # type: ignore[index]
        # each feature's enclosing circle: a feature the swept base cannot reach is skipped
        FC = np.array([f.fp.center for f in ctx.features], dtype=float).reshape(-1, 2)
        FR = np.array([f.fp.radius for f in ctx.features], dtype=float)
        # one array of circle centres: the features' enclosing circles, then round enemies
        CC = np.vstack([FC, EC]) if len(EC) else FC
        cache[key] = (enemies, round_e, other_e, EC, ER, FR, CC)
    enemies, round_e, other_e, EC, ER, FR, CC = cache[key]
    nF = len(FR)
    for i in range(len(pts) - 1):
        a = (float(pts[i][0]), float(pts[i][1]))
        b = (float(pts[i + 1][0]), float(pts[i + 1][1]))
        seg = math.dist(a, b)
        if seg == 0.0:
            continue
        cost.length += seg
        # perf: the base moved to the segment's start is built only when a feature or a
        # non-round enemy needs the exact sweep test
        at_a: Footprint | None = None
        A = np.array(a)
        ab = np.array(b) - A
        d = np.zeros(0)
        if len(CC):
            # (np.minimum(np.maximum(.)) is np.clip's value, NaN included, without its overhead)
            t = np.minimum(np.maximum(((CC - A) @ ab) / float(ab @ ab), 0.0), 1.0)
            X = CC - (A + t[:, None] * ab)
            d = np.hypot(X[:, 0], X[:, 1])
        if nF:
            near = d[:nF] - FR - base.radius <= TOL
            for k in np.flatnonzero(near):
                f = ctx.features[k]
                at_a = base.moved_to(a) if at_a is None else at_a
                if not _sweep_penetrates(at_a, a, b, f.fp):
                    continue
                c = _crossing_cost(ctx, f, kw)
                if c is None:
                    cost.blocked.append((f.kind, f.id))
                elif c > 0:
                    cost.climbs.append((f.id, c))
        if not fly:
            hit: set[str] = set()
            if round_e:
                assert mr is not None
                gap = d[nF:] - mr[2] - ER
                if (gap < -TOL).any():
                    hit = {round_e[j].id for j in np.flatnonzero(gap < -TOL)}
            if not hit and not other_e:
                continue  # no enemy in the way (the loop below would add nothing)
            for e in enemies:
                if e.id in hit:
                    cost.blocked.append(("enemy model", e.id))
                elif e.id in other_e:
                    at_a = base.moved_to(a) if at_a is None else at_a
                    if _sweep_penetrates(at_a, a, b, e.fp):
                        cost.blocked.append(("enemy model", e.id))
    dz = abs(z_to - mover.z)
    if (mover.elevated or elevated_to) and dz > ctx.climb_free + TOL:
        cost.vertical = dz
    # a model blocked twice by the same thing is reported once
    cost.blocked = list(dict.fromkeys(cost.blocked))
    return cost


def clear_straight_moves(ctx: Ctx, moves: Sequence[tuple[str, Placed, tuple[float, float], tuple[float, float]]]) -> set[str]:
    """The ids of the straight moves (id, mover, from, to) of round bases along which
    :func:`path_cost` would find nothing in the way, all judged at once (perf).

    A move qualifies when its segment keeps the mover's circle more than TOL + 1e-9 from
    every feature's enclosing circle (path_cost looks at a feature only within TOL) and
    overlapping no enemy model's enclosing circle, at any height, by TOL - 1e-9 or more
    (path_cost blocks on an overlap deeper than TOL; the true base lies inside its
    enclosing circle, so it overlaps less). The 1e-9 covers rounding: these distances
    are computed here in a different order than in path_cost, so only a clear margin is
    trusted."""
    if not moves:
        return set()
    oc, orr, otol, opl = [], [], [], []
    for f in ctx.features:
        oc.append(f.fp.center)
        orr.append(f.fp.radius)
        otol.append(TOL + 1e-9)
        opl.append(-1)
    for mid, p in ctx.start.items():
        if mid in ctx.casualties:
            continue
        oc.append(p.fp.center)
        orr.append(p.fp.radius)
        otol.append(-TOL + 1e-9)
        opl.append(p.player)
    ids = [m for m, _, _, _ in moves]
    if not oc:
        return set(ids)
    C = np.array(oc, dtype=float).reshape(-1, 2)
    Rr, Tl, Pl = np.array(orr, dtype=float), np.array(otol), np.array(opl)
    A = np.array([a for _, _, a, _ in moves], dtype=float)
    AB = np.array([b for _, _, _, b in moves], dtype=float) - A
    rm = np.array([p.fp.radius for _, p, _, _ in moves], dtype=float)
    pm = np.array([p.player for _, p, _, _ in moves])
    L2 = AB[:, 0] * AB[:, 0] + AB[:, 1] * AB[:, 1]
    W = C[None, :, :] - A[:, None, :]
    t = (W[..., 0] * AB[:, None, 0] + W[..., 1] * AB[:, None, 1]) / np.where(L2 > 0, L2, 1.0)[:, None]
    t = np.minimum(np.maximum(t, 0.0), 1.0)
    d = np.hypot(W[..., 0] - t * AB[:, None, 0], W[..., 1] - t * AB[:, None, 1])
    apart = d - Rr[None, :] - rm[:, None] > Tl[None, :]
    ok = (apart | (Pl[None, :] == pm[:, None])).all(axis=1)
    return {mid for mid, good in zip(ids, ok, strict=True) if good}


def pieces_cost(ctx: Ctx, mover: Placed, mv: Move, z_to: float, elevated_to: bool) -> MoveCost:
    """:func:`path_cost` for a path recorded as exact pieces (lines and arcs): the
    pieces' exact length, each feature crossing once per piece, enemies blocking unless
    the unit can FLY, the same vertical rule."""
    kw = ctx.keywords(mover.unit)
    cost = MoveCost()
    pieces = move_pieces(mv)
    bars: list[Barrier] = []
    for f in ctx.features:
        c = _crossing_cost(ctx, f, kw)
        if c is None or c > 0:
            bars.append(Barrier(f.fp, c, f"F:{f.id}"))
    z_lo = min(mover.z, z_to) - TOL
    z_hi = max(mover.z, z_to) + TOL
    if "FLY" not in kw:
        for mid, p in ctx.start.items():
            if p.player != mover.player and mid not in ctx.casualties and z_lo <= p.z <= z_hi:
                bars.append(Barrier(p.fp, None, f"M:{mid}"))
    # a barrier whose enclosing circle stays clear of the box round the path (grown by
    # the base's enclosing radius) is neither crossed nor in the way
    xs, ys = [], []
    for sg in mv.segments or []:
        if sg.get("kind") == "arc":
            c, r = sg["center"], float(sg["radius"])
            xs += [float(c[0]) - r, float(c[0]) + r]
            ys += [float(c[1]) - r, float(c[1]) + r]
        for k in ("from", "to"):
            xs.append(float(sg[k][0]))
            ys.append(float(sg[k][1]))
    if xs:
        g = mover.fp.radius + TOL
        x0, x1, y0, y1 = min(xs) - g, max(xs) + g, min(ys) - g, max(ys) + g

        def clear(fp: Footprint) -> bool:
            cx, cy = float(fp.center[0]), float(fp.center[1])
            dx = max(x0 - cx, 0.0, cx - x1)
            dy = max(y0 - cy, 0.0, cy - y1)
            return math.hypot(dx, dy) > fp.radius

        bars = [b for b in bars if not clear(b.footprint)]
    chk = measure_path(mover.fp, pieces, bars)
    cost.length = chk.length
    kinds = {f.id: f.kind for f in ctx.features}
    for cid in chk.crossed:
        fid = cid[2:]
        cost.climbs.append((fid, next(b.cost for b in bars if b.id == cid) or 0.0))
    for bid in chk.blocked:
        if bid.startswith("M:"):
            cost.blocked.append(("enemy model", bid[2:]))
        else:
            cost.blocked.append((kinds.get(bid[2:], "terrain"), bid[2:]))
    dz = abs(z_to - mover.z)
    if (mover.elevated or elevated_to) and dz > ctx.climb_free + TOL:
        cost.vertical = dz
    cost.blocked = list(dict.fromkeys(cost.blocked))
    return cost




# --------------------------------------------------------------------------- many pairs


#: (x, y, r) of a round base, else None (kept on the footprint like its cached
#: properties; see ``w40k_duty._disc``)
_round = _disc


def gap_matrix(A: Sequence[Placed], B: Sequence[Placed], cutoff: float) -> np.ndarray:
    """Horizontal signed distance between the bases of every model of ``A`` and every
    model of ``B`` (shape (len A, len B)): exact wherever it is at most ``cutoff``, a
    lower bound (centre distance less both enclosing radii) above it. Round pairs are
    computed in one broadcast, other pairs below the cutoff one by one
    (``signed_distance``), so a verdict at a threshold up to ``cutoff`` is exact."""
    nA, nB = len(A), len(B)
    out = np.empty((nA, nB))
    if nA == 0 or nB == 0:
        return out
    ca = np.array([a.fp.center for a in A], dtype=float).reshape(-1, 2)
    cb = np.array([b.fp.center for b in B], dtype=float).reshape(-1, 2)
    ra = np.array([a.fp.radius for a in A], dtype=float)
    rb = np.array([b.fp.radius for b in B], dtype=float)
    out[:] = np.hypot(ca[:, 0, None] - cb[None, :, 0], ca[:, 1, None] - cb[None, :, 1]) - ra[:, None] - rb[None, :]
    da = np.array([_round(a.fp) is not None for a in A])
    db = np.array([_round(b.fp) is not None for b in B])
    # round pairs: the centre distance less the radii is the exact gap already
    todo = np.argwhere(~(da[:, None] & db[None, :]) & (out <= cutoff))
    for i, j in todo:
        out[i, j] = signed_distance(A[i].fp, B[j].fp)
    return out


def within_matrix(A: Sequence[Placed], B: Sequence[Placed], h: float, v: float) -> np.ndarray:
    """``_within`` for every pair of ``A`` x ``B`` at once (equality included)."""
    if not len(A) or not len(B):
        return np.zeros((len(A), len(B)), bool)
    za = np.array([a.z for a in A])
    zb = np.array([b.z for b in B])
    return (gap_matrix(A, B, h + TOL) <= h + TOL) & (np.abs(za[:, None] - zb[None, :]) <= v + TOL)
