"""Seeded random scenarios in the public format (no chargeref imports), and the
transforms an outside referee applies to them (turn about the board centre, mirror).

``scenario_40k(seed)`` returns ``(scenario, request)`` where request is
``{"charger", "targets", "dice"}``. Everything is drawn from ``random.Random(seed)``,
so the same seed always gives the same file.
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any

from referee import (
    Model,
    Shape,
    _on_board,
    base_shape,
    coherency_problems,
    gap,
    separation,
    wall_shapes,
)

W, D = 60.0, 44.0
CX, CY = W / 2, D / 2
SCENE_R = 19.0  # everything within this of the centre: any turn still fits the board

ROUND = [25.0, 28.5, 32.0, 40.0, 50.0]
OVAL = [(60.0, 35.0), (75.0, 42.0), (90.0, 52.0)]
RECT = [(25.0, 50.0), (50.0, 25.0), (40.0, 40.0)]


def _base(rng: random.Random, big: bool = False) -> dict[str, Any]:
    r = rng.random()
    if big or r < 0.6:
        return {"round": rng.choice(ROUND[2:] if big else ROUND)}
    if r < 0.9:
        return {"oval": list(rng.choice(OVAL))}
    return {"rect": list(rng.choice(RECT))}


def _extent(base: dict[str, Any]) -> float:
    """Half the largest size of a base, inches."""
    v = next(iter(base.values()))
    return (max(v) if isinstance(v, list) else v) / 25.4 / 2


def _block(rng: random.Random, n: int, base: dict[str, Any], centre: tuple[float, float], heading: float,
           spacing: float) -> list[tuple[float, float]]:
    """n spots in ranks (two ranks from 6 models) round ``centre``, the ranks across
    ``heading``, neighbours ``spacing`` apart (edge to edge of the bounding discs)."""
    pitch = 2 * _extent(base) + spacing
    ranks = 1 if n < 6 else (2 if n < 14 else 3)
    files = math.ceil(n / ranks)
    ux, uy = math.cos(heading), math.sin(heading)
    lx, ly = -uy, ux
    out = []
    for i in range(n):
        r, c = divmod(i, files)
        off = (c - (files - 1) / 2) * pitch
        back = (r - (ranks - 1) / 2) * pitch
        out.append((centre[0] + lx * off - ux * back, centre[1] + ly * off - uy * back))
    return out


def _unit(uid: str, player: int, spots: list[tuple[float, float]], base: dict[str, Any], facing: float,
          keywords: list[str]) -> dict[str, Any]:
    return {"id": uid, "player": player, "keywords": keywords,
            "models": [{"id": f"{uid}{i + 1}", "at": [round(x, 4), round(y, 4)], "base": copy.deepcopy(base),
                        "facing": facing} for i, (x, y) in enumerate(spots)]}


def _shapes(u: dict[str, Any]) -> list[Shape]:
    return [base_shape(m["base"], m["at"], m.get("facing", 90.0), "in") for m in u["models"]]


def _fits(u: dict[str, Any]) -> bool:
    return all(math.hypot(s.cx - CX, s.cy - CY) + s.radius() <= SCENE_R for s in _shapes(u))


def _clear(u: dict[str, Any], others: list[dict[str, Any]], min_gap: float, walls: list[Shape]) -> bool:
    mine = _shapes(u)
    for o in others:
        for a in mine:
            for b in _shapes(o):
                if math.hypot(a.cx - b.cx, a.cy - b.cy) - a.radius() - b.radius() > min_gap:
                    continue
                if separation(a, b) <= min_gap:
                    return False
    for a in mine:
        for w in walls:
            if separation(a, w) <= 0.05:
                return False
    return True


def scenario_40k(seed: int, *, max_models: int = 20, tight: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """``tight``: bystanders stand 0.2" to 2.5" from a target's models (the charge must
    slip past their engagement range) instead of anywhere near the charger."""
    rng = random.Random(seed)
    for _attempt in range(200):
        ed = rng.choice([9, 10, 10, 11])
        rules: dict[str, Any] = {"edition": ed}
        if ed == 10:
            rules["wtc"] = rng.random() < 0.7
        er = 2.0 if ed == 11 else 1.0
        terrain: list[dict[str, Any]] = []
        walls: list[Shape] = []
        heading = rng.uniform(0, 2 * math.pi)  # from charger to targets
        ux, uy = math.cos(heading), math.sin(heading)
        n = rng.choice([1, 1, 2, 3, 5, 6, 7, 10, rng.randint(1, max_models)])
        cbase = _base(rng)
        keywords = ["INFANTRY"] if rng.random() < 0.8 else rng.choice([["MONSTER"], ["INFANTRY", "FLY"], ["BEAST"]])
        ccentre = (CX - ux * rng.uniform(4, 8), CY - uy * rng.uniform(4, 8))
        cspots = _block(rng, n, cbase, ccentre, heading, rng.uniform(0.1, 0.9))
        units = [_unit("A", 1, cspots, cbase, round(math.degrees(heading) % 360, 3), keywords)]
        if not _fits(units[0]):
            continue
        if coherency_problems([Model(str(i), "A", 1, s, 0.0, ()) for i, s in enumerate(_shapes(units[0]))],
                              ed, 1.0):
            continue
        # a wall between, sometimes
        if rng.random() < 0.3:
            mid = (ccentre[0] + ux * rng.uniform(4, 7), ccentre[1] + uy * rng.uniform(4, 7))
            L = rng.uniform(3, 8)
            p = [round(mid[0] - uy * L / 2, 3), round(mid[1] + ux * L / 2, 3)]
            q = [round(mid[0] + uy * L / 2, 3), round(mid[1] - ux * L / 2, 3)]
            if rng.random() < 0.7:
                terrain.append({"type": "ruin", "id": "R1",
                                "footprint": [[round(mid[0] - 5, 3), round(mid[1] - 5, 3)],
                                              [round(mid[0] + 5, 3), round(mid[1] - 5, 3)],
                                              [round(mid[0] + 5, 3), round(mid[1] + 5, 3)],
                                              [round(mid[0] - 5, 3), round(mid[1] + 5, 3)]],
                                "walls": [{"points": [p, q], "height": 5, "thickness": 0.2}]})
            else:
                terrain.append({"type": "wall", "id": "W1", "points": [p, q], "height": 3, "thickness": 0.3})
            walls = wall_shapes([p, q], 0.2 if terrain[-1]["type"] == "ruin" else 0.3)
            if not _clear(units[0], [], 0.0, walls):
                continue
        ntargets = rng.choice([1, 1, 1, 2, 3])
        ok = True
        targets = []
        for t in range(ntargets + rng.choice([0, 0, 1, 2])):
            is_target = t < ntargets
            tid = "BCDEFG"[t]
            tbase = _base(rng)
            tn = rng.choice([1, 1, 2, 3, 5, rng.randint(1, 10)])
            for _try in range(40):
                ang = heading + rng.uniform(-0.9, 0.9)
                dist = rng.uniform(er + 1.5, 11) if is_target else rng.uniform(er + 2, 14)
                # measured from the front of the charger
                tc = (ccentre[0] + math.cos(ang) * (dist + 2), ccentre[1] + math.sin(ang) * (dist + 2))
                if tight and not is_target:
                    pick = rng.choice(targets)
                    near = next(u for u in units if u["id"] == pick)
                    m = rng.choice(near["models"])
                    side = rng.uniform(0, 2 * math.pi)
                    reach = _extent(m["base"]) + _extent(tbase) + rng.uniform(0.2, 2.5)
                    tc = (m["at"][0] + math.cos(side) * reach, m["at"][1] + math.sin(side) * reach)
                    tn = rng.choice([1, 1, 2, 3])
                u = _unit(tid, 2, _block(rng, tn, tbase, tc, ang + math.pi, 0.3), tbase,
                          round(math.degrees(ang + math.pi) % 360, 3), ["INFANTRY"])
                if not _fits(u) or not _clear(u, units[1:], 0.2, walls) or not _clear(u, units[:1], er + 0.3, []):
                    continue
                # every target within 12" of the charger
                g = min(gap(a, b) for a in _shapes(units[0]) for b in _shapes(u))
                if is_target and g > 11.5:
                    continue
                units.append(u)
                if is_target:
                    targets.append(tid)
                break
            else:
                ok = ok and not is_target
        if not ok or not targets:
            continue
        scen = {"format": "chargeref/1", "system": "40k", "rules": rules, "board": {"width": W, "depth": D},
                "terrain": terrain, "units": units}
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        return scen, {"charger": "A", "targets": targets, "dice": dice}
    raise RuntimeError(f"seed {seed}: no scenario")


# ----------------------------------------------------------------------- transforms


def _turn_pt(p: list[float], c: float, s: float, cx: float = CX, cy: float = CY) -> list[float]:
    x, y = p[0] - cx, p[1] - cy
    out = [cx + c * x - s * y, cy + s * x + c * y]
    return out + list(p[2:])


def turned(scen: dict[str, Any], deg: float) -> dict[str, Any]:
    """The whole board turned by ``deg`` about its centre (facings too): 40k models,
    T9A formations (front and facing), Warmaster stands."""
    out = copy.deepcopy(scen)
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    bx, by = out["board"]["width"] / 2, out["board"]["depth"] / 2
    for u in out["units"]:
        for m in u.get("models", []) + u.get("stands", []):
            m["at"] = _turn_pt(m["at"], c, s, bx, by)
            m["facing"] = (m.get("facing", 90.0) + deg) % 360
        if "formation" in u:
            u["formation"]["front"] = _turn_pt(u["formation"]["front"], c, s, bx, by)
            u["formation"]["facing"] = (u["formation"]["facing"] + deg) % 360
    for t in out.get("terrain", []):
        for key in ("points", "footprint", "polygon"):
            if key in t:
                t[key] = [_turn_pt(p, c, s) for p in t[key]]
        for w in t.get("walls", []):
            w["points"] = [_turn_pt(p, c, s) for p in w["points"]]
    return out


def mirrored(scen: dict[str, Any]) -> dict[str, Any]:
    """The board mirrored left to right (x -> W - x, facing -> 180 - facing)."""
    out = copy.deepcopy(scen)

    def mp(p: list[float]) -> list[float]:
        return [W - p[0]] + list(p[1:])

    bw = out["board"]["width"]

    for u in out["units"]:
        for m in u.get("models", []) + u.get("stands", []):
            m["at"] = [bw - m["at"][0]] + list(m["at"][1:])
            m["facing"] = (180.0 - m.get("facing", 90.0)) % 360
        if "formation" in u:
            f = u["formation"]
            f["front"] = [bw - f["front"][0], f["front"][1]]
            f["facing"] = (180.0 - f["facing"]) % 360
    for t in out.get("terrain", []):
        for key in ("points", "footprint", "polygon"):
            if key in t:
                t[key] = [mp(p) for p in t[key]]
                if key != "points":
                    t[key] = t[key][::-1]
        for w in t.get("walls", []):
            w["points"] = [mp(p) for p in w["points"]]
    return out


def fits_board(scen: dict[str, Any]) -> bool:
    for u in scen["units"]:
        for m in u.get("models", []):
            if not _on_board(base_shape(m["base"], m["at"], m.get("facing", 90.0), "in"), W, D):
                return False
    return True


# ----------------------------------------------------------------------- T9A / Warmaster


def scenario_t9a(seed: int, *, around: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """A charger block and a target block (sometimes a bystander), the charger roughly
    in front of the target (``around``: on any side), at an angle; fixed dice."""
    rng = random.Random(seed)
    base = rng.choice([[20, 20], [25, 25], [25, 50], [40, 40]])
    tbase = rng.choice([[20, 20], [25, 25], [25, 50]])
    tf = rng.uniform(0, 360)
    th = math.radians(tf)
    tfront = [round(CX + rng.uniform(-4, 4), 3), round(CY + rng.uniform(-4, 4), 3)]
    tn = rng.randint(3, 20)
    target = {"id": "B", "player": 2, "formation": {"front": tfront, "facing": round(tf, 3),
                                                    "files": min(tn, rng.choice([3, 4, 5])), "models": tn,
                                                    "base": {"rect": tbase}}}
    ang = th + rng.uniform(-0.6, 0.6)
    if around:
        ang = th + rng.uniform(-math.pi, math.pi)
    dist = rng.uniform(3, 14)
    cfront = [round(tfront[0] + math.cos(ang) * dist, 3), round(tfront[1] + math.sin(ang) * dist, 3)]
    cf = (math.degrees(ang) + 180 + rng.uniform(-40, 40)) % 360
    cn = rng.randint(3, 15)
    charger = {"id": "A", "player": 1, "formation": {"front": cfront, "facing": round(cf, 3),
                                                     "files": min(cn, rng.choice([3, 4, 5])), "models": cn,
                                                     "base": {"rect": base}},
               "advance_rate": rng.choice([4, 5, 6, 8]), "march_rate": 10, "discipline": 7}
    units = [charger, target]
    if rng.random() < 0.4:
        bang = th + rng.choice([-1, 1]) * rng.uniform(0.8, 1.6)
        bd = rng.uniform(6, 12)
        units.append({"id": "C", "player": 2, "formation": {
            "front": [round(tfront[0] + math.cos(bang) * bd, 3), round(tfront[1] + math.sin(bang) * bd, 3)],
            "facing": round(rng.uniform(0, 360), 3), "files": 3, "models": rng.randint(3, 9),
            "base": {"rect": [20, 20]}}})
    scen = {"format": "chargeref/1", "system": "t9a", "board": {"width": W, "depth": D}, "units": units}
    return scen, {"charger": "A", "targets": ["B"], "dice": [rng.randint(1, 6), rng.randint(1, 6)]}


def scenario_warmaster(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A target line of stands and a charger line (infantry or cavalry), the charger
    roughly facing the target within its pace."""
    rng = random.Random(seed)
    BW, BD = 120.0, 80.0
    tf = rng.uniform(0, 360)
    th = math.radians(tf)
    ttype = rng.choice(["infantry", "cavalry"])
    tw = 4.0 if ttype == "infantry" else 2.0
    c0 = (BW / 2 + rng.uniform(-5, 5), BD / 2 + rng.uniform(-5, 5))
    lx, ly = -math.sin(th), math.cos(th)
    tstands = [{"at": [c0[0] + lx * tw * (i - 1), c0[1] + ly * tw * (i - 1)], "facing": tf}
               for i in range(3)]
    ctype = rng.choice(["infantry", "cavalry"])
    cw = 4.0 if ctype == "infantry" else 2.0
    pace = 20.0 if ctype == "infantry" else 30.0
    ang = th + rng.uniform(-0.7, 0.7)
    dist = rng.uniform(6, pace + 4)
    cc = (c0[0] + math.cos(ang) * dist, c0[1] + math.sin(ang) * dist)
    cf = (math.degrees(ang) + 180 + rng.uniform(-30, 30)) % 360
    ch = math.radians(cf)
    clx, cly = -math.sin(ch), math.cos(ch)
    cstands = [{"at": [cc[0] + clx * cw * (i - 1), cc[1] + cly * cw * (i - 1)], "facing": cf}
               for i in range(3)]
    units = [{"id": "C", "player": 1, "type": ctype, "stands": cstands},
             {"id": "E", "player": 2, "type": ttype, "stands": tstands}]
    scen = {"format": "chargeref/1", "system": "warmaster", "board": {"width": BW, "depth": BD}, "units": units}
    return scen, {"charger": "C", "targets": ["E"]}


def duel_40k(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """One model against one enemy model in the open (any bases, any facings): the
    least charge is the gap minus the engagement range, in closed form."""
    rng = random.Random(seed)
    ed = rng.choice([9, 10, 11])
    rules: dict[str, Any] = {"edition": ed}
    if ed == 10:
        rules["wtc"] = rng.random() < 0.6
    er = 2.0 if ed == 11 else 1.0
    while True:
        abase, bbase = _base(rng), _base(rng)
        a = {"id": "A1", "at": [round(CX + rng.uniform(-6, 6), 4), round(CY + rng.uniform(-6, 6), 4)],
             "base": abase, "facing": round(rng.uniform(0, 360), 3)}
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(2.5, 12)
        b = {"id": "B1", "at": [round(a["at"][0] + math.cos(ang) * d, 4), round(a["at"][1] + math.sin(ang) * d, 4)],
             "base": bbase, "facing": round(rng.uniform(0, 360), 3)}
        g = gap(base_shape(abase, a["at"], a["facing"], "in"), base_shape(bbase, b["at"], b["facing"], "in"))
        if er + 0.05 < g < 11.9:
            break
    scen = {"format": "chargeref/1", "system": "40k", "rules": rules, "board": {"width": W, "depth": D},
            "units": [{"id": "A", "player": 1, "keywords": [rng.choice(["INFANTRY", "MONSTER"])], "models": [a]},
                      {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [b]}]}
    return scen, {"charger": "A", "targets": ["B"], "dice": [rng.randint(1, 6), rng.randint(1, 6)]}


def duel_edge_40k(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A duel (see :func:`duel_40k`) with the target's base touching, or nearly, a board
    edge or corner: the straight approach stays on the board, so the closed form holds."""
    rng = random.Random(seed)
    scen, req = duel_40k(seed)
    a, b = scen["units"][0]["models"][0], scen["units"][1]["models"][0]
    shape = base_shape(b["base"], [0.0, 0.0], b["facing"], "in")
    corner = rng.random() < 0.3
    for _ in range(200):
        off = rng.choice([0.0, 0.0, 0.001, 0.3])
        b["at"] = [shape.support(-1, 0) + off, CY + rng.uniform(-10, 10)]
        if corner:
            b["at"][1] = shape.support(0, -1) + rng.choice([0.0, 0.002])
        ang = rng.uniform(-1.4, 1.4) if not corner else rng.uniform(0.05, 1.5)
        d = rng.uniform(2.5, 12)
        a["at"] = [b["at"][0] + math.cos(ang) * d, b["at"][1] + math.sin(ang) * d]
        sa = base_shape(a["base"], a["at"], a["facing"], "in")
        sb = base_shape(b["base"], b["at"], b["facing"], "in")
        er = 2.0 if scen["rules"]["edition"] == 11 else 1.0
        if _on_board(sa, W, D) and _on_board(sb, W, D) and er + 0.05 < gap(sa, sb) < 11.9:
            return scen, req
    raise RuntimeError(seed)


def wall_wtc_40k(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Edition 10 with the WTC walls rule: infantry on one side of a ruin wall, the
    target standing 0.1" to 1.9" behind its far face (often too close for a base to fit
    between), sometimes a bystander beside the target."""
    rng = random.Random(seed)
    heading = rng.uniform(0, 2 * math.pi)
    ux, uy = math.cos(heading), math.sin(heading)
    lx, ly = -uy, ux
    t = rng.choice([0.2, 0.4, 0.6])
    L = rng.uniform(6, 14)
    wc = (CX, CY)
    p = [wc[0] - lx * L / 2, wc[1] - ly * L / 2]
    q = [wc[0] + lx * L / 2, wc[1] + ly * L / 2]
    terrain = [{"type": "ruin", "id": "R", "footprint": [[CX - 9, CY - 9], [CX + 9, CY - 9], [CX + 9, CY + 9],
                                                            [CX - 9, CY + 9]],
                "walls": [{"points": [p, q], "height": 5, "thickness": t}]}]
    tbase = {"round": rng.choice([25.0, 32.0, 40.0])}
    tr = tbase["round"] / 25.4 / 2
    behind = t / 2 + rng.uniform(0.1, 1.9) + tr
    tn = rng.randint(1, 4)
    toff = rng.uniform(-L / 4, L / 4)
    tspots = _block(rng, tn, tbase, (wc[0] + ux * behind + lx * toff, wc[1] + uy * behind + ly * toff), heading, 0.2)
    tspots = [(x + ux * (behind - tr - t / 2 - 0.0) * 0, y) for x, y in tspots]
    cbase = {"round": rng.choice([25.0, 28.5, 32.0, 40.0])}
    cn = rng.randint(1, 6)
    front = t / 2 + rng.uniform(1.0, 6.0)
    cspots = _block(rng, cn, cbase, (wc[0] - ux * (front + 2) + lx * rng.uniform(-2, 2),
                                     wc[1] - uy * (front + 2) + ly * rng.uniform(-2, 2)), heading, rng.uniform(0.1, 0.8))
    units = [_unit("A", 1, cspots, cbase, round(math.degrees(heading) % 360, 3), ["INFANTRY"]),
             _unit("B", 2, tspots, tbase, round(math.degrees(heading + math.pi) % 360, 3), ["INFANTRY"])]
    if rng.random() < 0.4:
        side = rng.choice([-1, 1])
        units.append(_unit("C", 2, [(tspots[-1 if side > 0 else 0][0] + lx * side * rng.uniform(2.2, 4),
                                     tspots[-1 if side > 0 else 0][1] + ly * side * rng.uniform(2.2, 4))],
                           tbase, 0.0, ["INFANTRY"]))
    scen = {"format": "chargeref/1", "system": "40k", "rules": {"edition": 10, "wtc": True},
            "board": {"width": W, "depth": D}, "terrain": terrain, "units": units}
    return scen, {"charger": "A", "targets": ["B"], "dice": [rng.randint(1, 6), rng.randint(1, 6)]}
