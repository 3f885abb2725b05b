"""What the web API does with a request, over :mod:`chargeref.service`.

The rulings themselves (check, charge, odds, the picture) come from
``chargeref.service``, the one code path under the CLI and the web, so the API answers
what the CLI answers. This module adds only what the board needs besides: a readable
scenario written out in full (``normalized``), the picture options of the board
(whole board, bare map), and the live distance to the nearest enemy (``nearest``).
"""

from __future__ import annotations

import math
from typing import Any

from .. import service
from ..budget import check as budget_check
from ..budget import time_limit
from ..errors import ChargerefError, Problem, RequestError
from ..ruling import ruling_from_data
from ..scenario import AnyScenario, scenario_to_data

#: the request fields of a charge beyond the contract's (system options)
CHARGE_EXTRAS = ("reaction", "reaction_dice", "casualties", "first_stand", "redirect", "redirect_dice")


def load_document(data: bytes, source: str = "scenario") -> Any:
    """Bytes of a JSON or YAML document -> plain data, within the service's limits."""
    return service.load_document(data, source=source)


def scenario(doc: Any) -> AnyScenario:
    """The validated scenario (every problem refused at once)."""
    return service.parse_scenario(doc)


def normalized(doc: Any) -> Any:
    """A readable scenario in its full written-out form (bases as ``{round: 32}``,
    defaults filled in), which the board draws; anything else as it came."""
    try:
        return scenario_to_data(scenario(doc))
    except ChargerefError:
        return doc


def names(charger: Any, targets: Any) -> tuple[str, list[str]]:
    """The charger and targets of a request body, as text."""
    if not isinstance(charger, str) or not charger:
        raise RequestError(Problem("charger", "name the charging unit's id"))
    if isinstance(targets, str):
        targets = [targets]
    if targets is None:
        targets = []
    if not isinstance(targets, list) or not all(isinstance(t, str) and t for t in targets):
        raise RequestError(Problem("targets", "a list of target unit ids"))
    return charger, targets


def draw(doc: Any, ruling: Any = None, *, whole_board: bool = False, bare: bool = False,
         time_limit_s: float | None = None) -> str:
    """The SVG picture of a scenario (and a ruling on it). Without options it is the
    service's drawing (what ``charge --svg`` writes); ``whole_board`` shows the whole
    table, ``bare`` only the map in board coordinates (for the page)."""
    from ..render import render_svg
    from ..render.primitives import split_segments

    with time_limit(time_limit_s, "the drawing"):
        if not whole_board and not bare and not (isinstance(ruling, dict) and _has_segments(ruling)):
            return service.draw(doc, ruling)
        scen = scenario(doc)
        segs: dict[int, list[Any]] = {}
        r = None
        if ruling is not None:
            if isinstance(ruling, dict):
                ruling, segs = split_segments(ruling)
            r = ruling_from_data(ruling)
            if r.system != scen.system:
                raise RequestError(Problem("ruling.system", f"the ruling is a {r.system!r} ruling, the scenario is {scen.system!r}"))
        return render_svg(scen, r, whole_board=whole_board, bare=bare, segments=segs)


def _has_segments(ruling: dict[str, Any]) -> bool:
    moves = ruling.get("moves")
    return isinstance(moves, list) and any(isinstance(m, dict) and "segments" in m for m in moves)


def nearest(doc: Any, charger: Any, time_limit_s: float | None = None) -> dict[str, Any] | None:
    """The closest enemy model to the charging unit, base to base on exact footprints:
    ``{"unit", "model", "from", "distance", "points"}`` (None without enemies). The
    distance is exact; ``points`` (one on each base, where they come closest) only
    place the board's measuring line."""
    from ..geometry.shapes import distance
    from ..render.primitives import _army, _closest_points

    with time_limit(time_limit_s, "the nearest enemy"):
        scen = scenario(doc)
        if not isinstance(charger, str):
            raise RequestError(Problem("charger", "name the charging unit's id"))
        army = _army(scen)
        if charger not in army.players:
            raise RequestError(Problem("charger", f"no unit {charger[:60]!r} in the scenario"))
        side = army.players[charger]
        best: dict[str, Any] | None = None
        for p in army.of_unit(charger):
            budget_check()
            for q in army.pieces:
                if army.players[q.unit] == side:
                    continue
                # centres apart minus both reaches never exceeds the true distance
                if best is not None and math.dist(p.xy, q.xy) - p.fp.radius - q.fp.radius > best["distance"]:
                    continue
                d = float(distance(p.fp, q.fp))
                if best is None or d < best["distance"]:
                    best = {"unit": q.unit, "model": q.id, "from": p.id, "distance": d, "pair": (p, q)}
        if best is None:
            return None
        p, q = best.pop("pair")
        a, b = _closest_points(p.fp, q.fp)
        best["points"] = [[round(float(a[0]), 4), round(float(a[1]), 4)], [round(float(b[0]), 4), round(float(b[1]), 4)]]
        return best


#: the most spots one threat request may ask for (the page asks a few rows at a time)
THREAT_MAX_SPOTS = 20_000


def threat(doc: Any, unit: Any, step: Any = 1.0, rows: Any = None, *, time_limit_s: float | None = None) -> dict[str, Any]:
    """The threat map of ``unit`` (``chargeref-threat/1``, as ``threat --json``), or
    only its rows ``rows = [first, end)``, computed in this thread under the server's
    time limit for the whole request."""
    from ..batch import threat_map
    from ..batch.threat import grid_axis

    if not isinstance(unit, str) or not unit:
        raise RequestError(Problem("unit", "name the unit that might be charged"))
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not math.isfinite(step) or step <= 0:
        raise RequestError(Problem("step", f"the step must be a positive number (got {str(step)[:40]})"))
    span: tuple[int, int] | None = None
    if rows is not None:
        if not (isinstance(rows, list) and len(rows) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in rows)):
            raise RequestError(Problem("rows", "give [first, end): two whole numbers"))
        span = (rows[0], rows[1])
    with time_limit(time_limit_s, "the threat map"):
        scen = scenario(doc)
        if not any(u.id == unit for u in scen.units):
            raise RequestError(Problem("unit", f"no unit {unit[:60]!r} in the scenario"))
        nx = len(grid_axis(float(scen.board.width), float(step)))
        ny = len(grid_axis(float(scen.board.depth), float(step))) if span is None else max(0, span[1] - span[0])
        if nx * ny > THREAT_MAX_SPOTS:
            raise RequestError(Problem("step" if span is None else "rows",
                                       f"{nx} x {ny} spots in one request is more than {THREAT_MAX_SPOTS}; "
                                       "use a larger step or ask for fewer rows"))
        tm = threat_map(scen, unit, float(step), pool="inline", seconds=time_limit_s, rows=span)
        return tm.to_json_data()
