"""The ``chargeref`` command: one module per command over :mod:`chargeref.service`.

Each module in :data:`COMMANDS` defines ``command`` (a click command); ``main`` is the
group they are registered on. A new command is one module plus its name here.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from ._common import EXIT_BUG, EXIT_REFUSED, guarded
from ._text import summary

#: the command modules, in the order ``--help`` lists them
COMMANDS: tuple[str, ...] = ("check", "charge", "odds", "phase", "draw", "schema", "heroic", "fight", "validate",
                             "bases", "import_tts", "threat", "sweep", "serve")


class OneLineGroup(click.Group):
    """A click group whose usage errors are one line naming the option (exit 2)."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare ``chargeref``: the help
                exc.show()
                sys.exit(exc.exit_code)
            param = getattr(exc, "param", None)
            name = getattr(exc, "option_name", None) or (param.opts[0] if param is not None and param.opts else None)
            plain = isinstance(exc, click.BadParameter) and not isinstance(exc, click.MissingParameter)
            raw = exc.message if plain and param is not None and exc.message else exc.format_message()
            msg = " ".join(str(raw).split())
            click.echo(f"chargeref: {name}: {msg}" if name else f"chargeref: {msg}", err=True)
            sys.exit(EXIT_REFUSED)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("chargeref: aborted", err=True)
            sys.exit(EXIT_BUG)
        except BrokenPipeError:
            sys.exit(EXIT_BUG)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="chargeref")
def main() -> None:
    """chargeref: a referee in a box for tabletop wargame charges.

    Systems: Warhammer 40,000 (editions 9, 10 with the WTC procedure, 11), The 9th Age
    (ruleset T9A 2.x) and Warmaster. Exit status: 0 for any ruling, 2 for refused input
    (one line naming the field), 1 for a bug."""


def register(names: tuple[str, ...] = COMMANDS) -> None:
    for name in names:
        mod = importlib.import_module(f"{__name__}.{name}")
        main.add_command(mod.command)


register()

__all__ = ["COMMANDS", "OneLineGroup", "guarded", "main", "register", "summary"]
