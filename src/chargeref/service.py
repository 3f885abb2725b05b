"""The one code path under the command line and the web API.

Plain functions over *documents* (scenarios and rulings already read into dicts and
lists) that return JSON-ready data and raise :class:`chargeref.errors.ChargerefError`
subclasses whose problems name the field the user wrote. The CLI turns its arguments
into these calls (and renames fields such as ``roll`` to ``--roll``); the web API
turns its request bodies into the same calls, so both answer the same for the same
input.

Names of request fields (``charger``, ``target``, ``dice``, ``roll``, ``modifier``,
``seed``, ``reroll``, ``reaction``, ``reaction_dice``, ``casualties``, ``first_stand``,
``redirect``, ``redirect_dice``, ``unit``, ``against``, ``keep``, ``step``) are the
keys of :data:`REQUEST_FIELDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import budget
from .errors import ChargerefError, Problem, RequestError, ScenarioError
from .ruling import Ruling, ruling_from_data
from .scenario import AnyScenario, Scenario40k, ScenarioT9A, ScenarioWarmaster, scenario_from_data
from .scenario.checks import charges_problems, request_problems
from .scenario.limits import DEFAULT_LIMITS, Limits, count_problems
from .scenario.loader import load_bytes, read_path
from .systems import ChargeRequest, find_system

#: request field -> what it is (the CLI maps each to its option name)
REQUEST_FIELDS = {
    "charger": "the charging unit",
    "target": "a target unit",
    "dice": "fixed charge dice",
    "roll": "a fixed charge roll (2D6, before modifiers)",
    "modifier": "the charge roll modifier",
    "seed": "the dice seed",
    "reroll": "the re-roll",
    "reaction": "the T9A charge reaction",
    "reaction_dice": "the T9A flee dice",
    "casualties": "40k overwatch casualties",
    "first_stand": "the Warmaster first stand",
    "redirect": "the T9A redirect target",
    "redirect_dice": "the T9A redirect Discipline test dice",
    "unit": "the unit that acts",
    "against": "the enemy unit that has just charged",
    "keep": "models held still",
    "step": "the fight step",
    "time_limit": "the time limit",
    "stratagem": "the 40k edition-11 heroic intervention stratagem",
}

_EXTRAS = ("reaction", "reaction_dice", "casualties", "first_stand", "redirect", "redirect_dice")


# ----------------------------------------------------------------------- reading


def load_document(data: bytes | str, *, source: str = "scenario", limits: Limits = DEFAULT_LIMITS) -> Any:
    """JSON or YAML bytes/text -> plain data, within ``limits`` (size, depth, aliases,
    duplicate keys, number magnitudes, counts). Refusals name ``source``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return load_bytes(data, source=source, limits=limits)


def load_path(path: str | Path, *, source: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Read a file (reading at most the size cap + 1 bytes) and :func:`load_document` it."""
    src = source or str(path)
    return load_document(read_path(path, source=src, limits=limits), source=src, limits=limits)


def scenario_problems(scen: AnyScenario) -> list[Problem]:
    """Everything wrong with a parsed scenario: the system's geometric and cross
    reference checks, then the declared charges (deduplicated, in order)."""
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for p in find_system(scen.system).problems(scen):
        if (p.field, p.message) not in seen:
            seen.add((p.field, p.message))
            out.append(p)
    named = {f for f, _ in seen}
    # the same charge field named by the system already says what is wrong with it
    out += [p for p in charges_problems(scen) if p.field not in named]
    return out


def parse_scenario(doc: Any, *, limits: Limits = DEFAULT_LIMITS) -> AnyScenario:
    """A scenario document -> the validated scenario, or ScenarioError listing every
    problem (limits, contract fields, geometry, cross references, declared charges).

    This is exactly what ``check`` accepts: every command parses through here."""
    problems = count_problems(doc, limits)
    if problems:
        raise ScenarioError(problems)
    scen = scenario_from_data(doc, limits=limits)
    problems = scenario_problems(scen)
    if problems:
        raise ScenarioError(problems)
    return scen


def _scenario(doc: Any) -> AnyScenario:
    if isinstance(doc, (Scenario40k, ScenarioT9A, ScenarioWarmaster)):
        return doc
    return parse_scenario(doc)


# ----------------------------------------------------------------------- commands


def check(doc: Any) -> dict[str, Any]:
    """``{"ok": bool, "problems": [{"field", "message"}]}`` for a scenario document."""
    try:
        parse_scenario(doc)
    except budget.WorkLimitExceeded:
        raise
    except ChargerefError as exc:
        return {"ok": False, "problems": [{"field": p.field, "message": p.message} for p in exc.problems]}
    return {"ok": True, "problems": []}


def _limit(time_limit: float | None) -> float:
    return budget.DEFAULT_SECONDS if time_limit is None else float(time_limit)


def charge_request(scen: AnyScenario, charger: str, targets: Sequence[str], *, dice: Any = None, roll: Any = None,
                   seed: Any = None, reroll: str = "none", modifier: Any = 0, heroic_intervention: bool = False,
                   stratagem: str | None = None, **system_extras: Any) -> ChargeRequest:
    """Check a declared charge against the scenario and the rules' ranges and build the
    system's request. ``roll`` is the 2D6 result before modifiers; the modifier is added
    to it (a fixed roll of 7 with +1 is a total of 8)."""
    for k in system_extras:
        if k not in _EXTRAS:
            raise RequestError(Problem(k, f"unknown option (known: {', '.join(_EXTRAS)})"))
    spec = {"charger": charger, "targets": targets, "dice": dice, "roll": roll, "seed": seed, "reroll": reroll,
            "modifier": modifier, **system_extras}
    problems, clean = request_problems(scen, spec, prefix="", heroic=heroic_intervention)
    if problems:
        raise RequestError(problems)
    total = None if clean["roll"] is None else clean["roll"] + clean["modifier"]
    extra: dict[str, Any] = {}
    if clean.get("first_stand") is not None:
        extra["first_stand"] = clean["first_stand"]
    if heroic_intervention:
        extra["heroic_intervention"] = True
    if stratagem is not None:
        extra["stratagem"] = _stratagem(scen, stratagem)
    return ChargeRequest(
        charger=clean["charger"],
        targets=tuple(clean["targets"]),
        dice=clean["dice"],
        roll=total,
        modifier=clean["modifier"],
        reroll=clean["reroll"],
        seed=clean["seed"],
        reaction=clean.get("reaction"),
        reaction_dice=clean.get("reaction_dice"),
        casualties=tuple(clean.get("casualties") or ()),
        redirect=clean.get("redirect"),
        redirect_dice=clean.get("redirect_dice"),
        extra=extra,
    )


def charge_ruling(scen: AnyScenario, charger: str, targets: Sequence[str], *, dice: Any = None, roll: Any = None,
                  seed: Any = None, reroll: str = "none", modifier: Any = 0, time_limit: float | None = None,
                  **system_extras: Any) -> Ruling:
    """The ruling object of one charge on a parsed scenario (see :func:`charge`)."""
    req = charge_request(scen, charger, targets, dice=dice, roll=roll, seed=seed, reroll=reroll, modifier=modifier,
                         **system_extras)
    with budget.time_limit(_limit(time_limit), "the charge"):
        return find_system(scen.system).charge(scen, req)


def charge(doc: Any, charger: str, targets: Sequence[str], *, dice: Any = None, roll: Any = None, seed: Any = None,
           reroll: str = "none", modifier: Any = 0, time_limit: float | None = None, **system_extras: Any) -> dict[str, Any]:
    """The ruling JSON of one charge, identical to ``chargeref charge --json``.

    ``dice``: a list of faces or text like ``"3,4"``; ``roll``: the 2D6 result before
    modifiers (40k and T9A: 2 to 12); ``modifier``: -6 to +6; ``system_extras``:
    ``reaction``, ``reaction_dice``, ``casualties``, ``first_stand``, ``redirect``,
    ``redirect_dice``. ``time_limit`` seconds (None: the default; 0: none)."""
    scen = _scenario(doc)
    return charge_ruling(scen, charger, targets, dice=dice, roll=roll, seed=seed, reroll=reroll, modifier=modifier,
                         time_limit=time_limit, **system_extras).to_json_data()


def odds(doc: Any, charger: str, targets: Sequence[str], *, reroll: str = "none", modifier: Any = 0,
         time_limit: float | None = None, stratagem: str | None = None) -> dict[str, Any]:
    """The exact chance that the declared charge succeeds, identical to ``odds --json``."""
    from .dice import success_probability, table

    scen = _scenario(doc)
    req = charge_request(scen, charger, targets, reroll=reroll, modifier=modifier, stratagem=stratagem)
    if _edition11(scen):
        # edition 11 picks targets after the roll: the odds per target set
        from .systems.w40k import ed11

        with budget.time_limit(_limit(time_limit), "the least roll"):
            data = ed11.odds(find_system("40k"), scen, req)  # type: ignore[arg-type]
        data["table"] = {str(k): float(v) for k, v in table(req.modifier, req.reroll).items()}
        if req.targets:
            row = data["choices"][0] if data["choices"] else None
            data["needed"] = row["needed"] if row else {"distance": None, "roll": None}
            data["probability"] = row["probability"] if row else 0.0
            data["probability_fraction"] = row["probability_fraction"] if row else "0/1"
        return data
    with budget.time_limit(_limit(time_limit), "the least roll"):
        need = find_system(scen.system).needed(scen, req)
    if scen.system == "warmaster":
        # no charge roll: the charge itself is ruled (each face of a Revolution zone die)
        with budget.time_limit(_limit(time_limit), "the charge"):
            p = find_system("warmaster").chance(scen, req)  # type: ignore[attr-defined]
        tab: dict[int, Fraction] = {}
    else:
        mod = req.modifier if scen.system == "40k" else 0
        p = success_probability(need.roll, mod, req.reroll)
        tab = table(mod, req.reroll)
    return {
        "needed": need.model_dump(mode="json"),
        "modifier": req.modifier,
        "reroll": req.reroll,
        "probability": float(p),
        "probability_fraction": f"{p.numerator}/{p.denominator}",
        "table": {str(k): float(v) for k, v in tab.items()},
    }


def phase_result(scen: AnyScenario, seed: Any = None, *, time_limit: float | None = None,
                 progress: Callable[[int, int, str], None] | None = None) -> Any:
    """The PhaseResult of the scenario's ``charges:`` (see :func:`phase`)."""
    from .scenario.checks import check_seed

    seed = check_seed(seed)
    if not scen.charges:
        raise RequestError(Problem("charges", "the scenario declares no charges"))
    system = find_system(scen.system)
    with budget.time_limit(_limit(time_limit), "the charge phase"):
        if progress is not None and "progress" in system.phase.__code__.co_varnames:
            return system.phase(scen, seed, progress=progress)  # type: ignore[call-arg]
        return system.phase(scen, seed)


def phase(doc: Any, seed: Any = None, *, time_limit: float | None = None) -> dict[str, Any]:
    """Resolve the scenario's ``charges:`` in order (``chargeref-phase/1``, = ``phase --json``)."""
    return phase_result(_scenario(doc), seed, time_limit=time_limit).to_json_data()  # type: ignore[no-any-return]


def heroic_ruling(scen: AnyScenario, unit: str, *, against: str | None = None, dice: Any = None, roll: Any = None,
                  seed: Any = None, time_limit: float | None = None, stratagem: str | None = None) -> Ruling:
    """40k heroic intervention: edition 9 a 3" move, edition 10 a charge against ``against``,
    edition 11 a stratagem charge (``leap_to_defend``, the default, or ``into_the_fray``;
    without ``against``: the choices after the roll)."""
    if scen.system != "40k":
        raise RequestError(Problem("system", "heroic interventions are a 40k rule"))
    _require_units(scen, {"unit": [unit], "against": [against] if against is not None else []})
    sysm = find_system("40k")
    with budget.time_limit(_limit(time_limit), "the heroic intervention"):
        if scen.rules.edition == 9:  # type: ignore[union-attr]
            return sysm.heroic_intervention(scen, unit)  # type: ignore[attr-defined, no-any-return]
        if _edition11(scen):
            req = charge_request(scen, unit, (against,) if against else (), dice=dice, roll=roll, seed=seed,
                                 heroic_intervention=True, stratagem=stratagem or "leap_to_defend")
            return sysm.charge(scen, req)
        if stratagem is not None:
            raise RequestError(Problem("stratagem", "the heroic intervention stratagems are edition 11 rules"))
        if not against:
            raise RequestError(Problem("against", "edition 10: name the enemy unit that has just charged"))
        req = charge_request(scen, unit, (against,), dice=dice, roll=roll, seed=seed, heroic_intervention=True)
        return sysm.charge(scen, req)


def heroic(doc: Any, unit: str, *, against: str | None = None, dice: Any = None, roll: Any = None, seed: Any = None,
           time_limit: float | None = None, stratagem: str | None = None) -> dict[str, Any]:
    """The ruling JSON of a 40k heroic intervention (= ``heroic --json``)."""
    return heroic_ruling(_scenario(doc), unit, against=against, dice=dice, roll=roll, seed=seed,
                         time_limit=time_limit, stratagem=stratagem).to_json_data()


FIGHT_STEPS = ("pile_in", "consolidate", "both", "who")


def fight_rulings(scen: AnyScenario, unit: str, step: str = "both", keep: Iterable[str] = (), *,
                  time_limit: float | None = None) -> tuple[dict[str, Any], list[Ruling], list[Any]]:
    """40k fight phase: (the JSON data, the rulings made, the scenario before each)."""
    from .scenario import scenario_from_data as _from
    from .systems.w40k.fight import consolidate, pile_in, who_fights

    if not isinstance(scen, Scenario40k):
        raise RequestError(Problem("system", "the fight phase is a 40k rule"))
    if step not in FIGHT_STEPS:
        raise RequestError(Problem("step", f"unknown step {step!r} (known: {', '.join(FIGHT_STEPS)})"))
    _require_units(scen, {"unit": [unit]})
    held = set(keep)
    ids = {m.id for u in scen.units if u.id == unit for m in u.models}
    bad = sorted(held - ids)
    if bad:
        raise RequestError(Problem("keep", f"{', '.join(bad)} is not a model of {unit}"))
    with budget.time_limit(_limit(time_limit), "the fight step"):
        if step == "who":
            return who_fights(scen, unit), [], []
        rulings: list[Ruling] = []
        befores: list[Any] = []
        cur: Any = scen
        for s in (["pile_in", "consolidate"] if step == "both" else [step]):
            r = pile_in(cur, unit, held) if s == "pile_in" else consolidate(cur, unit, held)
            rulings.append(r)
            befores.append(cur)
            if not r.eligible:
                break  # a unit that may not fight does not consolidate either
            if r.after is not None:
                cur = _from(r.after)
    if len(rulings) == 1 and step != "both":
        data: dict[str, Any] = rulings[0].to_json_data()
    else:
        data = {
            "format": "chargeref-fight/1",
            "unit": unit,
            "steps": [r.to_json_data() for r in rulings],
            "attacks": rulings[0].details.get("attacks", {}) if len(rulings) > 1 else {},
            "after": rulings[-1].after,
        }
    return data, rulings, befores


def fight(doc: Any, unit: str, step: str = "both", keep: Iterable[str] = (), *,
          time_limit: float | None = None) -> dict[str, Any]:
    """The JSON of ``chargeref fight --json``."""
    return fight_rulings(_scenario(doc), unit, step, keep, time_limit=time_limit)[0]


def draw(doc: Any, ruling: Any = None, *, title: str | None = None) -> str:
    """The SVG drawing of a scenario (and a ruling of it, as a document or Ruling)."""
    from .render import render_svg

    scen = _scenario(doc)
    r = ruling if ruling is None or isinstance(ruling, Ruling) else ruling_from_data(ruling)
    if r is not None:
        _same_system(scen, r)
    return render_svg(scen, r, title=title)


def validate(doc: Any, ruling_doc: Any) -> dict[str, Any]:
    """The independent checker on a ruling of the scenario:
    ``{"legal": bool, "violations": [{"code", "message", "models"}]}``."""
    from .validate import validate_ruling

    scen = _scenario(doc)
    ruling = ruling_from_data(ruling_doc)
    _same_system(scen, ruling)
    try:
        probs = validate_ruling(scen, ruling)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError) as exc:
        if isinstance(exc, ChargerefError):
            raise
        # the contract fixes the top-level fields; a system's ``details`` that do not
        # have the form that system writes cannot be checked
        raise ScenarioError(Problem("ruling.details", "cannot be checked: a value does not have the form this "
                                                      f"system's rulings give it ({exc.__class__.__name__})")) from None
    return {"legal": not probs,
            "violations": [{"code": v.code, "message": v.message, "models": list(v.models)} for v in probs]}


# ----------------------------------------------------------------------- helpers


def _same_system(scen: AnyScenario, ruling: Ruling) -> None:
    if ruling.system != scen.system:
        raise ScenarioError(Problem("ruling.system", f"the ruling is a {ruling.system[:40]!r} ruling, the scenario "
                                                     f"is {scen.system!r}"))


def _edition11(scen: AnyScenario) -> bool:
    return isinstance(scen, Scenario40k) and scen.rules.edition == 11


def _stratagem(scen: AnyScenario, name: str) -> str:
    """An edition-11 heroic intervention stratagem name, or a refusal naming ``stratagem``."""
    from .systems.w40k.ed11 import STRATAGEMS

    if not _edition11(scen):
        raise RequestError(Problem("stratagem", "the heroic intervention stratagems are 40k edition 11 rules"))
    if name not in STRATAGEMS:
        raise RequestError(Problem("stratagem", f"unknown stratagem {str(name)[:40]!r} (known: {', '.join(STRATAGEMS)})"))
    return name


def _require_units(scen: AnyScenario, named: dict[str, list[str]]) -> None:
    ids = [u.id for u in scen.units]
    problems = [Problem(field, f"no unit {uid!r} in the scenario (units: {', '.join(ids)})")
                for field, uids in named.items() for uid in uids if uid not in ids]
    if problems:
        raise RequestError(problems)


__all__ = [
    "DEFAULT_LIMITS",
    "FIGHT_STEPS",
    "REQUEST_FIELDS",
    "Limits",
    "charge",
    "charge_request",
    "charge_ruling",
    "check",
    "draw",
    "fight",
    "fight_rulings",
    "heroic",
    "heroic_ruling",
    "load_document",
    "load_path",
    "odds",
    "parse_scenario",
    "phase",
    "phase_result",
    "validate",
]
