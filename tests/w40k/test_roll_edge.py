"""The least roll at the contract's tolerance edge (issue 9).

A move of d succeeds on a roll R when d <= R + 1e-6 (the contract's one tolerance), d
being the move to a spot exactly at engagement range. The search builds its spots at
most a hair (1e-9) on the generous side in all (half a hair inside engagement range, and
1e-11 inside 2" for each coherency link of a chain), so its budget test and its rounding
of a found move to a roll both allow that hair on top of the tolerance, and a placement it hands out steps
back within R + 1e-6 so the validator agrees (solver_base: the order of the tolerances).

Two 32 mm models stand a gap g apart. At g = 8 + 1e-6 (the move is 7 + 1e-6) the least
roll is 7, proven, a roll of 7 succeeds and the validator passes it; at g = 8 + 1.001e-6
the least roll is 8, proven, a 7 fails. The first case was found by the outside referee
(its repro file is the scenario of ``test_the_outside_repro``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.validate.w40k import validate

MM = 25.4
R32 = 32.0 / MM / 2
S = find_system("40k")

#: the outside referee's board: the centres 8.000001" + 32 mm apart, edition 10
REPRO_A = [25.5768668010258, 20.631764564705506]
REPRO_B = [34.4231331989742, 23.368235435294494]

EDGE = settings(max_examples=6, deadline=None, derandomize=True)
EDGE_CHAIN = settings(max_examples=4, deadline=None, derandomize=True)

IN = 8 + 1e-6  # the move is 7 + 1e-6: a roll of 7
OUT = 8 + 1.001e-6  # the move is 7 + 1.001e-6: a roll of 8
APART = 8.0000011  # the brief's second board: a roll of 8

RULES = [{"edition": 9}, {"edition": 10, "wtc": False}, {"edition": 10, "wtc": True}]


def _data(a: list[list[float]], b: list[float], rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "chargeref/1",
        "system": "40k",
        "rules": rules,
        "board": {"width": 60, "depth": 44},
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"],
             "models": [{"id": f"A{i + 1}", "at": p, "base": {"round": 32}} for i, p in enumerate(a)]},
            {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "B1", "at": b, "base": {"round": 32}}]},
        ],
    }


def board(gap: float, rules: dict[str, Any], turn: float = 0.0, mirror: bool = False, two: bool = False,
          chain: bool = False) -> dict[str, Any]:
    """A1 and B1 a gap apart along a line turned by ``turn`` degrees about the board's
    centre (and mirrored left to right); ``two``: A2 stands 1.5" beside A1 and 1" back,
    so it has to move to keep coherency (its move is shorter than A1's); ``chain``: A2
    stands 2" straight behind A1, so it makes A1's move to end 2" behind it."""
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    cx, cy = 30.0, 22.0
    half = (gap + 2 * R32) / 2

    def at(u: float, v: float) -> list[float]:
        x, y = cx + u * c - v * s, cy + u * s + v * c
        return [60.0 - x if mirror else x, y]

    a = [at(-half, 0.0)] + ([at(-half - 1.0, 2 * R32 + 1.5)] if two else [])
    a += [at(-half - 2 * R32 - 2.0, 0.0)] if chain else []
    return _data(a, at(half, 0.0), rules)


def rule(data: dict[str, Any], roll: int) -> Any:
    scen = scenario_from_data(data)
    r = S.charge(scen, ChargeRequest(charger="A", targets=("B",), roll=roll))
    return scen, r


def agree(data: dict[str, Any], least: int, short_by: str = "roll_too_low") -> None:
    """The least roll is ``least`` and proven; a roll of it succeeds and one less fails;
    the validator passes both rulings; no move of the success is over the roll + 1e-6."""
    scen, ok = rule(data, least)
    assert ok.needed.roll == least, ok.needed
    assert ok.needed.exact is True, ok.needed
    assert ok.needed.distance <= least + 1e-6
    assert ok.success, [x.code for x in ok.reasons]
    assert validate(scen, ok) == []
    assert all(m.distance <= least + 1e-6 for m in ok.moves)
    scen, short = rule(data, least - 1)
    assert short.needed.roll == least and short.needed.exact is True
    assert not short.success
    assert short_by in [x.code for x in short.reasons]
    assert validate(scen, short) == []


def test_the_outside_repro() -> None:
    # the referee's board: the move is 7.0000009999999975, within 1e-6 of 7
    data = _data([REPRO_A], REPRO_B, {"edition": 10})
    assert math.dist(REPRO_A, REPRO_B) - 2 * R32 - 1 == pytest.approx(7 + 1e-6, abs=1e-14)
    agree(data, 7)
    scen, r = rule(data, 7)
    assert r.needed.lower_bound == pytest.approx(7.000001, abs=1e-9)


@pytest.mark.parametrize("rules", RULES, ids=["ed9", "ed10", "ed10-wtc"])
@pytest.mark.parametrize(("gap", "least"), [(IN, 7), (OUT, 8), (APART, 8), (8 + 0.5e-6, 7)])
def test_one_model(rules: dict[str, Any], gap: float, least: int) -> None:
    agree(board(gap, rules), least)


@pytest.mark.parametrize("rules", RULES, ids=["ed9", "ed10", "ed10-wtc"])
@pytest.mark.parametrize(("gap", "least"), [(IN, 7), (OUT, 8)])
def test_two_models_in_coherency(rules: dict[str, Any], gap: float, least: int) -> None:
    data = board(gap, rules, two=True)
    agree(data, least)
    scen, r = rule(data, least)
    # A2 had to move (its start is beyond 2" of A1's end)
    assert len(r.moves) == 2 and all(m.distance > 1 for m in r.moves)


def in_a_row(gap: float, rules: dict[str, Any], links: int, turn: float = 0.0, mirror: bool = False) -> dict[str, Any]:
    """``board(chain=True)`` with ``links`` models in a row behind A1, each 2" straight
    behind the one before: A1 ends 1" from B1 and each of the others 2" behind the one
    before it, so the last one's exact spot lies through ``links`` + 1 built gaps in a
    row (links = 1: a chain of two gaps, 2: of three)."""
    data = board(gap, rules, turn, mirror, chain=True)
    ms = data["units"][0]["models"]
    a1, a2 = ms[0]["at"], ms[1]["at"]
    for k in range(2, links + 1):
        prev = ms[-1]["at"]
        ms.append({"id": f"A{k + 1}", "at": [prev[0] + a2[0] - a1[0], prev[1] + a2[1] - a1[1]], "base": {"round": 32}})
    return data


CHAIN_RULES = RULES + [{"edition": 11}]


@pytest.mark.parametrize("rules", CHAIN_RULES, ids=["ed9", "ed10", "ed10-wtc", "ed11"])
@pytest.mark.parametrize("links", [1, 2])
@pytest.mark.parametrize(("gap", "least"), [(IN, 7), (OUT, 8)])
def test_models_in_a_row(rules: dict[str, Any], links: int, gap: float, least: int) -> None:
    # A2 ends 2" (a tiny link hair less) behind A1, which ends 1" (half a hair less)
    # from B1; with ``links`` = 2, A3 ends 2" behind A2: the chain of built gaps costs
    # less than one hair in all, so the edge is as sharp as for one model (docs/40k.md,
    # the roll's edge): R + 1e-6 succeeds on R, proven, R + 1.001e-6 needs R + 1; every
    # model steps back within the roll + 1e-6. Edition 11: the roll also picks targets
    # within it (the gap's roll, one more).
    ed11 = rules["edition"] == 11
    data = in_a_row(gap, rules, links)
    agree(data, least + ed11, "target_beyond_roll" if ed11 else "roll_too_low")
    scen, r = rule(data, least + ed11)
    assert len(r.moves) == links + 1
    assert all(m.distance > 7 - 1e-6 for m in r.moves)  # every model made A1's move


@EDGE_CHAIN
@given(turn=st.floats(0, 360), mirror=st.booleans(), links=st.sampled_from([1, 2]),
       rules=st.sampled_from(CHAIN_RULES), out=st.booleans())
@example(turn=90.0, mirror=True, links=2, rules=RULES[0], out=False)
@example(turn=180.0, mirror=False, links=1, rules=RULES[1], out=False)
@example(turn=270.0, mirror=True, links=2, rules=RULES[2], out=True)
@example(turn=272.5956, mirror=False, links=2, rules=RULES[1], out=False)
@example(turn=33.3, mirror=True, links=1, rules={"edition": 11}, out=False)
def test_models_in_a_row_turned_and_mirrored(turn: float, mirror: bool, links: int, rules: dict[str, Any],
                                             out: bool) -> None:
    # the edge holds on the turned and mirrored board too. Turning moves the centres by
    # rounding (about 1e-14), which can put the exact gap itself a few units over
    # R + 1e-6 (then R + 1 is right): the inside edge is taken 1e-12 inside it
    ed11 = rules["edition"] == 11
    least = (8 if out else 7) + ed11
    agree(in_a_row(OUT if out else IN - 1e-12, rules, links, turn, mirror), least,
          "target_beyond_roll" if ed11 else "roll_too_low")


def test_the_chain_fits_in_one_hair() -> None:
    # the constants behind the sharp edge: the engagement edge's offset plus a long
    # chain of links stays within the budget test's one hair, and is never nothing
    from chargeref.systems.w40k.solver_base import BUDGET_SLACK, LOCUS_HAIR, TOL
    from chargeref.systems.w40k.spots import CHAIN_LINKS, EDGE_HAIR, LINK_HAIR

    assert BUDGET_SLACK == TOL + LOCUS_HAIR
    assert 0 < EDGE_HAIR and EDGE_HAIR + CHAIN_LINKS * LINK_HAIR <= LOCUS_HAIR * (1 + 1e-12)
    assert CHAIN_LINKS >= 40


@pytest.mark.parametrize(("gap", "least"), [(IN, 8), (OUT, 9)])
def test_edition_11_picks_within_the_roll(gap: float, least: int) -> None:
    # edition 11: a roll picks targets within it (a closed-form gap, the same
    # tolerance), so the least roll is the gap's: 8 at 8 + 1e-6, 9 just beyond
    agree(board(gap, {"edition": 11}), least, "target_beyond_roll")




@EDGE
@given(turn=st.floats(0, 360), mirror=st.booleans(), two=st.booleans(),
       rules=st.sampled_from(RULES + [{"edition": 11}]), out=st.booleans())
@example(turn=0.0, mirror=True, two=False, rules=RULES[1], out=False)
@example(turn=90.0, mirror=False, two=True, rules=RULES[2], out=True)
@example(turn=272.5956, mirror=True, two=False, rules=RULES[0], out=False)
@example(turn=33.3, mirror=False, two=False, rules={"edition": 11}, out=True)
def test_turned_and_mirrored(turn: float, mirror: bool, two: bool, rules: dict[str, Any], out: bool) -> None:
    # turning moves the centres by rounding (~1e-14): the inside edge is taken 1e-12
    # inside the tolerance, the outside one 1e-9 beyond it
    gap = OUT if out else IN - 1e-12
    least = (8 if out else 7) + (rules["edition"] == 11)
    ed11 = rules["edition"] == 11
    agree(board(gap, rules, turn, mirror, two), least, "target_beyond_roll" if ed11 else "roll_too_low")


def _moved_to(data: dict[str, Any], ruling: Any, length: float) -> Any:
    """The ruling with A1's straight move redone to ``length`` along the line to B1 (the
    exact start, unrounded), its path, distance and end position with it."""
    from chargeref.ruling import Ruling

    a = data["units"][0]["models"][0]["at"]
    b = data["units"][1]["models"][0]["at"]
    d = math.dist(a, b)
    to = [a[0] + (b[0] - a[0]) * length / d, a[1] + (b[1] - a[1]) * length / d]
    doc = ruling.model_dump(by_alias=True)
    (mv,) = doc["moves"]
    mv.update({"from": [*a, 0.0], "to": [*to, 0.0], "distance": length, "path": [a, to], "segments": None})
    (m,) = doc["after"]["units"][0]["models"]
    m["at"] = [*to, 0.0]
    return Ruling.model_validate(doc)


@pytest.mark.parametrize(("length", "codes"), [
    (7 + 1e-6 - 1e-12, set()),  # a hair under the roll + TOL, the gap 1" + 1e-12
    (7 + 1.001e-6, {"over_budget"}),  # over the roll + TOL
    (7 + 1e-12, set()),  # the gap a hair under 1" + TOL
])
def test_validator_reads_the_same_edge(length: float, codes: set[str]) -> None:
    # the checker's own thresholds at the roll's edge: the move within the roll + 1e-6,
    # the end within 1" + 1e-6 of the target, each alone (no stacking: one TOL each)
    data = board(IN, RULES[1])
    scen, ok = rule(data, 7)
    assert ok.success
    got = {v.code for v in validate(scen, _moved_to(data, ok, length))}
    assert got == codes


def test_validator_refuses_a_gap_beyond_the_tolerance() -> None:
    # stopping 1.001e-6 short of engagement range leaves the target unengaged
    data = board(IN, RULES[1])
    scen, ok = rule(data, 7)
    got = {v.code for v in validate(scen, _moved_to(data, ok, 7 - 1e-9))}
    assert "target_not_engaged" in got and "over_budget" not in got


def test_fit_steps_back_along_a_path_round_terrain() -> None:
    # ChargeProblem.fit on a path that bends round an impassable block: asked for a
    # roll whose R + 1e-6 - 2e-9 the found move passes by 2e-9, it steps the model back
    # along the last (straight) piece, to a spot whose planned cost is within it
    from chargeref.systems.w40k.solver import LOCUS_HAIR, TRIM_MARGIN
    from chargeref.systems.w40k.world import build_world

    data = _data([[20.0, 22.0]], [29.0, 22.3], {"edition": 10, "wtc": False})
    data["terrain"] = [{"type": "impassable", "id": "T", "polygon": [[23.5, 20.5], [25.0, 20.5], [25.0, 24.5], [23.5, 24.5]]}]
    scen = scenario_from_data(data)
    req = ChargeRequest(charger="A", targets=("B",), roll=12)
    prob = S._problem(build_world(scen), req)
    pl = prob.solve(12.0)
    assert pl is not None
    c = pl.cost["A1"]
    path = prob.path_of(prob.models[0], pl.pos["A1"])
    assert len(path.points) > 2  # it goes round the block
    R = c - 1e-6  # the move is 2e-9 over R + 1e-6 - TRIM_MARGIN
    top = R + 1e-6 - TRIM_MARGIN
    out = prob.fit(pl, R)
    assert out is not pl
    assert out.cost["A1"] <= top
    assert c - out.cost["A1"] == pytest.approx(2e-9 + LOCUS_HAIR / 4, abs=1e-12)
    assert float(np.linalg.norm(out.pos["A1"] - pl.pos["A1"])) <= 3.25e-9
    again = prob.path_of(prob.models[0], out.pos["A1"])
    assert again.length == pytest.approx(out.cost["A1"], abs=1e-12)
    assert prob.engaged_by(out).all()
    # nothing to do when the move is within R + 1e-6 - TRIM_MARGIN
    assert prob.fit(pl, c - 1e-6 + TRIM_MARGIN) is pl
