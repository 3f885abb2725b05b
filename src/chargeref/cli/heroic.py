"""``chargeref heroic``: a 40k heroic intervention."""

from __future__ import annotations

import click

from .. import service
from ._common import (
    DICE_HELP,
    ROLL_HELP,
    SEED_HELP,
    guarded,
    limits_for,
    max_bytes_option,
    output_options,
    read_scenario,
    time_limit_option,
)
from .charge import emit


@click.command("heroic")
@click.argument("scenario")
@click.option("--unit", required=True, help="id of the intervening unit")
@click.option("--against", default=None, help="edition 10: the enemy unit that has just charged; edition 11: the "
              "target (leave out to list the choices after the roll)")
@click.option("--stratagem", type=click.Choice(["leap_to_defend", "into_the_fray"]), default=None,
              help="edition 11: Leap to Defend (default) or Into the Fray")
@click.option("--dice", default=None, help=DICE_HELP)
@click.option("--roll", type=int, default=None, help=ROLL_HELP)
@click.option("--seed", type=int, default=None, help=SEED_HELP)
@output_options()
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, unit: str, against: str | None, stratagem: str | None, dice: str | None, roll: int | None,
            seed: int | None, as_json: bool, svg: str | None, png: str | None, out: str | None, time_limit: float,
            max_bytes: int | None) -> None:
    """40k heroic intervention (edition 9: a 3" move; editions 10 and 11: a stratagem charge)."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    ruling = service.heroic_ruling(scen, unit, against=against, dice=dice, roll=roll, seed=seed, time_limit=time_limit,
                                   stratagem=stratagem)
    emit(scenario, scen, ruling, as_json, out, svg, png)
