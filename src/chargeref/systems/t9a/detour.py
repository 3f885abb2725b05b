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
  at least the value at the middle angle less that bound times the half-width; and,
  to second order, at least the value less the exact slope times the half-width less
  a bound of the second derivative times half its square (the larger is used);
* a box is **unreachable** when ``d1`` or ``d2`` is negative all over it: each times
  ``sin(theta)`` is affine in the offset for a fixed angle and has a bounded rate
  along the angle, so its values at the two end offsets and the bound decide it;
* a box is **blocked** when one *witness* point stays inside an obstacle (or too near
  it, or off the board) for every approach in the box: a point of the charger at a
  pose that every approach of the box comes within a bound of, deeper than that
  bound, or a point of an obstacle that deep inside the charger (``_stages``): the
  steps of the box's middle approach (bounds from the rates of ``d1``, ``d2``, which
  grow like ``1/theta`` near a zero wheel: ``_moves``); the straight move
  (a path with a wheel of ``theta`` stays within ``(R + d2) |theta|`` of it, ``R``
  the charger's diagonal); and, finite as the wheel goes to zero, the shared start of
  the first forward move (``d1min``), the end of the second measured back from the
  pre-align pose (``d2min``), and the end of the align from the box's smallest align
  angle (every approach turns through it) for the part of the charger every approach
  covers (``_slid``);
* any other box has its middle approach checked exactly (the same check every
  ruling uses), or else the offsets of its middle angle where ``d1`` or ``d2`` is
  zero; a clear one is an upper bound, slid along the offset, the angle and that
  edge towards shorter ones to where it meets the obstacle (bisection to
  ``POLISH_TOL``).

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
from .detour_cells import Cell, _Geo, cells  # noqa: F401  (cells: the callers take them from here)
from .detour_slide import POLISH_TOL, Found, Slides  # noqa: F401  (POLISH_TOL: re-exported)
from .detour_touch import SEARCH_SLACK, settle, touch_obstacles
from .detour_witness import (
    TAU,
    Stage,
    _body_samples,
    _group_reduce,
    _line,
    _plus_spun,
    _PolyConst,
    _sd_cap,
    _shape_samples,
    _turned,
)
from .reach import FEAS_TOL
from .world import Obstacle, World

#: the search stops when every remaining box is bounded below by the best clear
#: approach less this (inch)
PROVE_TOL = 5e-7
#: box budgets of the search over both offset and angle, and over the angle alone
MAX_BOXES = 2000
MAX_BOXES_1D = 400
#: every this many boxes, the largest box left is taken instead of the lowest bound
BREADTH_EVERY = 3
SPLIT_S = 4.0
#: how far (inch) the closed forms may be from the executed steps by rounding alone
ROUND_SLACK = 1e-11
#: rounds of sliding the best approach along its whole cell when the boxes run out
SLIDE_ROUNDS = 4
#: a point outside a polygon whose distance beyond an edge's line (a lower bound of
#: its distance) clears the obstacle's gap by at least this (inch) has its exact
#: distance skipped in ``Search._margins`` (far above rounding, so the sign of every
#: margin stays as the exact distance gives it)
SKIP_MARGIN = 1e-9




@dataclass
class Detour:
    """The result of a search: the least clear approach found (or None), settled onto
    a touch (``detour_touch``), a proven lower bound of every clear approach's
    distance in the searched set (clear for the search's test: overlapping by up to
    ``SEARCH_SLACK``), and whether the best approach of that test, before settling,
    was within ``PROVE_TOL`` of the bound."""

    best: Found | None
    lower: float
    proven: bool
    boxes: int


class Search(Slides):
    """The branch and bound of one charger against one facing, with its obstacles and
    the exact clear check ``clear(s, delta)`` (an approach and its steps, or None)."""

    def __init__(self, world: World, ch: Block, fr: Facing, obstacles: list[Obstacle],
                 clear: Callable[[float, float], Found | None]) -> None:
        self.world, self.ch, self.fr, self.obst = world, ch, fr, obstacles
        self.clear = clear
        # the obstacles as they are when a path may overlap nothing (``detour_touch``)
        self.tobst = touch_obstacles(obstacles, SEARCH_SLACK)
        self.g = _Geo(ch, fr)
        self.body = _body_samples(ch.width, ch.depth)
        self.osamp = [_shape_samples(o) for o in obstacles]
        self.thr = np.array([o.min_gap + (TOL if o.strict else -TOL) for o in obstacles])
        self.ocirc = [o.shape.bbox_circle() for o in obstacles]
        self.opoly = [_PolyConst(o.shape.V) if o.shape.kind == "poly" and o.shape.V is not None else None
                      for o in obstacles]
        self.oc = np.array([c for c, _ in self.ocirc], float).reshape(-1, 2)
        self.orad = np.array([r for _, r in self.ocirc], float)
        self.bodies: dict[float, np.ndarray] = {}
        self.stacks: dict[tuple[int, ...], tuple[np.ndarray, ...]] = {}
        self.path = not ch.flying
        self.checks = 0

    # ------------------------------------------------------------------ bounds
    def _box(self, c: Cell, s0: float, s1: float, d0: float, d1: float) -> dict[str, float]:
        """Closed-form bounds over a box (offsets [s0, s1], angles [d0, d1] degrees)."""
        g = self.g
        sc, dc = (s0 + s1) / 2, (d0 + d1) / 2
        hs, hd = (s1 - s0) / 2, math.radians(d1 - d0) / 2
        v = g.at3(c, (s0, s1, sc), dc)
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
        # and to second order: at each end offset the distance is at least its value
        # and slope at the middle angle less K hd^2 / 2, K bounding its second
        # derivative along the angle (P's is rho; d/dtheta of (1 + tan^2)/2 is
        # tan (1 + tan^2) / 2; the wheel's arc has none, the wheel keeping one sign)
        K = rho * (1 + T) + rho * (1 + T * T) + (py_max + 2 * w) * T * (1 + T * T) / 2
        lb2 = min(float(v["dist"][k]) - abs(float(v["ddist"][k])) * hd for k in (0, 1)) - K * hd * hd / 2
        lb = max(lb, lb2)
        ub_d = float(max(v["dist"][0], v["dist"][1])) + L_d * hd
        pm = math.hypot(float(v["Px"][2]), float(v["Py"][2])) + hs + rho * hd
        # rates of n1 = d1 sin(theta) and n2 = d2 sin(theta) along the angle (per
        # radian) at any offset of the box: P moves at most rho, |P| is at most pm,
        # h (1 - cos) changes at most w / 2
        L2 = rho + w / 2
        L1 = rho + pm + w / 2
        n1c, n2c = float(v["n1"][2]), float(v["n2"][2])
        sgn = float(c.h)  # the sign of the wheel all over the cell
        # for a fixed angle n1 and n2 are affine in the offset, so over the box they lie
        # within their values at the box's two offsets (middle angle) and the rate
        # times the half-width of angles
        hi1, hi2 = (max(sgn * float(v[n][0]), sgn * float(v[n][1])) for n in ("n1", "n2"))
        lo1, lo2 = (min(sgn * float(v[n][0]), sgn * float(v[n][1])) for n in ("n1", "n2"))
        hi1, hi2, lo1, lo2 = hi1 + L1 * hd, hi2 + L2 * hd, lo1 - L1 * hd, lo2 - L2 * hd
        # d1 = sgn n1 / |sin(theta)| < -FEAS_TOL wherever sgn n1 < -FEAS_TOL max|sin(theta)|
        smax = math.sin(min(tmax, math.pi / 2))
        unreach = hi1 < -FEAS_TOL * smax or hi2 < -FEAS_TOL * smax
        # the least d1 and d2 over the box: sgn n = d |sin(theta)| is at least lo, and
        # |sin(theta)| is at most smax (finite as the wheel goes to zero, unlike the
        # rates of d1 and d2 themselves); not near a wheel so small that the solve
        # takes it as none (there d2 is 0)
        d1min = max(0.0, lo1) / smax if smax > 1e-9 else 0.0
        d2min = max(0.0, lo2) / smax if smax > 1e-9 else 0.0
        # for the middle angle, n1 and n2 (so d1 and d2 times the fixed sin(theta)) are
        # affine in the offset: where one of them is zero inside the box, with the
        # other not negative, lies an edge of the approaches that exist (no forward
        # move before or after the wheel); the least clear approach is often there
        edges: list[tuple[float, float]] = []
        if hs > 0:
            for n, o in (("n1", "n2"), ("n2", "n1")):
                a0, a1 = sgn * float(v[n][0]), sgn * float(v[n][1])
                if (a0 < 0) == (a1 < 0) or a0 == a1:
                    continue
                k = a0 / (a0 - a1)
                if sgn * (float(v[o][0]) * (1 - k) + float(v[o][1]) * k) < 0:
                    continue
                edges.append((s0 + (s1 - s0) * k, float(v["dist"][0]) * (1 - k) + float(v["dist"][1]) * k))
            edges.sort(key=lambda e: e[1])
        # how far the steps of an approach of the box may be from its closed form: the
        # solve takes a d1 or d2 down to -FEAS_TOL as zero, which moves every later
        # pose by that much; only where the lower bound above is negative, and by at
        # most -lo / min|sin(theta)|; otherwise only rounding (ROUND_SLACK)
        # When the middle approach itself is so taken (by c1, c2), the witnesses are
        # its steps as made (moved by what was taken) and the bound is how much more or
        # less another approach has taken: at most how much its d1 (d2) differs, which
        # is at most (hi - lo) / min|sin| + |n| hd / min|sin|^2 (1/sin changes at most
        # cos / sin^2 per radian)
        smin = math.sin(tmin)
        stc = abs(math.sin(thc))
        takes = []
        slack = ROUND_SLACK
        for lo, hi, n in ((lo1, hi1, n1c), (lo2, hi2, n2c)):
            dc_ = sgn * n / stc if stc > 0 else 0.0
            take = -dc_ if -FEAS_TOL <= dc_ < 0 else 0.0
            takes.append(take)
            if lo >= 0 and take == 0:
                continue
            spread = (hi - lo) / smin + abs(n) * hd / (smin * smin) if smin > 0 else math.inf
            if take > 0:
                slack += min(spread, FEAS_TOL + take)
            else:
                slack += min(spread, FEAS_TOL, -lo / smin if smin > 0 else FEAS_TOL)
        return {"sc": sc, "dc": dc, "hs": hs, "hd": hd, "dlo": d0, "dhi": d1, "lb": lb, "ub": ub_d, "rho": rho, "tmax": tmax,
                "tmin": tmin, "n1": n1c, "n2": n2c, "L1": L1, "L2": L2, "unreach": float(unreach),
                "thc": thc, "distc": float(v["dist"][2]), "d1min": d1min, "d2min": d2min,
                "Px": float(v["Px"][2]), "Py": float(v["Py"][2]), "rhoc": float(v["rho"][2]), "slack": slack,
                "edges": edges, "take1": takes[0], "take2": takes[1]}

    def _moves(self, b: dict[str, float]) -> tuple[float, float, float, float] | None:
        """How far any point of stages 1-4 of the path (forward, wheel, forward, align)
        can move from where it is on the box's middle approach, over the box; None
        when the wheel may be zero in the box (``d1``, ``d2`` unbounded in rate)."""
        smin = math.sin(b["tmin"])
        hs, hd, R = b["hs"], b["hd"], self.g.R
        m4 = hs + R * hd + b["slack"]
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
        e = b["slack"]
        return (dd1 + e, dd1 + R * hd + e, dd1 + dd2 + (R + d2m) * hd + e, m4)

    # ------------------------------------------------------------------ witnesses
    def _slid(self, c: Cell, b: dict[str, float]) -> tuple[float, float] | None:
        """For a fixed align angle the pre-align pose is affine in the offset: it moves
        by ``(1 - alpha) l + alpha t`` per inch of offset (``l`` its own front edge's
        direction, ``t`` the facing's; they differ by the align angle ``a``, so
        ``|t - l| <= |a|``), and so do the poses of the align (turned about the
        contact point, which moves by ``alpha t``) and of the second forward move (the
        pre-align pose moved back along its heading). Sliding a charger along its own
        front edge by at most ``hs`` keeps the middle part of it, ``hs`` narrower on
        each side, covered; what is left of the move is ``alpha hs max|a|``. So for
        the points of that narrower charger the change of offset over the box moves
        them at most ``alpha hs max|a|`` (the change of angle is bounded as before).
        Returns (that move, the narrower half-width), or None when nothing is left."""
        hw = self.g.w / 2 - b["hs"]
        if hw <= 0:
            return None
        amax = math.radians(abs(b["dc"])) + b["hd"]
        return abs(c.alpha) * b["hs"] * amax, hw

    def _stages(self, c: Cell, b: dict[str, float], M: tuple[float, ...] | None) -> list[Stage]:
        """Witness paths of the box: poses (front middle, heading unit vector) at the
        fractions ``TAU`` of a stage, each stage with how far any of its points may be
        from a pose of every reachable approach of the box, and the half-width of the
        part of the charger that bound holds for."""
        g, fr = self.g, self.fr
        sc, dc = b["sc"], b["dc"]
        F0, f0, l0 = g.F0, g.f0, g.l0
        out: list[Stage] = []
        hw = g.w / 2
        sl = b["slack"]
        # the align, about the contact point, ending flush at offset sc
        X = fr.pt(c.alpha * sc + c.beta)
        rel4 = fr.pt(sc) - X
        psi = math.radians(fr.psi)
        a4 = math.radians(-dc)
        # what the steps of the middle approach leave out of its closed form (a d1 or
        # d2 just below zero taken as zero): every later pose is moved by it, the
        # align's turned with it
        thc = b["thc"]
        e3 = math.cos(thc) * f0 + math.sin(thc) * l0
        sig = b["take1"] * f0 + b["take2"] * e3
        if not self.path:
            Fe, fe = _turned(X, rel4, psi, np.zeros(1))
            out.append((_plus_spun(Fe, sig, np.array([-a4])), fe, b["hs"] + sl, hw))
            return out
        Fa, fa = _turned(X, rel4, psi, a4 * (1 - TAU))
        out.append((_plus_spun(Fa, sig, -a4 * TAU), fa, b["hs"] + g.R * b["hd"] + sl, hw))
        # the end of the align every approach of the box makes: the turn from the
        # smallest align angle of the box (in size; zero when the box holds zero) to
        # none. Every approach's align passes through each of those angles (its turn
        # runs from its own align angle, of the same sign and no smaller, to none),
        # so only the change of offset moves these poses: for the part of the charger
        # every approach covers (``_slid``), by at most ``alpha hs |a_ref|``
        slid = self._slid(c, b)
        if slid is not None:
            d_ref = 0.0 if b["dlo"] <= 0.0 <= b["dhi"] else (b["dlo"] if b["dlo"] > 0 else b["dhi"])
            a_ref = math.radians(-d_ref)
            ang = a_ref * (1 - TAU) if a_ref != 0 else np.zeros(1)
            Fr, fr_ = _turned(X, rel4, psi, ang)
            # (another approach's part left out is turned by its own align angle:
            # at most hd more)
            mr = abs(c.alpha) * b["hs"] * abs(a_ref) + sl + float(np.hypot(*sig)) * b["hd"]
            out.append((_plus_spun(Fr, sig, ang - a4), fr_, mr, slid[1]))
        # the straight move from the start, as long as the forward moves of any
        # reachable approach of the box add up to at least: a wheel of theta keeps
        # every point of the first three steps within (R + d2) |theta| of it, and d2
        # is at most the distance
        length = b["lb"] - g.w * b["tmax"]
        if length > 0:
            ms = (g.R + b["ub"] + FEAS_TOL) * b["tmax"] + 2 * FEAS_TOL
            out.append(_line(F0, f0, length, ms, hw))
        # the stretches every reachable approach of the box shares (up to a bound that
        # stays finite as the wheel goes to zero): the first d1min of the first forward
        # move is the same pose for all; the last d2min of the second forward move,
        # measured back from the pre-align pose P, moves at most |dP| + (u + R) |dtheta|
        # for a point u back (P moves at most hs + rho hd, theta at most hd)
        if b["d1min"] > 0:
            out.append(_line(F0, f0, b["d1min"], sl, hw))
        if b["d2min"] > 0:
            d2m = b["d2min"]
            e = e3
            Pw = F0 + b["Px"] * f0 + b["Py"] * l0 + b["take1"] * f0
            if slid is not None:
                m3s = slid[0] + (b["rhoc"] + d2m + g.R) * b["hd"] + sl
                out.append(_line(Pw, -e, d2m, m3s, slid[1], heading=e))
        if M is None:
            return out
        th = b["thc"]
        st = math.sin(th)
        d2 = b["n2"] / st
        d1 = b["n1"] / st
        Q = F0 + c.h * g.w / 2 * l0 + d1 * f0
        rel = F0 + d1 * f0 - Q
        h0 = math.atan2(float(f0[1]), float(f0[0]))
        Fw, fw = _turned(Q, rel, h0, th * TAU)
        Fw = Fw + b["take1"] * f0
        f1 = fw[-1]
        if b["take1"] == 0:
            out.append(_line(F0, f0, d1, M[0], hw))
        out.append((Fw, fw, M[1], hw))
        out.append(_line(Fw[-1], f1, d2, M[2], hw))
        return out

    def _margins(self, Fs: np.ndarray, fs: np.ndarray, Ms: np.ndarray, hw: float | None = None,
                 stop: bool = False) -> np.ndarray:
        """For each pose (front middle, heading, how far it may move), a value that is
        negative exactly when the least over its witness points of (signed distance +
        how far it may move - threshold) is: a negative value proves every approach
        of the box blocked. ``hw``: the half-width of the part of the charger taken
        (the whole by default).

        The polygons are taken all at once (their constants stacked once per search:
        ``_stack``). Every negative value is that least itself (the same closed forms
        as ``_margins_plain`` in tests/t9a/test_detour_margins.py); where it is not
        negative the value may be a lower bound of it that is not negative either: a
        point outside a polygon whose distance beyond an edge's line already keeps it
        clear of the gap by ``SKIP_MARGIN`` has its exact distance (never less)
        skipped. With ``stop`` the values are returned as soon as one is negative (all
        a blocked box needs)."""
        depth = self.ch.depth
        if hw is None or hw >= self.g.w / 2:
            w, B = self.g.w, self.body
        else:
            w = 2 * hw
            B = self.bodies.get(w)
            if B is None:
                B = self.bodies[w] = _body_samples(w, depth)
        ls = np.stack([-fs[:, 1], fs[:, 0]], axis=1)
        pts = Fs[:, None, :] + B[None, :, 0:1] * fs[:, None, :] + B[None, :, 1:2] * ls[:, None, :]
        n = len(Fs)
        flat = pts.reshape(-1, 2)
        Mp = np.repeat(Ms, len(B))
        W, D = self.world.board
        edge = np.minimum(np.minimum(flat[:, 0], flat[:, 1]), np.minimum(W - flat[:, 0], D - flat[:, 1]))
        out = np.min((edge + Mp + TOL).reshape(n, -1), axis=1)
        reach = self.g.R + float(np.max(Ms))
        mmin = float(np.min(Mp))
        if stop and float(np.min(out)) < 0:
            return out
        if not self.obst:
            return out
        dmin = np.min(np.hypot(Fs[None, :, 0] - self.oc[:, 0, None], Fs[None, :, 1] - self.oc[:, 1, None]), axis=1)
        sel = np.nonzero(~(dmin - self.orad - reach >= self.thr))[0].tolist()
        # (an obstacle left out has no point of any pose near enough)
        polys = tuple(k for k in sel if self.opoly[k] is not None)
        if polys:
            # all the polygons at once: the greatest distance beyond an edge's line (the
            # signed distance inside, a lower bound outside) and, for each pose, the
            # least over an obstacle's sample points of their signed distance to the
            # charger (the same expressions as ``_margins_plain``, one obstacle a column)
            N, NA, starts, Q, qstarts, thr = self._stack(polys)
            side = _group_reduce(np.maximum, N @ flat.T - NA[:, None], starts)  # (obstacle, point)
            for j, k in enumerate(polys):
                pc = self.opoly[k]
                assert pc is not None
                if thr[j] - mmin > 0:  # a point outside counts only when the obstacle keeps a gap
                    far = np.nonzero((side[j] > 0) & (side[j] + Mp - thr[j] < SKIP_MARGIN))[0]
                    if len(far):
                        side[j, far] = pc.outside(flat[far])
            out = np.minimum(out, np.min(np.min(side + Mp[None, :] - thr[:, None], axis=0).reshape(n, -1), axis=1))
            rel = Q[:, None, :] - Fs[None, :, :]  # (sample, pose, xy)
            ax = np.einsum("qpk,pk->qp", rel, fs) + depth / 2
            ay = np.einsum("qpk,pk->qp", rel, ls)
            qx = np.abs(ax) - depth / 2
            qy = np.abs(ay) - w / 2
            sdb = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
            sdb = _group_reduce(np.minimum, sdb, qstarts)  # (obstacle, pose)
            out = np.minimum(out, np.min(sdb + Ms[None, :] - thr[:, None], axis=0))
            if stop and float(np.min(out)) < 0:
                return out
        for k in sel:
            if self.opoly[k] is not None:
                continue
            ob = self.obst[k]
            sh = ob.shape
            assert sh.a is not None and sh.b is not None
            thr_k = self.thr[k]
            sd = _sd_cap(flat, sh.a, sh.b, sh.r)
            out = np.minimum(out, np.min((sd + Mp - thr_k).reshape(n, -1), axis=1))
            Qk = self.osamp[k]
            rel = Qk[None, :, :] - Fs[:, None, :]
            ax = np.einsum("pqk,pk->pq", rel, fs) + depth / 2
            ay = np.einsum("pqk,pk->pq", rel, ls)
            qx = np.abs(ax) - depth / 2
            qy = np.abs(ay) - w / 2
            sdb = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
            out = np.minimum(out, np.min(sdb, axis=1) + Ms - thr_k)
            out = np.minimum(out, self._cap_witness(ob, Fs, fs, ls) + Ms - thr_k)
            if stop and float(np.min(out)) < 0:
                return out
        return out

    def _stack(self, polys: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        """The constants of the polygons ``polys`` side by side (cached per search):
        their edge normals and offsets with where each obstacle's edges start, their
        sample points with where each obstacle's start, and their thresholds."""
        got = self.stacks.get(polys)
        if got is None:
            pcs = [self.opoly[k] for k in polys]
            N = np.concatenate([pc.N for pc in pcs])  # type: ignore[union-attr]
            NA = np.concatenate([pc.NA for pc in pcs])  # type: ignore[union-attr]
            starts = np.cumsum([0] + [len(pc.N) for pc in pcs[:-1]])  # type: ignore[union-attr]
            Q = np.concatenate([self.osamp[k] for k in polys])
            qstarts = np.cumsum([0] + [len(self.osamp[k]) for k in polys[:-1]])
            thr = np.array([self.thr[k] for k in polys])
            got = self.stacks[polys] = (N, NA, starts, Q, qstarts, thr)
        return got

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

    def _blocked(self, stages: list[Stage]) -> bool:
        """Whether a witness (a point at one of the poses of a stage) proves the box
        blocked (the narrower parts of the charger first)."""
        for hw in sorted({st[3] for st in stages}):
            group = [st for st in stages if st[3] == hw]
            Fs = np.concatenate([st[0] for st in group])
            fs = np.concatenate([st[1] for st in group])
            Ms = np.repeat(np.array([st[2] for st in group], float), [len(st[0]) for st in group])
            if float(np.min(self._margins(Fs, fs, Ms, hw, stop=True))) < 0:
                return True
        return False

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
                # else the offsets of the middle angle where d1 or d2 is zero
                for sf, df in b["edges"]:
                    if found is not None:
                        break
                    if df < ub - 1e-12:
                        found = self._try(sf, b["dc"])
                if found is not None:
                    found = self._polish(c, found, s0, s1, d0, d1)
                    d = float(found[0].distance)  # type: ignore[attr-defined]
                    if d < ub:
                        ub, best, best_cell = d, found, i
            # split the longer side (the angle's measured by how far it moves the charger)
            if s1 - s0 > SPLIT_S * math.radians(d1 - d0) * self.g.R:
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
        if best is not None and best_cell is not None:
            # from the edge of the overlap the test allows onto a real touch
            best = settle(self, cs[best_cell], best, s_fixed)
        return Detour(best, low, proven, boxes)
