"""The 9th Age scenario pieces: rank-and-file blocks.

Fields beyond the contract (all optional, documented in docs/t9a.md):

* ``rules.charge_spacing``: ``"touch"`` (default: a charger may touch friends and
  impassable terrain, never a non-target enemy) or ``"half_inch"`` (it keeps 0.5").
* ``move_order``: the order in which chargers move after all declarations.
* per charge (``charges:``): dice for the tests the phase needs and the results of
  shooting, which chargeref does not simulate.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .common import Base, Board, ChargeSpec, Flag, Point2, Strict, Terrain, UnitCommon

Dice2 = list[Annotated[int, Field(ge=1, le=6)]]
Reaction = Literal["hold", "stand_and_shoot", "flee"]


class RulesT9A(Strict):
    #: "path": the distance the charge move needs (wheel included); "gap": closest distance.
    charge_distance: Literal["path", "gap"] = "path"
    #: "touch": chargers may touch friends and impassable terrain (seed 001);
    #: "half_inch": they keep 0.5" from everything but their targets.
    charge_spacing: Literal["touch", "half_inch"] = "touch"


class Formation(Strict):
    front: Point2
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
    shooting: Flag = False


class ChargeSpecT9A(ChargeSpec):
    """A ``charges:`` entry with The 9th Age's optional extras."""

    #: Stand and Shoot: models the charger loses to the shooting (not simulated)
    shoot_casualties: Annotated[int, Field(ge=0, le=1000)] = 0
    #: dice (2D6) for Panic Tests caused by this declaration, by unit id
    panic_dice: dict[str, Dice2] = {}
    #: how the redirect target reacts, and its flee dice / shooting result
    redirect_reaction: Reaction | None = None
    redirect_reaction_dice: Dice2 | None = None
    redirect_shoot_casualties: Annotated[int, Field(ge=0, le=1000)] = 0
    #: reactions of secondary targets of a multiple charge (default: hold)
    secondary_reactions: dict[str, Reaction] = {}
    #: after catching a fleeing unit: Discipline Test dice and the facing to pivot to
    pivot_dice: Dice2 | None = None
    pivot_facing: Annotated[float, Field(allow_inf_nan=False)] | None = None


class ScenarioT9A(Strict):
    format: Literal["chargeref/1"]
    system: Literal["t9a"]
    rules: RulesT9A = RulesT9A()
    unit: Literal["in", "cm"] = "in"
    board: Board
    terrain: list[Terrain] = []
    units: list[UnitT9A]
    charges: list[ChargeSpecT9A] = []
    #: the order chargers move in after all charges are declared (default: the order
    #: of first declaration; units charging the same target move together)
    move_order: list[str] | None = None


__all__ = ["Base", "ChargeSpecT9A", "Formation", "RulesT9A", "ScenarioT9A", "UnitT9A"]
