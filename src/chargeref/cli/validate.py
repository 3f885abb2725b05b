"""``chargeref validate``: re-check a ruling's end state with the independent checker."""

from __future__ import annotations

import sys

import click

from .. import service
from ..budget import time_limit as limit_time
from ._common import (
    EXIT_REFUSED,
    guarded,
    limits_for,
    max_bytes_option,
    read_document,
    read_scenario,
    time_limit_option,
)


@click.command("validate")
@click.argument("before")
@click.argument("ruling")
@time_limit_option
@max_bytes_option
@guarded
def command(before: str, ruling: str, time_limit: float, max_bytes: int | None) -> None:
    """Re-check a ruling's end state from scratch (the independent checker).

    Exit 0: legal; 2: a violation (one line each) or a refused file."""
    limits = limits_for(max_bytes)
    with limit_time(time_limit, "the validation"):
        scen = read_scenario(before, limits)
        doc = read_document(ruling, limits)
        res = service.validate(scen, doc)
    if not res["legal"]:
        for v in res["violations"]:
            who = f" [{', '.join(v['models'])}]" if v["models"] else ""
            click.echo(f"violation: {v['code']}: {' '.join(v['message'].split())}{who}")
        sys.exit(EXIT_REFUSED)
    click.echo("legal: the validator found no violations")
