"""Pictures of scenarios and rulings: ``render_svg`` (standard library only) and
``render_png`` (needs the ``[png]`` extra). One renderer per system over shared
primitives; the look comes from ``style.json``, which the web board reads too."""

from .png import PNG_EXTRA_MESSAGE, render_png
from .primitives import DEFAULT_WIDTH_PX
from .svg import RENDERERS, render_svg

__all__ = ["DEFAULT_WIDTH_PX", "PNG_EXTRA_MESSAGE", "RENDERERS", "render_png", "render_svg"]
