"""Generated hostile files through the guarded loader and the service: each is refused
with a ChargerefError naming the document or field (never another exception), fast.

The corpus covers the kinds the hostile-input report found: YAML bombs and cycles,
deep nesting, huge numbers, duplicate keys, encodings, sizes and counts over the
limits, and values of the wrong type.
"""

from __future__ import annotations

import codecs
import json
import time
from pathlib import Path

import pytest
import yaml

from chargeref import service
from chargeref.errors import ChargerefError
from chargeref.scenario.limits import DEFAULT_LIMITS, Limits, limits_from_env

ROOT = Path(__file__).resolve().parents[2]
WALK = ROOT / "examples" / "wtc_walkthrough.yaml"


def laughs(levels: int = 12, width: int = 9) -> str:
    lines = ["a0: &a0 [" + ",".join(["x"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def base_doc() -> dict:
    return yaml.safe_load(WALK.read_text())


def with_models(n: int) -> dict:
    d = base_doc()
    d["units"] = [d["units"][0]]
    d["units"][0]["models"] = [{"id": f"M{i}", "at": [1 + (i % 40), 1 + i // 40], "base": "25mm"} for i in range(n)]
    return d


HOSTILE: dict[str, tuple[bytes, str]] = {
    "billion laughs": (laughs().encode(), "aliases expand"),
    "self alias": (b"a: &x [1, *x]\n", "inside its own anchor"),
    "self alias mapping": (b"a: &x {b: *x}\n", "inside its own anchor"),
    "deep json list": (b"[" * 50_000 + b"]" * 50_000, "nested more than"),
    "deep json dict": (b'{"a":' * 5_000 + b"1" + b"}" * 5_000, "nested more than"),
    "deep yaml flow": (b"a: " + b"[" * 5_000 + b"]" * 5_000, "nested more than"),
    "deep yaml block": ("".join("  " * i + "- \n" for i in range(300)).encode(), "nested more than"),
    "huge int json": (b'{"a": ' + b"9" * 5000 + b"}", "digits"),
    "huge int yaml": (b"a: " + b"9" * 5000 + b"\n", "digits"),
    "nan json": (b'{"a": NaN}', "not a finite number"),
    "infinity json": (b'{"a": [1, -Infinity]}', "not a finite number"),
    "nan yaml": (b"a: .nan\n", "not a finite number"),
    "1e400 json": (b'{"a": 1e400}', "not a finite number"),
    "1e30": (b"a: 1.0e+30\n", "too large"),
    "dup key json": (b'{"format": "chargeref/1", "format": "x"}', "duplicate key 'format'"),
    "dup key yaml": (b"units: []\nunits: []\n", "duplicate key 'units'"),
    "dup key nested": (b"a: {b: 1, b: 2}\n", "duplicate key 'b'"),
    "utf16 no bom": ("format: chargeref/1\n".encode("utf-16-le"), "NUL"),
    "latin1": ("id: caf\xe9\n".encode("latin-1"), "not UTF-8"),
    "bad utf16 after bom": (codecs.BOM_UTF16_LE + b"\x00\xd8", "not valid UTF-16"),
    "empty": (b"", "empty"),
    "whitespace": (b"  \n\t\n", "empty"),
    "binary": (bytes(range(256)) * 4, "not UTF-8"),
    "yaml binary tag": (b"a: !!binary aGVsbG8=\n", "unsupported value"),
    "yaml timestamp": (b"a: 2001-12-14\n", "unsupported value"),
    "yaml python tag": (b"a: !!python/object/apply:os.system ['true']\n", "neither valid JSON nor YAML"),
    "yaml set": (b"a: !!set {x, y}\n", "unsupported value"),
    "bad yaml": (b"a: [unclosed\n", "neither valid JSON nor YAML"),
    "non-string key": (b"1: a\n", "is not text"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_document_refused_fast(name):
    data, words = HOSTILE[name]
    t = time.perf_counter()
    with pytest.raises(ChargerefError) as info:
        service.load_document(data, source="doc")
    assert time.perf_counter() - t < 5.0
    text = str(info.value)
    assert words in text, text
    assert all(p.field for p in info.value.problems)


def test_utf16_and_utf8_bom_are_read():
    text = WALK.read_text()
    for enc in ("utf-8-sig", "utf-16", "utf-32"):
        assert service.load_document(text.encode(enc)) == base_doc()


@pytest.mark.parametrize("n,ok", [(DEFAULT_LIMITS.max_models, True), (DEFAULT_LIMITS.max_models + 1, False)])
def test_model_count_limit_edge(n, ok):
    d = with_models(n)
    probs = [p for p in _problems(d) if "the limit is" in p.message]
    assert (not probs) == ok, probs
    if not ok:
        assert probs[0].field == "units" and f"{n} models: the limit is {DEFAULT_LIMITS.max_models}" in probs[0].message


def _problems(d):
    from chargeref.scenario.limits import count_problems

    return count_problems(d)


@pytest.mark.parametrize("n,ok", [(1000, True), (1001, False)])
def test_points_per_wall_limit_edge(n, ok):
    d = base_doc()
    d["terrain"] = [{"type": "wall", "id": "W", "points": [[1 + 0.01 * i, 1 + (i % 2) * 0.01] for i in range(n)]}]
    probs = _problems(d)
    assert (not probs) == ok
    if not ok:
        assert probs[0].field == "terrain[W].points" and "1001 points: the limit is 1000" in probs[0].message


def test_walls_of_100000_points_refused_quickly():
    d = base_doc()
    d["terrain"] = [{"type": "wall", "id": "W", "points": [[1 + 1e-5 * i, 1] for i in range(100_000)]}]
    t = time.perf_counter()
    with pytest.raises(ChargerefError) as info:
        service.parse_scenario(service.load_document(json.dumps(d)))
    assert time.perf_counter() - t < 15.0
    assert info.value.problems[0].field == "terrain[W].points"


@pytest.mark.parametrize("value,ok", [(1e6, True), (1.000001e6, False), (-1e6, True), (10**9, True), (10**9 + 1, False)])
def test_number_magnitude_edges(value, ok):
    doc = json.dumps({"a": [value]}).encode()
    if ok:
        assert service.load_document(doc)["a"] == [value]
    else:
        with pytest.raises(ChargerefError) as info:
            service.load_document(doc)
        assert info.value.problems[0].field == "a[0]"


@pytest.mark.parametrize("depth,ok", [(64, True), (65, False)])
def test_depth_limit_edge(depth, ok):
    for doc in ("[" * depth + "]" * depth, "a: " + "[" * (depth - 1) + "]" * (depth - 1)):
        if ok:
            service.load_document(doc)
        else:
            with pytest.raises(ChargerefError, match="nested more than 64"):
                service.load_document(doc)


@pytest.mark.parametrize("size,ok", [(1000, True), (1001, False)])
def test_size_cap_edge(tmp_path, size, ok):
    lim = Limits(max_bytes=1000)
    p = tmp_path / "s.json"
    p.write_bytes(b'{"a": "' + b"x" * (size - 9) + b'"}')
    assert p.stat().st_size == size
    if ok:
        service.load_path(p, limits=lim)
    else:
        with pytest.raises(ChargerefError, match="larger than 1000 bytes"):
            service.load_path(p, limits=lim)


def test_endless_device_is_cut_at_the_cap():
    t = time.perf_counter()
    with pytest.raises(ChargerefError, match="larger than"):
        service.load_path("/dev/zero", limits=Limits(max_bytes=1_000_000))
    assert time.perf_counter() - t < 5.0


def test_aliases_within_budget_are_fine():
    doc = "b: &b {round: 32}\nlist: [" + ", ".join(["*b"] * 500) + "]\n"
    assert len(service.load_document(doc)["list"]) == 500
    with pytest.raises(ChargerefError, match="more than 10 YAML aliases"):
        service.load_document(doc, limits=Limits(max_aliases=10))


def test_limits_from_env():
    lim = limits_from_env({"CHARGEREF_MAX_BYTES": "123", "CHARGEREF_MAX_MODELS": "9"})
    assert lim.max_bytes == 123 and lim.max_models == 9
    for bad in ("0", "-4", "lots", "1" * 40):
        with pytest.raises(ChargerefError) as info:
            limits_from_env({"CHARGEREF_MAX_BYTES": bad})
        assert info.value.problems[0].field == "CHARGEREF_MAX_BYTES"
