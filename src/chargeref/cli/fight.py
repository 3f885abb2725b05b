"""``chargeref fight``: a 40k unit's pile in and consolidation, and who may attack whom.

One of the command modules of :mod:`chargeref.cli` (registered from ``COMMANDS``).
"""

from __future__ import annotations

import json
from typing import Any

import click

from .. import service
from ..ruling import Move, Ruling
from ._common import (
    Outputs,
    add_drawing,
    guarded,
    limits_for,
    max_bytes_option,
    output_options,
    read_scenario,
    time_limit_option,
)
from ._text import summary

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
@click.option("--step", type=click.Choice(list(service.FIGHT_STEPS)), default="both", show_default=True,
              help="which move to make ('who': only say who may attack whom)")
@click.option("--keep-token", "keep", multiple=True,
              help="a model held still (repeat); a token model held still when it could pile in drops its token")
@click.option("--stay", multiple=True, help="same as --keep-token, for models without a token")
@output_options()
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, unit: str, step: str, keep: tuple[str, ...], stay: tuple[str, ...], as_json: bool,
            svg: str | None, png: str | None, out: str | None, time_limit: float, max_bytes: int | None) -> None:
    """40k fight phase: pile in, consolidate, and which models may attack which units
    (WTC walls tokens included)."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    data, rulings, befores = service.fight_rulings(scen, unit, step, list(keep) + list(stay), time_limit=time_limit)
    text = json.dumps(data, indent=2)
    outs = Outputs([scenario])
    outs.add(out, text + "\n", "--out")
    if step == "who":
        add_drawing(outs, scen, None, svg, png)
        outs.commit()
        if as_json:
            click.echo(text)
            return
        info = data
        state = "in combat" if info["in_combat"] else ("not in combat, but charged this turn" if info["may_fight"] else "not in combat")
        click.echo(f"40k who fights: {unit} ({state}; engaged with {', '.join(info['engaged']) or 'nobody'})")
        if info["tokens"]:
            click.echo(f"  tokens: {', '.join(info['tokens'])} (through walls against {', '.join(info['token_targets'])})")
        if info["token_partners"]:
            click.echo(f"  fights back at 2\" against the tokens of {', '.join(info['token_partners'])}")
        for line in attack_lines(info["attacks"], info["links"], "attacks:"):
            click.echo(line)
        return
    drawn = rulings[0] if len(rulings) == 1 else _combined(rulings[0], rulings[1])
    what = {"pile_in": "piles in", "consolidate": "consolidates"}.get(step, "piles in and consolidates")
    add_drawing(outs, scen, drawn, svg, png, title=f"Fight phase: {unit} {what}")
    outs.commit()
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


fight = command

__all__ = ["attack_lines", "command", "fight"]
