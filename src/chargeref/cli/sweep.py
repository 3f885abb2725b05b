"""``chargeref sweep``: every charge of many scenario files, one JSON line per ruling."""

from __future__ import annotations

import click

from ..batch import sweep
from ._batch import batch_options, progress_bar
from ._common import guarded, limits_for, max_bytes_option, time_limit_option


@click.command("sweep")
@click.argument("files", nargs=-1, required=True)
@click.option("--out", required=True, help="the JSON-lines file to write (appended to; a rerun resumes)")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True,
              help="seed for the dice a charges: entry does not give")
@batch_options
@time_limit_option
@max_bytes_option
@guarded
def command(files: tuple[str, ...], out: str, seed: int, workers: int | None, scheduler: str | None,
            time_limit: float, max_bytes: int | None) -> None:
    """Rule every charge of FILES into one JSON line each (resumable)."""
    from ..errors import Problem, RequestError
    from ._common import _same_file

    clash = [f for f in files if _same_file(f, out)]
    if clash:
        raise RequestError(Problem("--out", f"{out} is an input of this command; choose another file"))
    with progress_bar("sweep: charges") as tick:
        s = sweep(list(files), out, workers=workers, scheduler=scheduler, progress=tick, seed=seed,
                  seconds=time_limit or None, limits=limits_for(max_bytes))
    click.echo(f"{s.written} line(s) written to {out} ({s.errors} refused), {s.skipped} already done")
