"""The web board: ``chargeref serve`` starts it (FastAPI and uvicorn, the ``[web]``
extra). ``create_app()`` builds the application: the page at ``/`` (plain JavaScript
and SVG, no build step, nothing from the network) and the JSON API of the contract."""

from .app import MAX_BODY, create_app

__all__ = ["MAX_BODY", "create_app"]
