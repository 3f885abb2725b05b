"""Warhammer 40,000 scenario pieces: units of individually placed models."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from .common import Base, Board, ChargeSpec, Coord, Strict, Terrain, UnitCommon


class Rules40k(Strict):
    #: 9, 10 or 11 (rules-notes §1.13: June 2026); 10 stays the default of chargeref/1 files
    edition: Literal[9, 10, 11] = 10
    #: WTC precise procedure and walls rule; the default comes from the editions table
    #: (true with edition 10 only).
    wtc: bool | None = None
    #: edition 9: a failed charge still moves up to the roll and ends closer (seed 002).
    failed_charge_moves: bool = True

    @property
    def use_wtc(self) -> bool:
        if self.wtc is not None:
            return self.wtc
        from ..systems.w40k.editions import edition

        return edition(self.edition).wtc_default


class Model40k(Strict):
    id: str
    at: tuple[Coord, Coord] | tuple[Coord, Coord, Coord]
    base: Base
    facing: Annotated[float, Field(allow_inf_nan=False)] = 90.0
    wounds: Annotated[int, Field(ge=1, le=100)] | None = None
    #: WTC walls token (seed 000): this model fights at 2" across a ruin wall.
    token: bool = False

    @field_validator("base", mode="before")
    @classmethod
    def _base(cls, v):  # noqa: ANN001
        return Base.model_validate(v) if not isinstance(v, Base) else v

    @property
    def xy(self) -> tuple[float, float]:
        return (self.at[0], self.at[1])

    @property
    def z(self) -> float | None:
        return self.at[2] if len(self.at) == 3 else None


class Unit40k(UnitCommon):
    models: list[Model40k] = Field(min_length=1)
    #: Movement characteristic in the scenario unit, or "-" (cannot charge).
    movement: Annotated[float, Field(ge=0, le=100)] | Literal["-"] = 6.0
    #: WTC walls: the units this unit's token models charged (kept across phases).
    token_targets: list[str] = []


class Scenario40k(Strict):
    format: Literal["chargeref/1"]
    system: Literal["40k"]
    rules: Rules40k = Rules40k()
    unit: Literal["in", "cm"] = "in"
    board: Board
    terrain: list[Terrain] = []
    units: list[Unit40k]
    charges: list[ChargeSpec] = []

    @model_validator(mode="before")
    @classmethod
    def _default_rules(cls, v):  # noqa: ANN001
        return v
