"""The small family of errors chargeref raises for input it refuses.

Every problem names the field it is about; the CLI prints one line per problem and
exits with status 2.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class ChargerefError(ValueError):
    """Base class: input chargeref refuses (exit status 2)."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


class ScenarioError(ChargerefError):
    """The scenario file is malformed or describes an impossible battlefield."""


class RequestError(ChargerefError):
    """The request (charger, targets, dice...) does not fit the scenario."""
