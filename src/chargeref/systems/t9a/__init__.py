"""The 9th Age: Fantasy Battles (2nd edition) charges: blocks, arcs, reactions,
wheels and align moves, maximising contact, multiple, combined, failed and
blocked-path charges, and the whole charge phase. See docs/t9a.md."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...budget import check as budget_check
from ...errors import Problem, RequestError
from ...geometry.broad import box_pairs, points_bounds
from ...geometry.shapes import TOL
from ...ruling import Needed, Ruling
from ..base import ChargeRequest, PhaseResult
from .geom import gap
from .resolve import run_charge, run_needed, run_phase
from .world import World


def _bounds(sh: Any) -> np.ndarray:
    """The box around a T9A shape (a polygon, or a capsule/disc)."""
    if sh.V is not None:
        return points_bounds(sh.V)
    return points_bounds(np.stack([sh.a, sh.b]), pad=sh.r)


class T9ASystem:
    name = "t9a"

    def _check(self, scen: Any) -> None:
        if getattr(scen, "system", None) != "t9a":
            raise RequestError(Problem("system", f"this is a {getattr(scen, 'system', '?')} scenario, not t9a"))

    def problems(self, scen: Any) -> list[Problem]:
        """Battlefields that cannot be: units off the board, overlapping one another
        or impassable terrain, and charges naming units that are not there."""
        self._check(scen)
        out: list[Problem] = []
        w = World.from_scenario(scen)
        ids = [u.id for u in scen.units]
        seen: set[str] = set()
        for uid in ids:
            if uid in seen:
                out.append(Problem(f"units[{uid}].id", "unit ids must be unique"))
            seen.add(uid)
        tids = [t.id for t in scen.terrain]
        if len(set(tids)) != len(tids):
            out.append(Problem("terrain", "terrain ids must be unique"))
        blocks = list(w.blocks.values())
        for b in blocks:
            if not w.shape_on_board(b.shape()):
                out.append(Problem(f"units[{b.id}].formation.front", "the unit is not wholly on the board"))
            for tid, sh in w.terrain:
                if gap(b.shape(), sh) < -TOL:
                    out.append(Problem(f"units[{b.id}].formation.front", f"the unit stands inside impassable terrain {tid}"))
                    break
        # a spatial index proposes the units close enough to touch (not all pairs);
        # the exact gap decides
        bounds = np.array([_bounds(b.shape()) for b in blocks]).reshape(-1, 4)
        for i, j in box_pairs(bounds):
            budget_check()
            a, b = blocks[i], blocks[j]
            if gap(a.shape(), b.shape()) < -TOL:
                out.append(Problem(f"units[{b.id}].formation.front", f"the unit overlaps unit {a.id}"))
        for k, c in enumerate(scen.charges):
            where = f"charges[{k}]"
            if c.charger not in w.blocks:
                out.append(Problem(f"{where}.charger", f"no unit {c.charger!r}"))
                continue
            for t in c.targets:
                if t not in w.blocks:
                    out.append(Problem(f"{where}.targets", f"no unit {t!r}"))
                elif w.blocks[t].player == w.blocks[c.charger].player:
                    out.append(Problem(f"{where}.targets", f"{t} is not an enemy of {c.charger}"))
            if c.redirect is not None and c.redirect not in w.blocks:
                out.append(Problem(f"{where}.redirect", f"no unit {c.redirect!r}"))
        for uid in scen.move_order or []:
            if uid not in w.blocks:
                out.append(Problem("move_order", f"no unit {uid!r}"))
        return out

    def charge(self, scen: Any, req: ChargeRequest) -> Ruling:
        self._check(scen)
        return run_charge(scen, req)

    def needed(self, scen: Any, req: ChargeRequest) -> Needed:
        self._check(scen)
        return run_needed(scen, req)

    def phase(self, scen: Any, seed: int | None) -> PhaseResult:
        self._check(scen)
        return run_phase(scen, seed)


SYSTEM = T9ASystem()

__all__ = ["SYSTEM", "T9ASystem"]
