"""``chargeref serve``: the web board and its JSON API (the ``[web]`` extra)."""

from __future__ import annotations

import click

from ..errors import Problem, RequestError
from ._common import guarded

WEB_EXTRA_MESSAGE = "the web board needs the [web] extra: pip install 'chargeref[web]'"


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to listen on (the default answers this machine only)")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=8000, show_default=True)
@click.option("--time-limit", "time_limit", type=click.FloatRange(min=0, max=86400), default=60.0, show_default=True,
              help="seconds one ruling may take before the request answers 503; 0: no limit")
@click.option("--workers", "max_concurrent", type=click.IntRange(min=1, max=64), default=4, show_default=True,
              help="rulings computed at once (more requests wait in line)")
@guarded
def command(host: str, port: int, time_limit: float, max_concurrent: int) -> None:
    """Start the web board: set up a table in the browser, drag models, see the ruling."""
    try:
        import uvicorn

        from ..web import create_app
    except ImportError:
        raise RequestError(Problem("serve", WEB_EXTRA_MESSAGE)) from None
    app = create_app(time_limit=time_limit, max_concurrent=max_concurrent)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"chargeref board on http://{shown}:{port}/  (Ctrl+C stops it)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
