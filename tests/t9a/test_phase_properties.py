"""Property test for whole phases: two units charging one (a combined charge) from
random places; every ruling passes the independent checker."""

from __future__ import annotations

import math
import os

from build import SYSTEM, scen, unit
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chargeref.testing import assert_legal_charge

EXAMPLES = int(os.environ.get("T9A_EXAMPLES", "60")) // 3


@st.composite
def two_chargers(draw):
    out = []
    for _ in range(2):
        dist = draw(st.floats(3, 10))
        bearing = draw(st.floats(10, 170))
        b = math.radians(bearing)
        x, y = 60 + dist * math.cos(b), 60 + dist * math.sin(b)
        face = (bearing + 180 + draw(st.floats(-40, 40))) % 360
        files = draw(st.integers(2, 5))
        out.append((x, y, face, files, draw(st.integers(files, files * 3))))
    dice = [draw(st.integers(1, 6)) for _ in range(4)]
    return out, dice


@settings(max_examples=max(EXAMPLES, 5), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(two_chargers())
def test_combined_phase_rulings_are_legal(p):
    (a, b), dice = p
    s = scen([unit("T", 2, (60, 60), 90, 6, 18), unit("A", 1, a[:2], a[2], a[3], a[4]),
              unit("B", 1, b[:2], b[2], b[3], b[4])], board=(120, 120),
             charges=[{"charger": "A", "targets": ["T"], "dice": dice[:2]},
                      {"charger": "B", "targets": ["T"], "dice": dice[2:]}])
    assume(not SYSTEM.problems(s))
    res = SYSTEM.phase(s, 1)
    for r in res.rulings:
        assert_legal_charge(s, r)
