"""What every command shares: refusals as one line (exit 2), bugs as exit 1, the
shared options, reading inputs within the limits, and writes that cannot lose data.

Exit status: 0 for any ruling (a failed charge is still a ruling), 2 for input the
program refuses (one line per problem, naming the field or option), 1 for a bug.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from .. import service
from ..budget import DEFAULT_SECONDS
from ..errors import ChargerefError, Problem, RequestError, ScenarioError
from ..scenario import AnyScenario
from ..scenario.checks import MODIFIER_MAX, ROLL_MAX, ROLL_MIN
from ..scenario.limits import DEFAULT_LIMITS, Limits, limits_from_env

EXIT_OK = 0
EXIT_BUG = 1
EXIT_REFUSED = 2

#: the service's request field -> the CLI option that sets it
FIELD_OPTIONS = {
    "charger": "--charger",
    "target": "--target",
    "targets": "--target",
    "dice": "--dice",
    "roll": "--roll",
    "modifier": "--modifier",
    "seed": "--seed",
    "reroll": "--reroll",
    "reaction": "--reaction",
    "reaction_dice": "--reaction-dice",
    "casualties": "--casualty",
    "first_stand": "--first-stand",
    "redirect": "--redirect",
    "redirect_dice": "--redirect-dice",
    "unit": "--unit",
    "against": "--against",
    "keep": "--keep-token",
    "step": "--step",
    "stratagem": "--stratagem",
    "time-limit": "--time-limit",
}


def cli_field(field: str) -> str:
    """A service field name as the user wrote it on the command line."""
    return FIELD_OPTIONS.get(field, field)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def fail(problems: list[Problem], options: bool = True) -> None:
    """Print one line per problem (field first) and exit 2. ``options``: the fields are
    the request's, named by the option that sets them (``targets`` -> ``--target``);
    a document's fields (a scenario's ``unit``) are printed as written."""
    for p in problems:
        field = cli_field(p.field) if options else p.field
        click.echo(f"chargeref: {field}: {one_line(p.message)}" if field else f"chargeref: {one_line(p.message)}", err=True)
    sys.exit(EXIT_REFUSED)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn refusals into one line per problem (exit 2) and bugs into exit 1."""

    @wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        try:
            return fn(*a, **k)
        except ChargerefError as exc:
            fail(exc.problems, options=not isinstance(exc, ScenarioError))
        except MemoryError:
            fail([Problem("", "out of memory: the input is too big for this machine")])
        except (BrokenPipeError, KeyboardInterrupt):
            sys.exit(EXIT_BUG)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # a bug: say so plainly
            if os.environ.get("CHARGEREF_DEBUG"):
                traceback.print_exc()
            click.echo(
                f"chargeref: internal error ({exc.__class__.__name__}: {one_line(str(exc))[:200]}); "
                "this is a bug - rerun with CHARGEREF_DEBUG=1 for details",
                err=True,
            )
            sys.exit(EXIT_BUG)

    return wrapper


# ----------------------------------------------------------------------- inputs


def limits_for(max_bytes: int | None) -> Limits:
    """The limits in force: defaults, then CHARGEREF_MAX_* variables, then --max-bytes."""
    lim = limits_from_env()
    if max_bytes is not None:
        if max_bytes <= 0:
            raise RequestError(Problem("--max-bytes", "must be a positive number of bytes"))
        from dataclasses import replace

        lim = replace(lim, max_bytes=max_bytes)
    return lim


def read_document(path: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """A JSON/YAML file through the guarded loader."""
    return service.load_path(path, limits=limits)


def read_scenario(path: str, limits: Limits = DEFAULT_LIMITS) -> AnyScenario:
    """A scenario file, parsed and checked exactly as ``check`` does."""
    return service.parse_scenario(read_document(path, limits), limits=limits)


# ----------------------------------------------------------------------- outputs


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class Outputs:
    """Files to write, built in memory first and written only when the whole answer is
    ready: never onto an input (symlinks and hard links followed), each atomically
    (a temporary file in the same folder, then a rename)."""

    def __init__(self, inputs: list[str]):
        self.inputs = [p for p in inputs if p]
        self.items: list[tuple[str, bytes, str]] = []

    def add(self, path: str | None, content: str | bytes, option: str) -> None:
        if not path:
            return
        data = content.encode("utf-8") if isinstance(content, str) else content
        self.items.append((path, data, option))

    def check(self) -> None:
        probs: list[Problem] = []
        seen: dict[str, str] = {}
        for path, _data, option in self.items:
            for src in self.inputs:
                if _same_file(path, src):
                    probs.append(Problem(option, f"{path} is an input of this command (or a link to one); "
                                                 "choose another file"))
            real = os.path.realpath(path)
            if real in seen:
                probs.append(Problem(option, f"{path} is also the {seen[real]} file"))
            seen[real] = option
            if os.path.isdir(path):
                probs.append(Problem(option, f"{path} is a directory"))
        if probs:
            raise RequestError(probs)

    def commit(self) -> None:
        self.check()
        for path, data, option in self.items:
            write_atomic(path, data, option)


def write_atomic(path: str, data: bytes, option: str) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename,
    so a reader never sees half a file and a failure leaves the old file intact."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    tmp: str | None = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{p.name[:40]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise RequestError(Problem(option, f"cannot write {path}: {exc.strerror or exc.__class__.__name__}")) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def add_drawing(outs: Outputs, scen: AnyScenario, ruling: Any, svg: str | None, png: str | None,
                title: str | None = None) -> None:
    """Render the drawing in memory (SVG text, PNG bytes) and queue it."""
    if not svg and not png:
        return
    text = service.draw(scen, ruling, title=title)
    outs.add(svg, text, "--svg")
    if png:
        from ..render import render_png

        try:
            outs.add(png, render_png(text), "--png")
        except RuntimeError as exc:
            raise RequestError(Problem("--png", str(exc))) from None


# ----------------------------------------------------------------------- options

time_limit_option = click.option(
    "--time-limit", "time_limit", type=click.FloatRange(min=0, max=86400), default=DEFAULT_SECONDS, show_default=True,
    help="seconds one ruling may take before it is refused (exit 2); 0: no limit")
max_bytes_option = click.option(
    "--max-bytes", "max_bytes", type=click.IntRange(min=1, max=2**40), default=None,
    help=f"largest input file read, in bytes (default {DEFAULT_LIMITS.max_bytes}, or CHARGEREF_MAX_BYTES)")

ROLL_HELP = (f"a fixed charge roll: the 2D6 result before modifiers, {ROLL_MIN} to {ROLL_MAX} "
             "(40k, T9A; Warmaster has no charge roll)")
MODIFIER_HELP = f"added to the charge roll, -{MODIFIER_MAX} to +{MODIFIER_MAX} (also with --roll)"
DICE_HELP = "fixed dice, each 1-6: 40k 3,4; T9A two (three with Swiftstride); Warmaster one (the zone roll)"
SEED_HELP = "seed for rolling the dice (0 to 2**63-1)"


def output_options(svg: bool = True, out: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    opts = [click.option("--json", "as_json", is_flag=True, help="print the answer as JSON")]
    if svg:
        opts += [click.option("--svg", default=None, help="write a drawing (SVG)"),
                 click.option("--png", default=None, help="write a drawing (PNG; needs the [png] extra)")]
    if out:
        opts += [click.option("--out", default=None, help="write the JSON answer to this file")]

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for o in reversed(opts):
            fn = o(fn)
        return fn

    return deco


def apply(options: list[Callable[[Callable[..., Any]], Callable[..., Any]]]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for o in reversed(options):
            fn = o(fn)
        return fn

    return deco


__all__ = [
    "EXIT_BUG",
    "EXIT_OK",
    "EXIT_REFUSED",
    "FIELD_OPTIONS",
    "Outputs",
    "add_drawing",
    "apply",
    "cli_field",
    "fail",
    "guarded",
    "limits_for",
    "max_bytes_option",
    "output_options",
    "read_document",
    "read_scenario",
    "time_limit_option",
    "write_atomic",
]
