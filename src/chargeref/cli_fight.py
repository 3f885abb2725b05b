"""``chargeref fight``: a 40k unit's pile in and consolidation, and who may attack whom.

Registered on the main group by ``cli.py`` (``main.add_command(fight)``).
"""

from __future__ import annotations

import json
from typing import Any

import click

from .cli import _draw, _load, _write, guarded, summary
from .errors import Problem, RequestError
from .ruling import Move, Ruling
from .scenario import Scenario40k, scenario_from_data

KIND_TEXT = {"er": "engagement range", "token": 'token, 2" across a wall', "barricade": 'across a barricade, 2"'}


def attack_lines(attacks: dict[str, list[str]], links: list[dict[str, Any]], title: str) -> list[str]:
    """The attack table: every model, the enemy units it may attack and how."""
    how: dict[tuple[str, str], set[str]] = {}
    for lk in links:
        how.setdefault((lk["model"], lk["unit"]), set()).add(lk["kind"])
    lines = [title]
    for mid, units in attacks.items():
        if not units:
            lines.append(f"  {mid:<10} -")
            continue
        parts = []
        for u in units:
            kinds = how.get((mid, u))
            why = ", ".join(KIND_TEXT[k] for k in sorted(kinds)) if kinds else "through a friend (chain)"
            parts.append(f"{u} ({why})")
        lines.append(f"  {mid:<10} {'; '.join(parts)}")
    return lines


def _draw_fight(scen: Scenario40k, ruling: Ruling, title: str, svg: str | None, png: str | None) -> None:
    """The drawing of a fight-phase ruling, titled as such."""
    _draw(scen, ruling, svg, png, title=title)


def _combined(first: Ruling, second: Ruling) -> Ruling:
    """One ruling for the drawing of pile in + consolidation: each model from where it
    stood to where it ends, along both paths."""
    a = {m.id: m for m in first.moves}
    b = {m.id: m for m in second.moves}
    moves: list[Move] = []
    for mid in list(a) + [k for k in b if k not in a]:
        m1, m2 = a.get(mid), b.get(mid)
        if m1 and m2:
            path = (m1.path or [m1.from_[:2], m1.to[:2]]) + (m2.path or [m2.from_[:2], m2.to[:2]])[1:]
            moves.append(Move.model_validate({"id": mid, "from": m1.from_, "to": m2.to, "distance": round(m1.distance + m2.distance, 6),
                                              "contacts": m2.contacts, "token": m2.token, "path": path}))
        else:
            moves.append(m1 or m2)  # type: ignore[arg-type]
    return second.model_copy(update={"moves": moves, "procedure": "pile_in_consolidate", "reasons": first.reasons + second.reasons})


@click.command("fight")
@click.argument("scenario")
@click.option("--unit", required=True, help="id of the unit that fights")
@click.option("--step", type=click.Choice(["pile_in", "consolidate", "both", "who"]), default="both", show_default=True,
              help="which move to make ('who': only say who may attack whom)")
@click.option("--keep-token", "keep", multiple=True,
              help="a model held still (repeat); a token model held still when it could pile in drops its token")
@click.option("--stay", multiple=True, help="same as --keep-token, for models without a token")
@click.option("--json", "as_json", is_flag=True, help="print the ruling(s) as JSON")
@click.option("--svg", default=None, help="write a drawing (SVG)")
@click.option("--png", default=None, help="write a drawing (PNG; needs the [png] extra)")
@click.option("--out", default=None, help="write the JSON to this file")
@guarded
def fight(scenario: str, unit: str, step: str, keep: tuple[str, ...], stay: tuple[str, ...], as_json: bool,
          svg: str | None, png: str | None, out: str | None) -> None:
    """40k fight phase: pile in, consolidate, and which models may attack which units
    (WTC walls tokens included)."""
    from .systems.w40k.fight import consolidate, pile_in, who_fights

    scen = _load(scenario)
    if not isinstance(scen, Scenario40k):
        raise RequestError(Problem("system", "the fight phase is a 40k rule"))
    held = set(keep) | set(stay)
    if step == "who":
        info = who_fights(scen, unit)
        text = json.dumps(info, indent=2)
        _write(out, text + "\n", "--out")
        _draw(scen, None, svg, png)
        if as_json:
            click.echo(text)
            return
        state = "in combat" if info["in_combat"] else ("not in combat, but charged this turn" if info["may_fight"] else "not in combat")
        click.echo(f"40k who fights: {unit} ({state}; engaged with {', '.join(info['engaged']) or 'nobody'})")
        if info["tokens"]:
            click.echo(f"  tokens: {', '.join(info['tokens'])} (through walls against {', '.join(info['token_targets'])})")
        if info["token_partners"]:
            click.echo(f"  fights back at 2\" against the tokens of {', '.join(info['token_partners'])}")
        for line in attack_lines(info["attacks"], info["links"], "attacks:"):
            click.echo(line)
        return
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
            cur = scenario_from_data(r.after)
    if len(rulings) == 1:
        data: dict[str, Any] = rulings[0].to_json_data()
        drawn = rulings[0]
        if step == "both":
            data = {"format": "chargeref-fight/1", "unit": unit, "steps": [data], "attacks": {}, "after": rulings[0].after}
    else:
        data = {
            "format": "chargeref-fight/1",
            "unit": unit,
            "steps": [r.to_json_data() for r in rulings],
            "attacks": rulings[0].details.get("attacks", {}),
            "after": rulings[-1].after,
        }
        drawn = _combined(rulings[0], rulings[1])
    text = json.dumps(data, indent=2)
    _write(out, text + "\n", "--out")
    what = {"pile_in": "piles in", "consolidate": "consolidates"}.get(step, "piles in and consolidates")
    _draw_fight(scen, drawn, f"Fight phase: {unit} {what}", svg, png)
    if as_json:
        click.echo(text)
        return
    for r, before in zip(rulings, befores, strict=True):
        click.echo(summary(before, r))
        d = r.details
        when = "after the pile in" if r.procedure == "pile_in" else "after consolidating"
        click.echo("\n".join(attack_lines(d.get("attacks", {}), d.get("links", []), f"attacks ({when}):")))
        toks = d.get("tokens", {})
        if toks.get("before") or toks.get("after"):
            click.echo(f"  tokens: {', '.join(toks.get('before', [])) or '-'} -> {', '.join(toks.get('after', [])) or '-'}")
        click.echo("")


__all__ = ["fight"]
