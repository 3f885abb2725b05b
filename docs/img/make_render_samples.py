"""Regenerate the renderer's sample pictures in docs/img (hand-made rulings, so that
the pictures do not depend on any rule system):

    .venv/bin/python docs/img/make_render_samples.py
"""

from __future__ import annotations

import math
from pathlib import Path

from chargeref.geometry.blocks import block_model_centres
from chargeref.render import render_png, render_svg
from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data

OUT = Path(__file__).parent
R32 = 16 / 25.4  # radius of a 32 mm base in inches


def sample_40k() -> None:
    scen = scenario_from_data({
        "format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44},
        "terrain": [
            {"type": "ruin", "id": "R1", "footprint": [[20, 20], [30, 20], [30, 28], [20, 28]],
             "walls": [{"points": [[20, 28], [20, 20], [26, 20]], "height": 5, "thickness": 0.25}],
             "floors": [{"polygon": [[24, 24], [30, 24], [30, 28], [24, 28]], "height": 3}]},
            {"type": "barricade", "id": "B1", "points": [[34, 12], [40, 12]], "height": 1},
        ],
        "units": [
            {"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [
                {"id": "A1", "at": [22, 13], "base": "32mm"},
                {"id": "A2", "at": [24, 13], "base": "32mm"},
                {"id": "A3", "at": [26, 13], "base": "32mm"},
                {"id": "A4", "at": [23, 11], "base": "32mm"},
                {"id": "A5", "at": [25, 11], "base": "60x35.5mm oval", "facing": 60}]},
            {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [
                {"id": "B1", "at": [22, 22.2], "base": "32mm"},
                {"id": "B2", "at": [24.5, 22.5], "base": "32mm"},
                {"id": "B3", "at": [27, 22.5], "base": "40mm"}]},
        ]})
    moves = [
        {"id": "A1", "from": [22, 13, 0], "to": [22, 19.875 - R32, 0], "distance": 6.62, "token": True},
        {"id": "A2", "from": [24, 13, 0], "to": [24.5, 22.5 - 2 * R32, 0], "distance": 8.3,
         "contacts": ["B2"], "path": [[24, 13], [27.2, 18.5], [24.5, 22.5 - 2 * R32]]},
        {"id": "A3", "from": [26, 13, 0], "to": [27, 22.5 - R32 - 20 / 25.4, 0], "distance": 8.14,
         "contacts": ["B3"]},
        {"id": "A4", "from": [23, 11, 0], "to": [23.2, 17.6, 0], "distance": 6.6},
        {"id": "A5", "from": [25, 11, 0], "to": [25.3, 18.55, 0], "distance": 7.56, "facing": 90},
    ]
    r = Ruling.model_validate({
        "system": "40k", "charger": "A", "targets": ["B"], "eligible": True,
        "needed": {"distance": 6.62, "roll": 7}, "roll": {"dice": [3, 5], "modifier": 0, "total": 8},
        "success": True, "procedure": "wtc_walls", "moves": moves, "engaged": ["B"],
        "reasons": [{"code": "wall_token", "models": ["A1"],
                     "message": 'A1 cannot reach B1 past the ruin wall; it ends against the wall and '
                                'takes a token: A1 and B1 fight at 2" across it.'}]})
    render_png(render_svg(scen, r), OUT / "render_40k_sample.png")


def sample_t9a() -> None:
    units = [
        {"id": "K", "player": 1, "name": "Knights", "advance_rate": 8,
         "formation": {"front": [30, 14], "facing": 70, "files": 5, "models": 10, "base": {"rect": [25, 50]}}},
        {"id": "S", "player": 2, "name": "Spearmen",
         "formation": {"front": [36, 30], "facing": 250, "files": 6, "models": 20, "base": {"rect": [20, 20]}}},
        {"id": "H", "player": 2, "name": "Hero",
         "formation": {"front": [46, 24], "facing": 180, "files": 1, "models": 1, "base": {"round": 50}}},
    ]
    terrain = [{"type": "impassable", "id": "Rocks", "polygon": [[14, 30], [20, 29], [21, 35], [15, 36]]},
               {"type": "hill", "id": "Hill", "polygon": [[40, 8], [50, 7], [52, 14], [42, 15]], "height": 1}]
    data = {"format": "chargeref/1", "system": "t9a", "board": {"width": 72, "depth": 48},
            "terrain": terrain, "units": units}
    scen = scenario_from_data(data)
    after_units = [dict(u) for u in units]
    after_units[0] = {**units[0], "flags": ["charged"],
                      "formation": {**units[0]["formation"], "front": [36, 30]}}  # type: ignore[dict-item]
    w, d = 25 / 25.4, 50 / 25.4
    before = block_model_centres((30, 14), 70, 5, 10, w, d)
    after = block_model_centres((36, 30), 70, 5, 10, w, d)
    moves = [{"id": f"K.{i + 1}", "from": [float(p[0]), float(p[1])], "to": [float(q[0]), float(q[1])],
              "distance": math.dist(p, q), "facing": 70} for i, (p, q) in enumerate(zip(before, after, strict=True))]
    r = Ruling.model_validate({
        "system": "t9a", "charger": "K", "targets": ["S"], "eligible": True,
        "needed": {"distance": 17.1, "roll": 10}, "roll": {"dice": [5, 6], "total": 11},
        "success": True, "procedure": "normal", "moves": moves, "engaged": ["S"],
        "details": {"charged_facing": "front", "reaction": "hold", "wheel": 0},
        "after": {**data, "units": after_units}})
    render_png(render_svg(scen, r), OUT / "render_t9a_sample.png")


def sample_warmaster() -> None:
    terrain = [{"type": "hill", "id": "H1", "polygon": [[70, 64], [80, 63], [82, 71], [72, 72]], "height": 2},
               {"type": "impassable", "id": "Marsh", "polygon": [[96, 44], [102, 45], [101, 51], [95, 50]]}]

    def stands(xs: list[float], y: float, facing: float) -> list[dict[str, object]]:
        return [{"at": [x, y], "facing": facing} for x in xs]

    def units(cav: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{"id": "Cav", "player": 1, "type": "cavalry", "stands": cav},
                {"id": "Orcs", "player": 2, "type": "infantry", "stands": stands([84, 88, 92], 60, 270)},
                {"id": "Wolves", "player": 2, "type": "cavalry", "stands": stands([97, 99, 101], 62, 250)}]

    data = {"format": "chargeref/1", "system": "warmaster", "board": {"width": 180, "depth": 120},
            "terrain": terrain}
    scen = scenario_from_data({**data, "units": units(stands([80, 82, 84], 42, 90))})
    moves = [
        {"id": "Cav.1", "from": [80, 42], "to": [86, 57], "distance": 16.2, "contacts": ["Orcs.1", "Orcs.2"]},
        {"id": "Cav.2", "from": [82, 42], "to": [88, 57], "distance": 16.2, "contacts": ["Orcs.2"]},
        {"id": "Cav.3", "from": [84, 42], "to": [90, 57], "distance": 16.2, "contacts": ["Orcs.2", "Orcs.3"]},
    ]
    r = Ruling.model_validate({
        "system": "warmaster", "charger": "Cav", "targets": ["Orcs"], "eligible": True, "success": True,
        "procedure": "normal", "moves": moves, "engaged": ["Orcs"],
        "details": {"first_stand": "Cav.2", "edge": "front"},
        "after": {**data, "units": units(stands([86, 88, 90], 57, 90))}})
    render_png(render_svg(scen, r), OUT / "render_warmaster_sample.png")


if __name__ == "__main__":
    sample_40k()
    sample_t9a()
    sample_warmaster()
