"""A work budget for one ruling: a deadline that long loops check cooperatively.

Every entry point (CLI command, web request, batch job) runs its ruling inside
``time_limit(seconds)``; the solvers call ``check()`` in their loops. Past the deadline
``check()`` raises ``WorkLimitExceeded``, a refusal (exit status 2, HTTP 503) whose
message says what was too big, never a hang. The deadline lives in a context variable,
so threads of the web server each carry their own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import ChargerefError, Problem

#: default seconds for one ruling (CLI ``--time-limit``, server ``--time-limit``)
DEFAULT_SECONDS = 60.0

_deadline: ContextVar[tuple[float, float, str] | None] = ContextVar("chargeref_deadline", default=None)


class WorkLimitExceeded(ChargerefError):
    """The ruling did not finish within its time limit."""


@contextmanager
def time_limit(seconds: float | None, what: str = "the ruling") -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now (``None`` or 0: no limit).

    A limit already in force and nearer stays in force."""
    if not seconds or seconds <= 0:
        yield
        return
    end = time.monotonic() + seconds
    outer = _deadline.get()
    if outer is not None and outer[0] <= end:
        yield
        return
    token = _deadline.set((end, seconds, what))
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise ``WorkLimitExceeded`` when the current deadline has passed (cheap: call it
    in every loop whose length the input controls)."""
    d = _deadline.get()
    if d is not None and time.monotonic() > d[0]:
        raise WorkLimitExceeded(
            Problem(
                "time-limit",
                f"{d[2]} took longer than {d[1]:g} s; the scenario is too big or too crowded "
                "for this limit (raise it with --time-limit)",
            )
        )


def remaining() -> float | None:
    """Seconds left before the deadline, or None without one."""
    d = _deadline.get()
    return None if d is None else d[0] - time.monotonic()
