"""Print the lowest version pyproject.toml allows of every dependency, as pip requirements
(`reportlab[accel]==4.4.3 ...`): `make floors` installs exactly these and runs the tests,
so a floor is one the code is known to work with, not a guess."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.-]+(?:\[[^\]]*\])?)\s*(.*)$")


def floors(dependencies: list[str]) -> list[str]:
    """Each requirement pinned to its `>=` floor (an exact `==` pin, e.g. a lint tool's, stays as
    it is); one without either is an error."""
    out = []
    for req in dependencies:
        name, spec = REQUIREMENT.match(req).groups()
        floor = re.search(r"(?:>=|==)\s*([^,;\s]+)", spec)
        if floor is None:
            raise SystemExit(f"floors: '{req}' has no >= floor (or == pin) in pyproject.toml")
        out.append(f"{name}=={floor.group(1)}")
    return out


def main() -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    print(" ".join(floors(project["dependencies"] + project["optional-dependencies"]["dev"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
