"""pyproject.toml tells the truth: every third-party package pnpkit imports is declared, and
the project's licence file is there."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip(
    "tomllib", reason="tomllib is in the standard library from Python 3.11"
)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "pnpkit"


def _imported_modules() -> dict[str, str]:
    """Top-level module -> the first file that imports it, for every import in src/pnpkit
    (function-level imports included: those are the optional paths, still dependencies)."""
    found: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {_normal(re.match(r"[A-Za-z0-9_.-]+", req).group(0)) for req in project["dependencies"]}


def test_every_imported_package_is_a_declared_dependency():
    owners = importlib.metadata.packages_distributions()
    declared = _declared()
    undeclared = []
    for module, where in _imported_modules().items():
        if module in sys.stdlib_module_names or module in ("pnpkit", "__future__"):
            continue
        dists = {_normal(d) for d in owners.get(module, [module])}
        if not dists & declared:
            undeclared.append(f"{module} (imported in {where}; from {', '.join(sorted(dists))})")
    assert undeclared == []


def test_the_scan_sees_the_imports_it_must_check():
    """The scan itself: it finds imports at module level and inside functions."""
    modules = _imported_modules()
    assert {"reportlab", "jinja2", "markupsafe", "yaml", "lxml", "pypdfium2", "svgwrite"} <= set(
        modules
    )


def test_the_licence_the_package_declares_is_shipped():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")


def test_the_docs_give_every_dependency_a_licence_and_a_reason():
    """docs/dependencies.md lists every package pyproject.toml declares, the dev extra's too,
    each in a row with a licence and a reason."""
    page = (ROOT / "docs" / "dependencies.md").read_text(encoding="utf-8")
    rows = [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in page.splitlines()
        if line.startswith("| ") and not line.startswith(("| package |", "| --- |"))
    ]
    listed = {
        _normal(re.match(r"[\w.-]+", n.strip(" `")).group(0))
        for row in rows
        for n in row[0].split(",")
    }
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dev = {
        _normal(re.match(r"[A-Za-z0-9_.-]+", r).group(0))
        for r in project["optional-dependencies"]["dev"]
    }
    assert {"pytest-xdist", "mkdocs", "mkdocs-material"} <= dev
    assert (_declared() | dev) - listed == set()
    assert all(len(row) == 3 and row[1] and row[2] for row in rows), (
        "every row needs a licence and a reason"
    )


def test_the_floors_script_pins_every_dependency_to_its_floor():
    """`make floors` installs what scripts/floors.py prints: each dependency at its `>=` floor."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import floors
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert floors.floors(["reportlab[accel]>=4.4.3,<5.2", "pyyaml>=6,<7"]) == [
        "reportlab[accel]==4.4.3",
        "pyyaml==6",
    ]
    assert floors.floors(["ruff==0.17.6"]) == ["ruff==0.17.6"]  # an exact pin is its own floor
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = floors.floors(project["dependencies"])
    assert len(pinned) == len(project["dependencies"]) and all("==" in p for p in pinned)
    with pytest.raises(SystemExit, match="has no >= floor"):
        floors.floors(["lxml<7"])
