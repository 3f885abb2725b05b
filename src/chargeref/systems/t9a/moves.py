"""The other moves of the charge phase: failed charges, flees, charges against a
fleeing unit, blocked-path charges and the charged unit's combat reform."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import budget
from ...geometry.shapes import TOL
from .block import FACINGS, Block
from .charge import count_1d, target_profile
from .flee_forward import closing_forwards
from .flee_wheel import BISECT_TOL, best_wheel, critical_wheels
from .geom import Shape, gap, sweep_translate, unit, wrap_deg
from .geom_move import near_interval, time_of_impact
from .geom_turn import rot_sweep_gap
from .world import Blocked, Obstacle, Step, World, run_steps

#: units that may not touch stop this far short (in inches; see docs/t9a.md)
STOP_MARGIN_IN = 1e-3


def stop_margin(world: World) -> float:
    return STOP_MARGIN_IN * world.inch


def _strict_obstacles(world: World, mover: Block, ignore: set[str] = frozenset()) -> list[Obstacle]:  # type: ignore[assignment]
    """Failed charges and other moves that end short of enemies: friends and terrain
    may be touched, enemies are kept at a hair's breadth."""
    m = stop_margin(world)
    sp = world.charge_spacing()
    out = []
    for ob in world.obstacles(mover, ignore=set(ignore), spacing=sp):
        if ob.cls == "enemy" and sp is None:
            out.append(Obstacle(ob.uid, ob.cls, ob.shape, m, False))
        else:
            # bisection ends at the boundary: keep a few tolerances of clearance so
            # that an independent check never sees a touch as an overlap
            out.append(Obstacle(ob.uid, ob.cls, ob.shape, max(ob.min_gap, 4 * TOL), ob.strict))
    return out


def _max_turn(world: World, b: Block, deg: float, obst: list[Obstacle], pivot: np.ndarray | None = None) -> float:
    """The largest turn (same sign, |t| <= |deg|) that stays clear."""
    def step(t: float) -> Step:
        if pivot is None:
            return Step("wheel", t, label="wheel")
        return Step("turn", t, pivot=(float(pivot[0]), float(pivot[1])))

    if deg == 0 or world.check_steps(b, [step(deg)], obst) is None:
        return deg
    lo, hi = 0.0, deg
    for _ in range(50):
        mid = (lo + hi) / 2
        if world.check_steps(b, [step(mid)], obst) is None:
            lo = mid
        else:
            hi = mid
        if abs(hi - lo) < 1e-9:
            break
    return lo


def _max_forward(world: World, b: Block, d: float, obst: list[Obstacle]) -> float:
    if d <= 0:
        return 0.0
    if world.check_steps(b, [Step("forward", d)], obst) is None:
        return d
    lo, hi = 0.0, d
    for _ in range(60):
        mid = (lo + hi) / 2
        if world.check_steps(b, [Step("forward", mid)], obst) is None:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-10:
            break
    return lo


# ----------------------------------------------------------------------------- failed charge


def heading_error(b: Block, target: np.ndarray) -> float:
    """Signed angle (degrees) from the unit's facing to the line from its centre to
    ``target``."""
    v = np.asarray(target, float) - b.centre
    return wrap_deg(math.degrees(math.atan2(float(v[1]), float(v[0]))) - b.facing)


def wheel_to_face(b: Block, target: np.ndarray) -> float:
    """The wheel (about the inner front corner) after which the unit's centre line
    runs through ``target``, in closed form.

    Wheeling by ``t`` about the pivot ``Q`` turns the heading ``h`` and the vector from
    ``Q`` to the centre ``C`` together, so ``cross(h, C - Q)`` never changes (call it
    ``k``). The centre line runs through ``T`` when ``cross(h, T - C) = 0``, that is
    ``cross(h(t), T - Q) = k``, or ``|T - Q| sin(angle(T - Q) - facing - t) = k``: two
    roots; the wheel is the smallest one in the direction of the target that leaves
    it ahead."""
    T = np.asarray(target, float)
    e0 = heading_error(b, T)
    if abs(e0) < 1e-12:
        return 0.0
    sgn = 1.0 if e0 > 0 else -1.0
    Q = b.wheel_pivot(sgn)
    h0 = b.f
    u = T - Q
    ru = float(np.hypot(*u))
    k = float(h0[0] * (b.centre - Q)[1] - h0[1] * (b.centre - Q)[0])
    if ru < 1e-12 or abs(k) > ru:
        return sgn * 180.0  # the target is within the wheel's circle: no wheel faces it
    au = math.atan2(float(u[1]), float(u[0]))
    f0 = math.radians(b.facing)
    best: float | None = None
    for g in (math.asin(k / ru), math.pi - math.asin(k / ru)):
        t = math.degrees(au - f0 - g)
        t = (t * sgn) % 360.0 * sgn  # the same root, turned the target's way
        if abs(t) > 180.0 + 1e-9:
            continue
        after = b.wheeled(t)
        ahead = float((T - after.centre) @ after.f) > 0
        if ahead and (best is None or abs(t) < abs(best)):
            best = t
    return sgn * 180.0 if best is None else best


@dataclass
class FailedMove:
    steps: list[Step]
    wheel: float
    wheel_wanted: float
    forward: float
    distance: int
    stopped_by: list[str] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        return {"distance": self.distance, "wheel": round(self.wheel, 9), "wheel_to_face": round(self.wheel_wanted, 9),
                "forward": round(self.forward, 9), "stopped_by": self.stopped_by}


def failed_charge_move(world: World, b: Block, aim: np.ndarray, distance: float) -> FailedMove:
    """Seed 001, Failed Charge: move the highest D6; first wheel until facing the
    target's centre (or until blocked, or out of distance), then straight on."""
    obst = _strict_obstacles(world, b)
    want = wheel_to_face(b, aim)
    stopped: list[str] = []
    w = b.width if not b.round else 0.0
    cost = math.radians(abs(want)) * w
    if b.round:
        # a round base turns freely to face the point
        steps: list[Step] = []
        turn = heading_error(b, aim)
        if turn:
            steps.append(Step("turn", turn, pivot=(float(b.centre[0]), float(b.centre[1])), label="pivot"))
        cur = run_steps(b, steps)
        fw = _max_forward(world, cur, distance, obst)
        if fw < distance - 1e-9:
            stopped.append(_who(world, cur, Step("forward", distance), obst))
        if fw > 0:
            steps.append(Step("forward", fw, label="advance"))
        return FailedMove(steps, turn, turn, fw, int(round(distance)), stopped)
    theta = want
    if cost > distance:
        theta = math.copysign(math.degrees(distance / w), want) if w > 0 else want
    got = _max_turn(world, b, theta, obst)
    if abs(got) < abs(theta) - 1e-9:
        stopped.append(_who(world, b, Step("wheel", theta), obst))
    steps = [Step("wheel", got, label="wheel")] if abs(got) > 1e-12 else []
    used = math.radians(abs(got)) * w
    cur = run_steps(b, steps)
    rest = max(0.0, distance - used)
    fw = _max_forward(world, cur, rest, obst)
    if fw < rest - 1e-9:
        stopped.append(_who(world, cur, Step("forward", rest), obst))
    if fw > 1e-12:
        steps.append(Step("forward", fw, label="advance"))
    return FailedMove(steps, got, want, fw, int(round(distance)), [s for s in stopped if s])


def _who(world: World, b: Block, st: Step, obst: list[Obstacle]) -> str:
    res = world.check_steps(b, [st], obst)
    return res.what if res is not None else ""


# ----------------------------------------------------------------------------- flee


@dataclass
class FleeResult:
    unit: str
    heading: float
    rolled: float
    distance: float
    steps: list[Step]
    destroyed: bool
    through_friends: list[str]
    through_enemies: list[str]
    through_terrain: list[str]
    extended_past: list[str]

    def details(self) -> dict[str, Any]:
        return {
            "unit": self.unit, "heading": round(self.heading % 360, 9), "rolled": self.rolled,
            "distance": round(self.distance, 9), "extended": round(self.distance - self.rolled, 9),
            "extended_past": self.extended_past, "destroyed": self.destroyed,
            "through_friends": self.through_friends, "through_enemies": self.through_enemies,
            "through_terrain": self.through_terrain,
        }


def _interval_near(sh: Shape, d: np.ndarray, ob: Shape, limit: float, kmax: float) -> tuple[float, float] | None:
    return near_interval(sh, d, ob, limit, kmax)


def flee_move(world: World, u: Block, away_from: np.ndarray, rolled: float) -> FleeResult:
    """Pivot about the centre to face directly away from ``away_from``, move the flee
    distance straight on; extend it by the least amount that leaves the unit more than
    1" from every unit and impassable terrain; touching the board edge destroys it."""
    v = u.centre - np.asarray(away_from, float)
    if float(np.hypot(*v)) < 1e-12:
        v = u.f
    heading = math.degrees(math.atan2(float(v[1]), float(v[0])))
    c = u.centre
    turn = wrap_deg(heading - u.facing)
    pivot = Step("turn", turn, pivot=(float(c[0]), float(c[1])), label="pivot")
    turned = pivot.apply(u)
    d = turned.f
    sh = turned.shape()
    one = 1.0 * world.inch
    margin = stop_margin(world)
    W, D = world.board
    kmax = rolled + 2 * math.hypot(W, D)
    others: list[tuple[str, str, Shape]] = []
    for o in world.blocks.values():
        if o.id != u.id:
            others.append((o.id, "friend" if o.player == u.player else "enemy", o.shape()))
    for tid, tsh in world.terrain:
        others.append((tid, "terrain", tsh))
    intervals: list[tuple[float, float, str]] = []
    for oid, _, osh in others:
        iv = _interval_near(sh, d, osh, one, kmax)
        if iv is not None:
            intervals.append((iv[0], iv[1], oid))
    k = float(rolled)
    past: list[str] = []
    changed = True
    while changed:
        changed = False
        for a, b, oid in intervals:
            if a - TOL <= k <= b + TOL:
                k = b + margin
                if oid not in past:
                    past.append(oid)
                changed = True
    steps = [s for s in (pivot, Step("forward", k, label="flee")) if not (s.kind == "turn" and s.amount == 0)]
    # what the move passes through (the pivot and the straight part)
    sweep = sweep_translate(sh, d * k)
    fr_: list[str] = []
    en_: list[str] = []
    te_: list[str] = []
    for oid, cls, osh in others:
        through = gap(sweep, osh) < -TOL
        if not through and turn and sh.kind == "poly":
            through = rot_sweep_gap(u.shape(), c, math.radians(turn), osh) < -TOL
        if through:
            {"friend": fr_, "enemy": en_, "terrain": te_}[cls].append(oid)
    destroyed = not world.shape_on_board(sweep) or _touches_edge(world, sweep)
    if turn and sh.kind == "poly" and not destroyed:
        from .geom_turn import rot_sweep_extent

        destroyed = not world.on_board_box(rot_sweep_extent(u.shape(), c, math.radians(turn)))
    return FleeResult(u.id, heading, float(rolled), k, steps, destroyed, fr_, en_, te_, past)


def _touches_edge(world: World, sh: Shape) -> bool:
    W, D = world.board
    pts = sh.points()
    r = sh.r
    return bool(pts[:, 0].min() - r <= TOL or pts[:, 1].min() - r <= TOL or pts[:, 0].max() + r >= W - TOL
                or pts[:, 1].max() + r >= D - TOL)


# ----------------------------------------------------------------------------- fleeing target


def _first_contact(sh: Shape, d: np.ndarray, ob: Shape, kmax: float) -> float | None:
    k = time_of_impact(sh, d, ob)
    if k is None or k > kmax:
        return None
    return k


@dataclass
class Reach:
    steps: list[Step]
    distance: float
    wheel: float


def reach_fleeing(world: World, ch: Block, fleer: Block, kmax: float) -> Reach | None:
    """Seed 001, Charging a Fleeing Unit: the charger's front may touch any facing; no
    align. The shortest move (forward, one wheel of at most 90 degrees, forward)
    whose front edge makes the contact: the wheel is chosen among constructed
    candidate angles (``flee_wheel``), first wheeling at once, then (if that finds
    nothing) after moving forward first."""
    obst = world.obstacles(ch, targets={fleer.id}, spacing=world.charge_spacing())
    fsh = fleer.shape()

    def attempt(theta: float, d1: float = 0.0) -> Reach | None:
        if ch.round:
            head = math.degrees(math.atan2(*(fleer.centre - ch.centre)[::-1]))
            turn = wrap_deg(head - ch.facing)
            b1 = ch.turned(ch.centre, turn)
            pre = [Step("turn", turn, pivot=(float(ch.centre[0]), float(ch.centre[1])), label="pivot")] if turn else []
            cost0 = 0.0
        else:
            b0 = ch.forward(d1) if d1 else ch
            b1 = b0.wheeled(theta)
            pre = ([Step("forward", d1, label="advance")] if d1 else []) + ([Step("wheel", theta, label="wheel")] if theta else [])
            cost0 = d1 + math.radians(abs(theta)) * ch.width
            if gap(b1.shape(), fsh) < TOL:
                return None
        k = _first_contact(b1.shape(), b1.f, fsh, kmax)
        if k is None:
            return None
        b2 = b1.forward(k)
        if not ch.round:
            c = b2.corners()
            fe = Shape.capsule(c["FL"], c["FR"], 0.0)
            if gap(fe, fsh) > 1e-6:
                return None  # something other than the front made the contact
        steps = pre + [Step("forward", k, label="advance")]
        if world.check_steps(ch, steps, obst) is not None:
            return None
        return Reach(steps, cost0 + k, theta)

    if ch.round:
        return attempt(0.0)
    reach_r = kmax + ch.depth + ch.width
    near_obst = [(o.shape, o.min_gap) for o in obst if o.uid != fleer.id
                 and gap(o.shape, ch.shape()) <= reach_r + o.min_gap]
    smooth = fsh.kind != "poly"

    def search(d1: float) -> Reach | None:
        b0 = ch.forward(d1) if d1 else ch
        found: dict[float, Reach | None] = {}

        def cost(t: float) -> float:
            if t not in found:
                found[t] = attempt(float(t), d1)
            r = found[t]
            return math.inf if r is None else r.distance

        cands = {0.0}
        for sign in (1, -1):
            cands |= set(critical_wheels(b0, sign, fsh, near_obst))
        t, c = best_wheel(sorted(cands), cost, smooth)
        return found.get(t) if math.isfinite(c) else None

    best = search(0.0)
    if best is None:
        # wheeling at once reaches nothing: move forward first (``best_forward``)
        best = best_forward(forward_events(world, ch, fleer, obst, kmax), search,
                            lambda d1: d1 + max(0.0, gap(ch.forward(d1).shape(), fsh)))
    return best


#: a feasible constructed forward distance with an infeasible one this much (inch)
#: beyond it (toward the infeasible neighbour) is taken as the feasibility boundary:
#: contact within the 1e-6 tolerance lets a move overlap by that much, which would
#: move a bisected boundary up to ~1e-6 past the geometric one
EVENT_SNAP = 1e-5


def best_forward(cands: list[float], search: Any, bound: Any) -> Reach | None:
    """The cheapest reach over forward distances before the wheel.

    For one wheel and one contact feature the cost is affine in the forward distance
    (the contact time is), so the least over wheels is concave between the places
    where the feature or the feasibility changes, and its least over such a stretch
    lies at an end. The constructed events (``forward_events``) and the middles
    between them are evaluated; where feasibility changes between neighbours the
    boundary is the event itself when a step of ``EVENT_SNAP`` past it is already
    infeasible, otherwise it is bisected to ``BISECT_TOL``. ``bound(d1)`` is a lower
    bound of any reach's cost after moving d1 (d1 plus the gap then left): points
    whose bound is no better than the best found are skipped."""
    xs: list[float] = []
    for x in sorted(cands):
        if not xs or x - xs[-1] > BISECT_TOL:
            xs.append(x)
    pts = sorted(set(xs) | {(a + b) / 2 for a, b in zip(xs, xs[1:], strict=False)})
    found: dict[float, Reach | None] = {}
    best: Reach | None = None

    def at(d1: float) -> Reach | None:
        if d1 not in found:
            budget.check()
            found[d1] = search(float(d1))
        return found[d1]

    def offer(r: Reach | None) -> None:
        nonlocal best
        if r is not None and (best is None or r.distance < best.distance - 1e-9):
            best = r

    vals: list[bool | None] = []  # feasible, infeasible, or skipped (None)
    for d1 in pts:
        if best is not None and bound(d1) >= best.distance - 1e-9:
            vals.append(None)
            continue
        r = at(d1)
        offer(r)
        vals.append(r is not None)
    for i in range(len(pts) - 1):
        fa, fb = vals[i], vals[i + 1]
        if fa is None or fb is None or fa == fb:
            continue
        good, bad = (pts[i], pts[i + 1]) if fa else (pts[i + 1], pts[i])
        step = EVENT_SNAP if bad > good else -EVENT_SNAP
        if good in cands and at(good + step) is None:
            continue  # the constructed event is the boundary (see EVENT_SNAP)
        while abs(bad - good) > BISECT_TOL:
            m = (good + bad) / 2
            if best is not None and bound(m) >= best.distance - 1e-9:
                break
            if at(m) is not None:
                good = m
            else:
                bad = m
        offer(at(good))
    return best


def forward_events(world: World, ch: Block, fleer: Block, obst: list[Obstacle], kmax: float) -> list[float]:
    """The forward distances before a wheel at which what a wheel can reach may
    change, constructed: none; the longest straight move (where the charger's path
    first meets an obstacle, the fleeing unit or the board edge: exact times of
    impact); and every place where a vertex (or round end, at its radius plus the
    obstacle's least gap) of the fleeing unit or of an obstacle comes level with the
    charger's front or rear edge, or with its front edge after a full wheel of 90
    degrees to either side (the point enters or leaves the ground the wheel sweeps
    and the strip the charger then moves along); and every place where a shape
    enters or leaves the circle a corner runs on in a wheel (``reach_crossings``), so
    that a stretch where a wheel gets past between two shapes, one left behind and
    one not yet reached, has its ends among the candidates; and every place where
    the clear wheels between two contacts that depend on the wheel close up
    (``flee_forward.closing_forwards``)."""
    f = ch.f
    sh = ch.shape()
    assert sh.V is not None
    dmax = kmax
    for ob in obst:
        # where the straight move first comes closer than allowed. Only a bound on the
        # distances tried (farther ones are blocked anyway): an obstacle the charger
        # already touches may be slid along, so it sets none
        if ob.uid == fleer.id or gap(sh, ob.shape) <= ob.min_gap + TOL:
            continue
        k = time_of_impact(sh, f, ob.shape, ob.min_gap)
        if k is not None:
            dmax = min(dmax, k)
    k = time_of_impact(sh, f, fleer.shape())
    if k is not None:
        dmax = min(dmax, k)
    # the board edge: the first vertex to reach it
    W, D = world.board
    for v in sh.V:
        for comp, lim in ((0, 0.0), (0, W), (1, 0.0), (1, D)):
            if abs(f[comp]) > 1e-15:
                t = (lim - float(v[comp])) / float(f[comp])
                if t >= 0:
                    dmax = min(dmax, t)
    out = {0.0, max(0.0, dmax)}
    # front edge (0), rear edge (-depth), and the front after a 90-degree wheel,
    # which runs from the pivot corner the width ahead of the old front line
    levels = (0.0, -ch.depth, ch.width)
    F0 = ch.F
    for shp, g in [(fleer.shape(), 0.0)] + [(o.shape, o.min_gap) for o in obst if o.uid != fleer.id]:
        budget.check()
        pts = shp.points()
        r = shp.r + g if shp.kind != "poly" else g
        for p in pts:
            x = float((p - F0) @ f)
            for lv in levels:
                for e in ({0.0, r, -r} if r > 0 else {0.0}):
                    d = x - lv + e
                    if 0.0 < d < dmax:
                        out.add(d)
        out |= {d for d in reach_crossings(ch, shp, g) if 0.0 < d < dmax}
    # where the clear wheels between two wheel-dependent contacts (the strip of the
    # move after the wheel, a side of the charger during it) close up
    shapes = [(fleer.shape(), 0.0)] + [(o.shape, o.min_gap) for o in obst if o.uid != fleer.id]
    # (``ok`` allows TOL less than the gap: the exact gap less the slack is asked for)
    loose = [Obstacle(o.uid, o.cls, o.shape, o.min_gap + TOL - CLOSE_SLACK, False) for o in obst if o.uid != fleer.id]
    for d, wheel in closing_forwards(ch, shapes, dmax):
        budget.check()
        if 0.0 < d < dmax and d not in out and _may_close(world, ch, fleer, d, wheel, loose):
            out.add(d)
    return sorted(out)


#: how far (inch) a move where clear wheels close up may come closer to an obstacle
#: than its least gap (the rounding of a meeting point of two exact contacts)
CLOSE_SLACK = 1e-9


def _may_close(world: World, ch: Block, fleer: Block, d1: float, wheel: float, loose: list[Obstacle]) -> bool:
    """Whether clear wheels can close up at ``(d1, wheel)``. There they are the limit of
    moves that keep every least gap exactly, and every gap of a move changes
    continuously with it, so the move there (forward ``d1``, the wheel, then straight
    on to the first contact with the fleeing unit) keeps every gap but
    ``CLOSE_SLACK`` (``loose``: the obstacles asking that, touching allowed). A
    necessary condition, tried once for each meeting point instead of a search of the
    wheels: a meeting of two contacts inside another obstacle (or within the 1e-6
    overlap a move may have) is no end of a clear stretch. The ends of the stretch
    that overlap allows are within about 1e-6 of these and are bisected to as before
    (``best_forward``)."""
    b1 = ch.forward(d1).wheeled(wheel)
    steps = [Step("forward", d1, label="advance"), Step("wheel", wheel, label="wheel")]
    k = time_of_impact(b1.shape(), b1.f, fleer.shape())
    if k is not None and k > 0:
        steps.append(Step("forward", k, label="advance"))
    return world.check_steps(ch, steps, loose) is None


def reach_crossings(ch: Block, shp: Shape, g: float) -> list[float]:
    """The forward distances before a wheel at which the shape ``shp`` (kept ``g``
    away) enters or leaves the reach of a wheel: a wheel to either side turns the
    charger about that side's front corner, which after a forward move ``d1`` stands
    at ``Q0 + d1 f``, and every other corner runs on a circle about it (radius the
    width, the depth, or the diagonal). A point ``p`` of radius ``r`` meets such a
    circle of radius ``rho`` where ``|p - Q0 - d1 f| = rho + r + g``: a quadratic in
    ``d1`` (the point's offset along ``f`` plus or minus the root of the rest); a
    polygon's edge where the circle is tangent to its line (at a point of the edge):
    linear in ``d1``. Between two neighbouring crossings (and the levels of
    ``forward_events``) no corner's circle starts or stops reaching the shape."""
    f, lv = ch.f, ch.l
    c = ch.corners()
    rhos = (ch.width, ch.depth, math.hypot(ch.width, ch.depth))
    pts = shp.points()
    r = (shp.r if shp.kind != "poly" else 0.0) + g
    out: list[float] = []
    for q in (c["FL"], c["FR"]):
        for rho in rhos:
            R = rho + r
            for p in pts:
                a = float((p - q) @ f)
                b = float((p - q) @ lv)
                if abs(b) <= R:
                    h = math.sqrt(R * R - b * b)
                    out += [a - h, a + h]
            if shp.kind != "poly":
                continue
            V = shp.V
            assert V is not None
            for i in range(len(V)):
                va, vb = V[i], V[(i + 1) % len(V)]
                e = vb - va
                L2 = float(e @ e)
                if L2 <= 1e-24:
                    continue
                n = np.array([e[1], -e[0]]) / math.sqrt(L2)
                fn = float(f @ n)
                if abs(fn) <= 1e-12:
                    continue
                for side in (1.0, -1.0):
                    d = (side * (rho + g) - float((q - va) @ n)) / fn
                    tp = q + d * f - side * (rho + g) * n
                    if 0.0 <= float((tp - va) @ e) <= L2:
                        out.append(d)
    return out


# ----------------------------------------------------------------------------- blocked path


def straight_contact(world: World, ch: Block, tgt: Block, kmax: float) -> tuple[float | None, Blocked | None]:
    """How far the charger moves straight forward before touching ``tgt``; and what
    stops it first otherwise."""
    k = _first_contact(ch.shape(), ch.f, tgt.shape(), kmax)
    obst = [o for o in world.obstacles(ch, targets={tgt.id}, spacing=world.charge_spacing()) if o.uid != tgt.id]
    upto = kmax if k is None else k
    res = world.check_steps(ch, [Step("forward", upto)], obst)
    return k, res


def _pose_for_facing(t: Block, name: str, mid: np.ndarray, n: np.ndarray) -> Block:
    """Place block t so that its facing ``name`` has midpoint ``mid`` and outward
    normal ``n``."""
    if name == "front":
        f = n
    elif name == "rear":
        f = -n
    elif name == "left":
        f = np.array([n[1], -n[0]])
    else:
        f = np.array([-n[1], n[0]])
    facing = math.degrees(math.atan2(float(f[1]), float(f[0])))
    lv = np.array([-f[1], f[0]])
    probe = t.at((0.0, 0.0), facing)
    if name == "front":
        F = mid
    elif name == "rear":
        F = mid + f * probe.depth
    elif name == "left":
        F = mid - lv * probe.width / 2 + f * probe.depth / 2
    else:
        F = mid + lv * probe.width / 2 + f * probe.depth / 2
    return t.at(F, facing)


@dataclass
class Reform:
    block: Block
    facing: str
    files: int
    models: int
    kept_formation: bool


def combat_reform(world: World, tgt: Block, ch: Block, charged: str) -> Reform | None:
    """Seed 003, Blocked Path: the charged unit re-forms so its charged facing lies
    flush against the charger's front (the charger engaged on its front), keeping its
    ranks and files and maximising models in contact; failing that with other files
    (no maximising); failing that with another facing. Among equals, the placement
    whose centre moves least."""
    cf = ch.facing_of("front")
    n = -cf.n  # the target's facing must look back at the charger
    obst = [o for o in world.obstacles(tgt, targets={ch.id}) if o.uid != tgt.id]
    obst = [Obstacle(o.uid, o.cls, o.shape, o.min_gap, o.strict) for o in obst]

    def options(block: Block, name: str) -> list[Block]:
        probe = block.at((0.0, 0.0), 0.0)
        pf = probe.facing_of(name)
        L = pf.length
        pts = {v for _, lo, hi, _ in probe.profile(name) for v in (lo, hi)} | {-L / 2, L / 2}
        wc = ch.width
        lo, hi = -wc / 2 - L / 2, wc / 2 + L / 2
        edges_c = [-wc / 2 + i * ch.bw for i in range(ch.files + 1)] if not ch.round else [-ch.radius, ch.radius]
        # the target's facing axis runs opposite to the charger's: a profile point p of
        # the target sits at x - p along the charger's front axis
        xs = {lo, hi, 0.0} | {e + p for e in edges_c for p in pts}
        out = []
        for x in sorted(xs):
            if lo - TOL <= x <= hi + TOL:
                out.append(_pose_for_facing(block, name, cf.pt(x), n))
        return out

    def legal(b: Block) -> bool:
        if world.pose_clear(b, obst) is not None:
            return False
        return gap(b.shape(), ch.shape()) >= -TOL

    def score(b: Block, name: str) -> int:
        fr = b.facing_of(name)
        prof = target_profile(b, fr)
        x, _ = fr.local(ch.F)
        cm, tm = count_1d(ch, x, prof)
        return len(cm) + len(tm)

    c0 = tgt.centre
    tries: list[tuple[str, Block, bool]] = [(charged, tgt, True)]
    for files in range(1, tgt.models + 1):
        if files != tgt.files:
            tries.append((charged, tgt.with_models(tgt.models, files), False))
    for name in FACINGS:
        if name != charged:
            tries.append((name, tgt, True))
    for name, block, keep in tries:
        best: tuple[tuple[int, float], Block] | None = None
        for b in options(block, name):
            if not legal(b):
                continue
            sc = score(b, name) if keep and name == charged else 0
            key = (-sc, float(np.hypot(*(b.centre - c0))))
            if best is None or key < best[0]:
                best = (key, b)
        if best is not None:
            return Reform(best[1], name, best[1].files, best[1].models, keep and name == charged)
    return None


def unit_direction(deg: float) -> np.ndarray:
    return unit(deg)
