"""Whole-path checks for 40k charge moves, independent of the solver.

Each move's path is taken as recorded: its exact pieces (``moves[].segments``: lines
and arcs) when present, else the ``moves[].path`` polyline, else the straight line
from ``from`` to ``to``. Along the whole of it:

* editions that forbid it (``Edition.non_target_er_on_path``): the moving base may at no
  point come within engagement range of a model of an enemy unit that is not a target
  (horizontally within the range, equality included to 1e-6, and vertically within the
  vertical range) -> ``path_in_er_of_non_target``;
* moving through models follows the edition: where friends may not be passed
  (``friends_passable`` False) no base crosses a friendly model's base; where they may,
  a MONSTER or VEHICLE still may not cross a friendly MONSTER or VEHICLE
  (``big_blocks_big``); FLY passes over models -> ``path_crosses_model``. (Enemy bases
  are checked by ``check_paths`` as blocking, as before.)

Friendly models are those of other units of the charging player, where they stand; the
charging unit's own models move together and are not obstacles to each other here.
Distances are exact: each piece is swept against each footprint in closed form
(``geometry.paths.measure_path``). Only geometry and the editions table are used.
"""

from __future__ import annotations

from ..geometry.paths import Barrier, Piece, measure_path, piece_from_dict
from ..geometry.shapes import TOL, Disc, Footprint, Sum
from ..ruling import Move
from ..systems.w40k.editions import edition as edition_of
from . import Violation

BIG = frozenset({"MONSTER", "VEHICLE"})


def move_pieces(mv: Move) -> list[Piece | dict]:
    """The move's path as pieces: recorded segments, else the polyline, else straight."""
    if mv.segments:
        return [piece_from_dict(d) for d in mv.segments]
    if mv.path:
        pts = [(float(p[0]), float(p[1])) for p in mv.path if len(p) >= 2]
    else:
        pts = [(float(mv.from_[0]), float(mv.from_[1])), (float(mv.to[0]), float(mv.to[1]))]
    return [{"kind": "line", "from": list(a), "to": list(b)} for a, b in zip(pts[:-1], pts[1:], strict=True)]


def grown(fp: Footprint, d: float) -> Footprint:
    """The footprint thickened by ``d`` (each part ⊕ a disc of radius d)."""
    parts = []
    for p in fp.parts:
        if isinstance(p, Disc):
            parts.append(Disc(p.c, p.r + d))
        else:
            parts.append(Sum((p, Disc((0.0, 0.0), d))))
    return Footprint(tuple(parts), fp.kind, fp.origin)


def pieces_problems(mv: Move, tol: float = 1e-6) -> str | None:
    """Why the recorded segments do not form one path from ``from`` to ``to`` (None if
    they do): pieces must join up and each arc's ends must lie on its circle."""
    if not mv.segments:
        return None
    try:
        ps = [piece_from_dict(d) for d in mv.segments]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return f"malformed segment ({exc})"
    cur = (float(mv.from_[0]), float(mv.from_[1]))
    for k, p in enumerate(ps):
        if abs(p.a[0] - cur[0]) > tol or abs(p.a[1] - cur[1]) > tol:
            return f"segment {k} starts at {list(p.a)}, not where the path stands {list(cur)}"
        if p.kind == "arc":
            assert p.center is not None
            for end in (p.a, p.b):
                r = ((end[0] - p.center[0]) ** 2 + (end[1] - p.center[1]) ** 2) ** 0.5
                if abs(r - p.radius) > tol:
                    return f"arc {k} has an end {list(end)} off its circle"
        cur = p.b
    to = (float(mv.to[0]), float(mv.to[1]))
    if abs(cur[0] - to[0]) > tol or abs(cur[1] - to[1]) > tol:
        return f"the segments end at {list(cur)}, not at {list(to)}"
    return None


def check_whole_paths(ctx) -> list[Violation]:  # noqa: ANN001 (validate.w40k.Ctx)
    """Engagement range of non-targets and moving through models, along every path."""
    out: list[Violation] = []
    ed = edition_of(ctx.edition)
    er_h = ed.er * ctx.inch
    er_v = ed.er_vertical * ctx.inch
    board = (ctx.before.board.width, ctx.before.board.depth)
    del board
    charger = ctx.charger
    kw = set(charger.keywords)
    fly = "FLY" in kw
    big = bool(kw & BIG)
    non_targets = [
        p
        for mid, p in ctx.start.items()
        if p.player != charger.player and p.unit not in ctx.targets and mid not in ctx.casualties
    ]
    friends = [
        p
        for mid, p in ctx.start.items()
        if p.player == charger.player and p.unit != charger.id and mid not in ctx.casualties
    ]
    for mid, mv in ctx.moves.items():
        s = ctx.start.get(mid)
        if s is None or mid in ctx.casualties or s.unit != charger.id:
            continue
        if len(mv.from_) < 2 or len(mv.to) < 2:
            continue
        why = pieces_problems(mv)
        if why is not None:
            out.append(Violation("path_mismatch", f"{mid}'s segments: {why}", (mid,)))
            continue
        pieces = move_pieces(mv)
        # the base as it travels: turned by a start pivot, if the move made one
        s = ctx.turned.get(mid, s)
        z_to = float(mv.to[2]) if len(mv.to) >= 3 else s.z
        z_lo, z_hi = min(s.z, z_to), max(s.z, z_to)
        # edition 9's heroic intervention is a move towards the enemy, not a charge: the
        # non-target rule is a charge rule
        heroic9 = ctx.ruling.procedure == "heroic_intervention" and ctx.edition == 9
        if ed.non_target_er_on_path and non_targets and not heroic9:
            # within range <=> the base grown by the range (and 2 TOL) enters the model
            # deeper than TOL, i.e. the distance is below range + TOL
            base = grown(s.fp, er_h + 2 * TOL)
            near = [
                p for p in non_targets if p.z >= z_lo - er_v - TOL and p.z <= z_hi + er_v + TOL
            ]
            bars = [Barrier(p.fp, None, p.id) for p in near]
            hit = measure_path(base, pieces, bars).blocked if bars else ()
            for eid in hit:
                e = ctx.start[eid]
                out.append(
                    Violation(
                        "path_in_er_of_non_target",
                        f"{mid}'s path passes within engagement range of {eid} "
                        f"(unit {e.unit}, not a target)",
                        (mid, eid),
                        {"model": eid, "unit": e.unit},
                    )
                )
        if fly or not friends:
            continue
        if ed.friends_passable:
            if not (ed.big_blocks_big and big):
                continue
            blockers = [p for p in friends if set(ctx.units[p.unit].keywords) & BIG]
        else:
            blockers = friends
        blockers = [p for p in blockers if z_lo - TOL <= p.z <= z_hi + TOL]
        if not blockers:
            continue
        bars = [Barrier(p.fp, None, p.id) for p in blockers]
        for fid in measure_path(s.fp, pieces, bars).blocked:
            out.append(
                Violation(
                    "path_crosses_model",
                    f"{mid}'s path crosses friendly model {fid}, which edition "
                    f"{ctx.edition} does not let it move through",
                    (mid, fid),
                    {"model": fid},
                )
            )
    return out


__all__ = ["check_whole_paths", "grown", "move_pieces", "pieces_problems"]
