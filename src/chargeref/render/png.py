"""SVG -> PNG through cairosvg (the optional ``[png]`` extra)."""

from __future__ import annotations

from pathlib import Path

PNG_EXTRA_MESSAGE = "PNG output needs the [png] extra: pip install 'chargeref[png]'"


def render_png(svg: str, path: str | Path | None = None, *, scale: float = 1.0) -> bytes:
    """Rasterise an SVG document (from :func:`render_svg`) to PNG bytes.

    ``scale`` multiplies the SVG's pixel width (960 by default). When ``path`` is given
    the PNG is also written there. cairosvg is imported only here, so the rest of
    chargeref works without it; without it (or without the cairo library) this raises
    ``RuntimeError`` naming the extra to install.
    """
    if scale <= 0:
        raise ValueError("scale must be positive")
    try:
        import cairosvg  # noqa: PLC0415 - optional dependency, imported lazily
    except (ImportError, OSError) as exc:  # OSError: cairocffi finds no libcairo
        raise RuntimeError(PNG_EXTRA_MESSAGE) from exc
    data: bytes = cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)
    if path is not None:
        Path(path).write_bytes(data)
    return data


__all__ = ["render_png", "PNG_EXTRA_MESSAGE"]
