"""The base catalogue: Warhammer 40,000 model names -> the base their kit ships with.

The facts live in ``bases.csv`` next to this module (package data). Its header records
every source with its address and date; each row names its source. Lookups forgive
case, punctuation, accents, plurals and a trailing "squad": the key of a name is its
words, lower-cased, letters and digits only, each word singular.

This module knows nothing of scenarios, rules or the command line; the scenario
parser (``chargeref.scenario.common.Base``), ``chargeref bases`` and the Tabletop
Simulator importer call it.
"""

from __future__ import annotations

import csv
import difflib
import io
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

#: The file shipped with the package.
DATA_FILE = "bases.csv"

_ROUND = re.compile(r"^(\d+(?:\.\d+)?)mm$")
_OVAL = re.compile(r"^(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)mm oval$")
#: Words that never tell two models apart ("Intercessor Squad" is an Intercessor).
_FILLER = frozenset({"squad", "the"})


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    url: str
    date: str
    read: str


@dataclass(frozen=True)
class Entry:
    name: str
    aliases: tuple[str, ...]
    #: "round", "oval" or "hull"
    kind: str
    #: (D,) for round, (L, W) for oval (long axis first), () for hull; millimetres
    dims: tuple[float, ...]
    faction: str
    source: Source

    @property
    def base_text(self) -> str:
        if self.kind == "round":
            return f"{self.dims[0]:g}mm"
        if self.kind == "oval":
            return f"{self.dims[0]:g}x{self.dims[1]:g}mm oval"
        return "hull"

    def base_data(self) -> dict[str, object] | None:
        """The scenario form of the base (``{"round": D}`` or ``{"oval": [L, W]}``);
        None for a model without a base (its hull must be drawn by the user)."""
        if self.kind == "round":
            return {"round": self.dims[0]}
        if self.kind == "oval":
            return {"oval": [self.dims[0], self.dims[1]]}
        return None

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "aliases": list(self.aliases),
            "base": self.base_data() if self.kind != "hull" else "hull",
            "faction": self.faction,
            "source": {"title": self.source.title, "url": self.source.url, "date": self.source.date},
        }


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("z"):
        return word[:-1]  # Ork plurals: boyz, gitz, nobz
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


def normalise(name: str) -> str:
    """The lookup key of a name: accents, case, apostrophes, punctuation, plurals and
    filler words removed. ``"INTERCESSOR-SQUAD"``, ``"intercessors"`` and
    ``"Intercessor"`` share the key ``"intercessor"``."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"['\u2019`]", "", text)
    words = re.sub(r"[^a-z0-9]+", " ", text).split()
    singular = (_singular(w) for w in words)
    return " ".join(w for w in singular if w not in _FILLER)


def parse_base(text: str) -> tuple[str, tuple[float, ...]]:
    """``"32mm"`` -> ("round", (32.0,)); ``"75x42mm oval"`` -> ("oval", (75.0, 42.0));
    ``"hull"`` -> ("hull", ()). Anything else is a ValueError."""
    t = text.strip()
    if t == "hull":
        return "hull", ()
    m = _ROUND.match(t)
    if m:
        return "round", (float(m.group(1)),)
    m = _OVAL.match(t)
    if m:
        a, b = float(m.group(1)), float(m.group(2))
        if a < b:
            raise ValueError(f"oval {text!r}: the long axis comes first")
        return "oval", (a, b)
    raise ValueError(f"cannot read base {text!r}")


class Catalogue:
    """The parsed table: entries in file order, sources by id, and the key index."""

    def __init__(self, entries: list[Entry], sources: dict[str, Source]):
        self.entries = entries
        self.sources = sources
        self.index: dict[str, Entry] = {}
        for e in entries:
            for n in (e.name, *e.aliases):
                k = normalise(n)
                other = self.index.get(k)
                if other is not None and other is not e:
                    raise ValueError(f"base catalogue: {n!r} of {e.name!r} has the same key as {other.name!r}")
                self.index[k] = e

    def lookup(self, name: str) -> Entry | None:
        """The entry whose name or alias has the key of ``name``, or None."""
        return self.index.get(normalise(name))

    def closest(self, name: str, n: int = 3) -> list[str]:
        """Up to ``n`` entry names closest in spelling to ``name`` (difflib ratio)."""
        keys = difflib.get_close_matches(normalise(name), list(self.index), n=n * 3, cutoff=0.6)
        out: list[str] = []
        for k in keys:
            nm = self.index[k].name
            if nm not in out:
                out.append(nm)
        return out[:n]

    def search(self, query: str | None) -> list[Entry]:
        """Every entry for an empty query; else the exact match first (if any), then
        every other entry whose name or alias key contains the query's key."""
        if not query or not normalise(query):
            return list(self.entries)
        exact = self.lookup(query)
        hits = [exact] if exact is not None else []
        q = normalise(query)
        for e in self.entries:
            if e is not exact and any(q in normalise(n) for n in (e.name, *e.aliases)):
                hits.append(e)
        return hits


def read_catalogue(text: str) -> Catalogue:
    """Parse the catalogue file: ``# source ID | title | url | date | read DATE`` header
    lines, other ``#`` comments, then CSV rows name, aliases, base, faction, source."""
    sources: dict[str, Source] = {}
    rows: list[str] = []
    for line in text.splitlines():
        if line.startswith("# source "):
            parts = [p.strip() for p in line[len("# source "):].split("|")]
            if len(parts) != 5 or not parts[4].startswith("read "):
                raise ValueError(f"base catalogue: bad source line {line!r}")
            sid, title, url, date, read = parts
            sources[sid] = Source(sid, title, url, date, read[len("read "):])
        elif line.startswith("#") or not line.strip():
            continue
        else:
            rows.append(line)
    reader = csv.DictReader(io.StringIO("\n".join(rows)))
    if reader.fieldnames != ["name", "aliases", "base", "faction", "source"]:
        raise ValueError(f"base catalogue: unexpected columns {reader.fieldnames}")
    entries = []
    for r in reader:
        if r["source"] not in sources:
            raise ValueError(f"base catalogue: {r['name']!r} cites unknown source {r['source']!r}")
        kind, dims = parse_base(r["base"])
        aliases = tuple(a.strip() for a in r["aliases"].split("|") if a.strip())
        entries.append(Entry(r["name"].strip(), aliases, kind, dims, r["faction"].strip(), sources[r["source"]]))
    return Catalogue(entries, sources)


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    """The shipped catalogue (read once)."""
    text = resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8")
    return read_catalogue(text)


def lookup(name: str) -> Entry | None:
    return catalogue().lookup(name)


def closest(name: str, n: int = 3) -> list[str]:
    return catalogue().closest(name, n)


def search(query: str | None) -> list[Entry]:
    return catalogue().search(query)


def unknown_message(name: str) -> str:
    """The sentence for a name the catalogue does not hold, with the closest names."""
    near = closest(name)
    hint = f"; closest: {', '.join(near)}" if near else "; `chargeref bases QUERY` lists the names"
    return f"no model named {name!r} in the base catalogue{hint}"


__all__ = [
    "Catalogue",
    "Entry",
    "Source",
    "catalogue",
    "closest",
    "lookup",
    "normalise",
    "parse_base",
    "read_catalogue",
    "search",
    "unknown_message",
]
