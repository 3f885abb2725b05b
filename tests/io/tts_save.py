"""Build Tabletop Simulator saves in the structure the game writes (for the importer tests).

The layout follows real TTS saves: the save header (SaveName, EpochTime, Date,
VersionNumber, GameMode, Table, Sky, Note, TabStates, LuaScript, XmlUI, ObjectStates)
and, per object, GUID, Name, Transform (pos/rot/scale), Nickname, Description, GMNotes,
ColorDiffuse, Tags, the behaviour flags, CustomMesh for models and ContainedObjects for
bags. Models made the way Yellowscribe makes them carry a wound counter in the Nickname,
a ``uuid:`` tag per unit, and on the unit's first model a script with
``unitName = "..."`` and ``keywords = "..."``.
"""

from __future__ import annotations

import itertools
from typing import Any

_guids = itertools.count(0xA00000)


def guid() -> str:
    return f"{next(_guids):06x}"


def tts_object(
    nickname: str,
    x: float,
    z: float,
    rot_y: float = 180.0,
    *,
    kind: str = "Custom_Model",
    description: str = "",
    tags: list[str] | None = None,
    lua: str = "",
    locked: bool = False,
    y: float = 1.06,
    contained: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "GUID": guid(),
        "Name": kind,
        "Transform": {
            "posX": x, "posY": y, "posZ": z,
            "rotX": 0.0, "rotY": rot_y, "rotZ": 0.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0,
        },
        "Nickname": nickname,
        "Description": description,
        "GMNotes": "",
        "AltLookAngle": {"x": 0.0, "y": 0.0, "z": 0.0},
        "ColorDiffuse": {"r": 1.0, "g": 1.0, "b": 1.0},
        "LayoutGroupSortIndex": 0,
        "Value": 0,
        "Locked": locked,
        "Grid": True,
        "Snap": True,
        "IgnoreFoW": False,
        "MeasureMovement": False,
        "DragSelectable": True,
        "Autoraise": True,
        "Sticky": True,
        "Tooltip": True,
        "GridProjection": False,
        "HideWhenFaceDown": False,
        "Hands": False,
        "LuaScript": lua,
        "LuaScriptState": "",
        "XmlUI": "",
    }
    if tags is not None:
        obj["Tags"] = tags
    if kind == "Custom_Model":
        obj["CustomMesh"] = {
            "MeshURL": "http://cloud-3.steamusercontent.com/ugc/1/MESH/",
            "DiffuseURL": "http://cloud-3.steamusercontent.com/ugc/1/DIFFUSE/",
            "NormalURL": "",
            "ColliderURL": "",
            "Convex": True,
            "MaterialIndex": 1,
            "TypeIndex": 1,
            "CastShadows": True,
        }
    if contained is not None:
        obj["ContainedObjects"] = contained
    return obj


def yellowscribe_unit(
    unit_name: str,
    model_name: str,
    wounds: int,
    positions: list[tuple[float, float]],
    rot_y: float = 180.0,
    keywords: str = "Infantry, Imperium",
    description: str = "",
) -> list[dict[str, Any]]:
    """The models of one unit as Yellowscribe labels them."""
    uuid = f"{guid()}-{guid()}"
    lua = (
        "--[[ UNIT-SPECIFIC DATA ]]--\nlocal unitData = {\n"
        f'    edition = "10e",\n    unitName = "{unit_name}",\n    unitDecorativeName = "{unit_name}",\n'
        f'    factionKeywords = "Imperium",\n    keywords = "{keywords}",\n'
        "    abilities = {},\n    models = {},\n    weapons = {},\n"
        f'    uuid = "{uuid}",\n    uiHeight = 800,\n    uiWidth = 1200\n}}'
    )
    out = []
    for i, (x, z) in enumerate(positions):
        tags = [f"uuid:{uuid}"] + (["leaderModel"] if i == 0 else [])
        out.append(
            tts_object(
                f"[00ff16]{wounds}/{wounds}[-] {model_name}",
                x, z, rot_y,
                description=description or "[56f442]M   T  SV  W   LD  OC[-]\n6\"   4   3+   2   6+   2[-][-]",
                tags=tags,
                lua=lua if i == 0 else "",
            )
        )
    return out


def tts_save(objects: list[dict[str, Any]], name: str = "chargeref test") -> dict[str, Any]:
    return {
        "SaveName": name,
        "EpochTime": 1764000000,
        "Date": "11/24/2026 8:00:00 PM",
        "VersionNumber": "v13.2.2",
        "GameMode": "Warhammer 40,000",
        "GameType": "",
        "GameComplexity": "",
        "Tags": [],
        "Gravity": 0.5,
        "PlayArea": 0.5,
        "Table": "Table_None",
        "Sky": "Sky_Museum",
        "Note": "",
        "TabStates": {},
        "LuaScript": "",
        "LuaScriptState": "",
        "XmlUI": "",
        "ObjectStates": objects,
    }


def row(x0: float, z: float, n: int, gap: float) -> list[tuple[float, float]]:
    return [(x0 + i * gap, z) for i in range(n)]
