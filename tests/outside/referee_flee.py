"""The outside referee for a T9A Flee reaction (rules-notes 2.8), and its generator.

Our reading: the charged unit turns about its Centre to face straight away from the
charger (along the line from the charger's Centre through its own), then moves straight
ahead the rolled 2D6; where it would end overlapping, or within 1" of, another unit's
boundary, the move is lengthened by the least amount that clears every one; a unit
whose end touches or crosses the board edge is destroyed. The referee finds that least
length itself: the "too close" set of each other unit along the flee line is an interval
of the distance (the gap between a moving convex block and a fixed one is convex along
a straight line), whose ends are found by bisection to 1e-10 (rect against rect in closed form) from a bracketing of the
convex function's minimum (ternary search), so no grid decides the answer.
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any

from referee import TOL, Finding, Shape, _unit_of, gap
from referee_blocks import t9a_block
from referee_exact import rect_rect_separation

CLEAR = 1.0  # inches: a flee ends more than this from every other unit
STOP_MARGIN = 1e-3  # how far past the least clear length the product may stop (docs/t9a.md)


def _at(block: Shape, k: float, ux: float, uy: float, h: float) -> Shape:
    return Shape(block.kind, block.cx + k * ux, block.cy + k * uy, block.a, block.b, h)


def _too_close_interval(block: Shape, other: Shape, ux: float, uy: float, h: float,
                        k0: float, k1: float) -> tuple[float, float] | None:
    """The distances k in [k0, k1] at which the turned block, moved k along u, is within
    CLEAR of ``other`` (an interval, or None)."""
    def f(k: float) -> float:
        moved = _at(block, k, ux, uy, h)
        if moved.kind == "rect" and other.kind == "rect":
            return max(0.0, rect_rect_separation(moved, other)) - CLEAR
        return gap(moved, other) - CLEAR

    lo, hi = k0, k1
    for _ in range(200):  # ternary search for the least value (f is convex in k)
        if hi - lo < 1e-9:
            break
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    kmin = (lo + hi) / 2
    if f(kmin) > 0:
        return None

    def edge(a: float, b: float) -> float:  # f(a) and f(b) on opposite sides of 0
        fa = f(a)
        for _ in range(200):
            if abs(b - a) < 1e-10:
                break
            m = (a + b) / 2
            if (f(m) > 0) == (fa > 0):
                a, fa = m, f(m)
            else:
                b = m
        return (a + b) / 2

    s = k0 if f(k0) <= 0 else edge(k0, kmin)
    e = k1 if f(k1) <= 0 else edge(kmin, k1)
    return s, e


def least_flee(scen: dict[str, Any], fleer: str, charger: str, roll: float) -> tuple[float, float, float, float]:
    """(k, ux, uy, heading): the flee's length and direction by our own construction."""
    unit = _unit_of(scen)
    units = {u["id"]: u for u in scen["units"] if "formation" in u}
    B, A = t9a_block(units[fleer], unit), t9a_block(units[charger], unit)
    dx, dy = B.cx - A.cx, B.cy - A.cy
    L = math.hypot(dx, dy)
    ux, uy = dx / L, dy / L
    h = math.atan2(uy, ux)
    far = roll + 200.0
    ivs = []
    for uid, u in units.items():
        if uid == fleer:
            continue
        iv = _too_close_interval(B, t9a_block(u, unit), ux, uy, h, roll, far)
        if iv is not None:
            ivs.append(iv)
    k = roll
    moved = True
    while moved:  # the least k >= roll outside every "too close" interval
        moved = False
        for s, e in ivs:
            if s - 1e-12 <= k < e:
                k = e
                moved = True
    return k, ux, uy, math.degrees(h) % 360


def check_flee(scen: dict[str, Any], ruling: dict[str, Any], fleer: str, dice: list[int]) -> list[Finding]:
    F: list[Finding] = []
    unit = _unit_of(scen)
    k, ux, uy, facing = least_flee(scen, fleer, ruling["charger"], float(sum(dice)) * (2.54 if unit == "cm" else 1.0))
    units0 = {u["id"]: u for u in scen["units"]}
    after = {u["id"]: u for u in (ruling.get("after") or scen)["units"]}
    B0 = t9a_block(units0[fleer], unit)
    end = _at(B0, k, ux, uy, math.radians(facing))
    W, D = float(scen["board"]["width"]), float(scen["board"]["depth"])
    # the block's extent along x and y (support functions give the farthest points)
    xmax, xmin = end.support(1, 0), -end.support(-1, 0)
    ymax, ymin = end.support(0, 1), -end.support(0, -1)
    touches = xmin <= TOL or ymin <= TOL or xmax >= W - TOL or ymax >= D - TOL
    caught = ruling.get("procedure") == "fleeing_target" or any(
        x.get("code") == "caught_fleeing" for x in ruling.get("reasons", []))
    if fleer not in after and caught:
        return F  # caught and destroyed by the charger: where it fled to is not in `after`
    if fleer not in after:
        if not touches:
            F.append(Finding("flee_destroyed", f"{fleer} removed, but its flee of {k:.6f} ends inside the board"))
        return F
    if touches and not (xmin < -TOL or ymin < -TOL or xmax > W + TOL or ymax > D + TOL):
        pass  # touching within the tolerance: either answer is defensible
    elif touches:
        F.append(Finding("flee_not_destroyed", f"{fleer} flees {k:.6f} past the board edge but stays"))
        return F
    B1 = t9a_block(after[fleer], unit)
    rel = (float(after[fleer]["formation"]["facing"]) - facing) % 360
    if min(rel, 360 - rel) > 1e-6:
        F.append(Finding("flee_facing", f"{fleer} faces {after[fleer]['formation']['facing']}, away is {facing:.6f}"))
    along = (B1.cx - B0.cx) * ux + (B1.cy - B0.cy) * uy
    across = -(B1.cx - B0.cx) * uy + (B1.cy - B0.cy) * ux
    if abs(across) > TOL:
        F.append(Finding("flee_off_line", f"{fleer}'s centre ends {across:.9f} off the flee line"))
    rolled = float(sum(dice)) * (2.54 if unit == "cm" else 1.0)
    if k <= rolled + 1e-12:
        if abs(along - k) > TOL:
            F.append(Finding("flee_length", f"{fleer} flees {along:.9f}, the roll {k:.9f} ends clear"))
    elif not (k + 1e-9 < along <= k + STOP_MARGIN + TOL):
        # at exactly k the gap is 1.000" (within 1"): the flee must go past it; the
        # product's documented margin is 0.001" (docs/t9a.md, STOP_MARGIN_IN)
        F.append(Finding("flee_length", f"{fleer} flees {along:.9f}; clear only past {k:.9f} (roll {sum(dice)}), "
                                        f"at most {STOP_MARGIN}\" past it"))
    return F


def t9a_flee(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """``outside_gen.scenario_t9a`` with the target's ranks full, a Flee reaction with
    fixed dice, and often a unit (friend or foe of the fleer) standing across the flee
    line 0.3" to 14" beyond the roll, so the flee has to be lengthened past it."""
    from outside_gen import scenario_t9a

    scen, req = scenario_t9a(seed, around=seed % 2 == 1)
    scen = copy.deepcopy(scen)
    rng = random.Random(seed * 31 + 7)
    units = {u["id"]: u for u in scen["units"]}
    f = units["B"]["formation"]
    f["models"] = max(f["files"], (f["models"] // f["files"]) * f["files"])
    dice = [rng.randint(1, 6), rng.randint(1, 6)]
    if rng.random() < 0.6:
        unit = _unit_of(scen)
        B, A = t9a_block(units["B"], unit), t9a_block(units["A"], unit)
        L = math.hypot(B.cx - A.cx, B.cy - A.cy)
        ux, uy = (B.cx - A.cx) / L, (B.cy - A.cy) / L
        d = sum(dice) + rng.uniform(0.3, 14.0)
        cx, cy = B.cx + ux * d + rng.uniform(-1.5, 1.5) * -uy, B.cy + uy * d + rng.uniform(-1.5, 1.5) * ux
        fac = rng.uniform(0, 360)
        blk = {"id": "E", "player": rng.choice([1, 2]), "formation": {
            "front": [round(cx, 3), round(cy, 3)], "facing": round(fac, 3), "files": 3, "models": 6,
            "base": {"rect": [20, 20]}}}
        e = t9a_block(blk, unit)
        if all(gap(e, t9a_block(u, unit)) > 1.5 for u in scen["units"]) and \
                0 < -e.support(-1, 0) and -e.support(0, -1) > 0 and e.support(1, 0) < scen["board"]["width"] and \
                e.support(0, 1) < scen["board"]["depth"]:
            scen["units"].append(blk)
    return scen, dict(req, reaction="flee", reaction_dice=dice)
