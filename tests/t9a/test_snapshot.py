"""The rulings recorded before the constructed reach table and the speed work
(``snapshot_tool.py``: every T9A call the tests, the examples and the benchmarks made
at main 39c9b7d) are made again and compared field by field (numbers to 1e-6).

The recorded calls that took more than ``snapshots.FAST_CPU`` seconds are replayed by
``python tests/t9a/snapshot_tool.py`` rather than here (the suite stays fast). Loading,
comparing and ``--write`` live in ``tests/snapshots.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])  # the shared helper; pytest has it on the path
if _TESTS not in sys.path:  # run as a script (--write)
    sys.path.insert(0, _TESTS)
from snapshots import Snapshot, through_system  # noqa: E402

SYSTEM = "t9a"

SNAPSHOT = Snapshot(SYSTEM, Path(__file__).parent / "data", through_system(SYSTEM))
test_the_snapshot_is_substantial, test_ruling_unchanged = SNAPSHOT.tests(min_calls=200, min_fast=100)


if __name__ == "__main__":  # python tests/t9a/test_snapshot.py --write INDEX [...]
    SNAPSHOT.main(sys.argv[1:])
