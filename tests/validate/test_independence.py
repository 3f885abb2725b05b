"""The validator stays independent of the solvers: it imports geometry primitives,
the scenario and ruling models, errors, the time limit (``chargeref.budget``, which its
loops check) and its own modules; from ``chargeref.systems`` only the data-only
editions table."""

from __future__ import annotations

import ast
from pathlib import Path

import chargeref.validate

ALLOWED = ("chargeref.geometry", "chargeref.scenario", "chargeref.ruling", "chargeref.errors",
           "chargeref.budget", "chargeref.validate", "chargeref.systems.w40k.editions")


def _imports(path: Path) -> set[str]:
    pkg = "chargeref.validate"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            out.add(mod)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("chargeref")}


def test_validator_imports_no_solver_code() -> None:
    root = Path(chargeref.validate.__file__).parent
    files = sorted(root.glob("*.py"))
    assert len(files) >= 9
    for f in files:
        for mod in _imports(f):
            assert mod.startswith(ALLOWED), f"{f.name} imports {mod}"
