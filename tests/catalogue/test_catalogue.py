"""The base catalogue: the data file, forgiving lookups, suggestions, scenario bases."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chargeref.catalogue import (
    catalogue,
    closest,
    lookup,
    normalise,
    parse_base,
    read_catalogue,
    search,
    unknown_message,
)
from chargeref.errors import ScenarioError
from chargeref.geometry.bases import base_footprint
from chargeref.scenario import scenario_from_data, scenario_to_data
from chargeref.systems import find_system

MM = 25.4


def test_the_file_records_dated_sources_and_every_row_cites_one():
    cat = catalogue()
    assert len(cat.entries) >= 300
    assert set(cat.sources) == {"bh", "kit"}
    for s in cat.sources.values():
        assert s.url.startswith(("https://", "http://"))
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}|undated", s.date)
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", s.read)
    assert all(e.source.id in cat.sources for e in cat.entries)


def test_every_entry_parses_to_a_valid_footprint():
    for e in catalogue().entries:
        if e.kind == "hull":
            assert e.base_data() is None
            continue
        data = e.base_data()
        kind, dims = next(iter(data.items()))
        assert kind in ("round", "oval")
        assert all(10 <= d <= 200 for d in (dims if isinstance(dims, list) else [dims])), e.name
        fp = base_footprint(kind, dims, (10.0, 10.0), 30.0, MM)
        # the footprint reaches exactly half the long size from the centre
        long_mm = dims if kind == "round" else dims[0]
        assert fp.radius == pytest.approx(long_mm / 2 / MM, abs=1e-9), e.name
        if kind == "oval":
            assert dims[0] >= dims[1]


def test_every_entry_is_a_valid_scenario_base():
    """A unit of each (non-hull) entry, alone on a board, passes check."""
    units = []
    for i, e in enumerate(x for x in catalogue().entries if x.kind != "hull"):
        units.append({"id": f"U{i}", "player": 1,
                      "models": [{"id": f"M{i}", "at": [10 + (i % 20) * 10, 10 + (i // 20) * 10],
                                  "base": {"catalogue": e.name}}]})
    scen = scenario_from_data({"format": "chargeref/1", "system": "40k",
                               "board": {"width": 220, "depth": 300}, "units": units})
    assert find_system("40k").problems(scen) == []


def test_every_name_and_alias_finds_its_entry():
    cat = catalogue()
    for e in cat.entries:
        for n in (e.name, *e.aliases):
            assert lookup(n) is e, n
            assert lookup(n.upper()) is e
            assert lookup(n.lower().replace(" ", "-")) is e


@pytest.mark.parametrize(
    "query",
    ["Intercessor", "intercessors", "INTERCESSOR-SQUAD", "Intercessor Squad", "  intercessor!!", "Intercessor_Sergeant",
     "primaris  intercessors"],
)
def test_lookup_is_case_and_punctuation_insensitive(query):
    e = lookup(query)
    assert e is not None and e.name == "Intercessor" and e.base_text == "32mm"


def test_accents_apostrophes_and_ork_plurals():
    assert lookup("Brôkhyr Iron-master").name == "Brokhyr Iron-master"
    assert lookup("Ctan Shard of the Deceiver").name == "C'tan Shard of the Deceiver"
    assert lookup("c’tan shard of the void dragon").base_text == "80mm"
    assert lookup("Boyz").name == "Boy" and lookup("flash gitz").name == "Flash Git"
    assert lookup("Termagants").base_text == "28mm"
    assert lookup("The Silent King").name == "The Silent King" == lookup("silent king").name


def test_normalise():
    assert normalise("INTERCESSOR-SQUAD") == "intercessor"
    assert normalise("Von Ryan's Leapers") == "von ryan leaper"
    assert normalise("Magnus") == "magnus"  # -us is not a plural
    assert normalise("Harpies") == "harpy"


def test_ovals_and_hulls():
    assert lookup("Outrider").base_data() == {"oval": [90.0, 52.0]}
    assert lookup("Knight Paladin").base_data() == {"oval": [170.0, 109.0]}
    assert lookup("Rhino").kind == "hull" and lookup("Rhino").base_data() is None


def test_closest_names_for_a_misspelling():
    assert closest("Intercesor")[0] == "Intercessor"
    assert "Terminator" in closest("Terminatr")
    msg = unknown_message("Intercesor")
    assert "no model named 'Intercesor'" in msg and "closest: Intercessor" in msg
    assert "chargeref bases" in unknown_message("zzzzzzzzzzzzqqq")


def test_search_lists_exact_first_then_containing():
    hits = search("terminator")
    assert hits[0].name == "Terminator"
    names = {e.name for e in hits}
    assert {"Captain in Terminator Armour", "Chaos Terminator", "Blightlord Terminator"} <= names
    assert search("") == catalogue().entries
    assert search("qqqqq") == []


def test_parse_base_grammar():
    assert parse_base("32mm") == ("round", (32.0,))
    assert parse_base("28.5mm") == ("round", (28.5,))
    assert parse_base("75x42mm oval") == ("oval", (75.0, 42.0))
    assert parse_base("hull") == ("hull", ())
    for bad in ("32", "32 mm", "42x75mm oval", "75x42mm", "round"):
        with pytest.raises(ValueError):
            parse_base(bad)


def test_read_catalogue_refuses_bad_files():
    head = "# source a | T | https://x | 2025-01-01 | read 2026-11-24\nname,aliases,base,faction,source\n"
    assert read_catalogue(head + "Foo,,32mm,X,a\n").lookup("foos").name == "Foo"
    with pytest.raises(ValueError, match="unknown source"):
        read_catalogue(head + "Foo,,32mm,X,b\n")
    with pytest.raises(ValueError, match="same key"):
        read_catalogue(head + "Foo,,32mm,X,a\nFoos,,40mm,X,a\n")
    with pytest.raises(ValueError, match="bad source"):
        read_catalogue("# source a | T\n" + head)


@given(st.sampled_from([n for e in catalogue().entries for n in (e.name, *e.aliases)]),
       st.lists(st.sampled_from(["upper", "lower", "dash", "punct", "plural", "squad", "spaces"]), max_size=4))
@example("Intercessor", ["upper", "dash", "squad"])
@example("Boy", ["plural"])
@settings(max_examples=60, derandomize=True, deadline=None)
def test_spelling_variants_find_the_same_entry(name, edits):
    want = lookup(name)
    text = name
    for ed in edits:
        if ed == "upper":
            text = text.upper()
        elif ed == "lower":
            text = text.lower()
        elif ed == "dash":
            text = text.replace(" ", "-")
        elif ed == "punct":
            text = f"{text}!?"
        elif ed == "plural" and not re.search(r"(s|z)\W*$", text, re.I):
            text = re.sub(r"([A-Za-z0-9])(\W*)$", r"\1s\2", text)
        elif ed == "squad":
            text = text + " Squad"
        elif ed == "spaces":
            text = "  " + text.replace(" ", "   ") + " "
    got = lookup(text)
    # a plural may land on a different entry only if that entry is itself named so
    assert got is want or (("plural" in edits) and got is not None and normalise(text) == normalise(name + "s"))


# ----------------------------------------------------------------- scenario bases


def scen(units):
    return {"format": "chargeref/1", "system": "40k", "board": {"width": 60, "depth": 44}, "units": units}


def test_catalogue_base_in_a_scenario_is_resolved_and_reloads():
    s = scenario_from_data(scen([
        {"id": "A", "player": 1, "models": [
            {"id": "A1", "at": [10, 10], "base": {"catalogue": "intercessors"}},
            {"id": "A2", "at": [12, 10], "base": "Intercessor Sergeant"}]}]))
    m1, m2 = s.units[0].models
    assert (m1.base.kind, m1.base.round, m1.base.catalogue) == ("round", 32.0, "Intercessor")
    assert m2.base == m1.base
    data = scenario_to_data(s)
    assert data["units"][0]["models"][0]["base"] == {"round": 32.0, "catalogue": "Intercessor"}
    assert scenario_to_data(scenario_from_data(data)) == data


def test_unit_base_is_inherited_and_a_models_own_base_wins():
    s = scenario_from_data(scen([
        {"id": "A", "player": 1, "base": {"catalogue": "Terminator"}, "models": [
            {"id": "A1", "at": [10, 10]},
            {"id": "A2", "at": [12, 10], "base": "50mm"},
            {"id": "A3", "at": [14, 10], "base": {"oval": [75, 42]}}]}]))
    a1, a2, a3 = s.units[0].models
    assert (a1.base.round, a2.base.round, a3.base.oval) == (40.0, 50.0, (75.0, 42.0))
    assert s.units[0].base.round == 40.0
    assert find_system("40k").problems(s) == []


def test_short_strings():
    s = scenario_from_data(scen([{"id": "A", "player": 1, "models": [
        {"id": "A1", "at": [10, 10], "base": "32mm"},
        {"id": "A2", "at": [20, 10], "base": "60x35.5mm oval"},
        {"id": "A3", "at": [30, 10], "base": "25x50mm"}]}]))
    b = [m.base for m in s.units[0].models]
    assert (b[0].round, b[1].oval, b[2].rect) == (32.0, (60.0, 35.5), (25.0, 50.0))


@pytest.mark.parametrize(
    ("base", "field", "words"),
    [
        ({"catalogue": "Intercesor"}, "units[A].models[A1].base.catalogue", "closest: Intercessor"),
        ("Intercesor", "units[A].models[A1].base.catalogue", "closest: Intercessor"),
        ({"catalogue": "Rhino"}, "units[A].models[A1].base.catalogue", "hull"),
        ("33 mmm", "units[A].models[A1].base", "cannot read base"),
        ({"catalogue": ""}, "units[A].models[A1].base.catalogue", "at least 1"),
    ],
)
def test_unknown_catalogue_names_are_refused_naming_the_field(base, field, words):
    with pytest.raises(ScenarioError) as err:
        scenario_from_data(scen([{"id": "A", "player": 1, "models": [{"id": "A1", "at": [10, 10], "base": base}]}]))
    probs = err.value.problems
    assert probs[0].field == field and words in probs[0].message, probs


def test_unknown_unit_base_is_refused_at_the_unit():
    with pytest.raises(ScenarioError) as err:
        scenario_from_data(scen([{"id": "A", "player": 1, "base": "Intercesor", "models": [{"id": "A1", "at": [10, 10]}]}]))
    fields = [p.field for p in err.value.problems]
    assert "units[A].base.catalogue" in fields


def test_a_shape_beside_a_name_is_the_base():
    s = scenario_from_data(scen([{"id": "A", "player": 1, "models": [
        {"id": "A1", "at": [10, 10], "base": {"round": 40, "catalogue": "Intercessor"}}]}]))
    assert s.units[0].models[0].base.round == 40.0


def test_charge_with_catalogue_bases_matches_explicit_bases():
    """The same scenario with catalogue names and with the sizes written out gives the
    same least distance."""
    def units(base_a, base_b):
        return [
            {"id": "A", "player": 1, "base": base_a, "models": [{"id": f"A{i}", "at": [20 + 2 * i, 10]} for i in range(3)]},
            {"id": "B", "player": 2, "base": base_b, "models": [{"id": f"B{i}", "at": [20 + 2 * i, 17]} for i in range(3)]},
        ]
    from chargeref.systems import ChargeRequest

    sys40 = find_system("40k")
    req = ChargeRequest(charger="A", targets=("B",), dice=(3, 3))
    r1 = sys40.charge(scenario_from_data(scen(units({"catalogue": "Intercessor"}, "Outrider"))), req)
    r2 = sys40.charge(scenario_from_data(scen(units({"round": 32}, {"oval": [90, 52]}))), req)
    assert r1.needed.distance == r2.needed.distance
    assert math.isclose(r1.needed.distance, 7 - 16 / MM - 45 / MM - 1, abs_tol=1e-6)


def test_the_after_scenario_of_a_ruling_loads_again():
    from chargeref.systems import ChargeRequest

    data = scen([
        {"id": "A", "player": 1, "base": "Intercessor", "models": [{"id": f"A{i}", "at": [20 + 2 * i, 10]} for i in range(3)]},
        {"id": "B", "player": 2, "models": [{"id": "B0", "at": [22, 17], "base": {"catalogue": "Outrider"}}]},
    ])
    ruling = find_system("40k").charge(scenario_from_data(data), ChargeRequest(charger="A", targets=("B",), dice=(6, 6)))
    assert ruling.success is True
    after = scenario_from_data(ruling.after)
    assert find_system("40k").problems(after) == []
    bases = {m.id: m.base for u in after.units for m in u.models}
    assert bases["A0"].round == 32.0 and bases["A0"].catalogue == "Intercessor"
    assert bases["B0"].oval == (90.0, 52.0)
