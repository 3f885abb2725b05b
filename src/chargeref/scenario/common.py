"""Scenario pieces shared by every system (the public contract, version 1).

All models are immutable (frozen) pydantic models with ``extra="forbid"``: an unknown
field is an error that names it. NaN and infinities are refused everywhere. A boolean
field takes only a real boolean (JSON ``true``/``false``): text such as ``"yes"`` and
numbers such as ``1`` are refused, naming the field, never guessed at. A point says how
many numbers it takes when it is given too many or too few.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

#: Sizes beyond these are refused as absurd (scenario units / millimetres).
MAX_BOARD = 2000.0
MAX_BASE_MM = 1000.0
MM_PER_UNIT = {"in": 25.4, "cm": 10.0}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


Coord = Annotated[float, Field(allow_inf_nan=False)]

#: A yes/no field: only a boolean itself (pydantic's strict mode), so ``"yes"``, ``"true"``
#: or ``1`` is an error naming the field rather than a guess.
Flag = Annotated[bool, Field(strict=True)]


def numbers_of(counts: tuple[int, ...], spelled: str) -> BeforeValidator:
    """A check, run before the tuple's own, that a list holds one of ``counts`` items:
    the refusal says what the field takes (``spelled``) instead of pydantic's "at most
    N items", which is wrong for a field taking two lengths."""
    allowed = " or ".join(str(n) for n in counts)

    def check(v: Any) -> Any:
        if isinstance(v, (list, tuple)) and len(v) not in counts:
            raise ValueError(f"must be {allowed} numbers: {spelled} (got {len(v)})")
        return v

    return BeforeValidator(check)


Point2 = Annotated[tuple[Coord, Coord], numbers_of((2,), "[x, y]")]
#: a 40k model's place: on the ground plane, or at a height z as well
Point23 = Annotated[tuple[Coord, Coord] | tuple[Coord, Coord, Coord], numbers_of((2, 3), "[x, y] or [x, y, z]")]


class Board(Strict):
    width: Annotated[float, Field(gt=0, le=MAX_BOARD)]
    depth: Annotated[float, Field(gt=0, le=MAX_BOARD)]


# --------------------------------------------------------------------------- bases

_ROUND_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*mm\s*(?:round)?\s*$", re.I)
_SHAPES = ("round", "oval", "rect", "hull")
_PAIR_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*mm\s*(oval|rect)?\s*$", re.I)


class Base(Strict):
    """A base: exactly one of round, oval, rect or hull (millimetres; a hull is in
    scenario units). Short strings are accepted: ``"32mm"``, ``"60x35.5mm oval"``,
    ``"25x50mm"`` (a rectangle, W x D), or a model name from the base catalogue.

    ``{catalogue: NAME}`` (or the bare name as a string) takes the base of that model
    from the shipped catalogue; the validated base keeps both the resolved shape and the
    catalogue's name for the model, so a written scenario (a ruling's ``after``) loads
    again without the catalogue. When a shape is given beside a name, the shape is the
    base and the name is only a label."""

    round: Annotated[float, Field(gt=0, le=MAX_BASE_MM)] | None = None
    oval: tuple[Annotated[float, Field(gt=0, le=MAX_BASE_MM)], Annotated[float, Field(gt=0, le=MAX_BASE_MM)]] | None = None
    rect: tuple[Annotated[float, Field(gt=0, le=MAX_BASE_MM)], Annotated[float, Field(gt=0, le=MAX_BASE_MM)]] | None = None
    hull: list[Point2] | None = None
    #: the base catalogue's name of the model (declared last: its check reads the shapes)
    catalogue: Annotated[str, Field(min_length=1, max_length=200)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return {"round": v}
        if isinstance(v, str):
            m = _ROUND_RE.match(v)
            if m:
                return {"round": float(m.group(1))}
            m = _PAIR_RE.match(v)
            if m:
                a, b, kind = float(m.group(1)), float(m.group(2)), (m.group(3) or "rect").lower()
                return {kind: [a, b]}
            if re.search(r"\d\s*mm", v, re.I):
                raise ValueError(f"cannot read base {v!r}: use '32mm', '60x35.5mm oval' or '25x50mm'")
            v = {"catalogue": v}
        if isinstance(v, dict) and isinstance(v.get("catalogue"), str) and not any(
            v.get(k) is not None for k in _SHAPES
        ):
            from ..catalogue import lookup

            entry = lookup(v["catalogue"])
            shape = entry.base_data() if entry is not None else None
            if entry is not None and shape is not None:
                return {**v, **shape, "catalogue": entry.name}
            # an unknown name or a model without a base: the field check says which
        return v

    @field_validator("catalogue")
    @classmethod
    def _catalogue_name(cls, name: str | None, info: ValidationInfo) -> str | None:
        if name is None or any(info.data.get(k) is not None for k in _SHAPES):
            return name
        from ..catalogue import lookup, unknown_message

        entry = lookup(name)
        if entry is None:
            raise ValueError(unknown_message(name))
        raise ValueError(
            f"{entry.name} has no base (the catalogue lists it as a hull): give its outline "
            "as base: {hull: [[x, y], ...]} in scenario units around the model centre"
        )

    @model_validator(mode="after")
    def _exactly_one(self) -> Base:
        given = [k for k in _SHAPES if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of round, oval, rect or hull")
        if self.hull is not None:
            if len(self.hull) < 3:
                raise ValueError("a hull needs at least 3 points")
            import shapely

            poly = shapely.Polygon(self.hull)
            if not poly.is_valid or poly.area <= 0:
                raise ValueError("the hull polygon is not simple or has no area")
            if max(abs(c) for p in self.hull for c in p) > MAX_BOARD:
                raise ValueError("the hull is absurdly large")
        return self

    @property
    def kind(self) -> str:
        for k in ("round", "oval", "rect", "hull"):
            if getattr(self, k) is not None:
                return k
        raise AssertionError

    @property
    def dims(self) -> Any:
        return getattr(self, self.kind)

    def short(self) -> str:
        k = self.kind
        if k == "round":
            return f"{self.round:g}mm"
        if k in ("oval", "rect"):
            a, b = self.dims
            return f"{a:g}x{b:g}mm {k}"
        return "hull"


# --------------------------------------------------------------------------- terrain


def _polygon_ok(pts: list[Point2], what: str) -> list[Point2]:
    if len(pts) < 3:
        raise ValueError(f"{what} needs at least 3 points")
    import shapely

    poly = shapely.Polygon(pts)
    if not poly.is_valid or poly.area <= 0:
        raise ValueError(f"{what} is not a simple polygon with area")
    return pts


def _segments_ok(pts: list[Point2], what: str) -> list[Point2]:
    """A wall is a chain of segments: each must have a length (two equal points in a
    row make a wall of zero length, which no rule can measure against)."""
    for k in range(len(pts) - 1):
        (x0, y0), (x1, y1) = pts[k], pts[k + 1]
        if math.hypot(x1 - x0, y1 - y0) <= 1e-9:
            raise ValueError(f"{what} segment {k} has zero length (points {k} and {k + 1} are the same)")
    return pts


class WallSpec(Strict):
    points: list[Point2] = Field(min_length=2)
    height: Annotated[float, Field(ge=0, le=MAX_BOARD)] = 5.0
    thickness: Annotated[float, Field(gt=0, le=100)] = 0.2

    _s = field_validator("points")(lambda v: _segments_ok(v, "wall"))


class FloorSpec(Strict):
    polygon: list[Point2]
    height: Annotated[float, Field(ge=0, le=MAX_BOARD)]

    _p = field_validator("polygon")(lambda v: _polygon_ok(v, "floor polygon"))


class Ruin(Strict):
    type: Literal["ruin"]
    id: str
    footprint: list[Point2]
    walls: list[WallSpec] = []
    floors: list[FloorSpec] = []

    _p = field_validator("footprint")(lambda v: _polygon_ok(v, "ruin footprint"))


class Wall(Strict):
    type: Literal["wall"]
    id: str
    points: list[Point2] = Field(min_length=2)
    height: Annotated[float, Field(ge=0, le=MAX_BOARD)] = 5.0
    thickness: Annotated[float, Field(gt=0, le=100)] = 0.2
    climbable: Flag = True

    _s = field_validator("points")(lambda v: _segments_ok(v, "wall"))


class Barricade(Strict):
    type: Literal["barricade"]
    id: str
    points: list[Point2] = Field(min_length=2)
    height: Annotated[float, Field(ge=0, le=MAX_BOARD)] = 1.0
    thickness: Annotated[float, Field(gt=0, le=100)] = 0.2

    _s = field_validator("points")(lambda v: _segments_ok(v, "barricade"))


class Obstacle(Strict):
    type: Literal["obstacle"]
    id: str
    polygon: list[Point2]
    height: Annotated[float, Field(ge=0, le=MAX_BOARD)] = 1.0

    _p = field_validator("polygon")(lambda v: _polygon_ok(v, "obstacle polygon"))


class Impassable(Strict):
    type: Literal["impassable"]
    id: str
    polygon: list[Point2]

    _p = field_validator("polygon")(lambda v: _polygon_ok(v, "impassable polygon"))


class Hill(Strict):
    type: Literal["hill"]
    id: str
    polygon: list[Point2]
    height: Annotated[float, Field(ge=0, le=MAX_BOARD)] = 1.0

    _p = field_validator("polygon")(lambda v: _polygon_ok(v, "hill polygon"))


Terrain = Annotated[Ruin | Wall | Barricade | Obstacle | Impassable | Hill, Field(discriminator="type")]


# --------------------------------------------------------------------------- charges


class ChargeSpec(Strict):
    charger: str
    targets: list[str] = Field(min_length=1)
    dice: list[Annotated[int, Field(ge=1, le=6)]] | None = None
    modifier: Annotated[int, Field(ge=-12, le=12)] = 0
    reroll: Literal["none", "failed", "one_die"] = "none"
    reaction: Literal["hold", "stand_and_shoot", "flee"] | None = None
    reaction_dice: list[Annotated[int, Field(ge=1, le=6)]] | None = None
    #: 40k: models removed by overwatch at the start of the charge move (WTC step 5A).
    casualties: list[str] = []
    #: free-form extra per system (e.g. t9a redirect target)
    redirect: str | None = None
    redirect_dice: list[Annotated[int, Field(ge=1, le=6)]] | None = None


KEYWORDS = frozenset(
    {
        "INFANTRY", "BEAST", "SWARM", "FLY", "CHARACTER", "VEHICLE", "MONSTER",
        "AIRCRAFT", "BIKER", "CAVALRY", "BATTLELINE", "WALKER", "TITANIC", "TOWERING",
        "PSYKER", "MOUNTED", "BUILDING", "EPIC HERO", "DRONE", "SMOKE", "GRENADES",
        "TRANSPORT", "DEDICATED TRANSPORT", "FORTIFICATION", "JUMP PACK",
        "SWIFTSTRIDE", "FLYING", "LARGE", "GIGANTIC", "STANDARD",
    }
)
FLAGS = frozenset({"advanced", "fell_back", "action", "engaged", "fleeing", "shaken", "charged", "heroic_intervened"})


class UnitCommon(Strict):
    id: str
    player: Literal[1, 2]
    name: str | None = None
    keywords: list[str] = []
    flags: list[str] = []

    @field_validator("keywords")
    @classmethod
    def _kw(cls, v: list[str]) -> list[str]:
        for k in v:
            if k != k.upper():
                raise ValueError(f"keyword {k!r} must be upper-case")
            if k not in KEYWORDS:
                raise ValueError(f"unknown keyword {k!r}")
        return v

    @field_validator("flags")
    @classmethod
    def _fl(cls, v: list[str]) -> list[str]:
        for k in v:
            if k not in FLAGS:
                raise ValueError(f"unknown flag {k!r} (known: {', '.join(sorted(FLAGS))})")
        return v


def finite(*xs: float) -> bool:
    return all(math.isfinite(x) for x in xs)
