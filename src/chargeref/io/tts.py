"""Tabletop Simulator saves -> a 40k scenario (pure: a parsed save in, plain data out).

What a TTS save looks like (the JSON the game writes for a save or a saved object):
``{"SaveName": ..., "ObjectStates": [object, ...]}``; each object has a ``Name`` (its
type: ``Custom_Model``, ``Custom_Assetbundle``, ``Figurine_Custom``, ``Die_6``,
``Bag``...), a ``GUID``, a ``Transform`` (``posX posY posZ rotX rotY rotZ scaleX
scaleY scaleZ``), and optionally ``Nickname``, ``Description``, ``GMNotes``, ``Tags``,
``Locked``, ``LuaScript`` and ``ContainedObjects`` (what a bag or deck holds).

How we read it (scenario-format.md, "Tabletop Simulator import"):

* One TTS unit is one inch. ``posX`` and ``posZ`` span the table, ``posY`` is height
  (ignored: models stand on the ground). The table centre is the board centre, so a
  model's board position is ``(posX + W/2, posZ + D/2)``.
* TTS turns objects about the vertical by ``rotY`` degrees, clockwise seen from above,
  and a model at ``rotY = 0`` looks along +z (up the board). Our ``facing`` counts
  counter-clockwise from +x, so ``facing = 90 - rotY`` (mod 360).
* Miniatures are the unlocked objects of the model types below; objects inside bags
  (``ContainedObjects``) are not on the table and are ignored; objects attached to
  others (``ChildObjects``) are not read. Both are counted in the list of what was not
  placed.
* Army importers label their models: Yellowscribe writes the model name into
  ``Nickname`` after a wound counter (``"[00ff16]2/2[-] Intercessor"``), tags every
  model of a unit with ``uuid:<id>``, and gives the unit's first model a script holding
  ``unitName = "..."`` and ``keywords = "..."``. A ``uuid:`` or ``unit:`` tag is the
  unit; untagged models with the same name on the same table half form one unit.
* A model's base comes, in order, from the ``--base`` mapping (by model or unit name),
  from a base written in its name or description ("32mm", "60x35.5mm oval"), from the
  base catalogue (by model name, then unit name). Nothing is guessed: every miniature
  that cannot be placed is listed by name with the reason.
* Players by table half unless told (``players``: unit name -> 1 or 2): with
  ``player_split="y"`` player 1 holds the half nearer y = 0 (the lower edge), with
  ``"x"`` the half nearer x = 0; a unit belongs to the half that holds the mean of its
  model centres (exactly on the line: listed, not placed).
* Finally the scenario goes through the 40k checks; a model whose base leaves the
  board or overlaps another model's is listed with the check's words and left out.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .. import budget
from ..catalogue import lookup as catalogue_lookup
from ..catalogue import normalise
from ..errors import ChargerefError, Problem, ScenarioError
from ..scenario import scenario_from_data, scenario_to_data
from ..scenario.common import KEYWORDS, Base

#: Object types that can be a miniature.
MINIATURE_TYPES = frozenset({"Custom_Model", "Custom_Assetbundle", "Figurine_Custom", "Figurine"})
#: TTS rich-text tags: colours ``[00ff16]`` ``[-]``, ``[b]`` ``[/i]`` ``[sup]`` ...
_BBCODE = re.compile(r"\[(?:[0-9a-fA-F]{6}|-|/?[a-zA-Z]{1,4})\]")
#: Yellowscribe's wound counter in front of a model's name ("2/2").
_WOUNDS = re.compile(r"(?<![\w/])\d+\s*/\s*\d+(?![\w/])")
_OVAL_TEXT = re.compile(r"(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*mm(\s*oval)?", re.I)
_ROUND_TEXT = re.compile(r"(?<![\d.x×])(\d+(?:\.\d+)?)\s*mm\b", re.I)
_LUA_FIELD = r'\b{}\s*=\s*"((?:[^"\\]|\\.)*)"'


@dataclass(frozen=True)
class Skipped:
    """A miniature (or a group of other objects) that was not placed, and why."""

    name: str
    reason: str
    guid: str | None = None

    def as_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "reason": self.reason}
        if self.guid:
            d["guid"] = self.guid
        return d


@dataclass
class ImportResult:
    scenario: dict[str, Any]
    skipped: list[Skipped] = field(default_factory=list)
    #: unit id -> the TTS name it came from
    names: dict[str, str] = field(default_factory=dict)


@dataclass
class _Mini:
    index: int
    guid: str | None
    name: str
    description: str
    tags: list[str]
    lua: str
    x: float
    y: float
    rot_y: float


def clean_text(text: str) -> str:
    """A TTS label without its rich-text tags and wound counter, spaces collapsed."""
    t = _BBCODE.sub(" ", text)
    t = _WOUNDS.sub(" ", t)
    return " ".join(t.split())


def facing_from_rot_y(rot_y: float) -> float:
    """TTS ``rotY`` (clockwise from above; 0 looks along +z) -> our facing
    (counter-clockwise from +x)."""
    f = (90.0 - rot_y) % 360.0
    f = round(f, 9)
    return 0.0 if f == 360.0 else f + 0.0


def base_in_text(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The base written in a label: ``"60x35.5mm oval"``, ``"25x50mm"`` (a rectangle, as
    in scenarios) or ``"32mm"``. Returns (base, None), (None, None) when the text names
    no base, or (None, reason) when it names two different ones."""
    found: list[dict[str, Any]] = []
    rest = text
    for m in _OVAL_TEXT.finditer(text):
        a, b = float(m.group(1)), float(m.group(2))
        found.append({"oval": [a, b]} if m.group(3) else {"rect": [a, b]})
    rest = _OVAL_TEXT.sub(" ", text)
    for m in _ROUND_TEXT.finditer(rest):
        found.append({"round": float(m.group(1))})
    distinct = []
    for f in found:
        if f not in distinct:
            distinct.append(f)
    if not distinct:
        return None, None
    if len(distinct) > 1:
        return None, "its name or description gives several bases (" + ", ".join(_short(d) for d in distinct) + ")"
    return distinct[0], None


def _short(base: dict[str, Any]) -> str:
    if "round" in base:
        return f"{base['round']:g}mm"
    kind = "oval" if "oval" in base else "rect"
    a, b = base[kind]
    return f"{a:g}x{b:g}mm {kind}"


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _lua_field(lua: str, name: str) -> str | None:
    m = re.search(_LUA_FIELD.format(name), lua)
    return m.group(1).replace('\\"', '"') if m else None


def _read_objects(save: Any) -> tuple[list[_Mini], list[Skipped]]:
    if not isinstance(save, dict) or not isinstance(save.get("ObjectStates"), list):
        raise ScenarioError(Problem("save", "not a Tabletop Simulator save: no ObjectStates list"))
    minis: list[_Mini] = []
    skipped: list[Skipped] = []
    others: Counter[str] = Counter()
    contained = attached = 0
    for i, obj in enumerate(save["ObjectStates"]):
        budget.check()
        where = f"ObjectStates[{i}]"
        if not isinstance(obj, dict):
            raise ScenarioError(Problem(where, "an object must be a JSON object"))
        kind = obj.get("Name")
        if not isinstance(kind, str):
            raise ScenarioError(Problem(where + ".Name", "missing object type"))
        tr = obj.get("Transform")
        if not isinstance(tr, dict):
            raise ScenarioError(Problem(where + ".Transform", "missing Transform"))
        vals = {}
        for k in ("posX", "posZ", "rotY"):
            vals[k] = _number(tr.get(k))
            if vals[k] is None:
                raise ScenarioError(Problem(f"{where}.Transform.{k}", "missing or not a finite number"))
        if abs(vals["posX"]) > 1e6 or abs(vals["posZ"]) > 1e6:  # type: ignore[arg-type]
            raise ScenarioError(Problem(f"{where}.Transform", "position absurdly far from the table"))
        inner = obj.get("ContainedObjects")
        if isinstance(inner, list):
            contained += len(inner)
        kids = obj.get("ChildObjects")
        if isinstance(kids, list):
            attached += len(kids)
        guid = obj.get("GUID") if isinstance(obj.get("GUID"), str) else None
        name = clean_text(_text(obj.get("Nickname")))
        if kind not in MINIATURE_TYPES:
            others[kind] += 1
            continue
        if obj.get("Locked") is True:
            skipped.append(Skipped(name or f"unnamed {kind}", "locked in place: scenery, not a miniature", guid))
            continue
        if not name:
            skipped.append(Skipped(f"unnamed {kind}", "the miniature has no name (Nickname)", guid))
            continue
        tags = [t for t in obj.get("Tags", []) if isinstance(t, str)] if isinstance(obj.get("Tags"), list) else []
        minis.append(
            _Mini(i, guid, name, clean_text(_text(obj.get("Description"))), tags, _text(obj.get("LuaScript")),
                  vals["posX"], vals["posZ"], vals["rotY"])  # type: ignore[arg-type]
        )
    for kind, n in sorted(others.items()):
        skipped.append(Skipped(f"{n} x {kind}", "not a miniature"))
    if contained:
        skipped.append(Skipped(f"{contained} object(s) inside bags or decks", "not on the table"))
    if attached:
        skipped.append(Skipped(f"{attached} object(s) attached to others (ChildObjects)",
                               "not read: detach them in Tabletop Simulator to import them"))
    return minis, skipped


def _unit_tag(tags: list[str]) -> str | None:
    for t in tags:
        low = t.lower()
        if low.startswith("uuid:") or low.startswith("unit:"):
            return t
    return None


def _parse_mapping(base_map: dict[str, Any]) -> dict[str, Base]:
    out: dict[str, Base] = {}
    for name, size in base_map.items():
        try:
            b = Base.model_validate(size)
        except ValidationError as exc:
            msg = exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise ChargerefError(Problem("--base", f"{name}={size}: {msg}")) from None
        if b.hull is not None:
            raise ChargerefError(Problem("--base", f"{name}={size}: a hull cannot be given here"))
        out[normalise(name)] = b
    return out


def _base_for(m: _Mini, unit_name: str, mapping: dict[str, Base]) -> tuple[dict[str, Any] | None, str]:
    """(base data, '') or (None, why not)."""
    for n in (m.name, unit_name):
        b = mapping.get(normalise(n))
        if b is not None:
            return b.model_dump(mode="json", exclude_none=True), ""
    written, why = base_in_text(m.name + " " + m.description)
    if why:
        return None, why
    if written is not None:
        try:
            Base.model_validate(written)
        except ValidationError as exc:
            return None, f"the base {_short(written)} in its label: " + exc.errors()[0]["msg"].removeprefix("Value error, ")
        return written, ""
    for n in (m.name, unit_name):
        e = catalogue_lookup(n)
        if e is not None:
            data = e.base_data()
            if data is None:
                return None, f"{e.name} has no base in the catalogue (hull); give --base \"{m.name}=SIZE\""
            return {**data, "catalogue": e.name}, ""
    return None, f"unknown base: not in the catalogue; give --base \"{m.name}=SIZE\""


def _unit_id(name: str, taken: set[str]) -> str:
    words = re.sub(r"[^A-Za-z0-9]+", " ", name).split()
    stem = "_".join(words)[:40] or "unit"
    uid, k = stem, 2
    while uid in taken:
        uid, k = f"{stem}_{k}", k + 1
    taken.add(uid)
    return uid


def import_save(
    save: Any,
    board: tuple[float, float] = (60.0, 44.0),
    base_map: dict[str, Any] | None = None,
    player_split: str = "y",
    players: dict[str, int] | None = None,
    rules: dict[str, Any] | None = None,
) -> ImportResult:
    """A parsed TTS save -> (scenario data that ``check`` accepts, what was not placed).

    Raises ``ScenarioError`` for a malformed save and ``ChargerefError`` for a bad
    option (the field names the save path or the option)."""
    W, D = board
    if not (W > 0 and D > 0 and math.isfinite(W) and math.isfinite(D)):
        raise ChargerefError(Problem("--board", "width and depth must be positive numbers"))
    if player_split not in ("x", "y"):
        raise ChargerefError(Problem("--player-split", "must be x or y"))
    mapping = _parse_mapping(base_map or {})
    told: dict[str, int] = {}
    for name, pl in (players or {}).items():
        if pl not in (1, 2):
            raise ChargerefError(Problem("--player", f"{name}={pl}: the player is 1 or 2"))
        told[normalise(name)] = pl
    minis, skipped = _read_objects(save)

    # group into units: a unit tag, else the name (split by table half below)
    groups: dict[tuple[str, str], list[_Mini]] = {}
    for m in minis:
        tag = _unit_tag(m.tags)
        key = ("tag", tag) if tag else ("name", normalise(m.name) or m.name)
        groups.setdefault(key, []).append(m)

    mid = (W / 2) if player_split == "x" else (D / 2)
    units_out: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    taken: set[str] = set()
    pending: list[tuple[str, list[_Mini], str, list[str]]] = []  # (unit name, models, key kind, keywords)
    for (kind, _key), ms in groups.items():
        budget.check()
        lua = next((m.lua for m in ms if _lua_field(m.lua, "unitName")), "")
        unit_name = clean_text(_lua_field(lua, "unitName") or "") or Counter(m.name for m in ms).most_common(1)[0][0]
        kws_text = _lua_field(lua, "keywords") or ""
        kws = sorted({k.strip().upper() for k in kws_text.split(",") if k.strip().upper() in KEYWORDS})
        if kind == "name" and normalise(unit_name) not in told:
            # same name on both halves: two units, one per side
            sides: dict[bool, list[_Mini]] = {}
            for m in ms:
                c = (m.x + W / 2) if player_split == "x" else (m.y + D / 2)
                sides.setdefault(c < mid, []).append(m)
            for part in sides.values():
                pending.append((unit_name, part, kind, kws))
        else:
            pending.append((unit_name, ms, kind, kws))

    for unit_name, ms, _kind, kws in pending:
        models = []
        for m in ms:
            base, why = _base_for(m, unit_name, mapping)
            if base is None:
                skipped.append(Skipped(m.name, why, m.guid))
                continue
            models.append((m, base))
        if not models:
            continue
        cs = [((m.x + W / 2) if player_split == "x" else (m.y + D / 2)) for m, _ in models]
        centre = sum(cs) / len(cs)
        player = told.get(normalise(unit_name))
        if player is None and abs(centre - mid) <= 1e-9:
            for m, _ in models:
                skipped.append(Skipped(m.name, f"unit {unit_name!r} stands exactly on the centre line: no player", m.guid))
            continue
        uid = _unit_id(unit_name, taken)
        names[uid] = unit_name
        if player is None:
            player = 1 if centre < mid else 2
        unit: dict[str, Any] = {"id": uid, "player": player, "name": unit_name}
        if kws:
            unit["keywords"] = kws
        unit["models"] = [
            {
                "id": f"{uid}-{k}",
                "at": [round(m.x + W / 2, 9), round(m.y + D / 2, 9)],
                "base": base,
                "facing": facing_from_rot_y(m.rot_y),
            }
            for k, (m, base) in enumerate(models, 1)
        ]
        units_out.append(unit)
    scenario: dict[str, Any] = {
        "format": "chargeref/1",
        "system": "40k",
        **({"rules": dict(rules)} if rules else {}),
        "unit": "in",
        "board": {"width": W, "depth": D},
        "units": units_out,
    }
    scenario = _drop_unplaceable(scenario, skipped)
    return ImportResult(scenario, skipped, {u["id"]: names[u["id"]] for u in scenario["units"]})


def _drop_unplaceable(scenario: dict[str, Any], skipped: list[Skipped]) -> dict[str, Any]:
    """Run the 40k checks; leave out (and list) each model whose base is off the board
    or overlaps another, until the scenario passes. Any other problem is a bug here."""
    from ..systems import find_system

    system = find_system("40k")
    try:
        scenario_from_data({**scenario, "units": []})
    except ChargerefError as exc:  # the rules given by the caller
        raise ChargerefError([Problem("--edition" if p.field.startswith("rules") else p.field, p.message)
                              for p in exc.problems]) from None
    by_id = {m["id"]: (u, m) for u in scenario["units"] for m in u["models"]}
    for _ in range(len(by_id) + 1):
        budget.check()
        scen = scenario_from_data(scenario)
        problems = system.problems(scen)
        if not problems:
            return scenario_to_data(scen)
        drop: dict[str, str] = {}
        for p in problems:
            m = re.fullmatch(r"units\[(.+?)\]\.models\[(.+?)\]\.at", p.field)
            if not m or m.group(2) not in by_id:
                raise ChargerefError(problems)
            drop.setdefault(m.group(2), p.message)
        for mid_, msg in drop.items():
            u, model = by_id.pop(mid_)
            u["models"] = [x for x in u["models"] if x["id"] != mid_]
            skipped.append(Skipped(f"{u['name']} ({mid_})", msg.replace("the base", "its base")))
        scenario["units"] = [u for u in scenario["units"] if u["models"]]
    raise ChargerefError(Problem("save", "could not place the models"))


__all__ = ["ImportResult", "MINIATURE_TYPES", "Skipped", "base_in_text", "clean_text", "facing_from_rot_y", "import_save"]
