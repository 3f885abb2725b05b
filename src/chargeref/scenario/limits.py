"""Limits on what chargeref reads: every document is untrusted.

One :class:`Limits` value says how big, deep and numerous a document may be. The
defaults fit any real table with a wide margin; each can be raised (environment
variables ``CHARGEREF_MAX_BYTES``, ``CHARGEREF_MAX_MODELS``, ... read by
:func:`limits_from_env`, or the CLI's ``--max-bytes``). A refusal names the limit and
how to raise it.

:func:`check_values` walks a document without recursion (a stack), so nesting depth
cannot exhaust Python's stack, and stops at ``max_nodes`` values, so a document whose
aliases expand without end cannot keep it busy.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields, replace
from typing import Any

from ..errors import Problem, ScenarioError


@dataclass(frozen=True)
class Limits:
    #: bytes read from one document (a file, a request body)
    max_bytes: int = 10_000_000
    #: nesting of lists and mappings
    max_depth: int = 64
    #: values in the document with YAML aliases expanded
    max_nodes: int = 2_000_000
    #: YAML aliases (``*name``) in one document
    max_aliases: int = 20_000
    #: |x| of any number
    max_abs_float: float = 1e6
    #: |n| of any whole number
    max_abs_int: int = 10**9
    #: digits of a whole number written in the document (checked before converting)
    max_int_digits: int = 30
    #: units in a scenario
    max_units: int = 1_000
    #: models (40k), stands (Warmaster) or rank-and-file (T9A formations) in a scenario
    max_models: int = 5_000
    #: points of one polygon, wall, hull or path
    max_points: int = 1_000
    #: terrain pieces in a scenario
    max_terrain: int = 1_000
    #: declared charges in a scenario
    max_charges: int = 1_000


DEFAULT_LIMITS = Limits()

#: environment variable -> Limits field
ENV_NAMES = {f"CHARGEREF_{f.name.upper()}": f.name for f in fields(Limits)}


def limits_from_env(env: dict[str, str] | None = None, base: Limits = DEFAULT_LIMITS) -> Limits:
    """The defaults with any ``CHARGEREF_MAX_*`` environment variable applied."""
    env = dict(os.environ if env is None else env)
    changes: dict[str, Any] = {}
    for var, name in ENV_NAMES.items():
        if var not in env:
            continue
        text = env[var].strip()
        kind = float if name == "max_abs_float" else int
        try:
            val = kind(text) if len(text) <= 20 else None
        except ValueError:
            val = None
        if val is None or not (isinstance(val, int) or math.isfinite(val)) or val <= 0:
            raise ScenarioError(Problem(var, f"must be a positive number (got {text[:40]!r})"))
        changes[name] = val
    return replace(base, **changes) if changes else base


def _render(path: tuple[Any, ...] | None) -> str:
    """(('units', 'A'), ...) linked path -> 'units[A].models[A2].at[0]'."""
    parts: list[str] = []
    while path is not None:
        path, label, index = path
        parts.append(f"[{_label(label, index - 1)}]" if index else label)
    out = ""
    for p in reversed(parts):
        out += p if p.startswith("[") or not out else "." + p
    return out


def _label(item: Any, i: int) -> str:
    if isinstance(item, dict):
        v = item.get("id")
        if isinstance(v, str) and len(v) <= 60:
            return v
    return str(i)


def _leaf_problem(value: Any, where: str, limits: Limits) -> Problem | None:
    """What is wrong with one scalar value (None: nothing)."""
    t = type(value)
    if t is str or t is bool or value is None:
        return None
    if t is float or isinstance(value, float):
        if not math.isfinite(value):
            if math.isnan(value):
                return Problem(where, "NaN is not a finite number")
            sign = "" if value > 0 else "-"
            return Problem(where, f"{sign}Infinity (or a number too large for a float) is not a finite number")
        if abs(value) > limits.max_abs_float:
            return Problem(where, f"{value:g} is too large (at most {limits.max_abs_float:g} in size)")
        return None
    if t is int or isinstance(value, int):
        if abs(value) > limits.max_abs_int:
            return Problem(where, f"whole number too large (at most {limits.max_abs_int} in size)")
        return None
    if isinstance(value, str):
        return None
    # YAML can build dates, bytes and sets; no chargeref document holds them
    return Problem(where, f"unsupported value of type {type(value).__name__}")


def check_values(doc: Any, source: str = "scenario", limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a document that is too deep or too big, or holds a number that is not
    finite or not of sane magnitude, naming the field. Iterative (a stack of
    containers; scalars are checked in place); at most ``limits.max_nodes`` values
    are visited."""
    if not isinstance(doc, (dict, list)):
        p = _leaf_problem(doc, source, limits)
        if p:
            raise ScenarioError(p)
        return
    stack: list[tuple[Any, Any, int]] = [(doc, None, 0)]
    seen = 1
    max_float, max_int = limits.max_abs_float, limits.max_abs_int
    while stack:
        value, path, depth = stack.pop()
        if depth >= limits.max_depth:
            raise ScenarioError(Problem(_render(path) or source, f"nested more than {limits.max_depth} levels deep"))
        seen += len(value)
        if seen > limits.max_nodes:
            raise ScenarioError(Problem(source, f"more than {limits.max_nodes} values (with aliases expanded); "
                                                "raise CHARGEREF_MAX_NODES for bigger documents"))
        is_dict = type(value) is dict or isinstance(value, dict)
        items = value.items() if is_dict else enumerate(value)
        for k, v in items:
            if is_dict and type(k) is not str:
                raise ScenarioError(Problem(_render(path) or source, f"key {str(k)[:40]!r} is not text"))
            t = type(v)
            if t is str or t is bool or v is None:
                continue
            if t is float and -max_float <= v <= max_float:  # NaN fails both comparisons
                continue
            if t is int and -max_int <= v <= max_int:
                continue
            child = (path, k, 0) if is_dict else (path, v, k + 1)
            if t is dict or t is list or isinstance(v, (dict, list)):
                stack.append((v, child, depth + 1))
                continue
            p = _leaf_problem(v, _render(child) or source, limits)
            if p:
                raise ScenarioError(p)


def _items(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _too_many(field: str, n: int, limit: int, what: str, env: str) -> Problem:
    return Problem(field, f"{n} {what}: the limit is {limit} (raise it with {env})")


def count_problems(doc: Any, limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """Units, models, terrain pieces, charges and points per shape within the limits."""
    if not isinstance(doc, dict):
        return []
    probs: list[Problem] = []
    units = _items(doc.get("units"))
    if len(units) > limits.max_units:
        probs.append(_too_many("units", len(units), limits.max_units, "units", "CHARGEREF_MAX_UNITS"))
    n_models = 0
    for i, u in enumerate(units[: limits.max_units]):
        if not isinstance(u, dict):
            continue
        label = _label(u, i)
        for key in ("models", "stands"):
            n_models += len(_items(u.get(key)))
        form = u.get("formation")
        if isinstance(form, dict):
            for key in ("models", "files", "ranks"):
                v = form.get(key)
                if isinstance(v, int) and not isinstance(v, bool) and key == "models":
                    n_models += max(0, v)
        for m in _items(u.get("models")):
            if isinstance(m, dict) and isinstance(m.get("base"), dict):
                hull = _items(m["base"].get("hull"))
                if len(hull) > limits.max_points:
                    probs.append(_too_many(f"units[{label}].models[{_label(m, 0)}].base.hull", len(hull), limits.max_points,
                                           "points", "CHARGEREF_MAX_POINTS"))
        if isinstance(u.get("base"), dict):
            hull = _items(u["base"].get("hull"))
            if len(hull) > limits.max_points:
                probs.append(_too_many(f"units[{label}].base.hull", len(hull), limits.max_points, "points", "CHARGEREF_MAX_POINTS"))
    if n_models > limits.max_models:
        probs.append(_too_many("units", n_models, limits.max_models, "models", "CHARGEREF_MAX_MODELS"))
    terrain = _items(doc.get("terrain"))
    if len(terrain) > limits.max_terrain:
        probs.append(_too_many("terrain", len(terrain), limits.max_terrain, "terrain pieces", "CHARGEREF_MAX_TERRAIN"))
    for i, t in enumerate(terrain[: limits.max_terrain]):
        if not isinstance(t, dict):
            continue
        label = _label(t, i)
        shapes = [(k, t.get(k)) for k in ("footprint", "polygon", "points")]
        shapes += [(f"walls[{j}].points", w.get("points")) for j, w in enumerate(_items(t.get("walls"))) if isinstance(w, dict)]
        shapes += [(f"floors[{j}].polygon", f.get("polygon")) for j, f in enumerate(_items(t.get("floors"))) if isinstance(f, dict)]
        for key, pts in shapes:
            if isinstance(pts, list) and len(pts) > limits.max_points:
                probs.append(_too_many(f"terrain[{label}].{key}", len(pts), limits.max_points, "points", "CHARGEREF_MAX_POINTS"))
    charges = _items(doc.get("charges"))
    if len(charges) > limits.max_charges:
        probs.append(_too_many("charges", len(charges), limits.max_charges, "charges", "CHARGEREF_MAX_CHARGES"))
    return probs


__all__ = ["DEFAULT_LIMITS", "ENV_NAMES", "Limits", "check_values", "count_problems", "limits_from_env"]
