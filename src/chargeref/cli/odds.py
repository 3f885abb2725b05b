"""``chargeref odds``: the exact chance that a charge succeeds."""

from __future__ import annotations

import json

import click

from .. import service
from ._common import (
    MODIFIER_HELP,
    guarded,
    limits_for,
    max_bytes_option,
    read_scenario,
    time_limit_option,
)
from ._text import _fmt, choices_lines


@click.command("odds")
@click.argument("scenario")
@click.option("--charger", required=True, help="id of the charging unit")
@click.option("--target", "targets", multiple=True, help="id of a target unit (repeat for several)")
@click.option("--reroll", type=click.Choice(["none", "failed", "one_die"]), default="none", show_default=True)
@click.option("--modifier", type=int, default=0, show_default=True, help=MODIFIER_HELP)
@click.option("--stratagem", type=click.Choice(["leap_to_defend", "into_the_fray"]), default=None,
              help="40k edition 11: the odds of a heroic intervention stratagem charge")
@click.option("--json", "as_json", is_flag=True, help="print the answer as JSON")
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, charger: str, targets: tuple[str, ...], reroll: str, modifier: int, stratagem: str | None,
            as_json: bool, time_limit: float, max_bytes: int | None) -> None:
    """Exact probability that the charge succeeds."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    data = service.odds(scen, charger, targets, reroll=reroll, modifier=modifier, time_limit=time_limit,
                        stratagem=stratagem)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    if "choices" in data:  # edition 11: per target set
        click.echo("\n".join(choices_lines(data, scen.unit, f"{charger}: odds per target set (edition 11)")))
        return
    n = data["needed"]
    if n.get("roll") is None and scen.system != "warmaster":
        click.echo(f"{charger} -> {', '.join(targets)}: no roll can succeed (probability 0)")
        return
    num, den = data["probability_fraction"].split("/")
    click.echo(f"{charger} -> {', '.join(targets)}: needs {_fmt(n.get('distance'), scen.unit)}, a roll of {n.get('roll')}")
    click.echo(f"probability of success: {data['probability']:.4f} ({num}/{den}) with re-roll '{reroll}', "
               f"modifier {modifier:+d}")
