"""The outside referee for the 40k moves made model by model: pile-in, consolidation
(``chargeref fight``) and edition 9's heroic intervention (``chargeref heroic``).

Our own reading of the rules (rules-notes 1.10, 1.11, 1.13; seed 000 for the tokens),
checked on the ruling's end state with the referee's exact geometry:

* only the fighting unit's models move; ``after`` agrees with ``moves``; every move is
  at most 3" long and never shorter than the straight line from its start to its end;
* a model that moves ends closer to the enemy model that was closest to it when the move
  began (ties: any of the equally closest);
* nothing ends overlapping another model, inside a wall, or off the board; no path
  crosses an enemy base, nor (edition 9) a friendly base, nor a MONSTER or VEHICLE a
  friendly MONSTER or VEHICLE; no path crosses a free-standing wall, and only INFANTRY,
  BEAST and SWARM cross ruin walls;
* the unit ends coherent (edition 11: every model within 9" of every other too);
* editions 10 and 11: if any model moved, the unit ends engaged with an enemy unit; a
  model that moved and ends out of base contact could not have reached base contact:
  the straight move that closes its gap to one enemy model (at most 3", clear of every
  model before and after the move and of every wall, on the board, keeping the unit
  coherent with its mates where they ended, still closer to its closest enemy) is a
  witness that it could, and such a witness is a finding.
"""

from __future__ import annotations

import math
from typing import Any

import referee_exact
from referee import (
    TOL,
    Finding,
    Model,
    _on_board,
    coherency_problems,
    edition_of,
    gap,
    inch,
    least_separation_along,
    least_separation_along_arc,
    models_40k,
    moved,
    path_pieces,
    separation,
    terrain_shapes,
)

MOVE = 3.0  # pile-in, consolidation and edition 9's heroic intervention, inches
CROSS_RUINS = {"INFANTRY", "BEAST", "SWARM"}


def _free_walls(doc: dict[str, Any], k: float) -> set[str]:
    return {t["id"] for t in doc.get("terrain", []) or [] if t["type"] == "wall"}


def closest_enemies(before: dict[str, Model], m: Model) -> tuple[float, list[str]]:
    """The gap to the closest enemy model and every enemy model that close (1e-9)."""
    gs = [(gap(m.shape, o.shape), o.id) for o in before.values() if o.player != m.player]
    if not gs:
        return math.inf, []
    g0 = min(g for g, _ in gs)
    return g0, [i for g, i in gs if g <= g0 + 1e-9]


def pieces_of(mv: dict[str, Any]) -> list[dict[str, Any]]:
    """The move's pieces: its ``segments``, else its ``path`` polyline, else from -> to."""
    if mv.get("segments"):
        return path_pieces(mv)
    pts = mv.get("path")
    if pts and len(pts) >= 2:
        return [{"kind": "line", "from": list(p[:2]), "to": list(q[:2])} for p, q in zip(pts, pts[1:], strict=False)]
    return path_pieces(mv)


def _crosses(m0: Model, pieces: list[dict[str, Any]], shape: Any) -> float:
    s_min = math.inf
    for seg in pieces:
        if seg.get("kind") == "line":
            s_min = min(s_min, least_separation_along(m0.shape, seg["from"], seg["to"], shape))
        elif seg.get("kind") == "arc":
            s_min = min(s_min, least_separation_along_arc(m0.shape, seg, shape))
    return s_min


def friend_order_problems(moves: dict[str, Any], before: dict[str, Model], after: dict[str, Model], ed: int,
                          F: list[Finding]) -> None:
    """Friends a path may not cross (edition 9: any; a MONSTER or VEHICLE: a friendly
    MONSTER or VEHICLE). The models move one after another, so a mate stands either where
    it started or where it ended: crossing a mate's start means the mate moved first,
    crossing its end means it moved later. A finding when a path crosses a mate at both
    places, or when no order of the moves meets every such need (a cycle)."""
    first: dict[str, set[str]] = {mid: set() for mid in moves}  # mid -> models that must move before it
    for mid, mv in moves.items():
        m0 = before.get(mid)
        if m0 is None or "FLY" in m0.keywords or (mv.get("facing") is not None and m0.shape.kind != "disc"):
            continue
        big = {"MONSTER", "VEHICLE"} & set(m0.keywords)
        pcs = pieces_of(mv)
        for o in before.values():
            if o.id == mid or o.player != m0.player or abs(o.z - m0.z) > 1e-9:
                continue
            if not (ed == 9 or (big and {"MONSTER", "VEHICLE"} & set(o.keywords))):
                continue
            at_start = _crosses(m0, pcs, o.shape) < -TOL
            at_end = o.id in moves and _crosses(m0, pcs, after[o.id].shape) < -TOL
            code = "path_through_mate" if o.unit == m0.unit else "path_through_friend"
            if o.id not in moves:
                if at_start:
                    F.append(Finding(code, f"{mid}'s path crosses {o.id}, which stays put"))
            elif at_start and at_end:
                F.append(Finding(code, f"{mid}'s path crosses {o.id} where it starts and ends"))
            elif at_start:
                first[mid].add(o.id)
            elif at_end:
                first[o.id].add(mid)
    # an order exists iff the "moves before" graph has no cycle
    state: dict[str, int] = {}

    def cyc(v: str) -> bool:
        state[v] = 1
        for w in first[v]:
            if state.get(w) == 1 or (w not in state and cyc(w)):
                return True
        state[v] = 2
        return False

    for v in first:
        if v not in state and cyc(v):
            F.append(Finding("path_through_mate", f"no order of the moves lets every path pass its mates ({v})"))
            break


def _path_clear(m0: Model, pieces: list[dict[str, Any]], others: list[Model], walls: list[tuple[str, Any]],
                free: set[str], ed: int, k: float, F: list[Finding] | None, mid: str,
                friends: bool = True) -> bool:
    ok = True
    big = {"MONSTER", "VEHICLE"} & set(m0.keywords)
    for seg in pieces:
        kind = seg.get("kind")
        if kind not in ("line", "arc"):
            continue
        checks: list[tuple[str, Any, str]] = []
        for o in others:
            if o.id == m0.id or abs(o.z - m0.z) > 1e-9:
                continue
            if o.player != m0.player:
                checks.append(("path_through_enemy", o.shape, o.id))
            elif friends and (ed == 9 or (big and {"MONSTER", "VEHICLE"} & set(o.keywords))):
                checks.append(("path_through_friend", o.shape, o.id))
        for wid, w in walls:
            if wid in free or not (CROSS_RUINS & set(m0.keywords)):
                checks.append(("path_through_wall", w, wid))
        for code, shape, oid in checks:
            if kind == "line":
                s = least_separation_along(m0.shape, seg["from"], seg["to"], shape)
            else:
                s = least_separation_along_arc(m0.shape, seg, shape)
            if s < -TOL:
                ok = False
                if F is not None:
                    F.append(Finding(code, f"{mid}'s path comes {s:.6f} into {oid}"))
    return ok


def check_fight(scen: dict[str, Any], ruling: dict[str, Any], unit: str, *, kind: str = "pile_in",
                keep: set[str] | frozenset[str] = frozenset()) -> list[Finding]:
    """``kind``: ``pile_in``, ``consolidate`` or ``heroic`` (edition 9)."""
    F: list[Finding] = []
    ed, _wtc = edition_of(scen)
    k = inch(scen)
    er = (2.0 if ed == 11 else 1.0) * k
    before = models_40k(scen)
    after_doc = ruling.get("after") or scen
    after = models_40k(after_doc)
    moves = {m["id"]: m for m in ruling.get("moves", [])}
    board = scen["board"]
    walls = terrain_shapes(scen, k)
    free = _free_walls(scen, k)

    for mid, m in before.items():
        a = after.get(mid)
        if a is None:
            F.append(Finding("model_lost", f"{mid} is missing from `after`"))
            continue
        if mid in moves:
            to = moves[mid]["to"]
            if math.hypot(a.shape.cx - to[0], a.shape.cy - to[1]) > TOL:
                F.append(Finding("after_disagrees", f"{mid}: after ({a.shape.cx}, {a.shape.cy}), moves.to {to}"))
            if m.unit != unit:
                F.append(Finding("wrong_unit_moved", mid))
            if mid in keep:
                F.append(Finding("held_model_moved", mid))
        elif math.hypot(a.shape.cx - m.shape.cx, a.shape.cy - m.shape.cy) > TOL:
            F.append(Finding("unlisted_move", f"{mid} moved in `after` but is not in moves"))

    # lengths, and each moved model ends closer to the enemy model closest to it
    for mid, mv in moves.items():
        m0 = before.get(mid)
        if m0 is None:
            F.append(Finding("unknown_model", mid))
            continue
        fr, to = mv["from"], mv["to"]
        if math.hypot(m0.shape.cx - fr[0], m0.shape.cy - fr[1]) > TOL:
            F.append(Finding("from_wrong", f"{mid}: from {fr}"))
        straight = math.hypot(to[0] - fr[0], to[1] - fr[1])
        d = float(mv["distance"])
        if d < straight - TOL:
            F.append(Finding("shorter_than_straight", f"{mid}: distance {d} < straight {straight}"))
        if max(d, straight) > MOVE * k + TOL:
            F.append(Finding("over_3", f"{mid}: distance {d}, straight {straight}"))
        if mv.get("segments"):
            total = 0.0
            for seg in mv["segments"]:
                if seg.get("kind") == "line":
                    total += math.hypot(seg["to"][0] - seg["from"][0], seg["to"][1] - seg["from"][1])
                elif seg.get("kind") == "arc":
                    _cx, _cy, r, _t0, span = referee_exact.arc_angles(seg)
                    total += abs(span) * r
                else:
                    total = math.nan
                    break
            if not math.isnan(total) and total > d + TOL:
                F.append(Finding("segments_longer", f"{mid}: segments {total:.6f} > distance {d}"))
        g0, refs = closest_enemies(before, m0)
        if not refs:
            continue
        a1 = after[mid]
        g1 = min(gap(a1.shape, after[r].shape) for r in refs)
        if g1 >= g0:
            F.append(Finding("not_closer_to_closest", f"{mid}: {g0:.9f} -> {g1:.9f} to {refs}"))

    # end state: overlaps, walls, board
    ams = list(after.values())
    for i in range(len(ams)):
        for j in range(i + 1, len(ams)):
            A, B = ams[i], ams[j]
            if (A.id not in moves and B.id not in moves) or abs(A.z - B.z) > 1e-9:
                continue
            if A.shape.radius() + B.shape.radius() < math.hypot(A.shape.cx - B.shape.cx, A.shape.cy - B.shape.cy):
                continue
            s = separation(A.shape, B.shape)
            if s < -TOL:
                F.append(Finding("overlap", f"{A.id} and {B.id} overlap by {-s:.6f}"))
    for mid in moves:
        a = after.get(mid)
        if a is None:
            continue
        if not _on_board(a.shape, float(board["width"]), float(board["depth"])):
            F.append(Finding("off_board", mid))
        for wid, w in walls:
            if a.z <= 1e-9 and separation(a.shape, w) < -TOL:
                F.append(Finding("in_wall", f"{mid} ends inside {wid}"))

    # paths
    others = list(before.values())
    for mid, mv in moves.items():
        m0 = before.get(mid)
        if m0 is None or "FLY" in m0.keywords:
            continue
        if mv.get("facing") is not None and m0.shape.kind != "disc":
            continue  # a turning base: its pose along the path is not recorded here
        _path_clear(m0, pieces_of(mv), others, walls, free, ed, k, F, mid, friends=False)
    friend_order_problems(moves, before, after, ed, F)

    mine = [m for m in after.values() if m.unit == unit]
    if moves:
        for p in coherency_problems(mine, ed, k):
            F.append(Finding("coherency", p))

    if ed in (10, 11) and kind in ("pile_in", "consolidate") and moves:
        reach = 2.0 * k if walls or any(t["type"] == "barricade" for t in scen.get("terrain", []) or []) else er
        engaged = any(gap(a.shape, b.shape) <= reach + TOL for a in mine for b in after.values()
                      if b.player != a.player and abs(a.z - b.z) <= 5 * k + TOL)
        if not engaged:
            F.append(Finding("moved_but_not_engaged", f"{unit} moved but ends engaged with no enemy"))

    # base contact where a model can (editions 10 and 11): a witness is a finding
    if ed in (10, 11) and kind in ("pile_in", "consolidate"):
        F.extend(_contact_witnesses(scen, before, after, moves, unit, ed, k, walls, free, keep))
    return F


def _contact_witnesses(scen: dict[str, Any], before: dict[str, Model], after: dict[str, Model],
                       moves: dict[str, Any], unit: str, ed: int, k: float, walls: list[tuple[str, Any]],
                       free: set[str], keep: set[str] | frozenset[str]) -> list[Finding]:
    F: list[Finding] = []
    board = scen["board"]
    tokens = {m["id"] for u in scen["units"] for m in u.get("models", []) if m.get("token")}
    for mid, mv in moves.items():
        if mid in keep or mid in tokens or mv.get("token"):
            continue
        m0, a1 = before[mid], after[mid]
        if m0.z > 1e-9 or "FLY" in m0.keywords:
            continue
        enemies = [o for o in after.values() if o.player != m0.player]
        if any(gap(a1.shape, o.shape) <= TOL for o in enemies):
            continue
        g0, refs = closest_enemies(before, m0)
        for e in enemies:
            g, ux, uy = referee_exact.separation_w(m0.shape, e.shape)
            if g <= TOL or g > MOVE * k - 1e-4:
                continue
            end = moved(m0.shape, m0.shape.cx + g * ux, m0.shape.cy + g * uy)
            if not _on_board(end, float(board["width"]), float(board["depth"])):
                continue
            # clear of every other model where it stood and where it stands now
            rest = [o for o in list(before.values()) + list(after.values()) if o.id != mid]
            if any(separation(end, o.shape) < 1e-4 for o in rest if o.id != e.id):
                continue
            if any(separation(end, w) < 1e-4 for _, w in walls):
                continue
            seg = [{"kind": "line", "from": [m0.shape.cx, m0.shape.cy], "to": [end.cx, end.cy]}]
            probe = Model(mid, m0.unit, m0.player, m0.shape, m0.z, m0.keywords)
            if not _path_clear(probe, seg, [o for o in rest if o.id != e.id], walls, free, ed, k, None, mid):
                continue
            if any(least_separation_along(m0.shape, seg[0]["from"], seg[0]["to"], w) < 1e-4 for _, w in walls):
                continue
            if min(gap(end, after[r].shape) for r in refs) >= g0 - 1e-4:
                continue
            mates = [o for o in after.values() if o.unit == unit and o.id != mid]
            mates.append(Model(mid, m0.unit, m0.player, end, m0.z, m0.keywords))
            if coherency_problems(mates, ed, k):
                continue
            g1 = min(gap(a1.shape, o.shape) for o in enemies)
            F.append(Finding("no_base_contact", f"{mid} ends {g1:.6f} from the nearest enemy model, but a straight "
                                                f"{g:.6f}\" move reaches base contact with {e.id}"))
            break
    return F


def check_heroic9(scen: dict[str, Any], ruling: dict[str, Any], unit: str) -> list[Finding]:
    """Edition 9's heroic intervention: a CHARACTER unit not within engagement range of an
    enemy and within 3" (5" vertically) of an enemy unit may move each model up to 3",
    each ending closer to the enemy model closest to it, the unit coherent."""
    F: list[Finding] = []
    k = inch(scen)
    before = models_40k(scen)
    mine = [m for m in before.values() if m.unit == unit]
    foes = [o for o in before.values() if o.player != mine[0].player]
    gaps = [gap(a.shape, b.shape) for a in mine for b in foes if abs(a.z - b.z) <= 5 * k + TOL]
    near = min(gaps) if gaps else math.inf
    kw = set(next(u for u in scen["units"] if u["id"] == unit).get("keywords", []))
    may = "CHARACTER" in kw and near > 1.0 * k + TOL and near <= 3.0 * k + TOL
    if bool(ruling.get("eligible")) != may:
        F.append(Finding("heroic_eligibility", f"eligible {ruling.get('eligible')}, closest enemy {near:.9f}, "
                                               f"CHARACTER {'CHARACTER' in kw}"))
    if not may:
        if ruling.get("moves"):
            F.append(Finding("moved_when_ineligible", str(sorted(m["id"] for m in ruling["moves"]))))
        return F
    return F + check_fight(scen, ruling, unit, kind="heroic")


def charge_duty_witnesses(scen: dict[str, Any], ruling: dict[str, Any]) -> list[Finding]:
    """A charge's per-model duty, by a witness: edition 10 with the WTC procedure, a
    model that can reach base contact with a target must; edition 11, a model that can
    end within 1" of a target must. A moved model that ends short of that duty although
    a straight move of it alone (within the roll, clear of every model where it stood
    and where it ended, of every wall, and in editions 9 and 10 of the engagement range
    of every non-target enemy model; ending on the board, out of every non-target's
    engagement range, the unit coherent with its mates where they ended and still
    engaged with every target) would meet it
    is a finding. Successful charges only; token models and FLY are skipped."""
    F: list[Finding] = []
    if not ruling.get("success"):
        return F
    ed, wtc = edition_of(scen)
    if not ((ed == 10 and wtc) or ed == 11):
        return F
    k = inch(scen)
    er = (2.0 if ed == 11 else 1.0) * k
    goal = 0.0 if ed == 10 else 1.0 * k
    roll = float(ruling["roll"]["total"]) * k
    unit = ruling["charger"]
    targets = set(ruling.get("targets") or [])
    before = models_40k(scen)
    after = models_40k(ruling.get("after") or scen)
    moves = {m["id"]: m for m in ruling.get("moves", [])}
    walls = terrain_shapes(scen, k)
    board = scen["board"]
    for mid, mv in moves.items():
        if mv.get("token"):
            continue
        m0, a1 = before[mid], after[mid]
        if m0.z > 1e-9 or "FLY" in m0.keywords or m0.shape.kind != "disc":
            continue  # (non-round bases may turn: their poses are not rebuilt here)
        tms = [o for o in after.values() if o.unit in targets]
        if any(gap(a1.shape, o.shape) <= goal + TOL for o in tms):
            continue
        nontargets = [o for o in after.values() if o.player != m0.player and o.unit not in targets]
        rest = [o for o in list(before.values()) + list(after.values()) if o.id != mid]
        for e in tms:
            g, ux, uy = referee_exact.separation_w(m0.shape, e.shape)
            L = g - goal / 2 if goal else g  # ed 11: end half-way inside the 1"
            if L <= TOL or L > roll - 1e-4:
                continue
            end = moved(m0.shape, m0.shape.cx + L * ux, m0.shape.cy + L * uy)
            if not _on_board(end, float(board["width"]), float(board["depth"])):
                continue
            if any(separation(end, o.shape) < 1e-4 for o in rest if o.id != e.id):
                continue
            if any(separation(end, w) < 1e-4 for _, w in walls):
                continue
            if any(gap(end, o.shape) <= er + 1e-4 for o in nontargets):
                continue
            fr, to = [m0.shape.cx, m0.shape.cy], [end.cx, end.cy]
            if any(least_separation_along(m0.shape, fr, to, o.shape) < 1e-4 for o in rest if o.id != e.id):
                continue
            if any(least_separation_along(m0.shape, fr, to, w) < 1e-4 for _, w in walls):
                continue
            if ed in (9, 10) and any(least_separation_along(m0.shape, fr, to, o.shape) <= er + 1e-4
                                     for o in nontargets):
                continue
            mates = [o for o in after.values() if o.unit == unit and o.id != mid]
            mates.append(Model(mid, m0.unit, m0.player, end, m0.z, m0.keywords))
            if coherency_problems(mates, ed, k):
                continue
            # the unit still engages every target with the model moved
            if not all(any(gap(a.shape, o.shape) <= er - 1e-4 for a in mates for o in tms if o.unit == t)
                       for t in targets):
                continue
            g1 = min(gap(a1.shape, o.shape) for o in tms)
            code = "charge_no_base_contact" if ed == 10 else "charge_not_within_1"
            F.append(Finding(code, f"{mid} ends {g1:.6f} from its targets; a straight {L:.6f}\" move to {e.id} "
                                   f"(roll {roll:g}) meets the duty"))
            break
    return F
