"""Tests of the SVG/PNG renderer: what is drawn, at what size, where, and stably."""

from __future__ import annotations

import math
import re
import sys
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from chargeref.render import PNG_EXTRA_MESSAGE, render_png, render_svg
from chargeref.ruling import Ruling
from chargeref.scenario import scenario_from_data

NS = "{http://www.w3.org/2000/svg}"


# ----------------------------------------------------------------------------- helpers


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def with_class(root: ET.Element, *names: str, tag: str | None = None) -> list[ET.Element]:
    """Elements carrying every one of the classes (optionally of one SVG tag)."""
    out = []
    for el in root.iter():
        if tag is not None and el.tag != NS + tag:
            continue
        if set(names) <= classes(el):
            out.append(el)
    return out


def by_data_id(root: ET.Element, cls: str, data_id: str) -> ET.Element:
    got = [el for el in with_class(root, cls) if el.get("data-id") == data_id]
    assert len(got) == 1, f"{len(got)} elements of class {cls} for {data_id}"
    return got[0]


def viewbox(root: ET.Element) -> tuple[float, float, float, float]:
    x, y, w, h = (float(v) for v in root.get("viewBox", "").split())
    return x, y, w, h


def points(el: ET.Element) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in (p.split(",") for p in el.get("points", "").split())]


def texts(root: ET.Element, cls: str) -> str:
    return " ".join("".join(el.itertext()) for el in with_class(root, cls))


INCH = 25.4


def scen40k(**extra: Any) -> Any:
    data: dict[str, Any] = {
        "format": "chargeref/1",
        "system": "40k",
        "board": {"width": 60, "depth": 44},
        "terrain": [
            {
                "type": "ruin",
                "id": "R1",
                "footprint": [[18, 19], [30, 19], [30, 28], [18, 28]],
                "walls": [{"points": [[18, 20], [26, 20]], "height": 5, "thickness": 0.25}],
                "floors": [{"polygon": [[24, 24], [30, 24], [30, 28], [24, 28]], "height": 3}],
            },
            {"type": "wall", "id": "W1", "points": [[40, 5], [40, 12]], "height": 5, "thickness": 0.5},
            {"type": "barricade", "id": "B1", "points": [[34, 12], [38, 12]], "height": 1},
            {"type": "obstacle", "id": "O1", "polygon": [[36, 20], [38, 20], [38, 22], [36, 22]], "height": 1.5},
            {"type": "impassable", "id": "X1", "polygon": [[8, 30], [12, 30], [12, 34], [8, 34]]},
            {"type": "hill", "id": "H1", "polygon": [[44, 30], [50, 30], [50, 36], [44, 36]], "height": 2},
        ],
        "units": [
            {
                "id": "A",
                "player": 1,
                "keywords": ["INFANTRY"],
                "models": [
                    {"id": "A1", "at": [22, 13], "base": "32mm"},
                    {"id": "A2", "at": [24, 13], "base": "32mm"},
                    {"id": "A3", "at": [26, 13], "base": "60x35.5mm oval", "facing": 30},
                ],
            },
            {
                "id": "B",
                "player": 2,
                "models": [
                    {"id": "B1", "at": [22, 21.3], "base": "32mm"},
                    {"id": "B2", "at": [24.5, 22.5], "base": "40mm"},
                ],
            },
            {"id": "C", "player": 2, "models": [{"id": "C1", "at": [50, 40], "base": {"rect": [100, 50]}, "facing": 0}]},
        ],
    }
    data.update(extra)
    return scenario_from_data(data)


def ruling40k(**extra: Any) -> Ruling:
    r = 16 / INCH
    moves = [
        # A1 ends against the ruin wall (face at y = 19.875) and takes a WTC token
        {"id": "A1", "from": [22, 13, 0], "to": [22, 19.875 - r, 0], "distance": 6.245, "token": True},
        # A2 ends in base contact with B2 (radii 16 + 20 mm), by a two-leg path
        {"id": "A2", "from": [24, 13, 0], "to": [24.5, 22.5 - 36 / INCH, 0], "distance": 8.2,
         "contacts": ["B2"], "path": [[24, 13], [25.5, 17], [24.5, 22.5 - 36 / INCH]]},
        {"id": "A3", "from": [26, 13, 0], "to": [26.8, 17.5, 0], "distance": 4.6, "facing": 90},
    ]
    data: dict[str, Any] = {
        "system": "40k", "charger": "A", "targets": ["B"], "eligible": True,
        "needed": {"distance": 6.2, "roll": 7}, "roll": {"dice": [3, 4], "modifier": 0, "total": 7},
        "success": True, "procedure": "wtc_walls", "moves": moves, "engaged": ["B"],
        "reasons": [{"code": "wall_token", "message": "A1 takes a token.", "models": ["A1"]}],
    }
    data.update(extra)
    return Ruling.model_validate(data)


# ----------------------------------------------------------------------------- 40k


def test_40k_scenario_shapes_and_sizes() -> None:
    root = parse(render_svg(scen40k()))
    assert root.tag == NS + "svg"
    models = with_class(root, "model")
    assert len(models) == 6
    assert len(with_class(root, "model", "p1")) == 3
    assert len(with_class(root, "model", "p2")) == 3
    # a 32 mm round base is a circle of radius 16 mm = 0.62992"
    a1 = by_data_id(root, "model", "A1")
    assert a1.tag == NS + "circle"
    assert float(a1.get("r", "0")) == pytest.approx(0.62992, abs=1e-4)
    # a 60 x 35.5 mm oval is a true ellipse, long axis along the facing (30° CCW ->
    # rotate(-30) in SVG, whose y axis points down)
    a3 = by_data_id(root, "model", "A3")
    assert a3.tag == NS + "ellipse"
    assert float(a3.get("rx", "0")) == pytest.approx(30 / INCH, abs=1e-4)
    assert float(a3.get("ry", "0")) == pytest.approx(17.75 / INCH, abs=1e-4)
    m = re.fullmatch(r"rotate\((\S+) (\S+) (\S+)\)", a3.get("transform", ""))
    assert m and float(m.group(1)) == pytest.approx(-30)
    assert float(m.group(2)) == pytest.approx(26) and float(m.group(3)) == pytest.approx(44 - 13)
    # a rectangular base is a polygon of the right size (100 x 50 mm)
    c1 = by_data_id(root, "model", "C1")
    assert c1.tag == NS + "polygon"
    xs = [p[0] for p in points(c1)]
    ys = [p[1] for p in points(c1)]
    assert max(xs) - min(xs) == pytest.approx(50 / INCH, abs=1e-4)  # depth along facing 0 (+x)
    assert max(ys) - min(ys) == pytest.approx(100 / INCH, abs=1e-4)
    # without a ruling, nothing of a charge is drawn
    for cls in ("ghost", "path", "engagement-ring", "coherency", "contact", "charger", "reasons"):
        assert with_class(root, cls) == [], cls
    # one label per unit
    assert sorted(el.get("data-unit", "") for el in with_class(root, "unit-label")) == ["A", "B", "C"]


def test_y_axis_points_up_the_page() -> None:
    scen = scenario_from_data({
        "format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44},
        "units": [{"id": "T", "player": 1, "models": [{"id": "T1", "at": [30, 40], "base": "32mm"}]},
                  {"id": "L", "player": 2, "models": [{"id": "L1", "at": [30, 4], "base": "32mm"}]}],
    })
    root = parse(render_svg(scen))
    x, y, w, h = viewbox(root)
    top = by_data_id(root, "model", "T1")
    low = by_data_id(root, "model", "L1")
    assert float(top.get("cy", "0")) == pytest.approx(4.0)  # 44 - 40: near the top
    assert float(low.get("cy", "0")) == pytest.approx(40.0)
    assert float(top.get("cy", "0")) < float(low.get("cy", "0"))
    # the board rectangle is inside the view box
    board = with_class(root, "board")[0]
    assert x <= float(board.get("x", "0")) and float(board.get("width", "0")) <= w
    assert y <= 0 and y + h >= 44


def test_deterministic() -> None:
    s, r = scen40k(), ruling40k()
    assert render_svg(s, r) == render_svg(s, r)
    assert render_svg(s) == render_svg(scen40k())
    # numbers carry at most 4 decimals
    svg = render_svg(s, r)
    assert not re.search(r"\d\.\d{5,}", svg)


def test_40k_ruling_draws_the_charge() -> None:
    s, r = scen40k(), ruling40k()
    root = parse(render_svg(s, r))
    # the charger and the targets are emphasised; the other unit is not
    assert len(with_class(root, "model", "charger")) == 3
    assert len(with_class(root, "model", "target")) == 2
    assert len(with_class(root, "model", "idle")) == 1
    # before positions as ghosts, one per moved model
    assert sorted(el.get("data-id", "") for el in with_class(root, "ghost")) == ["A1", "A2", "A3"]
    # after positions come from the moves (no `after` in this ruling)
    a1 = by_data_id(root, "model", "A1")
    assert float(a1.get("cy", "0")) == pytest.approx(44 - (19.875 - 16 / INCH), abs=1e-4)
    # a path with an arrowhead per move; A2's path keeps its waypoint
    paths = with_class(root, "path", tag="polyline")
    assert len(paths) == 3
    assert len(with_class(root, "arrowhead")) == 3
    p2 = next(p for p in paths if p.get("data-id") == "A2")
    assert (25.5, 44 - 17.0) in points(p2)
    # engagement rings: radius + 1" around each round charging model, an offset outline
    # around the oval
    rings = with_class(root, "engagement-ring")
    assert len(rings) == 3
    ring_a1 = by_data_id(root, "engagement-ring", "A1")
    assert float(ring_a1.get("r", "0")) == pytest.approx(16 / INCH + 1.0, abs=1e-4)
    ring_a3 = by_data_id(root, "engagement-ring", "A3")
    pts = points(ring_a3)
    cx, cy = 26.8, 44 - 17.5
    far = max(math.dist(p, (cx, cy)) for p in pts)
    near = min(math.dist(p, (cx, cy)) for p in pts)
    assert far == pytest.approx(30 / INCH + 1.0, abs=2e-3)
    assert near == pytest.approx(17.75 / INCH + 1.0, abs=2e-3)
    # coherency links between charging models whose bases are within 2"
    links = {el.get("data-ids") for el in with_class(root, "coherency")}
    assert "A1 A2" in links
    # base contact A2 - B2: a marker on the line between the centres, where they touch
    contact = with_class(root, "contact")
    assert len(contact) == 1
    cx, cy = float(contact[0].get("cx", "0")), float(contact[0].get("cy", "0"))
    assert (cx, 44 - cy) == pytest.approx((24.5, 22.5 - 20 / INCH), abs=0.02)
    # the WTC token and its 2" link across the ruin wall to B1
    assert [el.get("data-id") for el in with_class(root, "token")] == ["A1"]
    assert [el.get("data-ids") for el in with_class(root, "token-link")] == ["A1 B1"]
    # reasons under the board, the header with the verdict
    assert "wall_token" in texts(root, "reasons")
    assert len(with_class(root, "reason-mark")) == 1
    header = texts(root, "header-block")
    assert "A charges B" in header and "roll 3 + 4 = 7" in header and "needs 7" in header
    assert "CHARGE SUCCEEDS" in header and "wtc_walls" in header
    assert with_class(root, "success")


def test_zoom_and_whole_board() -> None:
    s, r = scen40k(), ruling40k()
    x, y, w, h = viewbox(parse(render_svg(s, r)))
    assert w < 40  # zoomed on the charge
    x, y, w, h = viewbox(parse(render_svg(s, r, whole_board=True)))
    assert w >= 60 and x <= 0
    # what is outside the zoomed view is neither drawn in the legend nor labelled
    root = parse(render_svg(s, r))
    legend = texts(root, "legend")
    assert "hill" not in legend and "ruin wall" in legend


def test_ruling_after_and_ghosts_off() -> None:
    s = scen40k()
    after = s.model_dump(mode="json", exclude_none=True)
    after["units"][0]["models"][0]["at"] = [21.0, 18.0]
    r = ruling40k(moves=[{"id": "A1", "from": [22, 13], "to": [21, 18], "distance": 5.1}], after=after)
    root = parse(render_svg(s, r, show_before=False))
    assert with_class(root, "ghost") == []
    a1 = by_data_id(root, "model", "A1")
    assert (float(a1.get("cx", "0")), float(a1.get("cy", "0"))) == (21.0, 44 - 18.0)
    # a ruling given as JSON data works the same
    assert render_svg(s, r.to_json_data(), show_before=False) == render_svg(s, r, show_before=False)


def test_failed_charge_header_and_reasons() -> None:
    r = ruling40k(success=False, procedure="failed", moves=[], engaged=[], roll={"dice": [1, 1], "total": 2},
                  reasons=[{"code": "roll_too_low", "message": "2 is less than 7", "models": []}])
    root = parse(render_svg(scen40k(), r))
    assert "CHARGE FAILS" in texts(root, "header-block")
    assert with_class(root, "failure")
    assert "roll_too_low" in texts(root, "reasons")
    assert with_class(root, "path") == [] and with_class(root, "ghost") == []


def test_terrain_drawn_to_scale() -> None:
    root = parse(render_svg(scen40k()))
    kinds = {el.get("data-id"): classes(el) for el in with_class(root, "terrain")}
    assert set(kinds) == {"R1", "W1", "B1", "O1", "X1", "H1"}
    wall = with_class(root, "wall", tag="polyline")[0]
    assert float(wall.get("stroke-width", "0")) == 0.5
    ruin_wall = with_class(root, "ruin-wall", tag="polyline")[0]
    assert float(ruin_wall.get("stroke-width", "0")) == 0.25
    assert len(with_class(root, "floor")) == 1
    assert len(with_class(root, "hatch")) >= 1  # impassable ground is hatched
    assert with_class(root, "hill", tag="polygon")


def test_mismatched_ruling_refused() -> None:
    r = ruling40k(system="t9a")
    with pytest.raises(ValueError):
        render_svg(scen40k(), r)


# ----------------------------------------------------------------------------- T9A


def scen_t9a() -> Any:
    return scenario_from_data({
        "format": "chargeref/1", "system": "t9a", "board": {"width": 48, "depth": 48},
        "units": [
            {"id": "K", "player": 1, "formation": {"front": [20, 10], "facing": 90, "files": 5, "models": 10,
                                                    "base": {"rect": [25, 50]}}},
            {"id": "S", "player": 2, "formation": {"front": [20, 24], "facing": 270, "files": 5, "models": 13,
                                                    "base": {"rect": [20, 20]}}},
            {"id": "G", "player": 2, "formation": {"front": [40, 40], "facing": 180, "files": 1, "models": 1,
                                                    "base": {"round": 50}}},
        ],
    })


def test_t9a_blocks() -> None:
    root = parse(render_svg(scen_t9a()))
    assert len(with_class(root, "model", "p1")) == 10
    assert len(with_class(root, "model", "p2")) == 14
    # a 20 x 20 mm model is a polygon 20 mm on a side
    s1 = [el for el in with_class(root, "model", "p2") if el.get("data-id") == "S.1"][0]
    xs = [p[0] for p in points(s1)]
    assert max(xs) - min(xs) == pytest.approx(20 / INCH, abs=1e-4)
    # the single round model is a circle
    g1 = [el for el in with_class(root, "model") if el.get("data-unit") == "G"][0]
    assert g1.tag == NS + "circle" and float(g1.get("r", "0")) == pytest.approx(25 / INCH, abs=1e-4)
    # boundaries and fronts of the two blocks (the round model has no block)
    assert len(with_class(root, "unit-block")) == 2
    assert len(with_class(root, "front")) == 2
    assert len(with_class(root, "facing")) == 2
    k_front = [el for el in with_class(root, "front", tag="line")][0]
    # K's front edge is 5 x 25 mm wide, at y = 10
    assert abs(float(k_front.get("x2", "0")) - float(k_front.get("x1", "0"))) == pytest.approx(125 / INCH, abs=1e-4)
    assert float(k_front.get("y1", "0")) == pytest.approx(48 - 10)


def test_t9a_ruling_arcs_and_charged_facing() -> None:
    scen = scen_t9a()
    after = scen.model_dump(mode="json", exclude_none=True)
    after["units"][0]["formation"]["front"] = [20, 24]
    moves = [{"id": f"K.{i}", "from": [0, 0], "to": [0, 14], "distance": 14.0} for i in range(1, 11)]
    r = Ruling.model_validate({
        "system": "t9a", "charger": "K", "targets": ["S"], "eligible": True, "success": True,
        "procedure": "normal", "moves": [{**m, "from": [20, 9], "to": [20, 23]} for m in moves],
        "engaged": ["S"], "details": {"charged_facing": "front"}, "after": after})
    root = parse(render_svg(scen, r))
    arcs = with_class(root, "arc")
    assert len(arcs) == 4
    # each arc line leaves a corner of S at 45° to its edges (135° to the facings)
    for el in arcs:
        dx = float(el.get("x2", "0")) - float(el.get("x1", "0"))
        dy = float(el.get("y2", "0")) - float(el.get("y1", "0"))
        assert abs(dx) == pytest.approx(abs(dy), rel=1e-3)
    cf = with_class(root, "charged-facing")
    assert len(cf) == 1
    assert float(cf[0].get("y1", "0")) == pytest.approx(48 - 24) == float(cf[0].get("y2", "0"))
    assert len(with_class(root, "path")) == 10
    assert len(with_class(root, "ghost", "unit-block")) == 1
    assert with_class(root, "unit-block", "charger") and with_class(root, "unit-block", "target")
    assert "charged facing: front" in texts(root, "details")


# ----------------------------------------------------------------------------- Warmaster


def scen_wm() -> Any:
    return scenario_from_data({
        "format": "chargeref/1", "system": "warmaster", "board": {"width": 180, "depth": 120},
        "units": [
            {"id": "Cav", "player": 1, "type": "cavalry",
             "stands": [{"at": [80, 42]}, {"at": [82, 42]}, {"at": [84, 42]}]},
            {"id": "Orcs", "player": 2, "type": "infantry",
             "stands": [{"at": [84, 60], "facing": 270}, {"at": [88, 60], "facing": 270}, {"id": "O3", "at": [92, 60], "facing": 270}]},
        ],
    })


def test_warmaster_stands() -> None:
    root = parse(render_svg(scen_wm()))
    stands = with_class(root, "model")
    assert len(stands) == 6
    # default bases: infantry 40 wide x 20 deep mm, cavalry 20 wide x 40 deep (cm unit)
    orc = [el for el in stands if el.get("data-id") == "Orcs.1"][0]
    xs, ys = [p[0] for p in points(orc)], [p[1] for p in points(orc)]
    assert (max(xs) - min(xs), max(ys) - min(ys)) == pytest.approx((4.0, 2.0))
    cav = [el for el in stands if el.get("data-id") == "Cav.1"][0]
    xs, ys = [p[0] for p in points(cav)], [p[1] for p in points(cav)]
    assert (max(xs) - min(xs), max(ys) - min(ys)) == pytest.approx((2.0, 4.0))
    # a front edge per stand, on the side each stand faces
    fronts = with_class(root, "front", tag="line")
    assert len(fronts) == 6
    # the scale bar speaks centimetres
    assert "cm" in texts(root, "scale-bar")
    assert [el.get("data-id") for el in stands].count("O3") == 1


def test_warmaster_first_stand() -> None:
    # stands are counted from 0, as the Warmaster solver names them
    moves = [{"id": "Cav.0", "from": [80, 42], "to": [88, 57], "distance": 17.0, "contacts": ["Orcs.1"]},
             {"id": "Cav#1", "from": [82, 42], "to": [86, 57], "distance": 15.5}]
    r = Ruling.model_validate({
        "system": "warmaster", "charger": "Cav", "targets": ["Orcs"], "eligible": True, "success": True,
        "procedure": "normal", "moves": moves, "engaged": ["Orcs"], "details": {"first_stand": "Cav.0"}})
    root = parse(render_svg(scen_wm(), r))
    fs = with_class(root, "first-stand")
    assert [el.get("data-id") for el in fs] == ["Cav.0"]
    # moves found the stands under either spelling, and the contact sits on the shared edge
    assert sorted(el.get("data-id", "") for el in with_class(root, "ghost")) == ["Cav.0", "Cav.1"]
    c = with_class(root, "contact")[0]
    assert (float(c.get("cx", "0")), 120 - float(c.get("cy", "0"))) == pytest.approx((88, 59), abs=0.05)


# ----------------------------------------------------------------------------- PNG


def test_png_output(tmp_path: Any) -> None:
    # the [png] extra is part of the dev install: without cairosvg this fails, never skips
    out = tmp_path / "x.png"
    data = render_png(render_svg(scen40k(), ruling40k()), out)
    assert out.read_bytes() == data
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_png_without_cairosvg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # makes `import cairosvg` fail
    with pytest.raises(RuntimeError, match=re.escape(PNG_EXTRA_MESSAGE)):
        render_png("<svg xmlns='http://www.w3.org/2000/svg'/>")


# ----------------------------------------------------------------------------- arcs


def arc_scen() -> Any:
    return scenario_from_data({
        "format": "chargeref/1", "system": "40k", "board": {"width": 30, "depth": 30},
        "units": [
            {"id": "A", "player": 1, "models": [{"id": "A1", "at": [10, 10], "base": "32mm"},
                                                 {"id": "A2", "at": [20, 10], "base": "32mm"}]},
            {"id": "B", "player": 2, "models": [{"id": "B1", "at": [16, 25], "base": "32mm"}]},
        ],
    })


def arc_ruling(segments_a1: list[Any], segments_a2: list[Any]) -> dict[str, Any]:
    return {
        "system": "40k", "charger": "A", "targets": ["B"], "eligible": True, "success": True,
        "procedure": "normal", "engaged": ["B"],
        "moves": [
            {"id": "A1", "from": [10, 10], "to": [16, 16], "distance": 7.14, "segments": segments_a1},
            {"id": "A2", "from": [20, 10], "to": [12, 12], "distance": 8.71, "segments": segments_a2},
        ],
    }


# A1: up 4", then a quarter turn clockwise round (12, 14) of radius 2 to (12, 16), then
# 4" to the right. A2: left to (14, 14), then three quarters of a turn counter-clockwise
# round (12, 14) to (12, 12): a large arc.
A1_SEGMENTS = [
    {"kind": "line", "from": [10, 10], "to": [10, 14]},
    {"kind": "arc", "center": [12, 14], "radius": 2, "from": [10, 14], "to": [12, 16], "ccw": False},
    {"kind": "line", "from": [12, 16], "to": [16, 16]},
]
A2_SEGMENTS = [
    {"kind": "line", "from": [20, 10], "to": [14, 14]},
    {"kind": "arc", "center": [12, 14], "radius": 2, "from": [14, 14], "to": [12, 12], "ccw": True},
]


def test_arc_segments_are_drawn_as_svg_arcs() -> None:
    root = parse(render_svg(arc_scen(), arc_ruling(A1_SEGMENTS, A2_SEGMENTS), whole_board=True))
    a1 = by_data_id(root, "path", "A1")
    a2 = by_data_id(root, "path", "A2")
    assert a1.tag == NS + "path" and a2.tag == NS + "path"
    # y is flipped (depth 30): contract (12, 16) is SVG (12, 14). Clockwise in the
    # contract is SVG's positive sweep (flag 1); a quarter turn is a small arc (flag 0).
    d1 = a1.get("d", "")
    assert d1.startswith("M10 20L10 16A2 2 0 0 1 12 14L")
    # the last straight leg stops at the moved base's edge (16 mm = 0.63" short of 16, 14)
    end_x = float(d1.rsplit("L", 1)[1].split()[0])
    assert end_x == pytest.approx(16 - 16 / INCH, abs=1e-3)
    # three quarters counter-clockwise: large-arc flag 1, SVG sweep flag 0
    assert a2.get("d", "") == "M20 20L14 16A2 2 0 1 0 12 18"
    # the arrowhead of A2 points along the arc's tangent at its end: +x at (12, 12)
    heads = [el for el in with_class(root, "arrowhead")]
    tip, *rest = points(heads[1])
    assert tip == pytest.approx((12, 18))
    assert all(x < 12 and abs(y - 18) < 0.2 for x, y in rest)


def test_arc_segments_from_a_ruling_object_and_bad_segments() -> None:
    from chargeref.render.primitives import split_segments

    data = arc_ruling(A1_SEGMENTS, A2_SEGMENTS)
    plain, segs = split_segments(data)
    assert set(segs) == {0, 1} and all("segments" not in m for m in plain["moves"])
    by_dict = render_svg(arc_scen(), data)
    by_object = render_svg(arc_scen(), Ruling.model_validate(plain), segments=segs)
    assert by_dict == by_object
    # unreadable segments fall back to the move's points: a straight polyline
    broken = arc_ruling([{"kind": "spiral", "from": [10, 10], "to": [16, 16]}],
                        [{"kind": "arc", "center": [12, 14], "radius": -1, "from": [20, 10], "to": [12, 12]}])
    root = parse(render_svg(arc_scen(), broken))
    assert [el.tag for el in with_class(root, "path")] == [NS + "polyline", NS + "polyline"]


def test_leg_sweep_and_direction_at_the_edges() -> None:
    from chargeref.render.primitives import Leg

    half = Leg("arc", (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), 1.0, True)
    assert half.sweep() == pytest.approx(math.pi)
    assert Leg("arc", (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), 1.0, False).sweep() == pytest.approx(math.pi)
    just_over = Leg("arc", (1.0, 0.0), (math.cos(math.pi + 1e-3), math.sin(math.pi + 1e-3)), (0.0, 0.0), 1.0, True)
    assert just_over.sweep() > math.pi
    assert tuple(half.end_direction()) == pytest.approx((0.0, -1.0))
    assert tuple(Leg("line", (0.0, 0.0), (0.0, 3.0)).end_direction()) == pytest.approx((0.0, 1.0))


# ----------------------------------------------------------------------------- the split


def test_one_renderer_per_system_and_the_t9a_name() -> None:
    from chargeref.render import RENDERERS
    from chargeref.scenario import SYSTEMS

    assert set(RENDERERS) == set(SYSTEMS)
    assert len(set(RENDERERS.values())) == 3
    t9a = scenario_from_data({
        "format": "chargeref/1", "system": "t9a", "board": {"width": 48, "depth": 48},
        "units": [{"id": "K", "player": 1, "formation": {"front": [24, 20], "facing": 90, "files": 5, "models": 10,
                                                          "base": {"rect": [20, 20]}}}]})
    root = parse(render_svg(t9a))
    assert texts(root, "title").startswith("T9A 2.x:")


def test_style_json_is_the_one_source_of_the_look() -> None:
    from chargeref.render.style import style_data

    svg = render_svg(scen40k(), ruling40k())
    sheet = parse(svg).find(NS + "style")
    assert sheet is not None and sheet.text
    rules = style_data()["rules"]
    lines = [ln for ln in sheet.text.strip().splitlines()]
    assert [ln.split(" {")[0] for ln in lines] == [sel for sel, _ in rules]
    for (sel, body), line in zip(rules, lines, strict=True):
        # the same declarations, with every {N} turned into a length
        pattern = re.escape(body).replace(r"\{", "{").replace(r"\}", "}")
        pattern = re.sub(r"\{-?\d+(?:\\\.\d+)?\}", r"-?[0-9.]+px", pattern)
        assert re.fullmatch(re.escape(sel) + r" \{" + pattern + r"\}", line), line
    players = style_data()["players"]
    assert players["1"]["fill"] in sheet.text and players["2"]["fill"] in sheet.text


def test_bare_picture_is_the_board_in_board_coordinates() -> None:
    full = parse(render_svg(scen40k(), ruling40k()))
    bare = parse(render_svg(scen40k(), ruling40k(), bare=True))
    assert viewbox(bare) == (0, 0, 60, 44)
    # the legend rides along in <defs> (drawn by no one: the board shows it beside the
    # map); the map itself has no legend and no header
    defs = bare.findall(NS + "defs")
    drawn = ET.Element("g")
    drawn.extend([el for el in bare if el.tag != NS + "defs"])
    assert not with_class(drawn, "legend") and not with_class(drawn, "header-block")
    assert len(defs) == 1 and with_class(defs[0], "legend-key", tag="svg")
    assert sorted(el.get("data-id", "") for el in with_class(bare, "model")) == \
        sorted(el.get("data-id", "") for el in with_class(full, "model"))
    assert len(with_class(bare, "path")) == 3 and len(with_class(bare, "engagement-ring")) == 3


@pytest.mark.parametrize(("edition", "er"), [(9, 1.0), (10, 1.0), (11, 2.0)])
def test_engagement_rings_use_the_editions_range(edition: int, er: float) -> None:
    """The rings and the legend follow the edition's engagement range (11th: 2"; the
    rings were drawn at 1" for every edition before round 8)."""
    from chargeref import service

    doc = {"format": "chargeref/1", "system": "40k", "rules": {"edition": edition}, "board": {"width": 40, "depth": 30},
           "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": [{"id": "A1", "at": [10, 10], "base": "32mm"}]},
                     {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": [{"id": "B1", "at": [10, 16], "base": "32mm"}]}]}
    scen = scenario_from_data(doc)
    ruling = service.charge_ruling(scen, "A", ["B"], dice=[6, 6])
    root = parse(render_svg(scen, ruling))
    rings = with_class(root, "engagement-ring", tag="circle")
    assert rings and all(float(c.get("r", "0")) == pytest.approx(16 / 25.4 + er, abs=1e-4) for c in rings)
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    assert f'engagement range {er:g}"' in texts
