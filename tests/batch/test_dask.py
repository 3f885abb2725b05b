"""Dask: 1 and 2 workers give identical output; a scheduler and two workers started
as separate processes on 127.0.0.1 give it too; without Dask the options are refused."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_sweep import write_files
from threat_helpers import model, scenario, unit

from chargeref.batch import sweep, threat_map
from chargeref.errors import RequestError

VENV_BIN = Path(sys.executable).parent


def two_enemies():  # noqa: ANN201
    return scenario([unit("A", 1, [model("A1", 4, 10), model("A2", 4, 11.5)]), unit("C", 1, [model("C1", 16, 10)]),
                     unit("B", 2, [model("B1", 10, 3), model("B2", 11.5, 3)])])


def test_one_and_two_workers_give_identical_maps_and_sweeps(tmp_path: Path) -> None:
    scen = two_enemies()
    ref = threat_map(scen, "B", 2.0, pool="inline")
    one = threat_map(scen, "B", 2.0, workers=1)
    two = threat_map(scen, "B", 2.0, workers=2)
    assert one.to_json_data() == ref.to_json_data() == two.to_json_data()
    assert np.array_equal(one.probability, two.probability, equal_nan=True)
    assert one.fractions == two.fractions == ref.fractions
    files = write_files(tmp_path)
    a, b = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    sweep(files, str(a), workers=1)
    sweep(files, str(b), workers=2)
    assert a.read_bytes() == b.read_bytes()
    assert len(a.read_text().splitlines()) == 9


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    """A Dask scheduler and two one-thread workers, each its own process, on 127.0.0.1."""
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"),
                                                        os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([str(VENV_BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(sched_file)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert sched_file.exists(), "the scheduler did not start"
        for _ in range(2):
            procs.append(subprocess.Popen([str(VENV_BIN / "dask"), "worker", "--scheduler-file", str(sched_file), "--nthreads", "1",
                                           "--nworkers", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        import json

        from distributed import Client

        address = json.loads(sched_file.read_text())["address"]
        with Client(address, timeout="30s") as c:
            c.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def test_an_existing_cluster_gives_the_same_output(cluster: str, tmp_path: Path) -> None:
    assert cluster.startswith("tcp://127.0.0.1:")
    scen = two_enemies()
    ref = threat_map(scen, "B", 2.0, pool="inline")
    got = threat_map(scen, "B", 2.0, scheduler=cluster)
    assert got.to_json_data() == ref.to_json_data()
    files = write_files(tmp_path)
    a, b = tmp_path / "inline.jsonl", tmp_path / "cluster.jsonl"
    sweep(files, str(a), pool="inline")
    sweep(files, str(b), scheduler=cluster)
    assert a.read_bytes() == b.read_bytes()


def test_without_dask_the_options_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    scen = two_enemies()
    with pytest.raises(RequestError) as e:
        threat_map(scen, "B", 5.0, workers=2)
    assert e.value.problems[0].field == "--workers" and "chargeref[distributed]" in e.value.problems[0].message
    with pytest.raises(RequestError) as e:
        threat_map(scen, "B", 5.0, scheduler="tcp://127.0.0.1:1")
    assert e.value.problems[0].field == "--scheduler"


def test_both_options_at_once_are_refused() -> None:
    with pytest.raises(RequestError) as e:
        threat_map(two_enemies(), "B", 5.0, workers=2, scheduler="tcp://127.0.0.1:1")
    assert e.value.problems[0].field == "--workers/--scheduler"


def test_an_unreachable_scheduler_is_refused() -> None:
    with pytest.raises(RequestError) as e:
        threat_map(two_enemies(), "B", 5.0, scheduler="tcp://127.0.0.1:9")
    assert e.value.problems[0].field == "--scheduler"
