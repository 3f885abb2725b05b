"""A 9th Age unit as a rigid block: boundary, facings, arcs and its models.

Frames: ``f`` is the unit's forward unit vector, ``l`` its left (``f`` turned 90 degrees
counter-clockwise). A facing is a side of the boundary with an outward normal ``n``;
its own axis ``t`` is ``n`` turned 90 degrees clockwise, so a unit standing flush
against the facing and looking in along ``-n`` has its left along ``+t``.

Model ids are ``"<unit>.<index>"`` with the index counted from 0 in the order of
:func:`chargeref.geometry.blocks.block_model_centres`: front rank first, each rank from
the unit's own left to its right; a short last rank is centred.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...geometry.blocks import block_frame, block_model_centres
from ...geometry.shapes import TOL
from .geom import Shape, angle_of, rot2

FACINGS = ("front", "right", "rear", "left")


@dataclass(frozen=True)
class Facing:
    """One side of a unit: ``mid`` point, axis ``t``, outward normal ``n``, length."""

    unit: str
    name: str
    mid: np.ndarray
    t: np.ndarray
    n: np.ndarray
    length: float

    @property
    def psi(self) -> float:
        """The heading (degrees) of a unit standing flush against this facing."""
        p = self.__dict__.get("_psi")
        if p is None:
            p = self.__dict__["_psi"] = angle_of(-self.n)
        return p

    def _floats(self) -> tuple[float, float, float, float, float, float]:
        fl = self.__dict__.get("_fl")
        if fl is None:
            fl = self.__dict__["_fl"] = (float(self.mid[0]), float(self.mid[1]), float(self.t[0]), float(self.t[1]),
                                         float(self.n[0]), float(self.n[1]))
        return fl

    def pt(self, x: float, y: float = 0.0) -> np.ndarray:
        # ``mid + x t + y n`` component by component in plain floats: the same
        # operations in the same order as the array expression
        mx, my, tx, ty, nx, ny = self._floats()
        return np.array([mx + x * tx + y * nx, my + x * ty + y * ny])

    def local(self, p: np.ndarray) -> tuple[float, float]:
        d = np.asarray(p, float) - self.mid
        return float(d @ self.t), float(d @ self.n)

    @property
    def ends(self) -> tuple[np.ndarray, np.ndarray]:
        return self.pt(-self.length / 2), self.pt(self.length / 2)


@dataclass(frozen=True)
class Block:
    id: str
    player: int
    front: tuple[float, float]
    facing: float
    files: int
    models: int
    bw: float  # base width (scenario units)
    bd: float  # base depth
    round: bool = False
    advance: float = 4.0
    march: float | None = None
    discipline: int = 7
    shooting: bool = False
    flags: frozenset[str] = frozenset()
    keywords: frozenset[str] = frozenset()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    _cache: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    # ------------------------------------------------------------------ frame
    def _frame(self) -> tuple[float, float]:
        """The forward unit vector as plain floats (what ``unit(facing)`` holds), cached."""
        fr = self._cache.get("frame")
        if fr is None:
            r = math.radians(self.facing)
            fr = self._cache["frame"] = (math.cos(r), math.sin(r))
        return fr

    @property
    def f(self) -> np.ndarray:
        fx, fy = self._frame()
        return np.array([fx, fy])

    @property
    def l(self) -> np.ndarray:  # noqa: E743
        fx, fy = self._frame()
        return np.array([-fy, fx])

    @property
    def F(self) -> np.ndarray:
        return np.asarray(self.front, dtype=float)

    @property
    def ranks(self) -> int:
        return math.ceil(self.models / self.files)

    @property
    def width(self) -> float:
        return self.files * self.bw

    @property
    def depth(self) -> float:
        return self.ranks * self.bd

    @property
    def radius(self) -> float:
        return self.bw / 2

    @property
    def centre(self) -> np.ndarray:
        return self.F - self.f * self.depth / 2

    @property
    def flying(self) -> bool:
        return bool({"FLY", "FLYING"} & self.keywords)

    @property
    def engaged(self) -> bool:
        return "engaged" in self.flags

    @property
    def fleeing(self) -> bool:
        return "fleeing" in self.flags

    def _corners_f(self) -> tuple[tuple[float, float], ...]:
        """(FL, RL, RR, FR) as plain floats, cached: the same operations, in the same
        order, as the array expressions ``F + l w/2``, ``F - l w/2 - f d`` and so on
        (IEEE doubles either way, so the same values; numpy costs more than the
        arithmetic for four points)."""
        cs = self._cache.get("corners")
        if cs is None:
            fx, fy = self._frame()
            lx, ly = -fy, fx
            Fx, Fy = float(self.front[0]), float(self.front[1])
            hw, d = self.width / 2, self.depth
            flx, fly = Fx + lx * hw, Fy + ly * hw
            frx, fry = Fx - lx * hw, Fy - ly * hw
            cs = self._cache["corners"] = ((flx, fly), (flx - fx * d, fly - fy * d), (frx - fx * d, fry - fy * d),
                                           (frx, fry))
        return cs

    def corners(self) -> dict[str, np.ndarray]:
        FL, RL, RR, FR = self._corners_f()
        return {"FL": np.array(FL), "FR": np.array(FR), "RR": np.array(RR), "RL": np.array(RL)}

    def shape(self) -> Shape:
        sh = self._cache.get("shape")
        if sh is None:
            if self.round:
                sh = Shape.disc(self.centre, self.radius)
            elif self.width > 0 and self.depth > 0:
                # FL, RL, RR, FR runs counter-clockwise for any positive size (what
                # ``Shape.poly`` would check)
                sh = Shape("poly", V=np.array(self._corners_f()))
            else:
                sh = Shape.poly(np.array(self._corners_f()))
            self._cache["shape"] = sh
        return sh

    def located_point(self) -> np.ndarray:
        """The point that decides which arc of another unit this unit is located in."""
        return self.centre if self.round else self.F

    # ------------------------------------------------------------------ poses
    def at(self, front: np.ndarray | tuple[float, float], facing: float) -> Block:
        """The same unit at another pose (what ``dataclasses.replace`` would give:
        every field kept, a fresh cache; built directly as it is called very often)."""
        new = object.__new__(Block)
        d = new.__dict__
        d.update(self.__dict__)
        d["front"] = (float(front[0]), float(front[1]))
        d["facing"] = float(facing) % 360.0
        d["_cache"] = {}
        return new

    def turned(self, pivot: np.ndarray, deg: float) -> Block:
        R = rot2(math.radians(deg))
        F = (self.F - pivot) @ R.T + pivot
        return self.at(F, self.facing + deg)

    def forward(self, d: float) -> Block:
        return self.at(self.F + self.f * d, self.facing)

    def wheel_pivot(self, deg: float) -> np.ndarray:
        """Wheels turn about the inner front corner: the left one for a left
        (counter-clockwise, positive) wheel, the right one otherwise."""
        c = self.corners()
        return c["FL"] if deg > 0 else c["FR"]

    def wheeled(self, deg: float) -> Block:
        if deg == 0:
            return self
        return self.turned(self.wheel_pivot(deg), deg)

    def with_models(self, models: int, files: int | None = None) -> Block:
        files = self.files if files is None else files
        files = min(files, models)
        return replace(self, models=models, files=files)

    def with_flags(self, add: set[str] = frozenset(), remove: set[str] = frozenset()) -> Block:  # type: ignore[assignment]
        new = replace(self, flags=frozenset((set(self.flags) | set(add)) - set(remove)))
        # flags change no geometry: the frame, corners, shape and profiles carry over
        new._cache.update(self._cache)
        return new

    # ------------------------------------------------------------------ models
    def model_centres(self) -> np.ndarray:
        """Every model's centre (``block_model_centres``), worked out once per block
        (a block never changes; a copy of the array)."""
        if self.round:
            return self.centre[None, :]
        hit = self._cache.get("centres")
        if hit is None:
            hit = self._cache["centres"] = _model_centres(self.front, self.facing, self.files, self.models, self.bw,
                                                          self.bd)
        return hit.copy()

    def model_ids(self) -> list[str]:
        return [f"{self.id}.{i}" for i in range(self.models)]

    def model_rects(self) -> np.ndarray:
        """(n, 4, 2) corners of every base (front-left, front-right, rear-right, rear-left)."""
        C = self.model_centres()
        f, lv = self.f, self.l
        hw, hd = self.bw / 2, self.bd / 2
        offs = np.stack([f * hd + lv * hw, f * hd - lv * hw, -f * hd - lv * hw, -f * hd + lv * hw])
        return C[:, None, :] + offs[None, :, :]

    # ------------------------------------------------------------------ facings & arcs
    def facing_of(self, name: str) -> Facing:
        if self.round:
            raise ValueError("a round base has no straight facings")
        f, lv = self.f, self.l
        if name == "front":
            n, mid, L = f, self.F, self.width
        elif name == "rear":
            n, mid, L = -f, self.F - f * self.depth, self.width
        elif name == "left":
            n, mid, L = lv, self.centre + lv * self.width / 2, self.depth
        elif name == "right":
            n, mid, L = -lv, self.centre - lv * self.width / 2, self.depth
        else:
            raise ValueError(name)
        t = np.array([n[1], -n[0]])
        return Facing(self.id, name, mid, t, n, L)

    def arc_of(self, p: np.ndarray) -> str:
        """The arc of this unit that contains point p. The dividing lines leave the
        corners at 135 degrees to both facings; a point on a dividing line (within the
        tolerance) counts as being in the flank arc. A round base has one arc: front."""
        if self.round:
            return "front"
        d = np.asarray(p, float) - self.centre
        x = float(d @ (-self.l))  # to the unit's right
        y = float(d @ self.f)
        a, b = self.width / 2, self.depth / 2
        if y - b > abs(x) - a + TOL:
            return "front"
        if -y - b > abs(x) - a + TOL:
            return "rear"
        return "left" if x < 0 else "right"

    def profile(self, name: str) -> list[tuple[int, float, float, float]]:
        """The models seen from outside one facing: (model index, lo, hi, depth) with
        [lo, hi] the part of the model's width along the facing's axis that no model
        nearer the facing hides, and depth its distance behind the facing. (Computed
        once per block and facing: a block never changes; a copy of the list.)"""
        key = "profile:" + name
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._profile(name)
        return list(hit)

    def _profile(self, name: str) -> list[tuple[int, float, float, float]]:
        fc = self.facing_of(name)
        R = self.model_rects()
        loc_t = np.einsum("nkj,j->nk", R - fc.mid, fc.t)
        loc_n = np.einsum("nkj,j->nk", R - fc.mid, fc.n)
        lo, hi = loc_t.min(axis=1), loc_t.max(axis=1)
        dep = -loc_n.max(axis=1)
        dep = np.where(np.abs(dep) < TOL, 0.0, dep)
        order = np.argsort(dep, kind="stable")
        covered: list[tuple[float, float]] = []
        out: list[tuple[int, float, float, float]] = []
        for depth_val in sorted(set(np.round(dep, 9))):
            layer = [i for i in order if abs(dep[i] - depth_val) < 1e-9]
            new_cov = []
            for i in layer:
                for a, b in _subtract(float(lo[i]), float(hi[i]), covered):
                    if b - a > TOL:
                        out.append((int(i), a, b, float(depth_val)))
                new_cov.append((float(lo[i]), float(hi[i])))
            covered = _merge(covered + new_cov)
        return out


def _merge(iv: list[tuple[float, float]]) -> list[tuple[float, float]]:
    iv = sorted(iv)
    out: list[tuple[float, float]] = []
    for a, b in iv:
        if out and a <= out[-1][1] + TOL:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _subtract(a: float, b: float, cov: list[tuple[float, float]]) -> list[tuple[float, float]]:
    parts = [(a, b)]
    for c, d in cov:
        nxt = []
        for x, y in parts:
            if d <= x or c >= y:
                nxt.append((x, y))
                continue
            if c > x:
                nxt.append((x, c))
            if d < y:
                nxt.append((d, y))
        parts = nxt
    return parts


def block_from_unit(u: Any, mm_per_unit: float) -> Block:
    fm = u.formation
    if fm.base.kind == "round":
        d = float(fm.base.round) / mm_per_unit
        bw = bd = d
        rnd = True
    else:
        bw, bd = (float(v) / mm_per_unit for v in fm.base.rect)
        rnd = False
    return Block(
        id=u.id,
        player=u.player,
        front=(float(fm.front[0]), float(fm.front[1])),
        facing=float(fm.facing) % 360.0,
        files=int(fm.files),
        models=int(fm.models),
        bw=bw,
        bd=bd,
        round=rnd,
        advance=float(u.advance_rate),
        march=None if u.march_rate is None else float(u.march_rate),
        discipline=int(u.discipline),
        shooting=bool(u.shooting),
        flags=frozenset(u.flags),
        keywords=frozenset(u.keywords),
    )


def _model_centres(front: tuple[float, float], facing: float, files: int, models: int, bw: float,
                   bd: float) -> np.ndarray:
    """``block_model_centres`` with one array expression for all models instead of
    one per model: each centre is still ``o + right * x + f * y`` with the same plain
    offsets ``x``, ``y``, the same operations in the same order, so the same numbers."""
    o, f, right = block_frame(front, facing)
    ranks = math.ceil(models / files)
    xs: list[float] = []
    ys: list[float] = []
    for r in range(ranks):
        n = files if r < ranks - 1 else models - files * (ranks - 1)
        width = n * bw
        for i in range(n):
            xs.append(-width / 2 + (i + 0.5) * bw)
            ys.append(-(r + 0.5) * bd)
    if not xs:
        return block_model_centres(front, facing, files, models, bw, bd)
    return o + right * np.array(xs)[:, None] + f * np.array(ys)[:, None]
