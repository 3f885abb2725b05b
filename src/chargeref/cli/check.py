"""``chargeref check``: validate a scenario and list every problem at once."""

from __future__ import annotations

import click

from ..budget import time_limit as limit_time
from ._common import guarded, limits_for, max_bytes_option, read_scenario, time_limit_option


@click.command("check")
@click.argument("scenario")
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, time_limit: float, max_bytes: int | None) -> None:
    """Validate a scenario and list every problem at once."""
    with limit_time(time_limit, "the check"):
        scen = read_scenario(scenario, limits_for(max_bytes))
    click.echo(f"ok: {scen.system} scenario with {len(scen.units)} unit(s) on a "
               f"{scen.board.width:g} x {scen.board.depth:g} {scen.unit} board")
