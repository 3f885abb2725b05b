"""Exact align angles of a T9A charge approach (no angular grid decides a distance).

An approach to the end offset ``s`` is: forward ``d1``, a wheel ``theta`` about the
inner front corner, forward ``d2`` until a front corner (or the facing's end) touches
the facing, then a free align turn ``delta`` about that contact point. The end pose
fixes everything once ``delta`` is known (``theta = psi - delta - facing``).

In the charger's own frame (origin its front middle, x forward, y to its left) let
``P`` be the pre-align front middle and ``h = sign(theta) * width / 2``:

* ``d2 = (P_y - h (1 - cos theta)) / sin theta``
* ``d1 = P_x - h sin theta - d2 cos theta``
* distance ``= d1 + d2 + width |theta| = P_x + (P_y - 2h) tan(theta / 2) + width |theta|``

``P`` itself turns with ``delta`` about the contact point ``X``:
``P = X + k (cos(theta + beta), sin(theta + beta))`` with ``k = s - x_X`` (the offset
from the contact point to the end middle along the facing) and ``beta`` the facing
axis's angle in the charger frame minus ``psi - facing``. Differentiating the distance
in ``theta`` gives ``(P_y0 - k sin beta + h' cos theta) / (1 + cos theta)`` with
``h' = 2h``: it only falls as ``|theta|`` grows, so a stationary point is a maximum and
the shortest approach of each piece lies at an end of its feasible range. Those ends
are closed forms:

* ``delta = 0`` (the charger wheels exactly onto the facing's heading);
* ``theta = 0`` (straight on, then align: only where its lateral offset is zero);
* ``|theta| = 90`` (the largest wheel);
* ``d1 = 0``: ``X_x sin theta + (h - X_y) cos theta - k sin beta - h = 0``;
* ``d2 = 0``: ``k cos beta sin theta + (k sin beta + h) cos theta + X_y - h = 0``.

Each ``a sin theta + b cos theta + c = 0`` is solved exactly
(``theta = atan2(a, b) +- acos(-c / hypot(a, b))``).
"""

from __future__ import annotations

import math

import numpy as np

from .block import Block, Facing
from .geom import wrap_deg

#: a wheel or an align angle this close to a bound counts as on it (degrees)
ANGLE_EPS = 1e-9
#: an align turn stays under 90 degrees (a charger arriving exactly side-on only slides
#: along the facing); where the shortest approach is the limit of ever larger aligns,
#: the align 1e-6 degree short of 90 stands for it (its distance differs by ~1e-8)
MAX_ALIGN = 90.0 - 1e-6


def _trig_roots(a: float, b: float, c: float) -> list[float]:
    """Every ``t`` in (-pi, pi] with ``a sin t + b cos t + c = 0`` (radians)."""
    r = math.hypot(a, b)
    if r < 1e-15:
        return []
    q = -c / r
    if abs(q) > 1.0 + 1e-12:
        return []
    q = max(-1.0, min(1.0, q))
    phi = math.atan2(a, b)
    g = math.acos(q)
    return [phi + g, phi - g] if g > 0 else [phi]


def contact_offset(s: float, sign: int, width: float, length: float) -> float:
    """Where along the facing the align turn pivots: the charger's leading front
    corner, or the facing's own end when that corner is past it."""
    if sign > 0:
        return min(s + width / 2, length / 2)
    return max(s - width / 2, -length / 2)


def candidate_deltas(ch: Block, fr: Facing, s: float, max_wheel: float = 90.0) -> list[float]:
    """The align angles (degrees) at which an approach to offset ``s`` can be
    shortest: the ends of each feasible piece (see the module docstring).

    A wheel is kept when it is within ``max_wheel`` (+``ANGLE_EPS``) and its align
    angle has the sign of the contact rule and is at most 90 degrees; the align is
    then clamped to ``MAX_ALIGN``. (Written out inline, the same operations in the
    same order as ``_candidate_deltas_ref``: it is called for every candidate offset.)"""
    w, L = ch.width, fr.length
    th0 = wrap_deg(fr.psi - ch.facing)
    r0 = math.radians(ch.facing)
    f0x, f0y = math.cos(r0), math.sin(r0)  # forward; left is (-f0y, f0x)
    F0 = ch.F
    mx, my = float(fr.mid[0]) - float(F0[0]), float(fr.mid[1]) - float(F0[1])
    tx, ty = float(fr.t[0]), float(fr.t[1])
    alpha = math.atan2(-f0y * tx + f0x * ty, f0x * tx + f0y * ty)
    beta = alpha - math.radians(th0)
    sb, cb = math.sin(beta), math.cos(beta)
    lim = max_wheel + ANGLE_EPS
    fmod, degrees, acos, atan2, hypot = math.fmod, math.degrees, math.acos, math.atan2, math.hypot
    out: set[float] = {0.0}
    add = out.add
    half = w / 2
    for sign in (1, -1):
        # the wheels that do not depend on the offset: none, the one giving the
        # largest align (its limit), the largest wheel either way
        for td in (0.0, wrap_deg(th0 - sign * 90.0), max_wheel, -max_wheel):
            if abs(td) > lim:
                continue
            d = fmod(th0 - td, 360.0)
            if d <= -180.0:
                d += 360.0
            elif d > 180.0:
                d -= 360.0
            if 0.0 < sign * d <= 90.0:
                add(MAX_ALIGN if d > MAX_ALIGN else (-MAX_ALIGN if d < -MAX_ALIGN else d))
        xp = (s + half if s + half < L / 2 else L / 2) if sign > 0 else (s - half if s - half > -L / 2 else -L / 2)
        Xx, Xy = mx + xp * tx, my + xp * ty
        xx, xy = Xx * f0x + Xy * f0y, -Xx * f0y + Xy * f0x
        k = s - xp
        ksb, kcb = k * sb, k * cb
        for sg in (1, -1):
            h = sg * w / 2
            # d1 = 0 and d2 = 0, each a sin(t) + b cos(t) + c = 0 (``_trig_roots``)
            for a, b, c in ((xx, h - xy, -ksb - h), (kcb, ksb + h, xy - h)):
                r = hypot(a, b)
                if r < 1e-15:
                    continue
                q = -c / r
                if abs(q) > 1.0 + 1e-12:
                    continue
                q = max(-1.0, min(1.0, q))
                phi = atan2(a, b)
                g = acos(q)
                for t in ((phi + g, phi - g) if g > 0 else (phi,)):
                    td = fmod(degrees(t), 360.0)
                    if td <= -180.0:
                        td += 360.0
                    elif td > 180.0:
                        td -= 360.0
                    if not sg * td > 0 or abs(td) > lim:
                        continue
                    d = fmod(th0 - td, 360.0)
                    if d <= -180.0:
                        d += 360.0
                    elif d > 180.0:
                        d -= 360.0
                    if 0.0 < sign * d <= 90.0:
                        add(MAX_ALIGN if d > MAX_ALIGN else (-MAX_ALIGN if d < -MAX_ALIGN else d))
    return sorted(out, key=abs)


def _candidate_deltas_ref(ch: Block, fr: Facing, s: float, max_wheel: float = 90.0) -> list[float]:
    """``candidate_deltas`` as first written, with a helper per step (the tests
    compare the two)."""
    w, L = ch.width, fr.length
    th0 = wrap_deg(fr.psi - ch.facing)
    r0 = math.radians(ch.facing)
    f0x, f0y = math.cos(r0), math.sin(r0)  # forward; left is (-f0y, f0x)
    F0 = ch.F
    mx, my = float(fr.mid[0]) - float(F0[0]), float(fr.mid[1]) - float(F0[1])
    tx, ty = float(fr.t[0]), float(fr.t[1])
    alpha = math.atan2(-f0y * tx + f0x * ty, f0x * tx + f0y * ty)
    beta = alpha - math.radians(th0)
    out: set[float] = {0.0}

    def keep(theta_deg: float, sign: int) -> None:
        if abs(theta_deg) > max_wheel + ANGLE_EPS:
            return
        d = wrap_deg(th0 - theta_deg)
        if 0.0 < sign * d <= 90.0:
            out.add(max(-MAX_ALIGN, min(MAX_ALIGN, d)))

    for sign in (1, -1):
        xp = contact_offset(s, sign, w, L)
        Xx, Xy = mx + xp * tx, my + xp * ty
        xx, xy = Xx * f0x + Xy * f0y, -Xx * f0y + Xy * f0x
        k = s - xp
        keep(0.0, sign)
        keep(wrap_deg(th0 - sign * 90.0), sign)  # the largest align (its limit)
        keep(max_wheel, sign)  # the largest wheel
        keep(-max_wheel, sign)
        for sg in (1, -1):
            h = sg * w / 2
            roots = _trig_roots(xx, h - xy, -k * math.sin(beta) - h)  # d1 = 0
            roots += _trig_roots(k * math.cos(beta), k * math.sin(beta) + h, xy - h)  # d2 = 0
            for t in roots:
                td = math.degrees(t)
                td = wrap_deg(td)
                if sg * td > 0:
                    keep(td, sign)
    return sorted(out, key=abs)


def approach_distance(ch: Block, fr: Facing, s: float, delta: float) -> tuple[float, float, float, float] | None:
    """Independent closed form of one approach: ``(distance, theta, d1, d2)`` in the
    charger's own frame, or None when the wheel is zero (straight on: see
    ``charge.solve``). Used by tests as an oracle."""
    w, L = ch.width, fr.length
    th = wrap_deg(fr.psi - delta - ch.facing)
    if abs(th) < 1e-12:
        return None
    sign = 1 if delta > 0 else -1
    xp = contact_offset(s, sign, w, L) if delta != 0 else s
    X = fr.pt(xp)
    a = math.radians(-delta)
    v = (s - xp) * fr.t
    P = X + np.array([math.cos(a) * v[0] - math.sin(a) * v[1], math.sin(a) * v[0] + math.cos(a) * v[1]]) - ch.F
    px, py = float(P @ ch.f), float(P @ ch.l)
    t = math.radians(th)
    h = math.copysign(w / 2, t)
    d2 = (py - h * (1 - math.cos(t))) / math.sin(t)
    d1 = px - h * math.sin(t) - d2 * math.cos(t)
    dist = px + (py - 2 * h) * math.tan(t / 2) + w * abs(t)
    return dist, th, d1, d2
