"""The Warmaster rulings recorded before the exact round stands and the speed work
(see ``tests/t9a/snapshot_tool.py``) are made again and compared field by field
(numbers to 1e-6). Slow recorded calls are left to ``python tests/t9a/snapshot_tool.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "t9a"))
import snapshot_tool as st  # noqa: E402

SYSTEM = "warmaster"
DATA = Path(__file__).parent / "data"
FAST_CPU = 0.25

CALLS = st.load(SYSTEM, DATA)
FAST = [i for i, c in enumerate(CALLS) if c["cpu"] <= FAST_CPU]


def test_the_snapshot_is_substantial():
    assert len(CALLS) > 150 and len(FAST) > 100


@pytest.mark.parametrize("i", FAST)
def test_ruling_unchanged(i):
    c = CALLS[i]
    assert st.compare(c["result"], st.run(SYSTEM, c)) == []
