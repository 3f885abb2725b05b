"""The model-by-model moves' data and path geometry (split from settle.py): the
thresholds the placement keeps from the rules' edges, the options of one model
(:class:`Opts`) and a unit's plan (:class:`Plan`), the point at a given length along an
exact path, and where a straight segment meets a base's offset locus."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import budget
from ...geometry.placement import OffsetCurve
from ...geometry.shapes import Footprint
from .world import reported

#: Our spots sit at most this far on the generous side of a threshold (inside TOL).
EPS = 1e-7
#: "Ends closer" must gain more than this (beyond the contract tolerance).
CLOSER_MARGIN = 2e-6
#: Constructed spots sit this far on the generous side of the gap they are built at.
HAIR = 1e-9
#: Spots outside a forbidden engagement range sit this far beyond it (the engine keeps
#: OUT_MARGIN = 2e-6 clear of it; both far below the contract tolerance).
FORBID_CLEAR = 3e-6


def _point_along(pieces: list, s: float) -> np.ndarray | None:
    """The point at arc length ``s`` along exact path pieces (lines and arcs)."""
    for p in pieces:
        if s <= p.length:
            if p.kind == "line":
                a, b = np.asarray(p.a), np.asarray(p.b)
                return a + (b - a) * (s / p.length if p.length > 0 else 0.0)
            if p.kind == "curve":
                return _point_along_curve(p, s)
            c = np.asarray(p.center)
            t = math.atan2(p.a[1] - c[1], p.a[0] - c[0]) + (s / p.radius if p.ccw else -s / p.radius)
            return c + p.radius * np.array([math.cos(t), math.sin(t)])
        s -= p.length
    return None


def _point_along_curve(p: Any, s: float) -> np.ndarray:
    """The point at boundary length ``s`` from the start of a curve piece (a piece that
    runs along a smooth body, e.g. round an oval grown by a gap). The length from the
    start to the normal at turn δ grows with δ, by quadrature of the curvature radius
    plus a jump for each flat side passed: bisection on δ (to 1e-13 rad, far inside the
    contract tolerance) finds the normal where it reaches ``s``; a remainder left there
    lies along the flat side at that normal, walked in a straight line."""
    f = p.normals[0]
    sign = 1.0 if p.ccw else -1.0
    span = (p.normals[1] - f) * sign % (2 * math.pi)
    body = p.body

    def length(d: float) -> float:
        return float(body.length(f, d) if p.ccw else body.length(f - d, d))

    if s <= 0.0:
        return np.asarray(p.a, dtype=float)
    lo, hi = 0.0, span
    while hi - lo > 1e-13:
        budget.check()
        mid = (lo + hi) / 2
        if length(mid) < s:
            lo = mid
        else:
            hi = mid
    if hi <= 1e-9:
        # still at the start normal: a flat side there belongs to the piece before
        return np.asarray(p.a, dtype=float)
    phi = f + sign * hi
    # the length jumps by a flat side's length just past its normal (within 1e-9 of it)
    flat = [d for d in (((n - f) * sign) % (2 * math.pi) for n, _ in body.flats()) if abs(d - hi) <= 1e-8]
    if not flat:
        return np.asarray(body.point(phi), dtype=float)
    snapped = f + sign * flat[0]
    a = np.asarray(body.point(snapped, -1 if p.ccw else 1), dtype=float)
    # the length up to the flat side's first end, the rest along it
    rest = s - length(flat[0])
    b = np.asarray(body.point(snapped, 1 if p.ccw else -1), dtype=float)
    L = float(np.hypot(*(b - a)))
    return a + (b - a) * min(1.0, max(0.0, rest) / L) if L > 0 else a


def ray_locus_crossings(mover: Footprint, target: Footprint, d: float, p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Centres on the segment from ``p`` to ``p + w`` where ``mover`` is at gap ``d``
    from ``target``: a line against the locus (mover ⊕ target grown by d), in closed
    form when both are round (a line crossing a circle), else the locus's roots of the
    signed distance to the line (geometry/placement.py's root finder), kept where they
    lie on the segment."""
    p = np.asarray(p, dtype=float)
    w = np.asarray(w, dtype=float)
    L2 = float(w @ w)
    if L2 == 0.0:
        return np.zeros((0, 2))
    cur = OffsetCurve(mover.moved_to(_pt(p)), target, d)
    circ = cur.is_circle()
    if circ is not None:
        c, R = np.asarray(circ[0], dtype=float), float(circ[1])
        f = p - c
        b = float(f @ w)
        disc = b * b - L2 * (float(f @ f) - R * R)
        if disc < 0:
            return np.zeros((0, 2))
        sq = math.sqrt(disc)
        ts = np.array([(-b - sq) / L2, (-b + sq) / L2])
    else:
        if float(np.linalg.norm(target.center - (p + 0.5 * w))) > target.radius + 2 * mover.radius + d + 0.5 * math.sqrt(L2):
            return np.zeros((0, 2))
        n = np.array([-w[1], w[0]]) / math.sqrt(L2)
        P = cur.roots(lambda X: (X - p) @ n, g_lip=1.0)  # n is a unit normal: Lipschitz 1
        if len(P) == 0:
            return np.zeros((0, 2))
        ts = (P - p) @ w / L2
    ts = ts[(ts >= 0.0) & (ts <= 1.0)]
    return p + np.outer(ts, w)


_r6 = reported  # rounded to 1e-9 (world.reported), like the charge's moves


def _pt(p: np.ndarray) -> tuple[float, float]:
    return (float(p[0]), float(p[1]))


@dataclass
class Opts:
    """Where one model may end its move, with what each spot gives."""

    pts: np.ndarray
    z: np.ndarray
    cost: np.ndarray
    contact: np.ndarray
    er: np.ndarray
    gap: np.ndarray  # distance to the closest-at-start enemy model(s)
    #: how the base turns on the way (index into ``Settle.poses[model]``; 0: it does not)
    pose: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.pose is None:
            self.pose = np.zeros(len(self.pts), dtype=int)

    def __len__(self) -> int:
        return len(self.pts)

    def take(self, mask: np.ndarray) -> Opts:
        return Opts(self.pts[mask], self.z[mask], self.cost[mask], self.contact[mask], self.er[mask], self.gap[mask],
                    self.pose[mask])  # type: ignore[index]

    def joined(self, other: Opts) -> Opts:
        return Opts(*(np.concatenate([getattr(self, f), getattr(other, f)]) for f in OPT_FIELDS))


OPT_FIELDS = ("pts", "z", "cost", "contact", "er", "gap", "pose")


@dataclass
class Plan:
    pos: dict[str, np.ndarray]
    z: dict[str, float]
    cost: dict[str, float]
    moved: set[str] = field(default_factory=set)
    #: the pose (``Settle.poses``) each moved model takes; absent: no turn
    pose: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Plan:
        return Plan(dict(self.pos), dict(self.z), dict(self.cost), set(self.moved), dict(self.pose))

