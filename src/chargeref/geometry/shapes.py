"""Exact 2D footprints and the distances between them.

Every footprint is a union of *convex* parts (a disc, a true ellipse, a convex polygon,
a capsule, or a Minkowski sum of those). A convex part is known through its support
function ``h(u) = max_{p in part} u . p``, which is exact for all of them.

Distances
---------
The signed distance between two convex sets ``A`` and ``B`` is

    sd(A, B) = max over unit u of ( -h_B(-u) - h_A(u) )

which is the gap when they are apart and minus the penetration depth when they
overlap (separating-hyperplane duality). We use closed forms where they exist
(disc-disc, disc-polygon, point-ellipse by a bracketed root solve), for two ellipses
grown by discs the one-point certified solve of ``oval_distance`` (Newton on the
support angle), and otherwise a certified solve (``convex_distance``). Each of the
last two yields a proven lower bound (the
support gap of a direction) and a proven upper bound (two actual points, one on each
body, or the depth of a polygon inscribed in the difference body), and the solve
stops only when they are within ``SOLVE_TOL`` (1e-9 of the unit) of each other, far
inside the contract's comparison tolerance ``TOL`` (1e-6 of the unit). No direction
grid decides a value.

Nothing here knows about any game's rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .convex_distance import batch_overlap, batch_separated, solve
from .ellipse_point import _ellipse_point_sd1, ellipse_point_signed_distance
from .ellipse_polygon import ellipse_core_point, ellipse_core_sd
from .oval_distance import Pair, Smooth, apart_many, sd_certified
from .polygon_sd import _normals, core_point_sd, cores_translations_sd

#: The one comparison tolerance of the contract (in the scenario's unit).
TOL = 1e-6
#: Accuracy of numeric distance solves (well inside TOL).
SOLVE_TOL = 1e-9

Vec = np.ndarray


def _unit(angle: np.ndarray | float) -> np.ndarray:
    a = np.atleast_1d(np.asarray(angle, dtype=float))
    return np.stack([np.cos(a), np.sin(a)], axis=-1)


def rot(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


class Convex:
    """A compact convex set in the plane, known by its support function."""

    center: np.ndarray

    def support(self, u: np.ndarray) -> np.ndarray:  # (k,2) -> (k,2)
        raise NotImplementedError

    def h(self, u: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", u, self.support(u))

    @property
    def radius(self) -> float:
        """A radius about ``center`` that encloses the set."""
        raise NotImplementedError

    def translated(self, d: Sequence[float]) -> Convex:
        raise NotImplementedError

    def boundary(self, n: int = 64) -> np.ndarray:
        """Points on the boundary (for drawing only; never for verdicts)."""
        return self.support(_unit(np.linspace(0, 2 * math.pi, n, endpoint=False)))

    def circumscribed(self, n: int = 48) -> np.ndarray:
        """Vertices of a polygon that *contains* the set (tangent lines at n normals).

        Used where a conservative polygon is wanted (path clearance); the polygon's
        excess over the set is at most ``radius * (1/cos(pi/n) - 1)``.
        """
        ang = np.linspace(0, 2 * math.pi, n, endpoint=False)
        u = _unit(ang)
        hv = self.h(u)
        u2 = np.roll(u, -1, axis=0)
        h2 = np.roll(hv, -1)
        det = u[:, 0] * u2[:, 1] - u[:, 1] * u2[:, 0]
        x = (hv * u2[:, 1] - h2 * u[:, 1]) / det
        y = (u[:, 0] * h2 - u2[:, 0] * hv) / det
        return np.stack([x, y], axis=-1)


@dataclass(frozen=True, eq=False)
class Disc(Convex):
    c: tuple[float, float]
    r: float

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return np.asarray(self.c, dtype=float)

    def support(self, u: np.ndarray) -> np.ndarray:
        return self.center + self.r * u

    def h(self, u: np.ndarray) -> np.ndarray:
        return u @ self.center + self.r

    @property
    def radius(self) -> float:
        return self.r

    def translated(self, d: Sequence[float]) -> Disc:
        return Disc((self.c[0] + d[0], self.c[1] + d[1]), self.r)


@dataclass(frozen=True, eq=False)
class Ellipse(Convex):
    """A true ellipse: semi-axis ``a`` along angle ``theta`` (radians), ``b`` across."""

    c: tuple[float, float]
    a: float
    b: float
    theta: float

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return np.asarray(self.c, dtype=float)

    @cached_property
    def R(self) -> np.ndarray:
        return rot(self.theta)

    def support(self, u: np.ndarray) -> np.ndarray:
        loc = u @ self.R  # components in the ellipse frame (R^T u)
        ax, by = self.a * loc[:, 0], self.b * loc[:, 1]
        n = np.hypot(ax, by)
        p = np.stack([self.a * ax / n, self.b * by / n], axis=-1)
        return self.center + p @ self.R.T

    def h(self, u: np.ndarray) -> np.ndarray:
        loc = u @ self.R
        return u @ self.center + np.hypot(self.a * loc[:, 0], self.b * loc[:, 1])

    @property
    def radius(self) -> float:
        return max(self.a, self.b)

    def translated(self, d: Sequence[float]) -> Ellipse:
        return Ellipse((self.c[0] + d[0], self.c[1] + d[1]), self.a, self.b, self.theta)

    def point_distance(self, pts: np.ndarray) -> np.ndarray:
        """Signed distance from points to the ellipse boundary (negative inside)."""
        loc = (np.atleast_2d(pts) - self.center) @ self.R
        return ellipse_point_signed_distance(self.a, self.b, loc)


@dataclass(frozen=True, eq=False)
class ConvexPolygon(Convex):
    vertices: tuple[tuple[float, float], ...]

    @cached_property
    def V(self) -> np.ndarray:
        v = np.asarray(self.vertices, dtype=float)
        # counter-clockwise order
        area = np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1])
        return v if area >= 0 else v[::-1].copy()

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return self.V.mean(axis=0)

    def support(self, u: np.ndarray) -> np.ndarray:
        idx = np.argmax(u @ self.V.T, axis=1)
        return self.V[idx]

    def h(self, u: np.ndarray) -> np.ndarray:
        return np.max(u @ self.V.T, axis=1)

    @cached_property
    def _radius(self) -> float:
        return float(np.max(np.linalg.norm(self.V - self.center, axis=1)))

    @property
    def radius(self) -> float:
        return self._radius

    def translated(self, d: Sequence[float]) -> ConvexPolygon:
        return ConvexPolygon(tuple((x + d[0], y + d[1]) for x, y in self.vertices))

    def point_signed_distance(self, pts: np.ndarray) -> np.ndarray:
        """Exact signed distance from points to the polygon (negative inside)."""
        return polygon_point_signed_distance(self.V, np.atleast_2d(pts))

    def edge_normals(self) -> np.ndarray:
        e = np.roll(self.V, -1, axis=0) - self.V
        n = np.stack([e[:, 1], -e[:, 0]], axis=-1)
        return n / np.linalg.norm(n, axis=1, keepdims=True)


@dataclass(frozen=True, eq=False)
class Capsule(Convex):
    """A segment thickened by ``r`` (a round-ended wall piece, or a swept disc)."""

    p0: tuple[float, float]
    p1: tuple[float, float]
    r: float

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return (np.asarray(self.p0) + np.asarray(self.p1)) / 2

    def support(self, u: np.ndarray) -> np.ndarray:
        a, b = np.asarray(self.p0, float), np.asarray(self.p1, float)
        pick = (u @ a >= u @ b)[:, None]
        return np.where(pick, a, b) + self.r * u

    @property
    def radius(self) -> float:
        return float(np.linalg.norm(np.asarray(self.p1) - np.asarray(self.p0))) / 2 + self.r

    def translated(self, d: Sequence[float]) -> Capsule:
        return Capsule(
            (self.p0[0] + d[0], self.p0[1] + d[1]), (self.p1[0] + d[0], self.p1[1] + d[1]), self.r
        )


@dataclass(frozen=True, eq=False)
class Sum(Convex):
    """Minkowski sum of convex sets (e.g. a base swept along a straight segment)."""

    parts: tuple[Convex, ...]

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return np.sum([p.center for p in self.parts], axis=0)

    def support(self, u: np.ndarray) -> np.ndarray:
        return np.sum([p.support(u) for p in self.parts], axis=0)

    def h(self, u: np.ndarray) -> np.ndarray:
        return np.sum([p.h(u) for p in self.parts], axis=0)

    @property
    def radius(self) -> float:
        # enclosing radius about the summed centre
        return float(sum(p.radius + 0.0 for p in self.parts) + 0.0)

    def translated(self, d: Sequence[float]) -> Sum:
        return Sum((self.parts[0].translated(d),) + self.parts[1:])


def segment_sweep(shape: Convex, a: Sequence[float], b: Sequence[float]) -> Convex:
    """The region a convex base covers while translating from offset ``a`` to ``b``.

    ``shape`` is the base at the origin-relative position it has at the start; the
    sweep is ``shape + [0, b - a]`` (exact, convex).
    """
    d = (b[0] - a[0], b[1] - a[1])
    if isinstance(shape, Disc):
        return Capsule(shape.c, (shape.c[0] + d[0], shape.c[1] + d[1]), shape.r)
    return Sum((shape, Capsule((0.0, 0.0), d, 0.0)))


# ----------------------------------------------------------------------------------
# closed forms
# ----------------------------------------------------------------------------------


def polygon_point_signed_distance(V: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Signed distance from points P (n,2) to a convex CCW polygon V (m,2)."""
    A = V
    B = np.roll(V, -1, axis=0)
    AB = B - A  # (m,2)
    AP = P[:, None, :] - A[None, :, :]  # (n,m,2)
    t = np.clip(np.einsum("nmk,mk->nm", AP, AB) / np.einsum("mk,mk->m", AB, AB), 0.0, 1.0)
    closest = A[None] + t[..., None] * AB[None]
    d = np.min(np.linalg.norm(P[:, None, :] - closest, axis=-1), axis=1)
    cross = AB[None, :, 0] * AP[..., 1] - AB[None, :, 1] * AP[..., 0]
    inside = np.all(cross >= 0, axis=1)
    return np.where(inside, -d, d)


# ----------------------------------------------------------------------------------
# generic convex-convex signed distance
# ----------------------------------------------------------------------------------


def _sep(A: Convex, B: Convex, th: np.ndarray) -> np.ndarray:
    u = _unit(th)
    return -B.h(-u) - A.h(u)


def least_curvature_radius(p: Convex) -> float:
    """A lower bound on the radius of curvature of a convex part's boundary (0 where
    it has corners)."""
    if isinstance(p, Disc):
        return float(p.r)
    if isinstance(p, Ellipse):
        return float(min(p.a, p.b) ** 2 / max(p.a, p.b))
    if isinstance(p, Capsule):
        return float(p.r)
    if isinstance(p, Sum):
        return float(sum(least_curvature_radius(q) for q in p.parts))
    return 0.0


def _round(p: Convex) -> Convex:
    """An ellipse whose axes are equal is a disc (its closed forms are exact)."""
    if isinstance(p, Ellipse) and p.a == p.b:
        return Disc(p.c, p.a)
    return p


def convex_signed_distance(A: Convex, B: Convex) -> float:
    """Signed distance between two convex parts (gap, or minus penetration depth)."""
    A, B = _round(A), _round(B)
    if isinstance(A, Disc) and isinstance(B, Disc):
        return float(np.hypot(*(B.center - A.center)) - A.r - B.r)
    if isinstance(A, Disc) and isinstance(B, ConvexPolygon):
        return float(B.point_signed_distance(A.center[None])[0] - A.r)
    if isinstance(B, Disc) and isinstance(A, ConvexPolygon):
        return float(A.point_signed_distance(B.center[None])[0] - B.r)
    if isinstance(A, Disc) and isinstance(B, Ellipse):
        return _disc_ellipse(A, B)
    if isinstance(B, Disc) and isinstance(A, Ellipse):
        return _disc_ellipse(B, A)
    ca, cb = _core(A), _core(B)
    if ca is not None and cb is not None:
        return core_signed_distance(ca[0], cb[0]) - ca[1] - cb[1]
    # the general case (ellipses, sums): the certified solve
    return float(translations_signed_distance(A, B, np.zeros((1, 2)))[0])


def _core(p: Convex) -> tuple[np.ndarray, float] | None:
    """A part as (convex polygon core, radius) when it is one: polygon (r = 0),
    capsule (a segment core) or disc (a point core). None for ellipses and sums."""
    if isinstance(p, ConvexPolygon):
        return p.V, 0.0
    if isinstance(p, Capsule):
        return np.array([p.p0, p.p1], dtype=float), p.r
    if isinstance(p, Disc):
        return p.center[None], p.r
    return None


def _seg_pt(a: np.ndarray, b: np.ndarray, P: np.ndarray) -> np.ndarray:
    ab = b - a
    L2 = float(ab @ ab)
    t = np.zeros(len(P)) if L2 == 0 else np.clip(((P - a) @ ab) / L2, 0.0, 1.0)
    return np.linalg.norm(P - (a + t[:, None] * ab), axis=1)


def core_signed_distance(VA: np.ndarray, VB: np.ndarray) -> float:
    """Exact signed distance between two convex polygons (points and segments allowed):
    apart, the least vertex-to-edge distance; overlapping, minus the penetration depth
    from the separating axes (every edge normal of either polygon)."""
    N = np.vstack([_normals(VA), _normals(VB)])
    if len(N):
        # separation along each axis: min over B of n.b - max over A of n.a
        sep = np.min(VB @ N.T, axis=0) - np.max(VA @ N.T, axis=0)
        best = float(np.max(sep))
    else:
        best = 1.0  # two points: never overlapping in area
    if best <= 0.0:
        return best
    d = np.inf
    for V, W in ((VA, VB), (VB, VA)):
        if len(W) == 1:
            d = min(d, float(np.min(np.linalg.norm(V - W[0], axis=1))))
            continue
        ring = W if len(W) > 2 else W
        n = len(ring)
        edges = [(ring[i], ring[(i + 1) % n]) for i in range(n if n > 2 else 1)]
        for a, b in edges:
            d = min(d, float(np.min(_seg_pt(a, b, V))))
    return d


def _disc_ellipse(D: Disc, E: Ellipse) -> float:
    d = float(E.point_distance(D.center[None])[0])
    return d - D.r


# ----------------------------------------------------------------------------------
# footprints: unions of convex parts
# ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Footprint:
    """A base (or any obstacle) as a union of convex parts."""

    parts: tuple[Convex, ...]
    kind: str = "polygon"
    origin: tuple[float, float] | None = None
    meta: dict = field(default_factory=dict, compare=False)

    @cached_property
    def center(self) -> np.ndarray:
        """The model centre (the ``at`` point), or the parts' mean centre."""
        if self.origin is not None:
            return np.asarray(self.origin, dtype=float)
        return np.mean([p.center for p in self.parts], axis=0)

    @cached_property
    def radius(self) -> float:
        """Enclosing radius about ``center``."""
        c = self.center
        return max(float(np.linalg.norm(p.center - c)) + p.radius for p in self.parts)

    def translated(self, d: Sequence[float]) -> Footprint:
        o = None if self.origin is None else (self.origin[0] + d[0], self.origin[1] + d[1])
        return Footprint(tuple(p.translated(d) for p in self.parts), self.kind, o, self.meta)

    def moved_to(self, xy: Sequence[float]) -> Footprint:
        c = self.center
        return self.translated((xy[0] - c[0], xy[1] - c[1]))

    @cached_property
    def is_disc(self) -> bool:
        return len(self.parts) == 1 and isinstance(self.parts[0], Disc)

    def boundary(self, n: int = 96) -> np.ndarray:
        """Outline for drawing (single convex part) or the first part's outline."""
        if len(self.parts) == 1:
            p = self.parts[0]
            if isinstance(p, ConvexPolygon):
                return p.V
            return p.boundary(n)
        import shapely

        polys = [shapely.Polygon(p.V if isinstance(p, ConvexPolygon) else p.boundary(n)) for p in self.parts]
        u = shapely.union_all(polys)
        if u.geom_type == "Polygon":
            return np.asarray(u.exterior.coords)[:-1]
        return np.asarray(u.convex_hull.exterior.coords)[:-1]


def signed_distance(A: Footprint, B: Footprint) -> float:
    """Signed distance between footprints: the least over part pairs. Negative means the
    two overlap (by at least that much in one part pair)."""
    ca, cb = A.center, B.center
    gap_lb = float(np.linalg.norm(cb - ca)) - A.radius - B.radius
    if gap_lb > 0 and len(A.parts) == 1 and len(B.parts) == 1 and A.is_disc and B.is_disc:
        return gap_lb
    return min(convex_signed_distance(p, q) for p in A.parts for q in B.parts)


def distance(A: Footprint, B: Footprint) -> float:
    """Closest distance between two footprints (0 when they touch or overlap)."""
    return max(0.0, signed_distance(A, B))


def overlaps(A: Footprint, B: Footprint, tol: float = TOL) -> bool:
    """True when the interiors intersect by more than ``tol``."""
    ca, cb = A.center, B.center
    if float(np.linalg.norm(cb - ca)) > A.radius + B.radius + tol:
        return False
    return signed_distance(A, B) < -tol


def within(A: Footprint, B: Footprint, d: float, tol: float = TOL) -> bool:
    """'Within d' includes equality, up to the contract tolerance."""
    ca, cb = A.center, B.center
    if float(np.linalg.norm(cb - ca)) - A.radius - B.radius > d + tol:
        return False
    return signed_distance(A, B) <= d + tol


# ----------------------------------------------------------------------------------
# vectorised: many candidate centres of one base against one fixed footprint
# ----------------------------------------------------------------------------------


def disc_centres_signed_distance(centres: np.ndarray, r: float, fixed: Footprint) -> np.ndarray:
    """Signed distance from a disc of radius r placed at each centre to ``fixed``
    (exact closed forms for disc, polygon and ellipse parts)."""
    centres = np.atleast_2d(np.asarray(centres, float))
    best = np.full(len(centres), np.inf)
    for p in fixed.parts:
        if isinstance(p, Disc):
            d = np.linalg.norm(centres - p.center, axis=1) - p.r
        elif isinstance(p, ConvexPolygon):
            d = p.point_signed_distance(centres)
        elif isinstance(p, Ellipse):
            d = p.point_distance(centres)
        elif isinstance(p, Capsule):
            a, b = np.asarray(p.p0, float), np.asarray(p.p1, float)
            ab = b - a
            L2 = float(ab @ ab)
            t = np.zeros(len(centres)) if L2 == 0 else np.clip(((centres - a) @ ab) / L2, 0, 1)
            d = np.linalg.norm(centres - (a + t[:, None] * ab), axis=1) - p.r
        else:
            d = np.array([convex_signed_distance(Disc((float(c[0]), float(c[1])), 0.0), p) for c in centres])
        best = np.minimum(best, d)
    return best - r


def pairwise_disc_distances(P: np.ndarray, rp: np.ndarray, Q: np.ndarray, rq: np.ndarray) -> np.ndarray:
    """Signed distance matrix between discs (centres P radii rp) and (Q, rq)."""
    d = np.linalg.norm(P[:, None, :] - Q[None, :, :], axis=-1)
    return d - rp[:, None] - rq[None, :]


def footprint_distance_matrix(A: Sequence[Footprint], B: Sequence[Footprint]) -> np.ndarray:
    """Signed distances between every footprint of A and every one of B; discs take the
    vectorised closed form, others the exact per-pair solve."""
    n, m = len(A), len(B)
    out = np.empty((n, m))
    if n == 0 or m == 0:
        return out
    da = np.array([f.is_disc for f in A])
    db = np.array([f.is_disc for f in B])
    ca = np.array([f.center for f in A])
    cb = np.array([f.center for f in B])
    ra = np.array([f.radius for f in A])
    rb = np.array([f.radius for f in B])
    out[:] = pairwise_disc_distances(ca, ra, cb, rb)  # exact for disc pairs, a lower bound otherwise
    for i in range(n):
        for j in range(m):
            if not (da[i] and db[j]):
                out[i, j] = signed_distance(A[i], B[j])
    return out


def make_polygon_parts(points: Iterable[Sequence[float]]) -> tuple[Convex, ...]:
    """Convex parts of a simple polygon: itself if convex, else a triangulation."""
    import shapely

    pts = [(float(x), float(y)) for x, y in points]
    poly = shapely.Polygon(pts)
    if not poly.is_valid:
        poly = poly.buffer(0)
    hull = poly.convex_hull
    if abs(hull.area - poly.area) <= 1e-12 * max(1.0, hull.area):
        return (ConvexPolygon(tuple(tuple(c) for c in np.asarray(hull.exterior.coords)[:-1])),)
    tris = shapely.constrained_delaunay_triangles(poly)
    parts: list[Convex] = []
    for t in tris.geoms:
        parts.append(ConvexPolygon(tuple(tuple(c) for c in np.asarray(t.exterior.coords)[:-1])))
    return tuple(parts)


def to_shapely(fp: Footprint, n: int = 64, circumscribed: bool = False):
    """A shapely polygon of the footprint: for drawing or for conservative clearance
    (``circumscribed=True`` contains the true set)."""
    import shapely

    polys = []
    for p in fp.parts:
        if isinstance(p, ConvexPolygon):
            polys.append(shapely.Polygon(p.V))
        elif circumscribed:
            polys.append(shapely.Polygon(p.circumscribed(n)))
        else:
            polys.append(shapely.Polygon(p.boundary(n)))
    return shapely.union_all(polys) if len(polys) > 1 else polys[0]


# ----------------------------------------------------------------------------------
# vectorised: many translations of one convex part against one fixed convex part
# ----------------------------------------------------------------------------------

_GRID = 64
#: from this many translations on, the apart rows of two smooth parts are solved as arrays
_MANY = 8


def translations_signed_distance(A0: Convex, B: Convex, P: np.ndarray, tol: float = SOLVE_TOL) -> np.ndarray:
    """Signed distance between ``A0 + p`` and ``B`` for every translation p in P (n,2),
    certified to within ``tol`` (default 1e-9 of the unit).

    sd(A0+p, B) = max_u [ -h_B(-u) - h_A0(u) - u.p ]. Discs and polygonal cores take
    closed forms (a disc against a polygon or an ellipse either way round). Two
    ellipses grown by discs take ``oval_distance`` (the apart rows as arrays from
    ``_MANY`` rows on, the rest one by one; a row it does not certify goes on below).
    Otherwise (``convex_distance``): the support points of the two bodies
    on 64 evenly spread directions are shared by every row; a row with a positive value
    among them is separated, and its maximum is bisected inside the proven bracket
    round the best of them (``batch_separated``; the support function is concave in
    the angle wherever it is positive); every other row, and any row that
    bracket does not certify, is solved by the certified polygon loop (``solve``),
    which starts from those same support points. Each value returned lies within tol
    of a lower bound (a direction's support gap) and an upper bound (two actual
    points, or the depth of a polygon inscribed in the difference body).
    """
    P = np.atleast_2d(np.asarray(P, dtype=float))
    n = len(P)
    if n == 0:
        return np.zeros(0)
    A0, B = _round(A0), _round(B)
    if isinstance(A0, Disc) and isinstance(B, (Disc, ConvexPolygon, Ellipse)):
        pts = P + A0.center
        fp = Footprint((B,))
        return disc_centres_signed_distance(pts, A0.r, fp)
    if isinstance(B, Disc) and isinstance(A0, (ConvexPolygon, Ellipse)):
        # the same closed forms seen from the disc: B's centre against A0 moved by p
        # is B's centre moved by -p against A0
        fp = Footprint((A0,))
        return disc_centres_signed_distance(B.center - P, B.r, fp)
    ca, cb = _core(A0), _core(B)
    if ca is not None and cb is not None:
        # polygonal cores: the exact closed form, every translation at once
        return cores_translations_sd(ca[0], cb[0], P) - ca[1] - cb[1]
    sa, sb = smooth_part(A0), smooth_part(B)
    if sa is not None and sa.a > 0.0 and cb is not None:
        # an ellipse (grown by a disc) against a polygonal core: the stationary-point
        # form of ``ellipse_polygon``, every translation at once
        Q = P + (sa.cx, sa.cy)
        return ellipse_core_sd(sa.a, sa.b, sa.ct, sa.st, cb[0], Q) - sa.r - cb[1]
    if sb is not None and sb.a > 0.0 and ca is not None:
        # the same seen from the ellipse: the core moved by p is the ellipse moved by -p
        Q = (sb.cx, sb.cy) - P
        return ellipse_core_sd(sb.a, sb.b, sb.ct, sb.st, ca[0], Q) - sb.r - ca[1]
    if sa is not None and sb is not None:
        # ellipses grown by discs: the certified one-point solve of ``oval_distance``
        # (Newton on the support angle, proven bounds); rows it leaves go below
        from .. import budget as _budget

        pair = Pair(sa, sb)
        if n >= _MANY:
            # perf: the apart rows all at once (the same Newton steps and certificate)
            out, ok = apart_many(pair, P[:, 0], P[:, 1], tol)
            todo = np.flatnonzero(~ok)
        else:
            out, todo = np.empty(n), np.arange(n)
        rest = []
        for i, (px, py) in zip(todo.tolist(), P[todo].tolist(), strict=True):
            if i % 64 == 63:
                _budget.check()
            got = sd_certified(pair, px, py, tol)
            if got is None:
                rest.append(i)
            else:
                out[i] = got[0]
        if rest:
            out[rest] = _translations_general(A0, B, P[rest], tol)
        return out
    return _translations_general(A0, B, P, tol)


def point_sd(A0: Convex, B: Convex, tol: float = SOLVE_TOL) -> Callable[[float, float], float] | None:
    """``translations_signed_distance`` for one translation (px, py) in plain floats
    (the same closed forms and the same certified one-point solve), or None for part
    pairs without such a form. perf: the root finder's one-angle-at-a-time calls."""
    A0, B = _round(A0), _round(B)
    if isinstance(A0, Disc) and isinstance(B, Disc):
        ax, ay, bx, by, r = A0.c[0], A0.c[1], B.c[0], B.c[1], A0.r + B.r
        return lambda px, py: math.hypot(bx - (ax + px), by - (ay + py)) - r
    if isinstance(A0, Disc) and isinstance(B, Ellipse):
        ax, ay, r, eb = A0.c[0], A0.c[1], A0.r, _ellipse_frame(B)
        return lambda px, py: _ellipse_point_sd1(eb, ax + px, ay + py) - r
    if isinstance(B, Disc) and isinstance(A0, Ellipse):
        bx, by, r, ea = B.c[0], B.c[1], B.r, _ellipse_frame(A0)
        return lambda px, py: _ellipse_point_sd1(ea, bx - px, by - py) - r
    ca, cb = _core(A0), _core(B)
    if ca is not None and cb is not None:
        core_fn, r = core_point_sd(ca[0], cb[0]), ca[1] + cb[1]
        return lambda px, py: core_fn(px, py) - r
    sa, sb = smooth_part(A0), smooth_part(B)
    if sa is not None and sa.a > 0.0 and cb is not None:
        one, cx, cy, r = ellipse_core_point(sa.a, sa.b, sa.ct, sa.st, cb[0]), sa.cx, sa.cy, sa.r + cb[1]
        return lambda px, py: one(cx + px, cy + py) - r
    if sb is not None and sb.a > 0.0 and ca is not None:
        one, cx, cy, r = ellipse_core_point(sb.a, sb.b, sb.ct, sb.st, ca[0]), sb.cx, sb.cy, sb.r + ca[1]
        return lambda px, py: one(cx - px, cy - py) - r
    if sa is None or sb is None:
        return None
    pair = Pair(sa, sb)
    A1, B1 = A0, B

    def fn(px: float, py: float) -> float:
        got = sd_certified(pair, px, py, tol)
        if got is None:
            return float(_translations_general(A1, B1, np.array([[px, py]]), tol)[0])
        return got[0]

    return fn


def _ellipse_frame(E: Ellipse) -> tuple[float, float, float, float, float, float]:
    """(cx, cy, cos theta, sin theta, a, b) as plain floats."""
    return float(E.c[0]), float(E.c[1]), float(E.R[0, 0]), float(E.R[1, 0]), float(E.a), float(E.b)


def smooth_part(p: Convex) -> Smooth | None:
    """A part as an ellipse grown by a disc (``oval_distance.Smooth``): an ellipse, a
    disc, or a Minkowski sum of at most one ellipse and discs; None otherwise."""
    if isinstance(p, Ellipse):
        if not (p.a > 0.0 and p.b > 0.0):
            return None
        return Smooth(float(p.c[0]), float(p.c[1]), float(p.a), float(p.b), math.cos(p.theta), math.sin(p.theta), 0.0)
    if isinstance(p, Disc):
        return Smooth(float(p.c[0]), float(p.c[1]), 0.0, 0.0, 1.0, 0.0, float(p.r))
    if isinstance(p, Sum):
        cx = cy = r = 0.0
        ell: Smooth | None = None
        for q in p.parts:
            s = smooth_part(q)
            if s is None or (s.a > 0.0 and ell is not None):
                return None
            if s.a > 0.0:
                ell = s
            cx, cy, r = cx + s.cx, cy + s.cy, r + s.r
        if ell is None:
            return Smooth(cx, cy, 0.0, 0.0, 1.0, 0.0, r)
        return Smooth(cx, cy, ell.a, ell.b, ell.ct, ell.st, r)
    return None


def _translations_general(A0: Convex, B: Convex, P: np.ndarray, tol: float) -> np.ndarray:
    """``translations_signed_distance`` for parts without a closed form or a smooth
    one-point solve: shared support points, batch bisection, then ``solve``."""
    n = len(P)
    th = np.linspace(0.0, 2 * math.pi, _GRID, endpoint=False)
    U = _unit(th)
    SA, SB = A0.support(U), B.support(-U)
    zgrid = SB - SA  # minimiser of B - A0 along each direction
    S = np.einsum("gk,gk->g", zgrid, U)[None, :] - P @ U.T  # (n, g): lower bounds
    out = np.empty(n)
    lower = np.full(n, -np.inf)
    upper = np.full(n, np.inf)
    best = np.argmax(S, axis=1)
    sep = np.flatnonzero(S[np.arange(n), best] > 0.0)
    if len(sep):

        def zfun(Um: np.ndarray, rows: np.ndarray) -> np.ndarray:
            return B.support(-Um) - A0.support(Um) - P[sep[rows]]

        v, lo_, up_, _ = batch_separated(th[best[sep]], 2 * math.pi / _GRID, zfun, tol)
        out[sep], lower[sep], upper[sep] = v, lo_, up_
    cm = least_curvature_radius(A0) + least_curvature_radius(B)
    dc = B.center - A0.center
    ov = np.flatnonzero(~(upper - lower <= tol))
    if len(ov):
        # the rest (overlapping, or apart across an arc narrower than the spread): the
        # bent-tangent bound on the shared support points, all rows at once; query
        # angle t = theta + pi has h_C = -S and slope -cross(U, z)
        Zr = zgrid[None, :, :] - P[ov][:, None, :]
        Gv = -(U[None, :, 0] * Zr[:, :, 1] - U[None, :, 1] * Zr[:, :, 0])
        reach_ov = np.hypot(*(dc[None, :] - P[ov]).T) + A0.radius + B.radius

        def zq(Uq: np.ndarray, rows: np.ndarray) -> np.ndarray:
            return B.support(Uq) - A0.support(-Uq) - P[ov[rows]]

        v, lo_, up_ = batch_overlap(th + math.pi, -S[ov], Gv, zq, reach_ov, cm, tol)
        better = (up_ - lo_) < (upper[ov] - lower[ov])
        k = ov[better]
        out[k], lower[k], upper[k] = v[better], lo_[better], up_[better]
    rest = np.flatnonzero(~(upper - lower <= tol))
    if len(rest):
        # support points in query direction t = theta + pi (the support of C = B - A0)
        init_t = th + math.pi
        for i in rest:
            reach = float(np.hypot(*(dc - P[i]))) + A0.radius + B.radius
            c = solve(A0.support, B.support, P[i], tol=tol, init=(init_t, SA, SB), reach=reach, curv_min=cm)
            out[i] = c.value
    return out


def footprint_translations_sd(A0: Footprint, B: Footprint, P: np.ndarray) -> np.ndarray:
    """Signed distance between footprint ``A0`` translated by each p in P and ``B``
    (least over part pairs)."""
    P = np.atleast_2d(np.asarray(P, dtype=float))
    out = np.full(len(P), np.inf)
    for a in A0.parts:
        for b in B.parts:
            out = np.minimum(out, translations_signed_distance(a, b, P))
    return out
