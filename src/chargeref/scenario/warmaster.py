"""Warmaster scenario pieces: units of stands (measured in centimetres by default)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .common import Base, Board, ChargeSpec, Point2, Strict, Terrain, UnitCommon


class RulesWarmaster(Strict):
    variant: Literal["original", "revolution"] = "original"


class Stand(Strict):
    id: str | None = None
    at: Point2
    facing: Annotated[float, Field(allow_inf_nan=False)] = 90.0


WarmasterType = Literal["infantry", "cavalry", "chariot", "monster", "artillery", "character"]


class UnitWarmaster(UnitCommon):
    type: WarmasterType
    stands: list[Stand] = Field(min_length=1)
    base: Base | None = None
    move: Annotated[float, Field(gt=0, le=500)] | None = None
    formation: Literal["line", "column", "irregular"] | None = None


class ScenarioWarmaster(Strict):
    format: Literal["chargeref/1"]
    system: Literal["warmaster"]
    rules: RulesWarmaster = RulesWarmaster()
    unit: Literal["in", "cm"] = "cm"
    board: Board
    terrain: list[Terrain] = []
    units: list[UnitWarmaster]
    charges: list[ChargeSpec] = []
