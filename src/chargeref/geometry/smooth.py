"""Smooth convex bodies: ellipses, a polygon core and a disc, summed (Minkowski).

The configuration-space obstacle of an oval base against a round one is an ellipse
grown by a disc; against a wall or a rectangle it is an ellipse plus a polygon plus a
disc; two ovals give the sum of two ellipses. Such a body ``K`` is known exactly
through its support function, a sum of closed forms::

    h_K(u) = sum_i [ c_i·u + sqrt(a_i² (R_iᵀu)_x² + b_i² (R_iᵀu)_y²) ] + max_k V_k·u + r

Everything below is written in terms of the *normal angle* ``φ`` (``u = (cos φ, sin φ)``):

* ``point(φ)``: the boundary point whose outward normal is ``u`` (the sum of the parts'
  support points). Where ``φ`` is the normal of a polygon edge the boundary has a flat
  side there; ``side = -1`` / ``+1`` picks its clockwise-first / counter-clockwise-last
  end (the boundary is travelled counter-clockwise as ``φ`` grows).
* ``curvature(φ)``: the radius of curvature, ``sum_i a_i² b_i² / (a_i² cos²ψ_i +
  b_i² sin²ψ_i)^{3/2} + r`` (``ψ_i`` the normal in ellipse i's frame); a polygon adds
  nothing except its flat sides.
* ``length(φ0, span)``: the boundary length between two normals, the integral of the
  curvature radius over the normal angle (``scipy.integrate.quad``, relative error
  1e-12) plus the flat sides whose normals lie strictly inside the span. For one
  ellipse grown by ``r`` that is the elliptic arc length plus ``r·span``.
* ``tangent_normals(P)``: the two normals where a line through an outside point ``P``
  touches ``K``: the roots of ``g(φ) = u·P − h_K(φ)``. ``g`` is positive exactly on an
  interval of normals (``P`` lies beyond those support lines) whose only critical
  point is the normal at ``P``'s nearest point of ``K``, and ``g(φ + π) ≤ −g(φ)``;
  so with ``φ*`` that normal, ``[φ*, φ* + π]`` and ``[φ* − π, φ*]`` each bracket one
  root, found by ``scipy.optimize.brentq`` to 1e-13 rad. ``φ*`` itself comes from a
  2-D GJK iteration on the support points (stopped as soon as ``g > 0``).

No sampling decides a value here: every length and point is a closed form or a
bracketed root; the only polyline is :meth:`SmoothBody.polyline`, for drawing, whose
chords stay within a stated distance of the curve. Nothing here knows a game rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq

from .cspace import _hull
from .shapes import Capsule, Convex, ConvexPolygon, Disc, Ellipse, Sum

_TWO_PI = 2.0 * math.pi
#: a root this close (radians) to a flat side's normal is that normal
FLAT_SNAP = 1e-9
#: root-finder tolerance on the normal angle (radians)
ANGLE_TOL = 1e-13
#: entries kept per body in each of its memos (lengths, tangents) before they are cleared
MEMO_MAX = 20_000


def _u(phi: float) -> np.ndarray:
    return np.array([math.cos(phi), math.sin(phi)])


@dataclass(frozen=True)
class SmoothBody:
    """``sum of ellipses ⊕ convex polygon core ⊕ disc(grow)``.

    ``ellipses``: ``(cx, cy, a, b, theta)`` each (semi-axis ``a`` along ``theta``);
    ``core``: polygon vertices (one point, a segment, or a convex polygon; any order);
    ``grow``: the disc radius (>= 0)."""

    ellipses: tuple[tuple[float, float, float, float, float], ...]
    core: tuple[tuple[float, float], ...] = ((0.0, 0.0),)
    grow: float = 0.0
    _V: np.ndarray = field(init=False, repr=False, compare=False)
    _Vt: list = field(init=False, repr=False, compare=False)
    _E: list = field(init=False, repr=False, compare=False)
    _K: tuple = field(init=False, repr=False, compare=False)
    _flats: list | None = field(init=False, repr=False, compare=False)
    _memo_len: dict = field(init=False, repr=False, compare=False)
    _memo_tan: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        V = _ccw_hull(np.asarray(self.core, dtype=float).reshape(-1, 2))
        object.__setattr__(self, "_V", V)
        object.__setattr__(self, "_Vt", [(float(x), float(y)) for x, y in V])
        object.__setattr__(self, "_E", [(cx, cy, a, b, math.cos(th), math.sin(th)) for cx, cy, a, b, th in self.ellipses])
        object.__setattr__(self, "_K", tuple((math.cos(th), math.sin(th), a * a, b * b, (a * b) ** 2) for _, _, a, b, th in self.ellipses))
        object.__setattr__(self, "_flats", None)
        object.__setattr__(self, "_memo_len", {})
        object.__setattr__(self, "_memo_tan", {})

    # -- support function and boundary -------------------------------------------------
    @property
    def V(self) -> np.ndarray:
        return self._V

    def h(self, phi: float) -> float:
        c, s = math.cos(phi), math.sin(phi)
        out = max(x * c + y * s for x, y in self._Vt) + self.grow
        for cx, cy, a, b, ct, st in self._E:
            lx = c * ct + s * st
            ly = s * ct - c * st
            out += cx * c + cy * s + math.hypot(a * lx, b * ly)
        return out

    def _vertex(self, phi: float, side: int) -> np.ndarray:
        if len(self._Vt) == 1:
            return self._V[0]
        u = _u(phi)
        d = self._V @ u
        m = float(d.max())
        scale = 1.0 + float(np.abs(self._V).max())
        tie = np.flatnonzero(d >= m - 1e-12 * scale)
        if len(tie) == 1 or side == 0:
            return self._V[int(tie[0])]
        t = np.array([-u[1], u[0]]) * side
        return self._V[int(tie[np.argmax(self._V[tie] @ t)])]

    def point(self, phi: float, side: int = 0) -> np.ndarray:
        """The boundary point with outward normal ``φ`` (``side`` picks an end of a flat
        side there: -1 the clockwise end, +1 the counter-clockwise end)."""
        c, s = math.cos(phi), math.sin(phi)
        v = self._vertex(phi, side)
        X, Y = float(v[0]) + self.grow * c, float(v[1]) + self.grow * s
        for cx, cy, a, b, ct, st in self._E:
            lx = c * ct + s * st
            ly = -c * st + s * ct
            n = math.hypot(a * lx, b * ly)
            px, py = a * a * lx / n, b * b * ly / n
            X += cx + px * ct - py * st
            Y += cy + px * st + py * ct
        return np.array([X, Y])

    def curvature(self, phi: float) -> float:
        """Radius of curvature of the boundary at normal ``φ`` (flat sides excluded).

        perf: the ellipses' ``cos θ``, ``sin θ``, ``a²``, ``b²`` and ``(ab)²`` are taken
        once (``_K``); each term is the same arithmetic in the same order as
        ``(ab)² / (a²·lx·lx + b²·ly·ly)^1.5``, so the value is the same to the bit."""
        out = self.grow
        c, s = math.cos(phi), math.sin(phi)
        for ct, st, a2, b2, ab2 in self._K:
            lx = c * ct + s * st
            ly = -c * st + s * ct
            q = a2 * lx * lx + b2 * ly * ly
            out += ab2 / q**1.5
        return out

    @property
    def max_curvature(self) -> float:
        """The largest radius of curvature anywhere (``a²/b`` per ellipse, plus grow)."""
        return self.grow + sum(max(a, b) ** 2 / min(a, b) for _, _, a, b, _ in self.ellipses)

    def flats(self) -> list[tuple[float, float]]:
        """(normal angle in [0, 2π), length) of each flat side (the core's edges).
        perf: computed once per body (the body is immutable); a copy is returned."""
        if self._flats is None:
            object.__setattr__(self, "_flats", self._flats_of())
        return list(self._flats)

    def _flats_of(self) -> list[tuple[float, float]]:
        V = self._V
        if len(V) < 2:
            return []
        out = []
        for k in range(len(V)):
            e = V[(k + 1) % len(V)] - V[k]
            L = float(math.hypot(e[0], e[1]))
            if L > 0:
                out.append((math.atan2(-e[0], e[1]) % _TWO_PI, L))
            if len(V) == 2:
                break
        if len(V) == 2:
            e = V[1] - V[0]
            out.append((math.atan2(e[0], -e[1]) % _TWO_PI, float(math.hypot(e[0], e[1]))))
        return out

    def snap(self, phi: float) -> float:
        """``φ`` moved onto a flat side's normal when within FLAT_SNAP of it."""
        for n, _ in self.flats():
            d = (phi - n + math.pi) % _TWO_PI - math.pi
            if abs(d) <= FLAT_SNAP:
                return phi - d
        return phi

    def center(self) -> np.ndarray:
        """A point inside the body."""
        c = self._V.mean(axis=0).copy()
        for cx, cy, *_ in self.ellipses:
            c += (cx, cy)
        return c

    def bound_radius(self) -> float:
        """Radius of a circle about :meth:`center` that holds the body."""
        Vc = self._V - self._V.mean(axis=0)
        r = float(np.max(np.hypot(Vc[:, 0], Vc[:, 1]))) + self.grow
        return r + sum(max(a, b) for _, _, a, b, _ in self.ellipses)

    # -- lengths -------------------------------------------------------------------------
    def length(self, phi0: float, span: float) -> float:
        """Boundary length from normal ``φ0`` counter-clockwise over ``span`` (>= 0):
        the curved part by quadrature of the curvature radius, plus every flat side
        whose normal lies strictly inside the span."""
        if span <= 0:
            return 0.0
        # perf: the path planner asks the same boundary pieces again (a goal's tangent
        # arcs are met by the closed form round one body and then by the tangent graph):
        # the body is immutable and the value a function of (φ0, span) alone, so it is kept
        memo = self._memo_len
        key = (phi0, span, math.copysign(1.0, phi0))  # (a -0.0 kept apart from 0.0)
        got = memo.get(key)
        if got is None:
            got = self._length(phi0, span)
            if len(memo) >= MEMO_MAX:
                memo.clear()
            memo[key] = got
        return got

    def _length(self, phi0: float, span: float) -> float:
        cuts = [phi0, phi0 + span]
        flat_len = 0.0
        for n, L in self.flats():
            off = (n - phi0) % _TWO_PI
            if FLAT_SNAP < off < span - FLAT_SNAP:
                flat_len += L
                cuts.append(phi0 + off)
        cuts.sort()
        curved = 0.0
        if self.ellipses:
            for x0, x1 in zip(cuts[:-1], cuts[1:], strict=True):
                if x1 > x0:
                    v, _ = quad(self.curvature, x0, x1, epsabs=1e-13, epsrel=1e-12, limit=200)
                    curved += v
        else:
            curved = self.grow * span
        return curved + flat_len

    # -- tangents ------------------------------------------------------------------------
    def gap(self, phi: float, P: np.ndarray) -> float:
        """``u·P − h(φ)``: how far ``P`` lies beyond the support line of normal ``φ``."""
        return float(P[0] * math.cos(phi) + P[1] * math.sin(phi)) - self.h(phi)

    def nearest_normal(self, P: Sequence[float]) -> tuple[float, float] | None:
        """A normal ``φ`` with ``gap(φ, P) > 0`` close to the nearest point's normal, and
        that gap; ``None`` when ``P`` is inside or on the body (no positive gap found
        within about 1e-12 of the unit). Any normal with a positive gap brackets the
        tangent roots: ``{g >= 0}`` is one closed arc of normals (the normals of a
        convex cone) and ``g(φ + π) <= −g(φ)``."""
        P = np.asarray(P, dtype=float)
        if len(self.ellipses) == 1 and len(self._V) == 1:
            # one ellipse grown by a disc: the nearest point of the ellipse itself
            # (Eberly's bracketed solve) has the normal we want
            cx, cy, a, b, th = self.ellipses[0]
            d = P - self._V[0] - (cx, cy)
            ct, st = math.cos(th), math.sin(th)
            x, y = d[0] * ct + d[1] * st, -d[0] * st + d[1] * ct
            X = _ellipse_nearest(a, b, x, y)
            if X is not None:
                nx, ny = X[0] / (a * a), X[1] / (b * b)
                phi = math.atan2(nx * st + ny * ct, nx * ct - ny * st)
                gval = self.gap(phi, P)
                if gval > 0:
                    return phi, gval
        W = [self.center()]
        v = W[0]
        scale = 1.0 + self.bound_radius() + float(np.hypot(*(P - W[0])))
        best: tuple[float, float] | None = None
        for _ in range(200):
            d = P - v
            nd = float(math.hypot(d[0], d[1]))
            if nd <= 1e-12 * scale:
                break
            phi = math.atan2(d[1], d[0])
            gval = self.gap(phi, P)
            if gval > 0:
                best = (phi, gval)
                break
            s = self.point(phi)
            if float((s - v) @ d) / nd <= 1e-13 * scale:
                break  # v is the nearest point and P is not outside
            W = _gjk_reduce(W + [s], P)
            v = _closest_in(W, P)
        return best

    def tangent_normals(self, P: Sequence[float]) -> tuple[float, float] | None:
        """(φ_ccw, φ_cw): the normals where the two tangent lines from ``P`` touch.
        Leaving ``P`` along the first, a path goes counter-clockwise round the body
        (and arriving at ``P`` along the second, it came counter-clockwise). ``None``
        when ``P`` is not outside the body."""
        P = np.asarray(P, dtype=float)
        # perf: kept per point (the same goal is met by the closed form and the graph)
        key = P.tobytes()  # (the exact bits: a -0.0 kept apart from 0.0)
        memo = self._memo_tan
        if key in memo:
            return memo[key]
        got = self._tangent_normals(P)
        if len(memo) >= MEMO_MAX:
            memo.clear()
        memo[key] = got
        return got

    def _tangent_normals(self, P: np.ndarray) -> tuple[float, float] | None:
        nn = self.nearest_normal(P)
        if nn is None:
            return None
        phi, _ = nn

        def f(t: float) -> float:
            return self.gap(t, P)

        r1 = brentq(f, phi, phi + math.pi, xtol=ANGLE_TOL, rtol=8.9e-16, maxiter=400)
        r2 = brentq(f, phi - math.pi, phi, xtol=ANGLE_TOL, rtol=8.9e-16, maxiter=400)
        return self.snap(r1), self.snap(r2)

    def distance(self, P: Sequence[float]) -> float | None:
        """Distance from an outside point ``P`` to the body (``None`` if not outside):
        the largest gap, found by golden section between the two tangent normals
        (the gap is unimodal there) to 1e-12 rad; the gap is flat at its maximum, so
        the value is exact to far below 1e-12 of the unit."""
        P = np.asarray(P, dtype=float)
        tn = self.tangent_normals(P)
        if tn is None:
            return None
        a, b = tn[1], tn[0]
        if b < a:
            b += _TWO_PI
        gr = (math.sqrt(5) - 1) / 2
        c, d = b - gr * (b - a), a + gr * (b - a)
        fc, fd = self.gap(c, P), self.gap(d, P)
        while b - a > 1e-12:
            if fc >= fd:
                b, d, fd = d, c, fc
                c = b - gr * (b - a)
                fc = self.gap(c, P)
            else:
                a, c, fc = c, d, fd
                d = a + gr * (b - a)
                fd = self.gap(d, P)
        return max(fc, fd)

    # -- drawing -----------------------------------------------------------------------
    def polyline(self, phi0: float, span: float, ccw: bool, sagitta: float) -> list[tuple[float, float]]:
        """Inner points of the boundary from ``φ0`` (counter-clockwise over ``span``,
        listed in travel order: reversed when ``ccw`` is False) such that no chord
        strays more than ``sagitta`` from the curve. Between normals ``Δ`` apart the
        curve lies in the triangle of its end tangents, whose height over the chord is
        at most ``chord·tan(Δ/2)/2 <= ρ_max·Δ·tan(Δ/2)/2``; ``Δ`` is chosen so that
        this is at most ``sagitta``."""
        if span <= 0:
            return []
        rho = max(self.max_curvature, 1e-300)
        lo, hi = 0.0, math.pi / 2
        for _ in range(60):
            m = 0.5 * (lo + hi)
            if rho * m * math.tan(m / 2) / 2 <= sagitta:
                lo = m
            else:
                hi = m
        step = max(lo, 1e-9)
        k = math.ceil(span / step)
        pts = []
        for j in range(1, k):
            t = phi0 + span * j / k
            pts.append(tuple(float(v) for v in self.point(t)))
        if not ccw:
            pts.reverse()
        # flat sides inside the span are straight: their two ends are both corners
        return pts

    # -- contract form -----------------------------------------------------------------
    def as_dict(self) -> dict:
        return {
            "ellipses": [list(e) for e in self.ellipses],
            "core": [list(v) for v in self.core],
            "grow": self.grow,
        }

    @staticmethod
    def from_dict(d: dict) -> SmoothBody:
        ell = tuple(tuple(float(x) for x in e) for e in d.get("ellipses", []))
        for e in ell:
            if len(e) != 5 or not (e[2] > 0 and e[3] > 0):
                raise ValueError("an ellipse is [cx, cy, a, b, theta] with a, b > 0")
        core = tuple(tuple(float(x) for x in v[:2]) for v in d.get("core", [[0.0, 0.0]]))
        if not core:
            raise ValueError("a body's core needs at least one point")
        g = float(d.get("grow", 0.0))
        if not (g >= 0 and math.isfinite(g)):
            raise ValueError("a body's grow must be finite and >= 0")
        return SmoothBody(ell, core, g)  # type: ignore[arg-type]


def same_round_parts(K1: SmoothBody, K2: SmoothBody) -> bool:
    """Do the two bodies have the same ellipses and disc, differing only in their
    polygon cores (one oval against the parts of one wall or of one hull base)?"""
    return abs(K1.grow - K2.grow) <= 1e-15 and sorted(K1.ellipses) == sorted(K2.ellipses)


def core_pieces(K1: SmoothBody, K2: SmoothBody) -> list[tuple[float, float, np.ndarray]]:
    """For two bodies with the same ellipses and disc: the normal intervals ``(a, b)``
    between the two cores' edge normals (covering [0, 2π)), each with ``v1 − v2``, the
    difference of the supporting corners, which is fixed there. The boundaries differ
    by exactly that vector at every normal of the interval (``p_i = v_i + s(φ)``, ``s``
    the shared smooth part's point)."""
    cuts = sorted({n % _TWO_PI for n, _ in K1.flats()} | {n % _TWO_PI for n, _ in K2.flats()} | {0.0})
    cuts.append(_TWO_PI)
    out = []
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        if b - a <= 1e-15:
            continue
        m = 0.5 * (a + b)
        out.append((a, b, K1._vertex(m, 0) - K2._vertex(m, 0)))
    return out


def shared_normals(K1: SmoothBody, K2: SmoothBody) -> list[tuple[float, float]]:
    """Normal intervals (in [0, 2π]) on which the boundaries of two bodies coincide
    (same ellipses and disc, same supporting corner); empty for other pairs."""
    if not same_round_parts(K1, K2):
        return []
    return [(a, b) for a, b, d in core_pieces(K1, K2) if float(math.hypot(d[0], d[1])) <= 1e-12]


# ----------------------------------------------------------------------------------
# building bodies from footprint parts
# ----------------------------------------------------------------------------------


def _parts_of(p: Convex, sign: float) -> tuple[list, np.ndarray, float] | None:
    """(ellipses, polygon core vertices, grow) of ``sign·p`` (sign ±1)."""
    if isinstance(p, Disc):
        return [], np.asarray([p.center * sign]), float(p.r)
    if isinstance(p, Ellipse):
        c = p.center * sign
        return [(float(c[0]), float(c[1]), float(p.a), float(p.b), float(p.theta))], np.zeros((1, 2)), 0.0
    if isinstance(p, ConvexPolygon):
        return [], p.V * sign, 0.0
    if isinstance(p, Capsule):
        return [], np.asarray([p.p0, p.p1], dtype=float) * sign, float(p.r)
    if isinstance(p, Sum):
        ell: list = []
        core = np.zeros((1, 2))
        grow = 0.0
        for q in p.parts:
            d = _parts_of(q, sign)
            if d is None:
                return None
            ell += d[0]
            core = _ccw_hull((core[:, None, :] + d[1][None, :, :]).reshape(-1, 2))
            grow += d[2]
        return ell, core, grow
    return None


def c_obstacle_body(obstacle: Convex, base_part: Convex) -> SmoothBody | None:
    """``obstacle ⊕ (−base_part)`` (the centre positions where the part meets the
    obstacle, with the part given relative to the base centre) as a :class:`SmoothBody`,
    or ``None`` for a part of another kind."""
    a = _parts_of(obstacle, 1.0)
    b = _parts_of(base_part, -1.0)
    if a is None or b is None:
        return None
    core = _ccw_hull((a[1][:, None, :] + b[1][None, :, :]).reshape(-1, 2))
    return SmoothBody(
        tuple(a[0] + b[0]), tuple((float(x), float(y)) for x, y in core), a[2] + b[2]
    )


# ----------------------------------------------------------------------------------
# small helpers: hulls, GJK steps, polishing
# ----------------------------------------------------------------------------------


def _ellipse_nearest(a: float, b: float, x: float, y: float) -> tuple[float, float] | None:
    """The point of the ellipse x²/a² + y²/b² = 1 nearest (x, y) when that point is
    outside it (None inside or on it): the root of Eberly's monotone function,
    bracketed and bisected to the last bit."""
    if (x / a) ** 2 + (y / b) ** 2 <= 1.0:
        return None
    sx, sy = math.copysign(1.0, x), math.copysign(1.0, y)
    x, y = abs(x), abs(y)
    swap = b > a
    if swap:
        a, b, x, y = b, a, y, x
    if y > b * 1e-12 and x > 0:
        z0, z1 = x / a, y / b
        r0 = (a / b) ** 2
        n0 = r0 * z0
        s0, s1 = z1 - 1.0, math.hypot(n0, z1) - 1.0
        t = 0.0
        for _ in range(2000):
            t = 0.5 * (s0 + s1)
            if t == s0 or t == s1:
                break
            g = (n0 / (t + r0)) ** 2 + (z1 / (t + 1.0)) ** 2 - 1.0
            if g > 0:
                s0 = t
            elif g < 0:
                s1 = t
            else:
                break
        px, py = r0 * x / (t + r0), y / (t + 1.0)
    elif x <= 0:
        px, py = 0.0, b
    else:
        # on the major axis, beyond the end (outside): the end itself is nearest when
        # x >= (a² − b²)/a, else the point where the normal passes through (x, 0)
        num, den = a * x, a * a - b * b
        if num < den:
            xd = num / den
            px, py = a * xd, b * math.sqrt(max(0.0, 1.0 - xd * xd))
        else:
            px, py = a, 0.0
    if swap:
        px, py = py, px
    return sx * px, sy * py


def _ccw_hull(P: np.ndarray) -> np.ndarray:
    """cspace's convex hull (counter-clockwise, no repeated or collinear vertices) of the
    points rounded to 15 decimals, so sums of nearly equal corners merge."""
    return _hull(np.round(np.asarray(P, dtype=float), 15))


def _seg_closest(a: np.ndarray, b: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, float]:
    d = b - a
    dd = float(d @ d)
    t = 0.0 if dd == 0 else min(1.0, max(0.0, float((P - a) @ d) / dd))
    q = a + t * d
    return q, float(math.hypot(*(P - q)))


def _closest_in(W: list[np.ndarray], P: np.ndarray) -> np.ndarray:
    if len(W) == 1:
        return W[0]
    if len(W) == 2:
        return _seg_closest(W[0], W[1], P)[0]
    return P  # a triangle containing P (see _gjk_reduce)


def _gjk_reduce(W: list[np.ndarray], P: np.ndarray) -> list[np.ndarray]:
    """The smallest subset of the simplex ``W`` (<= 3 points) whose hull holds the
    point of ``conv(W)`` nearest ``P``."""
    if len(W) <= 1:
        return W
    if len(W) == 2:
        q, _ = _seg_closest(W[0], W[1], P)
        if np.allclose(q, W[0], rtol=0, atol=0):
            return [W[0]]
        if np.allclose(q, W[1], rtol=0, atol=0):
            return [W[1]]
        return W
    a, b, c = W[-3], W[-2], W[-1]

    def cr(o: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
        return float((x[0] - o[0]) * (y[1] - o[1]) - (x[1] - o[1]) * (y[0] - o[0]))

    s = cr(a, b, c)
    if s != 0:
        inside = all(cr(x, y, P) * s >= 0 for x, y in ((a, b), (b, c), (c, a)))
        if inside:
            return [a, b, c]
    best = None
    for pair in ((a, b), (b, c), (a, c)):
        q, d = _seg_closest(pair[0], pair[1], P)
        if best is None or d < best[0]:
            best = (d, list(pair))
    assert best is not None
    return _gjk_reduce(best[1], P)


__all__ = ["SmoothBody", "c_obstacle_body", "core_pieces", "same_round_parts", "shared_normals", "FLAT_SNAP", "ANGLE_TOL"]
