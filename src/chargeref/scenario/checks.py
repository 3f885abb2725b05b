"""One validation path: a scenario's problems and a declared charge's problems.

``charges_problems`` joins the system's checks in ``chargeref.service.parse_scenario``
(what ``check`` reports and every command parses through). ``request_problems`` checks one declared charge (a ``charges:`` entry or the CLI/web
arguments) against the scenario and the ranges the rules allow; the phase and the
single charge use it alike, so their refusals name the same fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import Problem, RequestError

#: a charge roll is 2D6: before modifiers it lies between 2 and 12 (40k and T9A;
#: T9A Swiftstride rolls a third die and keeps the best two, still 2 to 12)
ROLL_MIN, ROLL_MAX = 2, 12
#: the modifier to a charge roll, in either direction, that chargeref accepts
MODIFIER_MAX = 6
#: dice seeds: any whole number of at most 63 bits
SEED_MAX = 2**63 - 1
REROLLS = ("none", "failed", "one_die")
REACTIONS = ("hold", "stand_and_shoot", "flee")


def _whole(v: Any) -> int | None:
    """An int from an int or a short decimal string; None otherwise (bool is not a number)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        return int(v)
    if isinstance(v, str):
        t = v.strip()
        if 0 < len(t.lstrip("+-")) <= 20 and t.lstrip("+-").isdigit():
            return int(t)
    return None


def parse_dice(v: Any, field: str) -> tuple[tuple[int, ...] | None, list[Problem]]:
    """Dice given as ``"3,4"`` or ``[3, 4]`` -> faces, each a whole number from 1 to 6."""
    if v is None:
        return None, []
    if isinstance(v, str):
        parts = [x.strip() for x in v.split(",")]
        if v.strip() == "" or any(x == "" for x in parts):
            return None, [Problem(field, f"expected comma-separated dice like 3,4 (got {v[:40]!r})")]
        items: Sequence[Any] = parts
    elif isinstance(v, (list, tuple)):
        items = v
    else:
        return None, [Problem(field, "expected dice like 3,4")]
    if len(items) > 6:
        return None, [Problem(field, f"{len(items)} dice: no roll here uses more than 3")]
    faces = [_whole(x) for x in items]
    if not items or any(f is None or not 1 <= f <= 6 for f in faces):
        shown = v[:40] if isinstance(v, str) else list(items)[:6]
        return None, [Problem(field, f"each die is a whole number from 1 to 6 (got {shown!r})")]
    return tuple(f for f in faces if f is not None), []


def check_seed(seed: Any, field: str = "seed") -> int | None:
    if seed is None:
        return None
    s = _whole(seed)
    if s is None or not 0 <= s <= SEED_MAX:
        raise RequestError(Problem(field, f"a seed is a whole number from 0 to {SEED_MAX}"))
    return s


def _units(scen: Any) -> dict[str, Any]:
    return {u.id: u for u in scen.units}


def _keywords(unit: Any) -> set[str]:
    return set(getattr(unit, "keywords", []) or [])


def request_problems(scen: Any, spec: dict[str, Any], *, prefix: str = "",
                     heroic: bool = False) -> tuple[list[Problem], dict[str, Any]]:
    """Every problem of one declared charge, and the cleaned values.

    Field names are the request's (``charger``, ``target``, ``dice``, ``roll``, ...) or,
    with a ``prefix`` such as ``charges[0].``, the scenario's (``charges[0].targets``)."""
    system = scen.system
    units = _units(scen)
    known = ", ".join(units) or "none"
    probs: list[Problem] = []
    clean: dict[str, Any] = {}

    def f(name: str) -> str:
        if name == "target":
            return f"{prefix}targets" if prefix else "target"
        return prefix + name

    def unit_ref(name: str, uid: Any) -> str | None:
        if not isinstance(uid, str) or uid not in units:
            probs.append(Problem(f(name), f"no unit {str(uid)[:60]!r} in the scenario (units: {known})"))
            return None
        return uid

    charger = unit_ref("charger", spec.get("charger"))
    clean["charger"] = spec.get("charger")
    raw_targets = spec.get("targets")
    if isinstance(raw_targets, str):
        raw_targets = [raw_targets]
    if raw_targets is None:
        raw_targets = []
    if not isinstance(raw_targets, (list, tuple)) or len(raw_targets) > 100:
        probs.append(Problem(f("target"), "expected a list of unit ids"))
        raw_targets = []
    targets = list(raw_targets)
    clean["targets"] = targets
    for t in targets:
        unit_ref("target", t)
    targets = [t for t in targets if isinstance(t, str)]
    if len(set(targets)) != len(targets):
        probs.append(Problem(f("target"), "a target is named twice"))
    if charger is not None and charger in targets:
        probs.append(Problem(f("target"), f"{charger} cannot charge itself"))
    if not targets and system != "40k":
        probs.append(Problem(f("target"), "declare at least one target"))
    cu = units.get(charger) if charger else None
    tu = units.get(targets[0]) if targets and targets[0] in units else None

    # the charge dice: 40k 2D6; T9A 2D6, or 3D6 keeping the best two with Swiftstride;
    # Warmaster has no charge roll, only Revolution's one-die zone roll
    dice, p = parse_dice(spec.get("dice"), f("dice"))
    probs += p
    if dice is not None:
        if system == "warmaster":
            want = 1
        elif system == "t9a" and cu is not None and "SWIFTSTRIDE" in _keywords(cu):
            want = 3
        else:
            want = 2
        if len(dice) != want:
            what = {1: "one die", 2: "two dice", 3: "three dice (Swiftstride)"}[want]
            probs.append(Problem(f("dice"), f"this charge rolls {what} (got {len(dice)})"))
    clean["dice"] = dice

    roll = spec.get("roll")
    clean["roll"] = None
    if roll is not None:
        r = _whole(roll)
        if system == "warmaster":
            probs.append(Problem(f("roll"), "Warmaster charges have no charge roll"))
        elif r is None or not ROLL_MIN <= r <= ROLL_MAX:
            probs.append(Problem(f("roll"), f"a charge roll (2D6, before modifiers) is a whole number from {ROLL_MIN} to {ROLL_MAX}"))
        else:
            clean["roll"] = r
        if dice is not None:
            probs.append(Problem(f("roll"), "give either dice or a roll, not both"))

    mod = _whole(spec.get("modifier", 0) if spec.get("modifier") is not None else 0)
    if mod is None or not -MODIFIER_MAX <= mod <= MODIFIER_MAX:
        probs.append(Problem(f("modifier"), f"a charge modifier is a whole number from -{MODIFIER_MAX} to +{MODIFIER_MAX}"))
        mod = 0
    elif mod and system == "warmaster":
        probs.append(Problem(f("modifier"), "Warmaster charges have no charge roll to modify"))
    clean["modifier"] = mod

    if not prefix:
        try:
            clean["seed"] = check_seed(spec.get("seed"), f("seed"))
        except RequestError as exc:
            probs += exc.problems
            clean["seed"] = None

    reroll = spec.get("reroll", "none") or "none"
    if not isinstance(reroll, str) or reroll not in REROLLS:
        probs.append(Problem(f("reroll"), f"unknown re-roll {str(reroll)[:40]!r} (known: {', '.join(REROLLS)})"))
    elif reroll != "none" and system == "warmaster":
        probs.append(Problem(f("reroll"), "Warmaster charges have no charge roll to re-roll"))
    clean["reroll"] = reroll

    # T9A: the target's reaction; only a flee rolls dice (2D6, 3D6 with Swiftstride)
    reaction = spec.get("reaction")
    rdice, p = parse_dice(spec.get("reaction_dice"), f("reaction_dice"))
    probs += p
    if reaction is not None and system != "t9a":
        probs.append(Problem(f("reaction"), "charge reactions are a T9A rule"))
    elif reaction is not None and (not isinstance(reaction, str) or reaction not in REACTIONS):
        probs.append(Problem(f("reaction"), f"unknown reaction {str(reaction)[:40]!r} (known: {', '.join(REACTIONS)})"))
    if rdice is not None:
        if system != "t9a" or reaction != "flee":
            probs.append(Problem(f("reaction_dice"), "flee dice are rolled only when the target flees (reaction flee)"))
        else:
            want = 3 if tu is not None and "SWIFTSTRIDE" in _keywords(tu) else 2
            if len(rdice) != want:
                probs.append(Problem(f("reaction_dice"), f"a flee roll is {want} dice (got {len(rdice)})"))
    clean["reaction"] = reaction
    clean["reaction_dice"] = rdice

    # T9A redirect: another unit to charge if the target flees; a 2D6 Discipline test
    redirect = spec.get("redirect")
    if redirect is not None:
        if not isinstance(redirect, str):
            probs.append(Problem(f("redirect"), "expected a unit id"))
        elif system != "t9a":
            probs.append(Problem(f("redirect"), "redirecting a charge is a T9A rule"))
        elif unit_ref("redirect", redirect) is not None and redirect == charger:
            probs.append(Problem(f("redirect"), f"{charger} cannot redirect its charge onto itself"))
    rrd, p = parse_dice(spec.get("redirect_dice"), f("redirect_dice"))
    probs += p
    if rrd is not None:
        if system != "t9a":
            probs.append(Problem(f("redirect_dice"), "redirecting a charge is a T9A rule"))
        elif len(rrd) != 2:
            probs.append(Problem(f("redirect_dice"), f"a Discipline test is two dice (got {len(rrd)})"))
    clean["redirect"] = redirect
    clean["redirect_dice"] = rrd

    raw_cas = spec.get("casualties") or []
    if isinstance(raw_cas, str):
        raw_cas = [raw_cas]
    if not isinstance(raw_cas, (list, tuple)) or not all(isinstance(c, str) for c in raw_cas):
        probs.append(Problem(f("casualties"), "expected a list of model ids"))
        raw_cas = []
    casualties = list(raw_cas)
    if casualties:
        if system != "40k":
            probs.append(Problem(f("casualties"), "overwatch casualties are a 40k rule"))
        elif cu is not None:
            ids = {m.id for m in cu.models}
            bad = [c for c in casualties if c not in ids]
            if bad:
                probs.append(Problem(f("casualties"), f"{', '.join(map(str, bad))[:80]} is not a model of {charger}"))
    clean["casualties"] = casualties

    fs = spec.get("first_stand")
    if fs is not None and not isinstance(fs, str):
        probs.append(Problem(f("first_stand"), "expected a stand id"))
        fs = None
    if fs is not None and system != "warmaster":
        probs.append(Problem(f("first_stand"), "choosing the first stand is a Warmaster (Revolution) rule"))
    clean["first_stand"] = fs
    del heroic  # heroic interventions take the same checks
    return probs, clean


def charges_problems(scen: Any) -> list[Problem]:
    """The problems of every ``charges:`` entry, named ``charges[i].<field>``."""
    probs: list[Problem] = []
    units = _units(scen)
    for i, c in enumerate(scen.charges):
        spec = {k: getattr(c, k, None) for k in ("charger", "targets", "dice", "modifier", "reroll", "reaction",
                                                 "reaction_dice", "casualties", "redirect", "redirect_dice")}
        p, _ = request_problems(scen, spec, prefix=f"charges[{i}].")
        probs += p
        for key in ("panic_dice", "secondary_reactions"):
            for uid in (getattr(c, key, None) or {}):
                if uid not in units:
                    probs.append(Problem(f"charges[{i}].{key}.{uid}", "no such unit in the scenario"))
    order = getattr(scen, "move_order", None)
    for uid in order or []:
        if uid not in units:
            probs.append(Problem("move_order", f"no unit {uid!r} in the scenario"))
    return probs


__all__ = ["MODIFIER_MAX", "REACTIONS", "REROLLS", "ROLL_MAX", "ROLL_MIN", "charges_problems", "check_seed",
           "parse_dice", "request_problems"]
