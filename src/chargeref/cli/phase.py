"""``chargeref phase``: resolve the scenario's ``charges:`` in order."""

from __future__ import annotations

import json
import sys

import click

from .. import service
from ..scenario import scenario_from_data
from ._common import (
    SEED_HELP,
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


@click.command("phase")
@click.argument("scenario")
@click.option("--seed", type=int, default=None, help=SEED_HELP)
@output_options()
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, seed: int | None, as_json: bool, svg: str | None, png: str | None, out: str | None,
            time_limit: float, max_bytes: int | None) -> None:
    """Resolve the scenario's `charges:` list in order, as one charge phase."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    if sys.stderr.isatty() and len(scen.charges) > 1:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("charges", total=len(scen.charges))

            def tick(i: int, n: int, what: str) -> None:
                bar.update(task, completed=i, description=f"charge {i + 1}/{n}: {what}")

            res = service.phase_result(scen, seed, time_limit=time_limit, progress=tick)
    else:
        res = service.phase_result(scen, seed, time_limit=time_limit)
    data = res.to_json_data()
    text = json.dumps(data, indent=2)
    outs = Outputs([scenario])
    outs.add(out, text + "\n", "--out")
    if res.rulings:
        add_drawing(outs, scen, res.rulings[-1], svg, png)
    else:
        add_drawing(outs, scenario_from_data(res.after), None, svg, png)
    outs.commit()
    if as_json:
        click.echo(text)
        return
    for r in res.rulings:
        click.echo(summary(scen, r))
        click.echo("")
