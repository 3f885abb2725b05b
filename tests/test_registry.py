"""Every registered rule system loads, has bundled examples, and checks them cleanly
(in the spirit of a conformance test that walks the registry)."""

from __future__ import annotations

import pytest
from h40k import EXAMPLES

from chargeref.scenario import load_scenario
from chargeref.systems import RuleSystem, find_system, system_names

FOLDERS = {"40k": EXAMPLES / "40k", "t9a": EXAMPLES / "t9a", "warmaster": EXAMPLES / "warmaster"}


@pytest.mark.parametrize("name", system_names())
def test_system_is_registered_and_complete(name):
    system = find_system(name)
    assert isinstance(system, RuleSystem)
    assert system.name == name
    files = sorted(FOLDERS[name].rglob("*.yaml"))
    assert files, f"{name} has no example scenarios"
    for f in files:
        scen = load_scenario(f)
        assert scen.system == name, f
        assert system.problems(scen) == [], f


def test_unknown_system_is_refused():
    from chargeref.errors import RequestError

    with pytest.raises(RequestError):
        find_system("chess")
