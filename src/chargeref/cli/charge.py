"""``chargeref charge``: rule on one charge."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from .. import service
from ..ruling import Ruling
from ..scenario import AnyScenario
from ._common import (
    DICE_HELP,
    MODIFIER_HELP,
    ROLL_HELP,
    SEED_HELP,
    Outputs,
    add_drawing,
    apply,
    guarded,
    limits_for,
    max_bytes_option,
    output_options,
    read_scenario,
    time_limit_option,
)
from ._text import summary

charge_options = apply([
    click.option("--charger", required=True, help="id of the charging unit"),
    click.option("--target", "targets", multiple=True, help="id of a target unit (repeat for several)"),
    click.option("--dice", default=None, help=DICE_HELP),
    click.option("--roll", type=int, default=None, help=ROLL_HELP),
    click.option("--seed", type=int, default=None, help=SEED_HELP),
    click.option("--modifier", type=int, default=0, show_default=True, help=MODIFIER_HELP),
    click.option("--reroll", type=click.Choice(["none", "failed", "one_die"]), default="none", show_default=True),
    click.option("--reaction", type=click.Choice(["hold", "stand_and_shoot", "flee"]), default=None, help="T9A charge reaction"),
    click.option("--reaction-dice", default=None, help="T9A flee dice, e.g. 2,5 (three with Swiftstride)"),
    click.option("--casualty", "casualties", multiple=True, help="40k: a model removed by overwatch (repeat)"),
    click.option("--first-stand", default=None, help="Warmaster (Revolution): the stand that moves first"),
    click.option("--redirect", default=None, help="T9A: the unit to redirect to if the target flees"),
    click.option("--redirect-dice", default=None, help="T9A: the redirect Discipline test dice, e.g. 3,1"),
    output_options(),
    time_limit_option,
    max_bytes_option,
])


def emit(scenario: str, scen: AnyScenario, ruling: Ruling, as_json: bool, out: str | None, svg: str | None,
         png: str | None, text: Callable[[], str] | None = None) -> None:
    """Build every output in memory, write the files (never onto the input), then print."""
    data = ruling.to_json_data()
    js = json.dumps(data, indent=2)
    outs = Outputs([scenario])
    outs.add(out, js + "\n", "--out")
    add_drawing(outs, scen, ruling, svg, png)
    outs.commit()
    click.echo(js if as_json else (text() if text else summary(scen, ruling)))


@click.command("charge")
@click.argument("scenario")
@charge_options
@guarded
def command(scenario: str, charger: str, targets: tuple[str, ...], dice: str | None, roll: int | None, seed: int | None,
            modifier: int, reroll: str, reaction: str | None, reaction_dice: str | None, casualties: tuple[str, ...],
            first_stand: str | None, redirect: str | None, redirect_dice: str | None, as_json: bool, svg: str | None,
            png: str | None, out: str | None, time_limit: float, max_bytes: int | None) -> None:
    """Rule on one charge: eligibility, needed roll, the roll, every model's move."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    extras: dict[str, Any] = {}
    for key, val in (("reaction", reaction), ("reaction_dice", reaction_dice), ("first_stand", first_stand),
                     ("redirect", redirect), ("redirect_dice", redirect_dice)):
        if val is not None:
            extras[key] = val
    if casualties:
        extras["casualties"] = list(casualties)
    ruling = service.charge_ruling(scen, charger, targets, dice=dice, roll=roll, seed=seed, reroll=reroll,
                                   modifier=modifier, time_limit=time_limit, **extras)
    emit(scenario, scen, ruling, as_json, out, svg, png)
