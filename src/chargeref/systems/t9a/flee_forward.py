"""Where the wheels that get a charger past its obstacles run out, as the forward move
before the wheel grows (charging a fleeing unit; no rules here beyond the move's shape).

The charger moves forward ``d1``, wheels ``theta`` about its inner front corner ``Q``
(which then stands at ``Q0 + d1 f``), and moves straight on. For one ``d1`` the wheels
that are clear form pieces of ``theta`` whose ends are constructed by
``flee_wheel.critical_wheels``. As ``d1`` changes those ends move: each is a point of a
*boundary curve* in the plane of ``(theta, d1)`` along which a part of the moving
charger just touches an obstacle (kept ``g`` away; ``rho = r + g`` for a round end of
radius ``r``). Every such curve is ``A(theta) + d1 B(theta) = 0`` with ``A`` and ``B``
of the form ``a0 + a1 cos(theta) + a2 sin(theta)``:

* the strip of the move after the wheel: a point ``p`` of an obstacle level with a
  side of the charger, ``(p - Q).l(theta) = y_side +/- rho``;
* a side of the charger during the wheel: a point of an obstacle on the line of the
  front or the rear edge (``(p - Q).f(theta) = rho`` or ``-depth - rho``; the long
  sides are the lines above), or a corner of the charger on the line of an edge of an
  obstacle (``(E(theta) - a).n = g``).

A piece of clear wheels shrinks to nothing where two such curves meet (its two ends
come together) or where one curve turns back in ``d1`` (``A'B - AB' = 0``). Either
is a real root of one equation in ``theta`` (``A_i B_j - A_j B_i = 0``, a
trigonometric polynomial of degree two, or ``A'B - AB'``); its ``d1`` follows from
the curve. Those ``d1`` are the ends of a stretch of forward moves whose clear wheels
are bounded on both sides by such curves, which the levels and circle crossings of
``moves.forward_events`` (fixed in ``theta``) do not give. Only meeting points where
each curve is a real contact (the point beside the charger's body, within the edge's
length, the corner's foot on the obstacle's edge) are kept.

The roots are those of ``z^2 g(z)`` on the unit circle (companion matrices, all pairs
at once), polished by Newton's method on ``g`` itself to ``ROOT_XTOL`` radian, so each
``d1`` is exact to far below 1e-9 inch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ... import budget
from .block import Block
from .geom import Shape

#: Newton's method on a meeting point's equation stops when its step is below this
#: (radian)
ROOT_XTOL = 1e-14
NEWTON_STEPS = 30
#: a root of the companion polynomial this near the unit circle is kept (a double
#: root, a tangency, comes out only to about the square root of float precision)
CIRCLE_TOL = 1e-3
#: a contact whose point lies this far (inch) outside the part of the charger or
#: obstacle it is on still counts (a spurious candidate only costs a try)
SPAN_TOL = 1e-7
#: a meeting point's ``d1`` is ``-A / B``: where ``|B|`` is below this (for a strip
#: contact ``B = sin(theta)``: a wheel under about 6e-5 degree, no wheel to speak of)
#: rounding of ``A`` would move it by more than 1e-9 inch, and the point is dropped
B_MIN = 1e-6


class _Curves:
    """The boundary curves of one wheel direction, as arrays: ``A`` and ``B``
    coefficients ``(k0, k_cos, k_sin)`` and what decides whether a point of the curve
    is a real contact."""

    def __init__(self) -> None:
        self.a: list[tuple[float, float, float]] = []
        self.b: list[tuple[float, float, float]] = []
        # kind 0: strip side (point p at u, v with radius rho); 1: front or rear edge;
        # 2: corner (x, y) on an obstacle edge (start a, direction e)
        self.kind: list[int] = []
        self.par: list[tuple[float, ...]] = []

    def add(self, a: tuple[float, float, float], b: tuple[float, float, float], kind: int,
            par: tuple[float, ...]) -> None:
        self.a.append(a)
        self.b.append(b)
        self.kind.append(kind)
        self.par.append(par)


def _curves(ch: Block, sign: int, shapes: Sequence[tuple[Shape, float]]) -> _Curves:
    w, dep = ch.width, ch.depth
    Q0 = ch.wheel_pivot(sign)
    f, lv = ch.f, ch.l
    qy = sign * w / 2
    yl, yr = w / 2 - qy, -w / 2 - qy  # the charger's sides, across from Q
    cv = _Curves()
    for sh, g in shapes:
        if sh.kind == "poly":
            assert sh.V is not None
            pts, rho = list(sh.V), g
        else:
            assert sh.a is not None and sh.b is not None
            pts, rho = ([sh.a] if sh.is_disc else [sh.a, sh.b]), sh.r + g
        for p in pts:
            u, v = float((p - Q0) @ f), float((p - Q0) @ lv)
            # (p - Q).l(theta) = -(u - d1) sin + v cos: level with a side, widened
            for side in (yl + rho, yr - rho):
                cv.add((-side, v, -u), (0.0, 0.0, 1.0), 0, (u, v, rho))
            # (p - Q).f(theta) = (u - d1) cos + v sin: on the front or the rear edge's line
            for level in (rho, -dep - rho):
                cv.add((-level, u, v), (0.0, -1.0, 0.0), 1, (u, v, rho))
        if sh.kind == "poly":
            V = sh.V
            assert V is not None
            for i in range(len(V)):
                va, vb = V[i], V[(i + 1) % len(V)]
                e = vb - va
                L = float(np.hypot(*e))
                if L < 1e-12:
                    continue
                n = np.array([e[1], -e[0]]) / L  # counter-clockwise: outward is to the right
                fn, ln = float(f @ n), float(lv @ n)
                base = float((Q0 - va) @ n) - g
                for x, y in ((0.0, yl), (0.0, yr), (-dep, yl), (-dep, yr)):
                    # (Q0 + d1 f + x f(theta) + y l(theta) - a).n = g
                    cv.add((base, x * fn + y * ln, x * ln - y * fn), (fn, 0.0, 0.0), 2,
                           (x, y, float(va[0]), float(va[1]), float(e[0]), float(e[1]), L * L))
    return cv


def _times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Products of ``k0 + k1 cos + k2 sin`` pairs as ``(c0, c1, s1, c2, s2)`` of
    ``c0 + c1 cos + s1 sin + c2 cos 2t + s2 sin 2t``."""
    a0, a1, a2 = a[:, 0], a[:, 1], a[:, 2]
    b0, b1, b2 = b[:, 0], b[:, 1], b[:, 2]
    return np.stack([a0 * b0 + (a1 * b1 + a2 * b2) / 2, a0 * b1 + a1 * b0, a0 * b2 + a2 * b0,
                     (a1 * b1 - a2 * b2) / 2, (a1 * b2 + a2 * b1) / 2], axis=1)


def _deriv(a: np.ndarray) -> np.ndarray:
    """The derivative of ``k0 + k1 cos + k2 sin``."""
    return np.stack([np.zeros(len(a)), a[:, 2], -a[:, 1]], axis=1)


def _value(g: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``g`` (rows ``(c0, c1, s1, c2, s2)``) and its derivative at ``t``."""
    c, s, c2, s2 = np.cos(t), np.sin(t), np.cos(2 * t), np.sin(2 * t)
    val = g[:, 0] + g[:, 1] * c + g[:, 2] * s + g[:, 3] * c2 + g[:, 4] * s2
    der = -g[:, 1] * s + g[:, 2] * c - 2 * g[:, 3] * s2 + 2 * g[:, 4] * c2
    return val, der


def trig2_roots(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every real root (radians, in (-pi, pi]) of each ``c0 + c1 cos t + s1 sin t +
    c2 cos 2t + s2 sin 2t`` (rows of ``g``): ``(row index, root)`` arrays. A row that
    vanishes identically has no isolated roots: none."""
    big = np.max(np.abs(g), axis=1)
    ok = big > 1e-200
    idx = np.nonzero(ok)[0]
    gn = g[idx] / big[idx, None]
    # z^2 g(z) with z = e^{it}: coefficients of z^0 .. z^4
    C2 = (gn[:, 3] - 1j * gn[:, 4]) / 2
    C1 = (gn[:, 1] - 1j * gn[:, 2]) / 2
    C0 = gn[:, 0].astype(complex)
    coef = np.stack([np.conj(C2), np.conj(C1), C0, C1, C2], axis=1)  # z^0 .. z^4
    rows: list[np.ndarray] = []
    roots: list[np.ndarray] = []
    quartic = np.abs(coef[:, 4]) > 1e-14
    # without the degree-two terms, z g(z) is a quadratic (z^-1 .. z^1 times z)
    quadratic = ~quartic & (np.abs(coef[:, 3]) > 1e-14)
    for sel, P_all in ((quartic, coef), (quadratic, coef[:, 1:4])):
        k = np.nonzero(sel)[0]
        if not len(k):
            continue
        P = P_all[k]  # coefficients of z^0 .. z^n
        n = P.shape[1] - 1
        # the companion matrix of the monic polynomial
        M = np.zeros((len(k), n, n), dtype=complex)
        M[:, 0, :] = -P[:, n - 1::-1] / P[:, n:n + 1]
        M[:, np.arange(1, n), np.arange(0, n - 1)] = 1.0
        z = np.linalg.eigvals(M)
        m = np.abs(z)
        r_idx, c_idx = np.nonzero((m >= 1 - CIRCLE_TOL) & (m <= 1 + CIRCLE_TOL))
        rows.append(idx[k[r_idx]])
        roots.append(np.angle(z[r_idx, c_idx]))
    if not rows:
        return np.zeros(0, dtype=int), np.zeros(0)
    ri = np.concatenate(rows)
    t = np.concatenate(roots)
    gg = g[ri]
    for _ in range(NEWTON_STEPS):
        val, der = _value(gg, t)
        step = np.where(der != 0, val / np.where(der != 0, der, 1.0), 0.0)
        step = np.clip(step, -0.05, 0.05)
        t = t - step
        if float(np.max(np.abs(step), initial=0.0)) < ROOT_XTOL:
            break
    t = np.mod(t + math.pi, 2 * math.pi) - math.pi
    return ri, t


def _line(ab: np.ndarray, t: np.ndarray) -> np.ndarray:
    return ab[:, 0] + ab[:, 1] * np.cos(t) + ab[:, 2] * np.sin(t)


def _real(cv: _Curves, rows: np.ndarray, t: np.ndarray, d1: np.ndarray, ch: Block, sign: int) -> np.ndarray:
    """Whether the curve ``rows`` at ``(t, d1)`` is a real contact (see the module
    docstring)."""
    w, dep = ch.width, ch.depth
    qy = sign * w / 2
    yl, yr = w / 2 - qy, -w / 2 - qy
    Q0 = ch.wheel_pivot(sign)
    f, lv = ch.f, ch.l
    ok = np.zeros(len(rows), dtype=bool)
    c, s = np.cos(t), np.sin(t)
    kinds = np.asarray(cv.kind)[rows]
    for j in range(len(rows)):
        if j % 64 == 0:
            budget.check()
        kind, par = kinds[j], cv.par[rows[j]]
        if kind in (0, 1):
            u, v, rho = par
            X = (u - d1[j]) * c[j] + v * s[j]
            Y = -(u - d1[j]) * s[j] + v * c[j]
            if kind == 0:
                ok[j] = X >= -dep - rho - SPAN_TOL  # beside the body or ahead of it
            else:
                ok[j] = yr - rho - SPAN_TOL <= Y <= yl + rho + SPAN_TOL
        else:
            x, y, ax, ay, ex, ey, L2 = par
            E = Q0 + d1[j] * f + x * (c[j] * f + s[j] * lv) + y * (-s[j] * f + c[j] * lv)
            tt = ((E[0] - ax) * ex + (E[1] - ay) * ey) / L2
            ok[j] = -SPAN_TOL <= tt <= 1 + SPAN_TOL
    return ok


def closing_forwards(ch: Block, shapes: Sequence[tuple[Shape, float]], dmax: float) -> list[tuple[float, float]]:
    """The forward moves ``d1`` in ``(0, dmax)`` at which a piece of clear wheels (of
    either direction, within 90 degrees) can shrink to nothing: where two boundary
    curves meet, or one turns back, at a real contact (see the module docstring),
    each with the wheel (degrees) there: ``(d1, wheel)`` pairs, sorted. ``shapes``:
    the obstacles (and the fleeing unit) with their least gaps."""
    out: set[tuple[float, float]] = set()
    for sign in (1, -1):
        budget.check()
        cv = _curves(ch, sign, shapes)
        m = len(cv.a)
        if m == 0:
            continue
        A, B = np.asarray(cv.a, float), np.asarray(cv.b, float)
        ii, jj = np.triu_indices(m, 1)
        # two curves meet: A_i B_j - A_j B_i = 0; one turns back: A' B - A B' = 0
        g = np.concatenate([_times(A[ii], B[jj]) - _times(A[jj], B[ii]),
                            _times(_deriv(A), B) - _times(A, _deriv(B))])
        first = np.concatenate([ii, np.arange(m)])
        second = np.concatenate([jj, np.arange(m)])
        ri, t = trig2_roots(g)
        lo, hi = (0.0, math.pi / 2) if sign > 0 else (-math.pi / 2, 0.0)
        keep = (t >= lo - 1e-12) & (t <= hi + 1e-12) & (np.abs(t) > 1e-12)
        ri, t = ri[keep], np.clip(t[keep], lo, hi)
        ci, cj = first[ri], second[ri]
        # d1 from the curve whose B is the larger there (the better conditioned)
        Bi, Bj = _line(B[ci], t), _line(B[cj], t)
        use_i = np.abs(Bi) >= np.abs(Bj)
        Bu = np.where(use_i, Bi, Bj)
        Au = np.where(use_i, _line(A[ci], t), _line(A[cj], t))
        fine = np.abs(Bu) > B_MIN
        d1 = np.where(fine, -Au / np.where(fine, Bu, 1.0), -1.0)
        cand = fine & (d1 > 0.0) & (d1 < dmax)
        k = np.nonzero(cand)[0]
        if not len(k):
            continue
        real = _real(cv, ci[k], t[k], d1[k], ch, sign) & _real(cv, cj[k], t[k], d1[k], ch, sign)
        out |= {(float(x), math.degrees(float(y))) for x, y in zip(d1[k][real], t[k][real], strict=True)}
    return sorted(out)
