"""The wheel of a charge against a fleeing unit, from constructed candidate angles.

The charger wheels ``theta`` about its inner front corner ``Q`` and then moves
straight ahead until something touches; the charge counts only where its front edge
makes the first contact with the fleeing unit, and it costs ``width |theta|`` plus
the distance moved. In the frame of the wheel every corner of the charger is
``Q + x f(theta) + y l(theta)``: linear in ``cos theta`` and ``sin theta``. So are the
quantities the verdict turns on, and their solutions are real roots of
trigonometric polynomials (``trigpoly.TP``), found exactly:

* a point ``p`` of the fleeing unit (a vertex, or the centre of a round end of radius
  ``r``) struck by the front edge: time ``(p - Q).f - r``; its cost is stationary
  where ``(p - Q).l = -/+ width`` (a closed form);
* a front corner ``E`` striking an edge of the fleeing unit (outward normal ``n``):
  time ``(p0 + r n - E).n / (f.n)``; cost stationary where ``U'V - UV' + sign w V^2``
  vanishes (``U``, ``V`` the two sinusoids);
* where a point of the fleeing unit or of an obstacle lies on the path of a corner
  (``(p - E).l = +/- (r + gap)``): where one contact feature hands over to another,
  and where a corner's path starts or stops grazing something;
* where a rear corner's contact time equals a front feature's (the front stops
  being first);
* where the wheel itself first meets an obstacle (``geom_turn.first_contact_turn``).

Between two neighbouring candidates the cost is smooth and the set of features in
play is fixed, so the least cost is at a candidate, at a stationary point of a round
end's contact (Brent's minimiser inside that proven-smooth bracket), or where
feasibility changes (bisected to ``BISECT_TOL`` between a feasible and an infeasible
neighbour).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .block import Block
from .geom import Shape
from .trigpoly import TP

#: feasibility boundaries are bisected to this (degrees)
BISECT_TOL = 1e-9


def _features(sh: Shape) -> tuple[list[np.ndarray], float, list[tuple[np.ndarray, np.ndarray]]]:
    """(points, radius, edges as (a point on it, outward unit normal)) of a shape; a
    capsule's two long sides are its edges, its ends round points."""
    if sh.kind == "poly":
        assert sh.V is not None
        V = sh.V
        edges = []
        for i in range(len(V)):
            a, b = V[i], V[(i + 1) % len(V)]
            e = b - a
            L = float(np.hypot(*e))
            if L < 1e-12:
                continue
            edges.append((a, np.array([e[1], -e[0]]) / L))  # CCW: outward is to the right
        return list(V), 0.0, edges
    assert sh.a is not None and sh.b is not None
    pts = [sh.a] if sh.is_disc else [sh.a, sh.b]
    edges = []
    if not sh.is_disc:
        e = sh.b - sh.a
        n = np.array([e[1], -e[0]]) / float(np.hypot(*e))
        edges = [(sh.a + sh.r * n, n), (sh.a - sh.r * n, -n)]
    return pts, sh.r, edges


def critical_wheels(ch: Block, sign: int, target: Shape, others: Sequence[tuple[Shape, float]]) -> list[float]:
    """Candidate wheels (degrees, of one sign, within 90) for a charger ``ch`` against
    ``target``, with ``others`` the obstacles and their least gaps (see the module
    docstring)."""
    w, dep = ch.width, ch.depth
    phi = math.radians(ch.facing)
    cph, sph = math.cos(phi), math.sin(phi)
    C, S = TP.cos(), TP.sin()
    fx, fy = cph * C - sph * S, sph * C + cph * S
    lx, ly = -fy, fx
    Q = ch.wheel_pivot(sign)
    qy = sign * w / 2
    # corners relative to Q in the wheel frame: (x along f, y along l)
    local = {"FL": (0.0, w / 2 - qy), "FR": (0.0, -w / 2 - qy), "RL": (-dep, w / 2 - qy), "RR": (-dep, -w / 2 - qy)}

    def corner(name: str) -> tuple[TP, TP]:
        x, y = local[name]
        return Q[0] + fx * x + lx * y, Q[1] + fy * x + ly * y

    corners = {k: corner(k) for k in local}
    eqs: list[TP] = []
    tpts, tr, tedges = _features(target)
    # contact times as (U, V): time = U / V
    front: list[tuple[TP, TP]] = []
    rear: list[tuple[TP, TP]] = []
    one = TP.const(1.0)
    for p in tpts:
        U = (p[0] - Q[0]) * fx + (p[1] - Q[1]) * fy - tr
        front.append((U, one))
        eqs.append((p[0] - Q[0]) * lx + (p[1] - Q[1]) * ly + sign * w)  # its cost is stationary
    for p0, n in tedges:
        V = fx * n[0] + fy * n[1]
        for name, (ex, ey) in corners.items():
            U = (p0[0] - ex) * n[0] + (p0[1] - ey) * n[1]
            (front if name in ("FL", "FR") else rear).append((U, V))
            if name in ("FL", "FR"):
                eqs.append(U.d() * V - U * V.d() + (sign * w) * V * V)
    for Ui, Vi in front:
        for Uj, Vj in rear + front:
            if Uj is not Ui:
                eqs.append(Ui * Vj - Uj * Vi)
    for sh, gap in [(target, 0.0)] + list(others):
        pts, r, _ = _features(sh)
        for p in pts:
            for ex, ey in corners.values():
                lat = (p[0] - ex) * lx + (p[1] - ey) * ly
                eqs += [lat - (r + gap), lat + (r + gap), lat]
    lo, hi = (0.0, math.pi / 2) if sign > 0 else (-math.pi / 2, 0.0)
    out = {math.degrees(lo), math.degrees(hi)}
    for g in eqs:
        out |= {math.degrees(x) for x in g.roots(lo, hi)}
    return sorted(out)


def best_wheel(cands: list[float], cost: Callable[[float], float], smooth_refine: bool) -> tuple[float, float]:
    """The least ``cost`` over wheels: evaluated at the candidates and midway between
    neighbours; where feasibility (a finite cost) changes between neighbours the
    boundary is bisected; with ``smooth_refine`` (round contact features, whose
    stationary points are not constructed) Brent's minimiser runs inside each
    feasible bracket. Returns (wheel, cost); cost ``inf`` when none is feasible."""
    from scipy.optimize import minimize_scalar

    xs = sorted(set(cands) | {(a + b) / 2 for a, b in zip(cands, cands[1:], strict=False) if b - a > 1e-9})
    vals = [cost(x) for x in xs]
    # equal costs (to 1e-9) go to the smaller wheel: no wheel beats a wheel of 1e-7
    # degree that float noise makes a hair cheaper
    best = min(zip(vals, xs, strict=True), key=lambda v: (round(v[0], 9), abs(v[1])), default=(math.inf, 0.0))
    for i in range(len(xs) - 1):
        a, b, fa, fb = xs[i], xs[i + 1], vals[i], vals[i + 1]
        fin_a, fin_b = math.isfinite(fa), math.isfinite(fb)
        if fin_a != fin_b:
            good, bad = (a, b) if fin_a else (b, a)
            while abs(bad - good) > BISECT_TOL:
                m = (good + bad) / 2
                if math.isfinite(cost(m)):
                    good = m
                else:
                    bad = m
            c = cost(good)
            if c < best[0]:
                best = (c, good)
        elif fin_a and fin_b and smooth_refine:
            res = minimize_scalar(lambda t: min(cost(t), 1e9), bounds=(a, b), method="bounded",
                                  options={"xatol": 1e-9, "maxiter": 100})
            c = cost(float(res.x))
            if c < best[0]:
                best = (c, float(res.x))
    return best[1], best[0]
