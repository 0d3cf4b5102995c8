"""What a wheel holds: the files pnpkit reads from its own package (importlib and Jinja's
PackageLoader find them there), so an installed pnpkit has its preview page and scaffold."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "pnpkit"


def test_the_wheel_holds_every_asset_template_and_data_file(tmp_path):
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside the sources
    shutil.copytree(
        ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    # with build isolation: pyproject asks for setuptools>=77 (the venv may hold an older one),
    # which pip fetches from PyPI, as `make` fetches everything else
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("pnpkit-*.whl")
    with zipfile.ZipFile(wheel) as z:
        held = {n for n in z.namelist() if n.startswith("pnpkit/")}
    wanted = {
        f"pnpkit/{p.relative_to(PACKAGE).as_posix()}"
        for folder in ("assets", "templates", "labels", "profiles")
        for p in (PACKAGE / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert any(n.startswith("pnpkit/assets/scaffold/templates/NAME/") for n in wanted)
    assert {"pnpkit/assets/preview/page.html.j2", "pnpkit/assets/preview/preview.js"} <= wanted
    assert wanted - held == set()
