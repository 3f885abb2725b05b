"""The tangent graph among smooth convex C-obstacles (ovals involved), exactly.

When a path wraps more than one C-obstacle and one of them involves an oval, the
shortest path is still a chain of straight tangent segments and pieces of the
obstacles' boundaries. Every C-obstacle near the route is taken as a
:class:`~chargeref.geometry.smooth.SmoothBody` (a rounded polygon is one with no
ellipse), and:

* two bodies have up to four common tangent lines. With ``D = K1 ⊕ (−K2)`` and ``φ*`` a
  normal along which ``D`` misses the origin (so the bodies are apart), the *outer*
  ones (both bodies on one side) are the roots of ``h1(φ) − h2(φ)`` and the *inner*
  ones (the line between them) the roots of ``h1(φ) + h2(φ + π)``; each has one root
  in ``[φ*, φ* + π]`` and one in ``[φ* − π, φ*]`` (brentq, 1e-13 rad). For bodies that
  overlap only outer tangents exist; they are bracketed between the directions of the
  two centres when the difference of support values changes sign there, and the
  graph reports itself incomplete (``complete = False``) when it does not;
* tangents from the start and to a goal are :meth:`SmoothBody.tangent_normals`;
* consecutive tangent points on one body, travelled the same way round, are joined by
  the boundary piece between them (a "curve" piece, exact length; an "arc" and
  "line" chain when the body is a rounded polygon);
* every piece is checked exactly clear of every C-obstacle of the caller (segments by
  the caller's segment check, boundary pieces by :func:`curves.curve_hits`), and
  Dijkstra gives the least cost. Nothing here knows a game rule.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

from .. import budget
from .cspace import _TWO_PI, _CSet
from .curves import curve_box_ok, curve_hits, make_curve
from .smooth import ANGLE_TOL, SmoothBody, core_pieces, same_round_parts
from .tangents import Piece

_KEY = 11  # decimals of a normal angle in a node key


def _diff_body(K1: SmoothBody, K2: SmoothBody) -> SmoothBody:
    ell = list(K1.ellipses) + [(-cx, -cy, a, b, th) for cx, cy, a, b, th in K2.ellipses]
    core = (K1.V[:, None, :] - K2.V[None, :, :]).reshape(-1, 2)
    return SmoothBody(tuple(ell), tuple((float(x), float(y)) for x, y in core), K1.grow + K2.grow)


def _roots(f: Callable[[float], float], phi: float) -> list[float]:
    out = []
    for lo, hi in ((phi, phi + math.pi), (phi - math.pi, phi)):
        a, b = f(lo), f(hi)
        if a == 0:
            out.append(lo)
        elif a * b < 0:
            out.append(brentq(f, lo, hi, xtol=ANGLE_TOL, rtol=8.9e-16, maxiter=400))
    return out


#: the narrowest piece :func:`_isolate` judges before giving up (radians)
ISO_MIN = 1e-10
#: most pieces :func:`_isolate` judges for one function before giving up
ISO_EVALS = 4000


def _isolate(f: Callable[[float], float], df: Callable[[float], float], cuts: list[float], F: float,
             M: float) -> tuple[list[float], bool]:
    """Every root of ``f`` on the circle, and whether that set is proven complete.

    ``f`` is continuous and 2π-periodic, smooth between consecutive ``cuts`` (where its
    derivative may jump), with ``|f'| <= F`` everywhere and ``|f''| <= M`` between cuts.
    Each interval between cuts is halved until, on every piece of width ``w`` round its
    middle ``m``, either ``|f(m)| > F·w/2`` (no root: ``f`` cannot reach zero from
    there) or ``|f'(m)| > M·w/2`` (``f'`` keeps its sign: ``f`` is monotone and has a
    root exactly when its end values differ in sign; brentq to 1e-13 rad). A root at a
    cut is one where ``f`` is zero within 1e-12·(1 + F). A piece narrower than
    ``ISO_MIN`` that passes neither test (a root where ``f'`` vanishes too: two
    boundaries touching without crossing) makes the answer not proven. The widths
    come from these inequalities, not from a chosen spacing."""
    roots: list[float] = []
    certain = True
    zero = 1e-12 * (1.0 + F)
    cs = sorted({c % _TWO_PI for c in cuts} | {0.0})
    cs.append(cs[0] + _TWO_PI)
    for c in cs[:-1]:
        if abs(f(c)) <= zero:
            roots.append(c)
    n_eval = 0
    for a0, b0 in zip(cs[:-1], cs[1:], strict=True):
        stack = [(a0, b0, f(a0), f(b0))]
        while stack:
            a, b, fa, fb = stack.pop()
            w = b - a
            if w <= 0:
                continue
            n_eval += 1
            if n_eval % 256 == 0:
                budget.check()
            m = 0.5 * (a + b)
            fm = f(m)
            if abs(fm) > F * w / 2:
                continue
            if abs(df(m)) > M * w / 2:
                if fa == 0.0:
                    roots.append(a)
                elif fa * fb < 0:
                    roots.append(brentq(f, a, b, xtol=ANGLE_TOL, rtol=8.9e-16, maxiter=400))
                continue
            if w < ISO_MIN or n_eval > ISO_EVALS:
                certain = False
                continue
            stack += [(a, m, fa, fm), (m, b, fm, fb)]
    roots.sort()
    out: list[float] = []
    for r in roots:
        if not out or r - out[-1] > 1e-9:
            out.append(r)
    if len(out) > 1 and out[0] + _TWO_PI - out[-1] <= 1e-9:
        out.pop()
    return out, certain


def _core_outer_roots(K1: SmoothBody, K2: SmoothBody) -> list[float]:
    """Outer tangent normals of two bodies with the same ellipses and disc: ``h1 − h2``
    is then the difference of the cores' support functions, ``(v1 − v2)·u`` with
    ``v1``, ``v2`` the supporting corners, fixed between the cores' edge normals
    (:func:`smooth.core_pieces`). On each such interval the roots are the normals
    perpendicular to ``v1 − v2`` (closed form); where ``v1 = v2`` the boundaries
    coincide over the whole interval and its two ends are the roots (tangent lines of
    length 0 there: a path leaves one body for the other where the shared stretch
    ends)."""
    out: list[float] = []
    for a, b, d in core_pieces(K1, K2):
        if float(math.hypot(d[0], d[1])) <= 1e-12:
            out += [a, b]
            continue
        base = math.atan2(d[1], d[0])
        for r in (base + math.pi / 2, base - math.pi / 2):
            # on [a, b], ends included (a root on an edge normal lies on both sides)
            r = a - 1e-12 + (r - a + 1e-12) % _TWO_PI
            if r <= b + 1e-12:
                out.append(min(max(r, a), b))
    out = sorted(x % _TWO_PI for x in out)
    ded: list[float] = []
    for r in out:
        if not ded or r - ded[-1] > 1e-12:
            ded.append(r)
    if len(ded) > 1 and ded[0] + _TWO_PI - ded[-1] <= 1e-12:
        ded.pop()
    return ded


def _t(phi: float) -> np.ndarray:
    return np.array([-math.sin(phi), math.cos(phi)])


def _overlap_tangents(K1: SmoothBody, K2: SmoothBody) -> tuple[list[float], list[float], bool]:
    """Outer and inner tangent normals of two bodies that meet (or may touch), by
    :func:`_isolate`. Both functions are unchanged when both bodies move by the same
    vector, so with the origin at K1's centre ``|h1| <= R1`` and
    ``|h2| <= |c1 − c2| + R2``: ``F = R1 + R2 + |c1 − c2|`` bounds the functions and
    their derivatives (``(p1 − p2)·t`` with ``|p1 − p2| <= F``), and ``h + h'' = ρ``
    (the radius of curvature, between flat normals) bounds the second derivatives by
    ``ρ1max + ρ2max + F``. Bodies that overlap have no inner tangent (``h1(φ) +
    h2(φ + π)`` is the support function of ``K1 ⊕ (−K2)``, which then holds the origin
    inside: it stays positive, and the isolation proves it)."""
    c1, c2 = K1.center(), K2.center()
    F = K1.bound_radius() + K2.bound_radius() + float(math.hypot(*(c1 - c2)))
    M = K1.max_curvature + K2.max_curvature + F
    f1 = [n for n, _ in K1.flats()]
    f2 = [n for n, _ in K2.flats()]

    def outer(t: float) -> float:
        return K1.h(t) - K2.h(t)

    def d_outer(t: float) -> float:
        return float((K1.point(t) - K2.point(t)) @ _t(t))

    def inner(t: float) -> float:
        return K1.h(t) + K2.h(t + math.pi)

    def d_inner(t: float) -> float:
        return float((K1.point(t) - K2.point(t + math.pi)) @ _t(t))

    if same_round_parts(K1, K2):
        outs, ok1 = _core_outer_roots(K1, K2), True
    else:
        outs, ok1 = _isolate(outer, d_outer, f1 + f2, F, M)
    ins, ok2 = _isolate(inner, d_inner, f1 + [n - math.pi for n in f2], F, M)
    return outs, ins, ok1 and ok2


def common_tangents(K1: SmoothBody, K2: SmoothBody) -> tuple[list[tuple[float, int, float, int]], bool]:
    """Directed tangent lines from K1 to K2: ``(φ1, o1, φ2, o2)`` with the contact
    normals and the way round each body (+1 counter-clockwise), and whether the set is
    proven complete. Apart bodies: one root of each kind in each half round ``φ*``.
    Bodies that meet (or touch): every root by :func:`_overlap_tangents`; only a pair
    whose boundaries touch without crossing can leave the set unproven."""
    D = _diff_body(K1, K2)
    nn = D.nearest_normal((0.0, 0.0))
    out: list[tuple[float, int, float, int]] = []

    def outer(t: float) -> float:
        return K1.h(t) - K2.h(t)

    def inner(t: float) -> float:
        return K1.h(t) + K2.h(t + math.pi)

    complete = False
    if nn is not None:
        phi = nn[0]
        outs = _roots(outer, phi)
        ins = _roots(inner, phi)
        complete = len(outs) == 2 and len(ins) == 2
    if not complete:
        outs, ins, complete = _overlap_tangents(K1, K2)
    for t in outs:
        t1, t2 = K1.snap(t), K2.snap(t)
        u = _t(t)
        along = float((K2.point(t2) - K1.point(t1)) @ u)
        if abs(along) <= 1e-12:
            # the two contact points coincide (a shared stretch of boundary): a path
            # may pass from one body to the other there going either way round
            out += [(t1, 1, t2, 1), (t1, -1, t2, -1)]
            continue
        o = 1 if along > 0 else -1
        out.append((t1, o, t2, o))
    for t in ins:
        t1, t2 = K1.snap(t), K2.snap(t + math.pi)
        u = _t(t)
        o = 1 if float((K2.point(t2) - K1.point(t1)) @ u) > 0 else -1
        out.append((t1, o, t2, -o))
    return out, complete


def split_curve(p: Piece) -> list[Piece]:
    """A curve piece on a body without ellipses as the arcs (round its core's corners)
    and straight pieces (its flat sides) it is made of; other curves as they are."""
    body: SmoothBody = p.body
    if body.ellipses:
        return [p]
    f, t = p.normals
    o = 1 if p.ccw else -1
    span = ((t - f) if p.ccw else (f - t)) % _TWO_PI
    cuts = [0.0]
    for n, _ in body.flats():
        off = ((n - f) if p.ccw else (f - n)) % _TWO_PI
        if 1e-12 < off < span - 1e-12:
            cuts.append(off)
    cuts.append(span)
    cuts.sort()
    out: list[Piece] = []
    cur = p.a
    for k in range(len(cuts) - 1):
        a_phi = f + o * cuts[k]
        b_phi = f + o * cuts[k + 1]
        a = body.point(a_phi, o) if k > 0 else np.asarray(cur)
        b = body.point(b_phi, -o) if k < len(cuts) - 2 else np.asarray(p.b)
        a_t = (float(a[0]), float(a[1]))
        if math.dist(cur, a_t) > 0:
            out.append(Piece("line", cur, a_t, math.dist(cur, a_t)))
        L = body.grow * (cuts[k + 1] - cuts[k])
        b_t = (float(b[0]), float(b[1]))
        if L > 0:
            v = body._vertex(0.5 * (a_phi + b_phi), 0)
            out.append(Piece("arc", a_t, b_t, L, (float(v[0]), float(v[1])), body.grow, p.ccw))
        cur = b_t
    if math.dist(cur, p.b) > 0:
        out.append(Piece("line", cur, p.b, math.dist(cur, p.b)))
    return out


class SmoothGraph:
    """Tangent graph from one start among the C-obstacles ``local`` of ``cs`` (all
    taken as smooth bodies), with Dijkstra run; :meth:`join` reaches goals."""

    def __init__(self, cs: _CSet, local: np.ndarray, start: np.ndarray, seg_check, qs: np.ndarray,
                 box: np.ndarray | None, limit: float, bodies: dict[int, SmoothBody]) -> None:
        self.cs, self.qs, self.box, self.limit = cs, qs, box, limit
        self.seg_check = seg_check
        self.start = np.asarray(start, dtype=float)
        self.local = [int(q) for q in local]
        self.K: list[SmoothBody] = [bodies[q] for q in self.local]
        self.complete = True
        #: why the graph is not proven complete ("" while it is)
        self.why = ""
        self.nodes: list[tuple[int, float, int]] = []
        self.index: dict[tuple[int, float, int], int] = {}
        lines: list[tuple[int, int, np.ndarray, np.ndarray]] = []  # (from node, to node, A, B)
        S = -1
        for k, K in enumerate(self.K):
            tn = tangents_from(K, self.start)
            if tn is None:
                continue
            for phi, o in ((tn[0], 1), (tn[1], -1)):
                lines.append((S, self._node(k, phi, o), self.start, K.point(phi, o)))
        for i, Ki in enumerate(self.K):
            for j in range(i + 1, len(self.K)):
                tl, ok = common_tangents(Ki, self.K[j])
                if not ok and self.complete:
                    self.why = ("the common tangents of two obstacles near the route are not proven "
                                "complete (their boundaries touch without crossing)")
                self.complete &= ok
                for p1, o1, p2, o2 in tl:
                    a, b = Ki.point(p1, -o1), self.K[j].point(p2, o2)
                    lines.append((self._node(i, p1, o1), self._node(j, p2, o2), a, b))
                    # the same line the other way: both ways round flip
                    lines.append((self._node(j, p2, -o2), self._node(i, p1, -o1), b, a))
        self.adj: dict[int, list[tuple[int, float, Piece | None]]] = {}
        if lines:
            A = np.asarray([x[2] for x in lines])
            B = np.asarray([x[3] for x in lines])
            blocked, climb, _ = seg_check(A, B)
            for (u, v, a, b), bl, cl in zip(lines, blocked, climb, strict=True):
                if bl:
                    continue
                pa = (float(a[0]), float(a[1]))
                pb = (float(b[0]), float(b[1]))
                self.adj.setdefault(u, []).append((v, math.dist(pa, pb) + float(cl), Piece("line", pa, pb, math.dist(pa, pb))))
        # boundary pieces between consecutive nodes on a body, each way round
        groups: dict[tuple[int, int], list[tuple[float, int]]] = {}
        for n, (k, phi, o) in enumerate(self.nodes):
            groups.setdefault((k, o), []).append((phi, n))
        for (k, o), lst in groups.items():
            lst.sort()
            if len(lst) < 2:
                continue
            seq = lst if o > 0 else lst[::-1]
            for idx in range(len(seq)):
                (pa, na), (pb, nb) = seq[idx], seq[(idx + 1) % len(seq)]
                self._curve_edge(k, pa, na, pb, nb, o)
        self.dist, self.pred = self._dijkstra()

    def _node(self, k: int, phi: float, o: int) -> int:
        key = (k, round(phi % _TWO_PI, _KEY) % _TWO_PI, o)
        n = self.index.get(key)
        if n is None:
            n = len(self.nodes)
            self.index[key] = n
            # the node is keyed by the rounded normal, but its pieces use the normal as
            # found (snapped onto a flat side's normal): a rounded normal a few 1e-12
            # off a flat side's would pick the wrong end of that side
            self.nodes.append((k, self.K[k].snap(phi % _TWO_PI), o))
        return n

    def _curve(self, k: int, pa: float, pb: float, o: int) -> tuple[Piece, float] | None:
        """The boundary piece of body k from normal pa to pb going round o, and its cost
        (None if blocked; a piece whose clearance stays undecided is dropped and the
        graph marked incomplete)."""
        cur = make_curve(self.K[k], pa, pb, o > 0)
        unsure: list[int] = []
        hits = curve_hits(self.cs, self.qs, cur, skip={self.local[k]}, unsure=unsure)
        if unsure:
            if self.complete:
                self.why = "a boundary piece round an oval stays undecided against another obstacle"
            self.complete = False
        cost = cur.length
        for q in hits:
            if self.cs.hard[q]:
                return None
        for b in sorted({int(self.cs.bar[q]) for q in hits}):
            cost += float(self.cs.cost_of_bar[b])
        if not curve_box_ok(cur, self.box):
            return None
        return cur, cost

    def _curve_edge(self, k: int, pa: float, na: int, pb: float, nb: int, o: int) -> None:
        """A boundary edge, judged only when Dijkstra would use it (``piece`` None and
        the weight its length, a lower bound of its cost, until then)."""
        if na == nb:
            return
        K = self.K[k]
        lo, span = (pa, (pb - pa) % _TWO_PI) if o > 0 else (pb, (pa - pb) % _TWO_PI)
        self.adj.setdefault(na, []).append((nb, K.length(lo, span), ("lazy", k, pa, pb, o)))

    def _dijkstra(self) -> tuple[dict[int, float], dict[int, tuple[int, Piece | None]]]:
        dist: dict[int, float] = {-1: 0.0}
        pred: dict[int, tuple[int, Piece | None]] = {}
        heap = [(0.0, -1)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist.get(u, math.inf) or d > self.limit:
                continue
            for e, (v, w, piece) in enumerate(self.adj.get(u, [])):
                nd = d + w
                if nd >= dist.get(v, math.inf) - 1e-15:
                    continue
                if isinstance(piece, tuple):
                    _, k, pa, pb, o = piece
                    got = self._curve(k, pa, pb, o)
                    if got is None:
                        self.adj[u][e] = (v, math.inf, None)
                        continue
                    w, piece = got[1], got[0]
                    self.adj[u][e] = (v, w, piece)
                    nd = d + w
                if nd < dist.get(v, math.inf) - 1e-15:
                    dist[v] = nd
                    pred[v] = (u, piece)
                    heapq.heappush(heap, (nd, v))
        return dist, pred

    def join(self, goal: np.ndarray) -> tuple[float, list[Piece] | None]:
        """Least cost to ``goal`` through the graph (last body → goal), and its pieces."""
        G = np.asarray(goal, dtype=float)
        cands = []
        for k, K in enumerate(self.K):
            tn = tangents_from(K, G)
            if tn is None:
                continue
            # arriving at the goal counter-clockwise: leave at the cw-root of the goal
            for phi, o in ((tn[1], 1), (tn[0], -1)):
                T = K.point(phi, -o)
                line = math.dist(T, G)
                for n, (kk, pn, oo) in enumerate(self.nodes):
                    if kk != k or oo != o or n not in self.dist:
                        continue
                    span = ((phi - pn) if o > 0 else (pn - phi)) % _TWO_PI
                    lo = pn if o > 0 else phi
                    lb = self.dist[n] + K.length(lo, span) + line
                    if lb <= self.limit:
                        cands.append((lb, n, k, pn, phi, o, T))
        cands.sort(key=lambda c: c[0])
        best: tuple[float, list[Piece]] | None = None
        for lb, n, k, pn, phi, o, T in cands:
            if best is not None and lb >= best[0]:
                break
            A = np.asarray([T])
            B = np.asarray([G])
            bl, cl, _ = self.seg_check(A, B)
            if bl[0]:
                continue
            cost = lb + float(cl[0])
            tail: list[Piece] = []
            if abs(((phi - pn) + math.pi) % _TWO_PI - math.pi) > 1e-12:
                got = self._curve(k, pn, phi, o)
                if got is None:
                    continue
                cost += got[1] - got[0].length
                tail.append(got[0])
            Tt = (float(T[0]), float(T[1]))
            tail.append(Piece("line", Tt, (float(G[0]), float(G[1])), math.dist(Tt, G)))
            if cost <= self.limit and (best is None or cost < best[0]):
                best = (cost, self._chain(n) + tail)
        if best is None:
            return math.inf, None
        pieces = [q for p in best[1] for q in (split_curve(p) if p.kind == "curve" else [p]) if q.length > 0]
        # the pieces must join up (a flat side taken by two lines at one node would not)
        cur = (float(self.start[0]), float(self.start[1]))
        for p in pieces:
            if math.dist(cur, p.a) > 1e-9:
                return math.inf, None
            cur = p.b
        return best[0], pieces

    def _chain(self, n: int) -> list[Piece]:
        out = []
        while n != -1:
            u, piece = self.pred[n]
            if piece is not None:
                out.append(piece)
            n = u
        return out[::-1]


def tangents_from(K: SmoothBody, P: np.ndarray) -> tuple[float, float] | None:
    """Tangent normals from P, or from P pushed 1e-9 outward when it touches K."""
    t = K.tangent_normals(P)
    if t is not None:
        return t
    d = np.asarray(P, dtype=float) - K.center()
    n = float(math.hypot(d[0], d[1]))
    if n == 0:
        return None
    return K.tangent_normals(np.asarray(P, dtype=float) + 1e-9 * d / n)


__all__ = ["SmoothGraph", "common_tangents", "split_curve", "tangents_from"]
