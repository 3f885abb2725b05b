"""Least-cost paths for a base that translates (never rotates) among obstacles.

Callers describe the obstacles as :class:`Barrier` values: a footprint (a union of
convex parts) and a crossing cost, ``None`` for a barrier that may never be entered and
a number for one that may be crossed at that price (climbing a wall, say). No game
rule lives here: what is a barrier and what crossing costs is the caller's business.

Configuration space
-------------------
The base is a union of convex parts ``b_j`` placed relative to its centre. Part ``b_j``
centred at ``x`` meets barrier part ``O_i`` exactly when ``x`` lies in the
configuration-space obstacle (C-obstacle) ``C_ij = O_i ⊕ (−b_j)``, whose support
function is ``h_C(u) = h_O(u) + h_b(−u)``. The signed distance from a point (or a
segment) to ``C_ij`` equals the signed distance from the base part placed there (or
swept along it) to ``O_i``, so every question about the moving base becomes a
question about the path of its centre.

Exact checks
------------
Most C-obstacles are a convex polygon "core" thickened by a disc of radius ``ρ``:
disc ⊕ disc is a disc, polygon ⊕ disc a rounded polygon, polygon ⊕ polygon a polygon
(their Minkowski sum), capsule ⊕ anything a core ⊕ disc. For those the signed distance
from a centre segment is ``sd(segment, core) − ρ`` in closed form: the Euclidean
distance when apart, the separating-axis penetration depth when they overlap. This is
what ``convex_signed_distance(segment_sweep(...), part)`` computes, only vectorised.
C-obstacles that involve an ellipse (directly or inside a ``Sum``) are bracketed: a segment clear
of a circumscribed polygon is clear, one that enters an inscribed polygon deeper than
``TOL`` penetrates (separating-axis values decide both). The rare segment in between
is settled by maximising ``sd = max_v (min over the segment of v·x − h_C(v))`` over
nested grids of normals (to ~1e-9 rad), and by ``convex_signed_distance`` on the exact
swept region when that lands within 1e-7 of the threshold. A segment
is *blocked* when it penetrates a hard C-obstacle by more than ``TOL`` (touching is
allowed: a charger ends touching its target) and *crosses* a soft barrier when it
penetrates one of its C-obstacles by more than ``TOL``; each (barrier, segment) pair is
charged once. Every returned path, and its cost, is re-measured with these exact checks.

The planner
-----------
1. The straight segment is tried first; if it is exactly clear and crosses nothing it is
   optimal and is returned at once.
2. Otherwise a tangent visibility graph is built (and cached per base shape and barrier
   set). Its vertices are the corners of a *circumscribed* polygon of every relevant
   C-obstacle: tangent lines at ``n`` evenly spaced normals (``n`` = ``segments``
   rounded up to a multiple of 4, so the board's axes are among them) plus every edge
   normal of the polygonal parts, so that polygon ⊕ polygon C-obstacles and the flat
   sides of rounded ones are exact. Corners lie on or outside the true C-obstacle, so
   they are clear. Only edges that are tangent at both ends are kept (a shortest path
   only bends around a convex corner it touches), and every kept edge is checked
   exactly (against hard curved C-obstacles conservatively: entering the circumscribed
   polygon counts as blocked, which is the world the bound below is about). Corners of
   soft C-obstacles are vertices too, so a path may go around a wall instead of over
   it. Dijkstra (scipy's ``csgraph``) runs once from the start. A graph built for more
   barriers is reused for a query that needs fewer.
3. Goals are joined to the tree by tangent edges. A start or goal that touches a
   C-obstacle lies inside that obstacle's circumscribed polygon; for it the touching
   normal is inserted into the polygon locally, so the path can leave or arrive along
   the true tangent line. Two curved C-obstacles whose true gap is narrower than what
   their circumscribed polygons leave open get their separating normal inserted too,
   so such passages stay open: for exact cores by the closed-form closest points, for
   pairs involving an ellipse by the certified distance's best direction (and the
   graph then judges those ellipse-involved C-obstacles exactly, not by their polygon).
4. With a budget, only barriers whose C-obstacle can be reached within the budget are
   used (a disc around the start, or the ellipse of foci start and goal).

Exact paths (stage two)
-----------------------
The graph above only decides *which way round* the obstacles to go. Every path it
finds is then rebuilt exactly (``geometry/tangents.py``): the C-obstacles within a
small margin of the graph's polyline (4× the circumscription slack below plus 1e-3)
are taken as they truly are, core ⊕ disc(ρ), whose boundary is straight edges and
arcs of radius ρ round the core's vertices. Their vertex circles, the start and the
goal are joined by closed-form common tangents (kept where they support their own
C-obstacle and are exactly clear of every C-obstacle of the graph), consecutive
tangent points on a circle by arcs of length ρ·Δθ (kept where they stay on the
boundary and are exactly clear), and Dijkstra on that tangent graph gives the
shortest path among those obstacles, lines and arcs with exact lengths. If it is not
at least as short as the polyline (an obstacle the polyline passed at a distance was
needed), the margin is widened once (40× the slack plus 0.05); failing that the
polyline itself is returned with ``exact = False``. ``PathResult.segments`` holds the
lines and arcs, ``points`` their ends with arcs followed to within
:data:`ARC_SAGITTA` (2.5e-7), so a reader of the polyline alone stays within TOL.

What this promises: the returned length is the exact length of a valid path (never
shorter than the true shortest), and it is the true shortest path among the
C-obstacles near the graph's choice. It can differ from the global optimum only where
another route is shorter by less than the excess bound below and the graph preferred
the other one (near-ties within ~0.2 % of an arc). Budgets: the graph explores up to
the budget plus that bound, the exact stage decides against the budget itself, so a
roll that the exact path fits is never refused because of the polygons.

Oval bases (an ellipse in the C-obstacle) have no circle decomposition. Round one
such C-obstacle the path is built in closed form (``smooth_paths.around_smooth``: tangent, boundary
piece, tangent, by ``geometry/smooth.py``); near several, by the tangent graph of
smooth bodies (``geometry/smooth_graph.py``); both are exact (``exact = True``) and
record the boundary piece as a ``"curve"`` segment. Only when neither applies (more
than ``SMOOTH_MAX`` C-obstacles near the route, two C-obstacles that touch without
crossing, a boundary piece or an arc whose clearance stays undecided) do ovals enter
the circle tangent graph as their circumscribed polygons (corners as circles of
radius 0), which keeps the path valid but maybe a little long; such a path is reported
with ``exact = False`` and ``PathResult.reason`` says why. Arcs and lines near an
oval-involved C-obstacle are judged exactly (the polygon only screens; see
``measure._Checker`` and ``curves.segment_clear``).

Near-optimality of the graph (stage one)
----------------------------------------
Returned paths are exactly clear, so they are never shorter than the true shortest
path. How much longer they can be follows from the circumscription. Let ``x = π/n``
(``n`` as above; extra normals only shrink the angular gaps). Where the boundary of a
C-obstacle is curved with radius of curvature at most ``ρ`` (a disc C-obstacle: base
radius + obstacle radius; a rounded wall: the base radius; an ellipse: its largest
radius of curvature), the tangent-line corners stand at most ``ε = ρ·(sec x − 1)``
outside it; flat sides are exact. The graph's polygons therefore lie inside the true
C-obstacles grown by ``ε``, and the graph contains the shortest path around its
polygons, so the returned path is no longer than the shortest path around the grown
C-obstacles. Growing a convex obstacle by ``ε`` lengthens a path that turns ``φ``
around it by at most ``ε`` times the turn around the grown one, which is at most
``φ + 2x``. Per curved C-obstacle that the true shortest path wraps by ``φ``:

    excess ≤ ρ · (sec(π/n) − 1) · (φ + 2π/n)

(≈ ``ρ·x²/2·(φ + 2x)``; for ``n = 48`` that is 0.214 % of ``ρ·φ`` plus ``0.00028·ρ``).
The polyline that wraps the arc itself is only ``ρ·φ·(tan x / x − 1)`` (≈ ``ρ·φ·x²/3``)
longer than the arc; the rest is the two ends, where the path meets the arc at a corner
instead of at the exact tangent point. The argument above needs the start and the
goal outside the grown C-obstacles; for a start or goal that touches a C-obstacle
(handled by inserting its normal) the same bound is checked numerically, and
``tests/geometry/test_paths.py`` checks it against the closed-form
tangent-arc-tangent length around a disc for ``n`` = 8, 12, 16 and 48. Passages
narrower than ``ε`` between a curved C-obstacle and another one are kept open (step 3
of the planner; tests/geometry/test_oval_passage.py for ellipses). Raise ``segments`` for a tighter bound (the excess falls as
``1/n²``).

Soft barriers: each path piece (segment or arc) that penetrates one pays its cost
once, so a path that bends while overlapping a soft barrier pays at every bend. The planner finds the
least-cost path of its graph under that rule; the bound above concerns length only.

Nothing here knows about any game's rules.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .cost_field import CostField
from .cspace import (
    BOARD_ID,
    Barrier,
    PathResult,
    _CSet,
    _in_box,
    _rel_parts,
    _shape_key,
)
from .measure import (
    PathCheck,
    _result,
    measure_path,
    path_cost,
    piece_from_dict,
    sweep_clear,
)
from .shapes import (
    TOL,
    Footprint,
)
from .tangents import Piece
from .visibility import (
    _Graph,
)

# ----------------------------------------------------------------------------------
# planner
# ----------------------------------------------------------------------------------


@dataclass
class _Context:
    """Everything cached for one base shape against the planner's barriers."""

    cs: _CSet
    box: np.ndarray | None
    graphs: list[tuple[frozenset[int], _Graph]] = field(default_factory=list)


class Planner:
    """Shortest paths for a translating base among fixed barriers.

    >>> from chargeref.geometry.shapes import Disc, Footprint
    >>> wall = Barrier(Footprint((Disc((5.0, 0.0), 1.0),)), None, "rock")
    >>> base = Footprint((Disc((0.0, 0.0), 0.5),), "round", (0.0, 0.0))
    >>> p = Planner([wall]).plan(base, (10.0, 0.0))
    >>> round(p.length, 3), p.crossed
    (10.455, ())
    """

    #: Graphs kept per base shape.
    CACHE = 6

    def __init__(
        self,
        barriers: Sequence[Barrier],
        board: tuple[float, float] | None = None,
        segments: int = 48,
    ) -> None:
        if segments < 8:
            raise ValueError("segments must be at least 8")
        self.barriers = tuple(barriers)
        self.board = None if board is None else (float(board[0]), float(board[1]))
        self.n = 4 * math.ceil(segments / 4)
        self._contexts: dict[tuple, _Context] = {}

    def excess_bound(self, rho: float, phi: float) -> float:
        """The stated bound on how much longer than the true shortest path a returned
        path can be, for one curved C-obstacle of radius of curvature ``rho`` that the
        true path wraps by ``phi`` radians (see the module docstring)."""
        x = math.pi / self.n
        return rho * (1.0 / math.cos(x) - 1.0) * (phi + 2.0 * x)

    # -- contexts and graphs ----------------------------------------------------------
    def _context(self, base: Footprint) -> _Context:
        key = _shape_key(base)
        ctx = self._contexts.get(key)
        if ctx is None:
            rel = _rel_parts(base)
            box = None
            if self.board is not None:
                w, d = self.board
                ext = {
                    tuple(u): max(float(p.h(np.asarray([u], dtype=float))[0]) for p in rel)
                    for u in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))
                }
                box = np.array(
                    [ext[(-1.0, 0.0)], w - ext[(1.0, 0.0)], ext[(0.0, -1.0)], d - ext[(0.0, 1.0)]]
                )
            ctx = _Context(_CSet(rel, self.barriers, self.n), box)
            self._contexts[key] = ctx
        return ctx

    def _relevant(
        self, ctx: _Context, s: np.ndarray, g: np.ndarray | None, budget: float | None
    ) -> np.ndarray:
        cs = ctx.cs
        if budget is None:
            return cs.all
        lim = budget + TOL
        ds = np.hypot(*(cs.centre - s).T)
        if g is None:
            return np.flatnonzero(ds - cs.radius <= lim)
        dg = np.hypot(*(cs.centre - g).T)
        return np.flatnonzero(ds + dg - 2 * cs.radius <= lim)

    def _graph(self, ctx: _Context, qs: np.ndarray) -> _Graph:
        need = frozenset(int(q) for q in qs)
        for k, (have, gr) in enumerate(ctx.graphs):
            if need <= have:  # a graph over more barriers answers the same within budget
                ctx.graphs.append(ctx.graphs.pop(k))
                return gr
        if 2 * len(need) > ctx.cs.Q:
            # most barriers matter anyway: build once for all, so later starts reuse it
            need = frozenset(range(ctx.cs.Q))
        gr = _Graph(ctx.cs, np.asarray(sorted(need), dtype=int), ctx.box)
        ctx.graphs.append((need, gr))
        if len(ctx.graphs) > self.CACHE:
            ctx.graphs.pop(0)
        return gr

    # -- public -------------------------------------------------------------------------
    def plan(
        self, base: Footprint, goal: Sequence[float] | np.ndarray, budget: float | None = None
    ) -> PathResult | None:
        """Least-cost path of the base centre from ``base.center`` to ``goal``; ``None``
        if there is none (or none within ``budget``, compared with TOL).

        The start and the goal may touch hard barriers; a start that already overlaps
        one deeper than TOL, or a goal that would, has no path."""
        ctx = self._context(base)
        s = np.asarray(base.center, dtype=float)
        g = np.asarray(goal, dtype=float)
        if ctx.box is not None and not _in_box(np.stack([s, g]), ctx.box).all():
            return None
        L = float(math.hypot(g[0] - s[0], g[1] - s[1]))
        if budget is not None and L > budget + TOL:
            return None
        blocked, climb, hit, _ = ctx.cs.assess(s[None], g[None], ctx.cs.all)
        if not blocked[0] and climb[0] == 0.0:
            # nothing is shorter than the straight segment, and it climbs nothing
            if len(hit) == 0:
                pts = ((float(s[0]), float(s[1])), (float(g[0]), float(g[1])))
                seg = ({"kind": "line", "from": list(pts[0]), "to": list(pts[1])},) if L > 0 else ()
                return PathResult(L, L, 0.0, pts, (), seg, True)
            return _result(ctx.cs, [s, g])  # crosses only free soft barriers
        qs = self._relevant(ctx, s, g, budget)
        fld = CostField(self, ctx, self._graph(ctx, qs), base, budget)
        return fld.path(g)

    def field(self, base: Footprint, budget: float | None = None) -> CostField:
        """One shortest-path tree from ``base.center``, reusable for many goals."""
        ctx = self._context(base)
        s = np.asarray(base.center, dtype=float)
        qs = self._relevant(ctx, s, None, budget)
        return CostField(self, ctx, self._graph(ctx, qs), base, budget)


__all__ = [
    "BOARD_ID",
    "Barrier",
    "CostField",
    "PathCheck",
    "PathResult",
    "Piece",
    "measure_path",
    "piece_from_dict",
    "Planner",
    "path_cost",
    "sweep_clear",
]
