"""The reach of a charge approach, without obstacles: the approach solve, the exact
interval of end offsets each align angle reaches, and the tables of those intervals.

An approach to the end offset ``s`` with align angle ``delta`` is fixed once both are
known (see ``charge.py``); ``solve`` computes its moves. For a fixed align angle ``d1``
and ``d2`` are affine in ``s`` on each piece of the contact-point rule, so each row of
a reach table is an exact interval. The rows sit at constructed critical align angles
(``_critical_deltas``: roots of trigonometric polynomials) and midway between them;
no sampled angle decides an unobstructed optimum (see docs/t9a.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .block import Block, Facing
from .geom import wrap_deg
from .ruleset import T9A_2X
from .wheel import MAX_ALIGN

#: a forward move this little below zero counts as zero. A nearly zero wheel makes the
#: split between the moves before and after it ill-conditioned (a lateral offset of
#: 1e-15 divided by a wheel of 1e-6 radians), so float noise of 1e-9 is common there;
#: the distance stays within this of the exact one, far inside the 1e-6 compared
FEAS_TOL = 1e-7
#: the largest wheel of a charge move (degrees; the ruleset's)
MAX_WHEEL = T9A_2X.max_wheel

def contact_range(ch: Block, fr: Facing) -> tuple[float, float]:
    if ch.round:
        return -fr.length / 2, fr.length / 2
    return -fr.length / 2 - ch.width / 2, fr.length / 2 + ch.width / 2


def solve(ch: Block, fr: Facing, S: np.ndarray, D: np.ndarray) -> dict[str, np.ndarray]:
    """Vectorised approach solve for arrays of offsets ``S`` and align angles ``D``
    (degrees): the wheel, d1, d2, the distance, the contact point's offset, and
    whether the approach exists (|wheel| <= 90, d1 >= 0, d2 >= 0). ``raw_d1`` and
    ``raw_d2`` are the values before those checks."""
    S = np.asarray(S, dtype=float)
    D = np.asarray(D, dtype=float)
    w, L = ch.width, fr.length
    t, n = fr.t, fr.n
    # the contact point's offset along the facing (used when D != 0)
    xp = np.where(D > 0, np.minimum(S + w / 2, L / 2), np.maximum(S - w / 2, -L / 2))
    # the pre-align front midpoint: the end pose turned back about the contact point
    a = np.radians(-D)
    c, sn = np.cos(a), np.sin(a)
    vx = S - xp
    px = xp + c * vx
    py = sn * vx
    Fx = fr.mid[0] + px * t[0] + py * n[0]
    Fy = fr.mid[1] + px * t[1] + py * n[1]
    theta = (fr.psi - D - ch.facing + 180.0) % 360.0 - 180.0
    ok = np.abs(theta) <= MAX_WHEEL + 1e-9
    theta = np.clip(theta, -MAX_WHEEL, MAX_WHEEL)
    r1 = np.radians(ch.facing + theta)
    f1x, f1y = np.cos(r1), np.sin(r1)
    l1x, l1y = -f1y, f1x
    f0, l0 = ch.f, ch.l
    sg = np.sign(theta) * (w / 2)
    Vx = Fx - ch.F[0] - sg * (l0[0] - l1x)
    Vy = Fy - ch.F[1] - sg * (l0[1] - l1y)
    det = f0[0] * f1y - f0[1] * f1x
    par = np.abs(det) < 1e-12
    safe = np.where(par, 1.0, det)
    d1 = np.where(par, Vx * f0[0] + Vy * f0[1], (Vx * f1y - Vy * f1x) / safe)
    d2 = np.where(par, 0.0, (f0[0] * Vy - f0[1] * Vx) / safe)
    lat = f0[0] * Vy - f0[1] * Vx
    ok &= ~(par & (np.abs(lat) > 1e-9))
    raw1, raw2 = d1.copy(), d2.copy()
    ok &= (d1 >= -FEAS_TOL) & (d2 >= -FEAS_TOL)
    d1 = np.maximum(d1, 0.0)
    d2 = np.maximum(d2, 0.0)
    dist = d1 + d2 + np.radians(np.abs(theta)) * w
    return {"S": S, "D": D, "theta": theta, "d1": d1, "d2": d2, "dist": dist, "xp": xp, "ok": ok,
            "raw_d1": raw1, "raw_d2": raw2, "par": par, "lat": lat}



def _np_max(a: float, b: float) -> float:
    """``np.maximum`` of two floats (the first when they compare equal, NaN kept)."""
    return a if (a >= b or a != a) else b


def _np_min(a: float, b: float) -> float:
    """``np.minimum`` of two floats (the first when they compare equal, NaN kept)."""
    return a if (a <= b or a != a) else b


def _np_sign(x: float) -> float:
    """``np.sign`` of a float (0.0 for either zero, NaN kept)."""
    return 1.0 if x > 0 else -1.0 if x < 0 else 0.0 if x == 0 else x


def solve_one(ch: Block, fr: Facing, s: float, delta: float
              ) -> tuple[bool, float, float, float, float, float] | None:
    """``solve`` for one offset and one align angle in plain floats: the same IEEE
    operations in the same order as the array expression (each line below is one
    line of ``solve``), so the same numbers bit for bit, without numpy's per-call
    cost (the detour search asks one approach at a time). ``(ok, theta, d1, d2,
    dist, xp)``; None when the inputs are not plain finite floats (the caller then
    uses ``solve``)."""
    S, D = float(s), float(delta)
    if not (math.isfinite(S) and math.isfinite(D)):
        return None
    w, L = ch.width, fr.length
    mx, my, tx, ty, nx, ny = fr._floats()
    xp = _np_min(S + w / 2, L / 2) if D > 0 else _np_max(S - w / 2, -L / 2)
    a = math.radians(-D)
    c, sn = math.cos(a), math.sin(a)
    vx = S - xp
    px = xp + c * vx
    py = sn * vx
    Fx = mx + px * tx + py * nx
    Fy = my + px * ty + py * ny
    # numpy's float remainder is Python's (fmod, then the divisor's sign)
    theta = (fr.psi - D - ch.facing + 180.0) % 360.0 - 180.0
    ok = abs(theta) <= MAX_WHEEL + 1e-9
    theta = _np_min(_np_max(theta, -MAX_WHEEL), MAX_WHEEL)
    r1 = math.radians(ch.facing + theta)
    f1x, f1y = math.cos(r1), math.sin(r1)
    l1x, l1y = -f1y, f1x
    f0x, f0y = ch._frame()
    l0x, l0y = -f0y, f0x
    sg = _np_sign(theta) * (w / 2)
    F0x, F0y = float(ch.front[0]), float(ch.front[1])
    Vx = Fx - F0x - sg * (l0x - l1x)
    Vy = Fy - F0y - sg * (l0y - l1y)
    det = f0x * f1y - f0y * f1x
    par = abs(det) < 1e-12
    safe = 1.0 if par else det
    d1 = Vx * f0x + Vy * f0y if par else (Vx * f1y - Vy * f1x) / safe
    d2 = 0.0 if par else (f0x * Vy - f0y * Vx) / safe
    lat = f0x * Vy - f0y * Vx
    ok = ok and not (par and abs(lat) > 1e-9)
    ok = ok and (d1 >= -FEAS_TOL) and (d2 >= -FEAS_TOL)
    d1 = _np_max(d1, 0.0)
    d2 = _np_max(d2, 0.0)
    dist = d1 + d2 + math.radians(abs(theta)) * w
    return ok, theta, d1, d2, dist, xp


def _deltas(ch: Block, fr: Facing) -> np.ndarray:
    """The special align angles: no align, no wheel at all, a wheel of exactly 90
    degrees, the largest align."""
    base = wrap_deg(fr.psi - ch.facing)
    ds = {0.0}
    if 0 < abs(base) <= 90:
        ds.add(max(-MAX_ALIGN, min(MAX_ALIGN, base)))  # no wheel at all, only an align
    for th in (MAX_WHEEL, -MAX_WHEEL):
        d = wrap_deg(base - th)
        if 0 < abs(d) <= 90:
            ds.add(max(-MAX_ALIGN, min(MAX_ALIGN, d)))  # a wheel of exactly 90 degrees, then the align
    ds |= {MAX_ALIGN, -MAX_ALIGN}  # the largest align
    return np.asarray(sorted(ds, key=abs), dtype=float)


#: a critical align angle this close (degrees) to a special one is taken as it
SNAP_DEG = 1e-5

def _region_ends(ch: Block, fr: Facing, sign: int) -> list[float]:
    """The align angles (degrees, of one sign) where the wheel changes sign, wraps
    round, or reaches 90 degrees, and the ends of the sign's range: between two
    neighbours the wheel is a smooth function of the align angle."""
    base = wrap_deg(fr.psi - ch.facing)
    lo, hi = (1e-9, MAX_ALIGN) if sign > 0 else (-MAX_ALIGN, -1e-9)
    out = {lo, hi}
    for th in (0.0, MAX_WHEEL, -MAX_WHEEL, 180.0):
        for k in (-360.0, 0.0, 360.0):
            d = base - th + k
            if lo < d < hi:
                out.add(d)
    return sorted(out)


def _critical_deltas(ch: Block, fr: Facing, sign: int, alpha: float, beta: float, a_s: float,
                     b_s: float) -> list[float]:
    """Every align angle (degrees, of one sign) at which a reach-table row can be
    extreme, for the piece ``[a_s, b_s]`` of offsets on which the contact point's offset is
    ``alpha s + beta``.

    For a fixed align angle the end offsets where ``d1 = 0`` and ``d2 = 0`` are
    quotients ``p / q`` of trigonometric polynomials in the align angle (``TP``), and
    so is the distance at such an end (plus ``width |theta|``, linear in the angle).
    A row's interval ends are the greatest lower / least upper of those roots and
    the piece's ends, so each objective (the least and the greatest reachable
    offset, the distance at either end, the interval's width) is smooth between the
    angles where two candidate ends cross or a root's slope changes sign, and
    extreme there or where its derivative vanishes. All of those are real roots of
    trigonometric polynomials, found exactly; the region ends come from
    ``_region_ends``."""
    from .trigpoly import TP

    w = ch.width
    C, S = TP.cos(), TP.sin()
    mx, my = float(fr.mid[0]), float(fr.mid[1])
    tx, ty, nx, ny = (float(v) for v in (fr.t[0], fr.t[1], fr.n[0], fr.n[1]))
    r0 = math.radians(ch.facing)
    f0x, f0y = math.cos(r0), math.sin(r0)
    l0x, l0y = -f0y, f0x
    F0x, F0y = float(ch.F[0]), float(ch.F[1])
    psi = math.radians(fr.psi)
    cp, sp = math.cos(psi), math.sin(psi)
    # the contact point xp = alpha s + beta; vx = s - xp (see ``solve``)
    vx0, vx1 = -beta, 1.0 - alpha
    # pre-align front middle along the facing: px = xp + cos(delta) vx, py = -sin(delta) vx
    px0, px1 = beta + C * vx0, alpha + C * vx1
    py0, py1 = -(S * vx0), -(S * vx1)
    Fx0 = mx + px0 * tx + py0 * nx
    Fx1 = px1 * tx + py1 * nx
    Fy0 = my + px0 * ty + py0 * ny
    Fy1 = px1 * ty + py1 * ny
    # the heading after the wheel is psi - delta
    f1x = cp * C + sp * S
    f1y = sp * C - cp * S
    det = f1y * f0x - f1x * f0y
    ends = _region_ends(ch, fr, sign)
    out: set[float] = set(ends)
    for lo_d, hi_d in zip(ends, ends[1:], strict=False):
        mid = (lo_d + hi_d) / 2
        th_mid = wrap_deg(fr.psi - mid - ch.facing)
        if abs(th_mid) > MAX_WHEEL + 1e-9:
            continue
        sg = math.copysign(w / 2, th_mid)
        Vx0 = Fx0 - F0x - sg * (f1y + l0x)
        Vy0 = Fy0 - F0y - sg * (l0y - f1x)
        Vx1, Vy1 = Fx1, Fy1
        n10 = Vx0 * f1y - Vy0 * f1x
        n11 = Vx1 * f1y - Vy1 * f1x
        n20 = Vy0 * f0x - Vx0 * f0y
        n21 = Vy1 * f0x - Vx1 * f0y
        N0, N1 = n10 + n20, n11 + n21
        ends_s = [(-n10, n11), (-n20, n21)]
        # the piece's own ends as candidate ends: s = a or b (q = 1)
        ends_s += [(TP.const(a_s), TP.const(1.0)), (TP.const(b_s), TP.const(1.0))]
        eqs: list[TP] = [n11, n21]  # a root's slope in s changes sign
        sgn_w = w * (1 if th_mid > 0 else -1)
        for i, (p, q) in enumerate(ends_s):
            if i < 2:
                eqs.append(p.d() * q - p * q.d())  # a root end is extreme
            U, V = N0 * q + N1 * p, det * q
            eqs.append(U.d() * V - U * V.d() - sgn_w * V * V)  # the distance there is stationary
            for p2, q2 in ends_s[i + 1:]:
                eqs.append(p * q2 - p2 * q)  # two candidate ends cross
        lo_r, hi_r = math.radians(lo_d), math.radians(hi_d)
        for g in eqs:
            for x in g.roots(lo_r, hi_r):
                out.add(math.degrees(x))
    return sorted(out)


@dataclass
class ReachTable:
    """For each align angle (and each piece of the contact-point rule), the exact
    interval of end offsets an approach reaches (obstacles not considered)."""

    D: np.ndarray
    A: np.ndarray
    B: np.ndarray
    #: offsets reached by a continuous run of align angles (see ``_reach_table``)
    spans: list[tuple[float, float]] = field(default_factory=list)

    def union(self) -> list[tuple[float, float]]:
        """The reachable offsets as disjoint intervals (worked out once per table: a
        table is not changed once built; a copy of the list)."""
        hit = self.__dict__.get("_union_cache")
        if hit is None:
            hit = self.__dict__["_union_cache"] = self._union()
        return list(hit)

    def _union(self) -> list[tuple[float, float]]:
        iv = sorted(list(zip(self.A.tolist(), self.B.tolist(), strict=True)) + list(self.spans))
        out: list[tuple[float, float]] = []
        for a, b in iv:
            if out and a <= out[-1][1] + 1e-9:
                out[-1] = (out[-1][0], max(out[-1][1], b))
            else:
                out.append((a, b))
        return out

    def deltas_at(self, s: float) -> np.ndarray:
        m = (self.A - 1e-9 <= s) & (s <= self.B + 1e-9)
        return np.unique(self.D[m])

    def plain_rows(self) -> list[tuple[float, float, float]] | None:
        """The rows as plain floats ``(A - 1e-9, B + 1e-9, D)``, the very bounds
        ``deltas_at`` compares with, for ``charge.align_angles``; None when an align
        angle is NaN or a negative zero (there ``np.unique``'s pick among values that
        compare equal would matter). Worked out once per table."""
        rows = self.__dict__.get("_plain_rows", False)
        if rows is False:
            D = self.D.tolist()
            if any(d != d or (d == 0 and math.copysign(1.0, d) < 0) for d in D):
                rows = None
            else:
                lo = (self.A - 1e-9).tolist()
                hi = (self.B + 1e-9).tolist()
                rows = list(zip(lo, hi, D, strict=True))
            self.__dict__["_plain_rows"] = rows
        return rows

    def contains(self, s: float) -> bool:
        return bool(np.any((self.A - 1e-9 <= s) & (s <= self.B + 1e-9)))


_REACH_CACHE: dict[tuple[float, ...], ReachTable] = {}


def _key(ch: Block, fr: Facing) -> tuple[float, ...]:
    return (ch.front[0], ch.front[1], ch.facing, ch.width, float(ch.round), float(fr.mid[0]), float(fr.mid[1]),
            float(fr.n[0]), float(fr.n[1]), fr.length)


def reach_table(ch: Block, fr: Facing) -> ReachTable:
    """The reach table of a charger against a facing (cached: it depends only on the
    charger's pose and width and on the facing)."""
    key = _key(ch, fr)
    tb = _REACH_CACHE.get(key)
    if tb is None:
        if len(_REACH_CACHE) > 256:
            _REACH_CACHE.clear()
        tb = _REACH_CACHE[key] = _reach_table(ch, fr)
    return tb


def _pieces(ch: Block, fr: Facing, delta: float) -> list[tuple[float, float]]:
    """The offset pieces of an align angle on which the contact point follows one
    rule (the charger's corner, or the facing's end)."""
    return [ab for ab, _ in _pieces_rules(ch, fr, 1 if delta > 0 else -1 if delta < 0 else 0)]


def _pieces_rules(ch: Block, fr: Facing, sign: int) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The pieces of one sign of align angle with their contact-point rule: the
    contact point's offset is ``alpha s + beta`` on the piece ``(a, b)``."""
    lo, hi = contact_range(ch, fr)
    w, L = ch.width, fr.length
    bpos, bneg = L / 2 - w / 2, -L / 2 + w / 2
    if sign == 0:
        return [((lo, hi), (1.0, 0.0))]
    if sign > 0:
        return [((lo, min(bpos, hi)), (1.0, w / 2)), ((max(bpos, lo), hi), (0.0, L / 2))]
    return [((max(bneg, lo), hi), (1.0, -w / 2)), ((lo, min(bneg, hi)), (0.0, -L / 2))]


def _reach_table(ch: Block, fr: Facing) -> ReachTable:
    """Rows at every critical align angle of each piece (``_critical_deltas``) and
    midway between neighbouring ones; each row's interval is exact. Between two
    neighbouring critical angles a row's interval moves continuously and never
    empties or appears, so a run of rows that all have one reaches every offset
    between the least and the greatest of them (a *span*)."""
    lo, hi = contact_range(ch, fr)
    if ch.round:
        return ReachTable(np.zeros(1), np.array([lo]), np.array([hi]))
    special = _deltas(ch, fr)
    groups: list[tuple[np.ndarray, float, float]] = [(np.zeros(1), lo, hi)]
    for sign in (1, -1):
        for (pa, pb), (alpha, beta) in _pieces_rules(ch, fr, sign):
            if pb < pa - 1e-12:
                continue
            sp = [float(d) for d in special if d * sign > 0] + _region_ends(ch, fr, sign)
            crit = set(sp)
            for d in _critical_deltas(ch, fr, sign, alpha, beta, pa, pb):
                # a root within SNAP_DEG of a special angle is that angle (float noise
                # of the root finder would otherwise leave a wheel of 1e-7 degree)
                near = [x for x in sp if abs(x - d) <= SNAP_DEG]
                crit.add(near[0] if near else d)
            cs: list[float] = []
            for d in sorted(crit):
                if not cs or d - cs[-1] > 1e-9:
                    cs.append(d)
            mids = [(x + y) / 2 for x, y in zip(cs, cs[1:], strict=False)]
            groups.append((np.asarray(sorted(set(cs) | set(mids))), pa, max(pa, pb)))
    Ds, As, Bs = [], [], []
    spans: list[tuple[float, float]] = []
    for D, pa, pb in groups:
        a = np.full(len(D), pa)
        b = np.full(len(D), pb)
        lo_s, hi_s, valid, par, thok = _row_bounds(ch, fr, D, a, b)
        Ds.append(D[valid])
        As.append(lo_s[valid])
        Bs.append(np.maximum(lo_s[valid], hi_s[valid]))
        iv: list[tuple[float, float] | None] = [
            (float(lo_s[i]), float(max(lo_s[i], hi_s[i]))) if valid[i] else None for i in range(len(D))]
        # no wheel at all (straight on, then the align): one offset per piece; it is
        # the limit of the intervals of the align angles on either side
        for i in np.nonzero(par & thok)[0]:
            for s in _straight_offsets(ch, fr, float(a[i]), float(b[i]), float(D[i])):
                Ds.append(np.array([D[i]]))
                As.append(np.array([s]))
                Bs.append(np.array([s]))
                iv[i] = (s, s)
        run: list[tuple[float, float]] = []
        for x in iv + [None]:
            if x is not None:
                run.append(x)
                continue
            if run:
                spans.append((min(x for x, _ in run), max(y for _, y in run)))
                run = []
    return ReachTable(np.concatenate(Ds), np.concatenate(As), np.concatenate(Bs), spans)


def _row_bounds(ch: Block, fr: Facing, D: np.ndarray, a: np.ndarray, b: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For align angles ``D`` and pieces ``[a, b]`` of the offset (on which the
    contact-point rule does not change), the exact sub-interval ``[lo, hi]`` where
    d1 >= 0 and d2 >= 0 (both are affine in the offset there), whether it exists,
    whether the wheel is zero (``par``) and whether the wheel is at most 90 degrees."""
    ra = solve(ch, fr, a, D)
    rb = solve(ch, fr, b, D)
    thok = np.abs((fr.psi - D - ch.facing + 180.0) % 360.0 - 180.0) <= MAX_WHEEL + 1e-9
    lo_s = a.copy()
    hi_s = b.copy()
    valid = thok.copy()
    width = b - a
    for key in ("raw_d1", "raw_d2"):
        ga, gb = ra[key], rb[key]
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.where(width > 1e-12, (gb - ga) / np.where(width > 1e-12, width, 1.0), 0.0)
            root = np.where(np.abs(m) > 1e-15, a - ga / np.where(np.abs(m) > 1e-15, m, 1.0), a)
        flat = np.abs(m) <= 1e-15
        valid &= ~(flat & (ga < -FEAS_TOL))
        up = ~flat & (m > 0)
        dn = ~flat & (m < 0)
        lo_s = np.where(up, np.maximum(lo_s, root), lo_s)
        hi_s = np.where(dn, np.minimum(hi_s, root), hi_s)
    par = ra["par"] | rb["par"]
    valid &= ~par
    valid &= hi_s >= lo_s - 1e-12
    return lo_s, hi_s, valid, par, thok


def _straight_offsets(ch: Block, fr: Facing, a: float, b: float, delta: float) -> list[float]:
    """Offsets where a charger that does not wheel reaches the pre-align pose by
    moving straight ahead (its lateral offset, affine in s, is zero)."""
    ra = solve(ch, fr, np.array([a]), np.array([delta]))
    if b - a < 1e-12:
        return [a] if bool(ra["ok"][0]) else []
    rb = solve(ch, fr, np.array([b]), np.array([delta]))
    la, lb = float(ra["lat"][0]), float(rb["lat"][0])
    if abs(lb - la) < 1e-15:
        return []
    s = a - la * (b - a) / (lb - la)
    if not a - 1e-9 <= s <= b + 1e-9:
        return []
    r = solve(ch, fr, np.array([s]), np.array([delta]))
    return [s] if bool(r["ok"][0]) else []
