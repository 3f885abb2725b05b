"""The web board's server: the page at ``/`` and the JSON API of the contract.

``create_app()`` builds a FastAPI application. Every ruling runs in a worker thread
under the server's time limit (``chargeref.budget``), at most ``max_concurrent`` at a
time (more wait up to ``queue_wait`` seconds, then answer 503). Bodies over
``MAX_BODY`` bytes answer 413, whether announced by Content-Length or only seen while
streaming. Input the program refuses answers 400 (not a readable document) or 422 (a
document that names something wrong) with ``{"error": "<field>: <problem>"}``; 500 is
left for real bugs. No request reads or writes a file of the server: scenarios come in
the body, examples from a fixed list shipped in the package.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles

from .. import service
from ..budget import DEFAULT_SECONDS, WorkLimitExceeded
from ..errors import ChargerefError, Problem
from ..render.style import style_text
from . import ops

#: the largest request body accepted, in bytes (1 MB)
MAX_BODY = 1_000_000
#: rulings computed at once; more requests wait in line
DEFAULT_CONCURRENCY = 4
#: seconds a request may wait for a free slot before answering 503
DEFAULT_QUEUE_WAIT = 60.0


class BadRequest(Exception):
    """The body is not a document we can read (answered 400)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.problem = Problem(field, message)


class TooLarge(Exception):
    """The body is over the size limit (answered 413)."""


class Busy(Exception):
    """No free slot within the queue wait (answered 503)."""


def _version() -> str:
    try:
        return version("chargeref")
    except PackageNotFoundError:  # running from a source tree
        return "0+unknown"


def _error(status: int, problems: list[Problem] | Problem | str) -> JSONResponse:
    if isinstance(problems, str):
        problems = [Problem("", problems)]
    elif isinstance(problems, Problem):
        problems = [problems]
    text = "; ".join(str(p) for p in problems)
    return JSONResponse(
        {"error": text, "problems": [{"field": p.field, "message": p.message} for p in problems]},
        status_code=status,
    )


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request body, refused (TooLarge) when Content-Length says more than
    ``limit`` bytes or when more than that arrives."""
    announced = request.headers.get("content-length")
    if announced is not None:
        try:
            if int(announced) > limit:
                raise TooLarge()
        except ValueError:
            raise BadRequest("Content-Length", "not a number") from None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge()
        chunks.append(chunk)
    return b"".join(chunks)


def _json_object(body: bytes) -> dict[str, Any]:
    """A JSON object body (the charge, odds, draw and needed requests)."""
    if not body.strip():
        raise BadRequest("body", "empty; send a JSON object")
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadRequest("body", "not UTF-8 text") from None
    except RecursionError:
        raise BadRequest("body", "nested too deeply") from None
    except ValueError as exc:
        raise BadRequest("body", f"not valid JSON ({exc.args[0].split(':')[0] if exc.args else 'syntax'})") from None
    if not isinstance(data, dict):
        raise BadRequest("body", "must be a JSON object")
    return data


_KNOWN = {
    "charge": {"scenario", "charger", "targets", "dice", "roll", "seed", "reroll", "modifier", *ops.CHARGE_EXTRAS},
    "odds": {"scenario", "charger", "targets", "reroll", "modifier"},
    "draw": {"scenario", "ruling", "whole_board", "bare"},
    "needed": {"scenario", "charger", "targets", "reroll", "modifier"},
    "threat": {"scenario", "unit", "step", "rows"},
}


def _fields(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    extra = sorted(set(data) - _KNOWN[kind])
    if extra:
        raise BadRequest(extra[0], f"unknown field (known: {', '.join(sorted(_KNOWN[kind]))})")
    if "scenario" not in data:
        raise BadRequest("scenario", "missing: send the scenario document")
    return data


def _examples() -> list[dict[str, Any]]:
    text = resources.files("chargeref.web").joinpath("examples/index.json").read_text(encoding="utf-8")
    items: list[dict[str, Any]] = json.loads(text)["examples"]
    return items


def create_app(
    time_limit: float = DEFAULT_SECONDS,
    max_concurrent: int = DEFAULT_CONCURRENCY,
    queue_wait: float = DEFAULT_QUEUE_WAIT,
) -> FastAPI:
    """The board and its API. ``time_limit``: seconds per ruling (503 past it)."""
    app = FastAPI(title="chargeref", version=_version(), docs_url="/api/docs", redoc_url=None,
                  openapi_url="/api/openapi.json")
    app.state.time_limit = time_limit
    app.state.queue_wait = queue_wait
    # a thread semaphore: the wait and the work happen in the same worker thread, so
    # waiting requests never hold up running ones (and any event loop may call it)
    slots = threading.BoundedSemaphore(max(1, int(max_concurrent)))
    examples = {e["name"]: e for e in _examples()}

    def guarded(fn: Callable[[], Any]) -> Any:
        if not slots.acquire(timeout=app.state.queue_wait):
            raise Busy()
        try:
            return fn()
        finally:
            slots.release()

    async def run(fn: Callable[[], Any]) -> Any:
        """Run a ruling in a worker thread, at most ``max_concurrent`` at once; more
        wait up to ``queue_wait`` seconds (then 503)."""
        return await run_in_threadpool(guarded, fn)

    # ------------------------------------------------------------ errors

    @app.exception_handler(BadRequest)
    async def _bad(_: Request, exc: BadRequest) -> JSONResponse:
        return _error(400, exc.problem)

    @app.exception_handler(TooLarge)
    async def _large(_: Request, exc: TooLarge) -> JSONResponse:
        return _error(413, Problem("body", f"larger than {MAX_BODY} bytes"))

    @app.exception_handler(Busy)
    async def _busy(_: Request, exc: Busy) -> JSONResponse:
        return _error(503, Problem("server", "busy: every ruling slot stayed taken; try again"))

    @app.exception_handler(WorkLimitExceeded)
    async def _slow(_: Request, exc: WorkLimitExceeded) -> JSONResponse:
        return _error(503, exc.problems)

    @app.exception_handler(ChargerefError)
    async def _refused(_: Request, exc: ChargerefError) -> JSONResponse:
        return _error(422, exc.problems)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # a wrong path or method: the same error shape as every other refusal (with
        # FastAPI's own "detail" kept for clients that read it)
        path = request.url.path[:80]
        if exc.status_code == 404:
            problem = Problem("path", f"no page or endpoint {path!r}")
        elif exc.status_code == 405:
            problem = Problem("method", f"{request.method} is not allowed on {path}")
        else:
            problem = Problem("", str(exc.detail))
        resp = _error(exc.status_code, problem)
        body = json.loads(resp.body)
        body["detail"] = exc.detail
        return JSONResponse(body, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(_: Request, exc: Exception) -> JSONResponse:
        # only real bugs arrive here: refused input is answered above
        return _error(500, Problem("server", f"internal error ({exc.__class__.__name__}); this is a bug"))

    # ------------------------------------------------------------ page

    static = resources.files("chargeref.web").joinpath("static")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse(static.joinpath("index.html").read_text(encoding="utf-8"))

    app.mount("/static", StaticFiles(packages=[("chargeref.web", "static")]), name="static")

    @app.get("/api/style")
    async def style() -> Response:
        return Response(style_text(), media_type="application/json")

    # ------------------------------------------------------------ API

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "version": _version()}

    @app.get("/api/examples")
    async def example_list() -> dict[str, Any]:
        return {"examples": [{k: v for k, v in e.items() if k != "source"} for e in examples.values()]}

    @app.get("/api/examples/{name}")
    async def example(name: str) -> Any:
        e = examples.get(name)
        if e is None:
            return _error(404, Problem("name", f"no bundled example {name[:60]!r}"))
        text = resources.files("chargeref.web").joinpath(f"examples/{name}.yaml").read_text(encoding="utf-8")
        doc = ops.load_document(text.encode("utf-8"), name)
        return {**{k: v for k, v in e.items() if k != "source"}, "scenario": ops.normalized(doc)}

    @app.post("/api/load")
    async def load(request: Request) -> dict[str, Any]:
        """A scenario file's text (JSON or YAML) -> its data and its check."""
        body = await read_body(request)
        doc = await run(lambda: ops.load_document(body, "file"))
        checked = await run(lambda: service.check(doc))
        return {"scenario": await run(lambda: ops.normalized(doc)), **checked}

    @app.post("/api/check")
    async def check(request: Request) -> dict[str, Any]:
        body = await read_body(request)
        doc = await run(lambda: ops.load_document(body, "scenario"))
        result: dict[str, Any] = await run(lambda: service.check(doc))
        return result

    @app.post("/api/charge")
    async def charge(request: Request) -> dict[str, Any]:
        d = _fields("charge", _json_object(await read_body(request)))
        charger, targets = ops.names(d.get("charger"), d.get("targets"))
        extras = {k: d[k] for k in ops.CHARGE_EXTRAS if d.get(k) is not None}
        lim = app.state.time_limit
        result: dict[str, Any] = await run(lambda: service.charge(
            d["scenario"], charger, targets, dice=d.get("dice"), roll=d.get("roll"), seed=d.get("seed"),
            reroll=d.get("reroll", "none"), modifier=d.get("modifier", 0), time_limit=lim, **extras))
        return result

    @app.post("/api/odds")
    async def odds(request: Request) -> dict[str, Any]:
        d = _fields("odds", _json_object(await read_body(request)))
        charger, targets = ops.names(d.get("charger"), d.get("targets"))
        lim = app.state.time_limit
        result: dict[str, Any] = await run(lambda: service.odds(
            d["scenario"], charger, targets, reroll=d.get("reroll", "none"), modifier=d.get("modifier", 0),
            time_limit=lim))
        return result

    @app.post("/api/needed")
    async def needed(request: Request) -> dict[str, Any]:
        """The board's live numbers while a model is dragged: the nearest enemy and,
        when targets are chosen, the least roll and the odds (as ``/api/odds``)."""
        d = _fields("needed", _json_object(await read_body(request)))
        charger, targets = ops.names(d.get("charger"), d.get("targets"))
        lim = app.state.time_limit

        def work() -> dict[str, Any]:
            out: dict[str, Any] = {"nearest": ops.nearest(d["scenario"], charger, time_limit_s=lim)}
            if targets:
                out["odds"] = service.odds(d["scenario"], charger, targets, reroll=d.get("reroll", "none"),
                                           modifier=d.get("modifier", 0), time_limit=lim)
            return out

        result: dict[str, Any] = await run(work)
        return result

    @app.post("/api/threat")
    async def threat(request: Request) -> dict[str, Any]:
        """The threat map of one unit (``chargeref-threat/1``, as ``threat --json``);
        ``rows: [first, end)`` asks for those rows of the map only."""
        d = _fields("threat", _json_object(await read_body(request)))
        lim = app.state.time_limit
        result: dict[str, Any] = await run(lambda: ops.threat(d["scenario"], d.get("unit"), d.get("step", 1.0),
                                                              d.get("rows"), time_limit_s=lim))
        return result

    @app.post("/api/draw")
    async def draw(request: Request) -> Response:
        d = _fields("draw", _json_object(await read_body(request)))
        whole, bare = d.get("whole_board", False), d.get("bare", False)
        for name, v in (("whole_board", whole), ("bare", bare)):
            if not isinstance(v, bool):
                raise BadRequest(name, "must be true or false")
        lim = app.state.time_limit
        svg: str = await run(lambda: ops.draw(d["scenario"], d.get("ruling"), whole_board=whole, time_limit_s=lim,
                                              bare=bare))
        return Response(svg, media_type="image/svg+xml")

    return app


__all__ = ["MAX_BODY", "create_app"]
