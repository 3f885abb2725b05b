"""The cells of the blocked-approach search (``detour.Search``) and the closed forms it
bounds: one cell per sign of align angle, contact-point rule and smooth stretch of the
wheel; ``_Geo`` the pre-align front middle, the wheel, the distance and the forward
moves (times ``sin(theta)``) at given offsets and align angles (no search here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .block import Block, Facing
from .geom import wrap_deg
from .reach import MAX_WHEEL, _pieces_rules, _region_ends


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


_AT3_KEYS = ("Px", "Py", "th", "dist", "n1", "n2", "rho", "st", "ddist")


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
        # the frames as plain floats, for ``at3``
        self.k3 = (float(fr.mid[0]) - float(self.F0[0]), float(fr.mid[1]) - float(self.F0[1]),
                   float(fr.t[0]), float(fr.t[1]), float(fr.n[0]), float(fr.n[1]),
                   float(self.f0[0]), float(self.f0[1]), float(self.l0[0]), float(self.l0[1]))

    def at3(self, c: Cell, S: tuple[float, ...], d: float) -> dict[str, list[float]]:
        """``at`` for a few offsets at one align angle, in plain floats (the box
        bounds call it for every box; numpy is slower for three points)."""
        w = self.w
        mx, my, tx, ty, nx, ny, fx, fy, lx, ly = self.k3
        a = math.radians(-d)
        ca, sa = math.cos(a), math.sin(a)
        th = math.radians(c.th0 - (d - c.d0))
        h = c.h * w / 2
        st, ct = math.sin(th), math.cos(th)
        tt = math.tan(th / 2)
        sg = (th > 0) - (th < 0)
        rows = []
        for S_ in S:
            xp = c.alpha * S_ + c.beta
            vx = S_ - xp
            px, py = xp + ca * vx, sa * vx
            X, Y = mx + px * tx + py * nx, my + px * ty + py * ny
            Px, Py = X * fx + Y * fy, X * lx + Y * ly
            dpx, dpy = sa * vx, -ca * vx
            dX, dY = dpx * tx + dpy * nx, dpx * ty + dpy * ny
            dPx, dPy = dX * fx + dY * fy, dX * lx + dY * ly
            rows.append((Px, Py, th, Px + (Py - 2 * h) * tt + w * abs(th), Px * st - Py * ct - h * (1 - ct),
                         Py - h * (1 - ct), abs(vx), st, dPx + dPy * tt - (Py - 2 * h) * (1 + tt * tt) / 2 - w * sg))
        return dict(zip(_AT3_KEYS, (list(col) for col in zip(*rows, strict=True)), strict=True))

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
        # the rates along the align angle (per radian): P turns about the contact
        # point (radius |vx|), the wheel goes down as the align goes up
        dpx, dpy = np.sin(a) * vx, -np.cos(a) * vx
        dX = dpx * fr.t[0] + dpy * fr.n[0]
        dY = dpx * fr.t[1] + dpy * fr.n[1]
        dPx = dX * self.f0[0] + dY * self.f0[1]
        dPy = dX * self.l0[0] + dY * self.l0[1]
        tt = np.tan(th / 2)
        ddist = dPx + dPy * tt - (Py - 2 * h) * (1 + tt * tt) / 2 - w * np.sign(th)
        return {"Px": Px, "Py": Py, "th": th, "dist": dist, "n1": n1, "n2": n2, "rho": np.abs(vx),
                "st": st, "ddist": ddist}
