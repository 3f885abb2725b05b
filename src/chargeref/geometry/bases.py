"""Footprints of model bases and terrain pieces, built from scenario values.

Base sizes are millimetres in the contract; everything here works in the scenario's
own length unit, so callers pass ``mm_per_unit`` (25.4 for inches, 10 for cm).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .shapes import (
    Capsule,
    ConvexPolygon,
    Disc,
    Ellipse,
    Footprint,
    make_polygon_parts,
    rot,
)


def base_footprint(
    kind: str,
    dims: Sequence[float] | Sequence[Sequence[float]] | float,
    at: Sequence[float],
    facing_deg: float,
    mm_per_unit: float,
    hull_in_units: bool = True,
) -> Footprint:
    """The footprint of a base centred at ``at`` (x, y) looking along ``facing_deg``.

    * ``round``: diameter D (mm) -> disc.
    * ``oval``: [L, W] (mm), long axis along the facing -> true ellipse.
    * ``rect``: [W, D] (mm), W across the front, D along the facing.
    * ``hull``: polygon (scenario units) around the centre, drawn at facing 0.
    """
    x, y = float(at[0]), float(at[1])
    th = math.radians(facing_deg)
    if kind == "round":
        d = float(dims) if not isinstance(dims, (list, tuple)) else float(dims[0])  # type: ignore[arg-type]
        return Footprint((Disc((x, y), d / 2 / mm_per_unit),), "round", (x, y))
    if kind == "oval":
        L, W = (float(v) for v in dims)  # type: ignore[union-attr]
        return Footprint((Ellipse((x, y), L / 2 / mm_per_unit, W / 2 / mm_per_unit, th),), "oval", (x, y))
    if kind == "rect":
        W, D = (float(v) / mm_per_unit for v in dims)  # type: ignore[union-attr]
        return Footprint((rect_polygon((x, y), W, D, th),), "rect", (x, y))
    if kind == "hull":
        pts = np.asarray(dims, dtype=float)
        if not hull_in_units:
            pts = pts / mm_per_unit
        pts = pts @ rot(th).T + np.array([x, y])
        return Footprint(make_polygon_parts(pts), "hull", (x, y))
    raise ValueError(f"unknown base kind {kind!r}")


def rect_polygon(c: Sequence[float], width: float, depth: float, facing_rad: float) -> ConvexPolygon:
    """A rectangle centred at c, ``width`` across the facing and ``depth`` along it."""
    f = np.array([math.cos(facing_rad), math.sin(facing_rad)])
    s = np.array([f[1], -f[0]])  # to the right of the facing
    cc = np.asarray(c, dtype=float)
    hw, hd = width / 2, depth / 2
    pts = [cc + f * hd - s * hw, cc - f * hd - s * hw, cc - f * hd + s * hw, cc + f * hd + s * hw]
    return ConvexPolygon(tuple((float(p[0]), float(p[1])) for p in pts))


def wall_parts(points: Sequence[Sequence[float]], thickness: float) -> tuple[ConvexPolygon, ...]:
    """A thick polyline as rectangles, one per segment, each extended by half the
    thickness at inner joints so that the pieces meet without gaps."""
    pts = [np.asarray(p, dtype=float) for p in points]
    parts = []
    n = len(pts)
    for i in range(n - 1):
        a, b = pts[i], pts[i + 1]
        v = b - a
        L = float(np.linalg.norm(v))
        if L == 0:
            continue
        u = v / L
        ext0 = thickness / 2 if i > 0 else 0.0
        ext1 = thickness / 2 if i < n - 2 else 0.0
        a2, b2 = a - u * ext0, b + u * ext1
        c = (a2 + b2) / 2
        parts.append(rect_polygon(c, thickness, L + ext0 + ext1, math.atan2(u[1], u[0])))
    return tuple(parts)


def wall_footprint(points: Sequence[Sequence[float]], thickness: float) -> Footprint:
    return Footprint(wall_parts(points, thickness), "wall")


def polygon_footprint(points: Sequence[Sequence[float]]) -> Footprint:
    return Footprint(make_polygon_parts(points), "polygon")


__all__ = [
    "base_footprint",
    "rect_polygon",
    "wall_parts",
    "wall_footprint",
    "polygon_footprint",
    "Capsule",
]
