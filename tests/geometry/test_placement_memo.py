"""``placement.locus_crossings`` keeps its answers by the exact numbers of its inputs
(``geometry/footprint_key.py``): a crossing asked again, with footprints built anew
from the same numbers, is the very answer the root finder gives; footprints that differ
in one number, or a gap that differs, are solved afresh.
"""

from __future__ import annotations

import numpy as np

from chargeref.geometry import placement
from chargeref.geometry.footprint_key import ExactArgs, footprint_key
from chargeref.geometry.shapes import ConvexPolygon, Disc, Ellipse, Footprint, Sum


def _oval(x: float, y: float, theta: float = 0.4) -> Footprint:
    return Footprint((Ellipse((x, y), 1.18, 0.69, theta),), "oval", (x, y))


def _rect(x: float, y: float) -> Footprint:
    h = 0.8
    return Footprint((ConvexPolygon(((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))),), "rect", (x, y))


def test_a_crossing_asked_again_is_the_one_the_root_finder_gives() -> None:
    placement._crossings_kept.cache_clear()
    args = (_oval(0.0, 0.0), _rect(4.6, 1.0), 0.5, _oval(4.0, 3.4, -0.3), 1.0)
    first = placement.locus_crossings(*args)
    again = placement.locus_crossings(_oval(0.0, 0.0), _rect(4.6, 1.0), 0.5, _oval(4.0, 3.4, -0.3), 1.0)
    built = placement._locus_crossings(*args)
    assert len(built) > 0
    assert placement._crossings_kept.cache_info().hits == 1
    assert np.array_equal(first, built) and np.array_equal(again, built)
    # each caller gets its own array: writing into one leaves the kept answer as it was
    again[:] = 0.0
    assert np.array_equal(placement.locus_crossings(*args), built)


def test_one_number_apart_is_another_crossing() -> None:
    placement._crossings_kept.cache_clear()
    base = placement.locus_crossings(_oval(0.0, 0.0), _rect(4.6, 1.0), 0.5, _oval(4.0, 3.4, -0.3), 1.0)
    moved = placement.locus_crossings(_oval(0.0, 0.0), _rect(4.6, 1.0 + 1e-12), 0.5, _oval(4.0, 3.4, -0.3), 1.0)
    turned = placement.locus_crossings(_oval(0.0, 0.0, 0.4 + 1e-12), _rect(4.6, 1.0), 0.5, _oval(4.0, 3.4, -0.3), 1.0)
    wider = placement.locus_crossings(_oval(0.0, 0.0), _rect(4.6, 1.0), 0.5, _oval(4.0, 3.4, -0.3), 1.0 + 1e-12)
    assert placement._crossings_kept.cache_info().hits == 0
    assert placement._crossings_kept.cache_info().misses == 4
    assert len(base) == len(moved) == len(turned) == len(wider) > 0


def test_footprint_keys_hold_every_number() -> None:
    a = _oval(1.0, 2.0)
    assert footprint_key(a) == footprint_key(_oval(1.0, 2.0))
    assert footprint_key(a) != footprint_key(_oval(1.0, 2.0 + 1e-15))
    # the same parts about another centre (the model's ``at``) is another footprint
    off = Footprint(a.parts, "oval", (1.0, 2.5))
    assert footprint_key(off) != footprint_key(a)
    # a Minkowski sum: each of its parts
    s1 = Footprint((Sum((Ellipse((0.0, 0.0), 1.0, 0.5, 0.0), Disc((0.0, 0.0), 0.2))),), "oval", (0.0, 0.0))
    s2 = Footprint((Sum((Ellipse((0.0, 0.0), 1.0, 0.5, 0.0), Disc((0.0, 0.0), 0.25))),), "oval", (0.0, 0.0))
    assert footprint_key(s1) is not None and footprint_key(s1) != footprint_key(s2)
    assert ExactArgs(footprint_key(a), (a,)) == ExactArgs(footprint_key(_oval(1.0, 2.0)), ())
    assert ExactArgs(footprint_key(a), (a,)) != ExactArgs(footprint_key(s1), (a,))


def test_a_part_that_is_not_numbers_is_not_kept() -> None:
    """A part whose fields are not all numbers (or not a dataclass) has no key: its
    crossings are solved every time."""
    from dataclasses import dataclass

    from chargeref.geometry.footprint_key import _part_key

    @dataclass(frozen=True, eq=False)
    class Named(Disc):
        name: str = "x"

    assert _part_key(Named((0.0, 0.0), 1.0)) is None
    assert footprint_key(Footprint((Named((0.0, 0.0), 1.0),), "round", (0.0, 0.0))) is None
    assert _part_key(object()) is None
