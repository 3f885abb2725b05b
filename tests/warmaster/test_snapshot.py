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


def rewrite(indices: list[int]) -> None:
    """Record the current ruling of the given calls (only for a deliberate, explained
    change: add a line to ``data/CHANGES.md``)."""
    import gzip
    import json

    calls = st.load(SYSTEM, DATA)
    for i in indices:
        calls[i]["result"] = st.run(SYSTEM, calls[i])
    with gzip.open(DATA / f"{SYSTEM}.json.gz", "wt") as fh:
        json.dump(calls, fh)


if __name__ == "__main__":  # python tests/warmaster/test_snapshot.py --write 141 [...]
    if sys.argv[1:2] != ["--write"] or len(sys.argv) < 3:
        sys.exit("usage: test_snapshot.py --write INDEX [INDEX ...]")
    rewrite([int(x) for x in sys.argv[2:]])
