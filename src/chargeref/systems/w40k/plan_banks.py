"""The first candidate spots of a pivot plan's charge, built once per turned world
(issue 13).

A charge that no roll can make, or whose roll is short, tries every pivot plan
(pivots.py, end_pivots.py) before it is ruled on, and every plan's problem starts by
constructing the end spots round the targets for its turned bases (``_initial_bank``:
locus crossings, the expensive part of building a problem). The same bank was built
several times: a plan that passes the probe (``pivots.probed``) is built twice, and the
start plan and the end plan that turn a model to the same facing stand it turned on the
same world.

Why sharing is exact. ``SpotBuilder._initial_bank`` reads only what ``ChargeProblem``
sets up from its arguments before the banks are built: the world (models, their bases
and facings, terrain, board, rules), the unit, the targets, the cap and the move's
rules (``MoveRules``); not the path fields, the costs, the pivot costs or anything a
subclass overrides. The memo key holds all of these that can differ between two
problems sharing a source (each model's position, height and facing, the features,
the cap, the targets and the rules), and the memo lives on the plan's ``field_source``
(the unturned problem, or its open-field twin), which fixes the rest of the world. A
bank is never written into once built (``ChargeProblem.grow`` appends by building new
arrays), so two problems may hold the same one.
"""

from __future__ import annotations

from typing import Any

from .solver_base import Bank
from .world import Model


class SharedBanks:
    """Mixin for a plan's problem (before ``ChargeProblem`` in the bases): its initial
    banks come from a memo on ``self.field_source`` when one is set."""

    field_source: Any

    def _bank_key(self, m: Model) -> tuple:
        w = self.w  # type: ignore[attr-defined]
        return (
            tuple((q.id, float(q.xy[0]), float(q.xy[1]), float(q.z), float(q.facing)) for q in w.models),
            tuple((f.id, f.type) for f in w.features),
            float(self.cap),  # type: ignore[attr-defined]
            tuple(self.targets),  # type: ignore[attr-defined]
            repr(self.rules),  # type: ignore[attr-defined]
            self.keys[m.id],  # type: ignore[attr-defined]
            m.id,
        )

    def _initial_bank(self, m: Model) -> Bank:
        src = getattr(self, "field_source", None)
        if src is None:
            return super()._initial_bank(m)  # type: ignore[misc]
        memo: dict[tuple, Bank] = src.__dict__.setdefault("_plan_banks", {})
        key = self._bank_key(m)
        b = memo.get(key)
        if b is None:
            b = memo[key] = super()._initial_bank(m)  # type: ignore[misc]
        return b


__all__ = ["SharedBanks"]
