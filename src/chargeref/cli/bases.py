"""``chargeref bases``: the base catalogue, model name -> base."""

from __future__ import annotations

import json
import sys

import click

from ..catalogue import catalogue, closest, search
from ._common import EXIT_REFUSED, guarded, one_line


@click.command("bases")
@click.argument("query", required=False, default=None)
@click.option("--json", "as_json", is_flag=True, help="print the matches as JSON")
@guarded
def command(query: str | None, as_json: bool) -> None:
    """List the base catalogue's models matching QUERY (all without one).

    Matching ignores case, punctuation, plurals and a trailing "squad". With no match the
    closest names are suggested and the exit status is 2."""
    if query is not None and len(query) > 200:
        query = query[:200]
    hits = search(query)
    near = closest(query) if (query and not hits) else []
    if as_json:
        click.echo(json.dumps({
            "format": "chargeref-bases/1",
            "query": query,
            "matches": [e.as_json() for e in hits],
            "closest": near,
            "sources": [{"title": s.title, "url": s.url, "date": s.date, "read": s.read}
                        for s in catalogue().sources.values()],
        }, indent=2, ensure_ascii=False))
        if not hits:
            sys.exit(EXIT_REFUSED)
        return
    if not hits:
        hint = f"; closest: {', '.join(near)}" if near else ""
        click.echo(f"chargeref: {one_line(query or '')}: no match in the base catalogue{hint}", err=True)
        sys.exit(EXIT_REFUSED)
    width = min(40, max(len(e.name) for e in hits))
    for e in hits:
        aka = f"  (also: {', '.join(e.aliases)})" if e.aliases else ""
        click.echo(f"{e.name:<{width}}  {e.base_text:<16} {e.faction:<22} [{e.source.id}]{aka}")
    used = {e.source.id: e.source for e in hits}
    for sid, s in used.items():
        click.echo(f"[{sid}] {s.title}, {s.url} ({s.date}; read {s.read})")
