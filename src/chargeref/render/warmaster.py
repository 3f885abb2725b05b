"""Warmaster pictures: stands with their front edges, short stand labels, and the
first stand placed in the charge."""

from __future__ import annotations

from ..scenario import ScenarioWarmaster
from .board import BoardRenderer
from .primitives import _SEPARATORS, _Piece


class RendererWarmaster(BoardRenderer):
    def _system_name(self) -> str:
        scen = self.scen
        assert isinstance(scen, ScenarioWarmaster)
        return f"Warmaster ({scen.rules.variant})"

    def _model_label_text(self, p: _Piece) -> str | None:
        # stand ids repeat the unit's id: show only the part after it
        if p.id.startswith(p.unit):
            return p.id[len(p.unit):].lstrip("".join(_SEPARATORS)) or p.id
        return p.id
