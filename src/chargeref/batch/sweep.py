"""Sweeps: every charge of many scenario files, one JSON line per ruling.

Each line is ``{"file", "hash", "charge", "ruling"}`` (``charge`` is the index in the
file's ``charges:`` list, ``hash`` the SHA-256 of the file's bytes), or
``{"file", "hash", "charge", "error": [{"field", "message"}, ...]}`` when the file or
that charge is refused (``charge`` is null when the whole file is: it is read and
checked exactly as ``chargeref check`` does, so a bad ``charges:`` entry refuses the
file, naming ``charges[i].<field>``). Every charge is
ruled on the scenario as the file describes it (not one after another as a phase):
the ``charges:`` entry gives the charger, targets, dice, modifier and re-roll; dice
that are not given are rolled with a seed made from ``seed``, the file hash and the
charge index, so a sweep is the same on any number of workers and on every rerun.

Resumable and safe to stop: a line is appended and flushed as soon as it and every
line before it are done, in the order of the files and their charges; a rerun reads
the lines already in the output, keyed by (hash, charge), and rules only the rest.
A last line cut short by a stop is dropped before appending.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import service
from ..budget import DEFAULT_SECONDS, time_limit
from ..errors import ChargerefError, Problem, RequestError
from ..scenario.limits import DEFAULT_LIMITS, Limits
from ..scenario.loader import read_path
from ..systems import ChargeRequest, find_system
from .executors import Progress, check_choice, run_ordered

FORMAT_KEYS = ("file", "hash", "charge")


@dataclass
class SweepSummary:
    total: int  # lines the sweep stands for (done before + written now)
    skipped: int  # lines found already done
    written: int  # lines written by this run
    errors: int  # error lines among those written


def _problems(exc: ChargerefError) -> list[dict[str, str]]:
    return [{"field": p.field, "message": p.message} for p in exc.problems]


def _load(data: bytes, name: str, limits: Limits) -> Any:
    """The scenario exactly as ``chargeref check`` accepts it (the guarded loader)."""
    return service.parse_scenario(service.load_document(data, source=name, limits=limits), limits=limits)


def charge_seed(seed: int, digest: str, index: int) -> int:
    """The seed of one charge: a function of the sweep seed, the file and the index."""
    return int(hashlib.sha256(f"{seed}:{digest}:{index}".encode()).hexdigest()[:12], 16)


_SCEN_CACHE: dict[str, Any] = {}


Task = tuple[str, bytes, str, int, int, "float | None", Limits]


def rule_charge(task: Task) -> dict[str, Any]:
    """One line of the sweep (a worker task)."""
    name, data, digest, index, seed, seconds, limits = task
    head = {"file": name, "hash": digest, "charge": index}
    try:
        if digest not in _SCEN_CACHE:
            _SCEN_CACHE.clear()  # one scenario at a time per worker: bounded memory
            _SCEN_CACHE[digest] = _load(data, name, limits)
        scen = _SCEN_CACHE[digest]
        spec = scen.charges[index]
        req = ChargeRequest.from_spec(spec, seed=None if spec.dice else charge_seed(seed, digest, index))
        with time_limit(seconds, f"charge {index} of {name}"):
            ruling = find_system(scen.system).charge(scen, req)
        return {**head, "ruling": ruling.to_json_data()}
    except ChargerefError as exc:
        probs = [{"field": f"charges[{index}]" + (f".{p['field']}" if p["field"] else ""), "message": p["message"]} for p in _problems(exc)]
        return {**head, "error": probs}
    except Exception as exc:  # a bug in a solver: record it, the sweep goes on
        return {**head, "error": [{"field": f"charges[{index}]", "message": f"internal error ({exc.__class__.__name__}: {exc})"}]}


def _done_keys(out: Path) -> set[tuple[str, int | None]]:
    """Keys of the complete lines already in ``out``; a cut last line is removed."""
    if not out.exists():
        return set()
    raw = out.read_bytes()
    keep = raw.rfind(b"\n") + 1
    if keep < len(raw):
        with out.open("r+b") as fh:
            fh.truncate(keep)
    done: set[tuple[str, int | None]] = set()
    for line in raw[:keep].splitlines():
        try:
            rec = json.loads(line)
            done.add((rec["hash"], rec["charge"]))
        except (ValueError, KeyError, TypeError):
            continue  # not one of ours: ignored, rewritten if needed
    return done


def sweep(
    files: list[str],
    out_jsonl: str,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    *,
    pool: str = "process",
    seed: int = 0,
    seconds: float | None = DEFAULT_SECONDS,
    limits: Limits = DEFAULT_LIMITS,
) -> SweepSummary:
    """Rule every charge of ``files`` into ``out_jsonl`` (see the module text)."""
    check_choice(workers, scheduler)
    out = Path(out_jsonl)
    try:
        if out.parent and not out.parent.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
        done = _done_keys(out)
    except OSError as exc:
        raise RequestError(Problem("--out", f"cannot use {out_jsonl}: {exc.strerror or exc}")) from None
    lines: list[dict[str, Any] | None] = []  # None: a task to run; {} once written
    tasks: list[Task] = []
    slots: list[int] = []
    skipped = 0
    contents: list[bytes] = []
    unreadable: list[Problem] = []
    for name in files:
        try:
            contents.append(read_path(name, limits=limits))
        except ChargerefError as exc:
            unreadable += exc.problems
    if unreadable:
        raise RequestError(unreadable)
    for name, data in zip(files, contents, strict=True):
        digest = hashlib.sha256(data).hexdigest()
        try:
            scen = _load(data, name, limits)
            if not scen.charges:
                raise RequestError(Problem("charges", "the scenario declares no charges"))
        except ChargerefError as exc:
            if (digest, None) in done:
                skipped += 1
            else:
                lines.append({"file": name, "hash": digest, "charge": None, "error": _problems(exc)})
            continue
        for i in range(len(scen.charges)):
            if (digest, i) in done:
                skipped += 1
                continue
            slots.append(len(lines))
            lines.append(None)
            tasks.append((name, data, digest, i, seed, seconds, limits))
    written = errors = 0
    with out.open("a", encoding="utf-8") as fh:

        def flush_ready(upto: int) -> int:
            nonlocal written, errors
            while upto < len(lines) and lines[upto] is not None:
                rec = lines[upto]
                fh.write(json.dumps(rec, sort_keys=True) + "\n")
                fh.flush()
                written += 1
                errors += "error" in rec  # type: ignore[operator]
                lines[upto] = {}  # written: keep no ruling in memory
                upto += 1
            return upto

        nxt = flush_ready(0)
        for k, rec in run_ordered(rule_charge, tasks, workers=workers, scheduler=scheduler, pool=pool, progress=progress):
            lines[slots[k]] = rec
            nxt = flush_ready(nxt)
        nxt = flush_ready(nxt)
        os.fsync(fh.fileno())
    return SweepSummary(total=skipped + written, skipped=skipped, written=written, errors=errors)
