"""The stands after the first (seed 004; rules-notes section 3.2 and 3.4).

One at a time, each touching a stand already placed: into the line (front edges
flush with the first stand's, at either end) where a spot is free and in reach, taking
the spot with the most front-edge contact with enemy stands (Revolution: with the
target unit first, and also stepping forward or back to follow an irregular target
front). A stand with no such spot goes directly behind a placed stand, or beside it
and set back as little as its move allows (closed form, ``closest_feasible``). When
even that fails the charge fails: ``out_of_reach`` if some spot was free, else
``no_room``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...budget import check as budget_check
from ...geometry.shapes import TOL
from .geom import bbox_gap, poly_seg_dist, rect
from .placing import EDGES, ChargeBase, Placed, Pose, closest_feasible
from .world import StandW


class Formation(ChargeBase):
    """Scores front contact and places the rest of the unit around the first stand."""

    # ------------------------------------------------------------------ contact

    def contact(self, pose: Pose) -> tuple[float, bool, float, bool]:
        """(front contact length with the target, front touches the target, the same
        for other enemy stands)."""
        F0, F1 = pose.front()
        f = pose.f
        lf = np.array([-f[1], f[0]])
        out = [0.0, False, 0.0, False]
        seg = np.array([F0, F1])
        for e in self.enemies:
            k = 0 if e.unit == self.target else 2
            if bbox_gap(e.poly, seg) > TOL or poly_seg_dist(e.poly, F0, F1) > TOL:
                continue
            out[k + 1] = True
            for name in EDGES:
                a, b = e.edge(name)
                n = np.array([(b - a)[1], -(b - a)[0]]) / np.linalg.norm(b - a)
                if n @ f > -1 + 1e-9 or abs((a - F0) @ f) > TOL:
                    continue
                u0, u1 = sorted((float((a - F0) @ lf), float((b - F0) @ lf)))
                v0, v1 = sorted((float((F0 - F0) @ lf), float((F1 - F0) @ lf)))
                out[k] += max(0.0, min(u1, v1) - max(u0, v0))
        return out[0], out[1], out[2], out[3]  # type: ignore[return-value]

    def score(self, pose: Pose) -> tuple:
        tl, tt, ol, ot = self.contact(pose)
        if self.variant == "revolution":
            # the unit originally charged comes first (Revolution Q&A)
            return (round(tl, 7), tt, round(ol, 7), ot)
        return (round(tl + ol, 7), tt or ot)

    # ------------------------------------------------------------------ remaining stands

    def line_candidates(self, s: StandW) -> list[tuple[Pose, str]]:
        """Beside either end of the line, front edges flush (Revolution also: staggered
        to follow an irregular target's front)."""
        ends = self._line_ends()
        out: list[tuple[Pose, str]] = []
        for p, side in ends:
            f, lf = p.pose.f, np.array([-p.pose.f[1], p.pose.f[0]])
            base = p.pose.c + side * lf * (p.pose.w + s.w) / 2 + f * (p.pose.d - s.d) / 2
            out.append((Pose(base, p.pose.facing, s.w, s.d), "line"))
            if self.variant == "revolution" and not self._target_in_line():
                for delta in self._follow_offsets(base, f, lf, s, p):
                    out.append((Pose(base + f * delta, p.pose.facing, s.w, s.d), "follow"))
        return out

    def _line_ends(self) -> list[tuple[Placed, float]]:
        line = [p for p in self.placed if p.how in ("first", "line", "follow")]
        first = self.placed[0]
        lf = np.array([-first.pose.f[1], first.pose.f[0]])
        us = [(float((p.pose.c - first.pose.c) @ lf), p) for p in line]
        hi = max(us, key=lambda x: x[0])[1]
        lo = min(us, key=lambda x: x[0])[1]
        return [(hi, 1.0), (lo, -1.0)]

    def _target_in_line(self) -> bool:
        ts = self.tstands
        if len(ts) <= 1:
            return True
        f0 = ts[0].f
        a0 = ts[0].edge("front")[0]
        for t in ts:
            if abs(float(t.f @ f0) - 1) > 1e-9:
                return False
            if abs(float((t.edge("front")[0] - a0) @ f0)) > TOL:
                return False
        return True

    def _follow_offsets(self, base: np.ndarray, f: np.ndarray, lf: np.ndarray, s: StandW, p: Placed) -> list[float]:
        out = []
        front0 = base + f * s.d / 2
        u_lo = float(front0 @ lf) - s.w / 2
        u_hi = u_lo + s.w
        for e in self.enemies:
            for name in EDGES:
                a, b = e.edge(name)
                n = np.array([(b - a)[1], -(b - a)[0]]) / np.linalg.norm(b - a)
                if n @ f > -1 + 1e-9:
                    continue
                e0, e1 = sorted((float(a @ lf), float(b @ lf)))
                if min(e1, u_hi) - max(e0, u_lo) <= TOL:
                    continue
                delta = float((a - front0) @ f)
                if TOL < abs(delta) < min(s.d, p.pose.d) - TOL:
                    out.append(delta)
        return out

    def fallback_candidates(self, s: StandW) -> list[tuple[Pose, str, Callable[[], float | None] | None]]:
        out: list[tuple[Pose, str, Callable[[], float | None] | None]] = []
        for p in self.placed:
            f = p.pose.f
            lf = np.array([-f[1], f[0]])
            behind = Pose(p.pose.c - f * (p.pose.d + s.d) / 2, p.pose.facing, s.w, s.d)
            out.append((behind, "behind", None))
            for side in (1.0, -1.0):
                base = p.pose.c + side * lf * (p.pose.w + s.w) / 2 + f * (p.pose.d - s.d) / 2
                out.append((Pose(base, p.pose.facing, s.w, s.d), "staggered", None))
                out[-1] = (out[-1][0], "staggered", self._stagger_solver(s, p, base, f))
        return out

    def _stagger_solver(self, s: StandW, p: Placed, base: np.ndarray, f: np.ndarray) -> Callable[[], float | None]:
        def solve() -> float | None:
            P0 = Pose(base, p.pose.facing, s.w, s.d).poly
            free = self.slide_free(s, P0, -f, 0.0, p.pose.d)
            # set back by dl, corner k moves by q_k - dl f
            q = P0 - rect(s.c, s.facing, s.w, s.d)
            return closest_feasible(free, 0.0, q, -f, self.move)

        return solve

    def place_rest(self) -> tuple[bool, str | None, list[str]]:
        left = [s for s in self.cstands if s is not self.placed[0].stand]
        while left:
            budget_check()
            best: tuple[tuple[Any, ...], Placed] | None = None
            saw_free = False
            seen: set[tuple[str, float, float, float]] = set()

            def fresh(s: StandW, pose: Pose, seen: set[tuple[str, float, float, float]] = seen) -> bool:
                """False for a spot this stand has already been tried at in this step."""
                k = (s.sid, round(float(pose.c[0]), 7), round(float(pose.c[1]), 7), round(pose.facing % 360, 7))
                if k in seen:
                    return False
                seen.add(k)
                return True

            for s in left:
                for pose, how in self.line_candidates(s):
                    if not fresh(s, pose) or not self.pose_free(s, pose):
                        continue
                    saw_free = True
                    path, cost, _ = self.route(s, pose)
                    if path is None or cost > self.move + TOL:
                        continue
                    sc = self.score(pose)
                    key: tuple[Any, ...] = (tuple(-x if isinstance(x, float) else -int(x) for x in sc),
                                            0 if how == "line" else 1, round(cost, 9), self.cstands.index(s))
                    if best is None or key < best[0]:
                        best = (key, Placed(s, pose, path, cost, how, contact=sc[0]))
            if best is None:
                for s in left:
                    for pose, how, solver in self.fallback_candidates(s):
                        if solver is not None:
                            dl = solver()
                            if dl is None:
                                continue
                            pose = Pose(pose.c - pose.f * dl, pose.facing, pose.w, pose.d)
                            if dl <= 1e-12:
                                how = "line" if self._on_line(pose) else how
                        if not fresh(s, pose) or not self.pose_free(s, pose):
                            continue
                        saw_free = True
                        path, cost, _ = self.route(s, pose)
                        if path is None or cost > self.move + TOL:
                            continue
                        sc = self.score(pose)
                        key = (round(float(cost), 9), self.cstands.index(s), how)
                        if best is None or key < best[0]:
                            best = (key, Placed(s, pose, path, cost, how, contact=sc[0]))
            if best is None:
                ids = [s.sid for s in left]
                return False, ("out_of_reach" if saw_free else "no_room"), ids
            self.placed.append(best[1])
            left.remove(best[1].stand)
        return True, None, []

    def _on_line(self, pose: Pose) -> bool:
        first = self.placed[0].pose
        return abs(float((pose.front()[0] - first.front()[0]) @ first.f)) <= TOL and \
            abs(pose.facing - first.facing) % 360 < 1e-9
