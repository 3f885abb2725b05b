"""Fuzzing the command line: mutated scenarios and rulings, hostile encodings, keys,
aliases and output paths, through click's CliRunner (fast) and a few real processes.

Every run must end in exit 0, or exit 2 with one ``chargeref: <field>: <message>``
line per problem; never a traceback or exit 1, never a changed input file, and
within the time limit. More examples on demand: CHARGEREF_FUZZ_EXAMPLES=500; new
ones (not the fixed derandomised set): CHARGEREF_FUZZ_RANDOM=1.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chargeref import service
from chargeref.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
SEEDS = {
    "40k": EX / "wtc_walkthrough.yaml",
    "40k-small": EX / "40k" / "oval_short_axis.yaml",
    "t9a": EX / "t9a" / "align_a.yaml",
    "warmaster": EX / "warmaster" / "diagram_33_3.yaml",
}
DOCS = {k: yaml.safe_load(p.read_text()) for k, p in SEEDS.items()}
TIME_LIMIT = 20.0
#: stands for a whole number of 5,000 digits (Python will not print one): encode()
#: writes the digits into the file
BIG = "__5000_DIGITS__"

SETTINGS = settings(
    max_examples=int(os.environ.get("CHARGEREF_FUZZ_EXAMPLES", "12")),
    deadline=None,
    derandomize=not os.environ.get("CHARGEREF_FUZZ_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large],
)

runner = CliRunner()


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def assert_clean(res: Any, started: float) -> None:
    """Exit 0, or exit 2 with only 'chargeref: field: message' lines; never a bug."""
    # the ruling's limit, plus reading and drawing on a busy machine
    assert time.perf_counter() - started < TIME_LIMIT + 40
    assert "Traceback" not in res.output, res.output
    assert res.exit_code in (0, 2), (res.exit_code, res.output, res.exception)
    if res.exit_code == 2:
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        violations = [ln for ln in res.stdout.splitlines() if ln.startswith("violation: ")]
        assert lines or violations, res.output
        for ln in lines:
            assert ln.startswith("chargeref: ") and ": " in ln[len("chargeref: "):], ln


# --------------------------------------------------------------------- mutations

HOSTILE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.sampled_from([10**40, -(10**40), 2**63, BIG]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 1e6, 1e7, -1e30, 5e-324]),
    st.text(max_size=12),
    st.sampled_from(["", "A", "B", "A1", "32mm", "60x35.5mm oval", "x" * 5000, "\u202e\u0000", "ruin", "chargeref/1"]),
    st.lists(st.integers(min_value=-3, max_value=60), max_size=4),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=3),
    st.dictionaries(st.text(max_size=6), st.integers(), max_size=3),
    st.just([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]),
    st.just([[float(i % 7), float(i // 7)] for i in range(1500)]),
    st.just([{"id": f"M{i}", "at": [1.0, 1.0], "base": "32mm"} for i in range(300)]),
)


@st.composite
def mutated(draw: Any, doc: dict[str, Any], n_max: int = 3) -> Any:
    """``doc`` with 1..n_max random edits: a value replaced, a key removed or added, a
    list item repeated."""
    d = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, n_max))):
        node: Any = d
        parent: Any = None
        key: Any = None
        for _depth in range(draw(st.integers(0, 6))):
            if isinstance(node, dict) and node:
                k = draw(st.sampled_from(sorted(node, key=str)))
            elif isinstance(node, list) and node:
                k = draw(st.integers(0, len(node) - 1))
            else:
                break
            parent, key, node = node, k, node[k]
        op = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "repeat"]))
        if parent is None:
            if op == "replace" and draw(st.booleans()):
                d = copy.deepcopy(draw(HOSTILE_VALUES))
            continue
        if op == "replace" or (op == "repeat" and not isinstance(node, list)):
            parent[key] = copy.deepcopy(draw(HOSTILE_VALUES))
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(node, dict):
            node[draw(st.sampled_from(["colour", "id", "at", "units", "x"]))] = copy.deepcopy(draw(HOSTILE_VALUES))
        elif op == "repeat" and node:
            node.append(copy.deepcopy(node[0]))
    return d


def encode(d: Any, how: str) -> bytes:
    """A document as bytes: JSON, YAML, YAML with anchors, other encodings, duplicate keys."""
    return _encode(d, how).replace(f'"{BIG}"'.encode(), b"9" * 5000).replace(BIG.encode(), b"9" * 5000)


def _encode(d: Any, how: str) -> bytes:
    if how == "json":
        return json.dumps(d).encode()
    if how == "yaml":
        try:
            return yaml.safe_dump(d, allow_unicode=True).encode()
        except (yaml.YAMLError, ValueError, RecursionError):
            return json.dumps(d).encode()
    if how == "yaml-anchors":  # the first unit's base as an anchor, aliased by others
        text = json.dumps(d)
        return ("base: &b {round: 32}\nalias_everywhere: [" + ", ".join(["*b"] * 50) + "]\n"
                + "doc: " + text + "\n").encode()
    if how == "utf16":
        return json.dumps(d).encode("utf-16")
    if how == "utf16-no-bom":
        return json.dumps(d).encode("utf-16-le")
    if how == "utf8-bom":
        return json.dumps(d).encode("utf-8-sig")
    if how == "dup-key":
        text = json.dumps(d)
        return (text[:1] + '"format": "chargeref/1", ' + text[1:]).encode() if text.startswith("{") else text.encode()
    if how == "truncated":
        b = json.dumps(d).encode()
        return b[: max(1, len(b) // 2)]
    raise AssertionError(how)


ENCODINGS = st.sampled_from(["json", "json", "yaml", "yaml", "yaml-anchors", "utf16", "utf16-no-bom", "utf8-bom",
                             "dup-key", "truncated"])


def ids(doc: Any) -> list[str]:
    try:
        return [u["id"] for u in doc["units"] if isinstance(u, dict) and isinstance(u.get("id"), str)]
    except (KeyError, TypeError):
        return []


# --------------------------------------------------------------------- tests


@SETTINGS
@given(data=st.data(), which=st.sampled_from(sorted(SEEDS)), how=ENCODINGS)
@example(data=None, which="40k", how="json")
def test_check_on_mutated_scenarios(tmp_path_factory, data, which, how):
    doc = DOCS[which] if data is None else data.draw(mutated(DOCS[which]))
    path = tmp_path_factory.mktemp("f") / "s.data"
    path.write_bytes(encode(doc, how))
    h = digest(path)
    t = time.perf_counter()
    res = runner.invoke(main, ["check", str(path)])
    assert_clean(res, t)
    assert digest(path) == h
    # the service says the same as the command
    try:
        verdict = service.check(service.load_path(path))["ok"]
    except Exception as exc:  # noqa: BLE001 - only refusals may come out of the loader
        from chargeref.errors import ChargerefError

        assert isinstance(exc, ChargerefError), exc
        verdict = False
    assert verdict == (res.exit_code == 0)


DICE = st.one_of(st.none(), st.text(alphabet="0123456789,- ", max_size=8), st.sampled_from(["3,4", "1", "6,6,6", "2,5"]))
NUMBERS = st.one_of(st.none(), st.integers(-20, 20), st.sampled_from(["1e30", "-1", "1000", "7.5", "x"]))


@st.composite
def charge_args(draw: Any, doc: Any) -> tuple[list[str], list[str]]:
    """(charger, targets and modifier: what odds takes too; the other charge options)"""
    units = ids(doc) + ["Z", ""]
    base = ["--charger", draw(st.sampled_from(units))]
    for t in draw(st.lists(st.sampled_from(units), min_size=0, max_size=2)):
        base += ["--target", t]
    mod = draw(NUMBERS)
    if mod is not None:
        base += ["--modifier", str(mod)]
    args: list[str] = []
    for opt, strat in (("--dice", DICE), ("--roll", NUMBERS), ("--seed", NUMBERS),
                       ("--reaction-dice", DICE), ("--redirect", st.one_of(st.none(), st.sampled_from(units))),
                       ("--reaction", st.one_of(st.none(), st.sampled_from(["hold", "flee", "stand_and_shoot"]))),
                       ("--casualty", st.one_of(st.none(), st.sampled_from(["A1", "B1", "Z9"])))):
        v = draw(strat)
        if v is not None:
            args += [opt, str(v)]
    return base, args


@SETTINGS
@given(data=st.data(), which=st.sampled_from(sorted(SEEDS)), mutate=st.booleans())
@example(data=None, which="t9a", mutate=False)
def test_charge_and_odds_with_hostile_arguments(tmp_path_factory, data, which, mutate):
    doc = DOCS[which] if data is None or not mutate else data.draw(mutated(DOCS[which], 1))
    folder = tmp_path_factory.mktemp("c")
    path = folder / "s.json"
    path.write_bytes(encode(doc, "json"))
    h = digest(path)
    if data is None:
        base, args = ["--charger", "A", "--target", "B"], ["--dice", "3,4"]
    else:
        base, args = data.draw(charge_args(doc))
    out = data.draw(st.sampled_from([None, "out.json", "s.json", "link.json", "sub/r.json"])) if data else "out.json"
    if out == "link.json":
        (folder / "link.json").symlink_to(path)
    extra = ["--out", str(folder / out)] if out else []
    t = time.perf_counter()
    res = runner.invoke(main, ["charge", str(path), *base, *args, *extra, "--time-limit", str(TIME_LIMIT)])
    assert_clean(res, t)
    assert digest(path) == h
    if res.exit_code == 2 and out and out not in ("s.json", "link.json"):
        assert not (folder / out).exists()  # nothing written for a refused ruling
    t = time.perf_counter()
    assert_clean(runner.invoke(main, ["odds", str(path), *base, "--time-limit", str(TIME_LIMIT)]), t)


@SETTINGS
@given(data=st.data(), which=st.sampled_from(["t9a", "warmaster", "40k-small"]), how=ENCODINGS)
def test_phase_and_draw_on_mutated_scenarios(tmp_path_factory, data, which, how):
    doc = data.draw(mutated(DOCS[which], 2))
    folder = tmp_path_factory.mktemp("p")
    path = folder / "s.yaml"
    path.write_bytes(encode(doc, how))
    h = digest(path)
    checked = runner.invoke(main, ["check", str(path)])
    t = time.perf_counter()
    res = runner.invoke(main, ["phase", str(path), "--seed", "3", "--time-limit", str(TIME_LIMIT),
                               "--out", str(folder / "p.json")])
    assert_clean(res, t)
    if checked.exit_code == 0 and res.exit_code == 2:
        # one validation path: what check accepts, phase accepts (it may still find no
        # charges to make, or run out of time)
        assert ("chargeref: charges: the scenario declares no charges" in res.stderr
                or "chargeref: --time-limit:" in res.stderr), res.stderr
    t = time.perf_counter()
    assert_clean(runner.invoke(main, ["draw", str(path), "--svg", str(data.draw(st.sampled_from([folder / "d.svg", path])))]), t)
    assert digest(path) == h


RULING = service.charge(DOCS["40k"], "A", ["B"], roll=8)


@SETTINGS
@given(data=st.data(), how=ENCODINGS)
@example(data=None, how="utf16")
def test_validate_on_mutated_rulings(tmp_path_factory, data, how):
    ruling = RULING if data is None else data.draw(mutated(RULING, 2))
    folder = tmp_path_factory.mktemp("v")
    rp = folder / "r.json"
    rp.write_bytes(encode(ruling, how))
    h = digest(rp)
    t = time.perf_counter()
    res = runner.invoke(main, ["validate", str(SEEDS["40k"]), str(rp)])
    assert_clean(res, t)
    assert digest(rp) == h
    if data is None:
        assert res.exit_code == 0, res.output


# --------------------------------------------------------------------- real processes


def _run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "chargeref.cli", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def test_real_processes_refuse_hostile_files(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x]"] + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
    bomb.write_text("\n".join(lines) + "\n")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    src = tmp_path / "in.yaml"
    src.write_bytes(SEEDS["40k"].read_bytes())
    h = digest(src)
    (tmp_path / "link.svg").symlink_to(src)
    cases = [
        (["check", str(bomb)], "aliases expand"),
        (["check", str(deep)], "nested more than"),
        (["check", "/dev/zero", "--max-bytes", "100000"], "larger than 100000 bytes"),
        (["charge", str(src), "--charger", "A", "--target", "B", "--roll", "1e30"], "--roll"),
        (["charge", str(src), "--charger", "A", "--target", "B", "--roll", "8", "--svg", str(tmp_path / "link.svg")], "--svg"),
        (["validate", str(src), str(bomb)], "aliases expand"),
    ]
    for args, words in cases:
        t = time.perf_counter()
        p = _run(args)
        assert time.perf_counter() - t < 60
        assert p.returncode == 2, (args, p.stderr)
        assert "Traceback" not in p.stderr
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("chargeref: ") and words in lines[0], (args, p.stderr)
    assert digest(src) == h
    ok = _run(["check", str(src)])
    assert ok.returncode == 0 and ok.stdout.startswith("ok: 40k")
