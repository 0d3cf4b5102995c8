"""The benchmark scripts run (at a tiny size), so `make bench` cannot rot unnoticed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPTS = [
    ("bench_cards.py", ["--quick"], "pnpkit build, new process, one card edited: median"),
    ("bench_incremental.py", ["--cards", "12", "--edits", "1"], "one card changed, new `pnpkit build` process: median"),
    ("bench_png.py", ["--cards", "4", "--runs", "1"], "faces/s"),
    ("bench_sheet.py", ["--rows", "20"], "read and validated 20 items in"),
    ("bench_side.py", ["--baseline", str(ROOT / "src"), "--cards", "3", "--runs", "1"], "one card edited / cold: this"),
    ("bench_text.py", [f"this={ROOT / 'src'}", "--cards", "3", "--runs", "1"], "rich  this     median CPU"),
]


@pytest.mark.parametrize("script, args, says", SCRIPTS, ids=[s for s, _, _ in SCRIPTS])
def test_benchmark_script_runs(script, args, says):
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert says in run.stdout
