"""Exact keys of footprints: every number a footprint is made of, so that a pure
function of footprints can keep its answers (``placement.locus_crossings``) and give
the same one again for footprints built anew with the same numbers."""

from __future__ import annotations

import dataclasses

import numpy as np

from .shapes import Footprint


def _part_key(p: object) -> tuple | None:
    """Every number a convex part is defined by, exactly (its type, each dataclass
    field as the bytes of its floats; a sum's parts in turn), or None for a part that
    is not such a dataclass or has a field that is not numbers."""
    if not dataclasses.is_dataclass(p):
        return None
    out: list[object] = [type(p).__name__]
    for f in dataclasses.fields(p):
        v = getattr(p, f.name)
        if f.name == "parts":
            ks = tuple(_part_key(q) for q in v)
            if any(k is None for k in ks):
                return None
            out.append(ks)
        else:
            try:
                a = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                return None  # a field that is not numbers: not kept
            out.append((a.shape, a.tobytes()))
    return tuple(out)


def footprint_key(fp: Footprint) -> tuple | None:
    """``_part_key`` of every part and the centre, kept on the footprint (a footprint
    never changes once built)."""
    key = fp.__dict__.get("_placement_key", False)
    if key is False:
        ks = tuple(_part_key(p) for p in fp.parts)
        key = None if any(k is None for k in ks) else (ks, np.asarray(fp.center, dtype=float).tobytes())
        fp.__dict__["_placement_key"] = key
    return key


class ExactArgs:
    """A function's arguments (``args``) that are equal and hashed by ``key``, the exact
    numbers they are made of: the argument of an ``lru_cache`` of a function of
    footprints."""

    __slots__ = ("args", "key")

    def __init__(self, key: tuple, args: tuple) -> None:
        self.key = key
        self.args = args

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExactArgs) and self.key == other.key
