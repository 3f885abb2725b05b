"""The reach of a charge approach, without obstacles: the approach solve, the exact
interval of end offsets each align angle reaches, and the tables of those intervals.

An approach to the end offset ``s`` with align angle ``delta`` is fixed once both are
known (see ``charge.py``); ``solve`` computes its moves. For a fixed align angle ``d1``
and ``d2`` are affine in ``s`` on each piece of the contact-point rule, so each row of
a reach table is an exact interval. The rows are sampled align angles plus the exact
special values; the sampled rows only bracket the optima that move with the align
angle, which ``_refined_rows`` finds with Brent's method (see docs/t9a.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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


class _Solve1:
    """``solve`` for one offset and one align angle without arrays (for the root
    finders): raw d1, raw d2, the distance, whether the wheel is at most 90 degrees,
    and whether it is zero."""

    def __init__(self, ch: Block, fr: Facing) -> None:
        self.w, self.L = ch.width, fr.length
        self.mx, self.my = float(fr.mid[0]), float(fr.mid[1])
        self.tx, self.ty, self.nx, self.ny = float(fr.t[0]), float(fr.t[1]), float(fr.n[0]), float(fr.n[1])
        self.psi, self.facing = fr.psi, ch.facing
        r0 = math.radians(ch.facing)
        self.f0x, self.f0y = math.cos(r0), math.sin(r0)
        self.F0x, self.F0y = float(ch.F[0]), float(ch.F[1])

    def __call__(self, s: float, D: float) -> tuple[float, float, float, bool, bool]:
        w, L = self.w, self.L
        xp = min(s + w / 2, L / 2) if D > 0 else max(s - w / 2, -L / 2)
        a = math.radians(-D)
        c, sn = math.cos(a), math.sin(a)
        vx = s - xp
        px, py = xp + c * vx, sn * vx
        Fx = self.mx + px * self.tx + py * self.nx
        Fy = self.my + px * self.ty + py * self.ny
        theta = (self.psi - D - self.facing + 180.0) % 360.0 - 180.0
        thok = abs(theta) <= MAX_WHEEL + 1e-9
        theta = max(-MAX_WHEEL, min(MAX_WHEEL, theta))
        r1 = math.radians(self.facing + theta)
        f1x, f1y = math.cos(r1), math.sin(r1)
        f0x, f0y = self.f0x, self.f0y
        sg = math.copysign(w / 2, theta) if theta != 0 else 0.0
        # l = f turned left: (-f_y, f_x)
        Vx = Fx - self.F0x - sg * (-f0y + f1y)
        Vy = Fy - self.F0y - sg * (f0x - f1x)
        det = f0x * f1y - f0y * f1x
        if abs(det) < 1e-12:
            return Vx * f0x + Vy * f0y, 0.0, math.inf, thok, True
        d1 = (Vx * f1y - Vy * f1x) / det
        d2 = (f0x * Vy - f0y * Vx) / det
        return d1, d2, max(d1, 0.0) + max(d2, 0.0) + math.radians(abs(theta)) * w, thok, False


def _row1(sv: _Solve1, D: float, a: float, b: float) -> tuple[float, float, bool]:
    """``_row_bounds`` for one align angle and one piece, without arrays."""
    a1, a2, _, thok, par_a = sv(a, D)
    b1, b2, _, _, par_b = sv(b, D)
    if not thok or par_a or par_b:
        return a, b, False
    lo, hi, ok = a, b, True
    width = b - a
    for ga, gb in ((a1, b1), (a2, b2)):
        m = (gb - ga) / width if width > 1e-12 else 0.0
        if abs(m) <= 1e-15:
            if ga < -FEAS_TOL:
                ok = False
            continue
        root = a - ga / m
        if m > 0:
            lo = max(lo, root)
        else:
            hi = min(hi, root)
    return lo, hi, ok and hi >= lo - 1e-12


DELTA_STEP = 0.5


def _deltas(ch: Block, fr: Facing) -> np.ndarray:
    """Align angles tried: every half degree, plus the exact special values (no
    align, no wheel at all, a wheel of exactly 90 degrees)."""
    base = wrap_deg(fr.psi - ch.facing)
    ds = {0.0}
    if 0 < abs(base) <= 90:
        ds.add(max(-MAX_ALIGN, min(MAX_ALIGN, base)))  # no wheel at all, only an align
    for th in (MAX_WHEEL, -MAX_WHEEL):
        d = wrap_deg(base - th)
        if 0 < abs(d) <= 90:
            ds.add(max(-MAX_ALIGN, min(MAX_ALIGN, d)))  # a wheel of exactly 90 degrees, then the align
    ds |= {MAX_ALIGN, -MAX_ALIGN}  # the largest align
    grid = np.arange(DELTA_STEP, 90.0, DELTA_STEP)
    ds |= {float(g) for g in grid} | {-float(g) for g in grid}
    return np.asarray(sorted(ds, key=abs), dtype=float)


@dataclass
class ReachTable:
    """For each align angle (and each piece of the contact-point rule), the exact
    interval of end offsets an approach reaches (obstacles not considered)."""

    D: np.ndarray
    A: np.ndarray
    B: np.ndarray

    def union(self) -> list[tuple[float, float]]:
        iv = sorted(zip(self.A.tolist(), self.B.tolist(), strict=True))
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

    def contains(self, s: float) -> bool:
        return bool(np.any((self.A - 1e-9 <= s) & (s <= self.B + 1e-9)))


_REACH_CACHE: dict[tuple[float, ...], ReachTable] = {}


def reach_table(ch: Block, fr: Facing) -> ReachTable:
    """The reach table of a charger against a facing (cached: it depends only on the
    charger's pose and width and on the facing)."""
    key = (ch.front[0], ch.front[1], ch.facing, ch.width, float(ch.round), float(fr.mid[0]), float(fr.mid[1]),
           float(fr.n[0]), float(fr.n[1]), fr.length)
    tb = _REACH_CACHE.get(key)
    if tb is None:
        if len(_REACH_CACHE) > 256:
            _REACH_CACHE.clear()
        tb = _REACH_CACHE[key] = _reach_table(ch, fr)
    return tb


def _pieces(ch: Block, fr: Facing, delta: float) -> list[tuple[float, float]]:
    """The offset pieces of an align angle on which the contact point follows one
    rule (the charger's corner, or the facing's end)."""
    lo, hi = contact_range(ch, fr)
    w, L = ch.width, fr.length
    bpos, bneg = L / 2 - w / 2, -L / 2 + w / 2
    if delta == 0:
        return [(lo, hi)]
    if delta > 0:
        return [(lo, min(bpos, hi)), (max(bpos, lo), hi)]
    return [(max(bneg, lo), hi), (lo, min(bneg, hi))]


def _reach_table(ch: Block, fr: Facing) -> ReachTable:
    lo, hi = contact_range(ch, fr)
    if ch.round:
        return ReachTable(np.zeros(1), np.array([lo]), np.array([hi]))
    rows: list[tuple[float, float, float]] = []
    for delta in _deltas(ch, fr):
        rows += [(float(delta), a, b) for a, b in _pieces(ch, fr, float(delta))]
    R = np.asarray([r for r in rows if r[2] >= r[1] - 1e-12])
    D, a, b = R[:, 0], R[:, 1], np.maximum(R[:, 1], R[:, 2])
    lo_s, hi_s, valid, par, thok = _row_bounds(ch, fr, D, a, b)
    Ds, As, Bs = [D[valid]], [lo_s[valid]], [np.maximum(lo_s[valid], hi_s[valid])]
    # no wheel at all (straight on, then the align): one offset per piece
    for i in np.nonzero(par & thok)[0]:
        for s in _straight_offsets(ch, fr, float(a[i]), float(b[i]), float(D[i])):
            Ds.append(np.array([D[i]]))
            As.append(np.array([s]))
            Bs.append(np.array([s]))
    # the sampled rows only bracket: the extreme reachable offsets and the shortest
    # approaches at an end of a row's interval (d1 = 0 or d2 = 0) move smoothly with
    # the align angle, so each bracketed optimum is refined by Brent's method
    for d, x, y in _refined_rows(ch, fr, D, a, b, lo_s, hi_s, valid):
        Ds.append(np.array([d]))
        As.append(np.array([x]))
        Bs.append(np.array([y]))
    return ReachTable(np.concatenate(Ds), np.concatenate(As), np.concatenate(Bs))


#: Brent's method stops when the align angle is known to this (degrees); the distance
#: is then within about 1e-8 of an inch of the optimum (far closer where it is smooth)
REFINE_XTOL = 1e-7
#: see ``_refined_rows`` (a fraction of the charger's width)
REFINE_MARGIN = 0.05


def _refined_rows(ch: Block, fr: Facing, D: np.ndarray, a: np.ndarray, b: np.ndarray, lo_s: np.ndarray,
                  hi_s: np.ndarray, valid: np.ndarray) -> list[tuple[float, float, float]]:
    """Rows ``(delta, lo, hi)`` at the align angles that refine, between neighbouring
    sampled rows of one piece: where a piece's interval closes (a root of
    ``hi - lo``, by Brent's root finder), and the least and greatest reachable offset
    and the shortest approach at either end of the interval (Brent's minimiser)."""
    from scipy.optimize import brentq, minimize_scalar

    out: list[tuple[float, float, float]] = []
    groups: dict[tuple[int, int], list[int]] = {}
    for i in range(len(D)):
        if D[i] == 0:
            continue
        sg = 1 if D[i] > 0 else -1
        piece = 0 if (a[i], b[i]) == _pieces(ch, fr, float(D[i]))[0] else 1
        groups.setdefault((sg, piece), []).append(i)

    sv = _Solve1(ch, fr)

    def cost(d: float, x: float) -> float:
        return sv(x, d)[2]

    sampled = (lo_s, -hi_s, solve(ch, fr, lo_s, D)["dist"], solve(ch, fr, np.maximum(lo_s, hi_s), D)["dist"])
    # a shortest approach is only refined where its sampled distance is near the best
    # sampled one: sampling every DELTA_STEP degrees is off by at most the outer
    # corner's arc over that step (width x 0.0087), far inside this margin
    costs = np.where(valid, np.minimum(sampled[2], sampled[3]), np.inf)
    near_best = (float(np.min(costs)) if len(costs) else math.inf) + REFINE_MARGIN * ch.width
    # likewise the reachable offsets' outer ends: near the least / greatest sampled one
    ends = (np.where(valid, lo_s, np.inf), np.where(valid, -hi_s, np.inf))
    near_end = [(float(np.min(e)) if len(e) else math.inf) + REFINE_MARGIN * ch.width for e in ends]

    for idx in groups.values():
        idx = sorted(idx, key=lambda i: D[i])
        pa, pb = float(a[idx[0]]), float(b[idx[0]])

        def row(d: float, pa: float = pa, pb: float = pb) -> tuple[float, float, bool]:
            return _row1(sv, d, pa, pb)

        ds = [float(D[i]) for i in idx]
        ok = [bool(valid[i]) for i in idx]
        # where the interval of a piece closes between a row that has one and a row
        # that has none: a vertex of the reachable region
        for j in range(len(idx) - 1):
            if ok[j] == ok[j + 1]:
                continue

            def width(d: float, row=row) -> float:  # type: ignore[no-untyped-def]
                x, y, _ = row(d)
                return y - x

            wa, wb = width(ds[j]), width(ds[j + 1])
            if wa * wb < 0:
                d = float(brentq(width, ds[j], ds[j + 1], xtol=1e-13))
                x, y, _ = row(d)
                if y >= x - 1e-9:
                    out.append((d, x, max(x, y)))
        objectives = (
            lambda d, row=row: row(d)[0],
            lambda d, row=row: -row(d)[1],
            lambda d, row=row: cost(d, row(d)[0]),
            lambda d, row=row: cost(d, row(d)[1]),
        )
        for k, (fn, sam) in enumerate(zip(objectives, sampled, strict=True)):
            vals = [float(sam[i]) if ok[j] else math.inf for j, i in enumerate(idx)]
            minima = []
            for j in range(len(idx)):
                if not ok[j]:
                    continue
                left = vals[j - 1] if j > 0 else math.inf
                right = vals[j + 1] if j + 1 < len(idx) else math.inf
                if vals[j] > left or vals[j] > right or (vals[j] >= left - 1e-12 and vals[j] >= right - 1e-12):
                    continue  # not a sampled local minimum (a plateau is its own optimum)
                if vals[j] <= (near_end[k] if k < 2 else near_best):
                    minima.append(j)
            # only the best sampled minimum of each piece is refined (the rest stay as
            # sampled: alternatives for when the best is blocked)
            for j in sorted(minima, key=lambda j: vals[j])[:1]:
                for nb in (j - 1, j + 1):
                    if not 0 <= nb < len(idx) or not ok[nb]:
                        continue
                    lo_d, hi_d = sorted((ds[j], ds[nb]))
                    res = minimize_scalar(fn, bounds=(lo_d, hi_d), method="bounded",
                                          options={"xatol": REFINE_XTOL, "maxiter": 200})
                    d = float(res.x)
                    x, y, good = row(d)
                    if good:
                        out.append((d, x, max(x, y)))
    return out


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
