"""Plain-float geometry of small convex polygons (a handful of vertices, as units'
rectangles are): for so few points the arithmetic costs less than numpy's call
overhead. The functions take vertex lists (``Shape.vl()``) or shapes, and cache
per-shape data in the shape (its own separating axes). ``geom`` uses them for its
polygon gaps; each gives the numbers of the plain expression it stands for (tests:
tests/t9a/test_fast_paths.py)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .geom import Shape

TWO_PI = 2 * math.pi


def _bbox_circle_small(V: list[list[float]]) -> tuple[np.ndarray, float]:
    """``_bbox_circle`` of a polygon of fewer than 8 vertices in plain floats: the
    vertices' mean (summed in order, then divided, as numpy does below 8 terms) and
    the largest distance from it (``sqrt`` of the largest square)."""
    sx = sy = 0.0
    for x, y in V:
        sx += x
        sy += y
    n = len(V)
    cx, cy = sx / n, sy / n
    m = 0.0
    for x, y in V:
        dx, dy = x - cx, y - cy
        q = dx * dx + dy * dy
        if q > m:
            m = q
    return np.array([cx, cy]), math.sqrt(m)


def _sat_small(P: list[list[float]], Q: list[list[float]]) -> float:
    """The largest separation of two convex polygons over their edge normals (minus
    the penetration depth when they overlap; a lower bound of the gap otherwise)."""
    best = -math.inf
    for V, W, v_is_p in ((P, Q, True), (Q, P, False)):
        for ax, ay, vmin, vmax in _own_axes(V):
            wmin, wmax = _project(W, ax, ay)
            pmin, pmax, qmin, qmax = (vmin, vmax, wmin, wmax) if v_is_p else (wmin, wmax, vmin, vmax)
            sep = qmin - pmax if qmin - pmax > pmin - qmax else pmin - qmax
            if sep > best:
                best = sep
    return best


def _project(V: list[list[float]], ax: float, ay: float) -> tuple[float, float]:
    """The least and greatest of ``x ax + y ay`` over a polygon's vertices."""
    vmin = vmax = V[0][0] * ax + V[0][1] * ay
    for x, y in V:
        v = x * ax + y * ay
        if v < vmin:
            vmin = v
        elif v > vmax:
            vmax = v
    return vmin, vmax


def _own_axes(V: list[list[float]]) -> list[tuple[float, float, float, float]]:
    """A polygon's edge normals as ``_sat_small`` takes them (zero-length edges left
    out), each with the polygon's own projection ``(ax, ay, least, greatest)``."""
    out = []
    n = len(V)
    for i in range(n):
        x0, y0 = V[i]
        x1, y1 = V[(i + 1) % n]
        ex, ey = x1 - x0, y1 - y0
        ln = math.hypot(ex, ey)
        if ln <= 0:
            continue
        ax, ay = ey / ln, -ex / ln
        vmin, vmax = _project(V, ax, ay)
        out.append((ax, ay, vmin, vmax))
    return out


def _shape_axes(A: Shape) -> list[tuple[float, float, float, float]]:
    ax = A.__dict__.get("_axes")
    if ax is None:
        ax = A.__dict__["_axes"] = _own_axes(A.vl())
    return ax


def _sat_shapes(A: Shape, B: Shape) -> float:
    """``_sat_small(A, B)`` for two small polygons with each one's edge normals and
    its own projections on them cached on the shape: the same axes, in the same
    order, and the same comparisons, so the same value; only the other polygon is
    projected per pair."""
    P, Q = A.vl(), B.vl()
    best = -math.inf
    for ax, ay, pmin, pmax in _shape_axes(A):
        qmin, qmax = _project(Q, ax, ay)
        sep = qmin - pmax if qmin - pmax > pmin - qmax else pmin - qmax
        if sep > best:
            best = sep
    for ax, ay, qmin, qmax in _shape_axes(B):
        pmin, pmax = _project(P, ax, ay)
        sep = qmin - pmax if qmin - pmax > pmin - qmax else pmin - qmax
        if sep > best:
            best = sep
    return best


def _gap_shapes_small(A: Shape, B: Shape) -> float:
    """``_poly_gap_small`` of two small polygons through ``_sat_shapes``."""
    best = _sat_shapes(A, B)
    if best < 0:
        return best
    P, Q = A.vl(), B.vl()
    return math.sqrt(min(_vert_edge2(P, Q), _vert_edge2(Q, P)))


def _poly_gap_small(P: list[list[float]], Q: list[list[float]]) -> float:
    """The gap of two small convex polygons: their edge-normal separation when they
    overlap (``_sat_small``), else the least vertex-to-edge distance."""
    best = _sat_small(P, Q)
    if best < 0:
        return best
    return math.sqrt(min(_vert_edge2(P, Q), _vert_edge2(Q, P)))


def _vert_edge2(V: list[list[float]], W: list[list[float]]) -> float:
    """Least squared distance from the vertices V to the edges of W."""
    best = math.inf
    m = len(W)
    for i in range(m):
        ax, ay = W[i]
        bx, by = W[(i + 1) % m]
        ex, ey = bx - ax, by - ay
        L2 = ex * ex + ey * ey
        if L2 == 0:
            L2 = 1.0
        for px, py in V:
            dx, dy = px - ax, py - ay
            t = (dx * ex + dy * ey) / L2
            t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
            qx, qy = dx - t * ex, dy - t * ey
            d = qx * qx + qy * qy
            if d < best:
                best = d
    return best


def turn_gap_lower(A: Shape, pivot: tuple[float, float], delta: float, B: Shape) -> float:
    """A lower bound of the gap between ``B`` and the polygon ``A`` turning about
    ``pivot`` by ``delta`` radians (both small polygons), in closed form: for each edge
    line of ``B`` (``B`` lies behind it), the least signed distance from that line of
    any vertex of ``A`` at any moment of the turn, and the largest of those over the
    edges. A vertex's distance from a line while it turns is ``base + rho cos(angle)``,
    least at an end of the turn unless the vertex passes the direction straight
    against the line's normal, where it is ``base - rho``. At every moment ``A``'s
    separation along that normal, which bounds the gap from below, is at least that."""
    px, py = pivot
    c, s = math.cos(delta), math.sin(delta)
    rel = [(x - px, y - py) for x, y in A.vl()]
    best = -math.inf
    for ax, ay, _, bmax in _shape_axes(B):
        base = ax * px + ay * py - bmax
        g = math.atan2(ay, ax)
        least = math.inf
        for dx, dy in rel:
            d0 = ax * dx + ay * dy
            d1 = ax * (c * dx - s * dy) + ay * (s * dx + c * dy)
            lo = d0 if d0 < d1 else d1
            rho = math.hypot(dx, dy)
            if rho > 0:
                # the turn (same sign as delta) that brings the vertex's direction to
                # the one opposite the normal
                b = math.atan2(dy, dx)
                if delta >= 0:
                    if (math.pi - (b - g)) % TWO_PI <= delta:
                        lo = -rho
                elif ((b - g) - math.pi) % TWO_PI <= -delta:
                    lo = -rho
            if base + lo < least:
                least = base + lo
        if least > best:
            best = least
    return best


def turn_gap_lower_own(A: Shape, pivot: tuple[float, float], delta: float, B: Shape) -> float:
    """Another lower bound of the gap between ``B`` and the polygon ``A`` turning about
    ``pivot`` by ``delta`` radians (both small polygons), in closed form: ``A``'s own
    edge lines turn with it (``A`` lies behind each), and for each, the least signed
    distance of ``B``'s vertices from it at any moment of the turn, the largest of
    those over ``A``'s edges. Seen from the turning line a vertex of ``B`` at angle
    ``b`` and distance ``rho`` from the pivot is at ``rho cos(b - g - t) - c`` after a
    turn ``t`` (``g`` the edge normal's angle at the start, ``c`` the edge's offset from
    the pivot along it, unchanged by the turn): least at an end of the turn, or
    ``-rho - c`` where the vertex passes the direction straight against the normal.
    At every moment ``B`` lies at least that far beyond the edge line, which bounds
    the gap from below. (It settles a turn about a corner of ``B`` itself, where no
    edge line of ``B`` keeps ``A`` on its far side all through: ``turn_gap_lower``.)"""
    px, py = pivot
    c, s = math.cos(delta), math.sin(delta)
    rel = [(x - px, y - py) for x, y in B.vl()]
    best = -math.inf
    for ax, ay, _, amax in _shape_axes(A):
        off = amax - (ax * px + ay * py)
        g = math.atan2(ay, ax)
        # the normal at the end of the turn
        bx, by = c * ax - s * ay, s * ax + c * ay
        least = math.inf
        for dx, dy in rel:
            d0 = ax * dx + ay * dy
            d1 = bx * dx + by * dy
            lo = d0 if d0 < d1 else d1
            rho = math.hypot(dx, dy)
            if rho > 0:
                # the turn (same sign as delta) that brings the normal straight
                # against the vertex's direction
                b = math.atan2(dy, dx)
                if delta >= 0:
                    if ((b - g) - math.pi) % TWO_PI <= delta:
                        lo = -rho
                elif (math.pi - (b - g)) % TWO_PI <= -delta:
                    lo = -rho
            if lo - off < least:
                least = lo - off
        if least > best:
            best = least
    return best
