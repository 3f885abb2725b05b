"""Seeded random 40k scenarios for the moves made model by model (no chargeref imports):
a unit that charged standing close to the enemy (``fight_40k``: pile in, consolidate)
and a CHARACTER unit a few inches from an enemy (``heroic9_40k``: edition 9's heroic
intervention). Same conventions as ``outside_gen``: everything from ``random.Random(seed)``.
"""

from __future__ import annotations

import math
import random
from typing import Any

from outside_gen import (
    CX,
    CY,
    D,
    W,
    _base,
    _block,
    _clear,
    _extent,
    _fits,
    _shapes,
    _unit,
    wall_shapes,
)
from referee import Model, coherency_problems, gap


def _coherent(u: dict[str, Any], ed: int) -> bool:
    return not coherency_problems([Model(str(i), u["id"], 1, s, 0.0, ()) for i, s in enumerate(_shapes(u))], ed, 1.0)


def fight_40k(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Unit A (flag ``charged``) a little in front of enemy unit B: its front 0.02" to
    2.4" from B's (so some of A is engaged, some is not), sometimes a second enemy unit
    beside B, a friendly unit behind A, a ruin or free wall across part of the front.
    Request: ``{"unit": "A", "step": "pile_in" | "consolidate"}``."""
    rng = random.Random(seed)
    for _attempt in range(300):
        ed = rng.choice([9, 10, 10, 11])
        rules: dict[str, Any] = {"edition": ed}
        if ed == 10:
            rules["wtc"] = rng.random() < 0.6
        heading = rng.uniform(0, 2 * math.pi)  # from A to B
        ux, uy = math.cos(heading), math.sin(heading)
        bbase = _base(rng)
        bn = rng.choice([1, 2, 3, 5, rng.randint(1, 10)])
        bspots = _block(rng, bn, bbase, (CX + ux * 3, CY + uy * 3), heading + math.pi, rng.uniform(0.05, 1.5))
        B = _unit("B", 2, bspots, bbase, round(math.degrees(heading + math.pi) % 360, 3),
                  ["INFANTRY"] if rng.random() < 0.8 else ["MONSTER"])
        abase = _base(rng)
        an = rng.choice([1, 2, 3, 5, 6, 7, 10, rng.randint(1, 12)])
        akw = ["INFANTRY"] if rng.random() < 0.75 else rng.choice([["MONSTER"], ["BEAST"], ["VEHICLE"]])
        front = rng.uniform(0.02, 2.4)
        # centre distance so the two blocks' nearest ranks are about ``front`` apart
        ranks_a = 1 if an < 6 else (2 if an < 14 else 3)
        ranks_b = 1 if bn < 6 else (2 if bn < 14 else 3)
        sa, sb = rng.uniform(0.05, 1.2), 0.0
        pa = 2 * _extent(abase) + sa
        pb = 2 * _extent(bbase) + sb
        depth = (ranks_a - 1) / 2 * pa + (ranks_b - 1) / 2 * pb + _extent(abase) + _extent(bbase) + front
        lat = rng.uniform(-2.5, 2.5)
        ac = (CX + ux * 3 - ux * depth - uy * lat, CY + uy * 3 - uy * depth + ux * lat)
        A = _unit("A", 1, _block(rng, an, abase, ac, heading, sa), abase, round(math.degrees(heading) % 360, 3), akw)
        A["flags"] = ["charged"]
        units = [A, B]
        if not (_fits(A) and _fits(B) and _coherent(A, ed) and _coherent(B, ed)):
            continue
        if not _clear(A, [B], 0.01, []):
            continue
        if min(gap(a, b) for a in _shapes(A) for b in _shapes(B)) > (2.0 if ed == 11 else 1.0):
            continue  # A must stand engaged (it charged and fights)
        terrain: list[dict[str, Any]] = []
        walls = []
        if rng.random() < 0.25:
            # a wall beside the fight, parallel to the heading, off to one side
            side = rng.choice([-1, 1]) * rng.uniform(2.0, 5.0)
            mx, my = CX + ux * 1.5 - uy * side, CY + uy * 1.5 + ux * side
            L = rng.uniform(2, 6)
            p = [round(mx - ux * L / 2, 3), round(my - uy * L / 2, 3)]
            q = [round(mx + ux * L / 2, 3), round(my + uy * L / 2, 3)]
            if rng.random() < 0.6:
                terrain.append({"type": "ruin", "id": "R1",
                                "footprint": [[round(mx - 4, 3), round(my - 4, 3)], [round(mx + 4, 3), round(my - 4, 3)],
                                              [round(mx + 4, 3), round(my + 4, 3)], [round(mx - 4, 3), round(my + 4, 3)]],
                                "walls": [{"points": [p, q], "height": 5, "thickness": 0.2}]})
                walls = wall_shapes([p, q], 0.2)
            else:
                terrain.append({"type": "wall", "id": "W1", "points": [p, q], "height": 3, "thickness": 0.3})
                walls = wall_shapes([p, q], 0.3)
            if not _clear(A, [], 0.0, walls) or not _clear(B, [], 0.0, walls):
                continue
        ok = True
        if rng.random() < 0.4:  # another enemy unit beside B
            cbase = _base(rng)
            side = rng.choice([-1, 1])
            for _try in range(30):
                off = rng.uniform(1.5, 6.0)
                cc = (CX + ux * rng.uniform(1, 4) - uy * side * (off + 2), CY + uy * rng.uniform(1, 4) + ux * side * (off + 2))
                C = _unit("C", 2, _block(rng, rng.choice([1, 2, 3]), cbase, cc, heading + math.pi, 0.3), cbase,
                          round(math.degrees(heading + math.pi) % 360, 3), ["INFANTRY"])
                if _fits(C) and _coherent(C, ed) and _clear(C, units, 0.05, walls):
                    units.append(C)
                    break
            else:
                ok = False
        if ok and rng.random() < 0.3:  # a friendly unit behind A
            fbase = _base(rng)
            for _try in range(30):
                back = rng.uniform(2.5, 6.0)
                fc = (ac[0] - ux * back + uy * rng.uniform(-2, 2), ac[1] - uy * back - ux * rng.uniform(-2, 2))
                Fu = _unit("F", 1, _block(rng, rng.choice([1, 2, 3]), fbase, fc, heading, 0.3), fbase,
                           round(math.degrees(heading) % 360, 3), ["INFANTRY"])
                if _fits(Fu) and _coherent(Fu, ed) and _clear(Fu, units, 0.05, walls):
                    units.append(Fu)
                    break
        if not ok:
            continue
        scen = {"format": "chargeref/1", "system": "40k", "rules": rules, "board": {"width": W, "depth": D},
                "terrain": terrain, "units": units}
        return scen, {"unit": "A", "step": rng.choice(["pile_in", "pile_in", "consolidate"])}
    raise RuntimeError(f"seed {seed}: no scenario")


def heroic9_40k(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Edition 9: CHARACTER unit H (1-3 models) 0.9" to 3.2" from the nearest model of an
    enemy unit E (so eligibility is tested on both sides of its 1" and 3" edges).
    Request: ``{"unit": "H"}``."""
    rng = random.Random(seed)
    for _attempt in range(300):
        heading = rng.uniform(0, 2 * math.pi)
        ux, uy = math.cos(heading), math.sin(heading)
        ebase = _base(rng)
        en = rng.choice([1, 2, 3, 5])
        E = _unit("E", 2, _block(rng, en, ebase, (CX, CY), heading + math.pi, 0.4), ebase,
                  round(math.degrees(heading + math.pi) % 360, 3), ["INFANTRY"])
        hbase = _base(rng)
        hn = rng.choice([1, 1, 2, 3])
        want = rng.choice([rng.uniform(0.9, 3.2), 1.0, 3.0, rng.uniform(1.05, 2.95)])
        lat = rng.uniform(-2, 2)
        # place H far, then slide it in along the heading until its gap is ``want``
        hc0 = (CX - ux * 12 - uy * lat, CY - uy * 12 + ux * lat)
        spots0 = _block(rng, hn, hbase, hc0, heading, 0.2)
        H0 = _unit("H", 1, spots0, hbase, round(math.degrees(heading) % 360, 3), ["INFANTRY", "CHARACTER"])
        g = min(gap(a, b) for a in _shapes(H0) for b in _shapes(E))
        lo, hi = 0.0, 12.0
        for _ in range(80):
            mid = (lo + hi) / 2
            H = _unit("H", 1, [(x + ux * mid, y + uy * mid) for x, y in spots0], hbase,
                      round(math.degrees(heading) % 360, 3), ["INFANTRY", "CHARACTER"])
            g = min(gap(a, b) for a in _shapes(H) for b in _shapes(E))
            if g > want:
                lo = mid
            else:
                hi = mid
        H = _unit("H", 1, [(x + ux * lo, y + uy * lo) for x, y in spots0], hbase,
                  round(math.degrees(heading) % 360, 3), ["INFANTRY", "CHARACTER"])
        for m, (x, y) in zip(H["models"], spots0, strict=True):
            m["at"] = [round(x + ux * lo, 9), round(y + uy * lo, 9)]
        if rng.random() < 0.15:
            H["keywords"] = ["INFANTRY"]  # not a CHARACTER: never eligible
        if not (_fits(H) and _fits(E) and _coherent(H, 9)):
            continue
        if not _clear(H, [E], 0.01, []):
            continue
        scen = {"format": "chargeref/1", "system": "40k", "rules": {"edition": 9},
                "board": {"width": W, "depth": D}, "units": [H, E]}
        return scen, {"unit": "H"}
    raise RuntimeError(f"seed {seed}: no scenario")


def phase_40k(seed: int) -> dict[str, Any]:
    """A charge phase: ``outside_gen.scenario_40k(seed)`` with a second friendly unit Z
    (1-3 models) 2" to 9" from one of A's targets, and ``charges:`` A against its targets
    (the generated dice), Z against that target (dice of its own), then A again (a unit
    charges at most once a phase)."""
    from outside_gen import scenario_40k

    scen, req = scenario_40k(seed)
    rng = random.Random(seed * 7 + 1)
    ed = scen["rules"]["edition"]
    walls = [w for t in scen.get("terrain", []) for w in (
        wall_shapes(t["points"], t.get("thickness", 0.2)) if t["type"] == "wall" else
        [s for wl in t.get("walls", []) for s in wall_shapes(wl["points"], wl.get("thickness", 0.2))])]
    tgt = rng.choice(req["targets"])
    tu = next(u for u in scen["units"] if u["id"] == tgt)
    zbase = _base(rng)
    for _try in range(200):
        m = rng.choice(tu["models"])
        ang = rng.uniform(0, 2 * math.pi)
        d = _extent(m["base"]) + _extent(zbase) + rng.uniform(2.0, 9.0)
        zc = (m["at"][0] + math.cos(ang) * d, m["at"][1] + math.sin(ang) * d)
        Z = _unit("Z", 1, _block(rng, rng.choice([1, 2, 3]), zbase, zc, ang + math.pi, 0.3), zbase,
                  round(math.degrees(ang + math.pi) % 360, 3), ["INFANTRY"])
        if not (_fits(Z) and _coherent(Z, ed)):
            continue
        enemies = [u for u in scen["units"] if u["player"] == 2]
        if not _clear(Z, [u for u in scen["units"] if u["player"] == 1], 0.3, walls):
            continue
        if not _clear(Z, enemies, (2.0 if ed == 11 else 1.0) + 0.3, []):
            continue
        if min(gap(a, b) for a in _shapes(Z) for b in _shapes(tu)) > 11.5:
            continue
        scen["units"].append(Z)
        scen["charges"] = [
            {"charger": "A", "targets": req["targets"], "dice": req["dice"]},
            {"charger": "Z", "targets": [tgt], "dice": [rng.randint(1, 6), rng.randint(1, 6)]},
            {"charger": "A", "targets": req["targets"], "dice": [6, 6]},
        ]
        return scen
    raise RuntimeError(f"seed {seed}: no Z")


def ed11_spread_40k(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Edition 11: unit A in one long rank (6.5" to 8.9" from end to end, so its 9"
    spread limit is near) charging one or two enemy units standing well apart ahead of
    it, so that fanning out toward both would break the 9"; sometimes a bystander enemy
    between them (2" engagement range at the end only)."""
    rng = random.Random(seed)
    for _attempt in range(300):
        heading = rng.uniform(0, 2 * math.pi)
        ux, uy = math.cos(heading), math.sin(heading)
        lx, ly = -uy, ux
        abase = {"round": rng.choice([25.0, 28.5, 32.0])}
        n = rng.randint(4, 9)
        e = _extent(abase)
        length = rng.uniform(6.5, 8.9)
        spacing = (length - 2 * e) / (n - 1) - 2 * e
        if not 0.05 <= spacing <= 1.9:
            continue
        ac = (CX - ux * 5, CY - uy * 5)
        spots = [(ac[0] + lx * (i - (n - 1) / 2) * (2 * e + spacing), ac[1] + ly * (i - (n - 1) / 2) * (2 * e + spacing))
                 for i in range(n)]
        A = _unit("A", 1, spots, abase, round(math.degrees(heading) % 360, 3), ["INFANTRY"])
        units = [A]
        targets = []
        spread = rng.uniform(4, 9)
        for tid, side in (("B", -1), ("C", 1))[: rng.choice([1, 2, 2])]:
            tbase = _base(rng)
            ahead = rng.uniform(3.0, 8.0)
            tc = (ac[0] + ux * ahead + lx * side * spread, ac[1] + uy * ahead + ly * side * spread)
            T = _unit(tid, 2, _block(rng, rng.choice([1, 2, 3]), tbase, tc, heading + math.pi, 0.3), tbase,
                      round(math.degrees(heading + math.pi) % 360, 3), ["INFANTRY"])
            units.append(T)
            targets.append(tid)
        if rng.random() < 0.3:
            bbase = _base(rng)
            bc = (ac[0] + ux * rng.uniform(4, 8), ac[1] + uy * rng.uniform(4, 8))
            units.append(_unit("D", 2, [bc], bbase, 0.0, ["INFANTRY"]))
        if not all(_fits(u) for u in units) or not _coherent(A, 11):
            continue
        if not all(_clear(u, [o for o in units if o is not u and o["player"] != u["player"]], 2.3, [])
                   for u in units[1:]):
            continue
        if not all(_clear(u, [o for o in units[1:] if o is not u], 0.2, []) for u in units[1:]):
            continue
        if any(min(gap(a, b) for a in _shapes(A) for b in _shapes(u)) > 11.5 for u in units[1:]):
            continue
        scen = {"format": "chargeref/1", "system": "40k", "rules": {"edition": 11}, "board": {"width": W, "depth": D},
                "units": units}
        return scen, {"charger": "A", "targets": targets, "dice": [rng.randint(2, 6), rng.randint(2, 6)]}
    raise RuntimeError(f"seed {seed}: no scenario")
