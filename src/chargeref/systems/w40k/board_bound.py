"""The board-aware lower bound of the 40k search (a mixin of ``ChargeProblem``, through
``SpotBuilder``): a base may not end partly off the board, so the least move to a
target's engagement range is at least the straight distance from a start to the part
of that range the board leaves room for. Closed forms and the offset curve's root
finder (geometry ``locus_lines``); see docs/40k.md (``needed``)."""

from __future__ import annotations

import math

import numpy as np

from ... import budget
from ...geometry.locus_lines import disc_box_distance, locus_box_distance
from ...geometry.pivot import pivotable
from ...geometry.pivot import reach as pivot_reach
from ...geometry.shapes import Disc, Ellipse, Footprint
from .world import Model


class BoardBound:
    """The bound; ChargeProblem supplies the state it reads (and ``SpotBuilder`` the
    drawn-in board, ``_board_lines``)."""

    def _board_bound(self, j: int, reach: float) -> float:
        """The least straight move by which some model of the unit ends wholly on the
        board within ``reach`` of a model of target j: a lower bound on any move that
        engages target j (the caller keeps the larger of it and the plain straight
        bound). Kept per reach.

        Round models and round target models: the distance from each start to the part
        of the disc of radius r_model + r_target + reach round the target that the
        drawn-in board allows (closed form, ``disc_box_distance``). Any other bases:
        ``_model_board_bound`` for each model and target model."""
        if not (self.models and self.all_targets):
            return -math.inf
        memo = self.__dict__.setdefault("_board_bound_memo", {})
        hit = memo.get(reach)
        if hit is None:
            if self._all_disc:
                W, D = self.w.board
                S = np.array([m.xy for m in self.models], dtype=float).reshape(-1, 2)
                rm = np.array([m.fp.parts[0].r for m in self.models])
                lo = np.stack([rm, rm], axis=1)[:, None, :]
                hi = np.stack([W - rm, D - rm], axis=1)[:, None, :]
                R = rm[:, None] + self._t_pr[None, :] + reach
                d = disc_box_distance(S[:, None, :], self._t_pc[None, :, :], R, lo, hi)
            else:
                d = np.array([[self._model_board_bound(m, t, reach) for t in self.all_targets] for m in self.models],
                             dtype=float).reshape(len(self.models), len(self.all_targets))
            hit = memo[reach] = np.array([float(d[:, self.target_col == k].min()) if (self.target_col == k).any()
                                          else -math.inf for k in range(len(self.targets))])
        return float(hit[j])

    def _bound_mover(self, m: Model) -> tuple[Footprint, np.ndarray, np.ndarray] | None:
        """The base the board bound moves for a model like m, and the box its centre must
        end in to stand wholly on the board. A round base, or a one-part base that cannot
        turn (``pivotable``): itself at its facing and its drawn-in board
        (``_board_lines``): tight. A base that may turn (at its start or its end spot):
        a relaxation that holds at every facing, a disc round its centre as wide as its
        farthest point (``pivot.reach``: every facing's base lies inside it, so every
        facing's reach to a target is within the disc's) and a box drawn in by its
        nearest edge (every facing's base holds the disc of that radius, so a base on
        the board has its centre that far inside). None for bases of several parts
        (their plain bound stands). Kept per base shape."""
        memo = self.__dict__.setdefault("_bound_mover_memo", {})
        key = self.keys[m.id]
        if key in memo:
            hit = memo[key]
        else:
            hit = None
            W, D = self.w.board
            c = np.asarray(m.xy, dtype=float)
            if len(m.fp.parts) == 1 and (m.fp.is_disc or not pivotable(m.fp)):
                lines = self._board_lines(m)
                if lines:
                    (_, x0), (_, x1), (_, y0), (_, y1) = lines
                    hit = (m.fp, np.array([x0, y0]), np.array([x1, y1]))
                else:
                    hit = (m.fp, np.array([1.0, 1.0]), np.array([0.0, 0.0]))  # wider than the board
            elif pivotable(m.fp):
                part = m.fp.parts[0]
                inner = min(part.a, part.b) if isinstance(part, Ellipse) else float(-part.point_signed_distance(c[None])[0])
                far = pivot_reach(m.fp)
                hit = (Footprint((Disc((float(c[0]), float(c[1])), far),), origin=(float(c[0]), float(c[1]))),
                       np.array([inner, inner]), np.array([W - inner, D - inner]))
            memo[key] = hit
        if hit is None:
            return None
        fp, lo, hi = hit
        return fp.moved_to(m.xy), lo, hi

    def _model_board_bound(self, m: Model, t: Model, reach: float) -> float:
        """The least straight move of m's centre to a spot where its base (or its
        relaxation, ``_bound_mover``) is within ``reach`` of target model t and on the
        board: exact for each convex part of t (``locus_box_distance``), the least over
        them. -inf when no such bound is built (the plain bound stands) or when the
        grown target lies wholly inside the box (then the box adds nothing)."""
        got = self._bound_mover(m)
        if got is None:
            return -math.inf
        mover, lo, hi = got
        if np.any(lo > hi):
            return math.inf
        best = math.inf
        for part in t.fp.parts:
            budget.check()
            tp = Footprint((part,), origin=(float(t.xy[0]), float(t.xy[1])))
            grow = float(part.radius) + mover.radius + reach
            pc = np.asarray(part.center, dtype=float)
            if np.all(pc - grow >= lo) and np.all(pc + grow <= hi):
                return -math.inf  # this part's set lies inside the box: no more than the plain bound
            best = min(best, locus_box_distance(mover, tp, reach, np.asarray(m.xy, dtype=float), lo, hi))
        return best
