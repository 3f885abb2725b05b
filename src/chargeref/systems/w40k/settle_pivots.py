"""Pivots in the moves made model by model (pile-in, consolidation, edition 9's heroic
intervention and failed-charge move): a non-round base may turn about its centre at
the start or at the end of its move.

INTERPRETATION (docs/40k.md, "Pivots"), the same as for charges (pivots.py): a turn by
``Δ`` costs ``R·|Δ|`` of the move (``R``: the largest distance from the base's centre to
its edge), and the area the base sweeps while it turns must be as clear as a path:
nothing the move may not cross, nothing that would be climbed, and, for a move whose
paths keep out of some units' engagement range (the failed charge), that range.

What is offered, per model, on top of its unturned ends (settle.py):

* the facings are *built* by pivots.py's rules (``reach``, ``gap``, ``face``,
  ``tangent``), toward the nearest point of the enemy model that was closest to the
  model when the move began and of the nearest model of a unit the move is made toward;
  no angular grid;
* for each such turn, the end spots are the settle engine's constructed spots for the
  *turned* base (its contact and engagement loci round the enemy models, where they
  cross the move's circle, the straight approach, packing against terrain), judged with
  the turned base (where it may stand, base contact, engagement range, and the "ends
  closer" duty, measured base to base from where the unturned model stood);
* each spot is reached in one of two ways, the cheaper that is allowed: turn at the
  start (its sweep clear and on the board), then the exact path of the turned base; or
  the exact path of the unturned base, then turn at the end spot (its sweep there clear
  and on the board). The turn's length is added to the path's cost and the total must
  fit in the move.

A turned end is only offered when it gives what no unturned end gives: base contact
(where the rules ask for it), engagement range, or, when no unturned end satisfies the
"ends closer" duty at all, any end that does. So a model that reaches its best without
turning keeps its facing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...geometry.pivot import pivot_length, turned
from ...geometry.placement import locus_nearest, reach_crossings
from ...geometry.shapes import signed_distance
from ...ruling import Move
from .pivots import _candidate_turns, sweep_clear, sweep_on_board
from .solver_base import EPS
from .world import Model, reported

# (no import of settle.py, which imports this module: the engine ``st`` and the type of
# its options ``o`` come in as arguments)

#: a spot is moved onto when it lies farther than this from the start
MOVED = 1e-12
#: spots built at the end of the move sit this far inside it (settle.py's HAIR)
HAIR = 1e-9


@dataclass(frozen=True)
class Pose:
    """A turn of the base by ``turn`` degrees, made at the ``kind`` ("start" or "end")
    of the move, costing ``length``; ``model`` is the base turned (at the start spot)."""

    kind: str
    turn: float
    length: float
    model: Model


_r6 = reported  # rounded to 1e-9 (world.reported), like the charge's moves


def turns_for(st: Any, m: Model) -> list[float]:
    """The constructed turns (degrees, nonzero, each once) of model ``m``: pivots.py's
    rules toward each enemy model that was closest to it and toward the nearest model
    of the units the move is made toward."""
    refs = list(st.closest[m.id])
    tms = st.eng.all_targets
    if tms:
        refs.append(min(tms, key=lambda t: float(signed_distance(m.fp, t.fp))))
    out: list[float] = []
    for t in refs:
        for d in _candidate_turns(st.w, m, [t]).values():
            if abs(d) > 1e-9 and all(abs(d - x) > 1e-9 for x in out):
                out.append(float(d))
    return out


def _short_spots(st: Any, m: Model, mt: Model, rest: float) -> np.ndarray:
    """Spots as far as the move goes after the turn (``rest`` = the move less the
    turn): on the straight approach toward the contact spot of each enemy model that was
    closest, and where the turned base's contact and engagement loci round the enemy
    models within reach cross the circle of that radius round the start."""
    if rest <= 0:
        return np.zeros((0, 2))
    out = [reach_crossings(mt.fp, [e.fp for e in st._near_enemies(m)], st._gaps(), m.xy, rest)]
    for e in st.closest[m.id]:
        c = locus_nearest(mt.fp, e.fp, HAIR, m.xy)
        if len(c):
            w = c[0] - m.xy
            L = float(np.linalg.norm(w))
            if L > rest:
                out.append((m.xy + w * (rest / L))[None])
    return np.vstack([x.reshape(-1, 2) for x in out])


def _turned_field(st: Any, m: Model, mt: Model, delta: float):  # noqa: ANN202
    key = (m.id, round(delta, 9))
    f = st._turned_fields.get(key)
    if f is None:
        f = st.eng.planner.field(mt.fp, budget=st.budget + 1e-9)
        st._turned_fields[key] = f
    return f


def _turn_options(st: Any, m: Model, delta: float, Opts: type) -> Any:  # noqa: N803
    """The ends model ``m`` reaches turning by ``delta`` at its start or at its end
    (``Opts``: settle.py's options), or None."""
    length = pivot_length(m.fp, delta)
    if length >= st.budget:
        return None
    mt = replace(m, fp=turned(m.fp, delta), facing=m.facing + delta)
    pts = np.vstack([st._raw_spots(mt), _short_spots(st, m, mt, st.budget - length - HAIR)])
    d = np.linalg.norm(pts - m.xy, axis=1)
    pts = pts[(d > MOVED) & (d <= st.budget - length + EPS)]
    if len(pts) == 0:
        return None
    b = st.eng._bank(mt, pts)
    gap = np.full(len(pts), np.inf)
    for e in st.closest[m.id]:
        gap = np.minimum(gap, st._gap(mt, pts, b.z, e))
    ok = b.ok & (gap < st.d0[m.id] - st.closer_margin)
    idx = np.flatnonzero(ok)
    if len(idx) == 0:
        return None
    dz = np.abs(b.z[idx] - m.z)
    climb = np.where(dz > st.w.rules.climb_free + 1e-12, dz, 0.0)
    bars = st.eng.barriers
    # turn first: the sweep at the start spot, then the turned base's exact path
    first = np.full(len(idx), np.inf)
    if sweep_clear(m, delta, bars) and sweep_on_board(m, delta, st.w.board):
        first = np.asarray(_turned_field(st, m, mt, delta).cost(pts[idx]), dtype=float) + climb + length
    # turn last: the unturned base's exact path, then the sweep at the end spot
    last = np.asarray(st.eng.field(m).cost(pts[idx]), dtype=float) + climb + length
    for j in np.flatnonzero((last <= st.budget + EPS) & (last < first)):
        there = replace(m, fp=m.fp.moved_to((float(pts[idx[j]][0]), float(pts[idx[j]][1]))))
        if not (sweep_clear(there, delta, bars) and sweep_on_board(there, delta, st.w.board)):
            last[j] = np.inf
    cost = np.minimum(first, last)
    keep = cost <= st.budget + EPS
    if not keep.any():
        return None
    idx, cost, use_last = idx[keep], cost[keep], (last < first)[keep]
    poses = st.poses[m.id]
    k_first = len(poses)
    poses += [Pose("start", delta, length, mt), Pose("end", delta, length, mt)]
    contact = b.contact[idx] if (b.er.shape[1] and st.rules.contact_first) else np.zeros(len(idx), dtype=bool)
    er = b.er[idx].any(axis=1) if b.er.shape[1] else np.zeros(len(idx), dtype=bool)
    return Opts(pts[idx], b.z[idx], cost, contact, er, gap[idx], np.where(use_last, k_first + 1, k_first))


def with_turns(st: Any, m: Model, o: Any) -> Any:
    """``o`` (the unturned ends of ``m``) with the turned ends that give what none of
    ``o`` gives (see the module docstring)."""
    moving = np.linalg.norm(o.pts - m.xy, axis=1) > MOVED
    has_contact = bool((o.contact & moving).any())
    if has_contact:
        return o
    has_er = bool((o.er & moving).any())
    has_move = bool(moving.any())
    if has_move and (not st.eng.targets or (has_er and not st.rules.contact_first)):
        # perf, exact (issue 13): a turned spot is kept only for base contact, for
        # engagement range, or when no unturned end moves at all (``want`` below).
        # With no unit to engage (the failed charge: every enemy is out of bounds) a
        # turned spot has neither, nor has it contact when the move does not seek
        # base contact and an unturned end already engages; an unturned end moves,
        # so no turn could add a spot: the same ``o`` without building any
        return o
    for delta in turns_for(st, m):
        t = _turn_options(st, m, delta, type(o))
        if t is None:
            continue
        want = t.contact | (t.er & (not has_er)) | np.full(len(t), not has_move)
        if want.any():
            o = o.joined(t.take(want))
    return o


def record_turned(st: Any, m: Model, pv: Pose, goal: np.ndarray, z: float, contacts: list[str], token: bool) -> Move:
    """A turned model's move as published: the pivot piece first (a turn at the start)
    or last (at the end), the exact path of the base as it travels (the turned base
    after a start pivot), its cost with the turn's length; ``facing`` and
    ``facing_from`` say how the base ends and began."""
    g = np.asarray(goal, dtype=float)
    at_start = pv.kind == "start"
    if at_start:
        pr = _turned_field(st, m, pv.model, pv.turn).path((float(g[0]), float(g[1])))
    else:
        pr = st.eng.path_of(m, g)
    if pr is None:
        raise RuntimeError(f"{m.id}: no path to a spot the search found reachable")
    segs = list(getattr(pr, "segments", ()) or ())
    if not segs:
        segs = [{"kind": "line", "from": [float(a[0]), float(a[1])], "to": [float(b[0]), float(b[1])]}
                for a, b in zip(pr.points[:-1], pr.points[1:], strict=True)]
    ends = [segs[0]["from"], *(sg["to"] for sg in segs)] if segs else [m.xy, g]
    path = [[_r6(q[0]), _r6(q[1])] for q in ends]
    f0, f1 = _r6(m.facing), _r6(m.facing + pv.turn)
    where = m.xy if at_start else g
    piece = {"kind": "pivot", "at": [_r6(where[0]), _r6(where[1])], "from": f0, "to": f1, "length": _r6(pv.length)}
    pieces = [piece, *segs] if at_start else [*segs, piece]
    cost = float(pr.cost) + st.w.vertical_cost(m.z, z) + pv.length
    data: dict[str, Any] = {
        "id": m.id,
        "from": [_r6(m.xy[0]), _r6(m.xy[1]), _r6(m.z)],
        "to": [_r6(g[0]), _r6(g[1]), _r6(z)],
        "distance": _r6(cost),
        "contacts": contacts,
        "token": token,
        "path": path,
        "segments": pieces,
        "facing": f1,
        "facing_from": f0,
    }
    return Move.model_validate(data)


__all__ = ["Pose", "record_turned", "turns_for", "with_turns"]
