"""Work shared within one ruling: tables of results keyed by everything they depend on.

A charge, a ``needed`` or a whole phase asks the same geometric questions many times
(the align angles of one charger at one end offset; whether one piece of a move runs
into one obstacle). ``scope()`` opens a set of tables for one ruling; ``table(name)``
is one of them, or None outside a ruling (the functions then just compute). Tables
live only as long as the ruling: nothing is carried from one ruling to the next, and
a key always holds every input of the value it names (exact floats, no rounding), so
a hit gives what computing afresh would give.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_TABLES: ContextVar[dict[str, dict[Any, Any]] | None] = ContextVar("chargeref_t9a_memo", default=None)


@contextmanager
def scope() -> Iterator[None]:
    """Tables for one ruling (a scope opened inside another shares the outer one)."""
    if _TABLES.get() is not None:
        yield
        return
    token = _TABLES.set({})
    try:
        yield
    finally:
        _TABLES.reset(token)


def table(name: str) -> dict[Any, Any] | None:
    """The table ``name`` of the current ruling, or None outside one."""
    tables = _TABLES.get()
    if tables is None:
        return None
    t = tables.get(name)
    if t is None:
        t = tables[name] = {}
    return t
