"""Sliding a clear approach of the blocked-approach search (``detour.Search``) towards
shorter ones: along the offset, the align angle, and the edge where a forward move is
zero, each to the end of its box or to where it meets an obstacle (bisection to
``POLISH_TOL``). The slides only improve the upper bound; the proofs are the search's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ... import budget
from .detour_cells import Cell, _Geo

Found = tuple[object, list]  # (Approach, steps), as the clear check returns them

#: a clear approach is slid along the offset to the obstacle to within this (inch)
POLISH_TOL = 1e-10
#: a clear approach whose d1 (or d2) is at most this (inch) is slid along the edge
#: where it is zero (``Slides._slide_edge``)
EDGE_TOL = 1e-6


class Slides:
    """The slides, mixed into ``detour.Search``: they need its exact clear check
    ``clear(s, delta)``, its count of checks and its closed forms ``g``."""

    clear: Callable[[float, float], Found | None]
    checks: int
    g: _Geo

    def _try(self, s: float, d: float) -> Found | None:
        self.checks += 1
        return self.clear(s, d)

    #: (for ``detour_touch``)
    try_at, edge_tol = _try, EDGE_TOL

    def _polish(self, c: Cell, found: Found, s0: float, s1: float, d0: float, d1: float) -> Found:
        """Slide a clear approach towards shorter ones inside its box: along the offset
        (the distance is affine in it for a fixed angle) to the box's end or to where
        it meets the obstacle (bisection), then likewise along the angle towards the
        shorter end of the box, then along the offset again; before and after, along
        the edge where d1 or d2 is zero when it lies there (``_slide_edge``)."""
        found = self._slide_edge(c, found, d0, d1)
        found = self._slide(c, found, s0, s1, True)
        found = self._slide(c, found, d0, d1, False)
        found = self._slide(c, found, s0, s1, True)
        return self._slide_edge(c, found, d0, d1)

    def edge_s(self, c: Cell, d: float, which: str) -> float | None:
        """The offset (in the cell) where, at align angle ``d``, ``d1`` (``which`` =
        "n1") or ``d2`` ("n2") is zero: both are affine in the offset for a fixed
        angle, so the root of the line through the cell's two ends."""
        v = self.g.at(c, np.array([c.pa, c.pb]), np.array([d, d]))
        a0, a1 = float(v[which][0]), float(v[which][1])
        if a0 == a1 or c.pb <= c.pa:
            return None
        r = c.pa + (c.pb - c.pa) * a0 / (a0 - a1)
        return r if c.pa <= r <= c.pb else None

    def _slide_edge(self, c: Cell, found: Found, d0: float, d1: float) -> Found:
        """A clear approach with no forward move before (or after) its wheel lies on
        the edge of the approaches that exist; the shortest clear one is often there
        too, where the edge meets an obstacle. Slide along that edge (the offset from
        ``edge_s``) over the box's angles towards the shorter end, to it or to where
        it meets the obstacle (bisection to ``POLISH_TOL``)."""
        ap = found[0]
        for which, dv in (("n1", float(ap.d1)), ("n2", float(ap.d2))):  # type: ignore[attr-defined]
            if dv > EDGE_TOL or d1 - d0 <= POLISH_TOL:
                continue
            d = float(found[0].delta)  # type: ignore[attr-defined]

            def at(x: float, which: str = which) -> Found | None:
                se = self.edge_s(c, x, which)
                return None if se is None else self._try(se, x)

            ends = [e for e in (d0, d1) if self.edge_s(c, e, which) is not None]
            if not ends:
                continue
            dist = [float(self.g.at(c, np.array([self.edge_s(c, e, which)]), np.array([e]))["dist"][0])
                    for e in ends]
            far = ends[int(np.argmin(dist))]
            got = at(far)
            if got is not None:
                if got[0].distance < found[0].distance:  # type: ignore[attr-defined]
                    found = got
                continue
            found = _polish(at, d, far, found)
        return found

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
        return _polish(at, (s if along_s else d), far, found)



def _polish(at: Callable[[float], Found | None], good: float, bad: float, found: Found) -> Found:
    """Bisect between a clear parameter ``good`` and a blocked one ``bad`` to
    ``POLISH_TOL``, keeping the shortest clear approach met on the way."""
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
