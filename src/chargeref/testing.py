"""Assertion helpers for tests of any rule system (in the spirit of shapely.testing)."""

from __future__ import annotations

from typing import Any

from .validate import validate_ruling


def assert_legal_charge(before: Any, ruling: Any) -> None:
    """Fail with every violation listed if the ruling's end state is not legal."""
    problems = validate_ruling(before, ruling)
    if problems:
        lines = "\n  ".join(str(p) for p in problems)
        raise AssertionError(f"ruling breaks {len(problems)} rule(s):\n  {lines}")


__all__ = ["assert_legal_charge"]
