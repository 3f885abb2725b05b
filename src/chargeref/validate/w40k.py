"""Independent checker for Warhammer 40,000 charge rulings.

``validate(before, ruling)`` re-derives every rule the 40k solver must respect from the
scenario the charge was made on and the ruling it produced, and returns the list of
:class:`~chargeref.validate.Violation` it finds (empty: the ruling is legal).

Independence is the point of this module: it imports nothing from
``chargeref.systems``. It uses only the exact footprints and distances of
``chargeref.geometry`` and the parsed scenario of ``chargeref.scenario``; every rule is
written again here, one function per rule, so that a bug in the solver is not silently
shared by its checker. ``docs/validator.md`` describes each check and its limits.

Stable violation codes: ``unknown_unit``, ``bad_target``, ``after_mismatch``,
``foreign_move``, ``facing_changed``, ``path_mismatch``, ``path_blocked``,
``over_budget``, ``distance_mismatch``, ``off_board``, ``overlap``, ``in_terrain``,
``illegal_floor``, ``roll_inconsistent``, ``ineligible``, ``not_coherent``,
``target_not_engaged``, ``non_target_engaged``, ``not_closer``, ``engaged_mismatch``,
``missed_base_contact``, ``moved_on_failure``, ``engaged_on_failure``,
``hi_ineligible``.

All lengths are in the scenario's unit; rules thresholds are written in inches and
converted once with :func:`chargeref.scenario.inch`. Every comparison allows the
contract tolerance ``TOL`` (1e-6 of the unit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize_scalar

from ..errors import ScenarioError
from ..geometry.bases import base_footprint, polygon_footprint, wall_footprint
from ..geometry.shapes import (
    TOL,
    Capsule,
    Convex,
    ConvexPolygon,
    Disc,
    Footprint,
    convex_signed_distance,
    disc_centres_signed_distance,
    segment_sweep,
    signed_distance,
)
from ..ruling import Move, Ruling
from ..scenario import Scenario40k, inch, mm_per_unit, scenario_from_data
from ..scenario.w40k import Model40k, Unit40k
from . import Violation

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
#: Angular step (degrees) of the ring of base-contact spots searched around a target.
RING_STEP_DEG = 1.0

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


# --------------------------------------------------------------------------- entry point


def validate(before: Scenario40k, ruling: Ruling) -> list[Violation]:
    """Every rule the ruling's charge breaks (empty list: the ruling is legal)."""
    if ruling.procedure in ("pile_in", "consolidate"):
        # fight-phase moves have their own rules (validate/w40k_fight.py)
        from .w40k_fight import validate_fight_move

        return validate_fight_move(before, ruling)
    if before.rules.edition == 11:
        # edition 11 has its own numbers and duties (validate/w40k_ed11.py)
        from .w40k_ed11 import validate as validate_ed11

        return validate_ed11(before, ruling)
    ctx, problems = _build(before, ruling)
    if ctx is None:
        return problems
    for check in _checks_for(ctx):
        problems.extend(check(ctx))
    return problems


Check = Callable[[Ctx], list[Violation]]


def _checks_for(ctx: Ctx) -> list[Check]:
    """The rules that apply to this kind of ruling, in reporting order."""
    always: list[Check] = [
        check_after,
        check_facing,
        check_paths,
        check_end_positions,
    ]
    r = ctx.ruling
    if _is_heroic_move(ctx):
        return always + [check_heroic, check_coherency, check_engaged_list]
    if r.success:
        unit_rules: list[Check] = [
            check_roll,
            check_eligibility,
            check_coherency,
            check_targets_engaged,
            check_non_targets,
            check_engaged_list,
        ]
        if ctx.edition == 10 or ctx.use_wtc:
            unit_rules.append(check_closer)
        if ctx.use_wtc:
            unit_rules.append(check_base_contact)
        return always + unit_rules
    return always + [check_roll, check_failure, check_engaged_list]


def _is_heroic_move(ctx: Ctx) -> bool:
    """Edition 9's heroic intervention is a 3" move of its own. In edition 10 the
    heroic intervention is a stratagem that makes an ordinary charge, checked as one
    (its targets within 6" instead of 12")."""
    return ctx.ruling.procedure == HEROIC and ctx.edition == 9


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
) -> MoveCost:
    """The cost of moving ``mover`` (at its start) along the polyline ``pts``.

    Length of the polyline, plus each crossing of a terrain feature (once per feature and
    straight segment whose swept base enters it deeper than TOL), plus the vertical
    change when the move starts or ends on a ruin floor and the change exceeds the climb
    threshold. Enemy models block the path unless the unit can FLY.
    """
    kw = ctx.keywords(mover.unit)
    cost = MoveCost()
    base = mover.fp
    z_lo = min(mover.z, z_to) - TOL
    z_hi = max(mover.z, z_to) + TOL
    enemies = [
        p
        for mid, p in ctx.start.items()
        if p.player != mover.player and mid not in ctx.casualties and z_lo <= p.z <= z_hi
    ]
    fly = "FLY" in kw
    for i in range(len(pts) - 1):
        a = (float(pts[i][0]), float(pts[i][1]))
        b = (float(pts[i + 1][0]), float(pts[i + 1][1]))
        seg = math.dist(a, b)
        if seg == 0.0:
            continue
        cost.length += seg
        at_a = base.moved_to(a)
        for f in ctx.features:
            if not _sweep_penetrates(at_a, a, b, f.fp):
                continue
            c = _crossing_cost(ctx, f, kw)
            if c is None:
                cost.blocked.append((f.kind, f.id))
            elif c > 0:
                cost.climbs.append((f.id, c))
        if not fly:
            for e in enemies:
                if _sweep_penetrates(at_a, a, b, e.fp):
                    cost.blocked.append(("enemy model", e.id))
    dz = abs(z_to - mover.z)
    if (mover.elevated or elevated_to) and dz > ctx.climb_free + TOL:
        cost.vertical = dz
    # a model blocked twice by the same thing is reported once
    cost.blocked = list(dict.fromkeys(cost.blocked))
    return cost


# --------------------------------------------------------------------------- checks


def _same_facing(a: float, b: float) -> bool:
    return abs((a - b + 180.0) % 360.0 - 180.0) <= 1e-6


def _same_xy(a: Sequence[float], b: Sequence[float]) -> bool:
    return math.dist((a[0], a[1]), (b[0], b[1])) <= TOL


def check_after(ctx: Ctx) -> list[Violation]:
    """`after` holds every surviving model, moved ones where their move ends, the rest
    where they were; casualties are gone; nothing else changed."""
    out: list[Violation] = []
    for mid in ctx.moves:
        if mid not in ctx.start:
            out.append(Violation("after_mismatch", f"move of unknown model {mid}", (mid,)))
        elif ctx.start[mid].unit != ctx.charger.id:
            out.append(
                Violation("foreign_move", f"{mid} is not a model of {ctx.charger.id}", (mid,))
            )
        elif mid in ctx.casualties:
            out.append(Violation("after_mismatch", f"casualty {mid} has a move", (mid,)))
    if ctx.after is None:
        return out
    a, b = ctx.after, ctx.before
    if a.board != b.board or a.terrain != b.terrain or a.rules != b.rules or a.unit != b.unit:
        out.append(Violation("after_mismatch", "`after` changed the board, terrain, rules or unit"))
    after_units = {u.id: u for u in a.units}
    after_of: dict[str, str] = {m.id: u.id for u in a.units for m in u.models}
    for u in b.units:
        au = after_units.get(u.id)
        if au is not None and (au.player != u.player or au.keywords != u.keywords):
            out.append(Violation("after_mismatch", f"unit {u.id} changed player or keywords"))
        for m in u.models:
            here = ctx.end.get(m.id)
            if m.id in ctx.casualties:
                if here is not None:
                    out.append(
                        Violation("after_mismatch", f"casualty {m.id} is still in `after`", (m.id,))
                    )
                continue
            if here is None:
                out.append(Violation("after_mismatch", f"{m.id} is missing from `after`", (m.id,)))
                continue
            if after_of.get(m.id) != u.id:
                out.append(Violation("after_mismatch", f"{m.id} changed unit", (m.id,)))
            if here.model.base != m.base:
                out.append(Violation("after_mismatch", f"{m.id} changed base", (m.id,)))
            s = ctx.start[m.id]
            mv = ctx.moves.get(m.id)
            if mv is None:
                if not _same_xy(here.xy, s.xy) or abs(here.z - s.z) > TOL:
                    out.append(
                        Violation(
                            "after_mismatch",
                            f"{m.id} changed place without a move: {list(s.xy)} -> {list(here.xy)}",
                            (m.id,),
                        )
                    )
                continue
            if len(mv.to) < 2 or not _same_xy(here.xy, mv.to):
                out.append(
                    Violation(
                        "after_mismatch",
                        f"{m.id} is at {list(here.xy)} in `after` but its move ends at {mv.to}",
                        (m.id,),
                    )
                )
            elif len(mv.to) >= 3 and abs(here.z - mv.to[2]) > TOL:
                out.append(
                    Violation(
                        "after_mismatch",
                        f"{m.id} stands at z={here.z:g} in `after` but its move ends at z={mv.to[2]:g}",
                        (m.id,),
                    )
                )
            if here.model.token != mv.token:
                out.append(
                    Violation(
                        "after_mismatch",
                        f"{m.id}'s token differs between move and `after`",
                        (m.id,),
                    )
                )
    before_ids = set(ctx.start)
    for mid in ctx.end:
        if mid not in before_ids:
            out.append(
                Violation("after_mismatch", f"`after` has a model {mid} that was not there", (mid,))
            )
    return out


def check_facing(ctx: Ctx) -> list[Violation]:
    """Non-round bases are translated, never turned, during a charge move."""
    out: list[Violation] = []
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or s.model.base.kind == "round":
            continue
        facings = [] if mv.facing is None else [mv.facing]
        e = ctx.end.get(mid)
        if e is not None:
            facings.append(e.model.facing)
        if any(not _same_facing(f, s.model.facing) for f in facings):
            out.append(
                Violation(
                    "facing_changed",
                    f"{mid} turned from {s.model.facing:g} to {facings}; bases keep their facing",
                    (mid,),
                )
            )
    return out


def _move_points(mv: Move) -> list[tuple[float, float]]:
    if mv.path:
        return [(float(p[0]), float(p[1])) for p in mv.path if len(p) >= 2]
    return [(float(mv.from_[0]), float(mv.from_[1])), (float(mv.to[0]), float(mv.to[1]))]


def check_paths(ctx: Ctx) -> list[Violation]:
    """Each move starts where the model stood, follows its path to where it ends, costs
    what it says, is not blocked, and fits the budget."""
    out: list[Violation] = []
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or mid in ctx.casualties or s.unit != ctx.charger.id:
            continue
        if len(mv.from_) < 2 or len(mv.to) < 2:
            out.append(Violation("path_mismatch", f"{mid}'s move lacks coordinates", (mid,)))
            continue
        if not _same_xy(mv.from_, s.xy) or (len(mv.from_) >= 3 and abs(mv.from_[2] - s.z) > TOL):
            out.append(
                Violation(
                    "path_mismatch",
                    f"{mid}'s move starts at {mv.from_}, but the model stood at {[*s.xy, s.z]}",
                    (mid,),
                )
            )
        pts = _move_points(mv)
        if mv.path is not None and (len(pts) != len(mv.path) or not pts):
            out.append(Violation("path_mismatch", f"{mid}'s path has malformed points", (mid,)))
            continue
        if not _same_xy(pts[0], mv.from_) or not _same_xy(pts[-1], mv.to):
            out.append(
                Violation(
                    "path_mismatch",
                    f"{mid}'s path runs {list(pts[0])} -> {list(pts[-1])}, "
                    f"not from {mv.from_[:2]} to {mv.to[:2]}",
                    (mid,),
                )
            )
        e = ctx.end.get(mid)
        if len(mv.to) >= 3:
            z_to = float(mv.to[2])
        elif e is not None:
            z_to = e.z
        else:
            z_to = _ground(mv.to, ctx.hills)
        elevated_to = abs(z_to - _ground(mv.to, ctx.hills)) > TOL
        cost = path_cost(ctx, s, pts, z_to, elevated_to)
        ctx.costs[mid] = cost
        for kind, what in cost.blocked:
            out.append(
                Violation(
                    "path_blocked",
                    f"{mid}'s path passes through {kind} {what}",
                    (mid, what) if kind == "enemy model" else (mid,),
                    {"blocker": what, "kind": kind},
                )
            )
        total = cost.total
        if ctx.budget is not None and total > ctx.budget + TOL:
            out.append(
                Violation(
                    "over_budget",
                    f"{mid}'s move costs {total:.6f} but only {ctx.budget:.6f} is allowed",
                    (mid,),
                    {"cost": total, "budget": ctx.budget},
                )
            )
        if abs(mv.distance - total) > TOL + 1e-6 * abs(total):
            out.append(
                Violation(
                    "distance_mismatch",
                    f"{mid}'s move says {mv.distance:.6f} but its path costs {total:.6f}"
                    f" (length {cost.length:.6f}, climbs {cost.climbs}, vertical {cost.vertical:g})",
                    (mid,),
                    {"claimed": mv.distance, "cost": total},
                )
            )
    return out


def check_end_positions(ctx: Ctx) -> list[Violation]:
    """Every moved model ends wholly on the board, overlapping no model at its level and
    no terrain it may not stand in, and only on floors it may stand on."""
    out: list[Violation] = []
    reported: set[tuple[str, str]] = set()
    others = [p for mid, p in ctx.end.items() if mid not in ctx.casualties]
    for mid in ctx.moves:
        e = ctx.end.get(mid)
        if e is None or mid in ctx.casualties:
            continue
        if not _on_board(e.fp, ctx.before):
            out.append(Violation("off_board", f"{mid} ends (partly) off the board", (mid,)))
        for o in others:
            if o.id == mid or abs(o.z - e.z) > TOL:
                continue
            pair = (min(mid, o.id), max(mid, o.id))
            if pair in reported:
                continue
            if _penetrates(e.fp, o.fp):
                reported.add(pair)
                out.append(
                    Violation(
                        "overlap",
                        f"{mid} overlaps {o.id} by {-signed_distance(e.fp, o.fp):.6g}",
                        pair,
                    )
                )
        for f in ctx.features:
            if _blocks_ending(ctx, f) and _penetrates(e.fp, f.fp):
                out.append(
                    Violation(
                        "in_terrain",
                        f"{mid} ends inside {f.kind} {f.id}",
                        (mid,),
                        {"feature": f.id},
                    )
                )
        if e.elevated:
            why = _floor_ok(ctx, e.unit, e.fp, e.z)
            if why is not None:
                out.append(Violation("illegal_floor", f"{mid} ends at z={e.z:g}: {why}", (mid,)))
    return out


def check_roll(ctx: Ctx) -> list[Violation]:
    """The roll adds up, and agrees with the ruling's own least roll and verdict."""
    r = ctx.ruling
    out: list[Violation] = []
    if r.roll is None:
        if r.success or r.moves:
            out.append(Violation("roll_inconsistent", "the ruling moves models but has no roll"))
        return out
    # a fixed total (`--roll`) comes with no dice; otherwise the dice must add up
    if r.roll.dice and r.roll.total != sum(r.roll.dice) + r.roll.modifier:
        out.append(
            Violation(
                "roll_inconsistent",
                f"roll total {r.roll.total} is not dice {r.roll.dice} + modifier {r.roll.modifier}",
            )
        )
    need = r.needed.roll if r.needed is not None else None
    if r.success:
        if not r.eligible:
            out.append(Violation("roll_inconsistent", "an ineligible charge cannot succeed"))
        if need is None or r.roll.total < need:
            out.append(
                Violation(
                    "roll_inconsistent",
                    f"the charge succeeds with {r.roll.total} although the least roll is {need}",
                )
            )
    elif r.eligible and need is not None and r.roll.total >= need and not ctx.casualties:
        out.append(
            Violation(
                "roll_inconsistent",
                f"the charge fails with {r.roll.total} although the least roll is {need}",
            )
        )
    return out


def check_eligibility(ctx: Ctx) -> list[Violation]:
    """A unit that charges may: not advanced or fallen back (WTC: nor doing an action or
    without Movement; edition 10: not AIRCRAFT), not in engagement range at the start,
    and every target within 12" of it."""
    out: list[Violation] = []
    u = ctx.charger
    ids = tuple(_ids(u))
    for flag in ("advanced", "fell_back"):
        if flag in u.flags:
            out.append(Violation("ineligible", f"{u.id} has {flag}", ids))
    if ctx.use_wtc and ("action" in u.flags or u.movement == "-"):
        out.append(Violation("ineligible", f"{u.id} is doing an action or has no Movement", ids))
    if ctx.edition == 10 and "AIRCRAFT" in u.keywords:
        out.append(Violation("ineligible", f"{u.id} is AIRCRAFT", ids))
    mine = ctx.unit_start(u.id)
    reach = (HEROIC_DECLARE_RANGE if ctx.ruling.procedure == HEROIC else DECLARE_RANGE) * ctx.inch
    for eid in ctx.enemy_units():
        for e in ctx.unit_start(eid):
            hit = next((m for m in mine if _within(m, e, ER_H * ctx.inch, ER_V * ctx.inch)), None)
            if hit is not None:
                out.append(
                    Violation(
                        "ineligible",
                        f"{hit.id} starts in engagement range of {e.id}",
                        (hit.id, e.id),
                    )
                )
                break
    for t in ctx.targets:
        tm = ctx.unit_start(t)
        if not any(_hdist(m, e) <= reach + TOL for m in mine for e in tm):
            out.append(
                Violation(
                    "ineligible",
                    f'target {t} is farther than {reach / ctx.inch:g}" at the start',
                    tuple(_ids(ctx.units[t])),
                )
            )
    return out


def coherency_problems(models: Sequence[Placed], edition: int, inch_: float) -> list[Violation]:
    """Coherency of a set of models: one connected group, each model with enough
    neighbours within 2" horizontally and 5" vertically."""
    if edition == 11:  # one neighbour and a 9" spread (validate/w40k_ed11.py)
        from .w40k_ed11 import coherency_problems as coherency_ed11

        return coherency_ed11(models, inch_)
    n = len(models)
    if n <= 1:
        return []
    need = 2 if n >= TWO_NEIGHBOURS_FROM[edition] else 1
    h, v = COH_H * inch_, COH_V * inch_
    adj: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if _within(models[i], models[j], h, v):
                adj[i].append(j)
                adj[j].append(i)
    out: list[Violation] = []
    groups = _components(adj)
    if len(groups) > 1:
        names = [[models[i].id for i in g] for g in groups]
        out.append(
            Violation(
                "not_coherent",
                f"the unit is split into {len(groups)} groups: {names}",
                tuple(models[i].id for i in range(n)),
                {"groups": names},
            )
        )
    for i in range(n):
        if len(adj[i]) < need:
            out.append(
                Violation(
                    "not_coherent",
                    f"{models[i].id} has {len(adj[i])} coherency neighbour(s), needs {need}",
                    (models[i].id,),
                )
            )
    return out


def unit_coherency(scen: Scenario40k, unit_id: str) -> list[Violation]:
    """Coherency problems of one unit of a scenario as it stands (empty: coherent)."""
    _, _, hills = _terrain(scen)
    mmpu = mm_per_unit(scen)
    u = next(u for u in scen.units if u.id == unit_id)
    placed = [_place(m, u, m.at, hills, mmpu) for m in u.models]
    return coherency_problems(placed, scen.rules.edition, inch(scen))


def _components(adj: list[list[int]]) -> list[list[int]]:
    seen = [False] * len(adj)
    groups: list[list[int]] = []
    for s in range(len(adj)):
        if seen[s]:
            continue
        seen[s] = True
        stack, g = [s], []
        while stack:
            i = stack.pop()
            g.append(i)
            for j in adj[i]:
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
        groups.append(sorted(g))
    return groups


def check_coherency(ctx: Ctx) -> list[Violation]:
    """The moving unit ends in coherency (only when some model moved, or the charge
    succeeded: an unmoved unit is not the ruling's doing)."""
    if not ctx.moves and not ctx.ruling.success:
        return []
    return coherency_problems(ctx.charger_end(), ctx.edition, ctx.inch)


def _engage_reach(ctx: Ctx, charger_model: str, target_unit: str | None) -> float:
    """Horizontal engagement reach from a charger model to an enemy unit's models: 1",
    or 2" for a WTC walls token model toward a unit it charged (whether a ruin wall
    really stands between them is checked by ``_token_link``)."""
    mv = ctx.moves.get(charger_model)
    if mv is not None and mv.token and target_unit in ctx.targets:
        return TOKEN_ER_H * ctx.inch
    return ER_H * ctx.inch


def _token_link(ctx: Ctx, c: Placed, e: Placed) -> bool:
    """A token model reaches a model of a unit it charged at 2" only across a ruin wall
    (seed 000): the independent 2"-through-a-wall test of ``w40k_fight``."""
    if ctx.after is None:
        return False
    cache = getattr(ctx, "_token_links", None)
    if cache is None:
        from .w40k_fight import token_links

        cache = {(a, b) for a, b, kind in token_links(ctx.after, ctx.ruling.charger) if kind == "token"}
        object.__setattr__(ctx, "_token_links", cache) if hasattr(ctx, "__dataclass_fields__") else None
        try:
            ctx._token_links = cache  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - frozen contexts just recompute
            pass
    return (c.id, e.id) in cache


def _units_in_er(ctx: Ctx, chargers: Iterable[Placed], unit_id: str) -> list[tuple[str, str]]:
    """Pairs (charger model, enemy model) within engagement range (for a target unit,
    across a barricade too)."""
    pairs: list[tuple[str, str]] = []
    em = ctx.unit_end(unit_id)
    for c in chargers:
        reach = _engage_reach(ctx, c.id, unit_id)
        for e in em:
            if _within(c, e, ER_H * ctx.inch, ER_V * ctx.inch) or (
                reach > ER_H * ctx.inch and _within(c, e, reach, ER_V * ctx.inch) and _token_link(ctx, c, e)
            ) or (unit_id in ctx.targets and _across_barricade(ctx, c, e)):
                pairs.append((c.id, e.id))
    return pairs


def _across_barricade(ctx: Ctx, c: Placed, e: Placed) -> bool:
    """A charging model engages a target model across a barricade (edition 9 Defence
    Line, edition 10 Barricades and Fuel Pipes, as the contract's barricade reads): the
    target model is within 1" of the barricade, the charging model touches it (our
    reading of "as close as possible"), the two are within 2" horizontally and 5"
    vertically, and the line between their centres passes through the barricade."""
    if abs(c.z - e.z) > ER_V * ctx.inch + TOL:
        return False
    if math.dist(c.xy, e.xy) - c.fp.radius - e.fp.radius > BARRICADE_ER_H * ctx.inch + TOL:
        return False
    for f in ctx.features:
        if f.kind != "barricade":
            continue
        if signed_distance(c.fp, f.fp) > TOL:
            continue
        if signed_distance(e.fp, f.fp) > ER_H * ctx.inch + TOL:
            continue
        if signed_distance(c.fp, e.fp) > BARRICADE_ER_H * ctx.inch + TOL:
            continue
        line = Capsule(c.xy, e.xy, 0.0)
        if any(_convex_sd(line, part) <= TOL for part in f.fp.parts):
            return True
    return False


def check_targets_engaged(ctx: Ctx) -> list[Violation]:
    """Every declared target ends within engagement range of the charging unit."""
    out: list[Violation] = []
    mine = ctx.charger_end()
    for t in ctx.targets:
        if not _units_in_er(ctx, mine, t):
            em = ctx.unit_end(t)
            gap = min((_hdist(c, e) for c in mine for e in em), default=math.inf)
            out.append(
                Violation(
                    "target_not_engaged",
                    f"target {t} is not in engagement range (closest gap {gap:.6f})",
                    tuple(e.id for e in em),
                    {"gap": gap},
                )
            )
    return out


def check_non_targets(ctx: Ctx) -> list[Violation]:
    """No enemy unit that was not a target ends within engagement range."""
    out: list[Violation] = []
    mine = ctx.charger_end()
    for eid in ctx.enemy_units():
        if eid in ctx.targets:
            continue
        for c, e in _units_in_er(ctx, mine, eid):
            out.append(
                Violation(
                    "non_target_engaged",
                    f"{c} is in engagement range of {e} ({eid}, not a target)",
                    (c, e),
                )
            )
    return out


def check_engaged_list(ctx: Ctx) -> list[Violation]:
    """`engaged` lists exactly the enemy units in engagement range after a charge
    (none after a failed one)."""
    if not ctx.ruling.eligible:
        return []
    mine = ctx.charger_end()
    actual = {eid for eid in ctx.enemy_units() if _units_in_er(ctx, mine, eid)}
    if not ctx.ruling.success and not ctx.moves:
        actual = set()
    claimed = set(ctx.ruling.engaged)
    if actual != claimed:
        return [
            Violation(
                "engaged_mismatch",
                f"`engaged` says {sorted(claimed)} but the units in engagement range are {sorted(actual)}",
            )
        ]
    return []


def _unit_gap(p: Placed, models: Sequence[Placed]) -> float:
    return min((_hdist(p, q) for q in models), default=math.inf)


def check_closer(ctx: Ctx) -> list[Violation]:
    """Edition 10 / WTC: every charging model ends strictly closer to one of the targets
    than it started (footprint distance to the target unit's nearest model)."""
    return _closer_violations(ctx, ctx.charger_ids())


def _closer_violations(ctx: Ctx, model_ids: Iterable[str]) -> list[Violation]:
    out: list[Violation] = []
    for mid in model_ids:
        s, e = ctx.start.get(mid), ctx.end.get(mid)
        if s is None or e is None:
            continue
        gains = []
        for t in ctx.targets:
            d0 = _unit_gap(s, ctx.unit_start(t))
            d1 = _unit_gap(e, ctx.unit_end(t))
            gains.append(d0 - d1)
            if d1 < d0 - TOL:
                break
        else:
            out.append(
                Violation(
                    "not_closer",
                    f"{mid} does not end closer to any target (gains {[round(g, 6) for g in gains]})",
                    (mid,),
                )
            )
    return out


def _really_moved(ctx: Ctx, mid: str) -> bool:
    """A listed move that leaves the model where it was is no move (for the rules that
    bind only the models that move)."""
    s, e = ctx.start.get(mid), ctx.end.get(mid)
    if s is None or e is None:
        return False
    return not _same_xy(s.xy, e.xy) or abs(s.z - e.z) > TOL


def check_failure(ctx: Ctx) -> list[Violation]:
    """A failed charge moves nobody (edition 10, WTC, or edition 9 without the failed-
    charge move); in edition 9 with it, moved models end closer to a target, in
    coherency and out of engagement range of every enemy."""
    r = ctx.ruling
    may_move = (
        r.eligible and ctx.edition == 9 and not ctx.use_wtc and ctx.before.rules.failed_charge_moves
    )
    if not may_move:
        if r.moves:
            return [
                Violation(
                    "moved_on_failure",
                    "a failed charge moves no model",
                    tuple(mv.id for mv in r.moves),
                )
            ]
        return []
    out = _closer_violations(ctx, [m for m in ctx.moves if _really_moved(ctx, m)])
    if ctx.moves:
        out += coherency_problems(ctx.charger_end(), ctx.edition, ctx.inch)
    mine = ctx.charger_end()
    for eid in ctx.enemy_units():
        em = ctx.unit_end(eid)
        for c in mine:
            for e in em:
                if _within(c, e, ER_H * ctx.inch, ER_V * ctx.inch):
                    out.append(
                        Violation(
                            "engaged_on_failure",
                            f"{c.id} ends a failed charge in engagement range of {e.id}",
                            (c.id, e.id),
                        )
                    )
    return out


def check_heroic(ctx: Ctx) -> list[Violation]:
    """Edition 9 heroic intervention: an eligible CHARACTER unit (not in engagement
    range, within 3" horizontally and 5" vertically of an enemy) moves each model up to
    3", ending closer to the enemy model that was closest to it."""
    out: list[Violation] = []
    u = ctx.charger
    ids = tuple(_ids(u))
    if ctx.edition != 9:
        out.append(Violation("hi_ineligible", "heroic interventions are moves of edition 9", ids))
    if "CHARACTER" not in u.keywords:
        out.append(Violation("hi_ineligible", f"{u.id} is not a CHARACTER unit", ids))
    mine = ctx.unit_start(u.id)
    enemies = [e for eid in ctx.enemy_units() for e in ctx.unit_start(eid)]
    if any(_within(m, e, ER_H * ctx.inch, ER_V * ctx.inch) for m in mine for e in enemies):
        out.append(
            Violation("hi_ineligible", f"{u.id} starts in engagement range of an enemy", ids)
        )
    if not any(
        _within(m, e, HI_REACH_H * ctx.inch, HI_REACH_V * ctx.inch) for m in mine for e in enemies
    ):
        out.append(Violation("hi_ineligible", f'{u.id} is not within 3" of an enemy unit', ids))
    for mid in ctx.moves:
        s, e = ctx.start.get(mid), ctx.end.get(mid)
        if s is None or e is None or not enemies or not _really_moved(ctx, mid):
            continue
        d0 = [_hdist(s, q) for q in enemies]
        best = min(d0)
        nearest = [q for q, d in zip(enemies, d0, strict=True) if d <= best + TOL]
        ok = any(_hdist(e, ctx.end.get(q.id, q)) < best - TOL for q in nearest)
        if not ok:
            out.append(
                Violation(
                    "not_closer",
                    f"{mid} does not end closer to {nearest[0].id}, the enemy model closest to it",
                    (mid, nearest[0].id),
                )
            )
    return out


# --------------------------------------------------------------------------- base contact


def contact_ring(base0: Footprint, target: Footprint, toward: Sequence[float]) -> np.ndarray:
    """Centres at which ``base0`` (a base centred at the origin) exactly touches
    ``target``: the boundary of the Minkowski difference, sampled every RING_STEP_DEG of
    outward normal, densified along flat stretches, plus the spot nearest ``toward``."""
    ang = np.radians(np.arange(0.0, 360.0, RING_STEP_DEG))
    u = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    chunks: list[np.ndarray] = []
    for pt in target.parts:
        for pc in base0.parts:
            ring = pt.support(u) - pc.support(-u)
            chunks.append(ring)
            if isinstance(pt, ConvexPolygon) or isinstance(pc, ConvexPolygon):
                nxt = np.roll(ring, -1, axis=0)
                for f in (0.25, 0.5, 0.75):
                    chunks.append(ring + f * (nxt - ring))
            chunks.append(_nearest_on_ring(pt, pc, toward, ang, ring))
    return np.concatenate(chunks, axis=0)


def _nearest_on_ring(
    pt: Convex, pc: Convex, toward: Sequence[float], ang: np.ndarray, ring: np.ndarray
) -> np.ndarray:
    s = np.asarray(toward, float)
    k = int(np.argmin(np.linalg.norm(ring - s, axis=1)))
    step = math.radians(RING_STEP_DEG)

    def at(t: float) -> np.ndarray:
        v = np.array([[math.cos(t), math.sin(t)]])
        return pt.support(v)[0] - pc.support(-v)[0]

    res = minimize_scalar(
        lambda t: float(np.linalg.norm(at(t) - s)),
        bounds=(float(ang[k]) - step, float(ang[k]) + step),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return at(float(res.x))[None]


def _sd_many(base0: Footprint, cands: np.ndarray, fixed: Footprint, cutoff: float) -> np.ndarray:
    """Signed distance from ``base0`` placed at each candidate centre to ``fixed``; exact
    where it is at most ``cutoff``, a lower bound above it."""
    if base0.is_disc:
        r = base0.parts[0].radius
        return disc_centres_signed_distance(cands, r, fixed)
    lb = (
        np.linalg.norm(cands - np.asarray(fixed.center, float), axis=1)
        - base0.radius
        - fixed.radius
    )
    out = lb.copy()
    for i in np.nonzero(lb <= cutoff)[0]:
        out[i] = signed_distance(base0.translated(cands[i]), fixed)
    return out


def check_base_contact(ctx: Ctx) -> list[Violation]:
    """WTC: a charging model that could have ended in base contact with a target model
    must have done so, unless that spot would break a unit-level condition.

    For each charging model not in base contact with a target model, a dense ring of
    exact contact spots around every target model is searched for one that is reachable
    in a straight line within the budget, overlaps nothing, is on the board, out of
    terrain it may not stand in, out of engagement range of non-targets, and keeps the
    unit coherent and in engagement range of every target with the other models where
    they ended. Only straight moves are tried (a deliberately limited check).
    """
    if ctx.budget is None:
        return []
    out: list[Violation] = []
    mine = ctx.charger_end()
    target_models = [p for t in ctx.targets for p in ctx.unit_end(t)]
    for c in mine:
        mv = ctx.moves.get(c.id)
        if mv is not None and mv.token:
            continue  # TODO (WTC walls): token models are held to the wall, not contact
        if any(_in_base_contact(c, t) for t in target_models):
            continue
        found = _find_contact_spot(ctx, c, mine, target_models)
        if found is not None:
            spot, tid = found
            out.append(
                Violation(
                    "missed_base_contact",
                    f"{c.id} could have ended in base contact with {tid} at "
                    f"[{spot[0]:.4f}, {spot[1]:.4f}]",
                    (c.id, tid),
                    {"spot": [float(spot[0]), float(spot[1])], "target": tid},
                )
            )
    return out


def _find_contact_spot(
    ctx: Ctx, c: Placed, mine: list[Placed], target_models: list[Placed]
) -> tuple[np.ndarray, str] | None:
    assert ctx.budget is not None
    s = ctx.start[c.id]
    m = s.model
    base0 = base_footprint(m.base.kind, m.base.dims, (0.0, 0.0), m.facing, ctx.mmpu)
    budget = ctx.budget
    x0, x1, y0, y1 = _axis_extent(base0)
    W, D = ctx.before.board.width, ctx.before.board.depth
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    others_mine = [p for p in mine if p.id != c.id]
    others_all = [p for mid, p in ctx.end.items() if mid != c.id and mid not in ctx.casualties]
    non_target_models = [
        p for eid in ctx.enemy_units() if eid not in ctx.targets for p in ctx.unit_end(eid)
    ]
    # Which targets stay engaged by the other charging models where they ended.
    engaged_by_others = {t: bool(_units_in_er(ctx, others_mine, t)) for t in ctx.targets}
    blocking = [f for f in ctx.features if _blocks_ending(ctx, f)]

    for t in target_models:
        cands = contact_ring(base0, t.fp, s.xy)
        # straight-line reach (the horizontal length alone is a lower bound of the cost)
        keep = np.linalg.norm(cands - np.asarray(s.xy), axis=1) <= budget + TOL
        keep &= (cands[:, 0] + x0 >= -TOL) & (cands[:, 0] + x1 <= W + TOL)
        keep &= (cands[:, 1] + y0 >= -TOL) & (cands[:, 1] + y1 <= D + TOL)
        cands = cands[keep]
        if len(cands) == 0:
            continue
        # exact contact (sampling is only ever a source of candidates, never a verdict)
        sd_t = _sd_many(base0, cands, t.fp, 1.0)
        cands = cands[np.abs(sd_t) <= TOL]
        for o in others_all:
            if not len(cands):
                break
            if abs(o.z - t.z) <= TOL:
                cands = cands[_sd_many(base0, cands, o.fp, 0.0) >= -TOL]
        for o in non_target_models:
            if not len(cands):
                break
            if abs(o.z - t.z) <= er_v + TOL:
                cands = cands[_sd_many(base0, cands, o.fp, er_h + 1.0) > er_h + TOL]
        for f in blocking:
            if not len(cands):
                break
            cands = cands[_sd_many(base0, cands, f.fp, 0.0) >= -TOL]
        if not len(cands):
            continue
        cands = cands[_keeps_unit(ctx, base0, cands, t.z, others_mine, engaged_by_others)]
        order = np.argsort(np.linalg.norm(cands - np.asarray(s.xy), axis=1))
        for q in cands[order]:
            if _spot_ok(ctx, c, s, base0, q, t, others_mine, engaged_by_others):
                return q, t.id
    return None


def _keeps_unit(
    ctx: Ctx,
    base0: Footprint,
    cands: np.ndarray,
    z: float,
    others: list[Placed],
    engaged_by_others: dict[str, bool],
) -> np.ndarray:
    """For many candidate spots at once: would the unit, with this model there and the
    others where they ended, be coherent and in engagement range of every target?
    (A fast filter; :func:`_spot_ok` confirms the survivors one by one.)"""
    keep = np.ones(len(cands), bool)
    er_h, er_v = ER_H * ctx.inch, ER_V * ctx.inch
    for tid, ok in engaged_by_others.items():
        if ok:
            continue
        hit = np.zeros(len(cands), bool)
        for e in ctx.unit_end(tid):
            if abs(e.z - z) <= er_v + TOL:
                hit |= _sd_many(base0, cands, e.fp, er_h + 1.0) <= er_h + TOL
        keep &= hit
    if not others:
        return keep
    coh_h, coh_v = COH_H * ctx.inch, COH_V * ctx.inch
    need = 2 if len(others) + 1 >= TWO_NEIGHBOURS_FROM[ctx.edition] else 1
    adj_c = np.zeros((len(cands), len(others)), bool)
    for j, o in enumerate(others):
        if abs(o.z - z) <= coh_v + TOL:
            adj_c[:, j] = _sd_many(base0, cands, o.fp, coh_h + 1.0) <= coh_h + TOL
    adj: list[list[int]] = [[] for _ in others]
    for i in range(len(others)):
        for j in range(i + 1, len(others)):
            if _within(others[i], others[j], coh_h, coh_v):
                adj[i].append(j)
                adj[j].append(i)
    keep &= adj_c.sum(axis=1) >= need
    for i, nb in enumerate(adj):
        if len(nb) < need:
            keep &= adj_c[:, i] & (len(nb) + 1 >= need)
    for group in _components(adj):
        keep &= adj_c[:, group].any(axis=1)
    return keep


def _spot_ok(
    ctx: Ctx,
    c: Placed,
    s: Placed,
    base0: Footprint,
    q: np.ndarray,
    t: Placed,
    others_mine: list[Placed],
    engaged_by_others: dict[str, bool],
) -> bool:
    assert ctx.budget is not None
    xy = (float(q[0]), float(q[1]))
    ground = _ground(xy, ctx.hills)
    z = t.z
    fp = base0.translated(xy)
    p = Placed(c.id, c.unit, c.player, s.model, xy, z, ground, fp)
    if p.elevated and _floor_ok(ctx, c.unit, fp, z) is not None:
        return False
    cost = path_cost(ctx, s, [s.xy, xy], z, p.elevated)
    if cost.blocked or cost.total > ctx.budget + TOL:
        return False
    for tid, ok in engaged_by_others.items():
        if not ok and not _units_in_er(ctx, [p], tid):
            return False
    return not coherency_problems([*others_mine, p], ctx.edition, ctx.inch)


__all__ = [
    "Ctx",
    "Feature",
    "MoveCost",
    "Placed",
    "check_after",
    "check_base_contact",
    "check_closer",
    "check_coherency",
    "check_end_positions",
    "check_engaged_list",
    "check_eligibility",
    "check_facing",
    "check_failure",
    "check_heroic",
    "check_non_targets",
    "check_paths",
    "check_roll",
    "check_targets_engaged",
    "coherency_problems",
    "contact_ring",
    "unit_coherency",
    "path_cost",
    "validate",
]
