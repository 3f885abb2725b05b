"""``chargeref check`` for 40k: every problem of a parsed scenario at once."""

from __future__ import annotations

from collections import Counter

from ...errors import Problem
from ...geometry.shapes import TOL
from ...scenario import Scenario40k
from .solver import sd_many
from .world import build_world

#: footprints larger than this (scenario inches) are refused as absurd
MAX_BASE_IN = 40.0


def common_id_problems(scen) -> list[Problem]:  # noqa: ANN001
    """Unique ids for units, terrain and (40k) models; charges naming known units."""
    probs: list[Problem] = []
    for what, ids in (("units", [u.id for u in scen.units]), ("terrain", [t.id for t in scen.terrain])):
        for k, n in Counter(ids).items():
            if n > 1:
                probs.append(Problem(f"{what}[{k}]", f"id {k!r} is used {n} times"))
    unit_ids = {u.id for u in scen.units}
    for i, c in enumerate(scen.charges):
        if c.charger not in unit_ids:
            probs.append(Problem(f"charges[{i}].charger", f"no unit {c.charger!r}"))
        for t in c.targets:
            if t not in unit_ids:
                probs.append(Problem(f"charges[{i}].targets", f"no unit {t!r}"))
    return probs


def scenario_problems(scen: Scenario40k) -> list[Problem]:
    probs = common_id_problems(scen)
    # a model id names one model of the whole scenario: each repeat is named where it
    # stands (its unit), with the unit that used the id first
    ids = Counter(m.id for u in scen.units for m in u.models)
    first: dict[str, str] = {}
    for u in scen.units:
        for m in u.models:
            if m.id in first:
                probs.append(Problem(f"units[{u.id}].models[{m.id}]",
                                     f"model id {m.id!r} is used {ids[m.id]} times (first in unit {first[m.id]})"))
            else:
                first[m.id] = u.id
    unit_ids = {u.id for u in scen.units}
    for u in scen.units:
        for t in u.token_targets:
            if t not in unit_ids:
                probs.append(Problem(f"units[{u.id}].token_targets", f"no unit {t!r}"))
    for i, c in enumerate(scen.charges):
        charger = next((u for u in scen.units if u.id == c.charger), None)
        if charger is not None:
            mids = {m.id for m in charger.models}
            for x in c.casualties:
                if x not in mids:
                    probs.append(Problem(f"charges[{i}].casualties", f"{x!r} is not a model of {c.charger}"))
    w = build_world(scen)
    W, D = w.board
    where = {m.id: f"units[{m.unit}].models[{m.id}]" for m in w.models}
    for m in w.models:
        if m.fp.radius > MAX_BASE_IN * w.rules.inch:
            probs.append(Problem(where[m.id] + ".base", "absurdly large base"))
            continue
        xs = [p.h(__import__("numpy").array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])) for p in m.fp.parts]
        maxx = max(x[0] for x in xs)
        minx = -max(x[1] for x in xs)
        maxy = max(x[2] for x in xs)
        miny = -max(x[3] for x in xs)
        if minx < -TOL or miny < -TOL or maxx > W + TOL or maxy > D + TOL:
            probs.append(Problem(where[m.id] + ".at", f"the base is off the board ({W:g} x {D:g})"))
    # overlapping bases (same level) and bases inside terrain. A spatial index of the
    # bases' bounding boxes finds the few pairs close enough to touch (all pairs would
    # be quadratic); each candidate is then decided by the exact signed distance.
    ms = w.models
    blockers = w.end_blockers()
    if ms:
        import math

        import numpy as np

        from ...budget import check as budget_check
        from ...geometry.broad import box_hits, box_pairs, disc_bounds

        bounds = disc_bounds(np.array([m.xy for m in ms]), np.array([m.fp.radius for m in ms]))
        for i, j in box_pairs(bounds):
            budget_check()
            a, b = ms[i], ms[j]
            if abs(a.z - b.z) > 1e-9:
                continue
            if math.hypot(a.xy[0] - b.xy[0], a.xy[1] - b.xy[1]) > a.fp.radius + b.fp.radius:
                continue
            if sd_many(a.fp, a.xy[None], b.fp)[0] < -TOL:
                probs.append(Problem(where[a.id] + ".at", f"the base overlaps model {b.id}"))
        fb = disc_bounds(np.array([f.fp.center for f in blockers]), np.array([f.fp.radius for f in blockers]))
        for mi, fi in box_hits(bounds, fb):
            budget_check()
            m, f = ms[mi], blockers[fi]
            if sd_many(m.fp, m.xy[None], f.fp)[0] < -TOL:
                kind = {"ruin_wall": "a ruin wall", "wall": "a wall", "barricade": "a barricade", "impassable": "impassable terrain", "obstacle": "an obstacle"}[f.type]
                probs.append(Problem(where[m.id] + ".at", f"the base is inside {kind} ({f.ruin or f.id})"))
    return probs
