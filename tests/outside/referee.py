"""An outside referee: checks chargeref rulings with its own geometry.

It imports nothing from chargeref. It reads a scenario document and a ruling document
(both plain JSON data in the public format of scenario-format.md) and returns a list
of complaints (``Finding``); an empty list means the ruling passed every check.

Geometry (all in the scenario's length unit; base sizes are millimetres):

* a base is a disc, an ellipse (long axis along ``facing``) or a rectangle (``W`` across
  the front, ``D`` along ``facing``); a ruin or free wall is a rectangle round each
  segment of its polyline (thickness across, no end caps);
* disc-disc gaps are the closed form (centre distance minus both radii); a disc against
  an ellipse is the point-ellipse distance (a bisection on the standard secular
  equation, carried to 1e-13 of the axes) minus the radius; a disc against a rectangle
  is the closed form of a point against a box;
* any pair's signed separation is ``max_u (-h_B(-u) - h_A(u))`` over unit directions u
  (h the support function): positive it is the gap, negative it is minus the depth of
  overlap. ``referee_exact.py`` computes it without a scan: closed forms for discs and
  rectangles (two rectangles: their edge normals, or their corner-to-edge gaps), a
  certified branch and bound (within 1e-10, its second-derivative bound stated there)
  for pairs with an ellipse. ``separation_scan`` keeps the old scan of 1024 directions
  (tests compare the two).
* along a straight path piece the separation of the moving base from another is
  convex in the travelled fraction (a signed distance to a convex set), so its least
  value is found by ternary search; along an arc piece ``referee_exact`` gives it in
  closed form (discs and rectangles) or by a certified branch and bound (ellipses).

Checks for 40k (editions 9, 10, 11, WTC on or off) are in :func:`check_40k`; the
lighter T9A and Warmaster checks are in ``referee_blocks.py`` (:func:`check` dispatches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import referee_exact

TOL = 1e-6
GOLD = (math.sqrt(5) - 1) / 2


@dataclass
class Finding:
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


# ----------------------------------------------------------------------- shapes


@dataclass
class Shape:
    kind: str  # disc | ellipse | rect
    cx: float
    cy: float
    a: float  # disc radius; ellipse half-length along the heading; rect half-depth along the heading
    b: float = 0.0  # ellipse half-width; rect half-width across the heading
    heading: float = 0.0  # radians, the direction of ``a``

    def axes(self) -> tuple[tuple[float, float], tuple[float, float]]:
        c, s = math.cos(self.heading), math.sin(self.heading)
        return (c, s), (-s, c)

    def support(self, ux: float, uy: float) -> float:
        base = self.cx * ux + self.cy * uy
        if self.kind == "disc":
            return base + self.a
        (e1x, e1y), (e2x, e2y) = self.axes()
        p = ux * e1x + uy * e1y
        q = ux * e2x + uy * e2y
        if self.kind == "ellipse":
            return base + math.sqrt((self.a * p) ** 2 + (self.b * q) ** 2)
        return base + self.a * abs(p) + self.b * abs(q)

    def normals(self) -> list[float]:
        if self.kind != "rect":
            return []
        return [self.heading + k * math.pi / 2 for k in range(4)]

    def radius(self) -> float:
        return self.a if self.kind == "disc" else (max(self.a, self.b) if self.kind == "ellipse"
                                                   else math.hypot(self.a, self.b))


def _mm(unit: str) -> float:
    """Length of one millimetre in the scenario's unit."""
    return 0.1 if unit == "cm" else 1 / 25.4


def parse_base(base: Any) -> tuple[str, float, float]:
    """A contract base -> (kind, size1 mm, size2 mm). kind: round | oval | rect."""
    if isinstance(base, dict):
        if "round" in base:
            return "round", float(base["round"]), 0.0
        if "oval" in base:
            L, W = base["oval"]
            return "oval", float(L), float(W)
        if "rect" in base:
            W, D = base["rect"]
            return "rect", float(W), float(D)
        raise ValueError(f"base not understood by the referee: {base!r}")
    s = str(base).strip().lower().replace(" ", "")
    if s.endswith("oval"):
        s = s[:-4]
        L, W = s.removesuffix("mm").split("x")
        return "oval", float(L), float(W)
    s = s.removesuffix("mm")
    if "x" in s:
        W, D = s.split("x")
        return "rect", float(W), float(D)
    return "round", float(s), 0.0


def base_shape(base: Any, at: Any, facing: float, unit: str) -> Shape:
    kind, s1, s2 = parse_base(base)
    mm = _mm(unit)
    h = math.radians(facing)
    if kind == "round":
        return Shape("disc", float(at[0]), float(at[1]), s1 * mm / 2)
    if kind == "oval":
        return Shape("ellipse", float(at[0]), float(at[1]), s1 * mm / 2, s2 * mm / 2, h)
    return Shape("rect", float(at[0]), float(at[1]), s2 * mm / 2, s1 * mm / 2, h)


def wall_shapes(points: list[Any], thickness: float) -> list[Shape]:
    out = []
    for p, q in zip(points, points[1:], strict=False):
        dx, dy = q[0] - p[0], q[1] - p[1]
        L = math.hypot(dx, dy)
        out.append(Shape("rect", (p[0] + q[0]) / 2, (p[1] + q[1]) / 2, L / 2, thickness / 2, math.atan2(dy, dx)))
    return out


# --------------------------------------------------------------- distances


def point_ellipse_distance(a: float, b: float, x: float, y: float) -> float:
    """Distance from (x, y) (ellipse frame, semi-axes a along x, b along y) to the
    filled ellipse: 0 inside. Outside, the closest point is (a^2 x/(t+a^2), b^2 y/(t+b^2))
    for the root t > 0 of F(t) = (a x/(t+a^2))^2 + (b y/(t+b^2))^2 - 1, which decreases
    from F(0) > 0 to F(max(a, b) |p|) < 0: bisection until the bracket stops shrinking."""
    x, y = abs(x), abs(y)
    if (x / a) ** 2 + (y / b) ** 2 <= 1.0:
        return 0.0
    lo, hi = 0.0, max(a, b) * math.hypot(x, y)
    for _ in range(2000):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        f = (a * x / (mid + a * a)) ** 2 + (b * y / (mid + b * b)) ** 2 - 1.0
        if f > 0:
            lo = mid
        else:
            hi = mid
    t = (lo + hi) / 2
    return math.hypot(x - a * a * x / (t + a * a), y - b * b * y / (t + b * b))


def point_distance(s: Shape, px: float, py: float) -> float:
    """Distance from a point to the filled shape (0 inside)."""
    dx, dy = px - s.cx, py - s.cy
    if s.kind == "disc":
        return max(0.0, math.hypot(dx, dy) - s.a)
    (e1x, e1y), (e2x, e2y) = s.axes()
    u = dx * e1x + dy * e1y
    v = dx * e2x + dy * e2y
    if s.kind == "ellipse":
        return point_ellipse_distance(s.a, s.b, u, v)
    return math.hypot(max(0.0, abs(u) - s.a), max(0.0, abs(v) - s.b))


def _sep(A: Shape, B: Shape, th: float) -> float:
    ux, uy = math.cos(th), math.sin(th)
    return -B.support(-ux, -uy) - A.support(ux, uy)


def separation(A: Shape, B: Shape) -> float:
    """Signed separation: the gap when apart, minus the overlap depth when overlapping
    (exact, see ``referee_exact``)."""
    return referee_exact.separation(A, B)


def separation_scan(A: Shape, B: Shape) -> float:
    """The referee's earlier separation: a scan of 1024 directions and the faces'
    normals, refined by golden section (kept to test the exact one against)."""
    if A.kind == "disc" and B.kind == "disc":
        return math.hypot(A.cx - B.cx, A.cy - B.cy) - A.a - B.a
    if A.kind == "disc" or B.kind == "disc":
        disc, other = (A, B) if A.kind == "disc" else (B, A)
        d = point_distance(other, disc.cx, disc.cy)
        if d > 0:
            return d - disc.a
        # the centre is inside: fall through to the support separation for the depth
    n = 1024
    cands = [2 * math.pi * k / n for k in range(n)] + A.normals() + [t + math.pi for t in B.normals()]
    vals = sorted(((_sep(A, B, t), t) for t in cands), reverse=True)[:6]
    best = vals[0][0]
    step = 2 * math.pi / n
    for _, t0 in vals:
        lo, hi = t0 - step, t0 + step
        x1 = hi - GOLD * (hi - lo)
        x2 = lo + GOLD * (hi - lo)
        f1, f2 = _sep(A, B, x1), _sep(A, B, x2)
        while hi - lo > 1e-13:
            if f1 < f2:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + GOLD * (hi - lo)
                f2 = _sep(A, B, x2)
            else:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - GOLD * (hi - lo)
                f1 = _sep(A, B, x1)
        best = max(best, f1, f2)
    return best


def gap(A: Shape, B: Shape) -> float:
    return max(0.0, separation(A, B))


def _on_board(s: Shape, width: float, depth: float) -> bool:
    return (-s.support(-1, 0) >= -TOL and s.support(1, 0) <= width + TOL
            and -s.support(0, -1) >= -TOL and s.support(0, 1) <= depth + TOL)


def moved(s: Shape, x: float, y: float) -> Shape:
    return Shape(s.kind, x, y, s.a, s.b, s.heading)


def least_move_on_board(mover: Shape, target: Shape, reach: float, width: float, depth: float) -> float:
    """See :func:`least_spot_on_board` (its distance)."""
    return least_spot_on_board(mover, target, reach, width, depth)[0]


def least_spot_on_board(mover: Shape, target: Shape, reach: float, width: float,
                        depth: float) -> tuple[float, float, float]:
    """(length, x, y) of the shortest translation of ``mover`` that ends within ``reach``
    of ``target`` with the whole base on the board: the straight approach along the
    closest points' direction when it stays on the board. Else: the end spots form a
    convex set (a sublevel set of a signed distance to a convex set, cut by the box the
    board allows the centre), so the answer lies on that box's boundary:
    on each of its four sides the spots within reach are one interval (the separation
    is convex along a line: ternary search for its least value, then bisection to 1e-12
    for each end), and the nearest point of it to the start is the clamp of the start's
    projection. The straight path to that spot stays on the board (a box is convex)."""
    g, ux, uy = referee_exact.separation_w(mover, target)
    x0, y0 = mover.cx, mover.cy
    if g <= reach:
        return 0.0, x0, y0
    e_left = mover.support(-1, 0) + x0
    e_right = mover.support(1, 0) - x0
    e_down = mover.support(0, -1) + y0
    e_up = mover.support(0, 1) - y0
    lo_x, hi_x, lo_y, hi_y = e_left, width - e_right, e_down, depth - e_up
    sx, sy = x0 + (g - reach) * ux, y0 + (g - reach) * uy
    if lo_x <= sx <= hi_x and lo_y <= sy <= hi_y:
        return g - reach, sx, sy  # the straight approach stays on the board

    def f(x: float, y: float) -> float:
        return separation(moved(mover, x, y), target) - reach

    best = (math.inf, x0, y0)
    sides = [((lo_x, lo_y), (lo_x, hi_y)), ((hi_x, lo_y), (hi_x, hi_y)), ((lo_x, lo_y), (hi_x, lo_y)),
             ((lo_x, hi_y), (hi_x, hi_y))]
    for (ax, ay), (bx, by) in sides:
        def h(t: float, ax: float = ax, ay: float = ay, bx: float = bx, by: float = by) -> float:
            return f(ax + (bx - ax) * t, ay + (by - ay) * t)

        a, b = 0.0, 1.0
        tm = None
        while b - a > 1e-12:
            m1, m2 = a + (b - a) / 3, b - (b - a) / 3
            h1, h2 = h(m1), h(m2)
            if min(h1, h2) <= 0:
                tm = m1 if h1 <= h2 else m2
                break
            if h1 < h2:
                b = m2
            else:
                a = m1
        if tm is None:
            continue  # nowhere on this side is within reach
        ends = []
        for out in (0.0, 1.0):
            if h(out) <= 0:
                ends.append(out)
                continue
            u, v = tm, out  # h(u) <= 0 < h(v)
            while abs(v - u) > 1e-13:
                w = (u + v) / 2
                if h(w) <= 0:
                    u = w
                else:
                    v = w
            ends.append(u)
        L2 = (bx - ax) ** 2 + (by - ay) ** 2
        t = 0.0 if L2 == 0 else ((x0 - ax) * (bx - ax) + (y0 - ay) * (by - ay)) / L2
        t = min(max(t, min(ends)), max(ends))
        x, y = ax + (bx - ax) * t, ay + (by - ay) * t
        best = min(best, (math.hypot(x - x0, y - y0), x, y))
    return best


def least_separation_along(mover: Shape, a: Any, b: Any, other: Shape) -> float:
    """The least signed separation between ``mover`` (its centre carried straight from
    a to b) and ``other``: convex in the fraction travelled, so ternary search."""
    ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
    if mover.kind == "disc" and other.kind == "disc":
        dx, dy = bx - ax, by - ay
        L2 = dx * dx + dy * dy
        t = 0.0 if L2 == 0 else min(1.0, max(0.0, ((other.cx - ax) * dx + (other.cy - ay) * dy) / L2))
        return math.hypot(ax + t * dx - other.cx, ay + t * dy - other.cy) - mover.a - other.a

    def f(t: float) -> float:
        return separation(moved(mover, ax + (bx - ax) * t, ay + (by - ay) * t), other)

    lo, hi = 0.0, 1.0
    while hi - lo > 1e-9:
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    return min(f(0.0), f(1.0), f((lo + hi) / 2))


def _seg_point_dist(a: Any, b: Any, p: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])


def path_pieces(mv: dict[str, Any]) -> list[dict[str, Any]]:
    """The move's pieces: its ``segments`` if given, else the straight line from->to."""
    segs = mv.get("segments")
    if segs:
        return list(segs)
    return [{"kind": "line", "from": mv["from"][:2], "to": mv["to"][:2]}]


def least_separation_along_arc(mover: Shape, seg: dict[str, Any], other: Shape) -> float:
    """The least signed separation between ``mover`` (its centre carried along the arc
    piece ``seg``) and ``other``: exact, see ``referee_exact``."""
    return referee_exact.least_separation_along_arc(mover, seg, other)


def sampled_least_separation_along_arc(mover: Shape, seg: dict[str, Any], other: Shape, n: int = 64) -> float:
    """The referee's earlier arc check: the separation at n + 1 points of the arc (an
    upper bound of the least value; kept to test the exact one against)."""
    return min(separation(moved(mover, x, y), other) for x, y in arc_points(seg, n))


def arc_points(seg: dict[str, Any], n: int = 64) -> list[tuple[float, float]]:
    c, r = seg["center"], float(seg["radius"])
    t0 = math.atan2(seg["from"][1] - c[1], seg["from"][0] - c[0])
    t1 = math.atan2(seg["to"][1] - c[1], seg["to"][0] - c[0])
    span = (t1 - t0) % (2 * math.pi) if seg.get("ccw", True) else -((t0 - t1) % (2 * math.pi))
    return [(c[0] + r * math.cos(t0 + span * i / n), c[1] + r * math.sin(t0 + span * i / n)) for i in range(n + 1)]


# ----------------------------------------------------------------------- 40k


def _unit_of(doc: dict[str, Any]) -> str:
    if doc.get("unit"):
        return str(doc["unit"])
    return "cm" if doc.get("system") == "warmaster" else "in"


@dataclass
class Model:
    id: str
    unit: str
    player: int
    shape: Shape
    z: float
    keywords: tuple[str, ...]


def models_40k(doc: dict[str, Any]) -> dict[str, Model]:
    unit = _unit_of(doc)
    out = {}
    for u in doc["units"]:
        for m in u.get("models", []):
            base = m.get("base", u.get("base"))
            at = m["at"]
            z = float(at[2]) if len(at) > 2 else 0.0
            out[m["id"]] = Model(m["id"], u["id"], int(u["player"]),
                                 base_shape(base, at, float(m.get("facing", 90.0)), unit), z,
                                 tuple(u.get("keywords", [])))
    return out


def edition_of(doc: dict[str, Any]) -> tuple[int, bool]:
    rules = doc.get("rules") or {}
    ed = int(rules.get("edition", 10))
    wtc = bool(rules.get("wtc", ed == 10))
    return ed, wtc


def inch(doc: dict[str, Any]) -> float:
    return 2.54 if _unit_of(doc) == "cm" else 1.0


def coherency_problems(ms: list[Model], ed: int, k: float) -> list[str]:
    """Per the edition: links are pairs within 2" (and 5" vertically); every model has
    one link (two once the unit has 6+ in ed9, 7+ in ed10); the links join one group;
    edition 11: one link whatever the size, and every model within 9" of every other."""
    n = len(ms)
    if n <= 1:
        return []
    need = 1
    if ed == 9 and n >= 6:
        need = 2
    if ed == 10 and n >= 7:
        need = 2
    links: dict[int, list[int]] = {i: [] for i in range(n)}
    gaps = {}
    for i in range(n):
        for j in range(i + 1, n):
            g = gap(ms[i].shape, ms[j].shape)
            gaps[i, j] = g
            if g <= 2 * k + TOL and abs(ms[i].z - ms[j].z) <= 5 * k + TOL:
                links[i].append(j)
                links[j].append(i)
    out = []
    for i in range(n):
        if len(links[i]) < need:
            out.append(f"{ms[i].id} has {len(links[i])} coherency link(s), needs {need}")
    seen = {0}
    stack = [0]
    while stack:
        i = stack.pop()
        for j in links[i]:
            if j not in seen:
                seen.add(j)
                stack.append(j)
    if len(seen) != n:
        out.append(f"the unit is in {n - len(seen) + 1}+ groups (not connected)")
    if ed == 11:
        for (i, j), g in gaps.items():
            if g > 9 * k + TOL:
                out.append(f"{ms[i].id} and {ms[j].id} are {g:.6f} apart (> 9\")")
    return out


def terrain_shapes(doc: dict[str, Any], k: float) -> list[tuple[str, Shape]]:
    out = []
    for t in doc.get("terrain", []) or []:
        if t["type"] == "ruin":
            for i, w in enumerate(t.get("walls", [])):
                for s in wall_shapes(w["points"], float(w.get("thickness", 0.2 * k))):
                    out.append((f"{t['id']}.wall{i}", s))
        elif t["type"] in ("wall", "barricade"):
            for s in wall_shapes(t["points"], float(t.get("thickness", 0.2 * k))):
                out.append((t["id"], s))
    return out


def lower_bound_40k(before: dict[str, Model], charger: str, targets: list[str], er: float) -> float:
    """Largest over targets of the least straight-line distance from a charger model to
    that target's engagement range (no path is shorter than the straight line)."""
    lb = 0.0
    for t in targets:
        best = math.inf
        for a in before.values():
            if a.unit != charger:
                continue
            for b in before.values():
                if b.unit == t:
                    best = min(best, max(0.0, gap(a.shape, b.shape) - er))
        lb = max(lb, best)
    return lb


def check_40k(scen: dict[str, Any], ruling: dict[str, Any], *, open_field: bool | None = None) -> list[Finding]:
    F: list[Finding] = []
    ed, wtc = edition_of(scen)
    k = inch(scen)
    er = (2.0 if ed == 11 else 1.0) * k
    charger = ruling["charger"]
    targets = list(ruling.get("targets") or [])
    before = models_40k(scen)
    after_doc = ruling.get("after") or scen
    after = models_40k(after_doc)
    moves = {m["id"]: m for m in ruling.get("moves", [])}
    roll = (ruling.get("roll") or {}).get("total")
    need = ruling.get("needed") or {}
    board = scen["board"]
    walls = terrain_shapes(scen, k)
    if not ruling.get("eligible", True):
        if moves:
            F.append(Finding("moved_when_ineligible", f"{sorted(moves)}"))
        return F

    # 1. the after document agrees with moves
    for mid, m in before.items():
        a = after.get(mid)
        if a is None:
            continue
        if mid in moves:
            to = moves[mid]["to"]
            if math.hypot(a.shape.cx - to[0], a.shape.cy - to[1]) > TOL:
                F.append(Finding("after_disagrees", f"{mid}: after at ({a.shape.cx}, {a.shape.cy}), moves.to {to}"))
        elif math.hypot(a.shape.cx - m.shape.cx, a.shape.cy - m.shape.cy) > TOL:
            F.append(Finding("unlisted_move", f"{mid} moved in `after` but is not in moves"))
        if mid in moves and m.unit != charger:
            F.append(Finding("wrong_unit_moved", mid))

    # 2. each move within the roll; never shorter than the straight line
    for mid, mv in moves.items():
        fr, to = mv["from"], mv["to"]
        straight = math.hypot(to[0] - fr[0], to[1] - fr[1])
        d = float(mv["distance"])
        if d < straight - TOL:
            F.append(Finding("shorter_than_straight", f"{mid}: distance {d} < straight line {straight}"))
        if roll is not None and d > roll * k + TOL:
            F.append(Finding("over_roll", f"{mid}: distance {d} > roll {roll}"))
        if roll is not None and straight > roll * k + TOL:
            F.append(Finding("straight_over_roll", f"{mid}: straight {straight} > roll {roll}"))
        if mid in before and math.hypot(before[mid].shape.cx - fr[0], before[mid].shape.cy - fr[1]) > TOL:
            F.append(Finding("from_wrong", f"{mid}: from {fr} but the scenario has it elsewhere"))

    # 3. end state: overlaps, walls, board
    ams = list(after.values())
    moved_ids = set(moves)
    for i in range(len(ams)):
        for j in range(i + 1, len(ams)):
            A, B = ams[i], ams[j]
            if A.id not in moved_ids and B.id not in moved_ids:
                continue
            if abs(A.z - B.z) > 1e-9:
                continue
            if A.shape.radius() + B.shape.radius() < math.hypot(A.shape.cx - B.shape.cx, A.shape.cy - B.shape.cy):
                continue
            s = separation(A.shape, B.shape)
            if s < -TOL:
                F.append(Finding("overlap", f"{A.id} and {B.id} overlap by {-s:.6f}"))
    for mid in moved_ids:
        a = after.get(mid)
        if a is None:
            continue
        if not _on_board(a.shape, float(board["width"]), float(board["depth"])):
            F.append(Finding("off_board", mid))
        for wid, w in walls:
            if a.z > 1e-9:
                continue
            s = separation(a.shape, w)
            if s < -TOL:
                F.append(Finding("in_wall", f"{mid} ends inside {wid} by {-s:.6f}"))

    # 3b. paths: never through an enemy model; editions 9 and 10 never within
    # engagement range of a non-target enemy model; edition 9 never across any other
    # model; a MONSTER or VEHICLE never across a friendly MONSTER or VEHICLE (FLY exempt).
    # Straight pieces and arcs exactly (ternary search on a convex function; arcs in
    # closed form or by a certified branch and bound).
    if roll is not None:
        for mid, mv in moves.items():
            m0 = before.get(mid)
            if m0 is None or "FLY" in m0.keywords:
                continue
            if mv.get("facing") is not None and m0.shape.kind != "disc":
                continue  # a turning base: its pose along the path is not recorded here
            big = {"MONSTER", "VEHICLE"} & set(m0.keywords)
            for seg in path_pieces(mv):
                kind = seg.get("kind")
                if kind not in ("line", "arc"):
                    continue
                for o in before.values():
                    if o.unit == charger or abs(o.z - m0.z) > 5 * k + TOL:
                        continue
                    enemy = o.player != m0.player
                    limit = None
                    if enemy and o.unit not in targets and ed in (9, 10):
                        limit, code = er, "path_in_er_of_non_target"
                    elif enemy:
                        limit, code = 0.0, "path_through_enemy"
                    elif ed == 9 or (big and {"MONSTER", "VEHICLE"} & set(o.keywords)):
                        limit, code = 0.0, "path_through_friend"
                    if limit is None:
                        continue
                    reach = o.shape.radius() + m0.shape.radius() + limit + 0.01
                    if kind == "line":
                        if _seg_point_dist(seg["from"], seg["to"], (o.shape.cx, o.shape.cy)) > reach:
                            continue
                        s_min = least_separation_along(m0.shape, seg["from"], seg["to"], o.shape)
                    else:
                        cx, cy, r, t0, span = referee_exact.arc_angles(seg)
                        if referee_exact.arc_point_distance(cx, cy, r, t0, span, o.shape.cx, o.shape.cy) > reach:
                            continue
                        s_min = least_separation_along_arc(m0.shape, seg, o.shape)
                    if (s_min < -TOL) if limit == 0.0 else (s_min <= limit + 1e-9):
                        F.append(Finding(code, f"{mid}'s path comes {s_min:.6f} from {o.id} of {o.unit}"))

    cu = [m for m in after.values() if m.unit == charger]
    tokens = {mid for mid, mv in moves.items() if mv.get("token")}

    def engaged_with(t: str) -> bool:
        for a in cu:
            for b in after.values():
                if b.unit != t or abs(a.z - b.z) > 5 * k + TOL:
                    continue
                reach = 2.0 * k if (a.id in tokens and ed != 11) else er
                if gap(a.shape, b.shape) <= reach + TOL:
                    return True
        return False

    # WTC tokens: a token model ends touching a ruin wall (as close as it can get)
    for mid in tokens:
        a = after.get(mid)
        if a is not None and walls and min(gap(a.shape, w) for _, w in walls) > TOL:
            F.append(Finding("token_off_wall", f"{mid} holds a token {min(gap(a.shape, w) for _, w in walls):.6f} "
                                               "from the nearest wall"))

    success = bool(ruling.get("success"))
    if success:
        for t in targets:
            if not engaged_with(t):
                F.append(Finding("target_not_engaged", t))
        enemies = {m.unit for m in after.values() if m.player != before[cu[0].id].player} if cu else set()
        for e in sorted(enemies - set(targets)):
            for a in cu:
                for b in after.values():
                    if b.unit != e or abs(a.z - b.z) > 5 * k + TOL:
                        continue
                    g = gap(a.shape, b.shape)
                    if g <= er + 1e-9:  # "within" includes equality (1e-9: float noise)
                        F.append(Finding("non_target_engaged", f"{a.id} is {g:.6f} from {b.id} of {e}"))
        for p in coherency_problems(cu, ed, k):
            F.append(Finding("coherency", p))
        # each moved model ends closer to a target (WTC procedure / edition 11)
        if wtc or ed == 11:
            for mid in moved_ids:
                if mid not in before:
                    continue
                gains = []
                for t in targets:
                    tb = [b for b in before.values() if b.unit == t]
                    ta = [b for b in after.values() if b.unit == t]
                    g0 = min(gap(before[mid].shape, b.shape) for b in tb)
                    g1 = min(gap(after[mid].shape, b.shape) for b in ta)
                    gains.append(g0 - g1)
                if gains and max(gains) <= 0.0:
                    F.append(Finding("not_closer", f"{mid} ends no closer to any target (gain {max(gains):.3g})"))
    elif ed != 9 or not (scen.get("rules") or {}).get("failed_charge_moves", True):
        if moves:
            F.append(Finding("failed_but_moved", f"{sorted(moves)}"))
    else:
        # edition 9's failed charge still moves (seed 002): each model that moves ends
        # closer to the targets, and the unit engages nobody
        me = before[next(iter(moves))].player if moves else None
        for mid in moves:
            tm0 = [b for b in before.values() if b.unit in targets]
            tm1 = [b for b in after.values() if b.unit in targets]
            g0 = min(gap(before[mid].shape, b.shape) for b in tm0)
            g1 = min(gap(after[mid].shape, b.shape) for b in tm1)
            if g1 >= g0:
                F.append(Finding("failed_move_not_closer", f"{mid}: {g0:.6f} -> {g1:.6f}"))
            for b in after.values():
                if b.player != me and abs(b.z - after[mid].z) <= 5 * k + TOL and gap(after[mid].shape, b.shape) <= er:
                    F.append(Finding("failed_move_engages", f"{mid} ends within engagement range of {b.id}"))

    # 4. needed and success
    nroll = need.get("roll")
    ndist = need.get("distance")
    if ed != 11 or targets:
        lb_er = 2.0 * k if (wtc and walls and ed == 10) else er
        lb = lower_bound_40k(before, charger, targets, lb_er) / k
        if nroll is not None and nroll < math.ceil(lb - TOL):
            F.append(Finding("needed_below_bound", f"needed.roll {nroll} < ceil(straight-line bound {lb:.6f})"))
        if ed == 11 and nroll is not None:
            # each target within the rolled distance: the roll is at least every gap
            far = lower_bound_40k(before, charger, targets, 0.0) / k
            if nroll < math.ceil(far - TOL):
                F.append(Finding("needed_below_gap", f"needed.roll {nroll} < ceil(a target's gap {far:.6f})"))
        if ndist is not None and ndist < lb - TOL and not walls:
            F.append(Finding("distance_below_bound", f"needed.distance {ndist} < straight-line bound {lb:.6f}"))
        if nroll is not None and ndist is not None and nroll < math.ceil(ndist / k - TOL):
            F.append(Finding("roll_below_distance", f"needed.roll {nroll} < ceil(needed.distance {ndist})"))
        if roll is not None:
            expect = nroll is not None and roll >= nroll
            if expect != success:
                F.append(Finding("success_mismatch", f"roll {roll}, needed.roll {nroll}, success {success}"))

    # 5. single model against a single target in the open: the closed form
    if open_field is None:
        open_field = not walls and not scen.get("terrain")
    cms = [m for m in before.values() if m.unit == charger]
    # (any shapes: the straight move along the closest points' direction closes the
    # gap at exactly the rate moved, and no move closes it faster; when that straight
    # move would leave the board, the least move that stays on it)
    if open_field and len(targets) == 1 and len(cms) == 1:
        tms = [m for m in before.values() if m.unit == targets[0]]
        others = [m for m in before.values() if m.unit not in (charger, targets[0])]
        if len(tms) == 1 and not others:
            c0 = cms[0].shape
            g, ux, uy = referee_exact.separation_w(c0, tms[0].shape)
            g = max(0.0, g)
            exact = max(0.0, g - er)

            def straight_on_board(d: float) -> bool:
                return _on_board(moved(c0, c0.cx + d * ux, c0.cy + d * uy), float(board["width"]),
                                 float(board["depth"]))

            how = "closed form"
            if not straight_on_board(exact):
                how = "least move on the board"
                exact = least_move_on_board(c0, tms[0].shape, er, float(board["width"]), float(board["depth"]))
            if ndist is None or abs(ndist - exact) > TOL:
                F.append(Finding("closed_form", f"needed.distance {ndist}, {how} {exact:.9f}"))
            # the least roll total: the move rounded up; edition 11 also needs the
            # target within the roll itself (its gap, not the gap less 2")
            want = math.ceil((max(g, exact) if ed == 11 else exact) / k - TOL)
            if nroll != want:
                F.append(Finding("closed_form_roll", f"needed.roll {nroll}, expected {want}"))
            # WTC (edition 10): base contact when the roll reaches it
            if (success and wtc and ed == 10 and roll is not None and roll * k >= g + TOL
                    and straight_on_board(g)):
                g1 = gap(after[cms[0].id].shape, after[tms[0].id].shape)
                if g1 > TOL:
                    F.append(Finding("no_base_contact", f"roll {roll} reaches contact ({g:.6f}) but ends {g1:.6f} away"))
    return F


def check(scen: dict[str, Any], ruling: dict[str, Any]) -> list[Finding]:
    sysname = scen.get("system")
    if sysname == "40k":
        return check_40k(scen, ruling)
    if sysname in ("t9a", "warmaster"):
        from referee_blocks import check_t9a, check_warmaster

        return (check_t9a if sysname == "t9a" else check_warmaster)(scen, ruling)
    raise ValueError(f"unknown system {sysname!r}")


def check_40k_choices(scen: dict[str, Any], ruling: dict[str, Any]) -> list[Finding]:
    """Edition 11, a roll made before targets are picked: every enemy unit within 12"
    and within the rolled distance (closest gap) may be picked; each listed gap is the
    exact gap; a choice is allowed iff each of its targets may be picked and its least
    roll is reached; its least roll is never below the straight-line bound (gap minus
    the 2" engagement range)."""
    F: list[Finding] = []
    k = inch(scen)
    before = models_40k(scen)
    charger = ruling["charger"]
    roll = ruling["roll"]["total"]
    me = next(m.player for m in before.values() if m.unit == charger)
    gaps: dict[str, float] = {}
    for b in before.values():
        if b.player == me:
            continue
        g = min(gap(a.shape, b.shape) for a in before.values() if a.unit == charger)
        gaps[b.unit] = min(gaps.get(b.unit, math.inf), g)
    listed: set[str] = set()
    for c in ruling.get("choices", []):
        ts = c["targets"]
        listed |= set(ts)
        for t, g in (c.get("gaps") or {}).items():
            if abs(g - gaps[t]) > TOL:
                F.append(Finding("choice_gap", f"{t}: listed gap {g}, exact {gaps[t]:.9f}"))
        nr = (c.get("needed") or {}).get("roll")
        # allowed (docs/40k.md): the roll may pick the set and the move succeeds with it
        ok = all(gaps[t] <= min(12 * k, roll * k) + TOL for t in ts) and nr is not None and nr <= roll
        if bool(c.get("allowed")) != ok:
            F.append(Finding("choice_allowed", f"{ts}: allowed {c.get('allowed')}, gaps {[gaps[t] for t in ts]}"))
        nr = (c.get("needed") or {}).get("roll")
        lb = max(max(0.0, gaps[t] - 2 * k) for t in ts) / k
        if nr is not None and nr < math.ceil(lb - TOL):
            F.append(Finding("choice_below_bound", f"{ts}: least roll {nr} < bound {lb:.6f}"))
    for t, g in sorted(gaps.items()):
        if g <= min(12 * k, roll * k) - TOL and t not in listed:
            F.append(Finding("choice_missing", f"{t} is {g:.6f} away (roll {roll}) but is not offered"))
    return F


def charge_odds(needed_roll: int | None, modifier: int, reroll: str) -> tuple[int, int]:
    """The exact chance (numerator, denominator) that 2D6 + modifier reaches the least
    roll: ``none`` one roll; ``failed`` the whole 2D6 rolled again after a failure;
    ``one_die`` after a failure one die rolled again, the player keeping whichever die
    gives the better chance (enumerated over both choices, 6**3 outcomes)."""
    if needed_roll is None:
        return 0, 1
    hits = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b + modifier >= needed_roll)
    if reroll == "none":
        num, den = hits, 36
    elif reroll == "failed":
        num, den = 36 * 36 - (36 - hits) ** 2, 36 * 36
    elif reroll == "one_die":
        num, den = 0, 36 * 6
        for a in range(1, 7):
            for b in range(1, 7):
                if a + b + modifier >= needed_roll:
                    num += 6
                else:  # keep one die, roll the other again: the better of the two choices
                    num += max(sum(1 for c in range(1, 7) if keep + c + modifier >= needed_roll) for keep in (a, b))
    else:
        raise ValueError(reroll)
    g = math.gcd(num, den)
    return num // g, den // g
