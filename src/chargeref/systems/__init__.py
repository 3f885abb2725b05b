"""Game systems (40k, The 9th Age, Warmaster), each registered by name."""

from .base import ChargeRequest, PhaseResult, RuleSystem, find_system, system_names

__all__ = ["ChargeRequest", "PhaseResult", "RuleSystem", "find_system", "system_names"]
