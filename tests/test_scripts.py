"""The benchmark scripts run (at a tiny size), so `make bench` cannot rot unnoticed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPTS = [  # every scripts/bench_*.py, with --quick (tiny sizes, one run) and what it prints
    ("bench_cards.py", "pnpkit build, new process, one card edited: median"),
    ("bench_export.py", "files that differ between the cold and the warm output: "),
    ("bench_incremental.py", "one card changed, new `pnpkit build` process: median"),
    ("bench_png.py", "faces/s"),
    ("bench_sheet.py", "read and validated 20 items in"),
    ("bench_side.py", "one card edited / cold: this"),
    ("bench_text.py", "rich  this     median CPU"),
]


@pytest.mark.parametrize("script, says", SCRIPTS, ids=[s for s, _ in SCRIPTS])
def test_benchmark_script_runs(script: str, says: str) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert says in run.stdout


def test_every_benchmark_script_is_run() -> None:
    """A new bench_*.py joins SCRIPTS (and so takes --quick), or it could rot unnoticed."""
    assert sorted(p.name for p in (ROOT / "scripts").glob("bench_*.py")) == sorted(
        s for s, _ in SCRIPTS
    )
