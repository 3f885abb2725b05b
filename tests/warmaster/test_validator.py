"""The independent validator catches broken end states (each tampered ruling below is
rejected with the right code), and accepts the real ones."""

from __future__ import annotations

import math
from typing import Any

import pytest
from wm_helpers import charge, example, infantry_line, scen, stands

from chargeref.ruling import Move, Ruling
from chargeref.testing import assert_legal_charge
from chargeref.validate import validate_ruling


def tamper(r: Ruling, sid: str, to: list[float] | None = None, facing: float | None = None,
           path: list[list[float]] | None = None, **rest: Any) -> Ruling:
    moves = []
    for m in r.moves:
        if m.id == sid:
            new_to = to if to is not None else m.to
            new_path = path if path is not None else [m.from_, new_to]
            cost = rest.pop("distance", None)
            m = Move(id=m.id, from_=m.from_, to=new_to, distance=cost if cost is not None else m.distance,
                     contacts=m.contacts, path=new_path, facing=facing if facing is not None else m.facing)
        moves.append(m)
    return r.model_copy(update={"moves": moves, "after": None, **rest})


def vcodes(before: Any, r: Ruling) -> set[str]:
    return {v.code for v in validate_ruling(before, r)}


def test_real_rulings_pass() -> None:
    s = example("diagram_33_6.yaml")
    assert_legal_charge(s, charge(s, "C", "E"))


def test_too_far_is_caught_a_thousandth_over() -> None:
    s = scen({"units": [infantry_line("E", 2, [60], 50, 270), stands("C", 1, "cavalry", [(60, 17)], 90)]})
    r = charge(s, "C", "E")
    assert_legal_charge(s, r)
    # claim the stand came from 1e-3 further back: the same end, 30.001 of travel
    far = r.model_copy(update={"after": None, "moves": [Move(id="C.0", from_=[60, 16.999], to=[60, 47],
                                                             distance=30.001, path=[[60, 16.999], [60, 47]],
                                                             facing=90)]})
    s2 = scen({"units": [infantry_line("E", 2, [60], 50, 270), stands("C", 1, "cavalry", [(60, 16.999)], 90)]})
    assert "too_far" in vcodes(s2, far)


def test_overlap_and_off_centre_first_stand() -> None:
    s = example("diagram_33_6.yaml")
    r = charge(s, "C", "E")
    bad = tamper(r, "C.1", to=[57.5, 47.0])  # half over C.2
    assert "overlap" in vcodes(s, bad)
    off = tamper(r, "C.2", to=[55.5, 47.0])
    c = vcodes(s, off)
    assert "not_centre_to_centre" in c


def test_corner_only_first_contact() -> None:
    s = scen({"units": [infantry_line("E", 2, [60], 50, 270), stands("C", 1, "cavalry", [(55, 30)], 90)]})
    r = charge(s, "C", "E")
    corner = tamper(r, "C.0", to=[57.0, 47.0], distance=17.0)  # x 56..58: touches E at (58, 49) only
    assert "corner_only_first" in vcodes(s, corner)


def test_formation_broken() -> None:
    s = example("diagram_33_6.yaml")
    r = charge(s, "C", "E")
    apart = tamper(r, "C.0", to=[61.0, 47.0])  # a 1 cm gap from C.1
    codes = vcodes(s, apart)
    assert "formation" in codes


def test_wrong_facing_and_not_flush() -> None:
    s = example("diagram_33_6.yaml")
    r = charge(s, "C", "E")
    turned = tamper(r, "C.0", facing=270.0)
    assert "facing" in vcodes(s, turned)
    r2 = tamper(r, "C.2", to=[56.0, 46.5])
    assert {"first_not_flush"} & vcodes(s, r2)


def test_engaged_must_list_every_touched_unit() -> None:
    s = example("diagram_34_1.yaml")
    r = charge(s, "C", "T")
    assert "engaged_mismatch" in vcodes(s, r.model_copy(update={"engaged": ["T"]}))


def test_path_through_another_stand() -> None:
    # a friendly stand stands in the way; a path straight through it is caught
    s = scen({"units": [infantry_line("E", 2, [60], 50, 270), infantry_line("F", 1, [61.5], 40, 90),
                        stands("C", 1, "cavalry", [(60, 25)], 90)]})
    r = charge(s, "C", "E")
    assert r.success and len(r.moves[0].path or []) > 2
    straight = tamper(r, "C.0", path=[[60, 25], [60, 47]], distance=22.0)
    assert "path_blocked" in vcodes(s, straight)


def test_fallback_that_could_have_joined_the_line() -> None:
    s = example("diagram_33_6.yaml")
    r = charge(s, "C", "E")
    # put C.0 directly behind C.1 instead of beside it in the line
    behind = tamper(r, "C.0", to=[58.0, 43.0], distance=math.hypot(8, 13) + 1)
    c = vcodes(s, behind)
    assert "not_in_line" in c


def test_failed_charge_must_not_move() -> None:
    s = example("diagram_34_3.yaml")
    r = charge(s, "C", "T")
    assert not r.success
    moved = r.model_copy(update={"after": None, "moves": [Move(id="C.0", from_=[48, 30], to=[48, 31], distance=1,
                                                               facing=90)]})
    assert "failed_but_moved" in vcodes(s, moved)


def test_after_must_match_the_moves() -> None:
    s = example("diagram_33_6.yaml")
    r = charge(s, "C", "E")
    data = r.after
    assert data is not None
    data = {**data, "units": [dict(u) for u in data["units"]]}
    for u in data["units"]:
        if u["id"] == "C":
            u["stands"] = [dict(x) for x in u["stands"]]
            u["stands"][0]["at"] = [0.5, 0.5]
    with pytest.raises(AssertionError, match="after_mismatch"):
        assert_legal_charge(s, r.model_copy(update={"after": data}))


def test_validator_is_independent_of_the_solver() -> None:
    import subprocess
    import sys

    code = ("import sys, chargeref.validate.warmaster, chargeref.testing; "
            "print([m for m in sys.modules if m.startswith('chargeref.systems.warmaster')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
