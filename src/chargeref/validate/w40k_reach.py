"""40k validator: the shortest real path of a round base, built here (not taken from
``geometry.paths``), for the end-of-move duties' reach questions.

A round base of radius ``r`` may move its centre anywhere its disc does not enter an
obstacle deeper than TOL. Grow every obstacle by ``r`` and the centre becomes a point
that must stay out of the grown shapes. A grown disc is a circle; a grown wall
(capsule) is two circles round its ends joined by the two straight sides; a grown
polygon is one circle of radius ``r`` round each corner joined by the pushed-out
edges. The least path of a point among such shapes is made of straight pieces that
touch the circles tangentially and arcs along them (the straight sides of a grown
wall or polygon are tangents common to two of its corner circles). So the least
path is a shortest route in the graph whose nodes are the start and the tangent
points, and whose edges are the clear tangent segments (start to circle, circle to
circle) and the clear arcs between neighbouring tangent points of one circle
(:class:`ReachField`, Dijkstra). A goal ``p`` is then reached straight from the
start, or by one last tangent from some circle: the least cost over those.

Every piece is checked exactly against every obstacle: distances from a segment or
an arc to a point, to a segment and to a filled polygon are closed forms here. A
piece is clear when it comes no nearer to any obstacle core than the grown radius
less TOL, and keeps the centre on the board (the base wholly on it, within TOL).
Whatever this returns is the length of a path made of such pieces, so a spot it puts
within the budget is really reached. What it does not model, so that it can only
miss a spot, never invent one: an ellipse among the obstacles stands in as its
circumscribed polygon and a general convex sum as its enclosing disc (longer paths
round them); crossings that a move could pay for are not taken (every feature whose
crossing costs something is an obstacle here). Heights: the field is the horizontal
path; the caller adds the vertical change as every move counts it (:func:`vertical`),
and the obstacles are the models whose height lies between the move's two heights.

Other bases, translated without turning (:class:`Mover`): a rectangle or hull part
grows a disc into a rounded polygon (the part reflected, its corners circles of the
disc's radius), a wall into a rounded polygon (the hull of the wall's segment plus the
reflected part, corners of the wall's half thickness), a polygon into a polygon (its
corners circles of radius 0: the path bends at them). The least path is the same
graph of tangents and arcs, exact for these bases. An oval mover is its circumscribed
polygon (:data:`ELLIPSE_SIDES` sides): the field's least path is then a real path of
a larger base, an upper bound on the oval's least cost.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np

from ..budget import check as _budget_check
from ..geometry.shapes import TOL, Capsule, ConvexPolygon, Disc, Ellipse, Footprint
from ..systems.w40k.editions import edition as edition_of
from .w40k_state import Ctx, Placed, _crossing_cost

_BIG = frozenset({"MONSTER", "VEHICLE"})

TWO_PI = 2.0 * math.pi
#: pieces times obstacle cores tested in one array operation (memory stays small)
CHUNK = 200_000


# --------------------------------------------------------------------------- distances


def _point_seg(Q: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Distance from points Q to segments AB (broadcast over leading axes)."""
    ab = B - A
    L2 = np.sum(ab * ab, axis=-1)
    t = np.where(L2 > 0, np.sum((Q - A) * ab, axis=-1) / np.where(L2 > 0, L2, 1.0), 0.0)
    t = np.minimum(np.maximum(t, 0.0), 1.0)
    X = Q - (A + t[..., None] * ab)
    return np.hypot(X[..., 0], X[..., 1])


def _cross(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def _seg_hit(P: np.ndarray, Q: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Do segments PQ and AB cross properly (each line strictly separates the other's
    ends)? (broadcast)"""
    o1 = _cross(Q - P, A - P)
    o2 = _cross(Q - P, B - P)
    o3 = _cross(B - A, P - A)
    o4 = _cross(B - A, Q - A)
    return (o1 * o2 < 0) & (o3 * o4 < 0)


def _seg_seg(P: np.ndarray, Q: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Distance between segments PQ and AB (broadcast): 0 where they cross, else the
    least of the four end-to-segment distances."""
    d = np.minimum(np.minimum(_point_seg(P, A, B), _point_seg(Q, A, B)),
                   np.minimum(_point_seg(A, P, Q), _point_seg(B, P, Q)))
    o1 = _cross(Q - P, A - P)
    o2 = _cross(Q - P, B - P)
    o3 = _cross(B - A, P - A)
    o4 = _cross(B - A, Q - A)
    hit = (o1 * o2 < 0) & (o3 * o4 < 0)
    return np.where(hit, 0.0, d)


def _on_arc(phi: np.ndarray, th0: np.ndarray, span: np.ndarray) -> np.ndarray:
    """Does the angle ``phi`` lie on the arc running counter-clockwise from ``th0``
    through ``span`` (0 <= span < 2π)?"""
    return np.mod(phi - th0, TWO_PI) <= span + 1e-15


def _arc_point(c: np.ndarray, rho: np.ndarray, th0: np.ndarray, span: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Distance from points Q to arcs (broadcast): radially to the circle where Q's
    direction from the centre lies on the arc, else to the nearer end."""
    v = Q - c
    d = np.hypot(v[..., 0], v[..., 1])
    on = _on_arc(np.arctan2(v[..., 1], v[..., 0]), th0, span)
    e0 = c + rho[..., None] * np.stack([np.cos(th0), np.sin(th0)], axis=-1)
    e1 = c + rho[..., None] * np.stack([np.cos(th0 + span), np.sin(th0 + span)], axis=-1)
    de = np.minimum(np.hypot(*np.moveaxis(Q - e0, -1, 0)), np.hypot(*np.moveaxis(Q - e1, -1, 0)))
    return np.where(on, np.abs(d - rho), de)


def _arc_seg(c: np.ndarray, rho: np.ndarray, th0: np.ndarray, span: np.ndarray,
             A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Distance from arcs to segments AB (broadcast). The least distance between an arc
    and a segment is taken at an end of one of them, or where the arc point is one of
    the two circle points whose radius is normal to the segment's line (its foot then
    inside the segment), or is 0 where the segment crosses the arc."""
    e0 = c + rho[..., None] * np.stack([np.cos(th0), np.sin(th0)], axis=-1)
    e1 = c + rho[..., None] * np.stack([np.cos(th0 + span), np.sin(th0 + span)], axis=-1)
    out = np.minimum(_point_seg(e0, A, B), _point_seg(e1, A, B))
    out = np.minimum(out, np.minimum(_arc_point(c, rho, th0, span, A), _arc_point(c, rho, th0, span, B)))
    ab = B - A
    L = np.hypot(ab[..., 0], ab[..., 1])
    ok = L > 0
    Ls = np.where(ok, L, 1.0)
    u = ab / Ls[..., None]
    n = np.stack([-u[..., 1], u[..., 0]], axis=-1)
    for sgn in (1.0, -1.0):
        P = c + sgn * rho[..., None] * n
        t = np.sum((P - A) * u, axis=-1)
        on = ok & (t >= 0) & (t <= L) & _on_arc(np.arctan2(sgn * n[..., 1], sgn * n[..., 0]), th0, span)
        out = np.where(on, np.minimum(out, np.abs(np.sum((P - A) * n, axis=-1))), out)
    # crossings of the segment's line with the circle, on both
    tf = np.sum((c - A) * u, axis=-1)
    F = A + tf[..., None] * u
    h2 = rho * rho - np.sum((F - c) ** 2, axis=-1)
    h = np.sqrt(np.maximum(h2, 0.0))
    for sgn in (1.0, -1.0):
        t = tf + sgn * h
        X = A + t[..., None] * u
        on = ok & (h2 >= 0) & (t >= 0) & (t <= L) & _on_arc(np.arctan2(X[..., 1] - c[..., 1], X[..., 0] - c[..., 0]), th0, span)
        out = np.where(on, 0.0, out)
    return out


# --------------------------------------------------------------------------- obstacles


ELLIPSE_SIDES = 16
"""An ellipse (obstacle or mover) is planned as its circumscribed polygon of this many
sides: the affine image of the regular polygon round the unit circle, so every side
touches the ellipse and the polygon holds it. Paths clear for the polygon are clear for
the ellipse (a certified upper bound on the least cost, never a lower one)."""


def ellipse_polygon(E: Ellipse, n: int = ELLIPSE_SIDES) -> np.ndarray:
    """The vertices (counter-clockwise) of the polygon of ``n`` sides circumscribed
    about ``E``. The unit circle's circumscribed regular polygon has its corners at
    radius 1/cos(π/n); an affine map keeps tangency and containment. The corners are
    pushed out by a relative 1e-12 so rounding cannot leave the ellipse poking out."""
    t = (2.0 * np.arange(n) + 1.0) * math.pi / n
    k = (1.0 + 1e-12) / math.cos(math.pi / n)
    loc = np.stack([E.a * k * np.cos(t), E.b * k * np.sin(t)], axis=1)
    return loc @ E.R.T + E.center


def _hull(P: np.ndarray) -> np.ndarray:
    """Convex hull (counter-clockwise, monotone chain) of points P (n, 2); one point or
    two for a degenerate set."""
    pts = sorted({(float(x), float(y)) for x, y in P})
    if len(pts) <= 2:
        return np.asarray(pts, dtype=float).reshape(-1, 2)

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for q in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (q[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (q[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(q)
        return out

    lo, hi = half(pts), half(pts[::-1])
    H = np.asarray(lo[:-1] + hi[:-1], dtype=float)
    return H if len(H) >= 2 else np.asarray(pts[:1], dtype=float)


def _part_core(p: object) -> tuple[np.ndarray, float]:
    """An obstacle part as a convex core (points) and the radius it is grown by: a disc
    is its centre and radius, a wall (capsule) its segment and half thickness, a
    polygon itself, an ellipse its circumscribed polygon, anything else (a convex sum)
    its enclosing disc."""
    if isinstance(p, Disc):
        return np.asarray([p.c], dtype=float), float(p.r)
    if isinstance(p, Capsule):
        return np.asarray([p.p0, p.p1], dtype=float), float(p.r)
    if isinstance(p, ConvexPolygon):
        return np.asarray(p.V, dtype=float), 0.0
    if isinstance(p, Ellipse):
        return ellipse_polygon(p), 0.0
    c = p.center  # type: ignore[attr-defined]
    return np.asarray([c], dtype=float).reshape(1, 2), float(p.radius)  # type: ignore[attr-defined]


class Mover:
    """A base translated without turning, relative to its centre: its convex parts
    as cores (points) and radii (see :func:`_part_core`; an ellipse part is its
    circumscribed polygon, so for an oval the field is an upper bound), its reach
    from the centre and its extent along the axes (exact, from the true base)."""

    def __init__(self, base: Footprint | float, at: Sequence[float] = (0.0, 0.0)) -> None:
        o = np.asarray(at, dtype=float)[:2]
        if not isinstance(base, Footprint):
            self.parts = [(np.zeros((1, 2)), float(base))]
            r = float(base)
            self.extent = (-r, r, -r, r)
            self.reach = r
            self.exact = True
            self.stand_in = None
            return
        self.parts = []
        for p in base.parts:
            K, rho = _part_core(p)
            self.parts.append((K - o, rho))
        u = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
        h = np.max(np.stack([p.h(u) for p in base.parts]), axis=0) - np.array([o[0], -o[0], o[1], -o[1]])
        self.extent = (-float(h[1]), float(h[0]), -float(h[3]), float(h[2]))
        self.reach = max(float(np.max(np.hypot(K[:, 0], K[:, 1]))) + rho for K, rho in self.parts)
        #: the field's paths are least paths of this very base (no stand-in)
        self.exact = all(isinstance(p, (Disc, ConvexPolygon)) for p in base.parts)
        #: the base the field really plans, where it is not the base itself (an oval's
        #: circumscribed polygon, a convex sum's enclosing disc), at the start
        self.stand_in = None if self.exact else Footprint(tuple(
            p if isinstance(p, (Disc, ConvexPolygon, Capsule))
            else ConvexPolygon(tuple(map(tuple, ellipse_polygon(p)))) if isinstance(p, Ellipse)
            else Disc((float(p.center[0]), float(p.center[1])), float(p.radius)) for p in base.parts),
            base.kind, base.origin)

    @property
    def is_point(self) -> bool:
        return len(self.parts) == 1 and len(self.parts[0][0]) == 1


class _Cores:
    """The obstacles grown by the mover (configuration-space obstacles). Obstacle part
    O (core K_O grown by ρ_O) and mover part M (core K_M grown by ρ_M) collide when the
    centre lies in K_O ⊕ (−K_M) ⊕ disc(ρ_O + ρ_M): a convex core (the hull of the
    sums of corners) grown by ρ. Penetration depth is the centre's depth in that set.
    Cores grown by ρ > 0 are kept as points and segments each with the radius the
    centre must keep from it, plus the filled polygon (the centre may not be inside);
    cores with ρ = 0 (a polygon against a polygon) as *sharp* polygons, shrunk by TOL:
    a piece is blocked exactly when it meets the shrunk polygon's interior."""

    def __init__(self, obstacles: Sequence[Footprint], mover: Mover | float) -> None:
        if not isinstance(mover, Mover):
            mover = Mover(float(mover))
        pts: list[tuple[float, float, float]] = []
        segs: list[tuple[float, float, float, float, float]] = []
        circ: list[tuple[float, float, float]] = []
        self.polys: list[np.ndarray] = []
        self.sharp: list[np.ndarray] = []
        sharp_segs: list[tuple[float, float, float, float]] = []
        for fp in obstacles:
            for p in fp.parts:
                KO, rO = _part_core(p)
                for KM, rM in mover.parts:
                    K = KO if mover.is_point and not KM.any() else _hull((KO[:, None, :] - KM[None]).reshape(-1, 2))
                    rho = rO + rM
                    if rho > 0.0 or len(K) < 3:
                        if len(K) == 1:
                            pts.append((float(K[0, 0]), float(K[0, 1]), rho))
                        elif len(K) == 2:
                            segs.append((*map(float, K[0]), *map(float, K[1]), rho))
                        else:
                            self.polys.append(K)
                            W = np.roll(K, -1, axis=0)
                            segs.extend((a[0], a[1], b[0], b[1], rho) for a, b in zip(K, W, strict=True))
                        circ.extend((float(x), float(y), rho) for x, y in K)
                    else:
                        Ks = _shrunk(K, TOL)
                        if Ks is not None:
                            self.sharp.append(Ks)
                            W = np.roll(Ks, -1, axis=0)
                            sharp_segs.extend((a[0], a[1], b[0], b[1]) for a, b in zip(Ks, W, strict=True))
                        circ.extend((float(x), float(y), 0.0) for x, y in K)
        P = np.asarray(pts, dtype=float).reshape(-1, 3)
        S = np.asarray(segs, dtype=float).reshape(-1, 5)
        Z = np.asarray(sharp_segs, dtype=float).reshape(-1, 4)
        Cc = np.asarray(circ, dtype=float).reshape(-1, 3)
        self.pc, self.pr = P[:, :2], P[:, 2]
        self.sa, self.sb, self.sr = S[:, :2], S[:, 2:4], S[:, 4]
        self.za, self.zb = Z[:, :2], Z[:, 2:4]
        # the round pieces (corners) of the grown obstacles, each once
        self._C, self._R = Cc[:, :2], Cc[:, 2]

    def n(self) -> int:
        return max(1, len(self.pc) + len(self.sa) + len(self.za))

    def circles(self) -> tuple[np.ndarray, np.ndarray]:
        """The round pieces of the grown obstacles: centres and radii (radius 0 at the
        corners of sharp polygons)."""
        return self._C, self._R

    def inside_poly(self, Q: np.ndarray) -> np.ndarray:
        """Which points Q (n, 2) lie strictly inside some filled polygon (a grown
        core, or a sharp polygon shrunk by TOL)."""
        out = np.zeros(len(Q), dtype=bool)
        for V in self.polys + self.sharp:
            W = np.roll(V, -1, axis=0)
            s = _cross((W - V)[None], Q[:, None, :] - V[None])  # ccw polygon: all > 0 inside
            out |= (s > 0).all(axis=1)
        return out


def _shrunk(K: np.ndarray, t: float) -> np.ndarray | None:
    """The convex polygon K (ccw) with every edge moved in by ``t``: the points at
    depth more than ``t``. None when nothing is that deep."""
    W = np.roll(K, -1, axis=0)
    e = W - K
    L = np.hypot(e[:, 0], e[:, 1])
    if np.any(L <= 0):
        return None
    n = np.stack([-e[:, 1], e[:, 0]], axis=1) / L[:, None]  # inward normals (ccw)
    A = K + t * n  # a point on each moved edge
    # corner i: where moved edge i-1 meets moved edge i
    d0, d1 = np.roll(e, 1, axis=0), e
    a0, a1 = np.roll(A, 1, axis=0), A
    den = _cross(d0, d1)
    if np.any(np.abs(den) <= 1e-300):
        return None
    s = _cross(a1 - a0, d1) / den
    V = a0 + s[:, None] * d0
    # still convex and the same orientation (a polygon thinner than 2t vanishes)
    Wv = np.roll(V, -1, axis=0)
    if np.any(_cross(Wv - V, np.roll(V, -2, axis=0) - Wv) <= 0) or np.any(np.sum((Wv - V) * e, axis=1) <= 0):
        return None
    return V


# --------------------------------------------------------------------------- the field


class ReachField:
    """Least lengths of real paths of a round base (radius ``r``, centre ``start``)
    among ``obstacles`` on a ``board`` (width, depth), up to ``limit``: costs above
    it come back ``inf``. Build once per model; :meth:`cost` answers many goals."""

    def __init__(self, start: Sequence[float], r: float | Footprint | Mover, obstacles: Sequence[Footprint],
                 board: tuple[float, float], limit: float) -> None:
        self.s = np.asarray(start, dtype=float)[:2]
        mover = r if isinstance(r, Mover) else Mover(r, self.s) if isinstance(r, Footprint) else Mover(float(r))
        self.mover = mover
        #: the footprint the field plans in place of the base (None: the base itself)
        self.stand_in = mover.stand_in
        #: the mover's reach from its centre (its radius, for a round base)
        self.r = mover.reach
        self.limit = float(limit)
        W, D = board
        x0, x1, y0, y1 = mover.extent
        self.box = (-x0 - TOL, W - x1 + TOL, -y0 - TOL, D - y1 + TOL)
        # a path no longer than the limit stays in the disc of that radius round the start
        near = [fp for fp in obstacles
                if math.dist(self.s, fp.center) - fp.radius - self.r <= self.limit + TOL]
        self.cores = _Cores(near, mover)
        self.walls = [_as_modelled(fp) for fp in near]
        C, R = self.cores.circles()
        keep = np.hypot(*(C - self.s).T) - R <= self.limit
        self.C, self.R = C[keep], R[keep]
        self._build()

    # ----------------------------------------------------------------- clearance

    def _in_box(self, Q: np.ndarray) -> np.ndarray:
        x0, x1, y0, y1 = self.box
        return (Q[..., 0] >= x0) & (Q[..., 0] <= x1) & (Q[..., 1] >= y0) & (Q[..., 1] <= y1)

    def _cores_n(self) -> int:
        return self.cores.n()

    def seg_clear(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Which segments P[i]Q[i] a centre may follow (m,)."""
        P = np.atleast_2d(P)
        Q = np.atleast_2d(Q)
        step = max(1, CHUNK // self._cores_n())
        if len(P) > step:
            # in pieces: the pairwise arrays stay small
            return np.concatenate([self.seg_clear(P[i:i + step], Q[i:i + step]) for i in range(0, len(P), step)])
        ok = self._in_box(P) & self._in_box(Q)
        k = self.cores
        if len(k.pc):
            d = _point_seg(k.pc[None], P[:, None], Q[:, None])
            ok &= (d >= k.pr[None] - TOL).all(axis=1)
        if len(k.sa):
            d = _seg_seg(P[:, None], Q[:, None], k.sa[None], k.sb[None])
            ok &= (d >= k.sr[None] - TOL).all(axis=1)
        if len(k.za):
            ok &= ~_seg_hit(P[:, None], Q[:, None], k.za[None], k.zb[None]).any(axis=1)
        if k.polys or k.sharp:
            ok &= ~k.inside_poly(P) & ~k.inside_poly(Q)
        return ok

    def arc_clear(self, c: np.ndarray, rho: np.ndarray, th0: np.ndarray, span: np.ndarray) -> np.ndarray:
        """Which arcs (centre, radius, start angle, ccw span) a centre may follow."""
        c = np.atleast_2d(c)
        step = max(1, CHUNK // self._cores_n())
        if len(c) > step:
            return np.concatenate([self.arc_clear(c[i:i + step], rho[i:i + step], th0[i:i + step], span[i:i + step])
                                   for i in range(0, len(c), step)])
        e0 = c + rho[:, None] * np.stack([np.cos(th0), np.sin(th0)], axis=-1)
        ok = self._in_box(e0)
        # the arc's extreme coordinates: its ends and the axis directions it passes
        for a in (0.0, 0.5 * math.pi, math.pi, 1.5 * math.pi):
            X = c + rho[:, None] * np.array([math.cos(a), math.sin(a)])[None]
            ok &= ~_on_arc(np.full(len(c), a), th0, span) | self._in_box(X)
        e1 = c + rho[:, None] * np.stack([np.cos(th0 + span), np.sin(th0 + span)], axis=-1)
        ok &= self._in_box(e1)
        k = self.cores
        cc, rr, t0, sp = c[:, None], rho[:, None], th0[:, None], span[:, None]
        if len(k.pc):
            ok &= (_arc_point(cc, rr, t0, sp, k.pc[None]) >= k.pr[None] - TOL).all(axis=1)
        if len(k.sa):
            ok &= (_arc_seg(cc, rr, t0, sp, k.sa[None], k.sb[None]) >= k.sr[None] - TOL).all(axis=1)
        if len(k.za):
            # a sharp polygon shrunk by TOL: blocked where the arc meets an edge of it
            ok &= ~(_arc_seg(cc, rr, t0, sp, k.za[None], k.zb[None]) <= 0.0).any(axis=1)
        if k.polys or k.sharp:
            ok &= ~k.inside_poly(e0) & ~k.inside_poly(e1)
        return ok

    # ----------------------------------------------------------------- the graph

    def _build(self) -> None:
        C, R = self.C, self.R
        n = len(C)
        pts: list[np.ndarray] = [self.s[None]]
        owner: list[np.ndarray] = [np.array([-1])]
        edges: list[tuple[int, int, float]] = []
        # start to each circle: the two tangents
        T, own = _point_tangents(self.s, C, R)
        base = 1
        if len(T):
            ok = self.seg_clear(np.repeat(self.s[None], len(T), axis=0), T)
            L = np.hypot(*(T - self.s).T)
            for i in np.flatnonzero(ok & (L <= self.limit)):
                edges.append((0, base + int(i), float(L[i])))
            pts.append(T)
            owner.append(own)
            base += len(T)
        # circle to circle: the (up to) four common tangents of each pair
        if n > 1:
            i, j = np.triu_indices(n, 1)
            for P, Q, a, b in _bitangents(C, R, i, j):
                _budget_check()
                inside = (np.hypot(*(P - self.s).T) <= self.limit) & (np.hypot(*(Q - self.s).T) <= self.limit)
                P, Q, a, b = P[inside], Q[inside], a[inside], b[inside]
                if not len(P):
                    continue
                ok = self.seg_clear(P, Q)
                P, Q, a, b = P[ok], Q[ok], a[ok], b[ok]
                L = np.hypot(*(Q - P).T)
                m = len(P)
                pts += [P, Q]
                owner += [a, b]
                edges += [(base + k, base + m + k, float(L[k])) for k in range(m)]
                base += 2 * m
        self.P = np.vstack(pts)
        self.owner = np.concatenate(owner).astype(int)
        self.ang = np.zeros(len(self.P))
        if n:
            c = C[np.maximum(self.owner, 0)]
            self.ang = np.mod(np.arctan2(self.P[:, 1] - c[:, 1], self.P[:, 0] - c[:, 0]), TWO_PI)
        # arcs between neighbouring tangent points of each circle (both ways round)
        self.ring: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        arcs_c, arcs_r, arcs_t0, arcs_sp, arcs_ij = [], [], [], [], []
        for ci in range(n):
            idx = np.flatnonzero(self.owner == ci)
            if not len(idx):
                continue
            idx = idx[np.argsort(self.ang[idx], kind="stable")]
            self.ring[ci] = (idx, self.ang[idx])
            if len(idx) < 2:
                continue
            nxt = np.roll(idx, -1)
            sp = np.mod(self.ang[nxt] - self.ang[idx], TWO_PI)
            arcs_c.append(np.repeat(C[ci][None], len(idx), axis=0))
            arcs_r.append(np.full(len(idx), R[ci]))
            arcs_t0.append(self.ang[idx])
            arcs_sp.append(sp)
            arcs_ij.append(np.stack([idx, nxt], axis=1))
        if arcs_c:
            ac, ar = np.vstack(arcs_c), np.concatenate(arcs_r)
            at0, asp = np.concatenate(arcs_t0), np.concatenate(arcs_sp)
            aij = np.vstack(arcs_ij)
            ok = self.arc_clear(ac, ar, at0, asp)
            for k in np.flatnonzero(ok):
                edges.append((int(aij[k, 0]), int(aij[k, 1]), float(ar[k] * asp[k])))
            # (a part of a clear arc is clear: the queries need not test it again)
            self.arc_ok = {int(i): bool(v) for i, v in zip(aij[:, 0], ok, strict=True)}
        else:
            self.arc_ok = {}
        # Dijkstra from the start over the undirected graph
        adj: list[list[tuple[int, float]]] = [[] for _ in range(len(self.P))]
        for a, b, w in edges:
            adj[a].append((b, w))
            adj[b].append((a, w))
        dist = np.full(len(self.P), math.inf)
        dist[0] = 0.0
        heap = [(0.0, 0)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            _budget_check()
            for v, w in adj[u]:
                nd = d + w
                if nd < dist[v] and nd <= self.limit:
                    dist[v] = nd
                    heapq.heappush(heap, (nd, v))
        self.dist = dist

    # ----------------------------------------------------------------- queries

    def cost(self, goals: np.ndarray) -> np.ndarray:
        """Least length of a real path from the start to each goal centre (``inf`` when
        none within the limit, or when the goal itself is not a clear centre)."""
        G = np.atleast_2d(np.asarray(goals, dtype=float))
        out = np.full(len(G), math.inf)
        direct = self.seg_clear(np.repeat(self.s[None], len(G), axis=0), G)
        L = np.hypot(*(G - self.s).T)
        out[direct] = L[direct]
        # a clear straight line is the shortest path; a goal farther than the limit in a
        # straight line is out of reach whatever the way
        for gi in np.flatnonzero(~direct & (L <= self.limit)):
            _budget_check()
            out[gi] = self._via_circles(G[gi])
        out[out > self.limit] = math.inf
        return out

    @property
    def _ring_low(self) -> tuple[np.ndarray, np.ndarray]:
        """The circles with tangent points, and the least cost of a node on each."""
        got = self.__dict__.get("_ring_low_v")
        if got is None:
            cis = np.array(sorted(self.ring), dtype=int)
            low = np.array([float(np.min(self.dist[self.ring[int(ci)][0]])) for ci in cis])
            got = self.__dict__["_ring_low_v"] = (cis, low)
        return got

    def _via_circles(self, g: np.ndarray) -> float:
        """The least cost of reaching ``g`` by a last tangent from some circle."""
        if not self.ring:
            return math.inf
        cis, low = self._ring_low
        # a path ending by a tangent from circle i costs at least its cheapest node plus
        # the way from the circle to g: circles that cannot beat the limit are left out
        reach = low + np.maximum(np.hypot(*(self.C[cis] - g).T) - self.R[cis], 0.0)
        cis = cis[reach <= self.limit]
        if not len(cis):
            return math.inf
        T, own = _point_tangents(g, self.C[cis], self.R[cis])
        if not len(T):
            return math.inf
        own = cis[own]
        leg = np.hypot(*(T - g).T)
        # the tangent point's own cost: from its nearest graph node either way round
        phi = np.mod(np.arctan2(T[:, 1] - self.C[own, 1], T[:, 0] - self.C[own, 0]), TWO_PI)
        best = np.full(len(T), math.inf)
        ac, ar, at0, asp, who, node = [], [], [], [], [], []
        for k, (ci, ph) in enumerate(zip(own, phi, strict=True)):
            idx, angs = self.ring[int(ci)]
            j = int(np.searchsorted(angs, ph, side="right"))
            below, above = idx[(j - 1) % len(idx)], idx[j % len(idx)]
            whole = len(idx) > 1 and self.arc_ok.get(int(below), False)
            for nd, t0, sp in ((below, self.ang[below], np.mod(ph - self.ang[below], TWO_PI)),
                               (above, ph, np.mod(self.ang[above] - ph, TWO_PI))):
                if not math.isfinite(self.dist[nd]):
                    continue
                if whole:
                    # within the clear arc from ``below`` to ``above``
                    best[k] = min(best[k], self.dist[nd] + self.R[ci] * sp)
                    continue
                ac.append(self.C[ci])
                ar.append(self.R[ci])
                at0.append(t0)
                asp.append(sp)
                who.append(k)
                node.append(nd)
        arr = np.asarray
        ok = (self.arc_clear(arr(ac), arr(ar, dtype=float), arr(at0, dtype=float), arr(asp, dtype=float))
              if ac else np.zeros(0, dtype=bool))
        for m in np.flatnonzero(ok):
            k = who[m]
            best[k] = min(best[k], self.dist[node[m]] + ar[m] * asp[m])
        fin = np.isfinite(best) & (best + leg <= self.limit)
        if not fin.any():
            return math.inf
        ks = np.flatnonzero(fin)
        clear = self.seg_clear(T[ks], np.repeat(g[None], len(ks), axis=0))
        if not clear.any():
            return math.inf
        return float(np.min((best + leg)[ks[clear]]))


def _as_modelled(fp: Footprint) -> Footprint:
    """The obstacle as the field sees it: discs, walls and polygons as they are, an
    ellipse as its circumscribed polygon, any other part as its enclosing disc (where
    a clear centre may jump in cost)."""
    parts = tuple(p if isinstance(p, (Disc, Capsule, ConvexPolygon))
                  else ConvexPolygon(tuple(map(tuple, ellipse_polygon(p)))) if isinstance(p, Ellipse)
                  else Disc((float(p.center[0]), float(p.center[1])), float(p.radius)) for p in fp.parts)
    return Footprint(parts, fp.kind, fp.origin)


def board_lines(fld: ReachField) -> list[tuple[int, float]]:
    """The lines of centres where the field's board box ends (axis, value)."""
    x0, x1, y0, y1 = fld.box
    return [(0, x0), (0, x1), (1, y0), (1, y1)]


def _point_tangents(p: np.ndarray, C: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points where lines from ``p`` touch each circle (two per circle ``p`` lies
    outside of), with the index of the circle. A point on a circle or inside it by at
    most TOL (a centre touching the obstacle, which the tolerance lets stand there)
    joins the circle radially instead, at its projection onto it: without this a path
    to a spot at the edge of the tolerance would lose the circle it ends against."""
    v = p[None] - C
    d = np.hypot(v[:, 0], v[:, 1])
    ok = d > R
    i = np.flatnonzero(ok)
    a = np.arccos(R[i] / d[i])
    b = np.arctan2(v[i, 1], v[i, 0])
    two = R[i] > 0  # a corner of radius 0 is its own (single) tangent point
    T = [C[i] + R[i, None] * np.stack([np.cos(b + a), np.sin(b + a)], axis=1),
         (C[i] + R[i, None] * np.stack([np.cos(b - a), np.sin(b - a)], axis=1))[two]]
    k = np.flatnonzero(~ok & (d >= R - TOL) & (d > 0))
    T.append(C[k] + (R[k] / d[k])[:, None] * v[k])
    return np.vstack(T), np.concatenate([i, i[two], k])


def _bitangents(C: np.ndarray, R: np.ndarray, i: np.ndarray, j: np.ndarray):  # noqa: ANN202
    """The common tangents of circles i[k] and j[k]: for each kind (two outer, two
    inner) the touching points on both and the circles' indices. A tangent line with
    unit normal n touches circle 1 at c1 + r1 n and circle 2 at c2 + s r2 n (s = 1
    outer, -1 inner) when n · (c2 - c1) = r1 - s r2."""
    d = C[j] - C[i]
    D = np.hypot(d[:, 0], d[:, 1])
    ok0 = D > 0
    Ds = np.where(ok0, D, 1.0)
    u = d / Ds[:, None]
    w = np.stack([-u[:, 1], u[:, 0]], axis=1)
    zero_i, zero_j = R[i] == 0, R[j] == 0
    for s in (1.0, -1.0):
        cosa = (R[i] - s * R[j]) / Ds
        ok = ok0 & (np.abs(cosa) <= 1.0)
        if s < 0:
            ok &= ~(zero_i | zero_j)  # with a corner of radius 0 inner = outer tangents
        sina = np.sqrt(np.maximum(1.0 - cosa * cosa, 0.0))
        for sg in (1.0, -1.0):
            if sg < 0:
                ok = ok & ~(zero_i & zero_j)  # two corners: one segment
            n = u * cosa[:, None] + sg * w * sina[:, None]
            P = C[i] + R[i, None] * n
            Q = C[j] + s * R[j, None] * n
            yield P[ok], Q[ok], i[ok], j[ok]


def level_field(ctx: Ctx, s: Placed, limit: float, z_to: float | None = None) -> ReachField | None:
    """The real-path field of model ``s`` (any base, at the facing it has in ``s``, not
    turning) for a move from its height to ``z_to`` (its own height when None). The
    field measures the horizontal path; the caller adds the vertical change as any
    move counts it (:func:`vertical`). Obstacles: every model of another unit whose
    height lies between the two heights (within TOL) that it may not move through
    (enemies always, friends as the editions table says: all of them where friends
    may not be passed, a MONSTER or VEHICLE for a MONSTER or VEHICLE where big blocks
    big), and every feature whose crossing is refused or costs something. FLY is not
    used: a flying model is planned as a walking one (it may only lose paths). An
    oval is planned as its circumscribed polygon (``Mover``: an upper bound on its
    least path). One per model, base, heights and limit."""
    z1 = s.z if z_to is None else float(z_to)
    z_lo, z_hi = min(s.z, z1) - TOL, max(s.z, z1) + TOL
    key = ("reach", s.id, repr(s.fp.parts), s.xy, round(z_lo, 9), round(z_hi, 9), limit)
    got = ctx.duty_fields.get(key)  # type: ignore[call-overload]
    if got is None:
        ed = edition_of(ctx.edition)
        kw = ctx.keywords(s.unit)
        big = bool(kw & _BIG)
        obs: list[Footprint] = []
        for mid, p in ctx.start.items():
            if mid in ctx.casualties or p.unit == s.unit or not z_lo <= p.z <= z_hi:
                continue
            if p.player != s.player:
                obs.append(p.fp)
            elif not ed.friends_passable or (ed.big_blocks_big and big and bool(ctx.keywords(p.unit) & _BIG)):
                obs.append(p.fp)
        for f in ctx.features:
            c = _crossing_cost(ctx, f, kw)
            if c is None or c > 0:
                obs.append(f.fp)
        board = (float(ctx.before.board.width), float(ctx.before.board.depth))
        got = ReachField(s.xy, s.fp, obs, board, limit)
        ctx.duty_fields[key] = got  # type: ignore[index]
    return got  # type: ignore[return-value]


def vertical(ctx: Ctx, s: Placed, z_to: float, elevated_to: bool) -> float:
    """The vertical part of a move from ``s`` to height ``z_to`` as every move counts it
    (``w40k_state.path_cost``): the change of height when the move starts or ends on a
    ruin floor and the change exceeds the free climb; nothing otherwise."""
    dz = abs(z_to - s.z)
    return dz if (s.elevated or elevated_to) and dz > ctx.climb_free + TOL else 0.0
