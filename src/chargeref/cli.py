"""The ``chargeref`` command: parse, call the rule system, print.

Exit status: 0 for any ruling (a failed charge is still a ruling), 2 for input the
program refuses (one line per problem, naming the field), 1 for a bug.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from fractions import Fraction
from functools import wraps
from pathlib import Path
from typing import Any

import click

from .errors import ChargerefError, Problem, RequestError
from .ruling import Ruling, ruling_schema
from .scenario import AnyScenario, load_scenario, scenario_schema
from .systems import ChargeRequest, find_system

EXIT_REFUSED = 2
EXIT_BUG = 1


def _fail(problems: list[Problem]) -> None:
    for p in problems:
        click.echo(f"chargeref: {p}", err=True)
    sys.exit(EXIT_REFUSED)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn refusals into one line per problem (exit 2) and bugs into exit 1."""

    @wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        try:
            return fn(*a, **k)
        except ChargerefError as exc:
            _fail(exc.problems)
        except (BrokenPipeError, KeyboardInterrupt):
            sys.exit(EXIT_BUG)
        except click.exceptions.Exit:
            raise
        except SystemExit:
            raise
        except Exception as exc:  # a bug: say so plainly
            if os.environ.get("CHARGEREF_DEBUG"):
                traceback.print_exc()
            click.echo(
                f"chargeref: internal error ({exc.__class__.__name__}: {exc}); "
                "this is a bug - rerun with CHARGEREF_DEBUG=1 for details",
                err=True,
            )
            sys.exit(EXIT_BUG)

    return wrapper


def _load(path: str) -> AnyScenario:
    scen = load_scenario(path)
    problems = find_system(scen.system).problems(scen)
    if problems:
        raise ChargerefError(problems)
    return scen


def _parse_dice(text: str | None, opt: str = "--dice", n: int | None = 2) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        vals = tuple(int(x) for x in text.replace(" ", "").split(",") if x != "")
    except ValueError:
        raise RequestError(Problem(opt, f"expected comma-separated dice like 3,4 (got {text!r})")) from None
    if n is not None and len(vals) != n:
        raise RequestError(Problem(opt, f"expected {n} dice like 3,4 (got {text!r})"))
    if not vals or any(v < 1 or v > 6 for v in vals):
        raise RequestError(Problem(opt, f"each die is a whole number from 1 to 6 (got {text!r})"))
    return vals


def _write(path: str | None, text: str | bytes, what: str) -> None:
    if not path:
        return
    p = Path(path)
    try:
        if p.parent and not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RequestError(Problem(what, f"cannot write {path}: {exc.strerror or exc}")) from None


def _draw(scen: AnyScenario, ruling: Ruling | None, svg: str | None, png: str | None, title: str | None = None) -> None:
    """Write the drawing of a scenario (and ruling) as SVG and/or PNG."""
    if not svg and not png:
        return
    from .render import render_png, render_svg

    text = render_svg(scen, ruling, title=title)
    _write(svg, text, "--svg")
    if png:
        try:
            render_png(text, png)
        except RuntimeError as exc:
            raise RequestError(Problem("--png", str(exc))) from None


# ------------------------------------------------------------------------- text


def _fmt(x: float | None, unit: str) -> str:
    if x is None:
        return "-"
    return f'{x:.3f}"' if unit == "in" else f"{x:.2f} {unit}"


def summary(scen: AnyScenario, r: Ruling) -> str:
    """A short human summary of a ruling."""
    unit = scen.unit
    lines = []
    head = f"{r.system} {r.procedure.replace('_', ' ')}: {r.charger} -> {', '.join(r.targets) or '-'}"
    if r.system == "40k":
        d = r.details
        head += f"   (edition {d.get('edition')}{', WTC' if d.get('wtc') else ''})"
    lines.append(head)
    if not r.eligible:
        lines.append("NOT ELIGIBLE")
    if r.needed is not None:
        n = r.needed
        if r.system == "warmaster":
            # Warmaster has no charge roll: only the first stand's move decides
            lines.append("needed: no charge roll; " + (f"the first stand must move {_fmt(n.distance, unit)}" if n.distance is not None else "no stand can make the move"))
        elif n.roll is None and n.distance is None:
            lines.append("needed: no roll can succeed")
        else:
            extra = " (proven least)" if n.exact else ""
            roll_txt = f"roll {n.roll}" if n.roll is not None else "no roll"
            lines.append(f"needed: {_fmt(n.distance, unit)} -> {roll_txt}{extra}")
    if r.roll is not None:
        ro = r.roll
        dice = " + ".join(str(x) for x in ro.dice) if ro.dice else "fixed"
        mod = f" {ro.modifier:+d}" if ro.modifier else ""
        rr = f" (re-rolled from {ro.rerolled_from})" if ro.rerolled_from else ""
        lines.append(f"roll: {dice}{mod} = {ro.total}{rr}")
    if r.eligible:
        verdict = "SUCCESS" if r.success else "FAILED"
        moved = len(r.moves)
        contacts = sum(1 for m in r.moves if m.contacts)
        tokens = sum(1 for m in r.moves if m.token)
        extra = f", {tokens} with wall tokens" if tokens else ""
        eng = f"; engaged {', '.join(r.engaged)}" if r.engaged else ""
        lines.append(f"{verdict}: {moved} moved, {contacts} in base contact{extra}{eng}")
    d = r.details
    if d.get("charged_facing"):
        lines.append(f"charged facing: {d['charged_facing']}")
    if d.get("first_stand"):
        lines.append(f"first stand: {d['first_stand']}")
    edges = d.get("contacted_edges")
    if edges:
        shown = []
        for e in edges[:12]:
            if isinstance(e, dict) and "stand" in e:
                length = f" {e['length']:g}" if isinstance(e.get("length"), (int, float)) else ""
                shown.append(f"{e['stand']}->{e.get('enemy_stand', '?')} {e.get('edge', '')} ({e.get('kind', 'edge')}{length})")
            else:
                shown.append(str(e))
        lines.append("contacted edges: " + ", ".join(shown) + (" ..." if len(edges) > 12 else ""))
    if d.get("drawn_in"):
        lines.append(f"drawn in: {', '.join(map(str, d['drawn_in']))}")
    for m in r.moves[:60]:
        c = f"  contacts {', '.join(m.contacts)}" if m.contacts else ""
        t = "  [token]" if m.token else ""
        lines.append(
            f"  {m.id:<10} ({m.from_[0]:.3f}, {m.from_[1]:.3f}) -> ({m.to[0]:.3f}, {m.to[1]:.3f})  {_fmt(m.distance, unit)}{c}{t}"
        )
    if len(r.moves) > 60:
        lines.append(f"  ... and {len(r.moves) - 60} more")
    for reason in r.reasons:
        who = f" [{', '.join(reason.models)}]" if reason.models else ""
        lines.append(f"  - {reason.code}: {reason.message}{who}")
    return "\n".join(lines)


# ------------------------------------------------------------------------- commands


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="chargeref")
def main() -> None:
    """chargeref: a referee in a box for tabletop wargame charges."""


@main.command()
@click.argument("scenario")
@guarded
def check(scenario: str) -> None:
    """Validate a scenario and list every problem at once."""
    scen = load_scenario(scenario)
    problems = find_system(scen.system).problems(scen)
    if problems:
        _fail(problems)
    n_units = len(scen.units)
    click.echo(f"ok: {scen.system} scenario with {n_units} unit(s) on a {scen.board.width:g} x {scen.board.depth:g} {scen.unit} board")


def _request(scen: AnyScenario, charger: str, targets: tuple[str, ...], dice: str | None, roll: int | None, seed: int | None,
             modifier: int, reroll: str, reaction: str | None = None, reaction_dice: str | None = None,
             casualties: tuple[str, ...] = (), extra: dict[str, Any] | None = None) -> ChargeRequest:
    given = [x for x in (dice, roll) if x is not None]
    if len(given) > 1:
        raise RequestError(Problem("--dice/--roll", "give either --dice or --roll, not both"))
    return ChargeRequest(
        charger=charger,
        targets=tuple(targets),
        # 40k and T9A roll two dice; Warmaster takes one (a Revolution zone roll)
        dice=_parse_dice(dice, n=None if scen.system == "warmaster" else 2),
        roll=roll,
        modifier=modifier,
        reroll=reroll,
        seed=seed,
        reaction=reaction,
        reaction_dice=_parse_dice(reaction_dice, "--reaction-dice", None),
        casualties=tuple(casualties),
        extra=extra or {},
    )


_common_charge_options = [
    click.option("--charger", required=True, help="id of the charging unit"),
    click.option("--target", "targets", multiple=True, required=True, help="id of a target unit (repeat for several)"),
    click.option("--dice", default=None, help="fixed dice, e.g. 3,4"),
    click.option("--roll", type=int, default=None, help="a fixed roll total"),
    click.option("--seed", type=int, default=None, help="seed for rolling the dice"),
    click.option("--modifier", type=int, default=0, show_default=True),
    click.option("--reroll", type=click.Choice(["none", "failed", "one_die"]), default="none", show_default=True),
    click.option("--reaction", type=click.Choice(["hold", "stand_and_shoot", "flee"]), default=None, help="T9A charge reaction"),
    click.option("--reaction-dice", default=None, help="T9A flee dice, e.g. 2,5"),
    click.option("--casualty", "casualties", multiple=True, help="40k: a model removed by overwatch (repeat)"),
    click.option("--first-stand", default=None, help="Warmaster (Revolution): the stand that moves first"),
    click.option("--redirect", default=None, help="T9A: the unit to redirect to if the target flees"),
    click.option("--redirect-dice", default=None, help="T9A: the redirect Discipline test dice, e.g. 3,1"),
    click.option("--json", "as_json", is_flag=True, help="print the ruling as JSON"),
    click.option("--svg", default=None, help="write a drawing (SVG)"),
    click.option("--png", default=None, help="write a drawing (PNG; needs the [png] extra)"),
    click.option("--out", default=None, help="write the JSON ruling to this file"),
]


def charge_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    for opt in reversed(_common_charge_options):
        fn = opt(fn)
    return fn


def _emit(scen: AnyScenario, ruling: Ruling, as_json: bool, out: str | None, svg: str | None, png: str | None) -> None:
    data = ruling.to_json_data()
    text = json.dumps(data, indent=2)
    _write(out, text + "\n", "--out")
    _draw(scen, ruling, svg, png)
    click.echo(text if as_json else summary(scen, ruling))


@main.command()
@click.argument("scenario")
@charge_options
@guarded
def charge(scenario: str, charger: str, targets: tuple[str, ...], dice: str | None, roll: int | None, seed: int | None,
           modifier: int, reroll: str, reaction: str | None, reaction_dice: str | None, casualties: tuple[str, ...],
           first_stand: str | None, redirect: str | None, redirect_dice: str | None, as_json: bool, svg: str | None,
           png: str | None, out: str | None) -> None:
    """Rule on one charge: eligibility, needed roll, the roll, every model's move."""
    from dataclasses import replace

    scen = _load(scenario)
    extra = {"first_stand": first_stand} if first_stand else None
    req = _request(scen, charger, targets, dice, roll, seed, modifier, reroll, reaction, reaction_dice, casualties, extra)
    if redirect or redirect_dice:
        req = replace(req, redirect=redirect, redirect_dice=_parse_dice(redirect_dice, "--redirect-dice"))
    ruling = find_system(scen.system).charge(scen, req)
    _emit(scen, ruling, as_json, out, svg, png)


@main.command()
@click.argument("scenario")
@click.option("--unit", required=True, help="id of the intervening unit")
@click.option("--against", default=None, help="edition 10: the enemy unit that has just charged")
@click.option("--dice", default=None)
@click.option("--roll", type=int, default=None)
@click.option("--seed", type=int, default=None)
@click.option("--json", "as_json", is_flag=True)
@click.option("--svg", default=None)
@click.option("--png", default=None)
@click.option("--out", default=None)
@guarded
def heroic(scenario: str, unit: str, against: str | None, dice: str | None, roll: int | None, seed: int | None,
           as_json: bool, svg: str | None, png: str | None, out: str | None) -> None:
    """40k heroic intervention (edition 9: a 3" move; edition 10: a charge)."""
    scen = _load(scenario)
    if scen.system != "40k":
        raise RequestError(Problem("system", "heroic interventions are a 40k rule"))
    sysm = find_system("40k")
    if scen.rules.edition == 9:  # type: ignore[union-attr]
        ruling = sysm.heroic_intervention(scen, unit)  # type: ignore[attr-defined]
    else:
        if not against:
            raise RequestError(Problem("--against", "edition 10: name the enemy unit that has just charged"))
        req = _request(scen, unit, (against,), dice, roll, seed, 0, "none", extra={"heroic_intervention": True})
        ruling = sysm.charge(scen, req)
    _emit(scen, ruling, as_json, out, svg, png)


@main.command()
@click.argument("scenario")
@click.option("--charger", required=True)
@click.option("--target", "targets", multiple=True, required=True)
@click.option("--reroll", type=click.Choice(["none", "failed", "one_die"]), default="none", show_default=True)
@click.option("--modifier", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@guarded
def odds(scenario: str, charger: str, targets: tuple[str, ...], reroll: str, modifier: int, as_json: bool) -> None:
    """Exact probability that the charge succeeds."""
    from .dice import success_probability, table

    scen = _load(scenario)
    req = ChargeRequest(charger=charger, targets=tuple(targets), modifier=modifier, reroll=reroll)
    need = find_system(scen.system).needed(scen, req)
    if scen.system == "warmaster":
        p = Fraction(1) if need.distance is not None else Fraction(0)
        tab: dict[int, Fraction] = {}
    else:
        mod = modifier if scen.system == "40k" else 0
        p = success_probability(need.roll, mod, reroll)
        tab = table(mod, reroll)
    data = {
        "needed": need.model_dump(mode="json"),
        "modifier": modifier,
        "reroll": reroll,
        "probability": float(p),
        "probability_fraction": f"{p.numerator}/{p.denominator}",
        "table": {str(k): float(v) for k, v in tab.items()},
    }
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    n = need
    if n.roll is None and scen.system != "warmaster":
        click.echo(f"{charger} -> {', '.join(targets)}: no roll can succeed (probability 0)")
        return
    click.echo(f"{charger} -> {', '.join(targets)}: needs {_fmt(n.distance, scen.unit)}, a roll of {n.roll}")
    click.echo(f"probability of success: {float(p):.4f} ({p.numerator}/{p.denominator}) with re-roll '{reroll}', modifier {modifier:+d}")


@main.command()
@click.argument("scenario")
@click.option("--seed", type=int, default=None)
@click.option("--json", "as_json", is_flag=True)
@click.option("--svg", default=None)
@click.option("--png", default=None)
@click.option("--out", default=None)
@guarded
def phase(scenario: str, seed: int | None, as_json: bool, svg: str | None, png: str | None, out: str | None) -> None:
    """Resolve the scenario's `charges:` list in order, as one charge phase."""
    from .scenario import scenario_from_data

    scen = _load(scenario)
    if not scen.charges:
        raise RequestError(Problem("charges", "the scenario declares no charges"))
    system = find_system(scen.system)
    if sys.stderr.isatty() and len(scen.charges) > 1 and "progress" in system.phase.__code__.co_varnames:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("charges", total=len(scen.charges))

            def tick(i: int, n: int, what: str) -> None:
                bar.update(task, completed=i, description=f"charge {i + 1}/{n}: {what}")

            res = system.phase(scen, seed, progress=tick)  # type: ignore[call-arg]
    else:
        res = system.phase(scen, seed)
    data = res.to_json_data()
    text = json.dumps(data, indent=2)
    _write(out, text + "\n", "--out")
    if res.rulings:
        _draw(scen, res.rulings[-1], svg, png)
    else:
        _draw(scenario_from_data(res.after), None, svg, png)
    if as_json:
        click.echo(text)
        return
    for r in res.rulings:
        click.echo(summary(scen, r))
        click.echo("")


@main.command()
@click.argument("scenario")
@click.option("--svg", required=True)
@click.option("--png", default=None)
@guarded
def draw(scenario: str, svg: str, png: str | None) -> None:
    """Draw a scenario."""
    scen = _load(scenario)
    _draw(scen, None, svg, png)
    click.echo(f"wrote {svg}" + (f" and {png}" if png else ""))


@main.command()
@click.option("--which", type=click.Choice(["both", "scenario", "ruling"]), default="both", show_default=True)
def schema(which: str) -> None:
    """Print the JSON Schema of the scenario and ruling documents."""
    data: dict[str, Any] = {}
    if which in ("both", "scenario"):
        data["scenario"] = scenario_schema()
    if which in ("both", "ruling"):
        data["ruling"] = ruling_schema()
    if which != "both":
        data = data[which]
    click.echo(json.dumps(data, indent=2))


@main.command()
@click.argument("before")
@click.argument("ruling")
@guarded
def validate(before: str, ruling: str) -> None:
    """Re-check a ruling's end state from scratch (the independent checker)."""
    from .scenario import parse_text
    from .validate import validate_ruling

    scen = _load(before)
    try:
        data = parse_text(Path(ruling).read_text(encoding="utf-8"), ruling)
    except OSError:
        raise RequestError(Problem(ruling, "cannot read the ruling file")) from None
    probs = validate_ruling(scen, data)
    if probs:
        for p in probs:
            click.echo(f"violation: {p}")
        sys.exit(EXIT_REFUSED)
    click.echo("legal: the validator found no violations")


if __name__ == "__main__":  # pragma: no cover
    main()


# registered last: the fight command reuses this module's helpers
from .cli_fight import fight  # noqa: E402

main.add_command(fight)
