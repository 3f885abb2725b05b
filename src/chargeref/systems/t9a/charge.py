"""Planning a charge move: how a charger reaches the charged facing, and where it ends.

The end of a successful charge is the charger standing flush against the charged
facing, looking in along the facing's inward normal, at a lateral offset ``s`` (the
position of its front midpoint along the facing's axis, 0 = the facing's middle).

How it gets there (an *approach*):

* forward ``d1``, one wheel of ``theta`` (|theta| <= 90 degrees) about the inner front
  corner, forward ``d2`` until the front touches the facing;
* if it arrives at an angle ``delta`` (the *align angle*), the first contact is a
  front corner of the charger on the facing, or an end of the facing on the charger's
  front; the align move then turns the charger about that point by ``delta`` (the
  direction of alignment is fixed by which side touched). ``delta == 0`` is a charger
  that wheeled exactly onto the facing's heading.

Given ``s`` and ``delta`` everything else is fixed: the pre-align pose is the end pose
turned back about the contact point, and ``d1``/``d2`` solve a 2x2 linear system
(``reach.solve``). No grid decides a distance: for a fixed offset the candidate align
angles are closed forms (``wheel.candidate_deltas``); across offsets the reach table's
optima are refined by Brent's method (``reach``).

The distance an approach uses is ``d1 + d2`` plus the arc the outer front corner
travels while wheeling (``|theta| x width``); the align move is free.

End offsets are chosen lexicographically (seed 001, Maximising Contact): fewest other
enemy units contacted, then no (or the least) rotation of the charged unit, then the
most models in base contact; ties go to the shortest approach. Only offsets where the
count of models can change are tried: where a charger model's edge meets the edge of
an exposed target model, and the middle of each interval between those.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...geometry.shapes import TOL
from .block import Block, Facing
from .contact import engaged_with, unit_contact
from .detour import Search, cells
from .detour_touch import SEARCH_SLACK, with_overlap
from .ends import end_events
from .geom import Shape, gap, gap_lower, near, wrap_deg
from .geom_turn import first_contact_turn
from .memo import table as memo_table
from .reach import (  # noqa: F401  (re-exported for callers of charge)
    _REACH_CACHE,
    FEAS_TOL,
    MAX_WHEEL,
    ReachTable,
    _straight_offsets,
    contact_range,
    reach_table,
    solve,
    solve_one,
)
from .wheel import candidate_deltas
from .world import Blocked, Obstacle, Step, World

#: how many candidate offsets of one score level are tried for the shortest approach
LEVEL_TRIES = 16
#: the charged unit is only turned when the charger is short of alignment by at least
#: this many degrees (a smaller turn is not a real obstruction, only a touch)
MIN_TARGET_TURN = 0.5


@dataclass
class Approach:
    s: float
    delta: float
    theta: float
    d1: float
    d2: float
    distance: float
    pivot: np.ndarray | None  # contact point the align move turns about

    def steps(self) -> list[Step]:
        st: list[Step] = []
        if self.d1 > 1e-12:
            st.append(Step("forward", self.d1, label="advance"))
        if self.theta != 0:
            st.append(Step("wheel", self.theta, label="wheel"))
        if self.d2 > 1e-12:
            st.append(Step("forward", self.d2, label="advance"))
        if self.delta != 0 and self.pivot is not None:
            st.append(Step("turn", self.delta, pivot=(float(self.pivot[0]), float(self.pivot[1])), label="align"))
        return st

    def pre_steps(self) -> list[Step]:
        return [s for s in self.steps() if s.label != "align"]


@dataclass
class Entry:
    """One candidate end offset and what it scores."""

    s: float
    extra: frozenset[str]
    models: int
    charger_models: frozenset[int]
    target_models: frozenset[str]
    final: Block


@dataclass
class Placement:
    charger: str
    target: str
    facing: str
    s: float
    steps: list[Step]
    target_steps: list[Step]
    distance: float
    wheel: float
    align: float
    target_turn: float
    pivot: tuple[float, float] | None
    extra: frozenset[str]
    models: int
    charger_models: frozenset[int]
    target_models: frozenset[str]
    final: Block
    target_final: Block
    kind: str = "normal"

    def summary(self) -> dict[str, Any]:
        return {
            "offset": round(self.s, 9),
            "distance": round(self.distance, 9),
            "wheel": round(self.wheel, 9),
            "align": round(self.align, 9),
            "target_rotation": round(self.target_turn, 9),
            "align_by": ("charger" if self.align and not self.target_turn else
                         "target" if self.target_turn and not self.align else
                         "both" if self.align and self.target_turn else None),
            "contact_point": None if self.pivot is None else [round(self.pivot[0], 9), round(self.pivot[1], 9)],
        }


@dataclass
class PlanFailure:
    code: str
    message: str
    blockers: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


# ----------------------------------------------------------------------------- frames


def round_facing(target: Block, heading: float) -> Facing:
    """A round base has no straight facings: the charger's front must end tangent to
    it. The 'facing' for a charger arriving on ``heading`` is the tangent point."""
    f = np.array([math.cos(math.radians(heading)), math.sin(math.radians(heading))])
    n = -f
    mid = target.centre - target.radius * f
    return Facing(target.id, "front", mid, np.array([n[1], -n[0]]), n, 0.0)


def target_profile(target: Block, fr: Facing) -> list[tuple[str, float, float]]:
    if target.round:
        return [(f"{target.id}.0", -target.radius, target.radius)]
    return [(f"{target.id}.{i}", lo, hi) for i, lo, hi, _ in target.profile(fr.name)]


def charger_edges(ch: Block) -> list[float]:
    """Edges of the charger's front-rank bases, relative to its front midpoint along
    the axis of the facing it stands against (its left is +)."""
    if ch.round:
        return [ch.radius, -ch.radius]
    w = ch.width
    return [w / 2 - i * ch.bw for i in range(ch.files + 1)]


def count_1d(ch: Block, s: float, prof: list[tuple[str, float, float]]) -> tuple[frozenset[int], frozenset[str]]:
    if ch.round:
        lo, hi = s - ch.radius, s + ch.radius
        rtm = frozenset(j for j, a, b in prof if max(a, lo) <= min(b, hi) + TOL)
        return (frozenset({0}) if rtm else frozenset()), rtm
    w, bw = ch.width, ch.bw
    cm: set[int] = set()
    tm: set[str] = set()
    for k in range(ch.files):
        hi = s + w / 2 - k * bw
        lo = hi - bw
        # the intervals share a point: max(a, lo) <= min(b, hi) + TOL (written out:
        # where the two are equal either is the same number)
        for j, a, b in prof:
            if (a if a > lo else lo) <= (b if b < hi else hi) + TOL:
                cm.add(k)
                tm.add(j)
    return frozenset(cm), frozenset(tm)


# ----------------------------------------------------------------------------- approaches


def _iter_approaches(ch: Block, fr: Facing, r: dict[str, np.ndarray]) -> Iterator[Approach]:
    """The existing approaches of a solve, shortest first (built lazily)."""
    idx = np.nonzero(r["ok"])[0]
    if len(idx) == 0:
        return
    order = idx[np.lexsort((np.abs(r["D"][idx]), np.round(r["dist"][idx], 9)))]
    for i in order:
        delta = float(r["D"][i])
        P = None if delta == 0 else fr.pt(float(r["xp"][i]))
        yield Approach(float(r["S"][i]), delta, float(r["theta"][i]), float(r["d1"][i]), float(r["d2"][i]),
                       float(r["dist"][i]), P)


def _to_approaches(ch: Block, fr: Facing, r: dict[str, np.ndarray]) -> list[Approach]:
    return list(_iter_approaches(ch, fr, r))


def align_angles(ch: Block, fr: Facing, s: float, table: ReachTable) -> np.ndarray:
    """The constructed align angles at offset ``s``, sorted and without repeats: the
    closed forms of ``wheel.candidate_deltas`` and the reach table's optima there.
    ``table`` is ``reach_table(ch, fr)``. Within a ruling (``memo``) each charger
    pose, facing and offset is worked out once; the array is then read-only."""
    tab = memo_table("align_angles")
    if tab is None:
        return _align_angles(ch, fr, s, table)
    # everything the two parts depend on: the charger's pose and width (its reach
    # table too) and the facing's frame and length
    key = (ch.front, ch.facing, ch.width, ch.round, fr.mid.tobytes(), fr.t.tobytes(), fr.n.tobytes(),
           fr.length, float(s))
    D = tab.get(key)
    if D is None:
        D = _align_angles(ch, fr, s, table)
        D.flags.writeable = False
        tab[key] = D
    return D


def _align_angles(ch: Block, fr: Facing, s: float, table: ReachTable) -> np.ndarray:
    """The union of the two parts, sorted, each value once. In plain floats (a set,
    then ``sorted``) when no value is NaN or a negative zero: the same array as
    ``np.unique`` of the two together (``_align_angles_plain``), which then has no
    choice to make among values that compare equal."""
    cd = candidate_deltas(ch, fr, s, MAX_WHEEL)
    rows = table.plain_rows()
    if rows is None or any(d != d or (d == 0 and math.copysign(1.0, d) < 0) for d in cd):
        return _align_angles_plain(ch, fr, s, table, cd)
    vals = set(cd)
    vals.update(d for lo, hi, d in rows if lo <= s <= hi)
    return np.array(sorted(vals), dtype=float)


def _align_angles_plain(ch: Block, fr: Facing, s: float, table: ReachTable,
                        cd: list[float] | None = None) -> np.ndarray:
    if cd is None:
        cd = candidate_deltas(ch, fr, s, MAX_WHEEL)
    return np.unique(np.concatenate([np.asarray(cd, dtype=float), table.deltas_at(s)]))


def approaches(ch: Block, fr: Facing, s: float, table: ReachTable | None = None) -> list[Approach]:
    """Every approach (no obstacles considered) that ends flush at offset s at the
    constructed align angles, shortest first."""
    if ch.round:
        return _round_approach(ch, fr, s)
    if table is None:
        table = reach_table(ch, fr)
    D = align_angles(ch, fr, s, table)
    return _to_approaches(ch, fr, solve(ch, fr, np.full(len(D), s), D))


def candidate_offsets(ch: Block, fr: Facing, prof: list[tuple[str, float, float]],
                      table: ReachTable | None = None, events: Iterable[float] = ()) -> list[float]:
    """End offsets worth trying: where a charger base's edge meets an exposed target
    base's edge (contact counts change only there), the ends of the reachable
    offsets, the ``events`` where the end pose starts or stops being blocked
    (``end_events``), and a point inside every stretch between those. Within a
    ruling (``memo``) each set of inputs is worked out once (a charger's declaration,
    its move and the combined search often ask the same)."""
    events = tuple(events)
    tab = memo_table("candidate_offsets")
    if tab is None:
        return _candidate_offsets(ch, fr, prof, table, events)
    # every input: the charger's size and pose, the facing, the target's exposed
    # bases, the events, and the reach table itself (held with the answer, so that
    # its id stays its own); the values' types too (a numpy scalar equals its float
    # but would carry into the offsets)
    key = (ch.front, ch.facing, ch.files, ch.bw, ch.round, fr.mid.tobytes(), fr.t.tobytes(), fr.n.tobytes(),
           fr.length, tuple(prof), tuple(type(v) for p in prof for v in p), events, tuple(map(type, events)),
           id(table))
    hit = tab.get(key)
    if hit is None or hit[0] is not table:
        hit = tab[key] = (table, _candidate_offsets(ch, fr, prof, table, events))
    return list(hit[1])


def _candidate_offsets(ch: Block, fr: Facing, prof: list[tuple[str, float, float]],
                       table: ReachTable | None, events: Iterable[float]) -> list[float]:
    lo, hi = contact_range(ch, fr)
    edges = charger_edges(ch)
    ends = sorted({round(v, 12) for _, a, b in prof for v in (a, b)} | {-fr.length / 2, fr.length / 2})
    crit = {min(max(round(e - c, 10), lo), hi) for e in ends for c in edges if lo - TOL <= e - c <= hi + TOL}
    crit |= {lo, hi}
    crit |= {min(max(e, lo), hi) for e in events}
    union = table.union() if table is not None else [(lo, hi)]
    for a, b in union:
        crit |= {a, b}
    if table is not None:
        # the offsets a charger reaches without wheeling (straight on, then the align)
        crit |= {float(a) for a, b in zip(table.A, table.B, strict=True) if b - a <= 1e-12}

    def inside(s: float) -> bool:
        return any(a - 1e-9 <= s <= b + 1e-9 for a, b in union)

    pts = sorted(crit)
    out = [p for p in pts if inside(p)]
    for a, b in zip(pts, pts[1:], strict=False):
        if b - a <= 1e-9:
            continue
        m = (a + b) / 2
        if inside(m):
            out.append(m)
    return sorted(set(out))


def _round_approach(ch: Block, fr: Facing, s: float) -> list[Approach]:
    """A single model on a round base turns freely about its centre and moves
    straight to where it touches the facing."""
    end_c = fr.pt(s, ch.radius)
    v = end_c - ch.centre
    d = float(np.hypot(*v))
    return [Approach(s, 0.0, 0.0, d, 0.0, d, None)]


def round_steps(ch: Block, fr: Facing, ap: Approach) -> list[Step]:
    end_c = fr.pt(ap.s, ch.radius)
    v = end_c - ch.centre
    d = float(np.hypot(*v))
    st: list[Step] = []
    c0 = (float(ch.centre[0]), float(ch.centre[1]))
    if d > 1e-12:
        head = math.degrees(math.atan2(float(v[1]), float(v[0])))
        st.append(Step("turn", wrap_deg(head - ch.facing), pivot=c0, label="pivot"))
        st.append(Step("forward", d, label="advance"))
        st.append(Step("turn", wrap_deg(fr.psi - head), pivot=(float(end_c[0]), float(end_c[1])), label="pivot"))
    else:
        st.append(Step("turn", wrap_deg(fr.psi - ch.facing), pivot=c0, label="pivot"))
    return [x for x in st if not (x.kind == "turn" and x.amount == 0)]


def approach_steps(ch: Block, fr: Facing, ap: Approach) -> list[Step]:
    return round_steps(ch, fr, ap) if ch.round else ap.steps()


# ----------------------------------------------------------------------------- planning


@dataclass
class Context:
    world: World
    charger: Block
    target: Block
    fr: Facing
    obstacles: list[Obstacle]
    allowed: frozenset[str]
    touch_any: bool
    fails: dict[str, int] = field(default_factory=dict)
    blockers: dict[str, int] = field(default_factory=dict)
    _table: ReachTable | None = None
    #: set by ``needed_distance`` when the shortest unobstructed approach was blocked
    #: and the alternatives decided: that unobstructed distance, a proven lower bound
    lower_bound: float | None = None
    _events: list[float] | None = None

    @property
    def table(self) -> ReachTable:
        if self._table is None:
            self._table = reach_table(self.charger, self.fr)
        return self._table

    def end_events(self) -> list[float]:
        if self._events is None:
            self._events = _end_events(self.charger, self.fr, self.obstacles, self.target.id, self.world.board)
        return self._events

    def note(self, why: str, who: str | None = None) -> None:
        self.fails[why] = self.fails.get(why, 0) + 1
        if who:
            self.blockers[who] = self.blockers.get(who, 0) + 1


def _end_events(ch: Block, fr: Facing, obstacles: list[Obstacle], target: str,
                board: tuple[float, float] | None) -> list[float]:
    """``ends.end_events``, within a ruling (``memo``) once per set of inputs (a
    charger's declaration, its move and the combined search often ask the same):
    the charger's formation (the end pose slides along the facing, wherever the
    charger stands), the facing, each obstacle (id, role, spacing, and its shape by
    identity, the shapes held with the answer so that their ids stay their own),
    the target and the board. A copy of the list."""
    tab = memo_table("end_events")
    if tab is None:
        return end_events(ch, fr, obstacles, target, board)
    shapes = tuple(ob.shape for ob in obstacles)
    key = (ch.files, ch.models, ch.bw, ch.bd, ch.round, fr.mid.tobytes(), fr.t.tobytes(), fr.n.tobytes(), fr.length,
           tuple((ob.uid, ob.cls, id(ob.shape), ob.min_gap, ob.strict) for ob in obstacles), target, board)
    hit = tab.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], shapes, strict=True)):
        hit = tab[key] = (shapes, end_events(ch, fr, obstacles, target, board))
    return list(hit[1])


def make_context(world: World, ch: Block, tgt: Block, fr: Facing, allowed: frozenset[str], touch_any: bool,
                 ignore: frozenset[str] = frozenset(), terrain: bool = True) -> Context:
    obst = world.obstacles(ch, targets=set({tgt.id}) | set(allowed), ignore=set(ignore), touch_enemies=touch_any,
                           terrain=terrain, spacing=world.charge_spacing())
    return Context(world, ch, tgt, fr, obst, allowed, touch_any)


#: how far the separation along the facing's normal must clear ``-TOL`` before it alone
#: settles ``end_overlaps_target`` (far above the rounding of a few products)
NORMAL_SEP_MARGIN = 1e-9


def end_overlaps_target(sh: Shape, target: Shape, fr: Facing) -> bool:
    """``gap(sh, target) < -TOL``: a charger's end pose ``sh`` overlaps the charged
    unit by more than TOL. An end pose stands on the outer side of the facing, so
    for two small polygons the separation along the facing's normal (the least of
    ``sh``'s vertices along it less the greatest of the target's) usually settles it.
    ``gap_lower`` (the separating-axis separation over the edge normals) is the gap
    wherever either is negative. Two convex polygons that overlap or touch overlap
    least along an edge normal, so their separation along any direction is at most
    ``gap_lower``; two apart have a separating edge normal, so ``gap_lower`` is not
    negative. Either way a separation along the normal that passes ``-TOL`` by
    ``NORMAL_SEP_MARGIN`` means no; otherwise ``gap_lower`` decides."""
    if sh.kind == "poly" and target.kind == "poly" and sh.V is not None and target.V is not None \
            and len(sh.V) <= 8 and len(target.V) <= 8:
        _, _, _, _, nx, ny = fr._floats()
        lo = min(x * nx + y * ny for x, y in sh.vl())
        hi = max(x * nx + y * ny for x, y in target.vl())
        if lo - hi >= -TOL + NORMAL_SEP_MARGIN:
            return False
    return gap_lower(sh, target) < -TOL


def _entries(ctx: Context, blocked: list[Entry] | None = None) -> list[Entry]:
    """Candidate ends that are free where they stand; ends blocked there (by terrain or
    units) go to ``blocked``: the charged unit may still turn to meet the charger."""
    ch, fr, tgt = ctx.charger, ctx.fr, ctx.target
    prof = target_profile(tgt, fr)
    out: list[Entry] = []
    for s in candidate_offsets(ch, fr, prof, ctx.table, ctx.end_events()):
        fin = ch.at(fr.pt(s), fr.psi)
        sh = fin.shape()
        if not ctx.world.shape_on_board(sh):
            ctx.note("board", "board")
            continue
        bad = None
        bad_gap = 0.0
        extra: set[str] = set()
        for ob in ctx.obstacles:
            if not near(sh, ob.shape, ob.min_gap + 10 * TOL):
                continue
            if ob.cls == "target" and ob.uid == tgt.id:
                # only an overlap deeper than TOL counts here
                if end_overlaps_target(sh, ob.shape, fr):
                    bad = ob
                    break
                continue
            g = gap(sh, ob.shape)
            if not ob.ok(g):
                bad, bad_gap = ob, g
                break
            if ob.cls in ("target", "enemy") and g <= TOL:
                extra.add(ob.uid)
        if bad is not None:
            ctx.note("end_blocked", bad.uid)
            # only an end that something stands in (not one that merely touches an
            # enemy) may be reached by turning the charged unit instead
            if blocked is not None and bad.uid != tgt.id and bad_gap < -TOL:
                cm, tm = count_1d(ch, s, prof)
                blocked.append(Entry(s, frozenset(extra), len(cm) + len(tm), cm, tm, fin))
            continue
        cm, tm = count_1d(ch, s, prof)
        cmodels = set(cm)
        tmodels = set(tm)
        for e in extra:
            uc = unit_contact(fin, ctx.world.blocks[e])
            if uc is not None:
                cmodels |= {i for i, _ in uc.pairs}
                tmodels |= {f"{e}.{j}" for _, j in uc.pairs}
        out.append(Entry(s, frozenset(extra), len(cmodels) + len(tmodels), frozenset(cmodels), frozenset(tmodels), fin))
    return out


#: an approach whose steps miss the intended end by more than this is discarded
#: (a nearly-zero wheel makes the 2x2 solve ill-conditioned)
LAND_TOL = 1e-7


def lands(ch: Block, fr: Facing, ap: Approach, steps: list[Step]) -> bool:
    end = ch
    for st in steps:
        end = st.apply(end)
    want = fr.pt(ap.s) if not ch.round else fr.pt(ap.s)
    if float(np.hypot(*(end.F - want))) > LAND_TOL:
        return False
    return abs(wrap_deg(end.facing - fr.psi)) <= 1e-7




def search_obstacles(obstacles: list[Obstacle]) -> list[Obstacle]:
    """The obstacles as the detour search's clear test sees them. The search slides a
    clear approach towards an obstacle by bisection on that test, so its answer sits
    where the test stops passing. The ordinary test lets a path overlap by up to
    ``TOL`` (room for rounding in constructed touches); a search using it would end
    overlapping by almost exactly ``TOL``, and an independent check doing its own
    rounding could then find the path passing through the obstacle. Here a
    non-strict obstacle lets a path overlap by at most ``SEARCH_SLACK``: enough for
    rounding and for an approach's landing error (``LAND_TOL``), with the other half
    of ``TOL`` left as a margin for whoever checks the ruling. (Strict obstacles
    already demand more than their spacing.)"""
    return with_overlap(obstacles, TOL - SEARCH_SLACK)


def _clear_approach(ctx: Context, ap: Approach,
                    obstacles: list[Obstacle] | None = None) -> tuple[list[Step], Blocked | None]:
    """The approach's steps and the first obstacle they run into (None: clear), against
    ``obstacles`` (default: the context's)."""
    ch = ctx.charger
    steps = approach_steps(ch, ctx.fr, ap)
    if not lands(ch, ctx.fr, ap, steps):
        return steps, Blocked("imprecise", "imprecise", len(steps) - 1, 0.0)
    res = ctx.world.check_steps(ch, steps, ctx.obstacles if obstacles is None else obstacles, skip_path=ch.flying)
    return steps, res


def _approach_at(ch: Block, fr: Facing, s: float, delta: float) -> Approach | None:
    """The approach to offset ``s`` at align angle ``delta`` (None: none exists). The
    plain-float solve (``reach.solve_one``) gives the numbers of the array one."""
    one = solve_one(ch, fr, s, delta)
    if one is None:
        return _approach_at_plain(ch, fr, s, delta)
    ok, theta, d1, d2, dist, xp = one
    if not ok:
        return None
    d = float(delta)
    return Approach(float(s), d, theta, d1, d2, dist, None if d == 0 else fr.pt(xp))


def _approach_at_plain(ch: Block, fr: Facing, s: float, delta: float) -> Approach | None:
    r = solve(ch, fr, np.array([s]), np.array([delta]))
    return next(_iter_approaches(ch, fr, r), None)


def detour_search(ctx: Context, clear: Callable[[float, float], tuple[Approach, list[Step]] | None]) -> Search:
    """The certified search for the least clear approach (``detour``) of this context.
    ``clear`` must test against ``search_obstacles(ctx.obstacles)``: the search's
    proofs (which boxes are blocked) use the same obstacles, so its lower bounds hold
    for the approaches ``clear`` accepts."""
    return Search(ctx.world, ctx.charger, ctx.fr, search_obstacles(ctx.obstacles), clear)


def _best_approach(ctx: Context, s: float, limit: int = 40) -> tuple[Approach, list[Step]] | None:
    """The shortest clear approach to offset s. The constructed approaches are tried
    shortest first; when the shortest is clear it is the answer. Otherwise the
    shortest clear one over every align angle is searched for (``detour``: a proven
    least, the first clear constructed one its starting bound)."""
    ch, fr = ctx.charger, ctx.fr
    # ``approaches`` built lazily: only the first ``limit`` are ever looked at
    if ch.round:
        it: Iterator[Approach] = iter(_round_approach(ch, fr, s))
    else:
        D = align_angles(ch, fr, s, ctx.table)
        it = _iter_approaches(ch, fr, solve(ch, fr, np.full(len(D), s), D))
    head = next(it, None)
    if head is None:
        ctx.note("unreachable")
        return None
    first: tuple[Approach, list[Step]] | None = None
    for k, ap in enumerate(itertools.islice(itertools.chain([head], it), limit)):
        steps, res = _clear_approach(ctx, ap)
        if res is None:
            if k == 0 or ctx.charger.round:
                return ap, steps
            first = (ap, steps)
            break
        if res.what == "imprecise":
            continue
        ctx.note("path_blocked" if res.step < len(steps) - 1 or ap.delta == 0 else "align_blocked", res.what)
    if ctx.charger.round:
        return None
    # the search bisects towards obstacles on this test: it allows less overlap than
    # the ordinary one (``search_obstacles``)
    tight = search_obstacles(ctx.obstacles)

    def clear(s_: float, d_: float) -> tuple[Approach, list[Step]] | None:
        ap = _approach_at(ch, fr, s_, d_)
        if ap is None:
            return None
        steps, res = _clear_approach(ctx, ap, tight)
        return (ap, steps) if res is None else None

    found = detour_search(ctx, clear).run(cells(ch, fr), first, s_fixed=s)
    return found.best  # type: ignore[return-value]


def _placement(ctx: Context, e: Entry, ap: Approach, steps: list[Step], tsteps: list[Step] | None = None,
               target_turn: float = 0.0, align: float | None = None) -> Placement:
    ch, tgt = ctx.charger, ctx.target
    final = ch
    for st in steps:
        final = st.apply(final)
    tfin = tgt
    for st in tsteps or []:
        tfin = st.apply(tfin)
    return Placement(
        charger=ch.id, target=tgt.id, facing=ctx.fr.name, s=e.s, steps=steps, target_steps=tsteps or [],
        distance=ap.distance, wheel=ap.theta, align=ap.delta if align is None else align, target_turn=target_turn,
        pivot=None if ap.pivot is None else (float(ap.pivot[0]), float(ap.pivot[1])),
        extra=e.extra, models=e.models, charger_models=e.charger_models, target_models=e.target_models,
        final=final, target_final=tfin,
    )


def plan(ctx: Context, allow_rotation: bool = True) -> Placement | PlanFailure:
    """The lexicographically best reachable end (see the module docstring)."""
    blocked: list[Entry] = []
    entries = _entries(ctx, blocked)
    if not entries and not (allow_rotation and blocked):
        return _failure(ctx, "no_room")
    levels = sorted({len(e.extra) for e in entries} | ({len(e.extra) for e in blocked} if allow_rotation else set()))
    for lv in levels:
        at = [e for e in entries if len(e.extra) == lv]
        by_models: dict[int, list[Entry]] = {}
        for e in at:
            by_models.setdefault(e.models, []).append(e)
        for m in sorted(by_models, reverse=True):
            group = sorted(by_models[m], key=lambda e: abs(e.s))
            best: tuple[float, Entry, Approach, list[Step]] | None = None
            tries = 0
            for e in group:
                found = _best_approach(ctx, e.s)
                if found is None:
                    continue
                ap, steps = found
                if best is None or ap.distance < best[0] - 1e-9:
                    best = (ap.distance, e, ap, steps)
                tries += 1
                if tries >= LEVEL_TRIES:
                    break
            if best is not None:
                return _placement(ctx, best[1], best[2], best[3])
        if allow_rotation:
            rot = _rotation_plan(ctx, at + [e for e in blocked if len(e.extra) == lv])
            if rot is not None:
                return rot
    return _failure(ctx, "no_path")


def _is_engaged(world: World, uid: str, exclude: set[str]) -> bool:
    b = world.blocks[uid]
    if "engaged" in b.flags:
        return True
    return bool(engaged_with(world.blocks, uid, exclude))


def _rotation_plan(ctx: Context, entries: list[Entry]) -> Placement | None:
    """When the charger cannot align by itself, it turns as far as it can and the
    charged unit turns the rest about the contact point (never an engaged unit)."""
    world, ch, tgt = ctx.world, ctx.charger, ctx.target
    if tgt.round or _is_engaged(world, tgt.id, {ch.id}):
        return None
    best: tuple[tuple[float, int, float], Placement] | None = None
    t_obst = world.obstacles(tgt, targets={ch.id}, spacing=world.charge_spacing())
    for e in sorted(entries, key=lambda e: -e.models):
        for ap in approaches(ch, ctx.fr, e.s, ctx.table)[:30]:
            if ap.delta == 0 or ap.pivot is None:
                continue
            pre = ap.pre_steps()
            if ctx.world.check_steps(ch, pre, ctx.obstacles, skip_path=ch.flying) is not None:
                continue
            pre_b = ch
            for st in pre:
                pre_b = st.apply(pre_b)
            # how far can the charger itself turn?
            ang = math.radians(ap.delta)
            can = ang
            if not ch.flying:
                for ob in ctx.obstacles:
                    if ob.uid == tgt.id:
                        continue
                    c, r = ob.shape.bbox_circle()
                    if float(np.hypot(*(c - ap.pivot))) - r > float(np.max(np.hypot(*(pre_b.shape().V - ap.pivot).T))) + ob.min_gap + 1e-6:  # type: ignore[union-attr]
                        continue
                    t = first_contact_turn(pre_b.shape(), ap.pivot, can, ob.shape, ob.min_gap + (2 * TOL if ob.strict else 0.0))
                    if abs(t) < abs(can):
                        can = t
            ch_turn = math.degrees(can)
            if abs(ch_turn) < 1e-4:
                ch_turn = 0.0  # touching already: it cannot turn at all
            rest = ap.delta - ch_turn
            if abs(rest) < MIN_TARGET_TURN:
                continue  # it (all but) aligns alone: not a case for turning the target
            piv = (float(ap.pivot[0]), float(ap.pivot[1]))
            csteps = pre + ([Step("turn", ch_turn, pivot=piv, label="align")] if abs(ch_turn) > 1e-12 else [])
            ch_fin = pre_b.turned(ap.pivot, ch_turn) if abs(ch_turn) > 1e-12 else pre_b
            if world.pose_clear(ch_fin, ctx.obstacles) is not None and not ch.flying:
                continue
            if ch.flying and world.pose_clear(ch_fin, ctx.obstacles) is not None:
                continue
            tstep = Step("turn", -rest, pivot=piv, label="align")
            # the target turns with the charger in its new place
            w2 = world.copy()
            w2.put(ch_fin)
            t_ob = [o for o in t_obst if o.uid != ch.id] + [Obstacle(ch.id, "target", ch_fin.shape(), 0.0, False)]
            if w2.check_steps(tgt, [tstep], t_ob) is not None:
                continue
            key = (round(abs(rest), 6), -e.models, ap.distance)
            pl = _placement(ctx, e, ap, csteps, [tstep], target_turn=-rest, align=ch_turn)
            if best is None or key < best[0]:
                best = (key, pl)
            break
    return None if best is None else best[1]


def _failure(ctx: Context, default: str) -> PlanFailure:
    f = ctx.fails
    blockers = sorted(ctx.blockers, key=lambda k: -ctx.blockers[k])
    if not f:
        return PlanFailure("facing_unreachable", "no approach reaches the charged facing", blockers, f)
    if set(f) <= {"unreachable"}:
        return PlanFailure("facing_unreachable", "no forward move with one wheel of at most 90 degrees reaches the charged facing", blockers, f)
    if f.get("align_blocked", 0) and not f.get("path_blocked", 0):
        return PlanFailure("align_blocked", "the charger reaches the facing but cannot align in the direction of alignment", blockers, f)
    if set(f) <= {"end_blocked", "board", "unreachable"}:
        return PlanFailure("no_room", "there is no room flush against the charged facing", blockers, f)
    return PlanFailure("path_blocked", "every way to the charged facing is blocked", blockers, f)
