"""``chargeref check``: validate a scenario and list every problem at once."""

from __future__ import annotations

import click

from ._common import guarded, limits_for, max_bytes_option, read_scenario


@click.command("check")
@click.argument("scenario")
@max_bytes_option
@guarded
def command(scenario: str, max_bytes: int | None) -> None:
    """Validate a scenario and list every problem at once."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    click.echo(f"ok: {scen.system} scenario with {len(scen.units)} unit(s) on a "
               f"{scen.board.width:g} x {scen.board.depth:g} {scen.unit} board")
