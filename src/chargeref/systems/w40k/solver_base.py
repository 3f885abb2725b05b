"""The values and plain geometry under the 40k placement search: spot banks and
placements, signed distances for many spots at once, straight-line clearance in
bounded blocks, and the coherency tests (one connected group, the edition-11 spread).
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

import numpy as np
import shapely

from ...geometry.shapes import (
    TOL,
    ConvexPolygon,
    Disc,
    Footprint,
    footprint_translations_sd,
    polygon_point_signed_distance,
)
from .world import Model

# The tolerances of the 40k search, smallest first (TOL is the contract's, 1e-6 of the
# unit, the one the validator uses for every comparison):
#   LOCUS_HAIR (1e-9) < TRIM_MARGIN (2e-9) < EPS (1e-7) < TOL (1e-6) < BUDGET_SLACK
# A move of d succeeds on a roll R when d <= R + TOL, d being the move to a spot exactly
# at the gap the rule names (engagement range, coherency). The search builds its spots
# LOCUS_HAIR on the generous side of that gap, which can lengthen the move by up to
# LOCUS_HAIR, so its budget test is cost <= R + BUDGET_SLACK (TOL + LOCUS_HAIR), and the
# least roll of a found move is ceil(cost - BUDGET_SLACK) (``least_roll``). A placement it
# hands out never spends more than R + TOL - TRIM_MARGIN: a model over that steps back
# along the end of its path (``ChargeProblem.fit``), by at most LOCUS_HAIR +
# TRIM_MARGIN, so its gaps open by no more than that, far inside TOL. TRIM_MARGIN covers
# the 1e-9 rounding of the coordinates a ruling reports, so the validator, which reads
# those, sees no move over R + TOL and no gap over the rule's + TOL.

#: internal slack: our spots sit at most this far on the generous side of a threshold,
#: far inside the contract tolerance (1e-6).
EPS = 1e-7
#: margin kept outside the engagement range of non-targets (beyond the 1e-6 tolerance).
OUT_MARGIN = 2e-6
#: constructed spots sit this far on the generous side of the gap they are built at
#: (inside engagement or coherency, outside contact): far below the 1e-6 tolerance
LOCUS_HAIR = 1e-9
#: a move of cost c fits a roll R when c <= R + BUDGET_SLACK (see above)
BUDGET_SLACK = TOL + LOCUS_HAIR
#: a placement handed out spends at most R + TOL - TRIM_MARGIN on each move (see above)
TRIM_MARGIN = 2e-9
#: largest number of (start, goal, obstacle) triples handled in one numpy block
CLEAR_BLOCK = 2_000_000
#: clear_within tests every (pair, cone window) directly up to this many of them
FEW_TRIPLES = 4096
#: wrap spots are built round this many nearest obstacle pieces per target model
WRAP_NEAREST = 8
#: budget-circle crossings are built for this many nearest target models per start
BUDGET_TARGETS = 3
#: units up to this size try every order of play when placing; larger ones keep the first
SMALL_UNIT = 10


def least_roll(cost: float) -> int:
    """The least whole roll R whose budget test (cost <= R + BUDGET_SLACK) a move of
    this cost passes (at least 1)."""
    return max(1, math.ceil(cost - BUDGET_SLACK))


def _unit_vecs(n: int, extra: list[np.ndarray] | None = None) -> np.ndarray:
    # n evenly spread directions: only a shape's fingerprint (``shape_key``, which
    # groups models whose bases are the same) uses them; no spot or verdict does
    th = np.linspace(0, 2 * math.pi, n, endpoint=False)
    U = np.stack([np.cos(th), np.sin(th)], axis=-1)
    if extra:
        E = np.asarray(extra, dtype=float)
        E = E / np.linalg.norm(E, axis=1, keepdims=True)
        U = np.vstack([E, U])
    return U


def pair_norm(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """|A[i] - B[j]| for every pair, (len(A), len(B)). perf: the same bits as
    np.linalg.norm(A[:, None] - B[None], axis=-1) (sqrt(dx*dx + dy*dy)) without the
    (k, m, 2) temporary and its strided reduction."""
    dx = A[:, None, 0] - B[None, :, 0]
    dy = A[:, None, 1] - B[None, :, 1]
    return np.sqrt(dx * dx + dy * dy)


def sd_many(mover: Footprint, pts: np.ndarray, other: Footprint) -> np.ndarray:
    """Signed distance between ``mover`` re-centred at each point and ``other``."""
    pts = np.atleast_2d(pts)
    if len(pts) == 0:
        return np.zeros(0)
    if mover.is_disc and other.is_disc:
        o = other.parts[0]
        r = mover.parts[0].r  # type: ignore[attr-defined]
        # perf: np.linalg.norm(d, axis=1) is sqrt(dx*dx + dy*dy) to the bit, without
        # its per-call overhead (this runs tens of thousands of times per ruling)
        d = pts - o.center
        return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) - r - o.radius
    if mover.is_disc and all(type(p) is ConvexPolygon for p in other.parts):
        # perf: a round base against polygons (ruin walls, barricades, terrain): the
        # arithmetic footprint_translations_sd does for a disc and polygon parts,
        # without its dispatch: the centres are moved to the offsets and back (the same
        # rounding), each part's exact point distance less the radius, least over parts
        disc = mover.parts[0]
        q = (pts - mover.center) + disc.center
        out = np.full(len(q), np.inf)
        for part in other.parts:
            out = np.minimum(out, np.minimum(np.inf, polygon_point_signed_distance(part.V, q)) - disc.r)
        return out
    return footprint_translations_sd(mover, other, pts - mover.center)


def offset_spots(mover: Footprint, target: Footprint, d: float, U: np.ndarray) -> np.ndarray:
    """Centres where ``mover`` (translated, same facing) is exactly ``d`` from ``target``
    along the common normal u, for each u in U: support_T(u) - support_M(-u) + d u.
    Exact for convex parts; for several parts, every part pair is used."""
    out = []
    c = mover.center
    for tp in target.parts:
        for mp in mover.parts:
            out.append(tp.support(U) - (mp.support(-U) - c) + d * U)
    return np.vstack(out)


def _face_table(mover: Footprint, poly: ConvexPolygon) -> tuple[list, list]:
    """What face_spots needs of a (polygon, base) pair that depends on nothing else:
    per edge (in order) and per part of the base, the contact locus's start ``a0`` and
    direction ``e`` with ``e @ e``; per corner of a round base, the corner and its
    normal cone (start angle and span). perf: kept per pair (terrain does not move,
    and the search asks about the same faces for every placed model); each value is
    the one face_spots computed inline before, by the same expressions."""
    per_poly = _FACE_TABLES.get(poly)
    if per_poly is None:
        per_poly = _FACE_TABLES[poly] = {}
    hit = per_poly.get(id(mover))
    if hit is not None:
        return hit[1]
    c = mover.center
    V = poly.V
    edges = []
    for a, b in zip(V, np.roll(V, -1, axis=0), strict=True):
        e = b - a
        L2 = float(e @ e)
        if L2 == 0:
            continue
        n = np.array([e[1], -e[0]]) / math.sqrt(L2)  # outward for a counter-clockwise polygon
        # the mover's support point in -n sits on the edge point
        for o in np.vstack([mp.support(-n[None]) - c for mp in mover.parts]):
            edges.append((a - o, e, L2))
    corners = []
    if mover.is_disc:
        nv = len(V)
        for k in range(nv):
            ein, eout = V[k] - V[k - 1], V[(k + 1) % nv] - V[k]
            lo = math.atan2(-ein[0], ein[1])
            span = (math.atan2(-eout[0], eout[1]) - lo) % (2 * math.pi)
            corners.append((V[k], lo, span))
    table = (edges, corners)
    per_poly[id(mover)] = (mover, table)  # (the entry holds the base, so its id stays its own)
    return table


#: face_spots' tables, per polygon (forgotten with it) and base
_FACE_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def face_spots(
    mover: Footprint,
    poly: ConvexPolygon,
    toward: np.ndarray,
    circles: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Centres where ``mover`` touches a flat face of ``poly`` from outside, built (no
    step along the face): on each edge's contact locus (the edge pushed out by the
    mover's support point in the edge's inward normal) its two ends, the foot of each
    point of ``toward``, and its crossings with each circle of ``circles`` (centres
    (k, 2), radii (k,)): engagement reach round a target, whole-roll budget circles
    round a start, packing and coherency circles round other models. For a round mover
    the locus also has an arc of its radius round each corner of the face; its
    crossings with the circles are added too (where a circle leaves the flat part)."""
    edges, corners = _face_table(mover, poly)
    toward = np.atleast_2d(np.asarray(toward, dtype=float)).reshape(-1, 2)
    if circles is not None:
        CC = np.asarray(circles[0], dtype=float).reshape(-1, 2)
        CR = np.asarray(circles[1], dtype=float).reshape(-1)
    else:
        CC, CR = np.zeros((0, 2)), np.zeros(0)
    out = []
    for a0, e, L2 in edges:
        ts = [0.0, 1.0]
        ts.extend(np.clip((toward - a0) @ e / L2, 0.0, 1.0))
        if len(CR):
            # |a0 + t e - C| = R: a quadratic in t, both roots, kept on the edge
            w = a0[None, :] - CC
            B = w @ e / L2
            Cq = (np.einsum("ij,ij->i", w, w) - CR * CR) / L2
            disc = B * B - Cq
            ok = disc >= 0
            sq = np.sqrt(np.where(ok, disc, 0.0))
            roots = np.concatenate([(-B - sq)[ok], (-B + sq)[ok]])
            # the roots on the edge (a hair either side), in order, clamped to it
            # (+ 0.0: a root of -0.0 clamps to +0.0, as max(0.0, t) gives)
            ts.extend(np.clip(roots[(roots >= -1e-12) & (roots <= 1 + 1e-12)], 0.0, 1.0) + 0.0)
        out.append(a0 + np.asarray(ts)[:, None] * e)
    if corners and len(CR):
        # corner arcs of a round mover: circle crossings inside each corner's normal cone
        rm = float(mover.parts[0].radius)
        for Vk, lo, span in corners:
            v = CC - Vk
            d = np.hypot(v[:, 0], v[:, 1])
            ok = (d > 0) & (d <= rm + CR) & (d >= np.abs(rm - CR))
            if not ok.any():
                continue
            base = np.arctan2(v[ok, 1], v[ok, 0])
            half = np.arccos(np.clip((rm * rm + d[ok] ** 2 - CR[ok] ** 2) / (2 * rm * d[ok]), -1.0, 1.0))
            angs = np.concatenate([base + half, base - half])
            for ang in angs[(angs - lo) % (2 * math.pi) <= span]:
                out.append((Vk + rm * np.array([math.cos(ang), math.sin(ang)]))[None])
    return np.vstack(out) if out else np.zeros((0, 2))


def shape_key(m: Model) -> tuple:
    """Models whose bases are the same shape at the same facing share candidate spots."""
    parts = []
    for p in m.fp.parts:
        rel = p.translated((-m.xy[0], -m.xy[1]))
        parts.append((type(p).__name__, tuple(np.round(rel.support(_unit_vecs(8)).ravel(), 9))))
    return (round(m.z, 9), tuple(parts))


def _seg_point_dist(s: np.ndarray, P: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Distance from each point C[j] to each segment s->P[i]: (len(P), len(C))."""
    d = P - s  # (k,2)
    L2 = np.einsum("ij,ij->i", d, d)
    L2 = np.where(L2 == 0, 1.0, L2)
    t = np.clip(((C[None, :, :] - s) * d[:, None, :]).sum(-1) / L2[:, None], 0.0, 1.0)
    proj = s + t[..., None] * d[:, None, :]
    return np.linalg.norm(C[None, :, :] - proj, axis=-1)


def _orient(a, b, c):  # noqa: ANN001, ANN202
    return (b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0])


def _segments_cross(s: np.ndarray, P: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Does segment s->P[i] properly cross segment A[j]->B[j]? (len(P), len(A))."""
    return _segments_cross_from(np.broadcast_to(s, P.shape), P, A, B)


def _segments_cross_from(S: np.ndarray, P: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Does segment S[i]->P[i] properly cross segment A[j]->B[j]? (len(P), len(A)).
    Element by element the same arithmetic for every start (orientation tests)."""
    orient = _orient
    S = S[:, None, :]
    Pn = P[:, None, :]
    o1 = orient(S, Pn, A[None])
    o2 = orient(S, Pn, B[None])
    o3 = orient(A[None], B[None], S)
    o4 = orient(A[None], B[None], Pn)
    return (o1 * o2 < 0) & (o3 * o4 < 0)


def mark_against(overlap: np.ndarray, links: np.ndarray, sd: np.ndarray, z: np.ndarray, zq: float, coh: float,
                 coh_v: float) -> None:
    """In place, for spots at distance ``sd`` from a newly placed model and at levels
    ``z`` (the model at level ``zq``): a spot overlaps the model when it is more than
    EPS inside it on the same level, and gains a coherency link when it is within
    ``coh`` and ``coh_v`` of it.

    perf, exact: when the model and every spot stand on the ground (level 0) no height
    differs, so both height tests hold everywhere and are not made."""
    if zq == 0.0 and coh_v >= 0.0 and not z.any():
        overlap |= sd < -EPS
        links += sd <= coh
        return
    dz = np.abs(z - zq)
    overlap |= (sd < -EPS) & (dz <= 1e-9)
    links += ((sd <= coh) & (dz <= coh_v)).astype(int)


class Growing:
    """A 1-D array that grows at its end, in a buffer that doubles when full (perf:
    appending does not copy what is already there). ``a`` is the filled part."""

    __slots__ = ("buf", "n")

    def __init__(self, a: np.ndarray) -> None:
        self.buf = np.array(a)
        self.n = len(self.buf)

    @property
    def a(self) -> np.ndarray:
        return self.buf[: self.n]

    def extend(self, x: np.ndarray) -> None:
        n1 = self.n + len(x)
        if n1 > len(self.buf):
            nb = np.empty(max(n1, 2 * len(self.buf), 16), dtype=self.buf.dtype)
            nb[: self.n] = self.buf[: self.n]
            self.buf = nb
        self.buf[self.n : n1] = x
        self.n = n1


class StraightLines:
    """Exact, vectorised check that a disc base can move straight from its start to
    each goal touching no barrier (hard or soft) deeper than EPS; those goals cost their
    straight length. Anything else is left to the path planner."""

    def __init__(self, barriers):  # noqa: ANN001
        discs, polys, other = [], [], []
        for b in barriers:
            for p in b.footprint.parts:
                if isinstance(p, Disc):
                    discs.append((p.center, p.r))
                elif isinstance(p, ConvexPolygon):
                    polys.append(p.V)
                else:
                    other.append((p.center, p.radius))
        self.dc = np.array([c for c, _ in discs]).reshape(-1, 2)
        self.dr = np.array([r for _, r in discs])
        self.polys = polys
        self.oc = np.array([c for c, _ in other]).reshape(-1, 2)
        self.orad = np.array([r for _, r in other])

    def clear_many(self, S: np.ndarray, r: float, P: np.ndarray) -> np.ndarray:
        """clear() for several starts at once: (len(S), len(P))."""
        out = np.zeros((len(S), len(P)), dtype=bool)
        if len(self.polys) == 0 and len(self.oc) == 0 and len(S) and len(P):
            # only discs: one vectorised pass over starts x goals x discs
            if len(self.dc) == 0:
                return np.ones((len(S), len(P)), dtype=bool)
            # starts x goals x discs in blocks of at most CLEAR_BLOCK elements, so memory
            # stays bounded however large the units (80 v 80 once took 21.8 GB)
            nb = len(self.dc)
            step = max(1, CLEAR_BLOCK // max(1, len(S) * nb))
            for k0 in range(0, len(P), step):
                Pk = P[k0 : k0 + step]
                d = Pk[None, :, :] - S[:, None, :]  # (n,k,2)
                L2 = np.einsum("nkj,nkj->nk", d, d)
                L2 = np.where(L2 == 0, 1.0, L2)
                rel = self.dc[None, None, :, :] - S[:, None, None, :]  # (n,1,b,2)
                t = np.clip(np.einsum("nkbj,nkj->nkb", np.broadcast_to(rel, (len(S), len(Pk), nb, 2)), d) / L2[..., None], 0, 1)
                proj = S[:, None, None, :] + t[..., None] * d[:, :, None, :]
                dist = np.linalg.norm(self.dc[None, None] - proj, axis=-1)
                out[:, k0 : k0 + step] = np.all(dist >= r + self.dr[None, None, :] - EPS, axis=2)
            return out
        for i, s in enumerate(S):
            out[i] = self.clear(s, r, P)
        return out

    def clear_within(self, S: np.ndarray, r: float, P: np.ndarray, near: np.ndarray, reach: float) -> np.ndarray:
        """clear_many() for the pairs marked in ``near`` (len(S), len(P)), each goal at
        most ``reach`` from its start; other pairs come back False.

        Only the disc barriers within reach + r + their radius of a start are tested
        against its moves: the segment stays within ``reach`` of the start, so a disc
        farther than that keeps at least r + its radius from every point of it and
        cannot block (a proof, not a heuristic: the verdict is the one clear_many gives).
        Memory is one start's goals x its nearby discs at a time."""
        if len(self.polys) or len(self.oc) or len(S) == 0 or len(P) == 0:
            return self.clear_many(S, r, P) & near
        out = np.zeros((len(S), len(P)), dtype=bool)
        si, pj = np.nonzero(near)
        if len(si) == 0:
            return out
        out[si, pj] = True
        if len(self.dc) == 0:
            return out
        if len(si) == 1:
            # perf: one pair (the search settles its chosen spot): plain floats
            i, j = int(si[0]), int(pj[0])
            if self._pair_blocked(S, i, float(P[j, 0]), float(P[j, 1]), r, reach):
                out[i, j] = False
            return out
        cones = self._cones(S, r, reach)
        if cones is None:
            return out
        KLO, KHI, K = cones
        d_all = P[pj] - S[si]
        ang = np.arctan2(d_all[:, 1], d_all[:, 0])  # in [-pi, pi]
        key = si * 8.0 + (ang + math.pi)  # starts 8 apart: angles span at most 2 pi + a hair
        if len(key) * len(KLO) <= FEW_TRIPLES:
            # perf: few pairs (the search settles one spot at a time): every (pair,
            # window) at once instead of sorting the pairs. A pair falls in a window
            # when KLO <= key <= KHI, exactly what the binary searches below select
            # (searchsorted left of KLO, right of KHI); the triples are the same, only
            # their order differs, and a pair is blocked when any of its triples is.
            p_i, w_i = np.nonzero((KLO[None, :] <= key[:, None]) & (key[:, None] <= KHI[None, :]))
            if len(p_i):
                blocked = np.zeros(len(si), dtype=bool)
                blocked[p_i[self._triples_block(S[si[p_i]], P[pj[p_i]], K[w_i], r)]] = True
                out[si[blocked], pj[blocked]] = False
            return out
        order = np.argsort(key, kind="stable")
        skey = key[order]
        A = np.searchsorted(skey, KLO, side="left")
        B = np.searchsorted(skey, KHI, side="right")
        cnt = np.maximum(B - A, 0)
        blocked = np.zeros(len(si), dtype=bool)
        tot = int(cnt.sum())
        if tot == 0:
            return out
        # the triples, in blocks of at most CLEAR_BLOCK / 8 (a dozen arrays of that
        # length live at once: a few tens of MB)
        blk = max(1, CLEAR_BLOCK // 8)
        csum = np.cumsum(cnt)
        w0 = 0
        while w0 < len(cnt):
            base = csum[w0 - 1] if w0 else 0
            w1 = max(int(np.searchsorted(csum, base + blk, side="right")), w0 + 1)
            c = cnt[w0:w1]
            rep = np.repeat(np.arange(w0, w1), c)
            off = np.arange(len(rep)) - np.repeat(np.cumsum(c) - c, c)
            pair = order[A[rep] + off]
            blocked[pair[self._triples_block(S[si[pair]], P[pj[pair]], K[rep], r)]] = True
            w0 = w1
        out[si[blocked], pj[blocked]] = False
        return out

    def clear_one(self, S: np.ndarray, r: float, p: np.ndarray, reach: float) -> bool:
        """``clear_within(S, r, p[None], ones, reach)[0, 0]`` for one start S (1, 2) and
        one goal: the same verdict (the one-pair path below, or clear_many where
        clear_within takes it)."""
        if len(self.polys) or len(self.oc):
            return bool(self.clear_many(S, r, np.asarray(p, dtype=float).reshape(1, 2))[0, 0])
        if len(self.dc) == 0:
            return True
        return not self._pair_blocked(S, 0, float(p[0]), float(p[1]), r, reach)

    def _pair_blocked(self, S: np.ndarray, i: int, px: float, py: float, r: float, reach: float) -> bool:
        """Does some disc block the move from start S[i] to (px, py)? The arithmetic of
        _triples_block in plain floats (Python's float operations are numpy's float64
        ones, element by element, and both square roots are correctly rounded), over
        every disc that can matter for that start (within reach + r + its radius, as
        _cones selects them). The cone windows only leave out discs among those that
        cannot block, so the verdict is the windowed one."""
        s0, s1 = float(S[i, 0]), float(S[i, 1])
        dx, dy = px - s0, py - s1
        L2 = dx * dx + dy * dy
        if L2 == 0:
            L2 = 1.0
        for cx, cy, thr in self._near_discs(S, r, reach)[i]:
            t = ((cx - s0) * dx + (cy - s1) * dy) / L2
            t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
            qx = s0 + t * dx - cx
            qy = s1 + t * dy - cy
            if math.sqrt(qx * qx + qy * qy) < thr:
                return True
        return False

    def _near_discs(self, S: np.ndarray, r: float, reach: float) -> list[list[tuple[float, float, float]]]:
        """Per start: (centre x, centre y, r + radius - EPS) of each disc within reach +
        r + its radius (+ 1e-6) of it, the (start, disc) pairs _cones keeps; kept per
        (starts, r, reach) like the cones."""
        ck_key = (S.tobytes(), len(S), r, reach)
        cache = self.__dict__.setdefault("_near_cache", {})
        hit = cache.get(ck_key)
        if hit is None:
            rel = self.dc[None, :, :] - S[:, None, :]
            dsc = np.sqrt(rel[..., 0] * rel[..., 0] + rel[..., 1] * rel[..., 1])
            thr = r + self.dr - EPS
            hit = [
                [(float(self.dc[k, 0]), float(self.dc[k, 1]), float(thr[k]))
                 for k in np.flatnonzero(dsc[i] - self.dr <= reach + r + 1e-6)]
                for i in range(len(S))
            ]
            cache[ck_key] = hit
        return hit

    def _triples_block(self, s: np.ndarray, p: np.ndarray, k: np.ndarray, r: float) -> np.ndarray:
        """For each triple (start s, goal p, disc k): does disc k come closer than
        r + its radius - EPS to the segment s->p? The same arithmetic as clear_many,
        triple by triple."""
        d = p - s
        L2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
        L2 = np.where(L2 == 0, 1.0, L2)
        rl = self.dc[k] - s
        t = np.clip((rl[:, 0] * d[:, 0] + rl[:, 1] * d[:, 1]) / L2, 0, 1)
        px = s[:, 0] + t * d[:, 0] - self.dc[k, 0]
        py = s[:, 1] + t * d[:, 1] - self.dc[k, 1]
        return np.sqrt(px * px + py * py) < r + self.dr[k] - EPS

    def _cones(self, S: np.ndarray, r: float, reach: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The (start, disc) windows of clear_within: for every disc within reach + r +
        its radius of a start, the sort keys (start * 8 + angle) bounding the cone of
        move directions from that start that meet the disc, and the disc; None when no
        disc is near any start. They depend on the starts only, not on the goals, so
        they are kept per (starts, r, reach) (perf: the search asks with the same
        starts at every step).

        A disc can block a move only if the move heads into the cone of directions
        from the start that meet the disc (grown by 1e-6): half-width asin(rho / |c - s|),
        every direction when the start is inside. Moves are sorted by (start, angle) and
        each disc's cone picks its moves by binary search; the blocking test itself is
        clear_many's arithmetic on the picked triples (the cone only skips triples that
        cannot block, so the verdicts are the same)."""
        ck_key = (S.tobytes(), len(S), r, reach)
        cache = self.__dict__.setdefault("_cone_cache", {})
        if ck_key in cache:
            return cache[ck_key]
        # (start, disc) pairs that can matter: the disc within reach + r + its radius
        rel = self.dc[None, :, :] - S[:, None, :]
        dsc = np.sqrt(rel[..., 0] * rel[..., 0] + rel[..., 1] * rel[..., 1])
        rho = r + self.dr[None, :] + 1e-6
        ci, ck = np.nonzero(dsc - self.dr[None, :] <= reach + r + 1e-6)
        if len(ci) == 0:
            cache[ck_key] = None
            return None
        dd = dsc[ci, ck]
        inside = dd <= rho[0, ck]
        half = np.where(inside, 4.0, np.arcsin(np.minimum(1.0, rho[0, ck] / np.where(dd > 0, dd, 1.0))) + 1e-9)
        th = np.arctan2(rel[ci, ck, 1], rel[ci, ck, 0]) + math.pi  # [0, 2 pi]
        lo_a, hi_a = th - half, th + half
        # a cone may wrap round angle 0 / 2 pi: up to three windows per (start, disc)
        los, his, ks = [], [], []
        for shift in (-2 * math.pi, 0.0, 2 * math.pi):
            lo = np.maximum(lo_a + shift, 0.0)
            hi = np.minimum(hi_a + shift, 2 * math.pi + 1e-9)
            full = inside & (shift == 0.0)
            lo = np.where(full, 0.0, lo)
            hi = np.where(full, 2 * math.pi + 1e-9, hi)
            ok = (lo <= hi) & (~inside | (shift == 0.0))
            los.append(ci[ok] * 8.0 + lo[ok])
            his.append(ci[ok] * 8.0 + hi[ok])
            ks.append(ck[ok])
        out = (np.concatenate(los), np.concatenate(his), np.concatenate(ks))
        cache[ck_key] = out
        return out

    def clear(self, s: np.ndarray, r: float, P: np.ndarray) -> np.ndarray:
        ok = np.ones(len(P), dtype=bool)
        if len(P) == 0:
            return ok
        if len(self.dc):
            d = _seg_point_dist(s, P, self.dc)
            ok &= np.all(d >= r + self.dr[None, :] - EPS, axis=1)
        if len(self.oc):
            # curved parts we do not solve here: clear only when far from their bounds
            d = _seg_point_dist(s, P, self.oc)
            ok &= np.all(d >= r + self.orad[None, :] + EPS, axis=1)
        for V in self.polys:
            idx = np.nonzero(ok)[0]
            if len(idx) == 0:
                break
            Q = P[idx]
            A, B = V, np.roll(V, -1, axis=0)
            near = np.all(_seg_point_dist(s, Q, V) >= r - EPS, axis=1)
            # the segment's end points against the polygon
            from ...geometry.shapes import polygon_point_signed_distance

            near &= polygon_point_signed_distance(V, Q) >= r - EPS
            near &= polygon_point_signed_distance(V, s[None])[0] >= r - EPS
            # the segment against every edge (distance between segments)
            cross = np.any(_segments_cross(s, Q, A, B), axis=1)
            near &= ~cross
            ok[idx] = near
        return ok


@dataclass
class Bank:
    """Candidate spots shared by every model with one base shape."""

    pts: np.ndarray
    z: np.ndarray
    ok: np.ndarray  # fits there: board, terrain, other units, non-target ER
    contact: np.ndarray  # base contact with some target model
    er: np.ndarray  # (k, nT) within engagement range of target unit j
    dist: np.ndarray  # (k, nT) distance to target unit j
    tok: np.ndarray  # (k, nT) touching a ruin wall, within 2" of target j across it
    bar: np.ndarray  # (k, nT) touching a barricade, within 2" of target j across it


@dataclass
class Cands:
    """The spots one model can use, with its own path costs."""

    pts: np.ndarray
    z: np.ndarray
    cost: np.ndarray
    ok: np.ndarray
    contact: np.ndarray
    er: np.ndarray
    dist: np.ndarray
    closer: np.ndarray

    def take(self, mask: np.ndarray) -> Cands:
        return Cands(*(getattr(self, f)[mask] for f in ("pts", "z", "cost", "ok", "contact", "er", "dist", "closer")))


@dataclass
class Placement:
    pos: dict[str, np.ndarray]  # model id -> xy
    z: dict[str, float]
    cost: dict[str, float]
    order: list[str]
    contacts: dict[str, list[str]] = field(default_factory=dict)
    #: how a model engages when not by normal engagement range: "token" (WTC walls)
    via: dict[str, str] = field(default_factory=dict)

    @property
    def max_cost(self) -> float:
        return max(self.cost.values()) if self.cost else 0.0


def furthest(legal, hi: float, iters: int = 50) -> float:  # noqa: ANN001
    """The longest step s in [0, hi] with legal(s), by bisection (legal is assumed to
    hold up to some length and fail beyond it); 0 when even tiny steps fail."""
    if legal(hi):
        return hi
    lo = 0.0
    for _ in range(iters):
        mid = (lo + hi) / 2
        if legal(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _floor_edge_crossings(rm: float, ts: list[Model], loci: list[float], poly) -> np.ndarray:  # noqa: ANN001
    """Where a round base of radius rm, at each gap of ``loci`` from a round target
    model, just fits on the floor: the crossings of the target's locus (a circle) with
    each side of the floor moved inward by rm (closed form, circle x line)."""
    ring = np.asarray(poly.exterior.coords)[:-1]
    if not shapely.geometry.LinearRing(ring).is_ccw:
        ring = ring[::-1]
    out = []
    for t in ts:
        if not t.fp.is_disc:
            continue
        c = t.xy
        for d in loci:
            R = t.fp.radius + rm + d
            for a, b in zip(ring, np.roll(ring, -1, axis=0), strict=True):
                e = b - a
                L = float(np.hypot(*e))
                if L == 0:
                    continue
                u = e / L
                n = np.array([-u[1], u[0]])  # inward for a counter-clockwise outline
                p0 = a + rm * n  # a point of the moved side
                # points p0 + s u at distance R from c
                w = p0 - c
                bq = float(w @ u)
                disc = bq * bq - (float(w @ w) - R * R)
                if disc < 0:
                    continue
                for sgn in (-1.0, 1.0):
                    out.append(p0 + (-bq + sgn * math.sqrt(disc)) * u)
    return np.array(out).reshape(-1, 2)


def coherency_adjacency(models: list[Model], pos: dict[str, np.ndarray], z: dict[str, float], r, slack: float = 0.0) -> np.ndarray:  # noqa: ANN001
    """Which pairs of models are within coherency (2" horizontally, 5" vertically) at the
    given positions: exact distances, one matrix for round bases."""
    n = len(models)
    P = np.array([pos[m.id] for m in models]).reshape(-1, 2)
    Z = np.array([z[m.id] for m in models])
    if all(m.fp.is_disc for m in models):
        rad = np.array([m.fp.radius for m in models])
        sd = pair_norm(P, P) - rad[:, None] - rad[None]
    else:
        sd = np.full((n, n), np.inf)
        for i in range(n):
            fi = models[i].fp.moved_to(P[i])
            for j in range(i + 1, n):
                sd[i, j] = sd[j, i] = float(sd_many(models[j].fp, P[j][None], fi)[0])
    adj = (sd <= r.coh + slack) & (np.abs(Z[:, None] - Z[None]) <= r.coh_v + slack)
    np.fill_diagonal(adj, False)
    return adj


def coherent(models: list[Model], pl: Placement, r, two: bool, slack: float = 0.0) -> bool:  # noqa: ANN001
    """One connected group with links within 2"/5"; two links each when required.
    ``slack``: each distance limit is that much longer (ChargeProblem.fit's check)."""
    n = len(models)
    if n <= 1:
        return True
    adj = coherency_adjacency(models, pl.pos, pl.z, r, slack)
    if np.any(adj.sum(axis=1) < (2 if two else 1)):
        return False
    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        nxt = adj[frontier].any(axis=0) & ~seen
        seen |= nxt
        frontier = nxt
    if not seen.all():
        return False
    spread = r.ed.max_spread
    if spread is not None:
        # edition 11: no two models of the unit farther apart than the spread limit
        gaps = base_gaps(models, pl.pos)
        if np.any(gaps > spread * r.inch + slack):
            return False
    return True


def base_gaps(models: list[Model], pos: dict[str, np.ndarray]) -> np.ndarray:
    """Horizontal base-to-base distances between every pair of models (n, n)."""
    n = len(models)
    P = np.array([pos[m.id] for m in models]).reshape(-1, 2)
    if all(m.fp.is_disc for m in models):
        rad = np.array([m.fp.radius for m in models])
        g = pair_norm(P, P) - rad[:, None] - rad[None]
    else:
        g = np.zeros((n, n))
        for i in range(n):
            fi = models[i].fp.moved_to(P[i])
            for j in range(i + 1, n):
                g[i, j] = g[j, i] = float(sd_many(models[j].fp, P[j][None], fi)[0])
    np.fill_diagonal(g, 0.0)
    return g

