"""chargeref: a referee in a box for tabletop wargame charges.

>>> from chargeref import load_scenario, find_system
"""

from .errors import ChargerefError, RequestError, ScenarioError
from .scenario import load_scenario, scenario_from_data
from .systems import ChargeRequest, find_system

__version__ = "0.1.0"

__all__ = [
    "ChargeRequest",
    "ChargerefError",
    "RequestError",
    "ScenarioError",
    "find_system",
    "load_scenario",
    "scenario_from_data",
]
