"""``chargeref draw``: a picture of a scenario."""

from __future__ import annotations

import click

from ..budget import time_limit as limit_time
from ._common import (
    Outputs,
    add_drawing,
    guarded,
    limits_for,
    max_bytes_option,
    read_scenario,
    time_limit_option,
)


@click.command("draw")
@click.argument("scenario")
@click.option("--svg", required=True, help="write the drawing (SVG)")
@click.option("--png", default=None, help="also write a PNG (needs the [png] extra)")
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, svg: str, png: str | None, time_limit: float, max_bytes: int | None) -> None:
    """Draw a scenario."""
    with limit_time(time_limit, "the drawing"):
        scen = read_scenario(scenario, limits_for(max_bytes))
        outs = Outputs([scenario])
        add_drawing(outs, scen, None, svg, png)
    outs.commit()
    click.echo(f"wrote {svg}" + (f" and {png}" if png else ""))
