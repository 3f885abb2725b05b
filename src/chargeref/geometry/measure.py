"""Exact measurement of given paths (polylines, or lines and arcs): length, climbing,
crossed and blocking barriers (see :mod:`chargeref.geometry.paths`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .cspace import (
    _TWO_PI,
    BOARD_ID,
    Barrier,
    PathResult,
    _CSet,
    _in_box,
    _rel_parts,
    _seg_point_d2_matrix,
    _unique_pairs,
)
from .curves import (
    curve_box_ok,
    curve_from_dict,
    curve_hits,
    curve_penetrates,
    curve_points,
    segment_clear,
)
from .shapes import (
    TOL,
    Convex,
    Footprint,
)
from .smooth import SmoothBody
from .tangents import Piece, arc_box_ok, arc_sd_core

# ----------------------------------------------------------------------------------
# exact measurement of given polylines
# ----------------------------------------------------------------------------------


def _dedupe(points: Sequence[Sequence[float]] | Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    P = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(P) <= 1:
        return P
    keep = np.ones(len(P), dtype=bool)
    keep[1:] = np.hypot(*np.diff(P, axis=0).T) > 0
    return P[keep]


def _result(cs: _CSet, pts: list[np.ndarray]) -> PathResult:
    P = _dedupe(pts)
    if len(P) == 1:
        P = np.vstack([P, P])
    length, climb, crossed = _measure(cs, P)
    segs = tuple(p.as_dict() for p in _line_pieces(P))
    return PathResult(
        length + climb, length, climb, tuple((float(x), float(y)) for x, y in P), crossed, segs
    )


def _line_pieces(P: np.ndarray) -> list[Piece]:
    return [
        Piece("line", (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), float(math.dist(a, b)))
        for a, b in zip(P[:-1], P[1:], strict=True)
        if math.dist(a, b) > 0
    ]


def _piece_result(cs: _CSet, pieces: list[Piece], exact: bool, start: np.ndarray, reason: str = "") -> PathResult:
    """A path made of pieces, measured: its length is the sum of the pieces' exact
    lengths; each piece that enters a soft barrier deeper than TOL pays its cost once."""
    s = (float(start[0]), float(start[1]))
    points = [s]
    for p in pieces:
        if p.kind == "arc":
            points.extend(_arc_polyline(p))
        elif p.kind == "curve":
            points.extend(curve_points(p, ARC_SAGITTA))
        points.append(p.b)
    if len(points) == 1:
        points.append(s)
    length = float(sum(p.length for p in pieces))
    crossed: list[str] = []
    climb = 0.0
    chk = _Checker(cs, cs.all, None, np.empty(0, dtype=int))
    for p in pieces:
        if p.kind == "line":
            _, _, _, bar = cs.assess(np.asarray([p.a]), np.asarray([p.b]), cs.all)
            bars = sorted({int(b) for b in bar})
        elif p.kind == "curve":
            bars = sorted({int(cs.bar[q]) for q in curve_hits(cs, cs.all, p)})
        else:
            bars = sorted(chk.arc_barriers(p))
        for b in bars:
            barrier = cs.barriers[b]
            if barrier.cost is not None:
                crossed.append(barrier.id)
                climb += barrier.cost
    return PathResult(
        length + climb,
        length,
        climb,
        tuple(points),
        tuple(crossed),
        tuple(p.as_dict() for p in pieces),
        exact,
        "" if exact else reason,
    )


class _Checker:
    """Exact judges of path pieces against the C-obstacles ``qs`` (and the board box),
    for the tangent graph: segments by the exact segment distance, arcs by the exact
    arc distance to each C-obstacle's core (an oval-involved C-obstacle is represented
    by its circumscribed polygon, which is conservative). ``local`` maps the tangent
    graph's obstacle numbers to C-obstacles (an arc never checks its own)."""

    def __init__(self, cs: _CSet, qs: np.ndarray, box: np.ndarray | None, local: np.ndarray) -> None:
        self.cs = cs
        self.qs = np.asarray(qs, dtype=int)
        self.box = box
        self.local = np.asarray(local, dtype=int)
        #: set when an arc's clearance from an oval-involved C-obstacle stayed undecided
        self.unsure = False

    def segments(self, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        blocked, climb, _, _ = self.cs.assess(A, B, self.qs)
        if self.box is not None:
            blocked = blocked | ~_in_box(A, self.box) | ~_in_box(B, self.box)
        return blocked, climb, [()] * len(A)

    def _pairs(self, c: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cs = self.cs
        out_i, out_q = [], []
        chunk = max(1, 200_000 // max(1, len(self.qs)))
        for s0 in range(0, len(c), chunk):
            cc, rr = c[s0 : s0 + chunk], r[s0 : s0 + chunk]
            d = np.hypot(
                cc[:, None, 0] - cs.centre[None, self.qs, 0], cc[:, None, 1] - cs.centre[None, self.qs, 1]
            )
            i, j = np.nonzero(d <= rr[:, None] + cs.radius[self.qs][None, :] + TOL)
            out_i.append(i + s0)
            out_q.append(self.qs[j])
        if not out_i:
            return np.empty(0, dtype=int), np.empty(0, dtype=int)
        return np.concatenate(out_i), np.concatenate(out_q)

    def _pen(
        self, c: np.ndarray, r: np.ndarray, a0: np.ndarray, sp: np.ndarray, skip: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(arc, C-obstacle) pairs where the arc penetrates deeper than TOL. Against an
        oval-involved C-obstacle the circumscribed polygon only screens: an arc that
        enters it is judged exactly (:func:`curves.curve_penetrates` on the arc as the
        boundary of a disc body); a pair that stays undecided counts as penetrated and
        sets ``unsure``."""
        cs = self.cs
        i, q = self._pairs(c, r)
        keep = q != skip[i]
        i, q = i[keep], q[keep]
        pi_, pq = [], []
        for qq in np.unique(q):
            k = i[q == qq]
            rho = float(cs.rho[qq]) if cs.exact[qq] else 0.0
            hit = arc_sd_core(c[k], r[k], a0[k], sp[k], cs.core[qq], rho)
            if not cs.exact[qq] and hit.any():
                for j in np.flatnonzero(hit):
                    kk = int(k[j])
                    disc = SmoothBody((), ((float(c[kk, 0]), float(c[kk, 1])),), float(r[kk]))
                    v = curve_penetrates(cs, int(qq), disc, float(a0[kk]), float(sp[kk]))
                    if v < 0:
                        self.unsure = True
                    hit[j] = v != 0
            pi_.append(k[hit])
            pq.append(np.full(int(hit.sum()), qq))
        if not pi_:
            return np.empty(0, dtype=int), np.empty(0, dtype=int)
        return np.concatenate(pi_), np.concatenate(pq)

    def arcs(
        self, c: np.ndarray, r: np.ndarray, a0: np.ndarray, sp: np.ndarray, owner: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list]:
        n = len(c)
        skip = self.local[owner] if len(self.local) else np.full(n, -1)
        blocked, climb = self.arcs_skipping(c, r, a0, sp, skip)
        return blocked, climb, [()] * n

    def arcs_skipping(
        self, c: np.ndarray, r: np.ndarray, a0: np.ndarray, sp: np.ndarray, skip: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Arcs of centre ``c``, radius ``r``, from angle ``a0`` sweeping ``sp``: blocked
        (a hard C-obstacle entered, or the board left) and the climbing they pay, ignoring
        for each arc the C-obstacle ``skip`` (the one it runs along)."""
        cs = self.cs
        n = len(c)
        pi_, pq = self._pen(c, r, a0, sp, skip)
        blocked = np.zeros(n, dtype=bool)
        blocked[pi_[cs.hard[pq]]] = True
        climb = np.zeros(n)
        soft = ~cs.hard[pq]
        ps, pb = _unique_pairs(pi_[soft], cs.bar[pq[soft]])
        if len(ps):
            climb += np.bincount(ps, weights=cs.cost_of_bar[pb], minlength=n)
        blocked |= ~arc_box_ok(c, r, a0, sp, self.box)
        return blocked, climb

    def arc_barriers(self, p: Piece) -> set[int]:
        """Barriers an arc piece penetrates deeper than TOL (its own C-obstacle, on
        whose boundary it runs, is never penetrated)."""
        c, r, a0, sp = _arc_params(p)
        pi_, pq = self._pen(c, r, a0, sp, np.full(1, -1))
        # the arc runs on the boundary of the C-obstacle it wraps: sd = 0 there
        return {int(self.cs.bar[q]) for q in pq}

    def exact_near(self, pieces: list[Piece]) -> str:
        """Why the pieces' clearance from the oval-involved C-obstacles is not proven
        ("" when it is): each line is judged against each such C-obstacle within reach
        by :func:`curves.segment_clear` (the origin outside ``(Q ⊖ TOL) ⊕ (−segment)``,
        a GJK test on smooth bodies), each arc by :func:`curves.curve_penetrates`;
        curve pieces are exact by construction."""
        cs = self.cs
        inex = np.flatnonzero(~cs.exact)
        if len(inex) == 0:
            return ""
        for p in pieces:
            if p.kind == "line":
                d2 = _seg_point_d2_matrix(np.asarray([p.a]), np.asarray([p.b]), cs.centre[inex])[0]
                for q in inex[d2 <= (cs.radius[inex] + TOL) ** 2]:
                    v = segment_clear(cs, int(q), np.asarray(p.a), np.asarray(p.b))
                    if v is None:
                        return "a straight piece passes an oval-involved obstacle whose clearance is not decided exactly"
                    if not v:
                        return "a straight piece enters an oval-involved obstacle (exact clearance below -TOL)"
            elif p.kind == "arc":
                c, r, a0, sp = _arc_params(p)
                d = np.hypot(*(cs.centre[inex] - c[0]).T)
                for q in inex[d <= cs.radius[inex] + r[0] + TOL]:
                    disc = SmoothBody((), ((float(c[0, 0]), float(c[0, 1])),), float(r[0]))
                    v = curve_penetrates(cs, int(q), disc, float(a0[0]), float(sp[0]))
                    if v < 0:
                        return "an arc passes an oval-involved obstacle and its clearance stays undecided"
                    if v > 0:
                        return "an arc enters an oval-involved obstacle"
        return ""


#: Largest gap (scenario unit) between an arc and the chords that stand for it in
#: ``PathResult.points``: well inside TOL even after coordinates are rounded to 1e-6.
ARC_SAGITTA = 2.5e-7


def _arc_polyline(p: Piece) -> list[tuple[float, float]]:
    """Inner points of an arc for the polyline ``points``: equally spaced on the arc so
    that no chord strays more than :data:`ARC_SAGITTA` from it (a reader who takes the
    polyline for the path is off by less than TOL)."""
    c, r, a0, sp = _arc_params(p)
    rr, span = float(r[0]), float(sp[0])
    if rr <= ARC_SAGITTA or span <= 0:
        return []
    step = 2.0 * math.acos(1.0 - ARC_SAGITTA / rr)
    k = math.ceil(span / step)
    if k <= 1:
        return []
    t = np.arange(1, k) / k * span
    ang = float(a0[0]) + (t if p.ccw else span - t)
    return [(float(c[0, 0] + rr * math.cos(a)), float(c[0, 1] + rr * math.sin(a))) for a in ang]


def _arc_params(p: Piece) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(centre, radius, start angle, span) of an arc piece as length-1 arrays, the
    span counter-clockwise from the start angle."""
    assert p.center is not None
    c = np.asarray([p.center], dtype=float)
    ta = math.atan2(p.a[1] - p.center[1], p.a[0] - p.center[0])
    tb = math.atan2(p.b[1] - p.center[1], p.b[0] - p.center[0])
    sp = p.length / p.radius if p.radius > 0 else 0.0
    a0 = ta if p.ccw else tb
    del tb
    return c, np.asarray([p.radius]), np.asarray([a0]), np.asarray([sp])


def _measure(cs: _CSet, P: np.ndarray) -> tuple[float, float, tuple[str, ...]]:
    A, B = P[:-1], P[1:]
    length = float(np.sum(np.hypot(*(B - A).T))) if len(A) else 0.0
    if len(A) == 0:
        return length, 0.0, ()
    _, _, seg, bar = cs.assess(A, B, cs.all)
    crossed: list[str] = []
    climb = 0.0
    for b in bar[np.lexsort((bar, seg))] if len(seg) else []:
        barrier = cs.barriers[int(b)]
        if barrier.cost is not None:
            crossed.append(barrier.id)
            climb += barrier.cost
    return length, climb, tuple(crossed)


def sweep_clear(
    base: Footprint,
    points: Sequence[Sequence[float]] | np.ndarray,
    barriers: Sequence[Barrier],
    tol: float = TOL,
    board: tuple[float, float] | None = None,
) -> list[str]:
    """Ids of the hard barriers that the base, translated along the polyline of centre
    positions ``points``, penetrates deeper than ``tol`` (empty: the move is clear).
    With ``board``, :data:`BOARD_ID` is reported if the base leaves ``[0,w]x[0,d]``."""
    P = _dedupe(points)
    rel = _rel_parts(base)
    hard = [b for b in barriers if b.cost is None]
    out: list[str] = []
    if board is not None:
        w, d = board
        for p in rel:
            lo = p.h(np.asarray([[-1.0, 0.0], [0.0, -1.0]]))
            hi = p.h(np.asarray([[1.0, 0.0], [0.0, 1.0]]))
            if (
                (P[:, 0] - lo[0] < -tol).any()
                or (P[:, 1] - lo[1] < -tol).any()
                or (P[:, 0] + hi[0] > w + tol).any()
                or (P[:, 1] + hi[1] > d + tol).any()
            ):
                out.append(BOARD_ID)
                break
    if not hard:
        return out
    cs = _CSet(rel, hard, 48)
    A, B = (P[:-1], P[1:]) if len(P) > 1 else (P, P)
    _, _, _, bar = cs.assess(A, B, cs.all, tol=tol)
    seen: list[int] = []
    for b in bar:
        if int(b) not in seen:
            seen.append(int(b))
    out.extend(hard[b].id for b in sorted(seen))
    return out


def path_cost(
    base: Footprint, points: Sequence[Sequence[float]] | np.ndarray, barriers: Sequence[Barrier]
) -> tuple[float, float, tuple[str, ...]]:
    """(length, climb, crossed ids) of the base moved along the polyline ``points``.

    Each segment that penetrates a soft barrier deeper than TOL adds its cost once; hard
    barriers are not counted here (see :func:`sweep_clear`)."""
    P = _dedupe(points)
    if len(P) < 2:
        return 0.0, 0.0, ()
    cs = _CSet(_rel_parts(base), list(barriers), 48)
    return _measure(cs, P)


@dataclass(frozen=True)
class PathCheck:
    """What :func:`measure_path` finds: exact length, climb and crossed soft barriers
    (once per piece and barrier), and the hard barriers (or :data:`BOARD_ID`) entered."""

    length: float
    climb: float
    crossed: tuple[str, ...]
    blocked: tuple[str, ...]


def piece_from_dict(d: dict) -> Piece:
    """A path piece from its contract form (``kind`` line, arc or curve). An arc's span
    runs from ``from`` to ``to`` round ``center`` in its direction (``ccw``); its length
    is ``radius × span``. A curve runs along a smooth body's boundary (see
    :mod:`chargeref.geometry.curves`). Raises ValueError for a malformed piece."""
    kind = d.get("kind")
    if kind == "curve":
        return curve_from_dict(d)
    a = tuple(float(v) for v in d["from"][:2])
    b = tuple(float(v) for v in d["to"][:2])
    if kind == "line":
        return Piece("line", a, b, math.dist(a, b))
    if kind != "arc":
        raise ValueError(f"unknown piece kind {kind!r}")
    c = tuple(float(v) for v in d["center"][:2])
    r = float(d["radius"])
    if not (r >= 0 and math.isfinite(r)):
        raise ValueError("an arc's radius must be finite and >= 0")
    ccw = bool(d.get("ccw", True))
    ta = math.atan2(a[1] - c[1], a[0] - c[0])
    tb = math.atan2(b[1] - c[1], b[0] - c[0])
    span = (tb - ta) % _TWO_PI if ccw else (ta - tb) % _TWO_PI
    return Piece("arc", a, b, r * span, c, r, ccw)


def measure_path(
    base: Footprint,
    pieces: Sequence[Piece | dict],
    barriers: Sequence[Barrier],
    board: tuple[float, float] | None = None,
    tol: float = TOL,
) -> PathCheck:
    """Measure the base (centred at the first piece's start) moved along ``pieces``
    (lines and arcs of its centre, as :class:`Piece` or contract dicts): exact length,
    climbing, and which hard barriers it enters deeper than ``tol``."""
    ps = [p if isinstance(p, Piece) else piece_from_dict(p) for p in pieces]
    ps = [p for p in ps if p.length > 0]
    length = float(sum(p.length for p in ps))
    rel = _rel_parts(base)
    blocked: list[str] = []
    if board is not None and ps:
        box = _box_for(rel, board)
        pts = np.asarray([p.a for p in ps] + [ps[-1].b])
        out = not _in_box(pts, box, tol).all()
        for p in ps:
            if p.kind == "arc":
                c, r, a0, sp = _arc_params(p)
                out |= not bool(arc_box_ok(c, r, a0, sp, box)[0])
            elif p.kind == "curve":
                out |= not curve_box_ok(p, box, tol)
        if out:
            blocked.append(BOARD_ID)
    if not barriers or not ps:
        return PathCheck(length, 0.0, (), tuple(blocked))
    cs = _CSet(rel, list(barriers), 48)
    chk = _Checker(cs, cs.all, None, np.empty(0, dtype=int))
    crossed: list[str] = []
    hard: list[int] = []
    climb = 0.0
    for p in ps:
        if p.kind == "line":
            _, _, _, bar = cs.assess(np.asarray([p.a]), np.asarray([p.b]), cs.all, tol=tol)
            bars = sorted({int(b) for b in bar})
        elif p.kind == "curve":
            bars = sorted({int(cs.bar[q]) for q in curve_hits(cs, cs.all, p, tol=tol)})
        else:
            bars = sorted(chk.arc_barriers(p))
        for b in bars:
            barrier = cs.barriers[b]
            if barrier.cost is None:
                if b not in hard:
                    hard.append(b)
            else:
                crossed.append(barrier.id)
                climb += barrier.cost
    blocked.extend(cs.barriers[b].id for b in sorted(hard))
    return PathCheck(length, climb, tuple(crossed), tuple(blocked))


def _box_for(rel: tuple[Convex, ...], board: tuple[float, float]) -> np.ndarray:
    w, d = board
    ext = {
        tuple(u): max(float(p.h(np.asarray([u], dtype=float))[0]) for p in rel)
        for u in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))
    }
    return np.array([ext[(-1.0, 0.0)], w - ext[(1.0, 0.0)], ext[(0.0, -1.0)], d - ext[(0.0, 1.0)]])


