"""The 9th Age scenario pieces: rank-and-file blocks."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .common import Base, Board, ChargeSpec, Coord, Strict, Terrain, UnitCommon


class RulesT9A(Strict):
    #: "path": the distance the charge move needs (wheel included); "gap": closest distance.
    charge_distance: Literal["path", "gap"] = "path"


class Formation(Strict):
    front: tuple[Coord, Coord]
    facing: Annotated[float, Field(allow_inf_nan=False)]
    files: Annotated[int, Field(ge=1, le=100)]
    models: Annotated[int, Field(ge=1, le=1000)]
    base: Base

    @model_validator(mode="after")
    def _shape(self) -> Formation:
        if self.base.kind not in ("rect", "round"):
            raise ValueError("T9A bases are rect [W, D] or round (single models)")
        if self.base.kind == "round" and (self.files != 1 or self.models != 1):
            raise ValueError("a round base is for a single model: files 1, models 1")
        if self.files > self.models:
            raise ValueError("files cannot exceed models")
        return self


class UnitT9A(UnitCommon):
    formation: Formation
    advance_rate: Annotated[float, Field(ge=0, le=50)] = 4.0
    march_rate: Annotated[float, Field(ge=0, le=100)] | None = None
    discipline: Annotated[int, Field(ge=0, le=12)] = 7
    #: can this unit shoot (for Stand and Shoot)
    shooting: bool = False


class ScenarioT9A(Strict):
    format: Literal["chargeref/1"]
    system: Literal["t9a"]
    rules: RulesT9A = RulesT9A()
    unit: Literal["in", "cm"] = "in"
    board: Board
    terrain: list[Terrain] = []
    units: list[UnitT9A]
    charges: list[ChargeSpec] = []
