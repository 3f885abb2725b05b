"""Points a rounding error off an ellipse's major axis (found by the catalogue tests:
a round base straight in front of an oval base divided by zero)."""

from __future__ import annotations

import numpy as np
import pytest

from chargeref.geometry.shapes import ellipse_point_signed_distance


@pytest.mark.parametrize("off", [0.0, 1e-300, 1e-17, 1e-13, 1e-12])
def test_point_on_or_a_hair_off_the_major_axis(off):
    a, b = 90 / 2 / 25.4, 52 / 2 / 25.4
    for x in (3.0, a + 0.5, a - 0.2, 0.1):
        d = ellipse_point_signed_distance(a, b, np.array([[x, off]]))[0]
        exact = ellipse_point_signed_distance(a, b, np.array([[x, 0.0]]))[0]
        assert np.isfinite(d) and d == pytest.approx(exact, abs=1e-9)
    # outside on the axis the distance is the gap to the vertex
    assert ellipse_point_signed_distance(a, b, np.array([[a + 2.0, off]]))[0] == pytest.approx(2.0, abs=1e-9)


def test_just_above_the_guard_still_solves():
    a, b = 2.0, 1.0
    y = b * 1e-11
    d = ellipse_point_signed_distance(a, b, np.array([[3.0, y]]))[0]
    assert d == pytest.approx(1.0, abs=1e-9)
