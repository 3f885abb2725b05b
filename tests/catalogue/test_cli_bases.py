"""``chargeref bases``: listing, JSON, and the no-match refusal."""

from __future__ import annotations

import json

from click.testing import CliRunner

from chargeref.cli import main

runner = CliRunner()


def run(*args: str):
    return runner.invoke(main, list(args), catch_exceptions=False)


def test_exact_name_first_with_base_and_source():
    res = run("bases", "INTERCESSOR-SQUAD")
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[0]
    assert first.startswith("Intercessor ") and "32mm" in first and "[bh]" in first
    assert "Heavy Intercessor" in res.output and "40mm" in res.output
    assert "https://en-blastedhorizons.blogspot.com" in res.output and "2025-03-15" in res.output


def test_json():
    res = run("bases", "outriders", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["format"] == "chargeref-bases/1"
    assert data["matches"][0]["name"] == "Outrider"
    assert data["matches"][0]["base"] == {"oval": [90.0, 52.0]}
    assert data["matches"][0]["source"]["date"] == "2025-03-15"
    assert data["closest"] == []


def test_all_without_query():
    res = run("bases", "--json")
    assert res.exit_code == 0
    assert len(json.loads(res.output)["matches"]) >= 300


def test_no_match_suggests_closest_and_exits_2():
    res = run("bases", "Intercesor")
    assert res.exit_code == 2
    assert "no match in the base catalogue; closest: Intercessor" in res.output
    res = run("bases", "Intercesor", "--json")
    assert res.exit_code == 2
    assert json.loads(res.output)["closest"][0] == "Intercessor"


def test_hull_is_shown_as_hull():
    res = run("bases", "rhino")
    assert res.exit_code == 0 and "hull" in res.output.splitlines()[0]


def test_check_accepts_catalogue_bases_and_names_the_unknown(tmp_path):
    good = tmp_path / "s.yaml"
    good.write_text(
        "format: chargeref/1\nsystem: 40k\nboard: {width: 60, depth: 44}\nunits:\n"
        "  - id: A\n    player: 1\n    base: {catalogue: Intercessors}\n    models:\n"
        "      - {id: A1, at: [10, 10]}\n      - {id: A2, at: [12, 10], base: Outrider}\n"
        "  - id: B\n    player: 2\n    models:\n      - {id: B1, at: [30, 30], base: 60x35.5mm oval}\n")
    res = run("check", str(good))
    assert res.exit_code == 0, res.output
    bad = tmp_path / "b.yaml"
    bad.write_text(good.read_text().replace("Outrider", "Outridr"))
    res = run("check", str(bad))
    assert res.exit_code == 2
    assert "units[A].models[A2].base.catalogue: no model named 'Outridr' in the base catalogue; closest: Outrider" in res.output
