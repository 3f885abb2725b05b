"""Threat maps: at every spot where unit B could stand, the exact chance that the enemy
charges it successfully there (per enemy unit and combined).

Unit B moves as a whole: its models keep their places relative to each other and the
centroid of their centres goes to each grid point, ``step`` apart from the board's
corner (0, 0) to its far edges. At each spot every unit of the other player is asked,
through its rule system, for its least roll against B alone (the system decides
eligibility: too far, starting engaged, having advanced... all give no roll). The roll
becomes an exact probability with ``chargeref.dice`` (2D6, the re-roll and modifier
of that unit's ``charges:`` entry if the scenario has one); independent charges combine
as one minus the product of the misses. Fractions are kept until the arrays are filled.

A spot where B cannot stand (a base off the board, overlapping another model or
terrain that nobody may end on: whatever ``check`` would refuse) is NaN.

Exact short cuts (``prune.py``): a spot where a proven bound on the gap already puts B
out of an enemy's reach is 0 without asking the system (every system); a 40k
charge whose least roll is proven at its lower bound by one probe of the system's
search skips the rest of ``needed``. Neither ever changes a value.

Warmaster has no charge roll: the charge itself is ruled, and the chance is 1 or 0;
when the ruling rolls the Revolution zone die, each of its six faces is ruled and the
chance is the share of faces that succeed.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..budget import DEFAULT_SECONDS, check, time_limit
from ..dice import success_probability
from ..errors import Problem, RequestError
from ..scenario import AnyScenario, mm_per_unit, scenario_from_data, scenario_to_data
from ..systems import ChargeRequest, find_system
from ..systems.base import require_unit
from .executors import Progress, check_choice, map_ordered
from .prune import Reach, least_roll_40k, reach_40k, reach_t9a, reach_warmaster

FORMAT = "chargeref-threat/1"
#: spots per worker task
CHUNK = 16


@dataclass
class ThreatMap:
    """The threat to one unit over a grid of spots.

    ``probability[j][i]`` is for the spot ``(x[i], y[j])``; ``by[enemy]`` has the same
    shape; NaN where the unit cannot stand. ``fractions`` keeps the exact values
    (``None`` where NaN) for whoever needs them."""

    unit: str
    step: float
    x: np.ndarray
    y: np.ndarray
    probability: np.ndarray
    by: dict[str, np.ndarray]
    fractions: list[list[Fraction | None]] = field(default_factory=list, repr=False)

    def to_json_data(self) -> dict[str, Any]:
        def grid(a: np.ndarray) -> list[list[float | None]]:
            return [[None if math.isnan(v) else float(v) for v in row] for row in a.tolist()]

        return {
            "format": FORMAT,
            "unit": self.unit,
            "step": float(self.step),
            "x": [float(v) for v in self.x],
            "y": [float(v) for v in self.y],
            "probability": grid(self.probability),
            "by": {k: grid(v) for k, v in self.by.items()},
        }


# ---------------------------------------------------------------------- moving B


def _centres(scen: AnyScenario, uid: str) -> np.ndarray:
    u = require_unit(scen, uid, "--unit")
    if scen.system == "40k":
        return np.array([[m.at[0], m.at[1]] for m in u.models], dtype=float)
    if scen.system == "warmaster":
        return np.array([list(s.at) for s in u.stands], dtype=float)
    from ..geometry.blocks import block_model_centres

    f = u.formation
    k = mm_per_unit(scen)
    if f.base.kind == "round":
        r = f.base.round / k / 2
        th = math.radians(f.facing)
        return np.array([[f.front[0] - r * math.cos(th), f.front[1] - r * math.sin(th)]])
    w, d = f.base.rect
    return block_model_centres(f.front, f.facing, f.files, f.models, w / k, d / k)


def move_unit(scen: AnyScenario, uid: str, to: tuple[float, float]) -> AnyScenario:
    """The scenario with unit ``uid`` translated so the centroid of its model centres is
    at ``to`` (40k models are put on the ground: a height given in ``at`` is dropped)."""
    c = _centres(scen, uid).mean(axis=0)
    dx, dy = to[0] - float(c[0]), to[1] - float(c[1])
    units = []
    for u in scen.units:
        if u.id == uid:
            if scen.system == "40k":
                u = u.model_copy(update={"models": [m.model_copy(update={"at": (m.at[0] + dx, m.at[1] + dy)}) for m in u.models]})
            elif scen.system == "warmaster":
                u = u.model_copy(update={"stands": [s.model_copy(update={"at": (s.at[0] + dx, s.at[1] + dy)}) for s in u.stands]})
            else:
                f = u.formation
                u = u.model_copy(update={"formation": f.model_copy(update={"front": (f.front[0] + dx, f.front[1] + dy)})})
        units.append(u)
    return scen.model_copy(update={"units": units})


# ---------------------------------------------------------------------- one spot


class _Context:
    """What every spot of one map shares: built once per worker process."""

    def __init__(self, data: dict[str, Any], uid: str, seconds: float | None) -> None:
        self.scen = scenario_from_data(data)
        self.system = find_system(self.scen.system)
        self.uid = uid
        self.seconds = seconds
        me = require_unit(self.scen, uid, "--unit")
        self.enemies = [u.id for u in self.scen.units if u.player != me.player]
        self.specs: dict[str, tuple[int, str]] = {}
        for e in self.enemies:
            spec = next((c for c in self.scen.charges if c.charger == e), None)
            self.specs[e] = (spec.modifier, spec.reroll) if spec is not None else (0, "none")
        self.reach = self._reach()

    def _reach(self) -> Reach:
        """The out-of-reach bound of each enemy (``prune.py``)."""
        if self.scen.system == "40k":
            return reach_40k(self.scen, self.uid, self.enemies, self.specs)
        centroid = _centres(self.scen, self.uid).mean(axis=0)
        if self.scen.system == "t9a":
            return reach_t9a(self.scen, self.uid, self.enemies, self.specs, centroid)
        return reach_warmaster(self.scen, self.uid, self.enemies, centroid)

    def out_of_reach(self, enemy: str, at: tuple[float, float]) -> bool:
        """True when a proven lower bound on the gap between B (at ``at``) and the
        enemy already rules the charge out (never for a reachable charge)."""
        return self.reach.out_of_reach(enemy, at)

    def odds(self, scen: AnyScenario, enemy: str, world: Any = None) -> Fraction:
        """The exact chance that ``enemy`` charges B successfully in ``scen`` (``world``:
        the 40k world of ``scen`` when the caller has built it already)."""
        mod, reroll = self.specs[enemy]
        if scen.system == "warmaster":
            return self._warmaster_odds(scen, enemy)
        req = ChargeRequest(charger=enemy, targets=(self.uid,), modifier=mod, reroll=reroll)
        with time_limit(self.seconds, f"the charge of {enemy} in the threat map"):
            if scen.system == "40k":
                roll = least_roll_40k(self.system, scen, req, world)
            else:
                roll = self.system.needed(scen, req).roll
        # 40k: the roll is the 2D6 total with the modifier; T9A: the 2D6 part alone
        return success_probability(roll, mod if scen.system == "40k" else 0, reroll)

    def _warmaster_odds(self, scen: AnyScenario, enemy: str) -> Fraction:
        req = ChargeRequest(charger=enemy, targets=(self.uid,))
        with time_limit(self.seconds, f"the charge of {enemy} in the threat map"):
            return self.system.chance(scen, req)  # type: ignore[attr-defined]

    def spot(self, at: tuple[float, float]) -> dict[str, Fraction] | None:
        """Per enemy the exact chance of a successful charge on B at ``at``; None
        where B cannot stand."""
        check()
        scen = move_unit(self.scen, self.uid, at)
        if self.system.problems(scen):
            return None
        near = [e for e in self.enemies if not self.out_of_reach(e, at)]
        world = None
        if near and scen.system == "40k":  # one world for every enemy's charge at this spot
            from ..systems.w40k.world import build_world

            world = build_world(scen)
        return {e: (self.odds(scen, e, world) if e in near else Fraction(0)) for e in self.enemies}


_CONTEXTS: dict[tuple[str, str, float | None], _Context] = {}


def _context(text: str, uid: str, seconds: float | None) -> _Context:
    key = (hashlib.sha256(text.encode()).hexdigest(), uid, seconds)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _Context(json.loads(text), uid, seconds)
        # one map at a time per worker: bounded memory (threads of the web server
        # share this cache; each keeps its own reference while it works)
        _CONTEXTS.clear()
        _CONTEXTS[key] = ctx
    return ctx


def threat_row(task: tuple[str, str, float | None, float, list[float]]) -> list[dict[str, tuple[int, int]] | None]:
    """Spots of one row of the map (a worker task): per x, per enemy, (numerator,
    denominator)."""
    text, uid, seconds, y, xs = task
    ctx = _context(text, uid, seconds)
    row: list[dict[str, tuple[int, int]] | None] = []
    for x in xs:
        cell = ctx.spot((x, y))
        row.append(None if cell is None else {e: (p.numerator, p.denominator) for e, p in cell.items()})
    return row


# ---------------------------------------------------------------------- the map


def threat_at(scen: AnyScenario, unit: str, at: tuple[float, float], *, seconds: float | None = DEFAULT_SECONDS) -> dict[str, Fraction] | None:
    """The exact chance, per enemy unit, of a successful charge on ``unit`` with the
    centroid of its model centres at ``at``; None where the unit cannot stand there."""
    require_unit(scen, unit, "--unit")
    ctx = _Context(json.loads(json.dumps(scenario_to_data(scen))), unit, seconds)
    return ctx.spot((float(at[0]), float(at[1])))


def grid_axis(length: float, step: float) -> np.ndarray:
    """0, step, 2 step, ... up to ``length`` (the far edge included when it falls on
    the grid, to within 1e-9)."""
    n = math.floor(length / step + 1e-9)
    return np.array([round(k * step, 9) for k in range(n + 1)], dtype=float)


def combined(by: dict[str, Fraction]) -> Fraction:
    """The chance that at least one of several independent charges succeeds."""
    miss = Fraction(1)
    for p in by.values():
        miss *= 1 - p
    return 1 - miss


def threat_map(
    scen: AnyScenario,
    unit: str,
    step: float = 1.0,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    *,
    pool: str = "process",
    seconds: float | None = DEFAULT_SECONDS,
    rows: tuple[int, int] | None = None,
) -> ThreatMap:
    """The threat map of ``unit`` (see the module text). ``workers``/``scheduler``/
    ``pool`` choose where the rows are computed (``chargeref.batch.executors``);
    ``seconds`` is the time limit of each single ``needed`` call. ``rows=(first, end)``
    computes only the rows ``y[first:end]`` of the whole map (the web board asks for a
    map a few rows at a time to show its progress); the values are the same as in the
    whole map."""
    require_unit(scen, unit, "--unit")
    check_choice(workers, scheduler)
    if not (isinstance(step, (int, float)) and math.isfinite(step) and step > 0):
        raise RequestError(Problem("--step", f"the step must be a positive number (got {step})"))
    xs = grid_axis(float(scen.board.width), float(step))
    ys = grid_axis(float(scen.board.depth), float(step))
    if len(xs) * len(ys) > 1_000_000:
        raise RequestError(Problem("--step", f"{len(xs)} x {len(ys)} spots is too many; use a larger step"))
    if rows is not None:
        first, end = rows
        if not (0 <= first < end <= len(ys)):
            raise RequestError(Problem("rows", f"rows {first} to {end} are not within the map's {len(ys)} rows"))
        ys = ys[first:end]
    text = json.dumps(scenario_to_data(scen), sort_keys=True)
    enemies = _Context(json.loads(text), unit, seconds).enemies
    # tasks of at most CHUNK spots of one row: small enough that the last task to finish
    # keeps the other workers waiting only briefly
    tasks = [(text, unit, seconds, float(y), [float(x) for x in xs[k:k + CHUNK]]) for y in ys for k in range(0, len(xs), CHUNK)]
    parts = map_ordered(threat_row, tasks, workers=workers, scheduler=scheduler, pool=pool, progress=progress)
    per_row = -(-len(xs) // CHUNK)
    cells_by_row = [[cell for part in parts[j * per_row:(j + 1) * per_row] for cell in part] for j in range(len(ys))]
    shape = (len(ys), len(xs))
    prob = np.full(shape, np.nan)
    by = {e: np.full(shape, np.nan) for e in enemies}
    fracs: list[list[Fraction | None]] = []
    for j, row in enumerate(cells_by_row):
        frow: list[Fraction | None] = []
        for i, cell in enumerate(row):
            if cell is None:
                frow.append(None)
                continue
            per = {e: Fraction(n, d) for e, (n, d) in cell.items()}
            for e, p in per.items():
                by[e][j, i] = float(p)
            total = combined(per)
            prob[j, i] = float(total)
            frow.append(total)
        fracs.append(frow)
    return ThreatMap(unit=unit, step=float(step), x=xs, y=ys, probability=prob, by=by, fractions=fracs)
