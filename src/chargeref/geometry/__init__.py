"""Geometry: bases, exact distances, paths and placement helpers. No game rules here."""

from .shapes import TOL, Footprint, distance, overlaps, signed_distance, within

__all__ = ["TOL", "Footprint", "distance", "overlaps", "signed_distance", "within"]
