"""Path pieces that run along a smooth C-obstacle's boundary ("curve" pieces).

Round an oval base the shortest path of a centre follows the boundary of a smooth
C-obstacle (:class:`chargeref.geometry.smooth.SmoothBody`) between two normals. Such a
piece is recorded as ``{"kind": "curve", "from", "to", "ccw", "normals": [φ_from,
φ_to], "body": {...}}``; its length is the body's boundary length between the normals
(quadrature of the curvature radius, exact to ~1e-12).

Clearance of a curve piece against another C-obstacle ``Q`` (deeper than TOL is a
penetration) is decided without sampling: the piece lies inside the triangle of its
end tangents (normals at most π/2 apart). A triangle whose signed distance to ``Q`` is
at least −TOL clears the piece below it; an end of the piece that penetrates ``Q``
deeper than TOL blocks it; otherwise the piece is halved at its middle normal. The
triangle's height over its chord shrinks with the square of the normal span, so the
halving stops where ``Q`` touches the piece; below a height of 1e-7 the piece is taken
as clear when the triangle is within TOL + height of ``Q``. Signed distances come from
``shapes.convex_signed_distance`` (closed forms, or its bracketed solve to 1e-9).
"""

from __future__ import annotations

import math

import numpy as np

from .cspace import _TWO_PI, _CSet
from .shapes import TOL, ConvexPolygon, Sum, convex_signed_distance
from .smooth import FLAT_SNAP, SmoothBody, c_obstacle_body
from .tangents import Piece

#: below this height of the tangent triangle over its chord a piece is not halved again
LEAF_HEIGHT = 1e-7


def curve_interval(p: Piece) -> tuple[float, float]:
    """(φ_lo, span): the piece's normals counter-clockwise from φ_lo over span."""
    f, t = p.normals
    if p.ccw:
        return f, (t - f) % _TWO_PI
    return t, (f - t) % _TWO_PI


def make_curve(body: SmoothBody, phi_from: float, phi_to: float, ccw: bool) -> Piece:
    """The piece along ``body`` from normal ``phi_from`` to ``phi_to``. A flat side at an
    end belongs to the straight piece beside it: leaving counter-clockwise the piece
    starts at the flat's counter-clockwise end, and so on."""
    sa, sb = (1, -1) if ccw else (-1, 1)
    a = body.point(phi_from, sa)
    b = body.point(phi_to, sb)
    p = Piece("curve", (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), 0.0, None, 0.0, ccw, body,
              (float(phi_from), float(phi_to)))
    lo, span = curve_interval(p)
    p.length = body.length(lo, span)
    return p


def curve_from_dict(d: dict) -> Piece:
    """A curve piece from its contract form; ValueError if malformed or if its ends are
    not (to 1e-6) the body's boundary points at the given normals."""
    body = SmoothBody.from_dict(d["body"])
    n = d["normals"]
    p = make_curve(body, float(n[0]), float(n[1]), bool(d.get("ccw", True)))
    for key, end in (("from", p.a), ("to", p.b)):
        got = [float(v) for v in d[key][:2]]
        if math.dist(got, end) > TOL:
            raise ValueError(f"a curve's {key!r} {got} is not its body's point at that normal")
    return Piece(p.kind, tuple(float(v) for v in d["from"][:2]), tuple(float(v) for v in d["to"][:2]),
                 p.length, None, 0.0, p.ccw, body, p.normals)


def curve_points(p: Piece, sagitta: float) -> list[tuple[float, float]]:
    """Inner points of the piece for the ``points`` polyline (chords within
    ``sagitta`` of the curve)."""
    lo, span = curve_interval(p)
    return p.body.polyline(lo, span, p.ccw, sagitta)


def curve_box_ok(p: Piece, box: np.ndarray | None, tol: float = TOL) -> bool:
    """Does the piece stay in the box [x0, x1] x [y0, y1]? Its extremes along an axis
    are its ends and the boundary points whose normal is that axis (inside the span)."""
    if box is None:
        return True
    lo, span = curve_interval(p)
    pts = [np.asarray(p.a), np.asarray(p.b)]
    for k in range(4):
        th = k * math.pi / 2
        if (th - lo) % _TWO_PI <= span:
            pts.append(p.body.point(th))
    P = np.asarray(pts)
    return bool(
        (P[:, 0] >= box[0] - tol).all() and (P[:, 0] <= box[1] + tol).all()
        and (P[:, 1] >= box[2] - tol).all() and (P[:, 1] <= box[3] + tol).all()
    )


def _same_body(a: SmoothBody, b: SmoothBody) -> bool:
    if len(a.ellipses) != len(b.ellipses) or len(a.V) != len(b.V) or abs(a.grow - b.grow) > 1e-9:
        return False
    ea, eb = sorted(a.ellipses), sorted(b.ellipses)
    for x, y in zip(ea, eb, strict=True):
        if max(abs(x[0] - y[0]), abs(x[1] - y[1]), abs(x[2] - y[2]), abs(x[3] - y[3])) > 1e-9:
            return False
        if abs(x[2] - x[3]) > 1e-12 and abs(((x[4] - y[4]) + math.pi / 2) % math.pi - math.pi / 2) > 1e-9:
            return False
    return bool(np.allclose(np.sort(a.V, axis=0), np.sort(b.V, axis=0), atol=1e-9, rtol=0))


def own_obstacles(cs: _CSet, body: SmoothBody) -> set[int]:
    """C-obstacles of ``cs`` that are ``body`` itself (a piece on its boundary never
    penetrates it)."""
    out = set()
    c = body.center()
    for q in range(cs.Q):
        if cs.exact[q] or math.dist(cs.centre[q], c) > cs.radius[q] + 1e-6:
            continue
        k = c_obstacle_body(cs.O[q], cs.b[q])
        if k is not None and _same_body(k, body):
            out.add(q)
    return out


def _point_sd(cs: _CSet, q: int, x: np.ndarray) -> float:
    part = cs.b[q].translated((float(x[0]), float(x[1])))
    return float(convex_signed_distance(part, cs.O[q]))


def _tri_sd(cs: _CSet, q: int, tri: np.ndarray) -> float:
    return float(convex_signed_distance(Sum((ConvexPolygon(tuple(map(tuple, tri))), cs.b[q])), cs.O[q]))


def _split_normal(body: SmoothBody, lo: float, span: float) -> float:
    """The middle normal, moved off a flat side's normal (a flat must stay inside one
    half, never at the seam)."""
    m = lo + span / 2
    for n, _ in body.flats():
        d = (m - n + math.pi) % _TWO_PI - math.pi
        if abs(d) <= 10 * FLAT_SNAP:
            return m + (span / 8 if d >= 0 else -span / 8)
    return m


def curve_penetrates(cs: _CSet, q: int, body: SmoothBody, lo: float, span: float, tol: float = TOL) -> bool:
    """Does the boundary of ``body`` between normals lo and lo + span penetrate
    C-obstacle ``q`` deeper than ``tol``? (See the module docstring.)"""
    stack = [(lo, span)]
    while stack:
        l0, s = stack.pop()
        if s > math.pi / 2:
            m = _split_normal(body, l0, s)
            stack += [(l0, m - l0), (m, l0 + s - m)]
            continue
        a = body.point(l0, 1)
        b = body.point(l0 + s, -1)
        if _point_sd(cs, q, a) < -tol or _point_sd(cs, q, b) < -tol:
            return True
        if s <= 1e-12:
            continue
        u0 = np.array([math.cos(l0), math.sin(l0)])
        u1 = np.array([math.cos(l0 + s), math.sin(l0 + s)])
        det = u0[0] * u1[1] - u0[1] * u1[0]
        h0, h1 = body.h(l0), body.h(l0 + s)
        apex = np.array([(h0 * u1[1] - h1 * u0[1]) / det, (u0[0] * h1 - u1[0] * h0) / det])
        ch = b - a
        L = float(math.hypot(ch[0], ch[1]))
        height = abs(float(ch[0] * (apex[1] - a[1]) - ch[1] * (apex[0] - a[0]))) / L if L > 0 else 0.0
        sd = _tri_sd(cs, q, np.asarray([a, apex, b])) if height > 0 else min(
            _point_sd(cs, q, a), _point_sd(cs, q, b))
        if sd >= -tol:
            continue
        if height < LEAF_HEIGHT:
            if sd + height < -tol:
                return True
            continue
        m = _split_normal(body, l0, s)
        stack += [(l0, m - l0), (m, l0 + s - m)]
    return False


def curve_hits(
    cs: _CSet, qs: np.ndarray, p: Piece, skip: set[int] | None = None, tol: float = TOL
) -> list[int]:
    """C-obstacles among ``qs`` (other than ``skip``, by default the piece's own) that
    the curve piece penetrates deeper than ``tol``."""
    body: SmoothBody = p.body
    if skip is None:
        skip = own_obstacles(cs, body)
    lo, span = curve_interval(p)
    c = body.center()
    R = body.bound_radius()
    qs = np.asarray(qs, dtype=int)
    near = qs[np.hypot(*(cs.centre[qs] - c).T) <= cs.radius[qs] + R + tol] if len(qs) else qs
    return [int(q) for q in near if int(q) not in skip and curve_penetrates(cs, int(q), body, lo, span, tol)]


__all__ = [
    "curve_box_ok",
    "curve_from_dict",
    "curve_hits",
    "curve_interval",
    "curve_penetrates",
    "curve_points",
    "make_curve",
    "own_obstacles",
]
