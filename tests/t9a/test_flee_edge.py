"""A flee that ends touching the board edge destroys the unit; ending 0.001" short
does not (the end is exact: a straight move, no sampling)."""

from __future__ import annotations

import numpy as np
import pytest
from build import scen, unit

from chargeref.systems.t9a.moves import flee_move
from chargeref.systems.t9a.resolve import Phase


@pytest.mark.parametrize(("rolled", "destroyed"), [(8.0, True), (7.999, False), (8.001, True)])
def test_flee_to_the_board_edge(rolled: float, destroyed: bool) -> None:
    # U looks along +y with its front 8" from the far edge (board 48 deep); the threat
    # is straight behind it, so it flees straight on
    ph = Phase(scen([unit("U", 1, (24.0, 40.0), 90.0, 4, 8)]), 1)
    U = ph.world.blocks["U"]
    r = flee_move(ph.world, U, U.centre - np.array([0.0, 5.0]), rolled)
    assert abs(r.distance - rolled) <= 1e-12
    assert r.destroyed is destroyed


def test_flee_sideways_to_the_edge_after_the_pivot() -> None:
    # the threat is to U's left: it pivots about its centre to look along +x and flees;
    # its front then lies half its depth ahead of its centre; the board edge is x = 48
    ph = Phase(scen([unit("U", 1, (24.0, 20.0), 90.0, 4, 8)]), 1)
    U = ph.world.blocks["U"]
    c = U.centre
    to_edge = 48.0 - (float(c[0]) + U.depth / 2)  # after turning to +x, its front is depth/2 ahead of the centre
    assert flee_move(ph.world, U, c - np.array([5.0, 0.0]), to_edge).destroyed
    assert not flee_move(ph.world, U, c - np.array([5.0, 0.0]), to_edge - 1e-3).destroyed
