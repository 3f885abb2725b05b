"""``chargeref threat``: the exact chance that the enemy charges a unit, at every spot."""

from __future__ import annotations

import json
import math

import click
import numpy as np

from ..batch import threat_map
from ..errors import Problem, RequestError
from ..render.threat import render_threat_svg
from ._batch import batch_options, progress_bar
from ._common import (
    Outputs,
    guarded,
    limits_for,
    max_bytes_option,
    read_scenario,
    time_limit_option,
)


@click.command("threat")
@click.argument("scenario")
@click.option("--unit", required=True, help="id of the unit that might be charged (B)")
@click.option("--step", type=float, default=1.0, show_default=True, help="grid spacing, in the scenario's unit")
@click.option("--svg", default=None, help="write the heat map (SVG)")
@click.option("--png", default=None, help="write the heat map (PNG; needs the [png] extra)")
@click.option("--out", default=None, help="write the JSON map to this file")
@click.option("--json", "as_json", is_flag=True, help="print the map as JSON (chargeref-threat/1)")
@batch_options
@time_limit_option
@max_bytes_option
@guarded
def command(scenario: str, unit: str, step: float, svg: str | None, png: str | None, out: str | None, as_json: bool,
            workers: int | None, scheduler: str | None, time_limit: float, max_bytes: int | None) -> None:
    """Where can UNIT stand so that nothing charges it? Exact odds at every spot."""
    scen = read_scenario(scenario, limits_for(max_bytes))
    if not math.isfinite(step) or step <= 0:
        raise RequestError(Problem("--step", f"the step must be a positive number (got {step:g})"))
    planned = Outputs([scenario])
    for path, option in ((out, "--out"), (svg, "--svg"), (png, "--png")):
        planned.add(path, b"", option)
    planned.check()  # refuse a bad output path before the long work
    outs = Outputs([scenario])
    with progress_bar(f"threat to {unit}: rows") as tick:
        tm = threat_map(scen, unit, step, workers=workers, scheduler=scheduler, progress=tick,
                        seconds=time_limit or None)
    data = tm.to_json_data()
    text = json.dumps(data)
    outs.add(out, text + "\n", "--out")
    if svg or png:
        picture = render_threat_svg(scen, tm)
        outs.add(svg, picture, "--svg")
        if png:
            from ..render import render_png

            try:
                outs.add(png, render_png(picture), "--png")
            except RuntimeError as exc:
                raise RequestError(Problem("--png", str(exc))) from None
    outs.commit()
    if as_json:
        click.echo(text)
        return
    p = tm.probability
    stand = ~np.isnan(p)
    n_stand = int(stand.sum())
    click.echo(f"threat to {unit}: {len(tm.x)} x {len(tm.y)} spots {step:g} {scen.unit} apart, "
               f"{n_stand} where {unit} can stand")
    if n_stand == 0:
        return
    safe = int((p[stand] == 0).sum())
    j, i = divmod(int(np.nanargmax(p)), p.shape[1])
    click.echo(f"safe spots (no enemy charge can succeed): {safe}")
    click.echo(f"highest threat: {p[j, i]:.4f} at ({tm.x[i]:g}, {tm.y[j]:g})")
    for e, a in tm.by.items():
        reach = int((a[stand] > 0).sum())
        click.echo(f"  {e}: can charge at {reach} spots, at most {np.nanmax(a):.4f}")
