"""A base turning about its centre (a *pivot*): the turned footprint, how far its
furthest point travels, and the exact region it sweeps while it turns.

The swept region
----------------
Let ``P`` be a convex footprint that contains its centre ``c``, and let it turn about
``c`` from facing ``θ0`` to ``θ1 = θ0 + Δ`` with ``|Δ| ≤ π``. Write a point relative
to ``c`` in polar form ``(s, ψ)`` and let ``ρ(φ)`` be the radial function of ``P`` at
its start facing (the distance from ``c`` to the boundary in direction ``φ``). Since
``P`` is star-shaped about ``c``, the point ``(s, ψ)`` is covered at some moment of the
turn iff ``s ≤ ρ(ψ - t)`` for some ``t`` between 0 and ``Δ``, i.e. iff ``s`` is at most
the largest value of ``ρ`` over the window of body angles swept past ``ψ``.

The largest value of ``ρ`` over an angle window is reached either at an end of the
window or at a local maximum of ``ρ`` inside it. For a convex polygon the distance from
``c`` along an edge is a convex function of the position on the edge, so the local
maxima of ``ρ`` are vertices; for an ellipse centred at ``c`` they are the two ends of
its major axis. Hence the swept region is exactly the union of

* ``P(θ0)`` (the window's end at ``t = 0``),
* ``P(θ1)`` (the other end, ``t = Δ``), and
* for each *extreme point* ``v`` (a vertex, or an end of the major axis), the circular
  sector of radius ``|v|`` about ``c`` over the directions ``v`` passes through.

Each sector spans at most π, so it is convex: the disc of radius ``|v|`` cut by the two
half-planes of its bounding rays. We represent it by its support function (closed form,
:class:`Sector`), which lets the generic convex distance of ``shapes`` measure it with
the stated solve accuracy; no polygon stands in for its arc.

The cost of a pivot
-------------------
Every point of the base travels along an arc of its own radius, so the point that goes
furthest is one at the largest radius ``R`` (:func:`reach`), and it travels ``R·|Δ|``.

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .shapes import Convex, ConvexPolygon, Disc, Ellipse, Footprint

#: angles closer than this (radians) are the same facing
ANGLE_TOL = 1e-12


def wrap_deg(a: float) -> float:
    """An angle in degrees brought into (-180, 180]."""
    x = (float(a) + 180.0) % 360.0 - 180.0
    return 180.0 if x == -180.0 else x


def turn_between(f0: float, f1: float) -> float:
    """The signed turn (degrees, in (-180, 180]) that takes facing ``f0`` to ``f1``
    the short way round."""
    return wrap_deg(f1 - f0)


@dataclass(frozen=True, eq=False)
class Sector(Convex):
    """The circular sector about ``c`` of radius ``r`` over the directions from angle
    ``a0`` counter-clockwise through ``span`` (radians, 0 <= span <= pi): convex."""

    c: tuple[float, float]
    r: float
    a0: float
    span: float

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return np.asarray(self.c, dtype=float)

    @cached_property
    def _ends(self) -> np.ndarray:
        a = np.array([self.a0, self.a0 + self.span])
        return self.center + self.r * np.stack([np.cos(a), np.sin(a)], axis=-1)

    def support(self, u: np.ndarray) -> np.ndarray:
        u = np.atleast_2d(u)
        psi = np.arctan2(u[:, 1], u[:, 0])
        inside = np.mod(psi - self.a0, 2 * math.pi) <= self.span
        cand = np.stack([np.broadcast_to(self.center, u.shape), np.broadcast_to(self._ends[0], u.shape),
                         np.broadcast_to(self._ends[1], u.shape)], axis=1)  # (k, 3, 2)
        val = np.einsum("kj,kij->ki", u, cand)
        best = cand[np.arange(len(u)), np.argmax(val, axis=1)]
        arc = self.center + self.r * u / np.linalg.norm(u, axis=1, keepdims=True)
        return np.where(inside[:, None], arc, best)

    @property
    def radius(self) -> float:
        return self.r

    def translated(self, d: Sequence[float]) -> Sector:
        return Sector((self.c[0] + d[0], self.c[1] + d[1]), self.r, self.a0, self.span)


def _rot_pt(p: Sequence[float], c: np.ndarray, d: float) -> tuple[float, float]:
    cs, sn = math.cos(d), math.sin(d)
    x, y = float(p[0]) - c[0], float(p[1]) - c[1]
    return (float(c[0] + cs * x - sn * y), float(c[1] + sn * x + cs * y))


def turned(fp: Footprint, delta_deg: float) -> Footprint:
    """The footprint turned by ``delta_deg`` (counter-clockwise) about its centre."""
    c = fp.center
    d = math.radians(delta_deg)
    parts: list[Convex] = []
    for p in fp.parts:
        if isinstance(p, Disc):
            parts.append(Disc(_rot_pt(p.c, c, d), p.r))
        elif isinstance(p, Ellipse):
            parts.append(Ellipse(_rot_pt(p.c, c, d), p.a, p.b, p.theta + d))
        elif isinstance(p, ConvexPolygon):
            parts.append(ConvexPolygon(tuple(_rot_pt(v, c, d) for v in p.vertices)))
        else:
            raise ValueError(f"cannot turn a {type(p).__name__} part")
    return Footprint(tuple(parts), fp.kind, fp.origin, fp.meta)


def pivotable(fp: Footprint) -> bool:
    """Does a turn change this base, and does the sweep construction hold for it? One
    convex part (an ellipse or a polygon) that contains the centre; a disc never needs
    to turn."""
    if len(fp.parts) != 1:
        return False
    p = fp.parts[0]
    c = fp.center
    if isinstance(p, Ellipse):
        return abs(p.a - p.b) > 0 and float(np.linalg.norm(p.center - c)) <= 1e-12
    if isinstance(p, ConvexPolygon):
        return bool(p.point_signed_distance(c[None])[0] < 0)
    return False


def extreme_points(fp: Footprint) -> np.ndarray:
    """The local maxima of the distance from the centre over the boundary (relative to
    the centre): a polygon's vertices, an ellipse's major-axis ends."""
    c = fp.center
    p = fp.parts[0]
    if isinstance(p, Ellipse):
        e = np.array([math.cos(p.theta), math.sin(p.theta)]) * p.a
        return np.stack([e, -e]) + (p.center - c)
    if isinstance(p, ConvexPolygon):
        return p.V - c
    raise ValueError("extreme points are defined for one ellipse or polygon part")


def reach(fp: Footprint) -> float:
    """The largest distance from the centre to the footprint: the radius of the point
    of the base that travels furthest in a turn."""
    if not pivotable(fp):
        return float(fp.radius)
    return float(np.max(np.linalg.norm(extreme_points(fp), axis=1)))


def pivot_length(fp: Footprint, delta_deg: float) -> float:
    """How far a pivot by ``delta_deg`` moves the base: ``reach · |Δ|`` (radians)."""
    return reach(fp) * abs(math.radians(wrap_deg(delta_deg)))


def sweep(fp: Footprint, delta_deg: float) -> Footprint:
    """The exact region ``fp`` covers while it turns by ``delta_deg`` about its centre
    (|delta| <= 180): the start and end footprints and one sector per extreme point
    (see the module's proof). ``fp`` must be :func:`pivotable`."""
    if not pivotable(fp):
        raise ValueError("the sweep is built for one convex part containing the centre")
    d = math.radians(float(delta_deg))
    if abs(d) > math.pi + 1e-12:
        raise ValueError("a pivot turns at most 180 degrees")
    end = turned(fp, delta_deg)
    if abs(d) <= ANGLE_TOL:
        return fp
    c = fp.center
    secs: list[Convex] = []
    for v in extreme_points(fp):
        r = float(np.hypot(v[0], v[1]))
        a = math.atan2(v[1], v[0])
        a0 = a if d >= 0 else a + d
        secs.append(Sector((float(c[0]), float(c[1])), r, a0, min(abs(d), math.pi)))
    return Footprint(fp.parts + end.parts + tuple(secs), "sweep", fp.origin)


def extent(fp: Footprint) -> tuple[float, float, float, float]:
    """``(min x, max x, min y, max y)`` of a footprint (a sweep included), exact: the
    largest support value of its parts along each axis direction."""
    u = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    h = np.max(np.stack([p.h(u) for p in fp.parts]), axis=0)
    return -float(h[1]), float(h[0]), -float(h[3]), float(h[2])


__all__ = [
    "Sector",
    "extent",
    "extreme_points",
    "pivot_length",
    "pivotable",
    "reach",
    "sweep",
    "turn_between",
    "turned",
    "wrap_deg",
]
