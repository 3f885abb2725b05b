"""Product bugs the outside referee found, fixed in files this task owns, each held at
its edge.

* A failed charge (edition 9) whose exact shortest path runs along an oval's grown
  boundary (a "curve" piece) crashed with IndexError in ``settle._point_along``: it
  knew only lines and arcs. The point at a given length along a curve piece is now
  found on the body's own boundary (``settle._point_along_curve``).
* A model's ``at`` that is neither [x, y] nor [x, y, z] was refused with three lines
  naming pydantic's internal type labels (``at.tuple[float, float][1]``); it is now one
  line naming ``at``.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import referee
from scipy.integrate import quad

from chargeref import service
from chargeref.geometry.curves import make_curve
from chargeref.geometry.smooth import SmoothBody
from chargeref.systems.w40k.settle import _point_along

DATA = Path(__file__).parent / "data"
SQUARE = SmoothBody((), ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)), 0.5)


def _close(p: np.ndarray, q: tuple[float, float]) -> None:
    assert math.dist(p, q) < 1e-9, (p, q)


@pytest.mark.parametrize("ccw", [True, False])
def test_point_along_a_rounded_square(ccw: bool) -> None:
    """A 2x2 square grown by 0.5, from the normal 0 to the normal pi across the top:
    a quarter circle, the 2" top side, a quarter circle (total pi/2 + 2)."""
    piece = make_curve(SQUARE, 0.0, math.pi, True) if ccw else make_curve(SQUARE, math.pi, 0.0, False)
    assert piece.length == pytest.approx(math.pi / 2 + 2, abs=1e-9)
    start, end = ((1.5, 1.0), (-1.5, 1.0)) if ccw else ((-1.5, 1.0), (1.5, 1.0))
    _close(_point_along([piece], 0.0), start)
    _close(_point_along([piece], piece.length), end)
    # the middle of the flat top side
    _close(_point_along([piece], math.pi / 4 + 1), (0.0, 1.5))
    # a quarter of the way along the top side, and half way round the first corner
    x = 0.5 if ccw else -0.5
    _close(_point_along([piece], math.pi / 4 + 0.5), (x, 1.5))
    c = (1.0, 1.0) if ccw else (-1.0, 1.0)
    _close(_point_along([piece], math.pi / 8), (c[0] + 0.5 * math.cos(math.pi / 4) * (1 if ccw else -1),
                                                c[1] + 0.5 * math.sin(math.pi / 4)))


def test_point_along_an_ellipse_matches_its_arc_length() -> None:
    """An ellipse 2 x 1: the point at length s from (2, 0) is (2 cos t, sin t) where the
    integral of sqrt(4 sin^2 + cos^2) from 0 to t is s."""
    body = SmoothBody(((0.0, 0.0, 2.0, 1.0, 0.0),))
    piece = make_curve(body, 0.0, math.pi / 2, True)

    def arc(t: float) -> float:
        return quad(lambda u: math.hypot(2 * math.sin(u), math.cos(u)), 0, t, epsabs=1e-14)[0]

    for t in (0.1, 0.7, 1.3):
        _close(_point_along([piece], arc(t)), (2 * math.cos(t), math.sin(t)))


def test_failed_charge_along_an_oval_no_longer_crashes() -> None:
    """The generated scenario that crashed: edition 9, two 40 mm models roll 9 against
    three targets (one of 90x52 mm ovals) and fail; the failed move is made and the
    outside referee finds nothing wrong with it."""
    scen = json.loads((DATA / "failed_charge_round_an_oval.json").read_text())
    r = service.charge(scen, "A", ["B", "C", "D"], dice=[3, 6])
    assert r["success"] is False and r["procedure"] == "failed"
    assert r["moves"], "edition 9 moves a failed charge"
    assert referee.check(scen, r) == []


def test_a_bad_at_is_one_line_naming_the_field(tmp_path: Path) -> None:
    src = (Path(__file__).parents[2] / "examples" / "40k" / "ruin_wall.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(src.replace("at: [22, 9]", 'at: [22, "x"]'))
    before = bad.read_bytes()
    p = subprocess.run([sys.executable, "-m", "chargeref.cli", "charge", str(bad), "--charger", "I", "--target", "T",
                        "--dice", "3,4", "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert lines == [lines[0]] and lines[0].startswith("chargeref: units[I].models[I1].at: "), p.stderr
    assert "tuple[" not in p.stderr and "Traceback" not in p.stderr
    assert p.stdout == ""
    assert bad.read_bytes() == before
