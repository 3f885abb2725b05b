"""Exact short cuts for threat maps: proven bounds that settle a spot without the
system's full search, and never change its answer.

Two kinds:

* **out of reach** (every system): a lower bound on the gap between the charger and
  unit B already exceeds the longest charge the rules allow. The chance is then 0 and
  nothing is solved. The bound is never larger than the true gap: for 40k the bases'
  circumscribed discs (centre distance minus both radii; exact for round bases), for
  The 9th Age and Warmaster the exact gap between the outlines (blocks; stands).
  - 40k: a target must lie within the charge range, and the shortest charge move is at
    least the gap minus the engagement range, which must fit in the largest roll (12
    plus a positive modifier). Both bounds are per pair of bases.
  - The 9th Age: any charge move brings a point of the charger's front from where it
    starts into contact (or to the half-inch spacing, when the scenario asks for it), so
    the distance the system measures is at least the gap between the two units minus
    that spacing; a charge longer than the advance rate plus the largest roll (12 on
    2D6, with a positive modifier on top) is never declared.
  - Warmaster: every cost the system compares with the unit's move is a stand's route,
    whole legs of translation plus one straight leg with the turn, priced at the
    largest displacement of the stand's corners on that leg. A point of a rectangular
    stand is a weighted mean of its corners, so no point moves farther than the corners
    do: the stand that goes first moves by at least the gap from where it starts to the
    target stand it ends against. When the gap between the two units' stands already
    exceeds the move, the charge fails. (Not used when a charging stand is a round
    character base: the system draws it as a polygon around the disc, which its corner
    price does not cover.)
* **least roll at the lower bound** (40k): the least roll is never below the gap minus
  engagement range rounded up (``ChargeProblem.lower_bound``). When the system's search
  finds a legal placement with every move within that roll, the roll is proven: the bound
  says nothing less can do, the placement says this does. Only when that one probe fails
  is the system's ``needed`` run in full (its own least-roll and least-distance search),
  so the map never reports a roll without the system's proof.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..systems import ChargeRequest

#: margin added to every "out of reach" limit: above the systems' own 1e-6 tolerance
#: on ranges (a gap up to 1e-6 past a limit still counts as within it) plus any rounding
#: of a gap computed in floating point; pruning less is always safe
MARGIN = 2e-6


class Reach:
    """Per enemy unit: the fixed discs of its models and the longest charge it may make,
    and unit B's discs relative to the centroid of its model centres. Built once per
    map (nothing here depends on where B stands)."""

    def __init__(self, b_off: np.ndarray, b_rad: np.ndarray) -> None:
        self.b_off = np.asarray(b_off, dtype=float).reshape(-1, 2)
        self.b_rad = np.asarray(b_rad, dtype=float)
        self.enemy: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}

    def add(self, uid: str, centres: np.ndarray, radii: np.ndarray, limit: float) -> None:
        self.enemy[uid] = (np.asarray(centres, dtype=float).reshape(-1, 2), np.asarray(radii, dtype=float), float(limit))

    def gap_lower_bound(self, uid: str, at: tuple[float, float]) -> float:
        """A proven lower bound on the gap between enemy ``uid`` and B standing at
        ``at`` (inf when the enemy has no models)."""
        exy, erad, _ = self.enemy[uid]
        if len(exy) == 0 or len(self.b_off) == 0:
            return math.inf
        bxy = self.b_off + np.asarray(at, dtype=float)
        d = np.linalg.norm(bxy[:, None, :] - exy[None, :, :], axis=2)
        return float((d - self.b_rad[:, None] - erad[None, :]).min())

    def out_of_reach(self, uid: str, at: tuple[float, float]) -> bool:
        """True when the bound already rules the charge out."""
        if uid not in self.enemy:
            return False
        return self.gap_lower_bound(uid, at) > self.enemy[uid][2] + MARGIN


# ---------------------------------------------------------------------- 40k


def reach_40k(scen: Any, uid: str, enemies: list[str], specs: dict[str, tuple[int, str]]) -> Reach:
    from ..systems.w40k.world import build_world

    world = build_world(scen)
    r = world.rules
    bm = world.unit_models[uid]
    bxy = np.array([m.xy for m in bm], dtype=float).reshape(-1, 2)
    out = Reach(bxy - bxy.mean(axis=0), np.array([m.fp.radius for m in bm]))
    for e in enemies:
        em = world.unit_models[e]
        cap = 12.0 + max(0, specs[e][0])  # the largest roll total: 12 on 2D6 plus a bonus
        # a target out of charge range, or every model farther than the largest roll + ER
        limit = min(r.charge_range, cap * r.inch + r.er)
        out.add(e, np.array([m.xy for m in em], dtype=float), np.array([m.fp.radius for m in em]), limit)
    return out


def least_roll_40k(system: Any, scen: Any, req: ChargeRequest, world: Any = None) -> int | None:
    """The least roll of a 40k charge, as ``system.needed(scen, req).roll`` gives it,
    with one probe at the proven lower bound first (see the module text). ``world``:
    ``build_world(scen)`` when the caller has it (nothing here changes it)."""
    if scen.rules.edition == 11:  # targets are picked after the roll: the system decides
        return system.needed(scen, req).roll
    from ..systems.w40k.world import build_world

    world = build_world(scen) if world is None else world
    if system.eligibility(world, req.charger, list(req.targets)):
        return None
    prob = system._problem(world, req)
    lo = max(1, math.ceil(prob.lower_bound() - 1e-6))
    if lo <= prob.cap:
        bare = system.open_field(world, req, prob.cap)
        if system.solve_any(prob, bare, float(lo), improve=False)[0] is not None:
            return lo
    # the probe failed: the full search, on a fresh problem, exactly as ``needed`` runs it
    return system.needed(scen, req).roll


# ---------------------------------------------------------------------- T9A


class ReachT9A(Reach):
    """The 9th Age: the exact gap between the two blocks' outlines (a convex polygon, or a
    disc for a lone round base), B's outline moved with B."""

    def __init__(self, b_shape: Any, centroid: np.ndarray) -> None:
        super().__init__(np.zeros((0, 2)), np.zeros(0))
        self.b_shape = b_shape
        self.centroid = np.asarray(centroid, dtype=float)
        self.shapes: dict[str, Any] = {}

    def gap_lower_bound(self, uid: str, at: tuple[float, float]) -> float:
        from ..systems.t9a.geom import Shape, gap

        d = np.asarray(at, dtype=float) - self.centroid
        b = self.b_shape
        moved = Shape.poly(b.V + d) if b.kind == "poly" else Shape.capsule(b.a + d, b.b + d, b.r)
        return float(gap(self.shapes[uid], moved))


def reach_t9a(scen: Any, uid: str, enemies: list[str], specs: dict[str, tuple[int, str]], centroid: np.ndarray) -> Reach:
    from ..systems.t9a.resolve import Phase

    ph = Phase(scen, None, clear_charges=False)
    w = ph.world
    out = ReachT9A(w.blocks[uid].shape(), centroid)
    spacing = w.charge_spacing() or 0.0
    for e in enemies:
        blk = w.blocks[e]
        out.shapes[e] = blk.shape()
        # the longest charge range any roll gives; a charge that must keep the half-inch
        # spacing stops that much short of contact
        limit = ph.ruleset.longest_range(blk.advance, specs[e][0], w.inch) + spacing
        out.enemy[e] = (np.zeros((0, 2)), np.zeros(0), limit)
    return out


# ---------------------------------------------------------------------- Warmaster


def _poly(V: np.ndarray) -> Any:
    from ..geometry.shapes import ConvexPolygon, Footprint

    return Footprint((ConvexPolygon(tuple((float(x), float(y)) for x, y in V)),))


class ReachWarmaster(Reach):
    """Warmaster: the exact gap between the stands' outlines (convex polygons), with the
    circumscribed discs first to skip the far pairs."""

    def __init__(self, b_polys: list[np.ndarray], centroid: np.ndarray) -> None:
        cs = np.array([V.mean(axis=0) for V in b_polys]).reshape(-1, 2)
        super().__init__(cs - centroid, np.array([np.linalg.norm(V - V.mean(axis=0), axis=1).max() for V in b_polys]))
        self.b_polys = [V - centroid for V in b_polys]
        self.polys: dict[str, list[np.ndarray]] = {}

    def gap_lower_bound(self, uid: str, at: tuple[float, float]) -> float:
        from ..geometry.shapes import signed_distance

        limit = self.enemy[uid][2]
        if super().gap_lower_bound(uid, at) > limit + MARGIN:
            return super().gap_lower_bound(uid, at)
        d = np.asarray(at, dtype=float)
        mine = [_poly(V + d) for V in self.b_polys]
        return min(float(signed_distance(_poly(E), B)) for E in self.polys[uid] for B in mine)


def reach_warmaster(scen: Any, uid: str, enemies: list[str], centroid: np.ndarray) -> Reach:
    from ..systems.warmaster.world import build_world

    w = build_world(scen)
    b_polys = [np.asarray(s.poly, dtype=float) for s in w.stands if s.unit == uid]
    out = ReachWarmaster(b_polys, centroid)
    for e in enemies:
        stands = [s for s in w.stands if s.unit == e]
        if any(s.round_r is not None for s in stands):
            continue  # no proven bound for a round charging stand: the system rules it
        polys = [np.asarray(s.poly, dtype=float) for s in stands]
        out.polys[e] = polys
        cs = np.array([V.mean(axis=0) for V in polys]).reshape(-1, 2)
        out.add(e, cs, np.array([np.linalg.norm(V - V.mean(axis=0), axis=1).max() for V in polys]), w.move_of(e))
    return out
