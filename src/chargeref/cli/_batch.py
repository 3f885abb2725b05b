"""What ``threat`` and ``sweep`` share: where the work runs, and a progress bar on a
terminal (none when stderr is piped)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

workers_option = click.option(
    "--workers", type=click.IntRange(min=1, max=1024), default=None,
    help="start a local Dask cluster of N worker processes (needs the [distributed] extra); "
         "default: a local process pool")
scheduler_option = click.option(
    "--scheduler", default=None, metavar="ADDRESS",
    help="run on an existing Dask cluster, e.g. tcp://127.0.0.1:8786 (needs the [distributed] extra)")


def batch_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    return workers_option(scheduler_option(fn))


@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing a rich bar on a terminal, else None."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield tick
