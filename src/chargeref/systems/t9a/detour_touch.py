"""Settling the blocked-approach search's answer onto a real touch.

The search of ``detour`` accepts approaches that overlap an obstacle by up to
``SEARCH_SLACK`` (room for rounding). Its best approach is found by sliding towards an
obstacle until that test stops passing, so it usually overlaps by almost exactly that
much. Where the obstacle's edge crosses the slide at an angle, that overlap moves the
answer by about as much; where the path *grazes* a curve tangentially (a charger
turning about the tangent point of a round base: the overlap grows with the square of
the turn), the overlap allowed buys a distance that grows like its square root, far
more than the contract's tolerance.

So the best approach is settled. Along each one-parameter family of approaches
through it (the offset at its align angle, the align angle at its offset, and, when
it has no forward move before or after its wheel, that edge of the approaches that
exist), towards either end of its cell, the nearest approach that overlaps nothing
(beyond rounding, ``TOUCH_SLACK``) is met by steps doubling from ``TOUCH_STEP`` and
the boundary before it is bisected to ``TOUCH_STEP`` (inch along the offset, degree
along the align angle): a root of the clearance (the least gap of the path to the
obstacles, less the gap each must keep) along the family.

Where the clearance crosses zero at an angle that root is sharp. At a tangential
graze it does not cross: it is ``-k (t - t*)^2`` on the overlapping side and its top,
zero, is reached only at ``t*``; rounding (about 1e-13) then blurs ``t*`` by
``sqrt(1e-13 / k)``, too much. There ``sqrt(-clearance)`` is linear in the parameter,
so from its values at three points of the overlapping side, far enough from the
boundary that the overlap is well above rounding (``GRAZE_MIN``), whose differences
agree (to ``GRAZE_LINEAR``), the root ``t*`` is extrapolated as the root of that line;
the approach there is taken when it touches.

The shortest approach so found touches; when no family reaches one, the search's
answer stays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from ... import budget
from ...geometry.shapes import TOL
from .world import Obstacle

if TYPE_CHECKING:
    from .detour import Cell, Found, Search

#: how much overlap the search's own clear test allows (inch): half of ``TOL`` (see
#: ``charge.search_obstacles``)
SEARCH_SLACK = TOL / 2
#: how much overlap the settled answer may keep (inch): rounding only (the gaps of
#: constructed touches come out within about 1e-13 of zero)
TOUCH_SLACK = 1e-12
#: the overlap (inch) the samples of a tangential graze's extrapolation must have at
#: least (far above rounding), and how far (relative) the differences of
#: ``sqrt(overlap)`` between them may disagree for it to count as one
GRAZE_MIN = 1e-9
GRAZE_LINEAR = 1e-2
#: the touching boundary is bisected to this (inch along the offset, degree along the
#: align angle)
TOUCH_STEP = 1e-9


def touch_obstacles(obstacles: list[Obstacle], search_slack: float) -> list[Obstacle]:
    """The search's obstacles (which let a path overlap by ``search_slack``) as they
    are when a path may overlap by ``TOUCH_SLACK`` at most. Strict obstacles are
    unchanged (they already demand a gap)."""
    return with_overlap(obstacles, search_slack - TOUCH_SLACK)


def with_overlap(obstacles: list[Obstacle], less: float) -> list[Obstacle]:
    """The obstacles with every non-strict one's allowed overlap made ``less`` smaller
    (its gap to keep grows by ``less``); strict ones are unchanged (they already demand
    a gap)."""
    return [ob if ob.strict else Obstacle(ob.uid, ob.cls, ob.shape, ob.min_gap + less, ob.strict) for ob in obstacles]


def _clearance(search: Search, found: Found) -> float | None:
    """The clearance of a clear approach's path when it overlaps something by more than
    ``TOUCH_SLACK`` (negative: the overlap of the first piece that does), 0.0 when it
    touches, None when what stops it has no overlap to measure (the board edge)."""
    res = search.world.check_steps(search.ch, found[1], search.tobst, skip_path=search.ch.flying)
    if res is None:
        return 0.0
    ob = next((o for o in search.tobst if o.uid == res.what), None)
    if ob is None or ob.strict:
        return None
    return min(res.gap - (ob.min_gap - TOL + TOUCH_SLACK), -TOUCH_SLACK)


def touches(search: Search, found: Found) -> bool:
    """Whether a clear approach's steps overlap nothing (beyond ``TOUCH_SLACK``)."""
    return _clearance(search, found) == 0.0


Family = Callable[[float], "tuple[float, float] | None"]


def settle(search: Search, c: Cell, found: Found, s_fixed: float | None) -> Found:
    """The shortest touching approach next to ``found`` (see the module docstring),
    or ``found`` itself when it already overlaps nothing or none is reached."""
    if touches(search, found):
        return found
    ap = found[0]
    s, d = float(ap.s), float(ap.delta)  # type: ignore[attr-defined]
    fams: list[tuple[Family, float, list[float]]] = [(lambda x: (s, x), d, [c.dlo, c.dhi])]
    if s_fixed is None:
        fams.append((lambda x: (x, d), s, [c.pa, c.pb]))
        for which, dv in (("n1", float(ap.d1)), ("n2", float(ap.d2))):  # type: ignore[attr-defined]
            if dv > search.edge_tol:
                continue

            def on_edge(x: float, which: str = which) -> tuple[float, float] | None:
                se = search.edge_s(c, x, which)
                return None if se is None else (se, x)

            fams.append((on_edge, d, [c.dlo, c.dhi]))
    best: Found | None = None
    for fam, t0, ends in fams:
        for t1 in ends:
            got = _nearest(search, fam, t0, t1)
            if got is not None and (best is None or got[0].distance < best[0].distance):  # type: ignore[attr-defined]
                best = got
    return found if best is None else best


def _at(search: Search, fam: Family, x: float) -> tuple[Found | None, float | None]:
    """The approach of the family at ``x`` when the search's test finds it clear, and
    its clearance (``_clearance``)."""
    sd = fam(x)
    got = None if sd is None else search.try_at(*sd)
    return got, (None if got is None else _clearance(search, got))


def _nearest(search: Search, fam: Family, t0: float, t1: float) -> Found | None:
    """The touching approach nearest ``t0`` (which overlaps) on the way to ``t1``:
    steps doubling from ``TOUCH_STEP`` until one touches (or ``t1`` is reached), then
    the boundary between it and the last step that did not is bisected to
    ``TOUCH_STEP``, and, at a tangential graze, extrapolated (``_graze``). None when
    nothing on the way touches."""
    span = abs(t1 - t0)
    if span <= TOUCH_STEP:
        return None
    sg = 1.0 if t1 > t0 else -1.0
    bad, h = t0, TOUCH_STEP
    while True:
        budget.check()
        x = t1 if h >= span else t0 + sg * h
        got, cl = _at(search, fam, x)
        if cl == 0.0:
            break
        if x == t1:
            return None
        bad, h = x, 2 * h
    good = x
    while abs(good - bad) > TOUCH_STEP:
        budget.check()
        m = (good + bad) / 2
        g, cl = _at(search, fam, m)
        if cl == 0.0:
            good, got = m, g
        else:
            bad = m
    assert got is not None
    return _graze(search, fam, good, bad, got)


def _graze(search: Search, fam: Family, good: float, bad: float, got: Found) -> Found:
    """At a tangential graze, the approach at the extrapolated top ``t*`` of the
    clearance (see the module docstring) when it touches; ``got`` (the boundary as
    bisected) otherwise."""
    sg = 1.0 if bad > good else -1.0
    u = TOUCH_STEP
    for _ in range(40):
        budget.check()
        xs = [good + sg * u * k for k in (1, 2, 4)]
        vals = [_at(search, fam, x)[1] for x in xs]
        if any(v is None for v in vals):
            return got
        if min(-v for v in vals) >= GRAZE_MIN:  # type: ignore[operator]
            break  # (closer, rounding may still call a sample touching)
        u *= 4
    else:
        return got
    r = [math.sqrt(-v) for v in vals]  # type: ignore[operator]
    d1, d2 = r[1] - r[0], r[2] - r[1]
    # sqrt(-clearance) linear in the parameter (differences 1 : 2 for steps 1 : 2)
    if d1 <= 0 or abs(d2 - 2 * d1) > GRAZE_LINEAR * abs(d2):
        return got
    top = xs[0] - r[0] * (xs[1] - xs[0]) / d1
    if (top - good) * sg > u or (good - top) * sg > u:  # not near the bisected boundary
        return got
    g, cl = _at(search, fam, top)
    # (the top is taken even when a hair longer: the bisected boundary is shorter only
    # by the rounding it overlaps by, magnified by the graze)
    return got if g is None or cl != 0.0 else g


__all__ = ["GRAZE_LINEAR", "GRAZE_MIN", "SEARCH_SLACK", "TOUCH_SLACK", "TOUCH_STEP", "settle", "touch_obstacles",
           "touches"]
