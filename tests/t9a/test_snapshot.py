"""The rulings recorded before the constructed reach table and the speed work
(``snapshot_tool.py``: every T9A call the tests, the examples and the benchmarks made
at main 39c9b7d) are made again and compared field by field (numbers to 1e-6).

The recorded calls that took more than ``FAST_CPU`` seconds are replayed by
``python tests/t9a/snapshot_tool.py`` rather than here (the suite stays fast).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import snapshot_tool as st

SYSTEM = "t9a"
DATA = Path(__file__).parent / "data"
#: recorded calls slower than this (CPU seconds, as recorded) are left to ``--all``
FAST_CPU = 0.25

CALLS = st.load(SYSTEM, DATA)
FAST = [i for i, c in enumerate(CALLS) if c["cpu"] <= FAST_CPU]


def test_the_snapshot_is_substantial():
    assert len(CALLS) > 200 and len(FAST) > 100


@pytest.mark.parametrize("i", FAST)
def test_ruling_unchanged(i):
    c = CALLS[i]
    assert st.compare(c["result"], st.run(SYSTEM, c)) == []
