"""``chargeref import-tts``: a Tabletop Simulator save -> a 40k scenario file."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import click
import yaml

from .. import service
from ..errors import Problem, RequestError
from ..io.tts import import_save
from ..scenario.limits import Limits
from ._common import Outputs, guarded, limits_for, max_bytes_option, read_document

_BOARD = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*$", re.I)


def parse_board(text: str) -> tuple[float, float]:
    m = _BOARD.match(text)
    if not m:
        raise RequestError(Problem("--board", f"expected WIDTHxDEPTH in inches like 60x44 (got {text!r})"))
    w, d = float(m.group(1)), float(m.group(2))
    if not (0 < w <= 2000 and 0 < d <= 2000):
        raise RequestError(Problem("--board", f"each side must be more than 0 and at most 2000 (got {text!r})"))
    return w, d


def save_limits(limits: Limits) -> Limits:
    """The reading limits for a save: TTS writes numbers no scenario holds (``EpochTime``
    is seconds since 1970, past 10**9), so the number caps are wider; size, depth and
    node counts stay as they are. Positions are checked by the importer itself."""
    return replace(limits, max_abs_int=max(limits.max_abs_int, 10**15),
                   max_abs_float=max(limits.max_abs_float, 1e12))


def parse_bases(items: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items:
        name, sep, size = it.partition("=")
        if not sep or not name.strip() or not size.strip():
            raise RequestError(Problem("--base", f"expected NAME=SIZE like \"Intercessor=32mm\" (got {it!r})"))
        out[name.strip()] = size.strip()
    return out


def parse_players(items: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        name, sep, pl = it.rpartition("=")
        if not sep or not name.strip() or pl.strip() not in ("1", "2"):
            raise RequestError(Problem("--player", f"expected UNIT=1 or UNIT=2 (got {it!r})"))
        out[name.strip()] = int(pl)
    return out


@click.command("import-tts")
@click.argument("save")
@click.option("--out", required=True, help="the scenario file to write (.yaml/.yml for YAML, else JSON)")
@click.option("--board", default="60x44", show_default=True, help="board size in inches, WIDTHxDEPTH")
@click.option("--base", "bases", multiple=True, metavar="NAME=SIZE",
              help='the base of a model or unit by name, e.g. "Veteran=32mm" or "Bikers=75x42mm oval" (repeatable)')
@click.option("--player-split", type=click.Choice(["y", "x"]), default="y", show_default=True,
              help="y: player 1 holds the lower half (y < depth/2); x: the left half")
@click.option("--player", "players", multiple=True, metavar="UNIT=1|2",
              help="the player of a unit by its name, whatever half it stands in (repeatable)")
@click.option("--edition", type=int, default=None,
              help="the 40k edition written into the scenario's rules (default: the format's default)")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@max_bytes_option
@guarded
def command(save: str, out: str, board: str, bases: tuple[str, ...], player_split: str,
            players: tuple[str, ...], edition: int | None, as_json: bool, max_bytes: int | None) -> None:
    """Turn a Tabletop Simulator save (or saved object) into a 40k scenario.

    One TTS unit is one inch and the table centre is the board centre. Miniatures that
    cannot be placed are listed by name with the reason; nothing is written when the
    save is malformed."""
    size = parse_board(board)
    mapping = parse_bases(bases)
    told = parse_players(players)
    limits = limits_for(max_bytes)
    doc = read_document(save, save_limits(limits))
    res = import_save(doc, board=size, base_map=mapping, player_split=player_split, players=told,
                      rules={"edition": edition} if edition is not None else None)
    # the same parse and checks as `chargeref check`
    service.parse_scenario(res.scenario, limits=limits)
    text = (yaml.safe_dump(res.scenario, sort_keys=False, allow_unicode=True)
            if out.lower().endswith((".yaml", ".yml")) else json.dumps(res.scenario, indent=2, ensure_ascii=False) + "\n")
    outs = Outputs([save])
    outs.add(out, text, "--out")
    outs.commit()
    units = res.scenario["units"]
    if as_json:
        click.echo(json.dumps({
            "format": "chargeref-tts-import/1",
            "out": out,
            "units": [_unit_summary(u) for u in units],
            "not_placed": [s.as_json() for s in res.skipped],
        }, indent=2, ensure_ascii=False))
        return
    n_models = sum(len(u["models"]) for u in units)
    click.echo(f"wrote {out}: {len(units)} unit(s), {n_models} model(s) on a {size[0]:g} x {size[1]:g} board")
    for u in units:
        s = _unit_summary(u)
        click.echo(f"  player {s['player']}: {s['id']} ({s['name']}), {s['models']} model(s), {', '.join(s['bases'])}")
    if res.skipped:
        click.echo(f"not placed ({len(res.skipped)}):")
        for s in res.skipped:
            click.echo(f"  - {s.name}: {s.reason}")


def _unit_summary(u: dict[str, Any]) -> dict[str, Any]:
    bases: list[str] = []
    for m in u["models"]:
        b = m["base"]
        if "round" in b:
            t = f"{b['round']:g}mm"
        else:
            kind = "oval" if "oval" in b else "rect"
            t = f"{b[kind][0]:g}x{b[kind][1]:g}mm {kind}"
        if t not in bases:
            bases.append(t)
    return {"id": u["id"], "name": u.get("name", u["id"]), "player": u["player"], "models": len(u["models"]),
            "bases": bases}
