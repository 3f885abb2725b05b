"""Speed work must not change a single 40k ruling (issue 13).

Every 40k example, and a fixed set of generated scenarios (open field, ruin walls,
ruins with floors, a 30-model unit, oval bases, a non-target screen, two targets,
editions 9, 10 and 11, with and without the WTC procedure), is ruled with ``needed``
and with ``charge`` at several fixed rolls; the rulings were stored in
``golden_rulings/`` from the engine before any speed change, and this test rules them
again and compares every field (numbers to 1e-6, the project's tolerance).

The stored files carry their own scenario, so a change to the generator below never
silently changes what is compared. To add cases (never to paper over a changed
ruling), run ``python tests/w40k/test_identical_rulings.py --write NAME...``.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from chargeref import ChargeRequest, find_system, load_scenario, scenario_from_data
from chargeref.scenario import scenario_to_data

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden_rulings"
EXAMPLES = HERE.parents[1] / "examples" / "40k"
#: the project's tolerance on lengths and coordinates
TOL = 1e-6
#: fixed rolls every charge is made at (plus the least roll itself and one below it)
ROLLS = (6, 9, 12)


# ------------------------------------------------------------------ cases
def _unit(uid: str, player: int, pts: list[tuple[float, float]], base: Any = 32, kw: tuple[str, ...] = ("INFANTRY",),
          facing: float | None = None) -> dict[str, Any]:
    b = {"round": base} if isinstance(base, (int, float)) else base
    models = []
    for i, (x, y) in enumerate(pts):
        m: dict[str, Any] = {"id": f"{uid}{i + 1}", "at": [round(x, 4), round(y, 4)], "base": b}
        if facing is not None:
            m["facing"] = facing
        models.append(m)
    return {"id": uid, "player": player, "keywords": list(kw), "models": models}


def _block(x0: float, y0: float, n: int, per_row: int, dx: float = 1.5, dy: float = 1.5) -> list[tuple[float, float]]:
    return [(x0 + (i % per_row) * dx, y0 + (i // per_row) * dy) for i in range(n)]


def _scen(units: list[dict[str, Any]], terrain: list[dict[str, Any]] | None = None, edition: int = 10, wtc: bool = True) -> dict[str, Any]:
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44},
            "rules": {"edition": edition, "wtc": wtc}, "units": units, "terrain": terrain or []}


def generated() -> dict[str, tuple[dict[str, Any], list[tuple[str, list[str]]]]]:
    """~30 scenarios from a fixed seed: name -> (scenario, [(charger, targets)])."""
    rnd = random.Random(13)
    out: dict[str, tuple[dict[str, Any], list[tuple[str, list[str]]]]] = {}
    eds = [(9, False), (10, False), (10, True), (11, False)]
    # open field: unit sizes, gaps and editions
    for k in range(10):
        ed, wtc = eds[k % 4]
        n = rnd.choice([1, 3, 5, 10])
        nt = rnd.choice([1, 3, 5])
        gap = rnd.uniform(2.0, 10.0)
        base = rnd.choice([25, 32, 40])
        a = _unit("A", 1, _block(20 + rnd.uniform(0, 3), 10, n, 5), base)
        b = _unit("B", 2, _block(21 + rnd.uniform(-2, 2), 10 + 1.5 * ((n - 1) // 5) + gap, nt, 5, 1.8), rnd.choice([25, 32]))
        out[f"open_{k}"] = (_scen([a, b], edition=ed, wtc=wtc), [("A", ["B"])])
    # two targets, and a non-target screen next to the target
    for k in range(4):
        ed, wtc = eds[k]
        a = _unit("A", 1, _block(18, 8, 8, 4))
        b = _unit("B", 2, _block(16 + rnd.uniform(-1, 1), 15 + rnd.uniform(0, 2), 3, 3))
        c = _unit("C", 2, _block(23 + rnd.uniform(-1, 1), 15 + rnd.uniform(0, 2), 3, 3))
        out[f"two_targets_{k}"] = (_scen([a, b, c], edition=ed, wtc=wtc), [("A", ["B", "C"]), ("A", ["B"])])
    # ruin walls between the units (the WTC walls rule applies with wtc)
    for k in range(6):
        ed, wtc = eds[k % 4]
        wy = 15 + rnd.uniform(0, 2)
        walls = [{"points": [[12, wy], [22 + rnd.uniform(0, 6), wy]], "height": 4, "thickness": rnd.choice([0.2, 0.6])}]
        if k % 2:
            walls.append({"points": [[30, wy - 3], [30, wy + 3]], "height": 4, "thickness": 0.3})
        terrain = [{"type": "ruin", "id": "R", "footprint": [[10, wy - 4], [36, wy - 4], [36, wy + 6], [10, wy + 6]], "walls": walls}]
        a = _unit("A", 1, _block(15 + rnd.uniform(0, 3), wy - 5, 5 + 5 * (k % 2), 5))
        b = _unit("B", 2, _block(15 + rnd.uniform(0, 3), wy + 1.6 + rnd.uniform(0, 1.5), 5, 5))
        out[f"walls_{k}"] = (_scen([a, b], terrain, edition=ed, wtc=wtc), [("A", ["B"])])
    # a ruin with an upper floor the target stands on
    for k in range(2):
        ed, wtc = eds[1 + k]
        terrain = [{"type": "ruin", "id": "R", "footprint": [[20, 18], [32, 18], [32, 26], [20, 26]],
                    "floors": [{"height": 3, "polygon": [[20, 18], [32, 18], [32, 26], [20, 26]]}]}]
        a = _unit("A", 1, _block(22, 12, 5, 5))
        b = _unit("B", 2, _block(23, 20 + rnd.uniform(0, 1), 3, 3))
        for m in b["models"]:
            m["at"].append(3.0)
        out[f"floor_{k}"] = (_scen([a, b], terrain, edition=ed, wtc=wtc), [("A", ["B"])])
    # a 30-model unit
    for k in range(2):
        ed, wtc = eds[2 + k]
        a = _unit("A", 1, _block(15, 6, 30, 10, 1.4, 1.4))
        b = _unit("B", 2, _block(16 + rnd.uniform(0, 3), 16 + rnd.uniform(0, 2), 10, 10, 1.5, 1.5))
        out[f"thirty_{k}"] = (_scen([a, b], edition=ed, wtc=wtc), [("A", ["B"])])
    # oval bases: an oval target, and oval chargers
    for k in range(4):
        ed, wtc = eds[k]
        if k % 2 == 0:
            a = _unit("A", 1, _block(24, 10, 5, 5))
            b = _unit("M", 2, [(28 + rnd.uniform(-2, 2), 19 + rnd.uniform(0, 3))], {"oval": [170, 109]}, ("MONSTER",),
                      facing=rnd.choice([0, 30, 90]))
        else:
            a = _unit("A", 1, _block(24, 10, 3, 3, 3.5), {"oval": [90, 52]}, ("MOUNTED",), facing=rnd.choice([0, 45]))
            b = _unit("M", 2, _block(24 + rnd.uniform(-1, 1), 18 + rnd.uniform(0, 2), 3, 3))
        out[f"oval_{k}"] = (_scen([a, b], edition=ed, wtc=wtc), [("A", ["M"])])
    # a non-target unit beside the target
    for k in range(2):
        ed, wtc = eds[k * 2 + 1]
        a = _unit("A", 1, _block(20, 10, 5, 5))
        b = _unit("B", 2, _block(20, 17 + rnd.uniform(0, 1.5), 3, 3))
        n = _unit("N", 2, _block(25.5 + rnd.uniform(0, 1), 17, 3, 3))
        out[f"screen_{k}"] = (_scen([a, b, n], edition=ed, wtc=wtc), [("A", ["B"])])
    return out


def examples() -> dict[str, tuple[dict[str, Any], list[tuple[str, list[str]]]]]:
    """Every 40k example: each unit of player 1 against each single enemy unit."""
    out = {}
    for p in sorted(EXAMPLES.rglob("*.yaml")):
        data = scenario_to_data(load_scenario(p))
        data["charges"] = []
        p1 = [u["id"] for u in data["units"] if u["player"] == 1]
        p2 = [u["id"] for u in data["units"] if u["player"] != 1]
        reqs = [(a, [b]) for a in p1 for b in p2][:3]
        out["ex_" + str(p.relative_to(EXAMPLES).with_suffix("")).replace("/", "_")] = (data, reqs)
    return out


def all_cases() -> dict[str, tuple[dict[str, Any], list[tuple[str, list[str]]]]]:
    return {**examples(), **generated()}


# ------------------------------------------------------------------ ruling
def _round(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 6) if math.isfinite(x) else repr(x)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_round(v) for v in x]
    return x


def rule(data: dict[str, Any], reqs: list[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    """``needed`` and ``charge`` at the fixed rolls and round the least roll, for every
    request; errors (refused input) are recorded as such."""
    system = find_system("40k")
    scen = scenario_from_data(data)
    out: list[dict[str, Any]] = []
    for charger, targets in reqs:
        base = ChargeRequest(charger=charger, targets=tuple(targets))
        entry: dict[str, Any] = {"charger": charger, "targets": targets}
        need = system.needed(scen, base)
        entry["needed"] = need.model_dump(mode="json", exclude_none=False)
        rolls = set(ROLLS)
        if need.roll is not None:
            rolls |= {need.roll, max(2, need.roll - 1)}
        entry["charges"] = {}
        for r in sorted(rolls):
            ruling = system.charge(scen, ChargeRequest(charger=charger, targets=tuple(targets), roll=r))
            entry["charges"][str(r)] = ruling.to_json_data()
        out.append(_round(entry))
    return out


def _diff(a: Any, b: Any, path: str = "") -> str | None:
    """The first place two rulings differ (numbers to TOL), or None."""
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool) and not isinstance(b, bool):
        return None if abs(a - b) <= TOL + 1e-12 else f"{path}: {a} != {b}"
    if type(a) is not type(b):
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(set(a) ^ set(b))} differ"
        for k in a:
            d = _diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = _diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def _stored() -> list[Path]:
    return sorted(GOLDEN.glob("*.json"))


def test_golden_set_is_complete() -> None:
    """Every example and every generated case has its stored rulings (a new example
    needs ``--write`` once), and there are enough of them to mean something."""
    names = {p.stem for p in _stored()}
    assert set(all_cases()) <= names
    assert len(names) >= 45


@pytest.mark.parametrize("path", _stored(), ids=lambda p: p.stem)
def test_identical_rulings(path: Path) -> None:
    stored = json.loads(path.read_text())
    now = rule(stored["scenario"], [(c, t) for c, t in stored["requests"]])
    d = _diff(stored["rulings"], now)
    assert d is None, f"{path.stem}: the ruling changed at {d}"


def test_diff_sees_a_change() -> None:
    """The comparison itself: a change of 2e-6 in a coordinate, or of a verdict, is seen;
    1e-7 is not."""
    a = {"moves": [{"to": [1.0, 2.0]}], "success": True}
    assert _diff(a, {"moves": [{"to": [1.0, 2.0000001]}], "success": True}) is None
    assert _diff(a, {"moves": [{"to": [1.0, 2.000002]}], "success": True})
    assert _diff(a, {"moves": [{"to": [1.0, 2.0]}], "success": False})


def write(names: list[str]) -> None:
    GOLDEN.mkdir(exist_ok=True)
    cases = all_cases()
    for name in names or list(cases):
        data, reqs = cases[name]
        rulings = rule(data, reqs)
        doc = {"scenario": data, "requests": [[c, t] for c, t in reqs], "rulings": rulings}
        (GOLDEN / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(name, [e["needed"]["roll"] for e in rulings], flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: test_identical_rulings.py --write [NAME...]")
    write(sys.argv[2:])


def test_pruned_clearance_matches_the_full_one() -> None:
    """The pruned straight-line clearance (nearby discs, cones of directions) gives the
    full test's verdict on every pair, including goals grazing a disc within 1e-6 of
    the threshold, starts inside a disc, zero-length moves and tiny blocks."""
    import numpy as np

    import chargeref.systems.w40k.solver_base as sb
    from chargeref.systems.w40k.solver_base import StraightLines

    rng = np.random.default_rng(1)
    block = sb.CLEAR_BLOCK
    try:
        for trial in range(150):
            sl = StraightLines([])
            nb = int(rng.integers(0, 40))
            sl.dc = rng.uniform(0, 30, (nb, 2))
            sl.dr = rng.uniform(0.3, 1.0, nb)
            S = rng.uniform(0, 30, (int(rng.integers(1, 20)), 2))
            P = rng.uniform(0, 30, (int(rng.integers(4, 300)), 2))
            h = len(S) // 2
            if trial % 2 and nb >= h:
                S[:h] = sl.dc[:h] + 0.1  # starts inside a disc
            P[:3] = S[0]  # zero-length moves
            if nb:
                m = min(50, len(P) - 3)
                th = rng.uniform(0, 6.3, m)
                j = rng.integers(0, nb, m)
                P[3:3 + m] = sl.dc[j] + (sl.dr[j] + 0.6 - 1e-7)[:, None] * np.c_[np.cos(th), np.sin(th)]
                k = min(30, len(P) - 3 - m)
                if k > 0:  # lines grazing a disc, within 1e-6 either side of the threshold
                    j = rng.integers(0, nb, k)
                    s0 = S[rng.integers(0, len(S), k)]
                    v = sl.dc[j] - s0
                    u = v / np.hypot(*v.T)[:, None]
                    w = np.c_[-u[:, 1], u[:, 0]]
                    P[3 + m:3 + m + k] = s0 + 2 * v + w * ((sl.dr[j] + 0.6 - 1e-7 + rng.uniform(-1e-6, 1e-6, k)) * 2)[:, None]
            reach = 12.0
            D = np.linalg.norm(P[None] - S[:, None], axis=-1)
            near = (D <= reach) & (rng.random(D.shape) < 0.9)
            sb.CLEAR_BLOCK = 60 if trial % 3 == 0 else block
            full = sl.clear_many(S, 0.6, P) & near
            assert (sl.clear_within(S, 0.6, P, near, reach) == full).all(), trial
    finally:
        sb.CLEAR_BLOCK = block


def test_unit_gaps_match_the_pair_loops() -> None:
    """system.unit_distance / in_engagement (bounded search) give world's all-pairs
    answers exactly: round and oval bases, levels, overlaps, engagement ranges."""
    from chargeref.systems.w40k import system as fast
    from chargeref.systems.w40k import world as slow

    rnd = random.Random(5)
    checked = 0
    for _ in range(120):
        units = []
        for u, pl in (("A", 1), ("B", 2)):
            ms = []
            for i in range(rnd.randint(1, 6)):
                base = rnd.choice([{"round": 32}, {"oval": [90, 52]}, {"round": 25}])
                at = [rnd.uniform(5, 15), rnd.uniform(5, 15)] + ([rnd.choice([0, 3, 6])] if rnd.random() < 0.3 else [])
                m: dict[str, Any] = {"id": f"{u}{i}", "at": at, "base": base}
                if "oval" in base:
                    m["facing"] = rnd.uniform(0, 180)
                ms.append(m)
            units.append({"id": u, "player": pl, "keywords": ["INFANTRY"], "models": ms})
        data = {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "units": units}
        w = slow.build_world(scenario_from_data(data))
        assert fast.unit_distance(w, "A", "B") == slow.unit_distance(w, "A", "B")
        for er in (None, 0.5, 2.0):
            assert fast.in_engagement(w, "A", "B", er) == slow.in_engagement(w, "A", "B", er)
        checked += 1
    assert checked == 120


def test_pair_norm_is_linalg_norm_to_the_bit() -> None:
    import numpy as np

    from chargeref.systems.w40k.solver_base import pair_norm

    r = np.random.default_rng(0)
    for _ in range(50):
        A = r.uniform(-50, 50, (int(r.integers(0, 30)), 2))
        B = r.uniform(-50, 50, (int(r.integers(0, 30)), 2))
        assert np.array_equal(pair_norm(A, B), np.linalg.norm(A[:, None, :] - B[None], axis=-1))


def test_contact_rows_match_the_per_target_loop() -> None:
    """spots._nearest_and_crossings gives, bit for bit and in order, the rows of the
    per-target locus_nearest / locus_circle_crossings loop it replaces (including a
    start on a target's centre and a zero radius)."""
    import numpy as np

    from chargeref.geometry.placement import locus_circle_crossings, locus_nearest
    from chargeref.systems.w40k.spots import _nearest_and_crossings
    from chargeref.systems.w40k.world import build_world

    rnd = random.Random(2)
    done = 0
    for trial in range(60):
        ms = [{"id": "A1", "at": [rnd.uniform(5, 25), rnd.uniform(5, 25)], "base": {"round": rnd.choice([25, 32, 40])}}]
        ts = [{"id": f"B{i}", "at": [5 + 6 * i, rnd.uniform(5, 25)], "base": {"round": rnd.choice([25, 32, 60])}} for i in range(4)]
        if trial % 5 == 0:
            ms[0]["at"] = [30.0, 40.0]
            ts[0]["at"] = [30.0, 40.0]
        ts_unit = {"id": "B", "player": 2, "keywords": ["INFANTRY"], "models": ts}
        data = {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44},
                "units": [{"id": "A", "player": 1, "keywords": ["INFANTRY"], "models": ms}, ts_unit]}
        w = build_world(scenario_from_data(data))
        m, T = w.unit_models["A"][0], w.unit_models["B"]
        for rho in (0.0, rnd.uniform(0, 14), 5.0):
            want = np.vstack([x.reshape(-1, 2) for t in T
                              for x in (locus_nearest(m.fp, t.fp, 1e-9, m.xy), locus_circle_crossings(m.fp, t.fp, 1e-9, m.xy, rho))])
            assert np.array_equal(_nearest_and_crossings(m, T, 1e-9, rho), want)
        done += 1
    assert done == 60
