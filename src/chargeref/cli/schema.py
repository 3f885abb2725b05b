"""``chargeref schema``: the JSON Schema of the scenario and ruling documents."""

from __future__ import annotations

import json
from typing import Any

import click

from ..ruling import ruling_schema
from ..scenario import scenario_schema


@click.command("schema")
@click.option("--which", type=click.Choice(["both", "scenario", "ruling"]), default="both", show_default=True)
def command(which: str) -> None:
    """Print the JSON Schema of the scenario and ruling documents."""
    data: dict[str, Any] = {}
    if which in ("both", "scenario"):
        data["scenario"] = scenario_schema()
    if which in ("both", "ruling"):
        data["ruling"] = ruling_schema()
    if which != "both":
        data = data[which]
    click.echo(json.dumps(data, indent=2))
