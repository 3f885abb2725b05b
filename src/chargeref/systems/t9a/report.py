"""Turning solver results into the contract's ruling pieces: per-model moves, unit
poses, and the scenario after the charge."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...ruling import Move
from ...scenario import scenario_to_data
from .block import Block
from .world import Step, World


@dataclass
class MoveRecord:
    """A unit's move within one ruling: where it started, its steps, where it ended
    (``after`` is None when the unit was destroyed or removed at the end)."""

    unit: str
    before: Block
    steps: list[Step]
    after: Block | None
    label: str
    removed: bool = False

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "unit": self.unit,
            "label": self.label,
            "from": pose(self.before),
            "steps": _steps_json(self.before, self.steps),
        }
        if self.after is not None:
            out["to"] = pose(self.after)
            if (self.after.models, self.after.files) != (self.before.models, self.before.files):
                out["formation"] = {"files": self.after.files, "models": self.after.models}
        out["removed"] = self.removed
        return out


def _steps_json(b: Block, steps: list[Step]) -> list[dict[str, Any]]:
    out = []
    for s in steps:
        out.append(s.to_json(b))
        b = s.apply(b)
    return out


def pose(b: Block) -> dict[str, Any]:
    return {"front": [round(b.front[0], 9), round(b.front[1], 9)], "facing": round(b.facing % 360.0, 9)}


def _r(v: float) -> float:
    return round(float(v), 9)


def model_moves(rec: MoveRecord, contacts: dict[str, list[str]] | None = None) -> list[Move]:
    """One Move per model: its centre before and after, the centre's path (arcs
    sampled every 5 degrees for drawing) and the exact length of that path."""
    b = rec.before
    n = b.models if rec.after is None else min(b.models, rec.after.models)
    C0 = b.model_centres()
    paths: list[list[np.ndarray]] = [[C0[i]] for i in range(n)]
    dist = np.zeros(n)
    cur = b
    for st in rec.steps:
        nxt = st.apply(cur)
        if nxt.models != cur.models or nxt.files != cur.files or st.kind == "place":
            Cn = nxt.model_centres()
            for i in range(n):
                paths[i].append(Cn[i])
                dist[i] += float(np.hypot(*(Cn[i] - paths[i][-2])))
            cur = nxt
            continue
        if st.kind == "forward":
            Cn = nxt.model_centres()
            for i in range(n):
                paths[i].append(Cn[i])
            dist += abs(st.amount)
        else:
            piv = cur.wheel_pivot(st.amount) if st.kind == "wheel" else np.asarray(st.pivot, float)
            ang = math.radians(st.amount)
            k = max(2, int(abs(st.amount) / 5) + 1)
            Cc = cur.model_centres()
            for j in range(1, k + 1):
                a = ang * j / k
                c, s = math.cos(a), math.sin(a)
                R = np.array([[c, -s], [s, c]])
                P = (Cc - piv) @ R.T + piv
                for i in range(n):
                    paths[i].append(P[i])
            rad = np.hypot(*(Cc[:n] - piv).T)
            dist += rad * abs(ang)
        cur = nxt
    end = rec.after if rec.after is not None else cur
    C1 = end.model_centres()
    out = []
    for i in range(n):
        mid = f"{b.id}.{i}"
        pts = paths[i]
        if float(np.hypot(*(pts[-1] - C1[i]))) > 1e-9:
            pts.append(C1[i])
        out.append(
            Move.model_validate(
                {
                    "id": mid,
                    "from": [_r(C0[i][0]), _r(C0[i][1])],
                    "to": [_r(C1[i][0]), _r(C1[i][1])],
                    "distance": _r(dist[i]),
                    "contacts": sorted((contacts or {}).get(mid, [])),
                    "path": _path_rounded(pts),
                    "facing": _r(end.facing % 360.0),
                }
            )
        )
    return out


#: consecutive path points closer than this (inch) are one point
DEDUPE_TOL = 1e-12


def _path_rounded(pts: list[np.ndarray]) -> list[list[float]]:
    """``[[_r(x), _r(y)] for (x, y) in _dedupe(pts)]`` in plain floats: the same points
    dropped and the same rounded values (a path has a point every few degrees of each
    turn, and numpy costs more than the arithmetic for one point). The differences
    are the numpy ones (IEEE subtraction either way); a step is kept at once when one
    of its components alone exceeds twice the tolerance (its length is at least that
    component), dropped at once when the two together stay below half of it (its
    length is at most their sum), and otherwise decided by ``np.hypot`` as
    ``_dedupe`` does."""
    out: list[tuple[float, float]] = []
    for x, y in np.asarray(pts, dtype=float).tolist():
        if out:
            dx, dy = abs(x - out[-1][0]), abs(y - out[-1][1])
            if dx <= 2 * DEDUPE_TOL and dy <= 2 * DEDUPE_TOL and (
                    dx + dy < DEDUPE_TOL / 2 or not float(np.hypot(dx, dy)) > DEDUPE_TOL):
                continue
        out.append((x, y))
    if len(out) == 1:
        out.append(out[0])
    return [[round(x, 9), round(y, 9)] for x, y in out]


def _dedupe(pts: list[np.ndarray]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for p in pts:
        if not out or float(np.hypot(*(p - out[-1]))) > DEDUPE_TOL:
            out.append(p)
    if len(out) == 1:
        out.append(out[0])
    return out


def scenario_after(scen: Any, world: World, clear_charges: bool) -> dict[str, Any]:
    """The whole scenario with the world's unit poses, formations and flags."""
    data = scenario_to_data(scen)
    units = []
    for u in data["units"]:
        b = world.blocks.get(u["id"])
        if b is None:
            continue
        fm = dict(u["formation"])
        fm["front"] = [_r(b.front[0]), _r(b.front[1])]
        fm["facing"] = _r(b.facing % 360.0)
        fm["files"] = b.files
        fm["models"] = b.models
        u = dict(u)
        u["formation"] = fm
        flags = sorted(b.flags)
        if flags:
            u["flags"] = flags
        else:
            u.pop("flags", None)
        units.append(u)
    data["units"] = units
    if clear_charges:
        data.pop("charges", None)
        data.pop("move_order", None)
    return data
