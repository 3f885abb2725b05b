"""Pivots for 40k charges: non-round models that turn about their centre before they
move.

INTERPRETATION (docs/40k.md, "Pivots"): a model may turn about its centre; a turn by
``Δ`` costs ``R·|Δ|`` of its move, ``R`` being the largest distance from its centre to
its base's edge (the distance travelled by the point of the base that moves furthest).
The area the base sweeps while it turns must be as clear as a path must be: it may not
cross anything the move may not cross, nor anything that would be climbed (a model does
not climb while it turns), nor the engagement range of a non-target where the edition
keeps paths out of it.

What the search offers: every non-round model keeps its facing (no pivot), or all of
them, or only the model nearest the targets, turn at their start spot to a facing
*built* from the geometry (no angular grid):

* ``reach``: the base's furthest point (a corner, an end of the long axis) aimed at the
  nearest point of the nearest target model (the least reach toward it);
* ``gap``: the long side along a gap the straight line toward that point runs through
  (two parallel flat faces of terrain or the target facing each other, closer than
  twice the base's reach): the facing that lets the model fit between them;
* ``face``: the long side parallel to the flat face nearest to that point (a rect or
  hull target's edge, or a wall's side);
* ``tangent``: the long side parallel to the tangent of a round or oval target at that
  point (for an oval target: at the point its centre direction meets).

Each plan is a world whose pivoting models stand turned at their start, solved by the
same engine with the pivot's length added to every path cost of the model
(``ChargeProblem(pivot_cost=...)``); the plan with the least needed roll (then
distance) wins, and a plan is only tried when the unturned answer is not already
proven least. Plans that cannot win are not searched (``plan_floor`` before building,
``may_win`` after), and a plan's problem borrows the unturned problem's path fields
for the bases it does not turn (``SharedFields``). The straight-line lower bound stays proven: no point of the base moves
farther than ``R·|Δ|`` in the turn, so the gap to a target shrinks by at most the cost
paid. Pivots at the end spot are not searched (the validator accepts them). When the
charge is rolled, ``W40k.charge`` places the unit without pivots if that roll allows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...geometry.paths import Barrier
from ...geometry.pivot import extent, pivot_length, pivotable, reach, sweep, turn_between, turned
from ...geometry.shapes import TOL, ConvexPolygon, Disc, Ellipse, Footprint, signed_distance
from .plan_banks import SharedBanks
from .solver import BUDGET_SLACK, ChargeProblem
from .world import Model, World

#: the plans tried, in order (a later plan replaces an earlier one only when strictly better)
RULES = ("reach", "gap", "face", "tangent")


@dataclass(frozen=True)
class Plan:
    """Which models turn at their start, and to what facing (degrees)."""

    rule: str
    facing: dict[str, float]

    def key(self) -> tuple:
        return tuple(sorted((k, round(v, 9)) for k, v in self.facing.items()))


def _closest_on(fp: Footprint, p: np.ndarray) -> np.ndarray:
    """The point of target footprint ``fp`` nearest ``p`` (for an ellipse part: where the
    direction to its centre meets its boundary; the facing built from it is a candidate,
    not a bound)."""
    best, bd = fp.center, math.inf
    for part in fp.parts:
        if isinstance(part, Disc):
            v = p - part.center
            n = float(np.hypot(*v))
            q = part.center + (v / n * part.r if n > 0 else np.zeros(2))
        elif isinstance(part, ConvexPolygon):
            V = part.V
            q, qd = V[0], math.inf
            for a, b in zip(V, np.roll(V, -1, axis=0), strict=True):
                e = b - a
                t = float(np.clip((p - a) @ e / max(float(e @ e), 1e-300), 0.0, 1.0))
                c = a + t * e
                d = float(np.hypot(*(p - c)))
                if d < qd:
                    q, qd = c, d
        elif isinstance(part, Ellipse):
            v = p - part.center
            n = float(np.hypot(*v))
            u = v / n if n > 0 else np.array([1.0, 0.0])
            q = part.center + u * _ellipse_radius(part, u) if n > 0 else part.center
        else:
            q = part.support((p - part.center)[None])[0]
        d = float(np.hypot(*(p - q)))
        if d < bd:
            best, bd = q, d
    return np.asarray(best, dtype=float)


def _ellipse_radius(e: Ellipse, u: np.ndarray) -> float:
    """Distance from an ellipse's centre to its boundary in direction ``u`` (closed form)."""
    loc = u @ e.R
    return 1.0 / math.sqrt((loc[0] / e.a) ** 2 + (loc[1] / e.b) ** 2)


def _long_direction(m: Model) -> float:
    """The direction (degrees) of the base's long side or long axis at its facing."""
    p = m.fp.parts[0]
    if isinstance(p, Ellipse):
        return math.degrees(p.theta) if p.a >= p.b else math.degrees(p.theta) + 90.0
    V = p.V  # type: ignore[attr-defined]
    E = np.roll(V, -1, axis=0) - V
    k = int(np.argmax(np.hypot(E[:, 0], E[:, 1])))
    return math.degrees(math.atan2(E[k, 1], E[k, 0]))


def _parallel_turn(m: Model, direction: float) -> float:
    """The least turn (degrees) that lays the long side along ``direction`` (either way:
    a side has no sense)."""
    d = turn_between(_long_direction(m), direction)
    return (d + 90.0) % 180.0 - 90.0


def _reach_turn(m: Model, toward: np.ndarray) -> float:
    """The least turn that aims one of the base's furthest points at ``toward``."""
    from ...geometry.pivot import extreme_points

    ex = extreme_points(m.fp)
    r = np.hypot(ex[:, 0], ex[:, 1])
    top = ex[r >= r.max() - 1e-12]
    v = toward - m.xy
    if float(np.hypot(*v)) == 0.0:
        return 0.0
    aim = math.degrees(math.atan2(v[1], v[0]))
    turns = [turn_between(math.degrees(math.atan2(e[1], e[0])), aim) for e in top]
    return min(turns, key=abs)


def _faces_near(world: World, targets: list[Model], q: np.ndarray, reach_: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Flat faces (edges) of rect/hull targets and of walls and other polygonal terrain
    whose edge comes within ``reach_`` of the point ``q``."""
    out = []
    polys = [p for t in targets if not t.fp.is_disc for p in t.fp.parts if isinstance(p, ConvexPolygon)]
    polys += [p for f in world.features for p in f.fp.parts if isinstance(p, ConvexPolygon)]
    for p in polys:
        V = p.V
        for a, b in zip(V, np.roll(V, -1, axis=0), strict=True):
            e = b - a
            L2 = float(e @ e)
            if L2 == 0:
                continue
            t = float(np.clip((q - a) @ e / L2, 0.0, 1.0))
            if float(np.hypot(*(q - (a + t * e)))) <= reach_ + TOL:
                out.append((a, b))
    return out


def _seg_gap(a: np.ndarray, b: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """Distance between segments a-b and p-q (closed form: they cross, or an end point
    is nearest)."""
    def cross(o, u, v):  # noqa: ANN001, ANN202
        return (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0])

    if cross(a, b, p) * cross(a, b, q) < 0 and cross(p, q, a) * cross(p, q, b) < 0:
        return 0.0

    def pt(x, u, v):  # noqa: ANN001, ANN202
        e = v - u
        L2 = float(e @ e)
        t = 0.0 if L2 == 0 else float(np.clip((x - u) @ e / L2, 0.0, 1.0))
        return float(np.hypot(*(x - (u + t * e))))

    return min(pt(a, p, q), pt(b, p, q), pt(p, a, b), pt(q, a, b))


def _gap_direction(world: World, t: Model, c: np.ndarray, q: np.ndarray, R: float) -> float | None:
    """The direction (degrees) of a gap the model must pass or end in on its way to
    ``q``: two parallel flat faces (of terrain or the target) that face each other, both
    within ``R`` of the straight line from ``c`` to ``q``, less than ``2 R`` apart; the
    pair nearest ``q`` wins. None when there is no such pair."""
    faces = []
    polys = [p for p in t.fp.parts if isinstance(p, ConvexPolygon)]
    polys += [p for f in world.features for p in f.fp.parts if isinstance(p, ConvexPolygon)]
    for p in polys:
        V = p.V
        for a, b in zip(V, np.roll(V, -1, axis=0), strict=True):
            e = b - a
            L = float(np.hypot(*e))
            if L > 0 and _seg_gap(a, b, c, q) <= R + TOL:
                faces.append((a, b, e / L))
    best: tuple[float, float] | None = None
    for i, (a1, b1, u1) in enumerate(faces):
        n1 = np.array([u1[1], -u1[0]])  # outward for a counter-clockwise polygon
        for a2, b2, u2 in faces[i + 1:]:
            if abs(float(u1 @ u2) + 1.0) > 1e-9:
                continue  # facing each other: opposite edge directions
            w = float((a2 - a1) @ n1)
            if not (0.0 < w < 2.0 * R):
                continue
            d = min(_seg_gap(a1, b1, q, q), _seg_gap(a2, b2, q, q))
            if best is None or d < best[0]:
                best = (d, math.degrees(math.atan2(u1[1], u1[0])))
    return None if best is None else best[1]


def _candidate_turns(world: World, m: Model, targets: list[Model]) -> dict[str, float]:
    """The constructed turns (degrees) of model ``m``, by rule."""
    if not targets:
        return {}
    dists = [float(signed_distance(m.fp, t.fp)) for t in targets]
    t = targets[int(np.argmin(dists))]
    q = _closest_on(t.fp, m.xy)
    out: dict[str, float] = {"reach": _reach_turn(m, q)}
    R = reach(m.fp)
    faces = _faces_near(world, [t], q, 2.0 * R)
    if faces:
        def gap(ab: tuple[np.ndarray, np.ndarray]) -> float:
            a, b = ab
            e = b - a
            s = float(np.clip((q - a) @ e / float(e @ e), 0.0, 1.0))
            return float(np.hypot(*(q - (a + s * e))))

        a, b = min(faces, key=gap)
        out["face"] = _parallel_turn(m, math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])))
    gap = _gap_direction(world, t, m.xy, q, R)
    if gap is not None:
        out["gap"] = _parallel_turn(m, gap)
    part = t.fp.parts[0]
    if len(t.fp.parts) == 1 and isinstance(part, (Disc, Ellipse)):
        n = q - part.center
        if float(np.hypot(*n)) > 0:
            out["tangent"] = _parallel_turn(m, math.degrees(math.atan2(n[0], -n[1])))
    return out


def sweep_clear(m: Model, delta: float, barriers: list[Barrier]) -> bool:
    """Is the region the base sweeps turning by ``delta`` at its spot clear of every
    barrier (hard, climbed, or a grown engagement range)? Touching is allowed."""
    if abs(delta) <= 1e-12:
        return True
    sw = sweep(m.fp, delta)
    R = reach(m.fp)
    c = m.xy
    for b in barriers:
        fp = b.footprint
        if float(np.hypot(*(fp.center - c))) - fp.radius > R + TOL:
            continue
        if signed_distance(sw, fp) < -TOL:
            return False
    return True


def sweep_on_board(m: Model, delta: float, board: tuple[float, float]) -> bool:
    """Does the region the base sweeps turning by ``delta`` at its spot stay on the board
    (an edge may be touched)? A long axis or a corner that passes the direction of an
    edge reaches farther than the base at either facing, so both ends on the board is not
    enough."""
    x0, x1, y0, y1 = extent(sweep(m.fp, delta))
    return x0 >= -TOL and y0 >= -TOL and x1 <= board[0] + TOL and y1 <= board[1] + TOL


def plans(world: World, unit: str, targets: list[str], barriers: list[Barrier] | None,
          prefix: str = "") -> list[Plan]:
    """The pivot plans worth a solve: per rule, every pivotable model turned, and only the
    model nearest the targets turned. With ``barriers`` (turns at the start spot) models
    whose sweep there is not clear or leaves the board keep their facing; with None (turns
    at the end spot, whose sweep is checked spot by spot) no sweep is checked here.
    ``prefix`` goes before each plan's rule name."""
    movers = [m for m in world.unit_models[unit] if pivotable(m.fp)]
    tms = [t for u in targets for t in world.unit_models[u]]
    if not movers or not tms:
        return []
    turns = {m.id: _candidate_turns(world, m, tms) for m in movers}
    near = min(movers, key=lambda m: min(float(signed_distance(m.fp, t.fp)) for t in tms))
    out: list[Plan] = []
    seen: set[tuple] = set()
    for rule in RULES:
        for who in (movers, [near]):
            fac: dict[str, float] = {}
            for m in who:
                d = turns[m.id].get(rule)
                if d is None or abs(d) <= 1e-9:
                    continue
                if barriers is not None and not (sweep_clear(m, d, barriers) and sweep_on_board(m, d, world.board)):
                    continue
                fac[m.id] = m.facing + d
            if not fac:
                continue
            p = Plan(prefix + rule, fac)
            if p.key() not in seen:
                seen.add(p.key())
                out.append(p)
    return out


def apply_plan(world: World, plan: Plan) -> tuple[World, dict[str, float], dict[str, tuple[float, float]]]:
    """A world where the plan's models stand turned at their start; their pivot lengths;
    and each pivot as (from facing, to facing)."""
    models: list[Model] = []
    cost: dict[str, float] = {}
    turns: dict[str, tuple[float, float]] = {}
    for m in world.models:
        f = plan.facing.get(m.id)
        if f is None:
            models.append(m)
            continue
        d = turn_between(m.facing, f)
        models.append(replace(m, fp=turned(m.fp, d), facing=m.facing + d))
        cost[m.id] = pivot_length(m.fp, d)
        turns[m.id] = (m.facing, m.facing + d)
    unit_models = {u: [models[m.index] for m in ms] for u, ms in world.unit_models.items()}
    w2 = replace(world, models=models, unit_models=unit_models)
    w2.__dict__.pop("by_id", None)
    return w2, cost, turns


class MemoField:
    """A path field that remembers the cost of each goal it was asked (keyed by the
    goal's exact coordinates), shared by every plan's problem that borrows the field:
    the plans of one charge ask their unturned models about many of the same spots.

    perf, exact: a field answers each goal from that goal alone (its straight segment,
    the corners it touches, its own polyline and the exact tangent graph over the
    obstacles near that polyline, each keyed by what it is built from), so a goal's
    cost is the same number whatever other goals are asked with it or before it
    (tests/w40k/test_pivots_speed.py compares the two bit for bit)."""

    def __init__(self, field) -> None:  # noqa: ANN001
        self.field = field
        self.memo: dict[bytes, float] = {}

    def cost(self, goals: np.ndarray) -> np.ndarray:
        goals = np.ascontiguousarray(np.atleast_2d(np.asarray(goals, dtype=float)))
        out = np.empty(len(goals))
        keys = [g.tobytes() for g in goals]
        todo = []
        for i, k in enumerate(keys):
            v = self.memo.get(k)
            if v is None:
                todo.append(i)
            else:
                out[i] = v
        if todo:
            c = np.asarray(self.field.cost(goals[todo]), dtype=float)
            out[todo] = c
            for i, v in zip(todo, c, strict=True):
                self.memo[keys[i]] = float(v)
        return out

    def __getattr__(self, name: str):  # noqa: ANN204 (path, base, budget: the field's own)
        return getattr(self.field, name)


class SharedFields(SharedBanks):
    """A mixin for a plan's problem (before ``ChargeProblem``): the path fields of the
    models whose travelling base the plan leaves as it was are taken from the unturned
    problem ``field_source`` instead of being planned again.

    perf, exact: a field is the shortest-path tree from one start for one base among
    the problem's barriers on the board, within the cap; each of its caches (the exact
    tangent graphs, the smooth graphs) is keyed by the very set of obstacles it is built
    over, so what it answers depends on those inputs alone, never on what it was asked
    before. A plan turns only models of the charging unit, which are not among the
    barriers of their own moves, so the barriers are the same; the field is borrowed
    only when the source planned it for the same base object, the same cap and a
    barrier list with the same ids, prices and shapes (checked, not assumed). The
    first candidate spots are shared the same way (``SharedBanks``, plan_banks.py)."""

    field_source = None

    def _barrier_key(self) -> tuple:
        key = self.__dict__.get("_bkey")
        if key is None:
            key = self._bkey = (self.w.board, tuple(
                (b.id, b.cost, tuple(np.round(b.footprint.center, 12)), round(b.footprint.radius, 12))
                for b in self.barriers))
        return key

    def borrow(self, mid: str, fp: Footprint):  # noqa: ANN201
        """The source's field of model ``mid`` planned for base ``fp``, or None."""
        src = self.field_source
        if src is None:
            return None
        f = src._fields.get(mid)
        if f is None or f.base is not fp or f.budget != self.cap + BUDGET_SLACK:
            return None
        if SharedFields._barrier_key(src) != self._barrier_key():
            return None
        memo = src.__dict__.setdefault("_memo_fields", {})
        if mid not in memo or memo[mid].field is not f:
            memo[mid] = MemoField(f)
        return memo[mid]

    def field(self, m: Model):  # noqa: ANN201
        if m.id not in self._fields:
            f = self.borrow(m.id, m.fp)
            if f is not None:
                self._fields[m.id] = f
        return super().field(m)  # type: ignore[misc]


class StartTurnProblem(SharedFields, ChargeProblem):
    """A start plan's charge (``pivots.best_plan``): its models stand turned in the
    world given; the models the plan does not turn borrow their path fields from
    ``field_source``, the unturned problem (``SharedFields``)."""

    def __init__(self, *a, field_source: ChargeProblem | None = None, **kw) -> None:  # noqa: ANN002, ANN003
        self.field_source = field_source
        super().__init__(*a, **kw)


def _better(a, b) -> bool:  # noqa: ANN001 (Needed)
    """Is need ``a`` strictly better than ``b``: a roll where there was none, a lower
    roll, or the same roll with a shorter distance (beyond the tolerance)?"""
    if a.roll is None:
        return False
    if b.roll is None:
        return True
    if a.roll != b.roll:
        return a.roll < b.roll
    return a.distance is not None and b.distance is not None and a.distance < b.distance - TOL


def proven_least(need, lb: float) -> bool:  # noqa: ANN001
    """No pivot can improve an answer whose distance already meets the proven lower bound
    (that bound holds with pivots, see the module docstring)."""
    return need.roll is not None and need.distance is not None and need.distance <= lb + TOL


def best_plan(system, world: World, req, prob, bare, need):  # noqa: ANN001, ANN201
    """The problem to rule on: ``prob`` unturned, or the pivot plan whose needed roll and
    distance are strictly better. Returns (prob, bare, need, turns) where ``turns`` maps
    each pivoting model to (from facing, to facing); empty without a pivot. A plan whose
    proven floor (``plan_floor``) cannot beat the best found is not solved, nor one that
    fails the probe at the level a better answer would need (``may_win``)."""
    if proven_least(need, prob.lower_bound()):
        return prob, bare, need, {}
    best = (prob, bare, need, {})
    for plan in plans(world, prob.unit, list(prob.targets), prob.barriers):
        if _hopeless(plan_floor(world, prob, plan), best[2]):
            continue  # perf: a proven bound says it cannot do better (no solve)

        def make(plan: Plan = plan):  # noqa: ANN202
            w2, cost, turns = apply_plan(world, plan)
            p2 = StartTurnProblem(w2, prob.unit, list(prob.targets), prob.cap, pivot_cost=cost, field_source=prob)
            # "ends closer" and the lower bound measure from where the model stood before
            # it turned (the same models in the same order)
            p2.start_dist = prob.start_dist.copy()
            b2 = system.open_field(w2, req, prob.cap, pivot_cost=cost)
            if b2 is not None:
                b2.start_dist = bare.start_dist.copy() if bare is not None else b2.start_dist
            p2.pivots = turns
            return p2, b2

        built = probed(system, make, best[2])
        if built is None:
            continue
        p2, b2 = built
        n2, _ = system.needed_on(p2, b2)
        if _better(n2, best[2]):
            best = (p2, b2, n2, p2.pivots)
    return best


def probe_level(need) -> float | None:  # noqa: ANN001
    """The move a plan must manage to be strictly better than ``need`` (``_better``), or
    None when any answer would be (no roll yet).

    Proof. ``needed_on`` reports a distance ``d`` that a placement it found reaches
    (its longest move, or for a walls-rule placement the level it was found at) and the
    roll ``least_roll(d)``. A strictly better answer has either a lower roll, which a
    solve at ``need.roll - 1`` finds (its budget test has the same slack as
    ``least_roll``; the level here is 1e-6 above it, so a little more is accepted, never
    less), or the same roll and ``d < need.distance - TOL``. Either way a placement
    exists within the larger of those two levels."""
    if need.roll is None:
        return None
    level = need.roll - 1 + 1e-6
    if need.distance is not None:
        level = max(level, need.distance - TOL)
    return level


def probed(system, make, need):  # noqa: ANN001, ANN201
    """The plan's (problem, open-field twin) to search in full, from ``make()``, or None
    when the probe (``may_win``) says it cannot beat ``need``. The probe runs on a
    problem of its own: a search grows its problem's spots, so the plan that passes is
    searched on a copy of the problem as it was built (``pristine``, taken before the
    probe) and its answer is the one the full search alone gives. With nothing to probe
    (no roll yet) the problem is searched as built."""
    built = make()
    if probe_level(need) is None:
        return built
    fresh = tuple(pristine(x) for x in built)
    if not may_win(system, *built, need):
        return None
    return fresh


#: ``pristine``: what a copy of a problem shares with the original (read only after the
#: problem is built: the world and its models, the move's rules, the planners and the
#: barriers they plan among, the unturned problem whose fields a plan borrows)
_SHARED = frozenset({"w", "rules", "planner", "sky_planner", "straight", "barriers", "field_source", "models",
                     "tmodels", "all_targets", "nontarget_models", "other_models", "blockers", "across"})
#: ``pristine``: the caches a copy shares with the original (each exact by its own
#: contract: an entry depends only on what its key names, never on what was asked
#: before, and holds the objects its key names by id, so no id is reused while it lives)
_MEMOS = frozenset({"_locus_memo_d", "_crossings_memo", "_grow_memo", "_board_lines_memo", "_others_memo",
                    "_memo_fields"})


def pristine(p):  # noqa: ANN001, ANN201
    """A copy of problem ``p`` (or None) whose search state is ``p``'s own now: its
    spot banks, costs and every buffer copied, so a search on either leaves the other
    as it was.

    perf, exact: ``probed`` built a plan's problem twice (once for the probe, once for
    the full search, which must start from the state the problem is built in); the
    copy replaces the second build. What the copy shares is either never written after
    the problem is built (``_SHARED``), or a path field (``_fields``: a field answers
    each goal from that goal alone, see ``MemoField``) or a cache whose entries depend
    only on their keys (``_MEMOS``); so the copy's search asks the same questions and
    gets the same answers as a search on a problem built afresh, and every other
    attribute (the banks, costs, buffers, the placements found) is a deep copy of the
    state right after building (tests/w40k/test_pivots_speed.py compares the rulings)."""
    if p is None:
        return None
    import copy

    memo: dict[int, object] = {id(m): m for m in p.w.models}
    for v in p.__dict__.values():
        if isinstance(v, dict):
            memo.update((id(x), x) for x in v.values() if isinstance(x, Model))
    q = object.__new__(type(p))
    for k, v in p.__dict__.items():
        if k in _SHARED or k in _MEMOS:
            q.__dict__[k] = v
        elif k in ("_fields", "_sky_fields"):
            q.__dict__[k] = dict(v)
        else:
            q.__dict__[k] = copy.deepcopy(v, memo)
    return q


def may_win(system, p2, b2, need) -> bool:  # noqa: ANN001
    """Can the plan's problem ``p2`` (open-field twin ``b2``) be strictly better than
    ``need``? False when the search finds no placement at ``probe_level(need)``.

    perf, proof: the engine's feasibility grows with the roll (a placement legal within
    R is legal within any larger R; ``needed_on``'s bisection stands on the same
    property), so a plan with no placement at that level has none at any level a better
    answer needs (``probe_level``), and its full least-roll search (a bisection over
    rolls, then over distances, each step a solve) cannot end better. One solve instead
    of that search; the caller solves a plan that passes on a fresh problem, so its
    answer is the one the full search gives."""
    level = probe_level(need)
    if level is None:
        return True
    return system.solve_any(p2, b2, level, improve=False)[0] is not None


def plan_floor(world: World, prob, plan: Plan) -> float:  # noqa: ANN001
    """A proven lower bound on the least move of a plan (start or end turns alike): to
    engage a target some model gets within the engagement range of it (2" where a
    barricade lets it fight across, as in ``ChargeProblem.lower_bound``); a model that
    turns pays ``R·|Δ|`` on top of a path no shorter than the straight gap from its
    turned base at its start to the target (each point of the base ends no farther
    from where it was than the path plus the turn), one that does not pays at least its
    own gap."""
    r = world.rules
    reach_ = r.er
    if any(kind == "barricade" for _, _, kind in prob.across):
        reach_ = max(reach_, 2.0 * r.inch)
    floor = 0.0
    for tl in prob.tmodels:
        best = np.inf
        for pm in prob.models:
            m = world.by_id[pm.id]  # as it stands in ``world`` (``prob`` may be a turned plan's)
            f = plan.facing.get(m.id)
            if f is None:
                fp, extra = m.fp, 0.0
            else:
                d = turn_between(m.facing, f)
                fp, extra = turned(m.fp, d), pivot_length(m.fp, d)
            gap = min(max(0.0, float(signed_distance(fp, t.fp))) for t in tl)
            best = min(best, gap + extra)
        floor = max(floor, best - reach_)
    return max(floor, 0.0)


def _hopeless(floor: float, need) -> bool:  # noqa: ANN001
    """Can no plan whose least move is at least ``floor`` be strictly better than
    ``need`` (the same test as ``pivots._better``)?"""
    return need.roll is not None and need.distance is not None and floor >= need.distance - TOL \
        and math.ceil(floor - 1e-6) >= need.roll


def best_plan_built(system, world: World, prob, need, build):  # noqa: ANN001, ANN201
    """``best_plan`` for a caller that builds its own problems (edition 11 builds its
    charge with the edition's closer duty and no open-field twin): ``build(world, cost)``
    returns the problem on a world whose plan's models stand turned, paying ``cost``.
    Returns (prob, need, turns), ``turns`` empty when no plan is strictly better. A plan
    whose proven floor (``plan_floor``) cannot beat the best found, or that fails the
    probe (``may_win``), is not solved."""
    if proven_least(need, prob.lower_bound()):
        return prob, need, {}
    best = (prob, need, {})
    for plan in plans(world, prob.unit, list(prob.targets), prob.barriers):
        if _hopeless(plan_floor(world, prob, plan), best[1]):
            continue  # perf: a proven bound says it cannot do better (no solve)

        def make(plan: Plan = plan):  # noqa: ANN202
            w2, cost, turns = apply_plan(world, plan)
            p2 = build(w2, cost)
            # "ends closer" and the lower bound measure from where the model stood before
            # it turned (the same models in the same order)
            p2.start_dist = prob.start_dist.copy()
            p2.pivots = turns
            return p2

        built = probed(system, lambda make=make: (make(), None), best[1])
        if built is None:
            continue
        p2 = built[0]
        n2, _ = system.needed_on(p2, None)
        if _better(n2, best[1]):
            best = (p2, n2, p2.pivots)
    return best


def replan(system, world: World, req, prob, turns: dict[str, tuple[float, float]]):  # noqa: ANN001, ANN201
    """The same pivots on another world of the same charge (after casualties): the
    problem and its open-field twin. Models no longer there are left out."""
    from .solver import ChargeProblem

    plan = Plan("same", {k: v[1] for k, v in turns.items() if k in world.by_id})
    w2, cost, t2 = apply_plan(world, plan)
    p2 = ChargeProblem(w2, prob.unit, list(prob.targets), prob.cap, pivot_cost=cost)
    p2.start_dist = prob.start_dist.copy()
    p2.pivots = t2
    b2 = system.open_field(w2, req, prob.cap, pivot_cost=cost)
    return p2, b2


__all__ = ["Plan", "apply_plan", "best_plan", "best_plan_built", "may_win", "plan_floor", "plans", "pristine", "probe_level", "probed", "proven_least", "replan", "SharedFields", "StartTurnProblem", "sweep_clear", "sweep_on_board"]
