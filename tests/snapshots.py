"""Replaying recorded rulings as tests: what ``tests/t9a/test_snapshot.py`` and
``tests/warmaster/test_snapshot.py`` share.

A snapshot is ``<folder>/<system>.json.gz``, a list of recorded calls (kind, scenario,
request or seed, result, CPU seconds as recorded; see ``tests/t9a/snapshot_tool.py``,
which records them and holds ``load`` and ``compare``). ``Snapshot`` loads one, keeps
the calls cheap enough for the suite, makes a call again with the test file's
``replay`` (``through_system``: by the registered system object) and lists where the result differs (numbers to 1e-6). ``tests`` builds the
two test functions a snapshot file exposes; ``main`` is its ``--write INDEX ...``
command, which re-records the given calls (only for a deliberate, explained change:
add a line to ``data/CHANGES.md``).
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

# the recorder (and ``load``/``compare``) lives with the T9A tests; pytest puts that
# folder on the path (pyproject), a test file run as a script does not
_T9A = str(Path(__file__).resolve().parent / "t9a")
if _T9A not in sys.path:
    sys.path.insert(0, _T9A)
import snapshot_tool as st  # noqa: E402

#: recorded calls slower than this (CPU seconds, as recorded) are left to
#: ``python tests/t9a/snapshot_tool.py`` (the suite stays fast)
FAST_CPU = 0.25

Call = dict[str, Any]


def through_system(system: str) -> Callable[[Call], Any]:
    """Replay a recorded call through the registered system object (``charge``,
    ``needed`` or ``phase`` on the recorded scenario, as ``snapshot_tool.run`` does)."""

    def replay(call: Call) -> Any:
        return st.run(system, call)

    return replay


class Snapshot:
    """The recorded calls of one system and how to make one of them again."""

    def __init__(self, system: str, folder: Path, replay: Callable[[Call], Any], fast_cpu: float = FAST_CPU) -> None:
        self.system = system
        self.folder = folder
        self.replay = replay
        self.calls: list[Call] = st.load(system, folder)
        #: indices of the calls replayed by the suite
        self.fast = [i for i, c in enumerate(self.calls) if c["cpu"] <= fast_cpu]

    def differences(self, i: int) -> list[str]:
        """Where call ``i`` made again differs from its recorded result."""
        c = self.calls[i]
        return st.compare(c["result"], self.replay(c))

    def tests(self, min_calls: int, min_fast: int) -> tuple[Callable[[], None], Callable[[int], None]]:
        """``(test_the_snapshot_is_substantial, test_ruling_unchanged)`` for a test
        module: more than ``min_calls`` calls recorded, more than ``min_fast`` of them
        replayed, and each replayed one unchanged."""

        def test_the_snapshot_is_substantial() -> None:
            assert len(self.calls) > min_calls and len(self.fast) > min_fast

        @pytest.mark.parametrize("i", self.fast)
        def test_ruling_unchanged(i: int) -> None:
            assert self.differences(i) == []

        return test_the_snapshot_is_substantial, test_ruling_unchanged

    def rewrite(self, indices: Sequence[int]) -> None:
        """Record the current ruling of the given calls (read afresh from the file)."""
        calls = st.load(self.system, self.folder)
        for i in indices:
            calls[i]["result"] = self.replay(calls[i])
        with gzip.open(self.folder / f"{self.system}.json.gz", "wt") as fh:
            json.dump(calls, fh)

    def main(self, argv: Sequence[str]) -> None:
        """``test_snapshot.py --write INDEX [INDEX ...]``."""
        if list(argv[:1]) != ["--write"] or len(argv) < 2:
            sys.exit("usage: test_snapshot.py --write INDEX [INDEX ...]")
        self.rewrite([int(x) for x in argv[1:]])
