"""The guarded loader: bytes of a JSON or YAML document -> plain data, within limits.

Every command and the web API read documents through here. What it refuses, naming
the document (and the key or line where it can):

* more than ``max_bytes`` (a file is read with a bound: ``max_bytes + 1`` at most, so
  a device that never ends is cut off);
* text that is not UTF-8 (a UTF-16 or UTF-32 byte-order mark is honoured);
* nesting deeper than ``max_depth`` (JSON is measured before parsing; YAML while
  composing, so neither parser recurses without bound);
* YAML aliases beyond ``max_aliases``, an alias inside its own anchor (a cycle), and
  documents whose aliases would expand past ``max_nodes`` values ("billion laughs");
* a key given twice in one mapping (JSON and YAML);
* whole numbers written with more than ``max_int_digits`` digits;
* then :func:`chargeref.scenario.limits.check_values` (magnitudes, depth, counts), which
  also refuses NaN and the infinities (JSON's ``NaN``/``Infinity``, YAML's ``.nan``/``.inf``,
  a number too large for a float), naming the field that holds one.

YAML booleans follow YAML 1.2 (the JSON schema): only ``true``/``false`` (also ``True``,
``TRUE``, ``False``, ``FALSE``) are booleans. YAML 1.1's ``yes``, ``no``, ``on`` and ``off``
stay text, so a boolean field given ``yes`` is refused naming the field, and an id or a
name written ``no`` stays that text.
"""

from __future__ import annotations

import codecs
import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import Problem, ScenarioError
from .limits import DEFAULT_LIMITS, Limits, check_values

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def read_path(path: str | Path, *, source: str | None = None, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """At most ``limits.max_bytes`` bytes of a file; more is refused (never read whole)."""
    src = source or str(path)
    p = Path(path)
    try:
        if p.is_dir():
            raise ScenarioError(Problem(src, "is a directory, not a file"))
        with p.open("rb") as fh:
            data = fh.read(limits.max_bytes + 1)
    except FileNotFoundError:
        raise ScenarioError(Problem(src, "no such file")) from None
    except ScenarioError:
        raise
    except (OSError, ValueError) as exc:
        raise ScenarioError(Problem(src, f"cannot read: {getattr(exc, 'strerror', None) or exc.__class__.__name__}")) from None
    if len(data) > limits.max_bytes:
        raise ScenarioError(Problem(src, f"larger than {limits.max_bytes} bytes (raise it with --max-bytes or CHARGEREF_MAX_BYTES)"))
    return data


def decode(data: bytes, source: str = "scenario") -> str:
    """UTF-8 (or UTF-16/32 with a byte-order mark) -> text; anything else is refused."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(enc)
            except UnicodeDecodeError as exc:
                raise ScenarioError(Problem(source, f"not valid {enc.upper()} text (byte {exc.start + len(bom)})")) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        hint = " (it looks like UTF-16 without a byte-order mark; save it as UTF-8)" if data[:2].count(0) == 1 else ""
        raise ScenarioError(Problem(source, f"not UTF-8 text (byte {exc.start}){hint}")) from None


# ----------------------------------------------------------------------- JSON

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def json_depth(text: str) -> int:
    """The deepest nesting of [ and { outside strings (linear, no recursion)."""
    bare = _STRING.sub("", text).encode("utf-8", "surrogatepass")
    if not bare:
        return 0
    arr = np.frombuffer(bare, dtype=np.uint8)
    step = ((arr == 0x5B) | (arr == 0x7B)).astype(np.int64) - ((arr == 0x5D) | (arr == 0x7D)).astype(np.int64)
    return int(np.cumsum(step).max(initial=0))


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Parsing builds many small containers; the cycle collector, run again and again
    over them, would make a large document cost far more than its size."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _json(text: str, source: str, limits: Limits) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ScenarioError(Problem(source, f"duplicate key {k[:60]!r}"))
            out[k] = v
        return out

    # NaN, Infinity and -Infinity (not JSON, but Python writes them) are read as floats
    # here so that check_values refuses them naming the field that holds them; whole
    # numbers too long for Python are refused below; long ones it can read, and floats
    # that overflow to infinity, are refused by check_values too
    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=float)
    except (ScenarioError, json.JSONDecodeError):
        raise
    except ValueError as exc:  # Python's own limit on the digits of a whole number
        raise ScenarioError(Problem(source, f"a whole number with too many digits ({one_line(exc)[:80]})")) from None


# ----------------------------------------------------------------------- YAML


def _line(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


_BOOL_TAG = "tag:yaml.org,2002:bool"


class _Yaml12Bools(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's booleans: ``true``/``false`` in three
    spellings each; ``yes``/``no``/``on``/``off`` resolve as text (see the module note)."""

    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _BOOL_TAG]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


_Yaml12Bools.add_implicit_resolver(_BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def _guarded_loader(limits: Limits, source: str) -> type[yaml.SafeLoader]:
    class Guarded(_Yaml12Bools):
        """A SafeLoader that bounds depth, aliases and expansion, and refuses cycles,
        duplicate keys and huge integers."""

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._depth = 0
            self._aliases = 0
            self._open: set[str] = set()
            self._size: dict[int, int] = {}

        def compose_node(self, parent: Node | None, index: Any) -> Node:  # type: ignore[override]
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                self._aliases += 1
                if self._aliases > limits.max_aliases:
                    raise ScenarioError(Problem(source, f"more than {limits.max_aliases} YAML aliases "
                                                        "(raise CHARGEREF_MAX_ALIASES)"))
                if event.anchor in self._open:
                    raise ScenarioError(Problem(source, f"the alias *{event.anchor} lies inside its own anchor{_line(event)}"))
                return super().compose_node(parent, index)  # type: ignore[return-value]
            self._depth += 1
            if self._depth > limits.max_depth:
                raise ScenarioError(Problem(source, f"nested more than {limits.max_depth} levels deep{_line(event)}"))
            anchor: str | None = getattr(event, "anchor", None)
            opened = anchor is not None and anchor not in self._open
            if anchor is not None and opened:
                self._open.add(anchor)
            try:
                node = super().compose_node(parent, index)
            finally:
                self._depth -= 1
                if anchor is not None and opened:
                    self._open.discard(anchor)
            if node is None:
                raise ScenarioError(Problem(source, "not valid YAML"))
            self._sized(node)
            return node

        def _sized(self, node: Node) -> None:
            if isinstance(node, ScalarNode):
                n = 1
            elif isinstance(node, SequenceNode):
                n = 1 + sum(self._size.get(id(c), 1) for c in node.value)
            elif isinstance(node, MappingNode):
                n = 1 + sum(self._size.get(id(k), 1) + self._size.get(id(v), 1) for k, v in node.value)
            else:
                n = 1
            if n > limits.max_nodes:
                raise ScenarioError(Problem(source, f"the YAML aliases expand to more than {limits.max_nodes} values "
                                                    "(raise CHARGEREF_MAX_NODES for bigger documents)"))
            self._size[id(node)] = n

        def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:  # type: ignore[override]
            seen: set[Any] = set()
            for k, _v in node.value:
                if isinstance(k, ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    key = (k.tag, k.value)
                    if key in seen:
                        raise ScenarioError(Problem(source, f"duplicate key {str(k.value)[:60]!r} (line {k.start_mark.line + 1})"))
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

        def construct_yaml_int(self, node: ScalarNode) -> int:  # type: ignore[override]
            digits = str(node.value).replace("_", "").lstrip("+-")
            if len(digits) > limits.max_int_digits:
                raise ScenarioError(Problem(source, f"a whole number with {len(digits)} digits (line {node.start_mark.line + 1}; "
                                                    f"at most {limits.max_int_digits})"))
            return super().construct_yaml_int(node)  # type: ignore[no-any-return]

    Guarded.add_constructor("tag:yaml.org,2002:int", Guarded.construct_yaml_int)  # type: ignore[type-var]
    Guarded.add_constructor("tag:yaml.org,2002:map", Guarded.construct_yaml_map)  # type: ignore[type-var]
    return Guarded


def _yaml(text: str, source: str, limits: Limits) -> Any:
    loader = None
    try:
        loader = _guarded_loader(limits, source)(text)
        return loader.get_single_data()
    except (ComposerError, ConstructorError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        what = getattr(exc, "problem", None) or getattr(exc, "reason", None) or "not valid YAML"
        raise ScenarioError(Problem(source, f"neither valid JSON nor YAML{where}: {what}")) from None
    finally:
        if loader is not None:
            loader.dispose()


# ----------------------------------------------------------------------- entry


def load_bytes(data: bytes, *, source: str = "scenario", limits: Limits = DEFAULT_LIMITS) -> Any:
    """JSON or YAML bytes -> plain data; every refusal is a ScenarioError naming ``source``."""
    if len(data) > limits.max_bytes:
        raise ScenarioError(Problem(source, f"larger than {limits.max_bytes} bytes (raise it with --max-bytes or CHARGEREF_MAX_BYTES)"))
    text = decode(data, source)
    if "\x00" in text:
        hint = " (UTF-16 without a byte-order mark? save it as UTF-8)" if data[:2].count(0) == 1 else ""
        raise ScenarioError(Problem(source, f"the text holds NUL characters{hint}"))
    if not text.strip():
        raise ScenarioError(Problem(source, "the document is empty"))
    with _gc_paused():
        return _parse(text, source, limits)


def _parse(text: str, source: str, limits: Limits) -> Any:
    lead = text.lstrip()[:1]
    doc: Any
    if lead in "[{":
        if json_depth(text) > limits.max_depth:
            raise ScenarioError(Problem(source, f"nested more than {limits.max_depth} levels deep"))
        try:
            doc = _json(text, source, limits)
        except json.JSONDecodeError:
            doc = _yaml(text, source, limits)  # YAML flow style also starts with [ or {
        except RecursionError:
            raise ScenarioError(Problem(source, "nested too deeply")) from None
    else:
        doc = _yaml(text, source, limits)
    check_values(doc, source, limits)
    return doc


__all__ = ["decode", "json_depth", "load_bytes", "read_path"]
