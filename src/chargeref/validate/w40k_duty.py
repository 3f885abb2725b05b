"""40k validator: constructed candidate spots for the end-of-charge duties.

A duty check ("could this model have ended in base contact with a target model?",
"... within 1" of one?", "... in engagement range of one?") looks for a spot on the
*locus* of one target model: the centres at which the model's base (same facing) is at
gap ``d`` from that model's base (``d`` = 0 for base contact). Every other rule the spot
must obey is a region of the plane: stay out of other bases (gap >= 0), out of
engagement range of non-targets (gap > range), out of terrain, on the board, within
reach, within 2" of friends for coherency, in engagement range of targets the others
no longer hold. Along the locus each rule holds on a union of closed stretches whose
ends are where the locus crosses that rule's boundary. So every stretch of the locus on
which all the rules hold either is the whole closed locus, or has ends that are such
crossings. The candidates built here are exactly those points:

* the point of the locus nearest the model's start (covers a locus with no crossing);
* where the locus crosses the circle of the move's straight reach round the start;
* where it crosses the boundary of each other footprint's rule region: the packing
  locus (gap 0) of every model standing at the target's height, the engagement locus
  of every non-target model (pushed out by ``STRICT_MARGIN`` because being *at* the
  range is already inside it), the 2" coherency locus (and 9" spread locus in edition
  11) of every other model of the unit, the engagement locus of every target model,
  the gap-0 locus of every terrain piece a model may not end in, and the edges of the
  floor the target stands on;
* where it crosses the four lines that keep the base on the board.

The crossings come from ``geometry.placement``: closed forms when both loci are circles
(round bases) or a circle and a rounded polygon (walls, polygons), and the documented
root finder along the locus (brackets refined until stable, Brent to 1e-12 rad)
otherwise. No spot comes from an angular or spatial grid.

The caller checks each candidate exactly; a candidate that passes is a proven miss.
Whether a candidate is reached is decided by the exact path cost (tangents and arcs
round obstacles). When a stretch satisfies every rule except reach, its reachable part
(if any) begins where the path cost equals the budget: :func:`reach_roots` builds those
points on the cost field, isolated with a proof (the least path cost changes along a
clear arc of the locus no faster than the arc's length; its docstring), and the
caller tries them too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..geometry.placement import (
    CORNER_EPS,
    OffsetCurve,
    angle_roots,
    circle_offset_crossings,
    lipschitz_roots,
    locus_circle_crossings,
    locus_crossings,
    locus_nearest,
    sd_at,
    segment_roots,
)
from ..geometry.shapes import TOL, Footprint, polygon_point_signed_distance, signed_distance

#: a boundary that must be strictly passed (engagement range of a non-target) is
#: crossed this far beyond it, so the candidate is outside the range beyond TOL
STRICT_MARGIN = 3e-6


def _near(a: Footprint, b: Footprint, mover: Footprint, gap_a: float, gap_b: float) -> bool:
    """Can the locus of ``a`` at ``gap_a`` meet the locus of ``b`` at ``gap_b``? (Each
    lies within its footprint's enclosing radius plus the mover's and the gap.)"""
    reach = a.radius + b.radius + 2.0 * mover.radius + gap_a + gap_b
    return float(math.dist(a.center, b.center)) <= reach + 1e-9


def _line_crossings(mover: Footprint, target: Footprint, d: float, axis: int, value: float) -> np.ndarray:
    """Centres on the locus whose coordinate ``axis`` equals ``value``."""
    cur = OffsetCurve(mover, target, d)
    circ = cur.is_circle()
    if circ is not None:
        c, r = circ
        off = value - float(c[axis])
        if abs(off) > r:
            return np.zeros((0, 2))
        h = math.sqrt(max(r * r - off * off, 0.0))
        o = 1 - axis
        out = np.zeros((2, 2))
        out[:, axis] = value
        out[0, o] = float(c[o]) + h
        out[1, o] = float(c[o]) - h
        return out
    lo = float(target.center[axis]) - target.radius - mover.radius - d
    hi = float(target.center[axis]) + target.radius + mover.radius + d
    if not lo - 1e-9 <= value <= hi + 1e-9:
        return np.zeros((0, 2))
    # a coordinate changes no faster than the point moves: Lipschitz constant 1
    return cur.roots(lambda P: P[:, axis] - value, g_lip=1.0)


def locus_candidates(
    mover: Footprint,
    target: Footprint,
    d: float,
    reach: float | None,
    boundaries: Sequence[tuple[Footprint, float]],
    board_lines: Sequence[tuple[int, float]],
) -> np.ndarray:
    """Constructed candidate centres on the locus of ``target`` at gap ``d`` for
    ``mover`` (a footprint at its start; the spots are centres for it, same facing).

    ``reach``: straight reach round the start (None: leave out the nearest point and
    the reach crossings); ``boundaries``: (footprint, gap) pairs
    whose loci bound a rule region; ``board_lines``: (axis, value) lines of centres
    that bound the board."""
    s = np.asarray(mover.center, dtype=float)
    out = []
    if reach is not None:
        out.append(locus_nearest(mover, target, d, s))
        out.append(locus_circle_crossings(mover, target, d, s, reach))
    for fp, k in boundaries:
        if fp is target and k == d:
            continue
        if not _near(target, fp, mover, d, k):
            continue
        out.append(locus_crossings(mover, target, d, fp, k))
    for axis, value in board_lines:
        out.append(_line_crossings(mover, target, d, axis, value))
    pts = np.vstack([p.reshape(-1, 2) for p in out if len(p)]) if any(len(p) for p in out) else np.zeros((0, 2))
    if len(pts) == 0:
        return pts
    # drop repeats (several boundaries may cross the locus at the same point)
    key = np.round(pts, 9)
    _, first = np.unique(key, axis=0, return_index=True)
    return pts[np.sort(first)]


#: a barrier blocks (or charges) a path that penetrates it deeper than this, so the
#: path cost may jump where the locus is this deep inside one (``geometry.paths``)
PEN = TOL
#: ``reach_roots``: a point whose path cost is within this of the budget is a touching
#: point (the rule is checked with TOL beyond the budget, so it is accepted there)
REACH_TOUCH = 0.5 * TOL


def reach_roots(
    mover: Footprint,
    target: Footprint,
    d: float,
    cost: Callable[[np.ndarray], np.ndarray],
    budget: float,
    *,
    limit: float | None = None,
    walls: Sequence[tuple[Footprint, bool]] = (),
    lines: Sequence[tuple[int, float]] = (),
    areas: Sequence[tuple[np.ndarray, float]] = (),
    charged_ends_refused: bool = False,
    field_mover: Footprint | None = None,
) -> np.ndarray:
    """Centres on the locus where the path cost from the start equals ``budget``
    (where a stretch of the locus enters the model's reach along real paths).

    ``cost`` is ``inf`` for a point it cannot reach within ``limit`` (every finite
    value is at most ``limit``). With ``limit`` given the crossings are isolated with
    a proof:

    *Claim.* Let A be an arc of the locus (between two of the cut points below) whose
    every point is clear of every barrier (penetration at most ``PEN``), and let c* be
    the least cost of a path (length plus crossing charges). Then for spots p, q of A,
    ``|c*(p) - c*(q)| <= length of A between p and q <= speed * |θp - θq|``, where
    ``speed`` bounds ``|dp/dθ|`` (``OffsetCurve.speed``: the radius r + r' + d of a
    round locus, the largest radii of curvature plus the gap otherwise).

    *Proof.* Follow a least path to p, then the locus from p to q. The locus is made
    of lines and arcs, so this is a path of the kind the planner measures; it stays
    clear of every barrier, so it is never blocked and the added piece is charged
    nothing; it is as long as the arc. So ``c*(q) <= c*(p) + arc``, and the same with
    p and q swapped. The locus moves at most ``speed`` per radian.

    So on such an arc ``f = min(c, cap) - budget`` (``cap`` = the least of ``limit``
    and budget + 1; an unreachable spot counts as ``cap``, exact since its cost is
    above ``limit``; a minimum with a constant keeps the bound) is ``speed``-Lipschitz
    in θ and ``placement.lipschitz_roots`` isolates its zeros: a dip of the cost
    below the budget narrower than any sample spacing is found, and a dip that only
    touches the budget is reported as a touching point (``REACH_TOUCH``).

    The cost jumps only where that clearance changes: where the locus meets a
    barrier's boundary at depth ``PEN`` (``walls``: footprint and whether crossing it
    is charged), where the centre leaves the planner's board box (``lines``: (axis,
    value)), and where an extra charge of the caller changes (``areas``: convex
    polygons of centres grown by a margin, (vertices, margin), such as hills for the
    vertical climb the caller adds to ``cost``: the charge changes where the centre
    crosses the grown polygon's boundary).
    Those cut points are constructed (closed forms on a round locus, the proven root
    finder otherwise); f is never judged across one, and each side of a cut whose
    value is within the budget is a candidate too (the reachable part of a stretch
    may begin at a cut). Inside a hard barrier the cost is ``inf`` (constant ``cap``),
    so the bound holds there trivially.

    Inside a barrier whose crossing is charged the claim fails: the planner charges
    every path piece that enters such a barrier (``geometry.paths``, "Soft
    barriers"), so following the locus from p to q there is a fresh piece and costs
    a fresh charge, and c* may jump wherever the last leg of a least path starts or
    stops grazing another barrier. No bound is needed there, because no spot there
    is wanted: the caller promises (``charged_ends_refused``) that a spot whose base
    enters a charged barrier deeper than ``PEN`` is refused whatever its cost (in 40k
    every feature whose crossing is charged is one no model may end in: the terrain
    test refuses penetration deeper than TOL = ``PEN``). So there f is set to the
    constant ``cap - budget`` (> 0: not a root), which is trivially Lipschitz; the
    arcs inside are bounded by cuts already (the barrier's boundary at depth
    ``PEN``), and the side of each cut outside the barrier is a candidate when it is
    within the budget. Every stretch of wanted spots lies outside those barriers, so
    its reachable part begins at a root on a clear arc, at a cut, or is the whole
    stretch, and nothing is sampled. A caller that cannot promise this gets a
    ``ValueError`` (a charged barrier with ``charged_ends_refused`` False).

    ``field_mover``: the base the cost's field really plans, where it is not
    ``mover`` (an oval planned as its circumscribed polygon). The cost then jumps
    where *that* base meets a barrier, so the cuts are built with it, and the target
    is kept among the barriers (the stand-in may reach it where the base does not).
    The claim needs that base to follow the locus clear of every barrier between two
    cuts, which those cuts give.

    Without ``limit`` (or for a curve of unknown speed), the old way everywhere: sign
    changes on the refined angle set (``OffsetCurve.roots`` without a bound)."""
    cur = OffsetCurve(mover, target, d)
    sp = cur.speed()
    if limit is None or sp is None or not math.isfinite(limit):
        cap0 = budget + 1.0

        def g0(P: np.ndarray) -> np.ndarray:
            c = np.asarray(cost(np.atleast_2d(P)), dtype=float)
            return np.minimum(np.where(np.isfinite(c), c, cap0), cap0) - budget

        return cur.roots(g0)
    cap = min(float(limit), budget + 1.0)
    # the target itself is a barrier the locus runs round at gap d >= 0: never entered
    cm = mover if field_mover is None else field_mover  # the base whose clearance cuts
    walls = [(fp, soft) for fp, soft in walls
             if not (field_mover is None and d >= 0.0 and _same_place(fp, target))
             and _near(target, fp, cm, d, 0.0)]
    charged = [fp for fp, soft in walls if soft]
    if charged and not charged_ends_refused:
        raise ValueError("reach_roots: no bound inside a charged barrier whose spots may be wanted")

    def g(P: np.ndarray) -> np.ndarray:
        P = np.atleast_2d(P)
        out = np.full(len(P), cap - budget)
        if len(P) == 0:
            return out
        # inside a charged barrier no spot is wanted: the constant cap (see above)
        free = np.ones(len(P), dtype=bool)
        for fp in charged:
            free &= sd_at(mover, P, fp) >= -PEN
        if free.any():
            c = np.asarray(cost(P[free]), dtype=float)
            out[free] = np.minimum(np.where(np.isfinite(c), c, cap), cap) - budget
        return out

    out: list[np.ndarray] = []
    circ = cur.is_circle()
    for k in range(len(cur.pieces)):

        def at(th: np.ndarray, k: int = k) -> np.ndarray:
            return cur.at(k, th)

        cuts = _cut_angles(cur, k, circ, sp, walls, lines, areas, cm)
        f = lambda th, at=at: g(at(th))  # noqa: E731
        # (past its evaluation cap it reports the runs it could not clear, never None)
        got = lipschitz_roots(f, list(cur.corners) + cuts, sp, touch=REACH_TOUCH) or []
        pts = [at(np.array([th]))[0] for th in got]
        for a in cur.corners:
            p0 = at(np.array([a - CORNER_EPS]))[0]
            p1 = at(np.array([a + CORNER_EPS]))[0]
            if float(np.hypot(*(p1 - p0))) <= 1e-9:
                continue
            r, sides = _segment_reach(p0, p1, g, cm, walls, lines, areas)
            pts.extend(r)
            out.extend(q[None] for q in sides)
        if pts:
            P = np.asarray(pts, dtype=float).reshape(-1, 2)
            # a bracket across a jump converges onto the jump, not onto a root
            out.append(P[np.abs(g(P)) <= max(1e-7, REACH_TOUCH)])
        if cuts:
            # each side of a cut within the budget (screened by value already)
            side = np.concatenate([np.asarray(cuts) - CORNER_EPS, np.asarray(cuts) + CORNER_EPS])
            Q = at(side)
            out.append(Q[g(Q) <= REACH_TOUCH])
    if not out:
        return np.zeros((0, 2))
    return np.vstack(out)


def _same_place(a: Footprint, b: Footprint) -> bool:
    """The same footprint (the target at its start, as the path field knows it)."""
    return a is b or (len(a.parts) == len(b.parts) and a.radius == b.radius
                      and bool(np.array_equal(np.asarray(a.center), np.asarray(b.center))))


def _cut_angles(cur: OffsetCurve, k: int, circ: tuple[np.ndarray, float] | None, sp: float,
                walls: Sequence[tuple[Footprint, bool]], lines: Sequence[tuple[int, float]],
                areas: Sequence[tuple[np.ndarray, float]], cut_mover: Footprint | None = None) -> list[float]:
    """Angles of piece ``k`` of the locus where the path cost may jump: its crossings
    with each wall's boundary at depth ``PEN`` (of ``cut_mover`` centred on the locus,
    the locus's own base when None), with each line and with the boundary of each
    grown area (a point's signed distance moves no faster than the point)."""
    mover = cur.mover if cut_mover is None else cut_mover
    pts: list[np.ndarray] = []
    angles: list[float] = []
    for fp, _ in walls:
        if circ is not None and mover.is_disc and mover is cur.mover:
            pts.append(locus_crossings(mover, cur.target, cur.d, fp, -PEN).reshape(-1, 2))
        else:
            h = lambda th, fp=fp: sd_at(mover, cur.at(k, th), fp) + PEN  # noqa: E731
            angles += _checked(h, angle_roots(h, cur.corners, lip=sp))
    for axis, value in lines:
        if circ is not None:
            pts.append(_line_crossings(mover, cur.target, cur.d, axis, value))
        else:
            h = lambda th, axis=axis, value=value: cur.at(k, th)[:, axis] - value  # noqa: E731
            angles += _checked(h, angle_roots(h, cur.corners, lip=sp))
    for V, e in areas:
        V = np.asarray(V, dtype=float).reshape(-1, 2)
        if circ is not None:
            pts.append(circle_offset_crossings(circ[0], circ[1], V, e))
        else:
            h = lambda th, V=V, e=e: polygon_point_signed_distance(V, cur.at(k, th)) - e  # noqa: E731
            angles += _checked(h, angle_roots(h, cur.corners, lip=sp))
    if circ is not None:
        c = circ[0]
        P = np.vstack([p.reshape(-1, 2) for p in pts]) if pts else np.zeros((0, 2))
        angles += [float(math.atan2(q[1] - c[1], q[0] - c[0])) for q in P]
    return angles


def _checked(h: Callable[[np.ndarray], np.ndarray], ths: list[float]) -> list[float]:
    """The angles where ``h`` is really (near) zero: a bracket across one of the
    curve's corners converges onto the jump, not onto a root."""
    if not ths:
        return []
    v = np.asarray(h(np.asarray(ths, dtype=float)), dtype=float)
    return [t for t, x in zip(ths, v, strict=True) if abs(x) <= 1e-7]


def _segment_reach(p0: np.ndarray, p1: np.ndarray, g: Callable[[np.ndarray], np.ndarray], mover: Footprint,
                   walls: Sequence[tuple[Footprint, bool]], lines: Sequence[tuple[int, float]],
                   areas: Sequence[tuple[np.ndarray, float]]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """:func:`reach_roots` on a straight piece of the locus (at a corner of the curve,
    a flat face sliding along a vertex), parametrised p0 + t (p1 - p0), t in [0, 1]:
    the cost is ``|p1 - p0|``-Lipschitz in t between the cuts, by the same proof.
    Returns the roots (to be screened by value) and the cut sides within budget."""
    e = p1 - p0
    L = float(np.hypot(e[0], e[1]))

    def P(t: np.ndarray) -> np.ndarray:
        return p0[None] + np.atleast_1d(t)[:, None] * e[None]

    cuts: list[float] = []
    for fp, _ in walls:
        h = lambda t, fp=fp: sd_at(mover, P(t), fp) + PEN  # noqa: E731
        got = segment_roots(h, L)
        cuts += [] if got is None else got
    for axis, value in lines:
        if e[axis] != 0.0:
            cuts.append((value - p0[axis]) / e[axis])
    for V, m in areas:
        V = np.asarray(V, dtype=float).reshape(-1, 2)
        h = lambda t, V=V, m=m: polygon_point_signed_distance(V, P(t)) - m  # noqa: E731
        got = segment_roots(h, L)
        cuts += [] if got is None else got
    cuts = [t for t in cuts if 0.0 < t < 1.0]
    h = lambda t: g(P(t))  # noqa: E731
    got = segment_roots(h, L, touch=REACH_TOUCH, extra=cuts) or []
    roots = [P(np.array([t]))[0] for t in got]
    sides: list[np.ndarray] = []
    if cuts:
        side = np.concatenate([np.asarray(cuts) - CORNER_EPS, np.asarray(cuts) + CORNER_EPS])
        side = side[(side >= 0.0) & (side <= 1.0)]
        Q = P(side)
        sides = list(Q[g(Q) <= REACH_TOUCH])
    return roots, sides


def _disc(fp: Footprint) -> tuple[float, float, float] | None:
    """(x, y, r) of a round footprint, else None (kept on the footprint, as its cached
    properties are: footprints are immutable)."""
    got = fp.__dict__.get("_round_xyr", False)
    if got is not False:
        return got
    out = None
    if fp.is_disc:
        p = fp.parts[0]
        c = p.center
        out = float(c[0]), float(c[1]), float(p.r)  # type: ignore[attr-defined]
    fp.__dict__["_round_xyr"] = out
    return out


def _circle_pairs(C1: np.ndarray, R1: np.ndarray, C2: np.ndarray, R2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form crossings of every circle of set 1 with every circle of set 2, with
    the index (into set 1) of the circle each crossing lies on."""
    p, i, _ = _circle_pairs_ij(C1, R1, C2, R2)
    return p, i


def _circle_pairs_ij(C1: np.ndarray, R1: np.ndarray, C2: np.ndarray, R2: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_circle_pairs` with the index into set 2 as well."""
    if len(C1) == 0 or len(C2) == 0:
        return np.zeros((0, 2)), np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    v = C2[None, :, :] - C1[:, None, :]
    dd = np.hypot(v[..., 0], v[..., 1])
    r1 = R1[:, None]
    r2 = R2[None, :]
    ok = (dd > 0) & (dd <= r1 + r2) & (dd >= np.abs(r1 - r2))
    i, j = np.nonzero(ok)
    if len(i) == 0:
        return np.zeros((0, 2)), np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    dd = dd[i, j]
    a1, a2 = R1[i], R2[j]
    e = v[i, j] / dd[:, None]
    a = (a1 * a1 - a2 * a2 + dd * dd) / (2 * dd)
    h = np.sqrt(np.maximum(a1 * a1 - a * a, 0.0))
    m = C1[i] + a[:, None] * e
    n = np.stack([-e[:, 1], e[:, 0]], axis=1)
    return np.vstack([m + h[:, None] * n, m - h[:, None] * n]), np.concatenate([i, i]), np.concatenate([j, j])


def loci_candidates(
    mover: Footprint,
    targets: Sequence[Footprint],
    d: float,
    reach: float | None,
    boundaries: Sequence[tuple[Footprint, float]],
    board_lines: Sequence[tuple[int, float]],
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`locus_candidates` for several target footprints at once: the points and,
    for each, the index of the target whose locus it lies on. Round bases take the
    vectorised closed forms (every circle-circle crossing in one call); any other
    shape goes through :func:`locus_candidates` one target at a time. With ``reach``
    None the points that depend on the mover's position (nearest point, straight
    reach) are left out: the rest depends only on its base."""
    pts: list[np.ndarray] = []
    own: list[np.ndarray] = []
    md = _disc(mover)
    round_t = [i for i, t in enumerate(targets) if md is not None and _disc(t) is not None]
    other_t = [i for i, t in enumerate(targets) if i not in set(round_t)]
    if round_t:
        assert md is not None
        s = np.array(md[:2])
        rm = md[2]
        tc = np.array([_disc(targets[i])[:2] for i in round_t])  # type: ignore[index]
        tr = np.array([_disc(targets[i])[2] for i in round_t]) + rm + d  # type: ignore[index]
        idx = np.array(round_t)
        if reach is not None:
            # the point of each locus nearest the start
            v = s - tc
            n = np.hypot(v[:, 0], v[:, 1])
            safe = np.where(n > 0, n, 1.0)
            near = np.where((n > 0)[:, None], tc + v * (tr / safe)[:, None], tc + np.stack([tr, 0 * tr], axis=1))
            pts.append(near)
            own.append(idx)
            # the straight reach
            p, k = _circle_pairs(tc, tr, s[None], np.array([reach]))
            pts.append(p)
            own.append(idx[k])
        # round boundaries, all at once
        rb = [(xyr, g) for b, g in boundaries if (xyr := _disc(b)) is not None]
        if rb:
            bc = np.array([xyr[:2] for xyr, _ in rb])
            br = np.array([xyr[2] + rm + g for xyr, g in rb])
            p, k = _circle_pairs(tc, tr, bc, br)
            pts.append(p)
            own.append(idx[k])
        for b, g in boundaries:
            if _disc(b) is not None:
                continue
            for i in round_t:
                if _near(targets[i], b, mover, d, g):
                    p = locus_crossings(mover, targets[i], d, b, g).reshape(-1, 2)
                    pts.append(p)
                    own.append(np.full(len(p), i))
        for axis, value in board_lines:
            off = value - tc[:, axis]
            ok = np.abs(off) <= tr
            h = np.sqrt(np.maximum(tr[ok] ** 2 - off[ok] ** 2, 0.0))
            for sgn in (1.0, -1.0):
                p = np.zeros((int(ok.sum()), 2))
                p[:, axis] = value
                p[:, 1 - axis] = tc[ok, 1 - axis] + sgn * h
                pts.append(p)
                own.append(idx[ok])
    for i in other_t:
        p = locus_candidates(mover, targets[i], d, reach, boundaries, board_lines)
        pts.append(p)
        own.append(np.full(len(p), i))
    if not pts:
        return np.zeros((0, 2)), np.zeros(0, dtype=int)
    return np.vstack([p.reshape(-1, 2) for p in pts]), np.concatenate(own).astype(int)


def sd_to_each(mover0: Footprint, cands: np.ndarray, fixed: Sequence[Footprint], cutoff: float) -> np.ndarray:
    """Signed distance (n_cands, n_fixed) from ``mover0`` (a base centred at the origin)
    placed at each candidate centre to each fixed footprint: exact where it is at most
    ``cutoff``, a lower bound (centre distance less both enclosing radii) above it.
    Round pairs in one broadcast; other pairs by ``signed_distance`` one by one."""
    out = np.empty((len(cands), len(fixed)))
    if len(cands) == 0 or len(fixed) == 0:
        return out
    md = _disc(mover0)
    xyr = [_disc(f) if md is not None else None for f in fixed]
    disc_j = [j for j, v in enumerate(xyr) if v is not None]
    if disc_j:
        arr = np.array([xyr[j] for j in disc_j])
        fc, fr = arr[:, :2], arr[:, 2]
        dist = np.hypot(cands[:, 0, None] - fc[None, :, 0], cands[:, 1, None] - fc[None, :, 1])
        if len(disc_j) == len(fixed):
            out = dist - fr[None, :] - md[2]  # type: ignore[index]
        else:
            out[:, disc_j] = dist - fr[None, :] - md[2]  # type: ignore[index]
    dj = set(disc_j)
    for j, f in enumerate(fixed):
        if j in dj:
            continue
        lb = np.hypot(*(cands - np.asarray(f.center, float)).T) - mover0.radius - f.radius
        col = lb.copy()
        for i in np.nonzero(lb <= cutoff)[0]:
            col[i] = signed_distance(mover0.translated(cands[i]), f)
        out[:, j] = col
    return out


def shadow_lines(mover: Footprint, obstacles: Sequence[Footprint]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The rays from the mover's centre that graze each obstacle (grown by a round
    mover's radius): where a straight move starts or stops passing through it. Each is
    (start, unit direction). Exact for a round mover and round, capsule or polygon
    obstacles (the grown obstacle's silhouette touches its corner circles); other
    shapes give none (their straight moves are still checked exactly, a stretch
    bounded by their shadow is then found only through its other ends)."""
    from ..geometry.placement import corner_circles, tangent_points

    md = _disc(mover)
    if md is None:
        return []
    s = np.array(md[:2])
    out = []
    for ob in obstacles:
        if any(type(p).__name__ == "Ellipse" for p in ob.parts):
            continue
        for c, r in corner_circles(ob, md[2]):
            for t in tangent_points(s, c, r):
                v = t - s
                n = float(np.hypot(v[0], v[1]))
                if n > 0:
                    out.append((s, v / n))
    return out


def ray_crossings(mover: Footprint, target: Footprint, d: float, rays: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Centres on the locus of ``target`` at gap ``d`` that lie on one of the rays."""
    if not rays:
        return np.zeros((0, 2))
    cur = OffsetCurve(mover, target, d)
    circ = cur.is_circle()
    out = []
    for p0, u in rays:
        if circ is not None:
            c, r = circ
            w = p0 - c
            b = float(w @ u)
            disc = b * b - (float(w @ w) - r * r)
            if disc < 0:
                continue
            for t in (-b - math.sqrt(disc), -b + math.sqrt(disc)):
                if t >= 0:
                    out.append(p0 + t * u)
        else:
            # the side of the ray's line: linear in P, its gradient as long as u
            side = cur.roots(lambda P, p0=p0, u=u: (P[:, 0] - p0[0]) * u[1] - (P[:, 1] - p0[1]) * u[0],
                             g_lip=float(np.hypot(u[0], u[1])))
            out.extend(q for q in side if float((q - p0) @ u) >= 0)
    return np.array(out).reshape(-1, 2)
