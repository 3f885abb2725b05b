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
