"""The shortest clear approach when something in the way blocks the constructed ones.

The constructed align angles (``reach``) are where the shortest *unobstructed*
approach lies. When a unit or terrain piece lies on the path, the clear approaches
form a region in the plane of (end offset ``s``, align angle ``delta``) cut by the
curves along which some part of the moving charger just touches an obstacle. This
module finds the least distance over that region by a certified branch and bound
over boxes of (``s``, ``delta``), each inside one *cell* (one sign of align, one
contact-point rule, one smooth stretch of the wheel: see ``cells``):

* a box's **lower bound** is exact arithmetic on closed forms: for a fixed align
  angle the distance is affine in the offset, so its least over the box's offsets is
  at an end; along the align angle its rate of change is bounded by ``_box`` (the
  pre-align front middle moves on a circle of radius ``rho`` about the contact point,
  ``tan(theta/2)`` changes at most ``(1 + tan^2)/2``), so the least over the box is
  at least the value at the middle angle less that bound times the half-width;
* a box is **unreachable** when ``d1`` or ``d2`` is negative all over it: each times
  ``sin(theta)`` is a function of the pre-align front middle with a bounded rate, so
  one value at the middle and the bound decide it;
* a box is **blocked** when one *witness* point stays inside an obstacle (or too near
  it, or off the board) for every approach in the box: a point of the charger at
  some stage of the path at the box's middle approach, deeper than how far any point
  of the path can move when the offset and the align angle range over the box
  (``_moves``: a bound from the same closed forms), or a point of an obstacle that
  deep inside the charger. Near a zero wheel (where ``d1`` and ``d2`` depend on the
  angle without bound) a second kind of witness compares with the straight move
  instead: a path with a wheel of ``theta`` stays within ``(R + d2) |theta|`` of the
  straight move of the same length (``R`` the charger's diagonal);
* any other box has its middle approach checked exactly (the same check every
  ruling uses); a clear one is an upper bound, slid along the offset towards the
  shorter side to where it meets the obstacle (bisection to ``POLISH_TOL``).

Boxes are split until every remaining one is bounded below by the best clear
approach less ``PROVE_TOL``: then that approach is the least to within
``PROVE_TOL`` (proven). The witness points and the instants of the path they are
taken at are a fixed set (``TAU``, ``EDGE_SPLIT``): they only decide how soon a box
is discarded, never the answer, which rests on the proofs above. When the box
budget runs out first the least bound of the remaining boxes is still a proven
lower bound (``Detour.lower``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ... import budget
from ...geometry.shapes import TOL
from .block import Block, Facing
from .geom import wrap_deg
from .reach import FEAS_TOL, MAX_WHEEL, _pieces_rules, _region_ends
from .world import Obstacle, World

#: the search stops when every remaining box is bounded below by the best clear
#: approach less this (inch)
PROVE_TOL = 5e-7
#: a clear approach is slid along the offset to the obstacle to within this (inch)
POLISH_TOL = 1e-10
#: box budgets of the search over both offset and angle, and over the angle alone
MAX_BOXES = 2000
MAX_BOXES_1D = 400
#: every this many boxes, the largest box left is taken instead of the lowest bound
BREADTH_EVERY = 3
#: rounds of sliding the best approach along its whole cell when the boxes run out
SLIDE_ROUNDS = 4
#: the instants (fractions of each step) and the splits of each edge at which witness
#: points are taken (they only speed the search up; see the module docstring)
TAU = np.linspace(0.0, 1.0, 9)
EDGE_SPLIT = 4

Found = tuple[object, list]  # (Approach, steps), as the clear check returns them


@dataclass
class Cell:
    """One sign of align angle, one contact-point rule (the contact point's offset is
    ``alpha s + beta`` for ``s`` in ``[pa, pb]``), and a stretch ``[dlo, dhi]``
    (degrees) of align angles on which the wheel ``theta = th0 - (delta - d0)`` keeps
    one sign and stays within 90 degrees."""

    sign: int
    alpha: float
    beta: float
    pa: float
    pb: float
    dlo: float
    dhi: float
    th0: float
    d0: float

    @property
    def h(self) -> float:
        return 1.0 if self.th0 > 0 else -1.0


def cells(ch: Block, fr: Facing) -> list[Cell]:
    out: list[Cell] = []
    for sign in (1, -1):
        ends = [0.0 if abs(e) <= 1e-9 else e for e in _region_ends(ch, fr, sign)]
        for (pa, pb), (alpha, beta) in _pieces_rules(ch, fr, sign):
            if pb < pa - 1e-12:
                continue
            for e0, e1 in zip(ends, ends[1:], strict=False):
                if e1 - e0 <= 1e-12:
                    continue
                mid = (e0 + e1) / 2
                th = wrap_deg(fr.psi - mid - ch.facing)
                if abs(th) > MAX_WHEEL + 1e-9 or th == 0:
                    continue
                out.append(Cell(sign, alpha, beta, pa, max(pa, pb), e0, e1, th, mid))
    return out


class _Geo:
    """Closed forms of one charger against one facing (vectorised over offsets and
    angles): the pre-align front middle ``P`` in the charger's starting frame, the
    wheel, the distance, and ``d1 sin(theta)``, ``d2 sin(theta)``."""

    def __init__(self, ch: Block, fr: Facing) -> None:
        self.ch, self.fr = ch, fr
        self.w = ch.width
        self.R = math.hypot(ch.width, ch.depth)
        self.F0 = np.asarray(ch.F, float)
        self.f0 = np.asarray(ch.f, float)
        self.l0 = np.asarray(ch.l, float)

    def at(self, c: Cell, S: np.ndarray, D: np.ndarray) -> dict[str, np.ndarray]:
        fr, w = self.fr, self.w
        xp = c.alpha * S + c.beta
        a = np.radians(-D)
        vx = S - xp
        px = xp + np.cos(a) * vx
        py = np.sin(a) * vx
        X = fr.mid[0] + px * fr.t[0] + py * fr.n[0] - self.F0[0]
        Y = fr.mid[1] + px * fr.t[1] + py * fr.n[1] - self.F0[1]
        Px = X * self.f0[0] + Y * self.f0[1]
        Py = X * self.l0[0] + Y * self.l0[1]
        th = np.radians(c.th0 - (D - c.d0))
        h = c.h * w / 2
        st, ct = np.sin(th), np.cos(th)
        dist = Px + (Py - 2 * h) * np.tan(th / 2) + w * np.abs(th)
        n2 = Py - h * (1 - ct)
        n1 = Px * st - Py * ct - h * (1 - ct)
        return {"Px": Px, "Py": Py, "th": th, "dist": dist, "n1": n1, "n2": n2, "rho": np.abs(vx),
                "st": st}


@dataclass
class Detour:
    """The result of a search: the least clear approach found (or None), a proven
    lower bound of every clear approach's distance in the searched set, and whether
    the two agree to ``PROVE_TOL``."""

    best: Found | None
    lower: float
    proven: bool
    boxes: int


def _sd_poly(P: np.ndarray, V: np.ndarray, inside_only: bool = False) -> np.ndarray:
    """Signed distances of points to a convex CCW polygon (negative inside). With
    ``inside_only`` a point outside gets only a lower bound of its distance (its
    greatest distance beyond an edge's line): enough when only points inside count."""
    A = V
    E = np.concatenate([V[1:], V[:1]]) - V
    L = np.hypot(E[:, 0], E[:, 1])
    N = np.stack([E[:, 1], -E[:, 0]], axis=1) / np.where(L > 0, L, 1.0)[:, None]
    side = P @ N.T - np.einsum("ek,ek->e", A, N)[None, :]
    inside = np.max(side, axis=1)
    if inside_only:
        return inside
    rel = P[:, None, :] - A[None, :, :]
    t = np.clip(np.einsum("pek,ek->pe", rel, E) / np.where(L > 0, L * L, 1.0)[None, :], 0.0, 1.0)
    cl = rel - t[:, :, None] * E[None, :, :]
    out = np.min(np.hypot(cl[:, :, 0], cl[:, :, 1]), axis=1)
    return np.where(inside <= 0, inside, out)


def _sd_cap(P: np.ndarray, a: np.ndarray, b: np.ndarray, r: float) -> np.ndarray:
    e = b - a
    ll = float(e @ e)
    t = np.clip(((P - a) @ e) / ll, 0.0, 1.0) if ll > 0 else np.zeros(len(P))
    q = P - (a[None, :] + t[:, None] * e[None, :])
    return np.hypot(q[:, 0], q[:, 1]) - r


def _body_samples(w: float, depth: float) -> np.ndarray:
    """Points of the charger's boundary in its own frame (ahead, left) from the front
    middle: the corners and ``EDGE_SPLIT`` pieces of each edge."""
    c = np.array([[0.0, w / 2], [-depth, w / 2], [-depth, -w / 2], [0.0, -w / 2]])
    k = np.linspace(0.0, 1.0, EDGE_SPLIT, endpoint=False)
    return np.concatenate([c[i] + k[:, None] * (c[(i + 1) % 4] - c[i]) for i in range(4)])


def _shape_samples(ob: Obstacle) -> np.ndarray:
    sh = ob.shape
    if sh.kind == "poly":
        V = sh.V
        assert V is not None
        k = np.linspace(0.0, 1.0, EDGE_SPLIT, endpoint=False)
        return np.concatenate([V[i] + k[:, None] * (V[(i + 1) % len(V)] - V[i]) for i in range(len(V))])
    assert sh.a is not None and sh.b is not None
    return np.stack([sh.a, sh.b, (sh.a + sh.b) / 2])


class Search:
    """The branch and bound of one charger against one facing, with its obstacles and
    the exact clear check ``clear(s, delta)`` (an approach and its steps, or None)."""

    def __init__(self, world: World, ch: Block, fr: Facing, obstacles: list[Obstacle],
                 clear: Callable[[float, float], Found | None]) -> None:
        self.world, self.ch, self.fr, self.obst = world, ch, fr, obstacles
        self.clear = clear
        self.g = _Geo(ch, fr)
        self.body = _body_samples(ch.width, ch.depth)
        self.osamp = [_shape_samples(o) for o in obstacles]
        self.thr = np.array([o.min_gap + (TOL if o.strict else -TOL) for o in obstacles])
        self.ocirc = [o.shape.bbox_circle() for o in obstacles]
        self.path = not ch.flying
        self.checks = 0

    # ------------------------------------------------------------------ bounds
    def _box(self, c: Cell, s0: float, s1: float, d0: float, d1: float) -> dict[str, float]:
        """Closed-form bounds over a box (offsets [s0, s1], angles [d0, d1] degrees)."""
        g = self.g
        sc, dc = (s0 + s1) / 2, (d0 + d1) / 2
        hs, hd = (s1 - s0) / 2, math.radians(d1 - d0) / 2
        v = g.at(c, np.array([s0, s1, sc]), np.array([dc, dc, dc]))
        rho = float(max(v["rho"][0], v["rho"][1]))
        thc = float(v["th"][2])
        tmax = abs(thc) + hd
        tmin = max(0.0, abs(thc) - hd)
        T = math.tan(min(tmax, math.pi / 2) / 2)
        w = g.w
        py_max = float(max(abs(v["Py"][0]), abs(v["Py"][1]))) + rho * hd
        # the distance's rate along the angle (per radian) over the box
        L_d = rho * (1 + T) + (py_max + w) * (1 + T * T) / 2 + w
        lb = float(min(v["dist"][0], v["dist"][1])) - L_d * hd
        ub_d = float(max(v["dist"][0], v["dist"][1])) + L_d * hd
        sgn = 1.0 if thc > 0 else -1.0
        pm = math.hypot(float(v["Px"][2]), float(v["Py"][2])) + hs + rho * hd
        L2 = rho + w / 2
        L1 = rho + pm + w / 2
        n1c, n2c = float(v["n1"][2]), float(v["n2"][2])
        # d1 = n1 / sin(theta) < -FEAS_TOL wherever sgn n1 < -FEAS_TOL max|sin(theta)|
        smax = math.sin(min(tmax, math.pi / 2))
        unreach = (sgn * n1c + hs + L1 * hd < -FEAS_TOL * smax) or (sgn * n2c + hs + L2 * hd < -FEAS_TOL * smax)
        return {"sc": sc, "dc": dc, "hs": hs, "hd": hd, "lb": lb, "ub": ub_d, "rho": rho, "tmax": tmax,
                "tmin": tmin, "n1": n1c, "n2": n2c, "L1": L1, "L2": L2, "unreach": float(unreach),
                "thc": thc, "distc": float(v["dist"][2])}

    def _moves(self, b: dict[str, float]) -> tuple[float, float, float, float] | None:
        """How far any point of stages 1-4 of the path (forward, wheel, forward, align)
        can move from where it is on the box's middle approach, over the box; None
        when the wheel may be zero in the box (``d1``, ``d2`` unbounded in rate)."""
        smin = math.sin(b["tmin"])
        hs, hd, R = b["hs"], b["hd"], self.g.R
        m4 = hs + R * hd + 2 * FEAS_TOL
        if smin <= 1e-12:
            return None
        n1m = abs(b["n1"]) + hs + b["L1"] * hd
        n2m = abs(b["n2"]) + hs + b["L2"] * hd
        # d = n / sin(theta): its rate along the offset is at most 1 / sin, along the
        # angle at most |n'| / sin + |n| |cos| / sin^2
        dd1 = hs / smin + hd * (b["L1"] / smin + n1m / (smin * smin))
        dd2 = hs / smin + hd * (b["L2"] / smin + n2m / (smin * smin))
        st = math.sin(b["thc"])
        d2m = abs(b["n2"] / st) + dd2
        e = 2 * FEAS_TOL
        return (dd1 + e, dd1 + R * hd + e, dd1 + dd2 + (R + d2m) * hd + e, m4)

    # ------------------------------------------------------------------ witnesses
    def _stages(self, c: Cell, b: dict[str, float], M: tuple[float, ...] | None
                ) -> list[tuple[Callable[[float], tuple[np.ndarray, np.ndarray]], float]]:
        """The stages of the box's middle approach as functions of the fraction done
        (front middle, heading unit vector), each with how far any of its points
        may move over the box."""
        g, fr = self.g, self.fr
        sc, dc = b["sc"], b["dc"]
        F0, f0, l0 = g.F0, g.f0, g.l0
        out: list[tuple[Callable[[float], tuple[np.ndarray, np.ndarray]], float]] = []
        # the align, about the contact point, ending flush at offset sc
        X = fr.pt(c.alpha * sc + c.beta)
        rel4 = fr.pt(sc) - X
        psi = math.radians(fr.psi)
        a4 = math.radians(-dc)

        def align(tau: float) -> tuple[np.ndarray, np.ndarray]:
            a = a4 * (1 - tau)
            ca, sa = math.cos(a), math.sin(a)
            return (X + np.array([ca * rel4[0] - sa * rel4[1], sa * rel4[0] + ca * rel4[1]]),
                    np.array([math.cos(psi + a), math.sin(psi + a)]))

        if not self.path:
            out.append((lambda tau: align(1.0), b["hs"] + 2 * FEAS_TOL))
            return out
        out.append((align, b["hs"] + g.R * b["hd"] + 2 * FEAS_TOL))
        # the straight move from the start, as long as the forward moves of any
        # reachable approach of the box add up to at least: a wheel of theta keeps
        # every point of the first three steps within (R + d2) |theta| of it, and d2
        # is at most the distance
        length = b["lb"] - g.w * b["tmax"]
        if length > 0:
            ms = (g.R + b["ub"] + FEAS_TOL) * b["tmax"] + 2 * FEAS_TOL
            out.append((lambda tau: (F0 + tau * length * f0, f0), ms))
        if M is None:
            return out
        v = g.at(c, np.array([sc]), np.array([dc]))
        th = float(v["th"][0])
        st = math.sin(th)
        d2 = float(v["n2"][0]) / st
        d1 = float(v["n1"][0]) / st
        Q = F0 + c.h * g.w / 2 * l0 + d1 * f0
        rel = F0 + d1 * f0 - Q

        def wheel(tau: float) -> tuple[np.ndarray, np.ndarray]:
            ca, sa = math.cos(tau * th), math.sin(tau * th)
            return (Q + np.array([ca * rel[0] - sa * rel[1], sa * rel[0] + ca * rel[1]]),
                    np.array([ca * f0[0] - sa * f0[1], sa * f0[0] + ca * f0[1]]))

        F1, f1 = wheel(1.0)
        out.append((lambda tau: (F0 + tau * d1 * f0, f0), M[0]))
        out.append((wheel, M[1]))
        out.append((lambda tau: (F1 + tau * d2 * f1, f1), M[2]))
        return out

    def _margins(self, Fs: np.ndarray, fs: np.ndarray, Ms: np.ndarray) -> np.ndarray:
        """For each pose (front middle, heading, how far it may move), the least over
        its witness points of (signed distance + how far it may move - threshold): a
        negative value proves every approach of the box blocked."""
        w, depth = self.g.w, self.ch.depth
        ls = np.stack([-fs[:, 1], fs[:, 0]], axis=1)
        B = self.body
        pts = Fs[:, None, :] + B[None, :, 0:1] * fs[:, None, :] + B[None, :, 1:2] * ls[:, None, :]
        n = len(Fs)
        flat = pts.reshape(-1, 2)
        Mp = np.repeat(Ms, len(B))
        W, D = self.world.board
        edge = np.minimum(np.minimum(flat[:, 0], flat[:, 1]), np.minimum(W - flat[:, 0], D - flat[:, 1]))
        out = np.min((edge + Mp + TOL).reshape(n, -1), axis=1)
        reach = self.g.R + float(np.max(Ms))
        for k, ob in enumerate(self.obst):
            sh = ob.shape
            oc, orad = self.ocirc[k]
            if float(np.min(np.hypot(Fs[:, 0] - oc[0], Fs[:, 1] - oc[1]))) - orad - reach >= self.thr[k]:
                continue  # no point of any pose comes near enough
            if sh.kind == "poly":
                assert sh.V is not None
                # a point outside counts only when the obstacle keeps a gap
                sd = _sd_poly(flat, sh.V, inside_only=self.thr[k] - float(np.min(Mp)) <= 0)
            else:
                assert sh.a is not None and sh.b is not None
                sd = _sd_cap(flat, sh.a, sh.b, sh.r)
            out = np.minimum(out, np.min((sd + Mp - self.thr[k]).reshape(n, -1), axis=1))
            # obstacle points inside (or too near) the charger at a pose
            Q = self.osamp[k]
            rel = Q[None, :, :] - Fs[:, None, :]
            ax = np.einsum("pqk,pk->pq", rel, fs) + depth / 2
            ay = np.einsum("pqk,pk->pq", rel, ls)
            qx = np.abs(ax) - depth / 2
            qy = np.abs(ay) - w / 2
            sdb = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
            out = np.minimum(out, np.min(sdb, axis=1) + Ms - self.thr[k])
            if sh.kind != "poly":
                out = np.minimum(out, self._cap_witness(ob, Fs, fs, ls) + Ms - self.thr[k])
        return out

    def _cap_witness(self, ob: Obstacle, Fs: np.ndarray, fs: np.ndarray, ls: np.ndarray) -> np.ndarray:
        """For a round obstacle (a capsule or disc), the signed distance to the charger
        at each pose of the obstacle's point reaching farthest towards it: from the
        point of the obstacle's segment nearest the charger's middle, its radius
        towards the charger's nearest point (a point of the obstacle: a valid
        witness whichever is picked)."""
        sh = ob.shape
        assert sh.a is not None and sh.b is not None
        w, depth = self.g.w, self.ch.depth
        C = Fs - fs * depth / 2
        e = sh.b - sh.a
        ll = float(e @ e)
        t = np.clip(((C - sh.a) @ e) / ll, 0.0, 1.0) if ll > 0 else np.zeros(len(C))
        sp = sh.a[None, :] + t[:, None] * e[None, :]
        ax = np.einsum("pk,pk->p", sp - C, fs)
        ay = np.einsum("pk,pk->p", sp - C, ls)
        qa = np.clip(ax, -depth / 2, depth / 2)
        qb = np.clip(ay, -w / 2, w / 2)
        dx, dy = qa - ax, qb - ay
        dn = np.hypot(dx, dy)
        ux = np.where(dn > 0, dx / np.where(dn > 0, dn, 1.0), 0.0)
        uy = np.where(dn > 0, dy / np.where(dn > 0, dn, 1.0), 0.0)
        px, py = ax + sh.r * ux, ay + sh.r * uy
        qx = np.abs(px) - depth / 2
        qy = np.abs(py) - w / 2
        return np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)

    def _blocked(self, stages: list[tuple[Callable[[float], tuple[np.ndarray, np.ndarray]], float]]) -> bool:
        """Whether a witness (a point at one of the instants ``TAU`` of a stage)
        proves the box blocked."""
        if not stages:
            return False
        poses = [(k, float(t)) + fn(float(t)) for k, (fn, _) in enumerate(stages) for t in TAU]
        Fs = np.stack([p[2] for p in poses])
        fs = np.stack([p[3] for p in poses])
        Ms = np.array([stages[p[0]][1] for p in poses])
        m = self._margins(Fs, fs, Ms)
        return bool(np.min(m) < 0)

    # ------------------------------------------------------------------ search
    def run(self, cs: list[Cell], upper: Found | None, s_fixed: float | None = None,
            max_boxes: int | None = None) -> Detour:
        best = upper
        ub = math.inf if best is None else float(best[0].distance)  # type: ignore[attr-defined]
        # boxes by lower bound (what the proof needs) and by size (so that clear
        # approaches are met early all over the plane: every ``BREADTH_EVERY``-th box
        # taken is the largest left)
        heap: list[tuple[float, int]] = []
        wide: list[tuple[float, int]] = []
        live: dict[int, tuple[float, int, float, float, float, float]] = {}
        n = 0

        def push(lb: float, i: int, s0: float, s1: float, d0: float, d1: float) -> None:
            nonlocal n
            live[n] = (lb, i, s0, s1, d0, d1)
            heapq.heappush(heap, (lb, n))
            heapq.heappush(wide, (-((s1 - s0) + math.radians(d1 - d0) * self.g.R), n))
            n += 1

        for i, c in enumerate(cs):
            if s_fixed is not None:
                if not c.pa - 1e-12 <= s_fixed <= c.pb + 1e-12:
                    continue
                s0 = s1 = s_fixed
            else:
                s0, s1 = c.pa, c.pb
            push(self._box(c, s0, s1, c.dlo, c.dhi)["lb"], i, s0, s1, c.dlo, c.dhi)
        limit = max_boxes or (MAX_BOXES if s_fixed is None else MAX_BOXES_1D)
        boxes = 0
        best_cell: int | None = None
        pruned = math.inf  # the least lower bound of the boxes given up on their bound
        while True:
            while heap and heap[0][1] not in live:
                heapq.heappop(heap)
            if not heap or heap[0][0] >= ub - PROVE_TOL or boxes >= limit:
                break
            src = wide if boxes % BREADTH_EVERY == BREADTH_EVERY - 1 else heap
            while src[0][1] not in live:
                heapq.heappop(src)
            _, key = heapq.heappop(src)
            lb, i, s0, s1, d0, d1 = live.pop(key)
            if lb >= ub - PROVE_TOL:
                pruned = min(pruned, lb)
                continue
            boxes += 1
            budget.check()
            c = cs[i]
            b = self._box(c, s0, s1, d0, d1)
            if b["unreach"]:
                continue
            M = self._moves(b)
            if self._blocked(self._stages(c, b, M)):
                continue
            if b["distc"] < ub - 1e-12:
                found = self._try(b["sc"], b["dc"])
                if found is not None:
                    found = self._polish(c, found, s0, s1, d0, d1)
                    d = float(found[0].distance)  # type: ignore[attr-defined]
                    if d < ub:
                        ub, best, best_cell = d, found, i
            # split the longer side (the angle's measured by how far it moves the charger)
            if s1 - s0 > math.radians(d1 - d0) * self.g.R:
                m = (s0 + s1) / 2
                kids = [(s0, m, d0, d1), (m, s1, d0, d1)]
            else:
                m = (d0 + d1) / 2
                kids = [(s0, s1, d0, m), (s0, s1, m, d1)]
            for k0, k1, e0, e1 in kids:
                kb = self._box(c, k0, k1, e0, e1)
                if kb["unreach"]:
                    continue
                if kb["lb"] < ub - PROVE_TOL:
                    push(kb["lb"], i, k0, k1, e0, e1)
                else:
                    pruned = min(pruned, kb["lb"])
        # every clear approach is in a box still live or given up on its bound
        rest = [v[0] for v in live.values()]
        if best is not None and min(rest, default=math.inf) < ub - PROVE_TOL and best_cell is not None:
            # out of boxes before the proof: slide the best along its whole cell too
            c = cs[best_cell]
            for _ in range(SLIDE_ROUNDS):
                before = float(best[0].distance)  # type: ignore[attr-defined]
                best = self._polish(c, best, c.pa, c.pb, c.dlo, c.dhi) if s_fixed is None else \
                    self._slide(c, best, c.dlo, c.dhi, False)
                if float(best[0].distance) >= before - 1e-12:  # type: ignore[attr-defined]
                    break
            ub = float(best[0].distance)  # type: ignore[attr-defined]
        low = min([ub, pruned] + rest)
        proven = best is not None and min(rest, default=math.inf) >= ub - PROVE_TOL
        return Detour(best, low, proven, boxes)

    def _try(self, s: float, d: float) -> Found | None:
        self.checks += 1
        return self.clear(s, d)

    def _polish(self, c: Cell, found: Found, s0: float, s1: float, d0: float, d1: float) -> Found:
        """Slide a clear approach towards shorter ones inside its box: along the offset
        (the distance is affine in it for a fixed angle) to the box's end or to where
        it meets the obstacle (bisection), then likewise along the angle towards the
        shorter end of the box, then along the offset again."""
        found = self._slide(c, found, s0, s1, True)
        found = self._slide(c, found, d0, d1, False)
        return self._slide(c, found, s0, s1, True)

    def _slide(self, c: Cell, found: Found, lo: float, hi: float, along_s: bool) -> Found:
        ap = found[0]
        s, d = float(ap.s), float(ap.delta)  # type: ignore[attr-defined]
        if hi - lo <= POLISH_TOL:
            return found
        if along_s:
            v = self.g.at(c, np.array([lo, hi]), np.array([d, d]))
        else:
            v = self.g.at(c, np.array([s, s]), np.array([lo, hi]))
        far = lo if v["dist"][0] < v["dist"][1] else hi
        at = (lambda x: self._try(x, d)) if along_s else (lambda x: self._try(s, x))
        got = at(far)
        if got is not None:
            return got if got[0].distance < ap.distance else found  # type: ignore[attr-defined]
        good, bad = (s if along_s else d), far
        while abs(good - bad) > POLISH_TOL:
            budget.check()
            m = (good + bad) / 2
            got = at(m)
            if got is not None:
                good = m
                if got[0].distance < found[0].distance:  # type: ignore[attr-defined]
                    found = got
            else:
                bad = m
        return found
