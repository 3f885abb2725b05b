"""Independent checker for The 9th Age rulings.

It rebuilds every unit from the scenario before the charge and from the ruling's
``after`` scenario, with its own block geometry (it never imports the solver), and
checks the end state and the recorded paths:

* the end state: no unit overlaps another or impassable terrain, every unit is on the
  board, a charger touches no enemy it did not charge;
* a successful normal charge: the charger's front lies flush on the charged facing,
  the charged facing is the arc of the target the charger was located in, the
  charger's models are in base contact;
* the recorded path of every unit: its steps reproduce the end pose, a charge has at
  most one wheel and no wheel over 90 degrees, align turns are under 90 degrees about
  a point of contact, and no charging or failing unit passes through another unit or
  impassable terrain (straight steps and turns exactly: ``t9a_sweep``);
* flees: directly away from the charger, ending more than 1" from everything (or
  destroyed at the board edge);
* every model in ``moves`` ends where the ``after`` formation puts it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..geometry.bases import rect_polygon
from ..geometry.blocks import block_model_centres
from ..geometry.shapes import (
    TOL,
    ConvexPolygon,
    Disc,
    Footprint,
    make_polygon_parts,
    segment_sweep,
    signed_distance,
)
from ..scenario import inch as scen_inch
from ..scenario import mm_per_unit, scenario_from_data
from . import Violation
from .hull import hull_ccw
from .t9a_sweep import TURN_TOL, turn_hits

#: wheels may not exceed 90 degrees (plus this numeric slack)
ANGLE_SLACK = 1e-7
FLAG_ENGAGED = "engaged"


@dataclass(frozen=True)
class VBlock:
    id: str
    player: int
    front: np.ndarray
    facing: float
    files: int
    models: int
    bw: float
    bd: float
    round: bool
    flags: frozenset[str]

    @property
    def f(self) -> np.ndarray:
        r = math.radians(self.facing)
        return np.array([math.cos(r), math.sin(r)])

    @property
    def left(self) -> np.ndarray:
        f = self.f
        return np.array([-f[1], f[0]])

    @property
    def depth(self) -> float:
        return math.ceil(self.models / self.files) * self.bd

    @property
    def width(self) -> float:
        return self.files * self.bw

    @property
    def centre(self) -> np.ndarray:
        return self.front - self.f * self.depth / 2

    def corners(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        f, lv = self.f, self.left
        hw = self.width / 2
        FL = self.front + lv * hw
        FR = self.front - lv * hw
        return FL, FR, FR - f * self.depth, FL - f * self.depth

    def footprint(self) -> Footprint:
        if self.round:
            c = self.centre
            return Footprint((Disc((float(c[0]), float(c[1])), self.bw / 2),), "round", (float(c[0]), float(c[1])))
        c = self.centre
        poly = rect_polygon((float(c[0]), float(c[1])), self.width, self.depth, math.radians(self.facing))
        return Footprint((poly,), "rect", (float(c[0]), float(c[1])))

    def centres(self) -> np.ndarray:
        if self.round:
            return self.centre[None, :]
        return block_model_centres((float(self.front[0]), float(self.front[1])), self.facing, self.files,
                                   self.models, self.bw, self.bd)

    def moved(self, front: np.ndarray, facing: float) -> VBlock:
        return VBlock(self.id, self.player, np.asarray(front, float), facing % 360.0, self.files, self.models,
                      self.bw, self.bd, self.round, self.flags)

    def in_arc(self, p: np.ndarray) -> str:
        """Which arc of this unit holds p: the front and rear arcs are the open wedges
        between the lines leaving the front (rear) corners at 135 degrees to both
        facings; everything else, including points on those lines, is flank."""
        if self.round:
            return "front"
        FL, FR, RR, RL = self.corners()
        f, lv = self.f, self.left
        if _in_wedge(p, FL, FR, f + lv, f - lv):
            return "front"
        if _in_wedge(p, RR, RL, -f - lv, -f + lv):
            return "rear"
        return "left" if float((p - self.centre) @ lv) > 0 else "right"


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _in_wedge(p: np.ndarray, a: np.ndarray, b: np.ndarray, da: np.ndarray, db: np.ndarray) -> bool:
    """Strictly inside the region beyond segment a-b bounded by rays a + k*da and
    b + k*db (a on the left of the segment seen from the inside)."""
    # inside when p is strictly right of ray at a (looking along da) and left of ray at b
    side_a = _cross(da, p - a) / float(np.hypot(*da))
    side_b = _cross(db, p - b) / float(np.hypot(*db))
    beyond = _cross(b - a, p - a)
    return side_a < -TOL and side_b > TOL and beyond > 0


def _blocks(scen: Any) -> dict[str, VBlock]:
    mpu = mm_per_unit(scen)
    out = {}
    for u in scen.units:
        fm = u.formation
        if fm.base.kind == "round":
            bw = bd = float(fm.base.round) / mpu
            rnd = True
        else:
            bw, bd = (float(v) / mpu for v in fm.base.rect)
            rnd = False
        out[u.id] = VBlock(u.id, u.player, np.asarray(fm.front, float), float(fm.facing) % 360.0, fm.files, fm.models,
                           bw, bd, rnd, frozenset(u.flags))
    return out


def _terrain(scen: Any) -> list[tuple[str, Footprint]]:
    out = []
    for t in scen.terrain:
        if t.type == "impassable":
            out.append((t.id, Footprint(make_polygon_parts(t.polygon), "polygon")))
    return out


def _sd(a: Footprint, b: Footprint, far: float) -> float:
    """Signed distance of two footprints, exact wherever it is at most ``far``; above
    that it may be a lower bound (centre distance less both enclosing radii). Callers
    compare it with a threshold no greater than ``far``, so the verdict is exact."""
    lb = float(math.dist(a.center, b.center)) - a.radius - b.radius
    if lb > far:
        return lb
    return signed_distance(a, b)


def _facing_segment(b: VBlock, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(end, end, outward normal) of a facing."""
    FL, FR, RR, RL = b.corners()
    f, lv = b.f, b.left
    return {"front": (FL, FR, f), "rear": (RR, RL, -f), "left": (RL, FL, lv), "right": (FR, RR, -lv)}[name]


def _on_board(scen: Any, fp: Footprint) -> bool:
    W, D = scen.board.width, scen.board.depth
    for p in fp.parts:
        if isinstance(p, ConvexPolygon):
            V = p.V
            if V[:, 0].min() < -TOL or V[:, 1].min() < -TOL or V[:, 0].max() > W + TOL or V[:, 1].max() > D + TOL:
                return False
        else:
            c, r = p.center, p.radius
            if c[0] - r < -TOL or c[1] - r < -TOL or c[0] + r > W + TOL or c[1] + r > D + TOL:
                return False
    return True


# ----------------------------------------------------------------------------- steps


def _apply(b: VBlock, st: dict[str, Any]) -> VBlock:
    k = st["kind"]
    if k == "forward":
        return b.moved(b.front + b.f * float(st["distance"]), b.facing)
    if k in ("wheel", "turn"):
        ang = float(st["angle"])
        if k == "wheel":
            FL, FR, _, _ = b.corners()
            piv = FL if ang > 0 else FR
        else:
            piv = np.asarray(st["pivot"], float)
        a = math.radians(ang)
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return b.moved((b.front - piv) @ R.T + piv, b.facing + ang)
    if k == "place":
        return b.moved(np.asarray(st["front"], float), float(st["facing"]))
    raise ValueError(k)


def _step_clear(b: VBlock, st: dict[str, Any], obst: list[tuple[str, Footprint]]) -> str | None:
    """The first obstacle a step passes through, if any (touching is allowed)."""
    k = st["kind"]
    if k == "place":
        return None
    fp = b.footprint()
    if k == "forward":
        d = b.f * float(st["distance"])
        if not b.round and all(isinstance(q, ConvexPolygon) for _, ofp in obst for q in ofp.parts):
            # the block translates: it sweeps the hull of its two end copies, a convex
            # polygon, whose overlap depth with a convex obstacle the separating axes
            # give exactly
            C0 = np.array(b.corners())
            H = hull_ccw(np.concatenate([C0, C0 + d]))
            for oid, ofp in obst:
                if any(float(_sat_sd(H[None], np.asarray(q.V, float))[0]) < -TOL for q in ofp.parts):
                    return oid
            return None
        sw = Footprint(tuple(segment_sweep(p, (0.0, 0.0), (float(d[0]), float(d[1]))) for p in fp.parts), "sweep")
        for oid, ofp in obst:
            if _sd(sw, ofp, 0.0) < -TOL:
                return oid
        return None
    # a turn: decided exactly between the instants where boundaries can meet
    # (``t9a_sweep``: closed-form circle crossings, no sampled positions)
    ang = float(st["angle"])
    if k == "wheel":
        FL, FR, _, _ = b.corners()
        piv = FL if ang > 0 else FR
    else:
        piv = np.asarray(st["pivot"], float)
    reach = float(np.hypot(*(b.centre - piv))) + math.hypot(b.width, b.depth) / 2
    # every position of the turning block lies within ``reach`` of the pivot: an
    # obstacle that disc does not overlap is never overlapped by the block
    around = Footprint((Disc((float(piv[0]), float(piv[1])), reach),), "round", (float(piv[0]), float(piv[1])))
    obst = [(oid, ofp) for oid, ofp in obst if _sd(around, ofp, 0.0) < -TURN_TOL]
    if not obst:
        return None
    return turn_hits(fp, piv, math.radians(ang), obst)


def _sat_sd(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Separating-axis signed distance of convex polygons: A (n, k, 2) against one
    polygon B (m, 2), for n placements of A at once. Where the two overlap this is the
    exact signed distance (minus the penetration depth, reached along an edge normal);
    where they are apart it is positive (a lower bound of the gap)."""
    def normals(P: np.ndarray) -> np.ndarray:
        e = np.roll(P, -1, axis=-2) - P
        nrm = np.stack([e[..., 1], -e[..., 0]], axis=-1)
        return nrm / np.linalg.norm(nrm, axis=-1, keepdims=True)

    n = len(A)
    axes = np.concatenate([normals(A), np.broadcast_to(normals(B), (n, len(B), 2))], axis=1)  # (n, a, 2)
    pa = np.einsum("nkd,nad->nak", A, axes)  # (n, a, k)
    pb = np.einsum("md,nad->nam", B, axes)  # (n, a, m)
    sep = np.maximum(pb.min(axis=2) - pa.max(axis=2), pa.min(axis=2) - pb.max(axis=2))
    return sep.max(axis=1)


# ----------------------------------------------------------------------------- main


def validate(before: Any, ruling: Any) -> list[Violation]:
    out: list[Violation] = []
    if ruling.after is None:
        return [Violation("no_after", "the ruling has no 'after' scenario")]
    try:
        after = scenario_from_data(ruling.after)
    except Exception as exc:  # noqa: BLE001 - any load failure is a violation
        return [Violation("after_invalid", f"the 'after' scenario does not load: {exc}")]
    inch = scen_inch(before)
    B0 = _blocks(before)
    B1 = _blocks(after)
    terr = _terrain(before)
    det = ruling.details or {}

    # ---- the end state
    ids = list(B1)
    fps = {k: v.footprint() for k, v in B1.items()}
    for i, a in enumerate(ids):
        if not _on_board(after, fps[a]):
            out.append(Violation("off_board", f"{a} is not wholly on the board", (a,)))
        for tid, tfp in terr:
            if _sd(fps[a], tfp, 0.0) < -TOL:
                out.append(Violation("in_impassable", f"{a} overlaps impassable terrain {tid}", (a,)))
        for b in ids[i + 1:]:
            if _sd(fps[a], fps[b], 0.0) < -TOL:
                # tolerate overlaps the scenario already had
                if a in B0 and b in B0 and _sd(B0[a].footprint(), B0[b].footprint(), 0.0) < -TOL:
                    continue
                out.append(Violation("overlap", f"{a} and {b} overlap", (a, b)))

    # ---- moves land where the unit's recorded end puts them
    ends: dict[str, VBlock] = {}
    for rec in det.get("paths", []):
        src = B0.get(rec["unit"]) or B1.get(rec["unit"])
        if src is None or rec.get("to") is None:
            continue
        vb = src.moved(np.asarray(rec["to"]["front"], float), float(rec["to"]["facing"]))
        fm = rec.get("formation")
        if fm:
            vb = VBlock(vb.id, vb.player, vb.front, vb.facing, fm["files"], fm["models"], vb.bw, vb.bd, vb.round, vb.flags)
        elif rec["unit"] in B1:
            b1 = B1[rec["unit"]]
            vb = VBlock(vb.id, vb.player, vb.front, vb.facing, b1.files, b1.models, vb.bw, vb.bd, vb.round, vb.flags)
        ends[rec["unit"]] = vb
    for mv in ruling.moves:
        uid, _, idx = mv.id.rpartition(".")
        if uid not in ends:
            continue
        try:
            k = int(idx)
        except ValueError:
            out.append(Violation("bad_model_id", f"model id {mv.id} is not <unit>.<index>", (mv.id,)))
            continue
        C = ends[uid].centres()
        if k >= len(C):
            out.append(Violation("bad_model_id", f"{uid} has no model {k}", (mv.id,)))
            continue
        if float(np.hypot(*(C[k] - np.asarray(mv.to[:2])))) > 1e-6:
            out.append(Violation("model_mismatch", f"{mv.id} does not end where {uid}'s recorded move puts it", (mv.id,)))

    # ---- paths: other units stand where the end state has them (targets that were
    # turned or re-formed by this charge: where they stood before that)
    static: dict[str, VBlock] = dict(B1)
    for rec in det.get("paths", []):
        if rec.get("label") in ("align", "combat reform") and rec["unit"] in B1:
            static[rec["unit"]] = B1[rec["unit"]].moved(np.asarray(rec["from"]["front"], float), float(rec["from"]["facing"]))
    for rec in det.get("paths", []):
        out += _check_path(B0, B1, static, terr, rec)

    # ---- the charger
    ch_id = ruling.charger
    targets = set(ruling.targets)
    if ch_id in B1:
        ch = B1[ch_id]
        cfp = ch.footprint()
        for oid, ob in B1.items():
            if ob.player == ch.player or oid in targets:
                continue
            if _sd(cfp, ob.footprint(), 1e-3) <= TOL:
                # contacts the scenario already had are not the charge's doing
                if ch_id in B0 and oid in B0 and _sd(B0[ch_id].footprint(), B0[oid].footprint(), 1e-3) <= TOL:
                    continue
                out.append(Violation("enemy_contact", f"{ch_id} touches {oid}, an enemy it did not charge", (ch_id, oid)))
        if not ruling.success:
            for oid in targets:
                if oid in B1 and _sd(cfp, B1[oid].footprint(), 1e-3) <= TOL and ruling.procedure == "failed":
                    out.append(Violation("enemy_contact", f"the failed charger {ch_id} touches {oid}", (ch_id, oid)))
    if ruling.success and ruling.procedure == "normal" and ch_id in B1:
        out += _check_normal(B0, B1, ruling, det)
    if ruling.procedure == "failed" and ruling.roll is not None and ruling.roll.dice:
        hi = max(ruling.roll.dice) * inch
        for rec in det.get("paths", []):
            if rec["unit"] == ch_id and rec.get("label") == "failed charge":
                used = _cost(B0.get(ch_id), rec["steps"])
                if used > hi + 1e-6:
                    out.append(Violation("failed_too_far", f"{ch_id}'s failed charge move uses {used:.4f}, more than the highest die ({hi:g})", (ch_id,)))
    for ev in det.get("events", []):
        if ev.get("event") in ("flee", "panic flee"):
            out += _check_flee(before, B0, B1, terr, ev, det, inch)
    return out


def _cost(b: VBlock | None, steps: Iterable[dict[str, Any]]) -> float:
    if b is None:
        return 0.0
    total = 0.0
    for st in steps:
        if st["kind"] == "forward":
            total += abs(float(st["distance"]))
        elif st["kind"] == "wheel":
            total += math.radians(abs(float(st["angle"]))) * b.width
        b = _apply(b, st)
    return total


def _check_path(B0: dict[str, VBlock], B1: dict[str, VBlock], static: dict[str, VBlock],
                terr: list[tuple[str, Footprint]], rec: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    uid = rec["unit"]
    src = B0.get(uid) or B1.get(uid)
    if src is None:
        return out
    b = src.moved(np.asarray(rec["from"]["front"], float), float(rec["from"]["facing"]))
    if uid in B1 and "formation" not in rec:
        b1 = B1[uid]
        b = VBlock(b.id, b.player, b.front, b.facing, b1.files, b1.models, b.bw, b.bd, b.round, b.flags)
    label = rec.get("label", "")
    wheels = 0
    obst: list[tuple[str, Footprint]] = []
    if label in ("charge", "failed charge", "align", "blocked path"):
        obst = [(k, v.footprint()) for k, v in static.items() if k != uid] + terr
    for st in rec["steps"]:
        if st["kind"] == "wheel":
            wheels += 1
            if abs(float(st["angle"])) > 90 + ANGLE_SLACK:
                out.append(Violation("wheel_too_large", f"{uid} wheels {abs(float(st['angle'])):.6f} degrees, more than 90", (uid,)))
        if st["kind"] == "turn" and st.get("label") == "align" and abs(float(st["angle"])) >= 90:
            out.append(Violation("align_too_large", f"{uid}'s align move turns {st['angle']} degrees", (uid,)))
        if obst:
            hit = _step_clear(b, st, obst)
            if hit is not None:
                out.append(Violation("moved_through", f"{uid}'s {st['kind']} passes through {hit}", (uid, hit)))
        b = _apply(b, st)
    if label == "charge" and wheels > 1:
        out.append(Violation("two_wheels", f"{uid}'s charge move has {wheels} wheels; one is allowed", (uid,)))
    to = rec.get("to")
    if to is not None:
        if float(np.hypot(*(b.front - np.asarray(to["front"], float)))) > 1e-6 or abs(((b.facing - float(to["facing"]) + 180) % 360) - 180) > 1e-6:
            out.append(Violation("path_mismatch", f"{uid}'s recorded steps do not lead to its recorded end", (uid,)))
    return out


def _check_normal(B0: dict[str, VBlock], B1: dict[str, VBlock], ruling: Any, det: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    ch_id = ruling.charger
    tgt_id = ruling.targets[0]
    if tgt_id not in B1 or ch_id not in B0 or tgt_id not in B0:
        return out
    ch0, ch, tg = B0[ch_id], B1[ch_id], B1[tgt_id]
    # the charged facing is the arc of the target the charger was located in
    loc = ch0.centre if ch0.round else ch0.front
    if det.get("redirected_from") is None:
        want = B0[tgt_id].in_arc(loc)
        got = det.get("charged_facing")
        if got in ("front", "rear", "left", "right") and got != want:
            out.append(Violation("wrong_facing", f"{ch_id} is located in {tgt_id}'s {want} arc but the ruling charged its {got} facing", (ch_id, tgt_id)))
    facing = det.get("charged_facing")
    if tg.round or ch.round:
        if _sd(ch.footprint(), tg.footprint(), 1e-3) > TOL:
            out.append(Violation("no_contact", f"{ch_id} does not touch {tgt_id}", (ch_id, tgt_id)))
        return out
    if facing not in ("front", "rear", "left", "right"):
        return out
    a, b, n = _facing_segment(tg, facing)
    FL, FR, _, _ = ch.corners()
    # flush: the charger's front corners lie on the facing's line, looking in
    off = [float((p - a) @ n) for p in (FL, FR)]
    if max(abs(o) for o in off) > 1e-6 or float(ch.f @ n) > -1 + 1e-9:
        out.append(Violation("not_aligned", f"{ch_id}'s front is not flush against {tgt_id}'s {facing} facing", (ch_id, tgt_id),
                             {"offsets": off}))
        return out
    t = (b - a) / float(np.hypot(*(b - a)))
    lo, hi = 0.0, float(np.hypot(*(b - a)))
    xs = sorted(float((p - a) @ t) for p in (FL, FR))
    if xs[1] < lo - 1e-6 or xs[0] > hi + 1e-6:
        out.append(Violation("no_contact", f"{ch_id}'s front does not meet {tgt_id}'s {facing} facing", (ch_id, tgt_id)))
    # a turned target must not have been engaged
    al = det.get("align") or {}
    if al.get("target_turn") and (FLAG_ENGAGED in B0[tgt_id].flags):
        out.append(Violation("rotated_engaged", f"{tgt_id} was engaged and may not be turned", (tgt_id,)))
    return out


def _check_flee(before: Any, B0: dict[str, VBlock], B1: dict[str, VBlock], terr: list[tuple[str, Footprint]],
                ev: dict[str, Any], det: dict[str, Any], inch: float) -> list[Violation]:
    out: list[Violation] = []
    uid = ev["unit"]
    if uid not in B1 or ev.get("destroyed"):
        return out
    u = B1[uid]
    if float(ev.get("distance", 0)) + 1e-9 < float(ev.get("rolled", 0)):
        out.append(Violation("flee_short", f"{uid} fled less than it rolled", (uid,)))
    fp = u.footprint()
    for oid, ob in B1.items():
        if oid == uid:
            continue
        if _sd(fp, ob.footprint(), inch + 1e-3) <= inch + TOL:
            # only a violation if the flee ended there (a later move may have come close)
            later = any(p["unit"] == oid for p in det.get("paths", []))
            if not later:
                out.append(Violation("flee_too_close", f"{uid} ends its flee within 1\" of {oid}", (uid, oid)))
    for tid, tfp in terr:
        if _sd(fp, tfp, inch + 1e-3) <= inch + TOL:
            out.append(Violation("flee_too_close", f"{uid} ends its flee within 1\" of impassable terrain {tid}", (uid,)))
    return out
