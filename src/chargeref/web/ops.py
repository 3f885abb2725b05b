"""What the web API does with a request, written against chargeref's library.

The functions carry the names and arguments of ``chargeref.service`` (the one code
path under the CLI and the web, being built on another branch): ``load_document``,
``check``, ``charge``, ``odds``, ``draw``. Until that module is merged they live here,
doing exactly what the CLI commands do, so the API answers what the CLI answers (the
tests compare the two). ``nearest`` is the board's own live measure.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import yaml

from ..budget import check as budget_check
from ..budget import time_limit
from ..errors import ChargerefError, Problem, RequestError, ScenarioError
from ..scenario import AnyScenario, parse_text, scenario_from_data, scenario_to_data
from ..systems import ChargeRequest, find_system

REROLLS = ("none", "failed", "one_die")
REACTIONS = ("hold", "stand_and_shoot", "flee")


def load_document(data: bytes, source: str = "scenario") -> Any:
    """Bytes of a JSON or YAML document -> plain data (refused: not UTF-8, not JSON or
    YAML). Reads nothing else: no file, no include."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(Problem(source, "the document is not UTF-8 text")) from None
    try:
        return json.loads(text)
    except RecursionError:
        raise ScenarioError(Problem(source, "nested too deeply")) from None
    except ValueError:
        pass
    # YAML anchors and aliases let a small text stand for a huge document: refused.
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise ScenarioError(Problem(source, "YAML aliases (*name) are not accepted; write the values out"))
    except yaml.YAMLError:
        pass  # parse_text names the syntax error and where it is
    except RecursionError:
        raise ScenarioError(Problem(source, "nested too deeply")) from None
    try:
        return parse_text(text, source)
    except RecursionError:
        raise ScenarioError(Problem(source, "nested too deeply")) from None


def scenario(doc: Any, field: str = "scenario") -> AnyScenario:
    """A validated scenario whose every problem is refused at once."""
    if not isinstance(doc, dict):
        raise ScenarioError(Problem(field, "must be a scenario mapping (format, system, board, units)"))
    scen = scenario_from_data(doc)
    problems = find_system(scen.system).problems(scen)
    if problems:
        raise ScenarioError(problems)
    return scen


def normalized(doc: Any) -> Any:
    """A readable scenario in its full written-out form (bases as ``{round: 32}``,
    defaults filled in), which the board draws; anything else as it came."""
    try:
        return scenario_to_data(scenario_from_data(doc))
    except ChargerefError:
        return doc


def check(doc: Any) -> dict[str, Any]:
    """``{"ok": bool, "problems": [{"field", "message"}]}``, as ``chargeref check``."""
    try:
        scenario(doc)
    except ChargerefError as exc:
        return {"ok": False, "problems": [{"field": p.field, "message": p.message} for p in exc.problems]}
    return {"ok": True, "problems": []}


def _dice(value: Any, field: str, n: int | None) -> tuple[int, ...] | None:
    """Dice as a list [3, 4] or text "3,4"; each a whole number 1..6."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = [int(x) for x in value.replace(" ", "").split(",") if x != ""]
        except ValueError:
            raise RequestError(Problem(field, f"expected dice like 3,4 (got {value!r})")) from None
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise RequestError(Problem(field, "expected a list of dice like [3, 4]"))
    if n is not None and len(value) != n:
        raise RequestError(Problem(field, f"expected {n} dice like [3, 4] (got {len(value)})"))
    if not value or any(v < 1 or v > 6 for v in value):
        raise RequestError(Problem(field, "each die is a whole number from 1 to 6"))
    return tuple(value)


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise RequestError(Problem(field, f"must be a whole number from {lo} to {hi}"))
    return value


def _names(charger: Any, targets: Any) -> tuple[str, tuple[str, ...]]:
    if not isinstance(charger, str) or not charger:
        raise RequestError(Problem("charger", "name the charging unit's id"))
    if isinstance(targets, str):
        targets = [targets]
    if not isinstance(targets, list) or not targets or not all(isinstance(t, str) and t for t in targets):
        raise RequestError(Problem("targets", "name at least one target unit id"))
    if len(targets) > 64:
        raise RequestError(Problem("targets", "at most 64 targets"))
    return charger, tuple(targets)


def _reroll(value: Any) -> str:
    if value not in REROLLS:
        raise RequestError(Problem("reroll", f"must be one of {', '.join(REROLLS)}"))
    return str(value)


def charge(
    doc: Any,
    charger: Any,
    targets: Any,
    dice: Any = None,
    roll: Any = None,
    seed: Any = None,
    reroll: Any = "none",
    modifier: Any = 0,
    time_limit_s: float | None = None,
    reaction: Any = None,
    reaction_dice: Any = None,
) -> dict[str, Any]:
    """The ruling's JSON data, as ``chargeref charge ... --json`` prints it."""
    with time_limit(time_limit_s):
        scen = scenario(doc)
        name, tgts = _names(charger, targets)
        if sum(x is not None for x in (dice, roll)) > 1:
            raise RequestError(Problem("dice/roll", "give either dice or roll, not both"))
        if reaction is not None and reaction not in REACTIONS:
            raise RequestError(Problem("reaction", f"must be one of {', '.join(REACTIONS)}"))
        req = ChargeRequest(
            charger=name,
            targets=tgts,
            dice=_dice(dice, "dice", None if scen.system == "warmaster" else 2),
            roll=None if roll is None else _int(roll, "roll", -100, 100),
            modifier=_int(modifier, "modifier", -12, 12),
            reroll=_reroll(reroll),
            seed=None if seed is None else _int(seed, "seed", 0, 2**63 - 1),
            reaction=reaction,
            reaction_dice=_dice(reaction_dice, "reaction_dice", None),
        )
        ruling = find_system(scen.system).charge(scen, req)
        return ruling.to_json_data()


def odds(doc: Any, charger: Any, targets: Any, reroll: Any = "none", modifier: Any = 0,
         time_limit_s: float | None = None) -> dict[str, Any]:
    """The exact chance of success, as ``chargeref odds ... --json`` prints it."""
    from ..dice import success_probability, table

    with time_limit(time_limit_s):
        scen = scenario(doc)
        name, tgts = _names(charger, targets)
        rr = _reroll(reroll)
        mod = _int(modifier, "modifier", -12, 12)
        req = ChargeRequest(charger=name, targets=tgts, modifier=mod, reroll=rr)
        need = find_system(scen.system).needed(scen, req)
        if scen.system == "warmaster":
            p = Fraction(1) if need.distance is not None else Fraction(0)
            tab: dict[int, Fraction] = {}
        else:
            m = mod if scen.system == "40k" else 0
            p = success_probability(need.roll, m, rr)
            tab = table(m, rr)
        return {
            "needed": need.model_dump(mode="json"),
            "modifier": mod,
            "reroll": rr,
            "probability": float(p),
            "probability_fraction": f"{p.numerator}/{p.denominator}",
            "table": {str(k): float(v) for k, v in tab.items()},
        }


def draw(doc: Any, ruling: Any = None, whole_board: bool = False, time_limit_s: float | None = None,
         bare: bool = False) -> str:
    """The SVG picture of a scenario (and a ruling on it), as ``--svg`` writes it."""
    from ..render import render_svg

    with time_limit(time_limit_s):
        scen = scenario(doc)
        if ruling is not None and not isinstance(ruling, dict):
            raise RequestError(Problem("ruling", "must be a ruling mapping"))
        try:
            return render_svg(scen, ruling, whole_board=whole_board, bare=bare)
        except ValueError as exc:  # a ruling that does not fit the scenario
            msg = str(exc).splitlines()[0][:300]
            raise RequestError(Problem("ruling", msg)) from None


def nearest(doc: Any, charger: Any, time_limit_s: float | None = None) -> dict[str, Any] | None:
    """The closest enemy to the charging unit: ``{"unit", "model", "from", "distance"}``
    (base to base, exact footprints; None without enemies)."""
    with time_limit(time_limit_s):
        return _nearest(doc, charger)


def _nearest(doc: Any, charger: Any) -> dict[str, Any] | None:
    from ..geometry.shapes import distance
    from ..render.primitives import _army

    scen = scenario(doc)
    if not isinstance(charger, str):
        raise RequestError(Problem("charger", "name the charging unit's id"))
    army = _army(scen)
    if charger not in army.players:
        raise RequestError(Problem("charger", f"no unit {charger!r} in the scenario"))
    mine = army.of_unit(charger)
    side = army.players[charger]
    best: dict[str, Any] | None = None
    for p in mine:
        budget_check()
        for q in army.pieces:
            if army.players[q.unit] == side:
                continue
            # a cheap lower bound first: centres apart minus both reaches
            if best is not None and math.dist(p.xy, q.xy) - p.fp.radius - q.fp.radius > best["distance"]:
                continue
            d = float(distance(p.fp, q.fp))
            if best is None or d < best["distance"]:
                best = {"unit": q.unit, "model": q.id, "from": p.id, "distance": d}
    return best


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2)
