"""Trigonometric polynomials in one angle, and all their real roots (no rules here).

A trigonometric polynomial of degree ``K`` is ``g(x) = sum_{k=-K..K} c_k e^{ikx}``
with ``c_{-k}`` the conjugate of ``c_k`` (so ``g`` is real for real ``x``). It is
stored as the complex array ``c_{-K} .. c_K``. Sums, products and derivatives stay
in the family, so a quotient of two of them differentiates into another one, and
every real root of ``g`` is the argument of a root on the unit circle of the
ordinary polynomial ``z^K g(z)``: they are found as the eigenvalues of its companion
matrix (``numpy.roots``), then polished by Newton's method on ``g`` itself to
``ROOT_XTOL``. A root of even multiplicity (a tangency) comes out of the companion
matrix only to about the square root of the float precision, so points a little off
the unit circle are kept too: a spurious candidate costs a little work, a missed one
could cost a verdict.
"""

from __future__ import annotations

import cmath
import math

import numpy as np

#: Newton's method stops when the step is below this (radians)
ROOT_XTOL = 1e-13
#: at most this many Newton steps polish a root (a simple root converges in two or
#: three; a double root, a tangency, only linearly, from about 1e-8: it ends within
#: about 1e-10 radian, and is only ever a candidate angle, tried exactly)
NEWTON_STEPS = 12
#: a root of the companion polynomial this near the unit circle is kept
CIRCLE_TOL = 1e-3


#: a trigonometric polynomial whose coefficients are all below this is float noise
#: (the coefficients are products of inch-scale lengths and unit sines; a meaningful
#: one is never anywhere near this small)
TINY = 1e-200


class TP:
    __slots__ = ("c",)

    def __init__(self, c: np.ndarray) -> None:
        self.c = np.asarray(c, dtype=complex)

    @staticmethod
    def const(v: float) -> TP:
        return TP(np.array([v], dtype=complex))

    @staticmethod
    def cos() -> TP:
        return TP(np.array([0.5, 0.0, 0.5], dtype=complex))

    @staticmethod
    def sin() -> TP:
        return TP(np.array([0.5j, 0.0, -0.5j], dtype=complex))

    @property
    def K(self) -> int:
        return (len(self.c) - 1) // 2

    def _pad(self, K: int) -> np.ndarray:
        d = K - self.K
        return np.pad(self.c, (d, d)) if d > 0 else self.c

    def __add__(self, o: TP | float) -> TP:
        if not isinstance(o, TP):
            o = TP.const(float(o))
        K = max(self.K, o.K)
        return TP(self._pad(K) + o._pad(K))

    __radd__ = __add__

    def __neg__(self) -> TP:
        return TP(-self.c)

    def __sub__(self, o: TP | float) -> TP:
        return self + (-o if isinstance(o, TP) else -float(o))

    def __rsub__(self, o: float) -> TP:
        return (-self) + float(o)

    def __mul__(self, o: TP | float) -> TP:
        if not isinstance(o, TP):
            return TP(self.c * float(o))
        return TP(np.convolve(self.c, o.c))

    __rmul__ = __mul__

    def d(self) -> TP:
        """The derivative."""
        k = np.arange(-self.K, self.K + 1)
        return TP(self.c * (1j * k))

    def __call__(self, x: float) -> float:
        k = np.arange(-self.K, self.K + 1)
        return float(np.real(np.sum(self.c * np.exp(1j * k * x))))

    def trimmed(self) -> TP:
        c = self.c
        big = float(np.max(np.abs(c))) if len(c) else 0.0
        if big == 0.0:
            return TP(np.zeros(1, dtype=complex))
        while len(c) > 1 and abs(c[0]) <= 1e-14 * big and abs(c[-1]) <= 1e-14 * big:
            c = c[1:-1]
        return TP(c)

    def roots(self, lo: float, hi: float) -> list[float]:
        """Every real root in ``[lo, hi]`` (radians; an interval shorter than 2 pi).
        A polynomial that vanishes identically has no isolated roots: none."""
        g = self.trimmed()
        if g.K == 0:
            return []
        big = float(np.max(np.abs(g.c)))
        if big < TINY:
            # every coefficient is float noise (inputs like a facing of 1e-311 degree
            # give subnormal products): no isolated roots
            return []
        # the roots do not depend on the scale; normalising keeps the companion
        # matrix well scaled
        z = np.roots((g.c / big)[::-1])
        K = g.K
        cs = g.c.tolist()  # c_{-K} .. c_K
        ks = range(-K, K + 1)
        dcs = [c * 1j * k for c, k in zip(cs, ks, strict=True)]

        def val(x: float) -> tuple[float, float]:
            # g and g' at x by Horner's rule in z = e^{ix} (times z^-K)
            zz = cmath.exp(1j * x)
            f = d = 0j
            for c, dc in zip(reversed(cs), reversed(dcs), strict=True):
                f = f * zz + c
                d = d * zz + dc
            zk = zz ** (-K)
            return (f * zk).real, (d * zk).real

        out: list[float] = []
        for r in z:
            m = abs(r)
            if not (1 - CIRCLE_TOL <= m <= 1 + CIRCLE_TOL):
                continue
            x = float(np.angle(r))
            for _ in range(NEWTON_STEPS):
                f, fp = val(x)
                if fp == 0.0:
                    break
                step = f / fp
                if abs(step) > 0.05:
                    step = math.copysign(0.05, step)
                x -= step
                if abs(step) < ROOT_XTOL:
                    break
            # bring it into [lo, hi] by whole turns
            k = math.floor((x - lo) / (2 * math.pi))
            x -= k * 2 * math.pi
            if lo - 1e-12 <= x <= hi + 1e-12:
                out.append(min(max(x, lo), hi))
        return out
