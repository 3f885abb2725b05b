"""The rule-system protocol and registry.

Each game is a package under ``chargeref.systems`` exposing one object that satisfies
``RuleSystem``; ``find_system("40k")`` returns it. Options that cut across a system
(edition, WTC, variant) are scenario ``rules`` values, not separate systems.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import Problem, RequestError
from ..ruling import Needed, Ruling


@dataclass(frozen=True)
class ChargeRequest:
    """One declared charge: what the CLI flags or a ``charges:`` entry say."""

    charger: str
    targets: tuple[str, ...]
    dice: tuple[int, ...] | None = None
    #: a fixed charge roll total (2D6 + modifier); overrides dice
    roll: int | None = None
    modifier: int = 0
    reroll: str = "none"
    seed: int | None = None
    reaction: str | None = None
    reaction_dice: tuple[int, ...] | None = None
    casualties: tuple[str, ...] = ()
    redirect: str | None = None
    redirect_dice: tuple[int, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_spec(cls, spec: Any, seed: int | None = None) -> ChargeRequest:
        return cls(
            charger=spec.charger,
            targets=tuple(spec.targets),
            dice=tuple(spec.dice) if spec.dice else None,
            modifier=spec.modifier,
            reroll=spec.reroll,
            seed=seed,
            reaction=spec.reaction,
            reaction_dice=tuple(spec.reaction_dice) if spec.reaction_dice else None,
            casualties=tuple(spec.casualties),
            redirect=spec.redirect,
            redirect_dice=tuple(spec.redirect_dice) if spec.redirect_dice else None,
        )

    def rng(self) -> random.Random:
        return random.Random(self.seed)


@dataclass
class PhaseResult:
    rulings: list[Ruling]
    after: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json_data(self) -> dict[str, Any]:
        return {
            "format": "chargeref-phase/1",
            "rulings": [r.to_json_data() for r in self.rulings],
            "details": self.details,
            "after": self.after,
        }


@runtime_checkable
class RuleSystem(Protocol):
    name: str

    def problems(self, scen: Any) -> list[Problem]:
        """Every geometric / cross-reference problem of a parsed scenario."""

    def charge(self, scen: Any, req: ChargeRequest) -> Ruling:
        """Resolve one charge and return the ruling (with ``after``)."""

    def needed(self, scen: Any, req: ChargeRequest) -> Needed:
        """The least distance and roll with which the declared charge can succeed."""

    def phase(self, scen: Any, seed: int | None) -> PhaseResult:
        """Resolve the scenario's ``charges:`` in order."""


_REGISTRY: dict[str, str] = {
    "40k": "chargeref.systems.w40k",
    "t9a": "chargeref.systems.t9a",
    "warmaster": "chargeref.systems.warmaster",
}
_LOADED: dict[str, RuleSystem] = {}


def register(name: str, module: str) -> None:
    _REGISTRY[name] = module


def system_names() -> list[str]:
    return list(_REGISTRY)


def find_system(name: str) -> RuleSystem:
    if name not in _LOADED:
        if name not in _REGISTRY:
            raise RequestError(Problem("system", f"unknown system {name!r}"))
        mod = importlib.import_module(_REGISTRY[name])
        _LOADED[name] = mod.SYSTEM
    return _LOADED[name]


def unit_ids(scen: Any) -> list[str]:
    return [u.id for u in scen.units]


def require_unit(scen: Any, uid: str, what: str) -> Any:
    for u in scen.units:
        if u.id == uid:
            return u
    raise RequestError(Problem(what, f"no unit {uid!r} in the scenario (units: {', '.join(unit_ids(scen))})"))
