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
halving stops where ``Q`` touches the piece; below a height of 1e-7 (or on a flat side)
the chord's exact segment test decides, to within that height. Triangle and point
tests are closed forms for rounded polygons; for an oval-involved ``Q`` with a disc
radius of at least TOL, ``Q`` shrunk by TOL is again a smooth body, and "deeper than
TOL" is "meets the shrunk body" (a GJK test on ``(Q ⊖ TOL) ⊕ (−triangle)``); otherwise
``shapes.convex_signed_distance`` (its bracketed solve to 1e-9). A pair still open
after MAX_TRIANGLES triangles is reported as undecided: the planner then treats the
piece as blocked and the result as not proven (``exact`` false).
"""

from __future__ import annotations

import math

import numpy as np

from .cspace import _TWO_PI, _CSet
from .shapes import (
    TOL,
    ConvexPolygon,
    Sum,
    convex_signed_distance,
    core_signed_distance,
    polygon_point_signed_distance,
)
from .smooth import FLAT_SNAP, SmoothBody, c_obstacle_body, shared_normals
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


def _body_of(cs: _CSet, q: int) -> SmoothBody | None:
    cache = cs.__dict__.setdefault("_smooth_bodies", {})
    if q not in cache:
        cache[q] = c_obstacle_body(cs.O[q], cs.b[q])
    return cache[q]


def _eroded(cs: _CSet, q: int, tol: float) -> SmoothBody | None:
    """C-obstacle q shrunk by tol, when that is again a smooth body (its disc radius is
    at least tol: eroding K ⊕ disc(r) by t <= r leaves K ⊕ disc(r − t))."""
    cache = cs.__dict__.setdefault("_eroded_bodies", {})
    key = (q, tol)
    if key not in cache:
        Q = _body_of(cs, q)
        cache[key] = None if Q is None or Q.grow < tol else SmoothBody(Q.ellipses, Q.core, Q.grow - tol)
    return cache[key]


def _point_pen(cs: _CSet, q: int, x: np.ndarray, tol: float) -> bool:
    """Is point x deeper than tol inside C-obstacle q?"""
    if cs.exact[q]:
        K = cs.core[q]
        if len(K) >= 3:
            d = float(polygon_point_signed_distance(K, np.asarray(x, dtype=float)[None])[0])
        else:
            d = core_signed_distance(np.asarray(x, dtype=float)[None], K)
        return d - float(cs.rho[q]) < -tol
    E = _eroded(cs, q, tol)
    if E is not None:
        return E.nearest_normal(x) is None
    Q = _body_of(cs, q)
    if Q is not None and Q.nearest_normal(x) is not None:
        return False  # outside
    P = np.asarray(x, dtype=float)[None]
    return bool(cs.sd_pairs(P, P, np.asarray([q]), tol=tol)[0] < -tol)


def _tri_state(cs: _CSet, q: int, tri: np.ndarray, tol: float, normals: tuple[float, ...] = ()) -> float | None:
    """A lower bound of sd(triangle, C-obstacle q) when it proves the triangle is at
    least −tol away (a value >= −tol), else a value below −tol (the signed distance)
    or None (entered deeper than tol, depth unknown). ``normals``: directions worth
    trying when the triangle meets q (the piece's end normals): with ``D = q ⊕
    (−triangle)`` holding the origin, the penetration depth is ``min_φ h_D(φ)``, so
    one normal with ``h_D(φ) <= tol`` proves the triangle enters q by at most tol
    (a piece that starts touching q along a shared support line)."""
    if cs.exact[q]:
        return core_signed_distance(np.asarray(tri, dtype=float), cs.core[q]) - float(cs.rho[q])
    E = _eroded(cs, q, tol)
    if E is not None:
        # the triangle enters q deeper than tol exactly when it meets q shrunk by tol,
        # i.e. when the origin lies in (q ⊖ tol) ⊕ (−triangle)
        V = np.asarray(E.core, dtype=float).reshape(-1, 2)
        core = (V[:, None, :] - np.asarray(tri, dtype=float)[None, :, :]).reshape(-1, 2)
        D = SmoothBody(E.ellipses, tuple((float(a), float(b)) for a, b in core), E.grow)
        return -tol if D.nearest_normal((0.0, 0.0)) is not None else None
    Q = _body_of(cs, q)
    if Q is not None:
        V = np.asarray(Q.core, dtype=float).reshape(-1, 2)
        core = (V[:, None, :] - np.asarray(tri, dtype=float)[None, :, :]).reshape(-1, 2)
        D = SmoothBody(Q.ellipses, tuple((float(a), float(b)) for a, b in core), Q.grow)
        nn = D.nearest_normal((0.0, 0.0))
        if nn is not None:
            return nn[1]
        for phi in normals:
            if D.h(phi) <= tol:
                return -tol
        return None
    return float(convex_signed_distance(Sum((ConvexPolygon(tuple(map(tuple, tri))), cs.b[q])), cs.O[q]))


def segment_clear(cs: _CSet, q: int, a: np.ndarray, b: np.ndarray, tol: float = TOL) -> bool | None:
    """Does the segment a-b stay out of C-obstacle q (no point deeper than tol)? For an
    oval-involved q with a disc radius of at least tol: the segment enters deeper than
    tol exactly when it meets q shrunk by tol, i.e. when the origin lies in
    ``(q ⊖ tol) ⊕ (−segment)``, a smooth body (GJK on support points, exact to ~1e-12
    of the unit). Otherwise the decision-grade segment distance of the C-set
    (``None`` never: kept for callers that treat it as undecided)."""
    if cs.exact[q] or _eroded(cs, q, tol) is None:
        return bool(cs.sd_pairs(np.asarray(a, float)[None], np.asarray(b, float)[None], np.asarray([q]), tol=tol)[0] >= -tol)
    E = _eroded(cs, q, tol)
    assert E is not None
    V = np.asarray(E.core, dtype=float).reshape(-1, 2)
    seg = np.asarray([a, b], dtype=float)
    core = (V[:, None, :] - seg[None, :, :]).reshape(-1, 2)
    D = SmoothBody(E.ellipses, tuple((float(x), float(y)) for x, y in core), E.grow)
    return D.nearest_normal((0.0, 0.0)) is not None


def _split_normal(body: SmoothBody, lo: float, span: float) -> float:
    """The middle normal, moved off a flat side's normal (a flat must stay inside one
    half, never at the seam)."""
    m = lo + span / 2
    for n, _ in body.flats():
        d = (m - n + math.pi) % _TWO_PI - math.pi
        if abs(d) <= 10 * FLAT_SNAP:
            return m + (span / 8 if d >= 0 else -span / 8)
    return m


def _cut_flats(body: SmoothBody, lo: float, span: float) -> tuple[list[tuple[float, float]], list[tuple[np.ndarray, np.ndarray]]]:
    """The piece's normal interval cut at the flat sides inside it, and those flat
    sides as segments (judged as straight pieces, exactly). A flat side whose normal
    is within 10·FLAT_SNAP of an end of the interval is not part of the piece (it
    belongs to the straight piece beside it): the end moves onto its normal, so the
    piece starts at the flat's far end (not at a corner it may share with another
    body, which no tangent triangle could ever clear)."""
    end = lo + span
    cuts = []
    flats = []
    for n, _ in body.flats():
        off = (n - lo) % _TWO_PI
        if off > _TWO_PI - 10 * FLAT_SNAP:
            off -= _TWO_PI
        if abs(off) <= 10 * FLAT_SNAP:
            lo = lo + off
        elif abs(off - span) <= 10 * FLAT_SNAP:
            end = lo + off if abs(lo + off - end) <= 10 * FLAT_SNAP else end
        elif 0 < off < span:
            cuts.append(lo + off)
    pts = [lo] + sorted(c for c in cuts if lo < c < end) + [end]
    for c in pts[1:-1]:
        flats.append((body.point(c, -1), body.point(c, 1)))
    return [(a, b - a) for a, b in zip(pts[:-1], pts[1:], strict=True) if b > a], flats


def _unshared(body: SmoothBody, Q: SmoothBody | None, lo: float, span: float) -> list[tuple[float, float]]:
    """The normal intervals of [lo, lo + span] left to judge against ``Q``: where the
    two boundaries coincide (same ellipses and disc, same supporting corner: an oval
    against two parts of one hull base or wall) the piece lies on ``Q``'s boundary and
    cannot enter it, so those normals are taken out."""
    if Q is None:
        return [(lo, span)]
    sh = shared_normals(body, Q)
    if not sh:
        return [(lo, span)]
    out = []
    cur = lo
    end = lo + span
    # the shared intervals, unrolled round the circle from lo
    iv = []
    for a, b in sh:
        for k in (-1, 0, 1, 2):
            iv.append((a + k * _TWO_PI, b + k * _TWO_PI))
    for a, b in sorted(iv):
        if b <= cur or a >= end:
            continue
        if a > cur:
            out.append((cur, a - cur))
        cur = max(cur, b)
    if cur < end:
        out.append((cur, end - cur))
    return out


#: most tangent triangles judged for one (piece, C-obstacle) pair before giving up
MAX_TRIANGLES = 24


def curve_penetrates(cs: _CSet, q: int, body: SmoothBody, lo: float, span: float, tol: float = TOL,
                     max_tri: int = MAX_TRIANGLES) -> int:
    """Does the boundary of ``body`` between normals lo and lo + span penetrate
    C-obstacle ``q`` deeper than ``tol``? 1 yes, 0 no, -1 undecided after ``max_tri``
    triangles (the caller must treat it as possibly blocked). (See the module
    docstring.)"""
    parts, flats = _cut_flats(body, lo, span)
    for a, b in flats:
        if not segment_clear(cs, q, a, b, tol):
            return 1
    Q = _body_of(cs, q) if not cs.exact[q] else None
    stack = [iv for l0, s0 in parts for iv in _unshared(body, Q, l0, s0)]
    cq, rq = cs.centre[q], float(cs.radius[q])
    n_tri = 0
    while stack:
        l0, s = stack.pop()
        if s > math.pi / 2:
            m = _split_normal(body, l0, s)
            stack += [(l0, m - l0), (m, l0 + s - m)]
            continue
        a = body.point(l0, 1)
        b = body.point(l0 + s, -1)
        if _point_pen(cs, q, a, tol) or _point_pen(cs, q, b, tol):
            return 1
        if s <= 1e-12:
            continue
        n_tri += 1
        if n_tri > max_tri:
            return -1
        u0 = np.array([math.cos(l0), math.sin(l0)])
        u1 = np.array([math.cos(l0 + s), math.sin(l0 + s)])
        det = u0[0] * u1[1] - u0[1] * u1[0]
        h0, h1 = body.h(l0), body.h(l0 + s)
        apex = np.array([(h0 * u1[1] - h1 * u0[1]) / det, (u0[0] * h1 - u1[0] * h0) / det])
        ch = b - a
        L = float(math.hypot(ch[0], ch[1]))
        height = abs(float(ch[0] * (apex[1] - a[1]) - ch[1] * (apex[0] - a[0]))) / L if L > 0 else 0.0
        tri = np.asarray([a, apex, b])
        m = tri.mean(axis=0)
        if float(np.hypot(*(m - cq))) >= float(np.max(np.hypot(*(tri - m).T))) + rq + tol:
            continue  # the triangle's circle misses the other's bounding circle
        if height < LEAF_HEIGHT:
            # the piece is straight (a flat side) or within `height` of its chord: the
            # chord's exact (decision-grade) signed distance decides, to that height
            sdc = float(cs.sd_pairs(a[None], b[None], np.asarray([q]), tol=tol + height)[0])
            if sdc < -tol - height:
                return 1
            continue
        sd = _tri_state(cs, q, tri, tol, (l0, l0 + s))
        if sd is not None and sd >= -tol:
            continue
        m = _split_normal(body, l0, s)
        stack += [(l0, m - l0), (m, l0 + s - m)]
    return 0


def curve_hits(
    cs: _CSet, qs: np.ndarray, p: Piece, skip: set[int] | None = None, tol: float = TOL,
    unsure: list[int] | None = None, max_tri: int = MAX_TRIANGLES,
) -> list[int]:
    """C-obstacles among ``qs`` (other than ``skip``, by default the piece's own) that
    the curve piece penetrates deeper than ``tol``. Pairs left undecided (see
    :func:`curve_penetrates`) count as penetrated and are also listed in ``unsure``."""
    body: SmoothBody = p.body
    if skip is None:
        skip = own_obstacles(cs, body)
    lo, span = curve_interval(p)
    c = body.center()
    R = body.bound_radius()
    qs = np.asarray(qs, dtype=int)
    near = qs[np.hypot(*(cs.centre[qs] - c).T) <= cs.radius[qs] + R + tol] if len(qs) else qs
    out = []
    for q in near:
        if int(q) in skip:
            continue
        v = curve_penetrates(cs, int(q), body, lo, span, tol, max_tri)
        if v:
            out.append(int(q))
        if v < 0 and unsure is not None:
            unsure.append(int(q))
    return out


__all__ = [
    "curve_box_ok",
    "curve_from_dict",
    "curve_hits",
    "curve_interval",
    "curve_penetrates",
    "curve_points",
    "make_curve",
    "own_obstacles",
    "segment_clear",
]
