"""Warhammer 40,000 scenario pieces: units of individually placed models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, model_validator

from .common import Base, Board, ChargeSpec, Flag, Point23, Strict, Terrain, UnitCommon


class Rules40k(Strict):
    #: 9, 10 or 11 (rules-notes §1.13: June 2026); 10 stays the default of chargeref/1 files
    edition: Literal[9, 10, 11] = 10
    #: WTC precise procedure and walls rule; the default comes from the editions table
    #: (true with edition 10 only).
    wtc: Flag | None = None
    #: edition 9: a failed charge still moves up to the roll and ends closer (seed 002).
    failed_charge_moves: Flag = True

    @property
    def use_wtc(self) -> bool:
        if self.wtc is not None:
            return self.wtc
        from ..systems.w40k.editions import edition

        return edition(self.edition).wtc_default


class Model40k(Strict):
    id: str
    at: Point23
    base: Base
    facing: Annotated[float, Field(allow_inf_nan=False)] = 90.0
    wounds: Annotated[int, Field(ge=1, le=100)] | None = None
    #: WTC walls token (seed 000): this model fights at 2" across a ruin wall.
    token: Flag = False

    @property
    def xy(self) -> tuple[float, float]:
        return (self.at[0], self.at[1])

    @property
    def z(self) -> float | None:
        return self.at[2] if len(self.at) == 3 else None


class Unit40k(UnitCommon):
    models: list[Model40k] = Field(min_length=1)
    #: A base every model of the unit stands on unless the model gives its own.
    base: Base | None = None
    #: Movement characteristic in the scenario unit, or "-" (cannot charge).
    movement: Annotated[float, Field(ge=0, le=100)] | Literal["-"] = 6.0
    #: WTC walls: the units this unit's token models charged (kept across phases).
    token_targets: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _inherit_base(cls, v: Any) -> Any:
        """Models without a ``base`` take the unit's (a model's own base wins). The
        unit's base is copied only when it is valid: otherwise its own error names it
        once, at ``units[X].base``."""
        if not isinstance(v, dict) or v.get("base") is None or not isinstance(v.get("models"), list):
            return v
        try:
            unit_base = Base.model_validate(v["base"])
        except ValidationError:
            return v
        models = [
            {**m, "base": unit_base} if isinstance(m, dict) and m.get("base") is None else m
            for m in v["models"]
        ]
        return {**v, "models": models}


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
