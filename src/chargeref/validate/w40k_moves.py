"""40k validator: the checks every 40k move answers whatever the procedure, split out
of :mod:`chargeref.validate.w40k` (no change of behaviour): ``after`` agrees with the
start and the moves (``after_mismatch``), bases keep their facing unless a pivot turns
them (``facing_changed``), each path runs where it says, is not blocked and fits the
budget (``path_mismatch``, ``path_blocked``, ``over_budget``, ``distance_mismatch``),
and each moved model ends on the board, out of other bases and terrain, at a height it
may stand at (``off_board``, ``overlap``, ``in_terrain``, ``illegal_floor``).
``docs/validator.md`` describes each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..geometry.shapes import (
    TOL,
    signed_distance,
)
from ..ruling import Move
from . import Violation
from .w40k_path import pieces_problems
from .w40k_state import (
    Ctx,
    _blocks_ending,
    _floor_ok,
    _ground,
    _on_board,
    _penetrates,
    clear_straight_moves,
    gap_matrix,
    path_cost,
    pieces_cost,
)


def _same_facing(a: float, b: float) -> bool:
    return abs((a - b + 180.0) % 360.0 - 180.0) <= 1e-6


def _same_xy(a: Sequence[float], b: Sequence[float]) -> bool:
    return math.dist((a[0], a[1]), (b[0], b[1])) <= TOL


def check_after(ctx: Ctx) -> list[Violation]:
    """`after` holds every surviving model, moved ones where their move ends, the rest
    where they were; casualties are gone; nothing else changed."""
    out: list[Violation] = []
    for mid in ctx.moves:
        if mid not in ctx.start:
            out.append(Violation("after_mismatch", f"move of unknown model {mid}", (mid,)))
        elif ctx.start[mid].unit != ctx.charger.id:
            out.append(
                Violation("foreign_move", f"{mid} is not a model of {ctx.charger.id}", (mid,))
            )
        elif mid in ctx.casualties:
            out.append(Violation("after_mismatch", f"casualty {mid} has a move", (mid,)))
    if ctx.after is None:
        return out
    a, b = ctx.after, ctx.before
    if a.board != b.board or a.terrain != b.terrain or a.rules != b.rules or a.unit != b.unit:
        out.append(Violation("after_mismatch", "`after` changed the board, terrain, rules or unit"))
    after_units = {u.id: u for u in a.units}
    after_of: dict[str, str] = {m.id: u.id for u in a.units for m in u.models}
    for u in b.units:
        au = after_units.get(u.id)
        if au is not None and (au.player != u.player or au.keywords != u.keywords):
            out.append(Violation("after_mismatch", f"unit {u.id} changed player or keywords"))
        for m in u.models:
            here = ctx.end.get(m.id)
            if m.id in ctx.casualties:
                if here is not None:
                    out.append(
                        Violation("after_mismatch", f"casualty {m.id} is still in `after`", (m.id,))
                    )
                continue
            if here is None:
                out.append(Violation("after_mismatch", f"{m.id} is missing from `after`", (m.id,)))
                continue
            if after_of.get(m.id) != u.id:
                out.append(Violation("after_mismatch", f"{m.id} changed unit", (m.id,)))
            if here.model.base != m.base:
                out.append(Violation("after_mismatch", f"{m.id} changed base", (m.id,)))
            s = ctx.start[m.id]
            mv = ctx.moves.get(m.id)
            if mv is None:
                if not _same_xy(here.xy, s.xy) or abs(here.z - s.z) > TOL:
                    out.append(
                        Violation(
                            "after_mismatch",
                            f"{m.id} changed place without a move: {list(s.xy)} -> {list(here.xy)}",
                            (m.id,),
                        )
                    )
                continue
            if len(mv.to) < 2 or not _same_xy(here.xy, mv.to):
                out.append(
                    Violation(
                        "after_mismatch",
                        f"{m.id} is at {list(here.xy)} in `after` but its move ends at {mv.to}",
                        (m.id,),
                    )
                )
            elif len(mv.to) >= 3 and abs(here.z - mv.to[2]) > TOL:
                out.append(
                    Violation(
                        "after_mismatch",
                        f"{m.id} stands at z={here.z:g} in `after` but its move ends at z={mv.to[2]:g}",
                        (m.id,),
                    )
                )
            if here.model.token != mv.token:
                out.append(
                    Violation(
                        "after_mismatch",
                        f"{m.id}'s token differs between move and `after`",
                        (m.id,),
                    )
                )
    before_ids = set(ctx.start)
    for mid in ctx.end:
        if mid not in before_ids:
            out.append(
                Violation("after_mismatch", f"`after` has a model {mid} that was not there", (mid,))
            )
    return out


def check_facing(ctx: Ctx) -> list[Violation]:
    """A non-round base ends with the facing it started with, turned only by the pivots
    its move records (``ctx.end_facing``, filled by ``w40k_pivot.check_pivots``): the
    move's ``facing`` and the model's facing in `after` both say so."""
    out: list[Violation] = []
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or s.model.base.kind == "round":
            continue
        want = ctx.end_facing.get(mid, s.model.facing)
        facings = [] if mv.facing is None else [mv.facing]
        e = ctx.end.get(mid)
        if e is not None:
            facings.append(e.model.facing)
        if any(not _same_facing(f, want) for f in facings):
            how = "its pivots end" if mid in ctx.end_facing else "it records no pivot and"
            out.append(
                Violation(
                    "facing_changed",
                    f"{mid} faces {facings} after the move, but {how} at {want:g}",
                    (mid,),
                )
            )
    return out


def _move_points(mv: Move) -> list[tuple[float, float]]:
    if mv.path:
        return [(float(p[0]), float(p[1])) for p in mv.path if len(p) >= 2]
    return [(float(mv.from_[0]), float(mv.from_[1])), (float(mv.to[0]), float(mv.to[1]))]


def check_paths(ctx: Ctx) -> list[Violation]:
    """Each move starts where the model stood, follows its path to where it ends, costs
    what it says, is not blocked, and fits the budget."""
    out: list[Violation] = []
    # perf: the straight moves of round bases that nothing comes near, found at once
    straight = []
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or mid in ctx.casualties or s.unit != ctx.charger.id or mv.segments:
            continue
        if len(mv.from_) >= 2 and len(mv.to) >= 2 and s.fp.is_disc:
            pts = _move_points(mv)
            if len(pts) == 2 and (mv.path is None or len(mv.path) == 2):
                straight.append((mid, s, pts[0], pts[1]))
    clear = clear_straight_moves(ctx, straight)
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or mid in ctx.casualties or s.unit != ctx.charger.id:
            continue
        if len(mv.from_) < 2 or len(mv.to) < 2:
            out.append(Violation("path_mismatch", f"{mid}'s move lacks coordinates", (mid,)))
            continue
        if not _same_xy(mv.from_, s.xy) or (len(mv.from_) >= 3 and abs(mv.from_[2] - s.z) > TOL):
            out.append(
                Violation(
                    "path_mismatch",
                    f"{mid}'s move starts at {mv.from_}, but the model stood at {[*s.xy, s.z]}",
                    (mid,),
                )
            )
        pts = _move_points(mv)
        if mv.path is not None and (len(pts) != len(mv.path) or not pts):
            out.append(Violation("path_mismatch", f"{mid}'s path has malformed points", (mid,)))
            continue
        if not _same_xy(pts[0], mv.from_) or not _same_xy(pts[-1], mv.to):
            out.append(
                Violation(
                    "path_mismatch",
                    f"{mid}'s path runs {list(pts[0])} -> {list(pts[-1])}, "
                    f"not from {mv.from_[:2]} to {mv.to[:2]}",
                    (mid,),
                )
            )
        e = ctx.end.get(mid)
        if len(mv.to) >= 3:
            z_to = float(mv.to[2])
        elif e is not None:
            z_to = e.z
        else:
            z_to = _ground(mv.to, ctx.hills)
        elevated_to = abs(z_to - _ground(mv.to, ctx.hills)) > TOL
        # the path is travelled by the base as it stands after a start pivot
        mover = ctx.turned.get(mid, s)
        if mv.segments and pieces_problems(mv) is None:
            cost = pieces_cost(ctx, mover, mv, z_to, elevated_to)
        else:
            cost = path_cost(ctx, mover, pts, z_to, elevated_to, clear=mid in clear and len(pts) == 2)
        ctx.costs[mid] = cost
        for kind, what in cost.blocked:
            out.append(
                Violation(
                    "path_blocked",
                    f"{mid}'s path passes through {kind} {what}",
                    (mid, what) if kind == "enemy model" else (mid,),
                    {"blocker": what, "kind": kind},
                )
            )
        total = cost.total
        # pivots count against the roll too (their length is already off mv.distance)
        spent = total + ctx.pivot_length.get(mid, 0.0)
        if ctx.budget is not None and spent > ctx.budget + TOL:
            out.append(
                Violation(
                    "over_budget",
                    f"{mid}'s move costs {spent:.6f} but only {ctx.budget:.6f} is allowed",
                    (mid,),
                    {"cost": spent, "budget": ctx.budget},
                )
            )
        if abs(mv.distance - total) > TOL + 1e-6 * abs(total):
            out.append(
                Violation(
                    "distance_mismatch",
                    f"{mid}'s move says {mv.distance:.6f} but its path costs {total:.6f}"
                    f" (length {cost.length:.6f}, climbs {cost.climbs}, vertical {cost.vertical:g})",
                    (mid,),
                    {"claimed": mv.distance, "cost": total},
                )
            )
    return out


def check_end_positions(ctx: Ctx) -> list[Violation]:
    """Every moved model ends wholly on the board, overlapping no model at its level and
    no terrain it may not stand in, and only on floors it may stand on."""
    out: list[Violation] = []
    reported: set[tuple[str, str]] = set()
    others = [p for mid, p in ctx.end.items() if mid not in ctx.casualties]
    moved = [ctx.end[mid] for mid in ctx.moves if mid in ctx.end and mid not in ctx.casualties]
    # penetration deeper than TOL, every moved model against every model at once
    deep = gap_matrix(moved, others, 0.0) < -TOL
    for row, e in enumerate(moved):
        mid = e.id
        if not _on_board(e.fp, ctx.before):
            out.append(Violation("off_board", f"{mid} ends (partly) off the board", (mid,)))
        for col in np.flatnonzero(deep[row]):
            o = others[col]
            if o.id == mid or abs(o.z - e.z) > TOL:
                continue
            pair = (min(mid, o.id), max(mid, o.id))
            if pair in reported:
                continue
            reported.add(pair)
            out.append(
                Violation(
                    "overlap",
                    f"{mid} overlaps {o.id} by {-signed_distance(e.fp, o.fp):.6g}",
                    pair,
                )
            )
        for f in ctx.features:
            if _blocks_ending(ctx, f) and _penetrates(e.fp, f.fp):
                out.append(
                    Violation(
                        "in_terrain",
                        f"{mid} ends inside {f.kind} {f.id}",
                        (mid,),
                        {"feature": f.id},
                    )
                )
        if e.elevated:
            why = _floor_ok(ctx, e.unit, e.fp, e.z)
            if why is not None:
                out.append(Violation("illegal_floor", f"{mid} ends at z={e.z:g}: {why}", (mid,)))
    return out
