"""Warmaster charges: stands, the closest stand centre to centre, the flush line
(seed 004), and the Warmaster Revolution variant (``rules.variant: revolution``)."""

from .system import SYSTEM, Warmaster

__all__ = ["SYSTEM", "Warmaster"]
