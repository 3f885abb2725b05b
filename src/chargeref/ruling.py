"""The ruling document (chargeref-ruling/1): what a charge did to a scenario.

Field names and meanings follow ``shared/design/scenario-format.md``. Systems add
their own detail under ``details`` (documented in docs/ruling.md), never by changing
what a contract field means.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import Problem, ScenarioError


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Reason(_M):
    """Why something was refused or failed: a stable code, prose, and the models."""

    code: str
    message: str
    models: list[str] = []
    #: optional geometric evidence (points, distances) for drawings and tests
    witness: dict[str, Any] | None = None


class Needed(_M):
    #: the least move distance with which the charge can succeed (scenario unit)
    distance: float | None = None
    #: the least charge roll (2D6 + modifiers; T9A: the 2D6 part) that can succeed
    roll: int | None = None
    #: a proven lower bound on the distance; equal to ``distance`` when the solver's
    #: answer is exactly optimal
    lower_bound: float | None = None
    #: True when ``roll`` is proven least (the lower bound rounds to the same roll)
    exact: bool | None = None


class Roll(_M):
    dice: list[int]
    modifier: int = 0
    total: int
    #: the dice before a re-roll, if one was used
    rerolled_from: list[int] | None = None
    seed: int | None = None


#: a position: [x, y] or [x, y, z]
Position = Annotated[list[float], Field(min_length=2, max_length=3)]


class Move(_M):
    id: str
    from_: Position = Field(alias="from")
    to: Position
    #: the move's cost along its path, climbing included (scenario unit)
    distance: float
    contacts: list[str] = []
    token: bool = False
    #: the path the base's centre takes, as [x, y] points (start and end included)
    path: list[Position] | None = None
    #: the same path as exact pieces: {"kind": "line", "from", "to"} and {"kind": "arc",
    #: "center", "radius", "from", "to", "ccw"}; when present it is the path checked.
    #: A non-round base that turns about its centre adds {"kind": "pivot", "at": [x, y],
    #: "from": degrees, "to": degrees, "length": R * |turn in radians|} (R: the largest
    #: distance from its centre to its edge) at the start and/or end of its pieces; the
    #: pivot's length is part of ``distance``
    segments: list[dict[str, Any]] | None = None
    #: the facing the model ends with (degrees), when it turned or when the system says so
    facing: float | None = None
    #: the facing it had before it turned (recorded with ``facing`` when a pivot was made)
    facing_from: float | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Choice(_M):
    """Edition 11 picks targets after the roll: one set of enemy units the charger could
    name, with the least roll that lets it pick them and make the move."""

    targets: list[str]
    #: the least move and the least roll for this set (roll: the larger of the roll the
    #: move needs and the roll that puts every target within the rolled distance)
    needed: Needed
    #: this ruling's roll may pick these targets (each within 12" and within the roll)
    #: and the charge move succeeds with it
    allowed: bool
    #: closest gap from the charger to each target (the distance the roll must reach)
    gaps: dict[str, float] = {}
    #: the chance a fresh charge roll (with the request's re-roll and modifier) allows
    #: this set, as a float and an exact fraction
    probability: float | None = None
    probability_fraction: str | None = None


class Ruling(_M):
    format: str = "chargeref-ruling/1"
    system: str
    charger: str
    targets: list[str]
    eligible: bool
    needed: Needed | None = None
    roll: Roll | None = None
    success: bool
    procedure: str
    moves: list[Move] = []
    engaged: list[str] = []
    reasons: list[Reason] = []
    details: dict[str, Any] = {}
    #: edition 11, a request without targets: every target set the roll may pick
    choices: list[Choice] | None = None
    after: dict[str, Any] | None = None

    def to_json_data(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        if self.needed is not None:
            # null is meaningful here: no roll can succeed
            data["needed"].setdefault("distance", None)
            data["needed"].setdefault("roll", None)
        for cd in data.get("choices", []):
            cd["needed"].setdefault("distance", None)
            cd["needed"].setdefault("roll", None)
        return data


def ruling_schema() -> dict[str, Any]:
    return Ruling.model_json_schema(by_alias=True)


RULING_FORMAT = "chargeref-ruling/1"


def ruling_from_data(data: Any, source: str = "ruling") -> Ruling:
    """A ruling document -> :class:`Ruling`, or ScenarioError naming the fields that
    are wrong (``ruling.moves[A1].to``). Numbers are held to the document limits."""
    from .scenario.limits import check_values

    if isinstance(data, Ruling):
        return data
    if not isinstance(data, dict):
        raise ScenarioError(Problem(source, "a ruling is a mapping with format, system, charger, targets, ..."))
    if data.get("format") != RULING_FORMAT:
        raise ScenarioError(Problem(f"{source}.format", f"must be {RULING_FORMAT!r} (got {str(data.get('format'))[:60]!r})"))
    check_values(data, source)
    try:
        return Ruling.model_validate(data)
    except ValidationError as err:
        probs: list[Problem] = []
        for e in err.errors()[:20]:
            where = source
            node: Any = data
            for part in e["loc"]:
                if isinstance(part, int):
                    item = node[part] if isinstance(node, list) and part < len(node) else None
                    label = item["id"] if isinstance(item, dict) and isinstance(item.get("id"), str) else str(part)
                    where += f"[{label}]"
                    node = item
                else:
                    where += f".{part}"
                    node = node.get(part) if isinstance(node, dict) else None
            msg = "unknown field" if e["type"] == "extra_forbidden" else e["msg"]
            probs.append(Problem(where, msg))
        raise ScenarioError(probs) from None
