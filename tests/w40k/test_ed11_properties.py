"""Property tests of the edition-11 charge against the edition-11 validator.

Random open-field battlefields (a charging block of 1-6 round-based models, one or two
enemy units at random bearings and distances) are charged without targets; then for
every listed choice:

* a charge with those targets and exactly the choice's least roll succeeds, and the
  validator finds nothing wrong with it;
* one less fails whenever the least roll is proven (the pick rule binds, or the solver
  says its answer is exact);
* the choices ruling itself is legal (nothing moved, allowed sets within the roll).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from chargeref.geometry.bases import base_footprint
from chargeref.geometry.shapes import signed_distance
from chargeref.scenario import Scenario40k, scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.validate.w40k import validate
from chargeref.validate.w40k_ed11 import unit_coherency

W, D = 60.0, 44.0
MM = 25.4
BASES = [25.0, 32.0, 40.0]

SETTINGS = settings(
    max_examples=int(os.environ.get("CHARGEREF_PROPERTY_EXAMPLES", "8")),
    deadline=None,
    derandomize=not os.environ.get("CHARGEREF_PROPERTY_RANDOM"),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


def _models(prefix: str, pts: np.ndarray, d: float) -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i + 1}", "at": [float(x), float(y)], "base": {"round": d}} for i, (x, y) in enumerate(pts)]


def _block(n: int, width: int, step: float) -> np.ndarray:
    pts = np.array([[(i % width) * step, -(i // width) * step] for i in range(n)], float)
    return pts - pts.mean(axis=0)


def _fps(data: dict[str, Any], uid: str) -> list[Any]:
    u = next(u for u in data["units"] if u["id"] == uid)
    return [base_footprint("round", m["base"]["round"], m["at"], 90, MM) for m in u["models"]]


def _gap(data: dict[str, Any], u1: str, u2: str) -> float:
    return min(signed_distance(a, b) for a in _fps(data, u1) for b in _fps(data, u2))


def build(n: int, width: int, d: float, enemies: list[tuple[float, float, int, float]]) -> dict[str, Any]:
    """The charger's block at the board centre; each enemy (bearing, gap beyond the
    charger's reach circle, models, base) as a line of models."""
    centre = np.array([W / 2, D / 2])
    a = _block(n, width, d / MM + 0.3) + centre
    units = [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": _models("A", a, d)}]
    a_r = float(np.max(np.linalg.norm(a - centre, axis=1))) + d / MM / 2
    for k, (phi, reach, m, bd) in enumerate(enemies):
        pts = _block(m, m, bd / MM + 0.2)
        b_r = float(np.max(np.linalg.norm(pts, axis=1))) + bd / MM / 2
        where = centre + (a_r + b_r + reach) * np.array([math.cos(phi), math.sin(phi)])
        units.append({"id": "BC"[k], "player": 2, "keywords": ["INFANTRY"], "models": _models("BC"[k], pts + where, bd)})
    return {"format": "chargeref/1", "system": "40k", "rules": {"edition": 11}, "board": {"width": W, "depth": D},
            "units": units}


@st.composite
def worlds(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 6))
    width = draw(st.integers(1, min(n, 3)))
    d = draw(st.sampled_from(BASES))
    enemies = [
        (draw(st.floats(0, 2 * math.pi)), draw(st.floats(2.2, 10.0)), draw(st.integers(1, 3)), draw(st.sampled_from(BASES)))
        for _ in range(draw(st.integers(1, 2)))
    ]
    data = build(n, width, d, enemies)
    assume(_sane(data))
    return data


def _sane(data: dict[str, Any]) -> bool:
    """On the board, no overlaps, the charger coherent and more than 2.05" from every
    enemy, and every gap at least 0.05" from a whole number of inches (no verdict on a
    threshold by accident)."""
    for u in data["units"]:
        for m in u["models"]:
            r = m["base"]["round"] / MM / 2
            x, y = m["at"]
            if not (r + 0.05 <= x <= W - r - 0.05 and r + 0.05 <= y <= D - r - 0.05):
                return False
    ids = [u["id"] for u in data["units"]]
    for i, u1 in enumerate(ids):
        for u2 in ids[i + 1:]:
            g = _gap(data, u1, u2)
            if g < 0.05 or (u1 == "A" and (g <= 2.05 or abs(g - round(g)) < 0.05)):
                return False
    scen = scenario_from_data(data)
    assert isinstance(scen, Scenario40k)
    return not unit_coherency(scen, "A")


def _charge(scen: Any, targets: tuple[str, ...], **kw: Any) -> Any:
    return find_system("40k").charge(scen, ChargeRequest(charger="A", targets=targets, **kw))


#: Edition-11 violations the property test tolerates: none. (It once tolerated the 9"
#: spread and the within-1" duty while the search did not keep them; WIDE and NEAR below
#: are the cases that showed it.)
PENDING_IN_SEARCH: frozenset[str] = frozenset()

#: A wide block charging between two units: the search spreads it 9.45" (A1 to A4).
WIDE = build(5, 3, 32.0, [(0.3, 3.3, 3, 25.0), (2.5, 6.2, 2, 40.0)])
#: A three-model block: the search leaves A3 out of 1" of B although it could get there.
NEAR = build(3, 2, 32.0, [(0.6, 2.4, 1, 32.0)])


def _kind(v: Any) -> str:
    return "spread" if v.code == "not_coherent" and "gap" in v.witness else v.code


def test_the_search_keeps_the_9_inch_spread() -> None:
    check_choices(WIDE, only="spread")


def test_the_search_keeps_the_within_one_duty() -> None:
    check_choices(NEAR, only="missed_within_one")


@SETTINGS
@example(build(1, 1, 32.0, [(0.0, 4.5, 1, 32.0)]))
@example(WIDE)
@example(NEAR)
@given(worlds())
def test_each_choice_succeeds_at_its_least_roll_and_is_legal(data: dict[str, Any]) -> None:
    check_choices(data, tolerate=PENDING_IN_SEARCH)


def check_choices(data: dict[str, Any], tolerate: frozenset[str] = frozenset(), only: str | None = None) -> None:
    """Every choice succeeds at its least roll with a legal ruling (violations of the
    kinds in ``tolerate`` aside; with ``only``, just that kind counts)."""
    scen = scenario_from_data(data)
    r = _charge(scen, (), dice=(3, 4))
    assert r.procedure == "choices"
    assert validate(scen, r) == []
    for c in r.choices or []:
        need = c.needed.roll
        pick = math.ceil(max(c.gaps.values()) - 1e-6)
        if need is None:
            continue
        assert need >= pick
        assert c.allowed == (need <= 7)
        ok = _charge(scen, tuple(c.targets), roll=need)
        assert ok.success, (c.targets, need, [x.code for x in ok.reasons])
        found = [v for v in validate(scen, ok) if _kind(v) not in tolerate and (only is None or _kind(v) == only)]
        assert not found, "\n".join(str(v) for v in found)
        if need == pick or c.needed.exact:
            short = _charge(scen, tuple(c.targets), roll=need - 1)
            assert not short.success and not short.moves
