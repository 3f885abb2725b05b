"""Constructed candidate spots for the fight phase's "normal legal position" search
(``w40k_fight.legal_spot``, the WTC walls token duty in pile-in and consolidation).

A normal legal position for a model, reached by a straight fight move from its start
``s``, is a centre where every one of these holds (``w40k_fight.legal_spot`` checks each
exactly): within engagement range of an enemy model; strictly closer to an enemy model
that was closest at the start; the straight move within the budget (its length plus the
terrain it crosses and the height it climbs) and not blocked; on the board; overlapping
no model and no terrain a model may not end in; on a floor when raised; the unit
coherent. Each is a region of the plane (an "any of" rule, such as engagement with
*some* enemy, is a union of regions), and the boundary of each is made of these curves:

* *loci*: the centres at a fixed gap from a footprint (``placement.OffsetCurve``): gap 0
  and the engagement range round every enemy model, the "closer" gap round every
  enemy model closest at the start (for each height the spot may stand at, pushed
  inside by ``STRICT_MARGIN`` because that rule is strict), gap 0 round every other
  model and every feature a model may not end in, the coherency range (and edition
  11's 9" spread) round every other model of the unit, the edges of floors, and for a
  round base the edges of hills grown by TOL (where the ground under the centre, and so
  the spot's height, changes);
* *circles* round ``s``: the budget, and the budget less every sum of terrain charges
  and climbs a straight move can pay within it (where a straight move of that cost
  ends);
* *lines*: the four lines that keep the base on the board;
* *rays* from ``s``: where a straight move starts or stops passing through a model or
  a feature (``w40k_duty.shadow_lines``: round movers, round, capsule or polygon
  obstacles).

So the set of legal spots is a union of cells of the arrangement of those curves, and a
non-empty cell (bounded: it lies within the budget of ``s``) has in its closure either
a vertex of the arrangement (a crossing of two curves, or the start of a ray) or a
whole closed curve that no other curve crosses. The candidates built here are exactly
those points: every pairwise crossing, the point of every locus nearest ``s`` (any
point of a locus no other curve crosses would do) and one point of every circle. For a
round base the crossings among circles, lines, rays and the loci of round, polygon and
capsule footprints are closed forms (the locus of a polygon or capsule is the shape
grown by a distance); other pairs use ``geometry.placement``'s proven root finder,
walking a model's locus rather than a wall's (it does not see the straight sides of a
capsule's locus: docs/validator.md). No spot comes from an angular
or spatial grid. A candidate is a centre on the closed boundary, so rules that hold
"within" a distance hold there exactly; the strict ones are met by the margin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..budget import check as _budget_check
from ..geometry.placement import (
    OffsetCurve,
    _polygonal,
    locus_circle_crossings,
    locus_crossings,
    locus_nearest,
)
from ..geometry.shapes import Footprint, polygon_point_signed_distance
from .w40k_duty import _circle_pairs, _disc, _line_crossings, _near


def charge_sums(charges: Sequence[float], climbs: Sequence[float], budget: float) -> list[float]:
    """Every cost a straight move can pay on top of its length and still fit the budget:
    a sum of distinct terrain charges plus at most one climb (each below the budget)."""
    sums = {0.0}
    for c in sorted(charges):
        if c <= 0:
            continue
        sums |= {x + c for x in sums if x + c < budget}
    out = set(sums)
    for dz in climbs:
        out |= {x + dz for x in sums if x + dz < budget}
    return sorted(out)


def candidates(
    mover: Footprint,
    loci: Sequence[tuple[Footprint, float]],
    radii: Sequence[float],
    lines: Sequence[tuple[int, float]],
    rays: Sequence[tuple[np.ndarray, np.ndarray]],
) -> np.ndarray:
    """The vertices of the arrangement described in the module docstring, for ``mover``
    (the base at its start, same facing; the points are centres for it): every crossing
    of two loci, of a locus with a circle of ``radii`` round the start, a board line or
    a ray, of a circle with a line or a ray, of a line with a ray; the point of every
    locus nearest the start and one point of every circle. Loci that cannot come within
    the largest radius of the start are left out (no legal spot lies beyond it)."""
    s = np.asarray(mover.center, dtype=float)
    far = max(radii) if len(radii) else 0.0
    mr = mover.radius
    # a locus lies within |gap| + both enclosing radii of its footprint's centre
    keep = [(F, k) for F, k in loci
            if float(math.dist(s, F.center)) - F.radius - mr - abs(k) <= far + 1e-6]
    out: list[np.ndarray] = []
    md = _disc(mover)
    circ = [i for i, (F, k) in enumerate(keep) if md is not None and _disc(F) is not None]
    if circ:
        assert md is not None
        C = np.array([_disc(keep[i][0])[:2] for i in circ])  # type: ignore[index]
        R = np.array([_disc(keep[i][0])[2] + md[2] + keep[i][1] for i in circ])  # type: ignore[index]
        ok = R > 0
        C, R = C[ok], R[ok]
        p, _ = _circle_pairs(C, R, C, R)
        out.append(p)
    cset = set(circ)
    for i, (F, k) in enumerate(keep):
        _budget_check()
        out.append(locus_nearest(mover, F, k, s).reshape(-1, 2))
        for rho in radii:
            out.append(locus_circle_crossings(mover, F, k, s, rho).reshape(-1, 2))
        pf = _rounded(mover, F, k)
        for axis, value in lines:
            if pf is not None:
                # a round base and a polygon or capsule: closed form (a ray along the line)
                u = np.zeros(2)
                u[1 - axis] = 1.0
                p0 = np.asarray(F.center, dtype=float).copy()
                p0[axis] = value
                span = F.radius + pf[1] + 1.0
                p0[1 - axis] -= span
                out.append(_ray_rounded_polygon(p0, u, pf[0], pf[1], 2 * span))
            else:
                out.append(_line_crossings(mover, F, k, axis, value).reshape(-1, 2))
        out.append(_ray_hits(mover, F, k, rays, far))
        for j in range(i + 1, len(keep)):
            G, g = keep[j]
            if i in cset and j in cset:
                continue  # built above in one call
            if G is F or not _near(F, G, mover, k, g):
                continue
            pg = _rounded(mover, G, g)
            if pf is not None and pg is not None:
                out.append(_rounded_pair(pf[0], pf[1], pg[0], pg[1]))
            elif _polygonal(F) is not None and _polygonal(G) is None:
                # walk the other locus: the root finder does not see the straight sides
                # of a capsule's locus (docs/validator.md)
                out.append(locus_crossings(mover, G, g, F, k).reshape(-1, 2))
            else:
                out.append(locus_crossings(mover, F, k, G, g).reshape(-1, 2))
    for rho in radii:
        if rho <= 0:
            continue
        # one point of a circle no other curve crosses
        out.append((s + np.array([rho, 0.0]))[None])
        for axis, value in lines:
            off = value - s[axis]
            if abs(off) <= rho:
                h = math.sqrt(max(rho * rho - off * off, 0.0))
                for sgn in (1.0, -1.0):
                    q = s.copy()
                    q[axis] = value
                    q[1 - axis] += sgn * h
                    out.append(q[None])
        for _, u in rays:
            out.append((s + rho * u)[None])
    for axis, value in lines:
        for _, u in rays:
            if u[axis] != 0.0:
                t = (value - s[axis]) / u[axis]
                if t >= 0.0:
                    out.append((s + t * u)[None])
    pts = np.vstack([p.reshape(-1, 2) for p in out if len(p)]) if out else np.zeros((0, 2))
    if len(pts) == 0:
        return pts
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    _, first = np.unique(np.round(pts, 9), axis=0, return_index=True)
    return pts[np.sort(first)]


def _ray_hits(mover: Footprint, F: Footprint, k: float, rays: Sequence[tuple[np.ndarray, np.ndarray]],
              far: float) -> np.ndarray:
    """Centres on the locus of ``F`` at gap ``k`` lying on one of the rays within ``far``
    of its start (farther crossings are beyond every reach circle). A ray whose first
    ``far`` does not come within the locus's enclosing radius of ``F``'s centre is
    skipped; a round locus is solved for every ray at once (a quadratic), any other
    with the proven root finder along the locus (the side of the ray's line)."""
    if not rays:
        return np.zeros((0, 2))
    P0 = np.array([p for p, _ in rays], dtype=float)
    U = np.array([u for _, u in rays], dtype=float)
    c = np.asarray(F.center, dtype=float)
    reach = F.radius + mover.radius + abs(k)
    w = c[None] - P0
    t = np.clip((w * U).sum(axis=1), 0.0, far)
    d = np.hypot(*(P0 + t[:, None] * U - c[None]).T)
    idx = np.flatnonzero(d <= reach + 1e-9)
    if not len(idx):
        return np.zeros((0, 2))
    cur = OffsetCurve(mover, F, k)
    circ = cur.is_circle()
    out: list[np.ndarray] = []
    if circ is not None:
        cc, r = circ
        W = P0[idx] - np.asarray(cc, dtype=float)[None]
        B = (W * U[idx]).sum(axis=1)
        disc = B * B - ((W * W).sum(axis=1) - r * r)
        ok = disc >= 0
        root = np.sqrt(np.maximum(disc, 0.0))
        for sgn in (-1.0, 1.0):
            tt = -B + sgn * root
            good = ok & (tt >= 0.0) & (tt <= far + 1e-6)
            out.append(P0[idx][good] + tt[good, None] * U[idx][good])
        return np.vstack(out)
    poly = _polygonal(F) if mover.is_disc else None
    if poly is not None:
        # a round base and a polygon or capsule: the locus is the polygon grown by
        # e = its rounding + the base's radius + the gap (closed form)
        V, rho = poly
        e = rho + float(mover.parts[0].r) + k  # type: ignore[attr-defined]
        for i in idx:
            out.append(_ray_rounded_polygon(P0[i], U[i], np.asarray(V, dtype=float), e, far))
        return np.vstack(out) if out else np.zeros((0, 2))
    for i in idx:
        p0, u = P0[i], U[i]
        # the side of the ray's line: linear in the point, its gradient a unit vector
        side = cur.roots(lambda P, p0=p0, u=u: (P[:, 0] - p0[0]) * u[1] - (P[:, 1] - p0[1]) * u[0], g_lip=1.0)
        tt = (side - p0[None]) @ u if len(side) else np.zeros(0)
        out.append(side[(tt >= 0.0) & (tt <= far + 1e-6)])
    return np.vstack(out) if out else np.zeros((0, 2))


def _ray_rounded_polygon(p0: np.ndarray, u: np.ndarray, V: np.ndarray, e: float, far: float) -> np.ndarray:
    """Where the ray ``p0 + t u`` (0 <= t <= far) meets the boundary of conv(V) ⊕ disc(e)
    (V: a convex polygon's vertices, or a capsule's two ends): the crossings with each
    edge pushed out by e and with each vertex's circle of radius e, kept where they lie
    on the boundary (distance to the polygon e within 1e-9)."""
    out = []
    lines, centres = _pieces(V, e)
    for v in centres:
        w = p0 - v
        b = float(w @ u)
        disc = b * b - (float(w @ w) - e * e)
        if disc >= 0:
            out.extend((-b - math.sqrt(disc), -b + math.sqrt(disc)))
    for q, tv in lines:
        # (p0 + t u - q) . n = 0, n normal to the pushed-out edge
        nrm = np.array([tv[1], -tv[0]])
        den = float(u @ nrm)
        if den != 0.0:
            out.append(float((q - p0) @ nrm) / den)
    ts = np.asarray([t for t in out if 0.0 <= t <= far + 1e-6], dtype=float)
    if not len(ts):
        return np.zeros((0, 2))
    P = p0[None] + ts[:, None] * u[None]
    return P[np.abs(_poly_dist(V, P) - e) <= 1e-9]


def _rounded(mover: Footprint, F: Footprint, k: float) -> tuple[np.ndarray, float] | None:
    """The locus of a round base at gap ``k`` from a polygon or capsule ``F`` as the
    boundary of conv(V) ⊕ disc(e): (V, e); None for other shapes or bases."""
    if not mover.is_disc:
        return None
    poly = _polygonal(F)
    if poly is None:
        return None
    V, rho = poly
    e = rho + float(mover.parts[0].r) + k  # type: ignore[attr-defined]
    return (np.asarray(V, dtype=float).reshape(-1, 2), e) if e > 0 else None


def _poly_dist(V: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Distance (signed inside a polygon) from each point to conv(V) (or a segment)."""
    if len(V) > 2:
        return polygon_point_signed_distance(V, P)
    a, b = V[0], V[-1]
    tv = b - a
    L2 = float(tv @ tv)
    sv = np.clip(((P - a) @ tv) / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(P))
    return np.hypot(*(P - (a + sv[:, None] * tv)).T)


def _pieces(V: np.ndarray, e: float) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[np.ndarray]]:
    """The boundary of conv(V) ⊕ disc(e) as the lines of its edges pushed out by e
    (point, unit direction) and the centres of its vertex circles (radius e)."""
    n = len(V)
    lines = []
    for i in range(n if n > 2 else 1):
        a, b = V[i], V[(i + 1) % n]
        tv = b - a
        L = float(np.hypot(tv[0], tv[1]))
        if L == 0.0:
            continue
        tv = tv / L
        for sgn in ((1.0,) if n > 2 else (1.0, -1.0)):
            nrm = sgn * np.array([tv[1], -tv[0]])  # outward (vertices counter-clockwise)
            lines.append((a + e * nrm, tv))
    return lines, list(V)


def _rounded_pair(V1: np.ndarray, e1: float, V2: np.ndarray, e2: float) -> np.ndarray:
    """Where the boundaries of conv(V1) ⊕ disc(e1) and conv(V2) ⊕ disc(e2) cross (closed
    form): every crossing of their edge lines and vertex circles, kept where it lies on
    both boundaries (distance to each polygon equal to its e within 1e-9)."""
    l1, c1 = _pieces(V1, e1)
    l2, c2 = _pieces(V2, e2)
    pts: list[np.ndarray] = []
    for p, u in l1:
        for q, w in l2:
            den = u[0] * w[1] - u[1] * w[0]
            if den != 0.0:
                d = q - p
                t = (d[0] * w[1] - d[1] * w[0]) / den
                pts.append(p + t * u)
    for lines, cs, e in ((l1, c2, e2), (l2, c1, e1)):
        for p, u in lines:
            for c in cs:
                wv = p - c
                b = float(wv @ u)
                disc = b * b - (float(wv @ wv) - e * e)
                if disc >= 0:
                    for t in (-b - math.sqrt(disc), -b + math.sqrt(disc)):
                        pts.append(p + t * u)
    if c1 and c2:
        got, _ = _circle_pairs(np.asarray(c1), np.full(len(c1), e1), np.asarray(c2), np.full(len(c2), e2))
        pts.extend(got)
    if not pts:
        return np.zeros((0, 2))
    P = np.asarray(pts, dtype=float).reshape(-1, 2)
    ok = (np.abs(_poly_dist(V1, P) - e1) <= 1e-9) & (np.abs(_poly_dist(V2, P) - e2) <= 1e-9)
    return P[ok]
