"""Warhammer 40,000 charges (editions 9 and 10, WTC procedure and walls rule)."""

from .system import SYSTEM, W40k

__all__ = ["SYSTEM", "W40k"]
