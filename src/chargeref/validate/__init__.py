"""The independent checker: is a ruling's end state legal?

It re-checks every rule from the scenario and the ruling alone (never calling a
solver): overlaps, the move budget along each path, coherency, engagement ranges,
terrain. Each system has its own module (``validate.w40k``, ``validate.t9a``,
``validate.warmaster``) exposing ``validate(before, ruling) -> list[Violation]``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Violation:
    code: str
    message: str
    models: tuple[str, ...] = ()
    witness: dict[str, Any] = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        who = f" [{', '.join(self.models)}]" if self.models else ""
        return f"{self.code}: {self.message}{who}"


_MODULES = {"40k": "chargeref.validate.w40k", "t9a": "chargeref.validate.t9a", "warmaster": "chargeref.validate.warmaster"}


def validate_ruling(before: Any, ruling: Any) -> list[Violation]:
    """All violations of the ruling's end state (empty list: legal).

    ``before`` is the parsed scenario the charge was made on; ``ruling`` a
    :class:`chargeref.ruling.Ruling` or its JSON data.
    """
    from ..ruling import Ruling

    if isinstance(ruling, dict):
        ruling = Ruling.model_validate(ruling)
    mod = importlib.import_module(_MODULES[before.system])
    return list(mod.validate(before, ruling))
