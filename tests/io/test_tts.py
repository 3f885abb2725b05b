"""Tabletop Simulator import: saves built in the game's structure (tts_save.py)."""

from __future__ import annotations

import math

import pytest
from tts_save import row, tts_object, tts_save, yellowscribe_unit

from chargeref.errors import ChargerefError, ScenarioError
from chargeref.geometry.bases import base_footprint
from chargeref.io.tts import base_in_text, clean_text, facing_from_rot_y, import_save
from chargeref.scenario import scenario_from_data
from chargeref.systems import ChargeRequest, find_system
from chargeref.testing import assert_legal_charge

MM = 25.4


def two_armies(**kw):
    """Five Intercessors (south, looking north) and five Terminators (north)."""
    a = yellowscribe_unit("Intercessor Squad", "Intercessor", 2, row(-4, -3, 5, 2), rot_y=0.0)
    b = yellowscribe_unit("Terminator Squad", "Terminator", 3, row(-4, 5, 5, 2), rot_y=180.0,
                          keywords="Infantry, Imperium, Terminator")
    return tts_save(a + b)


def by_name(res):
    return {u["name"]: u for u in res.scenario["units"]}


def test_two_yellowscribe_armies_import_check_and_charge():
    res = import_save(two_armies())
    units = by_name(res)
    assert set(units) == {"Intercessor Squad", "Terminator Squad"}
    a, b = units["Intercessor Squad"], units["Terminator Squad"]
    assert (a["player"], b["player"]) == (1, 2)
    assert a["keywords"] == ["INFANTRY"]
    assert [m["base"] for m in a["models"]] == [{"round": 32.0, "catalogue": "Intercessor"}] * 5
    assert [m["base"]["round"] for m in b["models"]] == [40.0] * 5
    assert [m["at"] for m in a["models"]] == [[26.0 + 2 * i, 19.0] for i in range(5)]
    assert all(m["facing"] == 90.0 for m in a["models"])
    assert all(m["facing"] == 270.0 for m in b["models"])
    assert res.skipped == []
    scen = scenario_from_data(res.scenario)
    system = find_system("40k")
    assert system.problems(scen) == []
    ruling = system.charge(scen, ChargeRequest(charger=a["id"], targets=(b["id"],), dice=(4, 4)))
    assert ruling.success is True
    assert_legal_charge(scen, ruling)
    # the gap is 8" between centres less the two radii; edition 10 ends within 1"
    gap = 8 - (32 / 2 + 40 / 2) / MM
    assert ruling.needed.distance == pytest.approx(gap - 1, abs=1e-6)


@pytest.mark.parametrize(
    ("rot_y", "facing"),
    [(0, 90), (90, 0), (180, 270), (270, 180), (-90, 180), (45, 45), (360, 90), (450, 0), (135, 315)],
)
def test_rot_y_is_clockwise_from_plus_z(rot_y, facing):
    assert facing_from_rot_y(rot_y) == pytest.approx(facing, abs=1e-9)


def test_oval_turned_a_quarter_clockwise_lies_along_x():
    """An Outrider at rotY 90 (turned clockwise from looking up the table) looks along
    +x: its 90 mm long axis spans x, its 52 mm short axis spans y."""
    save = tts_save([tts_object("Outrider", 0.0, -1.0, 90.0), tts_object("Outrider", 0.0, -10.0, 0.0)])
    res = import_save(save)
    (u,) = res.scenario["units"]
    turned, straight = u["models"]
    assert turned["facing"] == 0.0 and straight["facing"] == 90.0
    fp = base_footprint("oval", turned["base"]["oval"], turned["at"], turned["facing"], MM)
    import numpy as np

    h = fp.parts[0].h(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert h[0] - 30.0 == pytest.approx(45 / MM, abs=1e-9)
    assert h[1] - 21.0 == pytest.approx(26 / MM, abs=1e-9)


def test_table_centre_is_board_centre_and_one_unit_is_one_inch():
    save = tts_save([tts_object("Intercessor", 0.0, 0.0, 0.0), tts_object("Intercessor", -29.0, 10.25, 0.0)])
    res = import_save(save, board=(60, 44))
    units = res.scenario["units"]
    ats = sorted(m["at"] for u in units for m in u["models"])
    assert ats == [[1.0, 32.25], [30.0, 22.0]]


def test_board_size_moves_the_origin():
    save = tts_save([tts_object("Intercessor", 1.5, -2.5, 0.0)])
    res = import_save(save, board=(44, 30))
    (u,) = res.scenario["units"]
    assert u["models"][0]["at"] == [23.5, 12.5]


def test_base_order_mapping_then_label_then_catalogue():
    objs = [
        tts_object("Intercessor", -6, -5, 0.0),                                 # catalogue: 32
        tts_object("Lieutenant", -3, -5, 0.0, description="Base: 50mm"),       # label beats catalogue 40
        tts_object("Hellblaster 28.5mm", 0, -5, 0.0),                           # in the name
        tts_object("Captain", 3, -5, 0.0, description="60x35.5mm oval"),        # oval in the description
        tts_object("Aggressor", 6, -5, 0.0, description="40mm"),                # mapping beats label
    ]
    res = import_save(tts_save(objs), base_map={"aggressors": "50mm"})
    bases = {u["name"]: u["models"][0]["base"] for u in res.scenario["units"]}
    assert bases["Intercessor"] == {"round": 32.0, "catalogue": "Intercessor"}
    assert bases["Lieutenant"] == {"round": 50.0}
    assert bases["Hellblaster 28.5mm"] == {"round": 28.5}
    assert bases["Captain"] == {"oval": [60.0, 35.5]}
    assert bases["Aggressor"] == {"round": 50.0}


def test_mapping_by_unit_name_reaches_every_model():
    objs = yellowscribe_unit("Kill Team Cassius", "Veteran", 2, row(-2, -5, 3, 2))
    res = import_save(tts_save(objs), base_map={"Kill Team Cassius": "32mm"})
    (u,) = res.scenario["units"]
    assert [m["base"] for m in u["models"]] == [{"round": 32.0}] * 3
    res = import_save(tts_save(objs))
    assert res.scenario["units"] == []
    assert [s.name for s in res.skipped] == ["Veteran"] * 3
    assert all("unknown base" in s.reason and "--base" in s.reason for s in res.skipped)


def test_what_cannot_be_placed_is_listed_by_name():
    objs = [
        tts_object("Intercessor", 0, -5, 0.0),
        tts_object("Grot Tank", 0, 8, 0.0),                                # unknown
        tts_object("Rhino", 5, -8, 0.0),                                   # hull
        tts_object("Dreadnought", 8, -8, 0.0, description="25mm or 32mm"),  # two bases
        tts_object("Intercessor", 40, -5, 0.0),                            # off the table
        tts_object("Intercessor", 0.5, -5, 0.0),                           # overlaps the first
        tts_object("Ruined wall", 0, 0, 0.0, locked=True) | {"ChildObjects": [tts_object("Intercessor", 0, 0, 0.0)]},
        tts_object("", 3, 3, 0.0),
        tts_object("Objective", 0, 0, 0.0, kind="Custom_Tile"),
        tts_object("Die", 0, 0, 0.0, kind="Die_6"),
        tts_object("Army bag", 20, 20, 0.0, kind="Bag",
                   contained=[tts_object("Intercessor", 0, 0, 0.0), tts_object("Intercessor", 0, 0, 0.0)]),
    ]
    res = import_save(tts_save(objs))
    reasons = {s.name: s.reason for s in res.skipped}
    assert "unknown base" in reasons["Grot Tank"]
    assert "hull" in reasons["Rhino"]
    assert "several bases" in reasons["Dreadnought"]
    assert "locked" in reasons["Ruined wall"]
    assert "no name" in reasons["unnamed Custom_Model"]
    assert reasons["1 x Custom_Tile"] == "not a miniature"
    assert reasons["1 x Die_6"] == "not a miniature"
    assert reasons["1 x Bag"] == "not a miniature"
    assert reasons["2 object(s) inside bags or decks"] == "not on the table"
    assert "detach" in reasons["1 object(s) attached to others (ChildObjects)"]
    off = [s for s in res.skipped if "off the board" in s.reason]
    over = [s for s in res.skipped if "overlaps" in s.reason]
    assert len(off) == 1 and len(over) == 1
    placed = [m for u in res.scenario["units"] for m in u["models"]]
    assert len(placed) == 1  # one Intercessor of the three stays
    assert find_system("40k").problems(scenario_from_data(res.scenario)) == []


def test_base_just_inside_and_just_past_the_board_edge():
    r = 16 / MM  # a 32 mm base
    inside = tts_save([tts_object("Intercessor", -30 + r, -5, 0.0)])
    past = tts_save([tts_object("Intercessor", -30 + r - 0.001, -5, 0.0)])
    assert len(import_save(inside).scenario["units"]) == 1
    res = import_save(past)
    assert res.scenario["units"] == [] and "off the board" in res.skipped[0].reason


def test_untagged_models_group_by_name_and_split_by_half():
    objs = [tts_object("Boyz", x, -6, 0.0) for x in (-2, 0, 2)] + [tts_object("Boyz", x, 6, 180.0) for x in (-2, 0)]
    res = import_save(tts_save(objs))
    units = sorted(res.scenario["units"], key=lambda u: u["player"])
    assert [(u["player"], len(u["models"])) for u in units] == [(1, 3), (2, 2)]
    assert units[0]["id"] != units[1]["id"]
    assert units[0]["models"][0]["base"]["catalogue"] == "Boy"


def test_player_split_x_and_the_centre_line():
    objs = [tts_object("Intercessor", -10, 0, 0.0), tts_object("Terminator", 10, 0, 0.0)]
    res = import_save(tts_save(objs), player_split="x")
    players = {u["name"]: u["player"] for u in res.scenario["units"]}
    assert players == {"Intercessor": 1, "Terminator": 2}
    # split by y: both stand exactly on the centre line y = 22
    res = import_save(tts_save(objs), player_split="y")
    assert res.scenario["units"] == []
    assert all("centre line" in s.reason for s in res.skipped)
    # a hair off the line decides
    res = import_save(tts_save([tts_object("Intercessor", -10, 1e-6, 0.0)]))
    assert res.scenario["units"][0]["player"] == 2


def test_yellowscribe_labels_are_cleaned():
    assert clean_text("[00ff16]2/2[-] Intercessor") == "Intercessor"
    assert clean_text("[b]Captain[/b] 5/5") == "Captain"
    assert clean_text("Heavy Intercessor 10/10 [-]") == "Heavy Intercessor"


def test_base_in_text():
    assert base_in_text("Base: 32mm") == ({"round": 32.0}, None)
    assert base_in_text("75x42mm oval") == ({"oval": [75.0, 42.0]}, None)
    assert base_in_text("25x50mm") == ({"rect": [25.0, 50.0]}, None)
    assert base_in_text("32mm, really 32 mm") == ({"round": 32.0}, None)
    assert base_in_text("no base here, 6\" move") == (None, None)
    base, why = base_in_text("32mm or 40mm")
    assert base is None and "several bases" in why


@pytest.mark.parametrize(
    ("save", "field"),
    [
        ([], "save"),
        ({"SaveName": "x"}, "save"),
        ({"ObjectStates": {}}, "save"),
        ({"ObjectStates": [7]}, "ObjectStates[0]"),
        ({"ObjectStates": [{"Name": "Custom_Model"}]}, "ObjectStates[0].Transform"),
        ({"ObjectStates": [{"Name": "Custom_Model", "Transform": {"posX": "1", "posZ": 0, "rotY": 0}}]},
         "ObjectStates[0].Transform.posX"),
        ({"ObjectStates": [{"Name": "Custom_Model", "Transform": {"posX": 1, "posZ": float("nan"), "rotY": 0}}]},
         "ObjectStates[0].Transform.posZ"),
        ({"ObjectStates": [{"Transform": {"posX": 1, "posZ": 0, "rotY": 0}}]}, "ObjectStates[0].Name"),
    ],
)
def test_malformed_saves_are_refused_naming_the_field(save, field):
    with pytest.raises(ScenarioError) as err:
        import_save(save)
    assert err.value.problems[0].field == field


def test_bad_options_are_refused():
    save = two_armies()
    with pytest.raises(ChargerefError) as err:
        import_save(save, base_map={"Intercessor": "big"})
    assert err.value.problems[0].field == "--base"
    with pytest.raises(ChargerefError) as err:
        import_save(save, player_split="z")
    assert err.value.problems[0].field == "--player-split"
    with pytest.raises(ChargerefError) as err:
        import_save(save, board=(0, 44))
    assert err.value.problems[0].field == "--board"


def test_catalogue_name_as_mapping_size():
    save = tts_save([tts_object("Proxy dude", 0, -5, 0.0)])
    res = import_save(save, base_map={"Proxy dude": "Outrider"})
    assert res.scenario["units"][0]["models"][0]["base"] == {"oval": [90.0, 52.0], "catalogue": "Outrider"}
    assert math.isfinite(res.scenario["units"][0]["models"][0]["facing"])


def test_players_told_by_unit_name_win_over_the_halves():
    objs = [tts_object("Intercessor", -10, 0, 0.0), tts_object("Terminator", 10, -5, 0.0),
            tts_object("Terminator", 12, 5, 0.0)]
    res = import_save(tts_save(objs), players={"Intercessors": 2, "terminator squad": 1})
    players = sorted((u["name"], u["player"], len(u["models"])) for u in res.scenario["units"])
    # told: the Intercessor on the centre line is placed, both Terminators form one unit
    assert players == [("Intercessor", 2, 1), ("Terminator", 1, 2)]
    with pytest.raises(ChargerefError) as err:
        import_save(tts_save(objs), players={"Intercessor": 3})
    assert err.value.problems[0].field == "--player"
