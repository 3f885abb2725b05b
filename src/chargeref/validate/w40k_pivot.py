"""Pivots in 40k moves, checked independently of the solver (docs/40k.md, "Pivots").

A move may record a turn of its base about its centre as a piece of kind ``pivot``
(``{"kind": "pivot", "at": [x, y], "from": deg, "to": deg, "length": L}``), first among
its ``segments`` (a turn at its start spot) and/or last (a turn at its end spot). This
module reads those pieces before the other checks run and:

* refuses malformed pivots (``bad_pivot``): a piece without numbers, a pivot in the
  middle of the pieces, two at one end, one not standing where the model is at that
  moment, one whose ``from`` is not the facing the base has then, one turning more
  than 180 degrees (``|to - from| <= 180`` as recorded, 1e-9 allowed);
* checks each pivot's length (``pivot_cost``): the turn in radians times the largest
  distance from the centre to the base's edge, worked out here from the base's own
  description (oval: half its length; rect: half its diagonal; hull: its farthest
  vertex), equal to the recorded length within 1e-6;
* checks the area the base sweeps (``pivot_blocked``): it may not enter (deeper than the
  1e-6 tolerance) terrain the model could not cross for free, an enemy model (unless
  the model has FLY), a friendly model the edition does not let it move through, nor,
  where the edition keeps paths out of it, the engagement range of a non-target;
* leaves for the other checks a move without its pivot pieces and their length, and the
  base as it stands after the start pivot (the path is checked with that base), and
  the facing the model must end with (checked by ``check_facing``).

The swept area is built here, not taken from the solver's geometry: for a convex base
that contains its centre, turning by Δ covers the base at its first facing, the base at
its last, and for each point of the base that is farthest from the centre locally
(an end of an oval's long axis, a corner of a rect or hull) the circular sector that
point sweeps. Each sector (at most half a disc) is convex and is given here by its
support value ``h(u) = u·c + r·max(0, max over the swept directions φ of cos(φ - ψ))``
(ψ the direction of u), which is 1 inside the swept directions and the larger end value
outside. A non-convex hull is checked with its convex hull's sweep (a larger area, so a
pivot passed here is clear).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ..geometry.bases import base_footprint
from ..geometry.shapes import TOL, Convex, Disc, Footprint, Sum
from ..systems.w40k.editions import edition as edition_of
from . import Violation
from .w40k_state import Ctx, Placed, _convex_sd, _crossing_cost, _on_board

BIG = frozenset({"MONSTER", "VEHICLE"})
#: a turn may be recorded up to this far past 180 degrees (rounding)
ANGLE_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class _Wedge(Convex):
    """The sector about ``c`` of radius ``r`` over directions ``lo`` .. ``lo + span``
    (radians, span <= pi), by its support value (see the module docstring)."""

    c: tuple[float, float]
    r: float
    lo: float
    span: float

    @cached_property
    def center(self) -> np.ndarray:  # type: ignore[override]
        return np.asarray(self.c, dtype=float)

    def h(self, u: np.ndarray) -> np.ndarray:
        u = np.atleast_2d(u)
        n = np.hypot(u[:, 0], u[:, 1])
        psi = np.arctan2(u[:, 1], u[:, 0])
        off = np.mod(psi - self.lo, 2 * math.pi)
        best = np.where(off <= self.span, 1.0,
                        np.maximum(np.cos(psi - self.lo), np.cos(psi - self.lo - self.span)))
        return u @ self.center + self.r * n * np.maximum(best, 0.0)

    def support(self, u: np.ndarray) -> np.ndarray:
        u = np.atleast_2d(u)
        psi = np.arctan2(u[:, 1], u[:, 0])
        off = np.mod(psi - self.lo, 2 * math.pi)
        e0 = np.array([math.cos(self.lo), math.sin(self.lo)])
        e1 = np.array([math.cos(self.lo + self.span), math.sin(self.lo + self.span)])
        inside = off <= self.span
        un = u / np.hypot(u[:, 0], u[:, 1])[:, None]
        pick_e = np.where((u @ e0 >= u @ e1)[:, None], e0, e1)
        end_ok = (u * pick_e).sum(axis=1) > 0
        rel = np.where(inside[:, None], un, np.where(end_ok[:, None], pick_e, 0.0))
        return self.center + self.r * rel

    @property
    def radius(self) -> float:
        return self.r

    def translated(self, d) -> _Wedge:  # noqa: ANN001
        return _Wedge((self.c[0] + d[0], self.c[1] + d[1]), self.r, self.lo, self.span)


def far_points(kind: str, dims, facing: float, mmpu: float) -> np.ndarray:  # noqa: ANN001
    """The base's locally farthest points from its centre (relative, at ``facing``):
    an oval's two long-axis ends, a rect's corners, a hull's convex-hull vertices."""
    th = math.radians(facing)
    f = np.array([math.cos(th), math.sin(th)])
    s = np.array([f[1], -f[0]])
    if kind == "oval":
        L, W = (float(v) / mmpu for v in dims)
        a = max(L, W) / 2
        ax = f if L >= W else s
        return np.stack([ax * a, -ax * a])
    if kind == "rect":
        W, D = (float(v) / mmpu for v in dims)
        return np.array([f * D / 2 + s * W / 2, f * D / 2 - s * W / 2, -f * D / 2 + s * W / 2, -f * D / 2 - s * W / 2])
    if kind == "hull":
        import shapely

        pts = np.asarray(dims, dtype=float)
        hull = np.asarray(shapely.MultiPoint([tuple(p) for p in pts]).convex_hull.exterior.coords)[:-1]
        c, sn = math.cos(th), math.sin(th)
        return hull @ np.array([[c, sn], [-sn, c]])
    return np.zeros((0, 2))


def turn_reach(kind: str, dims, mmpu: float) -> float:  # noqa: ANN001
    """The largest distance from the centre to the base's edge."""
    if kind == "round":
        d = float(dims) if not isinstance(dims, (list, tuple)) else float(dims[0])
        return d / 2 / mmpu
    P = far_points(kind, dims, 0.0, mmpu)
    return float(np.max(np.hypot(P[:, 0], P[:, 1])))


def swept_parts(p: Placed, at: tuple[float, float], f0: float, f1: float, mmpu: float) -> list[Convex]:
    """The convex pieces covering the area ``p``'s base sweeps turning at ``at`` from
    facing ``f0`` to ``f1`` (|f1 - f0| <= 180)."""
    b = p.model.base
    parts: list[Convex] = []
    for f in (f0, f1):
        parts.extend(base_footprint(b.kind, b.dims, at, f, mmpu).parts)
    if b.kind == "round":
        return parts
    if b.kind == "hull":
        # the convex hull's sweep holds the hull's own
        for f in (f0, f1):
            P = far_points(b.kind, b.dims, f, mmpu) + np.asarray(at)
            from ..geometry.shapes import ConvexPolygon

            parts.append(ConvexPolygon(tuple((float(x), float(y)) for x, y in P)))
    d = math.radians(f1 - f0)
    for v in far_points(b.kind, b.dims, f0, mmpu):
        a = math.atan2(v[1], v[0])
        parts.append(_Wedge((float(at[0]), float(at[1])), float(math.hypot(v[0], v[1])), a if d >= 0 else a + d, abs(d)))
    return parts


def _penetrates_any(parts: list[Convex], fp: Footprint, grow: float = 0.0) -> bool:
    for a in parts:
        if grow > 0:
            a = Sum((a, Disc((0.0, 0.0), grow)))
        ca, ra = np.asarray(a.center, dtype=float), a.radius
        for q in fp.parts:
            if float(np.linalg.norm(np.asarray(q.center, dtype=float) - ca)) > ra + q.radius + TOL:
                continue
            if _convex_sd(a, q) < -TOL:
                return True
    return False


def _num(d: dict, k: str) -> float:
    v = d[k]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise ValueError(f"{k!r} is not a number")
    return float(v)


def _pt(d: dict, k: str) -> tuple[float, float]:
    v = d[k]
    if not isinstance(v, (list, tuple)) or len(v) < 2:
        raise ValueError(f"{k!r} is not a point")
    x, y = float(v[0]), float(v[1])
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{k!r} is not a point")
    return (x, y)


def _same_angle(a: float, b: float) -> bool:
    return abs((a - b + 180.0) % 360.0 - 180.0) <= 1e-6


def _blockers(ctx: Ctx, s: Placed, z: float) -> tuple[list[tuple[str, Footprint]], list[tuple[str, Footprint]]]:
    """What a turning base may not enter (id, footprint), and the non-targets whose
    engagement range it may not enter."""
    kw = set(ctx.charger.keywords)
    hard: list[tuple[str, Footprint]] = []
    for f in ctx.features:
        c = _crossing_cost(ctx, f, kw)
        if c is None or c > 0:
            hard.append((f"terrain {f.id}", f.fp))
    ed = edition_of(ctx.edition)
    big = bool(kw & BIG)
    er_of: list[tuple[str, Footprint]] = []
    heroic9 = ctx.ruling.procedure == "heroic_intervention" and ctx.edition == 9
    for mid, p in ctx.start.items():
        if mid in ctx.casualties or p.unit == ctx.charger.id or abs(p.z - z) > TOL:
            continue
        if p.player != ctx.charger.player:
            if "FLY" not in kw:
                hard.append((f"enemy model {mid}", p.fp))
            if ed.non_target_er_on_path and not heroic9 and p.unit not in ctx.targets:
                er_of.append((mid, p.fp))
        elif "FLY" not in kw:
            if not ed.friends_passable or (ed.big_blocks_big and big and set(ctx.units[p.unit].keywords) & BIG):
                hard.append((f"friendly model {mid}", p.fp))
    return hard, er_of


def check_pivots(ctx: Ctx) -> list[Violation]:
    """Read, check and take out every move's pivot pieces (see the module docstring).
    Fills ``ctx.turned`` (the base after its start pivot), ``ctx.pivot_length`` and
    ``ctx.end_facing``; replaces the move in ``ctx.moves`` by its pieces without pivots."""
    out: list[Violation] = []
    er_h = edition_of(ctx.edition).er * ctx.inch
    for mid, mv in list(ctx.moves.items()):
        s = ctx.start.get(mid)
        if s is None or not mv.segments or s.unit != ctx.charger.id:
            continue
        kinds = [sg.get("kind") if isinstance(sg, dict) else None for sg in mv.segments]
        if "pivot" not in kinds:
            continue

        def bad(why: str, mid: str = mid) -> None:
            out.append(Violation("bad_pivot", f"{mid}'s pivot: {why}", (mid,)))

        idx = [i for i, k in enumerate(kinds) if k == "pivot"]
        n = len(kinds)
        first = [i for i in idx if i == 0]
        last = [i for i in idx if i == n - 1 and i != 0]
        if len(idx) != len(first) + len(last):
            bad("a pivot is made at the start or at the end of a move, not in the middle or twice at one end")
            continue
        try:
            pv = [(i, _pt(mv.segments[i], "at"), _num(mv.segments[i], "from"), _num(mv.segments[i], "to"),
                   _num(mv.segments[i], "length")) for i in idx]
        except (KeyError, TypeError, ValueError) as exc:
            bad(f"malformed ({exc})")
            continue
        b = s.model.base
        R = turn_reach(b.kind, b.dims, ctx.mmpu)
        facing = s.model.facing
        length = 0.0
        turned = s
        ok = True
        end_xy = (float(mv.to[0]), float(mv.to[1])) if len(mv.to) >= 2 else s.xy
        z_end = float(mv.to[2]) if len(mv.to) >= 3 else s.z
        for i, at, f0, f1, L in pv:
            where = s.xy if i == 0 else end_xy
            z = s.z if i == 0 else z_end
            if math.dist(at, where) > TOL:
                bad(f"it is made at {list(at)}, but the model stands at {list(where)} then")
                ok = False
                break
            if not _same_angle(f0, facing):
                bad(f"it turns from {f0:g}, but the base faces {facing:g} then")
                ok = False
                break
            if abs(f1 - f0) > 180.0 + ANGLE_SLACK:
                bad(f"a turn of {f1 - f0:g} degrees is more than 180")
                ok = False
                break
            want = R * abs(math.radians(f1 - f0))
            if abs(L - want) > TOL:
                out.append(Violation("pivot_cost", f"{mid}'s pivot from {f0:g} to {f1:g} costs {want:.6f}, not {L:.6f}",
                                     (mid,), {"claimed": L, "cost": want}))
            length += want
            parts = swept_parts(s, where, f0, f1, ctx.mmpu)
            hard, er_of = _blockers(ctx, s, z)
            for what, fp in hard:
                if _penetrates_any(parts, fp):
                    out.append(Violation("pivot_blocked", f"{mid} turning at {list(where)} sweeps through {what}",
                                         (mid,), {"blocker": what}))
            for eid, fp in er_of:
                if _penetrates_any(parts, fp, er_h + 2 * TOL):
                    e = ctx.start[eid]
                    out.append(Violation("pivot_in_er_of_non_target",
                                         f"{mid} turning at {list(where)} comes within engagement range of {eid} "
                                         f"(unit {e.unit}, not a target)", (mid, eid), {"model": eid, "unit": e.unit}))
            # the turning base stays on the board all the way round, not only at its ends
            if not _on_board(Footprint(tuple(parts)), ctx.before):
                out.append(Violation("off_board", f"{mid} turning at {list(where)} sweeps (partly) off the board",
                                     (mid,)))
            facing = f1
            if i == 0:
                m2 = s.model.model_copy(update={"facing": f1})
                turned = replace(s, model=m2, fp=base_footprint(b.kind, b.dims, s.xy, f1, ctx.mmpu))
        if not ok:
            continue
        ctx.turned[mid] = turned
        ctx.pivot_length[mid] = length
        ctx.end_facing[mid] = facing
        rest = [sg for k, sg in zip(kinds, mv.segments, strict=True) if k != "pivot"]
        ctx.moves[mid] = mv.model_copy(update={"segments": rest or None, "distance": mv.distance - length})
    return out


def turned_ctx(ctx: Ctx, mid: str) -> Ctx | None:
    """For a model whose recorded move turns its base (``ctx.end_facing``, filled by
    ``w40k_pivot.check_pivots``): the context in which it stands at its start already
    turned to the facing it ends with, the turn's length (the least turn, times the
    base's largest centre-to-edge distance, as a pivot is charged) taken off the
    budget. None when the model was not turned, when the turn alone exceeds the budget,
    or when turning at its start would sweep through what a pivot may not enter,
    against the other models where they started or where they ended, or off the board
    (then the turned base is not asked: a found spot must be one it could really
    take). The duty's path fields are built afresh for the turned base. In edition 11
    the sweep is judged as on the ground (a FLY model's turn over models would bind it
    to the skies; it is not asked then)."""
    got = _turned_start(ctx, mid)
    if got is None:
        return None
    turned, s, f0, f1 = got
    if not turn_clear(ctx, s, s.xy, f0, f1):
        return None
    return turned


def _turned_start(ctx: Ctx, mid: str) -> tuple[Ctx, Placed, float, float] | None:
    """What both ways of turning share: the context whose start holds model ``mid``'s
    base already turned to the facing its recorded move ends with, the turn's length
    (the least turn times the base's largest centre-to-edge distance) taken off the
    budget; with the model as it started and the two facings. None when the model was
    not turned or the turn alone exceeds the budget."""
    f1 = ctx.end_facing.get(mid)
    s = ctx.start.get(mid)
    if f1 is None or s is None or ctx.budget is None or s.model.base.kind == "round":
        return None
    f0 = float(s.model.facing)
    delta = (float(f1) - f0 + 180.0) % 360.0 - 180.0
    if abs(delta) <= 1e-9:
        return None
    b = s.model.base
    length = turn_reach(b.kind, b.dims, ctx.mmpu) * abs(math.radians(delta))
    if length > ctx.budget + TOL:
        return None
    m2 = s.model.model_copy(update={"facing": f0 + delta})
    s2 = replace(s, model=m2, fp=base_footprint(b.kind, b.dims, s.xy, f0 + delta, ctx.mmpu))
    return replace(ctx, budget=ctx.budget - length, start={**ctx.start, mid: s2}, duty_fields={}), s, f0, f0 + delta


def turn_clear(ctx: Ctx, s: Placed, at: tuple[float, float], f0: float, f1: float) -> bool:
    """May model ``s`` turn at ``at`` from facing ``f0`` to ``f1``: the area its base
    sweeps enters nothing a pivot may not enter (terrain it may not cross or would
    climb, models it may not pass, and in editions 9 and 10 a non-target's engagement
    range), against the other models both where they started and where they ended, and
    stays on the board. In edition 11 the sweep is judged as on the ground."""
    parts = swept_parts(s, at, f0, f1, ctx.mmpu)
    er_h = edition_of(ctx.edition).er * ctx.inch
    ends = {mid2: p for mid2, p in ctx.end.items() if mid2 not in ctx.casualties and mid2 != s.id}
    starts = {mid2: p for mid2, p in ctx.start.items() if mid2 != s.id}
    ground = ctx
    if ctx.edition == 11:
        kws = [k for k in ctx.charger.keywords if k != "FLY"]
        ground = replace(ctx, charger=ctx.charger.model_copy(update={"keywords": kws}))
    for where in (replace(ground, start=starts), replace(ground, start=ends)):
        hard, er_of = _blockers(where, s, s.z)
        if any(_penetrates_any(parts, fp) for _, fp in hard):
            return False
        if any(_penetrates_any(parts, fp, er_h + 2 * TOL) for _, fp in er_of):
            return False
    return _on_board(Footprint(tuple(parts)), ctx.before)


def end_turn(ctx: Ctx, mid: str) -> tuple[Ctx, Placed, float, float] | None:
    """For a model whose recorded move turns its base: the way of moving the other way
    round (docs/40k.md, "Turning at the end spot"): travel with the base as it started,
    then turn at the end spot to the facing the ruling gave it. Returns the context in
    which the model's start holds the turned base (every question about a spot is asked
    of it) with the turn's length (the least turn times the base's largest
    centre-to-edge distance) taken off the budget, the model as it started (the path is
    that base's), and the two facings (the caller checks the turn at each spot with
    :func:`turn_clear`). None when the model was not turned or the turn alone exceeds
    the budget."""
    return _turned_start(ctx, mid)


__all__ = ["check_pivots", "end_turn", "far_points", "swept_parts", "turn_clear", "turn_reach", "turned_ctx"]
