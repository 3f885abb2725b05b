"""The validator's verdicts do not change when it is made faster.

``corpus.json.gz`` holds about a thousand stored rulings (every example scenario of the
three systems, the benchmark cases, edition 9 and WTC variants, and altered copies that
break one rule each), each with the violation codes the validator of main 39c9b7d gave
it. ``make_corpus.py`` rebuilds it. Each ruling is validated again here and must get
exactly the same codes (as a multiset, order aside), except where the constructed
duty search now finds a missed base contact that the old 1-degree ring of spots could
not see (``FOUND_NOW``): each of those is checked to be a true witness, a spot that
touches the target and two other models at once (a gap exactly one base wide); and
where edition 11's within-1" duty now finds a spot reached only along a real path round
impassable ground (``FOUND_REAL_PATH``, round 7): each checked to be 1" from its target
model, blocked in a straight line, and within the roll along the shortest path of
``geometry.paths`` (the engine-side planner, not the validator's own).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chargeref.geometry.shapes import signed_distance
from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data
from chargeref.validate import validate_ruling
from chargeref.validate.w40k_state import _build

CORPUS = Path(__file__).resolve().parent / "corpus.json.gz"


def _load() -> dict[str, Any]:
    with gzip.open(CORPUS, "rt") as fh:
        return json.load(fh)


DATA = _load()
SCENARIOS: dict[str, Any] = {}


def _before(key: str) -> Any:
    if key not in SCENARIOS:
        SCENARIOS[key] = scenario_from_data(DATA["scenarios"][key])
    return SCENARIOS[key]


def test_corpus_is_broad() -> None:
    rulings = DATA["rulings"]
    assert len(rulings) >= 1000
    systems = Counter(DATA["scenarios"][r["before"]]["system"] for r in rulings)
    assert set(systems) == {"40k", "t9a", "warmaster"}
    codes = Counter(c for r in rulings for c in set(r["codes"]))
    # the corpus exercises the duty checks both ways and the whole-path rules
    for code in ("missed_base_contact", "missed_within_one", "path_in_er_of_non_target",
                 "path_crosses_model", "over_budget", "overlap", "not_coherent"):
        assert codes[code] > 0, code
    assert sum(1 for r in rulings if not r["codes"]) > 300


CHUNKS = 8

#: rulings in which the constructed search finds a missed contact the ring missed
FOUND_NOW = {
    "40k_ringed_target__N_A_12:nudged_back",
    "40k_ringed_target__N_A_12:pulled_back",
    "40k_wtc_walls_ex3_third_unit__D_C_12:pulled_back",
}


#: rulings in which the within-1" duty now finds a spot reached round impassable ground
FOUND_REAL_PATH = {
    "40k_ed11_nontarget_path__N_A_12:pulled_back",
    "40k_ed11_nontarget_path__A_B_12:pulled_back",
    "40k_ed11_nontarget_path__N_A_7:pulled_back",
}


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_same_codes_as_before(chunk: int) -> None:
    bad = []
    for r in DATA["rulings"][chunk::CHUNKS]:
        got = sorted(v.code for v in validate_ruling(_before(r["before"]), r["ruling"]))
        want = Counter(r["codes"])
        if r["name"] in FOUND_NOW:
            want["missed_base_contact"] += 1
        if r["name"] in FOUND_REAL_PATH:
            want["missed_within_one"] += 1
        if Counter(got) != want:
            bad.append((r["name"], r["codes"], got))
    assert not bad, bad[:5]


@pytest.mark.parametrize("name", sorted(FOUND_NOW))
def test_contacts_found_now_are_true_witnesses(name: str) -> None:
    """Each new find is a spot in base contact with a target model that also touches
    two other models exactly (so it lies in a gap one base wide: between the ring's
    spots), overlaps nothing, and is within the roll in a straight line."""
    r = next(x for x in DATA["rulings"] if x["name"] == name)
    before = _before(r["before"])
    ruling = Ruling.model_validate(r["ruling"])
    v = [x for x in validate_ruling(before, ruling) if x.code == "missed_base_contact"]
    assert len(v) == 1
    ctx, _ = _build(before, ruling)
    mid, tid = v[0].models
    s = ctx.start[mid]
    fp = s.fp.moved_to(v[0].witness["spot"])
    gaps = sorted(signed_distance(fp, o.fp) for oid, o in ctx.end.items() if oid != mid)
    assert abs(signed_distance(fp, ctx.end[tid].fp)) <= 1e-6
    assert gaps[0] >= -1e-6
    assert gaps[2] <= 1e-6  # touches three models: the target and two more
    assert ctx.budget is not None
    assert float(np.hypot(*(np.asarray(v[0].witness["spot"]) - np.asarray(s.xy)))) <= ctx.budget


@pytest.mark.parametrize("name", sorted(FOUND_REAL_PATH))
def test_real_path_finds_are_true_witnesses(name: str) -> None:
    """Each new within-1" find: the spot is 1" from the target model, overlaps nothing,
    the straight move there is blocked, and the engine-side planner's shortest path
    (every enemy model and feature a hard barrier) reaches it within the roll."""
    from chargeref.geometry.paths import Barrier, Planner
    from chargeref.validate.w40k_state import path_cost

    r = next(x for x in DATA["rulings"] if x["name"] == name)
    before = _before(r["before"])
    ruling = Ruling.model_validate(r["ruling"])
    v = [x for x in validate_ruling(before, ruling) if x.code == "missed_within_one"]
    assert len(v) == 1
    ctx, _ = _build(before, ruling)
    mid, tid = v[0].models
    s = ctx.start[mid]
    q = v[0].witness["spot"]
    fp = s.fp.moved_to(q)
    assert abs(signed_distance(fp, ctx.end[tid].fp) - ctx.inch) <= 1e-6
    assert min(signed_distance(fp, o.fp) for oid, o in ctx.end.items() if oid != mid) >= -1e-6
    assert path_cost(ctx, s, [s.xy, q], s.z, False).blocked
    bars = [Barrier(o.fp, None, o.id) for o in ctx.start.values() if o.player != s.player]
    bars += [Barrier(f.fp, None, f.id) for f in ctx.features]
    assert ctx.budget is not None
    fld = Planner(bars, (ctx.before.board.width, ctx.before.board.depth)).field(s.fp, budget=ctx.budget + 1.0)
    assert float(fld.cost(np.array([q]))[0]) <= ctx.budget + 1e-6
