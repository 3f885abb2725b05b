"""The outside referee's exact geometry: signed separations and their least value
along a circular arc, with no scan of directions and no points sampled along an arc.

Imports nothing from chargeref (nor from ``referee``: shapes are read through their
fields ``kind, cx, cy, a, b, heading`` and ``support(ux, uy)``).

Conventions. For a moving shape A (its centre at q) and a fixed shape B the signed
separation is ``sep(q) = max_w (w.q - h_B(w) - h_A0(-w))`` over unit w (h the support
function, A0 the mover centred at the origin): the signed distance from q to the convex
set ``K = B + (-A0)``. Positive it is the gap, negative minus the depth of overlap.
Two facts carry everything here:

* for ANY unit w, ``l_w(q) = w.q - h_B(w) - h_A0(-w)`` is a lower bound of sep(q)
  everywhere, equal to it when w is the maximiser at q (a supporting line);
* ``sep_{K + disc(r)} = sep_K - r`` for a convex K (its support grows by r in every
  direction), so a round base only shifts the answer by its radius.

Static pairs (:func:`separation`):

* disc-disc: centre distance minus the radii;
* a disc against a rectangle: the signed distance of the centre to the box (outside the
  distance to the box, inside minus the distance to its nearest side), minus the radius;
* a disc against an ellipse: the point-ellipse distance (secular equation, bisected to
  the last bit; inside the ellipse the interior branch of the same equation), minus the
  radius;
* rectangle-rectangle (walls are rectangles): the point form against K, the Minkowski
  polygon: inside it (overlap) the largest excess over its half-planes, whose normals are
  the eight edge normals of the two (a convex polygon's depth is decided by its sides);
  outside it the distance to its boundary. ``rect_rect_separation`` computes the same
  from the corners (edge normals, else the least corner-to-edge distance) as a check;
* a pair with an ellipse and no disc: ``f(u) = -h_B(-u) - h_A(u)`` (u at angle theta) maximised
  by branch and bound over the circle of directions with a certified bound: between the
  rectangles' normals f is smooth and ``|f''| <= M = |c_B - c_A| + M_A + M_B`` (an
  ellipse's support has ``|h''| = |rho - h| <= a^2/b``, a rectangle's between its
  normals ``|h''| = |v.w| <= |v|`` for its corner v), so on an interval of width L the
  maximum is at most ``max(f(ends)) + M L^2 / 8``; intervals are split until that bound
  is within 1e-10 of the best value found.

Along an arc (:func:`least_separation_along_arc`; the centre moves on a circle):

* disc-disc: the distance from the arc to a point, in closed form (the circle's nearest
  point if its angle is on the arc, else the nearer end);
* a disc and a rectangle, or two rectangles: K is a convex polygon P (the rectangle, or
  the Minkowski sum of the two) grown by a radius. Inside P, ``sep = max_i(n_i.q - o_i)``
  over its sides; along the arc each term is a sinusoid, so the least value of that
  maximum is at an arc end, at a term's own minimum or where two terms are equal (a
  cosine equation, closed form). When that least value is positive the arc stays
  outside P and the answer is the least distance from the arc to P's sides: for each
  side the arc ends against the segment, the segment ends against the arc, and the arc
  point whose radius is perpendicular to the segment;
* anything with an ellipse: branch and bound over the arc's angle with the supporting
  lines above as certified lower bounds (on an interval the least of ``l_w`` for the
  maximisers w at its two ends, a sinusoid's minimum in closed form); intervals are
  split until every lower bound is within 1e-10 of the least value found. Evaluations
  are the static separations (certified to 1e-10), so the answer is within 1e-9.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

TAU = 2 * math.pi
BB_TOL = 1e-10
MAX_STEPS = 200_000  # a safety stop for the branch and bound: exceeding it raises


# ----------------------------------------------------------------------- polygons


def rect_vertices(s: Any) -> list[tuple[float, float]]:
    """The corners of a rectangle shape, counter-clockwise."""
    c, si = math.cos(s.heading), math.sin(s.heading)
    out = []
    for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
        u, v = sx * s.a, sy * s.b
        out.append((s.cx + u * c - v * si, s.cy + u * si + v * c))
    return out


def _hull(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull, counter-clockwise, no collinear points (monotone chain)."""
    pts = sorted(set(pts))
    if len(pts) <= 2:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


Poly = tuple[list[tuple[float, float]], list[tuple[float, float, float]]]


def _rect_normals(s: Any) -> list[tuple[float, float]]:
    c, si = math.cos(s.heading), math.sin(s.heading)
    return [(c, si), (-si, c), (-c, -si), (si, -c)]


def _seg_point(p: tuple[float, float], q: tuple[float, float], x: float, y: float) -> float:
    dx, dy = q[0] - p[0], q[1] - p[1]
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, ((x - p[0]) * dx + (y - p[1]) * dy) / L2))
    return math.hypot(p[0] + t * dx - x, p[1] + t * dy - y)


def rect_poly(s: Any) -> Poly:
    """A rectangle as (corners counter-clockwise, half-planes ``n.q <= o``), the
    half-planes built from its own axes (no normal is derived from a short edge)."""
    return rect_vertices(s), [(nx, ny, s.support(nx, ny)) for nx, ny in _rect_normals(s)]


def minkowski_rects(B: Any, A: Any) -> Poly:
    """``K = B + (-A0)`` for two rectangles (A0 centred at the origin; a rectangle is its
    own mirror image through its centre): the hull of the corner sums, and the
    half-planes over the eight normals of both, ``n.q <= h_B(n) + h_A0(-n)``."""
    va = [(x - A.cx, y - A.cy) for x, y in rect_vertices(A)]
    verts = _hull([(bx + ax, by + ay) for bx, by in rect_vertices(B) for ax, ay in va])
    half = [(nx, ny, B.support(nx, ny) + A.support(-nx, -ny) + (nx * A.cx + ny * A.cy))
            for nx, ny in _rect_normals(A) + _rect_normals(B)]
    return verts, half


def polygon_point_w(P: Poly, x: float, y: float) -> tuple[float, float, float]:
    """Signed distance from a point to a convex polygon, and the maximiser w (the
    outward normal towards the point): inside, the largest half-plane excess (the
    nearest side); outside, the distance to the nearest point of its boundary."""
    verts, half = P
    nx, ny, o = max(half, key=lambda h: h[0] * x + h[1] * y - h[2])
    inside = nx * x + ny * y - o
    if inside <= 0:
        return inside, nx, ny
    # outside: the distance to the boundary (never below the half-plane excess; on the
    # boundary to rounding, where the nearest point's direction is lost, the excess
    # and its side's normal are the answer)
    best = (inside, nx, ny)
    dmin = math.inf
    for k in range(len(verts)):
        p, q = verts[k], verts[(k + 1) % len(verts)]
        dx, dy = q[0] - p[0], q[1] - p[1]
        L2 = dx * dx + dy * dy
        t = 0.0 if L2 == 0 else min(1.0, max(0.0, ((x - p[0]) * dx + (y - p[1]) * dy) / L2))
        gx, gy = x - p[0] - t * dx, y - p[1] - t * dy
        d = math.hypot(gx, gy)
        if d < dmin:
            dmin = d
            if d > inside:
                best = (d, gx / d, gy / d)
            else:
                best = (inside, nx, ny)
    return best


def rect_rect_separation(A: Any, B: Any) -> float:
    """Signed separation of two rectangles straight from their corners: over the eight
    edge normals when they overlap (a convex polygon's depth is decided by its sides),
    else the least corner-to-edge distance (a cross-check of the Minkowski form)."""
    VA, VB = rect_vertices(A), rect_vertices(B)
    best = max(min(nx * x + ny * y for x, y in VB) - max(nx * x + ny * y for x, y in VA)
               for nx, ny in _rect_normals(A) + _rect_normals(B))
    if best <= 0:
        return best
    return min(_seg_point(P[i], P[(i + 1) % 4], x, y) for P, Q in ((VA, VB), (VB, VA)) for i in range(4)
               for x, y in Q)


# ----------------------------------------------------------------------- ellipses


def _ellipse_nearest(a: float, b: float, x: float, y: float) -> tuple[float, float]:
    """The nearest point of the ellipse curve (x/a)^2 + (y/b)^2 = 1 to (x, y), all in
    the ellipse's frame. The nearest point is (a^2 x/(t+a^2), b^2 y/(t+b^2)) for the
    root t of F(t) = (a x/(t+a^2))^2 + (b y/(t+b^2))^2 - 1 with t > -min(a,b)^2, where F
    decreases (outside t > 0, inside t in (-min^2, 0]); bisection to the last bit. On
    the long axis inside, the nearest point is off the axis when the point is within
    the centre of curvature of the tip (closed form)."""
    sx, sy = (1.0 if x >= 0 else -1.0), (1.0 if y >= 0 else -1.0)
    x, y = abs(x), abs(y)
    swap = a < b
    if swap:
        a, b, x, y = b, a, y, x
    if a == b:
        r = math.hypot(x, y)
        px, py = (a, 0.0) if r == 0 else (a * x / r, a * y / r)
    elif y == 0.0 and (x / a) ** 2 <= 1.0:
        x0 = a * a * x / (a * a - b * b)
        if x0 < a:
            px, py = x0, b * math.sqrt(max(0.0, 1 - (x0 / a) ** 2))
        else:
            px, py = a, 0.0
    elif x == 0.0 and y <= b:
        px, py = 0.0, b  # inside on the short axis: the short tip is nearest
    else:
        def F(t: float) -> float:
            return (a * x / (t + a * a)) ** 2 + (b * y / (t + b * b)) ** 2 - 1.0

        if F(0.0) > 0:
            lo, hi = 0.0, a * math.hypot(x, y)
        else:
            lo, hi = -b * b, 0.0
        for _ in range(2200):
            mid = (lo + hi) / 2
            if mid <= lo or mid >= hi:
                break
            if F(mid) > 0:
                lo = mid
            else:
                hi = mid
        t = (lo + hi) / 2
        px, py = a * a * x / (t + a * a), b * b * y / (t + b * b)
    if swap:
        px, py = py, px
    return sx * px, sy * py


def ellipse_point(s: Any, x: float, y: float) -> tuple[float, float, float]:
    """(signed distance, wx, wy): the signed distance from (x, y) to a filled ellipse
    shape and the outward unit normal at its nearest boundary point (the maximiser w)."""
    c, si = math.cos(s.heading), math.sin(s.heading)
    dx, dy = x - s.cx, y - s.cy
    u, v = dx * c + dy * si, -dx * si + dy * c
    pu, pv = _ellipse_nearest(s.a, s.b, u, v)
    nu, nv = pu / (s.a * s.a), pv / (s.b * s.b)  # the gradient of the implicit equation
    nl = math.hypot(nu, nv)
    nu, nv = nu / nl, nv / nl
    d = math.hypot(u - pu, v - pv)
    inside = (u / s.a) ** 2 + (v / s.b) ** 2 < 1.0
    return (-d if inside else d), nu * c - nv * si, nu * si + nv * c


# ----------------------------------------------------------------------- static pairs


def _support0(s: Any, wx: float, wy: float) -> float:
    """The support of the shape centred at the origin."""
    return s.support(wx, wy) - (s.cx * wx + s.cy * wy)


def _rect_signed(s: Any, x: float, y: float) -> tuple[float, float, float]:
    c, si = math.cos(s.heading), math.sin(s.heading)
    dx, dy = x - s.cx, y - s.cy
    u, v = dx * c + dy * si, -dx * si + dy * c
    eu, ev = abs(u) - s.a, abs(v) - s.b
    if eu <= 0 and ev <= 0:  # inside: the nearest side
        if eu >= ev:
            nu, nv, d = math.copysign(1.0, u), 0.0, eu
        else:
            nu, nv, d = 0.0, math.copysign(1.0, v), ev
    else:
        gu, gv = max(eu, 0.0) * math.copysign(1.0, u), max(ev, 0.0) * math.copysign(1.0, v)
        d = math.hypot(gu, gv)
        nu, nv = gu / d, gv / d
    return d, nu * c - nv * si, nu * si + nv * c


def point_signed(s: Any, x: float, y: float) -> tuple[float, float, float]:
    """(signed distance from a point to the filled shape, the maximiser w)."""
    if s.kind == "disc":
        dx, dy = x - s.cx, y - s.cy
        r = math.hypot(dx, dy)
        return r - s.a, (1.0 if r == 0 else dx / r), (0.0 if r == 0 else dy / r)
    if s.kind == "rect":
        return _rect_signed(s, x, y)
    return ellipse_point(s, x, y)


def _bb_max(f: Any, kinks: list[float], M: float) -> tuple[float, float]:
    """Certified maximum over the circle of a function smooth between ``kinks`` with
    ``|f''| <= M``: returns (value, angle), the value within BB_TOL of the maximum."""
    cuts = sorted({k % TAU for k in kinks} | {0.0})
    pieces = []
    for i, a in enumerate(cuts):
        b = cuts[i + 1] if i + 1 < len(cuts) else TAU
        n = max(1, math.ceil((b - a) / (math.pi / 8)))
        pieces += [(a + (b - a) * j / n, a + (b - a) * (j + 1) / n) for j in range(n)]
    vals: dict[float, float] = {}

    def ev(t: float) -> float:
        if t not in vals:
            vals[t] = f(t)
        return vals[t]

    heap = []
    best, arg = -math.inf, 0.0
    for a, b in pieces:
        fa, fb = ev(a), ev(b)
        for v, t in ((fa, a), (fb, b)):
            if v > best:
                best, arg = v, t
        heapq.heappush(heap, (-(max(fa, fb) + M * (b - a) ** 2 / 8), a, b))
    steps = 0
    while heap:
        ub, a, b = heapq.heappop(heap)
        if -ub <= best + BB_TOL:
            break
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError("the separation's branch and bound did not converge")
        m = (a + b) / 2
        fm = ev(m)
        if fm > best:
            best, arg = fm, m
        for lo, hi in ((a, m), (m, b)):
            if hi - lo <= 1e-15:
                continue
            heapq.heappush(heap, (-(max(ev(lo), ev(hi)) + M * (hi - lo) ** 2 / 8), lo, hi))
    return best, arg


def _curv_bound(s: Any) -> float:
    if s.kind == "disc":
        return 0.0
    if s.kind == "rect":
        return math.hypot(s.a, s.b)
    return max(s.a, s.b) ** 2 / min(s.a, s.b)


def separation_w(A: Any, B: Any) -> tuple[float, float, float]:
    """(signed separation of A and B, a unit direction u from A towards B attaining it:
    ``sep = -h_B(-u) - h_A(u)``, the gap along u)."""
    if A.kind == "disc" and B.kind == "disc":
        dx, dy = B.cx - A.cx, B.cy - A.cy
        r = math.hypot(dx, dy)
        return r - A.a - B.a, (1.0 if r == 0 else dx / r), (0.0 if r == 0 else dy / r)
    if A.kind == "disc" or B.kind == "disc":
        disc, other = (A, B) if A.kind == "disc" else (B, A)
        d, wx, wy = point_signed(other, disc.cx, disc.cy)  # w points from `other` to the disc
        if disc is A:
            wx, wy = -wx, -wy
        return d - disc.a, wx, wy
    if A.kind == "rect" and B.kind == "rect":
        s, vx, vy = polygon_point_w(minkowski_rects(B, A), A.cx, A.cy)
        return s, -vx, -vy

    def f(t: float) -> float:
        ux, uy = math.cos(t), math.sin(t)
        return -B.support(-ux, -uy) - A.support(ux, uy)

    kinks = [n for s in (A, B) if s.kind == "rect" for n in (s.heading + k * math.pi / 2 for k in range(4))]
    M = math.hypot(B.cx - A.cx, B.cy - A.cy) + _curv_bound(A) + _curv_bound(B)
    v, t = _bb_max(f, kinks, M)
    return v, math.cos(t), math.sin(t)


def separation(A: Any, B: Any) -> float:
    return separation_w(A, B)[0]


# ----------------------------------------------------------------------- arcs


def arc_angles(seg: dict[str, Any]) -> tuple[float, float, float, float, float]:
    """(cx, cy, r, t0, span) of an arc piece: the centre at angle t0 + s for s from 0 to
    span (span < 0 clockwise), as the referee has always read ``from``, ``to``, ``ccw``."""
    c, r = seg["center"], float(seg["radius"])
    t0 = math.atan2(seg["from"][1] - c[1], seg["from"][0] - c[0])
    t1 = math.atan2(seg["to"][1] - c[1], seg["to"][0] - c[0])
    span = (t1 - t0) % TAU if seg.get("ccw", True) else -((t0 - t1) % TAU)
    return float(c[0]), float(c[1]), r, t0, span


def _in_span(t: float, t0: float, span: float) -> bool:
    """Whether angle t is on the arc from t0 through span."""
    if span >= 0:
        return (t - t0) % TAU <= span
    return (t0 - t) % TAU <= -span


def arc_point_distance(cx: float, cy: float, r: float, t0: float, span: float, x: float, y: float) -> float:
    """The least distance from the arc to a point (closed form)."""
    d = math.hypot(x - cx, y - cy)
    ends = min(math.hypot(cx + r * math.cos(t) - x, cy + r * math.sin(t) - y) for t in (t0, t0 + span))
    if d > 0 and _in_span(math.atan2(y - cy, x - cx), t0, span):
        return min(ends, abs(d - r))
    if d == 0:
        return r
    return ends


def _cos_roots(A: float, B: float, D: float) -> list[float]:
    """Angles t with A cos t + B sin t = D."""
    R = math.hypot(A, B)
    if R == 0 or abs(D) > R:
        return []
    phi = math.atan2(B, A)
    g = math.acos(max(-1.0, min(1.0, D / R)))
    return [phi + g, phi - g]


def _arc_segment_distance(cx: float, cy: float, r: float, t0: float, span: float,
                          p: tuple[float, float], q: tuple[float, float]) -> float:
    """Least distance from an arc to a segment that it does not cross: the arc ends
    against the segment, the segment ends against the arc, and the arc points whose
    radius is perpendicular to the segment (the only interior-interior candidates)."""
    cands = [_seg_point(p, q, cx + r * math.cos(t), cy + r * math.sin(t)) for t in (t0, t0 + span)]
    cands += [arc_point_distance(cx, cy, r, t0, span, *e) for e in (p, q)]
    dx, dy = q[0] - p[0], q[1] - p[1]
    for t in (math.atan2(-dx, dy), math.atan2(dx, -dy)):
        if _in_span(t, t0, span):
            cands.append(_seg_point(p, q, cx + r * math.cos(t), cy + r * math.sin(t)))
    return min(cands)


def arc_polygon_min(cx: float, cy: float, r: float, t0: float, span: float, P: Poly) -> float:
    """The least signed distance from a point of the arc to a convex polygon (closed
    form, see the module notes)."""
    verts, sides = P
    ts = [t0, t0 + span]
    for nx, ny, _o in sides:  # each term n.q - o = n.c - o + r (nx cos t + ny sin t) is least at -n
        ts.append(math.atan2(-ny, -nx))
    for i in range(len(sides)):
        for j in range(i + 1, len(sides)):
            (ax, ay, ao), (bx, by, bo) = sides[i], sides[j]
            # (a - b).c - ao + bo + r ((ax-bx) cos t + (ay-by) sin t) = 0
            ts += _cos_roots(r * (ax - bx), r * (ay - by), -((ax - bx) * cx + (ay - by) * cy - ao + bo))
    m = math.inf
    for t in ts:
        if t in (t0, t0 + span) or _in_span(t, t0, span):
            x, y = cx + r * math.cos(t), cy + r * math.sin(t)
            m = min(m, max(nx * x + ny * y - o for nx, ny, o in sides))
    if m <= 0:
        return m
    return min(_arc_segment_distance(cx, cy, r, t0, span, verts[i], verts[(i + 1) % len(verts)])
               for i in range(len(verts)))


def _sin_min(wx: float, wy: float, t0: float, t1: float) -> float:
    """min over t in [t0, t1] of wx cos t + wy sin t (closed form)."""
    lo, hi = min(t0, t1), max(t0, t1)
    m = min(wx * math.cos(lo) + wy * math.sin(lo), wx * math.cos(hi) + wy * math.sin(hi))
    R = math.hypot(wx, wy)
    tm = math.atan2(-wy, -wx)  # where the sinusoid is -R
    k = math.ceil((lo - tm) / TAU)
    if tm + k * TAU <= hi:
        m = -R
    return m


def arc_bb_min(mover: Any, cx: float, cy: float, r: float, t0: float, span: float, other: Any) -> float:
    """The least separation of ``mover`` (centre on the arc) from ``other`` by branch
    and bound over the arc's angle, with supporting lines as certified lower bounds."""

    def at(t: float) -> tuple[float, float, float, float]:
        x, y = cx + r * math.cos(t), cy + r * math.sin(t)
        m = _moved(mover, x, y)
        s, wx, wy = separation_w(m, other)
        # point form: sep(q) >= v.q - h_B(v) - h_A0(-v) with v = -w (w points from A to B)
        vx, vy = -wx, -wy
        const = vx * cx + vy * cy - other.support(vx, vy) - _support0(mover, -vx, -vy)
        return s, vx, vy, const

    def lb(ea: tuple[float, float, float, float], eb: tuple[float, float, float, float], a: float, b: float) -> float:
        return max(e[3] + r * _sin_min(e[1], e[2], a, b) for e in (ea, eb))

    a0, b0 = t0, t0 + span
    n = max(1, math.ceil(abs(span) / (math.pi / 16)))
    grid = [a0 + (b0 - a0) * j / n for j in range(n + 1)]
    evs = [at(t) for t in grid]
    best = min(e[0] for e in evs)
    heap = [(lb(evs[j], evs[j + 1], grid[j], grid[j + 1]), grid[j], grid[j + 1], evs[j], evs[j + 1])
            for j in range(n)]
    heapq.heapify(heap)
    steps = 0
    while heap:
        low, a, b, ea, eb = heapq.heappop(heap)
        if low >= best - BB_TOL:
            break
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError("the arc's branch and bound did not converge")
        m = (a + b) / 2
        em = at(m)
        best = min(best, em[0])
        for lo, hi, el, eh in ((a, m, ea, em), (m, b, em, eb)):
            if abs(hi - lo) > 1e-15:
                heapq.heappush(heap, (lb(el, eh, lo, hi), lo, hi, el, eh))
    return best


def _moved(s: Any, x: float, y: float) -> Any:
    return type(s)(s.kind, x, y, s.a, s.b, s.heading)


def least_separation_along_arc(mover: Any, seg: dict[str, Any], other: Any) -> float:
    """The least signed separation of ``mover`` (translated, its centre along the arc
    piece ``seg``) from ``other``: closed forms for discs and rectangles, a certified
    branch and bound (within 1e-9) when an ellipse is involved."""
    cx, cy, r, t0, span = arc_angles(seg)
    if mover.kind == "disc" and other.kind == "disc":
        return arc_point_distance(cx, cy, r, t0, span, other.cx, other.cy) - mover.a - other.a
    if mover.kind == "disc" and other.kind == "rect":
        return arc_polygon_min(cx, cy, r, t0, span, rect_poly(other)) - mover.a
    if mover.kind == "rect" and other.kind == "disc":
        # the mover's rectangle mirrored through its centre (itself) put on the disc's centre
        return arc_polygon_min(cx, cy, r, t0, span, rect_poly(_moved(mover, other.cx, other.cy))) - other.a
    if mover.kind == "rect" and other.kind == "rect":
        return arc_polygon_min(cx, cy, r, t0, span, minkowski_rects(other, mover))
    return arc_bb_min(mover, cx, cy, r, t0, span, other)
