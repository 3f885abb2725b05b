"""The Warmaster rulings recorded before the exact round stands and the speed work
(see ``tests/t9a/snapshot_tool.py``) are made again and compared field by field
(numbers to 1e-6). Slow recorded calls are left to ``python tests/t9a/snapshot_tool.py``.
Loading, comparing and ``--write`` live in ``tests/snapshots.py``."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])  # the shared helper; pytest has it on the path
if _TESTS not in sys.path:  # run as a script (--write)
    sys.path.insert(0, _TESTS)
from snapshots import Snapshot, through_system  # noqa: E402

SYSTEM = "warmaster"

SNAPSHOT = Snapshot(SYSTEM, Path(__file__).parent / "data", through_system(SYSTEM))
test_the_snapshot_is_substantial, test_ruling_unchanged = SNAPSHOT.tests(min_calls=150, min_fast=100)


if __name__ == "__main__":  # python tests/warmaster/test_snapshot.py --write 141 [...]
    SNAPSHOT.main(sys.argv[1:])
