"""The ruling document (chargeref-ruling/1): what a charge did to a scenario.

Field names and meanings follow ``shared/design/scenario-format.md``. Systems add
their own detail under ``details`` (documented in docs/ruling.md), never by changing
what a contract field means.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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


class Move(_M):
    id: str
    from_: list[float] = Field(alias="from")
    to: list[float]
    #: the move's cost along its path, climbing included (scenario unit)
    distance: float
    contacts: list[str] = []
    token: bool = False
    #: the path the base's centre takes, as [x, y] points (start and end included)
    path: list[list[float]] | None = None
    #: the same path as exact pieces: {"kind": "line", "from", "to"} and {"kind": "arc",
    #: "center", "radius", "from", "to", "ccw"}; when present it is the path checked
    segments: list[dict[str, Any]] | None = None
    facing: float | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


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
    after: dict[str, Any] | None = None

    def to_json_data(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        if self.needed is not None:
            # null is meaningful here: no roll can succeed
            data["needed"].setdefault("distance", None)
            data["needed"].setdefault("roll", None)
        return data


def ruling_schema() -> dict[str, Any]:
    return Ruling.model_json_schema(by_alias=True)
