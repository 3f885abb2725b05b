"""Constructed end spots for a translating base: the geometry of placement.

Every spot this module returns is *built* from the constraint it sits on, never taken
from an angular or spatial grid:

* the **offset curve** of a mover M round a fixed footprint T at gap ``d`` is the set of
  centres where M (same facing) is exactly ``d`` from T. Along the common normal
  ``u(θ)`` it is ``c(θ) = s_T(u) − s_M(−u) + d·u`` (``s`` the support point, M's taken
  relative to its centre): exact for convex parts, and for unions of convex parts
  every part pair gives a piece of it;
* for two round bases the offset curve is a circle (centre T, radius ``r_M + r_T + d``)
  and everything below has a closed form: the point of a circle nearest a start, and
  the crossings of two circles (``circles``, re-exported here);
* for other shapes the same questions become scalar root problems along ``θ`` and are
  solved with ``scipy.optimize.brentq`` to 1e-12 rad. When the condition is a distance
  (Lipschitz constant 1 in the point) the roots are isolated with a proof
  (``lipschitz_roots``): the curve's speed is bounded by its parts' largest radii of
  curvature plus the gap, and an interval between samples whose values share a sign
  is dropped only when that bound shows the condition cannot vanish inside it, so a
  root pair closer together than any sample spacing is found; a tangency (f touching
  0 without a sign change) ends as a touching point (``touch``, or the evaluation
  cap: see ``lipschitz_roots``). Otherwise (a condition of unknown Lipschitz
  constant) brackets are sign changes
  on a set of angles refined (doubled) until the number of brackets is the same twice,
  starting from 64 angles plus every flat-edge normal (where the curve has corners); a
  root pair closer together than the final spacing can then still be missed, which
  loses a candidate (a worse placement), never gives a wrong one.

The module knows no game rules: what a gap means (contact, engagement, coherency) is
the caller's business. Lengths are in the caller's unit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

from .circles import (
    arrangement_points,
    circle_crossings,
    circle_offset_crossings,
    circles_crossings_many,
    circles_crossings_stack,
    corner_circles,
    nearest_on_circle,
    tangent_points,
)
from .curve_one import _few, _PartsCurve, _support1
from .footprint_key import ExactArgs, footprint_key
from .oval_distance import Smooth
from .shapes import (
    Capsule,
    ConvexPolygon,
    Disc,
    Footprint,
    Sum,
    footprint_translations_sd,
    point_sd,
    smooth_part,
)

#: angular tolerance of the root finder (radians): at a radius of 10" this is 1e-11"
ROOT_XTOL = 1e-12
#: brackets start from this many angles and double until their count is stable
START_ANGLES = 64
MAX_ANGLES = 4096
#: the two sides of a corner of an offset curve (a flat face) are taken this far off it
CORNER_EPS = 1e-11
#: ``OffsetCurve.roots``: a point where the condition is within this of 0 and that
#: the Lipschitz bound cannot separate from a root is a touching point (a tangency);
#: half the 1e-7 the roots are screened with, so a touching point always passes
ROOT_TOUCH = 5e-8


# ----------------------------------------------------------------------------- offset curves


def grown(fp: Footprint, e: float, id_: str = "") -> Footprint:
    """``fp ⊕ disc(e)``: every point within ``e`` of the footprint (exact, no polygon)."""
    parts = []
    for p in fp.parts:
        if isinstance(p, Disc):
            parts.append(Disc(p.c, p.r + e))
        elif isinstance(p, Capsule):
            parts.append(Capsule(p.p0, p.p1, p.r + e))
        else:
            parts.append(Sum((p, Disc((0.0, 0.0), e))))
    return Footprint(tuple(parts), fp.kind, fp.origin, fp.meta)


def _part_flat_angles(p: object) -> list[float]:
    """Outward normal angles of a convex part's flat sides: where its support point
    jumps along the side. A polygon's edges; a capsule's two straight sides (its
    support flips between the spine's ends across the spine's perpendicular); a
    Minkowski sum has a flat side wherever one of its parts has one."""
    if isinstance(p, ConvexPolygon):
        n = p.edge_normals() if callable(getattr(p, "edge_normals", None)) else None
        return [] if n is None else [float(math.atan2(v[1], v[0])) for v in np.atleast_2d(n)]
    if isinstance(p, Capsule):
        dx, dy = p.p1[0] - p.p0[0], p.p1[1] - p.p0[1]
        if math.hypot(dx, dy) <= 0.0:
            return []
        a = math.atan2(-dx, dy)
        return [a, a + math.pi]
    if isinstance(p, Sum):
        return [a for q in p.parts for a in _part_flat_angles(q)]
    return []


def _flat_angles(fp: Footprint) -> list[float]:
    return [a for p in fp.parts for a in _part_flat_angles(p)]


class OffsetCurve:
    """Centres where ``mover`` (same facing, centre at ``mover.center``) is at gap ``d``
    from ``target``: one parametrised piece per (target part, mover part) pair."""

    def __init__(self, mover: Footprint, target: Footprint, d: float) -> None:
        self.mover = mover
        self.target = target
        self.d = float(d)
        c = mover.center
        self.pieces = [(tp, mp, c) for tp in target.parts for mp in mover.parts]
        # corners of the curve sit where a flat face of either shape is the normal
        fl = _flat_angles(target) + [a + math.pi for a in _flat_angles(mover)]
        self.corners = sorted({(a + 2 * math.pi) % (2 * math.pi) for a in fl})

    def speed(self) -> float | None:
        """A bound on |dc/dθ| along every piece between corners: the largest radius of
        curvature of a target part plus that of a mover part, plus |d| (a support
        point moves at the radius of curvature; flat sides move only at corners, which
        are handled apart). None when a part's curvature is not known here."""
        best = 0.0
        for tp, mp, _ in self.pieces:
            ra, rb = _max_curvature_radius(tp), _max_curvature_radius(mp)
            if ra is None or rb is None:
                return None
            best = max(best, ra + rb)
        return best + abs(self.d)

    def at(self, k: int, th: np.ndarray) -> np.ndarray:
        fast = self._fast(k)
        if fast is not None:
            # perf: both parts smooth (ellipses grown by discs): the same support points
            # as below, written out (one angle, as the root finder's brentq asks, in
            # plain floats)
            if np.size(th) == 1:
                return np.array([fast(float(np.reshape(th, -1)[0]))])
            return fast.many(np.atleast_1d(np.asarray(th, dtype=float)))
        tp, mp, c = self.pieces[k]
        th = np.atleast_1d(np.asarray(th, dtype=float))
        U = np.stack([np.cos(th), np.sin(th)], axis=-1)
        return tp.support(U) - (mp.support(-U) - c) + self.d * U

    def _one(self, k: int) -> _SmoothCurve | _PartsCurve | None:
        """A plain-float form of ``at`` for one angle of piece k (built once), or None."""
        cache = self.__dict__.setdefault("_one_at", {})
        if k not in cache:
            cache[k] = _one_curve(*self.pieces[k], self.d)
        return cache[k]

    def _fast(self, k: int) -> _SmoothCurve | None:
        """The scalar form of ``at`` for piece k (built once), or None."""
        cache = self.__dict__.setdefault("_fast_at", {})
        if k not in cache:
            cache[k] = _scalar_curve(*self.pieces[k], self.d)
        return cache[k]

    def is_circle(self) -> tuple[np.ndarray, float] | None:
        if self.mover.is_disc and self.target.is_disc:
            t = self.target.parts[0]
            return t.center, self.mover.parts[0].r + t.r + self.d  # type: ignore[attr-defined]
        return None

    def roots(self, g: Callable[[np.ndarray], np.ndarray], g_lip: float | None = None,
              g1: Callable[[float, float], float] | None = None) -> np.ndarray:
        """Points of the curve where the scalar function ``g`` of the centre is zero.

        ``g_lip``: a Lipschitz constant of g in the point (1 for a distance). With it
        (and a curve whose speed is bounded, ``speed``) the roots are isolated with a
        proof (``angle_roots``); without it, by the refined angle set. ``g1``
        (optional): g of one point (x, y) in plain floats, the same function (perf:
        the root finder's one-angle-at-a-time calls skip the array work)."""
        out = []
        sp = self.speed()
        lip = None if g_lip is None or sp is None else g_lip * sp
        for k in range(len(self.pieces)):
            f = lambda th, k=k: g(self.at(k, th))  # noqa: E731
            fast = self._one(k) if g1 is not None else None
            f1 = None if fast is None or g1 is None else (lambda th, c=fast: g1(*c(th)))
            if f1 is not None and isinstance(fast, _PartsCurve):
                # perf: the isolation's few-angle batches in plain floats too (a piece
                # with a polygon part; two smooth parts keep their array solve, which
                # is cheaper per row than its one-point form)
                f = lambda th, k=k, f1=f1: _few(f1, th, lambda x: g(self.at(k, x)))  # noqa: E731
            for th in angle_roots(f, self.corners, lip=lip, touch=ROOT_TOUCH, f1=f1):
                q = self.at(k, np.array([th]))[0]
                # a bracket across a corner converges onto the jump, not onto a root
                gq = float(g(q[None])[0]) if g1 is None else g1(float(q[0]), float(q[1]))
                if abs(gq) <= 1e-7:
                    out.append(q)
            # at a corner angle the curve runs straight from the support point just
            # before it to the one just after it (a flat face sliding along a vertex)
            for a in self.corners:
                p0 = self.at(k, np.array([a - CORNER_EPS]))[0]
                p1 = self.at(k, np.array([a + CORNER_EPS]))[0]
                if float(np.hypot(*(p1 - p0))) <= 1e-9:
                    continue
                if g1 is None:
                    h = lambda t, p0=p0, p1=p1: float(g((p0 + t * (p1 - p0))[None])[0])  # noqa: E731
                else:
                    h = lambda t, p0=p0, p1=p1: g1(*(p0 + t * (p1 - p0)).tolist())  # noqa: E731
                h0, h1 = h(0.0), h(1.0)
                if g_lip is not None:
                    # the straight piece with the Lipschitz bound: a dip between its ends
                    # (two crossings, ends on one side) is found too
                    hv = lambda t, p0=p0, p1=p1: g(p0[None] + np.atleast_1d(t)[:, None] * (p1 - p0)[None])  # noqa: E731
                    if g1 is not None:
                        # perf: the segment's few-point batches in plain floats
                        x0, y0, ex, ey = float(p0[0]), float(p0[1]), float(p1[0] - p0[0]), float(p1[1] - p0[1])
                        hv = lambda t, hv=hv, x0=x0, y0=y0, ex=ex, ey=ey: _few(  # noqa: E731
                            lambda u: g1(x0 + u * ex, y0 + u * ey), t, hv)
                    ts = segment_roots(hv, g_lip * float(np.hypot(*(p1 - p0))), touch=ROOT_TOUCH)
                    if ts is not None:
                        out.extend(p0 + t * (p1 - p0) for t in ts)
                        continue
                if h0 == 0.0:
                    out.append(p0)
                elif h0 * h1 < 0:
                    t = brentq(h, 0.0, 1.0, xtol=ROOT_XTOL)
                    out.append(p0 + t * (p1 - p0))
        return np.array(out).reshape(-1, 2)

    def nearest(self, p: np.ndarray) -> np.ndarray:
        """The curve's points nearest to p: where ``c(θ) − p`` is along the normal."""
        circ = self.is_circle()
        if circ is not None:
            return nearest_on_circle(circ[0], circ[1], p)[None]
        p = np.asarray(p, dtype=float)
        best = None
        for k in range(len(self.pieces)):

            def f(th: np.ndarray, k: int = k) -> np.ndarray:
                th = np.atleast_1d(th)
                v = self.at(k, th) - p
                return v[:, 0] * np.sin(th) - v[:, 1] * np.cos(th)

            # |f'| <= |c'| + |c - p|: the curve's speed plus its farthest reach from p
            sp = self.speed()
            lip = None
            if sp is not None:
                tp, mp, c = self.pieces[k]
                far = float(np.hypot(*(tp.center - p))) + tp.radius + float(np.hypot(*(mp.center - c))) + mp.radius + abs(self.d)
                lip = sp + far
            cand = [self.at(k, np.array([th]))[0] for th in angle_roots(f, self.corners, lip=lip)]
            # at a corner the curve is a straight piece: the foot of p on it
            for a in self.corners:
                p0 = self.at(k, np.array([a - CORNER_EPS]))[0]
                p1 = self.at(k, np.array([a + CORNER_EPS]))[0]
                e = p1 - p0
                L2 = float(e @ e)
                t = 0.0 if L2 == 0.0 else min(1.0, max(0.0, float((p - p0) @ e) / L2))
                cand.append(p0 + t * e)
            for q in cand:
                dq = float(np.hypot(*(q - p)))
                if best is None or dq < best[0] - 1e-15:
                    best = (dq, q)
        return np.zeros((0, 2)) if best is None else best[1][None]


class _SmoothCurve:
    """``OffsetCurve.at`` for a piece whose two parts are ellipses grown by discs, with
    the support points written out: with q_P(u) the support point of part P relative
    to its own centre (odd in u), c(θ) = c_T + q_T(u) + q_M(u) - (c_M - c) + d·u.
    Calling it gives one angle's point in plain floats; ``many`` the same for an array
    of angles. perf: no per-call matrix products or stacking."""

    def __init__(self, st: Smooth, sm: Smooth, c: np.ndarray, d: float) -> None:
        self.bx = st.cx - (sm.cx - float(c[0]))
        self.by = st.cy - (sm.cy - float(c[1]))
        self.r = st.r + sm.r + d
        self.ells = [(e.a * e.a, e.b * e.b, e.ct, e.st) for e in (st, sm) if e.a > 0.0]

    def __call__(self, t: float) -> tuple[float, float]:
        ux, uy = math.cos(t), math.sin(t)
        x, y = self.bx + self.r * ux, self.by + self.r * uy
        for a2, b2, ct, s_ in self.ells:
            uc = ux * ct + uy * s_
            us = uy * ct - ux * s_
            n = math.sqrt(a2 * uc * uc + b2 * us * us)
            pc, ps = a2 * uc / n, b2 * us / n
            x += pc * ct - ps * s_
            y += pc * s_ + ps * ct
        return x, y

    def many(self, th: np.ndarray) -> np.ndarray:
        ux, uy = np.cos(th), np.sin(th)
        out = np.empty((len(th), 2))
        x, y = self.bx + self.r * ux, self.by + self.r * uy
        for a2, b2, ct, s_ in self.ells:
            uc = ux * ct + uy * s_
            us = uy * ct - ux * s_
            n = np.sqrt(a2 * uc * uc + b2 * us * us)
            pc, ps = a2 * uc / n, b2 * us / n
            x = x + (pc * ct - ps * s_)
            y = y + (pc * s_ + ps * ct)
        out[:, 0], out[:, 1] = x, y
        return out


def _one_curve(tp: object, mp: object, c: np.ndarray, d: float) -> _SmoothCurve | _PartsCurve | None:
    """A plain-float one-angle form of a piece: the smooth one, else the parts one."""
    got = _scalar_curve(tp, mp, c, d)
    if got is not None:
        return got
    ft, fm = _support1(tp), _support1(mp)
    if ft is None or fm is None:
        return None
    return _PartsCurve(ft, fm, c, d)


def _scalar_curve(tp: object, mp: object, c: np.ndarray, d: float) -> _SmoothCurve | None:
    """The written-out ``OffsetCurve.at`` of a piece, or None when a part is not an
    ellipse grown by a disc."""
    st, sm = smooth_part(tp), smooth_part(mp)  # type: ignore[arg-type]
    if st is None or sm is None:
        return None
    return _SmoothCurve(st, sm, c, d)


def angle_roots(
    f: Callable[[np.ndarray], np.ndarray], extra: list[float] | None = None, lip: float | None = None,
    touch: float = 0.0, f1: Callable[[float], float] | None = None,
) -> list[float]:
    """Roots of a continuous 2π-periodic function of the angle, each to ROOT_XTOL.

    With ``lip`` (a bound on |f'| between the ``extra`` angles, where f may jump):
    ``lipschitz_roots``, which proves every stretch it drops free of roots. Without
    it: brackets are sign changes on a set of angles (``START_ANGLES`` evenly spaced
    plus ``extra``), doubled until two successive refinements give the same number of
    brackets (or MAX_ANGLES is reached); each bracket is then solved by brentq. Exact
    zeros at sample angles are roots too. ``touch``, ``f1``: see ``lipschitz_roots``."""
    if lip is not None and math.isfinite(lip) and lip > 0.0:
        got = lipschitz_roots(f, extra or [], lip, touch=touch, f1=f1)
        if got is not None:
            return got
    extra = extra or []
    n = START_ANGLES
    prev = -1
    while True:
        th = np.unique(np.concatenate([np.linspace(0.0, 2 * math.pi, n + 1), np.asarray(extra, dtype=float)]))
        v = np.asarray(f(th), dtype=float)
        s = np.sign(v)
        idx = np.nonzero(s[:-1] * s[1:] < 0)[0]
        zeros = np.nonzero(s == 0)[0]
        count = len(idx) + len(zeros)
        if count == prev or n >= MAX_ANGLES:
            break
        prev = count
        n *= 2
    out = [float(th[i]) for i in zeros if th[i] < 2 * math.pi]
    for i in idx:
        a, b = float(th[i]), float(th[i + 1])
        g = lambda x: float(np.asarray(f(np.array([x])))[0])  # noqa: E731
        ga, gb = g(a), g(b)
        if ga * gb > 0:
            # f jumps at this end: at a corner angle (a flat face's normal) two support
            # points tie and the batch and the single evaluation may pick different
            # ones, so the bracket was the jump, not a root. The end is returned as a
            # candidate like any bracket across a jump (the callers keep only points
            # where their function is really zero, or the nearest of true curve points)
            out.append(a if abs(v[i]) <= abs(v[i + 1]) else b)
            continue
        out.append(a if ga == 0 else b if gb == 0 else brentq(g, a, b, xtol=ROOT_XTOL))
    return out


#: ``lipschitz_roots``: an interval narrower than this (radians) that still cannot be
#: proven root-free is a touching point (|f| <= lip * width / 2 there)
TOUCH_WIDTH = 1e-10
#: ``lipschitz_roots``: an interval end where f is exactly 0 is moved this far inwards
#: before the interval is judged (half the 1e-9 within which two roots are one)
NUDGE = 5e-10
_START = np.linspace(0.0, 2 * math.pi, START_ANGLES + 1)
#: ``lipschitz_roots`` stops refining past this many evaluations (a tangency flatter
#: than its ``touch`` can resolve): the intervals it could not clear by then are
#: grouped into runs and each run gives its sample of least |f| (``_cluster_touches``)
MAX_EVALS = 20000
#: how often the cap was reached (for measurement; see docs/geometry.md)
ISOLATION_STATS = {"capped": 0}


def _drop_jumps(a: np.ndarray, b: np.ndarray, fa: np.ndarray, fb: np.ndarray,
                ex: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The sample intervals [a, b] (values fa, fb) less the narrow ones that straddle a
    corner in ``ex``, where f may jump: those are never judged across the jump."""
    if not len(ex):
        return a, b, fa, fb
    jump = np.zeros(len(a), dtype=bool)
    for c in ex:
        jump |= (a < c) & (c < b) & (b - a <= 3 * CORNER_EPS)
    return a[~jump], b[~jump], fa[~jump], fb[~jump]


def lipschitz_roots(
    f: Callable[[np.ndarray], np.ndarray],
    extra: list[float],
    lip: float,
    touch: float = 0.0,
    loose: Callable[[np.ndarray], np.ndarray] | None = None,
    f1: Callable[[float], float] | None = None,
) -> list[float] | None:
    """Roots of a 2π-periodic f with |f'| <= lip between the ``extra`` angles (where f
    may jump), isolated with a proof. Starting from ``START_ANGLES`` even angles plus ``extra``, an interval
    [a, b] whose values have the same sign is dropped only when
    ``|f(a)| + |f(b)| > lip * (b - a)`` (then f cannot reach 0 inside it); otherwise it
    is halved, so a pair of roots between two samples (a narrow crossing, where the
    sign comes back) is always found. An interval with a sign change holds a root,
    solved by brentq (it could hold three; a Lipschitz bound alone cannot exclude
    that, see docs/geometry.md). An interval that shrinks below
    ``TOUCH_WIDTH`` without a proof is a touching point (f within lip * width of 0),
    reported at its end of smaller |f|.

    ``touch`` (in f's unit, default 0: off): an interval not yet proven root-free
    whose two end values are both within ``touch`` of 0 is a touching point too,
    reported at its end of smaller |f| (a tangency, where f reaches 0 without changing
    sign, is then settled in about ``lip / sqrt(curvature * touch)`` evaluations
    instead of running into the cap). What is promised then: every root is found, or
    lies in a reported interval whose ends are within ``touch`` of a root value.

    ``loose`` (optional): for the midpoints of the intervals between samples, True
    where the Lipschitz bound does not hold (f is only known to be piecewise
    continuous there); those intervals are judged by sign changes on a grid of
    ``2π / MAX_ANGLES`` only (the refined-angle way), the rest with the proof.

    Past ``MAX_EVALS`` evaluations the intervals not yet cleared are grouped into runs
    of adjacent ones and each run gives its sample of least |f| (a touching point
    found at the resolution reached; ``ISOLATION_STATS`` counts it). The result type
    keeps ``None`` for its callers, but a list is always returned.

    ``f1`` (optional): f at one angle in plain floats, the same function (used by the
    brentq solves, one angle at a time)."""
    # f may jump at a corner: sample just either side of it, and never judge the
    # interval across the jump (``OffsetCurve.roots`` solves the straight piece there)
    # (the period runs from s to s + 2π, with s off every corner)
    tp = 2 * math.pi
    ex = np.asarray(extra, dtype=float) % tp
    s0 = 0.0
    if len(ex) and bool(np.any(np.minimum(ex, tp - ex) < 1e-6)):
        s0 = math.pi / START_ANGLES
    ex = s0 + (ex - s0) % tp
    th = _START + s0 if not len(ex) else np.unique(np.concatenate([_START + s0, ex - CORNER_EPS, ex + CORNER_EPS]))
    v = np.asarray(f(th), dtype=float)
    evals = len(th)
    out = th[np.flatnonzero(v[:-1] == 0.0)].tolist()
    a, b, fa, fb = th[:-1], th[1:], v[:-1], v[1:]
    a, b, fa, fb = _drop_jumps(a, b, fa, fb, ex)
    lo = None if loose is None else np.asarray(loose(0.5 * (a + b)), dtype=bool)
    return _isolate(f, a, b, fa, fb, lip, evals, out, touch, lo, tp / MAX_ANGLES, f1)


def _isolate(
    f: Callable[[np.ndarray], np.ndarray],
    a: np.ndarray,
    b: np.ndarray,
    fa: np.ndarray,
    fb: np.ndarray,
    lip: float,
    evals: int,
    out: list[float],
    touch: float = 0.0,
    loose: np.ndarray | None = None,
    loose_width: float = 0.0,
    f_one: Callable[[float], float] | None = None,
) -> list[float] | None:
    """The roots of f inside the intervals [a[i], b[i]] (values fa, fb at their ends),
    |f'| <= lip: sign changes by brentq, same-sign intervals dropped by the Lipschitz
    bound or halved (see ``lipschitz_roots``). ``loose[i]`` True: interval i has no
    bound, it is halved down to ``loose_width`` and judged by sign changes only.
    ``f_one``: f at one angle in plain floats (else f on a one-element array)."""
    from .. import budget as _budget

    f1: Callable[[float], float] = f_one if f_one is not None else (lambda x: float(np.asarray(f(np.array([x])))[0]))

    lo = np.zeros(len(a), dtype=bool) if loose is None else np.asarray(loose, dtype=bool)
    held: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    while len(a):
        _budget.check()
        # one end exactly 0 (a root on a sample, already reported): the bound can never
        # clear the stretch next to that end, so that end is moved ``NUDGE`` inwards (a
        # root closer than that to a reported one is the same root) and the interval
        # is judged like any other, so a second root inside it is found
        one0 = ((fa == 0.0) != (fb == 0.0)) & (b - a > 4 * NUDGE)
        if one0.any():
            i0 = np.flatnonzero(one0 & (fa == 0.0))
            i1 = np.flatnonzero(one0 & (fb == 0.0))
            a, b, fa, fb = a.copy(), b.copy(), fa.copy(), fb.copy()
            a[i0] += NUDGE
            b[i1] -= NUDGE
            v = np.asarray(f(np.concatenate([a[i0], b[i1]])), dtype=float)
            evals += len(v)
            fa[i0], fb[i1] = v[: len(i0)], v[len(i0):]
        w = b - a
        prod = fa * fb
        for i in np.flatnonzero(prod < 0.0):  # a sign change: a root inside
            try:
                out.append(brentq(f1, float(a[i]), float(b[i]), xtol=ROOT_XTOL))
            except ValueError:
                # f evaluated alone differs in its last bits from f evaluated in a batch,
                # and here that flips the sign at an end: that end is the root
                out.append(float(a[i]) if abs(fa[i]) <= abs(fb[i]) else float(b[i]))
        # same sign: dropped only when f cannot reach 0 in between
        split = (prod > 0.0) & np.where(lo, w > loose_width, np.abs(fa) + np.abs(fb) <= lip * w)
        if not split.any():
            break
        if evals > MAX_EVALS:
            # the cap (a tangency flatter than ``touch`` resolves, or f near 0 along a
            # stretch): what is left are clusters of adjacent intervals the bound
            # could not separate from 0; each gives its sample of least |f|
            ISOLATION_STATS["capped"] += 1
            held.append((a[split], b[split], fa[split], fb[split]))
            break
        # a touching point: |f| <= lip * w / 2 somewhere in an interval this narrow, or
        # both ends within ``touch`` of 0; such intervals are grouped into runs below
        near = split & ~lo & (w < TOUCH_WIDTH)
        if touch > 0.0:
            near |= split & ~lo & (np.maximum(np.abs(fa), np.abs(fb)) <= touch)
        if near.any():
            held.append((a[near], b[near], fa[near], fb[near]))
            split &= ~near
        a, b, fa, fb, lo = a[split], b[split], fa[split], fb[split], lo[split]
        m = 0.5 * (a + b)
        fm = np.asarray(f(m), dtype=float)
        evals += len(m)
        if (fm == 0.0).any():
            out.extend(m[fm == 0.0].tolist())
        a, b, fa, fb = np.concatenate([a, m]), np.concatenate([m, b]), np.concatenate([fa, fm]), np.concatenate([fm, fb])
        lo = np.concatenate([lo, lo])
    if held:
        out.extend(_cluster_touches(*(np.concatenate(x) for x in zip(*held, strict=True))))
    if len(out) < 2:
        return out
    out.sort()
    # a touching point or a root on a split angle may be reported by both neighbours
    merged = [out[0]]
    for t in out[1:]:
        if t - merged[-1] > 1e-9:
            merged.append(t)
    return merged


def _cluster_touches(a: np.ndarray, b: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> list[float]:
    """For runs of adjacent intervals (one's end is the next one's start, or within
    ``TOUCH_WIDTH`` of it), the end of least |f| in each run."""
    order = np.argsort(a, kind="stable")
    a, b, fa, fb = a[order], b[order], fa[order], fb[order]
    out: list[float] = []
    best_t, best_v = float(a[0]), abs(float(fa[0]))
    end = float(b[0])
    for i in range(len(a)):
        if i and a[i] > end + TOUCH_WIDTH:
            out.append(best_t)
            best_t, best_v = float(a[i]), abs(float(fa[i]))
        for t, v in ((float(a[i]), abs(float(fa[i]))), (float(b[i]), abs(float(fb[i])))):
            if v < best_v:
                best_t, best_v = t, v
        end = max(end, float(b[i]))
    out.append(best_t)
    return out


def segment_roots(
    h: Callable[[np.ndarray], np.ndarray],
    lip: float,
    touch: float = 0.0,
    extra: list[float] | None = None,
    loose: Callable[[np.ndarray], np.ndarray] | None = None,
) -> list[float] | None:
    """Roots of h on [0, 1] with |h'| <= lip, isolated as in ``lipschitz_roots`` (from
    9 even samples; ``extra`` parameters where h may jump are sampled just either side
    and not judged across; ``touch`` and ``loose`` as there, the loose grid being
    1/512). The evaluation cap as there."""
    t = np.linspace(0.0, 1.0, 9)
    ex = np.asarray([] if extra is None else extra, dtype=float)
    ex = ex[(ex > 2 * CORNER_EPS) & (ex < 1.0 - 2 * CORNER_EPS)]
    if len(ex):
        t = np.unique(np.concatenate([t, ex - CORNER_EPS, ex + CORNER_EPS]))
    v = np.asarray(h(t), dtype=float)
    out = t[np.flatnonzero(v == 0.0)].tolist()
    a, b, fa, fb = t[:-1], t[1:], v[:-1], v[1:]
    a, b, fa, fb = _drop_jumps(a, b, fa, fb, ex)
    lo = None if loose is None else np.asarray(loose(0.5 * (a + b)), dtype=bool)
    got = _isolate(h, a, b, fa, fb, max(lip, 1e-300), len(t), out, touch, lo, 1.0 / 512)
    if got is None:
        return None
    return sorted(set(got))


def _max_curvature_radius(p: object) -> float | None:
    """The largest radius of curvature of a convex part's boundary (0 for flat sides)."""
    if isinstance(p, Disc):
        return float(p.r)
    if isinstance(p, Capsule):
        return float(p.r)
    if isinstance(p, ConvexPolygon):
        return 0.0
    if isinstance(p, Sum):
        rs = [_max_curvature_radius(q) for q in p.parts]
        return None if any(r is None for r in rs) else float(sum(rs))  # type: ignore[arg-type]
    a, b = getattr(p, "a", None), getattr(p, "b", None)
    if a is not None and b is not None and min(a, b) > 0:
        return float(max(a, b) ** 2 / min(a, b))  # an ellipse: at the ends of its long axis
    return None


# ----------------------------------------------------------------------------- spots


def sd_at(mover: Footprint, pts: np.ndarray, other: Footprint) -> np.ndarray:
    """Signed distance between ``mover`` re-centred at each point and ``other``."""
    pts = np.atleast_2d(np.asarray(pts, dtype=float))
    if len(pts) == 0:
        return np.zeros(0)
    if mover.is_disc and other.is_disc:
        o = other.parts[0]
        return np.hypot(*(pts - o.center).T) - mover.parts[0].r - o.r  # type: ignore[attr-defined]
    return footprint_translations_sd(mover, other, pts - mover.center)


def locus_nearest(mover: Footprint, target: Footprint, d: float, p: np.ndarray) -> np.ndarray:
    """Where the mover, at gap ``d`` from ``target``, is nearest to point p (a straight
    approach from p): closed form for two discs, root finding otherwise."""
    return OffsetCurve(mover, target, d).nearest(p)


def _polygonal(fp: Footprint) -> tuple[np.ndarray, float] | None:
    """A footprint of one polygon or capsule part as (vertices, rounding radius)."""
    if len(fp.parts) != 1:
        return None
    p = fp.parts[0]
    if isinstance(p, ConvexPolygon):
        return p.V, 0.0
    if isinstance(p, Capsule):
        return np.array([p.p0, p.p1], dtype=float), p.r
    return None


#: how many ``locus_crossings`` answers are kept (least recently used dropped first)
CROSSINGS_KEPT = 8192


@functools.lru_cache(maxsize=CROSSINGS_KEPT)
def _crossings_kept(a: ExactArgs) -> np.ndarray:
    x = _locus_crossings(*a.args)
    x.setflags(write=False)
    # the table keeps ``a`` as its key: the key's numbers, not the footprints
    a.args = ()
    return x


def locus_crossings(mover: Footprint, target: Footprint, d: float, other: Footprint, k: float) -> np.ndarray:
    """Centres where the mover is at gap ``d`` from ``target`` and at gap ``k`` from
    ``other`` at once (two offset curves crossing: coherency, packing, engagement).

    perf, exact: the answer is a function of the three footprints' exact numbers (their
    parts' defining floats and their centres) and the two gaps alone, so it is kept
    under a key made of exactly those numbers (``footprint_key.ExactArgs``) and given again,
    copied, when the same crossing is asked: the plans of one charge (the pivots), its
    open-field twin and the target sets of edition 11 each build a problem of their own
    and ask many of the same crossings. A footprint whose parts are not plain dataclasses
    is not kept."""
    km, kt, ko = footprint_key(mover), footprint_key(target), footprint_key(other)
    if km is None or kt is None or ko is None:
        return _locus_crossings(mover, target, d, other, k)
    key = (km, kt, float(d), ko, float(k))
    return _crossings_kept(ExactArgs(key, (mover, target, float(d), other, float(k)))).copy()


def _locus_crossings(mover: Footprint, target: Footprint, d: float, other: Footprint, k: float) -> np.ndarray:
    """``locus_crossings`` built: the curves and their roots."""
    cur = OffsetCurve(mover, target, d)
    a = cur.is_circle()
    b = OffsetCurve(mover, other, k).is_circle()
    if a is not None and b is not None:
        return circle_crossings(a[0], a[1], b[0], b[1])
    if mover.is_disc:
        # a round mover: one locus is a circle and the other a rounded polygon
        rm = mover.parts[0].r  # type: ignore[attr-defined]
        pa, pb = _polygonal(target), _polygonal(other)
        if a is not None and pb is not None:
            return circle_offset_crossings(a[0], a[1], pb[0], pb[1] + rm + k)
        if b is not None and pa is not None:
            return circle_offset_crossings(b[0], b[1], pa[0], pa[1] + rm + d)
    # quick reject: the two curves lie in annuli round the shapes' centres
    reach = target.radius + mover.radius + d + other.radius + mover.radius + k
    if float(np.hypot(*(target.center - other.center))) > reach:
        return np.zeros((0, 2))
    # when one locus is a circle, walk the other curve and solve for the distance to
    # the circle's centre (cheap); otherwise solve for the exact gap to ``other``
    if b is not None:
        cb, rb = b
        return cur.roots(lambda P: np.hypot(*(P - cb).T) - rb, g_lip=1.0, g1=_circle_gap1(cb, rb))
    if a is not None:
        ca, ra = a
        return OffsetCurve(mover, other, k).roots(lambda P: np.hypot(*(P - ca).T) - ra, g_lip=1.0, g1=_circle_gap1(ca, ra))
    # a signed distance moves no faster than the point: 1-Lipschitz
    one = sd_at1(mover, other)
    g1 = None if one is None else (lambda x, y: one(x, y) - k)
    return cur.roots(lambda P: sd_at(mover, P, other) - k, g_lip=1.0, g1=g1)


def _circle_gap1(c: np.ndarray, r: float) -> Callable[[float, float], float]:
    """(x, y) -> |(x, y) - c| - r in plain floats."""
    cx, cy = float(c[0]), float(c[1])
    return lambda x, y: math.hypot(x - cx, y - cy) - r


def sd_at1(mover: Footprint, other: Footprint) -> Callable[[float, float], float] | None:
    """``sd_at`` for one point (x, y) in plain floats, or None when a part pair has no
    one-point form (``shapes.point_sd``)."""
    cx, cy = float(mover.center[0]), float(mover.center[1])
    fns = []
    for a in mover.parts:
        for b in other.parts:
            fn = point_sd(a, b)
            if fn is None:
                return None
            fns.append(fn)
    if len(fns) == 1:
        f0 = fns[0]
        return lambda x, y: f0(x - cx, y - cy)
    return lambda x, y: min(fn(x - cx, y - cy) for fn in fns)


def locus_circle_crossings(mover: Footprint, target: Footprint, d: float, c: np.ndarray, rho: float) -> np.ndarray:
    """Centres at gap ``d`` from ``target`` whose distance from point c is exactly rho
    (e.g. a straight move of length rho from c)."""
    cur = OffsetCurve(mover, target, d)
    a = cur.is_circle()
    if a is not None:
        return circle_crossings(a[0], a[1], np.asarray(c, dtype=float), rho)
    pa = _polygonal(target)
    if mover.is_disc and pa is not None:
        return circle_offset_crossings(np.asarray(c, dtype=float), rho, pa[0], pa[1] + mover.parts[0].r + d)  # type: ignore[attr-defined]
    c = np.asarray(c, dtype=float)
    if float(np.hypot(*(target.center - c))) > target.radius + 2 * mover.radius + d + rho:
        return np.zeros((0, 2))
    return cur.roots(lambda P: np.hypot(*(P - c).T) - rho, g_lip=1.0, g1=_circle_gap1(c, rho))


def pair_crossings(mover: Footprint, A: list[Footprint], gaps_a: list[float], B: list[Footprint], gaps_b: list[float]) -> np.ndarray:
    """Centres at gap ga from some footprint of A and at gap gb from some (other)
    footprint of B at once, for every ga in gaps_a and gb in gaps_b: closed-form circle
    crossings when everything is round, the root finder otherwise (pairs whose loci
    cannot meet are skipped by their enclosing radii)."""
    if not A or not B:
        return np.zeros((0, 2))
    out = []
    if mover.is_disc and all(a.is_disc for a in A) and all(b.is_disc for b in B):
        rm = mover.parts[0].r  # type: ignore[attr-defined]
        CA = np.array([a.parts[0].center for a in A]).reshape(-1, 2)
        CB = np.array([b.parts[0].center for b in B]).reshape(-1, 2)
        ra = np.array([a.parts[0].r for a in A]) + rm  # type: ignore[attr-defined]
        rb = np.array([b.parts[0].r for b in B]) + rm  # type: ignore[attr-defined]
        for ga in gaps_a:
            for gb in gaps_b:
                out.append(circles_crossings_many(CA, ra + ga, CB, rb + gb))
        return np.vstack(out) if out else np.zeros((0, 2))
    reach_a = max(gaps_a) + 2 * mover.radius
    reach_b = max(gaps_b) + 2 * mover.radius
    for fa in A:
        for fb in B:
            if fa is fb:
                continue
            if float(np.hypot(*(fa.center - fb.center))) > fa.radius + fb.radius + reach_a + reach_b:
                continue
            for ga in gaps_a:
                for gb in gaps_b:
                    out.append(locus_crossings(mover, fa, ga, fb, gb))
    return np.vstack(out) if out else np.zeros((0, 2))


def nearest_spots(mover: Footprint, targets: list[Footprint], gaps: list[float], starts: np.ndarray) -> np.ndarray:
    """For each target, gap and start: the spot at that gap nearest the start."""
    out = [locus_nearest(mover, t, g, s0) for t in targets for g in gaps for s0 in np.atleast_2d(starts)]
    return np.vstack(out) if out else np.zeros((0, 2))


def reach_crossings(mover: Footprint, targets: list[Footprint], gaps: list[float], start: np.ndarray, radius: float) -> np.ndarray:
    """Where each target's loci cross the circle of ``radius`` round ``start`` (the
    farthest a straight move of that length reaches along the locus)."""
    out = [locus_circle_crossings(mover, t, g, start, radius) for t in targets for g in gaps]
    return np.vstack(out) if out else np.zeros((0, 2))


__all__ = [
    "arrangement_points",
    "nearest_spots",
    "pair_crossings",
    "reach_crossings",
    "OffsetCurve",
    "angle_roots",
    "circle_crossings",
    "circles_crossings_many",
    "circles_crossings_stack",
    "corner_circles",
    "tangent_points",
    "grown",
    "locus_circle_crossings",
    "locus_crossings",
    "locus_nearest",
    "nearest_on_circle",
    "sd_at",
]
