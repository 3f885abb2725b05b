"""Pictures of scenarios and rulings: ``render_svg`` (standard library only) and
``render_png`` (needs the ``[png]`` extra)."""

from .png import PNG_EXTRA_MESSAGE, render_png
from .svg import DEFAULT_WIDTH_PX, render_svg

__all__ = ["DEFAULT_WIDTH_PX", "PNG_EXTRA_MESSAGE", "render_png", "render_svg"]
