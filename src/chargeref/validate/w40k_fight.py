"""Independent checker for 40k fight-phase moves: pile in and consolidation rulings
(procedures ``pile_in`` and ``consolidate``), WTC walls tokens included.

Like :mod:`chargeref.validate.w40k` it imports nothing from ``chargeref.systems``:
every rule is written again here from the scenario and the ruling. It reuses the
charge validator's context, move-cost and end-position checks (the same rules apply to
any move), with a 3" budget.

Rules checked (stable codes):

* ``over_budget``, ``path_blocked``, ``path_mismatch``, ``distance_mismatch``,
  ``overlap``, ``in_terrain``, ``off_board``, ``after_mismatch``, ``facing_changed``:
  as for charges, the budget being 3" (a pivot's length included).
* Pivots (``w40k_pivot``, read first): ``bad_pivot``, ``pivot_cost`` (the turn's
  length, ``R·|Δ|``), ``pivot_blocked`` (the swept area enters terrain or a model a path
  may not cross), ``off_board`` (the swept area leaves the board); the facing a move's
  pivots leave is the one ``facing_changed`` expects. No engagement range is out of
  bounds for a fight-phase sweep.
* ``not_coherent``: the unit ends coherent (when some model moved).
* ``not_closer``: a model that moves ends strictly closer to an enemy model that was
  closest to it when the move began (3D gap between the bases; ties allowed).
* ``not_engaged_after`` (edition 10): a unit whose models moved ends engaged with an
  enemy (normal range, token link or barricade link).
* Tokens (seed 000): ``token_created`` (no model gains a token in the fight phase),
  ``token_in_er`` (a token model in normal engagement range of an enemy keeps its
  token), ``token_targets_stale`` (token models without charged units, or charged units
  without token models), ``last_token_dropped`` (the pile-in dropped the unit's last
  token while no model is in normal engagement range), ``token_removed_wrongly`` (a
  token vanished without its model reaching normal engagement range, outside the
  pile-in choice, while its unit is still in combat), ``token_not_piled_in`` (pile in:
  a token model kept still with its token although a pile-in move reached a normal
  legal position), ``token_not_legal`` (consolidation: a token model moved but not into
  a normal legal position although a move reached one).
* ``engaged_mismatch``: ``engaged`` is the set of enemy units engaged at the end.
* ``attacks_mismatch``: ``details.attacks`` (when given) names, for every model, the
  enemy units it may attack: engagement range, token and barricade links, and the
  edition's chain (9: within 1/2" of a friend within 1/2" of an enemy; 10: base contact
  with a friend in base contact with an enemy).

The legal-position search tries straight moves from the start and real paths round
what is in the way (``w40k_reach``: any base, without turning; onto or off a floor the
vertical change is added); no pivots. Among
straight moves it is complete up to the tolerance: its candidates are the constructed
vertices of the arrangement of every rule's boundary (``w40k_fight_spot``), each
verified exactly; for real paths it adds where each locus enters the reach
(``w40k_duty.reach_roots``). A found spot is a proven duty.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..budget import check as _budget_check
from ..geometry.bases import base_footprint
from ..geometry.shapes import TOL, Capsule, Convex, ConvexPolygon, Disc, Footprint, signed_distance
from ..ruling import Ruling
from ..scenario import Scenario40k
from ..systems.w40k.editions import edition as _edition
from . import Violation
from . import w40k_fight_spot as fight_spot
from .w40k import (
    COH_H,
    ER_H,
    ER_V,
    Ctx,
    Placed,
    _axis_extent,
    _blocks_ending,
    _build,
    _crossing_cost,
    _floor_ok,
    _ground,
    _hdist,
    _penetrates,
    _same_xy,
    _within,
    check_after,
    check_end_positions,
    check_facing,
    check_paths,
    coherency_problems,
    path_cost,
)
from .w40k_duty import STRICT_MARGIN, reach_roots, sd_to_each, shadow_lines
from .w40k_pivot import check_pivots
from .w40k_reach import ReachField, level_field, vertical
from .w40k_reach import board_lines as board_box

#: edition 11 engagement range (the editions table)
ER_H_ED11 = _edition(11).er

#: Pile-in and consolidation: the most a model may move (inches).
FIGHT_MOVE = 3.0
#: WTC walls tokens and barricades: reach across the feature (inches).
ACROSS_H = 2.0
#: Edition 9 chain distance (inches).
CHAIN_9 = 0.5

FIGHT_PROCEDURES = frozenset({"pile_in", "consolidate"})


# --------------------------------------------------------------------------- geometry


def _nearest_on_polygon(V: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Closest point of a convex polygon's boundary-or-inside to p."""
    n = len(V)
    best, bd = p, math.inf
    inside = True
    area = float(np.sum(V[:, 0] * np.roll(V[:, 1], -1) - np.roll(V[:, 0], -1) * V[:, 1]))
    sgn = 1.0 if area >= 0 else -1.0
    for i in range(n):
        a, b = V[i], V[(i + 1) % n]
        ab = b - a
        if sgn * (ab[0] * (p[1] - a[1]) - ab[1] * (p[0] - a[0])) < 0:
            inside = False
        t = min(1.0, max(0.0, float((p - a) @ ab) / float(ab @ ab)))
        q = a + t * ab
        d = float(np.linalg.norm(q - p))
        if d < bd:
            best, bd = q, d
    return p.copy() if inside else best


#: Closest points of two convex parts are proven to this, in the scenario's unit.
CLOSEST_TOL = 1e-9


def _diff_support(p: Convex, q: Convex, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The point of the difference body q - p farthest along u, with the point of p and
    the point of q it is made of."""
    a = p.support(-u[None])[0]
    b = q.support(u[None])[0]
    return b - a, a, b


def _nearest_on_simplex(S: list[tuple[np.ndarray, np.ndarray, np.ndarray]]):  # noqa: ANN202
    """Nearest point to the origin of the hull of 1 or 2 simplex points: (v, weights,
    the points that carry it)."""
    if len(S) == 1:
        return S[0][0], [1.0], S
    z0, z1 = S[0][0], S[1][0]
    e = z1 - z0
    L2 = float(e @ e)
    t = 0.0 if L2 == 0.0 else min(1.0, max(0.0, -float(z0 @ e) / L2))
    if t == 0.0:
        return z0, [1.0], S[:1]
    if t == 1.0:
        return z1, [1.0], S[1:]
    return z0 + t * e, [1.0 - t, t], S


def _part_closest(p: Convex, q: Convex) -> tuple[np.ndarray, np.ndarray]:
    """Closest points of two convex parts: the centre line for two discs; otherwise
    Gilbert's algorithm on the difference body q - p (the validator's own copy), and
    when the parts overlap the expanding polygon for the deepest direction. Both stop
    on a proof: a pair of actual points no farther apart than the lower bound a
    direction gives plus ``CLOSEST_TOL``. Polygons then take exact projections (their
    support points are not unique along a flat side)."""
    if isinstance(p, Disc) and isinstance(q, Disc):
        d = q.center - p.center
        n = float(np.linalg.norm(d))
        u = d / n if n > 0 else np.array([1.0, 0.0])
        return p.center + p.r * u, q.center - q.r * u
    v = q.center - p.center
    if float(np.hypot(*v)) == 0.0:
        v = np.array([1.0, 0.0])
    S = [_diff_support(p, q, v / float(np.hypot(*v)))]
    a = b = None
    overlap = False
    for _ in range(400):
        v, wts, S = _nearest_on_simplex(S)
        a = sum(w * s[1] for w, s in zip(wts, S, strict=True))
        b = sum(w * s[2] for w, s in zip(wts, S, strict=True))
        nv = float(np.hypot(*v))
        if nv <= CLOSEST_TOL:
            overlap = True
            break
        z, za, zb = _diff_support(p, q, -v / nv)
        if nv - float(v @ z) / nv <= CLOSEST_TOL:  # upper |v| minus lower v.z/|v|
            break
        if len(S) == 2:
            z0, z1 = S[0][0], S[1][0]
            # the new point and the simplex enclose the origin: the parts overlap
            cr = lambda m, n: float(m[0] * n[1] - m[1] * n[0])  # noqa: E731
            s0, s1, s2 = cr(z1 - z0, -z0), cr(z - z1, -z1), cr(z0 - z, -z)
            if (s0 >= 0 and s1 >= 0 and s2 >= 0) or (s0 <= 0 and s1 <= 0 and s2 <= 0):
                S = [*S, (z, za, zb)]
                overlap = True
                break
            # keep the edge of the triangle nearest the origin
            best = None
            for pair in ((S[0], (z, za, zb)), (S[1], (z, za, zb)), (S[0], S[1])):
                vv, _, sub = _nearest_on_simplex(list(pair))
                if best is None or float(vv @ vv) < best[0]:
                    best = (float(vv @ vv), list(pair))
            S = best[1]
        else:
            S = [*S, (z, za, zb)]
    if overlap:
        a, b = _deepest(p, q, S)
    if isinstance(q, ConvexPolygon):
        b = _nearest_on_polygon(q.V, a)
    if isinstance(p, ConvexPolygon):
        a = _nearest_on_polygon(p.V, b)
    if isinstance(q, ConvexPolygon):
        b = _nearest_on_polygon(q.V, a)
    return np.asarray(a, dtype=float), np.asarray(b, dtype=float)


def _deepest(p: Convex, q: Convex, S: list) -> tuple[np.ndarray, np.ndarray]:
    """Overlapping parts: grow a polygon inside q - p round the origin, always at its
    edge nearest the origin, until that edge is within ``CLOSEST_TOL`` of the body's
    support line along its normal; the support points along that normal are the pair
    of points that penetrate deepest."""
    pts = [s for s in S]
    for u in ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)):
        pts.append(_diff_support(p, q, np.array(u)))
    # order round the origin's side: by angle of the points about their mean
    cen = np.mean([s[0] for s in pts], axis=0)
    pts.sort(key=lambda s: math.atan2(s[0][1] - cen[1], s[0][0] - cen[0]))
    best = pts[0]
    for _ in range(400):
        Z = np.array([s[0] for s in pts])
        E = np.roll(Z, -1, axis=0) - Z
        L = np.hypot(E[:, 0], E[:, 1])
        ok = L > 1e-12 * (1.0 + float(np.max(np.abs(Z))))
        N = np.zeros_like(E)
        N[ok] = np.stack([E[ok, 1], -E[ok, 0]], axis=-1) / L[ok, None]
        dist = np.where(ok, np.einsum("ij,ij->i", N, Z), np.inf)
        j = int(np.argmin(dist))
        z, za, zb = _diff_support(p, q, N[j])
        best = (z, za, zb)
        if float(N[j] @ z) - float(dist[j]) <= CLOSEST_TOL:
            break
        pts.insert(j + 1, best)
    return best[1], best[2]


def closest_pair(A: Footprint, B: Footprint) -> tuple[np.ndarray, np.ndarray]:
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for p in A.parts:
        for q in B.parts:
            a, b = _part_closest(p, q)
            d = float(np.linalg.norm(b - a))
            if best is None or d < best[0]:
                best = (d, a, b)
    assert best is not None
    return best[1], best[2]


def segment_through(a: np.ndarray, b: np.ndarray, V: np.ndarray) -> bool:
    """Does the segment a-b pass through the interior of the convex polygon V?
    Cyrus-Beck clipping against each edge's half-plane, then a strict test at the
    middle of the clipped piece (a segment running along an edge stays outside)."""
    d = b - a
    if float(np.linalg.norm(d)) == 0.0:
        return False
    area = float(np.sum(V[:, 0] * np.roll(V[:, 1], -1) - np.roll(V[:, 0], -1) * V[:, 1]))
    W = V if area >= 0 else V[::-1]
    t0, t1 = 0.0, 1.0
    normals, offs = [], []
    for i in range(len(W)):
        p, q = W[i], W[(i + 1) % len(W)]
        e = q - p
        n = np.array([e[1], -e[0]]) / float(np.linalg.norm(e))  # outward for CCW
        h = float(n @ p)
        normals.append(n)
        offs.append(h)
        num, den = h - float(n @ a), float(n @ d)
        if den == 0.0:
            if num < 0:
                return False
            continue
        t = num / den
        if den > 0:
            t1 = min(t1, t)
        else:
            t0 = max(t0, t)
        if t0 > t1:
            return False
    if t1 - t0 <= 1e-12:
        return False
    mid = a + 0.5 * (t0 + t1) * d
    return max(float(n @ mid) - h for n, h in zip(normals, offs, strict=True)) < -1e-12


def _er_h(ctx: Ctx) -> float:
    """Horizontal engagement range: 1", or 2" in edition 11 (rules-notes §1.13; pile in
    and consolidation otherwise as in edition 10, UNVERIFIED there)."""
    return (ER_H_ED11 if ctx.edition == 11 else ER_H) * ctx.inch


def _feature_between(ctx: Ctx, a: Placed, b: Placed, kind: str) -> bool:
    """Within 2" horizontally and 5" vertically, and the segment joining the two bases'
    closest points runs through a feature of this kind."""
    feats = [f for f in ctx.features if f.kind == kind]
    if not feats or abs(a.z - b.z) > ER_V * ctx.inch + TOL:
        return False
    if math.dist(a.xy, b.xy) - a.fp.radius - b.fp.radius > ACROSS_H * ctx.inch + TOL:
        return False
    if signed_distance(a.fp, b.fp) > ACROSS_H * ctx.inch + TOL:
        return False
    pa, pb = closest_pair(a.fp, b.fp)
    return any(
        segment_through(pa, pb, part.V) for f in feats for part in f.fp.parts if isinstance(part, ConvexPolygon)
    )


# --------------------------------------------------------------------------- state


class State:
    """Who carries a token and whom each unit charged, at one moment."""

    def __init__(self, ctx: Ctx, at_end: bool):
        scen = ctx.after if (at_end and ctx.after is not None) else ctx.before
        self.ctx = ctx
        self.where = ctx.end if at_end else ctx.start
        self.token = {m.id for u in scen.units for m in u.models if m.token and m.id in self.where}
        self.targets = {u.id: list(u.token_targets) for u in scen.units}
        self.player = {u.id: u.player for u in scen.units}
        self.members: dict[str, list[Placed]] = {}
        for p in self.where.values():
            if p.id not in ctx.casualties:
                self.members.setdefault(p.unit, []).append(p)

    def enemies_of(self, unit: str) -> list[Placed]:
        me = self.player[unit]
        return [p for u, ps in self.members.items() if self.player[u] != me for p in ps]

    def in_er(self, a: Placed, b: Placed) -> bool:
        return _within(a, b, _er_h(self.ctx), ER_V * self.ctx.inch)

    def token_link(self, a: Placed, b: Placed) -> bool:
        """WTC walls: a token model and a model of a unit its unit charged, within 2"
        (5" vertically), a ruin wall between them; either way round."""
        if a.player == b.player:
            return False
        pair = (a.id in self.token and b.unit in self.targets.get(a.unit, [])) or (
            b.id in self.token and a.unit in self.targets.get(b.unit, [])
        )
        return pair and _feature_between(self.ctx, a, b, "ruin_wall")

    def link(self, a: Placed, b: Placed) -> str | None:
        if a.player == b.player:
            return None
        if self.in_er(a, b):
            return "er"
        if self.token_link(a, b):
            return "token"
        if _feature_between(self.ctx, a, b, "barricade"):
            return "barricade"
        return None

    def engaged(self, unit: str) -> set[str]:
        foes = self.enemies_of(unit)
        return {b.unit for a in self.members.get(unit, []) for b in foes if self.link(a, b)}

    def normal_er(self, unit: str) -> bool:
        foes = self.enemies_of(unit)
        return any(self.in_er(a, b) for a in self.members.get(unit, []) for b in foes)

    def attacks(self, unit: str) -> dict[str, set[str]]:
        inch = self.ctx.inch
        mine = self.members.get(unit, [])
        foes = self.enemies_of(unit)
        out: dict[str, set[str]] = {a.id: {b.unit for b in foes if self.link(a, b)} for a in mine}
        for a in mine:
            for f in mine:
                if f.id == a.id:
                    continue
                if self.ctx.edition == 9:
                    h = CHAIN_9 * inch
                    if not _within(a, f, h, ER_V * inch):
                        continue
                    out[a.id] |= {b.unit for b in foes if _within(f, b, h, ER_V * inch)}
                else:
                    if not _within(a, f, 0.0, 0.0):
                        continue
                    out[a.id] |= {b.unit for b in foes if _within(f, b, 0.0, 0.0)}
        return out


# --------------------------------------------------------------------------- checks


def _gap3(a: Placed, b: Placed) -> float:
    return math.hypot(_hdist(a, b), a.z - b.z)


def _moved(ctx: Ctx, mid: str) -> bool:
    s, e = ctx.start.get(mid), ctx.end.get(mid)
    return s is not None and e is not None and (not _same_xy(s.xy, e.xy) or abs(s.z - e.z) > TOL)


def check_fight_pivots(ctx: Ctx) -> list[Violation]:
    """The charge validator's pivot checks (cost, blocked sweep, the facing left, the
    board) on a fight-phase move. No enemy unit's engagement range is out of bounds in
    the fight phase: every enemy unit counts as one the move is made toward, so the
    sweep is only kept out of what a path may not cross."""
    foes = tuple(u.id for u in ctx.before.units if u.player != ctx.charger.player)
    # a shallow copy: the pivots' results land in the same dictionaries as ``ctx``'s
    return check_pivots(replace(ctx, targets=list(foes)))


def check_fight_closer(ctx: Ctx) -> list[Violation]:
    """A model that moves ends strictly closer to an enemy model that was closest to it
    when the move began."""
    out: list[Violation] = []
    start = State(ctx, False)
    for mid in ctx.moves:
        if not _moved(ctx, mid):
            continue
        s, e = ctx.start[mid], ctx.end[mid]
        foes = start.enemies_of(s.unit)
        if not foes:
            continue
        d = [_gap3(s, f) for f in foes]
        d0 = min(d)
        nearest = [f for f, x in zip(foes, d, strict=True) if x <= d0 + TOL]
        if not any(_gap3(e, ctx.end.get(f.id, f)) < d0 - TOL for f in nearest):
            out.append(Violation("not_closer", f"{mid} does not end closer to {nearest[0].id}, the enemy model closest to it",
                                 (mid, nearest[0].id)))
    return out


def check_fight_engaged(ctx: Ctx) -> list[Violation]:
    """Edition 10: a unit whose models move ends engaged with an enemy unit."""
    if ctx.edition not in (10, 11) or not any(_moved(ctx, m) for m in ctx.moves):
        return []
    if State(ctx, True).engaged(ctx.charger.id):
        return []
    return [Violation("not_engaged_after", f"{ctx.charger.id} moved but ends engaged with no enemy unit",
                      tuple(sorted(m for m in ctx.moves if _moved(ctx, m))))]


def check_tokens(ctx: Ctx) -> list[Violation]:
    """Tokens only disappear for a reason, never appear, and leave with their
    charged-unit list (seed 000, steps 6 to 10)."""
    out: list[Violation] = []
    s0, s1 = State(ctx, False), State(ctx, True)
    unit = ctx.charger.id
    for mid in sorted(s1.token - s0.token):
        out.append(Violation("token_created", f"{mid} gains a token in the fight phase", (mid,)))
    for u, tl in s1.targets.items():
        if set(tl) - set(s0.targets.get(u, [])):
            out.append(Violation("token_created", f"{u} gains charged units {sorted(set(tl) - set(s0.targets.get(u, [])))}"))
        has = [p.id for p in s1.members.get(u, []) if p.id in s1.token]
        if has and not tl:
            out.append(Violation("token_targets_stale", f"{u} has tokens ({', '.join(has)}) but no charged units", tuple(has)))
        if tl and not has:
            out.append(Violation("token_targets_stale", f"{u} has no token left but still lists {tl} as charged units"))
    for mid in sorted(s1.token):
        e = ctx.end[mid]
        hit = next((b for b in s1.enemies_of(e.unit) if s1.in_er(e, b)), None)
        if hit is not None:
            out.append(Violation("token_in_er", f"{mid} keeps its token within normal engagement range of {hit.id}", (mid, hit.id)))
    # removals
    removed = sorted(m for m in s0.token - s1.token if m in ctx.end)
    if not removed:
        return out
    kept_start = State(ctx, True)
    kept_start.token = set(s0.token) & set(ctx.end)  # the end positions, the start tokens
    kept_start.targets = {u: [t for t in tl if s1.members.get(t)] for u, tl in s0.targets.items()}
    for mid in removed:
        e = ctx.end[mid]
        u = e.unit
        if not s0.engaged(u) or not [t for t in s0.targets.get(u, []) if s0.members.get(t)]:
            continue  # already out of combat, or nothing left to fight, when the move began
        if any(s0.in_er(ctx.start[mid], b) for b in s0.enemies_of(u)):
            continue  # already in normal engagement range when the move began
        if any(s1.in_er(e, b) for b in s1.enemies_of(u)):
            continue  # reached normal engagement range: the token goes
        if not kept_start.targets.get(u):
            continue  # none of the units it charged is left
        if not kept_start.engaged(u):
            continue  # its unit is out of combat
        if u == unit and ctx.ruling.procedure == "pile_in":
            # the pile-in choice: drop the token rather than pile in, unless it was the
            # unit's last one and no model is in normal engagement range
            # (dropping may not take the unit out of combat)
            left = [p.id for p in s1.members.get(u, []) if p.id in s1.token]
            if left or s1.engaged(u):
                continue
            out.append(Violation("last_token_dropped", f"{mid}'s token was dropped and leaves {u} out of combat (no model in normal engagement range)", (mid,)))
            continue
        out.append(Violation("token_removed_wrongly", f"{mid} lost its token without reaching normal engagement range while {u} is still in combat", (mid,)))
    return out


def _spot_curves(ctx: Ctx, s: Placed, base0: Footprint, enemies: list[Placed], nearest: list[Placed], d0: float,
                 others: list[Placed], mates: list[Placed], zs: list[float]) -> list[tuple[Footprint, float]]:
    """The loci bounding the rule regions of a normal legal position (see
    ``w40k_fight_spot``): (footprint, gap) pairs for the model's base."""
    er_h = _er_h(ctx)
    inch = ctx.inch
    loci: list[tuple[Footprint, float]] = []
    for e in enemies:
        loci += [(e.fp, 0.0), (e.fp, er_h)]
    # strictly closer (3D gap below d0 - TOL) to an enemy closest at the start, for each
    # height the spot may stand at: the horizontal gap at which the 3D gap is that much
    for f in nearest:
        for k in sorted({round(math.sqrt(max((d0 - TOL) ** 2 - (z - f.z) ** 2, 0.0)), 12)
                         for z in zs if d0 - TOL > abs(z - f.z)}):
            if k - STRICT_MARGIN >= 0.0:
                loci.append((f.fp, k - STRICT_MARGIN))
    loci += [(o.fp, 0.0) for o in others]
    spread = _edition(ctx.edition).max_spread  # edition 11: no two models more than 9" apart
    coh = [COH_H * inch] + ([spread * inch] if spread is not None else [])
    loci += [(m.fp, g) for m in mates for g in coh]
    loci += [(f.fp, 0.0) for f in ctx.features if _blocks_ending(ctx, f)]
    for fl in ctx.floors:
        if any(abs(fl.height - z) <= TOL for z in zs):
            loci += [(Footprint((Capsule(a, b, 0.0),), "wall", a), 0.0) for a, b in fl.edges]
    if s.fp.is_disc:
        # where the centre crosses a hill's edge grown by TOL (the ground under it, and
        # so the spot's height, changes): a round base at gap TOL - r from the hill
        r = float(s.fp.parts[0].r)  # type: ignore[attr-defined]
        loci += [(fp, TOL - r) for fp, _ in ctx.hills]
    return loci


def legal_spot(ctx: Ctx, mid: str) -> tuple[np.ndarray, str] | None:
    """A normal legal position for ``mid`` by a fight move from its start (straight, or
    along a real path round obstacles, the base not turning):
    within 1" (and 5" vertically) of an enemy model, closer to the enemy model closest
    at the start, within 3", on the board, overlapping nothing where the others ended,
    out of terrain, with the unit coherent. None if there is none among the constructed
    candidates (``w40k_fight_spot``: the vertices of the arrangement of every rule's
    boundary), which proves there is none for straight moves (docs/validator.md), and
    where a stretch fails on the reach alone, the points where a locus enters the reach
    along real paths."""
    s = ctx.start[mid]
    m = s.model
    base0 = base_footprint(m.base.kind, m.base.dims, (0.0, 0.0), m.facing, ctx.mmpu)
    budget = FIGHT_MOVE * ctx.inch
    er_h, er_v = _er_h(ctx), ER_V * ctx.inch
    st = State(ctx, True)
    foes_start = State(ctx, False).enemies_of(s.unit)
    if not foes_start:
        return None
    d = [_gap3(s, f) for f in foes_start]
    d0 = min(d)
    nearest = [ctx.end.get(f.id, f) for f, x in zip(foes_start, d, strict=True) if x <= d0 + TOL]
    x0, x1, y0, y1 = _axis_extent(base0)
    W, D = ctx.before.board.width, ctx.before.board.depth
    others = [p for q, p in ctx.end.items() if q != mid and q not in ctx.casualties]
    mates = [p for p in st.members.get(s.unit, []) if p.id != mid]
    blocking = [f for f in ctx.features if _blocks_ending(ctx, f)]
    sxy = np.asarray(s.xy, dtype=float)
    enemies = [e for e in st.enemies_of(s.unit)
               if math.dist(e.xy, s.xy) - e.fp.radius - base0.radius <= budget + er_h + TOL]
    if not enemies:
        return None
    # the heights a spot may stand at: an enemy's, or the ground's (a hill's or 0)
    zs = sorted({0.0, s.z, *(e.z for e in enemies), *(h for _, h in ctx.hills)})
    mover = base0.translated(s.xy)
    loci = _spot_curves(ctx, s, base0, enemies, nearest, d0, others, mates, zs)
    kw = ctx.keywords(s.unit)
    charges = [c for f in ctx.features if (c := _crossing_cost(ctx, f, kw))]
    climbs = [abs(z - s.z) for z in zs if abs(z - s.z) > ctx.climb_free + TOL]
    radii = [budget - c for c in fight_spot.charge_sums(charges, climbs, budget)]
    board = [(0, -x0), (0, W - x1), (1, -y0), (1, D - y1)]
    rays = shadow_lines(mover, [o.fp for o in others] + [f.fp for f in ctx.features])
    cands = fight_spot.candidates(mover, loci, radii, board, rays)
    if not len(cands):
        return None
    # the tests that do not depend on the spot's height, on all candidates at once
    keep = np.hypot(*(cands - sxy).T) <= budget + TOL
    keep &= (cands[:, 0] + x0 >= -TOL) & (cands[:, 0] + x1 <= W + TOL)
    keep &= (cands[:, 1] + y0 >= -TOL) & (cands[:, 1] + y1 <= D + TOL)
    cands = cands[keep]
    if not len(cands):
        return None
    gap_e = sd_to_each(base0, cands, [e.fp for e in enemies], er_h + 1.0)
    keep = (gap_e <= er_h + TOL).any(axis=1)
    # closer: the 3D gap is at least the horizontal one, which must be below d0 - TOL
    keep &= (sd_to_each(base0, cands, [f.fp for f in nearest], d0) < d0 - TOL).any(axis=1)
    if blocking:
        keep &= (sd_to_each(base0, cands, [f.fp for f in blocking], 0.0) >= -TOL).all(axis=1)
    cands, gap_e = cands[keep], gap_e[keep]
    fields: dict[float, ReachField | None] = {}

    def field(z: float) -> ReachField | None:
        """The real-path field of the model from its start to height ``z`` (built once
        per height, on demand), measuring up to an inch past the 3" (so the reach
        search can drop stretches)."""
        if z not in fields:
            fields[z] = level_field(ctx, s, budget + ctx.inch, z)
        return fields[z]

    short = False

    def try_spot(q: np.ndarray, gaps: np.ndarray) -> str | None:
        """The enemy whose range the spot ``q`` is a normal legal position in, or None;
        notes (``short``) a spot that fails on the reach alone."""
        nonlocal short
        xy = (float(q[0]), float(q[1]))
        fp = base0.translated(xy)
        ground = _ground(xy, ctx.hills)
        for j in np.flatnonzero(gaps <= er_h + TOL):
            e = enemies[int(j)]
            z = e.z if abs(e.z - ground) > TOL else ground
            p = Placed(mid, s.unit, s.player, m, xy, z, ground, fp)
            if not _within(p, e, er_h, er_v):
                continue
            if not any(_gap3(p, f) < d0 - TOL for f in nearest):
                continue
            if any(abs(o.z - z) <= TOL and _penetrates(fp, o.fp) for o in others):
                continue
            if any(_penetrates(fp, f.fp) for f in blocking):
                continue
            if p.elevated and _floor_ok(ctx, s.unit, fp, z) is not None:
                continue
            if coherency_problems([*mates, p], ctx.edition, ctx.inch):
                continue
            cost = path_cost(ctx, s, [s.xy, xy], z, p.elevated)
            if not (cost.blocked or cost.total > budget + TOL):
                return e.id
            # a real path round what is in the way, the climb onto a floor (or down
            # from one) counted as every move counts it
            fld = field(z)
            if fld is not None and float(fld.cost(q[None])[0]) + vertical(ctx, s, z, p.elevated) <= budget + TOL:
                return e.id
            short = short or (fld is not None and abs(z - s.z) <= TOL and not p.elevated)
        return None

    order = np.argsort(np.hypot(*(cands - sxy).T), kind="stable")
    for i in order:
        _budget_check()
        got = try_spot(cands[i], gap_e[i])
        if got is not None:
            return cands[i], got
    fld = field(s.z) if short else None
    if fld is None:
        return None
    # some spot obeys every rule but the reach: where the loci enter the reach along
    # real paths (w40k_duty.reach_roots, proven isolation), on every locus that can
    # come within range of an enemy and within the reach of the start
    walls = [(w, False) for w in fld.walls]
    lines = board_box(fld)
    for fp, k in loci:
        if k < 0.0 or math.dist(s.xy, fp.center) - fp.radius - base0.radius - k > budget + TOL:
            continue
        if not any(math.dist(e.xy, fp.center) <= fp.radius + k + e.fp.radius + 2 * base0.radius + er_h + TOL
                   for e in enemies):
            continue
        _budget_check()
        roots = reach_roots(mover, fp, k, fld.cost, budget, limit=fld.limit, walls=walls, lines=lines,
                            field_mover=fld.stand_in)
        if not len(roots):
            continue
        gaps = sd_to_each(base0, roots, [e.fp for e in enemies], er_h + 1.0)
        for i in np.argsort(np.hypot(*(roots - sxy).T), kind="stable"):
            got = try_spot(roots[i], gaps[i])
            if got is not None:
                return roots[i], got
    return None


def check_token_duty(ctx: Ctx) -> list[Violation]:
    """Pile in: a token model that could pile in to a normal legal position must do so
    or drop its token. Consolidation: a token model that moves must take a normal legal
    position if it can."""
    out: list[Violation] = []
    s0, s1 = State(ctx, False), State(ctx, True)
    for mid in sorted(s0.token):
        if mid not in ctx.end or ctx.start[mid].unit != ctx.charger.id or mid not in s1.token:
            continue
        moved = _moved(ctx, mid)
        if ctx.ruling.procedure == "pile_in" and moved:
            continue
        if ctx.ruling.procedure == "consolidate" and not moved:
            continue
        found = legal_spot(ctx, mid)
        if found is None:
            continue
        spot, eid = found
        code = "token_not_piled_in" if ctx.ruling.procedure == "pile_in" else "token_not_legal"
        out.append(Violation(code, f"{mid} keeps its token although a move reaches a normal legal position "
                             f"within 1\" of {eid} at [{spot[0]:.4f}, {spot[1]:.4f}]", (mid, eid),
                             {"spot": [float(spot[0]), float(spot[1])], "enemy": eid}))
    return out


def check_fight_engaged_list(ctx: Ctx) -> list[Violation]:
    actual = State(ctx, True).engaged(ctx.charger.id)
    claimed = set(ctx.ruling.engaged)
    if actual != claimed:
        return [Violation("engaged_mismatch", f"`engaged` says {sorted(claimed)} but the unit ends engaged with {sorted(actual)}")]
    return []


def check_attacks(ctx: Ctx) -> list[Violation]:
    claimed = ctx.ruling.details.get("attacks")
    if not isinstance(claimed, dict):
        return []
    actual = State(ctx, True).attacks(ctx.charger.id)
    out: list[Violation] = []
    for mid in sorted(set(actual) | set(claimed)):
        a, c = actual.get(mid, set()), set(claimed.get(mid, []))
        if a != c:
            out.append(Violation("attacks_mismatch", f"{mid} may attack {sorted(a)}, the ruling says {sorted(c)}", (mid,)))
    return out


def validate_fight_move(before: Scenario40k, ruling: Ruling) -> list[Violation]:
    """Every rule a pile-in or consolidation ruling breaks (empty list: legal)."""
    ctx, problems = _build(before, ruling)
    if ctx is None:
        return problems
    ctx.budget = FIGHT_MOVE * ctx.inch
    # pivot pieces first (w40k_pivot.py): their length, their sweep, the facing they
    # leave; the other checks then see each move without them, its path travelled by
    # the base as the start pivot left it, the turns counted against the 3"
    problems.extend(check_fight_pivots(ctx))
    for check in (check_after, check_facing, check_paths, check_end_positions):
        problems.extend(check(ctx))
    if any(_moved(ctx, m) for m in ctx.moves):
        problems.extend(coherency_problems(ctx.charger_end(), ctx.edition, ctx.inch))
    for check in (check_fight_closer, check_fight_engaged, check_tokens, check_token_duty, check_fight_engaged_list,
                  check_attacks):
        problems.extend(check(ctx))
    return problems


def token_links(scen: Scenario40k, unit: str) -> list[tuple[str, str, str]]:
    """(model, enemy model, kind) for every link of ``unit`` in a scenario as it
    stands: kind ``er``, ``token`` or ``barricade`` (for tests and the charge checks)."""
    from ..ruling import Ruling as _R
    from ..scenario import scenario_to_data

    r = _R(system="40k", charger=unit, targets=[], eligible=True, success=True, procedure="pile_in",
           after=scenario_to_data(scen))
    ctx, _ = _build(scen, r)
    assert ctx is not None
    st = State(ctx, True)
    out: list[tuple[str, str, str]] = []
    for a in st.members.get(unit, []):
        for b in st.enemies_of(unit):
            k = st.link(a, b)
            if k is not None:
                out.append((a.id, b.id, k))
    return out


__all__ = [
    "FIGHT_PROCEDURES",
    "State",
    "check_tokens",
    "closest_pair",
    "legal_spot",
    "segment_through",
    "token_links",
    "validate_fight_move",
]
