"""The outside referee for T9A (rank-and-file blocks) and Warmaster (stands): the
lighter checks, on the geometry of ``referee.py`` (see its docstring). Imports nothing
from chargeref."""

from __future__ import annotations

import math
from typing import Any

from referee import TOL, Finding, Shape, _mm, _unit_of, base_shape, gap, parse_base, separation

# ----------------------------------------------------------------------- T9A


def t9a_models(doc: dict[str, Any]) -> dict[str, tuple[str, int, Shape]]:
    """Every rank-and-file model's footprint, ids ``UNIT.i`` numbered rank by rank from
    the front, left to right as the unit faces; a short last rank is centred."""
    unit = _unit_of(doc)
    mm = _mm(unit)
    out = {}
    for u in doc["units"]:
        f = u["formation"]
        kind, s1, s2 = parse_base(f["base"])
        files, n = int(f["files"]), int(f["models"])
        h = math.radians(float(f["facing"]))
        fx, fy = math.cos(h), math.sin(h)
        lx, ly = -fy, fx  # left of the facing
        if kind == "round":
            w = d = s1 * mm
        else:
            w, d = s1 * mm, s2 * mm
        ranks = math.ceil(n / files)
        for i in range(n):
            r, c = divmod(i, files)
            in_rank = files if r < ranks - 1 else n - files * (ranks - 1)
            off = (c - (in_rank - 1) / 2) * w
            back = (r + 0.5) * d
            cx = f["front"][0] - fx * back - lx * off
            cy = f["front"][1] - fy * back - ly * off
            if kind == "round":
                shape = Shape("disc", cx, cy, w / 2)
            else:
                shape = Shape("rect", cx, cy, d / 2, w / 2, h)
            out[f"{u['id']}.{i}"] = (u["id"], int(u["player"]), shape)
    return out


def t9a_block(u: dict[str, Any], unit: str) -> Shape:
    f = u["formation"]
    mm = _mm(unit)
    kind, s1, s2 = parse_base(f["base"])
    files, n = int(f["files"]), int(f["models"])
    w, d = (s1 * mm, s1 * mm) if kind == "round" else (s1 * mm, s2 * mm)
    if kind == "round" and n == 1:
        return Shape("disc", f["front"][0] - math.cos(math.radians(f["facing"])) * w / 2,
                     f["front"][1] - math.sin(math.radians(f["facing"])) * w / 2, w / 2)
    ranks = math.ceil(n / files)
    h = math.radians(float(f["facing"]))
    depth = ranks * d
    return Shape("rect", f["front"][0] - math.cos(h) * depth / 2, f["front"][1] - math.sin(h) * depth / 2,
                 depth / 2, files * w / 2, h)


def check_t9a(scen: dict[str, Any], ruling: dict[str, Any]) -> list[Finding]:
    """No two unit blocks overlap at the end; every contact the ruling claims is a
    contact (gap within 1e-6); a successful charger touches its target."""
    F: list[Finding] = []
    after = ruling.get("after") or scen
    unit = _unit_of(scen)
    blocks = {u["id"]: t9a_block(u, unit) for u in after["units"] if "formation" in u}
    ids = sorted(blocks)
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            s = separation(blocks[ids[i]], blocks[ids[j]])
            if s < -TOL:
                F.append(Finding("overlap", f"units {ids[i]} and {ids[j]} overlap by {-s:.6f}"))
    models = t9a_models(after)
    for mv in ruling.get("moves", []):
        mid = mv["id"]
        if mid in models:
            sh = models[mid][2]
            if math.hypot(sh.cx - mv["to"][0], sh.cy - mv["to"][1]) > 1e-5:
                F.append(Finding("after_disagrees", f"{mid}: formation puts it at ({sh.cx:.6f}, {sh.cy:.6f}), "
                                                    f"moves.to {mv['to']}"))
        for c in mv.get("contacts", []):
            if mid in models and c in models:
                g = gap(models[mid][2], models[c][2])
                if g > TOL:
                    # across the gap of an incomplete rank (docs/t9a.md): each model
                    # stretched to its unit's edge, along the facing the two blocks touch at
                    A, B = models[mid], models[c]
                    g2 = min(gap(_stretched(A[2], blocks[A[0]], blocks[B[0]], i),
                                 _stretched(B[2], blocks[B[0]], blocks[A[0]], j)) for i in (0, 1) for j in (0, 1))
                    if g2 > TOL:
                        F.append(Finding("false_contact", f"{mid} claims contact with {c}, gap {g:.6f}"))
    if ruling.get("success") and ruling.get("procedure") == "normal":
        ch = ruling["charger"]
        for t in ruling.get("targets", [])[:1]:
            if t in blocks and ch in blocks and gap(blocks[ch], blocks[t]) > TOL:
                F.append(Finding("target_not_touched", f"{ch} ends {gap(blocks[ch], blocks[t]):.6f} from {t}"))
            # aligned to the charged facing: the arc of the target that holds the middle
            # of the charger's front at the start (45-degree lines from the corners; a
            # point on a line is a flank) decides which way the charger ends up facing
            u0 = {u["id"]: u for u in scen["units"]}
            u1 = {u["id"]: u for u in after["units"]}
            if t in u0 and ch in u0 and "formation" in u0[t] and not u0[t].get("flags"):
                arc = t9a_arc(u0[t], unit, u0[ch]["formation"]["front"])
                want = {"front": 180.0, "rear": 0.0, "left": -90.0, "right": 90.0}[arc]
                rel = (u1[ch]["formation"]["facing"] - u1[t]["formation"]["facing"] - want) % 360
                if min(rel, 360 - rel) > 1e-6:
                    F.append(Finding("not_aligned", f"{ch} charged {t}'s {arc} but ends facing "
                                                    f"{u1[ch]['formation']['facing']} against {u1[t]['formation']['facing']}"))
    return F


def _stretched(m: Shape, own: Shape, other: Shape, axis: int) -> Shape:
    """A rect model lengthened along one of its unit's axes (0: front-back, 1: across)
    toward ``other``, up to its own block's edge: what it covers of that facing, seen
    across the empty places of an incomplete rank."""
    if m.kind != "rect" or own.kind != "rect":
        return m
    ex, ey = own.axes()[axis]
    ext = own.a if axis == 0 else own.b
    d = (other.cx - own.cx) * ex + (other.cy - own.cy) * ey
    sign = 1.0 if d >= 0 else -1.0
    mc = (m.cx - own.cx) * ex + (m.cy - own.cy) * ey
    along = abs(math.cos(m.heading - own.heading)) > 0.5  # the model's a-axis lies along e1
    half_m = (m.a if along else m.b) if axis == 0 else (m.b if along else m.a)
    lo, hi = mc - sign * half_m, sign * ext
    mid, half = (lo + hi) / 2, abs(hi - lo) / 2
    cx, cy = m.cx + (mid - mc) * ex, m.cy + (mid - mc) * ey
    if (axis == 0) == along:
        return Shape("rect", cx, cy, half, m.b, m.heading)
    return Shape("rect", cx, cy, m.a, half, m.heading)


def t9a_arc(u: dict[str, Any], unit: str, p: Any) -> str:
    """Which arc of unit ``u`` holds point ``p``: front, rear, left or right (a point on a
    dividing line counts as a flank)."""
    blk = t9a_block(u, unit)
    (e1x, e1y), (e2x, e2y) = blk.axes()
    dx, dy = p[0] - blk.cx, p[1] - blk.cy
    y = dx * e1x + dy * e1y  # forward
    x = dx * e2x + dy * e2y  # left
    a, b = blk.b, blk.a  # half-width across, half-depth along
    if y - b > abs(x) - a + 1e-9:
        return "front"
    if -y - b > abs(x) - a + 1e-9:
        return "rear"
    return "left" if x > 0 else "right"


# ----------------------------------------------------------------------- Warmaster

PACE = {"infantry": 20, "cavalry": 30, "chariot": 30, "monster": 20, "artillery": 10, "character": 60}


def wm_stands(doc: dict[str, Any]) -> dict[str, tuple[str, int, Shape, dict[str, Any]]]:
    unit = _unit_of(doc)
    out = {}
    for u in doc["units"]:
        base = u.get("base") or {"rect": [40, 20] if u.get("type") == "infantry" else [20, 40]}
        for i, st in enumerate(u.get("stands", [])):
            sid = st.get("id", f"{u['id']}.{i}")
            out[sid] = (u["id"], int(u["player"]), base_shape(base, st["at"], float(st.get("facing", 90)), unit), u)
    return out


def _corners(s: Shape) -> list[tuple[float, float]]:
    (e1x, e1y), (e2x, e2y) = s.axes()
    return [(s.cx + i * s.a * e1x + j * s.b * e2x, s.cy + i * s.a * e1y + j * s.b * e2y)
            for i in (-1, 1) for j in (-1, 1)]


def check_warmaster(scen: dict[str, Any], ruling: dict[str, Any]) -> list[Finding]:
    """No two stands overlap at the end; claimed contacts are contacts; no stand's
    straight corner travel exceeds the distance the ruling reports, nor its pace."""
    F: list[Finding] = []
    after = wm_stands(ruling.get("after") or scen)
    before = wm_stands(scen)
    ids = sorted(after)
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            A, B = after[ids[i]][2], after[ids[j]][2]
            if A.radius() + B.radius() < math.hypot(A.cx - B.cx, A.cy - B.cy):
                continue
            s = separation(A, B)
            if s < -TOL:
                F.append(Finding("overlap", f"stands {ids[i]} and {ids[j]} overlap by {-s:.6f}"))
    for mv in ruling.get("moves", []):
        sid = mv["id"]
        for c in mv.get("contacts", []):
            if sid in after and c in after:
                g = gap(after[sid][2], after[c][2])
                if g > TOL:
                    F.append(Finding("false_contact", f"{sid} claims contact with {c}, gap {g:.6f}"))
        if sid in before and sid in after:
            b0, a1 = before[sid][2], after[sid][2]
            travel = max(math.hypot(p[0] - q[0], p[1] - q[1]) for p, q in zip(_corners(b0), _corners(a1), strict=True))
            d = float(mv.get("distance", travel))
            if d < travel - TOL:
                F.append(Finding("shorter_than_corner_travel", f"{sid}: distance {d} < corner travel {travel:.6f}"))
            u = before[sid][3]
            pace = float(u.get("move", PACE.get(u.get("type", "infantry"), 20)))
            if travel > pace + TOL and ruling.get("procedure") != "failed":
                F.append(Finding("over_pace", f"{sid}: corner travel {travel:.6f} > pace {pace}"))
    if ruling.get("success"):
        ch = ruling["charger"]
        for t in ruling.get("targets", []):
            touch = min((gap(a[2], b[2]) for a in after.values() if a[0] == ch for b in after.values() if b[0] == t),
                        default=math.inf)
            if touch > TOL:
                F.append(Finding("target_not_touched", f"{ch} ends {touch:.6f} from {t}"))
    return F
