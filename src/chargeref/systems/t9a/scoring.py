"""Scoring an end state by the four priorities of Maximising Contact (seed 001).

``priorities(before, after, chargers, target)`` works on any two scenarios, so a test
(or a referee) can compare the solver's end state with any other arrangement: the
lexicographically smaller ``key`` is the better one.
"""

from __future__ import annotations

from typing import Any

from ...scenario import scenario_from_data
from .contact import contacts_between, models_in_contact
from .geom import wrap_deg
from .world import World


def priorities(before: Any, after: Any, chargers: list[str], target: str,
               declared: list[str] | None = None) -> dict[str, Any]:
    """The four priorities of an end state, and its sort ``key``:

    1. enemy units contacted other than the charged unit (fewer is better);
    2. charging units in contact with the charged unit (more is better);
    3. how far the charged unit was turned, in degrees (less is better);
    4. models on both sides in base contact with an enemy model (more is better).
    """
    if isinstance(after, dict):
        after = scenario_from_data(after)
    wb = World.from_scenario(before)
    wa = World.from_scenario(after)
    cs = contacts_between(wa.blocks, [c for c in chargers if c in wa.blocks])
    ids = set(chargers)
    others: set[str] = set()
    engaged: set[str] = set()
    for uc in cs:
        for a, b in ((uc.a, uc.b), (uc.b, uc.a)):
            if a in ids:
                if b == target:
                    engaged.add(a)
                elif b not in (declared or []):
                    others.add(b)
    rot = 0.0
    if target in wb.blocks and target in wa.blocks:
        rot = abs(wrap_deg(wa.blocks[target].facing - wb.blocks[target].facing))
    mods = models_in_contact(cs)
    mine = {m for m in mods if m.rsplit(".", 1)[0] in ids}
    out: dict[str, Any] = {
        "other_enemy_units": len(others),
        "charging_units_engaged": len(engaged),
        "target_rotation": round(rot, 9),
        "models_in_contact": len(mods),
        "models_in_contact_chargers": len(mine),
        "models_in_contact_enemies": len(mods) - len(mine),
    }
    out["key"] = (out["other_enemy_units"], -out["charging_units_engaged"], round(rot, 6), -out["models_in_contact"])
    return out
