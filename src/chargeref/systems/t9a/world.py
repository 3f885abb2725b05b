"""The battlefield as the solver sees it: blocks, impassable terrain, the board, and
the unit-spacing policy of each kind of move."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...geometry.shapes import TOL, ConvexPolygon, make_polygon_parts
from ...scenario import inch as scen_inch
from ...scenario import mm_per_unit
from .block import Block, block_from_unit
from .geom import (
    Shape,
    gap,
    gap_lower,
    gap_ok,
    near,
    sweep_translate,
    turn_gap_lower,
    turn_gap_lower_own,
    unit,
)
from .geom_turn import rot_pts, rot_sweep_extent, rot_sweep_gap_v
from .memo import table as memo_table

#: how far below ``turn_gap_lower`` the exact sweep's value may fall by rounding alone
#: (its closed forms agree with the bound to about 1e-14 at these sizes)
TURN_BOUND_SLACK = 1e-9


@dataclass(frozen=True)
class Step:
    """One piece of a unit's move.

    * ``forward``: straight ahead by ``amount``;
    * ``wheel``: turn by ``amount`` degrees about the inner front corner;
    * ``turn``: turn by ``amount`` degrees about ``pivot`` (align moves, pivots);
    * ``place``: the unit is re-placed at ``front``/``facing`` (reforms); no path.
    """

    kind: str
    amount: float = 0.0
    pivot: tuple[float, float] | None = None
    front: tuple[float, float] | None = None
    facing: float | None = None
    label: str = ""

    def apply(self, b: Block) -> Block:
        if self.kind == "forward":
            return b.forward(self.amount)
        if self.kind == "wheel":
            return b.wheeled(self.amount)
        if self.kind == "turn":
            assert self.pivot is not None
            return b.turned(np.asarray(self.pivot), self.amount)
        if self.kind == "place":
            assert self.front is not None and self.facing is not None
            return b.at(self.front, self.facing)
        raise ValueError(self.kind)

    def cost(self, b: Block) -> float:
        """Movement used: the distance for straight moves; for a wheel, the arc the
        outer front corner travels (angle x unit width); turns and re-placements are
        free."""
        if self.kind == "forward":
            return abs(self.amount)
        if self.kind == "wheel":
            return math.radians(abs(self.amount)) * b.width
        return 0.0

    def to_json(self, b: Block) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind}
        if self.kind == "forward":
            d["distance"] = round(self.amount, 9)
        elif self.kind == "wheel":
            p = b.wheel_pivot(self.amount)
            d.update(angle=round(self.amount, 9), pivot=[round(float(p[0]), 9), round(float(p[1]), 9)],
                     side="left" if self.amount > 0 else "right")
        elif self.kind == "turn":
            assert self.pivot is not None
            d.update(angle=round(self.amount, 9), pivot=[round(self.pivot[0], 9), round(self.pivot[1], 9)])
        elif self.kind == "place":
            assert self.front is not None and self.facing is not None
            d.update(front=[round(self.front[0], 9), round(self.front[1], 9)], facing=round(self.facing % 360, 9))
        if self.label:
            d["label"] = self.label
        return d


def run_steps(b: Block, steps: list[Step]) -> Block:
    for s in steps:
        b = s.apply(b)
    return b


def steps_cost(b: Block, steps: list[Step]) -> float:
    total = 0.0
    for s in steps:
        total += s.cost(b)
        b = s.apply(b)
    return total


@dataclass(frozen=True)
class Obstacle:
    uid: str
    cls: str  # friend | enemy | target | terrain
    shape: Shape
    min_gap: float
    strict: bool  # True: the gap must be larger than min_gap (no contact)

    def ok(self, g: float) -> bool:
        if self.strict:
            return g > self.min_gap + TOL
        return g >= self.min_gap - TOL


@dataclass(frozen=True)
class Blocked:
    """Why a path failed: the obstacle (unit id, terrain id or 'board') and where."""

    what: str
    cls: str
    step: int
    gap: float


@dataclass
class World:
    blocks: dict[str, Block]
    terrain: list[tuple[str, Shape]]
    board: tuple[float, float]
    inch: float
    rules: Any
    order: list[str] = field(default_factory=list)

    @staticmethod
    def from_scenario(scen: Any) -> World:
        mpu = mm_per_unit(scen)
        blocks = {u.id: block_from_unit(u, mpu) for u in scen.units}
        terr: list[tuple[str, Shape]] = []
        for t in scen.terrain:
            if t.type == "impassable":
                for p in make_polygon_parts(t.polygon):
                    assert isinstance(p, ConvexPolygon)
                    terr.append((t.id, Shape.poly(p.V)))
        return World(blocks, terr, (scen.board.width, scen.board.depth), scen_inch(scen), scen.rules,
                      [u.id for u in scen.units])

    def copy(self) -> World:
        return replace(self, blocks=dict(self.blocks), order=list(self.order))

    def put(self, b: Block) -> None:
        self.blocks[b.id] = b
        if b.id not in self.order:
            self.order.append(b.id)

    def remove(self, uid: str) -> None:
        self.blocks.pop(uid, None)

    def enemies_of(self, b: Block) -> list[Block]:
        return [o for o in self.blocks.values() if o.player != b.player]

    def friends_of(self, b: Block) -> list[Block]:
        return [o for o in self.blocks.values() if o.player == b.player and o.id != b.id]

    # ----------------------------------------------------------------- spacing
    def obstacles(
        self,
        mover: Block,
        targets: set[str] = frozenset(),  # type: ignore[assignment]
        ignore: set[str] = frozenset(),  # type: ignore[assignment]
        touch_enemies: bool = False,
        terrain: bool = True,
        spacing: float | None = None,
    ) -> list[Obstacle]:
        """The things a charging (or otherwise pushed) unit must respect. Friends and
        impassable terrain may be touched but not overlapped; enemies that are not
        targets may not even be touched (unless ``touch_enemies``); targets may be
        touched. ``spacing`` (the half-inch option) keeps that gap instead of touching."""
        sp = 0.0 if spacing is None else spacing
        out: list[Obstacle] = []
        for o in self.blocks.values():
            if o.id == mover.id or o.id in ignore:
                continue
            if o.id in targets:
                out.append(Obstacle(o.id, "target", o.shape(), 0.0, False))
            elif o.player == mover.player:
                out.append(Obstacle(o.id, "friend", o.shape(), sp, False))
            else:
                strict = not touch_enemies and sp == 0.0
                out.append(Obstacle(o.id, "enemy", o.shape(), sp, strict))
        if terrain:
            for tid, sh in self.terrain:
                if tid in ignore:
                    continue
                out.append(Obstacle(tid, "terrain", sh, sp, False))
        return out

    def charge_spacing(self) -> float | None:
        if getattr(self.rules, "charge_spacing", "touch") == "half_inch":
            return 0.5 * self.inch
        return None

    # ----------------------------------------------------------------- checks
    def on_board_box(self, box: tuple[float, float, float, float]) -> bool:
        W, D = self.board
        x0, y0, x1, y1 = box
        return x0 >= -TOL and y0 >= -TOL and x1 <= W + TOL and y1 <= D + TOL

    def shape_on_board(self, sh: Shape) -> bool:
        if sh.kind == "poly":
            assert sh.V is not None
            V = sh.vl()
            xs = [p[0] for p in V]
            ys = [p[1] for p in V]
            return self.on_board_box((min(xs), min(ys), max(xs), max(ys)))
        assert sh.a is not None and sh.b is not None
        pts = np.stack([sh.a, sh.b])
        return self.on_board_box((float(pts[:, 0].min() - sh.r), float(pts[:, 1].min() - sh.r),
                                  float(pts[:, 0].max() + sh.r), float(pts[:, 1].max() + sh.r)))

    def check_steps(
        self,
        b: Block,
        steps: list[Step],
        obstacles: list[Obstacle],
        board: bool = True,
        skip_path: bool = False,
    ) -> Blocked | None:
        """Follow the steps and report the first obstacle any of them runs into (the
        end pose included), or None when the whole move is clear."""
        if skip_path:
            # flying: only where the move ends matters
            return self._pose_clear(run_steps(b, steps), obstacles, board, len(steps) - 1)
        # within a ruling (``memo``) the same piece of a move from the same pose is
        # often checked again (the same approach in another world, or against the
        # same obstacle): a piece's sweep and its verdict against one obstacle (by
        # identity, with its spacing) are kept
        sweeps = memo_table("step_sweeps")
        verdicts = memo_table("step_verdicts")
        cur = b
        for i, st in enumerate(steps):
            nxt = st.apply(cur)
            if st.kind == "place":
                res = self._pose_clear(nxt, obstacles, board, i)
                if res is not None:
                    return res
                cur = nxt
                continue
            if st.amount == 0 and st.kind in ("forward", "wheel"):
                cur = nxt
                continue
            sh = cur.shape()
            if sh.kind != "poly":
                # a round base turning about a point: its centre follows an arc;
                # test the end pose and the chord (round units only pivot in place)
                if st.kind != "forward":
                    res = self._pose_clear(nxt, obstacles, board, i)
                    if res is not None:
                        return res
                    cur = nxt
                    continue
            skey = None
            if sweeps is not None:
                skey = (st.kind, st.amount, st.pivot, cur.front, cur.facing, cur.files, cur.models, cur.bw, cur.bd,
                        cur.round)
                piece = sweeps.get(skey)
                if piece is None:
                    piece = sweeps[skey] = self._piece(cur, sh, st)
            else:
                piece = self._piece(cur, sh, st)
            if board and not piece[0]:
                return Blocked("board", "board", i, -1.0)
            for ob in obstacles:
                if verdicts is not None:
                    vkey = (skey, id(ob.shape), ob.min_gap, ob.strict)
                    hit = verdicts.get(vkey)
                    if hit is None or hit[0] is not ob.shape:
                        hit = verdicts[vkey] = (ob.shape, *self._piece_vs(sh, piece, ob))
                    fine, g = hit[1], hit[2]
                else:
                    fine, g = self._piece_vs(sh, piece, ob)
                if not fine:
                    return Blocked(ob.uid, ob.cls, i, g)
            cur = nxt
        return None

    def _piece(self, cur: Block, sh: Shape, st: Step) -> tuple[Any, ...]:
        """What checking one forward, wheel or turn of ``cur`` (shape ``sh``) against
        anything needs: whether it stays on the board, then ``("forward", swept
        region)`` or ``("turn", pivot, angle, reach, end shape)``."""
        if st.kind == "forward":
            sw = sweep_translate(sh, cur.f * st.amount)
            return (self.shape_on_board(sw), "forward", sw)
        if st.kind == "wheel":
            piv = cur.wheel_pivot(st.amount)
        else:
            assert st.pivot is not None
            piv = np.asarray(st.pivot, dtype=float)
        ang = math.radians(st.amount)
        assert sh.V is not None
        on = self.on_board_box(rot_sweep_extent(sh, piv, ang))
        return (on, "turn", piv, ang, _reach(sh, piv), Shape("poly", V=rot_pts(sh.V, piv, ang)))

    @staticmethod
    def _piece_vs(sh: Shape, piece: tuple[Any, ...], ob: Obstacle) -> tuple[bool, float]:
        """(clear?, the gap when not) of one piece of a move against one obstacle."""
        if piece[1] == "forward":
            sw = piece[2]
            if not near(sw, ob.shape, ob.min_gap + 10 * TOL):
                return True, math.inf
            return gap_ok(sw, ob.shape, ob.ok)
        _, _, piv, ang, reach, end_sh = piece
        c, r = ob.shape.bbox_circle()
        if float(np.hypot(*(c - piv))) - r > reach + ob.min_gap + 10 * TOL:
            return True, math.inf
        # quick accept: no point moves more than reach * |ang| / 2 from the nearer of
        # the start and end poses
        slack = reach * abs(ang) / 2

        def quick(g0: float, g1: float) -> bool:
            m = min(g0, g1) - slack
            return ob.ok(m) and m > ob.min_gap + TOL

        # lower bounds of the gaps first (separating axes), exact if needed
        if quick(gap_lower(sh, ob.shape), gap_lower(end_sh, ob.shape)):
            return True, math.inf
        if quick(gap(sh, ob.shape), gap(end_sh, ob.shape)):
            return True, math.inf
        # a closed-form lower bound of the gap over the whole turn (``turn_gap_lower``,
        # e.g. an align turn onto the charged facing, which never crosses that
        # facing's line): every value the exact sweep can give is at least that bound
        # less rounding, so when the bound less 1e-9 passes, the exact test passes
        # (``turn_gap_lower_own``: the same with the turning polygon's own edge lines,
        # e.g. an align turn about the charged unit's corner)
        assert sh.V is not None
        if ob.shape.kind == "poly" and ob.shape.V is not None and len(sh.V) <= 8 and len(ob.shape.V) <= 8:
            p = (float(piv[0]), float(piv[1]))
            if ob.ok(turn_gap_lower(sh, p, ang, ob.shape) - TURN_BOUND_SLACK) or ob.ok(
                    turn_gap_lower_own(sh, p, ang, ob.shape) - TURN_BOUND_SLACK):
                return True, math.inf
        g = rot_sweep_gap_v(sh, piv, ang, ob.shape)
        return ob.ok(g), g

    def _pose_clear(self, b: Block, obstacles: list[Obstacle], board: bool, i: int) -> Blocked | None:
        sh = b.shape()
        if board and not self.shape_on_board(sh):
            return Blocked("board", "board", i, -1.0)
        for ob in obstacles:
            if not near(sh, ob.shape, ob.min_gap + 10 * TOL):
                continue
            fine, g = gap_ok(sh, ob.shape, ob.ok)
            if not fine:
                return Blocked(ob.uid, ob.cls, i, g)
        return None

    def pose_clear(self, b: Block, obstacles: list[Obstacle], board: bool = True) -> Blocked | None:
        return self._pose_clear(b, obstacles, board, -1)


def _reach(sh: Shape, piv: np.ndarray) -> float:
    assert sh.V is not None
    return float(np.max(np.hypot(*(sh.V - piv).T)))


def heading_to(src: np.ndarray, dst: np.ndarray) -> float:
    d = np.asarray(dst, float) - np.asarray(src, float)
    return math.degrees(math.atan2(float(d[1]), float(d[0])))


__all__ = ["Blocked", "Obstacle", "Step", "World", "heading_to", "run_steps", "steps_cost", "unit"]
