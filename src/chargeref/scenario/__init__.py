"""The public scenario format (chargeref/1): parsing, readable errors, saving.

``load_scenario(path)`` reads JSON or YAML and returns an immutable, validated
scenario of the right system; ``scenario_problems(scen)`` adds the geometric and
cross-reference checks of the system; together they are ``chargeref check``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from ..errors import Problem, ScenarioError
from .common import MM_PER_UNIT, Base, Board, ChargeSpec
from .limits import DEFAULT_LIMITS, Limits, check_values
from .t9a import ScenarioT9A, UnitT9A
from .w40k import Model40k, Scenario40k, Unit40k
from .warmaster import ScenarioWarmaster, UnitWarmaster

Scenario = Annotated[Scenario40k | ScenarioT9A | ScenarioWarmaster, Field(discriminator="system")]
AnyScenario = Scenario40k | ScenarioT9A | ScenarioWarmaster
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Scenario)
SYSTEMS = ("40k", "t9a", "warmaster")


def scenario_schema() -> dict[str, Any]:
    return _ADAPTER.json_schema()


def _readable_loc(raw: Any, loc: tuple[Any, ...]) -> str:
    """('units', 0, 'models', 1, 'base') -> 'units[A].models[A2].base' using ids."""
    out = ""
    node = raw
    for part in loc:
        if isinstance(part, int):
            label = str(part)
            try:
                item = node[part]
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    label = item["id"]
                node = item
            except (IndexError, KeyError, TypeError):
                node = None
            out += f"[{label}]"
        else:
            if part in SYSTEMS and out == "":
                continue  # discriminator tag
            if isinstance(part, str) and (part.startswith("function-") or part in ("tagged-union[Ruin,Wall,Barricade,Obstacle,Impassable,Hill]",)):
                continue
            if isinstance(part, str) and part in ("ruin", "wall", "barricade", "obstacle", "impassable", "hill") and out.endswith("]") and ".terrain" in ("." + out.split("[")[0]):
                continue
            out += ("." if out else "") + str(part)
            try:
                node = node[part] if isinstance(node, dict) else None
            except (KeyError, TypeError):
                node = None
    return out or "scenario"


def _is_branch(part: Any) -> bool:
    """A location step that names one form of a union (pydantic's type label, such as
    ``tuple[float, float]``), not a field the user wrote."""
    return isinstance(part, str) and "[" in part and not part.startswith("tagged-union[")


def _shown(value: Any) -> str:
    """A short rendering of what the user wrote, as JSON spells it."""
    import json

    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _problems_from_validation(raw: Any, err: ValidationError) -> list[Problem]:
    probs = []
    seen = set()
    errors = err.errors()
    # a field that may take several forms (``at``: [x, y] or [x, y, z]) reports one
    # error per form, each under the form's type name: one line on the field instead,
    # from the form whose length fits when there is one (``[1, "x", 3]`` is about "x",
    # not about being too long for [x, y])
    placed: list[tuple[int | None, str]] = []
    chosen: dict[str, int] = {}
    for i, e in enumerate(errors):
        loc = tuple(e["loc"])
        branch = next((j for j, part in enumerate(loc) if _is_branch(part)), None)
        field = _readable_loc(raw, loc if branch is None else loc[:branch])
        placed.append((branch, field))
        if branch is not None:
            if field not in chosen:
                chosen[field] = i
            elif errors[chosen[field]]["type"] in ("too_long", "too_short") and e["type"] not in ("too_long", "too_short"):
                chosen[field] = i
    for i, e in enumerate(errors):
        loc = tuple(e["loc"])
        branch, field = placed[i]
        msg = e["msg"]
        if branch is not None:
            if chosen[field] != i:
                continue
            rest = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[branch + 1:]
                           if not _is_branch(p))
            msg = f"{msg} ({field.rsplit('.', 1)[-1]}{rest})" if rest else msg
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        if e["type"] == "bool_type":
            msg = f"must be true or false (a boolean, not text or a number; got {_shown(e.get('input'))})"
        if e["type"] in ("too_long", "too_short") and e.get("ctx", {}).get("field_type") == "Tuple":
            ctx = e["ctx"]
            msg = f"must be {ctx.get('max_length', ctx.get('min_length'))} values (got {ctx.get('actual_length')})"
        if e["type"] == "union_tag_invalid":
            ctx = e.get("ctx", {})
            msg = f"unknown {ctx.get('discriminator', 'type')} {ctx.get('tag')!r} (known: {ctx.get('expected_tags')})".replace("'type'", "type")
        key = (field, msg)
        if key not in seen:
            seen.add(key)
            probs.append(Problem(field, msg))
    return probs


def parse_text(text: str | bytes, source: str = "scenario") -> Any:
    """JSON or YAML text -> plain data (no validation yet), through the guarded loader."""
    from .loader import load_bytes

    return load_bytes(text.encode("utf-8") if isinstance(text, str) else text, source=source)


def scenario_from_data(data: Any, limits: Limits = DEFAULT_LIMITS) -> AnyScenario:
    if not isinstance(data, dict):
        raise ScenarioError(Problem("scenario", "the document must be a mapping with format, system, board and units"))
    if "format" not in data:
        raise ScenarioError(Problem("format", "missing: a scenario starts with format: chargeref/1"))
    if data.get("format") != "chargeref/1":
        raise ScenarioError(Problem("format", f"must be 'chargeref/1' (got {str(data.get('format'))[:60]!r})"))
    if "system" not in data:
        raise ScenarioError(Problem("system", "missing: name the game (40k, t9a or warmaster)"))
    if data.get("system") not in SYSTEMS:
        raise ScenarioError(Problem("system", f"unknown system {data.get('system')!r} (known: 40k, t9a, warmaster)"))
    check_values(data, "scenario", limits)
    try:
        return _ADAPTER.validate_python(data)  # type: ignore[no-any-return]
    except ValidationError as err:
        raise ScenarioError(_problems_from_validation(data, err)) from None


def load_scenario(path: str | Path) -> AnyScenario:
    """Read and validate a scenario file (JSON or YAML)."""
    from .loader import load_bytes, read_path

    return scenario_from_data(load_bytes(read_path(path), source=str(path)))


def scenario_to_data(scen: AnyScenario) -> dict[str, Any]:
    """Plain JSON-ready data of a scenario (round-trips through ``scenario_from_data``)."""
    return scen.model_dump(mode="json", exclude_none=True)


def mm_per_unit(scen: AnyScenario) -> float:
    return MM_PER_UNIT[scen.unit]


def inch(scen: AnyScenario) -> float:
    """One inch in the scenario's unit (rules thresholds are written in inches)."""
    return 25.4 / MM_PER_UNIT[scen.unit]


__all__ = [
    "AnyScenario",
    "Base",
    "Board",
    "ChargeSpec",
    "Model40k",
    "Scenario",
    "Scenario40k",
    "ScenarioT9A",
    "ScenarioWarmaster",
    "Unit40k",
    "UnitT9A",
    "UnitWarmaster",
    "inch",
    "load_scenario",
    "mm_per_unit",
    "parse_text",
    "scenario_from_data",
    "scenario_schema",
    "scenario_to_data",
]
